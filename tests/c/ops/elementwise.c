/* ops/elementwise.c: the elementwise family: add, sub, mul, div, pow,
 * floordiv, mod, minimum, maximum, where, clip: values, type promotion
 * and weak scalars, broadcasting, non-contiguous inputs, every error
 * path, the gradient rules
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The promotion and broadcasting tests take the comparisons (logical.c)
 * along: every binary op promotes and broadcasts alike.
 */

#include "ep-test-gradient.h"
#include "ep-test-util.h"

/* arithmetic values */

static void
test_arithmetic_float32 (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) a = ep_test_new (EP_DTYPE_FLOAT32, EP_SHAPE (4), EP_VALUES (1, -2, 3.5, 0));
  g_autoptr(EpTensor) b = ep_test_new (EP_DTYPE_FLOAT32, EP_SHAPE (4), EP_VALUES (2, 4, -0.5, 3));
  g_autoptr(EpTensor) add = ep_tensor_add (a, b, &error);
  g_autoptr(EpTensor) sub = ep_tensor_sub (a, b, &error);
  g_autoptr(EpTensor) mul = ep_tensor_mul (a, b, &error);
  g_autoptr(EpTensor) div = ep_tensor_div (a, b, &error);
  g_autoptr(EpTensor) pow = ep_tensor_pow (a, b, &error);

  g_assert_no_error (error);
  ep_assert_values (add, EP_DTYPE_FLOAT32, EP_SHAPE (4), EP_VALUES (3, 2, 3, 3));
  ep_assert_values (sub, EP_DTYPE_FLOAT32, EP_SHAPE (4), EP_VALUES (-1, -6, 4, -3));
  ep_assert_values (mul, EP_DTYPE_FLOAT32, EP_SHAPE (4), EP_VALUES (2, -8, -1.75, 0));
  ep_assert_values (div, EP_DTYPE_FLOAT32, EP_SHAPE (4), EP_VALUES (0.5, -0.5, -7, 0));
  ep_assert_values (pow, EP_DTYPE_FLOAT32, EP_SHAPE (4), EP_VALUES (1, 16, 0.53452248382484879, 0));
}

static void
test_arithmetic_float64 (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) a = ep_test_new (EP_DTYPE_FLOAT64, EP_SHAPE (3), EP_VALUES (0.1, 4, -8));
  g_autoptr(EpTensor) b = ep_test_new (EP_DTYPE_FLOAT64, EP_SHAPE (3), EP_VALUES (0.2, 0.5, 1.0 / 3));
  g_autoptr(EpTensor) add = ep_tensor_add (a, b, &error);
  g_autoptr(EpTensor) p = ep_tensor_pow (a, b, &error);

  g_assert_no_error (error);
  ep_assert_values (add, EP_DTYPE_FLOAT64, EP_SHAPE (3), EP_VALUES (0.1 + 0.2, 4.5, -8 + 1.0 / 3));
  ep_assert_values (p, EP_DTYPE_FLOAT64, EP_SHAPE (3), EP_VALUES (pow (0.1, 0.2), 2, NAN));
}

static void
test_arithmetic_int32 (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) a = ep_test_new (EP_DTYPE_INT32, EP_SHAPE (3), EP_VALUES (7, -7, 2));
  g_autoptr(EpTensor) b = ep_test_new (EP_DTYPE_INT32, EP_SHAPE (3), EP_VALUES (2, 2, 10));
  g_autoptr(EpTensor) add = ep_tensor_add (a, b, &error);
  g_autoptr(EpTensor) sub = ep_tensor_sub (a, b, &error);
  g_autoptr(EpTensor) mul = ep_tensor_mul (a, b, &error);
  g_autoptr(EpTensor) pow = ep_tensor_pow (a, b, &error);

  g_assert_no_error (error);
  ep_assert_values (add, EP_DTYPE_INT32, EP_SHAPE (3), EP_VALUES (9, -5, 12));
  ep_assert_values (sub, EP_DTYPE_INT32, EP_SHAPE (3), EP_VALUES (5, -9, -8));
  ep_assert_values (mul, EP_DTYPE_INT32, EP_SHAPE (3), EP_VALUES (14, -14, 20));
  ep_assert_values (pow, EP_DTYPE_INT32, EP_SHAPE (3), EP_VALUES (49, 49, 1024));
}

static void
test_integer_division_is_true_division (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) a = ep_test_new (EP_DTYPE_INT64, EP_SHAPE (3), EP_VALUES (7, -7, 1));
  g_autoptr(EpTensor) b = ep_test_new (EP_DTYPE_INT64, EP_SHAPE (3), EP_VALUES (2, 2, 0));
  g_autoptr(EpTensor) div = ep_tensor_div (a, b, &error);

  g_assert_no_error (error);
  ep_assert_values (div, EP_DTYPE_FLOAT64, EP_SHAPE (3), EP_VALUES (3.5, -3.5, INFINITY));
}

static void
test_float_division_by_zero (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) a = ep_test_new (EP_DTYPE_FLOAT32, EP_SHAPE (3), EP_VALUES (1, -1, 0));
  g_autoptr(EpTensor) div = ep_tensor_div_scalar (a, 0, &error);

  g_assert_no_error (error);
  ep_assert_values (div, EP_DTYPE_FLOAT32, EP_SHAPE (3), EP_VALUES (INFINITY, -INFINITY, NAN));
}

static void
test_integers_wrap (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) a = ep_test_new (EP_DTYPE_INT32, EP_SHAPE (2), EP_VALUES (G_MAXINT32, G_MININT32));
  g_autoptr(EpTensor) add = ep_tensor_add_scalar (a, 1, &error);
  g_autoptr(EpTensor) sub = ep_tensor_sub_scalar (a, 1, &error);
  g_autoptr(EpTensor) mul = ep_tensor_mul_scalar (a, 2, &error);
  g_autoptr(EpTensor) pow = ep_tensor_pow_scalar (a, 2, &error);

  g_assert_no_error (error);
  ep_assert_values (add, EP_DTYPE_INT32, EP_SHAPE (2), EP_VALUES (G_MININT32, G_MININT32 + 1.0));
  ep_assert_values (sub, EP_DTYPE_INT32, EP_SHAPE (2), EP_VALUES (G_MAXINT32 - 1.0, G_MAXINT32));
  ep_assert_values (mul, EP_DTYPE_INT32, EP_SHAPE (2), EP_VALUES (-2, 0));
  ep_assert_values (pow, EP_DTYPE_INT32, EP_SHAPE (2), EP_VALUES (1, 0));
}

/* uint8 wraps modulo 256 as NumPy's; floor division and remainder by
 * zero give 0, as for the signed types; a weak integer must fit. */
static void
test_uint8_wraps (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) a = ep_test_new (EP_DTYPE_UINT8, EP_SHAPE (3), EP_VALUES (255, 0, 16));
  g_autoptr(EpTensor) b = ep_test_new (EP_DTYPE_UINT8, EP_SHAPE (3), EP_VALUES (1, 1, 0));
  g_autoptr(EpTensor) add = ep_tensor_add (a, b, &error);
  g_autoptr(EpTensor) sub = ep_tensor_sub (b, a, &error);
  g_autoptr(EpTensor) mul = ep_tensor_mul_scalar (a, 16, &error);
  g_autoptr(EpTensor) pow = ep_tensor_pow_scalar (a, 2, &error);
  g_autoptr(EpTensor) floordiv = ep_tensor_floordiv (a, b, &error);
  g_autoptr(EpTensor) mod = ep_tensor_mod (a, b, &error);
  g_autoptr(EpTensor) div = ep_tensor_div (a, b, &error);

  g_assert_no_error (error);
  ep_assert_values (add, EP_DTYPE_UINT8, EP_SHAPE (3), EP_VALUES (0, 1, 16));
  ep_assert_values (sub, EP_DTYPE_UINT8, EP_SHAPE (3), EP_VALUES (2, 1, 240));
  ep_assert_values (mul, EP_DTYPE_UINT8, EP_SHAPE (3), EP_VALUES (240, 0, 0));
  ep_assert_values (pow, EP_DTYPE_UINT8, EP_SHAPE (3), EP_VALUES (1, 0, 0));
  ep_assert_values (floordiv, EP_DTYPE_UINT8, EP_SHAPE (3), EP_VALUES (255, 0, 0));
  ep_assert_values (mod, EP_DTYPE_UINT8, EP_SHAPE (3), EP_VALUES (0, 0, 0));
  ep_assert_values (div, EP_DTYPE_FLOAT64, EP_SHAPE (3), EP_VALUES (255, 0, INFINITY));
}

static void
test_uint8_weak_integer_must_fit (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GError) error2 = NULL;
  g_autoptr(EpTensor) a = ep_test_new (EP_DTYPE_UINT8, EP_SHAPE (2), EP_VALUES (0, 255));
  g_autoptr(EpTensor) fits = ep_tensor_add_scalar (a, 255, &error);
  g_autoptr(EpTensor) over = ep_tensor_add_scalar (a, 256, &error);
  g_autoptr(EpTensor) under = ep_tensor_sub_scalar (a, -1, &error2);

  ep_assert_values (fits, EP_DTYPE_UINT8, EP_SHAPE (2), EP_VALUES (255, 254));
  g_assert_null (over);
  ep_assert_error (error, EP_ERROR_INVALID_ARGUMENT, "add", "256");
  g_assert_null (under);
  ep_assert_error (error2, EP_ERROR_INVALID_ARGUMENT, "sub", "-1");
}

/* int8 and int16 wrap as NumPy's: MIN // -1, MIN * -1, -MIN and abs
 * (MIN) are MIN, a zero divisor gives 0, division floors; int8 with
 * uint8 is int16; a weak integer must fit the type. */
static void
test_signed_narrow_wraps (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) a = ep_test_new (EP_DTYPE_INT8, EP_SHAPE (4), EP_VALUES (-128, 127, -7, 100));
  g_autoptr(EpTensor) b = ep_test_new (EP_DTYPE_INT8, EP_SHAPE (4), EP_VALUES (-1, 1, 2, 0));
  g_autoptr(EpTensor) c = ep_test_new (EP_DTYPE_INT16, EP_SHAPE (2), EP_VALUES (-32768, 32767));
  g_autoptr(EpTensor) u = ep_test_new (EP_DTYPE_UINT8, EP_SHAPE (4), EP_VALUES (255, 0, 1, 200));
  g_autoptr(EpTensor) floordiv = ep_tensor_floordiv (a, b, &error);
  g_autoptr(EpTensor) mod = ep_tensor_mod (a, b, &error);
  g_autoptr(EpTensor) mul = ep_tensor_mul (a, b, &error);
  g_autoptr(EpTensor) add = ep_tensor_add (a, b, &error);
  g_autoptr(EpTensor) neg = ep_tensor_neg (a, &error);
  g_autoptr(EpTensor) abs = ep_tensor_abs (a, &error);
  g_autoptr(EpTensor) neg16 = ep_tensor_neg (c, &error);
  g_autoptr(EpTensor) sum16 = ep_tensor_add_scalar (c, 1, &error);
  g_autoptr(EpTensor) mixed = ep_tensor_add (a, u, &error);
  g_autoptr(GError) e1 = NULL, e2 = NULL;
  g_autoptr(EpTensor) over = ep_tensor_add_scalar (a, 128, &e1);
  g_autoptr(EpTensor) under = ep_tensor_add_scalar (c, -32769, &e2);

  g_assert_no_error (error);
  ep_assert_values (floordiv, EP_DTYPE_INT8, EP_SHAPE (4), EP_VALUES (-128, 127, -4, 0));
  ep_assert_values (mod, EP_DTYPE_INT8, EP_SHAPE (4), EP_VALUES (0, 0, 1, 0));
  ep_assert_values (mul, EP_DTYPE_INT8, EP_SHAPE (4), EP_VALUES (-128, 127, -14, 0));
  ep_assert_values (add, EP_DTYPE_INT8, EP_SHAPE (4), EP_VALUES (127, -128, -5, 100));
  ep_assert_values (neg, EP_DTYPE_INT8, EP_SHAPE (4), EP_VALUES (-128, -127, 7, -100));
  ep_assert_values (abs, EP_DTYPE_INT8, EP_SHAPE (4), EP_VALUES (-128, 127, 7, 100));
  ep_assert_values (neg16, EP_DTYPE_INT16, EP_SHAPE (2), EP_VALUES (-32768, -32767));
  ep_assert_values (sum16, EP_DTYPE_INT16, EP_SHAPE (2), EP_VALUES (-32767, -32768));
  ep_assert_values (mixed, EP_DTYPE_INT16, EP_SHAPE (4), EP_VALUES (127, 127, -6, 300));
  g_assert_null (over);
  ep_assert_error (e1, EP_ERROR_INVALID_ARGUMENT, "add", "128");
  g_assert_null (under);
  ep_assert_error (e2, EP_ERROR_INVALID_ARGUMENT, "add", "-32769");
}

static void
test_int64_wraps (void)
{
  const gint64 data[] = { G_MAXINT64, G_MININT64 };
  g_autoptr(GBytes) bytes = g_bytes_new (data, sizeof data);
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) a = ep_tensor_new_from_bytes (bytes, EP_DTYPE_INT64, EP_SHAPE (2), &error);
  g_autoptr(EpTensor) add = ep_tensor_add_scalar (a, 1, &error);
  g_autoptr(EpTensor) neg = ep_tensor_neg (a, &error);
  g_autoptr(GBytes) add_bytes = ep_tensor_to_bytes (add, &error);
  g_autoptr(GBytes) neg_bytes = ep_tensor_to_bytes (neg, &error);
  const gint64 *sum, *negated;

  g_assert_no_error (error);
  sum = g_bytes_get_data (add_bytes, NULL);
  negated = g_bytes_get_data (neg_bytes, NULL);
  g_assert_cmpint (sum[0], ==, G_MININT64);
  g_assert_cmpint (sum[1], ==, G_MININT64 + 1);
  g_assert_cmpint (negated[0], ==, -G_MAXINT64);
  g_assert_cmpint (negated[1], ==, G_MININT64);
}

/* Integers to negative integer powers are refused, as in NumPy. */
static void
test_integer_pow_negative_exponent (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) a = ep_test_new (EP_DTYPE_INT64, EP_SHAPE (5), EP_VALUES (1, -1, -1, 2, 0));
  g_autoptr(EpTensor) b = ep_test_new (EP_DTYPE_INT64, EP_SHAPE (5), EP_VALUES (3, 1, 2, -1, 0));
  g_autoptr(EpTensor) pow = ep_tensor_pow (a, b, &error);

  ep_assert_error (error, EP_ERROR_INVALID_ARGUMENT, "pow", "-1");
  g_assert_null (pow);
}

static void
test_bool_add_is_or_mul_is_and (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) a = ep_test_new (EP_DTYPE_BOOL, EP_SHAPE (4), EP_VALUES (0, 0, 1, 1));
  g_autoptr(EpTensor) b = ep_test_new (EP_DTYPE_BOOL, EP_SHAPE (4), EP_VALUES (0, 1, 0, 1));
  g_autoptr(EpTensor) add = ep_tensor_add (a, b, &error);
  g_autoptr(EpTensor) mul = ep_tensor_mul (a, b, &error);
  g_autoptr(EpTensor) div = ep_tensor_div (a, b, &error);

  g_assert_no_error (error);
  ep_assert_values (add, EP_DTYPE_BOOL, EP_SHAPE (4), EP_VALUES (0, 1, 1, 1));
  ep_assert_values (mul, EP_DTYPE_BOOL, EP_SHAPE (4), EP_VALUES (0, 0, 0, 1));
  ep_assert_values (div, EP_DTYPE_FLOAT64, EP_SHAPE (4), EP_VALUES (NAN, 0, INFINITY, 1));
}

static void
test_sub_of_bools_is_dtype_error (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) a = ep_test_new (EP_DTYPE_BOOL, EP_SHAPE (2), EP_VALUES (0, 1));
  g_autoptr(EpTensor) d = ep_tensor_sub (a, a, &error);

  g_assert_null (d);
  ep_assert_error (error, EP_ERROR_DTYPE, "sub", "bool");
}

static void
test_pow_of_bools_is_dtype_error (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) a = ep_test_new (EP_DTYPE_BOOL, EP_SHAPE (2), EP_VALUES (0, 1));
  g_autoptr(EpTensor) b = ep_tensor_new_weak_scalar (1, EP_DTYPE_BOOL);
  g_autoptr(EpTensor) p = ep_tensor_pow (a, b, &error);

  g_assert_null (p);
  ep_assert_error (error, EP_ERROR_DTYPE, "pow", "bool");
}

/* A bool minus a weak integer is an integer subtraction, as in NumPy. */
static void
test_bool_sub_int_scalar (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) a = ep_test_new (EP_DTYPE_BOOL, EP_SHAPE (2), EP_VALUES (0, 1));
  g_autoptr(EpTensor) d = ep_tensor_sub_scalar (a, 1, &error);

  g_assert_no_error (error);
  ep_assert_values (d, EP_DTYPE_INT64, EP_SHAPE (2), EP_VALUES (-1, 0));
}

/* promotion of two strong tensors */

static EpDType
expected_dtype (EpTestBinaryFunc f,
                EpDType          a,
                EpDType          b)
{
  EpDType promoted = ep_dtype_promote (a, b);

  if (f == ep_tensor_div)
    return ep_dtype_is_floating (promoted) ? promoted : EP_DTYPE_FLOAT64;
  if (f == ep_tensor_add || f == ep_tensor_sub || f == ep_tensor_mul || f == ep_tensor_pow)
    return promoted;
  return EP_DTYPE_BOOL;  /* comparisons */
}

static void
test_promotion_table (void)
{
  static const EpTestBinaryFunc funcs[] = {
    ep_tensor_add, ep_tensor_sub, ep_tensor_mul, ep_tensor_div, ep_tensor_pow,
    ep_tensor_less, ep_tensor_equal, ep_tensor_greater_equal,
  };

  for (guint f = 0; f < G_N_ELEMENTS (funcs); f++)
    for (guint i = 0; i < G_N_ELEMENTS (ep_test_dtypes); i++)
      for (guint j = 0; j < G_N_ELEMENTS (ep_test_dtypes); j++)
        {
          g_autoptr(GError) error = NULL;
          g_autoptr(EpTensor) a = ep_test_new (ep_test_dtypes[i], EP_SHAPE (2), EP_VALUES (1, 2));
          g_autoptr(EpTensor) b = ep_test_new (ep_test_dtypes[j], EP_SHAPE (2), EP_VALUES (1, 0));
          g_autoptr(EpTensor) r = funcs[f] (a, b, &error);
          gboolean refused = (funcs[f] == ep_tensor_sub || funcs[f] == ep_tensor_pow)
                             && ep_test_dtypes[i] == EP_DTYPE_BOOL && ep_test_dtypes[j] == EP_DTYPE_BOOL;

          g_test_message ("func %u: %s, %s", f, ep_dtype_get_name (ep_test_dtypes[i]),
                          ep_dtype_get_name (ep_test_dtypes[j]));
          if (refused)
            {
              g_assert_error (error, EP_ERROR, EP_ERROR_DTYPE);
              continue;
            }
          g_assert_no_error (error);
          g_assert_cmpint (ep_tensor_get_dtype (r), ==,
                           expected_dtype (funcs[f], ep_test_dtypes[i], ep_test_dtypes[j]));
        }
}

/* A strong 0-d tensor promotes like any tensor (NEP 50), unlike a weak
 * literal. */
static void
test_strong_scalar_promotes (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) a = ep_test_new (EP_DTYPE_FLOAT32, EP_SHAPE (2), EP_VALUES (1, 2));
  g_autoptr(EpTensor) s = ep_tensor_new_scalar (2.5, EP_DTYPE_FLOAT64, &error);
  g_autoptr(EpTensor) r = ep_tensor_mul (a, s, &error);

  g_assert_no_error (error);
  ep_assert_values (r, EP_DTYPE_FLOAT64, EP_SHAPE (2), EP_VALUES (2.5, 5));
}

/* weak scalars */

static void
test_weak_float32_times_float_stays_float32 (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) a = ep_test_new (EP_DTYPE_FLOAT32, EP_SHAPE (2), EP_VALUES (1, 2));
  g_autoptr(EpTensor) r = ep_tensor_mul_scalar (a, 2.5, &error);

  g_assert_no_error (error);
  ep_assert_values (r, EP_DTYPE_FLOAT32, EP_SHAPE (2), EP_VALUES (2.5, 5));
}

static void
test_weak_int32_plus_int_stays_int32 (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) a = ep_test_new (EP_DTYPE_INT32, EP_SHAPE (2), EP_VALUES (1, 2));
  g_autoptr(EpTensor) r = ep_tensor_add_scalar (a, 3, &error);

  g_assert_no_error (error);
  ep_assert_values (r, EP_DTYPE_INT32, EP_SHAPE (2), EP_VALUES (4, 5));
}

static void
test_weak_int32_times_float_is_float64 (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) a = ep_test_new (EP_DTYPE_INT32, EP_SHAPE (2), EP_VALUES (1, 2));
  g_autoptr(EpTensor) r = ep_tensor_mul_scalar (a, 2.5, &error);

  g_assert_no_error (error);
  ep_assert_values (r, EP_DTYPE_FLOAT64, EP_SHAPE (2), EP_VALUES (2.5, 5));
}

static void
test_weak_int_divides_to_float64 (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) a = ep_test_new (EP_DTYPE_INT32, EP_SHAPE (2), EP_VALUES (1, 2));
  g_autoptr(EpTensor) r = ep_tensor_div_scalar (a, 2, &error);

  g_assert_no_error (error);
  ep_assert_values (r, EP_DTYPE_FLOAT64, EP_SHAPE (2), EP_VALUES (0.5, 1));
}

static void
test_weak_pow_scalar (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) a = ep_test_new (EP_DTYPE_INT32, EP_SHAPE (2), EP_VALUES (4, 9));
  g_autoptr(EpTensor) sq = ep_tensor_pow_scalar (a, 2, &error);
  g_autoptr(EpTensor) root = ep_tensor_pow_scalar (a, 0.5, &error);

  g_assert_no_error (error);
  ep_assert_values (sq, EP_DTYPE_INT32, EP_SHAPE (2), EP_VALUES (16, 81));
  ep_assert_values (root, EP_DTYPE_FLOAT64, EP_SHAPE (2), EP_VALUES (2, 3));
}

/* Every strong dtype against every kind of literal, on either side. */
static void
test_weak_table (void)
{
  static const EpDType kinds[] = { EP_DTYPE_BOOL, EP_DTYPE_INT64, EP_DTYPE_FLOAT64 };

  for (guint i = 0; i < G_N_ELEMENTS (ep_test_dtypes); i++)
    for (guint k = 0; k < G_N_ELEMENTS (kinds); k++)
      {
        g_autoptr(GError) error = NULL;
        EpDType strong = ep_test_dtypes[i];
        g_autoptr(EpTensor) a = ep_test_new (strong, EP_SHAPE (2), EP_VALUES (1, 0));
        g_autoptr(EpTensor) w = ep_tensor_new_weak_scalar (1, kinds[k]);
        g_autoptr(EpTensor) right = ep_tensor_add (a, w, &error);
        g_autoptr(EpTensor) left = ep_tensor_add (w, a, &error);
        EpDType want = strong;

        if (kinds[k] == EP_DTYPE_INT64 && strong == EP_DTYPE_BOOL)
          want = EP_DTYPE_INT64;
        else if (kinds[k] == EP_DTYPE_FLOAT64 && !ep_dtype_is_floating (strong))
          want = EP_DTYPE_FLOAT64;

        g_test_message ("%s + weak %s", ep_dtype_get_name (strong), ep_dtype_get_name (kinds[k]));
        g_assert_no_error (error);
        g_assert_cmpint (ep_tensor_get_dtype (right), ==, want);
        g_assert_cmpint (ep_tensor_get_dtype (left), ==, want);
        g_assert_false (ep_tensor_is_weak (right));
      }
}

static void
test_weak_on_the_left (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) a = ep_test_new (EP_DTYPE_INT32, EP_SHAPE (3), EP_VALUES (1, 2, 3));
  g_autoptr(EpTensor) w = ep_tensor_new_weak_scalar (10, EP_DTYPE_INT64);
  g_autoptr(EpTensor) r = ep_tensor_sub (w, a, &error);

  g_assert_no_error (error);
  ep_assert_values (r, EP_DTYPE_INT32, EP_SHAPE (3), EP_VALUES (9, 8, 7));
}

static void
test_two_weak_scalars (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) i = ep_tensor_new_weak_scalar (1, EP_DTYPE_INT64);
  g_autoptr(EpTensor) f = ep_tensor_new_weak_scalar (0.5, EP_DTYPE_FLOAT64);
  g_autoptr(EpTensor) r = ep_tensor_add (i, f, &error);

  g_assert_no_error (error);
  ep_assert_values (r, EP_DTYPE_FLOAT64, EP_SCALAR, EP_VALUES (1.5));
}

/* A huge integral value is no exact integer literal: it is a float. */
static void
test_scalar_beyond_2_53_is_float (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) a = ep_test_new (EP_DTYPE_INT64, EP_SHAPE (1), EP_VALUES (1));
  g_autoptr(EpTensor) r = ep_tensor_add_scalar (a, 1e300, &error);

  g_assert_no_error (error);
  ep_assert_values (r, EP_DTYPE_FLOAT64, EP_SHAPE (1), EP_VALUES (1e300));
}

static void
test_nan_scalar_is_float (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) a = ep_test_new (EP_DTYPE_INT32, EP_SHAPE (1), EP_VALUES (1));
  g_autoptr(EpTensor) r = ep_tensor_mul_scalar (a, NAN, &error);

  g_assert_no_error (error);
  ep_assert_values (r, EP_DTYPE_FLOAT64, EP_SHAPE (1), EP_VALUES (NAN));
}

/* broadcasting */

static void
test_broadcast_row (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) a = ep_test_new (EP_DTYPE_FLOAT32, EP_SHAPE (2, 3), EP_VALUES (1, 2, 3, 4, 5, 6));
  g_autoptr(EpTensor) b = ep_test_new (EP_DTYPE_FLOAT32, EP_SHAPE (3), EP_VALUES (10, 20, 30));
  g_autoptr(EpTensor) r = ep_tensor_add (a, b, &error);
  g_autoptr(EpTensor) l = ep_tensor_sub (b, a, &error);

  g_assert_no_error (error);
  ep_assert_values (r, EP_DTYPE_FLOAT32, EP_SHAPE (2, 3), EP_VALUES (11, 22, 33, 14, 25, 36));
  ep_assert_values (l, EP_DTYPE_FLOAT32, EP_SHAPE (2, 3), EP_VALUES (9, 18, 27, 6, 15, 24));
}

static void
test_broadcast_outer (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) a = ep_test_new (EP_DTYPE_INT32, EP_SHAPE (2, 1), EP_VALUES (1, 2));
  g_autoptr(EpTensor) b = ep_test_new (EP_DTYPE_INT32, EP_SHAPE (1, 3), EP_VALUES (10, 20, 30));
  g_autoptr(EpTensor) r = ep_tensor_mul (a, b, &error);

  g_assert_no_error (error);
  ep_assert_values (r, EP_DTYPE_INT32, EP_SHAPE (2, 3), EP_VALUES (10, 20, 30, 20, 40, 60));
}

static void
test_broadcast_ranks (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) a = ep_test_new (EP_DTYPE_FLOAT64, EP_SHAPE (2, 1, 3), EP_VALUES (1, 2, 3, 4, 5, 6));
  g_autoptr(EpTensor) b = ep_test_new (EP_DTYPE_FLOAT64, EP_SHAPE (2, 1), EP_VALUES (0, 100));
  g_autoptr(EpTensor) r = ep_tensor_add (a, b, &error);

  g_assert_no_error (error);
  ep_assert_values (r, EP_DTYPE_FLOAT64, EP_SHAPE (2, 2, 3),
                    EP_VALUES (1, 2, 3, 101, 102, 103, 4, 5, 6, 104, 105, 106));
}

static void
test_broadcast_scalar_tensor (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) a = ep_test_new (EP_DTYPE_FLOAT32, EP_SCALAR, EP_VALUES (2));
  g_autoptr(EpTensor) b = ep_test_new (EP_DTYPE_FLOAT32, EP_SHAPE (2, 2), EP_VALUES (1, 2, 3, 4));
  g_autoptr(EpTensor) r = ep_tensor_pow (a, b, &error);

  g_assert_no_error (error);
  ep_assert_values (r, EP_DTYPE_FLOAT32, EP_SHAPE (2, 2), EP_VALUES (2, 4, 8, 16));
}

static void
test_broadcast_empty (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) a = ep_zeros (EP_SHAPE (0, 3), EP_DTYPE_FLOAT32, &error);
  g_autoptr(EpTensor) b = ep_test_new (EP_DTYPE_FLOAT32, EP_SHAPE (3), EP_VALUES (1, 2, 3));
  g_autoptr(EpTensor) c = ep_test_new (EP_DTYPE_FLOAT32, EP_SHAPE (1), EP_VALUES (1));
  g_autoptr(EpTensor) r = ep_tensor_add (a, b, &error);
  g_autoptr(EpTensor) s = ep_tensor_less (c, a, &error);

  g_assert_no_error (error);
  ep_assert_shape (r, EP_SHAPE (0, 3));
  ep_assert_shape (s, EP_SHAPE (0, 3));
  g_assert_cmpint (ep_tensor_get_dtype (s), ==, EP_DTYPE_BOOL);
}

static void
test_broadcast_error (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) a = ep_test_new (EP_DTYPE_FLOAT32, EP_SHAPE (2, 3), EP_VALUES (1, 2, 3, 4, 5, 6));
  g_autoptr(EpTensor) b = ep_test_new (EP_DTYPE_FLOAT32, EP_SHAPE (2), EP_VALUES (1, 2));
  g_autoptr(EpTensor) r = ep_tensor_add (a, b, &error);

  g_assert_null (r);
  ep_assert_error (error, EP_ERROR_SHAPE, "add", "shapes (2, 3) and (2,) cannot be broadcast together");
}

static void
test_broadcast_error_names_each_op (void)
{
  static const struct { EpTestBinaryFunc f; const char *name; } ops[] = {
    { ep_tensor_add, "add" }, { ep_tensor_sub, "sub" }, { ep_tensor_mul, "mul" },
    { ep_tensor_div, "div" }, { ep_tensor_pow, "pow" }, { ep_tensor_less, "less" },
    { ep_tensor_less_equal, "less_equal" }, { ep_tensor_equal, "equal" },
    { ep_tensor_not_equal, "not_equal" }, { ep_tensor_greater, "greater" },
    { ep_tensor_greater_equal, "greater_equal" },
  };
  g_autoptr(EpTensor) a = ep_test_new (EP_DTYPE_INT32, EP_SHAPE (3, 1), EP_VALUES (1, 2, 3));
  g_autoptr(EpTensor) b = ep_test_new (EP_DTYPE_INT32, EP_SHAPE (2, 2), EP_VALUES (1, 2, 3, 4));

  for (guint i = 0; i < G_N_ELEMENTS (ops); i++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(EpTensor) r = ops[i].f (a, b, &error);

      g_assert_null (r);
      ep_assert_error (error, EP_ERROR_SHAPE, ops[i].name, "(3, 1) and (2, 2)");
    }
}

/* non-contiguous inputs */

static void
test_binary_non_contiguous (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) a = ep_test_new_strided (EP_DTYPE_FLOAT32, EP_SHAPE (2, 3), EP_VALUES (1, 2, 3, 4, 5, 6));
  g_autoptr(EpTensor) base = ep_test_new (EP_DTYPE_FLOAT32, EP_SHAPE (3, 2), EP_VALUES (1, 2, 3, 4, 5, 6));
  g_autoptr(EpTensor) b = ep_tensor_transpose (base, NULL, 0, &error);
  g_autoptr(EpTensor) r = ep_tensor_mul (a, b, &error);

  g_assert_no_error (error);
  g_assert_false (ep_tensor_is_contiguous (a));
  g_assert_false (ep_tensor_is_contiguous (b));
  ep_assert_values (r, EP_DTYPE_FLOAT32, EP_SHAPE (2, 3), EP_VALUES (1, 6, 15, 8, 20, 36));
  g_assert_true (ep_tensor_is_contiguous (r));
}

static void
test_binary_non_contiguous_broadcast (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) a = ep_test_new_strided (EP_DTYPE_INT64, EP_SHAPE (3, 1), EP_VALUES (1, 2, 3));
  g_autoptr(EpTensor) b = ep_test_new_strided (EP_DTYPE_INT32, EP_SHAPE (2), EP_VALUES (10, 20));
  g_autoptr(EpTensor) r = ep_tensor_add (a, b, &error);

  g_assert_no_error (error);
  ep_assert_values (r, EP_DTYPE_INT64, EP_SHAPE (3, 2), EP_VALUES (11, 21, 12, 22, 13, 23));
}

/* where */

static void
test_where_values (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) c = ep_test_new (EP_DTYPE_BOOL, EP_SHAPE (4), EP_VALUES (1, 0, 0, 1));
  g_autoptr(EpTensor) x = ep_test_new (EP_DTYPE_FLOAT32, EP_SHAPE (4), EP_VALUES (1, 2, 3, 4));
  g_autoptr(EpTensor) y = ep_test_new (EP_DTYPE_FLOAT32, EP_SHAPE (4), EP_VALUES (-1, -2, -3, -4));
  g_autoptr(EpTensor) r = ep_tensor_where (c, x, y, &error);

  g_assert_no_error (error);
  ep_assert_values (r, EP_DTYPE_FLOAT32, EP_SHAPE (4), EP_VALUES (1, -2, -3, 4));
}

static void
test_where_broadcasts_and_promotes (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) c = ep_test_new (EP_DTYPE_BOOL, EP_SHAPE (2, 1), EP_VALUES (1, 0));
  g_autoptr(EpTensor) x = ep_test_new (EP_DTYPE_INT32, EP_SHAPE (3), EP_VALUES (1, 2, 3));
  g_autoptr(EpTensor) y = ep_test_new (EP_DTYPE_FLOAT32, EP_SCALAR, EP_VALUES (0.5));
  g_autoptr(EpTensor) r = ep_tensor_where (c, x, y, &error);

  g_assert_no_error (error);
  ep_assert_values (r, EP_DTYPE_FLOAT64, EP_SHAPE (2, 3), EP_VALUES (1, 2, 3, 0.5, 0.5, 0.5));
}

static void
test_where_non_bool_condition (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) c = ep_test_new (EP_DTYPE_FLOAT64, EP_SHAPE (3), EP_VALUES (0, -0.5, NAN));
  g_autoptr(EpTensor) x = ep_test_new (EP_DTYPE_INT64, EP_SHAPE (3), EP_VALUES (1, 2, 3));
  g_autoptr(EpTensor) y = ep_test_new (EP_DTYPE_INT64, EP_SHAPE (3), EP_VALUES (-1, -2, -3));
  g_autoptr(EpTensor) r = ep_tensor_where (c, x, y, &error);

  g_assert_no_error (error);
  ep_assert_values (r, EP_DTYPE_INT64, EP_SHAPE (3), EP_VALUES (-1, 2, 3));
}

static void
test_where_weak_scalars (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) x = ep_test_new (EP_DTYPE_FLOAT32, EP_SHAPE (3), EP_VALUES (-1, 0.5, 2));
  g_autoptr(EpTensor) zero = ep_tensor_new_weak_scalar (0, EP_DTYPE_INT64);
  g_autoptr(EpTensor) c = ep_tensor_greater (x, zero, &error);
  g_autoptr(EpTensor) r = ep_tensor_where (c, x, zero, &error);
  g_autoptr(EpTensor) one = ep_tensor_new_weak_scalar (1, EP_DTYPE_INT64);
  g_autoptr(EpTensor) half = ep_tensor_new_weak_scalar (0.5, EP_DTYPE_FLOAT64);
  g_autoptr(EpTensor) both = ep_tensor_where (c, one, half, &error);

  g_assert_no_error (error);
  ep_assert_values (r, EP_DTYPE_FLOAT32, EP_SHAPE (3), EP_VALUES (0, 0.5, 2));
  ep_assert_values (both, EP_DTYPE_FLOAT64, EP_SHAPE (3), EP_VALUES (0.5, 1, 1));
}

static void
test_where_non_contiguous (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) c = ep_test_new_strided (EP_DTYPE_BOOL, EP_SHAPE (2, 2), EP_VALUES (1, 0, 0, 1));
  g_autoptr(EpTensor) base = ep_test_new (EP_DTYPE_INT32, EP_SHAPE (2, 2), EP_VALUES (1, 2, 3, 4));
  g_autoptr(EpTensor) x = ep_tensor_transpose (base, NULL, 0, &error);
  g_autoptr(EpTensor) y = ep_test_new_strided (EP_DTYPE_INT32, EP_SHAPE (2), EP_VALUES (-1, -2));
  g_autoptr(EpTensor) r = ep_tensor_where (c, x, y, &error);

  g_assert_no_error (error);
  ep_assert_values (r, EP_DTYPE_INT32, EP_SHAPE (2, 2), EP_VALUES (1, -2, -1, 4));
}

static void
test_where_shape_error (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) c = ep_test_new (EP_DTYPE_BOOL, EP_SHAPE (2), EP_VALUES (1, 0));
  g_autoptr(EpTensor) x = ep_test_new (EP_DTYPE_FLOAT32, EP_SHAPE (3), EP_VALUES (1, 2, 3));
  g_autoptr(EpTensor) y = ep_test_new (EP_DTYPE_FLOAT32, EP_SHAPE (4), EP_VALUES (1, 2, 3, 4));
  g_autoptr(EpTensor) r = ep_tensor_where (c, x, y, &error);

  g_assert_null (r);
  ep_assert_error (error, EP_ERROR_SHAPE, "where", "(2,), (3,) and (4,)");
}

/* C callers may ignore errors: a failing op returns NULL, no crash. */
static void
test_failure_without_error_location (void)
{
  g_autoptr(EpTensor) a = ep_test_new (EP_DTYPE_FLOAT32, EP_SHAPE (2), EP_VALUES (1, 2));
  g_autoptr(EpTensor) b = ep_test_new (EP_DTYPE_FLOAT32, EP_SHAPE (3), EP_VALUES (1, 2, 3));
  g_autoptr(EpTensor) c = ep_test_new (EP_DTYPE_BOOL, EP_SHAPE (1), EP_VALUES (1));

  g_assert_null (ep_tensor_add (a, b, NULL));
  g_assert_null (ep_tensor_neg (c, NULL));
  g_assert_null (ep_tensor_where (c, a, b, NULL));
}

static void
test_scalars_stay_scalars (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) a = ep_test_new (EP_DTYPE_FLOAT64, EP_SCALAR, EP_VALUES (3));
  g_autoptr(EpTensor) b = ep_test_new (EP_DTYPE_FLOAT64, EP_SCALAR, EP_VALUES (4));
  g_autoptr(EpTensor) c = ep_tensor_pow (a, b, &error);
  g_autoptr(EpTensor) t = ep_test_new (EP_DTYPE_BOOL, EP_SCALAR, EP_VALUES (0));
  g_autoptr(EpTensor) w = ep_tensor_where (t, a, b, &error);
  g_autoptr(EpTensor) l = ep_tensor_less (a, b, &error);

  g_assert_no_error (error);
  ep_assert_values (c, EP_DTYPE_FLOAT64, EP_SCALAR, EP_VALUES (81));
  ep_assert_values (w, EP_DTYPE_FLOAT64, EP_SCALAR, EP_VALUES (4));
  ep_assert_values (l, EP_DTYPE_BOOL, EP_SCALAR, EP_VALUES (1));
}

/* floordiv, mod, minimum, maximum, clip */

static void
test_floordiv_mod_minimum_maximum_clip (void)
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

/* Every error path of the elementwise ops, with its code */
static void
test_error_codes (void)
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

/* gradient rules against central differences (ep-test-gradient.h) */

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
test_gradient_binary (void)
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

/* d sum (f (a, b)) / da and / db, through a tape */
static void
gradients_of_sum (EpTestFunction   f,
                  EpTensor        *a,
                  EpTensor        *b,
                  EpTensor       **ga,
                  EpTensor       **gb)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpGradientTape) tape = ep_gradient_tape_new (FALSE);
  g_autoptr(EpTensor) y = NULL;
  g_autoptr(EpTensor) total = NULL;
  g_autoptr(GPtrArray) grads = NULL;
  EpTensor *x[2] = { a, b };
  GObject *sources[] = { G_OBJECT (a), G_OBJECT (b) };

  ep_gradient_tape_start (tape, &error);
  ep_gradient_tape_watch (tape, a);
  ep_gradient_tape_watch (tape, b);
  y = f (x, &error);
  total = y != NULL ? ep_tensor_sum (y, NULL, 0, FALSE, &error) : NULL;
  ep_gradient_tape_stop (tape, &error);
  g_assert_no_error (error);
  grads = ep_gradient_tape_gradient (tape, &total, 1, sources, 2, NULL, 0, &error);
  g_assert_no_error (error);
  *ga = g_object_ref (g_ptr_array_index (grads, 0));
  *gb = g_object_ref (g_ptr_array_index (grads, 1));
}

/* Ties share the gradient, half each, as the max and min reductions
 * share theirs; a broadcast operand sums its halves */
static void
test_gradient_extremum_ties (void)
{
  const gdouble av[] = { 1, 2, 3, 1, 1, 1 };
  const gdouble bv[] = { 1, 5, 0 };
  const gdouble one[] = { 1 };
  g_autoptr(EpTensor) a = ep_test_vector (av, 3, EP_DTYPE_FLOAT64);
  g_autoptr(EpTensor) b = ep_test_vector (bv, 3, EP_DTYPE_FLOAT64);
  g_autoptr(EpTensor) rows = ep_test_matrix (av, 2, 3, EP_DTYPE_FLOAT64);
  g_autoptr(EpTensor) c = ep_test_vector (one, 1, EP_DTYPE_FLOAT64);
  g_autoptr(EpTensor) ga = NULL, gb = NULL, ha = NULL, hb = NULL, ka = NULL, kb = NULL;

  gradients_of_sum (call_maximum, a, b, &ga, &gb);
  ep_assert_values (ga, EP_DTYPE_FLOAT64, EP_SHAPE (3), EP_VALUES (0.5, 0, 1));
  ep_assert_values (gb, EP_DTYPE_FLOAT64, EP_SHAPE (3), EP_VALUES (0.5, 1, 0));

  gradients_of_sum (call_minimum, a, b, &ha, &hb);
  ep_assert_values (ha, EP_DTYPE_FLOAT64, EP_SHAPE (3), EP_VALUES (0.5, 1, 0));
  ep_assert_values (hb, EP_DTYPE_FLOAT64, EP_SHAPE (3), EP_VALUES (0.5, 0, 1));

  gradients_of_sum (call_maximum, rows, c, &ka, &kb);
  ep_assert_values (ka, EP_DTYPE_FLOAT64, EP_SHAPE (2, 3), EP_VALUES (0.5, 1, 1, 0.5, 0.5, 0.5));
  ep_assert_values (kb, EP_DTYPE_FLOAT64, EP_SHAPE (1), EP_VALUES (2));
}

static EpTensor *
call_clip (EpTensor **x, GError **error)
{
  return ep_tensor_clip (x[0], -0.5, 0.6, error);
}

static void
test_gradient_clip (void)
{
  g_autoptr(EpTensor) x0 = ep_test_float64 (ep_test_grad_a, ep_test_shape_34, 2);
  EpTensor *x[1] = { x0 };

  ep_test_check_gradient (&ep_op_clip, call_clip, x, 1);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/elementwise/arithmetic/float32", test_arithmetic_float32);
  g_test_add_func ("/elementwise/arithmetic/float64", test_arithmetic_float64);
  g_test_add_func ("/elementwise/arithmetic/int32", test_arithmetic_int32);
  g_test_add_func ("/elementwise/arithmetic/integer-division", test_integer_division_is_true_division);
  g_test_add_func ("/elementwise/arithmetic/float-division-by-zero", test_float_division_by_zero);
  g_test_add_func ("/elementwise/arithmetic/int32-wraps", test_integers_wrap);
  g_test_add_func ("/elementwise/arithmetic/int64-wraps", test_int64_wraps);
  g_test_add_func ("/elementwise/arithmetic/uint8-wraps", test_uint8_wraps);
  g_test_add_func ("/elementwise/weak/uint8-integer-must-fit", test_uint8_weak_integer_must_fit);
  g_test_add_func ("/elementwise/arithmetic/signed-narrow-wraps", test_signed_narrow_wraps);
  g_test_add_func ("/elementwise/arithmetic/integer-pow-negative-exponent", test_integer_pow_negative_exponent);
  g_test_add_func ("/elementwise/arithmetic/bool-add-or-mul-and", test_bool_add_is_or_mul_is_and);
  g_test_add_func ("/elementwise/arithmetic/sub-of-bools", test_sub_of_bools_is_dtype_error);
  g_test_add_func ("/elementwise/arithmetic/pow-of-bools", test_pow_of_bools_is_dtype_error);
  g_test_add_func ("/elementwise/arithmetic/bool-sub-int-scalar", test_bool_sub_int_scalar);
  g_test_add_func ("/elementwise/promotion/table", test_promotion_table);
  g_test_add_func ("/elementwise/promotion/strong-scalar", test_strong_scalar_promotes);
  g_test_add_func ("/elementwise/weak/float32-times-float", test_weak_float32_times_float_stays_float32);
  g_test_add_func ("/elementwise/weak/int32-plus-int", test_weak_int32_plus_int_stays_int32);
  g_test_add_func ("/elementwise/weak/int32-times-float", test_weak_int32_times_float_is_float64);
  g_test_add_func ("/elementwise/weak/int-div-int", test_weak_int_divides_to_float64);
  g_test_add_func ("/elementwise/weak/pow-scalar", test_weak_pow_scalar);
  g_test_add_func ("/elementwise/weak/table", test_weak_table);
  g_test_add_func ("/elementwise/weak/on-the-left", test_weak_on_the_left);
  g_test_add_func ("/elementwise/weak/two-weak", test_two_weak_scalars);
  g_test_add_func ("/elementwise/weak/beyond-2-53-is-float", test_scalar_beyond_2_53_is_float);
  g_test_add_func ("/elementwise/weak/nan-is-float", test_nan_scalar_is_float);
  g_test_add_func ("/elementwise/broadcast/row", test_broadcast_row);
  g_test_add_func ("/elementwise/broadcast/outer", test_broadcast_outer);
  g_test_add_func ("/elementwise/broadcast/ranks", test_broadcast_ranks);
  g_test_add_func ("/elementwise/broadcast/scalar-tensor", test_broadcast_scalar_tensor);
  g_test_add_func ("/elementwise/broadcast/empty", test_broadcast_empty);
  g_test_add_func ("/elementwise/broadcast/error", test_broadcast_error);
  g_test_add_func ("/elementwise/broadcast/error-names-each-op", test_broadcast_error_names_each_op);
  g_test_add_func ("/elementwise/non-contiguous/binary", test_binary_non_contiguous);
  g_test_add_func ("/elementwise/non-contiguous/binary-broadcast", test_binary_non_contiguous_broadcast);
  g_test_add_func ("/elementwise/where/values", test_where_values);
  g_test_add_func ("/elementwise/where/broadcasts-and-promotes", test_where_broadcasts_and_promotes);
  g_test_add_func ("/elementwise/where/non-bool-condition", test_where_non_bool_condition);
  g_test_add_func ("/elementwise/where/weak-scalars", test_where_weak_scalars);
  g_test_add_func ("/elementwise/where/non-contiguous", test_where_non_contiguous);
  g_test_add_func ("/elementwise/where/shape-error", test_where_shape_error);
  g_test_add_func ("/elementwise/failure-without-error-location", test_failure_without_error_location);
  g_test_add_func ("/elementwise/scalars-stay-scalars", test_scalars_stay_scalars);
  g_test_add_func ("/elementwise/floordiv-mod-minimum-maximum-clip", test_floordiv_mod_minimum_maximum_clip);
  g_test_add_func ("/elementwise/error/codes", test_error_codes);
  g_test_add_func ("/elementwise/gradient/floordiv-mod-minimum-maximum", test_gradient_binary);
  g_test_add_func ("/elementwise/gradient/clip", test_gradient_clip);
  g_test_add_func ("/elementwise/gradient/extremum-ties", test_gradient_extremum_ties);

  return g_test_run ();
}
