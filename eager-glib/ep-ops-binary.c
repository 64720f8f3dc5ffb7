/* ep-ops-binary.c: arithmetic and comparisons with broadcasting
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
    .id = EP_OP_##ID, .name = #op_name, .n_inputs = 2,                      \
    .infer = ep_op_arithmetic_infer,                                              \
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

  if (dtype == EP_DTYPE_BOOL)
    return TRUE;

  bytes = ep_op_read_input (call, 1, error);
  if (bytes == NULL)
    return FALSE;

  data = g_bytes_get_data (bytes, &nbytes);
  for (gsize i = 0; i < nbytes / ep_dtype_get_itemsize (dtype); i++)
    {
      gint64 exponent = dtype == EP_DTYPE_INT32 ? ((const gint32 *) data)[i]
                                                : ((const gint64 *) data)[i];

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
  .id = EP_OP_POW, .name = "pow", .n_inputs = 2,
  .flags = EP_OP_FLAG_READS_DATA,
  .infer = pow_infer,
  .gradient = pow_gradient,
};

#define COMPARISON_OP(ID, op_name)                                          \
  const EpOpDef ep_op_##op_name = {                                         \
    .id = EP_OP_##ID, .name = #op_name, .n_inputs = 2,                      \
    .infer = comparison_infer,                                              \
  };

ARITHMETIC_OP (ADD, add)
ARITHMETIC_OP (SUB, sub)
ARITHMETIC_OP (MUL, mul)
ARITHMETIC_OP (DIV, div)
COMPARISON_OP (LESS, less)
COMPARISON_OP (LESS_EQUAL, less_equal)
COMPARISON_OP (EQUAL, equal)
COMPARISON_OP (NOT_EQUAL, not_equal)
COMPARISON_OP (GREATER, greater)
COMPARISON_OP (GREATER_EQUAL, greater_equal)

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
