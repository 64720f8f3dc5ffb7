/* test-function.c: staged functions, traced once and replayed
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "ep-test-util.h"

#include "ep-context-private.h"
#include "ep-executor-private.h"
#include "ep-function-private.h"

/* The functions staged here count their calls: a replay must not call
 * them. */
static guint calls;

static GPtrArray *
one (EpTensor *tensor)
{
  GPtrArray *result = g_ptr_array_new_with_free_func (g_object_unref);

  if (tensor != NULL)
    g_ptr_array_add (result, tensor);
  return result;
}

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

  return one (ep_tensor_sqrt (shifted, error));
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

  return one (ep_tensor_mul_scalar (sums, 2, error));
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
  return one (ep_tensor_div_scalar (inputs[0], ep_tensor_get_shape (inputs[0], NULL)[0], error));
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

  return one (g_steal_pointer (&loss));
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
  return one (ep_tensor_add (again, inputs[0], error));
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

  return one (u != NULL ? ep_tensor_add (u, inputs[0], error) : NULL);
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
  return one (ep_tensor_add (inputs[0], inputs[1], error));
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

/* A tape around a staged call records its ops: the gradient is the eager
 * one, on the first call (traced) as on the next ones (replayed). */
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
  return one (ep_tensor_mul_scalar (inputs[0], 2, error));
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
  return one (s != NULL ? ep_tensor_mul (s, output_gradient, error) : NULL);
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
  return one (ep_custom_gradient (softplus_forward, NULL, softplus_backward, NULL, count_destroyed,
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
  g_assert_cmpuint (backward_calls, ==, 2);

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
  return inner != NULL ? one (ep_tensor_neg (g_ptr_array_index (inner, 0), error)) : NULL;
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
  return ep_variable_assign (user_data, inputs[0], error) ? one (NULL) : NULL;
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

  return g_test_run ();
}
