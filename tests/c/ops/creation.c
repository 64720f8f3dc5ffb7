/* ops/creation.c: the creation family: full (zeros, ones, full and
 * their _like forms), arange, linspace, eye, onehot_like: values, dtypes,
 * empty and huge shapes, every error path
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "ep-test-util.h"

/* zeros, ones, full, arange, *_like */

static void
test_zeros_ones_full (void)
{
  static const EpDType dtypes[] = {
    EP_DTYPE_FLOAT32, EP_DTYPE_FLOAT64, EP_DTYPE_INT32, EP_DTYPE_INT64, EP_DTYPE_BOOL,
  };

  for (guint d = 0; d < G_N_ELEMENTS (dtypes); d++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(EpTensor) z = ep_zeros (EP_SHAPE (2, 2), dtypes[d], &error);
      g_autoptr(EpTensor) o = ep_ones (EP_SHAPE (3), dtypes[d], &error);
      g_autoptr(EpTensor) f = ep_full (EP_SHAPE (1, 2), -7.5, dtypes[d], &error);
      gdouble fv = dtypes[d] == EP_DTYPE_BOOL ? 1 : ep_dtype_is_integer (dtypes[d]) ? -7 : -7.5;

      g_assert_no_error (error);
      ep_assert_values (z, dtypes[d], EP_SHAPE (2, 2), EP_VALUES (0, 0, 0, 0));
      ep_assert_values (o, dtypes[d], EP_SHAPE (3), EP_VALUES (1, 1, 1));
      ep_assert_values (f, dtypes[d], EP_SHAPE (1, 2), EP_VALUES (fv, fv));
    }
}

/* NaN has no integer value: the minimum, as NumPy on x86-64. */
static void
test_full_nan_integer (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) t = ep_full (EP_SHAPE (2), NAN, EP_DTYPE_INT32, &error);
  g_autoptr(EpTensor) b = ep_full (EP_SHAPE (1), NAN, EP_DTYPE_BOOL, &error);

  g_assert_no_error (error);
  ep_assert_values (t, EP_DTYPE_INT32, EP_SHAPE (2), EP_VALUES (G_MININT32, G_MININT32));
  ep_assert_values (b, EP_DTYPE_BOOL, EP_SHAPE (1), EP_VALUES (1));
}

static void
test_full_scalar_and_empty (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) s = ep_full (NULL, 0, 4, EP_DTYPE_INT64, &error);
  g_autoptr(EpTensor) e = ep_zeros (EP_SHAPE (0, 5), EP_DTYPE_FLOAT32, &error);

  g_assert_no_error (error);
  ep_assert_values (s, EP_DTYPE_INT64, EP_SCALAR, EP_VALUES (4));
  ep_assert_shape (e, EP_SHAPE (0, 5));
  g_assert_cmpint (ep_tensor_get_size (e), ==, 0);
}

static void
test_full_negative_dimension (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) t = ep_zeros (EP_SHAPE (3, -2), EP_DTYPE_FLOAT32, &error);

  g_assert_null (t);
  ep_assert_error (error, EP_ERROR_SHAPE, "zeros", "-2");
}

static void
test_full_too_many_dimensions (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) t = ep_ones (EP_SHAPE (1, 1, 1, 1, 1, 1, 1, 1, 1), EP_DTYPE_FLOAT32, &error);

  g_assert_null (t);
  ep_assert_error (error, EP_ERROR_SHAPE, "ones", "9 dimensions");
}

/* More dimensions than EpOpAttrs holds: the message has the true count. */
static void
test_full_far_too_many_dimensions (void)
{
  gint64 shape[30];
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) t = NULL;

  for (guint i = 0; i < G_N_ELEMENTS (shape); i++)
    shape[i] = 1;
  t = ep_zeros (shape, G_N_ELEMENTS (shape), EP_DTYPE_INT32, &error);

  g_assert_null (t);
  ep_assert_error (error, EP_ERROR_SHAPE, "zeros", "30 dimensions");
}

static void
test_full_absurd_shape (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) t = ep_zeros (EP_SHAPE (EP_TERA, EP_TERA), EP_DTYPE_FLOAT32, &error);

  g_assert_null (t);
  ep_assert_error (error, EP_ERROR_OUT_OF_MEMORY, "zeros", NULL);
}

/* Zero elements need no memory, however large the other extents and
 * wherever the zero is. */
static void
test_full_empty_with_huge_extents (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) a = ep_zeros (EP_SHAPE (EP_TERA, EP_TERA, 0), EP_DTYPE_FLOAT32, &error);
  g_autoptr(EpTensor) b = ep_ones (EP_SHAPE (0, EP_TERA, EP_TERA), EP_DTYPE_FLOAT64, &error);
  g_autoptr(EpTensor) c = ep_tensor_new_from_doubles (NULL, 0, EP_SHAPE (EP_TERA, 0, EP_TERA), EP_DTYPE_INT32, &error);
  g_autoptr(GBytes) bytes = NULL;
  g_autofree char *text = NULL;

  g_assert_no_error (error);
  ep_assert_shape (a, EP_SHAPE (EP_TERA, EP_TERA, 0));
  ep_assert_shape (b, EP_SHAPE (0, EP_TERA, EP_TERA));
  ep_assert_shape (c, EP_SHAPE (EP_TERA, 0, EP_TERA));
  g_assert_cmpint (ep_tensor_get_size (a), ==, 0);
  bytes = ep_tensor_to_bytes (a, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (g_bytes_get_size (bytes), ==, 0);
  text = ep_tensor_to_string (c, &error);
  g_assert_cmpstr (text, ==, "[]");
}

/* Addressable but larger than any machine's memory: the device refuses
 * before the allocator could overcommit. */
static void
test_full_larger_than_memory (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) t = ep_zeros (EP_SHAPE (EP_TERA, G_GINT64_CONSTANT (1) << 20), EP_DTYPE_FLOAT32, &error);

  g_assert_null (t);
  ep_assert_error (error, EP_ERROR_OUT_OF_MEMORY, "zeros", NULL);
}

static void
test_arange_values (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) a = ep_arange (0, 5, 1, EP_DTYPE_FLOAT32, &error);
  g_autoptr(EpTensor) b = ep_arange (5, 0, -1.5, EP_DTYPE_FLOAT64, &error);
  g_autoptr(EpTensor) c = ep_arange (0, 10, 3, EP_DTYPE_INT32, &error);
  g_autoptr(EpTensor) d = ep_arange (-3, -1, 1, EP_DTYPE_INT64, &error);
  g_autoptr(EpTensor) f = ep_arange (0, 1, 0.1, EP_DTYPE_FLOAT64, &error);

  g_assert_no_error (error);
  ep_assert_values (a, EP_DTYPE_FLOAT32, EP_SHAPE (5), EP_VALUES (0, 1, 2, 3, 4));
  ep_assert_values (b, EP_DTYPE_FLOAT64, EP_SHAPE (4), EP_VALUES (5, 3.5, 2, 0.5));
  ep_assert_values (c, EP_DTYPE_INT32, EP_SHAPE (4), EP_VALUES (0, 3, 6, 9));
  ep_assert_values (d, EP_DTYPE_INT64, EP_SHAPE (2), EP_VALUES (-3, -2));
  ep_assert_shape (f, EP_SHAPE (10));
}

/* NumPy's fill: the step is the difference of the first two values in
 * the element type. */
static void
test_arange_like_numpy (void)
{
  static const gdouble numpy_f32[] = {
    0.0, 0.10000000149011612, 0.20000000298023224, 0.30000001192092896, 0.4000000059604645,
    0.5, 0.6000000238418579, 0.699999988079071, 0.800000011920929, 0.9000000357627869,
  };
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) f = ep_arange (0, 1, 0.1, EP_DTYPE_FLOAT32, &error);
  g_autoptr(EpTensor) i = ep_arange (0, 3, 0.5, EP_DTYPE_INT32, &error);
  g_autoptr(EpTensor) j = ep_arange (-1.5, 2, 1, EP_DTYPE_INT64, &error);
  g_autofree gdouble *values = NULL;
  gsize n;

  g_assert_no_error (error);
  values = ep_test_get_values (f, &n);
  g_assert_cmpuint (n, ==, G_N_ELEMENTS (numpy_f32));
  for (gsize k = 0; k < n; k++)
    g_assert_cmpfloat (values[k], ==, numpy_f32[k]);
  ep_assert_values (i, EP_DTYPE_INT32, EP_SHAPE (6), EP_VALUES (0, 0, 0, 0, 0, 0));
  ep_assert_values (j, EP_DTYPE_INT64, EP_SHAPE (4), EP_VALUES (-1, 0, 1, 2));
}

static void
test_arange_empty (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) a = ep_arange (5, 0, 1, EP_DTYPE_FLOAT32, &error);
  g_autoptr(EpTensor) b = ep_arange (2, 2, 1, EP_DTYPE_INT32, &error);

  g_assert_no_error (error);
  ep_assert_shape (a, EP_SHAPE (0));
  ep_assert_shape (b, EP_SHAPE (0));
}

static void
test_arange_zero_step (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) t = ep_arange (0, 5, 0, EP_DTYPE_FLOAT32, &error);

  g_assert_null (t);
  ep_assert_error (error, EP_ERROR_INVALID_ARGUMENT, "arange", "step");
}

static void
test_arange_not_finite (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) t = ep_arange (0, INFINITY, 1, EP_DTYPE_FLOAT64, &error);
  g_autoptr(EpTensor) u = NULL;

  g_assert_null (t);
  ep_assert_error (error, EP_ERROR_INVALID_ARGUMENT, "arange", NULL);
  g_clear_error (&error);
  u = ep_arange (NAN, 1, 1, EP_DTYPE_FLOAT64, &error);
  g_assert_null (u);
  ep_assert_error (error, EP_ERROR_INVALID_ARGUMENT, "arange", NULL);
}

static void
test_arange_bool (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) t = ep_arange (0, 2, 1, EP_DTYPE_BOOL, &error);

  g_assert_null (t);
  ep_assert_error (error, EP_ERROR_DTYPE, "arange", "bool");
}

static void
test_arange_absurd (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) t = ep_arange (0, 1e19, 1, EP_DTYPE_INT64, &error);
  g_autoptr(EpTensor) u = NULL;

  g_assert_null (t);
  /* the count asked for, not the size the layout was refused at */
  ep_assert_error (error, EP_ERROR_OUT_OF_MEMORY, "arange",
                   "10000000000000000000 elements (from 0 to 1e+19 in steps of 1) are more than a tensor can hold");
  g_clear_error (&error);
  u = ep_arange (0, 1e15, 1, EP_DTYPE_FLOAT32, &error);
  g_assert_null (u);
  ep_assert_error (error, EP_ERROR_OUT_OF_MEMORY, "arange", NULL);
}

/* Integers past 2^53, which a gdouble would round: counted and filled
 * exactly */
static void
test_arange_int_exact (void)
{
  const gint64 big = (G_GINT64_CONSTANT (1) << 60);
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) t = ep_arange_int (big, big + 4, 1, EP_DTYPE_INT64, &error);

  g_assert_no_error (error);
  ep_assert_int64_values (t, big, big + 1, big + 2, big + 3);
}

/* The whole int64 range by 2^62: no signed overflow on the way */
static void
test_arange_int_whole_range (void)
{
  const gint64 quarter = G_GINT64_CONSTANT (1) << 62;
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) t = ep_arange_int (G_MININT64, G_MAXINT64, quarter, EP_DTYPE_INT64, &error);
  g_autoptr(EpTensor) down = ep_arange_int (G_MAXINT64, G_MININT64, -quarter, EP_DTYPE_INT64, &error);

  g_assert_no_error (error);
  ep_assert_int64_values (t, G_MININT64, -quarter, 0, quarter);
  ep_assert_int64_values (down, G_MAXINT64, G_MAXINT64 - quarter, G_MAXINT64 - quarter - quarter,
                          -quarter - 1);
}

/* int32 values across 2^31 wrap around, as NumPy's fill does */
static void
test_arange_int32_wraps (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) t = ep_arange_int (G_MAXINT32 - 1, (gint64) G_MAXINT32 + 3, 1, EP_DTYPE_INT32, &error);
  g_autoptr(EpTensor) f = ep_arange (G_MAXINT32 - 1, (gdouble) G_MAXINT32 + 3, 1, EP_DTYPE_INT32, &error);

  g_assert_no_error (error);
  ep_assert_values (t, EP_DTYPE_INT32, EP_SHAPE (4), EP_VALUES (G_MAXINT32 - 1, G_MAXINT32, G_MININT32, G_MININT32 + 1));
  ep_assert_values (f, EP_DTYPE_INT32, EP_SHAPE (4), EP_VALUES (G_MAXINT32 - 1, G_MAXINT32, G_MININT32, G_MININT32 + 1));
}

/* A count past G_MAXINT64 (a uint64) is reported as it is */
static void
test_arange_too_long_count (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) t = ep_arange_int (G_MININT64, G_MAXINT64, 1, EP_DTYPE_INT64, &error);
  g_autoptr(EpTensor) f = NULL;

  g_assert_null (t);
  ep_assert_error (error, EP_ERROR_OUT_OF_MEMORY, "arange",
                   "18446744073709551615 elements (from -9223372036854775808 to 9223372036854775807 in steps of 1)");
  g_clear_error (&error);
  f = ep_arange (0, 1e19, 1, EP_DTYPE_INT64, &error);
  g_assert_null (f);
  ep_assert_error (error, EP_ERROR_OUT_OF_MEMORY, "arange", "10000000000000000000 elements");
}

static void
test_full_int_exact (void)
{
  const gint64 big = (G_GINT64_CONSTANT (1) << 60) + 1;
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) t = ep_full_int (EP_SHAPE (2), big, EP_DTYPE_INT64, &error);
  g_autoptr(EpTensor) m = ep_full_int (EP_SHAPE (1), G_MININT64, EP_DTYPE_INT64, &error);

  g_assert_no_error (error);
  ep_assert_int64_values (t, big, big);
  ep_assert_int64_values (m, G_MININT64);
}

static void
test_full_like_int_exact (void)
{
  const gint64 big = (G_GINT64_CONSTANT (1) << 60) + 1;
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) like = ep_zeros (EP_SHAPE (2), EP_DTYPE_INT64, &error);
  g_autoptr(EpTensor) t = ep_tensor_full_like_int (like, big, &error);

  g_assert_no_error (error);
  ep_assert_int64_values (t, big, big);
}

static void
test_full_int_does_not_fit (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) t = ep_full_int (EP_SHAPE (2), G_GINT64_CONSTANT (1) << 40, EP_DTYPE_INT32, &error);

  g_assert_null (t);
  ep_assert_error (error, EP_ERROR_INVALID_ARGUMENT, "full", "1099511627776");
}

/* A weak integer literal keeps its value exactly and refuses a type
 * that cannot hold it */
static void
test_weak_int_exact (void)
{
  const gint64 big = (G_GINT64_CONSTANT (1) << 60) + 1;
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) zero = ep_full_int (EP_SHAPE (1), 0, EP_DTYPE_INT64, &error);
  g_autoptr(EpTensor) literal = ep_tensor_new_weak_int (big);
  g_autoptr(EpTensor) sum = ep_tensor_add (zero, literal, &error);

  g_assert_no_error (error);
  ep_assert_int64_values (sum, big);
}

static void
test_weak_int_does_not_fit (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) zero = ep_zeros (EP_SHAPE (1), EP_DTYPE_INT32, &error);
  g_autoptr(EpTensor) literal = ep_tensor_new_weak_int (G_GINT64_CONSTANT (1) << 40);
  g_autoptr(EpTensor) sum = ep_tensor_add (zero, literal, &error);

  g_assert_null (sum);
  ep_assert_error (error, EP_ERROR_INVALID_ARGUMENT, "add", "1099511627776 does not fit in int32");
}

static void
test_like (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) x = ep_test_new (EP_DTYPE_INT32, EP_SHAPE (2, 3), EP_VALUES (1, 2, 3, 4, 5, 6));
  g_autoptr(EpTensor) z = ep_tensor_zeros_like (x, &error);
  g_autoptr(EpTensor) o = ep_tensor_ones_like (x, &error);
  g_autoptr(EpTensor) f = ep_tensor_full_like (x, 9.9, &error);

  g_assert_no_error (error);
  ep_assert_values (z, EP_DTYPE_INT32, EP_SHAPE (2, 3), EP_VALUES (0, 0, 0, 0, 0, 0));
  ep_assert_values (o, EP_DTYPE_INT32, EP_SHAPE (2, 3), EP_VALUES (1, 1, 1, 1, 1, 1));
  ep_assert_values (f, EP_DTYPE_INT32, EP_SHAPE (2, 3), EP_VALUES (9, 9, 9, 9, 9, 9));
  g_assert_true (ep_tensor_get_device (z) == ep_tensor_get_device (x));
  g_assert_false (ep_tensor_shares_storage (z, x));
}

static void
test_like_non_contiguous (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) x = ep_test_new_strided (EP_DTYPE_FLOAT64, EP_SHAPE (3, 1), EP_VALUES (1, 2, 3));
  g_autoptr(EpTensor) f = ep_tensor_full_like (x, 0.25, &error);

  g_assert_no_error (error);
  ep_assert_values (f, EP_DTYPE_FLOAT64, EP_SHAPE (3, 1), EP_VALUES (0.25, 0.25, 0.25));
  g_assert_true (ep_tensor_is_contiguous (f));
}

/* linspace, eye, onehot_like */

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

/* Every error path of the creation ops, with its code */
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

/* uint8: full and arange (an integer value must fit, as in NumPy 2; the
 * values of arange too: none wraps) */
static void
test_uint8_full_and_arange (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) full = ep_full (EP_SHAPE (3), 255, EP_DTYPE_UINT8, &error);
  g_autoptr(EpTensor) up = ep_arange (250, 256, 2, EP_DTYPE_UINT8, &error);
  g_autoptr(EpTensor) down = ep_arange (5, -1, -2, EP_DTYPE_UINT8, &error);
  g_autoptr(EpTensor) all = ep_arange (0, 256, 1, EP_DTYPE_UINT8, &error);

  g_assert_no_error (error);
  ep_assert_values (full, EP_DTYPE_UINT8, EP_SHAPE (3), EP_VALUES (255, 255, 255));
  ep_assert_values (up, EP_DTYPE_UINT8, EP_SHAPE (3), EP_VALUES (250, 252, 254));
  ep_assert_values (down, EP_DTYPE_UINT8, EP_SHAPE (3), EP_VALUES (5, 3, 1));
  g_assert_cmpint (ep_tensor_get_size (all), ==, 256);
}

/* int8 and int16: full of 200 as int8 is an error (as for uint8: an
 * integer must fit), -128 fits; arange's values must fit */
static void
test_narrow_signed_creation (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GError) e1 = NULL, e2 = NULL, e3 = NULL;
  g_autoptr(EpTensor) low = ep_full_int (EP_SHAPE (2), -128, EP_DTYPE_INT8, &error);
  g_autoptr(EpTensor) high = ep_full_int (EP_SHAPE (2), 32767, EP_DTYPE_INT16, &error);
  g_autoptr(EpTensor) down = ep_arange (127, 120, -3, EP_DTYPE_INT8, &error);
  g_autoptr(EpTensor) over = ep_full_int (EP_SHAPE (2), 200, EP_DTYPE_INT8, &e1);
  g_autoptr(EpTensor) under = ep_full_int (EP_SHAPE (2), -32769, EP_DTYPE_INT16, &e2);
  g_autoptr(EpTensor) beyond = ep_arange (120, 130, 1, EP_DTYPE_INT8, &e3);

  g_assert_no_error (error);
  ep_assert_values (low, EP_DTYPE_INT8, EP_SHAPE (2), EP_VALUES (-128, -128));
  ep_assert_values (high, EP_DTYPE_INT16, EP_SHAPE (2), EP_VALUES (32767, 32767));
  ep_assert_values (down, EP_DTYPE_INT8, EP_SHAPE (3), EP_VALUES (127, 124, 121));
  g_assert_null (over);
  ep_assert_error (e1, EP_ERROR_INVALID_ARGUMENT, "full", "200");
  g_assert_null (under);
  ep_assert_error (e2, EP_ERROR_INVALID_ARGUMENT, "full", "-32769");
  g_assert_null (beyond);
  ep_assert_error (e3, EP_ERROR_INVALID_ARGUMENT, "arange", "int8");
}

static void
test_uint8_creation_errors (void)
{
  g_autoptr(GError) e1 = NULL, e2 = NULL, e3 = NULL, e4 = NULL;
  g_autoptr(EpTensor) over = ep_full_int (EP_SHAPE (2), 256, EP_DTYPE_UINT8, &e1);
  g_autoptr(EpTensor) beyond = ep_arange (0, 257, 1, EP_DTYPE_UINT8, &e2);
  g_autoptr(EpTensor) negative = ep_arange (-1, 3, 1, EP_DTYPE_UINT8, &e3);
  g_autoptr(EpTensor) fractional = ep_arange (0, 3.5, 0.5, EP_DTYPE_UINT8, &e4);

  g_assert_null (over);
  ep_assert_error (e1, EP_ERROR_INVALID_ARGUMENT, "full", "256");
  g_assert_null (beyond);
  ep_assert_error (e2, EP_ERROR_INVALID_ARGUMENT, "arange", "uint8");
  g_assert_null (negative);
  ep_assert_error (e3, EP_ERROR_INVALID_ARGUMENT, "arange", "-1");
  g_assert_null (fractional);
  ep_assert_error (e4, EP_ERROR_INVALID_ARGUMENT, "arange", "integer");
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/creation/full/zeros-ones-full", test_zeros_ones_full);
  g_test_add_func ("/creation/full/nan-integer", test_full_nan_integer);
  g_test_add_func ("/creation/full/scalar-and-empty", test_full_scalar_and_empty);
  g_test_add_func ("/creation/full/negative-dimension", test_full_negative_dimension);
  g_test_add_func ("/creation/full/too-many-dimensions", test_full_too_many_dimensions);
  g_test_add_func ("/creation/full/far-too-many-dimensions", test_full_far_too_many_dimensions);
  g_test_add_func ("/creation/full/absurd-shape", test_full_absurd_shape);
  g_test_add_func ("/creation/full/empty-with-huge-extents", test_full_empty_with_huge_extents);
  g_test_add_func ("/creation/full/larger-than-memory", test_full_larger_than_memory);
  g_test_add_func ("/creation/arange/values", test_arange_values);
  g_test_add_func ("/creation/arange/int-exact", test_arange_int_exact);
  g_test_add_func ("/creation/arange/int-whole-range", test_arange_int_whole_range);
  g_test_add_func ("/creation/arange/int32-wraps", test_arange_int32_wraps);
  g_test_add_func ("/creation/arange/too-long-count", test_arange_too_long_count);
  g_test_add_func ("/creation/full/int-exact", test_full_int_exact);
  g_test_add_func ("/creation/full/int-does-not-fit", test_full_int_does_not_fit);
  g_test_add_func ("/creation/full/like-int-exact", test_full_like_int_exact);
  g_test_add_func ("/creation/weak-int/exact", test_weak_int_exact);
  g_test_add_func ("/creation/weak-int/does-not-fit", test_weak_int_does_not_fit);
  g_test_add_func ("/creation/arange/like-numpy", test_arange_like_numpy);
  g_test_add_func ("/creation/arange/empty", test_arange_empty);
  g_test_add_func ("/creation/arange/zero-step", test_arange_zero_step);
  g_test_add_func ("/creation/arange/not-finite", test_arange_not_finite);
  g_test_add_func ("/creation/arange/bool", test_arange_bool);
  g_test_add_func ("/creation/arange/absurd", test_arange_absurd);
  g_test_add_func ("/creation/like/values", test_like);
  g_test_add_func ("/creation/like/non-contiguous", test_like_non_contiguous);
  g_test_add_func ("/creation/linspace-eye-onehot", test_creation);
  g_test_add_func ("/creation/error/codes", test_error_codes);

  g_test_add_func ("/creation/uint8/full-and-arange", test_uint8_full_and_arange);
  g_test_add_func ("/creation/uint8/errors", test_uint8_creation_errors);
  g_test_add_func ("/creation/narrow-signed", test_narrow_signed_creation);

  return g_test_run ();
}
