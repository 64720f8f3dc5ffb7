/* ep-executor-private.h: replaying a graph (graph/executor.c)
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#include <gio/gio.h>

#include "ep-graph-private.h"

G_BEGIN_DECLS

/* The tensors one replay of a graph runs in, made once and reused; one
 * replay at a time. */
typedef struct _EpFrame EpFrame;

EpFrame  *ep_frame_new             (EpGraph          *graph);
void      ep_frame_free            (EpFrame          *self);
guint     ep_frame_get_n_buffers   (EpFrame          *self);
void      ep_frame_give_buffer     (EpFrame          *self,
                                    EpStorage        *storage);
gboolean  ep_graph_replay          (EpGraph          *graph,
                                    EpFrame          *frame,
                                    EpTensor *const  *inputs,
                                    EpTensor        **variables,
                                    EpTensor        **outputs,
                                    GCancellable     *cancellable,
                                    GError          **error);
gboolean  ep_graph_replay_full     (EpGraph          *graph,
                                    EpFrame          *frame,
                                    EpTensor *const  *inputs,
                                    EpTensor        **variables,
                                    EpTensor        **outputs,
                                    EpTensor        **leaves,
                                    GCancellable     *cancellable,
                                    GError          **error);
gboolean  ep_graph_replay_eagerly  (EpGraph          *graph,
                                    EpTensor *const  *inputs,
                                    EpTensor        **outputs,
                                    GError          **error);
gboolean  ep_graph_replay_eagerly_full (EpGraph          *graph,
                                        EpTensor *const  *inputs,
                                        EpTensor        **outputs,
                                        GPtrArray        *values,
                                        GError          **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (EpFrame, ep_frame_free)

G_END_DECLS
