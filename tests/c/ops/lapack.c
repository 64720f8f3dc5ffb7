/* ops/lapack.c: the lapack family: inv, slogdet, solve: values and
 * batches, singular and huge matrices, every error path, the gradient
 * rules
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "ep-test-gradient.h"
#include "ep-test-util.h"

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
test_errors (void)
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

/* gradient rules against central differences (ep-test-gradient.h) */

static EpTensor *
well_conditioned (const gint64 *shape,
                  guint         ndim,
                  guint         seed)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) noise = ep_test_random (shape, ndim, EP_DTYPE_FLOAT64, seed);
  gint64 n = shape[ndim - 1];
  g_autofree gdouble *eye = g_new0 (gdouble, n * n);
  g_autoptr(EpTensor) diagonal = NULL;
  EpTensor *a;

  for (gint64 i = 0; i < n; i++)
    eye[i * n + i] = 5;
  diagonal = ep_tensor_new_from_doubles (eye, n * n, EP_DIMS (n, n), 2, EP_DTYPE_FLOAT64, &error);
  a = ep_tensor_add (noise, diagonal, &error);
  g_assert_no_error (error);
  return a;
}

static EpTensor *
f_inv (EpTensor **in, gconstpointer data, GError **error)
{
  return ep_tensor_inv (in[0], error);
}

static EpTensor *
f_logabsdet (EpTensor **in, gconstpointer data, GError **error)
{
  EpTensor *logabsdet = NULL;

  return ep_tensor_slogdet (in[0], NULL, &logabsdet, error) ? logabsdet : NULL;
}

static EpTensor *
f_solve (EpTensor **in, gconstpointer data, GError **error)
{
  return ep_tensor_solve (in[0], in[1], error);
}

static void
test_gradient (void)
{
  EpTensor *a[1] = { well_conditioned (EP_DIMS (2, 3, 3), 3, 20) };
  EpTensor *negative[1] = { ep_test_random (EP_DIMS (2, 2), 2, EP_DTYPE_FLOAT64, 21) };
  EpTensor *vector[2] = { well_conditioned (EP_DIMS (3, 3), 2, 22),
                         ep_test_random (EP_DIMS (3), 1, EP_DTYPE_FLOAT64, 23) };
  EpTensor *batch[2] = { well_conditioned (EP_DIMS (1, 3, 3), 3, 24),
                        ep_test_random (EP_DIMS (2, 3, 2), 3, EP_DTYPE_FLOAT64, 25) };
  EpTensor *vectors[2] = { well_conditioned (EP_DIMS (2, 3, 3), 3, 26),
                          ep_test_random (EP_DIMS (3), 1, EP_DTYPE_FLOAT64, 27) };

  ep_test_check_gradient_of (&ep_op_inv, f_inv, NULL, a, 1, 0);
  ep_test_check_gradient_of (&ep_op_slogdet, f_logabsdet, NULL, a, 1, 1);
  ep_test_check_gradient_of (&ep_op_slogdet, f_logabsdet, NULL, negative, 1, 1);
  ep_test_check_gradient_of (&ep_op_solve, f_solve, NULL, vector, 2, 0);
  ep_test_check_gradient_of (&ep_op_solve, f_solve, NULL, batch, 2, 0);
  ep_test_check_gradient_of (&ep_op_solve, f_solve, NULL, vectors, 2, 0);

  g_object_unref (a[0]);
  g_object_unref (negative[0]);
  for (guint i = 0; i < 2; i++)
    {
      g_object_unref (vector[i]);
      g_object_unref (batch[i]);
      g_object_unref (vectors[i]);
    }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/lapack/inv-and-slogdet", test_inv_and_slogdet);
  g_test_add_func ("/lapack/slogdet-batch", test_slogdet_batch);
  g_test_add_func ("/lapack/solve", test_solve);
  g_test_add_func ("/lapack/errors", test_errors);
  g_test_add_func ("/lapack/slogdet-of-huge-broadcast", test_slogdet_of_huge_broadcast);
  g_test_add_func ("/lapack/order-limit", test_lapack_order_limit);
  g_test_add_func ("/lapack/gradient/inv-slogdet-solve", test_gradient);

  return g_test_run ();
}
