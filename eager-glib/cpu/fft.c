/* fft.c: fft, ifft, rfft and irfft on the CPU
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Every op is a complex transform of rows of n points: a row is read
 * into a work buffer (cropped or padded with zeros; real rows with zero
 * imaginary parts; irfft's half spectrum completed by its conjugates),
 * transformed, scaled and written out (rfft keeps n/2 + 1 bins, irfft
 * the real parts).
 *
 * float32 rows run on KISS FFT (BSD-3-Clause, Debian's libkissfft), a
 * mixed-radix FFT: fast for lengths whose prime factors are small, but
 * O(n p) for a prime factor p. float64 (Debian builds KISS FFT for float
 * only), and float32 lengths with a prime factor above KISS_MAX_FACTOR,
 * run in double on the transforms below: radix 2 for powers of two,
 * Bluestein's chirp z-transform (a convolution through three transforms
 * of a power of two ≥ 2n - 1) for the others, O(n log n) for any n.
 */

#include "config.h"

#include <glib/gi18n-lib.h>
#include <kiss_fft.h>
#include <math.h>
#include <string.h>

#include "ep-cpu-private.h"
#include "ep-error.h"
#include "ep-fault-private.h"
#include "ep-fft-private.h"
#include "ep-tensor-private.h"

/* KISS FFT's generic butterfly costs p² per p points: above this prime
 * factor Bluestein's transform is cheaper */
#define KISS_MAX_FACTOR 64

/* Rows a thread takes at least, in points */
#define ROWS_GRAIN 16384

typedef struct
{
  gint64        n;
  gboolean      inverse;
  kiss_fft_cfg  kiss;       /* float32 rows of small factors, or NULL */
  gint64        m;          /* radix-2 length: n, or Bluestein's */
  gdouble      *twiddles;   /* m/2 complex: e^{-2πi k/m} */
  gdouble      *chirp;      /* Bluestein: n complex e^{∓πi k²/n}, or NULL */
  gdouble      *filter;     /* Bluestein: m complex, the transformed
                             * conjugate chirp, divided by m */
} Plan;

static gboolean
is_power_of_two (gint64 n)
{
  return (n & (n - 1)) == 0;
}

static gint64
largest_factor (gint64 n)
{
  gint64 largest = 1;

  for (gint64 p = 2; p * p <= n; p++)
    while (n % p == 0)
      {
        largest = p;
        n /= p;
      }
  return MAX (largest, n);
}

/* In place, m a power of two; the inverse is unscaled. */
static void
radix2 (gdouble       *a,
        gint64         m,
        const gdouble *twiddles,
        gboolean       inverse)
{
  gdouble sign = inverse ? -1.0 : 1.0;

  for (gint64 i = 1, j = 0; i < m; i++)
    {
      gint64 bit = m >> 1;

      for (; j & bit; bit >>= 1)
        j ^= bit;
      j |= bit;
      if (i < j)
        {
          gdouble re = a[2 * i], im = a[2 * i + 1];

          a[2 * i] = a[2 * j];
          a[2 * i + 1] = a[2 * j + 1];
          a[2 * j] = re;
          a[2 * j + 1] = im;
        }
    }

  for (gint64 len = 2; len <= m; len <<= 1)
    {
      gint64 half = len / 2, step = m / len;

      for (gint64 i = 0; i < m; i += len)
        for (gint64 j = 0; j < half; j++)
          {
            gdouble wr = twiddles[2 * j * step], wi = sign * twiddles[2 * j * step + 1];
            gdouble *u = a + 2 * (i + j), *v = a + 2 * (i + j + half);
            gdouble vr = v[0] * wr - v[1] * wi, vi = v[0] * wi + v[1] * wr;

            v[0] = u[0] - vr;
            v[1] = u[1] - vi;
            u[0] += vr;
            u[1] += vi;
          }
    }
}

static void
plan_free (Plan *plan)
{
  if (plan->kiss != NULL)
    kiss_fft_free (plan->kiss);
  g_free (plan->twiddles);
  g_free (plan->chirp);
  g_free (plan->filter);
}

static gboolean
plan_init (Plan     *plan,
           gint64    n,
           gboolean  inverse,
           EpDType   dtype)
{
  memset (plan, 0, sizeof *plan);
  plan->n = n;
  plan->inverse = inverse;

  if (dtype == EP_DTYPE_FLOAT32 && largest_factor (n) <= KISS_MAX_FACTOR)
    {
      /* ep_try_malloc's fault injection, then KISS FFT's own malloc */
      g_autofree gpointer probe = ep_try_malloc (1);

      plan->kiss = probe != NULL ? kiss_fft_alloc ((int) n, inverse, NULL, NULL) : NULL;
      return plan->kiss != NULL;
    }

  plan->m = n;
  if (!is_power_of_two (n))
    for (plan->m = 1; plan->m < 2 * n - 1; plan->m <<= 1)
      ;
  if ((guint64) plan->m > G_MAXSIZE / (2 * sizeof (gdouble))
      || (plan->twiddles = ep_try_malloc (MAX (plan->m / 2, 1) * 2 * sizeof (gdouble))) == NULL)
    return FALSE;
  for (gint64 k = 0; k < plan->m / 2; k++)
    {
      gdouble angle = -2.0 * G_PI * (gdouble) k / (gdouble) plan->m;

      plan->twiddles[2 * k] = cos (angle);
      plan->twiddles[2 * k + 1] = sin (angle);
    }
  if (plan->m == n)
    return TRUE;

  /* Bluestein: jk = (j² + k² - (k - j)²) / 2 makes the transform a
   * convolution with the chirp c_t = e^{∓πi t²/n}; t² is taken modulo
   * 2n, exactly, so that the angles stay accurate for large t. */
  if ((plan->chirp = ep_try_malloc ((gsize) n * 2 * sizeof (gdouble))) == NULL
      || (plan->filter = ep_try_malloc ((gsize) plan->m * 2 * sizeof (gdouble))) == NULL)
    return FALSE;
  for (gint64 k = 0; k < n; k++)
    {
      gint64 square = (gint64) (((guint64) k * (guint64) k) % (guint64) (2 * n));
      gdouble angle = (inverse ? G_PI : -G_PI) * (gdouble) square / (gdouble) n;

      plan->chirp[2 * k] = cos (angle);
      plan->chirp[2 * k + 1] = sin (angle);
    }
  memset (plan->filter, 0, (gsize) plan->m * 2 * sizeof (gdouble));
  for (gint64 k = 0; k < n; k++)
    {
      gdouble re = plan->chirp[2 * k] / (gdouble) plan->m;
      gdouble im = -plan->chirp[2 * k + 1] / (gdouble) plan->m;

      plan->filter[2 * k] = re;
      plan->filter[2 * k + 1] = im;
      if (k > 0)
        {
          plan->filter[2 * (plan->m - k)] = re;
          plan->filter[2 * (plan->m - k) + 1] = im;
        }
    }
  radix2 (plan->filter, plan->m, plan->twiddles, FALSE);
  return TRUE;
}

/* The double-precision transform of @a (n complex; m complex of room for
 * Bluestein), in place; @work holds m complex. */
static void
plan_run_double (const Plan *plan,
                 gdouble    *a,
                 gdouble    *work)
{
  gint64 n = plan->n, m = plan->m;

  if (plan->chirp == NULL)
    {
      radix2 (a, n, plan->twiddles, plan->inverse);
      return;
    }

  for (gint64 k = 0; k < n; k++)
    {
      gdouble cr = plan->chirp[2 * k], ci = plan->chirp[2 * k + 1];

      work[2 * k] = a[2 * k] * cr - a[2 * k + 1] * ci;
      work[2 * k + 1] = a[2 * k] * ci + a[2 * k + 1] * cr;
    }
  memset (work + 2 * n, 0, (gsize) (m - n) * 2 * sizeof (gdouble));
  radix2 (work, m, plan->twiddles, FALSE);
  for (gint64 k = 0; k < m; k++)
    {
      gdouble fr = plan->filter[2 * k], fi = plan->filter[2 * k + 1];
      gdouble wr = work[2 * k], wi = work[2 * k + 1];

      work[2 * k] = wr * fr - wi * fi;
      work[2 * k + 1] = wr * fi + wi * fr;
    }
  radix2 (work, m, plan->twiddles, TRUE);
  for (gint64 k = 0; k < n; k++)
    {
      gdouble cr = plan->chirp[2 * k], ci = plan->chirp[2 * k + 1];

      a[2 * k] = work[2 * k] * cr - work[2 * k + 1] * ci;
      a[2 * k + 1] = work[2 * k] * ci + work[2 * k + 1] * cr;
    }
}

gdouble
ep_fft_scale (EpOpId     op,
              gint64     n,
              EpFftNorm  norm)
{
  gboolean inverse = op == EP_OP_IFFT || op == EP_OP_IRFFT;

  if (norm == EP_FFT_NORM_ORTHO)
    return 1.0 / sqrt ((gdouble) n);
  if ((norm == EP_FFT_NORM_BACKWARD) == inverse)
    return 1.0 / (gdouble) n;
  return 1.0;
}

void
ep_fft_geometry (const EpOpCall *call,
                 gint64         *outer,
                 gint64         *in_len,
                 gint64         *inner)
{
  const EpLayout *in = &call->inputs[0]->layout;
  guint axis = call->attrs.axes[0];
  guint logical = call->op->id == EP_OP_RFFT ? in->ndim : in->ndim - 1;

  *outer = 1;
  *inner = 1;
  for (guint d = 0; d < axis; d++)
    *outer *= in->shape[d];
  for (guint d = axis + 1; d < logical; d++)
    *inner *= in->shape[d];
  *in_len = in->shape[axis];
}

typedef struct
{
  const Plan   *plan;
  EpOpId        op;
  gboolean      f32;
  gboolean      in_double;   /* rows computed in double */
  const guint8 *in;
  guint8       *out;
  gint64        in_len, out_len, inner, n, rows, rows_per_task;
  gdouble       scale;
  guint8       *scratch;
  gsize         scratch_per_task;
} Job;

/* Reads row @r into @a (n complex of type TW) from input elements TI */
#define GATHER(name, TI, TW)                                                \
static void                                                                 \
name (const Job *job, gint64 r, TW *a)                                      \
{                                                                           \
  const TI *in = (const TI *) job->in;                                      \
  gint64 o = r / job->inner, i = r % job->inner, n = job->n;                \
  gint64 base = o * job->in_len * job->inner + i, stride = job->inner;      \
  gint64 count;                                                             \
                                                                            \
  switch (job->op)                                                          \
    {                                                                       \
    case EP_OP_RFFT:                                                        \
      count = MIN (job->in_len, n);                                         \
      for (gint64 j = 0; j < count; j++)                                    \
        {                                                                   \
          a[2 * j] = (TW) in[base + j * stride];                            \
          a[2 * j + 1] = 0;                                                 \
        }                                                                   \
      break;                                                                \
    case EP_OP_IRFFT:                                                       \
      count = MIN (job->in_len, n / 2 + 1);                                 \
      for (gint64 j = 0; j < count; j++)                                    \
        {                                                                   \
          a[2 * j] = (TW) in[2 * (base + j * stride)];                      \
          a[2 * j + 1] = (TW) in[2 * (base + j * stride) + 1];              \
        }                                                                   \
      break;                                                                \
    default:                                                                \
      count = MIN (job->in_len, n);                                         \
      for (gint64 j = 0; j < count; j++)                                    \
        {                                                                   \
          a[2 * j] = (TW) in[2 * (base + j * stride)];                      \
          a[2 * j + 1] = (TW) in[2 * (base + j * stride) + 1];              \
        }                                                                   \
    }                                                                       \
  for (gint64 j = count; j < n; j++)                                        \
    a[2 * j] = a[2 * j + 1] = 0;                                            \
  if (job->op == EP_OP_IRFFT)                                               \
    /* the Hermitian spectrum's other half */                               \
    for (gint64 j = n / 2 + 1; j < n; j++)                                  \
      {                                                                     \
        a[2 * j] = a[2 * (n - j)];                                          \
        a[2 * j + 1] = -a[2 * (n - j) + 1];                                 \
      }                                                                     \
}

/* Writes the transformed row @r from @a, scaled */
#define SCATTER(name, TO, TW)                                               \
static void                                                                 \
name (const Job *job, gint64 r, const TW *a)                                \
{                                                                           \
  TO *out = (TO *) job->out;                                                \
  gint64 o = r / job->inner, i = r % job->inner;                            \
  gint64 base = o * job->out_len * job->inner + i, stride = job->inner;     \
  TW scale = (TW) job->scale;                                               \
                                                                            \
  if (job->op == EP_OP_IRFFT)                                               \
    for (gint64 j = 0; j < job->out_len; j++)                               \
      out[base + j * stride] = (TO) (a[2 * j] * scale);                     \
  else                                                                      \
    for (gint64 j = 0; j < job->out_len; j++)                               \
      {                                                                     \
        out[2 * (base + j * stride)] = (TO) (a[2 * j] * scale);             \
        out[2 * (base + j * stride) + 1] = (TO) (a[2 * j + 1] * scale);     \
      }                                                                     \
}

GATHER (gather_f32, gfloat, gfloat)
GATHER (gather_f32_in_double, gfloat, gdouble)
GATHER (gather_f64, gdouble, gdouble)
SCATTER (scatter_f32, gfloat, gfloat)
SCATTER (scatter_f32_from_double, gfloat, gdouble)
SCATTER (scatter_f64, gdouble, gdouble)

/* Scratch per task: KISS FFT's input and output rows, or the double
 * rows and Bluestein's work buffer */
static gsize
scratch_size (const Plan *plan,
              gboolean    in_double)
{
  if (!in_double)
    return (gsize) plan->n * 2 * 2 * sizeof (gfloat);
  return ((gsize) MAX (plan->m, plan->n) + (plan->chirp != NULL ? (gsize) plan->m : 0))
         * 2 * sizeof (gdouble);
}

static void
run_rows (gpointer data,
          guint    task)
{
  const Job *job = data;
  gint64 first = (gint64) task * job->rows_per_task;
  gint64 last = MIN (first + job->rows_per_task, job->rows);
  guint8 *scratch = job->scratch + task * job->scratch_per_task;

  for (gint64 r = first; r < last; r++)
    if (!job->in_double)
      {
        kiss_fft_cpx *a = (kiss_fft_cpx *) scratch, *b = a + job->n;

        gather_f32 (job, r, (gfloat *) a);
        kiss_fft (job->plan->kiss, a, b);
        scatter_f32 (job, r, (const gfloat *) b);
      }
    else
      {
        gdouble *a = (gdouble *) scratch;
        gdouble *work = a + 2 * MAX (job->plan->m, job->plan->n);

        if (job->f32)
          gather_f32_in_double (job, r, a);
        else
          gather_f64 (job, r, a);
        plan_run_double (job->plan, a, work);
        if (job->f32)
          scatter_f32_from_double (job, r, a);
        else
          scatter_f64 (job, r, a);
      }
}

static gboolean
out_of_memory (const char  *op_name,
               GError     **error)
{
  g_set_error (error, EP_ERROR, EP_ERROR_OUT_OF_MEMORY,
               _("%s: not enough memory for the transform's work buffers"), op_name);
  return FALSE;
}

gboolean
ep_fft_run_host (EpOpId          op,
                 EpDType         dtype,
                 gconstpointer   in,
                 gpointer        out,
                 gint64          outer,
                 gint64          in_len,
                 gint64          inner,
                 gint64          n,
                 EpFftNorm       norm,
                 GError        **error)
{
  const char *op_name = op == EP_OP_FFT ? "fft" : op == EP_OP_IFFT ? "ifft"
                        : op == EP_OP_RFFT ? "rfft" : "irfft";
  gboolean inverse = op == EP_OP_IFFT || op == EP_OP_IRFFT;
  Plan plan;
  Job job = { 0 };
  guint n_tasks;
  gboolean ok;

  if (outer == 0 || inner == 0)
    return TRUE;

  ok = plan_init (&plan, n, inverse, dtype);
  job.plan = &plan;
  job.op = op;
  job.f32 = dtype == EP_DTYPE_FLOAT32;
  job.in_double = plan.kiss == NULL;
  job.in = in;
  job.out = out;
  job.in_len = in_len;
  job.out_len = op == EP_OP_RFFT ? n / 2 + 1 : n;
  job.inner = inner;
  job.n = n;
  job.rows = outer * inner;
  job.scale = ep_fft_scale (op, n, norm);

  /* a task per thread, each with rows of ROWS_GRAIN points at least */
  n_tasks = (guint) CLAMP ((gdouble) job.rows * (gdouble) n / ROWS_GRAIN, 1.0, (gdouble) ep_cpu_get_n_threads ());
  n_tasks = (guint) MIN ((gint64) n_tasks, job.rows);
  job.rows_per_task = (job.rows + n_tasks - 1) / n_tasks;
  n_tasks = (guint) ((job.rows + job.rows_per_task - 1) / job.rows_per_task);

  if (ok)
    {
      job.scratch_per_task = scratch_size (&plan, job.in_double);
      ok = job.scratch_per_task <= G_MAXSIZE / n_tasks
           && (job.scratch = ep_try_malloc (job.scratch_per_task * n_tasks)) != NULL;
    }
  if (ok)
    ep_cpu_parallel_for (n_tasks, run_rows, &job);

  g_free (job.scratch);
  plan_free (&plan);
  return ok || out_of_memory (op_name, error);
}

static gboolean
cpu_fft (EpOpCall  *call,
         GError   **error)
{
  gint64 outer, in_len, inner;

  ep_fft_geometry (call, &outer, &in_len, &inner);
  return ep_fft_run_host (call->op->id, call->inputs[0]->layout.dtype,
                          (const guint8 *) call->inputs[0]->storage->data
                          + call->inputs[0]->layout.offset * ep_dtype_get_itemsize (call->inputs[0]->layout.dtype),
                          call->outputs[0]->storage->data,
                          outer, in_len, inner, call->attrs.fft.n, call->attrs.fft.norm, error);
}

void
ep_cpu_register_fft (EpKernelFunc *kernels)
{
  kernels[EP_OP_FFT] = cpu_fft;
  kernels[EP_OP_IFFT] = cpu_fft;
  kernels[EP_OP_RFFT] = cpu_fft;
  kernels[EP_OP_IRFFT] = cpu_fft;
}
