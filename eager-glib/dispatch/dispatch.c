/* dispatch/dispatch.c
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The one path every op takes, from every language: validate and infer,
 * place, run, record. See DESIGN.md, "The one idea that holds it
 * together".
 */

#include "config.h"

#include <glib/gi18n-lib.h>
#include <inttypes.h>
#include <string.h>

#include "ep-context-private.h"
#include "ep-device-private.h"
#include "ep-dispatch-private.h"
#include "ep-error.h"
#include "ep-recorder-private.h"
#include "ep-scalar-private.h"

#define INLINE_INPUTS 8

/* A weak literal lives on the CPU and has no history: cast and move it
 * by making a new one, without dispatching an op. An integer literal
 * keeps its value exactly, and one that the integer type cannot hold is
 * an error, as a Python integer out of bounds is in NumPy. */
static EpTensor *
convert_literal (const EpOpCall  *call,
                 EpTensor        *literal,
                 EpDType          dtype,
                 EpDevice        *device,
                 GError         **error)
{
  EpNumber value = ep_number_load (literal->storage->data, literal->layout.dtype);
  EpLayout layout = { .dtype = dtype, .ndim = 0 };
  guint8 element[8];
  g_autoptr(EpTensor) tensor = NULL;

  if (ep_number_overflows (value, dtype))
    {
      g_set_error (error, EP_ERROR, EP_ERROR_INVALID_ARGUMENT,
                   _("%s: the integer %" PRId64 " does not fit in %s"),
                   call->op->name, value.i, ep_dtype_get_name (dtype));
      return NULL;
    }

  tensor = ep_tensor_new_empty (device, &layout, error);
  if (tensor == NULL)
    return NULL;

  ep_number_store (element, dtype, value);
  if (!ep_device_write (device, tensor->storage, 0, element, ep_dtype_get_itemsize (dtype), error))
    return NULL;

  return g_steal_pointer (&tensor);
}

/* Casts, moves and compacts input @i as the rule asked. Returns a new
 * reference, or the input itself (not referenced) if nothing changed. */
static EpTensor *
convert_input (EpOpCall  *call,
               guint      i,
               gboolean   move,
               GError   **error)
{
  EpTensor *input = call->inputs[i];
  EpDType dtype = call->input_dtypes[i];
  gboolean wants_contiguous = i < 32 && (call->contiguous_inputs & (1u << i));
  gboolean moves = move && input->storage->device != call->device;
  g_autoptr(EpTensor) owned = NULL;

  if (input->weak && input->layout.ndim == 0
      && (input->layout.dtype != dtype || moves))
    return convert_literal (call, input, dtype, move ? call->device : input->storage->device, error);

  if (input->layout.dtype != dtype)
    {
      owned = ep_tensor_astype (input, dtype, error);
      if (owned == NULL)
        return NULL;
    }

  /* (a cast in a device scope may have moved it already) */
  if (moves && (owned != NULL ? owned : input)->storage->device != call->device)
    {
      EpTensor *moved = ep_tensor_to_device (owned != NULL ? owned : input, call->device, error);

      if (moved == NULL)
        return NULL;
      g_clear_object (&owned);
      owned = moved;
    }

  if (wants_contiguous && !ep_layout_is_contiguous (&(owned != NULL ? owned : input)->layout))
    {
      EpTensor *compact = ep_tensor_compact (owned != NULL ? owned : input, error);

      if (compact == NULL)
        return NULL;
      g_clear_object (&owned);
      owned = compact;
    }

  return owned != NULL ? g_steal_pointer (&owned) : input;
}

static gboolean
run_kernel (EpOpCall  *call,
            GError   **error)
{
  EpKernelFunc kernel = call->device->backend->kernels[call->op->id];
  gboolean empty = TRUE;

  for (guint o = 0; o < call->n_outputs; o++)
    {
      call->outputs[o] = ep_tensor_new_empty (call->device, &call->output_layouts[o], error);
      if (call->outputs[o] == NULL)
        {
          /* the device's message does not know which op asked */
          g_prefix_error (error, "%s: ", call->op->name);
          return FALSE;
        }
      if (ep_layout_get_size (&call->output_layouts[o]) > 0)
        empty = FALSE;
    }

  if (empty && !(call->op->flags & (EP_OP_FLAG_CHECKS_DATA | EP_OP_FLAG_COLLECTIVE)))
    return TRUE;

  if (kernel == NULL)
    {
      g_set_error (error, EP_ERROR, EP_ERROR_DEVICE,
                   _("%s: not implemented on device %s"),
                   call->op->name, call->device->name);
      return FALSE;
    }

  return ep_kernel_run (call, kernel, error);
}

static void
make_view (EpOpCall *call)
{
  call->outputs[0] = ep_tensor_new_with_storage (&call->output_layouts[0],
                                                 call->inputs[0]->storage);
}

/*
 * Placement, the one rule. An op runs:
 *   1. on the device its call names (attrs.device: to_device's target,
 *      the device of a creation op made by ep_full_on() or ep_arange_on()
 *      (the constants of gradient rules, where their input lives), the
 *      conversions dispatch makes of an input where it lives);
 *   2. on the device of the innermost device scope of the thread (the
 *      user's: the library never opens one), views too, as in
 *      TensorFlow: a view of a tensor that lives elsewhere is a view of
 *      its copy there;
 *   3. for a view, where its input lives: it shares that storage;
 *   4. on the device of its first input that is not a weak literal
 *      (literals have no home);
 *   5. on cpu:0.
 * Its inputs are then copied there, except the input of to_device
 * (EP_OP_FLAG_TRANSFER: its kernel is the copy) and the inputs of a view
 * past the first, which it does not read.
 * docs/devices.md and the comments of ep_device_push() and EpDevice say
 * the same to users: keep them in step.
 */
static EpDevice *
choose_device (const EpOpCall *call)
{
  EpDevice *scoped;

  if (call->attrs.device != NULL)
    return call->attrs.device;

  scoped = ep_context_get_device ();
  if (scoped != NULL)
    return scoped;

  if (call->op->flags & EP_OP_FLAG_VIEW)
    return call->inputs[0]->storage->device;

  for (guint i = 0; i < call->n_inputs; i++)
    if (!call->inputs[i]->weak)
      return call->inputs[i]->storage->device;

  return ep_device_get_default ();
}

/*
 * ep_dispatch:
 * @op: the op
 * @inputs: (array length=n_inputs): its tensor inputs
 * @n_inputs: how many
 * @attrs: (nullable): its other arguments, or %NULL for none
 * @outputs: (out caller-allocates): room for the op's outputs
 * @error: return location for an error
 *
 * Runs @op. On failure nothing is recorded and @outputs are untouched:
 * what recorders took of the conversions made for the op (casts, copies)
 * is taken back, and so is the op itself if one recorder refused it.
 */
gboolean
ep_dispatch (const EpOpDef    *op,
             EpTensor *const  *inputs,
             guint             n_inputs,
             const EpOpAttrs  *attrs,
             EpTensor        **outputs,
             GError          **error)
{
  EpTensor *inline_inputs[INLINE_INPUTS];
  EpDType inline_dtypes[INLINE_INPUTS];
  guint32 owned_inline = 0;
  gboolean *owned_heap = NULL;
  gboolean move;
  gboolean ok = FALSE;
  EpRecorderMarks marks = { 0 };
  gboolean marked;
  EpOpCall call;

  g_return_val_if_fail (op != NULL && op->infer != NULL, FALSE);
  g_return_val_if_fail (ep_op_takes_list (op) ? n_inputs + 1 >= op->n_inputs : n_inputs == op->n_inputs, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);
  for (guint i = 0; i < n_inputs; i++)
    g_return_val_if_fail (EP_IS_TENSOR (inputs[i]), FALSE);
  /* a release on another thread waits for this call to let go */
  if (!ep_tensors_pin (inputs, n_inputs, op->name, error))
    return FALSE;

  call.op = op;
  call.n_inputs = n_inputs;
  if (attrs != NULL)
    call.attrs = *attrs;
  else
    ep_op_attrs_init (&call.attrs);
  call.given_attrs = attrs;
  call.inputs = n_inputs <= INLINE_INPUTS ? inline_inputs : g_new (EpTensor *, n_inputs);
  call.input_dtypes = n_inputs <= INLINE_INPUTS ? inline_dtypes : g_new (EpDType, n_inputs);
  if (n_inputs > INLINE_INPUTS)
    owned_heap = g_new0 (gboolean, n_inputs);
  for (guint i = 0; i < n_inputs; i++)
    {
      call.inputs[i] = inputs[i];
      call.input_dtypes[i] = inputs[i]->layout.dtype;
    }
  call.contiguous_inputs = 0;
  call.n_outputs = 1;
  memset (call.outputs, 0, sizeof call.outputs);

  marked = ep_recorders_any ();
  if (marked)
    ep_recorders_mark (&marks);

  /* 1. validate and infer */
  if (!ep_op_check_call (op, inputs, n_inputs, &call.attrs, error)
      || !op->infer (&call, error))
    goto out;

  /* 2. place, and bring the inputs to the types, device and layout the
   *    rule and the kernel need */
  call.device = choose_device (&call);
  move = !(op->flags & EP_OP_FLAG_TRANSFER);
  for (guint i = 0; i < n_inputs; i++)
    {
      gboolean read = !(op->flags & EP_OP_FLAG_VIEW) || i == 0;
      EpTensor *converted = convert_input (&call, i, move && read, error);

      if (converted == NULL)
        goto out;
      if (converted != inputs[i])
        {
          call.inputs[i] = converted;
          if (owned_heap != NULL)
            owned_heap[i] = TRUE;
          else
            owned_inline |= 1u << i;
        }
    }

  /* 3. run */
  if (op->flags & EP_OP_FLAG_VIEW)
    make_view (&call);
  else if (!run_kernel (&call, error))
    goto out;

  /* 4. record */
  if (ep_recorders_any () && !ep_recorders_notify (&call, error))
    goto out;

  for (guint o = 0; o < call.n_outputs; o++)
    outputs[o] = g_steal_pointer (&call.outputs[o]);
  ok = TRUE;

out:
  if (marked)
    {
      if (!ok)
        ep_recorders_rollback (&marks);
      ep_recorders_clear_marks (&marks);
    }
  for (guint o = 0; o < EP_MAX_OUTPUTS; o++)
    g_clear_object (&call.outputs[o]);
  for (guint i = 0; i < n_inputs; i++)
    if (owned_heap != NULL ? owned_heap[i] : (owned_inline & (1u << i)) != 0)
      g_object_unref (call.inputs[i]);
  ep_tensors_unpin (inputs, n_inputs);
  if (n_inputs > INLINE_INPUTS)
    {
      g_free (call.inputs);
      g_free (call.input_dtypes);
      g_free (owned_heap);
    }

  return ok;
}

EpTensor *
ep_dispatch1 (const EpOpDef    *op,
              EpTensor *const  *inputs,
              guint             n_inputs,
              const EpOpAttrs  *attrs,
              GError          **error)
{
  EpTensor *outputs[EP_MAX_OUTPUTS] = { NULL };

  if (!ep_dispatch (op, inputs, n_inputs, attrs, outputs, error))
    return NULL;

  return outputs[0];
}

EpTensor *
ep_dispatch_unary (const EpOpDef  *op,
                   EpTensor       *input,
                   GError        **error)
{
  return ep_dispatch1 (op, &input, 1, NULL, error);
}

EpTensor *
ep_dispatch_binary (const EpOpDef  *op,
                    EpTensor       *a,
                    EpTensor       *b,
                    GError        **error)
{
  EpTensor *inputs[2] = { a, b };

  return ep_dispatch1 (op, inputs, 2, NULL, error);
}

/* @op over user-given @axes (%NULL: all of them), as the reductions and
 * the axis permutations take them */
EpTensor *
ep_dispatch_axes (const EpOpDef  *op,
                  EpTensor       *self,
                  const gint     *axes,
                  guint           n_axes,
                  gboolean        keepdims,
                  GError        **error)
{
  EpOpAttrs attrs;

  g_return_val_if_fail (EP_IS_TENSOR (self), NULL);

  ep_op_attrs_init (&attrs);
  ep_op_attrs_set_axes (&attrs, axes, n_axes);
  attrs.keepdims = keepdims;

  return ep_dispatch1 (op, &self, 1, &attrs, error);
}

/* @op along one @axis (attrs.axes[0]) */
EpTensor *
ep_dispatch_axis (const EpOpDef    *op,
                  EpTensor *const  *inputs,
                  guint             n_inputs,
                  gint              axis,
                  GError          **error)
{
  EpOpAttrs attrs;

  ep_op_attrs_init (&attrs);
  ep_op_attrs_set_axis (&attrs, axis);

  return ep_dispatch1 (op, inputs, n_inputs, &attrs, error);
}

/* @op along one @axis, or over the flattened tensor for EP_AXIS_NONE
 * (attrs.all_axes): argmin, argmax, cumsum */
EpTensor *
ep_dispatch_optional_axis (const EpOpDef  *op,
                           EpTensor       *self,
                           gint            axis,
                           gboolean        keepdims,
                           GError        **error)
{
  EpOpAttrs attrs;

  g_return_val_if_fail (EP_IS_TENSOR (self), NULL);

  ep_op_attrs_init (&attrs);
  if (axis != EP_AXIS_NONE)
    ep_op_attrs_set_axis (&attrs, axis);
  attrs.keepdims = keepdims;

  return ep_dispatch1 (op, &self, 1, &attrs, error);
}

/* @op along @axis, or for EP_AXIS_NONE (NumPy's axis=None) along the one
 * axis of its first @n_flattened inputs flattened: sort, argsort, take,
 * take_along_axis, concatenate */
EpTensor *
ep_dispatch_axis_or_flat (const EpOpDef    *op,
                          EpTensor *const  *inputs,
                          guint             n_inputs,
                          guint             n_flattened,
                          gint              axis,
                          GError          **error)
{
  static const gint64 flat_shape[] = { -1 };
  g_autoptr(GPtrArray) flat = NULL;

  if (axis != EP_AXIS_NONE)
    return ep_dispatch_axis (op, inputs, n_inputs, axis, error);

  flat = g_ptr_array_new_full (n_inputs, g_object_unref);
  for (guint i = 0; i < n_inputs; i++)
    {
      EpTensor *input = i < n_flattened ? ep_tensor_reshape (inputs[i], flat_shape, 1, error)
                                        : g_object_ref (inputs[i]);

      if (input == NULL)
        return NULL;
      g_ptr_array_add (flat, input);
    }

  return ep_dispatch_axis (op, (EpTensor *const *) flat->pdata, n_inputs, 0, error);
}
