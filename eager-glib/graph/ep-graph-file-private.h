/* ep-graph-file-private.h: a graph as files (graph/graph-file.c,
 * graph/graph-file-load.c)
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#include <gio/gio.h>

#include "ep-graph-private.h"
#include "ep-tensor-spec.h"

G_BEGIN_DECLS

/* The "format" of a graph file's document */
#define EP_GRAPH_FILE_FORMAT "eager-glib-graph"

/* The version of the graph file format this library writes, and the
 * newest it reads */
#define EP_GRAPH_FILE_VERSION 1

GFile    *ep_graph_file_get_tensors_file (GFile                *file);
gboolean  ep_graph_save                  (EpGraph              *graph,
                                          EpTensorSpec *const  *signature,
                                          GFile                *file,
                                          GCancellable         *cancellable,
                                          GError              **error);
EpGraph  *ep_graph_load                  (GFile                *file,
                                          GPtrArray           **signature,
                                          GCancellable         *cancellable,
                                          GError              **error);

G_END_DECLS
