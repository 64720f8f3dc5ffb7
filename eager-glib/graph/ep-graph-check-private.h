/* ep-graph-check-private.h: a graph checked by its ops' rules
 * (graph/graph-check.c)
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#include "ep-graph-private.h"

G_BEGIN_DECLS

gboolean  ep_graph_check  (EpGraph  *graph,
                           GError  **error);

G_END_DECLS
