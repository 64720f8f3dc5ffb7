/* graph/passes/optimize.c: the passes a traced graph goes through
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * A staged function keeps the graph it traced (for gradients, saving
 * and replays under recorders) and runs, when nothing records, the graph
 * the passes made of it: once per trace, in the order of the table.
 * EP_GRAPH_PASSES picks them, for tests and measurements: unset or
 * "all" runs every pass, "none" none, "a,b" only those, "-a,-b" all but
 * those.
 */

#include "config.h"

#include <string.h>

#include "ep-fuse-private.h"
#include "ep-passes-private.h"
#include "ep-tensor-private.h"

/* simplify first: what it leaves dead and the duplicates it exposes go
 * to the next ones; cse before fold, so that eleven transposes of one
 * constant are folded once; prune last, for what the others left dead
 * (the inputs of a folded node, a node simplified away). */
static const EpGraphPass passes[] = {
  { "simplify", ep_graph_simplify },
  { "cse", ep_graph_cse },
  { "fold", ep_graph_fold },
  { "fuse", ep_graph_fuse },
  { "prune", ep_graph_prune },
};

const EpGraphPass *
ep_graph_list_passes (guint *n_passes)
{
  *n_passes = G_N_ELEMENTS (passes);
  return passes;
}

static gboolean
is_known (const char *name)
{
  for (guint p = 0; p < G_N_ELEMENTS (passes); p++)
    if (strcmp (passes[p].name, name) == 0)
      return TRUE;

  return FALSE;
}

/* Whether EP_GRAPH_PASSES lets pass @name run. An unknown name in it is
 * reported once: a misspelt pass must not pass for one left out. */
gboolean
ep_graph_pass_is_enabled (const char *name)
{
  static gsize warned = 0;
  const char *value = g_getenv ("EP_GRAPH_PASSES");
  g_auto(GStrv) words = NULL;
  gboolean listed = FALSE, excluded = FALSE, only = FALSE;

  if (value == NULL || *value == '\0' || strcmp (value, "all") == 0)
    return TRUE;
  if (strcmp (value, "none") == 0)
    return FALSE;

  words = g_strsplit (value, ",", -1);
  for (guint w = 0; words[w] != NULL; w++)
    {
      const char *word = g_strstrip (words[w]);
      gboolean minus = word[0] == '-';

      if (minus)
        word++;
      if (!is_known (word) && g_once_init_enter (&warned))
        {
          g_warning ("EP_GRAPH_PASSES: no pass is called “%s”", word);
          g_once_init_leave (&warned, 1);
        }
      only |= !minus;
      if (strcmp (word, name) == 0)
        {
          listed |= !minus;
          excluded |= minus;
        }
    }

  return only ? listed && !excluded : !excluded;
}

/* @graph through every enabled pass (a new reference) */
EpGraph *
ep_graph_optimize (EpGraph *graph)
{
  EpGraph *current = ep_graph_ref (graph);

  for (guint p = 0; p < G_N_ELEMENTS (passes); p++)
    {
      EpGraph *next;

      if (!ep_graph_pass_is_enabled (passes[p].name))
        continue;
      next = passes[p].run (current);
      ep_graph_unref (current);
      current = next;
    }

  return current;
}

/* A graph with no nodes and no constants yet, but @graph's inputs,
 * variables (same order) and flags: where a pass copies the nodes it
 * keeps. The caller sets the outputs. */
EpGraph *
ep_graph_new_like (EpGraph *graph)
{
  EpGraph *copy = ep_graph_new ();

  copy->n_inputs = graph->n_inputs;
  copy->inputs = g_memdup2 (graph->inputs, MAX (graph->n_inputs, 1) * sizeof (EpLayout));
  copy->input_devices = g_memdup2 (graph->input_devices, MAX (graph->n_inputs, 1) * sizeof (EpDevice *));
  for (guint v = 0; v < graph->variables->len; v++)
    ep_graph_add_variable (copy, g_ptr_array_index (graph->variables, v));
  copy->fixed_shapes = graph->fixed_shapes;
  copy->has_host_calls = graph->has_host_calls;

  return copy;
}

/* The layout of a value when @graph was traced: its dtype and rank hold
 * at every replay, its extents only where the graph's are fixed. */
const EpLayout *
ep_graph_value_layout (EpGraph          *graph,
                       const EpValueRef *ref)
{
  switch (ref->kind)
    {
    case EP_VALUE_INPUT:
      return &graph->inputs[ref->index];
    case EP_VALUE_CONSTANT:
      return &((EpTensor *) g_ptr_array_index (graph->constants, ref->index))->layout;
    case EP_VALUE_NODE:
      return &ep_graph_get_node (graph, ref->index)->outputs[ref->output];
    }

  g_return_val_if_reached (NULL);
}

/* Where a value lives at replays */
EpDevice *
ep_graph_value_device (EpGraph          *graph,
                       const EpValueRef *ref)
{
  EpGraphNode *node;

  switch (ref->kind)
    {
    case EP_VALUE_INPUT:
      return graph->input_devices[ref->index];
    case EP_VALUE_CONSTANT:
      return ((EpTensor *) g_ptr_array_index (graph->constants, ref->index))->storage->device;
    case EP_VALUE_NODE:
      node = ep_graph_get_node (graph, ref->index);
      return node->kind == EP_NODE_HOST ? node->devices[ref->output] : node->device;
    }

  g_return_val_if_reached (NULL);
}

/* Whether a value can be a weak literal (a Python number): a constant
 * that is, or an input of rank 0 (the graph does not say; the call's
 * signature does). What a replay makes never is: a pass may put a value
 * in a node's place only where neither is weak, or promotions after it
 * would change. */
gboolean
ep_graph_value_may_be_weak (EpGraph          *graph,
                            const EpValueRef *ref)
{
  switch (ref->kind)
    {
    case EP_VALUE_INPUT:
      return graph->inputs[ref->index].ndim == 0;
    case EP_VALUE_CONSTANT:
      return ((EpTensor *) g_ptr_array_index (graph->constants, ref->index))->weak;
    case EP_VALUE_NODE:
      return FALSE;
    }

  g_return_val_if_reached (TRUE);
}
