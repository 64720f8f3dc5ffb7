/* linalg.c: matrix products on the CPU (OpenBLAS; bfloat16 on oneDNN)
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <cblas.h>
#include <glib/gi18n-lib.h>
#include <string.h>

#include "ep-cpu-private.h"
#include "ep-error.h"
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

/* bfloat16 on oneDNN (cpu/conv.c): each operand as a batch of
 * row-major (or column-major: a transposed view) matrices, the product's
 * batch or one matrix broadcast over it; others (strided, partly
 * broadcast batches) are copied into row-major ones first.
 * EP_BF16_MATMUL_WIDEN=1 leaves every product to the float32 path
 * (dispatch/widen.c), to compare the two. */

/* Whether @op is a plain batch as it is (@trans: of column-major
 * matrices), and how many matrices it holds then (1: broadcast over the
 * whole batch) */
static gboolean
operand_is_plain (const Product *p,
                  const Operand *op,
                  gint64        *count,
                  gboolean      *trans)
{
  gint64 expect = op->rows * op->cols;
  gboolean all_zero = TRUE, full = TRUE;

  *trans = FALSE;
  if ((op->rows > 1 && op->row_stride != op->cols) || (op->cols > 1 && op->col_stride != 1))
    {
      if ((op->rows > 1 && op->row_stride != 1) || (op->cols > 1 && op->col_stride != op->rows))
        return FALSE;
      *trans = TRUE;
    }
  for (guint d = p->batch_ndim; d-- > 0;)
    {
      if (p->batch_shape[d] == 1)
        continue;
      if (op->batch_strides[d] != 0)
        all_zero = FALSE;
      if (op->batch_strides[d] != expect)
        full = FALSE;
      expect *= p->batch_shape[d];
    }
  *count = all_zero ? 1 : p->batch_count;
  return all_zero || full;
}

/* @op's matrices, one per batch index, into @out (row-major) */
static void
operand_pack (const Product *p,
              const Operand *op,
              guint16       *out)
{
  for (gint64 bi = 0; bi < p->batch_count; bi++)
    {
      gint64 index[EP_MAX_DIMS];
      const guint16 *in;

      unravel (bi, p->batch_shape, p->batch_ndim, index);
      in = (const guint16 *) op->base + batch_offset (op, index, p->batch_ndim);
      if (op->row_stride == 1 && op->rows > 1)
        {
          /* a transposed view: by columns of the source, so that the
           * reads are contiguous */
          for (gint64 c = 0; c < op->cols; c++)
            for (gint64 r = 0; r < op->rows; r++)
              out[r * op->cols + c] = in[r + c * op->col_stride];
          out += op->rows * op->cols;
          continue;
        }
      for (gint64 r = 0; r < op->rows; r++)
        for (gint64 c = 0; c < op->cols; c++)
          *out++ = in[r * op->row_stride + c * op->col_stride];
    }
}

gboolean
ep_cpu_matmul_bf16 (EpOpCall  *call,
                    gboolean  *ran,
                    GError   **error)
{
  Product p;
  const Operand *ops[2];
  gconstpointer data[2];
  gint64 counts[2];
  gboolean trans[2], plain[2];
  guint16 *packed[2] = { NULL, NULL };
  gsize packed_size[2] = { 0, 0 };
  gint64 n, batch;
  guint8 *c;
  gboolean ok = TRUE;

  *ran = FALSE;
  if (call->op->id != EP_OP_MATMUL || call->n_inputs != 2 || call->n_outputs != 1
      || call->output_layouts[0].dtype != EP_DTYPE_BFLOAT16
      || call->inputs[0]->layout.dtype != EP_DTYPE_BFLOAT16
      || call->inputs[1]->layout.dtype != EP_DTYPE_BFLOAT16
      || g_strcmp0 (g_getenv ("EP_BF16_MATMUL_WIDEN"), "1") == 0)
    return TRUE;

  product_init (&p, call);
  c = ep_tensor_host_data (call->outputs[0]);
  if (p.batch_count == 0 || p.n == 0 || p.m == 0)
    {
      *ran = TRUE;
      return TRUE;
    }
  if (p.k == 0)
    {
      memset (c, 0, (gsize) (p.batch_count * p.n * p.m) * sizeof (guint16));
      *ran = TRUE;
      return TRUE;
    }

  ops[0] = &p.a;
  ops[1] = &p.b;
  for (int i = 0; i < 2; i++)
    {
      plain[i] = operand_is_plain (&p, ops[i], &counts[i], &trans[i]);
      data[i] = ops[i]->base;
    }

  /* two tries: the operands as they are, then (where oneDNN refuses a
   * transposed one, or they are not plain) copied row-major */
  for (int attempt = 0; attempt < 2 && ok && !*ran; attempt++)
    {
      gboolean copy = FALSE;

      for (int i = 0; i < 2; i++)
        if (!plain[i] || (attempt == 1 && trans[i]))
          copy = TRUE;
      if (attempt == 1 && !copy)
        break;
      for (int i = 0; i < 2 && ok; i++)
        {
          if (plain[i] && !(copy && attempt == 1 && trans[i]))
            continue;
          if (packed[i] != NULL)
            continue;
          counts[i] = p.batch_count;
          trans[i] = FALSE;
          packed_size[i] = (gsize) (p.batch_count * ops[i]->rows * ops[i]->cols) * sizeof (guint16);
          packed[i] = ep_cpu_cache_alloc (packed_size[i]);
          if (packed[i] == NULL)
            {
              g_set_error (error, EP_ERROR, EP_ERROR_OUT_OF_MEMORY,
                           _("%s: out of memory for %zu bytes of work space"), call->op->name,
                           packed_size[i]);
              ok = FALSE;
              break;
            }
          operand_pack (&p, ops[i], packed[i]);
          data[i] = packed[i];
        }
      if (!ok)
        break;

      /* a batch of row-major matrices times one matrix: one taller
       * product */
      n = p.n;
      batch = p.batch_count;
      if (counts[1] == 1 && counts[0] == batch && batch > 1 && !trans[0])
        {
          n *= batch;
          batch = 1;
        }
      ok = ep_cpu_dnnl_matmul_bf16 (call, MIN (counts[0], batch), counts[1], batch, n, p.k, p.m,
                                    trans[0], trans[1], data[0], data[1], c, ran, error);
    }

  for (int i = 0; i < 2; i++)
    if (packed[i] != NULL)
      ep_cpu_cache_release (packed[i], packed_size[i]);
  return ok;
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
