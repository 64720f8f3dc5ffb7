/* ep-trainer.h: a training loop on a worker thread
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#if !defined(EP_INSIDE) && !defined(EP_COMPILATION)
# error "Only <eager-glib/eager-glib.h> can be included directly."
#endif

#include <gio/gio.h>

#include "ep-function.h"
#include "ep-variable.h"

G_BEGIN_DECLS

#define EP_TYPE_TRAINER (ep_trainer_get_type ())

EP_EXPORT
G_DECLARE_FINAL_TYPE (EpTrainer, ep_trainer, EP, TRAINER, GObject)

EP_EXPORT
EpTrainer  *ep_trainer_new                   (EpFunction           *step,
                                              EpTensor             *x,
                                              EpTensor             *y,
                                              guint                 batch_size);
EP_EXPORT
void        ep_trainer_run_async             (EpTrainer            *self,
                                              guint                 n_steps,
                                              GCancellable         *cancellable,
                                              GAsyncReadyCallback   callback,
                                              gpointer              user_data);
EP_EXPORT
gboolean    ep_trainer_run_finish            (EpTrainer            *self,
                                              GAsyncResult         *result,
                                              GError              **error);
EP_EXPORT
gboolean    ep_trainer_run                   (EpTrainer            *self,
                                              guint                 n_steps,
                                              GCancellable         *cancellable,
                                              GError              **error);
EP_EXPORT
GPtrArray  *ep_trainer_snapshot_variables    (EpTrainer            *self,
                                              EpVariable          **variables,
                                              guint                 n_variables);
EP_EXPORT
void        ep_trainer_set_paused            (EpTrainer            *self,
                                              gboolean              paused);
EP_EXPORT
gboolean    ep_trainer_get_paused            (EpTrainer            *self);
EP_EXPORT
gboolean    ep_trainer_get_running           (EpTrainer            *self);
EP_EXPORT
guint64     ep_trainer_get_step              (EpTrainer            *self);
EP_EXPORT
gdouble     ep_trainer_get_loss              (EpTrainer            *self);
EP_EXPORT
void        ep_trainer_set_progress_interval (EpTrainer            *self,
                                              guint                 interval_ms);
EP_EXPORT
guint       ep_trainer_get_progress_interval (EpTrainer            *self);

G_END_DECLS
