/* ep-random-private.h: the random sequence (ops/random.c)
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* The seed and the next stream of the sequence, for one call of a random
 * op: eager calls take one each, and so does each replay of a staged one. */
void      ep_random_next_stream (guint64      *seed,
                                 guint64      *stream);

G_END_DECLS
