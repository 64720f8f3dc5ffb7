/* softmax.c: softmax, log_softmax, logsumexp, crossentropy on the CPU
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Every one subtracts the maximum before exponentiating and sums the
 * exponentials in double precision.
 */

#include "config.h"

#include <glib/gi18n-lib.h>
#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "ep-cpu-loops-private.h"
#include "ep-cpu-rows-private.h"
#include "ep-error.h"
#include "ep-tensor-private.h"

/* NaN-propagating maximum */
#define NAN_MAX(m, x) (((m) > (x) || isnan (m)) ? (m) : (x))

/* softmax and log_softmax of one row: out 0, in 1 */
#define SOFTMAX_ROW(name, T, EXP, LOG)                                      \
static void                                                                 \
name (guint8 **rows, const gint64 *s, gpointer u)                           \
{                                                                           \
  const gint64 n = *(const gint64 *) u;   /* the row length */              \
  T m = -INFINITY;                                                          \
  gdouble total = 0;                                                        \
  for (gint64 i = 0; i < n; i++)                                            \
    m = NAN_MAX (m, *(const T *) (rows[1] + i * s[1]));                     \
  for (gint64 i = 0; i < n; i++)                                            \
    {                                                                       \
      T e = EXP (*(const T *) (rows[1] + i * s[1]) - m);                    \
      total += e;                                                           \
      if (!LOG)                                                             \
        *(T *) (rows[0] + i * s[0]) = e;                                    \
    }                                                                       \
  if (LOG)                                                                  \
    {                                                                       \
      T shift = (T) log (total);                                            \
      for (gint64 i = 0; i < n; i++)                                        \
        *(T *) (rows[0] + i * s[0]) = (*(const T *) (rows[1] + i * s[1]) - m) - shift; \
    }                                                                       \
  else                                                                      \
    {                                                                       \
      gdouble scale = 1.0 / total;                                          \
      for (gint64 i = 0; i < n; i++)                                        \
        *(T *) (rows[0] + i * s[0]) = (T) (*(T *) (rows[0] + i * s[0]) * scale); \
    }                                                                       \
}

SOFTMAX_ROW (softmax_f32, gfloat, expf, FALSE)
SOFTMAX_ROW (softmax_f64, gdouble, exp, FALSE)
SOFTMAX_ROW (log_softmax_f32, gfloat, expf, TRUE)
SOFTMAX_ROW (log_softmax_f64, gdouble, exp, TRUE)

/* Contiguous rows, the same steps vectorized: the maximum; x - m into
 * the output and the vector exp there; the sum in double precision in
 * 32 running sums; the scaling (or the shift, for log_softmax). */
typedef struct
{
  gint64        n;
  gboolean      log;
  EpCpuLoop     exp_loop;    /* vmath.c, or NULL: libm */
  gconstpointer exp_data;
} FastRow;

/* The sum of a row in double precision, in 32 running sums kept in
 * vector registers (sums[j] lane l collects x[i + 8 j + l]). */
typedef gfloat Vec8F32 __attribute__ ((vector_size (32)));
typedef gdouble Vec8F64 __attribute__ ((vector_size (64)));

#define ROW_SUM(name, T, TO_F64)                                            \
EP_CPU_CLONES                                                               \
static gdouble                                                              \
name (const T *x, gint64 n)                                                 \
{                                                                           \
  Vec8F64 sums[4] = { { 0 } };                                              \
  gdouble flat[32], total = 0;                                              \
  gint64 i = 0;                                                             \
  for (; i + 32 <= n; i += 32)                                              \
    _Pragma ("GCC unroll 4")                                                \
    for (guint j = 0; j < 4; j++)                                           \
      sums[j] += TO_F64 (x + i + 8 * j);                                    \
  memcpy (flat, sums, sizeof flat);                                         \
  for (; i < n; i++)                                                        \
    flat[0] += x[i];                                                        \
  for (guint k = 0; k < 32; k++)                                            \
    total += flat[k];                                                       \
  return total;                                                             \
}

/* eight elements (any alignment) as doubles; macros, as a function
 * returning a 64-byte vector would change the ABI between the clones */
#define F32_TO_F64(chunk) \
  ({ Vec8F32 v_; memcpy (&v_, (chunk), sizeof v_); __builtin_convertvector (v_, Vec8F64); })

ROW_SUM (row_sum_f32, gfloat, F32_TO_F64)

/* float64 rows keep the plain rows' order, one sum from the left: the
 * OpenCL kernel adds in that order too, and test-backend-ops holds the
 * devices to 4 ulp, which another order misses on long rows. (For
 * float32 the order only moves the double total's last bits, which the
 * scaling rounds away.) */
static gdouble
row_sum_f64 (const gdouble *x,
             gint64         n)
{
  gdouble total = 0;

  for (gint64 i = 0; i < n; i++)
    total += x[i];
  return total;
}

#define SOFTMAX_FAST_ROW(name, T, EXP, FOLD_MAX, ROW_SUM)                   \
EP_CPU_CLONES                                                               \
static void                                                                 \
name (guint8 **rows, const gint64 *s, gpointer u)                           \
{                                                                           \
  const FastRow *row = u;                                                   \
  const T *restrict x = (const T *) rows[1];                                \
  T *restrict out = (T *) rows[0];                                          \
  gint64 n = row->n, i;                                                     \
  T m = FOLD_MAX (-INFINITY, x, n);                                         \
  gdouble total;                                                            \
  for (i = 0; i < n; i++)                                                   \
    out[i] = x[i] - m;                                                      \
  if (row->exp_loop != NULL)                                                \
    {                                                                       \
      guint8 *ptrs[2] = { (guint8 *) out, (guint8 *) out };                 \
      const gint64 strides[2] = { sizeof (T), sizeof (T) };                 \
      row->exp_loop (ptrs, strides, n, row->exp_data);                      \
    }                                                                       \
  else                                                                      \
    for (i = 0; i < n; i++)                                                 \
      out[i] = EXP (out[i]);                                                \
  total = ROW_SUM (out, n);                                                 \
  if (row->log)                                                             \
    {                                                                       \
      T shift = (T) log (total);                                            \
      for (i = 0; i < n; i++)                                               \
        out[i] = (x[i] - m) - shift;                                        \
    }                                                                       \
  else                                                                      \
    {                                                                       \
      gdouble scale = 1.0 / total;                                          \
      for (i = 0; i < n; i++)                                               \
        out[i] = (T) (out[i] * scale);                                      \
    }                                                                       \
}

SOFTMAX_FAST_ROW (softmax_fast_f32, gfloat, expf, ep_cpu_fold_max_f32, row_sum_f32)
SOFTMAX_FAST_ROW (softmax_fast_f64, gdouble, exp, ep_cpu_fold_max_f64, row_sum_f64)

/* Rows contiguous in the input and the output (the output always is:
 * the axis must be the last one). */
static gboolean
softmax_fast (EpOpCall *call,
              guint     axis)
{
  EpTensor *in = call->inputs[0];
  EpTensor *tensors[2] = { call->outputs[0], in };
  gboolean f32 = in->layout.dtype == EP_DTYPE_FLOAT32;
  FastRow row = { in->layout.shape[axis], call->op->id == EP_OP_LOG_SOFTMAX, NULL, NULL };

  if (axis + 1 != in->layout.ndim || (in->layout.strides[axis] != 1 && in->layout.shape[axis] > 1))
    return FALSE;

  if (!ep_cpu_vmath_lookup (EP_CPU_VMATH_EXP, in->layout.dtype, &row.exp_loop, &row.exp_data))
    row.exp_loop = NULL;
  ep_cpu_for_each_row_parallel (tensors, 2, axis, f32 ? softmax_fast_f32 : softmax_fast_f64, &row);
  return TRUE;
}

static gboolean
cpu_softmax (EpOpCall  *call,
             GError   **error)
{
  guint axis = call->attrs.axes[0];
  EpTensor *tensors[2] = { call->outputs[0], call->inputs[0] };
  gint64 n = call->inputs[0]->layout.shape[axis];
  gboolean f32 = call->inputs[0]->layout.dtype == EP_DTYPE_FLOAT32;
  EpCpuRowFunc row;

  if (softmax_fast (call, axis))
    return TRUE;

  if (call->op->id == EP_OP_SOFTMAX)
    row = f32 ? softmax_f32 : softmax_f64;
  else
    row = f32 ? log_softmax_f32 : log_softmax_f64;

  ep_cpu_for_each_row (tensors, 2, axis, row, &n);
  return TRUE;
}

/* logsumexp over any axes: the maximum (p[0], float64), then the sum of
 * exponentials shifted by it (p[0] the sum, p[2] the maximum). A
 * maximum that is not finite shifts by 0, as in SciPy, so that inf and
 * -inf come out right. */
#define SHIFT(m) (isfinite (m) ? (m) : 0.0)

#define MAX_LOOP(name, T)                                                   \
static void                                                                 \
name (guint8 **p, const gint64 *s, gint64 n, gconstpointer u)               \
{                                                                           \
  for (gint64 i = 0; i < n; i++)                                            \
    {                                                                       \
      gdouble *m = (gdouble *) (p[0] + i * s[0]);                           \
      *m = NAN_MAX (*m, (gdouble) *(const T *) (p[1] + i * s[1]));          \
    }                                                                       \
}

#define EXP_SUM_LOOP(name, T)                                               \
static void                                                                 \
name (guint8 **p, const gint64 *s, gint64 n, gconstpointer u)               \
{                                                                           \
  for (gint64 i = 0; i < n; i++)                                            \
    {                                                                       \
      gdouble *acc = (gdouble *) (p[0] + i * s[0]);                         \
      gdouble m = *(const gdouble *) (p[2] + i * s[2]);                     \
      *acc += exp ((gdouble) *(const T *) (p[1] + i * s[1]) - SHIFT (m));   \
    }                                                                       \
}

MAX_LOOP (max_f32, gfloat)
MAX_LOOP (max_f64, gdouble)
EXP_SUM_LOOP (exp_sum_f32, gfloat)
EXP_SUM_LOOP (exp_sum_f64, gdouble)

static gboolean
cpu_logsumexp (EpOpCall  *call,
               GError   **error)
{
  EpTensor *in = call->inputs[0];
  EpTensor *out = call->outputs[0];
  gboolean f32 = in->layout.dtype == EP_DTYPE_FLOAT32;
  EpLayout layout = out->layout;
  g_autoptr(EpTensor) maxima = NULL;
  g_autoptr(EpTensor) sums = NULL;
  gint64 size = ep_layout_get_size (&out->layout);
  gdouble *m, *acc;

  layout.dtype = EP_DTYPE_FLOAT64;
  maxima = ep_tensor_new_empty (call->device, &layout, error);
  if (maxima == NULL)
    return FALSE;
  sums = ep_tensor_new_empty (call->device, &layout, error);
  if (sums == NULL)
    return FALSE;

  m = ep_tensor_host_data (maxima);
  acc = ep_tensor_host_data (sums);
  for (gint64 i = 0; i < size; i++)
    {
      m[i] = -INFINITY;
      acc[i] = 0;
    }

  ep_cpu_reduce_run (in, maxima, NULL, call->attrs.axes, call->attrs.n_axes,
                     f32 ? max_f32 : max_f64, NULL);
  ep_cpu_reduce_run (in, sums, maxima, call->attrs.axes, call->attrs.n_axes,
                     f32 ? exp_sum_f32 : exp_sum_f64, NULL);

  for (gint64 i = 0; i < size; i++)
    {
      gdouble value = log (acc[i]) + SHIFT (m[i]);

      if (f32)
        ((gfloat *) ep_tensor_host_data (out))[i] = (gfloat) value;
      else
        ((gdouble *) ep_tensor_host_data (out))[i] = value;
    }

  return TRUE;
}

/* crossentropy: logits (N, C), labels (N,) int64 */
#define CROSSENTROPY(name, T)                                               \
static gboolean                                                             \
name (EpTensor *logits, EpTensor *labels, EpTensor *out, GError **error)    \
{                                                                           \
  const EpLayout *l = &logits->layout;                                      \
  const guint8 *x = ep_tensor_host_data (logits);                           \
  const guint8 *y = ep_tensor_host_data (labels);                           \
  gint64 rs = l->strides[0] * (gint64) sizeof (T);                          \
  gint64 cs = l->strides[1] * (gint64) sizeof (T);                          \
  gint64 ys = labels->layout.strides[0] * (gint64) sizeof (gint64);         \
  gint64 n = l->shape[0], c = l->shape[1];                                  \
  T *loss = ep_tensor_host_data (out);                                      \
  for (gint64 i = 0; i < n; i++)                                            \
    {                                                                       \
      const guint8 *row = x + i * rs;                                       \
      gint64 label = *(const gint64 *) (y + i * ys);                        \
      gdouble m = -INFINITY, total = 0;                                     \
      if (label < 0 || label >= c)                                          \
        {                                                                   \
          g_set_error (error, EP_ERROR, EP_ERROR_INDEX,                     \
                       g_dngettext (GETTEXT_PACKAGE,                        \
                                    "crossentropy: label %" PRId64 " of sample %" PRId64 " is out of range for %" PRId64 " class", \
                                    "crossentropy: label %" PRId64 " of sample %" PRId64 " is out of range for %" PRId64 " classes", \
                                    (gulong) c),                            \
                       label, i, c);                                        \
          return FALSE;                                                     \
        }                                                                   \
      for (gint64 j = 0; j < c; j++)                                        \
        m = NAN_MAX (m, (gdouble) *(const T *) (row + j * cs));             \
      for (gint64 j = 0; j < c; j++)                                        \
        total += exp ((gdouble) *(const T *) (row + j * cs) - SHIFT (m));   \
      loss[i] = (T) (log (total) + (SHIFT (m) - (gdouble) *(const T *) (row + label * cs))); \
    }                                                                       \
  return TRUE;                                                              \
}

CROSSENTROPY (crossentropy_f32, gfloat)
CROSSENTROPY (crossentropy_f64, gdouble)

static gboolean
cpu_crossentropy (EpOpCall  *call,
                  GError   **error)
{
  if (call->inputs[0]->layout.dtype == EP_DTYPE_FLOAT32)
    return crossentropy_f32 (call->inputs[0], call->inputs[1], call->outputs[0], error);

  return crossentropy_f64 (call->inputs[0], call->inputs[1], call->outputs[0], error);
}

void
ep_cpu_register_softmax (EpKernelFunc *kernels)
{
  kernels[EP_OP_SOFTMAX] = cpu_softmax;
  kernels[EP_OP_LOG_SOFTMAX] = cpu_softmax;
  kernels[EP_OP_LOGSUMEXP] = cpu_logsumexp;
  kernels[EP_OP_CROSSENTROPY] = cpu_crossentropy;
}
