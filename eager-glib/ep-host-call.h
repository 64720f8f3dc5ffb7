/* ep-host-call.h
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#if !defined(EP_INSIDE) && !defined(EP_COMPILATION)
# error "Only <eager-glib/eager-glib.h> can be included directly."
#endif

#include "ep-autodiff.h"

G_BEGIN_DECLS

/**
 * EP_HOST_CALL_MAX_RESULTS:
 *
 * The most tensors a host callback ([func@host_call]) may return.
 */
#define EP_HOST_CALL_MAX_RESULTS 4

/**
 * EpHostGradientFunc:
 * @inputs: (array length=n_inputs): the arguments the host callback got
 * @n_inputs: the number of arguments
 * @output_gradients: (array length=n_outputs): the gradient of the
 *   targets with respect to each result of the callback, shaped like it
 *   (zeros for a result that got none)
 * @n_outputs: the number of results
 * @user_data: (closure): the data given with the function
 * @error: return location for an error
 *
 * The gradient of a host callback ([func@host_call]): maps the gradients
 * of its results to those of its arguments. It is a host callback too:
 * staged, it runs from the replay, opaque like the callback.
 *
 * Returns: (transfer full) (element-type EpTensor) (nullable): one
 *   gradient per argument, shaped like it (zeros for an argument it does
 *   not depend on); %NULL with @error set on failure
 */
typedef GPtrArray *(*EpHostGradientFunc) (EpTensor   **inputs,
                                          guint        n_inputs,
                                          EpTensor   **output_gradients,
                                          guint        n_outputs,
                                          gpointer     user_data,
                                          GError     **error);

EP_EXPORT
GPtrArray *ep_host_call (EpTensorsFunc       func,
                         gpointer            func_data,
                         GDestroyNotify      func_destroy,
                         EpHostGradientFunc  gradient,
                         gpointer            gradient_data,
                         GDestroyNotify      gradient_destroy,
                         EpTensor          **inputs,
                         guint               n_inputs,
                         GError            **error);

G_END_DECLS
