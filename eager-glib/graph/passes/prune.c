/* graph/passes/prune.c: dead-node elimination
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * A staged backward pass is traced by recomputing the forward pass under
 * a tape: the forward ops whose values no gradient rule uses (a final
 * sum, say) would run again for nothing at each replay. Pruning keeps
 * the nodes that an output, an assignment or a kept node uses, and the
 * nodes that do something besides computing a value: reads and
 * assignments of variables, random draws (each advances the sequence)
 * and ops that check their inputs' values (a bad index stays an error).
 */

#include "config.h"

#include <string.h>

#include "ep-graph-private.h"

static gboolean
kept_for_itself (const EpGraphNode *node)
{
  if (node->kind == EP_NODE_FUSED)
    return FALSE;   /* elementwise ops only (fuse.c) */
  if (node->kind != EP_NODE_OP)
    return TRUE;

  return (node->op->flags & (EP_OP_FLAG_RANDOM | EP_OP_FLAG_CHECKS_DATA | EP_OP_FLAG_READS_DATA
                            | EP_OP_FLAG_COLLECTIVE)) != 0;
}

static void
mark (const EpValueRef *ref,
      gboolean         *live_nodes,
      gboolean         *live_constants)
{
  if (ref->kind == EP_VALUE_NODE)
    live_nodes[ref->index] = TRUE;
  else if (ref->kind == EP_VALUE_CONSTANT)
    live_constants[ref->index] = TRUE;
}

static EpValueRef
renumber (const EpValueRef *ref,
          const guint      *node_index,
          const guint      *constant_index)
{
  EpValueRef moved = *ref;

  if (ref->kind == EP_VALUE_NODE)
    moved.index = node_index[ref->index];
  else if (ref->kind == EP_VALUE_CONSTANT)
    moved.index = constant_index[ref->index];

  return moved;
}

/* A copy of @self without the nodes (and constants) nothing needs; the
 * same inputs, variables and outputs. */
EpGraph *
ep_graph_prune (EpGraph *self)
{
  guint n_nodes = ep_graph_get_n_nodes (self);
  guint n_constants = self->constants->len;
  g_autofree gboolean *live = g_new0 (gboolean, MAX (n_nodes, 1));
  g_autofree gboolean *live_constants = g_new0 (gboolean, MAX (n_constants, 1));
  g_autofree guint *node_index = g_new0 (guint, MAX (n_nodes, 1));
  g_autofree guint *constant_index = g_new0 (guint, MAX (n_constants, 1));
  EpGraph *pruned = ep_graph_new ();

  /* backwards: a node is live if something live uses it */
  for (guint o = 0; o < self->n_outputs; o++)
    mark (&self->outputs[o], live, live_constants);
  for (guint n = n_nodes; n-- > 0;)
    {
      EpGraphNode *node = ep_graph_get_node (self, n);

      live[n] |= kept_for_itself (node);
      if (live[n])
        for (guint i = 0; i < node->n_inputs; i++)
          mark (&node->inputs[i], live, live_constants);
    }

  pruned->fixed_shapes = self->fixed_shapes;
  pruned->n_inputs = self->n_inputs;
  pruned->inputs = g_memdup2 (self->inputs, MAX (self->n_inputs, 1) * sizeof (EpLayout));
  pruned->input_devices = g_memdup2 (self->input_devices, MAX (self->n_inputs, 1) * sizeof (EpDevice *));
  for (guint v = 0; v < self->variables->len; v++)
    ep_graph_add_variable (pruned, g_ptr_array_index (self->variables, v));
  for (guint c = 0; c < n_constants; c++)
    if (live_constants[c])
      constant_index[c] = ep_graph_add_constant (pruned, g_ptr_array_index (self->constants, c));

  for (guint n = 0; n < n_nodes; n++)
    {
      EpGraphNode *node = ep_graph_get_node (self, n);
      EpGraphNode *copy;

      if (!live[n])
        continue;

      node_index[n] = ep_graph_get_n_nodes (pruned);
      copy = ep_graph_append_copy (pruned, node);
      for (guint i = 0; i < node->n_inputs; i++)
        copy->inputs[i] = renumber (&node->inputs[i], node_index, constant_index);
    }

  pruned->n_outputs = self->n_outputs;
  pruned->outputs = g_new (EpValueRef, MAX (self->n_outputs, 1));
  for (guint o = 0; o < self->n_outputs; o++)
    pruned->outputs[o] = renumber (&self->outputs[o], node_index, constant_index);

  return pruned;
}
