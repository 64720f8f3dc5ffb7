/* autodiff/gradient-tape.c
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <glib/gi18n-lib.h>
#include <inttypes.h>
#include <string.h>

#include "ep-autodiff-private.h"
#include "ep-dispatch-private.h"
#include "ep-enum-types.h"
#include "ep-error.h"
#include "ep-error-private.h"
#include "ep-fault-private.h"
#include "ep-grad-private.h"
#include "ep-gradient-tape.h"
#include "ep-jvp-private.h"
#include "ep-join.h"
#include "ep-recorder-private.h"

/**
 * EpGradientTape:
 *
 * Records operations so that their gradients can be computed.
 *
 * While a tape is active ([method@GradientTape.start] in C,
 * `with Ep.GradientTape() as tape:` in Python), every operation one of
 * whose inputs the tape watches, or produced by an operation it recorded,
 * is recorded. [method@GradientTape.watch] watches a tensor; a trainable
 * [class@Variable] read while the tape is active is watched without being
 * asked. [method@GradientTape.gradient] then computes the gradient of the
 * sum of some targets with respect to some sources, by running the
 * recorded operations' gradient rules backwards.
 *
 * The rules are ordinary operations: a tape that is active while another
 * computes a gradient records that computation, so nested tapes give
 * second and higher derivatives. The tape being asked never records its
 * own backward pass.
 *
 * Only floating-point tensors have gradients: integer and bool tensors
 * are never watched and nothing flows through them.
 *
 * A tape that is not persistent answers one question
 * ([method@GradientTape.gradient], [method@GradientTape.jacobian] or
 * [method@GradientTape.batch_jacobian]) and then lets go of everything it
 * recorded; asking again is an %EP_ERROR_GRADIENT error. A persistent tape
 * answers any number of times and holds what it recorded until it is
 * reset or finalized.
 *
 * Active tapes form a stack per thread: a tape records operations run by
 * the thread that started it, and must be stopped by that thread. An
 * active tape holds a reference to itself until it is stopped.
 *
 * ```c
 * g_autoptr(EpGradientTape) tape = ep_gradient_tape_new (FALSE);
 * ep_gradient_tape_start (tape, NULL);
 * ep_gradient_tape_watch (tape, x);
 * g_autoptr(EpTensor) y = ep_tensor_mul (x, x, &error);
 * ep_gradient_tape_stop (tape, NULL);
 * GObject *sources[] = { G_OBJECT (x) };
 * g_autoptr(GPtrArray) grads = ep_gradient_tape_gradient (tape, &y, 1, sources, 1, NULL, 0, &error);
 * ```
 */

/* One recorded step: an op, with what its gradient rule needs, or a
 * composite step (a staged call replayed as one, see EpComposite) with a
 * rule of its own and any number of inputs and outputs. */
typedef struct
{
  const EpOpDef *op;          /* NULL for a composite */
  EpComposite   *composite;
  EpOpAttrs      attrs;
  EpDevice      *device;
  guint          n_inputs;
  guint          n_outputs;
  EpTensor     **inputs;      /* one block: the inputs, then the outputs */
  EpTensor     **outputs;
} TapeEntry;

struct _EpGradientTape
{
  GObject                 parent_instance;

  EpRecorder              recorder;
  gboolean                persistent;
  gboolean                watch_accessed_variables;
  EpUnconnectedGradients  unconnected;
  GThread                *thread;
  guint                   paused;
  gboolean                computing;   /* in its own backward pass */
  gboolean                used;        /* not persistent, and has answered */

  GPtrArray              *entries;     /* TapeEntry, in the order they ran */
  GHashTable             *tracked;     /* the tensors with history (refs) */
  GHashTable             *reads;       /* EpVariable → GPtrArray of the tensors read from it */
  GPtrArray              *variables;   /* watched variables (refs), in order */
};

enum {
  PROP_0,
  PROP_PERSISTENT,
  PROP_WATCH_ACCESSED_VARIABLES,
  PROP_UNCONNECTED_GRADIENTS,
  N_PROPS
};

static GParamSpec *props[N_PROPS];

G_DEFINE_FINAL_TYPE (EpGradientTape, ep_gradient_tape, G_TYPE_OBJECT)

static void
tape_entry_free (gpointer data)
{
  TapeEntry *entry = data;

  for (guint i = 0; i < entry->n_inputs + entry->n_outputs; i++)
    g_object_unref (entry->inputs[i]);
  g_free (entry->inputs);
  g_clear_pointer (&entry->composite, ep_composite_unref);
  g_free (entry);
}

static const char *
entry_name (const TapeEntry *entry)
{
  return entry->op != NULL ? entry->op->name : entry->composite->name;
}

static EpGradientTape *
tape_of (EpRecorder *recorder)
{
  return (EpGradientTape *) ((guint8 *) recorder - G_STRUCT_OFFSET (EpGradientTape, recorder));
}

static gboolean
can_record (EpGradientTape *self)
{
  return self->recorder.active && self->paused == 0 && !self->computing && !self->used;
}

static gboolean
is_tracked (EpGradientTape *self,
            EpTensor       *tensor)
{
  return g_hash_table_contains (self->tracked, tensor);
}

static void
track (EpGradientTape *self,
       EpTensor       *tensor)
{
  if (!g_hash_table_contains (self->tracked, tensor))
    g_hash_table_add (self->tracked, g_object_ref (tensor));
}

/* Whether a step from @inputs to @outputs is to be recorded: it
 * depends on something the tape tracks and has a floating-point output. */
static gboolean
wants_step (EpGradientTape   *self,
            EpTensor *const  *inputs,
            guint             n_inputs,
            EpTensor *const  *outputs,
            guint             n_outputs)
{
  gboolean connected = FALSE, differentiable = FALSE;

  for (guint i = 0; i < n_inputs && !connected; i++)
    connected = is_tracked (self, inputs[i]);
  for (guint o = 0; o < n_outputs && !differentiable; o++)
    differentiable = ep_dtype_is_floating (outputs[o]->layout.dtype);

  return connected && differentiable;
}

/* Records a step (its rule is the caller's to set) and tracks its
 * floating-point outputs. */
static TapeEntry *
add_entry (EpGradientTape   *self,
           EpTensor *const  *inputs,
           guint             n_inputs,
           EpTensor *const  *outputs,
           guint             n_outputs)
{
  TapeEntry *entry = g_new0 (TapeEntry, 1);

  entry->n_inputs = n_inputs;
  entry->n_outputs = n_outputs;
  entry->inputs = g_new (EpTensor *, MAX (n_inputs + n_outputs, 1));
  entry->outputs = entry->inputs + n_inputs;
  for (guint i = 0; i < n_inputs; i++)
    entry->inputs[i] = g_object_ref (inputs[i]);
  for (guint o = 0; o < n_outputs; o++)
    {
      entry->outputs[o] = g_object_ref (outputs[o]);
      if (ep_dtype_is_floating (outputs[o]->layout.dtype))
        track (self, outputs[o]);
    }
  g_ptr_array_add (self->entries, entry);

  return entry;
}

/* The recorder hook: called by ep_dispatch() for every op that runs on
 * this thread while the tape is active. */
static gboolean
tape_record (EpRecorder      *recorder,
             const EpOpCall  *call,
             GError         **error)
{
  EpGradientTape *self = tape_of (recorder);
  TapeEntry *entry;

  if (!can_record (self) || call->op->gradient == NULL
      || !wants_step (self, call->inputs, call->n_inputs,
                      (EpTensor *const *) call->outputs, call->n_outputs))
    return TRUE;

  entry = add_entry (self, call->inputs, call->n_inputs,
                     (EpTensor *const *) call->outputs, call->n_outputs);
  entry->op = call->op;
  entry->attrs = call->attrs;
  entry->device = call->device;

  return TRUE;
}

static guint
tape_mark (EpRecorder *recorder)
{
  return tape_of (recorder)->entries->len;
}

/* Forgets the steps after @mark, and the outputs they tracked. */
static void
tape_rollback (EpRecorder *recorder,
               guint       mark)
{
  EpGradientTape *self = tape_of (recorder);

  for (guint e = self->entries->len; e > mark; e--)
    {
      TapeEntry *entry = g_ptr_array_index (self->entries, e - 1);

      for (guint o = 0; o < entry->n_outputs; o++)
        g_hash_table_remove (self->tracked, entry->outputs[o]);
    }
  if (mark < self->entries->len)
    g_ptr_array_set_size (self->entries, mark);
}

/* The hook for a step of many ops run as one (a staged call replayed):
 * one entry, whose rule is the composite's. */
static gboolean
tape_composite (EpRecorder       *recorder,
                EpComposite      *composite,
                EpTensor *const  *inputs,
                guint             n_inputs,
                EpTensor *const  *outputs,
                guint             n_outputs,
                GError          **error)
{
  EpGradientTape *self = tape_of (recorder);
  TapeEntry *entry;

  if (!can_record (self) || !wants_step (self, inputs, n_inputs, outputs, n_outputs))
    return TRUE;

  entry = add_entry (self, inputs, n_inputs, outputs, n_outputs);
  entry->composite = ep_composite_ref (composite);

  return TRUE;
}

static void
add_variable (EpGradientTape *self,
              EpVariable     *variable)
{
  if (g_hash_table_contains (self->reads, variable))
    return;

  g_ptr_array_add (self->variables, g_object_ref (variable));
  g_hash_table_insert (self->reads, variable, g_ptr_array_new ());
}

/* The other hook: a variable was read, and @value is what the reader got
 * (a tensor object of its own, see ep_variable_read()). Updates are no
 * reads of the user's. */
static void
tape_variable (EpRecorder       *recorder,
               GObject          *object,
               EpTensor         *value,
               EpVariableAccess  access)
{
  EpGradientTape *self = tape_of (recorder);
  EpVariable *variable = EP_VARIABLE (object);
  GPtrArray *reads;

  if (access != EP_VARIABLE_READ || !can_record (self)
      || !ep_dtype_is_floating (value->layout.dtype))
    return;

  reads = g_hash_table_lookup (self->reads, variable);
  if (reads == NULL)
    {
      if (!self->watch_accessed_variables || !ep_variable_get_trainable (variable))
        return;
      add_variable (self, variable);
      reads = g_hash_table_lookup (self->reads, variable);
    }

  track (self, value);
  g_ptr_array_add (reads, value);
}

/* Lets go of everything recorded; the watched variables stay listed. */
static void
release (EpGradientTape *self)
{
  g_ptr_array_set_size (self->entries, 0);
  g_hash_table_remove_all (self->reads);
  g_hash_table_remove_all (self->tracked);
  for (guint i = 0; i < self->variables->len; i++)
    g_hash_table_insert (self->reads, g_ptr_array_index (self->variables, i), g_ptr_array_new ());
}

static void
ep_gradient_tape_dispose (GObject *object)
{
  EpGradientTape *self = EP_GRADIENT_TAPE (object);

  if (self->entries != NULL)
    {
      release (self);
      g_hash_table_remove_all (self->reads);
      g_ptr_array_set_size (self->variables, 0);
    }

  G_OBJECT_CLASS (ep_gradient_tape_parent_class)->dispose (object);
}

static void
ep_gradient_tape_finalize (GObject *object)
{
  EpGradientTape *self = EP_GRADIENT_TAPE (object);

  g_ptr_array_unref (self->entries);
  g_hash_table_unref (self->reads);
  g_hash_table_unref (self->tracked);
  g_ptr_array_unref (self->variables);

  G_OBJECT_CLASS (ep_gradient_tape_parent_class)->finalize (object);
}

static void
ep_gradient_tape_get_property (GObject    *object,
                               guint       prop_id,
                               GValue     *value,
                               GParamSpec *pspec)
{
  EpGradientTape *self = EP_GRADIENT_TAPE (object);

  switch (prop_id)
    {
    case PROP_PERSISTENT:
      g_value_set_boolean (value, self->persistent);
      break;
    case PROP_WATCH_ACCESSED_VARIABLES:
      g_value_set_boolean (value, self->watch_accessed_variables);
      break;
    case PROP_UNCONNECTED_GRADIENTS:
      g_value_set_enum (value, self->unconnected);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
ep_gradient_tape_set_property (GObject      *object,
                               guint         prop_id,
                               const GValue *value,
                               GParamSpec   *pspec)
{
  EpGradientTape *self = EP_GRADIENT_TAPE (object);

  switch (prop_id)
    {
    case PROP_PERSISTENT:
      self->persistent = g_value_get_boolean (value);
      break;
    case PROP_WATCH_ACCESSED_VARIABLES:
      self->watch_accessed_variables = g_value_get_boolean (value);
      break;
    case PROP_UNCONNECTED_GRADIENTS:
      ep_gradient_tape_set_unconnected_gradients (self, g_value_get_enum (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
ep_gradient_tape_class_init (EpGradientTapeClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->dispose = ep_gradient_tape_dispose;
  object_class->finalize = ep_gradient_tape_finalize;
  object_class->get_property = ep_gradient_tape_get_property;
  object_class->set_property = ep_gradient_tape_set_property;

  /**
   * EpGradientTape:persistent:
   *
   * Whether the tape can be asked for gradients more than once. A tape
   * that is not persistent lets go of what it recorded after its first
   * answer.
   */
  props[PROP_PERSISTENT] =
    g_param_spec_boolean ("persistent", NULL, NULL, FALSE,
                          G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY |
                          G_PARAM_STATIC_STRINGS | G_PARAM_EXPLICIT_NOTIFY);

  /**
   * EpGradientTape:watch-accessed-variables:
   *
   * Whether trainable variables read while the tape is active are watched
   * without being asked. When %FALSE only the variables given to
   * [method@GradientTape.watch_variable] are.
   */
  props[PROP_WATCH_ACCESSED_VARIABLES] =
    g_param_spec_boolean ("watch-accessed-variables", NULL, NULL, TRUE,
                          G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY |
                          G_PARAM_STATIC_STRINGS | G_PARAM_EXPLICIT_NOTIFY);

  /**
   * EpGradientTape:unconnected-gradients:
   *
   * What the gradient of a source the targets do not depend on is: zeros
   * (the default) or %NULL.
   */
  props[PROP_UNCONNECTED_GRADIENTS] =
    g_param_spec_enum ("unconnected-gradients", NULL, NULL,
                       EP_TYPE_UNCONNECTED_GRADIENTS, EP_UNCONNECTED_GRADIENTS_ZERO,
                       G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | G_PARAM_EXPLICIT_NOTIFY);

  g_object_class_install_properties (object_class, N_PROPS, props);
}

static void
ep_gradient_tape_init (EpGradientTape *self)
{
  self->recorder.record = tape_record;
  self->recorder.mark = tape_mark;
  self->recorder.rollback = tape_rollback;
  self->recorder.variable = tape_variable;
  self->recorder.composite = tape_composite;
  self->watch_accessed_variables = TRUE;
  self->entries = g_ptr_array_new_with_free_func (tape_entry_free);
  self->tracked = g_hash_table_new_full (g_direct_hash, g_direct_equal, g_object_unref, NULL);
  self->reads = g_hash_table_new_full (g_direct_hash, g_direct_equal, NULL,
                                       (GDestroyNotify) g_ptr_array_unref);
  self->variables = g_ptr_array_new_with_free_func (g_object_unref);
}

/**
 * ep_gradient_tape_new:
 * @persistent: whether the tape can be asked more than once
 *
 * Creates a tape. It records nothing until it is started. Trainable
 * variables read while it is active are watched; set
 * [property@GradientTape:watch-accessed-variables] to %FALSE at
 * construction to watch only what is asked.
 *
 * Returns: (transfer full): the new tape
 */
EpGradientTape *
ep_gradient_tape_new (gboolean persistent)
{
  return g_object_new (EP_TYPE_GRADIENT_TAPE, "persistent", persistent, NULL);
}

/**
 * ep_gradient_tape_get_persistent:
 * @self: a tape
 *
 * Tells whether @self is persistent ([property@GradientTape:persistent]).
 *
 * Returns: whether @self can be asked for gradients more than once
 */
gboolean
ep_gradient_tape_get_persistent (EpGradientTape *self)
{
  g_return_val_if_fail (EP_IS_GRADIENT_TAPE (self), FALSE);

  return self->persistent;
}

/**
 * ep_gradient_tape_get_watch_accessed_variables:
 * @self: a tape
 *
 * Tells whether @self watches the trainable variables read while it is
 * active ([property@GradientTape:watch-accessed-variables]).
 *
 * Returns: whether trainable variables read while @self is active are
 *   watched without being asked
 */
gboolean
ep_gradient_tape_get_watch_accessed_variables (EpGradientTape *self)
{
  g_return_val_if_fail (EP_IS_GRADIENT_TAPE (self), FALSE);

  return self->watch_accessed_variables;
}

/**
 * ep_gradient_tape_get_unconnected_gradients:
 * @self: a tape
 *
 * Tells what @self answers for a source the targets do not depend on
 * ([property@GradientTape:unconnected-gradients]).
 *
 * Returns: what the gradient of an unconnected source is
 */
EpUnconnectedGradients
ep_gradient_tape_get_unconnected_gradients (EpGradientTape *self)
{
  g_return_val_if_fail (EP_IS_GRADIENT_TAPE (self), EP_UNCONNECTED_GRADIENTS_ZERO);

  return self->unconnected;
}

/**
 * ep_gradient_tape_set_unconnected_gradients:
 * @self: a tape
 * @unconnected: what the gradient of an unconnected source is to be
 *
 * Chooses between zeros (the default) and %NULL for the gradient of a
 * source that no recorded operation connects to the targets.
 */
void
ep_gradient_tape_set_unconnected_gradients (EpGradientTape         *self,
                                            EpUnconnectedGradients  unconnected)
{
  g_return_if_fail (EP_IS_GRADIENT_TAPE (self));
  g_return_if_fail (unconnected == EP_UNCONNECTED_GRADIENTS_ZERO
                    || unconnected == EP_UNCONNECTED_GRADIENTS_NONE);

  if (self->unconnected == unconnected)
    return;

  self->unconnected = unconnected;
  g_object_notify_by_pspec (G_OBJECT (self), props[PROP_UNCONNECTED_GRADIENTS]);
}

/* start's and stop's errors */
static const EpRecorderErrors recorder_errors = {
  .already_active = N_("start: the tape is already active"),
  .not_active = N_("stop: the tape is not active"),
  .other_thread = N_("stop: the tape was started by another thread"),
  .paused = N_("stop: the tape is paused while a host callback runs"),
};

/**
 * ep_gradient_tape_start:
 * @self: a tape
 * @error: return location for an error
 *
 * Makes @self the innermost active tape of this thread: from now on it
 * records operations on what it watches. A tape can be started again
 * after it was stopped; it then goes on adding to what it holds.
 *
 * Returns: %TRUE, or %FALSE with %EP_ERROR_GRADIENT set if @self is
 *   already active
 */
gboolean
ep_gradient_tape_start (EpGradientTape  *self,
                        GError         **error)
{
  g_return_val_if_fail (EP_IS_GRADIENT_TAPE (self), FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  return ep_recorder_start (&self->recorder, G_OBJECT (self), &self->thread, &recorder_errors, error);
}

/**
 * ep_gradient_tape_stop:
 * @self: a tape
 * @error: return location for an error
 *
 * Takes @self off this thread's stack of active tapes: it records nothing
 * more, and keeps what it recorded for [method@GradientTape.gradient].
 *
 * Returns: %TRUE, or %FALSE with %EP_ERROR_GRADIENT set if @self is not
 *   active or was started by another thread
 */
gboolean
ep_gradient_tape_stop (EpGradientTape  *self,
                       GError         **error)
{
  g_return_val_if_fail (EP_IS_GRADIENT_TAPE (self), FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  return ep_recorder_stop (&self->recorder, G_OBJECT (self), &self->thread, &recorder_errors, error);
}

/**
 * ep_gradient_tape_record:
 * @self: a tape
 * @func: (scope call) (closure user_data): the code to record
 * @user_data: data for @func
 * @error: return location for an error
 *
 * Starts @self, runs @func and stops @self, whatever happens in @func:
 * the scoped form of [method@GradientTape.start] and
 * [method@GradientTape.stop] for languages without Python's `with`.
 *
 * ```js
 * const loss = tape.record(() => model.call(x).sub(y).square().mean());
 * const [dw] = tape.gradient([loss], [w], null);
 * ```
 *
 * If @func fails (in JavaScript: throws), the tape is stopped all the
 * same and the error comes back.
 *
 * Returns: (transfer full) (nullable): what @func returned, or %NULL
 *   (with @error set if the tape could not start or stop, or @func
 *   failed)
 */
EpTensor *
ep_gradient_tape_record (EpGradientTape  *self,
                         EpScopeFunc      func,
                         gpointer         user_data,
                         GError         **error)
{
  g_return_val_if_fail (EP_IS_GRADIENT_TAPE (self), NULL);
  g_return_val_if_fail (func != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  return ep_autodiff_record (self, &self->recorder, (EpRecorderSwitch) ep_gradient_tape_start,
                             (EpRecorderSwitch) ep_gradient_tape_stop, func, user_data,
                             _("record: the function stopped the tape"), error);
}

/* The record() of tapes and accumulators: starts @self (whose recorder
 * is @recorder) with @start, runs @func and stops @self with @stop
 * whatever happens; @stopped is the message for a function that stopped
 * @self itself. */
EpTensor *
ep_autodiff_record (gpointer           self,
                    EpRecorder        *recorder,
                    EpRecorderSwitch   start,
                    EpRecorderSwitch   stop,
                    EpScopeFunc        func,
                    gpointer           user_data,
                    const char        *stopped,
                    GError           **error)
{
  g_autoptr(GError) local = NULL;
  g_autoptr(EpTensor) result = NULL;

  if (!start (self, error))
    {
      ep_error_rename_call (error, "start", "record");
      return NULL;
    }

  result = func (user_data, &local);

  /* the function's error first: it explains a recorder left in a bad
   * state */
  if (!recorder->active)
    {
      if (local == NULL)
        g_set_error_literal (&local, EP_ERROR, EP_ERROR_GRADIENT, stopped);
    }
  else if (local != NULL)
    stop (self, NULL);
  else if (!stop (self, &local))
    ep_error_rename_call (&local, "stop", "record");

  if (local != NULL)
    {
      g_propagate_error (error, g_steal_pointer (&local));
      return NULL;
    }
  return g_steal_pointer (&result);
}

/**
 * ep_gradient_tape_is_active:
 * @self: a tape
 *
 * Tells whether @self is on its thread's stack of active tapes.
 *
 * Returns: whether @self has been started and not stopped
 */
gboolean
ep_gradient_tape_is_active (EpGradientTape *self)
{
  g_return_val_if_fail (EP_IS_GRADIENT_TAPE (self), FALSE);

  return self->recorder.active;
}

/**
 * ep_gradient_tape_stop_recording:
 * @self: a tape
 *
 * Pauses recording without taking @self off the stack of active tapes,
 * until [method@GradientTape.resume_recording]: operations run meanwhile
 * are not recorded and their results have no history on this tape. Pauses
 * nest. In Python, `with tape.stop_recording():` resumes at the end of
 * the block.
 */
void
ep_gradient_tape_stop_recording (EpGradientTape *self)
{
  g_return_if_fail (EP_IS_GRADIENT_TAPE (self));

  self->paused++;
}

/**
 * ep_gradient_tape_resume_recording:
 * @self: a tape
 * @error: return location for an error
 *
 * Ends a pause begun by [method@GradientTape.stop_recording].
 *
 * Returns: %TRUE, or %FALSE with %EP_ERROR_GRADIENT set if @self is not
 *   paused (each resume ends one stop_recording)
 */
gboolean
ep_gradient_tape_resume_recording (EpGradientTape  *self,
                                   GError         **error)
{
  g_return_val_if_fail (EP_IS_GRADIENT_TAPE (self), FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  if (self->paused == 0)
    {
      g_set_error (error, EP_ERROR, EP_ERROR_GRADIENT,
                   _("resume_recording: the tape is not paused"));
      return FALSE;
    }

  self->paused--;
  return TRUE;
}

/**
 * ep_gradient_tape_is_recording:
 * @self: a tape
 *
 * Tells whether operations run now would be recorded by @self.
 *
 * Returns: whether @self records operations now: it is active, not
 *   paused, and (if not persistent) has not answered yet
 */
gboolean
ep_gradient_tape_is_recording (EpGradientTape *self)
{
  g_return_val_if_fail (EP_IS_GRADIENT_TAPE (self), FALSE);

  return can_record (self);
}

/**
 * ep_gradient_tape_reset:
 * @self: a tape
 *
 * Forgets everything: recorded operations, watched tensors and variables.
 * A tape that is not persistent can answer again. If @self is active it
 * stays active, as if a new tape had been started in its place.
 */
void
ep_gradient_tape_reset (EpGradientTape *self)
{
  g_return_if_fail (EP_IS_GRADIENT_TAPE (self));

  release (self);
  g_hash_table_remove_all (self->reads);
  g_ptr_array_set_size (self->variables, 0);
  self->used = FALSE;
}

/**
 * ep_gradient_tape_watch:
 * @self: a tape
 * @tensor: a tensor
 *
 * Watches @tensor: operations on it are recorded, and gradients can be
 * taken with respect to it. Integer and bool tensors have no gradient and
 * are not watched.
 */
void
ep_gradient_tape_watch (EpGradientTape *self,
                        EpTensor       *tensor)
{
  g_return_if_fail (EP_IS_GRADIENT_TAPE (self));
  g_return_if_fail (EP_IS_TENSOR (tensor));

  if (self->used || !ep_dtype_is_floating (tensor->layout.dtype))
    return;

  track (self, tensor);
}

/**
 * ep_gradient_tape_watch_variable:
 * @self: a tape
 * @variable: a variable
 *
 * Watches @variable even if it is not trainable or the tape does not
 * watch accessed variables: whenever it is read while @self records, the
 * value read is watched. Variables of integer or bool type are not
 * watched.
 */
void
ep_gradient_tape_watch_variable (EpGradientTape *self,
                                 EpVariable     *variable)
{
  g_return_if_fail (EP_IS_GRADIENT_TAPE (self));
  g_return_if_fail (EP_IS_VARIABLE (variable));

  if (ep_dtype_is_floating (ep_variable_get_dtype (variable)))
    add_variable (self, variable);
}

/**
 * ep_gradient_tape_watched_variables:
 * @self: a tape
 *
 * Lists the variables @self watches: those given to
 * [method@GradientTape.watch_variable] and the trainable variables read
 * while it recorded, in the order they were first watched.
 *
 * Returns: (transfer container) (element-type EpVariable): the variables
 */
GPtrArray *
ep_gradient_tape_watched_variables (EpGradientTape *self)
{
  GPtrArray *variables;

  g_return_val_if_fail (EP_IS_GRADIENT_TAPE (self), NULL);

  variables = g_ptr_array_new_full (self->variables->len, g_object_unref);
  for (guint i = 0; i < self->variables->len; i++)
    g_ptr_array_add (variables, g_object_ref (g_ptr_array_index (self->variables, i)));

  return variables;
}

/* How many steps @self holds (an op, or a staged call replayed as one):
 * for tests. */
guint
ep_gradient_tape_get_n_entries (EpGradientTape *self)
{
  return self->entries->len;
}

/* The backward pass */

static void
unref_nullable (gpointer object)
{
  if (object != NULL)
    g_object_unref (object);
}

GPtrArray *
ep_tensor_array_new (guint reserved)
{
  return g_ptr_array_new_full (reserved, unref_nullable);
}

/* Adds @grad (owned) to the gradient of @tensor. The sum is an op, so an
 * outer tape records it. */
static gboolean
accumulate (GHashTable  *grads,
            EpTensor    *tensor,
            EpTensor    *grad,
            GError     **error)
{
  EpTensor *old = g_hash_table_lookup (grads, tensor);
  EpTensor *sum;

  if (old == NULL)
    {
      g_hash_table_insert (grads, tensor, grad);
      return TRUE;
    }

  sum = ep_tensor_add (old, grad, error);
  g_object_unref (grad);
  if (sum == NULL)
    return FALSE;

  g_hash_table_insert (grads, tensor, sum);
  return TRUE;
}

/* Checks and converts one gradient a rule gave, then adds it up. */
static gboolean
take_input_grad (const TapeEntry  *entry,
                 guint             i,
                 EpTensor         *grad,
                 GHashTable       *grads,
                 GError          **error)
{
  EpTensor *input = entry->inputs[i];
  EpTensor *converted;

  if (!ep_layout_same_shape (&grad->layout, &input->layout))
    {
      g_autofree char *got = ep_shape_to_string (grad->layout.shape, grad->layout.ndim);
      g_autofree char *want = ep_shape_to_string (input->layout.shape, input->layout.ndim);

      g_set_error (error, EP_ERROR, EP_ERROR_GRADIENT,
                   _("gradient: the rule of %s gave a gradient of shape %s for an input of shape %s"),
                   entry_name (entry), got, want);
      return FALSE;
    }

  /* the rule's own result as it is when it fits: an astype would add an
   * identity for outer tapes to keep */
  if (grad->layout.dtype == input->layout.dtype && !grad->weak)
    converted = g_object_ref (grad);
  else
    converted = ep_tensor_astype (grad, input->layout.dtype, error);
  if (converted == NULL)
    return FALSE;

  return accumulate (grads, input, converted, error);
}

/* Takes the gradients a rule gave (@input_grads, emptied) for the inputs
 * that depend on a source; drops the others. */
static gboolean
take_input_grads (const TapeEntry  *entry,
                  EpTensor        **input_grads,
                  GHashTable       *grads,
                  GHashTable       *reach,
                  gboolean          ok,
                  GError          **error)
{
  for (guint i = 0; i < entry->n_inputs; i++)
    {
      EpTensor *grad = g_steal_pointer (&input_grads[i]);

      if (grad == NULL)
        continue;
      if (ok && g_hash_table_contains (reach, entry->inputs[i]))
        ok = take_input_grad (entry, i, grad, grads, error);
      g_object_unref (grad);
    }

  return ok;
}

/* A rule that failed on a tensor released since it was recorded (by a
 * tidy scope that closed, or a dispose) says so, rather than naming an
 * op of the rule that the user never called. */
static void
explain_released (const TapeEntry  *entry,
                  GError          **error)
{
  if (error == NULL || !g_error_matches (*error, EP_ERROR, EP_ERROR_INVALID_ARGUMENT))
    return;

  for (guint i = 0; i < entry->n_inputs + entry->n_outputs; i++)
    if (ep_tensor_is_released (entry->inputs[i]))
      {
        g_clear_error (error);
        g_set_error (error, EP_ERROR, EP_ERROR_INVALID_ARGUMENT,
                     _("gradient: a tensor the tape recorded was released since (by a tidy scope "
                       "that closed, or a dispose); compute gradients inside the scope"));
        return;
      }
}

/* The call a recorded op was, for its rules; @dtypes has room for its
 * inputs */
static void
entry_call (const TapeEntry  *entry,
            EpOpCall         *call,
            EpDType          *dtypes)
{
  memset (call, 0, sizeof *call);
  call->op = entry->op;
  call->inputs = entry->inputs;
  call->n_inputs = entry->n_inputs;
  call->attrs = entry->attrs;
  call->input_dtypes = dtypes;
  call->n_outputs = entry->n_outputs;
  call->device = entry->device;
  for (guint i = 0; i < entry->n_inputs; i++)
    dtypes[i] = entry->inputs[i]->layout.dtype;
  for (guint o = 0; o < entry->n_outputs; o++)
    {
      call->outputs[o] = entry->outputs[o];
      call->output_layouts[o] = entry->outputs[o]->layout;
    }
}

/* Runs the rule of one recorded op. @reach holds the tensors that depend
 * on a source: only their gradients are wanted. */
static gboolean
run_rule (const TapeEntry  *entry,
          GHashTable       *grads,
          GHashTable       *reach,
          GError          **error)
{
  EpDType inline_dtypes[8];
  EpTensor *inline_grads[8] = { NULL };
  EpTensor *output_grads[EP_MAX_OUTPUTS] = { NULL };
  EpDType *dtypes = entry->n_inputs <= 8 ? inline_dtypes : g_new (EpDType, entry->n_inputs);
  EpTensor **input_grads = entry->n_inputs <= 8 ? inline_grads : g_new0 (EpTensor *, entry->n_inputs);
  EpGradContext context, *previous;
  gboolean ok = TRUE;
  EpOpCall call;

  entry_call (entry, &call, dtypes);
  for (guint o = 0; o < entry->n_outputs && ok; o++)
    {
      EpTensor *grad = g_hash_table_lookup (grads, entry->outputs[o]);

      output_grads[o] = grad != NULL ? g_object_ref (grad) : ep_tensor_zeros_like (entry->outputs[o], error);
      ok = output_grads[o] != NULL;
    }

  context.call = &call;
  context.needed = 0;
  for (guint i = 0; i < entry->n_inputs && i < 32; i++)
    if (g_hash_table_contains (reach, entry->inputs[i]))
      context.needed |= 1u << i;

  if (ok)
    {
      previous = ep_grad_context_push (&context);
      ok = entry->op->gradient (&call, output_grads, input_grads, error);
      ep_grad_context_pop (previous);
    }

  ok = take_input_grads (entry, input_grads, grads, reach, ok, error);

  for (guint o = 0; o < entry->n_outputs; o++)
    g_clear_object (&output_grads[o]);
  if (entry->n_inputs > 8)
    {
      g_free (dtypes);
      g_free (input_grads);
    }

  return ok;
}

/* Runs the rule of a composite step: it gets the gradients its outputs
 * have (%NULL for the others: it makes what zeros it needs) and which
 * inputs depend on a source. */
static gboolean
run_composite (const TapeEntry  *entry,
               GHashTable       *grads,
               GHashTable       *reach,
               GError          **error)
{
  g_autofree EpTensor **output_grads = g_new (EpTensor *, MAX (entry->n_outputs, 1));
  g_autofree EpTensor **input_grads = g_new0 (EpTensor *, MAX (entry->n_inputs, 1));
  g_autofree gboolean *needed = g_new (gboolean, MAX (entry->n_inputs, 1));
  gboolean ok;

  for (guint o = 0; o < entry->n_outputs; o++)
    output_grads[o] = g_hash_table_lookup (grads, entry->outputs[o]);
  for (guint i = 0; i < entry->n_inputs; i++)
    needed[i] = g_hash_table_contains (reach, entry->inputs[i]);

  ok = entry->composite->gradient (entry->composite, output_grads, needed, input_grads, error);

  return take_input_grads (entry, input_grads, grads, reach, ok, error);
}

static gboolean
has_output_grad (const TapeEntry *entry,
                 GHashTable      *grads)
{
  for (guint o = 0; o < entry->n_outputs; o++)
    if (g_hash_table_contains (grads, entry->outputs[o]))
      return TRUE;

  return FALSE;
}

/* The gradient of the sum of @targets (each weighted by its seed) with
 * respect to each source: a tensor or a variable. An element is %NULL
 * where nothing connects a source to the targets. */
static GPtrArray *
backward (EpGradientTape  *self,
          EpTensor       **targets,
          guint            n_targets,
          GObject        **sources,
          guint            n_sources,
          EpTensor       **seeds,
          GError         **error)
{
  g_autoptr(GHashTable) reach = g_hash_table_new (g_direct_hash, g_direct_equal);
  g_autoptr(GHashTable) wanted = g_hash_table_new (g_direct_hash, g_direct_equal);
  g_autoptr(GHashTable) grads = g_hash_table_new_full (g_direct_hash, g_direct_equal, NULL, g_object_unref);
  g_autofree gboolean *relevant = g_new0 (gboolean, self->entries->len + 1);
  g_autoptr(GPtrArray) result = ep_tensor_array_new (n_sources);
  gboolean ok = TRUE;

  /* the tracked tensors each source stands for */
  for (guint s = 0; s < n_sources; s++)
    {
      if (EP_IS_TENSOR (sources[s]))
        {
          if (is_tracked (self, EP_TENSOR (sources[s])))
            g_hash_table_add (reach, sources[s]);
        }
      else
        {
          GPtrArray *reads = g_hash_table_lookup (self->reads, sources[s]);

          for (guint r = 0; reads != NULL && r < reads->len; r++)
            g_hash_table_add (reach, g_ptr_array_index (reads, r));
        }
    }
  {
    GHashTableIter iter;
    gpointer key;

    g_hash_table_iter_init (&iter, reach);
    while (g_hash_table_iter_next (&iter, &key, NULL))
      g_hash_table_add (wanted, key);
  }

  /* forward: the ops that depend on a source */
  for (guint e = 0; e < self->entries->len && g_hash_table_size (reach) > 0; e++)
    {
      TapeEntry *entry = g_ptr_array_index (self->entries, e);

      for (guint i = 0; i < entry->n_inputs && !relevant[e]; i++)
        relevant[e] = g_hash_table_contains (reach, entry->inputs[i]);
      if (relevant[e])
        for (guint o = 0; o < entry->n_outputs; o++)
          if (ep_dtype_is_floating (entry->outputs[o]->layout.dtype))
            g_hash_table_add (reach, entry->outputs[o]);
    }

  self->computing = TRUE;

  for (guint t = 0; t < n_targets && ok; t++)
    {
      EpTensor *seed = seeds != NULL ? g_object_ref (seeds[t]) : ep_tensor_ones_like (targets[t], error);

      ok = seed != NULL && accumulate (grads, targets[t], seed, error);
    }

  /* backward: each relevant op whose outputs got a gradient, latest first */
  for (guint e = self->entries->len; ok && e-- > 0;)
    {
      TapeEntry *entry = g_ptr_array_index (self->entries, e);

      if (!relevant[e] || !has_output_grad (entry, grads))
        continue;

      /* (a staged call's rule names its released inputs itself) */
      if (entry->composite != NULL)
        ok = run_composite (entry, grads, reach, error);
      else if (!(ok = run_rule (entry, grads, reach, error)))
        explain_released (entry, error);

      /* no later op uses these gradients again: free them early */
      for (guint o = 0; o < entry->n_outputs; o++)
        if (!g_hash_table_contains (wanted, entry->outputs[o]))
          g_hash_table_remove (grads, entry->outputs[o]);
    }

  /* each source's gradient; a variable's sums over its reads */
  for (guint s = 0; s < n_sources && ok; s++)
    {
      EpTensor *grad = NULL;

      if (EP_IS_TENSOR (sources[s]))
        {
          grad = g_hash_table_lookup (grads, sources[s]);
          if (grad != NULL)
            g_object_ref (grad);
        }
      else
        {
          GPtrArray *reads = g_hash_table_lookup (self->reads, sources[s]);

          for (guint r = 0; reads != NULL && r < reads->len && ok; r++)
            {
              EpTensor *part = g_hash_table_lookup (grads, g_ptr_array_index (reads, r));
              EpTensor *sum;

              if (part == NULL)
                continue;
              if (grad == NULL)
                {
                  grad = g_object_ref (part);
                  continue;
                }
              sum = ep_tensor_add (grad, part, error);
              g_object_unref (grad);
              grad = sum;
              ok = sum != NULL;
            }
        }
      g_ptr_array_add (result, grad);
    }

  self->computing = FALSE;

  return ok ? g_steal_pointer (&result) : NULL;
}

/* Checks */

static gboolean
check_usable (EpGradientTape  *self,
              const char      *name,
              GError         **error)
{
  if (!self->used)
    return TRUE;

  g_set_error (error, EP_ERROR, EP_ERROR_GRADIENT,
               _("%s: this tape is not persistent and has already answered; "
                 "create it persistent to ask it more than once"),
               name);
  return FALSE;
}

static gboolean
check_target (EpTensor    *target,
              guint        index,
              const char  *name,
              GError     **error)
{
  if (ep_dtype_is_floating (target->layout.dtype))
    return TRUE;

  g_set_error (error, EP_ERROR, EP_ERROR_DTYPE,
               _("%s: target %u has type %s; only floating-point tensors have gradients"),
               name, index, ep_dtype_get_name (target->layout.dtype));
  return FALSE;
}

static gboolean
check_source (GObject     *source,
              guint        index,
              const char  *name,
              GError     **error)
{
  if (source != NULL && (EP_IS_TENSOR (source) || EP_IS_VARIABLE (source)))
    return TRUE;

  g_set_error (error, EP_ERROR, EP_ERROR_INVALID_ARGUMENT,
               _("%s: source %u is %s, not a tensor or a variable"),
               name, index, source != NULL ? G_OBJECT_TYPE_NAME (source) : "NULL");
  return FALSE;
}

/* The value a source stands for, for the zeros of an unconnected one. */
static EpTensor *
source_value (GObject *source)
{
  if (EP_IS_TENSOR (source))
    return g_object_ref (EP_TENSOR (source));

  return ep_variable_peek (EP_VARIABLE (source));
}

static gboolean
fill_unconnected (EpGradientTape  *self,
                  GPtrArray       *grads,
                  GObject        **sources,
                  GError         **error)
{
  if (self->unconnected == EP_UNCONNECTED_GRADIENTS_NONE)
    return TRUE;

  for (guint s = 0; s < grads->len; s++)
    if (g_ptr_array_index (grads, s) == NULL)
      {
        g_autoptr(EpTensor) value = source_value (sources[s]);

        g_ptr_array_index (grads, s) = ep_tensor_zeros_like (value, error);
        if (g_ptr_array_index (grads, s) == NULL)
          return FALSE;
      }

  return TRUE;
}

/* Checks the output gradients and brings them to their targets' types. */
static GPtrArray *
make_seeds (EpTensor  **targets,
            guint       n_targets,
            EpTensor  **output_gradients,
            guint       n_output_gradients,
            GError    **error)
{
  g_autoptr(GPtrArray) seeds = ep_tensor_array_new (n_targets);

  if (n_output_gradients != n_targets)
    {
      g_set_error (error, EP_ERROR, EP_ERROR_INVALID_ARGUMENT,
                   _("gradient: one output gradient per target (%u) is needed; %u given"),
                   n_targets, n_output_gradients);
      return NULL;
    }

  for (guint t = 0; t < n_targets; t++)
    {
      EpTensor *seed = output_gradients[t];
      EpTensor *converted;

      if (!EP_IS_TENSOR (seed) || !ep_layout_same_shape (&seed->layout, &targets[t]->layout))
        {
          g_autofree char *got = EP_IS_TENSOR (seed) ? ep_shape_to_string (seed->layout.shape, seed->layout.ndim)
                                                     : g_strdup ("NULL");
          g_autofree char *want = ep_shape_to_string (targets[t]->layout.shape, targets[t]->layout.ndim);

          g_set_error (error, EP_ERROR, EP_ERROR_SHAPE,
                       _("gradient: output gradient %u has shape %s, its target has shape %s"),
                       t, got, want);
          return NULL;
        }

      converted = ep_tensor_astype (seed, targets[t]->layout.dtype, error);
      if (converted == NULL)
        return NULL;
      g_ptr_array_add (seeds, converted);
    }

  return g_steal_pointer (&seeds);
}

/**
 * ep_gradient_tape_gradient:
 * @self: a tape
 * @targets: (array length=n_targets): the tensors to differentiate
 * @n_targets: the number of targets
 * @sources: (array length=n_sources): what to differentiate with respect
 *   to: each an [class@Tensor] or a [class@Variable]
 * @n_sources: the number of sources
 * @output_gradients: (array length=n_output_gradients) (nullable): a
 *   weight for each target, shaped like it; %NULL for ones
 * @n_output_gradients: the number of output gradients: 0, or @n_targets
 * @error: return location for an error
 *
 * Computes the gradient of the sum of all elements of @targets (each
 * multiplied elementwise by its output gradient, if given) with respect to
 * each source. The gradient with respect to a variable adds up over every
 * read of it the tape recorded.
 *
 * A source that no recorded operation connects to the targets gets zeros
 * or %NULL, as [property@GradientTape:unconnected-gradients] says (zeros
 * by default). The computation is itself made of operations: another
 * active tape records it, which gives higher derivatives; @self does not.
 *
 * A tape that is not persistent lets go of everything it recorded after
 * this call, and a second call fails.
 *
 * Returns: (transfer container) (element-type EpTensor): one gradient per
 *   source, shaped like it (an element is %NULL for an unconnected source
 *   when asked so), or %NULL with an error set: %EP_ERROR_GRADIENT when a
 *   tape that is not persistent is asked again, %EP_ERROR_DTYPE for a
 *   target that is not floating-point, %EP_ERROR_SHAPE for an output
 *   gradient of the wrong shape, %EP_ERROR_INVALID_ARGUMENT for the wrong
 *   number of them or a source that is neither tensor nor variable, or an
 *   error of a custom gradient function
 */
GPtrArray *
ep_gradient_tape_gradient (EpGradientTape  *self,
                           EpTensor       **targets,
                           guint            n_targets,
                           GObject        **sources,
                           guint            n_sources,
                           EpTensor       **output_gradients,
                           guint            n_output_gradients,
                           GError         **error)
{
  g_autoptr(GPtrArray) seeds = NULL;
  g_autoptr(GPtrArray) grads = NULL;

  g_return_val_if_fail (EP_IS_GRADIENT_TAPE (self), NULL);
  g_return_val_if_fail (targets != NULL || n_targets == 0, NULL);
  g_return_val_if_fail (sources != NULL || n_sources == 0, NULL);
  g_return_val_if_fail (output_gradients != NULL || n_output_gradients == 0, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);
  for (guint t = 0; t < n_targets; t++)
    g_return_val_if_fail (EP_IS_TENSOR (targets[t]), NULL);

  if (!check_usable (self, "gradient", error))
    return NULL;
  for (guint t = 0; t < n_targets; t++)
    if (!check_target (targets[t], t, "gradient", error))
      return NULL;
  for (guint s = 0; s < n_sources; s++)
    if (!check_source (sources[s], s, "gradient", error))
      return NULL;
  if (output_gradients != NULL || n_output_gradients > 0)
    {
      seeds = make_seeds (targets, n_targets, output_gradients, n_output_gradients, error);
      if (seeds == NULL)
        return NULL;
    }

  grads = backward (self, targets, n_targets, sources, n_sources,
                    seeds != NULL ? (EpTensor **) seeds->pdata : NULL, error);
  if (grads != NULL && !fill_unconnected (self, grads, sources, error))
    g_clear_pointer (&grads, g_ptr_array_unref);

  if (!self->persistent)
    {
      release (self);
      self->used = TRUE;
    }

  return g_steal_pointer (&grads);
}

/* Whether every source of a typed gradient form is of @type (a binding
 * can pass anything in a typed array). */
static gboolean
sources_are (GType      type,
             GObject  **sources,
             guint      n_sources,
             GError   **error)
{
  for (guint s = 0; s < n_sources; s++)
    {
      const char *kind = sources[s] != NULL ? G_OBJECT_TYPE_NAME (sources[s]) : "NULL";

      if (sources[s] != NULL && G_TYPE_CHECK_INSTANCE_TYPE (sources[s], type))
        continue;
      if (type == EP_TYPE_VARIABLE)
        g_set_error (error, EP_ERROR, EP_ERROR_INVALID_ARGUMENT,
                     _("gradient_variables: source %u is %s, not a variable"), s, kind);
      else
        g_set_error (error, EP_ERROR, EP_ERROR_INVALID_ARGUMENT,
                     _("gradient_tensors: source %u is %s, not a tensor"), s, kind);
      return FALSE;
    }
  return TRUE;
}

/**
 * ep_gradient_tape_gradient_variables:
 * @self: a tape
 * @targets: (array length=n_targets): the tensors to differentiate
 * @n_targets: the number of targets
 * @variables: (array length=n_variables): the variables to differentiate
 *   with respect to
 * @n_variables: the number of variables
 * @output_gradients: (array length=n_output_gradients) (nullable): a
 *   weight for each target, shaped like it; %NULL for ones
 * @n_output_gradients: the number of output gradients: 0, or @n_targets
 * @error: return location for an error
 *
 * [method@GradientTape.gradient] with respect to variables only, for the
 * languages whose arrays are not covariant: Vala passes an
 * `Ep.Variable[]` here (a model's trainable variables), where it refuses
 * one for the `GLib.Object[]` of [method@GradientTape.gradient].
 *
 * ```vala
 * var grads = tape.gradient_variables ({ loss }, { w, b }, null);
 * ```
 *
 * Returns: (transfer container) (element-type EpTensor): one gradient per
 *   variable, shaped like it, or %NULL with an error set, as
 *   [method@GradientTape.gradient] says (%EP_ERROR_INVALID_ARGUMENT for a
 *   source that is no variable)
 */
GPtrArray *
ep_gradient_tape_gradient_variables (EpGradientTape  *self,
                                     EpTensor       **targets,
                                     guint            n_targets,
                                     EpVariable     **variables,
                                     guint            n_variables,
                                     EpTensor       **output_gradients,
                                     guint            n_output_gradients,
                                     GError         **error)
{
  g_return_val_if_fail (variables != NULL || n_variables == 0, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (!sources_are (EP_TYPE_VARIABLE, (GObject **) variables, n_variables, error))
    return NULL;
  return ep_gradient_tape_gradient (self, targets, n_targets, (GObject **) variables, n_variables,
                                    output_gradients, n_output_gradients, error);
}

/**
 * ep_gradient_tape_gradient_tensors:
 * @self: a tape
 * @targets: (array length=n_targets): the tensors to differentiate
 * @n_targets: the number of targets
 * @tensors: (array length=n_tensors): the tensors to differentiate with
 *   respect to (watched, or made by recorded operations)
 * @n_tensors: the number of tensors
 * @output_gradients: (array length=n_output_gradients) (nullable): a
 *   weight for each target, shaped like it; %NULL for ones
 * @n_output_gradients: the number of output gradients: 0, or @n_targets
 * @error: return location for an error
 *
 * [method@GradientTape.gradient] with respect to tensors only: Vala
 * passes an `Ep.Tensor[]` here, where it refuses one for the
 * `GLib.Object[]` of [method@GradientTape.gradient].
 *
 * Returns: (transfer container) (element-type EpTensor): one gradient per
 *   tensor, shaped like it, or %NULL with an error set, as
 *   [method@GradientTape.gradient] says (%EP_ERROR_INVALID_ARGUMENT for a
 *   source that is no tensor)
 */
GPtrArray *
ep_gradient_tape_gradient_tensors (EpGradientTape  *self,
                                   EpTensor       **targets,
                                   guint            n_targets,
                                   EpTensor       **tensors,
                                   guint            n_tensors,
                                   EpTensor       **output_gradients,
                                   guint            n_output_gradients,
                                   GError         **error)
{
  g_return_val_if_fail (tensors != NULL || n_tensors == 0, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (!sources_are (EP_TYPE_TENSOR, (GObject **) tensors, n_tensors, error))
    return NULL;
  return ep_gradient_tape_gradient (self, targets, n_targets, (GObject **) tensors, n_tensors,
                                    output_gradients, n_output_gradients, error);
}

/* Jacobians: one backward pass per element of (an example of) the
 * target, each seeded with a one-hot weight, stacked with an op so that
 * outer tapes differentiate the result too. */

static EpTensor *
one_hot (const gint64  *shape,
         guint          ndim,
         gint64         size,
         gint64         period,
         gint64         index,
         EpDType        dtype,
         GError       **error)
{
  g_autofree gdouble *data = ep_try_new0 (gdouble, MAX (size, 1));

  if (data == NULL)
    {
      g_set_error (error, EP_ERROR, EP_ERROR_OUT_OF_MEMORY,
                   _("jacobian: cannot allocate a weight of %" PRId64 " elements"), size);
      return NULL;
    }

  for (gint64 k = index; k < size; k += period)
    data[k] = 1.0;

  return ep_tensor_new_from_doubles (data, size, shape, ndim, dtype, error);
}

/* The vectorised jacobian: one pass forward over the recorded steps with
 * a batch of tangents, one per element of (an example of) the source,
 * seeded with the identity (JAX's jacfwd). Each step's forward rule takes
 * the batch as a leading dimension. A step whose rule cannot (a derived
 * rule, a staged call) leaves *@vectorised FALSE, and the caller takes
 * one backward pass per element of the target instead, as it does when
 * the source has many more elements than the target (EP_JACOBIAN=rows
 * forces the passes, =forward the batch where the rules allow). */

/* More tangent elements than this at once: per-row passes instead */
#define FORWARD_JACOBIAN_MAX_ELEMENTS (G_GINT64_CONSTANT (1) << 26)

/* Whether the vectorised pass can run: a batch dimension in front of
 * every tangent must fit in EP_MAX_DIMS, and the batch in memory */
static gboolean
use_forward_jacobian (EpGradientTape  *self,
                      EpTensor        *value,
                      gint64           n_t,
                      gint64           n_s)
{
  const char *mode = g_getenv ("EP_JACOBIAN");
  gint64 largest = 1;

  if (mode != NULL && g_str_equal (mode, "rows"))
    return FALSE;
  if (n_s == 0 || n_t == 0 || value->layout.ndim >= EP_MAX_DIMS)
    return FALSE;
  /* a batch of n_s tangents against n_t backward passes: the passes cost
   * their dispatches, the batch its width (measured: the batch wins up
   * to about 8×, bench/jacobian.py); "forward" forces it, for tests.
   * (No n_s is above 8 × an n_t that big.) */
  if (n_t < G_MAXINT64 / 8 && n_s > 8 * n_t && !(mode != NULL && g_str_equal (mode, "forward")))
    return FALSE;

  for (guint e = 0; e < self->entries->len; e++)
    {
      TapeEntry *entry = g_ptr_array_index (self->entries, e);

      if (entry->composite != NULL)
        return FALSE;
      for (guint i = 0; i < entry->n_inputs + entry->n_outputs; i++)
        {
          const EpLayout *layout = &entry->inputs[i]->layout;

          if (layout->ndim >= EP_MAX_DIMS)
            return FALSE;
          largest = MAX (largest, ep_layout_get_size (layout));
        }
    }

  return largest <= FORWARD_JACOBIAN_MAX_ELEMENTS / n_s;
}

/* (k, B, *s[1:]) for batch_jacobian, (k, *s) for jacobian: the identity
 * on each example's elements */
static EpTensor *
identity_seed (EpTensor   *value,
               gboolean    batched,
               gint64      n_s,
               GError    **error)
{
  const EpLayout *s = &value->layout;
  g_autofree gdouble *data = ep_try_new0 (gdouble, MAX (n_s * n_s, 1));
  g_autoptr(EpTensor) eye = NULL;
  gint64 shape[EP_MAX_DIMS + 1];
  guint ndim = 0;

  if (data == NULL)
    {
      g_set_error (error, EP_ERROR, EP_ERROR_OUT_OF_MEMORY,
                   _("jacobian: cannot allocate a weight of %" PRId64 " elements"), n_s * n_s);
      return NULL;
    }
  for (gint64 j = 0; j < n_s; j++)
    data[j * n_s + j] = 1.0;

  shape[ndim++] = n_s;
  if (batched)
    shape[ndim++] = 1;
  for (guint d = batched ? 1 : 0; d < s->ndim; d++)
    shape[ndim++] = s->shape[d];
  eye = ep_tensor_new_from_doubles (data, n_s * n_s, shape, ndim, s->dtype, error);
  if (eye == NULL || !batched)
    return g_steal_pointer (&eye);

  shape[1] = s->shape[0];
  return ep_tensor_broadcast_to (eye, shape, ndim, error);
}

static gboolean
forward_step (const TapeEntry  *entry,
              GHashTable       *tangents,
              gboolean         *vectorised,
              GError          **error)
{
  EpTensor *inline_tangents[8] = { NULL };
  EpDType inline_dtypes[8];
  EpTensor **t = entry->n_inputs <= 8 ? inline_tangents : g_new0 (EpTensor *, entry->n_inputs);
  EpDType *dtypes = entry->n_inputs <= 8 ? inline_dtypes : g_new (EpDType, entry->n_inputs);
  EpTensor *out[EP_MAX_OUTPUTS] = { NULL };
  gboolean any = FALSE, ok = TRUE;
  EpOpCall call;

  for (guint i = 0; i < entry->n_inputs; i++)
    {
      t[i] = g_hash_table_lookup (tangents, entry->inputs[i]);
      any = any || t[i] != NULL;
    }

  if (any)
    {
      entry_call (entry, &call, dtypes);
      ok = ep_jvp_rule (&call, t, 1, out, vectorised, error);
      for (guint o = 0; o < entry->n_outputs; o++)
        if (out[o] != NULL)
          g_hash_table_replace (tangents, entry->outputs[o], out[o]);
      if (!ok)
        explain_released (entry, error);
    }

  if (entry->n_inputs > 8)
    {
      g_free (t);
      g_free (dtypes);
    }
  return ok;
}

/* Sets *@result (%NULL: unconnected) and returns TRUE, or FALSE with an
 * error; *@vectorised FALSE: the steps cannot take a batch */
static gboolean
forward_jacobian (EpGradientTape  *self,
                  EpTensor        *target,
                  GObject         *source,
                  EpTensor        *value,
                  gboolean         batched,
                  gint64           n_s,
                  const gint64    *shape,
                  guint            ndim,
                  EpTensor       **result,
                  gboolean        *vectorised,
                  GError         **error)
{
  g_autoptr(GHashTable) tangents = g_hash_table_new_full (g_direct_hash, g_direct_equal, NULL, g_object_unref);
  g_autoptr(EpTensor) seed = identity_seed (value, batched, n_s, error);
  g_autoptr(EpTensor) moved = NULL;
  EpTensor *tangent;
  gint axes[EP_MAX_DIMS];
  guint tdim = target->layout.ndim;
  gboolean ok = TRUE;

  *result = NULL;
  *vectorised = TRUE;
  if (seed == NULL)
    return FALSE;

  /* (a target that is its own source, tracked or not, has the identity
   * for jacobian, as a backward pass finds its seed) */
  if (EP_IS_TENSOR (source))
    g_hash_table_insert (tangents, source, g_object_ref (seed));
  else
    {
      GPtrArray *reads = g_hash_table_lookup (self->reads, source);

      for (guint r = 0; reads != NULL && r < reads->len; r++)
        g_hash_table_insert (tangents, g_ptr_array_index (reads, r), g_object_ref (seed));
    }

  self->computing = TRUE;
  for (guint e = 0; e < self->entries->len && ok && *vectorised && g_hash_table_size (tangents) > 0; e++)
    ok = forward_step (g_ptr_array_index (self->entries, e), tangents, vectorised, error);
  self->computing = FALSE;

  if (!ok || !*vectorised)
    return ok;
  tangent = g_hash_table_lookup (tangents, target);
  if (tangent == NULL)
    return TRUE;

  /* (k, *t) to (*t, k): the batch of columns last */
  for (guint d = 0; d < tdim; d++)
    axes[d] = d + 1;
  axes[tdim] = 0;
  moved = ep_tensor_transpose (tangent, axes, tdim + 1, error);
  if (moved == NULL)
    return FALSE;
  *result = ep_tensor_reshape (moved, shape, ndim, error);
  return *result != NULL;
}

/* Shared by both jacobians: @batch is 1 (and the target's and source's
 * leading dimension is not special) for jacobian, the batch size for
 * batch_jacobian. */
static EpTensor *
jacobian (EpGradientTape  *self,
          EpTensor        *target,
          GObject         *source,
          gboolean         batched,
          const char      *name,
          gboolean        *answered,
          GError         **error)
{
  g_autoptr(EpTensor) value = NULL, total = NULL;
  g_autoptr(GPtrArray) rows = NULL;
  const EpLayout *t = &target->layout;
  const EpLayout *s;
  gint64 batch = 1, n_t, n_s, shape[2 * EP_MAX_DIMS];
  guint skip = batched ? 1 : 0, ndim = 0;
  gboolean connected = TRUE;

  if (!check_usable (self, name, error)
      || !check_target (target, 0, name, error)
      || !check_source (source, 0, name, error))
    return NULL;

  value = source_value (source);
  s = &value->layout;

  if (batched && (t->ndim == 0 || s->ndim == 0 || t->shape[0] != s->shape[0]))
    {
      g_autofree char *ts = ep_shape_to_string (t->shape, t->ndim);
      g_autofree char *ss = ep_shape_to_string (s->shape, s->ndim);

      g_set_error (error, EP_ERROR, EP_ERROR_SHAPE,
                   _("%s: the target %s and the source %s need the same first (batch) dimension"),
                   name, ts, ss);
      return NULL;
    }
  if (t->ndim + s->ndim - skip > EP_MAX_DIMS)
    {
      g_set_error (error, EP_ERROR, EP_ERROR_SHAPE,
                   _("%s: the result would have %u dimensions, at most %d are supported"),
                   name, t->ndim + s->ndim - skip, EP_MAX_DIMS);
      return NULL;
    }

  *answered = TRUE;
  if (batched)
    batch = t->shape[0];
  n_t = batch > 0 ? ep_layout_get_size (t) / batch : 0;
  n_s = batch > 0 ? ep_layout_get_size (s) / batch : 0;
  if (batched)
    shape[ndim++] = batch;
  for (guint d = skip; d < t->ndim; d++)
    shape[ndim++] = t->shape[d];
  for (guint d = skip; d < s->ndim; d++)
    shape[ndim++] = s->shape[d];

  if (use_forward_jacobian (self, value, n_t, n_s))
    {
      EpTensor *result = NULL;
      gboolean vectorised;

      if (!forward_jacobian (self, target, source, value, batched, n_s, shape, ndim,
                             &result, &vectorised, error))
        return NULL;
      if (vectorised && result != NULL)
        return result;
      if (vectorised)
        connected = FALSE;
    }

  rows = ep_tensor_array_new (MIN (n_t, 1024));
  for (gint64 j = 0; j < n_t && connected; j++)
    {
      gint64 row_shape[2] = { batch, n_s };
      g_autoptr(EpTensor) seed = NULL;
      g_autoptr(GPtrArray) grads = NULL;
      EpTensor *row;

      seed = one_hot (t->shape, t->ndim, ep_layout_get_size (t), n_t, j, t->dtype, error);
      if (seed == NULL)
        return NULL;
      grads = backward (self, &target, 1, &source, 1, &seed, error);
      if (grads == NULL)
        return NULL;
      if (g_ptr_array_index (grads, 0) == NULL)
        {
          connected = FALSE;
          break;
        }

      row = ep_tensor_reshape (g_ptr_array_index (grads, 0), row_shape, 2, error);
      if (row == NULL)
        return NULL;
      g_ptr_array_add (rows, row);
    }

  if (!connected && self->unconnected == EP_UNCONNECTED_GRADIENTS_NONE)
    return NULL;
  if (!connected || n_t == 0)
    return ep_grad_zeros (value, shape, ndim, error);

  /* (batch, n_t, n_s): stacking is an op, so outer tapes see it */
  total = ep_stack ((EpTensor **) rows->pdata, rows->len, 1, error);
  if (total == NULL)
    return NULL;

  return ep_tensor_reshape (total, shape, ndim, error);
}

static EpTensor *
answer_jacobian (EpGradientTape  *self,
                 EpTensor        *target,
                 GObject         *source,
                 gboolean         batched,
                 const char      *name,
                 GError         **error)
{
  gboolean answered = FALSE;
  EpTensor *result;

  result = jacobian (self, target, source, batched, name, &answered, error);

  if (answered && !self->persistent)
    {
      release (self);
      self->used = TRUE;
    }

  return result;
}

/**
 * ep_gradient_tape_jacobian:
 * @self: a tape
 * @target: the tensor to differentiate
 * @source: (type GObject): a [class@Tensor] or [class@Variable]
 * @error: return location for an error
 *
 * Computes the full Jacobian: element `[i…, j…]` of the result is the
 * derivative of `target[i…]` with respect to `source[j…]`. It takes one
 * backward pass per element of @target. Outer tapes record it, like
 * [method@GradientTape.gradient]; a tape that is not persistent answers
 * once.
 *
 * Returns: (transfer full) (nullable): a tensor of shape
 *   `target.shape + source.shape`; for an unconnected source zeros, or
 *   %NULL without an error if [property@GradientTape:unconnected-gradients]
 *   says so; %NULL with an error set as for
 *   [method@GradientTape.gradient], or %EP_ERROR_SHAPE if the result would
 *   have more than %EP_MAX_DIMS dimensions
 */
EpTensor *
ep_gradient_tape_jacobian (EpGradientTape  *self,
                           EpTensor        *target,
                           GObject         *source,
                           GError         **error)
{
  g_return_val_if_fail (EP_IS_GRADIENT_TAPE (self), NULL);
  g_return_val_if_fail (EP_IS_TENSOR (target), NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  return answer_jacobian (self, target, source, FALSE, "jacobian", error);
}

/**
 * ep_gradient_tape_batch_jacobian:
 * @self: a tape
 * @target: the tensor to differentiate, of shape `(batch, …)`
 * @source: (type GObject): a [class@Tensor] or [class@Variable] of shape
 *   `(batch, …)`
 * @error: return location for an error
 *
 * Computes the Jacobian of each example of a batch with respect to its
 * own input, for a computation where `target[b]` depends only on
 * `source[b]`: element `[b, i…, j…]` of the result is the derivative of
 * `target[b, i…]` with respect to `source[b, j…]`. It takes one backward
 * pass per element of an example of @target, not per element of the
 * batch. (If examples do interact, each element is the sum of the
 * derivatives over the batch.)
 *
 * Returns: (transfer full) (nullable): a tensor of shape
 *   `(batch,) + target.shape[1:] + source.shape[1:]`, or as for
 *   [method@GradientTape.jacobian]; %EP_ERROR_SHAPE if @target and
 *   @source differ in their first dimension
 */
EpTensor *
ep_gradient_tape_batch_jacobian (EpGradientTape  *self,
                                 EpTensor        *target,
                                 GObject         *source,
                                 GError         **error)
{
  g_return_val_if_fail (EP_IS_GRADIENT_TAPE (self), NULL);
  g_return_val_if_fail (EP_IS_TENSOR (target), NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  return answer_jacobian (self, target, source, TRUE, "batch_jacobian", error);
}
