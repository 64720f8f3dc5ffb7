/* interop.c: would running independent branches of a graph on two cores
 * (inter-op parallelism) pay on this machine?
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Usage: _build/bench/ep-bench-interop [ROUNDS]
 *
 * Two independent branches, A and B, run one after the other on this
 * thread (each op free to use every core, as a replay does today), then
 * concurrently: B on a worker thread woken for it, A here, then a wait
 * for B. That is the best an inter-op scheduler could do: the waking and
 * the waiting are its cost, and ops running side by side share the two
 * cores and the memory bus. Two sizes: small branches (20 elementwise
 * ops on 200×2 floats, like the HMC sampler's) and large ones (exp of
 * 4M floats, then a sum). Prints the best of ROUNDS rounds of each, in
 * microseconds.
 */

#include <eager-glib/eager-glib.h>

#include <stdio.h>
#include <stdlib.h>

typedef struct
{
  EpTensor *x;
  guint     n_ops;
} Branch;

static void
run_branch (const Branch *branch)
{
  EpTensor *value = g_object_ref (branch->x);

  for (guint k = 0; k < branch->n_ops; k++)
    {
      EpTensor *next = k % 2 == 0 ? ep_tensor_exp (value, NULL) : ep_tensor_mul_scalar (value, 0.5, NULL);

      g_object_unref (value);
      value = next;
    }
  g_object_unref (value);
}

/* A worker that runs branch B when told to */
typedef struct
{
  GMutex        lock;
  GCond         cond;
  const Branch *work;
  gboolean      done;
  gboolean      quit;
} Worker;

static gpointer
worker_main (gpointer data)
{
  Worker *w = data;

  g_mutex_lock (&w->lock);
  for (;;)
    {
      while (w->work == NULL && !w->quit)
        g_cond_wait (&w->cond, &w->lock);
      if (w->quit)
        break;
      g_mutex_unlock (&w->lock);
      run_branch (w->work);
      g_mutex_lock (&w->lock);
      w->work = NULL;
      w->done = TRUE;
      g_cond_broadcast (&w->cond);
    }
  g_mutex_unlock (&w->lock);
  return NULL;
}

static double
now_us (void)
{
  return g_get_monotonic_time ();
}

static double
sequential (const Branch *a,
            const Branch *b)
{
  double start = now_us ();

  run_branch (a);
  run_branch (b);
  return now_us () - start;
}

static double
concurrent (Worker       *w,
            const Branch *a,
            const Branch *b)
{
  double start = now_us ();

  g_mutex_lock (&w->lock);
  w->done = FALSE;
  w->work = b;
  g_cond_broadcast (&w->cond);
  g_mutex_unlock (&w->lock);

  run_branch (a);

  g_mutex_lock (&w->lock);
  while (!w->done)
    g_cond_wait (&w->cond, &w->lock);
  g_mutex_unlock (&w->lock);
  return now_us () - start;
}

static EpTensor *
filled (gint64 rows,
        gint64 cols)
{
  const gint64 shape[2] = { rows, cols };

  return ep_full (shape, 2, 0.25, EP_DTYPE_FLOAT32, NULL);
}

int
main (int    argc,
      char **argv)
{
  int rounds = argc > 1 ? atoi (argv[1]) : 200;
  Worker worker = { 0 };
  GThread *thread;
  struct { const char *name; gint64 rows, cols; guint n_ops; int inner; } sizes[] = {
    { "small: 20 ops on 200x2", 200, 2, 20, 50 },
    { "large: 2 ops on 4096x1024", 4096, 1024, 2, 1 },
  };

  g_mutex_init (&worker.lock);
  g_cond_init (&worker.cond);
  thread = g_thread_new ("interop", worker_main, &worker);

  for (guint s = 0; s < G_N_ELEMENTS (sizes); s++)
    {
      Branch a = { filled (sizes[s].rows, sizes[s].cols), sizes[s].n_ops };
      Branch b = { filled (sizes[s].rows, sizes[s].cols), sizes[s].n_ops };
      double best_seq = G_MAXDOUBLE, best_con = G_MAXDOUBLE;

      for (int r = 0; r < rounds; r++)
        {
          double seq = 0, con = 0;

          for (int i = 0; i < sizes[s].inner; i++)
            seq += sequential (&a, &b);
          for (int i = 0; i < sizes[s].inner; i++)
            con += concurrent (&worker, &a, &b);
          best_seq = MIN (best_seq, seq / sizes[s].inner);
          best_con = MIN (best_con, con / sizes[s].inner);
        }
      printf ("%-28s one after the other %9.1f µs, side by side %9.1f µs (%.2f×)\n",
              sizes[s].name, best_seq, best_con, best_seq / best_con);
      g_object_unref (a.x);
      g_object_unref (b.x);
    }

  g_mutex_lock (&worker.lock);
  worker.quit = TRUE;
  g_cond_broadcast (&worker.cond);
  g_mutex_unlock (&worker.lock);
  g_thread_join (thread);
  return 0;
}
