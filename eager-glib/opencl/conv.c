/* conv.c: 2-D convolutions on OpenCL: CLBlast's convgemm for large
 * single-group NCHW forward passes, kernels/conv.cl for the rest
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * CLBlast's convolution routines take one NCHW layout and one group
 * (convgemm: a batch of images; im2col and col2im: one image), so the
 * NHWC layout, groups and the two gradients run the direct kernels of
 * kernels/conv.cl, which sum each result element in a fixed order.
 */

#include "config.h"

#include "ep-conv-private.h"
#include "ep-opencl-private.h"
#include "ep-tensor-private.h"

#include <clblast_c.h>

/* As in kernels/conv.cl */
typedef struct
{
  cl_long n, c, h, w;
  cl_long o, kh, kw;
  cl_long oh, ow;
  cl_long stride_h, stride_w, pad_h, pad_w, dilation_h, dilation_w;
  cl_long groups, nhwc;
} EpCLConv;

/* Convolutions at least this large (multiply-adds) go to CLBlast: below
 * it the direct kernel is as fast and spares CLBlast's compile (seconds
 * on a cold PoCL cache) */
#define CLBLAST_MIN_WORK (1 << 22)

static gboolean
fits_convgemm (const EpOpCall       *call,
               const EpConvGeometry *g)
{
  gint64 outputs = g->n * g->o * g->oh * g->ow, taps = g->c * g->kh * g->kw, work;

  /* (both are element counts of tensors that exist: no overflow) */
  if (__builtin_mul_overflow (outputs, taps, &work))
    work = G_MAXINT64;
  /* CLBlast computes its offsets in 32 bits */
  if (MAX (MAX (g->pad_h, g->pad_w), MAX (g->stride_h, g->stride_w)) > G_MAXINT32 / 4
      || MAX (g->dilation_h, g->dilation_w) > G_MAXINT32 / 4
      || MAX ((g->kh - 1) * g->dilation_h, (g->kw - 1) * g->dilation_w) > G_MAXINT32 / 4)
    return FALSE;
  return call->op->id == EP_OP_CONV2D && !g->nhwc && g->groups == 1 && work >= CLBLAST_MIN_WORK;
}

static gboolean
run_convgemm (EpOpCall             *call,
              const EpConvGeometry *g,
              GError              **error)
{
  EpOpenCLDevice *cl = ep_opencl_device (call->device);
  EpTensor *x = call->inputs[0], *w = call->inputs[1], *y = call->outputs[0];
  CLBlastStatusCode status;

  status = ep_opencl_take_fault (call->device, "CLBlast");
  if (status != CLBlastSuccess)
    ;
  else if (y->layout.dtype == EP_DTYPE_FLOAT32)
    status = CLBlastSconvgemm (CLBlastKernelModeCrossCorrelation, g->c, g->h, g->w, g->kh, g->kw,
                               g->pad_h, g->pad_w, g->stride_h, g->stride_w,
                               g->dilation_h, g->dilation_w, g->o, g->n,
                               ep_opencl_mem (x), x->layout.offset, ep_opencl_mem (w), w->layout.offset,
                               ep_opencl_mem (y), 0, &cl->queue, NULL);
  else
    status = CLBlastDconvgemm (CLBlastKernelModeCrossCorrelation, g->c, g->h, g->w, g->kh, g->kw,
                               g->pad_h, g->pad_w, g->stride_h, g->stride_w,
                               g->dilation_h, g->dilation_w, g->o, g->n,
                               ep_opencl_mem (x), x->layout.offset, ep_opencl_mem (w), w->layout.offset,
                               ep_opencl_mem (y), 0, &cl->queue, NULL);

  if (status != CLBlastSuccess)
    return ep_opencl_set_error (error, call->device, call->op->name, "CLBlast convgemm", status);
  return TRUE;
}

static gboolean
run_direct (EpOpCall             *call,
            const EpConvGeometry *g,
            GError              **error)
{
  EpCLConv p = {
    g->n, g->c, g->h, g->w, g->o, g->kh, g->kw, g->oh, g->ow,
    g->stride_h, g->stride_w, g->pad_h, g->pad_w, g->dilation_h, g->dilation_w,
    g->groups, g->nhwc,
  };
  cl_long op = call->op->id;
  cl_long total = ep_layout_get_size (&call->outputs[0]->layout);
  char name[16];
  EpCLLaunch launch;
  gsize local;

  g_snprintf (name, sizeof name, "conv_%s", ep_cl_dtype_suffix (call->outputs[0]->layout.dtype));
  if (!ep_cl_launch_init (&launch, call, "conv", name, error))
    return FALSE;

  ep_cl_launch_arg (&launch, sizeof op, &op);
  ep_cl_launch_tensor (&launch, call->outputs[0]);
  ep_cl_launch_tensor (&launch, call->inputs[0]);
  ep_cl_launch_tensor (&launch, call->inputs[1]);
  ep_cl_launch_arg (&launch, sizeof p, &p);
  ep_cl_launch_arg (&launch, sizeof total, &total);

  local = ep_cl_launch_local_size (&launch);
  return ep_cl_launch_run (&launch, ep_cl_launch_global_size (&launch, total, local), local, error);
}

static gboolean
opencl_conv (EpOpCall  *call,
             GError   **error)
{
  EpTensor *out = call->outputs[0];
  EpConvGeometry g;

  if (!ep_opencl_check_dtype (call->device, call->op->name, out->layout.dtype, error))
    return FALSE;

  ep_conv_geometry_from_call (call, &g);
  if (fits_convgemm (call, &g))
    return run_convgemm (call, &g, error);
  return run_direct (call, &g, error);
}

void
ep_opencl_register_conv (EpKernelFunc *kernels)
{
  kernels[EP_OP_CONV2D] = opencl_conv;
  kernels[EP_OP_CONV2D_INPUT_GRAD] = opencl_conv;
  kernels[EP_OP_CONV2D_WEIGHT_GRAD] = opencl_conv;
}
