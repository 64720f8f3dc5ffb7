/* core/tensor.c
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <glib/gi18n-lib.h>
#include <inttypes.h>
#include <string.h>

#include "ep-context-private.h"
#include "ep-device-private.h"
#include "ep-dispatch-private.h"
#include "ep-enum-types.h"
#include "ep-error.h"
#include "ep-error-private.h"
#include "ep-fault-private.h"
#include "ep-memory-private.h"
#include "ep-scalar-private.h"
#include "ep-tensor-private.h"

/**
 * EpTensor:
 *
 * An n-dimensional array of numbers on a device.
 *
 * A tensor is an immutable value: every operation returns a new tensor
 * and leaves its inputs alone, so tensors can be shared freely between
 * threads, tapes and traced functions. Operations are methods that chain,
 * as in `x.square().sum().sqrt()`, and follow NumPy's semantics for
 * broadcasting, type promotion and axes.
 *
 * A tensor has an element type ([enum@DType]), up to %EP_MAX_DIMS
 * dimensions, and strides over a reference-counted buffer that belongs
 * to a device ([class@Device]). Views such as [method@Tensor.transpose]
 * or [method@Tensor.reshape] of contiguous data share that buffer instead
 * of copying it.
 *
 * Every operation that user data can make fail takes a #GError; from
 * Python, JavaScript and Vala it raises an exception in the %EP_ERROR
 * domain.
 */

enum {
  PROP_0,
  PROP_DTYPE,
  PROP_NDIM,
  PROP_SIZE,
  PROP_DEVICE,
  N_PROPS
};

static GParamSpec *props[N_PROPS];

G_DEFINE_FINAL_TYPE (EpTensor, ep_tensor, G_TYPE_OBJECT)

/* EpTensor.pins: the low bit once released, then one step per pin (see
 * "Releasing storage early" below) */
#define RELEASED_BIT 1
#define ONE_PIN 2

/* Plain casts: this runs once per op result, and the type is known. */
static void
ep_tensor_finalize (GObject *object)
{
  EpTensor *self = (EpTensor *) object;

  if (self->storage != NULL)
    {
      ep_memory_count_tensor (self->storage->device, -1);
      g_clear_pointer (&self->storage, ep_storage_unref);
    }

  ((GObjectClass *) ep_tensor_parent_class)->finalize (object);
}

/* Out of its tidy scope here, where the object is still whole: a scope
 * closing on another thread may be about to release it (core/memory.c). */
static void
ep_tensor_dispose (GObject *object)
{
  ep_tidy_untrack ((EpTensor *) object);

  ((GObjectClass *) ep_tensor_parent_class)->dispose (object);
}

static void
ep_tensor_get_property (GObject    *object,
                        guint       prop_id,
                        GValue     *value,
                        GParamSpec *pspec)
{
  EpTensor *self = EP_TENSOR (object);

  switch (prop_id)
    {
    case PROP_DTYPE:
      g_value_set_enum (value, self->layout.dtype);
      break;
    case PROP_NDIM:
      g_value_set_uint (value, self->layout.ndim);
      break;
    case PROP_SIZE:
      g_value_set_int64 (value, ep_tensor_get_size (self));
      break;
    case PROP_DEVICE:
      g_value_set_object (value, ep_tensor_get_device (self));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
ep_tensor_class_init (EpTensorClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->dispose = ep_tensor_dispose;
  object_class->finalize = ep_tensor_finalize;
  object_class->get_property = ep_tensor_get_property;

  /**
   * EpTensor:dtype:
   *
   * The element type.
   */
  props[PROP_DTYPE] =
    g_param_spec_enum ("dtype", NULL, NULL, EP_TYPE_DTYPE, EP_DTYPE_FLOAT32,
                       G_PARAM_READABLE | G_PARAM_STATIC_STRINGS | G_PARAM_EXPLICIT_NOTIFY);

  /**
   * EpTensor:ndim:
   *
   * The number of dimensions; 0 for a scalar.
   */
  props[PROP_NDIM] =
    g_param_spec_uint ("ndim", NULL, NULL, 0, EP_MAX_DIMS, 0,
                       G_PARAM_READABLE | G_PARAM_STATIC_STRINGS | G_PARAM_EXPLICIT_NOTIFY);

  /**
   * EpTensor:size:
   *
   * The number of elements: the product of the shape.
   */
  props[PROP_SIZE] =
    g_param_spec_int64 ("size", NULL, NULL, 0, G_MAXINT64, 0,
                        G_PARAM_READABLE | G_PARAM_STATIC_STRINGS | G_PARAM_EXPLICIT_NOTIFY);

  /**
   * EpTensor:device:
   *
   * The device that holds the data.
   */
  props[PROP_DEVICE] =
    g_param_spec_object ("device", NULL, NULL, EP_TYPE_DEVICE,
                         G_PARAM_READABLE | G_PARAM_STATIC_STRINGS | G_PARAM_EXPLICIT_NOTIFY);

  g_object_class_install_properties (object_class, N_PROPS, props);
}

static void
ep_tensor_init (EpTensor *self)
{
  EpContext *context = ep_context_get ();

  context->tensors_made++;
  if (G_UNLIKELY (context->tidy != NULL))
    ep_tidy_track (context->tidy, self);
}

/* Layouts */

/* Saturates at G_MAXINT64: a broadcast view may describe more elements
 * than memory could hold. */
gint64
ep_layout_get_size (const EpLayout *layout)
{
  gint64 size = 1;
  gboolean saturated = FALSE;

  /* no division in the loop: this runs several times per op */
  for (guint i = 0; i < layout->ndim; i++)
    {
      if (layout->shape[i] == 0)
        return 0;
      saturated |= __builtin_mul_overflow (size, layout->shape[i], &size);
    }

  return saturated ? G_MAXINT64 : size;
}

gboolean
ep_layout_compute_nbytes (const EpLayout *layout,
                          gsize          *nbytes)
{
  guint64 total = ep_dtype_itemsize (layout->dtype);

  /* empty whatever its other extents, as (2^40, 2^40, 0) is */
  if (ep_layout_get_size (layout) == 0)
    {
      *nbytes = 0;
      return TRUE;
    }

  for (guint i = 0; i < layout->ndim; i++)
    if (total > G_MAXINT64 / (guint64) layout->shape[i])
      return FALSE;
    else
      total *= (guint64) layout->shape[i];

  *nbytes = total;
  return TRUE;
}

/* Unsigned products: for a shape too large to allocate the strides are
 * meaningless but defined, and allocation reports the size. */
void
ep_layout_set_contiguous (EpLayout *layout)
{
  guint64 stride = 1;

  for (guint i = layout->ndim; i-- > 0;)
    {
      layout->strides[i] = (gint64) stride;
      stride *= (guint64) MAX (layout->shape[i], 1);
    }
  layout->offset = 0;
}

/* (unsigned products, as above: an empty tensor's other extents may be
 * anything) */
gboolean
ep_layout_is_contiguous (const EpLayout *layout)
{
  /* unsigned, as ep_layout_set_contiguous() computes them: an empty
   * tensor's extents may multiply past 2^63 */
  guint64 stride = 1;

  for (guint i = layout->ndim; i-- > 0;)
    {
      if (layout->shape[i] != 1 && layout->strides[i] != (gint64) stride)
        return FALSE;
      stride *= (guint64) layout->shape[i];
    }

  return TRUE;
}

char *
ep_shape_to_string (const gint64 *shape,
                    guint         ndim)
{
  GString *s = g_string_new ("(");

  for (guint i = 0; i < ndim; i++)
    g_string_append_printf (s, i == 0 ? "%" G_GINT64_FORMAT : ", %" G_GINT64_FORMAT, shape[i]);
  g_string_append (s, ndim == 1 ? ",)" : ")");

  return g_string_free (s, FALSE);
}

/* Checks a user-given shape and makes a contiguous layout of it. */
gboolean
ep_layout_init (EpLayout      *layout,
                EpDType        dtype,
                const gint64  *shape,
                guint          ndim,
                const char    *op_name,
                GError       **error)
{
  gsize nbytes;

  if (ndim > EP_MAX_DIMS)
    {
      g_set_error (error, EP_ERROR, EP_ERROR_SHAPE,
                   _("%s: %u dimensions requested, at most %d are supported"),
                   op_name, ndim, EP_MAX_DIMS);
      return FALSE;
    }

  for (guint i = 0; i < ndim; i++)
    if (shape[i] < 0)
      {
        g_autofree char *s = ep_shape_to_string (shape, ndim);

        g_set_error (error, EP_ERROR, EP_ERROR_SHAPE,
                     _("%s: negative dimension %" PRId64 " in shape %s"),
                     op_name, shape[i], s);
        return FALSE;
      }

  layout->dtype = dtype;
  layout->ndim = ndim;
  if (ndim > 0)
    memcpy (layout->shape, shape, ndim * sizeof (gint64));

  /* before the strides, whose products would overflow too */
  if (!ep_layout_compute_nbytes (layout, &nbytes))
    {
      g_autofree char *s = ep_shape_to_string (shape, ndim);

      g_set_error (error, EP_ERROR, EP_ERROR_OUT_OF_MEMORY,
                   _("%s: a tensor of type %s and shape %s needs more memory than can be addressed"),
                   op_name, ep_dtype_get_name (dtype), s);
      return FALSE;
    }
  ep_layout_set_contiguous (layout);

  return TRUE;
}

/* Construction */

EpTensor *
ep_tensor_new_with_storage (const EpLayout *layout,
                            EpStorage      *storage)
{
  EpTensor *self = g_object_new (EP_TYPE_TENSOR, NULL);

  self->layout = *layout;
  self->storage = ep_storage_ref (storage);
  ep_memory_count_tensor (storage->device, 1);

  return self;
}

/* Another object for @tensor's data: the same layout, storage and
 * weakness, no history (a tape or tracer sees a new tensor). The alias
 * of a released tensor is released. */
EpTensor *
ep_tensor_new_alias (EpTensor *tensor)
{
  EpTensor *alias = g_object_new (EP_TYPE_TENSOR, NULL);

  alias->layout = tensor->layout;
  alias->weak = tensor->weak;
  if (ep_tensor_pin (tensor, NULL, NULL))
    {
      alias->storage = ep_storage_ref (tensor->storage);
      ep_memory_count_tensor (alias->storage->device, 1);
      ep_tensor_unpin (tensor);
    }
  else
    alias->pins = RELEASED_BIT;

  return alias;
}

/* Uninitialized storage on @device for @layout, which it makes
 * contiguous. */
EpStorage *
ep_layout_alloc (EpLayout  *layout,
                 EpDevice  *device,
                 GError   **error)
{
  gsize nbytes;

  ep_layout_set_contiguous (layout);
  if (!ep_layout_compute_nbytes (layout, &nbytes))
    {
      g_autofree char *s = ep_shape_to_string (layout->shape, layout->ndim);

      g_set_error (error, EP_ERROR, EP_ERROR_OUT_OF_MEMORY,
                   _("a tensor of type %s and shape %s needs more memory than can be addressed"),
                   ep_dtype_get_name (layout->dtype), s);
      return NULL;
    }

  return ep_device_alloc (device, nbytes, error);
}

/* A contiguous tensor with uninitialized data. */
EpTensor *
ep_tensor_new_empty (EpDevice        *device,
                     const EpLayout  *layout,
                     GError         **error)
{
  EpLayout contiguous = *layout;
  g_autoptr(EpStorage) storage = ep_layout_alloc (&contiguous, device, error);

  if (storage == NULL)
    return NULL;

  return ep_tensor_new_with_storage (&contiguous, storage);
}

static EpDevice *
creation_device (void)
{
  EpDevice *device = ep_device_get_current ();

  return device != NULL ? device : ep_device_get_default ();
}

/* A tensor of @layout (contiguous) on @device, from a copy of @data in
 * host memory: the constructors below, and constants that gradient
 * rules make on their input's device whatever the scope. */
EpTensor *
ep_tensor_new_from_host (EpDevice        *device,
                         const EpLayout  *layout,
                         gconstpointer    data,
                         const char      *op_name,
                         GError         **error)
{
  g_autoptr(EpTensor) tensor = ep_tensor_new_empty (device, layout, error);

  if (tensor == NULL)
    {
      g_prefix_error (error, "%s: ", op_name);
      return NULL;
    }
  if (!ep_device_write (device, tensor->storage, 0, data, tensor->storage->nbytes, error))
    return NULL;

  return g_steal_pointer (&tensor);
}

/* The layout of raw data in C order: @nbytes must be what @shape and
 * @dtype take. */
static gboolean
raw_layout_init (EpLayout      *layout,
                 EpDType        dtype,
                 const gint64  *shape,
                 guint          ndim,
                 gsize          nbytes,
                 const char    *op_name,
                 GError       **error)
{
  gsize needed = 0;

  if (!ep_layout_init (layout, dtype, shape, ndim, op_name, error))
    return FALSE;

  ep_layout_compute_nbytes (layout, &needed);
  if (nbytes != needed)
    {
      g_autofree char *s = ep_shape_to_string (shape, ndim);

      g_set_error (error, EP_ERROR, EP_ERROR_SHAPE,
                   g_dngettext (GETTEXT_PACKAGE,
                                "%s: %zu byte given, a tensor of type %s and shape %s needs %zu",
                                "%s: %zu bytes given, a tensor of type %s and shape %s needs %zu",
                                nbytes),
                   op_name, nbytes, ep_dtype_get_name (dtype), s, needed);
      return FALSE;
    }

  return TRUE;
}

/**
 * ep_tensor_new_from_bytes:
 * @data: the elements in C order, little-endian
 * @dtype: the element type of @data
 * @shape: (array length=ndim): the shape
 * @ndim: the number of dimensions
 * @error: return location for an error
 *
 * Creates a tensor from raw data: the fastest way to bring bulk data in
 * from any language (NumPy: `GLib.Bytes(a.tobytes())`). On the CPU the
 * tensor keeps a reference to @data instead of copying it when @data is
 * suitably aligned.
 *
 * Returns: (transfer full): the new tensor, or %NULL with %EP_ERROR_SHAPE
 *   set if the length of @data does not match @shape and @dtype
 */
EpTensor *
ep_tensor_new_from_bytes (GBytes        *data,
                          EpDType        dtype,
                          const gint64  *shape,
                          guint          ndim,
                          GError       **error)
{
  EpLayout layout;
  gsize length;
  gconstpointer bytes;
  EpDevice *device;

  g_return_val_if_fail (data != NULL, NULL);
  g_return_val_if_fail (ep_dtype_is_valid (dtype), NULL);
  g_return_val_if_fail (shape != NULL || ndim == 0, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  bytes = g_bytes_get_data (data, &length);
  if (!raw_layout_init (&layout, dtype, shape, ndim, length, "new_from_bytes", error))
    return NULL;

  device = creation_device ();
  if (device->host_visible && length > 0
      && GPOINTER_TO_SIZE (bytes) % ep_dtype_get_itemsize (dtype) == 0)
    {
      g_autoptr(EpStorage) storage = ep_storage_new_for_bytes (device, data);

      return ep_tensor_new_with_storage (&layout, storage);
    }

  return ep_tensor_new_from_host (device, &layout, bytes, "new_from_bytes", error);
}

/**
 * ep_tensor_new_from_data: (skip)
 * @data: (not nullable): the address of the elements in C order,
 *   little-endian
 * @nbytes: the number of bytes at @data
 * @dtype: the element type of @data
 * @shape: (array length=ndim): the shape
 * @ndim: the number of dimensions
 * @error: return location for an error
 *
 * Creates a tensor from a copy of raw data at an address: one copy, for
 * C. It is not introspected: a binding could pass any number as the
 * address. Bindings use [ctor@Tensor.new_from_bytes], which does the same
 * from a #GBytes.
 *
 * Returns: (transfer full): the new tensor, or %NULL with %EP_ERROR_SHAPE
 *   set if @nbytes does not match @shape and @dtype
 */
EpTensor *
ep_tensor_new_from_data (gconstpointer   data,
                         gsize           nbytes,
                         EpDType         dtype,
                         const gint64   *shape,
                         guint           ndim,
                         GError        **error)
{
  const char *op_name = "new_from_data";
  EpLayout layout;

  g_return_val_if_fail (data != NULL || nbytes == 0, NULL);
  g_return_val_if_fail (shape != NULL || ndim == 0, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (!raw_layout_init (&layout, dtype, shape, ndim, nbytes, op_name, error))
    return NULL;

  return ep_tensor_new_from_host (creation_device (), &layout, data, op_name, error);
}

/**
 * ep_tensor_new_from_doubles:
 * @data: (array length=n_data): the elements in C order
 * @n_data: the number of elements in @data
 * @shape: (array length=ndim): the shape
 * @ndim: the number of dimensions
 * @dtype: the element type of the new tensor
 * @error: return location for an error
 *
 * Creates a tensor from an array of doubles, converted to @dtype: the
 * convenient way to bring small data in from any language.
 *
 * Returns: (transfer full): the new tensor, or %NULL with %EP_ERROR_SHAPE
 *   set if @n_data is not the number of elements of @shape
 */
EpTensor *
ep_tensor_new_from_doubles (const gdouble  *data,
                            gsize           n_data,
                            const gint64   *shape,
                            guint           ndim,
                            EpDType         dtype,
                            GError        **error)
{
  g_autofree guint8 *converted = NULL;
  EpLayout layout;
  gsize itemsize, nbytes = 0;

  g_return_val_if_fail (data != NULL || n_data == 0, NULL);
  g_return_val_if_fail (ep_dtype_is_valid (dtype), NULL);
  g_return_val_if_fail (shape != NULL || ndim == 0, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (!ep_layout_init (&layout, dtype, shape, ndim, "new_from_doubles", error))
    return NULL;

  if ((guint64) ep_layout_get_size (&layout) != n_data)
    {
      g_autofree char *s = ep_shape_to_string (shape, ndim);

      g_set_error (error, EP_ERROR, EP_ERROR_SHAPE,
                   _("new_from_doubles: %zu values given, shape %s has %" PRId64 " elements"),
                   n_data, s, ep_layout_get_size (&layout));
      return NULL;
    }

  itemsize = ep_dtype_get_itemsize (dtype);
  ep_layout_compute_nbytes (&layout, &nbytes);
  converted = g_malloc (MAX (nbytes, 1));
  for (gsize i = 0; i < n_data; i++)
    ep_scalar_store (converted + i * itemsize, dtype, data[i]);

  return ep_tensor_new_from_host (creation_device (), &layout, converted, "new_from_doubles", error);
}

/**
 * ep_tensor_new_scalar:
 * @value: the value
 * @dtype: the element type
 * @error: return location for an error
 *
 * Creates a 0-dimensional tensor holding @value converted to @dtype.
 *
 * Returns: (transfer full): the new tensor, or %NULL if the current
 *   device cannot store it
 */
EpTensor *
ep_tensor_new_scalar (gdouble   value,
                      EpDType   dtype,
                      GError  **error)
{
  return ep_tensor_new_from_doubles (&value, 1, NULL, 0, dtype, error);
}

/* A weak literal of @layout (0-d) holding the element at @element: a
 * few bytes that cannot fail to be had (there is no error to report
 * here), allocated as GLib allocates its objects, not device storage */
static EpTensor *
weak_literal (const EpLayout *layout,
              gconstpointer   element)
{
  g_autoptr(GBytes) bytes = g_bytes_new (element, ep_dtype_itemsize (layout->dtype));
  g_autoptr(EpStorage) storage = ep_storage_new_for_bytes (ep_device_get_cpu (), bytes);
  EpTensor *self = ep_tensor_new_with_storage (layout, storage);

  self->weak = TRUE;
  return self;
}

/**
 * ep_tensor_new_weak_scalar:
 * @value: the value
 * @kind: %EP_DTYPE_FLOAT64 (or %EP_DTYPE_FLOAT32) for a float literal,
 *   %EP_DTYPE_INT64 (or %EP_DTYPE_INT32) for an integer literal,
 *   %EP_DTYPE_BOOL for a boolean literal
 *
 * Creates a *weak* scalar: a literal that, like a Python number in NumPy,
 * takes the element type of the tensor it meets instead of promoting it.
 * A float32 tensor times a weak 2.5 stays float32; an int32 tensor plus a
 * weak 3 stays int32. A weak float meeting an integer tensor gives
 * float64, as in NumPy.
 *
 * The `_scalar` methods, such as [method@Tensor.mul_scalar], and the
 * Python operators use weak scalars.
 *
 * Returns: (transfer full): the literal
 */
EpTensor *
ep_tensor_new_weak_scalar (gdouble value,
                           EpDType kind)
{
  EpLayout layout = { .ndim = 0 };
  guint8 element[8];

  g_return_val_if_fail (ep_dtype_is_valid (kind), NULL);

  layout.dtype = ep_dtype_is_floating (kind) ? EP_DTYPE_FLOAT64
                 : ep_dtype_is_integer (kind) ? EP_DTYPE_INT64
                 : EP_DTYPE_BOOL;
  ep_scalar_store (element, layout.dtype, value);

  return weak_literal (&layout, element);
}

/**
 * ep_tensor_new_weak_int:
 * @value: the value
 *
 * Creates a weak integer literal holding @value exactly, as
 * [ctor@Tensor.new_weak_scalar] does for %EP_DTYPE_INT64, whose #gdouble
 * holds integers up to 2^53 only. Meeting an int32 tensor, a value out of
 * the int32 range is an %EP_ERROR_INVALID_ARGUMENT error of the op.
 *
 * Returns: (transfer full): the literal
 */
EpTensor *
ep_tensor_new_weak_int (gint64 value)
{
  EpLayout layout = { .dtype = EP_DTYPE_INT64, .ndim = 0 };

  return weak_literal (&layout, &value);
}

/* Accessors */

/**
 * ep_tensor_get_dtype:
 * @self: a tensor
 *
 * Returns the element type of @self.
 *
 * Returns: the element type
 */
EpDType
ep_tensor_get_dtype (EpTensor *self)
{
  g_return_val_if_fail (EP_IS_TENSOR (self), EP_DTYPE_FLOAT32);

  return self->layout.dtype;
}

/**
 * ep_tensor_get_ndim:
 * @self: a tensor
 *
 * Returns the number of dimensions of @self.
 *
 * Returns: the number of dimensions; 0 for a scalar
 */
guint
ep_tensor_get_ndim (EpTensor *self)
{
  g_return_val_if_fail (EP_IS_TENSOR (self), 0);

  return self->layout.ndim;
}

/**
 * ep_tensor_get_shape:
 * @self: a tensor
 * @ndim: (out) (optional): return location for the number of dimensions
 *
 * Returns the extent of each dimension.
 *
 * Returns: (array length=ndim) (transfer none): the shape
 */
const gint64 *
ep_tensor_get_shape (EpTensor *self,
                     guint    *ndim)
{
  g_return_val_if_fail (EP_IS_TENSOR (self), NULL);

  if (ndim != NULL)
    *ndim = self->layout.ndim;

  return self->layout.shape;
}

/**
 * ep_tensor_get_strides:
 * @self: a tensor
 * @ndim: (out) (optional): return location for the number of dimensions
 *
 * Returns the step, in elements, between neighbours along each dimension
 * of the underlying buffer. Views have other strides than the contiguous
 * C order; a broadcast dimension has stride 0.
 *
 * Returns: (array length=ndim) (transfer none): the strides
 */
const gint64 *
ep_tensor_get_strides (EpTensor *self,
                       guint    *ndim)
{
  g_return_val_if_fail (EP_IS_TENSOR (self), NULL);

  if (ndim != NULL)
    *ndim = self->layout.ndim;

  return self->layout.strides;
}

/**
 * ep_tensor_get_size:
 * @self: a tensor
 *
 * Returns the number of elements of @self: the product of its shape.
 *
 * Returns: the number of elements
 */
gint64
ep_tensor_get_size (EpTensor *self)
{
  g_return_val_if_fail (EP_IS_TENSOR (self), 0);

  return ep_layout_get_size (&self->layout);
}

/**
 * ep_tensor_get_device:
 * @self: a tensor
 *
 * Returns the device that holds the data of @self; ops on @self run
 * there unless a device scope says otherwise.
 *
 * Returns: (transfer none) (nullable): the device that holds the data,
 *   or %NULL once @self was released ([method@Tensor.release])
 */
EpDevice *
ep_tensor_get_device (EpTensor *self)
{
  EpDevice *device;

  g_return_val_if_fail (EP_IS_TENSOR (self), NULL);

  if (!ep_tensor_pin (self, "get_device", NULL))
    return NULL;
  device = self->storage->device;   /* devices live as long as the process */
  ep_tensor_unpin (self);

  return device;
}

/**
 * ep_tensor_is_weak:
 * @self: a tensor
 *
 * Tells whether @self is a literal that takes the type of the tensor it
 * meets.
 *
 * Returns: whether @self is a weak scalar, see
 *   [ctor@Tensor.new_weak_scalar]
 */
gboolean
ep_tensor_is_weak (EpTensor *self)
{
  g_return_val_if_fail (EP_IS_TENSOR (self), FALSE);

  return self->weak;
}

/**
 * ep_tensor_is_contiguous:
 * @self: a tensor
 *
 * Tells whether @self is laid out in C order without gaps, as
 * [method@Tensor.contiguous] makes it and kernels write their outputs.
 *
 * Returns: whether the elements lie in C order without gaps
 */
gboolean
ep_tensor_is_contiguous (EpTensor *self)
{
  g_return_val_if_fail (EP_IS_TENSOR (self), FALSE);

  return ep_layout_is_contiguous (&self->layout);
}

/**
 * ep_tensor_shares_storage:
 * @self: a tensor
 * @other: another tensor
 *
 * Tells whether two tensors use the same buffer, as a view and its
 * source do.
 *
 * Returns: whether @self and @other are views of the same buffer (never
 *   for a released tensor)
 */
gboolean
ep_tensor_shares_storage (EpTensor *self,
                          EpTensor *other)
{
  gboolean shared;

  g_return_val_if_fail (EP_IS_TENSOR (self), FALSE);
  g_return_val_if_fail (EP_IS_TENSOR (other), FALSE);

  if (!ep_tensors_pin ((EpTensor *[]) { self, other }, 2, "shares_storage", NULL))
    return FALSE;
  shared = self->storage == other->storage;
  ep_tensors_unpin ((EpTensor *[]) { self, other }, 2);

  return shared;
}

/* Releasing storage early
 *
 * A release may come from any thread, while calls on other threads use
 * the tensor. Each such call pins it (ep_tensor_pin) for as long as it
 * reads the storage; @pins counts them in steps of two, and its low bit
 * says that the tensor was released. The release sets the bit at once
 * (no new pin is taken from then on) and the storage goes when the last
 * pin does, so a call in flight never loses its data. */

static void
drop_storage (EpTensor *self)
{
  EpStorage *storage = g_atomic_pointer_exchange (&self->storage, NULL);

  if (storage != NULL)
    {
      ep_memory_count_tensor (storage->device, -1);
      ep_storage_unref (storage);
    }
}

/**
 * ep_tensor_release:
 * @self: a tensor
 *
 * Lets go of this tensor object's claim on its data now instead of when
 * it is finalized.
 *
 * Bindings with a garbage collector (gjs, Python with reference cycles)
 * finalize a tensor only when the collector runs, and the collector does
 * not see how much memory a tensor holds: a loop that makes large
 * tensors can pile them up. Releasing a tensor that is no longer needed
 * returns its buffer at once, unless another tensor still uses it (a
 * view of the same data, the value of a variable, or a tape that
 * recorded it); the buffer goes back when the last of them lets go.
 *
 * Release affects @self only: no other tensor object ever loses its data
 * through it. Every method returns a new tensor object, also where it
 * has nothing to compute ([method@Tensor.astype] to the same type,
 * [method@Tensor.contiguous] of contiguous data, [method@Tensor.to_device]
 * to the device it is on, [method@Variable.read]): the result shares the
 * data, and releasing it leaves @self and the variable intact, as
 * disposing of a tensor does in TensorFlow.js.
 *
 * Afterwards the dtype and shape of @self can still be read, but every
 * operation on it, reading its data included, fails with
 * %EP_ERROR_INVALID_ARGUMENT. Releasing twice does nothing. A release
 * may come from any thread: an operation that another thread is running
 * on @self at that moment still finishes with the data.
 */
void
ep_tensor_release (EpTensor *self)
{
  gint before;

  g_return_if_fail (EP_IS_TENSOR (self));

  before = g_atomic_int_or (&self->pins, RELEASED_BIT);
  if (before == 0)
    drop_storage (self);
}

/**
 * ep_tensor_is_released:
 * @self: a tensor
 *
 * Tells whether the data of @self was released early.
 *
 * Returns: whether [method@Tensor.release] was called on @self, or @self
 *   has no data at all (made with g_object_new() by a binding)
 */
gboolean
ep_tensor_is_released (EpTensor *self)
{
  g_return_val_if_fail (EP_IS_TENSOR (self), FALSE);

  return (g_atomic_int_get (&self->pins) & RELEASED_BIT) != 0
         || g_atomic_pointer_get (&self->storage) == NULL;
}

static gboolean
released_error (const char  *op_name,
                GError     **error)
{
  g_set_error (error, EP_ERROR, EP_ERROR_INVALID_ARGUMENT,
               _("%s: the tensor was released and has no data"), op_name);
  return FALSE;
}

/* The error every use of a released tensor gives. The storage stays only
 * while the caller pins the tensor: code that reads it after this check
 * runs inside a dispatch (which pins its inputs) or pins it itself. */
gboolean
ep_tensor_check_alive (EpTensor    *self,
                       const char  *op_name,
                       GError     **error)
{
  /* (a tensor made with g_object_new() has no storage and was never
   * released) */
  if (G_LIKELY ((g_atomic_int_get (&self->pins) & RELEASED_BIT) == 0
                && g_atomic_pointer_get (&self->storage) != NULL))
    return TRUE;

  return released_error (op_name, error);
}

/* Keeps the storage of @self until ep_tensor_unpin(), whatever another
 * thread releases; fails as ep_tensor_check_alive() does for a released
 * tensor. */
gboolean
ep_tensor_pin (EpTensor    *self,
               const char  *op_name,
               GError     **error)
{
  gint pins = g_atomic_int_get (&self->pins);

  do
    {
      if (pins & RELEASED_BIT)
        return released_error (op_name, error);
    }
  while (!g_atomic_int_compare_and_exchange_full (&self->pins, pins, pins + ONE_PIN, &pins));

  /* one made with g_object_new() from a binding never had data: an
   * error, as a released one (pinned, the storage cannot go meanwhile) */
  if (G_UNLIKELY (self->storage == NULL))
    {
      g_atomic_int_add (&self->pins, -ONE_PIN);
      return released_error (op_name, error);
    }

  return TRUE;
}

void
ep_tensor_unpin (EpTensor *self)
{
  if (g_atomic_int_add (&self->pins, -ONE_PIN) == (ONE_PIN | RELEASED_BIT))
    drop_storage (self);
}

/* Pins each of @tensors, or none of them (with @error set). */
gboolean
ep_tensors_pin (EpTensor *const  *tensors,
                guint             n_tensors,
                const char       *op_name,
                GError          **error)
{
  for (guint i = 0; i < n_tensors; i++)
    if (!ep_tensor_pin (tensors[i], op_name, error))
      {
        ep_tensors_unpin (tensors, i);
        return FALSE;
      }

  return TRUE;
}

void
ep_tensors_unpin (EpTensor *const  *tensors,
                  guint             n_tensors)
{
  for (guint i = 0; i < n_tensors; i++)
    ep_tensor_unpin (tensors[i]);
}

/* Reading data back */

/**
 * ep_tensor_to_bytes:
 * @self: a tensor
 * @error: return location for an error
 *
 * Returns the elements in C order, little-endian, from any device. For a
 * contiguous tensor on the CPU no data is copied.
 *
 * Returns: (transfer full): the data, or %NULL if reading the device
 *   failed
 */
GBytes *
ep_tensor_to_bytes (EpTensor  *self,
                    GError   **error)
{
  g_autoptr(EpTensor) contiguous = NULL;
  EpDevice *device;
  gsize itemsize, nbytes = 0;
  gpointer data;

  g_return_val_if_fail (EP_IS_TENSOR (self), NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (!ep_tensor_check_alive (self, "to_bytes", error))
    return NULL;
  contiguous = ep_tensor_compact (self, error);
  if (contiguous == NULL)
    {
      ep_error_rename_call (error, "contiguous", "to_bytes");
      return NULL;
    }

  device = contiguous->storage->device;
  itemsize = ep_dtype_get_itemsize (contiguous->layout.dtype);
  ep_layout_compute_nbytes (&contiguous->layout, &nbytes);

  if (device->host_visible)
    return g_bytes_new_with_free_func (ep_tensor_host_data (contiguous), nbytes,
                                       (GDestroyNotify) ep_storage_unref,
                                       ep_storage_ref (contiguous->storage));

  data = ep_try_malloc (MAX (nbytes, 1));
  if (data == NULL)
    {
      g_set_error (error, EP_ERROR, EP_ERROR_OUT_OF_MEMORY,
                   _("to_bytes: cannot allocate %zu bytes"), nbytes);
      return NULL;
    }
  if (!ep_device_read (device, contiguous->storage, contiguous->layout.offset * itemsize,
                       data, nbytes, error))
    {
      g_free (data);
      return NULL;
    }

  return g_bytes_new_take (data, nbytes);
}

/**
 * ep_tensor_read_data: (skip)
 * @self: a tensor
 * @data: (not nullable): the address to copy the elements to
 * @nbytes: the number of bytes at @data: the size of @self times the size
 *   of its element type
 * @error: return location for an error
 *
 * Copies the elements of @self in C order, little-endian, to @data: one
 * copy, from any device. The counterpart of ep_tensor_new_from_data(),
 * for C; it is not introspected (a binding could pass any number as the
 * address): bindings read with [method@Tensor.to_bytes].
 *
 * Returns: %TRUE on success; %FALSE with %EP_ERROR_SHAPE set if @nbytes
 *   is not the size of the data, or another error if reading the device
 *   failed
 */
gboolean
ep_tensor_read_data (EpTensor  *self,
                     gpointer   data,
                     gsize      nbytes,
                     GError   **error)
{
  g_autoptr(EpTensor) contiguous = NULL;
  gsize needed = 0;

  g_return_val_if_fail (EP_IS_TENSOR (self), FALSE);
  g_return_val_if_fail (data != NULL || nbytes == 0, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  if (!ep_tensor_check_alive (self, "read_data", error))
    return FALSE;

  ep_layout_compute_nbytes (&self->layout, &needed);
  if (nbytes != needed)
    {
      g_autofree char *s = ep_shape_to_string (self->layout.shape, self->layout.ndim);

      g_set_error (error, EP_ERROR, EP_ERROR_SHAPE,
                   g_dngettext (GETTEXT_PACKAGE,
                                "read_data: room for %zu byte given, a tensor of type %s and shape %s has %zu",
                                "read_data: room for %zu bytes given, a tensor of type %s and shape %s has %zu",
                                nbytes),
                   nbytes, ep_dtype_get_name (self->layout.dtype), s, needed);
      return FALSE;
    }
  if (nbytes == 0)
    return TRUE;

  contiguous = ep_tensor_compact (self, error);
  if (contiguous == NULL)
    {
      ep_error_rename_call (error, "contiguous", "read_data");
      return FALSE;
    }

  return ep_device_read (contiguous->storage->device, contiguous->storage,
                         contiguous->layout.offset * ep_dtype_get_itemsize (contiguous->layout.dtype),
                         data, nbytes, error);
}

static gboolean
read_only_element (EpTensor    *self,
                   const char  *op_name,
                   guint8      *element,
                   GError     **error)
{
  gsize itemsize = ep_dtype_get_itemsize (self->layout.dtype);
  gint64 size = ep_layout_get_size (&self->layout);
  gboolean ok;

  if (!ep_tensor_check_alive (self, op_name, error))
    return FALSE;
  if (size != 1)
    {
      g_autofree char *s = ep_shape_to_string (self->layout.shape, self->layout.ndim);

      g_set_error (error, EP_ERROR, EP_ERROR_SHAPE,
                   _("%s: a tensor of shape %s has %" PRId64 " elements, not 1"),
                   op_name, s, size);
      return FALSE;
    }

  if (!ep_tensor_pin (self, op_name, error))
    return FALSE;
  ok = ep_device_read (self->storage->device, self->storage,
                       self->layout.offset * itemsize, element, itemsize, error);
  ep_tensor_unpin (self);

  return ok;
}

/**
 * ep_tensor_item_double:
 * @self: a tensor of one element
 * @error: return location for an error
 *
 * Returns the only element of @self as a double. An int64 beyond 2^53 in
 * magnitude is rounded to the nearest double: read integers with
 * [method@Tensor.item_int64].
 *
 * Returns: the value; 0 with %EP_ERROR_SHAPE set if @self does not have
 *   exactly one element
 */
gdouble
ep_tensor_item_double (EpTensor  *self,
                       GError   **error)
{
  _Alignas (gint64) guint8 element[8];   /* read as any element type */

  g_return_val_if_fail (EP_IS_TENSOR (self), 0.0);
  g_return_val_if_fail (error == NULL || *error == NULL, 0.0);

  if (!read_only_element (self, "item_double", element, error))
    return 0.0;

  return ep_scalar_load (element, self->layout.dtype);
}

/**
 * ep_tensor_item_int64:
 * @self: a tensor of one element
 * @error: return location for an error
 *
 * Returns the only element of @self as a 64-bit integer: exactly for
 * integer and bool tensors (an int64 never goes through a double), and
 * truncated toward zero for floating-point ones, as C and Python's `int()`
 * do. A NaN, an infinity or a float outside the int64 range is an error
 * here, where [method@Tensor.astype] gives the most negative int64 as
 * NumPy does.
 *
 * Returns: the value; 0 with %EP_ERROR_SHAPE set if @self does not have
 *   exactly one element, or %EP_ERROR_INVALID_ARGUMENT if it is a NaN, an
 *   infinity or out of the int64 range
 */
gint64
ep_tensor_item_int64 (EpTensor  *self,
                      GError   **error)
{
  _Alignas (gint64) guint8 element[8];   /* read as any element type */
  gint64 i64;
  gint32 i32;
  gdouble value;

  g_return_val_if_fail (EP_IS_TENSOR (self), 0);
  g_return_val_if_fail (error == NULL || *error == NULL, 0);

  if (!read_only_element (self, "item_int64", element, error))
    return 0;

  switch (self->layout.dtype)
    {
    case EP_DTYPE_INT64:
      memcpy (&i64, element, sizeof i64);
      return i64;
    case EP_DTYPE_INT32:
      memcpy (&i32, element, sizeof i32);
      return i32;
    case EP_DTYPE_BOOL:
      return element[0] != 0;
    case EP_DTYPE_UINT8:
      return element[0];
    case EP_DTYPE_INT8:
      return (gint8) element[0];
    case EP_DTYPE_INT16:
      return ep_number_load (element, EP_DTYPE_INT16).i;
    case EP_DTYPE_FLOAT32:
    case EP_DTYPE_FLOAT64:
    case EP_DTYPE_FLOAT16:
    case EP_DTYPE_BFLOAT16:
      break;
    }

  /* -2^63 is an int64; 2^63 is not */
  value = ep_scalar_load (element, self->layout.dtype);
  if (!(value >= -9223372036854775808.0 && value < 9223372036854775808.0))
    {
      g_set_error (error, EP_ERROR, EP_ERROR_INVALID_ARGUMENT,
                   _("item_int64: %g has no int64 value (NaN, infinite or out of range)"),
                   value);
      return 0;
    }

  return (gint64) value;
}

/**
 * ep_tensor_item_boolean:
 * @self: a tensor of one element
 * @error: return location for an error
 *
 * Returns the truth of the only element of @self: whether it is not zero
 * (NaN is true, as in C and Python).
 *
 * Returns: the truth value; %FALSE with %EP_ERROR_SHAPE set if @self does
 *   not have exactly one element
 */
gboolean
ep_tensor_item_boolean (EpTensor  *self,
                        GError   **error)
{
  static const guint8 zero[8] = { 0 };
  _Alignas (gint64) guint8 element[8];   /* read as any element type */
  gsize itemsize;

  g_return_val_if_fail (EP_IS_TENSOR (self), FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  if (!read_only_element (self, "item_boolean", element, error))
    return FALSE;

  /* integers and bools by their bytes; floats by value (-0.0 is false) */
  itemsize = ep_dtype_get_itemsize (self->layout.dtype);
  if (!ep_dtype_is_floating (self->layout.dtype))
    return memcmp (element, zero, itemsize) != 0;

  return ep_scalar_load (element, self->layout.dtype) != 0.0;
}
