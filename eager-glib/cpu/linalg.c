/* linalg.c: matrix products on the CPU (OpenBLAS)
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <cblas.h>
#include <string.h>

#include "ep-cpu-private.h"
#include "ep-linalg-private.h"
#include "ep-tensor-private.h"

/* One matrix operand seen through the batch: base pointer and the stride
 * of each batch dimension of the output (0 where it broadcasts). */
typedef struct
{
  EpLayout  matrix;
  guint8   *base;
  gint64    batch_strides[EP_MAX_DIMS];
  gint64    rows, cols, row_stride, col_stride;
} Operand;

static void
operand_init (Operand  *op,
              EpTensor *tensor,
              gboolean  left,
              guint     batch_ndim,
              const gint64 *batch_shape)
{
  guint own_batch;

  ep_matmul_operand_as_matrix (&tensor->layout, left, &op->matrix);
  own_batch = op->matrix.ndim - 2;
  op->base = ep_tensor_host_data (tensor);
  op->rows = op->matrix.shape[own_batch];
  op->cols = op->matrix.shape[own_batch + 1];
  op->row_stride = op->matrix.strides[own_batch];
  op->col_stride = op->matrix.strides[own_batch + 1];

  for (guint d = 0; d < batch_ndim; d++)
    {
      gint od = (gint) d - (gint) (batch_ndim - own_batch);

      op->batch_strides[d] = (od < 0 || op->matrix.shape[od] != batch_shape[d] || batch_shape[d] == 1)
                             ? 0 : op->matrix.strides[od];
    }
}

static gint64
batch_offset (const Operand *op,
              const gint64  *index,
              guint          batch_ndim)
{
  gint64 offset = 0;

  for (guint d = 0; d < batch_ndim; d++)
    offset += index[d] * op->batch_strides[d];

  return offset;
}

typedef struct
{
  Operand a, b;
  gint64  n, k, m;
  guint   batch_ndim;
  gint64  batch_shape[EP_MAX_DIMS];
  gint64  batch_count;
} Product;

static void
product_init (Product  *p,
              EpOpCall *call)
{
  EpTensor *a = call->inputs[0], *b = call->inputs[1];
  guint a_nd = MAX (a->layout.ndim, 2), b_nd = MAX (b->layout.ndim, 2);
  const EpLayout *out = &call->outputs[0]->layout;

  p->batch_ndim = MAX (a_nd, b_nd) - 2;
  memcpy (p->batch_shape, out->shape, p->batch_ndim * sizeof (gint64));
  p->batch_count = 1;
  for (guint d = 0; d < p->batch_ndim; d++)
    p->batch_count *= p->batch_shape[d];

  operand_init (&p->a, a, TRUE, p->batch_ndim, p->batch_shape);
  operand_init (&p->b, b, FALSE, p->batch_ndim, p->batch_shape);
  p->n = p->a.rows;
  p->k = p->a.cols;
  p->m = p->b.cols;
}

static void
unravel (gint64        flat,
         const gint64 *shape,
         guint         ndim,
         gint64       *index)
{
  for (guint d = ndim; d-- > 0;)
    {
      index[d] = flat % shape[d];
      flat /= shape[d];
    }
}

static gboolean
cpu_matmul_blas (EpOpCall *call,
                 Product  *p)
{
  EpDType dtype = call->outputs[0]->layout.dtype;
  gsize itemsize = ep_dtype_get_itemsize (dtype);
  guint8 *c = call->outputs[0]->storage->data;
  gboolean ta, tb;
  gint64 lda, ldb;

  ep_blas_layout (p->a.rows, p->a.cols, p->a.row_stride, p->a.col_stride, &ta, &lda);
  ep_blas_layout (p->b.rows, p->b.cols, p->b.row_stride, p->b.col_stride, &tb, &ldb);

  for (gint64 bi = 0; bi < p->batch_count; bi++)
    {
      gint64 index[EP_MAX_DIMS];
      const guint8 *a, *b;
      guint8 *cb = c + bi * p->n * p->m * itemsize;

      unravel (bi, p->batch_shape, p->batch_ndim, index);
      a = p->a.base + batch_offset (&p->a, index, p->batch_ndim) * (gint64) itemsize;
      b = p->b.base + batch_offset (&p->b, index, p->batch_ndim) * (gint64) itemsize;

      if (dtype == EP_DTYPE_FLOAT32)
        cblas_sgemm (CblasRowMajor, ta ? CblasTrans : CblasNoTrans, tb ? CblasTrans : CblasNoTrans,
                     p->n, p->m, p->k, 1.0f, (const float *) a, lda, (const float *) b, ldb,
                     0.0f, (float *) cb, MAX (p->m, 1));
      else
        cblas_dgemm (CblasRowMajor, ta ? CblasTrans : CblasNoTrans, tb ? CblasTrans : CblasNoTrans,
                     p->n, p->m, p->k, 1.0, (const double *) a, lda, (const double *) b, ldb,
                     0.0, (double *) cb, MAX (p->m, 1));
    }

  return TRUE;
}

/* Integer and bool products: plain loops (i, p, j) over strided data,
 * wrapping like NumPy; bool is "or" of "and"s. */
#define INT_MATMUL(name, T, ACC, MUL, ADD)                                  \
static void                                                                 \
name (Product *p, guint8 *c)                                                \
{                                                                           \
  for (gint64 bi = 0; bi < p->batch_count; bi++)                            \
    {                                                                       \
      gint64 index[EP_MAX_DIMS];                                            \
      const T *a, *b;                                                       \
      T *cb = (T *) c + bi * p->n * p->m;                                   \
      unravel (bi, p->batch_shape, p->batch_ndim, index);                   \
      a = (const T *) p->a.base + batch_offset (&p->a, index, p->batch_ndim); \
      b = (const T *) p->b.base + batch_offset (&p->b, index, p->batch_ndim); \
      for (gint64 i = 0; i < p->n * p->m; i++)                              \
        cb[i] = 0;                                                          \
      for (gint64 i = 0; i < p->n; i++)                                     \
        for (gint64 q = 0; q < p->k; q++)                                   \
          {                                                                 \
            ACC x = (ACC) a[i * p->a.row_stride + q * p->a.col_stride];     \
            for (gint64 j = 0; j < p->m; j++)                               \
              {                                                             \
                ACC y = (ACC) b[q * p->b.row_stride + j * p->b.col_stride]; \
                cb[i * p->m + j] = (T) ADD ((ACC) cb[i * p->m + j], MUL (x, y)); \
              }                                                             \
          }                                                                 \
    }                                                                       \
}

#define UMUL(x, y) ((x) * (y))
#define UADD(x, y) ((x) + (y))
#define AND(x, y) ((x) & (y))
#define OR(x, y) ((x) | (y))

INT_MATMUL (matmul_i32, gint32, guint32, UMUL, UADD)
INT_MATMUL (matmul_i64, gint64, guint64, UMUL, UADD)
INT_MATMUL (matmul_b, guint8, guint8, AND, OR)

static gboolean
cpu_matmul (EpOpCall  *call,
            GError   **error)
{
  guint8 *c = call->outputs[0]->storage->data;
  Product p;

  product_init (&p, call);

  switch (call->outputs[0]->layout.dtype)
    {
    case EP_DTYPE_FLOAT32:
    case EP_DTYPE_FLOAT64:
      return cpu_matmul_blas (call, &p);
    case EP_DTYPE_INT32:
      matmul_i32 (&p, c);
      break;
    case EP_DTYPE_INT64:
      matmul_i64 (&p, c);
      break;
    case EP_DTYPE_BOOL:
      matmul_b (&p, c);
      break;
    case EP_DTYPE_UINT8:    /* refused by the checks */
    case EP_DTYPE_INT8:
    case EP_DTYPE_INT16:
    case EP_DTYPE_FLOAT16:  /* computed in float32 (dispatch/widen.c) */
    case EP_DTYPE_BFLOAT16:
      g_assert_not_reached ();
    }

  return TRUE;
}

void
ep_cpu_register_linalg (EpKernelFunc *kernels)
{
  kernels[EP_OP_MATMUL] = cpu_matmul;
}
