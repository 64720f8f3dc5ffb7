/* test-function.c: staged functions, traced once and replayed
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "ep-test-gradient.h"

#include "ep-autodiff-private.h"
#include "ep-context-private.h"
#include "ep-executor-private.h"
#include "ep-function-private.h"
#include "ep-recorder-private.h"
#include "ep-staged-gradient-private.h"

/* The functions staged here count their calls: a replay must not call
 * them. */
static guint calls;

/* sqrt (sum (x * x) + y): a chain with a broadcast literal */
static GPtrArray *
norm_plus (EpTensor  **inputs,
           guint       n_inputs,
           gpointer    user_data,
           GError    **error)
{
  g_autoptr(EpTensor) squares = NULL, total = NULL, shifted = NULL;

  calls++;
  if ((squares = ep_tensor_mul (inputs[0], inputs[0], error)) == NULL
      || (total = ep_tensor_sum (squares, NULL, 0, FALSE, error)) == NULL
      || (shifted = ep_tensor_add (total, inputs[1], error)) == NULL)
    return NULL;

  return ep_test_one (ep_tensor_sqrt (shifted, error));
}

static GPtrArray *
call1 (EpFunction *fn,
       EpTensor   *a,
       EpTensor   *b,
       GError    **error)
{
  EpTensor *inputs[2] = { a, b };

  return ep_function_call (fn, inputs, b != NULL ? 2 : 1, error);
}

static void
test_replay_equals_eager (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpFunction) fn = ep_function_new (norm_plus, NULL, NULL);
  g_autoptr(EpTensor) x = ep_test_new (EP_DTYPE_FLOAT32, EP_SHAPE (3), EP_VALUES (1, 2, 2));
  g_autoptr(EpTensor) y = ep_test_new (EP_DTYPE_FLOAT32, EP_SCALAR, EP_VALUES (7));
  g_autoptr(EpTensor) x2 = ep_test_new (EP_DTYPE_FLOAT32, EP_SHAPE (3), EP_VALUES (3, 0, 4));
  g_autoptr(GPtrArray) first = NULL, second = NULL;

  calls = 0;
  first = call1 (fn, x, y, &error);
  g_assert_no_error (error);
  ep_assert_values (g_ptr_array_index (first, 0), EP_DTYPE_FLOAT32, EP_SCALAR, EP_VALUES (4));
  second = call1 (fn, x2, y, &error);
  g_assert_no_error (error);
  ep_assert_values (g_ptr_array_index (second, 0), EP_DTYPE_FLOAT32, EP_SCALAR, EP_VALUES (sqrtf (32)));
  g_assert_cmpuint (calls, ==, 1);
  g_assert_cmpuint (ep_function_get_trace_count (fn), ==, 1);
}

/* A new shape, dtype or device is a new graph; a graph is never replayed
 * on inputs it does not fit. */
static void
test_new_signature_retraces (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpFunction) fn = ep_function_new (norm_plus, NULL, NULL);
  g_autoptr(EpTensor) x = ep_test_new (EP_DTYPE_FLOAT32, EP_SHAPE (2), EP_VALUES (3, 4));
  g_autoptr(EpTensor) x3 = ep_test_new (EP_DTYPE_FLOAT32, EP_SHAPE (3), EP_VALUES (1, 2, 2));
  g_autoptr(EpTensor) x64 = ep_test_new (EP_DTYPE_FLOAT64, EP_SHAPE (2), EP_VALUES (3, 4));
  g_autoptr(EpTensor) y = ep_test_new (EP_DTYPE_FLOAT32, EP_SCALAR, EP_VALUES (0));
  g_autoptr(GPtrArray) a = NULL, b = NULL, c = NULL, d = NULL;

  calls = 0;
  a = call1 (fn, x, y, &error);
  b = call1 (fn, x3, y, &error);
  c = call1 (fn, x64, y, &error);
  d = call1 (fn, x, y, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (calls, ==, 3);
  g_assert_cmpuint (ep_function_get_trace_count (fn), ==, 3);
  ep_assert_values (g_ptr_array_index (b, 0), EP_DTYPE_FLOAT32, EP_SCALAR, EP_VALUES (3));
  ep_assert_values (g_ptr_array_index (c, 0), EP_DTYPE_FLOAT64, EP_SCALAR, EP_VALUES (5));
  ep_assert_values (g_ptr_array_index (d, 0), EP_DTYPE_FLOAT32, EP_SCALAR, EP_VALUES (5));
}

/* row sums of x (batch, 3) @ w reshaped by -1: the rules run again */
static GPtrArray *
rows (EpTensor  **inputs,
      guint       n_inputs,
      gpointer    user_data,
      GError    **error)
{
  g_autoptr(EpTensor) flat = NULL, sums = NULL;
  const gint axis = 1;

  calls++;
  if ((flat = ep_tensor_reshape (inputs[0], EP_SHAPE (-1, 3), error)) == NULL
      || (sums = ep_tensor_sum (flat, &axis, 1, FALSE, error)) == NULL)
    return NULL;

  return ep_test_one (ep_tensor_mul_scalar (sums, 2, error));
}

/* A relaxed signature: the call with other extents traces again, finds
 * the same computation, and from then on one graph serves every batch. */
static void
test_relaxed_signature (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensorSpec) spec = ep_tensor_spec_new (EP_SHAPE (-1, 3), EP_DTYPE_FLOAT32, &error);
  g_autoptr(EpFunction) fn = ep_function_new_with_signature (rows, NULL, NULL, &spec, 1);
  g_autoptr(EpTensor) two = ep_test_new (EP_DTYPE_FLOAT32, EP_SHAPE (2, 3), EP_VALUES (1, 2, 3, 4, 5, 6));
  g_autoptr(EpTensor) three = ep_test_new (EP_DTYPE_FLOAT32, EP_SHAPE (3, 3), EP_VALUES (1, 1, 1, 0, 0, 0, 2, 2, 2));
  g_autoptr(EpTensor) one_row = ep_test_new (EP_DTYPE_FLOAT32, EP_SHAPE (1, 3), EP_VALUES (1, 0, 1));
  g_autoptr(EpTensor) wrong = ep_test_new (EP_DTYPE_FLOAT32, EP_SHAPE (2, 2), EP_VALUES (1, 2, 3, 4));
  g_autoptr(GPtrArray) a = NULL, b = NULL, c = NULL, d = NULL, e = NULL;

  g_assert_no_error (error);
  calls = 0;
  a = call1 (fn, two, NULL, &error);
  b = call1 (fn, three, NULL, &error);
  c = call1 (fn, one_row, NULL, &error);
  d = call1 (fn, two, NULL, &error);
  g_assert_no_error (error);
  ep_assert_values (g_ptr_array_index (a, 0), EP_DTYPE_FLOAT32, EP_SHAPE (2), EP_VALUES (12, 30));
  ep_assert_values (g_ptr_array_index (b, 0), EP_DTYPE_FLOAT32, EP_SHAPE (3), EP_VALUES (6, 0, 12));
  ep_assert_values (g_ptr_array_index (c, 0), EP_DTYPE_FLOAT32, EP_SHAPE (1), EP_VALUES (4));
  ep_assert_values (g_ptr_array_index (d, 0), EP_DTYPE_FLOAT32, EP_SHAPE (2), EP_VALUES (12, 30));
  g_assert_cmpuint (calls, ==, 2);
  g_assert_cmpuint (ep_function_get_trace_count (fn), ==, 2);

  e = call1 (fn, wrong, NULL, &error);
  g_assert_null (e);
  ep_assert_error (error, EP_ERROR_SHAPE, "function", "does not fit the signature");
}

/* x / batch, the batch read on the host: the second trace differs (the
 * constant 1/batch), so each batch size gets its own graph, and every
 * call gives what the function gives eagerly. */
static GPtrArray *
scale_by_batch (EpTensor  **inputs,
                guint       n_inputs,
                gpointer    user_data,
                GError    **error)
{
  calls++;
  return ep_test_one (ep_tensor_div_scalar (inputs[0], ep_tensor_get_shape (inputs[0], NULL)[0], error));
}

static void
test_relaxed_signature_specialized (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensorSpec) spec = ep_tensor_spec_new (EP_SHAPE (-1), EP_DTYPE_FLOAT64, &error);
  g_autoptr(EpFunction) fn = ep_function_new_with_signature (scale_by_batch, NULL, NULL, &spec, 1);
  const guint batches[] = { 2, 4, 2, 4, 5, 5 };

  calls = 0;
  for (guint k = 0; k < G_N_ELEMENTS (batches); k++)
    {
      g_autoptr(EpTensor) x = ep_full (EP_SHAPE (batches[k]), 1.0, EP_DTYPE_FLOAT64, &error);
      g_autoptr(GPtrArray) result = call1 (fn, x, NULL, &error);
      g_autoptr(EpTensor) total = NULL;

      g_assert_no_error (error);
      total = ep_tensor_sum (g_ptr_array_index (result, 0), NULL, 0, FALSE, &error);
      g_assert_cmpfloat (ep_tensor_item_double (total, &error), ==, 1.0);
    }
  g_assert_cmpuint (calls, ==, 3);
  g_assert_cmpuint (ep_function_get_trace_count (fn), ==, 3);
}

/* The gradient of mean (x * v) with respect to v, for x of any batch
 * size: mean's gradient rule divides by the count it sees. */
static GPtrArray *
mean_gradient (EpTensor  **inputs,
               guint       n_inputs,
               gpointer    user_data,
               GError    **error)
{
  EpVariable *v = user_data;
  g_autoptr(EpGradientTape) tape = ep_gradient_tape_new (FALSE);
  g_autoptr(EpTensor) value = NULL, product = NULL, mean = NULL;
  GObject *sources[1] = { G_OBJECT (v) };

  calls++;
  if (!ep_gradient_tape_start (tape, error))
    return NULL;
  value = ep_variable_read (v);
  if ((product = ep_tensor_mul (inputs[0], value, error)) == NULL
      || (mean = ep_tensor_mean (product, NULL, 0, FALSE, error)) == NULL
      || !ep_gradient_tape_stop (tape, error))
    return NULL;

  return ep_gradient_tape_gradient (tape, &mean, 1, sources, 1, NULL, 0, error);
}

/* With gradients inside, a relaxed signature traces once per shape: a
 * replay of the graph traced on 2 rows would divide by 4 elements. */
static void
test_relaxed_signature_with_gradients (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) init = ep_test_new (EP_DTYPE_FLOAT32, EP_SHAPE (2), EP_VALUES (1, 1));
  g_autoptr(EpVariable) v = ep_variable_new (init, "v");
  g_autoptr(EpTensorSpec) spec = ep_tensor_spec_new (EP_SHAPE (-1, 2), EP_DTYPE_FLOAT32, &error);
  g_autoptr(EpFunction) fn = ep_function_new_with_signature (mean_gradient, v, NULL, &spec, 1);
  g_autoptr(EpTensor) two = ep_test_new (EP_DTYPE_FLOAT32, EP_SHAPE (2, 2), EP_VALUES (1, 2, 3, 4));
  g_autoptr(EpTensor) four = ep_test_new (EP_DTYPE_FLOAT32, EP_SHAPE (4, 2), EP_VALUES (1, 2, 3, 4, 5, 6, 7, 8));
  g_autoptr(EpTensor) other_two = ep_test_new (EP_DTYPE_FLOAT32, EP_SHAPE (2, 2), EP_VALUES (4, 4, 0, 0));
  g_autoptr(GPtrArray) a = NULL, b = NULL, c = NULL;

  calls = 0;
  a = call1 (fn, two, NULL, &error);
  b = call1 (fn, four, NULL, &error);
  c = call1 (fn, other_two, NULL, &error);
  g_assert_no_error (error);
  ep_assert_values (g_ptr_array_index (a, 0), EP_DTYPE_FLOAT32, EP_SHAPE (2), EP_VALUES (1, 1.5));
  ep_assert_values (g_ptr_array_index (b, 0), EP_DTYPE_FLOAT32, EP_SHAPE (2), EP_VALUES (2, 2.5));
  ep_assert_values (g_ptr_array_index (c, 0), EP_DTYPE_FLOAT32, EP_SHAPE (2), EP_VALUES (1, 1));
  g_assert_cmpuint (calls, ==, 2);
  g_assert_cmpuint (ep_function_get_trace_count (fn), ==, 2);
}

/* A training step: loss = sum ((w - x)²) with a tape inside the
 * function, then w -= 0.25 * dloss/dw; returns the loss. */
static GPtrArray *
step (EpTensor  **inputs,
      guint       n_inputs,
      gpointer    user_data,
      GError    **error)
{
  EpVariable *w = user_data;
  g_autoptr(EpGradientTape) tape = ep_gradient_tape_new (FALSE);
  g_autoptr(EpTensor) value = NULL, diff = NULL, squares = NULL, loss = NULL, scaled = NULL;
  g_autoptr(GPtrArray) grads = NULL;
  GObject *sources[1] = { G_OBJECT (w) };

  calls++;
  if (!ep_gradient_tape_start (tape, error))
    return NULL;
  value = ep_variable_read (w);
  if ((diff = ep_tensor_sub (value, inputs[0], error)) == NULL
      || (squares = ep_tensor_square (diff, error)) == NULL
      || (loss = ep_tensor_sum (squares, NULL, 0, FALSE, error)) == NULL
      || !ep_gradient_tape_stop (tape, error))
    return NULL;

  grads = ep_gradient_tape_gradient (tape, &loss, 1, sources, 1, NULL, 0, error);
  if (grads == NULL
      || (scaled = ep_tensor_mul_scalar (g_ptr_array_index (grads, 0), 0.25, error)) == NULL
      || !ep_variable_assign_sub (w, scaled, error))
    return NULL;

  return ep_test_one (g_steal_pointer (&loss));
}

/* The staged step updates the variable it captured, by reference, call
 * after call, as the eager step does: w moves halfway to x each time. */
static void
test_variables_by_reference (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) init = ep_test_new (EP_DTYPE_FLOAT32, EP_SHAPE (2), EP_VALUES (1, 2));
  g_autoptr(EpTensor) target = ep_test_new (EP_DTYPE_FLOAT32, EP_SHAPE (2), EP_VALUES (5, 6));
  g_autoptr(EpVariable) w = ep_variable_new (init, "w");
  g_autoptr(EpFunction) fn = ep_function_new (step, w, NULL);
  const gdouble losses[] = { 32, 8, 2 };
  const gdouble after[][2] = { { 3, 4 }, { 4, 5 }, { 4.5, 5.5 } };

  calls = 0;
  for (guint k = 0; k < 3; k++)
    {
      g_autoptr(GPtrArray) result = call1 (fn, target, NULL, &error);
      g_autoptr(EpTensor) now = NULL;

      g_assert_no_error (error);
      ep_assert_values (g_ptr_array_index (result, 0), EP_DTYPE_FLOAT32, EP_SCALAR, &losses[k], 1);
      now = ep_variable_read (w);
      ep_assert_values (now, EP_DTYPE_FLOAT32, EP_SHAPE (2), after[k], 2);
    }
  g_assert_cmpuint (calls, ==, 1);
}

/* Reads after an assignment inside the function see the new value; the
 * variable changes only when the call succeeds. */
static GPtrArray *
double_then_read (EpTensor  **inputs,
                  guint       n_inputs,
                  gpointer    user_data,
                  GError    **error)
{
  EpVariable *v = user_data;
  g_autoptr(EpTensor) value = ep_variable_read (v);
  g_autoptr(EpTensor) doubled = ep_tensor_mul_scalar (value, 2, error);
  g_autoptr(EpTensor) again = NULL;

  calls++;
  if (doubled == NULL || !ep_variable_assign (v, doubled, error))
    return NULL;
  again = ep_variable_read (v);
  return ep_test_one (ep_tensor_add (again, inputs[0], error));
}

static void
test_reads_after_assign (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) init = ep_test_new (EP_DTYPE_FLOAT32, EP_SCALAR, EP_VALUES (1));
  g_autoptr(EpTensor) x = ep_test_new (EP_DTYPE_FLOAT32, EP_SCALAR, EP_VALUES (10));
  g_autoptr(EpVariable) v = ep_variable_new (init, "v");
  g_autoptr(EpFunction) fn = ep_function_new (double_then_read, v, NULL);
  g_autoptr(GPtrArray) first = NULL, second = NULL;
  g_autoptr(EpTensor) now = NULL;

  calls = 0;
  first = call1 (fn, x, NULL, &error);
  second = call1 (fn, x, NULL, &error);
  g_assert_no_error (error);
  ep_assert_values (g_ptr_array_index (first, 0), EP_DTYPE_FLOAT32, EP_SCALAR, EP_VALUES (12));
  ep_assert_values (g_ptr_array_index (second, 0), EP_DTYPE_FLOAT32, EP_SCALAR, EP_VALUES (14));
  now = ep_variable_read (v);
  ep_assert_values (now, EP_DTYPE_FLOAT32, EP_SCALAR, EP_VALUES (4));
  g_assert_cmpuint (calls, ==, 1);
}

static GPtrArray *
noise (EpTensor  **inputs,
       guint       n_inputs,
       gpointer    user_data,
       GError    **error)
{
  g_autoptr(EpTensor) u = ep_uniform (EP_SHAPE (4), 0, 1, EP_DTYPE_FLOAT32, error);

  return ep_test_one (u != NULL ? ep_tensor_add (u, inputs[0], error) : NULL);
}

/* Each replay draws new numbers, the ones the eager calls would. */
static void
test_random_streams (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpFunction) fn = ep_function_new (noise, NULL, NULL);
  g_autoptr(EpTensor) zero = ep_test_new (EP_DTYPE_FLOAT32, EP_SCALAR, EP_VALUES (0));
  g_autoptr(GPtrArray) eager1 = NULL, eager2 = NULL, staged1 = NULL, staged2 = NULL;
  g_autoptr(GBytes) e1 = NULL, e2 = NULL, s1 = NULL, s2 = NULL;
  EpTensor *inputs[1] = { zero };

  ep_set_seed (7);
  eager1 = noise (inputs, 1, NULL, &error);
  eager2 = noise (inputs, 1, NULL, &error);
  ep_set_seed (7);
  staged1 = call1 (fn, zero, NULL, &error);
  staged2 = call1 (fn, zero, NULL, &error);
  g_assert_no_error (error);

  e1 = ep_tensor_to_bytes (g_ptr_array_index (eager1, 0), NULL);
  e2 = ep_tensor_to_bytes (g_ptr_array_index (eager2, 0), NULL);
  s1 = ep_tensor_to_bytes (g_ptr_array_index (staged1, 0), NULL);
  s2 = ep_tensor_to_bytes (g_ptr_array_index (staged2, 0), NULL);
  g_assert_true (g_bytes_equal (e1, s1));
  g_assert_true (g_bytes_equal (e2, s2));
  g_assert_false (g_bytes_equal (s1, s2));
}

/* The function's own error, at trace time, is the eager one; nothing is
 * cached, so the next call traces again. */
static GPtrArray *
mismatched (EpTensor  **inputs,
            guint       n_inputs,
            gpointer    user_data,
            GError    **error)
{
  calls++;
  return ep_test_one (ep_tensor_add (inputs[0], inputs[1], error));
}

static void
test_trace_errors (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpFunction) fn = ep_function_new (mismatched, NULL, NULL);
  g_autoptr(EpTensor) a = ep_test_new (EP_DTYPE_FLOAT32, EP_SHAPE (2), EP_VALUES (1, 2));
  g_autoptr(EpTensor) b = ep_test_new (EP_DTYPE_FLOAT32, EP_SHAPE (3), EP_VALUES (1, 2, 3));
  g_autoptr(EpFunction) bare = g_object_new (EP_TYPE_FUNCTION, NULL);

  calls = 0;
  g_assert_null (call1 (fn, a, b, &error));
  ep_assert_error (error, EP_ERROR_SHAPE, "add", "cannot be broadcast");
  g_clear_error (&error);
  g_assert_null (call1 (fn, a, b, &error));
  g_assert_cmpuint (calls, ==, 2);
  g_assert_cmpuint (ep_function_get_trace_count (fn), ==, 0);
  g_clear_error (&error);

  g_assert_null (call1 (bare, a, NULL, &error));
  ep_assert_error (error, EP_ERROR_INVALID_ARGUMENT, "function", "without a function");
}

/* A replay makes a tensor object for each result and none for the
 * intermediates (the thread's context counts the tensors made). */
static void
test_no_objects_for_intermediates (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpFunction) fn = ep_function_new (norm_plus, NULL, NULL);
  g_autoptr(EpTensor) x = ep_test_new (EP_DTYPE_FLOAT32, EP_SHAPE (3), EP_VALUES (1, 2, 2));
  g_autoptr(EpTensor) y = ep_test_new (EP_DTYPE_FLOAT32, EP_SCALAR, EP_VALUES (7));
  g_autoptr(GPtrArray) first = call1 (fn, x, y, &error);
  g_autoptr(GPtrArray) warm = call1 (fn, x, y, &error);
  guint64 before = ep_context_get ()->tensors_made;
  g_autoptr(GPtrArray) next = call1 (fn, x, y, &error);

  g_assert_no_error (error);
  g_assert_cmpuint (ep_context_get ()->tensors_made, ==, before + 1);
}

/* A tape around a staged call: the gradient is the eager one, on the
 * first call (traced: the tape records its ops) as on the next ones
 * (replayed: one step, see /function/gradient/). */
static void
test_tape_around_call (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpFunction) fn = ep_function_new (norm_plus, NULL, NULL);
  g_autoptr(EpTensor) y = ep_test_new (EP_DTYPE_FLOAT32, EP_SCALAR, EP_VALUES (0));

  for (guint k = 0; k < 2; k++)
    {
      g_autoptr(EpTensor) x = ep_test_new (EP_DTYPE_FLOAT32, EP_SHAPE (2), EP_VALUES (3, 4));
      g_autoptr(EpGradientTape) tape = ep_gradient_tape_new (FALSE);
      g_autoptr(GPtrArray) result = NULL;
      g_autoptr(GPtrArray) grads = NULL;
      GObject *sources[1] = { G_OBJECT (x) };

      ep_gradient_tape_watch (tape, x);
      g_assert_true (ep_gradient_tape_start (tape, NULL));
      result = call1 (fn, x, y, &error);
      g_assert_true (ep_gradient_tape_stop (tape, NULL));
      grads = ep_gradient_tape_gradient (tape, (EpTensor **) result->pdata, 1, sources, 1, NULL, 0, &error);
      g_assert_no_error (error);
      ep_assert_values (g_ptr_array_index (grads, 0), EP_DTYPE_FLOAT32, EP_SHAPE (2), EP_VALUES (0.6, 0.8));
    }
}

/* 2 * x: placed by the device scope of the call, as the eager op is */
static GPtrArray *
twice (EpTensor  **inputs,
       guint       n_inputs,
       gpointer    user_data,
       GError    **error)
{
  calls++;
  return ep_test_one (ep_tensor_mul_scalar (inputs[0], 2, error));
}

/* The device scope of a call is part of its signature: a graph traced
 * outside a scope does not run on cpu:0 when the call is in an OpenCL
 * device's scope, where the eager ops would run. */
static void
test_device_scope_retraces (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpFunction) fn = ep_function_new (twice, NULL, NULL);
  g_autoptr(EpTensor) x = ep_test_new (EP_DTYPE_FLOAT32, EP_SHAPE (2), EP_VALUES (1, 2));
  EpDevice *opencl = ep_device_get ("opencl:0", NULL);
  g_autoptr(GPtrArray) outside = NULL, inside = NULL, again = NULL;

  if (opencl == NULL)
    {
      g_test_skip ("no OpenCL device");
      return;
    }

  calls = 0;
  outside = call1 (fn, x, NULL, &error);
  g_assert_true (ep_device_push (opencl, NULL));
  inside = call1 (fn, x, NULL, &error);
  again = call1 (fn, x, NULL, &error);
  g_assert_true (ep_device_pop (opencl, NULL));
  g_assert_no_error (error);

  g_assert_cmpstr (ep_device_get_name (ep_tensor_get_device (g_ptr_array_index (outside, 0))), ==, "cpu:0");
  g_assert_cmpstr (ep_device_get_name (ep_tensor_get_device (g_ptr_array_index (inside, 0))), ==, "opencl:0");
  g_assert_cmpstr (ep_device_get_name (ep_tensor_get_device (g_ptr_array_index (again, 0))), ==, "opencl:0");
  ep_assert_values (g_ptr_array_index (again, 0), EP_DTYPE_FLOAT32, EP_SHAPE (2), EP_VALUES (2, 4));
  g_assert_cmpuint (calls, ==, 2);
}

/* A custom gradient inside a staged function: softplus, whose gradient
 * is given as sigmoid (x) (the naive one is NaN at x = 100). */
static guint backward_calls, backward_destroyed;

static EpTensor *
softplus_forward (EpTensor  **inputs,
                  guint       n_inputs,
                  gpointer    user_data,
                  GError    **error)
{
  g_autoptr(EpTensor) e = ep_tensor_exp (inputs[0], error);

  return e != NULL ? ep_tensor_log1p (e, error) : NULL;
}

static GPtrArray *
softplus_backward (EpTensor  **inputs,
                   guint       n_inputs,
                   EpTensor   *output,
                   EpTensor   *output_gradient,
                   gpointer    user_data,
                   GError    **error)
{
  g_autoptr(EpTensor) s = ep_tensor_sigmoid (inputs[0], error);

  backward_calls++;
  return ep_test_one (s != NULL ? ep_tensor_mul (s, output_gradient, error) : NULL);
}

static void
count_destroyed (gpointer data)
{
  backward_destroyed++;
}

static GPtrArray *
stable_softplus (EpTensor  **inputs,
                 guint       n_inputs,
                 gpointer    user_data,
                 GError    **error)
{
  calls++;
  return ep_test_one (ep_custom_gradient (softplus_forward, NULL, softplus_backward, NULL, count_destroyed,
                                  inputs, 1, error));
}

/* A tape around the replays differentiates through the user's backward
 * function, which the graph keeps (and lets go with the function). */
static void
test_custom_gradient_replayed (void)
{
  g_autoptr(GError) error = NULL;
  EpFunction *fn = ep_function_new (stable_softplus, NULL, NULL);
  g_autoptr(EpTensor) first = ep_test_new (EP_DTYPE_FLOAT32, EP_SHAPE (2), EP_VALUES (0, 1));
  g_autoptr(GPtrArray) traced = NULL;

  calls = backward_calls = backward_destroyed = 0;
  traced = call1 (fn, first, NULL, &error);
  g_assert_no_error (error);

  for (guint k = 0; k < 2; k++)
    {
      g_autoptr(EpTensor) x = ep_test_new (EP_DTYPE_FLOAT32, EP_SHAPE (2), EP_VALUES (100, 0));
      g_autoptr(EpGradientTape) tape = ep_gradient_tape_new (FALSE);
      g_autoptr(GPtrArray) result = NULL, grads = NULL;
      GObject *sources[1] = { G_OBJECT (x) };

      ep_gradient_tape_watch (tape, x);
      g_assert_true (ep_gradient_tape_start (tape, NULL));
      result = call1 (fn, x, NULL, &error);
      g_assert_true (ep_gradient_tape_stop (tape, NULL));
      g_assert_no_error (error);
      grads = ep_gradient_tape_gradient (tape, (EpTensor **) result->pdata, 1, sources, 1, NULL, 0, &error);
      g_assert_no_error (error);
      ep_assert_values (g_ptr_array_index (grads, 0), EP_DTYPE_FLOAT32, EP_SHAPE (2), EP_VALUES (1, 0.5));
    }
  g_assert_cmpuint (calls, ==, 1);
  /* the staged backward pass traced it once, and replays it */
  g_assert_cmpuint (backward_calls, ==, 1);

  g_clear_pointer (&traced, g_ptr_array_unref);
  g_assert_cmpuint (backward_destroyed, ==, 0);
  g_assert_finalize_object (fn);
  g_assert_cmpuint (backward_destroyed, ==, 1);
}

/* A staged function called from one being traced: its ops are staged
 * into the outer graph, which then replays without calling either. */
static EpFunction *inner_fn;

static GPtrArray *
outer (EpTensor  **inputs,
       guint       n_inputs,
       gpointer    user_data,
       GError    **error)
{
  g_autoptr(GPtrArray) inner = ep_function_call (inner_fn, inputs, 2, error);

  calls++;
  return inner != NULL ? ep_test_one (ep_tensor_neg (g_ptr_array_index (inner, 0), error)) : NULL;
}

static void
test_nested_functions (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpFunction) fn = ep_function_new (outer, NULL, NULL);
  g_autoptr(EpTensor) x = ep_test_new (EP_DTYPE_FLOAT32, EP_SHAPE (2), EP_VALUES (3, 4));
  g_autoptr(EpTensor) x2 = ep_test_new (EP_DTYPE_FLOAT32, EP_SHAPE (2), EP_VALUES (6, 8));
  g_autoptr(EpTensor) y = ep_test_new (EP_DTYPE_FLOAT32, EP_SCALAR, EP_VALUES (0));
  g_autoptr(GPtrArray) warm = NULL, first = NULL, second = NULL;
  g_autoptr(EpGraph) graph = NULL;
  EpTensor *inputs[2] = { x, y };

  inner_fn = ep_function_new (norm_plus, NULL, NULL);
  warm = call1 (inner_fn, x, y, &error);      /* the inner one traced first */
  calls = 0;
  first = call1 (fn, x, y, &error);
  second = call1 (fn, x2, y, &error);
  g_assert_no_error (error);
  ep_assert_values (g_ptr_array_index (first, 0), EP_DTYPE_FLOAT32, EP_SCALAR, EP_VALUES (-5));
  ep_assert_values (g_ptr_array_index (second, 0), EP_DTYPE_FLOAT32, EP_SCALAR, EP_VALUES (-10));
  g_assert_cmpuint (calls, ==, 1);

  graph = ep_function_lookup_graph (fn, inputs, 2);
  g_assert_nonnull (graph);
  g_assert_cmpuint (ep_graph_get_n_nodes (graph), ==, 5);   /* mul sum add sqrt neg */
  g_clear_object (&inner_fn);
}

/* A replay on other extents that would put a value of the wrong shape in
 * a variable fails as the eager assignment does, and changes nothing. */
static GPtrArray *
store (EpTensor  **inputs,
       guint       n_inputs,
       gpointer    user_data,
       GError    **error)
{
  return ep_variable_assign (user_data, inputs[0], error) ? ep_test_one (NULL) : NULL;
}

static void
test_replay_checks_assigned_shapes (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) init = ep_test_new (EP_DTYPE_FLOAT32, EP_SHAPE (2), EP_VALUES (0, 0));
  g_autoptr(EpVariable) v = ep_variable_new (init, "v");
  g_autoptr(EpFunction) fn = ep_function_new (store, v, NULL);
  g_autoptr(EpTensor) two = ep_test_new (EP_DTYPE_FLOAT32, EP_SHAPE (2), EP_VALUES (1, 2));
  g_autoptr(EpTensor) three = ep_test_new (EP_DTYPE_FLOAT32, EP_SHAPE (3), EP_VALUES (1, 2, 3));
  g_autoptr(GPtrArray) traced = call1 (fn, two, NULL, &error);
  g_autoptr(EpGraph) graph = ep_function_lookup_graph (fn, &two, 1);
  g_autoptr(EpFrame) frame = ep_frame_new (graph);
  g_autoptr(EpTensor) now = NULL;

  g_assert_no_error (error);
  g_assert_false (ep_graph_replay (graph, frame, &three, NULL, NULL, NULL, &error));
  ep_assert_error (error, EP_ERROR_SHAPE, "assign", "cannot go in a variable of shape (2,)");
  now = ep_variable_read (v);
  ep_assert_values (now, EP_DTYPE_FLOAT32, EP_SHAPE (2), EP_VALUES (1, 2));
}

/* Gradients through staged calls: a replay under tapes is one step on
 * each tape, whose backward pass is a staged function of its own. */

/* @a and @b hold the same bytes */
static void
assert_same_bytes (EpTensor *a,
                   EpTensor *b)
{
  g_autoptr(GBytes) ba = ep_tensor_to_bytes (a, NULL);
  g_autoptr(GBytes) bb = ep_tensor_to_bytes (b, NULL);

  g_assert_nonnull (ba);
  g_assert_nonnull (bb);
  g_assert_true (g_bytes_equal (ba, bb));
}

/* @a equals @b to float32 precision */
static void
assert_close_tensors (EpTensor *a,
                      EpTensor *b)
{
  gsize n;
  g_autofree gdouble *want = ep_test_get_values (b, &n);

  ep_test_assert_close (a, want, n);
}

/* The outputs of @fn on @inputs (staged), or of @body (eager), run
 * while @tape records. */
static GPtrArray *
run_under (EpGradientTape  *tape,
           EpFunction      *fn,
           EpTensorsFunc    body,
           gpointer         data,
           EpTensor       **inputs,
           guint            n_inputs)
{
  g_autoptr(GError) error = NULL;
  GPtrArray *outputs;

  g_assert_true (ep_gradient_tape_start (tape, NULL));
  if (fn != NULL)
    outputs = ep_function_call (fn, inputs, n_inputs, &error);
  else
    outputs = ep_autodiff_take_tensors (body (inputs, n_inputs, data, &error), FALSE, "test", "results", NULL);
  g_assert_true (ep_gradient_tape_stop (tape, NULL));
  g_assert_no_error (error);
  g_assert_nonnull (outputs);

  return outputs;
}

/* The gradient of output @target of the call with respect to @sources,
 * every tensor source watched; *@n_entries: what the tape recorded. */
static GPtrArray *
call_gradient (EpFunction     *fn,
               EpTensorsFunc   body,
               gpointer        data,
               EpTensor      **inputs,
               guint           n_inputs,
               guint           target,
               GObject       **sources,
               guint           n_sources,
               guint          *n_entries)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpGradientTape) tape = ep_gradient_tape_new (FALSE);
  g_autoptr(GPtrArray) outputs = NULL;
  GPtrArray *grads;

  for (guint s = 0; s < n_sources; s++)
    if (EP_IS_TENSOR (sources[s]))
      ep_gradient_tape_watch (tape, EP_TENSOR (sources[s]));
  outputs = run_under (tape, fn, body, data, inputs, n_inputs);
  if (n_entries != NULL)
    *n_entries = ep_gradient_tape_get_n_entries (tape);

  grads = ep_gradient_tape_gradient (tape, (EpTensor **) &outputs->pdata[target], 1,
                                     sources, n_sources, NULL, 0, &error);
  g_assert_no_error (error);
  return grads;
}

/* How often the backward function for every floating-point input (and
 * value read) of the call on @inputs was traced */
static guint
backward_traces (EpFunction       *fn,
                 EpTensor *const  *inputs,
                 guint             n_inputs)
{
  g_autoptr(EpStagedGradient) gradient = ep_function_lookup_gradient (fn, inputs, n_inputs);
  EpFunction *backward = gradient != NULL ? ep_staged_gradient_peek_backward (gradient, NULL) : NULL;

  return backward != NULL ? ep_function_get_trace_count (backward) : 0;
}

/* How often the rest of the split graph (the backward pass on the
 * residuals) for @inputs was traced; -1 if there is no split */
static gint
rest_traces (EpFunction       *fn,
             EpTensor *const  *inputs,
             guint             n_inputs)
{
  g_autoptr(EpStagedGradient) gradient = ep_function_lookup_gradient (fn, inputs, n_inputs);
  EpFunction *rest = gradient != NULL ? ep_staged_gradient_peek_rest (gradient, inputs) : NULL;

  return rest != NULL ? (gint) ep_function_get_trace_count (rest) : -1;
}

/* The tape around a replay holds one step for the whole call, its
 * gradient is the eager one, and the backward function is traced once:
 * later gradients replay it, without calling the function. */
static void
test_gradient_equals_eager (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpFunction) fn = ep_function_new (norm_plus, NULL, NULL);
  g_autoptr(EpTensor) x = ep_test_new (EP_DTYPE_FLOAT32, EP_SHAPE (3), EP_VALUES (1, 2, 2));
  g_autoptr(EpTensor) y = ep_test_new (EP_DTYPE_FLOAT32, EP_SCALAR, EP_VALUES (7));
  g_autoptr(GPtrArray) warm = call1 (fn, x, y, &error);
  EpTensor *inputs[2] = { x, y };
  GObject *sources[2] = { G_OBJECT (x), G_OBJECT (y) };

  g_assert_no_error (error);
  calls = 0;
  for (guint k = 0; k < 3; k++)
    {
      guint staged_entries, eager_entries;
      g_autoptr(GPtrArray) staged = call_gradient (fn, NULL, NULL, inputs, 2, 0, sources, 2, &staged_entries);
      g_autoptr(GPtrArray) eager = call_gradient (NULL, norm_plus, NULL, inputs, 2, 0, sources, 2, &eager_entries);

      g_assert_cmpuint (staged_entries, ==, 1);
      g_assert_cmpuint (eager_entries, ==, 4);
      ep_assert_values (g_ptr_array_index (staged, 0), EP_DTYPE_FLOAT32, EP_SHAPE (3), EP_VALUES (0.25, 0.5, 0.5));
      ep_assert_values (g_ptr_array_index (staged, 1), EP_DTYPE_FLOAT32, EP_SCALAR, EP_VALUES (0.125));
      for (guint s = 0; s < 2; s++)
        assert_same_bytes (g_ptr_array_index (staged, s), g_ptr_array_index (eager, s));
    }
  g_assert_cmpuint (calls, ==, 3);      /* the eager ones */
  g_assert_cmpuint (ep_function_get_trace_count (fn), ==, 1);
  /* the first gradient traced the backward function, the next ones
   * replayed the split graph, whose rest was traced once */
  g_assert_cmpuint (backward_traces (fn, inputs, 2), ==, 1);
  g_assert_cmpint (rest_traces (fn, inputs, 2), ==, 1);
}

/* A small model: loss = sum (tanh (x @ w + b)), its variables captured */
typedef struct
{
  EpVariable *w;
  EpVariable *b;
} Model;

static GPtrArray *
model_loss (EpTensor  **inputs,
            guint       n_inputs,
            gpointer    user_data,
            GError    **error)
{
  Model *model = user_data;
  g_autoptr(EpTensor) w = ep_variable_read (model->w);
  g_autoptr(EpTensor) b = ep_variable_read (model->b);
  g_autoptr(EpTensor) xw = NULL, z = NULL, h = NULL;

  calls++;
  if ((xw = ep_tensor_matmul (inputs[0], w, error)) == NULL
      || (z = ep_tensor_add (xw, b, error)) == NULL
      || (h = ep_tensor_tanh (z, error)) == NULL)
    return NULL;

  return ep_test_one (ep_tensor_sum (h, NULL, 0, FALSE, error));
}

static void
model_init (Model   *model,
            EpDType  dtype)
{
  g_autoptr(EpTensor) w = ep_test_random (EP_SHAPE (4, 3), dtype, 1);
  g_autoptr(EpTensor) b = ep_test_random (EP_SHAPE (3), dtype, 2);

  model->w = ep_variable_new (w, "w");
  model->b = ep_variable_new (b, "b");
}

static void
model_clear (Model *model)
{
  g_clear_object (&model->w);
  g_clear_object (&model->b);
}

/* The variables a tape watches and their gradients, through a staged
 * call as eagerly: trainable ones read are watched (in the order read),
 * unless the tape does not watch accessed variables. */
static void
compare_variable_gradients (EpFunction *fn,
                            Model      *model,
                            EpTensor   *x,
                            gboolean    watch_accessed)
{
  GPtrArray *grads[2] = { NULL, NULL };
  GPtrArray *watched[2] = { NULL, NULL };
  GObject *sources[3] = { G_OBJECT (model->w), G_OBJECT (model->b), G_OBJECT (x) };
  guint entries[2];

  for (guint k = 0; k < 2; k++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(EpGradientTape) tape = g_object_new (EP_TYPE_GRADIENT_TAPE,
                                                     "watch-accessed-variables", watch_accessed,
                                                     "unconnected-gradients", EP_UNCONNECTED_GRADIENTS_NONE,
                                                     NULL);
      g_autoptr(GPtrArray) outputs = NULL;

      outputs = run_under (tape, k == 0 ? fn : NULL, model_loss, model, &x, 1);
      entries[k] = ep_gradient_tape_get_n_entries (tape);
      watched[k] = ep_gradient_tape_watched_variables (tape);
      grads[k] = ep_gradient_tape_gradient (tape, (EpTensor **) outputs->pdata, 1, sources, 3, NULL, 0, &error);
      g_assert_no_error (error);
    }

  g_assert_cmpuint (entries[0], ==, entries[1] > 0 ? 1 : 0);
  g_assert_cmpuint (watched[0]->len, ==, watched[1]->len);
  for (guint v = 0; v < watched[0]->len; v++)
    g_assert_true (g_ptr_array_index (watched[0], v) == g_ptr_array_index (watched[1], v));
  for (guint s = 0; s < 3; s++)
    {
      EpTensor *staged = g_ptr_array_index (grads[0], s);
      EpTensor *eager = g_ptr_array_index (grads[1], s);

      g_assert_true ((staged == NULL) == (eager == NULL));
      if (staged != NULL)
        assert_same_bytes (staged, eager);
    }
  for (guint k = 0; k < 2; k++)
    {
      g_ptr_array_unref (grads[k]);
      g_ptr_array_unref (watched[k]);
    }
}

static void
test_gradient_variables (void)
{
  g_autoptr(GError) error = NULL;
  Model model;
  g_autoptr(EpFunction) fn = NULL;
  g_autoptr(EpTensor) x = ep_test_random (EP_SHAPE (2, 4), EP_DTYPE_FLOAT32, 3);
  g_autoptr(GPtrArray) warm = NULL;

  model_init (&model, EP_DTYPE_FLOAT32);
  fn = ep_function_new (model_loss, &model, NULL);
  warm = ep_function_call (fn, &x, 1, &error);
  g_assert_no_error (error);

  compare_variable_gradients (fn, &model, x, TRUE);
  compare_variable_gradients (fn, &model, x, FALSE);
  ep_variable_set_trainable (model.b, FALSE);
  compare_variable_gradients (fn, &model, x, TRUE);
  g_assert_cmpuint (ep_function_get_trace_count (fn), ==, 1);

  g_clear_object (&fn);
  model_clear (&model);
}

/* Backward functions differentiate what tapes want: a tape watching the
 * model's variables and not its data makes one for the variables only,
 * and the split serves it; a tape that wants the data too gets the
 * gradients through a backward function for both, and the split covers
 * both from then on. The gradients are the eager ones all along. */
static void
test_gradient_wanted_sources (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) x = ep_test_random (EP_SHAPE (2, 4), EP_DTYPE_FLOAT32, 12);
  g_autoptr(GPtrArray) warm = NULL;
  g_autoptr(EpFunction) fn = NULL;
  g_autoptr(EpStagedGradient) gradient = NULL;
  const gboolean variables[3] = { FALSE, TRUE, TRUE };
  const gboolean all[3] = { TRUE, TRUE, TRUE };
  Model model;

  model_init (&model, EP_DTYPE_FLOAT32);
  fn = ep_function_new (model_loss, &model, NULL);
  warm = ep_function_call (fn, &x, 1, &error);
  g_assert_no_error (error);

  for (guint k = 0; k < 6; k++)
    {
      gboolean with_data = k >= 3;
      GObject *sources[3] = { G_OBJECT (model.w), G_OBJECT (model.b), G_OBJECT (x) };
      g_autoptr(GPtrArray) staged = call_gradient (fn, NULL, NULL, &x, 1, 0, sources, with_data ? 3 : 2, NULL);
      g_autoptr(GPtrArray) eager = call_gradient (NULL, model_loss, &model, &x, 1, 0, sources, with_data ? 3 : 2, NULL);

      for (guint s = 0; s < staged->len; s++)
        assert_same_bytes (g_ptr_array_index (staged, s), g_ptr_array_index (eager, s));
    }

  gradient = ep_function_lookup_gradient (fn, &x, 1);
  g_assert_cmpuint (ep_function_get_trace_count (ep_staged_gradient_peek_backward (gradient, variables)), ==, 1);
  g_assert_cmpuint (ep_function_get_trace_count (ep_staged_gradient_peek_backward (gradient, all)), ==, 1);
  g_assert_cmpint (rest_traces (fn, &x, 1), ==, 1);

  g_clear_object (&fn);
  model_clear (&model);
}

/* One graph serves every batch size of a relaxed signature (traced
 * twice: the second batch size verifies it); its backward passes hold
 * shapes, so there is one per batch size, and the gradients are the
 * eager ones for each. */
static void
test_gradient_relaxed_signature (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensorSpec) spec = ep_tensor_spec_new (EP_SHAPE (-1, 4), EP_DTYPE_FLOAT32, &error);
  g_autoptr(EpTensor) x2 = ep_test_random (EP_SHAPE (2, 4), EP_DTYPE_FLOAT32, 13);
  g_autoptr(EpTensor) x5 = ep_test_random (EP_SHAPE (5, 4), EP_DTYPE_FLOAT32, 14);
  g_autoptr(EpFunction) fn = NULL;
  g_autoptr(GPtrArray) warm = NULL;
  Model model;

  g_assert_no_error (error);
  model_init (&model, EP_DTYPE_FLOAT32);
  fn = ep_function_new_with_signature (model_loss, &model, NULL, &spec, 1);
  warm = ep_function_call (fn, &x2, 1, &error);
  g_assert_no_error (error);

  for (guint k = 0; k < 6; k++)
    {
      EpTensor *x = k % 2 == 0 ? x2 : x5;
      GObject *sources[3] = { G_OBJECT (model.w), G_OBJECT (model.b), G_OBJECT (x) };
      g_autoptr(GPtrArray) staged = call_gradient (fn, NULL, NULL, &x, 1, 0, sources, 3, NULL);
      g_autoptr(GPtrArray) eager = call_gradient (NULL, model_loss, &model, &x, 1, 0, sources, 3, NULL);

      for (guint s = 0; s < 3; s++)
        assert_same_bytes (g_ptr_array_index (staged, s), g_ptr_array_index (eager, s));
    }
  g_assert_cmpuint (ep_function_get_trace_count (fn), ==, 2);
  g_assert_cmpuint (backward_traces (fn, &x2, 1), ==, 2);
  g_assert_cmpint (rest_traces (fn, &x2, 1), ==, 1);
  g_assert_cmpint (rest_traces (fn, &x5, 1), ==, 1);

  g_clear_object (&fn);
  model_clear (&model);
}

/* sum (x[x > 0]²): mask's output shape depends on the data */
static GPtrArray *
positive_squares (EpTensor  **inputs,
                  guint       n_inputs,
                  gpointer    user_data,
                  GError    **error)
{
  g_autoptr(EpTensor) positive = ep_tensor_greater_scalar (inputs[0], 0, error);
  g_autoptr(EpTensor) kept = positive != NULL ? ep_tensor_mask (inputs[0], positive, error) : NULL;
  g_autoptr(EpTensor) squares = kept != NULL ? ep_tensor_square (kept, error) : NULL;

  return ep_test_one (squares != NULL ? ep_tensor_sum (squares, NULL, 0, FALSE, error) : NULL);
}

/* A graph whose shapes depend on data is replayed op by op under tapes
 * (a traced backward graph holds the shapes it saw): the gradients
 * follow the data, and no backward function is made. */
static void
test_gradient_data_dependent_shapes (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpFunction) fn = ep_function_new (positive_squares, NULL, NULL);
  g_autoptr(EpTensor) x1 = ep_test_new (EP_DTYPE_FLOAT32, EP_SHAPE (4), EP_VALUES (1, -2, 3, -4));
  g_autoptr(EpTensor) x2 = ep_test_new (EP_DTYPE_FLOAT32, EP_SHAPE (4), EP_VALUES (-1, 2, 3, 4));
  g_autoptr(GPtrArray) warm = call1 (fn, x1, NULL, &error);
  const gdouble want1[] = { 2, 0, 6, 0 }, want2[] = { 0, 4, 6, 8 };

  g_assert_no_error (error);
  for (guint k = 0; k < 4; k++)
    {
      EpTensor *x = k % 2 == 0 ? x1 : x2;
      GObject *source = G_OBJECT (x);
      g_autoptr(GPtrArray) grads = call_gradient (fn, NULL, NULL, &x, 1, 0, &source, 1, NULL);

      ep_assert_values (g_ptr_array_index (grads, 0), EP_DTYPE_FLOAT32, EP_SHAPE (4),
                        k % 2 == 0 ? want1 : want2, 4);
    }
  g_assert_cmpint (backward_traces (fn, &x1, 1), ==, 0);
  g_assert_cmpint (rest_traces (fn, &x1, 1), ==, -1);
}

/* Dropout: x times a uniform draw, and the mask u < 0.5 (a bool output).
 * With x = 1 the first output is the draw itself, and its gradient. */
static GPtrArray *
dropout (EpTensor  **inputs,
         guint       n_inputs,
         gpointer    user_data,
         GError    **error)
{
  g_autoptr(EpTensor) u = ep_uniform (EP_SHAPE (64), 0, 1, EP_DTYPE_FLOAT32, error);
  g_autoptr(EpTensor) kept = NULL;
  GPtrArray *result;

  if (u == NULL || (kept = ep_tensor_less_scalar (u, 0.5, error)) == NULL)
    return NULL;
  result = ep_test_one (ep_tensor_mul (inputs[0], u, error));
  g_ptr_array_add (result, g_steal_pointer (&kept));
  return result;
}

/* The backward pass of a replay uses the numbers that replay drew, not
 * new ones, however often it is asked and whatever is drawn in between;
 * each replay draws new ones. */
static void
test_gradient_random (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpFunction) fn = ep_function_new (dropout, NULL, NULL);
  g_autoptr(EpTensor) ones = ep_ones (EP_SHAPE (64), EP_DTYPE_FLOAT32, NULL);
  g_autoptr(GPtrArray) warm = call1 (fn, ones, NULL, &error);
  g_autoptr(GBytes) previous = NULL;
  GObject *source = G_OBJECT (ones);

  g_assert_no_error (error);

  for (guint k = 0; k < 3; k++)
    {
      g_autoptr(EpGradientTape) tape = ep_gradient_tape_new (TRUE);
      g_autoptr(GPtrArray) outputs = NULL;
      EpTensor *drawn;

      ep_gradient_tape_watch (tape, ones);
      outputs = run_under (tape, fn, NULL, NULL, &ones, 1);
      drawn = g_ptr_array_index (outputs, 0);
      g_assert_cmpint (ep_tensor_get_dtype (g_ptr_array_index (outputs, 1)), ==, EP_DTYPE_BOOL);
      g_assert_cmpuint (ep_gradient_tape_get_n_entries (tape), ==, 1);

      for (guint ask = 0; ask < 2; ask++)
        {
          g_autoptr(EpTensor) noise = ep_uniform (EP_SHAPE (64), 0, 1, EP_DTYPE_FLOAT32, NULL);
          g_autoptr(GPtrArray) grads = ep_gradient_tape_gradient (tape, &drawn, 1, &source, 1, NULL, 0, &error);

          g_assert_no_error (error);
          assert_same_bytes (g_ptr_array_index (grads, 0), drawn);
        }

      if (previous != NULL)
        {
          g_autoptr(GBytes) now = ep_tensor_to_bytes (drawn, NULL);

          g_assert_false (g_bytes_equal (previous, now));
        }
      g_clear_pointer (&previous, g_bytes_unref);
      previous = ep_tensor_to_bytes (drawn, NULL);
    }
  g_assert_cmpuint (backward_traces (fn, &ones, 1), ==, 1);
}

/* sum (x³) */
static GPtrArray *
cube_sum (EpTensor  **inputs,
          guint       n_inputs,
          gpointer    user_data,
          GError    **error)
{
  g_autoptr(EpTensor) square = NULL, cube = NULL;

  calls++;
  if ((square = ep_tensor_mul (inputs[0], inputs[0], error)) == NULL
      || (cube = ep_tensor_mul (square, inputs[0], error)) == NULL)
    return NULL;

  return ep_test_one (ep_tensor_sum (cube, NULL, 0, FALSE, error));
}

static EpTensor *
gradient_of (EpGradientTape *tape,
             EpTensor       *target,
             EpTensor       *x)
{
  g_autoptr(GError) error = NULL;
  GObject *source = G_OBJECT (x);
  g_autoptr(GPtrArray) grads = ep_gradient_tape_gradient (tape, &target, 1, &source, 1, NULL, 0, &error);

  g_assert_no_error (error);
  return g_object_ref (g_ptr_array_index (grads, 0));
}

/* Nested tapes over a staged call: the inner gradient's backward call is
 * itself a staged call, which the outer tape records as one step with a
 * staged backward of its own, and so on: d/dx, d²/dx², d³/dx³ of
 * sum (x³) are 3x², 6x and 6. */
/* A recorder that takes every op and refuses every staged step. */
static gboolean
take_op (EpRecorder      *recorder,
         const EpOpCall  *call,
         GError         **error)
{
  return TRUE;
}

static gboolean
refuse_step (EpRecorder       *recorder,
             EpComposite      *composite,
             EpTensor *const  *inputs,
             guint             n_inputs,
             EpTensor *const  *outputs,
             guint             n_outputs,
             GError          **error)
{
  g_set_error (error, EP_ERROR, EP_ERROR_GRADIENT, "recorder: refused %s", composite->name);
  return FALSE;
}

/* A staged call that a recorder further out refuses fails, and a tape
 * inside, which took the step first, forgets it. */
static void
test_refused_step_is_forgotten_inside (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpFunction) fn = ep_function_new (cube_sum, NULL, NULL);
  g_autoptr(EpTensor) x = ep_test_new (EP_DTYPE_FLOAT64, EP_SHAPE (3), EP_VALUES (2, 0.5, -1));
  g_autoptr(GPtrArray) warm = call1 (fn, x, NULL, &error);
  g_autoptr(EpGradientTape) tape = ep_gradient_tape_new (TRUE);
  g_autoptr(GPtrArray) y = NULL;
  EpRecorder outer = { .record = take_op, .composite = refuse_step };

  g_assert_no_error (error);
  ep_recorder_push (&outer);
  ep_gradient_tape_watch (tape, x);
  g_assert_true (ep_gradient_tape_start (tape, NULL));
  y = ep_function_call (fn, &x, 1, &error);
  g_assert_true (ep_gradient_tape_stop (tape, NULL));
  ep_recorder_pop (&outer);

  g_assert_null (y);
  g_assert_error (error, EP_ERROR, EP_ERROR_GRADIENT);
  g_assert_cmpuint (ep_gradient_tape_get_n_entries (tape), ==, 0);
}

static void
test_gradient_higher_order (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpFunction) fn = ep_function_new (cube_sum, NULL, NULL);
  g_autoptr(EpTensor) x = ep_test_new (EP_DTYPE_FLOAT64, EP_SHAPE (3), EP_VALUES (2, 0.5, -1));
  g_autoptr(GPtrArray) warm = call1 (fn, x, NULL, &error);

  g_assert_no_error (error);
  calls = 0;
  for (guint k = 0; k < 5; k++)
    {
      g_autoptr(EpGradientTape) t1 = ep_gradient_tape_new (FALSE);
      g_autoptr(EpGradientTape) t2 = ep_gradient_tape_new (FALSE);
      g_autoptr(EpGradientTape) t3 = ep_gradient_tape_new (FALSE);
      g_autoptr(GPtrArray) y = NULL;
      g_autoptr(EpTensor) d1 = NULL, d2 = NULL, d3 = NULL;
      guint n1, n2;

      ep_gradient_tape_watch (t1, x);
      ep_gradient_tape_watch (t2, x);
      ep_gradient_tape_watch (t3, x);
      g_assert_true (ep_gradient_tape_start (t1, NULL));
      g_assert_true (ep_gradient_tape_start (t2, NULL));
      y = run_under (t3, fn, NULL, NULL, &x, 1);
      g_assert_cmpuint (ep_gradient_tape_get_n_entries (t3), ==, 1);
      d1 = gradient_of (t3, g_ptr_array_index (y, 0), x);
      g_assert_true (ep_gradient_tape_stop (t2, NULL));
      n2 = ep_gradient_tape_get_n_entries (t2);
      d2 = gradient_of (t2, d1, x);
      g_assert_true (ep_gradient_tape_stop (t1, NULL));
      n1 = ep_gradient_tape_get_n_entries (t1);
      d3 = gradient_of (t1, d2, x);

      ep_assert_values (d1, EP_DTYPE_FLOAT64, EP_SHAPE (3), EP_VALUES (12, 0.75, 3));
      ep_assert_values (d2, EP_DTYPE_FLOAT64, EP_SHAPE (3), EP_VALUES (12, 3, -6));
      ep_assert_values (d3, EP_DTYPE_FLOAT64, EP_SHAPE (3), EP_VALUES (6, 6, 6));
      /* Once every function it takes is traced (each on its first
       * call, which outer tapes record op by op), each backward call is
       * one step: t2 holds the call (its forward pass and residuals) and
       * t3's backward call; t1 holds those, t2's backward call, and
       * t2's call of the recomputing backward function of the forward
       * pass, for the part of d2 that flows through the residuals. */
      g_test_message ("round %u: %u and %u steps", k, n2, n1);
      if (k >= 2)
        g_assert_cmpuint (n2, ==, 2);
      if (k >= 4)
        g_assert_cmpuint (n1, ==, 4);
    }
  g_assert_cmpuint (calls, ==, 0);
  g_assert_cmpuint (backward_traces (fn, &x, 1), ==, 1);
}

/* sum (tanh (x) * x²) */
static GPtrArray *
curvy (EpTensor  **inputs,
       guint       n_inputs,
       gpointer    user_data,
       GError    **error)
{
  g_autoptr(EpTensor) t = NULL, square = NULL, product = NULL;

  if ((t = ep_tensor_tanh (inputs[0], error)) == NULL
      || (square = ep_tensor_square (inputs[0], error)) == NULL
      || (product = ep_tensor_mul (t, square, error)) == NULL)
    return NULL;

  return ep_test_one (ep_tensor_sum (product, NULL, 0, FALSE, error));
}

/* H v: the gradient of (∇f · v), staged and eager */
static EpTensor *
hessian_vector (EpFunction *fn,
                EpTensor   *x,
                EpTensor   *v)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpGradientTape) outer = ep_gradient_tape_new (FALSE);
  g_autoptr(EpGradientTape) inner = ep_gradient_tape_new (FALSE);
  g_autoptr(GPtrArray) y = NULL;
  g_autoptr(EpTensor) g = NULL, gv = NULL, dot = NULL;

  ep_gradient_tape_watch (outer, x);
  ep_gradient_tape_watch (inner, x);
  g_assert_true (ep_gradient_tape_start (outer, NULL));
  y = run_under (inner, fn, curvy, NULL, &x, 1);
  g = gradient_of (inner, g_ptr_array_index (y, 0), x);
  gv = ep_tensor_mul (g, v, &error);
  dot = ep_tensor_sum (gv, NULL, 0, FALSE, &error);
  g_assert_no_error (error);
  g_assert_true (ep_gradient_tape_stop (outer, NULL));

  return gradient_of (outer, dot, x);
}

static void
test_gradient_hessian_vector (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpFunction) fn = ep_function_new (curvy, NULL, NULL);
  g_autoptr(EpTensor) x = ep_test_random (EP_SHAPE (5), EP_DTYPE_FLOAT64, 4);
  g_autoptr(EpTensor) v = ep_test_random (EP_SHAPE (5), EP_DTYPE_FLOAT64, 5);
  g_autoptr(GPtrArray) warm = call1 (fn, x, NULL, &error);

  g_assert_no_error (error);
  for (guint k = 0; k < 2; k++)
    {
      g_autoptr(EpTensor) staged = hessian_vector (fn, x, v);
      g_autoptr(EpTensor) eager = hessian_vector (NULL, x, v);

      ep_assert_shape (staged, EP_SHAPE (5));
      assert_close_tensors (staged, eager);
    }
}

/* A persistent tape answers again, and a Jacobian asks the backward
 * function once per row: all replays of one trace. */
static void
test_gradient_persistent (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpFunction) fn = ep_function_new (cube_sum, NULL, NULL);
  g_autoptr(EpTensor) x = ep_test_new (EP_DTYPE_FLOAT32, EP_SHAPE (2), EP_VALUES (1, -2));
  g_autoptr(GPtrArray) warm = call1 (fn, x, NULL, &error);
  g_autoptr(EpGradientTape) tape = ep_gradient_tape_new (TRUE);
  g_autoptr(GPtrArray) y = NULL;
  g_autoptr(EpTensor) first = NULL, second = NULL, jacobian = NULL;

  g_assert_no_error (error);
  ep_gradient_tape_watch (tape, x);
  y = run_under (tape, fn, NULL, NULL, &x, 1);
  first = gradient_of (tape, g_ptr_array_index (y, 0), x);
  second = gradient_of (tape, g_ptr_array_index (y, 0), x);
  jacobian = ep_gradient_tape_jacobian (tape, g_ptr_array_index (y, 0), G_OBJECT (x), &error);
  g_assert_no_error (error);

  ep_assert_values (first, EP_DTYPE_FLOAT32, EP_SHAPE (2), EP_VALUES (3, 12));
  ep_assert_values (second, EP_DTYPE_FLOAT32, EP_SHAPE (2), EP_VALUES (3, 12));
  ep_assert_values (jacobian, EP_DTYPE_FLOAT32, EP_SHAPE (2), EP_VALUES (3, 12));
  g_assert_cmpuint (backward_traces (fn, &x, 1), ==, 1);
}

/* (x * 2, y * 3, stop_gradient (x) + 1); z is not used */
static GPtrArray *
separate (EpTensor  **inputs,
          guint       n_inputs,
          gpointer    user_data,
          GError    **error)
{
  g_autoptr(EpTensor) constant = ep_tensor_stop_gradient (inputs[0], error);
  GPtrArray *result = ep_test_one (ep_tensor_mul_scalar (inputs[0], 2, error));

  g_ptr_array_add (result, ep_tensor_mul_scalar (inputs[1], 3, error));
  g_ptr_array_add (result, ep_tensor_add_scalar (constant, 1, error));
  return result;
}

/* Sources the asked output does not depend on get no gradient (or zeros,
 * as the tape says), as eagerly, though the call is one step connected
 * to all its inputs. */
static void
test_gradient_unconnected (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpFunction) fn = ep_function_new (separate, NULL, NULL);
  g_autoptr(EpTensor) x = ep_test_new (EP_DTYPE_FLOAT32, EP_SHAPE (2), EP_VALUES (1, 2));
  g_autoptr(EpTensor) y = ep_test_new (EP_DTYPE_FLOAT32, EP_SHAPE (2), EP_VALUES (3, 4));
  g_autoptr(EpTensor) z = ep_test_new (EP_DTYPE_FLOAT32, EP_SCALAR, EP_VALUES (5));
  EpTensor *inputs[3] = { x, y, z };
  GObject *sources[3] = { G_OBJECT (x), G_OBJECT (y), G_OBJECT (z) };
  g_autoptr(GPtrArray) warm = ep_function_call (fn, inputs, 3, &error);

  g_assert_no_error (error);
  for (guint mode = 0; mode < 2; mode++)
    for (guint target = 0; target < 3; target++)
      {
        GPtrArray *grads[2] = { NULL, NULL };

        for (guint k = 0; k < 2; k++)
          {
            g_autoptr(EpGradientTape) tape = ep_gradient_tape_new (FALSE);
            g_autoptr(GPtrArray) outputs = NULL;

            ep_gradient_tape_set_unconnected_gradients (tape, mode == 0 ? EP_UNCONNECTED_GRADIENTS_NONE
                                                                        : EP_UNCONNECTED_GRADIENTS_ZERO);
            for (guint s = 0; s < 3; s++)
              ep_gradient_tape_watch (tape, inputs[s]);
            outputs = run_under (tape, k == 0 ? fn : NULL, separate, NULL, inputs, 3);
            grads[k] = ep_gradient_tape_gradient (tape, (EpTensor **) &outputs->pdata[target], 1,
                                                  sources, 3, NULL, 0, &error);
            g_assert_no_error (error);
          }

        for (guint s = 0; s < 3; s++)
          {
            EpTensor *staged = g_ptr_array_index (grads[0], s);
            EpTensor *eager = g_ptr_array_index (grads[1], s);

            g_assert_true ((staged == NULL) == (eager == NULL));
            g_assert_true (staged != NULL || mode == 0);
            if (staged != NULL)
              assert_same_bytes (staged, eager);
          }
        g_ptr_array_unref (grads[0]);
        g_ptr_array_unref (grads[1]);
      }
}

/* (argmax (x), x, x * y, ... ): an integer output, an input passed
 * through, and more outputs than an op has */
static GPtrArray *
many_outputs (EpTensor  **inputs,
              guint       n_inputs,
              gpointer    user_data,
              GError    **error)
{
  GPtrArray *result = ep_test_one (ep_tensor_argmax (inputs[0], EP_AXIS_NONE, FALSE, error));

  g_ptr_array_add (result, g_object_ref (inputs[0]));
  for (guint k = 1; k <= 5; k++)
    {
      g_autoptr(EpTensor) scaled = ep_tensor_mul_scalar (inputs[1], k, error);

      g_ptr_array_add (result, ep_tensor_mul (inputs[0], scaled, error));
    }
  return result;
}

static void
test_gradient_outputs (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpFunction) fn = ep_function_new (many_outputs, NULL, NULL);
  g_autoptr(EpTensor) x = ep_test_new (EP_DTYPE_FLOAT32, EP_SHAPE (2), EP_VALUES (1, 2));
  g_autoptr(EpTensor) y = ep_test_new (EP_DTYPE_FLOAT32, EP_SHAPE (2), EP_VALUES (3, 4));
  EpTensor *inputs[2] = { x, y };
  GObject *sources[2] = { G_OBJECT (x), G_OBJECT (y) };
  g_autoptr(GPtrArray) warm = ep_function_call (fn, inputs, 2, &error);
  g_autoptr(EpGradientTape) tape = ep_gradient_tape_new (TRUE);
  g_autoptr(GPtrArray) outputs = NULL;
  g_autoptr(GPtrArray) all = NULL, passed = NULL;

  g_assert_no_error (error);
  g_assert_cmpuint (warm->len, ==, 7);
  ep_gradient_tape_watch (tape, x);
  ep_gradient_tape_watch (tape, y);
  outputs = run_under (tape, fn, NULL, NULL, inputs, 2);
  g_assert_cmpuint (ep_gradient_tape_get_n_entries (tape), ==, 1);
  ep_assert_values (g_ptr_array_index (outputs, 0), EP_DTYPE_INT64, EP_SCALAR, EP_VALUES (1));

  /* x + sum_k k x y: 1 + 15 y, and 15 x */
  all = ep_gradient_tape_gradient (tape, (EpTensor **) &outputs->pdata[1], 6, sources, 2, NULL, 0, &error);
  g_assert_no_error (error);
  ep_assert_values (g_ptr_array_index (all, 0), EP_DTYPE_FLOAT32, EP_SHAPE (2), EP_VALUES (46, 61));
  ep_assert_values (g_ptr_array_index (all, 1), EP_DTYPE_FLOAT32, EP_SHAPE (2), EP_VALUES (15, 30));

  passed = ep_gradient_tape_gradient (tape, (EpTensor **) &outputs->pdata[1], 1, sources, 2, NULL, 0, &error);
  g_assert_no_error (error);
  ep_assert_values (g_ptr_array_index (passed, 0), EP_DTYPE_FLOAT32, EP_SHAPE (2), EP_VALUES (1, 1));
  ep_assert_values (g_ptr_array_index (passed, 1), EP_DTYPE_FLOAT32, EP_SHAPE (2), EP_VALUES (0, 0));
}

/* A call with only an integer result is no step of a tape's */
static GPtrArray *
argmax_only (EpTensor  **inputs,
             guint       n_inputs,
             gpointer    user_data,
             GError    **error)
{
  return ep_test_one (ep_tensor_argmax (inputs[0], EP_AXIS_NONE, FALSE, error));
}

static void
test_gradient_integer_output (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpFunction) fn = ep_function_new (argmax_only, NULL, NULL);
  g_autoptr(EpTensor) x = ep_test_new (EP_DTYPE_FLOAT32, EP_SHAPE (3), EP_VALUES (1, 5, 2));
  g_autoptr(GPtrArray) warm = call1 (fn, x, NULL, &error);
  g_autoptr(EpGradientTape) tape = ep_gradient_tape_new (FALSE);
  g_autoptr(GPtrArray) outputs = NULL;

  g_assert_no_error (error);
  ep_gradient_tape_watch (tape, x);
  outputs = run_under (tape, fn, NULL, NULL, &x, 1);
  ep_assert_values (g_ptr_array_index (outputs, 0), EP_DTYPE_INT64, EP_SCALAR, EP_VALUES (1));
  g_assert_cmpuint (ep_gradient_tape_get_n_entries (tape), ==, 0);
}

/* r1 = v; v = 2 r1 (assign); r2 = v; sum (r1 * r2 * x): the gradient
 * with respect to v adds up over both values read, as eagerly (3 v x
 * with v as it was). */
static GPtrArray *
read_assign_read (EpTensor  **inputs,
                  guint       n_inputs,
                  gpointer    user_data,
                  GError    **error)
{
  EpVariable *v = user_data;
  g_autoptr(EpTensor) r1 = ep_variable_read (v);
  g_autoptr(EpTensor) doubled = ep_tensor_mul_scalar (r1, 2, error);
  g_autoptr(EpTensor) r2 = NULL, product = NULL, scaled = NULL;

  if (doubled == NULL || !ep_variable_assign (v, doubled, error))
    return NULL;
  r2 = ep_variable_read (v);
  if ((product = ep_tensor_mul (r1, r2, error)) == NULL
      || (scaled = ep_tensor_mul (product, inputs[0], error)) == NULL)
    return NULL;

  return ep_test_one (ep_tensor_sum (scaled, NULL, 0, FALSE, error));
}

/* v += x, then 2 x: assign_add reads v to update it, which tapes do not
 * watch */
static GPtrArray *
accumulate_input (EpTensor  **inputs,
                  guint       n_inputs,
                  gpointer    user_data,
                  GError    **error)
{
  if (!ep_variable_assign_add (user_data, inputs[0], error))
    return NULL;
  return ep_test_one (ep_tensor_mul_scalar (inputs[0], 2, error));
}

static void
test_gradient_assigned_variable (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) v0 = ep_test_new (EP_DTYPE_FLOAT32, EP_SHAPE (2), EP_VALUES (1, 2));
  g_autoptr(EpTensor) x = ep_test_new (EP_DTYPE_FLOAT32, EP_SHAPE (2), EP_VALUES (3, -1));
  g_autoptr(EpVariable) v = ep_variable_new (v0, "v");
  g_autoptr(EpFunction) fn = ep_function_new (read_assign_read, v, NULL);
  g_autoptr(EpFunction) acc = ep_function_new (accumulate_input, v, NULL);
  g_autoptr(GPtrArray) warm = call1 (fn, x, NULL, &error);
  g_autoptr(GPtrArray) warm_acc = call1 (acc, x, NULL, &error);
  GObject *sources[2] = { G_OBJECT (v), G_OBJECT (x) };
  GPtrArray *grads[2] = { NULL, NULL };
  EpTensor *after[2] = { NULL, NULL };

  g_assert_no_error (error);
  for (guint k = 0; k < 2; k++)
    {
      g_assert_true (ep_variable_assign (v, v0, NULL));
      grads[k] = call_gradient (k == 0 ? fn : NULL, read_assign_read, v, &x, 1, 0, sources, 2, NULL);
      after[k] = ep_variable_read (v);
    }
  ep_assert_values (g_ptr_array_index (grads[0], 0), EP_DTYPE_FLOAT32, EP_SHAPE (2), EP_VALUES (9, -6));
  ep_assert_values (g_ptr_array_index (grads[0], 1), EP_DTYPE_FLOAT32, EP_SHAPE (2), EP_VALUES (2, 8));
  for (guint s = 0; s < 2; s++)
    assert_same_bytes (g_ptr_array_index (grads[0], s), g_ptr_array_index (grads[1], s));
  ep_assert_values (after[0], EP_DTYPE_FLOAT32, EP_SHAPE (2), EP_VALUES (2, 4));
  assert_same_bytes (after[0], after[1]);
  for (guint k = 0; k < 2; k++)
    {
      g_ptr_array_unref (grads[k]);
      g_object_unref (after[k]);
    }

  /* an update is no read: the tape watches no variable */
  for (guint k = 0; k < 2; k++)
    {
      g_autoptr(EpGradientTape) tape = ep_gradient_tape_new (FALSE);
      g_autoptr(GPtrArray) outputs = NULL;
      g_autoptr(GPtrArray) watched = NULL;

      ep_gradient_tape_watch (tape, x);
      outputs = run_under (tape, k == 0 ? acc : NULL, accumulate_input, v, &x, 1);
      watched = ep_gradient_tape_watched_variables (tape);
      g_assert_cmpuint (watched->len, ==, 0);
    }
}

/* A training step with a tape inside, for a two-variable model:
 * loss = sum ((tanh (x @ w + b) - t)²), then w -= 0.1 dw, b -= 0.1 db. */
static GPtrArray *
train_step (EpTensor  **inputs,
            guint       n_inputs,
            gpointer    user_data,
            GError    **error)
{
  Model *model = user_data;
  g_autoptr(EpGradientTape) tape = ep_gradient_tape_new (FALSE);
  g_autoptr(EpTensor) w = NULL, b = NULL, xw = NULL, z = NULL, h = NULL, diff = NULL, sq = NULL, loss = NULL;
  g_autoptr(EpTensor) dw = NULL, db = NULL;
  g_autoptr(GPtrArray) grads = NULL;
  GObject *sources[2] = { G_OBJECT (model->w), G_OBJECT (model->b) };

  calls++;
  if (!ep_gradient_tape_start (tape, error))
    return NULL;
  w = ep_variable_read (model->w);
  b = ep_variable_read (model->b);
  if ((xw = ep_tensor_matmul (inputs[0], w, error)) == NULL
      || (z = ep_tensor_add (xw, b, error)) == NULL
      || (h = ep_tensor_tanh (z, error)) == NULL
      || (diff = ep_tensor_sub (h, inputs[1], error)) == NULL
      || (sq = ep_tensor_square (diff, error)) == NULL
      || (loss = ep_tensor_sum (sq, NULL, 0, FALSE, error)) == NULL
      || !ep_gradient_tape_stop (tape, error))
    return NULL;

  grads = ep_gradient_tape_gradient (tape, &loss, 1, sources, 2, NULL, 0, error);
  if (grads == NULL
      || (dw = ep_tensor_mul_scalar (g_ptr_array_index (grads, 0), 0.1, error)) == NULL
      || (db = ep_tensor_mul_scalar (g_ptr_array_index (grads, 1), 0.1, error)) == NULL
      || !ep_variable_assign_sub (model->w, dw, error)
      || !ep_variable_assign_sub (model->b, db, error))
    return NULL;

  return ep_test_one (g_steal_pointer (&loss));
}

/* The staged step (traced once, with its tape inside) updates the
 * variables as the eager step does, bit for bit, step after step. */
static void
test_gradient_training_step (void)
{
  g_autoptr(EpTensor) x = ep_test_random (EP_SHAPE (5, 4), EP_DTYPE_FLOAT32, 6);
  g_autoptr(EpTensor) t = ep_test_random (EP_SHAPE (5, 3), EP_DTYPE_FLOAT32, 7);
  EpTensor *inputs[2] = { x, t };
  Model eager, staged;
  g_autoptr(EpFunction) fn = NULL;

  model_init (&eager, EP_DTYPE_FLOAT32);
  model_init (&staged, EP_DTYPE_FLOAT32);
  fn = ep_function_new (train_step, &staged, NULL);

  calls = 0;
  for (guint k = 0; k < 6; k++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(GPtrArray) e = ep_autodiff_take_tensors (train_step (inputs, 2, &eager, &error),
                                                         FALSE, "test", "results", NULL);
      g_autoptr(GPtrArray) s = ep_function_call (fn, inputs, 2, &error);
      g_autoptr(EpTensor) ew = NULL, sw = NULL, eb = NULL, sb = NULL;

      g_assert_no_error (error);
      assert_same_bytes (g_ptr_array_index (s, 0), g_ptr_array_index (e, 0));
      ew = ep_variable_read (eager.w);
      sw = ep_variable_read (staged.w);
      eb = ep_variable_read (eager.b);
      sb = ep_variable_read (staged.b);
      assert_same_bytes (sw, ew);
      assert_same_bytes (sb, eb);
    }
  g_assert_cmpuint (calls, ==, 6 + 1);
  g_assert_cmpuint (ep_function_get_trace_count (fn), ==, 1);

  g_clear_object (&fn);
  model_clear (&eager);
  model_clear (&staged);
}

/* Staged functions of a few ops in float64, their staged gradients
 * against central differences of the staged function itself */
static GPtrArray *
fd_matmul_tanh (EpTensor **x, guint n, gpointer data, GError **error)
{
  g_autoptr(EpTensor) product = ep_tensor_matmul (x[0], x[1], error);

  return ep_test_one (product != NULL ? ep_tensor_tanh (product, error) : NULL);
}

static GPtrArray *
fd_log_softmax_div (EpTensor **x, guint n, gpointer data, GError **error)
{
  g_autoptr(EpTensor) ratio = ep_tensor_div (x[0], x[1], error);

  return ep_test_one (ratio != NULL ? ep_tensor_log_softmax (ratio, 1, error) : NULL);
}

static GPtrArray *
fd_take_sqrt (EpTensor **x, guint n, gpointer data, GError **error)
{
  g_autoptr(EpTensor) indices = ep_test_new (EP_DTYPE_INT64, EP_SHAPE (3), EP_VALUES (2, 0, 2));
  g_autoptr(EpTensor) picked = ep_tensor_take (x[0], indices, 1, error);
  g_autoptr(EpTensor) squared = picked != NULL ? ep_tensor_square (picked, error) : NULL;
  g_autoptr(EpTensor) shifted = squared != NULL ? ep_tensor_add_scalar (squared, 1, error) : NULL;

  return ep_test_one (shifted != NULL ? ep_tensor_sqrt (shifted, error) : NULL);
}

static EpTensor *
staged_output (EpFunction *fn,
               EpTensor  **x,
               guint       n)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) outputs = ep_function_call (fn, x, n, &error);

  g_assert_no_error (error);
  return g_object_ref (g_ptr_array_index (outputs, 0));
}

static void
check_staged_gradient (EpTensorsFunc  body,
                       EpTensor     **x,
                       guint          n)
{
  const gdouble h = 1e-6;
  g_autoptr(GError) error = NULL;
  g_autoptr(EpFunction) fn = ep_function_new (body, NULL, NULL);
  g_autoptr(EpTensor) y = staged_output (fn, x, n);
  g_autoptr(EpTensor) cotangent = ep_test_random (y->layout.shape, y->layout.ndim, EP_DTYPE_FLOAT64, 8);
  g_autoptr(EpGradientTape) tape = ep_gradient_tape_new (FALSE);
  g_autoptr(GPtrArray) outputs = NULL, grads = NULL;
  g_autofree GObject **sources = g_new (GObject *, n);
  g_autofree gdouble *v = NULL;
  gsize n_v;

  v = ep_test_read_doubles (cotangent, &n_v);
  for (guint j = 0; j < n; j++)
    {
      sources[j] = G_OBJECT (x[j]);
      ep_gradient_tape_watch (tape, x[j]);
    }
  outputs = run_under (tape, fn, NULL, NULL, x, n);
  g_assert_cmpuint (ep_gradient_tape_get_n_entries (tape), ==, 1);
  grads = ep_gradient_tape_gradient (tape, (EpTensor **) outputs->pdata, 1, sources, n,
                                     &cotangent, 1, &error);
  g_assert_no_error (error);

  for (guint j = 0; j < n; j++)
    {
      gsize n_grad;
      g_autofree gdouble *grad = ep_test_read_doubles (g_ptr_array_index (grads, j), &n_grad);

      for (gsize k = 0; k < n_grad; k++)
        {
          EpTensor *original = x[j];
          g_autoptr(EpTensor) plus = ep_test_nudged (original, k, h);
          g_autoptr(EpTensor) minus = ep_test_nudged (original, k, -h);
          g_autoptr(EpTensor) y_plus = NULL, y_minus = NULL;
          gdouble numeric;

          x[j] = plus;
          y_plus = staged_output (fn, x, n);
          x[j] = minus;
          y_minus = staged_output (fn, x, n);
          x[j] = original;

          numeric = (ep_test_weighted_sum (y_plus, v) - ep_test_weighted_sum (y_minus, v)) / (2 * h);
          if (fabs (numeric - grad[k]) > 1e-6 * MAX (1.0, fabs (numeric)))
            g_error ("input %u element %" G_GSIZE_FORMAT ": staged %.10g, finite difference %.10g",
                     j, k, grad[k], numeric);
        }
    }
  g_assert_cmpuint (ep_function_get_trace_count (fn), ==, 1);
  g_assert_cmpuint (backward_traces (fn, x, n), ==, 1);
}

static void
test_gradient_finite_differences (void)
{
  g_autoptr(EpTensor) a = ep_test_random (EP_SHAPE (3, 4), EP_DTYPE_FLOAT64, 10);
  g_autoptr(EpTensor) b = ep_test_random (EP_SHAPE (4, 2), EP_DTYPE_FLOAT64, 11);
  g_autoptr(EpTensor) c = ep_test_float64 (ep_test_grad_b, EP_SHAPE (4));
  EpTensor *matmul_inputs[2] = { a, b };
  EpTensor *softmax_inputs[2] = { a, c };
  EpTensor *take_inputs[1] = { a };

  check_staged_gradient (fd_matmul_tanh, matmul_inputs, 2);
  check_staged_gradient (fd_log_softmax_div, softmax_inputs, 2);
  check_staged_gradient (fd_take_sqrt, take_inputs, 1);
}

/* A function traced with a tape inside around a staged call: the call's
 * ops and their backward pass are staged into the outer graph, which
 * replays them in C; the inner function makes no backward function. */
static EpFunction *inner_cube;

static GPtrArray *
gradient_of_inner (EpTensor  **inputs,
                   guint       n_inputs,
                   gpointer    user_data,
                   GError    **error)
{
  g_autoptr(EpGradientTape) tape = ep_gradient_tape_new (FALSE);
  g_autoptr(GPtrArray) y = NULL, grads = NULL;
  GObject *source = G_OBJECT (inputs[0]);

  calls++;
  ep_gradient_tape_watch (tape, inputs[0]);
  if (!ep_gradient_tape_start (tape, error))
    return NULL;
  y = ep_function_call (inner_cube, inputs, 1, error);
  if (!ep_gradient_tape_stop (tape, error) || y == NULL)
    return NULL;
  grads = ep_gradient_tape_gradient (tape, (EpTensor **) y->pdata, 1, &source, 1, NULL, 0, error);
  if (grads == NULL)
    return NULL;
  return ep_test_one (g_object_ref (g_ptr_array_index (grads, 0)));
}

static void
test_gradient_inside_trace (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpFunction) fn = ep_function_new (gradient_of_inner, NULL, NULL);
  g_autoptr(EpTensor) x = ep_test_new (EP_DTYPE_FLOAT32, EP_SHAPE (2), EP_VALUES (1, 2));
  g_autoptr(EpTensor) x2 = ep_test_new (EP_DTYPE_FLOAT32, EP_SHAPE (2), EP_VALUES (-3, 4));
  g_autoptr(GPtrArray) warm = NULL, first = NULL, second = NULL;
  g_autoptr(EpGraph) graph = NULL;

  inner_cube = ep_function_new (cube_sum, NULL, NULL);
  warm = call1 (inner_cube, x, NULL, &error);
  calls = 0;
  first = call1 (fn, x, NULL, &error);
  second = call1 (fn, x2, NULL, &error);
  g_assert_no_error (error);
  ep_assert_values (g_ptr_array_index (first, 0), EP_DTYPE_FLOAT32, EP_SHAPE (2), EP_VALUES (3, 12));
  ep_assert_values (g_ptr_array_index (second, 0), EP_DTYPE_FLOAT32, EP_SHAPE (2), EP_VALUES (27, 48));
  g_assert_cmpuint (calls, ==, 1);      /* traced once; cube_sum was before */

  graph = ep_function_lookup_graph (fn, &x, 1);
  g_assert_cmpuint (ep_graph_get_n_nodes (graph), >, 3);
  g_assert_null (ep_function_lookup_gradient (inner_cube, &x, 1));
  g_clear_object (&inner_cube);
}

/* A tape that outlives its inputs' data: the gradient says so, before
 * the graph is split (the first gradients) and after */
static void
released_input_gradient (EpFunction *fn,
                         gboolean    release)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) x = ep_test_new (EP_DTYPE_FLOAT32, EP_SHAPE (2), EP_VALUES (1, 2));
  g_autoptr(EpGradientTape) tape = ep_gradient_tape_new (FALSE);
  g_autoptr(GPtrArray) y = NULL, grads = NULL;
  GObject *source = G_OBJECT (x);

  ep_gradient_tape_watch (tape, x);
  y = run_under (tape, fn, NULL, NULL, &x, 1);
  if (release)
    ep_tensor_release (x);
  grads = ep_gradient_tape_gradient (tape, (EpTensor **) y->pdata, 1, &source, 1, NULL, 0, &error);
  if (!release)
    {
      g_assert_no_error (error);
      ep_assert_values (g_ptr_array_index (grads, 0), EP_DTYPE_FLOAT32, EP_SHAPE (2), EP_VALUES (3, 12));
      return;
    }
  g_assert_null (grads);
  ep_assert_error (error, EP_ERROR_INVALID_ARGUMENT, "function", "released");
}

static void
test_gradient_released_input (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpFunction) fn = ep_function_new (cube_sum, NULL, NULL);
  g_autoptr(EpTensor) x = ep_test_new (EP_DTYPE_FLOAT32, EP_SHAPE (2), EP_VALUES (1, 2));
  g_autoptr(GPtrArray) warm = call1 (fn, x, NULL, &error);

  g_assert_no_error (error);
  released_input_gradient (fn, TRUE);
  released_input_gradient (fn, FALSE);     /* now split */
  released_input_gradient (fn, FALSE);
  released_input_gradient (fn, TRUE);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/function/replay-equals-eager", test_replay_equals_eager);
  g_test_add_func ("/function/new-signature-retraces", test_new_signature_retraces);
  g_test_add_func ("/function/relaxed-signature", test_relaxed_signature);
  g_test_add_func ("/function/relaxed-signature-specialized", test_relaxed_signature_specialized);
  g_test_add_func ("/function/relaxed-signature-with-gradients", test_relaxed_signature_with_gradients);
  g_test_add_func ("/function/variables-by-reference", test_variables_by_reference);
  g_test_add_func ("/function/reads-after-assign", test_reads_after_assign);
  g_test_add_func ("/function/random-streams", test_random_streams);
  g_test_add_func ("/function/trace-errors", test_trace_errors);
  g_test_add_func ("/function/no-objects-for-intermediates", test_no_objects_for_intermediates);
  g_test_add_func ("/function/tape-around-call", test_tape_around_call);
  g_test_add_func ("/function/nested", test_nested_functions);
  g_test_add_func ("/function/replay-checks-assigned-shapes", test_replay_checks_assigned_shapes);
  g_test_add_func ("/function/device-scope-retraces", test_device_scope_retraces);
  g_test_add_func ("/function/custom-gradient-replayed", test_custom_gradient_replayed);
  g_test_add_func ("/function/gradient/equals-eager", test_gradient_equals_eager);
  g_test_add_func ("/function/gradient/variables", test_gradient_variables);
  g_test_add_func ("/function/gradient/wanted-sources", test_gradient_wanted_sources);
  g_test_add_func ("/function/gradient/relaxed-signature", test_gradient_relaxed_signature);
  g_test_add_func ("/function/gradient/data-dependent-shapes", test_gradient_data_dependent_shapes);
  g_test_add_func ("/function/gradient/random", test_gradient_random);
  g_test_add_func ("/function/gradient/higher-order", test_gradient_higher_order);
  g_test_add_func ("/function/gradient/refused-step-forgotten-inside", test_refused_step_is_forgotten_inside);
  g_test_add_func ("/function/gradient/hessian-vector", test_gradient_hessian_vector);
  g_test_add_func ("/function/gradient/persistent", test_gradient_persistent);
  g_test_add_func ("/function/gradient/unconnected", test_gradient_unconnected);
  g_test_add_func ("/function/gradient/outputs", test_gradient_outputs);
  g_test_add_func ("/function/gradient/integer-output", test_gradient_integer_output);
  g_test_add_func ("/function/gradient/assigned-variable", test_gradient_assigned_variable);
  g_test_add_func ("/function/gradient/training-step", test_gradient_training_step);
  g_test_add_func ("/function/gradient/finite-differences", test_gradient_finite_differences);
  g_test_add_func ("/function/gradient/inside-trace", test_gradient_inside_trace);
  g_test_add_func ("/function/gradient/released-input", test_gradient_released_input);

  return g_test_run ();
}
