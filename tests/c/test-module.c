/* test-module.c: EpModule (names, paths, order, training, calls) and the
 * layers (EpLinear, EpConv2d, the pooling and normalisation layers,
 * EpDropout, EpEmbedding, the activations, EpFlatten, EpSequential) from C. PyTorch
 * comparisons and Python subclasses are in tests/python/test_module.py.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "ep-test-util.h"

#include <gio/gio.h>

static EpModule *
linear (gint64   in,
        gint64   out,
        gboolean bias)
{
  g_autoptr(GError) error = NULL;
  EpModule *layer = ep_linear_new (in, out, bias, &error);

  g_assert_no_error (error);
  g_assert_true (EP_IS_LINEAR (layer));
  return layer;
}

static void
append (EpModule *seq,
        EpModule *module)
{
  g_autoptr(GError) error = NULL;

  g_assert_true (ep_sequential_append (EP_SEQUENTIAL (seq), module, &error));
  g_assert_no_error (error);
}

static void
add_module (EpModule   *parent,
            const char *name,
            EpModule   *child)
{
  g_autoptr(GError) error = NULL;

  g_assert_true (ep_module_add_module (parent, name, child, &error));
  g_assert_no_error (error);
}

static void
set_value (EpVariable    *variable,
           const gdouble *values,
           gsize          n)
{
  g_autoptr(GError) error = NULL;
  guint ndim;
  const gint64 *shape = ep_variable_get_shape (variable, &ndim);
  g_autoptr(EpTensor) value = ep_test_new (ep_variable_get_dtype (variable), shape, ndim, values, n);

  g_assert_true (ep_variable_assign (variable, value, &error));
  g_assert_no_error (error);
}

/* @a and @b have the same elements, to 1e-6 relative */
static void
assert_same_values (EpTensor *a,
                    EpTensor *b)
{
  gsize n;
  g_autofree gdouble *values = ep_test_get_values (b, &n);

  ep_test_assert_close (a, values, n);
}

static EpTensor *
call (EpModule *module,
      EpTensor *x)
{
  g_autoptr(GError) error = NULL;
  EpTensor *y = ep_module_call (module, x, &error);

  g_assert_no_error (error);
  g_assert_nonnull (y);
  return y;
}

/* The tree root { a (state), enc: Sequential (Linear, Relu, Linear),
 * head: Linear without bias } */
static EpModule *
make_tree (void)
{
  g_autoptr(GError) error = NULL;
  EpModule *root = ep_module_new ();
  g_autoptr(EpModule) enc = ep_sequential_new ();
  g_autoptr(EpModule) l0 = linear (3, 4, TRUE);
  g_autoptr(EpModule) relu = ep_relu_new ();
  g_autoptr(EpModule) l2 = linear (4, 2, TRUE);
  g_autoptr(EpModule) head = linear (2, 1, FALSE);
  g_autoptr(EpTensor) zeros = ep_test_vector (EP_VALUES (0, 0), EP_DTYPE_FLOAT32);

  g_assert_nonnull (ep_module_create_variable (root, "a", zeros, FALSE, &error));
  g_assert_no_error (error);
  append (enc, l0);
  append (enc, relu);
  append (enc, l2);
  add_module (root, "enc", enc);
  add_module (root, "head", head);
  return root;
}

static void
assert_paths (char              **paths,
              GPtrArray          *variables,
              const char *const  *expected)
{
  g_assert_cmpuint (g_strv_length (paths), ==, g_strv_length ((char **) expected));
  g_assert_cmpuint (variables->len, ==, g_strv_length (paths));
  for (guint i = 0; expected[i] != NULL; i++)
    g_assert_cmpstr (paths[i], ==, expected[i]);
}

static void
test_paths_in_order (void)
{
  g_autoptr(EpModule) root = make_tree ();
  g_auto(GStrv) paths = NULL;
  g_auto(GStrv) trainable_paths = NULL;
  g_autoptr(GPtrArray) all = ep_module_get_variables (root, &paths);
  g_autoptr(GPtrArray) trainable = ep_module_get_trainable_variables (root, &trainable_paths);
  const char *const expected[] = { "a", "enc.0.weight", "enc.0.bias", "enc.2.weight", "enc.2.bias",
                                   "head.weight", NULL };

  assert_paths (paths, all, expected);
  assert_paths (trainable_paths, trainable, expected + 1);
  for (guint i = 0; i < all->len; i++)
    g_assert_true (g_ptr_array_index (all, i) == ep_module_get_variable (root, paths[i]));
}

static void
test_lookup (void)
{
  g_autoptr(EpModule) root = make_tree ();
  EpModule *l2 = ep_module_get_module (root, "enc.2");
  g_autoptr(GPtrArray) children = NULL;
  g_auto(GStrv) names = NULL;

  g_assert_true (EP_IS_LINEAR (l2));
  g_assert_true (ep_module_get_variable (root, "enc.2.bias") == ep_linear_get_bias (EP_LINEAR (l2)));
  g_assert_null (ep_module_get_variable (root, "enc.2"));        /* a module */
  g_assert_null (ep_module_get_module (root, "a"));              /* a variable */
  g_assert_null (ep_module_get_variable (root, "a.b"));          /* through a variable */
  g_assert_null (ep_module_get_variable (root, "enc.7.weight"));
  g_assert_null (ep_module_get_variable (root, ""));
  children = ep_module_get_children (root, &names);
  g_assert_cmpuint (children->len, ==, 2);
  g_assert_cmpstr (names[0], ==, "enc");
  g_assert_cmpstr (names[1], ==, "head");
  g_assert_null (names[2]);
  g_assert_cmpuint (ep_sequential_get_length (EP_SEQUENTIAL (ep_module_get_module (root, "enc"))), ==, 3);
  g_assert_true (ep_sequential_get (EP_SEQUENTIAL (ep_module_get_module (root, "enc")), 2) == l2);
  g_assert_null (ep_sequential_get (EP_SEQUENTIAL (ep_module_get_module (root, "enc")), 3));
}

static void
test_own_variables (void)
{
  g_autoptr(EpModule) layer = linear (2, 3, TRUE);
  g_auto(GStrv) names = NULL;
  g_autoptr(GPtrArray) own = ep_module_get_own_variables (layer, &names);

  g_assert_cmpuint (own->len, ==, 2);
  g_assert_cmpstr (names[0], ==, "weight");
  g_assert_cmpstr (names[1], ==, "bias");
  g_assert_true (g_ptr_array_index (own, 0) == ep_linear_get_weight (EP_LINEAR (layer)));
  g_assert_cmpstr (ep_variable_get_name (g_ptr_array_index (own, 0)), ==, "weight");
  g_assert_true (ep_variable_get_trainable (g_ptr_array_index (own, 1)));
}

static void
test_bad_names (void)
{
  g_autoptr(EpModule) root = make_tree ();
  g_autoptr(EpModule) other = ep_relu_new ();
  g_autoptr(EpTensor) zero = ep_test_vector (EP_VALUES (0), EP_DTYPE_FLOAT32);
  g_autoptr(EpVariable) v = ep_variable_new (zero, "v");
  g_autoptr(GPtrArray) all = NULL;
  struct { const char *name; const char *fragment; } cases[] = {
    { "", "must not be empty" },
    { "x.y", "has a dot" },
    { "enc", "named “enc” already" },      /* a module's name */
    { "a", "named “a” already" },          /* a variable's name */
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(GError) e1 = NULL;
      g_autoptr(GError) e2 = NULL;
      g_autoptr(GError) e3 = NULL;

      g_assert_false (ep_module_add_variable (root, cases[i].name, v, &e1));
      ep_assert_error (e1, EP_ERROR_INVALID_ARGUMENT, "add_variable", cases[i].fragment);
      g_assert_false (ep_module_add_module (root, cases[i].name, other, &e2));
      ep_assert_error (e2, EP_ERROR_INVALID_ARGUMENT, "add_module", cases[i].fragment);
      g_assert_null (ep_module_create_variable (root, cases[i].name, zero, TRUE, &e3));
      ep_assert_error (e3, EP_ERROR_INVALID_ARGUMENT, "create_variable", cases[i].fragment);
    }
  /* nothing was registered */
  all = ep_module_get_variables (root, NULL);
  g_assert_cmpuint (all->len, ==, 6);
}

static void
test_released_initial_value (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpModule) module = ep_module_new ();
  g_autoptr(EpTensor) zero = ep_test_vector (EP_VALUES (0), EP_DTYPE_FLOAT32);

  ep_tensor_release (zero);
  g_assert_null (ep_module_create_variable (module, "w", zero, TRUE, &error));
  ep_assert_error (error, EP_ERROR_INVALID_ARGUMENT, "create_variable", NULL);
  g_assert_null (ep_module_get_variable (module, "w"));
}

static void
test_cycles_refused (void)
{
  g_autoptr(EpModule) root = make_tree ();
  EpModule *enc = ep_module_get_module (root, "enc");
  g_autoptr(GError) e1 = NULL;
  g_autoptr(GError) e2 = NULL;

  g_assert_false (ep_module_add_module (root, "self", root, &e1));
  ep_assert_error (e1, EP_ERROR_INVALID_ARGUMENT, "add_module", "the module itself");
  g_assert_false (ep_sequential_append (EP_SEQUENTIAL (enc), root, &e2));
  ep_assert_error (e2, EP_ERROR_INVALID_ARGUMENT, "append", "contains the module");
  g_assert_cmpuint (ep_sequential_get_length (EP_SEQUENTIAL (enc)), ==, 3);
}

static void
test_shared_child_listed_once (void)
{
  g_autoptr(EpModule) root = ep_module_new ();
  g_autoptr(EpModule) a = ep_module_new ();
  g_autoptr(EpModule) b = ep_module_new ();
  g_autoptr(EpModule) shared = linear (2, 2, TRUE);
  g_auto(GStrv) paths = NULL;
  g_autoptr(GPtrArray) all = NULL;
  const char *const expected[] = { "a.shared.weight", "a.shared.bias", NULL };

  add_module (a, "shared", shared);
  add_module (b, "shared", shared);
  add_module (root, "a", a);
  add_module (root, "b", b);
  all = ep_module_get_variables (root, &paths);
  assert_paths (paths, all, expected);
  g_assert_true (ep_module_get_variable (root, "b.shared.bias") == g_ptr_array_index (all, 1));
}

static void
test_parents_hold_children (void)
{
  EpModule *root = make_tree ();
  EpModule *head = g_object_ref (ep_module_get_module (root, "head"));

  g_assert_finalize_object (root);
  g_assert_finalize_object (head);
}

static void
count_notify (GObject    *object,
              GParamSpec *pspec,
              gpointer    user_data)
{
  (*(guint *) user_data)++;
}

static void
test_training_recurses (void)
{
  g_autoptr(EpModule) root = make_tree ();
  EpModule *relu = ep_module_get_module (root, "enc.1");
  guint notified = 0;

  g_assert_true (ep_module_get_training (relu));
  g_signal_connect (relu, "notify::training", G_CALLBACK (count_notify), &notified);
  ep_module_set_training (root, FALSE);
  g_assert_false (ep_module_get_training (root));
  g_assert_false (ep_module_get_training (relu));
  g_assert_false (ep_module_get_training (ep_module_get_module (root, "head")));
  g_assert_cmpuint (notified, ==, 1);
  ep_module_set_training (root, FALSE);
  g_assert_cmpuint (notified, ==, 1);
  g_object_set (root, "training", TRUE, NULL);
  g_assert_true (ep_module_get_training (relu));
  g_assert_cmpuint (notified, ==, 2);
}

static void
test_container_has_no_call (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpModule) module = ep_module_new ();
  g_autoptr(EpTensor) x = ep_test_vector (EP_VALUES (1), EP_DTYPE_FLOAT32);
  g_autoptr(EpTensor) y = ep_module_call (module, x, &error);

  ep_test_assert_failed (y, error, EP_ERROR_INVALID_ARGUMENT, "call");
  g_assert_nonnull (strstr (error->message, "EpModule has no call"));
}

static void
test_linear_values (void)
{
  g_autoptr(EpModule) layer = linear (3, 2, TRUE);
  g_autoptr(EpTensor) x = ep_test_matrix (EP_DOUBLES (1, 2, 3, -1, 0, 1), 2, 3, EP_DTYPE_FLOAT32);
  g_autoptr(EpTensor) y = NULL;

  set_value (ep_linear_get_weight (EP_LINEAR (layer)), EP_VALUES (1, 0, 2, 0, -1, 1));
  set_value (ep_linear_get_bias (EP_LINEAR (layer)), EP_VALUES (0.5, -0.5));
  y = call (layer, x);
  /* x Wᵀ + b: rows (1+6, -2+3) + b and (-1+2, 0+1) + b */
  ep_assert_values (y, EP_DTYPE_FLOAT32, EP_SHAPE (2, 2), EP_VALUES (7.5, 0.5, 1.5, 0.5));
}

static void
test_linear_batched_and_no_bias (void)
{
  g_autoptr(EpModule) layer = linear (2, 1, FALSE);
  const gint64 shape[3] = { 2, 1, 2 };
  g_autoptr(EpTensor) x = ep_test_new (EP_DTYPE_FLOAT32, shape, 3, EP_VALUES (1, 2, 3, 4));
  g_autoptr(EpTensor) y = NULL;
  g_auto(GStrv) paths = NULL;
  g_autoptr(GPtrArray) all = ep_module_get_variables (layer, &paths);

  g_assert_null (ep_linear_get_bias (EP_LINEAR (layer)));
  g_assert_cmpuint (all->len, ==, 1);
  set_value (ep_linear_get_weight (EP_LINEAR (layer)), EP_VALUES (10, 1));
  y = call (layer, x);
  ep_assert_values (y, EP_DTYPE_FLOAT32, EP_SHAPE (2, 1, 1), EP_VALUES (12, 34));
}

static void
test_linear_initialization (void)
{
  g_autoptr(EpModule) a = NULL;
  g_autoptr(EpModule) b = NULL;
  g_autoptr(EpModule) c = NULL;
  g_autoptr(EpTensor) wa = NULL;
  g_autoptr(EpTensor) wb = NULL;
  g_autoptr(EpTensor) wc = NULL;
  g_autoptr(EpTensor) ba = NULL;
  g_autoptr(GError) error = NULL;
  const gint64 in = 400, out = 50;
  gdouble bound = 1.0 / sqrt ((gdouble) in);
  gsize n;
  g_autofree gdouble *values = NULL;
  gdouble max = 0, sum = 0, sum2 = 0;

  ep_set_seed (7);
  a = linear (in, out, TRUE);
  ep_set_seed (7);
  b = linear (in, out, TRUE);
  c = linear (in, out, TRUE);
  wa = ep_variable_read (ep_linear_get_weight (EP_LINEAR (a)));
  wb = ep_variable_read (ep_linear_get_weight (EP_LINEAR (b)));
  wc = ep_variable_read (ep_linear_get_weight (EP_LINEAR (c)));
  ba = ep_variable_read (ep_linear_get_bias (EP_LINEAR (a)));
  ep_assert_shape (wa, EP_SHAPE (out, in));
  ep_assert_shape (ba, EP_SHAPE (out));
  values = ep_test_get_values (wa, &n);
  assert_same_values (wb, wa);
  for (gsize i = 0; i < n; i++)
    {
      max = MAX (max, fabs (values[i]));
      sum += values[i];
      sum2 += (gdouble) values[i] * values[i];
    }
  /* U(-1/√in, 1/√in): within the bound, mean 0, variance bound² / 3 */
  g_assert_cmpfloat (max, <=, bound);
  g_assert_cmpfloat (max, >, 0.99 * bound);
  g_assert_cmpfloat (fabs (sum / n), <, 0.01 * bound);
  g_assert_cmpfloat_with_epsilon (sum2 / n, bound * bound / 3, 0.05 * bound * bound / 3);
  /* the next draw differs */
  {
    g_autoptr(EpTensor) diff = ep_tensor_sub (wa, wc, &error);
    g_autoptr(EpTensor) total = ep_tensor_sum (diff, NULL, 0, FALSE, &error);
    g_autoptr(EpTensor) absolute = ep_tensor_abs (diff, &error);
    g_autoptr(EpTensor) largest = ep_tensor_max (absolute, NULL, 0, FALSE, &error);

    g_assert_no_error (error);
    g_assert_cmpfloat (ep_tensor_item_double (largest, &error), >, 0.1 * bound);
  }
}

static void
test_linear_float64_and_zero_inputs (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpModule) layer = g_initable_new (EP_TYPE_LINEAR, NULL, &error, "in-features", (gint64) 2,
                                              "out-features", (gint64) 3, "dtype", EP_DTYPE_FLOAT64, NULL);
  g_autoptr(EpModule) empty = linear (0, 2, TRUE);
  g_autoptr(EpTensor) x = ep_test_matrix (EP_DOUBLES (1, 2), 1, 2, EP_DTYPE_FLOAT64);
  g_autoptr(EpTensor) y = NULL;
  g_autoptr(EpTensor) none = ep_zeros (EP_SHAPE (4, 0), EP_DTYPE_FLOAT32, &error);
  g_autoptr(EpTensor) z = NULL;
  gint64 in_features;

  g_assert_no_error (error);
  g_assert_cmpint (ep_variable_get_dtype (ep_linear_get_weight (EP_LINEAR (layer))), ==, EP_DTYPE_FLOAT64);
  g_object_get (layer, "in-features", &in_features, NULL);
  g_assert_cmpint (in_features, ==, 2);
  g_assert_cmpint (ep_linear_get_out_features (EP_LINEAR (layer)), ==, 3);
  y = call (layer, x);
  g_assert_cmpint (ep_tensor_get_dtype (y), ==, EP_DTYPE_FLOAT64);
  ep_assert_shape (y, EP_SHAPE (1, 3));
  /* no input features: the weight is empty and the bias zeros (bound 0),
   * so the output is zeros */
  z = call (empty, none);
  ep_assert_values (z, EP_DTYPE_FLOAT32, EP_SHAPE (4, 2), EP_VALUES (0, 0, 0, 0, 0, 0, 0, 0));
}

static void
test_linear_bad_construction (void)
{
  struct {
    gint64 in, out;
    EpDType dtype;
    gint code;
  } cases[] = {
    { -1, 2, EP_DTYPE_FLOAT32, EP_ERROR_SHAPE },
    { 2, G_MININT64, EP_DTYPE_FLOAT32, EP_ERROR_SHAPE },
    { 2, 2, EP_DTYPE_INT32, EP_ERROR_DTYPE },
    { G_GINT64_CONSTANT (1) << 20, G_GINT64_CONSTANT (1) << 20, EP_DTYPE_FLOAT32, EP_ERROR_OUT_OF_MEMORY },
    { G_MAXINT64, G_MAXINT64, EP_DTYPE_FLOAT32, -1 },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(GError) call_error = NULL;
      g_autoptr(EpTensor) x = ep_test_matrix (EP_DOUBLES (1, 2), 1, 2, EP_DTYPE_FLOAT32);
      g_autoptr(EpModule) made = g_initable_new (EP_TYPE_LINEAR, NULL, &error,
                                                 "in-features", cases[i].in, "out-features", cases[i].out,
                                                 "dtype", cases[i].dtype, NULL);
      g_autoptr(EpModule) bare = g_object_new (EP_TYPE_LINEAR, "in-features", cases[i].in,
                                               "out-features", cases[i].out, "dtype", cases[i].dtype, NULL);
      g_autoptr(EpTensor) y = NULL;

      g_assert_null (made);
      g_assert_nonnull (error);
      g_assert_true (g_str_has_prefix (error->message, "Linear: "));
      if (cases[i].code >= 0)
        g_assert_error (error, EP_ERROR, cases[i].code);
      /* made without g_initable_init: its calls give the error */
      y = ep_module_call (bare, x, &call_error);
      g_assert_null (y);
      g_assert_error (call_error, error->domain, error->code);
      g_assert_cmpstr (call_error->message, ==, error->message);
      g_assert_null (ep_linear_get_weight (EP_LINEAR (bare)));
    }
}

static void
test_linear_bad_inputs (void)
{
  g_autoptr(EpModule) layer = linear (3, 2, TRUE);
  g_autoptr(EpTensor) scalar = ep_tensor_new_scalar (1, EP_DTYPE_FLOAT32, NULL);
  g_autoptr(EpTensor) wrong = ep_test_matrix (EP_DOUBLES (1, 2, 3, 4), 2, 2, EP_DTYPE_FLOAT32);
  g_autoptr(EpTensor) released = ep_test_matrix (EP_DOUBLES (1, 2, 3), 1, 3, EP_DTYPE_FLOAT32);
  g_autoptr(GError) e1 = NULL;
  g_autoptr(GError) e2 = NULL;
  g_autoptr(GError) e3 = NULL;
  g_autoptr(EpTensor) y1 = ep_module_call (layer, scalar, &e1);
  g_autoptr(EpTensor) y2 = ep_module_call (layer, wrong, &e2);
  g_autoptr(EpTensor) y3 = NULL;

  ep_test_assert_failed (y1, e1, EP_ERROR_SHAPE, "Linear");
  g_assert_nonnull (strstr (e1->message, "(…, 3), not ()"));
  ep_test_assert_failed (y2, e2, EP_ERROR_SHAPE, "Linear");
  g_assert_nonnull (strstr (e2->message, "not (2, 2)"));
  ep_tensor_release (released);
  y3 = ep_module_call (layer, released, &e3);
  g_assert_null (y3);
  g_assert_error (e3, EP_ERROR, EP_ERROR_INVALID_ARGUMENT);
}

static void
test_bare_objects (void)
{
  GType types[] = { EP_TYPE_MODULE, EP_TYPE_LINEAR, EP_TYPE_RELU, EP_TYPE_TANH, EP_TYPE_SEQUENTIAL,
                    EP_TYPE_GELU, EP_TYPE_FLATTEN, EP_TYPE_DROPOUT };
  g_autoptr(EpTensor) x = ep_test_matrix (EP_DOUBLES (1, 2), 1, 2, EP_DTYPE_FLOAT32);

  for (guint i = 0; i < G_N_ELEMENTS (types); i++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(EpModule) bare = g_object_new (types[i], NULL);
      g_autoptr(EpTensor) y = ep_module_call (bare, x, &error);
      g_autoptr(GPtrArray) all = ep_module_get_variables (bare, NULL);

      /* a container and a Linear (0, 0) refuse; the others compute */
      if (types[i] == EP_TYPE_MODULE || types[i] == EP_TYPE_LINEAR)
        g_assert_null (y);
      else
        ep_assert_shape (y, EP_SHAPE (1, 2));
      g_assert_cmpuint (all->len, ==, types[i] == EP_TYPE_LINEAR ? 2 : 0);
    }
}

/* A layer made by g_initable_new() from @first_property and the rest, with
 * no error */
static EpModule *
layer (GType       type,
       const char *first_property,
       ...)
{
  g_autoptr(GError) error = NULL;
  va_list args;
  GObject *made;

  va_start (args, first_property);
  made = g_initable_new_valist (type, first_property, args, NULL, &error);
  va_end (args);
  g_assert_no_error (error);
  g_assert_nonnull (made);
  return EP_MODULE (made);
}

/* Construction failed with @code and a message starting with @name; a
 * bare object made with g_object_new() and the same properties gives the
 * same error at each call. */
static void
assert_bad_construction (gint        code,
                         const char *name,
                         GType       type,
                         const char *first_property,
                         ...)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GError) call_error = NULL;
  g_autoptr(EpTensor) x = ep_test_new (EP_DTYPE_FLOAT32, EP_SHAPE (1, 1, 4, 4),
                                       EP_VALUES (1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16));
  g_autoptr(EpTensor) y = NULL;
  g_autoptr(GObject) bare = NULL;
  GObject *made;
  va_list args;

  va_start (args, first_property);
  made = g_initable_new_valist (type, first_property, args, NULL, &error);
  va_end (args);
  g_assert_null (made);
  g_assert_error (error, EP_ERROR, code);
  g_assert_true (g_str_has_prefix (error->message, name));

  va_start (args, first_property);
  bare = g_object_new_valist (type, first_property, args);
  va_end (args);
  y = ep_module_call (EP_MODULE (bare), x, &call_error);
  g_assert_null (y);
  g_assert_error (call_error, EP_ERROR, code);
  g_assert_cmpstr (call_error->message, ==, error->message);
}

static void
assert_call_fails (EpModule   *module,
                   EpTensor   *x,
                   gint        code,
                   const char *fragment)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) y = ep_module_call (module, x, &error);

  g_assert_null (y);
  g_assert_error (error, EP_ERROR, code);
  if (strstr (error->message, fragment) == NULL)
    g_error ("\"%s\" does not contain \"%s\"", error->message, fragment);
}

static void
test_conv2d_values (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpModule) conv = NULL;
  g_autoptr(EpModule) channels_last = NULL;
  g_autoptr(EpTensor) x = ep_test_new (EP_DTYPE_FLOAT32, EP_SHAPE (1, 1, 3, 3),
                                       EP_VALUES (1, 2, 3, 4, 5, 6, 7, 8, 9));
  g_autoptr(EpTensor) x_last = ep_test_new (EP_DTYPE_FLOAT32, EP_SHAPE (1, 3, 3, 1),
                                            EP_VALUES (1, 2, 3, 4, 5, 6, 7, 8, 9));
  g_autoptr(EpTensor) y = NULL;
  g_autoptr(EpTensor) y_last = NULL;
  gint64 bound_check;

  conv = ep_conv2d_layer_new (1, 2, 2, 2, &error);
  g_assert_no_error (error);
  channels_last = layer (EP_TYPE_CONV2D, "in-channels", (gint64) 1, "out-channels", (gint64) 2,
                         "kernel-height", (gint64) 2, "kernel-width", (gint64) 2,
                         "data-format", EP_DATA_FORMAT_NHWC, NULL);
  for (guint i = 0; i < 2; i++)
    {
      EpConv2d *c = EP_CONV2D (i == 0 ? conv : channels_last);

      /* channel 0 sums the window, channel 1 takes its top left */
      set_value (ep_conv2d_layer_get_weight (c), EP_VALUES (1, 1, 1, 1, 1, 0, 0, 0));
      set_value (ep_conv2d_layer_get_bias (c), EP_VALUES (0.5, -1));
    }
  y = call (conv, x);
  ep_assert_values (y, EP_DTYPE_FLOAT32, EP_SHAPE (1, 2, 2, 2),
                    EP_VALUES (12.5, 16.5, 24.5, 28.5, 0, 1, 3, 4));
  /* NHWC: the bias along the last axis */
  y_last = call (channels_last, x_last);
  ep_assert_values (y_last, EP_DTYPE_FLOAT32, EP_SHAPE (1, 2, 2, 2),
                    EP_VALUES (12.5, 0, 16.5, 1, 24.5, 3, 28.5, 4));
  g_object_get (conv, "stride-height", &bound_check, NULL);
  g_assert_cmpint (bound_check, ==, 1);
}

static void
test_conv2d_initialization (void)
{
  g_autoptr(EpModule) a = NULL;
  g_autoptr(EpModule) b = NULL;
  g_autoptr(EpTensor) wa = NULL;
  g_autoptr(EpTensor) wb = NULL;
  g_autofree gdouble *values = NULL;
  gdouble bound = 1.0 / sqrt (4.0 * 3 * 3), max = 0;
  gsize n;

  ep_set_seed (3);
  a = layer (EP_TYPE_CONV2D, "in-channels", (gint64) 8, "out-channels", (gint64) 16,
             "kernel-height", (gint64) 3, "kernel-width", (gint64) 3, "groups", (gint64) 2, NULL);
  ep_set_seed (3);
  b = layer (EP_TYPE_CONV2D, "in-channels", (gint64) 8, "out-channels", (gint64) 16,
             "kernel-height", (gint64) 3, "kernel-width", (gint64) 3, "groups", (gint64) 2, NULL);
  wa = ep_variable_read (ep_conv2d_layer_get_weight (EP_CONV2D (a)));
  wb = ep_variable_read (ep_conv2d_layer_get_weight (EP_CONV2D (b)));
  ep_assert_shape (wa, EP_SHAPE (16, 4, 3, 3));
  assert_same_values (wb, wa);
  values = ep_test_get_values (wa, &n);
  for (gsize i = 0; i < n; i++)
    max = MAX (max, fabs (values[i]));
  /* U(-1/√fan_in, 1/√fan_in) with fan_in = 8 / 2 × 3 × 3 */
  g_assert_cmpfloat (max, <=, bound);
  g_assert_cmpfloat (max, >, 0.95 * bound);
}

static void
test_conv2d_errors (void)
{
  g_autoptr(EpModule) conv = ep_conv2d_layer_new (2, 2, 3, 3, NULL);
  g_autoptr(EpTensor) rank3 = ep_zeros (EP_SHAPE (2, 4, 4), EP_DTYPE_FLOAT32, NULL);
  g_autoptr(EpTensor) channels = ep_zeros (EP_SHAPE (1, 3, 4, 4), EP_DTYPE_FLOAT32, NULL);
  g_autoptr(EpTensor) small = ep_zeros (EP_SHAPE (1, 2, 2, 2), EP_DTYPE_FLOAT32, NULL);

  assert_bad_construction (EP_ERROR_SHAPE, "Conv2d: ", EP_TYPE_CONV2D, "in-channels", (gint64) 0, NULL);
  assert_bad_construction (EP_ERROR_SHAPE, "Conv2d: ", EP_TYPE_CONV2D, "out-channels", G_MININT64, NULL);
  assert_bad_construction (EP_ERROR_SHAPE, "Conv2d: ", EP_TYPE_CONV2D, "kernel-width", (gint64) -3, NULL);
  assert_bad_construction (EP_ERROR_INVALID_ARGUMENT, "Conv2d: ", EP_TYPE_CONV2D, "stride-height", (gint64) 0, NULL);
  assert_bad_construction (EP_ERROR_INVALID_ARGUMENT, "Conv2d: ", EP_TYPE_CONV2D, "padding-width", (gint64) -1, NULL);
  assert_bad_construction (EP_ERROR_INVALID_ARGUMENT, "Conv2d: ", EP_TYPE_CONV2D, "dilation-height", (gint64) 0, NULL);
  assert_bad_construction (EP_ERROR_INVALID_ARGUMENT, "Conv2d: ", EP_TYPE_CONV2D, "groups", (gint64) 0, NULL);
  assert_bad_construction (EP_ERROR_INVALID_ARGUMENT, "Conv2d: ", EP_TYPE_CONV2D,
                           "in-channels", (gint64) 3, "groups", (gint64) 2, NULL);
  assert_bad_construction (EP_ERROR_DTYPE, "Conv2d: ", EP_TYPE_CONV2D, "dtype", EP_DTYPE_BOOL, NULL);
  assert_bad_construction (EP_ERROR_OUT_OF_MEMORY, "Conv2d: ", EP_TYPE_CONV2D,
                           "in-channels", EP_TERA, "out-channels", EP_TERA, NULL);
  g_assert_nonnull (conv);
  assert_call_fails (conv, rank3, EP_ERROR_SHAPE, "Conv2d: takes images of shape (N, 2, H, W), not (2, 4, 4)");
  assert_call_fails (conv, channels, EP_ERROR_SHAPE, "not (1, 3, 4, 4)");
  assert_call_fails (conv, small, EP_ERROR_SHAPE, "Conv2d: ");
}

static void
test_pooling_values (void)
{
  g_autoptr(EpModule) max_pool = ep_max_pool2d_layer_new (2, 2, NULL);
  g_autoptr(EpModule) avg_pool = ep_avg_pool2d_layer_new (2, 2, NULL);
  g_autoptr(EpModule) padded = layer (EP_TYPE_AVG_POOL2D, "kernel-height", (gint64) 3, "kernel-width", (gint64) 3,
                                      "stride-height", (gint64) 2, "stride-width", (gint64) 2,
                                      "padding-height", (gint64) 1, "padding-width", (gint64) 1,
                                      "count-include-pad", FALSE, NULL);
  g_autoptr(EpTensor) x = ep_test_new (EP_DTYPE_FLOAT32, EP_SHAPE (1, 1, 4, 4),
                                       EP_VALUES (1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16));
  g_autoptr(EpTensor) m = call (max_pool, x);
  g_autoptr(EpTensor) a = call (avg_pool, x);
  g_autoptr(EpTensor) p = call (padded, x);

  ep_assert_values (m, EP_DTYPE_FLOAT32, EP_SHAPE (1, 1, 2, 2), EP_VALUES (6, 8, 14, 16));
  ep_assert_values (a, EP_DTYPE_FLOAT32, EP_SHAPE (1, 1, 2, 2), EP_VALUES (3.5, 5.5, 11.5, 13.5));
  /* windows over rows/columns {0, 1}, {1, 2, 3}, without the padding */
  ep_assert_values (p, EP_DTYPE_FLOAT32, EP_SHAPE (1, 1, 2, 2), EP_VALUES (3.5, 5, 9.5, 11));
}

static void
test_pooling_errors (void)
{
  g_autoptr(EpModule) pool = ep_max_pool2d_layer_new (2, 2, NULL);
  g_autoptr(EpTensor) rank2 = ep_zeros (EP_SHAPE (4, 4), EP_DTYPE_FLOAT32, NULL);
  g_autoptr(EpTensor) ints = ep_zeros (EP_SHAPE (1, 1, 4, 4), EP_DTYPE_INT32, NULL);
  GType types[] = { EP_TYPE_MAX_POOL2D, EP_TYPE_AVG_POOL2D };
  const char *names[] = { "MaxPool2d: ", "AvgPool2d: " };

  for (guint i = 0; i < 2; i++)
    {
      assert_bad_construction (EP_ERROR_INVALID_ARGUMENT, names[i], types[i], "kernel-height", (gint64) 0, NULL);
      assert_bad_construction (EP_ERROR_INVALID_ARGUMENT, names[i], types[i], "kernel-width", G_MININT64, NULL);
      assert_bad_construction (EP_ERROR_INVALID_ARGUMENT, names[i], types[i], "stride-width", (gint64) -1, NULL);
      assert_bad_construction (EP_ERROR_INVALID_ARGUMENT, names[i], types[i],
                               "kernel-height", (gint64) 2, "padding-height", (gint64) 2, NULL);
      assert_bad_construction (EP_ERROR_INVALID_ARGUMENT, names[i], types[i], "padding-width", (gint64) -1, NULL);
    }
  assert_bad_construction (EP_ERROR_INVALID_ARGUMENT, "MaxPool2d: ", EP_TYPE_MAX_POOL2D,
                           "dilation-width", (gint64) 0, NULL);
  /* a huge kernel is the op's error at the call */
  {
    g_autoptr(EpModule) huge = layer (EP_TYPE_MAX_POOL2D, "kernel-height", G_MAXINT64, NULL);
    g_autoptr(EpTensor) x = ep_zeros (EP_SHAPE (1, 1, 4, 4), EP_DTYPE_FLOAT32, NULL);

    assert_call_fails (huge, x, EP_ERROR_INVALID_ARGUMENT, "MaxPool2d: ");
  }
  assert_call_fails (pool, rank2, EP_ERROR_SHAPE, "MaxPool2d: takes images of shape (N, C, H, W), not (4, 4)");
  assert_call_fails (pool, ints, EP_ERROR_DTYPE, "MaxPool2d: ");
}

static void
test_batch_norm_statistics (void)
{
  g_autoptr(EpModule) bn = ep_batch_norm_new (1, NULL);
  g_autoptr(EpTensor) x = ep_test_new (EP_DTYPE_FLOAT32, EP_SHAPE (4, 1), EP_VALUES (1, 2, 3, 4));
  g_autoptr(EpTensor) y = NULL;
  g_autoptr(EpTensor) z = NULL;
  g_autoptr(EpTensor) count = NULL;
  g_autoptr(EpTensor) mean = NULL;
  g_autoptr(EpTensor) var = NULL;
  gdouble s = sqrt (1.25 + 1e-5);

  y = call (bn, x);
  /* the batch's mean 2.5 and biased variance 1.25 */
  ep_assert_values (y, EP_DTYPE_FLOAT32, EP_SHAPE (4, 1),
                    EP_VALUES (-1.5 / s, -0.5 / s, 0.5 / s, 1.5 / s));
  /* running: 0.9 · 0 + 0.1 · 2.5, and 0.9 · 1 + 0.1 · 5/3 (unbiased) */
  mean = ep_variable_read (ep_batch_norm_get_running_mean (EP_BATCH_NORM (bn)));
  var = ep_variable_read (ep_batch_norm_get_running_var (EP_BATCH_NORM (bn)));
  ep_assert_values (mean, EP_DTYPE_FLOAT32, EP_SHAPE (1), EP_VALUES (0.25));
  ep_assert_values (var, EP_DTYPE_FLOAT32, EP_SHAPE (1), EP_VALUES (0.9 + 0.1 * 5.0 / 3.0));
  count = ep_variable_read (ep_module_get_variable (bn, "num_batches_tracked"));
  ep_assert_values (count, EP_DTYPE_INT64, EP_SCALAR, EP_VALUES (1));
  /* evaluation: the running statistics, left as they are */
  ep_module_set_training (bn, FALSE);
  z = call (bn, x);
  {
    gdouble rs = sqrt (0.9 + 0.1 * 5.0 / 3.0 + 1e-5);

    ep_assert_values (z, EP_DTYPE_FLOAT32, EP_SHAPE (4, 1),
                      EP_VALUES (0.75 / rs, 1.75 / rs, 2.75 / rs, 3.75 / rs));
  }
  g_clear_object (&count);
  count = ep_variable_read (ep_module_get_variable (bn, "num_batches_tracked"));
  ep_assert_values (count, EP_DTYPE_INT64, EP_SCALAR, EP_VALUES (1));
}

static void
test_batch_norm_errors (void)
{
  g_autoptr(EpModule) bn = ep_batch_norm_new (2, NULL);
  g_autoptr(EpModule) plain = layer (EP_TYPE_BATCH_NORM, "num-features", (gint64) 2, "affine", FALSE,
                                     "track-running-stats", FALSE, NULL);
  g_autoptr(EpTensor) rank3 = ep_zeros (EP_SHAPE (2, 2, 3), EP_DTYPE_FLOAT32, NULL);
  g_autoptr(EpTensor) wrong = ep_zeros (EP_SHAPE (2, 3), EP_DTYPE_FLOAT32, NULL);
  g_autoptr(EpTensor) single = ep_zeros (EP_SHAPE (1, 2), EP_DTYPE_FLOAT32, NULL);
  g_autoptr(GPtrArray) none = ep_module_get_variables (plain, NULL);

  g_assert_cmpuint (none->len, ==, 0);
  assert_bad_construction (EP_ERROR_SHAPE, "BatchNorm: ", EP_TYPE_BATCH_NORM, "num-features", (gint64) 0, NULL);
  assert_bad_construction (EP_ERROR_INVALID_ARGUMENT, "BatchNorm: ", EP_TYPE_BATCH_NORM, "epsilon", -1.0, NULL);
  assert_bad_construction (EP_ERROR_INVALID_ARGUMENT, "BatchNorm: ", EP_TYPE_BATCH_NORM, "momentum", 2.0, NULL);
  assert_bad_construction (EP_ERROR_DTYPE, "BatchNorm: ", EP_TYPE_BATCH_NORM, "dtype", EP_DTYPE_INT64, NULL);
  assert_bad_construction (EP_ERROR_OUT_OF_MEMORY, "BatchNorm: ", EP_TYPE_BATCH_NORM, "num-features",
                           G_MAXINT64 / 2, NULL);
  assert_call_fails (bn, rank3, EP_ERROR_SHAPE, "BatchNorm: takes inputs of 2 channels");
  assert_call_fails (bn, wrong, EP_ERROR_SHAPE, "not (2, 3)");
  assert_call_fails (bn, single, EP_ERROR_SHAPE, "more than one value per channel");
  assert_call_fails (plain, single, EP_ERROR_SHAPE, "more than one value per channel");
}

static void
test_layer_norm (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpModule) norm = ep_layer_norm_new (EP_DIMS (2), 1, &error);
  g_autoptr(EpModule) plain = layer (EP_TYPE_LAYER_NORM, "normalized-shape",
                                     g_variant_new_fixed_array (G_VARIANT_TYPE_INT64, EP_DIMS (2), 1, sizeof (gint64)),
                                     "elementwise-affine", FALSE, NULL);
  g_autoptr(EpTensor) x = ep_test_new (EP_DTYPE_FLOAT64, EP_SHAPE (2, 2), EP_VALUES (1, 3, 0, 4));
  g_autoptr(EpTensor) wrong = ep_zeros (EP_SHAPE (2, 3), EP_DTYPE_FLOAT32, NULL);
  g_autoptr(EpTensor) y = NULL;
  g_autoptr(EpTensor) z = NULL;
  gdouble a = 1 / sqrt (1 + 1e-5), b = 2 / sqrt (4 + 1e-5);
  guint n;

  g_assert_no_error (error);
  set_value (ep_layer_norm_get_weight (EP_LAYER_NORM (norm)), EP_VALUES (2, 1));
  set_value (ep_layer_norm_get_bias (EP_LAYER_NORM (norm)), EP_VALUES (0, 10));
  y = call (norm, x);
  ep_assert_values (y, EP_DTYPE_FLOAT64, EP_SHAPE (2, 2), EP_VALUES (-2 * a, 10 + a, -2 * b, 10 + b));
  z = call (plain, x);
  ep_assert_values (z, EP_DTYPE_FLOAT64, EP_SHAPE (2, 2), EP_VALUES (-a, a, -b, b));
  g_assert_cmpint (ep_layer_norm_get_normalized_shape (EP_LAYER_NORM (norm), &n)[0], ==, 2);
  g_assert_cmpuint (n, ==, 1);
  assert_call_fails (norm, wrong, EP_ERROR_SHAPE, "LayerNorm: takes inputs whose last dimensions are (2,), not (2, 3)");
  {
    g_autoptr(GError) e1 = NULL;
    g_autoptr(GError) e2 = NULL;
    g_autoptr(EpModule) empty = ep_layer_norm_new (NULL, 0, &e1);
    g_autoptr(EpModule) negative = ep_layer_norm_new (EP_DIMS (2, -1), 2, &e2);

    g_assert_null (empty);
    g_assert_error (e1, EP_ERROR, EP_ERROR_SHAPE);
    g_assert_null (negative);
    g_assert_error (e2, EP_ERROR, EP_ERROR_SHAPE);
  }
  assert_bad_construction (EP_ERROR_SHAPE, "LayerNorm: ", EP_TYPE_LAYER_NORM, NULL, NULL);
  {
    /* held here: both constructions take it */
    g_autoptr(GVariant) shape = g_variant_ref_sink (g_variant_new_fixed_array (G_VARIANT_TYPE_INT64, EP_DIMS (2),
                                                                               1, sizeof (gint64)));

    assert_bad_construction (EP_ERROR_INVALID_ARGUMENT, "LayerNorm: ", EP_TYPE_LAYER_NORM,
                             "normalized-shape", shape, "epsilon", (gdouble) INFINITY, NULL);
  }
}

static void
test_dropout_embedding_gelu_flatten (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpModule) dropout = ep_dropout_new (0.5, &error);
  g_autoptr(EpModule) embedding = ep_embedding_new (3, 2, &error);
  g_autoptr(EpModule) gelu = ep_gelu_new (EP_GELU_APPROXIMATION_TANH);
  g_autoptr(EpModule) flatten = ep_flatten_new ();
  g_autoptr(EpTensor) x = ep_test_new (EP_DTYPE_FLOAT64, EP_SHAPE (2, 1, 2), EP_VALUES (-1, 0, 1, 2));
  g_autoptr(EpTensor) indices = ep_test_new (EP_DTYPE_INT64, EP_SHAPE (3), EP_VALUES (2, 0, 2));
  g_autoptr(EpTensor) bad = ep_test_new (EP_DTYPE_INT64, EP_SHAPE (1), EP_VALUES (3));
  g_autoptr(EpTensor) vector = ep_test_new (EP_DTYPE_FLOAT32, EP_SHAPE (2), EP_VALUES (1, 2));
  g_autoptr(EpTensor) dropped = NULL;
  g_autoptr(EpTensor) kept = NULL;
  g_autoptr(EpTensor) rows = NULL;
  g_autoptr(EpTensor) g = NULL;
  g_autoptr(EpTensor) flat = NULL;
  g_autofree gdouble *values = NULL;
  gsize n;

  g_assert_no_error (error);
  dropped = call (dropout, x);
  values = ep_test_get_values (dropped, &n);
  for (gsize i = 0; i < n; i++)
    g_assert_true (values[i] == 0 || values[i] == 2 * ((gdouble) i - 1));
  ep_module_set_training (dropout, FALSE);
  kept = call (dropout, x);
  assert_same_values (kept, x);
  g_assert_cmpfloat (ep_dropout_get_rate (EP_DROPOUT (dropout)), ==, 0.5);
  assert_bad_construction (EP_ERROR_INVALID_ARGUMENT, "Dropout: ", EP_TYPE_DROPOUT, "rate", 1.5, NULL);

  set_value (ep_embedding_get_weight (EP_EMBEDDING (embedding)), EP_VALUES (1, 2, 3, 4, 5, 6));
  rows = call (embedding, indices);
  ep_assert_values (rows, EP_DTYPE_FLOAT32, EP_SHAPE (3, 2), EP_VALUES (5, 6, 1, 2, 5, 6));
  assert_call_fails (embedding, bad, EP_ERROR_INDEX, "Embedding: ");
  assert_bad_construction (EP_ERROR_SHAPE, "Embedding: ", EP_TYPE_EMBEDDING, "num-embeddings", (gint64) -1, NULL);
  assert_bad_construction (EP_ERROR_DTYPE, "Embedding: ", EP_TYPE_EMBEDDING, "dtype", EP_DTYPE_INT32, NULL);

  g = call (gelu, x);
  {
    gdouble c = sqrt (2 / G_PI);
    #define GELU_TANH(v) (0.5 * (v) * (1 + tanh (c * ((v) + 0.044715 * (v) * (v) * (v)))))
    ep_assert_values (g, EP_DTYPE_FLOAT64, EP_SHAPE (2, 1, 2),
                      EP_VALUES (GELU_TANH (-1.0), 0, GELU_TANH (1.0), GELU_TANH (2.0)));
    #undef GELU_TANH
  }
  flat = call (flatten, x);
  ep_assert_values (flat, EP_DTYPE_FLOAT64, EP_SHAPE (2, 2), EP_VALUES (-1, 0, 1, 2));
  assert_call_fails (flatten, vector, EP_ERROR_AXIS, "Flatten: ");
}

/* The CNN, trained one step with a tape, runs from C. */
static void
test_cnn_sequential (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpModule) model = ep_sequential_new ();
  g_autoptr(EpModule) conv1 = layer (EP_TYPE_CONV2D, "in-channels", (gint64) 1, "out-channels", (gint64) 4,
                                     "kernel-height", (gint64) 3, "kernel-width", (gint64) 3,
                                     "padding-height", (gint64) 1, "padding-width", (gint64) 1, NULL);
  g_autoptr(EpModule) bn = ep_batch_norm_new (4, NULL);
  g_autoptr(EpModule) relu = ep_relu_new ();
  g_autoptr(EpModule) pool = ep_max_pool2d_layer_new (2, 2, NULL);
  g_autoptr(EpModule) flatten = ep_flatten_new ();
  g_autoptr(EpModule) head = linear (16, 3, TRUE);
  g_autoptr(EpTensor) x = ep_ones (EP_SHAPE (2, 1, 4, 4), EP_DTYPE_FLOAT32, NULL);
  g_autoptr(EpTensor) y = NULL;
  g_autoptr(EpTensor) loss = NULL;
  g_autoptr(EpGradientTape) tape = ep_gradient_tape_new (FALSE);
  g_autoptr(GPtrArray) variables = NULL;
  g_autoptr(GPtrArray) grads = NULL;

  append (model, conv1);
  append (model, bn);
  append (model, relu);
  append (model, pool);
  append (model, flatten);
  append (model, head);
  variables = ep_module_get_trainable_variables (model, NULL);
  g_assert_cmpuint (variables->len, ==, 6);
  ep_gradient_tape_start (tape, &error);
  y = call (model, x);
  loss = ep_tensor_sum (y, NULL, 0, FALSE, &error);
  ep_gradient_tape_stop (tape, &error);
  g_assert_no_error (error);
  ep_assert_shape (y, EP_SHAPE (2, 3));
  grads = ep_gradient_tape_gradient (tape, &loss, 1, (GObject **) variables->pdata, variables->len,
                                     NULL, 0, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (grads->len, ==, 6);
}

static void
test_activations (void)
{
  g_autoptr(EpModule) relu = ep_relu_new ();
  g_autoptr(EpModule) tanh_ = ep_tanh_new ();
  g_autoptr(EpTensor) x = ep_test_vector (EP_VALUES (-1, 0, 2), EP_DTYPE_FLOAT64);
  g_autoptr(EpTensor) r = call (relu, x);
  g_autoptr(EpTensor) t = call (tanh_, x);

  ep_assert_values (r, EP_DTYPE_FLOAT64, EP_SHAPE (3), EP_VALUES (0, 0, 2));
  ep_assert_values (t, EP_DTYPE_FLOAT64, EP_SHAPE (3), EP_VALUES (tanh (-1), 0, tanh (2)));
}

static void
test_sequential_runs_in_order (void)
{
  g_autoptr(EpModule) seq = ep_sequential_new ();
  g_autoptr(EpModule) l0 = linear (2, 2, TRUE);
  g_autoptr(EpModule) relu = ep_relu_new ();
  g_autoptr(EpModule) l2 = linear (2, 1, FALSE);
  g_autoptr(EpTensor) x = ep_test_matrix (EP_DOUBLES (1, 2, -3, 1), 2, 2, EP_DTYPE_FLOAT32);
  g_autoptr(EpTensor) y = NULL;

  append (seq, l0);
  append (seq, relu);
  append (seq, l2);
  set_value (ep_linear_get_weight (EP_LINEAR (l0)), EP_VALUES (1, 0, 0, 1));
  set_value (ep_linear_get_bias (EP_LINEAR (l0)), EP_VALUES (0, 1));
  set_value (ep_linear_get_weight (EP_LINEAR (l2)), EP_VALUES (1, 10));
  y = call (seq, x);
  /* rows: relu (1, 3) → 31; relu (-3, 2) = (0, 2) → 20 */
  ep_assert_values (y, EP_DTYPE_FLOAT32, EP_SHAPE (2, 1), EP_VALUES (31, 20));
}

static void
test_sequential_empty_and_errors (void)
{
  g_autoptr(EpModule) seq = ep_sequential_new ();
  g_autoptr(EpModule) l0 = linear (2, 2, TRUE);
  g_autoptr(EpModule) l1 = linear (3, 1, TRUE);
  g_autoptr(EpModule) taken = ep_relu_new ();
  g_autoptr(EpTensor) x = ep_test_matrix (EP_DOUBLES (1, 2), 1, 2, EP_DTYPE_FLOAT32);
  g_autoptr(EpTensor) same = call (seq, x);
  g_autoptr(GError) error = NULL;
  g_autoptr(GError) append_error = NULL;
  g_autoptr(EpTensor) y = NULL;

  /* no module: the input, as a new object */
  g_assert_true (same != x);
  ep_assert_values (same, EP_DTYPE_FLOAT32, EP_SHAPE (1, 2), EP_VALUES (1, 2));
  append (seq, l0);
  append (seq, l1);
  y = ep_module_call (seq, x, &error);
  ep_test_assert_failed (y, error, EP_ERROR_SHAPE, "Linear");
  /* a name taken by add_module */
  add_module (seq, "3", taken);
  g_assert_false (ep_sequential_append (EP_SEQUENTIAL (seq), taken, &append_error));
  ep_assert_error (append_error, EP_ERROR_INVALID_ARGUMENT, "append", "“3”");
}

/* A C subclass whose call misbehaves as the test says */

typedef enum { RETURN_NULL, RETURN_INPUT, RETURN_BOTH } Misbehaviour;

#define TEST_TYPE_ODD (test_odd_get_type ())
G_DECLARE_FINAL_TYPE (TestOdd, test_odd, TEST, ODD, EpModule)

struct _TestOdd
{
  EpModule     parent_instance;
  Misbehaviour how;
};

G_DEFINE_FINAL_TYPE (TestOdd, test_odd, EP_TYPE_MODULE)

static EpTensor *
test_odd_call (EpModule  *module,
               EpTensor  *input,
               GError   **error)
{
  switch (TEST_ODD (module)->how)
    {
    case RETURN_NULL:
      return NULL;
    case RETURN_INPUT:
      return g_object_ref (input);
    case RETURN_BOTH:
    default:
      g_set_error (error, EP_ERROR, EP_ERROR_SHAPE, "odd: failed");
      return g_object_ref (input);
    }
}

static void
test_odd_class_init (TestOddClass *klass)
{
  EP_MODULE_CLASS (klass)->call = test_odd_call;
}

static void
test_odd_init (TestOdd *self)
{
}

static void
test_subclass_results_checked (void)
{
  g_autoptr(TestOdd) odd = g_object_new (TEST_TYPE_ODD, NULL);
  g_autoptr(EpTensor) x = ep_test_vector (EP_VALUES (1, 2), EP_DTYPE_FLOAT32);

  {
    g_autoptr(GError) error = NULL;
    g_autoptr(EpTensor) y = (odd->how = RETURN_NULL, ep_module_call (EP_MODULE (odd), x, &error));

    ep_test_assert_failed (y, error, EP_ERROR_INVALID_ARGUMENT, "call");
    g_assert_nonnull (strstr (error->message, "TestOdd returned no tensor"));
  }
  {
    g_autoptr(GError) error = NULL;
    g_autoptr(EpTensor) y = (odd->how = RETURN_INPUT, ep_module_call (EP_MODULE (odd), x, &error));

    g_assert_no_error (error);
    g_assert_true (y != x);
    ep_assert_values (y, EP_DTYPE_FLOAT32, EP_SHAPE (2), EP_VALUES (1, 2));
  }
  {
    g_autoptr(GError) error = NULL;
    g_autoptr(EpTensor) y = (odd->how = RETURN_BOTH, ep_module_call (EP_MODULE (odd), x, &error));

    ep_test_assert_failed (y, error, EP_ERROR_SHAPE, "odd");
  }
}

static void
test_gradients_of_trainable_variables (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpModule) layer = linear (2, 3, TRUE);
  g_autoptr(EpTensor) x = ep_test_matrix (EP_DOUBLES (1, 2, 3, 4), 2, 2, EP_DTYPE_FLOAT32);
  g_autoptr(EpGradientTape) tape = ep_gradient_tape_new (FALSE);
  g_autoptr(EpTensor) y = NULL;
  g_autoptr(EpTensor) loss = NULL;
  g_autoptr(GPtrArray) variables = ep_module_get_trainable_variables (layer, NULL);
  g_autoptr(GPtrArray) grads = NULL;

  ep_gradient_tape_start (tape, &error);
  y = call (layer, x);
  loss = ep_tensor_sum (y, NULL, 0, FALSE, &error);
  ep_gradient_tape_stop (tape, &error);
  g_assert_no_error (error);
  grads = ep_gradient_tape_gradient (tape, &loss, 1, (GObject **) variables->pdata, variables->len,
                                     NULL, 0, &error);
  g_assert_no_error (error);
  /* d sum (x Wᵀ + b) / dW[o, i] = Σ_batch x[., i]; / db[o] = batch size */
  ep_assert_values (g_ptr_array_index (grads, 0), EP_DTYPE_FLOAT32, EP_SHAPE (3, 2),
                    EP_VALUES (4, 6, 4, 6, 4, 6));
  ep_assert_values (g_ptr_array_index (grads, 1), EP_DTYPE_FLOAT32, EP_SHAPE (3), EP_VALUES (2, 2, 2));
}

static GPtrArray *
call_module (EpTensor **inputs,
             guint      n_inputs,
             gpointer   user_data,
             GError   **error)
{
  EpTensor *y = ep_module_call (user_data, inputs[0], error);

  return y != NULL ? ep_test_one (y) : NULL;
}

static void
test_staged_call_reads_variables (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpModule) seq = ep_sequential_new ();
  g_autoptr(EpModule) layer = linear (2, 1, TRUE);
  g_autoptr(EpModule) tanh_ = ep_tanh_new ();
  g_autoptr(EpFunction) f = NULL;
  g_autoptr(EpTensor) x = ep_test_matrix (EP_DOUBLES (1, 2), 1, 2, EP_DTYPE_FLOAT32);
  g_autoptr(GPtrArray) first = NULL;
  g_autoptr(GPtrArray) second = NULL;

  append (seq, layer);
  append (seq, tanh_);
  f = ep_function_new (call_module, g_object_ref (seq), g_object_unref);
  set_value (ep_linear_get_weight (EP_LINEAR (layer)), EP_VALUES (0.5, 0.25));
  set_value (ep_linear_get_bias (EP_LINEAR (layer)), EP_VALUES (0));
  first = ep_function_call (f, &x, 1, &error);
  g_assert_no_error (error);
  ep_assert_values (g_ptr_array_index (first, 0), EP_DTYPE_FLOAT32, EP_SHAPE (1, 1), EP_VALUES (tanh (1.0)));
  /* the replay reads the variables' new values */
  set_value (ep_linear_get_bias (EP_LINEAR (layer)), EP_VALUES (-0.5));
  second = ep_function_call (f, &x, 1, &error);
  g_assert_no_error (error);
  ep_assert_values (g_ptr_array_index (second, 0), EP_DTYPE_FLOAT32, EP_SHAPE (1, 1), EP_VALUES (tanh (0.5)));
  g_assert_cmpuint (ep_function_get_trace_count (f), ==, 1);
}

static void
test_checkpoint_of_paths (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpModule) trained = make_tree ();
  g_autoptr(EpModule) fresh = make_tree ();
  g_autofree char *dir = ep_test_make_dir ();
  g_autofree char *path = g_build_filename (dir, "model.safetensors", NULL);
  g_autoptr(GFile) file = g_file_new_for_path (path);
  g_auto(GStrv) paths = NULL;
  g_auto(GStrv) fresh_paths = NULL;
  g_autoptr(GPtrArray) variables = ep_module_get_variables (trained, &paths);
  g_autoptr(GPtrArray) fresh_variables = ep_module_get_variables (fresh, &fresh_paths);

  set_value (ep_module_get_variable (trained, "a"), EP_VALUES (3, 4));
  g_assert_true (ep_checkpoint_save ((const char *const *) paths, (EpVariable *const *) variables->pdata,
                                     variables->len, file, NULL, &error));
  g_assert_no_error (error);
  g_assert_true (ep_checkpoint_restore ((const char *const *) fresh_paths,
                                        (EpVariable *const *) fresh_variables->pdata, fresh_variables->len,
                                        file, EP_CHECKPOINT_NONE, NULL, &error));
  g_assert_no_error (error);
  for (guint i = 0; i < variables->len; i++)
    {
      g_autoptr(EpTensor) want = ep_variable_read (g_ptr_array_index (variables, i));
      g_autoptr(EpTensor) got = ep_variable_read (g_ptr_array_index (fresh_variables, i));

      assert_same_values (got, want);
    }
  ep_test_remove_dir (dir);
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/module/paths-in-order", test_paths_in_order);
  g_test_add_func ("/module/lookup", test_lookup);
  g_test_add_func ("/module/own-variables", test_own_variables);
  g_test_add_func ("/module/bad-names", test_bad_names);
  g_test_add_func ("/module/released-initial-value", test_released_initial_value);
  g_test_add_func ("/module/cycles-refused", test_cycles_refused);
  g_test_add_func ("/module/shared-child-listed-once", test_shared_child_listed_once);
  g_test_add_func ("/module/parents-hold-children", test_parents_hold_children);
  g_test_add_func ("/module/training-recurses", test_training_recurses);
  g_test_add_func ("/module/container-has-no-call", test_container_has_no_call);
  g_test_add_func ("/module/subclass-results-checked", test_subclass_results_checked);
  g_test_add_func ("/module/bare-objects", test_bare_objects);
  g_test_add_func ("/module/gradients", test_gradients_of_trainable_variables);
  g_test_add_func ("/module/staged", test_staged_call_reads_variables);
  g_test_add_func ("/module/checkpoint", test_checkpoint_of_paths);
  g_test_add_func ("/linear/values", test_linear_values);
  g_test_add_func ("/linear/batched-no-bias", test_linear_batched_and_no_bias);
  g_test_add_func ("/linear/initialization", test_linear_initialization);
  g_test_add_func ("/linear/float64-zero-inputs", test_linear_float64_and_zero_inputs);
  g_test_add_func ("/linear/bad-construction", test_linear_bad_construction);
  g_test_add_func ("/linear/bad-inputs", test_linear_bad_inputs);
  g_test_add_func ("/activations", test_activations);
  g_test_add_func ("/conv2d/values", test_conv2d_values);
  g_test_add_func ("/conv2d/initialization", test_conv2d_initialization);
  g_test_add_func ("/conv2d/errors", test_conv2d_errors);
  g_test_add_func ("/pooling/values", test_pooling_values);
  g_test_add_func ("/pooling/errors", test_pooling_errors);
  g_test_add_func ("/batch-norm/statistics", test_batch_norm_statistics);
  g_test_add_func ("/batch-norm/errors", test_batch_norm_errors);
  g_test_add_func ("/layer-norm", test_layer_norm);
  g_test_add_func ("/dropout-embedding-gelu-flatten", test_dropout_embedding_gelu_flatten);
  g_test_add_func ("/cnn-sequential", test_cnn_sequential);
  g_test_add_func ("/sequential/runs-in-order", test_sequential_runs_in_order);
  g_test_add_func ("/sequential/empty-and-errors", test_sequential_empty_and_errors);

  return g_test_run ();
}
