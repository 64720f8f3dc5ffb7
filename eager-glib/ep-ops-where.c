/* ep-ops-where.c: choosing elementwise between two tensors
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include "ep-dispatch-private.h"
#include "ep-grad-private.h"

static gboolean
where_infer (EpOpCall  *call,
             GError   **error)
{
  EpLayout *out = &call->output_layouts[0];
  EpDType dtype = ep_op_result_dtype (call->inputs + 1, 2);

  if (!ep_op_broadcast (call, out, error))
    return FALSE;

  out->dtype = dtype;
  call->input_dtypes[0] = EP_DTYPE_BOOL;
  call->input_dtypes[1] = dtype;
  call->input_dtypes[2] = dtype;
  return TRUE;
}

/* The gradient goes to the chosen side; the condition has none. */
static gboolean
where_gradient (const EpOpCall   *call,
                EpTensor *const  *output_grads,
                EpTensor        **input_grads,
                GError          **error)
{
  g_autoptr(EpTensor) zero = ep_grad_literal (0.0);

  for (guint i = 1; i < 3; i++)
    {
      EpTensor *chosen;

      if (!ep_grad_needed (call, i))
        continue;

      chosen = i == 1 ? ep_tensor_where (call->inputs[0], output_grads[0], zero, error)
                      : ep_tensor_where (call->inputs[0], zero, output_grads[0], error);
      if (!ep_grad_set_summed (call, i, chosen, input_grads, error))
        return FALSE;
    }

  return TRUE;
}

const EpOpDef ep_op_where = {
  .id = EP_OP_WHERE, .name = "where", .n_inputs = 3,
  .infer = where_infer,
  .gradient = where_gradient,
};

/**
 * ep_tensor_where:
 * @self: the condition; non-bool tensors count non-zero as true
 * @x: the values where @self is true
 * @y: the values where @self is false
 * @error: return location for an error
 *
 * Chooses elementwise between @x and @y; all three broadcast together and
 * @x and @y promote to a common type. Weak scalars
 * ([ctor@Tensor.new_weak_scalar]) are accepted for @x and @y. The gradient
 * goes to @x where @self is true and to @y elsewhere.
 *
 * Returns: (transfer full): the chosen values, or %NULL with
 *   %EP_ERROR_SHAPE set if the shapes do not broadcast
 */
EpTensor *
ep_tensor_where (EpTensor  *self,
                 EpTensor  *x,
                 EpTensor  *y,
                 GError   **error)
{
  EpTensor *inputs[3] = { self, x, y };

  g_return_val_if_fail (EP_IS_TENSOR (self), NULL);
  g_return_val_if_fail (EP_IS_TENSOR (x), NULL);
  g_return_val_if_fail (EP_IS_TENSOR (y), NULL);

  return ep_dispatch1 (&ep_op_where, inputs, 3, NULL, error);
}
