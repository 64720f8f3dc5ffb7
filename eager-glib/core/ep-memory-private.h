/* ep-memory-private.h: tidy scopes and memory counters (core/memory.c)
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#include "ep-context-private.h"
#include "ep-device-private.h"
#include "ep-tensor-private.h"

G_BEGIN_DECLS

void ep_tidy_track        (EpTidyScope *scope,
                           EpTensor    *tensor);
void ep_tidy_untrack_slow (EpTensor    *tensor);
void ep_tidy_close_all    (EpContext   *context);

/* Takes @tensor out of the tidy scope that would release it: for the
 * objects the library keeps beyond the call that made them (a
 * variable's value, a graph's constants). A NULL check outside scopes. */
static inline void
ep_tidy_untrack (EpTensor *tensor)
{
  if (G_UNLIKELY (g_atomic_pointer_get (&tensor->tidy_slot) != NULL))
    ep_tidy_untrack_slow (tensor);
}

/* The counters of ep_memory(): relaxed atomics, a tensor holding
 * storage or a buffer alive on @device */
static inline void
ep_memory_count_tensor (EpDevice *device,
                        gint64    delta)
{
  __atomic_fetch_add (&device->n_tensors, delta, __ATOMIC_RELAXED);
}

static inline void
ep_memory_count_bytes (EpDevice *device,
                       gint64    delta)
{
  __atomic_fetch_add (&device->bytes_in_use, delta, __ATOMIC_RELAXED);
}

G_END_DECLS
