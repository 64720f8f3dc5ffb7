/* test-schema.c: the op schema, its checks and the catalogue
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Private API: the declarations in every EpOpDef, the checks dispatch
 * makes from them (ep_op_check_call) before an op's rule runs, attributes
 * by name (ep_op_attrs_set_from_variant), and the public catalogue
 * (ep_list_ops) made from the same declarations.
 */

#include "ep-test-util.h"

#include "ep-dispatch-private.h"

static const EpOpDef *const composites[] = {
#define EP_OP(family, ID, name)
#define EP_FUNC(family, name) &ep_func_##name,
#include "ep-op-list-private.h"
#undef EP_OP
#undef EP_FUNC
};

static GVariant *
catalogue_entry (GVariant   *catalogue,
                 const char *name)
{
  for (gsize i = 0; i < g_variant_n_children (catalogue); i++)
    {
      g_autoptr(GVariant) entry = g_variant_get_child_value (catalogue, i);
      const char *entry_name = NULL;

      g_variant_lookup (entry, "name", "&s", &entry_name);
      if (g_strcmp0 (entry_name, name) == 0)
        return g_steal_pointer (&entry);
    }

  return NULL;
}

/* Every declaration is well formed: lists have a length and a room that
 * fits their field, only the last input may be a list, enums name their
 * type, composites have no rule and primitives one. */
static void
check_declaration (const EpOpDef *op,
                   gboolean       primitive)
{
  g_assert_true ((op->infer != NULL) == primitive);
  g_assert_true ((op->id < EP_N_OPS) == primitive);
  if (primitive)
    g_assert_true (ep_op_get (op->id) == op);

  for (guint i = 0; i + 1 < op->n_inputs; i++)
    g_assert_false (op->inputs[i].list);
  g_assert_true (op->outputs != NULL || op->n_outputs == 0);
  g_assert_cmpuint (op->n_outputs, <=, EP_MAX_OUTPUTS);

  for (guint a = 0; a < op->n_attrs; a++)
    {
      const EpAttrSpec *spec = &op->attrs[a];
      gboolean list = spec->type == EP_ATTR_AXES || spec->type == EP_ATTR_SHAPE
                      || spec->type == EP_ATTR_INTS;

      g_assert_nonnull (spec->name);
      for (guint b = 0; b < a; b++)
        g_assert_cmpstr (op->attrs[b].name, !=, spec->name);
      g_assert_true ((spec->type == EP_ATTR_ENUM) == (spec->enum_type != NULL));
      if (spec->offset == EP_ATTR_NO_FIELD)
        {
          g_assert_false (primitive);
          continue;
        }
      g_assert_cmpint (spec->offset, >=, 0);
      g_assert_cmpint (spec->offset, <, (gint) sizeof (EpOpAttrs));
      if (list)
        {
          g_assert_cmpuint (spec->capacity, >, 0);
          g_assert_cmpint (spec->length, >, 0);
          g_assert_cmpint (spec->length, <, (gint) sizeof (EpOpAttrs));
        }
    }
}

static void
test_declarations (void)
{
  for (EpOpId id = 0; id < EP_N_OPS; id++)
    check_declaration (ep_op_get (id), TRUE);
  for (guint i = 0; i < G_N_ELEMENTS (composites); i++)
    check_declaration (composites[i], FALSE);
}

static void
test_catalogue_lists_every_op (void)
{
  g_autoptr(GVariant) catalogue = ep_list_ops ();
  g_autoptr(GHashTable) names = g_hash_table_new (g_str_hash, g_str_equal);

  g_assert_true (g_variant_is_of_type (catalogue, G_VARIANT_TYPE ("aa{sv}")));
  g_assert_cmpuint (g_variant_n_children (catalogue), ==, EP_N_OPS + G_N_ELEMENTS (composites));

  for (gsize i = 0; i < g_variant_n_children (catalogue); i++)
    {
      g_autoptr(GVariant) entry = g_variant_get_child_value (catalogue, i);
      const char *name = NULL, *kind = NULL;

      g_assert_true (g_variant_lookup (entry, "name", "&s", &name));
      g_assert_true (g_variant_lookup (entry, "kind", "&s", &kind));
      g_assert_true (g_hash_table_add (names, (gpointer) name));
      g_assert_cmpstr (kind, ==, ep_op_lookup (name) != NULL ? "primitive" : "composite");
    }
}

static void
test_catalogue_topk (void)
{
  g_autoptr(GVariant) catalogue = ep_list_ops ();
  g_autoptr(GVariant) topk = catalogue_entry (catalogue, "topk");
  g_autoptr(GVariant) attrs = NULL;
  g_autoptr(GVariant) sorted = NULL;
  g_autoptr(GVariant) fallback = NULL;
  g_autoptr(GVariant) outputs = NULL;
  const char *text;
  gboolean flag;

  g_assert_nonnull (topk);
  g_assert_true (g_variant_lookup (topk, "family", "&s", &text));
  g_assert_cmpstr (text, ==, "sort");
  g_assert_true (g_variant_lookup (topk, "function", "&s", &text));
  g_assert_cmpstr (text, ==, "ep_tensor_topk");
  g_assert_true (g_variant_lookup (topk, "method", "b", &flag));
  g_assert_true (flag);
  g_assert_true (g_variant_lookup (topk, "differentiable", "b", &flag));
  g_assert_true (flag);

  attrs = g_variant_lookup_value (topk, "attributes", G_VARIANT_TYPE ("aa{sv}"));
  g_assert_cmpuint (g_variant_n_children (attrs), ==, 2);
  sorted = g_variant_get_child_value (attrs, 1);
  g_assert_true (g_variant_lookup (sorted, "name", "&s", &text));
  g_assert_cmpstr (text, ==, "sorted");
  fallback = g_variant_lookup_value (sorted, "default", G_VARIANT_TYPE_BOOLEAN);
  g_assert_nonnull (fallback);
  g_assert_true (g_variant_get_boolean (fallback));

  outputs = g_variant_lookup_value (topk, "outputs", G_VARIANT_TYPE ("aa{sv}"));
  g_assert_cmpuint (g_variant_n_children (outputs), ==, 2);
}

/* Defaults by name: dtypes and enums by their names; internal attributes
 * flagged; an op with no public function has no "function". */
static void
test_catalogue_defaults (void)
{
  g_autoptr(GVariant) catalogue = ep_list_ops ();
  g_autoptr(GVariant) pad = catalogue_entry (catalogue, "pad");
  g_autoptr(GVariant) uniform = catalogue_entry (catalogue, "uniform");
  g_autoptr(GVariant) identity = catalogue_entry (catalogue, "identity");
  g_autoptr(GVariant) pad_attrs = g_variant_lookup_value (pad, "attributes", NULL);
  g_autoptr(GVariant) uniform_attrs = g_variant_lookup_value (uniform, "attributes", NULL);
  g_autoptr(GVariant) mode = g_variant_get_child_value (pad_attrs, 1);
  g_autoptr(GVariant) dtype = g_variant_get_child_value (uniform_attrs, 3);
  g_autoptr(GVariant) seed = g_variant_get_child_value (uniform_attrs, 4);
  const char *text;
  gboolean internal;

  g_assert_true (g_variant_lookup (mode, "default", "&s", &text));
  g_assert_cmpstr (text, ==, "constant");
  g_assert_true (g_variant_lookup (mode, "enum", "&s", &text));
  g_assert_cmpstr (text, ==, "EpPadMode");
  g_assert_true (g_variant_lookup (dtype, "default", "&s", &text));
  g_assert_cmpstr (text, ==, "float32");
  g_assert_true (g_variant_lookup (seed, "internal", "b", &internal));
  g_assert_true (internal);
  g_assert_false (g_variant_lookup (identity, "function", "&s", &text));
}

/* The checks dispatch makes from the schema, before any rule */

static void
test_check_bool_input (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) f = ep_test_new (EP_DTYPE_FLOAT32, EP_SHAPE (2), EP_VALUES (1, 0));
  g_autoptr(EpTensor) b = ep_test_new (EP_DTYPE_BOOL, EP_SHAPE (2), EP_VALUES (1, 0));

  g_assert_null (ep_tensor_logical_and (b, f, &error));
  ep_assert_error (error, EP_ERROR_DTYPE, "logical_and", "float32");
}

static void
test_check_integer_input (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) x = ep_test_new (EP_DTYPE_FLOAT32, EP_SHAPE (3), EP_VALUES (1, 2, 3));
  g_autoptr(EpTensor) indices = ep_test_new (EP_DTYPE_FLOAT64, EP_SHAPE (1), EP_VALUES (0));

  g_assert_null (ep_tensor_take (x, indices, 0, &error));
  ep_assert_error (error, EP_ERROR_DTYPE, "take", "indices must be int32 or int64, not float64");
}

static void
test_check_list_room (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) x = ep_test_new (EP_DTYPE_FLOAT32, EP_SHAPE (1), EP_VALUES (1));
  const gint64 nine[] = { 1, 1, 1, 1, 1, 1, 1, 1, 1 };
  const gint nine_axes[] = { 0, 0, 0, 0, 0, 0, 0, 0, 0 };

  g_assert_null (ep_tensor_tile (x, nine, 9, &error));
  ep_assert_error (error, EP_ERROR_SHAPE, "tile", "9 values given for reps");
  g_clear_error (&error);
  g_assert_null (ep_tensor_sum (x, nine_axes, 9, FALSE, &error));
  ep_assert_error (error, EP_ERROR_AXIS, "sum", "9 axes given");
  g_clear_error (&error);
  g_assert_null (ep_zeros (nine, 9, EP_DTYPE_FLOAT32, &error));
  ep_assert_error (error, EP_ERROR_SHAPE, "zeros", "9 dimensions requested");
}

static void
test_check_enum (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) x = ep_test_new (EP_DTYPE_FLOAT32, EP_SHAPE (2), EP_VALUES (1, 2));

  g_assert_null (ep_tensor_pad (x, EP_SHAPE (1, 1), (EpPadMode) 7, 0, &error));
  ep_assert_error (error, EP_ERROR_INVALID_ARGUMENT, "pad", "7 is not a valid mode");
}

static void
test_check_numbers (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) x = ep_test_new (EP_DTYPE_FLOAT32, EP_SHAPE (3), EP_VALUES (1, 2, 3));
  EpTensor *values = NULL, *indices = NULL;

  g_assert_false (ep_tensor_topk (x, -1, TRUE, &values, &indices, &error));
  ep_assert_error (error, EP_ERROR_INVALID_ARGUMENT, "topk", "k must not be negative (got -1)");
  g_assert_null (values);
  g_clear_error (&error);
  g_assert_null (ep_uniform (EP_SHAPE (2), -INFINITY, 1, EP_DTYPE_FLOAT32, &error));
  ep_assert_error (error, EP_ERROR_INVALID_ARGUMENT, "uniform", "low must be finite");
  g_clear_error (&error);
  g_assert_null (ep_normal (EP_SHAPE (2), 0, -1, EP_DTYPE_FLOAT32, &error));
  ep_assert_error (error, EP_ERROR_INVALID_ARGUMENT, "normal", "stddev must not be negative");
  g_clear_error (&error);
  g_assert_null (ep_normal (EP_SHAPE (2), 0, NAN, EP_DTYPE_FLOAT32, &error));
  ep_assert_error (error, EP_ERROR_INVALID_ARGUMENT, "normal", "stddev must be finite");
}

/* Attributes by name */

static EpTensor *
dispatch_named (const EpOpDef *op,
                EpTensor      *input,
                const char    *text,
                GError       **error)
{
  g_autoptr(GVariant) values = g_variant_parse (G_VARIANT_TYPE_VARDICT, text, NULL, NULL, NULL);
  EpOpAttrs attrs;

  g_assert_nonnull (values);
  if (!ep_op_attrs_set_from_variant (&attrs, op, values, error))
    return NULL;

  return ep_dispatch1 (op, input != NULL ? &input : NULL, input != NULL ? 1 : 0, &attrs, error);
}

static void
test_attrs_by_name (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) x = ep_test_new (EP_DTYPE_FLOAT32, EP_SHAPE (2, 3), EP_VALUES (1, 2, 3, 4, 5, 6));
  g_autoptr(EpTensor) sum = dispatch_named (&ep_op_sum, x, "{'axes': <[-1]>, 'keepdims': <true>}", &error);
  g_autoptr(EpTensor) all = dispatch_named (&ep_op_sum, x, "@a{sv} {}", &error);
  g_autoptr(EpTensor) eye = dispatch_named (&ep_op_eye, NULL, "{'n': <2>, 'm': <3>, 'k': <1>, 'dtype': <'int32'>}", &error);
  g_autoptr(EpTensor) padded = dispatch_named (&ep_op_pad, x, "{'paddings': <[0, 0, 1, 0]>, 'mode': <'reflect'>}", &error);

  g_assert_no_error (error);
  ep_assert_values (sum, EP_DTYPE_FLOAT32, EP_SHAPE (2, 1), EP_VALUES (6, 15));
  ep_assert_values (all, EP_DTYPE_FLOAT32, EP_SCALAR, EP_VALUES (21));
  ep_assert_values (eye, EP_DTYPE_INT32, EP_SHAPE (2, 3), EP_VALUES (0, 1, 0, 0, 0, 1));
  ep_assert_values (padded, EP_DTYPE_FLOAT32, EP_SHAPE (2, 4), EP_VALUES (2, 1, 2, 3, 5, 4, 5, 6));
}

static void
test_attrs_by_name_errors (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) x = ep_test_new (EP_DTYPE_FLOAT32, EP_SHAPE (2), EP_VALUES (1, 2));

  g_assert_null (dispatch_named (&ep_op_sum, x, "{'axis': <0>}", &error));
  ep_assert_error (error, EP_ERROR_INVALID_ARGUMENT, "sum", "no attribute named axis");
  g_clear_error (&error);
  g_assert_null (dispatch_named (&ep_op_sum, x, "{'keepdims': <'yes'>}", &error));
  ep_assert_error (error, EP_ERROR_INVALID_ARGUMENT, "sum", "'yes' is not a valid keepdims");
  g_clear_error (&error);
  g_assert_null (dispatch_named (&ep_op_pad, x, "{'paddings': <[1, 1]>, 'mode': <'wrap'>}", &error));
  ep_assert_error (error, EP_ERROR_INVALID_ARGUMENT, "pad", "'wrap' is not a valid mode");
  g_clear_error (&error);
  g_assert_null (dispatch_named (&ep_op_full, NULL, "{'shape': <[2]>, 'value': <1.0>, 'dtype': <'complex64'>}", &error));
  ep_assert_error (error, EP_ERROR_INVALID_ARGUMENT, "full", "'complex64' is not a valid dtype");
}

/* Defaults come from the schema: sort along the last axis, topk sorted */
static void
test_attrs_defaults (void)
{
  EpOpAttrs attrs;

  ep_op_attrs_init_defaults (&attrs, &ep_op_sort);
  g_assert_false (attrs.all_axes);
  g_assert_cmpint (attrs.axes[0], ==, -1);
  ep_op_attrs_init_defaults (&attrs, &ep_op_topk);
  g_assert_true (attrs.topk.sorted);
  ep_op_attrs_init_defaults (&attrs, &ep_op_cumsum);
  g_assert_true (attrs.all_axes);
  ep_op_attrs_init_defaults (&attrs, &ep_op_linspace);
  g_assert_cmpint (attrs.linspace.num, ==, 50);
  g_assert_true (attrs.linspace.endpoint);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/schema/declarations", test_declarations);
  g_test_add_func ("/schema/catalogue/every-op", test_catalogue_lists_every_op);
  g_test_add_func ("/schema/catalogue/topk", test_catalogue_topk);
  g_test_add_func ("/schema/catalogue/defaults", test_catalogue_defaults);
  g_test_add_func ("/schema/check/bool-input", test_check_bool_input);
  g_test_add_func ("/schema/check/integer-input", test_check_integer_input);
  g_test_add_func ("/schema/check/list-room", test_check_list_room);
  g_test_add_func ("/schema/check/enum", test_check_enum);
  g_test_add_func ("/schema/check/numbers", test_check_numbers);
  g_test_add_func ("/schema/attrs/by-name", test_attrs_by_name);
  g_test_add_func ("/schema/attrs/by-name-errors", test_attrs_by_name_errors);
  g_test_add_func ("/schema/attrs/defaults", test_attrs_defaults);

  return g_test_run ();
}
