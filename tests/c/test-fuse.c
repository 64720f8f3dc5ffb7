/* test-fuse.c: elementwise fusion on the CPU (graph/passes/fuse.c,
 * cpu/fused.c)
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include <math.h>
#include <string.h>

#include "ep-test-util.h"

#include "ep-function-private.h"
#include "ep-graph-private.h"

#define T(call) G_STMT_START { if ((call) == NULL) return NULL; } G_STMT_END

/* ((x * y).exp () - x).square () + 1.5 */
static GPtrArray *
chain (EpTensor **in, guint n, gpointer data, GError **error)
{
  g_autoptr(EpTensor) a = NULL, b = NULL, c = NULL, d = NULL;

  T (a = ep_tensor_mul (in[0], in[1], error));
  T (b = ep_tensor_exp (a, error));
  T (c = ep_tensor_sub (b, in[0], error));
  T (d = ep_tensor_square (c, error));
  return ep_test_one (ep_tensor_add_scalar (d, 1.5, error));
}

/* sqrt (sum (square (x))), keepdims when @data */
static GPtrArray *
norm (EpTensor **in, guint n, gpointer data, GError **error)
{
  g_autoptr(EpTensor) a = NULL, b = NULL;

  T (a = ep_tensor_square (in[0], error));
  T (b = ep_tensor_sum (a, NULL, 0, data != NULL, error));
  return ep_test_one (ep_tensor_sqrt (b, error));
}

/* sum (exp (x) * y, axis=data): along the last axis (-1 or its number)
 * it fuses, along another not (yet) */
static GPtrArray *
row_sums (EpTensor **in, guint n, gpointer data, GError **error)
{
  const gint axis = GPOINTER_TO_INT (data);
  g_autoptr(EpTensor) a = NULL, b = NULL;

  T (a = ep_tensor_exp (in[0], error));
  T (b = ep_tensor_mul (a, in[1], error));
  return ep_test_one (ep_tensor_sum (b, &axis, 1, FALSE, error));
}

/* mean (abs (x) - 1) over every axis, keepdims when @data */
static GPtrArray *
mean_all (EpTensor **in, guint n, gpointer data, GError **error)
{
  g_autoptr(EpTensor) a = NULL, b = NULL;

  T (a = ep_tensor_abs (in[0], error));
  T (b = ep_tensor_sub_scalar (a, 1, error));
  return ep_test_one (ep_tensor_mean (b, NULL, 0, data != NULL, error));
}

/* sum (exp (x)) and exp (x): the summed value is an output too */
static GPtrArray *
sum_and_values (EpTensor **in, guint n, gpointer data, GError **error)
{
  g_autoptr(EpTensor) a = NULL, e = NULL;
  GPtrArray *out;

  T (a = ep_tensor_sin (in[0], error));
  T (e = ep_tensor_exp (a, error));
  out = ep_test_one (ep_tensor_sum (e, NULL, 0, FALSE, error));
  g_ptr_array_add (out, g_object_ref (e));
  return out;
}

/* integers: (x * y + x) - 3 */
static GPtrArray *
int_chain (EpTensor **in, guint n, gpointer data, GError **error)
{
  g_autoptr(EpTensor) a = NULL, b = NULL;

  T (a = ep_tensor_mul (in[0], in[1], error));
  T (b = ep_tensor_add (a, in[0], error));
  return ep_test_one (ep_tensor_sub_scalar (b, 3, error));
}

/* softmax along the last axis, of ops */
static GPtrArray *
softmax (EpTensor **in, guint n, gpointer data, GError **error)
{
  const gint axis = -1;
  g_autoptr(EpTensor) m = NULL, d = NULL, e = NULL, s = NULL;

  T (m = ep_tensor_max (in[0], &axis, 1, TRUE, error));
  T (d = ep_tensor_sub (in[0], m, error));
  T (e = ep_tensor_exp (d, error));
  T (s = ep_tensor_sum (e, &axis, 1, TRUE, error));
  return ep_test_one (ep_tensor_div (e, s, error));
}

/* softmax of x.T: the group's input is a view, so it runs its steps
 * one by one, its two outputs too */
static GPtrArray *
softmax_transposed (EpTensor **in, guint n, gpointer data, GError **error)
{
  g_autoptr(EpTensor) t = NULL;

  T (t = ep_tensor_transpose (in[0], NULL, 0, error));
  return softmax (&t, 1, data, error);
}

/* layer norm over the last axis with a scale and a shift (in[1], in[2]:
 * the last axis only) */
static GPtrArray *
layer_norm (EpTensor **in, guint n, gpointer data, GError **error)
{
  const gint axis = -1;
  g_autoptr(EpTensor) mu = NULL, d = NULL, sq = NULL, var = NULL, ve = NULL, sd = NULL,
                      z = NULL, zs = NULL;

  T (mu = ep_tensor_mean (in[0], &axis, 1, TRUE, error));
  T (d = ep_tensor_sub (in[0], mu, error));
  T (sq = ep_tensor_mul (d, d, error));
  T (var = ep_tensor_mean (sq, &axis, 1, TRUE, error));
  T (ve = ep_tensor_add_scalar (var, 1e-5, error));
  T (sd = ep_tensor_sqrt (ve, error));
  T (z = ep_tensor_div (d, sd, error));
  T (zs = ep_tensor_mul (z, in[1], error));
  return ep_test_one (ep_tensor_add (zs, in[2], error));
}

/* a value the group computes is also an output: nothing fuses */
static GPtrArray *
used_outside (EpTensor **in, guint n, gpointer data, GError **error)
{
  g_autoptr(EpTensor) e = NULL;
  GPtrArray *out;

  T (e = ep_tensor_exp (in[0], error));
  out = ep_test_one (ep_tensor_add_scalar (e, 1, error));
  g_ptr_array_add (out, g_object_ref (e));
  return out;
}

/* exp (x) has a user nobody needs (pruned later) besides sin: it stays
 * a value of its own */
static GPtrArray *
dead_user (EpTensor **in, guint n, gpointer data, GError **error)
{
  g_autoptr(EpTensor) e = NULL, dead = NULL, s = NULL;

  T (e = ep_tensor_exp (in[0], error));
  T (dead = ep_tensor_neg (e, error));
  T (s = ep_tensor_sin (e, error));
  return ep_test_one (ep_tensor_mul_scalar (s, 2, error));
}

/* a dead chain of three behind a live value: fused, then pruned */
static GPtrArray *
dead_chain (EpTensor **in, guint n, gpointer data, GError **error)
{
  g_autoptr(EpTensor) e = NULL, a = NULL, b = NULL, c = NULL, d = NULL;

  T (e = ep_tensor_exp (in[0], error));
  T (a = ep_tensor_sin (e, error));
  T (b = ep_tensor_cos (a, error));
  T (c = ep_tensor_tan (b, error));
  T (d = ep_tensor_neg (c, error));
  return ep_test_one (g_object_ref (e));
}

/* exp (x.T) * 2 + 1: the group's input is a view, not contiguous, so
 * the fused node runs its steps one by one */
static GPtrArray *
transposed (EpTensor **in, guint n, gpointer data, GError **error)
{
  g_autoptr(EpTensor) t = NULL, e = NULL, m = NULL;

  T (t = ep_tensor_transpose (in[0], NULL, 0, error));
  T (e = ep_tensor_exp (t, error));
  T (m = ep_tensor_mul_scalar (e, 2, error));
  return ep_test_one (ep_tensor_add_scalar (m, 1, error));
}

/* exp (sin (x)) * uniform + 1: the draw is an input of the group */
static GPtrArray *
with_random (EpTensor **in, guint n, gpointer data, GError **error)
{
  g_autoptr(EpTensor) a = NULL, b = NULL, r = NULL, c = NULL, d = NULL;

  T (a = ep_tensor_sin (in[0], error));
  T (b = ep_tensor_exp (a, error));
  T (r = ep_uniform (in[0]->layout.shape, in[0]->layout.ndim, 0, 1, in[0]->layout.dtype, error));
  T (c = ep_tensor_cos (r, error));
  T (d = ep_tensor_mul (b, c, error));
  return ep_test_one (ep_tensor_add_scalar (d, 1, error));
}

static GPtrArray *
identity_callback (EpTensor **in, guint n, gpointer data, GError **error)
{
  return ep_test_one (ep_tensor_neg (in[0], error));
}

/* exp (sin (x)), a host call, then cos (neg (·)): two groups */
static GPtrArray *
with_host (EpTensor **in, guint n, gpointer data, GError **error)
{
  g_autoptr(EpTensor) a = NULL, b = NULL, c = NULL;
  g_autoptr(GPtrArray) h = NULL;

  T (a = ep_tensor_sin (in[0], error));
  T (b = ep_tensor_exp (a, error));
  T (h = ep_host_call (identity_callback, NULL, NULL, NULL, NULL, NULL, &b, 1, error));
  T (c = ep_tensor_neg (g_ptr_array_index (h, 0), error));
  return ep_test_one (ep_tensor_cos (c, error));
}

/* v * x + 1 with v a variable */
static GPtrArray *
with_variable (EpTensor **in, guint n, gpointer data, GError **error)
{
  g_autoptr(EpTensor) v = ep_variable_read (data);
  g_autoptr(EpTensor) a = NULL;

  T (a = ep_tensor_mul (v, in[0], error));
  return ep_test_one (ep_tensor_add_scalar (a, 1, error));
}

/* Random values with NaN, ±inf and -0 among them */
static EpTensor *
random_tensor (EpDType dtype, const gint64 *shape, guint ndim)
{
  gint64 size = 1;
  g_autofree gdouble *values = NULL;

  for (guint d = 0; d < ndim; d++)
    size *= shape[d];
  values = g_new (gdouble, MAX (size, 1));
  for (gint64 i = 0; i < size; i++)
    {
      switch (g_test_rand_int_range (0, 40))
        {
        case 0: values[i] = NAN; break;
        case 1: values[i] = INFINITY; break;
        case 2: values[i] = -INFINITY; break;
        case 3: values[i] = -0.0; break;
        default:
          values[i] = dtype == EP_DTYPE_INT32 ? g_test_rand_int_range (-50, 50)
                                              : g_test_rand_double_range (-3, 3);
        }
      if (dtype == EP_DTYPE_INT32 && !isfinite (values[i]))
        values[i] = 7;
    }

  return ep_test_new (dtype, shape, ndim, values, size);
}

static GPtrArray *
call_twice (EpFunction *fn, EpTensor **inputs, guint n_inputs)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) first = NULL;
  GPtrArray *second;

  ep_set_seed (42);
  first = ep_function_call (fn, inputs, n_inputs, &error);
  g_assert_no_error (error);
  ep_set_seed (42);
  second = ep_function_call (fn, inputs, n_inputs, &error);
  g_assert_no_error (error);
  return second;
}

static guint
count_fused (EpGraph *plan)
{
  guint fused = 0;

  for (guint n = 0; n < ep_graph_get_n_nodes (plan); n++)
    fused += ep_graph_get_node (plan, n)->kind == EP_NODE_FUSED;
  return fused;
}

/* Calls @func staged with every pass and with none on @inputs (a second
 * call: a replay of the plan), checks the results are the same bytes,
 * and returns the plan's text; @n_fused: its fused nodes */
static char *
check (EpTensorsFunc func, gpointer data, EpTensorSpec **signature, guint n_signature,
       EpTensor **inputs, guint n_inputs, guint n_fused)
{
  g_autoptr(EpFunction) fused_fn = signature != NULL
    ? ep_function_new_with_signature (func, data, NULL, signature, n_signature)
    : ep_function_new (func, data, NULL);
  g_autoptr(EpFunction) plain_fn = signature != NULL
    ? ep_function_new_with_signature (func, data, NULL, signature, n_signature)
    : ep_function_new (func, data, NULL);
  g_autoptr(GPtrArray) fused = NULL, plain = NULL;
  g_autoptr(EpGraph) plan = NULL;

  g_setenv ("EP_GRAPH_PASSES", "all", TRUE);
  fused = call_twice (fused_fn, inputs, n_inputs);
  plan = ep_function_lookup_plan (fused_fn, inputs, n_inputs);
  g_assert_nonnull (plan);
  if (count_fused (plan) != n_fused)
    g_printerr ("%s", ep_graph_to_string (plan));
  g_assert_cmpuint (count_fused (plan), ==, n_fused);

  g_setenv ("EP_GRAPH_PASSES", "none", TRUE);
  plain = call_twice (plain_fn, inputs, n_inputs);
  g_setenv ("EP_GRAPH_PASSES", "all", TRUE);

  g_assert_cmpuint (fused->len, ==, plain->len);
  for (guint o = 0; o < fused->len; o++)
    {
      EpTensor *a = g_ptr_array_index (fused, o), *b = g_ptr_array_index (plain, o);
      g_autoptr(GBytes) x = ep_tensor_to_bytes (a, NULL);
      g_autoptr(GBytes) y = ep_tensor_to_bytes (b, NULL);

      g_assert_cmpint (a->layout.dtype, ==, b->layout.dtype);
      g_assert_cmpuint (a->layout.ndim, ==, b->layout.ndim);
      g_assert_cmpmem (a->layout.shape, a->layout.ndim * sizeof (gint64), b->layout.shape, b->layout.ndim * sizeof (gint64));
      g_assert_true (g_bytes_equal (x, y));
    }

  return ep_graph_to_string (plan);
}

static void
test_chain (void)
{
  EpDType dtypes[] = { EP_DTYPE_FLOAT32, EP_DTYPE_FLOAT64 };

  for (guint t = 0; t < G_N_ELEMENTS (dtypes); t++)
    {
      /* large enough for several tiles and threads */
      g_autoptr(EpTensor) x = random_tensor (dtypes[t], EP_DIMS (300, 1001), 2);
      g_autoptr(EpTensor) y = random_tensor (dtypes[t], EP_DIMS (300, 1001), 2);
      EpTensor *in[] = { x, y };
      g_autofree char *text = check (chain, NULL, NULL, 0, in, 2, 1);

      g_assert_nonnull (strstr (text, "fused[mul exp sub square"));
    }
}

/* a trailing sum over every axis: the sum's own order, on one thread
 * (small) and on several (large, when there are) */
static void
test_sum (void)
{
  EpDType dtypes[] = { EP_DTYPE_FLOAT32, EP_DTYPE_FLOAT64 };
  gint64 rows[] = { 0, 1, 3, 33, 1000, 4099 };

  for (guint t = 0; t < G_N_ELEMENTS (dtypes); t++)
    for (guint k = 0; k < G_N_ELEMENTS (rows); k++)
      for (guint keep = 0; keep < 2; keep++)
        {
          g_autoptr(EpTensor) x = random_tensor (dtypes[t], EP_DIMS (rows[k], 257), 2);
          EpTensor *in[] = { x };
          g_autofree char *text = check (norm, GUINT_TO_POINTER (keep), NULL, 0, in, 1, 1);

          g_assert_nonnull (strstr (text, "fused[square sum]"));
        }
}

/* without NaN: the sum's value itself, not only NaN */
static void
test_sum_finite (void)
{
  gint64 size = 300001;
  g_autofree gdouble *values = g_new (gdouble, size);
  g_autoptr(EpTensor) x = NULL;
  EpTensor *in[1];
  g_autofree char *text = NULL;

  for (gint64 i = 0; i < size; i++)
    values[i] = g_test_rand_double_range (-3, 3);
  x = ep_test_new (EP_DTYPE_FLOAT32, EP_DIMS (size), 1, values, size);
  in[0] = x;
  text = check (norm, NULL, NULL, 0, in, 1, 1);
}

/* rows of several lengths (one row: the whole sum's path), and a
 * scale along the last axis */
static void
test_row_sums (void)
{
  gint64 shapes[][2] = { { 30, 40 }, { 1, 70000 }, { 300, 1 }, { 1000, 300 }, { 3, 5000 }, { 0, 3 }, { 4, 0 } };

  for (guint k = 0; k < G_N_ELEMENTS (shapes); k++)
    for (gint axis = -1; axis <= 1; axis += 2)
      {
        g_autoptr(EpTensor) x = random_tensor (EP_DTYPE_FLOAT32, shapes[k], 2);
        g_autoptr(EpTensor) y = random_tensor (EP_DTYPE_FLOAT32, &shapes[k][1], 1);
        EpTensor *in[] = { x, y };
        g_autofree char *text = check (row_sums, GINT_TO_POINTER (axis), NULL, 0, in, 2, 1);

        g_assert_nonnull (strstr (text, "fused[exp mul sum]"));
      }
}

static void
test_sum_and_values (void)
{
  gint64 sizes[] = { 0, 1, 100, 300001 };

  for (guint k = 0; k < G_N_ELEMENTS (sizes); k++)
    {
      g_autoptr(EpTensor) x = random_tensor (EP_DTYPE_FLOAT64, &sizes[k], 1);
      EpTensor *in[] = { x };
      g_autofree char *text = check (sum_and_values, NULL, NULL, 0, in, 1, 1);

      g_assert_nonnull (strstr (text, "return (%0.0, %0.1)"));
    }
}

static void
test_mean (void)
{
  EpDType dtypes[] = { EP_DTYPE_FLOAT32, EP_DTYPE_FLOAT64 };

  for (guint t = 0; t < G_N_ELEMENTS (dtypes); t++)
    for (guint keep = 0; keep < 2; keep++)
      {
        g_autoptr(EpTensor) x = random_tensor (dtypes[t], EP_DIMS (301, 700), 2);
        EpTensor *in[] = { x };
        g_autofree char *text = check (mean_all, GUINT_TO_POINTER (keep), NULL, 0, in, 1, 1);

        g_assert_nonnull (strstr (text, "fused[abs sub mean]"));
      }
}

static void
test_column_sums (void)
{
  g_autoptr(EpTensor) x = random_tensor (EP_DTYPE_FLOAT32, EP_DIMS (30, 40), 2);
  g_autoptr(EpTensor) y = random_tensor (EP_DTYPE_FLOAT32, EP_DIMS (40), 1);
  EpTensor *in[] = { x, y };
  g_autofree char *text = check (row_sums, GINT_TO_POINTER (0), NULL, 0, in, 2, 1);

  g_assert_nonnull (strstr (text, "fused[exp mul]"));
}

static void
test_int (void)
{
  g_autoptr(EpTensor) x = random_tensor (EP_DTYPE_INT32, EP_DIMS (70000), 1);
  g_autoptr(EpTensor) y = random_tensor (EP_DTYPE_INT32, EP_DIMS (70000), 1);
  EpTensor *in[] = { x, y };
  g_autofree char *text = check (int_chain, NULL, NULL, 0, in, 2, 1);
}

/* broadcasting: a column of maxima; the division by the sums is the
 * group's epilogue, made row by row, so the exponentials are no output */
static void
test_softmax (void)
{
  EpDType dtypes[] = { EP_DTYPE_FLOAT32, EP_DTYPE_FLOAT64 };

  for (guint t = 0; t < G_N_ELEMENTS (dtypes); t++)
    {
      g_autoptr(EpTensor) x = random_tensor (dtypes[t], EP_DIMS (64, 5000), 2);
      EpTensor *in[] = { x };
      g_autofree char *text = check (softmax, NULL, NULL, 0, in, 1, 1);

      g_assert_nonnull (strstr (text, "%1 = fused[sub exp sum div] (in0, %0.0) on cpu:0\nreturn (%1.0)"));
    }
}

/* one row takes the whole sum's path: the steps one by one, the same
 * bytes */
static void
test_softmax_one_row (void)
{
  g_autoptr(EpTensor) row = random_tensor (EP_DTYPE_FLOAT32, EP_DIMS (1, 3000), 2);
  g_autoptr(EpTensor) flat = random_tensor (EP_DTYPE_FLOAT32, EP_DIMS (3000), 1);
  g_autoptr(EpTensor) empty = random_tensor (EP_DTYPE_FLOAT32, EP_DIMS (0, 7), 2);
  g_autofree char *one_row = check (softmax, NULL, NULL, 0, &row, 1, 1);
  g_autofree char *one_axis = check (softmax, NULL, NULL, 0, &flat, 1, 1);
  g_autofree char *no_rows = check (softmax, NULL, NULL, 0, &empty, 1, 1);

  g_assert_nonnull (strstr (one_row, "fused[sub exp sum div]"));
}

/* softmax and its exponentials: they are an output, so the division
 * stays an op of its own */
static GPtrArray *
softmax_and_exp (EpTensor **in, guint n, gpointer data, GError **error)
{
  const gint axis = -1;
  g_autoptr(EpTensor) m = NULL, d = NULL, e = NULL, s = NULL;
  GPtrArray *out;

  T (m = ep_tensor_max (in[0], &axis, 1, TRUE, error));
  T (d = ep_tensor_sub (in[0], m, error));
  T (e = ep_tensor_exp (d, error));
  T (s = ep_tensor_sum (e, &axis, 1, TRUE, error));
  out = ep_test_one (ep_tensor_div (e, s, error));
  g_ptr_array_add (out, g_object_ref (e));
  return out;
}

/* softmax (x) * 2: the division joins the next group instead */
static GPtrArray *
softmax_doubled (EpTensor **in, guint n, gpointer data, GError **error)
{
  g_autoptr(GPtrArray) soft = softmax (in, n, data, error);

  if (soft == NULL || soft->len == 0)
    return NULL;
  return ep_test_one (ep_tensor_mul_scalar (g_ptr_array_index (soft, 0), 2, error));
}

static void
test_softmax_not_epilogue (void)
{
  g_autoptr(EpTensor) x = random_tensor (EP_DTYPE_FLOAT32, EP_DIMS (16, 300), 2);
  g_autofree char *with_exp = check (softmax_and_exp, NULL, NULL, 0, &x, 1, 1);
  g_autofree char *doubled = check (softmax_doubled, NULL, NULL, 0, &x, 1, 2);

  g_assert_nonnull (strstr (with_exp, "%1 = fused[sub exp sum] (in0, %0.0) on cpu:0\n%2 = div (%1.1, %1.0)"));
  g_assert_nonnull (strstr (doubled, "fused[sub exp sum]"));
  g_assert_nonnull (strstr (doubled, "fused[div mul]"));
}

static void
test_layer_norm (void)
{
  EpDType dtypes[] = { EP_DTYPE_FLOAT32, EP_DTYPE_FLOAT64 };

  for (guint t = 0; t < G_N_ELEMENTS (dtypes); t++)
    {
      g_autoptr(EpTensor) x = random_tensor (dtypes[t], EP_DIMS (33, 300), 2);
      g_autoptr(EpTensor) g = random_tensor (dtypes[t], EP_DIMS (300), 1);
      g_autoptr(EpTensor) b = random_tensor (dtypes[t], EP_DIMS (1, 300), 2);
      EpTensor *in[] = { x, g, b };
      g_autofree char *text = check (layer_norm, NULL, NULL, 0, in, 3, 2);

      /* the squares summed as made; a column of variances, the values,
       * a scale and a shift */
      g_assert_nonnull (strstr (text, "fused[mul mean]"));
      g_assert_nonnull (strstr (text, "fused[add sqrt div mul add]"));
    }
}

/* a relaxed batch: the fused node sizes itself at each replay */
static void
test_relaxed (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensorSpec) xs = ep_tensor_spec_new (EP_SHAPE (-1, 300), EP_DTYPE_FLOAT32, &error);
  g_autoptr(EpTensorSpec) gs = ep_tensor_spec_new (EP_SHAPE (300), EP_DTYPE_FLOAT32, &error);
  g_autoptr(EpTensorSpec) bs = ep_tensor_spec_new (EP_SHAPE (1, 300), EP_DTYPE_FLOAT32, &error);
  EpTensorSpec *signature[] = { xs, gs, bs };
  gint64 batches[] = { 5, 1, 0, 77 };

  g_assert_no_error (error);
  for (guint k = 0; k < G_N_ELEMENTS (batches); k++)
    {
      g_autoptr(EpTensor) x = random_tensor (EP_DTYPE_FLOAT32, EP_DIMS (batches[k], 300), 2);
      g_autoptr(EpTensor) g = random_tensor (EP_DTYPE_FLOAT32, EP_DIMS (300), 1);
      g_autoptr(EpTensor) b = random_tensor (EP_DTYPE_FLOAT32, EP_DIMS (1, 300), 2);
      EpTensor *in[] = { x, g, b };
      g_autofree char *text = check (layer_norm, NULL, signature, 3, in, 3, 2);
    }
}

static void
test_not_used_outside (void)
{
  g_autoptr(EpTensor) x = random_tensor (EP_DTYPE_FLOAT32, EP_DIMS (100), 1);
  EpTensor *in[] = { x };
  g_autofree char *text = check (used_outside, NULL, NULL, 0, in, 1, 0);
}

static void
test_dead_user (void)
{
  g_autoptr(EpTensor) x = random_tensor (EP_DTYPE_FLOAT64, EP_DIMS (100), 1);
  EpTensor *in[] = { x };
  g_autofree char *text = check (dead_user, NULL, NULL, 0, in, 1, 1);

  g_assert_nonnull (strstr (text, "= exp ("));
  g_assert_nonnull (strstr (text, "fused[sin mul]"));
}

/* a view's input: not fused (it would run its steps one by one) */
static void
test_view_input (void)
{
  g_autoptr(EpTensor) x = random_tensor (EP_DTYPE_FLOAT32, EP_DIMS (70, 300), 2);
  EpTensor *in[] = { x };
  g_autofree char *text = check (transposed, NULL, NULL, 0, in, 1, 0);
  g_autofree char *text2 = check (softmax_transposed, NULL, NULL, 0, in, 1, 0);
}

/* exp (x) * y + 1, and exp (x) * y summed along the last axis, on a
 * relaxed signature: traced on one shape, replayed with y broadcast
 * along the middle axis, which the fused loop does not take: the fused
 * node runs its steps one by one, one and two outputs */
static GPtrArray *
exp_mul (EpTensor **in, guint n, gpointer data, GError **error)
{
  const gint axis = -1;
  g_autoptr(EpTensor) a = NULL, b = NULL;
  GPtrArray *out;

  T (a = ep_tensor_exp (in[0], error));
  T (b = ep_tensor_mul (a, in[1], error));
  out = ep_test_one (ep_tensor_sum (b, &axis, 1, FALSE, error));
  g_ptr_array_add (out, ep_tensor_add_scalar (b, 1, error));
  return out;
}

static void
test_fallback (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensorSpec) spec = ep_tensor_spec_new (EP_SHAPE (-1, -1, 40), EP_DTYPE_FLOAT64, &error);
  EpTensorSpec *signature[] = { spec, spec };
  g_autoptr(EpFunction) fused_fn = ep_function_new_with_signature (exp_mul, NULL, NULL, signature, 2);
  g_autoptr(EpFunction) plain_fn = ep_function_new_with_signature (exp_mul, NULL, NULL, signature, 2);
  g_autoptr(EpTensor) x = random_tensor (EP_DTYPE_FLOAT64, EP_DIMS (2, 3, 40), 3);
  g_autoptr(EpTensor) y = random_tensor (EP_DTYPE_FLOAT64, EP_DIMS (2, 3, 40), 3);
  g_autoptr(EpTensor) y1 = random_tensor (EP_DTYPE_FLOAT64, EP_DIMS (2, 1, 40), 3);
  EpTensor *in[] = { x, y }, *in1[] = { x, y1 };
  g_autoptr(GPtrArray) a = NULL, b = NULL, fused = NULL, plain = NULL;
  g_autoptr(EpGraph) plan = NULL;

  g_assert_no_error (error);
  g_setenv ("EP_GRAPH_PASSES", "all", TRUE);
  a = call_twice (fused_fn, in, 2);
  fused = call_twice (fused_fn, in1, 2);
  plan = ep_function_lookup_plan (fused_fn, in1, 2);
  g_assert_nonnull (plan);
  g_assert_cmpuint (count_fused (plan), ==, 1);
  g_setenv ("EP_GRAPH_PASSES", "none", TRUE);
  b = call_twice (plain_fn, in, 2);
  plain = call_twice (plain_fn, in1, 2);
  g_setenv ("EP_GRAPH_PASSES", "all", TRUE);

  for (guint o = 0; o < 2; o++)
    {
      g_autoptr(GBytes) p = ep_tensor_to_bytes (g_ptr_array_index (fused, o), NULL);
      g_autoptr(GBytes) q = ep_tensor_to_bytes (g_ptr_array_index (plain, o), NULL);

      g_assert_true (g_bytes_equal (p, q));
    }
}

static void
test_dead_chain (void)
{
  g_autoptr(EpTensor) x = random_tensor (EP_DTYPE_FLOAT32, EP_DIMS (100), 1);
  EpTensor *in[] = { x };
  g_autofree char *text = check (dead_chain, NULL, NULL, 0, in, 1, 0);

  g_assert_cmpstr (text, ==, "%0 = exp (in0) on cpu:0\nreturn (%0.0)\n");
}

static void
test_random (void)
{
  g_autoptr(EpTensor) x = random_tensor (EP_DTYPE_FLOAT32, EP_DIMS (100), 1);
  EpTensor *in[] = { x };
  g_autofree char *text = check (with_random, NULL, NULL, 0, in, 1, 1);

  /* the draw stays a node of its own; cos of it, the only user, fuses
   * with the rest */
  g_assert_nonnull (strstr (text, "= uniform ("));
  g_assert_nonnull (strstr (text, "fused[sin exp cos mul add]"));
}

static void
test_host_call (void)
{
  g_autoptr(EpTensor) x = random_tensor (EP_DTYPE_FLOAT32, EP_DIMS (100), 1);
  EpTensor *in[] = { x };
  g_autofree char *text = check (with_host, NULL, NULL, 0, in, 1, 2);

  g_assert_nonnull (strstr (text, "fused[sin exp]"));
  g_assert_nonnull (strstr (text, "host_call"));
  g_assert_nonnull (strstr (text, "fused[neg cos]"));
}

static void
test_variable (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) init = random_tensor (EP_DTYPE_FLOAT32, EP_DIMS (100), 1);
  g_autoptr(EpVariable) v = ep_variable_new (init, "v");
  g_autoptr(EpTensor) x = random_tensor (EP_DTYPE_FLOAT32, EP_DIMS (100), 1);
  EpTensor *in[] = { x };
  g_autofree char *text = NULL;

  g_assert_no_error (error);
  text = check (with_variable, v, NULL, 0, in, 1, 1);
  g_assert_nonnull (strstr (text, "read v0"));
  g_assert_nonnull (strstr (text, "fused[mul add]"));
}

/* (x > y) & (x < 2): comparisons into bool */
static GPtrArray *
compare_chain (EpTensor **in, guint n, gpointer data, GError **error)
{
  g_autoptr(EpTensor) a = NULL, b = NULL;

  T (a = ep_tensor_greater (in[0], in[1], error));
  T (b = ep_tensor_less_scalar (in[0], 2, error));
  return ep_test_one (ep_tensor_logical_and (a, b, error));
}

/* in[0] + in[1] + … + in[n-1], then exp: as many inputs as given */
static GPtrArray *
many_inputs (EpTensor **in, guint n, gpointer data, GError **error)
{
  g_autoptr(EpTensor) sum = g_object_ref (in[0]);

  for (guint i = 1; i < n; i++)
    {
      EpTensor *next = ep_tensor_add (sum, in[i], error);

      if (next == NULL)
        return NULL;
      g_object_unref (sum);
      sum = next;
    }
  return ep_test_one (ep_tensor_exp (sum, error));
}

/* @tensors copied to @device, in place */
static void
to_device (EpTensor **tensors, guint n, EpDevice *device)
{
  for (guint i = 0; i < n; i++)
    {
      g_autoptr(GError) error = NULL;
      EpTensor *moved = ep_tensor_to_device (tensors[i], device, &error);

      g_assert_no_error (error);
      g_object_unref (tensors[i]);
      tensors[i] = moved;
    }
}

static void
free_tensors (EpTensor **tensors, guint n)
{
  for (guint i = 0; i < n; i++)
    g_clear_object (&tensors[i]);
}

static EpDevice *
opencl_or_skip (void)
{
  EpDevice *device = ep_device_get ("opencl:0", NULL);

  if (device == NULL)
    g_test_skip ("no OpenCL device");
  return device;
}

/* on OpenCL a group is one generated kernel: the same bytes as the
 * kernels one by one, in float32, float64 (where the device has it) and
 * integers */
static void
test_opencl_chain (void)
{
  EpDevice *device = opencl_or_skip ();
  EpDType dtypes[] = { EP_DTYPE_FLOAT32, EP_DTYPE_FLOAT64, EP_DTYPE_INT32 };

  if (device == NULL)
    return;
  for (guint t = 0; t < G_N_ELEMENTS (dtypes); t++)
    {
      EpTensor *in[] = { random_tensor (dtypes[t], EP_DIMS (30, 101), 2),
                         random_tensor (dtypes[t], EP_DIMS (30, 101), 2) };
      g_autofree char *text = NULL;

      if (!device->backend->supports_dtype (device, dtypes[t]))
        {
          free_tensors (in, 2);
          continue;
        }
      to_device (in, 2, device);
      if (dtypes[t] == EP_DTYPE_INT32)
        {
          text = check (int_chain, NULL, NULL, 0, in, 2, 1);
          g_assert_nonnull (strstr (text, "fused[mul add sub] (in0, in1, c0) on opencl:0"));
        }
      else
        {
          text = check (chain, NULL, NULL, 0, in, 2, 1);
          g_assert_nonnull (strstr (text, "fused[mul exp sub square add] (in0, in1, c0) on opencl:0"));
        }
      free_tensors (in, 2);
    }
}

/* comparisons give bool, a view and a broadcast row are inputs as they
 * are (the kernel reads through their strides) */
static void
test_opencl_broadcast (void)
{
  EpDevice *device = opencl_or_skip ();
  EpTensor *in[] = { random_tensor (EP_DTYPE_FLOAT32, EP_DIMS (40, 70), 2),
                     random_tensor (EP_DTYPE_FLOAT32, EP_DIMS (70), 1),
                     random_tensor (EP_DTYPE_FLOAT32, EP_DIMS (70), 1) };
  g_autofree char *compared = NULL, *viewed = NULL, *normed = NULL;

  if (device == NULL)
    {
      free_tensors (in, 3);
      return;
    }
  to_device (in, 3, device);
  compared = check (compare_chain, NULL, NULL, 0, in, 2, 1);
  g_assert_nonnull (strstr (compared, "fused[greater less logical_and]"));
  viewed = check (transposed, NULL, NULL, 0, in, 1, 1);
  g_assert_nonnull (strstr (viewed, "fused[exp mul add]"));
  /* the reductions stay kernels of their own */
  normed = check (layer_norm, NULL, NULL, 0, in, 3, 1);
  g_assert_nonnull (strstr (normed, "fused[add sqrt div mul add]"));
  free_tensors (in, 3);
}

/* more inputs than a kernel's map takes: the ops stay as they are */
static void
test_opencl_many_inputs (void)
{
  EpDevice *device = opencl_or_skip ();
  EpTensor *in[9];
  g_autofree char *seven = NULL, *nine = NULL;

  if (device == NULL)
    return;
  for (guint i = 0; i < G_N_ELEMENTS (in); i++)
    in[i] = random_tensor (EP_DTYPE_FLOAT32, EP_DIMS (50), 1);
  to_device (in, G_N_ELEMENTS (in), device);
  seven = check (many_inputs, NULL, NULL, 0, in, 7, 1);
  nine = check (many_inputs, NULL, NULL, 0, in, 9, 0);
  free_tensors (in, G_N_ELEMENTS (in));
}

/* a group across devices is two: ops on the CPU and on OpenCL never
 * share one */
static GPtrArray *
across_devices (EpTensor **in, guint n, gpointer data, GError **error)
{
  g_autoptr(EpTensor) a = NULL, b = NULL, moved = NULL, c = NULL;

  T (a = ep_tensor_exp (in[0], error));
  T (b = ep_tensor_mul_scalar (a, 2, error));
  T (moved = ep_tensor_to_device (b, data, error));
  T (c = ep_tensor_sin (moved, error));
  return ep_test_one (ep_tensor_add_scalar (c, 1, error));
}

static void
test_opencl_across_devices (void)
{
  EpDevice *device = opencl_or_skip ();
  g_autoptr(EpTensor) x = random_tensor (EP_DTYPE_FLOAT32, EP_DIMS (64), 1);
  EpTensor *in[] = { x };
  g_autofree char *text = NULL;

  if (device == NULL)
    return;
  text = check (across_devices, device, NULL, 0, in, 1, 2);
  g_assert_nonnull (strstr (text, "fused[exp mul] (in0, c0) on cpu:0"));
  g_assert_nonnull (strstr (text, "fused[sin add]"));
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/fuse/chain", test_chain);
  g_test_add_func ("/fuse/opencl/chain", test_opencl_chain);
  g_test_add_func ("/fuse/opencl/broadcast", test_opencl_broadcast);
  g_test_add_func ("/fuse/opencl/many-inputs", test_opencl_many_inputs);
  g_test_add_func ("/fuse/opencl/across-devices", test_opencl_across_devices);
  g_test_add_func ("/fuse/int", test_int);
  g_test_add_func ("/fuse/sum", test_sum);
  g_test_add_func ("/fuse/sum-finite", test_sum_finite);
  g_test_add_func ("/fuse/row-sums", test_row_sums);
  g_test_add_func ("/fuse/mean", test_mean);
  g_test_add_func ("/fuse/sum-and-values", test_sum_and_values);
  g_test_add_func ("/fuse/not/sum-along-axis-0", test_column_sums);
  g_test_add_func ("/fuse/softmax", test_softmax);
  g_test_add_func ("/fuse/softmax-one-row", test_softmax_one_row);
  g_test_add_func ("/fuse/not/softmax-epilogue", test_softmax_not_epilogue);
  g_test_add_func ("/fuse/layer-norm", test_layer_norm);
  g_test_add_func ("/fuse/relaxed", test_relaxed);
  g_test_add_func ("/fuse/fallback", test_fallback);
  g_test_add_func ("/fuse/not/view-input", test_view_input);
  g_test_add_func ("/fuse/not/used-outside", test_not_used_outside);
  g_test_add_func ("/fuse/not/random", test_random);
  g_test_add_func ("/fuse/not/dead-user", test_dead_user);
  g_test_add_func ("/fuse/dead-chain-pruned", test_dead_chain);
  g_test_add_func ("/fuse/not/host-call", test_host_call);
  g_test_add_func ("/fuse/not/variable", test_variable);

  return g_test_run ();
}
