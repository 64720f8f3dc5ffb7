/* ep-arena-private.h: the buffers a frame keeps between replays
 * (graph/arena.c)
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#include "ep-storage-private.h"

G_BEGIN_DECLS

typedef struct _EpArena EpArena;

EpArena   *ep_arena_new             (guint      capacity);
void       ep_arena_free            (EpArena   *self);
EpStorage *ep_arena_take            (EpArena   *self,
                                     EpDevice  *device,
                                     gsize      nbytes);
void       ep_arena_give            (EpArena   *self,
                                     EpStorage *storage);
guint      ep_arena_get_n_buffers   (EpArena   *self);
gboolean   ep_storage_is_exclusive  (EpStorage *storage);

G_END_DECLS
