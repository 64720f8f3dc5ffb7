/* ops/math.c: functions of one tensor, elementwise
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <glib/gi18n-lib.h>
#include <math.h>

#include "ep-dispatch-private.h"
#include "ep-enum-types.h"
#include "ep-error.h"
#include "ep-grad-private.h"
#include "ep-math-private.h"

/* Rules of elementwise functions of one tensor */

/* Functions with float results compute in ep_math_float_dtype(). */
static gboolean
ep_op_float_infer (EpOpCall  *call,
                   GError   **error)
{
  EpTensor *input = call->inputs[0];
  EpDType dtype = ep_math_float_dtype (input->layout.dtype);

  call->input_dtypes[0] = dtype;
  ep_op_set_output (call, dtype, input->layout.shape, input->layout.ndim);
  return TRUE;
}

static gboolean
ep_op_same_type_infer (EpOpCall  *call,
                       GError   **error)
{
  EpTensor *input = call->inputs[0];

  ep_op_set_output (call, input->layout.dtype, input->layout.shape, input->layout.ndim);
  return TRUE;
}

/* The type of the input, not bool (neg, sign) */
static gboolean
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

/* An op, its schema and its method: a function of one tensor with the
 * result type @rule gives */
#define UNARY_OP_FLAGS(ID, op_name, rule, gradient_rule, op_flags)         \
  const EpOpDef ep_op_##op_name = {                                         \
    .id = EP_OP_##ID, .name = #op_name,                                     \
    EP_INPUTS (EP_INPUT ("self")),                                          \
    .flags = op_flags,                                                      \
    .infer = rule,                                                          \
    .gradient = gradient_rule,                                              \
  };                                                                        \
  EP_DEFINE_UNARY_METHOD (op_name)

#define UNARY_OP(ID, op_name, rule, gradient_rule)                          \
  UNARY_OP_FLAGS (ID, op_name, rule, gradient_rule, 0)

/* The same for an op with kernels for the narrow integer types */
#define UNARY_OP_NARROW(ID, op_name, rule, gradient_rule)                   \
  UNARY_OP_FLAGS (ID, op_name, rule, gradient_rule, EP_OP_FLAG_UINT8)

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
UNARY_OP_NARROW (NEG, neg, ep_op_numeric_infer, neg_gradient)

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
UNARY_OP_NARROW (ABS, abs, ep_op_same_type_infer, abs_gradient)

/**
 * ep_tensor_square:
 * @self: a tensor
 * @error: return location for an error
 *
 * Squares elementwise; integers wrap around.
 *
 * Returns: (transfer full): `self * self`
 */
UNARY_OP_NARROW (SQUARE, square, ep_op_same_type_infer, square_gradient)

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
UNARY_OP (SQRT, sqrt, ep_op_float_infer, sqrt_gradient)

/**
 * ep_tensor_exp:
 * @self: a tensor
 * @error: return location for an error
 *
 * Natural exponential, elementwise. Integer tensors give float64.
 *
 * Returns: (transfer full): `e ** self`
 */
UNARY_OP (EXP, exp, ep_op_float_infer, exp_gradient)

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
UNARY_OP (LOG, log, ep_op_float_infer, log_gradient)

/**
 * ep_tensor_tanh:
 * @self: a tensor
 * @error: return location for an error
 *
 * Hyperbolic tangent, elementwise. Integer tensors give float64.
 *
 * Returns: (transfer full): the values
 */
UNARY_OP (TANH, tanh, ep_op_float_infer, tanh_gradient)

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
UNARY_OP (SIGMOID, sigmoid, ep_op_float_infer, sigmoid_gradient)

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
UNARY_OP (RELU, relu, ep_op_same_type_infer, relu_gradient)


/* Unary ops */

/* NumPy: rounding keeps integers as they are; bool gives a float */
static gboolean
round_infer (EpOpCall  *call,
             GError   **error)
{
  EpTensor *input = call->inputs[0];
  EpDType dtype = input->layout.dtype;

  if (dtype == EP_DTYPE_BOOL)
    dtype = EP_DTYPE_FLOAT32;

  call->input_dtypes[0] = dtype;
  ep_op_set_output (call, dtype, input->layout.shape, input->layout.ndim);
  return TRUE;
}

/* The derivative of a unary function, as a tensor @d to multiply the
 * output gradient by, or (with *@divide set) to divide it by. */
static EpTensor *
unary_derivative (const EpOpCall  *call,
                  gboolean        *divide,
                  GError         **error)
{
  EpTensor *x = call->inputs[0];
  EpTensor *y = call->outputs[0];
  g_autoptr(EpTensor) t = NULL;
  g_autoptr(EpTensor) u = NULL;

  *divide = FALSE;
  switch (call->op->id)
    {
    case EP_OP_EXPM1:
      return ep_tensor_add_scalar (y, 1.0, error);
    case EP_OP_LOG1P:
      *divide = TRUE;
      return ep_tensor_add_scalar (x, 1.0, error);
    case EP_OP_LOG2:
      *divide = TRUE;
      return ep_tensor_mul_scalar (x, G_LN2, error);
    case EP_OP_LOG10:
      *divide = TRUE;
      return ep_tensor_mul_scalar (x, G_LN10, error);
    case EP_OP_SIN:
      return ep_tensor_cos (x, error);
    case EP_OP_COS:
      t = ep_tensor_sin (x, error);
      return t != NULL ? ep_tensor_neg (t, error) : NULL;
    case EP_OP_TAN:
      t = ep_tensor_square (y, error);
      return t != NULL ? ep_tensor_add_scalar (t, 1.0, error) : NULL;
    case EP_OP_SINH:
      return ep_tensor_cosh (x, error);
    case EP_OP_COSH:
      return ep_tensor_sinh (x, error);
    case EP_OP_ARCSIN:
    case EP_OP_ARCCOS:
      /* ±1 / sqrt (1 - x²) */
      *divide = TRUE;
      t = ep_tensor_square (x, error);
      if (t == NULL || (u = ep_tensor_mul_scalar (t, -1.0, error)) == NULL)
        return NULL;
      g_clear_object (&t);
      if ((t = ep_tensor_add_scalar (u, 1.0, error)) == NULL)
        return NULL;
      g_clear_object (&u);
      if ((u = ep_tensor_sqrt (t, error)) == NULL)
        return NULL;
      return call->op->id == EP_OP_ARCSIN ? g_steal_pointer (&u) : ep_tensor_neg (u, error);
    case EP_OP_ARCTAN:
      *divide = TRUE;
      t = ep_tensor_square (x, error);
      return t != NULL ? ep_tensor_add_scalar (t, 1.0, error) : NULL;
    case EP_OP_ARCSINH:
    case EP_OP_ARCCOSH:
      /* 1 / sqrt (x² ± 1) */
      *divide = TRUE;
      t = ep_tensor_square (x, error);
      if (t == NULL)
        return NULL;
      u = ep_tensor_add_scalar (t, call->op->id == EP_OP_ARCSINH ? 1.0 : -1.0, error);
      return u != NULL ? ep_tensor_sqrt (u, error) : NULL;
    case EP_OP_ARCTANH:
      /* 1 / (1 - x²) */
      *divide = TRUE;
      t = ep_tensor_square (x, error);
      if (t == NULL || (u = ep_tensor_mul_scalar (t, -1.0, error)) == NULL)
        return NULL;
      return ep_tensor_add_scalar (u, 1.0, error);
    case EP_OP_SOFTPLUS:
      return ep_tensor_sigmoid (x, error);
    case EP_OP_ERF:
    case EP_OP_ERFC:
      /* ±2/√π · exp (-x²): erfc is 1 - erf */
      t = ep_tensor_square (x, error);
      if (t == NULL || (u = ep_tensor_mul_scalar (t, -1.0, error)) == NULL)
        return NULL;
      g_clear_object (&t);
      if ((t = ep_tensor_exp (u, error)) == NULL)
        return NULL;
      return ep_tensor_mul_scalar (t, call->op->id == EP_OP_ERF ? M_2_SQRTPI : -M_2_SQRTPI, error);
    default:
      /* sign, round, ceil, floor: piecewise constant */
      return ep_tensor_zeros_like (x, error);
    }
}

static gboolean
unary_math_grad (const EpOpCall   *call,
                 EpTensor *const  *output_grads,
                 EpTensor        **input_grads,
                 GError          **error)
{
  gboolean divide;
  g_autoptr(EpTensor) d = unary_derivative (call, &divide, error);

  if (d == NULL)
    return FALSE;

  input_grads[0] = divide ? ep_tensor_div (output_grads[0], d, error)
                          : ep_tensor_mul (output_grads[0], d, error);
  return input_grads[0] != NULL;
}

/**
 * ep_tensor_expm1:
 * @self: a tensor
 * @error: return location for an error
 *
 * `e ** self - 1`, elementwise, accurate for small values. Integer tensors
 * give float64, bool float32.
 *
 * Returns: (transfer full): the values
 */
UNARY_OP (EXPM1, expm1, ep_op_float_infer, unary_math_grad)

/**
 * ep_tensor_log1p:
 * @self: a tensor
 * @error: return location for an error
 *
 * `log (1 + self)`, elementwise, accurate for small values: -inf at -1,
 * NaN below. Integer tensors give float64, bool float32.
 *
 * Returns: (transfer full): the values
 */
UNARY_OP (LOG1P, log1p, ep_op_float_infer, unary_math_grad)

/**
 * ep_tensor_log2:
 * @self: a tensor
 * @error: return location for an error
 *
 * Base-2 logarithm, elementwise: -inf at 0, NaN below. Integer tensors
 * give float64, bool float32.
 *
 * Returns: (transfer full): the values
 */
UNARY_OP (LOG2, log2, ep_op_float_infer, unary_math_grad)

/**
 * ep_tensor_log10:
 * @self: a tensor
 * @error: return location for an error
 *
 * Base-10 logarithm, elementwise: -inf at 0, NaN below. Integer tensors
 * give float64, bool float32.
 *
 * Returns: (transfer full): the values
 */
UNARY_OP (LOG10, log10, ep_op_float_infer, unary_math_grad)

/**
 * ep_tensor_sin:
 * @self: a tensor, in radians
 * @error: return location for an error
 *
 * Sine, elementwise. Integer tensors give float64, bool float32.
 *
 * Returns: (transfer full): the values
 */
UNARY_OP (SIN, sin, ep_op_float_infer, unary_math_grad)

/**
 * ep_tensor_cos:
 * @self: a tensor, in radians
 * @error: return location for an error
 *
 * Cosine, elementwise. Integer tensors give float64, bool float32.
 *
 * Returns: (transfer full): the values
 */
UNARY_OP (COS, cos, ep_op_float_infer, unary_math_grad)

/**
 * ep_tensor_tan:
 * @self: a tensor, in radians
 * @error: return location for an error
 *
 * Tangent, elementwise. Integer tensors give float64, bool float32.
 *
 * Returns: (transfer full): the values
 */
UNARY_OP (TAN, tan, ep_op_float_infer, unary_math_grad)

/**
 * ep_tensor_sinh:
 * @self: a tensor
 * @error: return location for an error
 *
 * Hyperbolic sine, elementwise. Integer tensors give float64, bool
 * float32.
 *
 * Returns: (transfer full): the values
 */
UNARY_OP (SINH, sinh, ep_op_float_infer, unary_math_grad)

/**
 * ep_tensor_cosh:
 * @self: a tensor
 * @error: return location for an error
 *
 * Hyperbolic cosine, elementwise. Integer tensors give float64, bool
 * float32.
 *
 * Returns: (transfer full): the values
 */
UNARY_OP (COSH, cosh, ep_op_float_infer, unary_math_grad)

/**
 * ep_tensor_arcsin:
 * @self: a tensor
 * @error: return location for an error
 *
 * Inverse sine, elementwise, in [-π/2, π/2]; NaN outside [-1, 1].
 * Integer tensors give float64, bool float32.
 *
 * Returns: (transfer full): the values
 */
UNARY_OP (ARCSIN, arcsin, ep_op_float_infer, unary_math_grad)

/**
 * ep_tensor_arccos:
 * @self: a tensor
 * @error: return location for an error
 *
 * Inverse cosine, elementwise, in [0, π]; NaN outside [-1, 1]. Integer
 * tensors give float64, bool float32.
 *
 * Returns: (transfer full): the values
 */
UNARY_OP (ARCCOS, arccos, ep_op_float_infer, unary_math_grad)

/**
 * ep_tensor_arctan:
 * @self: a tensor
 * @error: return location for an error
 *
 * Inverse tangent, elementwise, in (-π/2, π/2). Integer tensors give
 * float64, bool float32.
 *
 * Returns: (transfer full): the values
 */
UNARY_OP (ARCTAN, arctan, ep_op_float_infer, unary_math_grad)

/**
 * ep_tensor_arcsinh:
 * @self: a tensor
 * @error: return location for an error
 *
 * Inverse hyperbolic sine, elementwise. Integer tensors give float64,
 * bool float32.
 *
 * Returns: (transfer full): the values
 */
UNARY_OP (ARCSINH, arcsinh, ep_op_float_infer, unary_math_grad)

/**
 * ep_tensor_arccosh:
 * @self: a tensor
 * @error: return location for an error
 *
 * Inverse hyperbolic cosine, elementwise; NaN below 1. Integer tensors
 * give float64, bool float32.
 *
 * Returns: (transfer full): the values
 */
UNARY_OP (ARCCOSH, arccosh, ep_op_float_infer, unary_math_grad)

/**
 * ep_tensor_arctanh:
 * @self: a tensor
 * @error: return location for an error
 *
 * Inverse hyperbolic tangent, elementwise: ±inf at ±1, NaN outside.
 * Integer tensors give float64, bool float32.
 *
 * Returns: (transfer full): the values
 */
UNARY_OP (ARCTANH, arctanh, ep_op_float_infer, unary_math_grad)

/**
 * ep_tensor_softplus:
 * @self: a tensor
 * @error: return location for an error
 *
 * `log (1 + e ** self)`, elementwise, computed as
 * `max (self, 0) + log1p (e ** -|self|)` so that it neither overflows
 * for large values nor loses the small ones (NumPy's
 * `logaddexp (0, self)`). Integer tensors give float64, bool float32.
 *
 * Returns: (transfer full): the values
 */
UNARY_OP (SOFTPLUS, softplus, ep_op_float_infer, unary_math_grad)

/**
 * ep_tensor_sign:
 * @self: a tensor, not bool
 * @error: return location for an error
 *
 * -1, 0 or 1 as the element is negative, zero or positive; NaN stays NaN.
 * Keeps the element type.
 *
 * Returns: (transfer full): the signs, or %NULL with %EP_ERROR_DTYPE set
 *   for a bool tensor (as in NumPy)
 */
UNARY_OP_NARROW (SIGN, sign, ep_op_numeric_infer, unary_math_grad)

/**
 * ep_tensor_round:
 * @self: a tensor
 * @error: return location for an error
 *
 * Rounds to the nearest integer, halves to even (`round (2.5) == 2`), as
 * NumPy's `round`. Integer tensors are returned as they are; bool gives
 * float32.
 *
 * Returns: (transfer full): the rounded values
 */
UNARY_OP (ROUND, round, round_infer, unary_math_grad)

/**
 * ep_tensor_ceil:
 * @self: a tensor
 * @error: return location for an error
 *
 * The smallest integer not below each element. As in NumPy the result
 * is floating-point: integer tensors give float64, bool float32.
 *
 * Returns: (transfer full): the values
 */
UNARY_OP (CEIL, ceil, ep_op_float_infer, unary_math_grad)

/**
 * ep_tensor_floor:
 * @self: a tensor
 * @error: return location for an error
 *
 * The largest integer not above each element. As in NumPy the result
 * is floating-point: integer tensors give float64, bool float32.
 *
 * Returns: (transfer full): the values
 */
UNARY_OP (FLOOR, floor, ep_op_float_infer, unary_math_grad)

/**
 * ep_tensor_erf:
 * @self: a tensor
 * @error: return location for an error
 *
 * The error function `2/√π ∫₀ˣ e^(-t²) dt`, elementwise (SciPy's
 * `scipy.special.erf`, PyTorch's `torch.erf`): odd, from -1 at -inf to
 * 1 at inf. Its derivative is `2/√π · e^(-x²)`. Integer tensors give
 * float64, bool float32.
 *
 * Returns: (transfer full): the values, in [-1, 1]
 */
UNARY_OP (ERF, erf, ep_op_float_infer, unary_math_grad)

/**
 * ep_tensor_erfc:
 * @self: a tensor
 * @error: return location for an error
 *
 * The complementary error function `1 - erf (x)`, elementwise (SciPy's
 * `scipy.special.erfc`, PyTorch's `torch.special.erfc`), computed
 * directly so that it keeps its precision where `1 - erf (x)` loses it
 * all: `erfc (5)` is 1.5e-12, `erfc (26)` 5.7e-296 in float64. From 2
 * at -inf to 0 at inf. Its derivative is `-2/√π · e^(-x²)`. Integer
 * tensors give float64, bool float32.
 *
 * Returns: (transfer full): the values, in [0, 2]
 */
UNARY_OP (ERFC, erfc, ep_op_float_infer, unary_math_grad)


/* GELU: PyTorch's torch.nn.functional.gelu */

/* The tanh approximation's constants, as PyTorch's: √(2/π) and κ */
#define GELU_BETA (M_SQRT2 * M_2_SQRTPI * 0.5)
#define GELU_KAPPA 0.044715

/* Φ(x) + x φ(x) = (1 + erf (x/√2)) / 2 + x e^(-x²/2) / √(2π) */
static EpTensor *
gelu_exact_slope (EpTensor  *x,
                  GError   **error)
{
  g_autoptr(EpTensor) scaled = ep_tensor_mul_scalar (x, M_SQRT1_2, error);
  g_autoptr(EpTensor) e = scaled ? ep_tensor_erf (scaled, error) : NULL;
  g_autoptr(EpTensor) e1 = e ? ep_tensor_add_scalar (e, 1.0, error) : NULL;
  g_autoptr(EpTensor) cdf = e1 ? ep_tensor_mul_scalar (e1, 0.5, error) : NULL;
  g_autoptr(EpTensor) x2 = cdf ? ep_tensor_square (x, error) : NULL;
  g_autoptr(EpTensor) half = x2 ? ep_tensor_mul_scalar (x2, -0.5, error) : NULL;
  g_autoptr(EpTensor) g = half ? ep_tensor_exp (half, error) : NULL;
  g_autoptr(EpTensor) pdf = g ? ep_tensor_mul_scalar (g, M_2_SQRTPI * M_SQRT1_2 * 0.5, error) : NULL;
  g_autoptr(EpTensor) xpdf = pdf ? ep_tensor_mul (x, pdf, error) : NULL;

  return xpdf ? ep_tensor_add (cdf, xpdf, error) : NULL;
}

/* With u = β (x + κ x³) and t = tanh (u):
 * (1 + t) / 2 + x/2 (1 - t²) β (1 + 3κ x²) */
static EpTensor *
gelu_tanh_slope (EpTensor  *x,
                 GError   **error)
{
  g_autoptr(EpTensor) one = ep_grad_literal (1.0);
  g_autoptr(EpTensor) x2 = ep_tensor_square (x, error);
  g_autoptr(EpTensor) k = x2 ? ep_tensor_mul_scalar (x2, GELU_KAPPA, error) : NULL;
  g_autoptr(EpTensor) k1 = k ? ep_tensor_add_scalar (k, 1.0, error) : NULL;
  g_autoptr(EpTensor) inner = k1 ? ep_tensor_mul (x, k1, error) : NULL;
  g_autoptr(EpTensor) u = inner ? ep_tensor_mul_scalar (inner, GELU_BETA, error) : NULL;
  g_autoptr(EpTensor) t = u ? ep_tensor_tanh (u, error) : NULL;
  g_autoptr(EpTensor) t1 = t ? ep_tensor_add_scalar (t, 1.0, error) : NULL;
  g_autoptr(EpTensor) first = t1 ? ep_tensor_mul_scalar (t1, 0.5, error) : NULL;
  g_autoptr(EpTensor) t2 = first ? ep_tensor_square (t, error) : NULL;
  g_autoptr(EpTensor) sech2 = t2 ? ep_tensor_sub (one, t2, error) : NULL;
  g_autoptr(EpTensor) k3 = sech2 ? ep_tensor_mul_scalar (x2, 3 * GELU_KAPPA, error) : NULL;
  g_autoptr(EpTensor) k31 = k3 ? ep_tensor_add_scalar (k3, 1.0, error) : NULL;
  g_autoptr(EpTensor) du = k31 ? ep_tensor_mul_scalar (k31, GELU_BETA * 0.5, error) : NULL;
  g_autoptr(EpTensor) xdu = du ? ep_tensor_mul (x, du, error) : NULL;
  g_autoptr(EpTensor) second = xdu ? ep_tensor_mul (xdu, sech2, error) : NULL;

  return second ? ep_tensor_add (first, second, error) : NULL;
}

static gboolean
gelu_gradient (const EpOpCall   *call,
               EpTensor *const  *output_grads,
               EpTensor        **input_grads,
               GError          **error)
{
  g_autoptr(EpTensor) slope = NULL;

  if (!ep_grad_needed (call, 0))
    return TRUE;

  slope = call->attrs.gelu.approximate == EP_GELU_APPROXIMATION_TANH
          ? gelu_tanh_slope (call->inputs[0], error)
          : gelu_exact_slope (call->inputs[0], error);
  input_grads[0] = slope ? ep_tensor_mul (output_grads[0], slope, error) : NULL;
  return input_grads[0] != NULL;
}

const EpOpDef ep_op_gelu = {
  .id = EP_OP_GELU, .name = "gelu",
  EP_INPUTS (EP_INPUT ("self")),
  EP_ATTRS (EP_ATTR ("approximate", EP_ATTR_ENUM, EP_FIELD (gelu.approximate),
                     EP_DEFAULT (EP_GELU_APPROXIMATION_NONE),
                     .enum_type = ep_gelu_approximation_get_type)),
  .infer = ep_op_float_infer,
  .gradient = gelu_gradient,
};

/**
 * ep_tensor_gelu:
 * @self: a tensor
 * @approximate: the exact function or its tanh approximation
 * @error: return location for an error
 *
 * The Gaussian error linear unit, elementwise, as PyTorch's
 * `torch.nn.functional.gelu`: `x Φ(x) = x/2 (1 + erf (x/√2))` with
 * %EP_GELU_APPROXIMATION_NONE, `x/2 (1 + tanh (√(2/π) (x + 0.044715 x³)))`
 * with %EP_GELU_APPROXIMATION_TANH. One pass over the data on every
 * device; its gradient is made of public ops. Integer tensors give
 * float64, bool float32.
 *
 * Returns: (transfer full): the values, or %NULL with
 *   %EP_ERROR_INVALID_ARGUMENT set for an unknown @approximate
 */
EpTensor *
ep_tensor_gelu (EpTensor             *self,
                EpGeluApproximation   approximate,
                GError              **error)
{
  EpOpAttrs attrs;

  g_return_val_if_fail (EP_IS_TENSOR (self), NULL);

  ep_op_attrs_init (&attrs);
  attrs.gelu.approximate = approximate;

  return ep_dispatch1 (&ep_op_gelu, &self, 1, &attrs, error);
}
