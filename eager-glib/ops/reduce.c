/* ops/reduce.c: reductions: sum mean max min prod all any argmin argmax, the norms, var and std
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <glib/gi18n-lib.h>
#include <math.h>

#include "ep-dispatch-private.h"
#include "ep-error.h"
#include "ep-error-private.h"
#include "ep-grad-private.h"
#include "ep-math-private.h"
#include "ep-tensor-private.h"

/* The output shape: the input's with the reduced axes dropped, or kept
 * as 1 with keepdims. Axes are canonical by now. Shared with the
 * reductions of other families (ep-math-private.h). */
void
ep_op_set_reduced_output (EpOpCall *call,
                          EpDType   dtype)
{
  const EpLayout *in = &call->inputs[0]->layout;
  const EpOpAttrs *attrs = &call->attrs;
  gint64 shape[EP_MAX_DIMS];
  guint ndim = 0, a = 0;

  for (guint d = 0; d < in->ndim; d++)
    {
      gboolean reduced = a < attrs->n_axes && attrs->axes[a] == (gint) d;

      if (reduced)
        a++;
      if (!reduced)
        shape[ndim++] = in->shape[d];
      else if (attrs->keepdims)
        shape[ndim++] = 1;
    }

  ep_op_set_output (call, dtype, shape, ndim);
}

static gboolean
reduces_empty (const EpOpCall *call)
{
  const EpLayout *in = &call->inputs[0]->layout;

  for (guint a = 0; a < call->attrs.n_axes; a++)
    if (in->shape[call->attrs.axes[a]] == 0)
      return TRUE;

  return FALSE;
}

/* sum: NumPy sums bool and int32 as int64 */
static gboolean
sum_infer (EpOpCall  *call,
           GError   **error)
{
  EpDType dtype = call->inputs[0]->layout.dtype;

  if (!ep_op_normalize_reduction_axes (call, error))
    return FALSE;

  if (!ep_dtype_is_floating (dtype))
    dtype = EP_DTYPE_INT64;
  call->input_dtypes[0] = dtype;
  ep_op_set_reduced_output (call, dtype);
  return TRUE;
}

static gboolean
mean_infer (EpOpCall  *call,
            GError   **error)
{
  EpDType dtype = call->inputs[0]->layout.dtype;

  if (!ep_dtype_is_floating (dtype))
    {
      g_set_error (error, EP_ERROR, EP_ERROR_DTYPE,
                   _("mean: not defined for %s tensors; convert with astype first"),
                   ep_dtype_get_name (dtype));
      return FALSE;
    }
  if (!ep_op_normalize_axes (call, call->inputs[0]->layout.ndim, error))
    return FALSE;

  ep_op_set_reduced_output (call, dtype);
  return TRUE;
}

static gboolean
extremum_infer (EpOpCall  *call,
                GError   **error)
{
  if (!ep_op_normalize_reduction_axes (call, error))
    return FALSE;

  if (reduces_empty (call))
    {
      g_set_error (error, EP_ERROR, EP_ERROR_SHAPE,
                   _("%s: reduction over a zero-size axis has no identity"),
                   call->op->name);
      return FALSE;
    }

  ep_op_set_reduced_output (call, call->inputs[0]->layout.dtype);
  return TRUE;
}

/* Gradients: the output's gradient, with the reduced axes restored as
 * extent 1, spread over the input. */

static gboolean
sum_gradient (const EpOpCall   *call,
              EpTensor *const  *output_grads,
              EpTensor        **input_grads,
              GError          **error)
{
  g_autoptr(EpTensor) g = NULL;

  if (!ep_grad_needed (call, 0))
    return TRUE;

  g = ep_grad_keep_reduced (call, output_grads[0], error);
  if (g == NULL)
    return FALSE;

  input_grads[0] = ep_grad_broadcast (g, &call->inputs[0]->layout, error);
  return input_grads[0] != NULL;
}

static gboolean
mean_gradient (const EpOpCall   *call,
               EpTensor *const  *output_grads,
               EpTensor        **input_grads,
               GError          **error)
{
  const EpLayout *in = &call->inputs[0]->layout;
  g_autoptr(EpTensor) g = NULL;
  g_autoptr(EpTensor) scaled = NULL;
  gdouble count = 1.0;

  if (!ep_grad_needed (call, 0))
    return TRUE;

  for (guint a = 0; a < call->attrs.n_axes; a++)
    count *= (gdouble) in->shape[call->attrs.axes[a]];

  g = ep_grad_keep_reduced (call, output_grads[0], error);
  scaled = g ? ep_tensor_div_scalar (g, count, error) : NULL;
  if (scaled == NULL)
    return FALSE;

  input_grads[0] = ep_grad_broadcast (scaled, in, error);
  return input_grads[0] != NULL;
}

/* The gradient goes to the elements equal to the extremum, shared
 * equally between ties (as TensorFlow does); a slice whose extremum is
 * NaN gets none. */
static gboolean
extremum_gradient (const EpOpCall   *call,
                   EpTensor *const  *output_grads,
                   EpTensor        **input_grads,
                   GError          **error)
{
  EpTensor *x = call->inputs[0];
  g_autoptr(EpTensor) zero = ep_grad_literal (0.0);
  g_autoptr(EpTensor) one = ep_grad_literal (1.0);
  g_autoptr(EpTensor) g = NULL, y = NULL, hit = NULL, mask = NULL, ties = NULL;
  g_autoptr(EpTensor) any = NULL, count = NULL, share = NULL;

  if (!ep_grad_needed (call, 0))
    return TRUE;

  if ((g = ep_grad_keep_reduced (call, output_grads[0], error))
      && (y = ep_grad_keep_reduced (call, call->outputs[0], error))
      && (hit = ep_tensor_equal (x, y, error))
      && (mask = ep_tensor_astype (hit, x->layout.dtype, error))
      && (ties = ep_tensor_sum (mask, call->attrs.axes, call->attrs.n_axes, TRUE, error))
      && (any = ep_tensor_greater (ties, zero, error))
      && (count = ep_tensor_where (any, ties, one, error))
      && (share = ep_tensor_div (g, count, error)))
    input_grads[0] = ep_tensor_mul (mask, share, error);

  return input_grads[0] != NULL;
}

const EpOpDef ep_op_sum = {
  .id = EP_OP_SUM, .name = "sum",
  EP_INPUTS (EP_INPUT ("self")),
  .flags = EP_OP_FLAG_UINT8,
  EP_ATTRS (EP_ATTR_AXES_ARG, EP_ATTR_KEEPDIMS_ARG),
  .infer = sum_infer,
  .gradient = sum_gradient,
};

const EpOpDef ep_op_mean = {
  .id = EP_OP_MEAN, .name = "mean",
  EP_INPUTS (EP_INPUT ("self")),
  EP_ATTRS (EP_ATTR_AXES_ARG, EP_ATTR_KEEPDIMS_ARG),
  .infer = mean_infer,
  .gradient = mean_gradient,
};

const EpOpDef ep_op_max = {
  .id = EP_OP_MAX, .name = "max",
  EP_INPUTS (EP_INPUT ("self")),
  .flags = EP_OP_FLAG_UINT8,
  EP_ATTRS (EP_ATTR_AXES_ARG, EP_ATTR_KEEPDIMS_ARG),
  .infer = extremum_infer,
  .gradient = extremum_gradient,
};

const EpOpDef ep_op_min = {
  .id = EP_OP_MIN, .name = "min",
  EP_INPUTS (EP_INPUT ("self")),
  .flags = EP_OP_FLAG_UINT8,
  EP_ATTRS (EP_ATTR_AXES_ARG, EP_ATTR_KEEPDIMS_ARG),
  .infer = extremum_infer,
  .gradient = extremum_gradient,
};

/**
 * ep_tensor_sum:
 * @self: a tensor
 * @axes: (array length=n_axes) (nullable): the axes to sum over; %NULL or empty
 *   for all of them. Negative axes count from the end.
 * @n_axes: the number of axes
 * @keepdims: whether to keep the summed axes with extent 1
 * @error: return location for an error
 *
 * Sums over @axes. Bool and integer tensors sum as int64, as in NumPy;
 * floats sum pairwise for accuracy. As in NumPy, a 0-d tensor sums over
 * axis 0 or -1 as over none (so do prod, max, min, all, any and
 * logsumexp; mean refuses it).
 *
 * Returns: (transfer full): the sums, or %NULL with %EP_ERROR_AXIS set if
 *   an axis is out of range or repeated
 */
EpTensor *
ep_tensor_sum (EpTensor    *self,
               const gint  *axes,
               guint        n_axes,
               gboolean     keepdims,
               GError     **error)
{
  return ep_dispatch_axes (&ep_op_sum, self, axes, n_axes, keepdims, error);
}

/**
 * ep_tensor_mean:
 * @self: a floating-point tensor
 * @axes: (array length=n_axes) (nullable): the axes to average over;
 *   %NULL or empty for all of them
 * @n_axes: the number of axes
 * @keepdims: whether to keep the averaged axes with extent 1
 * @error: return location for an error
 *
 * Averages over @axes. The mean of an empty selection is NaN.
 *
 * Returns: (transfer full): the means, or %NULL with %EP_ERROR_DTYPE set
 *   for a tensor that is not floating-point, or %EP_ERROR_AXIS
 */
EpTensor *
ep_tensor_mean (EpTensor    *self,
                const gint  *axes,
                guint        n_axes,
                gboolean     keepdims,
                GError     **error)
{
  return ep_dispatch_axes (&ep_op_mean, self, axes, n_axes, keepdims, error);
}

/**
 * ep_tensor_max:
 * @self: a tensor
 * @axes: (array length=n_axes) (nullable): the axes to reduce; %NULL or empty for
 *   all of them
 * @n_axes: the number of axes
 * @keepdims: whether to keep the reduced axes with extent 1
 * @error: return location for an error
 *
 * The largest element over @axes; NaN if any is NaN, as in NumPy. The
 * gradient goes to the elements equal to the maximum, shared equally
 * between ties.
 *
 * Returns: (transfer full): the maxima, or %NULL with %EP_ERROR_SHAPE set
 *   when reducing over an axis of extent 0, or %EP_ERROR_AXIS
 */
EpTensor *
ep_tensor_max (EpTensor    *self,
               const gint  *axes,
               guint        n_axes,
               gboolean     keepdims,
               GError     **error)
{
  return ep_dispatch_axes (&ep_op_max, self, axes, n_axes, keepdims, error);
}

/**
 * ep_tensor_min:
 * @self: a tensor
 * @axes: (array length=n_axes) (nullable): the axes to reduce; %NULL or empty for
 *   all of them
 * @n_axes: the number of axes
 * @keepdims: whether to keep the reduced axes with extent 1
 * @error: return location for an error
 *
 * The smallest element over @axes; NaN if any is NaN, as in NumPy. The
 * gradient goes to the elements equal to the minimum, shared equally
 * between ties.
 *
 * Returns: (transfer full): the minima, or %NULL with %EP_ERROR_SHAPE set
 *   when reducing over an axis of extent 0, or %EP_ERROR_AXIS
 */
EpTensor *
ep_tensor_min (EpTensor    *self,
               const gint  *axes,
               guint        n_axes,
               gboolean     keepdims,
               GError     **error)
{
  return ep_dispatch_axes (&ep_op_min, self, axes, n_axes, keepdims, error);
}


/* Like sum: bool and integers accumulate as int64, as in NumPy. */
EpDType
ep_op_accumulation_dtype (EpDType dtype)
{
  return ep_dtype_is_floating (dtype) ? dtype : EP_DTYPE_INT64;
}

/* prod */

static gboolean
prod_infer (EpOpCall  *call,
            GError   **error)
{
  EpDType dtype = ep_op_accumulation_dtype (call->inputs[0]->layout.dtype);

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
  .id = EP_OP_PROD, .name = "prod",
  EP_INPUTS (EP_INPUT ("self")),
  .flags = EP_OP_FLAG_UINT8,
  EP_ATTRS (EP_ATTR_AXES_ARG, EP_ATTR_KEEPDIMS_ARG),
  .infer = prod_infer, .gradient = prod_grad,
};

/**
 * ep_tensor_prod:
 * @self: a tensor
 * @axes: (array length=n_axes) (nullable): the axes to multiply over;
 *   %NULL or empty for all of them. Negative axes count from the end.
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

/* Ops along one axis or over the flattened tensor: attrs.all_axes
 * (EP_AXIS_NONE in the call) means flattened, else attrs.axes[0] is the
 * axis, made non-negative here. As NumPy, a 0-d tensor is flattened
 * first: it has an axis 0 (or -1). */
gboolean
ep_op_one_axis_or_flat (EpOpCall  *call,
                        GError   **error)
{
  EpOpAttrs *attrs = &call->attrs;
  guint ndim = call->inputs[0]->layout.ndim;

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

/* argmin, argmax */

static gboolean
arg_extremum_infer (EpOpCall  *call,
                    GError   **error)
{
  const EpLayout *in = &call->inputs[0]->layout;
  gint64 shape[EP_MAX_DIMS];

  if (!ep_op_one_axis_or_flat (call, error))
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
  .id = EP_OP_ARGMIN, .name = "argmin",
  EP_INPUTS (EP_INPUT ("self")),
  .flags = EP_OP_FLAG_UINT8,
  EP_ATTRS (EP_ATTR_AXIS_ARG (.flags = EP_ATTR_NULLABLE), EP_ATTR_KEEPDIMS_ARG),
  .infer = arg_extremum_infer,
  .gradient = NULL,
};

const EpOpDef ep_op_argmax = {
  .id = EP_OP_ARGMAX, .name = "argmax",
  EP_INPUTS (EP_INPUT ("self")),
  .flags = EP_OP_FLAG_UINT8,
  EP_ATTRS (EP_ATTR_AXIS_ARG (.flags = EP_ATTR_NULLABLE), EP_ATTR_KEEPDIMS_ARG),
  .infer = arg_extremum_infer,
  .gradient = NULL,
};

/**
 * ep_tensor_argmin:
 * @self: a tensor
 * @axis: the axis to search along, or %EP_AXIS_NONE for the index into
 *   the flattened tensor
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
ep_tensor_argmin (EpTensor  *self,
                  gint       axis,
                  gboolean   keepdims,
                  GError   **error)
{
  return ep_dispatch_optional_axis (&ep_op_argmin, self, axis, keepdims, error);
}

/**
 * ep_tensor_argmax:
 * @self: a tensor
 * @axis: the axis to search along, or %EP_AXIS_NONE for the index into
 *   the flattened tensor
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
ep_tensor_argmax (EpTensor  *self,
                  gint       axis,
                  gboolean   keepdims,
                  GError   **error)
{
  return ep_dispatch_optional_axis (&ep_op_argmax, self, axis, keepdims, error);
}


/* all, any */

static gboolean
truth_reduce_infer (EpOpCall  *call,
                    GError   **error)
{
  if (!ep_op_normalize_reduction_axes (call, error))
    return FALSE;

  ep_op_set_reduced_output (call, EP_DTYPE_BOOL);
  return TRUE;
}

const EpOpDef ep_op_all = {
  .id = EP_OP_ALL, .name = "all",
  EP_INPUTS (EP_INPUT_OF ("self", EP_INPUT_BOOL)),
  EP_ATTRS (EP_ATTR_AXES_ARG, EP_ATTR_KEEPDIMS_ARG),
  .infer = truth_reduce_infer,
};

const EpOpDef ep_op_any = {
  .id = EP_OP_ANY, .name = "any",
  EP_INPUTS (EP_INPUT_OF ("self", EP_INPUT_BOOL)),
  EP_ATTRS (EP_ATTR_AXES_ARG, EP_ATTR_KEEPDIMS_ARG),
  .infer = truth_reduce_infer,
};

/**
 * ep_tensor_all:
 * @self: a bool tensor
 * @axes: (array length=n_axes) (nullable): the axes to reduce; %NULL or empty for
 *   all of them. Negative axes count from the end.
 * @n_axes: the number of axes
 * @keepdims: whether to keep the reduced axes with extent 1
 * @error: return location for an error
 *
 * Whether every element over @axes is true; true for an empty selection.
 *
 * Returns: (transfer full): the bool results, or %NULL with
 *   %EP_ERROR_DTYPE set if @self is not bool, or %EP_ERROR_AXIS
 */
EpTensor *
ep_tensor_all (EpTensor    *self,
               const gint  *axes,
               guint        n_axes,
               gboolean     keepdims,
               GError     **error)
{
  return ep_dispatch_axes (&ep_op_all, self, axes, n_axes, keepdims, error);
}

/**
 * ep_tensor_any:
 * @self: a bool tensor
 * @axes: (array length=n_axes) (nullable): the axes to reduce; %NULL or empty for
 *   all of them. Negative axes count from the end.
 * @n_axes: the number of axes
 * @keepdims: whether to keep the reduced axes with extent 1
 * @error: return location for an error
 *
 * Whether some element over @axes is true; false for an empty selection.
 *
 * Returns: (transfer full): the bool results, or %NULL with
 *   %EP_ERROR_DTYPE set if @self is not bool, or %EP_ERROR_AXIS
 */
EpTensor *
ep_tensor_any (EpTensor    *self,
               const gint  *axes,
               guint        n_axes,
               gboolean     keepdims,
               GError     **error)
{
  return ep_dispatch_axes (&ep_op_any, self, axes, n_axes, keepdims, error);
}


/* Vector norms: composites of public ops, as in EagerPy; their gradients
 * come from the ops they are made of. */

#define NORM_FUNC(op_name)                                                  \
  const EpOpDef ep_func_##op_name = {                                       \
    .id = EP_N_OPS, .name = #op_name,                                       \
    EP_INPUTS (EP_INPUT ("self")),                                          \
    EP_ATTRS (EP_ATTR_AXES_ARG, EP_ATTR_KEEPDIMS_ARG),                      \
  };

NORM_FUNC (l0)
NORM_FUNC (l1)
NORM_FUNC (l2)
NORM_FUNC (linf)

const EpOpDef ep_func_lp = {
  .id = EP_N_OPS, .name = "lp",
  EP_INPUTS (EP_INPUT ("self")),
  EP_ATTRS (EP_ATTR ("p", EP_ATTR_FLOAT, EP_NO_FIELD),
            EP_ATTR_AXES_ARG, EP_ATTR_KEEPDIMS_ARG),
};

/* @x ** @p (@x >= 0, @p > 0; NAN: sqrt (@x), bit for bit) with a
 * subgradient of 0 where @x is 0, as PyTorch's norms have: there
 * x ** (p - 1) is infinite for p < 1, and the chain rule multiplies it
 * by 0 into NaN. The power sees 1 where @x is 0 and its result is
 * replaced by 0 there, so neither branch of the where is infinite and
 * no NaN reaches the gradient (nor any higher derivative). */
static EpTensor *
power_zero_at_zero (EpTensor  *x,
                    gdouble    p,
                    GError   **error)
{
  g_autoptr(EpTensor) zero = ep_tensor_new_weak_int (0);
  g_autoptr(EpTensor) one = ep_tensor_new_weak_int (1);
  g_autoptr(EpTensor) is_zero = NULL;
  g_autoptr(EpTensor) safe = NULL;
  g_autoptr(EpTensor) powered = NULL;

  if ((is_zero = ep_tensor_equal (x, zero, error)) == NULL
      || (safe = ep_tensor_where (is_zero, one, x, error)) == NULL
      || (powered = isnan (p) ? ep_tensor_sqrt (safe, error) : ep_tensor_pow_scalar (safe, p, error)) == NULL)
    return NULL;

  return ep_tensor_where (is_zero, zero, powered, error);
}

/**
 * ep_tensor_l0:
 * @self: a tensor
 * @axes: (array length=n_axes) (nullable): the axes to reduce; %NULL or empty for
 *   all of them. Negative axes count from the end.
 * @n_axes: the number of axes
 * @keepdims: whether to keep the reduced axes with extent 1
 * @error: return location for an error
 *
 * The number of non-zero elements over @axes (NaN counts). Floating-point
 * tensors give their own type, as in EagerPy; others give int64.
 *
 * Returns: (transfer full): the counts, or %NULL with %EP_ERROR_AXIS set
 */
EpTensor *
ep_tensor_l0 (EpTensor    *self,
              const gint  *axes,
              guint        n_axes,
              gboolean     keepdims,
              GError     **error)
{
  g_autoptr(EpTensor) zero = ep_tensor_new_weak_scalar (0.0, EP_DTYPE_INT64);
  g_autoptr(EpTensor) nonzero = NULL;
  g_autoptr(EpTensor) count = NULL;
  EpDType dtype;

  g_return_val_if_fail (EP_IS_TENSOR (self), NULL);

  dtype = self->layout.dtype;
  if ((nonzero = ep_tensor_not_equal (self, zero, error)) == NULL
      || (count = ep_tensor_sum (nonzero, axes, n_axes, keepdims, error)) == NULL)
    return ep_error_named_result (NULL, error, "l0");

  return ep_error_named_result (ep_tensor_astype (count, ep_dtype_is_floating (dtype) ? dtype : EP_DTYPE_INT64, error),
                                error, "l0");
}

/**
 * ep_tensor_l1:
 * @self: a tensor
 * @axes: (array length=n_axes) (nullable): the axes to reduce; %NULL or empty for
 *   all of them. Negative axes count from the end.
 * @n_axes: the number of axes
 * @keepdims: whether to keep the reduced axes with extent 1
 * @error: return location for an error
 *
 * The sum of absolute values over @axes (integers sum as int64).
 *
 * Returns: (transfer full): the norms, or %NULL with %EP_ERROR_AXIS set
 */
EpTensor *
ep_tensor_l1 (EpTensor    *self,
              const gint  *axes,
              guint        n_axes,
              gboolean     keepdims,
              GError     **error)
{
  g_autoptr(EpTensor) magnitude = NULL;

  g_return_val_if_fail (EP_IS_TENSOR (self), NULL);

  if ((magnitude = ep_tensor_abs (self, error)) == NULL)
    return ep_error_named_result (NULL, error, "l1");

  return ep_error_named_result (ep_tensor_sum (magnitude, axes, n_axes, keepdims, error), error, "l1");
}

/**
 * ep_tensor_l2:
 * @self: a tensor
 * @axes: (array length=n_axes) (nullable): the axes to reduce; %NULL or empty for
 *   all of them. Negative axes count from the end.
 * @n_axes: the number of axes
 * @keepdims: whether to keep the reduced axes with extent 1
 * @error: return location for an error
 *
 * The Euclidean norm `sqrt (sum (self ** 2))` over @axes. Integer
 * tensors give float64. Where a norm is 0 its gradient is 0 (the
 * subgradient PyTorch takes), not the NaN of `sqrt`'s derivative at 0.
 *
 * Returns: (transfer full): the norms, or %NULL with %EP_ERROR_AXIS set
 */
EpTensor *
ep_tensor_l2 (EpTensor    *self,
              const gint  *axes,
              guint        n_axes,
              gboolean     keepdims,
              GError     **error)
{
  g_autoptr(EpTensor) squares = NULL;
  g_autoptr(EpTensor) total = NULL;

  g_return_val_if_fail (EP_IS_TENSOR (self), NULL);

  if ((squares = ep_tensor_square (self, error)) == NULL
      || (total = ep_tensor_sum (squares, axes, n_axes, keepdims, error)) == NULL)
    return ep_error_named_result (NULL, error, "l2");

  return ep_error_named_result (power_zero_at_zero (total, NAN, error), error, "l2");
}

/* Whether reducing @self over @axes (NULL: all) covers no element; axes
 * out of range are left for the reduction to report. */
static gboolean
selects_nothing (EpTensor    *self,
                 const gint  *axes,
                 guint        n_axes)
{
  const EpLayout *layout = &self->layout;
  gint ndim = layout->ndim;

  if (axes == NULL)
    return ep_layout_get_size (layout) == 0;

  for (guint a = 0; a < n_axes; a++)
    {
      gint axis = axes[a] < 0 ? axes[a] + ndim : axes[a];

      if (axis >= 0 && axis < ndim && layout->shape[axis] == 0)
        return TRUE;
    }

  return FALSE;
}

/* max or min of |self|; the norm of nothing is 0 */
static EpTensor *
extreme_magnitude (EpTensor    *self,
                   gboolean     largest,
                   const gint  *axes,
                   guint        n_axes,
                   gboolean     keepdims,
                   GError     **error)
{
  g_autoptr(EpTensor) magnitude = NULL;
  g_autoptr(EpTensor) total = NULL;

  if ((magnitude = ep_tensor_abs (self, error)) == NULL)
    return NULL;

  if (largest && selects_nothing (self, axes, n_axes))
    {
      if ((total = ep_tensor_sum (magnitude, axes, n_axes, keepdims, error)) == NULL)
        return NULL;
      return ep_tensor_astype (total, magnitude->layout.dtype, error);
    }

  return largest ? ep_tensor_max (magnitude, axes, n_axes, keepdims, error)
                 : ep_tensor_min (magnitude, axes, n_axes, keepdims, error);
}

/**
 * ep_tensor_linf:
 * @self: a tensor
 * @axes: (array length=n_axes) (nullable): the axes to reduce; %NULL or empty for
 *   all of them. Negative axes count from the end.
 * @n_axes: the number of axes
 * @keepdims: whether to keep the reduced axes with extent 1
 * @error: return location for an error
 *
 * The largest absolute value over @axes; 0 for an empty selection. Keeps
 * the element type.
 *
 * Returns: (transfer full): the norms, or %NULL with %EP_ERROR_AXIS set
 */
EpTensor *
ep_tensor_linf (EpTensor    *self,
                const gint  *axes,
                guint        n_axes,
                gboolean     keepdims,
                GError     **error)
{
  g_return_val_if_fail (EP_IS_TENSOR (self), NULL);

  return ep_error_named_result (extreme_magnitude (self, TRUE, axes, n_axes, keepdims, error), error, "linf");
}

/**
 * ep_tensor_lp:
 * @self: a tensor
 * @p: the order: any number but NaN
 * @axes: (array length=n_axes) (nullable): the axes to reduce; %NULL or empty for
 *   all of them. Negative axes count from the end.
 * @n_axes: the number of axes
 * @keepdims: whether to keep the reduced axes with extent 1
 * @error: return location for an error
 *
 * The p-norm `sum (|self| ** p) ** (1 / p)` over @axes, as NumPy's
 * `linalg.norm` of a vector: @p of 0, 1, 2 and inf are
 * [method@Tensor.l0], [method@Tensor.l1], [method@Tensor.l2] and
 * [method@Tensor.linf]; -inf gives the smallest absolute value. Other
 * orders compute in floating point (integer tensors as float64).
 *
 * Gradients at 0: for a positive @p, an element that is 0 and a norm
 * that is 0 get a gradient of 0, as in PyTorch, where the derivative
 * of the power is infinite; ties of the largest (smallest) absolute
 * value share the gradient of [method@Tensor.linf] as
 * [method@Tensor.max] does.
 *
 * Returns: (transfer full): the norms, or %NULL with
 *   %EP_ERROR_INVALID_ARGUMENT set if @p is NaN, or %EP_ERROR_AXIS
 */
EpTensor *
ep_tensor_lp (EpTensor    *self,
              gdouble      p,
              const gint  *axes,
              guint        n_axes,
              gboolean     keepdims,
              GError     **error)
{
  g_autoptr(EpTensor) magnitude = NULL;
  g_autoptr(EpTensor) floating = NULL;
  g_autoptr(EpTensor) powers = NULL;
  g_autoptr(EpTensor) total = NULL;

  g_return_val_if_fail (EP_IS_TENSOR (self), NULL);

  if (isnan (p))
    {
      g_set_error (error, EP_ERROR, EP_ERROR_INVALID_ARGUMENT,
                   _("lp: the order p must be a number, not NaN"));
      return NULL;
    }
  if (p == 0.0)
    return ep_error_named_result (ep_tensor_l0 (self, axes, n_axes, keepdims, error), error, "lp");
  if (p == 1.0)
    return ep_error_named_result (ep_tensor_l1 (self, axes, n_axes, keepdims, error), error, "lp");
  if (p == 2.0)
    return ep_error_named_result (ep_tensor_l2 (self, axes, n_axes, keepdims, error), error, "lp");
  if (isinf (p))
    return ep_error_named_result (extreme_magnitude (self, p > 0, axes, n_axes, keepdims, error), error, "lp");

  if ((magnitude = ep_tensor_abs (self, error)) == NULL
      || (floating = ep_tensor_astype (magnitude, ep_dtype_is_floating (magnitude->layout.dtype)
                                                  ? magnitude->layout.dtype : EP_DTYPE_FLOAT64, error)) == NULL
      || (powers = p > 0 && p < 1 ? power_zero_at_zero (floating, p, error)
                                  : ep_tensor_pow_scalar (floating, p, error)) == NULL
      || (total = ep_tensor_sum (powers, axes, n_axes, keepdims, error)) == NULL)
    return ep_error_named_result (NULL, error, "lp");

  /* the outer root's derivative is infinite at 0 for p > 1 only */
  return ep_error_named_result (p > 1 ? power_zero_at_zero (total, 1.0 / p, error)
                                      : ep_tensor_pow_scalar (total, 1.0 / p, error),
                                error, "lp");
}


/* Variance and standard deviation: composites, two passes as NumPy's
 * (the mean, then the sum of squared deviations from it), so they are
 * as accurate as NumPy's and their gradients, 2 (x - mean) / (N - c),
 * come from the ops they are made of (second derivatives included). A
 * staged call fuses the subtraction, the square and the sum into one
 * pass. */

#define MOMENT_FUNC(op_name)                                                \
  const EpOpDef ep_func_##op_name = {                                       \
    .id = EP_N_OPS, .name = #op_name,                                       \
    EP_INPUTS (EP_INPUT ("self")),                                          \
    EP_ATTRS (EP_ATTR_AXES_ARG, EP_ATTR_KEEPDIMS_ARG,                       \
              EP_ATTR ("correction", EP_ATTR_FLOAT, EP_NO_FIELD,            \
                       EP_DEFAULT (0.0), .flags = EP_ATTR_FINITE)),         \
  };

MOMENT_FUNC (var)
MOMENT_FUNC (std)

static EpTensor *
variance (EpTensor    *self,
          const gint  *axes,
          guint        n_axes,
          gboolean     keepdims,
          gdouble      correction,
          const char  *name,
          GError     **error)
{
  g_autoptr(EpTensor) floating = NULL;
  g_autoptr(EpTensor) mean = NULL;
  g_autoptr(EpTensor) deviations = NULL;
  g_autoptr(EpTensor) squares = NULL;
  g_autoptr(EpTensor) total = NULL;
  gdouble count = 1.0;

  if (!isfinite (correction))
    {
      g_set_error (error, EP_ERROR, EP_ERROR_INVALID_ARGUMENT,
                   _("%s: the correction must be a finite number, not %g"),
                   name, correction);
      return NULL;
    }

  /* NumPy: integers and bools give float64 */
  if (ep_dtype_is_floating (self->layout.dtype))
    floating = g_object_ref (self);
  else if ((floating = ep_tensor_astype (self, EP_DTYPE_FLOAT64, error)) == NULL)
    return NULL;

  if ((mean = ep_tensor_mean (floating, axes, n_axes, TRUE, error)) == NULL)
    return NULL;

  /* the reduced axes are those where the kept mean has extent 1 and the
   * input another (an extent of 1 counts once either way) */
  for (guint d = 0; d < floating->layout.ndim; d++)
    if (mean->layout.shape[d] != floating->layout.shape[d])
      count *= (gdouble) floating->layout.shape[d];

  if ((deviations = ep_tensor_sub (floating, mean, error)) == NULL
      || (squares = ep_tensor_square (deviations, error)) == NULL
      || (total = ep_tensor_sum (squares, axes, n_axes, keepdims, error)) == NULL)
    return NULL;

  /* NumPy divides by max (N - ddof, 0): inf or NaN past the count */
  return ep_tensor_div_scalar (total, MAX (count - correction, 0.0), error);
}

/**
 * ep_tensor_var:
 * @self: a tensor
 * @axes: (array length=n_axes) (nullable): the axes to reduce; %NULL or empty for
 *   all of them. Negative axes count from the end.
 * @n_axes: the number of axes
 * @keepdims: whether to keep the reduced axes with extent 1
 * @correction: subtracted from the number of elements N in the divisor:
 *   0 for the biased (population) variance, 1 for the unbiased one
 *   (NumPy's `ddof`, PyTorch's `correction`)
 * @error: return location for an error
 *
 * The variance `sum ((self - mean) ** 2) / (N - correction)` over @axes,
 * computed as NumPy does: the mean first, then the squared deviations
 * from it (floats accumulate in their own type, pairwise). Integer and
 * bool tensors give float64. As in NumPy, a @correction of N or more
 * divides by 0 (inf, or NaN where every deviation is 0), and an empty
 * selection gives NaN. The gradient is `2 (self - mean) / (N - correction)`
 * times the output's.
 *
 * Returns: (transfer full): the variances, or %NULL with
 *   %EP_ERROR_INVALID_ARGUMENT set if @correction is not finite, or
 *   %EP_ERROR_AXIS
 */
EpTensor *
ep_tensor_var (EpTensor    *self,
               const gint  *axes,
               guint        n_axes,
               gboolean     keepdims,
               gdouble      correction,
               GError     **error)
{
  g_return_val_if_fail (EP_IS_TENSOR (self), NULL);

  return ep_error_named_result (variance (self, axes, n_axes, keepdims, correction, "var", error),
                                error, "var");
}

/**
 * ep_tensor_std:
 * @self: a tensor
 * @axes: (array length=n_axes) (nullable): the axes to reduce; %NULL or empty for
 *   all of them. Negative axes count from the end.
 * @n_axes: the number of axes
 * @keepdims: whether to keep the reduced axes with extent 1
 * @correction: subtracted from the number of elements in the divisor, as
 *   in [method@Tensor.var]
 * @error: return location for an error
 *
 * The standard deviation: the square root of [method@Tensor.var], with
 * its rules for types, empty selections and @correction. Where it is 0
 * its gradient is NaN, as in NumPy's and PyTorch's derivative of the
 * square root.
 *
 * Returns: (transfer full): the standard deviations, or %NULL with
 *   %EP_ERROR_INVALID_ARGUMENT set if @correction is not finite, or
 *   %EP_ERROR_AXIS
 */
EpTensor *
ep_tensor_std (EpTensor    *self,
               const gint  *axes,
               guint        n_axes,
               gboolean     keepdims,
               gdouble      correction,
               GError     **error)
{
  g_autoptr(EpTensor) var = NULL;

  g_return_val_if_fail (EP_IS_TENSOR (self), NULL);

  if ((var = variance (self, axes, n_axes, keepdims, correction, "std", error)) == NULL)
    return ep_error_named_result (NULL, error, "std");

  return ep_error_named_result (ep_tensor_sqrt (var, error), error, "std");
}
