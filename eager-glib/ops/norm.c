/* ops/norm.c: layer_norm and batch_norm
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Both normalise with the biased variance, `(x - mean) / sqrt (var +
 * epsilon) * weight + bias`, as PyTorch's functions do. The schema has
 * no optional inputs, so the affine weight and bias are always given (a
 * layer without them passes ones and zeros). The kernels make one pass
 * for the statistics and one for the output; the gradient rules are
 * made of public ops, so an outer tape records them (second derivatives)
 * and a tracer stages them.
 */

#include "config.h"

#include <glib/gi18n-lib.h>
#include <math.h>

#include "ep-dispatch-private.h"
#include "ep-enum-types.h"
#include "ep-error.h"
#include "ep-error-private.h"
#include "ep-autodiff-private.h"
#include "ep-grad-private.h"
#include "ep-norm-private.h"
#include "ep-tensor-private.h"

/* Every input float32 or float64; all are computed in their promoted
 * type. */
static gboolean
norm_float_inputs (EpOpCall     *call,
                   EpDType      *dtype,
                   GError      **error)
{
  EpDType common = call->inputs[0]->layout.dtype;

  for (guint i = 0; i < call->n_inputs; i++)
    {
      EpDType d = call->inputs[i]->layout.dtype;

      if (!ep_dtype_is_floating (d))
        {
          g_set_error (error, EP_ERROR, EP_ERROR_DTYPE,
                       _("%s: %s must be float32 or float64, not a tensor of type %s"),
                       call->op->name, call->op->inputs[i].name, ep_dtype_get_name (d));
          return FALSE;
        }
      common = ep_dtype_promote (common, d);
    }

  for (guint i = 0; i < call->n_inputs; i++)
    call->input_dtypes[i] = common;
  call->contiguous_inputs = (1u << call->n_inputs) - 1;
  *dtype = common;
  return TRUE;
}

static gboolean
norm_check_epsilon (const EpOpCall  *call,
                    GError         **error)
{
  if (!(call->attrs.norm.epsilon >= 0))
    {
      g_set_error (error, EP_ERROR, EP_ERROR_INVALID_ARGUMENT,
                   _("%s: epsilon must not be negative (%g)"),
                   call->op->name, call->attrs.norm.epsilon);
      return FALSE;
    }
  return TRUE;
}

/* Input @i must have @shape. */
static gboolean
norm_check_param (const EpOpCall  *call,
                  guint            i,
                  const gint64    *shape,
                  guint            ndim,
                  GError         **error)
{
  const EpLayout *p = &call->inputs[i]->layout;
  gboolean same = p->ndim == ndim;

  for (guint d = 0; same && d < ndim; d++)
    same = p->shape[d] == shape[d];

  if (!same)
    {
      g_autofree char *want = ep_shape_to_string (shape, ndim);
      g_autofree char *have = ep_shape_to_string (p->shape, p->ndim);

      g_set_error (error, EP_ERROR, EP_ERROR_SHAPE,
                   _("%s: %s must have shape %s, not %s"),
                   call->op->name, call->op->inputs[i].name, want, have);
      return FALSE;
    }
  return TRUE;
}

/* 1 / sqrt (var + epsilon), and @centered (x - mean) times it */
static gboolean
standardize (EpTensor   *centered,
             EpTensor   *var,
             gdouble     epsilon,
             EpTensor  **rstd,
             EpTensor  **xhat,
             GError    **error)
{
  g_autoptr(EpTensor) one = ep_grad_literal (1.0);
  g_autoptr(EpTensor) shifted = NULL, root = NULL;

  if ((shifted = ep_tensor_add_scalar (var, epsilon, error)) == NULL
      || (root = ep_tensor_sqrt (shifted, error)) == NULL
      || (*rstd = ep_tensor_div (one, root, error)) == NULL)
    return FALSE;

  *xhat = ep_tensor_mul (centered, *rstd, error);
  return *xhat != NULL;
}

/* The gradient of x through xhat = (x - mean (x)) rstd, with the
 * statistics taken over @axes: rstd (gxhat - mean (gxhat) - xhat mean
 * (gxhat xhat)), with rstd taken into the row-sized means first so
 * that four full-size ops remain. */
static EpTensor *
normalized_grad (EpTensor    *gxhat,
                 EpTensor    *xhat,
                 EpTensor    *rstd,
                 const gint  *axes,
                 guint        n_axes,
                 GError     **error)
{
  g_autoptr(EpTensor) a = NULL, ra = NULL, gx_xhat = NULL, b = NULL, rb = NULL;
  g_autoptr(EpTensor) scaled = NULL, shifted = NULL, bx = NULL;

  if ((a = ep_tensor_mean (gxhat, axes, n_axes, TRUE, error)) == NULL
      || (ra = ep_tensor_mul (a, rstd, error)) == NULL
      || (gx_xhat = ep_tensor_mul (gxhat, xhat, error)) == NULL
      || (b = ep_tensor_mean (gx_xhat, axes, n_axes, TRUE, error)) == NULL
      || (rb = ep_tensor_mul (b, rstd, error)) == NULL
      || (scaled = ep_tensor_mul (gxhat, rstd, error)) == NULL
      || (shifted = ep_tensor_sub (scaled, ra, error)) == NULL
      || (bx = ep_tensor_mul (xhat, rb, error)) == NULL)
    return NULL;

  return ep_tensor_sub (shifted, bx, error);
}

/* The affine part's gradients, summed over @axes and shaped like
 * inputs @w and @b: sum (g xhat) and sum (g). */
static gboolean
affine_grads (const EpOpCall   *call,
              EpTensor         *g,
              EpTensor         *xhat,
              const gint       *axes,
              guint             n_axes,
              guint             w,
              guint             b,
              EpTensor        **input_grads,
              GError          **error)
{
  const EpLayout *wl = &call->inputs[w]->layout;

  if (ep_grad_needed (call, w))
    {
      g_autoptr(EpTensor) gx = NULL, total = NULL;

      if ((gx = ep_tensor_mul (g, xhat, error)) == NULL
          || (total = ep_tensor_sum (gx, axes, n_axes, FALSE, error)) == NULL
          || (input_grads[w] = ep_tensor_reshape (total, wl->shape, wl->ndim, error)) == NULL)
        return FALSE;
    }
  if (ep_grad_needed (call, b))
    {
      g_autoptr(EpTensor) total = NULL;

      if ((total = ep_tensor_sum (g, axes, n_axes, FALSE, error)) == NULL
          || (input_grads[b] = ep_tensor_reshape (total, wl->shape, wl->ndim, error)) == NULL)
        return FALSE;
    }
  return TRUE;
}

/* layer_norm: over the axes from attrs.axes[0] to the last */

static gboolean
layer_norm_infer (EpOpCall  *call,
                  GError   **error)
{
  const EpLayout *in = &call->inputs[0]->layout;
  EpDType dtype;
  gint axis;

  if (!norm_float_inputs (call, &dtype, error) || !norm_check_epsilon (call, error))
    return FALSE;
  if (in->ndim == 0)
    {
      g_set_error (error, EP_ERROR, EP_ERROR_SHAPE,
                   _("%s: the input must have at least one dimension"), call->op->name);
      return FALSE;
    }
  if (!ep_op_normalize_axis (call, call->attrs.axes[0], in->ndim, &axis, error))
    return FALSE;
  call->attrs.axes[0] = axis;

  if (!norm_check_param (call, 1, in->shape + axis, in->ndim - axis, error)
      || !norm_check_param (call, 2, in->shape + axis, in->ndim - axis, error))
    return FALSE;

  ep_op_set_output (call, dtype, in->shape, in->ndim);
  return TRUE;
}

static gboolean
layer_norm_grad (const EpOpCall   *call,
                 EpTensor *const  *output_grads,
                 EpTensor        **input_grads,
                 GError          **error)
{
  EpTensor *x = call->inputs[0], *g = output_grads[0];
  guint ndim = x->layout.ndim, axis = call->attrs.axes[0];
  gint axes[EP_MAX_DIMS], batch[EP_MAX_DIMS];
  guint n_axes = 0, n_batch = 0;
  g_autoptr(EpTensor) mean = NULL, centered = NULL, squares = NULL, var = NULL;
  g_autoptr(EpTensor) rstd = NULL, xhat = NULL, gxhat = NULL;

  for (guint d = 0; d < ndim; d++)
    if (d < axis)
      batch[n_batch++] = d;
    else
      axes[n_axes++] = d;

  if ((mean = ep_tensor_mean (x, axes, n_axes, TRUE, error)) == NULL
      || (centered = ep_tensor_sub (x, mean, error)) == NULL
      || (squares = ep_tensor_square (centered, error)) == NULL
      || (var = ep_tensor_mean (squares, axes, n_axes, TRUE, error)) == NULL
      || !standardize (centered, var, call->attrs.norm.epsilon, &rstd, &xhat, error))
    return FALSE;

  /* the parameters' gradients sum over the leading axes; with none,
   * sum over no axis at all (an empty list would mean every axis) */
  if (n_batch > 0)
    {
      if (!affine_grads (call, g, xhat, batch, n_batch, 1, 2, input_grads, error))
        return FALSE;
    }
  else
    {
      if (ep_grad_needed (call, 1) && (input_grads[1] = ep_tensor_mul (g, xhat, error)) == NULL)
        return FALSE;
      if (ep_grad_needed (call, 2) && (input_grads[2] = ep_identity (g, error)) == NULL)
        return FALSE;
    }

  if (!ep_grad_needed (call, 0))
    return TRUE;

  if ((gxhat = ep_tensor_mul (g, call->inputs[1], error)) == NULL)
    return FALSE;
  input_grads[0] = normalized_grad (gxhat, xhat, rstd, axes, n_axes, error);
  return input_grads[0] != NULL;
}

#define EP_ATTR_EPSILON_ARG                                                 \
  EP_ATTR ("epsilon", EP_ATTR_FLOAT, EP_FIELD (norm.epsilon),              \
           EP_DEFAULT (1e-5), .flags = EP_ATTR_FINITE)

const EpOpDef ep_op_layer_norm = {
  .id = EP_OP_LAYER_NORM, .name = "layer_norm",
  EP_INPUTS (EP_INPUT ("self"), EP_INPUT ("weight"), EP_INPUT ("bias")),
  EP_ATTRS (EP_ATTR_AXIS_ARG (EP_DEFAULT (-1)), EP_ATTR_EPSILON_ARG),
  .infer = layer_norm_infer, .gradient = layer_norm_grad,
};

/**
 * ep_tensor_layer_norm:
 * @self: a float32 or float64 tensor of at least one dimension
 * @weight: the scale, shaped like the normalised axes (`self.shape[axis:]`)
 * @bias: the shift, shaped like @weight
 * @axis: the first of the normalised axes, which run to the last one;
 *   -1 for the last alone
 * @epsilon: added to the variance before its square root: finite and not
 *   negative (PyTorch's default is 1e-5)
 * @error: return location for an error
 *
 * Layer normalisation, as PyTorch's `nn.functional.layer_norm` with
 * `normalized_shape = self.shape[axis:]`: each row over the axes from
 * @axis on is shifted by its mean and divided by `sqrt (var + epsilon)`
 * (the biased variance), then multiplied by @weight and shifted by
 * @bias. A layer without an affine part passes ones and zeros. Inputs
 * of mixed types compute in the promoted one.
 *
 * Returns: (transfer full): the normalised tensor, or %NULL with
 *   %EP_ERROR_DTYPE set for an input that is not float32 or float64,
 *   %EP_ERROR_SHAPE for a 0-d @self or a @weight or @bias of another
 *   shape, %EP_ERROR_AXIS, or %EP_ERROR_INVALID_ARGUMENT for a negative
 *   or non-finite @epsilon
 */
EpTensor *
ep_tensor_layer_norm (EpTensor  *self,
                      EpTensor  *weight,
                      EpTensor  *bias,
                      gint       axis,
                      gdouble    epsilon,
                      GError   **error)
{
  EpTensor *inputs[3] = { self, weight, bias };
  EpOpAttrs attrs;

  g_return_val_if_fail (EP_IS_TENSOR (self), NULL);
  g_return_val_if_fail (EP_IS_TENSOR (weight), NULL);
  g_return_val_if_fail (EP_IS_TENSOR (bias), NULL);

  ep_op_attrs_init (&attrs);
  ep_op_attrs_set_axis (&attrs, axis);
  attrs.norm.epsilon = epsilon;
  return ep_dispatch1 (&ep_op_layer_norm, inputs, 3, &attrs, error);
}

/* batch_norm: inputs self, running_mean, running_var, weight, bias;
 * outputs the normalised tensor and the mean and variance it used */

guint
ep_norm_channel_axis (EpDataFormat format,
                      guint        ndim)
{
  return format == EP_DATA_FORMAT_NHWC ? ndim - 1 : 1;
}

static gboolean
batch_norm_infer (EpOpCall  *call,
                  GError   **error)
{
  const EpLayout *in = &call->inputs[0]->layout;
  EpDType dtype;
  guint channel;
  gint64 c;

  if (!norm_float_inputs (call, &dtype, error) || !norm_check_epsilon (call, error))
    return FALSE;
  if (in->ndim < 2)
    {
      g_set_error (error, EP_ERROR, EP_ERROR_SHAPE,
                   _("%s: the input must have at least two dimensions (batch and channels), not %u"),
                   call->op->name, in->ndim);
      return FALSE;
    }

  channel = ep_norm_channel_axis (call->attrs.norm.data_format, in->ndim);
  c = in->shape[channel];
  for (guint i = 1; i < 5; i++)
    if (!norm_check_param (call, i, &c, 1, error))
      return FALSE;

  ep_op_set_output (call, dtype, &c, 1);
  call->output_layouts[1] = call->output_layouts[0];
  call->output_layouts[2] = call->output_layouts[0];
  ep_op_set_output (call, dtype, in->shape, in->ndim);
  call->n_outputs = 3;
  return TRUE;
}

/* @t (C,) as a tensor that broadcasts along the channel axis of @like */
static EpTensor *
per_channel (EpTensor        *t,
             const EpLayout  *like,
             guint            channel,
             GError         **error)
{
  gint64 shape[EP_MAX_DIMS] = { 0 };

  for (guint d = 0; d < like->ndim; d++)
    shape[d] = d == channel ? like->shape[d] : 1;
  return ep_tensor_reshape (t, shape, like->ndim, error);
}

/* -@scale @total / M + @extra / M, per channel */
static EpTensor *
channel_term (EpTensor  *scale,
              EpTensor  *total,
              EpTensor  *extra,
              gdouble    count,
              GError   **error)
{
  g_autoptr(EpTensor) prod = NULL, diff = NULL;

  if ((prod = ep_tensor_mul (scale, total, error)) == NULL
      || (diff = ep_tensor_sub (extra, prod, error)) == NULL)
    return NULL;
  return ep_tensor_div_scalar (diff, count, error);
}

/* The parameters' gradients from the per-channel sums (kept as C-sized
 * tensors that broadcast) reshaped to (C,) */
static gboolean
set_channel_grad (const EpOpCall  *call,
                  guint            i,
                  EpTensor        *value,
                  EpTensor       **input_grads,
                  GError         **error)
{
  const EpLayout *l = &call->inputs[i]->layout;

  if (!ep_grad_needed (call, i))
    return TRUE;
  input_grads[i] = ep_tensor_reshape (value, l->shape, l->ndim, error);
  return input_grads[i] != NULL;
}

/* With w, m, v per channel, xhat = (x - m) rstd and M elements per
 * channel, the sums gb = sum (g) and gw = sum (g xhat) over the other
 * axes are all the full-size work besides xhat: they are the bias's and
 * the weight's gradients, and, as w and rstd are constant over a
 * channel, give the means of the normalised gradient (mean (g w) =
 * w gb / M, mean (g w xhat) = w gw / M). So
 *
 *   training:  gx = g w rstd + A + xhat B, with
 *              A = (gm - w rstd gb) / M
 *              B = (2 gv / rstd - w rstd gw) / M
 *              (gm, gv: the gradients of the mean and var outputs)
 *   inference: gx = g w rstd, gm' = gm - w rstd gb,
 *              gv' = gv - w rstd rstd gw / 2 */
static gboolean
batch_norm_grad (const EpOpCall   *call,
                 EpTensor *const  *output_grads,
                 EpTensor        **input_grads,
                 GError          **error)
{
  EpTensor *x = call->inputs[0], *g = output_grads[0];
  const EpLayout *in = &x->layout;
  gboolean training = call->attrs.norm.training;
  guint channel = ep_norm_channel_axis (call->attrs.norm.data_format, in->ndim);
  gint axes[EP_MAX_DIMS];
  guint n_axes = 0;
  gdouble count = 1.0;
  g_autoptr(EpTensor) mean = NULL, var = NULL, weight = NULL, centered = NULL, rstd = NULL, xhat = NULL;
  g_autoptr(EpTensor) gm = NULL, gv = NULL, gxhat = NULL, gb = NULL, gw = NULL, scale = NULL;

  for (guint d = 0; d < in->ndim; d++)
    if (d != channel)
      {
        axes[n_axes++] = d;
        count *= (gdouble) in->shape[d];
      }

  if ((mean = per_channel (training ? call->outputs[1] : call->inputs[1], in, channel, error)) == NULL
      || (var = per_channel (training ? call->outputs[2] : call->inputs[2], in, channel, error)) == NULL
      || (weight = per_channel (call->inputs[3], in, channel, error)) == NULL
      || (gm = per_channel (output_grads[1], in, channel, error)) == NULL
      || (gv = per_channel (output_grads[2], in, channel, error)) == NULL
      || (centered = ep_tensor_sub (x, mean, error)) == NULL
      || !standardize (centered, var, call->attrs.norm.epsilon, &rstd, &xhat, error)
      || (gb = ep_tensor_sum (g, axes, n_axes, TRUE, error)) == NULL
      || (gxhat = ep_tensor_mul (g, xhat, error)) == NULL
      || (gw = ep_tensor_sum (gxhat, axes, n_axes, TRUE, error)) == NULL
      || (scale = ep_tensor_mul (weight, rstd, error)) == NULL
      || !set_channel_grad (call, 3, gw, input_grads, error)
      || !set_channel_grad (call, 4, gb, input_grads, error))
    return FALSE;

  if (training)
    {
      g_autoptr(EpTensor) a = NULL, twice = NULL, over = NULL, b = NULL;
      g_autoptr(EpTensor) direct = NULL, shifted = NULL, spread = NULL;

      /* the running statistics are not used: zeros */
      for (guint i = 1; i <= 2; i++)
        if (ep_grad_needed (call, i)
            && (input_grads[i] = ep_grad_zeros (call->inputs[i], call->inputs[i]->layout.shape, 1, error)) == NULL)
          return FALSE;
      if (!ep_grad_needed (call, 0))
        return TRUE;

      if ((a = channel_term (scale, gb, gm, count, error)) == NULL
          || (twice = ep_tensor_mul_scalar (gv, 2.0, error)) == NULL
          || (over = ep_tensor_div (twice, rstd, error)) == NULL
          || (b = channel_term (scale, gw, over, count, error)) == NULL
          || (direct = ep_tensor_mul (g, scale, error)) == NULL
          || (shifted = ep_tensor_add (direct, a, error)) == NULL
          || (spread = ep_tensor_mul (xhat, b, error)) == NULL)
        return FALSE;
      input_grads[0] = ep_tensor_add (shifted, spread, error);
      return input_grads[0] != NULL;
    }

  if (ep_grad_needed (call, 1))
    {
      g_autoptr(EpTensor) gm_in = channel_term (scale, gb, gm, 1.0, error);

      if (gm_in == NULL || !set_channel_grad (call, 1, gm_in, input_grads, error))
        return FALSE;
    }
  if (ep_grad_needed (call, 2))
    {
      g_autoptr(EpTensor) half = NULL, half_scale = NULL, gv_in = NULL;

      /* gv - (w rstd) (rstd / 2) gw */
      if ((half = ep_tensor_mul_scalar (rstd, 0.5, error)) == NULL
          || (half_scale = ep_tensor_mul (scale, half, error)) == NULL
          || (gv_in = channel_term (half_scale, gw, gv, 1.0, error)) == NULL
          || !set_channel_grad (call, 2, gv_in, input_grads, error))
        return FALSE;
    }
  if (ep_grad_needed (call, 0))
    input_grads[0] = ep_tensor_mul (g, scale, error);
  return !ep_grad_needed (call, 0) || input_grads[0] != NULL;
}

const EpOpDef ep_op_batch_norm = {
  .id = EP_OP_BATCH_NORM, .name = "batch_norm",
  EP_INPUTS (EP_INPUT ("self"), EP_INPUT ("running_mean"), EP_INPUT ("running_var"),
             EP_INPUT ("weight"), EP_INPUT ("bias")),
  EP_ATTRS (EP_ATTR ("training", EP_ATTR_BOOL, EP_FIELD (norm.training), EP_DEFAULT (FALSE)),
            EP_ATTR_EPSILON_ARG,
            EP_ATTR ("data_format", EP_ATTR_ENUM, EP_FIELD (norm.data_format),
                     EP_DEFAULT (EP_DATA_FORMAT_NCHW), .enum_type = ep_data_format_get_type)),
  EP_OUTPUTS ("out", "mean", "var"),
  .infer = batch_norm_infer, .gradient = batch_norm_grad,
};

/**
 * ep_tensor_batch_norm:
 * @self: a float32 or float64 tensor of at least two dimensions: (N, C),
 *   or images (N, C, H, W) or (N, H, W, C) as @data_format says (any
 *   number of spatial axes)
 * @running_mean: the mean of each channel, shape (C,), used when not
 *   @training
 * @running_var: the variance of each channel, shape (C,), used when not
 *   @training
 * @weight: the scale of each channel, shape (C,)
 * @bias: the shift of each channel, shape (C,)
 * @training: whether to normalise with the batch's own statistics
 *   (training) or with @running_mean and @running_var (inference)
 * @epsilon: added to the variance before its square root: finite and not
 *   negative (PyTorch's default is 1e-5)
 * @data_format: where the channel axis is: 1 for %EP_DATA_FORMAT_NCHW, the
 *   last for %EP_DATA_FORMAT_NHWC (the same for 2-D inputs)
 * @out: (out) (transfer full) (optional): the normalised tensor, shaped
 *   like @self
 * @mean: (out) (transfer full) (optional): the mean of each channel that
 *   was used: the batch's when @training, else @running_mean
 * @var: (out) (transfer full) (optional): the variance of each channel
 *   that was used: the batch's biased one when @training, else
 *   @running_var
 * @error: return location for an error
 *
 * Batch normalisation, as PyTorch's `nn.functional.batch_norm`:
 * `(self - mean) / sqrt (var + epsilon) * weight + bias` per channel,
 * the statistics taken over every axis but the channel axis.
 *
 * Ops do not write variables: a layer updates its running statistics
 * itself from @mean and @var. PyTorch's BatchNorm takes the unbiased
 * variance for that, `running_var = (1 - momentum) running_var +
 * momentum var M / (M - 1)` with M the number of elements per channel
 * (`self.size / C`), while @var is the biased one that normalised the
 * batch. In training the gradients go through the batch statistics,
 * as PyTorch's do (@running_mean and @running_var get zeros); in
 * inference they reach @running_mean and @running_var too.
 *
 * Returns: (skip): %TRUE on success; %FALSE with %EP_ERROR_DTYPE set
 *   for an input that is not float32 or float64, %EP_ERROR_SHAPE for
 *   @self of fewer than two dimensions or parameters that are not of
 *   shape (C,), or %EP_ERROR_INVALID_ARGUMENT for a negative or
 *   non-finite @epsilon
 */
gboolean
ep_tensor_batch_norm (EpTensor      *self,
                      EpTensor      *running_mean,
                      EpTensor      *running_var,
                      EpTensor      *weight,
                      EpTensor      *bias,
                      gboolean       training,
                      gdouble        epsilon,
                      EpDataFormat   data_format,
                      EpTensor     **out,
                      EpTensor     **mean,
                      EpTensor     **var,
                      GError       **error)
{
  EpTensor *inputs[5] = { self, running_mean, running_var, weight, bias };
  EpTensor *outputs[EP_MAX_OUTPUTS] = { NULL };
  EpTensor **results[3] = { out, mean, var };
  EpOpAttrs attrs;

  for (guint i = 0; i < 5; i++)
    g_return_val_if_fail (EP_IS_TENSOR (inputs[i]), FALSE);

  ep_op_attrs_init (&attrs);
  attrs.norm.training = training != FALSE;
  attrs.norm.epsilon = epsilon;
  attrs.norm.data_format = data_format;
  if (!ep_dispatch (&ep_op_batch_norm, inputs, 5, &attrs, outputs, error))
    return FALSE;

  ep_op_give_outputs (outputs, 3, results);
  return TRUE;
}
