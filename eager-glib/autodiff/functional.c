/* autodiff/functional.c: value_and_grad, value_aux_and_grad, custom_gradient
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The functional face of automatic differentiation, in the manner of
 * EagerPy and JAX, built on EpGradientTape: each call uses a tape of its
 * own, so calls keep no state between them.
 */

#include "config.h"

#include <glib/gi18n-lib.h>
#include <string.h>

#include "ep-autodiff-private.h"
#include "ep-dispatch-private.h"
#include "ep-error.h"
#include "ep-grad-private.h"
#include "ep-gradient-tape.h"
#include "ep-quark-private.h"

/* Takes over an array of tensors a function returned. Whether it came
 * with a free function (from C) or without (from a binding), each
 * element holds one reference that is now ours. */
GPtrArray *
ep_autodiff_take_tensors (GPtrArray   *returned,
                          gboolean     allow_null,
                          const char  *name,
                          const char  *what,
                          GError     **error)
{
  g_autoptr(GPtrArray) taken = ep_tensor_array_new (returned->len);
  gint bad = -1;

  g_ptr_array_set_free_func (returned, NULL);
  for (guint i = 0; i < returned->len; i++)
    {
      gpointer element = g_ptr_array_index (returned, i);

      g_ptr_array_add (taken, element);
      if (bad < 0 && (element == NULL ? !allow_null : !EP_IS_TENSOR (element)))
        bad = i;
    }
  g_ptr_array_unref (returned);

  if (bad >= 0)
    {
      g_set_error (error, EP_ERROR, EP_ERROR_INVALID_ARGUMENT,
                   _("%s: element %d of the %s the function returned is not a tensor"),
                   name, bad, what);
      return NULL;
    }

  return g_steal_pointer (&taken);
}

static gboolean
resolve_argnums (const char  *name,
                 const gint  *argnums,
                 guint        n_argnums,
                 guint        n_inputs,
                 guint       *which,
                 GError     **error)
{
  for (guint k = 0; k < n_argnums; k++)
    {
      gint a = argnums[k] < 0 ? argnums[k] + (gint) n_inputs : argnums[k];

      if (a < 0 || a >= (gint) n_inputs)
        {
          g_set_error (error, EP_ERROR, EP_ERROR_INVALID_ARGUMENT,
                       g_dngettext (GETTEXT_PACKAGE,
                                    "%s: argument number %d is out of range for %u argument",
                                    "%s: argument number %d is out of range for %u arguments",
                                    n_inputs),
                       name, argnums[k], n_inputs);
          return FALSE;
        }
      which[k] = a;
    }

  return TRUE;
}

static gboolean
check_value (const char  *name,
             EpTensor    *value,
             GError     **error)
{
  if (value == NULL || !EP_IS_TENSOR (value))
    {
      g_set_error (error, EP_ERROR, EP_ERROR_INVALID_ARGUMENT,
                   _("%s: the function returned no tensor"), name);
      return FALSE;
    }
  if (!ep_dtype_is_floating (ep_tensor_get_dtype (value)))
    {
      g_set_error (error, EP_ERROR, EP_ERROR_DTYPE,
                   _("%s: the function returned a tensor of type %s; only floating-point values have gradients"),
                   name, ep_dtype_get_name (ep_tensor_get_dtype (value)));
      return FALSE;
    }

  return TRUE;
}

gboolean
ep_autodiff_value_and_grad (const char     *name,
                            EpTensorFunc    func,
                            EpTensorsFunc   aux_func,
                            gpointer        user_data,
                            EpTensor      **inputs,
                            guint           n_inputs,
                            const gint     *argnums,
                            guint           n_argnums,
                            EpTensor      **value_out,
                            GPtrArray     **aux,
                            GPtrArray     **grads,
                            GError        **error)
{
  static const gint first = 0;
  g_autofree guint *which = NULL;
  g_autofree GObject **sources = NULL;
  g_autoptr(GPtrArray) args = NULL;
  g_autoptr(GPtrArray) results = NULL;
  g_autoptr(EpGradientTape) tape = NULL;
  g_autoptr(EpTensor) value = NULL;
  GPtrArray *returned = NULL;
  GError *local_error = NULL;
  GPtrArray *gradients;

  /* the preconditions of every public entry point */
  g_return_val_if_fail (inputs != NULL || n_inputs == 0, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);
  for (guint i = 0; i < n_inputs; i++)
    g_return_val_if_fail (EP_IS_TENSOR (inputs[i]), FALSE);

  if (argnums == NULL || n_argnums == 0)
    {
      argnums = &first;
      n_argnums = 1;
    }
  which = g_new (guint, n_argnums);
  if (!resolve_argnums (name, argnums, n_argnums, n_inputs, which, error))
    return FALSE;

  /* each differentiated argument gets a tensor object of its own, with
   * the history of the input, so that f(x, x) has two arguments */
  args = ep_tensor_array_new (n_inputs);
  for (guint i = 0; i < n_inputs; i++)
    g_ptr_array_add (args, g_object_ref (inputs[i]));
  for (guint k = 0; k < n_argnums; k++)
    if (g_ptr_array_index (args, which[k]) == inputs[which[k]])
      {
        EpTensor *own = ep_identity (inputs[which[k]], error);

        if (own == NULL)
          return FALSE;
        g_object_unref (g_ptr_array_index (args, which[k]));
        g_ptr_array_index (args, which[k]) = own;
      }

  tape = g_object_new (EP_TYPE_GRADIENT_TAPE, "watch-accessed-variables", FALSE, NULL);
  sources = g_new (GObject *, n_argnums);
  for (guint k = 0; k < n_argnums; k++)
    {
      sources[k] = g_ptr_array_index (args, which[k]);
      ep_gradient_tape_watch (tape, EP_TENSOR (sources[k]));
    }

  if (!ep_gradient_tape_start (tape, error))
    return FALSE;
  if (aux_func != NULL)
    returned = aux_func ((EpTensor **) args->pdata, n_inputs, user_data, &local_error);
  else
    value = func ((EpTensor **) args->pdata, n_inputs, user_data, &local_error);
  /* the function's own error comes first; else the tape's, if the
   * function left the thread's tapes so that this one cannot stop */
  ep_gradient_tape_stop (tape, local_error == NULL ? &local_error : NULL);

  if (local_error != NULL)
    {
      if (returned != NULL)
        g_ptr_array_unref (ep_autodiff_take_tensors (returned, TRUE, name, "results", NULL));
      g_propagate_error (error, local_error);
      return FALSE;
    }

  if (aux_func != NULL)
    {
      if (returned == NULL)
        {
          g_set_error (error, EP_ERROR, EP_ERROR_INVALID_ARGUMENT,
                       _("%s: the function returned no tensors"), name);
          return FALSE;
        }
      results = ep_autodiff_take_tensors (returned, FALSE, name, "results", error);
      if (results == NULL)
        return FALSE;
      if (results->len == 0)
        {
          g_set_error (error, EP_ERROR, EP_ERROR_INVALID_ARGUMENT,
                       _("%s: the function returned an empty list; the first tensor is the value to differentiate"),
                       name);
          return FALSE;
        }
      value = g_object_ref (g_ptr_array_index (results, 0));
    }

  if (!check_value (name, value, error))
    return FALSE;

  gradients = ep_gradient_tape_gradient (tape, &value, 1, sources, n_argnums, NULL, 0, error);
  if (gradients == NULL)
    return FALSE;

  if (value_out != NULL)
    *value_out = g_steal_pointer (&value);
  if (aux != NULL)
    {
      *aux = ep_tensor_array_new (results != NULL ? results->len - 1 : 0);
      for (guint i = 1; results != NULL && i < results->len; i++)
        g_ptr_array_add (*aux, g_object_ref (g_ptr_array_index (results, i)));
    }
  if (grads != NULL)
    *grads = gradients;
  else
    g_ptr_array_unref (gradients);

  return TRUE;
}

/**
 * ep_value_and_grad:
 * @func: (scope call) (closure user_data): the function to differentiate
 * @user_data: data for @func
 * @inputs: (array length=n_inputs): the arguments to call @func with
 * @n_inputs: the number of arguments
 * @argnums: (array length=n_argnums) (nullable): the arguments to
 *   differentiate with respect to, by position (negative positions count
 *   from the end); %NULL or empty for the first
 * @n_argnums: the number of positions in @argnums
 * @value: (out) (transfer full) (optional): return location for the
 *   value @func returned
 * @grads: (out) (transfer container) (element-type EpTensor) (optional):
 *   return location for the gradients, one per position in @argnums,
 *   each shaped like its argument, in an array that owns them
 * @error: return location for an error
 *
 * Calls @func on @inputs and differentiates the sum of its result with
 * respect to the chosen arguments, as JAX's and EagerPy's `value_and_grad`
 * do. @func is ordinary code: it may branch and loop on values. Each call
 * is independent; nothing is kept between calls. An argument the result
 * does not depend on gets zeros. Called while a tape is active, the whole
 * computation (gradients included) is recorded by that tape, so calls
 * nest for higher derivatives.
 *
 * Returns: (skip): %TRUE on success; %FALSE with @error set: the error
 *   of @func, %EP_ERROR_INVALID_ARGUMENT if it returned no tensor or a
 *   position is out of range, %EP_ERROR_DTYPE if the value is not
 *   floating-point. @value and @grads are left untouched on failure.
 */
gboolean
ep_value_and_grad (EpTensorFunc   func,
                   gpointer       user_data,
                   EpTensor     **inputs,
                   guint          n_inputs,
                   const gint    *argnums,
                   guint          n_argnums,
                   EpTensor     **value,
                   GPtrArray    **grads,
                   GError       **error)
{
  g_return_val_if_fail (func != NULL, FALSE);
  return ep_autodiff_value_and_grad ("value_and_grad", func, NULL, user_data,
                                     inputs, n_inputs, argnums, n_argnums,
                                     value, NULL, grads, error);
}

/**
 * ep_value_aux_and_grad:
 * @func: (scope call) (closure user_data): the function to differentiate:
 *   it returns the value first, then auxiliary results
 * @user_data: data for @func
 * @inputs: (array length=n_inputs): the arguments to call @func with
 * @n_inputs: the number of arguments
 * @argnums: (array length=n_argnums) (nullable): the arguments to
 *   differentiate with respect to; %NULL or empty for the first
 * @n_argnums: the number of positions in @argnums
 * @value: (out) (transfer full) (optional): return location for the
 *   value: the first tensor @func returned
 * @aux: (out) (transfer container) (element-type EpTensor) (optional):
 *   return location for the auxiliary results: what @func returned after
 *   the value, in an array that owns them
 * @grads: (out) (transfer container) (element-type EpTensor) (optional):
 *   return location for the gradients, one per position in @argnums, in
 *   an array that owns them
 * @error: return location for an error
 *
 * Like [func@value_and_grad] for a function that returns more than the
 * value to differentiate (EagerPy's `value_aux_and_grad`). The auxiliary
 * results are returned as computed; they are not differentiated.
 *
 * Returns: (skip): %TRUE on success; %FALSE with @error set as for
 *   [func@value_and_grad], and %EP_ERROR_INVALID_ARGUMENT if @func
 *   returned no tensors or an element that is not a tensor
 */
gboolean
ep_value_aux_and_grad (EpTensorsFunc   func,
                       gpointer        user_data,
                       EpTensor      **inputs,
                       guint           n_inputs,
                       const gint     *argnums,
                       guint           n_argnums,
                       EpTensor      **value,
                       GPtrArray     **aux,
                       GPtrArray     **grads,
                       GError        **error)
{
  g_return_val_if_fail (func != NULL, FALSE);
  return ep_autodiff_value_and_grad ("value_aux_and_grad", NULL, func, user_data,
                                     inputs, n_inputs, argnums, n_argnums,
                                     value, aux, grads, error);
}

/* Custom gradients */

/* The user's backward function: on the op's output, and on the graph
 * node of a staged function that traced the op (which gives it to the
 * outputs of the replays that tapes record), hence counted. */
typedef struct
{
  gatomicrefcount ref_count;
  EpGradientFunc  backward;
  gpointer        data;
  GDestroyNotify  destroy;
} Backward;

static EP_DEFINE_QUARK (ep-custom-gradient-backward, backward)

static void
backward_free (gpointer data)
{
  Backward *closure = data;

  if (!g_atomic_ref_count_dec (&closure->ref_count))
    return;
  if (closure->destroy != NULL)
    closure->destroy (closure->data);
  g_free (closure);
}

/* The backward function of @output, a result of ep_custom_gradient(), or
 * %NULL: a reference, for ep_custom_gradient_unref_backward() */
gpointer
ep_custom_gradient_ref_backward (EpTensor *output)
{
  Backward *closure = g_object_get_qdata (G_OBJECT (output), backward_quark ());

  if (closure != NULL)
    g_atomic_ref_count_inc (&closure->ref_count);
  return closure;
}

/* Gives @output, a new result of the custom_gradient op, @backward's
 * function (it takes a reference). */
void
ep_custom_gradient_set_backward (EpTensor *output,
                                 gpointer  backward)
{
  Backward *closure = backward;

  g_atomic_ref_count_inc (&closure->ref_count);
  g_object_set_qdata_full (G_OBJECT (output), backward_quark (), closure, backward_free);
}

/* The closure that forward rules (jvp-rules.c) use for the
 * custom_gradient op about to be dispatched on this thread, whose output
 * does not carry it yet; returns the one set before, to put back. */
gpointer
ep_custom_gradient_set_pending (gpointer backward)
{
  EpContext *context = ep_context_get ();
  gpointer previous = context->custom_backward;

  context->custom_backward = backward;
  return previous;
}

/* Another reference to @backward, from ep_custom_gradient_ref_backward() */
gpointer
ep_custom_gradient_dup_backward (gpointer backward)
{
  Backward *closure = backward;

  g_atomic_ref_count_inc (&closure->ref_count);
  return closure;
}

void
ep_custom_gradient_unref_backward (gpointer backward)
{
  backward_free (backward);
}

/* The rule of the custom_gradient op: the user's backward function,
 * found on the op's output. Input 0 (the forward result) has no history
 * and gets no gradient. */
gboolean
ep_custom_gradient_rule (const EpOpCall   *call,
                         EpTensor *const  *output_grads,
                         EpTensor        **input_grads,
                         GError          **error)
{
  Backward *closure = g_object_get_qdata (G_OBJECT (call->outputs[0]), backward_quark ());
  guint n = call->n_inputs - 1;
  gboolean wanted = FALSE;
  g_autoptr(GPtrArray) grads = NULL;
  GPtrArray *returned;
  GError *local_error = NULL;

  /* a forward rule runs before the output carries its closure */
  if (closure == NULL)
    closure = ep_context_get ()->custom_backward;
  for (guint i = 1; i < call->n_inputs; i++)
    wanted |= ep_grad_needed (call, i);
  if (!wanted)
    return TRUE;

  if (closure == NULL)
    {
      g_set_error (error, EP_ERROR, EP_ERROR_GRADIENT,
                   _("custom_gradient: the backward function is not available"));
      return FALSE;
    }

  returned = closure->backward (call->inputs + 1, n, call->outputs[0], output_grads[0],
                                closure->data, &local_error);
  if (local_error != NULL)
    {
      if (returned != NULL)
        g_ptr_array_unref (ep_autodiff_take_tensors (returned, TRUE, "custom_gradient", "gradients", NULL));
      g_propagate_error (error, local_error);
      return FALSE;
    }
  if (returned == NULL)
    {
      g_set_error (error, EP_ERROR, EP_ERROR_INVALID_ARGUMENT,
                   _("custom_gradient: the backward function returned nothing"));
      return FALSE;
    }

  grads = ep_autodiff_take_tensors (returned, TRUE, "custom_gradient", "gradients", error);
  if (grads == NULL)
    return FALSE;
  if (grads->len != n)
    {
      g_set_error (error, EP_ERROR, EP_ERROR_INVALID_ARGUMENT,
                   _("custom_gradient: the backward function returns one gradient per argument (%u); it returned %u"),
                   n, grads->len);
      return FALSE;
    }

  for (guint i = 0; i < n; i++)
    {
      EpTensor *grad = g_ptr_array_index (grads, i);
      EpTensor *input = call->inputs[i + 1];

      if (grad == NULL)
        continue;

      if (!ep_layout_same_shape (&grad->layout, &input->layout))
        {
          g_autofree char *got = ep_shape_to_string (grad->layout.shape, grad->layout.ndim);
          g_autofree char *want = ep_shape_to_string (input->layout.shape, input->layout.ndim);

          g_set_error (error, EP_ERROR, EP_ERROR_SHAPE,
                       _("custom_gradient: gradient %u has shape %s, its argument has shape %s"),
                       i, got, want);
          return FALSE;
        }
      input_grads[i + 1] = g_object_ref (grad);
    }

  return TRUE;
}

/**
 * ep_custom_gradient:
 * @forward: (scope call) (closure forward_data): computes the result
 * @forward_data: data for @forward
 * @backward: (scope notified) (closure backward_data) (destroy backward_destroy):
 *   computes the gradients of the arguments from the gradient of the result
 * @backward_data: data for @backward
 * @backward_destroy: (nullable): frees @backward_data when the result and
 *   every tape that recorded it are gone
 * @inputs: (array length=n_inputs): the arguments
 * @n_inputs: the number of arguments
 * @error: return location for an error
 *
 * Calls @forward on @inputs and gives its result a gradient of your
 * choosing: tapes see one operation from @inputs to the result, whose
 * gradient rule is @backward. Use it for numerical stability (the
 * gradient of `log(1 + exp(x))` computed naively is NaN at x = 100; a
 * backward function returning `g * sigmoid(x)` gives 1), to clip
 * gradients, or to skip differentiating through an iterative solver.
 *
 * @forward sees its arguments without history: what it does inside is
 * not recorded (variables read inside it get no gradient; pass their
 * values as arguments). @backward runs when a tape computes a gradient,
 * with the original arguments: the operations it runs are recorded by
 * outer tapes, so second derivatives go through it.
 *
 * Returns: (transfer full): the result of @forward, or %NULL with an
 *   error set: the error of @forward, or %EP_ERROR_INVALID_ARGUMENT if it
 *   returned no tensor
 */
EpTensor *
ep_custom_gradient (EpTensorFunc     forward,
                    gpointer         forward_data,
                    EpGradientFunc   backward,
                    gpointer         backward_data,
                    GDestroyNotify   backward_destroy,
                    EpTensor       **inputs,
                    guint            n_inputs,
                    GError         **error)
{
  Backward *closure;
  g_autoptr(GPtrArray) detached = NULL;
  g_autoptr(EpTensor) result = NULL;
  g_autofree EpTensor **op_inputs = NULL;
  GError *local_error = NULL;
  EpTensor *output;

  g_return_val_if_fail (forward != NULL, NULL);
  g_return_val_if_fail (backward != NULL, NULL);
  g_return_val_if_fail (inputs != NULL || n_inputs == 0, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);
  for (guint i = 0; i < n_inputs; i++)
    g_return_val_if_fail (EP_IS_TENSOR (inputs[i]), NULL);

  closure = g_new0 (Backward, 1);
  g_atomic_ref_count_init (&closure->ref_count);
  closure->backward = backward;
  closure->data = backward_data;
  closure->destroy = backward_destroy;

  detached = ep_tensor_array_new (n_inputs);
  for (guint i = 0; i < n_inputs; i++)
    {
      EpTensor *plain = ep_tensor_stop_gradient (inputs[i], error);

      if (plain == NULL)
        {
          backward_free (closure);
          return NULL;
        }
      g_ptr_array_add (detached, plain);
    }

  result = forward ((EpTensor **) detached->pdata, n_inputs, forward_data, &local_error);
  if (local_error != NULL || result == NULL || !EP_IS_TENSOR (result))
    {
      backward_free (closure);
      if (local_error != NULL)
        g_propagate_error (error, local_error);
      else
        g_set_error (error, EP_ERROR, EP_ERROR_INVALID_ARGUMENT,
                     _("custom_gradient: the forward function returned no tensor"));
      return NULL;
    }

  op_inputs = g_new (EpTensor *, n_inputs + 1);
  op_inputs[0] = result;
  for (guint i = 0; i < n_inputs; i++)
    op_inputs[i + 1] = inputs[i];

  {
    gpointer pending = ep_custom_gradient_set_pending (closure);

    output = ep_dispatch1 (&ep_op_custom_gradient, op_inputs, n_inputs + 1, NULL, error);
    ep_custom_gradient_set_pending (pending);
  }
  if (output == NULL)
    {
      backward_free (closure);
      return NULL;
    }

  g_object_set_qdata_full (G_OBJECT (output), backward_quark (), closure, backward_free);
  return output;
}
