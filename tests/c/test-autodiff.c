/* test-autodiff.c: gradient tapes, variables, the functional API
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include <math.h>

#include <eager-glib/eager-glib.h>

#include "ep-recorder-private.h"
#include "ep-test-util.h"

static EpTensor *
scalar (gdouble value)
{
  g_autoptr(GError) error = NULL;
  EpTensor *t = ep_tensor_new_scalar (value, EP_DTYPE_FLOAT32, &error);

  g_assert_no_error (error);
  return t;
}

static gdouble
item (EpTensor *t)
{
  g_autoptr(GError) error = NULL;
  gdouble value = ep_tensor_item_double (t, &error);

  g_assert_no_error (error);
  return value;
}

static void
assert_values (EpTensor      *t,
               const gdouble *expected,
               gsize          n)
{
  gsize size;
  g_autofree gdouble *got = ep_test_get_values (t, &size);

  g_assert_cmpuint (size, ==, n);
  for (gsize k = 0; k < n; k++)
    g_assert_cmpfloat_with_epsilon (got[k], expected[k], 1e-5);
}

/* The one gradient of one target with respect to one source. */
static EpTensor *
gradient1 (EpGradientTape  *tape,
           EpTensor        *target,
           gpointer         source,
           GError         **error)
{
  GObject *sources[] = { source };
  g_autoptr(GPtrArray) grads = ep_gradient_tape_gradient (tape, &target, 1, sources, 1, NULL, 0, error);
  EpTensor *grad;

  if (grads == NULL)
    return NULL;
  grad = g_ptr_array_index (grads, 0);
  return grad != NULL ? g_object_ref (grad) : NULL;
}

/* The first example: d(x·x)/dx at 3 is 6, and through a nested
 * tape the second derivative is 2. */
static void
test_square_and_second_derivative (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) x = scalar (3.0);
  g_autoptr(EpGradientTape) outer = ep_gradient_tape_new (FALSE);
  g_autoptr(EpGradientTape) inner = ep_gradient_tape_new (FALSE);
  g_autoptr(EpTensor) y = NULL, dy = NULL, d2y = NULL;

  g_assert_true (ep_gradient_tape_start (outer, &error));
  ep_gradient_tape_watch (outer, x);
  g_assert_true (ep_gradient_tape_start (inner, &error));
  ep_gradient_tape_watch (inner, x);
  y = ep_tensor_mul (x, x, &error);
  g_assert_true (ep_gradient_tape_stop (inner, &error));
  dy = gradient1 (inner, y, x, &error);
  g_assert_true (ep_gradient_tape_stop (outer, &error));
  d2y = gradient1 (outer, dy, x, &error);

  g_assert_no_error (error);
  g_assert_cmpfloat (item (dy), ==, 6.0);
  g_assert_cmpfloat (item (d2y), ==, 2.0);
}

/* x³ at 2: 12, 12, 6 through three tapes. */
static void
test_third_derivative (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) x = scalar (2.0);
  EpGradientTape *tapes[3];
  EpTensor *d[4];

  for (guint i = 0; i < 3; i++)
    {
      tapes[i] = ep_gradient_tape_new (FALSE);
      ep_gradient_tape_start (tapes[i], NULL);
      ep_gradient_tape_watch (tapes[i], x);
    }
  d[0] = ep_tensor_pow_scalar (x, 3.0, &error);
  for (guint i = 3; i-- > 0;)
    {
      ep_gradient_tape_stop (tapes[i], NULL);
      d[3 - i] = gradient1 (tapes[i], d[2 - i], x, &error);
      g_assert_no_error (error);
    }

  g_assert_cmpfloat_with_epsilon (item (d[1]), 12.0, 1e-5);
  g_assert_cmpfloat_with_epsilon (item (d[2]), 12.0, 1e-5);
  g_assert_cmpfloat_with_epsilon (item (d[3]), 6.0, 1e-5);
  for (guint i = 0; i < 3; i++)
    g_assert_finalize_object (tapes[i]);
  for (guint i = 0; i < 4; i++)
    g_object_unref (d[i]);
}

static void
test_non_persistent_answers_once (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) x = scalar (3.0);
  g_autoptr(EpGradientTape) tape = ep_gradient_tape_new (FALSE);
  g_autoptr(EpTensor) y = NULL, g1 = NULL, g2 = NULL, j = NULL;

  ep_gradient_tape_start (tape, NULL);
  ep_gradient_tape_watch (tape, x);
  y = ep_tensor_square (x, &error);
  ep_gradient_tape_stop (tape, NULL);

  g1 = gradient1 (tape, y, x, &error);
  g_assert_no_error (error);
  g2 = gradient1 (tape, y, x, &error);
  g_assert_error (error, EP_ERROR, EP_ERROR_GRADIENT);
  g_assert_null (g2);
  g_clear_error (&error);
  j = ep_gradient_tape_jacobian (tape, y, G_OBJECT (x), &error);
  g_assert_error (error, EP_ERROR, EP_ERROR_GRADIENT);
  g_assert_null (j);
  g_assert_false (ep_gradient_tape_is_recording (tape));
}

static void
test_persistent_answers_many_times (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) x = scalar (3.0);
  g_autoptr(EpGradientTape) tape = ep_gradient_tape_new (TRUE);
  g_autoptr(EpTensor) y = NULL, z = NULL;

  g_assert_true (ep_gradient_tape_get_persistent (tape));
  ep_gradient_tape_start (tape, NULL);
  ep_gradient_tape_watch (tape, x);
  y = ep_tensor_square (x, &error);
  z = ep_tensor_exp (x, &error);
  ep_gradient_tape_stop (tape, NULL);

  for (guint i = 0; i < 3; i++)
    {
      g_autoptr(EpTensor) gy = gradient1 (tape, y, x, &error);
      g_autoptr(EpTensor) gz = gradient1 (tape, z, x, &error);

      g_assert_no_error (error);
      g_assert_cmpfloat (item (gy), ==, 6.0);
      g_assert_cmpfloat_with_epsilon (item (gz), exp (3.0), 1e-3);
    }
}

/* Several targets: the gradient of their sum; output gradients weight them. */
static void
test_targets_and_output_gradients (void)
{
  g_autoptr(GError) error = NULL;
  const gdouble xv[] = { 1, 2, 3 }, wv[] = { 1, 10, 100 };
  g_autoptr(EpTensor) x = ep_test_vector (xv, 3, EP_DTYPE_FLOAT32);
  g_autoptr(EpTensor) w = ep_test_vector (wv, 3, EP_DTYPE_FLOAT64);
  g_autoptr(EpGradientTape) tape = ep_gradient_tape_new (TRUE);
  g_autoptr(EpTensor) y = NULL, s = NULL;
  g_autoptr(GPtrArray) grads = NULL;
  EpTensor *targets[2];
  EpTensor *weights[2];
  GObject *sources[1];

  ep_gradient_tape_start (tape, NULL);
  ep_gradient_tape_watch (tape, x);
  y = ep_tensor_square (x, &error);
  s = ep_tensor_sum (x, NULL, 0, FALSE, &error);
  ep_gradient_tape_stop (tape, NULL);
  targets[0] = y;
  targets[1] = s;
  sources[0] = G_OBJECT (x);

  grads = ep_gradient_tape_gradient (tape, targets, 2, sources, 1, NULL, 0, &error);
  g_assert_no_error (error);
  assert_values (g_ptr_array_index (grads, 0), (const gdouble[]) { 3, 5, 7 }, 3);
  g_clear_pointer (&grads, g_ptr_array_unref);

  /* one weight per target (float64 weights are converted) */
  {
    g_autoptr(EpTensor) two = scalar (2.0);

    weights[0] = w;
    weights[1] = two;
    grads = ep_gradient_tape_gradient (tape, targets, 2, sources, 1, weights, 2, &error);
    g_assert_no_error (error);
    assert_values (g_ptr_array_index (grads, 0), (const gdouble[]) { 4, 42, 602 }, 3);
    g_assert_cmpint (ep_tensor_get_dtype (g_ptr_array_index (grads, 0)), ==, EP_DTYPE_FLOAT32);
    g_clear_pointer (&grads, g_ptr_array_unref);
  }

  /* wrong count */
  grads = ep_gradient_tape_gradient (tape, targets, 2, sources, 1, weights, 1, &error);
  g_assert_error (error, EP_ERROR, EP_ERROR_INVALID_ARGUMENT);
  g_assert_null (grads);
  g_clear_error (&error);

  /* wrong shape */
  weights[0] = w;
  weights[1] = w;
  grads = ep_gradient_tape_gradient (tape, targets, 2, sources, 1, weights, 2, &error);
  g_assert_error (error, EP_ERROR, EP_ERROR_SHAPE);
  g_assert_null (grads);
}

static void
test_bad_targets_and_sources (void)
{
  g_autoptr(GError) error = NULL;
  const gdouble v[] = { 1, 2 };
  g_autoptr(EpTensor) x = ep_test_vector (v, 2, EP_DTYPE_FLOAT32);
  g_autoptr(EpTensor) i = ep_test_vector (v, 2, EP_DTYPE_INT64);
  g_autoptr(EpGradientTape) tape = ep_gradient_tape_new (TRUE);
  g_autoptr(GPtrArray) grads = NULL;
  GObject *sources[] = { G_OBJECT (x) };
  GObject *bad[] = { G_OBJECT (ep_device_get_default ()) };

  grads = ep_gradient_tape_gradient (tape, &i, 1, sources, 1, NULL, 0, &error);
  g_assert_error (error, EP_ERROR, EP_ERROR_DTYPE);
  g_assert_null (grads);
  g_clear_error (&error);

  grads = ep_gradient_tape_gradient (tape, &x, 1, bad, 1, NULL, 0, &error);
  g_assert_error (error, EP_ERROR, EP_ERROR_INVALID_ARGUMENT);
  g_assert_null (grads);
}

/* Zeros by default, NULL when asked. */
static void
test_unconnected (void)
{
  g_autoptr(GError) error = NULL;
  const gdouble v[] = { 1, 2 };
  g_autoptr(EpTensor) x = ep_test_vector (v, 2, EP_DTYPE_FLOAT32);
  g_autoptr(EpTensor) unrelated = ep_test_vector (v, 2, EP_DTYPE_FLOAT64);
  g_autoptr(EpGradientTape) tape = ep_gradient_tape_new (TRUE);
  g_autoptr(EpTensor) y = NULL, zeros = NULL, none = NULL;

  g_assert_cmpint (ep_gradient_tape_get_unconnected_gradients (tape), ==, EP_UNCONNECTED_GRADIENTS_ZERO);
  ep_gradient_tape_start (tape, NULL);
  ep_gradient_tape_watch (tape, x);
  ep_gradient_tape_watch (tape, unrelated);
  y = ep_tensor_exp (x, &error);
  ep_gradient_tape_stop (tape, NULL);

  zeros = gradient1 (tape, y, unrelated, &error);
  g_assert_no_error (error);
  g_assert_cmpint (ep_tensor_get_dtype (zeros), ==, EP_DTYPE_FLOAT64);
  assert_values (zeros, (const gdouble[]) { 0, 0 }, 2);

  ep_gradient_tape_set_unconnected_gradients (tape, EP_UNCONNECTED_GRADIENTS_NONE);
  none = gradient1 (tape, y, unrelated, &error);
  g_assert_no_error (error);
  g_assert_null (none);
}

/* Integer tensors are not watched and carry no gradient. */
static void
test_integer_tensors_have_no_gradient (void)
{
  g_autoptr(GError) error = NULL;
  const gdouble v[] = { 1, 2 };
  g_autoptr(EpTensor) n = ep_test_vector (v, 2, EP_DTYPE_INT32);
  g_autoptr(EpTensor) x = ep_test_vector (v, 2, EP_DTYPE_FLOAT32);
  g_autoptr(EpGradientTape) tape = ep_gradient_tape_new (TRUE);
  g_autoptr(EpTensor) nf = NULL, y = NULL, gn = NULL, truncated = NULL, z = NULL, gx = NULL;

  ep_gradient_tape_set_unconnected_gradients (tape, EP_UNCONNECTED_GRADIENTS_NONE);
  ep_gradient_tape_start (tape, NULL);
  ep_gradient_tape_watch (tape, n);
  ep_gradient_tape_watch (tape, x);
  nf = ep_tensor_astype (n, EP_DTYPE_FLOAT32, &error);
  y = ep_tensor_mul (nf, x, &error);
  truncated = ep_tensor_astype (x, EP_DTYPE_INT64, &error);
  z = ep_tensor_astype (truncated, EP_DTYPE_FLOAT32, &error);
  ep_gradient_tape_stop (tape, NULL);

  gn = gradient1 (tape, y, n, &error);
  g_assert_no_error (error);
  g_assert_null (gn);
  gx = gradient1 (tape, z, x, &error);
  g_assert_no_error (error);
  g_assert_null (gx);
}

static void
test_start_and_stop_errors (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpGradientTape) tape = ep_gradient_tape_new (FALSE);

  g_assert_false (ep_gradient_tape_stop (tape, &error));
  g_assert_error (error, EP_ERROR, EP_ERROR_GRADIENT);
  g_clear_error (&error);

  g_assert_true (ep_gradient_tape_start (tape, &error));
  g_assert_true (ep_gradient_tape_is_active (tape));
  g_assert_false (ep_gradient_tape_start (tape, &error));
  g_assert_error (error, EP_ERROR, EP_ERROR_GRADIENT);
  g_clear_error (&error);
  g_assert_true (ep_gradient_tape_stop (tape, &error));
  g_assert_false (ep_gradient_tape_is_active (tape));
}

static gpointer
stop_elsewhere (gpointer data)
{
  GError *error = NULL;

  g_assert_false (ep_gradient_tape_stop (data, &error));
  g_assert_error (error, EP_ERROR, EP_ERROR_GRADIENT);
  g_error_free (error);
  return NULL;
}

/* Tapes are per thread: another thread's ops are not recorded, and it
 * cannot stop this thread's tape. */
static gpointer
square_elsewhere (gpointer data)
{
  return ep_tensor_square (data, NULL);
}

static void
test_tapes_are_per_thread (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) x = scalar (3.0);
  g_autoptr(EpGradientTape) tape = ep_gradient_tape_new (FALSE);
  g_autoptr(EpTensor) y = NULL, g = NULL;

  ep_gradient_tape_set_unconnected_gradients (tape, EP_UNCONNECTED_GRADIENTS_NONE);
  ep_gradient_tape_start (tape, NULL);
  ep_gradient_tape_watch (tape, x);
  y = g_thread_join (g_thread_new ("square", square_elsewhere, x));
  g_thread_join (g_thread_new ("stop", stop_elsewhere, tape));
  g_assert_true (ep_gradient_tape_stop (tape, &error));

  g = gradient1 (tape, y, x, &error);
  g_assert_no_error (error);
  g_assert_null (g);
}

static void
test_stop_recording (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) x = scalar (2.0);
  g_autoptr(EpGradientTape) tape = ep_gradient_tape_new (TRUE);
  g_autoptr(EpTensor) a = NULL, b = NULL, c = NULL, g = NULL;

  ep_gradient_tape_start (tape, NULL);
  ep_gradient_tape_watch (tape, x);
  a = ep_tensor_square (x, &error);            /* recorded */
  ep_gradient_tape_stop_recording (tape);
  ep_gradient_tape_stop_recording (tape);
  g_assert_false (ep_gradient_tape_is_recording (tape));
  b = ep_tensor_mul (x, a, &error);            /* not recorded: a constant */
  g_assert_true (ep_gradient_tape_resume_recording (tape, &error));
  g_assert_false (ep_gradient_tape_is_recording (tape));
  g_assert_true (ep_gradient_tape_resume_recording (tape, &error));
  g_assert_true (ep_gradient_tape_is_recording (tape));
  c = ep_tensor_mul (a, b, &error);            /* recorded: d/dx = b · 2x */
  ep_gradient_tape_stop (tape, NULL);
  g = gradient1 (tape, c, x, &error);
  g_assert_no_error (error);
  g_assert_cmpfloat (item (g), ==, 8.0 * 4.0);
}

/* A resume for each stop_recording: one more is an error and leaves the
 * tape recording. */
static void
test_resume_without_pause (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpGradientTape) tape = ep_gradient_tape_new (FALSE);

  ep_gradient_tape_start (tape, NULL);
  ep_gradient_tape_stop_recording (tape);
  g_assert_true (ep_gradient_tape_resume_recording (tape, &error));
  g_assert_false (ep_gradient_tape_resume_recording (tape, &error));
  ep_assert_error (error, EP_ERROR_GRADIENT, "resume_recording", "not paused");
  g_assert_true (ep_gradient_tape_is_recording (tape));
  ep_gradient_tape_stop (tape, NULL);
}

static void
test_reset (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) x = scalar (2.0);
  g_autoptr(EpVariable) v = ep_variable_new (x, "v");
  g_autoptr(EpGradientTape) tape = ep_gradient_tape_new (FALSE);
  g_autoptr(EpTensor) a = NULL, b = NULL, ga = NULL, gb = NULL, read = NULL;
  g_autoptr(GPtrArray) variables = NULL;

  ep_gradient_tape_start (tape, NULL);
  ep_gradient_tape_watch (tape, x);
  read = ep_variable_read (v);
  a = ep_tensor_square (x, &error);
  ep_gradient_tape_reset (tape);
  g_assert_true (ep_gradient_tape_is_active (tape));
  variables = ep_gradient_tape_watched_variables (tape);
  g_assert_cmpuint (variables->len, ==, 0);
  ep_gradient_tape_watch (tape, x);
  b = ep_tensor_exp (x, &error);
  ep_gradient_tape_stop (tape, NULL);

  ep_gradient_tape_set_unconnected_gradients (tape, EP_UNCONNECTED_GRADIENTS_NONE);
  ga = gradient1 (tape, a, x, &error);
  g_assert_no_error (error);
  g_assert_null (ga);   /* forgotten */

  /* a tape that has answered answers again after a reset */
  ep_gradient_tape_reset (tape);
  ep_gradient_tape_start (tape, NULL);
  ep_gradient_tape_watch (tape, x);
  g_clear_object (&b);
  b = ep_tensor_exp (x, &error);
  ep_gradient_tape_stop (tape, NULL);
  gb = gradient1 (tape, b, x, &error);
  g_assert_no_error (error);
  g_assert_cmpfloat_with_epsilon (item (gb), exp (2.0), 1e-4);
}

/* Variables */

static void
test_variable_watched_when_read (void)
{
  g_autoptr(GError) error = NULL;
  const gdouble wv[] = { 1, 2, 3 };
  g_autoptr(EpTensor) init = ep_test_vector (wv, 3, EP_DTYPE_FLOAT32);
  g_autoptr(EpVariable) w = ep_variable_new (init, "w");
  g_autoptr(EpVariable) frozen = ep_variable_new (init, "frozen");
  g_autoptr(EpGradientTape) tape = ep_gradient_tape_new (TRUE);
  g_autoptr(EpTensor) r1 = NULL, r2 = NULL, rf = NULL, p = NULL, y = NULL, gw = NULL, gf = NULL;
  g_autoptr(GPtrArray) variables = NULL;

  g_assert_cmpstr (ep_variable_get_name (w), ==, "w");
  g_assert_true (ep_variable_get_trainable (w));
  ep_variable_set_trainable (frozen, FALSE);

  ep_gradient_tape_start (tape, NULL);
  r1 = ep_variable_read (w);
  r2 = ep_variable_read (w);
  rf = ep_variable_read (frozen);
  p = ep_tensor_mul (r1, r2, &error);           /* w² */
  {
    g_autoptr(EpTensor) q = ep_tensor_mul (p, rf, &error);

    y = ep_tensor_sum (q, NULL, 0, FALSE, &error);
  }
  ep_gradient_tape_stop (tape, NULL);

  g_assert_true (r1 != r2);   /* each read is its own tensor */
  variables = ep_gradient_tape_watched_variables (tape);
  g_assert_cmpuint (variables->len, ==, 1);
  g_assert_true (g_ptr_array_index (variables, 0) == w);

  gw = gradient1 (tape, y, w, &error);          /* 2 w · frozen, summed over both reads */
  g_assert_no_error (error);
  assert_values (gw, (const gdouble[]) { 2, 8, 18 }, 3);
  gf = gradient1 (tape, y, frozen, &error);     /* not watched: zeros */
  g_assert_no_error (error);
  assert_values (gf, (const gdouble[]) { 0, 0, 0 }, 3);
}

static void
test_variable_watch_explicitly (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) init = scalar (3.0);
  g_autoptr(EpVariable) v = ep_variable_new (init, NULL);
  g_autoptr(EpGradientTape) tape = g_object_new (EP_TYPE_GRADIENT_TAPE, "watch-accessed-variables", FALSE, NULL);
  g_autoptr(EpGradientTape) tape2 = g_object_new (EP_TYPE_GRADIENT_TAPE, "watch-accessed-variables", FALSE, NULL);
  g_autoptr(EpTensor) r = NULL, y = NULL, g = NULL, r2 = NULL, y2 = NULL, g2 = NULL;

  g_assert_false (ep_gradient_tape_get_watch_accessed_variables (tape));
  ep_variable_set_trainable (v, FALSE);

  ep_gradient_tape_start (tape, NULL);
  ep_gradient_tape_watch_variable (tape, v);
  r = ep_variable_read (v);
  y = ep_tensor_square (r, &error);
  ep_gradient_tape_stop (tape, NULL);
  g = gradient1 (tape, y, v, &error);
  g_assert_no_error (error);
  g_assert_cmpfloat (item (g), ==, 6.0);

  ep_variable_set_trainable (v, TRUE);
  ep_gradient_tape_set_unconnected_gradients (tape2, EP_UNCONNECTED_GRADIENTS_NONE);
  ep_gradient_tape_start (tape2, NULL);
  r2 = ep_variable_read (v);
  y2 = ep_tensor_square (r2, &error);
  ep_gradient_tape_stop (tape2, NULL);
  g2 = gradient1 (tape2, y2, v, &error);
  g_assert_no_error (error);
  g_assert_null (g2);
}

/* A gradient with respect to a variable sums over reads before and after
 * an assignment; the assignment itself is not differentiated. */
static void
test_variable_assign_during_tape (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) init = scalar (2.0);
  g_autoptr(EpVariable) v = ep_variable_new (init, "v");
  g_autoptr(EpGradientTape) tape = ep_gradient_tape_new (FALSE);
  g_autoptr(EpTensor) a = NULL, b = NULL, ya = NULL, yb = NULL, y = NULL, g = NULL, three = scalar (3.0);

  ep_gradient_tape_start (tape, NULL);
  a = ep_variable_read (v);
  ya = ep_tensor_square (a, &error);             /* 2a = 4 */
  g_assert_true (ep_variable_assign (v, ya, &error));
  b = ep_variable_read (v);                       /* 4 */
  yb = ep_tensor_mul (b, three, &error);          /* 3 */
  y = ep_tensor_add (ya, yb, &error);
  ep_gradient_tape_stop (tape, NULL);

  g_assert_cmpfloat (item (b), ==, 4.0);
  g = gradient1 (tape, y, v, &error);
  g_assert_no_error (error);
  g_assert_cmpfloat (item (g), ==, 7.0);
}

/* The errors of assign and its forms name them, not the ops inside. */
static void
test_variable_assign_errors_name_the_call (void)
{
  const gdouble v3[] = { 1, 2, 3 }, v2[] = { 1, 2 };
  g_autoptr(EpTensor) init = ep_test_vector (v3, 3, EP_DTYPE_INT64);
  g_autoptr(EpTensor) floats = ep_test_vector (v3, 3, EP_DTYPE_FLOAT32);
  g_autoptr(EpTensor) short_one = ep_test_vector (v2, 2, EP_DTYPE_INT64);
  g_autoptr(EpVariable) n = ep_variable_new (init, "n");
  g_autoptr(GError) add_error = NULL;
  g_autoptr(GError) sub_error = NULL;
  g_autoptr(GError) dtype_error = NULL;
  g_autoptr(GError) released_error = NULL;
  g_autoptr(EpTensor) released = ep_test_vector (v3, 3, EP_DTYPE_INT64);

  ep_tensor_release (released);
  g_assert_false (ep_variable_assign_add (n, short_one, &add_error));
  g_assert_cmpstr (add_error->message, ==, "assign_add: shapes (3,) and (2,) cannot be broadcast together");
  g_assert_false (ep_variable_assign_sub (n, short_one, &sub_error));
  g_assert_cmpstr (sub_error->message, ==, "assign_sub: shapes (3,) and (2,) cannot be broadcast together");
  g_assert_false (ep_variable_assign (n, floats, &dtype_error));
  g_assert_false (ep_variable_assign (n, released, &released_error));
  g_assert_cmpstr (released_error->message, ==, "assign: the tensor was released and has no data");
  g_assert_cmpstr (dtype_error->message, ==,
                   "assign: a value of type float32 cannot go in a variable of type int64; "
                   "convert it with astype first");
}

static void
test_variable_assign (void)
{
  g_autoptr(GError) error = NULL;
  const gdouble v3[] = { 1, 2, 3 }, v2[] = { 1, 2 };
  g_autoptr(EpTensor) init = ep_test_vector (v3, 3, EP_DTYPE_FLOAT32);
  g_autoptr(EpTensor) wide = ep_test_vector (v3, 3, EP_DTYPE_FLOAT64);
  g_autoptr(EpTensor) ints = ep_test_vector (v3, 3, EP_DTYPE_INT64);
  g_autoptr(EpTensor) short_one = ep_test_vector (v2, 2, EP_DTYPE_FLOAT32);
  g_autoptr(EpTensor) half = ep_tensor_new_weak_scalar (0.5, EP_DTYPE_FLOAT64);
  g_autoptr(EpVariable) v = ep_variable_new (init, "v");
  g_autoptr(EpVariable) n = ep_variable_new (ints, "n");
  guint ndim;

  g_assert_cmpint (ep_variable_get_dtype (v), ==, EP_DTYPE_FLOAT32);
  g_assert_cmpint (ep_variable_get_shape (v, &ndim)[0], ==, 3);
  g_assert_cmpuint (ndim, ==, 1);
  g_assert_cmpint (ep_variable_get_shape (v, NULL)[0], ==, 3);   /* the length is optional */
  g_assert_true (ep_variable_get_device (v) == ep_device_get_default ());

  g_assert_true (ep_variable_assign (v, wide, &error));          /* float64 into float32 */
  g_assert_true (ep_variable_assign_add (v, half, &error));
  g_assert_true (ep_variable_assign_sub (v, init, &error));
  g_assert_no_error (error);
  {
    g_autoptr(EpTensor) value = ep_variable_read (v);

    g_assert_cmpint (ep_tensor_get_dtype (value), ==, EP_DTYPE_FLOAT32);
    assert_values (value, (const gdouble[]) { 0.5, 0.5, 0.5 }, 3);
  }

  g_assert_false (ep_variable_assign (v, short_one, &error));
  g_assert_error (error, EP_ERROR, EP_ERROR_SHAPE);
  g_clear_error (&error);
  g_assert_false (ep_variable_assign_add (v, short_one, &error));
  g_assert_error (error, EP_ERROR, EP_ERROR_SHAPE);
  g_clear_error (&error);
  g_assert_false (ep_variable_assign (n, init, &error));        /* float into int64 */
  g_assert_error (error, EP_ERROR, EP_ERROR_DTYPE);
  g_clear_error (&error);
  g_assert_false (ep_variable_assign_add (n, half, &error));    /* 0.5 makes it float */
  g_assert_error (error, EP_ERROR, EP_ERROR_DTYPE);
  g_clear_error (&error);
  {
    g_autoptr(EpTensor) value = ep_variable_read (v);

    assert_values (value, (const gdouble[]) { 0.5, 0.5, 0.5 }, 3);   /* unchanged */
  }
}

/* Jacobians */

static void
test_jacobian (void)
{
  g_autoptr(GError) error = NULL;
  const gdouble xv[] = { 1, 2, 3 };
  g_autoptr(EpTensor) x = ep_test_vector (xv, 3, EP_DTYPE_FLOAT32);
  g_autoptr(EpGradientTape) tape = ep_gradient_tape_new (TRUE);
  g_autoptr(EpTensor) y = NULL, s = NULL, j = NULL, js = NULL;
  guint ndim;
  const gint64 *shape;

  ep_gradient_tape_start (tape, NULL);
  ep_gradient_tape_watch (tape, x);
  y = ep_tensor_square (x, &error);
  s = ep_tensor_sum (y, NULL, 0, FALSE, &error);
  ep_gradient_tape_stop (tape, NULL);

  j = ep_gradient_tape_jacobian (tape, y, G_OBJECT (x), &error);
  g_assert_no_error (error);
  shape = ep_tensor_get_shape (j, &ndim);
  g_assert_cmpuint (ndim, ==, 2);
  g_assert_cmpint (shape[0], ==, 3);
  g_assert_cmpint (shape[1], ==, 3);
  assert_values (j, (const gdouble[]) { 2, 0, 0, 0, 4, 0, 0, 0, 6 }, 9);

  js = ep_gradient_tape_jacobian (tape, s, G_OBJECT (x), &error);
  g_assert_no_error (error);
  g_assert_cmpuint (ep_tensor_get_ndim (js), ==, 1);
  assert_values (js, (const gdouble[]) { 2, 4, 6 }, 3);
}

static void
test_batch_jacobian (void)
{
  g_autoptr(GError) error = NULL;
  const gdouble xv[] = { 1, 2, 3, 4, 5, 6 }, wv[] = { 1, 2, 3, 4, 5, 6 };
  const gint64 xs[] = { 2, 3 }, ws[] = { 3, 2 };
  g_autoptr(EpTensor) x = ep_tensor_new_from_doubles (xv, 6, xs, 2, EP_DTYPE_FLOAT32, &error);
  g_autoptr(EpTensor) w = ep_tensor_new_from_doubles (wv, 6, ws, 2, EP_DTYPE_FLOAT32, &error);
  g_autoptr(EpGradientTape) tape = ep_gradient_tape_new (TRUE);
  g_autoptr(EpTensor) y = NULL, j = NULL, bad = NULL, wrong = NULL;
  guint ndim;
  const gint64 *shape;

  ep_gradient_tape_start (tape, NULL);
  ep_gradient_tape_watch (tape, x);
  {
    g_autoptr(EpTensor) xw = ep_tensor_matmul (x, w, &error);    /* (2, 2) */

    y = ep_tensor_mul (xw, xw, &error);
  }
  ep_gradient_tape_stop (tape, NULL);

  j = ep_gradient_tape_batch_jacobian (tape, y, G_OBJECT (x), &error);
  g_assert_no_error (error);
  shape = ep_tensor_get_shape (j, &ndim);
  g_assert_cmpuint (ndim, ==, 3);
  g_assert_cmpint (shape[0], ==, 2);
  g_assert_cmpint (shape[1], ==, 2);
  g_assert_cmpint (shape[2], ==, 3);
  /* y[b,i] = (x[b] · w[:,i])²: dy[b,i]/dx[b,k] = 2 (x[b]·w[:,i]) w[k,i];
   * x[0]·w = (22, 28), x[1]·w = (49, 64) */
  assert_values (j, (const gdouble[]) {
    44, 132, 220,   112, 224, 336,
    98, 294, 490,   256, 512, 768 }, 12);

  bad = ep_tensor_sum (y, NULL, 0, FALSE, &error);
  g_assert_no_error (error);
  wrong = ep_gradient_tape_batch_jacobian (tape, bad, G_OBJECT (x), &error);
  g_assert_error (error, EP_ERROR, EP_ERROR_SHAPE);
  g_assert_null (wrong);
}

static void
test_jacobian_unconnected (void)
{
  g_autoptr(GError) error = NULL;
  const gdouble xv[] = { 1, 2 };
  g_autoptr(EpTensor) x = ep_test_vector (xv, 2, EP_DTYPE_FLOAT32);
  g_autoptr(EpTensor) other = ep_test_vector (xv, 2, EP_DTYPE_FLOAT32);
  g_autoptr(EpGradientTape) tape = ep_gradient_tape_new (TRUE);
  g_autoptr(EpTensor) y = NULL, zeros = NULL, none = NULL;

  ep_gradient_tape_start (tape, NULL);
  ep_gradient_tape_watch (tape, x);
  y = ep_tensor_exp (x, &error);
  ep_gradient_tape_stop (tape, NULL);

  zeros = ep_gradient_tape_jacobian (tape, y, G_OBJECT (other), &error);
  g_assert_no_error (error);
  assert_values (zeros, (const gdouble[]) { 0, 0, 0, 0 }, 4);
  ep_gradient_tape_set_unconnected_gradients (tape, EP_UNCONNECTED_GRADIENTS_NONE);
  none = ep_gradient_tape_jacobian (tape, y, G_OBJECT (other), &error);
  g_assert_no_error (error);
  g_assert_null (none);
}

/* The gradient of max is shared between ties; abs and relu have
 * subgradient 0 at 0. */
static void
test_subgradients (void)
{
  g_autoptr(GError) error = NULL;
  const gdouble xv[] = { 1, 3, 3, -2, 0 };
  g_autoptr(EpTensor) x = ep_test_vector (xv, 5, EP_DTYPE_FLOAT64);
  g_autoptr(EpGradientTape) tape = ep_gradient_tape_new (TRUE);
  g_autoptr(EpTensor) m = NULL, a = NULL, r = NULL, gm = NULL, ga = NULL, gr = NULL;

  ep_gradient_tape_start (tape, NULL);
  ep_gradient_tape_watch (tape, x);
  m = ep_tensor_max (x, NULL, 0, FALSE, &error);
  a = ep_tensor_abs (x, &error);
  r = ep_tensor_relu (x, &error);
  ep_gradient_tape_stop (tape, NULL);

  gm = gradient1 (tape, m, x, &error);
  ga = gradient1 (tape, a, x, &error);
  gr = gradient1 (tape, r, x, &error);
  g_assert_no_error (error);
  assert_values (gm, (const gdouble[]) { 0, 0.5, 0.5, 0, 0 }, 5);
  assert_values (ga, (const gdouble[]) { 1, 1, 1, -1, 0 }, 5);
  assert_values (gr, (const gdouble[]) { 1, 1, 1, 0, 0 }, 5);
}

/* stop_gradient */

static void
test_stop_gradient (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) x = scalar (3.0);
  g_autoptr(EpGradientTape) tape = ep_gradient_tape_new (FALSE);
  g_autoptr(EpTensor) c = NULL, y = NULL, g = NULL;

  ep_gradient_tape_start (tape, NULL);
  ep_gradient_tape_watch (tape, x);
  c = ep_tensor_stop_gradient (x, &error);
  g_assert_true (ep_tensor_shares_storage (c, x));
  y = ep_tensor_mul (x, c, &error);              /* d/dx = c, not 2x */
  ep_gradient_tape_stop (tape, NULL);
  g = gradient1 (tape, y, x, &error);
  g_assert_no_error (error);
  g_assert_cmpfloat (item (g), ==, 3.0);
}

/* The functional API */

static EpTensor *
product (EpTensor **in, guint n, gpointer data, GError **error)
{
  guint *calls = data;

  (*calls)++;
  g_assert_cmpuint (n, ==, 2);
  return ep_tensor_mul (in[0], in[1], error);
}

static void
test_value_and_grad (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) a = scalar (3.0), b = scalar (5.0);
  EpTensor *inputs[] = { a, b };
  const gint both[] = { 0, 1 }, last[] = { -1 };
  g_autoptr(GPtrArray) grads = NULL;
  g_autoptr(EpTensor) v1 = NULL, v2 = NULL, v3 = NULL, v4 = NULL;
  guint calls = 0;

  g_assert_true (ep_value_and_grad (product, &calls, inputs, 2, NULL, 0, &v1, &grads, &error));
  g_assert_no_error (error);
  g_assert_cmpfloat (item (v1), ==, 15.0);
  g_assert_cmpuint (grads->len, ==, 1);
  g_assert_cmpfloat (item (g_ptr_array_index (grads, 0)), ==, 5.0);
  g_clear_pointer (&grads, g_ptr_array_unref);

  g_assert_true (ep_value_and_grad (product, &calls, inputs, 2, both, 2, &v2, &grads, &error));
  g_assert_no_error (error);
  g_assert_cmpfloat (item (v2), ==, 15.0);
  g_assert_cmpfloat (item (g_ptr_array_index (grads, 0)), ==, 5.0);
  g_assert_cmpfloat (item (g_ptr_array_index (grads, 1)), ==, 3.0);
  g_clear_pointer (&grads, g_ptr_array_unref);

  g_assert_true (ep_value_and_grad (product, &calls, inputs, 2, last, 1, &v3, &grads, &error));
  g_assert_no_error (error);
  g_assert_cmpfloat (item (g_ptr_array_index (grads, 0)), ==, 3.0);
  g_clear_pointer (&grads, g_ptr_array_unref);

  /* the same tensor twice: two arguments all the same */
  inputs[1] = a;
  g_assert_true (ep_value_and_grad (product, &calls, inputs, 2, both, 2, &v4, &grads, &error));
  g_assert_no_error (error);
  g_assert_cmpfloat (item (v4), ==, 9.0);
  g_assert_cmpfloat (item (g_ptr_array_index (grads, 0)), ==, 3.0);
  g_assert_cmpfloat (item (g_ptr_array_index (grads, 1)), ==, 3.0);
  g_assert_cmpuint (calls, ==, 4);
}

static void
test_value_and_grad_errors (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) a = scalar (3.0);
  EpTensor *inputs[] = { a, a };
  const gint out_of_range[] = { 2 };
  g_autoptr(GPtrArray) grads = NULL;
  g_autoptr(EpTensor) v = NULL;
  guint calls = 0;

  g_assert_false (ep_value_and_grad (product, &calls, inputs, 2, out_of_range, 1, &v, &grads, &error));
  g_assert_error (error, EP_ERROR, EP_ERROR_INVALID_ARGUMENT);
  g_assert_null (v);
  g_assert_null (grads);
  g_assert_cmpuint (calls, ==, 0);
}

static EpTensor *
fails (EpTensor **in, guint n, gpointer data, GError **error)
{
  g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_NOENT, "the function failed");
  return NULL;
}

static EpTensor *
returns_nothing (EpTensor **in, guint n, gpointer data, GError **error)
{
  return NULL;
}

static EpTensor *
returns_integers (EpTensor **in, guint n, gpointer data, GError **error)
{
  return ep_tensor_astype (in[0], EP_DTYPE_INT64, error);
}

static void
test_value_and_grad_function_errors (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) a = scalar (3.0);
  g_autoptr(EpTensor) v1 = NULL, v2 = NULL, v3 = NULL;
  g_autoptr(GPtrArray) grads = NULL;

  g_assert_false (ep_value_and_grad (fails, NULL, &a, 1, NULL, 0, &v1, &grads, &error));
  g_assert_error (error, G_FILE_ERROR, G_FILE_ERROR_NOENT);
  g_assert_null (v1);
  g_clear_error (&error);

  g_assert_false (ep_value_and_grad (returns_nothing, NULL, &a, 1, NULL, 0, &v2, &grads, &error));
  g_assert_error (error, EP_ERROR, EP_ERROR_INVALID_ARGUMENT);
  g_assert_null (v2);
  g_clear_error (&error);

  g_assert_false (ep_value_and_grad (returns_integers, NULL, &a, 1, NULL, 0, &v3, &grads, &error));
  g_assert_error (error, EP_ERROR, EP_ERROR_DTYPE);
  g_assert_null (v3);
  g_assert_null (grads);
}

/* The abs written with host-language control flow. */
static EpTensor *
branchy_abs (EpTensor **in, guint n, gpointer data, GError **error)
{
  gdouble value = ep_tensor_item_double (in[0], error);

  if (value > 0)
    return g_object_ref (in[0]);
  return ep_tensor_neg (in[0], error);
}

static void
test_control_flow_abs (void)
{
  g_autoptr(GError) error = NULL;
  const gdouble points[] = { 2.0, -2.0 }, slopes[] = { 1.0, -1.0 };

  for (guint i = 0; i < 2; i++)
    {
      g_autoptr(EpTensor) x = scalar (points[i]);
      g_autoptr(GPtrArray) grads = NULL;
      g_autoptr(EpTensor) v = NULL;

      g_assert_true (ep_value_and_grad (branchy_abs, NULL, &x, 1, NULL, 0, &v, &grads, &error));
      g_assert_no_error (error);
      g_assert_cmpfloat (item (v), ==, 2.0);
      g_assert_cmpfloat (item (g_ptr_array_index (grads, 0)), ==, slopes[i]);
    }
}

/* The Collatz loop: data-dependent control flow, eagerly. */
static EpTensor *
collatz (EpTensor **in, guint n_inputs, gpointer data, GError **error)
{
  g_autoptr(EpTensor) n = g_object_ref (in[0]);
  guint *steps = data;

  *steps = 0;
  while (TRUE)
    {
      gdouble value = ep_tensor_item_double (n, error);
      EpTensor *next;

      if (value == 1.0)
        break;
      if (fmod (value, 2.0) == 0.0)
        next = ep_tensor_div_scalar (n, 2.0, error);
      else
        {
          g_autoptr(EpTensor) tripled = ep_tensor_mul_scalar (n, 3.0, error);

          next = ep_tensor_add_scalar (tripled, 1.0, error);
        }
      g_object_unref (n);
      n = next;
      (*steps)++;
    }

  return ep_tensor_mul (n, in[0], error);
}

static void
test_collatz (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) x = ep_tensor_new_scalar (27.0, EP_DTYPE_FLOAT64, NULL);
  g_autoptr(GPtrArray) grads = NULL;
  g_autoptr(EpTensor) v = NULL;
  guint steps;

  g_assert_true (ep_value_and_grad (collatz, &steps, &x, 1, NULL, 0, &v, &grads, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (steps, ==, 111);    /* 41 odd steps, 70 even */
  g_assert_cmpfloat (item (v), ==, 27.0);
  /* d(n·x)/dx = n + x · dn/dx, with dn/dx = 3⁴¹ / 2⁷⁰ */
  g_assert_cmpfloat_with_epsilon (item (g_ptr_array_index (grads, 0)),
                                  1.0 + 27.0 * pow (3.0, 41) / pow (2.0, 70), 1e-9);
}

/* value_and_grad inside value_and_grad: a second derivative. */
static EpTensor *
cube (EpTensor **in, guint n, gpointer data, GError **error)
{
  return ep_tensor_pow_scalar (in[0], 3.0, error);
}

static EpTensor *
derivative_of_cube (EpTensor **in, guint n, gpointer data, GError **error)
{
  g_autoptr(GPtrArray) grads = NULL;

  if (!ep_value_and_grad (cube, NULL, in, 1, NULL, 0, NULL, &grads, error))
    return NULL;
  return g_object_ref (g_ptr_array_index (grads, 0));
}

static void
test_nested_value_and_grad (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) x = scalar (2.0);
  g_autoptr(GPtrArray) grads = NULL;
  g_autoptr(EpTensor) v = NULL;

  g_assert_true (ep_value_and_grad (derivative_of_cube, NULL, &x, 1, NULL, 0, &v, &grads, &error));
  g_assert_no_error (error);
  g_assert_cmpfloat_with_epsilon (item (v), 12.0, 1e-5);
  g_assert_cmpfloat_with_epsilon (item (g_ptr_array_index (grads, 0)), 12.0, 1e-5);
}

static GPtrArray *
with_aux (EpTensor **in, guint n, gpointer data, GError **error)
{
  GPtrArray *results = g_ptr_array_new_with_free_func (g_object_unref);

  g_ptr_array_add (results, ep_tensor_square (in[0], error));
  g_ptr_array_add (results, ep_tensor_exp (in[0], error));
  g_ptr_array_add (results, ep_tensor_neg (in[0], error));
  return results;
}

static GPtrArray *
empty_results (EpTensor **in, guint n, gpointer data, GError **error)
{
  return g_ptr_array_new ();
}

static GPtrArray *
non_tensor_results (EpTensor **in, guint n, gpointer data, GError **error)
{
  GPtrArray *results = g_ptr_array_new_with_free_func (g_object_unref);

  g_ptr_array_add (results, ep_tensor_square (in[0], error));
  g_ptr_array_add (results, g_object_ref (ep_device_get_default ()));
  return results;
}

static void
test_value_aux_and_grad (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) x = scalar (3.0);
  g_autoptr(GPtrArray) aux = NULL, grads = NULL;
  g_autoptr(EpTensor) v = NULL, v2 = NULL, v3 = NULL;

  g_assert_true (ep_value_aux_and_grad (with_aux, NULL, &x, 1, NULL, 0, &v, &aux, &grads, &error));
  g_assert_no_error (error);
  g_assert_cmpfloat (item (v), ==, 9.0);
  g_assert_cmpuint (aux->len, ==, 2);
  g_assert_cmpfloat_with_epsilon (item (g_ptr_array_index (aux, 0)), exp (3.0), 1e-4);
  g_assert_cmpfloat (item (g_ptr_array_index (aux, 1)), ==, -3.0);
  g_assert_cmpfloat (item (g_ptr_array_index (grads, 0)), ==, 6.0);
  g_clear_pointer (&aux, g_ptr_array_unref);
  g_clear_pointer (&grads, g_ptr_array_unref);

  g_assert_false (ep_value_aux_and_grad (empty_results, NULL, &x, 1, NULL, 0, &v2, &aux, &grads, &error));
  g_assert_error (error, EP_ERROR, EP_ERROR_INVALID_ARGUMENT);
  g_assert_null (v2);
  g_clear_error (&error);

  g_assert_false (ep_value_aux_and_grad (non_tensor_results, NULL, &x, 1, NULL, 0, &v3, &aux, &grads, &error));
  g_assert_error (error, EP_ERROR, EP_ERROR_INVALID_ARGUMENT);
  g_assert_null (v3);
  g_assert_null (aux);
  g_assert_null (grads);
}

/* Every result is optional: ask for the value alone, the gradients
 * alone, or neither (the function still runs). */
static void
test_value_and_grad_optional_results (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) a = scalar (3.0), b = scalar (5.0);
  EpTensor *inputs[] = { a, b };
  const gint both[] = { 0, 1 };
  g_autoptr(GPtrArray) grads = NULL, aux = NULL;
  g_autoptr(EpTensor) v = NULL, v2 = NULL;
  guint calls = 0;

  g_assert_true (ep_value_and_grad (product, &calls, inputs, 2, NULL, 0, &v, NULL, &error));
  g_assert_no_error (error);
  g_assert_cmpfloat (item (v), ==, 15.0);

  g_assert_true (ep_value_and_grad (product, &calls, inputs, 2, both, 2, NULL, &grads, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (grads->len, ==, 2);
  g_assert_cmpfloat (item (g_ptr_array_index (grads, 0)), ==, 5.0);
  g_assert_cmpfloat (item (g_ptr_array_index (grads, 1)), ==, 3.0);

  g_assert_true (ep_value_and_grad (product, &calls, inputs, 2, NULL, 0, NULL, NULL, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (calls, ==, 3);

  g_assert_true (ep_value_aux_and_grad (with_aux, NULL, inputs, 1, NULL, 0, &v2, &aux, NULL, &error));
  g_assert_no_error (error);
  g_assert_cmpfloat (item (v2), ==, 9.0);
  g_assert_cmpuint (aux->len, ==, 2);
  g_assert_cmpfloat (item (g_ptr_array_index (aux, 1)), ==, -3.0);
}

static EpTensor *
sum_of_squares (EpTensor **in, guint n, gpointer data, GError **error)
{
  g_autoptr(EpTensor) sq = ep_tensor_square (in[0], error);

  return sq ? ep_tensor_sum (sq, NULL, 0, FALSE, error) : NULL;
}

static void
count_destroy (gpointer data)
{
  (*(guint *) data)++;
}

/* Repeated calls keep no state: the same answers, and no tape left. */
static void
test_value_and_grad_fn (void)
{
  g_autoptr(GError) error = NULL;
  const gdouble xv[] = { 1, 2, 3 };
  g_autoptr(EpTensor) x = ep_test_vector (xv, 3, EP_DTYPE_FLOAT32);
  guint destroyed = 0;
  EpValueAndGradFn *fn = ep_value_and_grad_fn_new (sum_of_squares, &destroyed, count_destroy, NULL, 0);
  guint n_argnums;

  g_assert_false (ep_value_and_grad_fn_has_aux (fn));
  g_assert_cmpint (ep_value_and_grad_fn_get_argnums (fn, &n_argnums)[0], ==, 0);
  g_assert_cmpuint (n_argnums, ==, 1);
  g_assert_cmpint (ep_value_and_grad_fn_get_argnums (fn, NULL)[0], ==, 0);

  for (guint i = 0; i < 100; i++)
    {
      g_autoptr(GPtrArray) grads = NULL;
      g_autoptr(EpTensor) v = NULL;

      g_assert_true (ep_value_and_grad_fn_call (fn, &x, 1, &v, &grads, &error));
      g_assert_no_error (error);
      g_assert_cmpfloat (item (v), ==, 14.0);
      assert_values (g_ptr_array_index (grads, 0), (const gdouble[]) { 2, 4, 6 }, 3);
      g_assert_false (ep_recorders_any ());   /* no tape left behind */
    }

  g_assert_finalize_object (fn);
  g_assert_cmpuint (destroyed, ==, 1);
}

static void
test_value_and_grad_fn_with_aux (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) x = scalar (2.0);
  g_autoptr(EpValueAndGradFn) fn = ep_value_and_grad_fn_new_with_aux (with_aux, NULL, NULL, NULL, 0);
  g_autoptr(GPtrArray) aux = NULL, grads = NULL;
  g_autoptr(EpTensor) v = NULL, v2 = NULL;

  g_assert_true (ep_value_and_grad_fn_has_aux (fn));
  g_assert_true (ep_value_and_grad_fn_call_with_aux (fn, &x, 1, &v, &aux, &grads, &error));
  g_assert_no_error (error);
  g_assert_cmpfloat (item (v), ==, 4.0);
  g_assert_cmpuint (aux->len, ==, 2);
  g_assert_cmpfloat (item (g_ptr_array_index (grads, 0)), ==, 4.0);
  g_clear_pointer (&grads, g_ptr_array_unref);

  g_assert_true (ep_value_and_grad_fn_call (fn, &x, 1, &v2, &grads, &error));
  g_assert_no_error (error);
  g_assert_cmpfloat (item (v2), ==, 4.0);
  g_assert_cmpfloat (item (g_ptr_array_index (grads, 0)), ==, 4.0);
}

/* Custom gradients: the log(1 + e^x) at 100 */

static EpTensor *
naive_softplus (EpTensor **in, guint n, gpointer data, GError **error)
{
  g_autoptr(EpTensor) e = ep_tensor_exp (in[0], error);
  g_autoptr(EpTensor) e1 = e ? ep_tensor_add_scalar (e, 1.0, error) : NULL;

  return e1 ? ep_tensor_log (e1, error) : NULL;
}

static GPtrArray *
softplus_backward (EpTensor **in, guint n, EpTensor *y, EpTensor *g, gpointer data, GError **error)
{
  g_autoptr(EpTensor) s = ep_tensor_sigmoid (in[0], error);
  GPtrArray *grads;

  if (s == NULL)
    return NULL;
  grads = g_ptr_array_new_with_free_func (g_object_unref);
  g_ptr_array_add (grads, ep_tensor_mul (g, s, error));
  return grads;
}

static EpTensor *
stable_softplus (EpTensor **in, guint n, gpointer data, GError **error)
{
  return ep_custom_gradient (naive_softplus, NULL, softplus_backward, data, count_destroy, in, n, error);
}

static void
test_custom_gradient_softplus (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) x = scalar (100.0);
  g_autoptr(GPtrArray) naive = NULL, stable = NULL;
  g_autoptr(EpTensor) v1 = NULL, v2 = NULL;
  guint destroyed = 0;

  g_assert_true (ep_value_and_grad (naive_softplus, NULL, &x, 1, NULL, 0, &v1, &naive, &error));
  g_assert_no_error (error);
  g_assert_true (isnan (item (g_ptr_array_index (naive, 0))));

  g_assert_true (ep_value_and_grad (stable_softplus, &destroyed, &x, 1, NULL, 0, &v2, &stable, &error));
  g_assert_no_error (error);
  g_assert_cmpfloat (item (g_ptr_array_index (stable, 0)), ==, 1.0);

  /* the backward data goes once the result and the tape are gone */
  g_clear_object (&v2);
  g_assert_cmpuint (destroyed, ==, 1);
}

/* The object form: the functions are given once; each call is one
 * custom_gradient, and the backward data lives while the object or a
 * result needs it. */
static EpTensor *
stable_softplus_by_object (EpTensor **in, guint n, gpointer data, GError **error)
{
  return ep_custom_gradient_fn_call (EP_CUSTOM_GRADIENT_FN (data), in, n, error);
}

static void
test_custom_gradient_fn (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) x = scalar (100.0);
  guint destroyed = 0;
  EpCustomGradientFn *fn = ep_custom_gradient_fn_new (naive_softplus, NULL, NULL,
                                                      softplus_backward, &destroyed, count_destroy);

  for (guint call = 0; call < 2; call++)
    {
      g_autoptr(GPtrArray) grads = NULL;
      g_autoptr(EpTensor) value = NULL;

      g_assert_true (ep_value_and_grad (stable_softplus_by_object, fn, &x, 1, NULL, 0, &value, &grads, &error));
      g_assert_no_error (error);
      /* the naive forward's gradient is NaN here; the backward gives 1 */
      g_assert_cmpfloat (item (g_ptr_array_index (grads, 0)), ==, 1.0);
    }

  {
    g_autoptr(EpTensor) kept = ep_custom_gradient_fn_call (fn, &x, 1, &error);

    g_assert_no_error (error);
    g_object_unref (fn);
    g_assert_cmpuint (destroyed, ==, 0);     /* the result still needs it */
  }
  g_assert_cmpuint (destroyed, ==, 1);
}

/* g_object_new() makes an object without functions: calling it is an
 * error, not a crash. */
static void
test_custom_gradient_fn_bare (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) x = scalar (1.0);
  g_autoptr(EpCustomGradientFn) fn = g_object_new (EP_TYPE_CUSTOM_GRADIENT_FN, NULL);

  g_assert_null (ep_custom_gradient_fn_call (fn, &x, 1, &error));
  g_assert_error (error, EP_ERROR, EP_ERROR_INVALID_ARGUMENT);
  g_assert_true (g_str_has_prefix (error->message, "custom_gradient: "));
}

/* Second derivatives go through the backward function. */
static void
test_custom_gradient_second_derivative (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) x = scalar (0.5);
  g_autoptr(EpGradientTape) outer = ep_gradient_tape_new (FALSE);
  g_autoptr(EpGradientTape) inner = ep_gradient_tape_new (FALSE);
  g_autoptr(EpTensor) y = NULL, dy = NULL, d2y = NULL;
  gdouble s = 1.0 / (1.0 + exp (-0.5));
  guint destroyed = 0;

  ep_gradient_tape_start (outer, NULL);
  ep_gradient_tape_watch (outer, x);
  ep_gradient_tape_start (inner, NULL);
  ep_gradient_tape_watch (inner, x);
  y = stable_softplus (&x, 1, &destroyed, &error);
  ep_gradient_tape_stop (inner, NULL);
  dy = gradient1 (inner, y, x, &error);
  ep_gradient_tape_stop (outer, NULL);
  d2y = gradient1 (outer, dy, x, &error);
  g_assert_no_error (error);
  g_assert_cmpfloat_with_epsilon (item (dy), s, 1e-6);
  g_assert_cmpfloat_with_epsilon (item (d2y), s * (1 - s), 1e-6);
}

static GPtrArray *
backward_fails (EpTensor **in, guint n, EpTensor *y, EpTensor *g, gpointer data, GError **error)
{
  g_set_error (error, EP_ERROR, EP_ERROR_GRADIENT, "backward failed");
  return NULL;
}

static GPtrArray *
backward_returns_nothing (EpTensor **in, guint n, EpTensor *y, EpTensor *g, gpointer data, GError **error)
{
  return NULL;
}

static GPtrArray *
backward_too_many (EpTensor **in, guint n, EpTensor *y, EpTensor *g, gpointer data, GError **error)
{
  GPtrArray *grads = g_ptr_array_new_with_free_func (g_object_unref);

  g_ptr_array_add (grads, g_object_ref (g));
  g_ptr_array_add (grads, g_object_ref (g));
  return grads;
}

static GPtrArray *
backward_wrong_shape (EpTensor **in, guint n, EpTensor *y, EpTensor *g, gpointer data, GError **error)
{
  GPtrArray *grads = g_ptr_array_new_with_free_func (g_object_unref);

  g_ptr_array_add (grads, ep_tensor_expand_dims (g, 0, error));
  return grads;
}

static GPtrArray *
backward_no_gradient (EpTensor **in, guint n, EpTensor *y, EpTensor *g, gpointer data, GError **error)
{
  GPtrArray *grads = g_ptr_array_new ();

  g_ptr_array_add (grads, NULL);
  return grads;
}

static void
test_custom_gradient_errors (void)
{
  EpGradientFunc backwards[] = { backward_fails, backward_returns_nothing, backward_too_many,
                                 backward_wrong_shape };
  const gint codes[] = { EP_ERROR_GRADIENT, EP_ERROR_INVALID_ARGUMENT, EP_ERROR_INVALID_ARGUMENT,
                         EP_ERROR_SHAPE };

  for (guint i = 0; i < G_N_ELEMENTS (backwards); i++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(EpTensor) x = scalar (1.0);
      g_autoptr(EpGradientTape) tape = ep_gradient_tape_new (FALSE);
      g_autoptr(EpTensor) y = NULL, g = NULL;

      ep_gradient_tape_start (tape, NULL);
      ep_gradient_tape_watch (tape, x);
      y = ep_custom_gradient (naive_softplus, NULL, backwards[i], NULL, NULL, &x, 1, &error);
      g_assert_no_error (error);
      ep_gradient_tape_stop (tape, NULL);
      g = gradient1 (tape, y, x, &error);
      g_assert_error (error, EP_ERROR, codes[i]);
      g_assert_null (g);
    }

  {
    g_autoptr(GError) error = NULL;
    g_autoptr(EpTensor) x = scalar (1.0);
    guint destroyed = 0;
    g_autoptr(EpTensor) y = ep_custom_gradient (returns_nothing, NULL, backward_fails, &destroyed,
                                                count_destroy, &x, 1, &error);

    g_assert_error (error, EP_ERROR, EP_ERROR_INVALID_ARGUMENT);
    g_assert_null (y);
    g_assert_cmpuint (destroyed, ==, 1);
  }

  {
    g_autoptr(GError) error = NULL;
    g_autoptr(EpTensor) x = scalar (1.0);
    g_autoptr(EpTensor) y = NULL, g = NULL;
    g_autoptr(EpGradientTape) tape = ep_gradient_tape_new (FALSE);

    ep_gradient_tape_start (tape, NULL);
    ep_gradient_tape_watch (tape, x);
    y = ep_custom_gradient (naive_softplus, NULL, backward_no_gradient, NULL, NULL, &x, 1, &error);
    ep_gradient_tape_stop (tape, NULL);
    g = gradient1 (tape, y, x, &error);
    g_assert_no_error (error);
    g_assert_cmpfloat (item (g), ==, 0.0);
  }
}

/* Memory: a tape that is not persistent lets go of what it recorded once
 * it has answered, even while it lives on. */
static void
test_non_persistent_releases (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) x = scalar (3.0);
  g_autoptr(EpGradientTape) tape = ep_gradient_tape_new (FALSE);
  g_autoptr(EpTensor) y = NULL, g = NULL;
  EpTensor *intermediate;

  ep_gradient_tape_start (tape, NULL);
  ep_gradient_tape_watch (tape, x);
  intermediate = ep_tensor_exp (x, &error);
  y = ep_tensor_mul (intermediate, intermediate, &error);
  ep_gradient_tape_stop (tape, NULL);
  g_object_add_weak_pointer (G_OBJECT (intermediate), (gpointer *) &intermediate);
  g_object_unref (intermediate);
  g_assert_nonnull (intermediate);   /* the tape holds it */

  g = gradient1 (tape, y, x, &error);
  g_assert_no_error (error);
  g_assert_null (intermediate);      /* and let it go */
  g_assert_cmpfloat_with_epsilon (item (g), 2 * exp (6.0), 1.0);
}

static void
test_persistent_holds_until_finalized (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) x = scalar (1.0);
  EpGradientTape *tape = ep_gradient_tape_new (TRUE);
  g_autoptr(EpTensor) y = NULL, g = NULL;
  EpTensor *intermediate;

  ep_gradient_tape_start (tape, NULL);
  ep_gradient_tape_watch (tape, x);
  intermediate = ep_tensor_exp (x, &error);
  y = ep_tensor_mul (intermediate, intermediate, &error);
  ep_gradient_tape_stop (tape, NULL);
  g_object_add_weak_pointer (G_OBJECT (intermediate), (gpointer *) &intermediate);
  g_object_unref (intermediate);

  g = gradient1 (tape, y, x, &error);
  g_assert_no_error (error);
  g_assert_nonnull (intermediate);
  g_assert_finalize_object (tape);
  g_assert_null (intermediate);
}

/* The typed forms: gradient_variables and gradient_tensors answer as
 * gradient does with the same sources, and keep its errors. */
static void
test_typed_sources (void)
{
  g_autoptr(GError) error = NULL;
  const gdouble xv[] = { 1, 2, 3 };
  g_autoptr(EpTensor) x = ep_test_vector (xv, 3, EP_DTYPE_FLOAT32);
  g_autoptr(EpVariable) v = ep_variable_new (x, "v");
  g_autoptr(EpTensor) t = ep_test_vector (xv, 3, EP_DTYPE_FLOAT32);
  g_autoptr(EpGradientTape) tape = ep_gradient_tape_new (TRUE);
  g_autoptr(EpTensor) read = NULL, prod = NULL, y = NULL;
  g_autoptr(GPtrArray) by_variable = NULL, by_tensor = NULL, again = NULL;
  EpVariable *variables[1] = { v };
  EpTensor *tensors[1] = { t };
  EpTensor *weights[2] = { NULL, NULL };

  ep_gradient_tape_start (tape, NULL);
  ep_gradient_tape_watch (tape, t);
  read = ep_variable_read (v);
  prod = ep_tensor_mul (read, t, &error);
  y = ep_tensor_sum (prod, NULL, 0, FALSE, &error);
  ep_gradient_tape_stop (tape, NULL);
  g_assert_no_error (error);

  /* d(sum(v * t))/dv = t, d/dt = v */
  by_variable = ep_gradient_tape_gradient_variables (tape, &y, 1, variables, 1, NULL, 0, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (by_variable->len, ==, 1);
  assert_values (g_ptr_array_index (by_variable, 0), xv, 3);
  by_tensor = ep_gradient_tape_gradient_tensors (tape, &y, 1, tensors, 1, NULL, 0, &error);
  g_assert_no_error (error);
  assert_values (g_ptr_array_index (by_tensor, 0), xv, 3);

  /* the errors of gradient: two weights for one target */
  weights[0] = weights[1] = y;
  again = ep_gradient_tape_gradient_variables (tape, &y, 1, variables, 1, weights, 2, &error);
  g_assert_error (error, EP_ERROR, EP_ERROR_INVALID_ARGUMENT);
  g_assert_null (again);
  g_clear_error (&error);

  /* a source of the other kind, or none, is an error (a C cast gone wrong) */
  again = ep_gradient_tape_gradient_variables (tape, &y, 1, (EpVariable **) tensors, 1, NULL, 0, &error);
  g_assert_error (error, EP_ERROR, EP_ERROR_INVALID_ARGUMENT);
  g_assert_nonnull (strstr (error->message, "gradient_variables: source 0 is EpTensor"));
  g_assert_null (again);
  g_clear_error (&error);
  variables[0] = NULL;
  again = ep_gradient_tape_gradient_tensors (tape, &y, 1, (EpTensor **) variables, 1, NULL, 0, &error);
  g_assert_error (error, EP_ERROR, EP_ERROR_INVALID_ARGUMENT);
  g_assert_nonnull (strstr (error->message, "gradient_tensors: source 0 is NULL"));
  g_assert_null (again);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/autodiff/tape/square-and-second-derivative", test_square_and_second_derivative);
  g_test_add_func ("/autodiff/tape/third-derivative", test_third_derivative);
  g_test_add_func ("/autodiff/tape/non-persistent-answers-once", test_non_persistent_answers_once);
  g_test_add_func ("/autodiff/tape/persistent-answers-many-times", test_persistent_answers_many_times);
  g_test_add_func ("/autodiff/tape/targets-and-output-gradients", test_targets_and_output_gradients);
  g_test_add_func ("/autodiff/tape/typed-sources", test_typed_sources);
  g_test_add_func ("/autodiff/tape/bad-targets-and-sources", test_bad_targets_and_sources);
  g_test_add_func ("/autodiff/tape/unconnected", test_unconnected);
  g_test_add_func ("/autodiff/tape/integer-tensors", test_integer_tensors_have_no_gradient);
  g_test_add_func ("/autodiff/tape/start-stop-errors", test_start_and_stop_errors);
  g_test_add_func ("/autodiff/tape/per-thread", test_tapes_are_per_thread);
  g_test_add_func ("/autodiff/tape/stop-recording", test_stop_recording);
  g_test_add_func ("/autodiff/tape/resume-without-pause", test_resume_without_pause);
  g_test_add_func ("/autodiff/tape/reset", test_reset);
  g_test_add_func ("/autodiff/tape/jacobian", test_jacobian);
  g_test_add_func ("/autodiff/tape/batch-jacobian", test_batch_jacobian);
  g_test_add_func ("/autodiff/tape/jacobian-unconnected", test_jacobian_unconnected);
  g_test_add_func ("/autodiff/tape/subgradients", test_subgradients);
  g_test_add_func ("/autodiff/tape/non-persistent-releases", test_non_persistent_releases);
  g_test_add_func ("/autodiff/tape/persistent-holds", test_persistent_holds_until_finalized);
  g_test_add_func ("/autodiff/variable/watched-when-read", test_variable_watched_when_read);
  g_test_add_func ("/autodiff/variable/watch-explicitly", test_variable_watch_explicitly);
  g_test_add_func ("/autodiff/variable/assign-during-tape", test_variable_assign_during_tape);
  g_test_add_func ("/autodiff/variable/assign", test_variable_assign);
  g_test_add_func ("/autodiff/variable/assign-errors-name-the-call", test_variable_assign_errors_name_the_call);
  g_test_add_func ("/autodiff/stop-gradient", test_stop_gradient);
  g_test_add_func ("/autodiff/value-and-grad/basics", test_value_and_grad);
  g_test_add_func ("/autodiff/value-and-grad/optional-results", test_value_and_grad_optional_results);
  g_test_add_func ("/autodiff/value-and-grad/errors", test_value_and_grad_errors);
  g_test_add_func ("/autodiff/value-and-grad/function-errors", test_value_and_grad_function_errors);
  g_test_add_func ("/autodiff/value-and-grad/control-flow-abs", test_control_flow_abs);
  g_test_add_func ("/autodiff/value-and-grad/collatz", test_collatz);
  g_test_add_func ("/autodiff/value-and-grad/nested", test_nested_value_and_grad);
  g_test_add_func ("/autodiff/value-and-grad/aux", test_value_aux_and_grad);
  g_test_add_func ("/autodiff/value-and-grad/fn", test_value_and_grad_fn);
  g_test_add_func ("/autodiff/value-and-grad/fn-with-aux", test_value_and_grad_fn_with_aux);
  g_test_add_func ("/autodiff/custom-gradient/softplus", test_custom_gradient_softplus);
  g_test_add_func ("/autodiff/custom-gradient/second-derivative", test_custom_gradient_second_derivative);
  g_test_add_func ("/autodiff/custom-gradient/errors", test_custom_gradient_errors);
  g_test_add_func ("/autodiff/custom-gradient/object", test_custom_gradient_fn);
  g_test_add_func ("/autodiff/custom-gradient/object-bare", test_custom_gradient_fn_bare);

  return g_test_run ();
}
