/* core/storage.c
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <string.h>

#include "ep-context-private.h"
#include "ep-device-private.h"
#include "ep-memory-private.h"
#include "ep-storage-private.h"

/* A storage struct comes and goes with every op result: each thread
 * keeps a few spare ones in its context (linked through @data) rather
 * than going through malloc and free each time. */
#define MAX_SPARES 16

/* A zeroed storage struct, for a device to fill in. */
EpStorage *
ep_storage_alloc (void)
{
  EpContext *context = ep_context_peek ();
  EpStorage *self;

  if (context == NULL || context->spares == NULL)
    return g_new0 (EpStorage, 1);

  self = context->spares;
  context->spares = self->data;
  context->n_spares--;
  memset (self, 0, sizeof *self);
  return self;
}

static void
storage_free (EpStorage *self)
{
  EpContext *context = ep_context_get ();

  if (context->n_spares >= MAX_SPARES)
    {
      g_free (self);
      return;
    }

  self->data = context->spares;
  context->spares = self;
  context->n_spares++;
}

/* Frees a context's spares (when its thread exits). */
void
ep_storage_free_spares (EpStorage **spares,
                        guint      *n_spares)
{
  while (*spares != NULL)
    {
      EpStorage *next = (*spares)->data;

      g_free (*spares);
      *spares = next;
    }
  *n_spares = 0;
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
  ep_memory_count_bytes (device, (gint64) size);

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
  ep_memory_count_bytes (device, -(gint64) self->nbytes);
  if (self->borrowed != NULL)
    g_bytes_unref (self->borrowed);
  else
    device->backend->release (device, self);
  storage_free (self);
  g_object_unref (device);
}
