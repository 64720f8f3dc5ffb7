/* test-math-gradients.c: the gradient rules of the issue-3 ops against
 * central finite differences in float64.
 *
 * No tape is needed: a recorder captures the op's call, the rule is
 * asked for the vector-Jacobian product with a fixed cotangent v, and
 * each input element's entry is compared with
 * sum (v * (f (x + h e_k) - f (x - h e_k))) / 2h. Ops with several
 * outputs (topk) get v on the first and zeros on the others.
 */

#include "ep-test-gradient.h"

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
  static const struct { const EpOpDef *op; EpTestFunction f; } cases[] = {
    { &ep_op_floordiv, call_floordiv },
    { &ep_op_mod, call_mod },
    { &ep_op_minimum, call_minimum },
    { &ep_op_maximum, call_maximum },
  };
  const gdouble a[12] = { 5.3, -2.7, 3.1, 0.4, -4.45, 1.15, 7.3, -0.35, 2.2, -3.3, 0.95, 6.1 };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(EpTensor) x0 = ep_test_float64 (a, ep_test_shape_34, 2);
      g_autoptr(EpTensor) x1 = ep_test_float64 (ep_test_grad_b, ep_test_shape_4, 1);   /* broadcast */
      EpTensor *x[2] = { x0, x1 };

      ep_test_check_gradient (cases[i].op, cases[i].f, x, 2);
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
  g_autoptr(EpTensor) x0 = ep_test_float64 (ep_test_grad_a, ep_test_shape_34, 2);
  EpTensor *x[1] = { x0 };

  ep_test_check_gradient (&ep_op_clip, call_clip, x, 1);
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
  static const struct { const EpOpDef *op; EpTestFunction f; gdouble shift; } cases[] = {
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
        values[k] = cases[i].shift > 0 ? fabs (ep_test_grad_a[k]) + cases[i].shift : ep_test_grad_a[k];
      x0 = ep_test_float64 (values, ep_test_shape_34, 2);
      x[0] = x0;
      ep_test_check_gradient (cases[i].op, cases[i].f, x, 1);
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
test_prod (void)
{
  static const struct { gint axes[2]; guint n; gboolean keepdims; } settings[] = {
    { { 0 }, 0, FALSE }, { { 1 }, 1, FALSE }, { { 0 }, 1, TRUE }, { { -1, 0 }, 2, TRUE },
  };
  gdouble with_zeros[12];

  memcpy (with_zeros, ep_test_grad_a, sizeof ep_test_grad_a);
  with_zeros[1] = 0;   /* one zero in row 0 */
  with_zeros[8] = 0;   /* two zeros in row 2 and column 0 */
  with_zeros[9] = 0;

  for (guint s = 0; s < G_N_ELEMENTS (settings); s++)
    {
      g_autoptr(EpTensor) x0 = ep_test_float64 (ep_test_grad_a, ep_test_shape_34, 2);
      g_autoptr(EpTensor) z0 = ep_test_float64 (with_zeros, ep_test_shape_34, 2);
      EpTensor *x[1] = { x0 };
      EpTensor *z[1] = { z0 };

      memcpy (reduce_axes, settings[s].axes, sizeof reduce_axes);
      reduce_n_axes = settings[s].n;
      reduce_keepdims = settings[s].keepdims;
      ep_test_check_gradient (&ep_op_prod, call_prod, x, 1);
      ep_test_check_gradient (&ep_op_prod, call_prod, z, 1);
    }
}

static void
test_logsumexp (void)
{
  static const struct { gint axes[2]; guint n; gboolean keepdims; } settings[] = {
    { { 0 }, 0, FALSE }, { { 1 }, 1, FALSE }, { { 0 }, 1, TRUE }, { { -1, 0 }, 2, TRUE },
  };

  for (guint s = 0; s < G_N_ELEMENTS (settings); s++)
    {
      g_autoptr(EpTensor) x0 = ep_test_float64 (ep_test_grad_a, ep_test_shape_34, 2);
      EpTensor *x[1] = { x0 };

      memcpy (reduce_axes, settings[s].axes, sizeof reduce_axes);
      reduce_n_axes = settings[s].n;
      reduce_keepdims = settings[s].keepdims;
      ep_test_check_gradient (&ep_op_logsumexp, call_logsumexp, x, 1);
    }
}

static void
test_cumsum (void)
{
  static const struct { gint axes[2]; guint n; gboolean keepdims; } settings[] = {
    { { 0 }, 0, FALSE }, { { 1 }, 1, FALSE }, { { 0 }, 1, TRUE }, { { -1, 0 }, 2, TRUE },
  };

  for (guint s = 0; s < G_N_ELEMENTS (settings); s++)
    {
      g_autoptr(EpTensor) x0 = ep_test_float64 (ep_test_grad_a, ep_test_shape_34, 2);
      EpTensor *x[1] = { x0 };

      memcpy (reduce_axes, settings[s].axes, sizeof reduce_axes);
      reduce_n_axes = settings[s].n;
      reduce_keepdims = settings[s].keepdims;
      if (settings[s].n <= 1)
        ep_test_check_gradient (&ep_op_cumsum, call_cumsum, x, 1);
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
  g_autoptr(EpTensor) logits = ep_test_float64 (ep_test_grad_a, ep_test_shape_34, 2);
  g_autoptr(EpTensor) y = ep_tensor_new_from_doubles (labels, 3, shape_3, 1, EP_DTYPE_INT64, &error);
  EpTensor *x[2] = { logits, y };

  g_assert_no_error (error);
  for (softmax_axis = -1; softmax_axis <= 1; softmax_axis++)
    {
      ep_test_check_gradient (&ep_op_softmax, call_softmax, x, 1);
      ep_test_check_gradient (&ep_op_log_softmax, call_log_softmax, x, 1);
    }
  ep_test_check_gradient (&ep_op_crossentropy, call_crossentropy, x, 2);
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
  g_autoptr(EpTensor) matrix = ep_test_float64 (ep_test_grad_a, ep_test_shape_34, 2);
  g_autoptr(EpTensor) cube = ep_test_float64 (ep_test_grad_a, shape_234, 3);
  g_autoptr(EpTensor) vector = ep_test_float64 (ep_test_grad_b, ep_test_shape_4, 1);
  EpTensor *inputs[] = { matrix, cube, vector };

  for (guint i = 0; i < G_N_ELEMENTS (inputs); i++)
    {
      EpTensor *x[1] = { inputs[i] };
      gint ndim = inputs[i]->layout.ndim;
      gint64 n = inputs[i]->layout.shape[ndim - 1];

      for (sort_axis = -ndim; sort_axis < ndim; sort_axis++)
        ep_test_check_gradient (&ep_op_sort, call_sort, x, 1);

      for (topk_k = 0; topk_k <= n; topk_k++)
        for (topk_sorted = FALSE; topk_sorted <= TRUE; topk_sorted++)
          ep_test_check_gradient (&ep_op_topk, call_topk, x, 1);
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
  g_autoptr(EpTensor) x = ep_test_float64 (values, shape, 1);
  g_autoptr(EpTensor) v = ep_test_float64 (cotangent, shape, 1);
  g_autoptr(EpTensor) v3 = ep_test_float64 (cotangent, shape_3, 1);
  g_autoptr(EpTensor) sorted = NULL;
  g_autoptr(EpTensor) top = NULL;
  g_autoptr(EpTensor) indices = NULL;
  g_autoptr(EpTensor) zeros = NULL;
  EpTensor *sort_grads[1] = { v };
  EpTensor *topk_grads[2] = { v3, NULL };
  EpTensor *grad[1] = { NULL };
  EpTestCapture capture = { .base.record = ep_test_capture_record, .op = &ep_op_sort };
  g_autofree gdouble *got = NULL;
  gsize n;

  ep_recorder_push (&capture.base);
  sorted = ep_tensor_sort (x, 0, &error);
  ep_recorder_pop (&capture.base);
  g_assert_no_error (error);
  g_assert_true (ep_op_sort.gradient (&capture.call, sort_grads, grad, &error));
  g_assert_no_error (error);
  got = ep_test_read_doubles (grad[0], &n);
  g_assert_cmpuint (n, ==, 6);
  for (guint i = 0; i < 6; i++)
    g_assert_cmpfloat (got[i], ==, sort_expected[i]);
  g_clear_object (&grad[0]);
  g_clear_pointer (&got, g_free);
  ep_test_capture_clear (&capture);

  capture = (EpTestCapture) { .base.record = ep_test_capture_record, .op = &ep_op_topk };
  ep_recorder_push (&capture.base);
  g_assert_true (ep_tensor_topk (x, 3, TRUE, &top, &indices, &error));
  ep_recorder_pop (&capture.base);
  g_assert_no_error (error);
  zeros = ep_tensor_zeros_like (indices, NULL);
  topk_grads[1] = zeros;
  g_assert_true (ep_op_topk.gradient (&capture.call, topk_grads, grad, &error));
  g_assert_no_error (error);
  got = ep_test_read_doubles (grad[0], &n);
  g_assert_cmpuint (n, ==, 6);
  for (guint i = 0; i < 6; i++)
    g_assert_cmpfloat (got[i], ==, topk_expected[i]);
  g_clear_object (&grad[0]);
  ep_test_capture_clear (&capture);
}

/* Ops whose outputs are integer or bool have no gradient rule, so a
 * gradient tape passes nothing through them; each says so by its output
 * type, checked here on a float input. */
static void
test_not_differentiable_reduce (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) x = ep_test_float64 (ep_test_grad_a, ep_test_shape_34, 2);
  g_autoptr(EpTensor) argmin = ep_tensor_argmin (x, EP_AXIS_NONE, FALSE, &error);
  g_autoptr(EpTensor) argmax = ep_tensor_argmax (x, EP_AXIS_NONE, FALSE, &error);
  static const struct { const EpOpDef *op; EpDType dtype; } cases[] = {
    { &ep_op_argmin, EP_DTYPE_INT64 }, { &ep_op_argmax, EP_DTYPE_INT64 },
  };
  EpTensor *outputs[] = { argmin, argmax };

  g_assert_no_error (error);
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_assert_null (cases[i].op->gradient);
      g_assert_cmpint (outputs[i]->layout.dtype, ==, cases[i].dtype);
    }
}

/* Ops whose outputs are integer or bool have no gradient rule, so a
 * gradient tape passes nothing through them; each says so by its output
 * type, checked here on a float input. */
static void
test_not_differentiable_sort (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) x = ep_test_float64 (ep_test_grad_a, ep_test_shape_34, 2);
  g_autoptr(EpTensor) argsort = ep_tensor_argsort (x, -1, &error);
  g_autoptr(EpTensor) values = NULL;
  g_autoptr(EpTensor) indices = NULL;
  static const struct { const EpOpDef *op; EpDType dtype; } cases[] = {
    { &ep_op_argsort, EP_DTYPE_INT64 },
  };
  EpTensor *outputs[] = { argsort };

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

/* Ops whose outputs are integer or bool have no gradient rule, so a
 * gradient tape passes nothing through them; each says so by its output
 * type, checked here on a float input. */
static void
test_not_differentiable_logical (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) x = ep_test_float64 (ep_test_grad_a, ep_test_shape_34, 2);
  g_autoptr(EpTensor) isnan = ep_tensor_isnan (x, &error);
  g_autoptr(EpTensor) less = ep_tensor_less (x, x, &error);
  static const struct { const EpOpDef *op; EpDType dtype; } cases[] = {
    { &ep_op_isnan, EP_DTYPE_BOOL },
    { &ep_op_less, EP_DTYPE_BOOL },
  };
  EpTensor *outputs[] = { isnan, less };

  g_assert_no_error (error);
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_assert_null (cases[i].op->gradient);
      g_assert_cmpint (outputs[i]->layout.dtype, ==, cases[i].dtype);
    }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/math-gradients/binary", test_binary);
  g_test_add_func ("/math-gradients/clip", test_clip);
  g_test_add_func ("/math-gradients/unary", test_unary);
  g_test_add_func ("/math-gradients/prod", test_prod);
  g_test_add_func ("/math-gradients/logsumexp", test_logsumexp);
  g_test_add_func ("/math-gradients/cumsum", test_cumsum);
  g_test_add_func ("/math-gradients/softmax-family", test_softmax_family);
  g_test_add_func ("/math-gradients/sort-topk", test_sort_topk);
  g_test_add_func ("/math-gradients/sort-topk-ties", test_sort_topk_ties);
  g_test_add_func ("/math-gradients/not-differentiable/reduce", test_not_differentiable_reduce);
  g_test_add_func ("/math-gradients/not-differentiable/sort", test_not_differentiable_sort);
  g_test_add_func ("/math-gradients/not-differentiable/logical", test_not_differentiable_logical);
  return g_test_run ();
}
