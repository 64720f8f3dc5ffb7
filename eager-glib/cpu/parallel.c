/* parallel.c: worker threads for CPU kernels
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * ep_cpu_parallel_for() runs tasks 0 … n-1 of a job on the calling
 * thread and on a pool of workers, and returns when all are done. Which
 * thread runs which task is left to chance, so kernels split their work
 * into tasks whose results do not depend on that (and reductions split
 * so that each output is computed by one task, in the order a single
 * thread would use): results are the same for every thread count.
 *
 * - Threads: EP_NUM_THREADS, else one per processor; the workers start
 *   on the first job. 1 means no workers at all.
 * - One job at a time: a thread that finds the pool busy (another
 *   thread's job), or a task that asks for a job itself, runs its tasks
 *   alone.
 * - Workers spin for a short while after a job, since eager code sends
 *   the next one soon, then sleep on a condition variable; the thread
 *   that submitted a job spins longer for its end.
 * - A child process after fork() starts with no workers and makes its
 *   own on its first job.
 */

#include "config.h"

#include <pthread.h>
#include <stdlib.h>

#include "ep-cpu-private.h"

/* A pause is about 40 ns here. An idle worker spins about 40 µs for
 * the next job before it sleeps (eager code sends the next one soon;
 * longer would take the core from other processes). The submitter,
 * its own tasks done, spins up to about 1 ms for the workers still in
 * one: it has nothing else to do, and waking it from a condition
 * variable costs tens of microseconds, a tenth of a 4M-element op. */
#define WORKER_SPIN 1000
#define SUBMITTER_SPIN 25000

#if defined(__x86_64__) || defined(__i386__)
#define cpu_relax() __builtin_ia32_pause ()
#else
#define cpu_relax() ((void) 0)
#endif

typedef struct
{
  EpCpuTaskFunc func;
  gpointer      data;
  guint         n_tasks;
} Job;

static struct
{
  GMutex   submit;        /* held by the thread whose job runs */
  GMutex   lock;          /* guards the fields below */
  GCond    wake;          /* workers wait here for a job */
  GCond    idle;          /* the submitter waits here for the workers */
  guint    n_threads;     /* the submitter and the workers */
  guint    n_started;     /* workers running */
  Job      job;
  gint     generation;    /* a new job: atomic reads while spinning */
  gint     next_task;     /* atomic */
  gint     n_busy;        /* workers inside the job: atomic reads */
} pool;

static _Thread_local gboolean in_task;

static guint
threads_from_environment (void)
{
  const char *env = g_getenv ("EP_NUM_THREADS");
  guint n = g_get_num_processors ();

  if (env != NULL)
    {
      guint64 value = g_ascii_strtoull (env, NULL, 10);

      if (value >= 1)
        n = (guint) MIN (value, 256);
    }

  return MAX (n, 1);
}

static void
lock_for_fork (void)
{
  g_mutex_lock (&pool.submit);
  g_mutex_lock (&pool.lock);
}

static void
unlock_in_parent (void)
{
  g_mutex_unlock (&pool.lock);
  g_mutex_unlock (&pool.submit);
}

/* The workers did not come along: forget them. */
static void
unlock_in_child (void)
{
  pool.n_started = 0;
  pool.n_busy = 0;
  pool.job.n_tasks = 0;
  g_mutex_unlock (&pool.lock);
  g_mutex_unlock (&pool.submit);
}

static void
pool_init (void)
{
  static gsize initialized;

  if (g_once_init_enter (&initialized))
    {
      g_mutex_init (&pool.submit);
      g_mutex_init (&pool.lock);
      g_cond_init (&pool.wake);
      g_cond_init (&pool.idle);
      pool.n_threads = threads_from_environment ();
      pthread_atfork (lock_for_fork, unlock_in_parent, unlock_in_child);
      g_once_init_leave (&initialized, 1);
    }
}

static void
run_tasks (const Job *job)
{
  gint index;

  while ((index = g_atomic_int_add (&pool.next_task, 1)) < (gint) job->n_tasks)
    job->func (job->data, (guint) index);
}

static gpointer
worker_main (gpointer data)
{
  gint seen = GPOINTER_TO_INT (data);

  in_task = TRUE;
  for (;;)
    {
      Job job;

      for (guint spin = 0; spin < WORKER_SPIN && g_atomic_int_get (&pool.generation) == seen; spin++)
        cpu_relax ();

      g_mutex_lock (&pool.lock);
      while (pool.generation == seen)
        g_cond_wait (&pool.wake, &pool.lock);
      seen = pool.generation;
      /* Too late for that job: its submitter closed it, and only
       * workers counted in n_busy may touch next_task. */
      if (pool.job.n_tasks == 0)
        {
          g_mutex_unlock (&pool.lock);
          continue;
        }
      job = pool.job;
      g_atomic_int_inc (&pool.n_busy);
      g_mutex_unlock (&pool.lock);

      run_tasks (&job);

      if (g_atomic_int_dec_and_test (&pool.n_busy))
        {
          g_mutex_lock (&pool.lock);
          g_cond_signal (&pool.idle);
          g_mutex_unlock (&pool.lock);
        }
    }

  return NULL;
}

/* Starts the workers not yet running; pool.lock is held. */
static void
start_workers_locked (void)
{
  while (pool.n_started + 1 < pool.n_threads)
    {
      char name[16];
      GThread *thread;

      g_snprintf (name, sizeof name, "ep-cpu-%u", pool.n_started + 1);
      thread = g_thread_try_new (name, worker_main, GINT_TO_POINTER (pool.generation), NULL);
      if (thread == NULL)
        {
          /* run with the workers there are */
          pool.n_threads = pool.n_started + 1;
          return;
        }
      g_thread_unref (thread);
      pool.n_started++;
    }
}

/*
 * ep_cpu_get_n_threads:
 *
 * Returns: how many threads ep_cpu_parallel_for() uses, the caller
 *   included
 */
guint
ep_cpu_get_n_threads (void)
{
  pool_init ();
  return g_atomic_int_get (&pool.n_threads);
}

/*
 * ep_cpu_set_n_threads:
 * @n_threads: 1 or more
 *
 * Changes the number of threads later jobs use (for tests and
 * benchmarks; EP_NUM_THREADS sets it for a process). 1 runs every job
 * on its caller; workers already started stay and keep helping with
 * jobs when the number goes up again.
 */
void
ep_cpu_set_n_threads (guint n_threads)
{
  g_return_if_fail (n_threads >= 1);

  pool_init ();
  g_mutex_lock (&pool.submit);
  g_atomic_int_set (&pool.n_threads, n_threads);
  g_mutex_unlock (&pool.submit);
}

/*
 * ep_cpu_parallel_for:
 * @n_tasks: how many tasks
 * @func: runs one task: called with @data and an index below @n_tasks
 * @data: for @func
 *
 * Runs every task once, on this thread and on the workers, and returns
 * when all are done.
 */
void
ep_cpu_parallel_for (guint         n_tasks,
                     EpCpuTaskFunc func,
                     gpointer      data)
{
  Job job = { func, data, n_tasks };

  pool_init ();

  if (n_tasks > 1 && !in_task && g_atomic_int_get (&pool.n_threads) > 1
      && g_mutex_trylock (&pool.submit))
    {
      gboolean alone;

      g_mutex_lock (&pool.lock);
      start_workers_locked ();
      alone = pool.n_threads <= 1;
      if (!alone)
        {
          pool.job = job;
          g_atomic_int_set (&pool.next_task, 0);
          g_atomic_int_inc (&pool.generation);
          g_cond_broadcast (&pool.wake);
        }
      g_mutex_unlock (&pool.lock);

      if (!alone)
        {
          in_task = TRUE;
          run_tasks (&job);
          in_task = FALSE;

          /* Every task has been taken; wait for the workers still in
           * one, then close the job. */
          for (guint spin = 0; spin < SUBMITTER_SPIN && g_atomic_int_get (&pool.n_busy) > 0; spin++)
            cpu_relax ();
          g_mutex_lock (&pool.lock);
          while (g_atomic_int_get (&pool.n_busy) > 0)
            g_cond_wait (&pool.idle, &pool.lock);
          pool.job.n_tasks = 0;
          g_mutex_unlock (&pool.lock);
          g_mutex_unlock (&pool.submit);
          return;
        }
      g_mutex_unlock (&pool.submit);
    }

  for (guint i = 0; i < n_tasks; i++)
    func (data, i);
}
