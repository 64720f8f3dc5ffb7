/* cast.c: astype, contiguous and to_device on OpenCL
 * (kernels/cast.cl)
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include "cpu/ep-cpu-private.h"
#include "ep-opencl-private.h"
#include "ep-tensor-private.h"

static gboolean
opencl_astype (EpOpCall  *call,
               GError   **error)
{
  char name[32];

  if (!ep_opencl_check_dtype (call->device, call->op->name, call->inputs[0]->layout.dtype, error)
      || !ep_opencl_check_dtype (call->device, call->op->name, call->outputs[0]->layout.dtype, error))
    return FALSE;

  /* one kernel per source type, the target type an argument */
  g_snprintf (name, sizeof name, "cast_from_%s", ep_cl_dtype_suffix (call->inputs[0]->layout.dtype));

  return ep_cl_map_kernel_with (call, "cast", name, call->outputs[0]->layout.dtype, error);
}

static gboolean
opencl_contiguous (EpOpCall  *call,
                   GError   **error)
{
  char name[16];

  g_snprintf (name, sizeof name, "copy_%" G_GSIZE_FORMAT,
              ep_dtype_get_itemsize (call->inputs[0]->layout.dtype));

  return ep_cl_map_kernel (call, "cast", name, error);
}

void
ep_opencl_register_cast (EpKernelFunc *kernels)
{
  kernels[EP_OP_ASTYPE] = opencl_astype;
  kernels[EP_OP_CONTIGUOUS] = opencl_contiguous;
  kernels[EP_OP_TO_DEVICE] = ep_copy_to_device_kernel;
}
