/* ops/reduce.c: the reduce family: sum, mean, max, min, prod, all, any,
 * argmin, argmax, and the norms (l0, l1, l2, linf, lp): values over any
 * axes, dtypes, empty and non-contiguous inputs, every error path, the
 * gradient rules
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "ep-test-gradient.h"
#include "ep-test-util.h"

typedef EpTensor *(*ReduceFunc) (EpTensor *, const gint *, guint, gboolean, GError **);

static const struct { ReduceFunc f; const char *name; } reductions[] = {
  { ep_tensor_sum, "sum" },
  { ep_tensor_mean, "mean" },
  { ep_tensor_max, "max" },
  { ep_tensor_min, "min" },
};

/* arange (24) as (2, 3, 4) */
static EpTensor *
new_cube (EpDType dtype)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) flat = ep_arange (0, 24, 1, dtype, &error);
  EpTensor *cube = ep_tensor_reshape (flat, EP_SHAPE (2, 3, 4), &error);

  g_assert_no_error (error);
  return cube;
}

/* all axes */

static void
test_sum_all (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) x = ep_test_new (EP_DTYPE_FLOAT32, EP_SHAPE (2, 3), EP_VALUES (1, 2, 3, 4, 5, 6.5));
  g_autoptr(EpTensor) s = ep_tensor_sum (x, NULL, 0, FALSE, &error);

  g_assert_no_error (error);
  ep_assert_values (s, EP_DTYPE_FLOAT32, EP_SCALAR, EP_VALUES (21.5));
}

static void
test_all_axes_keepdims (void)
{
  g_autoptr(EpTensor) x = new_cube (EP_DTYPE_FLOAT64);

  for (guint r = 0; r < G_N_ELEMENTS (reductions); r++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(EpTensor) y = reductions[r].f (x, NULL, 0, TRUE, &error);
      static const gdouble want[] = { 276, 11.5, 23, 0 };

      g_test_message ("%s", reductions[r].name);
      g_assert_no_error (error);
      ep_assert_values (y, EP_DTYPE_FLOAT64, EP_SHAPE (1, 1, 1), &want[r], 1);
    }
}

static void
test_mean_max_min_all (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) x = ep_test_new (EP_DTYPE_FLOAT32, EP_SHAPE (4), EP_VALUES (3, -1, 7, 1));
  g_autoptr(EpTensor) mean = ep_tensor_mean (x, NULL, 0, FALSE, &error);
  g_autoptr(EpTensor) max = ep_tensor_max (x, NULL, 0, FALSE, &error);
  g_autoptr(EpTensor) min = ep_tensor_min (x, NULL, 0, FALSE, &error);

  g_assert_no_error (error);
  ep_assert_values (mean, EP_DTYPE_FLOAT32, EP_SCALAR, EP_VALUES (2.5));
  ep_assert_values (max, EP_DTYPE_FLOAT32, EP_SCALAR, EP_VALUES (7));
  ep_assert_values (min, EP_DTYPE_FLOAT32, EP_SCALAR, EP_VALUES (-1));
}

/* chosen axes */

static void
test_sum_axes (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) x = new_cube (EP_DTYPE_FLOAT32);
  g_autoptr(EpTensor) a02 = ep_tensor_sum (x, EP_AXES (0, 2), FALSE, &error);
  g_autoptr(EpTensor) a1 = ep_tensor_sum (x, EP_AXES (1), FALSE, &error);
  g_autoptr(EpTensor) a1k = ep_tensor_sum (x, EP_AXES (1), TRUE, &error);

  g_assert_no_error (error);
  ep_assert_values (a02, EP_DTYPE_FLOAT32, EP_SHAPE (3), EP_VALUES (60, 92, 124));
  ep_assert_values (a1, EP_DTYPE_FLOAT32, EP_SHAPE (2, 4), EP_VALUES (12, 15, 18, 21, 48, 51, 54, 57));
  ep_assert_values (a1k, EP_DTYPE_FLOAT32, EP_SHAPE (2, 1, 4), EP_VALUES (12, 15, 18, 21, 48, 51, 54, 57));
}

static void
test_negative_axes (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) x = new_cube (EP_DTYPE_FLOAT64);
  g_autoptr(EpTensor) min = ep_tensor_min (x, EP_AXES (-1), FALSE, &error);
  g_autoptr(EpTensor) max = ep_tensor_max (x, EP_AXES (-3, -2), TRUE, &error);

  g_assert_no_error (error);
  ep_assert_values (min, EP_DTYPE_FLOAT64, EP_SHAPE (2, 3), EP_VALUES (0, 4, 8, 12, 16, 20));
  ep_assert_values (max, EP_DTYPE_FLOAT64, EP_SHAPE (1, 1, 4), EP_VALUES (20, 21, 22, 23));
}

static void
test_axes_in_any_order (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) x = new_cube (EP_DTYPE_FLOAT64);
  g_autoptr(EpTensor) m = ep_tensor_mean (x, EP_AXES (2, 1), FALSE, &error);

  g_assert_no_error (error);
  ep_assert_values (m, EP_DTYPE_FLOAT64, EP_SHAPE (2), EP_VALUES (5.5, 17.5));
}

/* An empty list of axes is every axis, as %NULL: bindings pass an empty
 * list as one or the other, so C cannot tell them apart. */
static void
test_empty_axes_are_all (void)
{
  static const gint none[1] = { 0 };
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) x = ep_test_new (EP_DTYPE_INT32, EP_SHAPE (2, 2), EP_VALUES (1, 2, 3, 4));
  g_autoptr(EpTensor) s = ep_tensor_sum (x, none, 0, FALSE, &error);
  g_autoptr(EpTensor) m = ep_tensor_max (x, none, 0, TRUE, &error);
  g_autoptr(EpTensor) f = ep_tensor_flip (x, none, 0, &error);

  g_assert_no_error (error);
  ep_assert_values (s, EP_DTYPE_INT64, EP_SCALAR, EP_VALUES (10));
  ep_assert_values (m, EP_DTYPE_INT32, EP_SHAPE (1, 1), EP_VALUES (4));
  ep_assert_values (f, EP_DTYPE_INT32, EP_SHAPE (2, 2), EP_VALUES (4, 3, 2, 1));
}

static void
test_scalar_input (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) x = ep_test_new (EP_DTYPE_FLOAT32, EP_SCALAR, EP_VALUES (4));

  for (guint r = 0; r < G_N_ELEMENTS (reductions); r++)
    {
      g_autoptr(EpTensor) y = reductions[r].f (x, NULL, 0, TRUE, &error);

      g_assert_no_error (error);
      ep_assert_values (y, EP_DTYPE_FLOAT32, EP_SCALAR, EP_VALUES (4));
    }
}

/* result dtypes */

static void
test_sum_dtypes (void)
{
  static const struct { EpDType in, out; } cases[] = {
    { EP_DTYPE_FLOAT32, EP_DTYPE_FLOAT32 },
    { EP_DTYPE_FLOAT64, EP_DTYPE_FLOAT64 },
    { EP_DTYPE_INT32, EP_DTYPE_INT64 },
    { EP_DTYPE_INT64, EP_DTYPE_INT64 },
    { EP_DTYPE_BOOL, EP_DTYPE_INT64 },
  };

  for (guint c = 0; c < G_N_ELEMENTS (cases); c++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(EpTensor) x = ep_test_new (cases[c].in, EP_SHAPE (2, 2), EP_VALUES (1, 0, 1, 1));
      g_autoptr(EpTensor) s = ep_tensor_sum (x, EP_AXES (0), FALSE, &error);

      g_assert_no_error (error);
      ep_assert_values (s, cases[c].out, EP_SHAPE (2), EP_VALUES (2, 1));
    }
}

static void
test_sum_int32_does_not_overflow (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) x = ep_test_new (EP_DTYPE_INT32, EP_SHAPE (3), EP_VALUES (G_MAXINT32, G_MAXINT32, 2));
  g_autoptr(EpTensor) s = ep_tensor_sum (x, NULL, 0, FALSE, &error);

  g_assert_no_error (error);
  g_assert_cmpint (ep_tensor_item_int64 (s, NULL), ==, 2 * (gint64) G_MAXINT32 + 2);
}

static void
test_extrema_keep_dtype (void)
{
  static const EpDType dtypes[] = {
    EP_DTYPE_FLOAT32, EP_DTYPE_FLOAT64, EP_DTYPE_INT32, EP_DTYPE_INT64, EP_DTYPE_BOOL,
  };

  for (guint d = 0; d < G_N_ELEMENTS (dtypes); d++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(EpTensor) x = ep_test_new (dtypes[d], EP_SHAPE (2, 2), EP_VALUES (0, 1, 1, 0));
      g_autoptr(EpTensor) max = ep_tensor_max (x, EP_AXES (1), FALSE, &error);
      g_autoptr(EpTensor) min = ep_tensor_min (x, EP_AXES (1), FALSE, &error);

      g_assert_no_error (error);
      ep_assert_values (max, dtypes[d], EP_SHAPE (2), EP_VALUES (1, 1));
      ep_assert_values (min, dtypes[d], EP_SHAPE (2), EP_VALUES (0, 0));
    }
}

static void
test_extrema_integers (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) x = ep_test_new (EP_DTYPE_INT64, EP_SHAPE (2, 3), EP_VALUES (-5, 7, 3, 2, -9, 2));
  g_autoptr(EpTensor) max = ep_tensor_max (x, EP_AXES (0), FALSE, &error);
  g_autoptr(EpTensor) min = ep_tensor_min (x, NULL, 0, FALSE, &error);

  g_assert_no_error (error);
  ep_assert_values (max, EP_DTYPE_INT64, EP_SHAPE (3), EP_VALUES (2, 7, 3));
  ep_assert_values (min, EP_DTYPE_INT64, EP_SCALAR, EP_VALUES (-9));
}

static void
test_extrema_propagate_nan (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) x = ep_test_new (EP_DTYPE_FLOAT32, EP_SHAPE (2, 3), EP_VALUES (1, NAN, 3, NAN, 5, 6));
  g_autoptr(EpTensor) max = ep_tensor_max (x, EP_AXES (1), FALSE, &error);
  g_autoptr(EpTensor) min = ep_tensor_min (x, EP_AXES (0), FALSE, &error);

  g_assert_no_error (error);
  ep_assert_values (max, EP_DTYPE_FLOAT32, EP_SHAPE (2), EP_VALUES (NAN, NAN));
  ep_assert_values (min, EP_DTYPE_FLOAT32, EP_SHAPE (3), EP_VALUES (NAN, NAN, 3));
}

static void
test_mean_int_is_dtype_error (void)
{
  static const EpDType dtypes[] = { EP_DTYPE_INT32, EP_DTYPE_INT64, EP_DTYPE_BOOL };

  for (guint d = 0; d < G_N_ELEMENTS (dtypes); d++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(EpTensor) x = ep_test_new (dtypes[d], EP_SHAPE (2), EP_VALUES (1, 0));
      g_autoptr(EpTensor) m = ep_tensor_mean (x, NULL, 0, FALSE, &error);

      g_assert_null (m);
      ep_assert_error (error, EP_ERROR_DTYPE, "mean", ep_dtype_get_name (dtypes[d]));
    }
}

/* empty inputs */

static void
test_sum_of_empty_is_zero (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) x = ep_zeros (EP_SHAPE (0, 3), EP_DTYPE_FLOAT32, &error);
  g_autoptr(EpTensor) all = ep_tensor_sum (x, NULL, 0, FALSE, &error);
  g_autoptr(EpTensor) a0 = ep_tensor_sum (x, EP_AXES (0), FALSE, &error);
  g_autoptr(EpTensor) a1 = ep_tensor_sum (x, EP_AXES (1), FALSE, &error);

  g_assert_no_error (error);
  ep_assert_values (all, EP_DTYPE_FLOAT32, EP_SCALAR, EP_VALUES (0));
  ep_assert_values (a0, EP_DTYPE_FLOAT32, EP_SHAPE (3), EP_VALUES (0, 0, 0));
  ep_assert_shape (a1, EP_SHAPE (0));
}

/* An empty tensor's other extents may be anything: the kernel's
 * strides for it must not overflow (found by fuzz-dispatch, a UBSan
 * report in ep_cpu_iter_add: the gradient of broadcast_to to such a
 * shape) */
static void
test_sum_of_empty_overflowing_strides (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) none = g_bytes_new (NULL, 0);
  g_autoptr(EpTensor) x = ep_tensor_new_from_bytes (none, EP_DTYPE_FLOAT32,
                                                    EP_SHAPE (8, 4, G_GINT64_CONSTANT (3820430052038803583), 1, 0),
                                                    &error);
  g_autoptr(EpTensor) sum = ep_tensor_sum (x, EP_AXES (0, 1, 2, 4), TRUE, &error);

  g_assert_no_error (error);
  ep_assert_values (sum, EP_DTYPE_FLOAT32, EP_SHAPE (1, 1, 1, 1, 1), EP_VALUES (0));
}

static void
test_mean_of_empty_is_nan (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) x = ep_zeros (EP_SHAPE (0), EP_DTYPE_FLOAT64, &error);
  g_autoptr(EpTensor) m = ep_tensor_mean (x, NULL, 0, FALSE, &error);

  g_assert_no_error (error);
  ep_assert_values (m, EP_DTYPE_FLOAT64, EP_SCALAR, EP_VALUES (NAN));
}

static void
test_extrema_of_empty_axis (void)
{
  g_autoptr(EpTensor) x = ep_zeros (EP_SHAPE (0, 3), EP_DTYPE_INT32, NULL);
  const char *names[] = { "max", "min" };
  ReduceFunc funcs[] = { ep_tensor_max, ep_tensor_min };

  for (guint i = 0; i < 2; i++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(EpTensor) y = funcs[i] (x, EP_AXES (0), FALSE, &error);

      g_assert_null (y);
      ep_assert_error (error, EP_ERROR_SHAPE, names[i], "zero-size axis");
    }
}

/* Only the reduced axes have to be non-empty. */
static void
test_extrema_along_non_empty_axis (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) x = ep_zeros (EP_SHAPE (0, 3), EP_DTYPE_INT32, &error);
  g_autoptr(EpTensor) y = ep_tensor_max (x, EP_AXES (1), TRUE, &error);

  g_assert_no_error (error);
  ep_assert_shape (y, EP_SHAPE (0, 1));
}

/* An empty input whose other extents are huge: reducing the empty axis
 * would make an absurd output, reducing another keeps it empty. */
static void
test_empty_with_huge_extents (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) x = ep_zeros (EP_SHAPE (EP_TERA, 0, EP_TERA), EP_DTYPE_FLOAT32, &error);
  g_autoptr(EpTensor) kept = ep_tensor_sum (x, EP_AXES (0), FALSE, &error);
  g_autoptr(EpTensor) absurd = NULL;
  g_autoptr(EpTensor) no_identity = NULL;

  g_assert_no_error (error);
  ep_assert_shape (kept, EP_SHAPE (0, EP_TERA));
  absurd = ep_tensor_mean (x, EP_AXES (1), FALSE, &error);
  g_assert_null (absurd);
  ep_assert_error (error, EP_ERROR_OUT_OF_MEMORY, "mean", NULL);
  g_clear_error (&error);
  no_identity = ep_tensor_max (x, EP_AXES (1), FALSE, &error);
  g_assert_null (no_identity);
  ep_assert_error (error, EP_ERROR_SHAPE, "max", NULL);
}

/* The kernel runs (the output is not empty) over an empty input with
 * huge strides. */
static void
test_sum_over_empty_with_huge_extents (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) x = ep_ones (EP_SHAPE (EP_TERA, EP_TERA, 0, 3), EP_DTYPE_FLOAT64, &error);
  g_autoptr(EpTensor) s = ep_tensor_sum (x, EP_AXES (0, 1, 2), FALSE, &error);
  g_autoptr(EpTensor) m = ep_tensor_mean (x, EP_AXES (0, 1, 2), TRUE, &error);

  g_assert_no_error (error);
  ep_assert_values (s, EP_DTYPE_FLOAT64, EP_SHAPE (3), EP_VALUES (0, 0, 0));
  ep_assert_values (m, EP_DTYPE_FLOAT64, EP_SHAPE (1, 1, 1, 3), EP_VALUES (NAN, NAN, NAN));
}

/* axis errors */

static void
test_axis_out_of_range (void)
{
  g_autoptr(EpTensor) x = ep_test_new (EP_DTYPE_FLOAT32, EP_SHAPE (2, 3), EP_VALUES (1, 2, 3, 4, 5, 6));

  for (guint r = 0; r < G_N_ELEMENTS (reductions); r++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(GError) error_neg = NULL;
      g_autoptr(EpTensor) y = reductions[r].f (x, EP_AXES (2), FALSE, &error);
      g_autoptr(EpTensor) z = reductions[r].f (x, EP_AXES (0, -3), FALSE, &error_neg);

      g_assert_null (y);
      ep_assert_error (error, EP_ERROR_AXIS, reductions[r].name, "axis 2 is out of range for a tensor of 2 dimensions");
      g_assert_null (z);
      ep_assert_error (error_neg, EP_ERROR_AXIS, reductions[r].name, "axis -3");
    }
}

/* A norm is built on other reductions; its errors name the norm, and
 * one dimension is singular. */
static void
test_norm_axis_errors_name_the_norm (void)
{
  g_autoptr(EpTensor) x = ep_test_new (EP_DTYPE_FLOAT32, EP_SHAPE (2), EP_VALUES (3, 4));
  const gint axis = 4;
  EpTensor *(*norms[]) (EpTensor *, const gint *, guint, gboolean, GError **) = {
    ep_tensor_l0, ep_tensor_l1, ep_tensor_l2, ep_tensor_linf,
  };
  const char *names[] = { "l0", "l1", "l2", "linf" };
  const gdouble orders[] = { 0, 1, 2, 3, INFINITY };

  for (guint n = 0; n < G_N_ELEMENTS (norms); n++)
    {
      g_autoptr(GError) error = NULL;
      g_autofree char *want = g_strdup_printf ("%s: axis 4 is out of range for a tensor of 1 dimension",
                                               names[n]);

      g_assert_null (norms[n] (x, &axis, 1, FALSE, &error));
      g_assert_cmpstr (error->message, ==, want);
    }
  for (guint p = 0; p < G_N_ELEMENTS (orders); p++)
    {
      g_autoptr(GError) error = NULL;

      g_assert_null (ep_tensor_lp (x, orders[p], &axis, 1, FALSE, &error));
      g_assert_cmpstr (error->message, ==, "lp: axis 4 is out of range for a tensor of 1 dimension");
    }
}

/* NumPy 1.24 reduces a 0-d array along axis 0 or -1 as along none,
 * except in mean; any other axis is out of range. */
static void
test_axis_of_scalar (void)
{
  g_autoptr(EpTensor) x = ep_test_new (EP_DTYPE_FLOAT32, EP_SCALAR, EP_VALUES (1));

  for (guint r = 0; r < G_N_ELEMENTS (reductions); r++)
    {
      gboolean mean = g_str_equal (reductions[r].name, "mean");
      g_autoptr(GError) error_first = NULL;
      g_autoptr(GError) error_last = NULL;
      g_autoptr(GError) error_second = NULL;
      g_autoptr(EpTensor) first = reductions[r].f (x, EP_AXES (0), FALSE, &error_first);
      g_autoptr(EpTensor) last = reductions[r].f (x, EP_AXES (-1), TRUE, &error_last);
      g_autoptr(EpTensor) second = reductions[r].f (x, EP_AXES (1), FALSE, &error_second);

      if (mean)
        {
          g_assert_null (first);
          ep_assert_error (error_first, EP_ERROR_AXIS, "mean", "0 dimensions");
          g_assert_null (last);
          ep_assert_error (error_last, EP_ERROR_AXIS, "mean", "0 dimensions");
        }
      else
        {
          g_assert_no_error (error_first);
          ep_assert_values (first, EP_DTYPE_FLOAT32, EP_SCALAR, EP_VALUES (1));
          g_assert_no_error (error_last);
          ep_assert_values (last, EP_DTYPE_FLOAT32, EP_SCALAR, EP_VALUES (1));
        }
      g_assert_null (second);
      ep_assert_error (error_second, EP_ERROR_AXIS, reductions[r].name, "0 dimensions");
    }
}

static void
test_axis_repeated (void)
{
  g_autoptr(EpTensor) x = ep_test_new (EP_DTYPE_FLOAT32, EP_SHAPE (2, 3), EP_VALUES (1, 2, 3, 4, 5, 6));

  for (guint r = 0; r < G_N_ELEMENTS (reductions); r++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(EpTensor) y = reductions[r].f (x, EP_AXES (0, -2), FALSE, &error);

      g_assert_null (y);
      ep_assert_error (error, EP_ERROR_AXIS, reductions[r].name, "repeated");
    }
}

static void
test_too_many_axes (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) x = ep_test_new (EP_DTYPE_FLOAT32, EP_SHAPE (2), EP_VALUES (1, 2));
  g_autoptr(EpTensor) y = ep_tensor_max (x, EP_AXES (0, 0, 0, 0, 0, 0, 0, 0, 0), FALSE, &error);

  g_assert_null (y);
  ep_assert_error (error, EP_ERROR_AXIS, "max", "9 axes");
}

/* non-contiguous inputs */

static void
test_reduce_transposed (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) x = new_cube (EP_DTYPE_FLOAT32);
  g_autoptr(EpTensor) t = ep_tensor_transpose (x, EP_AXES (2, 0, 1), &error);
  g_autoptr(EpTensor) s = ep_tensor_sum (t, EP_AXES (0), FALSE, &error);
  g_autoptr(EpTensor) m = ep_tensor_max (t, EP_AXES (2), FALSE, &error);

  g_assert_no_error (error);
  ep_assert_values (s, EP_DTYPE_FLOAT32, EP_SHAPE (2, 3), EP_VALUES (6, 22, 38, 54, 70, 86));
  ep_assert_values (m, EP_DTYPE_FLOAT32, EP_SHAPE (4, 2), EP_VALUES (8, 20, 9, 21, 10, 22, 11, 23));
}

static void
test_reduce_strided (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) x = ep_test_new_strided (EP_DTYPE_FLOAT64, EP_SHAPE (2, 3), EP_VALUES (1, 2, 3, 4, 5, 6));
  g_autoptr(EpTensor) sum = ep_tensor_sum (x, EP_AXES (1), FALSE, &error);
  g_autoptr(EpTensor) mean = ep_tensor_mean (x, EP_AXES (0), TRUE, &error);
  g_autoptr(EpTensor) max = ep_tensor_max (x, NULL, 0, FALSE, &error);
  g_autoptr(EpTensor) min = ep_tensor_min (x, EP_AXES (1), FALSE, &error);

  g_assert_no_error (error);
  ep_assert_values (sum, EP_DTYPE_FLOAT64, EP_SHAPE (2), EP_VALUES (6, 15));
  ep_assert_values (mean, EP_DTYPE_FLOAT64, EP_SHAPE (1, 3), EP_VALUES (2.5, 3.5, 4.5));
  ep_assert_values (max, EP_DTYPE_FLOAT64, EP_SCALAR, EP_VALUES (6));
  ep_assert_values (min, EP_DTYPE_FLOAT64, EP_SHAPE (2), EP_VALUES (1, 4));
}

static void
test_reduce_strided_integers (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) x = ep_test_new_strided (EP_DTYPE_INT32, EP_SHAPE (3, 2), EP_VALUES (1, -2, 3, -4, 5, -6));
  g_autoptr(EpTensor) sum = ep_tensor_sum (x, EP_AXES (0), FALSE, &error);
  g_autoptr(EpTensor) min = ep_tensor_min (x, EP_AXES (0), FALSE, &error);

  g_assert_no_error (error);
  ep_assert_values (sum, EP_DTYPE_INT64, EP_SHAPE (2), EP_VALUES (9, -12));
  ep_assert_values (min, EP_DTYPE_INT32, EP_SHAPE (2), EP_VALUES (1, -6));
}

/* Pairwise summation keeps float32 sums accurate. */
static void
test_sum_float32_accuracy (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) x = ep_full (EP_SHAPE (1000000), 0.1, EP_DTYPE_FLOAT32, &error);
  g_autoptr(EpTensor) s = ep_tensor_sum (x, NULL, 0, FALSE, &error);
  g_autoptr(EpTensor) m = ep_tensor_mean (x, NULL, 0, FALSE, &error);

  g_assert_no_error (error);
  g_assert_cmpfloat_with_epsilon (ep_tensor_item_double (s, NULL), 1e6 * (gdouble) 0.1f, 0.5);
  g_assert_cmpfloat_with_epsilon (ep_tensor_item_double (m, NULL), (gdouble) 0.1f, 1e-6);
}

/* The largest rank, reduced in the middle. */
static void
test_reduce_eight_dimensions (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) flat = ep_arange (0, 256, 1, EP_DTYPE_INT64, &error);
  g_autoptr(EpTensor) x = ep_tensor_reshape (flat, EP_SHAPE (2, 2, 2, 2, 2, 2, 2, 2), &error);
  g_autoptr(EpTensor) s = ep_tensor_sum (x, EP_AXES (1, 3, 5, 7), FALSE, &error);

  g_assert_no_error (error);
  ep_assert_values (s, EP_DTYPE_INT64, EP_SHAPE (2, 2, 2, 2),
                    EP_VALUES (680, 712, 808, 840, 1192, 1224, 1320, 1352,
                               2728, 2760, 2856, 2888, 3240, 3272, 3368, 3400));
}

/* Reductions over a short innermost axis run many rows per kernel call:
 * every row must come out bit for bit as a reduction of that row alone
 * (one row: the one-call path), for every row length around the cut
 * (16), with NaN, infinities, -0 and magnitudes that make the order of
 * the additions show; a large case (split between threads) against its
 * rows in slices of 1000. */

static void
fill_rows (guint8 *data, EpDType dtype, gint64 size, gint64 n, GRand *rand)
{
  for (gint64 i = 0; i < size; i++)
    {
      gint64 row = i / n;
      gdouble v = g_rand_double_range (rand, -1, 1) * pow (10, g_rand_int_range (rand, -8, 9));
      guint32 pick = g_rand_int_range (rand, 0, 40);

      if (row % 7 == 3)
        v = -0.0;                       /* a row of -0 */
      else if (pick == 0)
        v = NAN;
      else if (pick == 1)
        v = INFINITY;
      else if (pick == 2)
        v = -INFINITY;
      else if (pick == 3)
        v = -0.0;
      switch (dtype)
        {
        case EP_DTYPE_FLOAT32: ((gfloat *) data)[i] = (gfloat) v; break;
        case EP_DTYPE_FLOAT64: ((gdouble *) data)[i] = v; break;
        case EP_DTYPE_INT32: ((gint32 *) data)[i] = (gint32) g_rand_int (rand); break;
        case EP_DTYPE_INT64:
          ((gint64 *) data)[i] = (gint64) (((guint64) g_rand_int (rand) << 32) | g_rand_int (rand));
          break;
        default: g_assert_not_reached ();
        }
    }
}

static void
assert_same_bytes (EpTensor *a, EpTensor *b, const char *what, gint64 n, gint64 rows, gint64 at)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) x = ep_tensor_to_bytes (a, &error);
  g_autoptr(GBytes) y = ep_tensor_to_bytes (b, &error);
  gsize nx, ny;
  const guint8 *px = g_bytes_get_data (x, &nx);
  const guint8 *py = g_bytes_get_data (y, &ny);

  g_assert_no_error (error);
  if (nx != ny || memcmp (px, py, nx) != 0)
    {
      gsize i = 0;

      while (i < MIN (nx, ny) && px[i] == py[i])
        i++;
      g_error ("%s of %s: rows of %" G_GINT64_FORMAT " (%" G_GINT64_FORMAT " rows) differ at row %"
               G_GINT64_FORMAT " (byte %" G_GSIZE_FORMAT ": %02x, not %02x)",
               what, ep_dtype_get_name (ep_tensor_get_dtype (a)), n, rows, at, i, px[MIN (i, nx - 1)], py[MIN (i, ny - 1)]);
    }
}

static void
check_short_rows (EpDType dtype, gint64 rows, gint64 n, gint64 slice, GRand *rand)
{
  g_autoptr(GError) error = NULL;
  gsize itemsize = ep_dtype_get_itemsize (dtype);
  g_autofree guint8 *data = g_malloc (rows * n * itemsize);
  g_autoptr(EpTensor) x = NULL;

  fill_rows (data, dtype, rows * n, n, rand);
  x = ep_tensor_new_from_data (data, rows * n * itemsize, dtype, EP_DIMS (rows, n), 2, &error);
  g_assert_no_error (error);

  for (guint f = 0; f < G_N_ELEMENTS (reductions); f++)
    {
      g_autoptr(EpTensor) all = NULL;

      if (reductions[f].f == ep_tensor_mean && !ep_dtype_is_floating (dtype))
        continue;
      all = reductions[f].f (x, EP_AXES (1), FALSE, &error);
      g_assert_no_error (error);

      for (gint64 r = 0; r < rows; r += slice)
        {
          gint64 stop = MIN (r + slice, rows);
          g_autoptr(EpTensor) part = ep_tensor_slice (x, EP_DIMS (r, 0), 2, EP_DIMS (stop, n), 2,
                                                      EP_DIMS (1, 1), 2, &error);
          g_autoptr(EpTensor) want = reductions[f].f (part, EP_AXES (1), FALSE, &error);
          g_autoptr(EpTensor) have = ep_tensor_slice (all, EP_DIMS (r), 1, EP_DIMS (stop), 1,
                                                      EP_DIMS (1), 1, &error);

          g_assert_no_error (error);
          assert_same_bytes (have, want, reductions[f].name, n, rows, r);
        }
    }
}

static void
test_short_rows_bit_identical (void)
{
  const EpDType dtypes[] = { EP_DTYPE_FLOAT32, EP_DTYPE_FLOAT64, EP_DTYPE_INT64, EP_DTYPE_INT32 };
  const gint64 row_counts[] = { 2, 3, 5, 17, 64, 200, 1000 };
  g_autoptr(GRand) rand = g_rand_new_with_seed (7);

  for (guint d = 0; d < G_N_ELEMENTS (dtypes); d++)
    for (gint64 n = 1; n <= 17; n++)
      {
        for (guint c = 0; c < G_N_ELEMENTS (row_counts); c++)
          check_short_rows (dtypes[d], row_counts[c], n, 1, rand);
        /* large enough for threads, against slices that are not */
        check_short_rows (dtypes[d], 40000, n, 1000, rand);
      }
}

/* prod, argmax, argmin, all, any; the norms */

static void
test_prod_argmax_argmin_all_any (void)
{
  g_autoptr(GError) error = NULL;
  const gdouble x[] = { 3, 1, 2, 1, -4, 5 };
  const gint axis1[] = { 1 };
  g_autoptr(EpTensor) m = ep_test_matrix (x, 2, 3, EP_DTYPE_INT32);
  g_autoptr(EpTensor) prod = ep_tensor_prod (m, axis1, 1, FALSE, &error);
  g_autoptr(EpTensor) argmax = ep_tensor_argmax (m, 1, FALSE, &error);
  g_autoptr(EpTensor) argmin = ep_tensor_argmin (m, EP_AXIS_NONE, FALSE, &error);
  g_autoptr(EpTensor) zero = ep_tensor_new_weak_scalar (0, EP_DTYPE_INT64);
  g_autoptr(EpTensor) positive = ep_tensor_greater (m, zero, &error);
  g_autoptr(EpTensor) all = ep_tensor_all (positive, axis1, 1, TRUE, &error);
  g_autoptr(EpTensor) any = ep_tensor_any (positive, NULL, 0, FALSE, &error);
  const gdouble prod_expected[] = { 6, -20 };
  const gdouble argmax_expected[] = { 0, 2 };
  const gdouble argmin_expected[] = { 4 };
  const gdouble all_expected[] = { 1, 0 };
  const gdouble any_expected[] = { 1 };

  g_assert_no_error (error);
  g_assert_cmpint (ep_tensor_get_dtype (prod), ==, EP_DTYPE_INT64);
  ep_test_assert_close (prod, prod_expected, 2);
  ep_test_assert_close (argmax, argmax_expected, 2);
  ep_test_assert_close (argmin, argmin_expected, 1);
  g_assert_cmpuint (ep_tensor_get_ndim (argmin), ==, 0);
  ep_test_assert_close (all, all_expected, 2);
  g_assert_cmpuint (ep_tensor_get_ndim (all), ==, 2);
  ep_test_assert_close (any, any_expected, 1);
}

static void
test_norms (void)
{
  g_autoptr(GError) error = NULL;
  const gdouble x[] = { 3, -4, 0, 0 };
  g_autoptr(EpTensor) t = ep_test_vector (x, 4, EP_DTYPE_FLOAT64);
  g_autoptr(EpTensor) l0 = ep_tensor_l0 (t, NULL, 0, FALSE, &error);
  g_autoptr(EpTensor) l1 = ep_tensor_l1 (t, NULL, 0, FALSE, &error);
  g_autoptr(EpTensor) l2 = ep_tensor_l2 (t, NULL, 0, FALSE, &error);
  g_autoptr(EpTensor) linf = ep_tensor_linf (t, NULL, 0, FALSE, &error);
  g_autoptr(EpTensor) l3 = ep_tensor_lp (t, 3, NULL, 0, FALSE, &error);

  g_assert_no_error (error);
  g_assert_cmpfloat (ep_tensor_item_double (l0, NULL), ==, 2);
  g_assert_cmpfloat (ep_tensor_item_double (l1, NULL), ==, 7);
  g_assert_cmpfloat (ep_tensor_item_double (l2, NULL), ==, 5);
  g_assert_cmpfloat (ep_tensor_item_double (linf, NULL), ==, 4);
  g_assert_cmpfloat_with_epsilon (ep_tensor_item_double (l3, NULL), cbrt (91.0), 1e-12);
}

/* The norms' gradients where a norm (a whole vector, or one row under
 * axis=1) is 0: a subgradient of 0, as PyTorch takes, never NaN */
typedef EpTensor *(*NormFunc) (EpTensor *x, const gint *axes, guint n_axes, GError **error);

#define NORM(name, call)                                                    \
  static EpTensor *                                                         \
  norm_##name (EpTensor *x, const gint *axes, guint n_axes, GError **error) \
  {                                                                         \
    return call;                                                            \
  }

NORM (l0, ep_tensor_l0 (x, axes, n_axes, FALSE, error))
NORM (l1, ep_tensor_l1 (x, axes, n_axes, FALSE, error))
NORM (l2, ep_tensor_l2 (x, axes, n_axes, FALSE, error))
NORM (linf, ep_tensor_linf (x, axes, n_axes, FALSE, error))
NORM (lp3, ep_tensor_lp (x, 3, axes, n_axes, FALSE, error))
NORM (lp1_5, ep_tensor_lp (x, 1.5, axes, n_axes, FALSE, error))
NORM (lp0_5, ep_tensor_lp (x, 0.5, axes, n_axes, FALSE, error))
NORM (lp_inf, ep_tensor_lp (x, INFINITY, axes, n_axes, FALSE, error))
NORM (lp_minus_inf, ep_tensor_lp (x, -INFINITY, axes, n_axes, FALSE, error))

/* d sum (norm (x, axes)) / dx */
static EpTensor *
norm_gradient (NormFunc    norm,
               EpTensor   *x,
               const gint *axes,
               guint       n_axes)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpGradientTape) tape = ep_gradient_tape_new (FALSE);
  g_autoptr(EpTensor) y = NULL;
  g_autoptr(EpTensor) total = NULL;
  g_autoptr(GPtrArray) grads = NULL;
  GObject *sources[] = { G_OBJECT (x) };

  ep_gradient_tape_start (tape, &error);
  ep_gradient_tape_watch (tape, x);
  y = norm (x, axes, n_axes, &error);
  total = y != NULL ? ep_tensor_sum (y, NULL, 0, FALSE, &error) : NULL;
  ep_gradient_tape_stop (tape, &error);
  g_assert_no_error (error);
  grads = ep_gradient_tape_gradient (tape, &total, 1, sources, 1, NULL, 0, &error);
  g_assert_no_error (error);

  return g_ptr_array_index (grads, 0) != NULL ? g_object_ref (g_ptr_array_index (grads, 0)) : NULL;
}

static void
test_gradient_norms_at_zero (void)
{
  static const struct { const char *name; NormFunc norm; } norms[] = {
    { "l0", norm_l0 }, { "l1", norm_l1 }, { "l2", norm_l2 }, { "linf", norm_linf },
    { "lp(3)", norm_lp3 }, { "lp(1.5)", norm_lp1_5 }, { "lp(0.5)", norm_lp0_5 },
    { "lp(inf)", norm_lp_inf }, { "lp(-inf)", norm_lp_minus_inf },
  };
  const gdouble zeros[] = { 0, 0, 0 };
  const gdouble rows[] = { 0, 0, 0, 3, 0, 4 };
  const gint axis1[] = { 1 };
  g_autoptr(EpTensor) vector = ep_test_vector (zeros, 3, EP_DTYPE_FLOAT64);
  g_autoptr(EpTensor) matrix = ep_test_matrix (rows, 2, 3, EP_DTYPE_FLOAT64);

  for (guint i = 0; i < G_N_ELEMENTS (norms); i++)
    {
      g_autoptr(EpTensor) whole = norm_gradient (norms[i].norm, vector, NULL, 0);
      g_autoptr(EpTensor) by_row = norm_gradient (norms[i].norm, matrix, axis1, 1);
      gsize n;
      g_autofree gdouble *g = NULL;
      g_autofree gdouble *h = NULL;

      g_test_message ("%s", norms[i].name);
      /* l0 counts: no gradient at all */
      if (whole != NULL)
        {
          g = ep_test_get_values (whole, &n);
          for (gsize k = 0; k < n; k++)
            g_assert_cmpfloat (g[k], ==, 0.0);
        }
      if (by_row == NULL)
        continue;
      h = ep_test_get_values (by_row, &n);
      g_assert_cmpuint (n, ==, 6);
      /* the zero row gets 0, and so does the zero element of the other */
      g_assert_cmpfloat (h[0], ==, 0.0);
      g_assert_cmpfloat (h[1], ==, 0.0);
      g_assert_cmpfloat (h[2], ==, 0.0);
      g_assert_cmpfloat (h[4], ==, 0.0);
      g_assert_true (isfinite (h[3]) && isfinite (h[5]));
    }
}

/* Every error path of the reduce ops, with its code */
static void
test_error_codes (void)
{
  const gdouble v[] = { 1, 2, 3, 4, 5, 6 };
  g_autoptr(EpTensor) f = ep_test_matrix (v, 2, 3, EP_DTYPE_FLOAT32);
  g_autoptr(EpTensor) b = ep_tensor_bool (f, NULL);
  g_autoptr(EpTensor) scalar = ep_tensor_new_scalar (1, EP_DTYPE_FLOAT32, NULL);
  g_autoptr(EpTensor) empty = ep_zeros ((const gint64[]) { 0, 3 }, 2, EP_DTYPE_FLOAT32, NULL);
  const gint axis2[] = { 2 };
  struct { EpTensor *result; gint code; } cases[40];
  guint n = 0;
  GError *errors[40] = { NULL };

#define EXPECT(call, error_code) \
  G_STMT_START { cases[n].code = error_code; cases[n].result = call; n++; } G_STMT_END
#define E (&errors[n])

  EXPECT (ep_tensor_all (f, NULL, 0, FALSE, E), EP_ERROR_DTYPE);
  EXPECT (ep_tensor_any (b, axis2, 1, FALSE, E), EP_ERROR_AXIS);
  EXPECT (ep_tensor_prod (f, axis2, 1, FALSE, E), EP_ERROR_AXIS);
  EXPECT (ep_tensor_argmax (f, 2, FALSE, E), EP_ERROR_AXIS);
  EXPECT (ep_tensor_argmin (scalar, 1, FALSE, E), EP_ERROR_AXIS);
  EXPECT (ep_tensor_argmax (empty, EP_AXIS_NONE, FALSE, E), EP_ERROR_SHAPE);
  EXPECT (ep_tensor_lp (f, NAN, NULL, 0, FALSE, E), EP_ERROR_INVALID_ARGUMENT);

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

/* gradient rules against central differences (ep-test-gradient.h) */

static gint reduce_axes[2];
static guint reduce_n_axes;
static gboolean reduce_keepdims;

static EpTensor *
call_prod (EpTensor **x, GError **error)
{
  return ep_tensor_prod (x[0], reduce_n_axes ? reduce_axes : NULL, reduce_n_axes, reduce_keepdims, error);
}

static void
test_gradient_prod (void)
{
  static const struct { gint axes[2]; guint n; gboolean keepdims; } settings[] = {
    { { 0 }, 0, FALSE }, { { 1 }, 1, FALSE }, { { 0 }, 1, TRUE }, { { -1, 0 }, 2, TRUE },
  };
  gdouble with_zeros[12];

  memcpy (with_zeros, ep_test_grad_a, sizeof ep_test_grad_a);
  with_zeros[1] = 0;   /* one zero in row 0 */
  with_zeros[8] = 0;   /* two zeros in row 2 and column 0 */
  with_zeros[9] = 0;

  for (guint s = 0; s < G_N_ELEMENTS (settings); s++)
    {
      g_autoptr(EpTensor) x0 = ep_test_float64 (ep_test_grad_a, ep_test_shape_34, 2);
      g_autoptr(EpTensor) z0 = ep_test_float64 (with_zeros, ep_test_shape_34, 2);
      EpTensor *x[1] = { x0 };
      EpTensor *z[1] = { z0 };

      memcpy (reduce_axes, settings[s].axes, sizeof reduce_axes);
      reduce_n_axes = settings[s].n;
      reduce_keepdims = settings[s].keepdims;
      ep_test_check_gradient (&ep_op_prod, call_prod, x, 1);
      ep_test_check_gradient (&ep_op_prod, call_prod, z, 1);
    }
}

/* Ops whose outputs are integer or bool have no gradient rule, so a
 * gradient tape passes nothing through them; each says so by its output
 * type, checked here on a float input. */
static void
test_not_differentiable (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) x = ep_test_float64 (ep_test_grad_a, ep_test_shape_34, 2);
  g_autoptr(EpTensor) argmin = ep_tensor_argmin (x, EP_AXIS_NONE, FALSE, &error);
  g_autoptr(EpTensor) argmax = ep_tensor_argmax (x, EP_AXIS_NONE, FALSE, &error);
  static const struct { const EpOpDef *op; EpDType dtype; } cases[] = {
    { &ep_op_argmin, EP_DTYPE_INT64 }, { &ep_op_argmax, EP_DTYPE_INT64 },
  };
  EpTensor *outputs[] = { argmin, argmax };

  g_assert_no_error (error);
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_assert_null (cases[i].op->gradient);
      g_assert_cmpint (outputs[i]->layout.dtype, ==, cases[i].dtype);
    }
}

/* var and std: NumPy's two-pass values, the correction, division by 0
 * past the count, integers as float64, the errors under their names */
static void
test_var_std (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) x = ep_test_new (EP_DTYPE_FLOAT32, EP_SHAPE (2, 3), EP_VALUES (1, 2, 3, 10, 10, 10));
  g_autoptr(EpTensor) big = ep_test_new (EP_DTYPE_FLOAT32, EP_SHAPE (4), EP_VALUES (1e4, 1e4 + 0.5, 1e4 + 1, 1e4 + 1.5));
  g_autoptr(EpTensor) ints = ep_test_new (EP_DTYPE_INT32, EP_SHAPE (4), EP_VALUES (1, 2, 3, 4));
  g_autoptr(EpTensor) var_rows = ep_tensor_var (x, EP_AXES (1), FALSE, 0.0, &error);
  g_autoptr(EpTensor) var_rows1 = ep_tensor_var (x, EP_AXES (-1), TRUE, 1.0, &error);
  g_autoptr(EpTensor) var_past = ep_tensor_var (x, EP_AXES (1), FALSE, 3.0, &error);
  g_autoptr(EpTensor) std_all = ep_tensor_std (x, NULL, 0, FALSE, 0.0, &error);
  g_autoptr(EpTensor) var_big = ep_tensor_var (big, NULL, 0, FALSE, 0.0, &error);
  g_autoptr(EpTensor) var_ints = ep_tensor_var (ints, NULL, 0, FALSE, 1.0, &error);
  g_autoptr(EpTensor) bad = NULL;

  g_assert_no_error (error);
  ep_assert_values (var_rows, EP_DTYPE_FLOAT32, EP_SHAPE (2), EP_VALUES (2.0 / 3, 0));
  ep_assert_values (var_rows1, EP_DTYPE_FLOAT32, EP_SHAPE (2, 1), EP_VALUES (1, 0));
  ep_assert_values (var_past, EP_DTYPE_FLOAT32, EP_SHAPE (2), EP_VALUES (INFINITY, NAN));
  ep_assert_values (std_all, EP_DTYPE_FLOAT32, EP_SCALAR, EP_VALUES (sqrt (98.0 / 6)));
  ep_assert_values (var_big, EP_DTYPE_FLOAT32, EP_SCALAR, EP_VALUES (0.3125));
  ep_assert_values (var_ints, EP_DTYPE_FLOAT64, EP_SCALAR, EP_VALUES (5.0 / 3));

  bad = ep_tensor_std (x, NULL, 0, FALSE, NAN, &error);
  ep_assert_error (error, EP_ERROR_INVALID_ARGUMENT, "std", "correction");
  g_assert_null (bad);
  g_clear_error (&error);
  bad = ep_tensor_var (x, EP_AXES (2), FALSE, 0.0, &error);
  ep_assert_error (error, EP_ERROR_AXIS, "var", NULL);
  g_assert_null (bad);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/reduce/all/sum", test_sum_all);
  g_test_add_func ("/reduce/all/keepdims", test_all_axes_keepdims);
  g_test_add_func ("/reduce/all/mean-max-min", test_mean_max_min_all);
  g_test_add_func ("/reduce/axes/sum", test_sum_axes);
  g_test_add_func ("/reduce/axes/negative", test_negative_axes);
  g_test_add_func ("/reduce/axes/any-order", test_axes_in_any_order);
  g_test_add_func ("/reduce/axes/empty-is-all", test_empty_axes_are_all);
  g_test_add_func ("/reduce/axes/scalar-input", test_scalar_input);
  g_test_add_func ("/reduce/dtype/sum", test_sum_dtypes);
  g_test_add_func ("/reduce/dtype/sum-int32-does-not-overflow", test_sum_int32_does_not_overflow);
  g_test_add_func ("/reduce/dtype/extrema-keep-dtype", test_extrema_keep_dtype);
  g_test_add_func ("/reduce/extrema/integers", test_extrema_integers);
  g_test_add_func ("/reduce/extrema/nan", test_extrema_propagate_nan);
  g_test_add_func ("/reduce/mean/int-is-dtype-error", test_mean_int_is_dtype_error);
  g_test_add_func ("/reduce/empty/sum-is-zero", test_sum_of_empty_is_zero);
  g_test_add_func ("/reduce/empty/overflowing-strides", test_sum_of_empty_overflowing_strides);
  g_test_add_func ("/reduce/empty/mean-is-nan", test_mean_of_empty_is_nan);
  g_test_add_func ("/reduce/empty/extrema-error", test_extrema_of_empty_axis);
  g_test_add_func ("/reduce/empty/extrema-along-non-empty-axis", test_extrema_along_non_empty_axis);
  g_test_add_func ("/reduce/empty/huge-extents", test_empty_with_huge_extents);
  g_test_add_func ("/reduce/empty/sum-over-huge-extents", test_sum_over_empty_with_huge_extents);
  g_test_add_func ("/reduce/error/axis-out-of-range", test_axis_out_of_range);
  g_test_add_func ("/reduce/error/axis-of-scalar", test_axis_of_scalar);
  g_test_add_func ("/reduce/error/norms-name-themselves", test_norm_axis_errors_name_the_norm);
  g_test_add_func ("/reduce/error/axis-repeated", test_axis_repeated);
  g_test_add_func ("/reduce/error/too-many-axes", test_too_many_axes);
  g_test_add_func ("/reduce/non-contiguous/transposed", test_reduce_transposed);
  g_test_add_func ("/reduce/non-contiguous/strided", test_reduce_strided);
  g_test_add_func ("/reduce/non-contiguous/strided-integers", test_reduce_strided_integers);
  g_test_add_func ("/reduce/sum-float32-accuracy", test_sum_float32_accuracy);
  g_test_add_func ("/reduce/eight-dimensions", test_reduce_eight_dimensions);
  g_test_add_func ("/reduce/prod-argmax-argmin-all-any", test_prod_argmax_argmin_all_any);
  g_test_add_func ("/reduce/norms", test_norms);
  g_test_add_func ("/reduce/short-rows/bit-identical", test_short_rows_bit_identical);
  g_test_add_func ("/reduce/error/codes", test_error_codes);
  g_test_add_func ("/reduce/var-std", test_var_std);
  g_test_add_func ("/reduce/gradient/prod", test_gradient_prod);
  g_test_add_func ("/reduce/gradient/norms-at-zero", test_gradient_norms_at_zero);
  g_test_add_func ("/reduce/gradient/not-differentiable", test_not_differentiable);

  return g_test_run ();
}
