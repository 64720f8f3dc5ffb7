/* math.cl: functions of one tensor: neg, abs, sign, square, sqrt, exp,
 * expm1, log, log1p, log2, log10, the trigonometric and hyperbolic
 * functions and their inverses, sigmoid, relu, softplus, round, ceil,
 * floor, erf, erfc
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Mirrors cpu/math.c. As in elementwise.cl, one kernel per group and
 * type with @op, an EpOpId, picking the operation: unary_T (neg, abs,
 * square, sqrt, exp, log, tanh, sigmoid, relu) and math1_T (the others).
 */

/* unary */
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
U8 (UNARY_KERNEL (unary_u8, uchar, uchar,
  UN (uchar, uchar, neg, (uchar) (0u - (uint) x))
  UN (uchar, uchar, abs, x)
  UN (uchar, uchar, square, (uchar) ((uint) x * (uint) x))))
U8 (UNARY_KERNEL (unary_i8, char, char,
  UN (char, char, neg, as_char ((uchar) (0u - (uint) x)))
  UN (char, char, abs, x < 0 ? as_char ((uchar) (0u - (uint) x)) : x)
  UN (char, char, square, as_char ((uchar) ((uint) x * (uint) x)))))
U8 (UNARY_KERNEL (unary_i16, short, short,
  UN (short, short, neg, as_short ((ushort) (0u - (uint) x)))
  UN (short, short, abs, x < 0 ? as_short ((ushort) (0u - (uint) x)) : x)
  UN (short, short, square, as_short ((ushort) ((uint) x * (uint) x)))))
UNARY_KERNEL (unary_b, uchar, uchar,
  UN (uchar, uchar, abs, x)
  UN (uchar, uchar, square, x)
  UN (uchar, uchar, relu, x))

/* math1 */
#define SOFTPLUS(x) ((x > 0 ? x : 0) + log1p (exp (-fabs (x))))
#define FSIGN(x) (x > 0 ? 1 : x < 0 ? -1 : x == 0 ? 0 : x)

#define FLOAT_MATH1(T)                                                      \
  UN (T, T, expm1, expm1 (x))                                               \
  UN (T, T, log1p, log1p (x))                                               \
  UN (T, T, log2, log2 (x))                                                 \
  UN (T, T, log10, log10 (x))                                               \
  UN (T, T, sin, sin (x))                                                   \
  UN (T, T, cos, cos (x))                                                   \
  UN (T, T, tan, tan (x))                                                   \
  UN (T, T, sinh, sinh (x))                                                 \
  UN (T, T, cosh, cosh (x))                                                 \
  UN (T, T, arcsin, asin (x))                                               \
  UN (T, T, arccos, acos (x))                                               \
  UN (T, T, arctan, atan (x))                                               \
  UN (T, T, arcsinh, asinh (x))                                             \
  UN (T, T, arccosh, acosh (x))                                             \
  UN (T, T, arctanh, atanh (x))                                             \
  UN (T, T, softplus, SOFTPLUS (x))                                         \
  UN (T, T, round, rint (x))                                                \
  UN (T, T, ceil, ceil (x))                                                 \
  UN (T, T, floor, floor (x))                                               \
  UN (T, T, erf, erf (x))                                                   \
  UN (T, T, erfc, erfc (x))                                                 \
  UN (T, T, sign, FSIGN (x))

UNARY_KERNEL (math1_f32, float, float, FLOAT_MATH1 (float))
FP64 (UNARY_KERNEL (math1_f64, double, double, FLOAT_MATH1 (double)))
UNARY_KERNEL (math1_i32, int, int,
  UN (int, int, sign, (x > 0) - (x < 0))
  UN (int, int, round, x))
UNARY_KERNEL (math1_i64, long, long,
  UN (long, long, sign, (x > 0) - (x < 0))
  UN (long, long, round, x))
U8 (UNARY_KERNEL (math1_u8, uchar, uchar,
  UN (uchar, uchar, sign, x > 0)))
U8 (UNARY_KERNEL (math1_i8, char, char,
  UN (char, char, sign, (x > 0) - (x < 0))))
U8 (UNARY_KERNEL (math1_i16, short, short,
  UN (short, short, sign, (x > 0) - (x < 0))))

/* gelu: as cpu/math.c, @approximate an EpGeluApproximation (0: erf,
 * 1: tanh). Beyond @TANH_ONE and @ERF_ONE, tanh and erf round to ±1
 * (correctly rounded, as on the CPU), which PoCL's tanh misses by an ulp:
 * gelu (-inf) would be -inf, not NaN, and gelu (-100) not -0. */
#ifndef EP_FUSED
#define GELU_KERNEL(name, T, TANH_ONE, ERF_ONE)                             \
__kernel void                                                               \
name (__global T *out,                                                      \
      __global const T *pa,                                                 \
      const EpMap g,                                                        \
      int approximate)                                                      \
{                                                                           \
  const T beta = (T) 0.7978845608028654, kappa = (T) 0.044715;              \
                                                                            \
  for (long i = get_global_id (0); i < g.n; i += get_global_size (0))       \
    {                                                                       \
      T x = pa[ep_map_offset (&g, 1, i)];                                   \
      T halved = (T) 0.5 * x;                                               \
      T v;                                                                  \
                                                                            \
      if (approximate)                                                      \
        {                                                                   \
          T cube = x * x * x;                                               \
          T u = beta * (x + kappa * cube);                                  \
                                                                            \
          v = fabs (u) > (T) TANH_ONE ? copysign ((T) 1, u) : tanh (u);     \
        }                                                                   \
      else                                                                  \
        {                                                                   \
          T u = x * (T) 0.7071067811865476;                                 \
                                                                            \
          v = fabs (u) > (T) ERF_ONE ? copysign ((T) 1, u) : erf (u);       \
        }                                                                   \
      out[i] = halved * ((T) 1 + v);                                        \
    }                                                                       \
}

GELU_KERNEL (gelu_f32, float, 9.1f, 4.0f)
FP64 (GELU_KERNEL (gelu_f64, double, 19.1, 6.0))
#endif
