/* graph/graph.c: a traced function as data
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include "ep-device-private.h"
#include "ep-graph-private.h"
#include "ep-tensor-private.h"

static void
node_clear (gpointer data)
{
  EpGraphNode *node = data;

  g_free (node->inputs);
}

EpGraph *
ep_graph_new (void)
{
  EpGraph *self = g_new0 (EpGraph, 1);

  g_atomic_ref_count_init (&self->ref_count);
  self->constants = g_ptr_array_new_with_free_func (g_object_unref);
  self->variables = g_ptr_array_new_with_free_func (g_object_unref);
  self->nodes = g_array_new (FALSE, TRUE, sizeof (EpGraphNode));
  g_array_set_clear_func (self->nodes, node_clear);

  return self;
}

EpGraph *
ep_graph_ref (EpGraph *self)
{
  g_atomic_ref_count_inc (&self->ref_count);
  return self;
}

void
ep_graph_unref (EpGraph *self)
{
  if (!g_atomic_ref_count_dec (&self->ref_count))
    return;

  g_free (self->inputs);
  g_free (self->input_devices);
  g_ptr_array_unref (self->constants);
  g_ptr_array_unref (self->variables);
  g_array_unref (self->nodes);
  g_free (self->outputs);
  g_free (self);
}

guint
ep_graph_get_n_nodes (EpGraph *self)
{
  return self->nodes->len;
}

EpGraphNode *
ep_graph_get_node (EpGraph *self,
                   guint    index)
{
  return &g_array_index (self->nodes, EpGraphNode, index);
}

/* A new node at the end, its inputs to fill in. The pointer is good until
 * the next node is added. */
EpGraphNode *
ep_graph_add_node (EpGraph         *self,
                   EpGraphNodeKind  kind,
                   guint            n_inputs)
{
  EpGraphNode *node;

  g_array_set_size (self->nodes, self->nodes->len + 1);
  node = ep_graph_get_node (self, self->nodes->len - 1);
  node->kind = kind;
  node->n_inputs = n_inputs;
  node->inputs = g_new0 (EpValueRef, MAX (n_inputs, 1));
  ep_op_attrs_init (&node->attrs);

  return node;
}

guint
ep_graph_add_constant (EpGraph  *self,
                       EpTensor *constant)
{
  g_ptr_array_add (self->constants, g_object_ref (constant));
  return self->constants->len - 1;
}

/* The index of @variable among the captured ones, captured now if it was
 * not yet. */
guint
ep_graph_add_variable (EpGraph    *self,
                       EpVariable *variable)
{
  guint index;

  if (g_ptr_array_find (self->variables, variable, &index))
    return index;

  g_ptr_array_add (self->variables, g_object_ref (variable));
  return self->variables->len - 1;
}

/* Whether @node's value comes from outside the graph and its inputs: a
 * variable read or a random draw. A replay hands these out when asked
 * (ep_graph_replay_full()), so that a recomputation can use the same
 * values. */
gboolean
ep_graph_node_is_leaf (const EpGraphNode *node)
{
  return node->kind == EP_NODE_READ
         || (node->kind == EP_NODE_OP && (node->op->flags & EP_OP_FLAG_RANDOM));
}

guint
ep_graph_count_leaves (EpGraph *self)
{
  guint n = 0;

  for (guint k = 0; k < self->nodes->len; k++)
    n += ep_graph_node_is_leaf (ep_graph_get_node (self, k));

  return n;
}

static void
append_ref (GString          *s,
            const EpValueRef *ref)
{
  switch (ref->kind)
    {
    case EP_VALUE_INPUT:
      g_string_append_printf (s, "in%u", ref->index);
      break;
    case EP_VALUE_CONSTANT:
      g_string_append_printf (s, "c%u", ref->index);
      break;
    case EP_VALUE_NODE:
      g_string_append_printf (s, "%%%u.%u", ref->index, ref->output);
      break;
    }
}

/* One line per node, for tests and debugging:
 * `%3 = add (in0, c1) on cpu:0`. */
char *
ep_graph_to_string (EpGraph *self)
{
  GString *s = g_string_new (NULL);

  for (guint n = 0; n < self->nodes->len; n++)
    {
      EpGraphNode *node = ep_graph_get_node (self, n);

      g_string_append_printf (s, "%%%u = ", n);
      if (node->kind == EP_NODE_READ)
        g_string_append_printf (s, "read v%u", node->variable);
      else if (node->kind == EP_NODE_ASSIGN)
        g_string_append_printf (s, "assign v%u", node->variable);
      else
        g_string_append (s, node->op->name);
      g_string_append (s, " (");
      for (guint i = 0; i < node->n_inputs; i++)
        {
          if (i > 0)
            g_string_append (s, ", ");
          append_ref (s, &node->inputs[i]);
        }
      g_string_append (s, ")");
      if (node->device != NULL)
        g_string_append_printf (s, " on %s", node->device->name);
      g_string_append_c (s, '\n');
    }

  g_string_append (s, "return (");
  for (guint o = 0; o < self->n_outputs; o++)
    {
      if (o > 0)
        g_string_append (s, ", ");
      append_ref (s, &self->outputs[o]);
    }
  g_string_append (s, ")\n");

  return g_string_free (s, FALSE);
}
