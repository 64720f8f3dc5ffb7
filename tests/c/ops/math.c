/* ops/math.c: the math family, the unary functions: neg, abs, sign,
 * square, sqrt, exp, expm1, the logarithms, the trigonometric and
 * hyperbolic functions and their inverses, sigmoid, relu, softplus,
 * round, ceil, floor, erf, erfc, gelu: values, result dtypes, special values, every error
 * path, the gradient rules
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "ep-test-gradient.h"
#include "ep-test-util.h"

typedef EpTensor *(*UnaryFunc) (EpTensor *, GError **);

/* unary functions */

static void
test_unary_float32 (void)
{
  static const struct { UnaryFunc f; gdouble want[4]; } cases[] = {
    { ep_tensor_neg, { 1, -0.5, -2, 0 } },
    { ep_tensor_abs, { 1, 0.5, 2, 0 } },
    { ep_tensor_square, { 1, 0.25, 4, 0 } },
    { ep_tensor_exp, { 0.36787944117144233, 1.6487212707001282, 7.38905609893065, 1 } },
    { ep_tensor_tanh, { -0.7615941559557649, 0.46211715726000974, 0.9640275800758169, 0 } },
    { ep_tensor_sigmoid, { 0.2689414213699951, 0.6224593312018546, 0.8807970779778823, 0.5 } },
    { ep_tensor_relu, { 0, 0.5, 2, 0 } },
  };
  g_autoptr(EpTensor) x = ep_test_new (EP_DTYPE_FLOAT32, EP_SHAPE (2, 2), EP_VALUES (-1, 0.5, 2, 0));

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(EpTensor) y = cases[i].f (x, &error);

      g_test_message ("case %u", i);
      g_assert_no_error (error);
      ep_assert_values (y, EP_DTYPE_FLOAT32, EP_SHAPE (2, 2), cases[i].want, 4);
    }
}

static void
test_unary_sqrt_log (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) x = ep_test_new (EP_DTYPE_FLOAT64, EP_SHAPE (4), EP_VALUES (4, 0, -1, M_E));
  g_autoptr(EpTensor) s = ep_tensor_sqrt (x, &error);
  g_autoptr(EpTensor) l = ep_tensor_log (x, &error);

  g_assert_no_error (error);
  ep_assert_values (s, EP_DTYPE_FLOAT64, EP_SHAPE (4), EP_VALUES (2, 0, NAN, sqrt (M_E)));
  ep_assert_values (l, EP_DTYPE_FLOAT64, EP_SHAPE (4), EP_VALUES (log (4), -INFINITY, NAN, 1));
}

static void
test_sigmoid_saturates (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) x = ep_test_new (EP_DTYPE_FLOAT32, EP_SHAPE (2), EP_VALUES (-1000, 1000));
  g_autoptr(EpTensor) y = ep_tensor_sigmoid (x, &error);

  g_assert_no_error (error);
  ep_assert_values (y, EP_DTYPE_FLOAT32, EP_SHAPE (2), EP_VALUES (0, 1));
}

static void
test_relu_keeps_nan (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) x = ep_test_new (EP_DTYPE_FLOAT64, EP_SHAPE (2), EP_VALUES (NAN, -INFINITY));
  g_autoptr(EpTensor) y = ep_tensor_relu (x, &error);

  g_assert_no_error (error);
  ep_assert_values (y, EP_DTYPE_FLOAT64, EP_SHAPE (2), EP_VALUES (NAN, 0));
}

static void
test_unary_integers (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) x = ep_test_new (EP_DTYPE_INT32, EP_SHAPE (3), EP_VALUES (-3, 0, 4));
  g_autoptr(EpTensor) neg = ep_tensor_neg (x, &error);
  g_autoptr(EpTensor) abs = ep_tensor_abs (x, &error);
  g_autoptr(EpTensor) sq = ep_tensor_square (x, &error);
  g_autoptr(EpTensor) relu = ep_tensor_relu (x, &error);
  g_autoptr(EpTensor) root = ep_tensor_sqrt (x, &error);
  g_autoptr(EpTensor) e = ep_tensor_exp (x, &error);

  g_assert_no_error (error);
  ep_assert_values (neg, EP_DTYPE_INT32, EP_SHAPE (3), EP_VALUES (3, 0, -4));
  ep_assert_values (abs, EP_DTYPE_INT32, EP_SHAPE (3), EP_VALUES (3, 0, 4));
  ep_assert_values (sq, EP_DTYPE_INT32, EP_SHAPE (3), EP_VALUES (9, 0, 16));
  ep_assert_values (relu, EP_DTYPE_INT32, EP_SHAPE (3), EP_VALUES (0, 0, 4));
  ep_assert_values (root, EP_DTYPE_FLOAT64, EP_SHAPE (3), EP_VALUES (NAN, 0, 2));
  ep_assert_values (e, EP_DTYPE_FLOAT64, EP_SHAPE (3), EP_VALUES (exp (-3), 1, exp (4)));
}

static void
test_abs_of_minimum_int_wraps (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) x = ep_test_new (EP_DTYPE_INT32, EP_SHAPE (1), EP_VALUES (G_MININT32));
  g_autoptr(EpTensor) a = ep_tensor_abs (x, &error);
  g_autoptr(EpTensor) n = ep_tensor_neg (x, &error);

  g_assert_no_error (error);
  ep_assert_values (a, EP_DTYPE_INT32, EP_SHAPE (1), EP_VALUES (G_MININT32));
  ep_assert_values (n, EP_DTYPE_INT32, EP_SHAPE (1), EP_VALUES (G_MININT32));
}

static void
test_unary_result_dtypes (void)
{
  static const UnaryFunc float_funcs[] = {
    ep_tensor_sqrt, ep_tensor_exp, ep_tensor_log, ep_tensor_tanh, ep_tensor_sigmoid,
  };
  static const UnaryFunc same_funcs[] = { ep_tensor_abs, ep_tensor_square, ep_tensor_relu };

  for (guint i = 0; i < G_N_ELEMENTS (ep_test_dtypes); i++)
    {
      EpDType d = ep_test_dtypes[i];
      g_autoptr(EpTensor) x = ep_test_new (d, EP_SHAPE (2), EP_VALUES (1, 0));
      EpDType float_want = ep_dtype_is_floating (d) ? d : d == EP_DTYPE_BOOL ? EP_DTYPE_FLOAT32 : EP_DTYPE_FLOAT64;

      for (guint f = 0; f < G_N_ELEMENTS (float_funcs); f++)
        {
          g_autoptr(GError) error = NULL;
          g_autoptr(EpTensor) y = float_funcs[f] (x, &error);

          g_assert_no_error (error);
          g_assert_cmpint (ep_tensor_get_dtype (y), ==, float_want);
        }
      for (guint f = 0; f < G_N_ELEMENTS (same_funcs); f++)
        {
          g_autoptr(GError) error = NULL;
          g_autoptr(EpTensor) y = same_funcs[f] (x, &error);

          g_assert_no_error (error);
          g_assert_cmpint (ep_tensor_get_dtype (y), ==, d);
        }
    }
}

static void
test_unary_bool (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) x = ep_test_new (EP_DTYPE_BOOL, EP_SHAPE (2), EP_VALUES (1, 0));
  g_autoptr(EpTensor) exp = ep_tensor_exp (x, &error);
  g_autoptr(EpTensor) sq = ep_tensor_square (x, &error);

  g_assert_no_error (error);
  ep_assert_values (exp, EP_DTYPE_FLOAT32, EP_SHAPE (2), EP_VALUES (M_E, 1));
  ep_assert_values (sq, EP_DTYPE_BOOL, EP_SHAPE (2), EP_VALUES (1, 0));
}

static void
test_neg_of_bool_is_dtype_error (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) x = ep_test_new (EP_DTYPE_BOOL, EP_SHAPE (2), EP_VALUES (1, 0));
  g_autoptr(EpTensor) y = ep_tensor_neg (x, &error);

  g_assert_null (y);
  ep_assert_error (error, EP_ERROR_DTYPE, "neg", "bool");
}

static void
test_unary_non_contiguous (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) x = ep_test_new_strided (EP_DTYPE_FLOAT64, EP_SHAPE (2, 2), EP_VALUES (-1, 4, 9, -16));
  g_autoptr(EpTensor) a = ep_tensor_abs (x, &error);
  g_autoptr(EpTensor) s = ep_tensor_sqrt (a, &error);
  g_autoptr(EpTensor) t = ep_tensor_transpose (x, NULL, 0, &error);
  g_autoptr(EpTensor) n = ep_tensor_neg (t, &error);

  g_assert_no_error (error);
  ep_assert_values (s, EP_DTYPE_FLOAT64, EP_SHAPE (2, 2), EP_VALUES (1, 2, 3, 4));
  ep_assert_values (n, EP_DTYPE_FLOAT64, EP_SHAPE (2, 2), EP_VALUES (1, -9, -4, 16));
}

static void
test_unary_empty (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) x = ep_zeros (EP_SHAPE (2, 0), EP_DTYPE_INT32, &error);
  g_autoptr(EpTensor) y = ep_tensor_exp (x, &error);

  g_assert_no_error (error);
  ep_assert_shape (y, EP_SHAPE (2, 0));
  g_assert_cmpint (ep_tensor_get_dtype (y), ==, EP_DTYPE_FLOAT64);
}

/* expm1 … floor against libm; softplus, sign */

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
    { ep_tensor_erf, erf }, { ep_tensor_erfc, erfc },
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

/* erf keeps its sign and saturates at ±1; NaN stays NaN, in both types */
static void
test_erf_special (void)
{
  const gdouble x[] = { -INFINITY, -10, -0.0, 0, 1e-30, NAN, 10, INFINITY };
  const gdouble expected[] = { -1, -1, -0.0, 0, 1e-30 * M_2_SQRTPI, NAN, 1, 1 };

  for (EpDType dtype = EP_DTYPE_FLOAT32; dtype <= EP_DTYPE_FLOAT64; dtype++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(EpTensor) t = ep_test_vector (x, 8, dtype);
      g_autoptr(EpTensor) y = ep_tensor_erf (t, &error);

      g_assert_no_error (error);
      ep_assert_values (y, dtype, EP_SHAPE (8), expected, 8);
    }
}

/* erfc keeps its precision in the tail, where 1 - erf (x) is 0: each
 * value within @rtol of the C library's, relative however small; 2 at
 * -inf, 0 at inf, NaN stays NaN */
static void
assert_erfc_values (EpDType        dtype,
                    const gdouble *want,
                    gdouble        rtol)
{
  const gdouble x[] = { -INFINITY, -6, 0, 0.5, 5, 9, 26, NAN, INFINITY };
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) t = ep_test_vector (x, G_N_ELEMENTS (x), dtype);
  g_autoptr(EpTensor) y = ep_tensor_erfc (t, &error);
  g_autofree gdouble *got = NULL;
  gsize n;

  g_assert_no_error (error);
  g_assert_cmpint (ep_tensor_get_dtype (y), ==, dtype);
  got = ep_test_get_values (y, &n);
  g_assert_cmpuint (n, ==, G_N_ELEMENTS (x));
  for (gsize i = 0; i < n; i++)
    if (isnan (want[i]))
      g_assert_true (isnan (got[i]));
    else
      g_assert_cmpfloat (fabs (got[i] - want[i]), <=, rtol * fabs (want[i]));
}

static void
test_erfc_tail (void)
{
  const gdouble f64[] = { 2, erfc (-6.0), 1, erfc (0.5), erfc (5.0), erfc (9.0),
                          erfc (26.0), NAN, 0 };
  const gdouble f32[] = { 2, erfcf (-6.0f), 1, erfcf (0.5f), erfcf (5.0f), erfcf (9.0f),
                          0, NAN, 0 };

  /* what erfc is for: 1 - erf (x) has nothing left there */
  g_assert_cmpfloat (1.0 - erf (9.0), ==, 0.0);
  g_assert_cmpfloat (f64[4], >, 1.5e-12);
  g_assert_cmpfloat (f64[4], <, 1.6e-12);
  g_assert_cmpfloat (f64[6], >, 0);
  assert_erfc_values (EP_DTYPE_FLOAT64, f64, 1e-15);
  assert_erfc_values (EP_DTYPE_FLOAT32, f32, 4e-7);
}

/* Integers compute in float64, bool in float32, as the other functions */
static void
test_erf_integer (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) i = ep_test_new (EP_DTYPE_INT32, EP_SHAPE (3), EP_VALUES (-1, 0, 2));
  g_autoptr(EpTensor) b = ep_test_new (EP_DTYPE_BOOL, EP_SHAPE (2), EP_VALUES (0, 1));
  g_autoptr(EpTensor) yi = ep_tensor_erf (i, &error);
  g_autoptr(EpTensor) yb = ep_tensor_erf (b, &error);

  g_assert_no_error (error);
  ep_assert_values (yi, EP_DTYPE_FLOAT64, EP_SHAPE (3), EP_VALUES (erf (-1.0), 0, erf (2.0)));
  ep_assert_values (yb, EP_DTYPE_FLOAT32, EP_SHAPE (2), EP_VALUES (0, erf (1.0)));
}

static void
test_erfc_integer (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) i = ep_test_new (EP_DTYPE_INT64, EP_SHAPE (3), EP_VALUES (-1, 0, 2));
  g_autoptr(EpTensor) b = ep_test_new (EP_DTYPE_BOOL, EP_SHAPE (2), EP_VALUES (0, 1));
  g_autoptr(EpTensor) yi = ep_tensor_erfc (i, &error);
  g_autoptr(EpTensor) yb = ep_tensor_erfc (b, &error);

  g_assert_no_error (error);
  ep_test_assert_close (yi, (const gdouble[]) { erfc (-1.0), 1, erfc (2.0) }, 3);
  g_assert_cmpint (ep_tensor_get_dtype (yi), ==, EP_DTYPE_FLOAT64);
  ep_test_assert_close (yb, (const gdouble[]) { 1, erfcf (1.0f) }, 2);
  g_assert_cmpint (ep_tensor_get_dtype (yb), ==, EP_DTYPE_FLOAT32);
}

/* gelu against its formulas, in float64 (PyTorch's, exactly) */
static void
test_gelu_values (void)
{
  const gdouble x[] = { -3, -1, -0.5, 0, 0.25, 1, 2.5, 6 };
  g_autoptr(EpTensor) t = ep_test_vector (x, 8, EP_DTYPE_FLOAT64);
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) exact = ep_tensor_gelu (t, EP_GELU_APPROXIMATION_NONE, &error);
  g_autoptr(EpTensor) approx = ep_tensor_gelu (t, EP_GELU_APPROXIMATION_TANH, &error);
  gdouble want_exact[8], want_approx[8];

  g_assert_no_error (error);
  for (guint k = 0; k < 8; k++)
    {
      gdouble inner = 0.7978845608028654 * (x[k] + 0.044715 * x[k] * x[k] * x[k]);

      want_exact[k] = 0.5 * x[k] * (1 + erf (x[k] * M_SQRT1_2));
      want_approx[k] = 0.5 * x[k] * (1 + tanh (inner));
    }
  ep_test_assert_close (exact, want_exact, 8);
  ep_test_assert_close (approx, want_approx, 8);
}

/* float32 stays float32 (and int32 gives float64); NaN and the
 * infinities as PyTorch: gelu (-inf) is NaN there too (-inf · 0) */
static void
test_gelu_special (void)
{
  const gdouble x[] = { NAN, INFINITY, -INFINITY, -0.0, 0 };
  const gdouble want[] = { NAN, INFINITY, NAN, -0.0, 0 };

  for (EpGeluApproximation a = EP_GELU_APPROXIMATION_NONE; a <= EP_GELU_APPROXIMATION_TANH; a++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(EpTensor) t = ep_test_vector (x, 5, EP_DTYPE_FLOAT32);
      g_autoptr(EpTensor) y = ep_tensor_gelu (t, a, &error);
      g_autoptr(EpTensor) i = ep_test_new (EP_DTYPE_INT32, EP_SHAPE (2), EP_VALUES (-1, 2));
      g_autoptr(EpTensor) yi = ep_tensor_gelu (i, a, &error);

      g_assert_no_error (error);
      ep_assert_values (y, EP_DTYPE_FLOAT32, EP_SHAPE (5), want, 5);
      g_assert_cmpint (ep_tensor_get_dtype (yi), ==, EP_DTYPE_FLOAT64);
    }
}

/* Every error path of the math ops, with its code */
static void
test_error_codes (void)
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
  EXPECT (ep_tensor_gelu (f, (EpGeluApproximation) 2, E), EP_ERROR_INVALID_ARGUMENT);
  EXPECT (ep_tensor_gelu (f, (EpGeluApproximation) -1, E), EP_ERROR_INVALID_ARGUMENT);

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

/* chains */

static void
test_norm_chain (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) x = ep_test_new (EP_DTYPE_FLOAT32, EP_SHAPE (3), EP_VALUES (1, 2, 3));
  g_autoptr(EpTensor) s = ep_tensor_square (x, &error);
  g_autoptr(EpTensor) t = ep_tensor_sum (s, NULL, 0, FALSE, &error);
  g_autoptr(EpTensor) n = ep_tensor_sqrt (t, &error);

  g_assert_no_error (error);
  ep_assert_values (n, EP_DTYPE_FLOAT32, EP_SCALAR, EP_VALUES (sqrt (14)));
}

/* gradient rules against central differences (ep-test-gradient.h) */

#define UNARY(name)                                                         \
static EpTensor *                                                           \
call_##name (EpTensor **x, GError **error)                                  \
{                                                                           \
  return ep_tensor_##name (x[0], error);                                    \
}

UNARY (expm1) UNARY (log1p) UNARY (log2) UNARY (log10) UNARY (sin) UNARY (cos)
UNARY (tan) UNARY (sinh) UNARY (cosh) UNARY (arcsin) UNARY (arccos) UNARY (arctan)
UNARY (arcsinh) UNARY (arccosh) UNARY (arctanh) UNARY (softplus) UNARY (sign)
UNARY (round) UNARY (ceil) UNARY (floor) UNARY (erf) UNARY (erfc)

static EpTensor *
call_gelu (EpTensor **x, GError **error)
{
  return ep_tensor_gelu (x[0], EP_GELU_APPROXIMATION_NONE, error);
}

static EpTensor *
call_gelu_tanh (EpTensor **x, GError **error)
{
  return ep_tensor_gelu (x[0], EP_GELU_APPROXIMATION_TANH, error);
}

static void
test_gradient_unary (void)
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
    { &ep_op_erf, call_erf, 0 }, { &ep_op_erfc, call_erfc, 0 }, { &ep_op_gelu, call_gelu, 0 },
    { &ep_op_gelu, call_gelu_tanh, 0 },
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

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/math/unary/float32", test_unary_float32);
  g_test_add_func ("/math/unary/sqrt-log", test_unary_sqrt_log);
  g_test_add_func ("/math/unary/sigmoid-saturates", test_sigmoid_saturates);
  g_test_add_func ("/math/unary/relu-keeps-nan", test_relu_keeps_nan);
  g_test_add_func ("/math/unary/integers", test_unary_integers);
  g_test_add_func ("/math/unary/abs-of-minimum-int", test_abs_of_minimum_int_wraps);
  g_test_add_func ("/math/unary/result-dtypes", test_unary_result_dtypes);
  g_test_add_func ("/math/unary/bool", test_unary_bool);
  g_test_add_func ("/math/unary/neg-of-bool", test_neg_of_bool_is_dtype_error);
  g_test_add_func ("/math/unary/non-contiguous", test_unary_non_contiguous);
  g_test_add_func ("/math/unary/empty", test_unary_empty);
  g_test_add_func ("/math/unary/libm", test_unary_values);
  g_test_add_func ("/math/unary/softplus-sign", test_special_unary);
  g_test_add_func ("/math/erf/special", test_erf_special);
  g_test_add_func ("/math/erf/integer", test_erf_integer);
  g_test_add_func ("/math/erfc/tail", test_erfc_tail);
  g_test_add_func ("/math/erfc/integer", test_erfc_integer);
  g_test_add_func ("/math/gelu/values", test_gelu_values);
  g_test_add_func ("/math/gelu/special", test_gelu_special);
  g_test_add_func ("/math/error/codes", test_error_codes);
  g_test_add_func ("/math/chain/norm", test_norm_chain);
  g_test_add_func ("/math/gradient/unary", test_gradient_unary);

  return g_test_run ();
}
