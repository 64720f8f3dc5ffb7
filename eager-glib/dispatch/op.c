/* dispatch/op.c
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <glib/gi18n-lib.h>
#include <math.h>
#include <string.h>

#include "ep-error.h"
#include "ep-op-private.h"

static const EpOpDef *const op_table[EP_N_OPS] = {
#define EP_OP(family, ID, name) [EP_OP_##ID] = &ep_op_##name,
#define EP_FUNC(family, name)
#include "ep-op-list-private.h"
#undef EP_OP
#undef EP_FUNC
};

const EpOpDef *
ep_op_get (EpOpId id)
{
  g_return_val_if_fail (id < EP_N_OPS, NULL);

  return op_table[id];
}

const EpOpDef *
ep_op_lookup (const char *name)
{
  for (guint i = 0; i < EP_N_OPS; i++)
    if (g_str_equal (op_table[i]->name, name))
      return op_table[i];

  return NULL;
}

/* Whether the last input of @op is a list (any number of tensors) */
gboolean
ep_op_takes_list (const EpOpDef *op)
{
  return op->n_inputs > 0 && op->inputs[op->n_inputs - 1].list;
}

void
ep_op_attrs_init (EpOpAttrs *attrs)
{
  memset (attrs, 0, sizeof *attrs);
  attrs->all_axes = TRUE;
}

/* Stores user-given axes; NULL or none means all axes (bindings pass an
 * empty list as NULL or not, depending on the language). Range checks
 * wait for the op's rule, which knows the rank; the count, for the
 * schema check. */
void
ep_op_attrs_set_axes (EpOpAttrs   *attrs,
                      const gint  *axes,
                      guint        n_axes)
{
  attrs->all_axes = axes == NULL || n_axes == 0;
  if (attrs->all_axes)
    {
      attrs->n_axes = 0;
      return;
    }

  ep_op_attrs_set_list (attrs->axes, attrs->n_axes, axes, n_axes);
}

/* One axis, made non-negative by the op's rule. */
void
ep_op_attrs_set_axis (EpOpAttrs *attrs,
                      gint       axis)
{
  attrs->all_axes = FALSE;
  attrs->n_axes = 1;
  attrs->axes[0] = axis;
}

void
ep_op_attrs_copy_list (gpointer       field,
                       guint          capacity,
                       gsize          item_size,
                       guint         *length,
                       gconstpointer  values,
                       guint          n_values)
{
  if (n_values > 0 && values != NULL)
    memcpy (field, values, MIN (n_values, capacity) * item_size);
  *length = values != NULL ? n_values : 0;
}

gboolean
ep_op_normalize_axis (const EpOpCall  *call,
                      gint             axis,
                      guint            ndim,
                      gint            *normalized,
                      GError         **error)
{
  return ep_func_normalize_axis (call->op, axis, ndim, normalized, error);
}

/* The same for a composite function (EP_FUNC), which has no call: the
 * error names @func */
gboolean
ep_func_normalize_axis (const EpOpDef  *func,
                        gint            axis,
                        guint           ndim,
                        gint           *normalized,
                        GError        **error)
{
  if (axis < -(gint) ndim || axis >= (gint) ndim)
    {
      g_set_error (error, EP_ERROR, EP_ERROR_AXIS,
                   g_dngettext (GETTEXT_PACKAGE,
                                "%s: axis %d is out of range for a tensor of %u dimension",
                                "%s: axis %d is out of range for a tensor of %u dimensions",
                                ndim),
                   func->name, axis, ndim);
      return FALSE;
    }

  *normalized = axis < 0 ? axis + (gint) ndim : axis;
  return TRUE;
}

/* Makes call->attrs.axes a sorted list of distinct non-negative axes;
 * "all axes" becomes 0 … ndim-1. */
gboolean
ep_op_normalize_axes (EpOpCall  *call,
                      guint      ndim,
                      GError   **error)
{
  EpOpAttrs *attrs = &call->attrs;
  gboolean seen[EP_MAX_DIMS] = { FALSE };
  guint n = 0;

  if (attrs->all_axes)
    {
      for (guint i = 0; i < ndim; i++)
        attrs->axes[i] = i;
      attrs->n_axes = ndim;
      attrs->all_axes = FALSE;
      return TRUE;
    }

  for (guint i = 0; i < attrs->n_axes; i++)
    {
      gint axis;

      if (!ep_op_normalize_axis (call, attrs->axes[i], ndim, &axis, error))
        return FALSE;
      if (seen[axis])
        {
          g_set_error (error, EP_ERROR, EP_ERROR_AXIS,
                       _("%s: axis %d is repeated"), call->op->name, attrs->axes[i]);
          return FALSE;
        }
      seen[axis] = TRUE;
    }

  for (guint i = 0; i < ndim; i++)
    if (seen[i])
      attrs->axes[n++] = i;
  attrs->n_axes = n;

  return TRUE;
}

/* ep_op_normalize_axes() for the reductions that NumPy lets reduce a 0-d
 * tensor along one axis 0 or -1, as along none (sum, prod, max, min, all,
 * any; SciPy's logsumexp too). NumPy's mean refuses it, and so do a tuple
 * of axes and any other axis; the C API cannot tell `axis=0` from
 * `axis=(0,)`, and takes both. */
gboolean
ep_op_normalize_reduction_axes (EpOpCall  *call,
                                GError   **error)
{
  EpOpAttrs *attrs = &call->attrs;
  guint ndim = call->inputs[0]->layout.ndim;

  if (ndim == 0 && !attrs->all_axes && attrs->n_axes == 1
      && (attrs->axes[0] == 0 || attrs->axes[0] == -1))
    attrs->n_axes = 0;

  return ep_op_normalize_axes (call, ndim, error);
}

static char *
input_shapes_to_string (const EpOpCall *call)
{
  GString *s = g_string_new (NULL);

  for (guint i = 0; i < call->n_inputs; i++)
    {
      g_autofree char *shape = ep_shape_to_string (call->inputs[i]->layout.shape,
                                                   call->inputs[i]->layout.ndim);

      if (i > 0)
        g_string_append (s, i + 1 == call->n_inputs ? _(" and ") : ", ");
      g_string_append (s, shape);
    }

  return g_string_free (s, FALSE);
}

/* NumPy broadcasting of every input's shape into @out (contiguous). */
gboolean
ep_op_broadcast (EpOpCall  *call,
                 EpLayout  *out,
                 GError   **error)
{
  guint ndim = 0;

  for (guint i = 0; i < call->n_inputs; i++)
    ndim = MAX (ndim, call->inputs[i]->layout.ndim);

  out->ndim = ndim;
  for (guint d = 0; d < ndim; d++)
    out->shape[d] = 1;

  for (guint i = 0; i < call->n_inputs; i++)
    {
      const EpLayout *in = &call->inputs[i]->layout;
      guint lead = ndim - in->ndim;

      for (guint d = 0; d < in->ndim; d++)
        {
          gint64 have = out->shape[lead + d];
          gint64 dim = in->shape[d];

          if (dim == have || dim == 1)
            continue;
          if (have == 1)
            {
              out->shape[lead + d] = dim;
              continue;
            }

          {
            g_autofree char *shapes = input_shapes_to_string (call);

            g_set_error (error, EP_ERROR, EP_ERROR_SHAPE,
                         _("%s: shapes %s cannot be broadcast together"),
                         call->op->name, shapes);
          }
          return FALSE;
        }
    }

  ep_layout_set_contiguous (out);
  return TRUE;
}

static guint
dtype_kind (EpDType dtype)
{
  return ep_dtype_is_floating (dtype) ? 2 : ep_dtype_is_integer (dtype) ? 1 : 0;
}

/* NumPy's promotion with weak scalars: a weak scalar only matters when
 * it is of a higher kind (bool < integer < float) than every strong
 * input, and then gives the default type of its kind (int64, float64). */
EpDType
ep_op_result_dtype (EpTensor *const *inputs,
                    guint            n_inputs)
{
  gboolean have_strong = FALSE;
  EpDType strong = EP_DTYPE_BOOL;
  EpDType weak = EP_DTYPE_BOOL;

  for (guint i = 0; i < n_inputs; i++)
    {
      EpDType dtype = inputs[i]->layout.dtype;

      if (inputs[i]->weak)
        weak = ep_dtype_promote (weak, dtype);
      else
        {
          strong = have_strong ? ep_dtype_promote (strong, dtype) : dtype;
          have_strong = TRUE;
        }
    }

  if (!have_strong)
    return weak;
  if (dtype_kind (weak) <= dtype_kind (strong))
    return strong;

  return weak;
}

void
ep_op_cast_all_inputs (EpOpCall *call,
                       EpDType   dtype)
{
  for (guint i = 0; i < call->n_inputs; i++)
    call->input_dtypes[i] = dtype;
}

gboolean
ep_op_error_dtype (const EpOpCall  *call,
                   EpDType          dtype,
                   GError         **error)
{
  g_set_error (error, EP_ERROR, EP_ERROR_DTYPE,
               _("%s: not defined for %s tensors"),
               call->op->name, ep_dtype_get_name (dtype));
  return FALSE;
}

void
ep_op_set_output (EpOpCall     *call,
                  EpDType       dtype,
                  const gint64 *shape,
                  guint         ndim)
{
  EpLayout *out = &call->output_layouts[0];

  out->dtype = dtype;
  out->ndim = ndim;
  if (ndim > 0)
    memmove (out->shape, shape, ndim * sizeof (gint64));
  ep_layout_set_contiguous (out);
  call->n_outputs = 1;
}

/* The outputs of a public function of several results (topk, qr, svd,
 * batch_norm, ...), each given to its return location or dropped where
 * the caller passed NULL. */
void
ep_op_give_outputs (EpTensor  **outputs,
                    guint       n_outputs,
                    EpTensor ***locations)
{
  for (guint o = 0; o < n_outputs; o++)
    if (locations[o] != NULL)
      *locations[o] = outputs[o];
    else
      g_object_unref (outputs[o]);
}

/* The elements of input @i in C order, read from its device (no copy for
 * contiguous data on the CPU). Only for ops flagged
 * EP_OP_FLAG_READS_DATA: the rule then depends on values, not only on
 * layouts. The input has not been cast yet: it has its own dtype. */
GBytes *
ep_op_read_input (const EpOpCall  *call,
                  guint            i,
                  GError         **error)
{
  g_return_val_if_fail (call->op->flags & EP_OP_FLAG_READS_DATA, NULL);
  g_return_val_if_fail (i < call->n_inputs, NULL);

  return ep_tensor_to_bytes (call->inputs[i], error);
}
