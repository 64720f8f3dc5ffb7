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

/* Expands @grad, broadcastable to @like, to @like's shape: a view with
 * zero strides, and an op that outer tapes record. */
EpTensor *
ep_grad_broadcast (EpTensor        *grad,
                   const EpLayout  *like,
                   GError         **error)
{
  const EpLayout *g = &grad->layout;

  if (g->ndim == like->ndim
      && memcmp (g->shape, like->shape, like->ndim * sizeof (gint64)) == 0)
    return g_object_ref (grad);

  return ep_tensor_broadcast_to (grad, like->shape, like->ndim, error);
}

/* The gradient of @values = take_along_axis (@x, @indices, @axis), for
 * ops that gather without saying so (sort, topk): the rule of
 * take_along_axis itself, which sends each element back where it came
 * from. */
EpTensor *
ep_grad_gathered (EpTensor  *x,
                  EpTensor  *indices,
                  EpTensor  *values,
                  gint       axis,
                  EpTensor  *grad,
                  GError   **error)
{
  EpTensor *inputs[2] = { x, indices };
  EpDType dtypes[2] = { x->layout.dtype, indices->layout.dtype };
  EpTensor *grads[2] = { NULL, NULL };
  EpOpCall call;

  memset (&call, 0, sizeof call);
  call.op = &ep_op_take_along_axis;
  call.inputs = inputs;
  call.n_inputs = 2;
  ep_op_attrs_init (&call.attrs);
  ep_op_attrs_set_axis (&call.attrs, axis);
  call.input_dtypes = dtypes;
  call.n_outputs = 1;
  call.outputs[0] = values;
  call.output_layouts[0] = values->layout;
  call.device = x->storage->device;

  if (!ep_op_take_along_axis.gradient (&call, &grad, grads, error))
    {
      g_clear_object (&grads[0]);
      g_clear_object (&grads[1]);
      return NULL;
    }

  g_clear_object (&grads[1]);
  return grads[0];
}
