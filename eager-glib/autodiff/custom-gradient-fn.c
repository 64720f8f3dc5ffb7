/* autodiff/custom-gradient-fn.c
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <glib/gi18n-lib.h>

#include "ep-custom-gradient-fn.h"
#include "ep-error.h"

/**
 * EpCustomGradientFn:
 *
 * A forward function and its backward function, bundled to be called
 * many times: each [method@CustomGradientFn.call] is one
 * [func@custom_gradient] of the two.
 *
 * The functions are given once, when the object is made, not at every
 * call: a binding that makes a closure for each function it hands to C
 * (and may keep some memory of each) does so once. The Python layer's
 * `Ep.custom_gradient` runs through it.
 */

struct _EpCustomGradientFn
{
  GObject         parent_instance;

  EpTensorFunc    forward;
  gpointer        forward_data;
  GDestroyNotify  forward_destroy;
  EpGradientFunc  backward;
  gpointer        backward_data;
  GDestroyNotify  backward_destroy;
};

G_DEFINE_FINAL_TYPE (EpCustomGradientFn, ep_custom_gradient_fn, G_TYPE_OBJECT)

static void
ep_custom_gradient_fn_finalize (GObject *object)
{
  EpCustomGradientFn *self = EP_CUSTOM_GRADIENT_FN (object);

  if (self->forward_destroy != NULL)
    self->forward_destroy (self->forward_data);
  if (self->backward_destroy != NULL)
    self->backward_destroy (self->backward_data);

  G_OBJECT_CLASS (ep_custom_gradient_fn_parent_class)->finalize (object);
}

static void
ep_custom_gradient_fn_class_init (EpCustomGradientFnClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = ep_custom_gradient_fn_finalize;
}

static void
ep_custom_gradient_fn_init (EpCustomGradientFn *self)
{
}

/**
 * ep_custom_gradient_fn_new:
 * @forward: (scope notified) (closure forward_data) (destroy forward_destroy):
 *   computes the result, as the forward function of [func@custom_gradient]
 * @forward_data: data for @forward
 * @forward_destroy: (nullable): frees @forward_data when the object is
 *   finalized
 * @backward: (scope notified) (closure backward_data) (destroy backward_destroy):
 *   computes the gradients of the arguments from the gradient of the result
 * @backward_data: data for @backward
 * @backward_destroy: (nullable): frees @backward_data when the object and
 *   every result and tape that needs @backward are gone
 *
 * Bundles a forward function with its backward function.
 *
 * Returns: (transfer full): the new function object
 */
EpCustomGradientFn *
ep_custom_gradient_fn_new (EpTensorFunc    forward,
                           gpointer        forward_data,
                           GDestroyNotify  forward_destroy,
                           EpGradientFunc  backward,
                           gpointer        backward_data,
                           GDestroyNotify  backward_destroy)
{
  EpCustomGradientFn *self;

  g_return_val_if_fail (forward != NULL, NULL);
  g_return_val_if_fail (backward != NULL, NULL);

  self = g_object_new (EP_TYPE_CUSTOM_GRADIENT_FN, NULL);
  self->forward = forward;
  self->forward_data = forward_data;
  self->forward_destroy = forward_destroy;
  self->backward = backward;
  self->backward_data = backward_data;
  self->backward_destroy = backward_destroy;

  return self;
}

/* Each result's backward function: the object's, which the result keeps
 * alive (a tape may differentiate it after the object is dropped). */
static GPtrArray *
call_backward (EpTensor  **inputs,
               guint       n_inputs,
               EpTensor   *output,
               EpTensor   *output_gradient,
               gpointer    user_data,
               GError    **error)
{
  EpCustomGradientFn *self = user_data;

  return self->backward (inputs, n_inputs, output, output_gradient, self->backward_data, error);
}

/**
 * ep_custom_gradient_fn_call:
 * @self: a function object
 * @inputs: (array length=n_inputs): the arguments
 * @n_inputs: the number of arguments
 * @error: return location for an error
 *
 * Calls the forward function on @inputs and gives its result the
 * gradient of the backward function, as [func@custom_gradient].
 *
 * Returns: (transfer full): the result, or %NULL with an error set as
 *   for [func@custom_gradient], or %EP_ERROR_INVALID_ARGUMENT for an
 *   object made without functions (g_object_new())
 */
EpTensor *
ep_custom_gradient_fn_call (EpCustomGradientFn  *self,
                            EpTensor           **inputs,
                            guint                n_inputs,
                            GError             **error)
{
  g_return_val_if_fail (EP_IS_CUSTOM_GRADIENT_FN (self), NULL);
  g_return_val_if_fail (inputs != NULL || n_inputs == 0, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (self->forward == NULL || self->backward == NULL)
    {
      g_set_error_literal (error, EP_ERROR, EP_ERROR_INVALID_ARGUMENT,
                           _("custom_gradient: the function object has no functions (made without ep_custom_gradient_fn_new())"));
      return NULL;
    }

  return ep_custom_gradient (self->forward, self->forward_data, call_backward, g_object_ref (self),
                             g_object_unref, inputs, n_inputs, error);
}
