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
