/* ep-cpu-elementwise.c: elementwise kernels on the CPU
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
/* sub */
BINARY_LOOP (sub_f32, gfloat, gfloat, x - y)
BINARY_LOOP (sub_f64, gdouble, gdouble, x - y)
BINARY_LOOP (sub_i32, gint32, gint32, WRAP32 ((guint32) x - (guint32) y))
BINARY_LOOP (sub_i64, gint64, gint64, WRAP64 ((guint64) x - (guint64) y))
/* mul */
BINARY_LOOP (mul_f32, gfloat, gfloat, x * y)
BINARY_LOOP (mul_f64, gdouble, gdouble, x * y)
BINARY_LOOP (mul_i32, gint32, gint32, WRAP32 ((guint32) x * (guint32) y))
BINARY_LOOP (mul_i64, gint64, gint64, WRAP64 ((guint64) x * (guint64) y))
BINARY_LOOP (mul_b, guint8, guint8, x & y)
/* div (floats only: the rule promotes integers) */
BINARY_LOOP (div_f32, gfloat, gfloat, x / y)
BINARY_LOOP (div_f64, gdouble, gdouble, x / y)
/* pow */
BINARY_LOOP (pow_f32, gfloat, gfloat, powf (x, y))
BINARY_LOOP (pow_f64, gdouble, gdouble, pow (x, y))
BINARY_LOOP (pow_i32, gint32, gint32, WRAP32 (ipow (x, y)))
BINARY_LOOP (pow_i64, gint64, gint64, WRAP64 (ipow (x, y)))

#define COMPARISONS(cmp, OP)                                                \
  BINARY_LOOP (cmp##_f32, gfloat, guint8, x OP y)                           \
  BINARY_LOOP (cmp##_f64, gdouble, guint8, x OP y)                          \
  BINARY_LOOP (cmp##_i32, gint32, guint8, x OP y)                           \
  BINARY_LOOP (cmp##_i64, gint64, guint8, x OP y)                           \
  BINARY_LOOP (cmp##_b, guint8, guint8, x OP y)

COMPARISONS (lt, <)
COMPARISONS (le, <=)
COMPARISONS (eq, ==)
COMPARISONS (ne, !=)
COMPARISONS (gt, >)
COMPARISONS (ge, >=)

static const EpCpuLoopTable binary_loops = {
  [EP_OP_ADD] = ROW (add),
  [EP_OP_SUB] = ROW_NUMERIC (sub),
  [EP_OP_MUL] = ROW (mul),
  [EP_OP_DIV] = ROW_FLOAT (div),
  [EP_OP_POW] = ROW_NUMERIC (pow),
  [EP_OP_LESS] = ROW (lt),
  [EP_OP_LESS_EQUAL] = ROW (le),
  [EP_OP_EQUAL] = ROW (eq),
  [EP_OP_NOT_EQUAL] = ROW (ne),
  [EP_OP_GREATER] = ROW (gt),
  [EP_OP_GREATER_EQUAL] = ROW (ge),
};

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

static const EpCpuLoopTable unary_loops = {
  [EP_OP_NEG] = ROW_NUMERIC (neg),
  [EP_OP_ABS] = ROW (abs),
  [EP_OP_SQUARE] = ROW (square),
  [EP_OP_SQRT] = ROW_FLOAT (sqrt),
  [EP_OP_EXP] = ROW_FLOAT (exp),
  [EP_OP_LOG] = ROW_FLOAT (log),
  [EP_OP_TANH] = ROW_FLOAT (tanh),
  [EP_OP_SIGMOID] = ROW_FLOAT (sigmoid),
  [EP_OP_RELU] = ROW (relu),
};

static gboolean
cpu_binary (EpOpCall  *call,
            GError   **error)
{
  return ep_cpu_map_table (call, binary_loops);
}

/* SLEEF's vector functions where there are (ep-cpu-vmath.c) */
static gboolean
cpu_unary (EpOpCall  *call,
           GError   **error)
{
  return ep_cpu_vmath_map (call) || ep_cpu_map_table (call, unary_loops);
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
WHERE_LOOP (where_4, guint32)
WHERE_LOOP (where_8, guint64)

static gboolean
cpu_where (EpOpCall  *call,
           GError   **error)
{
  gsize itemsize = ep_dtype_get_itemsize (call->outputs[0]->layout.dtype);

  ep_cpu_map (call, itemsize == 1 ? where_1 : itemsize == 4 ? where_4 : where_8, NULL);
  return TRUE;
}

void
ep_cpu_register_elementwise (EpKernelFunc *kernels)
{
  ep_cpu_register_table (kernels, binary_loops, cpu_binary);
  ep_cpu_register_table (kernels, unary_loops, cpu_unary);
  kernels[EP_OP_WHERE] = cpu_where;
}
