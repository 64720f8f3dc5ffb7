/* test-cpu-perf.c: the CPU performance machinery keeps its promises
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The buffer cache (reuse, bound, trimming, threads).
 */

#include <eager-glib/eager-glib.h>
#include <string.h>

#include "ep-cpu-private.h"

static void
test_cache_reuses_a_class (void)
{
  gpointer p, q;

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

static void
test_cache_classes_hold_their_size (void)
{
  /* every size up to a few KiB, and around powers of two beyond */
  for (gsize n = 0; n < 5000; n++)
    {
      guint8 *p = ep_cpu_cache_alloc (n);

      g_assert_nonnull (p);
      if (n > 0)
        {
          p[0] = 1;
          p[n - 1] = 2;
        }
      ep_cpu_cache_release (p, n);
    }
  for (guint shift = 12; shift < 26; shift++)
    for (gint delta = -1; delta <= 1; delta++)
      {
        gsize n = ((gsize) 1 << shift) + delta;
        guint8 *p = ep_cpu_cache_alloc (n);

        g_assert_nonnull (p);
        p[n - 1] = 3;
        ep_cpu_cache_release (p, n);
      }
  ep_cpu_cache_trim ();
}

static void
test_cache_is_bounded (void)
{
  const gsize size = 16 << 20;
  gpointer buffers[64];
  gsize cached, limit;

  ep_cpu_cache_get_stats (&cached, &limit);
  g_assert_cmpuint (limit, <=, (gsize) 256 << 20);

  /* more than the limit in one class: only what fits waits */
  for (guint i = 0; i < G_N_ELEMENTS (buffers); i++)
    buffers[i] = ep_cpu_cache_alloc (size);
  for (guint i = 0; i < G_N_ELEMENTS (buffers); i++)
    ep_cpu_cache_release (buffers[i], size);

  ep_cpu_cache_get_stats (&cached, &limit);
  g_assert_cmpuint (cached, <=, limit);
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

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/cpu/cache/reuses-a-class", test_cache_reuses_a_class);
  g_test_add_func ("/cpu/cache/classes-hold-their-size", test_cache_classes_hold_their_size);
  g_test_add_func ("/cpu/cache/is-bounded", test_cache_is_bounded);
  g_test_add_func ("/cpu/cache/trims-idle-classes", test_cache_trims_idle_classes);
  g_test_add_func ("/cpu/cache/threads", test_cache_threads);
  return g_test_run ();
}
