/* ops/lapack.c: the lapack family: inv, slogdet, solve, det, cholesky,
 * qr, svd, eigh, lstsq, matrix_power, matrix_norm: values and batches,
 * singular and huge matrices, every error path, the gradient rules
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

/* det, cholesky, qr, svd, eigh, lstsq, matrix_power, matrix_norm */

static EpTensor *
matrix (const gdouble *values,
        gint64         rows,
        gint64         cols)
{
  return ep_test_matrix (values, rows, cols, EP_DTYPE_FLOAT64);
}

static void
test_det (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) flat = ep_test_vector (EP_DOUBLES (0, 1, 1, 0, 1, 2, 2, 4, 3, 0, 0, 2), 12, EP_DTYPE_INT32);
  g_autoptr(EpTensor) a = ep_tensor_reshape (flat, EP_DIMS (3, 2, 2), 3, &error);
  g_autoptr(EpTensor) det = ep_tensor_det (a, &error);
  g_autoptr(EpTensor) none = ep_zeros (EP_DIMS (2, 0, 0), 3, EP_DTYPE_FLOAT32, NULL);
  g_autoptr(EpTensor) ones = ep_tensor_det (none, &error);

  g_assert_no_error (error);
  /* a swap, a singular matrix, a diagonal */
  ep_test_assert_tensor (det, EP_DIMS (3), 1, EP_DOUBLES (-1, 0, 6));
  g_assert_cmpint (ep_tensor_get_dtype (det), ==, EP_DTYPE_FLOAT64);
  ep_test_assert_tensor (ones, EP_DIMS (2), 1, EP_DOUBLES (1, 1));
  g_assert_cmpint (ep_tensor_get_dtype (ones), ==, EP_DTYPE_FLOAT32);
}

static void
test_cholesky (void)
{
  g_autoptr(GError) error = NULL;
  /* the upper triangle is not read */
  g_autoptr(EpTensor) a = matrix (EP_DOUBLES (4, 99, 2, 10), 2, 2);
  g_autoptr(EpTensor) l = ep_tensor_cholesky (a, &error);
  g_autoptr(EpTensor) indefinite = matrix (EP_DOUBLES (1, 2, 2, 1), 2, 2);
  g_autoptr(EpTensor) nan = matrix (EP_DOUBLES (NAN, 0, 0, 1), 2, 2);
  g_autoptr(EpTensor) eye = ep_eye (2, 2, 0, EP_DTYPE_FLOAT64, NULL);
  g_autoptr(EpTensor) batch = ep_stack ((EpTensor *[]) { eye, indefinite }, 2, 0, NULL);
  EpTensor *r;

  g_assert_no_error (error);
  ep_test_assert_tensor (l, EP_DIMS (2, 2), 2, EP_DOUBLES (2, 0, 1, 3));

  r = ep_tensor_cholesky (indefinite, &error);
  ep_test_assert_failed (r, error, EP_ERROR_INVALID_ARGUMENT, "cholesky");
  g_assert_nonnull (strstr (error->message, "not positive definite"));
  g_clear_error (&error);
  r = ep_tensor_cholesky (nan, &error);
  ep_test_assert_failed (r, error, EP_ERROR_INVALID_ARGUMENT, "cholesky");
  g_clear_error (&error);
  r = ep_tensor_cholesky (batch, &error);
  ep_test_assert_failed (r, error, EP_ERROR_INVALID_ARGUMENT, "cholesky");
  g_assert_nonnull (strstr (error->message, "matrix 1 of the batch"));
  g_clear_error (&error);
}

/* Q has orthonormal columns, R is upper triangular, Q R is the matrix */
static void
test_qr (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) a = matrix (EP_DOUBLES (3, 1, 4, 1, 0, 2), 3, 2);
  g_autoptr(EpTensor) q = NULL;
  g_autoptr(EpTensor) r = NULL;
  g_autoptr(EpTensor) product = NULL;
  g_autoptr(EpTensor) gram = NULL;
  g_autoptr(EpTensor) qt = NULL;
  g_autofree gdouble *rv = NULL;
  gsize n;

  g_assert_true (ep_tensor_qr (a, &q, &r, &error));
  g_assert_no_error (error);
  ep_assert_shape (q, EP_DIMS (3, 2), 2);
  ep_assert_shape (r, EP_DIMS (2, 2), 2);
  product = ep_tensor_matmul (q, r, &error);
  ep_test_assert_close (product, EP_DOUBLES (3, 1, 4, 1, 0, 2), 6);
  qt = ep_tensor_transpose (q, NULL, 0, &error);
  gram = ep_tensor_matmul (qt, q, &error);
  ep_test_assert_close (gram, EP_DOUBLES (1, 0, 0, 1), 4);
  rv = ep_test_get_values (r, &n);
  g_assert_cmpfloat (rv[2], ==, 0.0);
  g_assert_cmpfloat_with_epsilon (fabs (rv[0]), 5.0, 1e-12);
}

static void
test_svd (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) a = matrix (EP_DOUBLES (0, 2, 0, 3, 0, 0), 2, 3);
  g_autoptr(EpTensor) u = NULL;
  g_autoptr(EpTensor) s = NULL;
  g_autoptr(EpTensor) vh = NULL;
  g_autoptr(EpTensor) full_u = NULL;
  g_autoptr(EpTensor) full_vh = NULL;
  g_autoptr(EpTensor) nan = matrix (EP_DOUBLES (1, NAN, 0, 1), 2, 2);
  g_autoptr(EpTensor) none = ep_zeros (EP_DIMS (3, 0), 2, EP_DTYPE_FLOAT64, NULL);
  g_autoptr(EpTensor) eye_u = NULL;
  g_autoptr(EpTensor) no_s = NULL;

  g_assert_true (ep_tensor_svd (a, FALSE, &u, &s, &vh, &error));
  g_assert_no_error (error);
  ep_test_assert_tensor (s, EP_DIMS (2), 1, EP_DOUBLES (3, 2));
  ep_assert_shape (u, EP_DIMS (2, 2), 2);
  ep_assert_shape (vh, EP_DIMS (2, 3), 2);
  g_assert_true (ep_tensor_svd (a, TRUE, &full_u, NULL, &full_vh, &error));
  g_assert_no_error (error);
  ep_assert_shape (full_u, EP_DIMS (2, 2), 2);
  ep_assert_shape (full_vh, EP_DIMS (3, 3), 2);

  /* NumPy: U of a matrix with no column is the identity */
  g_assert_true (ep_tensor_svd (none, TRUE, &eye_u, &no_s, NULL, &error));
  g_assert_no_error (error);
  ep_test_assert_tensor (eye_u, EP_DIMS (3, 3), 2, EP_DOUBLES (1, 0, 0, 0, 1, 0, 0, 0, 1));
  ep_assert_shape (no_s, EP_DIMS (0), 1);

  g_assert_false (ep_tensor_svd (nan, FALSE, NULL, NULL, NULL, &error));
  ep_assert_error (error, EP_ERROR_INVALID_ARGUMENT, "svd", "NaN");
  g_clear_error (&error);
}

static void
test_eigh (void)
{
  g_autoptr(GError) error = NULL;
  /* the lower triangle: [[2, 1], [1, 2]]; the upper one: [[2, 5], [5, 2]] */
  g_autoptr(EpTensor) a = matrix (EP_DOUBLES (2, 5, 1, 2), 2, 2);
  g_autoptr(EpTensor) w = NULL;
  g_autoptr(EpTensor) v = NULL;
  g_autoptr(EpTensor) upper = NULL;
  g_autoptr(EpTensor) nan = matrix (EP_DOUBLES (1, 0, NAN, 1), 2, 2);
  g_autoptr(EpTensor) nan_above = matrix (EP_DOUBLES (1, NAN, 0, 1), 2, 2);
  g_autoptr(EpTensor) ignored = NULL;
  g_autofree gdouble *vv = NULL;
  gsize n;

  g_assert_true (ep_tensor_eigh (a, FALSE, &w, &v, &error));
  g_assert_no_error (error);
  ep_test_assert_tensor (w, EP_DIMS (2), 1, EP_DOUBLES (1, 3));
  vv = ep_test_get_values (v, &n);
  g_assert_cmpfloat_with_epsilon (fabs (vv[0]), sqrt (0.5), 1e-12);
  g_assert_cmpfloat_with_epsilon (vv[0], -vv[2], 1e-12);
  g_assert_true (ep_tensor_eigh (a, TRUE, &upper, NULL, &error));
  g_assert_no_error (error);
  ep_test_assert_tensor (upper, EP_DIMS (2), 1, EP_DOUBLES (-3, 7));

  g_assert_false (ep_tensor_eigh (nan, FALSE, NULL, NULL, &error));
  ep_assert_error (error, EP_ERROR_INVALID_ARGUMENT, "eigh", "NaN");
  g_clear_error (&error);
  /* a NaN in the triangle that is not read is not seen, as in LAPACK */
  g_assert_true (ep_tensor_eigh (nan_above, FALSE, &ignored, NULL, &error));
  g_assert_no_error (error);
  ep_test_assert_tensor (ignored, EP_DIMS (2), 1, EP_DOUBLES (1, 1));
}

static void
test_lstsq (void)
{
  g_autoptr(GError) error = NULL;
  /* a line through (0, 1), (1, 3), (2, 4): y = 1.5 x + 7/6 */
  g_autoptr(EpTensor) a = matrix (EP_DOUBLES (0, 1, 1, 1, 2, 1), 3, 2);
  g_autoptr(EpTensor) b = ep_test_vector (EP_DOUBLES (1, 3, 4), 3, EP_DTYPE_FLOAT64);
  g_autoptr(EpTensor) x = ep_tensor_lstsq (a, b, &error);
  /* rank-deficient: the least-norm solution */
  g_autoptr(EpTensor) twice = matrix (EP_DOUBLES (1, 1, 1, 1), 2, 2);
  g_autoptr(EpTensor) c = ep_test_vector (EP_DOUBLES (2, 2), 2, EP_DTYPE_FLOAT64);
  g_autoptr(EpTensor) least = ep_tensor_lstsq (twice, c, &error);
  g_autoptr(EpTensor) nan = ep_test_vector (EP_DOUBLES (1, NAN, 4), 3, EP_DTYPE_FLOAT64);
  g_autoptr(EpTensor) none = ep_zeros (EP_DIMS (0, 2), 2, EP_DTYPE_FLOAT64, NULL);
  g_autoptr(EpTensor) no_b = ep_zeros (EP_DIMS (0), 1, EP_DTYPE_FLOAT64, NULL);
  g_autoptr(EpTensor) zeros = NULL;
  EpTensor *r;

  g_assert_no_error (error);
  ep_test_assert_close (x, EP_DOUBLES (1.5, 7.0 / 6), 2);
  ep_test_assert_close (least, EP_DOUBLES (1, 1), 2);
  /* no equation: 0, as NumPy */
  zeros = ep_tensor_lstsq (none, no_b, &error);
  g_assert_no_error (error);
  ep_test_assert_tensor (zeros, EP_DIMS (2), 1, EP_DOUBLES (0, 0));

  r = ep_tensor_lstsq (a, nan, &error);
  ep_test_assert_failed (r, error, EP_ERROR_INVALID_ARGUMENT, "lstsq");
  g_clear_error (&error);
  r = ep_tensor_lstsq (a, c, &error);
  ep_test_assert_failed (r, error, EP_ERROR_SHAPE, "lstsq");
  g_clear_error (&error);
}

static void
test_matrix_power (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) a = ep_test_matrix (EP_DOUBLES (1, 1, 1, 0), 2, 2, EP_DTYPE_INT64);
  g_autoptr(EpTensor) fib = ep_tensor_matrix_power (a, 10, &error);
  g_autoptr(EpTensor) zero = ep_tensor_matrix_power (a, 0, &error);
  g_autoptr(EpTensor) inverse = ep_tensor_matrix_power (a, -2, &error);
  g_autoptr(EpTensor) one = ep_tensor_matrix_power (a, 1, &error);
  g_autoptr(EpTensor) singular = ep_zeros (EP_DIMS (2, 2), 2, EP_DTYPE_FLOAT64, NULL);
  g_autoptr(EpTensor) wide = ep_zeros (EP_DIMS (2, 3), 2, EP_DTYPE_FLOAT64, NULL);
  EpTensor *r;

  g_assert_no_error (error);
  ep_test_assert_tensor (fib, EP_DIMS (2, 2), 2, EP_DOUBLES (89, 55, 55, 34));
  g_assert_cmpint (ep_tensor_get_dtype (fib), ==, EP_DTYPE_INT64);
  ep_test_assert_tensor (zero, EP_DIMS (2, 2), 2, EP_DOUBLES (1, 0, 0, 1));
  g_assert_cmpint (ep_tensor_get_dtype (zero), ==, EP_DTYPE_INT64);
  ep_test_assert_close (inverse, EP_DOUBLES (1, -1, -1, 2), 4);
  g_assert_true (one != a);
  ep_test_assert_tensor (one, EP_DIMS (2, 2), 2, EP_DOUBLES (1, 1, 1, 0));

  r = ep_tensor_matrix_power (singular, -1, &error);
  ep_test_assert_failed (r, error, EP_ERROR_INVALID_ARGUMENT, "matrix_power");
  g_clear_error (&error);
  r = ep_tensor_matrix_power (wide, 2, &error);
  ep_test_assert_failed (r, error, EP_ERROR_SHAPE, "matrix_power");
  g_clear_error (&error);
  r = ep_tensor_matrix_power (singular, G_MININT64, &error);
  ep_test_assert_failed (r, error, EP_ERROR_INVALID_ARGUMENT, "matrix_power");
  g_clear_error (&error);
}

static void
test_matrix_norm (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) a = matrix (EP_DOUBLES (1, -2, 0, 3, 0, 0), 2, 3);
  static const struct { EpMatrixNorm ord; gdouble value; } norms[] = {
    { EP_MATRIX_NORM_FRO, 3.7416573867739413 }, { EP_MATRIX_NORM_INF, 3 }, { EP_MATRIX_NORM_NEG_INF, 3 },
    { EP_MATRIX_NORM_ONE, 4 }, { EP_MATRIX_NORM_NEG_ONE, 0 },
  };
  g_autoptr(EpTensor) batch = ep_zeros (EP_DIMS (4, 2, 3), 3, EP_DTYPE_FLOAT64, NULL);
  g_autoptr(EpTensor) kept = ep_tensor_matrix_norm (batch, EP_MATRIX_NORM_TWO, (const gint []) { 0, 2 }, 2, TRUE, &error);
  g_autoptr(EpTensor) vector = ep_zeros (EP_DIMS (3), 1, EP_DTYPE_FLOAT64, NULL);
  EpTensor *r;

  for (guint i = 0; i < G_N_ELEMENTS (norms); i++)
    {
      g_autoptr(EpTensor) norm = ep_tensor_matrix_norm (a, norms[i].ord, NULL, 0, FALSE, &error);

      g_assert_no_error (error);
      ep_test_assert_close (norm, &norms[i].value, 1);
    }
  g_assert_no_error (error);
  ep_assert_shape (kept, EP_DIMS (1, 2, 1), 3);

  r = ep_tensor_matrix_norm (vector, EP_MATRIX_NORM_FRO, NULL, 0, FALSE, &error);
  ep_test_assert_failed (r, error, EP_ERROR_SHAPE, "matrix_norm");
  g_clear_error (&error);
  r = ep_tensor_matrix_norm (a, EP_MATRIX_NORM_FRO, (const gint []) { 1, -1 }, 2, FALSE, &error);
  ep_test_assert_failed (r, error, EP_ERROR_AXIS, "matrix_norm");
  g_clear_error (&error);
  r = ep_tensor_matrix_norm (a, EP_MATRIX_NORM_FRO, (const gint []) { 0 }, 1, FALSE, &error);
  ep_test_assert_failed (r, error, EP_ERROR_AXIS, "matrix_norm");
  g_clear_error (&error);
  r = ep_tensor_matrix_norm (a, EP_MATRIX_NORM_FRO, (const gint []) { 0, 2 }, 2, FALSE, &error);
  ep_test_assert_failed (r, error, EP_ERROR_AXIS, "matrix_norm");
  g_clear_error (&error);
}

/* Rank, shape and size errors of each op, before any kernel runs */
static void
test_linalg_errors (void)
{
  g_autoptr(EpTensor) vector = ep_zeros (EP_DIMS (3), 1, EP_DTYPE_FLOAT64, NULL);
  g_autoptr(EpTensor) wide = ep_zeros (EP_DIMS (2, 3), 2, EP_DTYPE_FLOAT64, NULL);
  g_autoptr(EpTensor) one = ep_ones (EP_DIMS (1, 1), 2, EP_DTYPE_FLOAT64, NULL);
  g_autoptr(EpTensor) huge = ep_tensor_broadcast_to (one, EP_DIMS (G_MAXINT32, G_MAXINT32), 2, NULL);
  g_autoptr(EpTensor) too_large = ep_tensor_broadcast_to (one, EP_DIMS ((gint64) G_MAXINT32 + 1, 2), 2, NULL);
  g_autoptr(EpTensor) many = ep_tensor_broadcast_to (one, EP_DIMS ((gint64) 1 << 40, 2, 2), 3, NULL);
  g_autoptr(EpTensor) scalar = ep_zeros (NULL, 0, EP_DTYPE_FLOAT64, NULL);
  GError *error = NULL;
  EpTensor *r;

  r = ep_tensor_det (wide, &error);
  ep_test_assert_failed (r, error, EP_ERROR_SHAPE, "det");
  g_clear_error (&error);
  r = ep_tensor_det (vector, &error);
  ep_test_assert_failed (r, error, EP_ERROR_SHAPE, "det");
  g_clear_error (&error);
  r = ep_tensor_cholesky (wide, &error);
  ep_test_assert_failed (r, error, EP_ERROR_SHAPE, "cholesky");
  g_clear_error (&error);
  g_assert_false (ep_tensor_qr (vector, NULL, NULL, &error));
  ep_assert_error (error, EP_ERROR_SHAPE, "qr", "matrices");
  g_clear_error (&error);
  g_assert_false (ep_tensor_svd (vector, FALSE, NULL, NULL, NULL, &error));
  ep_assert_error (error, EP_ERROR_SHAPE, "svd", NULL);
  g_clear_error (&error);
  g_assert_false (ep_tensor_eigh (wide, FALSE, NULL, NULL, &error));
  ep_assert_error (error, EP_ERROR_SHAPE, "eigh", "square");
  g_clear_error (&error);
  r = ep_tensor_lstsq (vector, vector, &error);
  ep_test_assert_failed (r, error, EP_ERROR_SHAPE, "lstsq");
  g_clear_error (&error);
  r = ep_tensor_lstsq (wide, scalar, &error);
  ep_test_assert_failed (r, error, EP_ERROR_SHAPE, "lstsq");
  g_clear_error (&error);

  /* LAPACK's 32-bit sizes */
  g_assert_false (ep_tensor_svd (too_large, FALSE, NULL, NULL, NULL, &error));
  ep_assert_error (error, EP_ERROR_SHAPE, "svd", "too large");
  g_clear_error (&error);
  /* work space or results larger than memory */
  r = ep_tensor_det (huge, &error);
  ep_test_assert_failed (r, error, EP_ERROR_OUT_OF_MEMORY, "det");
  g_clear_error (&error);
  g_assert_false (ep_tensor_qr (huge, NULL, NULL, &error));
  g_assert_error (error, EP_ERROR, EP_ERROR_OUT_OF_MEMORY);
  g_clear_error (&error);
  r = ep_tensor_det (many, &error);
  ep_test_assert_failed (r, error, EP_ERROR_OUT_OF_MEMORY, "det");
  g_clear_error (&error);
}

static EpTensor *
f_det (EpTensor **in, gconstpointer data, GError **error)
{
  return ep_tensor_det (in[0], error);
}

/* output GPOINTER_TO_UINT (data) of qr */
static EpTensor *
f_qr (EpTensor **in, gconstpointer data, GError **error)
{
  EpTensor *outputs[2] = { NULL, NULL };
  guint o = GPOINTER_TO_UINT (data);

  if (!ep_tensor_qr (in[0], &outputs[0], &outputs[1], error))
    return NULL;
  g_object_unref (outputs[1 - o]);
  return outputs[o];
}

static EpTensor *
f_svd (EpTensor **in, gconstpointer data, GError **error)
{
  EpTensor *outputs[3] = { NULL, NULL, NULL };
  guint o = GPOINTER_TO_UINT (data);

  if (!ep_tensor_svd (in[0], FALSE, &outputs[0], &outputs[1], &outputs[2], error))
    return NULL;
  for (guint i = 0; i < 3; i++)
    if (i != o)
      g_object_unref (outputs[i]);
  return outputs[o];
}

static EpTensor *
f_lstsq (EpTensor **in, gconstpointer data, GError **error)
{
  return ep_tensor_lstsq (in[0], in[1], error);
}

/* Each output on its own (LAPACK's signs do not change under the small
 * steps of the differences); eigh and cholesky read one triangle, so
 * their symmetric gradients are checked through symmetric inputs in
 * test-gradcheck.c and against PyTorch in Python. */
static void
test_linalg_gradient (void)
{
  EpTensor *a[1] = { well_conditioned (EP_DIMS (2, 3, 3), 3, 30) };
  EpTensor *tall[1] = { ep_test_random (EP_DIMS (2, 4, 3), 3, EP_DTYPE_FLOAT64, 31) };
  EpTensor *wide[1] = { ep_test_random (EP_DIMS (3, 5), 2, EP_DTYPE_FLOAT64, 32) };
  EpTensor *squares[2] = { ep_test_random (EP_DIMS (2, 4, 3), 3, EP_DTYPE_FLOAT64, 33),
                           ep_test_random (EP_DIMS (4, 2), 2, EP_DTYPE_FLOAT64, 34) };
  EpTensor *under[2] = { ep_test_random (EP_DIMS (2, 4), 2, EP_DTYPE_FLOAT64, 35),
                         ep_test_random (EP_DIMS (2), 1, EP_DTYPE_FLOAT64, 36) };

  ep_test_check_gradient_of (&ep_op_det, f_det, NULL, a, 1, 0);
  for (guint o = 0; o < 2; o++)
    {
      ep_test_check_gradient_of (&ep_op_qr, f_qr, GUINT_TO_POINTER (o), tall, 1, o);
      ep_test_check_gradient_of (&ep_op_qr, f_qr, GUINT_TO_POINTER (o), wide, 1, o);
    }
  for (guint o = 0; o < 3; o++)
    {
      ep_test_check_gradient_of (&ep_op_svd, f_svd, GUINT_TO_POINTER (o), tall, 1, o);
      ep_test_check_gradient_of (&ep_op_svd, f_svd, GUINT_TO_POINTER (o), wide, 1, o);
    }
  ep_test_check_gradient_of (&ep_op_lstsq, f_lstsq, NULL, squares, 2, 0);
  ep_test_check_gradient_of (&ep_op_lstsq, f_lstsq, NULL, under, 2, 0);

  g_object_unref (a[0]);
  g_object_unref (tall[0]);
  g_object_unref (wide[0]);
  for (guint i = 0; i < 2; i++)
    {
      g_object_unref (squares[i]);
      g_object_unref (under[i]);
    }
}

/* The gradient of svd with full_matrices is that of square matrices
 * only, as in PyTorch */
static void
test_svd_full_gradient (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) a = ep_test_random (EP_DIMS (3, 2), 2, EP_DTYPE_FLOAT64, 40);
  g_autoptr(EpGradientTape) tape = ep_gradient_tape_new (FALSE);
  g_autoptr(EpTensor) u = NULL;
  g_autoptr(EpTensor) total = NULL;
  g_autoptr(GPtrArray) grads = NULL;

  g_assert_true (ep_gradient_tape_start (tape, &error));
  ep_gradient_tape_watch (tape, a);
  g_assert_true (ep_tensor_svd (a, TRUE, &u, NULL, NULL, &error));
  total = ep_tensor_sum (u, NULL, 0, FALSE, &error);
  g_assert_true (ep_gradient_tape_stop (tape, &error));
  g_assert_no_error (error);
  grads = ep_gradient_tape_gradient (tape, &total, 1, (GObject *[]) { G_OBJECT (a) }, 1, NULL, 0, &error);
  g_assert_null (grads);
  ep_assert_error (error, EP_ERROR_GRADIENT, "svd", "full_matrices");
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
  g_test_add_func ("/lapack/det", test_det);
  g_test_add_func ("/lapack/cholesky", test_cholesky);
  g_test_add_func ("/lapack/qr", test_qr);
  g_test_add_func ("/lapack/svd", test_svd);
  g_test_add_func ("/lapack/eigh", test_eigh);
  g_test_add_func ("/lapack/lstsq", test_lstsq);
  g_test_add_func ("/lapack/matrix-power", test_matrix_power);
  g_test_add_func ("/lapack/matrix-norm", test_matrix_norm);
  g_test_add_func ("/lapack/linalg-errors", test_linalg_errors);
  g_test_add_func ("/lapack/gradient/det-qr-svd-lstsq", test_linalg_gradient);
  g_test_add_func ("/lapack/gradient/svd-full-matrices", test_svd_full_gradient);

  return g_test_run ();
}
