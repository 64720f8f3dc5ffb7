/* ops/cast.c: the cast family: astype (and bool, float32, float64),
 * contiguous: values, layouts, weak scalars
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * to_device's tests need a second device, the fake one of test-device.c:
 * they are there (/device/copy/...).
 */

#include "ep-test-util.h"

/* astype */

static void
test_astype_float_to_int_truncates (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) x = ep_test_new (EP_DTYPE_FLOAT64, EP_SHAPE (4), EP_VALUES (1.9, -1.9, 0.5, -0.5));
  g_autoptr(EpTensor) i32 = ep_tensor_astype (x, EP_DTYPE_INT32, &error);
  g_autoptr(EpTensor) i64 = ep_tensor_astype (x, EP_DTYPE_INT64, &error);

  g_assert_no_error (error);
  ep_assert_values (i32, EP_DTYPE_INT32, EP_SHAPE (4), EP_VALUES (1, -1, 0, 0));
  ep_assert_values (i64, EP_DTYPE_INT64, EP_SHAPE (4), EP_VALUES (1, -1, 0, 0));
}

/* NumPy on x86-64: NaN, infinities and out-of-range give the minimum. */
static void
test_astype_special_floats_to_int (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) x = ep_test_new (EP_DTYPE_FLOAT32, EP_SHAPE (4), EP_VALUES (NAN, INFINITY, -INFINITY, 1e10));
  g_autoptr(EpTensor) i32 = ep_tensor_astype (x, EP_DTYPE_INT32, &error);

  g_assert_no_error (error);
  ep_assert_values (i32, EP_DTYPE_INT32, EP_SHAPE (4),
                    EP_VALUES (G_MININT32, G_MININT32, G_MININT32, G_MININT32));
}

static void
test_astype_to_bool (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) x = ep_test_new (EP_DTYPE_FLOAT32, EP_SHAPE (4), EP_VALUES (0, -0.0, 0.1, NAN));
  g_autoptr(EpTensor) i = ep_test_new (EP_DTYPE_INT64, EP_SHAPE (3), EP_VALUES (0, -3, 1));
  g_autoptr(EpTensor) xb = ep_tensor_astype (x, EP_DTYPE_BOOL, &error);
  g_autoptr(EpTensor) ib = ep_tensor_astype (i, EP_DTYPE_BOOL, &error);

  g_assert_no_error (error);
  ep_assert_values (xb, EP_DTYPE_BOOL, EP_SHAPE (4), EP_VALUES (0, 0, 1, 1));
  ep_assert_values (ib, EP_DTYPE_BOOL, EP_SHAPE (3), EP_VALUES (0, 1, 1));
}

static void
test_astype_from_bool (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) b = ep_test_new (EP_DTYPE_BOOL, EP_SHAPE (2), EP_VALUES (1, 0));
  g_autoptr(EpTensor) f = ep_tensor_astype (b, EP_DTYPE_FLOAT32, &error);
  g_autoptr(EpTensor) i = ep_tensor_astype (b, EP_DTYPE_INT32, &error);

  g_assert_no_error (error);
  ep_assert_values (f, EP_DTYPE_FLOAT32, EP_SHAPE (2), EP_VALUES (1, 0));
  ep_assert_values (i, EP_DTYPE_INT32, EP_SHAPE (2), EP_VALUES (1, 0));
}

static void
test_astype_int64_to_int32_wraps (void)
{
  const gint64 data[] = { G_GINT64_CONSTANT (4294967297), -1, G_GINT64_CONSTANT (2147483648) };
  g_autoptr(GBytes) bytes = g_bytes_new (data, sizeof data);
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) x = ep_tensor_new_from_bytes (bytes, EP_DTYPE_INT64, EP_SHAPE (3), &error);
  g_autoptr(EpTensor) y = ep_tensor_astype (x, EP_DTYPE_INT32, &error);

  g_assert_no_error (error);
  ep_assert_values (y, EP_DTYPE_INT32, EP_SHAPE (3), EP_VALUES (1, -1, G_MININT32));
}

/* A new tensor object on the same data: releasing it leaves @x alone. */
static void
test_astype_same_dtype_shares (void)
{
  g_autoptr(EpTensor) x = ep_test_new (EP_DTYPE_FLOAT32, EP_SHAPE (2), EP_VALUES (1, 2));
  g_autoptr(EpTensor) y = ep_tensor_astype (x, EP_DTYPE_FLOAT32, NULL);

  g_assert_true (x != y);
  g_assert_true (ep_tensor_shares_storage (x, y));
  ep_tensor_release (y);
  ep_assert_values (x, EP_DTYPE_FLOAT32, EP_SHAPE (2), EP_VALUES (1, 2));
}

static void
test_astype_non_contiguous (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) x = ep_test_new_strided (EP_DTYPE_FLOAT32, EP_SHAPE (2, 2), EP_VALUES (1.5, 2.5, -3.5, 4));
  g_autoptr(EpTensor) y = ep_tensor_astype (x, EP_DTYPE_INT64, &error);

  g_assert_no_error (error);
  ep_assert_values (y, EP_DTYPE_INT64, EP_SHAPE (2, 2), EP_VALUES (1, 2, -3, 4));
  g_assert_true (ep_tensor_is_contiguous (y));
}

static void
test_astype_weak_scalar_is_strong (void)
{
  g_autoptr(EpTensor) w = ep_tensor_new_weak_scalar (2, EP_DTYPE_INT64);
  g_autoptr(EpTensor) s = ep_tensor_astype (w, EP_DTYPE_INT64, NULL);

  g_assert_false (ep_tensor_is_weak (s));
  ep_assert_values (s, EP_DTYPE_INT64, EP_SCALAR, EP_VALUES (2));
}

/* contiguous */

/* A new tensor object on the same data: releasing it leaves @x alone. */
static void
test_contiguous_shares_when_contiguous (void)
{
  g_autoptr(EpTensor) x = ep_test_new (EP_DTYPE_FLOAT32, EP_SHAPE (2, 2), EP_VALUES (1, 2, 3, 4));
  g_autoptr(EpTensor) y = ep_tensor_contiguous (x, NULL);

  g_assert_true (x != y);
  g_assert_true (ep_tensor_shares_storage (x, y));
  ep_tensor_release (y);
  ep_assert_values (x, EP_DTYPE_FLOAT32, EP_SHAPE (2, 2), EP_VALUES (1, 2, 3, 4));
}

static void
test_contiguous_copies_views (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) x = ep_test_new (EP_DTYPE_INT64, EP_SHAPE (2, 3), EP_VALUES (1, 2, 3, 4, 5, 6));
  g_autoptr(EpTensor) t = ep_tensor_transpose (x, NULL, 0, &error);
  g_autoptr(EpTensor) c = ep_tensor_contiguous (t, &error);
  guint ndim;
  const gint64 *strides;

  g_assert_no_error (error);
  g_assert_false (ep_tensor_is_contiguous (t));
  g_assert_true (ep_tensor_is_contiguous (c));
  g_assert_false (ep_tensor_shares_storage (c, x));
  ep_assert_values (c, EP_DTYPE_INT64, EP_SHAPE (3, 2), EP_VALUES (1, 4, 2, 5, 3, 6));
  strides = ep_tensor_get_strides (c, &ndim);
  g_assert_cmpint (strides[0], ==, 2);
  g_assert_cmpint (strides[1], ==, 1);
}

/* bool, float64, float32 */

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

/* uint8: floats truncate toward zero to int32 and keep the low 8 bits
 * (NumPy on x86-64), NaN, the infinities and what int32 does not hold
 * give 0; integers wrap. */
static void
test_astype_float_to_uint8_edges (void)
{
  g_autoptr(GError) error = NULL;
  const gdouble x[] = { 255, 256, -1, NAN, INFINITY, -INFINITY, 300.7, 0.9, -0.9, 1e30, 2147483648.0 + 512 };
  const gdouble want[] = { 255, 0, 255, 0, 0, 0, 44, 0, 0, 0, 0 };

  for (EpDType from = EP_DTYPE_FLOAT32; from <= EP_DTYPE_FLOAT64; from++)
    {
      g_autoptr(EpTensor) t = ep_test_vector (x, G_N_ELEMENTS (x), from);
      g_autoptr(EpTensor) u = ep_tensor_astype (t, EP_DTYPE_UINT8, &error);

      g_assert_no_error (error);
      ep_test_assert_values_ (__FILE__, __LINE__, G_STRFUNC, u, EP_DTYPE_UINT8, EP_SHAPE (11),
                              want, G_N_ELEMENTS (want));
    }
}

/* int8 and int16: floats go through int32 too (300.7 gives 44 as int8,
 * 200 gives -56); integers wrap; each value survives a round trip
 * through every wider type. */
static void
test_astype_narrow_signed (void)
{
  g_autoptr(GError) error = NULL;
  const gdouble x[] = { 127, 128, -129, NAN, INFINITY, 300.7, -0.9, 200, 40000, -40000 };
  const gdouble want8[] = { 127, -128, 127, 0, 0, 44, 0, -56, 64, -64 };
  const gdouble want16[] = { 127, 128, -129, 0, 0, 300, 0, 200, -25536, 25536 };
  g_autoptr(EpTensor) t = ep_test_vector (x, G_N_ELEMENTS (x), EP_DTYPE_FLOAT64);
  g_autoptr(EpTensor) i8 = ep_tensor_astype (t, EP_DTYPE_INT8, &error);
  g_autoptr(EpTensor) i16 = ep_tensor_astype (t, EP_DTYPE_INT16, &error);
  g_autoptr(EpTensor) all = ep_arange (-32768, 32768, 1, EP_DTYPE_INT16, &error);

  g_assert_no_error (error);
  ep_test_assert_values_ (__FILE__, __LINE__, G_STRFUNC, i8, EP_DTYPE_INT8, EP_SHAPE (10), want8, 10);
  ep_test_assert_values_ (__FILE__, __LINE__, G_STRFUNC, i16, EP_DTYPE_INT16, EP_SHAPE (10), want16, 10);
  for (EpDType wide = EP_DTYPE_FLOAT32; wide <= EP_DTYPE_INT64; wide++)
    {
      g_autoptr(EpTensor) there = ep_tensor_astype (all, wide, &error);
      g_autoptr(EpTensor) back = ep_tensor_astype (there, EP_DTYPE_INT16, &error);
      g_autoptr(EpTensor) same = ep_tensor_equal (back, all, &error);
      g_autoptr(EpTensor) every = ep_tensor_all (same, NULL, 0, FALSE, &error);

      g_assert_no_error (error);
      g_assert_true (ep_tensor_item_boolean (every, &error));
    }
}

static void
test_astype_int_to_uint8_wraps (void)
{
  g_autoptr(GError) error = NULL;
  const gint64 data[] = { 256, -1, 511, G_MININT64, G_MAXINT64, 7 };
  g_autoptr(EpTensor) i64 = ep_tensor_new_from_data (data, sizeof data, EP_DTYPE_INT64, EP_SHAPE (6), &error);
  g_autoptr(EpTensor) i32 = ep_tensor_astype (i64, EP_DTYPE_INT32, &error);
  g_autoptr(EpTensor) from64 = ep_tensor_astype (i64, EP_DTYPE_UINT8, &error);
  g_autoptr(EpTensor) from32 = ep_tensor_astype (i32, EP_DTYPE_UINT8, &error);

  g_assert_no_error (error);
  ep_assert_values (from64, EP_DTYPE_UINT8, EP_SHAPE (6), EP_VALUES (0, 255, 255, 0, 255, 7));
  ep_assert_values (from32, EP_DTYPE_UINT8, EP_SHAPE (6), EP_VALUES (0, 255, 255, 0, 255, 7));
}

static void
test_astype_from_uint8 (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) u = ep_test_new (EP_DTYPE_UINT8, EP_SHAPE (3), EP_VALUES (0, 1, 255));

  for (EpDType to = EP_DTYPE_FLOAT32; to <= EP_DTYPE_INT64; to++)
    {
      g_autoptr(EpTensor) t = ep_tensor_astype (u, to, &error);

      g_assert_no_error (error);
      ep_test_assert_values_ (__FILE__, __LINE__, G_STRFUNC, t, to, EP_SHAPE (3), EP_VALUES (0, 1, 255));
    }

  {
    g_autoptr(EpTensor) b = ep_tensor_astype (u, EP_DTYPE_BOOL, &error);
    g_autoptr(EpTensor) back = ep_tensor_astype (b, EP_DTYPE_UINT8, &error);

    g_assert_no_error (error);
    ep_assert_values (b, EP_DTYPE_BOOL, EP_SHAPE (3), EP_VALUES (0, 1, 1));
    ep_assert_values (back, EP_DTYPE_UINT8, EP_SHAPE (3), EP_VALUES (0, 1, 1));
  }

  {
    const guint8 byte = 255;
    g_autoptr(EpTensor) scalar = ep_tensor_new_from_data (&byte, 1, EP_DTYPE_UINT8, NULL, 0, &error);

    g_assert_no_error (error);
    g_assert_cmpint (ep_tensor_item_int64 (scalar, &error), ==, 255);
    g_assert_cmpfloat (ep_tensor_item_double (scalar, &error), ==, 255.0);
    g_assert_no_error (error);
  }
}

/* Views and copies move uint8 bytes as they are. */
static void
test_uint8_views_and_copies (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) u = ep_test_new (EP_DTYPE_UINT8, EP_SHAPE (2, 3), EP_VALUES (0, 1, 2, 253, 254, 255));
  g_autoptr(EpTensor) t = ep_tensor_transpose (u, NULL, 0, &error);
  g_autoptr(EpTensor) c = ep_tensor_contiguous (t, &error);
  g_autofree char *text = NULL;

  g_assert_no_error (error);
  ep_assert_values (c, EP_DTYPE_UINT8, EP_SHAPE (3, 2), EP_VALUES (0, 253, 1, 254, 2, 255));
  text = ep_tensor_to_string (u, &error);
  g_assert_cmpstr (text, ==, "[[  0   1   2]\n [253 254 255]]");
}

/* The ops that compute refuse uint8 for now, with a clear error. */
static void
test_uint8_refused_by_computing_ops (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GError) error2 = NULL;
  g_autoptr(EpTensor) u = ep_test_new (EP_DTYPE_UINT8, EP_SHAPE (2), EP_VALUES (1, 2));
  g_autoptr(EpTensor) sum = ep_tensor_exp (u, &error);
  g_autoptr(EpTensor) full = ep_linspace (0, 1, 2, TRUE, EP_DTYPE_UINT8, &error2);

  g_assert_null (sum);
  ep_assert_error (error, EP_ERROR_DTYPE, "exp", "uint8");
  g_assert_null (full);
  ep_assert_error (error2, EP_ERROR_DTYPE, "linspace", "uint8");
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/cast/astype/float-to-int-truncates", test_astype_float_to_int_truncates);
  g_test_add_func ("/cast/astype/special-floats-to-int", test_astype_special_floats_to_int);
  g_test_add_func ("/cast/astype/to-bool", test_astype_to_bool);
  g_test_add_func ("/cast/astype/from-bool", test_astype_from_bool);
  g_test_add_func ("/cast/astype/int64-to-int32-wraps", test_astype_int64_to_int32_wraps);
  g_test_add_func ("/cast/astype/same-dtype-shares", test_astype_same_dtype_shares);
  g_test_add_func ("/cast/astype/non-contiguous", test_astype_non_contiguous);
  g_test_add_func ("/cast/astype/weak-scalar-becomes-strong", test_astype_weak_scalar_is_strong);
  g_test_add_func ("/cast/contiguous/shares-when-contiguous", test_contiguous_shares_when_contiguous);
  g_test_add_func ("/cast/contiguous/copies-views", test_contiguous_copies_views);
  g_test_add_func ("/cast/bool-float64-float32", test_bool_float64_float32);
  g_test_add_func ("/cast/astype/float-to-uint8-edges", test_astype_float_to_uint8_edges);
  g_test_add_func ("/cast/astype/int-to-uint8-wraps", test_astype_int_to_uint8_wraps);
  g_test_add_func ("/cast/astype/from-uint8", test_astype_from_uint8);
  g_test_add_func ("/cast/uint8/views-and-copies", test_uint8_views_and_copies);
  g_test_add_func ("/cast/uint8/refused-by-computing-ops", test_uint8_refused_by_computing_ops);
  g_test_add_func ("/cast/astype/narrow-signed", test_astype_narrow_signed);

  return g_test_run ();
}
