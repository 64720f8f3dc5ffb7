/* ep-gradient-tape.h
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#if !defined(EP_INSIDE) && !defined(EP_COMPILATION)
# error "Only <eager-glib/eager-glib.h> can be included directly."
#endif

#include <glib-object.h>

#include "ep-tensor.h"
#include "ep-memory.h"
#include "ep-variable.h"

G_BEGIN_DECLS

/**
 * EpUnconnectedGradients:
 * @EP_UNCONNECTED_GRADIENTS_ZERO: a source the targets do not depend on
 *   gets a gradient of zeros shaped like it (the default)
 * @EP_UNCONNECTED_GRADIENTS_NONE: it gets %NULL (`None` in Python, `null`
 *   in JavaScript)
 *
 * What [method@GradientTape.gradient] answers for a source that no
 * recorded op connects to the targets.
 */
typedef enum {
  EP_UNCONNECTED_GRADIENTS_ZERO,
  EP_UNCONNECTED_GRADIENTS_NONE,
} EpUnconnectedGradients;

#define EP_TYPE_GRADIENT_TAPE (ep_gradient_tape_get_type ())

EP_EXPORT
G_DECLARE_FINAL_TYPE (EpGradientTape, ep_gradient_tape, EP, GRADIENT_TAPE, GObject)

EP_EXPORT
EpGradientTape         *ep_gradient_tape_new                      (gboolean                persistent);

EP_EXPORT
gboolean                ep_gradient_tape_get_persistent           (EpGradientTape         *self);
EP_EXPORT
gboolean                ep_gradient_tape_get_watch_accessed_variables (EpGradientTape     *self);
EP_EXPORT
EpUnconnectedGradients  ep_gradient_tape_get_unconnected_gradients (EpGradientTape        *self);
EP_EXPORT
void                    ep_gradient_tape_set_unconnected_gradients (EpGradientTape        *self,
                                                                    EpUnconnectedGradients unconnected);

EP_EXPORT
gboolean                ep_gradient_tape_start                    (EpGradientTape         *self,
                                                                   GError                **error);
EP_EXPORT
gboolean                ep_gradient_tape_stop                     (EpGradientTape         *self,
                                                                   GError                **error);
EP_EXPORT
gboolean                ep_gradient_tape_is_active                (EpGradientTape         *self);
EP_EXPORT
EpTensor               *ep_gradient_tape_record                   (EpGradientTape         *self,
                                                                   EpScopeFunc             func,
                                                                   gpointer                user_data,
                                                                   GError                **error);
EP_EXPORT
void                    ep_gradient_tape_stop_recording           (EpGradientTape         *self);
EP_EXPORT
gboolean                ep_gradient_tape_resume_recording         (EpGradientTape         *self,
                                                                   GError                **error);
EP_EXPORT
gboolean                ep_gradient_tape_is_recording             (EpGradientTape         *self);
EP_EXPORT
void                    ep_gradient_tape_reset                    (EpGradientTape         *self);

EP_EXPORT
void                    ep_gradient_tape_watch                    (EpGradientTape         *self,
                                                                   EpTensor               *tensor);
EP_EXPORT
void                    ep_gradient_tape_watch_variable           (EpGradientTape         *self,
                                                                   EpVariable             *variable);
EP_EXPORT
GPtrArray              *ep_gradient_tape_watched_variables        (EpGradientTape         *self);

EP_EXPORT
GPtrArray              *ep_gradient_tape_gradient                 (EpGradientTape         *self,
                                                                   EpTensor              **targets,
                                                                   guint                   n_targets,
                                                                   GObject               **sources,
                                                                   guint                   n_sources,
                                                                   EpTensor              **output_gradients,
                                                                   guint                   n_output_gradients,
                                                                   GError                **error);
EP_EXPORT
GPtrArray              *ep_gradient_tape_gradient_variables       (EpGradientTape         *self,
                                                                   EpTensor              **targets,
                                                                   guint                   n_targets,
                                                                   EpVariable            **variables,
                                                                   guint                   n_variables,
                                                                   EpTensor              **output_gradients,
                                                                   guint                   n_output_gradients,
                                                                   GError                **error);
EP_EXPORT
GPtrArray              *ep_gradient_tape_gradient_tensors         (EpGradientTape         *self,
                                                                   EpTensor              **targets,
                                                                   guint                   n_targets,
                                                                   EpTensor              **tensors,
                                                                   guint                   n_tensors,
                                                                   EpTensor              **output_gradients,
                                                                   guint                   n_output_gradients,
                                                                   GError                **error);
EP_EXPORT
EpTensor               *ep_gradient_tape_jacobian                 (EpGradientTape         *self,
                                                                   EpTensor               *target,
                                                                   GObject                *source,
                                                                   GError                **error);
EP_EXPORT
EpTensor               *ep_gradient_tape_batch_jacobian           (EpGradientTape         *self,
                                                                   EpTensor               *target,
                                                                   GObject                *source,
                                                                   GError                **error);

G_END_DECLS
