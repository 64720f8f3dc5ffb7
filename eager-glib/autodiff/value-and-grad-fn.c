/* autodiff/value-and-grad-fn.c
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <glib/gi18n-lib.h>

#include "ep-autodiff-private.h"
#include "ep-error.h"
#include "ep-value-and-grad-fn.h"

/**
 * EpValueAndGradFn:
 *
 * A function bundled with the arguments to differentiate it by, to be
 * called many times: EagerPy's `value_and_grad_fn`, JAX's
 * `value_and_grad(f)`.
 *
 * Each call of [method@ValueAndGradFn.call] is one [func@value_and_grad]:
 * it keeps no state from one call to the next, so a training loop can
 * call it on each batch.
 *
 * ```python
 * loss_and_grad = Ep.value_and_grad_fn(loss, argnums=(0, 1))
 * for x, y in batches:
 *     value, (dw, db) = loss_and_grad(w, b, x, y)
 * ```
 *
 * In C:
 *
 * ```c
 * g_autoptr(EpTensor) value = NULL;
 * g_autoptr(GPtrArray) grads = NULL;
 *
 * if (!ep_value_and_grad_fn_call (fn, inputs, n_inputs, &value, &grads, &error))
 *   return FALSE;
 * ```
 */

struct _EpValueAndGradFn
{
  GObject         parent_instance;

  EpTensorFunc    func;
  EpTensorsFunc   aux_func;
  gpointer        user_data;
  GDestroyNotify  destroy;
  gint           *argnums;
  guint           n_argnums;
};

G_DEFINE_FINAL_TYPE (EpValueAndGradFn, ep_value_and_grad_fn, G_TYPE_OBJECT)

static void
ep_value_and_grad_fn_finalize (GObject *object)
{
  EpValueAndGradFn *self = EP_VALUE_AND_GRAD_FN (object);

  if (self->destroy != NULL)
    self->destroy (self->user_data);
  g_free (self->argnums);

  G_OBJECT_CLASS (ep_value_and_grad_fn_parent_class)->finalize (object);
}

static void
ep_value_and_grad_fn_class_init (EpValueAndGradFnClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = ep_value_and_grad_fn_finalize;
}

static void
ep_value_and_grad_fn_init (EpValueAndGradFn *self)
{
  self->argnums = g_new0 (gint, 1);
  self->n_argnums = 1;
}

/* An object made with g_object_new() from a binding has no function:
 * calling it is an error, never a call through NULL. */
static gboolean
check_has_function (EpValueAndGradFn  *self,
                    GError           **error)
{
  if (G_LIKELY (self->func != NULL || self->aux_func != NULL))
    return TRUE;

  g_set_error (error, EP_ERROR, EP_ERROR_INVALID_ARGUMENT,
               _("value_and_grad_fn: the object has no function (make it with value_and_grad_fn)"));
  return FALSE;
}

static EpValueAndGradFn *
new_fn (EpTensorFunc    func,
        EpTensorsFunc   aux_func,
        gpointer        user_data,
        GDestroyNotify  destroy,
        const gint     *argnums,
        guint           n_argnums)
{
  EpValueAndGradFn *self = g_object_new (EP_TYPE_VALUE_AND_GRAD_FN, NULL);

  self->func = func;
  self->aux_func = aux_func;
  self->user_data = user_data;
  self->destroy = destroy;
  if (argnums != NULL && n_argnums > 0)
    {
      g_free (self->argnums);
      self->argnums = g_memdup2 (argnums, n_argnums * sizeof (gint));
      self->n_argnums = n_argnums;
    }

  return self;
}

/**
 * ep_value_and_grad_fn_new:
 * @func: (scope notified) (closure user_data) (destroy destroy): the
 *   function to differentiate
 * @user_data: data for @func
 * @destroy: (nullable): frees @user_data when the object is finalized
 * @argnums: (array length=n_argnums) (nullable): the arguments to
 *   differentiate with respect to, by position; %NULL or empty for the
 *   first
 * @n_argnums: the number of positions in @argnums
 *
 * Bundles @func with the positions of the arguments to differentiate.
 *
 * Returns: (transfer full): the new function object
 */
EpValueAndGradFn *
ep_value_and_grad_fn_new (EpTensorFunc    func,
                          gpointer        user_data,
                          GDestroyNotify  destroy,
                          const gint     *argnums,
                          guint           n_argnums)
{
  g_return_val_if_fail (func != NULL, NULL);

  return new_fn (func, NULL, user_data, destroy, argnums, n_argnums);
}

/**
 * ep_value_and_grad_fn_new_with_aux:
 * @func: (scope notified) (closure user_data) (destroy destroy): the
 *   function to differentiate: it returns the value first, then auxiliary
 *   results
 * @user_data: data for @func
 * @destroy: (nullable): frees @user_data when the object is finalized
 * @argnums: (array length=n_argnums) (nullable): the arguments to
 *   differentiate with respect to; %NULL or empty for the first
 * @n_argnums: the number of positions in @argnums
 *
 * Like [ctor@ValueAndGradFn.new] for a function with auxiliary results
 * (see [func@value_aux_and_grad]).
 *
 * Returns: (transfer full): the new function object
 */
EpValueAndGradFn *
ep_value_and_grad_fn_new_with_aux (EpTensorsFunc   func,
                                   gpointer        user_data,
                                   GDestroyNotify  destroy,
                                   const gint     *argnums,
                                   guint           n_argnums)
{
  g_return_val_if_fail (func != NULL, NULL);

  return new_fn (NULL, func, user_data, destroy, argnums, n_argnums);
}

/**
 * ep_value_and_grad_fn_has_aux:
 * @self: a function object
 *
 * Tells whether @self was made with [ctor@ValueAndGradFn.new_with_aux].
 *
 * Returns: whether the function returns auxiliary results
 */
gboolean
ep_value_and_grad_fn_has_aux (EpValueAndGradFn *self)
{
  g_return_val_if_fail (EP_IS_VALUE_AND_GRAD_FN (self), FALSE);

  return self->aux_func != NULL;
}

/**
 * ep_value_and_grad_fn_get_argnums:
 * @self: a function object
 * @n_argnums: (out) (optional): return location for the number of
 *   positions
 *
 * Gives the positions of the arguments the gradients are taken with
 * respect to: those given at construction, or `[0]`.
 *
 * Returns: (array length=n_argnums) (transfer none): the positions of the
 *   arguments the gradients are taken with respect to
 */
const gint *
ep_value_and_grad_fn_get_argnums (EpValueAndGradFn *self,
                                  guint            *n_argnums)
{
  g_return_val_if_fail (EP_IS_VALUE_AND_GRAD_FN (self), NULL);

  if (n_argnums != NULL)
    *n_argnums = self->n_argnums;
  return self->argnums;
}

/**
 * ep_value_and_grad_fn_call_with_aux:
 * @self: a function object
 * @inputs: (array length=n_inputs): the arguments
 * @n_inputs: the number of arguments
 * @value: (out) (transfer full) (optional): return location for the value
 * @aux: (out) (transfer container) (element-type EpTensor) (optional):
 *   return location for the auxiliary results (none for a function made
 *   with [ctor@ValueAndGradFn.new]), in an array that owns them
 * @grads: (out) (transfer container) (element-type EpTensor) (optional):
 *   return location for the gradients, one per position, in an array
 *   that owns them
 * @error: return location for an error
 *
 * Calls the function and differentiates it, as [func@value_aux_and_grad].
 *
 * Returns: (skip): %TRUE on success; %FALSE with @error set as for
 *   [func@value_aux_and_grad], or with %EP_ERROR_INVALID_ARGUMENT if
 *   @self was made with g_object_new() and has no function
 */
gboolean
ep_value_and_grad_fn_call_with_aux (EpValueAndGradFn  *self,
                                    EpTensor         **inputs,
                                    guint              n_inputs,
                                    EpTensor         **value,
                                    GPtrArray        **aux,
                                    GPtrArray        **grads,
                                    GError           **error)
{
  g_return_val_if_fail (EP_IS_VALUE_AND_GRAD_FN (self), FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  if (!check_has_function (self, error))
    return FALSE;

  return ep_autodiff_value_and_grad (self->aux_func != NULL ? "value_aux_and_grad" : "value_and_grad",
                                     self->func, self->aux_func, self->user_data,
                                     inputs, n_inputs, self->argnums, self->n_argnums,
                                     value, aux, grads, error);
}

/**
 * ep_value_and_grad_fn_call:
 * @self: a function object
 * @inputs: (array length=n_inputs): the arguments
 * @n_inputs: the number of arguments
 * @value: (out) (transfer full) (optional): return location for the value
 * @grads: (out) (transfer container) (element-type EpTensor) (optional):
 *   return location for the gradients, one per position, in an array
 *   that owns them
 * @error: return location for an error
 *
 * Calls the function and differentiates it, as [func@value_and_grad].
 * Auxiliary results, if the function has any, are dropped.
 *
 * Returns: (skip): %TRUE on success; %FALSE with @error set as for
 *   [func@value_and_grad]
 */
gboolean
ep_value_and_grad_fn_call (EpValueAndGradFn  *self,
                           EpTensor         **inputs,
                           guint              n_inputs,
                           EpTensor         **value,
                           GPtrArray        **grads,
                           GError           **error)
{
  return ep_value_and_grad_fn_call_with_aux (self, inputs, n_inputs, value, NULL, grads, error);
}
