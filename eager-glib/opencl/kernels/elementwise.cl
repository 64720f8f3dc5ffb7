/* elementwise.cl: arithmetic, comparisons, functions of one tensor, where
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Mirrors cpu/ep-cpu-elementwise.c. Inputs are strided and broadcast
 * through the EpMap; the output is contiguous.
 */

#define BINARY(name, T, OUT_T, EXPR)                                        \
__kernel void                                                               \
name (__global OUT_T *out,                                                  \
      __global const T *pa,                                                 \
      __global const T *pb,                                                 \
      const EpMap g)                                                        \
{                                                                           \
  for (long i = get_global_id (0); i < g.n; i += get_global_size (0))       \
    {                                                                       \
      T x = pa[ep_map_offset (&g, 1, i)];                                   \
      T y = pb[ep_map_offset (&g, 2, i)];                                   \
      out[i] = (OUT_T) (EXPR);                                              \
    }                                                                       \
}

#define UNARY(name, T, OUT_T, EXPR)                                         \
__kernel void                                                               \
name (__global OUT_T *out,                                                  \
      __global const T *pa,                                                 \
      const EpMap g)                                                        \
{                                                                           \
  for (long i = get_global_id (0); i < g.n; i += get_global_size (0))       \
    {                                                                       \
      T x = pa[ep_map_offset (&g, 1, i)];                                   \
      out[i] = (OUT_T) (EXPR);                                              \
    }                                                                       \
}

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

#define FLOAT_BINARY(op, EXPR)                                              \
  BINARY (op##_f32, float, float, EXPR)                                     \
  FP64 (BINARY (op##_f64, double, double, EXPR))

#ifdef EP_FP64
#define FP64(x) x
#else
#define FP64(x)
#endif

/* add: bool + bool is or */
FLOAT_BINARY (add, x + y)
BINARY (add_i32, int, int, EP_WRAP32 ((uint) x + (uint) y))
BINARY (add_i64, long, long, EP_WRAP64 ((ulong) x + (ulong) y))
BINARY (add_b, uchar, uchar, x | y)
/* sub */
FLOAT_BINARY (sub, x - y)
BINARY (sub_i32, int, int, EP_WRAP32 ((uint) x - (uint) y))
BINARY (sub_i64, long, long, EP_WRAP64 ((ulong) x - (ulong) y))
/* mul: bool * bool is and */
FLOAT_BINARY (mul, x * y)
BINARY (mul_i32, int, int, EP_WRAP32 ((uint) x * (uint) y))
BINARY (mul_i64, long, long, EP_WRAP64 ((ulong) x * (ulong) y))
BINARY (mul_b, uchar, uchar, x & y)
/* div: floats only, the rule promotes integers */
FLOAT_BINARY (div, x / y)
/* pow */
FLOAT_BINARY (pow, pow (x, y))
BINARY (pow_i32, int, int, EP_WRAP32 (ep_ipow (x, y)))
BINARY (pow_i64, long, long, EP_WRAP64 (ep_ipow (x, y)))

#define COMPARISON(cmp, OP)                                                 \
  BINARY (cmp##_f32, float, uchar, x OP y)                                  \
  FP64 (BINARY (cmp##_f64, double, uchar, x OP y))                          \
  BINARY (cmp##_i32, int, uchar, x OP y)                                    \
  BINARY (cmp##_i64, long, uchar, x OP y)                                   \
  BINARY (cmp##_b, uchar, uchar, x OP y)

COMPARISON (less, <)
COMPARISON (less_equal, <=)
COMPARISON (equal, ==)
COMPARISON (not_equal, !=)
COMPARISON (greater, >)
COMPARISON (greater_equal, >=)

#define FLOAT_UNARY(op, EXPR)                                               \
  UNARY (op##_f32, float, float, EXPR)                                      \
  FP64 (UNARY (op##_f64, double, double, EXPR))

FLOAT_UNARY (neg, -x)
UNARY (neg_i32, int, int, EP_WRAP32 (-(uint) x))
UNARY (neg_i64, long, long, EP_WRAP64 (-(ulong) x))
FLOAT_UNARY (abs, fabs (x))
UNARY (abs_i32, int, int, x < 0 ? EP_WRAP32 (-(uint) x) : x)
UNARY (abs_i64, long, long, x < 0 ? EP_WRAP64 (-(ulong) x) : x)
UNARY (abs_b, uchar, uchar, x)
FLOAT_UNARY (square, x * x)
UNARY (square_i32, int, int, EP_WRAP32 ((uint) x * (uint) x))
UNARY (square_i64, long, long, EP_WRAP64 ((ulong) x * (ulong) x))
UNARY (square_b, uchar, uchar, x)
FLOAT_UNARY (sqrt, sqrt (x))
FLOAT_UNARY (exp, exp (x))
FLOAT_UNARY (log, log (x))
FLOAT_UNARY (tanh, tanh (x))
UNARY (sigmoid_f32, float, float, 1.0f / (1.0f + exp (-x)))
FP64 (UNARY (sigmoid_f64, double, double, 1.0 / (1.0 + exp (-x))))
UNARY (relu_f32, float, float, x < 0.0f ? 0.0f : x)
FP64 (UNARY (relu_f64, double, double, x < 0.0 ? 0.0 : x))
UNARY (relu_i32, int, int, x < 0 ? 0 : x)
UNARY (relu_i64, long, long, x < 0 ? 0 : x)
UNARY (relu_b, uchar, uchar, x)

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
