/* test-binding-support.c: what the language bindings rely on: releasing
 * storage early, data in and out by address, repr().
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include <eager-glib/eager-glib.h>

#include <string.h>

#include "ep-tensor-private.h"

static EpTensor *
arange (double n)
{
  g_autoptr(GError) error = NULL;
  EpTensor *t = ep_arange (0, n, 1, EP_DTYPE_FLOAT32, &error);

  g_assert_no_error (error);
  return t;
}

static void
assert_released_error (GError *error)
{
  g_assert_error (error, EP_ERROR, EP_ERROR_INVALID_ARGUMENT);
  g_assert_nonnull (strstr (error->message, "released"));
}

/* After release every use is an error, never a crash; metadata stays. */
static void
test_release_ops_fail (void)
{
  g_autoptr(EpTensor) x = arange (6);
  g_autoptr(EpTensor) y = arange (6);
  g_autoptr(GError) error = NULL;
  const gint64 shape[] = { 2, 3 };
  double scratch[6];

  ep_tensor_release (x);
  g_assert_true (ep_tensor_is_released (x));
  g_assert_false (ep_tensor_is_released (y));
  g_assert_cmpint (ep_tensor_get_size (x), ==, 6);
  g_assert_null (ep_tensor_get_device (x));
  g_assert_false (ep_tensor_shares_storage (x, x));

#define EXPECT_RELEASED(expr) G_STMT_START {      \
    g_autoptr(EpTensor) r = (expr);               \
    g_assert_null (r);                            \
    assert_released_error (error);                \
    g_clear_error (&error);                       \
  } G_STMT_END

  EXPECT_RELEASED (ep_tensor_exp (x, &error));
  EXPECT_RELEASED (ep_tensor_add (y, x, &error));
  EXPECT_RELEASED (ep_tensor_add_scalar (x, 1, &error));
  EXPECT_RELEASED (ep_tensor_sum (x, NULL, 0, FALSE, &error));
  EXPECT_RELEASED (ep_tensor_reshape (x, shape, 2, &error));
  EXPECT_RELEASED (ep_tensor_transpose (x, NULL, 0, &error));
  EXPECT_RELEASED (ep_tensor_contiguous (x, &error));
  EXPECT_RELEASED (ep_tensor_astype (x, EP_DTYPE_FLOAT64, &error));
  EXPECT_RELEASED (ep_tensor_to_device (x, ep_device_get_default (), &error));
  EXPECT_RELEASED (ep_tensor_zeros_like (x, &error));
  EXPECT_RELEASED (ep_tensor_where (x, y, y, &error));
#undef EXPECT_RELEASED

  g_assert_null (ep_tensor_to_bytes (x, &error));
  assert_released_error (error);
  g_clear_error (&error);
  g_assert_null (ep_tensor_to_string (x, &error));
  assert_released_error (error);
  g_clear_error (&error);
  g_assert_null (ep_tensor_to_repr (x, &error));
  assert_released_error (error);
  g_clear_error (&error);
  g_assert_false (ep_tensor_read_data (x, scratch, sizeof (float) * 6, &error));
  assert_released_error (error);
  g_clear_error (&error);

  ep_tensor_release (x);   /* twice: nothing happens */
  g_assert_finalize_object (g_steal_pointer (&x));
}

static void
test_release_item_fails (void)
{
  g_autoptr(EpTensor) x = arange (1);
  g_autoptr(GError) error = NULL;

  ep_tensor_release (x);
  g_assert_cmpfloat (ep_tensor_item_double (x, &error), ==, 0.0);
  assert_released_error (error);
  g_clear_error (&error);
  g_assert_cmpint (ep_tensor_item_int64 (x, &error), ==, 0);
  assert_released_error (error);
  g_clear_error (&error);
  g_assert_false (ep_tensor_item_boolean (x, &error));
  assert_released_error (error);
}

/* A view keeps the shared buffer: releasing the source leaves it valid. */
static void
test_release_keeps_views (void)
{
  g_autoptr(EpTensor) x = arange (6);
  g_autoptr(GError) error = NULL;
  const gint64 shape[] = { 2, 3 };
  g_autoptr(EpTensor) view = ep_tensor_reshape (x, shape, 2, &error);
  g_autofree char *text = NULL;

  g_assert_no_error (error);
  g_assert_true (ep_tensor_shares_storage (x, view));
  ep_tensor_release (x);
  text = ep_tensor_to_string (view, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (text, ==, "[[0. 1. 2.]\n [3. 4. 5.]]");
}

/* The storage goes back at release, not at finalization: the last
 * reference to the buffer is a GBytes whose free function we watch. */
static void
free_marker (gpointer data)
{
  *(gboolean *) data = TRUE;
}

static void
test_release_frees_storage (void)
{
  static float values[4] = { 1, 2, 3, 4 };
  gboolean freed = FALSE;
  const gint64 shape[] = { 4 };
  g_autoptr(GBytes) bytes = g_bytes_new_with_free_func (values, sizeof values, free_marker, &freed);
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) x = ep_tensor_new_from_bytes (bytes, EP_DTYPE_FLOAT32, shape, 1, &error);

  g_assert_no_error (error);
  g_clear_pointer (&bytes, g_bytes_unref);
  g_assert_false (freed);
  ep_tensor_release (x);
  g_assert_true (freed);
}

static void
test_data_round_trip (void)
{
  const gint64 shape[] = { 2, 3 };
  const gint32 values[] = { 1, -2, 3, -4, 5, -6 };
  gint32 back[6] = { 0 };
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) x = ep_tensor_new_from_data (values, sizeof values, EP_DTYPE_INT32, shape, 2, &error);
  g_autoptr(EpTensor) t = NULL;

  g_assert_no_error (error);
  g_assert_cmpint (ep_tensor_get_dtype (x), ==, EP_DTYPE_INT32);
  g_assert_true (ep_tensor_read_data (x, back, sizeof back, &error));
  g_assert_no_error (error);
  g_assert_cmpmem (back, sizeof back, values, sizeof values);

  /* a non-contiguous view reads back in C order */
  t = ep_tensor_transpose (x, NULL, 0, &error);
  g_assert_no_error (error);
  g_assert_true (ep_tensor_read_data (t, back, sizeof back, &error));
  g_assert_no_error (error);
  g_assert_cmpint (back[0], ==, 1);
  g_assert_cmpint (back[1], ==, -4);
  g_assert_cmpint (back[2], ==, -2);
}

static void
test_data_size_errors (void)
{
  const gint64 shape[] = { 2, 3 };
  const float values[6] = { 0 };
  float back[5];
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) x = ep_tensor_new_from_data (values, sizeof values - 1, EP_DTYPE_FLOAT32, shape, 2, &error);
  g_autoptr(EpTensor) y = NULL;

  g_assert_null (x);
  g_assert_error (error, EP_ERROR, EP_ERROR_SHAPE);
  g_assert_nonnull (strstr (error->message, "new_from_data"));
  g_clear_error (&error);

  y = ep_tensor_new_from_data (values, sizeof values, EP_DTYPE_FLOAT32, shape, 2, &error);
  g_assert_no_error (error);
  g_assert_false (ep_tensor_read_data (y, back, sizeof back, &error));
  g_assert_error (error, EP_ERROR, EP_ERROR_SHAPE);
  g_assert_nonnull (strstr (error->message, "read_data"));
}

typedef struct
{
  const char *expected;
  EpDType     dtype;
  gint64      shape[3];
  guint       ndim;
  double      values[12];
} ReprCase;

static void
test_repr (void)
{
  /* Each expected text is NumPy 1.24's repr with "array" spelled
   * "Ep.Tensor" and the dtype always shown. */
  static const ReprCase cases[] = {
    { "Ep.Tensor([1., 2., 3.], dtype=float32)", EP_DTYPE_FLOAT32, { 3 }, 1, { 1, 2, 3 } },
    { "Ep.Tensor([[1, 2],\n           [3, 4]], dtype=int64)", EP_DTYPE_INT64, { 2, 2 }, 2, { 1, 2, 3, 4 } },
    { "Ep.Tensor(2.5, dtype=float64)", EP_DTYPE_FLOAT64, { 0 }, 0, { 2.5 } },
    { "Ep.Tensor(True, dtype=bool)", EP_DTYPE_BOOL, { 0 }, 0, { 1 } },
    { "Ep.Tensor([], dtype=float32)", EP_DTYPE_FLOAT32, { 0 }, 1, { 0 } },
    { "Ep.Tensor([], shape=(2, 0), dtype=int32)", EP_DTYPE_INT32, { 2, 0 }, 2, { 0 } },
    { "Ep.Tensor([[[ True, False]],\n\n           [[False,  True]]], dtype=bool)",
      EP_DTYPE_BOOL, { 2, 1, 2 }, 3, { 1, 0, 0, 1 } },
  };

  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      const ReprCase *c = &cases[i];
      g_autoptr(GError) error = NULL;
      gint64 size = 1;
      g_autoptr(EpTensor) t = NULL;
      g_autofree char *text = NULL;

      for (guint d = 0; d < c->ndim; d++)
        size *= c->shape[d];
      t = ep_tensor_new_from_doubles (c->values, size, c->shape, c->ndim, c->dtype, &error);
      g_assert_no_error (error);
      text = ep_tensor_to_repr (t, &error);
      g_assert_no_error (error);
      g_assert_cmpstr (text, ==, c->expected);
    }
}

/* A long row wraps below the bracket (NumPy's array2string with
 * separator ", ", prefix "Ep.Tensor(" and suffix ","). */
static void
test_repr_wraps (void)
{
  g_autoptr(EpTensor) x = arange (20);
  g_autoptr(GError) error = NULL;
  g_autofree char *text = ep_tensor_to_repr (x, &error);

  g_assert_no_error (error);
  g_assert_cmpstr (text, ==,
                   "Ep.Tensor([ 0.,  1.,  2.,  3.,  4.,  5.,  6.,  7.,  8.,  9., 10., 11.,\n"
                   "           12., 13., 14., 15., 16., 17., 18., 19.], dtype=float32)");
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/release/ops-fail", test_release_ops_fail);
  g_test_add_func ("/release/item-fails", test_release_item_fails);
  g_test_add_func ("/release/keeps-views", test_release_keeps_views);
  g_test_add_func ("/release/frees-storage", test_release_frees_storage);
  g_test_add_func ("/data/round-trip", test_data_round_trip);
  g_test_add_func ("/data/size-errors", test_data_size_errors);
  g_test_add_func ("/repr/cases", test_repr);
  g_test_add_func ("/repr/wraps", test_repr_wraps);
  return g_test_run ();
}
