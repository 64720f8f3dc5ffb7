/* graph/passes/fold.c: constant folding
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * An op node whose inputs are all constants (or that has none: full,
 * arange, eye) computes the same values at every replay, whatever the
 * extents of the graph's inputs: it runs once now, as a replay runs it
 * (a graph of that one node, through the executor: the same rule, the
 * same device, the same kernel, so the same bits), and a constant takes
 * its place. Its successors fold in turn. Never folded: random draws,
 * custom gradients, variable reads, assignments and host calls (not op
 * nodes), and a node whose run fails (the replay fails the same way).
 *
 * Memory: a folded view (reshape, transpose, broadcast_to …) shares its
 * input's storage and costs nothing; another result is kept only when it
 * is at most 64 KiB or no larger than its largest input (a broadcast
 * scalar made into a 4M-element tensor would trade 16 MB for a fill per
 * replay). What it no longer needs is left to prune. A view of at most
 * 64 KiB that is not contiguous (a broadcast gradient seed, a
 * transposed matrix) is kept contiguous instead: the ops that read it
 * then run in one loop, and fuse (a fused group's inputs are contiguous).
 */

#include "config.h"

#include <string.h>

#include "ep-executor-private.h"
#include "ep-passes-private.h"
#include "ep-recorder-private.h"
#include "ep-tensor-private.h"

#define MAX_FOLDED_BYTES (64 * 1024)

static gsize
bytes_of (const EpLayout *layout)
{
  return ep_layout_get_size (layout) * ep_dtype_get_itemsize (layout->dtype);
}

static gboolean
foldable (EpGraph           *graph,
          const EpGraphNode *node,
          const EpValueRef  *inputs)
{
  gsize largest = MAX_FOLDED_BYTES, made = 0;

  if (node->kind != EP_NODE_OP || node->backward != NULL
      || node->op == &ep_op_custom_gradient
      || (node->op->flags & (EP_OP_FLAG_RANDOM | EP_OP_FLAG_COLLECTIVE)))
    return FALSE;

  for (guint i = 0; i < node->n_inputs; i++)
    {
      if (inputs[i].kind != EP_VALUE_CONSTANT)
        return FALSE;
      largest = MAX (largest, bytes_of (ep_graph_value_layout (graph, &inputs[i])));
    }

  if (node->op->flags & EP_OP_FLAG_VIEW)
    return TRUE;
  for (guint o = 0; o < node->n_outputs; o++)
    made += bytes_of (&node->outputs[o]);

  return made <= largest;
}

/* @node run on @inputs (constants of @graph), as a replay would: its
 * outputs in @outputs, or FALSE */
static gboolean
run_once (EpGraph           *graph,
          const EpGraphNode *node,
          const EpValueRef  *inputs,
          EpTensor         **outputs)
{
  g_autoptr(EpGraph) one = ep_graph_new ();
  EpGraphNode *copy;
  EpFrame *frame;
  EpRecorder *recorders;
  gboolean ok;

  copy = ep_graph_append_copy (one, node);
  for (guint i = 0; i < node->n_inputs; i++)
    {
      copy->inputs[i] = (EpValueRef) { EP_VALUE_CONSTANT, i, 0 };
      ep_graph_add_constant (one, g_ptr_array_index (graph->constants, inputs[i].index));
    }
  one->n_outputs = node->n_outputs;
  one->outputs = g_new (EpValueRef, MAX (node->n_outputs, 1));
  for (guint o = 0; o < node->n_outputs; o++)
    one->outputs[o] = (EpValueRef) { EP_VALUE_NODE, 0, o };

  /* the conversions a replay may dispatch are not the caller's ops: no
   * tape or tracer of this thread may see them */
  frame = ep_frame_new (one);
  recorders = ep_recorders_set_aside ();
  ok = ep_graph_replay (one, frame, NULL, NULL, outputs, NULL, NULL);
  ep_recorders_put_back (recorders);
  ep_frame_free (frame);

  return ok;
}

/* *@value as a contiguous copy, where one can be made (else as it is) */
static void
made_contiguous (EpTensor **value)
{
  EpRecorder *recorders = ep_recorders_set_aside ();
  EpTensor *copy = ep_tensor_contiguous (*value, NULL);

  ep_recorders_put_back (recorders);
  if (copy != NULL)
    {
      g_object_unref (*value);
      *value = copy;
    }
}

/* A copy of @graph with its constant computations made constants */
EpGraph *
ep_graph_fold (EpGraph *graph)
{
  guint n_nodes = ep_graph_get_n_nodes (graph);
  g_autofree guint *first_slot = g_new (guint, MAX (n_nodes, 1));
  g_autofree EpValueRef *values = NULL;
  EpGraph *folded = ep_graph_new_like (graph);
  guint n_slots = 0;

  for (guint n = 0; n < n_nodes; n++)
    {
      first_slot[n] = n_slots;
      n_slots += ep_graph_get_node (graph, n)->n_outputs;
    }
  values = g_new0 (EpValueRef, MAX (n_slots, 1));
  for (guint c = 0; c < graph->constants->len; c++)
    ep_graph_add_constant (folded, g_ptr_array_index (graph->constants, c));

#define MAP(ref) \
  ((ref)->kind == EP_VALUE_NODE ? values[first_slot[(ref)->index] + (ref)->output] : *(ref))

  for (guint n = 0; n < n_nodes; n++)
    {
      EpGraphNode *node = ep_graph_get_node (graph, n);
      g_autofree EpValueRef *inputs = g_new (EpValueRef, MAX (node->n_inputs, 1));
      EpTensor *outputs[EP_MAX_OUTPUTS] = { NULL };
      EpGraphNode *copy;

      for (guint i = 0; i < node->n_inputs; i++)
        inputs[i] = MAP (&node->inputs[i]);

      if (foldable (folded, node, inputs) && run_once (folded, node, inputs, outputs))
        {
          for (guint o = 0; o < node->n_outputs; o++)
            {
              if (!ep_layout_is_contiguous (&outputs[o]->layout)
                  && bytes_of (&outputs[o]->layout) <= MAX_FOLDED_BYTES)
                made_contiguous (&outputs[o]);
              values[first_slot[n] + o] = (EpValueRef) {
                EP_VALUE_CONSTANT, ep_graph_add_constant (folded, outputs[o]), 0 };
              g_object_unref (outputs[o]);
            }
          continue;
        }

      copy = ep_graph_append_copy (folded, node);
      memcpy (copy->inputs, inputs, node->n_inputs * sizeof (EpValueRef));
      for (guint o = 0; o < node->n_outputs; o++)
        values[first_slot[n] + o] = (EpValueRef) { EP_VALUE_NODE, ep_graph_get_n_nodes (folded) - 1, o };
    }

  folded->n_outputs = graph->n_outputs;
  folded->outputs = g_new (EpValueRef, MAX (graph->n_outputs, 1));
  for (guint o = 0; o < graph->n_outputs; o++)
    folded->outputs[o] = MAP (&graph->outputs[o]);
#undef MAP

  return folded;
}
