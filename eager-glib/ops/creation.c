/* ops/creation.c: full, arange, linspace, eye, onehot_like, and the functions built on them
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <glib/gi18n-lib.h>
#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "ep-creation.h"
#include "ep-creation-private.h"
#include "ep-dispatch-private.h"
#include "ep-error.h"
#include "ep-math-private.h"
#include "ep-scalar-private.h"

static gboolean
full_infer (EpOpCall  *call,
            GError   **error)
{
  EpOpAttrs *attrs = &call->attrs;

  return ep_layout_init (&call->output_layouts[0], attrs->dtype,
                         attrs->shape, attrs->ndim, call->op->name, error);
}

const EpOpDef ep_op_full = {
  .id = EP_OP_FULL, .name = "full",
  EP_ATTRS (EP_ATTR_SHAPE_ARG,
            EP_ATTR ("value", EP_ATTR_FLOAT, EP_FIELD (full.value)),
            EP_ATTR_DTYPE_ARG (EP_DEFAULT (EP_DTYPE_FLOAT32)),
            EP_ATTR_DEVICE_ARG (.flags = EP_ATTR_INTERNAL)),
  .infer = full_infer,
};

static gboolean
arange_infer (EpOpCall  *call,
              GError   **error)
{
  const gdouble v[3] = { call->attrs.arange.start, call->attrs.arange.stop, call->attrs.arange.step };
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
  .id = EP_OP_ARANGE, .name = "arange",
  EP_ATTRS (EP_ATTR ("start", EP_ATTR_FLOAT, EP_FIELD (arange.start)),
            EP_ATTR ("stop", EP_ATTR_FLOAT, EP_FIELD (arange.stop)),
            EP_ATTR ("step", EP_ATTR_FLOAT, EP_FIELD (arange.step), EP_DEFAULT (1)),
            EP_ATTR_DTYPE_ARG (EP_DEFAULT (EP_DTYPE_FLOAT32)),
            EP_ATTR_DEVICE_ARG (.flags = EP_ATTR_INTERNAL)),
  .infer = arange_infer,
};

/* @device NULL: where placement puts it (the scope, else cpu:0) */
EpTensor *
ep_full_on (EpDevice      *device,
            const gint64  *shape,
            guint          ndim,
            gdouble        value,
            EpDType        dtype,
            GError       **error)
{
  EpOpAttrs attrs;

  ep_op_attrs_init (&attrs);
  ep_op_attrs_set_list (attrs.shape, attrs.ndim, shape, ndim);
  attrs.full.value = value;
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

  return ep_full_on (NULL, shape, ndim, value, dtype, error);
}

const EpOpDef ep_func_zeros = {
  .id = EP_N_OPS, .name = "zeros",
  EP_ATTRS (EP_ATTR_SHAPE_ARG, EP_ATTR_DTYPE_ARG (EP_DEFAULT (EP_DTYPE_FLOAT32))),
};

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

const EpOpDef ep_func_ones = {
  .id = EP_N_OPS, .name = "ones",
  EP_ATTRS (EP_ATTR_SHAPE_ARG, EP_ATTR_DTYPE_ARG (EP_DEFAULT (EP_DTYPE_FLOAT32))),
};

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
  return ep_arange_on (NULL, start, stop, step, dtype, error);
}

/* @device NULL: where placement puts it (the scope, else cpu:0) */
EpTensor *
ep_arange_on (EpDevice  *device,
              gdouble    start,
              gdouble    stop,
              gdouble    step,
              EpDType    dtype,
              GError   **error)
{
  EpOpAttrs attrs;

  ep_op_attrs_init (&attrs);
  attrs.arange.start = start;
  attrs.arange.stop = stop;
  attrs.arange.step = step;
  attrs.dtype = dtype;
  attrs.device = device;

  return ep_dispatch1 (&ep_op_arange, NULL, 0, &attrs, error);
}

static EpTensor *
full_like (EpTensor  *self,
           gdouble    value,
           GError   **error)
{
  EpDevice *device = ep_device_get_current ();

  if (!ep_tensor_pin (self, "full_like", error))
    return NULL;
  if (device == NULL)
    device = self->storage->device;
  ep_tensor_unpin (self);

  return ep_full_on (device, self->layout.shape, self->layout.ndim, value, self->layout.dtype, error);
}

const EpOpDef ep_func_full_like = {
  .id = EP_N_OPS, .name = "full_like",
  EP_INPUTS (EP_INPUT ("self")),
  EP_ATTRS (EP_ATTR ("value", EP_ATTR_FLOAT, EP_NO_FIELD)),
};

const EpOpDef ep_func_zeros_like = {
  .id = EP_N_OPS, .name = "zeros_like",
  EP_INPUTS (EP_INPUT ("self")),
};

const EpOpDef ep_func_ones_like = {
  .id = EP_N_OPS, .name = "ones_like",
  EP_INPUTS (EP_INPUT ("self")),
};

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


static gboolean
linspace_infer (EpOpCall  *call,
                GError   **error)
{
  gint64 num = call->attrs.linspace.num;

  return ep_layout_init (&call->output_layouts[0], call->attrs.dtype, &num, 1,
                         call->op->name, error);
}

const EpOpDef ep_op_linspace = {
  .id = EP_OP_LINSPACE, .name = "linspace",
  EP_ATTRS (EP_ATTR ("start", EP_ATTR_FLOAT, EP_FIELD (linspace.start)),
            EP_ATTR ("stop", EP_ATTR_FLOAT, EP_FIELD (linspace.stop)),
            EP_ATTR ("num", EP_ATTR_INT, EP_FIELD (linspace.num), EP_DEFAULT (50),
                     .flags = EP_ATTR_NON_NEGATIVE),
            EP_ATTR ("endpoint", EP_ATTR_BOOL, EP_FIELD (linspace.endpoint), EP_DEFAULT (TRUE)),
            EP_ATTR_DTYPE_ARG (EP_DEFAULT (EP_DTYPE_FLOAT32)),
            EP_ATTR_DEVICE_ARG (.flags = EP_ATTR_INTERNAL)),
  .infer = linspace_infer,
};

/* NumPy's linspace, step for step, in float64; integer types take the
 * floor; then the cast. Fills @data with the output's elements, for the
 * kernels of every device (OpenCL's without float64). */
void
ep_linspace_fill (const EpOpCall *call,
                  guint8         *data)
{
  gdouble start = call->attrs.linspace.start, stop = call->attrs.linspace.stop;
  gint64 num = call->attrs.linspace.num;
  gboolean endpoint = call->attrs.linspace.endpoint;
  gdouble div = (gdouble) (endpoint ? num - 1 : num);
  gdouble delta = stop - start;
  gdouble step = div > 0 ? delta / div : NAN;
  EpDType dtype = call->output_layouts[0].dtype;
  gsize itemsize = ep_dtype_get_itemsize (dtype);

  for (gint64 i = 0; i < num; i++)
    {
      gdouble y = (gdouble) i;

      if (div > 0 && step == 0)
        y = (y / div) * delta;
      else if (div > 0)
        y = y * step;
      else
        y = y * delta;
      y += start;
      if (endpoint && num > 1 && i == num - 1)
        y = stop;
      if (ep_dtype_is_integer (dtype))
        y = floor (y);

      ep_scalar_store (data + i * itemsize, dtype, y);
    }
}

/**
 * ep_linspace:
 * @start: the first value
 * @stop: the last value, or the end if @endpoint is %FALSE
 * @num: the number of values, not negative
 * @endpoint: whether @stop is the last value
 * @dtype: the element type
 * @error: return location for an error
 *
 * @num evenly spaced values from @start to @stop, computed in float64 as
 * NumPy's `linspace` does (integer types take the floor, as in NumPy).
 *
 * Returns: (transfer full): the 1-dimensional tensor, or %NULL with
 *   %EP_ERROR_INVALID_ARGUMENT set if @num is negative
 */
EpTensor *
ep_linspace (gdouble    start,
             gdouble    stop,
             gint64     num,
             gboolean   endpoint,
             EpDType    dtype,
             GError   **error)
{
  EpOpAttrs attrs;

  ep_op_attrs_init (&attrs);
  attrs.linspace.start = start;
  attrs.linspace.stop = stop;
  attrs.linspace.num = num;
  attrs.linspace.endpoint = endpoint != FALSE;
  attrs.dtype = dtype;

  return ep_dispatch1 (&ep_op_linspace, NULL, 0, &attrs, error);
}

static gboolean
eye_infer (EpOpCall  *call,
           GError   **error)
{
  const gint64 shape[2] = { call->attrs.eye.n, call->attrs.eye.m };

  return ep_layout_init (&call->output_layouts[0], call->attrs.dtype, shape, 2,
                         call->op->name, error);
}

const EpOpDef ep_op_eye = {
  .id = EP_OP_EYE, .name = "eye",
  EP_ATTRS (EP_ATTR ("n", EP_ATTR_INT, EP_FIELD (eye.n)),
            EP_ATTR ("m", EP_ATTR_INT, EP_FIELD (eye.m)),
            EP_ATTR ("k", EP_ATTR_INT, EP_FIELD (eye.k), EP_DEFAULT (0)),
            EP_ATTR_DTYPE_ARG (EP_DEFAULT (EP_DTYPE_FLOAT32)),
            EP_ATTR_DEVICE_ARG (.flags = EP_ATTR_INTERNAL)),
  .infer = eye_infer,
};

/**
 * ep_eye:
 * @n: the number of rows
 * @m: the number of columns
 * @k: the diagonal: 0 the main one, positive above it, negative below
 * @dtype: the element type
 * @error: return location for an error
 *
 * The (@n, @m) matrix with ones on diagonal @k and zeros elsewhere, as
 * NumPy's `eye`.
 *
 * Returns: (transfer full): the matrix, or %NULL with %EP_ERROR_SHAPE
 *   set if @n or @m is negative
 */
EpTensor *
ep_eye (gint64    n,
        gint64    m,
        gint64    k,
        EpDType   dtype,
        GError  **error)
{
  EpOpAttrs attrs;

  ep_op_attrs_init (&attrs);
  attrs.eye.n = n;
  attrs.eye.m = m;
  attrs.eye.k = k;
  attrs.dtype = dtype;

  return ep_dispatch1 (&ep_op_eye, NULL, 0, &attrs, error);
}

/* Only the template's type and shape matter. */
static gboolean
onehot_infer (EpOpCall  *call,
              GError   **error)
{
  const EpLayout *like = &call->inputs[0]->layout;
  const EpLayout *indices = &call->inputs[1]->layout;

  if (like->ndim != 2)
    {
      g_autofree char *s = ep_shape_to_string (like->shape, like->ndim);

      g_set_error (error, EP_ERROR, EP_ERROR_SHAPE,
                   _("onehot_like: the tensor must have shape (N, C), not %s"), s);
      return FALSE;
    }
  if (indices->ndim != 1 || indices->shape[0] != like->shape[0])
    {
      g_autofree char *s = ep_shape_to_string (indices->shape, indices->ndim);
      g_autofree char *t = ep_shape_to_string (like->shape, like->ndim);

      g_set_error (error, EP_ERROR, EP_ERROR_SHAPE,
                   _("onehot_like: indices of shape %s do not match a tensor of shape %s; they must have shape (N,)"),
                   s, t);
      return FALSE;
    }

  call->input_dtypes[1] = EP_DTYPE_INT64;
  ep_op_set_output (call, like->dtype, like->shape, 2);
  return TRUE;
}

const EpOpDef ep_op_onehot_like = {
  .id = EP_OP_ONEHOT_LIKE, .name = "onehot_like",
  EP_INPUTS (EP_INPUT ("self"), EP_INPUT_OF ("indices", EP_INPUT_INTEGER)),
  EP_ATTRS (EP_ATTR ("value", EP_ATTR_FLOAT, EP_FIELD (onehot.value), EP_DEFAULT (1))),
  .infer = onehot_infer,
};

/**
 * ep_tensor_onehot_like:
 * @self: a tensor of shape (N, C), whose type and shape the result takes
 * @indices: int32 or int64 column indices, of shape (N,), each in [0, C)
 * @value: the value to put at each index
 * @error: return location for an error
 *
 * A tensor like @self that is zero except for `result[i, indices[i]] =
 * value`, as EagerPy's `onehot_like`.
 *
 * Returns: (transfer full): the one-hot rows, or %NULL with
 *   %EP_ERROR_SHAPE set for wrong shapes, %EP_ERROR_DTYPE for indices
 *   that are not integers, or %EP_ERROR_INDEX for an index out of range
 */
EpTensor *
ep_tensor_onehot_like (EpTensor  *self,
                       EpTensor  *indices,
                       gdouble    value,
                       GError   **error)
{
  EpTensor *inputs[2] = { self, indices };
  EpOpAttrs attrs;

  g_return_val_if_fail (EP_IS_TENSOR (self), NULL);
  g_return_val_if_fail (EP_IS_TENSOR (indices), NULL);

  ep_op_attrs_init (&attrs);
  attrs.onehot.value = value;
  return ep_dispatch1 (&ep_op_onehot_like, inputs, 2, &attrs, error);
}
