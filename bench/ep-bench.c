/* ep-bench.c: the C side of bench/run
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Measures eager-glib from C and the machine's limits (memory bandwidth
 * with STREAM's copy, triad and a read-only sum; OpenBLAS's sgemm
 * called directly) and prints one JSON object. bench/run puts it next
 * to the Python, gjs, NumPy and PyTorch numbers.
 *
 * Every figure is the best and the median of several repeats, in
 * seconds per call.
 */

#include <eager-glib/eager-glib.h>

#include <cblas.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#ifdef _OPENMP
#include <omp.h>
#endif

#define N_ELEMENTWISE (4 * 1024 * 1024)
#define N_STREAM (32 * 1024 * 1024)  /* 128 MiB an array: well past the L3 */

static double
now (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static int
compare_doubles (const void *a,
                 const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;

  return x < y ? -1 : x > y;
}

typedef void (*Workload) (gpointer data);

typedef struct
{
  double best, median;
} Timing;

/* Runs @work @inner times per sample, @samples samples (after one
 * warm-up sample), for at most about @budget seconds. */
static Timing
measure (Workload  work,
         gpointer  data,
         guint     inner,
         guint     samples,
         double    budget)
{
  double times[64];
  guint n = 0;
  double start = now ();
  Timing t;

  samples = MIN (samples, G_N_ELEMENTS (times));
  for (guint i = 0; i < inner; i++)
    work (data);

  while (n < samples && (n < 3 || now () - start < budget))
    {
      double t0 = now ();

      for (guint i = 0; i < inner; i++)
        work (data);
      times[n++] = (now () - t0) / inner;
    }

  qsort (times, n, sizeof (double), compare_doubles);
  t.best = times[0];
  t.median = times[n / 2];
  return t;
}

static GString *json;

static long
minor_faults (void)
{
  struct rusage usage;

  getrusage (RUSAGE_SELF, &usage);
  return usage.ru_minflt;
}

static void
report (const char *name,
        Timing      t)
{
  g_string_append_printf (json, "%s\"%s\": {\"best\": %.9g, \"median\": %.9g}",
                          json->len > 1 ? ", " : "", name, t.best, t.median);
}

static void
check (GError *error)
{
  if (error != NULL)
    g_error ("ep-bench: %s", error->message);
}

static EpTensor *
tensor_from_floats (const float  *values,
                    const gint64 *shape,
                    guint         ndim)
{
  g_autoptr(GError) error = NULL;
  gsize n = 1;
  g_autoptr(GBytes) bytes = NULL;
  EpTensor *t;

  for (guint d = 0; d < ndim; d++)
    n *= shape[d];
  bytes = g_bytes_new (values, n * sizeof (float));
  /* a copy of its own, as an op result would be */
  t = ep_tensor_new_from_bytes (bytes, EP_DTYPE_FLOAT32, shape, ndim, &error);
  check (error);
  return t;
}

static float *
random_floats (gsize   n,
               GRand  *rand,
               double  low,
               double  high)
{
  float *v = g_new (float, n);

  for (gsize i = 0; i < n; i++)
    v[i] = (float) g_rand_double_range (rand, low, high);
  return v;
}

/* Page faults per call, after the warm-up of measure() */
static void
report_faults (const char *name,
               Workload    work,
               gpointer    data)
{
  long before = minor_faults ();

  for (guint i = 0; i < 10; i++)
    work (data);
  g_string_append_printf (json, ", \"%s\": %g", name, (minor_faults () - before) / 10.0);
}

/* eager-glib workloads */

typedef struct
{
  EpTensor *a, *b;
} Operands;

static void
w_add (gpointer data)
{
  Operands *o = data;
  g_autoptr(EpTensor) r = ep_tensor_add (o->a, o->b, NULL);
}

static void
w_exp (gpointer data)
{
  Operands *o = data;
  g_autoptr(EpTensor) r = ep_tensor_exp (o->a, NULL);
}

static void
w_sum (gpointer data)
{
  Operands *o = data;
  g_autoptr(EpTensor) r = ep_tensor_sum (o->a, NULL, 0, FALSE, NULL);
}

static void
w_norm (gpointer data)
{
  Operands *o = data;
  g_autoptr(EpTensor) sq = ep_tensor_square (o->a, NULL);
  g_autoptr(EpTensor) s = ep_tensor_sum (sq, NULL, 0, FALSE, NULL);
  g_autoptr(EpTensor) r = ep_tensor_sqrt (s, NULL);
}

static void
w_matmul (gpointer data)
{
  Operands *o = data;
  g_autoptr(EpTensor) r = ep_tensor_matmul (o->a, o->b, NULL);
}

static void
w_softmax (gpointer data)
{
  Operands *o = data;
  g_autoptr(EpTensor) r = ep_tensor_softmax (o->a, 1, NULL);
}

/* The same composed of five ops, as before the op existed: it shows
 * what op sequences cost (temporaries, their buffers). */
static void
w_softmax_composed (gpointer data)
{
  Operands *o = data;
  const gint axis = 1;
  g_autoptr(EpTensor) m = ep_tensor_max (o->a, &axis, 1, TRUE, NULL);
  g_autoptr(EpTensor) d = ep_tensor_sub (o->a, m, NULL);
  g_autoptr(EpTensor) e = ep_tensor_exp (d, NULL);
  g_autoptr(EpTensor) s = ep_tensor_sum (e, &axis, 1, TRUE, NULL);
  g_autoptr(EpTensor) r = ep_tensor_div (e, s, NULL);
}

/* Machine limits */

/* The floor under any per-op cost: every op result is a new GObject. */
static void
w_gobject (gpointer data)
{
  GObject *object = g_object_new (G_TYPE_OBJECT, NULL);

  g_object_unref (object);
}

typedef struct
{
  float *a, *b, *c;
  gsize  n;
  float  sink;
} Stream;

static void
w_stream_copy (gpointer data)
{
  Stream *s = data;
  float *restrict a = s->a;
  const float *restrict b = s->b;
  gsize n = s->n;

#pragma omp parallel for schedule(static)
  for (gsize i = 0; i < n; i++)
    a[i] = b[i];
}

static void
w_stream_triad (gpointer data)
{
  Stream *s = data;
  float *restrict a = s->a;
  const float *restrict b = s->b, *restrict c = s->c;
  gsize n = s->n;

#pragma omp parallel for schedule(static)
  for (gsize i = 0; i < n; i++)
    a[i] = b[i] + 3.0f * c[i];
}

static void
w_stream_read (gpointer data)
{
  Stream *s = data;
  const float *restrict b = s->b;
  gsize n = s->n;
  float total = 0;

#pragma omp parallel for simd schedule(static) reduction(+:total)
  for (gsize i = 0; i < n; i++)
    total += b[i];
  s->sink = total;
}

typedef struct
{
  float *a, *b, *c;
  int    n;
} Gemm;

static void
w_sgemm (gpointer data)
{
  Gemm *g = data;

  cblas_sgemm (CblasRowMajor, CblasNoTrans, CblasNoTrans, g->n, g->n, g->n,
               1.0f, g->a, g->n, g->b, g->n, 0.0f, g->c, g->n);
}

static void
bench_machine (void)
{
  Stream s = { .n = N_STREAM };
  int threads = 1;

  s.a = g_new (float, s.n);
  s.b = g_new (float, s.n);
  s.c = g_new (float, s.n);
#pragma omp parallel for schedule(static)
  for (gsize i = 0; i < s.n; i++)
    {
      s.a[i] = 0;
      s.b[i] = 1;
      s.c[i] = 2;
    }
#ifdef _OPENMP
  threads = omp_get_max_threads ();
#endif
  g_string_append_printf (json, "%s\"stream_threads\": %d, \"stream_n\": %" G_GSIZE_FORMAT,
                          json->len > 1 ? ", " : "", threads, s.n);
  report ("gobject_new_unref", measure (w_gobject, NULL, 100000, 15, 2.0));
  report ("stream_copy", measure (w_stream_copy, &s, 1, 15, 2.0));
  report ("stream_triad", measure (w_stream_triad, &s, 1, 15, 2.0));
  report ("stream_read", measure (w_stream_read, &s, 1, 15, 2.0));
  g_free (s.a);
  g_free (s.b);
  g_free (s.c);

  for (int n = 256; n <= 1024; n *= 4)
    {
      g_autoptr(GRand) rand = g_rand_new_with_seed (n);
      Gemm g = { .n = n };
      char name[32];

      g.a = random_floats ((gsize) n * n, rand, -1, 1);
      g.b = random_floats ((gsize) n * n, rand, -1, 1);
      g.c = g_new (float, (gsize) n * n);
      g_snprintf (name, sizeof name, "openblas_sgemm_%d", n);
      report (name, measure (w_sgemm, &g, n == 256 ? 20 : 1, 15, 2.0));
      g_free (g.a);
      g_free (g.b);
      g_free (g.c);
    }
}

static void
bench_eager_glib (void)
{
  g_autoptr(GRand) rand = g_rand_new_with_seed (7);
  Operands o;

  /* per-op overhead: one add of 4-element tensors, result released */
  {
    const float small[4] = { 1, 2, 3, 4 };
    const gint64 shape[1] = { 4 };

    o.a = tensor_from_floats (small, shape, 1);
    o.b = tensor_from_floats (small, shape, 1);
    report ("ep_c_overhead_add4", measure (w_add, &o, 100000, 15, 3.0));
    g_object_unref (o.a);
    g_object_unref (o.b);
  }

  {
    const gint64 shape[1] = { N_ELEMENTWISE };
    g_autofree float *x = random_floats (N_ELEMENTWISE, rand, -1, 1);
    g_autofree float *y = random_floats (N_ELEMENTWISE, rand, -1, 1);

    o.a = tensor_from_floats (x, shape, 1);
    o.b = tensor_from_floats (y, shape, 1);
    report ("ep_c_add", measure (w_add, &o, 1, 30, 2.0));
    report ("ep_c_exp", measure (w_exp, &o, 1, 30, 2.0));
    report ("ep_c_sum", measure (w_sum, &o, 1, 30, 2.0));
    report ("ep_c_norm", measure (w_norm, &o, 1, 30, 2.0));
    g_object_unref (o.a);
    g_object_unref (o.b);
  }

  {
    const gint64 shape[2] = { 4096, 1024 };
    g_autofree float *x = random_floats (4096 * 1024, rand, -4, 4);

    o.a = tensor_from_floats (x, shape, 2);
    report ("ep_c_softmax", measure (w_softmax, &o, 1, 20, 2.0));
    report ("ep_c_softmax_composed", measure (w_softmax_composed, &o, 1, 20, 2.0));
    report_faults ("ep_c_softmax_faults", w_softmax_composed, &o);
    g_object_unref (o.a);
  }

  /* last: OpenBLAS's threads spin for a while after a product,
   * taking a core from whatever runs next */
  for (int n = 256; n <= 1024; n *= 4)
    {
      const gint64 shape[2] = { n, n };
      g_autofree float *x = random_floats ((gsize) n * n, rand, -1, 1);
      g_autofree float *y = random_floats ((gsize) n * n, rand, -1, 1);
      char name[32];

      o.a = tensor_from_floats (x, shape, 2);
      o.b = tensor_from_floats (y, shape, 2);
      g_snprintf (name, sizeof name, "ep_c_matmul_%d", n);
      report (name, measure (w_matmul, &o, n == 256 ? 20 : 1, 15, 2.0));
      g_object_unref (o.a);
      g_object_unref (o.b);
    }
}

int
main (int    argc,
      char **argv)
{
  gboolean machine = argc < 2 || strcmp (argv[1], "ep") != 0;
  gboolean ep = argc < 2 || strcmp (argv[1], "machine") != 0;

  json = g_string_new ("{");
  /* the machine's sgemm last, for the spinning OpenBLAS threads */
  if (ep)
    bench_eager_glib ();
  if (machine)
    bench_machine ();
  g_string_append (json, "}\n");
  fputs (json->str, stdout);
  g_string_free (json, TRUE);

  return 0;
}
