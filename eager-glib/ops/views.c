/* ops/views.c: views: reshape transpose expand_dims squeeze broadcast_to flip slice, and flatten
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <glib/gi18n-lib.h>
#include <inttypes.h>
#include <string.h>

#include "ep-dispatch-private.h"
#include "ep-error.h"
#include "ep-error-private.h"
#include "ep-fault-private.h"
#include "ep-grad-private.h"

static gboolean
resolve_shape (EpOpCall  *call,
               GError   **error)
{
  EpOpAttrs *attrs = &call->attrs;
  gint64 size = ep_layout_get_size (&call->inputs[0]->layout);
  gint64 known = 1;
  gint unknown = -1;

  /* a broadcast view may describe more elements than 64 bits count
   * (its size saturates): no shape can be matched against it */
  if (size == G_MAXINT64)
    {
      g_autofree char *from = ep_shape_to_string (call->inputs[0]->layout.shape,
                                                  call->inputs[0]->layout.ndim);

      g_set_error (error, EP_ERROR, EP_ERROR_SHAPE,
                   _("reshape: a tensor of shape %s has too many elements to count in 64 bits"),
                   from);
      return FALSE;
    }

  for (guint i = 0; i < attrs->ndim; i++)
    {
      if (attrs->shape[i] == -1 && unknown < 0)
        unknown = i;
      else if (attrs->shape[i] < 0)
        {
          g_autofree char *s = ep_shape_to_string (attrs->shape, attrs->ndim);

          g_set_error (error, EP_ERROR, EP_ERROR_SHAPE,
                       _("reshape: invalid shape %s (only one -1 is allowed, and no other negative extent)"), s);
          return FALSE;
        }
      else if (known > 0 && attrs->shape[i] > G_MAXINT64 / known)
        known = G_MAXINT64;  /* cannot match any real size */
      else
        known *= attrs->shape[i];
    }

  if (unknown >= 0 && known != 0 && size % known == 0)
    attrs->shape[unknown] = size / known;
  else if (unknown >= 0 || known != size)
    {
      g_autofree char *from = ep_shape_to_string (call->inputs[0]->layout.shape, call->inputs[0]->layout.ndim);
      g_autofree char *to = ep_shape_to_string (attrs->shape, attrs->ndim);

      g_set_error (error, EP_ERROR, EP_ERROR_SHAPE,
                   g_dngettext (GETTEXT_PACKAGE,
                                "reshape: cannot reshape a tensor of shape %s (%" PRId64 " element) into shape %s",
                                "reshape: cannot reshape a tensor of shape %s (%" PRId64 " elements) into shape %s",
                                (gulong) size),
                   from, size, to);
      return FALSE;
    }

  return TRUE;
}

/* NumPy's attempt_nocopy_reshape: new strides over the same data, when
 * each group of new dimensions maps onto a contiguous group of old ones. */
static gboolean
view_strides (const EpLayout *in,
              EpLayout       *out)
{
  gint64 old_dims[EP_MAX_DIMS], old_strides[EP_MAX_DIMS];
  guint old_nd = 0, oi = 0, oj = 1, ni = 0, nj = 1;

  for (guint d = 0; d < in->ndim; d++)
    if (in->shape[d] != 1)
      {
        old_dims[old_nd] = in->shape[d];
        old_strides[old_nd++] = in->strides[d];
      }

  while (ni < out->ndim && oi < old_nd)
    {
      gint64 np = out->shape[ni], op = old_dims[oi];

      while (np != op)
        {
          if (np < op)
            np *= out->shape[nj++];
          else
            op *= old_dims[oj++];
        }

      for (guint ok = oi; ok + 1 < oj; ok++)
        if (old_strides[ok] != old_dims[ok + 1] * old_strides[ok + 1])
          return FALSE;

      out->strides[nj - 1] = old_strides[oj - 1];
      for (guint nk = nj - 1; nk > ni; nk--)
        out->strides[nk - 1] = out->strides[nk] * out->shape[nk];

      ni = nj++;
      oi = oj++;
    }

  for (guint nk = ni; nk < out->ndim; nk++)
    out->strides[nk] = ni > 0 ? out->strides[ni - 1] : 1;

  return TRUE;
}

static gboolean
reshape_infer (EpOpCall  *call,
               GError   **error)
{
  const EpLayout *in = &call->inputs[0]->layout;
  EpLayout *out = &call->output_layouts[0];
  EpLayout view;

  if (!resolve_shape (call, error))
    return FALSE;

  ep_op_set_output (call, in->dtype, call->attrs.shape, call->attrs.ndim);
  view = *out;
  if (ep_layout_get_size (in) == 0 || view_strides (in, &view))
    {
      *out = view;
      out->offset = in->offset;
    }
  else
    call->contiguous_inputs = 1;   /* copy first; the view is then contiguous */

  return TRUE;
}

static gboolean
transpose_infer (EpOpCall  *call,
                 GError   **error)
{
  const EpLayout *in = &call->inputs[0]->layout;
  EpLayout *out = &call->output_layouts[0];
  EpOpAttrs *attrs = &call->attrs;
  gboolean seen[EP_MAX_DIMS] = { FALSE };

  if (attrs->all_axes)
    {
      for (guint d = 0; d < in->ndim; d++)
        attrs->axes[d] = in->ndim - 1 - d;
      attrs->n_axes = in->ndim;
      attrs->all_axes = FALSE;
    }
  else if (attrs->n_axes != in->ndim)
    {
      g_set_error (error, EP_ERROR, EP_ERROR_AXIS,
                   g_dngettext (GETTEXT_PACKAGE,
                                "transpose: a tensor of %u dimension takes %u axis, %u given",
                                "transpose: a tensor of %u dimensions takes %u axes, %u given",
                                in->ndim),
                   in->ndim, in->ndim, attrs->n_axes);
      return FALSE;
    }

  *out = *in;
  for (guint d = 0; d < in->ndim; d++)
    {
      gint axis;

      if (!ep_op_normalize_axis (call, attrs->axes[d], in->ndim, &axis, error))
        return FALSE;
      if (seen[axis])
        {
          g_set_error (error, EP_ERROR, EP_ERROR_AXIS,
                       _("transpose: axis %d is repeated"), attrs->axes[d]);
          return FALSE;
        }
      seen[axis] = TRUE;
      attrs->axes[d] = axis;
      out->shape[d] = in->shape[axis];
      out->strides[d] = in->strides[axis];
    }

  return TRUE;
}

static gboolean
expand_dims_infer (EpOpCall  *call,
                   GError   **error)
{
  const EpLayout *in = &call->inputs[0]->layout;
  EpLayout *out = &call->output_layouts[0];
  gint axis;

  if (in->ndim >= EP_MAX_DIMS)
    {
      g_set_error (error, EP_ERROR, EP_ERROR_SHAPE,
                   _("expand_dims: a tensor has at most %d dimensions"), EP_MAX_DIMS);
      return FALSE;
    }
  if (!ep_op_normalize_axis (call, call->attrs.axes[0], in->ndim + 1, &axis, error))
    return FALSE;
  call->attrs.axes[0] = axis;

  *out = *in;
  out->ndim = in->ndim + 1;
  memmove (out->shape + axis + 1, in->shape + axis, (in->ndim - axis) * sizeof (gint64));
  memmove (out->strides + axis + 1, in->strides + axis, (in->ndim - axis) * sizeof (gint64));
  out->shape[axis] = 1;
  out->strides[axis] = axis < (gint) in->ndim ? in->strides[axis] * in->shape[axis] : 1;

  return TRUE;
}

static gboolean
squeeze_infer (EpOpCall  *call,
               GError   **error)
{
  const EpLayout *in = &call->inputs[0]->layout;
  EpLayout *out = &call->output_layouts[0];
  EpOpAttrs *attrs = &call->attrs;
  gboolean drop[EP_MAX_DIMS] = { FALSE };

  if (attrs->all_axes)
    {
      attrs->n_axes = 0;
      for (guint d = 0; d < in->ndim; d++)
        if (in->shape[d] == 1)
          attrs->axes[attrs->n_axes++] = d;
      attrs->all_axes = FALSE;
    }
  else if (!ep_op_normalize_axes (call, in->ndim, error))
    return FALSE;

  for (guint a = 0; a < attrs->n_axes; a++)
    {
      gint axis = attrs->axes[a];

      if (in->shape[axis] != 1)
        {
          g_set_error (error, EP_ERROR, EP_ERROR_SHAPE,
                       _("squeeze: axis %d has extent %" PRId64 ", not 1"),
                       axis, in->shape[axis]);
          return FALSE;
        }
      drop[axis] = TRUE;
    }

  *out = *in;
  out->ndim = 0;
  for (guint d = 0; d < in->ndim; d++)
    if (!drop[d])
      {
        out->shape[out->ndim] = in->shape[d];
        out->strides[out->ndim++] = in->strides[d];
      }

  return TRUE;
}

/* Gradients: views only move elements around, so the gradient moves
 * back. Reshape, expand_dims and squeeze keep the order of the elements:
 * reshaping to the input's shape undoes them. */
static gboolean
reshape_gradient (const EpOpCall   *call,
                  EpTensor *const  *output_grads,
                  EpTensor        **input_grads,
                  GError          **error)
{
  const EpLayout *in = &call->inputs[0]->layout;

  if (!ep_grad_needed (call, 0))
    return TRUE;

  input_grads[0] = ep_tensor_reshape (output_grads[0], in->shape, in->ndim, error);
  return input_grads[0] != NULL;
}

#define expand_dims_gradient reshape_gradient
#define squeeze_gradient reshape_gradient

static gboolean
transpose_gradient (const EpOpCall   *call,
                    EpTensor *const  *output_grads,
                    EpTensor        **input_grads,
                    GError          **error)
{
  gint inverse[EP_MAX_DIMS];

  if (!ep_grad_needed (call, 0))
    return TRUE;

  for (guint d = 0; d < call->attrs.n_axes; d++)
    inverse[call->attrs.axes[d]] = d;

  input_grads[0] = ep_tensor_transpose (output_grads[0], inverse, call->attrs.n_axes, error);
  return input_grads[0] != NULL;
}

#define VIEW_OP(ID, op_name, ...)                                           \
  const EpOpDef ep_op_##op_name = {                                         \
    .id = EP_OP_##ID, .name = #op_name,                                     \
    .flags = EP_OP_FLAG_VIEW,                                               \
    EP_INPUTS (EP_INPUT ("self")),                                          \
    EP_ATTRS (__VA_ARGS__),                                                 \
    .infer = op_name##_infer,                                               \
    .gradient = op_name##_gradient,                                         \
  };

VIEW_OP (RESHAPE, reshape, EP_ATTR_SHAPE_ARG)
/* no axes: reversed */
VIEW_OP (TRANSPOSE, transpose, EP_ATTR_AXES_ARG)
VIEW_OP (EXPAND_DIMS, expand_dims, EP_ATTR_AXIS_ARG ())
/* no axes: every axis of extent 1 */
VIEW_OP (SQUEEZE, squeeze, EP_ATTR_AXES_ARG)

/**
 * ep_tensor_reshape:
 * @self: a tensor
 * @shape: (array length=ndim): the new shape; one extent may be -1 to be
 *   inferred
 * @ndim: the number of dimensions
 * @error: return location for an error
 *
 * Gives the elements a new shape with the same number of elements. The
 * result is a view sharing @self's data whenever the strides allow it
 * (always for contiguous data), a copy otherwise.
 *
 * Returns: (transfer full): the reshaped tensor, or %NULL with
 *   %EP_ERROR_SHAPE set if the number of elements differs
 */
EpTensor *
ep_tensor_reshape (EpTensor      *self,
                   const gint64  *shape,
                   guint          ndim,
                   GError       **error)
{
  EpOpAttrs attrs;

  g_return_val_if_fail (EP_IS_TENSOR (self), NULL);
  g_return_val_if_fail (shape != NULL || ndim == 0, NULL);

  ep_op_attrs_init (&attrs);
  ep_op_attrs_set_list (attrs.shape, attrs.ndim, shape, ndim);

  return ep_dispatch1 (&ep_op_reshape, &self, 1, &attrs, error);
}

/**
 * ep_tensor_transpose:
 * @self: a tensor
 * @axes: (array length=n_axes) (nullable): a permutation of the axes;
 *   %NULL or empty reverses them
 * @n_axes: the number of axes, the rank of @self
 * @error: return location for an error
 *
 * Permutes the dimensions: dimension `i` of the result is dimension
 * `axes[i]` of @self. Always a view.
 *
 * Returns: (transfer full): the transposed view, or %NULL with
 *   %EP_ERROR_AXIS set if @axes is not a permutation
 */
EpTensor *
ep_tensor_transpose (EpTensor    *self,
                     const gint  *axes,
                     guint        n_axes,
                     GError     **error)
{
  return ep_dispatch_axes (&ep_op_transpose, self, axes, n_axes, FALSE, error);
}

/**
 * ep_tensor_expand_dims:
 * @self: a tensor
 * @axis: where the new axis goes, in `[-ndim - 1, ndim]`
 * @error: return location for an error
 *
 * Inserts a dimension of extent 1. Always a view.
 *
 * Returns: (transfer full): the view, or %NULL with %EP_ERROR_AXIS set if
 *   @axis is out of range
 */
EpTensor *
ep_tensor_expand_dims (EpTensor  *self,
                       gint       axis,
                       GError   **error)
{
  g_return_val_if_fail (EP_IS_TENSOR (self), NULL);

  return ep_dispatch_axis (&ep_op_expand_dims, &self, 1, axis, error);
}

/**
 * ep_tensor_squeeze:
 * @self: a tensor
 * @axes: (array length=n_axes) (nullable): the axes to remove, each of
 *   extent 1; %NULL or empty removes every axis of extent 1
 * @n_axes: the number of axes
 * @error: return location for an error
 *
 * Removes dimensions of extent 1. Always a view.
 *
 * Returns: (transfer full): the view, or %NULL with %EP_ERROR_SHAPE set if
 *   a named axis does not have extent 1, or %EP_ERROR_AXIS
 */
EpTensor *
ep_tensor_squeeze (EpTensor    *self,
                   const gint  *axes,
                   guint        n_axes,
                   GError     **error)
{
  return ep_dispatch_axes (&ep_op_squeeze, self, axes, n_axes, FALSE, error);
}


/* broadcast_to */

static gboolean
broadcast_to_infer (EpOpCall  *call,
                    GError   **error)
{
  const EpLayout *in = &call->inputs[0]->layout;
  EpLayout *out = &call->output_layouts[0];
  const EpOpAttrs *attrs = &call->attrs;
  guint lead;

  for (guint d = 0; d < attrs->ndim; d++)
    if (attrs->shape[d] < 0)
      {
        g_autofree char *to = ep_shape_to_string (attrs->shape, attrs->ndim);

        g_set_error (error, EP_ERROR, EP_ERROR_SHAPE,
                     _("broadcast_to: negative dimension %" PRId64 " in shape %s"),
                     attrs->shape[d], to);
        return FALSE;
      }

  lead = attrs->ndim - MIN (attrs->ndim, in->ndim);
  if (in->ndim > attrs->ndim)
    goto incompatible;

  out->dtype = in->dtype;
  out->ndim = attrs->ndim;
  out->offset = in->offset;
  for (guint d = 0; d < out->ndim; d++)
    {
      gint64 want = attrs->shape[d];

      out->shape[d] = want;
      if (d < lead)
        out->strides[d] = 0;
      else if (in->shape[d - lead] == want)
        out->strides[d] = want == 1 ? 0 : in->strides[d - lead];
      else if (in->shape[d - lead] == 1)
        out->strides[d] = 0;
      else
        goto incompatible;
    }

  return TRUE;

incompatible:
  {
    g_autofree char *from = ep_shape_to_string (in->shape, in->ndim);
    g_autofree char *to = ep_shape_to_string (attrs->shape, attrs->ndim);

    g_set_error (error, EP_ERROR, EP_ERROR_SHAPE,
                 _("broadcast_to: cannot broadcast a tensor of shape %s to shape %s"),
                 from, to);
  }
  return FALSE;
}

static gboolean
broadcast_to_gradient (const EpOpCall  *call,
                       EpTensor *const *output_grads,
                       EpTensor       **input_grads,
                       GError         **error)
{
  input_grads[0] = ep_grad_sum_to_shape (output_grads[0], call->inputs[0], error);
  return input_grads[0] != NULL;
}

const EpOpDef ep_op_broadcast_to = {
  .id = EP_OP_BROADCAST_TO, .name = "broadcast_to",
  .flags = EP_OP_FLAG_VIEW,
  EP_INPUTS (EP_INPUT ("self")),
  EP_ATTRS (EP_ATTR_SHAPE_ARG),
  .infer = broadcast_to_infer,
  .gradient = broadcast_to_gradient,
};

/* flip: a view with negative strides */

static gboolean
flip_infer (EpOpCall  *call,
            GError   **error)
{
  const EpLayout *in = &call->inputs[0]->layout;
  EpLayout *out = &call->output_layouts[0];

  if (!ep_op_normalize_axes (call, in->ndim, error))
    return FALSE;

  *out = *in;
  /* an empty tensor has no element to start from, and its other extents
   * may be anything: (n - 1) * stride could overflow */
  if (ep_layout_get_size (in) == 0)
    return TRUE;
  for (guint a = 0; a < call->attrs.n_axes; a++)
    {
      gint axis = call->attrs.axes[a];

      if (in->shape[axis] > 1)
        {
          out->offset += (in->shape[axis] - 1) * in->strides[axis];
          out->strides[axis] = -in->strides[axis];
        }
    }

  return TRUE;
}

static gboolean
flip_gradient (const EpOpCall  *call,
               EpTensor *const *output_grads,
               EpTensor       **input_grads,
               GError         **error)
{
  input_grads[0] = ep_tensor_flip (output_grads[0], call->attrs.axes, call->attrs.n_axes, error);
  return input_grads[0] != NULL;
}

/* no axes: every axis */
const EpOpDef ep_op_flip = {
  .id = EP_OP_FLIP, .name = "flip",
  .flags = EP_OP_FLAG_VIEW,
  EP_INPUTS (EP_INPUT ("self")),
  EP_ATTRS (EP_ATTR_AXES_ARG),
  .infer = flip_infer,
  .gradient = flip_gradient,
};

/* slice: the rule makes the starts, stops and steps canonical for every
 * axis: starts and stops clamped as Python's slice.indices() does, with
 * -1 for a stop before the first element; steps of 1 where none are
 * given. */

static gint64
clamp_bound (gint64 bound,
             gint64 extent,
             gint64 step)
{
  if (bound < 0)
    {
      bound += extent;   /* no overflow: extent >= 0 */
      if (bound < 0)
        bound = step < 0 ? -1 : 0;
    }
  else if (bound >= extent)
    bound = step < 0 ? extent - 1 : extent;

  return bound;
}

static gboolean
slice_infer (EpOpCall  *call,
             GError   **error)
{
  const EpLayout *in = &call->inputs[0]->layout;
  EpLayout *out = &call->output_layouts[0];
  EpOpAttrs *attrs = &call->attrs;
  guint n = attrs->slice.n_starts;

  if (attrs->slice.n_stops != n || (attrs->slice.n_steps != 0 && attrs->slice.n_steps != n))
    {
      g_set_error (error, EP_ERROR, EP_ERROR_INVALID_ARGUMENT,
                   _("slice: the starts, stops and steps given number %u, %u and %u; the lengths must match"),
                   n, attrs->slice.n_stops, attrs->slice.n_steps);
      return FALSE;
    }
  if (n > in->ndim)
    {
      g_set_error (error, EP_ERROR, EP_ERROR_INDEX,
                   g_dngettext (GETTEXT_PACKAGE,
                                "slice: a tensor of %u dimension takes at most %u range, %u given",
                                "slice: a tensor of %u dimensions takes at most %u ranges, %u given",
                                in->ndim),
                   in->ndim, in->ndim, n);
      return FALSE;
    }

  *out = *in;
  for (guint d = 0; d < in->ndim; d++)
    {
      gint64 extent = in->shape[d];
      gint64 start = d < n ? attrs->slice.starts[d] : 0;
      gint64 stop = d < n ? attrs->slice.stops[d] : extent;
      gint64 step = d < n && attrs->slice.n_steps > 0 ? attrs->slice.steps[d] : 1;
      gint64 length;

      if (step == 0)
        {
          g_set_error (error, EP_ERROR, EP_ERROR_INVALID_ARGUMENT,
                       _("slice: step 0 on axis %u"), d);
          return FALSE;
        }

      start = clamp_bound (start, extent, step);
      stop = clamp_bound (stop, extent, step);
      if (step > 0)
        length = stop > start ? (stop - start - 1) / step + 1 : 0;
      else
        length = start > stop ? (start - stop - 1) / (step == G_MININT64 ? G_MAXINT64 : -step) + 1 : 0;

      attrs->slice.starts[d] = start;
      attrs->slice.stops[d] = stop;
      attrs->slice.steps[d] = step;
      out->shape[d] = length;
      if (length > 0)
        out->offset += start * in->strides[d];
      /* with two elements or more |step| < extent: the product is a
       * distance inside the storage */
      if (length > 1)
        out->strides[d] = in->strides[d] * step;
    }

  attrs->slice.n_starts = attrs->slice.n_stops = attrs->slice.n_steps = in->ndim;
  return TRUE;
}

/* The gradient puts the output's gradient back where the slice took its
 * elements, zeros elsewhere: a scatter along each strided axis, then one
 * pad for the axes taken with step 1. */
static gboolean
slice_gradient (const EpOpCall  *call,
                EpTensor *const *output_grads,
                EpTensor       **input_grads,
                GError         **error)
{
  const EpLayout *in = &call->inputs[0]->layout;
  const EpLayout *out = &call->outputs[0]->layout;
  const gint64 *starts = call->attrs.slice.starts, *steps = call->attrs.slice.steps;
  guint ndim = in->ndim;
  g_autoptr(EpTensor) grad = g_object_ref (output_grads[0]);
  gint64 pads[2 * EP_MAX_DIMS];
  gboolean any_pad = FALSE;
  gint64 shape[EP_MAX_DIMS];

  if (ndim > 0)
    memcpy (shape, out->shape, ndim * sizeof (gint64));

  for (guint d = 0; d < ndim; d++)
    {
      gint64 start = starts[d], step = steps[d], length = out->shape[d];

      pads[2 * d] = pads[2 * d + 1] = 0;
      if (length == in->shape[d] && (step == 1 || length <= 1))
        continue;
      if (step == 1 || length <= 1)
        {
          pads[2 * d] = length > 0 ? start : 0;
          pads[2 * d + 1] = in->shape[d] - length - pads[2 * d];
          any_pad = TRUE;
          continue;
        }

      {
        g_autofree gint64 *positions = ep_try_new (gint64, length);
        g_autoptr(EpTensor) indices = NULL;
        g_autoptr(EpTensor) zeros = NULL;
        EpTensor *scattered;

        if (positions == NULL)
          {
            g_set_error (error, EP_ERROR, EP_ERROR_OUT_OF_MEMORY,
                         _("slice: cannot allocate the gradient's indices"));
            return FALSE;
          }
        for (gint64 i = 0; i < length; i++)
          positions[i] = start + i * step;
        indices = ep_grad_int64 (grad, positions, &length, 1, error);
        shape[d] = in->shape[d];
        zeros = indices != NULL ? ep_grad_zeros (grad, shape, ndim, error) : NULL;
        scattered = zeros != NULL ? ep_tensor_scatter_add (zeros, indices, grad, d, error) : NULL;
        if (scattered == NULL)
          return FALSE;
        g_object_unref (grad);
        grad = scattered;
      }
    }

  if (any_pad)
    {
      EpTensor *padded = ep_tensor_pad (grad, pads, 2 * ndim, EP_PAD_CONSTANT, 0.0, error);

      if (padded == NULL)
        return FALSE;
      g_object_unref (grad);
      grad = padded;
    }

  input_grads[0] = g_steal_pointer (&grad);
  return TRUE;
}

const EpOpDef ep_op_slice = {
  .id = EP_OP_SLICE, .name = "slice",
  .flags = EP_OP_FLAG_VIEW,
  EP_INPUTS (EP_INPUT ("self")),
  EP_ATTRS (EP_ATTR ("starts", EP_ATTR_INTS, EP_LIST_FIELD (slice.starts, slice.n_starts)),
            EP_ATTR ("stops", EP_ATTR_INTS, EP_LIST_FIELD (slice.stops, slice.n_stops)),
            EP_ATTR ("steps", EP_ATTR_INTS, EP_LIST_FIELD (slice.steps, slice.n_steps),
                     .flags = EP_ATTR_NULLABLE)),
  .infer = slice_infer,
  .gradient = slice_gradient,
};

const EpOpDef ep_func_flatten = {
  .id = EP_N_OPS, .name = "flatten",
  EP_INPUTS (EP_INPUT ("self")),
  EP_ATTRS (EP_ATTR ("start", EP_ATTR_AXIS, EP_NO_FIELD, EP_DEFAULT (0)),
            EP_ATTR ("end", EP_ATTR_AXIS, EP_NO_FIELD, EP_DEFAULT (-1))),
};

/**
 * ep_tensor_flatten:
 * @self: a tensor
 * @start: the first axis to merge
 * @end: the last axis to merge (inclusive); -1 for the last axis
 * @error: return location for an error
 *
 * Merges the axes from @start to @end into one, as `torch.flatten` and
 * EagerPy's `flatten`: `flatten (0, -1)` gives a 1-D tensor. A 0-d
 * tensor counts as having one axis. A view whenever
 * [method@Tensor.reshape] can make one.
 *
 * Returns: (transfer full): the flattened tensor, or %NULL with
 *   %EP_ERROR_AXIS set if an axis is out of range or @end comes before
 *   @start
 */
EpTensor *
ep_tensor_flatten (EpTensor  *self,
                   gint       start,
                   gint       end,
                   GError   **error)
{
  const EpLayout *in;
  guint ndim;
  gint64 shape[EP_MAX_DIMS];
  guint n = 0;

  g_return_val_if_fail (EP_IS_TENSOR (self), NULL);

  in = &self->layout;
  ndim = MAX (in->ndim, 1);
  if (start < -(gint) ndim || start >= (gint) ndim || end < -(gint) ndim || end >= (gint) ndim)
    {
      g_set_error (error, EP_ERROR, EP_ERROR_AXIS,
                   g_dngettext (GETTEXT_PACKAGE,
                                "flatten: axes %d to %d are out of range for a tensor of %u dimension",
                                "flatten: axes %d to %d are out of range for a tensor of %u dimensions",
                                in->ndim),
                   start, end, in->ndim);
      return NULL;
    }
  if (start < 0)
    start += ndim;
  if (end < 0)
    end += ndim;
  if (end < start)
    {
      g_set_error (error, EP_ERROR, EP_ERROR_AXIS,
                   _("flatten: the end axis %d comes before the start axis %d"),
                   end, start);
      return NULL;
    }

  if (in->ndim == 0)
    {
      shape[0] = 1;
      return ep_error_named_result (ep_tensor_reshape (self, shape, 1, error), error, "flatten");
    }

  for (gint d = 0; d < start; d++)
    shape[n++] = in->shape[d];
  shape[n] = 1;
  for (gint d = start; d <= end; d++)
    {
      gint64 extent = in->shape[d];

      /* a broadcast view may describe more elements than fit: saturate,
       * reshape reports it */
      shape[n] = extent != 0 && shape[n] > G_MAXINT64 / extent ? G_MAXINT64 : shape[n] * extent;
    }
  n++;
  for (guint d = end + 1; d < in->ndim; d++)
    shape[n++] = in->shape[d];

  return ep_error_named_result (ep_tensor_reshape (self, shape, n, error), error, "flatten");
}

/**
 * ep_tensor_broadcast_to:
 * @self: a tensor
 * @shape: (array length=ndim): the shape to broadcast to
 * @ndim: the number of dimensions, at least the rank of @self
 * @error: return location for an error
 *
 * Repeats @self along new leading axes and along its axes of extent 1 to
 * reach @shape, with NumPy's broadcasting rules. Always a view: the
 * repeated axes have stride 0 and no data is copied.
 *
 * Returns: (transfer full): the broadcast view, or %NULL with
 *   %EP_ERROR_SHAPE set if @self does not broadcast to @shape
 */
EpTensor *
ep_tensor_broadcast_to (EpTensor      *self,
                        const gint64  *shape,
                        guint          ndim,
                        GError       **error)
{
  EpOpAttrs attrs;

  g_return_val_if_fail (EP_IS_TENSOR (self), NULL);
  g_return_val_if_fail (shape != NULL || ndim == 0, NULL);

  ep_op_attrs_init (&attrs);
  ep_op_attrs_set_list (attrs.shape, attrs.ndim, shape, ndim);

  return ep_dispatch1 (&ep_op_broadcast_to, &self, 1, &attrs, error);
}

/**
 * ep_tensor_flip:
 * @self: a tensor
 * @axes: (array length=n_axes) (nullable): the axes to reverse; %NULL or empty
 *   reverses every axis
 * @n_axes: the number of axes
 * @error: return location for an error
 *
 * Reverses the order of the elements along @axes, as NumPy's `flip`.
 * Always a view, with negative strides.
 *
 * Returns: (transfer full): the flipped view, or %NULL with
 *   %EP_ERROR_AXIS set if an axis is out of range or repeated
 */
EpTensor *
ep_tensor_flip (EpTensor    *self,
                const gint  *axes,
                guint        n_axes,
                GError     **error)
{
  return ep_dispatch_axes (&ep_op_flip, self, axes, n_axes, FALSE, error);
}

/**
 * ep_tensor_slice:
 * @self: a tensor
 * @starts: (array length=n_starts) (nullable): the first index along each
 *   of the leading axes
 * @n_starts: the number of starts
 * @stops: (array length=n_stops) (nullable): the index to stop before
 *   along each of the leading axes
 * @n_stops: the number of stops, @n_starts
 * @steps: (array length=n_steps) (nullable): the step along each of the
 *   leading axes, not 0; %NULL for steps of 1
 * @n_steps: the number of steps, @n_starts or 0
 * @error: return location for an error
 *
 * Basic slicing, `self[start:stop:step, …]` in Python, as a view. Each
 * array covers the first @n_starts axes; the other axes are kept whole.
 * Bounds follow Python: negative ones count from the end and both are
 * clamped to the axis, so out-of-range bounds give short or empty
 * slices rather than errors. A negative step walks backwards. An omitted
 * bound in Python is %EP_SLICE_START or %EP_SLICE_END here (as any bound
 * beyond the axis, such as %G_MININT64 and %G_MAXINT64 in C): they clamp
 * to "before the first element" and "past the last one", so `x[1:]` is
 * `starts = { 1 }`, `stops = { EP_SLICE_END }`, and `x[::-1]` is
 * `starts = { EP_SLICE_END }`, `stops = { EP_SLICE_START }`,
 * `steps = { -1 }`.
 *
 * Returns: (transfer full): the view, or %NULL with %EP_ERROR_INDEX set
 *   if more ranges than axes are given, or %EP_ERROR_INVALID_ARGUMENT for
 *   a step of 0 or arrays of different lengths
 */
EpTensor *
ep_tensor_slice (EpTensor      *self,
                 const gint64  *starts,
                 guint          n_starts,
                 const gint64  *stops,
                 guint          n_stops,
                 const gint64  *steps,
                 guint          n_steps,
                 GError       **error)
{
  EpOpAttrs attrs;

  g_return_val_if_fail (EP_IS_TENSOR (self), NULL);
  g_return_val_if_fail (starts != NULL || n_starts == 0, NULL);
  g_return_val_if_fail (stops != NULL || n_stops == 0, NULL);
  g_return_val_if_fail (steps != NULL || n_steps == 0, NULL);

  ep_op_attrs_init (&attrs);
  ep_op_attrs_set_list (attrs.slice.starts, attrs.slice.n_starts, starts, n_starts);
  ep_op_attrs_set_list (attrs.slice.stops, attrs.slice.n_stops, stops, n_stops);
  ep_op_attrs_set_list (attrs.slice.steps, attrs.slice.n_steps, steps, n_steps);

  return ep_dispatch1 (&ep_op_slice, &self, 1, &attrs, error);
}
