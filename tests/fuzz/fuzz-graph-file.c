/* fuzz-graph-file.c: graph files (graph/graph-file-load.c)
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The input is the pair of files a graph is saved as: the JSON document,
 * a NUL byte, then the safetensors file of its tensors. Both are written
 * to a temporary folder and loaded as ep_function_load() loads them; a
 * graph that loads is then called on inputs of its traced shapes, since
 * a loaded graph must never hand a kernel what its rule has not
 * checked. A graph whose values would take more than a few megabytes is
 * loaded but not called: a valid file may ask for any amount of memory.
 */

#include <eager-glib/eager-glib.h>
#include <glib/gstdio.h>

#include "ep-function-private.h"
#include "ep-fuzz.h"
#include "ep-graph-file-private.h"

#define MAX_CALLED_ELEMENTS (1 << 20)

static GFile *
graph_file (void)
{
  static char *folder = NULL;

  if (folder == NULL)
    folder = g_dir_make_tmp ("ep-fuzz-graph-XXXXXX", NULL);
  g_assert (folder != NULL);
  return g_file_new_build_filename (folder, "graph.json", NULL);
}

static void
write_files (GFile        *json,
             const guint8 *data,
             gsize         size)
{
  const guint8 *nul = memchr (data, 0, size);
  gsize json_size = nul != NULL ? (gsize) (nul - data) : size;
  gsize tensors_offset = nul != NULL ? json_size + 1 : size;
  g_autoptr(GFile) tensors = ep_graph_file_get_tensors_file (json);
  g_autofree char *json_path = g_file_get_path (json);
  g_autofree char *tensors_path = g_file_get_path (tensors);

  g_assert (g_file_set_contents (json_path, (const char *) data, json_size, NULL));
  g_assert (g_file_set_contents (tensors_path, (const char *) data + tensors_offset,
                                 size - tensors_offset, NULL));
}

static gboolean
small_enough (EpGraph *graph)
{
  gint64 total = 0;

  for (guint i = 0; i < graph->n_inputs; i++)
    total += ep_layout_get_size (&graph->inputs[i]);
  for (guint n = 0; n < ep_graph_get_n_nodes (graph); n++)
    {
      EpGraphNode *node = ep_graph_get_node (graph, n);

      for (guint o = 0; o < node->n_outputs; o++)
        {
          gint64 size = ep_layout_get_size (&node->outputs[o]);

          if (size > MAX_CALLED_ELEMENTS || total > MAX_CALLED_ELEMENTS)
            return FALSE;
          total += size;
        }
    }

  return total <= MAX_CALLED_ELEMENTS;
}

static void
call_graph (EpGraph   *graph,
            GPtrArray *signature)
{
  g_autoptr(EpFunction) function = ep_function_new_for_graph (graph, (EpTensorSpec *const *) signature->pdata);
  g_autoptr(GPtrArray) inputs = g_ptr_array_new_with_free_func (g_object_unref);
  g_autoptr(GPtrArray) outputs = NULL;
  g_autoptr(GError) error = NULL;

  for (guint i = 0; i < graph->n_inputs; i++)
    {
      const EpLayout *layout = &graph->inputs[i];
      EpTensor *input = ep_ones (layout->shape, layout->ndim, layout->dtype, &error);

      g_assert_no_error (error);
      g_ptr_array_add (inputs, input);
    }

  outputs = ep_function_call (function, (EpTensor **) inputs->pdata, inputs->len, &error);
  g_assert (outputs != NULL || (error != NULL && error->domain == EP_ERROR));
}

int
LLVMFuzzerTestOneInput (const guint8 *data,
                        size_t        size)
{
  g_autoptr(GFile) file = NULL;
  g_autoptr(GPtrArray) signature = NULL;
  g_autoptr(EpGraph) graph = NULL;
  g_autoptr(GError) error = NULL;

  ep_fuzz_init_once ();
  file = graph_file ();
  write_files (file, data, size);

  graph = ep_graph_load (file, &signature, NULL, &error);
  if (graph == NULL)
    {
      g_assert (error != NULL && error->domain == EP_ERROR);
      return 0;
    }
  g_assert_no_error (error);

  if (small_enough (graph))
    call_graph (graph, signature);
  return 0;
}
