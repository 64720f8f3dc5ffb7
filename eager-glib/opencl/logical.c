/* logical.c: less, less_equal, equal, not_equal, greater,
 * greater_equal, logical_and, logical_or, logical_not, isnan, isinf and
 * isfinite on OpenCL (kernels/logical.cl)
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include "ep-opencl-private.h"

/* One kernel per group and type (compare_f32, classify_b …) serves
 * several ops; the logic ops take bool only, so they are cases of the
 * bool kernels. */
static const EpCLGroup groups[] = {
  { "compare", { EP_OP_LESS, EP_OP_LESS_EQUAL, EP_OP_EQUAL, EP_OP_NOT_EQUAL,
                 EP_OP_GREATER, EP_OP_GREATER_EQUAL, EP_OP_LOGICAL_AND, EP_OP_LOGICAL_OR } },
  { "classify", { EP_OP_ISNAN, EP_OP_ISINF, EP_OP_ISFINITE, EP_OP_LOGICAL_NOT } },
};

void
ep_opencl_register_logical (EpKernelFunc *kernels)
{
  ep_cl_register_groups (kernels, "logical", groups, G_N_ELEMENTS (groups));
}
