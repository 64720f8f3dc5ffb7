/* ep-linear.h
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#if !defined(EP_INSIDE) && !defined(EP_COMPILATION)
# error "Only <eager-glib/eager-glib.h> can be included directly."
#endif

#include "ep-module.h"

G_BEGIN_DECLS

#define EP_TYPE_LINEAR (ep_linear_get_type ())

EP_EXPORT
G_DECLARE_FINAL_TYPE (EpLinear, ep_linear, EP, LINEAR, EpModule)

EP_EXPORT
EpModule     *ep_linear_new              (gint64      in_features,
                                          gint64      out_features,
                                          gboolean    use_bias,
                                          GError    **error);
EP_EXPORT
gint64        ep_linear_get_in_features  (EpLinear   *self);
EP_EXPORT
gint64        ep_linear_get_out_features (EpLinear   *self);
EP_EXPORT
EpVariable   *ep_linear_get_weight       (EpLinear   *self);
EP_EXPORT
EpVariable   *ep_linear_get_bias         (EpLinear   *self);

G_END_DECLS
