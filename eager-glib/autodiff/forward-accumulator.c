/* autodiff/forward-accumulator.c
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <glib/gi18n-lib.h>

#include "ep-autodiff-private.h"
#include "ep-enum-types.h"
#include "ep-error.h"
#include "ep-error-private.h"
#include "ep-forward-accumulator.h"
#include "ep-jvp-private.h"
#include "ep-recorder-private.h"

/**
 * EpForwardAccumulator:
 *
 * Computes Jacobian-vector products in forward mode, as TensorFlow's
 * `tf.autodiff.ForwardAccumulator` does.
 *
 * [method@ForwardAccumulator.watch] gives a tensor (a *primal*) a
 * *tangent*, a direction of the same shape and type. While the
 * accumulator is active ([method@ForwardAccumulator.start] in C,
 * `with Ep.ForwardAccumulator(primals, tangents) as acc:` in Python),
 * every operation on a tensor with a tangent computes the tangent of its
 * results by the operation's forward rule, at once; afterwards
 * [method@ForwardAccumulator.jvp] gives the tangent of any result: the
 * derivative of that result along the tangents, `J · t`, for the cost of
 * about one more evaluation and no stored history.
 *
 * Every operation with a gradient rule has a forward rule (written for
 * the common ones; for the others derived exactly from the gradient rule,
 * see `docs/autodiff.md`). The tangent computations are operations too:
 * a [class@GradientTape] or accumulator active *outside* this one
 * records them, and the operations of a tape's backward pass run *inside*
 * this accumulator get tangents, which gives Hessian-vector products
 * (forward over reverse, see [func@hvp]). Staged functions called while
 * an accumulator is active run their operations one by one, so tangents
 * flow through them; host callbacks ([func@host_call]) are opaque and
 * refuse inputs with tangents.
 *
 * Active accumulators and tapes form one stack per thread: an
 * accumulator sees the operations its thread runs, and is stopped by
 * that thread. An active accumulator holds a reference to itself until
 * it is stopped. It holds the tangents it computed (and their primals)
 * until it is reset or finalized.
 *
 * ```c
 * g_autoptr(EpForwardAccumulator) acc = ep_forward_accumulator_new ();
 * ep_forward_accumulator_watch (acc, x, v, &error);
 * ep_forward_accumulator_start (acc, &error);
 * g_autoptr(EpTensor) y = ep_tensor_tanh (x, &error);
 * ep_forward_accumulator_stop (acc, &error);
 * g_autoptr(EpTensor) dy = ep_forward_accumulator_jvp (acc, y, &error);  // (1 - y²) v
 * ```
 */

struct _EpForwardAccumulator
{
  GObject                 parent_instance;

  EpRecorder              recorder;
  EpUnconnectedGradients  unconnected;
  GThread                *thread;
  GHashTable             *tangents;   /* primal (ref) → tangent (ref) */
};

enum {
  PROP_0,
  PROP_UNCONNECTED_GRADIENTS,
  N_PROPS
};

static GParamSpec *props[N_PROPS];

G_DEFINE_FINAL_TYPE (EpForwardAccumulator, ep_forward_accumulator, G_TYPE_OBJECT)

static EpForwardAccumulator *
accumulator_of (EpRecorder *recorder)
{
  return (EpForwardAccumulator *) ((guint8 *) recorder - G_STRUCT_OFFSET (EpForwardAccumulator, recorder));
}

/* The tapes' hook: nothing to do before the other recorders are done */
static gboolean
accumulator_record (EpRecorder      *recorder,
                    const EpOpCall  *call,
                    GError         **error)
{
  return TRUE;
}

/* The forward hook: the tangents of @call's outputs, from its inputs' */
static gboolean
accumulator_forward (EpRecorder      *recorder,
                     const EpOpCall  *call,
                     GError         **error)
{
  EpForwardAccumulator *self = accumulator_of (recorder);
  EpTensor *inline_tangents[8] = { NULL };
  EpTensor **tangents;
  EpTensor *outputs[EP_MAX_OUTPUTS] = { NULL };
  gboolean any = FALSE, batchable, ok;

  if (g_hash_table_size (self->tangents) == 0)
    return TRUE;

  tangents = call->n_inputs <= 8 ? inline_tangents : g_new0 (EpTensor *, call->n_inputs);
  for (guint i = 0; i < call->n_inputs; i++)
    {
      tangents[i] = g_hash_table_lookup (self->tangents, call->inputs[i]);
      any = any || tangents[i] != NULL;
    }

  ok = !any || ep_jvp_rule (call, tangents, 0, outputs, &batchable, error);
  for (guint o = 0; o < call->n_outputs; o++)
    if (outputs[o] != NULL)
      g_hash_table_replace (self->tangents, g_object_ref (call->outputs[o]), outputs[o]);

  if (tangents != inline_tangents)
    g_free (tangents);

  return ok;
}

/* A host callback is opaque: its results cannot get tangents */
static gboolean
accumulator_host (EpRecorder       *recorder,
                  EpHostCall       *call,
                  EpTensor *const  *inputs,
                  guint             n_inputs,
                  EpTensor *const  *outputs,
                  guint             n_outputs,
                  GError          **error)
{
  EpForwardAccumulator *self = accumulator_of (recorder);

  for (guint i = 0; i < n_inputs; i++)
    if (g_hash_table_contains (self->tangents, inputs[i]))
      {
        g_set_error (error, EP_ERROR, EP_ERROR_GRADIENT,
                     _("host_call: forward-mode derivatives do not go through host callbacks "
                       "(input %u has a tangent)"), i);
        return FALSE;
      }

  return TRUE;
}

static void
ep_forward_accumulator_finalize (GObject *object)
{
  EpForwardAccumulator *self = EP_FORWARD_ACCUMULATOR (object);

  g_hash_table_unref (self->tangents);

  G_OBJECT_CLASS (ep_forward_accumulator_parent_class)->finalize (object);
}

static void
ep_forward_accumulator_dispose (GObject *object)
{
  EpForwardAccumulator *self = EP_FORWARD_ACCUMULATOR (object);

  g_hash_table_remove_all (self->tangents);

  G_OBJECT_CLASS (ep_forward_accumulator_parent_class)->dispose (object);
}

static void
ep_forward_accumulator_get_property (GObject    *object,
                                     guint       prop_id,
                                     GValue     *value,
                                     GParamSpec *pspec)
{
  EpForwardAccumulator *self = EP_FORWARD_ACCUMULATOR (object);

  switch (prop_id)
    {
    case PROP_UNCONNECTED_GRADIENTS:
      g_value_set_enum (value, self->unconnected);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
ep_forward_accumulator_set_property (GObject      *object,
                                     guint         prop_id,
                                     const GValue *value,
                                     GParamSpec   *pspec)
{
  EpForwardAccumulator *self = EP_FORWARD_ACCUMULATOR (object);

  switch (prop_id)
    {
    case PROP_UNCONNECTED_GRADIENTS:
      ep_forward_accumulator_set_unconnected_gradients (self, g_value_get_enum (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
ep_forward_accumulator_class_init (EpForwardAccumulatorClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->dispose = ep_forward_accumulator_dispose;
  object_class->finalize = ep_forward_accumulator_finalize;
  object_class->get_property = ep_forward_accumulator_get_property;
  object_class->set_property = ep_forward_accumulator_set_property;

  /**
   * EpForwardAccumulator:unconnected-gradients:
   *
   * What [method@ForwardAccumulator.jvp] answers for a tensor that does
   * not depend on any watched primal: zeros shaped like it (the default)
   * or %NULL.
   */
  props[PROP_UNCONNECTED_GRADIENTS] =
    g_param_spec_enum ("unconnected-gradients", NULL, NULL,
                       EP_TYPE_UNCONNECTED_GRADIENTS, EP_UNCONNECTED_GRADIENTS_ZERO,
                       G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | G_PARAM_EXPLICIT_NOTIFY);

  g_object_class_install_properties (object_class, N_PROPS, props);
}

static void
ep_forward_accumulator_init (EpForwardAccumulator *self)
{
  self->recorder.record = accumulator_record;
  self->recorder.forward = accumulator_forward;
  self->recorder.host = accumulator_host;
  /* no composite hook: a staged call runs its ops one by one for us */
  self->tangents = g_hash_table_new_full (g_direct_hash, g_direct_equal, g_object_unref, g_object_unref);
}

/**
 * ep_forward_accumulator_new:
 *
 * Creates an accumulator with no tangents. Give it some with
 * [method@ForwardAccumulator.watch], then start it.
 *
 * Returns: (transfer full): the new accumulator
 */
EpForwardAccumulator *
ep_forward_accumulator_new (void)
{
  return g_object_new (EP_TYPE_FORWARD_ACCUMULATOR, NULL);
}

/**
 * ep_forward_accumulator_watch:
 * @self: an accumulator
 * @primal: a floating-point tensor
 * @tangent: its tangent: a tensor of the same shape and type
 * @error: return location for an error
 *
 * Gives @primal the tangent @tangent (replacing one it had): operations
 * on @primal run while @self is active then carry the derivative along
 * @tangent.
 *
 * Returns: %TRUE, or %FALSE with an error set: %EP_ERROR_DTYPE if @primal
 *   is not floating-point or @tangent has another type, %EP_ERROR_SHAPE
 *   if their shapes differ, %EP_ERROR_INVALID_ARGUMENT if either was
 *   released
 */
gboolean
ep_forward_accumulator_watch (EpForwardAccumulator  *self,
                              EpTensor              *primal,
                              EpTensor              *tangent,
                              GError               **error)
{
  g_return_val_if_fail (EP_IS_FORWARD_ACCUMULATOR (self), FALSE);
  g_return_val_if_fail (EP_IS_TENSOR (primal), FALSE);
  g_return_val_if_fail (EP_IS_TENSOR (tangent), FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  if (!ep_tensor_check_alive (primal, "watch", error)
      || !ep_tensor_check_alive (tangent, "watch", error))
    return FALSE;
  if (!ep_dtype_is_floating (primal->layout.dtype))
    {
      g_set_error (error, EP_ERROR, EP_ERROR_DTYPE,
                   _("watch: the primal has type %s; only floating-point tensors have tangents"),
                   ep_dtype_get_name (primal->layout.dtype));
      return FALSE;
    }
  if (!ep_layout_same_shape (&primal->layout, &tangent->layout))
    {
      g_autofree char *ps = ep_shape_to_string (primal->layout.shape, primal->layout.ndim);
      g_autofree char *ts = ep_shape_to_string (tangent->layout.shape, tangent->layout.ndim);

      g_set_error (error, EP_ERROR, EP_ERROR_SHAPE,
                   _("watch: the tangent has shape %s, its primal %s"), ts, ps);
      return FALSE;
    }
  if (tangent->layout.dtype != primal->layout.dtype)
    {
      g_set_error (error, EP_ERROR, EP_ERROR_DTYPE,
                   _("watch: the tangent has type %s, its primal %s"),
                   ep_dtype_get_name (tangent->layout.dtype),
                   ep_dtype_get_name (primal->layout.dtype));
      return FALSE;
    }

  g_hash_table_replace (self->tangents, g_object_ref (primal), g_object_ref (tangent));
  return TRUE;
}

/* start's and stop's errors */
static const EpRecorderErrors recorder_errors = {
  .already_active = N_("start: the accumulator is already active"),
  .not_active = N_("stop: the accumulator is not active"),
  .other_thread = N_("stop: the accumulator was started by another thread"),
  .paused = N_("stop: the accumulator is paused while a host callback runs"),
};

/**
 * ep_forward_accumulator_start:
 * @self: an accumulator
 * @error: return location for an error
 *
 * Makes @self the innermost active recorder of this thread: from now on
 * operations on tensors with tangents compute their results' tangents.
 * An accumulator can be started again after it was stopped.
 *
 * Returns: %TRUE, or %FALSE with %EP_ERROR_GRADIENT set if @self is
 *   already active
 */
gboolean
ep_forward_accumulator_start (EpForwardAccumulator  *self,
                              GError               **error)
{
  g_return_val_if_fail (EP_IS_FORWARD_ACCUMULATOR (self), FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  return ep_recorder_start (&self->recorder, G_OBJECT (self), &self->thread, &recorder_errors, error);
}

/**
 * ep_forward_accumulator_stop:
 * @self: an accumulator
 * @error: return location for an error
 *
 * Takes @self off this thread's stack of active recorders; it keeps the
 * tangents it computed for [method@ForwardAccumulator.jvp].
 *
 * Returns: %TRUE, or %FALSE with %EP_ERROR_GRADIENT set if @self is not
 *   active or was started by another thread
 */
gboolean
ep_forward_accumulator_stop (EpForwardAccumulator  *self,
                             GError               **error)
{
  g_return_val_if_fail (EP_IS_FORWARD_ACCUMULATOR (self), FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  return ep_recorder_stop (&self->recorder, G_OBJECT (self), &self->thread, &recorder_errors, error);
}

/**
 * ep_forward_accumulator_is_active:
 * @self: an accumulator
 *
 * Tells whether @self is on its thread's stack of active recorders.
 *
 * Returns: whether @self has been started and not stopped
 */
gboolean
ep_forward_accumulator_is_active (EpForwardAccumulator *self)
{
  g_return_val_if_fail (EP_IS_FORWARD_ACCUMULATOR (self), FALSE);

  return self->recorder.active;
}

/**
 * ep_forward_accumulator_record:
 * @self: an accumulator
 * @func: (scope call) (closure user_data): the code to run
 * @user_data: data for @func
 * @error: return location for an error
 *
 * Starts @self, runs @func and stops @self, whatever happens in @func:
 * the scoped form of [method@ForwardAccumulator.start] and
 * [method@ForwardAccumulator.stop] for languages without Python's `with`.
 *
 * ```js
 * acc.watch(x, v);
 * const y = acc.record(() => x.tanh());
 * const dy = acc.jvp(y);
 * ```
 *
 * Returns: (transfer full) (nullable): what @func returned, or %NULL
 *   (with @error set if @self could not start or stop, or @func failed)
 */
EpTensor *
ep_forward_accumulator_record (EpForwardAccumulator  *self,
                               EpScopeFunc            func,
                               gpointer               user_data,
                               GError               **error)
{
  g_return_val_if_fail (EP_IS_FORWARD_ACCUMULATOR (self), NULL);
  g_return_val_if_fail (func != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  return ep_autodiff_record (self, &self->recorder, (EpRecorderSwitch) ep_forward_accumulator_start,
                             (EpRecorderSwitch) ep_forward_accumulator_stop, func, user_data,
                             _("record: the function stopped the accumulator"), error);
}

/**
 * ep_forward_accumulator_jvp:
 * @self: an accumulator
 * @tensor: a tensor computed while @self was active, or a watched primal
 * @error: return location for an error
 *
 * The tangent of @tensor: its derivative along the watched tangents, the
 * Jacobian-vector product `J · t`. It can be asked while @self is active
 * or after.
 *
 * Returns: (transfer full) (nullable): a tensor shaped like @tensor; for a
 *   tensor that does not depend on a watched primal (or is not
 *   floating-point) zeros, or %NULL without an error if
 *   [property@ForwardAccumulator:unconnected-gradients] says so; %NULL
 *   with %EP_ERROR_INVALID_ARGUMENT set if the tangent was released
 */
EpTensor *
ep_forward_accumulator_jvp (EpForwardAccumulator  *self,
                            EpTensor              *tensor,
                            GError               **error)
{
  EpTensor *tangent;
  EpTensor *result;

  g_return_val_if_fail (EP_IS_FORWARD_ACCUMULATOR (self), NULL);
  g_return_val_if_fail (EP_IS_TENSOR (tensor), NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  tangent = g_hash_table_lookup (self->tangents, tensor);
  if (tangent == NULL)
    {
      if (self->unconnected == EP_UNCONNECTED_GRADIENTS_NONE)
        return NULL;
      if (!ep_tensor_check_alive (tensor, "jvp", error))
        return NULL;
      return ep_tensor_zeros_like (tensor, error);
    }

  /* a new object: releasing it must not release the one we hold */
  result = ep_identity (tangent, error);
  ep_error_rename_call (error, "identity", "jvp");
  return result;
}

/**
 * ep_forward_accumulator_reset:
 * @self: an accumulator
 *
 * Forgets every tangent, watched or computed. If @self is active it stays
 * active.
 */
void
ep_forward_accumulator_reset (EpForwardAccumulator *self)
{
  g_return_if_fail (EP_IS_FORWARD_ACCUMULATOR (self));

  g_hash_table_remove_all (self->tangents);
}

/**
 * ep_forward_accumulator_get_unconnected_gradients:
 * @self: an accumulator
 *
 * Tells what [method@ForwardAccumulator.jvp] answers for a tensor that
 * does not depend on a watched primal.
 *
 * Returns: zeros or none
 */
EpUnconnectedGradients
ep_forward_accumulator_get_unconnected_gradients (EpForwardAccumulator *self)
{
  g_return_val_if_fail (EP_IS_FORWARD_ACCUMULATOR (self), EP_UNCONNECTED_GRADIENTS_ZERO);

  return self->unconnected;
}

/**
 * ep_forward_accumulator_set_unconnected_gradients:
 * @self: an accumulator
 * @unconnected: what the tangent of an unconnected tensor is to be
 *
 * Chooses between zeros (the default) and %NULL for the tangent of a
 * tensor that does not depend on a watched primal.
 */
void
ep_forward_accumulator_set_unconnected_gradients (EpForwardAccumulator  *self,
                                                  EpUnconnectedGradients unconnected)
{
  g_return_if_fail (EP_IS_FORWARD_ACCUMULATOR (self));
  g_return_if_fail (unconnected == EP_UNCONNECTED_GRADIENTS_ZERO
                    || unconnected == EP_UNCONNECTED_GRADIENTS_NONE);

  if (self->unconnected == unconnected)
    return;

  self->unconnected = unconnected;
  g_object_notify_by_pspec (G_OBJECT (self), props[PROP_UNCONNECTED_GRADIENTS]);
}

/* The functional forms */

/* Fresh objects for the primals, each watched with its tangent */
static GPtrArray *
watch_all (EpForwardAccumulator  *self,
           const char            *name,
           EpTensor             **primals,
           guint                  n_primals,
           EpTensor             **tangents,
           guint                  n_tangents,
           GError               **error)
{
  g_autoptr(GPtrArray) inputs = ep_tensor_array_new (n_primals);

  if (n_tangents != n_primals)
    {
      g_set_error (error, EP_ERROR, EP_ERROR_INVALID_ARGUMENT,
                   _("%s: one tangent per primal (%u) is needed; %u given"),
                   name, n_primals, n_tangents);
      return NULL;
    }
  for (guint i = 0; i < n_primals; i++)
    {
      EpTensor *input;

      if (!EP_IS_TENSOR (primals[i]) || !EP_IS_TENSOR (tangents[i]))
        {
          g_set_error (error, EP_ERROR, EP_ERROR_INVALID_ARGUMENT,
                       _("%s: primal and tangent %u must be tensors"), name, i);
          return NULL;
        }
      input = ep_identity (primals[i], error);
      if (input == NULL)
        {
          ep_error_rename_call (error, "identity", name);
          return NULL;
        }
      g_ptr_array_add (inputs, input);
      if (!ep_forward_accumulator_watch (self, input, tangents[i], error))
        {
          ep_error_rename_call (error, "watch", name);
          return NULL;
        }
    }

  return g_steal_pointer (&inputs);
}

/**
 * ep_jvp:
 * @func: (scope call) (closure user_data): the function
 * @user_data: data for @func
 * @primals: (array length=n_primals): the point: @func's arguments
 * @n_primals: the number of arguments
 * @tangents: (array length=n_tangents): the direction: one tangent per
 *   argument, of its shape and type
 * @n_tangents: the number of tangents: @n_primals
 * @outputs: (out) (transfer container) (element-type EpTensor) (optional):
 *   @func's results
 * @output_tangents: (out) (transfer container) (element-type EpTensor) (optional):
 *   their tangents: the Jacobian-vector products (zeros for a result that
 *   does not depend on the arguments)
 * @error: return location for an error
 *
 * Evaluates @func at @primals and its derivative along @tangents in one
 * forward pass, like `torch.func.jvp` and `jax.jvp`, with an
 * [class@ForwardAccumulator] of its own.
 *
 * Returns: %TRUE, or %FALSE with an error set: %EP_ERROR_INVALID_ARGUMENT
 *   for a count that differs or a result that is no tensor, the errors
 *   of [method@ForwardAccumulator.watch], or @func's error
 */
gboolean
ep_jvp (EpTensorsFunc   func,
        gpointer        user_data,
        EpTensor      **primals,
        guint           n_primals,
        EpTensor      **tangents,
        guint           n_tangents,
        GPtrArray     **outputs,
        GPtrArray     **output_tangents,
        GError        **error)
{
  g_autoptr(EpForwardAccumulator) self = ep_forward_accumulator_new ();
  g_autoptr(GPtrArray) inputs = NULL;
  g_autoptr(GPtrArray) returned = NULL;
  g_autoptr(GPtrArray) results = NULL;
  g_autoptr(GPtrArray) products = NULL;
  GError *local = NULL;

  g_return_val_if_fail (func != NULL, FALSE);
  g_return_val_if_fail (primals != NULL || n_primals == 0, FALSE);
  g_return_val_if_fail (tangents != NULL || n_tangents == 0, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  inputs = watch_all (self, "jvp", primals, n_primals, tangents, n_tangents, error);
  if (inputs == NULL || !ep_forward_accumulator_start (self, error))
    return FALSE;
  returned = func ((EpTensor **) inputs->pdata, inputs->len, user_data, &local);
  ep_forward_accumulator_stop (self, NULL);
  if (local != NULL)
    {
      g_clear_pointer (&returned, g_ptr_array_unref);
      g_propagate_error (error, local);
      return FALSE;
    }
  if (returned == NULL)
    {
      g_set_error (error, EP_ERROR, EP_ERROR_INVALID_ARGUMENT,
                   _("%s: the function returned no tensors"), "jvp");
      return FALSE;
    }
  results = ep_autodiff_take_tensors (g_steal_pointer (&returned), FALSE, "jvp", _("results"), error);
  if (results == NULL)
    return FALSE;

  products = ep_tensor_array_new (results->len);
  for (guint r = 0; r < results->len; r++)
    {
      EpTensor *tangent = ep_forward_accumulator_jvp (self, g_ptr_array_index (results, r), error);

      if (tangent == NULL)
        return FALSE;
      g_ptr_array_add (products, tangent);
    }

  if (outputs != NULL)
    *outputs = g_steal_pointer (&results);
  if (output_tangents != NULL)
    *output_tangents = g_steal_pointer (&products);
  return TRUE;
}

/**
 * ep_hvp:
 * @func: (scope call) (closure user_data): a function with a
 *   single-element floating-point result
 * @user_data: data for @func
 * @primals: (array length=n_primals): the point: @func's arguments
 * @n_primals: the number of arguments
 * @vectors: (array length=n_vectors): one vector per argument, of its
 *   shape and type
 * @n_vectors: the number of vectors: @n_primals
 * @value: (out) (transfer full) (optional): @func's result
 * @products: (out) (transfer container) (element-type EpTensor) (optional):
 *   the Hessian-vector products, one per argument, shaped like it
 * @error: return location for an error
 *
 * The product of @func's Hessian at @primals with @vectors, like
 * `torch.autograd.functional.hvp`: the derivative along @vectors of the
 * gradient, computed forward over reverse (an [class@ForwardAccumulator]
 * around a [class@GradientTape]) for about the cost of two gradients,
 * without forming the Hessian.
 *
 * Returns: %TRUE, or %FALSE with an error set: %EP_ERROR_SHAPE if @func's
 *   result has more than one element, %EP_ERROR_DTYPE if it is not
 *   floating-point, the errors of [func@jvp], or @func's error
 */
gboolean
ep_hvp (EpTensorFunc   func,
        gpointer       user_data,
        EpTensor     **primals,
        guint          n_primals,
        EpTensor     **vectors,
        guint          n_vectors,
        EpTensor     **value,
        GPtrArray    **products,
        GError       **error)
{
  g_autoptr(EpForwardAccumulator) self = ep_forward_accumulator_new ();
  g_autoptr(EpGradientTape) tape = ep_gradient_tape_new (FALSE);
  g_autoptr(GPtrArray) inputs = NULL;
  g_autoptr(GPtrArray) grads = NULL;
  g_autoptr(GPtrArray) result = NULL;
  g_autoptr(EpTensor) y = NULL;
  GError *local = NULL;

  g_return_val_if_fail (func != NULL, FALSE);
  g_return_val_if_fail (primals != NULL || n_primals == 0, FALSE);
  g_return_val_if_fail (vectors != NULL || n_vectors == 0, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  inputs = watch_all (self, "hvp", primals, n_primals, vectors, n_vectors, error);
  if (inputs == NULL || !ep_forward_accumulator_start (self, error))
    return FALSE;

  ep_gradient_tape_start (tape, NULL);
  for (guint i = 0; i < inputs->len; i++)
    ep_gradient_tape_watch (tape, g_ptr_array_index (inputs, i));
  y = func ((EpTensor **) inputs->pdata, inputs->len, user_data, &local);
  ep_gradient_tape_stop (tape, NULL);

  if (local == NULL && (y == NULL || !EP_IS_TENSOR (y)))
    g_set_error (&local, EP_ERROR, EP_ERROR_INVALID_ARGUMENT,
                 _("%s: the function returned no tensor"), "hvp");
  else if (local == NULL && !ep_dtype_is_floating (y->layout.dtype))
    g_set_error (&local, EP_ERROR, EP_ERROR_DTYPE,
                 _("hvp: the function returned a tensor of type %s; only floating-point values have gradients"),
                 ep_dtype_get_name (y->layout.dtype));
  else if (local == NULL && ep_layout_get_size (&y->layout) != 1)
    {
      g_autofree char *shape = ep_shape_to_string (y->layout.shape, y->layout.ndim);

      g_set_error (&local, EP_ERROR, EP_ERROR_SHAPE,
                   _("hvp: the function must return a single element; it returned a tensor of shape %s"),
                   shape);
    }

  /* the backward pass runs inside the accumulator: its tangents are the
   * Hessian-vector products */
  if (local == NULL)
    grads = ep_gradient_tape_gradient_tensors (tape, &y, 1, (EpTensor **) inputs->pdata, inputs->len,
                                               NULL, 0, &local);
  ep_forward_accumulator_stop (self, NULL);
  if (local != NULL)
    {
      g_propagate_error (error, local);
      return FALSE;
    }

  result = ep_tensor_array_new (grads->len);
  for (guint i = 0; i < grads->len; i++)
    {
      EpTensor *product = ep_forward_accumulator_jvp (self, g_ptr_array_index (grads, i), error);

      if (product == NULL)
        return FALSE;
      g_ptr_array_add (result, product);
    }

  if (value != NULL)
    *value = g_steal_pointer (&y);
  if (products != NULL)
    *products = g_steal_pointer (&result);
  return TRUE;
}
