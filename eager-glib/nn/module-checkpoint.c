/* nn/module-checkpoint.c: checkpoints of a module and its optimizer
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * A module's checkpoint is ep_checkpoint_save() of every variable of the
 * module under its object-graph path, and of the optimizer's state
 * (ep_optimizer_list_state() over the module's trainable variables) under
 * "optimizer.": these functions only gather the names and variables.
 */

#include "config.h"

#include "ep-checkpoint.h"
#include "ep-error-private.h"
#include "ep-module.h"
#include "ep-optimizer.h"

/* The module's variables and paths, then the optimizer's state; NULL
 * with @error set (named after @caller) when the optimizer cannot list
 * its state */
static GPtrArray *
gather (EpModule     *module,
        EpOptimizer  *optimizer,
        const char   *caller,
        char       ***names,
        GError      **error)
{
  g_auto(GStrv) paths = NULL;
  g_auto(GStrv) trainable_paths = NULL;
  g_auto(GStrv) state_names = NULL;
  g_autoptr(GPtrArray) variables = ep_module_get_variables (module, &paths);
  g_autoptr(GPtrArray) trainable = NULL;
  g_autoptr(GPtrArray) state = NULL;
  g_autoptr(GStrvBuilder) all_names = g_strv_builder_new ();

  /* (transfer container) whose free function unrefs: the references are
   * the array's already */
  g_strv_builder_addv (all_names, (const char **) paths);

  if (optimizer != NULL)
    {
      trainable = ep_module_get_trainable_variables (module, &trainable_paths);
      state = ep_optimizer_list_state (optimizer, NULL, (const char *const *) trainable_paths,
                                       (EpVariable *const *) trainable->pdata, trainable->len,
                                       &state_names, error);
      if (state == NULL)
        {
          ep_error_rename_call (error, NULL, caller);
          return NULL;
        }
      for (guint i = 0; i < state->len; i++)
        g_ptr_array_add (variables, g_object_ref (g_ptr_array_index (state, i)));
      g_strv_builder_addv (all_names, (const char **) state_names);
    }

  *names = g_strv_builder_end (all_names);
  return g_steal_pointer (&variables);
}

/**
 * ep_checkpoint_save_module:
 * @module: the module whose variables to save
 * @optimizer: (nullable): the optimizer that trains @module, whose state
 *   (step count, moments) to save with it
 * @file: where to write
 * @cancellable: (nullable): a #GCancellable
 * @error: return location for an error
 *
 * Saves every variable of @module, trainable or not, under its path
 * ([method@Module.get_variables]: `encoder.layers.0.weight`), and, with
 * @optimizer, the optimizer's state over the module's trainable
 * variables ([method@Optimizer.list_state]: `optimizer.iterations`,
 * `optimizer.encoder.layers.0.weight.exp_avg`) through
 * [func@checkpoint_save]: atomically, in the safetensors format.
 *
 * A fresh module of the same structure and a fresh optimizer of the same
 * kind restore from the file ([func@checkpoint_restore_module]) to the
 * exact training state: the next step is the one the saved module and
 * optimizer would have taken.
 *
 * Returns: %TRUE, or %FALSE with an error of [func@checkpoint_save] set
 */
gboolean
ep_checkpoint_save_module (EpModule      *module,
                           EpOptimizer   *optimizer,
                           GFile         *file,
                           GCancellable  *cancellable,
                           GError       **error)
{
  g_auto(GStrv) names = NULL;
  g_autoptr(GPtrArray) variables = NULL;

  g_return_val_if_fail (EP_IS_MODULE (module), FALSE);
  g_return_val_if_fail (optimizer == NULL || EP_IS_OPTIMIZER (optimizer), FALSE);
  g_return_val_if_fail (G_IS_FILE (file), FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  variables = gather (module, optimizer, "checkpoint_save_module", &names, error);
  if (variables == NULL)
    return FALSE;
  if (ep_checkpoint_save ((const char *const *) names, (EpVariable *const *) variables->pdata,
                          variables->len, file, cancellable, error))
    return TRUE;
  ep_error_rename_call (error, NULL, "checkpoint_save_module");
  return FALSE;
}

/**
 * ep_checkpoint_save_module_async:
 * @module: the module whose variables to save
 * @optimizer: (nullable): the optimizer that trains @module
 * @file: where to write
 * @cancellable: (nullable): a #GCancellable
 * @callback: (scope async): called on the thread-default main context
 *   when the file is written
 * @user_data: data for @callback
 *
 * [func@checkpoint_save_module] on a worker thread. The values written
 * are those the variables have when this is called.
 */
void
ep_checkpoint_save_module_async (EpModule            *module,
                                 EpOptimizer         *optimizer,
                                 GFile               *file,
                                 GCancellable        *cancellable,
                                 GAsyncReadyCallback  callback,
                                 gpointer             user_data)
{
  g_auto(GStrv) names = NULL;
  g_autoptr(GPtrArray) variables = NULL;
  GError *error = NULL;

  g_return_if_fail (EP_IS_MODULE (module));
  g_return_if_fail (optimizer == NULL || EP_IS_OPTIMIZER (optimizer));
  g_return_if_fail (G_IS_FILE (file));

  variables = gather (module, optimizer, "checkpoint_save_module_async", &names, &error);
  if (variables == NULL)
    {
      g_task_report_error (NULL, callback, user_data, ep_checkpoint_save_module_async, error);
      return;
    }
  ep_checkpoint_save_async ((const char *const *) names, (EpVariable *const *) variables->pdata,
                            variables->len, file, cancellable, callback, user_data);
}

/**
 * ep_checkpoint_save_module_finish:
 * @result: the result given to the callback
 * @error: return location for an error
 *
 * Finishes [func@checkpoint_save_module_async].
 *
 * Returns: %TRUE, or %FALSE with an error of [func@checkpoint_save]
 *   (or %G_IO_ERROR_CANCELLED) set
 */
gboolean
ep_checkpoint_save_module_finish (GAsyncResult  *result,
                                  GError       **error)
{
  if (g_async_result_is_tagged (result, ep_checkpoint_save_module_async))
    return g_task_propagate_boolean (G_TASK (result), error);
  return ep_checkpoint_save_finish (result, error);
}

/**
 * ep_checkpoint_restore_module:
 * @module: the module whose variables to restore
 * @optimizer: (nullable): the optimizer that trains @module, whose state
 *   to restore with it
 * @file: a file written by [func@checkpoint_save_module] (or any
 *   safetensors file with the same names)
 * @flags: how to match the file's entries with the variables
 * @cancellable: (nullable): a #GCancellable
 * @error: return location for an error
 *
 * Restores the variables of @module, and with @optimizer its state,
 * from @file, matching them by name as [func@checkpoint_save_module]
 * names them, through [func@checkpoint_restore]: every entry is checked
 * before any variable changes, and a missing or unexpected entry, or one
 * whose shape or dtype differs from its variable's, is an
 * %EP_ERROR_FORMAT error naming it (%EP_CHECKPOINT_PARTIAL skips the
 * missing and unexpected ones).
 *
 * Returns: %TRUE, or %FALSE with an error of [func@checkpoint_restore]
 *   set, and no variable changed
 */
gboolean
ep_checkpoint_restore_module (EpModule           *module,
                              EpOptimizer        *optimizer,
                              GFile              *file,
                              EpCheckpointFlags   flags,
                              GCancellable       *cancellable,
                              GError            **error)
{
  g_auto(GStrv) names = NULL;
  g_autoptr(GPtrArray) variables = NULL;

  g_return_val_if_fail (EP_IS_MODULE (module), FALSE);
  g_return_val_if_fail (optimizer == NULL || EP_IS_OPTIMIZER (optimizer), FALSE);
  g_return_val_if_fail (G_IS_FILE (file), FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  variables = gather (module, optimizer, "checkpoint_restore_module", &names, error);
  if (variables == NULL)
    return FALSE;
  if (ep_checkpoint_restore ((const char *const *) names, (EpVariable *const *) variables->pdata,
                             variables->len, file, flags, cancellable, error))
    return TRUE;
  ep_error_rename_call (error, NULL, "checkpoint_restore_module");
  return FALSE;
}

/**
 * ep_checkpoint_restore_module_async:
 * @module: the module whose variables to restore
 * @optimizer: (nullable): the optimizer that trains @module
 * @file: a file written by [func@checkpoint_save_module]
 * @flags: how to match the file's entries with the variables
 * @cancellable: (nullable): a #GCancellable
 * @callback: (scope async): called on the thread-default main context
 *   when the variables are restored
 * @user_data: data for @callback
 *
 * [func@checkpoint_restore_module] with the file read and checked on a
 * worker thread; the variables change on the thread-default main
 * context, in [func@checkpoint_restore_module_finish].
 */
void
ep_checkpoint_restore_module_async (EpModule            *module,
                                    EpOptimizer         *optimizer,
                                    GFile               *file,
                                    EpCheckpointFlags    flags,
                                    GCancellable        *cancellable,
                                    GAsyncReadyCallback  callback,
                                    gpointer             user_data)
{
  g_auto(GStrv) names = NULL;
  g_autoptr(GPtrArray) variables = NULL;
  GError *error = NULL;

  g_return_if_fail (EP_IS_MODULE (module));
  g_return_if_fail (optimizer == NULL || EP_IS_OPTIMIZER (optimizer));
  g_return_if_fail (G_IS_FILE (file));

  variables = gather (module, optimizer, "checkpoint_restore_module_async", &names, &error);
  if (variables == NULL)
    {
      g_task_report_error (NULL, callback, user_data, ep_checkpoint_restore_module_async, error);
      return;
    }
  ep_checkpoint_restore_async ((const char *const *) names, (EpVariable *const *) variables->pdata,
                               variables->len, file, flags, cancellable, callback, user_data);
}

/**
 * ep_checkpoint_restore_module_finish:
 * @result: the result given to the callback
 * @error: return location for an error
 *
 * Finishes [func@checkpoint_restore_module_async]: assigns the values
 * read, or changes nothing.
 *
 * Returns: %TRUE, or %FALSE with an error of [func@checkpoint_restore]
 *   (or %G_IO_ERROR_CANCELLED) set
 */
gboolean
ep_checkpoint_restore_module_finish (GAsyncResult  *result,
                                     GError       **error)
{
  if (g_async_result_is_tagged (result, ep_checkpoint_restore_module_async))
    return g_task_propagate_boolean (G_TASK (result), error);
  return ep_checkpoint_restore_finish (result, error);
}
