/* test-tensor.c: tensors themselves: construction from doubles, bytes
 * and scalars, accessors, dtypes, to_bytes, item, to_string, releasing,
 * and the checks of what callers pass (invalid dtypes, NULL)
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The ops' own tests are in ops/<family>.c.
 */

#include "ep-test-util.h"

/* new_from_doubles */

static void
test_from_doubles_float32 (void)
{
  g_autoptr(EpTensor) t = ep_test_new (EP_DTYPE_FLOAT32, EP_SHAPE (2, 3), EP_VALUES (1, 2.5, -3, 0, 1e-3, 7));

  ep_assert_values (t, EP_DTYPE_FLOAT32, EP_SHAPE (2, 3), EP_VALUES (1, 2.5, -3, 0, 1e-3, 7));
  g_assert_true (ep_tensor_is_contiguous (t));
  g_assert_false (ep_tensor_is_weak (t));
}

static void
test_from_doubles_rounds_to_float32 (void)
{
  g_autoptr(EpTensor) t = ep_test_new (EP_DTYPE_FLOAT32, EP_SHAPE (1), EP_VALUES (0.1));

  g_assert_cmpfloat (ep_tensor_item_double (t, NULL), ==, (gdouble) 0.1f);
}

static void
test_from_doubles_float64 (void)
{
  g_autoptr(EpTensor) t = ep_test_new (EP_DTYPE_FLOAT64, EP_SHAPE (3), EP_VALUES (0.1, 1e300, -0.0));

  ep_assert_values (t, EP_DTYPE_FLOAT64, EP_SHAPE (3), EP_VALUES (0.1, 1e300, 0));
}

static void
test_from_doubles_integers_truncate (void)
{
  g_autoptr(EpTensor) i32 = ep_test_new (EP_DTYPE_INT32, EP_SHAPE (4), EP_VALUES (1.7, -1.7, 2147483647, -2147483648.0));
  g_autoptr(EpTensor) i64 = ep_test_new (EP_DTYPE_INT64, EP_SHAPE (3), EP_VALUES (1.7, -1.7, 4e15));

  ep_assert_values (i32, EP_DTYPE_INT32, EP_SHAPE (4), EP_VALUES (1, -1, 2147483647, -2147483648.0));
  ep_assert_values (i64, EP_DTYPE_INT64, EP_SHAPE (3), EP_VALUES (1, -1, 4e15));
}

static void
test_from_doubles_bool (void)
{
  g_autoptr(EpTensor) t = ep_test_new (EP_DTYPE_BOOL, EP_SHAPE (4), EP_VALUES (0, 2, -0.5, NAN));

  ep_assert_values (t, EP_DTYPE_BOOL, EP_SHAPE (4), EP_VALUES (0, 1, 1, 1));
}

static void
test_from_doubles_empty (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) t = ep_tensor_new_from_doubles (NULL, 0, EP_SHAPE (0, 3), EP_DTYPE_FLOAT32, &error);

  g_assert_no_error (error);
  ep_assert_shape (t, EP_SHAPE (0, 3));
  g_assert_cmpint (ep_tensor_get_size (t), ==, 0);
}

static void
test_from_doubles_length_mismatch (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) t = ep_tensor_new_from_doubles ((const gdouble[]) { 1, 2, 3, 4, 5 }, 5,
                                                      EP_SHAPE (2, 3), EP_DTYPE_FLOAT32, &error);

  g_assert_null (t);
  ep_assert_error (error, EP_ERROR_SHAPE, "new_from_doubles", "5 values given, shape (2, 3) has 6");
}

static void
test_from_doubles_negative_dimension (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) t = ep_tensor_new_from_doubles (NULL, 0, EP_SHAPE (2, -1), EP_DTYPE_FLOAT32, &error);

  g_assert_null (t);
  ep_assert_error (error, EP_ERROR_SHAPE, "new_from_doubles", "-1");
}

static void
test_from_doubles_too_many_dimensions (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) t = ep_tensor_new_from_doubles (EP_VALUES (1), EP_SHAPE (1, 1, 1, 1, 1, 1, 1, 1, 1),
                                                      EP_DTYPE_FLOAT32, &error);

  g_assert_null (t);
  ep_assert_error (error, EP_ERROR_SHAPE, "new_from_doubles", "9 dimensions");
}

static void
test_from_doubles_eight_dimensions (void)
{
  g_autoptr(EpTensor) t = ep_test_new (EP_DTYPE_FLOAT32, EP_SHAPE (1, 1, 1, 1, 1, 1, 1, 2), EP_VALUES (1, 2));

  g_assert_cmpuint (ep_tensor_get_ndim (t), ==, EP_MAX_DIMS);
}

static void
test_from_doubles_absurd_shape (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) t = ep_tensor_new_from_doubles (EP_VALUES (1), EP_SHAPE (EP_TERA, EP_TERA),
                                                      EP_DTYPE_FLOAT32, &error);

  g_assert_null (t);
  ep_assert_error (error, EP_ERROR_OUT_OF_MEMORY, "new_from_doubles", NULL);
}

/* new_from_bytes */

static void
test_from_bytes_values (void)
{
  const gint32 ints[] = { 1, -2, 3, G_MAXINT32, G_MININT32, 0 };
  const gint64 longs[] = { G_MAXINT64, G_MININT64, (G_GINT64_CONSTANT (1) << 53) + 1 };
  const gfloat floats[] = { 0.5f, -1.25f };
  const gdouble doubles[] = { 0.1, -1e-300 };
  const guint8 bools[] = { 1, 0, 1 };
  g_autoptr(GBytes) b_ints = g_bytes_new (ints, sizeof ints);
  g_autoptr(GBytes) b_longs = g_bytes_new (longs, sizeof longs);
  g_autoptr(GBytes) b_floats = g_bytes_new (floats, sizeof floats);
  g_autoptr(GBytes) b_doubles = g_bytes_new (doubles, sizeof doubles);
  g_autoptr(GBytes) b_bools = g_bytes_new (bools, sizeof bools);
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) ti = ep_tensor_new_from_bytes (b_ints, EP_DTYPE_INT32, EP_SHAPE (3, 2), &error);
  g_autoptr(EpTensor) tl = ep_tensor_new_from_bytes (b_longs, EP_DTYPE_INT64, EP_SHAPE (3), &error);
  g_autoptr(EpTensor) tf = ep_tensor_new_from_bytes (b_floats, EP_DTYPE_FLOAT32, EP_SHAPE (2), &error);
  g_autoptr(EpTensor) td = ep_tensor_new_from_bytes (b_doubles, EP_DTYPE_FLOAT64, EP_SHAPE (2, 1), &error);
  g_autoptr(EpTensor) tb = ep_tensor_new_from_bytes (b_bools, EP_DTYPE_BOOL, EP_SHAPE (3), &error);
  g_autoptr(GBytes) back = NULL;

  g_assert_no_error (error);
  ep_assert_values (ti, EP_DTYPE_INT32, EP_SHAPE (3, 2), EP_VALUES (1, -2, 3, G_MAXINT32, G_MININT32, 0));
  ep_assert_values (tf, EP_DTYPE_FLOAT32, EP_SHAPE (2), EP_VALUES (0.5, -1.25));
  ep_assert_values (td, EP_DTYPE_FLOAT64, EP_SHAPE (2, 1), EP_VALUES (0.1, -1e-300));
  ep_assert_values (tb, EP_DTYPE_BOOL, EP_SHAPE (3), EP_VALUES (1, 0, 1));
  /* int64 beyond 2^53: compare the bytes, doubles cannot hold them */
  back = ep_tensor_to_bytes (tl, &error);
  g_assert_no_error (error);
  g_assert_true (g_bytes_equal (back, b_longs));
}

static void
test_from_bytes_is_zero_copy (void)
{
  g_autofree gfloat *data = g_new (gfloat, 4);  /* malloc alignment suffices */
  g_autoptr(GBytes) bytes = NULL;
  g_autoptr(GBytes) back = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) t = NULL;

  for (guint i = 0; i < 4; i++)
    data[i] = i;
  bytes = g_bytes_new_static (data, 4 * sizeof (gfloat));
  t = ep_tensor_new_from_bytes (bytes, EP_DTYPE_FLOAT32, EP_SHAPE (2, 2), &error);
  g_assert_no_error (error);
  back = ep_tensor_to_bytes (t, &error);
  g_assert_no_error (error);

  g_assert_true (g_bytes_get_data (back, NULL) == (gconstpointer) data);
}

static void
test_from_bytes_unaligned_copies (void)
{
  g_autofree guint8 *buffer = g_new0 (guint8, 1 + 2 * sizeof (gint32));
  const gint32 values[] = { 7, -8 };
  g_autoptr(GBytes) bytes = NULL;
  g_autoptr(GBytes) back = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) t = NULL;

  memcpy (buffer + 1, values, sizeof values);
  bytes = g_bytes_new_static (buffer + 1, sizeof values);
  t = ep_tensor_new_from_bytes (bytes, EP_DTYPE_INT32, EP_SHAPE (2), &error);
  g_assert_no_error (error);

  ep_assert_values (t, EP_DTYPE_INT32, EP_SHAPE (2), EP_VALUES (7, -8));
  back = ep_tensor_to_bytes (t, &error);
  g_assert_true (g_bytes_get_data (back, NULL) != (gconstpointer) (buffer + 1));
}

static void
release_flag (gpointer data)
{
  *(gboolean *) data = TRUE;
}

static void
test_from_bytes_keeps_and_releases_data (void)
{
  static gdouble data[2] = { 1, 2 };
  gboolean released = FALSE;
  GBytes *bytes = g_bytes_new_with_free_func (data, sizeof data, release_flag, &released);
  g_autoptr(GError) error = NULL;
  EpTensor *t = ep_tensor_new_from_bytes (bytes, EP_DTYPE_FLOAT64, EP_SHAPE (2), &error);
  EpTensor *view = NULL;

  g_assert_no_error (error);
  g_bytes_unref (bytes);
  g_assert_false (released);

  view = ep_tensor_expand_dims (t, 0, &error);
  g_assert_no_error (error);
  g_assert_finalize_object (t);
  g_assert_false (released);
  ep_assert_values (view, EP_DTYPE_FLOAT64, EP_SHAPE (1, 2), EP_VALUES (1, 2));

  g_assert_finalize_object (view);
  g_assert_true (released);
}

static void
test_from_bytes_length_mismatch (void)
{
  g_autoptr(GBytes) bytes = g_bytes_new_static ("0123456789", 10);
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) t = ep_tensor_new_from_bytes (bytes, EP_DTYPE_FLOAT32, EP_SHAPE (3), &error);

  g_assert_null (t);
  ep_assert_error (error, EP_ERROR_SHAPE, "new_from_bytes", "10 bytes given");
  g_assert_nonnull (strstr (error->message, "needs 12"));
}

static void
test_from_bytes_absurd_shape (void)
{
  g_autoptr(GBytes) bytes = g_bytes_new_static ("0123", 4);
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) t = ep_tensor_new_from_bytes (bytes, EP_DTYPE_FLOAT32, EP_SHAPE (EP_TERA, EP_TERA), &error);

  g_assert_null (t);
  ep_assert_error (error, EP_ERROR_OUT_OF_MEMORY, "new_from_bytes", NULL);
}

static void
test_from_bytes_too_many_dimensions (void)
{
  g_autoptr(GBytes) bytes = g_bytes_new_static ("0123", 4);
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) t = ep_tensor_new_from_bytes (bytes, EP_DTYPE_FLOAT32,
                                                    EP_SHAPE (1, 1, 1, 1, 1, 1, 1, 1, 1), &error);

  g_assert_null (t);
  ep_assert_error (error, EP_ERROR_SHAPE, "new_from_bytes", "9 dimensions");
}

static void
test_from_bytes_empty (void)
{
  g_autoptr(GBytes) bytes = g_bytes_new (NULL, 0);
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) t = ep_tensor_new_from_bytes (bytes, EP_DTYPE_INT64, EP_SHAPE (2, 0), &error);
  g_autoptr(GBytes) back = NULL;

  g_assert_no_error (error);
  ep_assert_shape (t, EP_SHAPE (2, 0));
  back = ep_tensor_to_bytes (t, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (g_bytes_get_size (back), ==, 0);
}

/* An empty tensor's other extents may be anything: its strides and
 * their check must not overflow (found by fuzz-tensor-bytes, a UBSan
 * report in ep_layout_is_contiguous) */
static void
test_from_bytes_empty_huge_extents (void)
{
  g_autoptr(GBytes) bytes = g_bytes_new (NULL, 0);
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) t = ep_tensor_new_from_bytes (bytes, EP_DTYPE_INT64,
                                                    EP_SHAPE (0, G_GINT64_CONSTANT (7277364801031158372), 6),
                                                    &error);
  g_autoptr(GBytes) back = NULL;

  g_assert_no_error (error);
  g_assert_true (ep_tensor_is_contiguous (t));
  back = ep_tensor_to_bytes (t, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (g_bytes_get_size (back), ==, 0);
}

/* scalars */

static void
test_new_scalar (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) f = ep_tensor_new_scalar (2.5, EP_DTYPE_FLOAT32, &error);
  g_autoptr(EpTensor) i = ep_tensor_new_scalar (-2.5, EP_DTYPE_INT32, &error);

  g_assert_no_error (error);
  ep_assert_values (f, EP_DTYPE_FLOAT32, EP_SCALAR, EP_VALUES (2.5));
  ep_assert_values (i, EP_DTYPE_INT32, EP_SCALAR, EP_VALUES (-2));
  g_assert_cmpint (ep_tensor_get_size (f), ==, 1);
  g_assert_false (ep_tensor_is_weak (f));
}

static void
test_new_weak_scalar (void)
{
  struct { EpDType kind; EpDType dtype; } cases[] = {
    { EP_DTYPE_FLOAT32, EP_DTYPE_FLOAT64 },
    { EP_DTYPE_FLOAT64, EP_DTYPE_FLOAT64 },
    { EP_DTYPE_INT32, EP_DTYPE_INT64 },
    { EP_DTYPE_INT64, EP_DTYPE_INT64 },
    { EP_DTYPE_BOOL, EP_DTYPE_BOOL },
  };

  for (guint c = 0; c < G_N_ELEMENTS (cases); c++)
    {
      g_autoptr(EpTensor) t = ep_tensor_new_weak_scalar (3, cases[c].kind);

      g_assert_true (ep_tensor_is_weak (t));
      ep_assert_values (t, cases[c].dtype, EP_SCALAR, EP_VALUES (cases[c].kind == EP_DTYPE_BOOL ? 1 : 3));
      g_assert_true (ep_tensor_get_device (t) == ep_device_get_default ());
    }
}

/* accessors */

static void
test_properties (void)
{
  g_autoptr(EpTensor) t = ep_test_new (EP_DTYPE_INT64, EP_SHAPE (2, 3, 4), EP_VALUES (
    0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23));
  g_autoptr(EpDevice) device = NULL;
  EpDType dtype;
  guint ndim;
  gint64 size;

  g_object_get (t, "dtype", &dtype, "ndim", &ndim, "size", &size, "device", &device, NULL);
  g_assert_cmpint (dtype, ==, EP_DTYPE_INT64);
  g_assert_cmpuint (ndim, ==, 3);
  g_assert_cmpint (size, ==, 24);
  g_assert_true (device == ep_device_get_default ());
}

static void
test_contiguous_strides (void)
{
  g_autoptr(EpTensor) t = ep_zeros (EP_SHAPE (2, 3, 4), EP_DTYPE_FLOAT32, NULL);
  guint ndim;
  const gint64 *strides = ep_tensor_get_strides (t, &ndim);

  g_assert_cmpuint (ndim, ==, 3);
  g_assert_cmpint (strides[0], ==, 12);
  g_assert_cmpint (strides[1], ==, 4);
  g_assert_cmpint (strides[2], ==, 1);
}

static void
test_dtype_info (void)
{
  g_assert_cmpstr (ep_dtype_get_name (EP_DTYPE_FLOAT32), ==, "float32");
  g_assert_cmpstr (ep_dtype_get_name (EP_DTYPE_FLOAT64), ==, "float64");
  g_assert_cmpstr (ep_dtype_get_name (EP_DTYPE_INT32), ==, "int32");
  g_assert_cmpstr (ep_dtype_get_name (EP_DTYPE_INT64), ==, "int64");
  g_assert_cmpstr (ep_dtype_get_name (EP_DTYPE_BOOL), ==, "bool");
  g_assert_cmpuint (ep_dtype_get_itemsize (EP_DTYPE_FLOAT32), ==, 4);
  g_assert_cmpuint (ep_dtype_get_itemsize (EP_DTYPE_FLOAT64), ==, 8);
  g_assert_cmpuint (ep_dtype_get_itemsize (EP_DTYPE_INT32), ==, 4);
  g_assert_cmpuint (ep_dtype_get_itemsize (EP_DTYPE_INT64), ==, 8);
  g_assert_cmpuint (ep_dtype_get_itemsize (EP_DTYPE_BOOL), ==, 1);
  g_assert_true (ep_dtype_is_floating (EP_DTYPE_FLOAT64));
  g_assert_false (ep_dtype_is_floating (EP_DTYPE_INT32));
  g_assert_true (ep_dtype_is_integer (EP_DTYPE_INT64));
  g_assert_false (ep_dtype_is_integer (EP_DTYPE_BOOL));
}

/* NumPy's np.promote_types over our eight types. */
static void
test_dtype_promote_table (void)
{
#define F32 EP_DTYPE_FLOAT32
#define F64 EP_DTYPE_FLOAT64
#define I32 EP_DTYPE_INT32
#define I64 EP_DTYPE_INT64
#define B EP_DTYPE_BOOL
#define U8 EP_DTYPE_UINT8
#define I8 EP_DTYPE_INT8
#define I16 EP_DTYPE_INT16
  static const EpDType numpy[8][8] = {
    /*          F32  F64  I32  I64  B    U8   I8   I16 */
    /* F32 */ { F32, F64, F64, F64, F32, F32, F32, F32 },
    /* F64 */ { F64, F64, F64, F64, F64, F64, F64, F64 },
    /* I32 */ { F64, F64, I32, I64, I32, I32, I32, I32 },
    /* I64 */ { F64, F64, I64, I64, I64, I64, I64, I64 },
    /* B   */ { F32, F64, I32, I64, B,   U8,  I8,  I16 },
    /* U8  */ { F32, F64, I32, I64, U8,  U8,  I16, I16 },
    /* I8  */ { F32, F64, I32, I64, I8,  I16, I8,  I16 },
    /* I16 */ { F32, F64, I32, I64, I16, I16, I16, I16 },
  };
#undef F32
#undef F64
#undef I32
#undef I64
#undef B
#undef U8
#undef I8
#undef I16

  for (guint a = 0; a < 8; a++)
    for (guint b = 0; b < 8; b++)
      {
        g_test_message ("%s, %s", ep_dtype_get_name (a), ep_dtype_get_name (b));
        g_assert_cmpint (ep_dtype_promote (a, b), ==, numpy[a][b]);
      }
}

/* The names, sizes and kinds of int8 and int16, and that 8 is no dtype
 * (yet) for the checks */
static void
test_dtype_narrow_ints (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) bad = NULL;

  g_assert_cmpstr (ep_dtype_get_name (EP_DTYPE_INT8), ==, "int8");
  g_assert_cmpstr (ep_dtype_get_name (EP_DTYPE_INT16), ==, "int16");
  g_assert_cmpuint (ep_dtype_get_itemsize (EP_DTYPE_INT8), ==, 1);
  g_assert_cmpuint (ep_dtype_get_itemsize (EP_DTYPE_INT16), ==, 2);
  g_assert_true (ep_dtype_is_integer (EP_DTYPE_INT8) && ep_dtype_is_integer (EP_DTYPE_INT16));
  g_assert_false (ep_dtype_is_floating (EP_DTYPE_INT16));
  bad = ep_zeros (EP_SHAPE (2), (EpDType) (EP_DTYPE_BFLOAT16 + 1), &error);
  g_assert_null (bad);
  ep_assert_error (error, EP_ERROR_DTYPE, "zeros", "10");
}

/* to_bytes */

static void
test_to_bytes_zero_copy (void)
{
  g_autoptr(GError) error = NULL;
  EpTensor *t = ep_full (EP_SHAPE (3), 1.5, EP_DTYPE_FLOAT64, &error);
  g_autoptr(GBytes) bytes = ep_tensor_to_bytes (t, &error);
  const gdouble *data;
  gsize size;

  g_assert_no_error (error);
  g_assert_true (g_bytes_get_data (bytes, NULL) == ep_tensor_host_data (t));

  /* the bytes keep the data alive after the tensor is gone */
  g_assert_finalize_object (t);
  data = g_bytes_get_data (bytes, &size);
  g_assert_cmpuint (size, ==, 3 * sizeof (gdouble));
  g_assert_cmpfloat (data[2], ==, 1.5);
}

static void
test_to_bytes_non_contiguous (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) x = ep_test_new (EP_DTYPE_INT32, EP_SHAPE (2, 3), EP_VALUES (1, 2, 3, 4, 5, 6));
  g_autoptr(EpTensor) t = ep_tensor_transpose (x, NULL, 0, &error);
  g_autoptr(GBytes) bytes = ep_tensor_to_bytes (t, &error);
  const gint32 want[] = { 1, 4, 2, 5, 3, 6 };
  gsize size;
  const gint32 *data;

  g_assert_no_error (error);
  data = g_bytes_get_data (bytes, &size);
  g_assert_cmpmem (data, size, want, sizeof want);
}

static void
test_to_bytes_strided_with_offset (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) x = ep_test_new_strided (EP_DTYPE_FLOAT32, EP_SHAPE (3), EP_VALUES (1, 2, 3));
  g_autoptr(GBytes) bytes = ep_tensor_to_bytes (x, &error);
  const gfloat want[] = { 1, 2, 3 };
  gsize size;
  gconstpointer data;

  g_assert_no_error (error);
  g_assert_false (ep_tensor_is_contiguous (x));
  data = g_bytes_get_data (bytes, &size);
  g_assert_cmpmem (data, size, want, sizeof want);
}

/* One element at an offset is contiguous: no copy, and the offset is
 * honoured. */
static void
test_to_bytes_single_element_at_offset (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) x = ep_test_new_strided (EP_DTYPE_INT64, EP_SHAPE (1, 1), EP_VALUES (-5));
  g_autoptr(GBytes) bytes = ep_tensor_to_bytes (x, &error);
  const gint64 want = -5;
  gsize size;
  gconstpointer data;

  g_assert_no_error (error);
  g_assert_true (ep_tensor_is_contiguous (x));
  data = g_bytes_get_data (bytes, &size);
  g_assert_true (data == ep_tensor_host_data (x));
  g_assert_cmpmem (data, size, &want, sizeof want);
}

/* item */

static void
test_item (void)
{
  g_autoptr(EpTensor) f = ep_test_new (EP_DTYPE_FLOAT32, EP_SHAPE (1, 1), EP_VALUES (-2.75));
  g_autoptr(EpTensor) i = ep_test_new (EP_DTYPE_INT32, EP_SCALAR, EP_VALUES (-7));
  g_autoptr(EpTensor) b = ep_test_new (EP_DTYPE_BOOL, EP_SHAPE (1), EP_VALUES (1));
  g_autoptr(GError) error = NULL;

  g_assert_cmpfloat (ep_tensor_item_double (f, &error), ==, -2.75);
  g_assert_cmpint (ep_tensor_item_int64 (f, &error), ==, -2);
  g_assert_true (ep_tensor_item_boolean (f, &error));
  g_assert_cmpfloat (ep_tensor_item_double (i, &error), ==, -7);
  g_assert_cmpint (ep_tensor_item_int64 (i, &error), ==, -7);
  g_assert_cmpfloat (ep_tensor_item_double (b, &error), ==, 1);
  g_assert_cmpint (ep_tensor_item_int64 (b, &error), ==, 1);
  g_assert_true (ep_tensor_item_boolean (b, &error));
  g_assert_no_error (error);
}

/* An int64 element comes back bit for bit, never through a double:
 * 2^53 + 1 is the first integer a double cannot hold. */
static EpTensor *
int64_scalar (gint64 value)
{
  g_autoptr(GError) error = NULL;
  EpTensor *t = ep_tensor_new_from_data (&value, sizeof value, EP_DTYPE_INT64, NULL, 0, &error);

  g_assert_no_error (error);
  return t;
}

static void
test_item_int64_is_exact (void)
{
  const gint64 values[] = {
    (G_GINT64_CONSTANT (1) << 53) + 1, -(G_GINT64_CONSTANT (1) << 53) - 1,
    (G_GINT64_CONSTANT (1) << 62) + 1, G_MAXINT64, G_MININT64, G_MAXINT64 - 1,
  };

  for (guint i = 0; i < G_N_ELEMENTS (values); i++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(EpTensor) t = int64_scalar (values[i]);
      g_autoptr(EpTensor) column = ep_tensor_reshape (t, EP_SHAPE (1, 1), &error);

      g_assert_cmpint (ep_tensor_item_int64 (t, &error), ==, values[i]);
      g_assert_cmpint (ep_tensor_item_int64 (column, &error), ==, values[i]);
      g_assert_no_error (error);
    }
}

/* item_double rounds an int64 beyond 2^53 to the nearest double, as
 * documented; item_boolean of an int64 looks at every bit. */
static void
test_item_of_large_int64 (void)
{
  g_autoptr(EpTensor) t = int64_scalar ((G_GINT64_CONSTANT (1) << 53) + 1);
  g_autoptr(EpTensor) high = int64_scalar (G_GINT64_CONSTANT (1) << 40);
  g_autoptr(GError) error = NULL;

  g_assert_cmpfloat (ep_tensor_item_double (t, &error), ==, 9007199254740992.0);
  g_assert_true (ep_tensor_item_boolean (high, &error));
  g_assert_no_error (error);
}

/* Floats truncate toward zero; -2^63 is the last one in range. */
static void
test_item_int64_of_floats (void)
{
  static const struct { EpDType dtype; gdouble value; gint64 want; } cases[] = {
    { EP_DTYPE_FLOAT32, 2.75, 2 },
    { EP_DTYPE_FLOAT32, -2.75, -2 },
    { EP_DTYPE_FLOAT64, -0.5, 0 },
    { EP_DTYPE_FLOAT64, 4503599627370497.0, G_GINT64_CONSTANT (4503599627370497) },
    { EP_DTYPE_FLOAT64, -9223372036854775808.0, G_MININT64 },
    { EP_DTYPE_FLOAT64, 9223372036854774784.0, G_GINT64_CONSTANT (9223372036854774784) },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(EpTensor) t = ep_test_new (cases[i].dtype, EP_SCALAR, &cases[i].value, 1);

      g_test_message ("case %u", i);
      g_assert_cmpint (ep_tensor_item_int64 (t, &error), ==, cases[i].want);
      g_assert_no_error (error);
    }
}

/* A float without an int64 value is an error, not the most negative
 * int64 that astype gives. */
static void
test_item_int64_of_nan_and_inf (void)
{
  static const struct { EpDType dtype; gdouble value; const char *text; } cases[] = {
    { EP_DTYPE_FLOAT32, NAN, "nan" },
    { EP_DTYPE_FLOAT64, NAN, "nan" },
    { EP_DTYPE_FLOAT32, INFINITY, "inf" },
    { EP_DTYPE_FLOAT64, -INFINITY, "-inf" },
    { EP_DTYPE_FLOAT64, 9223372036854775808.0, "9.22337e+18" },
    { EP_DTYPE_FLOAT32, -1e30, "-1e+30" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(EpTensor) t = ep_test_new (cases[i].dtype, EP_SCALAR, &cases[i].value, 1);
      GError *error = NULL;

      g_test_message ("case %u", i);
      g_assert_cmpint (ep_tensor_item_int64 (t, &error), ==, 0);
      ep_assert_error (error, EP_ERROR_INVALID_ARGUMENT, "item_int64", cases[i].text);
      g_clear_error (&error);
    }
}

static void
test_item_boolean (void)
{
  g_autoptr(EpTensor) zero = ep_test_new (EP_DTYPE_FLOAT64, EP_SCALAR, EP_VALUES (-0.0));
  g_autoptr(EpTensor) nan = ep_test_new (EP_DTYPE_FLOAT64, EP_SCALAR, EP_VALUES (NAN));
  g_autoptr(EpTensor) i = ep_test_new (EP_DTYPE_INT64, EP_SCALAR, EP_VALUES (0));
  g_autoptr(EpTensor) b = ep_test_new (EP_DTYPE_BOOL, EP_SCALAR, EP_VALUES (0));

  g_assert_false (ep_tensor_item_boolean (zero, NULL));
  g_assert_true (ep_tensor_item_boolean (nan, NULL));
  g_assert_false (ep_tensor_item_boolean (i, NULL));
  g_assert_false (ep_tensor_item_boolean (b, NULL));
}

static void
test_item_of_strided (void)
{
  g_autoptr(EpTensor) t = ep_test_new_strided (EP_DTYPE_INT32, EP_SHAPE (1), EP_VALUES (42));

  g_assert_cmpint (ep_tensor_item_int64 (t, NULL), ==, 42);
}

static void
test_item_needs_one_element (void)
{
  g_autoptr(EpTensor) t = ep_test_new (EP_DTYPE_FLOAT32, EP_SHAPE (2), EP_VALUES (1, 2));
  g_autoptr(EpTensor) empty = ep_zeros (EP_SHAPE (0), EP_DTYPE_FLOAT32, NULL);
  GError *error = NULL;

  g_assert_cmpfloat (ep_tensor_item_double (t, &error), ==, 0);
  ep_assert_error (error, EP_ERROR_SHAPE, "item_double", "(2,) has 2 elements");
  g_clear_error (&error);
  g_assert_cmpint (ep_tensor_item_int64 (t, &error), ==, 0);
  ep_assert_error (error, EP_ERROR_SHAPE, "item_int64", NULL);
  g_clear_error (&error);
  g_assert_false (ep_tensor_item_boolean (t, &error));
  ep_assert_error (error, EP_ERROR_SHAPE, "item_boolean", NULL);
  g_clear_error (&error);
  ep_tensor_item_double (empty, &error);
  ep_assert_error (error, EP_ERROR_SHAPE, "item_double", "0 elements");
  g_clear_error (&error);
}

/* to_string, compared with NumPy 1.24's str() */

static void
assert_string (EpTensor   *t,
               const char *want)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *s = ep_tensor_to_string (t, &error);

  g_assert_no_error (error);
  g_assert_cmpstr (s, ==, want);
}

static void
test_to_string (void)
{
  g_autoptr(EpTensor) f = ep_test_new (EP_DTYPE_FLOAT32, EP_SHAPE (3), EP_VALUES (1, 2, 3));
  g_autoptr(EpTensor) i = ep_test_new (EP_DTYPE_INT32, EP_SHAPE (2, 2), EP_VALUES (1, 2, 3, 4));
  g_autoptr(EpTensor) b = ep_test_new (EP_DTYPE_BOOL, EP_SHAPE (2), EP_VALUES (1, 0));
  g_autoptr(EpTensor) p = ep_test_new (EP_DTYPE_FLOAT32, EP_SHAPE (2), EP_VALUES (0.1, 0.25));
  g_autoptr(EpTensor) e = ep_test_new (EP_DTYPE_FLOAT64, EP_SHAPE (4), EP_VALUES (1e-5, 1, NAN, -INFINITY));

  assert_string (f, "[1. 2. 3.]");
  assert_string (i, "[[1 2]\n [3 4]]");
  assert_string (b, "[ True False]");
  assert_string (p, "[0.1  0.25]");
  assert_string (e, "[1.e-05 1.e+00    nan   -inf]");
}

/* Functions built on others name themselves in their errors, not the
 * function inside them that failed (issue 13: to_string said
 * "to_bytes: …", zeros_like "full_like: …"). */
typedef EpTensor *(*UnaryFunc) (EpTensor *self, GError **error);

static EpTensor *
call_flatten (EpTensor *self, GError **error)
{
  return ep_tensor_flatten (self, 0, -1, error);
}

static EpTensor *
call_stack (EpTensor *self, GError **error)
{
  return ep_stack (&self, 1, 0, error);
}

static EpTensor *
call_outer (EpTensor *self, GError **error)
{
  return ep_tensor_outer (self, self, error);
}

static EpTensor *
call_dot (EpTensor *self, GError **error)
{
  return ep_tensor_dot (self, self, error);
}

static EpTensor *
call_l2 (EpTensor *self, GError **error)
{
  return ep_tensor_l2 (self, NULL, 0, FALSE, error);
}

static EpTensor *
call_lp (EpTensor *self, GError **error)
{
  return ep_tensor_lp (self, 2.0, NULL, 0, FALSE, error);
}

static void
test_released_errors_name_the_call (void)
{
  static const struct { const char *name; UnaryFunc call; } functions[] = {
    { "zeros_like", ep_tensor_zeros_like },
    { "ones_like", ep_tensor_ones_like },
    { "float32", ep_tensor_float32 },
    { "float64", ep_tensor_float64 },
    { "bool", ep_tensor_bool },
    { "flatten", call_flatten },
    { "stack", call_stack },
    { "outer", call_outer },
    { "dot", call_dot },
    { "l2", call_l2 },
    { "lp", call_lp },
  };

  for (guint i = 0; i < G_N_ELEMENTS (functions); i++)
    {
      /* int32: every cast below converts (a cast to the same type is
       * another matter, and not this test's) */
      g_autoptr(EpTensor) x = ep_test_new (EP_DTYPE_INT32, EP_SHAPE (2), EP_VALUES (1, 2));
      g_autoptr(GError) error = NULL;
      g_autoptr(EpTensor) result = NULL;
      g_autofree char *want = g_strdup_printf ("%s: the tensor was released and has no data",
                                               functions[i].name);

      ep_tensor_release (x);
      result = functions[i].call (x, &error);
      g_assert_null (result);
      g_assert_nonnull (error);
      g_assert_error (error, EP_ERROR, EP_ERROR_INVALID_ARGUMENT);
      g_assert_cmpstr (error->message, ==, want);
    }
}

static void
test_to_string_of_released (void)
{
  g_autoptr(EpTensor) x = ep_test_new (EP_DTYPE_FLOAT32, EP_SHAPE (2), EP_VALUES (1, 2));
  g_autoptr(GError) error = NULL;
  g_autoptr(GError) repr_error = NULL;
  g_autofree char *text = NULL;
  g_autofree char *repr = NULL;

  ep_tensor_release (x);
  text = ep_tensor_to_string (x, &error);
  repr = ep_tensor_to_repr (x, &repr_error);
  g_assert_null (text);
  g_assert_null (repr);
  g_assert_cmpstr (error->message, ==, "to_string: the tensor was released and has no data");
  g_assert_cmpstr (repr_error->message, ==, "to_repr: the tensor was released and has no data");
}

/* "an int64 tensor", never "a int64 tensor": the type follows the noun */
static void
test_too_large_names_the_type (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) t = ep_zeros (EP_SHAPE (G_GINT64_CONSTANT (1) << 62, 4), EP_DTYPE_INT64, &error);

  g_assert_null (t);
  g_assert_cmpstr (error->message, ==,
                   "zeros: a tensor of type int64 and shape (4611686018427387904, 4) needs more memory "
                   "than can be addressed");
}

static void
test_to_string_scalars (void)
{
  g_autoptr(EpTensor) f = ep_test_new (EP_DTYPE_FLOAT32, EP_SCALAR, EP_VALUES (0.1));
  g_autoptr(EpTensor) d = ep_test_new (EP_DTYPE_FLOAT64, EP_SCALAR, EP_VALUES (1e20));
  g_autoptr(EpTensor) i = ep_test_new (EP_DTYPE_INT64, EP_SCALAR, EP_VALUES (-7));
  g_autoptr(EpTensor) b = ep_test_new (EP_DTYPE_BOOL, EP_SCALAR, EP_VALUES (1));

  assert_string (f, "0.1");
  assert_string (d, "1e+20");
  assert_string (i, "-7");
  assert_string (b, "True");
}

static void
test_to_string_empty (void)
{
  g_autoptr(EpTensor) e = ep_zeros (EP_SHAPE (0, 3), EP_DTYPE_FLOAT64, NULL);

  assert_string (e, "[]");
}

static void
test_to_string_summarizes (void)
{
  g_autoptr(EpTensor) t = ep_arange (0, 2000, 1, EP_DTYPE_FLOAT64, NULL);

  assert_string (t, "[0.000e+00 1.000e+00 2.000e+00 ... 1.997e+03 1.998e+03 1.999e+03]");
}

/* A summary reads only the elements it shows: a broadcast view of
 * 5 * 2^40 elements (20 TiB as float32, more than any device gives) prints
 * at once, as NumPy prints it */
static void
test_to_string_summary_reads_what_it_shows (void)
{
  const gint64 mega = G_GINT64_CONSTANT (1) << 20;
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) row = ep_arange (0, 5, 1, EP_DTYPE_FLOAT32, &error);
  g_autoptr(EpTensor) t = ep_tensor_broadcast_to (row, EP_SHAPE (mega, mega, 5), &error);
  g_autoptr(GString) expected = g_string_new ("[");
  g_autofree char *text = NULL;
  const char *block = "[[0. 1. 2. 3. 4.]\n  [0. 1. 2. 3. 4.]\n  [0. 1. 2. 3. 4.]\n  ...\n"
                      "  [0. 1. 2. 3. 4.]\n  [0. 1. 2. 3. 4.]\n  [0. 1. 2. 3. 4.]]";

  g_assert_no_error (error);
  for (guint i = 0; i < 6; i++)
    {
      if (i == 3)
        g_string_append (expected, " ...\n\n");
      if (i > 0)
        g_string_append_c (expected, ' ');
      g_string_append (expected, block);
      g_string_append (expected, i < 5 ? "\n\n" : "]");
    }

  text = ep_tensor_to_string (t, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (text, ==, expected->str);
}

static void
test_to_string_non_contiguous (void)
{
  g_autoptr(EpTensor) x = ep_test_new (EP_DTYPE_FLOAT64, EP_SHAPE (2, 3), EP_VALUES (1, 2, 3, 4, 5, 6));
  g_autoptr(EpTensor) t = ep_tensor_transpose (x, NULL, 0, NULL);

  assert_string (t, "[[1. 4.]\n [2. 5.]\n [3. 6.]]");
}

/* leaks: results hold no extra references, inputs are let go */

static void
test_results_finalize (void)
{
  g_autoptr(GError) error = NULL;
  EpTensor *x = ep_test_new (EP_DTYPE_FLOAT32, EP_SHAPE (2, 2), EP_VALUES (1, 2, 3, 4));
  EpTensor *y = ep_tensor_add_scalar (x, 1, &error);
  EpTensor *s = ep_tensor_sum (y, NULL, 0, FALSE, &error);
  EpTensor *z = ep_tensor_astype (s, EP_DTYPE_INT32, &error);

  g_assert_no_error (error);
  g_assert_finalize_object (x);
  g_assert_finalize_object (y);
  g_assert_finalize_object (s);
  g_assert_finalize_object (z);
}

static void
test_failed_op_keeps_no_reference (void)
{
  g_autoptr(GError) error = NULL;
  EpTensor *a = ep_test_new (EP_DTYPE_INT32, EP_SHAPE (2), EP_VALUES (1, 2));
  EpTensor *b = ep_test_new (EP_DTYPE_FLOAT32, EP_SHAPE (3), EP_VALUES (1, 2, 3));

  g_assert_null (ep_tensor_add (a, b, &error));
  g_assert_nonnull (error);
  g_assert_finalize_object (a);
  g_assert_finalize_object (b);
}

/* An integer that is no EpDType (as a binding could pass) is refused
 * before it reaches a kernel table: by the op schema with an error, by
 * the constructors with a critical. */
#define BAD_DTYPE ((EpDType) 42)

static void
test_invalid_dtype_op (void)
{
  g_autoptr(EpTensor) x = ep_test_new (EP_DTYPE_FLOAT32, EP_SHAPE (2), EP_VALUES (1, 2));
  GError *error = NULL;

  g_assert_null (ep_tensor_astype (x, BAD_DTYPE, &error));
  ep_assert_error (error, EP_ERROR_DTYPE, "astype", "42 is not a dtype");
  g_clear_error (&error);
  g_assert_null (ep_zeros (EP_SHAPE (2), BAD_DTYPE, &error));
  ep_assert_error (error, EP_ERROR_DTYPE, "zeros", "42 is not a dtype");
  g_clear_error (&error);
  g_assert_null (ep_arange (0, 2, 1, BAD_DTYPE, &error));
  ep_assert_error (error, EP_ERROR_DTYPE, "arange", "42 is not a dtype");
  g_clear_error (&error);
}

static void
expect_dtype_critical (void)
{
  g_test_expect_message ("Ep", G_LOG_LEVEL_CRITICAL, "*ep_dtype_is_valid*");
}

static void
test_invalid_dtype (void)
{
  g_autoptr(EpTensor) x = ep_test_new (EP_DTYPE_FLOAT32, EP_SHAPE (2), EP_VALUES (1, 2));
  g_autoptr(GBytes) bytes = g_bytes_new_static ("0123", 4);
  EpTensor *t;

  expect_dtype_critical ();
  t = ep_tensor_new_from_doubles (EP_VALUES (1, 2), EP_SHAPE (2), BAD_DTYPE, NULL);
  g_test_assert_expected_messages ();
  g_assert_null (t);

  expect_dtype_critical ();
  t = ep_tensor_new_scalar (1, BAD_DTYPE, NULL);
  g_test_assert_expected_messages ();
  g_assert_null (t);

  expect_dtype_critical ();
  t = ep_tensor_new_from_bytes (bytes, BAD_DTYPE, EP_SHAPE (1), NULL);
  g_test_assert_expected_messages ();
  g_assert_null (t);

  expect_dtype_critical ();
  t = ep_tensor_new_weak_scalar (1, BAD_DTYPE);
  g_test_assert_expected_messages ();
  g_assert_null (t);
}

/* criticals: NULL where an object is required */

typedef struct
{
  const char *path;
  void      (*call) (void);
  const char *stderr_pattern;
} Critical;

static void
null_from_bytes (void)
{
  ep_tensor_new_from_bytes (NULL, EP_DTYPE_FLOAT32, NULL, 0, NULL);
}

static void
null_from_doubles_data (void)
{
  ep_tensor_new_from_doubles (NULL, 3, EP_SHAPE (3), EP_DTYPE_FLOAT32, NULL);
}

static void
null_shape (void)
{
  ep_zeros (NULL, 2, EP_DTYPE_FLOAT32, NULL);
}

static void
null_tensor_add (void)
{
  g_autoptr(EpTensor) x = ep_test_new (EP_DTYPE_FLOAT32, EP_SHAPE (1), EP_VALUES (1));

  ep_tensor_add (x, NULL, NULL);
}

static void
null_tensor_unary (void)
{
  ep_tensor_exp (NULL, NULL);
}

static void
null_tensor_sum (void)
{
  ep_tensor_sum (NULL, NULL, 0, FALSE, NULL);
}

static void
null_tensor_get_shape (void)
{
  ep_tensor_get_shape (NULL, NULL);
}

static void
null_tensor_to_bytes (void)
{
  ep_tensor_to_bytes (NULL, NULL);
}

static void
null_tensor_item (void)
{
  ep_tensor_item_double (NULL, NULL);
}

static void
null_tensor_like (void)
{
  ep_tensor_zeros_like (NULL, NULL);
}

static void
null_tensor_where (void)
{
  g_autoptr(EpTensor) x = ep_test_new (EP_DTYPE_FLOAT32, EP_SHAPE (1), EP_VALUES (1));

  ep_tensor_where (x, x, NULL, NULL);
}

static void
null_tensor_matmul (void)
{
  ep_tensor_matmul (NULL, NULL, NULL);
}

static void
null_error_already_set (void)
{
  g_autoptr(EpTensor) x = ep_test_new (EP_DTYPE_FLOAT32, EP_SHAPE (1), EP_VALUES (1));
  GError *error = g_error_new_literal (EP_ERROR, EP_ERROR_SHAPE, "already");

  ep_tensor_item_double (x, &error);
}

static const Critical criticals[] = {
  { "/tensor/critical/new-from-bytes", null_from_bytes, "*ep_tensor_new_from_bytes*data != NULL*" },
  { "/tensor/critical/new-from-doubles", null_from_doubles_data, "*ep_tensor_new_from_doubles*data != NULL*" },
  { "/tensor/critical/zeros-shape", null_shape, "*shape != NULL*" },
  { "/tensor/critical/add", null_tensor_add, "*ep_tensor_add*EP_IS_TENSOR (other)*" },
  { "/tensor/critical/exp", null_tensor_unary, "*ep_tensor_exp*EP_IS_TENSOR (self)*" },
  { "/tensor/critical/sum", null_tensor_sum, "*EP_IS_TENSOR (self)*" },
  { "/tensor/critical/get-shape", null_tensor_get_shape, "*ep_tensor_get_shape*EP_IS_TENSOR*" },
  { "/tensor/critical/to-bytes", null_tensor_to_bytes, "*ep_tensor_to_bytes*EP_IS_TENSOR*" },
  { "/tensor/critical/item", null_tensor_item, "*ep_tensor_item_double*EP_IS_TENSOR*" },
  { "/tensor/critical/zeros-like", null_tensor_like, "*ep_tensor_zeros_like*EP_IS_TENSOR*" },
  { "/tensor/critical/where", null_tensor_where, "*ep_tensor_where*EP_IS_TENSOR (y)*" },
  { "/tensor/critical/matmul", null_tensor_matmul, "*ep_tensor_matmul*EP_IS_TENSOR*" },
  { "/tensor/critical/error-already-set", null_error_already_set, "*ep_tensor_item_double*error == NULL*" },
};

static void
test_critical (gconstpointer data)
{
  const Critical *c = data;

  if (g_test_subprocess ())
    {
      c->call ();
      return;
    }

  g_test_trap_subprocess (NULL, 0, G_TEST_SUBPROCESS_DEFAULT);
  g_test_trap_assert_failed ();
  g_test_trap_assert_stderr (c->stderr_pattern);
}

/* One made with g_object_new(), as a binding can, has no data: every use
 * is an error, as for a released tensor. */
static void
test_bare_tensor_is_an_error_to_use (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) bare = g_object_new (EP_TYPE_TENSOR, NULL);
  g_autoptr(EpTensor) y = ep_tensor_abs (bare, &error);

  g_assert_null (y);
  ep_assert_error (error, EP_ERROR_INVALID_ARGUMENT, "abs", "has no data");
  g_assert_true (ep_tensor_is_released (bare));
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/tensor/bare-is-an-error-to-use", test_bare_tensor_is_an_error_to_use);
  g_test_add_func ("/tensor/new-from-doubles/float32", test_from_doubles_float32);
  g_test_add_func ("/tensor/new-from-doubles/rounds-to-float32", test_from_doubles_rounds_to_float32);
  g_test_add_func ("/tensor/new-from-doubles/float64", test_from_doubles_float64);
  g_test_add_func ("/tensor/new-from-doubles/integers-truncate", test_from_doubles_integers_truncate);
  g_test_add_func ("/tensor/new-from-doubles/bool", test_from_doubles_bool);
  g_test_add_func ("/tensor/new-from-doubles/empty", test_from_doubles_empty);
  g_test_add_func ("/tensor/new-from-doubles/length-mismatch", test_from_doubles_length_mismatch);
  g_test_add_func ("/tensor/new-from-doubles/negative-dimension", test_from_doubles_negative_dimension);
  g_test_add_func ("/tensor/new-from-doubles/too-many-dimensions", test_from_doubles_too_many_dimensions);
  g_test_add_func ("/tensor/new-from-doubles/eight-dimensions", test_from_doubles_eight_dimensions);
  g_test_add_func ("/tensor/new-from-doubles/absurd-shape", test_from_doubles_absurd_shape);
  g_test_add_func ("/tensor/new-from-bytes/values", test_from_bytes_values);
  g_test_add_func ("/tensor/new-from-bytes/zero-copy", test_from_bytes_is_zero_copy);
  g_test_add_func ("/tensor/new-from-bytes/unaligned-copies", test_from_bytes_unaligned_copies);
  g_test_add_func ("/tensor/new-from-bytes/keeps-and-releases-data", test_from_bytes_keeps_and_releases_data);
  g_test_add_func ("/tensor/new-from-bytes/length-mismatch", test_from_bytes_length_mismatch);
  g_test_add_func ("/tensor/new-from-bytes/absurd-shape", test_from_bytes_absurd_shape);
  g_test_add_func ("/tensor/new-from-bytes/too-many-dimensions", test_from_bytes_too_many_dimensions);
  g_test_add_func ("/tensor/new-from-bytes/empty", test_from_bytes_empty);
  g_test_add_func ("/tensor/new-from-bytes/empty-huge-extents", test_from_bytes_empty_huge_extents);
  g_test_add_func ("/tensor/new-scalar", test_new_scalar);
  g_test_add_func ("/tensor/new-weak-scalar", test_new_weak_scalar);
  g_test_add_func ("/tensor/properties", test_properties);
  g_test_add_func ("/tensor/contiguous-strides", test_contiguous_strides);
  g_test_add_func ("/tensor/dtype/info", test_dtype_info);
  g_test_add_func ("/tensor/dtype/promote-table", test_dtype_promote_table);
  g_test_add_func ("/tensor/dtype/narrow-ints", test_dtype_narrow_ints);
  g_test_add_func ("/tensor/to-bytes/zero-copy", test_to_bytes_zero_copy);
  g_test_add_func ("/tensor/to-bytes/non-contiguous", test_to_bytes_non_contiguous);
  g_test_add_func ("/tensor/to-bytes/strided-with-offset", test_to_bytes_strided_with_offset);
  g_test_add_func ("/tensor/to-bytes/single-element-at-offset", test_to_bytes_single_element_at_offset);
  g_test_add_func ("/tensor/item/values", test_item);
  g_test_add_func ("/tensor/item/int64-is-exact", test_item_int64_is_exact);
  g_test_add_func ("/tensor/item/large-int64", test_item_of_large_int64);
  g_test_add_func ("/tensor/item/int64-of-floats", test_item_int64_of_floats);
  g_test_add_func ("/tensor/item/int64-of-nan-and-inf", test_item_int64_of_nan_and_inf);
  g_test_add_func ("/tensor/item/boolean", test_item_boolean);
  g_test_add_func ("/tensor/item/strided", test_item_of_strided);
  g_test_add_func ("/tensor/item/needs-one-element", test_item_needs_one_element);
  g_test_add_func ("/tensor/to-string/values", test_to_string);
  g_test_add_func ("/tensor/to-string/released", test_to_string_of_released);
  g_test_add_func ("/tensor/errors/released-name-the-call", test_released_errors_name_the_call);
  g_test_add_func ("/tensor/errors/too-large-names-the-type", test_too_large_names_the_type);
  g_test_add_func ("/tensor/to-string/scalars", test_to_string_scalars);
  g_test_add_func ("/tensor/to-string/empty", test_to_string_empty);
  g_test_add_func ("/tensor/to-string/summarizes", test_to_string_summarizes);
  g_test_add_func ("/tensor/to-string/summary-reads-what-it-shows", test_to_string_summary_reads_what_it_shows);
  g_test_add_func ("/tensor/to-string/non-contiguous", test_to_string_non_contiguous);
  g_test_add_func ("/tensor/leaks/results-finalize", test_results_finalize);
  g_test_add_func ("/tensor/leaks/failed-op-keeps-no-reference", test_failed_op_keeps_no_reference);
  g_test_add_func ("/tensor/invalid-dtype", test_invalid_dtype_op);
  g_test_add_func ("/tensor/critical/invalid-dtype", test_invalid_dtype);
  for (guint i = 0; i < G_N_ELEMENTS (criticals); i++)
    g_test_add_data_func (criticals[i].path, &criticals[i], test_critical);

  return g_test_run ();
}
