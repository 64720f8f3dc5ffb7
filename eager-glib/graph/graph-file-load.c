/* graph/graph-file-load.c: a graph as files: reading
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The reader of graph files (graph-file.c writes them;
 * docs/graph-files.md describes them). A file is untrusted input: it is
 * read whole and checked before anything runs. The reader checks the
 * document's structure (every member of its type, no member unknown,
 * every reference to an earlier node, an existing output, input,
 * constant or variable, the counts of inputs and outputs that the op's
 * schema says, attributes through the schema) and that the tensors are
 * what it says; then ep_graph_check() runs each op's rule on the layouts
 * the file records, as a replay will. So a loaded graph never hands a
 * kernel what its rule has not checked, whatever the file says. Every
 * problem is an EP_ERROR_FORMAT naming the file and the place in it.
 */

#include "config.h"

#include <glib/gi18n-lib.h>
#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "ep-device-private.h"
#include "ep-error.h"
#include "ep-file-private.h"
#include "ep-graph-check-private.h"
#include "ep-graph-file-private.h"
#include "ep-json-private.h"
#include "ep-safetensors-private.h"

typedef struct
{
  char           *name;       /* of the document, for messages */
  EpSafetensors  *tensors;
  EpGraph        *graph;
  GPtrArray      *signature;  /* EpTensorSpec */
} Loader;

/* @what: the kind of value wanted at @where.@member (@where NULL: a
 * member of the document) */
static gboolean
fail_expected (GError     **error,
               const char  *where,
               const char  *member,
               const char  *what)
{
  g_autofree char *path = member == NULL ? g_strdup (where)
                          : where == NULL ? g_strdup (member)
                          : g_strdup_printf ("%s.%s", where, member);

  return ep_file_format_error (error, path, _("expected %s"), what);
}

static gboolean
check_members (JsonObject         *object,
               const char         *where,
               const char *const  *allowed,
               GError            **error)
{
  g_autoptr(GList) members = json_object_get_members (object);

  for (GList *m = members; m != NULL; m = m->next)
    if (!g_strv_contains (allowed, m->data))
      return ep_file_format_error (error, where, _("unknown member “%s”"), (const char *) m->data);

  return TRUE;
}

static gboolean
get_int (JsonObject  *object,
         const char  *where,
         const char  *member,
         gint64       min,
         gint64       max,
         gint64      *value,
         GError     **error)
{
  if (!ep_json_get_int (json_object_get_member (object, member), value)
      || *value < min || *value > max)
    return fail_expected (error, where, member, _("an integer in range"));

  return TRUE;
}

static gboolean
get_string (JsonObject  *object,
            const char  *where,
            const char  *member,
            const char **value,
            GError     **error)
{
  if (!ep_json_get_string (json_object_get_member (object, member), value))
    return fail_expected (error, where, member, _("a string"));

  return TRUE;
}

static gboolean
get_boolean (JsonObject  *object,
             const char  *where,
             const char  *member,
             gboolean    *value,
             GError     **error)
{
  JsonNode *node = json_object_get_member (object, member);

  if (node == NULL || !JSON_NODE_HOLDS_VALUE (node)
      || json_node_get_value_type (node) != G_TYPE_BOOLEAN)
    return fail_expected (error, where, member, _("true or false"));

  *value = json_node_get_boolean (node);
  return TRUE;
}

static JsonArray *
get_array (JsonObject  *object,
           const char  *where,
           const char  *member,
           GError     **error)
{
  JsonNode *node = json_object_get_member (object, member);

  if (node == NULL || !JSON_NODE_HOLDS_ARRAY (node))
    {
      fail_expected (error, where, member, _("a list"));
      return NULL;
    }

  return json_node_get_array (node);
}

/* Element @index of @array, an object, and where it is */
static JsonObject *
get_object_element (JsonArray   *array,
                    guint        index,
                    const char  *where,
                    char       **element_where,
                    GError     **error)
{
  JsonNode *node = json_array_get_element (array, index);

  *element_where = g_strdup_printf ("%s[%u]", where, index);
  if (!JSON_NODE_HOLDS_OBJECT (node))
    {
      fail_expected (error, *element_where, NULL, _("an object"));
      return NULL;
    }

  return json_node_get_object (node);
}

/* A shape: at most EP_MAX_DIMS integers from 0 (-1 too, for unknown
 * extents, when @unknown allows) */
static gboolean
get_shape (JsonObject  *object,
           const char  *where,
           const char  *member,
           gboolean     unknown,
           gint64      *shape,
           guint       *ndim,
           GError     **error)
{
  JsonNode *node = json_object_get_member (object, member);
  JsonArray *array = node != NULL && JSON_NODE_HOLDS_ARRAY (node) ? json_node_get_array (node) : NULL;
  gboolean valid = array != NULL && json_array_get_length (array) <= EP_MAX_DIMS;

  *ndim = valid ? json_array_get_length (array) : 0;
  for (guint d = 0; valid && d < *ndim; d++)
    valid = ep_json_get_int (json_array_get_element (array, d), &shape[d])
            && shape[d] >= (unknown ? -1 : 0);

  if (!valid)
    {
      g_autofree char *what = g_strdup_printf (unknown ? _("a shape: at most %d integers from -1 (unknown)")
                                                       : _("a shape: at most %d integers from 0"),
                                               EP_MAX_DIMS);

      return fail_expected (error, where, member, what);
    }

  return TRUE;
}

static gboolean
get_dtype (JsonObject  *object,
           const char  *where,
           EpDType     *dtype,
           GError     **error)
{
  const char *name;

  if (!ep_json_get_string (json_object_get_member (object, "dtype"), &name)
      || !ep_dtype_from_name (name, dtype))
    return fail_expected (error, where, "dtype", _("a dtype: float32, float64, int32, int64 or bool"));

  return TRUE;
}

/* "dtype" and "shape", as a contiguous layout */
static gboolean
get_layout (JsonObject  *object,
            const char  *where,
            const char  *shape_member,
            EpLayout    *layout,
            GError     **error)
{
  gint64 shape[EP_MAX_DIMS];
  guint ndim;
  EpDType dtype;
  GError *local_error = NULL;

  if (!get_dtype (object, where, &dtype, error)
      || !get_shape (object, where, shape_member, FALSE, shape, &ndim, error))
    return FALSE;
  if (!ep_layout_init (layout, dtype, shape, ndim, shape_member, &local_error))
    return ep_file_format_error_from (error, where, local_error);

  return TRUE;
}

/* A device by name: the device of that name on this machine, or cpu:0
 * where this machine lacks it (every op has a CPU kernel, which the
 * other devices match). A name that is no device name is an error. */
static gboolean
get_device (JsonObject  *object,
            const char  *where,
            EpDevice   **device,
            GError     **error)
{
  const char *name, *colon;
  g_autofree char *kind = NULL;
  guint64 index;

  if (!get_string (object, where, "device", &name, error))
    return FALSE;
  colon = strchr (name, ':');
  if (colon != NULL)
    kind = g_strndup (name, colon - name);
  if (kind == NULL || !(g_str_equal (kind, "cpu") || g_str_equal (kind, "opencl"))
      || !g_ascii_string_to_unsigned (colon + 1, 10, 0, G_MAXINT, &index, NULL))
    return fail_expected (error, where, "device", _("a device name such as cpu:0 or opencl:0"));

  *device = ep_device_get (name, NULL);
  if (*device == NULL)
    *device = ep_device_get_cpu ();

  return TRUE;
}

/* Inputs */

static gboolean
read_input (Loader      *l,
            JsonObject  *object,
            const char  *where,
            guint        i,
            GError     **error)
{
  static const char *const members[] = { "dtype", "shape", "trace_shape", "device", NULL };
  gint64 shape[EP_MAX_DIMS];
  guint ndim;
  EpDType dtype;
  EpLayout *traced = &l->graph->inputs[i];
  EpTensorSpec *spec;

  if (!check_members (object, where, members, error)
      || !get_dtype (object, where, &dtype, error)
      || !get_shape (object, where, "shape", TRUE, shape, &ndim, error)
      || !get_layout (object, where, "trace_shape", traced, error)
      || !get_device (object, where, &l->graph->input_devices[i], error))
    return FALSE;

  if (traced->dtype != dtype || traced->ndim != ndim)
    return ep_file_format_error (error, where, _("the traced shape does not fit the shape"));
  for (guint d = 0; d < ndim; d++)
    if (shape[d] >= 0 && shape[d] != traced->shape[d])
      return ep_file_format_error (error, where, _("the traced shape does not fit the shape"));

  spec = ep_tensor_spec_new (shape, ndim, dtype, NULL);
  g_ptr_array_add (l->signature, spec);
  return TRUE;
}

static gboolean
read_inputs (Loader      *l,
             JsonObject  *root,
             GError     **error)
{
  JsonArray *array = get_array (root, NULL, "inputs", error);
  guint n;

  if (array == NULL)
    return FALSE;

  n = json_array_get_length (array);
  l->graph->n_inputs = n;
  l->graph->inputs = g_new0 (EpLayout, MAX (n, 1));
  l->graph->input_devices = g_new0 (EpDevice *, MAX (n, 1));
  for (guint i = 0; i < n; i++)
    {
      g_autofree char *where = NULL;
      JsonObject *object = get_object_element (array, i, "inputs", &where, error);

      if (object == NULL || !read_input (l, object, where, i, error))
        return FALSE;
    }

  return TRUE;
}

/* Constants and variables */

/* Tensor "tensor" of the safetensors file, which must be what the
 * document says, on @device. */
static EpTensor *
load_tensor (Loader          *l,
             JsonObject      *object,
             const char      *where,
             const EpLayout  *layout,
             EpDevice        *device,
             GError         **error)
{
  const EpSafetensorsEntry *entry;
  const char *name;
  GError *local_error = NULL;
  EpTensor *tensor;

  if (!get_string (object, where, "tensor", &name, error))
    return NULL;

  entry = ep_safetensors_lookup (l->tensors, name);
  if (entry != NULL && (!entry->supported || entry->dtype != layout->dtype
                        || entry->ndim != layout->ndim
                        || memcmp (entry->shape, layout->shape, layout->ndim * sizeof (gint64)) != 0))
    {
      g_autofree char *got = ep_shape_to_string (entry->shape, entry->ndim);
      g_autofree char *want = ep_shape_to_string (layout->shape, layout->ndim);

      ep_file_format_error (error, where, _("tensor “%s” is %s %s in the tensors file, the document says %s %s"),
            name, entry->dtype_name, got, ep_dtype_get_name (layout->dtype), want);
      return NULL;
    }

  tensor = ep_safetensors_load_tensor (l->tensors, name, device, &local_error);
  if (tensor == NULL)
    ep_file_format_error_from (error, where, local_error);
  return tensor;
}

static gboolean
read_constant (Loader      *l,
               JsonObject  *object,
               const char  *where,
               GError     **error)
{
  static const char *const members[] = { "tensor", "dtype", "shape", "device", "weak", NULL };
  EpLayout layout;
  EpDevice *device;
  gboolean weak;
  EpTensor *constant;

  if (!check_members (object, where, members, error)
      || !get_layout (object, where, "shape", &layout, error)
      || !get_device (object, where, &device, error)
      || !get_boolean (object, where, "weak", &weak, error))
    return FALSE;

  /* a weak literal is a host scalar: dispatch reads it on the CPU */
  if (weak && layout.ndim != 0)
    return ep_file_format_error (error, where, _("a weak constant must be a scalar"));
  if (weak)
    device = ep_device_get_cpu ();

  constant = load_tensor (l, object, where, &layout, device, error);
  if (constant == NULL)
    return FALSE;
  constant->weak = weak;
  g_ptr_array_add (l->graph->constants, constant);

  return TRUE;
}

static gboolean
read_variable (Loader      *l,
               JsonObject  *object,
               const char  *where,
               GError     **error)
{
  static const char *const members[] = {
    "tensor", "name", "dtype", "shape", "device", "trainable", NULL,
  };
  JsonNode *name_node = json_object_get_member (object, "name");
  const char *name = NULL;
  EpLayout layout;
  EpDevice *device;
  gboolean trainable;
  g_autoptr(EpTensor) value = NULL;
  EpVariable *variable;

  if (!check_members (object, where, members, error)
      || !get_layout (object, where, "shape", &layout, error)
      || !get_device (object, where, &device, error)
      || !get_boolean (object, where, "trainable", &trainable, error))
    return FALSE;
  if (name_node == NULL
      || (!JSON_NODE_HOLDS_NULL (name_node) && !ep_json_get_string (name_node, &name)))
    return fail_expected (error, where, "name", _("a string or null"));

  value = load_tensor (l, object, where, &layout, device, error);
  if (value == NULL)
    return FALSE;

  variable = ep_variable_new (value, name);
  ep_variable_set_trainable (variable, trainable);
  g_ptr_array_add (l->graph->variables, variable);
  return TRUE;
}

typedef gboolean (*ReadFunc) (Loader      *l,
                              JsonObject  *object,
                              const char  *where,
                              GError     **error);

static gboolean
read_list (Loader      *l,
           JsonObject  *root,
           const char  *member,
           ReadFunc     read,
           GError     **error)
{
  JsonArray *array = get_array (root, NULL, member, error);

  if (array == NULL)
    return FALSE;

  for (guint i = 0; i < json_array_get_length (array); i++)
    {
      g_autofree char *where = NULL;
      JsonObject *object = get_object_element (array, i, member, &where, error);

      if (object == NULL || !read (l, object, where, error))
        return FALSE;
    }

  return TRUE;
}

/* References */

/* One of {"input": i}, {"constant": i}, {"node": n, "output": o}, to a
 * value that exists before node @before. */
static gboolean
read_ref (Loader      *l,
          JsonNode    *node,
          const char  *where,
          guint        before,
          EpValueRef  *ref,
          GError     **error)
{
  static const char *const input_members[] = { "input", NULL };
  static const char *const constant_members[] = { "constant", NULL };
  static const char *const node_members[] = { "node", "output", NULL };
  const char *what = _("a reference: {\"input\": i}, {\"constant\": i} or {\"node\": n, \"output\": o}");
  JsonObject *object = JSON_NODE_HOLDS_OBJECT (node) ? json_node_get_object (node) : NULL;
  gint64 index, output;

  if (object != NULL && json_object_has_member (object, "input"))
    {
      if (!check_members (object, where, input_members, error)
          || !get_int (object, where, "input", 0, G_MAXUINT, &index, error))
        return FALSE;
      if (index >= l->graph->n_inputs)
        return ep_file_format_error (error, where, _("refers to input %" PRId64 ", the graph has %u"),
                     index, l->graph->n_inputs);
      *ref = (EpValueRef) { EP_VALUE_INPUT, index, 0 };
      return TRUE;
    }

  if (object != NULL && json_object_has_member (object, "constant"))
    {
      if (!check_members (object, where, constant_members, error)
          || !get_int (object, where, "constant", 0, G_MAXUINT, &index, error))
        return FALSE;
      if (index >= l->graph->constants->len)
        return ep_file_format_error (error, where, _("refers to constant %" PRId64 ", the graph has %u"),
                     index, l->graph->constants->len);
      *ref = (EpValueRef) { EP_VALUE_CONSTANT, index, 0 };
      return TRUE;
    }

  if (object != NULL && json_object_has_member (object, "node"))
    {
      if (!check_members (object, where, node_members, error)
          || !get_int (object, where, "node", 0, G_MAXUINT, &index, error)
          || !get_int (object, where, "output", 0, G_MAXUINT, &output, error))
        return FALSE;
      if (index >= before)
        return ep_file_format_error (error, where, _("refers to node %" PRId64 ", which does not come before it"),
                     index);
      if (output >= ep_graph_get_node (l->graph, index)->n_outputs)
        return ep_file_format_error (error, where, _("refers to output %" PRId64 " of node %" PRId64 ", which has %u"),
                     output, index, ep_graph_get_node (l->graph, index)->n_outputs);
      *ref = (EpValueRef) { EP_VALUE_NODE, index, output };
      return TRUE;
    }

  return fail_expected (error, where, NULL, what);
}

/* Attributes */

static GVariant *
int_list_from_json (JsonNode *node)
{
  g_autoptr(GArray) values = g_array_new (FALSE, FALSE, sizeof (gint64));
  JsonArray *array;

  if (!JSON_NODE_HOLDS_ARRAY (node))
    return NULL;
  array = json_node_get_array (node);
  for (guint i = 0; i < json_array_get_length (array); i++)
    {
      gint64 value;

      if (!ep_json_get_int (json_array_get_element (array, i), &value))
        return NULL;
      g_array_append_val (values, value);
    }

  return g_variant_new_fixed_array (G_VARIANT_TYPE_INT64, values->data, values->len, sizeof (gint64));
}

static GVariant *
float_from_json (JsonNode *node)
{
  const char *text;
  gint64 i;

  if (ep_json_get_int (node, &i))
    return g_variant_new_double (i);
  if (JSON_NODE_HOLDS_VALUE (node) && json_node_get_value_type (node) == G_TYPE_DOUBLE)
    return g_variant_new_double (json_node_get_double (node));
  if (!ep_json_get_string (node, &text))
    return NULL;
  if (g_str_equal (text, "NaN"))
    return g_variant_new_double (NAN);
  if (g_str_equal (text, "Infinity"))
    return g_variant_new_double (INFINITY);
  if (g_str_equal (text, "-Infinity"))
    return g_variant_new_double (-INFINITY);
  return NULL;
}

/* A number attribute: an integer stays one; beyond 2^53 it is a string
 * of digits (see add_number() in graph-file.c). */
static GVariant *
number_from_json (JsonNode *node)
{
  const char *text;
  gint64 i;

  if (ep_json_get_int (node, &i))
    return g_variant_new_int64 (i);
  if (ep_json_get_string (node, &text)
      && g_ascii_string_to_signed (text, 10, G_MININT64, G_MAXINT64, &i, NULL))
    return g_variant_new_int64 (i);
  return float_from_json (node);
}

/* The value of an attribute of type @spec->type, as
 * ep_op_attrs_set_from_variant() takes it; NULL (and @what) when @node
 * is not of that type. */
static GVariant *
attr_from_json (const EpAttrSpec  *spec,
                JsonNode          *node,
                const char       **what)
{
  gint64 i;
  const char *s;

  switch (spec->type)
    {
    case EP_ATTR_BOOL:
      *what = _("true or false");
      if (JSON_NODE_HOLDS_VALUE (node) && json_node_get_value_type (node) == G_TYPE_BOOLEAN)
        return g_variant_new_boolean (json_node_get_boolean (node));
      return NULL;
    case EP_ATTR_INT:
    case EP_ATTR_SEED:
      *what = _("an integer");
      return ep_json_get_int (node, &i) ? g_variant_new_int64 (i) : NULL;
    case EP_ATTR_AXIS:
      *what = _("an integer, or null for none");
      if (JSON_NODE_HOLDS_NULL (node) && (spec->flags & EP_ATTR_NULLABLE))
        return g_variant_new_int64 (EP_AXIS_NONE);
      return ep_json_get_int (node, &i) ? g_variant_new_int64 (i) : NULL;
    case EP_ATTR_FLOAT:
      *what = _("a number, “NaN”, “Infinity” or “-Infinity”");
      return float_from_json (node);
    case EP_ATTR_NUMBER:
      *what = _("a number, a string of an integer’s digits, “NaN”, “Infinity” or “-Infinity”");
      return number_from_json (node);
    case EP_ATTR_DTYPE:
    case EP_ATTR_ENUM:
    case EP_ATTR_DEVICE:
      *what = _("a string");
      return ep_json_get_string (node, &s) ? g_variant_new_string (s) : NULL;
    case EP_ATTR_AXES:
      *what = _("a list of integers, or null for all axes");
      if (JSON_NODE_HOLDS_NULL (node))
        return g_variant_new_fixed_array (G_VARIANT_TYPE_INT64, NULL, 0, sizeof (gint64));
      return int_list_from_json (node);
    case EP_ATTR_SHAPE:
    case EP_ATTR_INTS:
      *what = _("a list of integers");
      return int_list_from_json (node);
    case EP_ATTR_STRING:
      break;
    }

  g_return_val_if_reached (NULL);
}

static const EpAttrSpec *
find_attr (const EpOpDef *op,
           const char    *name)
{
  for (guint a = 0; a < op->n_attrs; a++)
    if (g_str_equal (op->attrs[a].name, name) && op->attrs[a].offset != EP_ATTR_NO_FIELD)
      return &op->attrs[a];

  return NULL;
}

/* A device attribute names a device of this machine, as nodes do */
static GVariant *
map_device_attr (JsonObject  *attrs,
                 const char  *where,
                 const char  *name,
                 GError     **error)
{
  g_autoptr(JsonObject) holder = json_object_new ();
  g_autofree char *path = g_strdup_printf ("%s.attrs.%s", where, name);
  EpDevice *device;

  json_object_set_member (holder, "device", json_node_copy (json_object_get_member (attrs, name)));
  if (!get_device (holder, path, &device, error))
    return NULL;

  return g_variant_new_string (device->name);
}

static gboolean
read_attrs (Loader       *l,
            JsonObject   *object,
            const char   *where,
            EpGraphNode  *node,
            GError      **error)
{
  g_auto(GVariantBuilder) builder = G_VARIANT_BUILDER_INIT (G_VARIANT_TYPE_VARDICT);
  JsonNode *attrs_node = json_object_get_member (object, "attrs");
  g_autoptr(GList) members = NULL;
  g_autoptr(GVariant) values = NULL;
  GError *local_error = NULL;
  JsonObject *attrs;

  if (attrs_node == NULL || !JSON_NODE_HOLDS_OBJECT (attrs_node))
    return fail_expected (error, where, "attrs", _("an object"));

  attrs = json_node_get_object (attrs_node);
  members = json_object_get_members (attrs);
  for (GList *m = members; m != NULL; m = m->next)
    {
      const EpAttrSpec *spec = find_attr (node->op, m->data);
      const char *what = NULL;
      GVariant *value;

      if (spec == NULL)
        return ep_file_format_error (error, where, _("%s has no attribute named “%s”"),
                     node->op->name, (const char *) m->data);

      if (spec->type == EP_ATTR_DEVICE)
        value = map_device_attr (attrs, where, m->data, error);
      else if ((value = attr_from_json (spec, json_object_get_member (attrs, m->data), &what)) == NULL)
        {
          g_autofree char *path = g_strdup_printf ("%s.attrs", where);

          fail_expected (error, path, m->data, what);
        }
      if (value == NULL)
        return FALSE;
      g_variant_builder_add (&builder, "{sv}", (const char *) m->data, value);
    }

  values = g_variant_ref_sink (g_variant_builder_end (&builder));
  if (!ep_op_attrs_set_from_variant (&node->attrs, node->op, values, &local_error))
    return ep_file_format_error_from (error, where, local_error);

  return TRUE;
}

/* Nodes */

static guint
schema_outputs (const EpOpDef *op)
{
  return op->outputs != NULL ? op->n_outputs : 1;
}

/* "outputs": one {"dtype", "shape"} for each of @count */
static gboolean
read_outputs_of (Loader       *l,
                 JsonObject   *object,
                 const char   *where,
                 guint         count,
                 EpGraphNode  *node,
                 GError      **error)
{
  JsonArray *array = get_array (object, where, "outputs", error);

  if (array == NULL)
    return FALSE;
  if (json_array_get_length (array) != count)
    return ep_file_format_error (error, where, _("%u outputs listed, the node gives %u"),
                 json_array_get_length (array), count);

  node->n_outputs = count;
  for (guint o = 0; o < count; o++)
    {
      g_autofree char *output_where = NULL;
      g_autofree char *path = g_strdup_printf ("%s.outputs", where);
      JsonObject *output = get_object_element (array, o, path, &output_where, error);
      static const char *const members[] = { "dtype", "shape", NULL };

      if (output == NULL
          || !check_members (output, output_where, members, error)
          || !get_layout (output, output_where, "shape", &node->outputs[o], error))
        return FALSE;
    }

  return TRUE;
}

/* "inputs": references to values before node @index */
static gboolean
read_node_inputs (Loader      *l,
                  JsonArray   *array,
                  const char  *where,
                  guint        index,
                  GError     **error)
{
  for (guint i = 0; i < json_array_get_length (array); i++)
    {
      g_autofree char *ref_where = g_strdup_printf ("%s.inputs[%u]", where, i);
      EpValueRef ref;

      if (!read_ref (l, json_array_get_element (array, i), ref_where, index, &ref, error))
        return FALSE;
      ep_graph_get_node (l->graph, index)->inputs[i] = ref;
    }

  return TRUE;
}

static gboolean
check_input_count (Loader         *l,
                   const EpOpDef  *op,
                   guint           n_inputs,
                   const char     *where,
                   GError        **error)
{
  if (ep_op_takes_list (op) ? n_inputs + 1 >= op->n_inputs : n_inputs == op->n_inputs)
    return TRUE;

  if (ep_op_takes_list (op))
    return ep_file_format_error (error, where, _("%s takes at least %u inputs, %u given"),
                 op->name, op->n_inputs - 1u, n_inputs);
  return ep_file_format_error (error, where, _("%s takes %u inputs, %u given"), op->name,
               (guint) op->n_inputs, n_inputs);
}

static gboolean
read_op_node (Loader      *l,
              JsonObject  *object,
              const char  *where,
              guint        index,
              GError     **error)
{
  static const char *const members[] = { "kind", "op", "device", "inputs", "attrs", "outputs", NULL };
  const char *name;
  const EpOpDef *op;
  JsonArray *inputs;
  EpGraphNode *node;

  if (!check_members (object, where, members, error)
      || !get_string (object, where, "op", &name, error)
      || (inputs = get_array (object, where, "inputs", error)) == NULL)
    return FALSE;

  op = ep_op_lookup (name);
  if (op == NULL)
    return ep_file_format_error (error, where, _("unknown op “%s”"), name);
  if (op == &ep_op_custom_gradient)
    return ep_file_format_error (error, where,
                 _("custom_gradient cannot be loaded: its gradient is a function of the host language"));
  if (!check_input_count (l, op, json_array_get_length (inputs), where, error))
    return FALSE;

  node = ep_graph_add_node (l->graph, EP_NODE_OP, json_array_get_length (inputs));
  node->op = op;
  return get_device (object, where, &node->device, error)
         && read_attrs (l, object, where, node, error)
         && read_outputs_of (l, object, where, schema_outputs (op), node, error)
         && read_node_inputs (l, inputs, where, index, error);
}

static gboolean
get_variable_index (Loader      *l,
                    JsonObject  *object,
                    const char  *where,
                    guint       *variable,
                    GError     **error)
{
  gint64 index;

  if (!get_int (object, where, "variable", 0, G_MAXUINT, &index, error))
    return FALSE;
  if (index >= l->graph->variables->len)
    return ep_file_format_error (error, where, _("refers to variable %" PRId64 ", the graph has %u"),
                 index, l->graph->variables->len);

  *variable = index;
  return TRUE;
}

static gboolean
read_read_node (Loader      *l,
                JsonObject  *object,
                const char  *where,
                guint        index,
                GError     **error)
{
  static const char *const members[] = { "kind", "variable", "device", "outputs", NULL };
  EpGraphNode *node;
  guint variable;

  if (!check_members (object, where, members, error)
      || !get_variable_index (l, object, where, &variable, error))
    return FALSE;

  node = ep_graph_add_node (l->graph, EP_NODE_READ, 0);
  node->variable = variable;
  return get_device (object, where, &node->device, error)
         && read_outputs_of (l, object, where, 1, node, error);
}

static gboolean
read_assign_node (Loader      *l,
                  JsonObject  *object,
                  const char  *where,
                  guint        index,
                  GError     **error)
{
  static const char *const members[] = { "kind", "variable", "inputs", NULL };
  JsonArray *inputs;
  EpGraphNode *node;
  guint variable;

  if (!check_members (object, where, members, error)
      || !get_variable_index (l, object, where, &variable, error)
      || (inputs = get_array (object, where, "inputs", error)) == NULL)
    return FALSE;
  if (json_array_get_length (inputs) != 1)
    return ep_file_format_error (error, where, _("%s takes %u inputs, %u given"), "assign", 1u,
                 json_array_get_length (inputs));

  node = ep_graph_add_node (l->graph, EP_NODE_ASSIGN, 1);
  node->variable = variable;
  return read_node_inputs (l, inputs, where, index, error);
}

static gboolean
read_node (Loader      *l,
           JsonObject  *object,
           const char  *where,
           GError     **error)
{
  guint index = ep_graph_get_n_nodes (l->graph);
  const char *kind;

  if (!get_string (object, where, "kind", &kind, error))
    return FALSE;
  if (g_str_equal (kind, "op"))
    return read_op_node (l, object, where, index, error);
  if (g_str_equal (kind, "read"))
    return read_read_node (l, object, where, index, error);
  if (g_str_equal (kind, "assign"))
    return read_assign_node (l, object, where, index, error);

  return fail_expected (error, where, "kind", _("“op”, “read” or “assign”"));
}

static gboolean
read_graph_outputs (Loader      *l,
                    JsonObject  *root,
                    GError     **error)
{
  JsonArray *array = get_array (root, NULL, "outputs", error);
  guint n;

  if (array == NULL)
    return FALSE;

  n = json_array_get_length (array);
  if (n == 0)
    return ep_file_format_error (error, "outputs", _("a function returns at least one tensor"));

  l->graph->n_outputs = n;
  l->graph->outputs = g_new0 (EpValueRef, n);
  for (guint o = 0; o < n; o++)
    {
      g_autofree char *where = g_strdup_printf ("outputs[%u]", o);

      if (!read_ref (l, json_array_get_element (array, o), where,
                     ep_graph_get_n_nodes (l->graph), &l->graph->outputs[o], error))
        return FALSE;
    }

  return TRUE;
}

/* The document */

/* The errors found in the document, which name a place in it, name the
 * file first */
static gboolean
about_document (Loader  *l,
                GError **error)
{
  g_prefix_error (error, "%s: ", l->name);
  return FALSE;
}

static gboolean
check_version (Loader      *l,
               JsonObject  *root,
               GError     **error)
{
  const char *format;
  gint64 version;

  if (!ep_json_get_string (json_object_get_member (root, "format"), &format)
      || !g_str_equal (format, EP_GRAPH_FILE_FORMAT))
    return ep_file_format_error (error, "format", _("not an eager-glib graph file (its format is not “%s”)"),
                 EP_GRAPH_FILE_FORMAT);
  if (!get_int (root, NULL, "version", 1, EP_JSON_MAX_INT, &version, error))
    return FALSE;
  if (version > EP_GRAPH_FILE_VERSION)
    return ep_file_format_error (error, "version",
                 _("written in version %" PRId64 " of the graph file format by a newer eager-glib; this one reads up to version %d"),
                 version, EP_GRAPH_FILE_VERSION);

  return TRUE;
}

static gboolean
read_nodes (Loader      *l,
            JsonObject  *root,
            GError     **error)
{
  return read_list (l, root, "nodes", read_node, error);
}

static gboolean
read_document (Loader        *l,
               JsonNode      *root_node,
               GFile         *file,
               GCancellable  *cancellable,
               GError       **error)
{
  static const char *const members[] = {
    "format", "version", "inputs", "constants", "variables", "nodes", "outputs", NULL,
  };
  g_autoptr(GFile) tensors_file = ep_graph_file_get_tensors_file (file);
  JsonObject *root;

  if (!JSON_NODE_HOLDS_OBJECT (root_node))
    return fail_expected (error, "document", NULL, _("an object")) || about_document (l, error);

  root = json_node_get_object (root_node);
  if (!check_version (l, root, error)
      || !check_members (root, "document", members, error))
    return about_document (l, error);

  /* its errors name the tensors file */
  l->tensors = ep_safetensors_read (tensors_file, "load", cancellable, error);
  if (l->tensors == NULL)
    return FALSE;

  if (!read_inputs (l, root, error)
      || !read_list (l, root, "constants", read_constant, error)
      || !read_list (l, root, "variables", read_variable, error)
      || !read_nodes (l, root, error)
      || !read_graph_outputs (l, root, error)
      || !ep_graph_check (l->graph, error))
    return about_document (l, error);

  return TRUE;
}

/*
 * ep_graph_load:
 * @signature: (out): return location for the specs of the inputs
 *
 * Reads the graph @file and the safetensors file beside it, and checks
 * it (see the top of this file). Its variables are new, with the values
 * of the file; its devices are those of this machine of the names the
 * file says, or cpu:0 for the ones it lacks.
 *
 * Returns: the graph, or %NULL with %EP_ERROR_IO or %EP_ERROR_FORMAT
 *   set (or a device's error making its tensors)
 */
EpGraph *
ep_graph_load (GFile         *file,
               GPtrArray    **signature,
               GCancellable  *cancellable,
               GError       **error)
{
  g_autoptr(GBytes) bytes = ep_file_map (file, "load", cancellable, error);
  g_autoptr(JsonNode) root = NULL;
  Loader l = { 0 };
  EpGraph *graph = NULL;
  gsize length;
  const char *data;

  if (bytes == NULL)
    return NULL;

  l.name = g_file_get_parse_name (file);
  data = g_bytes_get_data (bytes, &length);
  root = ep_json_parse (data, length, l.name, error);
  l.graph = ep_graph_new ();
  l.signature = g_ptr_array_new_with_free_func ((GDestroyNotify) ep_tensor_spec_unref);

  if (root != NULL && read_document (&l, root, file, cancellable, error))
    {
      graph = g_steal_pointer (&l.graph);
      *signature = g_steal_pointer (&l.signature);
    }

  g_clear_pointer (&l.graph, ep_graph_unref);
  g_clear_pointer (&l.signature, g_ptr_array_unref);
  g_clear_pointer (&l.tensors, ep_safetensors_free);
  g_free (l.name);
  return graph;
}
