/* random.c: uniform and normal on OpenCL (kernels/random.cl)
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include "ep-opencl-private.h"
#include "ep-tensor-private.h"

/* uniform, normal: the recipe is in ep-philox-private.h */
static gboolean
opencl_random (EpOpCall  *call,
               GError   **error)
{
  EpTensor *out = call->outputs[0];
  const EpOpAttrs *attrs = &call->attrs;
  cl_ulong seed = attrs->random.seed, stream = attrs->random.stream;
  cl_long size = ep_layout_get_size (&out->layout);
  gboolean normal = call->op->id == EP_OP_NORMAL;
  gboolean f32 = out->layout.dtype == EP_DTYPE_FLOAT32;
  gdouble a = attrs->random.a, b = attrs->random.b;
  char name[24];
  EpCLLaunch launch;
  gsize local;
  cl_long items;

  if (!ep_opencl_check_dtype (call->device, call->op->name, out->layout.dtype, error))
    return FALSE;

  g_snprintf (name, sizeof name, "%s_%s", call->op->name, ep_cl_dtype_suffix (out->layout.dtype));
  if (!ep_cl_launch_init (&launch, call, "random", name, error))
    return FALSE;

  ep_cl_launch_tensor (&launch, out);
  ep_cl_launch_arg (&launch, sizeof seed, &seed);
  ep_cl_launch_arg (&launch, sizeof stream, &stream);
  ep_cl_launch_arg (&launch, sizeof size, &size);
  if (f32)
    {
      cl_float fa = (cl_float) a, fb = (cl_float) b, span = fb - fa;

      ep_cl_launch_arg (&launch, sizeof fa, &fa);
      ep_cl_launch_arg (&launch, sizeof fb, &fb);
      if (!normal)
        ep_cl_launch_arg (&launch, sizeof span, &span);
    }
  else
    {
      cl_double span = b - a;

      ep_cl_launch_arg (&launch, sizeof a, &a);
      ep_cl_launch_arg (&launch, sizeof b, &b);
      if (!normal)
        ep_cl_launch_arg (&launch, sizeof span, &span);
    }

  /* one work-item per Philox block */
  items = normal ? (f32 ? (size + 1) / 2 : size) : (f32 ? (size + 3) / 4 : (size + 1) / 2);
  local = ep_cl_launch_local_size (&launch);
  return ep_cl_launch_run (&launch, ep_cl_launch_global_size (&launch, items, local), local, error);
}

void
ep_opencl_register_random (EpKernelFunc *kernels)
{
  kernels[EP_OP_UNIFORM] = opencl_random;
  kernels[EP_OP_NORMAL] = opencl_random;
}
