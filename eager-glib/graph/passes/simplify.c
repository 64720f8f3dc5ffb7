/* graph/passes/simplify.c: algebraic simplifications exact in IEEE arithmetic
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Rewrites that give the same bits on every replay, at every extent the
 * graph may serve (a relaxed graph replays on other extents of the same
 * ranks and dtypes, so nothing here trusts a traced extent of a value
 * that comes from the inputs):
 *
 *   transpose (transpose (x, p), q)  ->  x, or transpose (x, p∘q)
 *   transpose (x, identity)          ->  x
 *   reshape (reshape (x, s), t)      ->  reshape (x, t), where the inner
 *       shape is all known extents (then the outer output's extents are
 *       fixed, and the one reshape fails exactly where the inner did) or
 *       is (-1) (a flattening, which never fails)
 *   astype (x, dtype of x)           ->  x
 *   stop_gradient (x)                ->  x (a view of x; the optimized
 *       graph replays only where no tape records)
 *   x * 1, 1 * x, x / 1              ->  x
 *   x - (+0), x + (-0), (-0) + x     ->  x (floats: x + (+0) is not
 *       exact, -0 + +0 is +0; x - (-0) neither)
 *   x + 0, 0 + x, x - 0              ->  x (integers and booleans)
 *
 * where the 1 or 0 is a constant of one element and of rank at most x's
 * (so that broadcasting never changes x's shape), the node's dtype is
 * x's, the node runs where x lives, and x is not a weak literal (what a
 * replay makes never is: a weak x would change later promotions). The
 * node's uses, outputs included, then take x; the node, dead, is left
 * to prune.
 */

#include "config.h"

#include <math.h>
#include <string.h>

#include "ep-passes-private.h"
#include "ep-scalar-private.h"
#include "ep-tensor-private.h"

typedef struct
{
  EpGraph    *from;
  EpGraph    *to;
  guint      *first_slot;   /* per node of @from */
  EpValueRef *values;       /* per output of @from: where it is in @to */
} Simplify;

static EpValueRef
map_ref (Simplify         *s,
         const EpValueRef *ref)
{
  if (ref->kind == EP_VALUE_NODE)
    return s->values[s->first_slot[ref->index] + ref->output];

  return *ref;
}

/* The node of @to that makes @ref, if it is op @op */
static EpGraphNode *
producer (Simplify         *s,
          const EpValueRef *ref,
          const EpOpDef    *op)
{
  EpGraphNode *node;

  if (ref->kind != EP_VALUE_NODE)
    return NULL;
  node = ep_graph_get_node (s->to, ref->index);
  return node->kind == EP_NODE_OP && node->op == op ? node : NULL;
}

/* The permutation a transpose of @ndim dimensions applies, as its rule
 * makes it; FALSE where the rule would refuse the attributes */
static gboolean
permutation (const EpOpAttrs *attrs,
             guint            ndim,
             gint            *axes)
{
  gboolean seen[EP_MAX_DIMS] = { FALSE };

  if (attrs->all_axes)
    {
      for (guint d = 0; d < ndim; d++)
        axes[d] = ndim - 1 - d;
      return TRUE;
    }
  if (attrs->n_axes != ndim)
    return FALSE;

  for (guint d = 0; d < ndim; d++)
    {
      gint axis = attrs->axes[d] < 0 ? attrs->axes[d] + (gint) ndim : attrs->axes[d];

      if (axis < 0 || axis >= (gint) ndim || seen[axis])
        return FALSE;
      seen[axis] = TRUE;
      axes[d] = axis;
    }

  return TRUE;
}

static gboolean
is_identity (const gint *axes,
             guint       ndim)
{
  for (guint d = 0; d < ndim; d++)
    if (axes[d] != (gint) d)
      return FALSE;

  return TRUE;
}

/* Whether @x may take the place of @node's output 0 */
static gboolean
may_replace (Simplify          *s,
             const EpGraphNode *node,
             const EpValueRef  *x)
{
  const EpLayout *layout = ep_graph_value_layout (s->to, x);

  return layout->dtype == node->outputs[0].dtype && layout->ndim == node->outputs[0].ndim
         && ep_graph_value_device (s->to, x) == node->device
         && !ep_graph_value_may_be_weak (s->to, x);
}

/* Whether @ref is a constant of one element, of rank at most @ndim,
 * equal to @want (compared as doubles, which hold every value of every
 * dtype of one element exactly enough: 0 and 1) with, for a zero, the
 * sign bit @negative where @sign_matters */
static gboolean
constant_is (Simplify         *s,
             const EpValueRef *ref,
             guint             ndim,
             gdouble           want,
             gboolean          sign_matters,
             gboolean          negative)
{
  EpTensor *constant;
  g_autoptr(GBytes) bytes = NULL;
  gdouble value;

  if (ref->kind != EP_VALUE_CONSTANT)
    return FALSE;
  constant = g_ptr_array_index (s->to->constants, ref->index);
  if (constant->layout.ndim > ndim || ep_layout_get_size (&constant->layout) != 1)
    return FALSE;

  bytes = ep_tensor_to_bytes (constant, NULL);
  if (bytes == NULL)
    return FALSE;
  value = ep_scalar_load (g_bytes_get_data (bytes, NULL), constant->layout.dtype);

  return value == want && (!sign_matters || !signbit (value) == !negative);
}

/* x op c or c op x, by the rules at the top; the x to use, or NULL */
static const EpValueRef *
arithmetic_identity (Simplify          *s,
                     const EpGraphNode *node,
                     const EpValueRef  *a,
                     const EpValueRef  *b)
{
  guint ndim = node->outputs[0].ndim;
  gboolean floating = ep_dtype_is_floating (node->outputs[0].dtype);

  if (node->op == &ep_op_mul)
    {
      if (constant_is (s, b, ndim, 1, FALSE, FALSE) && may_replace (s, node, a))
        return a;
      if (constant_is (s, a, ndim, 1, FALSE, FALSE) && may_replace (s, node, b))
        return b;
    }
  else if (node->op == &ep_op_div)
    {
      if (constant_is (s, b, ndim, 1, FALSE, FALSE) && may_replace (s, node, a))
        return a;
    }
  else if (node->op == &ep_op_add)
    {
      /* floats: only -0 is the identity of addition */
      if (constant_is (s, b, ndim, 0, floating, TRUE) && may_replace (s, node, a))
        return a;
      if (constant_is (s, a, ndim, 0, floating, TRUE) && may_replace (s, node, b))
        return b;
    }
  else if (node->op == &ep_op_sub)
    {
      /* floats: x - (+0) is x + (-0) */
      if (constant_is (s, b, ndim, 0, floating, FALSE) && may_replace (s, node, a))
        return a;
    }

  return NULL;
}

/* Simplifies @node (of @from, its inputs mapped to @to in @inputs):
 * TRUE with @to_value set where a value of @to takes its place, TRUE
 * with @to_value a node and @rewritten filled (its one input in
 * @rewritten_input) where a new node does, FALSE where it stays. */
static gboolean
simplify_node (Simplify          *s,
               const EpGraphNode *node,
               const EpValueRef  *inputs,
               EpValueRef        *to_value,
               EpGraphNode       *rewritten,
               EpValueRef        *rewritten_input)
{
  EpGraphNode *inner;

  if (node->kind != EP_NODE_OP || node->backward != NULL || node->n_outputs != 1)
    return FALSE;

  if (node->op == &ep_op_transpose)
    {
      guint ndim = node->outputs[0].ndim;
      gint outer_axes[EP_MAX_DIMS], inner_axes[EP_MAX_DIMS], axes[EP_MAX_DIMS];
      const EpValueRef *x = &inputs[0];

      if (!permutation (&node->attrs, ndim, outer_axes))
        return FALSE;
      memcpy (axes, outer_axes, sizeof axes);
      inner = producer (s, &inputs[0], &ep_op_transpose);
      if (inner != NULL && inner->device == node->device
          && permutation (&inner->attrs, ndim, inner_axes))
        {
          /* out[d] = mid[q[d]] = x[p[q[d]]] */
          for (guint d = 0; d < ndim; d++)
            axes[d] = inner_axes[outer_axes[d]];
          x = &inner->inputs[0];
        }
      else
        inner = NULL;

      if (is_identity (axes, ndim))
        {
          if (!may_replace (s, node, x))
            return FALSE;
          *to_value = *x;
          return TRUE;
        }
      if (inner == NULL)
        return FALSE;

      *rewritten = *node;
      rewritten->attrs.all_axes = FALSE;
      rewritten->attrs.n_axes = ndim;
      memcpy (rewritten->attrs.axes, axes, ndim * sizeof (gint));
      rewritten->op = node->op;
      *rewritten_input = *x;
      return TRUE;
    }

  if (node->op == &ep_op_reshape)
    {
      gboolean known = TRUE, flattening;

      inner = producer (s, &inputs[0], &ep_op_reshape);
      if (inner == NULL || inner->device != node->device)
        return FALSE;
      for (guint d = 0; d < inner->attrs.ndim; d++)
        known &= inner->attrs.shape[d] >= 0;
      flattening = inner->attrs.ndim == 1 && inner->attrs.shape[0] == -1;
      if (!known && !flattening)
        return FALSE;

      *rewritten = *node;
      if (known)
        {
          rewritten->attrs.ndim = node->outputs[0].ndim;
          memcpy (rewritten->attrs.shape, node->outputs[0].shape, node->outputs[0].ndim * sizeof (gint64));
        }
      rewritten->op = node->op;
      *rewritten_input = inner->inputs[0];
      return TRUE;
    }

  if (node->op == &ep_op_stop_gradient)
    {
      if (!may_replace (s, node, &inputs[0]))
        return FALSE;
      *to_value = inputs[0];
      return TRUE;
    }

  if (node->op == &ep_op_astype)
    {
      if (node->attrs.dtype != ep_graph_value_layout (s->to, &inputs[0])->dtype
          || !may_replace (s, node, &inputs[0]))
        return FALSE;
      *to_value = inputs[0];
      return TRUE;
    }

  if (node->n_inputs == 2)
    {
      const EpValueRef *x = arithmetic_identity (s, node, &inputs[0], &inputs[1]);

      if (x == NULL)
        return FALSE;
      *to_value = *x;
      return TRUE;
    }

  return FALSE;
}

/* A copy of @graph with the simplifications above made */
EpGraph *
ep_graph_simplify (EpGraph *graph)
{
  guint n_nodes = ep_graph_get_n_nodes (graph);
  g_autofree guint *first_slot = g_new (guint, MAX (n_nodes, 1));
  g_autofree EpValueRef *values = NULL;
  guint n_slots = 0;
  Simplify s = { graph, ep_graph_new_like (graph), first_slot, NULL };

  for (guint n = 0; n < n_nodes; n++)
    {
      first_slot[n] = n_slots;
      n_slots += ep_graph_get_node (graph, n)->n_outputs;
    }
  values = s.values = g_new0 (EpValueRef, MAX (n_slots, 1));
  for (guint c = 0; c < graph->constants->len; c++)
    ep_graph_add_constant (s.to, g_ptr_array_index (graph->constants, c));

  for (guint n = 0; n < n_nodes; n++)
    {
      EpGraphNode *node = ep_graph_get_node (graph, n);
      g_autofree EpValueRef *inputs = g_new (EpValueRef, MAX (node->n_inputs, 1));
      EpValueRef one_input;
      EpGraphNode rewritten = { 0 };
      EpValueRef to_value = { 0 };
      EpGraphNode *copy;

      for (guint i = 0; i < node->n_inputs; i++)
        inputs[i] = map_ref (&s, &node->inputs[i]);
      if (simplify_node (&s, node, inputs, &to_value, &rewritten, &one_input))
        {
          if (rewritten.op == NULL)
            {
              values[first_slot[n]] = to_value;
              continue;
            }
          /* a view op of one input, rewritten on another */
          copy = ep_graph_append_copy (s.to, &rewritten);
          copy->inputs[0] = one_input;
        }
      else
        {
          copy = ep_graph_append_copy (s.to, node);
          memcpy (copy->inputs, inputs, node->n_inputs * sizeof (EpValueRef));
        }
      for (guint o = 0; o < node->n_outputs; o++)
        values[first_slot[n] + o] = (EpValueRef) { EP_VALUE_NODE, ep_graph_get_n_nodes (s.to) - 1, o };
    }

  s.to->n_outputs = graph->n_outputs;
  s.to->outputs = g_new (EpValueRef, MAX (graph->n_outputs, 1));
  for (guint o = 0; o < graph->n_outputs; o++)
    s.to->outputs[o] = map_ref (&s, &graph->outputs[o]);

  return s.to;
}
