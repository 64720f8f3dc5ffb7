/* ops/scan.c: cumulative sums
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <glib/gi18n-lib.h>

#include "ep-dispatch-private.h"
#include "ep-error.h"
#include "ep-grad-private.h"
#include "ep-math-private.h"

static gboolean
cumsum_infer (EpOpCall  *call,
              GError   **error)
{
  const EpLayout *in = &call->inputs[0]->layout;
  EpDType dtype = ep_op_accumulation_dtype (in->dtype);
  gint64 size = ep_layout_get_size (in);

  if (!ep_op_one_axis_or_flat (call, error))
    return FALSE;

  call->input_dtypes[0] = dtype;
  if (call->attrs.all_axes)
    ep_op_set_output (call, dtype, &size, 1);
  else
    ep_op_set_output (call, dtype, in->shape, in->ndim);
  return TRUE;
}

/* Each input element reaches every later output: the gradient is the
 * reversed cumulative sum, sum (g) - cumsum (g) + g. */
static gboolean
cumsum_grad (const EpOpCall   *call,
             EpTensor *const  *output_grads,
             EpTensor        **input_grads,
             GError          **error)
{
  EpTensor *g = output_grads[0];
  const EpLayout *in = &call->inputs[0]->layout;
  gboolean flat = call->attrs.all_axes;
  g_autoptr(EpTensor) total = NULL, running = NULL, before = NULL, reversed = NULL;

  if ((total = ep_tensor_sum (g, flat ? NULL : call->attrs.axes, flat ? 0 : 1, TRUE, error)) == NULL
      || (running = ep_tensor_cumsum (g, flat ? EP_AXIS_NONE : call->attrs.axes[0], error)) == NULL
      || (before = ep_tensor_sub (total, running, error)) == NULL
      || (reversed = ep_tensor_add (before, g, error)) == NULL)
    return FALSE;

  input_grads[0] = ep_tensor_reshape (reversed, in->shape, in->ndim, error);
  return input_grads[0] != NULL;
}

const EpOpDef ep_op_cumsum = {
  .id = EP_OP_CUMSUM, .name = "cumsum",
  EP_INPUTS (EP_INPUT ("self")),
  EP_ATTRS (EP_ATTR_AXIS_ARG (.flags = EP_ATTR_NULLABLE)),
  .infer = cumsum_infer, .gradient = cumsum_grad,
};

/**
 * ep_tensor_cumsum:
 * @self: a tensor
 * @axis: the axis to accumulate along, or %EP_AXIS_NONE to accumulate
 *   over the flattened tensor
 * @error: return location for an error
 *
 * Cumulative sums along an axis, as NumPy's `cumsum`: element i is the
 * sum of elements 0 … i, added in order. Without an axis the result is
 * 1-dimensional; so it is for a 0-d tensor, flattened first as in NumPy
 * (its axis is 0 or -1). Bool and integer tensors accumulate as int64.
 *
 * Returns: (transfer full): the sums, or %NULL with %EP_ERROR_AXIS set
 *   if the axis is out of range
 */
EpTensor *
ep_tensor_cumsum (EpTensor  *self,
                  gint       axis,
                  GError   **error)
{
  return ep_dispatch_optional_axis (&ep_op_cumsum, self, axis, FALSE, error);
}
