/* ep-creation.c: full and arange, and the functions built on them
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <glib/gi18n-lib.h>
#include <math.h>
#include <string.h>

#include "ep-creation.h"
#include "ep-dispatch-private.h"
#include "ep-error.h"

static gboolean
full_infer (EpOpCall  *call,
            GError   **error)
{
  EpOpAttrs *attrs = &call->attrs;

  return ep_layout_init (&call->output_layouts[0], attrs->dtype,
                         attrs->ints, attrs->n_ints, call->op->name, error);
}

const EpOpDef ep_op_full = {
  .id = EP_OP_FULL, .name = "full", .n_inputs = 0,
  .flags = EP_OP_FLAG_PLACE_BY_ATTR,
  .infer = full_infer,
};

static gboolean
arange_infer (EpOpCall  *call,
              GError   **error)
{
  const gdouble *v = call->attrs.values;
  gdouble length;
  gint64 n;

  if (call->attrs.dtype == EP_DTYPE_BOOL)
    return ep_op_error_dtype (call, EP_DTYPE_BOOL, error);

  if (!isfinite (v[0]) || !isfinite (v[1]) || !isfinite (v[2]) || v[2] == 0.0)
    {
      g_set_error (error, EP_ERROR, EP_ERROR_INVALID_ARGUMENT,
                   _("arange: start, stop and step must be finite and step not zero (got %g, %g, %g)"),
                   v[0], v[1], v[2]);
      return FALSE;
    }

  length = ceil ((v[1] - v[0]) / v[2]);
  n = length > 0 ? (gint64) MIN (length, (gdouble) G_MAXINT64 / 2) : 0;

  return ep_layout_init (&call->output_layouts[0], call->attrs.dtype, &n, 1, call->op->name, error);
}

const EpOpDef ep_op_arange = {
  .id = EP_OP_ARANGE, .name = "arange", .n_inputs = 0,
  .flags = EP_OP_FLAG_PLACE_BY_ATTR,
  .infer = arange_infer,
};

static EpTensor *
full_on (EpDevice      *device,
         const gint64  *shape,
         guint          ndim,
         gdouble        value,
         EpDType        dtype,
         GError       **error)
{
  EpOpAttrs attrs;

  ep_op_attrs_init (&attrs);
  ep_op_attrs_set_ints (&attrs, shape, ndim);
  attrs.values[0] = value;
  attrs.dtype = dtype;
  attrs.device = device;

  return ep_dispatch1 (&ep_op_full, NULL, 0, &attrs, error);
}

/**
 * ep_full:
 * @shape: (array length=ndim): the shape
 * @ndim: the number of dimensions
 * @value: the value of every element
 * @dtype: the element type
 * @error: return location for an error
 *
 * Creates a tensor of @shape filled with @value, on the current device.
 *
 * Returns: (transfer full): the new tensor, or %NULL with %EP_ERROR_SHAPE
 *   set for a negative dimension or %EP_ERROR_OUT_OF_MEMORY if it does
 *   not fit in memory
 */
EpTensor *
ep_full (const gint64  *shape,
         guint          ndim,
         gdouble        value,
         EpDType        dtype,
         GError       **error)
{
  g_return_val_if_fail (shape != NULL || ndim == 0, NULL);
  g_return_val_if_fail (ep_dtype_is_valid (dtype), NULL);

  return full_on (NULL, shape, ndim, value, dtype, error);
}

/**
 * ep_zeros:
 * @shape: (array length=ndim): the shape
 * @ndim: the number of dimensions
 * @dtype: the element type
 * @error: return location for an error
 *
 * Creates a tensor of @shape filled with zeros. See [func@full].
 *
 * Returns: (transfer full): the new tensor
 */
EpTensor *
ep_zeros (const gint64  *shape,
          guint          ndim,
          EpDType        dtype,
          GError       **error)
{
  return ep_full (shape, ndim, 0.0, dtype, error);
}

/**
 * ep_ones:
 * @shape: (array length=ndim): the shape
 * @ndim: the number of dimensions
 * @dtype: the element type
 * @error: return location for an error
 *
 * Creates a tensor of @shape filled with ones. See [func@full].
 *
 * Returns: (transfer full): the new tensor
 */
EpTensor *
ep_ones (const gint64  *shape,
         guint          ndim,
         EpDType        dtype,
         GError       **error)
{
  return ep_full (shape, ndim, 1.0, dtype, error);
}

/**
 * ep_arange:
 * @start: the first value
 * @stop: the end, not included
 * @step: the distance between values, not zero
 * @dtype: the element type
 * @error: return location for an error
 *
 * Creates the 1-dimensional tensor `[start, start + step, …]` of the
 * values before @stop, computed as NumPy does.
 *
 * Returns: (transfer full): the new tensor, or %NULL with
 *   %EP_ERROR_INVALID_ARGUMENT set if @step is zero or an argument is not
 *   finite
 */
EpTensor *
ep_arange (gdouble   start,
           gdouble   stop,
           gdouble   step,
           EpDType   dtype,
           GError  **error)
{
  EpOpAttrs attrs;

  g_return_val_if_fail (ep_dtype_is_valid (dtype), NULL);

  ep_op_attrs_init (&attrs);
  attrs.values[0] = start;
  attrs.values[1] = stop;
  attrs.values[2] = step;
  attrs.dtype = dtype;

  return ep_dispatch1 (&ep_op_arange, NULL, 0, &attrs, error);
}

static EpTensor *
full_like (EpTensor  *self,
           gdouble    value,
           GError   **error)
{
  EpDevice *device = ep_device_get_current ();

  if (!ep_tensor_check_alive (self, "full_like", error))
    return NULL;
  return full_on (device != NULL ? device : self->storage->device,
                  self->layout.shape, self->layout.ndim, value, self->layout.dtype, error);
}

/**
 * ep_tensor_full_like:
 * @self: a tensor
 * @value: the value of every element
 * @error: return location for an error
 *
 * Creates a tensor with the shape, element type and device of @self,
 * filled with @value.
 *
 * Returns: (transfer full): the new tensor
 */
EpTensor *
ep_tensor_full_like (EpTensor  *self,
                     gdouble    value,
                     GError   **error)
{
  g_return_val_if_fail (EP_IS_TENSOR (self), NULL);

  return full_like (self, value, error);
}

/**
 * ep_tensor_zeros_like:
 * @self: a tensor
 * @error: return location for an error
 *
 * Creates a tensor like @self filled with zeros.
 *
 * Returns: (transfer full): the new tensor
 */
EpTensor *
ep_tensor_zeros_like (EpTensor  *self,
                      GError   **error)
{
  g_return_val_if_fail (EP_IS_TENSOR (self), NULL);

  return full_like (self, 0.0, error);
}

/**
 * ep_tensor_ones_like:
 * @self: a tensor
 * @error: return location for an error
 *
 * Creates a tensor like @self filled with ones.
 *
 * Returns: (transfer full): the new tensor
 */
EpTensor *
ep_tensor_ones_like (EpTensor  *self,
                     GError   **error)
{
  g_return_val_if_fail (EP_IS_TENSOR (self), NULL);

  return full_like (self, 1.0, error);
}
