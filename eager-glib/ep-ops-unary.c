/* ep-ops-unary.c: elementwise functions of one tensor
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include "ep-dispatch-private.h"

/* Functions with float results: integers compute in float64 as in
 * NumPy; bool in float32 (NumPy's float16 is not a type here). */
static gboolean
float_infer (EpOpCall  *call,
             GError   **error)
{
  EpTensor *input = call->inputs[0];
  EpDType dtype = input->layout.dtype;

  if (ep_dtype_is_integer (dtype))
    dtype = EP_DTYPE_FLOAT64;
  else if (dtype == EP_DTYPE_BOOL)
    dtype = EP_DTYPE_FLOAT32;

  call->input_dtypes[0] = dtype;
  ep_op_set_output (call, dtype, input->layout.shape, input->layout.ndim);
  return TRUE;
}

static gboolean
same_type_infer (EpOpCall  *call,
                 GError   **error)
{
  EpTensor *input = call->inputs[0];

  ep_op_set_output (call, input->layout.dtype, input->layout.shape, input->layout.ndim);
  return TRUE;
}

static gboolean
numeric_infer (EpOpCall  *call,
               GError   **error)
{
  if (call->inputs[0]->layout.dtype == EP_DTYPE_BOOL)
    return ep_op_error_dtype (call, EP_DTYPE_BOOL, error);

  return same_type_infer (call, error);
}

#define UNARY_OP(ID, op_name, rule)                                         \
  const EpOpDef ep_op_##op_name = {                                         \
    .id = EP_OP_##ID, .name = #op_name, .n_inputs = 1,                      \
    .infer = rule,                                                          \
  };                                                                        \
                                                                            \
EpTensor *                                                                  \
ep_tensor_##op_name (EpTensor  *self,                                       \
                     GError   **error)                                      \
{                                                                           \
  g_return_val_if_fail (EP_IS_TENSOR (self), NULL);                         \
  return ep_dispatch_unary (&ep_op_##op_name, self, error);                 \
}

/**
 * ep_tensor_neg:
 * @self: a tensor, not bool
 * @error: return location for an error
 *
 * Negates elementwise; integers wrap around.
 *
 * Returns: (transfer full): `-self`, or %NULL with %EP_ERROR_DTYPE set
 *   for a bool tensor
 */
UNARY_OP (NEG, neg, numeric_infer)

/**
 * ep_tensor_abs:
 * @self: a tensor
 * @error: return location for an error
 *
 * Absolute value, elementwise.
 *
 * Returns: (transfer full): `|self|`
 */
UNARY_OP (ABS, abs, same_type_infer)

/**
 * ep_tensor_square:
 * @self: a tensor
 * @error: return location for an error
 *
 * Squares elementwise; integers wrap around.
 *
 * Returns: (transfer full): `self * self`
 */
UNARY_OP (SQUARE, square, same_type_infer)

/**
 * ep_tensor_sqrt:
 * @self: a tensor
 * @error: return location for an error
 *
 * Square root, elementwise; NaN for negative values. Integer tensors give
 * float64.
 *
 * Returns: (transfer full): the square roots
 */
UNARY_OP (SQRT, sqrt, float_infer)

/**
 * ep_tensor_exp:
 * @self: a tensor
 * @error: return location for an error
 *
 * Natural exponential, elementwise. Integer tensors give float64.
 *
 * Returns: (transfer full): `e ** self`
 */
UNARY_OP (EXP, exp, float_infer)

/**
 * ep_tensor_log:
 * @self: a tensor
 * @error: return location for an error
 *
 * Natural logarithm, elementwise: -inf at 0, NaN below. Integer tensors
 * give float64.
 *
 * Returns: (transfer full): the logarithms
 */
UNARY_OP (LOG, log, float_infer)

/**
 * ep_tensor_tanh:
 * @self: a tensor
 * @error: return location for an error
 *
 * Hyperbolic tangent, elementwise. Integer tensors give float64.
 *
 * Returns: (transfer full): the values
 */
UNARY_OP (TANH, tanh, float_infer)

/**
 * ep_tensor_sigmoid:
 * @self: a tensor
 * @error: return location for an error
 *
 * The logistic function `1 / (1 + e ** -self)`, elementwise, without
 * overflow for large magnitudes. Integer tensors give float64.
 *
 * Returns: (transfer full): the values, in [0, 1]
 */
UNARY_OP (SIGMOID, sigmoid, float_infer)

/**
 * ep_tensor_relu:
 * @self: a tensor
 * @error: return location for an error
 *
 * Rectified linear unit `max(self, 0)`, elementwise; NaN stays NaN.
 *
 * Returns: (transfer full): the values
 */
UNARY_OP (RELU, relu, same_type_infer)
