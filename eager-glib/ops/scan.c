/* ops/scan.c: cumulative sums and products; diff, a composite of slices and sub
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <glib/gi18n-lib.h>

#include <inttypes.h>

#include "ep-autodiff-private.h"
#include "ep-dispatch-private.h"
#include "ep-error.h"
#include "ep-error-private.h"
#include "ep-grad-private.h"
#include "ep-math-private.h"

static gboolean
cumsum_infer (EpOpCall  *call,
              GError   **error)
{
  const EpLayout *in = &call->inputs[0]->layout;
  EpDType dtype = ep_op_accumulation_dtype (in->dtype);
  gint64 size = ep_layout_get_size (in);

  if (!ep_op_one_axis_or_flat (call, error))
    return FALSE;

  call->input_dtypes[0] = dtype;
  if (call->attrs.all_axes)
    ep_op_set_output (call, dtype, &size, 1);
  else
    ep_op_set_output (call, dtype, in->shape, in->ndim);
  return TRUE;
}

/* v[i] + v[i + 1] + … to the end of the scanned axis (all of flattened
 * @v when @flat): sum (v) - cumsum (v) + v */
static EpTensor *
reversed_cumsum (EpTensor  *v,
                 gboolean   flat,
                 gint       axis,
                 GError   **error)
{
  g_autoptr(EpTensor) total = NULL, running = NULL, before = NULL;

  if ((total = ep_tensor_sum (v, flat ? NULL : &axis, flat ? 0 : 1, TRUE, error)) == NULL
      || (running = ep_tensor_cumsum (v, flat ? EP_AXIS_NONE : axis, error)) == NULL
      || (before = ep_tensor_sub (total, running, error)) == NULL)
    return NULL;
  return ep_tensor_add (before, v, error);
}

/* Each input element reaches every later output: the gradient is the
 * reversed cumulative sum. */
static gboolean
cumsum_grad (const EpOpCall   *call,
             EpTensor *const  *output_grads,
             EpTensor        **input_grads,
             GError          **error)
{
  const EpLayout *in = &call->inputs[0]->layout;
  g_autoptr(EpTensor) reversed = reversed_cumsum (output_grads[0], call->attrs.all_axes,
                                                  call->attrs.axes[0], error);

  if (reversed == NULL)
    return FALSE;
  input_grads[0] = ep_tensor_reshape (reversed, in->shape, in->ndim, error);
  return input_grads[0] != NULL;
}

const EpOpDef ep_op_cumsum = {
  .id = EP_OP_CUMSUM, .name = "cumsum",
  EP_INPUTS (EP_INPUT ("self")),
  .flags = EP_OP_FLAG_UINT8,
  EP_ATTRS (EP_ATTR_AXIS_ARG (.flags = EP_ATTR_NULLABLE)),
  .infer = cumsum_infer, .gradient = cumsum_grad,
};

/**
 * ep_tensor_cumsum:
 * @self: a tensor
 * @axis: the axis to accumulate along, or %EP_AXIS_NONE to accumulate
 *   over the flattened tensor
 * @error: return location for an error
 *
 * Cumulative sums along an axis, as NumPy's `cumsum`: element i is the
 * sum of elements 0 … i, added in order. Without an axis the result is
 * 1-dimensional; so it is for a 0-d tensor, flattened first as in NumPy
 * (its axis is 0 or -1). Bool and integer tensors accumulate as int64
 * (uint8, int8 and int16 too: where NumPy gives uint64 for uint8,
 * eager-glib, which has no uint64, gives int64 as for every integer).
 *
 * Returns: (transfer full): the sums, or %NULL with %EP_ERROR_AXIS set
 *   if the axis is out of range
 */
EpTensor *
ep_tensor_cumsum (EpTensor  *self,
                  gint       axis,
                  GError   **error)
{
  return ep_dispatch_optional_axis (&ep_op_cumsum, self, axis, FALSE, error);
}

/* d out[j] / d x[i] for j >= i is the product of x[0 … j] but x[i],
 * taken without dividing by zero. With safe = x where x != 0 else 1, its
 * running product p and seen, the count of zeros in x[0 … j]:
 * the product is p[j] / safe[i] where x[i] != 0 and no zero came yet
 * (seen[j] == 0), p[j] where x[i] == 0 is the only zero so far
 * (seen[j] == 1), and 0 otherwise. So the gradient is the reversed
 * cumulative sum of g p masked by seen == 0, or by seen == 1 at a zero,
 * over safe (exact at the zeros; as torch's g out / x elsewhere). */
static gboolean
cumprod_grad (const EpOpCall   *call,
              EpTensor *const  *output_grads,
              EpTensor        **input_grads,
              GError          **error)
{
  EpTensor *g = output_grads[0];
  const EpLayout *in = &call->inputs[0]->layout;
  gboolean flat = call->attrs.all_axes;
  gint axis = flat ? EP_AXIS_NONE : call->attrs.axes[0];
  g_autoptr(EpTensor) zero = ep_tensor_new_weak_scalar (0.0, EP_DTYPE_INT64);
  g_autoptr(EpTensor) one = ep_tensor_new_weak_scalar (1.0, EP_DTYPE_INT64);
  g_autoptr(EpTensor) x = NULL, is_zero = NULL, safe = NULL, running = NULL, seen = NULL;
  g_autoptr(EpTensor) g_running = NULL, none = NULL, single = NULL, g_none = NULL;
  g_autoptr(EpTensor) g_single = NULL, after_none = NULL, after_single = NULL;
  g_autoptr(EpTensor) after = NULL, grad = NULL;

  if (flat)
    {
      gint64 size = ep_layout_get_size (in);

      x = ep_tensor_reshape (call->inputs[0], &size, 1, error);
    }
  else
    x = g_object_ref (call->inputs[0]);

  if (x == NULL
      || (is_zero = ep_tensor_equal (x, zero, error)) == NULL
      || (safe = ep_tensor_where (is_zero, one, x, error)) == NULL
      || (running = ep_tensor_cumprod (safe, axis, error)) == NULL
      || (seen = ep_tensor_cumsum (is_zero, axis, error)) == NULL
      || (g_running = ep_tensor_mul (g, running, error)) == NULL
      || (none = ep_tensor_equal (seen, zero, error)) == NULL
      || (single = ep_tensor_equal (seen, one, error)) == NULL
      || (g_none = ep_grad_mask (none, g_running, error)) == NULL
      || (g_single = ep_grad_mask (single, g_running, error)) == NULL
      || (after_none = reversed_cumsum (g_none, flat, axis, error)) == NULL
      || (after_single = reversed_cumsum (g_single, flat, axis, error)) == NULL
      || (after = ep_tensor_where (is_zero, after_single, after_none, error)) == NULL
      || (grad = ep_tensor_div (after, safe, error)) == NULL)
    return FALSE;

  input_grads[0] = ep_tensor_reshape (grad, in->shape, in->ndim, error);
  return input_grads[0] != NULL;
}

const EpOpDef ep_op_cumprod = {
  .id = EP_OP_CUMPROD, .name = "cumprod",
  EP_INPUTS (EP_INPUT ("self")),
  .flags = EP_OP_FLAG_UINT8,
  EP_ATTRS (EP_ATTR_AXIS_ARG (.flags = EP_ATTR_NULLABLE)),
  .infer = cumsum_infer, .gradient = cumprod_grad,
};

/**
 * ep_tensor_cumprod:
 * @self: a tensor
 * @axis: the axis to accumulate along, or %EP_AXIS_NONE to accumulate
 *   over the flattened tensor
 * @error: return location for an error
 *
 * Cumulative products along an axis, as NumPy's `cumprod`: element i is
 * the product of elements 0 … i, multiplied in order. Without an axis the
 * result is 1-dimensional; so it is for a 0-d tensor, flattened first as
 * in NumPy (its axis is 0 or -1). Bool and integer tensors (uint8, int8
 * and int16 too) multiply as int64, wrapping around on overflow, as
 * [method@Tensor.cumsum] adds them. Its gradient is exact with zeros in
 * @self (it does not divide by them).
 *
 * Returns: (transfer full): the products, or %NULL with %EP_ERROR_AXIS
 *   set if the axis is out of range
 */
EpTensor *
ep_tensor_cumprod (EpTensor  *self,
                   gint       axis,
                   GError   **error)
{
  return ep_dispatch_optional_axis (&ep_op_cumprod, self, axis, FALSE, error);
}

const EpOpDef ep_func_diff = {
  .id = EP_N_OPS, .name = "diff",
  EP_INPUTS (EP_INPUT ("self")),
  EP_ATTRS (EP_ATTR ("n", EP_ATTR_INT, EP_NO_FIELD, EP_DEFAULT (1)),
            EP_ATTR_AXIS_ARG (EP_DEFAULT (-1))),
};

/* x[1:] - x[:-1] along @axis; for bool, where NumPy's diff takes
 * not_equal, x[1:] != x[:-1] */
static EpTensor *
diff_once (EpTensor  *x,
           gint       axis,
           GError   **error)
{
  gint64 extent = x->layout.shape[axis];
  gint64 starts[EP_MAX_DIMS] = { 0 }, stops[EP_MAX_DIMS];
  g_autoptr(EpTensor) later = NULL, earlier = NULL;

  for (gint d = 0; d < axis; d++)
    stops[d] = G_MAXINT64;
  starts[axis] = MIN (extent, 1);
  stops[axis] = G_MAXINT64;
  if ((later = ep_tensor_slice (x, starts, axis + 1, stops, axis + 1, NULL, 0, error)) == NULL)
    return NULL;
  starts[axis] = 0;
  stops[axis] = MAX (extent - 1, 0);
  if ((earlier = ep_tensor_slice (x, starts, axis + 1, stops, axis + 1, NULL, 0, error)) == NULL)
    return NULL;

  if (x->layout.dtype == EP_DTYPE_BOOL)
    return ep_tensor_not_equal (later, earlier, error);
  return ep_tensor_sub (later, earlier, error);
}

/**
 * ep_tensor_diff:
 * @self: a tensor of at least one dimension
 * @n: how many times to take differences, 0 or more
 * @axis: the axis to take them along; -1 for the last
 * @error: return location for an error
 *
 * The n-th discrete difference along @axis, as NumPy's `diff`:
 * `out[i] = self[i + 1] - self[i]`, taken @n times, so that @axis
 * shrinks by @n (to 0 when @n is as long as the axis or longer). Integer
 * differences wrap as integer arithmetic does; bool tensors give
 * `self[i + 1] != self[i]`, as in NumPy. @n of 0 gives @self's values.
 * The differences are slices and [method@Tensor.sub], so that they run
 * on every device and have their gradient.
 *
 * Returns: (transfer full): the differences, or %NULL with
 *   %EP_ERROR_INVALID_ARGUMENT set if @n is negative, or %EP_ERROR_AXIS if
 *   @axis is out of range (always for a 0-d tensor)
 */
EpTensor *
ep_tensor_diff (EpTensor  *self,
                gint64     n,
                gint       axis,
                GError   **error)
{
  g_autoptr(EpTensor) x = NULL;
  gint64 steps;

  g_return_val_if_fail (EP_IS_TENSOR (self), NULL);

  if (n < 0)
    {
      g_set_error (error, EP_ERROR, EP_ERROR_INVALID_ARGUMENT,
                   _("diff: the order n must not be negative (got %" PRId64 ")"), n);
      return NULL;
    }
  if (!ep_func_normalize_axis (&ep_func_diff, axis, self->layout.ndim, &axis, error))
    return NULL;
  if (n == 0)
    return ep_identity (self, error);

  /* past the axis's length every difference is empty */
  steps = MIN (n, MAX (self->layout.shape[axis], 1));
  x = g_object_ref (self);
  for (gint64 k = 0; k < steps; k++)
    {
      EpTensor *next = diff_once (x, axis, error);

      if (next == NULL)
        return ep_error_named_result (NULL, error, "diff");
      g_object_unref (x);
      x = next;
    }

  return g_steal_pointer (&x);
}
