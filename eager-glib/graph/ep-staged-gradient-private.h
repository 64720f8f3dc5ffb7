/* ep-staged-gradient-private.h: gradients through staged calls
 * (graph/staged-gradient.c)
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#include "ep-executor-private.h"
#include "ep-function.h"
#include "ep-graph-private.h"

G_BEGIN_DECLS

/* What a forward graph needs to be recorded as one step: made once per
 * graph, with its staged backward function made on first need. */
typedef struct _EpStagedGradient EpStagedGradient;

EpStagedGradient *ep_staged_gradient_new           (EpGraph           *graph);
EpStagedGradient *ep_staged_gradient_ref           (EpStagedGradient  *self);
void              ep_staged_gradient_unref         (EpStagedGradient  *self);
gboolean          ep_staged_gradient_replay        (EpStagedGradient  *self,
                                                    EpFrame           *frame,
                                                    EpTensor *const   *inputs,
                                                    EpTensor         **outputs,
                                                    GError           **error);
EpFunction       *ep_staged_gradient_peek_backward (EpStagedGradient  *self,
                                                    const gboolean    *sources);
EpFunction       *ep_staged_gradient_peek_rest     (EpStagedGradient  *self,
                                                    EpTensor *const   *inputs);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (EpStagedGradient, ep_staged_gradient_unref)

G_END_DECLS
