/* ep-opencl-creation.c: full and arange on OpenCL
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include "ep-opencl-private.h"
#include "ep-scalar-private.h"
#include "ep-tensor-private.h"

/* A fill needs no kernel: the element, converted as on the CPU, is the
 * pattern. */
static gboolean
opencl_full (EpOpCall  *call,
             GError   **error)
{
  EpTensor *out = call->outputs[0];
  gsize itemsize = ep_dtype_get_itemsize (out->layout.dtype);
  guint8 pattern[8];

  ep_scalar_store (pattern, out->layout.dtype, call->attrs.values[0]);

  return ep_opencl_fill_buffer (call->device, call->op->name, ep_opencl_mem (out), pattern, itemsize,
                                0, ep_layout_get_size (&out->layout) * itemsize, error);
}

/* The values NumPy's fill starts from, converted to the element type as
 * cpu_arange() converts them. */
static void
arange_values (EpDType  dtype,
               gdouble  start,
               gdouble  step,
               guint8  *first,
               guint8  *second,
               guint8  *delta)
{
  ep_scalar_store (first, dtype, start);
  ep_scalar_store (second, dtype, start + step);

  switch (dtype)
    {
    case EP_DTYPE_FLOAT32:
      *(gfloat *) delta = *(gfloat *) second - *(gfloat *) first;
      break;
    case EP_DTYPE_FLOAT64:
      *(gdouble *) delta = *(gdouble *) second - *(gdouble *) first;
      break;
    case EP_DTYPE_INT32:
      *(gint32 *) delta = (gint32) ((guint32) *(gint32 *) second - (guint32) *(gint32 *) first);
      break;
    case EP_DTYPE_INT64:
      *(gint64 *) delta = (gint64) ((guint64) *(gint64 *) second - (guint64) *(gint64 *) first);
      break;
    case EP_DTYPE_BOOL:
      g_assert_not_reached ();
    }
}

static gboolean
opencl_arange (EpOpCall  *call,
               GError   **error)
{
  EpTensor *out = call->outputs[0];
  EpDType dtype = out->layout.dtype;
  gsize itemsize = ep_dtype_get_itemsize (dtype);
  cl_long n = out->layout.shape[0];
  guint8 first[8], second[8], delta[8];
  char name[16];
  EpCLLaunch launch;
  gsize local;

  if (!ep_opencl_check_dtype (call->device, call->op->name, dtype, error))
    return FALSE;

  arange_values (dtype, call->attrs.values[0], call->attrs.values[2], first, second, delta);

  g_snprintf (name, sizeof name, "arange_%s", ep_cl_dtype_suffix (dtype));
  if (!ep_cl_launch_init (&launch, call, "creation", name, error))
    return FALSE;

  ep_cl_launch_tensor (&launch, out);
  ep_cl_launch_arg (&launch, sizeof n, &n);
  ep_cl_launch_arg (&launch, itemsize, first);
  ep_cl_launch_arg (&launch, itemsize, second);
  ep_cl_launch_arg (&launch, itemsize, delta);

  local = ep_cl_launch_local_size (&launch);
  return ep_cl_launch_run (&launch, ep_cl_launch_global_size (&launch, n, local), local, error);
}

void
ep_opencl_register_creation (EpKernelFunc *kernels)
{
  kernels[EP_OP_FULL] = opencl_full;
  kernels[EP_OP_ARANGE] = opencl_arange;
}
