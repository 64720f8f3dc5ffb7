/* reduce.c: sum, mean, max, min, prod, all, any, argmin and argmax on
 * OpenCL (kernels/reduce.cl)
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include "ep-opencl-private.h"
#include "ep-scalar-private.h"
#include "ep-tensor-private.h"

/* Short reductions, or many outputs: a work-item per output keeps every
 * item busy. Otherwise work-groups fold each output. */
static gboolean
use_work_items (const EpCLReduce *g)
{
  return g->k <= 64 || (g->m >= 4096 && g->k <= 1024);
}

static gboolean
launch_work_items (EpOpCall          *call,
                   EpOpId             op,
                   const EpCLReduce  *g,
                   cl_mem             out,
                   cl_mem             in,
                   const guint8      *divisor,
                   GError           **error)
{
  EpDType dtype = call->inputs[0]->layout.dtype;
  char name[32];
  EpCLLaunch launch;
  gsize local;

  cl_int selector = op;

  g_snprintf (name, sizeof name, "reduce_wi_%s", ep_cl_dtype_suffix (dtype));
  if (!ep_cl_launch_init (&launch, call, "reduce", name, error))
    return FALSE;

  ep_cl_launch_mem (&launch, out);
  ep_cl_launch_mem (&launch, in);
  ep_cl_launch_arg (&launch, sizeof *g, g);
  ep_cl_launch_arg (&launch, ep_dtype_get_itemsize (dtype), divisor);
  ep_cl_launch_arg (&launch, sizeof selector, &selector);

  local = ep_cl_launch_local_size (&launch);
  return ep_cl_launch_run (&launch, ep_cl_launch_global_size (&launch, g->m, local), local, error);
}

static gboolean
launch_work_groups (EpOpCall          *call,
                    EpOpId             op,
                    const EpCLReduce  *g,
                    cl_long            groups,
                    cl_mem             out,
                    cl_mem             in,
                    const guint8      *divisor,
                    GError           **error)
{
  EpDType dtype = call->inputs[0]->layout.dtype;
  gsize itemsize = ep_dtype_get_itemsize (dtype);
  cl_long chunk = (g->k + groups - 1) / groups;
  char name[32];
  EpCLLaunch launch;
  gsize local;

  cl_int selector = op;

  g_snprintf (name, sizeof name, "reduce_wg_%s", ep_cl_dtype_suffix (dtype));
  if (!ep_cl_launch_init (&launch, call, "reduce", name, error))
    return FALSE;

  local = ep_cl_launch_local_size (&launch);
  ep_cl_launch_mem (&launch, out);
  ep_cl_launch_mem (&launch, in);
  ep_cl_launch_arg (&launch, sizeof *g, g);
  ep_cl_launch_arg (&launch, sizeof groups, &groups);
  ep_cl_launch_arg (&launch, sizeof chunk, &chunk);
  ep_cl_launch_arg (&launch, itemsize, divisor);
  ep_cl_launch_arg (&launch, local * itemsize, NULL);
  ep_cl_launch_arg (&launch, sizeof selector, &selector);

  return ep_cl_launch_run (&launch, (gsize) (g->m * groups) * local, local, error);
}

static gboolean
opencl_reduce (EpOpCall  *call,
               GError   **error)
{
  EpTensor *in = call->inputs[0];
  EpDType dtype = in->layout.dtype;
  gsize itemsize = ep_dtype_get_itemsize (dtype);
  const char *op_name = call->op->name;
  EpOpId op = call->op->id;
  gboolean mean = call->op->id == EP_OP_MEAN;
  guint8 divisor[8];
  EpCLReduce g, partial;
  cl_long groups;
  cl_mem partials;
  gboolean ok;

  if (!ep_opencl_check_dtype (call->device, op_name, dtype, error))
    return FALSE;

  ep_cl_reduce_init (&g, &in->layout, call->attrs.axes, call->attrs.n_axes);
  ep_scalar_store (divisor, dtype, mean ? (gdouble) g.k : 1.0);

  if (use_work_items (&g))
    return launch_work_items (call, op, &g, ep_opencl_mem (call->outputs[0]),
                              ep_opencl_mem (in), divisor, error);

  /* Enough groups to fill the device when there are few outputs; the
   * partial results are folded by a second pass. */
  groups = CLAMP ((g.k + 1023) / 1024, 1, MAX (1, 256 / g.m));
  if (groups == 1)
    return launch_work_groups (call, op, &g, 1, ep_opencl_mem (call->outputs[0]),
                               ep_opencl_mem (in), divisor, error);

  partials = ep_opencl_create_buffer (call->device, op_name, g.m * groups * itemsize, error);
  if (partials == NULL)
    return FALSE;

  memset (&partial, 0, sizeof partial);
  partial.m = g.m;
  partial.k = groups;
  partial.out_ndim = 1;
  partial.out_shape[0] = g.m;
  partial.out_strides[0] = groups;
  partial.red_ndim = 1;
  partial.red_shape[0] = groups;
  partial.red_strides[0] = 1;

  ok = launch_work_groups (call, mean ? EP_OP_SUM : op, &g, groups, partials,
                           ep_opencl_mem (in), divisor, error)
       && launch_work_groups (call, op, &partial, 1, ep_opencl_mem (call->outputs[0]),
                              partials, divisor, error);

  /* Released now, freed by OpenCL once the kernels are done with it. */
  clReleaseMemObject (partials);
  return ok;
}

/* argmin, argmax: the output seen with the searched axis kept as 1 */
static gboolean
opencl_arg_extremum (EpOpCall  *call,
                     GError   **error)
{
  EpTensor *in = call->inputs[0], *out = call->outputs[0];
  EpDType dtype = in->layout.dtype;
  EpLayout in_layout, out_layout;
  guint axis = ep_cl_axis_or_flat (call, &in_layout);
  const EpLayout *layouts[2] = { &out_layout, &in_layout };
  char name[24];
  EpCLRows rows;

  if (!ep_opencl_check_dtype (call->device, call->op->name, dtype, error))
    return FALSE;

  out_layout = in_layout;
  out_layout.dtype = EP_DTYPE_INT64;
  out_layout.shape[axis] = 1;
  out_layout.offset = 0;
  ep_layout_set_contiguous (&out_layout);
  ep_cl_rows_init (&rows, layouts, 2, axis, in_layout.shape[axis]);

  g_snprintf (name, sizeof name, "%s_%s", call->op->name, ep_cl_dtype_suffix (dtype));
  return ep_cl_rows_kernel (call, "reduce", name, out, in, &rows, error);
}

void
ep_opencl_register_reduce (EpKernelFunc *kernels)
{
  kernels[EP_OP_SUM] = opencl_reduce;
  kernels[EP_OP_MEAN] = opencl_reduce;
  kernels[EP_OP_MAX] = opencl_reduce;
  kernels[EP_OP_MIN] = opencl_reduce;
  kernels[EP_OP_PROD] = opencl_reduce;
  kernels[EP_OP_ALL] = opencl_reduce;
  kernels[EP_OP_ANY] = opencl_reduce;
  kernels[EP_OP_ARGMIN] = opencl_arg_extremum;
  kernels[EP_OP_ARGMAX] = opencl_arg_extremum;
}
