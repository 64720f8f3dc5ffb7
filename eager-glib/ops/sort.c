/* ops/sort.c: sort, argsort, topk, searchsorted, unique
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The order is NumPy's: ascending, NaN after everything else, and stable
 * (equal elements keep their order), so argsort is reproducible. topk
 * takes the k largest along the last axis with NaN counting as the
 * largest, ties going to the lower index.
 *
 * The gradients of sort and topk send each output element's gradient
 * back to where the element came from (ep_grad_scatter_along_axis, as
 * for take_along_axis). argsort is not differentiable: its output is integer
 * indices, so it has no rule and a gradient tape passes nothing through
 * it.
 */

#include "config.h"

#include <glib/gi18n-lib.h>
#include <inttypes.h>

#include "ep-dispatch-private.h"
#include "ep-creation-private.h"
#include "ep-enum-types.h"
#include "ep-error.h"
#include "ep-error-private.h"
#include "ep-grad-private.h"
#include "ep-join.h"
#include "ep-tensor-private.h"

static gboolean
sort_infer (EpOpCall  *call,
            GError   **error)
{
  const EpLayout *in = &call->inputs[0]->layout;

  if (!ep_op_normalize_axis (call, call->attrs.axes[0], in->ndim, &call->attrs.axes[0], error))
    return FALSE;

  ep_op_set_output (call, call->op->id == EP_OP_SORT ? in->dtype : EP_DTYPE_INT64,
                    in->shape, in->ndim);
  return TRUE;
}

/* (autodiff) The sorted values are take_along_axis (x, argsort (x)): each
 * element's gradient goes back to where it came from, in the stable
 * order argsort gives (tied elements have equal values, so any order of
 * ties gives a valid gradient). */
static gboolean
sort_gradient (const EpOpCall   *call,
               EpTensor *const  *output_grads,
               EpTensor        **input_grads,
               GError          **error)
{
  EpTensor *x = call->inputs[0];
  gint axis = call->attrs.axes[0];
  g_autoptr(EpTensor) order = NULL;

  if (!ep_grad_needed (call, 0))
    return TRUE;

  order = ep_tensor_argsort (x, axis, error);
  if (order == NULL)
    return FALSE;

  input_grads[0] = ep_grad_scatter_along_axis (output_grads[0], order, axis,
                                               x->layout.shape, x->layout.ndim, error);
  return input_grads[0] != NULL;
}

const EpOpDef ep_op_sort = {
  .id = EP_OP_SORT, .name = "sort",
  .flags = EP_OP_FLAG_UINT8,
  EP_INPUTS (EP_INPUT ("self")),
  EP_ATTRS (EP_ATTR_AXIS_ARG (EP_DEFAULT (-1), .flags = EP_ATTR_NULLABLE)),
  .infer = sort_infer,
  .gradient = sort_gradient,
};

/* Not differentiable: the output is integer indices. */
const EpOpDef ep_op_argsort = {
  .id = EP_OP_ARGSORT, .name = "argsort",
  .flags = EP_OP_FLAG_UINT8,
  EP_INPUTS (EP_INPUT ("self")),
  EP_ATTRS (EP_ATTR_AXIS_ARG (EP_DEFAULT (-1), .flags = EP_ATTR_NULLABLE)),
  .infer = sort_infer,
  .gradient = NULL,
};

/**
 * ep_tensor_sort:
 * @self: a tensor
 * @axis: the axis to sort along: -1 for the last, %EP_AXIS_NONE to sort
 *   the flattened tensor
 * @error: return location for an error
 *
 * Sorts along @axis in ascending order, NaN last, as NumPy's `sort`.
 * Differentiable: the gradient of each output element goes back to the
 * element it came from.
 *
 * Returns: (transfer full): the sorted tensor, or %NULL with
 *   %EP_ERROR_AXIS set if @axis is out of range
 */
EpTensor *
ep_tensor_sort (EpTensor  *self,
                gint       axis,
                GError   **error)
{
  g_return_val_if_fail (EP_IS_TENSOR (self), NULL);

  return ep_dispatch_axis_or_flat (&ep_op_sort, &self, 1, 1, axis, error);
}

/**
 * ep_tensor_argsort:
 * @self: a tensor
 * @axis: the axis to sort along: -1 for the last, %EP_AXIS_NONE for
 *   the indices into the flattened tensor
 * @error: return location for an error
 *
 * The indices that sort @self along @axis: ascending, NaN last, and
 * stable (equal elements keep their order), as NumPy's
 * `argsort (kind="stable")`. A 0-d tensor is sorted as its flattened
 * view of shape `(1,)`, as in NumPy.
 *
 * Not differentiable: the result is integer indices, so a gradient tape
 * passes no gradient through it to @self. Use [method@Tensor.sort] or
 * [method@Tensor.take_along_axis] with these indices for a
 * differentiable result.
 *
 * Returns: (transfer full): the int64 indices, or %NULL with
 *   %EP_ERROR_AXIS set if @axis is out of range
 */
EpTensor *
ep_tensor_argsort (EpTensor  *self,
                   gint       axis,
                   GError   **error)
{
  g_return_val_if_fail (EP_IS_TENSOR (self), NULL);

  /* NumPy sorts a 0-d array as its flattened (1,) view, along that
   * view's axis: 0 or -1, or EP_AXIS_NONE */
  if (self->layout.ndim == 0)
    {
      static const gint64 one[] = { 1 };
      g_autoptr(EpTensor) flat = ep_tensor_reshape (self, one, 1, error);

      if (flat == NULL)
        return NULL;
      return ep_dispatch_axis_or_flat (&ep_op_argsort, &flat, 1, 1, axis, error);
    }

  return ep_dispatch_axis_or_flat (&ep_op_argsort, &self, 1, 1, axis, error);
}


static gboolean
topk_infer (EpOpCall  *call,
            GError   **error)
{
  const EpLayout *in = &call->inputs[0]->layout;
  gint64 k = call->attrs.topk.k;
  EpLayout *values = &call->output_layouts[0];
  EpLayout *indices = &call->output_layouts[1];
  gint64 n;

  if (in->ndim == 0)
    {
      g_set_error (error, EP_ERROR, EP_ERROR_SHAPE,
                   _("topk: needs a tensor of at least one dimension, not a scalar"));
      return FALSE;
    }

  n = in->shape[in->ndim - 1];
  if (k > n)
    {
      g_set_error (error, EP_ERROR, EP_ERROR_INVALID_ARGUMENT,
                   _("topk: k = %" PRId64 " is out of range for a last axis of extent %" PRId64),
                   k, n);
      return FALSE;
    }

  *values = *in;
  values->shape[in->ndim - 1] = k;
  ep_layout_set_contiguous (values);
  *indices = *values;
  indices->dtype = EP_DTYPE_INT64;
  call->n_outputs = 2;
  return TRUE;
}

/* (autodiff) The values are take_along_axis (x, indices) along the last
 * axis: their gradient goes back to the positions the indices name; the
 * indices have none. */
static gboolean
topk_gradient (const EpOpCall   *call,
               EpTensor *const  *output_grads,
               EpTensor        **input_grads,
               GError          **error)
{
  EpTensor *x = call->inputs[0];

  if (!ep_grad_needed (call, 0))
    return TRUE;

  input_grads[0] = ep_grad_scatter_along_axis (output_grads[0], call->outputs[1],
                                               x->layout.ndim - 1, x->layout.shape,
                                               x->layout.ndim, error);
  return input_grads[0] != NULL;
}

const EpOpDef ep_op_topk = {
  .id = EP_OP_TOPK, .name = "topk",
  .flags = EP_OP_FLAG_UINT8,
  EP_INPUTS (EP_INPUT ("self")),
  EP_ATTRS (EP_ATTR ("k", EP_ATTR_INT, EP_FIELD (topk.k), .flags = EP_ATTR_NON_NEGATIVE),
            EP_ATTR ("sorted", EP_ATTR_BOOL, EP_FIELD (topk.sorted), EP_DEFAULT (TRUE))),
  EP_OUTPUTS ("values", "indices"),
  .infer = topk_infer,
  .gradient = topk_gradient,
};

/**
 * ep_tensor_topk:
 * @self: a tensor of at least one dimension
 * @k: how many elements to take from the last axis
 * @sorted: whether to order them largest first; otherwise they come in
 *   their order along the axis
 * @values: (out) (transfer full) (optional): the @k largest elements
 * @indices: (out) (transfer full) (optional): their int64 indices along
 *   the last axis
 * @error: return location for an error
 *
 * The @k largest elements along the last axis and where they are. NaN
 * counts as larger than everything; of equal elements the one with the
 * lower index comes first. Both outputs have the shape of @self with the
 * last extent replaced by @k.
 *
 * The values are differentiable: their gradient goes back to the
 * positions the indices name (zero elsewhere). The indices are not.
 *
 * Returns: (skip): %TRUE on success; %FALSE with
 *   %EP_ERROR_INVALID_ARGUMENT set if @k is negative or larger than the
 *   last extent, or %EP_ERROR_SHAPE for a 0-dimensional tensor
 */
gboolean
ep_tensor_topk (EpTensor   *self,
                gint64      k,
                gboolean    sorted,
                EpTensor  **values,
                EpTensor  **indices,
                GError    **error)
{
  EpTensor *outputs[EP_MAX_OUTPUTS] = { NULL };
  EpTensor **locations[] = { values, indices };
  EpOpAttrs attrs;

  g_return_val_if_fail (EP_IS_TENSOR (self), FALSE);

  ep_op_attrs_init (&attrs);
  attrs.topk.k = k;
  attrs.topk.sorted = sorted != FALSE;
  if (!ep_dispatch (&ep_op_topk, &self, 1, &attrs, outputs, error))
    return FALSE;
  ep_op_give_outputs (outputs, 2, locations);
  return TRUE;
}

/* searchsorted (issue 17, ops): binary searches, one per value, in the
 * sorted sequence or in its row of the same leading indices (batched as
 * PyTorch's). Both inputs are cast to one type and made contiguous;
 * bool and the narrow integers compare as int32. Not differentiable: the output is
 * integer positions. */

static gboolean
searchsorted_infer (EpOpCall  *call,
                    GError   **error)
{
  const EpLayout *seq = &call->inputs[0]->layout, *values = &call->inputs[1]->layout;
  EpDType dtype = ep_dtype_promote (seq->dtype, values->dtype);

  if (seq->ndim == 0)
    {
      g_set_error_literal (error, EP_ERROR, EP_ERROR_SHAPE,
                           _("searchsorted: the sorted sequence must have at least one axis (got a 0-d tensor)"));
      return FALSE;
    }
  if (seq->ndim > 1)
    {
      gboolean same = values->ndim == seq->ndim;

      for (guint d = 0; same && d + 1 < seq->ndim; d++)
        same = seq->shape[d] == values->shape[d];
      if (!same)
        {
          g_autofree char *a = ep_shape_to_string (seq->shape, seq->ndim);
          g_autofree char *b = ep_shape_to_string (values->shape, values->ndim);

          g_set_error (error, EP_ERROR, EP_ERROR_SHAPE,
                       _("searchsorted: a batch of sorted sequences %s needs values with the same leading dimensions (got %s)"),
                       a, b);
          return FALSE;
        }
    }

  /* searched as int32, whose order is theirs */
  if (dtype == EP_DTYPE_BOOL || ep_dtype_is_narrow_int (dtype))
    dtype = EP_DTYPE_INT32;
  call->input_dtypes[0] = dtype;
  call->input_dtypes[1] = dtype;
  call->contiguous_inputs = 0x3;
  ep_op_set_output (call, EP_DTYPE_INT64, values->shape, values->ndim);
  return TRUE;
}

/* Not differentiable: the output is integer positions. */
const EpOpDef ep_op_searchsorted = {
  .id = EP_OP_SEARCHSORTED, .name = "searchsorted",
  .flags = EP_OP_FLAG_UINT8,
  EP_INPUTS (EP_INPUT ("self"), EP_INPUT ("values")),
  EP_ATTRS (EP_ATTR ("side", EP_ATTR_ENUM, EP_FIELD (searchsorted.side),
                     EP_DEFAULT (EP_SEARCH_SIDE_LEFT), .enum_type = ep_search_side_get_type)),
  .infer = searchsorted_infer,
  .gradient = NULL,
};

/**
 * ep_tensor_searchsorted:
 * @self: the sorted sequence: 1-D, or a batch of sorted rows along its
 *   last axis
 * @values: the values to place: any shape when @self is 1-D, else the
 *   same leading dimensions as @self and any number of values per row
 * @side: %EP_SEARCH_SIDE_LEFT for the first place where each value
 *   fits, %EP_SEARCH_SIDE_RIGHT for the last
 * @error: return location for an error
 *
 * Where @values would go in @self to keep it sorted, as NumPy's
 * `searchsorted` (for a 1-D @self) and PyTorch's (batched): for each
 * value, the number of elements of its row less than it (left) or not
 * greater than it (right). NaN sorts last, as [method@Tensor.sort] puts
 * it. The two tensors are compared in their promoted type. @self must
 * be sorted in ascending order; where it is not, the positions are
 * those a binary search finds.
 *
 * Not differentiable: the result is integer positions.
 *
 * Returns: (transfer full): int64 positions of the shape of @values, or
 *   %NULL with %EP_ERROR_SHAPE set if @self is 0-d or the leading
 *   dimensions of a batch differ
 */
EpTensor *
ep_tensor_searchsorted (EpTensor      *self,
                        EpTensor      *values,
                        EpSearchSide   side,
                        GError       **error)
{
  EpTensor *inputs[2] = { self, values };
  EpOpAttrs attrs;

  g_return_val_if_fail (EP_IS_TENSOR (self), NULL);
  g_return_val_if_fail (EP_IS_TENSOR (values), NULL);

  ep_op_attrs_init (&attrs);
  attrs.searchsorted.side = side;
  return ep_dispatch1 (&ep_op_searchsorted, inputs, 2, &attrs, error);
}

/* unique (issue 17, ops): a composite of argsort, take, mask, cumsum,
 * index_update and diff, so that it runs on every device; its length
 * depends on the values through mask (EP_OP_FLAG_DATA_SHAPED there) */

const EpOpDef ep_func_unique = {
  .id = EP_N_OPS, .name = "unique",
  EP_INPUTS (EP_INPUT ("self")),
  EP_OUTPUTS ("values", "inverse", "counts"),
};

/* Whether each element of the sorted @sorted (n > 0) starts a run of
 * equal elements; NaNs, last, make one run as in NumPy */
static EpTensor *
run_starts (EpTensor  *sorted,
            GError   **error)
{
  gint64 n = sorted->layout.shape[0];
  const gint64 zero[1] = { 0 }, one[1] = { 1 }, end[1] = { G_MAXINT64 }, before[1] = { n - 1 };
  g_autoptr(EpTensor) first = NULL, tail = NULL, head = NULL, differ = NULL, start = NULL;
  EpTensor *parts[2];

  if ((first = ep_full_on (sorted->storage->device, one, 1, ep_number_from_int64 (1),
                           EP_DTYPE_BOOL, error)) == NULL
      || (tail = ep_tensor_slice (sorted, one, 1, end, 1, NULL, 0, error)) == NULL
      || (head = ep_tensor_slice (sorted, zero, 1, before, 1, NULL, 0, error)) == NULL
      || (differ = ep_tensor_not_equal (tail, head, error)) == NULL)
    return NULL;
  if (ep_dtype_is_floating (sorted->layout.dtype))
    {
      /* sorted, so a NaN before means a NaN after */
      g_autoptr(EpTensor) nan = ep_tensor_isnan (head, error);
      g_autoptr(EpTensor) number = nan != NULL ? ep_tensor_logical_not (nan, error) : NULL;

      if (number == NULL || (start = ep_tensor_logical_and (differ, number, error)) == NULL)
        return NULL;
    }
  else
    start = g_object_ref (differ);

  parts[0] = first;
  parts[1] = start;
  return ep_concatenate (parts, 2, 0, error);
}

static gboolean
unique (EpTensor   *self,
        EpTensor  **values,
        EpTensor  **inverse,
        EpTensor  **counts,
        GError    **error)
{
  EpDevice *device;
  const EpLayout *in = &self->layout;
  gint64 n = ep_layout_get_size (in);
  const gint64 flat_shape[1] = { n }, one[1] = { 1 };
  g_autoptr(EpTensor) flat = NULL, order = NULL, sorted = NULL, starts = NULL;

  if ((flat = ep_tensor_reshape (self, flat_shape, 1, error)) == NULL
      || (order = ep_tensor_argsort (flat, 0, error)) == NULL
      || (sorted = ep_tensor_take (flat, order, 0, error)) == NULL)
    return FALSE;
  /* (from a result: @self may be a bare object, refused by reshape) */
  device = flat->storage->device;

  if (n == 0)
    {
      *values = g_steal_pointer (&sorted);
      *inverse = ep_tensor_reshape (order, in->shape, in->ndim, error);
      *counts = *inverse != NULL ? g_object_ref (order) : NULL;
      return *counts != NULL;
    }

  if ((starts = run_starts (sorted, error)) == NULL
      || (*values = ep_tensor_mask (sorted, starts, error)) == NULL)
    return FALSE;

  {
    /* each sorted element's run, sent back to where it came from */
    g_autoptr(EpTensor) runs = ep_tensor_cumsum (starts, 0, error);
    g_autoptr(EpTensor) index = runs != NULL ? ep_tensor_sub_scalar (runs, 1, error) : NULL;
    g_autoptr(EpTensor) zeros = index != NULL ? ep_full_on (device, flat_shape, 1, ep_number_from_int64 (0),
                                                            EP_DTYPE_INT64, error) : NULL;
    g_autoptr(EpTensor) placed = zeros != NULL ? ep_tensor_index_update (zeros, order, index, 0, error) : NULL;

    if (placed == NULL || (*inverse = ep_tensor_reshape (placed, in->shape, in->ndim, error)) == NULL)
      return FALSE;
  }

  {
    /* the runs' lengths: differences of their starts and the end */
    g_autoptr(EpTensor) positions = ep_arange_on (device, ep_number_from_int64 (0), ep_number_from_int64 (n),
                                                  ep_number_from_int64 (1), EP_DTYPE_INT64, error);
    g_autoptr(EpTensor) first = positions != NULL ? ep_tensor_mask (positions, starts, error) : NULL;
    g_autoptr(EpTensor) end = first != NULL ? ep_full_on (device, one, 1, ep_number_from_int64 (n),
                                                         EP_DTYPE_INT64, error) : NULL;
    g_autoptr(EpTensor) bounds = NULL;
    EpTensor *parts[2] = { first, end };

    if (end == NULL || (bounds = ep_concatenate (parts, 2, 0, error)) == NULL)
      return FALSE;
    *counts = ep_tensor_diff (bounds, 1, 0, error);
    return *counts != NULL;
  }
}

/**
 * ep_tensor_unique:
 * @self: a tensor of any type and shape
 * @values: (out) (transfer full) (optional): the distinct elements,
 *   sorted (1-D, of @self's type)
 * @inverse: (out) (transfer full) (optional): int64 of @self's shape:
 *   where each element of @self is in @values
 * @counts: (out) (transfer full) (optional): int64, how many times each
 *   of @values occurs
 * @error: return location for an error
 *
 * The sorted distinct elements of the flattened @self, as NumPy's
 * `unique` (with `return_inverse` and `return_counts`): NaNs count as
 * one value, last; -0.0 and 0.0 are one value. @inverse has the shape of
 * @self (as PyTorch's and NumPy 2's), so that `values[inverse]` is
 * @self. The number of values depends on the data: it is
 * [method@Tensor.mask] of the sorted elements by where runs of equal
 * ones start, so a staged function that calls it reads that mask back
 * at each call, as for [method@Tensor.mask]; it runs on every device.
 * No gradient for @inverse and @counts (integers); the gradient of
 * @values goes to the first of each run of equal elements in sorted
 * order.
 *
 * Returns: (skip): %TRUE, or %FALSE with @error set (out of memory)
 */
gboolean
ep_tensor_unique (EpTensor   *self,
                  EpTensor  **values,
                  EpTensor  **inverse,
                  EpTensor  **counts,
                  GError    **error)
{
  g_autoptr(EpTensor) v = NULL, i = NULL, c = NULL;

  g_return_val_if_fail (EP_IS_TENSOR (self), FALSE);

  if (!unique (self, &v, &i, &c, error))
    {
      ep_error_rename_call (error, NULL, "unique");
      return FALSE;
    }
  if (values != NULL)
    *values = g_steal_pointer (&v);
  if (inverse != NULL)
    *inverse = g_steal_pointer (&i);
  if (counts != NULL)
    *counts = g_steal_pointer (&c);
  return TRUE;
}
