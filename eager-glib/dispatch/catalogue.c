/* dispatch/catalogue.c: the op schema as data
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * What bindings, documentation and tools read to know every op's
 * arguments without a line per op: the Python override makes its
 * signatures from it, docs/ops.md its table.
 */

#include "config.h"

#include "ep-enum-types.h"
#include "ep-op-private.h"
#include "ep-ops.h"

static const EpOpDef *const catalogue[] = {
#define EP_OP(family, ID, name) &ep_op_##name,
#define EP_FUNC(family, name) &ep_func_##name,
#include "ep-op-list-private.h"
#undef EP_OP
#undef EP_FUNC
};

static const char *const catalogue_families[] = {
#define EP_OP(family, ID, name) #family,
#define EP_FUNC(family, name) #family,
#include "ep-op-list-private.h"
#undef EP_OP
#undef EP_FUNC
};

static const char *const attr_type_names[] = {
  [EP_ATTR_BOOL] = "bool",
  [EP_ATTR_INT] = "int",
  [EP_ATTR_FLOAT] = "float",
  [EP_ATTR_NUMBER] = "number",
  [EP_ATTR_DTYPE] = "dtype",
  [EP_ATTR_ENUM] = "enum",
  [EP_ATTR_AXIS] = "axis",
  [EP_ATTR_AXES] = "axes",
  [EP_ATTR_SHAPE] = "shape",
  [EP_ATTR_INTS] = "ints",
  [EP_ATTR_DEVICE] = "device",
  [EP_ATTR_SEED] = "seed",
  [EP_ATTR_STRING] = "string",
};

static const char *const input_kind_names[] = {
  [EP_INPUT_ANY] = "any",
  [EP_INPUT_BOOL] = "bool",
  [EP_INPUT_INTEGER] = "integer",
};

static const char *
enum_nick (GType   type,
           gint    value)
{
  g_autoptr(GEnumClass) enum_class = g_type_class_ref (type);
  GEnumValue *found = g_enum_get_value (enum_class, value);

  return found != NULL ? found->value_nick : "";
}

static GVariant *
default_value (const EpAttrSpec *spec)
{
  switch (spec->type)
    {
    case EP_ATTR_BOOL:
      return g_variant_new_boolean (spec->fallback != 0);
    case EP_ATTR_FLOAT:
      return g_variant_new_double (spec->fallback);
    case EP_ATTR_NUMBER:
      {
        EpNumber number = ep_number_from_literal (spec->fallback);

        return number.integral ? g_variant_new_int64 (number.i) : g_variant_new_double (number.f);
      }
    case EP_ATTR_DTYPE:
      return g_variant_new_string (ep_dtype_get_name ((EpDType) spec->fallback));
    case EP_ATTR_ENUM:
      return g_variant_new_string (enum_nick (spec->enum_type (), (gint) spec->fallback));
    case EP_ATTR_INT:
    case EP_ATTR_AXIS:
    case EP_ATTR_SEED:
      return g_variant_new_int64 ((gint64) spec->fallback);
    case EP_ATTR_AXES:
    case EP_ATTR_SHAPE:
    case EP_ATTR_INTS:
    case EP_ATTR_DEVICE:
    case EP_ATTR_STRING:
      break;
    }

  g_return_val_if_reached (NULL);
}

static GVariant *
describe_input (const EpInputSpec *spec)
{
  g_auto(GVariantDict) dict = G_VARIANT_DICT_INIT (NULL);

  g_variant_dict_insert (&dict, "name", "s", spec->name);
  g_variant_dict_insert (&dict, "dtypes", "s", input_kind_names[spec->kind]);
  g_variant_dict_insert (&dict, "list", "b", spec->list);
  return g_variant_dict_end (&dict);
}

static GVariant *
describe_attr (const EpAttrSpec *spec)
{
  g_auto(GVariantDict) dict = G_VARIANT_DICT_INIT (NULL);

  g_variant_dict_insert (&dict, "name", "s", spec->name);
  g_variant_dict_insert (&dict, "type", "s", attr_type_names[spec->type]);
  g_variant_dict_insert (&dict, "nullable", "b", (spec->flags & EP_ATTR_NULLABLE) != 0);
  g_variant_dict_insert (&dict, "internal", "b", (spec->flags & EP_ATTR_INTERNAL) != 0);
  if (spec->optional)
    g_variant_dict_insert_value (&dict, "default", default_value (spec));
  if (spec->type == EP_ATTR_ENUM)
    g_variant_dict_insert (&dict, "enum", "s", g_type_name (spec->enum_type ()));
  return g_variant_dict_end (&dict);
}

static GVariant *
describe_output (const char *name,
                 gboolean    list)
{
  g_auto(GVariantDict) dict = G_VARIANT_DICT_INIT (NULL);

  g_variant_dict_insert (&dict, "name", "s", name);
  g_variant_dict_insert (&dict, "list", "b", list);
  return g_variant_dict_end (&dict);
}

static gboolean
is_method (const EpOpDef *op)
{
  return op->n_inputs > 0 && g_str_equal (op->inputs[0].name, "self");
}

static GVariant *
describe_op (const EpOpDef *op,
             const char    *family)
{
  g_auto(GVariantDict) dict = G_VARIANT_DICT_INIT (NULL);
  g_auto(GVariantBuilder) inputs = G_VARIANT_BUILDER_INIT (G_VARIANT_TYPE ("aa{sv}"));
  g_auto(GVariantBuilder) attrs = G_VARIANT_BUILDER_INIT (G_VARIANT_TYPE ("aa{sv}"));
  g_auto(GVariantBuilder) outputs = G_VARIANT_BUILDER_INIT (G_VARIANT_TYPE ("aa{sv}"));
  gboolean primitive = op->infer != NULL;

  g_variant_dict_insert (&dict, "name", "s", op->name);
  g_variant_dict_insert (&dict, "family", "s", family);
  g_variant_dict_insert (&dict, "kind", "s", primitive ? "primitive" : "composite");
  g_variant_dict_insert (&dict, "method", "b", is_method (op));
  if (!(op->flags & EP_OP_FLAG_NO_FUNCTION))
    {
      g_autofree char *symbol = g_strconcat (is_method (op) ? "ep_tensor_" : "ep_", op->name, NULL);

      g_variant_dict_insert (&dict, "function", "s", symbol);
    }

  for (guint i = 0; i < op->n_inputs; i++)
    g_variant_builder_add_value (&inputs, describe_input (&op->inputs[i]));
  for (guint a = 0; a < op->n_attrs; a++)
    g_variant_builder_add_value (&attrs, describe_attr (&op->attrs[a]));
  if (op->outputs == NULL)
    g_variant_builder_add_value (&outputs, describe_output ("out", FALSE));
  for (guint o = 0; o < op->n_outputs; o++)
    g_variant_builder_add_value (&outputs, describe_output (op->outputs[o], op->output_list));

  g_variant_dict_insert_value (&dict, "inputs", g_variant_builder_end (&inputs));
  g_variant_dict_insert_value (&dict, "attributes", g_variant_builder_end (&attrs));
  g_variant_dict_insert_value (&dict, "outputs", g_variant_builder_end (&outputs));
  if (primitive)
    g_variant_dict_insert (&dict, "differentiable", "b", op->gradient != NULL);
  g_variant_dict_insert (&dict, "view", "b", (op->flags & EP_OP_FLAG_VIEW) != 0);
  g_variant_dict_insert (&dict, "reads-data", "b", (op->flags & EP_OP_FLAG_READS_DATA) != 0);
  return g_variant_dict_end (&dict);
}

/**
 * ep_list_ops:
 *
 * Describes every op of the library, as data: what each takes and gives,
 * from the schema each op declares once. Bindings make their signatures
 * from it (the Python override does), and tools can call any op by name
 * through the function it names.
 *
 * Each element is a dictionary (`a{sv}`) with:
 *
 * - `name` (`s`): the op's name, such as `sum`
 * - `family` (`s`): its family (`reduce`), the name of its source files
 * - `kind` (`s`): `primitive` (dispatched to a kernel of each device) or
 *   `composite` (built from other ops)
 * - `function` (`s`): the C function, such as `ep_tensor_sum`; absent for
 *   ops without a public function of this signature
 * - `method` (`b`): whether the function is a method of [class@Tensor]
 *   (its first input is `self`)
 * - `inputs` (`aa{sv}`): the tensor arguments, first in the function's
 *   parameters: `name`, `dtypes` (`any`, `bool` or `integer`: what the
 *   op accepts) and `list` (any number of tensors)
 * - `attributes` (`aa{sv}`): the other arguments, in the function's
 *   order after the inputs: `name`, `type` (`bool`, `int`, `float`,
 *   `dtype`, `enum`, `axis`, `axes`, `shape`, `ints`, `device`, `seed`),
 *   `default` (a variant, when the argument has one; dtypes and enums by
 *   name), `nullable` (accepts "none": %NULL axes, %EP_AXIS_NONE),
 *   `internal` (set by the library, not a parameter) and `enum` (the
 *   enum's type name)
 * - `outputs` (`aa{sv}`): the results: `name` and `list` (any number).
 *   The function returns a single output; several come as out parameters
 *   in this order, after the attributes, with a boolean return (as
 *   [method@Tensor.topk]); a list comes as an array of tensors (as
 *   [method@Tensor.split])
 * - `differentiable` (`b`, primitives only: a composite function is as
 *   differentiable as the ops it is made of), `view`, `reads-data` (`b`)
 *
 * Returns: (transfer full): the catalogue, of type `aa{sv}`
 */
GVariant *
ep_list_ops (void)
{
  static GVariant *described;

  /* made once: the schema does not change */
  if (g_once_init_enter (&described))
    {
      g_auto(GVariantBuilder) builder = G_VARIANT_BUILDER_INIT (G_VARIANT_TYPE ("aa{sv}"));

      for (guint i = 0; i < G_N_ELEMENTS (catalogue); i++)
        g_variant_builder_add_value (&builder, describe_op (catalogue[i], catalogue_families[i]));
      g_once_init_leave (&described, g_variant_ref_sink (g_variant_builder_end (&builder)));
    }

  return g_variant_ref (described);
}
