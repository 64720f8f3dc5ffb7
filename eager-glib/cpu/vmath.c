/* vmath.c: vectorized transcendental functions (SLEEF)
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Elementwise exp, log, tanh, … of float32 and float64 through SLEEF's
 * vector functions with a 1.0-ulp error bound (the u10 variants), 16,
 * 8 or 4 float32 lanes at a time. Which instruction set runs is decided
 * once, from what the processor has: AVX-512F, else AVX2 with FMA, else
 * SSE2 (every x86-64). Elsewhere, or without SLEEF, ep_cpu_vmath_map()
 * returns FALSE and the kernels keep their libm loops.
 *
 * SLEEF keeps IEEE special values as libm does (NaN in, NaN out;
 * exp(-inf) = 0, log(0) = -inf, overflow to inf, gradual underflow);
 * tests/c/test-cpu-perf.c compares every function with libm on special
 * values and on random bit patterns.
 */

#include "config.h"

#include <math.h>
#include <string.h>

#include "ep-cpu-private.h"

/* (not with clang: its #pragma GCC target does not define __AVX2__ and
 * __AVX512F__, which sleef.h asks for; the fuzzing build uses clang) */
#if defined(HAVE_SLEEF) && defined(__x86_64__) && !defined(__clang__)

/* sleef.h declares the AVX2 and AVX-512 functions only where the
 * compiler targets those: the functions that call them below do. */
#include <immintrin.h>
#pragma GCC push_options
#pragma GCC target ("avx512f,avx2,fma")
#include <sleef.h>
#pragma GCC pop_options

/* Contiguous kernels: out[i] = f (in[i]) for i < n. */
typedef void (*KernelF32) (gfloat *out, const gfloat *in, gint64 n);
typedef void (*KernelF64) (gdouble *out, const gdouble *in, gint64 n);

/* SLEEF's functions keep their error bound on a documented domain;
 * a few overflow early outside it (log1p, sinh, cosh, asinh, acosh
 * near the top of the range). Lanes with |x| beyond LIMIT are computed
 * again by libm: FIX redoes them, GUARD finds them (a lane mask; NaN is
 * never beyond). Functions with no limit pass 0 as GUARD. */
#define FIX(T, out, in, lanes, LIMIT, SCALAR)                               \
  for (gint64 j = 0; j < (lanes); j++)                                      \
    if (fabs ((in)[j]) > (LIMIT))                                           \
      (out)[j] = SCALAR ((in)[j])

/* AVX-512: the tail through a mask. */
#define AVX512(name, T, suffix, VT, LANES, MASK, LOADU, STOREU, MLOAD, MSTORE, EXPR, GUARD, LIMIT, SCALAR) \
__attribute__ ((target ("avx512f")))                                        \
static void                                                                 \
name##_##suffix (T *out, const T *in, gint64 n)                             \
{                                                                           \
  gint64 i = 0;                                                             \
  for (; i + LANES <= n; i += LANES)                                        \
    {                                                                       \
      VT x = LOADU (in + i);                                                \
      STOREU (out + i, EXPR);                                               \
      if (GUARD)                                                            \
        FIX (T, out + i, in + i, LANES, LIMIT, SCALAR);                     \
    }                                                                       \
  if (i < n)                                                                \
    {                                                                       \
      MASK m = (MASK) ((1u << (n - i)) - 1);                                \
      VT x = MLOAD (m, in + i);                                             \
      MSTORE (out + i, m, EXPR);                                            \
      if (GUARD)                                                            \
        FIX (T, out + i, in + i, n - i, LIMIT, SCALAR);                     \
    }                                                                       \
}

/* AVX2 and SSE2: the tail through a small buffer. */
#define BUFFERED(name, T, suffix, VT, LANES, ATTR, LOADU, STOREU, EXPR, GUARD, LIMIT, SCALAR) \
ATTR                                                                        \
static void                                                                 \
name##_##suffix (T *out, const T *in, gint64 n)                             \
{                                                                           \
  gint64 i = 0;                                                             \
  for (; i + LANES <= n; i += LANES)                                        \
    {                                                                       \
      VT x = LOADU (in + i);                                                \
      STOREU (out + i, EXPR);                                               \
      if (GUARD)                                                            \
        FIX (T, out + i, in + i, LANES, LIMIT, SCALAR);                     \
    }                                                                       \
  if (i < n)                                                                \
    {                                                                       \
      T buffer[LANES] = { 0 };                                              \
      VT x;                                                                 \
      memcpy (buffer, in + i, (n - i) * sizeof (T));                        \
      x = LOADU (buffer);                                                   \
      STOREU (buffer, EXPR);                                                \
      memcpy (out + i, buffer, (n - i) * sizeof (T));                       \
      if (GUARD)                                                            \
        FIX (T, out + i, in + i, n - i, LIMIT, SCALAR);                     \
    }                                                                       \
}

#define AVX2_ATTR __attribute__ ((target ("avx2,fma")))
#define SSE2_ATTR

/* lanes with |x| > LIMIT, for each instruction set */
#define BEYOND_512_F32(LIMIT) _mm512_cmp_ps_mask (_mm512_abs_ps (x), _mm512_set1_ps (LIMIT), _CMP_GT_OQ)
#define BEYOND_512_F64(LIMIT) _mm512_cmp_pd_mask (_mm512_abs_pd (x), _mm512_set1_pd (LIMIT), _CMP_GT_OQ)
#define BEYOND_256_F32(LIMIT) _mm256_movemask_ps (_mm256_cmp_ps (_mm256_andnot_ps (_mm256_set1_ps (-0.0f), x), \
                                                                _mm256_set1_ps (LIMIT), _CMP_GT_OQ))
#define BEYOND_256_F64(LIMIT) _mm256_movemask_pd (_mm256_cmp_pd (_mm256_andnot_pd (_mm256_set1_pd (-0.0), x), \
                                                                _mm256_set1_pd (LIMIT), _CMP_GT_OQ))
#define BEYOND_128_F32(LIMIT) _mm_movemask_ps (_mm_cmpgt_ps (_mm_andnot_ps (_mm_set1_ps (-0.0f), x), _mm_set1_ps (LIMIT)))
#define BEYOND_128_F64(LIMIT) _mm_movemask_pd (_mm_cmpgt_pd (_mm_andnot_pd (_mm_set1_pd (-0.0), x), _mm_set1_pd (LIMIT)))

/* One function at every width and type: EXPRn are expressions of the
 * vector x; LIMIT32/64 0 for none. */
#define VMATH(name, E512F, E512D, E256F, E256D, E128F, E128D, LIMIT32, LIMIT64, SCALAR32, SCALAR64) \
  AVX512 (name, gfloat, f32_avx512, __m512, 16, __mmask16, _mm512_loadu_ps, _mm512_storeu_ps,  \
          _mm512_maskz_loadu_ps, _mm512_mask_storeu_ps, E512F,                                \
          (LIMIT32) > 0 && BEYOND_512_F32 (LIMIT32), LIMIT32, SCALAR32)                       \
  AVX512 (name, gdouble, f64_avx512, __m512d, 8, __mmask8, _mm512_loadu_pd, _mm512_storeu_pd, \
          _mm512_maskz_loadu_pd, _mm512_mask_storeu_pd, E512D,                                \
          (LIMIT64) > 0 && BEYOND_512_F64 (LIMIT64), LIMIT64, SCALAR64)                       \
  BUFFERED (name, gfloat, f32_avx2, __m256, 8, AVX2_ATTR, _mm256_loadu_ps, _mm256_storeu_ps,  \
            E256F, (LIMIT32) > 0 && BEYOND_256_F32 (LIMIT32), LIMIT32, SCALAR32)               \
  BUFFERED (name, gdouble, f64_avx2, __m256d, 4, AVX2_ATTR, _mm256_loadu_pd, _mm256_storeu_pd,\
            E256D, (LIMIT64) > 0 && BEYOND_256_F64 (LIMIT64), LIMIT64, SCALAR64)               \
  BUFFERED (name, gfloat, f32_sse2, __m128, 4, SSE2_ATTR, _mm_loadu_ps, _mm_storeu_ps,        \
            E128F, (LIMIT32) > 0 && BEYOND_128_F32 (LIMIT32), LIMIT32, SCALAR32)               \
  BUFFERED (name, gdouble, f64_sse2, __m128d, 2, SSE2_ATTR, _mm_loadu_pd, _mm_storeu_pd,      \
            E128D, (LIMIT64) > 0 && BEYOND_128_F64 (LIMIT64), LIMIT64, SCALAR64)

/* A SLEEF function (Sleef_<f>f16_u10avx512f, …), and its domain */
#define SLEEF(fn, LIMIT32, LIMIT64)                                         \
  VMATH (fn, Sleef_##fn##f16_u10avx512f (x), Sleef_##fn##d8_u10avx512f (x), \
         Sleef_##fn##f8_u10avx2 (x), Sleef_##fn##d4_u10avx2 (x),            \
         Sleef_##fn##f4_u10sse2 (x), Sleef_##fn##d2_u10sse2 (x),            \
         LIMIT32, LIMIT64, fn##f, fn)

SLEEF (exp, 0, 0)
SLEEF (expm1, 0, 0)
SLEEF (log, 0, 0)
SLEEF (log1p, 1e38f, 1e307)
SLEEF (log2, 0, 0)
SLEEF (log10, 0, 0)
SLEEF (sin, 0, 0)
SLEEF (cos, 0, 0)
SLEEF (tan, 0, 0)
SLEEF (sinh, 88.0f, 709.0)
SLEEF (cosh, 88.0f, 709.0)
SLEEF (tanh, 0, 0)
SLEEF (asin, 0, 0)
SLEEF (acos, 0, 0)
SLEEF (atan, 0, 0)
SLEEF (asinh, 1e19f, 1e154)
SLEEF (acosh, 1e19f, 1e154)
SLEEF (atanh, 0, 0)
SLEEF (erf, 0, 0)
/* SLEEF's erfc has only a 1.5-ulp version (no u10) */
VMATH (erfc, Sleef_erfcf16_u15avx512f (x), Sleef_erfcd8_u15avx512f (x),
       Sleef_erfcf8_u15avx2 (x), Sleef_erfcd4_u15avx2 (x),
       Sleef_erfcf4_u15sse2 (x), Sleef_erfcd2_u15sse2 (x), 0, 0, erfcf, erfc)

/* sigmoid (x) = 1 / (1 + exp (-x)), as the libm loop computes it */
static inline gfloat sigmoid_scalar_f32 (gfloat x) { return 1.0f / (1.0f + expf (-x)); }
static inline gdouble sigmoid_scalar_f64 (gdouble x) { return 1.0 / (1.0 + exp (-x)); }

VMATH (sigmoid,
       _mm512_div_ps (_mm512_set1_ps (1.0f), _mm512_add_ps (_mm512_set1_ps (1.0f),
                      Sleef_expf16_u10avx512f (_mm512_sub_ps (_mm512_setzero_ps (), x)))),
       _mm512_div_pd (_mm512_set1_pd (1.0), _mm512_add_pd (_mm512_set1_pd (1.0),
                      Sleef_expd8_u10avx512f (_mm512_sub_pd (_mm512_setzero_pd (), x)))),
       _mm256_div_ps (_mm256_set1_ps (1.0f), _mm256_add_ps (_mm256_set1_ps (1.0f),
                      Sleef_expf8_u10avx2 (_mm256_sub_ps (_mm256_setzero_ps (), x)))),
       _mm256_div_pd (_mm256_set1_pd (1.0), _mm256_add_pd (_mm256_set1_pd (1.0),
                      Sleef_expd4_u10avx2 (_mm256_sub_pd (_mm256_setzero_pd (), x)))),
       _mm_div_ps (_mm_set1_ps (1.0f), _mm_add_ps (_mm_set1_ps (1.0f),
                   Sleef_expf4_u10sse2 (_mm_sub_ps (_mm_setzero_ps (), x)))),
       _mm_div_pd (_mm_set1_pd (1.0), _mm_add_pd (_mm_set1_pd (1.0),
                   Sleef_expd2_u10sse2 (_mm_sub_pd (_mm_setzero_pd (), x)))),
       0, 0, sigmoid_scalar_f32, sigmoid_scalar_f64)

typedef struct
{
  KernelF32 f32[3];   /* avx512, avx2, sse2 */
  KernelF64 f64[3];
} Kernels;

#define KERNELS(f) \
  { { f##_f32_avx512, f##_f32_avx2, f##_f32_sse2 }, { f##_f64_avx512, f##_f64_avx2, f##_f64_sse2 } }

static const Kernels kernels[EP_CPU_N_VMATH] = {
  [EP_CPU_VMATH_EXP] = KERNELS (exp),
  [EP_CPU_VMATH_EXPM1] = KERNELS (expm1),
  [EP_CPU_VMATH_LOG] = KERNELS (log),
  [EP_CPU_VMATH_LOG1P] = KERNELS (log1p),
  [EP_CPU_VMATH_LOG2] = KERNELS (log2),
  [EP_CPU_VMATH_LOG10] = KERNELS (log10),
  [EP_CPU_VMATH_SIN] = KERNELS (sin),
  [EP_CPU_VMATH_COS] = KERNELS (cos),
  [EP_CPU_VMATH_TAN] = KERNELS (tan),
  [EP_CPU_VMATH_SINH] = KERNELS (sinh),
  [EP_CPU_VMATH_COSH] = KERNELS (cosh),
  [EP_CPU_VMATH_TANH] = KERNELS (tanh),
  [EP_CPU_VMATH_ARCSIN] = KERNELS (asin),
  [EP_CPU_VMATH_ARCCOS] = KERNELS (acos),
  [EP_CPU_VMATH_ARCTAN] = KERNELS (atan),
  [EP_CPU_VMATH_ARCSINH] = KERNELS (asinh),
  [EP_CPU_VMATH_ARCCOSH] = KERNELS (acosh),
  [EP_CPU_VMATH_ARCTANH] = KERNELS (atanh),
  [EP_CPU_VMATH_SIGMOID] = KERNELS (sigmoid),
  [EP_CPU_VMATH_ERF] = KERNELS (erf),
  [EP_CPU_VMATH_ERFC] = KERNELS (erfc),
};

/* What this processor has: 0 AVX-512F, 1 AVX2 and FMA, 2 SSE2 only. */
static guint
best_level (void)
{
  static gsize level;

  if (g_once_init_enter (&level))
    {
      guint found;

      __builtin_cpu_init ();
      if (__builtin_cpu_supports ("avx512f"))
        found = 0;
      else if (__builtin_cpu_supports ("avx2") && __builtin_cpu_supports ("fma"))
        found = 1;
      else
        found = 2;
      g_once_init_leave (&level, found + 1);
    }

  return (guint) level - 1;
}

/* The best level, or a lower one asked for with EP_CPU_VMATH_ISA
 * (avx2, sse2; none: libm's scalar functions), to compare them. */
#define LEVEL_NONE 3

static guint
chosen_level (void)
{
  static gsize level;

  if (g_once_init_enter (&level))
    {
      const char *env = g_getenv ("EP_CPU_VMATH_ISA");
      guint found = best_level ();

      if (g_strcmp0 (env, "avx2") == 0)
        found = MAX (found, 1);
      else if (g_strcmp0 (env, "sse2") == 0)
        found = 2;
      else if (g_strcmp0 (env, "none") == 0)
        found = LEVEL_NONE;
      g_once_init_leave (&level, found + 1);
    }

  return (guint) level - 1;
}

/* The loops for EpCpuIter: a strided input goes through a buffer. */
#define STRIDED_CHUNK 256

#define VMATH_LOOP(name, T, Kernel)                                         \
static void                                                                 \
name (guint8       **p,                                                     \
      const gint64  *s,                                                     \
      gint64         n,                                                     \
      gconstpointer  user_data)                                             \
{                                                                           \
  Kernel kernel = (Kernel) user_data;                                       \
  T *out = (T *) p[0];                                                      \
                                                                            \
  if (s[1] == sizeof (T))                                                   \
    {                                                                       \
      kernel (out, (const T *) p[1], n);                                    \
      return;                                                               \
    }                                                                       \
                                                                            \
  for (gint64 i = 0; i < n; i += STRIDED_CHUNK)                             \
    {                                                                       \
      T buffer[STRIDED_CHUNK];                                              \
      gint64 m = MIN (STRIDED_CHUNK, n - i);                                \
                                                                            \
      for (gint64 j = 0; j < m; j++)                                        \
        buffer[j] = *(const T *) (p[1] + (i + j) * s[1]);                   \
      kernel (out + i, buffer, m);                                          \
    }                                                                       \
}

VMATH_LOOP (loop_f32, gfloat, KernelF32)
VMATH_LOOP (loop_f64, gdouble, KernelF64)

gboolean
ep_cpu_vmath_lookup_at (EpCpuVmath     func,
                        EpDType        dtype,
                        guint          level,
                        EpCpuLoop     *loop,
                        gconstpointer *user_data)
{
  g_return_val_if_fail (func < EP_CPU_N_VMATH, FALSE);

  if (level > 2 || level < best_level ())
    return FALSE;

  if (dtype == EP_DTYPE_FLOAT32)
    {
      *loop = loop_f32;
      *user_data = (gconstpointer) kernels[func].f32[level];
      return TRUE;
    }
  if (dtype == EP_DTYPE_FLOAT64)
    {
      *loop = loop_f64;
      *user_data = (gconstpointer) kernels[func].f64[level];
      return TRUE;
    }

  return FALSE;
}

gboolean
ep_cpu_vmath_lookup (EpCpuVmath     func,
                     EpDType        dtype,
                     EpCpuLoop     *loop,
                     gconstpointer *user_data)
{
  return ep_cpu_vmath_lookup_at (func, dtype, chosen_level (), loop, user_data);
}

/* The ops that have a vector function */
static const struct
{
  EpOpId     op;
  EpCpuVmath func;
} op_functions[] = {
  { EP_OP_EXP, EP_CPU_VMATH_EXP },
  { EP_OP_EXPM1, EP_CPU_VMATH_EXPM1 },
  { EP_OP_LOG, EP_CPU_VMATH_LOG },
  { EP_OP_LOG1P, EP_CPU_VMATH_LOG1P },
  { EP_OP_LOG2, EP_CPU_VMATH_LOG2 },
  { EP_OP_LOG10, EP_CPU_VMATH_LOG10 },
  { EP_OP_SIN, EP_CPU_VMATH_SIN },
  { EP_OP_COS, EP_CPU_VMATH_COS },
  { EP_OP_TAN, EP_CPU_VMATH_TAN },
  { EP_OP_SINH, EP_CPU_VMATH_SINH },
  { EP_OP_COSH, EP_CPU_VMATH_COSH },
  { EP_OP_TANH, EP_CPU_VMATH_TANH },
  { EP_OP_ARCSIN, EP_CPU_VMATH_ARCSIN },
  { EP_OP_ARCCOS, EP_CPU_VMATH_ARCCOS },
  { EP_OP_ARCTAN, EP_CPU_VMATH_ARCTAN },
  { EP_OP_ARCSINH, EP_CPU_VMATH_ARCSINH },
  { EP_OP_ARCCOSH, EP_CPU_VMATH_ARCCOSH },
  { EP_OP_ARCTANH, EP_CPU_VMATH_ARCTANH },
  { EP_OP_SIGMOID, EP_CPU_VMATH_SIGMOID },
  { EP_OP_ERF, EP_CPU_VMATH_ERF },
  { EP_OP_ERFC, EP_CPU_VMATH_ERFC },
};

typedef struct
{
  EpCpuLoop     loop;
  gconstpointer data;
} VectorLoop;

static const VectorLoop *
op_table (void)
{
  static VectorLoop table[EP_N_OPS][2];
  static gsize initialized;

  if (g_once_init_enter (&initialized))
    {
      for (guint i = 0; i < G_N_ELEMENTS (op_functions); i++)
        for (EpDType dtype = EP_DTYPE_FLOAT32; dtype <= EP_DTYPE_FLOAT64; dtype++)
          ep_cpu_vmath_lookup (op_functions[i].func, dtype,
                               &table[op_functions[i].op][dtype].loop,
                               &table[op_functions[i].op][dtype].data);
      g_once_init_leave (&initialized, 1);
    }

  return &table[0][0];
}

gboolean
ep_cpu_vmath_op_loop (EpOpId         op,
                      EpDType        dtype,
                      EpCpuLoop     *loop,
                      gconstpointer *user_data)
{
  const VectorLoop *entry;

  if (dtype != EP_DTYPE_FLOAT32 && dtype != EP_DTYPE_FLOAT64)
    return FALSE;

  entry = op_table () + op * 2 + dtype;
  if (entry->loop == NULL)
    return FALSE;

  *loop = entry->loop;
  *user_data = entry->data;
  return TRUE;
}

gboolean
ep_cpu_vmath_map (EpOpCall *call)
{
  EpDType dtype = call->inputs[0]->layout.dtype;
  const VectorLoop *entry;

  if (dtype != EP_DTYPE_FLOAT32 && dtype != EP_DTYPE_FLOAT64)
    return FALSE;

  entry = op_table () + call->op->id * 2 + dtype;
  if (entry->loop == NULL)
    return FALSE;

  ep_cpu_map (call, entry->loop, entry->data);
  return TRUE;
}

#else /* no SLEEF, not x86-64, or clang */

gboolean
ep_cpu_vmath_op_loop (EpOpId         op,
                      EpDType        dtype,
                      EpCpuLoop     *loop,
                      gconstpointer *user_data)
{
  return FALSE;
}

gboolean
ep_cpu_vmath_map (EpOpCall *call)
{
  return FALSE;
}


gboolean
ep_cpu_vmath_lookup_at (EpCpuVmath     func,
                        EpDType        dtype,
                        guint          level,
                        EpCpuLoop     *loop,
                        gconstpointer *user_data)
{
  return FALSE;
}

gboolean
ep_cpu_vmath_lookup (EpCpuVmath     func,
                     EpDType        dtype,
                     EpCpuLoop     *loop,
                     gconstpointer *user_data)
{
  return FALSE;
}

#endif
