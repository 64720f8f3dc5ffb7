/* index.c: take, take_along_axis, mask, index_update and
 * scatter_add on the CPU
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"


#include <string.h>

#include "ep-count-private.h"
#include "ep-cpu-private.h"
#include "ep-shape-private.h"
#include "ep-tensor-private.h"

/* The kernels check each index as they use it: one out of range is
 * skipped (never read or written through), and the first of them in the
 * walk's order, which is the indices' C order, is the error
 * (ep_index_error(), the same on every device). The walks run on one
 * thread, in order. */
typedef struct
{
  gint64   axis_stride;   /* bytes */
  gint64   extent;
  gboolean bad;
  gint64   bad_index;     /* as given, before wrapping */
} IndexInfo;

static inline gboolean
wrap_index (IndexInfo *info,
            gint64    *k)
{
  gint64 given = *k;

  if (*k < 0)
    *k += info->extent;
  if (G_LIKELY (*k >= 0 && *k < info->extent))
    return TRUE;

  if (!info->bad)
    {
      info->bad = TRUE;
      info->bad_index = given;
    }
  return FALSE;
}

/* Every index, when a kernel has no element to walk: an empty gather or
 * scatter with a bad index is an error all the same (NumPy's). */
static gboolean
check_every_index (EpOpCall  *call,
                   GError   **error)
{
  EpTensor *indices = call->inputs[1];
  IndexInfo info = { .extent = call->inputs[0]->layout.shape[call->attrs.axes[0]] };
  gint64 position[EP_MAX_DIMS] = { 0 };
  const guint8 *base = ep_tensor_host_data (indices);

  if (ep_layout_get_size (&indices->layout) == 0)
    return TRUE;

  do
    {
      gint64 offset = 0;
      gint64 k;

      for (guint d = 0; d < indices->layout.ndim; d++)
        offset += position[d] * indices->layout.strides[d];
      k = ((const gint64 *) base)[offset];
      if (!wrap_index (&info, &k))
        return ep_index_error (call, info.bad_index, error);
    }
  while (ep_cpu_index_next (position, indices->layout.shape, indices->layout.ndim));

  return TRUE;
}

/* Gathers: operands are the output, the indices and the source, all
 * seen in the output's shape; the source does not move along the
 * indexed axis, the index says where to read. */
#define GATHER_LOOP(name, T)                                                \
static void                                                                 \
name (guint8 **p, const gint64 *s, gint64 n, gconstpointer u)               \
{                                                                           \
  IndexInfo *info = (IndexInfo *) u;                                        \
  for (gint64 i = 0; i < n; i++)                                            \
    {                                                                       \
      gint64 k = *(const gint64 *) (p[1] + i * s[1]);                       \
      T *out = (T *) (p[0] + i * s[0]);                                     \
      if (wrap_index (info, &k))                                            \
        *out = *(const T *) (p[2] + i * s[2] + k * info->axis_stride);      \
      else                                                                  \
        *out = 0;                                                           \
    }                                                                       \
}

GATHER_LOOP (gather_1, guint8)
GATHER_LOOP (gather_2, guint16)
GATHER_LOOP (gather_4, guint32)
GATHER_LOOP (gather_8, guint64)

static EpCpuLoop
gather_loop (gsize itemsize)
{
  return itemsize == 1 ? gather_1 : itemsize == 2 ? gather_2 : itemsize == 4 ? gather_4 : gather_8;
}

static EpTensor *
view_of (EpTensor      *tensor,
         const EpLayout *out,
         const gint64  *strides)
{
  EpLayout layout = *out;

  layout.dtype = tensor->layout.dtype;
  layout.offset = tensor->layout.offset;
  memcpy (layout.strides, strides, out->ndim * sizeof (gint64));

  return ep_tensor_new_with_storage (&layout, tensor->storage);
}

static gboolean
run_gather (EpOpCall       *call,
            const gint64   *index_strides,
            const gint64   *source_strides,
            gint            axis,
            GError        **error)
{
  EpTensor *x = call->inputs[0], *out = call->outputs[0];
  gsize itemsize = ep_dtype_get_itemsize (x->layout.dtype);
  g_autoptr(EpTensor) indices = view_of (call->inputs[1], &out->layout, index_strides);
  g_autoptr(EpTensor) source = view_of (x, &out->layout, source_strides);
  IndexInfo info = {
    .axis_stride = x->layout.strides[axis] * (gint64) itemsize,
    .extent = x->layout.shape[axis],
  };
  EpCpuIter iter;

  if (ep_layout_get_size (&out->layout) == 0)
    return check_every_index (call, error);

  ep_cpu_iter_init (&iter, out->layout.shape, out->layout.ndim);
  ep_cpu_iter_add (&iter, out);
  ep_cpu_iter_add (&iter, indices);
  ep_cpu_iter_add (&iter, source);
  ep_cpu_iter_run (&iter, gather_loop (itemsize), &info);

  return info.bad ? ep_index_error (call, info.bad_index, error) : TRUE;
}

/* take and take_along_axis */
static gboolean
cpu_take (EpOpCall  *call,
          GError   **error)
{
  gint64 index_strides[EP_MAX_DIMS], source_strides[EP_MAX_DIMS];

  ep_gather_strides (call, index_strides, source_strides);
  return run_gather (call, index_strides, source_strides, call->attrs.axes[0], error);
}

/* A strided block of @ndim axes copied to contiguous @dst. */
static guint8 *
copy_block (guint8        *dst,
            const guint8  *src,
            const gint64  *shape,
            const gint64  *strides,
            guint          ndim,
            gsize          itemsize)
{
  gint64 index[EP_MAX_DIMS] = { 0 };
  gint64 n;
  gint64 stride;

  if (ndim == 0)
    {
      memcpy (dst, src, itemsize);
      return dst + itemsize;
    }

  n = shape[ndim - 1];
  stride = strides[ndim - 1];
  for (;;)
    {
      const guint8 *row = src;

      for (guint d = 0; d + 1 < ndim; d++)
        row += index[d] * strides[d];
      if (stride == (gint64) itemsize)
        memcpy (dst, row, n * itemsize);
      else
        for (gint64 i = 0; i < n; i++)
          memcpy (dst + i * itemsize, row + i * stride, itemsize);
      dst += n * itemsize;

      if (!ep_cpu_index_next (index, shape, ndim - 1))
        return dst;
    }
}

/* The common case, a mask over every axis: one element per true flag,
 * walked like an odometer over the mask's axes. */
#define MASK_ELEMENTS(name, T)                                              \
static void                                                                 \
name (T *dst, const guint8 *src, const guint8 *flags, const gint64 *shape,  \
      const gint64 *strides, guint ndim, gint64 size)                       \
{                                                                           \
  gint64 index[EP_MAX_DIMS] = { 0 };                                        \
  gint64 inner = ndim > 0 ? shape[ndim - 1] : 1;                            \
  gint64 stride = ndim > 0 ? strides[ndim - 1] : 0;                         \
  for (gint64 k = 0; k < size; k += inner)                                  \
    {                                                                       \
      const guint8 *row = src;                                              \
      for (guint d = 0; d + 1 < ndim; d++)                                  \
        row += index[d] * strides[d];                                       \
      for (gint64 i = 0; i < inner; i++)                                    \
        if (flags[k + i])                                                   \
          *dst++ = *(const T *) (row + i * stride);                         \
      ep_cpu_index_next (index, shape, ndim > 0 ? ndim - 1 : 0);            \
    }                                                                       \
}

MASK_ELEMENTS (mask_1, guint8)
MASK_ELEMENTS (mask_2, guint16)
MASK_ELEMENTS (mask_4, guint32)
MASK_ELEMENTS (mask_8, guint64)

static gboolean
cpu_mask (EpOpCall  *call,
          GError   **error)
{
  EpTensor *x = call->inputs[0], *mask = call->inputs[1];
  guint mask_ndim = mask->layout.ndim;
  guint rest_ndim = x->layout.ndim - mask_ndim;
  gsize itemsize = ep_dtype_get_itemsize (x->layout.dtype);
  const guint8 *flags = ep_tensor_host_data (mask);
  const guint8 *src = ep_tensor_host_data (x);
  guint8 *dst = ep_tensor_host_data (call->outputs[0]);
  gint64 strides[EP_MAX_DIMS];
  gint64 index[EP_MAX_DIMS] = { 0 };
  gint64 size = ep_layout_get_size (&mask->layout);
  gint64 offset = 0;

  if (ep_layout_get_size (&x->layout) == 0)
    return TRUE;

  for (guint d = 0; d < x->layout.ndim; d++)
    strides[d] = x->layout.strides[d] * (gint64) itemsize;

  if (rest_ndim == 0)
    {
      const gint64 *shape = x->layout.shape;

      switch (itemsize)
        {
        case 1: mask_1 ((guint8 *) dst, src, flags, shape, strides, mask_ndim, size); break;
        case 2: mask_2 ((guint16 *) dst, src, flags, shape, strides, mask_ndim, size); break;
        case 4: mask_4 ((guint32 *) dst, src, flags, shape, strides, mask_ndim, size); break;
        default: mask_8 ((guint64 *) dst, src, flags, shape, strides, mask_ndim, size); break;
        }
      return TRUE;
    }

  for (gint64 k = 0; k < size; k++)
    {
      if (flags[k])
        dst = copy_block (dst, src + offset, x->layout.shape + mask_ndim,
                          strides + mask_ndim, rest_ndim, itemsize);

      /* the next position of the mask, in C order */
      for (guint d = mask_ndim; d-- > 0;)
        {
          offset += strides[d];
          if (++index[d] < mask->layout.shape[d])
            break;
          offset -= strides[d] * mask->layout.shape[d];
          index[d] = 0;
        }
    }

  return TRUE;
}

/* Scatters run in order, on one thread: repeated indices accumulate
 * (scatter_add) or the last one wins (index_update). Operands: the
 * indices, the values and the destination, in the shape take would
 * give; the destination does not move along the index axes. */
typedef struct
{
  guint    ndim;
  gint64   shape[EP_MAX_DIMS];
  gint64   strides[3][EP_MAX_DIMS];
  guint8  *base[3];
} Walk;

#define SCATTER_WALK(name, T, COMBINE)                                      \
static void                                                                 \
name (const Walk *w, IndexInfo *info)                                       \
{                                                                           \
  gint64 index[EP_MAX_DIMS] = { 0 };                                        \
  guint last = w->ndim > 0 ? w->ndim - 1 : 0;                               \
  gint64 n = w->ndim > 0 ? w->shape[last] : 1;                              \
  gint64 s0 = w->ndim > 0 ? w->strides[0][last] : 0;                        \
  gint64 s1 = w->ndim > 0 ? w->strides[1][last] : 0;                        \
  gint64 s2 = w->ndim > 0 ? w->strides[2][last] : 0;                        \
  for (;;)                                                                  \
    {                                                                       \
      const guint8 *pi = w->base[0], *pv = w->base[1];                      \
      guint8 *pd = w->base[2];                                              \
      for (guint d = 0; d < last; d++)                                      \
        {                                                                   \
          pi += index[d] * w->strides[0][d];                                \
          pv += index[d] * w->strides[1][d];                                \
          pd += index[d] * w->strides[2][d];                                \
        }                                                                   \
      for (gint64 i = 0; i < n; i++)                                        \
        {                                                                   \
          gint64 k = *(const gint64 *) (pi + i * s0);                       \
          if (wrap_index (info, &k))                                        \
            {                                                               \
              T *dst = (T *) (pd + i * s2 + k * info->axis_stride);         \
              T v = *(const T *) (pv + i * s1);                             \
              *dst = COMBINE (*dst, v);                                     \
            }                                                               \
        }                                                                   \
      if (!ep_cpu_index_next (index, w->shape, last))                       \
        return;                                                             \
    }                                                                       \
}

#define REPLACE(d, v) (v)
#define ADD(d, v) ((d) + (v))
#define ADD_WRAP32(d, v) ((gint32) ((guint32) (d) + (guint32) (v)))
#define ADD_WRAP64(d, v) ((gint64) ((guint64) (d) + (guint64) (v)))
#define OR(d, v) ((guint8) ((d) | (v)))
#define ADD_WRAP8(d, v) ((guint8) ((guint) (d) + (guint) (v)))
#define ADD_WRAPS8(d, v) ((gint8) (guint8) ((guint) (d) + (guint) (v)))
#define ADD_WRAP16(d, v) ((gint16) (guint16) ((guint) (d) + (guint) (v)))

SCATTER_WALK (update_1, guint8, REPLACE)
SCATTER_WALK (update_2, guint16, REPLACE)
SCATTER_WALK (update_4, guint32, REPLACE)
SCATTER_WALK (update_8, guint64, REPLACE)
SCATTER_WALK (add_f32, gfloat, ADD)
SCATTER_WALK (add_f64, gdouble, ADD)
SCATTER_WALK (add_i32, gint32, ADD_WRAP32)
SCATTER_WALK (add_i64, gint64, ADD_WRAP64)
SCATTER_WALK (add_b, guint8, OR)
SCATTER_WALK (add_u8, guint8, ADD_WRAP8)
SCATTER_WALK (add_i8, gint8, ADD_WRAPS8)
SCATTER_WALK (add_i16, gint16, ADD_WRAP16)

typedef void (*ScatterFunc) (const Walk *w, IndexInfo *info);

static const ScatterFunc add_funcs[] = { add_f32, add_f64, add_i32, add_i64, add_b, add_u8, add_i8, add_i16 };

static gboolean
cpu_scatter (EpOpCall  *call,
             GError   **error)
{
  EpTensor *x = call->inputs[0], *idx = call->inputs[1], *values = call->inputs[2];
  EpTensor *out = call->outputs[0];
  EpDType dtype = out->layout.dtype;
  gsize itemsize = ep_dtype_get_itemsize (dtype);
  gint axis = call->attrs.axes[0];
  gint64 index_strides[EP_MAX_DIMS], dest_strides[EP_MAX_DIMS];
  guint lead;
  IndexInfo info = {
    .axis_stride = out->layout.strides[axis] * (gint64) itemsize,
    .extent = out->layout.shape[axis],
  };
  ScatterFunc scatter;
  EpCpuIter iter;
  Walk w;

  /* start from a copy of self */
  ep_cpu_iter_init (&iter, out->layout.shape, out->layout.ndim);
  ep_cpu_iter_add (&iter, out);
  ep_cpu_iter_add (&iter, x);
  ep_cpu_iter_run (&iter, ep_cpu_copy_loop_for_itemsize (itemsize), NULL);

  memset (&w, 0, sizeof w);
  ep_take_strides (&out->layout, &idx->layout, axis, index_strides, dest_strides);
  w.ndim = out->layout.ndim - 1 + idx->layout.ndim;
  for (gint d = 0; d < axis; d++)
    w.shape[d] = out->layout.shape[d];
  for (guint d = 0; d < idx->layout.ndim; d++)
    w.shape[axis + d] = idx->layout.shape[d];
  for (guint d = axis + 1; d < out->layout.ndim; d++)
    w.shape[d - 1 + idx->layout.ndim] = out->layout.shape[d];

  for (guint d = 0; d < w.ndim; d++)
    if (w.shape[d] == 0)
      return check_every_index (call, error);

  lead = w.ndim - values->layout.ndim;
  for (guint d = 0; d < w.ndim; d++)
    {
      w.strides[0][d] = index_strides[d] * (gint64) sizeof (gint64);
      w.strides[1][d] = d < lead || values->layout.shape[d - lead] == 1
                        ? 0 : values->layout.strides[d - lead] * (gint64) itemsize;
      w.strides[2][d] = dest_strides[d] * (gint64) itemsize;
    }
  w.base[0] = ep_tensor_host_data (idx);
  w.base[1] = ep_tensor_host_data (values);
  w.base[2] = ep_tensor_host_data (out);

  if (call->op->id == EP_OP_SCATTER_ADD)
    scatter = add_funcs[dtype];
  else
    scatter = itemsize == 1 ? update_1 : itemsize == 2 ? update_2 : itemsize == 4 ? update_4 : update_8;
  scatter (&w, &info);

  return info.bad ? ep_index_error (call, info.bad_index, error) : TRUE;
}

/* bincount: contiguous int64 indices (checked by the rule) and weights */
static gboolean
cpu_bincount (EpOpCall  *call,
              GError   **error)
{
  EpTensor *x = call->inputs[0], *w = call->inputs[1], *out = call->outputs[0];
  gsize itemsize = ep_dtype_get_itemsize (w->layout.dtype);

  ep_bincount_fill ((const gint64 *) x->storage->data + x->layout.offset,
                    (const guint8 *) w->storage->data + w->layout.offset * itemsize,
                    x->layout.shape[0], out->layout.dtype, out->storage->data, out->layout.shape[0]);
  return TRUE;
}

void
ep_cpu_register_index (EpKernelFunc *kernels)
{
  kernels[EP_OP_BINCOUNT] = cpu_bincount;
  kernels[EP_OP_TAKE] = cpu_take;
  kernels[EP_OP_TAKE_ALONG_AXIS] = cpu_take;
  kernels[EP_OP_MASK] = cpu_mask;
  kernels[EP_OP_INDEX_UPDATE] = cpu_scatter;
  kernels[EP_OP_SCATTER_ADD] = cpu_scatter;
}
