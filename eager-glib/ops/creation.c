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
#include "ep-error-private.h"
#include "ep-math-private.h"
#include "ep-scalar-private.h"

static gboolean
full_infer (EpOpCall  *call,
            GError   **error)
{
  EpOpAttrs *attrs = &call->attrs;

  if (ep_number_overflows (attrs->full.value, attrs->dtype))
    {
      g_set_error (error, EP_ERROR, EP_ERROR_INVALID_ARGUMENT,
                   _("%s: the integer %" PRId64 " does not fit in %s"),
                   call->op->name, attrs->full.value.i, ep_dtype_get_name (attrs->dtype));
      return FALSE;
    }

  return ep_layout_init (&call->output_layouts[0], attrs->dtype,
                         attrs->shape, attrs->ndim, call->op->name, error);
}

const EpOpDef ep_op_full = {
  .id = EP_OP_FULL, .name = "full",
  .flags = EP_OP_FLAG_UINT8,
  EP_ATTRS (EP_ATTR_SHAPE_ARG,
            EP_ATTR ("value", EP_ATTR_NUMBER, EP_FIELD (full.value)),
            EP_ATTR_DTYPE_ARG (EP_DEFAULT (EP_DTYPE_FLOAT32)),
            EP_ATTR_DEVICE_ARG (.flags = EP_ATTR_INTERNAL)),
  .infer = full_infer,
};

const EpOpDef ep_func_full_int = {
  .id = EP_N_OPS, .name = "full_int",
  EP_ATTRS (EP_ATTR_SHAPE_ARG,
            EP_ATTR ("value", EP_ATTR_INT, EP_NO_FIELD),
            EP_ATTR_DTYPE_ARG (EP_DEFAULT (EP_DTYPE_INT64))),
};

static gboolean
arange_integral (const EpOpAttrs *attrs)
{
  return attrs->arange.start.integral && attrs->arange.stop.integral && attrs->arange.step.integral;
}

/* The number of values of an integer range, exactly: the distance fits
 * in 64 bits unsigned, the count may not fit in a gint64. */
static guint64
arange_integral_length (gint64 start,
                        gint64 stop,
                        gint64 step)
{
  guint64 distance, stride;

  if (step > 0 ? stop <= start : stop >= start)
    return 0;

  distance = step > 0 ? (guint64) stop - (guint64) start : (guint64) start - (guint64) stop;
  stride = step > 0 ? (guint64) step : 0 - (guint64) step;

  return distance / stride + (distance % stride != 0);
}

/* A length past G_MAXINT64 is no shape: the true count, and the range
 * asked for (integers exactly) */
static gboolean
arange_too_long (EpOpCall    *call,
                 const char  *count,
                 GError     **error)
{
  const EpOpAttrs *attrs = &call->attrs;
  const EpNumber *bounds[3] = { &attrs->arange.start, &attrs->arange.stop, &attrs->arange.step };
  char text[3][G_ASCII_DTOSTR_BUF_SIZE];

  for (guint b = 0; b < 3; b++)
    if (arange_integral (attrs))
      g_snprintf (text[b], sizeof text[b], "%" G_GINT64_FORMAT, bounds[b]->i);
    else
      g_snprintf (text[b], sizeof text[b], "%g", bounds[b]->f);

  g_set_error (error, EP_ERROR, EP_ERROR_OUT_OF_MEMORY,
               _("%s: %s elements (from %s to %s in steps of %s) are more than a tensor can hold"),
               call->op->name, count, text[0], text[1], text[2]);
  return FALSE;
}

/* The narrow integer types (uint8, int8, int16): integer start, stop
 * and step, and every value in the type's range (none wraps, so there
 * are at most 65536) */
static gboolean
arange_fits_narrow_int (EpDType         dtype,
                        const gdouble  *v,
                        gint64          n,
                        GError        **error)
{
  gdouble low = dtype == EP_DTYPE_UINT8 ? 0 : dtype == EP_DTYPE_INT8 ? G_MININT8 : G_MININT16;
  gdouble high = dtype == EP_DTYPE_UINT8 ? G_MAXUINT8 : dtype == EP_DTYPE_INT8 ? G_MAXINT8 : G_MAXINT16;
  gdouble last = v[0] + (gdouble) (n - 1) * v[2];

  if (v[0] != floor (v[0]) || v[1] != floor (v[1]) || v[2] != floor (v[2]))
    {
      g_set_error (error, EP_ERROR, EP_ERROR_INVALID_ARGUMENT,
                   _("arange: %s takes integer start, stop and step (got %g, %g, %g)"),
                   ep_dtype_get_name (dtype), v[0], v[1], v[2]);
      return FALSE;
    }
  if (n > 0 && (n > high - low + 1 || v[0] < low || v[0] > high || last < low || last > high))
    {
      g_set_error (error, EP_ERROR, EP_ERROR_INVALID_ARGUMENT,
                   _("arange: the values from %g to %g in steps of %g do not fit in %s"),
                   v[0], v[1], v[2], ep_dtype_get_name (dtype));
      return FALSE;
    }

  return TRUE;
}

static gboolean
arange_infer (EpOpCall  *call,
              GError   **error)
{
  const EpOpAttrs *attrs = &call->attrs;
  const gdouble v[3] = { attrs->arange.start.f, attrs->arange.stop.f, attrs->arange.step.f };
  gint64 n;

  if (attrs->dtype == EP_DTYPE_BOOL)
    return ep_op_error_dtype (call, EP_DTYPE_BOOL, error);

  if (!isfinite (v[0]) || !isfinite (v[1]) || !isfinite (v[2]) || v[2] == 0.0)
    {
      g_set_error (error, EP_ERROR, EP_ERROR_INVALID_ARGUMENT,
                   _("arange: start, stop and step must be finite and step not zero (got %g, %g, %g)"),
                   v[0], v[1], v[2]);
      return FALSE;
    }

  if (arange_integral (attrs))
    {
      guint64 length = arange_integral_length (attrs->arange.start.i, attrs->arange.stop.i,
                                               attrs->arange.step.i);
      char count[24];

      g_snprintf (count, sizeof count, "%" G_GUINT64_FORMAT, length);
      if (length > G_MAXINT64)
        return arange_too_long (call, count, error);
      n = (gint64) length;
    }
  else
    {
      gdouble length = ceil ((v[1] - v[0]) / v[2]);

      if (length >= 0x1p63)
        {
          char count[G_ASCII_DTOSTR_BUF_SIZE];

          g_snprintf (count, sizeof count, "%.0f", length);
          return arange_too_long (call, count, error);
        }
      n = length > 0 ? (gint64) length : 0;
    }

  if (ep_dtype_is_narrow_int (attrs->dtype) && !arange_fits_narrow_int (attrs->dtype, v, n, error))
    return FALSE;

  return ep_layout_init (&call->output_layouts[0], attrs->dtype, &n, 1, call->op->name, error);
}

const EpOpDef ep_op_arange = {
  .id = EP_OP_ARANGE, .name = "arange",
  .flags = EP_OP_FLAG_UINT8,
  EP_ATTRS (EP_ATTR ("start", EP_ATTR_NUMBER, EP_FIELD (arange.start)),
            EP_ATTR ("stop", EP_ATTR_NUMBER, EP_FIELD (arange.stop)),
            EP_ATTR ("step", EP_ATTR_NUMBER, EP_FIELD (arange.step), EP_DEFAULT (1)),
            EP_ATTR_DTYPE_ARG (EP_DEFAULT (EP_DTYPE_FLOAT32)),
            EP_ATTR_DEVICE_ARG (.flags = EP_ATTR_INTERNAL)),
  .infer = arange_infer,
};

const EpOpDef ep_func_arange_int = {
  .id = EP_N_OPS, .name = "arange_int",
  EP_ATTRS (EP_ATTR ("start", EP_ATTR_INT, EP_NO_FIELD),
            EP_ATTR ("stop", EP_ATTR_INT, EP_NO_FIELD),
            EP_ATTR ("step", EP_ATTR_INT, EP_NO_FIELD, EP_DEFAULT (1)),
            EP_ATTR_DTYPE_ARG (EP_DEFAULT (EP_DTYPE_INT64))),
};

/* The first two elements of NumPy's fill and their difference in the
 * element type, from which every device's kernel computes
 * first + i * delta (integer types wrap). Integer arguments are added
 * exactly: with more than one element, start + step lies before stop. */
void
ep_arange_values (const EpOpCall *call,
                  guint8         *first,
                  guint8         *second,
                  guint8         *delta)
{
  const EpOpAttrs *attrs = &call->attrs;
  EpDType dtype = call->output_layouts[0].dtype;
  gboolean several = call->output_layouts[0].shape[0] > 1;

  if (arange_integral (attrs))
    {
      gint64 start = attrs->arange.start.i;

      ep_number_store (first, dtype, attrs->arange.start);
      ep_number_store (second, dtype,
                       ep_number_from_int64 (several ? start + attrs->arange.step.i : start));
    }
  else
    {
      ep_scalar_store (first, dtype, attrs->arange.start.f);
      ep_scalar_store (second, dtype, attrs->arange.start.f + attrs->arange.step.f);
    }

  switch (dtype)
    {
    case EP_DTYPE_FLOAT32:
      *(gfloat *) delta = *(gfloat *) second - *(gfloat *) first;
      break;
    case EP_DTYPE_FLOAT64:
      *(gdouble *) delta = *(gdouble *) second - *(gdouble *) first;
      break;
    case EP_DTYPE_INT32:
      *(gint32 *) delta = (gint32) ((guint32) *(gint32 *) second - (guint32) *(gint32 *) first);
      break;
    case EP_DTYPE_INT64:
      *(gint64 *) delta = (gint64) ((guint64) *(gint64 *) second - (guint64) *(gint64 *) first);
      break;
    case EP_DTYPE_UINT8:
    case EP_DTYPE_INT8:
      *delta = (guint8) ((guint) *second - (guint) *first);
      break;
    case EP_DTYPE_INT16:
      *(gint16 *) delta = (gint16) (guint16) ((guint) *(guint16 *) second - (guint) *(guint16 *) first);
      break;
    case EP_DTYPE_BOOL:     /* refused by the rule */
    case EP_DTYPE_FLOAT16:  /* computed in float32 (dispatch/widen.c) */
    case EP_DTYPE_BFLOAT16:
      g_assert_not_reached ();
    }
}

/* @device NULL: where placement puts it (the scope, else cpu:0) */
EpTensor *
ep_full_on (EpDevice      *device,
            const gint64  *shape,
            guint          ndim,
            EpNumber       value,
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
 * A #gdouble holds integers up to 2^53 exactly: for larger ones in an
 * integer tensor, use [func@full_int].
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

  return ep_full_on (NULL, shape, ndim, ep_number_from_double (value), dtype, error);
}

/**
 * ep_full_int:
 * @shape: (array length=ndim): the shape
 * @ndim: the number of dimensions
 * @value: the value of every element, an integer
 * @dtype: the element type
 * @error: return location for an error
 *
 * Creates a tensor of @shape filled with the integer @value, exactly in
 * an integer tensor; see [func@full].
 *
 * Returns: (transfer full): the new tensor, or %NULL with
 *   %EP_ERROR_INVALID_ARGUMENT set if @value does not fit in @dtype
 *   (int32), or the errors of [func@full]
 */
EpTensor *
ep_full_int (const gint64  *shape,
             guint          ndim,
             gint64         value,
             EpDType        dtype,
             GError       **error)
{
  g_return_val_if_fail (shape != NULL || ndim == 0, NULL);

  return ep_full_on (NULL, shape, ndim, ep_number_from_int64 (value), dtype, error);
}

/* full() for a function named @name that the user called */
static EpTensor *
filled (const char    *name,
        const gint64  *shape,
        guint          ndim,
        gdouble        value,
        EpDType        dtype,
        GError       **error)
{
  EpTensor *tensor;

  g_return_val_if_fail (shape != NULL || ndim == 0, NULL);

  tensor = ep_full_on (NULL, shape, ndim, ep_number_from_double (value), dtype, error);
  if (tensor == NULL)
    ep_error_rename_call (error, "full", name);
  return tensor;
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
  return filled ("zeros", shape, ndim, 0.0, dtype, error);
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
  return filled ("ones", shape, ndim, 1.0, dtype, error);
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
 * values before @stop, computed as NumPy does. A #gdouble holds integers
 * up to 2^53 exactly: for larger ones, use [func@arange_int].
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
  return ep_arange_on (NULL, ep_number_from_double (start), ep_number_from_double (stop),
                       ep_number_from_double (step), dtype, error);
}

/**
 * ep_arange_int:
 * @start: the first value
 * @stop: the end, not included
 * @step: the distance between values, not zero
 * @dtype: the element type
 * @error: return location for an error
 *
 * [func@arange] of integers, counted and added exactly: the values are
 * `start + i * step`, wrapping around in int32 as NumPy's do.
 *
 * Returns: (transfer full): the new tensor, or %NULL with
 *   %EP_ERROR_INVALID_ARGUMENT set if @step is zero
 */
EpTensor *
ep_arange_int (gint64    start,
               gint64    stop,
               gint64    step,
               EpDType   dtype,
               GError  **error)
{
  return ep_arange_on (NULL, ep_number_from_int64 (start), ep_number_from_int64 (stop),
                       ep_number_from_int64 (step), dtype, error);
}

/* @device NULL: where placement puts it (the scope, else cpu:0) */
EpTensor *
ep_arange_on (EpDevice  *device,
              EpNumber   start,
              EpNumber   stop,
              EpNumber   step,
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
full_like (const char  *name,
           EpTensor    *self,
           EpNumber     value,
           GError     **error)
{
  EpDevice *device = ep_device_get_current ();
  EpTensor *tensor;

  if (!ep_tensor_pin (self, name, error))
    return NULL;
  if (device == NULL)
    device = self->storage->device;
  ep_tensor_unpin (self);

  tensor = ep_full_on (device, self->layout.shape, self->layout.ndim, value, self->layout.dtype, error);
  if (tensor == NULL)
    ep_error_rename_call (error, "full", name);
  return tensor;
}

const EpOpDef ep_func_full_like = {
  .id = EP_N_OPS, .name = "full_like",
  EP_INPUTS (EP_INPUT ("self")),
  EP_ATTRS (EP_ATTR ("value", EP_ATTR_FLOAT, EP_NO_FIELD)),
};

const EpOpDef ep_func_full_like_int = {
  .id = EP_N_OPS, .name = "full_like_int",
  EP_INPUTS (EP_INPUT ("self")),
  EP_ATTRS (EP_ATTR ("value", EP_ATTR_INT, EP_NO_FIELD)),
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

  return full_like ("full_like", self, ep_number_from_double (value), error);
}

/**
 * ep_tensor_full_like_int:
 * @self: a tensor
 * @value: the value of every element, an integer
 * @error: return location for an error
 *
 * [method@Tensor.full_like] with an integer, exact in an integer tensor
 * (a #gdouble holds integers up to 2^53 only).
 *
 * Returns: (transfer full): the new tensor, or %NULL with
 *   %EP_ERROR_INVALID_ARGUMENT set if @value does not fit in the element
 *   type (int32)
 */
EpTensor *
ep_tensor_full_like_int (EpTensor  *self,
                         gint64     value,
                         GError   **error)
{
  g_return_val_if_fail (EP_IS_TENSOR (self), NULL);

  return full_like ("full_like", self, ep_number_from_int64 (value), error);
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

  return full_like ("zeros_like", self, ep_number_from_int64 (0), error);
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

  return full_like ("ones_like", self, ep_number_from_int64 (1), error);
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
