/* test-cpu-perf.c: the CPU performance machinery keeps its promises
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The buffer cache (reuse, bound, trimming, threads); the thread pool
 * (every task once, nesting, several submitters, fork); results that do
 * not depend on the thread count; the vectorized transcendental
 * functions against libm (accuracy, special values) at every
 * instruction set this processor has.
 */

#include <eager-glib/eager-glib.h>
#include <float.h>
#include <math.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ep-cpu-private.h"

/* EP_CPU_CACHE_BYTES=0 turns the cache off: nothing to test then */
static gboolean
cache_is_off (void)
{
  gsize cached, limit;

  ep_cpu_cache_get_stats (&cached, &limit);
  if (limit == 0)
    g_test_skip ("the buffer cache is off (EP_CPU_CACHE_BYTES=0)");
  return limit == 0;
}

static void
test_cache_reuses_a_class (void)
{
  gpointer p, q;

  if (cache_is_off ())
    return;
  ep_cpu_cache_trim ();
  p = ep_cpu_cache_alloc (1000);
  g_assert_nonnull (p);
  g_assert_cmpuint (GPOINTER_TO_SIZE (p) % EP_CPU_ALIGNMENT, ==, 0);
  memset (p, 1, 1000);
  ep_cpu_cache_release (p, 1000);

  /* 900 bytes are in the same class (897 … 1024) */
  q = ep_cpu_cache_alloc (900);
  g_assert_true (q == p);
  ep_cpu_cache_release (q, 900);
  ep_cpu_cache_trim ();
}

/* A buffer of @n bytes, written at both ends, waits in a class that
 * holds it: the bytes the cache counts for it are at least @n and at
 * most a quarter more (64 for the smallest class). */
static void
assert_class_holds (gsize n)
{
  guint8 *p;
  gsize cached, limit, class_bytes;

  ep_cpu_cache_trim ();
  p = ep_cpu_cache_alloc (n);
  g_assert_nonnull (p);
  if (n > 0)
    {
      p[0] = 1;
      p[n - 1] = 2;
    }
  ep_cpu_cache_release (p, n);

  ep_cpu_cache_get_stats (&cached, &limit);
  class_bytes = cached;
  if (class_bytes == 0)
    {
      /* too big to wait: its class is over the limit */
      g_assert_cmpuint (n + n / 4, >, limit);
      return;
    }
  g_assert_cmpuint (class_bytes, >=, n);
  g_assert_cmpuint (class_bytes, <=, MAX (n + n / 4, 64));
}

static void
test_cache_classes_hold_their_size (void)
{
  if (cache_is_off ())
    return;

  /* every size up to a few KiB, and around powers of two beyond */
  for (gsize n = 0; n < 5000; n++)
    assert_class_holds (n);
  for (guint shift = 12; shift < 26; shift++)
    for (gint delta = -1; delta <= 1; delta++)
      assert_class_holds (((gsize) 1 << shift) + delta);
  ep_cpu_cache_trim ();
}

static void
test_cache_is_bounded (void)
{
  const gsize size = 16 << 20;
  gpointer buffers[64];
  gsize cached, limit;

  if (cache_is_off ())
    return;

  ep_cpu_cache_get_stats (&cached, &limit);
  if (g_getenv ("EP_CPU_CACHE_BYTES") == NULL)
    g_assert_cmpuint (limit, <=, (gsize) 64 << 20);

  /* more than the limit in one class: only what fits waits */
  for (guint i = 0; i < G_N_ELEMENTS (buffers); i++)
    buffers[i] = ep_cpu_cache_alloc (size);
  for (guint i = 0; i < G_N_ELEMENTS (buffers); i++)
    ep_cpu_cache_release (buffers[i], size);

  ep_cpu_cache_get_stats (&cached, &limit);
  g_assert_cmpuint (cached, <=, limit);
  if (limit >= size)
    g_assert_cmpuint (cached, >, 0);

  ep_cpu_cache_trim ();
  ep_cpu_cache_get_stats (&cached, &limit);
  g_assert_cmpuint (cached, ==, 0);
}

static void
test_cache_trims_idle_classes (void)
{
  gsize cached, limit;
  gpointer p;

  if (cache_is_off ())
    return;

  ep_cpu_cache_trim ();
  p = ep_cpu_cache_alloc (100000);
  ep_cpu_cache_release (p, 100000);
  ep_cpu_cache_get_stats (&cached, &limit);
  g_assert_cmpuint (cached, >, 0);

  /* a buffer unused through a whole trim interval (1 s) goes back;
   * trimming is checked on allocations, here of another class */
  for (guint round = 0; round < 3; round++)
    {
      g_usleep (G_USEC_PER_SEC * 11 / 10);
      for (guint i = 0; i < 128; i++)
        ep_cpu_cache_release (ep_cpu_cache_alloc (64), 64);
    }
  ep_cpu_cache_get_stats (&cached, &limit);
  g_assert_cmpuint (cached, <=, 64);
  ep_cpu_cache_trim ();
}

#define N_THREADS 4

static gpointer
hammer (gpointer data)
{
  guint id = GPOINTER_TO_UINT (data);
  GRand *rand = g_rand_new_with_seed (id);
  guint8 *held[8] = { NULL };
  gsize sizes[8] = { 0 };

  for (guint i = 0; i < 20000; i++)
    {
      guint slot = g_rand_int_range (rand, 0, G_N_ELEMENTS (held));

      if (held[slot] != NULL)
        {
          /* nobody else wrote into a buffer this thread holds */
          for (gsize k = 0; k < sizes[slot]; k++)
            g_assert_cmpuint (held[slot][k], ==, id);
          ep_cpu_cache_release (held[slot], sizes[slot]);
        }
      sizes[slot] = g_rand_int_range (rand, 1, 4096);
      held[slot] = ep_cpu_cache_alloc (sizes[slot]);
      memset (held[slot], id, sizes[slot]);
    }

  for (guint slot = 0; slot < G_N_ELEMENTS (held); slot++)
    ep_cpu_cache_release (held[slot], sizes[slot]);
  g_rand_free (rand);
  return NULL;
}

static void
test_cache_threads (void)
{
  GThread *threads[N_THREADS];

  for (guint i = 0; i < N_THREADS; i++)
    threads[i] = g_thread_new ("hammer", hammer, GUINT_TO_POINTER (i + 1));
  for (guint i = 0; i < N_THREADS; i++)
    g_thread_join (threads[i]);
  ep_cpu_cache_trim ();
}

/* The thread pool */

typedef struct
{
  gint *counts;
  gint  nested_total;
} Tally;

static void
count_task (gpointer data,
            guint    index)
{
  Tally *tally = data;

  g_atomic_int_inc (&tally->counts[index]);
}

static void
test_parallel_runs_every_task_once (void)
{
  const guint thread_counts[] = { 1, 2, 3, 8 };

  for (guint t = 0; t < G_N_ELEMENTS (thread_counts); t++)
    for (guint n = 0; n < 200; n += 7)
      {
        g_autofree gint *counts = g_new0 (gint, MAX (n, 1));
        Tally tally = { counts, 0 };

        ep_cpu_set_n_threads (thread_counts[t]);
        ep_cpu_parallel_for (n, count_task, &tally);
        for (guint i = 0; i < n; i++)
          g_assert_cmpint (counts[i], ==, 1);
      }
  ep_cpu_set_n_threads (g_get_num_processors ());
}

static void
nested_task (gpointer data,
             guint    index)
{
  Tally *tally = data;
  gint counts[5] = { 0 };
  Tally inner = { counts, 0 };

  /* a job inside a task runs on that task's thread */
  ep_cpu_parallel_for (G_N_ELEMENTS (counts), count_task, &inner);
  for (guint i = 0; i < G_N_ELEMENTS (counts); i++)
    g_assert_cmpint (counts[i], ==, 1);
  g_atomic_int_add (&tally->nested_total, 1);
  g_atomic_int_inc (&tally->counts[index]);
}

static void
test_parallel_nested (void)
{
  gint counts[16] = { 0 };
  Tally tally = { counts, 0 };

  ep_cpu_set_n_threads (3);
  ep_cpu_parallel_for (G_N_ELEMENTS (counts), nested_task, &tally);
  g_assert_cmpint (tally.nested_total, ==, G_N_ELEMENTS (counts));
  ep_cpu_set_n_threads (g_get_num_processors ());
}

static gpointer
submitter (gpointer data)
{
  for (guint round = 0; round < 500; round++)
    {
      gint counts[37] = { 0 };
      Tally tally = { counts, 0 };

      ep_cpu_parallel_for (G_N_ELEMENTS (counts), count_task, &tally);
      for (guint i = 0; i < G_N_ELEMENTS (counts); i++)
        g_assert_cmpint (counts[i], ==, 1);
    }
  return NULL;
}

static void
test_parallel_several_submitters (void)
{
  GThread *threads[4];

  ep_cpu_set_n_threads (3);
  for (guint i = 0; i < G_N_ELEMENTS (threads); i++)
    threads[i] = g_thread_new ("submitter", submitter, NULL);
  for (guint i = 0; i < G_N_ELEMENTS (threads); i++)
    g_thread_join (threads[i]);
  ep_cpu_set_n_threads (g_get_num_processors ());
}

static EpTensor *
random_tensor (const gint64 *shape,
               guint         ndim,
               EpDType       dtype,
               guint32       seed)
{
  g_autoptr(GRand) rand = g_rand_new_with_seed (seed);
  gsize n = 1, itemsize = dtype == EP_DTYPE_FLOAT32 ? 4 : 8;
  g_autoptr(GBytes) bytes = NULL;
  guint8 *data;

  for (guint d = 0; d < ndim; d++)
    n *= shape[d];
  data = g_malloc (n * itemsize);
  for (gsize i = 0; i < n; i++)
    {
      gdouble v = g_rand_double_range (rand, -3, 3);

      if (dtype == EP_DTYPE_FLOAT32)
        ((gfloat *) data)[i] = (gfloat) v;
      else if (dtype == EP_DTYPE_FLOAT64)
        ((gdouble *) data)[i] = v;
      else
        ((gint64 *) data)[i] = (gint64) (v * 1e15);
    }
  bytes = g_bytes_new_take (data, n * itemsize);
  return ep_tensor_new_from_bytes (bytes, dtype, shape, ndim, NULL);
}

typedef EpTensor *(*Workload) (EpTensor *x, EpTensor *y);

static EpTensor *w_sum (EpTensor *x, EpTensor *y) { return ep_tensor_sum (x, NULL, 0, FALSE, NULL); }
static EpTensor *w_mean (EpTensor *x, EpTensor *y) { return ep_tensor_mean (x, NULL, 0, FALSE, NULL); }
static EpTensor *w_max (EpTensor *x, EpTensor *y) { return ep_tensor_max (x, NULL, 0, FALSE, NULL); }
static EpTensor *w_min (EpTensor *x, EpTensor *y) { return ep_tensor_min (x, NULL, 0, FALSE, NULL); }
static EpTensor *w_add (EpTensor *x, EpTensor *y) { return ep_tensor_add (x, y, NULL); }
static EpTensor *w_exp (EpTensor *x, EpTensor *y) { return ep_tensor_exp (x, NULL); }

static EpTensor *
w_sum_rows (EpTensor *x, EpTensor *y)
{
  const gint axis = -1;

  return ep_tensor_sum (x, &axis, 1, FALSE, NULL);
}

static EpTensor *
w_sum_columns (EpTensor *x, EpTensor *y)
{
  const gint axis = 0;

  return ep_tensor_sum (x, &axis, 1, FALSE, NULL);
}

static EpTensor *
w_max_columns (EpTensor *x, EpTensor *y)
{
  const gint axis = 0;

  return ep_tensor_max (x, &axis, 1, TRUE, NULL);
}

static EpTensor *
w_sum_transposed (EpTensor *x, EpTensor *y)
{
  g_autoptr(EpTensor) t = ep_tensor_transpose (x, NULL, 0, NULL);
  const gint axis = 1;

  return ep_tensor_sum (t, &axis, 1, FALSE, NULL);
}

static EpTensor *
w_add_broadcast (EpTensor *x, EpTensor *y)
{
  const gint axis = 1;
  g_autoptr(EpTensor) row = ep_tensor_max (x, &axis, 1, TRUE, NULL);

  return ep_tensor_sub (x, row, NULL);
}

static EpTensor *w_softmax (EpTensor *x, EpTensor *y) { return ep_tensor_softmax (x, -1, NULL); }
static EpTensor *w_log_softmax (EpTensor *x, EpTensor *y) { return ep_tensor_log_softmax (x, -1, NULL); }
static EpTensor *w_softmax_columns (EpTensor *x, EpTensor *y) { return ep_tensor_softmax (x, 0, NULL); }
static EpTensor *w_sin (EpTensor *x, EpTensor *y) { return ep_tensor_sin (x, NULL); }
static EpTensor *w_gelu (EpTensor *x, EpTensor *y) { return ep_tensor_gelu (x, EP_GELU_APPROXIMATION_NONE, NULL); }
static EpTensor *w_gelu_tanh (EpTensor *x, EpTensor *y) { return ep_tensor_gelu (x, EP_GELU_APPROXIMATION_TANH, NULL); }

/* norm: parameters made from y, so that every element differs */
static EpTensor *
w_layer_norm (EpTensor *x, EpTensor *y)
{
  const gint axis = 0;
  g_autoptr(EpTensor) w = ep_tensor_mean (y, &axis, 1, FALSE, NULL);
  g_autoptr(EpTensor) b = ep_tensor_max (y, &axis, 1, FALSE, NULL);

  return ep_tensor_layer_norm (x, w, b, -1, 1e-5, NULL);
}

/* batch_norm in training of x as (N, C) (channels last in memory) or
 * as (1, C, L) (channels of contiguous rows); every output, one after
 * the other */
static EpTensor *
batch_norm_of (EpTensor *x, EpTensor *y, gboolean rows)
{
  const gint axis = rows ? 1 : 0;
  g_autoptr(EpTensor) w = ep_tensor_mean (y, &axis, 1, FALSE, NULL);
  g_autoptr(EpTensor) b = ep_tensor_max (y, &axis, 1, FALSE, NULL);
  const gint64 *shape = x->layout.shape;
  g_autoptr(EpTensor) input = rows ? ep_tensor_reshape (x, (const gint64[]) { 1, shape[0], shape[1] }, 3, NULL)
                                   : g_object_ref (x);
  g_autoptr(EpTensor) out = NULL, mean = NULL, var = NULL, flat = NULL;
  EpTensor *parts[3];

  if (!ep_tensor_batch_norm (input, w, b, w, b, TRUE, 1e-5, EP_DATA_FORMAT_NCHW, &out, &mean, &var, NULL))
    return NULL;
  flat = ep_tensor_reshape (out, (const gint64[]) { -1 }, 1, NULL);
  parts[0] = flat;
  parts[1] = mean;
  parts[2] = var;
  return ep_concatenate (parts, 3, 0, NULL);
}

static EpTensor *w_batch_norm (EpTensor *x, EpTensor *y) { return batch_norm_of (x, y, FALSE); }
static EpTensor *w_batch_norm_rows (EpTensor *x, EpTensor *y) { return batch_norm_of (x, y, TRUE); }

static void
test_results_do_not_depend_on_threads (void)
{
  const struct { const char *name; Workload work; } workloads[] = {
    { "sum", w_sum }, { "mean", w_mean }, { "max", w_max }, { "min", w_min },
    { "add", w_add }, { "exp", w_exp }, { "sum rows", w_sum_rows },
    { "sum columns", w_sum_columns }, { "max columns", w_max_columns },
    { "sum transposed", w_sum_transposed }, { "sub broadcast", w_add_broadcast },
    { "softmax", w_softmax }, { "log_softmax", w_log_softmax },
    { "softmax columns", w_softmax_columns }, { "sin", w_sin },
    { "layer_norm", w_layer_norm }, { "batch_norm", w_batch_norm },
    { "batch_norm rows", w_batch_norm_rows },
    { "gelu", w_gelu }, { "gelu tanh", w_gelu_tanh },
  };
  const gint64 shapes[][2] = { { 1, 1000003 }, { 517, 1031 }, { 3001, 64 }, { 64, 3001 } };
  const EpDType dtypes[] = { EP_DTYPE_FLOAT32, EP_DTYPE_FLOAT64 };
  const guint thread_counts[] = { 2, 3, 7 };

  for (guint s = 0; s < G_N_ELEMENTS (shapes); s++)
    for (guint t = 0; t < G_N_ELEMENTS (dtypes); t++)
      {
        g_autoptr(EpTensor) x = random_tensor (shapes[s], 2, dtypes[t], 1 + s);
        g_autoptr(EpTensor) y = random_tensor (shapes[s], 2, dtypes[t], 100 + s);

        for (guint w = 0; w < G_N_ELEMENTS (workloads); w++)
          {
            g_autoptr(EpTensor) serial = NULL;
            g_autoptr(GBytes) expected = NULL;

            ep_cpu_set_n_threads (1);
            serial = workloads[w].work (x, y);
            expected = ep_tensor_to_bytes (serial, NULL);

            for (guint c = 0; c < G_N_ELEMENTS (thread_counts); c++)
              {
                g_autoptr(EpTensor) parallel = NULL;
                g_autoptr(GBytes) got = NULL;

                ep_cpu_set_n_threads (thread_counts[c]);
                parallel = workloads[w].work (x, y);
                got = ep_tensor_to_bytes (parallel, NULL);
                if (!g_bytes_equal (expected, got))
                  g_error ("%s of a %s (%" G_GINT64_FORMAT ", %" G_GINT64_FORMAT ") tensor: "
                           "%u threads differ from one",
                           workloads[w].name, ep_dtype_get_name (dtypes[t]),
                           shapes[s][0], shapes[s][1], thread_counts[c]);
              }
          }
      }
  ep_cpu_set_n_threads (g_get_num_processors ());
}

/* pool: every op of the family, split by planes, rows or images */
static GPtrArray *
pool_results (EpTensor     *x,
              EpDataFormat  format)
{
  const gint64 k[] = { 3 }, st[] = { 2 }, p[] = { 1 };
  GPtrArray *results = g_ptr_array_new_with_free_func (g_object_unref);
  EpTensor *max = ep_tensor_max_pool2d (x, k, 1, st, 1, p, 1, NULL, 0, TRUE, format, NULL);
  EpTensor *avg = ep_tensor_avg_pool2d (x, k, 1, st, 1, p, 1, TRUE, FALSE, format, NULL);

  g_ptr_array_add (results, max);
  g_ptr_array_add (results, avg);
  g_ptr_array_add (results, ep_tensor_max_pool2d_indices (x, k, 1, st, 1, p, 1, NULL, 0, TRUE, format, NULL));
  g_ptr_array_add (results, ep_tensor_max_pool2d_grad (x, max, k, 1, st, 1, p, 1, NULL, 0, TRUE, format, NULL));
  g_ptr_array_add (results, ep_avg_pool2d_grad (avg, x->layout.shape, 4, k, 1, st, 1, p, 1, TRUE, FALSE,
                                                format, NULL));
  return results;
}

static void
test_pool_does_not_depend_on_threads (void)
{
  const gint64 shape[] = { 8, 16, 37, 41 };
  const EpDType dtypes[] = { EP_DTYPE_FLOAT32, EP_DTYPE_FLOAT64 };
  const EpDataFormat formats[] = { EP_DATA_FORMAT_NCHW, EP_DATA_FORMAT_NHWC };
  const guint thread_counts[] = { 2, 3, 7 };

  for (guint t = 0; t < G_N_ELEMENTS (dtypes); t++)
    for (guint f = 0; f < G_N_ELEMENTS (formats); f++)
      {
        g_autoptr(EpTensor) x = random_tensor (shape, 4, dtypes[t], 11 + f);
        g_autoptr(GPtrArray) serial = NULL;

        ep_cpu_set_n_threads (1);
        serial = pool_results (x, formats[f]);
        for (guint c = 0; c < G_N_ELEMENTS (thread_counts); c++)
          {
            g_autoptr(GPtrArray) parallel = NULL;

            ep_cpu_set_n_threads (thread_counts[c]);
            parallel = pool_results (x, formats[f]);
            for (guint i = 0; i < serial->len; i++)
              {
                g_autoptr(GBytes) expected = ep_tensor_to_bytes (g_ptr_array_index (serial, i), NULL);
                g_autoptr(GBytes) got = ep_tensor_to_bytes (g_ptr_array_index (parallel, i), NULL);

                if (!g_bytes_equal (expected, got))
                  g_error ("pool result %u of a %s tensor: %u threads differ from one",
                           i, ep_dtype_get_name (dtypes[t]), thread_counts[c]);
              }
          }
      }
  ep_cpu_set_n_threads (g_get_num_processors ());
}

/* A child forked after the workers started makes its own. */
static void
test_parallel_after_fork (void)
{
  const gint64 shape[1] = { 1 << 20 };
  g_autoptr(EpTensor) x = random_tensor (shape, 1, EP_DTYPE_FLOAT32, 5);
  g_autoptr(EpTensor) before = NULL;
  gdouble expected;
  int status;
  pid_t pid;

  ep_cpu_set_n_threads (2);
  before = ep_tensor_sum (x, NULL, 0, FALSE, NULL);
  expected = ep_tensor_item_double (before, NULL);

  pid = fork ();
  g_assert_cmpint (pid, >=, 0);
  if (pid == 0)
    {
      EpTensor *after;

      alarm (20);  /* a hang fails the test instead of stopping it */
      after = ep_tensor_sum (x, NULL, 0, FALSE, NULL);
      _exit (ep_tensor_item_double (after, NULL) == expected ? 0 : 1);
    }
  g_assert_cmpint (waitpid (pid, &status, 0), ==, pid);
  g_assert_true (WIFEXITED (status));
  g_assert_cmpint (WEXITSTATUS (status), ==, 0);
  ep_cpu_set_n_threads (g_get_num_processors ());
}

/* Extrema: the vectorized folds keep the plain fold's answer, NaN
 * (the first one) and the sign of a zero (the last one) included. */

static gdouble
plain_fold (const gdouble *x,
            gsize          n,
            gboolean       max)
{
  gdouble m = x[0];

  for (gsize i = 0; i < n; i++)
    m = (max ? m > x[i] : m < x[i]) || isnan (m) ? m : x[i];
  return m;
}

static void
test_extrema_keep_nan_and_zero_signs (void)
{
  const gdouble pool[] = { -1.0, -0.0, 0.0, 1.0, -0.0, 0.0, 0.5, -0.5 };
  g_autoptr(GRand) rand = g_rand_new_with_seed (17);
  const gsize lengths[] = { 1, 2, 3, 15, 16, 17, 33, 100, 1000, 70000, 200000 };

  for (guint l = 0; l < G_N_ELEMENTS (lengths); l++)
    for (guint round = 0; round < 40; round++)
      for (EpDType dtype = EP_DTYPE_FLOAT32; dtype <= EP_DTYPE_FLOAT64; dtype++)
        {
          gsize n = lengths[l];
          g_autofree gdouble *x = g_new (gdouble, n);
          g_autofree guint8 *raw = g_malloc (n * 8);
          g_autoptr(GBytes) bytes = NULL;
          g_autoptr(EpTensor) t = NULL;
          const gint64 shape[1] = { (gint64) n };

          for (gsize i = 0; i < n; i++)
            {
              x[i] = pool[g_rand_int_range (rand, 0, G_N_ELEMENTS (pool))];
              /* now and then a NaN, with its index as payload */
              if (round % 4 == 3 && g_rand_int_range (rand, 0, 50) == 0)
                x[i] = -nan ("");
              if (dtype == EP_DTYPE_FLOAT32)
                ((gfloat *) raw)[i] = (gfloat) x[i];
              else
                ((gdouble *) raw)[i] = x[i];
            }
          bytes = g_bytes_new (raw, n * (dtype == EP_DTYPE_FLOAT32 ? 4 : 8));
          t = ep_tensor_new_from_bytes (bytes, dtype, shape, 1, NULL);

          for (guint which = 0; which < 2; which++)
            {
              g_autoptr(EpTensor) r = which ? ep_tensor_max (t, NULL, 0, FALSE, NULL)
                                            : ep_tensor_min (t, NULL, 0, FALSE, NULL);
              gdouble got = ep_tensor_item_double (r, NULL);
              gdouble expected = plain_fold (x, n, which);

              if (isnan (expected))
                g_assert_true (isnan (got));
              else
                {
                  g_assert_cmpfloat (got, ==, expected);
                  g_assert_cmpint (signbit (got), ==, signbit (expected));
                }
            }
        }
}

/* softmax: the vectorized rows agree with the plain ones (a transposed
 * input takes the plain path) */
static void
test_softmax_fast_rows (void)
{
  const gint64 shapes[][2] = { { 3, 1 }, { 5, 17 }, { 64, 1000 }, { 300, 300 } };

  for (guint s = 0; s < G_N_ELEMENTS (shapes); s++)
    for (EpDType dtype = EP_DTYPE_FLOAT32; dtype <= EP_DTYPE_FLOAT64; dtype++)
      for (guint log = 0; log < 2; log++)
        {
          const gint64 transposed_shape[2] = { shapes[s][1], shapes[s][0] };
          g_autoptr(EpTensor) xt = random_tensor (transposed_shape, 2, dtype, 40 + s);
          g_autoptr(EpTensor) x = ep_tensor_transpose (xt, NULL, 0, NULL);
          g_autoptr(EpTensor) xc = ep_tensor_contiguous (x, NULL);
          g_autoptr(EpTensor) plain = log ? ep_tensor_log_softmax (x, -1, NULL) : ep_tensor_softmax (x, -1, NULL);
          g_autoptr(EpTensor) fast = log ? ep_tensor_log_softmax (xc, -1, NULL) : ep_tensor_softmax (xc, -1, NULL);
          g_autoptr(EpTensor) diff = ep_tensor_sub (plain, fast, NULL);
          g_autoptr(EpTensor) a = ep_tensor_abs (diff, NULL);
          g_autoptr(EpTensor) worst = ep_tensor_max (a, NULL, 0, FALSE, NULL);

          g_assert_false (ep_tensor_is_contiguous (x) && shapes[s][0] > 1 && shapes[s][1] > 1);
          g_assert_cmpfloat (ep_tensor_item_double (worst, NULL), <=, dtype == EP_DTYPE_FLOAT32 ? 1e-6 : 1e-14);
        }
}

/* fft: rows split between threads give the bytes one thread gives
 * (KISS FFT, radix 2 and Bluestein's rows) */
static void
test_fft_does_not_depend_on_threads (void)
{
  const gint64 shapes[][2] = { { 64, 1024 }, { 300, 97 }, { 16, 4099 } };
  const guint thread_counts[] = { 2, 3, 7 };

  for (guint s = 0; s < G_N_ELEMENTS (shapes); s++)
    for (EpDType dtype = EP_DTYPE_FLOAT32; dtype <= EP_DTYPE_FLOAT64; dtype++)
      {
        g_autoptr(EpTensor) x = random_tensor (shapes[s], 2, dtype, 70 + s);
        g_autoptr(EpTensor) one = NULL;
        g_autoptr(GBytes) expected = NULL;

        ep_cpu_set_n_threads (1);
        one = ep_tensor_rfft (x, -1, -1, EP_FFT_NORM_BACKWARD, NULL);
        expected = ep_tensor_to_bytes (one, NULL);
        for (guint c = 0; c < G_N_ELEMENTS (thread_counts); c++)
          {
            g_autoptr(EpTensor) several = NULL;
            g_autoptr(GBytes) got = NULL;

            ep_cpu_set_n_threads (thread_counts[c]);
            several = ep_tensor_rfft (x, -1, -1, EP_FFT_NORM_BACKWARD, NULL);
            got = ep_tensor_to_bytes (several, NULL);
            g_assert_true (g_bytes_equal (got, expected));
          }
      }
  ep_cpu_set_n_threads (g_get_num_processors ());
}

/* Vectorized transcendental functions */

/* sigmoid: the libm loop's formula in the element type (so exp (-x)
 * overflows where the kernel's does), to within the roundings of its
 * three steps */
static long double sigmoid32 (long double x) { return 1.0f / (1.0f + expf (-(gfloat) x)); }
static long double sigmoid64 (long double x) { return 1.0 / (1.0 + exp (-(gdouble) x)); }

static const struct
{
  EpCpuVmath   func;
  const char  *name;
  long double (*reference) (long double);
  guint        max_ulp;
  long double (*reference64) (long double);   /* when not the same */
} vmath_functions[] = {
  { EP_CPU_VMATH_EXP, "exp", expl, 2 },
  { EP_CPU_VMATH_EXPM1, "expm1", expm1l, 2 },
  { EP_CPU_VMATH_LOG, "log", logl, 2 },
  { EP_CPU_VMATH_LOG1P, "log1p", log1pl, 2 },
  { EP_CPU_VMATH_LOG2, "log2", log2l, 2 },
  { EP_CPU_VMATH_LOG10, "log10", log10l, 2 },
  { EP_CPU_VMATH_SIN, "sin", sinl, 2 },
  { EP_CPU_VMATH_COS, "cos", cosl, 2 },
  { EP_CPU_VMATH_TAN, "tan", tanl, 2 },
  { EP_CPU_VMATH_SINH, "sinh", sinhl, 2 },
  { EP_CPU_VMATH_COSH, "cosh", coshl, 2 },
  { EP_CPU_VMATH_TANH, "tanh", tanhl, 2 },
  { EP_CPU_VMATH_ARCSIN, "arcsin", asinl, 2 },
  { EP_CPU_VMATH_ARCCOS, "arccos", acosl, 2 },
  { EP_CPU_VMATH_ARCTAN, "arctan", atanl, 2 },
  { EP_CPU_VMATH_ARCSINH, "arcsinh", asinhl, 2 },
  { EP_CPU_VMATH_ARCCOSH, "arccosh", acoshl, 2 },
  { EP_CPU_VMATH_ARCTANH, "arctanh", atanhl, 2 },
  /* 1 / (1 + exp (-x)) in the element type: three roundings */
  { EP_CPU_VMATH_SIGMOID, "sigmoid", sigmoid32, 4, sigmoid64 },
  { EP_CPU_VMATH_ERF, "erf", erfl, 2 },
  /* SLEEF has erfc to 1.5 ulp only */
  { EP_CPU_VMATH_ERFC, "erfc", erfcl, 2 },
};

/* Floats as integers in the order of their values: the difference of
 * two is their distance in ulps, denormals included. */
static gint64
ordered32 (gfloat x)
{
  gint32 i;

  memcpy (&i, &x, sizeof i);
  return i < 0 ? (gint64) G_MININT32 - i : i;
}

static gint64
ordered64 (gdouble x)
{
  gint64 i;

  memcpy (&i, &x, sizeof i);
  return i < 0 ? G_MININT64 - i : i;
}

/* NaN where libm gives NaN, the same infinity, the same signed zero,
 * else within @max_ulp of the correctly rounded value. */
static gboolean
agrees (gdouble got,
        gdouble expected,
        gboolean is_f32,
        guint max_ulp)
{
  gint64 distance;

  if (isnan (expected) || isnan (got))
    return isnan (expected) && isnan (got);
  if (isinf (expected) || expected == 0)
    {
      if (got == expected && signbit (got) == signbit (expected))
        return TRUE;
      /* one ulp from zero or the largest float is fine */
    }
  distance = is_f32 ? ordered32 ((gfloat) got) - ordered32 ((gfloat) expected)
                    : ordered64 (got) - ordered64 (expected);
  return ABS (distance) <= (gint64) max_ulp;
}

#define N_RANDOM 20000

static void
fill_inputs_f32 (gfloat *x,
                 gsize  *n,
                 GRand  *rand)
{
  const gfloat specials[] = {
    NAN, -NAN, INFINITY, -INFINITY, 0.0f, -0.0f, 1.0f, -1.0f, 0.5f, -0.5f, 2.0f,
    FLT_MIN, -FLT_MIN, FLT_MAX, -FLT_MAX, 1e-45f, -1e-45f, 1e-40f,
    88.72f, 88.73f, 89.0f, -87.3f, -103.9f, -104.0f, -110.0f, 3.14159265f, 1.5707964f,
    1e10f, -1e10f, 1e30f, 0.999999f, 1.000001f,
  };
  gsize k = 0;

  for (gsize i = 0; i < G_N_ELEMENTS (specials); i++)
    x[k++] = specials[i];
  /* every exponent, every sign */
  for (gsize i = 0; i < N_RANDOM; i++)
    {
      guint32 bits = g_rand_int (rand);

      memcpy (&x[k++], &bits, sizeof bits);
    }
  /* where the functions are most used */
  for (gsize i = 0; i < N_RANDOM; i++)
    x[k++] = (gfloat) g_rand_double_range (rand, -20, 20);
  for (gsize i = 0; i < N_RANDOM; i++)
    x[k++] = (gfloat) g_rand_double_range (rand, -1.1, 1.1);
  *n = k;
}

static void
fill_inputs_f64 (gdouble *x,
                 gsize   *n,
                 GRand   *rand)
{
  const gdouble specials[] = {
    NAN, -NAN, INFINITY, -INFINITY, 0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 2.0,
    DBL_MIN, -DBL_MIN, DBL_MAX, -DBL_MAX, 5e-324, -5e-324, 1e-310,
    709.78, 709.79, 710.0, -708.4, -745.1, -745.2, -750.0, 3.141592653589793, 1.5707963267948966,
    1e10, -1e10, 1e300, 0.9999999999, 1.0000000001,
  };
  gsize k = 0;

  for (gsize i = 0; i < G_N_ELEMENTS (specials); i++)
    x[k++] = specials[i];
  for (gsize i = 0; i < N_RANDOM; i++)
    {
      guint64 bits = ((guint64) g_rand_int (rand) << 32) | g_rand_int (rand);

      memcpy (&x[k++], &bits, sizeof bits);
    }
  for (gsize i = 0; i < N_RANDOM; i++)
    x[k++] = g_rand_double_range (rand, -20, 20);
  for (gsize i = 0; i < N_RANDOM; i++)
    x[k++] = g_rand_double_range (rand, -1.1, 1.1);
  *n = k;
}

static void
test_vmath_agrees_with_libm (void)
{
  gsize max_n = 3 * N_RANDOM + 64;
  g_autofree gfloat *x32 = g_new (gfloat, max_n);
  g_autofree gfloat *y32 = g_new (gfloat, max_n);
  g_autofree gdouble *x64 = g_new (gdouble, max_n);
  g_autofree gdouble *y64 = g_new (gdouble, max_n);
  g_autoptr(GRand) rand = g_rand_new_with_seed (2024);
  guint levels_tested = 0;
  gsize n32, n64;

  fill_inputs_f32 (x32, &n32, rand);
  fill_inputs_f64 (x64, &n64, rand);

  for (guint level = 0; level < 3; level++)
    for (guint f = 0; f < G_N_ELEMENTS (vmath_functions); f++)
      {
        EpCpuLoop loop;
        gconstpointer data;
        guint8 *ptrs[2];
        gint64 strides[2];

        if (!ep_cpu_vmath_lookup_at (vmath_functions[f].func, EP_DTYPE_FLOAT32, level, &loop, &data))
          continue;
        levels_tested |= 1u << level;

        /* float32, contiguous */
        ptrs[0] = (guint8 *) y32;
        ptrs[1] = (guint8 *) x32;
        strides[0] = strides[1] = sizeof (gfloat);
        loop (ptrs, strides, (gint64) n32, data);
        for (gsize i = 0; i < n32; i++)
          {
            gdouble expected = (gfloat) vmath_functions[f].reference (x32[i]);

            if (!agrees (y32[i], expected, TRUE, vmath_functions[f].max_ulp))
              g_error ("%s (float32 %.9g) at level %u: %.9g, libm %.9g",
                       vmath_functions[f].name, x32[i], level, y32[i], expected);
          }

        /* float32, every other element: through the buffer */
        strides[1] = 2 * sizeof (gfloat);
        loop (ptrs, strides, (gint64) n32 / 2, data);
        for (gsize i = 0; i < n32 / 2; i++)
          {
            gdouble expected = (gfloat) vmath_functions[f].reference (x32[2 * i]);

            g_assert_true (agrees (y32[i], expected, TRUE, vmath_functions[f].max_ulp));
          }

        /* float64 */
        g_assert_true (ep_cpu_vmath_lookup_at (vmath_functions[f].func, EP_DTYPE_FLOAT64, level, &loop, &data));
        ptrs[0] = (guint8 *) y64;
        ptrs[1] = (guint8 *) x64;
        strides[0] = strides[1] = sizeof (gdouble);
        loop (ptrs, strides, (gint64) n64, data);
        for (gsize i = 0; i < n64; i++)
          {
            gdouble expected = (gdouble) (vmath_functions[f].reference64 != NULL
                                          ? vmath_functions[f].reference64
                                          : vmath_functions[f].reference) (x64[i]);

            if (!agrees (y64[i], expected, FALSE, vmath_functions[f].max_ulp))
              g_error ("%s (float64 %.17g) at level %u: %.17g, libm %.17g",
                       vmath_functions[f].name, x64[i], level, y64[i], expected);
          }
      }

  if (levels_tested == 0)
    g_test_skip ("built without SLEEF, or not on x86-64");
  else
    g_test_message ("instruction sets tested: %s%s%s", levels_tested & 1 ? "avx512f " : "",
                    levels_tested & 2 ? "avx2 " : "", levels_tested & 4 ? "sse2" : "");
}

/* Every length from 0 to 40 at every level: the masked and buffered
 * tails write exactly n elements. */
static void
test_vmath_tails (void)
{
  for (guint level = 0; level < 3; level++)
    for (gint64 n = 0; n <= 40; n++)
      {
        gfloat x[48], y[48];
        guint8 *ptrs[2] = { (guint8 *) y, (guint8 *) x };
        gint64 strides[2] = { sizeof (gfloat), sizeof (gfloat) };
        EpCpuLoop loop;
        gconstpointer data;

        if (!ep_cpu_vmath_lookup_at (EP_CPU_VMATH_EXP, EP_DTYPE_FLOAT32, level, &loop, &data))
          continue;
        for (guint i = 0; i < G_N_ELEMENTS (x); i++)
          {
            x[i] = i * 0.1f;
            y[i] = -1.0f;
          }
        loop (ptrs, strides, n, data);
        for (gint64 i = 0; i < (gint64) G_N_ELEMENTS (y); i++)
          if (i < n)
            g_assert_cmpfloat_with_epsilon (y[i], expf (x[i]), 1e-5f * expf (x[i]));
          else
            g_assert_cmpfloat (y[i], ==, -1.0f);
      }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/cpu/cache/reuses-a-class", test_cache_reuses_a_class);
  g_test_add_func ("/cpu/cache/classes-hold-their-size", test_cache_classes_hold_their_size);
  g_test_add_func ("/cpu/cache/is-bounded", test_cache_is_bounded);
  g_test_add_func ("/cpu/cache/trims-idle-classes", test_cache_trims_idle_classes);
  g_test_add_func ("/cpu/cache/threads", test_cache_threads);
  g_test_add_func ("/cpu/parallel/runs-every-task-once", test_parallel_runs_every_task_once);
  g_test_add_func ("/cpu/parallel/nested", test_parallel_nested);
  g_test_add_func ("/cpu/parallel/several-submitters", test_parallel_several_submitters);
  g_test_add_func ("/cpu/parallel/after-fork", test_parallel_after_fork);
  g_test_add_func ("/cpu/parallel/results-do-not-depend-on-threads", test_results_do_not_depend_on_threads);
  g_test_add_func ("/cpu/reduce/extrema-keep-nan-and-zero-signs", test_extrema_keep_nan_and_zero_signs);
  g_test_add_func ("/cpu/softmax/fast-rows", test_softmax_fast_rows);
  g_test_add_func ("/cpu/pool/results-do-not-depend-on-threads", test_pool_does_not_depend_on_threads);
  g_test_add_func ("/cpu/fft/results-do-not-depend-on-threads", test_fft_does_not_depend_on_threads);
  g_test_add_func ("/cpu/vmath/agrees-with-libm", test_vmath_agrees_with_libm);
  g_test_add_func ("/cpu/vmath/tails", test_vmath_tails);
  return g_test_run ();
}
