/* ops/fft.c: the fft family: fft, ifft, rfft, irfft and the 2-D forms:
 * values of small transforms by hand, lengths, norms, batches along
 * other axes, every error path, the gradient rules
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Complex tensors end in an axis of 2 (real, imaginary).
 */

#include "ep-test-gradient.h"
#include "ep-test-util.h"

/* fft([1, 2, 3, 4]) = [10, -2+2i, -2, -2-2i]; ifft gives it back */
static void
test_fft_values (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) x = ep_test_new (EP_DTYPE_FLOAT64, EP_SHAPE (4, 2),
                                       EP_VALUES (1, 0, 2, 0, 3, 0, 4, 0));
  g_autoptr(EpTensor) y = ep_tensor_fft (x, -1, -1, EP_FFT_NORM_BACKWARD, &error);
  g_autoptr(EpTensor) back = NULL;
  g_autoptr(EpTensor) ortho = NULL;
  g_autoptr(EpTensor) forward = NULL;

  g_assert_no_error (error);
  ep_assert_values (y, EP_DTYPE_FLOAT64, EP_SHAPE (4, 2), EP_VALUES (10, 0, -2, 2, -2, 0, -2, -2));
  back = ep_tensor_ifft (y, -1, 0, EP_FFT_NORM_BACKWARD, &error);
  g_assert_no_error (error);
  ep_assert_values (back, EP_DTYPE_FLOAT64, EP_SHAPE (4, 2), EP_VALUES (1, 0, 2, 0, 3, 0, 4, 0));
  ortho = ep_tensor_fft (x, -1, -1, EP_FFT_NORM_ORTHO, &error);
  g_assert_no_error (error);
  ep_assert_values (ortho, EP_DTYPE_FLOAT64, EP_SHAPE (4, 2), EP_VALUES (5, 0, -1, 1, -1, 0, -1, -1));
  forward = ep_tensor_fft (x, -1, -1, EP_FFT_NORM_FORWARD, &error);
  g_assert_no_error (error);
  ep_assert_values (forward, EP_DTYPE_FLOAT64, EP_SHAPE (4, 2),
                    EP_VALUES (2.5, 0, -0.5, 0.5, -0.5, 0, -0.5, -0.5));
}

/* n crops ([1, 2] → [3, -1]) or pads ([1, 2, 0, 0]); float32 stays
 * float32; a transform along axis 0 of a batch of two columns */
static void
test_fft_lengths_and_axes (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) x = ep_test_new (EP_DTYPE_FLOAT32, EP_SHAPE (4, 2),
                                       EP_VALUES (1, 0, 2, 0, 3, 0, 4, 0));
  g_autoptr(EpTensor) cropped = ep_tensor_fft (x, 2, -1, EP_FFT_NORM_BACKWARD, &error);
  g_autoptr(EpTensor) padded = NULL;
  g_autoptr(EpTensor) columns = NULL;
  g_autoptr(EpTensor) by_column = NULL;

  g_assert_no_error (error);
  ep_assert_values (cropped, EP_DTYPE_FLOAT32, EP_SHAPE (2, 2), EP_VALUES (3, 0, -1, 0));
  padded = ep_tensor_fft (cropped, 4, -1, EP_FFT_NORM_BACKWARD, &error);
  g_assert_no_error (error);
  /* fft([3, -1, 0, 0]) = [2, 3+i, 4, 3-i] */
  ep_assert_values (padded, EP_DTYPE_FLOAT32, EP_SHAPE (4, 2), EP_VALUES (2, 0, 3, 1, 4, 0, 3, -1));

  /* columns [1, 3] and [2, 4]: [4, -2] and [6, -2] */
  columns = ep_test_new (EP_DTYPE_FLOAT64, EP_SHAPE (2, 2, 2), EP_VALUES (1, 0, 2, 0, 3, 0, 4, 0));
  by_column = ep_tensor_fft (columns, -1, 0, EP_FFT_NORM_BACKWARD, &error);
  g_assert_no_error (error);
  ep_assert_values (by_column, EP_DTYPE_FLOAT64, EP_SHAPE (2, 2, 2), EP_VALUES (4, 0, 6, 0, -2, 0, -2, 0));
}

/* rfft keeps n/2 + 1 bins; irfft's default length is 2 (m - 1), an odd
 * length is asked for */
static void
test_rfft_irfft_values (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) x = ep_test_new (EP_DTYPE_FLOAT64, EP_SHAPE (4), EP_VALUES (1, 2, 3, 4));
  g_autoptr(EpTensor) half = ep_tensor_rfft (x, -1, -1, EP_FFT_NORM_BACKWARD, &error);
  g_autoptr(EpTensor) back = NULL;
  g_autoptr(EpTensor) odd = NULL;
  g_autoptr(EpTensor) odd_back = NULL;

  g_assert_no_error (error);
  ep_assert_values (half, EP_DTYPE_FLOAT64, EP_SHAPE (3, 2), EP_VALUES (10, 0, -2, 2, -2, 0));
  back = ep_tensor_irfft (half, -1, -1, EP_FFT_NORM_BACKWARD, &error);
  g_assert_no_error (error);
  ep_assert_values (back, EP_DTYPE_FLOAT64, EP_SHAPE (4), EP_VALUES (1, 2, 3, 4));

  odd = ep_tensor_rfft (x, 3, 0, EP_FFT_NORM_BACKWARD, &error);
  g_assert_no_error (error);
  g_assert_cmpint (odd->layout.shape[0], ==, 2);
  odd_back = ep_tensor_irfft (odd, 3, 0, EP_FFT_NORM_BACKWARD, &error);
  g_assert_no_error (error);
  ep_assert_values (odd_back, EP_DTYPE_FLOAT64, EP_SHAPE (3), EP_VALUES (1, 2, 3));
}

/* A prime length above KISS FFT's factor bound and a power of two, in
 * float32 and float64: a transform and its inverse give the signal
 * back, and bin 0 is the sum */
static void
test_long_lengths (void)
{
  const gint64 lengths[] = { 1031, 1024, 1000 };
  const EpDType dtypes[] = { EP_DTYPE_FLOAT32, EP_DTYPE_FLOAT64 };

  for (guint l = 0; l < G_N_ELEMENTS (lengths); l++)
    for (guint d = 0; d < G_N_ELEMENTS (dtypes); d++)
      {
        gint64 n = lengths[l];
        g_autoptr(GError) error = NULL;
        g_autofree gdouble *values = g_new (gdouble, n);
        g_autoptr(EpTensor) x = NULL;
        g_autoptr(EpTensor) half = NULL;
        g_autoptr(EpTensor) back = NULL;
        g_autofree gdouble *got = NULL;
        g_autofree gdouble *spectrum = NULL;
        gdouble sum = 0.0;
        gsize size;

        for (gint64 i = 0; i < n; i++)
          sum += values[i] = sin (0.37 * (gdouble) i) + 0.25;
        x = ep_test_new (dtypes[d], &n, 1, values, n);
        half = ep_tensor_rfft (x, -1, -1, EP_FFT_NORM_BACKWARD, &error);
        g_assert_no_error (error);
        back = ep_tensor_irfft (half, n, -1, EP_FFT_NORM_BACKWARD, &error);
        g_assert_no_error (error);
        got = ep_test_get_values (back, &size);
        g_assert_cmpuint (size, ==, n);
        for (gint64 i = 0; i < n; i++)
          g_assert_cmpfloat_with_epsilon (got[i], values[i], dtypes[d] == EP_DTYPE_FLOAT32 ? 1e-4 : 1e-11);
        spectrum = ep_test_get_values (half, &size);
        g_assert_cmpfloat_with_epsilon (spectrum[0], sum, dtypes[d] == EP_DTYPE_FLOAT32 ? 1e-2 : 1e-9);
      }
}

/* fft2 of a 2x2 block: [[a+b+c+d, a-b+c-d], [a+b-c-d, a-b-c+d]]; irfft2
 * of rfft2 gives it back */
static void
test_fft2_values (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) x = ep_test_new (EP_DTYPE_FLOAT64, EP_SHAPE (2, 2, 2),
                                       EP_VALUES (1, 0, 2, 0, 3, 0, 4, 0));
  g_autoptr(EpTensor) y = ep_tensor_fft2 (x, NULL, 0, NULL, 0, EP_FFT_NORM_BACKWARD, &error);
  g_autoptr(EpTensor) real = NULL;
  g_autoptr(EpTensor) half = NULL;
  g_autoptr(EpTensor) back = NULL;
  g_autoptr(EpTensor) inverse = NULL;

  g_assert_no_error (error);
  ep_assert_values (y, EP_DTYPE_FLOAT64, EP_SHAPE (2, 2, 2), EP_VALUES (10, 0, -2, 0, -4, 0, 0, 0));
  inverse = ep_tensor_ifft2 (y, NULL, 0, EP_DIMS (1, 0), 2, EP_FFT_NORM_BACKWARD, &error);
  g_assert_no_error (error);
  ep_assert_values (inverse, EP_DTYPE_FLOAT64, EP_SHAPE (2, 2, 2), EP_VALUES (1, 0, 2, 0, 3, 0, 4, 0));

  real = ep_test_new (EP_DTYPE_FLOAT64, EP_SHAPE (2, 2), EP_VALUES (1, 2, 3, 4));
  half = ep_tensor_rfft2 (real, NULL, 0, NULL, 0, EP_FFT_NORM_ORTHO, &error);
  g_assert_no_error (error);
  ep_assert_values (half, EP_DTYPE_FLOAT64, EP_SHAPE (2, 2, 2), EP_VALUES (5, 0, -1, 0, -2, 0, 0, 0));
  back = ep_tensor_irfft2 (half, EP_DIMS (2, 2), 2, NULL, 0, EP_FFT_NORM_ORTHO, &error);
  g_assert_no_error (error);
  ep_assert_values (back, EP_DTYPE_FLOAT64, EP_SHAPE (2, 2), EP_VALUES (1, 2, 3, 4));
}

static void
test_errors (void)
{
  g_autoptr(EpTensor) real = ep_test_new (EP_DTYPE_FLOAT64, EP_SHAPE (4, 3), EP_VALUES (0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11));
  g_autoptr(EpTensor) pairs = ep_test_new (EP_DTYPE_FLOAT64, EP_SHAPE (3, 2), EP_VALUES (0, 1, 2, 3, 4, 5));
  g_autoptr(EpTensor) ints = ep_test_new (EP_DTYPE_INT64, EP_SHAPE (3, 2), EP_VALUES (0, 1, 2, 3, 4, 5));
  g_autoptr(EpTensor) scalar = ep_test_new (EP_DTYPE_FLOAT64, EP_SCALAR, EP_VALUES (1));
  g_autoptr(EpTensor) empty = ep_test_new (EP_DTYPE_FLOAT64, EP_SHAPE (0, 2), NULL, 0);
  g_autoptr(EpTensor) one_bin = ep_test_new (EP_DTYPE_FLOAT64, EP_SHAPE (1, 2), EP_VALUES (1, 0));
  struct {
    EpTensor *(*f) (EpTensor *, gint64, gint, EpFftNorm, GError **);
    const char *name;
  } complex_ops[] = {
    { ep_tensor_fft, "fft" }, { ep_tensor_ifft, "ifft" }, { ep_tensor_irfft, "irfft" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (complex_ops); i++)
    {
      const char *name = complex_ops[i].name;
      g_autoptr(GError) error = NULL;

      g_assert_null (complex_ops[i].f (real, -1, -1, EP_FFT_NORM_BACKWARD, &error));
      ep_assert_error (error, EP_ERROR_SHAPE, name, "(4, 3)");
      g_clear_error (&error);
      g_assert_null (complex_ops[i].f (scalar, -1, -1, EP_FFT_NORM_BACKWARD, &error));
      ep_assert_error (error, EP_ERROR_SHAPE, name, "()");
      g_clear_error (&error);
      g_assert_null (complex_ops[i].f (ints, -1, -1, EP_FFT_NORM_BACKWARD, &error));
      ep_assert_error (error, EP_ERROR_DTYPE, name, "int64");
      g_clear_error (&error);
      g_assert_null (complex_ops[i].f (pairs, 0, -1, EP_FFT_NORM_BACKWARD, &error));
      ep_assert_error (error, EP_ERROR_INVALID_ARGUMENT, name, "0");
      g_clear_error (&error);
      g_assert_null (complex_ops[i].f (pairs, -7, -1, EP_FFT_NORM_BACKWARD, &error));
      ep_assert_error (error, EP_ERROR_INVALID_ARGUMENT, name, "-7");
      g_clear_error (&error);
      g_assert_null (complex_ops[i].f (pairs, G_MAXINT64, -1, EP_FFT_NORM_BACKWARD, &error));
      ep_assert_error (error, EP_ERROR_INVALID_ARGUMENT, name, "9223372036854775807");
      g_clear_error (&error);
      g_assert_null (complex_ops[i].f (pairs, -1, 1, EP_FFT_NORM_BACKWARD, &error));
      ep_assert_error (error, EP_ERROR_AXIS, name, "1");
      g_clear_error (&error);
      g_assert_null (complex_ops[i].f (empty, -1, 0, EP_FFT_NORM_BACKWARD, &error));
      ep_assert_error (error, EP_ERROR_INVALID_ARGUMENT, name, "positive");
      g_clear_error (&error);
      g_assert_null (complex_ops[i].f (pairs, -1, 0, (EpFftNorm) 7, &error));
      g_assert_nonnull (error);
    }

  {
    g_autoptr(GError) error = NULL;

    g_assert_null (ep_tensor_rfft (scalar, -1, -1, EP_FFT_NORM_BACKWARD, &error));
    ep_assert_error (error, EP_ERROR_SHAPE, "rfft", "0-d");
    g_clear_error (&error);
    g_assert_null (ep_tensor_rfft (ints, -1, -1, EP_FFT_NORM_BACKWARD, &error));
    ep_assert_error (error, EP_ERROR_DTYPE, "rfft", "int64");
    g_clear_error (&error);
    /* one bin: the default length 2 (m - 1) is 0, as in NumPy */
    g_assert_null (ep_tensor_irfft (one_bin, -1, -1, EP_FFT_NORM_BACKWARD, &error));
    ep_assert_error (error, EP_ERROR_INVALID_ARGUMENT, "irfft", "0");
    g_clear_error (&error);
    g_assert_null (ep_tensor_fft2 (pairs, NULL, 0, NULL, 0, EP_FFT_NORM_BACKWARD, &error));
    ep_assert_error (error, EP_ERROR_AXIS, "fft2", "-2");
    g_clear_error (&error);
    g_assert_null (ep_tensor_rfft2 (real, NULL, 0, EP_DIMS (1, -1), 2, EP_FFT_NORM_BACKWARD, &error));
    ep_assert_error (error, EP_ERROR_AXIS, "rfft2", "twice");
    g_clear_error (&error);
    g_assert_null (ep_tensor_rfft2 (real, NULL, 0, EP_DIMS (1), 1, EP_FFT_NORM_BACKWARD, &error));
    ep_assert_error (error, EP_ERROR_INVALID_ARGUMENT, "rfft2", "1");
    g_clear_error (&error);
    g_assert_null (ep_tensor_rfft2 (real, EP_DIMS (2, 2, 2), 3, NULL, 0, EP_FFT_NORM_BACKWARD, &error));
    ep_assert_error (error, EP_ERROR_INVALID_ARGUMENT, "rfft2", "3");
    g_clear_error (&error);
    g_assert_null (ep_tensor_rfft2 (real, EP_DIMS (0, 2), 2, NULL, 0, EP_FFT_NORM_BACKWARD, &error));
    ep_assert_error (error, EP_ERROR_INVALID_ARGUMENT, "rfft2", "0");
    g_clear_error (&error);
    g_assert_null (ep_tensor_irfft2 (pairs, NULL, 0, EP_DIMS (0, G_MAXINT64), 2, EP_FFT_NORM_BACKWARD, &error));
    ep_assert_error (error, EP_ERROR_AXIS, "irfft2", "irfft2");
  }
}

/* A batch of 0 rows gives an empty result of the right shape */
static void
test_empty_batch (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) x = ep_test_new (EP_DTYPE_FLOAT32, EP_SHAPE (0, 5), NULL, 0);
  g_autoptr(EpTensor) y = ep_tensor_rfft (x, 8, -1, EP_FFT_NORM_BACKWARD, &error);

  g_assert_no_error (error);
  ep_assert_values (y, EP_DTYPE_FLOAT32, EP_SHAPE (0, 5, 2), NULL, 0);
}

static EpTensor *f_fft (EpTensor **x, GError **e) { return ep_tensor_fft (x[0], 5, 0, EP_FFT_NORM_ORTHO, e); }
static EpTensor *f_ifft (EpTensor **x, GError **e) { return ep_tensor_ifft (x[0], 2, 1, EP_FFT_NORM_BACKWARD, e); }
static EpTensor *f_rfft (EpTensor **x, GError **e) { return ep_tensor_rfft (x[0], 6, -1, EP_FFT_NORM_FORWARD, e); }
static EpTensor *f_irfft (EpTensor **x, GError **e) { return ep_tensor_irfft (x[0], 5, 1, EP_FFT_NORM_BACKWARD, e); }

static void
test_gradient (void)
{
  gdouble values[24];
  EpTensor *complex_x[1], *real_x[1];

  for (guint i = 0; i < G_N_ELEMENTS (values); i++)
    values[i] = sin (1.3 * i) + 0.1 * i;
  complex_x[0] = ep_test_new (EP_DTYPE_FLOAT64, EP_SHAPE (3, 4, 2), values, 24);
  real_x[0] = ep_test_new (EP_DTYPE_FLOAT64, EP_SHAPE (3, 8), values, 24);

  ep_test_check_gradient (&ep_op_fft, f_fft, complex_x, 1);
  ep_test_check_gradient (&ep_op_ifft, f_ifft, complex_x, 1);
  ep_test_check_gradient (&ep_op_rfft, f_rfft, real_x, 1);
  ep_test_check_gradient (&ep_op_irfft, f_irfft, complex_x, 1);

  g_object_unref (complex_x[0]);
  g_object_unref (real_x[0]);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/fft/fft-values", test_fft_values);
  g_test_add_func ("/fft/fft-lengths-and-axes", test_fft_lengths_and_axes);
  g_test_add_func ("/fft/rfft-irfft-values", test_rfft_irfft_values);
  g_test_add_func ("/fft/long-lengths", test_long_lengths);
  g_test_add_func ("/fft/fft2-values", test_fft2_values);
  g_test_add_func ("/fft/errors", test_errors);
  g_test_add_func ("/fft/empty-batch", test_empty_batch);
  g_test_add_func ("/fft/gradient/fft-ifft-rfft-irfft", test_gradient);

  return g_test_run ();
}
