/* test-shape.c: reshape, transpose, expand_dims, squeeze (views)
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "ep-test-util.h"

static void
assert_strides (EpTensor     *t,
                const gint64 *want,
                guint         ndim)
{
  guint have_ndim;
  const gint64 *have = ep_tensor_get_strides (t, &have_ndim);

  g_assert_cmpuint (have_ndim, ==, ndim);
  for (guint d = 0; d < ndim; d++)
    g_assert_cmpint (have[d], ==, want[d]);
}

/* arange (24) as (2, 3, 4), float32 */
static EpTensor *
new_cube (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) flat = ep_arange (0, 24, 1, EP_DTYPE_FLOAT32, &error);
  EpTensor *cube = ep_tensor_reshape (flat, EP_SHAPE (2, 3, 4), &error);

  g_assert_no_error (error);
  return cube;
}

/* reshape */

static void
test_reshape_is_a_view (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) x = ep_test_new (EP_DTYPE_INT32, EP_SHAPE (2, 3), EP_VALUES (1, 2, 3, 4, 5, 6));
  g_autoptr(EpTensor) y = ep_tensor_reshape (x, EP_SHAPE (3, 2), &error);

  g_assert_no_error (error);
  ep_assert_values (y, EP_DTYPE_INT32, EP_SHAPE (3, 2), EP_VALUES (1, 2, 3, 4, 5, 6));
  g_assert_true (ep_tensor_shares_storage (x, y));
  g_assert_true (ep_tensor_is_contiguous (y));
  assert_strides (y, EP_SHAPE (2, 1));
}

static void
test_reshape_infers_minus_one (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) x = new_cube ();
  g_autoptr(EpTensor) a = ep_tensor_reshape (x, EP_SHAPE (-1, 4), &error);
  g_autoptr(EpTensor) b = ep_tensor_reshape (x, EP_SHAPE (-1), &error);
  g_autoptr(EpTensor) c = ep_tensor_reshape (x, EP_SHAPE (4, -1, 2), &error);

  g_assert_no_error (error);
  ep_assert_shape (a, EP_SHAPE (6, 4));
  ep_assert_shape (b, EP_SHAPE (24));
  ep_assert_shape (c, EP_SHAPE (4, 3, 2));
  g_assert_true (ep_tensor_shares_storage (x, c));
}

static void
test_reshape_scalars (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) x = ep_test_new (EP_DTYPE_FLOAT64, EP_SHAPE (1, 1), EP_VALUES (7));
  g_autoptr(EpTensor) s = ep_tensor_reshape (x, NULL, 0, &error);
  g_autoptr(EpTensor) back = ep_tensor_reshape (s, EP_SHAPE (1, -1, 1), &error);

  g_assert_no_error (error);
  ep_assert_values (s, EP_DTYPE_FLOAT64, EP_SCALAR, EP_VALUES (7));
  ep_assert_values (back, EP_DTYPE_FLOAT64, EP_SHAPE (1, 1, 1), EP_VALUES (7));
}

static void
test_reshape_empty (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) x = ep_zeros (EP_SHAPE (0, 3), EP_DTYPE_FLOAT32, &error);
  g_autoptr(EpTensor) y = ep_tensor_reshape (x, EP_SHAPE (3, 0, 5), &error);
  g_autoptr(EpTensor) z = ep_tensor_reshape (x, EP_SHAPE (-1, 3), &error);

  g_assert_no_error (error);
  ep_assert_shape (y, EP_SHAPE (3, 0, 5));
  ep_assert_shape (z, EP_SHAPE (0, 3));
}

/* The transpose of a matrix cannot be flattened without a copy. */
static void
test_reshape_copies_when_it_must (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) x = ep_test_new (EP_DTYPE_INT64, EP_SHAPE (2, 3), EP_VALUES (1, 2, 3, 4, 5, 6));
  g_autoptr(EpTensor) t = ep_tensor_transpose (x, NULL, 0, &error);
  g_autoptr(EpTensor) y = ep_tensor_reshape (t, EP_SHAPE (6), &error);

  g_assert_no_error (error);
  ep_assert_values (y, EP_DTYPE_INT64, EP_SHAPE (6), EP_VALUES (1, 4, 2, 5, 3, 6));
  g_assert_false (ep_tensor_shares_storage (x, y));
  g_assert_true (ep_tensor_is_contiguous (y));
}

/* Splitting or adding unit dimensions of a transposed tensor can stay a
 * view. */
static void
test_reshape_of_transpose_views_when_possible (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) x = new_cube ();
  g_autoptr(EpTensor) t = ep_tensor_transpose (x, NULL, 0, &error);          /* (4, 3, 2) */
  g_autoptr(EpTensor) y = ep_tensor_reshape (t, EP_SHAPE (2, 2, 1, 3, 2), &error);

  g_assert_no_error (error);
  g_assert_true (ep_tensor_shares_storage (x, y));
  ep_assert_values (y, EP_DTYPE_FLOAT32, EP_SHAPE (2, 2, 1, 3, 2), EP_VALUES (
    0, 12, 4, 16, 8, 20, 1, 13, 5, 17, 9, 21, 2, 14, 6, 18, 10, 22, 3, 15, 7, 19, 11, 23));
}

/* Every other element of a buffer, at an offset: a flat view keeps the
 * stride and the offset. */
static void
test_reshape_of_strided_is_a_view (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) x = ep_test_new_strided (EP_DTYPE_FLOAT32, EP_SHAPE (2, 3), EP_VALUES (1, 2, 3, 4, 5, 6));
  g_autoptr(EpTensor) y = ep_tensor_reshape (x, EP_SHAPE (3, 2), &error);

  g_assert_no_error (error);
  g_assert_true (ep_tensor_shares_storage (x, y));
  g_assert_false (ep_tensor_is_contiguous (y));
  assert_strides (y, EP_SHAPE (4, 2));
  ep_assert_values (y, EP_DTYPE_FLOAT32, EP_SHAPE (3, 2), EP_VALUES (1, 2, 3, 4, 5, 6));
}

static void
test_reshape_size_mismatch (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) x = ep_test_new (EP_DTYPE_FLOAT32, EP_SHAPE (2, 3), EP_VALUES (1, 2, 3, 4, 5, 6));
  g_autoptr(EpTensor) y = ep_tensor_reshape (x, EP_SHAPE (4), &error);

  g_assert_null (y);
  ep_assert_error (error, EP_ERROR_SHAPE, "reshape",
                   "cannot reshape a tensor of shape (2, 3) (6 elements) into shape (4,)");
}

static void
test_reshape_minus_one_does_not_divide (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) x = ep_test_new (EP_DTYPE_FLOAT32, EP_SHAPE (6), EP_VALUES (1, 2, 3, 4, 5, 6));
  g_autoptr(EpTensor) y = ep_tensor_reshape (x, EP_SHAPE (-1, 4), &error);

  g_assert_null (y);
  ep_assert_error (error, EP_ERROR_SHAPE, "reshape", "(-1, 4)");
}

static void
test_reshape_minus_one_with_zero (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) x = ep_zeros (EP_SHAPE (0, 3), EP_DTYPE_FLOAT32, &error);
  g_autoptr(EpTensor) y = ep_tensor_reshape (x, EP_SHAPE (-1, 0), &error);

  g_assert_null (y);
  ep_assert_error (error, EP_ERROR_SHAPE, "reshape", NULL);
}

static void
test_reshape_two_unknowns (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) x = ep_test_new (EP_DTYPE_FLOAT32, EP_SHAPE (4), EP_VALUES (1, 2, 3, 4));
  g_autoptr(EpTensor) y = ep_tensor_reshape (x, EP_SHAPE (-1, -1), &error);

  g_assert_null (y);
  ep_assert_error (error, EP_ERROR_SHAPE, "reshape", "only one -1");
}

static void
test_reshape_negative_extent (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) x = ep_test_new (EP_DTYPE_FLOAT32, EP_SHAPE (4), EP_VALUES (1, 2, 3, 4));
  g_autoptr(EpTensor) y = ep_tensor_reshape (x, EP_SHAPE (-2, -2), &error);

  g_assert_null (y);
  ep_assert_error (error, EP_ERROR_SHAPE, "reshape", "(-2, -2)");
}

static void
test_reshape_too_many_dimensions (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) x = ep_test_new (EP_DTYPE_FLOAT32, EP_SHAPE (1), EP_VALUES (1));
  g_autoptr(EpTensor) y = ep_tensor_reshape (x, EP_SHAPE (1, 1, 1, 1, 1, 1, 1, 1, 1), &error);

  g_assert_null (y);
  ep_assert_error (error, EP_ERROR_SHAPE, "reshape", "9 dimensions");
}

/* Far more dimensions than EpOpAttrs can hold: still an error, not an
 * overflow. */
static void
test_reshape_far_too_many_dimensions (void)
{
  gint64 shape[40];
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) x = ep_test_new (EP_DTYPE_FLOAT32, EP_SHAPE (1), EP_VALUES (1));
  g_autoptr(EpTensor) y = NULL;

  for (guint i = 0; i < G_N_ELEMENTS (shape); i++)
    shape[i] = 1;
  y = ep_tensor_reshape (x, shape, G_N_ELEMENTS (shape), &error);

  g_assert_null (y);
  ep_assert_error (error, EP_ERROR_SHAPE, "reshape", "40 dimensions");
}

static void
test_reshape_absurd_shape (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) x = ep_test_new (EP_DTYPE_FLOAT32, EP_SHAPE (4), EP_VALUES (1, 2, 3, 4));
  g_autoptr(EpTensor) y = ep_tensor_reshape (x, EP_SHAPE (EP_TERA, EP_TERA, EP_TERA), &error);
  g_autoptr(EpTensor) z = NULL;

  g_assert_null (y);
  ep_assert_error (error, EP_ERROR_SHAPE, "reshape", NULL);
  g_clear_error (&error);
  z = ep_tensor_reshape (x, EP_SHAPE (EP_TERA, EP_TERA, -1), &error);
  g_assert_null (z);
  ep_assert_error (error, EP_ERROR_SHAPE, "reshape", NULL);
}

/* transpose */

static void
test_transpose_reverses (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) x = new_cube ();
  g_autoptr(EpTensor) t = ep_tensor_transpose (x, NULL, 0, &error);

  g_assert_no_error (error);
  ep_assert_shape (t, EP_SHAPE (4, 3, 2));
  assert_strides (t, EP_SHAPE (1, 4, 12));
  g_assert_true (ep_tensor_shares_storage (x, t));
  g_assert_false (ep_tensor_is_contiguous (t));
  ep_assert_values (t, EP_DTYPE_FLOAT32, EP_SHAPE (4, 3, 2), EP_VALUES (
    0, 12, 4, 16, 8, 20, 1, 13, 5, 17, 9, 21, 2, 14, 6, 18, 10, 22, 3, 15, 7, 19, 11, 23));
}

static void
test_transpose_permutation (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) x = new_cube ();
  g_autoptr(EpTensor) t = ep_tensor_transpose (x, EP_AXES (1, -1, 0), &error);

  g_assert_no_error (error);
  ep_assert_shape (t, EP_SHAPE (3, 4, 2));
  assert_strides (t, EP_SHAPE (4, 1, 12));
  ep_assert_values (t, EP_DTYPE_FLOAT32, EP_SHAPE (3, 4, 2), EP_VALUES (
    0, 12, 1, 13, 2, 14, 3, 15, 4, 16, 5, 17, 6, 18, 7, 19, 8, 20, 9, 21, 10, 22, 11, 23));
}

static void
test_transpose_twice_is_identity (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) x = new_cube ();
  g_autoptr(EpTensor) t = ep_tensor_transpose (x, EP_AXES (2, 0, 1), &error);
  g_autoptr(EpTensor) u = ep_tensor_transpose (t, EP_AXES (1, 2, 0), &error);

  g_assert_no_error (error);
  ep_assert_shape (u, EP_SHAPE (2, 3, 4));
  g_assert_true (ep_tensor_is_contiguous (u));
}

static void
test_transpose_low_ranks (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) v = ep_test_new (EP_DTYPE_FLOAT32, EP_SHAPE (3), EP_VALUES (1, 2, 3));
  g_autoptr(EpTensor) s = ep_test_new (EP_DTYPE_FLOAT32, EP_SCALAR, EP_VALUES (5));
  g_autoptr(EpTensor) vt = ep_tensor_transpose (v, NULL, 0, &error);
  g_autoptr(EpTensor) st = ep_tensor_transpose (s, NULL, 0, &error);

  g_assert_no_error (error);
  ep_assert_values (vt, EP_DTYPE_FLOAT32, EP_SHAPE (3), EP_VALUES (1, 2, 3));
  ep_assert_values (st, EP_DTYPE_FLOAT32, EP_SCALAR, EP_VALUES (5));
}

static void
test_transpose_of_strided (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) x = ep_test_new_strided (EP_DTYPE_INT32, EP_SHAPE (2, 2), EP_VALUES (1, 2, 3, 4));
  g_autoptr(EpTensor) t = ep_tensor_transpose (x, NULL, 0, &error);

  g_assert_no_error (error);
  ep_assert_values (t, EP_DTYPE_INT32, EP_SHAPE (2, 2), EP_VALUES (1, 3, 2, 4));
}

static void
test_transpose_wrong_count (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) x = new_cube ();
  g_autoptr(EpTensor) t = ep_tensor_transpose (x, EP_AXES (1, 0), &error);

  g_assert_null (t);
  ep_assert_error (error, EP_ERROR_AXIS, "transpose", "2 axes given for a tensor of 3 dimensions");
}

static void
test_transpose_repeated (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) x = new_cube ();
  g_autoptr(EpTensor) t = ep_tensor_transpose (x, EP_AXES (0, 2, -1), &error);

  g_assert_null (t);
  ep_assert_error (error, EP_ERROR_AXIS, "transpose", "repeated");
}

static void
test_transpose_out_of_range (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) x = new_cube ();
  g_autoptr(EpTensor) t = ep_tensor_transpose (x, EP_AXES (0, 1, 3), &error);

  g_assert_null (t);
  ep_assert_error (error, EP_ERROR_AXIS, "transpose", "axis 3 is out of range");
}

static void
test_transpose_too_many_axes (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) x = new_cube ();
  g_autoptr(EpTensor) t = ep_tensor_transpose (x, EP_AXES (0, 1, 2, 3, 4, 5, 6, 7, 8), &error);

  g_assert_null (t);
  ep_assert_error (error, EP_ERROR_AXIS, "transpose", "9 axes");
}

/* expand_dims */

static void
test_expand_dims (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) x = ep_test_new (EP_DTYPE_FLOAT32, EP_SHAPE (2, 3), EP_VALUES (1, 2, 3, 4, 5, 6));
  g_autoptr(EpTensor) a0 = ep_tensor_expand_dims (x, 0, &error);
  g_autoptr(EpTensor) a1 = ep_tensor_expand_dims (x, 1, &error);
  g_autoptr(EpTensor) a2 = ep_tensor_expand_dims (x, 2, &error);
  g_autoptr(EpTensor) m1 = ep_tensor_expand_dims (x, -1, &error);
  g_autoptr(EpTensor) m3 = ep_tensor_expand_dims (x, -3, &error);

  g_assert_no_error (error);
  ep_assert_shape (a0, EP_SHAPE (1, 2, 3));
  ep_assert_shape (a1, EP_SHAPE (2, 1, 3));
  ep_assert_shape (a2, EP_SHAPE (2, 3, 1));
  ep_assert_shape (m1, EP_SHAPE (2, 3, 1));
  ep_assert_shape (m3, EP_SHAPE (1, 2, 3));
  assert_strides (a1, EP_SHAPE (3, 3, 1));
  g_assert_true (ep_tensor_shares_storage (x, a1));
  g_assert_true (ep_tensor_is_contiguous (a1));
  ep_assert_values (a1, EP_DTYPE_FLOAT32, EP_SHAPE (2, 1, 3), EP_VALUES (1, 2, 3, 4, 5, 6));
}

static void
test_expand_dims_of_scalar (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) x = ep_test_new (EP_DTYPE_BOOL, EP_SCALAR, EP_VALUES (1));
  g_autoptr(EpTensor) y = ep_tensor_expand_dims (x, -1, &error);

  g_assert_no_error (error);
  ep_assert_values (y, EP_DTYPE_BOOL, EP_SHAPE (1), EP_VALUES (1));
}

static void
test_expand_dims_of_transposed (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) x = ep_test_new (EP_DTYPE_INT32, EP_SHAPE (2, 3), EP_VALUES (1, 2, 3, 4, 5, 6));
  g_autoptr(EpTensor) t = ep_tensor_transpose (x, NULL, 0, &error);
  g_autoptr(EpTensor) y = ep_tensor_expand_dims (t, 1, &error);

  g_assert_no_error (error);
  ep_assert_values (y, EP_DTYPE_INT32, EP_SHAPE (3, 1, 2), EP_VALUES (1, 4, 2, 5, 3, 6));
}

static void
test_expand_dims_out_of_range (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GError) error_neg = NULL;
  g_autoptr(EpTensor) x = ep_test_new (EP_DTYPE_FLOAT32, EP_SHAPE (2, 3), EP_VALUES (1, 2, 3, 4, 5, 6));
  g_autoptr(EpTensor) y = ep_tensor_expand_dims (x, 3, &error);
  g_autoptr(EpTensor) z = ep_tensor_expand_dims (x, -4, &error_neg);

  g_assert_null (y);
  ep_assert_error (error, EP_ERROR_AXIS, "expand_dims", "axis 3 is out of range");
  g_assert_null (z);
  ep_assert_error (error_neg, EP_ERROR_AXIS, "expand_dims", "axis -4");
}

static void
test_expand_dims_beyond_eight (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) x = ep_zeros (EP_SHAPE (1, 1, 1, 1, 1, 1, 1, 1), EP_DTYPE_FLOAT32, &error);
  g_autoptr(EpTensor) y = ep_tensor_expand_dims (x, 0, &error);

  g_assert_null (y);
  ep_assert_error (error, EP_ERROR_SHAPE, "expand_dims", "8");
}

/* squeeze */

static void
test_squeeze_all (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) x = ep_test_new (EP_DTYPE_FLOAT32, EP_SHAPE (1, 3, 1), EP_VALUES (1, 2, 3));
  g_autoptr(EpTensor) y = ep_tensor_squeeze (x, NULL, 0, &error);

  g_assert_no_error (error);
  ep_assert_values (y, EP_DTYPE_FLOAT32, EP_SHAPE (3), EP_VALUES (1, 2, 3));
  g_assert_true (ep_tensor_shares_storage (x, y));
}

static void
test_squeeze_axes (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) x = ep_test_new (EP_DTYPE_FLOAT32, EP_SHAPE (1, 3, 1), EP_VALUES (1, 2, 3));
  g_autoptr(EpTensor) a = ep_tensor_squeeze (x, EP_AXES (0), &error);
  g_autoptr(EpTensor) b = ep_tensor_squeeze (x, EP_AXES (-1), &error);
  g_autoptr(EpTensor) c = ep_tensor_squeeze (x, EP_AXES (2, 0), &error);

  g_assert_no_error (error);
  ep_assert_shape (a, EP_SHAPE (3, 1));
  ep_assert_shape (b, EP_SHAPE (1, 3));
  ep_assert_shape (c, EP_SHAPE (3));
}

static void
test_squeeze_to_scalar (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) x = ep_test_new (EP_DTYPE_INT64, EP_SHAPE (1, 1), EP_VALUES (9));
  g_autoptr(EpTensor) y = ep_tensor_squeeze (x, NULL, 0, &error);

  g_assert_no_error (error);
  ep_assert_values (y, EP_DTYPE_INT64, EP_SCALAR, EP_VALUES (9));
}

static void
test_squeeze_of_strided (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) x = ep_test_new_strided (EP_DTYPE_FLOAT64, EP_SHAPE (3, 1), EP_VALUES (1, 2, 3));
  g_autoptr(EpTensor) y = ep_tensor_squeeze (x, EP_AXES (1), &error);

  g_assert_no_error (error);
  ep_assert_values (y, EP_DTYPE_FLOAT64, EP_SHAPE (3), EP_VALUES (1, 2, 3));
  g_assert_false (ep_tensor_is_contiguous (y));
}

static void
test_squeeze_non_unit_axis (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) x = ep_test_new (EP_DTYPE_FLOAT32, EP_SHAPE (1, 3), EP_VALUES (1, 2, 3));
  g_autoptr(EpTensor) y = ep_tensor_squeeze (x, EP_AXES (1), &error);

  g_assert_null (y);
  ep_assert_error (error, EP_ERROR_SHAPE, "squeeze", "axis 1 has extent 3, not 1");
}

static void
test_squeeze_axis_errors (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GError) error_rep = NULL;
  g_autoptr(EpTensor) x = ep_test_new (EP_DTYPE_FLOAT32, EP_SHAPE (1, 1), EP_VALUES (1));
  g_autoptr(EpTensor) y = ep_tensor_squeeze (x, EP_AXES (2), &error);
  g_autoptr(EpTensor) z = ep_tensor_squeeze (x, EP_AXES (1, -1), &error_rep);

  g_assert_null (y);
  ep_assert_error (error, EP_ERROR_AXIS, "squeeze", "axis 2 is out of range");
  g_assert_null (z);
  ep_assert_error (error_rep, EP_ERROR_AXIS, "squeeze", "repeated");
}

static void
test_squeeze_scalar (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) x = ep_test_new (EP_DTYPE_FLOAT32, EP_SCALAR, EP_VALUES (3));
  g_autoptr(EpTensor) y = ep_tensor_squeeze (x, NULL, 0, &error);
  g_autoptr(EpTensor) z = NULL;

  g_assert_no_error (error);
  ep_assert_values (y, EP_DTYPE_FLOAT32, EP_SCALAR, EP_VALUES (3));
  z = ep_tensor_squeeze (x, EP_AXES (0), &error);
  g_assert_null (z);
  ep_assert_error (error, EP_ERROR_AXIS, "squeeze", NULL);
}

/* views and their storage */

static void
test_view_outlives_source (void)
{
  g_autoptr(GError) error = NULL;
  EpTensor *x = ep_test_new (EP_DTYPE_FLOAT32, EP_SHAPE (2, 2), EP_VALUES (1, 2, 3, 4));
  EpTensor *t = ep_tensor_transpose (x, NULL, 0, &error);

  g_assert_no_error (error);
  g_assert_finalize_object (x);
  ep_assert_values (t, EP_DTYPE_FLOAT32, EP_SHAPE (2, 2), EP_VALUES (1, 3, 2, 4));
  g_assert_finalize_object (t);
}

static void
test_chain_of_views (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) x = new_cube ();
  g_autoptr(EpTensor) a = ep_tensor_expand_dims (x, 0, &error);        /* (1, 2, 3, 4) */
  g_autoptr(EpTensor) b = ep_tensor_transpose (a, EP_AXES (3, 1, 0, 2), &error);   /* (4, 2, 1, 3) */
  g_autoptr(EpTensor) c = ep_tensor_squeeze (b, NULL, 0, &error);      /* (4, 2, 3) */
  g_autoptr(EpTensor) d = ep_tensor_reshape (c, EP_SHAPE (4, 6), &error);

  g_assert_no_error (error);
  g_assert_true (ep_tensor_shares_storage (x, c));
  g_assert_true (ep_tensor_shares_storage (x, d));
  ep_assert_values (d, EP_DTYPE_FLOAT32, EP_SHAPE (4, 6), EP_VALUES (
    0, 4, 8, 12, 16, 20, 1, 5, 9, 13, 17, 21, 2, 6, 10, 14, 18, 22, 3, 7, 11, 15, 19, 23));
}

static void
test_shares_storage (void)
{
  g_autoptr(EpTensor) x = ep_test_new (EP_DTYPE_FLOAT32, EP_SHAPE (2), EP_VALUES (1, 2));
  g_autoptr(EpTensor) y = ep_test_new (EP_DTYPE_FLOAT32, EP_SHAPE (2), EP_VALUES (1, 2));
  g_autoptr(EpTensor) v = ep_tensor_expand_dims (x, 0, NULL);
  g_autoptr(EpTensor) c = ep_tensor_neg (x, NULL);

  g_assert_true (ep_tensor_shares_storage (x, x));
  g_assert_true (ep_tensor_shares_storage (v, x));
  g_assert_false (ep_tensor_shares_storage (x, y));
  g_assert_false (ep_tensor_shares_storage (c, x));
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/shape/reshape/view", test_reshape_is_a_view);
  g_test_add_func ("/shape/reshape/minus-one", test_reshape_infers_minus_one);
  g_test_add_func ("/shape/reshape/scalars", test_reshape_scalars);
  g_test_add_func ("/shape/reshape/empty", test_reshape_empty);
  g_test_add_func ("/shape/reshape/copies-when-it-must", test_reshape_copies_when_it_must);
  g_test_add_func ("/shape/reshape/transpose-view-when-possible", test_reshape_of_transpose_views_when_possible);
  g_test_add_func ("/shape/reshape/strided-view", test_reshape_of_strided_is_a_view);
  g_test_add_func ("/shape/reshape/size-mismatch", test_reshape_size_mismatch);
  g_test_add_func ("/shape/reshape/minus-one-does-not-divide", test_reshape_minus_one_does_not_divide);
  g_test_add_func ("/shape/reshape/minus-one-with-zero", test_reshape_minus_one_with_zero);
  g_test_add_func ("/shape/reshape/two-unknowns", test_reshape_two_unknowns);
  g_test_add_func ("/shape/reshape/negative-extent", test_reshape_negative_extent);
  g_test_add_func ("/shape/reshape/too-many-dimensions", test_reshape_too_many_dimensions);
  g_test_add_func ("/shape/reshape/far-too-many-dimensions", test_reshape_far_too_many_dimensions);
  g_test_add_func ("/shape/reshape/absurd-shape", test_reshape_absurd_shape);
  g_test_add_func ("/shape/transpose/reverses", test_transpose_reverses);
  g_test_add_func ("/shape/transpose/permutation", test_transpose_permutation);
  g_test_add_func ("/shape/transpose/twice", test_transpose_twice_is_identity);
  g_test_add_func ("/shape/transpose/low-ranks", test_transpose_low_ranks);
  g_test_add_func ("/shape/transpose/strided", test_transpose_of_strided);
  g_test_add_func ("/shape/transpose/wrong-count", test_transpose_wrong_count);
  g_test_add_func ("/shape/transpose/repeated", test_transpose_repeated);
  g_test_add_func ("/shape/transpose/out-of-range", test_transpose_out_of_range);
  g_test_add_func ("/shape/transpose/too-many-axes", test_transpose_too_many_axes);
  g_test_add_func ("/shape/expand-dims/values", test_expand_dims);
  g_test_add_func ("/shape/expand-dims/scalar", test_expand_dims_of_scalar);
  g_test_add_func ("/shape/expand-dims/transposed", test_expand_dims_of_transposed);
  g_test_add_func ("/shape/expand-dims/out-of-range", test_expand_dims_out_of_range);
  g_test_add_func ("/shape/expand-dims/beyond-eight", test_expand_dims_beyond_eight);
  g_test_add_func ("/shape/squeeze/all", test_squeeze_all);
  g_test_add_func ("/shape/squeeze/axes", test_squeeze_axes);
  g_test_add_func ("/shape/squeeze/to-scalar", test_squeeze_to_scalar);
  g_test_add_func ("/shape/squeeze/strided", test_squeeze_of_strided);
  g_test_add_func ("/shape/squeeze/non-unit-axis", test_squeeze_non_unit_axis);
  g_test_add_func ("/shape/squeeze/axis-errors", test_squeeze_axis_errors);
  g_test_add_func ("/shape/squeeze/scalar", test_squeeze_scalar);
  g_test_add_func ("/shape/views/outlive-source", test_view_outlives_source);
  g_test_add_func ("/shape/views/chain", test_chain_of_views);
  g_test_add_func ("/shape/views/shares-storage", test_shares_storage);

  return g_test_run ();
}
