/* ops/index.c: the index family: take, take_along_axis, mask,
 * index_update, scatter_add: values, every error path, indices out of
 * range on every device, the gradient rules
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include <math.h>

#include "ep-test-gradient.h"
#include "ep-test-util.h"

static void
test_take (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) x = ep_test_iota (EP_DIMS (2, 3), 2, EP_DTYPE_FLOAT32);
  g_autoptr(EpTensor) idx = ep_test_vector (EP_DOUBLES (2, -3, 2), 3, EP_DTYPE_INT32);
  g_autoptr(EpTensor) t = ep_tensor_take (x, idx, 1, &error);
  g_autoptr(EpTensor) zero = ep_tensor_new_scalar (0, EP_DTYPE_INT64, &error);
  g_autoptr(EpTensor) row = ep_tensor_take (x, zero, 0, &error);

  g_assert_no_error (error);
  ep_test_assert_tensor (t, EP_DIMS (2, 3), 2, EP_DOUBLES (2, 0, 2, 5, 3, 5));
  ep_test_assert_tensor (row, EP_DIMS (3), 1, EP_DOUBLES (0, 1, 2));
}

static void
test_take_errors (void)
{
  g_autoptr(EpTensor) x = ep_test_iota (EP_DIMS (2, 3), 2, EP_DTYPE_FLOAT32);
  g_autoptr(EpTensor) far = ep_test_vector (EP_DOUBLES (0, 3), 2, EP_DTYPE_INT64);
  g_autoptr(EpTensor) floats = ep_test_vector (EP_DOUBLES (0), 1, EP_DTYPE_FLOAT32);
  GError *error = NULL;
  EpTensor *r;

  r = ep_tensor_take (x, far, 1, &error);
  ep_test_assert_failed (r, error, EP_ERROR_INDEX, "take");
  g_assert_nonnull (strstr (error->message, "index 3"));
  g_clear_error (&error);
  r = ep_tensor_take (x, floats, 1, &error);
  ep_test_assert_failed (r, error, EP_ERROR_DTYPE, "take");
  g_clear_error (&error);
  r = ep_tensor_take (x, far, -3, &error);
  ep_test_assert_failed (r, error, EP_ERROR_AXIS, "take");
  g_clear_error (&error);
  r = ep_tensor_take_along_axis (x, far, 1, &error);
  ep_test_assert_failed (r, error, EP_ERROR_SHAPE, "take_along_axis");
  g_clear_error (&error);
}

static void
test_take_along_axis (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) x = ep_test_iota (EP_DIMS (2, 3), 2, EP_DTYPE_INT64);
  g_autoptr(EpTensor) flat = ep_test_vector (EP_DOUBLES (2, 0, -1, 1), 4, EP_DTYPE_INT64);
  g_autoptr(EpTensor) idx = ep_tensor_reshape (flat, EP_DIMS (2, 2), 2, &error);
  g_autoptr(EpTensor) t = ep_tensor_take_along_axis (x, idx, 1, &error);
  g_autoptr(EpTensor) bad_values = ep_test_vector (EP_DOUBLES (5, 0, 0, 0), 4, EP_DTYPE_INT64);
  g_autoptr(EpTensor) bad = ep_tensor_reshape (bad_values, EP_DIMS (2, 2), 2, &error);
  GError *e = NULL;

  g_assert_no_error (error);
  ep_test_assert_tensor (t, EP_DIMS (2, 2), 2, EP_DOUBLES (2, 0, 5, 4));
  g_assert_null (ep_tensor_take_along_axis (x, bad, 1, &e));
  g_assert_error (e, EP_ERROR, EP_ERROR_INDEX);
  g_clear_error (&e);
}

static void
test_mask (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) x = ep_test_iota (EP_DIMS (2, 3), 2, EP_DTYPE_FLOAT64);
  g_autoptr(EpTensor) m = ep_test_vector (EP_DOUBLES (1, 0, 1, 1, 0, 0), 6, EP_DTYPE_BOOL);
  g_autoptr(EpTensor) m2 = ep_tensor_reshape (m, EP_DIMS (2, 3), 2, &error);
  g_autoptr(EpTensor) picked = ep_tensor_mask (x, m2, &error);
  g_autoptr(EpTensor) rows_mask = ep_test_vector (EP_DOUBLES (0, 1), 2, EP_DTYPE_BOOL);
  g_autoptr(EpTensor) rows = ep_tensor_mask (x, rows_mask, &error);
  GError *bad = NULL;

  g_assert_no_error (error);
  ep_test_assert_tensor (picked, EP_DIMS (3), 1, EP_DOUBLES (0, 2, 3));
  ep_test_assert_tensor (rows, EP_DIMS (1, 3), 2, EP_DOUBLES (3, 4, 5));

  g_assert_null (ep_tensor_mask (x, m, &bad));
  g_assert_error (bad, EP_ERROR, EP_ERROR_SHAPE);
  g_clear_error (&bad);
  g_assert_null (ep_tensor_mask (x, x, &bad));
  g_assert_error (bad, EP_ERROR, EP_ERROR_DTYPE);
  g_clear_error (&bad);
}

/* nonzero: the coordinates of nonzero elements in C order, int64
 * (n, ndim); NaN counts, -0.0 does not; 0-d gives (1, 0) or (0, 0) */
static void
test_nonzero (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) x = ep_test_new (EP_DTYPE_FLOAT32, EP_SHAPE (2, 3), EP_VALUES (0, 1.5, 0, NAN, -0.0, 2));
  g_autoptr(EpTensor) coords = ep_tensor_nonzero (x, &error);
  g_autoptr(EpTensor) one = ep_test_new (EP_DTYPE_INT32, EP_SHAPE (), EP_VALUES (7));
  g_autoptr(EpTensor) zero = ep_test_new (EP_DTYPE_BOOL, EP_SHAPE (), EP_VALUES (0));
  g_autoptr(EpTensor) of_one = ep_tensor_nonzero (one, &error);
  g_autoptr(EpTensor) of_zero = ep_tensor_nonzero (zero, &error);

  g_assert_no_error (error);
  g_assert_cmpint (ep_tensor_get_dtype (coords), ==, EP_DTYPE_INT64);
  ep_test_assert_tensor (coords, EP_DIMS (3, 2), 2, EP_DOUBLES (0, 1, 1, 0, 1, 2));
  ep_assert_shape (of_one, EP_SHAPE (1, 0));
  ep_assert_shape (of_zero, EP_SHAPE (0, 0));
}

/* nonzero's errors name nonzero: a grid too large to allocate */
static void
test_nonzero_error (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) one = ep_test_new (EP_DTYPE_FLOAT32, EP_SHAPE (), EP_VALUES (1));
  g_autoptr(EpTensor) huge = ep_tensor_broadcast_to (one, EP_DIMS (1 << 22, 1 << 22), 2, &error);
  g_autoptr(EpTensor) coords = NULL;

  g_assert_no_error (error);
  coords = ep_tensor_nonzero (huge, &error);
  g_assert_null (coords);
  g_assert_error (error, EP_ERROR, EP_ERROR_OUT_OF_MEMORY);
  g_assert_true (g_str_has_prefix (error->message, "nonzero: "));
}

static void
test_scatters (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) x = ep_zeros (EP_DIMS (2, 3), 2, EP_DTYPE_INT32, &error);
  g_autoptr(EpTensor) idx = ep_test_vector (EP_DOUBLES (0, 2, 0), 3, EP_DTYPE_INT64);
  g_autoptr(EpTensor) v = ep_test_vector (EP_DOUBLES (1, 2, 3), 3, EP_DTYPE_INT32);
  g_autoptr(EpTensor) added = ep_tensor_scatter_add (x, idx, v, 1, &error);
  g_autoptr(EpTensor) updated = ep_tensor_index_update (x, idx, v, 1, &error);
  g_autoptr(EpTensor) seven = ep_tensor_new_weak_scalar (7, EP_DTYPE_INT64);
  g_autoptr(EpTensor) filled = ep_tensor_index_update (x, idx, seven, 1, &error);
  g_autoptr(EpTensor) wide = ep_test_iota (EP_DIMS (2, 4), 2, EP_DTYPE_INT32);
  GError *bad = NULL;

  g_assert_no_error (error);
  ep_test_assert_tensor (added, EP_DIMS (2, 3), 2, EP_DOUBLES (4, 0, 2, 4, 0, 2));
  ep_test_assert_tensor (updated, EP_DIMS (2, 3), 2, EP_DOUBLES (3, 0, 2, 3, 0, 2));
  ep_test_assert_tensor (filled, EP_DIMS (2, 3), 2, EP_DOUBLES (7, 0, 7, 7, 0, 7));
  ep_test_assert_tensor (x, EP_DIMS (2, 3), 2, EP_DOUBLES (0, 0, 0, 0, 0, 0));

  g_assert_null (ep_tensor_scatter_add (x, idx, wide, 1, &bad));
  g_assert_error (bad, EP_ERROR, EP_ERROR_SHAPE);
  g_assert_true (g_str_has_prefix (bad->message, "scatter_add"));
  g_clear_error (&bad);
  g_assert_null (ep_tensor_index_update (x, idx, v, 0, &bad));
  g_assert_error (bad, EP_ERROR, EP_ERROR_INDEX);
  g_assert_true (g_str_has_prefix (bad->message, "index_update"));
  g_clear_error (&bad);
}

/* Indices out of range on every device: the kernels find them (the
 * rules no longer read the indices) and say the same thing. */

/* @values in @shape, made on @device */
static EpTensor *
on_device (EpDevice      *device,
           EpDType        dtype,
           const gint64  *shape,
           guint          ndim,
           const gdouble *values,
           gsize          n)
{
  EpTensor *t;

  ep_test_push (device);
  t = ep_test_new (dtype, shape, ndim, values, n);
  ep_test_pop (device);
  g_assert_true (ep_tensor_get_device (t) == device);
  return t;
}

static void
assert_index_error (EpTensor   *result,
                    GError     *error,
                    const char *message)
{
  g_assert_null (result);
  g_assert_error (error, EP_ERROR, EP_ERROR_INDEX);
  g_assert_cmpstr (error->message, ==, message);
}

/* The first bad index, as given, its axis and the axis's extent */
static void
test_bad_index_messages (gconstpointer data)
{
  EpDevice *device = (EpDevice *) data;
  g_autoptr(EpTensor) x = on_device (device, EP_DTYPE_FLOAT32, EP_DIMS (2, 5), 2,
                                     EP_DOUBLES (0, 1, 2, 3, 4, 5, 6, 7, 8, 9), 10);
  g_autoptr(EpTensor) several = on_device (device, EP_DTYPE_INT64, EP_DIMS (4), 1, EP_DOUBLES (1, 7, -9, 2), 4);
  g_autoptr(EpTensor) negative = on_device (device, EP_DTYPE_INT32, EP_DIMS (2), 1, EP_DOUBLES (-6, 5), 2);
  g_autoptr(EpTensor) flat = on_device (device, EP_DTYPE_INT64, EP_DIMS (2), 1, EP_DOUBLES (9, 10), 2);
  g_autoptr(EpTensor) flip = on_device (device, EP_DTYPE_INT64, EP_DIMS (2), 1, EP_DOUBLES (-1, 0), 2);
  g_autoptr(EpTensor) along = on_device (device, EP_DTYPE_INT64, EP_DIMS (2, 2), 2, EP_DOUBLES (1, -6, 7, 0), 4);
  g_autoptr(EpTensor) row = on_device (device, EP_DTYPE_INT64, EP_DIMS (1, 3), 2, EP_DOUBLES (0, 9, 1), 3);
  g_autoptr(EpTensor) square = on_device (device, EP_DTYPE_INT64, EP_DIMS (2, 2), 2, EP_DOUBLES (4, -5, -6, 5), 4);
  g_autoptr(EpTensor) tall = on_device (device, EP_DTYPE_FLOAT64, EP_DIMS (5, 2), 2,
                                        EP_DOUBLES (0, 1, 2, 3, 4, 5, 6, 7, 8, 9), 10);
  g_autoptr(EpTensor) one = ep_tensor_new_weak_scalar (1, EP_DTYPE_FLOAT64);
  g_autoptr(EpTensor) strided = NULL;
  GError *error = NULL;
  EpTensor *r;

  /* with 99 in the gaps: the message names the index, not its neighbour */
  ep_test_push (device);
  strided = ep_test_new_strided (EP_DTYPE_INT64, EP_DIMS (4), 1, EP_DOUBLES (0, 4, 5, -5), 4);
  ep_test_pop (device);

  r = ep_tensor_take (x, several, 1, &error);
  assert_index_error (r, error, "take: index 7 is out of range for axis 1 of extent 5");
  g_clear_error (&error);
  r = ep_tensor_take (x, negative, -1, &error);
  assert_index_error (r, error, "take: index -6 is out of range for axis 1 of extent 5");
  g_clear_error (&error);
  r = ep_tensor_take (x, flat, EP_AXIS_NONE, &error);
  assert_index_error (r, error, "take: index 10 is out of range for axis 0 of extent 10");
  g_clear_error (&error);
  r = ep_tensor_take (x, strided, 1, &error);
  assert_index_error (r, error, "take: index 5 is out of range for axis 1 of extent 5");
  g_clear_error (&error);
  r = ep_tensor_take (x, several, 0, &error);
  assert_index_error (r, error, "take: index 7 is out of range for axis 0 of extent 2");
  g_clear_error (&error);

  r = ep_tensor_take_along_axis (x, along, 1, &error);
  assert_index_error (r, error, "take_along_axis: index -6 is out of range for axis 1 of extent 5");
  g_clear_error (&error);
  /* indices broadcast along axis 0 */
  r = ep_tensor_take_along_axis (x, row, 1, &error);
  assert_index_error (r, error, "take_along_axis: index 9 is out of range for axis 1 of extent 5");
  g_clear_error (&error);

  r = ep_tensor_index_update (x, several, one, 1, &error);
  assert_index_error (r, error, "index_update: index 7 is out of range for axis 1 of extent 5");
  g_clear_error (&error);
  r = ep_tensor_scatter_add (tall, square, one, 0, &error);
  assert_index_error (r, error, "scatter_add: index -6 is out of range for axis 0 of extent 5");
  g_clear_error (&error);
  r = ep_tensor_scatter_add (x, strided, one, -1, &error);
  assert_index_error (r, error, "scatter_add: index 5 is out of range for axis 1 of extent 5");
  g_clear_error (&error);

  /* the scatters' inputs are as they were, and the device still works */
  ep_test_assert_tensor (x, EP_DIMS (2, 5), 2, EP_DOUBLES (0, 1, 2, 3, 4, 5, 6, 7, 8, 9));
  ep_test_assert_tensor (tall, EP_DIMS (5, 2), 2, EP_DOUBLES (0, 1, 2, 3, 4, 5, 6, 7, 8, 9));
  r = ep_tensor_take (x, flip, 0, &error);
  g_assert_no_error (error);
  ep_test_assert_tensor (r, EP_DIMS (2, 5), 2, EP_DOUBLES (5, 6, 7, 8, 9, 0, 1, 2, 3, 4));
  g_object_unref (r);
}

/* 4M indices: the first bad one is found wherever it lies */
static void
test_bad_index_in_large_tensor (gconstpointer data)
{
  EpDevice *device = (EpDevice *) data;
  const gint64 n = G_GINT64_CONSTANT (1) << 22, extent = 1000;
  g_autofree gdouble *values = g_new (gdouble, n);
  g_autoptr(EpTensor) x = NULL;
  g_autoptr(EpTensor) idx = NULL;
  g_autoptr(EpTensor) last = NULL;
  g_autoptr(EpTensor) one = ep_tensor_new_weak_scalar (1, EP_DTYPE_FLOAT64);
  GError *error = NULL;
  EpTensor *r;

  ep_test_push (device);
  x = ep_test_iota (EP_DIMS (extent), 1, EP_DTYPE_FLOAT32);
  ep_test_pop (device);

  for (gint64 i = 0; i < n; i++)
    values[i] = i % (2 * extent) - extent;
  values[3000001] = extent;
  values[3500000] = -extent - 1;
  idx = on_device (device, EP_DTYPE_INT64, &n, 1, values, n);

  r = ep_tensor_take (x, idx, 0, &error);
  assert_index_error (r, error, "take: index 1000 is out of range for axis 0 of extent 1000");
  g_clear_error (&error);
  r = ep_tensor_scatter_add (x, idx, one, 0, &error);
  assert_index_error (r, error, "scatter_add: index 1000 is out of range for axis 0 of extent 1000");
  g_clear_error (&error);

  /* only the very last index */
  values[3000001] = 1;
  values[3500000] = 2;
  values[n - 1] = -extent - 1;
  last = on_device (device, EP_DTYPE_INT64, &n, 1, values, n);
  r = ep_tensor_take (x, last, 0, &error);
  assert_index_error (r, error, "take: index -1001 is out of range for axis 0 of extent 1000");
  g_clear_error (&error);
}

/* The checks change no valid result: 1M indices, negative ones
 * included, give exactly the elements they name */
static void
test_valid_indices_unchanged (gconstpointer data)
{
  EpDevice *device = (EpDevice *) data;
  const gint64 n = G_GINT64_CONSTANT (1) << 20, extent = 1000;
  g_autofree gdouble *source = g_new (gdouble, extent);
  g_autofree gdouble *values = g_new (gdouble, n);
  g_autoptr(EpTensor) x = NULL;
  g_autoptr(EpTensor) idx = NULL;
  g_autoptr(EpTensor) taken = NULL;
  g_autoptr(EpTensor) small = NULL;
  g_autoptr(EpTensor) where = NULL;
  g_autoptr(EpTensor) v = NULL;
  g_autoptr(EpTensor) added = NULL;
  g_autoptr(EpTensor) updated = NULL;
  g_autoptr(GBytes) bytes = NULL;
  g_autoptr(GError) error = NULL;
  const gdouble *got;

  for (gint64 k = 0; k < extent; k++)
    source[k] = sin ((gdouble) k) * 1e3;
  for (gint64 i = 0; i < n; i++)
    values[i] = (i * 7919) % (2 * extent) - extent;
  x = on_device (device, EP_DTYPE_FLOAT64, &extent, 1, source, extent);
  idx = on_device (device, EP_DTYPE_INT64, &n, 1, values, n);

  taken = ep_tensor_take (x, idx, 0, &error);
  g_assert_no_error (error);
  g_assert_true (ep_tensor_get_device (taken) == device);
  bytes = ep_tensor_to_bytes (taken, &error);
  g_assert_no_error (error);
  got = g_bytes_get_data (bytes, NULL);
  for (gint64 i = 0; i < n; i++)
    {
      gint64 k = (gint64) values[i];

      if (memcmp (&got[i], &source[k < 0 ? k + extent : k], sizeof (gdouble)) != 0)
        g_error ("element %" G_GINT64_FORMAT ": %.17g, expected %.17g",
                 i, got[i], source[k < 0 ? k + extent : k]);
    }

  small = on_device (device, EP_DTYPE_INT32, EP_DIMS (2, 3), 2, EP_DOUBLES (1, 2, 3, 4, 5, 6), 6);
  where = on_device (device, EP_DTYPE_INT64, EP_DIMS (3), 1, EP_DOUBLES (-1, 0, -1), 3);
  v = on_device (device, EP_DTYPE_INT32, EP_DIMS (3), 1, EP_DOUBLES (10, 20, 30), 3);
  added = ep_tensor_scatter_add (small, where, v, 1, &error);
  g_assert_no_error (error);
  updated = ep_tensor_index_update (small, where, v, -1, &error);
  g_assert_no_error (error);
  ep_test_assert_tensor (added, EP_DIMS (2, 3), 2, EP_DOUBLES (21, 2, 43, 24, 5, 46));
  ep_test_assert_tensor (updated, EP_DIMS (2, 3), 2, EP_DOUBLES (20, 2, 30, 20, 5, 30));
}

/* gradient rules against central differences (ep-test-gradient.h) */

static EpTensor *
int_tensor (const gdouble *values,
            gsize          n,
            const gint64  *shape,
            guint          ndim)
{
  g_autoptr(GError) error = NULL;
  EpTensor *t = ep_tensor_new_from_doubles (values, n, shape, ndim, EP_DTYPE_INT64, &error);

  g_assert_no_error (error);
  return t;
}

static EpTensor *
f_take (EpTensor **in, gconstpointer data, GError **error)
{
  return ep_tensor_take (in[0], in[1], 1, error);
}

static void
test_gradient_take (void)
{
  EpTensor *in[2] = {
    ep_test_random (EP_DIMS (3, 4), 2, EP_DTYPE_FLOAT64, 11),
    int_tensor ((const gdouble[]) { 1, -1, 1, 0, 1, 2 }, 6, EP_DIMS (2, 3), 2),
  };

  ep_test_check_gradient_of (&ep_op_take, f_take, NULL, in, 2, 0);
  g_object_unref (in[0]);
  g_object_unref (in[1]);
}

static EpTensor *
f_take_along_axis (EpTensor **in, gconstpointer data, GError **error)
{
  return ep_tensor_take_along_axis (in[0], in[1], 1, error);
}

static void
test_gradient_take_along_axis (void)
{
  EpTensor *same[2] = {
    ep_test_random (EP_DIMS (3, 4), 2, EP_DTYPE_FLOAT64, 12),
    int_tensor ((const gdouble[]) { 0, 3, -1, 1, 1, 2 }, 6, EP_DIMS (3, 2), 2),
  };
  EpTensor *broadcast[2] = {
    ep_test_random (EP_DIMS (1, 4), 2, EP_DTYPE_FLOAT64, 13),
    int_tensor ((const gdouble[]) { 0, 3, -1, 1, 1, 1 }, 6, EP_DIMS (3, 2), 2),
  };

  ep_test_check_gradient_of (&ep_op_take_along_axis, f_take_along_axis, NULL, same, 2, 0);
  ep_test_check_gradient_of (&ep_op_take_along_axis, f_take_along_axis, NULL, broadcast, 2, 0);
  for (guint i = 0; i < 2; i++)
    {
      g_object_unref (same[i]);
      g_object_unref (broadcast[i]);
    }
}

static EpTensor *
f_mask (EpTensor **in, gconstpointer data, GError **error)
{
  return ep_tensor_mask (in[0], in[1], error);
}

static void
test_gradient_mask (void)
{
  g_autoptr(GError) error = NULL;
  EpTensor *rows[2] = {
    ep_test_random (EP_DIMS (3, 4), 2, EP_DTYPE_FLOAT64, 14),
    ep_tensor_new_from_doubles ((const gdouble[]) { 1, 0, 1 }, 3, EP_DIMS (3), 1, EP_DTYPE_BOOL, &error),
  };
  EpTensor *all[2] = {
    ep_test_random (EP_DIMS (2, 2), 2, EP_DTYPE_FLOAT64, 15),
    ep_tensor_new_from_doubles ((const gdouble[]) { 0, 1, 1, 1 }, 4, EP_DIMS (2, 2), 2, EP_DTYPE_BOOL, &error),
  };

  g_assert_no_error (error);
  ep_test_check_gradient_of (&ep_op_mask, f_mask, NULL, rows, 2, 0);
  ep_test_check_gradient_of (&ep_op_mask, f_mask, NULL, all, 2, 0);
  for (guint i = 0; i < 2; i++)
    {
      g_object_unref (rows[i]);
      g_object_unref (all[i]);
    }
}

static EpTensor *
f_index_update (EpTensor **in, gconstpointer data, GError **error)
{
  return ep_tensor_index_update (in[0], in[1], in[2], 1, error);
}

static EpTensor *
f_scatter_add (EpTensor **in, gconstpointer data, GError **error)
{
  return ep_tensor_scatter_add (in[0], in[1], in[2], 1, error);
}

static void
test_gradient_scatters (void)
{
  EpTensor *update[3] = {
    ep_test_random (EP_DIMS (3, 4), 2, EP_DTYPE_FLOAT64, 16),
    int_tensor ((const gdouble[]) { 1, 3, -3 }, 3, EP_DIMS (3), 1),   /* 1 twice */
    ep_test_random (EP_DIMS (3, 3), 2, EP_DTYPE_FLOAT64, 17),
  };
  EpTensor *add[3] = {
    ep_test_random (EP_DIMS (3, 4), 2, EP_DTYPE_FLOAT64, 18),
    int_tensor ((const gdouble[]) { 0, 2, 2, 2 }, 4, EP_DIMS (2, 2), 2),
    ep_test_random (EP_DIMS (1, 2, 2), 3, EP_DTYPE_FLOAT64, 19),      /* broadcast */
  };

  ep_test_check_gradient_of (&ep_op_index_update, f_index_update, NULL, update, 3, 0);
  ep_test_check_gradient_of (&ep_op_scatter_add, f_scatter_add, NULL, add, 3, 0);
  for (guint i = 0; i < 3; i++)
    {
      g_object_unref (update[i]);
      g_object_unref (add[i]);
    }
}

/* embedding: rows of the table, shaped indices.shape + (dim,) */
static void
test_embedding (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) w = ep_test_iota (EP_DIMS (4, 2), 2, EP_DTYPE_FLOAT64);
  g_autoptr(EpTensor) idx = ep_test_iota (EP_DIMS (2, 2), 2, EP_DTYPE_INT32);
  g_autoptr(EpTensor) flipped = ep_tensor_flip (idx, NULL, 0, &error);
  g_autoptr(EpTensor) e = ep_embedding (flipped, w, &error);
  g_autoptr(EpTensor) scalar = ep_tensor_new_scalar (2, EP_DTYPE_INT64, &error);
  g_autoptr(EpTensor) row = ep_embedding (scalar, w, &error);

  g_assert_no_error (error);
  ep_test_assert_tensor (e, EP_DIMS (2, 2, 2), 3, EP_DOUBLES (6, 7, 4, 5, 2, 3, 0, 1));
  ep_test_assert_tensor (row, EP_DIMS (2), 1, EP_DOUBLES (4, 5));
}

static void
test_embedding_errors (void)
{
  g_autoptr(EpTensor) w = ep_test_iota (EP_DIMS (4, 2), 2, EP_DTYPE_FLOAT32);
  g_autoptr(EpTensor) flat = ep_test_iota (EP_DIMS (8), 1, EP_DTYPE_FLOAT32);
  g_autoptr(EpTensor) far = ep_test_vector (EP_DOUBLES (1, 4), 2, EP_DTYPE_INT64);
  g_autoptr(EpTensor) floats = ep_test_vector (EP_DOUBLES (0), 1, EP_DTYPE_FLOAT32);
  g_autoptr(EpTensor) good = ep_test_vector (EP_DOUBLES (0), 1, EP_DTYPE_INT32);
  GError *error = NULL;
  EpTensor *r;

  r = ep_embedding (far, w, &error);
  ep_test_assert_failed (r, error, EP_ERROR_INDEX, "embedding: ");
  g_assert_nonnull (strstr (error->message, "index 4"));
  g_clear_error (&error);
  r = ep_embedding (floats, w, &error);
  ep_test_assert_failed (r, error, EP_ERROR_DTYPE, "embedding: ");
  g_clear_error (&error);
  r = ep_embedding (good, flat, &error);
  ep_test_assert_failed (r, error, EP_ERROR_SHAPE, "embedding: ");
  g_clear_error (&error);
}

/* The gradient is the output's gradient summed into the rows it came
 * from (scatter_add): against central differences */
static EpTensor *
call_embedding (EpTensor **x, GError **error)
{
  g_autoptr(EpTensor) idx = ep_test_vector (EP_DOUBLES (2, 0, 2, -1, 1), 5, EP_DTYPE_INT64);

  return ep_embedding (idx, x[0], error);
}

static void
test_embedding_gradient (void)
{
  g_autoptr(EpTensor) w = ep_test_float64 (ep_test_grad_a, ep_test_shape_34, 2);
  EpTensor *x[1] = { w };

  ep_test_check_gradient (&ep_op_take, call_embedding, x, 1);
}

/* bincount (issue 17, ops) */
static void
test_bincount (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) x = ep_test_vector (EP_DOUBLES (1, 4, 1, 0), 4, EP_DTYPE_INT32);
  g_autoptr(EpTensor) ones = ep_test_vector (EP_DOUBLES (1, 1, 1, 1), 4, EP_DTYPE_INT64);
  g_autoptr(EpTensor) w = ep_test_vector (EP_DOUBLES (0.5, 2, 0.25, 1), 4, EP_DTYPE_FLOAT64);
  g_autoptr(EpTensor) counts = ep_tensor_bincount (x, ones, 0, &error);
  g_autoptr(EpTensor) sums = ep_tensor_bincount (x, w, 7, &error);
  g_autoptr(EpTensor) negative = ep_test_vector (EP_DOUBLES (1, -1, 0, 2), 4, EP_DTYPE_INT64);
  GError *bad = NULL;

  g_assert_no_error (error);
  g_assert_cmpint (ep_tensor_get_dtype (counts), ==, EP_DTYPE_INT64);
  ep_test_assert_tensor (counts, EP_DIMS (5), 1, EP_DOUBLES (1, 2, 0, 0, 1));
  ep_test_assert_tensor (sums, EP_DIMS (7), 1, EP_DOUBLES (1, 0.75, 0, 0, 2, 0, 0));

  g_assert_null (ep_tensor_bincount (negative, ones, 0, &bad));
  ep_assert_error (bad, EP_ERROR_INVALID_ARGUMENT, "bincount", "-1");
  g_clear_error (&bad);
  g_assert_null (ep_tensor_bincount (x, w, -1, &bad));
  g_assert_error (bad, EP_ERROR, EP_ERROR_INVALID_ARGUMENT);
  g_clear_error (&bad);
}

/* histogram (issue 17, ops) */
static void
test_histogram (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) x = ep_test_vector (EP_DOUBLES (0, 1, 1, 2, 3, 3, 5), 7, EP_DTYPE_INT32);
  g_autoptr(EpTensor) hist = NULL, edges = NULL, ranged = NULL;
  GError *bad = NULL;

  g_assert_true (ep_tensor_histogram (x, 5, NAN, NAN, &hist, &edges, &error));
  g_assert_no_error (error);
  g_assert_cmpint (ep_tensor_get_dtype (edges), ==, EP_DTYPE_FLOAT64);
  /* edges 0 1 2 3 4 5: the last bin [4, 5] holds 5 */
  ep_test_assert_tensor (hist, EP_DIMS (5), 1, EP_DOUBLES (1, 2, 1, 2, 1));
  ep_test_assert_tensor (edges, EP_DIMS (6), 1, EP_DOUBLES (0, 1, 2, 3, 4, 5));
  g_assert_true (ep_tensor_histogram (x, 2, 1, 3, &ranged, NULL, &error));
  ep_test_assert_tensor (ranged, EP_DIMS (2), 1, EP_DOUBLES (2, 3));

  g_assert_false (ep_tensor_histogram (x, 0, NAN, NAN, NULL, NULL, &bad));
  ep_assert_error (bad, EP_ERROR_INVALID_ARGUMENT, "histogram", "0");
  g_clear_error (&bad);
  g_assert_false (ep_tensor_histogram (x, 3, 1, NAN, NULL, NULL, &bad));
  g_assert_error (bad, EP_ERROR, EP_ERROR_INVALID_ARGUMENT);
  g_clear_error (&bad);
  g_assert_false (ep_tensor_histogram (x, 3, 2, 1, NULL, NULL, &bad));
  g_assert_error (bad, EP_ERROR, EP_ERROR_INVALID_ARGUMENT);
  g_clear_error (&bad);
}

int
main (int argc, char **argv)
{
  g_autoptr(GPtrArray) devices = NULL;

  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/index/take", test_take);
  g_test_add_func ("/index/take/errors", test_take_errors);
  g_test_add_func ("/index/embedding", test_embedding);
  g_test_add_func ("/index/embedding/errors", test_embedding_errors);
  g_test_add_func ("/index/gradient/embedding", test_embedding_gradient);
  g_test_add_func ("/index/take-along-axis", test_take_along_axis);
  g_test_add_func ("/index/mask", test_mask);
  g_test_add_func ("/index/nonzero", test_nonzero);
  g_test_add_func ("/index/nonzero/error", test_nonzero_error);
  g_test_add_func ("/index/scatters", test_scatters);
  devices = ep_list_devices ();
  for (guint d = 0; d < devices->len; d++)
    {
      EpDevice *device = g_ptr_array_index (devices, d);
      g_autofree char *messages = g_strdup_printf ("/index/%s/bad-index/messages", ep_device_get_name (device));
      g_autofree char *large = g_strdup_printf ("/index/%s/bad-index/large", ep_device_get_name (device));
      g_autofree char *valid = g_strdup_printf ("/index/%s/valid-unchanged", ep_device_get_name (device));

      g_test_add_data_func (messages, device, test_bad_index_messages);
      g_test_add_data_func (large, device, test_bad_index_in_large_tensor);
      g_test_add_data_func (valid, device, test_valid_indices_unchanged);
    }
  g_test_add_func ("/index/gradient/take", test_gradient_take);
  g_test_add_func ("/index/gradient/take-along-axis", test_gradient_take_along_axis);
  g_test_add_func ("/index/gradient/mask", test_gradient_mask);
  g_test_add_func ("/index/gradient/scatters", test_gradient_scatters);
  g_test_add_func ("/index/bincount", test_bincount);
  g_test_add_func ("/index/histogram", test_histogram);

  return g_test_run ();
}
