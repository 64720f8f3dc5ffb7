/* fuzz-dispatch.c: any op of the table, on any inputs, on the CPU
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The input is read as one call: an op id (every op of the op table
 * that has a public function), its inputs (dtype, shape, strides of any
 * sign, offset, data, or a weak literal), its attributes by its schema
 * (each left at its default or given any value of its type, as a C
 * caller can), and whether a gradient tape records the call, in which
 * case the gradients of its first output are asked for too (or its
 * jacobian with respect to the first input), and whether a forward
 * accumulator computes the tangents of its outputs (each floating input
 * its own tangent). The call
 * goes through ep_dispatch(), the path of every op from every language:
 * it must give outputs or an EP_ERROR, nothing else.
 */

#include <eager-glib/eager-glib.h>

#include "ep-dispatch-private.h"
#include "ep-fuzz.h"
#include "ep-scalar-private.h"

#define MAX_NDIM   4
#define MAX_EXTENT 5
#define MAX_EXTRA_LIST_INPUTS 4

static void
fill_elements (EpFuzzInput *in,
               EpDType      dtype,
               guint8      *data,
               gsize        n)
{
  gsize itemsize = ep_dtype_get_itemsize (dtype);

  for (gsize i = 0; i < n; i++)
    {
      guint8 *element = data + i * itemsize;

      switch (dtype)
        {
        case EP_DTYPE_FLOAT32:
          *(gfloat *) element = (gfloat) ep_fuzz_number (in);
          break;
        case EP_DTYPE_FLOAT64:
          *(gdouble *) element = ep_fuzz_number (in);
          break;
        case EP_DTYPE_INT32:
          *(gint32 *) element = (gint32) ep_fuzz_int (in);
          break;
        case EP_DTYPE_INT64:
          *(gint64 *) element = ep_fuzz_int (in);
          break;
        case EP_DTYPE_BOOL:
          *element = ep_fuzz_u8 (in) & 1;
          break;
        case EP_DTYPE_UINT8:
        case EP_DTYPE_INT8:
          *element = ep_fuzz_u8 (in);
          break;
        case EP_DTYPE_INT16:
          *(gint16 *) element = (gint16) ep_fuzz_int (in);
          break;
        case EP_DTYPE_FLOAT16:
        case EP_DTYPE_BFLOAT16:
          ep_scalar_store (element, dtype, ep_fuzz_number (in));
          break;
        }
    }
}

/* A tensor of any layout: a fresh storage, and a view of it with the
 * strides the input says (0 and negative ones too) */
static EpTensor *
make_input (EpFuzzInput *in)
{
  EpLayout layout = { 0 };
  gint64 low = 0, high = 0;
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) base = NULL;
  g_autofree guint8 *data = NULL;
  gint64 n_elements;
  guint8 kind = ep_fuzz_u8 (in);

  layout.dtype = ep_fuzz_dtype (in);
  if (kind % 8 == 7)
    return ep_tensor_new_weak_scalar (ep_fuzz_number (in), layout.dtype);

  layout.ndim = ep_fuzz_below (in, MAX_NDIM + 1);
  for (guint d = 0; d < layout.ndim; d++)
    layout.shape[d] = ep_fuzz_below (in, MAX_EXTENT + 1);
  if (kind % 8 < 4)
    {
      ep_layout_set_contiguous (&layout);
    }
  else
    {
      for (guint d = 0; d < layout.ndim; d++)
        {
          layout.strides[d] = (gint64) ep_fuzz_below (in, 13) - 6;
          if (layout.shape[d] > 0 && layout.strides[d] < 0)
            low += layout.strides[d] * (layout.shape[d] - 1);
          else if (layout.shape[d] > 0)
            high += layout.strides[d] * (layout.shape[d] - 1);
        }
      layout.offset = -low + ep_fuzz_below (in, 3);
    }

  {
    EpLayout storage_layout = { .dtype = layout.dtype, .ndim = 1 };

    n_elements = ep_layout_get_size (&layout) == 0 ? 0 : layout.offset + high + 1;
    if (kind % 8 < 4)
      n_elements = ep_layout_get_size (&layout);
    storage_layout.shape[0] = n_elements;
    ep_layout_set_contiguous (&storage_layout);
    data = g_malloc0 (MAX (n_elements, 1) * ep_dtype_get_itemsize (layout.dtype));
    fill_elements (in, layout.dtype, data, n_elements);
    base = ep_tensor_new_from_host (ep_device_get_default (), &storage_layout, data, "fuzz", &error);
    g_assert_no_error (error);
  }

  return ep_tensor_new_with_storage (&layout, base->storage);
}

static void
set_attr (EpFuzzInput      *in,
          EpOpAttrs        *attrs,
          const EpAttrSpec *spec)
{
  gpointer field = G_STRUCT_MEMBER_P (attrs, spec->offset);

  switch (spec->type)
    {
    case EP_ATTR_BOOL:
      *(gboolean *) field = ep_fuzz_u8 (in) & 1;
      break;
    case EP_ATTR_INT:
      *(gint64 *) field = ep_fuzz_int (in);
      break;
    case EP_ATTR_SEED:
      *(guint64 *) field = (guint64) ep_fuzz_i64 (in);
      break;
    case EP_ATTR_FLOAT:
      *(gdouble *) field = ep_fuzz_number (in);
      break;
    case EP_ATTR_NUMBER:
      /* an exact integer (any of int64) or a float */
      *(EpNumber *) field = ep_fuzz_u8 (in) & 1 ? ep_number_from_int64 (ep_fuzz_i64 (in))
                                                : ep_number_from_double (ep_fuzz_number (in));
      break;
    case EP_ATTR_DTYPE:
      /* the holes and one past the last: the schema refuses them */
      *(EpDType *) field = ep_fuzz_below (in, EP_DTYPE_BFLOAT16 + 2);
      break;
    case EP_ATTR_ENUM:
      *(gint *) field = (gint) ep_fuzz_below (in, 5);
      break;
    case EP_ATTR_AXIS:
      if ((spec->flags & EP_ATTR_NULLABLE) && ep_fuzz_u8 (in) < 32)
        ep_op_attrs_set_axes (attrs, NULL, 0);
      else
        ep_op_attrs_set_axis (attrs, (gint) ep_fuzz_int (in));
      break;
    case EP_ATTR_AXES:
      {
        gint axes[EP_MAX_DIMS + 1];
        guint n = ep_fuzz_below (in, EP_MAX_DIMS + 2);

        for (guint i = 0; i < n; i++)
          axes[i] = (gint) ep_fuzz_int (in);
        ep_op_attrs_set_axes (attrs, axes, n);
        break;
      }
    case EP_ATTR_SHAPE:
    case EP_ATTR_INTS:
      {
        gint64 values[2 * EP_MAX_DIMS + 1];
        guint n = ep_fuzz_below (in, spec->capacity + 2);

        for (guint i = 0; i < n; i++)
          values[i] = ep_fuzz_int (in);
        ep_op_attrs_copy_list (field, spec->capacity, sizeof (gint64),
                               G_STRUCT_MEMBER_P (attrs, spec->length), values, n);
        break;
      }
    case EP_ATTR_DEVICE:
      *(EpDevice **) field = ep_device_get_default ();
      break;
    case EP_ATTR_STRING:   /* composites only: never dispatched */
      break;
    }
}

static void
set_attrs (EpFuzzInput   *in,
           EpOpAttrs     *attrs,
           const EpOpDef *op)
{
  ep_op_attrs_init_defaults (attrs, op);
  for (guint a = 0; a < op->n_attrs; a++)
    {
      const EpAttrSpec *spec = &op->attrs[a];

      /* an attribute without a default must be given */
      if (spec->offset != EP_ATTR_NO_FIELD && (!spec->optional || ep_fuzz_u8 (in) & 1))
        set_attr (in, attrs, spec);
    }
}

static void
take_gradients (EpGradientTape *tape,
                EpTensor      **inputs,
                guint           n_inputs,
                EpTensor       *output)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) grads = NULL;

  grads = ep_gradient_tape_gradient (tape, &output, 1, (GObject **) inputs, n_inputs, NULL, 0, &error);
  g_assert (grads != NULL || (error != NULL && error->domain == EP_ERROR));
}

/* A jacobian takes up to one backward pass per element of @output, each
 * over the whole call: time quadratic in the size, which the memory
 * budget does not bound (a tile of a few elements into a million). Past
 * this many elements the fuzzer takes gradients instead. */
#define JACOBIAN_MAX_ELEMENTS 4096

static void
take_jacobian (EpGradientTape *tape,
               EpTensor       *input,
               EpTensor       *output)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) jacobian = NULL;

  jacobian = ep_gradient_tape_jacobian (tape, output, G_OBJECT (input), &error);
  g_assert (error == NULL || error->domain == EP_ERROR);
}

static EpForwardAccumulator *
start_accumulator (EpTensor **inputs,
                   guint      n_inputs)
{
  EpForwardAccumulator *acc = ep_forward_accumulator_new ();
  g_autoptr(GError) error = NULL;

  for (guint i = 0; i < n_inputs; i++)
    if (ep_dtype_is_floating (ep_tensor_get_dtype (inputs[i])))
      {
        ep_forward_accumulator_watch (acc, inputs[i], inputs[i], &error);
        g_assert_no_error (error);
      }
  ep_forward_accumulator_start (acc, &error);
  g_assert_no_error (error);

  return acc;
}

static void
take_tangents (EpForwardAccumulator *acc,
               EpTensor            **outputs)
{
  for (guint o = 0; o < EP_MAX_OUTPUTS && outputs[o] != NULL; o++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(EpTensor) tangent = ep_forward_accumulator_jvp (acc, outputs[o], &error);

      g_assert (tangent != NULL || (error != NULL && error->domain == EP_ERROR));
    }
}

/* @mode: bit 0 a tape, bit 1 its jacobian, bit 2 an accumulator */
static void
run_call (const EpOpDef *op,
          EpTensor     **inputs,
          guint          n_inputs,
          EpOpAttrs     *attrs,
          guint          mode)
{
  EpTensor *outputs[EP_MAX_OUTPUTS] = { NULL };
  g_autoptr(EpGradientTape) tape = NULL;
  g_autoptr(EpForwardAccumulator) acc = NULL;
  g_autoptr(GError) error = NULL;
  gboolean taped = mode & 1;
  gboolean ok;

  if (taped)
    {
      tape = ep_gradient_tape_new (FALSE);
      ep_gradient_tape_start (tape, &error);
      g_assert_no_error (error);
      for (guint i = 0; i < n_inputs; i++)
        ep_gradient_tape_watch (tape, inputs[i]);
    }
  if (mode & 4)
    acc = start_accumulator (inputs, n_inputs);

  ok = ep_dispatch (op, inputs, n_inputs, attrs, outputs, &error);
  g_assert (ok == (error == NULL));
  if (!ok)
    g_assert (error->domain == EP_ERROR);

  if (acc != NULL)
    {
      g_autoptr(GError) stop_error = NULL;

      ep_forward_accumulator_stop (acc, &stop_error);
      g_assert_no_error (stop_error);
      if (ok)
        take_tangents (acc, outputs);
    }
  if (taped)
    {
      g_autoptr(GError) stop_error = NULL;

      ep_gradient_tape_stop (tape, &stop_error);
      g_assert_no_error (stop_error);
      if (ok && (mode & 2) && n_inputs > 0 && ep_dtype_is_floating (ep_tensor_get_dtype (outputs[0]))
          && ep_tensor_get_size (outputs[0]) <= JACOBIAN_MAX_ELEMENTS)
        take_jacobian (tape, inputs[0], outputs[0]);
      else if (ok)
        take_gradients (tape, inputs, n_inputs, outputs[0]);
    }

  for (guint o = 0; o < EP_MAX_OUTPUTS; o++)
    g_clear_object (&outputs[o]);
}

int
LLVMFuzzerTestOneInput (const guint8 *data,
                        size_t        size)
{
  EpTensor *inputs[16];
  const EpOpDef *op;
  EpOpAttrs attrs;
  EpFuzzInput in;
  guint n_inputs;
  guint mode;

  ep_fuzz_init_once ();
  ep_fuzz_input_init (&in, data, size);
  op = ep_op_get (ep_fuzz_below (&in, EP_N_OPS));
  /* no function: internal (identity) or callbacks (custom_gradient);
   * the collectives are the communicator's methods, on the world of this
   * process alone (the fuzzer never starts MPI: no launcher) */
  if ((op->flags & EP_OP_FLAG_NO_FUNCTION) && !(op->flags & EP_OP_FLAG_COLLECTIVE))
    return 0;
  mode = ep_fuzz_u8 (&in) & 7;

  n_inputs = op->n_inputs;
  if (ep_op_takes_list (op))
    n_inputs = n_inputs - 1 + ep_fuzz_below (&in, MAX_EXTRA_LIST_INPUTS + 1);
  for (guint i = 0; i < n_inputs; i++)
    inputs[i] = make_input (&in);
  set_attrs (&in, &attrs, op);

  run_call (op, inputs, n_inputs, &attrs, mode);

  for (guint i = 0; i < n_inputs; i++)
    g_object_unref (inputs[i]);
  return 0;
}
