/* test-fault.c: a training step when any allocation fails
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * ep_fault_fail_allocation (n) makes the nth allocation of device
 * storage or of a kernel's host buffer fail (core/fault.c). Each test
 * sweeps n over one training step (forward pass, tape gradient,
 * assign_sub of two variables), eager and staged, on each device, until
 * the step makes fewer than n allocations. Every failure must be an
 * EP_ERROR_OUT_OF_MEMORY, the library must work on after it, and the
 * variables must be unchanged: a staged step commits its assignments
 * only when the replay has succeeded; an eager step assigns one
 * variable after the other, so a failure in the second assign_sub keeps
 * the first. Fused replay steps that sum what they make (and divide by
 * the sums) fail as cleanly.
 * The sanitizer build runs this under LeakSanitizer: no
 * failure path leaks.
 */

#include <eager-glib/eager-glib.h>

#include "ep-fault-private.h"
#include "ep-test-util.h"

#define LEARNING_RATE 0.1

typedef struct
{
  EpDevice   *device;
  EpTensor   *x, *y;
  EpTensor   *w0, *b0;    /* the variables' values before the step */
  EpVariable *w, *b;
  GBytes     *w1, *b1;    /* and after a step that succeeded */
  EpFunction *function;   /* the staged step */
} Fixture;

typedef gboolean (*StepFunc) (Fixture  *f,
                              GError  **error);

static EpTensor *
on_device (Fixture  *f,
           EpTensor *tensor)
{
  g_autoptr(GError) error = NULL;
  EpTensor *moved = ep_tensor_to_device (tensor, f->device, &error);

  g_assert_no_error (error);
  g_object_unref (tensor);
  return moved;
}

/* The forward pass and gradient under a tape, then the updates: the
 * mean squared error of x w + b against y. */
static gboolean
train (Fixture   *f,
       EpTensor  *x,
       EpTensor  *y,
       GError   **error)
{
  g_autoptr(EpGradientTape) tape = ep_gradient_tape_new (FALSE);
  g_autoptr(EpTensor) w = NULL, b = NULL, xw = NULL, pred = NULL, diff = NULL, sq = NULL;
  g_autoptr(EpTensor) loss = NULL, step_w = NULL, step_b = NULL;
  g_autoptr(GPtrArray) grads = NULL;
  GObject *sources[] = { G_OBJECT (f->w), G_OBJECT (f->b) };
  gboolean ok;

  if (!ep_gradient_tape_start (tape, error))
    return FALSE;
  w = ep_variable_read (f->w);
  b = ep_variable_read (f->b);
  ok = (xw = ep_tensor_matmul (x, w, error))
       && (pred = ep_tensor_add (xw, b, error))
       && (diff = ep_tensor_sub (pred, y, error))
       && (sq = ep_tensor_square (diff, error))
       && (loss = ep_tensor_mean (sq, NULL, 0, FALSE, error));
  if (!ep_gradient_tape_stop (tape, ok ? error : NULL))
    ok = FALSE;
  if (!ok)
    return FALSE;

  return (grads = ep_gradient_tape_gradient (tape, &loss, 1, sources, 2, NULL, 0, error))
         && (step_w = ep_tensor_mul_scalar (grads->pdata[0], LEARNING_RATE, error))
         && (step_b = ep_tensor_mul_scalar (grads->pdata[1], LEARNING_RATE, error))
         && ep_variable_assign_sub (f->w, step_w, error)
         && ep_variable_assign_sub (f->b, step_b, error);
}

static gboolean
eager_step (Fixture  *f,
            GError  **error)
{
  return train (f, f->x, f->y, error);
}

static GPtrArray *
traced_step (EpTensor **inputs,
             guint      n_inputs,
             gpointer   user_data,
             GError   **error)
{
  GPtrArray *outputs;

  if (!train (user_data, inputs[0], inputs[1], error))
    return NULL;
  outputs = g_ptr_array_new_with_free_func (g_object_unref);
  g_ptr_array_add (outputs, ep_variable_read (((Fixture *) user_data)->w));
  return outputs;
}

static gboolean
staged_step (Fixture  *f,
             GError  **error)
{
  EpTensor *inputs[] = { f->x, f->y };
  g_autoptr(GPtrArray) outputs = ep_function_call (f->function, inputs, 2, error);

  return outputs != NULL;
}

static void
fixture_set_up (Fixture       *f,
                gconstpointer  device_name)
{
  f->device = ep_device_get (device_name, NULL);
  if (f->device == NULL)
    return;
  f->x = on_device (f, ep_test_new (EP_DTYPE_FLOAT32, EP_SHAPE (4, 3),
                                    EP_VALUES (1, 2, 0, -1, 0.5, 3, 2, -2, 1, 0, 1, -0.5)));
  f->y = on_device (f, ep_test_new (EP_DTYPE_FLOAT32, EP_SHAPE (4, 2), EP_VALUES (1, 0, 0, 1, 2, -1, 0.5, 0.5)));
  f->w0 = on_device (f, ep_test_new (EP_DTYPE_FLOAT32, EP_SHAPE (3, 2), EP_VALUES (0.1, -0.2, 0.3, 0.4, -0.5, 0.6)));
  f->b0 = on_device (f, ep_test_new (EP_DTYPE_FLOAT32, EP_SHAPE (2), EP_VALUES (0.01, -0.01)));
  f->w = ep_variable_new (f->w0, "w");
  f->b = ep_variable_new (f->b0, "b");
}

static void
fixture_tear_down (Fixture       *f,
                   gconstpointer  device_name)
{
  g_clear_object (&f->function);
  g_clear_object (&f->x);
  g_clear_object (&f->y);
  g_clear_object (&f->w0);
  g_clear_object (&f->b0);
  g_clear_object (&f->w);
  g_clear_object (&f->b);
  g_clear_pointer (&f->w1, g_bytes_unref);
  g_clear_pointer (&f->b1, g_bytes_unref);
}

static gboolean
run_step (Fixture  *f,
          StepFunc  step,
          GError  **error)
{
  gboolean ok;

  if (!ep_device_push (f->device, error))
    return FALSE;
  ok = step (f, error);
  g_assert_true (ep_device_pop (f->device, NULL));
  return ok;
}

static GBytes *
value_of (EpVariable *variable)
{
  g_autoptr(EpTensor) value = ep_variable_read (variable);
  g_autoptr(GError) error = NULL;
  GBytes *bytes = ep_tensor_to_bytes (value, &error);

  g_assert_no_error (error);
  return bytes;
}

static gboolean
has_value (EpVariable *variable,
           GBytes     *expected)
{
  g_autoptr(GBytes) bytes = value_of (variable);

  return g_bytes_equal (bytes, expected);
}

static void
reset_variables (Fixture *f)
{
  g_autoptr(GError) error = NULL;

  g_assert_true (ep_variable_assign (f->w, f->w0, &error));
  g_assert_true (ep_variable_assign (f->b, f->b0, &error));
  g_assert_no_error (error);
}

/* The step's results without faults */
static void
take_reference (Fixture  *f,
                StepFunc  step)
{
  g_autoptr(GError) error = NULL;

  reset_variables (f);
  g_assert_true (run_step (f, step, &error));
  g_assert_no_error (error);
  f->w1 = value_of (f->w);
  f->b1 = value_of (f->b);
}

static void
check_failed_step (Fixture  *f,
                   GError   *error,
                   gboolean  atomic)
{
  g_autoptr(GBytes) w0 = NULL, b0 = NULL;
  g_autoptr(GError) read_error = NULL;

  g_assert_error (error, EP_ERROR, EP_ERROR_OUT_OF_MEMORY);
  w0 = ep_tensor_to_bytes (f->w0, &read_error);
  b0 = ep_tensor_to_bytes (f->b0, &read_error);
  g_assert_no_error (read_error);

  g_assert_true (has_value (f->b, b0));
  if (atomic)
    g_assert_true (has_value (f->w, w0));
  else
    g_assert_true (has_value (f->w, w0) || has_value (f->w, f->w1));
}

/* A new staged step, traced (by a call that assigns the variables) */
static void
trace_step (Fixture *f)
{
  g_autoptr(GError) error = NULL;

  g_clear_object (&f->function);
  f->function = ep_function_new (traced_step, f, NULL);
  g_assert_true (run_step (f, staged_step, &error));
  g_assert_no_error (error);
}

/* Fails the first, second … allocation of @step, until it makes fewer.
 * @prepare, when given, runs before each: a staged step is traced anew,
 * so that each failure meets the first replay, which allocates the
 * most (later ones take their buffers from the replay's arena). */
static guint
sweep (Fixture  *f,
       StepFunc  step,
       void    (*prepare) (Fixture *f),
       gboolean  atomic)
{
  guint n;

  if (prepare != NULL)
    prepare (f);
  take_reference (f, step);
  for (n = 1; ; n++)
    {
      g_autoptr(GError) error = NULL;
      gboolean ok, fired;

      if (prepare != NULL)
        prepare (f);
      reset_variables (f);
      ep_fault_fail_allocation (n);
      ok = run_step (f, step, &error);
      fired = ep_fault_fired ();
      ep_fault_fail_allocation (0);

      if (!ok)
        check_failed_step (f, error, atomic);
      else
        g_assert_true (has_value (f->w, f->w1) && has_value (f->b, f->b1));
      if (!fired)
        break;
    }

  /* the last step, with no fault left, succeeded with the right values */
  g_assert_true (has_value (f->w, f->w1) && has_value (f->b, f->b1));
  return n - 1;
}

static void
test_eager (Fixture       *f,
            gconstpointer  device_name)
{
  guint n;

  if (f->device == NULL)
    {
      g_test_skip ("no such device");
      return;
    }
  n = sweep (f, eager_step, NULL, FALSE);
  /* forward, gradient and updates allocate dozens of buffers */
  g_assert_cmpuint (n, >=, 10);
  g_test_message ("%s: %u allocations failed one by one", (const char *) device_name, n);
}

static void
test_staged (Fixture       *f,
             gconstpointer  device_name)
{
  guint n;

  if (f->device == NULL)
    {
      g_test_skip ("no such device");
      return;
    }
  n = sweep (f, staged_step, trace_step, TRUE);
  g_assert_cmpuint (n, >=, 2);
  g_test_message ("%s: %u allocations failed one by one", (const char *) device_name, n);
}

/* sum (exp (x) * 2) over 100 000 elements: one fused replay step, whose
 * parts each take a buffer for the elements they make */
static GPtrArray *
fused_sum (EpTensor **inputs,
           guint      n_inputs,
           gpointer   user_data,
           GError   **error)
{
  g_autoptr(EpTensor) e = NULL, twice = NULL;
  GPtrArray *outputs;
  EpTensor *total;

  if ((e = ep_tensor_exp (inputs[0], error)) == NULL
      || (twice = ep_tensor_mul_scalar (e, 2.0, error)) == NULL
      || (total = ep_tensor_sum (twice, NULL, 0, FALSE, error)) == NULL)
    return NULL;
  outputs = g_ptr_array_new_with_free_func (g_object_unref);
  g_ptr_array_add (outputs, total);
  return outputs;
}

/* exp (x) / sum (exp (x), last axis) over rows: a fused row sum whose
 * division is its epilogue */
static GPtrArray *
fused_rows (EpTensor **inputs,
            guint      n_inputs,
            gpointer   user_data,
            GError   **error)
{
  g_autoptr(EpTensor) e = NULL, sums = NULL;
  GPtrArray *outputs;
  EpTensor *ratio;

  if ((e = ep_tensor_exp (inputs[0], error)) == NULL
      || (sums = ep_tensor_sum (e, (const gint[]) { -1 }, 1, TRUE, error)) == NULL
      || (ratio = ep_tensor_div (e, sums, error)) == NULL)
    return NULL;
  outputs = g_ptr_array_new_with_free_func (g_object_unref);
  g_ptr_array_add (outputs, ratio);
  return outputs;
}

/* Sweeps a replay of @func on zeros of @shape, whose outputs' first
 * element is @expected */
static void
sweep_fused (EpTensorsFunc  func,
             const gint64  *shape,
             guint          ndim,
             gdouble        expected)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) x = ep_zeros (shape, ndim, EP_DTYPE_FLOAT32, &error);
  g_autoptr(EpFunction) function = ep_function_new (func, NULL, NULL);
  g_autoptr(GPtrArray) traced = ep_function_call (function, &x, 1, &error);
  guint n;

  g_assert_no_error (error);
  for (n = 1; ; n++)
    {
      g_autoptr(GPtrArray) outputs = NULL;
      gboolean fired;

      ep_fault_fail_allocation (n);
      outputs = ep_function_call (function, &x, 1, &error);
      fired = ep_fault_fired ();
      ep_fault_fail_allocation (0);
      if (outputs == NULL)
        {
          g_assert_error (error, EP_ERROR, EP_ERROR_OUT_OF_MEMORY);
          g_clear_error (&error);
        }
      else
        {
          g_autoptr(GBytes) bytes = ep_tensor_to_bytes (outputs->pdata[0], &error);

          g_assert_no_error (error);
          g_assert_cmpfloat (*(const gfloat *) g_bytes_get_data (bytes, NULL), ==, (gfloat) expected);
        }
      if (!fired)
        break;
    }
  g_assert_cmpuint (n, >, 2);
}

static void
test_fused_sum (void)
{
  sweep_fused (fused_sum, EP_DIMS (100000), 1, 200000.0);
}

static void
test_fused_epilogue (void)
{
  sweep_fused (fused_rows, EP_DIMS (1000, 100), 2, 0.01);
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add ("/fault/eager/cpu", Fixture, "cpu:0", fixture_set_up, test_eager, fixture_tear_down);
  g_test_add ("/fault/staged/cpu", Fixture, "cpu:0", fixture_set_up, test_staged, fixture_tear_down);
  g_test_add ("/fault/eager/opencl", Fixture, "opencl:0", fixture_set_up, test_eager, fixture_tear_down);
  g_test_add ("/fault/staged/opencl", Fixture, "opencl:0", fixture_set_up, test_staged, fixture_tear_down);
  g_test_add_func ("/fault/fused/sum", test_fused_sum);
  g_test_add_func ("/fault/fused/epilogue", test_fused_epilogue);

  return g_test_run ();
}
