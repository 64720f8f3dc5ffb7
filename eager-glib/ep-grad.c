/* ep-grad.c: helpers for gradient rules
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <glib/gi18n-lib.h>
#include <string.h>

#include "ep-dispatch-private.h"
#include "ep-error.h"
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

/* The inverse of a gather along @axis: a tensor shaped like @values but
 * with @extent on @axis, where position j holds the sum of the values
 * whose index is j. (For the gradients of sort and topk: the elements go
 * back where they came from.) Written as a comparison of each index with
 * every position, O(k · extent) per slice, from ops every device has. */
EpTensor *
ep_grad_scatter (EpTensor  *values,
                 EpTensor  *indices,
                 guint      axis,
                 gint64     extent,
                 GError   **error)
{
  const EpLayout *v = &values->layout;
  gint64 shape[EP_MAX_DIMS];
  g_autoptr(EpTensor) positions = NULL, column = NULL, where = NULL, hit = NULL;
  g_autoptr(EpTensor) weights = NULL, spread = NULL, terms = NULL;
  const gint sum_axis = axis;
  EpOpAttrs attrs;

  if (v->ndim + 1 > EP_MAX_DIMS)
    {
      g_set_error (error, EP_ERROR, EP_ERROR_GRADIENT,
                   _("gradient: sending the gradient of a %u-dimensional tensor back "
                     "takes one more dimension than the %d supported"),
                   v->ndim, EP_MAX_DIMS);
      return NULL;
    }

  ep_op_attrs_init (&attrs);
  attrs.values[0] = 0;
  attrs.values[1] = (gdouble) extent;
  attrs.values[2] = 1;
  attrs.dtype = EP_DTYPE_INT64;
  attrs.device = indices->storage->device;
  positions = ep_dispatch1 (&ep_op_arange, NULL, 0, &attrs, error);
  if (positions == NULL)
    return NULL;

  /* positions along a new axis after @axis: (1, …, extent, …, 1) */
  for (guint d = 0; d < v->ndim + 1; d++)
    shape[d] = d == axis + 1 ? extent : 1;

  if ((column = ep_tensor_reshape (positions, shape, v->ndim + 1, error))
      && (where = ep_tensor_expand_dims (indices, axis + 1, error))
      && (hit = ep_tensor_equal (where, column, error))
      && (weights = ep_tensor_astype (hit, v->dtype, error))
      && (spread = ep_tensor_expand_dims (values, axis + 1, error))
      && (terms = ep_tensor_mul (weights, spread, error)))
    return ep_tensor_sum (terms, &sum_axis, 1, FALSE, error);

  return NULL;
}
