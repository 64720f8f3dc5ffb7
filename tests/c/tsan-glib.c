/* tsan-glib.c: GLib's locks as ThreadSanitizer sees them
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * GLib's GMutex, GCond and GRecMutex wait on futexes directly, and
 * g_once_init_leave() publishes with an atomic store inside GLib, which is
 * not instrumented: ThreadSanitizer sees none of it, and everything a
 * GMutex guards in eager-glib would look racy. Linked into the tests of
 * the ThreadSanitizer build (tests/c/meson.build), these definitions take
 * the place of GLib's for the code linked into the test (eager-glib's
 * internal library): each calls GLib's own and tells ThreadSanitizer
 * what it acquired or released. GLib's calls among its own functions do
 * not come here; GLib is not instrumented, so they need not.
 */

#define _GNU_SOURCE
#include <dlfcn.h>
#include <glib-object.h>
#include <sanitizer/tsan_interface.h>

static void     (*real_mutex_lock) (GMutex *);
static gboolean (*real_mutex_trylock) (GMutex *);
static void     (*real_mutex_unlock) (GMutex *);
static void     (*real_rec_mutex_lock) (GRecMutex *);
static gboolean (*real_rec_mutex_trylock) (GRecMutex *);
static void     (*real_rec_mutex_unlock) (GRecMutex *);
static void     (*real_cond_wait) (GCond *, GMutex *);
static gboolean (*real_cond_wait_until) (GCond *, GMutex *, gint64);
static void     (*real_once_init_leave) (volatile void *, gsize);
static void     (*real_object_unref) (gpointer);

/* before main() and before any thread: the pointers are never written
 * again */
__attribute__ ((constructor)) static void
find_glib (void)
{
  real_mutex_lock = dlsym (RTLD_NEXT, "g_mutex_lock");
  real_mutex_trylock = dlsym (RTLD_NEXT, "g_mutex_trylock");
  real_mutex_unlock = dlsym (RTLD_NEXT, "g_mutex_unlock");
  real_rec_mutex_lock = dlsym (RTLD_NEXT, "g_rec_mutex_lock");
  real_rec_mutex_trylock = dlsym (RTLD_NEXT, "g_rec_mutex_trylock");
  real_rec_mutex_unlock = dlsym (RTLD_NEXT, "g_rec_mutex_unlock");
  real_cond_wait = dlsym (RTLD_NEXT, "g_cond_wait");
  real_cond_wait_until = dlsym (RTLD_NEXT, "g_cond_wait_until");
  real_once_init_leave = dlsym (RTLD_NEXT, "g_once_init_leave");
  real_object_unref = dlsym (RTLD_NEXT, "g_object_unref");
}

void
g_mutex_lock (GMutex *mutex)
{
  real_mutex_lock (mutex);
  __tsan_acquire (mutex);
}

gboolean
g_mutex_trylock (GMutex *mutex)
{
  if (!real_mutex_trylock (mutex))
    return FALSE;
  __tsan_acquire (mutex);
  return TRUE;
}

void
g_mutex_unlock (GMutex *mutex)
{
  __tsan_release (mutex);
  real_mutex_unlock (mutex);
}

void
g_rec_mutex_lock (GRecMutex *mutex)
{
  real_rec_mutex_lock (mutex);
  __tsan_acquire (mutex);
}

gboolean
g_rec_mutex_trylock (GRecMutex *mutex)
{
  if (!real_rec_mutex_trylock (mutex))
    return FALSE;
  __tsan_acquire (mutex);
  return TRUE;
}

void
g_rec_mutex_unlock (GRecMutex *mutex)
{
  __tsan_release (mutex);
  real_rec_mutex_unlock (mutex);
}

void
g_cond_wait (GCond  *cond,
             GMutex *mutex)
{
  __tsan_release (mutex);
  real_cond_wait (cond, mutex);
  __tsan_acquire (mutex);
}

gboolean
g_cond_wait_until (GCond  *cond,
                   GMutex *mutex,
                   gint64  end_time)
{
  gboolean signalled;

  __tsan_release (mutex);
  signalled = real_cond_wait_until (cond, mutex, end_time);
  __tsan_acquire (mutex);
  return signalled;
}

/* g_once_init_enter() reads the location with an atomic load in the
 * caller's (instrumented) code: a release on the same address pairs
 * with it. */
void
(g_once_init_leave) (volatile void *location,
                     gsize          result)
{
  __tsan_release ((void *) location);
  real_once_init_leave (location, result);
}

/* GObject's reference count is an atomic inside GLib: the thread that
 * drops the last reference (a trainer's worker freeing its trace, GIO's
 * tasks) must be seen to come after the other holders' last use. Each
 * unref releases what its thread did to the object and acquires what
 * the others released before (without reading the object: the count may
 * reach 0 on another thread at any moment). */
void
g_object_unref (gpointer object)
{
  __tsan_release (object);
  __tsan_acquire (object);
  real_object_unref (object);
}
