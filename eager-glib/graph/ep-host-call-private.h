/* ep-host-call-private.h: host callbacks in graphs (graph/host-call.c)
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#include "ep-host-call.h"
#include "ep-recorder-private.h"
#include "ep-tensor.h"

G_BEGIN_DECLS

/*
 * EpHostCall:
 *
 * A host callback and its gradient, made by one ep_host_call(): held by
 * the graph nodes that call it and by the tape steps that recorded it.
 * Immutable.
 */
struct _EpHostCall
{
  gatomicrefcount     ref_count;
  EpTensorsFunc       func;
  gpointer            func_data;
  GDestroyNotify      func_destroy;
  EpHostGradientFunc  gradient;
  gpointer            gradient_data;
  GDestroyNotify      gradient_destroy;
};

EpHostCall *ep_host_call_new    (EpTensorsFunc       func,
                                 gpointer            func_data,
                                 GDestroyNotify      func_destroy,
                                 EpHostGradientFunc  gradient,
                                 gpointer            gradient_data,
                                 GDestroyNotify      gradient_destroy);
EpHostCall *ep_host_call_ref    (EpHostCall         *self);
void        ep_host_call_unref  (EpHostCall         *self);
GPtrArray  *ep_host_call_invoke (EpHostCall         *self,
                                 EpTensor          **args,
                                 guint               n_args,
                                 GError            **error);
GPtrArray  *ep_host_call_run    (EpHostCall         *self,
                                 EpTensor          **inputs,
                                 guint               n_inputs,
                                 GError            **error);
void        ep_host_call_wait_pending (GMainContext *main_context,
                                       gint64        timeout_us);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (EpHostCall, ep_host_call_unref)

G_END_DECLS
