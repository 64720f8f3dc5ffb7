/* test-math.c: the issue-3 ops from C: values, every error path, and the
 * Philox generator's known answers */

#include <math.h>

#include <eager-glib/eager-glib.h>

#include "ep-philox-private.h"
#include "ep-test-util.h"

static void
test_philox_known_answers (void)
{
  static const guint32 cases[3][10] = {
    { 0, 0, 0, 0, 0, 0, 0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8 },
    { 0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff,
      0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd },
    { 0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344, 0xa4093822, 0x299f31d0,
      0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1 },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      guint32 out[4];

      ep_philox4x32_10 (cases[i], cases[i] + 4, out);
      for (guint k = 0; k < 4; k++)
        g_assert_cmphex (out[k], ==, cases[i][6 + k]);
    }
}

/* The documented recipe, element by element (ep-philox-private.h). */
static void
test_uniform_recipe (void)
{
  g_autoptr(GError) error = NULL;
  const gint64 shape[1] = { 6 };
  g_autoptr(EpTensor) first = NULL;
  g_autoptr(EpTensor) second = NULL;
  g_autoptr(GBytes) bytes = NULL;
  const gfloat *got;

  ep_set_seed (G_GUINT64_CONSTANT (0x123456789abcdef0));
  first = ep_uniform (shape, 1, -2.0, 3.0, EP_DTYPE_FLOAT32, &error);
  g_assert_no_error (error);
  second = ep_uniform (shape, 1, -2.0, 3.0, EP_DTYPE_FLOAT32, &error);
  g_assert_no_error (error);

  bytes = ep_tensor_to_bytes (second, &error);
  got = g_bytes_get_data (bytes, NULL);
  for (guint64 i = 0; i < 6; i++)
    {
      guint32 x[4];
      gfloat u, value;

      ep_philox_block (G_GUINT64_CONSTANT (0x123456789abcdef0), 1, i / 4, x);
      u = (gfloat) (x[i % 4] >> 8) * (1.0f / 16777216.0f);
      value = -2.0f + 5.0f * u;
      g_assert_cmpfloat (got[i], ==, value);
    }
}

static void
test_elementwise_values (void)
{
  g_autoptr(GError) error = NULL;
  const gdouble a[] = { 7, -7, 7, -7, G_MININT32, 5 };
  const gdouble b[] = { 2, 2, -2, -2, -1, 0 };
  g_autoptr(EpTensor) ta = ep_test_vector (a, 6, EP_DTYPE_INT32);
  g_autoptr(EpTensor) tb = ep_test_vector (b, 6, EP_DTYPE_INT32);
  g_autoptr(EpTensor) q = ep_tensor_floordiv (ta, tb, &error);
  g_autoptr(EpTensor) r = ep_tensor_mod (ta, tb, &error);
  g_autoptr(EpTensor) lo = ep_tensor_minimum_scalar (ta, 0, &error);
  g_autoptr(EpTensor) hi = ep_tensor_maximum (ta, tb, &error);
  g_autoptr(EpTensor) c = ep_tensor_clip (ta, -3, 4, &error);
  const gdouble quotients[] = { 3, -4, -4, 3, G_MININT32, 0 };
  const gdouble remainders[] = { 1, 1, -1, -1, 0, 0 };
  const gdouble minima[] = { 0, -7, 0, -7, G_MININT32, 0 };
  const gdouble maxima[] = { 7, 2, 7, -2, -1, 5 };
  const gdouble clipped[] = { 4, -3, 4, -3, -3, 4 };

  g_assert_no_error (error);
  g_assert_cmpint (ep_tensor_get_dtype (q), ==, EP_DTYPE_INT32);
  ep_test_assert_close (q, quotients, 6);
  ep_test_assert_close (r, remainders, 6);
  ep_test_assert_close (lo, minima, 6);
  ep_test_assert_close (hi, maxima, 6);
  ep_test_assert_close (c, clipped, 6);
}

static void
test_unary_values (void)
{
  static const struct {
    EpTensor *(*f) (EpTensor *, GError **);
    gdouble (*reference) (gdouble);
  } cases[] = {
    { ep_tensor_expm1, expm1 }, { ep_tensor_log1p, log1p }, { ep_tensor_log2, log2 },
    { ep_tensor_log10, log10 }, { ep_tensor_sin, sin }, { ep_tensor_cos, cos },
    { ep_tensor_tan, tan }, { ep_tensor_sinh, sinh }, { ep_tensor_cosh, cosh },
    { ep_tensor_arcsin, asin }, { ep_tensor_arccos, acos }, { ep_tensor_arctan, atan },
    { ep_tensor_arcsinh, asinh }, { ep_tensor_arccosh, acosh }, { ep_tensor_arctanh, atanh },
    { ep_tensor_ceil, ceil }, { ep_tensor_floor, floor }, { ep_tensor_round, rint },
  };
  const gdouble x[] = { 0.25, 0.5, 1.5, 2.5, -0.75, 3.0 };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(EpTensor) t = ep_test_vector (x, 6, EP_DTYPE_FLOAT64);
      g_autoptr(EpTensor) y = cases[i].f (t, &error);
      gdouble expected[6];

      g_assert_no_error (error);
      for (guint k = 0; k < 6; k++)
        expected[k] = cases[i].reference (x[k]);
      ep_test_assert_close (y, expected, 6);
    }
}

static void
test_special_unary (void)
{
  g_autoptr(GError) error = NULL;
  const gdouble x[] = { -1000, -1, 0, NAN, INFINITY, 1000 };
  g_autoptr(EpTensor) t = ep_test_vector (x, 6, EP_DTYPE_FLOAT32);
  g_autoptr(EpTensor) softplus = ep_tensor_softplus (t, &error);
  g_autoptr(EpTensor) sign = ep_tensor_sign (t, &error);
  const gdouble softplus_expected[] = { 0, log1p (exp (-1.0)), G_LN2, NAN, INFINITY, 1000 };
  const gdouble sign_expected[] = { -1, -1, 0, NAN, 1, 1 };

  g_assert_no_error (error);
  ep_test_assert_close (softplus, softplus_expected, 6);
  ep_test_assert_close (sign, sign_expected, 6);
}

static void
test_predicates_and_connectives (void)
{
  g_autoptr(GError) error = NULL;
  const gdouble x[] = { -1000, -1, 0, NAN, INFINITY, 1000 };
  g_autoptr(EpTensor) t = ep_test_vector (x, 6, EP_DTYPE_FLOAT32);
  g_autoptr(EpTensor) nan = ep_tensor_isnan (t, &error);
  g_autoptr(EpTensor) inf = ep_tensor_isinf (t, &error);
  g_autoptr(EpTensor) finite = ep_tensor_isfinite (t, &error);
  g_autoptr(EpTensor) truth = ep_tensor_bool (t, &error);
  g_autoptr(EpTensor) negated = ep_tensor_logical_not (truth, &error);
  g_autoptr(EpTensor) both = ep_tensor_logical_and (truth, nan, &error);
  g_autoptr(EpTensor) either = ep_tensor_logical_or (nan, inf, &error);
  const gdouble nan_expected[] = { 0, 0, 0, 1, 0, 0 };
  const gdouble inf_expected[] = { 0, 0, 0, 0, 1, 0 };
  const gdouble finite_expected[] = { 1, 1, 1, 0, 0, 1 };
  const gdouble not_expected[] = { 0, 0, 1, 0, 0, 0 };
  const gdouble either_expected[] = { 0, 0, 0, 1, 1, 0 };

  g_assert_no_error (error);
  ep_test_assert_close (nan, nan_expected, 6);
  ep_test_assert_close (inf, inf_expected, 6);
  ep_test_assert_close (finite, finite_expected, 6);
  ep_test_assert_close (negated, not_expected, 6);
  ep_test_assert_close (both, nan_expected, 6);
  ep_test_assert_close (either, either_expected, 6);
}

static void
test_bool_float64_float32 (void)
{
  g_autoptr(GError) error = NULL;
  const gdouble x[] = { -1000, -1, 0, NAN, INFINITY, 1000 };
  g_autoptr(EpTensor) t = ep_test_vector (x, 6, EP_DTYPE_FLOAT32);
  g_autoptr(EpTensor) truth = ep_tensor_bool (t, &error);
  g_autoptr(EpTensor) f64 = ep_tensor_float64 (truth, &error);
  g_autoptr(EpTensor) f32 = ep_tensor_float32 (f64, &error);
  const gdouble truth_expected[] = { 1, 1, 0, 1, 1, 1 };

  g_assert_no_error (error);
  ep_test_assert_close (f32, truth_expected, 6);
  g_assert_cmpint (ep_tensor_get_dtype (f32), ==, EP_DTYPE_FLOAT32);
}

static void
test_reductions (void)
{
  g_autoptr(GError) error = NULL;
  const gdouble x[] = { 3, 1, 2, 1, -4, 5 };
  const gint axis1[] = { 1 };
  g_autoptr(EpTensor) m = ep_test_matrix (x, 2, 3, EP_DTYPE_INT32);
  g_autoptr(EpTensor) prod = ep_tensor_prod (m, axis1, 1, FALSE, &error);
  g_autoptr(EpTensor) argmax = ep_tensor_argmax (m, 1, FALSE, &error);
  g_autoptr(EpTensor) argmin = ep_tensor_argmin (m, EP_AXIS_NONE, FALSE, &error);
  g_autoptr(EpTensor) zero = ep_tensor_new_weak_scalar (0, EP_DTYPE_INT64);
  g_autoptr(EpTensor) positive = ep_tensor_greater (m, zero, &error);
  g_autoptr(EpTensor) all = ep_tensor_all (positive, axis1, 1, TRUE, &error);
  g_autoptr(EpTensor) any = ep_tensor_any (positive, NULL, 0, FALSE, &error);
  const gdouble prod_expected[] = { 6, -20 };
  const gdouble argmax_expected[] = { 0, 2 };
  const gdouble argmin_expected[] = { 4 };
  const gdouble all_expected[] = { 1, 0 };
  const gdouble any_expected[] = { 1 };

  g_assert_no_error (error);
  g_assert_cmpint (ep_tensor_get_dtype (prod), ==, EP_DTYPE_INT64);
  ep_test_assert_close (prod, prod_expected, 2);
  ep_test_assert_close (argmax, argmax_expected, 2);
  ep_test_assert_close (argmin, argmin_expected, 1);
  g_assert_cmpuint (ep_tensor_get_ndim (argmin), ==, 0);
  ep_test_assert_close (all, all_expected, 2);
  g_assert_cmpuint (ep_tensor_get_ndim (all), ==, 2);
  ep_test_assert_close (any, any_expected, 1);
}

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

static void
test_norms (void)
{
  g_autoptr(GError) error = NULL;
  const gdouble x[] = { 3, -4, 0, 0 };
  g_autoptr(EpTensor) t = ep_test_vector (x, 4, EP_DTYPE_FLOAT64);
  g_autoptr(EpTensor) l0 = ep_tensor_l0 (t, NULL, 0, FALSE, &error);
  g_autoptr(EpTensor) l1 = ep_tensor_l1 (t, NULL, 0, FALSE, &error);
  g_autoptr(EpTensor) l2 = ep_tensor_l2 (t, NULL, 0, FALSE, &error);
  g_autoptr(EpTensor) linf = ep_tensor_linf (t, NULL, 0, FALSE, &error);
  g_autoptr(EpTensor) l3 = ep_tensor_lp (t, 3, NULL, 0, FALSE, &error);

  g_assert_no_error (error);
  g_assert_cmpfloat (ep_tensor_item_double (l0, NULL), ==, 2);
  g_assert_cmpfloat (ep_tensor_item_double (l1, NULL), ==, 7);
  g_assert_cmpfloat (ep_tensor_item_double (l2, NULL), ==, 5);
  g_assert_cmpfloat (ep_tensor_item_double (linf, NULL), ==, 4);
  g_assert_cmpfloat_with_epsilon (ep_tensor_item_double (l3, NULL), cbrt (91.0), 1e-12);
}

static void
test_creation (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) line = ep_linspace (0, 1, 5, TRUE, EP_DTYPE_FLOAT64, &error);
  g_autoptr(EpTensor) open = ep_linspace (0, 1, 4, FALSE, EP_DTYPE_FLOAT32, &error);
  g_autoptr(EpTensor) eye = ep_eye (2, 3, 1, EP_DTYPE_INT64, &error);
  const gdouble idx[] = { 2, 0 };
  g_autoptr(EpTensor) indices = ep_test_vector (idx, 2, EP_DTYPE_INT32);
  g_autoptr(EpTensor) onehot = ep_tensor_onehot_like (eye, indices, 7, &error);
  const gdouble line_expected[] = { 0, 0.25, 0.5, 0.75, 1 };
  const gdouble open_expected[] = { 0, 0.25, 0.5, 0.75 };
  const gdouble eye_expected[] = { 0, 1, 0, 0, 0, 1 };
  const gdouble onehot_expected[] = { 0, 0, 7, 7, 0, 0 };

  g_assert_no_error (error);
  ep_test_assert_close (line, line_expected, 5);
  ep_test_assert_close (open, open_expected, 4);
  ep_test_assert_close (eye, eye_expected, 6);
  ep_test_assert_close (onehot, onehot_expected, 6);
  g_assert_cmpint (ep_tensor_get_dtype (onehot), ==, EP_DTYPE_INT64);
}

/* Every error path of the elementwise ops, with its code */
static void
test_errors_elementwise (void)
{
  const gdouble v[] = { 1, 2, 3, 4, 5, 6 };
  g_autoptr(EpTensor) f = ep_test_matrix (v, 2, 3, EP_DTYPE_FLOAT32);
  g_autoptr(EpTensor) b = ep_tensor_bool (f, NULL);
  g_autoptr(EpTensor) row = ep_test_vector (v, 4, EP_DTYPE_FLOAT32);
  struct { EpTensor *result; gint code; } cases[40];
  guint n = 0;
  GError *errors[40] = { NULL };

#define EXPECT(call, error_code) \
  G_STMT_START { cases[n].code = error_code; cases[n].result = call; n++; } G_STMT_END
#define E (&errors[n])

  EXPECT (ep_tensor_floordiv (b, b, E), EP_ERROR_DTYPE);
  EXPECT (ep_tensor_mod (f, row, E), EP_ERROR_SHAPE);

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

/* Every error path of the logical ops, with its code */
static void
test_errors_logical (void)
{
  const gdouble v[] = { 1, 2, 3, 4, 5, 6 };
  g_autoptr(EpTensor) f = ep_test_matrix (v, 2, 3, EP_DTYPE_FLOAT32);
  g_autoptr(EpTensor) b = ep_tensor_bool (f, NULL);
  g_autoptr(EpTensor) i = ep_test_vector (v, 2, EP_DTYPE_INT64);
  struct { EpTensor *result; gint code; } cases[40];
  guint n = 0;
  GError *errors[40] = { NULL };

#define EXPECT(call, error_code) \
  G_STMT_START { cases[n].code = error_code; cases[n].result = call; n++; } G_STMT_END
#define E (&errors[n])

  EXPECT (ep_tensor_logical_and (f, b, E), EP_ERROR_DTYPE);
  EXPECT (ep_tensor_logical_not (i, E), EP_ERROR_DTYPE);

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

/* Every error path of the math ops, with its code */
static void
test_errors_math (void)
{
  const gdouble v[] = { 1, 2, 3, 4, 5, 6 };
  g_autoptr(EpTensor) f = ep_test_matrix (v, 2, 3, EP_DTYPE_FLOAT32);
  g_autoptr(EpTensor) b = ep_tensor_bool (f, NULL);
  struct { EpTensor *result; gint code; } cases[40];
  guint n = 0;
  GError *errors[40] = { NULL };

#define EXPECT(call, error_code) \
  G_STMT_START { cases[n].code = error_code; cases[n].result = call; n++; } G_STMT_END
#define E (&errors[n])

  EXPECT (ep_tensor_sign (b, E), EP_ERROR_DTYPE);

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

/* Every error path of the reduce ops, with its code */
static void
test_errors_reduce (void)
{
  const gdouble v[] = { 1, 2, 3, 4, 5, 6 };
  g_autoptr(EpTensor) f = ep_test_matrix (v, 2, 3, EP_DTYPE_FLOAT32);
  g_autoptr(EpTensor) b = ep_tensor_bool (f, NULL);
  g_autoptr(EpTensor) scalar = ep_tensor_new_scalar (1, EP_DTYPE_FLOAT32, NULL);
  g_autoptr(EpTensor) empty = ep_zeros ((const gint64[]) { 0, 3 }, 2, EP_DTYPE_FLOAT32, NULL);
  const gint axis2[] = { 2 };
  struct { EpTensor *result; gint code; } cases[40];
  guint n = 0;
  GError *errors[40] = { NULL };

#define EXPECT(call, error_code) \
  G_STMT_START { cases[n].code = error_code; cases[n].result = call; n++; } G_STMT_END
#define E (&errors[n])

  EXPECT (ep_tensor_all (f, NULL, 0, FALSE, E), EP_ERROR_DTYPE);
  EXPECT (ep_tensor_any (b, axis2, 1, FALSE, E), EP_ERROR_AXIS);
  EXPECT (ep_tensor_prod (f, axis2, 1, FALSE, E), EP_ERROR_AXIS);
  EXPECT (ep_tensor_argmax (f, 2, FALSE, E), EP_ERROR_AXIS);
  EXPECT (ep_tensor_argmin (scalar, 1, FALSE, E), EP_ERROR_AXIS);
  EXPECT (ep_tensor_argmax (empty, EP_AXIS_NONE, FALSE, E), EP_ERROR_SHAPE);
  EXPECT (ep_tensor_lp (f, NAN, NULL, 0, FALSE, E), EP_ERROR_INVALID_ARGUMENT);

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

/* Every error path of the scan ops, with its code */
static void
test_errors_scan (void)
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

/* Every error path of the sort ops, with its code */
static void
test_errors_sort (void)
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

/* Every error path of the softmax ops, with its code */
static void
test_errors_softmax (void)
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

/* Every error path of the creation ops, with its code */
static void
test_errors_creation (void)
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

  EXPECT (ep_tensor_onehot_like (f, bad_labels, 1, E), EP_ERROR_INDEX);
  EXPECT (ep_tensor_onehot_like (row, i, 1, E), EP_ERROR_SHAPE);
  EXPECT (ep_linspace (0, 1, -1, TRUE, EP_DTYPE_FLOAT32, E), EP_ERROR_INVALID_ARGUMENT);
  EXPECT (ep_eye (-2, 2, 0, EP_DTYPE_FLOAT32, E), EP_ERROR_SHAPE);

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

/* Every error path of the random ops, with its code */
static void
test_errors_random (void)
{
  const gint64 shape[] = { 2 };
  const gint64 negative[] = { -1 };
  const gint64 nine_dims[] = { 1, 1, 1, 1, 1, 1, 1, 1, 1 };
  struct { EpTensor *result; gint code; } cases[40];
  guint n = 0;
  GError *errors[40] = { NULL };

#define EXPECT(call, error_code) \
  G_STMT_START { cases[n].code = error_code; cases[n].result = call; n++; } G_STMT_END
#define E (&errors[n])

  EXPECT (ep_uniform (shape, 1, 0, INFINITY, EP_DTYPE_FLOAT32, E), EP_ERROR_INVALID_ARGUMENT);
  EXPECT (ep_uniform (shape, 1, 0, 1, EP_DTYPE_INT64, E), EP_ERROR_DTYPE);
  EXPECT (ep_normal (shape, 1, 0, -1, EP_DTYPE_FLOAT64, E), EP_ERROR_INVALID_ARGUMENT);
  EXPECT (ep_normal (negative, 1, 0, 1, EP_DTYPE_FLOAT64, E), EP_ERROR_SHAPE);
  EXPECT (ep_uniform (nine_dims, 9, 0, 1, EP_DTYPE_FLOAT32, E), EP_ERROR_SHAPE);
  EXPECT (ep_normal (nine_dims, 9, 0, 1, EP_DTYPE_FLOAT64, E), EP_ERROR_SHAPE);

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

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/math/philox-known-answers", test_philox_known_answers);
  g_test_add_func ("/math/uniform-recipe", test_uniform_recipe);
  g_test_add_func ("/math/elementwise", test_elementwise_values);
  g_test_add_func ("/math/unary", test_unary_values);
  g_test_add_func ("/math/special-unary", test_special_unary);
  g_test_add_func ("/math/predicates-and-connectives", test_predicates_and_connectives);
  g_test_add_func ("/math/bool-float64-float32", test_bool_float64_float32);
  g_test_add_func ("/math/reductions", test_reductions);
  g_test_add_func ("/math/cumsum", test_cumsum);
  g_test_add_func ("/math/sort-argsort", test_sort_argsort);
  g_test_add_func ("/math/topk", test_topk);
  g_test_add_func ("/math/softmax-family", test_softmax_family);
  g_test_add_func ("/math/norms", test_norms);
  g_test_add_func ("/math/creation", test_creation);
  g_test_add_func ("/math/errors/elementwise", test_errors_elementwise);
  g_test_add_func ("/math/errors/logical", test_errors_logical);
  g_test_add_func ("/math/errors/math", test_errors_math);
  g_test_add_func ("/math/errors/reduce", test_errors_reduce);
  g_test_add_func ("/math/errors/scan", test_errors_scan);
  g_test_add_func ("/math/errors/sort", test_errors_sort);
  g_test_add_func ("/math/errors/softmax", test_errors_softmax);
  g_test_add_func ("/math/errors/creation", test_errors_creation);
  g_test_add_func ("/math/errors/random", test_errors_random);
  g_test_add_func ("/math/topk-errors", test_topk_errors);
  return g_test_run ();
}
