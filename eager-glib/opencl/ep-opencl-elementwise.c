/* ep-opencl-elementwise.c: arithmetic, comparisons, functions of one
 * tensor and where on OpenCL (kernels/elementwise.cl)
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include "ep-opencl-private.h"
#include "ep-tensor-private.h"

/* Kernels are named after the op and the type they compute in: add_f32,
 * less_equal_i64, sqrt_f64. The op's rule only lets through types that
 * have a kernel. */
static gboolean
opencl_elementwise (EpOpCall  *call,
                    GError   **error)
{
  EpDType dtype = call->inputs[0]->layout.dtype;
  char name[64];

  if (!ep_opencl_check_dtype (call->device, call->op->name, dtype, error)
      || !ep_opencl_check_dtype (call->device, call->op->name, call->outputs[0]->layout.dtype, error))
    return FALSE;

  g_snprintf (name, sizeof name, "%s_%s", call->op->name,
              ep_cl_dtype_suffix (dtype));

  return ep_cl_map_kernel (call, "elementwise", name, error);
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

static const EpOpId elementwise_ops[] = {
  EP_OP_ADD, EP_OP_SUB, EP_OP_MUL, EP_OP_DIV, EP_OP_POW,
  EP_OP_LESS, EP_OP_LESS_EQUAL, EP_OP_EQUAL, EP_OP_NOT_EQUAL, EP_OP_GREATER, EP_OP_GREATER_EQUAL,
  EP_OP_NEG, EP_OP_ABS, EP_OP_SQUARE, EP_OP_SQRT, EP_OP_EXP, EP_OP_LOG, EP_OP_TANH,
  EP_OP_SIGMOID, EP_OP_RELU,
};

void
ep_opencl_register_elementwise (EpKernelFunc *kernels)
{
  for (guint i = 0; i < G_N_ELEMENTS (elementwise_ops); i++)
    kernels[elementwise_ops[i]] = opencl_elementwise;
  kernels[EP_OP_WHERE] = opencl_where;
}
