/* ops/join.c: concatenate, stack, split, tile, pad, meshgrid, roll, repeat,
 * roll_axes, repeat_counts
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <glib/gi18n-lib.h>
#include <inttypes.h>
#include <string.h>

#include "ep-autodiff-private.h"
#include "ep-creation-private.h"
#include "ep-dispatch-private.h"
#include "ep-error.h"
#include "ep-error-private.h"
#include "ep-fault-private.h"
#include "ep-grad-private.h"
#include "ep-enum-types.h"
#include "ep-join.h"
#include "ep-shape-private.h"

/* a * b for extents, saturating: a shape too large to allocate is then
 * reported by the allocation, not wrapped */
static gint64
mul_extent (gint64 a,
            gint64 b)
{
  if (a != 0 && b > G_MAXINT64 / a)
    return G_MAXINT64;
  return a * b;
}

static gint64
add_extent (gint64 a,
            gint64 b)
{
  return a > G_MAXINT64 - b ? G_MAXINT64 : a + b;
}


static gboolean
concatenate_infer (EpOpCall  *call,
                   GError   **error)
{
  const EpLayout *first;
  gint64 shape[EP_MAX_DIMS];
  gint axis;
  EpDType dtype;

  /* (a graph file's node may have no inputs) */
  if (call->n_inputs == 0)
    {
      g_set_error (error, EP_ERROR, EP_ERROR_INVALID_ARGUMENT,
                   _("concatenate: needs at least one tensor"));
      return FALSE;
    }
  first = &call->inputs[0]->layout;
  if (first->ndim == 0)
    {
      g_set_error (error, EP_ERROR, EP_ERROR_SHAPE,
                   _("concatenate: 0-d tensors cannot be concatenated (use stack)"));
      return FALSE;
    }
  if (!ep_op_normalize_axis (call, call->attrs.axes[0], first->ndim, &axis, error))
    return FALSE;
  ep_op_attrs_set_axis (&call->attrs, axis);

  memcpy (shape, first->shape, first->ndim * sizeof (gint64));
  shape[axis] = 0;
  for (guint i = 0; i < call->n_inputs; i++)
    {
      const EpLayout *in = &call->inputs[i]->layout;
      gboolean fits = in->ndim == first->ndim;

      for (guint d = 0; fits && d < in->ndim; d++)
        fits = (gint) d == axis || in->shape[d] == first->shape[d];

      if (!fits)
        {
          g_autofree char *a = ep_shape_to_string (first->shape, first->ndim);
          g_autofree char *b = ep_shape_to_string (in->shape, in->ndim);

          g_set_error (error, EP_ERROR, EP_ERROR_SHAPE,
                       _("concatenate: tensor %u has shape %s, which does not match %s except along axis %d"),
                       i, b, a, axis);
          return FALSE;
        }
      shape[axis] = add_extent (shape[axis], in->shape[axis]);
    }

  dtype = ep_op_result_dtype (call->inputs, call->n_inputs);
  ep_op_cast_all_inputs (call, dtype);
  ep_op_set_output (call, dtype, shape, first->ndim);
  return TRUE;
}

static gboolean
concatenate_gradient (const EpOpCall  *call,
                      EpTensor *const *output_grads,
                      EpTensor       **input_grads,
                      GError         **error)
{
  gint axis = call->attrs.axes[0];
  gint64 starts[EP_MAX_DIMS] = { 0 };
  gint64 stops[EP_MAX_DIMS];
  gint64 offset = 0;

  for (gint d = 0; d < axis; d++)
    stops[d] = G_MAXINT64;

  for (guint i = 0; i < call->n_inputs; i++)
    {
      gint64 extent = call->inputs[i]->layout.shape[axis];

      starts[axis] = offset;
      stops[axis] = offset + extent;
      offset += extent;
      input_grads[i] = ep_tensor_slice (output_grads[0], starts, axis + 1, stops, axis + 1,
                                        NULL, 0, error);
      if (input_grads[i] == NULL)
        return FALSE;
    }

  return TRUE;
}

const EpOpDef ep_op_concatenate = {
  .id = EP_OP_CONCATENATE, .name = "concatenate",
  .flags = EP_OP_FLAG_UINT8,
  EP_INPUTS (EP_INPUT_LIST ("tensors")),
  EP_ATTRS (EP_ATTR_AXIS_ARG (EP_DEFAULT (0), .flags = EP_ATTR_NULLABLE)),
  .infer = concatenate_infer,
  .gradient = concatenate_gradient,
};

/* tile: the rule makes the repetitions as long as the output's rank
 * (ones in front) */

static gboolean
tile_infer (EpOpCall  *call,
            GError   **error)
{
  const EpLayout *in = &call->inputs[0]->layout;
  EpOpAttrs *attrs = &call->attrs;
  gint64 reps[EP_MAX_DIMS] = { 0 }, shape[EP_MAX_DIMS] = { 0 };
  guint ndim;

  ndim = MAX (in->ndim, attrs->tile.n_reps);
  for (guint d = 0; d < ndim; d++)
    {
      guint rd = d + attrs->tile.n_reps - ndim;   /* wraps below 0: no rep */
      guint id = d + in->ndim - ndim;
      gint64 rep = d + attrs->tile.n_reps >= ndim ? attrs->tile.reps[rd] : 1;
      gint64 extent = d + in->ndim >= ndim ? in->shape[id] : 1;

      if (rep < 0)
        {
          g_set_error (error, EP_ERROR, EP_ERROR_INVALID_ARGUMENT,
                       _("tile: negative repetition count %" PRId64 " for axis %u"),
                       rep, d);
          return FALSE;
        }
      reps[d] = rep;
      shape[d] = mul_extent (extent, rep);
    }

  if (!ep_layout_init (&call->output_layouts[0], in->dtype, shape, ndim, "tile", error))
    return FALSE;
  call->n_outputs = 1;
  attrs->tile.n_reps = ndim;
  if (ndim > 0)
    memcpy (attrs->tile.reps, reps, ndim * sizeof (gint64));

  return TRUE;
}

/* Adds up the tiles: along each repeated axis, a reshape that splits it
 * into (repetitions, extent) and a sum over the repetitions, or a
 * scatter when the extra axis does not fit. */
static gboolean
tile_gradient (const EpOpCall  *call,
               EpTensor *const *output_grads,
               EpTensor       **input_grads,
               GError         **error)
{
  const EpLayout *in = &call->inputs[0]->layout;
  const EpLayout *out = &call->outputs[0]->layout;
  const gint64 *reps = call->attrs.tile.reps;
  guint ndim = out->ndim, lead = out->ndim - in->ndim;
  g_autoptr(EpTensor) grad = g_object_ref (output_grads[0]);
  gint64 shape[EP_MAX_DIMS + 1];

  if (ep_layout_get_size (out) == 0)
    {
      input_grads[0] = ep_grad_zeros (output_grads[0], in->shape, in->ndim, error);
      return input_grads[0] != NULL;
    }

  for (guint d = 0; d < ndim; d++)
    {
      gint64 extent = d >= lead ? in->shape[d - lead] : 1;
      EpTensor *reduced;

      if (reps[d] == 1)
        continue;

      if (ndim < EP_MAX_DIMS)
        {
          g_autoptr(EpTensor) split = NULL;
          gint axis = d;

          memcpy (shape, grad->layout.shape, ndim * sizeof (gint64));
          memmove (shape + d + 1, shape + d, (ndim - d) * sizeof (gint64));
          shape[d] = reps[d];
          shape[d + 1] = extent;
          split = ep_tensor_reshape (grad, shape, ndim + 1, error);
          reduced = split != NULL ? ep_tensor_sum (split, &axis, 1, FALSE, error) : NULL;
        }
      else
        {
          g_autofree gint64 *positions = ep_try_new (gint64, out->shape[d]);
          g_autoptr(EpTensor) indices = NULL;
          g_autoptr(EpTensor) zeros = NULL;

          if (positions == NULL)
            {
              g_set_error (error, EP_ERROR, EP_ERROR_OUT_OF_MEMORY,
                           _("tile: cannot allocate the gradient's indices"));
              return FALSE;
            }
          for (gint64 o = 0; o < out->shape[d]; o++)
            positions[o] = o % extent;
          memcpy (shape, grad->layout.shape, ndim * sizeof (gint64));
          shape[d] = extent;
          indices = ep_grad_int64 (grad, positions, &out->shape[d], 1, error);
          zeros = indices != NULL ? ep_grad_zeros (grad, shape, ndim, error) : NULL;
          reduced = zeros != NULL ? ep_tensor_scatter_add (zeros, indices, grad, d, error) : NULL;
        }

      if (reduced == NULL)
        return FALSE;
      g_object_unref (grad);
      grad = reduced;
    }

  input_grads[0] = ep_tensor_reshape (grad, in->shape, in->ndim, error);
  return input_grads[0] != NULL;
}

const EpOpDef ep_op_tile = {
  .id = EP_OP_TILE, .name = "tile",
  .flags = EP_OP_FLAG_UINT8,
  EP_INPUTS (EP_INPUT ("self")),
  EP_ATTRS (EP_ATTR ("reps", EP_ATTR_INTS, EP_LIST_FIELD (tile.reps, tile.n_reps))),
  .infer = tile_infer,
  .gradient = tile_gradient,
};


static gboolean
pad_infer (EpOpCall  *call,
           GError   **error)
{
  const EpLayout *in = &call->inputs[0]->layout;
  const EpOpAttrs *attrs = &call->attrs;
  gint64 shape[EP_MAX_DIMS];
  EpPadMode mode = attrs->pad.mode;

  if (attrs->pad.n_paddings != 2 * in->ndim)
    {
      g_set_error (error, EP_ERROR, EP_ERROR_SHAPE,
                   g_dngettext (GETTEXT_PACKAGE,
                                "pad: a tensor of %u dimension takes %u paddings (before and after each axis), %u given",
                                "pad: a tensor of %u dimensions takes %u paddings (before and after each axis), %u given",
                                in->ndim),
                   in->ndim, 2 * in->ndim, attrs->pad.n_paddings);
      return FALSE;
    }

  for (guint d = 0; d < in->ndim; d++)
    {
      gint64 before = attrs->pad.paddings[2 * d], after = attrs->pad.paddings[2 * d + 1];

      if (before < 0 || after < 0)
        {
          g_set_error (error, EP_ERROR, EP_ERROR_INVALID_ARGUMENT,
                       _("pad: negative padding (%" PRId64 ", %" PRId64 ") for axis %u"),
                       before, after, d);
          return FALSE;
        }
      if (mode == EP_PAD_REFLECT && in->shape[d] == 0 && (before > 0 || after > 0))
        {
          g_set_error (error, EP_ERROR, EP_ERROR_INVALID_ARGUMENT,
                       _("pad: cannot reflect the empty axis %u"), d);
          return FALSE;
        }
      shape[d] = add_extent (add_extent (in->shape[d], before), after);
    }

  if (!ep_layout_init (&call->output_layouts[0], in->dtype, shape, in->ndim, "pad", error))
    return FALSE;
  call->n_outputs = 1;
  return TRUE;
}

/* Where output index @o of a padded axis reads from: NumPy's "reflect"
 * is the periodic extension of x[0] … x[n-1] … x[1]. -1 for the
 * constant. Shared with the CPU kernel. */
gint64
ep_pad_source_index (gint64    o,
                     gint64    before,
                     gint64    extent,
                     EpPadMode mode)
{
  gint64 i = o - before;   /* no overflow: both are extents */

  if (i >= 0 && i < extent)
    return i;
  if (mode == EP_PAD_CONSTANT)
    return -1;
  if (extent == 1)
    return 0;

  {
    gint64 period = 2 * (extent - 1);

    i %= period;
    if (i < 0)
      i += period;
    return i < extent ? i : period - i;
  }
}

static gboolean
pad_gradient (const EpOpCall  *call,
              EpTensor *const *output_grads,
              EpTensor       **input_grads,
              GError         **error)
{
  const EpLayout *in = &call->inputs[0]->layout;
  const EpLayout *out = &call->outputs[0]->layout;
  const gint64 *pads = call->attrs.pad.paddings;
  guint ndim = in->ndim;
  g_autoptr(EpTensor) grad = g_object_ref (output_grads[0]);
  gint64 shape[EP_MAX_DIMS];

  if (call->attrs.pad.mode == EP_PAD_CONSTANT)
    {
      gint64 starts[EP_MAX_DIMS], stops[EP_MAX_DIMS];

      for (guint d = 0; d < ndim; d++)
        {
          starts[d] = pads[2 * d];
          stops[d] = pads[2 * d] + in->shape[d];
        }
      input_grads[0] = ep_tensor_slice (grad, starts, ndim, stops, ndim, NULL, 0, error);
      return input_grads[0] != NULL;
    }

  /* reflect: along each axis the pad is a take, so its gradient is a
   * scatter_add of the same indices */
  if (ndim > 0)
    memcpy (shape, out->shape, ndim * sizeof (gint64));
  for (guint d = 0; d < ndim; d++)
    {
      g_autofree gint64 *positions = NULL;
      g_autoptr(EpTensor) indices = NULL;
      g_autoptr(EpTensor) zeros = NULL;
      EpTensor *scattered;

      if (pads[2 * d] == 0 && pads[2 * d + 1] == 0)
        continue;

      positions = ep_try_new (gint64, out->shape[d]);
      if (positions == NULL)
        {
          g_set_error (error, EP_ERROR, EP_ERROR_OUT_OF_MEMORY,
                       _("pad: cannot allocate the gradient's indices"));
          return FALSE;
        }
      for (gint64 o = 0; o < out->shape[d]; o++)
        positions[o] = ep_pad_source_index (o, pads[2 * d], in->shape[d], EP_PAD_REFLECT);

      shape[d] = in->shape[d];
      indices = ep_grad_int64 (grad, positions, &out->shape[d], 1, error);
      zeros = indices != NULL ? ep_grad_zeros (grad, shape, ndim, error) : NULL;
      scattered = zeros != NULL ? ep_tensor_scatter_add (zeros, indices, grad, d, error) : NULL;
      if (scattered == NULL)
        return FALSE;
      g_object_unref (grad);
      grad = scattered;
    }

  input_grads[0] = g_steal_pointer (&grad);
  return TRUE;
}

const EpOpDef ep_op_pad = {
  .id = EP_OP_PAD, .name = "pad",
  .flags = EP_OP_FLAG_UINT8,
  EP_INPUTS (EP_INPUT ("self")),
  EP_ATTRS (EP_ATTR ("paddings", EP_ATTR_INTS, EP_LIST_FIELD (pad.paddings, pad.n_paddings)),
            EP_ATTR ("mode", EP_ATTR_ENUM, EP_FIELD (pad.mode), EP_DEFAULT (EP_PAD_CONSTANT),
                     .enum_type = ep_pad_mode_get_type),
            EP_ATTR ("value", EP_ATTR_FLOAT, EP_FIELD (pad.value), EP_DEFAULT (0))),
  .infer = pad_infer,
  .gradient = pad_gradient,
};

/* Public functions */

/**
 * ep_concatenate:
 * @tensors: (array length=n_tensors): the tensors to join, at least one
 * @n_tensors: the number of tensors
 * @axis: the axis to join along, or %EP_AXIS_NONE to join the flattened
 *   tensors
 * @error: return location for an error
 *
 * Joins tensors along an existing axis, as NumPy's `concatenate`: they
 * must have the same shape except along @axis, and their types promote
 * to a common one.
 *
 * Returns: (transfer full): the joined tensor, or %NULL with
 *   %EP_ERROR_SHAPE set if the shapes do not fit together (or a tensor is
 *   0-d), %EP_ERROR_AXIS if @axis is out of range, or
 *   %EP_ERROR_INVALID_ARGUMENT if @tensors is empty
 */
EpTensor *
ep_concatenate (EpTensor **tensors,
                guint      n_tensors,
                gint       axis,
                GError   **error)
{
  g_return_val_if_fail (tensors != NULL || n_tensors == 0, NULL);
  for (guint i = 0; i < n_tensors; i++)
    g_return_val_if_fail (EP_IS_TENSOR (tensors[i]), NULL);

  return ep_dispatch_axis_or_flat (&ep_op_concatenate, tensors, n_tensors, n_tensors, axis, error);
}

const EpOpDef ep_func_stack = {
  .id = EP_N_OPS, .name = "stack",
  EP_INPUTS (EP_INPUT_LIST ("tensors")),
  EP_ATTRS (EP_ATTR_AXIS_ARG (EP_DEFAULT (0))),
};

/**
 * ep_stack:
 * @tensors: (array length=n_tensors): the tensors to stack, at least one,
 *   all of the same shape
 * @n_tensors: the number of tensors
 * @axis: where the new axis goes in the result, in `[-ndim - 1, ndim]`
 * @error: return location for an error
 *
 * Joins tensors of the same shape along a new axis, as NumPy's `stack`.
 *
 * Returns: (transfer full): the stacked tensor, or %NULL with
 *   %EP_ERROR_SHAPE set if the shapes differ, %EP_ERROR_AXIS if @axis is
 *   out of range, or %EP_ERROR_INVALID_ARGUMENT if @tensors is empty
 */
EpTensor *
ep_stack (EpTensor **tensors,
          guint      n_tensors,
          gint       axis,
          GError   **error)
{
  g_autoptr(GPtrArray) expanded = NULL;
  const EpLayout *first;

  g_return_val_if_fail (tensors != NULL || n_tensors == 0, NULL);
  for (guint i = 0; i < n_tensors; i++)
    g_return_val_if_fail (EP_IS_TENSOR (tensors[i]), NULL);

  if (n_tensors == 0)
    {
      g_set_error (error, EP_ERROR, EP_ERROR_INVALID_ARGUMENT,
                   _("stack: needs at least one tensor"));
      return NULL;
    }

  first = &tensors[0]->layout;
  if (first->ndim >= EP_MAX_DIMS)
    {
      g_set_error (error, EP_ERROR, EP_ERROR_SHAPE,
                   _("stack: the result would have %u dimensions, at most %d are supported"),
                   first->ndim + 1, EP_MAX_DIMS);
      return NULL;
    }
  if (axis < -(gint) first->ndim - 1 || axis > (gint) first->ndim)
    {
      g_set_error (error, EP_ERROR, EP_ERROR_AXIS,
                   g_dngettext (GETTEXT_PACKAGE,
                                "stack: axis %d is out of range for a result of %u dimension",
                                "stack: axis %d is out of range for a result of %u dimensions",
                                first->ndim + 1),
                   axis, first->ndim + 1);
      return NULL;
    }

  for (guint i = 1; i < n_tensors; i++)
    {
      const EpLayout *in = &tensors[i]->layout;

      if (in->ndim != first->ndim
          || (in->ndim > 0 && memcmp (in->shape, first->shape, in->ndim * sizeof (gint64)) != 0))
        {
          g_autofree char *a = ep_shape_to_string (first->shape, first->ndim);
          g_autofree char *b = ep_shape_to_string (in->shape, in->ndim);

          g_set_error (error, EP_ERROR, EP_ERROR_SHAPE,
                       _("stack: tensor %u has shape %s, tensor 0 has %s; they must be equal"),
                       i, b, a);
          return NULL;
        }
    }

  expanded = g_ptr_array_new_full (n_tensors, g_object_unref);
  for (guint i = 0; i < n_tensors; i++)
    {
      EpTensor *view = ep_tensor_expand_dims (tensors[i], axis, error);

      if (view == NULL)
        return ep_error_named_result (NULL, error, "stack");
      g_ptr_array_add (expanded, view);
    }

  return ep_error_named_result (ep_concatenate ((EpTensor **) expanded->pdata, n_tensors, axis, error),
                                error, "stack");
}

/* The parts of @self between consecutive @bounds along @axis, as views */
static GPtrArray *
split_at_bounds (EpTensor      *self,
                 const gint64  *bounds,
                 guint          n_bounds,
                 gint           axis,
                 GError       **error)
{
  g_autoptr(GPtrArray) outputs = g_ptr_array_new_with_free_func (g_object_unref);
  gint64 starts[EP_MAX_DIMS] = { 0 }, stops[EP_MAX_DIMS];

  for (gint d = 0; d < axis; d++)
    stops[d] = G_MAXINT64;

  for (guint i = 0; i + 1 < n_bounds; i++)
    {
      EpTensor *part;

      starts[axis] = bounds[i];
      stops[axis] = bounds[i + 1];
      part = ep_tensor_slice (self, starts, axis + 1, stops, axis + 1, NULL, 0, error);
      if (part == NULL)
        return NULL;
      g_ptr_array_add (outputs, part);
    }

  return g_steal_pointer (&outputs);
}

static gboolean
split_axis (EpTensor  *self,
            gint      *axis,
            GError   **error)
{
  gint ndim = self->layout.ndim;

  if (*axis < -ndim || *axis >= ndim)
    {
      g_set_error (error, EP_ERROR, EP_ERROR_AXIS,
                   g_dngettext (GETTEXT_PACKAGE,
                                "split: axis %d is out of range for a tensor of %d dimension",
                                "split: axis %d is out of range for a tensor of %d dimensions",
                                (gulong) ndim),
                   *axis, ndim);
      return FALSE;
    }
  if (*axis < 0)
    *axis += ndim;

  return TRUE;
}

const EpOpDef ep_func_split = {
  .id = EP_N_OPS, .name = "split",
  EP_INPUTS (EP_INPUT ("self")),
  EP_ATTRS (EP_ATTR ("sections", EP_ATTR_INT, EP_NO_FIELD),
            EP_ATTR_AXIS_ARG (EP_DEFAULT (0))),
  EP_OUTPUT_LIST ("parts"),
};

const EpOpDef ep_func_split_at = {
  .id = EP_N_OPS, .name = "split_at",
  EP_INPUTS (EP_INPUT ("self")),
  EP_ATTRS (EP_ATTR ("indices", EP_ATTR_INTS, EP_NO_FIELD),
            EP_ATTR_AXIS_ARG (EP_DEFAULT (0))),
  EP_OUTPUT_LIST ("parts"),
};

/**
 * ep_tensor_split:
 * @self: a tensor
 * @sections: the number of equal parts, at least 1
 * @axis: the axis to split
 * @error: return location for an error
 *
 * Splits @self into @sections equal parts along @axis, as NumPy's
 * `split` with an integer. The parts are views.
 *
 * Returns: (transfer container) (element-type EpTensor): the @sections
 *   parts, in an array that owns them (unreffing it unrefs them), or
 *   %NULL with %EP_ERROR_SHAPE set if the extent of @axis is not a
 *   multiple of @sections, %EP_ERROR_AXIS if @axis is out of range, or
 *   %EP_ERROR_INVALID_ARGUMENT if @sections is not positive
 */
GPtrArray *
ep_tensor_split (EpTensor  *self,
                 gint64     sections,
                 gint       axis,
                 GError   **error)
{
  g_autofree gint64 *bounds = NULL;
  gint64 extent;

  g_return_val_if_fail (EP_IS_TENSOR (self), NULL);

  if (!split_axis (self, &axis, error))
    return NULL;
  extent = self->layout.shape[axis];

  if (sections <= 0 || sections > G_MAXUINT - 1)
    {
      g_set_error (error, EP_ERROR, EP_ERROR_INVALID_ARGUMENT,
                   _("split: the number of sections must be positive and fit a guint (got %" PRId64 ")"),
                   sections);
      return NULL;
    }
  if (extent % sections != 0)
    {
      g_set_error (error, EP_ERROR, EP_ERROR_SHAPE,
                   _("split: axis %d of extent %" PRId64 " does not split into %" PRId64 " equal sections"),
                   axis, extent, sections);
      return NULL;
    }

  bounds = ep_try_new (gint64, sections + 1);
  if (bounds == NULL)
    {
      g_set_error (error, EP_ERROR, EP_ERROR_OUT_OF_MEMORY,
                   _("split: cannot allocate %" PRId64 " sections"), sections);
      return NULL;
    }
  for (gint64 i = 0; i <= sections; i++)
    bounds[i] = i * (extent / sections);

  return ep_error_named_result (split_at_bounds (self, bounds, sections + 1, axis, error), error, "split");
}

/**
 * ep_tensor_split_at:
 * @self: a tensor
 * @indices: (array length=n_indices): where the parts start, as NumPy's
 *   `split` with a list: part `i` is `[indices[i-1]:indices[i]]` along
 *   @axis, with Python's slice bounds (negative ones count from the end,
 *   out-of-range ones clamp)
 * @n_indices: the number of indices; there are `n_indices + 1` parts
 * @axis: the axis to split
 * @error: return location for an error
 *
 * Splits @self along @axis at @indices. The parts are views.
 *
 * Returns: (transfer container) (element-type EpTensor): the
 *   `n_indices + 1` parts, in an array that owns them (unreffing it
 *   unrefs them), or %NULL with %EP_ERROR_AXIS set if @axis is out of
 *   range
 */
GPtrArray *
ep_tensor_split_at (EpTensor      *self,
                    const gint64  *indices,
                    guint          n_indices,
                    gint           axis,
                    GError       **error)
{
  g_autofree gint64 *bounds = NULL;

  g_return_val_if_fail (EP_IS_TENSOR (self), NULL);
  g_return_val_if_fail (indices != NULL || n_indices == 0, NULL);

  if (!split_axis (self, &axis, error))
    return NULL;

  bounds = g_new (gint64, (gsize) n_indices + 2);
  bounds[0] = 0;
  if (n_indices > 0)
    memcpy (bounds + 1, indices, n_indices * sizeof (gint64));
  bounds[n_indices + 1] = G_MAXINT64;

  return ep_error_named_result (split_at_bounds (self, bounds, n_indices + 2, axis, error), error, "split_at");
}

/**
 * ep_tensor_tile:
 * @self: a tensor
 * @reps: (array length=n_reps): how many times to repeat @self along each
 *   axis
 * @n_reps: the number of repetitions
 * @error: return location for an error
 *
 * Repeats @self as NumPy's `tile`: if @reps is shorter than the rank of
 * @self it is padded with ones in front; if it is longer, @self gets
 * leading axes of extent 1.
 *
 * Returns: (transfer full): the tiled tensor, or %NULL with
 *   %EP_ERROR_INVALID_ARGUMENT set for a negative repetition or
 *   %EP_ERROR_SHAPE if the result would have too many dimensions
 */
EpTensor *
ep_tensor_tile (EpTensor      *self,
                const gint64  *reps,
                guint          n_reps,
                GError       **error)
{
  EpOpAttrs attrs;

  g_return_val_if_fail (EP_IS_TENSOR (self), NULL);
  g_return_val_if_fail (reps != NULL || n_reps == 0, NULL);

  ep_op_attrs_init (&attrs);
  ep_op_attrs_set_list (attrs.tile.reps, attrs.tile.n_reps, reps, n_reps);

  return ep_dispatch1 (&ep_op_tile, &self, 1, &attrs, error);
}

/**
 * ep_tensor_pad:
 * @self: a tensor
 * @paddings: (array length=n_paddings): how many elements to add before
 *   and after each axis: `{ before0, after0, before1, after1, … }`
 * @n_paddings: the number of paddings, twice the rank of @self
 * @mode: how to fill the new elements
 * @value: the value of the new elements with %EP_PAD_CONSTANT
 * @error: return location for an error
 *
 * Pads @self as NumPy's `pad` in `"constant"` or `"reflect"` mode.
 * Reflection repeats as often as needed when a padding is longer than
 * the axis.
 *
 * Returns: (transfer full): the padded tensor, or %NULL with
 *   %EP_ERROR_SHAPE set if @n_paddings is not twice the rank, or
 *   %EP_ERROR_INVALID_ARGUMENT for a negative padding, an unknown @mode,
 *   or reflecting an empty axis
 */
EpTensor *
ep_tensor_pad (EpTensor      *self,
               const gint64  *paddings,
               guint          n_paddings,
               EpPadMode      mode,
               gdouble        value,
               GError       **error)
{
  EpOpAttrs attrs;

  g_return_val_if_fail (EP_IS_TENSOR (self), NULL);
  g_return_val_if_fail (paddings != NULL || n_paddings == 0, NULL);

  ep_op_attrs_init (&attrs);
  ep_op_attrs_set_list (attrs.pad.paddings, attrs.pad.n_paddings, paddings, n_paddings);
  attrs.pad.mode = mode;
  attrs.pad.value = value;

  return ep_dispatch1 (&ep_op_pad, &self, 1, &attrs, error);
}

const EpOpDef ep_func_meshgrid = {
  .id = EP_N_OPS, .name = "meshgrid",
  EP_INPUTS (EP_INPUT_LIST ("tensors")),
  EP_ATTRS (EP_ATTR ("indexing", EP_ATTR_ENUM, EP_NO_FIELD, EP_DEFAULT (EP_MESH_XY),
                     .enum_type = ep_mesh_indexing_get_type)),
  EP_OUTPUT_LIST ("grids"),
};

/**
 * ep_meshgrid:
 * @tensors: (array length=n_tensors): the coordinate vectors; tensors of
 *   other ranks are flattened
 * @n_tensors: the number of tensors, at most %EP_MAX_DIMS
 * @indexing: the order of the output dimensions
 * @error: return location for an error
 *
 * Coordinate grids as NumPy's `meshgrid`: output `i` repeats the values
 * of input `i` along every other axis. The outputs are broadcast views
 * (stride 0 along the repeated axes); each keeps its input's type.
 *
 * Returns: (transfer container) (element-type EpTensor): the
 *   @n_tensors grids, in an array that owns them (unreffing it unrefs
 *   them), or %NULL with %EP_ERROR_SHAPE set if there are more than
 *   %EP_MAX_DIMS tensors, or %EP_ERROR_INVALID_ARGUMENT for an unknown
 *   @indexing
 */
GPtrArray *
ep_meshgrid (EpTensor       **tensors,
             guint            n_tensors,
             EpMeshIndexing   indexing,
             GError         **error)
{
  g_autoptr(GPtrArray) outputs = NULL;
  gint64 shape[EP_MAX_DIMS];
  guint position[EP_MAX_DIMS];

  g_return_val_if_fail (tensors != NULL || n_tensors == 0, NULL);
  for (guint i = 0; i < n_tensors; i++)
    g_return_val_if_fail (EP_IS_TENSOR (tensors[i]), NULL);

  if (n_tensors > EP_MAX_DIMS)
    {
      g_set_error (error, EP_ERROR, EP_ERROR_SHAPE,
                   _("meshgrid: %u tensors give %u dimensions, at most %d are supported"),
                   n_tensors, n_tensors, EP_MAX_DIMS);
      return NULL;
    }
  if (indexing != EP_MESH_XY && indexing != EP_MESH_IJ)
    {
      g_set_error (error, EP_ERROR, EP_ERROR_INVALID_ARGUMENT,
                   _("meshgrid: unknown indexing %d"), indexing);
      return NULL;
    }

  for (guint i = 0; i < n_tensors; i++)
    position[i] = i;
  if (indexing == EP_MESH_XY && n_tensors >= 2)
    {
      position[0] = 1;
      position[1] = 0;
    }
  for (guint i = 0; i < n_tensors; i++)
    shape[position[i]] = ep_layout_get_size (&tensors[i]->layout);

  outputs = g_ptr_array_new_full (n_tensors, g_object_unref);
  for (guint i = 0; i < n_tensors; i++)
    {
      gint64 line[EP_MAX_DIMS];
      g_autoptr(EpTensor) column = NULL;
      EpTensor *grid;

      for (guint d = 0; d < n_tensors; d++)
        line[d] = d == position[i] ? shape[d] : 1;
      column = ep_tensor_reshape (tensors[i], line, n_tensors, error);
      grid = column != NULL ? ep_tensor_broadcast_to (column, shape, n_tensors, error) : NULL;
      if (grid == NULL)
        return ep_error_named_result (NULL, error, "meshgrid");
      g_ptr_array_add (outputs, grid);
    }

  return g_steal_pointer (&outputs);
}

/* roll and repeat: composites of slice, concatenate, broadcast_to and
 * reshape, whose rules give them both devices and their gradients */

const EpOpDef ep_func_roll = {
  .id = EP_N_OPS, .name = "roll",
  EP_INPUTS (EP_INPUT ("self")),
  EP_ATTRS (EP_ATTR ("shift", EP_ATTR_INT, EP_NO_FIELD),
            EP_ATTR_AXIS_ARG (.flags = EP_ATTR_NULLABLE)),
};

/* @self rolled along @axis (non-negative, in range) by @shift */
static EpTensor *
roll_along (EpTensor  *self,
            gint64     shift,
            gint       axis,
            GError   **error)
{
  gint64 extent = self->layout.shape[axis];
  gint64 cut, starts[EP_MAX_DIMS] = { 0 }, stops[EP_MAX_DIMS];
  g_autoptr(EpTensor) head = NULL, tail = NULL;
  EpTensor *parts[2];

  /* the element at i moves to (i + shift) mod extent: the last
   * shift elements come first */
  shift = extent == 0 ? 0 : shift % extent;
  if (shift < 0)
    shift += extent;
  cut = extent - shift;

  for (gint d = 0; d < axis; d++)
    stops[d] = G_MAXINT64;
  starts[axis] = cut;
  stops[axis] = G_MAXINT64;
  if ((tail = ep_tensor_slice (self, starts, axis + 1, stops, axis + 1, NULL, 0, error)) == NULL)
    return NULL;
  starts[axis] = 0;
  stops[axis] = cut;
  if ((head = ep_tensor_slice (self, starts, axis + 1, stops, axis + 1, NULL, 0, error)) == NULL)
    return NULL;

  parts[0] = tail;
  parts[1] = head;
  return ep_concatenate (parts, 2, axis, error);
}

/**
 * ep_tensor_roll:
 * @self: a tensor
 * @shift: how many places to move the elements; negative values move
 *   them back. Any value: it counts modulo the extent.
 * @axis: the axis to roll along, or %EP_AXIS_NONE to roll the flattened
 *   tensor (the result keeps the shape of @self)
 * @error: return location for an error
 *
 * Rolls @self as NumPy's `roll` with one shift: the element at index i
 * along @axis moves to index `(i + shift) mod n`, the elements past the
 * end come back at the start. The result is a new tensor, made of two
 * slices and a concatenation, so that it runs on every device and has
 * their gradient.
 *
 * Returns: (transfer full): the rolled tensor, or %NULL with
 *   %EP_ERROR_AXIS set if @axis is out of range
 */
EpTensor *
ep_tensor_roll (EpTensor  *self,
                gint64     shift,
                gint       axis,
                GError   **error)
{
  const EpLayout *in;
  g_autoptr(EpTensor) flat = NULL, rolled = NULL;

  g_return_val_if_fail (EP_IS_TENSOR (self), NULL);

  in = &self->layout;
  if (axis != EP_AXIS_NONE)
    {
      if (!ep_func_normalize_axis (&ep_func_roll, axis, in->ndim, &axis, error))
        return NULL;
      return ep_error_named_result (roll_along (self, shift, axis, error), error, "roll");
    }

  if ((flat = ep_tensor_flatten (self, 0, -1, error)) == NULL
      || (rolled = roll_along (flat, shift, 0, error)) == NULL)
    return ep_error_named_result (NULL, error, "roll");

  return ep_error_named_result (ep_tensor_reshape (rolled, in->shape, in->ndim, error), error, "roll");
}

const EpOpDef ep_func_repeat = {
  .id = EP_N_OPS, .name = "repeat",
  EP_INPUTS (EP_INPUT ("self")),
  EP_ATTRS (EP_ATTR ("repeats", EP_ATTR_INT, EP_NO_FIELD),
            EP_ATTR_AXIS_ARG (.flags = EP_ATTR_NULLABLE)),
};

/* @x (of fewer than EP_MAX_DIMS axes) broadcast from (…, n, 1, …) to
 * (…, n, repeats, …) after @axis: a view, each element @repeats times */
static EpTensor *
repeat_middle (EpTensor  *x,
               gint       axis,
               gint64     repeats,
               GError   **error)
{
  guint ndim = x->layout.ndim;
  gint64 shape[EP_MAX_DIMS];
  g_autoptr(EpTensor) expanded = NULL;

  if ((expanded = ep_tensor_expand_dims (x, axis + 1, error)) == NULL)
    return NULL;
  memcpy (shape, expanded->layout.shape, (ndim + 1) * sizeof (gint64));
  shape[axis + 1] = repeats;
  return ep_tensor_broadcast_to (expanded, shape, ndim + 1, error);
}

/**
 * ep_tensor_repeat:
 * @self: a tensor
 * @repeats: how many times each element is repeated, 0 or more
 * @axis: the axis to repeat along, or %EP_AXIS_NONE to repeat the
 *   elements of the flattened tensor (the result is then 1-dimensional)
 * @error: return location for an error
 *
 * Repeats each element of @self @repeats times, one after the other, as
 * NumPy's `repeat` with an integer count: `[1, 2]` repeated twice is
 * `[1, 1, 2, 2]` (where [method@Tensor.tile] gives `[1, 2, 1, 2]`). The
 * result is a broadcast of @self along a new axis, merged with @axis, so
 * that it runs on every device and has their gradient (the sum of each
 * element's copies).
 *
 * Returns: (transfer full): the repeated tensor, or %NULL with
 *   %EP_ERROR_INVALID_ARGUMENT set if @repeats is negative,
 *   %EP_ERROR_AXIS if @axis is out of range, or
 *   %EP_ERROR_OUT_OF_MEMORY if the result is too large
 */
EpTensor *
ep_tensor_repeat (EpTensor  *self,
                  gint64     repeats,
                  gint       axis,
                  GError   **error)
{
  g_autoptr(EpTensor) x = NULL, broadcast = NULL;
  gint64 shape[EP_MAX_DIMS];
  EpLayout result;
  guint ndim;

  g_return_val_if_fail (EP_IS_TENSOR (self), NULL);

  if (repeats < 0)
    {
      g_set_error (error, EP_ERROR, EP_ERROR_INVALID_ARGUMENT,
                   _("repeat: the number of repeats must not be negative (got %" PRId64 ")"),
                   repeats);
      return NULL;
    }
  if (axis == EP_AXIS_NONE)
    {
      if ((x = ep_tensor_flatten (self, 0, -1, error)) == NULL)
        return ep_error_named_result (NULL, error, "repeat");
      axis = 0;
    }
  else
    {
      if (!ep_func_normalize_axis (&ep_func_repeat, axis, self->layout.ndim, &axis, error))
        return NULL;
      x = g_object_ref (self);
    }
  ndim = x->layout.ndim;
  memcpy (shape, x->layout.shape, ndim * sizeof (gint64));
  /* a result too large to address, refused here: reshape cannot count
   * the elements of a broadcast view past G_MAXINT64 */
  if (shape[axis] != 0 && repeats > G_MAXINT64 / shape[axis])
    {
      g_set_error (error, EP_ERROR, EP_ERROR_OUT_OF_MEMORY,
                   _("repeat: an axis of %" PRId64 " elements repeated %" PRId64 " times is longer than can be addressed"),
                   shape[axis], repeats);
      return NULL;
    }
  shape[axis] *= repeats;
  if (!ep_layout_init (&result, x->layout.dtype, shape, ndim, "repeat", error))
    return NULL;
  if (ndim == EP_MAX_DIMS)
    {
      /* no room for the new axis: repeat along the middle axis of
       * (before, n, after) */
      gint64 merged[3] = { 1, x->layout.shape[axis], 1 };
      EpTensor *middle;

      for (gint d = 0; d < axis; d++)
        merged[0] = mul_extent (merged[0], x->layout.shape[d]);
      for (guint d = axis + 1; d < ndim; d++)
        merged[2] = mul_extent (merged[2], x->layout.shape[d]);
      if ((middle = ep_tensor_reshape (x, merged, 3, error)) == NULL)
        return ep_error_named_result (NULL, error, "repeat");
      g_object_unref (x);
      x = middle;
      if ((broadcast = repeat_middle (x, 1, repeats, error)) == NULL)
        return ep_error_named_result (NULL, error, "repeat");
    }
  else if ((broadcast = repeat_middle (x, axis, repeats, error)) == NULL)
    return ep_error_named_result (NULL, error, "repeat");

  return ep_error_named_result (ep_tensor_reshape (broadcast, shape, ndim, error), error, "repeat");
}

/* roll_axes and repeat_counts (issue 17, ops): NumPy's roll with tuples
 * of shifts and axes, and repeat with a count per element; Python's
 * Tensor.roll and Tensor.repeat pick them or the one-number forms above */

const EpOpDef ep_func_roll_axes = {
  .id = EP_N_OPS, .name = "roll_axes",
  EP_INPUTS (EP_INPUT ("self")),
  EP_ATTRS (EP_ATTR ("shifts", EP_ATTR_INTS, EP_NO_FIELD),
            EP_ATTR_AXES_ARG),
};

/**
 * ep_tensor_roll_axes:
 * @self: a tensor
 * @shifts: (array length=n_shifts): the shifts, one per axis of @axes,
 *   or one for all of them
 * @n_shifts: the number of shifts
 * @axes: (array length=n_axes) (nullable): the axes to roll along (an
 *   axis may come twice: its shifts add up), or %NULL to roll the
 *   flattened tensor by the sum of @shifts
 * @n_axes: the number of axes
 * @error: return location for an error
 *
 * NumPy's `roll` with tuples: @self rolled by `shifts[i]` along
 * `axes[i]` for each i, a shift or an axis given once standing for all
 * (as NumPy broadcasts them). Each axis is rolled once by the sum of
 * its shifts (modulo its extent) with [method@Tensor.roll], so the
 * result runs on every device and has their gradient.
 *
 * Returns: (transfer full): the rolled tensor, or %NULL with
 *   %EP_ERROR_AXIS set if an axis is out of range, or
 *   %EP_ERROR_INVALID_ARGUMENT if there are several shifts and several
 *   axes, in different numbers
 */
EpTensor *
ep_tensor_roll_axes (EpTensor      *self,
                     const gint64  *shifts,
                     guint          n_shifts,
                     const gint    *axes,
                     guint          n_axes,
                     GError       **error)
{
  const EpLayout *in;
  gint64 total[EP_MAX_DIMS] = { 0 };
  gboolean rolled[EP_MAX_DIMS] = { FALSE };
  g_autoptr(EpTensor) result = NULL;
  guint n;

  g_return_val_if_fail (EP_IS_TENSOR (self), NULL);
  g_return_val_if_fail (shifts != NULL || n_shifts == 0, NULL);

  in = &self->layout;
  if (axes == NULL || n_axes == 0)
    {
      /* the flattened tensor: the shifts add up, modulo its size */
      gint64 size = ep_layout_get_size (in), sum = 0;

      for (guint i = 0; i < n_shifts; i++)
        sum = size == 0 ? 0 : (gint64) (((guint64) sum + (guint64) (shifts[i] % size)) % (guint64) size);
      return ep_error_named_result (ep_tensor_roll (self, sum, EP_AXIS_NONE, error), error, "roll");
    }
  if (n_shifts != n_axes && n_shifts > 1 && n_axes > 1)
    {
      g_set_error (error, EP_ERROR, EP_ERROR_INVALID_ARGUMENT,
                   _("roll: %u shifts do not go with %u axes"), n_shifts, n_axes);
      return NULL;
    }

  n = MAX (n_shifts, n_axes);
  for (guint i = 0; i < n_axes; i++)
    {
      gint axis;

      if (!ep_func_normalize_axis (&ep_func_roll, axes[i], in->ndim, &axis, error))
        return NULL;
      rolled[axis] = TRUE;
    }
  for (guint i = 0; n_shifts > 0 && i < n; i++)
    {
      gint axis;
      gint64 extent, shift = shifts[n_shifts == 1 ? 0 : i];

      ep_func_normalize_axis (&ep_func_roll, axes[n_axes == 1 ? 0 : i], in->ndim, &axis, NULL);
      extent = in->shape[axis];
      /* shifts modulo the extent, added without overflow */
      if (extent > 0)
        total[axis] = (gint64) (((guint64) total[axis] + (guint64) ((shift % extent) + extent)) % (guint64) extent);
    }

  result = ep_identity (self, error);
  for (guint d = 0; result != NULL && d < in->ndim; d++)
    if (rolled[d] && total[d] != 0)
      {
        EpTensor *next = ep_tensor_roll (result, total[d], (gint) d, error);

        g_object_unref (result);
        result = next;
      }

  return ep_error_named_result (g_steal_pointer (&result), error, "roll");
}

const EpOpDef ep_func_repeat_counts = {
  .id = EP_N_OPS, .name = "repeat_counts",
  EP_INPUTS (EP_INPUT ("self"), EP_INPUT_OF ("repeats", EP_INPUT_INTEGER)),
  EP_ATTRS (EP_ATTR_AXIS_ARG (.flags = EP_ATTR_NULLABLE)),
};

/* The (n, W) grid of which copies exist: copy j of element i where
 * j < counts[i], W the largest count plus one. W depends on the values:
 * it is the length of bincount (counts), and the positions 0 … W - 1
 * come from it by ops, so that a staged call follows new counts. */
static EpTensor *
copies_grid (EpTensor  *counts,
             GError   **error)
{
  const gint64 column[2] = { -1, 1 };
  g_autoptr(EpTensor) ones = NULL, widths = NULL, every = NULL, running = NULL, positions = NULL;
  g_autoptr(EpTensor) row = NULL, tall = NULL;

  if ((ones = ep_full_on (counts->storage->device, counts->layout.shape, 1, ep_number_from_int64 (1),
                          EP_DTYPE_INT64, error)) == NULL
      || (widths = ep_tensor_bincount (counts, ones, 1, error)) == NULL
      || (every = ep_tensor_greater_equal_scalar (widths, 0, error)) == NULL
      || (running = ep_tensor_cumsum (every, 0, error)) == NULL
      || (positions = ep_tensor_sub_scalar (running, 1, error)) == NULL
      || (row = ep_tensor_expand_dims (positions, 0, error)) == NULL
      || (tall = ep_tensor_reshape (counts, column, 2, error)) == NULL)
    return NULL;
  return ep_tensor_less (row, tall, error);
}

/**
 * ep_tensor_repeat_counts:
 * @self: a tensor of fewer than 8 dimensions
 * @repeats: how many times each element is repeated: an integer tensor
 *   of one element (the same for all) or one per element along @axis,
 *   each 0 or more
 * @axis: the axis to repeat along, or %EP_AXIS_NONE to repeat the
 *   elements of the flattened tensor (the result is then 1-dimensional)
 * @error: return location for an error
 *
 * NumPy's `repeat` with a count per element: `[1, 2]` repeated `[3, 1]`
 * times is `[1, 1, 1, 2]`. The length of the result depends on the
 * counts: it is [method@Tensor.mask] of @self broadcast along a new axis
 * by the grid of the copies that exist, whose width is the length of
 * [method@Tensor.bincount] of the counts, so a staged function that
 * calls it reads the counts back at each call. It runs on every device
 * and has the gradient of its ops (the sum of each element's copies).
 *
 * Returns: (transfer full): the repeated tensor, or %NULL with
 *   %EP_ERROR_INVALID_ARGUMENT set if a count is negative,
 *   %EP_ERROR_SHAPE if @repeats has neither one element nor one per
 *   element along @axis or @self has 8 dimensions, %EP_ERROR_AXIS if
 *   @axis is out of range, or %EP_ERROR_DTYPE if @repeats is not integer
 */
EpTensor *
ep_tensor_repeat_counts (EpTensor  *self,
                         EpTensor  *repeats,
                         gint       axis,
                         GError   **error)
{
  g_autoptr(EpTensor) x = NULL, one_row = NULL, counts64 = NULL, zeros = NULL, counts = NULL;
  g_autoptr(EpTensor) grid = NULL, moved = NULL, wide = NULL, cond = NULL, spread = NULL, picked = NULL;
  gint perm[EP_MAX_DIMS], back[EP_MAX_DIMS];
  gint64 n, flat[1];
  guint ndim;

  g_return_val_if_fail (EP_IS_TENSOR (self), NULL);
  g_return_val_if_fail (EP_IS_TENSOR (repeats), NULL);

  if (ep_dtype_is_floating (repeats->layout.dtype) || repeats->layout.dtype == EP_DTYPE_BOOL)
    {
      g_set_error (error, EP_ERROR, EP_ERROR_DTYPE,
                   _("repeat: the counts must be a tensor of an integer type (got %s)"),
                   ep_dtype_get_name (repeats->layout.dtype));
      return NULL;
    }
  if (axis == EP_AXIS_NONE)
    {
      flat[0] = ep_layout_get_size (&self->layout);
      if ((x = ep_tensor_reshape (self, flat, 1, error)) == NULL)
        return ep_error_named_result (NULL, error, "repeat");
      axis = 0;
    }
  else
    {
      if (!ep_func_normalize_axis (&ep_func_repeat_counts, axis, self->layout.ndim, &axis, error))
        return NULL;
      x = g_object_ref (self);
    }
  ndim = x->layout.ndim;
  n = x->layout.shape[axis];
  if (ndim == EP_MAX_DIMS)
    {
      g_set_error (error, EP_ERROR, EP_ERROR_SHAPE,
                   _("repeat: per-element counts need a tensor of fewer than %d dimensions"), EP_MAX_DIMS);
      return NULL;
    }
  if (repeats->layout.ndim > 1 || (ep_layout_get_size (&repeats->layout) != 1
                                   && (repeats->layout.ndim != 1 || repeats->layout.shape[0] != n)))
    {
      g_autofree char *rs = ep_shape_to_string (repeats->layout.shape, repeats->layout.ndim);

      g_set_error (error, EP_ERROR, EP_ERROR_SHAPE,
                   _("repeat: counts of shape %s for an axis of %" PRId64 " elements (give one count, or one per element)"),
                   rs, n);
      return NULL;
    }

  /* the counts as (n,) int64; the elements along @axis first */
  flat[0] = n;
  for (guint d = 0; d < ndim; d++)
    perm[d] = d == 0 ? axis : (gint) d - ((gint) d <= axis);
  for (guint d = 0; d < ndim; d++)
    back[perm[d]] = (gint) d;
  one_row = ep_layout_get_size (&repeats->layout) == 1
            ? ep_tensor_reshape (repeats, NULL, 0, error) : g_object_ref (repeats);
  if (one_row == NULL
      || (counts64 = ep_tensor_astype (one_row, EP_DTYPE_INT64, error)) == NULL
      || (zeros = ep_full_on (counts64->storage->device, flat, 1, ep_number_from_int64 (0),
                              EP_DTYPE_INT64, error)) == NULL
      || (counts = ep_tensor_add (zeros, counts64, error)) == NULL
      || (grid = copies_grid (counts, error)) == NULL
      || (moved = ep_tensor_transpose (x, perm, ndim, error)) == NULL
      || (wide = ep_tensor_expand_dims (moved, 1, error)) == NULL)
    return ep_error_named_result (NULL, error, "repeat");

  /* the grid along the other axes too, so that where broadcasts the
   * elements to (n, W, …) and mask keeps the copies, in order */
  cond = g_object_ref (grid);
  for (guint d = 1; d < ndim; d++)
    {
      EpTensor *longer = ep_tensor_expand_dims (cond, -1, error);

      g_object_unref (cond);
      if ((cond = longer) == NULL)
        return ep_error_named_result (NULL, error, "repeat");
    }
  if ((spread = ep_tensor_where (cond, wide, wide, error)) == NULL
      || (picked = ep_tensor_mask (spread, grid, error)) == NULL)
    return ep_error_named_result (NULL, error, "repeat");

  return ep_error_named_result (ep_tensor_transpose (picked, back, ndim, error), error, "repeat");
}
