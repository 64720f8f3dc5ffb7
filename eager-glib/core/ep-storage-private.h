/* ep-storage-private.h
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#include "ep-device.h"

G_BEGIN_DECLS

/*
 * EpStorage:
 *
 * A reference-counted buffer owned by a device. Tensors and views point
 * into it; it goes back to its device when the last one lets go.
 * @data is the host address for host-visible devices, @handle the
 * device's own handle (a cl_mem for OpenCL).
 */
typedef struct _EpStorage EpStorage;

struct _EpStorage
{
  gatomicrefcount  ref_count;
  EpDevice        *device;
  gsize            nbytes;
  gpointer         data;
  gpointer         handle;
  GBytes          *borrowed;
};

EpStorage *ep_storage_alloc         (void);
EpStorage *ep_storage_new_for_bytes (EpDevice  *device,
                                     GBytes    *bytes);
EpStorage *ep_storage_ref           (EpStorage *self);
void       ep_storage_unref         (EpStorage *self);
void       ep_storage_free_spares   (EpStorage **spares,
                                     guint      *n_spares);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (EpStorage, ep_storage_unref)

G_END_DECLS
