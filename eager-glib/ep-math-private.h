/* ep-math-private.h: helpers shared by the math families
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#include "ep-op-private.h"

G_BEGIN_DECLS

/* The type a function with float results computes in: floats keep their
 * type, integers give float64 as in NumPy, bool float32 (NumPy's float16
 * is not a type here). */
static inline EpDType
ep_math_float_dtype (EpDType dtype)
{
  if (ep_dtype_is_integer (dtype))
    return EP_DTYPE_FLOAT64;
  if (dtype == EP_DTYPE_BOOL)
    return EP_DTYPE_FLOAT32;
  return dtype;
}

/* ep-ops-unary.c: rules of elementwise functions of one tensor: a float
 * result, the input's type, the input's type but not bool */
gboolean  ep_op_float_infer        (EpOpCall      *call,
                                    GError       **error);
gboolean  ep_op_same_type_infer    (EpOpCall      *call,
                                    GError       **error);
gboolean  ep_op_numeric_infer      (EpOpCall      *call,
                                    GError       **error);

/* ep-ops-generate.c: linspace's elements, for the kernels of every device */
void      ep_linspace_fill         (const EpOpCall *call,
                                    guint8         *data);

/* ep-ops-binary.c: the rule of the arithmetic ops of two tensors */
gboolean  ep_op_arithmetic_infer   (EpOpCall      *call,
                                    GError       **error);

/* ep-ops-reduce.c: the output of a reduction over the canonical
 * call->attrs.axes (kept as 1 with keepdims) */
void      ep_op_set_reduced_output (EpOpCall      *call,
                                    EpDType        dtype);

G_END_DECLS
