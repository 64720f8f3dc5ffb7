/* ep-communicator.h: processes working together over MPI
 * (distributed/communicator.c)
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#if !defined(EP_INSIDE) && !defined(EP_COMPILATION)
# error "Only <eager-glib/eager-glib.h> can be included directly."
#endif

#include <glib-object.h>

#include "ep-tensor.h"
#include "ep-types.h"
#include "ep-version.h"

G_BEGIN_DECLS

#define EP_TYPE_COMMUNICATOR (ep_communicator_get_type ())
EP_EXPORT
G_DECLARE_FINAL_TYPE (EpCommunicator, ep_communicator, EP, COMMUNICATOR, GObject)

EP_EXPORT
EpCommunicator *ep_communicator_get_world      (GError          **error);
EP_EXPORT
int             ep_communicator_get_rank       (EpCommunicator   *self);
EP_EXPORT
int             ep_communicator_get_size       (EpCommunicator   *self);
EP_EXPORT
void            ep_communicator_set_timeout    (EpCommunicator   *self,
                                                guint             timeout_ms);
EP_EXPORT
guint           ep_communicator_get_timeout    (EpCommunicator   *self);
EP_EXPORT
gboolean        ep_communicator_get_failed     (EpCommunicator   *self);

EP_EXPORT
EpTensor       *ep_communicator_all_reduce     (EpCommunicator   *self,
                                                EpTensor         *x,
                                                EpReduceOp        op,
                                                GError          **error);
EP_EXPORT
EpTensor       *ep_communicator_broadcast      (EpCommunicator   *self,
                                                EpTensor         *x,
                                                int               root,
                                                GError          **error);
EP_EXPORT
EpTensor       *ep_communicator_all_gather     (EpCommunicator   *self,
                                                EpTensor         *x,
                                                GError          **error);
EP_EXPORT
EpTensor       *ep_communicator_reduce_scatter (EpCommunicator   *self,
                                                EpTensor         *x,
                                                EpReduceOp        op,
                                                GError          **error);
EP_EXPORT
gboolean        ep_communicator_barrier        (EpCommunicator   *self,
                                                GError          **error);

G_END_DECLS
