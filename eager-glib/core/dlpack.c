/* core/dlpack.c: DLPack export and import
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * DLPack is the C ABI that array libraries (PyTorch, NumPy, JAX,
 * CuPy...) use to hand each other memory without copying it: a
 * DLManagedTensor describes the data (address, device, dtype, shape,
 * strides) and carries a deleter that the consumer calls when it no
 * longer reads the data.
 *
 * Export holds a reference on the tensor's *storage*, not on the
 * tensor: ep_tensor_release() of the tensor (or of every tensor on that
 * storage) cannot free memory that a consumer still reads. Nothing
 * writes a storage that is referenced more than once (a variable's
 * in-place update and a replay's reuse of buffers both require a storage
 * held by one reference, ep_storage_is_exclusive() and
 * ep_variable_begin_in_place_on()), so what a consumer reads never
 * changes under it.
 *
 * Import wraps the producer's memory as borrowed storage (a GBytes whose
 * free function is the producer's deleter), which no in-place update or
 * buffer reuse ever writes, and the deleter runs when the last tensor or
 * view on it is gone.
 */

#include "config.h"

#include <glib/gi18n-lib.h>
#include <inttypes.h>
#include <string.h>

#include "ep-device-private.h"
#include "ep-dispatch-private.h"
#include "ep-dlpack-private.h"
#include "ep-dlpack.h"
#include "ep-error.h"
#include "ep-error-private.h"
#include "ep-fault-private.h"
#include "ep-tensor-private.h"

/* Export */

typedef struct
{
  DLManagedTensor  managed;
  EpStorage       *storage;
  int64_t          shape[EP_MAX_DIMS];
  int64_t          strides[EP_MAX_DIMS];
} Exported;

static void
exported_free (DLManagedTensor *managed)
{
  Exported *self = (Exported *) managed;

  ep_storage_unref (self->storage);
  g_free (self);
}

static DLDataType
dl_dtype (EpDType dtype)
{
  switch (dtype)
    {
    case EP_DTYPE_FLOAT32:
      return (DLDataType) { kDLFloat, 32, 1 };
    case EP_DTYPE_FLOAT64:
      return (DLDataType) { kDLFloat, 64, 1 };
    case EP_DTYPE_INT32:
      return (DLDataType) { kDLInt, 32, 1 };
    case EP_DTYPE_INT64:
      return (DLDataType) { kDLInt, 64, 1 };
    case EP_DTYPE_BOOL:
      return (DLDataType) { kDLBool, 8, 1 };
    case EP_DTYPE_UINT8:
      return (DLDataType) { kDLUInt, 8, 1 };
    case EP_DTYPE_INT8:
      return (DLDataType) { kDLInt, 8, 1 };
    case EP_DTYPE_INT16:
      return (DLDataType) { kDLInt, 16, 1 };
    case EP_DTYPE_FLOAT16:
      return (DLDataType) { kDLFloat, 16, 1 };
    case EP_DTYPE_BFLOAT16:
      return (DLDataType) { kDLBfloat, 16, 1 };
    }
  g_assert_not_reached ();
}

static gboolean
has_negative_stride (const EpLayout *layout)
{
  for (guint i = 0; i < layout->ndim; i++)
    if (layout->strides[i] < 0 && layout->shape[i] > 1)
      return TRUE;
  return FALSE;
}

/**
 * ep_tensor_to_dlpack: (skip)
 * @self: a tensor on the CPU
 * @error: return location for an error
 *
 * Exports @self as a DLPack `DLManagedTensor`, for other array libraries
 * to read its data without a copy (PyTorch's `torch.from_dlpack()`,
 * NumPy's `numpy.from_dlpack()`). It is not introspected (the result is
 * an address); the Python layer wraps it in the `__dlpack__` protocol.
 *
 * The result describes the data where it is, views included (strides
 * and offset as @self has them; a view with negative strides, which
 * DLPack consumers such as PyTorch do not take, is copied to C order
 * first). It holds a reference on the buffer of @self, not on @self:
 * releasing or finalizing @self and every other tensor on the buffer
 * leaves the data valid until the consumer calls the result's
 * `deleter`, which it must call exactly once. The data must not be
 * written: tensors are immutable, and other tensors may share it.
 *
 * Returns: (transfer full): a `DLManagedTensor *`, or %NULL with
 *   %EP_ERROR_DEVICE set if @self is not on the CPU (copy it there with
 *   [method@Tensor.to_device] first), or %EP_ERROR_INVALID_ARGUMENT if
 *   it was released
 */
gpointer
ep_tensor_to_dlpack (EpTensor  *self,
                     GError   **error)
{
  g_autoptr(EpTensor) source = NULL;
  EpDevice *device;
  Exported *exported;
  DLTensor *dl;

  g_return_val_if_fail (EP_IS_TENSOR (self), NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (!ep_tensor_pin (self, "to_dlpack", error))
    return NULL;
  device = self->storage->device;
  if (device != ep_device_get_cpu () || self->storage->data == NULL)
    {
      g_set_error (error, EP_ERROR, EP_ERROR_DEVICE,
                   _("to_dlpack: the tensor is on device %s; copy it to the CPU first (to_device, .to(\"cpu\") in Python)"),
                   device->name);
      ep_tensor_unpin (self);
      return NULL;
    }
  ep_tensor_unpin (self);

  /* negative strides: copied to C order */
  source = has_negative_stride (&self->layout) ? ep_tensor_compact (self, error)
                                               : ep_tensor_new_alias (self);
  if (source == NULL)
    {
      ep_error_rename_call (error, "contiguous", "to_dlpack");
      return NULL;
    }
  /* (an alias of a tensor released meanwhile has no storage) */
  if (!ep_tensor_check_alive (source, "to_dlpack", error))
    return NULL;

  exported = g_new0 (Exported, 1);
  exported->storage = ep_storage_ref (source->storage);
  for (guint i = 0; i < source->layout.ndim; i++)
    {
      exported->shape[i] = source->layout.shape[i];
      exported->strides[i] = source->layout.strides[i];
    }

  dl = &exported->managed.dl_tensor;
  /* the address of the first element and no byte offset, as PyTorch
   * exports: PyTorch 1.13 ignores byte_offset when it imports */
  dl->data = ep_tensor_host_data (source);
  dl->device = (DLDevice) { kDLCPU, 0 };
  dl->ndim = (int32_t) source->layout.ndim;
  dl->dtype = dl_dtype (source->layout.dtype);
  dl->shape = exported->shape;
  dl->strides = exported->strides;
  dl->byte_offset = 0;
  exported->managed.manager_ctx = exported;
  exported->managed.deleter = exported_free;

  return &exported->managed;
}

/* Import */

static gboolean
ep_dtype_from_dl (DLDataType  dl,
                  EpDType    *dtype,
                  GError    **error)
{
  static const char *const codes[] = {
    [kDLInt] = "int", [kDLUInt] = "uint", [kDLFloat] = "float",
    [3] = "opaque handle", [kDLBfloat] = "bfloat", [kDLComplex] = "complex",
    [kDLBool] = "bool",
  };

  if (dl.lanes != 1)
    {
      g_set_error (error, EP_ERROR, EP_ERROR_DTYPE,
                   _("new_from_dlpack: vector elements of %u lanes are not supported"),
                   (guint) dl.lanes);
      return FALSE;
    }

  if (dl.code == kDLFloat && dl.bits == 32)
    *dtype = EP_DTYPE_FLOAT32;
  else if (dl.code == kDLFloat && dl.bits == 64)
    *dtype = EP_DTYPE_FLOAT64;
  else if (dl.code == kDLInt && dl.bits == 32)
    *dtype = EP_DTYPE_INT32;
  else if (dl.code == kDLInt && dl.bits == 64)
    *dtype = EP_DTYPE_INT64;
  else if (dl.code == kDLBool && dl.bits == 8)
    *dtype = EP_DTYPE_BOOL;
  else if (dl.code == kDLUInt && dl.bits == 8)
    *dtype = EP_DTYPE_UINT8;
  else if (dl.code == kDLInt && dl.bits == 8)
    *dtype = EP_DTYPE_INT8;
  else if (dl.code == kDLInt && dl.bits == 16)
    *dtype = EP_DTYPE_INT16;
  else if (dl.code == kDLFloat && dl.bits == 16)
    *dtype = EP_DTYPE_FLOAT16;
  else if (dl.code == kDLBfloat && dl.bits == 16)
    *dtype = EP_DTYPE_BFLOAT16;
  else if (dl.code < G_N_ELEMENTS (codes) && codes[dl.code] != NULL)
    {
      g_set_error (error, EP_ERROR, EP_ERROR_DTYPE,
                   _("new_from_dlpack: elements of type %s%u are not supported (float32, float64, float16, bfloat16, int32, int64, int16, int8, uint8 and bool are)"),
                   codes[dl.code], (guint) dl.bits);
      return FALSE;
    }
  else
    {
      g_set_error (error, EP_ERROR, EP_ERROR_DTYPE,
                   _("new_from_dlpack: unknown DLPack type code %u"), (guint) dl.code);
      return FALSE;
    }

  return TRUE;
}

static void
call_deleter (gpointer data)
{
  DLManagedTensor *managed = data;

  if (managed->deleter != NULL)
    managed->deleter (managed);
}

/* Copies the strided elements at @base (@layout's shape and strides,
 * offset 0, any alignment) to @out in C order. */
static void
gather (guint8         *out,
        const guint8   *base,
        const EpLayout *layout,
        gsize           itemsize)
{
  gint64 index[EP_MAX_DIMS] = { 0 };
  gint64 size = ep_layout_get_size (layout);
  gint64 at = 0;

  for (gint64 n = 0; n < size; n++)
    {
      memcpy (out + n * itemsize, base + at * (gint64) itemsize, itemsize);
      for (guint i = layout->ndim; i-- > 0;)
        {
          at += layout->strides[i];
          if (++index[i] < layout->shape[i])
            break;
          at -= layout->strides[i] * layout->shape[i];
          index[i] = 0;
        }
    }
}

/**
 * ep_tensor_new_from_dlpack: (skip)
 * @managed_tensor: (not nullable): a DLPack `DLManagedTensor *`
 * @error: return location for an error
 *
 * Creates a tensor on the memory of another array library without
 * copying it, from a DLPack `DLManagedTensor` (what PyTorch's
 * `torch.utils.dlpack.to_dlpack()` makes; the Python layer's
 * `Ep.from_dlpack()` takes any object with a `__dlpack__` method). It is
 * not introspected (the argument is an address).
 *
 * The data must be on the CPU, of one of the element types of
 * [enum@DType], one lane per element. Any shape, strides (NULL for C
 * order, negative and zero ones too) and byte offset are taken as they
 * are; data not aligned to its element size is copied. The tensor is
 * immutable as every tensor: the producer must not write the data while
 * the tensor or a view of it is alive.
 *
 * On success @managed_tensor belongs to the library: its `deleter` is
 * called when the last tensor on its memory is gone (at once, when the
 * data was copied). On failure it stays the caller's, and its deleter is
 * not called.
 *
 * Returns: (transfer full): the new tensor, or %NULL with
 *   %EP_ERROR_DEVICE set if the data is not on the CPU, %EP_ERROR_DTYPE
 *   if its type is not supported, %EP_ERROR_SHAPE if its shape is
 *   negative or has too many dimensions, or %EP_ERROR_INVALID_ARGUMENT
 *   if it has no data or its extent overflows the address space
 */
EpTensor *
ep_tensor_new_from_dlpack (gpointer   managed_tensor,
                           GError   **error)
{
  DLManagedTensor *managed = managed_tensor;
  const DLTensor *dl;
  EpDevice *cpu = ep_device_get_cpu ();
  g_autoptr(GBytes) bytes = NULL;
  g_autoptr(EpStorage) storage = NULL;
  EpLayout layout;
  EpDType dtype;
  gsize itemsize;
  gint64 low = 0, high = 0;
  gint64 span;
  uintptr_t base, start, end;

  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (managed == NULL)
    {
      g_set_error (error, EP_ERROR, EP_ERROR_INVALID_ARGUMENT,
                   _("new_from_dlpack: no DLPack tensor given (NULL)"));
      return NULL;
    }
  dl = &managed->dl_tensor;

  if (dl->device.device_type != kDLCPU)
    {
      g_set_error (error, EP_ERROR, EP_ERROR_DEVICE,
                   _("new_from_dlpack: the data is on DLPack device type %d, not the CPU (1); copy it to the CPU first"),
                   (int) dl->device.device_type);
      return NULL;
    }
  if (!ep_dtype_from_dl (dl->dtype, &dtype, error))
    return NULL;
  if (dl->ndim < 0)
    {
      g_set_error (error, EP_ERROR, EP_ERROR_SHAPE,
                   _("new_from_dlpack: negative number of dimensions %d"), (int) dl->ndim);
      return NULL;
    }
  if (dl->ndim > 0 && dl->shape == NULL)
    {
      g_set_error (error, EP_ERROR, EP_ERROR_INVALID_ARGUMENT,
                   _("new_from_dlpack: %d dimensions and no shape"), (int) dl->ndim);
      return NULL;
    }
  /* the number of dimensions, negative extents, the size */
  if (!ep_layout_init (&layout, dtype, dl->shape, (guint) dl->ndim, "new_from_dlpack", error))
    return NULL;

  itemsize = ep_dtype_itemsize (dtype);
  if (ep_layout_get_size (&layout) == 0)
    {
      EpTensor *empty = ep_tensor_new_empty (cpu, &layout, error);

      if (empty != NULL)
        call_deleter (managed);
      return empty;
    }
  if (dl->data == NULL)
    {
      g_set_error (error, EP_ERROR, EP_ERROR_INVALID_ARGUMENT,
                   _("new_from_dlpack: the data address is NULL"));
      return NULL;
    }

  /* the elements reached: from @low to @high elements from the first one */
  if (dl->strides != NULL)
    for (guint i = 0; i < layout.ndim; i++)
      {
        gint64 reach;

        layout.strides[i] = dl->strides[i];
        if (__builtin_mul_overflow (layout.shape[i] - 1, dl->strides[i], &reach)
            || __builtin_add_overflow (reach < 0 ? low : high, reach, reach < 0 ? &low : &high))
          goto overflow;
      }
  else
    high = ep_layout_get_size (&layout) - 1;

  /* in bytes: the span, and where it starts and ends */
  if (__builtin_sub_overflow (high, low, &span)
      || __builtin_add_overflow (span, 1, &span)
      || __builtin_mul_overflow (span, (gint64) itemsize, &span)
      || __builtin_add_overflow ((uintptr_t) dl->data, dl->byte_offset, &base)
      || (guint64) 0 - (guint64) low > base / itemsize)
    goto overflow;
  start = base - (uintptr_t) ((guint64) 0 - (guint64) low) * itemsize;
  if (__builtin_add_overflow (start, (guint64) span, &end))
    goto overflow;

  if (base % itemsize != 0)
    {
      /* unaligned: a copy in C order */
      g_autofree guint8 *copy = NULL;
      EpLayout strided = layout;
      gsize nbytes;
      EpTensor *tensor;

      ep_layout_compute_nbytes (&layout, &nbytes);
      copy = ep_try_malloc (nbytes);
      if (copy == NULL)
        {
          g_set_error (error, EP_ERROR, EP_ERROR_OUT_OF_MEMORY,
                       _("new_from_dlpack: cannot allocate %zu bytes"), nbytes);
          return NULL;
        }
      if (dl->strides == NULL)
        ep_layout_set_contiguous (&strided);
      gather (copy, (const guint8 *) base, &strided, itemsize);
      ep_layout_set_contiguous (&layout);
      tensor = ep_tensor_new_from_host (cpu, &layout, copy, "new_from_dlpack", error);
      if (tensor != NULL)
        call_deleter (managed);
      return tensor;
    }

  layout.offset = -low;
  bytes = g_bytes_new_with_free_func ((gconstpointer) (uintptr_t) start, span,
                                      call_deleter, managed);
  storage = ep_storage_new_for_bytes (cpu, bytes);

  return ep_tensor_new_with_storage (&layout, storage);

overflow:
  g_set_error (error, EP_ERROR, EP_ERROR_INVALID_ARGUMENT,
               _("new_from_dlpack: the strides and byte offset reach beyond the address space"));
  return NULL;
}
