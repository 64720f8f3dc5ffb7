/* ep-batch-norm.h
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

#define EP_TYPE_BATCH_NORM (ep_batch_norm_get_type ())

EP_EXPORT
G_DECLARE_FINAL_TYPE (EpBatchNorm, ep_batch_norm, EP, BATCH_NORM, EpModule)

EP_EXPORT
EpModule     *ep_batch_norm_new                 (gint64         num_features,
                                                 GError       **error);
EP_EXPORT
EpVariable   *ep_batch_norm_get_weight          (EpBatchNorm   *self);
EP_EXPORT
EpVariable   *ep_batch_norm_get_bias            (EpBatchNorm   *self);
EP_EXPORT
EpVariable   *ep_batch_norm_get_running_mean    (EpBatchNorm   *self);
EP_EXPORT
EpVariable   *ep_batch_norm_get_running_var     (EpBatchNorm   *self);

G_END_DECLS
