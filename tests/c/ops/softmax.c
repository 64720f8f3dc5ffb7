/* ops/softmax.c: the softmax family: softmax, log_softmax, logsumexp,
 * crossentropy: values (saturated logits), every error path, the
 * gradient rules
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "ep-test-gradient.h"
#include "ep-test-util.h"

static void
test_softmax_family (void)
{
  g_autoptr(GError) error = NULL;
  const gdouble logits[] = { 1000, 1000, 0, -1000, 0, 1000 };
  const gdouble labels[] = { 1, 2 };
  g_autoptr(EpTensor) x = ep_test_matrix (logits, 2, 3, EP_DTYPE_FLOAT32);
  g_autoptr(EpTensor) y = ep_test_vector (labels, 2, EP_DTYPE_INT64);
  g_autoptr(EpTensor) p = ep_tensor_softmax (x, -1, &error);
  g_autoptr(EpTensor) lp = ep_tensor_log_softmax (x, 1, &error);
  g_autoptr(EpTensor) lse = ep_tensor_logsumexp (x, (const gint[]) { 1 }, 1, FALSE, &error);
  g_autoptr(EpTensor) loss = ep_tensor_crossentropy (x, y, &error);
  const gdouble p_expected[] = { 0.5, 0.5, 0, 0, exp (-1000.0), 1 };
  const gdouble lp_expected[] = { -G_LN2, -G_LN2, -1000 - G_LN2, -2000, -1000, 0 };
  const gdouble lse_expected[] = { 1000 + G_LN2, 1000 };
  const gdouble loss_expected[] = { G_LN2, 0 };

  g_assert_no_error (error);
  ep_test_assert_close (p, p_expected, 6);
  ep_test_assert_close (lp, lp_expected, 6);
  ep_test_assert_close (lse, lse_expected, 2);
  ep_test_assert_close (loss, loss_expected, 2);
}

/* Every error path of the softmax ops, with its code */
static void
test_error_codes (void)
{
  const gdouble v[] = { 1, 2, 3, 4, 5, 6 };
  g_autoptr(EpTensor) f = ep_test_matrix (v, 2, 3, EP_DTYPE_FLOAT32);
  g_autoptr(EpTensor) i = ep_test_vector (v, 2, EP_DTYPE_INT64);
  g_autoptr(EpTensor) bad_labels = ep_test_vector ((const gdouble[]) { 0, 3 }, 2, EP_DTYPE_INT64);
  g_autoptr(EpTensor) row = ep_test_vector (v, 4, EP_DTYPE_FLOAT32);
  struct { EpTensor *result; gint code; } cases[40];
  guint n = 0;
  GError *errors[40] = { NULL };

#define EXPECT(call, error_code) \
  G_STMT_START { cases[n].code = error_code; cases[n].result = call; n++; } G_STMT_END
#define E (&errors[n])

  EXPECT (ep_tensor_softmax (f, 5, E), EP_ERROR_AXIS);
  EXPECT (ep_tensor_log_softmax (f, -3, E), EP_ERROR_AXIS);
  EXPECT (ep_tensor_logsumexp (f, (const gint[]) { 0, -2 }, 2, FALSE, E), EP_ERROR_AXIS);
  EXPECT (ep_tensor_crossentropy (row, i, E), EP_ERROR_SHAPE);
  EXPECT (ep_tensor_crossentropy (f, f, E), EP_ERROR_DTYPE);
  EXPECT (ep_tensor_crossentropy (f, row, E), EP_ERROR_DTYPE);
  EXPECT (ep_tensor_crossentropy (f, bad_labels, E), EP_ERROR_INDEX);

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

/* The losses on a 2×2 case worked by hand; each reduction */
static void
test_losses (void)
{
  g_autoptr(GError) error = NULL;
  const gdouble pv[] = { 1, 3, 0, 0 };
  const gdouble tv[] = { 0, 1, 0.5, -2 };
  g_autoptr(EpTensor) p = ep_test_matrix (pv, 2, 2, EP_DTYPE_FLOAT64);
  g_autoptr(EpTensor) t = ep_test_matrix (tv, 2, 2, EP_DTYPE_FLOAT64);
  g_autoptr(EpTensor) onehot = ep_test_matrix ((const gdouble[]) { 0, 1, 0.5, 0.5 }, 2, 2, EP_DTYPE_FLOAT64);
  g_autoptr(EpTensor) labels = ep_test_vector ((const gdouble[]) { 1, 0 }, 2, EP_DTYPE_INT32);
  g_autoptr(EpTensor) bits = ep_test_matrix ((const gdouble[]) { 1, 0, 1, 0 }, 2, 2, EP_DTYPE_FLOAT64);
  /* d = (1, 2, -0.5, 2): squares 1, 4, 0.25, 4 */
  g_autoptr(EpTensor) mse = ep_tensor_mse_loss (p, t, EP_REDUCTION_MEAN, &error);
  g_autoptr(EpTensor) mse_sum = ep_tensor_mse_loss (p, t, EP_REDUCTION_SUM, &error);
  /* delta 1: 0.5, 1.5, 0.125, 1.5 */
  g_autoptr(EpTensor) huber = ep_tensor_huber_loss (p, t, 1.0, EP_REDUCTION_NONE, &error);
  /* rows (1, 3) and (0, 0): log (1 + e²) - 2 + … */
  g_autoptr(EpTensor) soft = ep_tensor_softmax_crossentropy (p, onehot, EP_REDUCTION_NONE, &error);
  g_autoptr(EpTensor) sparse = ep_tensor_sparse_softmax_crossentropy (p, labels, EP_REDUCTION_NONE, &error);
  g_autoptr(EpTensor) sigmoid = ep_tensor_sigmoid_crossentropy (p, bits, EP_REDUCTION_SUM, &error);
  const gdouble mse_expected[] = { 9.25 / 4 };
  const gdouble mse_sum_expected[] = { 9.25 };
  const gdouble huber_expected[] = { 0.5, 1.5, 0.125, 1.5 };
  const gdouble soft_expected[] = { log1p (exp (-2.0)), G_LN2 };
  const gdouble sparse_expected[] = { log1p (exp (-2.0)), G_LN2 };
  /* softplus (x) - x t: log1p (e^-1), log1p (e³), log 2, log 2 */
  const gdouble sigmoid_expected[] = { log1p (exp (-1.0)) + 3 + log1p (exp (-3.0)) + 2 * G_LN2 };

  g_assert_no_error (error);
  ep_test_assert_close (mse, mse_expected, 1);
  ep_test_assert_close (mse_sum, mse_sum_expected, 1);
  ep_test_assert_close (huber, huber_expected, 4);
  ep_test_assert_close (soft, soft_expected, 2);
  ep_test_assert_close (sparse, sparse_expected, 2);
  ep_test_assert_close (sigmoid, sigmoid_expected, 1);
}

/* Every error path of the losses, with its code and the loss's name */
static void
test_loss_errors (void)
{
  const gdouble v[] = { 1, 2, 3, 4, 5, 6 };
  g_autoptr(EpTensor) f = ep_test_matrix (v, 2, 3, EP_DTYPE_FLOAT32);
  g_autoptr(EpTensor) g = ep_test_matrix (v, 3, 2, EP_DTYPE_FLOAT32);
  g_autoptr(EpTensor) s = ep_test_vector (v, 1, EP_DTYPE_FLOAT32);
  g_autoptr(EpTensor) bad_labels = ep_test_vector ((const gdouble[]) { 0, 3 }, 2, EP_DTYPE_INT64);
  g_autoptr(EpTensor) float_labels = ep_test_vector (v, 2, EP_DTYPE_FLOAT32);
  g_autoptr(EpTensor) scalar = ep_tensor_reshape (s, NULL, 0, NULL);
  struct { EpTensor *result; gint code; const char *name; } cases[20];
  guint n = 0;
  GError *errors[20] = { NULL };

#define EXPECT(call, error_code, loss) \
  G_STMT_START { cases[n].code = error_code; cases[n].name = loss; cases[n].result = call; n++; } G_STMT_END
#define E (&errors[n])

  EXPECT (ep_tensor_mse_loss (f, g, EP_REDUCTION_MEAN, E), EP_ERROR_SHAPE, "mse_loss");
  EXPECT (ep_tensor_huber_loss (f, g, 1.0, EP_REDUCTION_MEAN, E), EP_ERROR_SHAPE, "huber_loss");
  EXPECT (ep_tensor_huber_loss (f, f, 0.0, EP_REDUCTION_MEAN, E), EP_ERROR_INVALID_ARGUMENT, "huber_loss");
  EXPECT (ep_tensor_huber_loss (f, f, INFINITY, EP_REDUCTION_MEAN, E), EP_ERROR_INVALID_ARGUMENT, "huber_loss");
  EXPECT (ep_tensor_sigmoid_crossentropy (f, g, EP_REDUCTION_SUM, E), EP_ERROR_SHAPE, "sigmoid_crossentropy");
  EXPECT (ep_tensor_softmax_crossentropy (f, g, EP_REDUCTION_SUM, E), EP_ERROR_SHAPE, "softmax_crossentropy");
  EXPECT (ep_tensor_softmax_crossentropy (scalar, scalar, EP_REDUCTION_SUM, E), EP_ERROR_SHAPE, "softmax_crossentropy");
  EXPECT (ep_tensor_sparse_softmax_crossentropy (f, bad_labels, EP_REDUCTION_MEAN, E), EP_ERROR_INDEX,
          "sparse_softmax_crossentropy");
  EXPECT (ep_tensor_sparse_softmax_crossentropy (f, float_labels, EP_REDUCTION_MEAN, E), EP_ERROR_DTYPE,
          "sparse_softmax_crossentropy");
  EXPECT (ep_tensor_sparse_softmax_crossentropy (f, s, EP_REDUCTION_MEAN, E), EP_ERROR_DTYPE,
          "sparse_softmax_crossentropy");
  EXPECT (ep_tensor_mse_loss (f, f, (EpReduction) 7, E), EP_ERROR_INVALID_ARGUMENT, "mse_loss");

#undef EXPECT
#undef E

  for (guint k = 0; k < n; k++)
    {
      g_autofree char *prefix = g_strconcat (cases[k].name, ": ", NULL);

      g_assert_null (cases[k].result);
      g_assert_error (errors[k], EP_ERROR, cases[k].code);
      g_assert_true (g_str_has_prefix (errors[k]->message, prefix));
      g_test_message ("%s", errors[k]->message);
      g_clear_error (&errors[k]);
    }
}

/* gradient rules against central differences (ep-test-gradient.h) */

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
test_gradient_softmax_family (void)
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

static gint reduce_axes[2];
static guint reduce_n_axes;
static gboolean reduce_keepdims;

static EpTensor *
call_logsumexp (EpTensor **x, GError **error)
{
  return ep_tensor_logsumexp (x[0], reduce_n_axes ? reduce_axes : NULL, reduce_n_axes, reduce_keepdims, error);
}

static void
test_gradient_logsumexp (void)
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

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/softmax/values", test_softmax_family);
  g_test_add_func ("/softmax/error/codes", test_error_codes);
  g_test_add_func ("/softmax/losses", test_losses);
  g_test_add_func ("/softmax/losses/errors", test_loss_errors);
  g_test_add_func ("/softmax/gradient/softmax-log-softmax-crossentropy", test_gradient_softmax_family);
  g_test_add_func ("/softmax/gradient/logsumexp", test_gradient_logsumexp);

  return g_test_run ();
}
