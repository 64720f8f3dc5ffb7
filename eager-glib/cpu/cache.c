/* cache.c: a size-class cache of CPU buffers
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Eager code allocates a result per op and drops it soon after, so the
 * same few sizes come and go all the time. Returning big buffers to the
 * system and asking again costs a page fault per 4 KiB on the next
 * touch (a 16 MiB result: 4096 faults, more than the op itself), and
 * small ones cost a trip through malloc. Released buffers therefore wait
 * here, in size classes, for the next allocation of their class.
 *
 * - Classes: four per power of two (sizes 1.25, 1.5, 1.75 and 2 times a
 *   power of two), so a buffer is at most 25% larger than asked.
 * - Bounded: at most `limit` bytes wait (EP_CPU_CACHE_BYTES, default
 *   64 MiB or a sixteenth of the memory, whichever is smaller); a
 *   release that would go over it frees the buffer instead. That holds
 *   a few buffers of the largest tensors a loop makes, and no more:
 *   memory released in bulk, as a garbage collector does, mostly goes
 *   back to the system at once.
 * - Trimmed: about once a second (checked on allocation), each class
 *   gives back as many buffers as stayed unused through the whole last
 *   interval, so a program that stops using a size stops holding it.
 *   ep_cpu_cache_trim() empties the cache.
 * - Thread-safe: one mutex; buffers may be released on any thread.
 * - Large buffers (2 MiB and more) come straight from mmap, marked for
 *   transparent huge pages: 512 times fewer faults on first touch.
 * - Under AddressSanitizer waiting buffers are poisoned (all but the
 *   link in their first 8 bytes), so a use after release is still
 *   reported.
 */

#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <pthread.h>
#include <unistd.h>

#include "ep-cpu-private.h"
#include "ep-fault-private.h"

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/asan_interface.h>
#define POISON(p, n) ASAN_POISON_MEMORY_REGION ((p), (n))
#define UNPOISON(p, n) ASAN_UNPOISON_MEMORY_REGION ((p), (n))
#else
#define POISON(p, n) ((void) (p), (void) (n))
#define UNPOISON(p, n) ((void) (p), (void) (n))
#endif

#define MIN_CLASS_SHIFT 6                     /* 64 bytes */
#define N_CLASSES ((48 - MIN_CLASS_SHIFT) * 4)
#define LARGE_BUFFER (2u << 20)               /* from mmap, huge pages */
#define DEFAULT_LIMIT ((gsize) 64 << 20)
#define TRIM_INTERVAL_US G_USEC_PER_SEC
#define TRIM_CHECK_EVERY 64

/* A waiting buffer holds the link to the next one of its class. */
typedef struct _Waiting Waiting;
struct _Waiting
{
  Waiting *next;
};

typedef struct
{
  Waiting *head;
  guint    count;
  guint    low_water;   /* fewest waiting since the last trim */
} SizeClass;

static struct
{
  GMutex    lock;
  gsize     limit;
  gsize     cached;     /* bytes waiting */
  guint     ticks;
  gint64    last_trim;
  SizeClass classes[N_CLASSES];
} cache;

static gsize
class_size (guint index)
{
  guint shift = index / 4 + MIN_CLASS_SHIFT;
  guint quarter = index % 4;

  /* index 0 is 64 bytes; then 80, 96, 112, 128, 160, … */
  if (index == 0)
    return (gsize) 1 << MIN_CLASS_SHIFT;
  if (quarter == 0)
    return (gsize) 1 << shift;
  return ((gsize) 1 << shift) + quarter * ((gsize) 1 << (shift - 2));
}

/* The smallest class that holds @nbytes, or -1 when it is beyond every
 * class. */
static gint
class_index (gsize nbytes)
{
  guint shift, quarter;
  gsize base;

  if (nbytes <= ((gsize) 1 << MIN_CLASS_SHIFT))  /* 0 too */
    return 0;

  shift = 63 - __builtin_clzll ((unsigned long long) (nbytes - 1));   /* 2^shift < nbytes <= 2^(shift+1) */
  base = (gsize) 1 << shift;
  quarter = (guint) ((nbytes - base + (base >> 2) - 1) / (base >> 2)); /* 1 … 4 */

  if (shift + 1 - MIN_CLASS_SHIFT >= N_CLASSES / 4)
    return -1;

  /* sizes base * (1 + quarter/4): 4/4 is the next power of two */
  return (gint) ((shift - MIN_CLASS_SHIFT) * 4 + quarter);
}

static gpointer
system_alloc (gsize size)
{
  gpointer data = NULL;

  if (size >= LARGE_BUFFER)
    {
      data = mmap (NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
      if (data == MAP_FAILED)
        return NULL;
#ifdef MADV_HUGEPAGE
      madvise (data, size, MADV_HUGEPAGE);
#endif
      return data;
    }

  if (posix_memalign (&data, EP_CPU_ALIGNMENT, size) != 0)
    return NULL;
  return data;
}

static void
system_free (gpointer data,
             gsize    size)
{
  if (size >= LARGE_BUFFER)
    munmap (data, size);
  else
    free (data);
}

static void
lock_for_fork (void)
{
  g_mutex_lock (&cache.lock);
}

static void
unlock_after_fork (void)
{
  g_mutex_unlock (&cache.lock);
}

static void
cache_init (void)
{
  static gsize initialized;

  if (g_once_init_enter (&initialized))
    {
      const char *env = g_getenv ("EP_CPU_CACHE_BYTES");
      long pages = sysconf (_SC_PHYS_PAGES);
      long page_size = sysconf (_SC_PAGE_SIZE);
      gsize limit = DEFAULT_LIMIT;

      if (pages > 0 && page_size > 0)
        limit = MIN (limit, (gsize) pages * (gsize) page_size / 16);
      if (env != NULL)
        limit = g_ascii_strtoull (env, NULL, 10);

      g_mutex_init (&cache.lock);
      cache.limit = limit;
      cache.last_trim = g_get_monotonic_time ();
      /* A child forked while another thread held the lock would find it
       * locked forever. */
      pthread_atfork (lock_for_fork, unlock_after_fork, unlock_after_fork);
      g_once_init_leave (&initialized, 1);
    }
}

/* Frees @n buffers of class @index; the lock is held. */
static void
drop_locked (guint  index,
             guint  n)
{
  SizeClass *c = &cache.classes[index];
  gsize size = class_size (index);

  for (guint i = 0; i < n && c->head != NULL; i++)
    {
      Waiting *w = c->head;

      UNPOISON (w, size);
      c->head = w->next;
      c->count--;
      cache.cached -= size;
      system_free (w, size);
    }
  c->low_water = MIN (c->low_water, c->count);
}

static void
trim_locked (gint64 now)
{
  for (guint i = 0; i < N_CLASSES; i++)
    {
      SizeClass *c = &cache.classes[i];

      drop_locked (i, c->low_water);
      c->low_water = c->count;
    }
  cache.last_trim = now;
}

/*
 * ep_cpu_cache_alloc:
 * @nbytes: the size asked for
 *
 * Returns: a buffer of at least @nbytes aligned to %EP_CPU_ALIGNMENT, or
 *   %NULL when the system has no memory left
 */
gpointer
ep_cpu_cache_alloc (gsize nbytes)
{
  gint index = class_index (nbytes);
  SizeClass *c;
  Waiting *w = NULL;
  gsize size;

  if (ep_fault_allocation_fails ())
    return NULL;
  if (index < 0)
    return system_alloc (nbytes);

  cache_init ();
  size = class_size (index);
  c = &cache.classes[index];

  g_mutex_lock (&cache.lock);
  if (++cache.ticks % TRIM_CHECK_EVERY == 0)
    {
      gint64 now = g_get_monotonic_time ();

      if (now - cache.last_trim >= TRIM_INTERVAL_US)
        trim_locked (now);
    }
  if (c->head != NULL)
    {
      w = c->head;
      UNPOISON (w, sizeof *w);
      c->head = w->next;
      c->count--;
      c->low_water = MIN (c->low_water, c->count);
      cache.cached -= size;
    }
  g_mutex_unlock (&cache.lock);

  if (w == NULL)
    return system_alloc (size);

  UNPOISON (w, size);
  return w;
}

/*
 * ep_cpu_cache_release:
 * @data: a buffer from ep_cpu_cache_alloc()
 * @nbytes: the size it was asked for with
 *
 * Keeps @data for the next allocation of its class, or frees it when
 * the cache is full.
 */
void
ep_cpu_cache_release (gpointer data,
                      gsize    nbytes)
{
  gint index = class_index (nbytes);
  gsize size;

  if (index < 0)
    {
      system_free (data, nbytes);
      return;
    }

  size = class_size (index);
  g_mutex_lock (&cache.lock);
  if (cache.cached + size <= cache.limit)
    {
      SizeClass *c = &cache.classes[index];
      Waiting *w = data;

      w->next = c->head;
      c->head = w;
      c->count++;
      cache.cached += size;
      /* the link stays readable: LeakSanitizer ignores pointers in
       * poisoned memory, and would report the buffers behind it */
      POISON ((guint8 *) data + sizeof *w, size - sizeof *w);
      data = NULL;
    }
  g_mutex_unlock (&cache.lock);

  if (data != NULL)
    system_free (data, size);
}

/*
 * ep_cpu_cache_trim:
 *
 * Gives every waiting buffer back to the system.
 */
void
ep_cpu_cache_trim (void)
{
  cache_init ();

  g_mutex_lock (&cache.lock);
  for (guint i = 0; i < N_CLASSES; i++)
    drop_locked (i, G_MAXUINT);
  g_mutex_unlock (&cache.lock);
}

/*
 * ep_cpu_cache_get_stats:
 * @cached_bytes: (out): bytes waiting
 * @limit: (out): the most that may wait
 */
void
ep_cpu_cache_get_stats (gsize *cached_bytes,
                        gsize *limit)
{
  cache_init ();

  g_mutex_lock (&cache.lock);
  *cached_bytes = cache.cached;
  *limit = cache.limit;
  g_mutex_unlock (&cache.lock);
}
