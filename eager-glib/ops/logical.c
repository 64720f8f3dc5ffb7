/* ops/logical.c: comparisons, logic on bool tensors, classification of
 * floats, isclose and allclose
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <glib/gi18n-lib.h>
#include <inttypes.h>
#include <math.h>

#include "ep-dispatch-private.h"
#include "ep-error.h"
#include "ep-error-private.h"
#include "ep-grad-private.h"
#include "ep-math-private.h"

static gboolean
comparison_infer (EpOpCall  *call,
                  GError   **error)
{
  EpLayout *out = &call->output_layouts[0];

  if (!ep_op_broadcast (call, out, error))
    return FALSE;

  out->dtype = EP_DTYPE_BOOL;
  ep_op_cast_all_inputs (call, ep_op_result_dtype (call->inputs, 2));
  return TRUE;
}

#define COMPARISON_OP(ID, op_name)                                          \
  const EpOpDef ep_op_##op_name = {                                         \
    .id = EP_OP_##ID, .name = #op_name,                                     \
    EP_INPUTS (EP_INPUT ("self"), EP_INPUT ("other")),                      \
    .flags = EP_OP_FLAG_UINT8,                                              \
    .infer = comparison_infer,                                              \
  };

COMPARISON_OP (LESS, less)
COMPARISON_OP (LESS_EQUAL, less_equal)
COMPARISON_OP (EQUAL, equal)
COMPARISON_OP (NOT_EQUAL, not_equal)
COMPARISON_OP (GREATER, greater)
COMPARISON_OP (GREATER_EQUAL, greater_equal)

/**
 * ep_tensor_less:
 * @self: a tensor
 * @other: a tensor broadcastable with @self
 * @error: return location for an error
 *
 * Compares elementwise after promoting both to a common type.
 *
 * Returns: (transfer full): the bool tensor `self < other`
 */
EP_DEFINE_BINARY_METHOD (less)

/**
 * ep_tensor_less_scalar:
 * @self: a tensor
 * @other: a number
 * @error: return location for an error
 *
 * Compares each element with a weak scalar (see
 * [ctor@Tensor.new_weak_scalar]), as [method@Tensor.less] does: an
 * integral @other compares as an integer, any other as a float (so an
 * integer tensor compares in float64).
 *
 * Returns: (transfer full): the bool tensor `self < other`
 */
EP_DEFINE_SCALAR_METHOD (less)

/**
 * ep_tensor_less_equal:
 * @self: a tensor
 * @other: a tensor broadcastable with @self
 * @error: return location for an error
 *
 * Compares elementwise after promoting both to a common type.
 *
 * Returns: (transfer full): the bool tensor `self <= other`
 */
EP_DEFINE_BINARY_METHOD (less_equal)

/**
 * ep_tensor_less_equal_scalar:
 * @self: a tensor
 * @other: a number
 * @error: return location for an error
 *
 * Compares each element with a weak scalar (see
 * [ctor@Tensor.new_weak_scalar]), as [method@Tensor.less_equal] does: an
 * integral @other compares as an integer, any other as a float (so an
 * integer tensor compares in float64).
 *
 * Returns: (transfer full): the bool tensor `self <= other`
 */
EP_DEFINE_SCALAR_METHOD (less_equal)

/**
 * ep_tensor_equal:
 * @self: a tensor
 * @other: a tensor broadcastable with @self
 * @error: return location for an error
 *
 * Compares elementwise after promoting both to a common type; NaN equals
 * nothing.
 *
 * Returns: (transfer full): the bool tensor `self == other`
 */
EP_DEFINE_BINARY_METHOD (equal)

/**
 * ep_tensor_equal_scalar:
 * @self: a tensor
 * @other: a number
 * @error: return location for an error
 *
 * Compares each element with a weak scalar (see
 * [ctor@Tensor.new_weak_scalar]), as [method@Tensor.equal] does: an
 * integral @other compares as an integer, any other as a float (so an
 * integer tensor compares in float64).
 *
 * Returns: (transfer full): the bool tensor `self == other`
 */
EP_DEFINE_SCALAR_METHOD (equal)

/**
 * ep_tensor_not_equal:
 * @self: a tensor
 * @other: a tensor broadcastable with @self
 * @error: return location for an error
 *
 * Compares elementwise after promoting both to a common type.
 *
 * Returns: (transfer full): the bool tensor `self != other`
 */
EP_DEFINE_BINARY_METHOD (not_equal)

/**
 * ep_tensor_not_equal_scalar:
 * @self: a tensor
 * @other: a number
 * @error: return location for an error
 *
 * Compares each element with a weak scalar (see
 * [ctor@Tensor.new_weak_scalar]), as [method@Tensor.not_equal] does: an
 * integral @other compares as an integer, any other as a float (so an
 * integer tensor compares in float64).
 *
 * Returns: (transfer full): the bool tensor `self != other`
 */
EP_DEFINE_SCALAR_METHOD (not_equal)

/**
 * ep_tensor_greater:
 * @self: a tensor
 * @other: a tensor broadcastable with @self
 * @error: return location for an error
 *
 * Compares elementwise after promoting both to a common type.
 *
 * Returns: (transfer full): the bool tensor `self > other`
 */
EP_DEFINE_BINARY_METHOD (greater)

/**
 * ep_tensor_greater_scalar:
 * @self: a tensor
 * @other: a number
 * @error: return location for an error
 *
 * Compares each element with a weak scalar (see
 * [ctor@Tensor.new_weak_scalar]), as [method@Tensor.greater] does: an
 * integral @other compares as an integer, any other as a float (so an
 * integer tensor compares in float64).
 *
 * Returns: (transfer full): the bool tensor `self > other`
 */
EP_DEFINE_SCALAR_METHOD (greater)

/**
 * ep_tensor_greater_equal:
 * @self: a tensor
 * @other: a tensor broadcastable with @self
 * @error: return location for an error
 *
 * Compares elementwise after promoting both to a common type.
 *
 * Returns: (transfer full): the bool tensor `self >= other`
 */
EP_DEFINE_BINARY_METHOD (greater_equal)

/**
 * ep_tensor_greater_equal_scalar:
 * @self: a tensor
 * @other: a number
 * @error: return location for an error
 *
 * Compares each element with a weak scalar (see
 * [ctor@Tensor.new_weak_scalar]), as [method@Tensor.greater_equal] does: an
 * integral @other compares as an integer, any other as a float (so an
 * integer tensor compares in float64).
 *
 * Returns: (transfer full): the bool tensor `self >= other`
 */
EP_DEFINE_SCALAR_METHOD (greater_equal)

/* Logic takes bool tensors only: NumPy would test other types for
 * non-zero, but a silent conversion hides mistakes (API.md). */
static gboolean
logical_infer (EpOpCall  *call,
               GError   **error)
{
  EpLayout *out = &call->output_layouts[0];

  if (!ep_op_broadcast (call, out, error))
    return FALSE;

  out->dtype = EP_DTYPE_BOOL;
  return TRUE;
}

/* isnan and friends: defined for every type (integers and bools are
 * never NaN or infinite). */
static gboolean
classify_infer (EpOpCall  *call,
                GError   **error)
{
  EpTensor *input = call->inputs[0];

  ep_op_set_output (call, EP_DTYPE_BOOL, input->layout.shape, input->layout.ndim);
  return TRUE;
}

/* The `_scalar` forms of logical_and and logical_or: the literal is a
 * weak bool, true for any non-zero double (C's and NumPy's bool()). The
 * arithmetic `_scalar` methods would make an integer literal of 1, which
 * logic refuses. */
#define LOGICAL_SCALAR_METHOD(op_name)                                      \
EpTensor *                                                                  \
ep_tensor_##op_name##_scalar (EpTensor  *self,                              \
                              gdouble    other,                             \
                              GError   **error)                             \
{                                                                           \
  g_autoptr(EpTensor) literal = NULL;                                       \
                                                                            \
  g_return_val_if_fail (EP_IS_TENSOR (self), NULL);                         \
  literal = ep_tensor_new_weak_scalar (other != 0.0, EP_DTYPE_BOOL);        \
  return ep_dispatch_binary (&ep_op_##op_name, self, literal, error);       \
}

const EpOpDef ep_op_logical_and = {
  .id = EP_OP_LOGICAL_AND, .name = "logical_and",
  EP_INPUTS (EP_INPUT_OF ("self", EP_INPUT_BOOL), EP_INPUT_OF ("other", EP_INPUT_BOOL)),
  .infer = logical_infer,
};

const EpOpDef ep_op_logical_or = {
  .id = EP_OP_LOGICAL_OR, .name = "logical_or",
  EP_INPUTS (EP_INPUT_OF ("self", EP_INPUT_BOOL), EP_INPUT_OF ("other", EP_INPUT_BOOL)),
  .infer = logical_infer,
};

const EpOpDef ep_op_logical_not = {
  .id = EP_OP_LOGICAL_NOT, .name = "logical_not",
  EP_INPUTS (EP_INPUT_OF ("self", EP_INPUT_BOOL)),
  .infer = logical_infer,
};

const EpOpDef ep_op_isnan = {
  .id = EP_OP_ISNAN, .name = "isnan",
  EP_INPUTS (EP_INPUT ("self")),
  .flags = EP_OP_FLAG_UINT8,
  .infer = classify_infer,
};

const EpOpDef ep_op_isinf = {
  .id = EP_OP_ISINF, .name = "isinf",
  EP_INPUTS (EP_INPUT ("self")),
  .flags = EP_OP_FLAG_UINT8,
  .infer = classify_infer,
};

const EpOpDef ep_op_isfinite = {
  .id = EP_OP_ISFINITE, .name = "isfinite",
  EP_INPUTS (EP_INPUT ("self")),
  .flags = EP_OP_FLAG_UINT8,
  .infer = classify_infer,
};

/**
 * ep_tensor_logical_and:
 * @self: a bool tensor
 * @other: a bool tensor broadcastable with @self
 * @error: return location for an error
 *
 * Logical and, elementwise.
 *
 * Returns: (transfer full): `self and other`, or %NULL with
 *   %EP_ERROR_DTYPE set if a tensor is not bool, or %EP_ERROR_SHAPE
 */
EP_DEFINE_BINARY_METHOD (logical_and)

/**
 * ep_tensor_logical_and_scalar:
 * @self: a bool tensor
 * @other: a truth value: 0 is false, any other value true (NaN
 *   included, as in C and NumPy)
 * @error: return location for an error
 *
 * Logical and with a weak bool scalar, elementwise: @self where @other is
 * true, all false where it is false.
 *
 * Returns: (transfer full): `self and other`, or %NULL with
 *   %EP_ERROR_DTYPE set if @self is not bool
 */
LOGICAL_SCALAR_METHOD (logical_and)

/**
 * ep_tensor_logical_or:
 * @self: a bool tensor
 * @other: a bool tensor broadcastable with @self
 * @error: return location for an error
 *
 * Logical or, elementwise.
 *
 * Returns: (transfer full): `self or other`, or %NULL with
 *   %EP_ERROR_DTYPE set if a tensor is not bool, or %EP_ERROR_SHAPE
 */
EP_DEFINE_BINARY_METHOD (logical_or)

/**
 * ep_tensor_logical_or_scalar:
 * @self: a bool tensor
 * @other: a truth value: 0 is false, any other value true (NaN
 *   included, as in C and NumPy)
 * @error: return location for an error
 *
 * Logical or with a weak bool scalar, elementwise: @self where @other is
 * false, all true where it is true.
 *
 * Returns: (transfer full): `self or other`, or %NULL with
 *   %EP_ERROR_DTYPE set if @self is not bool
 */
LOGICAL_SCALAR_METHOD (logical_or)

/**
 * ep_tensor_logical_not:
 * @self: a bool tensor
 * @error: return location for an error
 *
 * Logical negation, elementwise.
 *
 * Returns: (transfer full): `not self`, or %NULL with %EP_ERROR_DTYPE
 *   set if @self is not bool
 */
EP_DEFINE_UNARY_METHOD (logical_not)

/**
 * ep_tensor_isnan:
 * @self: a tensor
 * @error: return location for an error
 *
 * Whether each element is NaN; always false for integer and bool
 * tensors.
 *
 * Returns: (transfer full): a bool tensor shaped like @self
 */
EP_DEFINE_UNARY_METHOD (isnan)

/**
 * ep_tensor_isinf:
 * @self: a tensor
 * @error: return location for an error
 *
 * Whether each element is positive or negative infinity; always false
 * for integer and bool tensors.
 *
 * Returns: (transfer full): a bool tensor shaped like @self
 */
EP_DEFINE_UNARY_METHOD (isinf)

/**
 * ep_tensor_isfinite:
 * @self: a tensor
 * @error: return location for an error
 *
 * Whether each element is neither infinite nor NaN; always true for
 * integer and bool tensors.
 *
 * Returns: (transfer full): a bool tensor shaped like @self
 */
EP_DEFINE_UNARY_METHOD (isfinite)


/* isclose and allclose: NumPy's, in the common floating type */

/* Integer and bool operands compare in float64, as NumPy's isclose
 * makes its second operand floating (result_type (b, 1.0)) */
static gboolean
isclose_infer (EpOpCall  *call,
               GError   **error)
{
  EpLayout *out = &call->output_layouts[0];
  EpDType dtype;

  if (!ep_op_broadcast (call, out, error))
    return FALSE;

  dtype = ep_op_result_dtype (call->inputs, 2);
  if (!ep_dtype_is_floating (dtype))
    dtype = EP_DTYPE_FLOAT64;
  out->dtype = EP_DTYPE_BOOL;
  ep_op_cast_all_inputs (call, dtype);
  return TRUE;
}

#define ISCLOSE_TOLERANCES                                                  \
  EP_ATTR ("rtol", EP_ATTR_FLOAT, EP_FIELD (isclose.rtol), EP_DEFAULT (1e-05), \
           .flags = EP_ATTR_FINITE | EP_ATTR_NON_NEGATIVE),                 \
  EP_ATTR ("atol", EP_ATTR_FLOAT, EP_FIELD (isclose.atol), EP_DEFAULT (1e-08), \
           .flags = EP_ATTR_FINITE | EP_ATTR_NON_NEGATIVE),                 \
  EP_ATTR ("equal_nan", EP_ATTR_BOOL, EP_FIELD (isclose.equal_nan), EP_DEFAULT (FALSE))

const EpOpDef ep_op_isclose = {
  .id = EP_OP_ISCLOSE, .name = "isclose",
  EP_INPUTS (EP_INPUT ("self"), EP_INPUT ("other")),
  EP_ATTRS (ISCLOSE_TOLERANCES),
  .infer = isclose_infer,
};

const EpOpDef ep_func_allclose = {
  .id = EP_N_OPS, .name = "allclose",
  EP_INPUTS (EP_INPUT ("self"), EP_INPUT ("other")),
  EP_ATTRS (ISCLOSE_TOLERANCES),
};

/**
 * ep_tensor_isclose:
 * @self: a tensor
 * @other: a tensor broadcastable with @self, the reference
 * @rtol: the relative tolerance, finite and not negative (NumPy's
 *   default: 1e-05)
 * @atol: the absolute tolerance, finite and not negative (NumPy's
 *   default: 1e-08)
 * @equal_nan: whether NaN is close to NaN
 * @error: return location for an error
 *
 * Whether each element of @self is close to @other's, as NumPy's
 * `isclose (self, other, rtol, atol, equal_nan)`:
 * `|self - other| <= atol + rtol · |other|` where both are finite (not
 * symmetric: the tolerance scales with @other), else equal (an
 * infinity is close only to itself, NaN to nothing unless @equal_nan).
 * Both are compared in their common floating type (integer and bool
 * operands in float64, as NumPy does) and broadcast together. No
 * gradient: the result is bool.
 *
 * Returns: (transfer full): a bool tensor of the broadcast shape, or
 *   %NULL with %EP_ERROR_INVALID_ARGUMENT set for a negative or
 *   non-finite tolerance, or %EP_ERROR_SHAPE if the shapes do not
 *   broadcast
 */
EpTensor *
ep_tensor_isclose (EpTensor  *self,
                   EpTensor  *other,
                   gdouble    rtol,
                   gdouble    atol,
                   gboolean   equal_nan,
                   GError   **error)
{
  EpTensor *inputs[2] = { self, other };
  EpOpAttrs attrs;

  g_return_val_if_fail (EP_IS_TENSOR (self), NULL);
  g_return_val_if_fail (EP_IS_TENSOR (other), NULL);

  ep_op_attrs_init (&attrs);
  attrs.isclose.rtol = rtol;
  attrs.isclose.atol = atol;
  attrs.isclose.equal_nan = equal_nan;

  return ep_dispatch1 (&ep_op_isclose, inputs, 2, &attrs, error);
}

/**
 * ep_tensor_allclose:
 * @self: a tensor
 * @other: a tensor broadcastable with @self, the reference
 * @rtol: the relative tolerance, finite and not negative (NumPy's
 *   default: 1e-05)
 * @atol: the absolute tolerance, finite and not negative (NumPy's
 *   default: 1e-08)
 * @equal_nan: whether NaN is close to NaN
 * @error: return location for an error
 *
 * Whether every element of @self is close to @other's, as NumPy's
 * `allclose`: [method@Tensor.isclose] then [method@Tensor.all], so true
 * for empty tensors. Like [method@Tensor.all] the answer is a 0-d bool
 * tensor, on the device that computed it and traceable in staged
 * functions; read it with [method@Tensor.item_boolean] (Python: `bool ()`
 * of it, or `if Ep.allclose (a, b):`).
 *
 * Returns: (transfer full): a 0-d bool tensor, or %NULL with
 *   %EP_ERROR_INVALID_ARGUMENT set for a negative or non-finite
 *   tolerance, or %EP_ERROR_SHAPE if the shapes do not broadcast
 */
EpTensor *
ep_tensor_allclose (EpTensor  *self,
                    EpTensor  *other,
                    gdouble    rtol,
                    gdouble    atol,
                    gboolean   equal_nan,
                    GError   **error)
{
  g_autoptr(EpTensor) close = NULL;

  g_return_val_if_fail (EP_IS_TENSOR (self), NULL);
  g_return_val_if_fail (EP_IS_TENSOR (other), NULL);

  close = ep_tensor_isclose (self, other, rtol, atol, equal_nan, error);
  if (close == NULL)
    return ep_error_named_result (NULL, error, "allclose");

  return ep_error_named_result (ep_tensor_all (close, NULL, 0, FALSE, error), error, "allclose");
}
