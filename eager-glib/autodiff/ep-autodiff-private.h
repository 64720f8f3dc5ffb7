/* ep-autodiff-private.h
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#include "ep-autodiff.h"
#include "ep-context-private.h"
#include "ep-gradient-tape.h"
#include "ep-op-private.h"
#include "ep-variable.h"

G_BEGIN_DECLS

/* ops/autodiff.c */
EpTensor  *ep_identity                 (EpTensor         *tensor,
                                        GError          **error);

/* autodiff/functional.c */
gboolean   ep_custom_gradient_rule     (const EpOpCall   *call,
                                        EpTensor *const  *output_grads,
                                        EpTensor        **input_grads,
                                        GError          **error);
gpointer   ep_custom_gradient_ref_backward   (EpTensor  *output);
void       ep_custom_gradient_set_backward   (EpTensor  *output,
                                              gpointer   backward);
gpointer   ep_custom_gradient_dup_backward   (gpointer   backward);
void       ep_custom_gradient_unref_backward (gpointer   backward);
gpointer   ep_custom_gradient_set_pending    (gpointer   backward);
gboolean   ep_autodiff_value_and_grad  (const char       *name,
                                        EpTensorFunc      func,
                                        EpTensorsFunc     aux_func,
                                        gpointer          user_data,
                                        EpTensor        **inputs,
                                        guint             n_inputs,
                                        const gint       *argnums,
                                        guint             n_argnums,
                                        EpTensor        **value,
                                        GPtrArray       **aux,
                                        GPtrArray       **grads,
                                        GError          **error);
GPtrArray *ep_tensor_array_new         (guint             reserved);
GPtrArray *ep_autodiff_take_tensors    (GPtrArray        *returned,
                                        gboolean          allow_null,
                                        const char       *name,
                                        const char       *what,
                                        GError          **error);

/* autodiff/gradient-tape.c */
guint      ep_gradient_tape_get_n_entries (EpGradientTape *self);
typedef gboolean (*EpRecorderSwitch) (gpointer   self,
                                      GError   **error);
EpTensor  *ep_autodiff_record          (gpointer          self,
                                        EpRecorder       *recorder,
                                        EpRecorderSwitch  start,
                                        EpRecorderSwitch  stop,
                                        EpScopeFunc       func,
                                        gpointer          user_data,
                                        const char       *stopped,
                                        GError          **error);

/* autodiff/variable.c */
EpTensor  *ep_variable_peek            (EpVariable       *self);
EpTensor  *ep_variable_read_for_update (EpVariable       *self);

/* optimizer.c: arithmetic of updates, for the subclasses */
EpTensor  *ep_optimizer_scale          (EpTensor         *t,
                                        gdouble           s,
                                        GError          **error);
EpTensor  *ep_optimizer_blend          (EpTensor         *a,
                                        gdouble           s,
                                        EpTensor         *b,
                                        gdouble           r,
                                        GError          **error);
EpTensor  *ep_variable_exchange_value  (EpVariable       *self,
                                        EpTensor         *value);
gpointer   ep_variable_begin_in_place  (EpVariable       *self);
EpTensor  *ep_variable_begin_in_place_on (EpVariable     *self,
                                          EpDevice       *device);
void       ep_variable_end_in_place    (EpVariable       *self);

/* optimizer.c: the gradient's elements, if a fused CPU update can read
 * them (contiguous, on the CPU); NULL otherwise */
gconstpointer ep_optimizer_host_gradient (EpTensor       *gradient);

/* optimizer.c: for the subclasses */
typedef struct _EpOptimizer EpOptimizer;
EpVariable *ep_optimizer_ensure_slot_full (EpOptimizer  *self,
                                           EpVariable   *variable,
                                           const char   *name,
                                           gdouble       fill,
                                           gboolean     *created,
                                           GError      **error);
EpTensor  *ep_optimizer_lerp           (EpTensor         *a,
                                        EpTensor         *b,
                                        gdouble           w,
                                        GError          **error);
EpTensor  *ep_optimizer_store          (EpVariable       *slot,
                                        EpTensor         *value,
                                        GError          **error);
/* The scalars a subclass computes on the host for step @step (1 for the
 * first) at @learning_rate: at most EP_HOST_CALL_MAX_RESULTS; returns how
 * many. Staged, they are computed by a host call at each replay. */
typedef guint (*EpOptimizerScalarsFunc) (EpOptimizer *self,
                                         gdouble      learning_rate,
                                         guint64      step,
                                         gdouble     *scalars);
typedef struct _EpOptimizerClass EpOptimizerClass;
void       ep_optimizer_class_set_scalars_func (EpOptimizerClass       *klass,
                                                EpOptimizerScalarsFunc  func);
/* The slots a subclass keeps for a variable with its settings, and the
 * value each starts from. */
#define EP_OPTIMIZER_MAX_SLOTS 4
typedef struct
{
  const char *name;
  gdouble     fill;
} EpOptimizerSlot;
typedef guint (*EpOptimizerSlotsFunc) (EpOptimizer     *self,
                                       EpOptimizerSlot *slots);
void       ep_optimizer_class_set_slots_func (EpOptimizerClass     *klass,
                                              EpOptimizerSlotsFunc  func);
gdouble    ep_optimizer_get_scalar     (EpOptimizer      *self,
                                        guint             index);
EpTensor  *ep_optimizer_factor         (EpOptimizer      *self,
                                        guint             index,
                                        EpTensor         *like,
                                        GError          **error);
EpTensor  *ep_optimizer_scale_by       (EpOptimizer      *self,
                                        EpTensor         *t,
                                        guint             index,
                                        GError          **error);
gboolean   ep_optimizer_begin_in_place (EpVariable      **variables,
                                        gpointer         *data,
                                        guint             n);
/* flags of the fused device kernels (opencl/kernels/optimizer.cl) */
#define EP_OPT_DECAY      1
#define EP_OPT_DECOUPLED  2
#define EP_OPT_SLOT_A     4
#define EP_OPT_SLOT_B     8
#define EP_OPT_NEAR_LOW  16
gboolean   ep_optimizer_update_on_device (const char     *kernel,
                                          EpVariable    **state,
                                          EpTensor       *gradient,
                                          const gdouble  *constants,
                                          gint            flags,
                                          gboolean       *ran,
                                          GError        **error);
void       ep_optimizer_end_in_place   (EpVariable      **variables,
                                        guint             n);

G_END_DECLS
