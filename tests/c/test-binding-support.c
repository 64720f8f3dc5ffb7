/* test-binding-support.c: what the language bindings rely on: releasing
 * storage early, data in and out by address, repr().
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include <eager-glib/eager-glib.h>

#include <string.h>

#include "ep-tensor-private.h"
#include "ep-test-util.h"

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

/* Every call that has nothing to compute still gives a tensor object of
 * its own: releasing it leaves the source (and the variable) intact. */
typedef EpTensor *(*SharingCall) (EpTensor *x, EpVariable *v, GError **error);

static EpTensor *
same_dtype (EpTensor *x, EpVariable *v, GError **error)
{
  return ep_tensor_astype (x, EP_DTYPE_FLOAT32, error);
}

static EpTensor *
same_layout (EpTensor *x, EpVariable *v, GError **error)
{
  return ep_tensor_contiguous (x, error);
}

static EpTensor *
same_device (EpTensor *x, EpVariable *v, GError **error)
{
  return ep_tensor_to_device (x, ep_device_get_default (), error);
}

static EpTensor *
read_variable (EpTensor *x, EpVariable *v, GError **error)
{
  return ep_variable_read (v);
}

static void
check_release_of_shared (gconstpointer data)
{
  SharingCall call = (SharingCall) data;
  g_autoptr(EpTensor) x = arange (4);
  g_autoptr(EpVariable) v = ep_variable_new (x, NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) shared = call (x, v, &error);
  g_autoptr(EpTensor) again = NULL;
  g_autoptr(EpTensor) sum = NULL;

  g_assert_no_error (error);
  g_assert_true (shared != x);
  ep_tensor_release (shared);
  g_assert_true (ep_tensor_is_released (shared));
  g_assert_false (ep_tensor_is_released (x));
  ep_assert_values (x, EP_DTYPE_FLOAT32, EP_SHAPE (4), EP_VALUES (0, 1, 2, 3));

  again = ep_variable_read (v);
  ep_assert_values (again, EP_DTYPE_FLOAT32, EP_SHAPE (4), EP_VALUES (0, 1, 2, 3));
  g_assert_true (ep_variable_assign_add (v, again, &error));
  g_assert_no_error (error);
  g_clear_object (&again);
  again = ep_variable_read (v);
  sum = ep_tensor_sum (again, NULL, 0, FALSE, &error);
  ep_assert_values (sum, EP_DTYPE_FLOAT32, EP_SCALAR, EP_VALUES (12));
}

/* The same under a recording tape, where reads were always aliases */
static void
test_release_read_under_tape (void)
{
  g_autoptr(EpTensor) x = arange (3);
  g_autoptr(EpVariable) v = ep_variable_new (x, "w");
  g_autoptr(EpGradientTape) tape = ep_gradient_tape_new (FALSE);
  g_autoptr(EpTensor) first = NULL;
  g_autoptr(EpTensor) second = NULL;

  g_assert_true (ep_gradient_tape_start (tape, NULL));
  first = ep_variable_read (v);
  ep_tensor_release (first);
  second = ep_variable_read (v);
  g_assert_true (ep_gradient_tape_stop (tape, NULL));
  ep_assert_values (second, EP_DTYPE_FLOAT32, EP_SHAPE (3), EP_VALUES (0, 1, 2));
}

/* A released tensor never goes into a variable: a clear error, and the
 * variable keeps its value. */
typedef struct
{
  gboolean  (*assign) (EpVariable *v, EpTensor *value, GError **error);
  const char *name;
} Assignment;

static const Assignment assignments[] = {
  { ep_variable_assign, "assign: the tensor was released" },
  { ep_variable_assign_add, "assign_add: the tensor was released" },
  { ep_variable_assign_sub, "assign_sub: the tensor was released" },
};

static void
check_assign_released (gconstpointer data)
{
  const Assignment *assignment = data;
  g_autoptr(EpTensor) x = arange (3);
  g_autoptr(EpTensor) gone = arange (3);
  g_autoptr(EpVariable) v = ep_variable_new (x, NULL);
  g_autoptr(EpTensor) value = NULL;
  g_autoptr(GError) error = NULL;

  ep_tensor_release (gone);
  g_assert_false (assignment->assign (v, gone, &error));
  assert_released_error (error);
  g_assert_nonnull (strstr (error->message, assignment->name));
  value = ep_variable_read (v);
  ep_assert_values (value, EP_DTYPE_FLOAT32, EP_SHAPE (3), EP_VALUES (0, 1, 2));
}

/* A variable made from a released tensor (C, gjs and Vala cannot be
 * refused a constructor): its dtype and shape, reads that are released,
 * assignments that fail; never a critical. */
static void
test_variable_of_released (void)
{
  g_autoptr(EpTensor) gone = arange (3);
  g_autoptr(EpTensor) fine = arange (3);
  g_autoptr(EpVariable) v = NULL;
  g_autoptr(EpTensor) value = NULL;
  g_autoptr(EpTensor) sum = NULL;
  g_autoptr(GError) error = NULL;
  guint ndim;

  ep_tensor_release (gone);
  v = ep_variable_new (gone, NULL);
  g_assert_cmpint (ep_variable_get_dtype (v), ==, EP_DTYPE_FLOAT32);
  g_assert_cmpint (ep_variable_get_shape (v, &ndim)[0], ==, 3);
  g_assert_true (ep_variable_get_device (v) == ep_device_get_default ());

  value = ep_variable_read (v);
  g_assert_true (ep_tensor_is_released (value));
  sum = ep_tensor_sum (value, NULL, 0, FALSE, &error);
  g_assert_null (sum);
  assert_released_error (error);
  g_clear_error (&error);

  g_assert_false (ep_variable_assign (v, fine, &error));
  g_assert_error (error, EP_ERROR, EP_ERROR_INVALID_ARGUMENT);
  g_assert_nonnull (strstr (error->message, "assign: the variable has no value"));
  g_clear_error (&error);
  g_assert_false (ep_variable_assign_add (v, fine, &error));
  g_assert_error (error, EP_ERROR, EP_ERROR_INVALID_ARGUMENT);
}

/* A release while a call on another thread uses the tensor (a pin, as
 * dispatch takes for its inputs) marks it released at once and lets go
 * of the storage when the call ends. */
static void
test_release_waits_for_pins (void)
{
  static float values[2] = { 1, 2 };
  gboolean freed = FALSE;
  const gint64 shape[] = { 2 };
  g_autoptr(GBytes) bytes = g_bytes_new_with_free_func (values, sizeof values, free_marker, &freed);
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) x = ep_tensor_new_from_bytes (bytes, EP_DTYPE_FLOAT32, shape, 1, &error);

  g_assert_no_error (error);
  g_clear_pointer (&bytes, g_bytes_unref);
  g_assert_true (ep_tensor_pin (x, "test", &error));
  ep_tensor_release (x);
  g_assert_true (ep_tensor_is_released (x));
  g_assert_false (freed);
  g_assert_cmpfloat (((float *) ep_tensor_host_data (x))[1], ==, 2);
  g_assert_false (ep_tensor_pin (x, "test", &error));
  assert_released_error (error);
  ep_tensor_unpin (x);
  g_assert_true (freed);
  g_assert_null (ep_tensor_get_device (x));
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
  g_test_add_func ("/release/waits-for-pins", test_release_waits_for_pins);
  g_test_add_data_func ("/release/shared/astype", same_dtype, check_release_of_shared);
  g_test_add_data_func ("/release/shared/contiguous", same_layout, check_release_of_shared);
  g_test_add_data_func ("/release/shared/to-device", same_device, check_release_of_shared);
  g_test_add_data_func ("/release/shared/variable-read", read_variable, check_release_of_shared);
  g_test_add_func ("/release/shared/read-under-tape", test_release_read_under_tape);
  g_test_add_data_func ("/release/into-variable/assign", &assignments[0], check_assign_released);
  g_test_add_data_func ("/release/into-variable/assign-add", &assignments[1], check_assign_released);
  g_test_add_data_func ("/release/into-variable/assign-sub", &assignments[2], check_assign_released);
  g_test_add_func ("/release/into-variable/new", test_variable_of_released);
  g_test_add_func ("/data/round-trip", test_data_round_trip);
  g_test_add_func ("/data/size-errors", test_data_size_errors);
  g_test_add_func ("/repr/cases", test_repr);
  g_test_add_func ("/repr/wraps", test_repr_wraps);
  return g_test_run ();
}
