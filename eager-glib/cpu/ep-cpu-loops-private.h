/* ep-cpu-loops-private.h
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Building blocks for elementwise CPU kernels: inner loops for
 * EpCpuIter with fast paths for contiguous operands and for a broadcast
 * scalar (where the compiler vectorizes) and a strided fallback. Integer
 * arithmetic goes through unsigned types: it wraps like NumPy's instead
 * of being undefined behaviour.
 */

#pragma once

#include "ep-cpu-private.h"

/* Every loop is compiled three times, for baseline x86-64, x86-64-v3
 * (AVX2) and x86-64-v4 (AVX-512), and the dynamic linker picks the one
 * for this processor. The library is built with -ffp-contract=off, so
 * the three give the same results. Not under ThreadSanitizer: the
 * resolvers, instrumented, run while the dynamic linker relocates,
 * before its runtime is there (a crash at start). */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && defined(__gnu_linux__) \
    && !defined(__SANITIZE_THREAD__)
#define EP_CPU_CLONES __attribute__ ((target_clones ("default", "arch=x86-64-v3", "arch=x86-64-v4")))
#else
#define EP_CPU_CLONES
#endif

/* Binary loops: out[i] = EXPR (x, y) */
#define BINARY_LOOP(name, T, OUT_T, EXPR)                                   \
EP_CPU_CLONES                                                               \
static void                                                                 \
name (guint8 **p, const gint64 *s, gint64 n, gconstpointer u)               \
{                                                                           \
  OUT_T *restrict out = (OUT_T *) p[0];                                     \
  const guint8 *pa = p[1], *pb = p[2];                                      \
  if (s[1] == sizeof (T) && s[2] == sizeof (T))                             \
    {                                                                       \
      const T *restrict a = (const T *) pa, *restrict b = (const T *) pb;   \
      for (gint64 i = 0; i < n; i++)                                        \
        { T x = a[i], y = b[i]; out[i] = (OUT_T) (EXPR); }                  \
    }                                                                       \
  else if (s[1] == sizeof (T) && s[2] == 0)                                 \
    {                                                                       \
      const T *restrict a = (const T *) pa;                                 \
      const T y = *(const T *) pb;                                          \
      for (gint64 i = 0; i < n; i++)                                        \
        { T x = a[i]; out[i] = (OUT_T) (EXPR); }                            \
    }                                                                       \
  else if (s[1] == 0 && s[2] == sizeof (T))                                 \
    {                                                                       \
      const T x = *(const T *) pa;                                          \
      const T *restrict b = (const T *) pb;                                 \
      for (gint64 i = 0; i < n; i++)                                        \
        { T y = b[i]; out[i] = (OUT_T) (EXPR); }                            \
    }                                                                       \
  else                                                                      \
    for (gint64 i = 0; i < n; i++)                                          \
      {                                                                     \
        T x = *(const T *) (pa + i * s[1]);                                 \
        T y = *(const T *) (pb + i * s[2]);                                 \
        out[i] = (OUT_T) (EXPR);                                            \
      }                                                                     \
}

#define WRAP32(e) ((gint32) (guint32) (e))
#define WRAP64(e) ((gint64) (guint64) (e))
#define WRAP8(e) ((guint8) (e))
#define WRAPS8(e) ((gint8) (guint8) (e))
#define WRAP16(e) ((gint16) (guint16) (e))

static inline guint64
ipow (gint64 base,
      gint64 exponent)
{
  guint64 result = 1, b = (guint64) base;

  if (exponent < 0)
    return base == 1 ? 1 : base == -1 ? ((exponent & 1) ? (guint64) -1 : 1) : 0;

  while (exponent != 0)
    {
      if (exponent & 1)
        result *= b;
      b *= b;
      exponent >>= 1;
    }

  return result;
}

/* Unary loops: out[i] = EXPR (x), of type OUT_T */
#define UNARY_LOOP_TO(name, T, OUT_T, EXPR)                                 \
EP_CPU_CLONES                                                               \
static void                                                                 \
name (guint8 **p, const gint64 *s, gint64 n, gconstpointer u)               \
{                                                                           \
  OUT_T *restrict out = (OUT_T *) p[0];                                     \
  const guint8 *pa = p[1];                                                  \
  if (s[1] == sizeof (T))                                                   \
    {                                                                       \
      const T *restrict a = (const T *) pa;                                 \
      for (gint64 i = 0; i < n; i++)                                        \
        { T x = a[i]; out[i] = (OUT_T) (EXPR); }                            \
    }                                                                       \
  else                                                                      \
    for (gint64 i = 0; i < n; i++)                                          \
      { T x = *(const T *) (pa + i * s[1]); out[i] = (OUT_T) (EXPR); }      \
}

#define UNARY_LOOP(name, T, EXPR) UNARY_LOOP_TO (name, T, T, EXPR)

/* Loops by op and dtype, in EpDType order: float32 float64 int32 int64 bool */
#define ROW(p)         { p##_f32, p##_f64, p##_i32, p##_i64, p##_b }
#define ROW_NUMERIC(p) { p##_f32, p##_f64, p##_i32, p##_i64, NULL }
#define ROW_FLOAT(p)   { p##_f32, p##_f64, NULL, NULL, NULL }
/* The same with the narrow integer types' loops (p##_u8, p##_i8,
 * p##_i16) as well */
#define ROW_U8(p)         { p##_f32, p##_f64, p##_i32, p##_i64, p##_b, p##_u8, p##_i8, p##_i16 }
#define ROW_NUMERIC_U8(p) { p##_f32, p##_f64, p##_i32, p##_i64, NULL, p##_u8, p##_i8, p##_i16 }

/* A family's table of loops: a row per op, in EpDType order (the narrow
 * integer types' columns are NULL where a row leaves them out) */
typedef EpCpuLoop EpCpuLoopTable[EP_N_OPS][EP_CPU_N_DTYPES];

/* Runs the loop of @loops for the op and input 0's dtype; the rules only
 * let through dtypes that have one (a gap is an error all the same). */
static inline gboolean
ep_cpu_map_table (EpOpCall              *call,
                  const EpCpuLoopTable   loops,
                  GError               **error)
{
  return ep_cpu_map_loop (call, loops[call->op->id][call->inputs[0]->layout.dtype], NULL, error);
}

/* Sets @kernel for every op that has a loop in @loops. */
static inline void
ep_cpu_register_table (EpKernelFunc          *kernels,
                       const EpCpuLoopTable   loops,
                       EpKernelFunc           kernel)
{
  for (guint op = 0; op < EP_N_OPS; op++)
    for (guint d = 0; d < EP_CPU_N_DTYPES; d++)
      if (loops[op][d] != NULL)
        kernels[op] = kernel;
}
