/* math.cl: the elementwise math and logic ops
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Mirrors cpu/ep-cpu-math.c: floor division and remainder as NumPy's
 * npy_divmod (bit for bit, ±0 and infinities included), NaN-propagating
 * extrema, clip, the float functions, sign and rounding, logic and
 * classification. As in elementwise.cl, one kernel per family and type
 * (math2_f32, math1_f64, classify_i32 …) with @op, an EpOpId, picking
 * the operation.
 */

/* floor division and remainder of floats: npy_divmod */
#define FLOAT_DIVMOD(T, SUFFIX)                                             \
inline T                                                                    \
floor_divide_##SUFFIX (T a, T b)                                            \
{                                                                           \
  T mod, div, floordiv;                                                     \
  if (b == 0)                                                               \
    return a / b;                                                           \
  mod = fmod (a, b);                                                        \
  div = (a - mod) / b;                                                      \
  if (mod != 0 && ((b < 0) != (mod < 0)))                                   \
    div -= 1;                                                               \
  if (div != 0)                                                             \
    {                                                                       \
      floordiv = floor (div);                                               \
      if (div - floordiv > (T) 0.5)                                         \
        floordiv += 1;                                                      \
    }                                                                       \
  else                                                                      \
    floordiv = copysign ((T) 0, a / b);                                     \
  return floordiv;                                                          \
}                                                                           \
                                                                            \
inline T                                                                    \
remainder_##SUFFIX (T a, T b)                                               \
{                                                                           \
  T mod = fmod (a, b);                                                      \
  if (b == 0)                                                               \
    return mod;                                                             \
  if (mod != 0)                                                             \
    {                                                                       \
      if ((b < 0) != (mod < 0))                                             \
        mod += b;                                                           \
    }                                                                       \
  else                                                                      \
    mod = copysign ((T) 0, b);                                              \
  return mod;                                                               \
}

FLOAT_DIVMOD (float, f32)
FP64 (FLOAT_DIVMOD (double, f64))

/* Integers: 0 for a zero divisor; MIN / -1 wraps to MIN. */
#define INT_DIVMOD(T, UT, SUFFIX, AS)                                       \
inline T                                                                    \
floor_divide_##SUFFIX (T a, T b)                                            \
{                                                                           \
  T q;                                                                      \
  if (b == 0)                                                               \
    return 0;                                                               \
  if (b == -1)                                                              \
    return AS ((UT) 0 - (UT) a);                                            \
  q = a / b;                                                                \
  if ((a % b != 0) && ((a < 0) != (b < 0)))                                 \
    q--;                                                                    \
  return q;                                                                 \
}                                                                           \
                                                                            \
inline T                                                                    \
remainder_##SUFFIX (T a, T b)                                               \
{                                                                           \
  T r;                                                                      \
  if (b == 0 || b == -1)                                                    \
    return 0;                                                               \
  r = a % b;                                                                \
  if (r != 0 && ((r < 0) != (b < 0)))                                       \
    r += b;                                                                 \
  return r;                                                                 \
}

INT_DIVMOD (int, uint, i32, as_int)
INT_DIVMOD (long, ulong, i64, as_long)

/* NaN-propagating extrema: the first operand when it is NaN or strictly
 * beyond the second, else the second */
#define FMAXIMUM(x, y) (((x) > (y) || isnan (x)) ? (x) : (y))
#define FMINIMUM(x, y) (((x) < (y) || isnan (x)) ? (x) : (y))
#define IMAXIMUM(x, y) ((x) > (y) ? (x) : (y))
#define IMINIMUM(x, y) ((x) < (y) ? (x) : (y))

#define FLOAT_MATH2(T, SFX)                                                 \
  BIN (T, T, floordiv, floor_divide_##SFX (x, y))                           \
  BIN (T, T, mod, remainder_##SFX (x, y))                                   \
  BIN (T, T, maximum, FMAXIMUM (x, y))                                      \
  BIN (T, T, minimum, FMINIMUM (x, y))

#define INT_MATH2(T, SFX)                                                   \
  BIN (T, T, floordiv, floor_divide_##SFX (x, y))                           \
  BIN (T, T, mod, remainder_##SFX (x, y))                                   \
  BIN (T, T, maximum, IMAXIMUM (x, y))                                      \
  BIN (T, T, minimum, IMINIMUM (x, y))

BINARY_KERNEL (math2_f32, float, float, FLOAT_MATH2 (float, f32))
FP64 (BINARY_KERNEL (math2_f64, double, double, FLOAT_MATH2 (double, f64)))
BINARY_KERNEL (math2_i32, int, int, INT_MATH2 (int, i32))
BINARY_KERNEL (math2_i64, long, long, INT_MATH2 (long, i64))
BINARY_KERNEL (math2_b, uchar, uchar,
  BIN (uchar, uchar, maximum, x | y)
  BIN (uchar, uchar, minimum, x & y)
  BIN (uchar, uchar, logical_and, x & y)
  BIN (uchar, uchar, logical_or, x | y))

/* functions of one tensor */
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
  UN (T, T, sign, FSIGN (x))

UNARY_KERNEL (math1_f32, float, float, FLOAT_MATH1 (float))
FP64 (UNARY_KERNEL (math1_f64, double, double, FLOAT_MATH1 (double)))
UNARY_KERNEL (math1_i32, int, int,
  UN (int, int, sign, (x > 0) - (x < 0))
  UN (int, int, round, x))
UNARY_KERNEL (math1_i64, long, long,
  UN (long, long, sign, (x > 0) - (x < 0))
  UN (long, long, round, x))
UNARY_KERNEL (math1_b, uchar, uchar,
  UN (uchar, uchar, logical_not, !x))

/* classification: integers and bools are never NaN or infinite */
#define CLASSIFY(T, EXACT_NAN, EXACT_INF, EXACT_FINITE)                     \
  UN (uchar, T, isnan, EXACT_NAN)                                           \
  UN (uchar, T, isinf, EXACT_INF)                                           \
  UN (uchar, T, isfinite, EXACT_FINITE)

UNARY_KERNEL (classify_f32, float, uchar, CLASSIFY (float, isnan (x) != 0, isinf (x) != 0, isfinite (x) != 0))
FP64 (UNARY_KERNEL (classify_f64, double, uchar, CLASSIFY (double, isnan (x) != 0, isinf (x) != 0, isfinite (x) != 0)))
UNARY_KERNEL (classify_i32, int, uchar, CLASSIFY (int, 0, 0, 1))
UNARY_KERNEL (classify_i64, long, uchar, CLASSIFY (long, 0, 0, 1))
UNARY_KERNEL (classify_b, uchar, uchar, CLASSIFY (uchar, 0, 0, 1))

/* clip: the bounds come in the element type (the host limits integer
 * bounds to the type's range, where they bind the same) */
#define CLIP(name, T, EXPR)                                                 \
__kernel void                                                               \
name (__global T *out,                                                      \
      __global const T *pa,                                                 \
      const EpMap g,                                                        \
      T low,                                                                \
      T high)                                                               \
{                                                                           \
  for (long i = get_global_id (0); i < g.n; i += get_global_size (0))       \
    {                                                                       \
      T x = pa[ep_map_offset (&g, 1, i)];                                   \
      out[i] = EXPR;                                                        \
    }                                                                       \
}

inline float
ep_fclip_f32 (float x, float low, float high)
{
  float t = (x >= low || isnan (x)) ? x : low;
  return (t <= high || isnan (t)) ? t : high;
}

#ifdef EP_FP64
inline double
ep_fclip_f64 (double x, double low, double high)
{
  double t = (x >= low || isnan (x)) ? x : low;
  return (t <= high || isnan (t)) ? t : high;
}
#endif

#define ICLIP(x, low, high) ((x >= low ? x : low) <= high ? (x >= low ? x : low) : high)

CLIP (clip_f32, float, ep_fclip_f32 (x, low, high))
FP64 (CLIP (clip_f64, double, ep_fclip_f64 (x, low, high)))
CLIP (clip_i32, int, ICLIP (x, low, high))
CLIP (clip_i64, long, ICLIP (x, low, high))
CLIP (clip_b, uchar, ICLIP (x, low, high))
