/* ep-test-gradient.h: gradient rules against central finite differences
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Shared by the gradient tests of the op families (tests/c/ops/). No
 * tape is needed: a recorder captures the op's call as a tape would see
 * it, the rule is asked for the vector-Jacobian product with a cotangent
 * v, and each input element's entry is compared, in float64, with
 * sum (v * (f (x + h e_k) - f (x - h e_k))) / 2h.
 *
 *   ep_test_check_gradient (&ep_op_clip, call_clip, x, 1);
 *   ep_test_check_gradient_of (&ep_op_slogdet, f_logabsdet, NULL, a, 1, 1);
 *
 * ep_test_check_gradient puts a fixed v on the first output and zeros on
 * the others (topk's indices); ep_test_check_gradient_of puts a random v
 * on the output it is given, and passes its data to the function.
 */

#pragma once

#include "ep-op-private.h"
#include "ep-recorder-private.h"
#include "ep-test-util.h"

G_BEGIN_DECLS

#define EP_TEST_MAX_INPUTS 5

/* The function under test, of an array of inputs */
typedef EpTensor *(*EpTestFunction) (EpTensor **x, GError **error);

/* The same with data: the op applied to @inputs, giving the output
 * whose gradient is checked */
typedef EpTensor *(*EpTestForward) (EpTensor **inputs, gconstpointer data, GError **error);

/* A recorder that keeps the first call of @op, its inputs and outputs:
 *
 *   EpTestCapture capture = { .base.record = ep_test_capture_record, .op = &ep_op_sort };
 */
typedef struct
{
  EpRecorder     base;
  const EpOpDef *op;
  EpOpCall       call;
  EpTensor      *inputs[EP_TEST_MAX_INPUTS];
  gboolean       captured;
} EpTestCapture;

static inline gboolean
ep_test_capture_record (EpRecorder      *recorder,
                        const EpOpCall  *call,
                        GError         **error)
{
  EpTestCapture *capture = (EpTestCapture *) recorder;

  if (call->op != capture->op || capture->captured)
    return TRUE;

  g_assert_cmpuint (call->n_inputs, <=, EP_TEST_MAX_INPUTS);
  capture->call = *call;
  for (guint i = 0; i < call->n_inputs; i++)
    capture->inputs[i] = g_object_ref (call->inputs[i]);
  capture->call.inputs = capture->inputs;
  capture->call.input_dtypes = NULL;
  for (guint o = 0; o < call->n_outputs; o++)
    capture->call.outputs[o] = g_object_ref (call->outputs[o]);
  capture->captured = TRUE;
  return TRUE;
}

static inline void
ep_test_capture_clear (EpTestCapture *capture)
{
  for (guint i = 0; i < capture->call.n_inputs; i++)
    g_clear_object (&capture->inputs[i]);
  for (guint o = 0; o < capture->call.n_outputs; o++)
    g_clear_object (&capture->call.outputs[o]);
}

/* The elements of @t as float64, in C order (g_free the result) */
static inline gdouble *
ep_test_read_doubles (EpTensor *t,
                      gsize    *n)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) wide = ep_tensor_astype (t, EP_DTYPE_FLOAT64, &error);
  g_autoptr(GBytes) bytes = ep_tensor_to_bytes (wide, &error);
  gsize size;
  gconstpointer data;

  g_assert_no_error (error);
  data = g_bytes_get_data (bytes, &size);
  *n = size / sizeof (gdouble);
  return g_memdup2 (data, MAX (size, 1));
}

/* A float64 tensor of @values in @shape */
static inline EpTensor *
ep_test_float64 (const gdouble *values,
                 const gint64  *shape,
                 guint          ndim)
{
  g_autoptr(GError) error = NULL;
  gint64 n = 1;
  EpTensor *t;

  for (guint d = 0; d < ndim; d++)
    n *= shape[d];
  t = ep_tensor_new_from_doubles (values, n, shape, ndim, EP_DTYPE_FLOAT64, &error);
  g_assert_no_error (error);
  return t;
}

/* Uniform in [-2, 2), the same for the same @seed */
static inline EpTensor *
ep_test_random (const gint64 *shape,
                guint         ndim,
                EpDType       dtype,
                guint         seed)
{
  g_autoptr(GError) error = NULL;
  EpLayout layout;
  gint64 n;
  g_autofree gdouble *values = NULL;
  GRand *rand = g_rand_new_with_seed (seed);
  EpTensor *t;

  g_assert_true (ep_layout_init (&layout, dtype, shape, ndim, "test", NULL));
  n = ep_layout_get_size (&layout);
  values = g_new (gdouble, MAX (n, 1));
  for (gint64 i = 0; i < n; i++)
    values[i] = g_rand_double_range (rand, -2, 2);
  g_rand_free (rand);

  t = ep_tensor_new_from_doubles (values, n, shape, ndim, dtype, &error);
  g_assert_no_error (error);
  return t;
}

/* inputs away from kinks and poles, as (3, 4) and (4,) */
static const gdouble ep_test_grad_a[] = {
  0.31, -0.72, 0.55, 0.18, -0.43, 0.67, -0.29, 0.84, -0.61, 0.12, 0.47, -0.05,
};
static const gdouble ep_test_grad_b[] = { 1.9, -1.3, 0.7, -2.45 };
static const gint64 ep_test_shape_34[] = { 3, 4 };
static const gint64 ep_test_shape_4[] = { 4 };

/* the same shape with one element moved by @delta */
static inline EpTensor *
ep_test_nudged (EpTensor *x,
                gsize     k,
                gdouble   delta)
{
  gsize n;
  g_autofree gdouble *values = ep_test_read_doubles (x, &n);

  values[k] += delta;
  return ep_test_float64 (values, x->layout.shape, x->layout.ndim);
}

static inline gdouble
ep_test_weighted_sum (EpTensor      *y,
                      const gdouble *v)
{
  gsize n;
  g_autofree gdouble *values = ep_test_read_doubles (y, &n);
  gdouble total = 0;

  for (gsize i = 0; i < n; i++)
    total += v[i] * values[i];
  return total;
}

/* Checks op's rule on inputs @x (float64 tensors are checked, others
 * are passed through) with f computed by @function. */
static inline void
ep_test_check_gradient (const EpOpDef  *op,
                        EpTestFunction  function,
                        EpTensor      **x,
                        guint           n_inputs)
{
  const gdouble h = 1e-6;
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) y = NULL;
  g_autoptr(EpTensor) cotangent = NULL;
  EpTensor *output_grads[EP_MAX_OUTPUTS] = { NULL };
  EpTensor *input_grads[EP_TEST_MAX_INPUTS] = { NULL };
  EpTestCapture capture = { .base.record = ep_test_capture_record, .op = op };
  g_autofree gdouble *v = NULL;
  gsize n_out;

  g_assert_nonnull (op->gradient);

  ep_recorder_push (&capture.base);
  y = function (x, &error);
  ep_recorder_pop (&capture.base);
  g_assert_no_error (error);
  g_assert_true (capture.captured);

  n_out = ep_layout_get_size (&y->layout);
  v = g_new (gdouble, MAX (n_out, 1));
  for (gsize i = 0; i < n_out; i++)
    v[i] = 0.5 + 0.37 * (gdouble) ((i * 7) % 5) - 0.9 * (i % 2);
  cotangent = ep_test_float64 (v, y->layout.shape, y->layout.ndim);
  output_grads[0] = cotangent;
  for (guint o = 1; o < capture.call.n_outputs; o++)
    output_grads[o] = ep_tensor_zeros_like (capture.call.outputs[o], NULL);

  g_assert_true (op->gradient (&capture.call, output_grads, input_grads, &error));
  g_assert_no_error (error);

  for (guint j = 0; j < n_inputs; j++)
    {
      gsize n, n_grad;
      g_autofree gdouble *grad = NULL;

      if (x[j]->layout.dtype != EP_DTYPE_FLOAT64)
        continue;

      g_assert_nonnull (input_grads[j]);
      g_assert_cmpuint (input_grads[j]->layout.ndim, ==, x[j]->layout.ndim);
      for (guint d = 0; d < x[j]->layout.ndim; d++)
        g_assert_cmpint (input_grads[j]->layout.shape[d], ==, x[j]->layout.shape[d]);

      grad = ep_test_read_doubles (input_grads[j], &n_grad);
      n = ep_layout_get_size (&x[j]->layout);
      g_assert_cmpuint (n, ==, n_grad);
      for (gsize k = 0; k < n; k++)
        {
          EpTensor *original = x[j];
          g_autoptr(EpTensor) plus = ep_test_nudged (original, k, h);
          g_autoptr(EpTensor) minus = ep_test_nudged (original, k, -h);
          g_autoptr(EpTensor) y_plus = NULL;
          g_autoptr(EpTensor) y_minus = NULL;
          gdouble numeric;

          x[j] = plus;
          y_plus = function (x, &error);
          g_assert_no_error (error);
          x[j] = minus;
          y_minus = function (x, &error);
          g_assert_no_error (error);
          x[j] = original;

          numeric = (ep_test_weighted_sum (y_plus, v) - ep_test_weighted_sum (y_minus, v)) / (2 * h);
          if (fabs (numeric - grad[k]) > 1e-6 * MAX (1.0, fabs (numeric)))
            g_error ("%s: d/dx%u[%" G_GSIZE_FORMAT "]: rule %.10g, finite difference %.10g",
                     op->name, j, k, grad[k], numeric);
        }
    }

  for (guint j = 0; j < n_inputs; j++)
    g_clear_object (&input_grads[j]);
  for (guint o = 1; o < capture.call.n_outputs; o++)
    g_clear_object (&output_grads[o]);
  ep_test_capture_clear (&capture);
}

/* sum (f (inputs) * cotangent) */
static inline gdouble
ep_test_objective (EpTestForward   f,
                   gconstpointer   data,
                   EpTensor      **inputs,
                   EpTensor       *cotangent)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) y = f (inputs, data, &error);
  g_autoptr(EpTensor) weighted = NULL;
  g_autoptr(EpTensor) total = NULL;

  g_assert_no_error (error);
  weighted = ep_tensor_mul (y, cotangent, &error);
  total = ep_tensor_sum (weighted, NULL, 0, FALSE, &error);
  g_assert_no_error (error);
  return ep_tensor_item_double (total, NULL);
}

/* Checks op's rule for output @out_index of @f on @inputs, with a random
 * cotangent there and zeros on the other outputs; floating inputs get
 * checked, the others must get no gradient. */
static inline void
ep_test_check_gradient_of (const EpOpDef  *op,
                           EpTestForward   f,
                           gconstpointer   data,
                           EpTensor      **inputs,
                           guint           n_inputs,
                           guint           out_index)
{
  g_autoptr(GError) error = NULL;
  EpTestCapture capture = { .base.record = ep_test_capture_record, .op = op };
  g_autoptr(EpTensor) y = NULL;
  g_autoptr(EpTensor) cotangent = NULL;
  EpTensor *output_grads[EP_MAX_OUTPUTS] = { NULL };
  EpTensor *input_grads[EP_TEST_MAX_INPUTS] = { NULL };
  EpOpCall call;

  ep_recorder_push (&capture.base);
  y = f (inputs, data, &error);
  ep_recorder_pop (&capture.base);
  g_assert_no_error (error);
  g_assert_true (capture.captured);
  g_assert_nonnull (op->gradient);

  cotangent = ep_test_random (y->layout.shape, y->layout.ndim, EP_DTYPE_FLOAT64, 99);

  memset (&call, 0, sizeof call);
  call.op = op;
  call.inputs = capture.call.inputs;
  call.n_inputs = capture.call.n_inputs;
  call.attrs = capture.call.attrs;
  call.n_outputs = capture.call.n_outputs;
  call.device = ep_tensor_get_device (y);
  for (guint o = 0; o < capture.call.n_outputs; o++)
    {
      call.outputs[o] = capture.call.outputs[o];
      call.output_layouts[o] = capture.call.outputs[o]->layout;
      output_grads[o] = o == out_index ? g_object_ref (cotangent)
                                       : ep_tensor_zeros_like (capture.call.outputs[o], &error);
      g_assert_no_error (error);
    }

  g_assert_true (op->gradient (&call, output_grads, input_grads, &error));
  g_assert_no_error (error);

  for (guint i = 0; i < n_inputs; i++)
    {
      g_autofree gdouble *analytic = NULL;
      g_autofree gdouble *x = NULL;
      gsize n, n_analytic;
      EpTensor *original = inputs[i];

      if (!ep_dtype_is_floating (inputs[i]->layout.dtype))
        {
          g_assert_null (input_grads[i]);
          continue;
        }

      g_assert_nonnull (input_grads[i]);
      g_assert_cmpuint (input_grads[i]->layout.ndim, ==, inputs[i]->layout.ndim);
      for (guint d = 0; d < inputs[i]->layout.ndim; d++)
        g_assert_cmpint (input_grads[i]->layout.shape[d], ==, inputs[i]->layout.shape[d]);

      analytic = ep_test_read_doubles (input_grads[i], &n_analytic);
      x = ep_test_read_doubles (inputs[i], &n);
      g_assert_cmpuint (n, ==, n_analytic);

      for (gsize j = 0; j < n; j++)
        {
          const gdouble h = 1e-6;
          gdouble saved = x[j], plus, minus, numeric;
          g_autoptr(EpTensor) moved = NULL;

          x[j] = saved + h;
          moved = ep_tensor_new_from_doubles (x, n, original->layout.shape, original->layout.ndim,
                                              EP_DTYPE_FLOAT64, &error);
          inputs[i] = moved;
          plus = ep_test_objective (f, data, inputs, cotangent);
          g_clear_object (&moved);

          x[j] = saved - h;
          moved = ep_tensor_new_from_doubles (x, n, original->layout.shape, original->layout.ndim,
                                              EP_DTYPE_FLOAT64, &error);
          inputs[i] = moved;
          minus = ep_test_objective (f, data, inputs, cotangent);
          inputs[i] = original;
          x[j] = saved;

          numeric = (plus - minus) / (2 * h);
          if (fabs (numeric - analytic[j]) > 1e-6 * (1 + fabs (numeric)))
            g_error ("%s: input %u element %" G_GSIZE_FORMAT ": analytic %g, numeric %g",
                     op->name, i, j, analytic[j], numeric);
        }
    }

  for (guint o = 0; o < capture.call.n_outputs; o++)
    g_clear_object (&output_grads[o]);
  for (guint i = 0; i < n_inputs; i++)
    g_clear_object (&input_grads[i]);
  ep_test_capture_clear (&capture);
}

G_END_DECLS
