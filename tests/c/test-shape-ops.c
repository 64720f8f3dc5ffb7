/* test-shape-ops.c: the shape, indexing and LAPACK ops from C: values,
 * views, and every error path with its code
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include <math.h>

#include <eager-glib/eager-glib.h>

#include "ep-tensor-private.h"
#include "ep-test-util.h"

#define AXES(...) ((const gint[]) { __VA_ARGS__ })

/* Views */

static void
test_broadcast_to (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) x = ep_test_iota (EP_DIMS (3, 1), 2, EP_DTYPE_INT32);
  g_autoptr(EpTensor) b = ep_tensor_broadcast_to (x, EP_DIMS (2, 3, 2), 3, &error);
  const gint64 *strides;

  g_assert_no_error (error);
  ep_test_assert_tensor (b, EP_DIMS (2, 3, 2), 3, EP_DOUBLES (0, 0, 1, 1, 2, 2, 0, 0, 1, 1, 2, 2));
  g_assert_true (ep_tensor_shares_storage (b, x));
  strides = ep_tensor_get_strides (b, NULL);
  g_assert_cmpint (strides[0], ==, 0);
  g_assert_cmpint (strides[2], ==, 0);
}

static void
test_broadcast_to_errors (void)
{
  g_autoptr(EpTensor) x = ep_test_iota (EP_DIMS (3), 1, EP_DTYPE_FLOAT32);
  GError *error = NULL;
  EpTensor *r;

  r = ep_tensor_broadcast_to (x, EP_DIMS (4), 1, &error);
  ep_test_assert_failed (r, error, EP_ERROR_SHAPE, "broadcast_to");
  g_assert_nonnull (strstr (error->message, "(3,)"));
  g_clear_error (&error);
  r = ep_tensor_broadcast_to (x, EP_DIMS (2, -3), 2, &error);
  ep_test_assert_failed (r, error, EP_ERROR_SHAPE, "broadcast_to");
  g_clear_error (&error);
  r = ep_tensor_broadcast_to (x, EP_DIMS (1, 1, 1, 1, 1, 1, 1, 1, 3), 9, &error);
  ep_test_assert_failed (r, error, EP_ERROR_SHAPE, "broadcast_to");
  g_clear_error (&error);
  r = ep_tensor_broadcast_to (x, NULL, 0, &error);
  ep_test_assert_failed (r, error, EP_ERROR_SHAPE, "broadcast_to");
  g_clear_error (&error);
}

static void
test_flip (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) x = ep_test_iota (EP_DIMS (2, 3), 2, EP_DTYPE_INT64);
  g_autoptr(EpTensor) all = ep_tensor_flip (x, NULL, 0, &error);
  g_autoptr(EpTensor) cols = ep_tensor_flip (x, AXES (-1), 1, &error);
  g_autoptr(EpTensor) back = ep_tensor_flip (all, AXES (0, 1), 2, &error);

  g_assert_no_error (error);
  ep_test_assert_tensor (all, EP_DIMS (2, 3), 2, EP_DOUBLES (5, 4, 3, 2, 1, 0));
  ep_test_assert_tensor (cols, EP_DIMS (2, 3), 2, EP_DOUBLES (2, 1, 0, 5, 4, 3));
  ep_test_assert_tensor (back, EP_DIMS (2, 3), 2, EP_DOUBLES (0, 1, 2, 3, 4, 5));
  g_assert_true (ep_tensor_shares_storage (all, x));
  g_assert_cmpint (ep_tensor_get_strides (all, NULL)[0], ==, -3);
  g_assert_true (ep_tensor_is_contiguous (back));
}

static void
test_flip_matmul_and_reshape (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) x = ep_test_iota (EP_DIMS (2, 3), 2, EP_DTYPE_FLOAT64);
  g_autoptr(EpTensor) f = ep_tensor_flip (x, NULL, 0, &error);
  g_autoptr(EpTensor) ft = ep_tensor_transpose (f, NULL, 0, &error);
  g_autoptr(EpTensor) p = ep_tensor_matmul (f, ft, &error);
  g_autoptr(EpTensor) r = ep_tensor_reshape (f, EP_DIMS (3, 2), 2, &error);
  g_autoptr(EpTensor) xi = ep_test_iota (EP_DIMS (2, 3), 2, EP_DTYPE_INT32);
  g_autoptr(EpTensor) fi = ep_tensor_flip (xi, AXES (1), 1, &error);
  g_autoptr(EpTensor) fit = ep_tensor_transpose (fi, NULL, 0, &error);
  g_autoptr(EpTensor) pi = ep_tensor_matmul (fi, fit, &error);

  g_assert_no_error (error);
  /* f = [[5 4 3] [2 1 0]] */
  ep_test_assert_tensor (p, EP_DIMS (2, 2), 2, EP_DOUBLES (50, 14, 14, 5));
  ep_test_assert_tensor (r, EP_DIMS (3, 2), 2, EP_DOUBLES (5, 4, 3, 2, 1, 0));
  /* fi = [[2 1 0] [5 4 3]] */
  ep_test_assert_tensor (pi, EP_DIMS (2, 2), 2, EP_DOUBLES (5, 14, 14, 50));
}

static void
test_slice (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) x = ep_test_iota (EP_DIMS (4, 5), 2, EP_DTYPE_FLOAT32);
  g_autoptr(EpTensor) a = ep_tensor_slice (x, EP_DIMS (1, -1), 2, EP_DIMS (G_MAXINT64, G_MININT64), 2,
                                           EP_DIMS (2, -2), 2, &error);
  g_autoptr(EpTensor) b = ep_tensor_slice (x, EP_DIMS (-100), 1, EP_DIMS (100), 1, NULL, 0, &error);
  g_autoptr(EpTensor) c = ep_tensor_slice (x, EP_DIMS (3), 1, EP_DIMS (3), 1, NULL, 0, &error);
  g_autoptr(EpTensor) d = ep_tensor_slice (x, EP_DIMS (G_MAXINT64), 1, EP_DIMS (G_MININT64), 1,
                                           EP_DIMS (G_MININT64), 1, &error);

  g_assert_no_error (error);
  /* x[1::2, ::-2] */
  ep_test_assert_tensor (a, EP_DIMS (2, 3), 2, EP_DOUBLES (9, 7, 5, 19, 17, 15));
  g_assert_true (ep_tensor_shares_storage (a, x));
  ep_test_assert_tensor (b, EP_DIMS (4, 5), 2,
                         EP_DOUBLES (0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19));
  ep_test_assert_tensor (c, EP_DIMS (0, 5), 2, EP_DOUBLES (0));
  ep_test_assert_tensor (d, EP_DIMS (1, 5), 2, EP_DOUBLES (15, 16, 17, 18, 19));
}

static void
test_slice_errors (void)
{
  g_autoptr(EpTensor) x = ep_test_iota (EP_DIMS (4, 5), 2, EP_DTYPE_FLOAT32);
  GError *error = NULL;
  EpTensor *r;

  r = ep_tensor_slice (x, EP_DIMS (0, 0), 2, EP_DIMS (1, 1), 2, EP_DIMS (1, 0), 2, &error);
  ep_test_assert_failed (r, error, EP_ERROR_INVALID_ARGUMENT, "slice");
  g_assert_nonnull (strstr (error->message, "axis 1"));
  g_clear_error (&error);
  r = ep_tensor_slice (x, EP_DIMS (0, 0, 0), 3, EP_DIMS (1, 1, 1), 3, NULL, 0, &error);
  ep_test_assert_failed (r, error, EP_ERROR_INDEX, "slice");
  g_clear_error (&error);
  r = ep_tensor_slice (x, EP_DIMS (0), 1, EP_DIMS (1, 1), 2, NULL, 0, &error);
  ep_test_assert_failed (r, error, EP_ERROR_INVALID_ARGUMENT, "slice");
  g_clear_error (&error);
}

static void
test_flatten (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) x = ep_test_iota (EP_DIMS (2, 3, 4), 3, EP_DTYPE_BOOL);
  g_autoptr(EpTensor) all = ep_tensor_flatten (x, 0, -1, &error);
  g_autoptr(EpTensor) tail = ep_tensor_flatten (x, 1, 2, &error);
  g_autoptr(EpTensor) scalar = ep_tensor_new_scalar (3, EP_DTYPE_INT32, &error);
  g_autoptr(EpTensor) one = ep_tensor_flatten (scalar, 0, 0, &error);
  GError *bad = NULL;

  g_assert_no_error (error);
  g_assert_cmpint (ep_tensor_get_ndim (all), ==, 1);
  g_assert_cmpint (ep_tensor_get_shape (tail, NULL)[1], ==, 12);
  ep_test_assert_tensor (one, EP_DIMS (1), 1, EP_DOUBLES (3));
  g_assert_true (ep_tensor_shares_storage (all, x));

  g_assert_null (ep_tensor_flatten (x, 2, 1, &bad));
  g_assert_error (bad, EP_ERROR, EP_ERROR_AXIS);
  g_clear_error (&bad);
  g_assert_null (ep_tensor_flatten (x, 0, 3, &bad));
  g_assert_error (bad, EP_ERROR, EP_ERROR_AXIS);
  g_clear_error (&bad);
}

/* Joining */

static void
test_concatenate_and_stack (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) a = ep_test_iota (EP_DIMS (2, 2), 2, EP_DTYPE_INT32);
  g_autoptr(EpTensor) b = ep_ones (EP_DIMS (2, 1), 2, EP_DTYPE_FLOAT32, &error);
  EpTensor *pair[2] = { a, b };
  g_autoptr(EpTensor) c = ep_concatenate (pair, 2, -1, &error);
  EpTensor *same[2] = { a, a };
  g_autoptr(EpTensor) s = ep_stack (same, 2, 2, &error);

  g_assert_no_error (error);
  g_assert_cmpint (ep_tensor_get_dtype (c), ==, EP_DTYPE_FLOAT64);
  ep_test_assert_tensor (c, EP_DIMS (2, 3), 2, EP_DOUBLES (0, 1, 1, 2, 3, 1));
  ep_test_assert_tensor (s, EP_DIMS (2, 2, 2), 3, EP_DOUBLES (0, 0, 1, 1, 2, 2, 3, 3));
}

static void
test_concatenate_errors (void)
{
  g_autoptr(EpTensor) a = ep_test_iota (EP_DIMS (2, 2), 2, EP_DTYPE_INT32);
  g_autoptr(EpTensor) b = ep_test_iota (EP_DIMS (3, 3), 2, EP_DTYPE_INT32);
  g_autoptr(EpTensor) scalar = ep_tensor_new_scalar (1, EP_DTYPE_INT32, NULL);
  EpTensor *pair[2] = { a, b };
  EpTensor *scalars[2] = { scalar, scalar };
  GError *error = NULL;
  EpTensor *r;

  r = ep_concatenate (pair, 2, 0, &error);
  ep_test_assert_failed (r, error, EP_ERROR_SHAPE, "concatenate");
  g_assert_nonnull (strstr (error->message, "(3, 3)"));
  g_clear_error (&error);
  r = ep_concatenate (pair, 2, 2, &error);
  ep_test_assert_failed (r, error, EP_ERROR_AXIS, "concatenate");
  g_clear_error (&error);
  r = ep_concatenate (scalars, 2, 0, &error);
  ep_test_assert_failed (r, error, EP_ERROR_SHAPE, "concatenate");
  g_clear_error (&error);
  r = ep_concatenate (NULL, 0, 0, &error);
  ep_test_assert_failed (r, error, EP_ERROR_INVALID_ARGUMENT, "concatenate");
  g_clear_error (&error);
  r = ep_stack (pair, 2, 0, &error);
  ep_test_assert_failed (r, error, EP_ERROR_SHAPE, "stack");
  g_clear_error (&error);
  r = ep_stack (scalars, 2, 2, &error);
  ep_test_assert_failed (r, error, EP_ERROR_AXIS, "stack");
  g_clear_error (&error);
  r = ep_stack (NULL, 0, 0, &error);
  ep_test_assert_failed (r, error, EP_ERROR_INVALID_ARGUMENT, "stack");
  g_clear_error (&error);
}

/* A part from @parts, which must own it: it goes with the array */
static void
assert_owned_by (GPtrArray *parts,
                 guint      i)
{
  gpointer part = g_ptr_array_index (parts, i);

  g_object_add_weak_pointer (part, &part);
  g_ptr_array_unref (parts);
  g_assert_null (part);
}

static void
test_split (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) x = ep_test_iota (EP_DIMS (2, 6), 2, EP_DTYPE_FLOAT64);
  GPtrArray *parts = ep_tensor_split (x, 3, 1, &error);

  g_assert_no_error (error);
  g_assert_cmpuint (parts->len, ==, 3);
  ep_test_assert_tensor (g_ptr_array_index (parts, 0), EP_DIMS (2, 2), 2, EP_DOUBLES (0, 1, 6, 7));
  ep_test_assert_tensor (g_ptr_array_index (parts, 1), EP_DIMS (2, 2), 2, EP_DOUBLES (2, 3, 8, 9));
  ep_test_assert_tensor (g_ptr_array_index (parts, 2), EP_DIMS (2, 2), 2, EP_DOUBLES (4, 5, 10, 11));
  g_assert_true (ep_tensor_shares_storage (g_ptr_array_index (parts, 2), x));
  assert_owned_by (parts, 1);

  parts = ep_tensor_split_at (x, EP_DIMS (1, -1, 100), 3, -1, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (parts->len, ==, 4);
  ep_test_assert_tensor (g_ptr_array_index (parts, 0), EP_DIMS (2, 1), 2, EP_DOUBLES (0, 6));
  ep_test_assert_tensor (g_ptr_array_index (parts, 1), EP_DIMS (2, 4), 2, EP_DOUBLES (1, 2, 3, 4, 7, 8, 9, 10));
  ep_test_assert_tensor (g_ptr_array_index (parts, 2), EP_DIMS (2, 1), 2, EP_DOUBLES (5, 11));
  ep_test_assert_tensor (g_ptr_array_index (parts, 3), EP_DIMS (2, 0), 2, EP_DOUBLES (0));
  assert_owned_by (parts, 3);

  parts = ep_tensor_split_at (x, NULL, 0, 0, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (parts->len, ==, 1);
  ep_test_assert_tensor (g_ptr_array_index (parts, 0), EP_DIMS (2, 6), 2,
                         EP_DOUBLES (0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11));
  assert_owned_by (parts, 0);
}

static void
test_split_errors (void)
{
  g_autoptr(EpTensor) x = ep_test_iota (EP_DIMS (2, 7), 2, EP_DTYPE_FLOAT64);
  GError *error = NULL;

  g_assert_null (ep_tensor_split (x, 3, 1, &error));
  g_assert_error (error, EP_ERROR, EP_ERROR_SHAPE);
  g_assert_nonnull (strstr (error->message, "7"));
  g_clear_error (&error);
  g_assert_null (ep_tensor_split (x, 0, 1, &error));
  g_assert_error (error, EP_ERROR, EP_ERROR_INVALID_ARGUMENT);
  g_clear_error (&error);
  g_assert_null (ep_tensor_split (x, 1, 2, &error));
  g_assert_error (error, EP_ERROR, EP_ERROR_AXIS);
  g_clear_error (&error);
  g_assert_null (ep_tensor_split_at (x, NULL, 0, -3, &error));
  g_assert_error (error, EP_ERROR, EP_ERROR_AXIS);
  g_clear_error (&error);
}

static void
test_tile (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) x = ep_test_iota (EP_DIMS (2), 1, EP_DTYPE_INT64);
  g_autoptr(EpTensor) t = ep_tensor_tile (x, EP_DIMS (2, 2), 2, &error);
  g_autoptr(EpTensor) z = ep_tensor_tile (x, EP_DIMS (0), 1, &error);
  GError *bad = NULL;

  g_assert_no_error (error);
  ep_test_assert_tensor (t, EP_DIMS (2, 4), 2, EP_DOUBLES (0, 1, 0, 1, 0, 1, 0, 1));
  ep_test_assert_tensor (z, EP_DIMS (0), 1, EP_DOUBLES (0));

  g_assert_null (ep_tensor_tile (x, EP_DIMS (-2), 1, &bad));
  g_assert_error (bad, EP_ERROR, EP_ERROR_INVALID_ARGUMENT);
  g_assert_nonnull (strstr (bad->message, "-2"));
  g_clear_error (&bad);
  g_assert_null (ep_tensor_tile (x, EP_DIMS (1, 1, 1, 1, 1, 1, 1, 1, 1), 9, &bad));
  g_assert_error (bad, EP_ERROR, EP_ERROR_SHAPE);
  g_clear_error (&bad);
  g_assert_null (ep_tensor_tile (x, EP_DIMS (G_MAXINT64), 1, &bad));
  g_assert_error (bad, EP_ERROR, EP_ERROR_OUT_OF_MEMORY);
  g_clear_error (&bad);
}

static void
test_pad (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) x = ep_test_iota (EP_DIMS (3), 1, EP_DTYPE_FLOAT32);
  g_autoptr(EpTensor) c = ep_tensor_pad (x, EP_DIMS (1, 2), 2, EP_PAD_CONSTANT, -1, &error);
  g_autoptr(EpTensor) r = ep_tensor_pad (x, EP_DIMS (5, 4), 2, EP_PAD_REFLECT, 0, &error);
  GError *bad = NULL;

  g_assert_no_error (error);
  ep_test_assert_tensor (c, EP_DIMS (6), 1, EP_DOUBLES (-1, 0, 1, 2, -1, -1));
  /* NumPy: np.pad([0, 1, 2], (5, 4), 'reflect') */
  ep_test_assert_tensor (r, EP_DIMS (12), 1, EP_DOUBLES (1, 0, 1, 2, 1, 0, 1, 2, 1, 0, 1, 2));

  g_assert_null (ep_tensor_pad (x, EP_DIMS (1), 1, EP_PAD_CONSTANT, 0, &bad));
  g_assert_error (bad, EP_ERROR, EP_ERROR_SHAPE);
  g_assert_true (g_str_has_prefix (bad->message, "pad"));
  g_clear_error (&bad);
  g_assert_null (ep_tensor_pad (x, EP_DIMS (1, 1, 1, 1), 4, EP_PAD_CONSTANT, 0, &bad));
  g_assert_error (bad, EP_ERROR, EP_ERROR_SHAPE);
  g_clear_error (&bad);
  g_assert_null (ep_tensor_pad (x, EP_DIMS (-1, 1), 2, EP_PAD_CONSTANT, 0, &bad));
  g_assert_error (bad, EP_ERROR, EP_ERROR_INVALID_ARGUMENT);
  g_clear_error (&bad);
  g_assert_null (ep_tensor_pad (x, EP_DIMS (1, 1), 2, 7, 0, &bad));
  g_assert_error (bad, EP_ERROR, EP_ERROR_INVALID_ARGUMENT);
  g_clear_error (&bad);
}

static void
test_meshgrid (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) x = ep_test_iota (EP_DIMS (3), 1, EP_DTYPE_INT32);
  g_autoptr(EpTensor) y = ep_test_iota (EP_DIMS (2), 1, EP_DTYPE_FLOAT32);
  EpTensor *inputs[2] = { x, y };
  GPtrArray *grids = ep_meshgrid (inputs, 2, EP_MESH_XY, &error);

  g_assert_no_error (error);
  g_assert_cmpuint (grids->len, ==, 2);
  ep_test_assert_tensor (g_ptr_array_index (grids, 0), EP_DIMS (2, 3), 2, EP_DOUBLES (0, 1, 2, 0, 1, 2));
  ep_test_assert_tensor (g_ptr_array_index (grids, 1), EP_DIMS (2, 3), 2, EP_DOUBLES (0, 0, 0, 1, 1, 1));
  g_assert_cmpint (ep_tensor_get_dtype (g_ptr_array_index (grids, 0)), ==, EP_DTYPE_INT32);
  g_assert_cmpint (ep_tensor_get_dtype (g_ptr_array_index (grids, 1)), ==, EP_DTYPE_FLOAT32);
  assert_owned_by (grids, 0);

  grids = ep_meshgrid (inputs, 2, EP_MESH_IJ, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (grids->len, ==, 2);
  ep_test_assert_tensor (g_ptr_array_index (grids, 0), EP_DIMS (3, 2), 2, EP_DOUBLES (0, 0, 1, 1, 2, 2));
  ep_test_assert_tensor (g_ptr_array_index (grids, 1), EP_DIMS (3, 2), 2, EP_DOUBLES (0, 1, 0, 1, 0, 1));
  assert_owned_by (grids, 1);

  grids = ep_meshgrid (NULL, 0, EP_MESH_XY, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (grids->len, ==, 0);
  g_ptr_array_unref (grids);

  g_assert_null (ep_meshgrid (inputs, 2, 5, &error));
  g_assert_error (error, EP_ERROR, EP_ERROR_INVALID_ARGUMENT);
}

/* Indexing */

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

/* Linear algebra */

static void
test_inv_and_slogdet (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) flat = ep_test_vector (EP_DOUBLES (4, 7, 2, 6), 4, EP_DTYPE_INT32);
  g_autoptr(EpTensor) a = ep_tensor_reshape (flat, EP_DIMS (2, 2), 2, &error);
  g_autoptr(EpTensor) inverse = ep_tensor_inv (a, &error);
  g_autoptr(EpTensor) sign = NULL;
  g_autoptr(EpTensor) logdet = NULL;
  g_autoptr(EpTensor) sign_only = NULL;
  g_autoptr(EpTensor) logdet_only = NULL;

  g_assert_no_error (error);
  g_assert_cmpint (ep_tensor_get_dtype (inverse), ==, EP_DTYPE_FLOAT64);
  ep_test_assert_tensor (inverse, EP_DIMS (2, 2), 2, EP_DOUBLES (0.6, -0.7, -0.2, 0.4));
  g_assert_true (ep_tensor_slogdet (a, &sign, &logdet, &error));
  g_assert_no_error (error);
  g_assert_cmpfloat (ep_tensor_item_double (sign, NULL), ==, 1.0);
  g_assert_cmpfloat_with_epsilon (ep_tensor_item_double (logdet, NULL), log (10.0), 1e-12);
  g_assert_true (ep_tensor_slogdet (a, &sign_only, NULL, &error));
  g_assert_no_error (error);
  g_assert_cmpfloat (ep_tensor_item_double (sign_only, NULL), ==, 1.0);
  g_assert_true (ep_tensor_slogdet (a, NULL, &logdet_only, &error));
  g_assert_no_error (error);
  g_assert_cmpfloat_with_epsilon (ep_tensor_item_double (logdet_only, NULL), log (10.0), 1e-12);
  g_assert_true (ep_tensor_slogdet (a, NULL, NULL, &error));
  g_assert_no_error (error);
}

/* Both results come back, in NumPy's order, for each matrix of a batch:
 * a negative determinant, a singular matrix (sign 0, -inf). */
static void
test_slogdet_batch (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) flat = ep_test_vector (EP_DOUBLES (0, 1, 1, 0, 1, 2, 2, 4, 3, 0, 0, 2), 12, EP_DTYPE_FLOAT64);
  g_autoptr(EpTensor) a = ep_tensor_reshape (flat, EP_DIMS (3, 2, 2), 3, &error);
  g_autoptr(EpTensor) sign = NULL;
  g_autoptr(EpTensor) logdet = NULL;
  g_autoptr(GBytes) bytes = NULL;
  const gdouble *values;

  g_assert_true (ep_tensor_slogdet (a, &sign, &logdet, &error));
  g_assert_no_error (error);
  ep_test_assert_tensor (sign, EP_DIMS (3), 1, EP_DOUBLES (-1, 0, 1));
  bytes = ep_tensor_to_bytes (logdet, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (g_bytes_get_size (bytes), ==, 3 * sizeof (gdouble));
  values = g_bytes_get_data (bytes, NULL);
  g_assert_cmpfloat (values[0], ==, 0.0);
  g_assert_true (isinf (values[1]) && values[1] < 0);
  g_assert_cmpfloat_with_epsilon (values[2], log (6.0), 1e-12);
}

/* A broadcast view can describe matrices larger than memory: their
 * work space is an error, not an overflow. */
static void
test_slogdet_of_huge_broadcast (void)
{
  g_autoptr(EpTensor) one = ep_ones (EP_DIMS (1, 1), 2, EP_DTYPE_FLOAT64, NULL);
  g_autoptr(EpTensor) huge = ep_tensor_broadcast_to (one, EP_DIMS (G_MAXINT32, G_MAXINT32), 2, NULL);
  g_autoptr(EpTensor) sign = NULL;
  g_autoptr(EpTensor) logdet = NULL;
  GError *error = NULL;

  g_assert_nonnull (huge);
  g_assert_false (ep_tensor_slogdet (huge, &sign, &logdet, &error));
  g_assert_error (error, EP_ERROR, EP_ERROR_OUT_OF_MEMORY);
  g_assert_null (sign);
  g_assert_null (logdet);
  g_clear_error (&error);
  g_assert_null (ep_tensor_inv (huge, &error));
  g_assert_error (error, EP_ERROR, EP_ERROR_OUT_OF_MEMORY);
  g_clear_error (&error);
}

/* LAPACK counts in 32-bit integers: larger matrices are a shape error
 * before anything is allocated. */
static void
test_lapack_order_limit (void)
{
  g_autoptr(EpTensor) one = ep_ones (EP_DIMS (1, 1), 2, EP_DTYPE_BOOL, NULL);
  g_autoptr(EpTensor) huge = ep_tensor_broadcast_to (one, EP_DIMS ((gint64) G_MAXINT32 + 1, (gint64) G_MAXINT32 + 1), 2,
                                                     NULL);
  g_autoptr(EpTensor) column = ep_tensor_broadcast_to (one, EP_DIMS ((gint64) G_MAXINT32 + 1, 1), 2, NULL);
  g_autoptr(EpTensor) sign = NULL;
  g_autoptr(EpTensor) logdet = NULL;
  GError *error = NULL;
  EpTensor *r;

  g_assert_nonnull (huge);
  r = ep_tensor_inv (huge, &error);
  ep_test_assert_failed (r, error, EP_ERROR_SHAPE, "inv");
  g_assert_nonnull (strstr (error->message, "too large"));
  g_clear_error (&error);
  g_assert_false (ep_tensor_slogdet (huge, &sign, &logdet, &error));
  ep_test_assert_failed (NULL, error, EP_ERROR_SHAPE, "slogdet");
  g_assert_null (sign);
  g_assert_null (logdet);
  g_clear_error (&error);
  r = ep_tensor_solve (huge, column, &error);
  ep_test_assert_failed (r, error, EP_ERROR_SHAPE, "solve");
  g_clear_error (&error);
}

static void
test_linalg_errors (void)
{
  g_autoptr(EpTensor) singular = ep_zeros (EP_DIMS (3, 3), 2, EP_DTYPE_FLOAT32, NULL);
  g_autoptr(EpTensor) wide = ep_zeros (EP_DIMS (2, 3), 2, EP_DTYPE_FLOAT32, NULL);
  g_autoptr(EpTensor) b = ep_zeros (EP_DIMS (3), 1, EP_DTYPE_FLOAT32, NULL);
  g_autoptr(EpTensor) b4 = ep_zeros (EP_DIMS (4), 1, EP_DTYPE_FLOAT32, NULL);
  g_autoptr(EpTensor) sign = NULL;
  g_autoptr(EpTensor) logdet = NULL;
  GError *error = NULL;
  EpTensor *r;

  r = ep_tensor_inv (singular, &error);
  ep_test_assert_failed (r, error, EP_ERROR_INVALID_ARGUMENT, "inv");
  g_assert_nonnull (strstr (error->message, "singular"));
  g_clear_error (&error);
  r = ep_tensor_inv (wide, &error);
  ep_test_assert_failed (r, error, EP_ERROR_SHAPE, "inv");
  g_clear_error (&error);
  r = ep_tensor_inv (b, &error);
  ep_test_assert_failed (r, error, EP_ERROR_SHAPE, "inv");
  g_clear_error (&error);
  r = ep_tensor_solve (singular, b, &error);
  ep_test_assert_failed (r, error, EP_ERROR_INVALID_ARGUMENT, "solve");
  g_clear_error (&error);
  r = ep_tensor_solve (wide, b, &error);
  ep_test_assert_failed (r, error, EP_ERROR_SHAPE, "solve");
  g_clear_error (&error);
  r = ep_tensor_solve (singular, b4, &error);
  ep_test_assert_failed (r, error, EP_ERROR_SHAPE, "solve");
  g_clear_error (&error);
  g_assert_false (ep_tensor_slogdet (wide, &sign, &logdet, &error));
  ep_test_assert_failed (NULL, error, EP_ERROR_SHAPE, "slogdet");
  g_assert_null (sign);
  g_assert_null (logdet);
  g_clear_error (&error);
}

static void
test_dot_errors (void)
{
  g_autoptr(EpTensor) wide = ep_zeros (EP_DIMS (2, 3), 2, EP_DTYPE_FLOAT32, NULL);
  GError *error = NULL;
  EpTensor *r;

  r = ep_tensor_dot (wide, wide, &error);
  ep_test_assert_failed (r, error, EP_ERROR_SHAPE, "dot");
  g_clear_error (&error);
}

static void
test_solve (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) flat = ep_test_vector (EP_DOUBLES (2, 1, 1, 3), 4, EP_DTYPE_FLOAT64);
  g_autoptr(EpTensor) a = ep_tensor_reshape (flat, EP_DIMS (2, 2), 2, &error);
  g_autoptr(EpTensor) b = ep_test_vector (EP_DOUBLES (3, 5), 2, EP_DTYPE_FLOAT64);
  g_autoptr(EpTensor) x = ep_tensor_solve (a, b, &error);

  g_assert_no_error (error);
  ep_test_assert_tensor (x, EP_DIMS (2), 1, EP_DOUBLES (0.8, 1.4));
}

static void
test_dot_outer (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) flat = ep_test_vector (EP_DOUBLES (2, 1, 1, 3), 4, EP_DTYPE_FLOAT64);
  g_autoptr(EpTensor) a = ep_tensor_reshape (flat, EP_DIMS (2, 2), 2, &error);
  g_autoptr(EpTensor) b = ep_test_vector (EP_DOUBLES (3, 5), 2, EP_DTYPE_FLOAT64);
  g_autoptr(EpTensor) d = ep_tensor_dot (a, b, &error);
  g_autoptr(EpTensor) o = ep_tensor_outer (b, b, &error);

  g_assert_no_error (error);
  ep_test_assert_tensor (d, EP_DIMS (2), 1, EP_DOUBLES (11, 18));
  ep_test_assert_tensor (o, EP_DIMS (2, 2), 2, EP_DOUBLES (9, 15, 15, 25));
}

/* Views keep their source's storage alive, and nothing leaks. */
static void
test_views_outlive_source (void)
{
  g_autoptr(GError) error = NULL;
  EpTensor *x = ep_test_iota (EP_DIMS (4, 4), 2, EP_DTYPE_FLOAT32);
  EpTensor *view = ep_tensor_slice (x, EP_DIMS (G_MAXINT64), 1, EP_DIMS (G_MININT64), 1,
                                    EP_DIMS (-3), 1, &error);

  g_assert_no_error (error);
  g_assert_finalize_object (x);
  ep_test_assert_tensor (view, EP_DIMS (2, 4), 2, EP_DOUBLES (12, 13, 14, 15, 0, 1, 2, 3));
  g_assert_finalize_object (view);
}

int
main (int argc, char **argv)
{
  g_autoptr(GPtrArray) devices = NULL;

  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/shape/broadcast-to", test_broadcast_to);
  g_test_add_func ("/shape/broadcast-to/errors", test_broadcast_to_errors);
  g_test_add_func ("/shape/flip", test_flip);
  g_test_add_func ("/shape/flip/matmul-and-reshape", test_flip_matmul_and_reshape);
  g_test_add_func ("/shape/slice", test_slice);
  g_test_add_func ("/shape/slice/errors", test_slice_errors);
  g_test_add_func ("/shape/flatten", test_flatten);
  g_test_add_func ("/shape/views-outlive-source", test_views_outlive_source);
  g_test_add_func ("/join/concatenate-and-stack", test_concatenate_and_stack);
  g_test_add_func ("/join/concatenate/errors", test_concatenate_errors);
  g_test_add_func ("/join/split", test_split);
  g_test_add_func ("/join/split/errors", test_split_errors);
  g_test_add_func ("/join/tile", test_tile);
  g_test_add_func ("/join/pad", test_pad);
  g_test_add_func ("/join/meshgrid", test_meshgrid);
  g_test_add_func ("/index/take", test_take);
  g_test_add_func ("/index/take/errors", test_take_errors);
  g_test_add_func ("/index/take-along-axis", test_take_along_axis);
  g_test_add_func ("/index/mask", test_mask);
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
  g_test_add_func ("/lapack/inv-and-slogdet", test_inv_and_slogdet);
  g_test_add_func ("/lapack/slogdet-batch", test_slogdet_batch);
  g_test_add_func ("/lapack/solve", test_solve);
  g_test_add_func ("/lapack/dot-outer", test_dot_outer);
  g_test_add_func ("/lapack/errors", test_linalg_errors);
  g_test_add_func ("/lapack/dot-errors", test_dot_errors);
  g_test_add_func ("/lapack/slogdet-of-huge-broadcast", test_slogdet_of_huge_broadcast);
  g_test_add_func ("/lapack/order-limit", test_lapack_order_limit);

  return g_test_run ();
}
