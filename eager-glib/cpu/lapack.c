/* lapack.c: inv, slogdet and solve on the CPU (LAPACKE)
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

void
ep_cpu_register_lapack (EpKernelFunc *kernels)
{
  kernels[EP_OP_INV] = cpu_inv;
  kernels[EP_OP_SLOGDET] = cpu_slogdet;
  kernels[EP_OP_SOLVE] = cpu_solve;
}
