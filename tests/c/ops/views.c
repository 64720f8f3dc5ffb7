/* ops/views.c: the views family: reshape, transpose, expand_dims,
 * squeeze, broadcast_to, flip, slice (and flatten): shapes and strides,
 * views of views and their storage, copies where a view cannot be,
 * every error path, the gradient rules
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "ep-test-gradient.h"
#include "ep-test-util.h"

#define AXES(...) ((const gint[]) { __VA_ARGS__ })

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
  ep_assert_error (error, EP_ERROR_AXIS, "transpose", "a tensor of 3 dimensions takes 3 axes, 2 given");
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
test_transpose_outlives_source (void)
{
  g_autoptr(GError) error = NULL;
  EpTensor *x = ep_test_new (EP_DTYPE_FLOAT32, EP_SHAPE (2, 2), EP_VALUES (1, 2, 3, 4));
  EpTensor *t = ep_tensor_transpose (x, NULL, 0, &error);

  g_assert_no_error (error);
  g_assert_finalize_object (x);
  ep_assert_values (t, EP_DTYPE_FLOAT32, EP_SHAPE (2, 2), EP_VALUES (1, 3, 2, 4));
  g_assert_finalize_object (t);
}

/* Views keep their source's storage alive, and nothing leaks. */
static void
test_slice_outlives_source (void)
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

/* broadcast_to, flip, slice, flatten */

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

/* A broadcast view of more elements than 64 bits count (its size
 * saturates) cannot be reshaped: an error, not a crash in the stride
 * search (a shape whose size also saturates looked equal). */
static void
test_reshape_uncountable (void)
{
  g_autoptr(EpTensor) x = ep_test_iota (EP_DIMS (2, 1, 3), 3, EP_DTYPE_FLOAT32);
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) huge = ep_tensor_broadcast_to (x, EP_DIMS (2, G_GINT64_CONSTANT (1) << 62, 3), 3, &error);
  EpTensor *r;

  g_assert_no_error (error);
  r = ep_tensor_reshape (huge, EP_DIMS (G_MAXINT64, 3), 2, &error);
  ep_test_assert_failed (r, error, EP_ERROR_SHAPE, "reshape");
  g_assert_nonnull (strstr (error->message, "64 bits"));
  g_clear_error (&error);
  r = ep_tensor_reshape (huge, EP_DIMS (-1), 1, &error);
  ep_test_assert_failed (r, error, EP_ERROR_SHAPE, "reshape");
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

/* An empty tensor's other extents may be anything: flipping one moves
 * no offset (found by fuzz-tensor-bytes: (n - 1) * stride overflowed) */
static void
test_flip_empty_huge_extent (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) none = g_bytes_new (NULL, 0);
  g_autoptr(EpTensor) x = ep_tensor_new_from_bytes (none, EP_DTYPE_FLOAT32,
                                                    EP_DIMS (0, G_GINT64_CONSTANT (6917529027642064895), 4),
                                                    3, &error);
  g_autoptr(EpTensor) flipped = ep_tensor_flip (x, AXES (1), 1, &error);

  g_assert_no_error (error);
  ep_assert_shape (flipped, EP_SHAPE (0, G_GINT64_CONSTANT (6917529027642064895), 4));
  g_assert_cmpint (flipped->layout.offset, ==, 0);
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

/* EP_SLICE_START and EP_SLICE_END are Python's omitted bounds, whatever
 * the step's sign: x[::-1], x[1:], x[:2] */
static void
test_slice_constants (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) x = ep_test_iota (EP_DIMS (4), 1, EP_DTYPE_FLOAT32);
  g_autoptr(EpTensor) reversed = ep_tensor_slice (x, EP_DIMS (EP_SLICE_END), 1, EP_DIMS (EP_SLICE_START), 1,
                                                  EP_DIMS (-1), 1, &error);
  g_autoptr(EpTensor) tail = ep_tensor_slice (x, EP_DIMS (1), 1, EP_DIMS (EP_SLICE_END), 1, NULL, 0, &error);
  g_autoptr(EpTensor) head = ep_tensor_slice (x, EP_DIMS (EP_SLICE_START), 1, EP_DIMS (2), 1, NULL, 0, &error);
  g_autoptr(EpTensor) every_other = ep_tensor_slice (x, EP_DIMS (EP_SLICE_END), 1, EP_DIMS (EP_SLICE_START), 1,
                                                     EP_DIMS (-2), 1, &error);

  g_assert_no_error (error);
  ep_test_assert_tensor (reversed, EP_DIMS (4), 1, EP_DOUBLES (3, 2, 1, 0));
  ep_test_assert_tensor (tail, EP_DIMS (3), 1, EP_DOUBLES (1, 2, 3));
  ep_test_assert_tensor (head, EP_DIMS (2), 1, EP_DOUBLES (0, 1));
  ep_test_assert_tensor (every_other, EP_DIMS (2), 1, EP_DOUBLES (3, 1));
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

/* gradient rules against central differences (ep-test-gradient.h) */

static EpTensor *
f_broadcast_to (EpTensor **in, gconstpointer data, GError **error)
{
  return ep_tensor_broadcast_to (in[0], EP_DIMS (2, 3, 4), 3, error);
}

static void
test_gradient_broadcast_to (void)
{
  EpTensor *in[1] = { ep_test_random (EP_DIMS (3, 1), 2, EP_DTYPE_FLOAT64, 1) };

  ep_test_check_gradient_of (&ep_op_broadcast_to, f_broadcast_to, NULL, in, 1, 0);
  g_object_unref (in[0]);
}

static EpTensor *
f_flip (EpTensor **in, gconstpointer data, GError **error)
{
  const gint axes[] = { 0, -1 };

  return ep_tensor_flip (in[0], axes, 2, error);
}

static void
test_gradient_flip (void)
{
  EpTensor *in[1] = { ep_test_random (EP_DIMS (2, 3, 4), 3, EP_DTYPE_FLOAT64, 2) };

  ep_test_check_gradient_of (&ep_op_flip, f_flip, NULL, in, 1, 0);
  g_object_unref (in[0]);
}

static EpTensor *
f_slice_steps (EpTensor **in, gconstpointer data, GError **error)
{
  return ep_tensor_slice (in[0], EP_DIMS (1, G_MAXINT64), 2, EP_DIMS (G_MAXINT64, G_MININT64), 2,
                          EP_DIMS (2, -2), 2, error);
}

static EpTensor *
f_slice_ranges (EpTensor **in, gconstpointer data, GError **error)
{
  return ep_tensor_slice (in[0], EP_DIMS (1, -2, 2), 3, EP_DIMS (4, 6, 3), 3, NULL, 0, error);
}

static void
test_gradient_slice (void)
{
  EpTensor *in[1] = { ep_test_random (EP_DIMS (5, 6), 2, EP_DTYPE_FLOAT64, 3) };
  EpTensor *in3[1] = { ep_test_random (EP_DIMS (5, 6, 3), 3, EP_DTYPE_FLOAT64, 4) };

  ep_test_check_gradient_of (&ep_op_slice, f_slice_steps, NULL, in, 1, 0);
  ep_test_check_gradient_of (&ep_op_slice, f_slice_ranges, NULL, in3, 1, 0);
  g_object_unref (in[0]);
  g_object_unref (in3[0]);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/views/reshape/view", test_reshape_is_a_view);
  g_test_add_func ("/views/reshape/minus-one", test_reshape_infers_minus_one);
  g_test_add_func ("/views/reshape/scalars", test_reshape_scalars);
  g_test_add_func ("/views/reshape/empty", test_reshape_empty);
  g_test_add_func ("/views/reshape/uncountable", test_reshape_uncountable);
  g_test_add_func ("/views/reshape/copies-when-it-must", test_reshape_copies_when_it_must);
  g_test_add_func ("/views/reshape/transpose-view-when-possible", test_reshape_of_transpose_views_when_possible);
  g_test_add_func ("/views/reshape/strided-view", test_reshape_of_strided_is_a_view);
  g_test_add_func ("/views/reshape/size-mismatch", test_reshape_size_mismatch);
  g_test_add_func ("/views/reshape/minus-one-does-not-divide", test_reshape_minus_one_does_not_divide);
  g_test_add_func ("/views/reshape/minus-one-with-zero", test_reshape_minus_one_with_zero);
  g_test_add_func ("/views/reshape/two-unknowns", test_reshape_two_unknowns);
  g_test_add_func ("/views/reshape/negative-extent", test_reshape_negative_extent);
  g_test_add_func ("/views/reshape/too-many-dimensions", test_reshape_too_many_dimensions);
  g_test_add_func ("/views/reshape/far-too-many-dimensions", test_reshape_far_too_many_dimensions);
  g_test_add_func ("/views/reshape/absurd-shape", test_reshape_absurd_shape);
  g_test_add_func ("/views/transpose/reverses", test_transpose_reverses);
  g_test_add_func ("/views/transpose/permutation", test_transpose_permutation);
  g_test_add_func ("/views/transpose/twice", test_transpose_twice_is_identity);
  g_test_add_func ("/views/transpose/low-ranks", test_transpose_low_ranks);
  g_test_add_func ("/views/transpose/strided", test_transpose_of_strided);
  g_test_add_func ("/views/transpose/wrong-count", test_transpose_wrong_count);
  g_test_add_func ("/views/transpose/repeated", test_transpose_repeated);
  g_test_add_func ("/views/transpose/out-of-range", test_transpose_out_of_range);
  g_test_add_func ("/views/transpose/too-many-axes", test_transpose_too_many_axes);
  g_test_add_func ("/views/expand-dims/values", test_expand_dims);
  g_test_add_func ("/views/expand-dims/scalar", test_expand_dims_of_scalar);
  g_test_add_func ("/views/expand-dims/transposed", test_expand_dims_of_transposed);
  g_test_add_func ("/views/expand-dims/out-of-range", test_expand_dims_out_of_range);
  g_test_add_func ("/views/expand-dims/beyond-eight", test_expand_dims_beyond_eight);
  g_test_add_func ("/views/squeeze/all", test_squeeze_all);
  g_test_add_func ("/views/squeeze/axes", test_squeeze_axes);
  g_test_add_func ("/views/squeeze/to-scalar", test_squeeze_to_scalar);
  g_test_add_func ("/views/squeeze/strided", test_squeeze_of_strided);
  g_test_add_func ("/views/squeeze/non-unit-axis", test_squeeze_non_unit_axis);
  g_test_add_func ("/views/squeeze/axis-errors", test_squeeze_axis_errors);
  g_test_add_func ("/views/squeeze/scalar", test_squeeze_scalar);
  g_test_add_func ("/views/storage/transpose-outlives-source", test_transpose_outlives_source);
  g_test_add_func ("/views/storage/slice-outlives-source", test_slice_outlives_source);
  g_test_add_func ("/views/storage/chain", test_chain_of_views);
  g_test_add_func ("/views/storage/shares-storage", test_shares_storage);
  g_test_add_func ("/views/broadcast-to", test_broadcast_to);
  g_test_add_func ("/views/broadcast-to/errors", test_broadcast_to_errors);
  g_test_add_func ("/views/flip", test_flip);
  g_test_add_func ("/views/flip/matmul-and-reshape", test_flip_matmul_and_reshape);
  g_test_add_func ("/views/flip/empty-huge-extent", test_flip_empty_huge_extent);
  g_test_add_func ("/views/slice", test_slice);
  g_test_add_func ("/views/slice/errors", test_slice_errors);
  g_test_add_func ("/views/slice/constants", test_slice_constants);
  g_test_add_func ("/views/flatten", test_flatten);
  g_test_add_func ("/views/gradient/broadcast-to", test_gradient_broadcast_to);
  g_test_add_func ("/views/gradient/flip", test_gradient_flip);
  g_test_add_func ("/views/gradient/slice", test_gradient_slice);

  return g_test_run ();
}
