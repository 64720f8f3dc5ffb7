/* ep-ops-shape.c: reshape, transpose, expand_dims, squeeze (views)
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <glib/gi18n-lib.h>
#include <inttypes.h>
#include <string.h>

#include "ep-dispatch-private.h"
#include "ep-error.h"
#include "ep-grad-private.h"

static gboolean
resolve_shape (EpOpCall  *call,
               GError   **error)
{
  EpOpAttrs *attrs = &call->attrs;
  gint64 size = ep_layout_get_size (&call->inputs[0]->layout);
  gint64 known = 1;
  gint unknown = -1;

  if (attrs->n_ints > EP_MAX_DIMS)
    {
      g_set_error (error, EP_ERROR, EP_ERROR_SHAPE,
                   _("reshape: %u dimensions requested, at most %d are supported"),
                   attrs->n_ints, EP_MAX_DIMS);
      return FALSE;
    }

  for (guint i = 0; i < attrs->n_ints; i++)
    {
      if (attrs->ints[i] == -1 && unknown < 0)
        unknown = i;
      else if (attrs->ints[i] < 0)
        {
          g_autofree char *s = ep_shape_to_string (attrs->ints, attrs->n_ints);

          g_set_error (error, EP_ERROR, EP_ERROR_SHAPE,
                       _("reshape: invalid shape %s (only one -1 is allowed, and no other negative extent)"), s);
          return FALSE;
        }
      else if (known > 0 && attrs->ints[i] > G_MAXINT64 / known)
        known = G_MAXINT64;  /* cannot match any real size */
      else
        known *= attrs->ints[i];
    }

  if (unknown >= 0 && known != 0 && size % known == 0)
    attrs->ints[unknown] = size / known;
  else if (unknown >= 0 || known != size)
    {
      g_autofree char *from = ep_shape_to_string (call->inputs[0]->layout.shape, call->inputs[0]->layout.ndim);
      g_autofree char *to = ep_shape_to_string (attrs->ints, attrs->n_ints);

      g_set_error (error, EP_ERROR, EP_ERROR_SHAPE,
                   _("reshape: cannot reshape a tensor of shape %s (%" PRId64 " elements) into shape %s"),
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

  ep_op_set_output (call, in->dtype, call->attrs.ints, call->attrs.n_ints);
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
                   _("transpose: %u axes given for a tensor of %u dimensions"),
                   attrs->n_axes, in->ndim);
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

#define VIEW_OP(ID, op_name)                                                \
  const EpOpDef ep_op_##op_name = {                                         \
    .id = EP_OP_##ID, .name = #op_name, .n_inputs = 1,                      \
    .flags = EP_OP_FLAG_VIEW,                                               \
    .infer = op_name##_infer,                                               \
    .gradient = op_name##_gradient,                                         \
  };

VIEW_OP (RESHAPE, reshape)
VIEW_OP (TRANSPOSE, transpose)
VIEW_OP (EXPAND_DIMS, expand_dims)
VIEW_OP (SQUEEZE, squeeze)

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
  ep_op_attrs_set_ints (&attrs, shape, ndim);

  return ep_dispatch1 (&ep_op_reshape, &self, 1, &attrs, error);
}

/**
 * ep_tensor_transpose:
 * @self: a tensor
 * @axes: (array length=n_axes) (nullable): a permutation of the axes;
 *   %NULL reverses them
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
 *   extent 1; %NULL removes every axis of extent 1
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
