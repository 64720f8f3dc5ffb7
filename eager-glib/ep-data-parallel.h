/* ep-data-parallel.h: data-parallel training over a communicator
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#if !defined(EP_INSIDE) && !defined(EP_COMPILATION)
# error "Only <eager-glib/eager-glib.h> can be included directly."
#endif

#include <gio/gio.h>

#include "ep-communicator.h"
#include "ep-module.h"
#include "ep-optimizer.h"
#include "ep-tensor.h"
#include "ep-variable.h"

G_BEGIN_DECLS

#define EP_TYPE_DATA_PARALLEL (ep_data_parallel_get_type ())

EP_EXPORT
G_DECLARE_FINAL_TYPE (EpDataParallel, ep_data_parallel, EP, DATA_PARALLEL, GObject)

/**
 * EP_DATA_PARALLEL_DEFAULT_BUCKET_SIZE:
 *
 * The default [property@DataParallel:bucket-size], in bytes.
 */
#define EP_DATA_PARALLEL_DEFAULT_BUCKET_SIZE 2097152

EP_EXPORT
EpDataParallel *ep_data_parallel_new                 (EpCommunicator  *communicator,
                                                      EpVariable     **variables,
                                                      guint            n_variables,
                                                      GError         **error);
EP_EXPORT
EpDataParallel *ep_data_parallel_new_for_module      (EpCommunicator  *communicator,
                                                      EpModule        *module,
                                                      GError         **error);
EP_EXPORT
GPtrArray      *ep_data_parallel_average_gradients   (EpDataParallel  *self,
                                                      EpTensor       **gradients,
                                                      guint            n_gradients,
                                                      GError         **error);
EP_EXPORT
gboolean        ep_data_parallel_broadcast_variables (EpDataParallel  *self,
                                                      GError         **error);
EP_EXPORT
gboolean        ep_data_parallel_save_checkpoint     (EpDataParallel  *self,
                                                      EpModule        *module,
                                                      EpOptimizer     *optimizer,
                                                      GFile           *file,
                                                      GCancellable    *cancellable,
                                                      GError         **error);
EP_EXPORT
EpCommunicator *ep_data_parallel_get_communicator    (EpDataParallel  *self);
EP_EXPORT
GPtrArray      *ep_data_parallel_get_variables       (EpDataParallel  *self);
EP_EXPORT
guint64         ep_data_parallel_get_bucket_size     (EpDataParallel  *self);
EP_EXPORT
void            ep_data_parallel_set_bucket_size     (EpDataParallel  *self,
                                                      guint64          bucket_size);

G_END_DECLS
