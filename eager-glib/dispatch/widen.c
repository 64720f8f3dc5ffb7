/* dispatch/widen.c: running a kernel, float16 and bfloat16 in float32
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * float16 and bfloat16 are storage types: as PyTorch on the CPU does,
 * every op computes on them in float32 and rounds its results to nearest
 * even. So no device needs a half-precision kernel per op: a call with
 * half inputs or outputs runs the op's float32 kernel on its inputs
 * widened (exactly) and its outputs rounded back, by the device's own
 * astype kernel. Only the ops that convert or move elements (astype,
 * contiguous, to_device) handle the half types themselves.
 */

#include "config.h"

#include <glib/gi18n-lib.h>

#include "ep-device-private.h"
#include "ep-dispatch-private.h"
#include "ep-error.h"
#include "ep-tensor-private.h"

#define INLINE_INPUTS 8

static gboolean
kernel_takes_half (const EpOpDef *op)
{
  return op == &ep_op_astype || op == &ep_op_contiguous || op == &ep_op_to_device;
}

static gboolean
call_has_half (const EpOpCall *call)
{
  for (guint i = 0; i < call->n_inputs; i++)
    if (ep_dtype_is_half (call->inputs[i]->layout.dtype))
      return TRUE;
  for (guint o = 0; o < call->n_outputs; o++)
    if (ep_dtype_is_half (call->output_layouts[o].dtype))
      return TRUE;
  return ep_dtype_is_half (call->attrs.dtype);
}

/* Converts @input into @into (contiguous, of @input's shape) by the
 * astype kernel of @into's device */
static gboolean
convert_into (const EpOpCall  *call,
              EpTensor        *input,
              EpTensor        *into,
              GError         **error)
{
  EpTensor *inputs[1] = { input };
  EpDType input_dtypes[1] = { input->layout.dtype };
  EpOpCall cast = { 0 };
  EpDevice *device = into->storage->device;

  if (ep_layout_get_size (&into->layout) == 0)
    return TRUE;

  cast.op = &ep_op_astype;
  cast.inputs = inputs;
  cast.n_inputs = 1;
  ep_op_attrs_init (&cast.attrs);
  cast.attrs.dtype = into->layout.dtype;
  cast.input_dtypes = input_dtypes;
  cast.output_layouts[0] = into->layout;
  cast.n_outputs = 1;
  cast.device = device;
  cast.outputs[0] = into;

  if (!device->backend->kernels[EP_OP_ASTYPE] (&cast, error))
    {
      g_prefix_error (error, "%s: ", call->op->name);
      return FALSE;
    }
  return TRUE;
}

/* A contiguous float32 tensor on @device shaped as @layout */
static EpTensor *
new_float32 (const EpOpCall  *call,
             EpDevice        *device,
             const EpLayout  *layout,
             GError         **error)
{
  EpLayout wide = *layout;
  EpTensor *tensor;

  wide.dtype = EP_DTYPE_FLOAT32;
  wide.offset = 0;
  ep_layout_set_contiguous (&wide);
  tensor = ep_tensor_new_empty (device, &wide, error);
  if (tensor == NULL)
    g_prefix_error (error, "%s: ", call->op->name);
  return tensor;
}

static gboolean
run_widened (EpOpCall      *call,
             EpKernelFunc   kernel,
             GError       **error)
{
  EpTensor *inline_inputs[INLINE_INPUTS];
  EpDType inline_dtypes[INLINE_INPUTS];
  EpOpCall wide = *call;
  gboolean ok = FALSE;

  wide.inputs = call->n_inputs <= INLINE_INPUTS ? inline_inputs : g_new0 (EpTensor *, call->n_inputs);
  wide.input_dtypes = call->n_inputs <= INLINE_INPUTS ? inline_dtypes : g_new (EpDType, call->n_inputs);
  memset (wide.outputs, 0, sizeof wide.outputs);
  if (ep_dtype_is_half (wide.attrs.dtype))
    wide.attrs.dtype = EP_DTYPE_FLOAT32;

  for (guint i = 0; i < call->n_inputs; i++)
    {
      EpTensor *input = call->inputs[i];

      wide.input_dtypes[i] = call->input_dtypes[i];
      if (!ep_dtype_is_half (input->layout.dtype))
        {
          wide.inputs[i] = g_object_ref (input);
          continue;
        }
      wide.input_dtypes[i] = EP_DTYPE_FLOAT32;
      wide.inputs[i] = new_float32 (call, input->storage->device, &input->layout, error);
      if (wide.inputs[i] == NULL || !convert_into (call, input, wide.inputs[i], error))
        {
          wide.n_inputs = i + 1;
          goto out;
        }
    }

  for (guint o = 0; o < call->n_outputs; o++)
    {
      if (!ep_dtype_is_half (call->output_layouts[o].dtype))
        {
          wide.outputs[o] = g_object_ref (call->outputs[o]);
          continue;
        }
      wide.output_layouts[o].dtype = EP_DTYPE_FLOAT32;
      wide.outputs[o] = new_float32 (call, call->device, &call->output_layouts[o], error);
      if (wide.outputs[o] == NULL)
        goto out;
    }

  if (!kernel (&wide, error))
    goto out;

  for (guint o = 0; o < call->n_outputs; o++)
    if (ep_dtype_is_half (call->output_layouts[o].dtype)
        && !convert_into (call, wide.outputs[o], call->outputs[o], error))
      goto out;
  ok = TRUE;

out:
  for (guint o = 0; o < EP_MAX_OUTPUTS; o++)
    g_clear_object (&wide.outputs[o]);
  for (guint i = 0; i < wide.n_inputs; i++)
    g_clear_object (&wide.inputs[i]);
  if (call->n_inputs > INLINE_INPUTS)
    {
      g_free (wide.inputs);
      g_free (wide.input_dtypes);
    }
  return ok;
}

/*
 * ep_kernel_run:
 * @call: a call whose outputs are allocated
 * @kernel: the kernel of its op on its device
 * @error: return location for an error
 *
 * Runs @kernel on @call, in float32 where the call has float16 or
 * bfloat16 inputs or outputs and the op computes (see above): what
 * dispatch, the graph executor and fused steps call.
 */
gboolean
ep_kernel_run (EpOpCall      *call,
               EpKernelFunc   kernel,
               GError       **error)
{
  const EpDeviceBackend *backend = call->device->backend;
  gboolean ran = FALSE;

  if (kernel_takes_half (call->op) || !call_has_half (call))
    return kernel (call, error);
  if (backend->run_half != NULL && !backend->run_half (call, &ran, error))
    return FALSE;
  return ran || run_widened (call, kernel, error);
}
