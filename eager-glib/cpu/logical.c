/* logical.c: comparisons (less, less_equal, equal, not_equal, greater,
 * greater_equal), logical_and, logical_or, logical_not, isnan, isinf,
 * isfinite and isclose on the CPU
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <math.h>
#include <string.h>

#include "ep-cpu-loops-private.h"
#include "ep-tensor-private.h"

#define COMPARISONS(cmp, OP)                                                \
  BINARY_LOOP (cmp##_f32, gfloat, guint8, x OP y)                           \
  BINARY_LOOP (cmp##_f64, gdouble, guint8, x OP y)                          \
  BINARY_LOOP (cmp##_i32, gint32, guint8, x OP y)                           \
  BINARY_LOOP (cmp##_i64, gint64, guint8, x OP y)                           \
  BINARY_LOOP (cmp##_b, guint8, guint8, x OP y)                           \
  BINARY_LOOP (cmp##_u8, guint8, guint8, x OP y)                           \
  BINARY_LOOP (cmp##_i8, gint8, guint8, x OP y)                            \
  BINARY_LOOP (cmp##_i16, gint16, guint8, x OP y)

COMPARISONS (lt, <)
COMPARISONS (le, <=)
COMPARISONS (eq, ==)
COMPARISONS (ne, !=)
COMPARISONS (gt, >)
COMPARISONS (ge, >=)

BINARY_LOOP (logical_and_b, guint8, guint8, x & y)
BINARY_LOOP (logical_or_b, guint8, guint8, x | y)

#define ROW_BOOL(p) { NULL, NULL, NULL, NULL, p##_b }

static const EpCpuLoopTable binary_loops = {
  [EP_OP_LESS] = ROW_U8 (lt),
  [EP_OP_LESS_EQUAL] = ROW_U8 (le),
  [EP_OP_EQUAL] = ROW_U8 (eq),
  [EP_OP_NOT_EQUAL] = ROW_U8 (ne),
  [EP_OP_GREATER] = ROW_U8 (gt),
  [EP_OP_GREATER_EQUAL] = ROW_U8 (ge),
  [EP_OP_LOGICAL_AND] = ROW_BOOL (logical_and),
  [EP_OP_LOGICAL_OR] = ROW_BOOL (logical_or),
};

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

#define ROW_CLASSIFY(p, EXACT) { p##_f32, p##_f64, EXACT, EXACT, EXACT, EXACT, EXACT, EXACT }

static const EpCpuLoopTable unary_loops = {
  [EP_OP_LOGICAL_NOT] = ROW_BOOL (logical_not),
  [EP_OP_ISNAN] = ROW_CLASSIFY (isnan, all_false),
  [EP_OP_ISINF] = ROW_CLASSIFY (isinf, all_false),
  [EP_OP_ISFINITE] = ROW_CLASSIFY (isfinite, all_true),
};

static gboolean
cpu_binary (EpOpCall  *call,
            GError   **error)
{
  return ep_cpu_map_table (call, binary_loops, error);
}

/* None of these has a vector function (vmath.c): the loops alone */
static gboolean
cpu_unary (EpOpCall  *call,
           GError   **error)
{
  return ep_cpu_map_table (call, unary_loops, error);
}

/* The loop cpu_binary() or cpu_unary() runs for @op on @dtype (graph
 * fusion) */
EpCpuLoop
ep_cpu_logical_loop (EpOpId  op,
                     EpDType dtype)
{
  return binary_loops[op][dtype] != NULL ? binary_loops[op][dtype] : unary_loops[op][dtype];
}

/* isclose: NumPy's, with its arithmetic in the element type (the
 * tolerances rounded to it, as NumPy's Python floats are) */
typedef struct
{
  gdouble  rtol, atol;
  gboolean equal_nan;
} IscloseParams;

#define ISCLOSE_LOOP(name, T)                                               \
static void                                                                 \
name (guint8 **p, const gint64 *s, gint64 n, gconstpointer u)               \
{                                                                           \
  const IscloseParams *c = u;                                               \
  guint8 *restrict out = p[0];                                              \
  const T rtol = (T) c->rtol, atol = (T) c->atol;                           \
  const gboolean equal_nan = c->equal_nan;                                  \
  for (gint64 i = 0; i < n; i++)                                            \
    {                                                                       \
      T x = *(const T *) (p[1] + i * s[1]);                                 \
      T y = *(const T *) (p[2] + i * s[2]);                                 \
      if (isfinite (x) && isfinite (y))                                     \
        out[i] = fabs (x - y) <= atol + rtol * fabs (y);                    \
      else                                                                  \
        out[i] = x == y || (equal_nan && isnan (x) && isnan (y));           \
    }                                                                       \
}

ISCLOSE_LOOP (isclose_f32, gfloat)
ISCLOSE_LOOP (isclose_f64, gdouble)

static gboolean
cpu_isclose (EpOpCall  *call,
             GError   **error)
{
  IscloseParams c = { call->attrs.isclose.rtol, call->attrs.isclose.atol,
                      call->attrs.isclose.equal_nan };

  return ep_cpu_map_loop (call, call->inputs[0]->layout.dtype == EP_DTYPE_FLOAT32
                                ? isclose_f32 : isclose_f64, &c, error);
}

void
ep_cpu_register_logical (EpKernelFunc *kernels)
{
  ep_cpu_register_table (kernels, binary_loops, cpu_binary);
  ep_cpu_register_table (kernels, unary_loops, cpu_unary);
  kernels[EP_OP_ISCLOSE] = cpu_isclose;
}
