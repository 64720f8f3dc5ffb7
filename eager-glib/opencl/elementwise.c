/* ep-opencl-elementwise.c: arithmetic, comparisons, functions of one
 * tensor and where (kernels/elementwise.cl); the math and logic ops
 * (kernels/math.cl) on OpenCL
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <math.h>

#include "ep-opencl-private.h"
#include "ep-scalar-private.h"
#include "ep-tensor-private.h"

/* The program and the kernel family of each elementwise op: one kernel
 * per family and type serves several ops (kernels/elementwise.cl). */
static const char *programs[EP_N_OPS];
static const char *families[EP_N_OPS];

/* Kernels are named after the family and the type they compute in
 * (arith_f32, compare_i64, unary_f64) and take the op. The op's rule only
 * lets through types that have a case. */
static gboolean
opencl_elementwise (EpOpCall  *call,
                    GError   **error)
{
  EpDType dtype = call->inputs[0]->layout.dtype;
  char name[64];

  if (!ep_opencl_check_dtype (call->device, call->op->name, dtype, error)
      || !ep_opencl_check_dtype (call->device, call->op->name, call->outputs[0]->layout.dtype, error))
    return FALSE;

  g_snprintf (name, sizeof name, "%s_%s", families[call->op->id], ep_cl_dtype_suffix (dtype));

  return ep_cl_map_kernel_with (call, programs[call->op->id], name, call->op->id, error);
}

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
  gdouble low = call->attrs.values[0], high = call->attrs.values[1];
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
        default:
          break;
        }
      ep_scalar_store (typed[b], dtype, bound);
    }

  ep_cl_map_init (&map, call);
  g_snprintf (name, sizeof name, "clip_%s", ep_cl_dtype_suffix (dtype));
  if (!ep_cl_launch_init (&launch, call, "math", name, error))
    return FALSE;

  ep_cl_launch_tensor (&launch, call->outputs[0]);
  ep_cl_launch_tensor (&launch, call->inputs[0]);
  ep_cl_launch_arg (&launch, sizeof map, &map);
  ep_cl_launch_arg (&launch, itemsize, typed[0]);
  ep_cl_launch_arg (&launch, itemsize, typed[1]);

  local = ep_cl_launch_local_size (&launch);
  return ep_cl_launch_run (&launch, ep_cl_launch_global_size (&launch, map.n, local), local, error);
}

static const struct
{
  const char *program;
  const char *family;
  EpOpId      ops[24];
} families_table[] = {
  { "elementwise", "arith", { EP_OP_ADD, EP_OP_SUB, EP_OP_MUL, EP_OP_DIV, EP_OP_POW } },
  { "elementwise", "compare", { EP_OP_LESS, EP_OP_LESS_EQUAL, EP_OP_EQUAL, EP_OP_NOT_EQUAL,
                                EP_OP_GREATER, EP_OP_GREATER_EQUAL } },
  { "elementwise", "unary", { EP_OP_NEG, EP_OP_ABS, EP_OP_SQUARE, EP_OP_SQRT, EP_OP_EXP,
                              EP_OP_LOG, EP_OP_TANH, EP_OP_SIGMOID, EP_OP_RELU } },
  { "math", "math2", { EP_OP_FLOORDIV, EP_OP_MOD, EP_OP_MINIMUM, EP_OP_MAXIMUM,
                       EP_OP_LOGICAL_AND, EP_OP_LOGICAL_OR } },
  { "math", "math1", { EP_OP_EXPM1, EP_OP_LOG1P, EP_OP_LOG2, EP_OP_LOG10, EP_OP_SIN, EP_OP_COS,
                       EP_OP_TAN, EP_OP_SINH, EP_OP_COSH, EP_OP_ARCSIN, EP_OP_ARCCOS,
                       EP_OP_ARCTAN, EP_OP_ARCSINH, EP_OP_ARCCOSH, EP_OP_ARCTANH,
                       EP_OP_SOFTPLUS, EP_OP_SIGN, EP_OP_ROUND, EP_OP_CEIL, EP_OP_FLOOR,
                       EP_OP_LOGICAL_NOT } },
  { "math", "classify", { EP_OP_ISNAN, EP_OP_ISINF, EP_OP_ISFINITE } },
};

void
ep_opencl_register_elementwise (EpKernelFunc *kernels)
{
  for (guint f = 0; f < G_N_ELEMENTS (families_table); f++)
    for (guint i = 0; i < G_N_ELEMENTS (families_table[f].ops); i++)
      {
        EpOpId op = families_table[f].ops[i];

        /* the list ends at the first 0, which is no elementwise op */
        if (op == 0)
          break;
        kernels[op] = opencl_elementwise;
        programs[op] = families_table[f].program;
        families[op] = families_table[f].family;
      }
  kernels[EP_OP_WHERE] = opencl_where;
  kernels[EP_OP_CLIP] = opencl_clip;
}
