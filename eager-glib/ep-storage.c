/* ep-storage.c
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include "ep-device-private.h"
#include "ep-storage-private.h"

/* Wraps immutable bytes without copying them: tensors are immutable too. */
EpStorage *
ep_storage_new_for_bytes (EpDevice *device,
                          GBytes   *bytes)
{
  EpStorage *self = g_new0 (EpStorage, 1);
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
  g_free (self);
  g_object_unref (device);
}
