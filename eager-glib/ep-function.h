/* ep-function.h
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#if !defined(EP_INSIDE) && !defined(EP_COMPILATION)
# error "Only <eager-glib/eager-glib.h> can be included directly."
#endif

#include <gio/gio.h>

#include "ep-autodiff.h"
#include "ep-tensor-spec.h"

G_BEGIN_DECLS

#define EP_TYPE_FUNCTION (ep_function_get_type ())

EP_EXPORT
G_DECLARE_FINAL_TYPE (EpFunction, ep_function, EP, FUNCTION, GObject)

EP_EXPORT
EpFunction *ep_function_new                 (EpTensorsFunc    func,
                                             gpointer         user_data,
                                             GDestroyNotify   destroy);
EP_EXPORT
EpFunction *ep_function_new_with_signature  (EpTensorsFunc    func,
                                             gpointer         user_data,
                                             GDestroyNotify   destroy,
                                             EpTensorSpec   **signature,
                                             guint            n_signature);
EP_EXPORT
GPtrArray  *ep_function_call                (EpFunction      *self,
                                             EpTensor       **inputs,
                                             guint            n_inputs,
                                             GError         **error);
EP_EXPORT
void        ep_function_call_async          (EpFunction           *self,
                                             EpTensor            **inputs,
                                             guint                 n_inputs,
                                             GCancellable         *cancellable,
                                             GAsyncReadyCallback   callback,
                                             gpointer              user_data);
EP_EXPORT
GPtrArray  *ep_function_call_finish         (EpFunction           *self,
                                             GAsyncResult         *result,
                                             GError              **error);
EP_EXPORT
guint       ep_function_get_trace_count     (EpFunction      *self);
EP_EXPORT
EpTensorSpec **ep_function_get_signature    (EpFunction      *self,
                                             guint           *n_signature);

/* Graph files: graph/function-file.c */

EP_EXPORT
gboolean    ep_function_save                (EpFunction      *self,
                                             EpTensorSpec   **signature,
                                             guint            n_signature,
                                             GFile           *file,
                                             GCancellable    *cancellable,
                                             GError         **error);
EP_EXPORT
EpFunction *ep_function_load                (GFile           *file,
                                             GCancellable    *cancellable,
                                             GError         **error);
EP_EXPORT
GPtrArray  *ep_function_get_variables       (EpFunction      *self);

G_END_DECLS
