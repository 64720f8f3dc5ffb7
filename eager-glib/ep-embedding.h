/* ep-embedding.h
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#if !defined(EP_INSIDE) && !defined(EP_COMPILATION)
# error "Only <eager-glib/eager-glib.h> can be included directly."
#endif

#include "ep-module.h"
#include "ep-types.h"

G_BEGIN_DECLS

#define EP_TYPE_EMBEDDING (ep_embedding_get_type ())

EP_EXPORT
G_DECLARE_FINAL_TYPE (EpEmbedding, ep_embedding, EP, EMBEDDING, EpModule)

EP_EXPORT
EpModule     *ep_embedding_new           (gint64        num_embeddings,
                                          gint64        embedding_dim,
                                          GError      **error);
EP_EXPORT
EpVariable   *ep_embedding_get_weight    (EpEmbedding  *self);

G_END_DECLS
