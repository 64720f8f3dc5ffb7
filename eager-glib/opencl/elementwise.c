/* elementwise.c: add, sub, mul, div, pow, floordiv, mod, minimum,
 * maximum, where and clip on OpenCL (kernels/elementwise.cl)
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <math.h>

#include "ep-opencl-private.h"
#include "ep-scalar-private.h"
#include "ep-tensor-private.h"

static gboolean
opencl_where (EpOpCall  *call,
              GError   **error)
{
  char name[16];

  g_snprintf (name, sizeof name, "where_%" G_GSIZE_FORMAT,
              ep_dtype_get_itemsize (call->outputs[0]->layout.dtype));

  return ep_cl_map_kernel (call, "elementwise", name, error);
}

/* clip: the bounds in the element type, as cpu_clip() makes them */
static gboolean
opencl_clip (EpOpCall  *call,
             GError   **error)
{
  EpDType dtype = call->inputs[0]->layout.dtype;
  gsize itemsize = ep_dtype_get_itemsize (dtype);
  gdouble low = call->attrs.clip.min, high = call->attrs.clip.max;
  gdouble bounds[2] = { isnan (low) ? -INFINITY : low, isnan (high) ? INFINITY : high };
  guint8 typed[2][8];
  char name[16];
  EpCLLaunch launch;
  EpCLMap map;
  gsize local;

  if (!ep_opencl_check_dtype (call->device, call->op->name, dtype, error))
    return FALSE;

  for (guint b = 0; b < 2; b++)
    {
      gdouble bound = bounds[b];

      switch (dtype)
        {
        case EP_DTYPE_INT32:
          bound = CLAMP (bound, (gdouble) G_MININT32, (gdouble) G_MAXINT32);
          break;
        case EP_DTYPE_INT64:
          /* G_MAXINT64 is not a double: the largest double below it */
          if (bound <= (gdouble) G_MININT64)
            {
              *(gint64 *) typed[b] = G_MININT64;
              continue;
            }
          if (bound >= 9223372036854775808.0)
            {
              *(gint64 *) typed[b] = G_MAXINT64;
              continue;
            }
          break;
        case EP_DTYPE_BOOL:
          bound = CLAMP (bound, 0.0, 1.0);
          break;
        case EP_DTYPE_UINT8:
          bound = CLAMP (bound, 0.0, (gdouble) G_MAXUINT8);
          break;
        case EP_DTYPE_INT8:
          bound = CLAMP (bound, (gdouble) G_MININT8, (gdouble) G_MAXINT8);
          break;
        case EP_DTYPE_INT16:
          bound = CLAMP (bound, (gdouble) G_MININT16, (gdouble) G_MAXINT16);
          break;
        default:
          break;
        }
      ep_scalar_store (typed[b], dtype, bound);
    }

  ep_cl_map_init (&map, call);
  g_snprintf (name, sizeof name, "clip_%s", ep_cl_dtype_suffix (dtype));
  if (!ep_cl_launch_init (&launch, call, "elementwise", name, error))
    return FALSE;

  ep_cl_launch_tensor (&launch, call->outputs[0]);
  ep_cl_launch_tensor (&launch, call->inputs[0]);
  ep_cl_launch_arg (&launch, sizeof map, &map);
  ep_cl_launch_arg (&launch, itemsize, typed[0]);
  ep_cl_launch_arg (&launch, itemsize, typed[1]);

  local = ep_cl_launch_local_size (&launch);
  return ep_cl_launch_run (&launch, ep_cl_launch_global_size (&launch, map.n, local), local, error);
}

/* One kernel per group and type (arith_f32, divmod_i64 …) serves
 * several ops */
static const EpCLGroup groups[] = {
  { "arith", { EP_OP_ADD, EP_OP_SUB, EP_OP_MUL, EP_OP_DIV, EP_OP_POW } },
  { "divmod", { EP_OP_FLOORDIV, EP_OP_MOD, EP_OP_MINIMUM, EP_OP_MAXIMUM } },
};

void
ep_opencl_register_elementwise (EpKernelFunc *kernels)
{
  ep_cl_register_groups (kernels, "elementwise", groups, G_N_ELEMENTS (groups));
  kernels[EP_OP_WHERE] = opencl_where;
  kernels[EP_OP_CLIP] = opencl_clip;
}
