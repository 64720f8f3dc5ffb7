/* ops/pool.c: the pool family: max_pool2d, avg_pool2d, their gradients
 * and max_pool2d_indices: values (padding, strides, dilation, ceil mode,
 * NaN and infinities, NHWC), every error path, second derivatives. The
 * comparison with PyTorch over a grid is tests/python/ops/test_pool.py.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "ep-test-gradient.h"
#include "ep-test-util.h"

#define NCHW EP_DATA_FORMAT_NCHW
#define NHWC EP_DATA_FORMAT_NHWC

static EpTensor *
max_pool (EpTensor      *x,
          gint64         k,
          gint64         s,
          gint64         p,
          gint64         d,
          gboolean       ceil_mode,
          EpDataFormat   format,
          GError       **error)
{
  return ep_tensor_max_pool2d (x, &k, 1, &s, 1, &p, 1, &d, 1, ceil_mode, format, error);
}

static EpTensor *
avg_pool (EpTensor      *x,
          gint64         k,
          gint64         s,
          gint64         p,
          gboolean       ceil_mode,
          gboolean       count_include_pad,
          GError       **error)
{
  return ep_tensor_avg_pool2d (x, &k, 1, &s, 1, &p, 1, ceil_mode, count_include_pad, NCHW, error);
}

/* 0 … 15 as one 4×4 image */
static EpTensor *
iota_image (EpDType dtype)
{
  return ep_test_iota (EP_DIMS (1, 1, 4, 4), 4, dtype);
}

static void
test_max_values (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) x = iota_image (EP_DTYPE_FLOAT32);
  g_autoptr(EpTensor) plain = ep_tensor_max_pool2d (x, EP_DIMS (2), 1, NULL, 0, NULL, 0, NULL, 0,
                                                    FALSE, NCHW, &error);
  g_autoptr(EpTensor) padded = max_pool (x, 3, 2, 1, 1, FALSE, NCHW, &error);
  g_autoptr(EpTensor) floored = max_pool (x, 3, 2, 0, 1, FALSE, NCHW, &error);
  g_autoptr(EpTensor) ceiled = max_pool (x, 3, 2, 0, 1, TRUE, NCHW, &error);
  g_autoptr(EpTensor) dilated = max_pool (x, 2, 1, 0, 2, FALSE, NCHW, &error);
  g_autoptr(EpTensor) wide = ep_tensor_max_pool2d (x, EP_DIMS (1, 4), 2, EP_DIMS (3, 1), 2, NULL, 0,
                                                   NULL, 0, FALSE, NCHW, &error);

  g_assert_no_error (error);
  /* strides default to the kernel */
  ep_assert_values (plain, EP_DTYPE_FLOAT32, EP_SHAPE (1, 1, 2, 2), EP_VALUES (5, 7, 13, 15));
  ep_assert_values (padded, EP_DTYPE_FLOAT32, EP_SHAPE (1, 1, 2, 2), EP_VALUES (5, 7, 13, 15));
  /* ceil mode: a second window that starts inside the image */
  ep_assert_values (floored, EP_DTYPE_FLOAT32, EP_SHAPE (1, 1, 1, 1), EP_VALUES (10));
  ep_assert_values (ceiled, EP_DTYPE_FLOAT32, EP_SHAPE (1, 1, 2, 2), EP_VALUES (10, 11, 14, 15));
  ep_assert_values (dilated, EP_DTYPE_FLOAT32, EP_SHAPE (1, 1, 2, 2), EP_VALUES (10, 11, 14, 15));
  ep_assert_values (wide, EP_DTYPE_FLOAT32, EP_SHAPE (1, 1, 2, 1), EP_VALUES (3, 15));
}

/* ceil mode's rule: no window may start in the right padding */
static void
test_ceil_mode_last_window (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) x = ep_test_iota (EP_DIMS (1, 1, 1, 5), 4, EP_DTYPE_FLOAT64);
  g_autoptr(EpTensor) y = ep_tensor_max_pool2d (x, EP_DIMS (1, 2), 2, EP_DIMS (1, 2), 2,
                                                EP_DIMS (0, 1), 2, NULL, 0, TRUE, NCHW, &error);

  g_assert_no_error (error);
  /* (5 + 2 - 1 - 1 + 1) / 2 + 1 = 4 windows, but the fourth would
   * start at 6 >= 5 + 1: three */
  ep_assert_values (y, EP_DTYPE_FLOAT64, EP_SHAPE (1, 1, 1, 3), EP_VALUES (0, 2, 4));
}

static void
test_max_nan_and_infinities (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) x = ep_test_new (EP_DTYPE_FLOAT64, EP_SHAPE (1, 1, 2, 6),
                                       EP_VALUES (1, NAN, -INFINITY, -INFINITY, 4, 4,
                                                  NAN, 2, -INFINITY, -INFINITY, 3, 4));
  g_autoptr(EpTensor) y = max_pool (x, 2, 2, 0, 1, FALSE, NCHW, &error);
  g_autoptr(EpTensor) indices = ep_tensor_max_pool2d_indices (x, EP_DIMS (2), 1, NULL, 0, NULL, 0,
                                                              NULL, 0, FALSE, NCHW, &error);
  g_autoptr(EpTensor) ones = ep_tensor_ones_like (y, &error);
  g_autoptr(EpTensor) grad = ep_tensor_max_pool2d_grad (x, ones, EP_DIMS (2), 1, NULL, 0, NULL, 0,
                                                        NULL, 0, FALSE, NCHW, &error);

  g_assert_no_error (error);
  ep_assert_values (y, EP_DTYPE_FLOAT64, EP_SHAPE (1, 1, 1, 3), EP_VALUES (NAN, -INFINITY, 4));
  /* the last NaN, the first of equal ones (-inf too), PyTorch's */
  ep_assert_values (indices, EP_DTYPE_INT64, EP_SHAPE (1, 1, 1, 3), EP_VALUES (6, 2, 4));
  ep_assert_values (grad, EP_DTYPE_FLOAT64, EP_SHAPE (1, 1, 2, 6),
                    EP_VALUES (0, 0, 1, 0, 1, 0, 1, 0, 0, 0, 0, 0));
}

static void
test_avg_values (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) x = iota_image (EP_DTYPE_FLOAT64);
  g_autoptr(EpTensor) plain = avg_pool (x, 2, 2, 0, FALSE, TRUE, &error);
  g_autoptr(EpTensor) counted = avg_pool (x, 3, 2, 1, FALSE, TRUE, &error);
  g_autoptr(EpTensor) inside = avg_pool (x, 3, 2, 1, FALSE, FALSE, &error);
  g_autoptr(EpTensor) ceiled = avg_pool (x, 3, 2, 1, TRUE, TRUE, &error);

  g_assert_no_error (error);
  ep_assert_values (plain, EP_DTYPE_FLOAT64, EP_SHAPE (1, 1, 2, 2), EP_VALUES (2.5, 4.5, 10.5, 12.5));
  ep_assert_values (counted, EP_DTYPE_FLOAT64, EP_SHAPE (1, 1, 2, 2),
                    EP_VALUES (10 / 9.0, 24 / 9.0, 51 / 9.0, 90 / 9.0));
  ep_assert_values (inside, EP_DTYPE_FLOAT64, EP_SHAPE (1, 1, 2, 2),
                    EP_VALUES (10 / 4.0, 24 / 6.0, 51 / 6.0, 90 / 9.0));
  /* a ceil-mode window past the padding divides by its part inside the
   * padded image: rows 3 and 4 of 3 … 5 */
  ep_assert_values (ceiled, EP_DTYPE_FLOAT64, EP_SHAPE (1, 1, 3, 3),
                    EP_VALUES (10 / 9.0, 24 / 9.0, 10 / 6.0, 51 / 9.0, 90 / 9.0, 33 / 6.0,
                               25 / 6.0, 42 / 6.0, 15 / 4.0));
}

/* NHWC gives NCHW's result with the channels last */
static void
test_nhwc (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) x = ep_test_iota (EP_DIMS (2, 3, 5, 6), 4, EP_DTYPE_FLOAT32);
  g_autoptr(EpTensor) scrambled = ep_tensor_sin (x, &error);
  g_autoptr(EpTensor) nhwc = ep_tensor_transpose (scrambled, EP_AXES (0, 2, 3, 1), &error);
  g_autoptr(EpTensor) expected = max_pool (scrambled, 3, 2, 1, 1, TRUE, NCHW, &error);
  g_autoptr(EpTensor) got = max_pool (nhwc, 3, 2, 1, 1, TRUE, NHWC, &error);
  g_autoptr(EpTensor) back = ep_tensor_transpose (got, EP_AXES (0, 3, 1, 2), &error);
  g_autoptr(EpTensor) avg_expected = avg_pool (scrambled, 2, 1, 1, FALSE, FALSE, &error);
  g_autoptr(EpTensor) avg_got = ep_tensor_avg_pool2d (nhwc, EP_DIMS (2), 1, EP_DIMS (1), 1,
                                                      EP_DIMS (1), 1, FALSE, FALSE, NHWC, &error);
  g_autoptr(EpTensor) avg_back = ep_tensor_transpose (avg_got, EP_AXES (0, 3, 1, 2), &error);
  g_autoptr(EpTensor) same = ep_tensor_equal (back, expected, &error);
  g_autoptr(EpTensor) all = ep_tensor_all (same, NULL, 0, FALSE, &error);
  g_autoptr(EpTensor) avg_same = ep_tensor_equal (avg_back, avg_expected, &error);
  g_autoptr(EpTensor) avg_all = ep_tensor_all (avg_same, NULL, 0, FALSE, &error);

  g_assert_no_error (error);
  ep_assert_shape (got, EP_SHAPE (2, 3, 4, 3));
  g_assert_true (ep_tensor_item_boolean (all, &error));
  g_assert_true (ep_tensor_item_boolean (avg_all, &error));
  g_assert_no_error (error);
}

/* overlapping windows add up at a shared argmax; avg spreads by the
 * divisor */
static void
test_gradient_values (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) x = iota_image (EP_DTYPE_FLOAT64);
  g_autoptr(EpTensor) g = ep_test_new (EP_DTYPE_FLOAT64, EP_SHAPE (1, 1, 3, 3),
                                       EP_VALUES (1, 2, 3, 4, 5, 6, 7, 8, 9));
  g_autoptr(EpTensor) max_grad = ep_tensor_max_pool2d_grad (x, g, EP_DIMS (2), 1, EP_DIMS (1), 1,
                                                            NULL, 0, NULL, 0, FALSE, NCHW, &error);
  g_autoptr(EpTensor) g2 = ep_test_new (EP_DTYPE_FLOAT64, EP_SHAPE (1, 1, 2, 2), EP_VALUES (9, 6, 3, 18));
  g_autoptr(EpTensor) avg_grad = ep_avg_pool2d_grad (g2, EP_DIMS (1, 1, 4, 4), 4, EP_DIMS (3), 1,
                                                     EP_DIMS (2), 1, EP_DIMS (1), 1, FALSE, FALSE,
                                                     NCHW, &error);

  g_assert_no_error (error);
  /* every 2×2 window's max is its bottom-right element */
  ep_assert_values (max_grad, EP_DTYPE_FLOAT64, EP_SHAPE (1, 1, 4, 4),
                    EP_VALUES (0, 0, 0, 0, 0, 1, 2, 3, 0, 4, 5, 6, 0, 7, 8, 9));
  /* divisors 4, 6, 6, 9 (count_include_pad false) */
  ep_assert_values (avg_grad, EP_DTYPE_FLOAT64, EP_SHAPE (1, 1, 4, 4),
                    EP_VALUES (2.25, 3.25, 1, 1, 2.75, 5.75, 3, 3,
                               0.5, 2.5, 2, 2, 0.5, 2.5, 2, 2));
}

static void
test_errors (void)
{
  g_autoptr(EpTensor) x = ep_test_iota (EP_DIMS (1, 2, 4, 4), 4, EP_DTYPE_FLOAT32);
  g_autoptr(EpTensor) ints = ep_test_iota (EP_DIMS (1, 2, 4, 4), 4, EP_DTYPE_INT64);
  g_autoptr(EpTensor) rank3 = ep_test_iota (EP_DIMS (2, 4, 4), 3, EP_DTYPE_FLOAT32);
  g_autoptr(EpTensor) empty = ep_test_iota (EP_DIMS (1, 2, 0, 4), 4, EP_DTYPE_FLOAT32);
  g_autoptr(EpTensor) g = ep_test_iota (EP_DIMS (1, 2, 3, 2), 4, EP_DTYPE_FLOAT32);
  static const struct { gint64 k[2], s[2], p[2], d[2]; guint nk; EpError code; const char *fragment; } bad[] = {
    { { 0, 2 }, { 1, 1 }, { 0, 0 }, { 1, 1 }, 2, EP_ERROR_INVALID_ARGUMENT, "kernel_size must be at least 1" },
    { { 2, 2 }, { 0, 1 }, { 0, 0 }, { 1, 1 }, 2, EP_ERROR_INVALID_ARGUMENT, "strides must be at least 1" },
    { { 2, 2 }, { 1, 1 }, { 0, 0 }, { 1, -3 }, 2, EP_ERROR_INVALID_ARGUMENT, "dilation must be at least 1" },
    { { 2, 2 }, { 1, 1 }, { -1, 0 }, { 1, 1 }, 2, EP_ERROR_INVALID_ARGUMENT, "padding must be at least 0" },
    { { 3, 3 }, { 1, 1 }, { 0, 2 }, { 1, 1 }, 2, EP_ERROR_INVALID_ARGUMENT, "at most half the kernel" },
    { { 5, 5 }, { 1, 1 }, { 0, 0 }, { 1, 1 }, 2, EP_ERROR_SHAPE, "does not fit" },
    { { 2, 2 }, { 1, 1 }, { 0, 0 }, { 4, 4 }, 2, EP_ERROR_SHAPE, "does not fit" },
    { { G_MAXINT64, 2 }, { 1, 1 }, { G_MAXINT64 / 2, 0 }, { 1, 1 }, 2, EP_ERROR_INVALID_ARGUMENT, "too large" },
    { { G_MAXINT64 / 2, 2 }, { 1, 1 }, { 0, 0 }, { G_MAXINT64, 1 }, 2, EP_ERROR_INVALID_ARGUMENT, "too large" },
    { { 2, 2 }, { G_MAXINT64, 1 }, { 1, 0 }, { 1, 1 }, 2, EP_ERROR_INVALID_ARGUMENT, "too large" },
    { { 2, 2 }, { 1, 1 }, { 0, 0 }, { 1, 1 }, 0, EP_ERROR_INVALID_ARGUMENT, "kernel_size takes 1 or 2 values" },
    { { 2, 2 }, { 1, 1 }, { 0, 0 }, { 1, 1 }, 3, EP_ERROR_INVALID_ARGUMENT, "3 values given for kernel_size, at most 2 fit" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(GError) avg_error = NULL;
      gint64 k3[3] = { bad[i].k[0], bad[i].k[1], 2 };
      g_autoptr(EpTensor) y = ep_tensor_max_pool2d (x, k3, bad[i].nk, bad[i].s, 2, bad[i].p, 2,
                                                    bad[i].d, 2, FALSE, NCHW, &error);
      gboolean dilation_case = bad[i].d[0] != 1 || bad[i].d[1] != 1;

      g_test_message ("case %u", i);
      ep_assert_error (error, bad[i].code, "max_pool2d", bad[i].fragment);
      g_assert_null (y);
      if (!dilation_case)
        {
          g_autoptr(EpTensor) a = ep_tensor_avg_pool2d (x, k3, bad[i].nk, bad[i].s, 2, bad[i].p, 2,
                                                        FALSE, TRUE, NCHW, &avg_error);

          ep_assert_error (avg_error, bad[i].code, "avg_pool2d", bad[i].fragment);
          g_assert_null (a);
        }
    }

  {
    g_autoptr(GError) error = NULL;
    g_autoptr(EpTensor) y = max_pool (ints, 2, 2, 0, 1, FALSE, NCHW, &error);

    ep_assert_error (error, EP_ERROR_DTYPE, "max_pool2d", "int64");
  }
  {
    g_autoptr(GError) error = NULL;
    g_autoptr(EpTensor) y = avg_pool (rank3, 2, 2, 0, FALSE, TRUE, &error);

    ep_assert_error (error, EP_ERROR_SHAPE, "avg_pool2d", "4 dimensions, not 3");
  }
  {
    g_autoptr(GError) error = NULL;
    g_autoptr(EpTensor) y = max_pool (empty, 1, 1, 0, 1, FALSE, NCHW, &error);

    ep_assert_error (error, EP_ERROR_SHAPE, "max_pool2d", "empty");
  }
  {
    g_autoptr(GError) error = NULL;
    g_autoptr(EpTensor) y = max_pool (x, 2, 2, 0, 1, FALSE, (EpDataFormat) 42, &error);

    ep_assert_error (error, EP_ERROR_INVALID_ARGUMENT, "max_pool2d", "data_format");
  }
  {
    g_autoptr(GError) error = NULL;
    g_autoptr(EpTensor) y = ep_tensor_max_pool2d_grad (x, g, EP_DIMS (2), 1, NULL, 0, NULL, 0,
                                                       NULL, 0, FALSE, NCHW, &error);

    ep_assert_error (error, EP_ERROR_SHAPE, "max_pool2d_grad", "(1, 2, 3, 2)");
  }
  {
    g_autoptr(GError) error = NULL;
    g_autoptr(EpTensor) y = ep_tensor_max_pool2d_grad (x, ints, EP_DIMS (2), 1, NULL, 0, NULL, 0,
                                                       NULL, 0, FALSE, NCHW, &error);

    ep_assert_error (error, EP_ERROR_DTYPE, "max_pool2d_grad", "int64");
  }
  {
    g_autoptr(GError) error = NULL;
    g_autoptr(EpTensor) y = ep_avg_pool2d_grad (g, EP_DIMS (1, 2, 4), 3, EP_DIMS (2), 1, NULL, 0,
                                                NULL, 0, FALSE, TRUE, NCHW, &error);

    ep_assert_error (error, EP_ERROR_SHAPE, "avg_pool2d_grad", "4 dimensions, not 3");
  }
  {
    g_autoptr(GError) error = NULL;
    g_autoptr(EpTensor) y = ep_avg_pool2d_grad (g, EP_DIMS (1, 2, -4, 4), 4, EP_DIMS (2), 1, NULL, 0,
                                                NULL, 0, FALSE, TRUE, NCHW, &error);

    ep_assert_error (error, EP_ERROR_SHAPE, "avg_pool2d_grad", "-4");
  }
  {
    g_autoptr(GError) error = NULL;
    g_autoptr(EpTensor) y = ep_avg_pool2d_grad (g, EP_DIMS (1, 2, 4, 4), 4, EP_DIMS (2), 1, NULL, 0,
                                                NULL, 0, FALSE, TRUE, NCHW, &error);

    ep_assert_error (error, EP_ERROR_SHAPE, "avg_pool2d_grad", "the pooling's output (1, 2, 2, 2)");
  }
}

/* The second derivative of sum (max_pool (x)²) along v: 2 v at each
 * window's argmax (non-overlapping windows), through the rule of
 * max_pool2d_grad (a gather at max_pool2d_indices) */
static void
test_second_derivative (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) x = ep_test_new (EP_DTYPE_FLOAT64, EP_SHAPE (1, 1, 2, 4),
                                       EP_VALUES (1, 5, 2, 0, 3, 4, 7, -1));
  g_autoptr(EpTensor) v = ep_test_new (EP_DTYPE_FLOAT64, EP_SHAPE (1, 1, 2, 4),
                                       EP_VALUES (1, 2, 3, 4, 5, 6, 7, 8));
  g_autoptr(EpGradientTape) outer = ep_gradient_tape_new (FALSE);
  g_autoptr(EpGradientTape) inner = ep_gradient_tape_new (FALSE);
  g_autoptr(EpTensor) y = NULL;
  g_autoptr(EpTensor) squared = NULL;
  g_autoptr(EpTensor) total = NULL;
  g_autoptr(GPtrArray) first = NULL;
  g_autoptr(GPtrArray) second = NULL;
  GObject *sources[] = { G_OBJECT (x) };
  EpTensor *dx;

  ep_gradient_tape_start (outer, &error);
  ep_gradient_tape_watch (outer, x);
  ep_gradient_tape_start (inner, &error);
  ep_gradient_tape_watch (inner, x);
  y = max_pool (x, 2, 2, 0, 1, FALSE, NCHW, &error);
  squared = ep_tensor_square (y, &error);
  total = ep_tensor_sum (squared, NULL, 0, FALSE, &error);
  ep_gradient_tape_stop (inner, &error);
  g_assert_no_error (error);
  first = ep_gradient_tape_gradient (inner, &total, 1, sources, 1, NULL, 0, &error);
  g_assert_no_error (error);
  dx = g_ptr_array_index (first, 0);
  ep_assert_values (dx, EP_DTYPE_FLOAT64, EP_SHAPE (1, 1, 2, 4), EP_VALUES (0, 10, 0, 0, 0, 0, 14, 0));
  ep_gradient_tape_stop (outer, &error);
  second = ep_gradient_tape_gradient (outer, &dx, 1, sources, 1, &v, 1, &error);
  g_assert_no_error (error);
  ep_assert_values (g_ptr_array_index (second, 0), EP_DTYPE_FLOAT64, EP_SHAPE (1, 1, 2, 4),
                    EP_VALUES (0, 4, 0, 0, 0, 0, 14, 0));
}

/* A dilated window can step over the image: -inf, index -1, no gradient
 * either way (the gradient's own gradient included) */
static void
test_window_without_taps (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) x = ep_test_new (EP_DTYPE_FLOAT64, EP_SHAPE (1, 1, 1, 2), EP_VALUES (3, 4));
  g_autoptr(EpTensor) g = ep_test_new (EP_DTYPE_FLOAT64, EP_SHAPE (1, 1, 1, 2), EP_VALUES (5, 6));
  g_autoptr(EpTensor) w = ep_test_new (EP_DTYPE_FLOAT64, EP_SHAPE (1, 1, 1, 2), EP_VALUES (7, 8));
  const gint64 k[] = { 3, 1 }, s[] = { 3, 1 }, p[] = { 1, 0 }, d[] = { 2, 1 };
  g_autoptr(EpTensor) y = ep_tensor_max_pool2d (x, k, 2, s, 2, p, 2, d, 2, TRUE, NCHW, &error);
  g_autoptr(EpTensor) indices = ep_tensor_max_pool2d_indices (x, k, 2, s, 2, p, 2, d, 2, TRUE, NCHW, &error);
  g_autoptr(EpGradientTape) tape = ep_gradient_tape_new (FALSE);
  g_autoptr(EpTensor) dx = NULL;
  g_autoptr(GPtrArray) dg = NULL;
  GObject *sources[] = { G_OBJECT (g) };

  g_assert_no_error (error);
  ep_assert_values (y, EP_DTYPE_FLOAT64, EP_SHAPE (1, 1, 1, 2), EP_VALUES (-INFINITY, -INFINITY));
  ep_assert_values (indices, EP_DTYPE_INT64, EP_SHAPE (1, 1, 1, 2), EP_VALUES (-1, -1));
  ep_gradient_tape_start (tape, &error);
  ep_gradient_tape_watch (tape, g);
  dx = ep_tensor_max_pool2d_grad (x, g, k, 2, s, 2, p, 2, d, 2, TRUE, NCHW, &error);
  ep_gradient_tape_stop (tape, &error);
  g_assert_no_error (error);
  ep_assert_values (dx, EP_DTYPE_FLOAT64, EP_SHAPE (1, 1, 1, 2), EP_VALUES (0, 0));
  dg = ep_gradient_tape_gradient (tape, &dx, 1, sources, 1, &w, 1, &error);
  g_assert_no_error (error);
  ep_assert_values (g_ptr_array_index (dg, 0), EP_DTYPE_FLOAT64, EP_SHAPE (1, 1, 1, 2), EP_VALUES (0, 0));
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/pool/max-values", test_max_values);
  g_test_add_func ("/pool/ceil-mode-last-window", test_ceil_mode_last_window);
  g_test_add_func ("/pool/max-nan-and-infinities", test_max_nan_and_infinities);
  g_test_add_func ("/pool/avg-values", test_avg_values);
  g_test_add_func ("/pool/nhwc", test_nhwc);
  g_test_add_func ("/pool/gradient-values", test_gradient_values);
  g_test_add_func ("/pool/errors", test_errors);
  g_test_add_func ("/pool/window-without-taps", test_window_without_taps);
  g_test_add_func ("/pool/gradient/second-derivative", test_second_derivative);

  return g_test_run ();
}
