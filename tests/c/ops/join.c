/* ops/join.c: the join family: concatenate, tile, pad, and stack,
 * split, split_at, meshgrid: values, every error path, the gradient
 * rules
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "ep-test-gradient.h"
#include "ep-test-util.h"

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
test_roll (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) x = ep_test_iota (EP_DIMS (2, 3), 2, EP_DTYPE_INT64);
  g_autoptr(EpTensor) flat = ep_tensor_roll (x, 2, EP_AXIS_NONE, &error);
  g_autoptr(EpTensor) back = ep_tensor_roll (x, -1, -1, &error);
  g_autoptr(EpTensor) huge = ep_tensor_roll (x, G_MININT64, 1, &error);
  g_autoptr(EpTensor) e = ep_test_iota (EP_DIMS (0, 3), 2, EP_DTYPE_FLOAT32);
  g_autoptr(EpTensor) empty = ep_tensor_roll (e, 5, 0, &error);
  GError *bad = NULL;

  g_assert_no_error (error);
  ep_test_assert_tensor (flat, EP_DIMS (2, 3), 2, EP_DOUBLES (4, 5, 0, 1, 2, 3));
  ep_test_assert_tensor (back, EP_DIMS (2, 3), 2, EP_DOUBLES (1, 2, 0, 4, 5, 3));
  /* -2^63 mod 3 is 1 */
  ep_test_assert_tensor (huge, EP_DIMS (2, 3), 2, EP_DOUBLES (2, 0, 1, 5, 3, 4));
  ep_test_assert_tensor (empty, EP_DIMS (0, 3), 2, EP_DOUBLES (0));

  g_assert_null (ep_tensor_roll (x, 1, 2, &bad));
  g_assert_error (bad, EP_ERROR, EP_ERROR_AXIS);
  g_assert_nonnull (strstr (bad->message, "roll"));
  g_clear_error (&bad);
}

/* roll with tuples, repeat with per-element counts (issue 17, ops) */
static void
test_roll_axes_and_repeat_counts (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) x = ep_test_iota (EP_DIMS (2, 3), 2, EP_DTYPE_INT64);
  const gint64 shifts[] = { 1, -1 }, three[] = { 1, 2, 3 };
  const gint axes[] = { 0, 1 };
  g_autoptr(EpTensor) both = ep_tensor_roll_axes (x, shifts, 2, axes, 2, &error);
  g_autoptr(EpTensor) flat = ep_tensor_roll_axes (x, shifts, 2, NULL, 0, &error);
  g_autoptr(EpTensor) counts = ep_test_vector (EP_DOUBLES (2, 0, 1), 3, EP_DTYPE_INT32);
  g_autoptr(EpTensor) repeated = ep_tensor_repeat_counts (x, counts, 1, &error);
  g_autoptr(EpTensor) negative = ep_test_vector (EP_DOUBLES (2, -1, 1), 3, EP_DTYPE_INT64);
  GError *bad = NULL;

  g_assert_no_error (error);
  ep_test_assert_tensor (both, EP_DIMS (2, 3), 2, EP_DOUBLES (4, 5, 3, 1, 2, 0));
  ep_test_assert_tensor (flat, EP_DIMS (2, 3), 2, EP_DOUBLES (0, 1, 2, 3, 4, 5));
  ep_test_assert_tensor (repeated, EP_DIMS (2, 3), 2, EP_DOUBLES (0, 0, 2, 3, 3, 5));

  g_assert_null (ep_tensor_roll_axes (x, three, 3, axes, 2, &bad));
  ep_assert_error (bad, EP_ERROR_INVALID_ARGUMENT, "roll", "3");
  g_clear_error (&bad);
  g_assert_null (ep_tensor_repeat_counts (x, negative, 1, &bad));
  ep_assert_error (bad, EP_ERROR_INVALID_ARGUMENT, "repeat", "-1");
  g_clear_error (&bad);
}

static void
test_repeat (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) x = ep_test_iota (EP_DIMS (2, 2), 2, EP_DTYPE_UINT8);
  g_autoptr(EpTensor) flat = ep_tensor_repeat (x, 2, EP_AXIS_NONE, &error);
  g_autoptr(EpTensor) rows = ep_tensor_repeat (x, 3, 0, &error);
  g_autoptr(EpTensor) none = ep_tensor_repeat (x, 0, -1, &error);
  /* 8 dimensions: no room for the broadcast axis, the others merge */
  g_autoptr(EpTensor) x8 = ep_test_iota (EP_DIMS (1, 1, 1, 2, 1, 1, 1, 2), 8, EP_DTYPE_INT32);
  g_autoptr(EpTensor) r8 = ep_tensor_repeat (x8, 2, 3, &error);
  GError *bad = NULL;

  g_assert_no_error (error);
  ep_test_assert_tensor (flat, EP_DIMS (8), 1, EP_DOUBLES (0, 0, 1, 1, 2, 2, 3, 3));
  ep_test_assert_tensor (rows, EP_DIMS (6, 2), 2, EP_DOUBLES (0, 1, 0, 1, 0, 1, 2, 3, 2, 3, 2, 3));
  ep_test_assert_tensor (none, EP_DIMS (2, 0), 2, EP_DOUBLES (0));
  ep_test_assert_tensor (r8, EP_DIMS (1, 1, 1, 4, 1, 1, 1, 2), 8, EP_DOUBLES (0, 1, 0, 1, 2, 3, 2, 3));

  g_assert_null (ep_tensor_repeat (x, -1, 0, &bad));
  g_assert_error (bad, EP_ERROR, EP_ERROR_INVALID_ARGUMENT);
  g_assert_nonnull (strstr (bad->message, "-1"));
  g_clear_error (&bad);
  g_assert_null (ep_tensor_repeat (x, 1, -3, &bad));
  g_assert_error (bad, EP_ERROR, EP_ERROR_AXIS);
  g_clear_error (&bad);
  g_assert_null (ep_tensor_repeat (x, G_MAXINT64 / 2, EP_AXIS_NONE, &bad));
  g_assert_error (bad, EP_ERROR, EP_ERROR_OUT_OF_MEMORY);
  g_assert_nonnull (strstr (bad->message, "repeat"));
  g_clear_error (&bad);
  g_assert_null (ep_tensor_repeat (x, G_MAXINT64 / 3, 1, &bad));
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

/* gradient rules against central differences (ep-test-gradient.h) */

static EpTensor *
f_concatenate (EpTensor **in, gconstpointer data, GError **error)
{
  return ep_concatenate (in, 3, 1, error);
}

static void
test_gradient_concatenate (void)
{
  EpTensor *in[3] = {
    ep_test_random (EP_DIMS (2, 3), 2, EP_DTYPE_FLOAT64, 5),
    ep_test_random (EP_DIMS (2, 1), 2, EP_DTYPE_FLOAT64, 6),
    ep_test_random (EP_DIMS (2, 2), 2, EP_DTYPE_FLOAT64, 7),
  };

  ep_test_check_gradient_of (&ep_op_concatenate, f_concatenate, NULL, in, 3, 0);
  for (guint i = 0; i < 3; i++)
    g_object_unref (in[i]);
}

static EpTensor *
f_tile (EpTensor **in, gconstpointer data, GError **error)
{
  return ep_tensor_tile (in[0], EP_DIMS (2, 1, 3), 3, error);
}

static EpTensor *
f_tile_8d (EpTensor **in, gconstpointer data, GError **error)
{
  /* 8 dimensions: the rule scatters instead of splitting an axis */
  return ep_tensor_tile (in[0], EP_DIMS (1, 2, 1, 1, 1, 1, 2, 3), 8, error);
}

static void
test_gradient_tile (void)
{
  EpTensor *in[1] = { ep_test_random (EP_DIMS (2, 3), 2, EP_DTYPE_FLOAT64, 8) };
  EpTensor *in8[1] = { ep_test_random (EP_DIMS (1, 1, 1, 1, 1, 1, 2, 2), 8, EP_DTYPE_FLOAT64, 9) };

  ep_test_check_gradient_of (&ep_op_tile, f_tile, NULL, in, 1, 0);
  ep_test_check_gradient_of (&ep_op_tile, f_tile_8d, NULL, in8, 1, 0);
  g_object_unref (in[0]);
  g_object_unref (in8[0]);
}

static EpTensor *
f_pad (EpTensor **in, gconstpointer data, GError **error)
{
  EpPadMode mode = GPOINTER_TO_INT (data);

  return ep_tensor_pad (in[0], EP_DIMS (4, 5, 2, 1), 4, mode, 0.5, error);
}

static void
test_gradient_pad (void)
{
  EpTensor *in[1] = { ep_test_random (EP_DIMS (3, 4), 2, EP_DTYPE_FLOAT64, 10) };

  ep_test_check_gradient_of (&ep_op_pad, f_pad, GINT_TO_POINTER (EP_PAD_CONSTANT), in, 1, 0);
  ep_test_check_gradient_of (&ep_op_pad, f_pad, GINT_TO_POINTER (EP_PAD_REFLECT), in, 1, 0);
  g_object_unref (in[0]);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/join/concatenate-and-stack", test_concatenate_and_stack);
  g_test_add_func ("/join/concatenate/errors", test_concatenate_errors);
  g_test_add_func ("/join/split", test_split);
  g_test_add_func ("/join/split/errors", test_split_errors);
  g_test_add_func ("/join/tile", test_tile);
  g_test_add_func ("/join/roll", test_roll);
  g_test_add_func ("/join/repeat", test_repeat);
  g_test_add_func ("/join/roll-axes-and-repeat-counts", test_roll_axes_and_repeat_counts);
  g_test_add_func ("/join/pad", test_pad);
  g_test_add_func ("/join/meshgrid", test_meshgrid);
  g_test_add_func ("/join/gradient/concatenate", test_gradient_concatenate);
  g_test_add_func ("/join/gradient/tile", test_gradient_tile);
  g_test_add_func ("/join/gradient/pad", test_gradient_pad);

  return g_test_run ();
}
