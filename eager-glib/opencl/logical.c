/* logical.c: less, less_equal, equal, not_equal, greater,
 * greater_equal, logical_and, logical_or, logical_not, isnan, isinf,
 * isfinite and isclose on OpenCL (kernels/logical.cl)
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include "ep-opencl-private.h"
#include "ep-scalar-private.h"
#include "ep-tensor-private.h"

/* One kernel per group and type (compare_f32, classify_b …) serves
 * several ops; the logic ops take bool only, so they are cases of the
 * bool kernels. */
static const EpCLGroup groups[] = {
  { "compare", { EP_OP_LESS, EP_OP_LESS_EQUAL, EP_OP_EQUAL, EP_OP_NOT_EQUAL,
                 EP_OP_GREATER, EP_OP_GREATER_EQUAL, EP_OP_LOGICAL_AND, EP_OP_LOGICAL_OR } },
  { "classify", { EP_OP_ISNAN, EP_OP_ISINF, EP_OP_ISFINITE, EP_OP_LOGICAL_NOT } },
};

/* isclose: its own kernel, the tolerances in the element type */
static gboolean
opencl_isclose (EpOpCall  *call,
                GError   **error)
{
  EpDType dtype = call->inputs[0]->layout.dtype;
  gsize itemsize = ep_dtype_get_itemsize (dtype);
  guint8 rtol[8], atol[8];
  cl_int equal_nan = call->attrs.isclose.equal_nan != FALSE;
  char name[16];
  EpCLLaunch launch;
  EpCLMap map;
  gsize local;

  if (!ep_opencl_check_dtype (call->device, call->op->name, dtype, error))
    return FALSE;

  ep_scalar_store (rtol, dtype, call->attrs.isclose.rtol);
  ep_scalar_store (atol, dtype, call->attrs.isclose.atol);
  ep_cl_map_init (&map, call);
  g_snprintf (name, sizeof name, "isclose_%s", ep_cl_dtype_suffix (dtype));
  if (!ep_cl_launch_init (&launch, call, "logical", name, error))
    return FALSE;

  ep_cl_launch_tensor (&launch, call->outputs[0]);
  ep_cl_launch_tensor (&launch, call->inputs[0]);
  ep_cl_launch_tensor (&launch, call->inputs[1]);
  ep_cl_launch_arg (&launch, sizeof map, &map);
  ep_cl_launch_arg (&launch, itemsize, rtol);
  ep_cl_launch_arg (&launch, itemsize, atol);
  ep_cl_launch_arg (&launch, sizeof equal_nan, &equal_nan);

  local = ep_cl_launch_local_size (&launch);
  return ep_cl_launch_run (&launch, ep_cl_launch_global_size (&launch, map.n, local), local, error);
}

void
ep_opencl_register_logical (EpKernelFunc *kernels)
{
  ep_cl_register_groups (kernels, "logical", groups, G_N_ELEMENTS (groups));
  kernels[EP_OP_ISCLOSE] = opencl_isclose;
}
