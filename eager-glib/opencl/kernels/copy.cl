/* copy.cl: astype and contiguous
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Mirrors cpu/ep-cpu-copy.c: floats to integers truncate toward zero,
 * what does not fit gives the type's minimum; integers wrap when
 * narrowed; anything to bool tests for non-zero.
 */

#ifdef EP_FP64
#define FP64(x) x
#else
#define FP64(x)
#endif

#define CAST(name, SRC, DST, CONVERT)                                       \
__kernel void                                                               \
name (__global DST *out,                                                    \
      __global const SRC *in,                                               \
      const EpMap g)                                                        \
{                                                                           \
  for (long i = get_global_id (0); i < g.n; i += get_global_size (0))       \
    {                                                                       \
      SRC x = in[ep_map_offset (&g, 1, i)];                                 \
      out[i] = CONVERT;                                                     \
    }                                                                       \
}

#define AS(T) ((T) x)
#define TO_BOOL ((uchar) (x != 0))
#define WRAP_TO_I32 as_int ((uint) (ulong) x)

CAST (cast_f32_f32, float, float, x)
FP64 (CAST (cast_f32_f64, float, double, AS (double)))
CAST (cast_f32_i32, float, int, EP_F_TO_I32 (x))
CAST (cast_f32_i64, float, long, EP_F_TO_I64 (x))
CAST (cast_f32_b, float, uchar, TO_BOOL)

FP64 (CAST (cast_f64_f32, double, float, AS (float)))
FP64 (CAST (cast_f64_f64, double, double, x))
FP64 (CAST (cast_f64_i32, double, int, EP_D_TO_I32 (x)))
FP64 (CAST (cast_f64_i64, double, long, EP_D_TO_I64 (x)))
FP64 (CAST (cast_f64_b, double, uchar, TO_BOOL))

CAST (cast_i32_f32, int, float, AS (float))
FP64 (CAST (cast_i32_f64, int, double, AS (double)))
CAST (cast_i32_i32, int, int, x)
CAST (cast_i32_i64, int, long, AS (long))
CAST (cast_i32_b, int, uchar, TO_BOOL)

CAST (cast_i64_f32, long, float, AS (float))
FP64 (CAST (cast_i64_f64, long, double, AS (double)))
CAST (cast_i64_i32, long, int, WRAP_TO_I32)
CAST (cast_i64_i64, long, long, x)
CAST (cast_i64_b, long, uchar, TO_BOOL)

CAST (cast_b_f32, uchar, float, AS (float))
FP64 (CAST (cast_b_f64, uchar, double, AS (double)))
CAST (cast_b_i32, uchar, int, AS (int))
CAST (cast_b_i64, uchar, long, AS (long))
CAST (cast_b_b, uchar, uchar, x)

/* contiguous: by item size */
CAST (copy_1, uchar, uchar, x)
CAST (copy_4, uint, uint, x)
CAST (copy_8, ulong, ulong, x)
