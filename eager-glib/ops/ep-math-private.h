/* ep-math-private.h: rules shared by several op families
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

/* ops/creation.c: what the kernels of arange and linspace on every
 * device fill from */
void      ep_arange_values         (const EpOpCall *call,
                                    guint8         *first,
                                    guint8         *second,
                                    guint8         *delta);
void      ep_linspace_fill         (const EpOpCall *call,
                                    guint8         *data);

/* ops/elementwise.c: the rule of the arithmetic ops of two tensors */
gboolean  ep_op_arithmetic_infer   (EpOpCall      *call,
                                    GError       **error);

/* ops/reduce.c: the output of a reduction over the canonical
 * call->attrs.axes (kept as 1 with keepdims); the type sums and products
 * accumulate in (integers in int64, as NumPy); one axis, or none for the
 * flattened tensor (cumsum, argmin, argmax) */
void      ep_op_set_reduced_output (EpOpCall      *call,
                                    EpDType        dtype);
EpDType   ep_op_accumulation_dtype (EpDType        dtype);
gboolean  ep_op_one_axis_or_flat   (EpOpCall      *call,
                                    GError       **error);

G_END_DECLS
