/* join.c: concatenate, tile and pad on the CPU
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <glib/gi18n-lib.h>
#include <string.h>

#include "ep-cpu-private.h"
#include "ep-error.h"
#include "ep-fault-private.h"
#include "ep-scalar-private.h"
#include "ep-shape-private.h"
#include "ep-tensor-private.h"

/* Copies between strided operands: a block of the output is not
 * contiguous, unlike the outputs the shared copy loops expect. */
#define STRIDED_COPY(name, T)                                               \
static void                                                                 \
name (guint8 **p, const gint64 *s, gint64 n, gconstpointer u)               \
{                                                                           \
  if (s[0] == sizeof (T) && s[1] == sizeof (T))                             \
    memcpy (p[0], p[1], n * sizeof (T));                                    \
  else                                                                      \
    for (gint64 i = 0; i < n; i++)                                          \
      *(T *) (p[0] + i * s[0]) = *(const T *) (p[1] + i * s[1]);            \
}

STRIDED_COPY (copy_1, guint8)
STRIDED_COPY (copy_2, guint16)
STRIDED_COPY (copy_4, guint32)
STRIDED_COPY (copy_8, guint64)

/* concatenate: each input is copied into its block of the output, seen
 * as a view of the output's storage */
static gboolean
cpu_concatenate (EpOpCall  *call,
                 GError   **error)
{
  EpTensor *out = call->outputs[0];
  gint axis = call->attrs.axes[0];
  gsize itemsize = ep_dtype_get_itemsize (out->layout.dtype);
  EpCpuLoop copy = itemsize == 1 ? copy_1 : itemsize == 2 ? copy_2 : itemsize == 4 ? copy_4 : copy_8;
  EpLayout block = out->layout;

  for (guint i = 0; i < call->n_inputs; i++)
    {
      EpTensor *input = call->inputs[i];
      g_autoptr(EpTensor) view = NULL;
      EpCpuIter iter;

      block.shape[axis] = input->layout.shape[axis];
      if (ep_layout_get_size (&block) > 0)
        {
          view = ep_tensor_new_with_storage (&block, out->storage);
          ep_cpu_iter_init (&iter, block.shape, block.ndim);
          ep_cpu_iter_add (&iter, view);
          ep_cpu_iter_add (&iter, input);
          ep_cpu_iter_run (&iter, copy, NULL);
        }
      block.offset += block.shape[axis] * block.strides[axis];
    }

  return TRUE;
}

/* tile and pad: every output index along axis d reads input index
 * maps[d][o], or the fill value where that is -1 */
typedef struct
{
  guint          ndim;
  const gint64  *out_shape;
  gint64        *maps[EP_MAX_DIMS];
  gint64         strides[EP_MAX_DIMS];   /* the input's, in bytes */
  const guint8  *src;
  guint8        *dst;
  guint8         fill[8];
} AxisMaps;

#define GATHER_ROWS(T)                                                      \
static void                                                                 \
gather_rows_##T (const AxisMaps *m)                                         \
{                                                                           \
  guint last = m->ndim - 1;                                                 \
  gint64 index[EP_MAX_DIMS] = { 0 };                                        \
  gint64 n = m->out_shape[last];                                            \
  const gint64 *map = m->maps[last];                                        \
  gint64 stride = m->strides[last];                                         \
  T fill;                                                                   \
  T *dst = (T *) m->dst;                                                    \
  memcpy (&fill, m->fill, sizeof (T));                                      \
  for (;;)                                                                  \
    {                                                                       \
      const guint8 *row = m->src;                                           \
      gboolean constant = FALSE;                                            \
      for (guint d = 0; d < last; d++)                                      \
        {                                                                   \
          gint64 s = m->maps[d][index[d]];                                  \
          if (s < 0)                                                        \
            constant = TRUE;                                                \
          else                                                              \
            row += s * m->strides[d];                                       \
        }                                                                   \
      if (constant)                                                         \
        for (gint64 o = 0; o < n; o++)                                      \
          dst[o] = fill;                                                    \
      else                                                                  \
        for (gint64 o = 0; o < n; o++)                                      \
          dst[o] = map[o] < 0 ? fill : *(const T *) (row + map[o] * stride); \
      dst += n;                                                             \
      if (!ep_cpu_index_next (index, m->out_shape, last))                   \
        return;                                                             \
    }                                                                       \
}

GATHER_ROWS (guint8)
GATHER_ROWS (guint16)
GATHER_ROWS (guint32)
GATHER_ROWS (guint64)

static void
gather_by_maps (AxisMaps *m,
                gsize     itemsize)
{
  if (m->ndim == 0)
    {
      memcpy (m->dst, m->src, itemsize);
      return;
    }

  switch (itemsize)
    {
    case 1: gather_rows_guint8 (m); break;
    case 2: gather_rows_guint16 (m); break;
    case 4: gather_rows_guint32 (m); break;
    default: gather_rows_guint64 (m); break;
    }
}

/* Sets up @m for @out read from @in (aligned on the right, missing
 * leading axes of extent 1), with room for the maps. */
static gboolean
maps_init (AxisMaps   *m,
           EpTensor   *in,
           EpTensor   *out,
           GError    **error)
{
  gsize itemsize = ep_dtype_get_itemsize (in->layout.dtype);
  guint lead = out->layout.ndim - in->layout.ndim;

  memset (m, 0, sizeof *m);
  m->ndim = out->layout.ndim;
  m->out_shape = out->layout.shape;
  m->src = ep_tensor_host_data (in);
  m->dst = ep_tensor_host_data (out);
  for (guint d = 0; d < m->ndim; d++)
    {
      m->strides[d] = d < lead ? 0 : in->layout.strides[d - lead] * (gint64) itemsize;
      m->maps[d] = ep_try_new (gint64, MAX (out->layout.shape[d], 1));
      if (m->maps[d] == NULL)
        {
          g_set_error (error, EP_ERROR, EP_ERROR_OUT_OF_MEMORY,
                       _("%s: cannot allocate an index map"), "tile/pad");
          return FALSE;
        }
    }

  return TRUE;
}

static void
maps_clear (AxisMaps *m)
{
  for (guint d = 0; d < m->ndim; d++)
    g_free (m->maps[d]);
}

static gboolean
cpu_tile (EpOpCall  *call,
          GError   **error)
{
  EpTensor *in = call->inputs[0], *out = call->outputs[0];
  guint lead = out->layout.ndim - in->layout.ndim;
  AxisMaps m;
  gboolean ok = maps_init (&m, in, out, error);

  if (ok)
    {
      for (guint d = 0; d < m.ndim; d++)
        {
          gint64 extent = d < lead ? 1 : in->layout.shape[d - lead];

          for (gint64 o = 0; o < out->layout.shape[d]; o++)
            m.maps[d][o] = o % extent;
        }
      gather_by_maps (&m, ep_dtype_get_itemsize (in->layout.dtype));
    }

  maps_clear (&m);
  return ok;
}

static gboolean
cpu_pad (EpOpCall  *call,
         GError   **error)
{
  EpTensor *in = call->inputs[0], *out = call->outputs[0];
  const gint64 *pads = call->attrs.pad.paddings;
  EpPadMode mode = call->attrs.pad.mode;
  AxisMaps m;
  gboolean ok = maps_init (&m, in, out, error);

  if (ok)
    {
      ep_scalar_store (m.fill, out->layout.dtype, call->attrs.pad.value);
      for (guint d = 0; d < m.ndim; d++)
        for (gint64 o = 0; o < out->layout.shape[d]; o++)
          m.maps[d][o] = ep_pad_source_index (o, pads[2 * d], in->layout.shape[d], mode);
      gather_by_maps (&m, ep_dtype_get_itemsize (in->layout.dtype));
    }

  maps_clear (&m);
  return ok;
}

void
ep_cpu_register_join (EpKernelFunc *kernels)
{
  kernels[EP_OP_CONCATENATE] = cpu_concatenate;
  kernels[EP_OP_TILE] = cpu_tile;
  kernels[EP_OP_PAD] = cpu_pad;
}
