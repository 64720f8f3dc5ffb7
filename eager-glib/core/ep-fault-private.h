/* ep-fault-private.h: allocations that fail on purpose, for tests
 * (core/fault.c)
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#include <glib.h>

G_BEGIN_DECLS

void      ep_fault_fail_allocation  (guint  n);
gboolean  ep_fault_fired            (void);
gboolean  ep_fault_allocation_fails (void);

gpointer  ep_try_malloc_n           (gsize  n_blocks,
                                     gsize  block_size);
gpointer  ep_try_malloc0_n          (gsize  n_blocks,
                                     gsize  block_size);

/* g_try_malloc() and g_try_new() for buffers whose size the user
 * chooses: they fail when a test says so, as a full system would */
#define ep_try_malloc(n_bytes)   ep_try_malloc_n (1, (n_bytes))
#define ep_try_new(type, n)      ((type *) ep_try_malloc_n ((n), sizeof (type)))
#define ep_try_new0(type, n)     ((type *) ep_try_malloc0_n ((n), sizeof (type)))

G_END_DECLS
