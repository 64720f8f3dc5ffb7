/* ops/linalg.c: the linalg family: matmul (and dot, outer): every
 * layout and dtype against a naive product, vectors, batches, empty
 * operands, every error path
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "ep-test-util.h"

/* Small integers, so that every dtype computes exactly. */
static gdouble
entry (guint  seed,
       gsize  i)
{
  return (gdouble) ((gint) ((i * 7 + seed * 3) % 11) - 5);
}

typedef enum {
  LAYOUT_CONTIGUOUS,
  LAYOUT_TRANSPOSED,   /* a transposed view of the transpose */
  LAYOUT_STRIDED,      /* every other element, at an offset */
  N_LAYOUTS
} Layout;

static const char *layout_names[] = { "contiguous", "transposed", "strided" };

/* A (rows, cols) matrix holding entry (seed, i * cols + j), laid out as
 * asked. */
static EpTensor *
new_matrix (EpDType dtype,
            gint64  rows,
            gint64  cols,
            guint   seed,
            Layout  layout)
{
  g_autofree gdouble *values = g_new (gdouble, MAX (rows * cols, 1));
  gint64 shape[2] = { rows, cols };

  if (layout == LAYOUT_TRANSPOSED)
    {
      gint64 tshape[2] = { cols, rows };
      g_autoptr(EpTensor) t = NULL;
      EpTensor *view;

      for (gint64 i = 0; i < rows; i++)
        for (gint64 j = 0; j < cols; j++)
          values[j * rows + i] = entry (seed, i * cols + j);
      t = ep_test_new (dtype, tshape, 2, values, rows * cols);
      view = ep_tensor_transpose (t, NULL, 0, NULL);
      g_assert_nonnull (view);
      return view;
    }

  for (gint64 i = 0; i < rows * cols; i++)
    values[i] = entry (seed, i);
  if (layout == LAYOUT_STRIDED)
    return ep_test_new_strided (dtype, shape, 2, values, rows * cols);
  return ep_test_new (dtype, shape, 2, values, rows * cols);
}

static gdouble *
naive_product (gint64 n,
               gint64 k,
               gint64 m)
{
  gdouble *c = g_new0 (gdouble, MAX (n * m, 1));

  for (gint64 i = 0; i < n; i++)
    for (gint64 j = 0; j < m; j++)
      for (gint64 q = 0; q < k; q++)
        c[i * m + j] += entry (1, i * k + q) * entry (2, q * m + j);

  return c;
}

/* Every combination of small sizes (including 1, where BLAS leading
 * dimensions are special) and operand layouts, against a naive product. */
static void
check_layouts (EpDType dtype)
{
  static const gint64 sizes[] = { 1, 2, 3, 5 };

  for (guint ni = 0; ni < G_N_ELEMENTS (sizes); ni++)
    for (guint ki = 0; ki < G_N_ELEMENTS (sizes); ki++)
      for (guint mi = 0; mi < G_N_ELEMENTS (sizes); mi++)
        for (guint la = 0; la < N_LAYOUTS; la++)
          for (guint lb = 0; lb < N_LAYOUTS; lb++)
            {
              gint64 n = sizes[ni], k = sizes[ki], m = sizes[mi];
              g_autoptr(GError) error = NULL;
              g_autoptr(EpTensor) a = new_matrix (dtype, n, k, 1, la);
              g_autoptr(EpTensor) b = new_matrix (dtype, k, m, 2, lb);
              g_autoptr(EpTensor) c = ep_tensor_matmul (a, b, &error);
              g_autofree gdouble *want = naive_product (n, k, m);

              g_test_message ("%s (%" G_GINT64_FORMAT ", %" G_GINT64_FORMAT ") %s @ (%"
                              G_GINT64_FORMAT ", %" G_GINT64_FORMAT ") %s",
                              ep_dtype_get_name (dtype), n, k, layout_names[la], k, m, layout_names[lb]);
              g_assert_no_error (error);
              ep_assert_values (c, dtype, EP_SHAPE (n, m), want, n * m);
            }
}

static void
test_layouts_float32 (void)
{
  check_layouts (EP_DTYPE_FLOAT32);
}

static void
test_layouts_float64 (void)
{
  check_layouts (EP_DTYPE_FLOAT64);
}

static void
test_layouts_int32 (void)
{
  check_layouts (EP_DTYPE_INT32);
}

static void
test_layouts_int64 (void)
{
  check_layouts (EP_DTYPE_INT64);
}

static void
test_2d (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) a = ep_test_new (EP_DTYPE_FLOAT32, EP_SHAPE (2, 3), EP_VALUES (1, 2, 3, 4, 5, 6));
  g_autoptr(EpTensor) b = ep_test_new (EP_DTYPE_FLOAT32, EP_SHAPE (3, 2), EP_VALUES (7, 8, 9, 10, 11, 12));
  g_autoptr(EpTensor) c = ep_tensor_matmul (a, b, &error);

  g_assert_no_error (error);
  ep_assert_values (c, EP_DTYPE_FLOAT32, EP_SHAPE (2, 2), EP_VALUES (58, 64, 139, 154));
}

static void
test_larger_odd_sizes (void)
{
  const gint64 n = 17, k = 33, m = 9;
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) a = new_matrix (EP_DTYPE_FLOAT64, n, k, 1, LAYOUT_CONTIGUOUS);
  g_autoptr(EpTensor) b = new_matrix (EP_DTYPE_FLOAT64, k, m, 2, LAYOUT_TRANSPOSED);
  g_autoptr(EpTensor) c = ep_tensor_matmul (a, b, &error);
  g_autofree gdouble *want = naive_product (n, k, m);

  g_assert_no_error (error);
  ep_assert_values (c, EP_DTYPE_FLOAT64, EP_SHAPE (n, m), want, n * m);
}

/* vectors */

static void
test_vector_vector (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) a = ep_test_new (EP_DTYPE_FLOAT64, EP_SHAPE (3), EP_VALUES (1, 2, 3));
  g_autoptr(EpTensor) b = ep_test_new (EP_DTYPE_FLOAT64, EP_SHAPE (3), EP_VALUES (4, 5, 6));
  g_autoptr(EpTensor) c = ep_tensor_matmul (a, b, &error);

  g_assert_no_error (error);
  ep_assert_values (c, EP_DTYPE_FLOAT64, EP_SCALAR, EP_VALUES (32));
}

static void
test_matrix_vector (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) a = ep_test_new (EP_DTYPE_FLOAT32, EP_SHAPE (2, 3), EP_VALUES (1, 2, 3, 4, 5, 6));
  g_autoptr(EpTensor) v = ep_test_new (EP_DTYPE_FLOAT32, EP_SHAPE (3), EP_VALUES (1, 0, -1));
  g_autoptr(EpTensor) c = ep_tensor_matmul (a, v, &error);

  g_assert_no_error (error);
  ep_assert_values (c, EP_DTYPE_FLOAT32, EP_SHAPE (2), EP_VALUES (-2, -2));
}

static void
test_vector_matrix (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) v = ep_test_new (EP_DTYPE_FLOAT32, EP_SHAPE (2), EP_VALUES (1, -1));
  g_autoptr(EpTensor) a = ep_test_new (EP_DTYPE_FLOAT32, EP_SHAPE (2, 3), EP_VALUES (1, 2, 3, 4, 5, 6));
  g_autoptr(EpTensor) c = ep_tensor_matmul (v, a, &error);

  g_assert_no_error (error);
  ep_assert_values (c, EP_DTYPE_FLOAT32, EP_SHAPE (3), EP_VALUES (-3, -3, -3));
}

static void
test_strided_vectors (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) a = ep_test_new (EP_DTYPE_FLOAT64, EP_SHAPE (2, 3), EP_VALUES (1, 2, 3, 4, 5, 6));
  g_autoptr(EpTensor) v = ep_test_new_strided (EP_DTYPE_FLOAT64, EP_SHAPE (3), EP_VALUES (1, 0, -1));
  g_autoptr(EpTensor) w = ep_test_new_strided (EP_DTYPE_FLOAT64, EP_SHAPE (2), EP_VALUES (1, -1));
  g_autoptr(EpTensor) av = ep_tensor_matmul (a, v, &error);
  g_autoptr(EpTensor) wa = ep_tensor_matmul (w, a, &error);
  g_autoptr(EpTensor) vv = ep_tensor_matmul (v, v, &error);

  g_assert_no_error (error);
  ep_assert_values (av, EP_DTYPE_FLOAT64, EP_SHAPE (2), EP_VALUES (-2, -2));
  ep_assert_values (wa, EP_DTYPE_FLOAT64, EP_SHAPE (3), EP_VALUES (-3, -3, -3));
  ep_assert_values (vv, EP_DTYPE_FLOAT64, EP_SCALAR, EP_VALUES (2));
}

static void
test_batched_vector (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) a = ep_test_new (EP_DTYPE_INT32, EP_SHAPE (2, 2, 3),
                                       EP_VALUES (1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12));
  g_autoptr(EpTensor) v = ep_test_new (EP_DTYPE_INT32, EP_SHAPE (3), EP_VALUES (1, 1, 1));
  g_autoptr(EpTensor) w = ep_test_new (EP_DTYPE_INT32, EP_SHAPE (2), EP_VALUES (1, -1));
  g_autoptr(EpTensor) av = ep_tensor_matmul (a, v, &error);
  g_autoptr(EpTensor) wa = ep_tensor_matmul (w, a, &error);

  g_assert_no_error (error);
  ep_assert_values (av, EP_DTYPE_INT32, EP_SHAPE (2, 2), EP_VALUES (6, 15, 24, 33));
  ep_assert_values (wa, EP_DTYPE_INT32, EP_SHAPE (2, 3), EP_VALUES (-3, -3, -3, -3, -3, -3));
}

/* batches */

static void
test_batched (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) a = ep_test_new (EP_DTYPE_FLOAT32, EP_SHAPE (2, 2, 2), EP_VALUES (1, 2, 3, 4, 1, 0, 0, 1));
  g_autoptr(EpTensor) b = ep_test_new (EP_DTYPE_FLOAT32, EP_SHAPE (2, 2, 2), EP_VALUES (1, 0, 0, 1, 5, 6, 7, 8));
  g_autoptr(EpTensor) c = ep_tensor_matmul (a, b, &error);

  g_assert_no_error (error);
  ep_assert_values (c, EP_DTYPE_FLOAT32, EP_SHAPE (2, 2, 2), EP_VALUES (1, 2, 3, 4, 5, 6, 7, 8));
}

static void
test_batch_broadcasts (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) a = ep_test_new (EP_DTYPE_FLOAT64, EP_SHAPE (2, 1, 1, 2), EP_VALUES (1, 2, 3, 4));
  g_autoptr(EpTensor) b = ep_test_new (EP_DTYPE_FLOAT64, EP_SHAPE (3, 2, 1), EP_VALUES (1, 0, 0, 1, 1, 1));
  g_autoptr(EpTensor) c = ep_tensor_matmul (a, b, &error);

  g_assert_no_error (error);
  /* c[i, j] = a[i] @ b[j] */
  ep_assert_values (c, EP_DTYPE_FLOAT64, EP_SHAPE (2, 3, 1, 1), EP_VALUES (1, 2, 3, 3, 4, 7));
}

static void
test_matrix_times_batch (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) a = ep_test_new (EP_DTYPE_FLOAT32, EP_SHAPE (1, 2), EP_VALUES (1, 10));
  g_autoptr(EpTensor) b = ep_test_new (EP_DTYPE_FLOAT32, EP_SHAPE (3, 2, 1), EP_VALUES (1, 2, 3, 4, 5, 6));
  g_autoptr(EpTensor) c = ep_tensor_matmul (a, b, &error);
  g_autoptr(EpTensor) d = ep_tensor_matmul (b, a, &error);

  g_assert_no_error (error);
  ep_assert_values (c, EP_DTYPE_FLOAT32, EP_SHAPE (3, 1, 1), EP_VALUES (21, 43, 65));
  ep_assert_values (d, EP_DTYPE_FLOAT32, EP_SHAPE (3, 2, 2),
                    EP_VALUES (1, 10, 2, 20, 3, 30, 4, 40, 5, 50, 6, 60));
}

/* The transpose of a 3-D tensor: no matrix in it has a unit stride, so
 * BLAS needs a contiguous copy; the integer loops take any strides. */
static void
test_batched_non_blas_layout (void)
{
  static const EpDType dtypes[] = { EP_DTYPE_FLOAT32, EP_DTYPE_INT64 };

  for (guint d = 0; d < G_N_ELEMENTS (dtypes); d++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(EpTensor) flat = ep_arange (0, 24, 1, dtypes[d], &error);
      g_autoptr(EpTensor) x = ep_tensor_reshape (flat, EP_SHAPE (2, 3, 4), &error);
      g_autoptr(EpTensor) t = ep_tensor_transpose (x, NULL, 0, &error);     /* (4, 3, 2) */
      g_autoptr(EpTensor) b = ep_test_new (dtypes[d], EP_SHAPE (2, 1), EP_VALUES (1, -1));
      g_autoptr(EpTensor) c = ep_tensor_matmul (t, b, &error);

      g_assert_no_error (error);
      /* t[i, j, :] = (x[0, j, i], x[1, j, i]) = (4j + i, 12 + 4j + i) */
      ep_assert_values (c, dtypes[d], EP_SHAPE (4, 3, 1),
                        EP_VALUES (-12, -12, -12, -12, -12, -12, -12, -12, -12, -12, -12, -12));
    }
}

/* dtypes */

static void
test_bool (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) a = ep_test_new (EP_DTYPE_BOOL, EP_SHAPE (2, 2), EP_VALUES (1, 0, 0, 0));
  g_autoptr(EpTensor) b = ep_test_new (EP_DTYPE_BOOL, EP_SHAPE (2, 2), EP_VALUES (1, 1, 1, 0));
  g_autoptr(EpTensor) c = ep_tensor_matmul (a, b, &error);

  g_assert_no_error (error);
  ep_assert_values (c, EP_DTYPE_BOOL, EP_SHAPE (2, 2), EP_VALUES (1, 1, 0, 0));
}

static void
test_bool_is_or_of_ands (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) a = ep_test_new (EP_DTYPE_BOOL, EP_SHAPE (3), EP_VALUES (1, 1, 1));
  g_autoptr(EpTensor) c = ep_tensor_matmul (a, a, &error);

  g_assert_no_error (error);
  ep_assert_values (c, EP_DTYPE_BOOL, EP_SCALAR, EP_VALUES (1));
}

static void
test_int32_wraps (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) a = ep_test_new (EP_DTYPE_INT32, EP_SHAPE (2), EP_VALUES (65536, 65536));
  g_autoptr(EpTensor) c = ep_tensor_matmul (a, a, &error);

  g_assert_no_error (error);
  ep_assert_values (c, EP_DTYPE_INT32, EP_SCALAR, EP_VALUES (0));
}

static void
test_mixed_dtypes_promote (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) a = ep_test_new (EP_DTYPE_INT32, EP_SHAPE (1, 2), EP_VALUES (1, 2));
  g_autoptr(EpTensor) b = ep_test_new (EP_DTYPE_FLOAT32, EP_SHAPE (2, 1), EP_VALUES (0.5, 0.25));
  g_autoptr(EpTensor) i64 = ep_test_new (EP_DTYPE_INT64, EP_SHAPE (2, 1), EP_VALUES (3, 4));
  g_autoptr(EpTensor) bl = ep_test_new (EP_DTYPE_BOOL, EP_SHAPE (2, 1), EP_VALUES (1, 1));
  g_autoptr(EpTensor) c = ep_tensor_matmul (a, b, &error);
  g_autoptr(EpTensor) d = ep_tensor_matmul (a, i64, &error);
  g_autoptr(EpTensor) e = ep_tensor_matmul (a, bl, &error);

  g_assert_no_error (error);
  ep_assert_values (c, EP_DTYPE_FLOAT64, EP_SHAPE (1, 1), EP_VALUES (1));
  ep_assert_values (d, EP_DTYPE_INT64, EP_SHAPE (1, 1), EP_VALUES (11));
  ep_assert_values (e, EP_DTYPE_INT32, EP_SHAPE (1, 1), EP_VALUES (3));
}

/* empty operands */

static void
test_empty_inner_dimension_gives_zeros (void)
{
  static const EpDType dtypes[] = { EP_DTYPE_FLOAT32, EP_DTYPE_FLOAT64, EP_DTYPE_INT32, EP_DTYPE_BOOL };

  for (guint d = 0; d < G_N_ELEMENTS (dtypes); d++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(EpTensor) a = ep_zeros (EP_SHAPE (2, 0), dtypes[d], &error);
      g_autoptr(EpTensor) b = ep_zeros (EP_SHAPE (0, 3), dtypes[d], &error);
      g_autoptr(EpTensor) c = ep_tensor_matmul (a, b, &error);

      g_assert_no_error (error);
      ep_assert_values (c, dtypes[d], EP_SHAPE (2, 3), EP_VALUES (0, 0, 0, 0, 0, 0));
    }
}

static void
test_empty_outer_dimensions (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) a = ep_zeros (EP_SHAPE (0, 3), EP_DTYPE_FLOAT32, &error);
  g_autoptr(EpTensor) b = ep_ones (EP_SHAPE (3, 2), EP_DTYPE_FLOAT32, &error);
  g_autoptr(EpTensor) c = ep_tensor_matmul (a, b, &error);
  g_autoptr(EpTensor) batch = ep_zeros (EP_SHAPE (0, 2, 3), EP_DTYPE_FLOAT32, &error);
  g_autoptr(EpTensor) d = ep_tensor_matmul (batch, b, &error);

  g_assert_no_error (error);
  ep_assert_shape (c, EP_SHAPE (0, 2));
  ep_assert_shape (d, EP_SHAPE (0, 2, 2));
}

/* errors */

static void
test_inner_dimensions_differ (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) a = ep_zeros (EP_SHAPE (2, 3), EP_DTYPE_FLOAT32, &error);
  g_autoptr(EpTensor) b = ep_zeros (EP_SHAPE (4, 5), EP_DTYPE_FLOAT32, &error);
  g_autoptr(EpTensor) c = ep_tensor_matmul (a, b, &error);

  g_assert_null (c);
  ep_assert_error (error, EP_ERROR_SHAPE, "matmul", "inner dimensions differ (3 vs 4)");
}

static void
test_vector_dimensions_differ (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GError) error_mv = NULL;
  g_autoptr(EpTensor) a = ep_zeros (EP_SHAPE (3), EP_DTYPE_FLOAT32, NULL);
  g_autoptr(EpTensor) b = ep_zeros (EP_SHAPE (4), EP_DTYPE_FLOAT32, NULL);
  g_autoptr(EpTensor) m = ep_zeros (EP_SHAPE (2, 4), EP_DTYPE_INT32, NULL);
  g_autoptr(EpTensor) c = ep_tensor_matmul (a, b, &error);
  g_autoptr(EpTensor) d = ep_tensor_matmul (m, a, &error_mv);

  g_assert_null (c);
  ep_assert_error (error, EP_ERROR_SHAPE, "matmul", "(3 vs 4)");
  g_assert_null (d);
  ep_assert_error (error_mv, EP_ERROR_SHAPE, "matmul", "(4 vs 3)");
}

static void
test_scalar_operand (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) s = ep_test_new (EP_DTYPE_FLOAT32, EP_SCALAR, EP_VALUES (2));
  g_autoptr(EpTensor) v = ep_zeros (EP_SHAPE (3), EP_DTYPE_FLOAT32, NULL);
  g_autoptr(EpTensor) c = ep_tensor_matmul (s, v, &error);

  g_assert_null (c);
  ep_assert_error (error, EP_ERROR_SHAPE, "matmul", "at least one dimension");
}

static void
test_batches_do_not_broadcast (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) a = ep_zeros (EP_SHAPE (2, 2, 3), EP_DTYPE_FLOAT32, NULL);
  g_autoptr(EpTensor) b = ep_zeros (EP_SHAPE (3, 3, 2), EP_DTYPE_FLOAT32, NULL);
  g_autoptr(EpTensor) c = ep_tensor_matmul (a, b, &error);

  g_assert_null (c);
  ep_assert_error (error, EP_ERROR_SHAPE, "matmul", "(2, 2, 3) and (3, 3, 2)");
}

/* dot, outer */

static void
test_dot_outer (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) flat = ep_test_vector (EP_DOUBLES (2, 1, 1, 3), 4, EP_DTYPE_FLOAT64);
  g_autoptr(EpTensor) a = ep_tensor_reshape (flat, EP_DIMS (2, 2), 2, &error);
  g_autoptr(EpTensor) b = ep_test_vector (EP_DOUBLES (3, 5), 2, EP_DTYPE_FLOAT64);
  g_autoptr(EpTensor) d = ep_tensor_dot (a, b, &error);
  g_autoptr(EpTensor) o = ep_tensor_outer (b, b, &error);

  g_assert_no_error (error);
  ep_test_assert_tensor (d, EP_DIMS (2), 1, EP_DOUBLES (11, 18));
  ep_test_assert_tensor (o, EP_DIMS (2, 2), 2, EP_DOUBLES (9, 15, 15, 25));
}

static void
test_dot_errors (void)
{
  g_autoptr(EpTensor) wide = ep_zeros (EP_DIMS (2, 3), 2, EP_DTYPE_FLOAT32, NULL);
  GError *error = NULL;
  EpTensor *r;

  r = ep_tensor_dot (wide, wide, &error);
  ep_test_assert_failed (r, error, EP_ERROR_SHAPE, "dot");
  g_clear_error (&error);
}

/* einsum (issue 17, ops) */

static void
test_einsum (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) a = ep_test_iota (EP_DIMS (2, 3), 2, EP_DTYPE_FLOAT64);
  g_autoptr(EpTensor) b = ep_test_iota (EP_DIMS (3, 2), 2, EP_DTYPE_FLOAT64);
  g_autoptr(EpTensor) sq = ep_test_iota (EP_DIMS (3, 3), 2, EP_DTYPE_INT32);
  EpTensor *ab[2] = { a, b }, *aa[2] = { a, a };
  g_autoptr(EpTensor) product = ep_einsum (ab, 2, "ij,jk->ik", &error);
  g_autoptr(EpTensor) implicit = ep_einsum (ab, 2, "ij,jk", &error);
  g_autoptr(EpTensor) trace = ep_einsum (&sq, 1, "ii", &error);
  g_autoptr(EpTensor) diagonal = ep_einsum (&sq, 1, "ii->i", &error);
  g_autoptr(EpTensor) transposed = ep_einsum (&a, 1, "ij->ji", &error);
  g_autoptr(EpTensor) rows = ep_einsum (aa, 2, "ij,ij->i", &error);

  g_assert_no_error (error);
  /* [[0 1 2] [3 4 5]] @ [[0 1] [2 3] [4 5]] */
  ep_test_assert_tensor (product, EP_DIMS (2, 2), 2, EP_DOUBLES (10, 13, 28, 40));
  ep_test_assert_tensor (implicit, EP_DIMS (2, 2), 2, EP_DOUBLES (10, 13, 28, 40));
  g_assert_cmpint (ep_tensor_get_dtype (trace), ==, EP_DTYPE_INT32);
  ep_test_assert_tensor (trace, NULL, 0, EP_DOUBLES (12));
  ep_test_assert_tensor (diagonal, EP_DIMS (3), 1, EP_DOUBLES (0, 4, 8));
  ep_test_assert_tensor (transposed, EP_DIMS (3, 2), 2, EP_DOUBLES (0, 3, 1, 4, 2, 5));
  ep_test_assert_tensor (rows, EP_DIMS (2), 1, EP_DOUBLES (5, 50));
}

static void
test_einsum_errors (void)
{
  g_autoptr(EpTensor) a = ep_zeros (EP_DIMS (2, 3), 2, EP_DTYPE_FLOAT32, NULL);
  EpTensor *aa[2] = { a, a };
  GError *error = NULL;
  EpTensor *r;

  r = ep_einsum (aa, 2, "ij,jk", &error);
  ep_test_assert_failed (r, error, EP_ERROR_SHAPE, "einsum");
  g_clear_error (&error);
  r = ep_einsum (&a, 1, "ijk", &error);
  ep_test_assert_failed (r, error, EP_ERROR_SHAPE, "einsum");
  g_clear_error (&error);
  r = ep_einsum (aa, 2, "ij", &error);
  ep_test_assert_failed (r, error, EP_ERROR_INVALID_ARGUMENT, "einsum");
  g_clear_error (&error);
  r = ep_einsum (&a, 1, "i\xc3\xbc", &error);
  ep_test_assert_failed (r, error, EP_ERROR_INVALID_ARGUMENT, "einsum");
  g_clear_error (&error);
  r = ep_einsum (NULL, 0, "", &error);
  ep_test_assert_failed (r, error, EP_ERROR_INVALID_ARGUMENT, "einsum");
  g_clear_error (&error);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/linalg/matmul/layouts/float32", test_layouts_float32);
  g_test_add_func ("/linalg/matmul/layouts/float64", test_layouts_float64);
  g_test_add_func ("/linalg/matmul/layouts/int32", test_layouts_int32);
  g_test_add_func ("/linalg/matmul/layouts/int64", test_layouts_int64);
  g_test_add_func ("/linalg/matmul/2d", test_2d);
  g_test_add_func ("/linalg/matmul/larger-odd-sizes", test_larger_odd_sizes);
  g_test_add_func ("/linalg/matmul/vector/vector-vector", test_vector_vector);
  g_test_add_func ("/linalg/matmul/vector/matrix-vector", test_matrix_vector);
  g_test_add_func ("/linalg/matmul/vector/vector-matrix", test_vector_matrix);
  g_test_add_func ("/linalg/matmul/vector/strided", test_strided_vectors);
  g_test_add_func ("/linalg/matmul/vector/batched", test_batched_vector);
  g_test_add_func ("/linalg/matmul/batch/same", test_batched);
  g_test_add_func ("/linalg/matmul/batch/broadcasts", test_batch_broadcasts);
  g_test_add_func ("/linalg/matmul/batch/matrix-times-batch", test_matrix_times_batch);
  g_test_add_func ("/linalg/matmul/batch/non-blas-layout", test_batched_non_blas_layout);
  g_test_add_func ("/linalg/matmul/dtype/bool", test_bool);
  g_test_add_func ("/linalg/matmul/dtype/bool-or-of-ands", test_bool_is_or_of_ands);
  g_test_add_func ("/linalg/matmul/dtype/int32-wraps", test_int32_wraps);
  g_test_add_func ("/linalg/matmul/dtype/mixed-promote", test_mixed_dtypes_promote);
  g_test_add_func ("/linalg/matmul/empty/inner-gives-zeros", test_empty_inner_dimension_gives_zeros);
  g_test_add_func ("/linalg/matmul/empty/outer", test_empty_outer_dimensions);
  g_test_add_func ("/linalg/matmul/error/inner-dimensions", test_inner_dimensions_differ);
  g_test_add_func ("/linalg/matmul/error/vector-dimensions", test_vector_dimensions_differ);
  g_test_add_func ("/linalg/matmul/error/scalar-operand", test_scalar_operand);
  g_test_add_func ("/linalg/matmul/error/batches", test_batches_do_not_broadcast);
  g_test_add_func ("/linalg/dot-outer", test_dot_outer);
  g_test_add_func ("/linalg/dot-outer/errors", test_dot_errors);
  g_test_add_func ("/linalg/einsum", test_einsum);
  g_test_add_func ("/linalg/einsum/errors", test_einsum_errors);

  return g_test_run ();
}
