/* graph/function-file.c: staged functions saved to files and loaded
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The public side of graph files (graph/graph-file.c has the format):
 * a function saves the graph it traced for a signature; a loaded file is
 * a function of that one graph, which owns the variables the file
 * holds.
 */

#include "config.h"

#include <glib/gi18n-lib.h>
#include <string.h>

#include "ep-device-private.h"
#include "ep-error.h"
#include "ep-function-private.h"
#include "ep-graph-file-private.h"

/* The variables of a loaded function (GPtrArray of EpVariable), kept on
 * the object: function.c knows nothing of files. */
#define VARIABLES_KEY "ep-function-file-variables"

/* Tensors of @signature's dtypes and shapes (unknown extents as -1) on
 * @device, without data: what ep_function_lookup_graph() keys on. */
static GPtrArray *
placeholders (EpTensorSpec **signature,
              guint          n_signature,
              EpDevice      *device)
{
  g_autoptr(GBytes) none = g_bytes_new_static ("", 0);
  g_autoptr(EpStorage) storage = ep_storage_new_for_bytes (device, none);
  GPtrArray *tensors = g_ptr_array_new_full (n_signature, g_object_unref);

  for (guint i = 0; i < n_signature; i++)
    {
      EpLayout layout = { .dtype = ep_tensor_spec_get_dtype (signature[i]) };
      const gint64 *shape = ep_tensor_spec_get_shape (signature[i], &layout.ndim);

      memcpy (layout.shape, shape, layout.ndim * sizeof (gint64));
      g_ptr_array_add (tensors, ep_tensor_new_with_storage (&layout, storage));
    }

  return tensors;
}

/* Whether @spec is @own, or a concrete shape of it (every unknown extent
 * given) */
static gboolean
fits_spec (EpTensorSpec *own,
           EpTensorSpec *spec)
{
  guint ndim_own, ndim;
  const gint64 *shape_own = ep_tensor_spec_get_shape (own, &ndim_own);
  const gint64 *shape = ep_tensor_spec_get_shape (spec, &ndim);

  if (ep_tensor_spec_get_dtype (own) != ep_tensor_spec_get_dtype (spec) || ndim_own != ndim)
    return FALSE;
  for (guint d = 0; d < ndim; d++)
    if (shape[d] != shape_own[d] && (shape_own[d] >= 0 || shape[d] < 0))
      return FALSE;

  return TRUE;
}

/* Whether @signature is one the function keeps graphs for: its own
 * specs, or a concrete shape of them, or, without specs, any concrete
 * shapes. */
static gboolean
is_traced_signature (EpFunction    *self,
                     EpTensorSpec **signature,
                     guint          n_signature)
{
  guint n_own;
  EpTensorSpec **own = ep_function_get_signature (self, &n_own);

  if (own != NULL)
    {
      for (guint i = 0; i < n_signature && i < n_own; i++)
        if (!fits_spec (own[i], signature[i]))
          return FALSE;
      return n_own == n_signature;
    }

  for (guint i = 0; i < n_signature; i++)
    {
      guint ndim;
      const gint64 *shape = ep_tensor_spec_get_shape (signature[i], &ndim);

      for (guint d = 0; d < ndim; d++)
        if (shape[d] < 0)
          return FALSE;
    }

  return TRUE;
}

/* The devices to look for a graph on: the one new tensors go to now,
 * then the others */
static GPtrArray *
devices_in_order (void)
{
  g_autoptr(GPtrArray) all = ep_list_devices ();
  EpDevice *current = ep_device_get_current ();
  GPtrArray *devices = g_ptr_array_new ();

  g_ptr_array_add (devices, current != NULL ? current : ep_device_get_default ());
  for (guint i = 0; i < all->len; i++)
    if (g_ptr_array_index (all, i) != g_ptr_array_index (devices, 0))
      g_ptr_array_add (devices, g_ptr_array_index (all, i));

  return devices;
}

static char *
signature_to_string (EpTensorSpec **signature,
                     guint          n_signature)
{
  GString *s = g_string_new ("(");

  for (guint i = 0; i < n_signature; i++)
    {
      guint ndim;
      const gint64 *shape = ep_tensor_spec_get_shape (signature[i], &ndim);
      g_autofree char *text = ep_shape_to_string (shape, ndim);

      g_string_append_printf (s, "%s%s %s", i > 0 ? ", " : "",
                              ep_dtype_get_name (ep_tensor_spec_get_dtype (signature[i])), text);
    }
  g_string_append_c (s, ')');

  return g_string_free (s, FALSE);
}

/* The graph traced for @signature, with every input on one device */
static EpGraph *
find_graph (EpFunction    *self,
            EpTensorSpec **signature,
            guint          n_signature,
            GError       **error)
{
  g_autoptr(GPtrArray) devices = devices_in_order ();
  g_autofree char *text = NULL;

  if (is_traced_signature (self, signature, n_signature))
    for (guint d = 0; d < devices->len; d++)
      {
        g_autoptr(GPtrArray) inputs = placeholders (signature, n_signature,
                                                    g_ptr_array_index (devices, d));
        EpGraph *graph = ep_function_lookup_graph (self, (EpTensor *const *) inputs->pdata,
                                                   n_signature);

        if (graph != NULL)
          return graph;
      }

  text = signature_to_string (signature, n_signature);
  g_set_error (error, EP_ERROR, EP_ERROR_INVALID_ARGUMENT,
               _("save: the function has no graph for the signature %s; call it with such inputs first "
                 "(a graph serves unknown extents once a call with other extents has shown that it "
                 "computes the same on them)"),
               text);
  return NULL;
}

/**
 * ep_function_save:
 * @self: a staged function
 * @signature: (array length=n_signature): the signature of the graph to
 *   save: the specs the function was made with, or, for a function
 *   made without, the dtypes and shapes of the inputs it was called
 *   with
 * @n_signature: the number of inputs
 * @file: the graph file to write, such as `step.json`
 * @cancellable: (nullable): a #GCancellable
 * @error: return location for an error
 *
 * Saves the graph the function has traced for @signature, so that
 * [ctor@Function.load] makes a function of it without the code it was
 * traced from, in any language. @file gets a JSON document of the
 * graph's ops, attributes, edges and input signature; the constants it
 * holds and the current values of the variables it captured go in a
 * safetensors file beside it, named as @file with `.json` replaced by
 * `.safetensors` (or `.safetensors` added). Each file is written to a
 * temporary file, synced and renamed. The [Graph files](graph-files.html)
 * page describes the format.
 *
 * A graph is found for inputs all on one device: the current device
 * scope's (else the default device) first, then the others in the order
 * of [func@list_devices].
 *
 * Returns: %TRUE, or %FALSE with @error set: %EP_ERROR_INVALID_ARGUMENT
 *   when the function has traced no graph for @signature (call it with
 *   such inputs first) or the graph cannot be saved (it calls
 *   [func@custom_gradient]), %EP_ERROR_IO when a file cannot be written
 */
gboolean
ep_function_save (EpFunction     *self,
                  EpTensorSpec  **signature,
                  guint           n_signature,
                  GFile          *file,
                  GCancellable   *cancellable,
                  GError        **error)
{
  g_autoptr(EpGraph) graph = NULL;

  g_return_val_if_fail (EP_IS_FUNCTION (self), FALSE);
  g_return_val_if_fail (signature != NULL || n_signature == 0, FALSE);
  g_return_val_if_fail (G_IS_FILE (file), FALSE);
  g_return_val_if_fail (cancellable == NULL || G_IS_CANCELLABLE (cancellable), FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);
  for (guint i = 0; i < n_signature; i++)
    g_return_val_if_fail (signature[i] != NULL, FALSE);

  graph = find_graph (self, signature, n_signature, error);
  if (graph == NULL)
    return FALSE;

  return ep_graph_save (graph, signature, file, cancellable, error);
}

/**
 * ep_function_load: (constructor)
 * @file: a graph file written by [method@Function.save], such as
 *   `step.json`, with its safetensors file beside it
 * @cancellable: (nullable): a #GCancellable
 * @error: return location for an error
 *
 * Loads a staged function from a graph file: calls replay the saved
 * graph in C, without the code it was traced from. They take inputs
 * that fit the saved signature (an unknown extent takes any), on the
 * devices the graph was saved with; the function cannot trace a graph
 * for others, and says so. The variables the graph captured are new
 * ones ([method@Function.get_variables]), with the values saved, and
 * calls change them as calls of the saved function did.
 *
 * A device that this machine lacks is replaced by `cpu:0`: every op
 * runs there, and the other devices compute what the CPU does.
 *
 * The file is checked whole before anything runs: a file that is
 * truncated, inconsistent (ops unknown or given inputs their rules
 * refuse, references out of range, tensors missing or not as described)
 * or written by a newer version of the format is an %EP_ERROR_FORMAT.
 *
 * Returns: (transfer full): the function, or %NULL with @error set:
 *   %EP_ERROR_IO when a file cannot be read, %EP_ERROR_FORMAT when it
 *   is not a valid graph file
 */
EpFunction *
ep_function_load (GFile         *file,
                  GCancellable  *cancellable,
                  GError       **error)
{
  g_autoptr(GPtrArray) signature = NULL;
  g_autoptr(EpGraph) graph = NULL;
  GPtrArray *variables;
  EpFunction *self;

  g_return_val_if_fail (G_IS_FILE (file), NULL);
  g_return_val_if_fail (cancellable == NULL || G_IS_CANCELLABLE (cancellable), NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  graph = ep_graph_load (file, &signature, cancellable, error);
  if (graph == NULL)
    return NULL;

  self = ep_function_new_for_graph (graph, (EpTensorSpec *const *) signature->pdata);
  /* the copy unrefs its elements, as the graph's array does */
  variables = g_ptr_array_copy (graph->variables, (GCopyFunc) (void (*) (void)) g_object_ref, NULL);
  g_object_set_data_full (G_OBJECT (self), VARIABLES_KEY, variables,
                          (GDestroyNotify) g_ptr_array_unref);

  return self;
}

/**
 * ep_function_get_variables:
 * @self: a staged function
 *
 * Gives the variables of a function loaded with [ctor@Function.load]:
 * those its graph reads and assigns, in the order the file lists them
 * (the order the traced function first used them), each with the name
 * it had when saved ([method@Variable.get_name]). A loaded training
 * step updates them; read them to get the trained values. A function
 * made from code captures the caller's own variables: it gives none.
 *
 * Returns: (transfer container) (element-type EpVariable): the variables
 */
GPtrArray *
ep_function_get_variables (EpFunction *self)
{
  GPtrArray *variables;

  g_return_val_if_fail (EP_IS_FUNCTION (self), NULL);

  variables = g_object_get_data (G_OBJECT (self), VARIABLES_KEY);
  if (variables == NULL)
    return g_ptr_array_new_with_free_func (g_object_unref);

  return g_ptr_array_copy (variables, (GCopyFunc) (void (*) (void)) g_object_ref, NULL);
}
