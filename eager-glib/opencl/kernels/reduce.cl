/* reduce.cl: sum, mean, max, min, prod, all, any over any axes
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Mirrors cpu/ep-cpu-reduce.c and the folds of cpu/ep-cpu-accumulate.c. A reduction is m outputs of k elements
 * (EpReduce). Two kernels per op and type:
 *
 * - name_wg_T: work-groups of a power-of-two size; group g of output o
 *   folds elements [g * chunk, (g + 1) * chunk) of o, each work-item a
 *   strided share, then the group folds its items in local memory as a
 *   tree. With several groups per output the host runs it again over the
 *   partial results.
 * - name_wi_T: one work-item per output, for short reductions.
 *
 * Float sums fold in a tree, so their error grows with log k as the
 * CPU's pairwise sums do; extrema propagate NaN.
 */

#ifdef EP_FP64
#define FP64(x) x
#else
#define FP64(x)
#endif

#define REDUCE(op, sfx, T, IDENTITY, COMBINE, FINAL)                        \
__kernel void                                                               \
op##_wg_##sfx (__global T *out,                                             \
               __global const T *in,                                        \
               const EpReduce g,                                            \
               long groups,                                                 \
               long chunk,                                                  \
               T divisor,                                                   \
               __local T *scratch)                                          \
{                                                                           \
  long group = get_group_id (0);                                            \
  long m = group / groups;                                                  \
  long start = (group % groups) * chunk;                                    \
  long end = min (g.k, start + chunk);                                      \
  long lid = get_local_id (0);                                              \
  long size = get_local_size (0);                                           \
  long base = g.offset + ep_unravel (m, g.out_ndim, g.out_shape, g.out_strides); \
  T acc = IDENTITY;                                                         \
                                                                            \
  for (long r = start + lid; r < end; r += size)                            \
    {                                                                       \
      T x = in[base + ep_unravel (r, g.red_ndim, g.red_shape, g.red_strides)]; \
      acc = COMBINE (acc, x);                                               \
    }                                                                       \
  scratch[lid] = acc;                                                       \
  barrier (CLK_LOCAL_MEM_FENCE);                                            \
                                                                            \
  for (long s = size / 2; s > 0; s /= 2)                                    \
    {                                                                       \
      if (lid < s)                                                          \
        scratch[lid] = COMBINE (scratch[lid], scratch[lid + s]);            \
      barrier (CLK_LOCAL_MEM_FENCE);                                        \
    }                                                                       \
                                                                            \
  if (lid == 0)                                                             \
    out[group] = FINAL (scratch[0], divisor);                               \
}                                                                           \
                                                                            \
__kernel void                                                               \
op##_wi_##sfx (__global T *out,                                             \
               __global const T *in,                                        \
               const EpReduce g,                                            \
               T divisor)                                                   \
{                                                                           \
  for (long m = get_global_id (0); m < g.m; m += get_global_size (0))       \
    {                                                                       \
      long base = g.offset + ep_unravel (m, g.out_ndim, g.out_shape, g.out_strides); \
      T acc = IDENTITY;                                                     \
                                                                            \
      for (long r = 0; r < g.k; r++)                                        \
        {                                                                   \
          T x = in[base + ep_unravel (r, g.red_ndim, g.red_shape, g.red_strides)]; \
          acc = COMBINE (acc, x);                                           \
        }                                                                   \
      out[m] = FINAL (acc, divisor);                                        \
    }                                                                       \
}

#define PLUS(a, b) ((a) + (b))
#define TIMES(a, b) ((a) * (b))
#define WRAPPING_TIMES(a, b) EP_WRAP64 ((ulong) (a) * (ulong) (b))
#define AND(a, b) ((a) & (b))
#define OR(a, b) ((a) | (b))
#define WRAPPING_PLUS(a, b) EP_WRAP64 ((ulong) (a) + (ulong) (b))
#define KEEP(a, d) (a)
#define DIVIDE(a, d) ((a) / (d))
#define FMAX(m, x) (((m) > (x) || isnan (m)) ? (m) : (x))
#define FMIN(m, x) (((m) < (x) || isnan (m)) ? (m) : (x))
#define IMAX(m, x) ((m) > (x) ? (m) : (x))
#define IMIN(m, x) ((m) < (x) ? (m) : (x))

REDUCE (sum, f32, float, 0.0f, PLUS, KEEP)
FP64 (REDUCE (sum, f64, double, 0.0, PLUS, KEEP))
REDUCE (sum, i64, long, 0, WRAPPING_PLUS, KEEP)

REDUCE (mean, f32, float, 0.0f, PLUS, DIVIDE)
FP64 (REDUCE (mean, f64, double, 0.0, PLUS, DIVIDE))

REDUCE (max, f32, float, -INFINITY, FMAX, KEEP)
FP64 (REDUCE (max, f64, double, -INFINITY, FMAX, KEEP))
REDUCE (max, i32, int, INT_MIN, IMAX, KEEP)
REDUCE (max, i64, long, LONG_MIN, IMAX, KEEP)
REDUCE (max, b, uchar, 0, IMAX, KEEP)

REDUCE (min, f32, float, INFINITY, FMIN, KEEP)
FP64 (REDUCE (min, f64, double, INFINITY, FMIN, KEEP))
REDUCE (min, i32, int, INT_MAX, IMIN, KEEP)
REDUCE (min, i64, long, LONG_MAX, IMIN, KEEP)
REDUCE (min, b, uchar, 1, IMIN, KEEP)

REDUCE (prod, f32, float, 1.0f, TIMES, KEEP)
FP64 (REDUCE (prod, f64, double, 1.0, TIMES, KEEP))
REDUCE (prod, i64, long, 1, WRAPPING_TIMES, KEEP)

REDUCE (all, b, uchar, 1, AND, KEEP)
REDUCE (any, b, uchar, 0, OR, KEEP)
