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

static const EpGraphPass passes[] = {
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
