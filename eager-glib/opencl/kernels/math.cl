/* math.cl: the elementwise math and logic ops
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Mirrors cpu/ep-cpu-math.c: floor division and remainder as NumPy's
 * npy_divmod (bit for bit, ±0 and infinities included), NaN-propagating
 * extrema, clip, the float functions, sign and rounding, logic and
 * classification. Kernels are named after the op and the input type.
 */

#ifdef EP_FP64
#define FP64(x) x
#else
#define FP64(x)
#endif

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

#define NUMERIC_BINARY(op, FN)                                              \
  BINARY (op##_f32, float, float, FN##_f32 (x, y))                          \
  FP64 (BINARY (op##_f64, double, double, FN##_f64 (x, y)))                 \
  BINARY (op##_i32, int, int, FN##_i32 (x, y))                              \
  BINARY (op##_i64, long, long, FN##_i64 (x, y))

NUMERIC_BINARY (floordiv, floor_divide)
NUMERIC_BINARY (mod, remainder)

/* NaN-propagating extrema: the first operand when it is NaN or strictly
 * beyond the second, else the second */
#define FMAXIMUM(x, y) (((x) > (y) || isnan (x)) ? (x) : (y))
#define FMINIMUM(x, y) (((x) < (y) || isnan (x)) ? (x) : (y))
#define IMAXIMUM(x, y) ((x) > (y) ? (x) : (y))
#define IMINIMUM(x, y) ((x) < (y) ? (x) : (y))

BINARY (maximum_f32, float, float, FMAXIMUM (x, y))
FP64 (BINARY (maximum_f64, double, double, FMAXIMUM (x, y)))
BINARY (maximum_i32, int, int, IMAXIMUM (x, y))
BINARY (maximum_i64, long, long, IMAXIMUM (x, y))
BINARY (maximum_b, uchar, uchar, x | y)
BINARY (minimum_f32, float, float, FMINIMUM (x, y))
FP64 (BINARY (minimum_f64, double, double, FMINIMUM (x, y)))
BINARY (minimum_i32, int, int, IMINIMUM (x, y))
BINARY (minimum_i64, long, long, IMINIMUM (x, y))
BINARY (minimum_b, uchar, uchar, x & y)

BINARY (logical_and_b, uchar, uchar, x & y)
BINARY (logical_or_b, uchar, uchar, x | y)
UNARY (logical_not_b, uchar, uchar, !x)

/* float functions */
#define FLOAT_FUNCTION(op, EXPR)                                            \
  UNARY (op##_f32, float, float, EXPR)                                      \
  FP64 (UNARY (op##_f64, double, double, EXPR))

#define SOFTPLUS(x) ((x > 0 ? x : 0) + log1p (exp (-fabs (x))))
#define FSIGN(x) (x > 0 ? 1 : x < 0 ? -1 : x == 0 ? 0 : x)

FLOAT_FUNCTION (expm1, expm1 (x))
FLOAT_FUNCTION (log1p, log1p (x))
FLOAT_FUNCTION (log2, log2 (x))
FLOAT_FUNCTION (log10, log10 (x))
FLOAT_FUNCTION (sin, sin (x))
FLOAT_FUNCTION (cos, cos (x))
FLOAT_FUNCTION (tan, tan (x))
FLOAT_FUNCTION (sinh, sinh (x))
FLOAT_FUNCTION (cosh, cosh (x))
FLOAT_FUNCTION (arcsin, asin (x))
FLOAT_FUNCTION (arccos, acos (x))
FLOAT_FUNCTION (arctan, atan (x))
FLOAT_FUNCTION (arcsinh, asinh (x))
FLOAT_FUNCTION (arccosh, acosh (x))
FLOAT_FUNCTION (arctanh, atanh (x))
FLOAT_FUNCTION (softplus, SOFTPLUS (x))
FLOAT_FUNCTION (round, rint (x))
FLOAT_FUNCTION (ceil, ceil (x))
FLOAT_FUNCTION (floor, floor (x))
FLOAT_FUNCTION (sign, FSIGN (x))

UNARY (sign_i32, int, int, (x > 0) - (x < 0))
UNARY (sign_i64, long, long, (x > 0) - (x < 0))
UNARY (round_i32, int, int, x)
UNARY (round_i64, long, long, x)

/* classification: integers and bools are never NaN or infinite */
#define CLASSIFY(op, EXPR, EXACT)                                           \
  UNARY (op##_f32, float, uchar, EXPR)                                      \
  FP64 (UNARY (op##_f64, double, uchar, EXPR))                              \
  UNARY (op##_i32, int, uchar, EXACT)                                       \
  UNARY (op##_i64, long, uchar, EXACT)                                      \
  UNARY (op##_b, uchar, uchar, EXACT)

CLASSIFY (isnan, isnan (x) != 0, 0)
CLASSIFY (isinf, isinf (x) != 0, 0)
CLASSIFY (isfinite, isfinite (x) != 0, 1)

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
