/* test-forward.c: forward-mode derivatives (EpForwardAccumulator, jvp,
 * hvp) and the vectorised jacobian
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Every op's forward rule is checked against central differences in
 * test-gradcheck.c; this file tests the machinery: tangents through
 * nested tapes and accumulators, staged functions, host callbacks and
 * threads, the functional forms, the jacobians, and the errors.
 */

#include <eager-glib/eager-glib.h>

#include "ep-test-util.h"

static EpTensor *
vector (const gdouble *values,
        gsize          n)
{
  return ep_test_vector (values, n, EP_DTYPE_FLOAT64);
}

/* tanh: the tangent is (1 - y²) v */
static void
test_tanh (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) x = vector (EP_VALUES (0.5, -1.0, 2.0));
  g_autoptr(EpTensor) v = vector (EP_VALUES (1.0, 2.0, -3.0));
  g_autoptr(EpForwardAccumulator) acc = ep_forward_accumulator_new ();
  g_autoptr(EpTensor) y = NULL, dy = NULL;
  gdouble expected[3];
  const gdouble xs[] = { 0.5, -1.0, 2.0 }, vs[] = { 1.0, 2.0, -3.0 };

  g_assert_true (ep_forward_accumulator_watch (acc, x, v, &error));
  g_assert_true (ep_forward_accumulator_start (acc, &error));
  g_assert_true (ep_forward_accumulator_is_active (acc));
  y = ep_tensor_tanh (x, &error);
  g_assert_true (ep_forward_accumulator_stop (acc, &error));
  g_assert_false (ep_forward_accumulator_is_active (acc));

  dy = ep_forward_accumulator_jvp (acc, y, &error);
  g_assert_no_error (error);
  for (guint i = 0; i < 3; i++)
    expected[i] = (1 - tanh (xs[i]) * tanh (xs[i])) * vs[i];
  ep_test_assert_close (dy, expected, 3);
}

/* The tangent of a watched primal is its tangent, as a new object */
static void
test_primal (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) x = vector (EP_VALUES (1.0, 2.0));
  g_autoptr(EpTensor) v = vector (EP_VALUES (3.0, 4.0));
  g_autoptr(EpForwardAccumulator) acc = ep_forward_accumulator_new ();
  g_autoptr(EpTensor) t = NULL;

  g_assert_true (ep_forward_accumulator_watch (acc, x, v, &error));
  t = ep_forward_accumulator_jvp (acc, x, &error);
  g_assert_no_error (error);
  g_assert_true (t != v);
  ep_assert_values (t, EP_DTYPE_FLOAT64, EP_SHAPE (2), EP_VALUES (3.0, 4.0));
}

static void
test_unconnected (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) x = vector (EP_VALUES (1.0, 2.0));
  g_autoptr(EpTensor) v = vector (EP_VALUES (3.0, 4.0));
  g_autoptr(EpTensor) c = vector (EP_VALUES (5.0, 6.0));
  g_autoptr(EpForwardAccumulator) acc = ep_forward_accumulator_new ();
  g_autoptr(EpTensor) y = NULL, zeros = NULL, none = NULL;

  g_assert_true (ep_forward_accumulator_watch (acc, x, v, &error));
  g_assert_true (ep_forward_accumulator_start (acc, &error));
  y = ep_tensor_exp (c, &error);
  g_assert_true (ep_forward_accumulator_stop (acc, &error));

  zeros = ep_forward_accumulator_jvp (acc, y, &error);
  g_assert_no_error (error);
  ep_assert_values (zeros, EP_DTYPE_FLOAT64, EP_SHAPE (2), EP_VALUES (0.0, 0.0));

  ep_forward_accumulator_set_unconnected_gradients (acc, EP_UNCONNECTED_GRADIENTS_NONE);
  g_assert_cmpint (ep_forward_accumulator_get_unconnected_gradients (acc), ==, EP_UNCONNECTED_GRADIENTS_NONE);
  none = ep_forward_accumulator_jvp (acc, y, &error);
  g_assert_no_error (error);
  g_assert_null (none);
}

/* Ops run after stop, and integer results, get no tangent */
static void
test_after_stop (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) x = vector (EP_VALUES (1.0, 2.0));
  g_autoptr(EpTensor) v = vector (EP_VALUES (3.0, 4.0));
  g_autoptr(EpForwardAccumulator) acc = ep_forward_accumulator_new ();
  g_autoptr(EpTensor) y = NULL, i = NULL, dy = NULL, di = NULL;

  g_assert_true (ep_forward_accumulator_watch (acc, x, v, &error));
  g_assert_true (ep_forward_accumulator_start (acc, &error));
  i = ep_tensor_argmax (x, EP_AXIS_NONE, FALSE, &error);
  g_assert_no_error (error);
  g_assert_true (ep_forward_accumulator_stop (acc, &error));
  y = ep_tensor_square (x, &error);

  dy = ep_forward_accumulator_jvp (acc, y, &error);
  di = ep_forward_accumulator_jvp (acc, i, &error);
  g_assert_no_error (error);
  ep_assert_values (dy, EP_DTYPE_FLOAT64, EP_SHAPE (2), EP_VALUES (0.0, 0.0));
  ep_assert_values (di, EP_DTYPE_INT64, EP_SCALAR, EP_VALUES (0.0));
}

static void
test_watch_errors (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) x = vector (EP_VALUES (1.0, 2.0));
  g_autoptr(EpTensor) n = ep_test_vector (EP_VALUES (1.0, 2.0), EP_DTYPE_INT64);
  g_autoptr(EpTensor) wrong_shape = vector (EP_VALUES (1.0, 2.0, 3.0));
  g_autoptr(EpTensor) wrong_type = ep_test_vector (EP_VALUES (1.0, 2.0), EP_DTYPE_FLOAT32);
  g_autoptr(EpTensor) released = vector (EP_VALUES (1.0, 2.0));
  g_autoptr(EpForwardAccumulator) acc = ep_forward_accumulator_new ();

  g_assert_false (ep_forward_accumulator_watch (acc, n, n, &error));
  ep_assert_error (error, EP_ERROR_DTYPE, "watch", "int64");
  g_clear_error (&error);

  g_assert_false (ep_forward_accumulator_watch (acc, x, wrong_shape, &error));
  ep_assert_error (error, EP_ERROR_SHAPE, "watch", "(3,)");
  g_clear_error (&error);

  g_assert_false (ep_forward_accumulator_watch (acc, x, wrong_type, &error));
  ep_assert_error (error, EP_ERROR_DTYPE, "watch", "float32");
  g_clear_error (&error);

  ep_tensor_release (released);
  g_assert_false (ep_forward_accumulator_watch (acc, x, released, &error));
  ep_assert_error (error, EP_ERROR_INVALID_ARGUMENT, "watch", "released");
  g_clear_error (&error);
  g_assert_false (ep_forward_accumulator_watch (acc, released, x, &error));
  ep_assert_error (error, EP_ERROR_INVALID_ARGUMENT, "watch", "released");
}

/* A tangent released after watch: the op that needs it fails, cleanly */
static void
test_released_tangent (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) x = vector (EP_VALUES (1.0, 2.0));
  g_autoptr(EpTensor) v = vector (EP_VALUES (3.0, 4.0));
  g_autoptr(EpForwardAccumulator) acc = ep_forward_accumulator_new ();
  g_autoptr(EpTensor) y = NULL, t = NULL;

  g_assert_true (ep_forward_accumulator_watch (acc, x, v, &error));
  ep_tensor_release (v);
  t = ep_forward_accumulator_jvp (acc, x, &error);
  ep_test_assert_failed (t, error, EP_ERROR_INVALID_ARGUMENT, "jvp");
  g_clear_error (&error);

  g_assert_true (ep_forward_accumulator_start (acc, &error));
  y = ep_tensor_sin (x, &error);
  g_assert_true (ep_forward_accumulator_stop (acc, NULL));
  g_assert_null (y);
  g_assert_error (error, EP_ERROR, EP_ERROR_INVALID_ARGUMENT);
}

static void
test_start_stop_errors (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpForwardAccumulator) acc = ep_forward_accumulator_new ();

  g_assert_false (ep_forward_accumulator_stop (acc, &error));
  ep_assert_error (error, EP_ERROR_GRADIENT, "stop", "not active");
  g_clear_error (&error);

  g_assert_true (ep_forward_accumulator_start (acc, &error));
  g_assert_false (ep_forward_accumulator_start (acc, &error));
  ep_assert_error (error, EP_ERROR_GRADIENT, "start", "already active");
  g_clear_error (&error);
  g_assert_true (ep_forward_accumulator_stop (acc, &error));
}

static gpointer
stop_elsewhere (gpointer data)
{
  GError *error = NULL;

  g_assert_false (ep_forward_accumulator_stop (data, &error));
  return error;
}

/* Another thread cannot stop it, and its ops are not seen */
static gpointer
square_elsewhere (gpointer data)
{
  return ep_tensor_square (data, NULL);
}

static void
test_threads (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) x = vector (EP_VALUES (1.0, 2.0));
  g_autoptr(EpTensor) v = vector (EP_VALUES (3.0, 4.0));
  g_autoptr(EpForwardAccumulator) acc = ep_forward_accumulator_new ();
  g_autoptr(EpTensor) y = NULL, dy = NULL;
  GError *other;

  g_assert_true (ep_forward_accumulator_watch (acc, x, v, &error));
  g_assert_true (ep_forward_accumulator_start (acc, &error));
  other = g_thread_join (g_thread_new ("stop", stop_elsewhere, acc));
  ep_assert_error (other, EP_ERROR_GRADIENT, "stop", "another thread");
  g_error_free (other);
  y = g_thread_join (g_thread_new ("square", square_elsewhere, x));
  g_assert_true (ep_forward_accumulator_stop (acc, &error));

  dy = ep_forward_accumulator_jvp (acc, y, &error);
  g_assert_no_error (error);
  ep_assert_values (dy, EP_DTYPE_FLOAT64, EP_SHAPE (2), EP_VALUES (0.0, 0.0));
}

/* Made by g_object_new, as a binding may: usable, with no tangents */
static void
test_bare (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpForwardAccumulator) acc = g_object_new (EP_TYPE_FORWARD_ACCUMULATOR, NULL);
  g_autoptr(EpTensor) x = vector (EP_VALUES (1.0, 2.0));
  g_autoptr(EpTensor) y = NULL, dy = NULL;

  g_assert_true (ep_forward_accumulator_start (acc, &error));
  y = ep_tensor_exp (x, &error);
  g_assert_true (ep_forward_accumulator_stop (acc, &error));
  dy = ep_forward_accumulator_jvp (acc, y, &error);
  g_assert_no_error (error);
  ep_assert_values (dy, EP_DTYPE_FLOAT64, EP_SHAPE (2), EP_VALUES (0.0, 0.0));
}

static EpTensor *
cube_scope (gpointer   data,
            GError   **error)
{
  return ep_tensor_pow_scalar (data, 3.0, error);
}

static EpTensor *
failing_scope (gpointer   data,
               GError   **error)
{
  g_set_error (error, EP_ERROR, EP_ERROR_INVALID_ARGUMENT, "scope: failed");
  return NULL;
}

static void
test_record (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) x = vector (EP_VALUES (1.0, 2.0));
  g_autoptr(EpTensor) v = vector (EP_VALUES (1.0, 1.0));
  g_autoptr(EpForwardAccumulator) acc = ep_forward_accumulator_new ();
  g_autoptr(EpTensor) y = NULL, dy = NULL, none = NULL;

  g_assert_true (ep_forward_accumulator_watch (acc, x, v, &error));
  y = ep_forward_accumulator_record (acc, cube_scope, x, &error);
  g_assert_no_error (error);
  g_assert_false (ep_forward_accumulator_is_active (acc));
  dy = ep_forward_accumulator_jvp (acc, y, &error);
  ep_assert_values (dy, EP_DTYPE_FLOAT64, EP_SHAPE (2), EP_VALUES (3.0, 12.0));

  none = ep_forward_accumulator_record (acc, failing_scope, NULL, &error);
  g_assert_null (none);
  ep_assert_error (error, EP_ERROR_INVALID_ARGUMENT, "scope", "failed");
  g_assert_false (ep_forward_accumulator_is_active (acc));
}

/* Forward over forward: the outer accumulator differentiates the inner
 * one's tangents: d²(x³) = 6x */
static void
test_forward_over_forward (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) x = vector (EP_VALUES (1.0, -2.0));
  g_autoptr(EpTensor) v = vector (EP_VALUES (1.0, 1.0));
  g_autoptr(EpForwardAccumulator) outer = ep_forward_accumulator_new ();
  g_autoptr(EpForwardAccumulator) inner = ep_forward_accumulator_new ();
  g_autoptr(EpTensor) y = NULL, dy = NULL, d2y = NULL;

  g_assert_true (ep_forward_accumulator_watch (outer, x, v, &error));
  g_assert_true (ep_forward_accumulator_watch (inner, x, v, &error));
  g_assert_true (ep_forward_accumulator_start (outer, &error));
  g_assert_true (ep_forward_accumulator_start (inner, &error));
  y = ep_tensor_pow_scalar (x, 3.0, &error);
  g_assert_true (ep_forward_accumulator_stop (inner, &error));
  dy = ep_forward_accumulator_jvp (inner, y, &error);
  g_assert_true (ep_forward_accumulator_stop (outer, &error));
  d2y = ep_forward_accumulator_jvp (outer, dy, &error);
  g_assert_no_error (error);

  ep_assert_values (dy, EP_DTYPE_FLOAT64, EP_SHAPE (2), EP_VALUES (3.0, 12.0));
  ep_assert_values (d2y, EP_DTYPE_FLOAT64, EP_SHAPE (2), EP_VALUES (6.0, -12.0));
}

/* Reverse over forward: a tape outside records the tangent computation */
static void
test_reverse_over_forward (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) x = vector (EP_VALUES (1.0, -2.0));
  g_autoptr(EpTensor) v = vector (EP_VALUES (1.0, 1.0));
  g_autoptr(EpGradientTape) tape = ep_gradient_tape_new (FALSE);
  g_autoptr(EpForwardAccumulator) acc = ep_forward_accumulator_new ();
  g_autoptr(EpTensor) y = NULL, dy = NULL;
  g_autoptr(GPtrArray) grads = NULL;
  GObject *sources[] = { G_OBJECT (x) };

  g_assert_true (ep_gradient_tape_start (tape, &error));
  ep_gradient_tape_watch (tape, x);
  g_assert_true (ep_forward_accumulator_watch (acc, x, v, &error));
  g_assert_true (ep_forward_accumulator_start (acc, &error));
  y = ep_tensor_pow_scalar (x, 3.0, &error);
  g_assert_true (ep_forward_accumulator_stop (acc, &error));
  dy = ep_forward_accumulator_jvp (acc, y, &error);
  g_assert_true (ep_gradient_tape_stop (tape, &error));

  grads = ep_gradient_tape_gradient (tape, &dy, 1, sources, 1, NULL, 0, &error);
  g_assert_no_error (error);
  ep_assert_values (g_ptr_array_index (grads, 0), EP_DTYPE_FLOAT64, EP_SHAPE (2), EP_VALUES (6.0, -12.0));
}

/* f(x) = Σ x³ + x0 x1: H = diag (6x) + [[0, 1], [1, 0]] */
static EpTensor *
cubic (EpTensor **in, guint n, gpointer data, GError **error)
{
  g_autoptr(EpTensor) cube = ep_tensor_pow_scalar (in[0], 3.0, error);
  g_autoptr(EpTensor) total = cube ? ep_tensor_sum (cube, NULL, 0, FALSE, error) : NULL;
  g_autoptr(EpTensor) prod = total ? ep_tensor_prod (in[0], NULL, 0, FALSE, error) : NULL;

  return prod ? ep_tensor_add (total, prod, error) : NULL;
}

static void
test_hvp (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) x = vector (EP_VALUES (1.0, 2.0));
  g_autoptr(EpTensor) v = vector (EP_VALUES (0.5, -1.0));
  g_autoptr(EpTensor) value = NULL;
  g_autoptr(GPtrArray) products = NULL;

  g_assert_true (ep_hvp (cubic, NULL, &x, 1, &v, 1, &value, &products, &error));
  g_assert_no_error (error);
  ep_assert_values (value, EP_DTYPE_FLOAT64, EP_SCALAR, EP_VALUES (11.0));
  g_assert_cmpuint (products->len, ==, 1);
  /* (6 · 0.5 + 1 · -1, 1 · 0.5 + 12 · -1) */
  ep_assert_values (g_ptr_array_index (products, 0), EP_DTYPE_FLOAT64, EP_SHAPE (2), EP_VALUES (2.0, -11.5));
}

static EpTensor *
not_scalar (EpTensor **in, guint n, gpointer data, GError **error)
{
  return ep_tensor_square (in[0], error);
}

static void
test_hvp_errors (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) x = vector (EP_VALUES (1.0, 2.0));
  g_autoptr(EpTensor) v = vector (EP_VALUES (1.0, 2.0, 3.0));

  g_assert_false (ep_hvp (not_scalar, NULL, &x, 1, &x, 1, NULL, NULL, &error));
  ep_assert_error (error, EP_ERROR_SHAPE, "hvp", "(2,)");
  g_clear_error (&error);

  g_assert_false (ep_hvp (cubic, NULL, &x, 1, NULL, 0, NULL, NULL, &error));
  ep_assert_error (error, EP_ERROR_INVALID_ARGUMENT, "hvp", "one tangent per primal");
  g_clear_error (&error);

  g_assert_false (ep_hvp (cubic, NULL, &x, 1, &v, 1, NULL, NULL, &error));
  ep_assert_error (error, EP_ERROR_SHAPE, "hvp", "(3,)");
}

/* (a @ b, sum (a)) */
static GPtrArray *
two_results (EpTensor **in, guint n, gpointer data, GError **error)
{
  g_autoptr(GPtrArray) results = g_ptr_array_new_with_free_func (g_object_unref);
  EpTensor *product = ep_tensor_matmul (in[0], in[1], error);
  EpTensor *total;

  if (product == NULL)
    return NULL;
  g_ptr_array_add (results, product);
  total = ep_tensor_sum (in[0], NULL, 0, FALSE, error);
  if (total == NULL)
    return NULL;
  g_ptr_array_add (results, total);
  return g_steal_pointer (&results);
}

static void
test_jvp_functional (void)
{
  g_autoptr(GError) error = NULL;
  EpTensor *primals[] = {
    ep_test_matrix (EP_DOUBLES (1, 2, 3, 4), 2, 2, EP_DTYPE_FLOAT64),
    ep_test_matrix (EP_DOUBLES (5, 6, 7, 8), 2, 2, EP_DTYPE_FLOAT64),
  };
  EpTensor *tangents[] = {
    ep_test_matrix (EP_DOUBLES (1, 0, 0, 1), 2, 2, EP_DTYPE_FLOAT64),
    ep_test_matrix (EP_DOUBLES (0, 1, 1, 0), 2, 2, EP_DTYPE_FLOAT64),
  };
  g_autoptr(GPtrArray) outputs = NULL, products = NULL;

  g_assert_true (ep_jvp (two_results, NULL, primals, 2, tangents, 2, &outputs, &products, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (outputs->len, ==, 2);
  ep_assert_values (g_ptr_array_index (outputs, 0), EP_DTYPE_FLOAT64, EP_SHAPE (2, 2), EP_VALUES (19, 22, 43, 50));
  /* ta b + a tb = b + [[2, 1], [4, 3]] */
  ep_assert_values (g_ptr_array_index (products, 0), EP_DTYPE_FLOAT64, EP_SHAPE (2, 2), EP_VALUES (7, 7, 11, 11));
  ep_assert_values (g_ptr_array_index (products, 1), EP_DTYPE_FLOAT64, EP_SCALAR, EP_VALUES (2));

  g_assert_false (ep_jvp (two_results, NULL, primals, 2, tangents, 1, NULL, NULL, &error));
  ep_assert_error (error, EP_ERROR_INVALID_ARGUMENT, "jvp", "one tangent per primal");

  for (guint i = 0; i < 2; i++)
    {
      g_object_unref (primals[i]);
      g_object_unref (tangents[i]);
    }
}

/* A staged function called under an accumulator runs op by op */
static GPtrArray *
staged_sin (EpTensor **in, guint n, gpointer data, GError **error)
{
  return ep_test_one (ep_tensor_sin (in[0], error));
}

static void
test_staged (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpFunction) fn = ep_function_new (staged_sin, NULL, NULL);
  g_autoptr(EpTensor) x = vector (EP_VALUES (0.5, 1.0));
  g_autoptr(EpTensor) v = vector (EP_VALUES (2.0, 1.0));
  g_autoptr(EpForwardAccumulator) acc = ep_forward_accumulator_new ();
  g_autoptr(GPtrArray) warm = NULL, results = NULL;
  g_autoptr(EpTensor) dy = NULL;

  warm = ep_function_call (fn, &x, 1, &error);
  g_assert_no_error (error);
  g_assert_true (ep_forward_accumulator_watch (acc, x, v, &error));
  g_assert_true (ep_forward_accumulator_start (acc, &error));
  results = ep_function_call (fn, &x, 1, &error);
  g_assert_true (ep_forward_accumulator_stop (acc, &error));
  g_assert_no_error (error);

  dy = ep_forward_accumulator_jvp (acc, g_ptr_array_index (results, 0), &error);
  g_assert_no_error (error);
  ep_test_assert_close (dy, EP_DOUBLES (2.0 * cos (0.5), cos (1.0)), 2);
}

static GPtrArray *
host_double (EpTensor **in, guint n, gpointer data, GError **error)
{
  return ep_test_one (ep_tensor_mul_scalar (in[0], 2.0, error));
}

static void
test_host_call (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) x = vector (EP_VALUES (0.5, 1.0));
  g_autoptr(EpForwardAccumulator) acc = ep_forward_accumulator_new ();
  g_autoptr(GPtrArray) results = NULL;

  g_assert_true (ep_forward_accumulator_watch (acc, x, x, &error));
  g_assert_true (ep_forward_accumulator_start (acc, &error));
  results = ep_host_call (host_double, NULL, NULL, NULL, NULL, NULL, &x, 1, &error);
  g_assert_true (ep_forward_accumulator_stop (acc, NULL));
  g_assert_null (results);
  ep_assert_error (error, EP_ERROR_GRADIENT, "host_call", "tangent");
}

/* jacobian: the vectorised pass and the per-row passes agree, for a
 * tensor and a variable source, and an op without a batched rule falls
 * back */
static void
check_jacobian_modes (EpTensor *(*f) (EpTensor *, GError **),
                      GObject   *source,
                      EpTensor  *x,
                      gboolean   batched)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpGradientTape) tape = ep_gradient_tape_new (TRUE);
  g_autoptr(EpTensor) y = NULL, a = NULL, b = NULL;
  g_autofree gdouble *va = NULL, *vb = NULL;
  gsize na, nb;

  g_assert_true (ep_gradient_tape_start (tape, &error));
  if (EP_IS_TENSOR (source))
    ep_gradient_tape_watch (tape, EP_TENSOR (source));
  y = f (x, &error);
  g_assert_no_error (error);
  g_assert_true (ep_gradient_tape_stop (tape, &error));

  g_setenv ("EP_JACOBIAN", "rows", TRUE);
  a = batched ? ep_gradient_tape_batch_jacobian (tape, y, source, &error)
              : ep_gradient_tape_jacobian (tape, y, source, &error);
  g_unsetenv ("EP_JACOBIAN");
  g_assert_no_error (error);
  b = batched ? ep_gradient_tape_batch_jacobian (tape, y, source, &error)
              : ep_gradient_tape_jacobian (tape, y, source, &error);
  g_assert_no_error (error);

  va = ep_test_get_values (a, &na);
  vb = ep_test_get_values (b, &nb);
  g_assert_cmpuint (ep_tensor_get_ndim (a), ==, ep_tensor_get_ndim (b));
  g_assert_cmpmem (ep_tensor_get_shape (a, NULL), ep_tensor_get_ndim (a) * sizeof (gint64),
                   ep_tensor_get_shape (b, NULL), ep_tensor_get_ndim (b) * sizeof (gint64));
  for (gsize i = 0; i < na; i++)
    g_assert_cmpfloat_with_epsilon (va[i], vb[i], 1e-12 * MAX (1.0, fabs (va[i])));
}

static EpTensor *
net (EpTensor *x, GError **error)
{
  g_autoptr(EpTensor) w = ep_test_iota (EP_SHAPE (4, 6), EP_DTYPE_FLOAT64);
  g_autoptr(EpTensor) scaled = ep_tensor_mul_scalar (w, 0.1, error);
  g_autoptr(EpTensor) h = scaled ? ep_tensor_matmul (x, scaled, error) : NULL;
  g_autoptr(EpTensor) t = h ? ep_tensor_tanh (h, error) : NULL;
  g_autoptr(EpTensor) s = t ? ep_tensor_softmax (t, -1, error) : NULL;

  return s ? ep_tensor_mul_scalar (s, 2.0, error) : NULL;
}

static EpTensor *
powered (EpTensor *x, GError **error)
{
  g_autoptr(EpTensor) two = ep_tensor_new_weak_scalar (2.5, EP_DTYPE_FLOAT64);
  g_autoptr(EpTensor) p = ep_tensor_pow (x, two, error);

  return p ? ep_tensor_tile (p, EP_DIMS (2), 1, error) : NULL;
}

static void
test_jacobian (void)
{
  g_autoptr(EpTensor) x = ep_test_matrix (EP_DOUBLES (0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8), 2, 4,
                                          EP_DTYPE_FLOAT64);
  g_autoptr(EpTensor) v = vector (EP_VALUES (0.5, 1.5, 2.5));
  g_autoptr(EpVariable) var = ep_variable_new (v, "v");

  check_jacobian_modes (net, G_OBJECT (x), x, FALSE);
  check_jacobian_modes (net, G_OBJECT (x), x, TRUE);
  check_jacobian_modes (powered, G_OBJECT (v), v, FALSE);
  {
    g_autoptr(GError) error = NULL;
    g_autoptr(EpGradientTape) tape = ep_gradient_tape_new (TRUE);
    g_autoptr(EpTensor) read = NULL, y = NULL, j = NULL;

    g_assert_true (ep_gradient_tape_start (tape, &error));
    read = ep_variable_read (var);
    y = ep_tensor_square (read, &error);
    g_assert_true (ep_gradient_tape_stop (tape, &error));
    j = ep_gradient_tape_jacobian (tape, y, G_OBJECT (var), &error);
    g_assert_no_error (error);
    ep_assert_values (j, EP_DTYPE_FLOAT64, EP_SHAPE (3, 3), EP_VALUES (1, 0, 0, 0, 3, 0, 0, 0, 5));
  }
}

static EpTensor *
deep (EpTensor *x, GError **error)
{
  g_autoptr(EpTensor) wide = ep_tensor_reshape (x, EP_DIMS (1, 1, 1, 1, 1, 1, 1, 2), 8, error);
  g_autoptr(EpTensor) y = wide ? ep_tensor_tanh (wide, error) : NULL;
  g_autoptr(EpTensor) z = y ? ep_tensor_mul_scalar (y, 3.0, error) : NULL;

  return z ? ep_tensor_reshape (z, EP_DIMS (2), 1, error) : NULL;
}

/* The vectorised pass needs a dimension in front of every tangent: with
 * EP_MAX_DIMS dimensions already, the per-row passes run */
static void
test_jacobian_dims (void)
{
  g_autoptr(EpTensor) x = vector (EP_VALUES (0.5, -1.0));

  check_jacobian_modes (deep, G_OBJECT (x), x, FALSE);
}

/* The jacobian of a tensor with respect to itself is the identity, watched
 * or not, whichever pass runs */
static void
test_jacobian_of_itself (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) x = vector (EP_VALUES (1.0, 2.0));
  g_autoptr(EpGradientTape) tape = ep_gradient_tape_new (FALSE);
  g_autoptr(EpTensor) j = ep_gradient_tape_jacobian (tape, x, G_OBJECT (x), &error);

  g_assert_no_error (error);
  ep_assert_values (j, EP_DTYPE_FLOAT64, EP_SHAPE (2, 2), EP_VALUES (1, 0, 0, 1));
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/forward/tanh", test_tanh);
  g_test_add_func ("/forward/primal", test_primal);
  g_test_add_func ("/forward/unconnected", test_unconnected);
  g_test_add_func ("/forward/after-stop", test_after_stop);
  g_test_add_func ("/forward/watch-errors", test_watch_errors);
  g_test_add_func ("/forward/released-tangent", test_released_tangent);
  g_test_add_func ("/forward/start-stop-errors", test_start_stop_errors);
  g_test_add_func ("/forward/threads", test_threads);
  g_test_add_func ("/forward/bare", test_bare);
  g_test_add_func ("/forward/record", test_record);
  g_test_add_func ("/forward/forward-over-forward", test_forward_over_forward);
  g_test_add_func ("/forward/reverse-over-forward", test_reverse_over_forward);
  g_test_add_func ("/forward/hvp", test_hvp);
  g_test_add_func ("/forward/hvp-errors", test_hvp_errors);
  g_test_add_func ("/forward/jvp", test_jvp_functional);
  g_test_add_func ("/forward/staged", test_staged);
  g_test_add_func ("/forward/host-call", test_host_call);
  g_test_add_func ("/forward/jacobian", test_jacobian);
  g_test_add_func ("/forward/jacobian-dims", test_jacobian_dims);
  g_test_add_func ("/forward/jacobian-of-itself", test_jacobian_of_itself);

  return g_test_run ();
}
