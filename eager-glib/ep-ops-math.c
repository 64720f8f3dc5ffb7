/* ep-ops-math.c: floor division, remainder, extrema, clip, and the
 * elementwise functions of one tensor beyond ep-ops-unary.c
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <glib/gi18n-lib.h>
#include <math.h>

#include "ep-dispatch-private.h"
#include "ep-error.h"
#include "ep-grad-private.h"
#include "ep-math-private.h"

/* Binary ops */

/* Piecewise constant: the derivative is zero almost everywhere. */
static gboolean
floordiv_grad (const EpOpCall   *call,
               EpTensor *const  *output_grads,
               EpTensor        **input_grads,
               GError          **error)
{
  for (guint i = 0; i < 2; i++)
    {
      input_grads[i] = ep_tensor_zeros_like (call->inputs[i], error);
      if (input_grads[i] == NULL)
        return FALSE;
    }

  return TRUE;
}

/* a mod b = a - b * floor(a / b): d/da = 1, d/db = -floor(a / b) */
static gboolean
mod_grad (const EpOpCall   *call,
          EpTensor *const  *output_grads,
          EpTensor        **input_grads,
          GError          **error)
{
  EpTensor *a = call->inputs[0], *b = call->inputs[1];
  g_autoptr(EpTensor) quotient = ep_tensor_floordiv (a, b, error);
  g_autoptr(EpTensor) scaled = NULL;
  g_autoptr(EpTensor) negated = NULL;

  if (quotient == NULL)
    return FALSE;
  scaled = ep_tensor_mul (output_grads[0], quotient, error);
  if (scaled == NULL)
    return FALSE;
  negated = ep_tensor_neg (scaled, error);
  if (negated == NULL)
    return FALSE;

  return ep_grad_set_summed (call, 0, g_object_ref (output_grads[0]), input_grads, error)
         && ep_grad_set_summed (call, 1, g_steal_pointer (&negated), input_grads, error);
}

/* The gradient goes to the operand the result came from, as the kernels
 * choose: the first where it is NaN or strictly beyond the second, the
 * second otherwise (ties included). */
static gboolean
extremum_grad (const EpOpCall   *call,
               EpTensor *const  *output_grads,
               EpTensor        **input_grads,
               GError          **error)
{
  EpTensor *a = call->inputs[0], *b = call->inputs[1];
  g_autoptr(EpTensor) wins = NULL;
  g_autoptr(EpTensor) nan = NULL;
  g_autoptr(EpTensor) first = NULL;
  g_autoptr(EpTensor) second = NULL;
  g_autoptr(EpTensor) ga = NULL;
  g_autoptr(EpTensor) gb = NULL;

  wins = call->op->id == EP_OP_MAXIMUM ? ep_tensor_greater (a, b, error)
                                       : ep_tensor_less (a, b, error);
  if (wins == NULL || (nan = ep_tensor_isnan (a, error)) == NULL)
    return FALSE;
  first = ep_tensor_logical_or (wins, nan, error);
  if (first == NULL || (second = ep_tensor_logical_not (first, error)) == NULL)
    return FALSE;
  ga = ep_grad_mask (first, output_grads[0], error);
  if (ga == NULL || (gb = ep_grad_mask (second, output_grads[0], error)) == NULL)
    return FALSE;

  return ep_grad_set_summed (call, 0, g_steal_pointer (&ga), input_grads, error)
         && ep_grad_set_summed (call, 1, g_steal_pointer (&gb), input_grads, error);
}

const EpOpDef ep_op_floordiv = {
  .id = EP_OP_FLOORDIV, .name = "floordiv", .n_inputs = 2,
  .infer = ep_op_arithmetic_infer, .gradient = floordiv_grad,
};

const EpOpDef ep_op_mod = {
  .id = EP_OP_MOD, .name = "mod", .n_inputs = 2,
  .infer = ep_op_arithmetic_infer, .gradient = mod_grad,
};

const EpOpDef ep_op_minimum = {
  .id = EP_OP_MINIMUM, .name = "minimum", .n_inputs = 2,
  .infer = ep_op_arithmetic_infer, .gradient = extremum_grad,
};

const EpOpDef ep_op_maximum = {
  .id = EP_OP_MAXIMUM, .name = "maximum", .n_inputs = 2,
  .infer = ep_op_arithmetic_infer, .gradient = extremum_grad,
};

/**
 * ep_tensor_floordiv:
 * @self: the dividends
 * @other: the divisors, broadcastable with @self
 * @error: return location for an error
 *
 * Floor division, elementwise, as NumPy's `//`: the quotient rounded
 * toward negative infinity. Integers divided by zero give 0, as in NumPy,
 * and the most negative integer divided by -1 wraps around to itself;
 * floats follow NumPy bit for bit (`x // 0.0` is ±inf or NaN). Not
 * defined for two bool tensors (NumPy gives int8, which is not a type
 * here).
 *
 * Returns: (transfer full): `self // other`, or %NULL with
 *   %EP_ERROR_SHAPE or %EP_ERROR_DTYPE set
 */

/**
 * ep_tensor_floordiv_scalar:
 * @self: the dividends
 * @other: the divisor
 * @error: return location for an error
 *
 * Floor division by a weak scalar; see [method@Tensor.floordiv] and
 * [method@Tensor.add_scalar].
 *
 * Returns: (transfer full): `self // other`
 */
EP_DEFINE_BINARY_METHOD (floordiv)
EP_DEFINE_SCALAR_METHOD (floordiv)

/**
 * ep_tensor_mod:
 * @self: the dividends
 * @other: the divisors, broadcastable with @self
 * @error: return location for an error
 *
 * The remainder of floor division, elementwise, as NumPy's `%`: it has
 * the sign of the divisor, and `self == (self // other) * other +
 * self % other`. Integers modulo zero give 0, as in NumPy; floats give
 * NaN. Not defined for two bool tensors.
 *
 * Returns: (transfer full): `self % other`, or %NULL with
 *   %EP_ERROR_SHAPE or %EP_ERROR_DTYPE set
 */

/**
 * ep_tensor_mod_scalar:
 * @self: the dividends
 * @other: the divisor
 * @error: return location for an error
 *
 * The remainder of floor division by a weak scalar; see
 * [method@Tensor.mod] and [method@Tensor.add_scalar].
 *
 * Returns: (transfer full): `self % other`
 */
EP_DEFINE_BINARY_METHOD (mod)
EP_DEFINE_SCALAR_METHOD (mod)

/**
 * ep_tensor_minimum:
 * @self: a tensor
 * @other: a tensor broadcastable with @self
 * @error: return location for an error
 *
 * The smaller of two elements, elementwise, with NumPy promotion; NaN if
 * either is NaN, as NumPy's `minimum`. For bool tensors this is logical
 * and.
 *
 * Returns: (transfer full): the minima, or %NULL with %EP_ERROR_SHAPE set
 */

/**
 * ep_tensor_minimum_scalar:
 * @self: a tensor
 * @other: a number
 * @error: return location for an error
 *
 * The smaller of each element and a weak scalar; see
 * [method@Tensor.minimum] and [method@Tensor.add_scalar].
 *
 * Returns: (transfer full): the minima
 */
EP_DEFINE_BINARY_METHOD (minimum)
EP_DEFINE_SCALAR_METHOD (minimum)

/**
 * ep_tensor_maximum:
 * @self: a tensor
 * @other: a tensor broadcastable with @self
 * @error: return location for an error
 *
 * The larger of two elements, elementwise, with NumPy promotion; NaN if
 * either is NaN, as NumPy's `maximum`. For bool tensors this is logical
 * or.
 *
 * Returns: (transfer full): the maxima, or %NULL with %EP_ERROR_SHAPE set
 */

/**
 * ep_tensor_maximum_scalar:
 * @self: a tensor
 * @other: a number
 * @error: return location for an error
 *
 * The larger of each element and a weak scalar; see
 * [method@Tensor.maximum] and [method@Tensor.add_scalar].
 *
 * Returns: (transfer full): the maxima
 */
EP_DEFINE_BINARY_METHOD (maximum)
EP_DEFINE_SCALAR_METHOD (maximum)

/* clip */

static guint
dtype_kind (EpDType dtype)
{
  return ep_dtype_is_floating (dtype) ? 2 : ep_dtype_is_integer (dtype) ? 1 : 0;
}

/* The bounds are weak scalars (integral ones integer literals), except
 * that an infinite or NaN bound binds nothing and so changes no type:
 * clipping an integer tensor to [-inf, 5] keeps it integer, as NumPy's
 * clip (x, None, 5) does. */
static gboolean
clip_infer (EpOpCall  *call,
            GError   **error)
{
  EpTensor *input = call->inputs[0];
  EpDType dtype = input->layout.dtype;

  for (guint i = 0; i < 2; i++)
    {
      gdouble bound = call->attrs.values[i];
      EpDType kind;

      if (!isfinite (bound))
        continue;
      kind = bound == floor (bound) ? EP_DTYPE_INT64 : EP_DTYPE_FLOAT64;
      if (dtype_kind (kind) > dtype_kind (dtype))
        dtype = kind;
    }

  call->input_dtypes[0] = dtype;
  ep_op_set_output (call, dtype, input->layout.shape, input->layout.ndim);
  return TRUE;
}

/* The gradient passes where the input lies within the bounds. */
static gboolean
clip_grad (const EpOpCall   *call,
           EpTensor *const  *output_grads,
           EpTensor        **input_grads,
           GError          **error)
{
  EpTensor *x = call->inputs[0];
  gdouble min = call->attrs.values[0], max = call->attrs.values[1];
  g_autoptr(EpTensor) low = ep_tensor_new_weak_scalar (isnan (min) ? -INFINITY : min, EP_DTYPE_FLOAT64);
  g_autoptr(EpTensor) high = ep_tensor_new_weak_scalar (isnan (max) ? INFINITY : max, EP_DTYPE_FLOAT64);
  g_autoptr(EpTensor) above = ep_tensor_greater_equal (x, low, error);
  g_autoptr(EpTensor) below = NULL;
  g_autoptr(EpTensor) inside = NULL;

  if (above == NULL || (below = ep_tensor_less_equal (x, high, error)) == NULL)
    return FALSE;
  inside = ep_tensor_logical_and (above, below, error);
  if (inside == NULL)
    return FALSE;

  input_grads[0] = ep_grad_mask (inside, output_grads[0], error);
  return input_grads[0] != NULL;
}

const EpOpDef ep_op_clip = {
  .id = EP_OP_CLIP, .name = "clip", .n_inputs = 1,
  .infer = clip_infer, .gradient = clip_grad,
};

/**
 * ep_tensor_clip:
 * @self: a tensor
 * @min: the lower bound; -inf (or NaN) for none
 * @max: the upper bound; inf (or NaN) for none
 * @error: return location for an error
 *
 * Limits the elements to [@min, @max], as NumPy's
 * `clip (self, min, max)`: `minimum (maximum (self, min), max)`, so a
 * @min above @max gives @max everywhere and NaN in @self stays NaN; a
 * NaN bound binds nothing, as in NumPy. The bounds are weak scalars: a
 * fractional bound makes an integer tensor float64, an integral one
 * keeps it integer (and is limited to the type's range), an infinite or
 * NaN one changes no type.
 *
 * Returns: (transfer full): the clipped tensor
 */
EpTensor *
ep_tensor_clip (EpTensor  *self,
                gdouble    min,
                gdouble    max,
                GError   **error)
{
  EpOpAttrs attrs;

  g_return_val_if_fail (EP_IS_TENSOR (self), NULL);

  ep_op_attrs_init (&attrs);
  attrs.values[0] = min;
  attrs.values[1] = max;
  return ep_dispatch1 (&ep_op_clip, &self, 1, &attrs, error);
}

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

#define UNARY_OP(ID, op_name, rule)                                         \
  const EpOpDef ep_op_##op_name = {                                         \
    .id = EP_OP_##ID, .name = #op_name, .n_inputs = 1,                      \
    .infer = rule, .gradient = unary_math_grad,                             \
  };                                                                        \
  EP_DEFINE_UNARY_METHOD (op_name)

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
UNARY_OP (EXPM1, expm1, ep_op_float_infer)

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
UNARY_OP (LOG1P, log1p, ep_op_float_infer)

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
UNARY_OP (LOG2, log2, ep_op_float_infer)

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
UNARY_OP (LOG10, log10, ep_op_float_infer)

/**
 * ep_tensor_sin:
 * @self: a tensor, in radians
 * @error: return location for an error
 *
 * Sine, elementwise. Integer tensors give float64, bool float32.
 *
 * Returns: (transfer full): the values
 */
UNARY_OP (SIN, sin, ep_op_float_infer)

/**
 * ep_tensor_cos:
 * @self: a tensor, in radians
 * @error: return location for an error
 *
 * Cosine, elementwise. Integer tensors give float64, bool float32.
 *
 * Returns: (transfer full): the values
 */
UNARY_OP (COS, cos, ep_op_float_infer)

/**
 * ep_tensor_tan:
 * @self: a tensor, in radians
 * @error: return location for an error
 *
 * Tangent, elementwise. Integer tensors give float64, bool float32.
 *
 * Returns: (transfer full): the values
 */
UNARY_OP (TAN, tan, ep_op_float_infer)

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
UNARY_OP (SINH, sinh, ep_op_float_infer)

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
UNARY_OP (COSH, cosh, ep_op_float_infer)

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
UNARY_OP (ARCSIN, arcsin, ep_op_float_infer)

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
UNARY_OP (ARCCOS, arccos, ep_op_float_infer)

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
UNARY_OP (ARCTAN, arctan, ep_op_float_infer)

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
UNARY_OP (ARCSINH, arcsinh, ep_op_float_infer)

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
UNARY_OP (ARCCOSH, arccosh, ep_op_float_infer)

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
UNARY_OP (ARCTANH, arctanh, ep_op_float_infer)

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
UNARY_OP (SOFTPLUS, softplus, ep_op_float_infer)

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
UNARY_OP (SIGN, sign, ep_op_numeric_infer)

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
UNARY_OP (ROUND, round, round_infer)

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
UNARY_OP (CEIL, ceil, ep_op_float_infer)

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
UNARY_OP (FLOOR, floor, ep_op_float_infer)

/* Cast shortcuts: astype, so tapes see an astype */

/**
 * ep_tensor_float32:
 * @self: a tensor
 * @error: return location for an error
 *
 * The same as [method@Tensor.astype] with %EP_DTYPE_FLOAT32.
 *
 * Returns: (transfer full): the converted tensor
 */
EpTensor *
ep_tensor_float32 (EpTensor  *self,
                   GError   **error)
{
  return ep_tensor_astype (self, EP_DTYPE_FLOAT32, error);
}

/**
 * ep_tensor_float64:
 * @self: a tensor
 * @error: return location for an error
 *
 * The same as [method@Tensor.astype] with %EP_DTYPE_FLOAT64.
 *
 * Returns: (transfer full): the converted tensor
 */
EpTensor *
ep_tensor_float64 (EpTensor  *self,
                   GError   **error)
{
  return ep_tensor_astype (self, EP_DTYPE_FLOAT64, error);
}

/**
 * ep_tensor_bool:
 * @self: a tensor
 * @error: return location for an error
 *
 * The same as [method@Tensor.astype] with %EP_DTYPE_BOOL: whether each
 * element is not zero (NaN counts as true).
 *
 * Returns: (transfer full): the converted tensor
 */
EpTensor *
ep_tensor_bool (EpTensor  *self,
                GError   **error)
{
  return ep_tensor_astype (self, EP_DTYPE_BOOL, error);
}
