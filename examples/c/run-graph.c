/* run-graph.c: runs a staged function saved to a graph file, from C.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Usage: run-graph GRAPH.json [EXTENT]
 *
 * Loads GRAPH.json (and the GRAPH.safetensors beside it), written by
 * Function.save from any language, and calls it once, without the code
 * it was traced from. The inputs are made from the saved signature:
 * input i holds, at position k in C order, (k + i) mod 5 in its dtype
 * (for bool, whether that is not 0); an unknown extent is EXTENT (2 by
 * default). Prints each output, then each variable the graph holds,
 * after the call.
 */

#include <stdlib.h>

#include <eager-glib/eager-glib.h>

/* The input @index of @spec, its unknown extents @extent */
static EpTensor *
make_input (EpTensorSpec  *spec,
            guint          index,
            gint64         extent,
            GError       **error)
{
  guint ndim;
  const gint64 *spec_shape = ep_tensor_spec_get_shape (spec, &ndim);
  gint64 shape[EP_MAX_DIMS];
  gint64 size = 1;
  g_autofree gdouble *values = NULL;

  for (guint d = 0; d < ndim; d++)
    {
      shape[d] = spec_shape[d] >= 0 ? spec_shape[d] : extent;
      size *= shape[d];
    }

  values = g_new (gdouble, MAX (size, 1));
  for (gint64 k = 0; k < size; k++)
    values[k] = (k + index) % 5;

  return ep_tensor_new_from_doubles (values, size, shape, ndim,
                                     ep_tensor_spec_get_dtype (spec), error);
}

static gboolean
print_tensor (const char  *label,
              EpTensor    *tensor,
              GError     **error)
{
  g_autofree char *text = ep_tensor_to_string (tensor, error);

  if (text == NULL)
    return FALSE;
  g_print ("%s: %s\n", label, text);
  return TRUE;
}

static gboolean
run (const char  *path,
     gint64       extent,
     GError     **error)
{
  g_autoptr(GFile) file = g_file_new_for_commandline_arg (path);
  g_autoptr(EpFunction) function = NULL;
  g_autoptr(GPtrArray) inputs = g_ptr_array_new_with_free_func (g_object_unref);
  g_autoptr(GPtrArray) outputs = NULL;
  g_autoptr(GPtrArray) variables = NULL;
  EpTensorSpec **signature;
  guint n_inputs;

  function = ep_function_load (file, NULL, error);
  if (function == NULL)
    return FALSE;

  signature = ep_function_get_signature (function, &n_inputs);
  for (guint i = 0; i < n_inputs; i++)
    {
      EpTensor *input = make_input (signature[i], i, extent, error);

      if (input == NULL)
        return FALSE;
      g_ptr_array_add (inputs, input);
    }

  outputs = ep_function_call (function, (EpTensor **) inputs->pdata, n_inputs, error);
  if (outputs == NULL)
    return FALSE;
  for (guint o = 0; o < outputs->len; o++)
    {
      g_autofree char *label = g_strdup_printf ("output %u", o);

      if (!print_tensor (label, g_ptr_array_index (outputs, o), error))
        return FALSE;
    }

  variables = ep_function_get_variables (function);
  for (guint v = 0; v < variables->len; v++)
    {
      EpVariable *variable = g_ptr_array_index (variables, v);
      g_autoptr(EpTensor) value = ep_variable_read (variable);
      const char *name = ep_variable_get_name (variable);
      g_autofree char *label = g_strdup_printf ("variable %s", name != NULL ? name : "(unnamed)");

      if (!print_tensor (label, value, error))
        return FALSE;
    }

  return TRUE;
}

int
main (int   argc,
      char *argv[])
{
  g_autoptr(GError) error = NULL;
  gint64 extent = 2;

  if (argc < 2 || argc > 3
      || (argc == 3 && !g_ascii_string_to_signed (argv[2], 10, 0, G_MAXINT32, &extent, NULL)))
    {
      g_printerr ("usage: %s GRAPH.json [EXTENT]\n", argv[0]);
      return 2;
    }

  if (!run (argv[1], extent, &error))
    {
      g_printerr ("run-graph: %s\n", error->message);
      return 1;
    }

  return 0;
}
