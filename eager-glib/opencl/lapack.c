/* lapack.c: inv, slogdet and solve on OpenCL (kernels/lapack.cl); det,
 * cholesky, qr, svd, eigh and lstsq through the CPU's LAPACKE kernels
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <inttypes.h>
#include <glib/gi18n-lib.h>
#include <string.h>

#include "ep-error.h"
#include "ep-opencl-private.h"
#include "ep-shape-private.h"
#include "ep-tensor-private.h"

/* As in kernels/lapack.cl */
typedef struct
{
  cl_long n;
  cl_long k;
  cl_long batch_ndim;
  cl_long a_offset, a_row, a_col;
  cl_long b_offset, b_row, b_col;
  cl_long batch_shape[EP_MAX_DIMS];
  cl_long a_batch[EP_MAX_DIMS];
  cl_long b_batch[EP_MAX_DIMS];
} EpCLLapack;

enum {
  MODE_SLOGDET,
  MODE_INV,
  MODE_SOLVE,
};

/* The stride of each batch dimension of @layout (whose last @core axes
 * are the matrix), 0 where it broadcasts, aligned on the right. */
static void
batch_strides (const EpLayout *layout,
               guint           core,
               const cl_long  *batch_shape,
               guint           batch_ndim,
               cl_long        *strides)
{
  guint own = layout->ndim - core;

  for (guint d = 0; d < batch_ndim; d++)
    {
      gint od = (gint) d - (gint) (batch_ndim - own);

      strides[d] = od >= 0 && layout->shape[od] != 1 ? layout->strides[od] : 0;
    }
}

static gboolean
run_lu (EpOpCall          *call,
        const EpCLLapack  *g,
        gint64             count,
        cl_int             mode,
        cl_mem             x,
        EpTensor          *b,
        EpTensor          *signs,
        EpTensor          *logs,
        GError           **error)
{
  EpDType dtype = call->inputs[0]->layout.dtype;
  gsize itemsize = ep_dtype_get_itemsize (dtype);
  gint64 first = -1;
  char name[16];
  EpCLLaunch launch;
  gsize local;
  cl_mem lu, bad = NULL;
  gboolean ok;

  if (!ep_opencl_check_dtype (call->device, call->op->name, dtype, error))
    return FALSE;

  lu = ep_opencl_create_buffer (call->device, call->op->name,
                                count * g->n * g->n * itemsize, error);
  if (lu == NULL)
    return FALSE;
  bad = ep_cl_flag_new (call, error);
  ok = bad != NULL;

  g_snprintf (name, sizeof name, "lu_%s", ep_cl_dtype_suffix (dtype));
  if (ok && (ok = ep_cl_launch_init (&launch, call, "lapack", name, error)))
    {
      cl_mem a = ep_opencl_mem (call->inputs[0]);

      /* unused buffers are passed as any valid one */
      ep_cl_launch_mem (&launch, lu);
      ep_cl_launch_mem (&launch, x != NULL ? x : lu);
      ep_cl_launch_mem (&launch, a);
      ep_cl_launch_mem (&launch, b != NULL ? ep_opencl_mem (b) : a);
      ep_cl_launch_mem (&launch, bad);
      ep_cl_launch_mem (&launch, signs != NULL ? ep_opencl_mem (signs) : lu);
      ep_cl_launch_mem (&launch, logs != NULL ? ep_opencl_mem (logs) : lu);
      ep_cl_launch_arg (&launch, sizeof *g, g);
      ep_cl_launch_arg (&launch, sizeof mode, &mode);
      local = ep_cl_launch_local_size (&launch);
      ep_cl_launch_arg (&launch, local * itemsize, NULL);
      ep_cl_launch_arg (&launch, local * sizeof (cl_long), NULL);
      ok = ep_cl_launch_run (&launch, (gsize) count * local, local, error);
    }

  /* inv and solve: the first singular matrix, as LAPACK reports it */
  if (ok && mode != MODE_SLOGDET)
    ok = ep_cl_flag_read (call, bad, &first, error);
  if (ok && first >= 0)
    {
      if (count > 1)
        g_set_error (error, EP_ERROR, EP_ERROR_INVALID_ARGUMENT,
                     _("%s: matrix %" PRId64 " of the batch is singular"),
                     call->op->name, (gint64) first);
      else
        g_set_error (error, EP_ERROR, EP_ERROR_INVALID_ARGUMENT,
                     _("%s: the matrix is singular"), call->op->name);
      ok = FALSE;
    }

  clReleaseMemObject (lu);
  if (bad != NULL)
    clReleaseMemObject (bad);
  return ok;
}

/* inv and slogdet: the batch is the input's own */
static void
square_init (EpCLLapack     *g,
             const EpLayout *a,
             gint64         *count)
{
  guint nd = a->ndim;

  memset (g, 0, sizeof *g);
  g->n = a->shape[nd - 1];
  g->k = g->n;
  g->batch_ndim = nd - 2;
  g->a_offset = a->offset;
  g->a_row = a->strides[nd - 2];
  g->a_col = a->strides[nd - 1];
  *count = 1;
  for (guint d = 0; d + 2 < nd; d++)
    {
      g->batch_shape[d] = a->shape[d];
      *count *= a->shape[d];
    }
  batch_strides (a, 2, g->batch_shape, g->batch_ndim, g->a_batch);
}

static gboolean
opencl_inv (EpOpCall  *call,
            GError   **error)
{
  EpCLLapack g;
  gint64 count;

  square_init (&g, &call->inputs[0]->layout, &count);
  return run_lu (call, &g, count, MODE_INV, ep_opencl_mem (call->outputs[0]), NULL, NULL, NULL, error);
}

static gboolean
opencl_slogdet (EpOpCall  *call,
                GError   **error)
{
  EpCLLapack g;
  gint64 count;

  square_init (&g, &call->inputs[0]->layout, &count);
  g.k = 0;
  return run_lu (call, &g, count, MODE_SLOGDET, NULL, NULL,
                 call->outputs[0], call->outputs[1], error);
}

static gboolean
opencl_solve (EpOpCall  *call,
              GError   **error)
{
  const EpLayout *al = &call->inputs[0]->layout, *bl = &call->inputs[1]->layout;
  const EpLayout *ol = &call->outputs[0]->layout;
  gboolean vector = ep_solve_is_vector (al, bl);
  guint core = vector ? 1 : 2;
  EpCLLapack g;
  gint64 count = 1;

  memset (&g, 0, sizeof g);
  g.n = al->shape[al->ndim - 1];
  g.k = vector ? 1 : ol->shape[ol->ndim - 1];
  g.batch_ndim = ol->ndim - core;
  for (guint d = 0; d < g.batch_ndim; d++)
    {
      g.batch_shape[d] = ol->shape[d];
      count *= ol->shape[d];
    }
  g.a_offset = al->offset;
  g.a_row = al->strides[al->ndim - 2];
  g.a_col = al->strides[al->ndim - 1];
  g.b_offset = bl->offset;
  g.b_row = bl->strides[bl->ndim - core];
  g.b_col = vector ? 0 : bl->strides[bl->ndim - 1];
  batch_strides (al, 2, g.batch_shape, g.batch_ndim, g.a_batch);
  batch_strides (bl, core, g.batch_shape, g.batch_ndim, g.b_batch);

  return run_lu (call, &g, count, MODE_SOLVE, ep_opencl_mem (call->outputs[0]),
                 call->inputs[1], NULL, NULL, error);
}


/* det, cholesky, qr, svd, eigh and lstsq: a host round trip. The
 * inputs are read to the host in C order, the CPU's LAPACKE kernel runs
 * there and the outputs are written back. These factorizations are
 * sequential chains of small steps with pivoting and convergence tests
 * (no kernel of ours would beat LAPACK for the sizes a device holds),
 * and the copies cost O(n²) against their O(n³). (The collectives make
 * the same trip: opencl/collective.c.) */
gboolean
ep_opencl_on_host (EpOpCall  *call,
                   GError   **error)
{
  EpDevice *cpu = ep_device_get_cpu ();
  EpKernelFunc kernel = cpu->backend->kernels[call->op->id];
  EpTensor *inputs[2] = { NULL, NULL };
  EpOpCall host = *call;
  gboolean ok = TRUE;

  g_return_val_if_fail (call->n_inputs <= G_N_ELEMENTS (inputs), FALSE);

  if (!ep_opencl_check_dtype (call->device, call->op->name, call->inputs[0]->layout.dtype, error))
    return FALSE;

  for (guint i = 0; ok && i < call->n_inputs; i++)
    {
      const EpLayout *l = &call->inputs[i]->layout;
      g_autoptr(GBytes) bytes = ep_tensor_to_bytes (call->inputs[i], error);
      EpLayout layout;

      ok = bytes != NULL && ep_layout_init (&layout, l->dtype, l->shape, l->ndim, call->op->name, error)
           && (inputs[i] = ep_tensor_new_from_host (cpu, &layout, g_bytes_get_data (bytes, NULL),
                                                    call->op->name, error)) != NULL;
    }
  host.inputs = inputs;
  host.device = cpu;
  memset (host.outputs, 0, sizeof host.outputs);
  for (guint o = 0; ok && o < call->n_outputs; o++)
    {
      host.outputs[o] = ep_tensor_new_empty (cpu, &call->output_layouts[o], error);
      ok = host.outputs[o] != NULL;
    }

  ok = ok && kernel (&host, error);

  for (guint o = 0; ok && o < call->n_outputs; o++)
    {
      const EpLayout *l = &call->output_layouts[o];
      gsize nbytes = (gsize) ep_layout_get_size (l) * ep_dtype_get_itemsize (l->dtype);

      ok = nbytes == 0 || ep_device_write (call->device, call->outputs[o]->storage, 0,
                                           host.outputs[o]->storage->data, nbytes, error);
    }

  for (guint i = 0; i < G_N_ELEMENTS (inputs); i++)
    g_clear_object (&inputs[i]);
  for (guint o = 0; o < call->n_outputs; o++)
    g_clear_object (&host.outputs[o]);
  return ok;
}

void
ep_opencl_register_lapack (EpKernelFunc *kernels)
{
  kernels[EP_OP_INV] = opencl_inv;
  kernels[EP_OP_SLOGDET] = opencl_slogdet;
  kernels[EP_OP_SOLVE] = opencl_solve;
  kernels[EP_OP_DET] = ep_opencl_on_host;
  kernels[EP_OP_CHOLESKY] = ep_opencl_on_host;
  kernels[EP_OP_QR] = ep_opencl_on_host;
  kernels[EP_OP_SVD] = ep_opencl_on_host;
  kernels[EP_OP_EIGH] = ep_opencl_on_host;
  kernels[EP_OP_LSTSQ] = ep_opencl_on_host;
}
