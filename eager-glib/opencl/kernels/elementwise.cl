/* elementwise.cl: add, sub, mul, div, pow, floordiv, mod, minimum,
 * maximum, where, clip
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Mirrors cpu/elementwise.c: floor division and remainder as NumPy's
 * npy_divmod (bit for bit, ±0 and infinities included), NaN-propagating
 * extrema. Inputs are strided and broadcast through the EpMap; the
 * output is contiguous.
 *
 * One kernel per group and type (arith_f32, divmod_i64 …): @op, an
 * EpOpId (the build options define EP_OP_<name> for every op), picks
 * the operation once, outside the loop over elements. Fewer, larger
 * kernels compile much faster on first use than one per op.
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
U8 (BINARY_KERNEL (arith_u8, uchar, uchar,
  BIN (uchar, uchar, add, (uchar) ((uint) x + (uint) y))
  BIN (uchar, uchar, sub, (uchar) ((uint) x - (uint) y))
  BIN (uchar, uchar, mul, (uchar) ((uint) x * (uint) y))
  BIN (uchar, uchar, pow, (uchar) ep_ipow (x, y))))
U8 (BINARY_KERNEL (arith_i8, char, char,
  BIN (char, char, add, as_char ((uchar) ((uint) x + (uint) y)))
  BIN (char, char, sub, as_char ((uchar) ((uint) x - (uint) y)))
  BIN (char, char, mul, as_char ((uchar) ((uint) x * (uint) y)))
  BIN (char, char, pow, as_char ((uchar) ep_ipow (x, y)))))
U8 (BINARY_KERNEL (arith_i16, short, short,
  BIN (short, short, add, as_short ((ushort) ((uint) x + (uint) y)))
  BIN (short, short, sub, as_short ((ushort) ((uint) x - (uint) y)))
  BIN (short, short, mul, as_short ((ushort) ((uint) x * (uint) y)))
  BIN (short, short, pow, as_short ((ushort) ep_ipow (x, y)))))
BINARY_KERNEL (arith_b, uchar, uchar,
  BIN (uchar, uchar, add, x | y)
  BIN (uchar, uchar, mul, x & y))

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
#define EP_WRAP8(x) as_char ((uchar) (x))
#define EP_WRAP16(x) as_short ((ushort) (x))
U8 (INT_DIVMOD (char, uchar, i8, EP_WRAP8))
U8 (INT_DIVMOD (short, ushort, i16, EP_WRAP16))

/* NaN-propagating extrema: the first operand when it is NaN or strictly
 * beyond the second, else the second */
#define FMAXIMUM(x, y) (((x) > (y) || isnan (x)) ? (x) : (y))
#define FMINIMUM(x, y) (((x) < (y) || isnan (x)) ? (x) : (y))
#define IMAXIMUM(x, y) ((x) > (y) ? (x) : (y))
#define IMINIMUM(x, y) ((x) < (y) ? (x) : (y))

/* divmod: floordiv, mod, minimum, maximum */
#define FLOAT_DIVMOD_CASES(T, SFX)                                          \
  BIN (T, T, floordiv, floor_divide_##SFX (x, y))                           \
  BIN (T, T, mod, remainder_##SFX (x, y))                                   \
  BIN (T, T, maximum, FMAXIMUM (x, y))                                      \
  BIN (T, T, minimum, FMINIMUM (x, y))

#define INT_DIVMOD_CASES(T, SFX)                                            \
  BIN (T, T, floordiv, floor_divide_##SFX (x, y))                           \
  BIN (T, T, mod, remainder_##SFX (x, y))                                   \
  BIN (T, T, maximum, IMAXIMUM (x, y))                                      \
  BIN (T, T, minimum, IMINIMUM (x, y))

BINARY_KERNEL (divmod_f32, float, float, FLOAT_DIVMOD_CASES (float, f32))
FP64 (BINARY_KERNEL (divmod_f64, double, double, FLOAT_DIVMOD_CASES (double, f64)))
BINARY_KERNEL (divmod_i32, int, int, INT_DIVMOD_CASES (int, i32))
BINARY_KERNEL (divmod_i64, long, long, INT_DIVMOD_CASES (long, i64))
/* uint8: no negative operands; a zero divisor gives 0 */
U8 (BINARY_KERNEL (divmod_u8, uchar, uchar,
  BIN (uchar, uchar, floordiv, y == 0 ? 0 : x / y)
  BIN (uchar, uchar, mod, y == 0 ? 0 : x % y)
  BIN (uchar, uchar, maximum, IMAXIMUM (x, y))
  BIN (uchar, uchar, minimum, IMINIMUM (x, y))))
U8 (BINARY_KERNEL (divmod_i8, char, char, INT_DIVMOD_CASES (char, i8)))
U8 (BINARY_KERNEL (divmod_i16, short, short, INT_DIVMOD_CASES (short, i16)))
BINARY_KERNEL (divmod_b, uchar, uchar,
  BIN (uchar, uchar, maximum, x | y)
  BIN (uchar, uchar, minimum, x & y))

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
WHERE (where_2, ushort)
WHERE (where_4, uint)
WHERE (where_8, ulong)

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
CLIP (clip_u8, uchar, ICLIP (x, low, high))
CLIP (clip_i8, char, ICLIP (x, low, high))
CLIP (clip_i16, short, ICLIP (x, low, high))
