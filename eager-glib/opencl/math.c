/* math.c: neg, abs, sign, square, sqrt, exp, expm1, log, log1p, log2,
 * log10, the trigonometric and hyperbolic functions and their inverses,
 * sigmoid, relu, softplus, round, ceil and floor on OpenCL
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
               EP_OP_SOFTPLUS, EP_OP_SIGN, EP_OP_ROUND, EP_OP_CEIL, EP_OP_FLOOR } },
};

void
ep_opencl_register_math (EpKernelFunc *kernels)
{
  ep_cl_register_groups (kernels, "math", groups, G_N_ELEMENTS (groups));
}
