/* autodiff/grad.c: helpers for gradient rules
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <glib/gi18n-lib.h>
#include <string.h>

#include "ep-creation-private.h"
#include "ep-dispatch-private.h"
#include "ep-error.h"
#include "ep-grad-private.h"

/* The rule being run by this thread's tape, if any, is the context's
 * `grad`. Rules run nested when a custom gradient's backward function
 * asks a tape of its own. */
EpGradContext *
ep_grad_context_push (EpGradContext *context)
{
  EpContext *thread = ep_context_get ();
  EpGradContext *previous = thread->grad;

  thread->grad = context;
  return previous;
}

void
ep_grad_context_pop (EpGradContext *previous)
{
  ep_context_get ()->grad = previous;
}

/* Whether a rule should compute the gradient of input @input: only
 * floating-point inputs have one, and the tape says which it will use
 * (a literal operand, or a constant such as the data of a matmul, needs
 * none). Outside a tape's backward pass every floating input is wanted. */
gboolean
ep_grad_needed (const EpOpCall *call,
                guint           input)
{
  EpContext *thread = ep_context_peek ();
  const EpGradContext *current = thread != NULL ? thread->grad : NULL;

  if (!ep_dtype_is_floating (call->inputs[input]->layout.dtype))
    return FALSE;
  if (current == NULL || current->call != call || input >= 32)
    return TRUE;

  return (current->needed & (1u << input)) != 0;
}

/* The rule of ops whose output is their input 0 for the tape (identity,
 * contiguous): the output's gradient passes through. */
gboolean
ep_grad_identity (const EpOpCall   *call,
                  EpTensor *const  *output_grads,
                  EpTensor        **input_grads,
                  GError          **error)
{
  if (ep_grad_needed (call, 0))
    input_grads[0] = g_object_ref (output_grads[0]);

  return TRUE;
}

/* A weak scalar: it takes the type of the tensor it meets. */
EpTensor *
ep_grad_literal (gdouble value)
{
  return ep_tensor_new_weak_scalar (value, EP_DTYPE_FLOAT64);
}

/* Expands @grad, broadcastable to @like, to @like's shape: a view with
 * zero strides, and an op that outer tapes record. */
EpTensor *
ep_grad_broadcast (EpTensor        *grad,
                   const EpLayout  *like,
                   GError         **error)
{
  const EpLayout *g = &grad->layout;

  if (ep_layout_same_shape (g, like))
    return g_object_ref (grad);

  return ep_tensor_broadcast_to (grad, like->shape, like->ndim, error);
}

/* @grad summed over the dimensions that broadcasting added to @like, so
 * that it has @like's shape. */
EpTensor *
ep_grad_sum_to_shape (EpTensor  *grad,
                      EpTensor  *like,
                      GError   **error)
{
  const EpLayout *g = &grad->layout, *t = &like->layout;
  g_autoptr(EpTensor) summed = NULL;
  gint axes[EP_MAX_DIMS];
  guint lead = g->ndim - t->ndim, n = 0;

  for (guint d = 0; d < g->ndim; d++)
    if (d < lead || (t->shape[d - lead] == 1 && g->shape[d] != 1))
      axes[n++] = d;

  if (n == 0 && g->ndim == t->ndim)
    return g_object_ref (grad);

  summed = ep_tensor_sum (grad, axes, n, TRUE, error);
  if (summed == NULL)
    return NULL;

  return ep_tensor_reshape (summed, t->shape, t->ndim, error);
}

/* @reduced (an output of a reduction over call->attrs.axes) reshaped to
 * the keepdims shape, so that it broadcasts against the input. */
EpTensor *
ep_grad_keep_reduced (const EpOpCall  *call,
                      EpTensor        *reduced,
                      GError         **error)
{
  const EpLayout *in = &call->inputs[0]->layout;
  gint64 shape[EP_MAX_DIMS];

  if (call->attrs.keepdims)
    return g_object_ref (reduced);

  for (guint d = 0; d < in->ndim; d++)
    shape[d] = in->shape[d];
  for (guint a = 0; a < call->attrs.n_axes; a++)
    shape[call->attrs.axes[a]] = 1;

  return ep_tensor_reshape (reduced, shape, in->ndim, error);
}

/* where (@mask, @grad, 0) */
EpTensor *
ep_grad_mask (EpTensor  *mask,
              EpTensor  *grad,
              GError   **error)
{
  g_autoptr(EpTensor) zero = ep_tensor_new_weak_scalar (0.0, EP_DTYPE_INT64);

  return ep_tensor_where (mask, grad, zero, error);
}

/* Sets input_grads[@i] to @grad (transfer full; %NULL after an error)
 * summed to the shape of input @i, for the rules of broadcasting ops. */
gboolean
ep_grad_set_summed (const EpOpCall  *call,
                    guint            i,
                    EpTensor        *grad,
                    EpTensor       **input_grads,
                    GError         **error)
{
  if (grad == NULL)
    return FALSE;
  input_grads[i] = ep_grad_sum_to_shape (grad, call->inputs[i], error);
  g_object_unref (grad);

  return input_grads[i] != NULL;
}

/* Zeros of @like's dtype on @like's device, whatever the scope. */
EpTensor *
ep_grad_zeros (EpTensor      *like,
               const gint64  *shape,
               guint          ndim,
               GError       **error)
{
  return ep_full_on (like->storage->device, shape, ndim, ep_number_from_int64 (0), like->layout.dtype, error);
}

/* A constant int64 tensor (indices) on @like's device, whatever the
 * scope. */
EpTensor *
ep_grad_int64 (EpTensor      *like,
               const gint64  *data,
               const gint64  *shape,
               guint          ndim,
               GError       **error)
{
  EpLayout layout;

  if (!ep_layout_init (&layout, EP_DTYPE_INT64, shape, ndim, "gradient", error))
    return NULL;

  return ep_tensor_new_from_host (like->storage->device, &layout, data, "gradient", error);
}

/* Swaps the last two axes (a batch of matrices transposed). */
EpTensor *
ep_grad_swap_last (EpTensor  *t,
                   GError   **error)
{
  guint ndim = t->layout.ndim;
  gint axes[EP_MAX_DIMS];

  g_return_val_if_fail (ndim >= 2, NULL);

  for (guint d = 0; d < ndim; d++)
    axes[d] = d;
  axes[ndim - 2] = ndim - 1;
  axes[ndim - 1] = ndim - 2;

  return ep_tensor_transpose (t, axes, ndim, error);
}
