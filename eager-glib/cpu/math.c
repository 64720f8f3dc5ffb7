/* ep-cpu-math.c: the elementwise kernels of ep-ops-math.c and
 * ep-ops-logical.c on the CPU
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <math.h>
#include <string.h>

#include "ep-cpu-loops-private.h"
#include "ep-cpu-rows-private.h"
#include "ep-tensor-private.h"

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

BINARY_LOOP (floordiv_f32, gfloat, gfloat, floor_divide_f32 (x, y))
BINARY_LOOP (floordiv_f64, gdouble, gdouble, floor_divide_f64 (x, y))
BINARY_LOOP (floordiv_i32, gint32, gint32, floor_divide_i32 (x, y))
BINARY_LOOP (floordiv_i64, gint64, gint64, floor_divide_i64 (x, y))
BINARY_LOOP (mod_f32, gfloat, gfloat, remainder_f32 (x, y))
BINARY_LOOP (mod_f64, gdouble, gdouble, remainder_f64 (x, y))
BINARY_LOOP (mod_i32, gint32, gint32, remainder_i32 (x, y))
BINARY_LOOP (mod_i64, gint64, gint64, remainder_i64 (x, y))

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
BINARY_LOOP (minimum_f32, gfloat, gfloat, FMINIMUM (x, y))
BINARY_LOOP (minimum_f64, gdouble, gdouble, FMINIMUM (x, y))
BINARY_LOOP (minimum_i32, gint32, gint32, IMINIMUM (x, y))
BINARY_LOOP (minimum_i64, gint64, gint64, IMINIMUM (x, y))
BINARY_LOOP (minimum_b, guint8, guint8, x & y)

BINARY_LOOP (logical_and_b, guint8, guint8, x & y)
BINARY_LOOP (logical_or_b, guint8, guint8, x | y)

#define ROW_BOOL(p) { NULL, NULL, NULL, NULL, p##_b }

static const EpCpuLoopTable binary_loops = {
  [EP_OP_FLOORDIV] = ROW_NUMERIC (floordiv),
  [EP_OP_MOD] = ROW_NUMERIC (mod),
  [EP_OP_MAXIMUM] = ROW (maximum),
  [EP_OP_MINIMUM] = ROW (minimum),
  [EP_OP_LOGICAL_AND] = ROW_BOOL (logical_and),
  [EP_OP_LOGICAL_OR] = ROW_BOOL (logical_or),
};

/* Float functions: float32 in float arithmetic, float64 in double. */
#define FLOAT_FUNCTION(op, F32, F64)                                        \
  UNARY_LOOP (op##_f32, gfloat, F32)                                        \
  UNARY_LOOP (op##_f64, gdouble, F64)

static inline gfloat
stable_softplus_f32 (gfloat x)
{
  return (x > 0 ? x : 0.0f) + log1pf (expf (-fabsf (x)));
}

static inline gdouble
stable_softplus_f64 (gdouble x)
{
  return (x > 0 ? x : 0.0) + log1p (exp (-fabs (x)));
}

/* 0 for ±0; NaN stays NaN */
#define FSIGN(x, T) ((x) > 0 ? (T) 1 : (x) < 0 ? (T) -1 : (x) == 0 ? (T) 0 : (x))

FLOAT_FUNCTION (expm1, expm1f (x), expm1 (x))
FLOAT_FUNCTION (log1p, log1pf (x), log1p (x))
FLOAT_FUNCTION (log2, log2f (x), log2 (x))
FLOAT_FUNCTION (log10, log10f (x), log10 (x))
FLOAT_FUNCTION (sin, sinf (x), sin (x))
FLOAT_FUNCTION (cos, cosf (x), cos (x))
FLOAT_FUNCTION (tan, tanf (x), tan (x))
FLOAT_FUNCTION (sinh, sinhf (x), sinh (x))
FLOAT_FUNCTION (cosh, coshf (x), cosh (x))
FLOAT_FUNCTION (arcsin, asinf (x), asin (x))
FLOAT_FUNCTION (arccos, acosf (x), acos (x))
FLOAT_FUNCTION (arctan, atanf (x), atan (x))
FLOAT_FUNCTION (arcsinh, asinhf (x), asinh (x))
FLOAT_FUNCTION (arccosh, acoshf (x), acosh (x))
FLOAT_FUNCTION (arctanh, atanhf (x), atanh (x))
FLOAT_FUNCTION (softplus, stable_softplus_f32 (x), stable_softplus_f64 (x))
FLOAT_FUNCTION (round, rintf (x), rint (x))
FLOAT_FUNCTION (ceil, ceilf (x), ceil (x))
FLOAT_FUNCTION (floor, floorf (x), floor (x))
FLOAT_FUNCTION (sign, FSIGN (x, gfloat), FSIGN (x, gdouble))

UNARY_LOOP (sign_i32, gint32, (x > 0) - (x < 0))
UNARY_LOOP (sign_i64, gint64, (x > 0) - (x < 0))
UNARY_LOOP (round_i32, gint32, x)
UNARY_LOOP (round_i64, gint64, x)

UNARY_LOOP (logical_not_b, guint8, !x)

UNARY_LOOP_TO (isnan_f32, gfloat, guint8, isnan (x) != 0)
UNARY_LOOP_TO (isnan_f64, gdouble, guint8, isnan (x) != 0)
UNARY_LOOP_TO (isinf_f32, gfloat, guint8, isinf (x) != 0)
UNARY_LOOP_TO (isinf_f64, gdouble, guint8, isinf (x) != 0)
UNARY_LOOP_TO (isfinite_f32, gfloat, guint8, isfinite (x) != 0)
UNARY_LOOP_TO (isfinite_f64, gdouble, guint8, isfinite (x) != 0)

/* Integers and bools: the answer does not depend on the value. */
#define CONSTANT_LOOP(name, VALUE)                                          \
static void                                                                 \
name (guint8 **p, const gint64 *s, gint64 n, gconstpointer u)               \
{                                                                           \
  memset (p[0], VALUE, n);                                                  \
}

CONSTANT_LOOP (all_false, 0)
CONSTANT_LOOP (all_true, 1)

#define ROW_CLASSIFY(p, EXACT) { p##_f32, p##_f64, EXACT, EXACT, EXACT }

static const EpCpuLoopTable unary_loops = {
  [EP_OP_EXPM1] = ROW_FLOAT (expm1),
  [EP_OP_LOG1P] = ROW_FLOAT (log1p),
  [EP_OP_LOG2] = ROW_FLOAT (log2),
  [EP_OP_LOG10] = ROW_FLOAT (log10),
  [EP_OP_SIN] = ROW_FLOAT (sin),
  [EP_OP_COS] = ROW_FLOAT (cos),
  [EP_OP_TAN] = ROW_FLOAT (tan),
  [EP_OP_SINH] = ROW_FLOAT (sinh),
  [EP_OP_COSH] = ROW_FLOAT (cosh),
  [EP_OP_ARCSIN] = ROW_FLOAT (arcsin),
  [EP_OP_ARCCOS] = ROW_FLOAT (arccos),
  [EP_OP_ARCTAN] = ROW_FLOAT (arctan),
  [EP_OP_ARCSINH] = ROW_FLOAT (arcsinh),
  [EP_OP_ARCCOSH] = ROW_FLOAT (arccosh),
  [EP_OP_ARCTANH] = ROW_FLOAT (arctanh),
  [EP_OP_SOFTPLUS] = ROW_FLOAT (softplus),
  [EP_OP_CEIL] = ROW_FLOAT (ceil),
  [EP_OP_FLOOR] = ROW_FLOAT (floor),
  [EP_OP_SIGN] = ROW_NUMERIC (sign),
  [EP_OP_ROUND] = ROW_NUMERIC (round),
  [EP_OP_LOGICAL_NOT] = ROW_BOOL (logical_not),
  [EP_OP_ISNAN] = ROW_CLASSIFY (isnan, all_false),
  [EP_OP_ISINF] = ROW_CLASSIFY (isinf, all_false),
  [EP_OP_ISFINITE] = ROW_CLASSIFY (isfinite, all_true),
};

static gboolean
cpu_binary_math (EpOpCall  *call,
                 GError   **error)
{
  return ep_cpu_map_table (call, binary_loops);
}

/* SLEEF's vector functions where there are (ep-cpu-vmath.c) */
static gboolean
cpu_unary_math (EpOpCall  *call,
                GError   **error)
{
  return ep_cpu_vmath_map (call) || ep_cpu_map_table (call, unary_loops);
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

static const EpCpuLoop clip_loops[5] = ROW (clip);

static gboolean
cpu_clip (EpOpCall  *call,
          GError   **error)
{
  gdouble low = call->attrs.values[0], high = call->attrs.values[1];
  ClipBounds bounds = { isnan (low) ? -INFINITY : low, isnan (high) ? INFINITY : high };
  EpCpuLoop loop = clip_loops[call->inputs[0]->layout.dtype];

  g_assert (loop != NULL);
  ep_cpu_map (call, loop, &bounds);
  return TRUE;
}

void
ep_cpu_register_math (EpKernelFunc *kernels)
{
  ep_cpu_register_table (kernels, binary_loops, cpu_binary_math);
  ep_cpu_register_table (kernels, unary_loops, cpu_unary_math);
  kernels[EP_OP_CLIP] = cpu_clip;
}
