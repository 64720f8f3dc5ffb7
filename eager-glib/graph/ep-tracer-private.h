/* ep-tracer-private.h: the recorder behind staging (graph/tracer.c)
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#include "ep-graph-private.h"
#include "ep-recorder-private.h"

G_BEGIN_DECLS

typedef struct _EpTracer EpTracer;

EpTracer *ep_tracer_new    (EpTensor *const *inputs,
                            guint            n_inputs);
void      ep_tracer_free   (EpTracer        *self);
void      ep_tracer_begin  (EpTracer        *self);
void      ep_tracer_end    (EpTracer        *self);
EpGraph  *ep_tracer_finish (EpTracer        *self,
                            EpTensor *const *outputs,
                            guint            n_outputs);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (EpTracer, ep_tracer_free)

G_END_DECLS
