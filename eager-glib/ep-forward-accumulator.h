/* ep-forward-accumulator.h
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#if !defined(EP_INSIDE) && !defined(EP_COMPILATION)
# error "Only <eager-glib/eager-glib.h> can be included directly."
#endif

#include <glib-object.h>

#include "ep-autodiff.h"
#include "ep-gradient-tape.h"
#include "ep-memory.h"
#include "ep-tensor.h"

G_BEGIN_DECLS

#define EP_TYPE_FORWARD_ACCUMULATOR (ep_forward_accumulator_get_type ())

EP_EXPORT
G_DECLARE_FINAL_TYPE (EpForwardAccumulator, ep_forward_accumulator, EP, FORWARD_ACCUMULATOR, GObject)

EP_EXPORT
EpForwardAccumulator   *ep_forward_accumulator_new      (void);

EP_EXPORT
gboolean                ep_forward_accumulator_watch    (EpForwardAccumulator   *self,
                                                         EpTensor               *primal,
                                                         EpTensor               *tangent,
                                                         GError                **error);
EP_EXPORT
gboolean                ep_forward_accumulator_start    (EpForwardAccumulator   *self,
                                                         GError                **error);
EP_EXPORT
gboolean                ep_forward_accumulator_stop     (EpForwardAccumulator   *self,
                                                         GError                **error);
EP_EXPORT
gboolean                ep_forward_accumulator_is_active (EpForwardAccumulator  *self);
EP_EXPORT
EpTensor               *ep_forward_accumulator_record   (EpForwardAccumulator   *self,
                                                         EpScopeFunc             func,
                                                         gpointer                user_data,
                                                         GError                **error);
EP_EXPORT
EpTensor               *ep_forward_accumulator_jvp      (EpForwardAccumulator   *self,
                                                         EpTensor               *tensor,
                                                         GError                **error);
EP_EXPORT
void                    ep_forward_accumulator_reset    (EpForwardAccumulator   *self);
EP_EXPORT
EpUnconnectedGradients  ep_forward_accumulator_get_unconnected_gradients (EpForwardAccumulator  *self);
EP_EXPORT
void                    ep_forward_accumulator_set_unconnected_gradients (EpForwardAccumulator  *self,
                                                                          EpUnconnectedGradients unconnected);

EP_EXPORT
gboolean                ep_jvp                          (EpTensorsFunc           func,
                                                         gpointer                user_data,
                                                         EpTensor              **primals,
                                                         guint                   n_primals,
                                                         EpTensor              **tangents,
                                                         guint                   n_tangents,
                                                         GPtrArray             **outputs,
                                                         GPtrArray             **output_tangents,
                                                         GError                **error);
EP_EXPORT
gboolean                ep_hvp                          (EpTensorFunc            func,
                                                         gpointer                user_data,
                                                         EpTensor              **primals,
                                                         guint                   n_primals,
                                                         EpTensor              **vectors,
                                                         guint                   n_vectors,
                                                         EpTensor              **value,
                                                         GPtrArray             **products,
                                                         GError                **error);

G_END_DECLS
