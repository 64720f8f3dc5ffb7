/* ep-file-private.h: reading and writing whole files (core/file.c)
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

gboolean  ep_file_format_error    (GError         **error,
                                   const char      *where,
                                   const char      *format,
                                   ...) G_GNUC_PRINTF (3, 4);
gboolean  ep_file_format_error_from (GError       **error,
                                     const char    *where,
                                     GError        *cause);
void      ep_file_propagate_error (GError         **dest,
                                   GError          *src,
                                   const char      *op_name);
GBytes   *ep_file_map             (GFile           *file,
                                   const char      *op_name,
                                   GCancellable    *cancellable,
                                   GError         **error);
gboolean  ep_file_replace         (GFile           *file,
                                   GBytes *const   *parts,
                                   guint            n_parts,
                                   const char      *op_name,
                                   GCancellable    *cancellable,
                                   GError         **error);

G_END_DECLS
