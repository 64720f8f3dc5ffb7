/* math.c: the unary math functions on the CPU: neg, abs, sign, square,
 * sqrt, exp, expm1, log, log1p, log2, log10, the trigonometric and
 * hyperbolic functions and their inverses, sigmoid, relu, softplus,
 * round, ceil, floor, erf and erfc; gelu
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <math.h>

#include "ep-cpu-loops-private.h"
#include "ep-tensor-private.h"

#define INT_ABS32(x) ((x) < 0 ? WRAP32 (-(guint32) (x)) : (x))
#define INT_ABS64(x) ((x) < 0 ? WRAP64 (-(guint64) (x)) : (x))

UNARY_LOOP (neg_f32, gfloat, -x)
UNARY_LOOP (neg_f64, gdouble, -x)
UNARY_LOOP (neg_i32, gint32, WRAP32 (-(guint32) x))
UNARY_LOOP (neg_i64, gint64, WRAP64 (-(guint64) x))
UNARY_LOOP (abs_f32, gfloat, fabsf (x))
UNARY_LOOP (abs_f64, gdouble, fabs (x))
UNARY_LOOP (abs_i32, gint32, INT_ABS32 (x))
UNARY_LOOP (abs_i64, gint64, INT_ABS64 (x))
UNARY_LOOP (abs_b, guint8, x)
UNARY_LOOP (square_f32, gfloat, x * x)
UNARY_LOOP (square_f64, gdouble, x * x)
UNARY_LOOP (square_i32, gint32, WRAP32 ((guint32) x * (guint32) x))
UNARY_LOOP (square_i64, gint64, WRAP64 ((guint64) x * (guint64) x))
UNARY_LOOP (square_b, guint8, x)
UNARY_LOOP (sqrt_f32, gfloat, sqrtf (x))
UNARY_LOOP (sqrt_f64, gdouble, sqrt (x))
UNARY_LOOP (exp_f32, gfloat, expf (x))
UNARY_LOOP (exp_f64, gdouble, exp (x))
UNARY_LOOP (log_f32, gfloat, logf (x))
UNARY_LOOP (log_f64, gdouble, log (x))
UNARY_LOOP (tanh_f32, gfloat, tanhf (x))
UNARY_LOOP (tanh_f64, gdouble, tanh (x))
UNARY_LOOP (sigmoid_f32, gfloat, 1.0f / (1.0f + expf (-x)))
UNARY_LOOP (sigmoid_f64, gdouble, 1.0 / (1.0 + exp (-x)))
UNARY_LOOP (relu_f32, gfloat, x < 0.0f ? 0.0f : x)
UNARY_LOOP (relu_f64, gdouble, x < 0.0 ? 0.0 : x)
UNARY_LOOP (relu_i32, gint32, x < 0 ? 0 : x)
UNARY_LOOP (relu_i64, gint64, x < 0 ? 0 : x)
UNARY_LOOP (relu_b, guint8, x)
/* The narrow integer types: neg, abs, square and sign, wrapping (so abs
 * of int8's -128 is -128, as NumPy's) */
UNARY_LOOP (neg_u8, guint8, WRAP8 (0u - (guint) x))
UNARY_LOOP (neg_i8, gint8, WRAPS8 (0u - (guint) x))
UNARY_LOOP (neg_i16, gint16, WRAP16 (0u - (guint) x))
UNARY_LOOP (abs_u8, guint8, x)
UNARY_LOOP (abs_i8, gint8, x < 0 ? WRAPS8 (0u - (guint) x) : x)
UNARY_LOOP (abs_i16, gint16, x < 0 ? WRAP16 (0u - (guint) x) : x)
UNARY_LOOP (square_u8, guint8, WRAP8 ((guint) x * (guint) x))
UNARY_LOOP (square_i8, gint8, WRAPS8 ((guint) x * (guint) x))
UNARY_LOOP (square_i16, gint16, WRAP16 ((guint) x * (guint) x))
UNARY_LOOP (sign_u8, guint8, x > 0)
UNARY_LOOP (sign_i8, gint8, (x > 0) - (x < 0))
UNARY_LOOP (sign_i16, gint16, (x > 0) - (x < 0))

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
FLOAT_FUNCTION (erf, erff (x), erf (x))
FLOAT_FUNCTION (erfc, erfcf (x), erfc (x))
FLOAT_FUNCTION (sign, FSIGN (x, gfloat), FSIGN (x, gdouble))

UNARY_LOOP (sign_i32, gint32, (x > 0) - (x < 0))
UNARY_LOOP (sign_i64, gint64, (x > 0) - (x < 0))
UNARY_LOOP (round_i32, gint32, x)
UNARY_LOOP (round_i64, gint64, x)

static const EpCpuLoopTable unary_loops = {
  [EP_OP_NEG] = ROW_NUMERIC_U8 (neg),
  [EP_OP_ABS] = ROW_U8 (abs),
  [EP_OP_SQUARE] = ROW_U8 (square),
  [EP_OP_SQRT] = ROW_FLOAT (sqrt),
  [EP_OP_EXP] = ROW_FLOAT (exp),
  [EP_OP_LOG] = ROW_FLOAT (log),
  [EP_OP_TANH] = ROW_FLOAT (tanh),
  [EP_OP_SIGMOID] = ROW_FLOAT (sigmoid),
  [EP_OP_RELU] = ROW (relu),
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
  [EP_OP_ERF] = ROW_FLOAT (erf),
  [EP_OP_ERFC] = ROW_FLOAT (erfc),
  [EP_OP_SIGN] = ROW_NUMERIC_U8 (sign),
  [EP_OP_ROUND] = ROW_NUMERIC (round),
};

/* SLEEF's vector functions where there are (vmath.c) */
static gboolean
cpu_unary (EpOpCall  *call,
           GError   **error)
{
  return ep_cpu_vmath_map (call) || ep_cpu_map_table (call, unary_loops, error);
}

/* The loop cpu_unary() runs for @op on @dtype (graph fusion) */
EpCpuLoop
ep_cpu_math_loop (EpOpId         op,
                  EpDType        dtype,
                  gconstpointer *user_data)
{
  EpCpuLoop loop;

  if (ep_cpu_vmath_op_loop (op, dtype, &loop, user_data))
    return loop;
  *user_data = NULL;
  return unary_loops[op][dtype];
}

/* gelu: PyTorch's formulas (aten/src/ATen/native/cpu/Activation.cpp),
 * x/2 (1 + erf (x/√2)) or x/2 (1 + tanh (√(2/π) (x + κ x³))), in one
 * pass: a chunk at a time, the inner value, then erf or tanh of it
 * through SLEEF's vector loop where there is one (vmath.c), then the
 * product, while the chunk is in cache. */
#define GELU_CHUNK 256
#define GELU_BETA (M_SQRT2 * M_2_SQRTPI * 0.5)
#define GELU_KAPPA 0.044715

typedef struct
{
  gboolean      tanh;
  EpCpuLoop     vector;       /* erf or tanh of a contiguous chunk, or NULL */
  gconstpointer vector_data;
} GeluLoop;

#define GELU_LOOP(name, T, ERF, TANH)                                       \
static void                                                                 \
name (guint8 **p, const gint64 *s, gint64 n, gconstpointer user_data)       \
{                                                                           \
  const GeluLoop *g = user_data;                                            \
  T *out = (T *) p[0];                                                      \
  const T beta = (T) GELU_BETA, kappa = (T) GELU_KAPPA;                     \
                                                                            \
  for (gint64 i = 0; i < n; i += GELU_CHUNK)                                \
    {                                                                       \
      T x[GELU_CHUNK], v[GELU_CHUNK];                                       \
      gint64 m = MIN (GELU_CHUNK, n - i);                                   \
                                                                            \
      for (gint64 j = 0; j < m; j++)                                        \
        x[j] = *(const T *) (p[1] + (i + j) * s[1]);                        \
      if (g->tanh)                                                          \
        for (gint64 j = 0; j < m; j++)                                      \
          {                                                                 \
            T cube = x[j] * x[j] * x[j];                                    \
            v[j] = beta * (x[j] + kappa * cube);                            \
          }                                                                 \
      else                                                                  \
        for (gint64 j = 0; j < m; j++)                                      \
          v[j] = x[j] * (T) M_SQRT1_2;                                      \
      if (g->vector != NULL)                                                \
        {                                                                   \
          guint8 *q[2] = { (guint8 *) v, (guint8 *) v };                    \
          const gint64 qs[2] = { sizeof (T), sizeof (T) };                  \
                                                                            \
          g->vector (q, qs, m, g->vector_data);                             \
        }                                                                   \
      else if (g->tanh)                                                     \
        for (gint64 j = 0; j < m; j++)                                      \
          v[j] = TANH (v[j]);                                               \
      else                                                                  \
        for (gint64 j = 0; j < m; j++)                                      \
          v[j] = ERF (v[j]);                                                \
      for (gint64 j = 0; j < m; j++)                                        \
        {                                                                   \
          T half = (T) 0.5 * x[j];                                          \
          out[i + j] = half * ((T) 1 + v[j]);                               \
        }                                                                   \
    }                                                                       \
}

GELU_LOOP (gelu_f32, gfloat, erff, tanhf)
GELU_LOOP (gelu_f64, gdouble, erf, tanh)

static gboolean
cpu_gelu (EpOpCall  *call,
          GError   **error)
{
  EpDType dtype = call->inputs[0]->layout.dtype;
  GeluLoop g = { call->attrs.gelu.approximate == EP_GELU_APPROXIMATION_TANH, NULL, NULL };

  if (!ep_cpu_vmath_lookup (g.tanh ? EP_CPU_VMATH_TANH : EP_CPU_VMATH_ERF, dtype,
                            &g.vector, &g.vector_data))
    g.vector = NULL;

  return ep_cpu_map_loop (call, dtype == EP_DTYPE_FLOAT32 ? gelu_f32 : gelu_f64, &g, error);
}

void
ep_cpu_register_math (EpKernelFunc *kernels)
{
  ep_cpu_register_table (kernels, unary_loops, cpu_unary);
  kernels[EP_OP_GELU] = cpu_gelu;
}
