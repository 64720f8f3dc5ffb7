/* scan.cl: cumsum
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Mirrors cpu/scan.c: one work-item to each row (EpRows), walked in
 * order as the CPU walks it.
 */

/* cumsum: operand 0 the output, 1 the input */
#define CUMSUM(name, T, PLUS)                                               \
__kernel void                                                               \
name (__global T *out,                                                      \
      __global const T *in,                                                 \
      const EpRows g)                                                       \
{                                                                           \
  for (long r = get_global_id (0); r < g.rows; r += get_global_size (0))    \
    {                                                                       \
      long o = ep_row_base (&g, 0, r), p = ep_row_base (&g, 1, r);          \
      T acc = 0;                                                            \
      for (long i = 0; i < g.length; i++)                                   \
        {                                                                   \
          acc = PLUS (acc, in[p + i * g.axis_strides[1]]);                  \
          out[o + i * g.axis_strides[0]] = acc;                             \
        }                                                                   \
    }                                                                       \
}

#define PLUS(a, b) ((a) + (b))
#define WRAPPING_PLUS(a, b) EP_WRAP64 ((ulong) (a) + (ulong) (b))

CUMSUM (cumsum_f32, float, PLUS)
FP64 (CUMSUM (cumsum_f64, double, PLUS))
CUMSUM (cumsum_i64, long, WRAPPING_PLUS)
