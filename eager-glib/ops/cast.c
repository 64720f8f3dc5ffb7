/* ops/cast.c: astype, contiguous, to_device and the cast shortcuts
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <glib/gi18n-lib.h>
#include <math.h>

#include "cpu/ep-cpu-private.h"
#include "ep-autodiff-private.h"
#include "ep-device-private.h"
#include "ep-dispatch-private.h"
#include "ep-error.h"
#include "ep-error-private.h"
#include "ep-fault-private.h"
#include "ep-grad-private.h"
#include "ep-math-private.h"

static gboolean
infer_same_shape (EpOpCall  *call,
                  EpDType    dtype)
{
  EpTensor *input = call->inputs[0];

  ep_op_set_output (call, dtype, input->layout.shape, input->layout.ndim);
  return TRUE;
}

static gboolean
astype_infer (EpOpCall  *call,
              GError   **error)
{
  return infer_same_shape (call, call->attrs.dtype);
}

static gboolean
contiguous_infer (EpOpCall  *call,
                  GError   **error)
{
  return infer_same_shape (call, call->inputs[0]->layout.dtype);
}

static gboolean
to_device_infer (EpOpCall  *call,
                 GError   **error)
{
  call->contiguous_inputs = 1;
  return infer_same_shape (call, call->inputs[0]->layout.dtype);
}

/* Gradients flow through float-to-float casts (converted back to the
 * input's type), copies and device moves (moved back). Integer and bool
 * tensors have no gradient, so nothing flows through a cast to or from
 * them. */
static gboolean
astype_gradient (const EpOpCall   *call,
                 EpTensor *const  *output_grads,
                 EpTensor        **input_grads,
                 GError          **error)
{
  if (!ep_grad_needed (call, 0))
    return TRUE;

  input_grads[0] = ep_tensor_astype (output_grads[0], call->inputs[0]->layout.dtype, error);
  return input_grads[0] != NULL;
}

static gboolean
to_device_gradient (const EpOpCall   *call,
                    EpTensor *const  *output_grads,
                    EpTensor        **input_grads,
                    GError          **error)
{
  if (!ep_grad_needed (call, 0))
    return TRUE;

  input_grads[0] = ep_tensor_to_device (output_grads[0], call->inputs[0]->storage->device, error);
  return input_grads[0] != NULL;
}

const EpOpDef ep_op_astype = {
  .id = EP_OP_ASTYPE, .name = "astype",
  EP_INPUTS (EP_INPUT ("self")),
  .flags = EP_OP_FLAG_UINT8,
  EP_ATTRS (EP_ATTR_DTYPE_ARG ()),
  .infer = astype_infer,
  .gradient = astype_gradient,
};

/* Placed as any op (the scope's device, else its input's), but where
 * the library names the device (attrs.device): ep_tensor_compact(), how
 * dispatch and to_bytes compact a tensor where it lives. */
const EpOpDef ep_op_contiguous = {
  .id = EP_OP_CONTIGUOUS, .name = "contiguous",
  .flags = EP_OP_FLAG_UINT8,
  EP_INPUTS (EP_INPUT ("self")),
  EP_ATTRS (EP_ATTR_DEVICE_ARG (.flags = EP_ATTR_INTERNAL)),
  .infer = contiguous_infer,
  .gradient = ep_grad_identity,
};

const EpOpDef ep_op_to_device = {
  .id = EP_OP_TO_DEVICE, .name = "to_device",
  .flags = EP_OP_FLAG_TRANSFER | EP_OP_FLAG_UINT8,
  EP_INPUTS (EP_INPUT ("self")),
  EP_ATTRS (EP_ATTR_DEVICE_ARG ()),
  .infer = to_device_infer,
  .gradient = to_device_gradient,
};

/* Device-neutral: every backend registers it for to_device. The input is
 * contiguous (the rule asks for it) and lives on another device. */
gboolean
ep_copy_to_device_kernel (EpOpCall  *call,
                          GError   **error)
{
  EpTensor *input = call->inputs[0];
  EpTensor *output = call->outputs[0];
  EpDevice *from = input->storage->device;
  EpDevice *to = output->storage->device;
  gsize itemsize = ep_dtype_get_itemsize (input->layout.dtype);
  gsize offset = input->layout.offset * itemsize;
  /* from the layout: the storage may be larger (a replay's reused
   * buffer, graph/arena.c) */
  gsize nbytes = ep_layout_get_size (&output->layout) * itemsize;
  g_autofree gpointer staging = NULL;

  if (from->host_visible)
    return ep_device_write (to, output->storage, 0, ep_tensor_host_data (input), nbytes, error);
  if (to->host_visible)
    return ep_device_read (from, input->storage, offset, output->storage->data, nbytes, error);

  staging = ep_try_malloc (nbytes);
  if (staging == NULL)
    {
      g_set_error (error, EP_ERROR, EP_ERROR_OUT_OF_MEMORY,
                   _("to_device: cannot allocate %zu bytes"), nbytes);
      return FALSE;
    }

  return ep_device_read (from, input->storage, offset, staging, nbytes, error)
         && ep_device_write (to, output->storage, 0, staging, nbytes, error);
}

/* The device of @self, or %NULL with @error set once it was released */
static EpDevice *
device_of (EpTensor    *self,
           const char  *op_name,
           GError     **error)
{
  EpDevice *device;

  if (!ep_tensor_pin (self, op_name, error))
    return NULL;
  device = self->storage->device;
  ep_tensor_unpin (self);

  return device;
}

/* What astype and contiguous give when there is nothing to convert: a
 * new tensor object on the same data, or inside the scope of another
 * device a copy there, as a view would be. */
static EpTensor *
unchanged (EpTensor    *self,
           const char  *op_name,
           GError     **error)
{
  EpDevice *scoped = ep_context_get_device ();

  if (scoped != NULL)
    {
      EpDevice *here = device_of (self, op_name, error);

      if (here == NULL)
        return NULL;
      if (here != scoped)
        return ep_tensor_to_device (self, scoped, error);
    }

  return ep_identity (self, error);
}

/**
 * ep_tensor_astype:
 * @self: a tensor
 * @dtype: the element type wanted
 * @error: return location for an error
 *
 * Converts the elements to @dtype as NumPy's `astype` does: floats to
 * integers truncate toward zero (NaN and out-of-range values give the
 * smallest integer, as on x86-64), anything to bool tests for non-zero,
 * integers wrap when narrowed. Gradients flow through casts between
 * floating-point types; integer and bool tensors have none.
 *
 * Inside a device scope the result is on the scope's device, as every
 * op's, even when @self already has the type.
 *
 * Returns: (transfer full): the converted tensor (a new tensor sharing
 *   the data of @self if it already has that type, outside the scope of
 *   another device)
 */
EpTensor *
ep_tensor_astype (EpTensor  *self,
                  EpDType    dtype,
                  GError   **error)
{
  EpOpAttrs attrs;

  g_return_val_if_fail (EP_IS_TENSOR (self), NULL);

  if (!ep_tensor_check_alive (self, "astype", error))
    return NULL;
  if (self->layout.dtype == dtype && !self->weak)
    return unchanged (self, "astype", error);

  ep_op_attrs_init (&attrs);
  attrs.dtype = dtype;
  return ep_dispatch1 (&ep_op_astype, &self, 1, &attrs, error);
}

/**
 * ep_tensor_contiguous:
 * @self: a tensor
 * @error: return location for an error
 *
 * Returns a tensor with the same elements laid out in C order without
 * gaps: a new tensor sharing the data of @self if it already is, a copy
 * otherwise. Inside a device scope the result is on the scope's device,
 * as every op's (a copy if @self lives elsewhere); outside, on the device
 * of @self.
 *
 * Returns: (transfer full): the contiguous tensor
 */
EpTensor *
ep_tensor_contiguous (EpTensor  *self,
                      GError   **error)
{
  EpOpAttrs attrs;

  g_return_val_if_fail (EP_IS_TENSOR (self), NULL);

  if (!ep_tensor_check_alive (self, "contiguous", error))
    return NULL;
  if (ep_layout_is_contiguous (&self->layout))
    return unchanged (self, "contiguous", error);

  ep_op_attrs_init (&attrs);
  return ep_dispatch1 (&ep_op_contiguous, &self, 1, &attrs, error);
}

/* @self compacted where it lives, whatever the scope (the tensor itself,
 * referenced, if it is compact): the library's own conversions and reads
 * (dispatch, replays, to_bytes), which must not wander to the scope's
 * device. */
EpTensor *
ep_tensor_compact (EpTensor  *self,
                   GError   **error)
{
  EpOpAttrs attrs;

  if (!ep_tensor_check_alive (self, "contiguous", error))
    return NULL;
  if (ep_layout_is_contiguous (&self->layout))
    return g_object_ref (self);

  ep_op_attrs_init (&attrs);
  attrs.device = device_of (self, "contiguous", error);
  if (attrs.device == NULL)
    return NULL;
  return ep_dispatch1 (&ep_op_contiguous, &self, 1, &attrs, error);
}

/**
 * ep_tensor_to_device:
 * @self: a tensor
 * @device: the device to copy to
 * @error: return location for an error
 *
 * Copies @self to @device, whatever the device scope. Gradients flow
 * back through the copy.
 *
 * Returns: (transfer full): the tensor on @device (a new tensor sharing
 *   the data of @self if it is already there), or %NULL with %EP_ERROR_DEVICE set if @device is not
 *   a device of this machine or the copy failed
 */
EpTensor *
ep_tensor_to_device (EpTensor  *self,
                     EpDevice  *device,
                     GError   **error)
{
  EpDevice *here;
  EpOpAttrs attrs;

  g_return_val_if_fail (EP_IS_TENSOR (self), NULL);
  g_return_val_if_fail (EP_IS_DEVICE (device), NULL);

  if (!ep_device_check_usable (device, "to_device", error))
    return NULL;
  here = device_of (self, "to_device", error);
  if (here == NULL)
    return NULL;
  if (here == device)
    return ep_identity (self, error);

  ep_op_attrs_init (&attrs);
  attrs.device = device;
  return ep_dispatch1 (&ep_op_to_device, &self, 1, &attrs, error);
}


/* Cast shortcuts: astype, so tapes see an astype */

#define CAST_SHORTCUT(op_name)                                              \
  const EpOpDef ep_func_##op_name = {                                       \
    .id = EP_N_OPS, .name = #op_name,                                       \
    EP_INPUTS (EP_INPUT ("self")),                                          \
  };

CAST_SHORTCUT (float32)
CAST_SHORTCUT (float64)
CAST_SHORTCUT (bool)

/**
 * ep_tensor_float32:
 * @self: a tensor
 * @error: return location for an error
 *
 * The same as [method@Tensor.astype] with %EP_DTYPE_FLOAT32.
 *
 * Returns: (transfer full): the converted tensor
 */
EpTensor *
ep_tensor_float32 (EpTensor  *self,
                   GError   **error)
{
  return ep_error_named_result (ep_tensor_astype (self, EP_DTYPE_FLOAT32, error), error, "float32");
}

/**
 * ep_tensor_float64:
 * @self: a tensor
 * @error: return location for an error
 *
 * The same as [method@Tensor.astype] with %EP_DTYPE_FLOAT64.
 *
 * Returns: (transfer full): the converted tensor
 */
EpTensor *
ep_tensor_float64 (EpTensor  *self,
                   GError   **error)
{
  return ep_error_named_result (ep_tensor_astype (self, EP_DTYPE_FLOAT64, error), error, "float64");
}

/**
 * ep_tensor_bool:
 * @self: a tensor
 * @error: return location for an error
 *
 * The same as [method@Tensor.astype] with %EP_DTYPE_BOOL: whether each
 * element is not zero (NaN counts as true).
 *
 * Returns: (transfer full): the converted tensor
 */
EpTensor *
ep_tensor_bool (EpTensor  *self,
                GError   **error)
{
  return ep_error_named_result (ep_tensor_astype (self, EP_DTYPE_BOOL, error), error, "bool");
}
