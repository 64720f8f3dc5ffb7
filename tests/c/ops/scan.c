/* ops/scan.c: the scan family: cumsum, cumprod and diff: values, every error
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
test_cumprod (void)
{
  g_autoptr(GError) error = NULL;
  const gdouble x[] = { 3, 1, 2, -1, 4, 0.5 };
  g_autoptr(EpTensor) m = ep_test_matrix (x, 2, 3, EP_DTYPE_FLOAT32);
  g_autoptr(EpTensor) flat = ep_tensor_cumprod (m, EP_AXIS_NONE, &error);
  g_autoptr(EpTensor) rows = ep_tensor_cumprod (m, 1, &error);
  g_autoptr(EpTensor) columns = ep_tensor_cumprod (m, -2, &error);
  const gdouble big[] = { 4294967296.0, 4294967297.0 };
  g_autoptr(EpTensor) i = ep_test_matrix (big, 1, 2, EP_DTYPE_INT64);
  g_autoptr(EpTensor) wrapped = ep_tensor_cumprod (i, 1, &error);
  g_autoptr(EpTensor) b = ep_tensor_astype (m, EP_DTYPE_BOOL, &error);
  g_autoptr(EpTensor) from_bool = ep_tensor_cumprod (b, 0, &error);

  g_assert_no_error (error);
  ep_test_assert_tensor (flat, EP_DIMS (6), 1, EP_DOUBLES (3, 3, 6, -6, -24, -12));
  ep_test_assert_tensor (rows, EP_DIMS (2, 3), 2, EP_DOUBLES (3, 3, 6, -1, -4, -2));
  ep_test_assert_tensor (columns, EP_DIMS (2, 3), 2, EP_DOUBLES (3, 1, 2, -3, 4, 1));
  /* 2^32 (2^32 + 1) wraps to 2^32 in int64, as NumPy's */
  ep_test_assert_tensor (wrapped, EP_DIMS (1, 2), 2, EP_DOUBLES (4294967296.0, 4294967296.0));
  g_assert_cmpint (ep_tensor_get_dtype (from_bool), ==, EP_DTYPE_INT64);
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
  EXPECT (ep_tensor_cumprod (f, 2, E), EP_ERROR_AXIS);
  EXPECT (ep_tensor_cumprod (f, -3, E), EP_ERROR_AXIS);
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

static gint cumprod_axis;

static EpTensor *
call_cumprod (EpTensor **x, GError **error)
{
  return ep_tensor_cumprod (x[0], cumprod_axis, error);
}

/* against central differences (exact for cumprod, linear in each
 * element), with no zero, one zero and several zeros in a row */
static void
test_gradient_cumprod (void)
{
  static const gdouble one_zero[] = { 1.5, -0.5, 2, 0.75, 0.5, 0, -1.25, 2, -2, 1, 0.5, 1.5 };
  static const gdouble zeros[] = { 0, 1.5, 0, 2, -0.5, 0, 0, 1.25, 2, -1, 0.5, 0 };
  const gdouble *inputs[] = { ep_test_grad_a, one_zero, zeros };
  const gint axes[] = { 0, 1, -1, EP_AXIS_NONE };

  for (guint v = 0; v < G_N_ELEMENTS (inputs); v++)
    for (guint a = 0; a < G_N_ELEMENTS (axes); a++)
      {
        g_autoptr(EpTensor) x0 = ep_test_float64 (inputs[v], ep_test_shape_34, 2);
        EpTensor *x[1] = { x0 };

        cumprod_axis = axes[a];
        ep_test_check_gradient (&ep_op_cumprod, call_cumprod, x, 1);
      }
}

/* d sum (cumprod (x)) / dx through a tape */
static EpTensor *
cumprod_sum_gradient (const gdouble *values,
                      gint64         n)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) x = ep_test_float64 (values, &n, 1);
  g_autoptr(EpGradientTape) tape = ep_gradient_tape_new (FALSE);
  g_autoptr(EpTensor) p = NULL, loss = NULL;
  g_autoptr(GPtrArray) grads = NULL;

  g_assert_true (ep_gradient_tape_start (tape, &error));
  ep_gradient_tape_watch (tape, x);
  p = ep_tensor_cumprod (x, 0, &error);
  g_assert_no_error (error);
  loss = ep_tensor_sum (p, NULL, 0, FALSE, &error);
  g_assert_no_error (error);
  g_assert_true (ep_gradient_tape_stop (tape, &error));
  grads = ep_gradient_tape_gradient (tape, &loss, 1, (GObject **) &x, 1, NULL, 0, &error);
  g_assert_no_error (error);
  return g_object_ref (g_ptr_array_index (grads, 0));
}

/* the gradient at zeros by value, d/dx of sum (cumprod (x)):
 * for (2, 0, 3, 4, 5) 1 + 0 before the zero, 2 + 2·3 + 2·3·4 + 2·3·4·5
 * = 152 at it, 0 after it; for (2, 0, 3, 0, 5) 2 + 2·3 = 8 at the first
 * zero (the later products pass the second one) and 0 at the second */
static void
test_gradient_cumprod_zeros (void)
{
  static const gdouble one[] = { 2, 0, 3, 4, 5 };
  static const gdouble two[] = { 2, 0, 3, 0, 5 };
  g_autoptr(EpTensor) g_one = cumprod_sum_gradient (one, 5);
  g_autoptr(EpTensor) g_two = cumprod_sum_gradient (two, 5);

  ep_test_assert_tensor (g_one, EP_DIMS (5), 1, EP_DOUBLES (1, 152, 0, 0, 0));
  ep_test_assert_tensor (g_two, EP_DIMS (5), 1, EP_DOUBLES (1, 8, 0, 0, 0));
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/scan/cumsum", test_cumsum);
  g_test_add_func ("/scan/cumprod", test_cumprod);
  g_test_add_func ("/scan/diff", test_diff);
  g_test_add_func ("/scan/error/codes", test_error_codes);
  g_test_add_func ("/scan/gradient/cumsum", test_gradient_cumsum);
  g_test_add_func ("/scan/gradient/cumprod", test_gradient_cumprod);
  g_test_add_func ("/scan/gradient/cumprod/zeros", test_gradient_cumprod_zeros);

  return g_test_run ();
}
