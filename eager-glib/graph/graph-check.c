/* graph/graph-check.c: a graph checked by its ops' rules
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Runs the schema check and the rule of each op of a graph on the
 * layouts its values have at trace time, with placeholders (tensors
 * without data), as a replay runs them, and holds the results against
 * the layouts the graph records. Ops must read their inputs on the
 * device they run on (but views and transfers), and variables keep their
 * dtype, shape and device. Graph files go through it when they load: a
 * graph that passes never hands a kernel what its rule has not checked.
 * A rule that reads data (EP_OP_FLAG_READS_DATA) cannot run without it:
 * its recorded layouts are taken, and the replay runs it on the data.
 */

#include "config.h"

#include <glib/gi18n-lib.h>
#include <string.h>

#include "ep-device-private.h"
#include "ep-error.h"
#include "ep-file-private.h"
#include "ep-graph-check-private.h"

typedef struct
{
  EpGraph    *graph;
  GPtrArray  *values;       /* EpTensor: each node output, in order */
  GArray     *first;        /* guint: per node, its first output there */
  GPtrArray  *inputs;       /* EpTensor: placeholders of the inputs */
} Check;

/* A tensor with @layout on @device and no data: what rules look at */
static EpTensor *
placeholder (const EpLayout *layout,
             EpDevice       *device)
{
  g_autoptr(GBytes) none = g_bytes_new_static ("", 0);
  g_autoptr(EpStorage) storage = ep_storage_new_for_bytes (device, none);

  return ep_tensor_new_with_storage (layout, storage);
}

static EpTensor *
check_value (Check            *c,
             const EpValueRef *ref)
{
  switch (ref->kind)
    {
    case EP_VALUE_INPUT:
      return g_ptr_array_index (c->inputs, ref->index);
    case EP_VALUE_CONSTANT:
      return g_ptr_array_index (c->graph->constants, ref->index);
    case EP_VALUE_NODE:
      return g_ptr_array_index (c->values, g_array_index (c->first, guint, ref->index) + ref->output);
    }

  g_return_val_if_reached (NULL);
}

static gboolean
same_shape (const EpLayout *a,
            const EpLayout *b)
{
  return a->dtype == b->dtype && ep_layout_same_shape (a, b);
}

/* @format: a message with the dtype and shape of @a, then of @b */
static gboolean
fail_layouts (GError         **error,
              const char      *where,
              const char      *format,
              const EpLayout  *a,
              const EpLayout  *b)
{
  g_autofree char *shape_a = ep_shape_to_string (a->shape, a->ndim);
  g_autofree char *shape_b = ep_shape_to_string (b->shape, b->ndim);
  g_autofree char *detail = g_strdup_printf (format, ep_dtype_get_name (a->dtype), shape_a,
                                             ep_dtype_get_name (b->dtype), shape_b);

  return ep_file_format_error (error, where, "%s", detail);
}

/* Kernels read their inputs where they run (a view, where its input
 * is; a transfer, from anywhere) */
static gboolean
check_devices (Check        *c,
               EpGraphNode  *node,
               EpTensor    **inputs,
               const char   *where,
               GError      **error)
{
  if (node->op->flags & (EP_OP_FLAG_VIEW | EP_OP_FLAG_TRANSFER))
    return TRUE;

  for (guint i = 0; i < node->n_inputs; i++)
    if (inputs[i]->storage->device != node->device)
      return ep_file_format_error (error, where, _("input %u lives on %s, the node runs on %s"),
                                   i, inputs[i]->storage->device->name, node->device->name);

  return TRUE;
}

static gboolean
check_op (Check        *c,
          EpGraphNode  *node,
          const char   *where,
          GError      **error)
{
  g_autofree EpTensor **inputs = g_new (EpTensor *, MAX (node->n_inputs, 1));
  g_autofree EpDType *dtypes = g_new (EpDType, MAX (node->n_inputs, 1));
  gboolean reads_data = (node->op->flags & EP_OP_FLAG_READS_DATA) != 0;
  GError *local_error = NULL;
  EpOpCall call = { 0 };

  for (guint i = 0; i < node->n_inputs; i++)
    {
      inputs[i] = check_value (c, &node->inputs[i]);
      dtypes[i] = inputs[i]->layout.dtype;
    }
  if (!check_devices (c, node, inputs, where, error))
    return FALSE;

  call.op = node->op;
  call.n_inputs = node->n_inputs;
  call.inputs = inputs;
  call.input_dtypes = dtypes;
  call.attrs = node->attrs;
  call.given_attrs = &node->attrs;
  call.n_outputs = 1;
  if (!ep_op_check_call (node->op, inputs, node->n_inputs, &call.attrs, &local_error)
      || (!reads_data && !node->op->infer (&call, &local_error)))
    return ep_file_format_error_from (error, where, local_error);

  /* a rule that reads data cannot run without it: the replay runs it */
  if (reads_data)
    {
      call.n_outputs = node->n_outputs;
      memcpy (call.output_layouts, node->outputs, sizeof node->outputs);
    }
  if (call.n_outputs != node->n_outputs)
    return ep_file_format_error (error, where, _("%u outputs listed, the node gives %u"),
                                 node->n_outputs, call.n_outputs);

  for (guint o = 0; o < call.n_outputs; o++)
    {
      EpLayout *layout = &call.output_layouts[o];

      if (!same_shape (&node->outputs[o], layout))
        {
          g_autofree char *output_where = g_strdup_printf ("%s.outputs[%u]", where, o);

          return fail_layouts (error, output_where,
                               _("%s %s recorded, the op's rule gives %s %s"),
                               &node->outputs[o], layout);
        }
      if (node->op->flags & EP_OP_FLAG_VIEW)
        g_ptr_array_add (c->values, ep_tensor_new_with_storage (layout, inputs[0]->storage));
      else
        {
          ep_layout_set_contiguous (layout);
          g_ptr_array_add (c->values, placeholder (layout, node->device));
        }
    }

  return TRUE;
}

static gboolean
check_read (Check        *c,
            EpGraphNode  *node,
            const char   *where,
            GError      **error)
{
  EpVariable *variable = g_ptr_array_index (c->graph->variables, node->variable);
  guint ndim;
  const gint64 *shape = ep_variable_get_shape (variable, &ndim);
  EpLayout layout;

  ep_layout_init (&layout, ep_variable_get_dtype (variable), shape, ndim, "read", NULL);
  if (!same_shape (&node->outputs[0], &layout))
    {
      g_autofree char *output_where = g_strdup_printf ("%s.outputs[0]", where);

      return fail_layouts (error, output_where,
                           _("%s %s recorded, the variable is %s %s"),
                           &node->outputs[0], &layout);
    }

  g_ptr_array_add (c->values, placeholder (&layout, ep_variable_get_device (variable)));
  return TRUE;
}

/* A variable keeps its dtype, shape and device */
static gboolean
check_assign (Check        *c,
              EpGraphNode  *node,
              const char   *where,
              GError      **error)
{
  EpVariable *variable = g_ptr_array_index (c->graph->variables, node->variable);
  EpTensor *value = check_value (c, &node->inputs[0]);
  guint ndim;
  const gint64 *shape = ep_variable_get_shape (variable, &ndim);
  EpLayout layout;

  ep_layout_init (&layout, ep_variable_get_dtype (variable), shape, ndim, "assign", NULL);
  if (!same_shape (&value->layout, &layout))
    return fail_layouts (error, where, _("a value of type %s and shape %s cannot go in a variable of type %s and shape %s"),
                         &value->layout, &layout);
  if (value->storage->device != ep_variable_get_device (variable))
    return ep_file_format_error (error, where, _("input %u lives on %s, the node runs on %s"),
                                 0u, value->storage->device->name, ep_variable_get_device (variable)->name);

  return TRUE;
}

/*
 * ep_graph_check:
 * @graph: a graph whose references are in range (each to an earlier
 *   node, an existing output, input, constant or variable) and whose op
 *   nodes have the inputs and outputs their schemas say
 * @error: return location for an error
 *
 * Checks @graph by its ops' rules (see the top of this file).
 *
 * Returns: %TRUE, or %FALSE with an %EP_ERROR_FORMAT whose message
 *   starts with the node at fault: `nodes[3] (matmul): …`
 */
gboolean
ep_graph_check (EpGraph  *graph,
                GError  **error)
{
  g_autoptr(GPtrArray) values = g_ptr_array_new_with_free_func (g_object_unref);
  g_autoptr(GPtrArray) inputs = g_ptr_array_new_with_free_func (g_object_unref);
  g_autoptr(GArray) first = g_array_new (FALSE, FALSE, sizeof (guint));
  Check c = { graph, values, first, inputs };

  for (guint i = 0; i < graph->n_inputs; i++)
    g_ptr_array_add (inputs, placeholder (&graph->inputs[i], graph->input_devices[i]));

  for (guint n = 0; n < ep_graph_get_n_nodes (graph); n++)
    {
      EpGraphNode *node = ep_graph_get_node (graph, n);
      g_autofree char *where = g_strdup_printf ("nodes[%u] (%s)", n,
                                                node->kind == EP_NODE_OP ? node->op->name
                                                : node->kind == EP_NODE_READ ? "read" : "assign");
      gboolean ok = FALSE;

      g_array_append_val (first, values->len);
      switch (node->kind)
        {
        case EP_NODE_OP:
          ok = check_op (&c, node, where, error);
          break;
        case EP_NODE_READ:
          ok = check_read (&c, node, where, error);
          break;
        case EP_NODE_ASSIGN:
          ok = check_assign (&c, node, where, error);
          break;
        case EP_NODE_HOST:
          g_set_error (error, EP_ERROR, EP_ERROR_FORMAT, _("%s: a host callback cannot be loaded"), where);
          break;
        case EP_NODE_FUSED:
          /* only in optimized plans, which are never loaded */
          g_assert_not_reached ();
        }
      if (!ok)
        return FALSE;
    }

  return TRUE;
}
