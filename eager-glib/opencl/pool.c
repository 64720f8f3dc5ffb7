/* pool.c: max_pool2d, avg_pool2d, their gradients and
 * max_pool2d_indices on OpenCL (kernels/pool.cl)
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <string.h>

#include "ep-opencl-private.h"
#include "ep-pool-private.h"
#include "ep-tensor-private.h"

/* As EpPool in kernels/pool.cl */
typedef struct
{
  cl_long n;
  cl_long batch, channels, height, width;
  cl_long out_height, out_width;
  cl_long kernel_h, kernel_w;
  cl_long stride_h, stride_w;
  cl_long pad_h, pad_w;
  cl_long dilation_h, dilation_w;
  cl_long count_include_pad;
  cl_long nhwc;
  cl_long x_offset, grad_offset;
} EpCLPool;

/* Every op of the family: pool_<type> (op, out, x, grad, geometry) over
 * the output's elements; x is the images (or, for avg_pool2d_grad, the
 * gradient), grad the output's gradient for max_pool2d_grad */
static gboolean
opencl_pool (EpOpCall  *call,
             GError   **error)
{
  EpTensor *x = call->inputs[0];
  EpTensor *grad = call->n_inputs > 1 ? call->inputs[1] : x;
  EpTensor *out = call->outputs[0];
  EpDType dtype = x->layout.dtype;
  const gint64 *input_shape = call->op->id == EP_OP_AVG_POOL2D_GRAD ? call->attrs.shape
                                                                    : x->layout.shape;
  cl_int op = call->op->id;
  EpPoolGeometry g;
  EpCLPool p;
  EpCLLaunch launch;
  char name[16];

  if (!ep_opencl_check_dtype (call->device, call->op->name, dtype, error))
    return FALSE;

  ep_pool_geometry (call, input_shape, &g);
  memset (&p, 0, sizeof p);
  p.n = ep_layout_get_size (&out->layout);
  p.batch = g.batch;
  p.channels = g.channels;
  p.height = g.height;
  p.width = g.width;
  p.out_height = g.out_height;
  p.out_width = g.out_width;
  p.kernel_h = g.kernel_h;
  p.kernel_w = g.kernel_w;
  p.stride_h = g.stride_h;
  p.stride_w = g.stride_w;
  p.pad_h = g.pad_h;
  p.pad_w = g.pad_w;
  p.dilation_h = g.dilation_h;
  p.dilation_w = g.dilation_w;
  p.count_include_pad = g.count_include_pad;
  p.nhwc = g.format == EP_DATA_FORMAT_NHWC;
  p.x_offset = x->layout.offset;
  p.grad_offset = grad->layout.offset;

  g_snprintf (name, sizeof name, "pool_%s", ep_cl_dtype_suffix (dtype));
  if (!ep_cl_launch_init (&launch, call, "pool", name, error))
    return FALSE;
  ep_cl_launch_arg (&launch, sizeof op, &op);
  ep_cl_launch_tensor (&launch, out);
  ep_cl_launch_tensor (&launch, x);
  ep_cl_launch_tensor (&launch, grad);
  ep_cl_launch_arg (&launch, sizeof p, &p);
  return ep_cl_launch_run_items (&launch, p.n, error);
}

void
ep_opencl_register_pool (EpKernelFunc *kernels)
{
  kernels[EP_OP_MAX_POOL2D] = opencl_pool;
  kernels[EP_OP_AVG_POOL2D] = opencl_pool;
  kernels[EP_OP_MAX_POOL2D_GRAD] = opencl_pool;
  kernels[EP_OP_AVG_POOL2D_GRAD] = opencl_pool;
  kernels[EP_OP_MAX_POOL2D_INDICES] = opencl_pool;
}
