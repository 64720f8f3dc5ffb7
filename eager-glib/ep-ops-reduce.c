/* ep-ops-reduce.c: sum, mean, max, min over axes
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <glib/gi18n-lib.h>

#include "ep-dispatch-private.h"
#include "ep-error.h"
#include "ep-grad-private.h"
#include "ep-math-private.h"

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
  .id = EP_OP_SUM, .name = "sum", .n_inputs = 1,
  .infer = sum_infer,
  .gradient = sum_gradient,
};

const EpOpDef ep_op_mean = {
  .id = EP_OP_MEAN, .name = "mean", .n_inputs = 1,
  .infer = mean_infer,
  .gradient = mean_gradient,
};

const EpOpDef ep_op_max = {
  .id = EP_OP_MAX, .name = "max", .n_inputs = 1,
  .infer = extremum_infer,
  .gradient = extremum_gradient,
};

const EpOpDef ep_op_min = {
  .id = EP_OP_MIN, .name = "min", .n_inputs = 1,
  .infer = extremum_infer,
  .gradient = extremum_gradient,
};

/**
 * ep_tensor_sum:
 * @self: a tensor
 * @axes: (array length=n_axes) (nullable): the axes to sum over; %NULL
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
 *   %NULL for all of them
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
 * @axes: (array length=n_axes) (nullable): the axes to reduce; %NULL for
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
 * @axes: (array length=n_axes) (nullable): the axes to reduce; %NULL for
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
