/* ops/logical.c: the logical family: the comparisons (less, less_equal,
 * equal, not_equal, greater, greater_equal), logical_and, logical_or,
 * logical_not, isnan, isinf, isfinite: values, mixed types and weak
 * scalars, every error path, and that they have no gradient rule
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "ep-test-gradient.h"
#include "ep-test-util.h"

typedef EpTensor *(*ScalarFunc) (EpTensor *, gdouble, GError **);

/* comparisons */

static void
test_comparisons (void)
{
  static const struct { EpTestBinaryFunc f; gdouble want[4]; } cases[] = {
    { ep_tensor_less, { 1, 0, 0, 0 } },
    { ep_tensor_less_equal, { 1, 1, 0, 0 } },
    { ep_tensor_equal, { 0, 1, 0, 0 } },
    { ep_tensor_not_equal, { 1, 0, 1, 1 } },
    { ep_tensor_greater, { 0, 0, 1, 0 } },
    { ep_tensor_greater_equal, { 0, 1, 1, 0 } },
  };
  g_autoptr(EpTensor) a = ep_test_new (EP_DTYPE_FLOAT32, EP_SHAPE (4), EP_VALUES (1, 2, 3, NAN));
  g_autoptr(EpTensor) b = ep_test_new (EP_DTYPE_FLOAT32, EP_SHAPE (4), EP_VALUES (2, 2, 2, NAN));

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(EpTensor) r = cases[i].f (a, b, &error);

      g_test_message ("case %u", i);
      g_assert_no_error (error);
      ep_assert_values (r, EP_DTYPE_BOOL, EP_SHAPE (4), cases[i].want, 4);
    }
}

/* Every comparison has a _scalar form with the weak literal of the
 * arithmetic ones. */
static void
test_comparisons_with_scalar (void)
{
  static const struct { ScalarFunc f; gdouble want[4]; } cases[] = {
    { ep_tensor_less_scalar, { 1, 0, 0, 0 } },
    { ep_tensor_less_equal_scalar, { 1, 1, 0, 0 } },
    { ep_tensor_equal_scalar, { 0, 1, 0, 0 } },
    { ep_tensor_not_equal_scalar, { 1, 0, 1, 1 } },
    { ep_tensor_greater_scalar, { 0, 0, 1, 0 } },
    { ep_tensor_greater_equal_scalar, { 0, 1, 1, 0 } },
  };
  g_autoptr(EpTensor) a = ep_test_new (EP_DTYPE_FLOAT32, EP_SHAPE (4), EP_VALUES (1, 2, 3, NAN));

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(EpTensor) r = cases[i].f (a, 2, &error);

      g_test_message ("case %u", i);
      g_assert_no_error (error);
      ep_assert_values (r, EP_DTYPE_BOOL, EP_SHAPE (4), cases[i].want, 4);
    }
}

/* A non-integral literal compares integers as floats: 2 < 2.5 but
 * 3 > 2.5; an integral one compares them as integers. */
static void
test_comparison_scalar_types (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) a = ep_test_new (EP_DTYPE_INT32, EP_SHAPE (3), EP_VALUES (2, 3, -7));
  g_autoptr(EpTensor) less = ep_tensor_less_scalar (a, 2.5, &error);
  g_autoptr(EpTensor) greater = ep_tensor_greater_scalar (a, 2.5, &error);
  g_autoptr(EpTensor) equal = ep_tensor_equal_scalar (a, -7, &error);
  g_autoptr(EpTensor) b = ep_test_new (EP_DTYPE_BOOL, EP_SHAPE (2), EP_VALUES (0, 1));
  g_autoptr(EpTensor) b_equal = ep_tensor_equal_scalar (b, 1, &error);

  g_assert_no_error (error);
  ep_assert_values (less, EP_DTYPE_BOOL, EP_SHAPE (3), EP_VALUES (1, 0, 1));
  ep_assert_values (greater, EP_DTYPE_BOOL, EP_SHAPE (3), EP_VALUES (0, 1, 0));
  ep_assert_values (equal, EP_DTYPE_BOOL, EP_SHAPE (3), EP_VALUES (0, 0, 1));
  ep_assert_values (b_equal, EP_DTYPE_BOOL, EP_SHAPE (2), EP_VALUES (0, 1));
}

/* logical_and_scalar and logical_or_scalar take a truth value: 0 is
 * false, anything else (NaN too) true. */
static void
test_logical_with_scalar (void)
{
  static const struct { ScalarFunc f; gdouble other; gdouble want[2]; } cases[] = {
    { ep_tensor_logical_and_scalar, 1, { 1, 0 } },
    { ep_tensor_logical_and_scalar, 0, { 0, 0 } },
    { ep_tensor_logical_and_scalar, -0.5, { 1, 0 } },
    { ep_tensor_logical_and_scalar, NAN, { 1, 0 } },
    { ep_tensor_logical_or_scalar, 0, { 1, 0 } },
    { ep_tensor_logical_or_scalar, 2, { 1, 1 } },
    { ep_tensor_logical_or_scalar, -0.0, { 1, 0 } },
    { ep_tensor_logical_or_scalar, INFINITY, { 1, 1 } },
  };
  g_autoptr(EpTensor) b = ep_test_new (EP_DTYPE_BOOL, EP_SHAPE (2), EP_VALUES (1, 0));

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(EpTensor) r = cases[i].f (b, cases[i].other, &error);

      g_test_message ("case %u", i);
      g_assert_no_error (error);
      ep_assert_values (r, EP_DTYPE_BOOL, EP_SHAPE (2), cases[i].want, 2);
    }
}

/* Logic takes bool tensors only, with a literal as with a tensor */
static void
test_logical_scalar_needs_bool (void)
{
  g_autoptr(EpTensor) f = ep_test_new (EP_DTYPE_FLOAT32, EP_SHAPE (2), EP_VALUES (1, 0));
  g_autoptr(EpTensor) i = ep_test_new (EP_DTYPE_INT64, EP_SHAPE (2), EP_VALUES (1, 0));
  GError *error = NULL;

  g_assert_null (ep_tensor_logical_and_scalar (f, 1, &error));
  ep_assert_error (error, EP_ERROR_DTYPE, "logical_and", NULL);
  g_clear_error (&error);
  g_assert_null (ep_tensor_logical_or_scalar (i, 0, &error));
  ep_assert_error (error, EP_ERROR_DTYPE, "logical_or", NULL);
  g_clear_error (&error);
}

/* int32 16777217 is not float32 16777216: compared in float64. */
static void
test_comparison_mixed_types (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) i = ep_test_new (EP_DTYPE_INT32, EP_SHAPE (1), EP_VALUES (16777217));
  g_autoptr(EpTensor) f = ep_test_new (EP_DTYPE_FLOAT32, EP_SHAPE (1), EP_VALUES (16777216));
  g_autoptr(EpTensor) eq = ep_tensor_equal (i, f, &error);
  g_autoptr(EpTensor) gt = ep_tensor_greater (i, f, &error);

  g_assert_no_error (error);
  ep_assert_values (eq, EP_DTYPE_BOOL, EP_SHAPE (1), EP_VALUES (0));
  ep_assert_values (gt, EP_DTYPE_BOOL, EP_SHAPE (1), EP_VALUES (1));
}

static void
test_comparison_with_weak_float (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) a = ep_test_new (EP_DTYPE_INT32, EP_SHAPE (2), EP_VALUES (2, 3));
  g_autoptr(EpTensor) w = ep_tensor_new_weak_scalar (2.5, EP_DTYPE_FLOAT64);
  g_autoptr(EpTensor) r = ep_tensor_less (a, w, &error);

  g_assert_no_error (error);
  ep_assert_values (r, EP_DTYPE_BOOL, EP_SHAPE (2), EP_VALUES (1, 0));
}

static void
test_comparison_broadcast_non_contiguous (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) a = ep_test_new_strided (EP_DTYPE_INT64, EP_SHAPE (2, 1), EP_VALUES (1, 3));
  g_autoptr(EpTensor) b = ep_test_new (EP_DTYPE_BOOL, EP_SHAPE (3), EP_VALUES (0, 1, 1));
  g_autoptr(EpTensor) r = ep_tensor_greater_equal (a, b, &error);

  g_assert_no_error (error);
  ep_assert_values (r, EP_DTYPE_BOOL, EP_SHAPE (2, 3), EP_VALUES (1, 1, 1, 1, 1, 1));
}

/* int64 compares exactly, beyond what a double holds. */
static void
test_int64_comparison_is_exact (void)
{
  const gint64 data[] = { (G_GINT64_CONSTANT (1) << 53) + 1, G_GINT64_CONSTANT (1) << 53 };
  g_autoptr(GBytes) bytes = g_bytes_new (data, sizeof data);
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) x = ep_tensor_new_from_bytes (bytes, EP_DTYPE_INT64, EP_SHAPE (2, 1), &error);
  g_autoptr(EpTensor) y = ep_tensor_transpose (x, NULL, 0, &error);
  g_autoptr(EpTensor) eq = ep_tensor_equal (x, y, &error);
  g_autoptr(EpTensor) gt = ep_tensor_greater (x, y, &error);

  g_assert_no_error (error);
  ep_assert_values (eq, EP_DTYPE_BOOL, EP_SHAPE (2, 2), EP_VALUES (1, 0, 0, 1));
  ep_assert_values (gt, EP_DTYPE_BOOL, EP_SHAPE (2, 2), EP_VALUES (0, 1, 0, 0));
}

/* isnan, isinf, isfinite, logical_not, logical_and, logical_or */

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

/* isclose as NumPy's: |a - b| <= atol + rtol |b| (the tolerance scales
 * with the second operand), infinities close only to themselves, NaN to
 * nothing unless equal_nan */
static void
test_isclose_values (void)
{
  const gdouble a[] = { 1, 1e-9, 100, 100, INFINITY, INFINITY, NAN, NAN, 0, 1 };
  const gdouble b[] = { 1 + 1e-6, 0, 100.002, 100.0009, INFINITY, -INFINITY, NAN, 1, -0.0, INFINITY };
  const gdouble plain[] = { 1, 1, 0, 1, 1, 0, 0, 0, 1, 0 };
  const gdouble nan_equal[] = { 1, 1, 0, 1, 1, 0, 1, 0, 1, 0 };

  for (EpDType dtype = EP_DTYPE_FLOAT32; dtype <= EP_DTYPE_FLOAT64; dtype++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(EpTensor) ta = ep_test_vector (a, 10, dtype);
      g_autoptr(EpTensor) tb = ep_test_vector (b, 10, dtype);
      g_autoptr(EpTensor) got = ep_tensor_isclose (ta, tb, 1e-5, 1e-8, FALSE, &error);
      g_autoptr(EpTensor) got_nan = ep_tensor_isclose (ta, tb, 1e-5, 1e-8, TRUE, &error);

      g_assert_no_error (error);
      ep_assert_values (got, EP_DTYPE_BOOL, EP_SHAPE (10), plain, 10);
      ep_assert_values (got_nan, EP_DTYPE_BOOL, EP_SHAPE (10), nan_equal, 10);
    }
}

/* Not symmetric: the relative tolerance is of the second operand */
static void
test_isclose_asymmetric (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) a = ep_test_new (EP_DTYPE_FLOAT64, EP_SHAPE (1), EP_VALUES (1));
  g_autoptr(EpTensor) b = ep_test_new (EP_DTYPE_FLOAT64, EP_SHAPE (1), EP_VALUES (2));
  g_autoptr(EpTensor) ab = ep_tensor_isclose (a, b, 0.5, 0, FALSE, &error);
  g_autoptr(EpTensor) ba = ep_tensor_isclose (b, a, 0.5, 0, FALSE, &error);

  g_assert_no_error (error);
  ep_assert_values (ab, EP_DTYPE_BOOL, EP_SHAPE (1), EP_VALUES (1));
  ep_assert_values (ba, EP_DTYPE_BOOL, EP_SHAPE (1), EP_VALUES (0));
}

/* Integers compare in float64 and broadcast: int64 (3, 1) against int32 (2) */
static void
test_isclose_integer_broadcast (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) a = ep_test_new (EP_DTYPE_INT64, EP_SHAPE (3, 1), EP_VALUES (0, 1, 100000));
  g_autoptr(EpTensor) b = ep_test_new (EP_DTYPE_INT32, EP_SHAPE (2), EP_VALUES (1, 100001));
  g_autoptr(EpTensor) got = ep_tensor_isclose (a, b, 1e-5, 0, FALSE, &error);

  g_assert_no_error (error);
  ep_assert_values (got, EP_DTYPE_BOOL, EP_SHAPE (3, 2), EP_VALUES (0, 0, 1, 0, 0, 1));
}

/* allclose: a 0-d bool, true for empty tensors, false for one element
 * out of tolerance */
static void
test_allclose (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) a = ep_test_new (EP_DTYPE_FLOAT32, EP_SHAPE (2, 2), EP_VALUES (1, 2, 3, 4));
  g_autoptr(EpTensor) b = ep_test_new (EP_DTYPE_FLOAT32, EP_SHAPE (2), EP_VALUES (1, 2.000001));
  g_autoptr(EpTensor) c = ep_test_new (EP_DTYPE_FLOAT32, EP_SHAPE (2, 2), EP_VALUES (1, 2, 3, 4.01));
  g_autoptr(EpTensor) e = ep_zeros (EP_SHAPE (0, 3), EP_DTYPE_FLOAT64, &error);
  g_autoptr(EpTensor) same = ep_tensor_allclose (a, a, 1e-5, 1e-8, FALSE, &error);
  g_autoptr(EpTensor) differ = ep_tensor_allclose (a, c, 1e-5, 1e-8, FALSE, &error);
  g_autoptr(EpTensor) loose = ep_tensor_allclose (a, c, 0.01, 0, FALSE, &error);
  g_autoptr(EpTensor) empty = ep_tensor_allclose (e, e, 1e-5, 1e-8, FALSE, &error);
  g_autoptr(EpTensor) first_row = ep_tensor_isclose (a, b, 1e-5, 1e-8, FALSE, &error);

  g_assert_no_error (error);
  ep_assert_values (same, EP_DTYPE_BOOL, EP_SHAPE (), EP_VALUES (1));
  ep_assert_values (differ, EP_DTYPE_BOOL, EP_SHAPE (), EP_VALUES (0));
  ep_assert_values (loose, EP_DTYPE_BOOL, EP_SHAPE (), EP_VALUES (1));
  ep_assert_values (empty, EP_DTYPE_BOOL, EP_SHAPE (), EP_VALUES (1));
  ep_assert_values (first_row, EP_DTYPE_BOOL, EP_SHAPE (2, 2), EP_VALUES (1, 1, 0, 0));
}

/* allclose's errors name allclose, not the isclose inside it */
static void
test_allclose_error_name (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) a = ep_test_new (EP_DTYPE_FLOAT32, EP_SHAPE (2), EP_VALUES (1, 2));
  g_autoptr(EpTensor) r = ep_tensor_allclose (a, a, -1, 0, FALSE, &error);

  g_assert_null (r);
  g_assert_error (error, EP_ERROR, EP_ERROR_INVALID_ARGUMENT);
  g_assert_true (g_str_has_prefix (error->message, "allclose: rtol"));
}

/* Every error path of the logical ops, with its code */
static void
test_error_codes (void)
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
  EXPECT (ep_tensor_isclose (f, f, -1e-5, 1e-8, FALSE, E), EP_ERROR_INVALID_ARGUMENT);
  EXPECT (ep_tensor_isclose (f, f, 1e-5, -1e-8, FALSE, E), EP_ERROR_INVALID_ARGUMENT);
  EXPECT (ep_tensor_isclose (f, f, NAN, 1e-8, FALSE, E), EP_ERROR_INVALID_ARGUMENT);
  EXPECT (ep_tensor_isclose (f, f, 1e-5, INFINITY, FALSE, E), EP_ERROR_INVALID_ARGUMENT);
  EXPECT (ep_tensor_isclose (f, i, 1e-5, 1e-8, FALSE, E), EP_ERROR_SHAPE);
  EXPECT (ep_tensor_allclose (f, f, 1e-5, NAN, FALSE, E), EP_ERROR_INVALID_ARGUMENT);
  EXPECT (ep_tensor_allclose (f, f, -0.5, 1e-8, TRUE, E), EP_ERROR_INVALID_ARGUMENT);
  EXPECT (ep_tensor_allclose (i, f, 1e-5, 1e-8, FALSE, E), EP_ERROR_SHAPE);

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

/* Ops whose outputs are integer or bool have no gradient rule, so a
 * gradient tape passes nothing through them; each says so by its output
 * type, checked here on a float input. */
static void
test_not_differentiable (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) x = ep_test_float64 (ep_test_grad_a, ep_test_shape_34, 2);
  g_autoptr(EpTensor) isnan = ep_tensor_isnan (x, &error);
  g_autoptr(EpTensor) less = ep_tensor_less (x, x, &error);
  g_autoptr(EpTensor) isclose = ep_tensor_isclose (x, x, 1e-5, 1e-8, FALSE, &error);
  static const struct { const EpOpDef *op; EpDType dtype; } cases[] = {
    { &ep_op_isnan, EP_DTYPE_BOOL },
    { &ep_op_less, EP_DTYPE_BOOL },
    { &ep_op_isclose, EP_DTYPE_BOOL },
  };
  EpTensor *outputs[] = { isnan, less, isclose };

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

  g_test_add_func ("/logical/compare/values", test_comparisons);
  g_test_add_func ("/logical/compare/scalar", test_comparisons_with_scalar);
  g_test_add_func ("/logical/compare/scalar-types", test_comparison_scalar_types);
  g_test_add_func ("/logical/and-or/scalar", test_logical_with_scalar);
  g_test_add_func ("/logical/and-or/scalar-needs-bool", test_logical_scalar_needs_bool);
  g_test_add_func ("/logical/compare/mixed-types", test_comparison_mixed_types);
  g_test_add_func ("/logical/compare/weak-float", test_comparison_with_weak_float);
  g_test_add_func ("/logical/compare/broadcast-non-contiguous", test_comparison_broadcast_non_contiguous);
  g_test_add_func ("/logical/compare/int64-exact", test_int64_comparison_is_exact);
  g_test_add_func ("/logical/isnan-isinf-isfinite-not-and-or", test_predicates_and_connectives);
  g_test_add_func ("/logical/isclose/values", test_isclose_values);
  g_test_add_func ("/logical/isclose/asymmetric", test_isclose_asymmetric);
  g_test_add_func ("/logical/isclose/integer-broadcast", test_isclose_integer_broadcast);
  g_test_add_func ("/logical/allclose/values", test_allclose);
  g_test_add_func ("/logical/allclose/error-name", test_allclose_error_name);
  g_test_add_func ("/logical/error/codes", test_error_codes);
  g_test_add_func ("/logical/gradient/not-differentiable", test_not_differentiable);

  return g_test_run ();
}
