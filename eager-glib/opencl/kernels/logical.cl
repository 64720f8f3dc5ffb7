/* logical.cl: less, less_equal, equal, not_equal, greater,
 * greater_equal, logical_and, logical_or, logical_not, isnan, isinf,
 * isfinite, isclose
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Mirrors cpu/logical.c. As in elementwise.cl, one kernel per group and
 * type with @op, an EpOpId, picking the operation: compare_T for the
 * ops of two tensors (the comparisons; for bool also logical_and and
 * logical_or), classify_T for those of one (isnan, isinf, isfinite; for
 * bool also logical_not). Every result is bool.
 */

/* comparisons: bool results */
#define COMPARISONS(T)                                                      \
  BIN (uchar, T, less, x < y)                                               \
  BIN (uchar, T, less_equal, x <= y)                                        \
  BIN (uchar, T, equal, x == y)                                             \
  BIN (uchar, T, not_equal, x != y)                                         \
  BIN (uchar, T, greater, x > y)                                            \
  BIN (uchar, T, greater_equal, x >= y)

BINARY_KERNEL (compare_f32, float, uchar, COMPARISONS (float))
FP64 (BINARY_KERNEL (compare_f64, double, uchar, COMPARISONS (double)))
BINARY_KERNEL (compare_i32, int, uchar, COMPARISONS (int))
BINARY_KERNEL (compare_i64, long, uchar, COMPARISONS (long))
U8 (BINARY_KERNEL (compare_u8, uchar, uchar, COMPARISONS (uchar)))
U8 (BINARY_KERNEL (compare_i8, char, uchar, COMPARISONS (char)))
U8 (BINARY_KERNEL (compare_i16, short, uchar, COMPARISONS (short)))
BINARY_KERNEL (compare_b, uchar, uchar,
  COMPARISONS (uchar)
  BIN (uchar, uchar, logical_and, x & y)
  BIN (uchar, uchar, logical_or, x | y))

/* classification: integers and bools are never NaN or infinite */
#define CLASSIFY(T, EXACT_NAN, EXACT_INF, EXACT_FINITE)                     \
  UN (uchar, T, isnan, EXACT_NAN)                                           \
  UN (uchar, T, isinf, EXACT_INF)                                           \
  UN (uchar, T, isfinite, EXACT_FINITE)

UNARY_KERNEL (classify_f32, float, uchar, CLASSIFY (float, isnan (x) != 0, isinf (x) != 0, isfinite (x) != 0))
FP64 (UNARY_KERNEL (classify_f64, double, uchar, CLASSIFY (double, isnan (x) != 0, isinf (x) != 0, isfinite (x) != 0)))
UNARY_KERNEL (classify_i32, int, uchar, CLASSIFY (int, 0, 0, 1))
UNARY_KERNEL (classify_i64, long, uchar, CLASSIFY (long, 0, 0, 1))
U8 (UNARY_KERNEL (classify_u8, uchar, uchar, CLASSIFY (uchar, 0, 0, 1)))
U8 (UNARY_KERNEL (classify_i8, char, uchar, CLASSIFY (char, 0, 0, 1)))
U8 (UNARY_KERNEL (classify_i16, short, uchar, CLASSIFY (short, 0, 0, 1)))
UNARY_KERNEL (classify_b, uchar, uchar,
  CLASSIFY (uchar, 0, 0, 1)
  UN (uchar, uchar, logical_not, !x))


/* isclose: as cpu/logical.c, the tolerances in the element type */
#ifndef EP_FUSED
#define ISCLOSE_KERNEL(name, T)                                             \
__kernel void                                                               \
name (__global uchar *out,                                                  \
      __global const T *pa,                                                 \
      __global const T *pb,                                                 \
      const EpMap g,                                                        \
      T rtol,                                                               \
      T atol,                                                               \
      int equal_nan)                                                        \
{                                                                           \
  for (long i = get_global_id (0); i < g.n; i += get_global_size (0))       \
    {                                                                       \
      T x = pa[ep_map_offset (&g, 1, i)];                                   \
      T y = pb[ep_map_offset (&g, 2, i)];                                   \
                                                                            \
      if (isfinite (x) && isfinite (y))                                     \
        out[i] = fabs (x - y) <= atol + rtol * fabs (y);                    \
      else                                                                  \
        out[i] = x == y || (equal_nan && isnan (x) && isnan (y));           \
    }                                                                       \
}

ISCLOSE_KERNEL (isclose_f32, float)
FP64 (ISCLOSE_KERNEL (isclose_f64, double))
#endif
