/* math.c: neg, abs, sign, square, sqrt, exp, expm1, log, log1p, log2,
 * log10, the trigonometric and hyperbolic functions and their inverses,
 * sigmoid, relu, softplus, round, ceil, floor, erf, erfc and gelu on OpenCL
 * (kernels/math.cl)
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include "ep-opencl-private.h"

/* One kernel per group and type (unary_f32, math1_i64 …) serves several
 * ops */
static const EpCLGroup groups[] = {
  { "unary", { EP_OP_NEG, EP_OP_ABS, EP_OP_SQUARE, EP_OP_SQRT, EP_OP_EXP,
               EP_OP_LOG, EP_OP_TANH, EP_OP_SIGMOID, EP_OP_RELU } },
  { "math1", { EP_OP_EXPM1, EP_OP_LOG1P, EP_OP_LOG2, EP_OP_LOG10, EP_OP_SIN, EP_OP_COS,
               EP_OP_TAN, EP_OP_SINH, EP_OP_COSH, EP_OP_ARCSIN, EP_OP_ARCCOS,
               EP_OP_ARCTAN, EP_OP_ARCSINH, EP_OP_ARCCOSH, EP_OP_ARCTANH,
               EP_OP_SOFTPLUS, EP_OP_SIGN, EP_OP_ROUND, EP_OP_CEIL, EP_OP_FLOOR,
               EP_OP_ERF, EP_OP_ERFC } },
};

/* gelu: its own kernel, the approximation as its selector */
static gboolean
opencl_gelu (EpOpCall  *call,
             GError   **error)
{
  EpDType dtype = call->inputs[0]->layout.dtype;
  char name[16];

  if (!ep_opencl_check_dtype (call->device, call->op->name, dtype, error))
    return FALSE;

  g_snprintf (name, sizeof name, "gelu_%s", ep_cl_dtype_suffix (dtype));
  return ep_cl_map_kernel_with (call, "math", name, (cl_int) call->attrs.gelu.approximate, error);
}

void
ep_opencl_register_math (EpKernelFunc *kernels)
{
  ep_cl_register_groups (kernels, "math", groups, G_N_ELEMENTS (groups));
  kernels[EP_OP_GELU] = opencl_gelu;
}
