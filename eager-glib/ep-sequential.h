/* ep-sequential.h
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#if !defined(EP_INSIDE) && !defined(EP_COMPILATION)
# error "Only <eager-glib/eager-glib.h> can be included directly."
#endif

#include "ep-module.h"

G_BEGIN_DECLS

#define EP_TYPE_SEQUENTIAL (ep_sequential_get_type ())

EP_EXPORT
G_DECLARE_FINAL_TYPE (EpSequential, ep_sequential, EP, SEQUENTIAL, EpModule)

EP_EXPORT
EpModule     *ep_sequential_new        (void);
EP_EXPORT
gboolean      ep_sequential_append     (EpSequential  *self,
                                        EpModule      *module,
                                        GError       **error);
EP_EXPORT
guint         ep_sequential_get_length (EpSequential  *self);
EP_EXPORT
EpModule     *ep_sequential_get        (EpSequential  *self,
                                        guint          index);

G_END_DECLS
