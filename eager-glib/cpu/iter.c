/* iter.c: EpCpuIter (serial and parallel runs) and ep_cpu_map()
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <glib/gi18n-lib.h>
#include <string.h>

#include "ep-cpu-private.h"
#include "ep-error.h"
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
  gint64 itemsize = ep_dtype_itemsize (layout->dtype);
  guint lead = iter->ndim - layout->ndim;

  g_assert (k < EP_CPU_MAX_OPERANDS);
  g_assert (layout->ndim <= iter->ndim);

  iter->base[k] = ep_tensor_host_data (tensor);
  /* (unsigned products: an empty tensor's strides may be anything, and
   * an iteration over it runs no element) */
  for (guint d = 0; d < iter->ndim; d++)
    {
      gboolean broadcast = d < lead || layout->shape[d - lead] == 1;

      iter->strides[k][d] = broadcast ? 0 : (gint64) ((guint64) layout->strides[d - lead] * (guint64) itemsize);
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
  gint64 itemsize = ep_dtype_itemsize (output->layout.dtype);
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
        stride = (gint64) ((guint64) stride * (guint64) iter->shape[d]);
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

/* Runs @loop over an iterator already collapsed, with no empty
 * dimension. */
static void
run_collapsed (EpCpuIter     *iter,
               EpCpuLoop      loop,
               gconstpointer  user_data)
{
  gint64 index[EP_MAX_DIMS] = { 0 };
  gint64 inner_strides[EP_CPU_MAX_OPERANDS];
  guint8 *ptrs[EP_CPU_MAX_OPERANDS];
  gint64 inner;
  guint outer;

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

static gboolean
collapse_nonempty (EpCpuIter *iter)
{
  for (guint d = 0; d < iter->ndim; d++)
    if (iter->shape[d] == 0)
      return FALSE;

  collapse (iter);
  return TRUE;
}

void
ep_cpu_iter_run (EpCpuIter     *iter,
                 EpCpuLoop      loop,
                 gconstpointer  user_data)
{
  if (collapse_nonempty (iter))
    run_collapsed (iter, loop, user_data);
}

/* Where part @i of @n_parts of @extent begins: a multiple of @align,
 * except for the end of the last part. */
static gint64
part_bound (gint64 extent,
            guint  i,
            guint  n_parts,
            gint64 align)
{
  gint64 start;

  if (i >= n_parts)
    return extent;
  /* extent * i / n_parts, without the product (a broadcast view can be
   * vast) */
  start = extent / n_parts * i + MIN ((gint64) i, extent % n_parts);
  return start / align * align;
}

static guint
n_parts_for (gint64 n_elements)
{
  guint n_threads;
  gint64 parts;

  /* small first: most ops are, and they need not look at the pool */
  if (n_elements < EP_CPU_PARALLEL_MIN)
    return 1;
  n_threads = ep_cpu_get_n_threads ();
  if (n_threads <= 1)
    return 1;

  /* a few parts per thread, for balance on a busy machine */
  parts = n_elements / EP_CPU_GRAIN;
  return (guint) CLAMP (parts, 1, 4 * (gint64) n_threads);
}

typedef struct
{
  EpCpuIter    *iter;
  guint         split;
  guint         n_parts;
  gint64        align;
  EpCpuLoop     loop;
  gconstpointer user_data;
} Split;

static void
run_part (gpointer data,
          guint    i)
{
  const Split *split = data;
  EpCpuIter part = *split->iter;
  gint64 extent = part.shape[split->split];
  gint64 start = part_bound (extent, i, split->n_parts, split->align);
  gint64 end = part_bound (extent, i + 1, split->n_parts, split->align);

  if (end <= start)
    return;
  for (guint k = 0; k < part.n_operands; k++)
    part.base[k] += start * part.strides[k][split->split];
  part.shape[split->split] = end - start;
  run_collapsed (&part, split->loop, split->user_data);
}

/*
 * ep_cpu_iter_run_parallel:
 *
 * Like ep_cpu_iter_run(), but large iterations are split between
 * threads along one dimension where operand 0 (the one written) moves:
 * no two threads write the same element, and an element that gathers
 * many inputs (a reduction's output) gathers them in the order one
 * thread would. Results do not depend on the thread count. @loop may
 * run on several threads at once and must only read @user_data.
 */
void
ep_cpu_iter_run_parallel (EpCpuIter     *iter,
                          EpCpuLoop      loop,
                          gconstpointer  user_data)
{
  ep_cpu_iter_run_parallel_cost (iter, loop, user_data, 1);
}

void
ep_cpu_iter_run_parallel_cost (EpCpuIter     *iter,
                               EpCpuLoop      loop,
                               gconstpointer  user_data,
                               gint64         cost)
{
  gint64 total = 1;
  guint best = G_MAXUINT;
  gint64 best_extent = 1;
  guint n_parts;
  Split split;

  if (!collapse_nonempty (iter))
    return;

  /* saturating: a broadcast view can describe more than memory holds */
  for (guint d = 0; d < iter->ndim; d++)
    if (__builtin_mul_overflow (total, iter->shape[d], &total))
      total = G_MAXINT64;
  if (__builtin_mul_overflow (total, MAX (cost, 1), &total))
    total = G_MAXINT64;
  n_parts = n_parts_for (total);

  /* the outermost dimension that gives every part some work, else the
   * longest one */
  for (guint d = 0; d < iter->ndim && n_parts > 1; d++)
    if (iter->strides[0][d] != 0 && MIN (iter->shape[d], n_parts) > MIN (best_extent, n_parts))
      {
        best = d;
        best_extent = iter->shape[d];
      }

  if (best == G_MAXUINT)
    {
      run_collapsed (iter, loop, user_data);
      return;
    }

  split.iter = iter;
  split.split = best;
  split.n_parts = (guint) MIN ((gint64) n_parts, best_extent);
  /* parts of a contiguous innermost run start on a new cache line */
  split.align = best == iter->ndim - 1 && iter->shape[best] >= 64 * (gint64) split.n_parts ? 16 : 1;
  split.loop = loop;
  split.user_data = user_data;
  ep_cpu_parallel_for (split.n_parts, run_part, &split);
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
        strides[i + 1] = ep_dtype_itemsize (in->layout.dtype);
      else if (size == 1)
        strides[i + 1] = 0;
      else
        return FALSE;
      ptrs[i + 1] = ep_tensor_host_data (in);
    }
  ptrs[0] = ep_tensor_host_data (out);
  strides[0] = ep_dtype_itemsize (out->layout.dtype);

  if (n_parts_for (n) == 1)
    loop (ptrs, strides, n, user_data);
  else
    {
      /* one dimension: the parallel iterator splits it */
      EpCpuIter iter = { .n_operands = call->n_inputs + 1, .ndim = 1, .shape = { n } };

      for (guint k = 0; k < iter.n_operands; k++)
        {
          iter.base[k] = ptrs[k];
          iter.strides[k][0] = strides[k];
        }
      ep_cpu_iter_run_parallel (&iter, loop, user_data);
    }
  return TRUE;
}

/* ep_cpu_map() of @loop looked up in a kernel table: %NULL, a dtype
 * the table has no loop for, is an error, not a jump through NULL. */
gboolean
ep_cpu_map_loop (EpOpCall       *call,
                 EpCpuLoop       loop,
                 gconstpointer   user_data,
                 GError        **error)
{
  if (G_UNLIKELY (loop == NULL))
    {
      g_set_error (error, EP_ERROR, EP_ERROR_DEVICE,
                   _("%s: the CPU has no kernel for %s tensors"),
                   call->op->name, ep_dtype_get_name (call->inputs[0]->layout.dtype));
      return FALSE;
    }

  ep_cpu_map (call, loop, user_data);
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
  ep_cpu_iter_run_parallel (&iter, loop, user_data);
}
