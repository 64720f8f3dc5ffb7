/* ep-layer-norm.h
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

#define EP_TYPE_LAYER_NORM (ep_layer_norm_get_type ())

EP_EXPORT
G_DECLARE_FINAL_TYPE (EpLayerNorm, ep_layer_norm, EP, LAYER_NORM, EpModule)

EP_EXPORT
EpModule     *ep_layer_norm_new                 (const gint64  *normalized_shape,
                                                 guint          n_normalized_shape,
                                                 GError       **error);
EP_EXPORT
const gint64 *ep_layer_norm_get_normalized_shape (EpLayerNorm   *self,
                                                  guint         *n_normalized_shape);
EP_EXPORT
EpVariable   *ep_layer_norm_get_weight          (EpLayerNorm   *self);
EP_EXPORT
EpVariable   *ep_layer_norm_get_bias            (EpLayerNorm   *self);

G_END_DECLS
