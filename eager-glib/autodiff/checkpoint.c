/* autodiff/checkpoint.c
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <glib/gi18n-lib.h>
#include <string.h>

#include "ep-autodiff-private.h"
#include "ep-checkpoint.h"
#include "ep-error.h"
#include "ep-safetensors-private.h"
#include "ep-tensor-private.h"
#include "ep-variable.h"

/**
 * ep_checkpoint_save:
 * @names: (array zero-terminated=1): the variables' names in the file,
 *   distinct (object-graph paths such as `encoder.layers.0.weight`)
 * @variables: (array length=n_variables): the variables, one per name
 * @n_variables: the length of @variables, that of @names
 * @file: where to write
 * @cancellable: (nullable): a #GCancellable
 * @error: return location for an error
 *
 * Saves the current values of @variables to @file as a
 * [safetensors](https://huggingface.co/docs/safetensors) file: a
 * little-endian 64-bit header length, a JSON header giving each entry's
 * dtype, shape and data offsets (and `__metadata__` with
 * `format: eager-glib-checkpoint`), then the raw little-endian data.
 * NumPy, PyTorch and the `safetensors` package read it.
 *
 * The file is written to a temporary file in the same folder, flushed
 * and synced to the disk, then renamed over @file: a crash in the
 * middle of a save leaves the previous checkpoint intact.
 *
 * Returns: %TRUE, or %FALSE with %EP_ERROR_INVALID_ARGUMENT (repeated
 *   or reserved names), %EP_ERROR_IO or a device's error set
 */
gboolean
ep_checkpoint_save (const char *const  *names,
                    EpVariable *const  *variables,
                    guint               n_variables,
                    GFile              *file,
                    GCancellable       *cancellable,
                    GError            **error);

/**
 * ep_checkpoint_restore:
 * @names: (array zero-terminated=1): the variables' names in the file
 * @variables: (array length=n_variables): the variables, one per name
 * @n_variables: the length of @variables, that of @names
 * @file: the checkpoint
 * @flags: whether a partial restore is allowed
 * @cancellable: (nullable): a #GCancellable
 * @error: return location for an error
 *
 * Restores @variables from @file, written by [func@checkpoint_save] or
 * any safetensors writer. The file is mapped and checked whole before
 * any variable changes: an entry without a variable, a variable
 * without an entry (unless @flags has %EP_CHECKPOINT_PARTIAL), an
 * entry whose dtype or shape differ from its variable's, and a
 * truncated, oversized, overlapping or malformed file are
 * %EP_ERROR_FORMAT errors naming the file and the entry, and leave
 * every variable as it was. Each variable gets its value on its own
 * device.
 *
 * Returns: %TRUE, or %FALSE with %EP_ERROR_FORMAT, %EP_ERROR_IO or a
 *   device's error set
 */
gboolean
ep_checkpoint_restore (const char *const  *names,
                       EpVariable *const  *variables,
                       guint               n_variables,
                       GFile              *file,
                       EpCheckpointFlags   flags,
                       GCancellable       *cancellable,
                       GError            **error);

static gboolean
check_names (const char *const  *names,
             guint               n_variables,
             const char         *op_name,
             GError            **error)
{
  g_autoptr(GHashTable) seen = g_hash_table_new (g_str_hash, g_str_equal);

  for (guint i = 0; i < n_variables; i++)
    {
      if (names[i] == NULL)
        {
          g_set_error (error, EP_ERROR, EP_ERROR_INVALID_ARGUMENT,
                       _("%s: %u names for %u variables"), op_name, i, n_variables);
          return FALSE;
        }
      if (names[i][0] == '\0' || g_str_equal (names[i], "__metadata__"))
        {
          g_set_error (error, EP_ERROR, EP_ERROR_INVALID_ARGUMENT,
                       _("%s: “%s” is not a valid name"), op_name, names[i]);
          return FALSE;
        }
      if (!g_hash_table_add (seen, (gpointer) names[i]))
        {
          g_set_error (error, EP_ERROR, EP_ERROR_INVALID_ARGUMENT,
                       _("%s: the name “%s” is given twice"), op_name, names[i]);
          return FALSE;
        }
    }
  if (names[n_variables] != NULL)
    {
      g_set_error (error, EP_ERROR, EP_ERROR_INVALID_ARGUMENT,
                   _("%s: more names than the %u variables"), op_name, n_variables);
      return FALSE;
    }
  return TRUE;
}

typedef struct
{
  GStrv      names;
  GPtrArray *objects;   /* the tensors (save) or variables (restore) */
  GPtrArray *loaded;    /* restore: the values, loaded by the worker */
  GFile     *file;
  EpCheckpointFlags flags;
} TaskData;

static void
task_data_free (gpointer data)
{
  TaskData *self = data;

  g_strfreev (self->names);
  g_clear_pointer (&self->objects, g_ptr_array_unref);
  g_clear_pointer (&self->loaded, g_ptr_array_unref);
  g_clear_object (&self->file);
  g_free (self);
}

static gboolean
save_tensors (const char *const  *names,
              EpTensor *const    *tensors,
              guint               n,
              GFile              *file,
              const char         *op_name,
              GCancellable       *cancellable,
              GError            **error)
{
  static const char *const metadata[] = { "format", "eager-glib-checkpoint", NULL };

  return ep_safetensors_write (file, names, tensors, n, metadata, op_name, cancellable, error);
}

gboolean
ep_checkpoint_save (const char *const  *names,
                    EpVariable *const  *variables,
                    guint               n_variables,
                    GFile              *file,
                    GCancellable       *cancellable,
                    GError            **error)
{
  g_autoptr(GPtrArray) tensors = g_ptr_array_new_with_free_func (g_object_unref);

  g_return_val_if_fail (names != NULL, FALSE);
  g_return_val_if_fail (variables != NULL || n_variables == 0, FALSE);
  g_return_val_if_fail (G_IS_FILE (file), FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  if (!check_names (names, n_variables, "checkpoint_save", error))
    return FALSE;
  for (guint i = 0; i < n_variables; i++)
    {
      g_return_val_if_fail (EP_IS_VARIABLE (variables[i]), FALSE);
      g_ptr_array_add (tensors, ep_variable_peek (variables[i]));
    }

  return save_tensors (names, (EpTensor *const *) tensors->pdata, n_variables, file,
                       "checkpoint_save", cancellable, error);
}

static void
save_thread (GTask        *task,
             gpointer      source,
             gpointer      task_data,
             GCancellable *cancellable)
{
  TaskData *data = task_data;
  GError *error = NULL;

  if (save_tensors ((const char *const *) data->names, (EpTensor *const *) data->objects->pdata,
                    data->objects->len, data->file, "checkpoint_save_async", cancellable, &error))
    g_task_return_boolean (task, TRUE);
  else
    g_task_return_error (task, error);
}

/**
 * ep_checkpoint_save_async:
 * @names: (array zero-terminated=1): the variables' names in the file
 * @variables: (array length=n_variables): the variables, one per name
 * @n_variables: the length of @variables, that of @names
 * @file: where to write
 * @cancellable: (nullable): a #GCancellable
 * @callback: (scope async): called on the thread-default main context
 *   when the file is written
 * @user_data: data for @callback
 *
 * [func@checkpoint_save] on a worker thread. The values are those the
 * variables have when this is called: later assignments do not change
 * what is written.
 */
void
ep_checkpoint_save_async (const char *const   *names,
                          EpVariable *const   *variables,
                          guint                n_variables,
                          GFile               *file,
                          GCancellable        *cancellable,
                          GAsyncReadyCallback  callback,
                          gpointer             user_data)
{
  g_autoptr(GTask) task = g_task_new (NULL, cancellable, callback, user_data);
  TaskData *data;
  GError *error = NULL;

  g_return_if_fail (names != NULL);
  g_return_if_fail (G_IS_FILE (file));
  g_task_set_source_tag (task, ep_checkpoint_save_async);

  if (!check_names (names, n_variables, "checkpoint_save_async", &error))
    {
      g_task_return_error (task, error);
      return;
    }

  data = g_new0 (TaskData, 1);
  data->names = g_strdupv ((char **) names);
  data->objects = g_ptr_array_new_with_free_func (g_object_unref);
  data->file = g_object_ref (file);
  for (guint i = 0; i < n_variables; i++)
    g_ptr_array_add (data->objects, ep_variable_peek (variables[i]));
  g_task_set_task_data (task, data, task_data_free);
  g_task_run_in_thread (task, save_thread);
}

/**
 * ep_checkpoint_save_finish:
 * @result: the result given to the callback
 * @error: return location for an error
 *
 * Finishes [func@checkpoint_save_async].
 *
 * Returns: %TRUE, or %FALSE with an error of [func@checkpoint_save]
 *   (or %G_IO_ERROR_CANCELLED) set
 */
gboolean
ep_checkpoint_save_finish (GAsyncResult  *result,
                           GError       **error)
{
  g_return_val_if_fail (g_task_is_valid (result, NULL), FALSE);

  return g_task_propagate_boolean (G_TASK (result), error);
}

/* Restoring */

static void
unref_nullable (gpointer object)
{
  if (object != NULL)
    g_object_unref (object);
}

/* Reads and checks @file and loads the values (@loaded[i] NULL where
 * a partial restore skips variable i) */
static GPtrArray *
load_values (const char *const  *names,
             EpVariable *const  *variables,
             guint               n_variables,
             GFile              *file,
             EpCheckpointFlags   flags,
             const char         *op_name,
             GCancellable       *cancellable,
             GError            **error)
{
  g_autoptr(EpSafetensors) st = ep_safetensors_read (file, op_name, cancellable, error);
  g_autoptr(GPtrArray) loaded = NULL;
  g_autoptr(GHashTable) wanted = NULL;
  g_autofree char *fname = NULL;
  gboolean partial = (flags & EP_CHECKPOINT_PARTIAL) != 0;

  if (st == NULL)
    return NULL;
  fname = g_file_get_parse_name (file);

  wanted = g_hash_table_new (g_str_hash, g_str_equal);
  for (guint i = 0; i < n_variables; i++)
    g_hash_table_add (wanted, (gpointer) names[i]);
  for (guint i = 0; i < ep_safetensors_get_n_entries (st); i++)
    {
      const EpSafetensorsEntry *entry = ep_safetensors_get_entry (st, i);

      if (!partial && !g_hash_table_contains (wanted, entry->name))
        {
          g_set_error (error, EP_ERROR, EP_ERROR_FORMAT,
                       _("%s: %s: entry “%s” restores no variable"),
                       op_name, fname, entry->name);
          return NULL;
        }
    }

  /* check everything before loading anything */
  for (guint i = 0; i < n_variables; i++)
    {
      const EpSafetensorsEntry *entry = ep_safetensors_lookup (st, names[i]);
      const gint64 *shape;
      guint ndim;

      if (entry == NULL)
        {
          if (partial)
            continue;
          g_set_error (error, EP_ERROR, EP_ERROR_FORMAT,
                       _("%s: %s: no entry “%s”"), op_name, fname, names[i]);
          return NULL;
        }
      if (!entry->supported || entry->dtype != ep_variable_get_dtype (variables[i]))
        {
          g_set_error (error, EP_ERROR, EP_ERROR_FORMAT,
                       _("%s: %s: entry “%s” has dtype %s, its variable %s"),
                       op_name, fname, names[i], entry->dtype_name,
                       ep_dtype_get_name (ep_variable_get_dtype (variables[i])));
          return NULL;
        }
      shape = ep_variable_get_shape (variables[i], &ndim);
      if (ndim != entry->ndim || memcmp (shape, entry->shape, ndim * sizeof (gint64)) != 0)
        {
          g_autofree char *file_shape = ep_shape_to_string (entry->shape, entry->ndim);
          g_autofree char *var_shape = ep_shape_to_string (shape, ndim);

          g_set_error (error, EP_ERROR, EP_ERROR_FORMAT,
                       _("%s: %s: entry “%s” has shape %s, its variable %s"),
                       op_name, fname, names[i], file_shape, var_shape);
          return NULL;
        }
    }

  loaded = g_ptr_array_new_full (n_variables, unref_nullable);
  for (guint i = 0; i < n_variables; i++)
    {
      EpTensor *value = NULL;

      if (ep_safetensors_lookup (st, names[i]) != NULL)
        {
          if (g_cancellable_set_error_if_cancelled (cancellable, error))
            return NULL;
          value = ep_safetensors_load_tensor (st, names[i], ep_variable_get_device (variables[i]),
                                              error);
          if (value == NULL)
            return NULL;
        }
      g_ptr_array_add (loaded, value);
    }
  return g_steal_pointer (&loaded);
}

static gboolean
assign_values (EpVariable *const  *variables,
               GPtrArray          *loaded,
               GError            **error)
{
  for (guint i = 0; i < loaded->len; i++)
    {
      EpTensor *value = g_ptr_array_index (loaded, i);

      if (value != NULL && !ep_variable_assign (variables[i], value, error))
        return FALSE;
    }
  return TRUE;
}

gboolean
ep_checkpoint_restore (const char *const  *names,
                       EpVariable *const  *variables,
                       guint               n_variables,
                       GFile              *file,
                       EpCheckpointFlags   flags,
                       GCancellable       *cancellable,
                       GError            **error)
{
  g_autoptr(GPtrArray) loaded = NULL;

  g_return_val_if_fail (names != NULL, FALSE);
  g_return_val_if_fail (variables != NULL || n_variables == 0, FALSE);
  g_return_val_if_fail (G_IS_FILE (file), FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  if (!check_names (names, n_variables, "checkpoint_restore", error))
    return FALSE;
  for (guint i = 0; i < n_variables; i++)
    g_return_val_if_fail (EP_IS_VARIABLE (variables[i]), FALSE);

  loaded = load_values (names, variables, n_variables, file, flags, "checkpoint_restore",
                        cancellable, error);
  return loaded != NULL && assign_values (variables, loaded, error);
}

static void
restore_thread (GTask        *task,
                gpointer      source,
                gpointer      task_data,
                GCancellable *cancellable)
{
  TaskData *data = task_data;
  GError *error = NULL;

  data->loaded = load_values ((const char *const *) data->names,
                              (EpVariable *const *) data->objects->pdata, data->objects->len,
                              data->file, data->flags, "checkpoint_restore_async",
                              cancellable, &error);
  if (data->loaded != NULL)
    g_task_return_boolean (task, TRUE);
  else
    g_task_return_error (task, error);
}

/**
 * ep_checkpoint_restore_async:
 * @names: (array zero-terminated=1): the variables' names in the file
 * @variables: (array length=n_variables): the variables, one per name
 * @n_variables: the length of @variables, that of @names
 * @file: the checkpoint
 * @flags: whether a partial restore is allowed
 * @cancellable: (nullable): a #GCancellable
 * @callback: (scope async): called on the thread-default main context
 *   when the file is read
 * @user_data: data for @callback
 *
 * [func@checkpoint_restore] with the file read, checked and loaded onto
 * the variables' devices on a worker thread; the variables get their
 * values in [func@checkpoint_restore_finish], on the caller's thread.
 */
void
ep_checkpoint_restore_async (const char *const   *names,
                             EpVariable *const   *variables,
                             guint                n_variables,
                             GFile               *file,
                             EpCheckpointFlags    flags,
                             GCancellable        *cancellable,
                             GAsyncReadyCallback  callback,
                             gpointer             user_data)
{
  g_autoptr(GTask) task = g_task_new (NULL, cancellable, callback, user_data);
  TaskData *data;
  GError *error = NULL;

  g_return_if_fail (names != NULL);
  g_return_if_fail (G_IS_FILE (file));
  g_task_set_source_tag (task, ep_checkpoint_restore_async);

  if (!check_names (names, n_variables, "checkpoint_restore_async", &error))
    {
      g_task_return_error (task, error);
      return;
    }

  data = g_new0 (TaskData, 1);
  data->names = g_strdupv ((char **) names);
  data->objects = g_ptr_array_new_with_free_func (g_object_unref);
  data->file = g_object_ref (file);
  data->flags = flags;
  for (guint i = 0; i < n_variables; i++)
    g_ptr_array_add (data->objects, g_object_ref (variables[i]));
  g_task_set_task_data (task, data, task_data_free);
  g_task_run_in_thread (task, restore_thread);
}

/**
 * ep_checkpoint_restore_finish:
 * @result: the result given to the callback
 * @error: return location for an error
 *
 * Finishes [func@checkpoint_restore_async]: assigns the values read.
 *
 * Returns: %TRUE, or %FALSE with an error of [func@checkpoint_restore]
 *   (or %G_IO_ERROR_CANCELLED) set; the variables are then unchanged
 */
gboolean
ep_checkpoint_restore_finish (GAsyncResult  *result,
                              GError       **error)
{
  TaskData *data;

  g_return_val_if_fail (g_task_is_valid (result, NULL), FALSE);

  if (!g_task_propagate_boolean (G_TASK (result), error))
    return FALSE;
  data = g_task_get_task_data (G_TASK (result));
  return assign_values ((EpVariable *const *) data->objects->pdata, data->loaded, error);
}
