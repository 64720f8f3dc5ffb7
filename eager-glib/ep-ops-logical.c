/* ep-ops-logical.c: logic on bool tensors, classification of floats,
 * all and any
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <glib/gi18n-lib.h>

#include "ep-dispatch-private.h"
#include "ep-error.h"
#include "ep-math-private.h"

/* Logic takes bool tensors only: NumPy would test other types for
 * non-zero, but a silent conversion hides mistakes (API.md). */
static gboolean
require_bool_inputs (const EpOpCall  *call,
                     GError         **error)
{
  for (guint i = 0; i < call->n_inputs; i++)
    {
      EpDType dtype = call->inputs[i]->layout.dtype;

      if (dtype != EP_DTYPE_BOOL)
        {
          g_set_error (error, EP_ERROR, EP_ERROR_DTYPE,
                       _("%s: takes bool tensors, not %s; compare or use astype first"),
                       call->op->name, ep_dtype_get_name (dtype));
          return FALSE;
        }
    }

  return TRUE;
}

static gboolean
logical_infer (EpOpCall  *call,
               GError   **error)
{
  EpLayout *out = &call->output_layouts[0];

  if (!require_bool_inputs (call, error))
    return FALSE;
  if (!ep_op_broadcast (call, out, error))
    return FALSE;

  out->dtype = EP_DTYPE_BOOL;
  return TRUE;
}

/* isnan and friends: defined for every type (integers and bools are
 * never NaN or infinite). */
static gboolean
classify_infer (EpOpCall  *call,
                GError   **error)
{
  EpTensor *input = call->inputs[0];

  ep_op_set_output (call, EP_DTYPE_BOOL, input->layout.shape, input->layout.ndim);
  return TRUE;
}

const EpOpDef ep_op_logical_and = {
  .id = EP_OP_LOGICAL_AND, .name = "logical_and", .n_inputs = 2,
  .infer = logical_infer,
};

const EpOpDef ep_op_logical_or = {
  .id = EP_OP_LOGICAL_OR, .name = "logical_or", .n_inputs = 2,
  .infer = logical_infer,
};

const EpOpDef ep_op_logical_not = {
  .id = EP_OP_LOGICAL_NOT, .name = "logical_not", .n_inputs = 1,
  .infer = logical_infer,
};

const EpOpDef ep_op_isnan = {
  .id = EP_OP_ISNAN, .name = "isnan", .n_inputs = 1,
  .infer = classify_infer,
};

const EpOpDef ep_op_isinf = {
  .id = EP_OP_ISINF, .name = "isinf", .n_inputs = 1,
  .infer = classify_infer,
};

const EpOpDef ep_op_isfinite = {
  .id = EP_OP_ISFINITE, .name = "isfinite", .n_inputs = 1,
  .infer = classify_infer,
};

/**
 * ep_tensor_logical_and:
 * @self: a bool tensor
 * @other: a bool tensor broadcastable with @self
 * @error: return location for an error
 *
 * Logical and, elementwise.
 *
 * Returns: (transfer full): `self and other`, or %NULL with
 *   %EP_ERROR_DTYPE set if a tensor is not bool, or %EP_ERROR_SHAPE
 */
EP_DEFINE_BINARY_METHOD (logical_and)

/**
 * ep_tensor_logical_or:
 * @self: a bool tensor
 * @other: a bool tensor broadcastable with @self
 * @error: return location for an error
 *
 * Logical or, elementwise.
 *
 * Returns: (transfer full): `self or other`, or %NULL with
 *   %EP_ERROR_DTYPE set if a tensor is not bool, or %EP_ERROR_SHAPE
 */
EP_DEFINE_BINARY_METHOD (logical_or)

/**
 * ep_tensor_logical_not:
 * @self: a bool tensor
 * @error: return location for an error
 *
 * Logical negation, elementwise.
 *
 * Returns: (transfer full): `not self`, or %NULL with %EP_ERROR_DTYPE
 *   set if @self is not bool
 */
EP_DEFINE_UNARY_METHOD (logical_not)

/**
 * ep_tensor_isnan:
 * @self: a tensor
 * @error: return location for an error
 *
 * Whether each element is NaN; always false for integer and bool
 * tensors.
 *
 * Returns: (transfer full): a bool tensor shaped like @self
 */
EP_DEFINE_UNARY_METHOD (isnan)

/**
 * ep_tensor_isinf:
 * @self: a tensor
 * @error: return location for an error
 *
 * Whether each element is positive or negative infinity; always false
 * for integer and bool tensors.
 *
 * Returns: (transfer full): a bool tensor shaped like @self
 */
EP_DEFINE_UNARY_METHOD (isinf)

/**
 * ep_tensor_isfinite:
 * @self: a tensor
 * @error: return location for an error
 *
 * Whether each element is neither infinite nor NaN; always true for
 * integer and bool tensors.
 *
 * Returns: (transfer full): a bool tensor shaped like @self
 */
EP_DEFINE_UNARY_METHOD (isfinite)

/* all, any */

static gboolean
truth_reduce_infer (EpOpCall  *call,
                    GError   **error)
{

  if (!require_bool_inputs (call, error))
    return FALSE;
  if (!ep_op_normalize_reduction_axes (call, error))
    return FALSE;

  ep_op_set_reduced_output (call, EP_DTYPE_BOOL);
  return TRUE;
}

const EpOpDef ep_op_all = {
  .id = EP_OP_ALL, .name = "all", .n_inputs = 1,
  .infer = truth_reduce_infer,
};

const EpOpDef ep_op_any = {
  .id = EP_OP_ANY, .name = "any", .n_inputs = 1,
  .infer = truth_reduce_infer,
};

/**
 * ep_tensor_all:
 * @self: a bool tensor
 * @axes: (array length=n_axes) (nullable): the axes to reduce; %NULL for
 *   all of them. Negative axes count from the end.
 * @n_axes: the number of axes
 * @keepdims: whether to keep the reduced axes with extent 1
 * @error: return location for an error
 *
 * Whether every element over @axes is true; true for an empty selection.
 *
 * Returns: (transfer full): the bool results, or %NULL with
 *   %EP_ERROR_DTYPE set if @self is not bool, or %EP_ERROR_AXIS
 */
EpTensor *
ep_tensor_all (EpTensor    *self,
               const gint  *axes,
               guint        n_axes,
               gboolean     keepdims,
               GError     **error)
{
  return ep_dispatch_axes (&ep_op_all, self, axes, n_axes, keepdims, error);
}

/**
 * ep_tensor_any:
 * @self: a bool tensor
 * @axes: (array length=n_axes) (nullable): the axes to reduce; %NULL for
 *   all of them. Negative axes count from the end.
 * @n_axes: the number of axes
 * @keepdims: whether to keep the reduced axes with extent 1
 * @error: return location for an error
 *
 * Whether some element over @axes is true; false for an empty selection.
 *
 * Returns: (transfer full): the bool results, or %NULL with
 *   %EP_ERROR_DTYPE set if @self is not bool, or %EP_ERROR_AXIS
 */
EpTensor *
ep_tensor_any (EpTensor    *self,
               const gint  *axes,
               guint        n_axes,
               gboolean     keepdims,
               GError     **error)
{
  return ep_dispatch_axes (&ep_op_any, self, axes, n_axes, keepdims, error);
}
