/* elementwise.cl: arithmetic, comparisons, functions of one tensor, where
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Mirrors cpu/ep-cpu-elementwise.c. Inputs are strided and broadcast
 * through the EpMap; the output is contiguous.
 *
 * One kernel per family and type (arith_f32, compare_i64, unary_f64 …):
 * @op, an EpOpId (the build options define EP_OP_<name> for every op),
 * picks the operation once, outside the loop over elements. Fewer,
 * larger kernels compile much faster on first use than one per op.
 */

/* Integer powers by squaring, wrapping; a negative exponent gives the
 * integer part of the true result. */
inline ulong
ep_ipow (long base, long exponent)
{
  ulong result = 1, b = (ulong) base;

  if (exponent < 0)
    return base == 1 ? 1 : base == -1 ? ((exponent & 1) ? (ulong) -1 : 1) : 0;

  while (exponent != 0)
    {
      if (exponent & 1)
        result *= b;
      b *= b;
      exponent >>= 1;
    }

  return result;
}

/* add, sub, mul, div, pow: bool + bool is or, bool * bool is and; div
 * takes floats only (the rule promotes integers) */
#define FLOAT_ARITH(T)                                                      \
  BIN (T, T, add, x + y)                                                    \
  BIN (T, T, sub, x - y)                                                    \
  BIN (T, T, mul, x * y)                                                    \
  BIN (T, T, div, x / y)                                                    \
  BIN (T, T, pow, pow (x, y))

BINARY_KERNEL (arith_f32, float, float, FLOAT_ARITH (float))
FP64 (BINARY_KERNEL (arith_f64, double, double, FLOAT_ARITH (double)))
BINARY_KERNEL (arith_i32, int, int,
  BIN (int, int, add, EP_WRAP32 ((uint) x + (uint) y))
  BIN (int, int, sub, EP_WRAP32 ((uint) x - (uint) y))
  BIN (int, int, mul, EP_WRAP32 ((uint) x * (uint) y))
  BIN (int, int, pow, EP_WRAP32 (ep_ipow (x, y))))
BINARY_KERNEL (arith_i64, long, long,
  BIN (long, long, add, EP_WRAP64 ((ulong) x + (ulong) y))
  BIN (long, long, sub, EP_WRAP64 ((ulong) x - (ulong) y))
  BIN (long, long, mul, EP_WRAP64 ((ulong) x * (ulong) y))
  BIN (long, long, pow, EP_WRAP64 (ep_ipow (x, y))))
BINARY_KERNEL (arith_b, uchar, uchar,
  BIN (uchar, uchar, add, x | y)
  BIN (uchar, uchar, mul, x & y))

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
BINARY_KERNEL (compare_b, uchar, uchar, COMPARISONS (uchar))

/* functions of one tensor */
#define FLOAT_UNARY(T)                                                      \
  UN (T, T, neg, -x)                                                        \
  UN (T, T, abs, fabs (x))                                                  \
  UN (T, T, square, x * x)                                                  \
  UN (T, T, sqrt, sqrt (x))                                                 \
  UN (T, T, exp, exp (x))                                                   \
  UN (T, T, log, log (x))                                                   \
  UN (T, T, tanh, tanh (x))                                                 \
  UN (T, T, sigmoid, (T) 1 / ((T) 1 + exp (-x)))                            \
  UN (T, T, relu, x < 0 ? (T) 0 : x)

UNARY_KERNEL (unary_f32, float, float, FLOAT_UNARY (float))
FP64 (UNARY_KERNEL (unary_f64, double, double, FLOAT_UNARY (double)))
UNARY_KERNEL (unary_i32, int, int,
  UN (int, int, neg, EP_WRAP32 (-(uint) x))
  UN (int, int, abs, x < 0 ? EP_WRAP32 (-(uint) x) : x)
  UN (int, int, square, EP_WRAP32 ((uint) x * (uint) x))
  UN (int, int, relu, x < 0 ? 0 : x))
UNARY_KERNEL (unary_i64, long, long,
  UN (long, long, neg, EP_WRAP64 (-(ulong) x))
  UN (long, long, abs, x < 0 ? EP_WRAP64 (-(ulong) x) : x)
  UN (long, long, square, EP_WRAP64 ((ulong) x * (ulong) x))
  UN (long, long, relu, x < 0 ? 0 : x))
UNARY_KERNEL (unary_b, uchar, uchar,
  UN (uchar, uchar, abs, x)
  UN (uchar, uchar, square, x)
  UN (uchar, uchar, relu, x))

/* where: by item size; the condition is bool */
#define WHERE(name, T)                                                      \
__kernel void                                                               \
name (__global T *out,                                                      \
      __global const uchar *cond,                                           \
      __global const T *px,                                                 \
      __global const T *py,                                                 \
      const EpMap g)                                                        \
{                                                                           \
  for (long i = get_global_id (0); i < g.n; i += get_global_size (0))       \
    out[i] = cond[ep_map_offset (&g, 1, i)] ? px[ep_map_offset (&g, 2, i)]  \
                                            : py[ep_map_offset (&g, 3, i)]; \
}

WHERE (where_1, uchar)
WHERE (where_4, uint)
WHERE (where_8, ulong)
