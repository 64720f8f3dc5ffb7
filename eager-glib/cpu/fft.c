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
 * only) runs in double on KISS FFT's algorithm written out below (radix
 * 4 and 2 butterflies, a generic one for odd factors). Lengths with a
 * prime factor above KISS_MAX_FACTOR, in either type, run in double on
 * Bluestein's chirp z-transform (a convolution through transforms of a
 * power of two ≥ 2n - 1): O(n log n) for any n.
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

/* KISS FFT's generic butterfly (and ours) costs p² per p points: above
 * this prime factor Bluestein's transform is cheaper */
#define KISS_MAX_FACTOR 64

/* Rows a thread takes at least, in points */
#define ROWS_GRAIN 16384

typedef struct
{
  gdouble r, i;
} Cpx;

/* A mixed-radix transform of one length in double, KISS FFT's
 * decimation in time (radix 4, 2, then odd factors, each at most
 * KISS_MAX_FACTOR), out of place. */
typedef struct
{
  gint64    n;
  gboolean  inverse;
  gint64    factors[2 * 64];  /* (p, m) pairs: n = p m at each level */
  Cpx      *twiddles;         /* n: e^{∓2πi k/n} */
} Mixed;

typedef struct
{
  gint64        n;
  gboolean      inverse;
  kiss_fft_cfg  kiss;       /* float32 rows of small factors, or NULL */
  Mixed         mixed;      /* the rows' transform in double, or
                             * Bluestein's (forward, of length m) */
  gint64        m;          /* Bluestein's length (a power of two ≥
                             * 2n - 1), or 0 */
  Cpx          *chirp;      /* Bluestein: n, e^{∓πi k²/n} */
  Cpx          *filter;     /* Bluestein: m, the transformed conjugate
                             * chirp, divided by m */
} Plan;

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

static gboolean
mixed_init (Mixed    *t,
            gint64    n,
            gboolean  inverse)
{
  gint64 p = 4, rest = n;
  guint k = 0;

  t->n = n;
  t->inverse = inverse;
  do
    {
      while (rest % p != 0)
        {
          p = p == 4 ? 2 : p == 2 ? 3 : p + 2;
          if (p * p > rest)
            p = rest;
        }
      rest /= p;
      t->factors[k++] = p;
      t->factors[k++] = rest;
    }
  while (rest > 1);

  if ((guint64) n > G_MAXSIZE / sizeof (Cpx)
      || (t->twiddles = ep_try_malloc ((gsize) n * sizeof (Cpx))) == NULL)
    return FALSE;
  for (gint64 i = 0; i < n; i++)
    {
      gdouble angle = (inverse ? 2.0 : -2.0) * G_PI * (gdouble) i / (gdouble) n;

      t->twiddles[i].r = cos (angle);
      t->twiddles[i].i = sin (angle);
    }
  return TRUE;
}

static inline Cpx
cmul (Cpx a,
      Cpx b)
{
  return (Cpx) { a.r * b.r - a.i * b.i, a.r * b.i + a.i * b.r };
}

static void
butterfly2 (const Mixed *t,
            Cpx         *out,
            gint64       fstride,
            gint64       m)
{
  for (gint64 k = 0; k < m; k++)
    {
      Cpx v = cmul (out[m + k], t->twiddles[k * fstride]);

      out[m + k] = (Cpx) { out[k].r - v.r, out[k].i - v.i };
      out[k].r += v.r;
      out[k].i += v.i;
    }
}

static void
butterfly4 (const Mixed *t,
            Cpx         *out,
            gint64       fstride,
            gint64       m)
{
  for (gint64 u = 0; u < m; u++)
    {
      Cpx *f = out + u;
      Cpx s0 = cmul (f[m], t->twiddles[u * fstride]);
      Cpx s1 = cmul (f[2 * m], t->twiddles[2 * u * fstride]);
      Cpx s2 = cmul (f[3 * m], t->twiddles[3 * u * fstride]);
      Cpx s5 = { f[0].r - s1.r, f[0].i - s1.i };
      Cpx s3 = { s0.r + s2.r, s0.i + s2.i };
      Cpx s4 = { s0.r - s2.r, s0.i - s2.i };
      Cpx f0 = { f[0].r + s1.r, f[0].i + s1.i };

      f[2 * m] = (Cpx) { f0.r - s3.r, f0.i - s3.i };
      f[0] = (Cpx) { f0.r + s3.r, f0.i + s3.i };
      if (t->inverse)
        {
          f[m] = (Cpx) { s5.r - s4.i, s5.i + s4.r };
          f[3 * m] = (Cpx) { s5.r + s4.i, s5.i - s4.r };
        }
      else
        {
          f[m] = (Cpx) { s5.r + s4.i, s5.i - s4.r };
          f[3 * m] = (Cpx) { s5.r - s4.i, s5.i + s4.r };
        }
    }
}

/* any p up to KISS_MAX_FACTOR: p² products per p points */
static void
butterfly_generic (const Mixed *t,
                   Cpx         *out,
                   gint64       fstride,
                   gint64       m,
                   gint64       p)
{
  Cpx scratch[KISS_MAX_FACTOR];

  for (gint64 u = 0; u < m; u++)
    {
      for (gint64 q = 0; q < p; q++)
        scratch[q] = out[u + q * m];
      for (gint64 q1 = 0, k = u; q1 < p; q1++, k += m)
        {
          gint64 index = 0;
          Cpx sum = scratch[0];

          for (gint64 q = 1; q < p; q++)
            {
              Cpx v;

              index += fstride * k;
              if (index >= t->n)
                index -= t->n;
              v = cmul (scratch[q], t->twiddles[index]);
              sum.r += v.r;
              sum.i += v.i;
            }
          out[k] = sum;
        }
    }
}

static void
mixed_work (const Mixed  *t,
            Cpx          *out,
            const Cpx    *in,
            gint64        fstride,
            const gint64 *factors)
{
  gint64 p = factors[0], m = factors[1];

  if (m == 1)
    for (gint64 k = 0; k < p; k++)
      out[k] = in[k * fstride];
  else
    for (gint64 k = 0; k < p; k++)
      mixed_work (t, out + k * m, in + k * fstride, fstride * p, factors + 2);

  if (p == 2)
    butterfly2 (t, out, fstride, m);
  else if (p == 4)
    butterfly4 (t, out, fstride, m);
  else if (p > 1)
    butterfly_generic (t, out, fstride, m, p);
}

/* @out = the transform of @in (n complex each, distinct) */
static void
mixed_run (const Mixed *t,
           Cpx         *out,
           const Cpx   *in)
{
  mixed_work (t, out, in, 1, t->factors);
}

static void
plan_free (Plan *plan)
{
  if (plan->kiss != NULL)
    kiss_fft_free (plan->kiss);
  g_free (plan->mixed.twiddles);
  g_free (plan->chirp);
  g_free (plan->filter);
}

static gboolean
plan_init (Plan     *plan,
           gint64    n,
           gboolean  inverse,
           EpDType   dtype)
{
  gboolean small_factors = largest_factor (n) <= KISS_MAX_FACTOR;
  g_autofree Cpx *sequence = NULL;

  memset (plan, 0, sizeof *plan);
  plan->n = n;
  plan->inverse = inverse;

  if (dtype == EP_DTYPE_FLOAT32 && small_factors)
    {
      /* ep_try_malloc's fault injection, then KISS FFT's own malloc */
      g_autofree gpointer probe = ep_try_malloc (1);

      plan->kiss = probe != NULL ? kiss_fft_alloc ((int) n, inverse, NULL, NULL) : NULL;
      return plan->kiss != NULL;
    }
  if (small_factors)
    return mixed_init (&plan->mixed, n, inverse);

  /* Bluestein: jk = (j² + k² - (k - j)²) / 2 makes the transform a
   * convolution with the chirp c_t = e^{∓πi t²/n}, done by transforms of
   * a power of two; t² is taken modulo 2n, exactly, so that the angles
   * stay accurate for large t. */
  for (plan->m = 1; plan->m < 2 * n - 1; plan->m <<= 1)
    ;
  if (!mixed_init (&plan->mixed, plan->m, FALSE)
      || (plan->chirp = ep_try_malloc ((gsize) n * sizeof (Cpx))) == NULL
      || (plan->filter = ep_try_malloc ((gsize) plan->m * sizeof (Cpx))) == NULL
      || (sequence = ep_try_new0 (Cpx, plan->m)) == NULL)
    return FALSE;
  for (gint64 k = 0; k < n; k++)
    {
      gint64 square = (gint64) (((guint64) k * (guint64) k) % (guint64) (2 * n));
      gdouble angle = (inverse ? G_PI : -G_PI) * (gdouble) square / (gdouble) n;

      plan->chirp[k] = (Cpx) { cos (angle), sin (angle) };
    }
  for (gint64 k = 0; k < n; k++)
    {
      Cpx c = { plan->chirp[k].r / (gdouble) plan->m, -plan->chirp[k].i / (gdouble) plan->m };

      sequence[k] = c;
      if (k > 0)
        sequence[plan->m - k] = c;
    }
  mixed_run (&plan->mixed, plan->filter, sequence);
  return TRUE;
}

/* The double-precision transform of @a into @b (n complex each); @w1 and
 * @w2 hold m complex for Bluestein's transform. */
static void
plan_run_double (const Plan *plan,
                 const Cpx  *a,
                 Cpx        *b,
                 Cpx        *w1,
                 Cpx        *w2)
{
  gint64 n = plan->n, m = plan->m;

  if (plan->chirp == NULL)
    {
      mixed_run (&plan->mixed, b, a);
      return;
    }

  for (gint64 k = 0; k < n; k++)
    w1[k] = cmul (a[k], plan->chirp[k]);
  memset (w1 + n, 0, (gsize) (m - n) * sizeof (Cpx));
  mixed_run (&plan->mixed, w2, w1);
  /* the inverse transform of the product as the conjugate of the
   * forward transform of its conjugate (unscaled: the filter has 1/m) */
  for (gint64 k = 0; k < m; k++)
    {
      Cpx v = cmul (w2[k], plan->filter[k]);

      w2[k] = (Cpx) { v.r, -v.i };
    }
  mixed_run (&plan->mixed, w1, w2);
  for (gint64 k = 0; k < n; k++)
    b[k] = cmul ((Cpx) { w1[k].r, -w1[k].i }, plan->chirp[k]);
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
 * rows and Bluestein's work buffers */
static gsize
scratch_size (const Plan *plan,
              gboolean    in_double)
{
  if (!in_double)
    return (gsize) plan->n * 2 * 2 * sizeof (gfloat);
  return (2 * (gsize) plan->n + 2 * (gsize) plan->m) * sizeof (Cpx);
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
        Cpx *a = (Cpx *) scratch, *b = a + job->n;
        Cpx *w1 = b + job->n, *w2 = w1 + job->plan->m;

        if (job->f32)
          gather_f32_in_double (job, r, (gdouble *) a);
        else
          gather_f64 (job, r, (gdouble *) a);
        plan_run_double (job->plan, a, b, w1, w2);
        if (job->f32)
          scatter_f32_from_double (job, r, (const gdouble *) b);
        else
          scatter_f64 (job, r, (const gdouble *) b);
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
