/* graph/passes/cse.c: common-subexpression elimination
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Two op nodes of the same op, on the same device, given equal
 * attributes (ep_op_attrs_equal(): bit for bit, the random state aside)
 * and the same inputs compute the same values: the later one's uses take
 * the earlier one's outputs. Never merged: random draws (each draws anew),
 * custom gradients (each has its own backward function), variable reads
 * (an assignment may come between), assignments and host calls. Ops that
 * check their inputs' values may merge: the two checks would fail alike,
 * and the first runs first.
 *
 * Equal constants (same dtype, shape, weakness, device and bytes) become
 * one first, so that `x * 2` written twice, with two literals, merges.
 * Constants over 64 KiB are not compared (reading them back from a device
 * costs more than a duplicate is likely to save).
 */

#include "config.h"

#include <string.h>

#include "ep-device-private.h"
#include "ep-passes-private.h"
#include "ep-tensor-private.h"

#define MAX_COMPARED_BYTES (64 * 1024)

typedef struct
{
  EpTensor *tensor;
  GBytes   *bytes;
  guint     index;     /* in the new graph */
} ConstantKey;

static void
constant_key_free (gpointer data)
{
  ConstantKey *key = data;

  g_bytes_unref (key->bytes);
  g_free (key);
}

static guint
constant_hash (gconstpointer data)
{
  const ConstantKey *key = data;
  const EpLayout *layout = &key->tensor->layout;
  guint h = g_bytes_hash (key->bytes);

  h = h * 31 + layout->dtype;
  h = h * 31 + layout->ndim;
  for (guint d = 0; d < layout->ndim; d++)
    h = h * 31 + (guint) layout->shape[d];
  return h * 31 + (key->tensor->weak ? 1 : 0);
}

static gboolean
constant_equal (gconstpointer a,
                gconstpointer b)
{
  const ConstantKey *x = a, *y = b;

  return ep_graph_constants_alike (x->tensor, y->tensor) && g_bytes_equal (x->bytes, y->bytes);
}

/* Whether two nodes of the new graph may be one */
static gboolean
mergeable (const EpGraphNode *node)
{
  return node->kind == EP_NODE_OP && node->backward == NULL
         && node->op != &ep_op_custom_gradient
         && !(node->op->flags & (EP_OP_FLAG_RANDOM | EP_OP_FLAG_COLLECTIVE));
}

static guint
node_hash (const EpGraphNode *node,
           const EpValueRef  *inputs)
{
  guint h = g_direct_hash (node->op) ^ g_direct_hash (node->device);

  for (guint i = 0; i < node->n_inputs; i++)
    h = h * 31 + inputs[i].kind * 7919 + inputs[i].index * 131 + inputs[i].output;
  return h;
}

static gboolean
same_node (const EpGraphNode *a,
           const EpGraphNode *b,
           const EpValueRef  *b_inputs)
{
  if (a->op != b->op || a->device != b->device || a->n_inputs != b->n_inputs
      || a->n_outputs != b->n_outputs || !ep_graph_refs_equal (a->inputs, b_inputs, a->n_inputs))
    return FALSE;

  return ep_op_attrs_equal (a->op, &a->attrs, &b->attrs);
}

/* A copy of @graph with equal constants and equal computations once */
EpGraph *
ep_graph_cse (EpGraph *graph)
{
  guint n_nodes = ep_graph_get_n_nodes (graph);
  guint n_constants = graph->constants->len;
  g_autofree guint *constant_index = g_new (guint, MAX (n_constants, 1));
  g_autofree guint *first_slot = g_new (guint, MAX (n_nodes, 1));
  g_autofree EpValueRef *values = NULL;
  g_autoptr(GHashTable) constants = g_hash_table_new_full (constant_hash, constant_equal,
                                                           constant_key_free, NULL);
  /* node hash -> GSList of indices of nodes in the new graph */
  g_autoptr(GHashTable) seen = g_hash_table_new_full (NULL, NULL, NULL,
                                                      (GDestroyNotify) g_slist_free);
  EpGraph *merged = ep_graph_new_like (graph);
  guint n_slots = 0;

  for (guint c = 0; c < n_constants; c++)
    {
      EpTensor *tensor = g_ptr_array_index (graph->constants, c);
      gsize size = ep_layout_get_size (&tensor->layout) * ep_dtype_get_itemsize (tensor->layout.dtype);
      ConstantKey *key, *found;

      if (size > MAX_COMPARED_BYTES)
        {
          constant_index[c] = ep_graph_add_constant (merged, tensor);
          continue;
        }
      key = g_new0 (ConstantKey, 1);
      key->tensor = tensor;
      key->bytes = ep_tensor_to_bytes (tensor, NULL);
      if (key->bytes == NULL)
        {
          g_free (key);
          constant_index[c] = ep_graph_add_constant (merged, tensor);
          continue;
        }
      found = g_hash_table_lookup (constants, key);
      if (found != NULL)
        {
          constant_index[c] = found->index;
          constant_key_free (key);
          continue;
        }
      key->index = constant_index[c] = ep_graph_add_constant (merged, tensor);
      g_hash_table_add (constants, key);
    }

  for (guint n = 0; n < n_nodes; n++)
    {
      first_slot[n] = n_slots;
      n_slots += ep_graph_get_node (graph, n)->n_outputs;
    }
  values = g_new0 (EpValueRef, MAX (n_slots, 1));

#define MAP(ref)                                                            \
  ((ref)->kind == EP_VALUE_NODE ? values[first_slot[(ref)->index] + (ref)->output]  \
   : (ref)->kind == EP_VALUE_CONSTANT                                       \
     ? (EpValueRef) { EP_VALUE_CONSTANT, constant_index[(ref)->index], 0 }  \
     : *(ref))

  for (guint n = 0; n < n_nodes; n++)
    {
      EpGraphNode *node = ep_graph_get_node (graph, n);
      g_autofree EpValueRef *inputs = g_new (EpValueRef, MAX (node->n_inputs, 1));
      guint index = G_MAXUINT;
      EpGraphNode *copy;

      for (guint i = 0; i < node->n_inputs; i++)
        inputs[i] = MAP (&node->inputs[i]);

      if (mergeable (node))
        {
          guint h = node_hash (node, inputs);
          GSList *bucket = g_hash_table_lookup (seen, GUINT_TO_POINTER (h));

          for (GSList *l = bucket; l != NULL && index == G_MAXUINT; l = l->next)
            if (same_node (ep_graph_get_node (merged, GPOINTER_TO_UINT (l->data)), node, inputs))
              index = GPOINTER_TO_UINT (l->data);

          if (index == G_MAXUINT)
            {
              index = ep_graph_get_n_nodes (merged);
              g_hash_table_steal (seen, GUINT_TO_POINTER (h));
              g_hash_table_insert (seen, GUINT_TO_POINTER (h),
                                   g_slist_prepend (bucket, GUINT_TO_POINTER (index)));
              copy = ep_graph_append_copy (merged, node);
              memcpy (copy->inputs, inputs, node->n_inputs * sizeof (EpValueRef));
            }
        }
      else
        {
          index = ep_graph_get_n_nodes (merged);
          copy = ep_graph_append_copy (merged, node);
          memcpy (copy->inputs, inputs, node->n_inputs * sizeof (EpValueRef));
        }

      for (guint o = 0; o < node->n_outputs; o++)
        values[first_slot[n] + o] = (EpValueRef) { EP_VALUE_NODE, index, o };
    }

  merged->n_outputs = graph->n_outputs;
  merged->outputs = g_new (EpValueRef, MAX (graph->n_outputs, 1));
  for (guint o = 0; o < graph->n_outputs; o++)
    merged->outputs[o] = MAP (&graph->outputs[o]);
#undef MAP

  return merged;
}
