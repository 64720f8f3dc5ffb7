/* ep-graph-private.h: staged computations as data
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#include "ep-device-private.h"
#include "ep-host-call-private.h"
#include "ep-op-private.h"
#include "ep-variable.h"

G_BEGIN_DECLS

/*
 * EpValueRef:
 *
 * Where a tensor of a graph comes from: an input of the graph (@index),
 * a constant it holds (@index), or output @output of node @index.
 */
typedef enum {
  EP_VALUE_INPUT,
  EP_VALUE_CONSTANT,
  EP_VALUE_NODE,
} EpValueKind;

typedef struct
{
  EpValueKind kind;
  guint       index;
  guint       output;
} EpValueRef;

/*
 * EpGraphNodeKind:
 * @EP_NODE_OP: an op, dispatched to its device's kernel
 * @EP_NODE_READ: reads variable @variable: its value as the replay has
 *   it (after the assignments the graph made before), one output; @peek
 *   when the variable read itself to update itself (assign_add), which
 *   gradient tapes do not watch
 * @EP_NODE_ASSIGN: gives variable @variable the value of input 0; the
 *   variables change when the whole replay has succeeded
 * @EP_NODE_HOST: calls host callback @host on its inputs; its outputs are
 *   what the callback returns
 * @EP_NODE_FUSED: a group of elementwise ops run as one blocked loop
 *   (@fused, graph/passes/fuse.c); only in optimized plans, never in a
 *   traced graph, a tape or a file
 */
typedef enum {
  EP_NODE_OP,
  EP_NODE_READ,
  EP_NODE_ASSIGN,
  EP_NODE_HOST,
  EP_NODE_FUSED,
} EpGraphNodeKind;

/*
 * EpGraphNode:
 *
 * One step of a graph, in the order the eager calls ran (a topological
 * order). An op keeps the attributes it was given (its rule makes them
 * canonical again at each replay, so that other shapes work), the device
 * it ran on, and the layouts of its outputs at trace time.
 */
typedef struct
{
  EpGraphNodeKind  kind;
  const EpOpDef   *op;
  EpOpAttrs        attrs;
  EpDevice        *device;
  guint            variable;
  gboolean         peek;
  guint            n_inputs;
  EpValueRef      *inputs;
  guint            n_outputs;
  EpLayout         outputs[EP_MAX_OUTPUTS];
  gpointer         backward;   /* custom_gradient: the user's backward
                                * function (referenced), for the outputs
                                * of replays under tapes */
  EpHostCall      *host;       /* EP_NODE_HOST (referenced) */
  EpDevice        *devices[EP_MAX_OUTPUTS];  /* EP_NODE_HOST: where
                                * each output was at trace time */
  EpFusedProgram  *fused;      /* EP_NODE_FUSED (referenced) */
} EpGraphNode;

/*
 * EpGraph:
 *
 * A traced function: its inputs (their layouts at trace time), the
 * constants and variables it captured, its nodes and its outputs. Plain
 * C, shared by reference; immutable once traced.
 */
typedef struct _EpGraph EpGraph;

struct _EpGraph
{
  gatomicrefcount  ref_count;
  guint            n_inputs;
  EpLayout        *inputs;
  EpDevice       **input_devices;
  GPtrArray       *constants;     /* EpTensor */
  GPtrArray       *variables;     /* EpVariable, captured by reference */
  GArray          *nodes;         /* EpGraphNode */
  guint            n_outputs;
  EpValueRef      *outputs;
  gboolean         fixed_shapes;  /* gradient rules ran in the trace: they
                                   * compute with the traced shapes (a
                                   * mean's count), so the graph serves
                                   * those shapes only */
  gboolean         has_host_calls; /* an EP_NODE_HOST: replayed op by op
                                    * under tapes, never saved */
};

EpGraph  *ep_graph_new            (void);
EpGraph  *ep_graph_ref            (EpGraph         *self);
void      ep_graph_unref          (EpGraph         *self);
guint     ep_graph_get_n_nodes    (EpGraph         *self);
EpGraphNode *ep_graph_get_node    (EpGraph         *self,
                                   guint            index);
EpGraphNode *ep_graph_add_node    (EpGraph         *self,
                                   EpGraphNodeKind  kind,
                                   guint            n_inputs);
EpGraphNode *ep_graph_append_copy (EpGraph           *self,
                                   const EpGraphNode *node);
guint     ep_graph_add_constant   (EpGraph         *self,
                                   EpTensor        *constant);
guint     ep_graph_add_variable   (EpGraph         *self,
                                   EpVariable      *variable);
gboolean  ep_graph_same_computation (EpGraph       *a,
                                     EpGraph       *b);
gboolean  ep_graph_refs_equal     (const EpValueRef *a,
                                   const EpValueRef *b,
                                   guint             n);
gboolean  ep_graph_constants_alike (EpTensor       *a,
                                    EpTensor       *b);
gboolean  ep_graph_inputs_fit_trace (EpGraph        *graph,
                                     EpTensor *const *inputs);
char     *ep_graph_to_string      (EpGraph         *self);
gboolean  ep_graph_node_is_leaf   (const EpGraphNode *node);
guint     ep_graph_count_leaves   (EpGraph         *self);

/* graph/passes/prune.c */
EpGraph  *ep_graph_prune          (EpGraph         *self);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (EpGraph, ep_graph_unref)

G_END_DECLS
