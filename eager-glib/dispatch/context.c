/* dispatch/context.c: the per-thread context
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * One EpContext per thread holds everything that is per thread: the
 * recorder stack, the device scopes, the gradient context, the storage
 * spares. The GPrivate owns it and frees it when the thread exits; the
 * plain thread-local is the fast way to it, one load on every op.
 *
 * Not here: cpu/parallel.c's `in_task`, the CPU backend's flag for its
 * own workers (a task that asks for a job runs it alone). It belongs to
 * the backend, not to the user's thread, and the workers never dispatch
 * ops, so they never need a context.
 */

#include "config.h"

#include "ep-context-private.h"
#include "ep-memory-private.h"
#include "ep-storage-private.h"

_Thread_local EpContext *ep_context_this_thread;

static void
context_free (gpointer data)
{
  EpContext *self = data;

  /* Scopes left open close, releasing what they hold. */
  ep_tidy_close_all (self);
  /* Recorders are not owned: tapes belong to the user. */
  g_clear_pointer (&self->scopes, g_ptr_array_unref);
  /* Last, and through the context still in place: what went before may
   * have freed storage, which comes back here as spares. */
  ep_storage_free_spares (&self->spares, &self->n_spares);

  /* Whatever runs after this on the thread (another thread-exit
   * destructor freeing a tensor) gets a fresh context, which the
   * GPrivate frees in turn. */
  if (ep_context_this_thread == self)
    ep_context_this_thread = NULL;
  g_free (self);
}

static GPrivate context_key = G_PRIVATE_INIT (context_free);

/* The slow path of ep_context_get(): the thread's first use. */
EpContext *
ep_context_new_for_thread (void)
{
  EpContext *self = g_new0 (EpContext, 1);

  g_private_set (&context_key, self);
  ep_context_this_thread = self;

  return self;
}

void
ep_context_push_device (EpContext *self,
                        EpDevice  *device)
{
  if (self->scopes == NULL)
    self->scopes = g_ptr_array_new_with_free_func (g_object_unref);

  g_ptr_array_add (self->scopes, g_object_ref (device));
  self->device = device;
}

/* The caller checked that a scope is open. */
void
ep_context_pop_device (EpContext *self)
{
  GPtrArray *scopes = self->scopes;
  EpDevice *device = g_ptr_array_steal_index (scopes, scopes->len - 1);

  self->device = scopes->len > 0 ? g_ptr_array_index (scopes, scopes->len - 1) : NULL;
  g_object_unref (device);
}
