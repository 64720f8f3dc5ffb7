/* ep-autodiff.h: the functional face of automatic differentiation
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#if !defined(EP_INSIDE) && !defined(EP_COMPILATION)
# error "Only <eager-glib/eager-glib.h> can be included directly."
#endif

#include <glib-object.h>

#include "ep-tensor.h"

G_BEGIN_DECLS

/**
 * EpTensorFunc:
 * @inputs: (array length=n_inputs): the arguments
 * @n_inputs: the number of arguments
 * @user_data: (closure): the data given with the function
 * @error: return location for an error
 *
 * A function of tensors, written with ordinary ops and any host-language
 * control flow. It returns a tensor rather than a number so that every
 * language can give one back (gjs cannot return a double from a
 * callback).
 *
 * Returns: (transfer full) (nullable): the result, or %NULL with @error
 *   set
 */
typedef EpTensor  *(*EpTensorFunc)    (EpTensor   **inputs,
                                       guint        n_inputs,
                                       gpointer     user_data,
                                       GError     **error);

/**
 * EpTensorsFunc:
 * @inputs: (array length=n_inputs): the arguments
 * @n_inputs: the number of arguments
 * @user_data: (closure): the data given with the function
 * @error: return location for an error
 *
 * A function of tensors with several results: the first is the value to
 * differentiate, the others are auxiliary results returned alongside (a
 * prediction, an accuracy, …). From Python and JavaScript, return a list
 * of tensors.
 *
 * Returns: (transfer full) (element-type EpTensor) (nullable): at least
 *   one tensor, or %NULL with @error set
 */
typedef GPtrArray *(*EpTensorsFunc)   (EpTensor   **inputs,
                                       guint        n_inputs,
                                       gpointer     user_data,
                                       GError     **error);

/**
 * EpGradientFunc:
 * @inputs: (array length=n_inputs): the arguments the forward function
 *   was called with
 * @n_inputs: the number of arguments
 * @output: the forward function's result
 * @output_gradient: the gradient of the targets with respect to @output,
 *   shaped like it
 * @user_data: (closure): the data given with the function
 * @error: return location for an error
 *
 * The backward half of a custom gradient ([func@custom_gradient]): maps
 * the gradient of the result to the gradients of the arguments. Written
 * with ops, it is itself differentiated by outer tapes.
 *
 * Returns: (transfer full) (element-type EpTensor) (nullable): one
 *   gradient per argument, shaped like it, or a %NULL element for an
 *   argument without one; %NULL with @error set on failure
 */
typedef GPtrArray *(*EpGradientFunc)  (EpTensor   **inputs,
                                       guint        n_inputs,
                                       EpTensor    *output,
                                       EpTensor    *output_gradient,
                                       gpointer     user_data,
                                       GError     **error);

EP_EXPORT
gboolean   ep_value_and_grad      (EpTensorFunc     func,
                                   gpointer         user_data,
                                   EpTensor       **inputs,
                                   guint            n_inputs,
                                   const gint      *argnums,
                                   guint            n_argnums,
                                   EpTensor       **value,
                                   GPtrArray      **grads,
                                   GError         **error);
EP_EXPORT
gboolean   ep_value_aux_and_grad  (EpTensorsFunc    func,
                                   gpointer         user_data,
                                   EpTensor       **inputs,
                                   guint            n_inputs,
                                   const gint      *argnums,
                                   guint            n_argnums,
                                   EpTensor       **value,
                                   GPtrArray      **aux,
                                   GPtrArray      **grads,
                                   GError         **error);
EP_EXPORT
EpTensor  *ep_custom_gradient     (EpTensorFunc     forward,
                                   gpointer         forward_data,
                                   EpGradientFunc   backward,
                                   gpointer         backward_data,
                                   GDestroyNotify   backward_destroy,
                                   EpTensor       **inputs,
                                   guint            n_inputs,
                                   GError         **error);

G_END_DECLS
