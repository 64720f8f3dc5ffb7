/* join.cl: concatenate, tile, pad
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Mirrors cpu/join.c, by item size: only bytes move.
 */

/* concatenate: an input copied into its block of the output; both are
 * strided (operand 0 is the block, not contiguous) */
#define BLOCK_COPY(name, T)                                                 \
__kernel void                                                               \
name (__global T *out,                                                      \
      __global const T *in,                                                 \
      const EpMap g)                                                        \
{                                                                           \
  for (long i = get_global_id (0); i < g.n; i += get_global_size (0))       \
    out[ep_map_offset (&g, 0, i)] = in[ep_map_offset (&g, 1, i)];           \
}

BLOCK_COPY (block_copy_1, uchar)
BLOCK_COPY (block_copy_2, ushort)
BLOCK_COPY (block_copy_4, uint)
BLOCK_COPY (block_copy_8, ulong)

/* tile and pad: output index o along axis d reads input index
 * source (o) along d, or the fill where that is -1 */
typedef struct
{
  long n;
  long ndim;
  long mode;              /* 0 tile, 1 pad constant, 2 pad reflect */
  long offset;
  long out_shape[EP_MAX_DIMS];
  long in_shape[EP_MAX_DIMS];
  long in_strides[EP_MAX_DIMS];
  long before[EP_MAX_DIMS];
} EpGatherMap;

/* ep_pad_source_index () (ep-shape-private.h), and tile's o % extent */
inline long
ep_source_index (const EpGatherMap *g, int d, long o)
{
  long extent = g->in_shape[d];
  long i, period;

  if (g->mode == 0)
    return o % extent;

  i = o - g->before[d];
  if (i >= 0 && i < extent)
    return i;
  if (g->mode == 1)
    return -1;
  if (extent == 1)
    return 0;
  period = 2 * (extent - 1);
  i %= period;
  if (i < 0)
    i += period;
  return i < extent ? i : period - i;
}

#define GATHER_MAP(name, T)                                                 \
__kernel void                                                               \
name (__global T *out,                                                      \
      __global const T *in,                                                 \
      const EpGatherMap g,                                                  \
      T fill)                                                               \
{                                                                           \
  for (long t = get_global_id (0); t < g.n; t += get_global_size (0))       \
    {                                                                       \
      long rest = t, offset = g.offset;                                     \
      int outside = 0;                                                      \
      for (int d = (int) g.ndim - 1; d >= 0; d--)                           \
        {                                                                   \
          long s = ep_source_index (&g, d, rest % g.out_shape[d]);          \
          rest /= g.out_shape[d];                                           \
          if (s < 0)                                                        \
            outside = 1;                                                    \
          else                                                              \
            offset += s * g.in_strides[d];                                  \
        }                                                                   \
      out[t] = outside ? fill : in[offset];                                 \
    }                                                                       \
}

GATHER_MAP (gather_map_1, uchar)
GATHER_MAP (gather_map_2, ushort)
GATHER_MAP (gather_map_4, uint)
GATHER_MAP (gather_map_8, ulong)
