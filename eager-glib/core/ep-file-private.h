/* ep-file-private.h: reading and writing whole files (core/file.c)
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

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
