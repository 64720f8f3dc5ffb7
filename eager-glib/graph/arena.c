/* graph/arena.c: the buffers a frame keeps between replays
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * A replay used to give each intermediate's storage back to its device
 * after its last use and ask the device again at the next replay: for
 * big tensors the CPU cache (cpu/cache.c) may have let them go in the
 * meantime (bounded, trimmed), which costs page faults, and every
 * allocation takes its lock. A frame keeps them instead, in an arena:
 * storage nothing else holds goes into it when its slot dies, and the
 * next op of the replay (or of the next one) takes the smallest buffer
 * that fits. Nothing is planned at trace time: a relaxed graph changes
 * shapes between replays, so buffers are matched by byte size when they
 * are asked for.
 *
 * - Only storage held by nothing else goes in (ep_storage_is_exclusive:
 *   one reference, not borrowed bytes): a tensor given to the caller, a
 *   view still alive, a variable's value, a constant or an input all
 *   hold a reference of their own, and are never written again.
 * - A buffer serves sizes from half its size to its size, so a small
 *   tensor does not sit in a huge buffer.
 * - Bounded: at most @capacity buffers; giving one more lets the
 *   oldest go back to its device.
 */

#include "config.h"

#include "ep-arena-private.h"
#include "ep-device-private.h"

struct _EpArena
{
  GPtrArray *buffers;   /* EpStorage, oldest first */
  guint      capacity;
};

EpArena *
ep_arena_new (guint capacity)
{
  EpArena *self = g_new0 (EpArena, 1);

  self->buffers = g_ptr_array_new_with_free_func ((GDestroyNotify) ep_storage_unref);
  self->capacity = MAX (capacity, 1);
  return self;
}

void
ep_arena_free (EpArena *self)
{
  g_ptr_array_unref (self->buffers);
  g_free (self);
}

/* Whether @storage is held by one reference only (the caller's), on
 * memory of its own: whoever holds that reference may write into it. */
gboolean
ep_storage_is_exclusive (EpStorage *storage)
{
  return storage->borrowed == NULL && g_atomic_ref_count_compare (&storage->ref_count, 1);
}

/* The smallest buffer on @device that holds @nbytes, and not more than
 * twice that; NULL when none does. (transfer full) */
EpStorage *
ep_arena_take (EpArena  *self,
               EpDevice *device,
               gsize     nbytes)
{
  guint best = G_MAXUINT;

  for (guint i = 0; i < self->buffers->len; i++)
    {
      EpStorage *storage = g_ptr_array_index (self->buffers, i);

      if (storage->device != device || storage->nbytes < nbytes
          || storage->nbytes / 2 > nbytes)
        continue;
      if (best == G_MAXUINT
          || storage->nbytes < ((EpStorage *) g_ptr_array_index (self->buffers, best))->nbytes)
        best = i;
    }

  if (best == G_MAXUINT)
    return NULL;
  return g_ptr_array_steal_index (self->buffers, best);
}

/* Takes @storage (a reference): kept if nothing else holds it, else
 * let go. */
void
ep_arena_give (EpArena   *self,
               EpStorage *storage)
{
  if (!ep_storage_is_exclusive (storage))
    {
      ep_storage_unref (storage);
      return;
    }

  if (self->buffers->len >= self->capacity)
    g_ptr_array_remove_index (self->buffers, 0);
  g_ptr_array_add (self->buffers, storage);
}

guint
ep_arena_get_n_buffers (EpArena *self)
{
  return self->buffers->len;
}
