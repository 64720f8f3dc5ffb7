/* norm.c: layer_norm and batch_norm on OpenCL (kernels/norm.cl)
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * A work-group per row (layer_norm) or per channel (batch_norm): the
 * statistics in two passes in ep_acc, reduced in local memory, then the
 * output. Inputs are contiguous (the rules ask for it).
 */

#include "config.h"

#include "ep-norm-private.h"
#include "ep-opencl-private.h"
#include "ep-tensor-private.h"

/* At most this many work-groups; each loops over the rest */
#define MAX_GROUPS 65536

/* epsilon as the kernels' ep_acc */
static void
launch_epsilon (EpCLLaunch *launch,
                EpOpCall   *call)
{
  gdouble epsilon = call->attrs.norm.epsilon;
  gfloat narrow = (gfloat) epsilon;

  if (ep_opencl_device (call->device)->acc_size == sizeof (gdouble))
    ep_cl_launch_arg (launch, sizeof epsilon, &epsilon);
  else
    ep_cl_launch_arg (launch, sizeof narrow, &narrow);
}

static void
launch_tensor_at (EpCLLaunch *launch,
                  EpTensor   *tensor)
{
  cl_long offset = tensor->layout.offset;

  ep_cl_launch_tensor (launch, tensor);
  ep_cl_launch_arg (launch, sizeof offset, &offset);
}

static gboolean
run_groups (EpCLLaunch  *launch,
            EpOpCall    *call,
            gint64       groups,
            GError     **error)
{
  gsize local = ep_cl_launch_local_size (launch);

  ep_cl_launch_arg (launch, local * ep_opencl_device (call->device)->acc_size, NULL);
  return ep_cl_launch_run (launch, (gsize) CLAMP (groups, 1, MAX_GROUPS) * local, local, error);
}

static gboolean
opencl_layer_norm (EpOpCall  *call,
                   GError   **error)
{
  const EpLayout *in = &call->inputs[0]->layout;
  guint axis = call->attrs.axes[0];
  cl_long rows = 1, n = 1;
  char name[32];
  EpCLLaunch launch;

  if (!ep_opencl_check_dtype (call->device, call->op->name, in->dtype, error))
    return FALSE;

  for (guint d = 0; d < in->ndim; d++)
    if (d < axis)
      rows *= in->shape[d];
    else
      n *= in->shape[d];

  g_snprintf (name, sizeof name, "layer_norm_%s", ep_cl_dtype_suffix (in->dtype));
  if (!ep_cl_launch_init (&launch, call, "norm", name, error))
    return FALSE;

  ep_cl_launch_tensor (&launch, call->outputs[0]);
  for (guint i = 0; i < 3; i++)
    launch_tensor_at (&launch, call->inputs[i]);
  ep_cl_launch_arg (&launch, sizeof rows, &rows);
  ep_cl_launch_arg (&launch, sizeof n, &n);
  launch_epsilon (&launch, call);
  return run_groups (&launch, call, rows, error);
}

static gboolean
opencl_batch_norm (EpOpCall  *call,
                   GError   **error)
{
  const EpLayout *in = &call->inputs[0]->layout;
  guint channel = ep_norm_channel_axis (call->attrs.norm.data_format, in->ndim);
  cl_long outer = 1, inner = 1, c = in->shape[channel];
  cl_int training = call->attrs.norm.training;
  char name[32];
  EpCLLaunch launch;

  if (!ep_opencl_check_dtype (call->device, call->op->name, in->dtype, error))
    return FALSE;

  for (guint d = 0; d < in->ndim; d++)
    if (d < channel)
      outer *= in->shape[d];
    else if (d > channel)
      inner *= in->shape[d];

  g_snprintf (name, sizeof name, "batch_norm_%s", ep_cl_dtype_suffix (in->dtype));
  if (!ep_cl_launch_init (&launch, call, "norm", name, error))
    return FALSE;

  for (guint i = 0; i < 3; i++)
    ep_cl_launch_tensor (&launch, call->outputs[i]);
  for (guint i = 0; i < 5; i++)
    launch_tensor_at (&launch, call->inputs[i]);
  ep_cl_launch_arg (&launch, sizeof outer, &outer);
  ep_cl_launch_arg (&launch, sizeof c, &c);
  ep_cl_launch_arg (&launch, sizeof inner, &inner);
  ep_cl_launch_arg (&launch, sizeof training, &training);
  launch_epsilon (&launch, call);
  return run_groups (&launch, call, c, error);
}

void
ep_opencl_register_norm (EpKernelFunc *kernels)
{
  kernels[EP_OP_LAYER_NORM] = opencl_layer_norm;
  kernels[EP_OP_BATCH_NORM] = opencl_batch_norm;
}
