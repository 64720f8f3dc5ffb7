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


/* linspace: values = { start, stop }, ints = { num, endpoint } */
static gboolean
linspace_infer (EpOpCall  *call,
                GError   **error)
{
  gint64 num = call->attrs.ints[0];

  if (num < 0)
    {
      g_set_error (error, EP_ERROR, EP_ERROR_INVALID_ARGUMENT,
                   _("linspace: num must not be negative (got %" PRId64 ")"), num);
      return FALSE;
    }

  return ep_layout_init (&call->output_layouts[0], call->attrs.dtype, &num, 1,
                         call->op->name, error);
}

const EpOpDef ep_op_linspace = {
  .id = EP_OP_LINSPACE, .name = "linspace", .n_inputs = 0,
  .flags = EP_OP_FLAG_PLACE_BY_ATTR,
  .infer = linspace_infer,
};

/* NumPy's linspace, step for step, in float64; integer types take the
 * floor; then the cast. Fills @data with the output's elements, for the
 * kernels of every device (OpenCL's without float64). */
void
ep_linspace_fill (const EpOpCall *call,
                  guint8         *data)
{
  gdouble start = call->attrs.values[0], stop = call->attrs.values[1];
  gint64 num = call->attrs.ints[0];
  gboolean endpoint = call->attrs.ints[1] != 0;
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
  attrs.values[0] = start;
  attrs.values[1] = stop;
  ep_op_attrs_set_ints (&attrs, (const gint64[]) { num, endpoint != FALSE }, 2);
  attrs.dtype = dtype;

  return ep_dispatch1 (&ep_op_linspace, NULL, 0, &attrs, error);
}

/* eye: ints = { n, m, k } */
static gboolean
eye_infer (EpOpCall  *call,
           GError   **error)
{
  return ep_layout_init (&call->output_layouts[0], call->attrs.dtype, call->attrs.ints, 2,
                         call->op->name, error);
}

const EpOpDef ep_op_eye = {
  .id = EP_OP_EYE, .name = "eye", .n_inputs = 0,
  .flags = EP_OP_FLAG_PLACE_BY_ATTR,
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
  ep_op_attrs_set_ints (&attrs, (const gint64[]) { n, m, k }, 3);
  attrs.dtype = dtype;

  return ep_dispatch1 (&ep_op_eye, NULL, 0, &attrs, error);
}

/* onehot_like: inputs { template, indices }, values[0] the value. Only
 * the template's type and shape matter. */
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
  if (!ep_dtype_is_integer (indices->dtype))
    {
      g_set_error (error, EP_ERROR, EP_ERROR_DTYPE,
                   _("onehot_like: indices must be int32 or int64, not %s"),
                   ep_dtype_get_name (indices->dtype));
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
  .id = EP_OP_ONEHOT_LIKE, .name = "onehot_like", .n_inputs = 2,
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
  attrs.values[0] = value;
  return ep_dispatch1 (&ep_op_onehot_like, inputs, 2, &attrs, error);
}
