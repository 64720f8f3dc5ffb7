/* rows.c: walking rows along an axis, reductions with a helper operand,
 * views, scratch memory: shared by the kernels of several families
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <glib/gi18n-lib.h>
#include <inttypes.h>
#include <string.h>

#include "ep-cpu-rows-private.h"
#include "ep-error.h"
#include "ep-fault-private.h"
#include "ep-tensor-private.h"

typedef struct
{
  EpCpuRowFunc func;
  gpointer     user_data;
  guint        n_operands;
  gint64       row_strides[EP_CPU_MAX_OPERANDS];
} RowWalk;

static void
row_loop (guint8       **p,
          const gint64  *s,
          gint64         n,
          gconstpointer  u)
{
  const RowWalk *walk = u;
  guint8 *rows[EP_CPU_MAX_OPERANDS];

  for (gint64 i = 0; i < n; i++)
    {
      for (guint k = 0; k < walk->n_operands; k++)
        rows[k] = p[k] + i * s[k];
      walk->func (rows, walk->row_strides, walk->user_data);
    }
}

static void
for_each_row (EpTensor *const *tensors,
              guint            n_tensors,
              guint            axis,
              EpCpuRowFunc     func,
              gpointer         user_data,
              gboolean         parallel)
{
  const EpLayout *first = &tensors[0]->layout;
  gint64 shape[EP_MAX_DIMS];
  RowWalk walk = { func, user_data, n_tensors, { 0 } };
  EpCpuIter iter;

  g_assert (n_tensors <= EP_CPU_MAX_OPERANDS);
  g_assert (axis < first->ndim);

  memcpy (shape, first->shape, first->ndim * sizeof (gint64));
  shape[axis] = 1;
  ep_cpu_iter_init (&iter, shape, first->ndim);
  for (guint k = 0; k < n_tensors; k++)
    {
      const EpLayout *layout = &tensors[k]->layout;

      g_assert (layout->ndim == first->ndim);
      ep_cpu_iter_add (&iter, tensors[k]);
      walk.row_strides[k] = layout->strides[axis] * (gint64) ep_dtype_get_itemsize (layout->dtype);
    }

  if (parallel)
    ep_cpu_iter_run_parallel_cost (&iter, row_loop, &walk, first->shape[axis]);
  else
    ep_cpu_iter_run (&iter, row_loop, &walk);
}

void
ep_cpu_for_each_row (EpTensor *const *tensors,
                     guint            n_tensors,
                     guint            axis,
                     EpCpuRowFunc     func,
                     gpointer         user_data)
{
  for_each_row (tensors, n_tensors, axis, func, user_data, FALSE);
}

void
ep_cpu_for_each_row_parallel (EpTensor *const *tensors,
                              guint            n_tensors,
                              guint            axis,
                              EpCpuRowFunc     func,
                              gpointer         user_data)
{
  for_each_row (tensors, n_tensors, axis, func, user_data, TRUE);
}

EpTensor *
ep_cpu_view_as (EpTensor     *tensor,
                const gint64 *shape,
                guint         ndim)
{
  EpLayout layout = tensor->layout;

  g_assert (ep_layout_is_contiguous (&tensor->layout));

  layout.ndim = ndim;
  if (ndim > 0)
    memcpy (layout.shape, shape, ndim * sizeof (gint64));
  ep_layout_set_contiguous (&layout);
  layout.offset = tensor->layout.offset;
  g_assert (ep_layout_get_size (&layout) == ep_layout_get_size (&tensor->layout));

  return ep_tensor_new_with_storage (&layout, tensor->storage);
}

/* The input of an op along one axis or over the flattened tensor
 * (cumsum, argmin, argmax): a 1-D view when flat (the rule made the input
 * contiguous). Sets the axis. */
EpTensor *
ep_cpu_axis_or_flat (const EpOpCall *call,
                     guint          *axis)
{
  EpTensor *input = call->inputs[0];
  gint64 size = ep_layout_get_size (&input->layout);

  *axis = call->attrs.all_axes ? 0 : (guint) call->attrs.axes[0];
  return call->attrs.all_axes ? ep_cpu_view_as (input, &size, 1) : g_object_ref (input);
}

void
ep_cpu_reduce_run (EpTensor      *input,
                   EpTensor      *output,
                   EpTensor      *extra,
                   const gint    *axes,
                   guint          n_axes,
                   EpCpuLoop      loop,
                   gconstpointer  user_data)
{
  EpCpuIter iter;

  ep_cpu_iter_init (&iter, input->layout.shape, input->layout.ndim);
  ep_cpu_iter_add_reduced (&iter, output, axes, n_axes);
  ep_cpu_iter_add (&iter, input);
  if (extra != NULL)
    ep_cpu_iter_add_reduced (&iter, extra, axes, n_axes);
  ep_cpu_iter_run (&iter, loop, user_data);
}

gpointer
ep_cpu_scratch (const char  *op_name,
                gsize        n,
                gsize        size,
                GError     **error)
{
  gpointer memory = ep_try_malloc_n (MAX (n, 1), size);

  if (memory == NULL)
    g_set_error (error, EP_ERROR, EP_ERROR_OUT_OF_MEMORY,
                 _("%s: cannot allocate %zu scratch elements of %zu bytes"),
                 op_name, n, size);

  return memory;
}
