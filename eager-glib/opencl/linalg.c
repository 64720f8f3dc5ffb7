/* linalg.c: matrix products on OpenCL: CLBlast for floats,
 * kernels/linalg.cl for integers and bool
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <inttypes.h>
#include <glib/gi18n-lib.h>
#include <string.h>

#include "ep-error.h"
#include "ep-fault-private.h"
#include "ep-linalg-private.h"
#include "ep-opencl-private.h"
#include "ep-tensor-private.h"

#include <clblast_c.h>

/* As in kernels/linalg.cl */
typedef struct
{
  cl_long batch_ndim;
  cl_long n, k, m;
  cl_long a_offset, b_offset;
  cl_long a_row, a_col, b_row, b_col;
  cl_long batch_shape[EP_MAX_DIMS];
  cl_long a_batch[EP_MAX_DIMS];
  cl_long b_batch[EP_MAX_DIMS];
} EpCLMatmul;

/* One operand as a (batch of) matrices: rows, columns and their strides,
 * and the stride of each batch dimension of the output (0 where the
 * operand broadcasts), all in elements. */
static void
operand_init (const EpLayout *layout,
              gboolean        left,
              guint           batch_ndim,
              const cl_long  *batch_shape,
              cl_long        *rows,
              cl_long        *cols,
              cl_long        *row_stride,
              cl_long        *col_stride,
              cl_long        *batch_strides)
{
  EpLayout matrix;
  guint own_batch;

  ep_matmul_operand_as_matrix (layout, left, &matrix);
  own_batch = matrix.ndim - 2;
  *rows = matrix.shape[own_batch];
  *cols = matrix.shape[own_batch + 1];
  *row_stride = matrix.strides[own_batch];
  *col_stride = matrix.strides[own_batch + 1];

  for (guint d = 0; d < batch_ndim; d++)
    {
      gint od = (gint) d - (gint) (batch_ndim - own_batch);

      batch_strides[d] = (od < 0 || matrix.shape[od] != batch_shape[d] || batch_shape[d] == 1)
                         ? 0 : matrix.strides[od];
    }
}

static gint64
product_init (EpCLMatmul *p,
              EpOpCall   *call)
{
  const EpLayout *a = &call->inputs[0]->layout, *b = &call->inputs[1]->layout;
  const EpLayout *out = &call->outputs[0]->layout;
  cl_long rows, cols;
  gint64 batch_count = 1;

  memset (p, 0, sizeof *p);
  p->batch_ndim = MAX (MAX (a->ndim, 2), MAX (b->ndim, 2)) - 2;
  for (guint d = 0; d < p->batch_ndim; d++)
    {
      p->batch_shape[d] = out->shape[d];
      batch_count *= out->shape[d];
    }

  operand_init (a, TRUE, p->batch_ndim, p->batch_shape, &p->n, &p->k,
                &p->a_row, &p->a_col, p->a_batch);
  operand_init (b, FALSE, p->batch_ndim, p->batch_shape, &rows, &cols,
                &p->b_row, &p->b_col, p->b_batch);
  p->m = cols;
  p->a_offset = a->offset;
  p->b_offset = b->offset;

  return batch_count;
}

static gboolean
matmul_kernel (EpOpCall          *call,
               const EpCLMatmul  *p,
               gint64             batch_count,
               GError           **error)
{
  cl_long total = batch_count * p->n * p->m;
  char name[16];
  EpCLLaunch launch;
  gsize local;

  g_snprintf (name, sizeof name, "matmul_%s", ep_cl_dtype_suffix (call->outputs[0]->layout.dtype));
  if (!ep_cl_launch_init (&launch, call, "linalg", name, error))
    return FALSE;

  ep_cl_launch_tensor (&launch, call->outputs[0]);
  ep_cl_launch_tensor (&launch, call->inputs[0]);
  ep_cl_launch_tensor (&launch, call->inputs[1]);
  ep_cl_launch_arg (&launch, sizeof *p, p);
  ep_cl_launch_arg (&launch, sizeof total, &total);

  local = ep_cl_launch_local_size (&launch);
  return ep_cl_launch_run (&launch, ep_cl_launch_global_size (&launch, total, local), local, error);
}

static gsize
batch_offset (gint64         batch,
              const EpCLMatmul *p,
              const cl_long *strides)
{
  gint64 offset = 0;

  for (guint d = p->batch_ndim; d-- > 0;)
    {
      offset += (batch % p->batch_shape[d]) * strides[d];
      batch /= p->batch_shape[d];
    }

  return offset;
}

/* Floats: CLBlast, one call for the whole batch. The rule made every
 * operand BLAS-ready (rows or columns contiguous), as for OpenBLAS.
 * Single products go through the batched routine too: each CLBlast
 * routine is a program to compile (seconds on a cold PoCL cache), and
 * this way one serves every matmul of a type. */
static gboolean
matmul_clblast (EpOpCall          *call,
                const EpCLMatmul  *p,
                gint64             batch_count,
                GError           **error)
{
  EpOpenCLDevice *cl = ep_opencl_device (call->device);
  EpDType dtype = call->outputs[0]->layout.dtype;
  cl_mem a = ep_opencl_mem (call->inputs[0]);
  cl_mem b = ep_opencl_mem (call->inputs[1]);
  cl_mem c = ep_opencl_mem (call->outputs[0]);
  CLBlastTranspose ta, tb;
  gboolean a_t, b_t;
  gint64 lda, ldb;
  gsize ldc = MAX (p->m, 1);
  g_autofree gsize *offsets = NULL;
  g_autofree gdouble *scalars = NULL;
  gsize *a_offsets, *b_offsets, *c_offsets;
  gfloat *alphas_f, *betas_f;
  gdouble *alphas_d, *betas_d;
  CLBlastStatusCode status;

  if (!ep_opencl_check_dtype (call->device, call->op->name, dtype, error))
    return FALSE;

  ep_blas_layout (p->n, p->k, p->a_row, p->a_col, &a_t, &lda);
  ep_blas_layout (p->k, p->m, p->b_row, p->b_col, &b_t, &ldb);
  ta = a_t ? CLBlastTransposeYes : CLBlastTransposeNo;
  tb = b_t ? CLBlastTransposeYes : CLBlastTransposeNo;

  offsets = ep_try_new (gsize, 3 * batch_count);
  scalars = ep_try_new0 (gdouble, 2 * batch_count);
  if (offsets == NULL || scalars == NULL)
    {
      g_set_error (error, EP_ERROR, EP_ERROR_OUT_OF_MEMORY,
                   _("matmul: cannot allocate the offsets of %" PRId64 " products"),
                   batch_count);
      return FALSE;
    }
  a_offsets = offsets;
  b_offsets = offsets + batch_count;
  c_offsets = offsets + 2 * batch_count;
  alphas_f = (gfloat *) scalars;
  betas_f = alphas_f + batch_count;
  alphas_d = scalars;
  betas_d = scalars + batch_count;

  for (gint64 i = 0; i < batch_count; i++)
    {
      a_offsets[i] = p->a_offset + batch_offset (i, p, p->a_batch);
      b_offsets[i] = p->b_offset + batch_offset (i, p, p->b_batch);
      c_offsets[i] = i * p->n * p->m;
      if (dtype == EP_DTYPE_FLOAT32)
        alphas_f[i] = 1.0f;
      else
        alphas_d[i] = 1.0;
    }

  status = ep_opencl_take_fault (call->device, "CLBlast");
  if (status != CLBlastSuccess)
    ;
  else if (dtype == EP_DTYPE_FLOAT32)
    status = CLBlastSgemmBatched (CLBlastLayoutRowMajor, ta, tb, p->n, p->m, p->k,
                                  alphas_f, a, a_offsets, lda, b, b_offsets, ldb,
                                  betas_f, c, c_offsets, ldc, batch_count, &cl->queue, NULL);
  else
    status = CLBlastDgemmBatched (CLBlastLayoutRowMajor, ta, tb, p->n, p->m, p->k,
                                  alphas_d, a, a_offsets, lda, b, b_offsets, ldb,
                                  betas_d, c, c_offsets, ldc, batch_count, &cl->queue, NULL);

  if (status != CLBlastSuccess)
    return ep_opencl_set_error (error, call->device, call->op->name, "CLBlast batched GEMM", status);

  return TRUE;
}

/* An empty sum: every element of the product is zero. */
static gboolean
fill_zero (EpOpCall  *call,
           GError   **error)
{
  EpTensor *out = call->outputs[0];
  guint64 zero = 0;
  gsize itemsize = ep_dtype_get_itemsize (out->layout.dtype);

  return ep_opencl_fill_buffer (call->device, call->op->name, ep_opencl_mem (out), &zero, itemsize,
                                0, ep_layout_get_size (&out->layout) * itemsize, error);
}

/* Products at least this large (n m k) go to CLBlast: below it the
 * plain kernel is as fast, and it spares CLBlast's compile (seconds on a
 * cold PoCL cache) to programs that only multiply small matrices. */
#define CLBLAST_MIN_PRODUCT (64 * 64 * 64)

static gboolean
opencl_matmul (EpOpCall  *call,
               GError   **error)
{
  EpDType dtype = call->outputs[0]->layout.dtype;
  EpCLMatmul p;
  gint64 batch_count = product_init (&p, call);

  if (p.k == 0)
    return fill_zero (call, error);

  if (ep_dtype_is_floating (dtype) && p.n * p.m * p.k >= CLBLAST_MIN_PRODUCT)
    return matmul_clblast (call, &p, batch_count, error);

  if (!ep_opencl_check_dtype (call->device, call->op->name, dtype, error))
    return FALSE;
  return matmul_kernel (call, &p, batch_count, error);
}

void
ep_opencl_register_linalg (EpKernelFunc *kernels)
{
  kernels[EP_OP_MATMUL] = opencl_matmul;
}
