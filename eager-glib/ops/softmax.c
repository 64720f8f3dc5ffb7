/* ops/softmax.c: softmax, log_softmax, logsumexp, crossentropy, and the losses
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * All of them shift by the maximum before exponentiating, so no finite
 * input overflows.
 */

#include "config.h"

#include <glib/gi18n-lib.h>
#include <math.h>
#include <string.h>

#include "ep-dispatch-private.h"
#include "ep-enum-types.h"
#include "ep-error.h"
#include "ep-error-private.h"
#include "ep-grad-private.h"
#include "ep-math-private.h"

static gboolean
softmax_infer (EpOpCall  *call,
               GError   **error)
{
  const EpLayout *in = &call->inputs[0]->layout;
  EpDType dtype = ep_math_float_dtype (in->dtype);

  if (!ep_op_normalize_axis (call, call->attrs.axes[0], in->ndim, &call->attrs.axes[0], error))
    return FALSE;

  call->input_dtypes[0] = dtype;
  ep_op_set_output (call, dtype, in->shape, in->ndim);
  return TRUE;
}

/* y (g - sum (g y)) */
static gboolean
softmax_grad (const EpOpCall   *call,
              EpTensor *const  *output_grads,
              EpTensor        **input_grads,
              GError          **error)
{
  EpTensor *y = call->outputs[0];
  g_autoptr(EpTensor) gy = NULL, total = NULL, centered = NULL;

  if ((gy = ep_tensor_mul (output_grads[0], y, error)) == NULL
      || (total = ep_tensor_sum (gy, call->attrs.axes, 1, TRUE, error)) == NULL
      || (centered = ep_tensor_sub (output_grads[0], total, error)) == NULL)
    return FALSE;

  input_grads[0] = ep_tensor_mul (y, centered, error);
  return input_grads[0] != NULL;
}

/* g - e^y sum (g) */
static gboolean
log_softmax_grad (const EpOpCall   *call,
                  EpTensor *const  *output_grads,
                  EpTensor        **input_grads,
                  GError          **error)
{
  g_autoptr(EpTensor) p = NULL, total = NULL, spread = NULL;

  if ((p = ep_tensor_exp (call->outputs[0], error)) == NULL
      || (total = ep_tensor_sum (output_grads[0], call->attrs.axes, 1, TRUE, error)) == NULL
      || (spread = ep_tensor_mul (p, total, error)) == NULL)
    return FALSE;

  input_grads[0] = ep_tensor_sub (output_grads[0], spread, error);
  return input_grads[0] != NULL;
}

const EpOpDef ep_op_softmax = {
  .id = EP_OP_SOFTMAX, .name = "softmax",
  EP_INPUTS (EP_INPUT ("self")),
  EP_ATTRS (EP_ATTR_AXIS_ARG (EP_DEFAULT (-1))),
  .infer = softmax_infer, .gradient = softmax_grad,
};

const EpOpDef ep_op_log_softmax = {
  .id = EP_OP_LOG_SOFTMAX, .name = "log_softmax",
  EP_INPUTS (EP_INPUT ("self")),
  EP_ATTRS (EP_ATTR_AXIS_ARG (EP_DEFAULT (-1))),
  .infer = softmax_infer, .gradient = log_softmax_grad,
};

/**
 * ep_tensor_softmax:
 * @self: a tensor
 * @axis: the axis to normalize along; -1 for the last
 * @error: return location for an error
 *
 * `e ** self / sum (e ** self)` along @axis, computed after subtracting
 * the maximum so that it does not overflow. Integer tensors give
 * float64, bool float32.
 *
 * Returns: (transfer full): the probabilities, or %NULL with
 *   %EP_ERROR_AXIS set if @axis is out of range
 */
EpTensor *
ep_tensor_softmax (EpTensor  *self,
                   gint       axis,
                   GError   **error)
{
  g_return_val_if_fail (EP_IS_TENSOR (self), NULL);

  return ep_dispatch_axis (&ep_op_softmax, &self, 1, axis, error);
}

/**
 * ep_tensor_log_softmax:
 * @self: a tensor
 * @axis: the axis to normalize along; -1 for the last
 * @error: return location for an error
 *
 * `self - logsumexp (self)` along @axis: the logarithm of
 * [method@Tensor.softmax], accurate where the probabilities underflow.
 * Integer tensors give float64, bool float32.
 *
 * Returns: (transfer full): the log-probabilities, or %NULL with
 *   %EP_ERROR_AXIS set if @axis is out of range
 */
EpTensor *
ep_tensor_log_softmax (EpTensor  *self,
                       gint       axis,
                       GError   **error)
{
  g_return_val_if_fail (EP_IS_TENSOR (self), NULL);

  return ep_dispatch_axis (&ep_op_log_softmax, &self, 1, axis, error);
}

/* logsumexp */

static gboolean
logsumexp_infer (EpOpCall  *call,
                 GError   **error)
{
  EpDType dtype = ep_math_float_dtype (call->inputs[0]->layout.dtype);

  if (!ep_op_normalize_reduction_axes (call, error))
    return FALSE;

  call->input_dtypes[0] = dtype;
  ep_op_set_reduced_output (call, dtype);
  return TRUE;
}

/* g e^(x - y): the softmax over the reduced axes */
static gboolean
logsumexp_grad (const EpOpCall   *call,
                EpTensor *const  *output_grads,
                EpTensor        **input_grads,
                GError          **error)
{
  g_autoptr(EpTensor) y = NULL, g = NULL, shifted = NULL, p = NULL;

  if ((y = ep_grad_keep_reduced (call, call->outputs[0], error)) == NULL
      || (g = ep_grad_keep_reduced (call, output_grads[0], error)) == NULL
      || (shifted = ep_tensor_sub (call->inputs[0], y, error)) == NULL
      || (p = ep_tensor_exp (shifted, error)) == NULL)
    return FALSE;

  input_grads[0] = ep_tensor_mul (g, p, error);
  return input_grads[0] != NULL;
}

const EpOpDef ep_op_logsumexp = {
  .id = EP_OP_LOGSUMEXP, .name = "logsumexp",
  EP_INPUTS (EP_INPUT ("self")),
  EP_ATTRS (EP_ATTR_AXES_ARG, EP_ATTR_KEEPDIMS_ARG),
  .infer = logsumexp_infer, .gradient = logsumexp_grad,
};

/**
 * ep_tensor_logsumexp:
 * @self: a tensor
 * @axes: (array length=n_axes) (nullable): the axes to reduce; %NULL or empty for
 *   all of them. Negative axes count from the end.
 * @n_axes: the number of axes
 * @keepdims: whether to keep the reduced axes with extent 1
 * @error: return location for an error
 *
 * `log (sum (e ** self))` over @axes without overflow, as SciPy's
 * `logsumexp`: -inf for an empty selection or one of only -inf, inf if
 * an element is inf, NaN if one is NaN. Integer tensors give float64,
 * bool float32.
 *
 * Returns: (transfer full): the values, or %NULL with %EP_ERROR_AXIS set
 *   if an axis is out of range or repeated
 */
EpTensor *
ep_tensor_logsumexp (EpTensor    *self,
                     const gint  *axes,
                     guint        n_axes,
                     gboolean     keepdims,
                     GError     **error)
{
  return ep_dispatch_axes (&ep_op_logsumexp, self, axes, n_axes, keepdims, error);
}

static gboolean
crossentropy_infer (EpOpCall  *call,
                    GError   **error)
{
  const EpLayout *logits = &call->inputs[0]->layout;
  const EpLayout *labels = &call->inputs[1]->layout;
  EpDType dtype = ep_math_float_dtype (logits->dtype);

  if (logits->ndim != 2)
    {
      g_autofree char *s = ep_shape_to_string (logits->shape, logits->ndim);

      g_set_error (error, EP_ERROR, EP_ERROR_SHAPE,
                   _("crossentropy: logits must have shape (N, C), not %s"), s);
      return FALSE;
    }
  if (labels->ndim != 1 || labels->shape[0] != logits->shape[0])
    {
      g_autofree char *s = ep_shape_to_string (labels->shape, labels->ndim);
      g_autofree char *t = ep_shape_to_string (logits->shape, logits->ndim);

      g_set_error (error, EP_ERROR, EP_ERROR_SHAPE,
                   _("crossentropy: labels of shape %s do not match logits of shape %s; they must have shape (N,)"),
                   s, t);
      return FALSE;
    }

  call->input_dtypes[0] = dtype;
  call->input_dtypes[1] = EP_DTYPE_INT64;
  ep_op_set_output (call, dtype, logits->shape, 1);
  return TRUE;
}

/* (softmax (logits) - onehot (labels)) g; labels get none */
static gboolean
crossentropy_grad (const EpOpCall   *call,
                   EpTensor *const  *output_grads,
                   EpTensor        **input_grads,
                   GError          **error)
{
  EpTensor *logits = call->inputs[0];
  g_autoptr(EpTensor) p = NULL, target = NULL, diff = NULL, g = NULL;

  if ((p = ep_tensor_softmax (logits, 1, error)) == NULL
      || (target = ep_tensor_onehot_like (logits, call->inputs[1], 1.0, error)) == NULL
      || (diff = ep_tensor_sub (p, target, error)) == NULL
      || (g = ep_tensor_expand_dims (output_grads[0], 1, error)) == NULL)
    return FALSE;

  input_grads[0] = ep_tensor_mul (diff, g, error);
  input_grads[1] = NULL;
  return input_grads[0] != NULL;
}

const EpOpDef ep_op_crossentropy = {
  .id = EP_OP_CROSSENTROPY, .name = "crossentropy",
  EP_INPUTS (EP_INPUT ("self"), EP_INPUT_OF ("labels", EP_INPUT_INTEGER)),
  .infer = crossentropy_infer, .gradient = crossentropy_grad,
};

/**
 * ep_tensor_crossentropy:
 * @self: the logits, of shape (N, C): unnormalized log-probabilities of C
 *   classes for N samples
 * @labels: the int32 or int64 class of each sample, of shape (N,), each
 *   in [0, C)
 * @error: return location for an error
 *
 * The categorical cross-entropy of each sample,
 * `logsumexp (self[i]) - self[i, labels[i]]`, computed without overflow.
 * Average it with [method@Tensor.mean] for a loss.
 *
 * Returns: (transfer full): the losses, of shape (N,); or %NULL with
 *   %EP_ERROR_SHAPE set for wrong shapes, %EP_ERROR_DTYPE for labels that
 *   are not integers, or %EP_ERROR_INDEX for a label out of range
 */
EpTensor *
ep_tensor_crossentropy (EpTensor  *self,
                        EpTensor  *labels,
                        GError   **error)
{
  g_return_val_if_fail (EP_IS_TENSOR (self), NULL);
  g_return_val_if_fail (EP_IS_TENSOR (labels), NULL);

  return ep_dispatch_binary (&ep_op_crossentropy, self, labels, error);
}

/* Losses: functions of the ops above and the elementwise ones, so their
 * gradients, devices and staging are those ops' */

#define LOSS_FUNC(op_name, target_name, ...)                                \
  const EpOpDef ep_func_##op_name = {                                       \
    .id = EP_N_OPS, .name = #op_name,                                       \
    EP_INPUTS (EP_INPUT ("self"), target_name),                             \
    EP_ATTRS (__VA_ARGS__                                                   \
              EP_ATTR ("reduction", EP_ATTR_ENUM, EP_NO_FIELD,              \
                       EP_DEFAULT (EP_REDUCTION_MEAN),                      \
                       .enum_type = ep_reduction_get_type)),                \
  };

LOSS_FUNC (softmax_crossentropy, EP_INPUT ("targets"))
LOSS_FUNC (sparse_softmax_crossentropy, EP_INPUT_OF ("labels", EP_INPUT_INTEGER))
LOSS_FUNC (sigmoid_crossentropy, EP_INPUT ("targets"))
LOSS_FUNC (mse_loss, EP_INPUT ("target"))
LOSS_FUNC (huber_loss, EP_INPUT ("target"),
           EP_ATTR ("delta", EP_ATTR_FLOAT, EP_NO_FIELD, EP_DEFAULT (1)),)

/* Takes @losses; the reduction @caller asked for, errors named after it */
static EpTensor *
loss_reduce (const char   *caller,
             EpTensor     *losses,
             EpReduction   reduction,
             GError      **error)
{
  g_autoptr(EpTensor) owned = losses;

  if (losses == NULL)
    return ep_error_named_result (NULL, error, caller);

  switch (reduction)
    {
    case EP_REDUCTION_MEAN:
      return ep_error_named_result (ep_tensor_mean (losses, NULL, 0, FALSE, error), error, caller);
    case EP_REDUCTION_SUM:
      return ep_error_named_result (ep_tensor_sum (losses, NULL, 0, FALSE, error), error, caller);
    case EP_REDUCTION_NONE:
      return g_steal_pointer (&owned);
    default:
      g_set_error (error, EP_ERROR, EP_ERROR_INVALID_ARGUMENT,
                   _("%s: unknown reduction %d"), caller, (int) reduction);
      return NULL;
    }
}

/* Losses compare elementwise: a broadcast would silently average the
 * wrong pairs (PyTorch only warns) */
static gboolean
loss_same_shape (const char  *caller,
                 EpTensor    *self,
                 EpTensor    *target,
                 GError     **error)
{
  const EpLayout *a = &self->layout, *b = &target->layout;
  g_autofree char *s = NULL, *t = NULL;

  if (a->ndim == b->ndim && memcmp (a->shape, b->shape, a->ndim * sizeof a->shape[0]) == 0)
    return TRUE;

  s = ep_shape_to_string (b->shape, b->ndim);
  t = ep_shape_to_string (a->shape, a->ndim);
  g_set_error (error, EP_ERROR, EP_ERROR_SHAPE,
               _("%s: the target of shape %s does not match the input of shape %s"),
               caller, s, t);
  return FALSE;
}

/**
 * ep_tensor_softmax_crossentropy:
 * @self: the logits, classes along the last axis: (C,), (N, C) or (…, C)
 * @targets: the probability of each class (one-hot or soft labels), of
 *   the shape of @self
 * @reduction: how to reduce the losses of the samples
 * @error: return location for an error
 *
 * Softmax cross-entropy from logits with probability targets,
 * `-Σ targets · log_softmax (self)` over the last axis, computed without
 * overflow; PyTorch's `cross_entropy` with probability targets.
 *
 * Returns: (transfer full): the mean or sum of the losses (a scalar), or
 *   for %EP_REDUCTION_NONE the loss of each sample (the shape of @self
 *   without its last axis); or %NULL with %EP_ERROR_SHAPE set if the
 *   shapes differ or @self is 0-d
 */
EpTensor *
ep_tensor_softmax_crossentropy (EpTensor     *self,
                                EpTensor     *targets,
                                EpReduction   reduction,
                                GError      **error)
{
  const char *caller = "softmax_crossentropy";
  g_autoptr(EpTensor) logp = NULL, weighted = NULL, total = NULL;
  gint last = -1;

  g_return_val_if_fail (EP_IS_TENSOR (self), NULL);
  g_return_val_if_fail (EP_IS_TENSOR (targets), NULL);

  if (!loss_same_shape (caller, self, targets, error))
    return NULL;
  if (self->layout.ndim == 0)
    {
      g_set_error (error, EP_ERROR, EP_ERROR_SHAPE,
                   _("%s: the logits must have a class axis, not be 0-d"), caller);
      return NULL;
    }

  if ((logp = ep_tensor_log_softmax (self, -1, error)) == NULL
      || (weighted = ep_tensor_mul (targets, logp, error)) == NULL
      || (total = ep_tensor_sum (weighted, &last, 1, FALSE, error)) == NULL)
    return ep_error_named_result (NULL, error, caller);

  return loss_reduce (caller, ep_tensor_neg (total, error), reduction, error);
}

/**
 * ep_tensor_sparse_softmax_crossentropy:
 * @self: the logits, of shape (N, C)
 * @labels: the int32 or int64 class of each sample, of shape (N,), each
 *   in [0, C)
 * @reduction: how to reduce the losses of the samples
 * @error: return location for an error
 *
 * Softmax cross-entropy from logits with class labels: the losses of
 * [method@Tensor.crossentropy], reduced; PyTorch's `cross_entropy` with
 * class indices.
 *
 * Returns: (transfer full): the mean or sum of the losses (a scalar), or
 *   for %EP_REDUCTION_NONE the loss of each sample, of shape (N,); or
 *   %NULL with %EP_ERROR_SHAPE set for wrong shapes, %EP_ERROR_DTYPE for
 *   labels that are not integers, or %EP_ERROR_INDEX for a label out of
 *   range
 */
EpTensor *
ep_tensor_sparse_softmax_crossentropy (EpTensor     *self,
                                       EpTensor     *labels,
                                       EpReduction   reduction,
                                       GError      **error)
{
  g_return_val_if_fail (EP_IS_TENSOR (self), NULL);
  g_return_val_if_fail (EP_IS_TENSOR (labels), NULL);

  return loss_reduce ("sparse_softmax_crossentropy",
                      ep_tensor_crossentropy (self, labels, error), reduction, error);
}

/**
 * ep_tensor_sigmoid_crossentropy:
 * @self: the logits, of any shape
 * @targets: the probability of the positive class, of the shape of @self
 * @reduction: how to reduce the losses of the elements
 * @error: return location for an error
 *
 * Binary cross-entropy from logits, `softplus (self) - self · targets`
 * (that is `-t log σ(x) - (1 - t) log (1 - σ(x))`), without overflow for
 * logits of any size; PyTorch's `binary_cross_entropy_with_logits`.
 *
 * Returns: (transfer full): the mean or sum of the losses (a scalar), or
 *   for %EP_REDUCTION_NONE the loss of each element; or %NULL with
 *   %EP_ERROR_SHAPE set if the shapes differ
 */
EpTensor *
ep_tensor_sigmoid_crossentropy (EpTensor     *self,
                                EpTensor     *targets,
                                EpReduction   reduction,
                                GError      **error)
{
  const char *caller = "sigmoid_crossentropy";
  g_autoptr(EpTensor) soft = NULL, product = NULL;

  g_return_val_if_fail (EP_IS_TENSOR (self), NULL);
  g_return_val_if_fail (EP_IS_TENSOR (targets), NULL);

  if (!loss_same_shape (caller, self, targets, error))
    return NULL;

  if ((soft = ep_tensor_softplus (self, error)) == NULL
      || (product = ep_tensor_mul (self, targets, error)) == NULL)
    return ep_error_named_result (NULL, error, caller);

  return loss_reduce (caller, ep_tensor_sub (soft, product, error), reduction, error);
}

/**
 * ep_tensor_mse_loss:
 * @self: the predictions
 * @target: the targets, of the shape of @self
 * @reduction: how to reduce the losses of the elements
 * @error: return location for an error
 *
 * The squared error `(self - target)²` of each element, reduced: the mean
 * squared error by default, as PyTorch's `mse_loss`.
 *
 * Returns: (transfer full): the mean or sum (a scalar), or for
 *   %EP_REDUCTION_NONE the squared errors; or %NULL with %EP_ERROR_SHAPE
 *   set if the shapes differ
 */
EpTensor *
ep_tensor_mse_loss (EpTensor     *self,
                    EpTensor     *target,
                    EpReduction   reduction,
                    GError      **error)
{
  const char *caller = "mse_loss";
  g_autoptr(EpTensor) diff = NULL;

  g_return_val_if_fail (EP_IS_TENSOR (self), NULL);
  g_return_val_if_fail (EP_IS_TENSOR (target), NULL);

  if (!loss_same_shape (caller, self, target, error))
    return NULL;
  if ((diff = ep_tensor_sub (self, target, error)) == NULL)
    return ep_error_named_result (NULL, error, caller);

  return loss_reduce (caller, ep_tensor_square (diff, error), reduction, error);
}

/**
 * ep_tensor_huber_loss:
 * @self: the predictions
 * @target: the targets, of the shape of @self
 * @delta: where the loss turns from quadratic to linear, positive
 * @reduction: how to reduce the losses of the elements
 * @error: return location for an error
 *
 * The Huber loss of each element: `d² / 2` where `|d| = |self - target|`
 * is at most @delta, `delta · (|d| - delta / 2)` beyond, reduced; as
 * PyTorch's `huber_loss`.
 *
 * Returns: (transfer full): the mean or sum (a scalar), or for
 *   %EP_REDUCTION_NONE the loss of each element; or %NULL with
 *   %EP_ERROR_SHAPE set if the shapes differ, or
 *   %EP_ERROR_INVALID_ARGUMENT if @delta is not positive and finite
 */
EpTensor *
ep_tensor_huber_loss (EpTensor     *self,
                      EpTensor     *target,
                      gdouble       delta,
                      EpReduction   reduction,
                      GError      **error)
{
  const char *caller = "huber_loss";
  g_autoptr(EpTensor) diff = NULL, a = NULL, q = NULL, quadratic = NULL;
  g_autoptr(EpTensor) excess = NULL, linear = NULL;

  g_return_val_if_fail (EP_IS_TENSOR (self), NULL);
  g_return_val_if_fail (EP_IS_TENSOR (target), NULL);

  if (!(delta > 0) || !isfinite (delta))
    {
      g_set_error (error, EP_ERROR, EP_ERROR_INVALID_ARGUMENT,
                   _("%s: delta must be positive and finite, not %g"), caller, delta);
      return NULL;
    }
  if (!loss_same_shape (caller, self, target, error))
    return NULL;

  /* with q = min (|d|, delta): q² / 2 + delta (|d| - q), one expression
   * for both sides, so no where and a gradient that is continuous */
  if ((diff = ep_tensor_sub (self, target, error)) == NULL
      || (a = ep_tensor_abs (diff, error)) == NULL
      || (q = ep_tensor_minimum_scalar (a, delta, error)) == NULL
      || (quadratic = ep_tensor_square (q, error)) == NULL
      || (excess = ep_tensor_sub (a, q, error)) == NULL
      || (linear = ep_tensor_mul_scalar (excess, delta, error)) == NULL)
    return ep_error_named_result (NULL, error, caller);

  {
    g_autoptr(EpTensor) half = ep_tensor_mul_scalar (quadratic, 0.5, error);

    if (half == NULL)
      return ep_error_named_result (NULL, error, caller);
    return loss_reduce (caller, ep_tensor_add (half, linear, error), reduction, error);
  }
}
