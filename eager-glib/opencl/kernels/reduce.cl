/* reduce.cl: sum, mean, max, min, prod, all, any over any axes; argmin,
 * argmax
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Mirrors cpu/reduce.c. A reduction is m outputs of k elements
 * (EpReduce). Two kernels per type:
 *
 * - reduce_wg_T: work-groups of a power-of-two size; group g of output o
 *   folds elements [g * chunk, (g + 1) * chunk) of o, each work-item a
 *   strided share, then the group folds its items in local memory as a
 *   tree. With several groups per output the host runs it again over the
 *   partial results.
 * - reduce_wi_T: one work-item per output, for short reductions.
 *
 * @op, an EpOpId, picks the fold (sum, mean, max, min, prod, all, any).
 *
 * Float sums fold in a tree, so their error grows with log k as the
 * CPU's pairwise sums do; extrema propagate NaN.
 */

/* A fold over this work-item's share, for one op (no barrier inside a
 * switch: PoCL, like some GPU compilers, wants barriers in code every
 * work-item reaches the same way) */
#define SHARE(name, IDENTITY, COMBINE, FINAL)                               \
  case EP_OP_##name:                                                        \
    acc = IDENTITY;                                                         \
    for (long r = start + lid; r < end; r += size)                          \
      {                                                                     \
        T x = in[base + ep_unravel (r, g.red_ndim, g.red_shape, g.red_strides)]; \
        acc = COMBINE (acc, x);                                             \
      }                                                                     \
    break;

/* Two partial results folded together */
#define JOIN(name, IDENTITY, COMBINE, FINAL)                                \
  case EP_OP_##name:                                                        \
    return COMBINE (a, b);

/* The result from the fold */
#define LAST(name, IDENTITY, COMBINE, FINAL)                                \
  case EP_OP_##name:                                                        \
    return FINAL (a, divisor);

/* The body of a work-item kernel for one op */
#define WI(name, IDENTITY, COMBINE, FINAL)                                  \
  case EP_OP_##name:                                                        \
    for (long m = get_global_id (0); m < g.m; m += get_global_size (0))     \
      {                                                                     \
        long base = g.offset + ep_unravel (m, g.out_ndim, g.out_shape, g.out_strides); \
        T acc = IDENTITY;                                                   \
        for (long r = 0; r < g.k; r++)                                      \
          {                                                                 \
            T x = in[base + ep_unravel (r, g.red_ndim, g.red_shape, g.red_strides)]; \
            acc = COMBINE (acc, x);                                         \
          }                                                                 \
        out[m] = FINAL (acc, divisor);                                      \
      }                                                                     \
    break;

/* One pair of kernels per type, @op (an EpOpId) picking the fold */
#define REDUCE(sfx, FOLDS)                                                  \
inline T                                                                    \
join_##sfx (int op, T a, T b)                                               \
{                                                                           \
  switch (op)                                                               \
    {                                                                       \
    FOLDS (JOIN)                                                            \
    }                                                                       \
  return a;                                                                 \
}                                                                           \
                                                                            \
inline T                                                                    \
last_##sfx (int op, T a, T divisor)                                         \
{                                                                           \
  switch (op)                                                               \
    {                                                                       \
    FOLDS (LAST)                                                            \
    }                                                                       \
  return a;                                                                 \
}                                                                           \
                                                                            \
__kernel void                                                               \
reduce_wg_##sfx (__global T *out,                                           \
                 __global const T *in,                                      \
                 const EpReduce g,                                          \
                 long groups,                                               \
                 long chunk,                                                \
                 T divisor,                                                 \
                 __local T *scratch,                                        \
                 int op)                                                    \
{                                                                           \
  long group = get_group_id (0);                                            \
  long m = group / groups;                                                  \
  long start = (group % groups) * chunk;                                    \
  long end = min (g.k, start + chunk);                                      \
  long lid = get_local_id (0);                                              \
  long size = get_local_size (0);                                           \
  long base = g.offset + ep_unravel (m, g.out_ndim, g.out_shape, g.out_strides); \
  T acc = 0;                                                                \
                                                                            \
  switch (op)                                                               \
    {                                                                       \
    FOLDS (SHARE)                                                           \
    }                                                                       \
  scratch[lid] = acc;                                                       \
  barrier (CLK_LOCAL_MEM_FENCE);                                            \
                                                                            \
  for (long s = size / 2; s > 0; s /= 2)                                    \
    {                                                                       \
      if (lid < s)                                                          \
        scratch[lid] = join_##sfx (op, scratch[lid], scratch[lid + s]);     \
      barrier (CLK_LOCAL_MEM_FENCE);                                        \
    }                                                                       \
                                                                            \
  if (lid == 0)                                                             \
    out[group] = last_##sfx (op, scratch[0], divisor);                      \
}                                                                           \
                                                                            \
__kernel void                                                               \
reduce_wi_##sfx (__global T *out,                                           \
                 __global const T *in,                                      \
                 const EpReduce g,                                          \
                 T divisor,                                                 \
                 int op)                                                    \
{                                                                           \
  switch (op)                                                               \
    {                                                                       \
    FOLDS (WI)                                                              \
    }                                                                       \
}

#define PLUS(a, b) ((a) + (b))
#define TIMES(a, b) ((a) * (b))
#define WRAPPING_PLUS(a, b) EP_WRAP64 ((ulong) (a) + (ulong) (b))
#define WRAPPING_TIMES(a, b) EP_WRAP64 ((ulong) (a) * (ulong) (b))
#define AND(a, b) ((a) & (b))
#define OR(a, b) ((a) | (b))
#define KEEP(a, d) (a)
#define DIVIDE(a, d) ((a) / (d))
#define FMAX(m, x) (((m) > (x) || isnan (m)) ? (m) : (x))
#define FMIN(m, x) (((m) < (x) || isnan (m)) ? (m) : (x))
#define IMAX(m, x) ((m) > (x) ? (m) : (x))
#define IMIN(m, x) ((m) < (x) ? (m) : (x))

#define FLOAT_FOLDS(K)                                                      \
  K (sum, 0, PLUS, KEEP)                                                    \
  K (mean, 0, PLUS, DIVIDE)                                                 \
  K (max, -INFINITY, FMAX, KEEP)                                            \
  K (min, INFINITY, FMIN, KEEP)                                             \
  K (prod, 1, TIMES, KEEP)

#define T float
REDUCE (f32, FLOAT_FOLDS)
#undef T

#ifdef EP_FP64
#define T double
REDUCE (f64, FLOAT_FOLDS)
#undef T
#endif

#define INT64_FOLDS(K)                                                      \
  K (sum, 0, WRAPPING_PLUS, KEEP)                                           \
  K (max, LONG_MIN, IMAX, KEEP)                                             \
  K (min, LONG_MAX, IMIN, KEEP)                                             \
  K (prod, 1, WRAPPING_TIMES, KEEP)

#define T long
REDUCE (i64, INT64_FOLDS)
#undef T

#define INT32_FOLDS(K)                                                      \
  K (max, INT_MIN, IMAX, KEEP)                                              \
  K (min, INT_MAX, IMIN, KEEP)

#define T int
REDUCE (i32, INT32_FOLDS)
#undef T

#define BOOL_FOLDS(K)                                                       \
  K (max, 0, IMAX, KEEP)                                                    \
  K (min, 1, IMIN, KEEP)                                                    \
  K (all, 1, AND, KEEP)                                                     \
  K (any, 0, OR, KEEP)

#define T uchar
REDUCE (b, BOOL_FOLDS)
#undef T

/* uint8, int8, int16: extrema (sums and products run in int64, as the
 * rules cast) */
#define UINT8_FOLDS(K)                                                      \
  K (max, 0, IMAX, KEEP)                                                    \
  K (min, UCHAR_MAX, IMIN, KEEP)

#define T uchar
REDUCE (u8, UINT8_FOLDS)
#undef T

#define INT8_FOLDS(K)                                                       \
  K (max, CHAR_MIN, IMAX, KEEP)                                             \
  K (min, CHAR_MAX, IMIN, KEEP)

#define T char
REDUCE (i8, INT8_FOLDS)
#undef T

#define INT16_FOLDS(K)                                                      \
  K (max, SHRT_MIN, IMAX, KEEP)                                             \
  K (min, SHRT_MAX, IMIN, KEEP)

#define T short
REDUCE (i16, INT16_FOLDS)
#undef T

/* argmin, argmax: one work-item to each row (EpRows), walked in order as
 * the CPU walks it. The first extreme element; the first NaN wins.
 * Operand 0 is the output (one element per row), 1 the input. */
#define ARG(name, T, BETTER, IS_NAN)                                        \
__kernel void                                                               \
name (__global long *out,                                                   \
      __global const T *in,                                                 \
      const EpRows g)                                                       \
{                                                                           \
  for (long r = get_global_id (0); r < g.rows; r += get_global_size (0))    \
    {                                                                       \
      long p = ep_row_base (&g, 1, r), s = g.axis_strides[1];               \
      T best = in[p];                                                       \
      long at = 0;                                                          \
      if (!IS_NAN (best))                                                   \
        for (long i = 1; i < g.length; i++)                                 \
          {                                                                 \
            T x = in[p + i * s];                                            \
            if (IS_NAN (x))                                                 \
              {                                                             \
                at = i;                                                     \
                break;                                                      \
              }                                                             \
            if (x BETTER best)                                              \
              {                                                             \
                best = x;                                                   \
                at = i;                                                     \
              }                                                             \
          }                                                                 \
      out[ep_row_base (&g, 0, r)] = at;                                     \
    }                                                                       \
}

#define FLOAT_NAN(x) isnan (x)
#define NEVER_NAN(x) 0

#define ARGS(op, BETTER)                                                    \
  ARG (op##_f32, float, BETTER, FLOAT_NAN)                                  \
  FP64 (ARG (op##_f64, double, BETTER, FLOAT_NAN))                          \
  ARG (op##_i32, int, BETTER, NEVER_NAN)                                    \
  ARG (op##_i64, long, BETTER, NEVER_NAN)                                   \
  ARG (op##_b, uchar, BETTER, NEVER_NAN)                                    \
  ARG (op##_u8, uchar, BETTER, NEVER_NAN)                                   \
  ARG (op##_i8, char, BETTER, NEVER_NAN)                                    \
  ARG (op##_i16, short, BETTER, NEVER_NAN)

ARGS (argmax, >)
ARGS (argmin, <)
