/* lapack.c: inv, slogdet, solve, det, cholesky, qr, svd, eigh and lstsq
 * on the CPU (LAPACKE)
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * LAPACK works on column-major matrices. A row-major matrix read as
 * column-major is its transpose, which these kernels use instead of
 * transposing: inv(Aᵀ) = inv(A)ᵀ, det(Aᵀ) = det(A), and solving with
 * the factors of Aᵀ and trans = 'T' solves A x = b.
 */

#include "config.h"

#include <glib/gi18n-lib.h>
#include <inttypes.h>
#include <lapacke.h>
#include <float.h>
#include <math.h>
#include <string.h>

#include "ep-cpu-private.h"
#include "ep-error.h"
#include "ep-fault-private.h"
#include "ep-shape-private.h"
#include "ep-tensor-private.h"

/* One operand's position in a broadcast batch: the element offset of
 * matrix number @b of the batch of shape @batch. */
static gint64
batch_offset (const EpLayout *layout,
              guint           core,
              const gint64   *batch,
              guint           batch_ndim,
              gint64          b)
{
  guint own = layout->ndim - core;
  gint64 offset = layout->offset;

  for (guint d = batch_ndim; d-- > 0;)
    {
      gint64 i = b % batch[d];
      gint od = (gint) d - (gint) (batch_ndim - own);

      b /= batch[d];
      if (od >= 0 && layout->shape[od] != 1)
        offset += i * layout->strides[od];
    }

  return offset;
}

/* Copies a strided (rows × cols) matrix into a dense buffer, row-major
 * (@transpose FALSE) or column-major (TRUE), in the buffer's type. */
#define LOAD(name, T)                                                       \
static void                                                                 \
name (T *dst, const T *src, gint64 rows, gint64 cols,                       \
      gint64 row_stride, gint64 col_stride, gboolean transpose)             \
{                                                                           \
  for (gint64 i = 0; i < rows; i++)                                         \
    for (gint64 j = 0; j < cols; j++)                                       \
      dst[transpose ? j * rows + i : i * cols + j] = src[i * row_stride + j * col_stride]; \
}

LOAD (load_f32, gfloat)
LOAD (load_f64, gdouble)

static gboolean
lapack_error (const char  *op,
              lapack_int   info,
              gint64       batch,
              gint64       index,
              GError     **error)
{
  if (info == LAPACK_WORK_MEMORY_ERROR || info == LAPACK_TRANSPOSE_MEMORY_ERROR)
    g_set_error (error, EP_ERROR, EP_ERROR_OUT_OF_MEMORY,
                 _("%s: LAPACK could not allocate its workspace"), op);
  else if (info > 0 && batch > 1)
    g_set_error (error, EP_ERROR, EP_ERROR_INVALID_ARGUMENT,
                 _("%s: matrix %" PRId64 " of the batch is singular"), op, index);
  else if (info > 0)
    g_set_error (error, EP_ERROR, EP_ERROR_INVALID_ARGUMENT,
                 _("%s: the matrix is singular"), op);
  else
    g_set_error (error, EP_ERROR, EP_ERROR_INVALID_ARGUMENT,
                 _("%s: LAPACK rejected argument %d"), op, (int) -info);
  return FALSE;
}

/* A rows × cols work matrix; NULL if it cannot be had. A broadcast
 * view can describe matrices far larger than memory. */
static gpointer
try_matrix (gint64 rows,
            gint64 cols,
            gsize  itemsize)
{
  if (rows > 0 && cols > 0 && (guint64) rows > G_MAXSIZE / itemsize / (guint64) cols)
    return NULL;

  return ep_try_malloc (MAX ((gsize) rows * (gsize) cols * itemsize, 1));
}

static gint64
batch_count (const EpLayout *layout,
             guint           core)
{
  gint64 count = 1;

  for (guint d = 0; d + core < layout->ndim; d++)
    count *= layout->shape[d];

  return count;
}

static gboolean
cpu_inv (EpOpCall  *call,
         GError   **error)
{
  EpTensor *a = call->inputs[0], *out = call->outputs[0];
  const EpLayout *al = &a->layout;
  guint nd = al->ndim;
  lapack_int n = (lapack_int) al->shape[nd - 1];
  gint64 count = batch_count (al, 2);
  gboolean f32 = al->dtype == EP_DTYPE_FLOAT32;
  gsize itemsize = ep_dtype_get_itemsize (al->dtype);
  g_autofree lapack_int *pivots = ep_try_new (lapack_int, MAX (n, 1));

  if (pivots == NULL)
    return lapack_error ("inv", LAPACK_WORK_MEMORY_ERROR, 0, 0, error);

  for (gint64 b = 0; b < count; b++)
    {
      guint8 *dst = (guint8 *) out->storage->data + b * (gint64) n * n * (gint64) itemsize;
      const guint8 *src = (const guint8 *) a->storage->data
                          + batch_offset (al, 2, al->shape, nd - 2, b) * (gint64) itemsize;
      lapack_int info;

      if (f32)
        {
          load_f32 ((gfloat *) dst, (const gfloat *) src, n, n, al->strides[nd - 2], al->strides[nd - 1], FALSE);
          info = LAPACKE_sgetrf (LAPACK_COL_MAJOR, n, n, (gfloat *) dst, n, pivots);
          if (info == 0)
            info = LAPACKE_sgetri (LAPACK_COL_MAJOR, n, (gfloat *) dst, n, pivots);
        }
      else
        {
          load_f64 ((gdouble *) dst, (const gdouble *) src, n, n, al->strides[nd - 2], al->strides[nd - 1], FALSE);
          info = LAPACKE_dgetrf (LAPACK_COL_MAJOR, n, n, (gdouble *) dst, n, pivots);
          if (info == 0)
            info = LAPACKE_dgetri (LAPACK_COL_MAJOR, n, (gdouble *) dst, n, pivots);
        }
      if (info != 0)
        return lapack_error ("inv", info, count, b, error);
    }

  return TRUE;
}

static gboolean
cpu_slogdet (EpOpCall  *call,
             GError   **error)
{
  EpTensor *a = call->inputs[0];
  const EpLayout *al = &a->layout;
  guint nd = al->ndim;
  lapack_int n = (lapack_int) al->shape[nd - 1];
  gint64 count = batch_count (al, 2);
  gboolean f32 = al->dtype == EP_DTYPE_FLOAT32;
  gsize itemsize = ep_dtype_get_itemsize (al->dtype);
  guint8 *signs = call->outputs[0]->storage->data;
  guint8 *logs = call->outputs[1]->storage->data;
  /* the matrix first: for a huge broadcast view it is what cannot be had */
  g_autofree guint8 *work = try_matrix (n, n, itemsize);
  g_autofree lapack_int *pivots = work != NULL ? ep_try_new (lapack_int, MAX (n, 1)) : NULL;

  if (pivots == NULL || work == NULL)
    return lapack_error ("slogdet", LAPACK_WORK_MEMORY_ERROR, 0, 0, error);

  for (gint64 b = 0; b < count; b++)
    {
      const guint8 *src = (const guint8 *) a->storage->data
                          + batch_offset (al, 2, al->shape, nd - 2, b) * (gint64) itemsize;
      gdouble sign = 1.0, logdet = 0.0;
      lapack_int info = 0;

      if (n > 0)
        {
          if (f32)
            {
              load_f32 ((gfloat *) work, (const gfloat *) src, n, n, al->strides[nd - 2], al->strides[nd - 1], FALSE);
              info = LAPACKE_sgetrf (LAPACK_COL_MAJOR, n, n, (gfloat *) work, n, pivots);
            }
          else
            {
              load_f64 ((gdouble *) work, (const gdouble *) src, n, n, al->strides[nd - 2], al->strides[nd - 1], FALSE);
              info = LAPACKE_dgetrf (LAPACK_COL_MAJOR, n, n, (gdouble *) work, n, pivots);
            }
        }

      if (info < 0)
        return lapack_error ("slogdet", info, count, b, error);
      if (info > 0)
        {
          sign = 0.0;
          logdet = -INFINITY;
        }
      else
        for (lapack_int i = 0; i < n; i++)
          {
            gdouble u = f32 ? ((gfloat *) work)[i * (gsize) n + i] : ((gdouble *) work)[i * (gsize) n + i];

            if (pivots[i] != i + 1)
              sign = -sign;
            if (u < 0)
              sign = -sign;
            logdet += log (fabs (u));
          }

      if (f32)
        {
          ((gfloat *) signs)[b] = (gfloat) sign;
          ((gfloat *) logs)[b] = (gfloat) logdet;
        }
      else
        {
          ((gdouble *) signs)[b] = sign;
          ((gdouble *) logs)[b] = logdet;
        }
    }

  return TRUE;
}

static gboolean
cpu_solve (EpOpCall  *call,
           GError   **error)
{
  EpTensor *a = call->inputs[0], *b = call->inputs[1], *out = call->outputs[0];
  const EpLayout *al = &a->layout, *bl = &b->layout, *ol = &out->layout;
  gboolean vector = ep_solve_is_vector (al, bl);
  guint core = vector ? 1 : 2;
  guint batch_ndim = ol->ndim - core;
  lapack_int n = (lapack_int) al->shape[al->ndim - 1];
  lapack_int k = vector ? 1 : (lapack_int) ol->shape[ol->ndim - 1];
  gint64 count = batch_count (ol, core);
  gboolean f32 = al->dtype == EP_DTYPE_FLOAT32;
  gsize itemsize = ep_dtype_get_itemsize (al->dtype);
  gint64 b_row_stride = bl->strides[bl->ndim - core];
  gint64 b_col_stride = vector ? 0 : bl->strides[bl->ndim - 1];
  g_autofree guint8 *factors = try_matrix (n, n, itemsize);
  g_autofree guint8 *rhs = factors != NULL ? try_matrix (n, k, itemsize) : NULL;
  g_autofree lapack_int *pivots = rhs != NULL ? ep_try_new (lapack_int, MAX (n, 1)) : NULL;

  if (pivots == NULL || factors == NULL || rhs == NULL)
    return lapack_error ("solve", LAPACK_WORK_MEMORY_ERROR, 0, 0, error);

  for (gint64 i = 0; i < count; i++)
    {
      const guint8 *asrc = (const guint8 *) a->storage->data
                           + batch_offset (al, 2, ol->shape, batch_ndim, i) * (gint64) itemsize;
      const guint8 *bsrc = (const guint8 *) b->storage->data
                           + batch_offset (bl, core, ol->shape, batch_ndim, i) * (gint64) itemsize;
      guint8 *dst = (guint8 *) out->storage->data + i * (gint64) n * k * (gint64) itemsize;
      lapack_int info;

      if (f32)
        {
          load_f32 ((gfloat *) factors, (const gfloat *) asrc, n, n, al->strides[al->ndim - 2], al->strides[al->ndim - 1], FALSE);
          load_f32 ((gfloat *) rhs, (const gfloat *) bsrc, n, k, b_row_stride, b_col_stride, TRUE);
          info = LAPACKE_sgetrf (LAPACK_COL_MAJOR, n, n, (gfloat *) factors, n, pivots);
          if (info == 0)
            info = LAPACKE_sgetrs (LAPACK_COL_MAJOR, 'T', n, k, (gfloat *) factors, n, pivots, (gfloat *) rhs, n);
          if (info == 0)
            load_f32 ((gfloat *) dst, (const gfloat *) rhs, n, k, 1, n, FALSE);
        }
      else
        {
          load_f64 ((gdouble *) factors, (const gdouble *) asrc, n, n, al->strides[al->ndim - 2], al->strides[al->ndim - 1], FALSE);
          load_f64 ((gdouble *) rhs, (const gdouble *) bsrc, n, k, b_row_stride, b_col_stride, TRUE);
          info = LAPACKE_dgetrf (LAPACK_COL_MAJOR, n, n, (gdouble *) factors, n, pivots);
          if (info == 0)
            info = LAPACKE_dgetrs (LAPACK_COL_MAJOR, 'T', n, k, (gdouble *) factors, n, pivots, (gdouble *) rhs, n);
          if (info == 0)
            load_f64 ((gdouble *) dst, (const gdouble *) rhs, n, k, 1, n, FALSE);
        }
      if (info != 0)
        return lapack_error ("solve", info, count, i, error);
    }

  return TRUE;
}

/* det, cholesky, qr, svd, eigh, lstsq: each matrix is copied into a
 * dense work buffer in the layout LAPACK takes, factored there, and its
 * results written out row-major. A NaN or infinity is refused before
 * LAPACK sees it (LAPACKE would call it a bad argument; the iterative
 * ones would not converge). */

typedef enum {
  FAILURE_NOT_DEFINITE,
  FAILURE_NO_CONVERGENCE,
  FAILURE_NOT_FINITE,
} Failure;

static gboolean
report (const char  *op,
        Failure      failure,
        gint64       count,
        gint64       index,
        GError     **error)
{
  switch (failure)
    {
    case FAILURE_NOT_DEFINITE:
      if (count > 1)
        g_set_error (error, EP_ERROR, EP_ERROR_INVALID_ARGUMENT,
                     _("%s: matrix %" PRId64 " of the batch is not positive definite"), op, index);
      else
        g_set_error (error, EP_ERROR, EP_ERROR_INVALID_ARGUMENT,
                     _("%s: the matrix is not positive definite"), op);
      break;
    case FAILURE_NO_CONVERGENCE:
      if (count > 1)
        g_set_error (error, EP_ERROR, EP_ERROR_INVALID_ARGUMENT,
                     _("%s: LAPACK did not converge on matrix %" PRId64 " of the batch"), op, index);
      else
        g_set_error (error, EP_ERROR, EP_ERROR_INVALID_ARGUMENT,
                     _("%s: LAPACK did not converge"), op);
      break;
    case FAILURE_NOT_FINITE:
    default:
      if (count > 1)
        g_set_error (error, EP_ERROR, EP_ERROR_INVALID_ARGUMENT,
                     _("%s: matrix %" PRId64 " of the batch has a NaN or infinite element"), op, index);
      else
        g_set_error (error, EP_ERROR, EP_ERROR_INVALID_ARGUMENT,
                     _("%s: the matrix has a NaN or infinite element"), op);
      break;
    }
  return FALSE;
}

/* Matrix @b of @t's own batch (or of the broadcast batch @batch),
 * copied into @dst as by LOAD. */
static void
load_matrix (EpTensor     *t,
             guint         core,
             const gint64 *batch,
             guint         batch_ndim,
             gint64        b,
             gpointer      dst,
             gint64        rows,
             gint64        cols,
             gboolean      transpose)
{
  const EpLayout *l = &t->layout;
  gsize itemsize = ep_dtype_get_itemsize (l->dtype);
  const guint8 *src = (const guint8 *) t->storage->data
                      + batch_offset (l, core, batch, batch_ndim, b) * (gint64) itemsize;
  gint64 row_stride = l->strides[l->ndim - core];
  gint64 col_stride = core == 2 ? l->strides[l->ndim - 1] : 0;

  if (l->dtype == EP_DTYPE_FLOAT32)
    load_f32 (dst, (const gfloat *) src, rows, cols, row_stride, col_stride, transpose);
  else
    load_f64 (dst, (const gdouble *) src, rows, cols, row_stride, col_stride, transpose);
}

static inline gdouble
element (gconstpointer data,
         gboolean      f32,
         gsize         i)
{
  return f32 ? ((const gfloat *) data)[i] : ((const gdouble *) data)[i];
}

static inline void
set_element (gpointer data,
             gboolean f32,
             gsize    i,
             gdouble  value)
{
  if (f32)
    ((gfloat *) data)[i] = (gfloat) value;
  else
    ((gdouble *) data)[i] = value;
}

static gboolean
all_finite (gconstpointer data,
            gboolean      f32,
            gsize         n)
{
  for (gsize i = 0; i < n; i++)
    if (!isfinite (element (data, f32, i)))
      return FALSE;
  return TRUE;
}

/* Whether the triangle LAPACK reads of the column-major n × n @data
 * (@uplo 'U' or 'L') is finite: LAPACKE refuses NaN there as a bad
 * argument. */
static gboolean
triangle_finite (gconstpointer data,
                 gboolean      f32,
                 gint64        n,
                 char          uplo)
{
  for (gint64 c = 0; c < n; c++)
    for (gint64 r = uplo == 'U' ? 0 : c; r < (uplo == 'U' ? c + 1 : n); r++)
      if (!isfinite (element (data, f32, c * n + r)))
        return FALSE;
  return TRUE;
}

/* Writes the column-major (rows × cols, leading dimension @ld) matrix
 * @src row-major into @dst. */
static void
store_rows (gpointer      dst,
            gconstpointer src,
            gboolean      f32,
            gint64        rows,
            gint64        cols,
            gint64        ld)
{
  if (f32)
    load_f32 (dst, src, rows, cols, 1, ld, FALSE);
  else
    load_f64 (dst, src, rows, cols, 1, ld, FALSE);
}

static gboolean
cpu_det (EpOpCall  *call,
         GError   **error)
{
  EpTensor *a = call->inputs[0];
  const EpLayout *al = &a->layout;
  lapack_int n = (lapack_int) al->shape[al->ndim - 1];
  gint64 count = batch_count (al, 2);
  gboolean f32 = al->dtype == EP_DTYPE_FLOAT32;
  gpointer out = call->outputs[0]->storage->data;
  g_autofree guint8 *work = try_matrix (n, n, ep_dtype_get_itemsize (al->dtype));
  g_autofree lapack_int *pivots = work != NULL ? ep_try_new (lapack_int, MAX (n, 1)) : NULL;

  if (pivots == NULL)
    return lapack_error ("det", LAPACK_WORK_MEMORY_ERROR, 0, 0, error);

  for (gint64 b = 0; b < count; b++)
    {
      gdouble det = 1.0;
      lapack_int info = 0;

      if (n > 0)
        {
          load_matrix (a, 2, al->shape, al->ndim - 2, b, work, n, n, FALSE);
          if (!all_finite (work, f32, (gsize) n * n))
            return report ("det", FAILURE_NOT_FINITE, count, b, error);
          info = f32 ? LAPACKE_sgetrf (LAPACK_COL_MAJOR, n, n, (gfloat *) work, n, pivots)
                     : LAPACKE_dgetrf (LAPACK_COL_MAJOR, n, n, (gdouble *) work, n, pivots);
        }
      if (info < 0)
        return lapack_error ("det", info, count, b, error);
      if (info > 0)
        det = 0.0;
      else
        for (lapack_int i = 0; i < n; i++)
          det *= pivots[i] != i + 1 ? -element (work, f32, i * (gsize) n + i)
                                    : element (work, f32, i * (gsize) n + i);
      set_element (out, f32, b, det);
    }

  return TRUE;
}

/* The row-major matrix read column-major is its transpose: its lower
 * triangle is LAPACK's upper one, and the factor U of Aᵀ = Uᵀ U read
 * back row-major is L. */
static gboolean
cpu_cholesky (EpOpCall  *call,
              GError   **error)
{
  EpTensor *a = call->inputs[0];
  const EpLayout *al = &a->layout;
  lapack_int n = (lapack_int) al->shape[al->ndim - 1];
  gint64 count = batch_count (al, 2);
  gboolean f32 = al->dtype == EP_DTYPE_FLOAT32;
  gsize itemsize = ep_dtype_get_itemsize (al->dtype);

  for (gint64 b = 0; b < count; b++)
    {
      guint8 *dst = (guint8 *) call->outputs[0]->storage->data + b * (gint64) n * n * (gint64) itemsize;
      lapack_int info;

      load_matrix (a, 2, al->shape, al->ndim - 2, b, dst, n, n, FALSE);
      if (!triangle_finite (dst, f32, n, 'U'))
        return report ("cholesky", FAILURE_NOT_FINITE, count, b, error);
      info = f32 ? LAPACKE_spotrf (LAPACK_COL_MAJOR, 'U', n, (gfloat *) dst, n)
                 : LAPACKE_dpotrf (LAPACK_COL_MAJOR, 'U', n, (gdouble *) dst, n);
      if (info > 0)
        return report ("cholesky", FAILURE_NOT_DEFINITE, count, b, error);
      if (info < 0)
        return lapack_error ("cholesky", info, count, b, error);
      for (lapack_int i = 0; i < n; i++)
        for (lapack_int j = i + 1; j < n; j++)
          set_element (dst, f32, i * (gsize) n + j, 0.0);
    }

  return TRUE;
}

static gboolean
cpu_qr (EpOpCall  *call,
        GError   **error)
{
  EpTensor *a = call->inputs[0];
  const EpLayout *al = &a->layout;
  lapack_int m = (lapack_int) al->shape[al->ndim - 2], n = (lapack_int) al->shape[al->ndim - 1];
  lapack_int k = MIN (m, n), lda = MAX (m, 1);
  gint64 count = batch_count (al, 2);
  gboolean f32 = al->dtype == EP_DTYPE_FLOAT32;
  gsize itemsize = ep_dtype_get_itemsize (al->dtype);
  guint8 *qs = call->outputs[0]->storage->data, *rs = call->outputs[1]->storage->data;
  g_autofree guint8 *work = try_matrix (m, n, itemsize);
  g_autofree guint8 *tau = work != NULL ? try_matrix (k, 1, itemsize) : NULL;

  if (tau == NULL)
    return lapack_error ("qr", LAPACK_WORK_MEMORY_ERROR, 0, 0, error);
  if (k == 0)
    return TRUE;

  for (gint64 b = 0; b < count; b++)
    {
      guint8 *q = qs + b * (gint64) m * k * (gint64) itemsize;
      guint8 *r = rs + b * (gint64) k * n * (gint64) itemsize;
      lapack_int info;

      load_matrix (a, 2, al->shape, al->ndim - 2, b, work, m, n, TRUE);
      if (!all_finite (work, f32, (gsize) m * n))
        return report ("qr", FAILURE_NOT_FINITE, count, b, error);
      info = f32 ? LAPACKE_sgeqrf (LAPACK_COL_MAJOR, m, n, (gfloat *) work, lda, (gfloat *) tau)
                 : LAPACKE_dgeqrf (LAPACK_COL_MAJOR, m, n, (gdouble *) work, lda, (gdouble *) tau);
      if (info != 0)
        return lapack_error ("qr", info, count, b, error);
      store_rows (r, work, f32, k, n, lda);
      for (lapack_int i = 1; i < k; i++)
        for (lapack_int j = 0; j < i; j++)
          set_element (r, f32, i * (gsize) n + j, 0.0);
      info = f32 ? LAPACKE_sorgqr (LAPACK_COL_MAJOR, m, k, k, (gfloat *) work, lda, (gfloat *) tau)
                 : LAPACKE_dorgqr (LAPACK_COL_MAJOR, m, k, k, (gdouble *) work, lda, (gdouble *) tau);
      if (info != 0)
        return lapack_error ("qr", info, count, b, error);
      store_rows (q, work, f32, m, k, lda);
    }

  return TRUE;
}

/* An identity in each (rows × cols) matrix of @data: full_matrices of
 * a matrix with no singular value */
static void
fill_identities (gpointer data,
                 gboolean f32,
                 gint64   count,
                 gint64   rows,
                 gint64   cols)
{
  for (gint64 b = 0; b < count; b++)
    for (gint64 i = 0; i < rows; i++)
      for (gint64 j = 0; j < cols; j++)
        set_element (data, f32, (b * rows + i) * cols + j, i == j);
}

static gboolean
cpu_svd (EpOpCall  *call,
         GError   **error)
{
  EpTensor *a = call->inputs[0];
  const EpLayout *al = &a->layout;
  gboolean full = call->attrs.lapack.full_matrices;
  lapack_int m = (lapack_int) al->shape[al->ndim - 2], n = (lapack_int) al->shape[al->ndim - 1];
  lapack_int k = MIN (m, n), lda = MAX (m, 1);
  lapack_int ucols = full ? m : k, vrows = full ? n : k;
  gint64 count = batch_count (al, 2);
  gboolean f32 = al->dtype == EP_DTYPE_FLOAT32;
  gsize itemsize = ep_dtype_get_itemsize (al->dtype);
  guint8 *us = call->outputs[0]->storage->data, *ss = call->outputs[1]->storage->data;
  guint8 *vhs = call->outputs[2]->storage->data;
  g_autofree guint8 *work = try_matrix (m, n, itemsize);
  g_autofree guint8 *u = work != NULL ? try_matrix (m, ucols, itemsize) : NULL;
  g_autofree guint8 *vt = u != NULL ? try_matrix (vrows, n, itemsize) : NULL;

  if (vt == NULL)
    return lapack_error ("svd", LAPACK_WORK_MEMORY_ERROR, 0, 0, error);
  if (k == 0)
    {
      fill_identities (us, f32, count, m, ucols);
      fill_identities (vhs, f32, count, vrows, n);
      return TRUE;
    }

  for (gint64 b = 0; b < count; b++)
    {
      lapack_int info;

      load_matrix (a, 2, al->shape, al->ndim - 2, b, work, m, n, TRUE);
      if (!all_finite (work, f32, (gsize) m * n))
        return report ("svd", FAILURE_NOT_FINITE, count, b, error);
      if (f32)
        info = LAPACKE_sgesdd (LAPACK_COL_MAJOR, full ? 'A' : 'S', m, n, (gfloat *) work, lda,
                               (gfloat *) (ss + b * k * (gint64) itemsize), (gfloat *) u, lda,
                               (gfloat *) vt, MAX (vrows, 1));
      else
        info = LAPACKE_dgesdd (LAPACK_COL_MAJOR, full ? 'A' : 'S', m, n, (gdouble *) work, lda,
                               (gdouble *) (ss + b * k * (gint64) itemsize), (gdouble *) u, lda,
                               (gdouble *) vt, MAX (vrows, 1));
      if (info > 0)
        return report ("svd", FAILURE_NO_CONVERGENCE, count, b, error);
      if (info < 0)
        return lapack_error ("svd", info, count, b, error);
      store_rows (us + b * (gint64) m * ucols * (gint64) itemsize, u, f32, m, ucols, lda);
      store_rows (vhs + b * (gint64) vrows * n * (gint64) itemsize, vt, f32, vrows, n, MAX (vrows, 1));
    }

  return TRUE;
}

/* As cholesky: the lower triangle of the row-major matrix is the upper
 * one of what LAPACK sees. */
static gboolean
cpu_eigh (EpOpCall  *call,
          GError   **error)
{
  EpTensor *a = call->inputs[0];
  const EpLayout *al = &a->layout;
  char uplo = call->attrs.lapack.upper ? 'L' : 'U';
  lapack_int n = (lapack_int) al->shape[al->ndim - 1];
  gint64 count = batch_count (al, 2);
  gboolean f32 = al->dtype == EP_DTYPE_FLOAT32;
  gsize itemsize = ep_dtype_get_itemsize (al->dtype);
  guint8 *ws = call->outputs[0]->storage->data, *vs = call->outputs[1]->storage->data;
  g_autofree guint8 *work = try_matrix (n, n, itemsize);

  if (work == NULL)
    return lapack_error ("eigh", LAPACK_WORK_MEMORY_ERROR, 0, 0, error);

  for (gint64 b = 0; b < count; b++)
    {
      lapack_int info;

      load_matrix (a, 2, al->shape, al->ndim - 2, b, work, n, n, FALSE);
      if (!triangle_finite (work, f32, n, uplo))
        return report ("eigh", FAILURE_NOT_FINITE, count, b, error);
      info = f32 ? LAPACKE_ssyevd (LAPACK_COL_MAJOR, 'V', uplo, n, (gfloat *) work, n,
                                   (gfloat *) (ws + b * n * (gint64) itemsize))
                 : LAPACKE_dsyevd (LAPACK_COL_MAJOR, 'V', uplo, n, (gdouble *) work, n,
                                   (gdouble *) (ws + b * n * (gint64) itemsize));
      if (info > 0)
        return report ("eigh", FAILURE_NO_CONVERGENCE, count, b, error);
      if (info < 0)
        return lapack_error ("eigh", info, count, b, error);
      store_rows (vs + b * (gint64) n * n * (gint64) itemsize, work, f32, n, n, n);
    }

  return TRUE;
}

static gboolean
cpu_lstsq (EpOpCall  *call,
           GError   **error)
{
  EpTensor *a = call->inputs[0], *bt = call->inputs[1], *out = call->outputs[0];
  const EpLayout *al = &a->layout, *ol = &out->layout;
  gboolean vector = ep_solve_is_vector (al, &bt->layout);
  guint core = vector ? 1 : 2;
  guint batch_ndim = ol->ndim - core;
  lapack_int m = (lapack_int) al->shape[al->ndim - 2], n = (lapack_int) al->shape[al->ndim - 1];
  lapack_int k = vector ? 1 : (lapack_int) ol->shape[ol->ndim - 1];
  lapack_int lda = MAX (m, 1), ldb = MAX (MAX (m, n), 1);
  gint64 count = batch_count (ol, core);
  gboolean f32 = al->dtype == EP_DTYPE_FLOAT32;
  gsize itemsize = ep_dtype_get_itemsize (al->dtype);
  gdouble rcond = (f32 ? FLT_EPSILON : DBL_EPSILON) * MAX (m, n);
  g_autofree guint8 *factors = try_matrix (m, n, itemsize);
  g_autofree guint8 *rhs = factors != NULL ? try_matrix (ldb, k, itemsize) : NULL;
  g_autofree guint8 *columns = rhs != NULL ? try_matrix (m, k, itemsize) : NULL;
  g_autofree guint8 *s = columns != NULL ? try_matrix (MIN (m, n), 1, itemsize) : NULL;

  if (s == NULL)
    return lapack_error ("lstsq", LAPACK_WORK_MEMORY_ERROR, 0, 0, error);

  for (gint64 i = 0; i < count; i++)
    {
      guint8 *dst = (guint8 *) out->storage->data + i * (gint64) n * k * (gint64) itemsize;
      lapack_int info, rank;

      if (m == 0)
        {
          /* no equation: the least-norm solution is 0 */
          memset (dst, 0, (gsize) n * k * itemsize);
          continue;
        }
      load_matrix (a, 2, ol->shape, batch_ndim, i, factors, m, n, TRUE);
      /* b's columns at LAPACK's leading dimension, max (m, n) */
      load_matrix (bt, core, ol->shape, batch_ndim, i, columns, m, k, TRUE);
      memset (rhs, 0, (gsize) ldb * k * itemsize);
      for (lapack_int j = 0; j < k; j++)
        memcpy (rhs + (gsize) j * ldb * itemsize, columns + (gsize) j * m * itemsize, (gsize) m * itemsize);
      if (!all_finite (factors, f32, (gsize) m * n) || !all_finite (rhs, f32, (gsize) ldb * k))
        return report ("lstsq", FAILURE_NOT_FINITE, count, i, error);
      info = f32 ? LAPACKE_sgelsd (LAPACK_COL_MAJOR, m, n, k, (gfloat *) factors, lda, (gfloat *) rhs, ldb,
                                   (gfloat *) s, (gfloat) rcond, &rank)
                 : LAPACKE_dgelsd (LAPACK_COL_MAJOR, m, n, k, (gdouble *) factors, lda, (gdouble *) rhs, ldb,
                                   (gdouble *) s, rcond, &rank);
      if (info > 0)
        return report ("lstsq", FAILURE_NO_CONVERGENCE, count, i, error);
      if (info < 0)
        return lapack_error ("lstsq", info, count, i, error);
      store_rows (dst, rhs, f32, n, k, ldb);
    }

  return TRUE;
}

void
ep_cpu_register_lapack (EpKernelFunc *kernels)
{
  kernels[EP_OP_INV] = cpu_inv;
  kernels[EP_OP_SLOGDET] = cpu_slogdet;
  kernels[EP_OP_SOLVE] = cpu_solve;
  kernels[EP_OP_DET] = cpu_det;
  kernels[EP_OP_CHOLESKY] = cpu_cholesky;
  kernels[EP_OP_QR] = cpu_qr;
  kernels[EP_OP_SVD] = cpu_svd;
  kernels[EP_OP_EIGH] = cpu_eigh;
  kernels[EP_OP_LSTSQ] = cpu_lstsq;
}
