/* ep-grad.c: helpers for gradient rules
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <string.h>

#include "ep-dispatch-private.h"
#include "ep-grad-private.h"

/* The rule being run by this thread's tape, if any. Rules run nested when
 * a custom gradient's backward function asks a tape of its own. */
static _Thread_local EpGradContext *current;

EpGradContext *
ep_grad_context_push (EpGradContext *context)
{
  EpGradContext *previous = current;

  current = context;
  return previous;
}

void
ep_grad_context_pop (EpGradContext *previous)
{
  current = previous;
}

/* Whether a rule should compute the gradient of input @input: only
 * floating-point inputs have one, and the tape says which it will use
 * (a literal operand, or a constant such as the data of a matmul, needs
 * none). Outside a tape's backward pass every floating input is wanted. */
gboolean
ep_grad_needed (const EpOpCall *call,
                guint           input)
{
  if (!ep_dtype_is_floating (call->inputs[input]->layout.dtype))
    return FALSE;
  if (current == NULL || current->call != call || input >= 32)
    return TRUE;

  return (current->needed & (1u << input)) != 0;
}

/* A weak scalar: it takes the type of the tensor it meets. */
EpTensor *
ep_grad_literal (gdouble value)
{
  return ep_tensor_new_weak_scalar (value, EP_DTYPE_FLOAT64);
}

/* Sums @grad (shaped like the broadcast output) back to the shape of an
 * input that was broadcast, and converts it to the input's type. */
EpTensor *
ep_grad_unbroadcast (EpTensor        *grad,
                     const EpLayout  *like,
                     GError         **error)
{
  const EpLayout *g = &grad->layout;
  guint lead = g->ndim - like->ndim;
  gint axes[EP_MAX_DIMS];
  guint n_axes = 0;
  g_autoptr(EpTensor) summed = NULL;
  g_autoptr(EpTensor) shaped = NULL;

  g_return_val_if_fail (g->ndim >= like->ndim, NULL);

  for (guint d = 0; d < g->ndim; d++)
    if (d < lead || (like->shape[d - lead] == 1 && g->shape[d] != 1))
      axes[n_axes++] = d;

  if (n_axes > 0)
    {
      summed = ep_tensor_sum (grad, axes, n_axes, TRUE, error);
      if (summed == NULL)
        return NULL;
    }
  else
    summed = g_object_ref (grad);

  if (summed->layout.ndim != like->ndim)
    {
      shaped = ep_tensor_reshape (summed, like->shape, like->ndim, error);
      if (shaped == NULL)
        return NULL;
    }
  else
    shaped = g_steal_pointer (&summed);

  return ep_tensor_astype (shaped, like->dtype, error);
}

/* Zeros on @device (not the current device scope: a gradient lives where
 * its tensor does). */
EpTensor *
ep_grad_zeros (const gint64  *shape,
               guint          ndim,
               EpDType        dtype,
               EpDevice      *device,
               GError       **error)
{
  EpOpAttrs attrs;

  ep_op_attrs_init (&attrs);
  attrs.n_ints = MIN (ndim, G_N_ELEMENTS (attrs.ints));
  if (attrs.n_ints > 0)
    memcpy (attrs.ints, shape, attrs.n_ints * sizeof (gint64));
  attrs.dtype = dtype;
  attrs.device = device;

  return ep_dispatch1 (&ep_op_full, NULL, 0, &attrs, error);
}

/* Expands @grad, broadcastable to @like, to @like's shape. Adding it to
 * zeros keeps the expansion an op that outer tapes record. */
EpTensor *
ep_grad_broadcast (EpTensor        *grad,
                   const EpLayout  *like,
                   GError         **error)
{
  const EpLayout *g = &grad->layout;
  g_autoptr(EpTensor) zeros = NULL;

  if (g->ndim == like->ndim
      && memcmp (g->shape, like->shape, like->ndim * sizeof (gint64)) == 0)
    return g_object_ref (grad);

  zeros = ep_grad_zeros (like->shape, like->ndim, g->dtype, grad->storage->device, error);
  if (zeros == NULL)
    return NULL;

  return ep_tensor_add (zeros, grad, error);
}

/* The gradient of a reduction's output, reshaped so that it broadcasts
 * against the input: the reduced axes come back with extent 1. */
EpTensor *
ep_grad_keepdims (EpTensor        *grad,
                  const EpOpCall  *call,
                  GError         **error)
{
  const EpLayout *in = &call->inputs[0]->layout;
  gint64 shape[EP_MAX_DIMS];

  if (call->attrs.keepdims)
    return g_object_ref (grad);

  memcpy (shape, in->shape, in->ndim * sizeof (gint64));
  for (guint a = 0; a < call->attrs.n_axes; a++)
    shape[call->attrs.axes[a]] = 1;

  return ep_tensor_reshape (grad, shape, in->ndim, error);
}
