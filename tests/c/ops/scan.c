/* ops/scan.c: the scan family: cumsum and diff: values, every error
 * path, the gradient rule (diff's, a composite's, in test-gradcheck.c)
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "ep-test-gradient.h"
#include "ep-test-util.h"

static void
test_cumsum (void)
{
  g_autoptr(GError) error = NULL;
  const gdouble x[] = { 3, 1, 2, 1, -4, 5 };
  g_autoptr(EpTensor) m = ep_test_matrix (x, 2, 3, EP_DTYPE_INT32);
  g_autoptr(EpTensor) cumsum = ep_tensor_cumsum (m, EP_AXIS_NONE, &error);
  const gdouble cumsum_expected[] = { 3, 4, 6, 7, 3, 8 };

  g_assert_no_error (error);
  ep_test_assert_close (cumsum, cumsum_expected, 6);
}

static void
test_diff (void)
{
  g_autoptr(GError) error = NULL;
  const gdouble x[] = { 3, 1, 2, 1, -4, 5 };
  g_autoptr(EpTensor) m = ep_test_matrix (x, 2, 3, EP_DTYPE_INT32);
  g_autoptr(EpTensor) rows = ep_tensor_diff (m, 1, -1, &error);
  g_autoptr(EpTensor) second = ep_tensor_diff (m, 2, 1, &error);
  g_autoptr(EpTensor) columns = ep_tensor_diff (m, 1, 0, &error);
  g_autoptr(EpTensor) past = ep_tensor_diff (m, G_MAXINT64, 1, &error);
  g_autoptr(EpTensor) same = ep_tensor_diff (m, 0, 0, &error);
  g_autoptr(EpTensor) b = ep_tensor_astype (m, EP_DTYPE_BOOL, &error);
  g_autoptr(EpTensor) changes = ep_tensor_diff (b, 1, 0, &error);

  g_assert_no_error (error);
  ep_test_assert_tensor (rows, EP_DIMS (2, 2), 2, EP_DOUBLES (-2, 1, -5, 9));
  ep_test_assert_tensor (second, EP_DIMS (2, 1), 2, EP_DOUBLES (3, 14));
  ep_test_assert_tensor (columns, EP_DIMS (1, 3), 2, EP_DOUBLES (-2, -5, 3));
  ep_test_assert_tensor (past, EP_DIMS (2, 0), 2, EP_DOUBLES (0));
  g_assert_true (same != m);
  ep_test_assert_tensor (same, EP_DIMS (2, 3), 2, x);
  g_assert_cmpint (ep_tensor_get_dtype (changes), ==, EP_DTYPE_BOOL);
  ep_test_assert_tensor (changes, EP_DIMS (1, 3), 2, EP_DOUBLES (0, 0, 0));
}

/* Every error path of the scan ops, with its code */
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

  EXPECT (ep_tensor_cumsum (f, 2, E), EP_ERROR_AXIS);
  EXPECT (ep_tensor_diff (f, -1, -1, E), EP_ERROR_INVALID_ARGUMENT);
  EXPECT (ep_tensor_diff (f, 1, 2, E), EP_ERROR_AXIS);
  EXPECT (ep_tensor_diff (f, 1, -3, E), EP_ERROR_AXIS);

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

/* gradient rules against central differences (ep-test-gradient.h) */

static gint reduce_axes[2];
static guint reduce_n_axes;
static gboolean reduce_keepdims;

static EpTensor *
call_cumsum (EpTensor **x, GError **error)
{
  return ep_tensor_cumsum (x[0], reduce_n_axes ? reduce_axes[0] : EP_AXIS_NONE, error);
}

static void
test_gradient_cumsum (void)
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

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/scan/cumsum", test_cumsum);
  g_test_add_func ("/scan/diff", test_diff);
  g_test_add_func ("/scan/error/codes", test_error_codes);
  g_test_add_func ("/scan/gradient/cumsum", test_gradient_cumsum);

  return g_test_run ();
}
