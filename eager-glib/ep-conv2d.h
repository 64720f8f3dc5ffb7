/* ep-conv2d.h
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#if !defined(EP_INSIDE) && !defined(EP_COMPILATION)
# error "Only <eager-glib/eager-glib.h> can be included directly."
#endif

#include "ep-module.h"
#include "ep-types.h"

G_BEGIN_DECLS

#define EP_TYPE_CONV2D (ep_conv2d_layer_get_type ())

EP_EXPORT
G_DECLARE_FINAL_TYPE (EpConv2d, ep_conv2d_layer, EP, CONV2D, EpModule)

EP_EXPORT
EpModule     *ep_conv2d_layer_new        (gint64      in_channels,
                                          gint64      out_channels,
                                          gint64      kernel_height,
                                          gint64      kernel_width,
                                          GError    **error);
EP_EXPORT
EpVariable   *ep_conv2d_layer_get_weight (EpConv2d   *self);
EP_EXPORT
EpVariable   *ep_conv2d_layer_get_bias   (EpConv2d   *self);

G_END_DECLS
