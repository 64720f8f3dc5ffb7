/* ep-ops-unary.c: elementwise functions of one tensor
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include "ep-dispatch-private.h"
#include "ep-grad-private.h"
#include "ep-math-private.h"

/* Rules of elementwise functions of one tensor, shared with
 * ep-ops-math.c (ep-math-private.h) */

/* Functions with float results compute in ep_math_float_dtype(). */
gboolean
ep_op_float_infer (EpOpCall  *call,
                   GError   **error)
{
  EpTensor *input = call->inputs[0];
  EpDType dtype = ep_math_float_dtype (input->layout.dtype);

  call->input_dtypes[0] = dtype;
  ep_op_set_output (call, dtype, input->layout.shape, input->layout.ndim);
  return TRUE;
}

gboolean
ep_op_same_type_infer (EpOpCall  *call,
                       GError   **error)
{
  EpTensor *input = call->inputs[0];

  ep_op_set_output (call, input->layout.dtype, input->layout.shape, input->layout.ndim);
  return TRUE;
}

/* The type of the input, not bool (neg, sign) */
gboolean
ep_op_numeric_infer (EpOpCall  *call,
                     GError   **error)
{
  if (call->inputs[0]->layout.dtype == EP_DTYPE_BOOL)
    return ep_op_error_dtype (call, EP_DTYPE_BOOL, error);

  return ep_op_same_type_infer (call, error);
}

/* Gradients: each rule multiplies the output's gradient by the local
 * slope, written with public ops (and with the output where that is
 * cheaper, as for exp), so that outer tapes differentiate it again. */

typedef EpTensor *(*SlopeFunc) (EpTensor  *x,
                                EpTensor  *y,
                                EpTensor  *g,
                                GError   **error);

static gboolean
unary_gradient (const EpOpCall   *call,
                EpTensor *const  *output_grads,
                EpTensor        **input_grads,
                SlopeFunc         grad,
                GError          **error)
{
  if (!ep_grad_needed (call, 0))
    return TRUE;

  input_grads[0] = grad (call->inputs[0], call->outputs[0], output_grads[0], error);
  return input_grads[0] != NULL;
}

#define UNARY_GRADIENT(op_name)                                             \
static gboolean                                                             \
op_name##_gradient (const EpOpCall   *call,                                 \
                    EpTensor *const  *output_grads,                         \
                    EpTensor        **input_grads,                          \
                    GError          **error)                                \
{                                                                           \
  return unary_gradient (call, output_grads, input_grads, op_name##_grad, error); \
}

static EpTensor *
neg_grad (EpTensor *x, EpTensor *y, EpTensor *g, GError **error)
{
  return ep_tensor_neg (g, error);
}

/* The subgradient at 0 is 0, as for sign(). */
static EpTensor *
abs_grad (EpTensor *x, EpTensor *y, EpTensor *g, GError **error)
{
  g_autoptr(EpTensor) zero = ep_grad_literal (0.0);
  g_autoptr(EpTensor) positive = ep_tensor_greater (x, zero, error);
  g_autoptr(EpTensor) negative = positive ? ep_tensor_less (x, zero, error) : NULL;
  g_autoptr(EpTensor) minus = negative ? ep_tensor_neg (g, error) : NULL;
  g_autoptr(EpTensor) below = minus ? ep_tensor_where (negative, minus, zero, error) : NULL;

  return below ? ep_tensor_where (positive, g, below, error) : NULL;
}

static EpTensor *
square_grad (EpTensor *x, EpTensor *y, EpTensor *g, GError **error)
{
  g_autoptr(EpTensor) twice = ep_tensor_mul_scalar (x, 2.0, error);

  return twice ? ep_tensor_mul (g, twice, error) : NULL;
}

static EpTensor *
sqrt_grad (EpTensor *x, EpTensor *y, EpTensor *g, GError **error)
{
  g_autoptr(EpTensor) half = ep_tensor_mul_scalar (g, 0.5, error);

  return half ? ep_tensor_div (half, y, error) : NULL;
}

static EpTensor *
exp_grad (EpTensor *x, EpTensor *y, EpTensor *g, GError **error)
{
  return ep_tensor_mul (g, y, error);
}

static EpTensor *
log_grad (EpTensor *x, EpTensor *y, EpTensor *g, GError **error)
{
  return ep_tensor_div (g, x, error);
}

/* 1 - tanh² */
static EpTensor *
tanh_grad (EpTensor *x, EpTensor *y, EpTensor *g, GError **error)
{
  g_autoptr(EpTensor) one = ep_grad_literal (1.0);
  g_autoptr(EpTensor) y2 = ep_tensor_square (y, error);
  g_autoptr(EpTensor) slope = y2 ? ep_tensor_sub (one, y2, error) : NULL;

  return slope ? ep_tensor_mul (g, slope, error) : NULL;
}

/* σ (1 - σ) */
static EpTensor *
sigmoid_grad (EpTensor *x, EpTensor *y, EpTensor *g, GError **error)
{
  g_autoptr(EpTensor) one = ep_grad_literal (1.0);
  g_autoptr(EpTensor) rest = ep_tensor_sub (one, y, error);
  g_autoptr(EpTensor) slope = rest ? ep_tensor_mul (y, rest, error) : NULL;

  return slope ? ep_tensor_mul (g, slope, error) : NULL;
}

/* The subgradient at 0 is 0; NaN inputs get 0. */
static EpTensor *
relu_grad (EpTensor *x, EpTensor *y, EpTensor *g, GError **error)
{
  g_autoptr(EpTensor) zero = ep_grad_literal (0.0);
  g_autoptr(EpTensor) positive = ep_tensor_greater (x, zero, error);

  return positive ? ep_tensor_where (positive, g, zero, error) : NULL;
}

UNARY_GRADIENT (neg)
UNARY_GRADIENT (abs)
UNARY_GRADIENT (square)
UNARY_GRADIENT (sqrt)
UNARY_GRADIENT (exp)
UNARY_GRADIENT (log)
UNARY_GRADIENT (tanh)
UNARY_GRADIENT (sigmoid)
UNARY_GRADIENT (relu)

#define UNARY_OP(ID, op_name, rule)                                         \
  const EpOpDef ep_op_##op_name = {                                         \
    .id = EP_OP_##ID, .name = #op_name, .n_inputs = 1,                      \
    .infer = rule,                                                          \
    .gradient = op_name##_gradient,                                         \
  };                                                                        \
  EP_DEFINE_UNARY_METHOD (op_name)

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
UNARY_OP (NEG, neg, ep_op_numeric_infer)

/**
 * ep_tensor_abs:
 * @self: a tensor
 * @error: return location for an error
 *
 * Absolute value, elementwise. Its gradient is the sign of @self, taken
 * as 0 at 0.
 *
 * Returns: (transfer full): `|self|`
 */
UNARY_OP (ABS, abs, ep_op_same_type_infer)

/**
 * ep_tensor_square:
 * @self: a tensor
 * @error: return location for an error
 *
 * Squares elementwise; integers wrap around.
 *
 * Returns: (transfer full): `self * self`
 */
UNARY_OP (SQUARE, square, ep_op_same_type_infer)

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
UNARY_OP (SQRT, sqrt, ep_op_float_infer)

/**
 * ep_tensor_exp:
 * @self: a tensor
 * @error: return location for an error
 *
 * Natural exponential, elementwise. Integer tensors give float64.
 *
 * Returns: (transfer full): `e ** self`
 */
UNARY_OP (EXP, exp, ep_op_float_infer)

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
UNARY_OP (LOG, log, ep_op_float_infer)

/**
 * ep_tensor_tanh:
 * @self: a tensor
 * @error: return location for an error
 *
 * Hyperbolic tangent, elementwise. Integer tensors give float64.
 *
 * Returns: (transfer full): the values
 */
UNARY_OP (TANH, tanh, ep_op_float_infer)

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
UNARY_OP (SIGMOID, sigmoid, ep_op_float_infer)

/**
 * ep_tensor_relu:
 * @self: a tensor
 * @error: return location for an error
 *
 * Rectified linear unit `max(self, 0)`, elementwise; NaN stays NaN. Its
 * gradient is 1 where @self is positive and 0 elsewhere (at 0 and NaN
 * too).
 *
 * Returns: (transfer full): the values
 */
UNARY_OP (RELU, relu, ep_op_same_type_infer)
