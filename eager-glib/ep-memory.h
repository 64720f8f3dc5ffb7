/* ep-memory.h: tidy scopes, keep, dispose, memory in use
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#if !defined(EP_INSIDE) && !defined(EP_COMPILATION)
# error "Only <eager-glib/eager-glib.h> can be included directly."
#endif

#include "ep-tensor.h"

G_BEGIN_DECLS

/**
 * EpScopeFunc:
 * @user_data: (closure): the data given with the function
 * @error: return location for an error
 *
 * The body of a scope: [func@tidy] and [method@GradientTape.record] run it
 * once, on the calling thread.
 *
 * Returns: (transfer full) (nullable): a tensor to hand back to the
 *   caller, %NULL for none, or %NULL with @error set
 */
typedef EpTensor *(*EpScopeFunc) (gpointer   user_data,
                                  GError   **error);

EP_EXPORT
EpTensor *ep_tidy           (EpScopeFunc   func,
                             gpointer      user_data,
                             GError      **error);
EP_EXPORT
guint     ep_tidy_begin     (void);
EP_EXPORT
gboolean  ep_tidy_end       (guint         scope,
                             EpTensor    **results,
                             guint         n_results,
                             GError      **error);
EP_EXPORT
guint     ep_tidy_get_depth (void);
EP_EXPORT
EpTensor *ep_keep           (EpTensor     *tensor);
EP_EXPORT
void      ep_dispose        (EpTensor     *tensor);
EP_EXPORT
void      ep_memory         (guint64      *n_bytes,
                             guint64      *n_tensors);

EP_EXPORT
guint64   ep_device_get_bytes_in_use (EpDevice *self);
EP_EXPORT
guint64   ep_device_get_n_tensors    (EpDevice *self);

G_END_DECLS
