/* ep-join.h
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#if !defined(EP_INSIDE) && !defined(EP_COMPILATION)
# error "Only <eager-glib/eager-glib.h> can be included directly."
#endif

#include "ep-tensor.h"

G_BEGIN_DECLS

/* Joining several tensors: ops/join.c */

EP_EXPORT
EpTensor  *ep_concatenate (EpTensor       **tensors,
                           guint            n_tensors,
                           gint             axis,
                           GError         **error);
EP_EXPORT
EpTensor  *ep_stack       (EpTensor       **tensors,
                           guint            n_tensors,
                           gint             axis,
                           GError         **error);
EP_EXPORT
GPtrArray *ep_meshgrid    (EpTensor       **tensors,
                           guint            n_tensors,
                           EpMeshIndexing   indexing,
                           GError         **error);

G_END_DECLS
