/* ep-value-and-grad-fn.h
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

#define EP_TYPE_VALUE_AND_GRAD_FN (ep_value_and_grad_fn_get_type ())

EP_EXPORT
G_DECLARE_FINAL_TYPE (EpValueAndGradFn, ep_value_and_grad_fn, EP, VALUE_AND_GRAD_FN, GObject)

EP_EXPORT
EpValueAndGradFn *ep_value_and_grad_fn_new          (EpTensorFunc       func,
                                                     gpointer           user_data,
                                                     GDestroyNotify     destroy,
                                                     const gint        *argnums,
                                                     guint              n_argnums);
EP_EXPORT
EpValueAndGradFn *ep_value_and_grad_fn_new_with_aux (EpTensorsFunc      func,
                                                     gpointer           user_data,
                                                     GDestroyNotify     destroy,
                                                     const gint        *argnums,
                                                     guint              n_argnums);

EP_EXPORT
gboolean          ep_value_and_grad_fn_has_aux      (EpValueAndGradFn  *self);
EP_EXPORT
const gint       *ep_value_and_grad_fn_get_argnums  (EpValueAndGradFn  *self,
                                                     guint             *n_argnums);
EP_EXPORT
gboolean          ep_value_and_grad_fn_call         (EpValueAndGradFn  *self,
                                                     EpTensor         **inputs,
                                                     guint              n_inputs,
                                                     EpTensor         **value,
                                                     GPtrArray        **grads,
                                                     GError           **error);
EP_EXPORT
gboolean          ep_value_and_grad_fn_call_with_aux (EpValueAndGradFn *self,
                                                     EpTensor         **inputs,
                                                     guint              n_inputs,
                                                     EpTensor         **value,
                                                     GPtrArray        **aux,
                                                     GPtrArray        **grads,
                                                     GError           **error);

G_END_DECLS
