/* norm.c: layer_norm and batch_norm on the CPU
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Inputs are contiguous (the rules ask for it). Statistics are two
 * passes in double precision, the mean and then the squared deviations
 * from it, in vector registers; the output is one more pass. Work is
 * cut by sizes alone, and partial sums are added in a fixed order, so
 * results do not depend on the number of threads.
 */

#include "config.h"

#include <math.h>
#include <string.h>

#include "ep-cpu-loops-private.h"
#include "ep-cpu-rows-private.h"
#include "ep-norm-private.h"
#include "ep-tensor-private.h"

typedef gdouble Vec8F64 __attribute__ ((vector_size (64)));
typedef gfloat Vec8F32 __attribute__ ((vector_size (32)));

/* eight elements (any alignment) as doubles */
#define LOAD_F32(p) \
  ({ Vec8F32 v_; memcpy (&v_, (p), sizeof v_); __builtin_convertvector (v_, Vec8F64); })
#define LOAD_F64(p) \
  ({ Vec8F64 v_; memcpy (&v_, (p), sizeof v_); v_; })

/* sum (x - center) or sum ((x - center) ** 2) over @n contiguous
 * elements, in 32 running sums */
#define MOMENT(name, T, LOAD)                                               \
EP_CPU_CLONES                                                               \
static gdouble                                                              \
name (const T *x, gint64 n, gdouble center, gboolean square)                \
{                                                                           \
  Vec8F64 sums[4] = { { 0 } };                                              \
  gdouble flat[32], total = 0;                                              \
  gint64 i = 0;                                                             \
  if (square)                                                               \
    for (; i + 32 <= n; i += 32)                                            \
      _Pragma ("GCC unroll 4")                                              \
      for (guint j = 0; j < 4; j++)                                         \
        {                                                                   \
          Vec8F64 d = LOAD (x + i + 8 * j) - center;                        \
          sums[j] += d * d;                                                 \
        }                                                                   \
  else                                                                      \
    for (; i + 32 <= n; i += 32)                                            \
      _Pragma ("GCC unroll 4")                                              \
      for (guint j = 0; j < 4; j++)                                         \
        sums[j] += LOAD (x + i + 8 * j) - center;                           \
  memcpy (flat, sums, sizeof flat);                                         \
  for (; i < n; i++)                                                        \
    {                                                                       \
      gdouble d = (gdouble) x[i] - center;                                  \
      flat[0] += square ? d * d : d;                                        \
    }                                                                       \
  for (guint k = 0; k < 32; k++)                                            \
    total += flat[k];                                                       \
  return total;                                                             \
}

MOMENT (moment_f32, gfloat, LOAD_F32)
MOMENT (moment_f64, gdouble, LOAD_F64)

/* layer_norm: rows of n elements, a task per block of rows */

typedef struct
{
  gint64        rows, n, block;
  gdouble       epsilon;
  gconstpointer x, w, b;
  gpointer      y;
} LayerNormJob;

#define LAYER_NORM_TASK(name, T, MOMENT)                                    \
EP_CPU_CLONES                                                               \
static void                                                                 \
name (gpointer data, guint index)                                           \
{                                                                           \
  const LayerNormJob *job = data;                                           \
  const gint64 n = job->n;                                                  \
  const T *restrict w = job->w, *restrict b = job->b;                       \
  gint64 first = (gint64) index * job->block;                               \
  gint64 last = MIN (job->rows, first + job->block);                        \
  for (gint64 r = first; r < last; r++)                                     \
    {                                                                       \
      const T *restrict x = (const T *) job->x + r * n;                     \
      T *restrict y = (T *) job->y + r * n;                                 \
      gdouble mean = MOMENT (x, n, 0, FALSE) / (gdouble) n;                 \
      gdouble var = MOMENT (x, n, mean, TRUE) / (gdouble) n;                \
      T m = (T) mean, rstd = (T) (1.0 / sqrt (var + job->epsilon));         \
      for (gint64 i = 0; i < n; i++)                                        \
        y[i] = (x[i] - m) * rstd * w[i] + b[i];                             \
    }                                                                       \
}

LAYER_NORM_TASK (layer_norm_f32, gfloat, moment_f32)
LAYER_NORM_TASK (layer_norm_f64, gdouble, moment_f64)

/* Rows per task: at least EP_CPU_GRAIN elements each */
static gint64
rows_per_task (gint64 rows,
               gint64 row_size)
{
  gint64 block = MAX (1, EP_CPU_GRAIN / MAX (row_size, 1));

  return MIN (block, MAX (rows, 1));
}

static gboolean
cpu_layer_norm (EpOpCall  *call,
                GError   **error)
{
  const EpLayout *in = &call->inputs[0]->layout;
  guint axis = call->attrs.axes[0];
  LayerNormJob job = {
    .n = 1, .rows = 1, .epsilon = call->attrs.norm.epsilon,
    .x = ep_tensor_host_data (call->inputs[0]), .w = ep_tensor_host_data (call->inputs[1]),
    .b = ep_tensor_host_data (call->inputs[2]), .y = ep_tensor_host_data (call->outputs[0]),
  };

  for (guint d = 0; d < in->ndim; d++)
    if (d < axis)
      job.rows *= in->shape[d];
    else
      job.n *= in->shape[d];
  job.block = rows_per_task (job.rows, job.n);

  ep_cpu_parallel_for ((guint) ((job.rows + job.block - 1) / job.block),
                       in->dtype == EP_DTYPE_FLOAT32 ? layer_norm_f32 : layer_norm_f64, &job);
  return TRUE;
}

/* batch_norm: the input as (outer, c, inner); the statistics of each
 * channel over outer and inner. A task takes a block of outer rows. */

typedef struct
{
  gint64         outer, c, inner, block;
  gconstpointer  x;
  gpointer       y;
  gdouble       *partial;    /* a row of c sums per task */
  const gdouble *center;     /* NULL: sums of x; else of (x - center)^2 */
  const gdouble *mean, *scale, *shift;   /* the output pass */
} BatchNormJob;

#define BATCH_SUMS_TASK(name, T, MOMENT)                                    \
EP_CPU_CLONES                                                               \
static void                                                                 \
name (gpointer data, guint index)                                           \
{                                                                           \
  const BatchNormJob *job = data;                                           \
  const gint64 c = job->c, inner = job->inner;                              \
  gdouble *restrict acc = job->partial + (gint64) index * c;                \
  const gdouble *center = job->center;                                      \
  gint64 first = (gint64) index * job->block;                               \
  gint64 last = MIN (job->outer, first + job->block);                       \
  memset (acc, 0, c * sizeof (gdouble));                                    \
  for (gint64 o = first; o < last; o++)                                     \
    {                                                                       \
      const T *restrict x = (const T *) job->x + o * c * inner;             \
      if (inner > 1)                                                        \
        for (gint64 k = 0; k < c; k++)                                      \
          acc[k] += MOMENT (x + k * inner, inner, center ? center[k] : 0, center != NULL); \
      else if (center != NULL)                                              \
        for (gint64 k = 0; k < c; k++)                                      \
          {                                                                 \
            gdouble d = (gdouble) x[k] - center[k];                         \
            acc[k] += d * d;                                                \
          }                                                                 \
      else                                                                  \
        for (gint64 k = 0; k < c; k++)                                      \
          acc[k] += (gdouble) x[k];                                         \
    }                                                                       \
}

BATCH_SUMS_TASK (batch_sums_f32, gfloat, moment_f32)
BATCH_SUMS_TASK (batch_sums_f64, gdouble, moment_f64)

/* y = (x - mean) scale + shift, with scale = w rstd and shift = b */
#define BATCH_OUT_TASK(name, T)                                             \
EP_CPU_CLONES                                                               \
static void                                                                 \
name (gpointer data, guint index)                                           \
{                                                                           \
  const BatchNormJob *job = data;                                           \
  const gint64 c = job->c, inner = job->inner;                              \
  gint64 first = (gint64) index * job->block;                               \
  gint64 last = MIN (job->outer, first + job->block);                       \
  for (gint64 o = first; o < last; o++)                                     \
    {                                                                       \
      const T *restrict x = (const T *) job->x + o * c * inner;             \
      T *restrict y = (T *) job->y + o * c * inner;                         \
      if (inner > 1)                                                        \
        for (gint64 k = 0; k < c; k++)                                      \
          {                                                                 \
            T m = (T) job->mean[k], s = (T) job->scale[k], t = (T) job->shift[k]; \
            for (gint64 i = 0; i < inner; i++)                              \
              y[k * inner + i] = (x[k * inner + i] - m) * s + t;            \
          }                                                                 \
      else                                                                  \
        for (gint64 k = 0; k < c; k++)                                      \
          y[k] = (x[k] - (T) job->mean[k]) * (T) job->scale[k] + (T) job->shift[k]; \
    }                                                                       \
}

BATCH_OUT_TASK (batch_out_f32, gfloat)
BATCH_OUT_TASK (batch_out_f64, gdouble)

/* The per-channel sums of the tasks' partial rows, in task order,
 * divided by @count */
static void
fold_partials (const BatchNormJob *job,
               guint               n_tasks,
               gdouble             count,
               gdouble            *out)
{
  for (gint64 k = 0; k < job->c; k++)
    {
      gdouble total = 0;

      for (guint t = 0; t < n_tasks; t++)
        total += job->partial[(gint64) t * job->c + k];
      out[k] = total / count;
    }
}

static void
read_doubles (EpTensor *t,
              gdouble  *out,
              gint64    n)
{
  if (t->layout.dtype == EP_DTYPE_FLOAT32)
    {
      const gfloat *p = ep_tensor_host_data (t);

      for (gint64 i = 0; i < n; i++)
        out[i] = p[i];
    }
  else
    memcpy (out, ep_tensor_host_data (t), n * sizeof (gdouble));
}

static void
write_doubles (EpTensor      *t,
               const gdouble *in,
               gint64         n)
{
  if (t->layout.dtype == EP_DTYPE_FLOAT32)
    {
      gfloat *p = ep_tensor_host_data (t);

      for (gint64 i = 0; i < n; i++)
        p[i] = (gfloat) in[i];
    }
  else
    memcpy (ep_tensor_host_data (t), in, n * sizeof (gdouble));
}

static gboolean
cpu_batch_norm (EpOpCall  *call,
                GError   **error)
{
  const EpLayout *in = &call->inputs[0]->layout;
  gboolean f32 = in->dtype == EP_DTYPE_FLOAT32;
  guint channel = ep_norm_channel_axis (call->attrs.norm.data_format, in->ndim);
  BatchNormJob job = {
    .outer = 1, .inner = 1, .c = in->shape[channel],
    .x = ep_tensor_host_data (call->inputs[0]), .y = ep_tensor_host_data (call->outputs[0]),
  };
  g_autofree gdouble *scratch = NULL;
  gdouble *mean, *var, *scale, *shift, count;
  guint n_tasks;

  for (guint d = 0; d < in->ndim; d++)
    if (d < channel)
      job.outer *= in->shape[d];
    else if (d > channel)
      job.inner *= in->shape[d];
  count = (gdouble) job.outer * (gdouble) job.inner;
  job.block = rows_per_task (job.outer, job.c * job.inner);
  n_tasks = (guint) ((job.outer + job.block - 1) / job.block);

  scratch = ep_cpu_scratch (call->op->name, ((gsize) n_tasks + 4) * (gsize) job.c,
                            sizeof (gdouble), error);
  if (scratch == NULL)
    return FALSE;
  mean = scratch;
  var = mean + job.c;
  scale = var + job.c;
  shift = scale + job.c;
  job.partial = shift + job.c;

  if (call->attrs.norm.training && count == 0)
    {
      /* no element per channel: 0 / 0, NaN statistics */
      for (gint64 k = 0; k < job.c; k++)
        mean[k] = var[k] = NAN;
    }
  else if (call->attrs.norm.training)
    {
      EpCpuTaskFunc sums = f32 ? batch_sums_f32 : batch_sums_f64;

      ep_cpu_parallel_for (n_tasks, sums, &job);
      fold_partials (&job, n_tasks, count, mean);
      job.center = mean;
      ep_cpu_parallel_for (n_tasks, sums, &job);
      fold_partials (&job, n_tasks, count, var);
    }
  else
    {
      read_doubles (call->inputs[1], mean, job.c);
      read_doubles (call->inputs[2], var, job.c);
    }

  read_doubles (call->inputs[3], scale, job.c);
  read_doubles (call->inputs[4], shift, job.c);
  for (gint64 k = 0; k < job.c; k++)
    scale[k] *= 1.0 / sqrt (var[k] + call->attrs.norm.epsilon);

  job.mean = mean;
  job.scale = scale;
  job.shift = shift;
  if (job.outer * job.c * job.inner > 0)
    ep_cpu_parallel_for (n_tasks, f32 ? batch_out_f32 : batch_out_f64, &job);

  write_doubles (call->outputs[1], mean, job.c);
  write_doubles (call->outputs[2], var, job.c);
  return TRUE;
}

void
ep_cpu_register_norm (EpKernelFunc *kernels)
{
  kernels[EP_OP_LAYER_NORM] = cpu_layer_norm;
  kernels[EP_OP_BATCH_NORM] = cpu_batch_norm;
}
