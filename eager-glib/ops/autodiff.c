/* ops/autodiff.c: the ops automatic differentiation adds
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * stop_gradient, identity and custom_gradient are views: they share their
 * input's data and run no kernel. They exist as ops so that tapes and
 * tracers see them on the one dispatch path.
 */

#include "config.h"

#include "ep-autodiff-private.h"
#include "ep-dispatch-private.h"
#include "ep-grad-private.h"

static gboolean
same_layout_infer (EpOpCall  *call,
                   GError   **error)
{
  call->output_layouts[0] = call->inputs[0]->layout;
  call->n_outputs = 1;
  return TRUE;
}

/* No gradient rule: tapes do not record it, so its output has no history. */
const EpOpDef ep_op_stop_gradient = {
  .id = EP_OP_STOP_GRADIENT, .name = "stop_gradient",
  EP_INPUTS (EP_INPUT ("self")),
  .flags = EP_OP_FLAG_VIEW,
  .infer = same_layout_infer,
};

/* A new tensor object with the same value and the same history: the
 * functional API gives each argument its own, so that f(x, x) has two
 * distinct arguments to differentiate. */
const EpOpDef ep_op_identity = {
  .id = EP_OP_IDENTITY, .name = "identity",
  .flags = EP_OP_FLAG_VIEW | EP_OP_FLAG_NO_FUNCTION,
  EP_INPUTS (EP_INPUT ("self")),
  .infer = same_layout_infer,
  .gradient = ep_grad_identity,
};

/* Inputs: the forward function's result (without history), then the
 * arguments. The output is a view of the result whose gradient rule is
 * the user's backward function, attached to the output (see
 * autodiff/functional.c). */
const EpOpDef ep_op_custom_gradient = {
  .id = EP_OP_CUSTOM_GRADIENT, .name = "custom_gradient",
  .flags = EP_OP_FLAG_VIEW | EP_OP_FLAG_NO_FUNCTION,
  EP_INPUTS (EP_INPUT ("result"), EP_INPUT_LIST ("inputs")),
  .infer = same_layout_infer,
  .gradient = ep_custom_gradient_rule,
};

/* A new tensor object for the same value, where @tensor lives: the
 * library's own (fresh objects for a function's arguments), so it names
 * the device instead of following the user's scope. */
EpTensor *
ep_identity (EpTensor  *tensor,
             GError   **error)
{
  EpOpAttrs attrs;

  /* pinned: a release on another thread must not take the storage
   * from under the read of its device */
  if (!ep_tensor_pin (tensor, "identity", error))
    return NULL;
  ep_op_attrs_init (&attrs);
  attrs.device = tensor->storage->device;
  ep_tensor_unpin (tensor);

  return ep_dispatch1 (&ep_op_identity, &tensor, 1, &attrs, error);
}

/**
 * ep_tensor_stop_gradient:
 * @self: a tensor
 * @error: return location for an error
 *
 * The same values without their history: gradient tapes treat the result
 * as a constant, so no gradient flows back through it to @self. The
 * result shares @self's data.
 *
 * Returns: (transfer full): a tensor equal to @self
 */
EP_DEFINE_UNARY_METHOD (stop_gradient)
