/* ops/index.c: take, take_along_axis, mask, index_update, scatter_add, bincount;
 * histogram (a composite);
 * embedding (take along axis 0), nonzero (mask of a coordinate grid)
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Gathers and their mirror images, the functional scatters. Their rules
 * look at layouts only: the kernels of every device check each index
 * while they use it (ep_index_error() is their common message), so a
 * call's validity does not depend on values at trace time and an OpenCL
 * call reads no indices back. mask reads its mask (EP_OP_FLAG_READS_DATA)
 * to know the output's length.
 */

#include "config.h"

#include <glib/gi18n-lib.h>
#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "ep-creation-private.h"
#include "ep-dispatch-private.h"
#include "ep-error.h"
#include "ep-error-private.h"
#include "ep-grad-private.h"
#include "ep-join.h"
#include "ep-shape-private.h"

static gboolean
canonical_axis (EpOpCall  *call,
                guint      ndim,
                GError   **error)
{
  gint axis;

  if (!ep_op_normalize_axis (call, call->attrs.axes[0], ndim, &axis, error))
    return FALSE;
  ep_op_attrs_set_axis (&call->attrs, axis);

  return TRUE;
}

/* The shape of take's output, and of the values of the scatters:
 * x.shape[:axis] + indices.shape + x.shape[axis+1:]. */
static gboolean
indexed_shape (const EpOpCall  *call,
               gint             axis,
               gint64          *shape,
               guint           *ndim,
               GError         **error)
{
  const EpLayout *x = &call->inputs[0]->layout;
  const EpLayout *idx = &call->inputs[1]->layout;
  guint n = 0;

  if (x->ndim - 1 + idx->ndim > EP_MAX_DIMS)
    {
      g_set_error (error, EP_ERROR, EP_ERROR_SHAPE,
                   _("%s: the indexed shape would have %u dimensions, at most %d are supported"),
                   call->op->name, x->ndim - 1 + idx->ndim, EP_MAX_DIMS);
      return FALSE;
    }

  for (gint d = 0; d < axis; d++)
    shape[n++] = x->shape[d];
  for (guint d = 0; d < idx->ndim; d++)
    shape[n++] = idx->shape[d];
  for (guint d = axis + 1; d < x->ndim; d++)
    shape[n++] = x->shape[d];
  *ndim = n;

  return TRUE;
}

/* take */

static gboolean
take_infer (EpOpCall  *call,
            GError   **error)
{
  const EpLayout *x = &call->inputs[0]->layout;
  gint64 shape[EP_MAX_DIMS];
  guint ndim;

  if (!canonical_axis (call, x->ndim, error))
    return FALSE;
  if (!indexed_shape (call, call->attrs.axes[0], shape, &ndim, error))
    return FALSE;

  call->input_dtypes[1] = EP_DTYPE_INT64;
  ep_op_set_output (call, x->dtype, shape, ndim);
  return TRUE;
}

static gboolean
take_gradient (const EpOpCall  *call,
               EpTensor *const *output_grads,
               EpTensor       **input_grads,
               GError         **error)
{
  const EpLayout *x = &call->inputs[0]->layout;
  g_autoptr(EpTensor) zeros = ep_grad_zeros (output_grads[0], x->shape, x->ndim, error);

  if (zeros == NULL)
    return FALSE;

  input_grads[1] = NULL;
  input_grads[0] = ep_tensor_scatter_add (zeros, call->inputs[1], output_grads[0],
                                          call->attrs.axes[0], error);
  return input_grads[0] != NULL;
}

const EpOpDef ep_op_take = {
  .id = EP_OP_TAKE, .name = "take",
  .flags = EP_OP_FLAG_CHECKS_DATA | EP_OP_FLAG_UINT8,
  EP_INPUTS (EP_INPUT ("self"), EP_INPUT_OF ("indices", EP_INPUT_INTEGER)),
  EP_ATTRS (EP_ATTR_AXIS_ARG (.flags = EP_ATTR_NULLABLE)),
  .infer = take_infer,
  .gradient = take_gradient,
};

/* take_along_axis */

static gboolean
take_along_axis_infer (EpOpCall  *call,
                       GError   **error)
{
  const EpLayout *x = &call->inputs[0]->layout;
  const EpLayout *idx = &call->inputs[1]->layout;
  gint64 shape[EP_MAX_DIMS];
  gint axis;

  if (!canonical_axis (call, x->ndim, error))
    return FALSE;
  axis = call->attrs.axes[0];

  if (idx->ndim != x->ndim)
    {
      g_set_error (error, EP_ERROR, EP_ERROR_SHAPE,
                   g_dngettext (GETTEXT_PACKAGE,
                                "take_along_axis: the tensor has %u dimension, the indices have %u; they must be equal",
                                "take_along_axis: the tensor has %u dimensions, the indices have %u; they must be equal",
                                x->ndim),
                   x->ndim, idx->ndim);
      return FALSE;
    }

  for (guint d = 0; d < x->ndim; d++)
    {
      if ((gint) d == axis || x->shape[d] == idx->shape[d] || idx->shape[d] == 1)
        shape[d] = (gint) d == axis ? idx->shape[d] : x->shape[d];
      else if (x->shape[d] == 1)
        shape[d] = idx->shape[d];
      else
        {
          g_autofree char *xs = ep_shape_to_string (x->shape, x->ndim);
          g_autofree char *is = ep_shape_to_string (idx->shape, idx->ndim);

          g_set_error (error, EP_ERROR, EP_ERROR_SHAPE,
                       _("take_along_axis: indices of shape %s do not broadcast with a tensor of shape %s outside axis %d"),
                       is, xs, axis);
          return FALSE;
        }
    }

  call->input_dtypes[1] = EP_DTYPE_INT64;
  ep_op_set_output (call, x->dtype, shape, x->ndim);
  return TRUE;
}

/* 0, 1, … @n - 1 (int64) on @like's device, whatever the scope. */
static EpTensor *
arange_like (EpTensor  *like,
             gint64     n,
             GError   **error)
{
  return ep_arange_on (like->storage->device, ep_number_from_int64 (0), ep_number_from_int64 (n),
                       ep_number_from_int64 (1), EP_DTYPE_INT64, error);
}

/* @range (1-D) reshaped to lie along axis @d of @ndim axes. */
static EpTensor *
along_axis (EpTensor  *range,
            guint      d,
            guint      ndim,
            GError   **error)
{
  gint64 shape[EP_MAX_DIMS];

  for (guint k = 0; k < ndim; k++)
    shape[k] = k == d ? range->layout.shape[0] : 1;

  return ep_tensor_reshape (range, shape, ndim, error);
}

/* Zeros of @shape with @grad added at the positions @indices name along
 * @axis: the mirror image of take_along_axis, whose output @grad is
 * shaped like (the indices broadcast against @shape outside @axis). It
 * scatters into the flattened tensor: the flat position that each
 * element of @grad was read from is built with ops (not on the host), so
 * that a traced backward pass follows new indices. */
EpTensor *
ep_grad_scatter_along_axis (EpTensor      *grad,
                            EpTensor      *indices,
                            gint           axis,
                            const gint64  *shape,
                            guint          ndim,
                            GError       **error)
{
  const EpLayout *out = &grad->layout;
  gint64 size = 1;
  gint64 stride = 1;
  g_autoptr(EpTensor) flat = NULL;
  g_autoptr(EpTensor) zeros = NULL;
  g_autoptr(EpTensor) full_flat = NULL;
  g_autoptr(EpTensor) scattered = NULL;

  g_return_val_if_fail (out->ndim == ndim && axis >= 0 && (guint) axis < ndim, NULL);

  for (guint d = 0; d < ndim; d++)
    size *= shape[d];

  for (guint d = ndim; d-- > 0;)
    {
      g_autoptr(EpTensor) coordinate = NULL;
      g_autoptr(EpTensor) scaled = NULL;

      if ((gint) d == axis)
        {
          /* the indices, wrapped */
          g_autoptr(EpTensor) range = arange_like (grad, shape[d], error);

          coordinate = range != NULL ? ep_tensor_take (range, indices, 0, error) : NULL;
        }
      else if (shape[d] != 1)
        {
          g_autoptr(EpTensor) range = arange_like (grad, out->shape[d], error);

          coordinate = range != NULL ? along_axis (range, d, ndim, error) : NULL;
        }
      else
        continue;

      scaled = coordinate != NULL ? ep_tensor_mul_scalar (coordinate, (gdouble) stride, error) : NULL;
      if (scaled == NULL)
        return NULL;
      if (flat == NULL)
        flat = g_steal_pointer (&scaled);
      else
        {
          EpTensor *sum = ep_tensor_add (flat, scaled, error);

          if (sum == NULL)
            return NULL;
          g_object_unref (flat);
          flat = sum;
        }
      stride *= shape[d];
    }

  if (flat == NULL)
    {
      /* every axis has extent 1 */
      gint64 zero = 0, one = 1;

      flat = ep_grad_int64 (grad, &zero, &one, 1, error);
      if (flat == NULL)
        return NULL;
    }

  zeros = ep_grad_zeros (grad, &size, 1, error);
  full_flat = zeros != NULL ? ep_tensor_broadcast_to (flat, out->shape, out->ndim, error) : NULL;
  scattered = full_flat != NULL ? ep_tensor_scatter_add (zeros, full_flat, grad, 0, error) : NULL;
  if (scattered == NULL)
    return NULL;

  return ep_tensor_reshape (scattered, shape, ndim, error);
}

static gboolean
take_along_axis_gradient (const EpOpCall  *call,
                          EpTensor *const *output_grads,
                          EpTensor       **input_grads,
                          GError         **error)
{
  const EpLayout *x = &call->inputs[0]->layout;

  input_grads[1] = NULL;
  input_grads[0] = ep_grad_scatter_along_axis (output_grads[0], call->inputs[1],
                                               call->attrs.axes[0], x->shape, x->ndim, error);
  return input_grads[0] != NULL;
}

const EpOpDef ep_op_take_along_axis = {
  .id = EP_OP_TAKE_ALONG_AXIS, .name = "take_along_axis",
  .flags = EP_OP_FLAG_CHECKS_DATA | EP_OP_FLAG_UINT8,
  EP_INPUTS (EP_INPUT ("self"), EP_INPUT_OF ("indices", EP_INPUT_INTEGER)),
  EP_ATTRS (EP_ATTR_AXIS_ARG (.flags = EP_ATTR_NULLABLE)),
  .infer = take_along_axis_infer,
  .gradient = take_along_axis_gradient,
};

/* mask */

static gboolean
mask_infer (EpOpCall  *call,
            GError   **error)
{
  const EpLayout *x = &call->inputs[0]->layout;
  const EpLayout *mask = &call->inputs[1]->layout;
  g_autoptr(GBytes) bytes = NULL;
  gint64 shape[EP_MAX_DIMS];
  const guint8 *data;
  gsize n;
  gint64 count = 0;

  if (mask->ndim > x->ndim
      || (mask->ndim > 0 && memcmp (mask->shape, x->shape, mask->ndim * sizeof (gint64)) != 0))
    {
      g_autofree char *xs = ep_shape_to_string (x->shape, x->ndim);
      g_autofree char *ms = ep_shape_to_string (mask->shape, mask->ndim);

      g_set_error (error, EP_ERROR, EP_ERROR_SHAPE,
                   _("mask: a mask of shape %s does not match the leading axes of a tensor of shape %s"),
                   ms, xs);
      return FALSE;
    }
  if (x->ndim - mask->ndim + 1 > EP_MAX_DIMS)
    {
      g_set_error (error, EP_ERROR, EP_ERROR_SHAPE,
                   _("mask: the result would have %u dimensions, at most %d are supported"),
                   x->ndim - mask->ndim + 1, EP_MAX_DIMS);
      return FALSE;
    }

  bytes = ep_op_read_input (call, 1, error);
  if (bytes == NULL)
    return FALSE;
  data = g_bytes_get_data (bytes, &n);
  for (gsize i = 0; i < n; i++)
    count += data[i] != 0;

  shape[0] = count;
  for (guint d = mask->ndim; d < x->ndim; d++)
    shape[d - mask->ndim + 1] = x->shape[d];

  call->contiguous_inputs = 2;
  ep_op_set_output (call, x->dtype, shape, x->ndim - mask->ndim + 1);
  return TRUE;
}

/* Scatters back to the positions the mask selected: those are the mask
 * applied to their own flat numbers. */
static gboolean
mask_gradient (const EpOpCall  *call,
               EpTensor *const *output_grads,
               EpTensor       **input_grads,
               GError         **error)
{
  const EpLayout *x = &call->inputs[0]->layout;
  EpTensor *mask = call->inputs[1];
  const EpLayout *m = &mask->layout;
  gint64 positions_count = ep_layout_get_size (m);
  gint64 shape[EP_MAX_DIMS];
  g_autoptr(EpTensor) range = arange_like (output_grads[0], positions_count, error);
  g_autoptr(EpTensor) numbered = NULL;
  g_autoptr(EpTensor) positions = NULL;
  g_autoptr(EpTensor) zeros = NULL;
  g_autoptr(EpTensor) scattered = NULL;

  numbered = range != NULL ? ep_tensor_reshape (range, m->shape, m->ndim, error) : NULL;
  positions = numbered != NULL ? ep_tensor_mask (numbered, mask, error) : NULL;
  if (positions == NULL)
    return FALSE;

  shape[0] = positions_count;
  for (guint d = m->ndim; d < x->ndim; d++)
    shape[d - m->ndim + 1] = x->shape[d];
  zeros = ep_grad_zeros (output_grads[0], shape, x->ndim - m->ndim + 1, error);
  scattered = zeros != NULL ? ep_tensor_scatter_add (zeros, positions, output_grads[0], 0, error) : NULL;
  if (scattered == NULL)
    return FALSE;

  input_grads[1] = NULL;
  input_grads[0] = ep_tensor_reshape (scattered, x->shape, x->ndim, error);
  return input_grads[0] != NULL;
}

const EpOpDef ep_op_mask = {
  .id = EP_OP_MASK, .name = "mask",
  .flags = EP_OP_FLAG_READS_DATA | EP_OP_FLAG_DATA_SHAPED | EP_OP_FLAG_UINT8,
  EP_INPUTS (EP_INPUT ("self"), EP_INPUT_OF ("mask", EP_INPUT_BOOL)),
  .infer = mask_infer,
  .gradient = mask_gradient,
};

/* index_update and scatter_add: inputs (self, indices, values) */

static gboolean
scatter_infer (EpOpCall  *call,
               GError   **error)
{
  const EpLayout *x = &call->inputs[0]->layout;
  const EpLayout *values = &call->inputs[2]->layout;
  gint64 shape[EP_MAX_DIMS];
  guint ndim;
  gint axis;

  if (!canonical_axis (call, x->ndim, error))
    return FALSE;
  axis = call->attrs.axes[0];
  if (!indexed_shape (call, axis, shape, &ndim, error))
    return FALSE;

  for (guint d = 0; d < values->ndim; d++)
    {
      gint64 have = values->shape[values->ndim - 1 - d];

      if (d >= ndim || (have != 1 && have != shape[ndim - 1 - d]))
        {
          g_autofree char *vs = ep_shape_to_string (values->shape, values->ndim);
          g_autofree char *is = ep_shape_to_string (shape, ndim);

          g_set_error (error, EP_ERROR, EP_ERROR_SHAPE,
                       _("%s: values of shape %s do not broadcast to the indexed shape %s"),
                       call->op->name, vs, is);
          return FALSE;
        }
    }

  call->input_dtypes[1] = EP_DTYPE_INT64;
  call->input_dtypes[2] = x->dtype;
  ep_op_set_output (call, x->dtype, x->shape, x->ndim);
  return TRUE;
}

static gboolean
scatter_add_gradient (const EpOpCall  *call,
                      EpTensor *const *output_grads,
                      EpTensor       **input_grads,
                      GError         **error)
{
  g_autoptr(EpTensor) taken = ep_tensor_take (output_grads[0], call->inputs[1],
                                              call->attrs.axes[0], error);

  if (taken == NULL)
    return FALSE;

  input_grads[0] = g_object_ref (output_grads[0]);
  input_grads[1] = NULL;
  return ep_grad_set_summed (call, 2, g_steal_pointer (&taken), input_grads, error);
}

/* The updated positions get no gradient from the output; of values
 * written to the same position only the last one, which won, gets it. */
static gboolean
index_update_gradient (const EpOpCall  *call,
                       EpTensor *const *output_grads,
                       EpTensor       **input_grads,
                       GError         **error)
{
  const EpLayout *x = &call->inputs[0]->layout;
  EpTensor *indices = call->inputs[1];
  const EpLayout *idx = &indices->layout;
  EpTensor *grad = output_grads[0];
  gint axis = call->attrs.axes[0];
  gint64 extent = x->shape[axis];
  gint64 shape[EP_MAX_DIMS];
  g_autoptr(EpTensor) zero = ep_tensor_new_weak_scalar (0, EP_DTYPE_FLOAT64);
  g_autoptr(EpTensor) range = NULL;
  g_autoptr(EpTensor) numbers = NULL;
  g_autoptr(EpTensor) none = NULL;
  g_autoptr(EpTensor) last = NULL;
  g_autoptr(EpTensor) written = NULL;
  g_autoptr(EpTensor) won = NULL;
  g_autoptr(EpTensor) won_here = NULL;
  g_autoptr(EpTensor) taken = NULL;
  g_autoptr(EpTensor) chosen = NULL;

  input_grads[1] = NULL;
  input_grads[0] = ep_tensor_index_update (grad, indices, zero, axis, error);
  if (input_grads[0] == NULL)
    return FALSE;

  range = arange_like (grad, ep_layout_get_size (idx), error);
  numbers = range != NULL ? ep_tensor_reshape (range, idx->shape, idx->ndim, error) : NULL;
  if (numbers == NULL)
    return FALSE;
  none = ep_full_on (grad->storage->device, &extent, 1, ep_number_from_int64 (-1), EP_DTYPE_INT64, error);
  last = none != NULL ? ep_tensor_index_update (none, indices, numbers, 0, error) : NULL;
  written = last != NULL ? ep_tensor_take (last, indices, 0, error) : NULL;
  won = written != NULL ? ep_tensor_equal (written, numbers, error) : NULL;
  if (won == NULL)
    return FALSE;

  /* idx.shape followed by ones for the axes after @axis */
  memcpy (shape, idx->shape, idx->ndim * sizeof (gint64));
  for (guint d = axis + 1; d < x->ndim; d++)
    shape[idx->ndim + d - axis - 1] = 1;
  won_here = ep_tensor_reshape (won, shape, idx->ndim + x->ndim - axis - 1, error);
  taken = won_here != NULL ? ep_tensor_take (grad, indices, axis, error) : NULL;
  chosen = taken != NULL ? ep_tensor_where (won_here, taken, zero, error) : NULL;
  if (chosen == NULL)
    return FALSE;

  return ep_grad_set_summed (call, 2, g_steal_pointer (&chosen), input_grads, error);
}

const EpOpDef ep_op_index_update = {
  .id = EP_OP_INDEX_UPDATE, .name = "index_update",
  .flags = EP_OP_FLAG_CHECKS_DATA | EP_OP_FLAG_UINT8,
  EP_INPUTS (EP_INPUT ("self"), EP_INPUT_OF ("indices", EP_INPUT_INTEGER), EP_INPUT ("values")),
  EP_ATTRS (EP_ATTR_AXIS_ARG (EP_DEFAULT (0))),
  .infer = scatter_infer,
  .gradient = index_update_gradient,
};

const EpOpDef ep_op_scatter_add = {
  .id = EP_OP_SCATTER_ADD, .name = "scatter_add",
  .flags = EP_OP_FLAG_CHECKS_DATA | EP_OP_FLAG_UINT8,
  EP_INPUTS (EP_INPUT ("self"), EP_INPUT_OF ("indices", EP_INPUT_INTEGER), EP_INPUT ("values")),
  EP_ATTRS (EP_ATTR_AXIS_ARG (EP_DEFAULT (0))),
  .infer = scatter_infer,
  .gradient = scatter_add_gradient,
};

/* Where each axis of take's output comes from: the source's axes before
 * and after @axis, and the indices' axes in between. The strides of the
 * indices and of the source along each axis of the output (0 where one
 * does not move), for the kernels of take and of the scatters. */
void
ep_take_strides (const EpLayout *x,
                 const EpLayout *idx,
                 gint            axis,
                 gint64         *index_strides,
                 gint64         *source_strides)
{
  guint n = 0;

  for (gint d = 0; d < axis; d++, n++)
    {
      index_strides[n] = 0;
      source_strides[n] = x->strides[d];
    }
  for (guint d = 0; d < idx->ndim; d++, n++)
    {
      index_strides[n] = idx->strides[d];
      source_strides[n] = 0;
    }
  for (guint d = axis + 1; d < x->ndim; d++, n++)
    {
      index_strides[n] = 0;
      source_strides[n] = x->strides[d];
    }
}

/* The error of the kernels of take, take_along_axis, index_update and
 * scatter_add on every device, for @index (as the caller gave it, before
 * negative ones count from the end) out of range for the indexed axis. */
gboolean
ep_index_error (const EpOpCall  *call,
                gint64           index,
                GError         **error)
{
  gint axis = call->attrs.axes[0];

  g_set_error (error, EP_ERROR, EP_ERROR_INDEX,
               _("%s: index %" PRId64 " is out of range for axis %d of extent %" PRId64),
               call->op->name, index, axis, call->inputs[0]->layout.shape[axis]);
  return FALSE;
}

/* The same for take (as ep_take_strides()) or take_along_axis, whose
 * indices and source broadcast against the output, the source standing
 * still along the axis. */
void
ep_gather_strides (const EpOpCall *call,
                   gint64         *index_strides,
                   gint64         *source_strides)
{
  const EpLayout *x = &call->inputs[0]->layout;
  const EpLayout *idx = &call->inputs[1]->layout;
  const EpLayout *out = &call->output_layouts[0];
  gint axis = call->attrs.axes[0];

  if (call->op->id == EP_OP_TAKE)
    {
      ep_take_strides (x, idx, axis, index_strides, source_strides);
      return;
    }

  for (guint d = 0; d < out->ndim; d++)
    {
      index_strides[d] = idx->shape[d] == out->shape[d] ? idx->strides[d] : 0;
      source_strides[d] = (gint) d != axis && x->shape[d] == out->shape[d] ? x->strides[d] : 0;
    }
}

/* Public methods */

/**
 * ep_tensor_take:
 * @self: a tensor, at least 1-D
 * @indices: an integer tensor of any shape
 * @axis: the axis to take along, or %EP_AXIS_NONE to take from the
 *   flattened tensor
 * @error: return location for an error
 *
 * Gathers the elements at @indices along @axis, as NumPy's `take`: the
 * result has shape `self.shape[:axis] + indices.shape +
 * self.shape[axis+1:]`. Negative indices count from the end. Its
 * gradient is [method@Tensor.scatter_add].
 *
 * Returns: (transfer full): the gathered tensor, or %NULL with
 *   %EP_ERROR_INDEX set if an index is out of range, %EP_ERROR_DTYPE if
 *   @indices are not integers, or %EP_ERROR_AXIS
 */
EpTensor *
ep_tensor_take (EpTensor  *self,
                EpTensor  *indices,
                gint       axis,
                GError   **error)
{
  EpTensor *inputs[2] = { self, indices };

  g_return_val_if_fail (EP_IS_TENSOR (self), NULL);
  g_return_val_if_fail (EP_IS_TENSOR (indices), NULL);

  return ep_dispatch_axis_or_flat (&ep_op_take, inputs, 2, 1, axis, error);
}

/**
 * ep_tensor_take_along_axis:
 * @self: a tensor, at least 1-D
 * @indices: an integer tensor of the same rank as @self
 * @axis: the axis to take along, or %EP_AXIS_NONE to take from the
 *   flattened tensor with flattened indices
 * @error: return location for an error
 *
 * Gathers along @axis with one index per output element, as NumPy's
 * `take_along_axis`: `out[i, j, k] = self[i, indices[i, j, k], k]` for
 * `axis = 1`. Outside @axis, @indices and @self broadcast together.
 * Negative indices count from the end. Useful with the results of
 * `argsort` or `argmax` (with keepdims).
 *
 * Returns: (transfer full): the gathered tensor, or %NULL with
 *   %EP_ERROR_INDEX set if an index is out of range, %EP_ERROR_SHAPE if
 *   the shapes do not fit, %EP_ERROR_DTYPE if @indices are not integers,
 *   or %EP_ERROR_AXIS
 */
EpTensor *
ep_tensor_take_along_axis (EpTensor  *self,
                           EpTensor  *indices,
                           gint       axis,
                           GError   **error)
{
  EpTensor *inputs[2] = { self, indices };

  g_return_val_if_fail (EP_IS_TENSOR (self), NULL);
  g_return_val_if_fail (EP_IS_TENSOR (indices), NULL);

  return ep_dispatch_axis_or_flat (&ep_op_take_along_axis, inputs, 2, 2, axis, error);
}

/**
 * ep_tensor_mask:
 * @self: a tensor
 * @mask: a bool tensor whose shape is that of the leading axes of @self
 * @error: return location for an error
 *
 * Boolean indexing, `self[mask]` in NumPy: the elements (or sub-tensors,
 * when @mask covers only the leading axes) where @mask is true, in C
 * order, along one new first axis. The length of the result depends on
 * the values of @mask.
 *
 * Returns: (transfer full): the selected elements, or %NULL with
 *   %EP_ERROR_DTYPE set if @mask is not bool or %EP_ERROR_SHAPE if its
 *   shape does not match
 */
EpTensor *
ep_tensor_mask (EpTensor  *self,
                EpTensor  *mask,
                GError   **error)
{
  EpTensor *inputs[2] = { self, mask };

  g_return_val_if_fail (EP_IS_TENSOR (self), NULL);
  g_return_val_if_fail (EP_IS_TENSOR (mask), NULL);

  return ep_dispatch1 (&ep_op_mask, inputs, 2, NULL, error);
}

const EpOpDef ep_func_nonzero = {
  .id = EP_N_OPS, .name = "nonzero",
  EP_INPUTS (EP_INPUT ("self")),
};

/* The coordinates of every element of a tensor of @shape, in C order:
 * int64 of shape (size, @ndim), on @like's device */
static EpTensor *
coordinate_grid (EpTensor      *like,
                 const gint64  *shape,
                 guint          ndim,
                 gint64         size,
                 GError       **error)
{
  g_autoptr(GPtrArray) columns = g_ptr_array_new_with_free_func (g_object_unref);
  const gint64 flat[1] = { size };

  if (ndim == 0)
    {
      /* one element, no coordinate: (1, 0) */
      const gint64 none[2] = { 1, 0 };
      g_autoptr(EpTensor) empty = arange_like (like, 0, error);

      return empty != NULL ? ep_tensor_reshape (empty, none, 2, error) : NULL;
    }

  for (guint d = 0; d < ndim; d++)
    {
      g_autoptr(EpTensor) range = arange_like (like, shape[d], error);
      g_autoptr(EpTensor) along = range != NULL ? along_axis (range, d, ndim, error) : NULL;
      g_autoptr(EpTensor) spread = along != NULL ? ep_tensor_broadcast_to (along, shape, ndim, error) : NULL;
      EpTensor *column = spread != NULL ? ep_tensor_reshape (spread, flat, 1, error) : NULL;

      if (column == NULL)
        return NULL;
      g_ptr_array_add (columns, column);
    }

  return ep_stack ((EpTensor **) columns->pdata, columns->len, 1, error);
}

/**
 * ep_tensor_nonzero:
 * @self: a tensor of any type
 * @error: return location for an error
 *
 * The coordinates of the nonzero (true) elements of @self, in C order,
 * as PyTorch's `torch.nonzero (self)` and NumPy's `argwhere (self)`: an
 * int64 tensor of shape `(n, ndim)`, one row per such element (NaN is
 * nonzero, -0.0 is zero); a 0-d @self gives `(1, 0)` or `(0, 0)`.
 * NumPy's `nonzero`, a tuple of one index array per axis, is the
 * columns of it. The number of rows depends on the values: it is
 * [method@Tensor.mask] of the coordinate grid by `self != 0`, so it
 * runs on every device, and a staged function that calls it reads the
 * mask back at each call, as for [method@Tensor.mask]. No gradient
 * (the result is integer).
 *
 * Returns: (transfer full): the coordinates, or %NULL with
 *   %EP_ERROR_OUT_OF_MEMORY set if the grid of coordinates does not fit
 */
EpTensor *
ep_tensor_nonzero (EpTensor  *self,
                   GError   **error)
{
  g_autoptr(EpTensor) flags = NULL;
  g_autoptr(EpTensor) flat = NULL;
  g_autoptr(EpTensor) grid = NULL;
  const EpLayout *x;
  gint64 size[1];

  g_return_val_if_fail (EP_IS_TENSOR (self), NULL);

  x = &self->layout;
  size[0] = ep_layout_get_size (x);
  flags = ep_tensor_bool (self, error);
  flat = flags != NULL ? ep_tensor_reshape (flags, size, 1, error) : NULL;
  grid = flat != NULL ? coordinate_grid (flat, x->shape, x->ndim, size[0], error) : NULL;
  if (grid == NULL)
    return ep_error_named_result (NULL, error, "nonzero");

  return ep_error_named_result (ep_tensor_mask (grid, flat, error), error, "nonzero");
}

/**
 * ep_tensor_index_update:
 * @self: a tensor, at least 1-D
 * @indices: an integer tensor of any shape
 * @values: the new values, broadcastable to the shape that
 *   [method@Tensor.take] with @indices would give; converted to the
 *   type of @self
 * @axis: the axis @indices refer to
 * @error: return location for an error
 *
 * A copy of @self with the elements at @indices along @axis replaced by
 * the @values, the functional form of NumPy's
 * `x[..., indices, ...] = values`; @self is not changed. If an index repeats, the last value written to
 * it wins.
 *
 * Returns: (transfer full): the updated copy, or %NULL with
 *   %EP_ERROR_INDEX set if an index is out of range, %EP_ERROR_SHAPE if
 *   @values do not broadcast, %EP_ERROR_DTYPE, or %EP_ERROR_AXIS
 */
EpTensor *
ep_tensor_index_update (EpTensor  *self,
                        EpTensor  *indices,
                        EpTensor  *values,
                        gint       axis,
                        GError   **error)
{
  EpTensor *inputs[3] = { self, indices, values };

  g_return_val_if_fail (EP_IS_TENSOR (self), NULL);
  g_return_val_if_fail (EP_IS_TENSOR (indices), NULL);
  g_return_val_if_fail (EP_IS_TENSOR (values), NULL);

  return ep_dispatch_axis (&ep_op_index_update, inputs, 3, axis, error);
}

/**
 * ep_tensor_scatter_add:
 * @self: a tensor, at least 1-D
 * @indices: an integer tensor of any shape
 * @values: the values to add, broadcastable to the shape that
 *   [method@Tensor.take] with @indices would give; converted to the
 *   type of @self
 * @axis: the axis @indices refer to
 * @error: return location for an error
 *
 * A copy of @self with @values added at @indices along @axis, as NumPy's
 * `np.add.at`: values for a repeated index all accumulate. This is the
 * mirror image of [method@Tensor.take], and its gradient. For bool
 * tensors adding is logical or.
 *
 * Returns: (transfer full): the new tensor, or %NULL with
 *   %EP_ERROR_INDEX set if an index is out of range, %EP_ERROR_SHAPE if
 *   @values do not broadcast, %EP_ERROR_DTYPE, or %EP_ERROR_AXIS
 */
EpTensor *
ep_tensor_scatter_add (EpTensor  *self,
                       EpTensor  *indices,
                       EpTensor  *values,
                       gint       axis,
                       GError   **error)
{
  EpTensor *inputs[3] = { self, indices, values };

  g_return_val_if_fail (EP_IS_TENSOR (self), NULL);
  g_return_val_if_fail (EP_IS_TENSOR (indices), NULL);
  g_return_val_if_fail (EP_IS_TENSOR (values), NULL);

  return ep_dispatch_axis (&ep_op_scatter_add, inputs, 3, axis, error);
}

/* embedding: PyTorch's torch.nn.functional.embedding, rows of a table */

const EpOpDef ep_func_embedding = {
  .id = EP_N_OPS, .name = "embedding",
  EP_INPUTS (EP_INPUT_OF ("indices", EP_INPUT_INTEGER), EP_INPUT ("weight")),
};

/**
 * ep_embedding:
 * @indices: an int32 or int64 tensor of any shape: rows of @weight
 * @weight: the table, of shape (rows, dim)
 * @error: return location for an error
 *
 * Looks up rows of a table, as PyTorch's
 * `torch.nn.functional.embedding`: the result has shape
 * `indices.shape + (dim,)`, its element `[i…, j]` is `weight[indices[i…], j]`.
 * It is [method@Tensor.take] along axis 0, and so is its gradient: the
 * output's gradient summed into the rows it came from
 * ([method@Tensor.scatter_add]), a row that no index names getting 0.
 * As in `take`, a negative index counts from the end (PyTorch refuses
 * them).
 *
 * Returns: (transfer full): the rows, or %NULL with %EP_ERROR_INDEX set
 *   for an index out of range (the first in C order), %EP_ERROR_DTYPE if
 *   @indices are not integers, or %EP_ERROR_SHAPE if @weight is not 2-D
 */
EpTensor *
ep_embedding (EpTensor  *indices,
              EpTensor  *weight,
              GError   **error)
{
  g_return_val_if_fail (EP_IS_TENSOR (indices), NULL);
  g_return_val_if_fail (EP_IS_TENSOR (weight), NULL);

  if (!ep_dtype_is_integer (indices->layout.dtype))
    {
      g_set_error (error, EP_ERROR, EP_ERROR_DTYPE,
                   _("embedding: the indices must be a tensor of type int32 or int64, not %s"),
                   ep_dtype_get_name (indices->layout.dtype));
      return NULL;
    }
  if (weight->layout.ndim != 2)
    {
      g_set_error (error, EP_ERROR, EP_ERROR_SHAPE,
                   _("embedding: the weight must have 2 dimensions (rows, dim), not %u"),
                   weight->layout.ndim);
      return NULL;
    }

  return ep_error_named_result (ep_tensor_take (weight, indices, 0, error), error, "embedding");
}

/* bincount (issue 17, ops): its rule reads the indices (their largest
 * sizes the output, a negative one is an error); the kernels add the
 * weights in the input's order (ep-count-private.h). Not differentiable:
 * counts are integers, and weighted sums are not differentiated either,
 * as NumPy's bincount has no gradient. */

static gboolean
bincount_infer (EpOpCall  *call,
                GError   **error)
{
  const EpLayout *x = &call->inputs[0]->layout, *w = &call->inputs[1]->layout;
  g_autoptr(GBytes) bytes = NULL;
  gconstpointer data;
  gsize nbytes;
  gint64 n, largest = -1, length;
  EpDType dtype = ep_dtype_is_floating (w->dtype) ? w->dtype : EP_DTYPE_INT64;

  if (x->ndim != 1)
    {
      g_set_error (error, EP_ERROR, EP_ERROR_SHAPE,
                   _("bincount: the input must be 1-D (got %u dimensions)"), x->ndim);
      return FALSE;
    }
  if (w->ndim != 1 || w->shape[0] != x->shape[0])
    {
      g_autofree char *xs = ep_shape_to_string (x->shape, x->ndim);
      g_autofree char *ws = ep_shape_to_string (w->shape, w->ndim);

      g_set_error (error, EP_ERROR, EP_ERROR_SHAPE,
                   _("bincount: the weights %s must have the shape of the input %s"), ws, xs);
      return FALSE;
    }

  if ((bytes = ep_op_read_input (call, 0, error)) == NULL)
    return FALSE;
  data = g_bytes_get_data (bytes, &nbytes);
  n = x->shape[0];
  for (gint64 i = 0; i < n; i++)
    {
      gint64 v = x->dtype == EP_DTYPE_INT32 ? ((const gint32 *) data)[i] : ((const gint64 *) data)[i];

      if (v < 0)
        {
          g_set_error (error, EP_ERROR, EP_ERROR_INVALID_ARGUMENT,
                       _("bincount: the input must not be negative (got %" PRId64 " at %" PRId64 ")"), v, i);
          return FALSE;
        }
      largest = MAX (largest, v);
    }

  /* largest + 1 bins (no overflow: largest < G_MAXINT64), or minlength */
  length = MAX (largest + 1, call->attrs.bincount.minlength);
  if (length > G_MAXINT64 / 8)
    {
      g_set_error (error, EP_ERROR, EP_ERROR_OUT_OF_MEMORY,
                   _("bincount: %" PRId64 " bins are more than can be addressed"), length);
      return FALSE;
    }

  call->input_dtypes[0] = EP_DTYPE_INT64;
  call->input_dtypes[1] = dtype;
  call->contiguous_inputs = 0x3;
  ep_op_set_output (call, dtype, &length, 1);
  return TRUE;
}

/* Not differentiable: see above. */
const EpOpDef ep_op_bincount = {
  .id = EP_OP_BINCOUNT, .name = "bincount",
  .flags = EP_OP_FLAG_READS_DATA | EP_OP_FLAG_DATA_SHAPED,
  EP_INPUTS (EP_INPUT_OF ("self", EP_INPUT_INTEGER), EP_INPUT ("weights")),
  EP_ATTRS (EP_ATTR ("minlength", EP_ATTR_INT, EP_FIELD (bincount.minlength), EP_DEFAULT (0),
                     .flags = EP_ATTR_NON_NEGATIVE)),
  .infer = bincount_infer,
  .gradient = NULL,
};

/**
 * ep_tensor_bincount:
 * @self: a 1-D int32 or int64 tensor of non-negative values
 * @weights: a tensor of the shape of @self whose elements are added up
 *   per value: ones (of an integer type) count each element once, as
 *   NumPy's `bincount` without weights
 * @minlength: the least number of bins, 0 or more
 * @error: return location for an error
 *
 * How many times each value 0, 1, … occurs in @self, as NumPy's
 * `bincount`: bin v of the result counts the elements equal to v (or
 * adds up their weights), for v up to the largest element, or up to
 * @minlength - 1 when that is more. Counts are int64; weighted sums keep
 * a float32 or float64 type of @weights, and are int64 for integer and
 * bool weights. The sums follow the order of @self on every device.
 *
 * The length depends on the values: the rule reads @self (as
 * [method@Tensor.mask] reads its mask), so a staged function that calls
 * it reads @self back at each call. On OpenCL the counting is a host
 * round trip too (the indices are read back anyway, and sums keep the
 * CPU's order). Not differentiable.
 *
 * Returns: (transfer full): the bins, or %NULL with
 *   %EP_ERROR_INVALID_ARGUMENT set if @self has a negative element or
 *   @minlength is negative, %EP_ERROR_SHAPE if @self is not 1-D or
 *   @weights has another shape, or %EP_ERROR_DTYPE if @self is not
 *   integer
 */
EpTensor *
ep_tensor_bincount (EpTensor  *self,
                    EpTensor  *weights,
                    gint64     minlength,
                    GError   **error)
{
  EpTensor *inputs[2] = { self, weights };
  EpOpAttrs attrs;

  g_return_val_if_fail (EP_IS_TENSOR (self), NULL);
  g_return_val_if_fail (EP_IS_TENSOR (weights), NULL);

  ep_op_attrs_init (&attrs);
  attrs.bincount.minlength = minlength;
  return ep_dispatch1 (&ep_op_bincount, inputs, 2, &attrs, error);
}

/* histogram (issue 17, ops): NumPy's equal bins as a composite of
 * reductions, elementwise ops, take and scatter_add, so that it runs on
 * every device and stays the same shape for any values (no host read).
 * Its edges are NumPy's linspace (float64, rounded to the data's float
 * type) and each element's bin is NumPy's: (x - first) * norm truncated
 * in the data's type, then moved by one where the edges say otherwise,
 * so that counts and edges agree bit for bit with NumPy's. */

const EpOpDef ep_func_histogram = {
  .id = EP_N_OPS, .name = "histogram",
  EP_INPUTS (EP_INPUT ("self")),
  EP_ATTRS (EP_ATTR ("bins", EP_ATTR_INT, EP_NO_FIELD, EP_DEFAULT (10)),
            EP_ATTR ("range_min", EP_ATTR_FLOAT, EP_NO_FIELD, EP_DEFAULT (NAN), .flags = EP_ATTR_NULLABLE),
            EP_ATTR ("range_max", EP_ATTR_FLOAT, EP_NO_FIELD, EP_DEFAULT (NAN), .flags = EP_ATTR_NULLABLE)),
  EP_OUTPUTS ("hist", "bin_edges"),
};

/* @t, owned by @held from now on (NULL stays NULL) */
static EpTensor *
held (GPtrArray *held,
      EpTensor  *t)
{
  if (t != NULL)
    g_ptr_array_add (held, t);
  return t;
}

/* start + i * step for i in [0, bins], the last one @stop, in the type
 * of @start: NumPy's linspace (its endpoint set exactly) */
static EpTensor *
linspace_edges (GPtrArray  *h,
                EpDevice   *device,
                EpTensor   *start,
                EpTensor   *stop,
                gint64      bins,
                GError    **error)
{
  EpDType dtype = start->layout.dtype;
  const gint64 zero[1] = { 0 }, cut[1] = { bins }, one[1] = { 1 };
  EpTensor *range, *delta, *step, *scaled, *edges, *inner, *last;
  EpTensor *parts[2];

  if ((range = held (h, ep_arange_on (device, ep_number_from_int64 (0), ep_number_from_int64 (bins + 1),
                                      ep_number_from_int64 (1), dtype, error))) == NULL
      || (delta = held (h, ep_tensor_sub (stop, start, error))) == NULL
      || (step = held (h, ep_tensor_div_scalar (delta, (gdouble) bins, error))) == NULL
      || (scaled = held (h, ep_tensor_mul (range, step, error))) == NULL
      || (edges = held (h, ep_tensor_add (scaled, start, error))) == NULL
      || (inner = held (h, ep_tensor_slice (edges, zero, 1, cut, 1, NULL, 0, error))) == NULL
      || (last = held (h, ep_tensor_reshape (stop, one, 1, error))) == NULL)
    return NULL;
  parts[0] = inner;
  parts[1] = last;
  return held (h, ep_concatenate (parts, 2, 0, error));
}

static EpTensor *
scalar_on (GPtrArray  *h,
           EpDevice   *device,
           gdouble     value,
           EpDType     dtype,
           GError    **error)
{
  return held (h, ep_full_on (device, NULL, 0, ep_number_from_double (value), dtype, error));
}

/* Each element's bin, given the edges and the range of @x (of the bins'
 * type) and norm = bins / (last - first): NumPy's index, corrected by
 * the edges; bins itself for an element outside the range. */
static EpTensor *
bin_indices (GPtrArray  *h,
             EpTensor   *x,
             EpTensor   *first,
             EpTensor   *last,
             EpTensor   *norm,
             EpTensor   *edges,
             gint64      bins,
             GError    **error)
{
  EpDevice *device = x->storage->device;
  EpTensor *above, *below, *keep, *shifted, *f, *truncated, *index, *lower, *decrement, *step_down;
  EpTensor *down, *next, *upper, *reaches, *not_last, *increment, *step_up, *up, *outside;

  if ((above = held (h, ep_tensor_greater_equal (x, first, error))) == NULL
      || (below = held (h, ep_tensor_less_equal (x, last, error))) == NULL
      || (keep = held (h, ep_tensor_logical_and (above, below, error))) == NULL
      || (shifted = held (h, ep_tensor_sub (x, first, error))) == NULL
      || (f = held (h, ep_tensor_mul (shifted, norm, error))) == NULL
      || (truncated = held (h, ep_tensor_astype (f, EP_DTYPE_INT64, error))) == NULL
      /* the last edge belongs to the last bin; elements out of the
       * range get any bin in it, replaced below */
      || (index = held (h, ep_tensor_clip (truncated, 0, (gdouble) (bins - 1), error))) == NULL
      || (lower = held (h, ep_tensor_take (edges, index, 0, error))) == NULL
      || (decrement = held (h, ep_tensor_less (x, lower, error))) == NULL
      || (step_down = held (h, ep_tensor_astype (decrement, EP_DTYPE_INT64, error))) == NULL
      || (down = held (h, ep_tensor_sub (index, step_down, error))) == NULL
      || (index = held (h, ep_tensor_clip (down, 0, (gdouble) (bins - 1), error))) == NULL
      || (next = held (h, ep_tensor_add_scalar (index, 1, error))) == NULL
      || (upper = held (h, ep_tensor_take (edges, next, 0, error))) == NULL
      || (reaches = held (h, ep_tensor_greater_equal (x, upper, error))) == NULL
      || (not_last = held (h, ep_tensor_not_equal_scalar (index, (gdouble) (bins - 1), error))) == NULL
      || (increment = held (h, ep_tensor_logical_and (reaches, not_last, error))) == NULL
      || (step_up = held (h, ep_tensor_astype (increment, EP_DTYPE_INT64, error))) == NULL
      || (up = held (h, ep_tensor_add (index, step_up, error))) == NULL
      || (outside = scalar_on (h, device, (gdouble) bins, EP_DTYPE_INT64, error)) == NULL)
    return NULL;

  return held (h, ep_tensor_where (keep, up, outside, error));
}

static gboolean
histogram (EpTensor   *self,
           gint64      bins,
           gdouble     range_min,
           gdouble     range_max,
           EpTensor  **hist,
           EpTensor  **bin_edges,
           GError    **error)
{
  g_autoptr(GPtrArray) h = g_ptr_array_new_with_free_func (g_object_unref);
  EpDevice *device;
  EpDType dtype = ep_dtype_is_floating (self->layout.dtype) ? self->layout.dtype : EP_DTYPE_FLOAT64;
  gint64 n = ep_layout_get_size (&self->layout);
  const gint64 flat_shape[1] = { n }, counted[1] = { bins + 1 }, zero[1] = { 0 }, cut[1] = { bins };
  EpTensor *flat, *x, *first, *last, *norm, *edges, *index, *ones, *zeros, *counts;

  if ((flat = held (h, ep_tensor_reshape (self, flat_shape, 1, error))) == NULL
      || (x = held (h, ep_tensor_astype (flat, dtype, error))) == NULL)
    return FALSE;
  /* (from a result: @self may be a bare object, refused by reshape) */
  device = x->storage->device;

  if (!isnan (range_min) || n == 0)
    {
      /* a range of Python floats: linspace in float64, then rounded;
       * NumPy's (0, 1) for no data */
      gdouble lo = isnan (range_min) ? 0 : range_min, hi = isnan (range_min) ? 1 : range_max;
      EpTensor *lo64, *hi64, *edges64;

      if (lo == hi)
        {
          lo -= 0.5;
          hi += 0.5;
        }
      if ((lo64 = scalar_on (h, device, lo, EP_DTYPE_FLOAT64, error)) == NULL
          || (hi64 = scalar_on (h, device, hi, EP_DTYPE_FLOAT64, error)) == NULL
          || (edges64 = linspace_edges (h, device, lo64, hi64, bins, error)) == NULL
          || (edges = held (h, ep_tensor_astype (edges64, dtype, error))) == NULL
          || (first = scalar_on (h, device, lo, dtype, error)) == NULL
          || (last = scalar_on (h, device, hi, dtype, error)) == NULL
          || (norm = scalar_on (h, device, (gdouble) bins / (hi - lo), dtype, error)) == NULL)
        return FALSE;
    }
  else
    {
      /* the data's range; widened by a half on both sides
       * where it is one value, which NumPy computes in float64 */
      EpTensor *lo, *hi, *same, *lo64, *hi64, *wide_lo, *wide_hi, *lo64a, *hi64a, *edges64, *delta;
      EpTensor *delta64, *width, *span, *bins64, *norm64;

      if ((lo = held (h, ep_tensor_min (x, NULL, 0, FALSE, error))) == NULL
          || (hi = held (h, ep_tensor_max (x, NULL, 0, FALSE, error))) == NULL
          || (same = held (h, ep_tensor_equal (lo, hi, error))) == NULL
          || (lo64 = held (h, ep_tensor_astype (lo, EP_DTYPE_FLOAT64, error))) == NULL
          || (hi64 = held (h, ep_tensor_astype (hi, EP_DTYPE_FLOAT64, error))) == NULL
          || (wide_lo = held (h, ep_tensor_sub_scalar (lo64, 0.5, error))) == NULL
          || (wide_hi = held (h, ep_tensor_add_scalar (hi64, 0.5, error))) == NULL
          || (lo64a = held (h, ep_tensor_where (same, wide_lo, lo64, error))) == NULL
          || (hi64a = held (h, ep_tensor_where (same, wide_hi, hi64, error))) == NULL
          || (edges64 = linspace_edges (h, device, lo64a, hi64a, bins, error)) == NULL
          || (edges = held (h, ep_tensor_astype (edges64, dtype, error))) == NULL
          || (first = held (h, ep_tensor_astype (lo64a, dtype, error))) == NULL
          || (last = held (h, ep_tensor_astype (hi64a, dtype, error))) == NULL
          || (delta = held (h, ep_tensor_sub (hi, lo, error))) == NULL
          || (delta64 = held (h, ep_tensor_astype (delta, EP_DTYPE_FLOAT64, error))) == NULL
          || (width = held (h, ep_tensor_sub (hi64a, lo64a, error))) == NULL
          || (span = held (h, ep_tensor_where (same, width, delta64, error))) == NULL
          || (bins64 = scalar_on (h, device, (gdouble) bins, EP_DTYPE_FLOAT64, error)) == NULL
          || (norm64 = held (h, ep_tensor_div (bins64, span, error))) == NULL
          || (norm = held (h, ep_tensor_astype (norm64, dtype, error))) == NULL)
        return FALSE;
    }

  if ((index = bin_indices (h, x, first, last, norm, edges, bins, error)) == NULL
      || (ones = held (h, ep_full_on (device, flat_shape, 1, ep_number_from_int64 (1), EP_DTYPE_INT64, error))) == NULL
      || (zeros = held (h, ep_full_on (device, counted, 1, ep_number_from_int64 (0), EP_DTYPE_INT64, error))) == NULL
      || (counts = held (h, ep_tensor_scatter_add (zeros, index, ones, 0, error))) == NULL
      || (*hist = ep_tensor_slice (counts, zero, 1, cut, 1, NULL, 0, error)) == NULL)
    return FALSE;
  /* no gradient: the edges are not meant to be differentiated */
  if ((*bin_edges = ep_tensor_stop_gradient (edges, error)) == NULL)
    {
      g_clear_object (hist);
      return FALSE;
    }
  return TRUE;
}

/**
 * ep_tensor_histogram:
 * @self: a tensor of any shape (flattened) and real type
 * @bins: the number of equal bins, 1 or more
 * @range_min: the lower edge of the first bin, or NaN for the smallest
 *   element of @self
 * @range_max: the upper edge of the last bin, or NaN for the largest
 *   element; NaN exactly when @range_min is
 * @hist: (out) (transfer full) (optional): int64 counts, one per bin
 * @bin_edges: (out) (transfer full) (optional): the @bins + 1 edges, of
 *   @self's float type (float64 for integers)
 * @error: return location for an error
 *
 * NumPy's `histogram` with a number of bins: counts of the elements in
 * each of @bins equal intervals between the edges, each interval closed
 * on the left and open on the right but the last, closed on both sides;
 * elements outside the range are not counted. Without a range it is the
 * data's, widened by 0.5 on each side when all elements are equal, and
 * (0, 1) for no elements. Edges and counts are NumPy's to the bit (its
 * types, linspace and index corrections). Where the data has NaN or an
 * infinity and no range is given, NumPy refuses it; here the edges are
 * then NaN or infinite and such elements are not counted, so that the
 * result never depends on reading the data back.
 *
 * A composite of reductions, elementwise ops, take and scatter_add: it
 * runs on every device, and its shapes depend only on @bins. No
 * gradient: the counts are integers, the edges go through
 * [method@Tensor.stop_gradient].
 *
 * Returns: (skip): %TRUE, or %FALSE with %EP_ERROR_INVALID_ARGUMENT set
 *   if @bins is less than 1 or the range is half given, reversed or not
 *   finite
 */
gboolean
ep_tensor_histogram (EpTensor   *self,
                     gint64      bins,
                     gdouble     range_min,
                     gdouble     range_max,
                     EpTensor  **hist,
                     EpTensor  **bin_edges,
                     GError    **error)
{
  g_autoptr(EpTensor) counts = NULL, edges = NULL;

  g_return_val_if_fail (EP_IS_TENSOR (self), FALSE);

  if (bins < 1 || bins >= G_MAXINT64 / 8)
    {
      g_set_error (error, EP_ERROR, EP_ERROR_INVALID_ARGUMENT,
                   _("histogram: the number of bins must be positive (got %" PRId64 ")"), bins);
      return FALSE;
    }
  if (isnan (range_min) != isnan (range_max))
    {
      g_set_error_literal (error, EP_ERROR, EP_ERROR_INVALID_ARGUMENT,
                           _("histogram: give both ends of the range, or neither"));
      return FALSE;
    }
  if (!isnan (range_min) && !(isfinite (range_min) && isfinite (range_max) && range_min <= range_max))
    {
      g_set_error (error, EP_ERROR, EP_ERROR_INVALID_ARGUMENT,
                   _("histogram: the range [%g, %g] must be finite and not reversed"), range_min, range_max);
      return FALSE;
    }

  if (!histogram (self, bins, range_min, range_max, &counts, &edges, error))
    {
      ep_error_rename_call (error, NULL, "histogram");
      return FALSE;
    }
  if (hist != NULL)
    *hist = g_steal_pointer (&counts);
  if (bin_edges != NULL)
    *bin_edges = g_steal_pointer (&edges);
  return TRUE;
}
