/* ep-optimizer.h
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#if !defined(EP_INSIDE) && !defined(EP_COMPILATION)
# error "Only <eager-glib/eager-glib.h> can be included directly."
#endif

#include <glib-object.h>

#include "ep-learning-rate-schedule.h"
#include "ep-tensor.h"
#include "ep-variable.h"

G_BEGIN_DECLS

#define EP_TYPE_OPTIMIZER (ep_optimizer_get_type ())

EP_EXPORT
G_DECLARE_DERIVABLE_TYPE (EpOptimizer, ep_optimizer, EP, OPTIMIZER, GObject)

/**
 * EpOptimizerClass:
 * @update: applies one gradient to one variable; the base class has
 *   checked that the gradient fits the variable and counted the step
 *
 * The class of optimizers: a subclass implements @update.
 */
struct _EpOptimizerClass
{
  GObjectClass parent_class;

  gboolean (*update) (EpOptimizer  *self,
                      EpVariable   *variable,
                      EpTensor     *gradient,
                      GError      **error);

  /*< private >*/
  gpointer padding[8];
};

EP_EXPORT
gboolean       ep_optimizer_apply_gradients   (EpOptimizer  *self,
                                               EpTensor    **gradients,
                                               guint         n_gradients,
                                               EpVariable  **variables,
                                               guint         n_variables,
                                               GError      **error);
EP_EXPORT
gdouble        ep_optimizer_get_learning_rate (EpOptimizer  *self);
EP_EXPORT
void           ep_optimizer_set_learning_rate (EpOptimizer  *self,
                                               gdouble       learning_rate);
EP_EXPORT
EpLearningRateSchedule *ep_optimizer_get_learning_rate_schedule (EpOptimizer            *self);
EP_EXPORT
void           ep_optimizer_set_learning_rate_schedule (EpOptimizer            *self,
                                                        EpLearningRateSchedule *schedule);
EP_EXPORT
guint64        ep_optimizer_get_iterations    (EpOptimizer  *self);
EP_EXPORT
EpVariable    *ep_optimizer_get_iterations_variable (EpOptimizer *self);
EP_EXPORT
EpVariable    *ep_optimizer_get_slot          (EpOptimizer  *self,
                                               EpVariable   *variable,
                                               const char   *name);
EP_EXPORT
GPtrArray     *ep_optimizer_list_state        (EpOptimizer        *self,
                                               const char         *prefix,
                                               const char *const  *names,
                                               EpVariable *const  *variables,
                                               guint               n_variables,
                                               char             ***state_names,
                                               GError            **error);
EP_EXPORT
EpVariable    *ep_optimizer_ensure_slot       (EpOptimizer  *self,
                                               EpVariable   *variable,
                                               const char   *name,
                                               gboolean     *created,
                                               GError      **error);

G_END_DECLS
