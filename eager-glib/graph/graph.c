/* graph/graph.c: a traced function as data
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <string.h>

#include "ep-autodiff-private.h"
#include "ep-device-private.h"
#include "ep-fuse-private.h"
#include "ep-graph-private.h"
#include "ep-memory-private.h"
#include "ep-tensor-private.h"

static void
node_clear (gpointer data)
{
  EpGraphNode *node = data;

  g_free (node->inputs);
  g_clear_pointer (&node->backward, ep_custom_gradient_unref_backward);
  g_clear_pointer (&node->host, ep_host_call_unref);
  g_clear_pointer (&node->fused, ep_fused_program_unref);
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

/* A new node at the end of @self, a copy of @node (of any graph) but
 * for its inputs, which the caller fills in. The pointer is good until
 * the next node is added. */
EpGraphNode *
ep_graph_append_copy (EpGraph           *self,
                      const EpGraphNode *node)
{
  EpGraphNode *copy = ep_graph_add_node (self, node->kind, node->n_inputs);
  EpValueRef *inputs = copy->inputs;

  *copy = *node;
  copy->inputs = inputs;
  if (node->backward != NULL)
    copy->backward = ep_custom_gradient_dup_backward (node->backward);
  if (node->host != NULL)
    {
      copy->host = ep_host_call_ref (node->host);
      self->has_host_calls = TRUE;
    }
  if (node->fused != NULL)
    copy->fused = ep_fused_program_ref (node->fused);
  return copy;
}

guint
ep_graph_add_constant (EpGraph  *self,
                       EpTensor *constant)
{
  /* the graph's own, replayed after any tidy scope around the trace */
  ep_tidy_untrack (constant);
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

gboolean
ep_graph_refs_equal (const EpValueRef *a,
                     const EpValueRef *b,
                     guint             n)
{
  for (guint i = 0; i < n; i++)
    if (a[i].kind != b[i].kind || a[i].index != b[i].index || a[i].output != b[i].output)
      return FALSE;

  return TRUE;
}

static gboolean
nodes_equal (const EpGraphNode *a,
             const EpGraphNode *b)
{
  if (a->kind != b->kind || a->n_inputs != b->n_inputs || a->n_outputs != b->n_outputs
      || !ep_graph_refs_equal (a->inputs, b->inputs, a->n_inputs))
    return FALSE;
  if (a->kind == EP_NODE_HOST)
    return a->host == b->host;
  if (a->kind != EP_NODE_OP)
    return a->variable == b->variable;

  return a->op == b->op && a->device == b->device
         && ep_op_attrs_equal (a->op, &a->attrs, &b->attrs);
}

/* Whether constants @a and @b have the same dtype, shape, weakness and
 * device: all but their bytes. */
gboolean
ep_graph_constants_alike (EpTensor *a,
                          EpTensor *b)
{
  return a->layout.dtype == b->layout.dtype && ep_layout_same_shape (&a->layout, &b->layout)
         && a->weak == b->weak && a->storage->device == b->storage->device;
}

/* Whether @inputs have the shapes @graph's inputs had when traced */
gboolean
ep_graph_inputs_fit_trace (EpGraph          *graph,
                           EpTensor *const  *inputs)
{
  for (guint i = 0; i < graph->n_inputs; i++)
    if (!ep_layout_same_shape (&inputs[i]->layout, &graph->inputs[i]))
      return FALSE;

  return TRUE;
}

/* Same dtype, shape, weakness, device and bytes. */
static gboolean
constants_equal (EpTensor *a,
                 EpTensor *b)
{
  g_autoptr(GBytes) x = NULL;
  g_autoptr(GBytes) y = NULL;

  if (a == b)
    return TRUE;
  if (!ep_graph_constants_alike (a, b))
    return FALSE;

  x = ep_tensor_to_bytes (a, NULL);
  y = ep_tensor_to_bytes (b, NULL);
  return x != NULL && y != NULL && g_bytes_equal (x, y);
}

/*
 * ep_graph_same_computation:
 * @a: a graph
 * @b: another graph of the same function
 *
 * Whether two traces of a function, on inputs of other extents, recorded
 * the same computation: the same nodes, edges, attributes (but the random
 * state) and constants, and the same variables. Then the function sized
 * nothing from the extents on the host, and one graph serves both. Their
 * layouts are not compared.
 */
gboolean
ep_graph_same_computation (EpGraph *a,
                           EpGraph *b)
{
  if (a->n_inputs != b->n_inputs || a->nodes->len != b->nodes->len
      || a->constants->len != b->constants->len || a->variables->len != b->variables->len
      || a->n_outputs != b->n_outputs || !ep_graph_refs_equal (a->outputs, b->outputs, a->n_outputs))
    return FALSE;

  for (guint i = 0; i < a->n_inputs; i++)
    if (a->inputs[i].dtype != b->inputs[i].dtype || a->inputs[i].ndim != b->inputs[i].ndim
        || a->input_devices[i] != b->input_devices[i])
      return FALSE;
  for (guint v = 0; v < a->variables->len; v++)
    if (g_ptr_array_index (a->variables, v) != g_ptr_array_index (b->variables, v))
      return FALSE;
  for (guint n = 0; n < a->nodes->len; n++)
    if (!nodes_equal (ep_graph_get_node (a, n), ep_graph_get_node (b, n)))
      return FALSE;
  for (guint c = 0; c < a->constants->len; c++)
    if (!constants_equal (g_ptr_array_index (a->constants, c), g_ptr_array_index (b->constants, c)))
      return FALSE;

  return TRUE;
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
      else if (node->kind == EP_NODE_HOST)
        g_string_append (s, "host_call");
      else if (node->kind == EP_NODE_FUSED)
        {
          g_string_append (s, "fused[");
          for (guint k = 0; k < node->fused->n_steps; k++)
            g_string_append_printf (s, "%s%s", k > 0 ? " " : "", node->fused->steps[k].op->name);
          g_string_append (s, "]");
        }
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
