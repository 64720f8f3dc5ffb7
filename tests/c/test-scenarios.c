/* test-scenarios.c: the scenarios every binding test runs (tests/python,
 * tests/gjs, tests/vala), here in C.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include <eager-glib/eager-glib.h>

#include <math.h>
#include <string.h>

#include "ep-test-util.h"

/* The L2 norm of [1, 2, 3] by chaining methods. */
static void
test_norm (void)
{
  g_autoptr(GError) error = NULL;
  const double values[] = { 1, 2, 3 };
  const gint64 shape[] = { 3 };
  g_autoptr(EpTensor) x = ep_test_new (EP_DTYPE_FLOAT32, shape, 1, values, 3);
  g_autoptr(EpTensor) squares = ep_tensor_square (x, &error);
  g_autoptr(EpTensor) total = ep_tensor_sum (squares, NULL, 0, FALSE, &error);
  g_autoptr(EpTensor) norm = ep_tensor_sqrt (total, &error);
  g_autofree char *text = NULL;

  g_assert_no_error (error);
  g_assert_cmpuint (ep_tensor_get_ndim (norm), ==, 0);
  g_assert_cmpint (ep_tensor_get_dtype (norm), ==, EP_DTYPE_FLOAT32);
  g_assert_cmpfloat_with_epsilon (ep_tensor_item_double (norm, NULL), sqrt (14.0), 1e-6);
  text = ep_tensor_to_string (norm, &error);
  g_assert_cmpstr (text, ==, "3.7416575");
}

/* A (2, 1) column plus a (3,) row gives a (2, 3) matrix. */
static void
test_broadcast_add (void)
{
  g_autoptr(GError) error = NULL;
  const double column[] = { 10, 20 };
  const double row[] = { 1, 2, 3 };
  const gint64 column_shape[] = { 2, 1 };
  const gint64 row_shape[] = { 3 };
  g_autoptr(EpTensor) a = ep_test_new (EP_DTYPE_FLOAT32, column_shape, 2, column, 2);
  g_autoptr(EpTensor) b = ep_test_new (EP_DTYPE_FLOAT32, row_shape, 1, row, 3);
  g_autoptr(EpTensor) c = ep_tensor_add (a, b, &error);
  g_autofree char *text = NULL;
  const gint64 *shape;
  guint ndim;

  g_assert_no_error (error);
  shape = ep_tensor_get_shape (c, &ndim);
  g_assert_cmpuint (ndim, ==, 2);
  g_assert_cmpint (shape[0], ==, 2);
  g_assert_cmpint (shape[1], ==, 3);
  text = ep_tensor_to_string (c, &error);
  g_assert_cmpstr (text, ==, "[[11. 12. 13.]\n [21. 22. 23.]]");
}

/* Shapes (3,) and (4,) do not broadcast: a GError in EP_ERROR with the
 * code EP_ERROR_SHAPE and a message naming the op and the shapes. */
static void
test_shape_error (void)
{
  g_autoptr(GError) error = NULL;
  const double three[] = { 1, 2, 3 };
  const double four[] = { 1, 2, 3, 4 };
  const gint64 shape3[] = { 3 };
  const gint64 shape4[] = { 4 };
  g_autoptr(EpTensor) a = ep_test_new (EP_DTYPE_FLOAT32, shape3, 1, three, 3);
  g_autoptr(EpTensor) b = ep_test_new (EP_DTYPE_FLOAT32, shape4, 1, four, 4);
  g_autoptr(EpTensor) c = ep_tensor_add (a, b, &error);

  g_assert_null (c);
  g_assert_error (error, EP_ERROR, EP_ERROR_SHAPE);
  g_assert_nonnull (strstr (error->message, "add"));
  g_assert_nonnull (strstr (error->message, "(3,)"));
  g_assert_nonnull (strstr (error->message, "(4,)"));
}

static EpTensor *
sum_of_squares (EpTensor **inputs,
                guint      n_inputs,
                gpointer   user_data,
                GError   **error)
{
  g_autoptr(EpTensor) squares = ep_tensor_square (inputs[0], error);

  return squares != NULL ? ep_tensor_sum (squares, NULL, 0, FALSE, error) : NULL;
}

/* value_and_grad of sum(x²) at [1, 2, 3]: 14 and [2, 4, 6]. */
static void
test_value_and_grad (void)
{
  g_autoptr(GError) error = NULL;
  const double values[] = { 1, 2, 3 };
  const gint64 shape[] = { 3 };
  g_autoptr(EpTensor) x = ep_test_new (EP_DTYPE_FLOAT32, shape, 1, values, 3);
  g_autoptr(GPtrArray) grads = NULL;
  g_autoptr(EpTensor) value = NULL;
  g_autofree char *text = NULL;

  g_assert_true (ep_value_and_grad (sum_of_squares, NULL, &x, 1, NULL, 0, &value, &grads, &error));
  g_assert_no_error (error);
  g_assert_cmpfloat (ep_tensor_item_double (value, NULL), ==, 14.0);
  g_assert_cmpuint (grads->len, ==, 1);
  text = ep_tensor_to_string (g_ptr_array_index (grads, 0), &error);
  g_assert_cmpstr (text, ==, "[2. 4. 6.]");
}

/* Nested tapes: y = x * x at 3; the inner tape gives dy/dx = 6, the outer
 * tape, which recorded that computation, d²y/dx² = 2. */
static void
test_nested_tapes (void)
{
  g_autoptr(GError) error = NULL;
  const double three[] = { 3 };
  g_autoptr(EpTensor) x = ep_test_new (EP_DTYPE_FLOAT32, NULL, 0, three, 1);
  g_autoptr(EpGradientTape) outer = ep_gradient_tape_new (FALSE);
  g_autoptr(EpGradientTape) inner = ep_gradient_tape_new (FALSE);
  g_autoptr(EpTensor) y = NULL;
  g_autoptr(GPtrArray) first = NULL;
  g_autoptr(GPtrArray) second = NULL;
  EpTensor *dy;

  g_assert_true (ep_gradient_tape_start (outer, &error));
  ep_gradient_tape_watch (outer, x);
  g_assert_true (ep_gradient_tape_start (inner, &error));
  ep_gradient_tape_watch (inner, x);
  y = ep_tensor_mul (x, x, &error);
  g_assert_true (ep_gradient_tape_stop (inner, &error));
  first = ep_gradient_tape_gradient (inner, &y, 1, (GObject **) &x, 1, NULL, 0, &error);
  g_assert_no_error (error);
  g_assert_true (ep_gradient_tape_stop (outer, &error));

  dy = g_ptr_array_index (first, 0);
  g_assert_cmpfloat (ep_tensor_item_double (dy, NULL), ==, 6.0);
  second = ep_gradient_tape_gradient (outer, &dy, 1, (GObject **) &x, 1, NULL, 0, &error);
  g_assert_no_error (error);
  g_assert_cmpfloat (ep_tensor_item_double (g_ptr_array_index (second, 0), NULL), ==, 2.0);
}

/* A device scope: ops inside run on the scope's device (the last one
 * listed: an OpenCL device where there is one, else the CPU), inputs are
 * copied there, and the scope ends with pop. */
static void
test_device_scope (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) devices = ep_list_devices ();
  EpDevice *device = g_ptr_array_index (devices, devices->len - 1);
  const double values[] = { 1, 2, 3 };
  const gint64 shape[] = { 3 };
  g_autoptr(EpTensor) x = ep_test_new (EP_DTYPE_FLOAT32, shape, 1, values, 3);
  g_autoptr(EpTensor) y = NULL;
  g_autoptr(EpTensor) z = NULL;

  g_assert_true (ep_device_push (device, &error));
  g_assert_true (ep_device_get_current () == device);
  y = ep_tensor_mul_scalar (x, 2, &error);
  g_assert_no_error (error);
  g_assert_true (ep_device_pop (device, &error));
  g_assert_no_error (error);
  g_assert_null (ep_device_get_current ());

  g_assert_true (ep_tensor_get_device (y) == device);
  z = ep_tensor_sum (y, NULL, 0, FALSE, &error);   /* runs where y lives */
  g_assert_true (ep_tensor_get_device (z) == device);
  g_assert_cmpfloat (ep_tensor_item_double (z, NULL), ==, 12.0);
}

/* A staged training step: loss = sum ((w - x)²), its gradient by a tape
 * inside the step, w -= 0.25 * gradient. Three calls from w = [1, 2] to
 * x = [5, 6] give the losses 32, 8 and 2 and leave w at [4.5, 5.5]; the
 * step is traced once. */
static GPtrArray *
training_step (EpTensor  **inputs,
               guint       n_inputs,
               gpointer    user_data,
               GError    **error)
{
  EpVariable *w = user_data;
  g_autoptr(EpGradientTape) tape = ep_gradient_tape_new (FALSE);
  g_autoptr(EpTensor) value = NULL, diff = NULL, squares = NULL, scaled = NULL;
  g_autoptr(GPtrArray) grads = NULL;
  EpTensor *loss = NULL;
  GPtrArray *results = g_ptr_array_new_with_free_func (g_object_unref);

  if (!ep_gradient_tape_start (tape, error))
    return results;
  value = ep_variable_read (w);
  if ((diff = ep_tensor_sub (value, inputs[0], error)) == NULL
      || (squares = ep_tensor_square (diff, error)) == NULL
      || (loss = ep_tensor_sum (squares, NULL, 0, FALSE, error)) == NULL
      || !ep_gradient_tape_stop (tape, error))
    return results;
  g_ptr_array_add (results, loss);

  grads = ep_gradient_tape_gradient (tape, &loss, 1, (GObject **) &w, 1, NULL, 0, error);
  if (grads != NULL && (scaled = ep_tensor_mul_scalar (g_ptr_array_index (grads, 0), 0.25, error)) != NULL)
    ep_variable_assign_sub (w, scaled, error);
  return results;
}

static void
test_staged_step (void)
{
  g_autoptr(GError) error = NULL;
  const double start[] = { 1, 2 }, target[] = { 5, 6 }, losses[] = { 32, 8, 2 };
  const gint64 shape[] = { 2 };
  g_autoptr(EpTensor) init = ep_test_new (EP_DTYPE_FLOAT32, shape, 1, start, 2);
  g_autoptr(EpTensor) x = ep_test_new (EP_DTYPE_FLOAT32, shape, 1, target, 2);
  g_autoptr(EpVariable) w = ep_variable_new (init, "w");
  g_autoptr(EpFunction) step = ep_function_new (training_step, w, NULL);
  g_autoptr(EpTensor) now = NULL;
  g_autofree char *text = NULL;

  for (guint k = 0; k < 3; k++)
    {
      g_autoptr(GPtrArray) result = ep_function_call (step, &x, 1, &error);

      g_assert_no_error (error);
      g_assert_cmpfloat (ep_tensor_item_double (g_ptr_array_index (result, 0), NULL), ==, losses[k]);
    }
  now = ep_variable_read (w);
  text = ep_tensor_to_string (now, &error);
  g_assert_cmpstr (text, ==, "[4.5 5.5]");
  g_assert_cmpuint (ep_function_get_trace_count (step), ==, 1);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/scenarios/norm", test_norm);
  g_test_add_func ("/scenarios/broadcast-add", test_broadcast_add);
  g_test_add_func ("/scenarios/shape-error", test_shape_error);
  g_test_add_func ("/scenarios/value-and-grad", test_value_and_grad);
  g_test_add_func ("/scenarios/nested-tapes", test_nested_tapes);
  g_test_add_func ("/scenarios/device-scope", test_device_scope);
  g_test_add_func ("/scenarios/staged-step", test_staged_step);
  return g_test_run ();
}
