/* ep-custom-gradient-fn.h
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#if !defined(EP_INSIDE) && !defined(EP_COMPILATION)
# error "Only <eager-glib/eager-glib.h> can be included directly."
#endif

#include <glib-object.h>

#include "ep-autodiff.h"

G_BEGIN_DECLS

#define EP_TYPE_CUSTOM_GRADIENT_FN (ep_custom_gradient_fn_get_type ())

EP_EXPORT
G_DECLARE_FINAL_TYPE (EpCustomGradientFn, ep_custom_gradient_fn, EP, CUSTOM_GRADIENT_FN, GObject)

EP_EXPORT
EpCustomGradientFn *ep_custom_gradient_fn_new  (EpTensorFunc         forward,
                                                gpointer             forward_data,
                                                GDestroyNotify       forward_destroy,
                                                EpGradientFunc       backward,
                                                gpointer             backward_data,
                                                GDestroyNotify       backward_destroy);

EP_EXPORT
EpTensor           *ep_custom_gradient_fn_call (EpCustomGradientFn  *self,
                                                EpTensor           **inputs,
                                                guint                n_inputs,
                                                GError             **error);

G_END_DECLS
