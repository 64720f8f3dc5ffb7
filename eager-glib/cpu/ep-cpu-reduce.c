/* ep-cpu-reduce.c: reductions on the CPU
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The output walks with the input, standing still (stride 0) along the
 * reduced axes. When the innermost run is a reduced axis the loop folds
 * it into one value (pairwise for float sums, as NumPy does); otherwise
 * it folds the input into a run of outputs.
 */

#include "config.h"

#include <math.h>

#include "ep-cpu-private.h"
#include "ep-tensor-private.h"

#define PAIRWISE_BLOCK 128

/* Pairwise summation: error grows with log n instead of n. */
#define PAIRWISE_SUM(name, T)                                               \
static T                                                                    \
name (const guint8 *p, gint64 stride, gint64 n)                             \
{                                                                           \
  if (n <= PAIRWISE_BLOCK)                                                  \
    {                                                                       \
      T acc[8] = { 0 };                                                     \
      T total = 0;                                                          \
      gint64 i = 0;                                                         \
      if (stride == sizeof (T))                                             \
        {                                                                   \
          const T *x = (const T *) p;                                       \
          for (; i + 8 <= n; i += 8)                                        \
            for (guint k = 0; k < 8; k++)                                   \
              acc[k] += x[i + k];                                           \
        }                                                                   \
      for (; i < n; i++)                                                    \
        acc[0] += *(const T *) (p + i * stride);                            \
      for (guint k = 0; k < 8; k++)                                         \
        total += acc[k];                                                    \
      return total;                                                         \
    }                                                                       \
  else                                                                      \
    {                                                                       \
      gint64 half = (n / 2) / 8 * 8;                                        \
      return name (p, stride, half) + name (p + half * stride, stride, n - half); \
    }                                                                       \
}

PAIRWISE_SUM (pairwise_f32, gfloat)
PAIRWISE_SUM (pairwise_f64, gdouble)

static gint64
run_sum_i64 (const guint8 *p, gint64 stride, gint64 n)
{
  guint64 total = 0;

  for (gint64 i = 0; i < n; i++)
    total += (guint64) *(const gint64 *) (p + i * stride);

  return (gint64) total;
}

#define SUM_LOOP(name, T, RUN, ADD)                                         \
static void                                                                 \
name (guint8 **p, const gint64 *s, gint64 n, gconstpointer u)               \
{                                                                           \
  T *out = (T *) p[0];                                                      \
  if (s[0] == 0)                                                            \
    *out = ADD (*out, RUN (p[1], s[1], n));                                 \
  else                                                                      \
    for (gint64 i = 0; i < n; i++)                                          \
      out[i] = ADD (out[i], *(const T *) (p[1] + i * s[1]));                \
}

#define PLUS(a, b) ((a) + (b))
#define WRAPPING_PLUS(a, b) ((gint64) ((guint64) (a) + (guint64) (b)))

SUM_LOOP (sum_f32, gfloat, pairwise_f32, PLUS)
SUM_LOOP (sum_f64, gdouble, pairwise_f64, PLUS)
SUM_LOOP (sum_i64, gint64, run_sum_i64, WRAPPING_PLUS)

/* Extrema propagate NaN: once the running value is NaN it stays. */
#define FMAX(m, x) (((m) > (x) || isnan (m)) ? (m) : (x))
#define FMIN(m, x) (((m) < (x) || isnan (m)) ? (m) : (x))
#define IMAX(m, x) ((m) > (x) ? (m) : (x))
#define IMIN(m, x) ((m) < (x) ? (m) : (x))

#define EXTREMUM_LOOP(name, T, PICK)                                        \
static void                                                                 \
name (guint8 **p, const gint64 *s, gint64 n, gconstpointer u)               \
{                                                                           \
  T *out = (T *) p[0];                                                      \
  if (s[0] == 0)                                                            \
    {                                                                       \
      T m = *out;                                                           \
      for (gint64 i = 0; i < n; i++)                                        \
        m = PICK (m, *(const T *) (p[1] + i * s[1]));                       \
      *out = m;                                                             \
    }                                                                       \
  else                                                                      \
    for (gint64 i = 0; i < n; i++)                                          \
      out[i] = PICK (out[i], *(const T *) (p[1] + i * s[1]));               \
}

EXTREMUM_LOOP (max_f32, gfloat, FMAX)
EXTREMUM_LOOP (max_f64, gdouble, FMAX)
EXTREMUM_LOOP (max_i32, gint32, IMAX)
EXTREMUM_LOOP (max_i64, gint64, IMAX)
EXTREMUM_LOOP (max_b, guint8, IMAX)
EXTREMUM_LOOP (min_f32, gfloat, FMIN)
EXTREMUM_LOOP (min_f64, gdouble, FMIN)
EXTREMUM_LOOP (min_i32, gint32, IMIN)
EXTREMUM_LOOP (min_i64, gint64, IMIN)
EXTREMUM_LOOP (min_b, guint8, IMIN)

#define ROW(p) { p##_f32, p##_f64, p##_i32, p##_i64, p##_b }

static const EpCpuLoop max_loops[5] = ROW (max);
static const EpCpuLoop min_loops[5] = ROW (min);
static const EpCpuLoop sum_loops[5] = { sum_f32, sum_f64, NULL, sum_i64, NULL };

/* Starts every output at the first element of its reduction, which is
 * the identity that works for extrema of every type (and keeps NaN). */
static void
fill_first (EpOpCall *call)
{
  EpTensor *in = call->inputs[0];
  EpTensor *out = call->outputs[0];
  const gint *axes = call->attrs.axes;
  guint n_axes = call->attrs.n_axes;
  EpLayout first = in->layout;
  g_autoptr(EpTensor) view = NULL;
  EpCpuIter iter;

  for (guint a = 0; a < n_axes; a++)
    first.shape[axes[a]] = 1;
  view = ep_tensor_new_with_storage (&first, in->storage);

  ep_cpu_iter_init (&iter, first.shape, first.ndim);
  ep_cpu_iter_add_reduced (&iter, out, axes, n_axes);
  ep_cpu_iter_add (&iter, view);
  ep_cpu_iter_run (&iter, ep_cpu_copy_loop_for_itemsize (ep_dtype_get_itemsize (in->layout.dtype)), NULL);
}

static void
reduce_into (EpOpCall  *call,
             EpCpuLoop  loop)
{
  EpTensor *in = call->inputs[0];
  EpCpuIter iter;

  ep_cpu_iter_init (&iter, in->layout.shape, in->layout.ndim);
  ep_cpu_iter_add_reduced (&iter, call->outputs[0], call->attrs.axes, call->attrs.n_axes);
  ep_cpu_iter_add (&iter, in);
  ep_cpu_iter_run (&iter, loop, NULL);
}

static void
zero (EpTensor *out)
{
  memset (out->storage->data, 0, out->storage->nbytes);
}

static gboolean
cpu_sum (EpOpCall  *call,
         GError   **error)
{
  zero (call->outputs[0]);
  reduce_into (call, sum_loops[call->inputs[0]->layout.dtype]);
  return TRUE;
}

static gboolean
cpu_mean (EpOpCall  *call,
          GError   **error)
{
  EpTensor *out = call->outputs[0];
  gint64 n = ep_layout_get_size (&out->layout);
  gdouble count = 1;

  for (guint a = 0; a < call->attrs.n_axes; a++)
    count *= call->inputs[0]->layout.shape[call->attrs.axes[a]];

  zero (out);
  reduce_into (call, sum_loops[out->layout.dtype]);

  if (out->layout.dtype == EP_DTYPE_FLOAT32)
    for (gint64 i = 0; i < n; i++)
      ((gfloat *) out->storage->data)[i] = (gfloat) (((gfloat *) out->storage->data)[i] / count);
  else
    for (gint64 i = 0; i < n; i++)
      ((gdouble *) out->storage->data)[i] /= count;

  return TRUE;
}

static gboolean
cpu_extremum (EpOpCall  *call,
              GError   **error)
{
  EpDType dtype = call->inputs[0]->layout.dtype;

  fill_first (call);
  reduce_into (call, call->op->id == EP_OP_MAX ? max_loops[dtype] : min_loops[dtype]);
  return TRUE;
}

void
ep_cpu_register_reduce (EpKernelFunc *kernels)
{
  kernels[EP_OP_SUM] = cpu_sum;
  kernels[EP_OP_MEAN] = cpu_mean;
  kernels[EP_OP_MAX] = cpu_extremum;
  kernels[EP_OP_MIN] = cpu_extremum;
}
