/* ep-passes-private.h: the optimizer's passes over graphs (graph/passes/)
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#include "ep-graph-private.h"

G_BEGIN_DECLS

/*
 * EpGraphPassFunc:
 *
 * One pass: a graph that computes what @graph computes, or @graph
 * itself (a new reference) when the pass has nothing to change. A pass
 * keeps the inputs, the variables (same order: replays index them) and
 * the number of outputs; it never moves work across a node that does
 * something besides computing a value (a variable access, a random
 * draw, a host call, an op that checks its inputs' values).
 */
typedef EpGraph *(*EpGraphPassFunc) (EpGraph *graph);

typedef struct
{
  const char      *name;
  EpGraphPassFunc  run;
} EpGraphPass;

EpGraph  *ep_graph_optimize        (EpGraph         *graph);

/* the passes (graph/passes/<name>.c; prune is in ep-graph-private.h) */
EpGraph  *ep_graph_simplify        (EpGraph         *graph);
EpGraph  *ep_graph_cse             (EpGraph         *graph);
EpGraph  *ep_graph_fold            (EpGraph         *graph);

/* for the passes (optimize.c) */
EpGraph  *ep_graph_new_like        (EpGraph         *graph);
const EpLayout *ep_graph_value_layout (EpGraph          *graph,
                                       const EpValueRef *ref);
EpDevice *ep_graph_value_device    (EpGraph          *graph,
                                    const EpValueRef *ref);
gboolean  ep_graph_value_may_be_weak (EpGraph          *graph,
                                      const EpValueRef *ref);
gboolean  ep_graph_pass_is_enabled (const char      *name);
const EpGraphPass *ep_graph_list_passes (guint     *n_passes);

G_END_DECLS
