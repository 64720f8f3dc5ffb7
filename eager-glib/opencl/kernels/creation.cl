/* creation.cl: arange, linspace, eye, onehot_like (full is a buffer
 * fill)
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Mirrors cpu/creation.c.
 */

/* arange as NumPy's fill: the host converts the first two values; the
 * rest are first + i * (second - first) in the element type. */
#define ARANGE(name, T, EXPR)                                               \
__kernel void                                                               \
name (__global T *out,                                                      \
      long n,                                                               \
      T first,                                                              \
      T second,                                                             \
      T delta)                                                              \
{                                                                           \
  for (long i = get_global_id (0); i < n; i += get_global_size (0))         \
    out[i] = i == 0 ? first : i == 1 ? second : (EXPR);                     \
}

ARANGE (arange_f32, float, first + (float) i * delta)
#ifdef EP_FP64
ARANGE (arange_f64, double, first + (double) i * delta)
#endif
ARANGE (arange_i32, int, EP_WRAP32 ((uint) first + (uint) i * (uint) delta))
ARANGE (arange_i64, long, EP_WRAP64 ((ulong) first + (ulong) i * (ulong) delta))
ARANGE (arange_u8, uchar, (uchar) ((uint) first + (uint) i * (uint) delta))
ARANGE (arange_i8, char, as_char ((uchar) ((uint) first + (uint) i * (uint) delta)))
ARANGE (arange_i16, short, as_short ((ushort) ((uint) first + (uint) i * (uint) delta)))

/* linspace: NumPy's, in float64, integers floored, then the cast
 * (devices without float64 get values computed by the host) */
#ifdef EP_FP64
#define LINSPACE(name, T, STORE)                                            \
__kernel void                                                               \
name (__global T *out,                                                      \
      long num,                                                             \
      double start,                                                         \
      double stop,                                                          \
      int endpoint,                                                         \
      int integer)                                                          \
{                                                                           \
  double div = (double) (endpoint ? num - 1 : num);                         \
  double delta = stop - start;                                              \
  double step = div > 0 ? delta / div : NAN;                                \
  for (long i = get_global_id (0); i < num; i += get_global_size (0))       \
    {                                                                       \
      double y = (double) i;                                                \
      if (div > 0 && step == 0)                                             \
        y = (y / div) * delta;                                              \
      else if (div > 0)                                                     \
        y = y * step;                                                       \
      else                                                                  \
        y = y * delta;                                                      \
      y += start;                                                           \
      if (endpoint && num > 1 && i == num - 1)                              \
        y = stop;                                                           \
      if (integer)                                                          \
        y = floor (y);                                                      \
      out[i] = STORE (y);                                                   \
    }                                                                       \
}

#define AS_FLOAT(y) ((float) (y))
#define AS_DOUBLE(y) (y)
#define AS_BOOL(y) ((uchar) ((y) != 0))

LINSPACE (linspace_f32, float, AS_FLOAT)
LINSPACE (linspace_f64, double, AS_DOUBLE)
LINSPACE (linspace_i32, int, EP_D_TO_I32)
LINSPACE (linspace_i64, long, EP_D_TO_I64)
LINSPACE (linspace_b, uchar, AS_BOOL)
#endif

/* eye and onehot_like: by item size; the host converts the value */
#define EYE(name, T)                                                        \
__kernel void                                                               \
name (__global T *out,                                                      \
      long n,                                                               \
      long m,                                                               \
      long k,                                                               \
      T one)                                                                \
{                                                                           \
  for (long t = get_global_id (0); t < n * m; t += get_global_size (0))     \
    out[t] = (t % m) - (t / m) == k ? one : 0;                              \
}

EYE (eye_1, uchar)
EYE (eye_2, ushort)
EYE (eye_4, uint)
EYE (eye_8, ulong)

/* An index out of range leaves the lowest such position in *bad. */
#define ONEHOT(name, T)                                                     \
__kernel void                                                               \
name (__global T *out,                                                      \
      __global const long *indices,                                         \
      __global int *bad,                                                    \
      long n,                                                               \
      long c,                                                               \
      long offset,                                                          \
      long stride,                                                          \
      T value)                                                              \
{                                                                           \
  for (long t = get_global_id (0); t < n * c; t += get_global_size (0))     \
    {                                                                       \
      long i = t / c, j = t % c;                                            \
      long index = indices[offset + i * stride];                            \
      if (index < 0 || index >= c)                                          \
        {                                                                   \
          if (j == 0)                                                       \
            ep_flag_raise (bad, i);                                         \
          out[t] = 0;                                                       \
        }                                                                   \
      else                                                                  \
        out[t] = j == index ? value : 0;                                    \
    }                                                                       \
}

ONEHOT (onehot_like_1, uchar)
ONEHOT (onehot_like_2, ushort)
ONEHOT (onehot_like_4, uint)
ONEHOT (onehot_like_8, ulong)
