/* scan.c: cumsum and cumprod on OpenCL (kernels/scan.cl)
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include "ep-opencl-private.h"
#include "ep-tensor-private.h"

/* cumsum, cumprod: along attrs.axes[0], or over the flattened
 * (contiguous) input */
static gboolean
opencl_scan (EpOpCall  *call,
             GError   **error)
{
  EpTensor *in = call->inputs[0], *out = call->outputs[0];
  EpDType dtype = in->layout.dtype;
  EpLayout in_layout;
  guint axis = ep_cl_axis_or_flat (call, &in_layout);
  const EpLayout *layouts[2] = { &out->layout, &in_layout };
  char name[24];
  EpCLRows rows;

  if (!ep_opencl_check_dtype (call->device, call->op->name, dtype, error))
    return FALSE;

  ep_cl_rows_init (&rows, layouts, 2, axis, in_layout.shape[axis]);

  g_snprintf (name, sizeof name, "%s_%s", call->op->name, ep_cl_dtype_suffix (dtype));
  return ep_cl_rows_kernel (call, "scan", name, out, in, &rows, error);
}

void
ep_opencl_register_scan (EpKernelFunc *kernels)
{
  kernels[EP_OP_CUMSUM] = opencl_scan;
  kernels[EP_OP_CUMPROD] = opencl_scan;
}
