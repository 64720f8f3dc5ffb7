/* index.cl: take, take_along_axis, mask, index_update, scatter_add
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Mirrors cpu/index.c, by item size where only bytes move. The kernels
 * check every index as they use it: one out of range is skipped (never
 * read or written through) and marks the flag *bad; the host then runs
 * first_bad_index to know which.
 */

/* take, take_along_axis: operands 0 (the output), 1 (the indices) and 2
 * (the source, standing still along @axis) seen in the output's shape */
#define TAKE(name, T)                                                       \
__kernel void                                                               \
name (__global T *out,                                                      \
      __global const long *indices,                                         \
      __global const T *source,                                             \
      __global int *bad,                                                    \
      const EpMap g,                                                        \
      long axis_stride,                                                     \
      long extent)                                                          \
{                                                                           \
  for (long i = get_global_id (0); i < g.n; i += get_global_size (0))       \
    {                                                                       \
      long k = indices[ep_map_offset (&g, 1, i)];                           \
      if (k < 0)                                                            \
        k += extent;                                                        \
      if (k >= 0 && k < extent)                                             \
        out[i] = source[ep_map_offset (&g, 2, i) + k * axis_stride];        \
      else                                                                  \
        {                                                                   \
          out[i] = 0;                                                       \
          ep_flag_mark (bad);                                               \
        }                                                                   \
    }                                                                       \
}

TAKE (take_1, uchar)
TAKE (take_2, ushort)
TAKE (take_4, uint)
TAKE (take_8, ulong)

/* After a kernel marked *bad: the first index out of [-extent, extent)
 * in the C order of the indices (operand 1 of @g, in their own shape),
 * raised at its position */
__kernel void
first_bad_index (__global int *bad,
                 __global const long *indices,
                 const EpMap g,
                 long extent)
{
  for (long i = get_global_id (0); i < g.n; i += get_global_size (0))
    {
      long k = indices[ep_map_offset (&g, 1, i)];

      if (k < -extent || k >= extent)
        ep_flag_raise (bad, i);
    }
}

/* mask, in three steps: count the true flags of each chunk of the
 * (contiguous) mask, turn the counts into starting positions, then let
 * each chunk copy its selected blocks (of @block elements, the axes the
 * mask does not cover) in order. */
#define MASK_CHUNK 256

__kernel void
mask_count (__global long *counts,
            __global const uchar *mask,
            long offset,
            long size)
{
  __global const uchar *flags = mask + offset;
  long chunks = (size + MASK_CHUNK - 1) / MASK_CHUNK;

  for (long c = get_global_id (0); c < chunks; c += get_global_size (0))
    {
      long total = 0;

      for (long k = c * MASK_CHUNK; k < min (size, (c + 1) * MASK_CHUNK); k++)
        total += flags[k] != 0;
      counts[c] = total;
    }
}

__kernel void
mask_scan (__global long *counts,
           long chunks)
{
  long sum = 0;

  if (get_global_id (0) != 0)
    return;
  for (long c = 0; c < chunks; c++)
    {
      long count = counts[c];

      counts[c] = sum;
      sum += count;
    }
}

/* The source: the mask's axes (shape, strides) then the rest (block
 * axes), in EpRows's fields: outer for the mask's axes, the block as a
 * second unravel. */
typedef struct
{
  long size;
  long block;
  long offset;
  long mask_ndim;
  long rest_ndim;
  long mask_shape[EP_MAX_DIMS];
  long mask_strides[EP_MAX_DIMS];
  long rest_shape[EP_MAX_DIMS];
  long rest_strides[EP_MAX_DIMS];
} EpMaskMap;

#define MASK_WRITE(name, T)                                                 \
__kernel void                                                               \
name (__global T *out,                                                      \
      __global const T *x,                                                  \
      __global const uchar *mask,                                           \
      long flags_offset,                                                    \
      __global const long *starts,                                          \
      const EpMaskMap g)                                                    \
{                                                                           \
  __global const uchar *flags = mask + flags_offset;                        \
  long chunks = (g.size + MASK_CHUNK - 1) / MASK_CHUNK;                     \
  for (long c = get_global_id (0); c < chunks; c += get_global_size (0))    \
    {                                                                       \
      long position = starts[c];                                            \
      for (long k = c * MASK_CHUNK; k < min (g.size, (c + 1) * MASK_CHUNK); k++) \
        {                                                                   \
          long base;                                                        \
          if (!flags[k])                                                    \
            continue;                                                       \
          base = g.offset + ep_unravel (k, g.mask_ndim, g.mask_shape, g.mask_strides); \
          for (long j = 0; j < g.block; j++)                                \
            out[position * g.block + j] = x[base + ep_unravel (j, g.rest_ndim, g.rest_shape, g.rest_strides)]; \
          position++;                                                       \
        }                                                                   \
    }                                                                       \
}

MASK_WRITE (mask_write_1, uchar)
MASK_WRITE (mask_write_2, ushort)
MASK_WRITE (mask_write_4, uint)
MASK_WRITE (mask_write_8, ulong)

/* index_update, scatter_add: a work-item owns the destination positions
 * that share everything but the indexed axis, and applies its updates in
 * the CPU's order (so repeated indices accumulate, or the last wins,
 * exactly as there). The walk is in take's shape: axes before @axis
 * (outer), the indices' axes, the axes after @axis (inner). */
typedef struct
{
  long outer;             /* positions before the axis × after it */
  long inner;             /* positions after the axis */
  long count;             /* indices */
  long extent;
  long dest_offset;
  long dest_axis_stride;
  long idx_offset;
  long val_offset;
  long outer_ndim, idx_ndim, inner_ndim;
  long outer_shape[EP_MAX_DIMS];
  long idx_shape[EP_MAX_DIMS];
  long inner_shape[EP_MAX_DIMS];
  long dest_outer[EP_MAX_DIMS];     /* the destination's strides */
  long dest_inner[EP_MAX_DIMS];
  long idx_strides[EP_MAX_DIMS];    /* the indices' */
  long val_outer[EP_MAX_DIMS];      /* the values', broadcast */
  long val_idx[EP_MAX_DIMS];
  long val_inner[EP_MAX_DIMS];
} EpScatter;

#define REPLACE(d, v) (v)
#define ADD(d, v) ((d) + (v))
#define ADD_WRAP32(d, v) EP_WRAP32 ((uint) (d) + (uint) (v))
#define ADD_WRAP8(d, v) ((uchar) ((uint) (d) + (uint) (v)))
#define ADD_WRAPS8(d, v) as_char ((uchar) ((uint) (d) + (uint) (v)))
#define ADD_WRAP16(d, v) as_short ((ushort) ((uint) (d) + (uint) (v)))
#define ADD_WRAP64(d, v) EP_WRAP64 ((ulong) (d) + (ulong) (v))
#define OR(d, v) ((uchar) ((d) | (v)))

#define SCATTER(name, T, COMBINE)                                           \
__kernel void                                                               \
name (__global T *dest,                                                     \
      __global const long *indices,                                         \
      __global const T *values,                                             \
      __global int *bad,                                                    \
      const EpScatter g)                                                    \
{                                                                           \
  for (long p = get_global_id (0); p < g.outer * g.inner; p += get_global_size (0)) \
    {                                                                       \
      long o = p / g.inner, n = p % g.inner;                                \
      long d0 = g.dest_offset + ep_unravel (o, g.outer_ndim, g.outer_shape, g.dest_outer) \
                + ep_unravel (n, g.inner_ndim, g.inner_shape, g.dest_inner); \
      long v0 = g.val_offset + ep_unravel (o, g.outer_ndim, g.outer_shape, g.val_outer) \
                + ep_unravel (n, g.inner_ndim, g.inner_shape, g.val_inner); \
      for (long q = 0; q < g.count; q++)                                    \
        {                                                                   \
          long k = indices[g.idx_offset + ep_unravel (q, g.idx_ndim, g.idx_shape, g.idx_strides)]; \
          __global T *d;                                                    \
          if (k < 0)                                                        \
            k += g.extent;                                                  \
          if (k < 0 || k >= g.extent)                                       \
            {                                                               \
              ep_flag_mark (bad);                                           \
              continue;                                                     \
            }                                                               \
          d = dest + d0 + k * g.dest_axis_stride;                           \
          *d = COMBINE (*d, values[v0 + ep_unravel (q, g.idx_ndim, g.idx_shape, g.val_idx)]); \
        }                                                                   \
    }                                                                       \
}

SCATTER (update_1, uchar, REPLACE)
SCATTER (update_2, ushort, REPLACE)
SCATTER (update_4, uint, REPLACE)
SCATTER (update_8, ulong, REPLACE)
SCATTER (scatter_add_f32, float, ADD)
FP64 (SCATTER (scatter_add_f64, double, ADD))
SCATTER (scatter_add_i32, int, ADD_WRAP32)
SCATTER (scatter_add_i64, long, ADD_WRAP64)
SCATTER (scatter_add_b, uchar, OR)
SCATTER (scatter_add_u8, uchar, ADD_WRAP8)
SCATTER (scatter_add_i8, char, ADD_WRAPS8)
SCATTER (scatter_add_i16, short, ADD_WRAP16)
