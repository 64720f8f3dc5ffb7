/* ep-avg-pool2d.h
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#if !defined(EP_INSIDE) && !defined(EP_COMPILATION)
# error "Only <eager-glib/eager-glib.h> can be included directly."
#endif

#include "ep-module.h"

G_BEGIN_DECLS

#define EP_TYPE_AVG_POOL2D (ep_avg_pool2d_layer_get_type ())

EP_EXPORT
G_DECLARE_FINAL_TYPE (EpAvgPool2d, ep_avg_pool2d_layer, EP, AVG_POOL2D, EpModule)

EP_EXPORT
EpModule     *ep_avg_pool2d_layer_new (gint64      kernel_height,
                                       gint64      kernel_width,
                                       GError    **error);

G_END_DECLS
