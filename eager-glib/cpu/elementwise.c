/* elementwise.c: add, sub, mul, div, pow, floordiv, mod, minimum,
 * maximum, where and clip on the CPU
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <math.h>

#include "ep-cpu-loops-private.h"
#include "ep-tensor-private.h"

/* add */
BINARY_LOOP (add_f32, gfloat, gfloat, x + y)
BINARY_LOOP (add_f64, gdouble, gdouble, x + y)
BINARY_LOOP (add_i32, gint32, gint32, WRAP32 ((guint32) x + (guint32) y))
BINARY_LOOP (add_i64, gint64, gint64, WRAP64 ((guint64) x + (guint64) y))
BINARY_LOOP (add_b, guint8, guint8, x | y)
BINARY_LOOP (add_u8, guint8, guint8, WRAP8 ((guint) x + (guint) y))
BINARY_LOOP (add_i8, gint8, gint8, WRAPS8 ((guint) x + (guint) y))
BINARY_LOOP (add_i16, gint16, gint16, WRAP16 ((guint) x + (guint) y))
/* sub */
BINARY_LOOP (sub_f32, gfloat, gfloat, x - y)
BINARY_LOOP (sub_f64, gdouble, gdouble, x - y)
BINARY_LOOP (sub_i32, gint32, gint32, WRAP32 ((guint32) x - (guint32) y))
BINARY_LOOP (sub_i64, gint64, gint64, WRAP64 ((guint64) x - (guint64) y))
BINARY_LOOP (sub_u8, guint8, guint8, WRAP8 ((guint) x - (guint) y))
BINARY_LOOP (sub_i8, gint8, gint8, WRAPS8 ((guint) x - (guint) y))
BINARY_LOOP (sub_i16, gint16, gint16, WRAP16 ((guint) x - (guint) y))
/* mul */
BINARY_LOOP (mul_f32, gfloat, gfloat, x * y)
BINARY_LOOP (mul_f64, gdouble, gdouble, x * y)
BINARY_LOOP (mul_i32, gint32, gint32, WRAP32 ((guint32) x * (guint32) y))
BINARY_LOOP (mul_i64, gint64, gint64, WRAP64 ((guint64) x * (guint64) y))
BINARY_LOOP (mul_b, guint8, guint8, x & y)
BINARY_LOOP (mul_u8, guint8, guint8, WRAP8 ((guint) x * (guint) y))
BINARY_LOOP (mul_i8, gint8, gint8, WRAPS8 ((guint) x * (guint) y))
BINARY_LOOP (mul_i16, gint16, gint16, WRAP16 ((guint) x * (guint) y))
/* div (floats only: the rule promotes integers) */
BINARY_LOOP (div_f32, gfloat, gfloat, x / y)
BINARY_LOOP (div_f64, gdouble, gdouble, x / y)
/* pow */
BINARY_LOOP (pow_f32, gfloat, gfloat, powf (x, y))
BINARY_LOOP (pow_f64, gdouble, gdouble, pow (x, y))
BINARY_LOOP (pow_i32, gint32, gint32, WRAP32 (ipow (x, y)))
BINARY_LOOP (pow_i64, gint64, gint64, WRAP64 (ipow (x, y)))
BINARY_LOOP (pow_u8, guint8, guint8, WRAP8 (ipow (x, y)))
BINARY_LOOP (pow_i8, gint8, gint8, WRAPS8 (ipow (x, y)))
BINARY_LOOP (pow_i16, gint16, gint16, WRAP16 (ipow (x, y)))

/* Floor division and remainder of floats: NumPy's npy_divmod, so that
 * results match bit for bit (including ±0 and the infinities). */
#define FLOAT_DIVMOD(T, SUFFIX)                                             \
static inline T                                                             \
floor_divide_##SUFFIX (T a, T b)                                                \
{                                                                           \
  T mod, div, floordiv;                                                     \
  if (b == 0)                                                               \
    return a / b;                                                           \
  mod = (T) fmod (a, b);                                                    \
  div = (a - mod) / b;                                                      \
  if (mod != 0 && ((b < 0) != (mod < 0)))                                   \
    div -= 1;                                                               \
  if (div != 0)                                                             \
    {                                                                       \
      floordiv = (T) floor (div);                                           \
      if (div - floordiv > (T) 0.5)                                         \
        floordiv += 1;                                                      \
    }                                                                       \
  else                                                                      \
    floordiv = (T) copysign (0, a / b);                                     \
  return floordiv;                                                          \
}                                                                           \
                                                                            \
static inline T                                                             \
remainder_##SUFFIX (T a, T b)                                                     \
{                                                                           \
  T mod = (T) fmod (a, b);                                                  \
  if (b == 0)                                                               \
    return mod;                                                             \
  if (mod != 0)                                                             \
    {                                                                       \
      if ((b < 0) != (mod < 0))                                             \
        mod += b;                                                           \
    }                                                                       \
  else                                                                      \
    mod = (T) copysign (0, b);                                              \
  return mod;                                                               \
}

FLOAT_DIVMOD (gfloat, f32)
FLOAT_DIVMOD (gdouble, f64)

/* Integers: NumPy gives 0 for a zero divisor; MIN / -1 wraps to MIN
 * (computed by negating in unsigned arithmetic, never with `/`). */
#define INT_DIVMOD(T, UT, SUFFIX)                                           \
static inline T                                                             \
floor_divide_##SUFFIX (T a, T b)                                                \
{                                                                           \
  T q;                                                                      \
  if (b == 0)                                                               \
    return 0;                                                               \
  if (b == -1)                                                              \
    return (T) (UT) (0 - (UT) a);                                           \
  q = a / b;                                                                \
  if ((a % b != 0) && ((a < 0) != (b < 0)))                                 \
    q--;                                                                    \
  return q;                                                                 \
}                                                                           \
                                                                            \
static inline T                                                             \
remainder_##SUFFIX (T a, T b)                                                     \
{                                                                           \
  T r;                                                                      \
  if (b == 0 || b == -1)                                                    \
    return 0;                                                               \
  r = a % b;                                                                \
  if (r != 0 && ((r < 0) != (b < 0)))                                       \
    r += b;                                                                 \
  return r;                                                                 \
}

INT_DIVMOD (gint32, guint32, i32)
INT_DIVMOD (gint64, guint64, i64)
INT_DIVMOD (gint8, guint8, i8)
INT_DIVMOD (gint16, guint16, i16)

/* uint8: no negative operands; a zero divisor gives 0 as for the
 * signed types */
#define UINT8_FLOOR_DIVIDE(a, b) ((b) == 0 ? 0 : (a) / (b))
#define UINT8_REMAINDER(a, b) ((b) == 0 ? 0 : (a) % (b))

BINARY_LOOP (floordiv_f32, gfloat, gfloat, floor_divide_f32 (x, y))
BINARY_LOOP (floordiv_f64, gdouble, gdouble, floor_divide_f64 (x, y))
BINARY_LOOP (floordiv_i32, gint32, gint32, floor_divide_i32 (x, y))
BINARY_LOOP (floordiv_i64, gint64, gint64, floor_divide_i64 (x, y))
BINARY_LOOP (floordiv_u8, guint8, guint8, UINT8_FLOOR_DIVIDE (x, y))
BINARY_LOOP (floordiv_i8, gint8, gint8, floor_divide_i8 (x, y))
BINARY_LOOP (floordiv_i16, gint16, gint16, floor_divide_i16 (x, y))
BINARY_LOOP (mod_f32, gfloat, gfloat, remainder_f32 (x, y))
BINARY_LOOP (mod_f64, gdouble, gdouble, remainder_f64 (x, y))
BINARY_LOOP (mod_i32, gint32, gint32, remainder_i32 (x, y))
BINARY_LOOP (mod_i64, gint64, gint64, remainder_i64 (x, y))
BINARY_LOOP (mod_u8, guint8, guint8, UINT8_REMAINDER (x, y))
BINARY_LOOP (mod_i8, gint8, gint8, remainder_i8 (x, y))
BINARY_LOOP (mod_i16, gint16, gint16, remainder_i16 (x, y))

/* NaN-propagating extrema as NumPy's: the first operand when it is NaN
 * or strictly beyond the second, else the second (so ties, such as 0.0
 * and -0.0, give the second). */
#define FMAXIMUM(x, y) (((x) > (y) || isnan (x)) ? (x) : (y))
#define FMINIMUM(x, y) (((x) < (y) || isnan (x)) ? (x) : (y))
#define IMAXIMUM(x, y) ((x) > (y) ? (x) : (y))
#define IMINIMUM(x, y) ((x) < (y) ? (x) : (y))

BINARY_LOOP (maximum_f32, gfloat, gfloat, FMAXIMUM (x, y))
BINARY_LOOP (maximum_f64, gdouble, gdouble, FMAXIMUM (x, y))
BINARY_LOOP (maximum_i32, gint32, gint32, IMAXIMUM (x, y))
BINARY_LOOP (maximum_i64, gint64, gint64, IMAXIMUM (x, y))
BINARY_LOOP (maximum_b, guint8, guint8, x | y)
BINARY_LOOP (maximum_u8, guint8, guint8, IMAXIMUM (x, y))
BINARY_LOOP (maximum_i8, gint8, gint8, IMAXIMUM (x, y))
BINARY_LOOP (maximum_i16, gint16, gint16, IMAXIMUM (x, y))
BINARY_LOOP (minimum_f32, gfloat, gfloat, FMINIMUM (x, y))
BINARY_LOOP (minimum_f64, gdouble, gdouble, FMINIMUM (x, y))
BINARY_LOOP (minimum_i32, gint32, gint32, IMINIMUM (x, y))
BINARY_LOOP (minimum_i64, gint64, gint64, IMINIMUM (x, y))
BINARY_LOOP (minimum_b, guint8, guint8, x & y)
BINARY_LOOP (minimum_u8, guint8, guint8, IMINIMUM (x, y))
BINARY_LOOP (minimum_i8, gint8, gint8, IMINIMUM (x, y))
BINARY_LOOP (minimum_i16, gint16, gint16, IMINIMUM (x, y))

static const EpCpuLoopTable binary_loops = {
  [EP_OP_ADD] = ROW_U8 (add),
  [EP_OP_SUB] = ROW_NUMERIC_U8 (sub),
  [EP_OP_MUL] = ROW_U8 (mul),
  [EP_OP_DIV] = ROW_FLOAT (div),
  [EP_OP_POW] = ROW_NUMERIC_U8 (pow),
  [EP_OP_FLOORDIV] = ROW_NUMERIC_U8 (floordiv),
  [EP_OP_MOD] = ROW_NUMERIC_U8 (mod),
  [EP_OP_MAXIMUM] = ROW_U8 (maximum),
  [EP_OP_MINIMUM] = ROW_U8 (minimum),
};

static gboolean
cpu_binary (EpOpCall  *call,
            GError   **error)
{
  return ep_cpu_map_table (call, binary_loops, error);
}

/* where: out[i] = cond[i] ? x[i] : y[i]; the usual layouts (all
 * contiguous, or x or y a broadcast scalar, as in a ReLU gradient)
 * vectorize */
#define WHERE_LOOP(name, T)                                                 \
EP_CPU_CLONES                                                               \
static void                                                                 \
name (guint8 **p, const gint64 *s, gint64 n, gconstpointer u)               \
{                                                                           \
  T *restrict out = (T *) p[0];                                             \
  const guint8 *restrict c = p[1];                                          \
  if (s[1] == 1 && s[2] == sizeof (T) && s[3] == sizeof (T))                \
    {                                                                       \
      const T *restrict x = (const T *) p[2], *restrict y = (const T *) p[3]; \
      for (gint64 i = 0; i < n; i++)                                        \
        out[i] = c[i] ? x[i] : y[i];                                        \
    }                                                                       \
  else if (s[1] == 1 && s[2] == sizeof (T) && s[3] == 0)                    \
    {                                                                       \
      const T *restrict x = (const T *) p[2], y = *(const T *) p[3];        \
      for (gint64 i = 0; i < n; i++)                                        \
        out[i] = c[i] ? x[i] : y;                                           \
    }                                                                       \
  else if (s[1] == 1 && s[2] == 0 && s[3] == sizeof (T))                    \
    {                                                                       \
      const T x = *(const T *) p[2], *restrict y = (const T *) p[3];        \
      for (gint64 i = 0; i < n; i++)                                        \
        out[i] = c[i] ? x : y[i];                                           \
    }                                                                       \
  else                                                                      \
    for (gint64 i = 0; i < n; i++)                                          \
      out[i] = *(p[1] + i * s[1]) ? *(const T *) (p[2] + i * s[2])          \
                                  : *(const T *) (p[3] + i * s[3]);         \
}

WHERE_LOOP (where_1, guint8)
WHERE_LOOP (where_2, guint16)
WHERE_LOOP (where_4, guint32)
WHERE_LOOP (where_8, guint64)

static gboolean
cpu_where (EpOpCall  *call,
           GError   **error)
{
  gsize itemsize = ep_dtype_get_itemsize (call->outputs[0]->layout.dtype);

  ep_cpu_map (call, itemsize == 1 ? where_1 : itemsize == 2 ? where_2 : itemsize == 4 ? where_4 : where_8, NULL);
  return TRUE;
}

/* clip: the bounds as the element type. For integers they are integral
 * or infinite (the rule makes anything else float64); they are limited
 * to the type's range, where they bind the same. */
typedef struct
{
  gdouble low, high;
} ClipBounds;

#define CLIP_FLOAT_LOOP(name, T)                                            \
static void                                                                 \
name (guint8 **p, const gint64 *s, gint64 n, gconstpointer u)               \
{                                                                           \
  const ClipBounds *b = u;                                                  \
  T *restrict out = (T *) p[0];                                             \
  const T low = (T) b->low, high = (T) b->high;                             \
  for (gint64 i = 0; i < n; i++)                                            \
    {                                                                       \
      T x = *(const T *) (p[1] + i * s[1]);                                 \
      T t = (x >= low || isnan (x)) ? x : low;                              \
      out[i] = (t <= high || isnan (t)) ? t : high;                         \
    }                                                                       \
}

#define CLIP_INT_LOOP(name, T, MIN, MAX)                                    \
static void                                                                 \
name (guint8 **p, const gint64 *s, gint64 n, gconstpointer u)               \
{                                                                           \
  const ClipBounds *b = u;                                                  \
  T *restrict out = (T *) p[0];                                             \
  const T low = b->low <= (gdouble) MIN ? MIN : b->low >= (gdouble) MAX ? MAX : (T) b->low;      \
  const T high = b->high <= (gdouble) MIN ? MIN : b->high >= (gdouble) MAX ? MAX : (T) b->high;  \
  for (gint64 i = 0; i < n; i++)                                            \
    {                                                                       \
      T x = *(const T *) (p[1] + i * s[1]);                                 \
      T t = x >= low ? x : low;                                             \
      out[i] = t <= high ? t : high;                                        \
    }                                                                       \
}

CLIP_FLOAT_LOOP (clip_f32, gfloat)
CLIP_FLOAT_LOOP (clip_f64, gdouble)
CLIP_INT_LOOP (clip_i32, gint32, G_MININT32, G_MAXINT32)
CLIP_INT_LOOP (clip_i64, gint64, G_MININT64, G_MAXINT64)
CLIP_INT_LOOP (clip_b, guint8, 0, 1)
CLIP_INT_LOOP (clip_u8, guint8, 0, G_MAXUINT8)
CLIP_INT_LOOP (clip_i8, gint8, G_MININT8, G_MAXINT8)
CLIP_INT_LOOP (clip_i16, gint16, G_MININT16, G_MAXINT16)

static const EpCpuLoop clip_loops[EP_CPU_N_DTYPES] = ROW_U8 (clip);

static gboolean
cpu_clip (EpOpCall  *call,
          GError   **error)
{
  gdouble low = call->attrs.clip.min, high = call->attrs.clip.max;
  ClipBounds bounds = { isnan (low) ? -INFINITY : low, isnan (high) ? INFINITY : high };

  return ep_cpu_map_loop (call, clip_loops[call->inputs[0]->layout.dtype], &bounds, error);
}

/* The loop cpu_binary() runs for @op on @dtype (graph fusion) */
EpCpuLoop
ep_cpu_binary_loop (EpOpId  op,
                    EpDType dtype)
{
  return binary_loops[op][dtype];
}

void
ep_cpu_register_elementwise (EpKernelFunc *kernels)
{
  ep_cpu_register_table (kernels, binary_loops, cpu_binary);
  kernels[EP_OP_WHERE] = cpu_where;
  kernels[EP_OP_CLIP] = cpu_clip;
}
