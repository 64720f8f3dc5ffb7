/* ops/elementwise.c: arithmetic with broadcasting (add sub mul div pow floordiv mod minimum
 * maximum), where and clip
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <glib/gi18n-lib.h>
#include <inttypes.h>
#include <math.h>

#include "ep-dispatch-private.h"
#include "ep-error.h"
#include "ep-grad-private.h"
#include "ep-math-private.h"

/* NumPy promotion and broadcasting. bool + bool is "or", bool * bool is
 * "and"; bool - bool and bool ** bool are refused, and so are floor
 * division and remainder of two bools (NumPy gives int8, which is not a
 * type here). True division of integers gives float64. */
gboolean
ep_op_arithmetic_infer (EpOpCall  *call,
                        GError   **error)
{
  EpLayout *out = &call->output_layouts[0];
  EpDType dtype = ep_op_result_dtype (call->inputs, 2);

  if (!ep_op_broadcast (call, out, error))
    return FALSE;

  switch (call->op->id)
    {
    case EP_OP_DIV:
      if (!ep_dtype_is_floating (dtype))
        dtype = EP_DTYPE_FLOAT64;
      break;
    case EP_OP_SUB:
    case EP_OP_POW:
    case EP_OP_FLOORDIV:
    case EP_OP_MOD:
      if (dtype == EP_DTYPE_BOOL)
        return ep_op_error_dtype (call, dtype, error);
      break;
    default:
      break;
    }

  out->dtype = dtype;
  ep_op_cast_all_inputs (call, dtype);
  return TRUE;
}

/* Gradients. Each rule computes the gradient of the broadcast output for
 * the inputs the tape wants, then sums it back to each input's shape. */

static gboolean
add_gradient (const EpOpCall   *call,
              EpTensor *const  *output_grads,
              EpTensor        **input_grads,
              GError          **error)
{
  for (guint i = 0; i < 2; i++)
    if (ep_grad_needed (call, i)
        && !ep_grad_set_summed (call, i, g_object_ref (output_grads[0]), input_grads, error))
      return FALSE;

  return TRUE;
}

static gboolean
sub_gradient (const EpOpCall   *call,
              EpTensor *const  *output_grads,
              EpTensor        **input_grads,
              GError          **error)
{
  if (ep_grad_needed (call, 0)
      && !ep_grad_set_summed (call, 0, g_object_ref (output_grads[0]), input_grads, error))
    return FALSE;
  if (ep_grad_needed (call, 1)
      && !ep_grad_set_summed (call, 1, ep_tensor_neg (output_grads[0], error), input_grads, error))
    return FALSE;

  return TRUE;
}

static gboolean
mul_gradient (const EpOpCall   *call,
              EpTensor *const  *output_grads,
              EpTensor        **input_grads,
              GError          **error)
{
  EpTensor *g = output_grads[0];

  for (guint i = 0; i < 2; i++)
    if (ep_grad_needed (call, i)
        && !ep_grad_set_summed (call, i, ep_tensor_mul (g, call->inputs[1 - i], error), input_grads, error))
      return FALSE;

  return TRUE;
}

/* d(a/b)/da = 1/b, d(a/b)/db = -(a/b)/b */
static gboolean
div_gradient (const EpOpCall   *call,
              EpTensor *const  *output_grads,
              EpTensor        **input_grads,
              GError          **error)
{
  g_autoptr(EpTensor) ga = ep_tensor_div (output_grads[0], call->inputs[1], error);
  g_autoptr(EpTensor) scaled = NULL;

  if (ga == NULL)
    return FALSE;
  if (ep_grad_needed (call, 1))
    {
      scaled = ep_tensor_mul (ga, call->outputs[0], error);
      if (!ep_grad_set_summed (call, 1, scaled != NULL ? ep_tensor_neg (scaled, error) : NULL,
                               input_grads, error))
        return FALSE;
    }
  if (ep_grad_needed (call, 0)
      && !ep_grad_set_summed (call, 0, g_steal_pointer (&ga), input_grads, error))
    return FALSE;

  return TRUE;
}

/* d(a**b)/da = b * a**(b-1); d(a**b)/db = a**b * log(a), taken as 0 where
 * a <= 0 (the log is not real there; 0**b has slope 0 in b for b > 0).
 * The log's argument is guarded too, so that no NaN reaches a higher
 * derivative through the branch where() discards. */
static EpTensor *
pow_exponent_grad (const EpOpCall  *call,
                   EpTensor        *g,
                   GError         **error)
{
  EpTensor *a = call->inputs[0];
  g_autoptr(EpTensor) zero = ep_grad_literal (0.0);
  g_autoptr(EpTensor) one = ep_grad_literal (1.0);
  g_autoptr(EpTensor) positive = ep_tensor_greater (a, zero, error);
  g_autoptr(EpTensor) safe = positive ? ep_tensor_where (positive, a, one, error) : NULL;
  g_autoptr(EpTensor) log = safe ? ep_tensor_log (safe, error) : NULL;
  g_autoptr(EpTensor) masked = log ? ep_tensor_where (positive, log, zero, error) : NULL;
  g_autoptr(EpTensor) slope = masked ? ep_tensor_mul (call->outputs[0], masked, error) : NULL;

  return slope ? ep_tensor_mul (g, slope, error) : NULL;
}

static EpTensor *
pow_base_grad (const EpOpCall  *call,
               EpTensor        *g,
               GError         **error)
{
  EpTensor *a = call->inputs[0], *b = call->inputs[1];
  g_autoptr(EpTensor) one = ep_grad_literal (1.0);
  g_autoptr(EpTensor) b1 = ep_tensor_sub (b, one, error);
  g_autoptr(EpTensor) power = b1 ? ep_tensor_pow (a, b1, error) : NULL;
  g_autoptr(EpTensor) slope = power ? ep_tensor_mul (b, power, error) : NULL;

  return slope ? ep_tensor_mul (g, slope, error) : NULL;
}

static gboolean
pow_gradient (const EpOpCall   *call,
              EpTensor *const  *output_grads,
              EpTensor        **input_grads,
              GError          **error)
{
  if (ep_grad_needed (call, 0)
      && !ep_grad_set_summed (call, 0, pow_base_grad (call, output_grads[0], error), input_grads, error))
    return FALSE;
  if (ep_grad_needed (call, 1)
      && !ep_grad_set_summed (call, 1, pow_exponent_grad (call, output_grads[0], error), input_grads, error))
    return FALSE;

  return TRUE;
}

#define ARITHMETIC_OP(ID, op_name)                                          \
  const EpOpDef ep_op_##op_name = {                                         \
    .id = EP_OP_##ID, .name = #op_name,                                     \
    EP_INPUTS (EP_INPUT ("self"), EP_INPUT ("other")),                      \
    .flags = EP_OP_FLAG_UINT8,                                              \
    .infer = ep_op_arithmetic_infer,                                        \
    .gradient = op_name##_gradient,                                         \
  };
/* NumPy refuses integers to negative integer powers (the result is not
 * an integer), so for integer results the rule reads the exponents. */
static gboolean
check_integer_exponents (EpOpCall  *call,
                         GError   **error)
{
  EpDType dtype = call->inputs[1]->layout.dtype;
  g_autoptr(GBytes) bytes = NULL;
  gconstpointer data;
  gsize nbytes;

  /* bool and uint8 exponents are never negative */
  if (dtype == EP_DTYPE_BOOL || dtype == EP_DTYPE_UINT8)
    return TRUE;

  bytes = ep_op_read_input (call, 1, error);
  if (bytes == NULL)
    return FALSE;

  data = g_bytes_get_data (bytes, &nbytes);
  for (gsize i = 0; i < nbytes / ep_dtype_get_itemsize (dtype); i++)
    {
      gint64 exponent = ep_number_load ((const guint8 *) data + i * ep_dtype_get_itemsize (dtype), dtype).i;

      if (exponent < 0)
        {
          g_set_error (error, EP_ERROR, EP_ERROR_INVALID_ARGUMENT,
                       _("pow: integers to negative integer powers are not allowed (exponent %" PRId64 ")"),
                       exponent);
          return FALSE;
        }
    }

  return TRUE;
}

static gboolean
pow_infer (EpOpCall  *call,
           GError   **error)
{
  if (!ep_op_arithmetic_infer (call, error))
    return FALSE;

  return !ep_dtype_is_integer (call->output_layouts[0].dtype)
         || check_integer_exponents (call, error);
}

const EpOpDef ep_op_pow = {
  .id = EP_OP_POW, .name = "pow",
  EP_INPUTS (EP_INPUT ("self"), EP_INPUT ("other")),
  .flags = EP_OP_FLAG_READS_DATA | EP_OP_FLAG_UINT8,
  .infer = pow_infer,
  .gradient = pow_gradient,
};

ARITHMETIC_OP (ADD, add)
ARITHMETIC_OP (SUB, sub)
ARITHMETIC_OP (MUL, mul)
ARITHMETIC_OP (DIV, div)

/* The weak literal behind the `_scalar` methods: gjs and C have no
 * integer literals, so an integral value is an integer literal. */
static EpTensor *
scalar_literal (gdouble value)
{
  gboolean integral = isfinite (value) && value == floor (value) && fabs (value) < 9007199254740992.0;

  return ep_tensor_new_weak_scalar (value, integral ? EP_DTYPE_INT64 : EP_DTYPE_FLOAT64);
}

EpTensor *
ep_dispatch_binary_scalar (const EpOpDef  *op,
                           EpTensor       *self,
                           gdouble         value,
                           GError        **error)
{
  g_autoptr(EpTensor) literal = scalar_literal (value);

  return ep_dispatch_binary (op, self, literal, error);
}

/**
 * ep_tensor_add:
 * @self: a tensor
 * @other: a tensor broadcastable with @self
 * @error: return location for an error
 *
 * Adds elementwise, with NumPy broadcasting and type promotion. For two
 * bool tensors this is logical or, as in NumPy.
 *
 * Returns: (transfer full): `self + other`, or %NULL with %EP_ERROR_SHAPE
 *   set if the shapes do not broadcast
 */
EP_DEFINE_BINARY_METHOD (add)

/**
 * ep_tensor_sub:
 * @self: a tensor
 * @other: a tensor broadcastable with @self
 * @error: return location for an error
 *
 * Subtracts elementwise, with NumPy broadcasting and type promotion.
 * Integers wrap around on overflow. Not defined for two bool tensors.
 *
 * Returns: (transfer full): `self - other`, or %NULL with an error set
 */
EP_DEFINE_BINARY_METHOD (sub)

/**
 * ep_tensor_mul:
 * @self: a tensor
 * @other: a tensor broadcastable with @self
 * @error: return location for an error
 *
 * Multiplies elementwise, with NumPy broadcasting and type promotion. For
 * two bool tensors this is logical and.
 *
 * Returns: (transfer full): `self * other`, or %NULL with an error set
 */
EP_DEFINE_BINARY_METHOD (mul)

/**
 * ep_tensor_div:
 * @self: a tensor
 * @other: a tensor broadcastable with @self
 * @error: return location for an error
 *
 * Divides elementwise (true division): integer and bool tensors give
 * float64, as in NumPy; division by zero gives infinities or NaN.
 *
 * Returns: (transfer full): `self / other`, or %NULL with an error set
 */
EP_DEFINE_BINARY_METHOD (div)

/**
 * ep_tensor_pow:
 * @self: the bases
 * @other: the exponents, broadcastable with @self
 * @error: return location for an error
 *
 * Raises elementwise. Integers wrap around on overflow; a negative
 * exponent with an integer result is refused, as in NumPy.
 *
 * Returns: (transfer full): `self ** other`, or %NULL with
 *   %EP_ERROR_INVALID_ARGUMENT set for integers to negative integer
 *   powers, or another error
 */
EP_DEFINE_BINARY_METHOD (pow)

/**
 * ep_tensor_add_scalar:
 * @self: a tensor
 * @other: a number
 * @error: return location for an error
 *
 * Adds a weak scalar (see [ctor@Tensor.new_weak_scalar]): the result
 * keeps the element type of @self, except that a non-integral @other
 * makes an integer tensor float64.
 *
 * Returns: (transfer full): `self + other`
 */
EP_DEFINE_SCALAR_METHOD (add)

/**
 * ep_tensor_sub_scalar:
 * @self: a tensor
 * @other: a number
 * @error: return location for an error
 *
 * Subtracts a weak scalar; see [method@Tensor.add_scalar].
 *
 * Returns: (transfer full): `self - other`
 */
EP_DEFINE_SCALAR_METHOD (sub)

/**
 * ep_tensor_mul_scalar:
 * @self: a tensor
 * @other: a number
 * @error: return location for an error
 *
 * Multiplies by a weak scalar; see [method@Tensor.add_scalar].
 *
 * Returns: (transfer full): `self * other`
 */
EP_DEFINE_SCALAR_METHOD (mul)

/**
 * ep_tensor_div_scalar:
 * @self: a tensor
 * @other: a number
 * @error: return location for an error
 *
 * Divides by a weak scalar; see [method@Tensor.add_scalar].
 *
 * Returns: (transfer full): `self / other`
 */
EP_DEFINE_SCALAR_METHOD (div)

/**
 * ep_tensor_pow_scalar:
 * @self: a tensor
 * @other: a number
 * @error: return location for an error
 *
 * Raises to a weak scalar power; see [method@Tensor.add_scalar].
 *
 * Returns: (transfer full): `self ** other`
 */
EP_DEFINE_SCALAR_METHOD (pow)


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

/* The gradient goes to the operand the result came from: the first
 * where it is NaN or strictly beyond the second, the second where that
 * is NaN or strictly beyond; a tie (equal operands) shares it equally,
 * half each, as the max and min reductions share theirs and as PyTorch
 * does. */
static gboolean
extremum_grad (const EpOpCall   *call,
               EpTensor *const  *output_grads,
               EpTensor        **input_grads,
               GError          **error)
{
  EpTensor *a = call->inputs[0], *b = call->inputs[1];
  g_autoptr(EpTensor) half = ep_grad_literal (0.5);
  g_autoptr(EpTensor) wins = NULL, nan = NULL, first = NULL, tie = NULL, first_or_tie = NULL;
  g_autoptr(EpTensor) second = NULL, shared = NULL, tie_share = NULL;
  g_autoptr(EpTensor) ga = NULL, gb = NULL, ga_own = NULL, gb_own = NULL;

  wins = call->op->id == EP_OP_MAXIMUM ? ep_tensor_greater (a, b, error)
                                       : ep_tensor_less (a, b, error);
  if (wins == NULL
      || (nan = ep_tensor_isnan (a, error)) == NULL
      || (first = ep_tensor_logical_or (wins, nan, error)) == NULL
      || (tie = ep_tensor_equal (a, b, error)) == NULL
      || (first_or_tie = ep_tensor_logical_or (first, tie, error)) == NULL
      || (second = ep_tensor_logical_not (first_or_tie, error)) == NULL
      || (shared = ep_tensor_mul (output_grads[0], half, error)) == NULL
      || (tie_share = ep_grad_mask (tie, shared, error)) == NULL
      || (ga_own = ep_grad_mask (first, output_grads[0], error)) == NULL
      || (gb_own = ep_grad_mask (second, output_grads[0], error)) == NULL
      || (ga = ep_tensor_add (ga_own, tie_share, error)) == NULL
      || (gb = ep_tensor_add (gb_own, tie_share, error)) == NULL)
    return FALSE;

  return ep_grad_set_summed (call, 0, g_steal_pointer (&ga), input_grads, error)
         && ep_grad_set_summed (call, 1, g_steal_pointer (&gb), input_grads, error);
}

const EpOpDef ep_op_floordiv = {
  .id = EP_OP_FLOORDIV, .name = "floordiv",
  EP_INPUTS (EP_INPUT ("self"), EP_INPUT ("other")),
  .flags = EP_OP_FLAG_UINT8,
  .infer = ep_op_arithmetic_infer, .gradient = floordiv_grad,
};

const EpOpDef ep_op_mod = {
  .id = EP_OP_MOD, .name = "mod",
  EP_INPUTS (EP_INPUT ("self"), EP_INPUT ("other")),
  .flags = EP_OP_FLAG_UINT8,
  .infer = ep_op_arithmetic_infer, .gradient = mod_grad,
};

const EpOpDef ep_op_minimum = {
  .id = EP_OP_MINIMUM, .name = "minimum",
  EP_INPUTS (EP_INPUT ("self"), EP_INPUT ("other")),
  .flags = EP_OP_FLAG_UINT8,
  .infer = ep_op_arithmetic_infer, .gradient = extremum_grad,
};

const EpOpDef ep_op_maximum = {
  .id = EP_OP_MAXIMUM, .name = "maximum",
  EP_INPUTS (EP_INPUT ("self"), EP_INPUT ("other")),
  .flags = EP_OP_FLAG_UINT8,
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
 * The gradient goes to the smaller operand (to a NaN one); where the two
 * are equal, each gets half of it, as the ties of [method@Tensor.min]
 * share theirs.
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
 * The gradient goes to the larger operand (to a NaN one); where the two
 * are equal, each gets half of it, as the ties of [method@Tensor.max]
 * share theirs.
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
      gdouble bound = i == 0 ? call->attrs.clip.min : call->attrs.clip.max;
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
  gdouble min = call->attrs.clip.min, max = call->attrs.clip.max;
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
  .id = EP_OP_CLIP, .name = "clip",
  EP_INPUTS (EP_INPUT ("self")),
  .flags = EP_OP_FLAG_UINT8,
  EP_ATTRS (EP_ATTR ("min", EP_ATTR_FLOAT, EP_FIELD (clip.min), EP_DEFAULT (-INFINITY),
                     .flags = EP_ATTR_NULLABLE),
            EP_ATTR ("max", EP_ATTR_FLOAT, EP_FIELD (clip.max), EP_DEFAULT (INFINITY),
                     .flags = EP_ATTR_NULLABLE)),
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
  attrs.clip.min = min;
  attrs.clip.max = max;
  return ep_dispatch1 (&ep_op_clip, &self, 1, &attrs, error);
}

static gboolean
where_infer (EpOpCall  *call,
             GError   **error)
{
  EpLayout *out = &call->output_layouts[0];
  EpDType dtype = ep_op_result_dtype (call->inputs + 1, 2);

  if (!ep_op_broadcast (call, out, error))
    return FALSE;

  out->dtype = dtype;
  call->input_dtypes[0] = EP_DTYPE_BOOL;
  call->input_dtypes[1] = dtype;
  call->input_dtypes[2] = dtype;
  return TRUE;
}

/* The gradient goes to the chosen side; the condition has none. */
static gboolean
where_gradient (const EpOpCall   *call,
                EpTensor *const  *output_grads,
                EpTensor        **input_grads,
                GError          **error)
{
  g_autoptr(EpTensor) zero = ep_grad_literal (0.0);

  for (guint i = 1; i < 3; i++)
    {
      EpTensor *chosen;

      if (!ep_grad_needed (call, i))
        continue;

      chosen = i == 1 ? ep_tensor_where (call->inputs[0], output_grads[0], zero, error)
                      : ep_tensor_where (call->inputs[0], zero, output_grads[0], error);
      if (!ep_grad_set_summed (call, i, chosen, input_grads, error))
        return FALSE;
    }

  return TRUE;
}

const EpOpDef ep_op_where = {
  .id = EP_OP_WHERE, .name = "where",
  EP_INPUTS (EP_INPUT ("self"), EP_INPUT ("x"), EP_INPUT ("y")),
  .flags = EP_OP_FLAG_UINT8,
  .infer = where_infer,
  .gradient = where_gradient,
};

/**
 * ep_tensor_where:
 * @self: the condition; non-bool tensors count non-zero as true
 * @x: the values where @self is true
 * @y: the values where @self is false
 * @error: return location for an error
 *
 * Chooses elementwise between @x and @y; all three broadcast together and
 * @x and @y promote to a common type. Weak scalars
 * ([ctor@Tensor.new_weak_scalar]) are accepted for @x and @y. The gradient
 * goes to @x where @self is true and to @y elsewhere.
 *
 * Returns: (transfer full): the chosen values, or %NULL with
 *   %EP_ERROR_SHAPE set if the shapes do not broadcast
 */
EpTensor *
ep_tensor_where (EpTensor  *self,
                 EpTensor  *x,
                 EpTensor  *y,
                 GError   **error)
{
  EpTensor *inputs[3] = { self, x, y };

  g_return_val_if_fail (EP_IS_TENSOR (self), NULL);
  g_return_val_if_fail (EP_IS_TENSOR (x), NULL);
  g_return_val_if_fail (EP_IS_TENSOR (y), NULL);

  return ep_dispatch1 (&ep_op_where, inputs, 3, NULL, error);
}
