/* graph/graph-file.c: a graph as files: writing
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * A graph is written as a JSON document (json-glib) that says what it
 * computes: its input signature, its nodes (ops by name, their
 * attributes by the schema's names and types, the devices they run on,
 * their inputs as references) and its outputs; the tensors it holds,
 * constants and the values of captured variables, go in a safetensors
 * file beside it (`step.json`, `step.safetensors`). docs/graph-files.md
 * is the format's description; keep it in step. Reading is
 * graph-file-load.c.
 *
 * Attributes are written and read through the op schema
 * (ep_op_attrs_to_variant(), ep_op_attrs_set_from_variant()): what each
 * attribute type looks like in JSON is decided here and in the reader,
 * once per type, never per op. Seeds are not written: they are the
 * library's state, and a replay draws a new stream at each call, so a
 * loaded function draws new numbers, as the function it was saved from
 * did.
 */

#include "config.h"

#include <glib/gi18n-lib.h>
#include <math.h>
#include <string.h>

#include "ep-autodiff-private.h"
#include "ep-device-private.h"
#include "ep-error.h"
#include "ep-file-private.h"
#include "ep-graph-file-private.h"
#include "ep-json-private.h"
#include "ep-safetensors-private.h"

/*
 * ep_graph_file_get_tensors_file:
 *
 * The safetensors file beside graph file @file: its name with `.json`
 * replaced by `.safetensors`, or with `.safetensors` added when it does
 * not end in `.json`; %NULL for a file with no parent (`/`).
 */
GFile *
ep_graph_file_get_tensors_file (GFile *file)
{
  g_autoptr(GFile) parent = g_file_get_parent (file);
  g_autofree char *base = g_file_get_basename (file);
  g_autofree char *name = NULL;

  if (parent == NULL || base == NULL)
    return NULL;

  if (g_str_has_suffix (base, ".json"))
    base[strlen (base) - strlen (".json")] = '\0';
  name = g_strconcat (base, ".safetensors", NULL);

  return g_file_get_child (parent, name);
}

/* Writing */

static void
add_shape (JsonBuilder  *builder,
           const char   *member,
           const gint64 *shape,
           guint         ndim)
{
  json_builder_set_member_name (builder, member);
  json_builder_begin_array (builder);
  for (guint d = 0; d < ndim; d++)
    json_builder_add_int_value (builder, shape[d]);
  json_builder_end_array (builder);
}

static void
add_string (JsonBuilder *builder,
            const char  *member,
            const char  *value)
{
  json_builder_set_member_name (builder, member);
  if (value != NULL)
    json_builder_add_string_value (builder, value);
  else
    json_builder_add_null_value (builder);
}

static void
add_int (JsonBuilder *builder,
         const char  *member,
         gint64       value)
{
  json_builder_set_member_name (builder, member);
  json_builder_add_int_value (builder, value);
}

/* "dtype" and "shape" */
static void
add_layout (JsonBuilder    *builder,
            const EpLayout *layout)
{
  add_string (builder, "dtype", ep_dtype_get_name (layout->dtype));
  add_shape (builder, "shape", layout->shape, layout->ndim);
}

static void
add_ref (JsonBuilder      *builder,
         const EpValueRef *ref)
{
  json_builder_begin_object (builder);
  switch (ref->kind)
    {
    case EP_VALUE_INPUT:
      add_int (builder, "input", ref->index);
      break;
    case EP_VALUE_CONSTANT:
      add_int (builder, "constant", ref->index);
      break;
    case EP_VALUE_NODE:
      add_int (builder, "node", ref->index);
      add_int (builder, "output", ref->output);
      break;
    }
  json_builder_end_object (builder);
}

/* JSON has no NaN nor infinities: they are strings, as JavaScript
 * names them. */
static void
add_float (JsonBuilder *builder,
           gdouble      value)
{
  if (isnan (value))
    json_builder_add_string_value (builder, "NaN");
  else if (isinf (value))
    json_builder_add_string_value (builder, value > 0 ? "Infinity" : "-Infinity");
  else
    json_builder_add_double_value (builder, value);
}

/* An integer beyond what JSON readers keep exact (2^53) is a string of
 * its digits. */
static void
add_number (JsonBuilder *builder,
            GVariant    *value)
{
  gint64 i;

  if (g_variant_is_of_type (value, G_VARIANT_TYPE_DOUBLE))
    {
      add_float (builder, g_variant_get_double (value));
      return;
    }

  i = g_variant_get_int64 (value);
  if (i >= -EP_JSON_MAX_INT && i <= EP_JSON_MAX_INT)
    {
      json_builder_add_int_value (builder, i);
    }
  else
    {
      char digits[24];

      g_snprintf (digits, sizeof digits, "%" G_GINT64_FORMAT, i);
      json_builder_add_string_value (builder, digits);
    }
}

static void
add_int_list (JsonBuilder *builder,
              GVariant    *value)
{
  gsize n;
  const gint64 *values = g_variant_get_fixed_array (value, &n, sizeof (gint64));

  json_builder_begin_array (builder);
  for (gsize i = 0; i < n; i++)
    json_builder_add_int_value (builder, values[i]);
  json_builder_end_array (builder);
}

/* One attribute's value, as ep_op_attrs_to_variant() gives it, in the
 * JSON form of its type; "none" (an axis or axes of a nullable
 * attribute) is null. */
static void
add_attr_value (JsonBuilder      *builder,
                const EpAttrSpec *spec,
                GVariant         *value)
{
  switch (spec->type)
    {
    case EP_ATTR_BOOL:
      json_builder_add_boolean_value (builder, g_variant_get_boolean (value));
      break;
    case EP_ATTR_INT:
      json_builder_add_int_value (builder, g_variant_get_int64 (value));
      break;
    case EP_ATTR_AXIS:
      if (g_variant_get_int64 (value) == EP_AXIS_NONE)
        json_builder_add_null_value (builder);
      else
        json_builder_add_int_value (builder, g_variant_get_int64 (value));
      break;
    case EP_ATTR_FLOAT:
      add_float (builder, g_variant_get_double (value));
      break;
    case EP_ATTR_NUMBER:
      add_number (builder, value);
      break;
    case EP_ATTR_DTYPE:
    case EP_ATTR_ENUM:
    case EP_ATTR_DEVICE:
      json_builder_add_string_value (builder, g_variant_get_string (value, NULL));
      break;
    case EP_ATTR_AXES:
      if (g_variant_n_children (value) == 0)
        json_builder_add_null_value (builder);
      else
        add_int_list (builder, value);
      break;
    case EP_ATTR_SHAPE:
    case EP_ATTR_INTS:
      add_int_list (builder, value);
      break;
    case EP_ATTR_SEED:
    case EP_ATTR_STRING:
      g_return_if_reached ();
    }
}

static void
add_attrs (JsonBuilder       *builder,
           const EpGraphNode *node)
{
  g_autoptr(GVariant) values = g_variant_ref_sink (ep_op_attrs_to_variant (&node->attrs, node->op));

  json_builder_set_member_name (builder, "attrs");
  json_builder_begin_object (builder);
  for (guint a = 0; a < node->op->n_attrs; a++)
    {
      const EpAttrSpec *spec = &node->op->attrs[a];
      g_autoptr(GVariant) value = NULL;

      /* the library's random state: a replay draws its own */
      if (spec->type == EP_ATTR_SEED)
        continue;
      value = g_variant_lookup_value (values, spec->name, NULL);
      if (value == NULL)
        continue;
      json_builder_set_member_name (builder, spec->name);
      add_attr_value (builder, spec, value);
    }
  json_builder_end_object (builder);
}

static void
add_node (JsonBuilder       *builder,
          const EpGraphNode *node)
{
  static const char *const kinds[] = {
    [EP_NODE_OP] = "op", [EP_NODE_READ] = "read", [EP_NODE_ASSIGN] = "assign",
  };

  json_builder_begin_object (builder);
  add_string (builder, "kind", kinds[node->kind]);
  if (node->kind == EP_NODE_OP)
    add_string (builder, "op", node->op->name);
  else
    add_int (builder, "variable", node->variable);
  if (node->kind != EP_NODE_ASSIGN)
    add_string (builder, "device", node->device->name);

  if (node->kind != EP_NODE_READ)
    {
      json_builder_set_member_name (builder, "inputs");
      json_builder_begin_array (builder);
      for (guint i = 0; i < node->n_inputs; i++)
        add_ref (builder, &node->inputs[i]);
      json_builder_end_array (builder);
    }
  if (node->kind == EP_NODE_OP)
    add_attrs (builder, node);

  if (node->kind != EP_NODE_ASSIGN)
    {
      json_builder_set_member_name (builder, "outputs");
      json_builder_begin_array (builder);
      for (guint o = 0; o < node->n_outputs; o++)
        {
          json_builder_begin_object (builder);
          add_layout (builder, &node->outputs[o]);
          json_builder_end_object (builder);
        }
      json_builder_end_array (builder);
    }
  json_builder_end_object (builder);
}

static void
add_inputs (JsonBuilder          *builder,
            EpGraph              *graph,
            EpTensorSpec *const  *signature)
{
  json_builder_set_member_name (builder, "inputs");
  json_builder_begin_array (builder);
  for (guint i = 0; i < graph->n_inputs; i++)
    {
      guint ndim;
      const gint64 *shape = ep_tensor_spec_get_shape (signature[i], &ndim);

      json_builder_begin_object (builder);
      add_string (builder, "dtype", ep_dtype_get_name (ep_tensor_spec_get_dtype (signature[i])));
      add_shape (builder, "shape", shape, ndim);
      add_shape (builder, "trace_shape", graph->inputs[i].shape, graph->inputs[i].ndim);
      add_string (builder, "device", graph->input_devices[i]->name);
      json_builder_end_object (builder);
    }
  json_builder_end_array (builder);
}

static char *
constant_name (guint index)
{
  return g_strdup_printf ("constants/%u", index);
}

static char *
variable_name (guint index)
{
  return g_strdup_printf ("variables/%u", index);
}

static void
add_constants (JsonBuilder *builder,
               EpGraph     *graph)
{
  json_builder_set_member_name (builder, "constants");
  json_builder_begin_array (builder);
  for (guint c = 0; c < graph->constants->len; c++)
    {
      EpTensor *constant = g_ptr_array_index (graph->constants, c);
      g_autofree char *name = constant_name (c);

      json_builder_begin_object (builder);
      add_string (builder, "tensor", name);
      add_layout (builder, &constant->layout);
      add_string (builder, "device", constant->storage->device->name);
      json_builder_set_member_name (builder, "weak");
      json_builder_add_boolean_value (builder, constant->weak);
      json_builder_end_object (builder);
    }
  json_builder_end_array (builder);
}

static void
add_variables (JsonBuilder *builder,
               EpGraph     *graph)
{
  json_builder_set_member_name (builder, "variables");
  json_builder_begin_array (builder);
  for (guint v = 0; v < graph->variables->len; v++)
    {
      EpVariable *variable = g_ptr_array_index (graph->variables, v);
      g_autofree char *name = variable_name (v);
      guint ndim;
      const gint64 *shape = ep_variable_get_shape (variable, &ndim);

      json_builder_begin_object (builder);
      add_string (builder, "tensor", name);
      add_string (builder, "name", ep_variable_get_name (variable));
      add_string (builder, "dtype", ep_dtype_get_name (ep_variable_get_dtype (variable)));
      add_shape (builder, "shape", shape, ndim);
      add_string (builder, "device", ep_variable_get_device (variable)->name);
      json_builder_set_member_name (builder, "trainable");
      json_builder_add_boolean_value (builder, ep_variable_get_trainable (variable));
      json_builder_end_object (builder);
    }
  json_builder_end_array (builder);
}

static JsonNode *
graph_to_json (EpGraph              *graph,
               EpTensorSpec *const  *signature)
{
  g_autoptr(JsonBuilder) builder = json_builder_new ();

  json_builder_begin_object (builder);
  add_string (builder, "format", EP_GRAPH_FILE_FORMAT);
  add_int (builder, "version", EP_GRAPH_FILE_VERSION);
  add_inputs (builder, graph, signature);
  add_constants (builder, graph);
  add_variables (builder, graph);

  json_builder_set_member_name (builder, "nodes");
  json_builder_begin_array (builder);
  for (guint n = 0; n < ep_graph_get_n_nodes (graph); n++)
    add_node (builder, ep_graph_get_node (graph, n));
  json_builder_end_array (builder);

  json_builder_set_member_name (builder, "outputs");
  json_builder_begin_array (builder);
  for (guint o = 0; o < graph->n_outputs; o++)
    add_ref (builder, &graph->outputs[o]);
  json_builder_end_array (builder);
  json_builder_end_object (builder);

  return json_builder_get_root (builder);
}

/* The constants, then the variables' current values */
static gboolean
save_tensors (EpGraph       *graph,
              GFile         *file,
              GCancellable  *cancellable,
              GError       **error)
{
  static const char *const metadata[] = {
    "format", EP_GRAPH_FILE_FORMAT, "version", G_STRINGIFY (EP_GRAPH_FILE_VERSION), NULL,
  };
  guint n = graph->constants->len + graph->variables->len;
  g_autoptr(GPtrArray) names = g_ptr_array_new_full (n, g_free);
  g_autoptr(GPtrArray) tensors = g_ptr_array_new_full (n, g_object_unref);

  for (guint c = 0; c < graph->constants->len; c++)
    {
      g_ptr_array_add (names, constant_name (c));
      g_ptr_array_add (tensors, g_object_ref (g_ptr_array_index (graph->constants, c)));
    }
  for (guint v = 0; v < graph->variables->len; v++)
    {
      g_ptr_array_add (names, variable_name (v));
      g_ptr_array_add (tensors, ep_variable_peek (g_ptr_array_index (graph->variables, v)));
    }

  return ep_safetensors_write (file, (const char *const *) names->pdata,
                               (EpTensor *const *) tensors->pdata, n, metadata, "save",
                               cancellable, error);
}

/* Nodes no file can hold */
static gboolean
check_savable (EpGraph  *graph,
               GError  **error)
{
  for (guint n = 0; n < ep_graph_get_n_nodes (graph); n++)
    {
      EpGraphNode *node = ep_graph_get_node (graph, n);

      if (node->kind == EP_NODE_HOST)
        {
          g_set_error (error, EP_ERROR, EP_ERROR_INVALID_ARGUMENT,
                       _("save: the graph calls a host callback (host_call), a function of the host language; it cannot be saved"));
          return FALSE;
        }
      if (node->kind == EP_NODE_OP && node->op == &ep_op_custom_gradient)
        {
          g_set_error (error, EP_ERROR, EP_ERROR_INVALID_ARGUMENT,
                       _("save: the graph calls custom_gradient, whose gradient is a function of the host language; it cannot be saved"));
          return FALSE;
        }
    }

  return TRUE;
}

/*
 * ep_graph_save:
 * @signature: one spec per input of @graph: what its inputs may be
 *
 * Writes @graph as @file and the safetensors file beside it
 * (ep_graph_file_get_tensors_file()): the tensors first, then the
 * document, each atomically.
 */
gboolean
ep_graph_save (EpGraph              *graph,
               EpTensorSpec *const  *signature,
               GFile                *file,
               GCancellable         *cancellable,
               GError              **error)
{
  g_autoptr(GFile) tensors_file = ep_graph_file_get_tensors_file (file);
  g_autoptr(JsonNode) root = NULL;
  g_autoptr(GBytes) document = NULL;

  if (tensors_file == NULL)
    {
      g_autofree char *name = g_file_get_parse_name (file);

      g_set_error (error, EP_ERROR, EP_ERROR_IO, _("%s: %s is not a file name"), "save", name);
      return FALSE;
    }
  if (!check_savable (graph, error)
      || !save_tensors (graph, tensors_file, cancellable, error))
    return FALSE;

  root = graph_to_json (graph, signature);
  document = ep_json_to_bytes (root, TRUE);
  return ep_file_replace (file, &document, 1, "save", cancellable, error);
}
