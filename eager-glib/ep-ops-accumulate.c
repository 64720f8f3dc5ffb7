/* ep-ops-accumulate.c: prod, cumsum, argmin, argmax
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <glib/gi18n-lib.h>

#include "ep-dispatch-private.h"
#include "ep-error.h"
#include "ep-grad-private.h"
#include "ep-math-private.h"

/* Like sum: bool and integers accumulate as int64, as in NumPy. */
static EpDType
accumulation_dtype (EpDType dtype)
{
  return ep_dtype_is_floating (dtype) ? dtype : EP_DTYPE_INT64;
}

/* prod */

static gboolean
prod_infer (EpOpCall  *call,
            GError   **error)
{
  EpDType dtype = accumulation_dtype (call->inputs[0]->layout.dtype);

  if (!ep_op_normalize_reduction_axes (call, error))
    return FALSE;

  call->input_dtypes[0] = dtype;
  ep_op_set_reduced_output (call, dtype);
  return TRUE;
}

/* The product of the others, without dividing by zero: with no zero in
 * a reduction it is prod / x; with one zero, the product of the others
 * at the zero and 0 elsewhere; with two or more, 0 everywhere. */
static gboolean
prod_grad (const EpOpCall   *call,
           EpTensor *const  *output_grads,
           EpTensor        **input_grads,
           GError          **error)
{
  EpTensor *x = call->inputs[0];
  const gint *axes = call->attrs.axes;
  guint n_axes = call->attrs.n_axes;
  g_autoptr(EpTensor) zero = ep_tensor_new_weak_scalar (0.0, EP_DTYPE_INT64);
  g_autoptr(EpTensor) one = ep_tensor_new_weak_scalar (1.0, EP_DTYPE_INT64);
  g_autoptr(EpTensor) is_zero = NULL, zeros = NULL, safe = NULL, product = NULL;
  g_autoptr(EpTensor) ratio = NULL, none = NULL, single = NULL, at_zero = NULL;
  g_autoptr(EpTensor) part_none = NULL, part_single = NULL, factor = NULL, g = NULL;

  if ((is_zero = ep_tensor_equal (x, zero, error)) == NULL
      || (zeros = ep_tensor_sum (is_zero, axes, n_axes, TRUE, error)) == NULL
      || (safe = ep_tensor_where (is_zero, one, x, error)) == NULL
      || (product = ep_tensor_prod (safe, axes, n_axes, TRUE, error)) == NULL
      || (ratio = ep_tensor_div (product, safe, error)) == NULL
      || (none = ep_tensor_equal (zeros, zero, error)) == NULL
      || (single = ep_tensor_equal (zeros, one, error)) == NULL
      || (at_zero = ep_tensor_logical_and (single, is_zero, error)) == NULL
      || (part_none = ep_grad_mask (none, ratio, error)) == NULL
      || (part_single = ep_grad_mask (at_zero, product, error)) == NULL
      || (factor = ep_tensor_add (part_none, part_single, error)) == NULL
      || (g = ep_grad_keep_reduced (call, output_grads[0], error)) == NULL)
    return FALSE;

  input_grads[0] = ep_tensor_mul (g, factor, error);
  return input_grads[0] != NULL;
}

const EpOpDef ep_op_prod = {
  .id = EP_OP_PROD, .name = "prod", .n_inputs = 1,
  .infer = prod_infer, .gradient = prod_grad,
};

/**
 * ep_tensor_prod:
 * @self: a tensor
 * @axes: (array length=n_axes) (nullable): the axes to multiply over;
 *   %NULL for all of them. Negative axes count from the end.
 * @n_axes: the number of axes
 * @keepdims: whether to keep the reduced axes with extent 1
 * @error: return location for an error
 *
 * Multiplies over @axes; 1 for an empty selection. Bool and integer
 * tensors multiply as int64 (wrapping around on overflow), as NumPy's
 * `prod`.
 *
 * Returns: (transfer full): the products, or %NULL with %EP_ERROR_AXIS
 *   set if an axis is out of range or repeated
 */
EpTensor *
ep_tensor_prod (EpTensor    *self,
                const gint  *axes,
                guint        n_axes,
                gboolean     keepdims,
                GError     **error)
{
  return ep_dispatch_axes (&ep_op_prod, self, axes, n_axes, keepdims, error);
}

/* Ops along one axis or over the flattened tensor: attrs.all_axes means
 * flattened, else attrs.axes[0] is the axis, made non-negative here. As
 * NumPy, a 0-d tensor is flattened first: it has an axis 0 (or -1). */
static gboolean
one_axis_or_flat (EpOpCall  *call,
                  GError   **error)
{
  EpOpAttrs *attrs = &call->attrs;
  guint ndim = call->inputs[0]->layout.ndim;

  if (!attrs->all_axes && attrs->n_axes != 1)
    {
      g_set_error (error, EP_ERROR, EP_ERROR_AXIS,
                   _("%s: takes one axis or none (for the flattened tensor), not %u"),
                   call->op->name, attrs->n_axes);
      return FALSE;
    }
  if (!attrs->all_axes
      && !ep_op_normalize_axis (call, attrs->axes[0], MAX (ndim, 1), &attrs->axes[0], error))
    return FALSE;

  if (ndim == 0)
    {
      attrs->all_axes = TRUE;
      attrs->n_axes = 0;
    }
  if (attrs->all_axes)
    call->contiguous_inputs = 1;

  return TRUE;
}

/* cumsum */

static gboolean
cumsum_infer (EpOpCall  *call,
              GError   **error)
{
  const EpLayout *in = &call->inputs[0]->layout;
  EpDType dtype = accumulation_dtype (in->dtype);
  gint64 size = ep_layout_get_size (in);

  if (!one_axis_or_flat (call, error))
    return FALSE;

  call->input_dtypes[0] = dtype;
  if (call->attrs.all_axes)
    ep_op_set_output (call, dtype, &size, 1);
  else
    ep_op_set_output (call, dtype, in->shape, in->ndim);
  return TRUE;
}

/* Each input element reaches every later output: the gradient is the
 * reversed cumulative sum, sum (g) - cumsum (g) + g. */
static gboolean
cumsum_grad (const EpOpCall   *call,
             EpTensor *const  *output_grads,
             EpTensor        **input_grads,
             GError          **error)
{
  EpTensor *g = output_grads[0];
  const EpLayout *in = &call->inputs[0]->layout;
  gboolean flat = call->attrs.all_axes;
  g_autoptr(EpTensor) total = NULL, running = NULL, before = NULL, reversed = NULL;

  if ((total = ep_tensor_sum (g, flat ? NULL : call->attrs.axes, flat ? 0 : 1, TRUE, error)) == NULL
      || (running = ep_tensor_cumsum (g, flat ? NULL : call->attrs.axes, flat ? 0 : 1, error)) == NULL
      || (before = ep_tensor_sub (total, running, error)) == NULL
      || (reversed = ep_tensor_add (before, g, error)) == NULL)
    return FALSE;

  input_grads[0] = ep_tensor_reshape (reversed, in->shape, in->ndim, error);
  return input_grads[0] != NULL;
}

const EpOpDef ep_op_cumsum = {
  .id = EP_OP_CUMSUM, .name = "cumsum", .n_inputs = 1,
  .infer = cumsum_infer, .gradient = cumsum_grad,
};

/**
 * ep_tensor_cumsum:
 * @self: a tensor
 * @axes: (array length=n_axes) (nullable): the axis to accumulate along,
 *   or %NULL to accumulate over the flattened tensor
 * @n_axes: 1, or 0 with %NULL
 * @error: return location for an error
 *
 * Cumulative sums along an axis, as NumPy's `cumsum`: element i is the
 * sum of elements 0 … i, added in order. Without an axis the result is
 * 1-dimensional; so it is for a 0-d tensor, flattened first as in NumPy
 * (its axis is 0 or -1). Bool and integer tensors accumulate as int64.
 *
 * Returns: (transfer full): the sums, or %NULL with %EP_ERROR_AXIS set
 *   if the axis is out of range or more than one is given
 */
EpTensor *
ep_tensor_cumsum (EpTensor    *self,
                  const gint  *axes,
                  guint        n_axes,
                  GError     **error)
{
  return ep_dispatch_axes (&ep_op_cumsum, self, axes, n_axes, FALSE, error);
}

/* argmin, argmax */

static gboolean
arg_extremum_infer (EpOpCall  *call,
                    GError   **error)
{
  const EpLayout *in = &call->inputs[0]->layout;
  gint64 shape[EP_MAX_DIMS];

  if (!one_axis_or_flat (call, error))
    return FALSE;

  if (call->attrs.all_axes)
    {
      if (ep_layout_get_size (in) == 0)
        {
          g_set_error (error, EP_ERROR, EP_ERROR_SHAPE,
                       _("%s: the tensor is empty"), call->op->name);
          return FALSE;
        }
      for (guint d = 0; d < in->ndim; d++)
        shape[d] = 1;
      ep_op_set_output (call, EP_DTYPE_INT64, shape, call->attrs.keepdims ? in->ndim : 0);
      return TRUE;
    }

  if (in->shape[call->attrs.axes[0]] == 0)
    {
      g_set_error (error, EP_ERROR, EP_ERROR_SHAPE,
                   _("%s: axis %d has extent 0"), call->op->name, call->attrs.axes[0]);
      return FALSE;
    }

  call->attrs.n_axes = 1;
  ep_op_set_reduced_output (call, EP_DTYPE_INT64);
  return TRUE;
}

/* Not differentiable: the output is integer indices. */
const EpOpDef ep_op_argmin = {
  .id = EP_OP_ARGMIN, .name = "argmin", .n_inputs = 1,
  .infer = arg_extremum_infer,
  .gradient = NULL,
};

const EpOpDef ep_op_argmax = {
  .id = EP_OP_ARGMAX, .name = "argmax", .n_inputs = 1,
  .infer = arg_extremum_infer,
  .gradient = NULL,
};

/**
 * ep_tensor_argmin:
 * @self: a tensor
 * @axes: (array length=n_axes) (nullable): the axis to search along, or
 *   %NULL for the index into the flattened tensor
 * @n_axes: 1, or 0 with %NULL
 * @keepdims: whether to keep the searched axes with extent 1
 * @error: return location for an error
 *
 * The index of the smallest element, the first one on ties, as NumPy's
 * `argmin`; the index of the first NaN if there is one.
 *
 * Not differentiable: the result is integer indices, so a gradient tape
 * passes no gradient through it to @self. To differentiate the smallest
 * element, use [method@Tensor.min] or
 * [method@Tensor.take_along_axis] with these indices.
 *
 * Returns: (transfer full): the int64 indices, or %NULL with
 *   %EP_ERROR_SHAPE set if the search is over no elements, or
 *   %EP_ERROR_AXIS
 */
EpTensor *
ep_tensor_argmin (EpTensor    *self,
                  const gint  *axes,
                  guint        n_axes,
                  gboolean     keepdims,
                  GError     **error)
{
  return ep_dispatch_axes (&ep_op_argmin, self, axes, n_axes, keepdims, error);
}

/**
 * ep_tensor_argmax:
 * @self: a tensor
 * @axes: (array length=n_axes) (nullable): the axis to search along, or
 *   %NULL for the index into the flattened tensor
 * @n_axes: 1, or 0 with %NULL
 * @keepdims: whether to keep the searched axes with extent 1
 * @error: return location for an error
 *
 * The index of the largest element, the first one on ties, as NumPy's
 * `argmax`; the index of the first NaN if there is one.
 *
 * Not differentiable: the result is integer indices, so a gradient tape
 * passes no gradient through it to @self. To differentiate the largest
 * element, use [method@Tensor.max] or
 * [method@Tensor.take_along_axis] with these indices.
 *
 * Returns: (transfer full): the int64 indices, or %NULL with
 *   %EP_ERROR_SHAPE set if the search is over no elements, or
 *   %EP_ERROR_AXIS
 */
EpTensor *
ep_tensor_argmax (EpTensor    *self,
                  const gint  *axes,
                  guint        n_axes,
                  gboolean     keepdims,
                  GError     **error)
{
  return ep_dispatch_axes (&ep_op_argmax, self, axes, n_axes, keepdims, error);
}
