/* ops/sort.c: the sort family: sort, argsort, topk: values, NaN and
 * ties, every error path, the gradient rules
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "ep-test-gradient.h"
#include "ep-test-util.h"

static void
test_sort_argsort (void)
{
  g_autoptr(GError) error = NULL;
  const gdouble x[] = { 3, 1, 2, 1, -4, 5 };
  g_autoptr(EpTensor) m = ep_test_matrix (x, 2, 3, EP_DTYPE_INT32);
  g_autoptr(EpTensor) sorted = ep_tensor_sort (m, -1, &error);
  g_autoptr(EpTensor) order = ep_tensor_argsort (m, 0, &error);
  const gdouble sorted_expected[] = { 1, 2, 3, -4, 1, 5 };
  const gdouble order_expected[] = { 1, 1, 0, 0, 0, 1 };

  g_assert_no_error (error);
  ep_test_assert_close (sorted, sorted_expected, 6);
  ep_test_assert_close (order, order_expected, 6);
}

static void
test_topk (void)
{
  g_autoptr(GError) error = NULL;
  const gdouble x[] = { 3, NAN, 2, 3, 9 };
  g_autoptr(EpTensor) t = ep_test_vector (x, 5, EP_DTYPE_FLOAT64);
  g_autoptr(EpTensor) values = NULL;
  g_autoptr(EpTensor) indices = NULL;
  g_autoptr(EpTensor) unsorted_values = NULL;
  g_autoptr(EpTensor) unsorted_indices = NULL;
  const gdouble values_expected[] = { NAN, 9, 3 };
  const gdouble indices_expected[] = { 1, 4, 0 };
  const gdouble unsorted_expected[] = { 0, 1, 4 };

  g_assert_true (ep_tensor_topk (t, 3, TRUE, &values, &indices, &error));
  g_assert_no_error (error);
  ep_test_assert_close (values, values_expected, 3);
  ep_test_assert_close (indices, indices_expected, 3);
  g_assert_true (ep_tensor_topk (t, 3, FALSE, &unsorted_values, &unsorted_indices, &error));
  ep_test_assert_close (unsorted_indices, unsorted_expected, 3);
  g_assert_true (ep_tensor_topk (t, 0, TRUE, NULL, NULL, &error));
}

/* Every error path of the sort ops, with its code */
static void
test_error_codes (void)
{
  const gdouble v[] = { 1, 2, 3, 4, 5, 6 };
  g_autoptr(EpTensor) f = ep_test_matrix (v, 2, 3, EP_DTYPE_FLOAT32);
  struct { EpTensor *result; gint code; } cases[40];
  guint n = 0;
  GError *errors[40] = { NULL };

#define EXPECT(call, error_code) \
  G_STMT_START { cases[n].code = error_code; cases[n].result = call; n++; } G_STMT_END
#define E (&errors[n])

  EXPECT (ep_tensor_sort (f, 2, E), EP_ERROR_AXIS);
  EXPECT (ep_tensor_argsort (f, -3, E), EP_ERROR_AXIS);

#undef EXPECT
#undef E

  for (guint k = 0; k < n; k++)
    {
      g_assert_null (cases[k].result);
      g_assert_error (errors[k], EP_ERROR, cases[k].code);
      g_test_message ("%s", errors[k]->message);
      g_clear_error (&errors[k]);
    }
}

static void
test_topk_errors (void)
{
  const gdouble v[] = { 1, 2, 3 };
  g_autoptr(EpTensor) t = ep_test_vector (v, 3, EP_DTYPE_FLOAT32);
  g_autoptr(EpTensor) s = NULL;
  g_autoptr(EpTensor) values = NULL;
  g_autoptr(GError) error = NULL;

  g_assert_false (ep_tensor_topk (t, 4, TRUE, &values, NULL, &error));
  g_assert_error (error, EP_ERROR, EP_ERROR_INVALID_ARGUMENT);
  g_assert_nonnull (strstr (error->message, "topk"));
  g_assert_null (values);
  g_clear_error (&error);

  s = ep_tensor_new_scalar (1, EP_DTYPE_FLOAT32, NULL);
  g_assert_false (ep_tensor_topk (s, 0, TRUE, NULL, NULL, &error));
  g_assert_error (error, EP_ERROR, EP_ERROR_SHAPE);
}

/* gradient rules against central differences (ep-test-gradient.h) */

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
test_gradient_sort_topk (void)
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
test_gradient_ties (void)
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
test_not_differentiable (void)
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

/* searchsorted (issue 17, ops) */
static void
test_searchsorted (void)
{
  g_autoptr(GError) error = NULL;
  const gdouble seq_values[] = { 1, 2, 2, 3, NAN };
  const gdouble probe[] = { 0, 2, 2.5, NAN };
  g_autoptr(EpTensor) seq = ep_test_vector (seq_values, 5, EP_DTYPE_FLOAT64);
  g_autoptr(EpTensor) values = ep_test_vector (probe, 4, EP_DTYPE_FLOAT32);
  g_autoptr(EpTensor) left = ep_tensor_searchsorted (seq, values, EP_SEARCH_SIDE_LEFT, &error);
  g_autoptr(EpTensor) right = ep_tensor_searchsorted (seq, values, EP_SEARCH_SIDE_RIGHT, &error);
  g_autoptr(EpTensor) batch = ep_test_iota (EP_DIMS (2, 3), 2, EP_DTYPE_INT32);
  g_autoptr(EpTensor) batched = ep_tensor_searchsorted (batch, batch, EP_SEARCH_SIDE_RIGHT, &error);
  GError *bad = NULL;

  g_assert_no_error (error);
  g_assert_cmpint (ep_tensor_get_dtype (left), ==, EP_DTYPE_INT64);
  ep_test_assert_tensor (left, EP_DIMS (4), 1, EP_DOUBLES (0, 1, 3, 4));
  ep_test_assert_tensor (right, EP_DIMS (4), 1, EP_DOUBLES (0, 3, 3, 5));
  ep_test_assert_tensor (batched, EP_DIMS (2, 3), 2, EP_DOUBLES (1, 2, 3, 1, 2, 3));

  g_assert_null (ep_tensor_searchsorted (batch, values, EP_SEARCH_SIDE_LEFT, &bad));
  g_assert_error (bad, EP_ERROR, EP_ERROR_SHAPE);
  g_assert_nonnull (strstr (bad->message, "searchsorted"));
  g_clear_error (&bad);
}

/* unique (issue 17, ops) */
static void
test_unique (void)
{
  g_autoptr(GError) error = NULL;
  const gdouble x[] = { 3, NAN, 1, 3, NAN, -0.0, 0 };
  g_autoptr(EpTensor) t = ep_test_vector (x, 7, EP_DTYPE_FLOAT64);
  g_autoptr(EpTensor) values = NULL, inverse = NULL, counts = NULL, only = NULL;
  const gdouble values_expected[] = { 0, 1, 3, NAN };

  g_assert_true (ep_tensor_unique (t, &values, &inverse, &counts, &error));
  g_assert_no_error (error);
  ep_test_assert_close (values, values_expected, 4);
  ep_test_assert_tensor (inverse, EP_DIMS (7), 1, EP_DOUBLES (2, 3, 1, 2, 3, 0, 0));
  ep_test_assert_tensor (counts, EP_DIMS (4), 1, EP_DOUBLES (2, 1, 2, 2));
  g_assert_true (ep_tensor_unique (t, NULL, NULL, &only, &error));
  ep_test_assert_tensor (only, EP_DIMS (4), 1, EP_DOUBLES (2, 1, 2, 2));
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/sort/sort-argsort", test_sort_argsort);
  g_test_add_func ("/sort/topk", test_topk);
  g_test_add_func ("/sort/error/codes", test_error_codes);
  g_test_add_func ("/sort/error/topk", test_topk_errors);
  g_test_add_func ("/sort/gradient/sort-topk", test_gradient_sort_topk);
  g_test_add_func ("/sort/gradient/ties", test_gradient_ties);
  g_test_add_func ("/sort/gradient/not-differentiable", test_not_differentiable);
  g_test_add_func ("/sort/searchsorted", test_searchsorted);
  g_test_add_func ("/sort/unique", test_unique);

  return g_test_run ();
}
