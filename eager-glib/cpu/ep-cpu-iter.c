/* ep-cpu-iter.c
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <string.h>

#include "ep-cpu-private.h"
#include "ep-tensor-private.h"

void
ep_cpu_iter_init (EpCpuIter    *iter,
                  const gint64 *shape,
                  guint         ndim)
{
  memset (iter, 0, sizeof *iter);
  iter->ndim = ndim;
  if (ndim > 0)
    memcpy (iter->shape, shape, ndim * sizeof (gint64));
}

/* Adds @tensor, broadcast to the iterator's shape (aligned on the right). */
void
ep_cpu_iter_add (EpCpuIter *iter,
                 EpTensor  *tensor)
{
  const EpLayout *layout = &tensor->layout;
  guint k = iter->n_operands++;
  gint64 itemsize = ep_dtype_get_itemsize (layout->dtype);
  guint lead = iter->ndim - layout->ndim;

  g_assert (k < EP_CPU_MAX_OPERANDS);
  g_assert (layout->ndim <= iter->ndim);

  iter->base[k] = ep_tensor_host_data (tensor);
  for (guint d = 0; d < iter->ndim; d++)
    {
      gboolean broadcast = d < lead || layout->shape[d - lead] == 1;

      iter->strides[k][d] = broadcast ? 0 : layout->strides[d - lead] * itemsize;
    }
}

/* Adds a reduction's output (shaped like the input with the reduced
 * axes removed, or kept as 1): it does not move along those axes. */
void
ep_cpu_iter_add_reduced (EpCpuIter  *iter,
                         EpTensor   *output,
                         const gint *axes,
                         guint       n_axes)
{
  guint k = iter->n_operands++;
  gint64 itemsize = ep_dtype_get_itemsize (output->layout.dtype);
  gint64 stride = itemsize;

  g_assert (k < EP_CPU_MAX_OPERANDS);

  iter->base[k] = ep_tensor_host_data (output);
  for (guint d = iter->ndim; d-- > 0;)
    {
      gboolean reduced = FALSE;

      for (guint a = 0; a < n_axes; a++)
        reduced |= axes[a] == (gint) d;

      iter->strides[k][d] = reduced ? 0 : stride;
      if (!reduced)
        stride *= iter->shape[d];
    }
}

static void
collapse (EpCpuIter *iter)
{
  guint n = 0;

  /* drop extent-1 dimensions */
  for (guint d = 0; d < iter->ndim; d++)
    {
      if (iter->shape[d] == 1)
        continue;
      iter->shape[n] = iter->shape[d];
      for (guint k = 0; k < iter->n_operands; k++)
        iter->strides[k][n] = iter->strides[k][d];
      n++;
    }
  iter->ndim = n;

  /* merge a dimension into the next when every operand is contiguous
   * across them */
  n = 0;
  for (guint d = 1; d < iter->ndim; d++)
    {
      gboolean mergeable = TRUE;

      for (guint k = 0; k < iter->n_operands; k++)
        mergeable &= iter->strides[k][n] == iter->strides[k][d] * iter->shape[d];

      if (mergeable)
        {
          iter->shape[n] *= iter->shape[d];
          for (guint k = 0; k < iter->n_operands; k++)
            iter->strides[k][n] = iter->strides[k][d];
        }
      else
        {
          n++;
          iter->shape[n] = iter->shape[d];
          for (guint k = 0; k < iter->n_operands; k++)
            iter->strides[k][n] = iter->strides[k][d];
        }
    }
  if (iter->ndim > 0)
    iter->ndim = n + 1;
}

void
ep_cpu_iter_run (EpCpuIter     *iter,
                 EpCpuLoop      loop,
                 gconstpointer  user_data)
{
  gint64 index[EP_MAX_DIMS] = { 0 };
  gint64 inner_strides[EP_CPU_MAX_OPERANDS];
  guint8 *ptrs[EP_CPU_MAX_OPERANDS];
  gint64 inner;
  guint outer;

  for (guint d = 0; d < iter->ndim; d++)
    if (iter->shape[d] == 0)
      return;

  collapse (iter);

  if (iter->ndim == 0)
    {
      for (guint k = 0; k < iter->n_operands; k++)
        inner_strides[k] = 0;
      loop (iter->base, inner_strides, 1, user_data);
      return;
    }

  outer = iter->ndim - 1;
  inner = iter->shape[outer];
  for (guint k = 0; k < iter->n_operands; k++)
    {
      inner_strides[k] = iter->strides[k][outer];
      ptrs[k] = iter->base[k];
    }

  for (;;)
    {
      guint d;

      loop (ptrs, inner_strides, inner, user_data);

      /* advance the outer index like an odometer */
      for (d = outer; d-- > 0;)
        {
          index[d]++;
          for (guint k = 0; k < iter->n_operands; k++)
            ptrs[k] += iter->strides[k][d];
          if (index[d] < iter->shape[d])
            break;
          for (guint k = 0; k < iter->n_operands; k++)
            ptrs[k] -= iter->strides[k][d] * iter->shape[d];
          index[d] = 0;
        }
      if (d == G_MAXUINT)
        return;
    }
}

/* When every input is either laid out like the output (contiguous, as
 * many elements) or a single element, the whole op is one run: no
 * iterator to set up. That is the common case, and the one where the
 * per-op cost shows. */
static gboolean
map_flat (EpOpCall      *call,
          EpCpuLoop      loop,
          gconstpointer  user_data)
{
  EpTensor *out = call->outputs[0];
  gint64 n = ep_layout_get_size (&out->layout);
  guint8 *ptrs[EP_CPU_MAX_OPERANDS];
  gint64 strides[EP_CPU_MAX_OPERANDS];

  for (guint i = 0; i < call->n_inputs; i++)
    {
      EpTensor *in = call->inputs[i];
      gint64 size = ep_layout_get_size (&in->layout);

      if (size == n && ep_layout_is_contiguous (&in->layout))
        strides[i + 1] = ep_dtype_get_itemsize (in->layout.dtype);
      else if (size == 1)
        strides[i + 1] = 0;
      else
        return FALSE;
      ptrs[i + 1] = ep_tensor_host_data (in);
    }
  ptrs[0] = ep_tensor_host_data (out);
  strides[0] = ep_dtype_get_itemsize (out->layout.dtype);

  loop (ptrs, strides, n, user_data);
  return TRUE;
}

void
ep_cpu_map (EpOpCall      *call,
            EpCpuLoop      loop,
            gconstpointer  user_data)
{
  EpTensor *out = call->outputs[0];
  EpCpuIter iter;

  g_assert (call->n_inputs < EP_CPU_MAX_OPERANDS);

  if (map_flat (call, loop, user_data))
    return;

  ep_cpu_iter_init (&iter, out->layout.shape, out->layout.ndim);
  ep_cpu_iter_add (&iter, out);
  for (guint i = 0; i < call->n_inputs; i++)
    ep_cpu_iter_add (&iter, call->inputs[i]);
  ep_cpu_iter_run (&iter, loop, user_data);
}
