/* ep-checkpoint.h
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#if !defined(EP_INSIDE) && !defined(EP_COMPILATION)
# error "Only <eager-glib/eager-glib.h> can be included directly."
#endif

#include <gio/gio.h>

#include "ep-module.h"
#include "ep-optimizer.h"
#include "ep-variable.h"

G_BEGIN_DECLS

/**
 * EpCheckpointFlags:
 * @EP_CHECKPOINT_NONE: every entry of the file must restore a variable
 *   and every variable must have an entry
 * @EP_CHECKPOINT_PARTIAL: entries without a variable, and variables
 *   without an entry, are skipped (shape and dtype mismatches are still
 *   errors)
 *
 * How [func@checkpoint_restore] matches the file's entries with the
 * variables.
 */
typedef enum /*< flags >*/
{
  EP_CHECKPOINT_NONE    = 0,
  EP_CHECKPOINT_PARTIAL = 1 << 0,
} EpCheckpointFlags;

EP_EXPORT
gboolean  ep_checkpoint_save            (const char *const   *names,
                                         EpVariable *const   *variables,
                                         guint                n_variables,
                                         GFile               *file,
                                         GCancellable        *cancellable,
                                         GError             **error);
EP_EXPORT
void      ep_checkpoint_save_async      (const char *const   *names,
                                         EpVariable *const   *variables,
                                         guint                n_variables,
                                         GFile               *file,
                                         GCancellable        *cancellable,
                                         GAsyncReadyCallback  callback,
                                         gpointer             user_data);
EP_EXPORT
gboolean  ep_checkpoint_save_finish     (GAsyncResult        *result,
                                         GError             **error);

EP_EXPORT
gboolean  ep_checkpoint_restore         (const char *const   *names,
                                         EpVariable *const   *variables,
                                         guint                n_variables,
                                         GFile               *file,
                                         EpCheckpointFlags    flags,
                                         GCancellable        *cancellable,
                                         GError             **error);
EP_EXPORT
void      ep_checkpoint_restore_async   (const char *const   *names,
                                         EpVariable *const   *variables,
                                         guint                n_variables,
                                         GFile               *file,
                                         EpCheckpointFlags    flags,
                                         GCancellable        *cancellable,
                                         GAsyncReadyCallback  callback,
                                         gpointer             user_data);
EP_EXPORT
gboolean  ep_checkpoint_restore_finish  (GAsyncResult        *result,
                                         GError             **error);


EP_EXPORT
gboolean  ep_checkpoint_save_module            (EpModule            *module,
                                                EpOptimizer         *optimizer,
                                                GFile               *file,
                                                GCancellable        *cancellable,
                                                GError             **error);
EP_EXPORT
void      ep_checkpoint_save_module_async      (EpModule            *module,
                                                EpOptimizer         *optimizer,
                                                GFile               *file,
                                                GCancellable        *cancellable,
                                                GAsyncReadyCallback  callback,
                                                gpointer             user_data);
EP_EXPORT
gboolean  ep_checkpoint_save_module_finish     (GAsyncResult        *result,
                                                GError             **error);
EP_EXPORT
gboolean  ep_checkpoint_restore_module         (EpModule            *module,
                                                EpOptimizer         *optimizer,
                                                GFile               *file,
                                                EpCheckpointFlags    flags,
                                                GCancellable        *cancellable,
                                                GError             **error);
EP_EXPORT
void      ep_checkpoint_restore_module_async   (EpModule            *module,
                                                EpOptimizer         *optimizer,
                                                GFile               *file,
                                                EpCheckpointFlags    flags,
                                                GCancellable        *cancellable,
                                                GAsyncReadyCallback  callback,
                                                gpointer             user_data);
EP_EXPORT
gboolean  ep_checkpoint_restore_module_finish  (GAsyncResult        *result,
                                                GError             **error);

G_END_DECLS
