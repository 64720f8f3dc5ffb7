/* ep-function-private.h: staged functions inside the library
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#include "ep-function.h"
#include "ep-graph-private.h"
#include "ep-staged-gradient-private.h"

G_BEGIN_DECLS

EpGraph    *ep_function_lookup_graph  (EpFunction           *self,
                                       EpTensor *const      *inputs,
                                       guint                 n_inputs);
EpFunction *ep_function_new_for_graph (EpGraph              *graph,
                                       EpTensorSpec *const  *signature);
EpGraph    *ep_function_lookup_plan   (EpFunction           *self,
                                       EpTensor *const      *inputs,
                                       guint                 n_inputs);
void        ep_function_set_pruning   (EpFunction           *self,
                                       gboolean              pruning);
EpStagedGradient *ep_function_lookup_gradient (EpFunction      *self,
                                               EpTensor *const *inputs,
                                               guint            n_inputs);

GPtrArray  *ep_function_replay_only   (EpFunction           *self,
                                       EpTensor            **inputs,
                                       guint                 n_inputs,
                                       GError              **error);

G_END_DECLS
