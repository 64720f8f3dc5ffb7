/* scan.cl: cumsum and cumprod
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Mirrors cpu/scan.c: one work-item to each row (EpRows), walked in
 * order as the CPU walks it.
 */

/* cumsum, cumprod: operand 0 the output, 1 the input */
#define SCAN(name, T, START, PLUS)                                               \
__kernel void                                                               \
name (__global T *out,                                                      \
      __global const T *in,                                                 \
      const EpRows g)                                                       \
{                                                                           \
  for (long r = get_global_id (0); r < g.rows; r += get_global_size (0))    \
    {                                                                       \
      long o = ep_row_base (&g, 0, r), p = ep_row_base (&g, 1, r);          \
      T acc = START;                                                        \
      for (long i = 0; i < g.length; i++)                                   \
        {                                                                   \
          acc = PLUS (acc, in[p + i * g.axis_strides[1]]);                  \
          out[o + i * g.axis_strides[0]] = acc;                             \
        }                                                                   \
    }                                                                       \
}

#define PLUS(a, b) ((a) + (b))
#define WRAPPING_PLUS(a, b) EP_WRAP64 ((ulong) (a) + (ulong) (b))

#define TIMES(a, b) ((a) * (b))
#define WRAPPING_TIMES(a, b) EP_WRAP64 ((ulong) (a) * (ulong) (b))

SCAN (cumsum_f32, float, 0, PLUS)
FP64 (SCAN (cumsum_f64, double, 0, PLUS))
SCAN (cumsum_i64, long, 0, WRAPPING_PLUS)
SCAN (cumprod_f32, float, 1, TIMES)
FP64 (SCAN (cumprod_f64, double, 1, TIMES))
SCAN (cumprod_i64, long, 1, WRAPPING_TIMES)
