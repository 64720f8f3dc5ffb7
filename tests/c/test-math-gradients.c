/* test-math-gradients.c: the gradient rules of the issue-3 ops against
 * central finite differences in float64.
 *
 * No tape is needed: a recorder captures the op's call, the rule is
 * asked for the vector-Jacobian product with a fixed cotangent v, and
 * each input element's entry is compared with
 * sum (v * (f (x + h e_k) - f (x - h e_k))) / 2h. Ops with several
 * outputs (topk) get v on the first and zeros on the others.
 */

#include <math.h>

#include <eager-glib/eager-glib.h>

#include "ep-op-private.h"
#include "ep-recorder-private.h"
#include "ep-tensor-private.h"

#define H 1e-6
#define MAX_INPUTS 3

typedef EpTensor *(*Function) (EpTensor **x, GError **error);

typedef struct
{
  EpRecorder     base;
  const EpOpDef *op;
  EpOpCall       call;
  EpTensor      *inputs[MAX_INPUTS];
  gboolean       captured;
} Capture;

static gboolean
capture_record (EpRecorder      *recorder,
                const EpOpCall  *call,
                GError         **error)
{
  Capture *capture = (Capture *) recorder;

  if (call->op != capture->op || capture->captured)
    return TRUE;

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

static void
capture_clear (Capture *capture)
{
  for (guint i = 0; i < capture->call.n_inputs; i++)
    g_clear_object (&capture->inputs[i]);
  for (guint o = 0; o < capture->call.n_outputs; o++)
    g_clear_object (&capture->call.outputs[o]);
}

static gdouble *
read_doubles (EpTensor *t,
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

static EpTensor *
make (const gdouble *values,
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

/* the same shape with one element moved by @delta */
static EpTensor *
nudged (EpTensor *x,
        gsize     k,
        gdouble   delta)
{
  gsize n;
  g_autofree gdouble *values = read_doubles (x, &n);

  values[k] += delta;
  return make (values, x->layout.shape, x->layout.ndim);
}

static gdouble
weighted_sum (EpTensor      *y,
              const gdouble *v)
{
  gsize n;
  g_autofree gdouble *values = read_doubles (y, &n);
  gdouble total = 0;

  for (gsize i = 0; i < n; i++)
    total += v[i] * values[i];
  return total;
}

/* Checks op's rule on inputs @x (float64 tensors are checked, others
 * are passed through) with f computed by @function. */
static void
check_gradient (const EpOpDef  *op,
                Function        function,
                EpTensor      **x,
                guint           n_inputs)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) y = NULL;
  g_autoptr(EpTensor) cotangent = NULL;
  EpTensor *output_grads[EP_MAX_OUTPUTS] = { NULL };
  EpTensor *input_grads[MAX_INPUTS] = { NULL };
  Capture capture = { .base.record = capture_record, .op = op };
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
  cotangent = make (v, y->layout.shape, y->layout.ndim);
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

      grad = read_doubles (input_grads[j], &n_grad);
      n = ep_layout_get_size (&x[j]->layout);
      g_assert_cmpuint (n, ==, n_grad);
      for (gsize k = 0; k < n; k++)
        {
          EpTensor *original = x[j];
          g_autoptr(EpTensor) plus = nudged (original, k, H);
          g_autoptr(EpTensor) minus = nudged (original, k, -H);
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

          numeric = (weighted_sum (y_plus, v) - weighted_sum (y_minus, v)) / (2 * H);
          if (fabs (numeric - grad[k]) > 1e-6 * MAX (1.0, fabs (numeric)))
            g_error ("%s: d/dx%u[%" G_GSIZE_FORMAT "]: rule %.10g, finite difference %.10g",
                     op->name, j, k, grad[k], numeric);
        }
    }

  for (guint j = 0; j < n_inputs; j++)
    g_clear_object (&input_grads[j]);
  for (guint o = 1; o < capture.call.n_outputs; o++)
    g_clear_object (&output_grads[o]);
  capture_clear (&capture);
}

/* inputs away from kinks and poles */
static const gdouble A[] = { 0.31, -0.72, 0.55, 0.18, -0.43, 0.67, -0.29, 0.84, -0.61, 0.12, 0.47, -0.05 };
static const gdouble B[] = { 1.9, -1.3, 0.7, -2.45 };
static const gint64 SHAPE_34[] = { 3, 4 };
static const gint64 SHAPE_4[] = { 4 };

#define BINARY(name)                                                        \
static EpTensor *                                                           \
call_##name (EpTensor **x, GError **error)                                  \
{                                                                           \
  return ep_tensor_##name (x[0], x[1], error);                              \
}

BINARY (floordiv)
BINARY (mod)
BINARY (minimum)
BINARY (maximum)

static void
test_binary (void)
{
  static const struct { const EpOpDef *op; Function f; } cases[] = {
    { &ep_op_floordiv, call_floordiv },
    { &ep_op_mod, call_mod },
    { &ep_op_minimum, call_minimum },
    { &ep_op_maximum, call_maximum },
  };
  const gdouble a[12] = { 5.3, -2.7, 3.1, 0.4, -4.45, 1.15, 7.3, -0.35, 2.2, -3.3, 0.95, 6.1 };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(EpTensor) x0 = make (a, SHAPE_34, 2);
      g_autoptr(EpTensor) x1 = make (B, SHAPE_4, 1);   /* broadcast */
      EpTensor *x[2] = { x0, x1 };

      check_gradient (cases[i].op, cases[i].f, x, 2);
    }
}

static EpTensor *
call_clip (EpTensor **x, GError **error)
{
  return ep_tensor_clip (x[0], -0.5, 0.6, error);
}

static void
test_clip (void)
{
  g_autoptr(EpTensor) x0 = make (A, SHAPE_34, 2);
  EpTensor *x[1] = { x0 };

  check_gradient (&ep_op_clip, call_clip, x, 1);
}

#define UNARY(name)                                                         \
static EpTensor *                                                           \
call_##name (EpTensor **x, GError **error)                                  \
{                                                                           \
  return ep_tensor_##name (x[0], error);                                    \
}

UNARY (expm1) UNARY (log1p) UNARY (log2) UNARY (log10) UNARY (sin) UNARY (cos)
UNARY (tan) UNARY (sinh) UNARY (cosh) UNARY (arcsin) UNARY (arccos) UNARY (arctan)
UNARY (arcsinh) UNARY (arccosh) UNARY (arctanh) UNARY (softplus) UNARY (sign)
UNARY (round) UNARY (ceil) UNARY (floor)

static void
test_unary (void)
{
  static const struct { const EpOpDef *op; Function f; gdouble shift; } cases[] = {
    { &ep_op_expm1, call_expm1, 0 }, { &ep_op_log1p, call_log1p, 0 },
    { &ep_op_log2, call_log2, 1 }, { &ep_op_log10, call_log10, 1 },
    { &ep_op_sin, call_sin, 0 }, { &ep_op_cos, call_cos, 0 }, { &ep_op_tan, call_tan, 0 },
    { &ep_op_sinh, call_sinh, 0 }, { &ep_op_cosh, call_cosh, 0 },
    { &ep_op_arcsin, call_arcsin, 0 }, { &ep_op_arccos, call_arccos, 0 },
    { &ep_op_arctan, call_arctan, 0 }, { &ep_op_arcsinh, call_arcsinh, 0 },
    { &ep_op_arccosh, call_arccosh, 2 }, { &ep_op_arctanh, call_arctanh, 0 },
    { &ep_op_softplus, call_softplus, 0 }, { &ep_op_sign, call_sign, 0 },
    { &ep_op_round, call_round, 0 }, { &ep_op_ceil, call_ceil, 0 }, { &ep_op_floor, call_floor, 0 },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      gdouble values[12];
      g_autoptr(EpTensor) x0 = NULL;
      EpTensor *x[1];

      for (guint k = 0; k < 12; k++)
        values[k] = cases[i].shift > 0 ? fabs (A[k]) + cases[i].shift : A[k];
      x0 = make (values, SHAPE_34, 2);
      x[0] = x0;
      check_gradient (cases[i].op, cases[i].f, x, 1);
    }
}

static gint reduce_axes[2];
static guint reduce_n_axes;
static gboolean reduce_keepdims;

static EpTensor *
call_prod (EpTensor **x, GError **error)
{
  return ep_tensor_prod (x[0], reduce_n_axes ? reduce_axes : NULL, reduce_n_axes, reduce_keepdims, error);
}

static EpTensor *
call_logsumexp (EpTensor **x, GError **error)
{
  return ep_tensor_logsumexp (x[0], reduce_n_axes ? reduce_axes : NULL, reduce_n_axes, reduce_keepdims, error);
}

static EpTensor *
call_cumsum (EpTensor **x, GError **error)
{
  return ep_tensor_cumsum (x[0], reduce_n_axes ? reduce_axes[0] : EP_AXIS_NONE, error);
}

static void
test_reductions (void)
{
  static const struct { gint axes[2]; guint n; gboolean keepdims; } settings[] = {
    { { 0 }, 0, FALSE }, { { 1 }, 1, FALSE }, { { 0 }, 1, TRUE }, { { -1, 0 }, 2, TRUE },
  };
  gdouble with_zeros[12];

  memcpy (with_zeros, A, sizeof A);
  with_zeros[1] = 0;   /* one zero in row 0 */
  with_zeros[8] = 0;   /* two zeros in row 2 and column 0 */
  with_zeros[9] = 0;

  for (guint s = 0; s < G_N_ELEMENTS (settings); s++)
    {
      g_autoptr(EpTensor) x0 = make (A, SHAPE_34, 2);
      g_autoptr(EpTensor) z0 = make (with_zeros, SHAPE_34, 2);
      EpTensor *x[1] = { x0 };
      EpTensor *z[1] = { z0 };

      memcpy (reduce_axes, settings[s].axes, sizeof reduce_axes);
      reduce_n_axes = settings[s].n;
      reduce_keepdims = settings[s].keepdims;
      check_gradient (&ep_op_prod, call_prod, x, 1);
      check_gradient (&ep_op_prod, call_prod, z, 1);
      check_gradient (&ep_op_logsumexp, call_logsumexp, x, 1);
      if (settings[s].n <= 1)
        check_gradient (&ep_op_cumsum, call_cumsum, x, 1);
    }
}

static gint softmax_axis;

static EpTensor *
call_softmax (EpTensor **x, GError **error)
{
  return ep_tensor_softmax (x[0], softmax_axis, error);
}

static EpTensor *
call_log_softmax (EpTensor **x, GError **error)
{
  return ep_tensor_log_softmax (x[0], softmax_axis, error);
}

static EpTensor *
call_crossentropy (EpTensor **x, GError **error)
{
  return ep_tensor_crossentropy (x[0], x[1], error);
}

static void
test_softmax_family (void)
{
  const gdouble labels[3] = { 2, 0, 3 };
  const gint64 shape_3[] = { 3 };
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) logits = make (A, SHAPE_34, 2);
  g_autoptr(EpTensor) y = ep_tensor_new_from_doubles (labels, 3, shape_3, 1, EP_DTYPE_INT64, &error);
  EpTensor *x[2] = { logits, y };

  g_assert_no_error (error);
  for (softmax_axis = -1; softmax_axis <= 1; softmax_axis++)
    {
      check_gradient (&ep_op_softmax, call_softmax, x, 1);
      check_gradient (&ep_op_log_softmax, call_log_softmax, x, 1);
    }
  check_gradient (&ep_op_crossentropy, call_crossentropy, x, 2);
}

static gint sort_axis;
static gint64 topk_k;
static gboolean topk_sorted;

static EpTensor *
call_sort (EpTensor **x, GError **error)
{
  return ep_tensor_sort (x[0], sort_axis, error);
}

static EpTensor *
call_topk (EpTensor **x, GError **error)
{
  EpTensor *values = NULL;

  if (!ep_tensor_topk (x[0], topk_k, topk_sorted, &values, NULL, error))
    return NULL;
  return values;
}

static void
test_sort_topk (void)
{
  static const gint64 shape_234[] = { 2, 3, 2 };
  g_autoptr(EpTensor) matrix = make (A, SHAPE_34, 2);
  g_autoptr(EpTensor) cube = make (A, shape_234, 3);
  g_autoptr(EpTensor) vector = make (B, SHAPE_4, 1);
  EpTensor *inputs[] = { matrix, cube, vector };

  for (guint i = 0; i < G_N_ELEMENTS (inputs); i++)
    {
      EpTensor *x[1] = { inputs[i] };
      gint ndim = inputs[i]->layout.ndim;
      gint64 n = inputs[i]->layout.shape[ndim - 1];

      for (sort_axis = -ndim; sort_axis < ndim; sort_axis++)
        check_gradient (&ep_op_sort, call_sort, x, 1);

      for (topk_k = 0; topk_k <= n; topk_k++)
        for (topk_sorted = FALSE; topk_sorted <= TRUE; topk_sorted++)
          check_gradient (&ep_op_topk, call_topk, x, 1);
    }
}

/* At ties and NaN the functions have no derivative, but the rules still
 * send each output's gradient to exactly one input: the element the
 * (stable) kernel put there. */
static void
test_sort_topk_ties (void)
{
  const gdouble values[6] = { 2, NAN, 1, 2, 1, 2 };
  const gdouble cotangent[6] = { 10, 20, 30, 40, 50, 60 };
  const gint64 shape[] = { 6 };
  const gint64 shape_3[] = { 3 };
  /* sorted: 1 (2), 1 (4), 2 (0), 2 (3), 2 (5), NaN (1) */
  const gdouble sort_expected[6] = { 30, 60, 10, 40, 20, 50 };
  /* top 3: NaN (1), 2 (0), 2 (3) */
  const gdouble topk_expected[6] = { 20, 10, 0, 30, 0, 0 };
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) x = make (values, shape, 1);
  g_autoptr(EpTensor) v = make (cotangent, shape, 1);
  g_autoptr(EpTensor) v3 = make (cotangent, shape_3, 1);
  g_autoptr(EpTensor) sorted = NULL;
  g_autoptr(EpTensor) top = NULL;
  g_autoptr(EpTensor) indices = NULL;
  g_autoptr(EpTensor) zeros = NULL;
  EpTensor *sort_grads[1] = { v };
  EpTensor *topk_grads[2] = { v3, NULL };
  EpTensor *grad[1] = { NULL };
  Capture capture = { .base.record = capture_record, .op = &ep_op_sort };
  g_autofree gdouble *got = NULL;
  gsize n;

  ep_recorder_push (&capture.base);
  sorted = ep_tensor_sort (x, 0, &error);
  ep_recorder_pop (&capture.base);
  g_assert_no_error (error);
  g_assert_true (ep_op_sort.gradient (&capture.call, sort_grads, grad, &error));
  g_assert_no_error (error);
  got = read_doubles (grad[0], &n);
  g_assert_cmpuint (n, ==, 6);
  for (guint i = 0; i < 6; i++)
    g_assert_cmpfloat (got[i], ==, sort_expected[i]);
  g_clear_object (&grad[0]);
  g_clear_pointer (&got, g_free);
  capture_clear (&capture);

  capture = (Capture) { .base.record = capture_record, .op = &ep_op_topk };
  ep_recorder_push (&capture.base);
  g_assert_true (ep_tensor_topk (x, 3, TRUE, &top, &indices, &error));
  ep_recorder_pop (&capture.base);
  g_assert_no_error (error);
  zeros = ep_tensor_zeros_like (indices, NULL);
  topk_grads[1] = zeros;
  g_assert_true (ep_op_topk.gradient (&capture.call, topk_grads, grad, &error));
  g_assert_no_error (error);
  got = read_doubles (grad[0], &n);
  g_assert_cmpuint (n, ==, 6);
  for (guint i = 0; i < 6; i++)
    g_assert_cmpfloat (got[i], ==, topk_expected[i]);
  g_clear_object (&grad[0]);
  capture_clear (&capture);
}

/* Ops whose outputs are integer or bool have no gradient rule, so a
 * gradient tape passes nothing through them; each says so by its output
 * type, checked here on a float input. */
static void
test_not_differentiable (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) x = make (A, SHAPE_34, 2);
  g_autoptr(EpTensor) argmin = ep_tensor_argmin (x, EP_AXIS_NONE, FALSE, &error);
  g_autoptr(EpTensor) argmax = ep_tensor_argmax (x, EP_AXIS_NONE, FALSE, &error);
  g_autoptr(EpTensor) argsort = ep_tensor_argsort (x, -1, &error);
  g_autoptr(EpTensor) values = NULL;
  g_autoptr(EpTensor) indices = NULL;
  g_autoptr(EpTensor) isnan = ep_tensor_isnan (x, &error);
  g_autoptr(EpTensor) less = ep_tensor_less (x, x, &error);
  static const struct { const EpOpDef *op; EpDType dtype; } cases[] = {
    { &ep_op_argmin, EP_DTYPE_INT64 }, { &ep_op_argmax, EP_DTYPE_INT64 },
    { &ep_op_argsort, EP_DTYPE_INT64 }, { &ep_op_isnan, EP_DTYPE_BOOL },
    { &ep_op_less, EP_DTYPE_BOOL },
  };
  EpTensor *outputs[] = { argmin, argmax, argsort, isnan, less };

  g_assert_no_error (error);
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_assert_null (cases[i].op->gradient);
      g_assert_cmpint (outputs[i]->layout.dtype, ==, cases[i].dtype);
    }

  /* topk: the values have a rule; the indices are int64 */
  g_assert_true (ep_tensor_topk (x, 2, TRUE, &values, &indices, &error));
  g_assert_no_error (error);
  g_assert_nonnull (ep_op_topk.gradient);
  g_assert_nonnull (ep_op_sort.gradient);
  g_assert_cmpint (values->layout.dtype, ==, EP_DTYPE_FLOAT64);
  g_assert_cmpint (indices->layout.dtype, ==, EP_DTYPE_INT64);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/math-gradients/binary", test_binary);
  g_test_add_func ("/math-gradients/clip", test_clip);
  g_test_add_func ("/math-gradients/unary", test_unary);
  g_test_add_func ("/math-gradients/reductions", test_reductions);
  g_test_add_func ("/math-gradients/softmax-family", test_softmax_family);
  g_test_add_func ("/math-gradients/sort-topk", test_sort_topk);
  g_test_add_func ("/math-gradients/sort-topk-ties", test_sort_topk_ties);
  g_test_add_func ("/math-gradients/not-differentiable", test_not_differentiable);
  return g_test_run ();
}
