/* core/storage.c
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <string.h>

#include "ep-device-private.h"
#include "ep-storage-private.h"

/* A storage struct comes and goes with every op result: each thread
 * keeps a few spare ones (linked through @data) rather than going
 * through malloc and free each time. */
#define MAX_SPARES 16

typedef struct
{
  EpStorage *head;
  guint      count;
} Spares;

static void
spares_free (gpointer data)
{
  Spares *spares = data;

  while (spares->head != NULL)
    {
      EpStorage *next = spares->head->data;

      g_free (spares->head);
      spares->head = next;
    }
  g_free (spares);
}

/* The GPrivate frees a thread's spares when it exits; the plain
 * thread-local is the fast way to them. */
static GPrivate spares_key = G_PRIVATE_INIT (spares_free);
static _Thread_local Spares *thread_spares;

/* A zeroed storage struct, for a device to fill in. */
EpStorage *
ep_storage_alloc (void)
{
  Spares *spares = thread_spares;
  EpStorage *self;

  if (spares == NULL || spares->head == NULL)
    return g_new0 (EpStorage, 1);

  self = spares->head;
  spares->head = self->data;
  spares->count--;
  memset (self, 0, sizeof *self);
  return self;
}

static void
storage_free (EpStorage *self)
{
  Spares *spares = thread_spares;

  if (spares == NULL)
    {
      spares = g_new0 (Spares, 1);
      g_private_set (&spares_key, spares);
      thread_spares = spares;
    }

  if (spares->count >= MAX_SPARES)
    {
      g_free (self);
      return;
    }

  self->data = spares->head;
  spares->head = self;
  spares->count++;
}

/* Wraps immutable bytes without copying them: tensors are immutable too. */
EpStorage *
ep_storage_new_for_bytes (EpDevice *device,
                          GBytes   *bytes)
{
  EpStorage *self = ep_storage_alloc ();
  gsize size;

  g_atomic_ref_count_init (&self->ref_count);
  self->device = g_object_ref (device);
  self->borrowed = g_bytes_ref (bytes);
  self->data = (gpointer) g_bytes_get_data (bytes, &size);
  self->nbytes = size;

  return self;
}

EpStorage *
ep_storage_ref (EpStorage *self)
{
  g_atomic_ref_count_inc (&self->ref_count);

  return self;
}

void
ep_storage_unref (EpStorage *self)
{
  EpDevice *device;

  if (!g_atomic_ref_count_dec (&self->ref_count))
    return;

  device = self->device;
  if (self->borrowed != NULL)
    g_bytes_unref (self->borrowed);
  else
    device->backend->release (device, self);
  storage_free (self);
  g_object_unref (device);
}
