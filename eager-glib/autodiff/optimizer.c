/* autodiff/optimizer.c
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <glib/gi18n-lib.h>
#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "ep-autodiff-private.h"
#include "ep-error.h"
#include "ep-device-private.h"
#include "ep-host-call.h"
#include "ep-optimizer.h"
#include "ep-recorder-private.h"
#ifdef EP_HAVE_OPENCL
#include "ep-opencl-private.h"
#endif
#include "ep-storage-private.h"
#include "ep-tensor-private.h"

/**
 * EpOptimizer:
 *
 * The base class of optimizers: objects that turn gradients into updates
 * of variables ([class@Sgd], [class@Adam], [class@Rmsprop],
 * [class@Adagrad]).
 *
 * [method@Optimizer.apply_gradients] takes the gradients and the
 * variables they belong to, in the same order, and updates each variable.
 * The state an optimizer keeps for a variable (momentum, moments) lives in
 * slot variables, made the first time the variable is updated and found
 * with [method@Optimizer.get_slot]. Updates are not differentiable and
 * no gradient tape records them.
 *
 * The learning rate is [property@Optimizer:learning-rate], or the value
 * of [property@Optimizer:learning-rate-schedule] at the step count. The
 * step count is a variable too ([method@Optimizer.get_iterations_variable]):
 * a training step staged with [class@Function] reads it, the schedule and
 * the learning rate at each replay, as the eager step does.
 *
 * ```python
 * opt = Ep.Adam(learning_rate=1e-3)
 * with Ep.GradientTape() as tape:
 *     loss = model(x).square().mean()
 * grads = tape.gradient(loss, [w, b])
 * opt.apply_gradients(grads, [w, b])
 * ```
 */

typedef struct
{
  gdouble                  learning_rate;
  EpLearningRateSchedule  *schedule;
  EpVariable              *iterations;   /* int64, 0-d, on the CPU */
  GHashTable              *slots;        /* EpVariable → (name → EpVariable) */

  /* the running step: its scalars, and while a recorder is active the
   * same as tensors that a host call computes at each replay */
  gdouble                  scalars[EP_HOST_CALL_MAX_RESULTS];
  EpTensor                *traced[EP_HOST_CALL_MAX_RESULTS];
} EpOptimizerPrivate;

G_DEFINE_ABSTRACT_TYPE_WITH_PRIVATE (EpOptimizer, ep_optimizer, G_TYPE_OBJECT)

enum
{
  PROP_0,
  PROP_LEARNING_RATE,
  PROP_LEARNING_RATE_SCHEDULE,
  PROP_ITERATIONS,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

static GQuark scalars_quark;
static GQuark slots_quark;

static void
ep_optimizer_dispose (GObject *object)
{
  EpOptimizerPrivate *priv = ep_optimizer_get_instance_private (EP_OPTIMIZER (object));

  g_clear_object (&priv->schedule);
  g_hash_table_remove_all (priv->slots);

  G_OBJECT_CLASS (ep_optimizer_parent_class)->dispose (object);
}

static void
ep_optimizer_finalize (GObject *object)
{
  EpOptimizerPrivate *priv = ep_optimizer_get_instance_private (EP_OPTIMIZER (object));

  g_hash_table_unref (priv->slots);
  g_clear_object (&priv->iterations);

  G_OBJECT_CLASS (ep_optimizer_parent_class)->finalize (object);
}

static void
ep_optimizer_get_property (GObject    *object,
                           guint       prop_id,
                           GValue     *value,
                           GParamSpec *pspec)
{
  EpOptimizer *self = EP_OPTIMIZER (object);

  switch (prop_id)
    {
    case PROP_LEARNING_RATE:
      g_value_set_double (value, ep_optimizer_get_learning_rate (self));
      break;
    case PROP_LEARNING_RATE_SCHEDULE:
      g_value_set_object (value, ep_optimizer_get_learning_rate_schedule (self));
      break;
    case PROP_ITERATIONS:
      g_value_set_uint64 (value, ep_optimizer_get_iterations (self));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
ep_optimizer_set_property (GObject      *object,
                           guint         prop_id,
                           const GValue *value,
                           GParamSpec   *pspec)
{
  EpOptimizer *self = EP_OPTIMIZER (object);

  switch (prop_id)
    {
    case PROP_LEARNING_RATE:
      ep_optimizer_set_learning_rate (self, g_value_get_double (value));
      break;
    case PROP_LEARNING_RATE_SCHEDULE:
      ep_optimizer_set_learning_rate_schedule (self, g_value_get_object (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
ep_optimizer_class_init (EpOptimizerClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->dispose = ep_optimizer_dispose;
  object_class->finalize = ep_optimizer_finalize;
  object_class->get_property = ep_optimizer_get_property;
  object_class->set_property = ep_optimizer_set_property;

  /**
   * EpOptimizer:learning-rate:
   *
   * The step size. It can change between steps, also between the replays
   * of a staged training step. With a
   * [property@Optimizer:learning-rate-schedule] it is the value the
   * schedule gave for the latest step.
   */
  properties[PROP_LEARNING_RATE] =
    g_param_spec_double ("learning-rate", NULL, NULL,
                         0.0, G_MAXDOUBLE, 1e-3,
                         G_PARAM_READWRITE | G_PARAM_CONSTRUCT | G_PARAM_EXPLICIT_NOTIFY
                         | G_PARAM_STATIC_STRINGS);

  /**
   * EpOptimizer:learning-rate-schedule:
   *
   * The schedule that gives the learning rate of each step, asked at the
   * step count (0 for the first step); %NULL (the default) for
   * [property@Optimizer:learning-rate] at every step.
   */
  properties[PROP_LEARNING_RATE_SCHEDULE] =
    g_param_spec_object ("learning-rate-schedule", NULL, NULL, EP_TYPE_LEARNING_RATE_SCHEDULE,
                         G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);

  /**
   * EpOptimizer:iterations:
   *
   * How many times [method@Optimizer.apply_gradients] has succeeded:
   * the step count, which Adam's bias correction uses.
   */
  properties[PROP_ITERATIONS] =
    g_param_spec_uint64 ("iterations", NULL, NULL,
                         0, G_MAXUINT64, 0,
                         G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);

  g_object_class_install_properties (object_class, N_PROPS, properties);

  scalars_quark = g_quark_from_static_string ("ep-optimizer-scalars");
  slots_quark = g_quark_from_static_string ("ep-optimizer-slots");
}

static void
ep_optimizer_init (EpOptimizer *self)
{
  EpOptimizerPrivate *priv = ep_optimizer_get_instance_private (self);
  EpLayout layout = { .dtype = EP_DTYPE_INT64, .ndim = 0 };
  gint64 zero = 0;
  g_autoptr(EpTensor) initial = NULL;

  priv->slots = g_hash_table_new_full (g_direct_hash, g_direct_equal,
                                       g_object_unref,
                                       (GDestroyNotify) g_hash_table_unref);
  /* 8 bytes on the CPU: cannot fail short of memory */
  initial = ep_tensor_new_from_host (ep_device_get_cpu (), &layout, &zero, "optimizer", NULL);
  g_assert (initial != NULL);
  priv->iterations = ep_variable_new (initial, "iterations");
  ep_variable_set_trainable (priv->iterations, FALSE);
}

/* What a subclass computes on the host for each step: its scalars. */
void
ep_optimizer_class_set_scalars_func (EpOptimizerClass       *klass,
                                     EpOptimizerScalarsFunc  func)
{
  g_type_set_qdata (G_TYPE_FROM_CLASS (klass), scalars_quark, func);
}

/* What a subclass keeps for each variable: its slots. */
void
ep_optimizer_class_set_slots_func (EpOptimizerClass     *klass,
                                   EpOptimizerSlotsFunc  func)
{
  g_type_set_qdata (G_TYPE_FROM_CLASS (klass), slots_quark, func);
}

static gpointer
class_func (EpOptimizer *self,
            GQuark       quark)
{
  gpointer func = NULL;

  for (GType type = G_OBJECT_TYPE (self); func == NULL && type != EP_TYPE_OPTIMIZER;
       type = g_type_parent (type))
    func = g_type_get_qdata (type, quark);

  return func;
}

/* The default: the learning rate. */
static guint
learning_rate_only (EpOptimizer *self,
                    gdouble      learning_rate,
                    guint64      step,
                    gdouble     *scalars)
{
  scalars[0] = learning_rate;
  return 1;
}

static guint
compute_scalars (EpOptimizer *self,
                 gdouble      learning_rate,
                 guint64      step,
                 gdouble     *scalars)
{
  EpOptimizerScalarsFunc func = class_func (self, scalars_quark);

  if (func == NULL)
    func = learning_rate_only;

  return func (self, learning_rate, step, scalars);
}

/* The learning rate of the step after @done steps, checked. */
static gboolean
learning_rate_at (EpOptimizer  *self,
                  guint64       done,
                  gdouble      *learning_rate,
                  GError      **error)
{
  EpOptimizerPrivate *priv = ep_optimizer_get_instance_private (self);

  if (priv->schedule == NULL)
    {
      *learning_rate = priv->learning_rate;
      return TRUE;
    }
  *learning_rate = ep_learning_rate_schedule_get_value (priv->schedule, done);
  if (!isfinite (*learning_rate) || *learning_rate < 0.0)
    {
      g_set_error (error, EP_ERROR, EP_ERROR_INVALID_ARGUMENT,
                   _("apply_gradients: the learning-rate schedule gave %g for step %" PRIu64
                     "; a learning rate is finite and not negative"),
                   *learning_rate, done);
      return FALSE;
    }
  return TRUE;
}

/* A schedule's value becomes the learning rate of the latest step. */
static void
note_learning_rate (EpOptimizer *self,
                    gdouble      learning_rate)
{
  EpOptimizerPrivate *priv = ep_optimizer_get_instance_private (self);

  if (priv->schedule != NULL && priv->learning_rate != learning_rate)
    {
      priv->learning_rate = learning_rate;
      g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_LEARNING_RATE]);
    }
}

/* The host call of a staged step: from the step count, the learning
 * rate (the schedule's, or the property's at the time of the replay) and
 * the subclass's scalars, each a 0-d float64 tensor. */
static GPtrArray *
step_scalars_callback (EpTensor **inputs,
                       guint      n_inputs,
                       gpointer   user_data,
                       GError   **error)
{
  EpOptimizer *self = user_data;
  guint64 done = (guint64) ep_tensor_item_int64 (inputs[0], NULL);
  gdouble learning_rate;
  gdouble scalars[EP_HOST_CALL_MAX_RESULTS];
  guint n;
  GPtrArray *results;

  if (!learning_rate_at (self, done, &learning_rate, error))
    return NULL;
  note_learning_rate (self, learning_rate);
  n = compute_scalars (self, learning_rate, done + 1, scalars);
  results = ep_tensor_array_new (n);
  for (guint i = 0; i < n; i++)
    {
      EpLayout layout = { .dtype = EP_DTYPE_FLOAT64, .ndim = 0 };
      EpTensor *t = ep_tensor_new_from_host (ep_device_get_cpu (), &layout, &scalars[i],
                                             "apply_gradients", error);

      if (t == NULL)
        {
          g_ptr_array_unref (results);
          return NULL;
        }
      g_ptr_array_add (results, t);
    }
  return results;
}

static void
clear_traced (EpOptimizerPrivate *priv)
{
  for (guint i = 0; i < G_N_ELEMENTS (priv->traced); i++)
    g_clear_object (&priv->traced[i]);
}

/* Computes the scalars of the step after @done steps; while a recorder
 * is active, also as tensors of a host call on the step count, so that
 * a tracer stages their computation rather than their values. */
static gboolean
begin_step (EpOptimizer  *self,
            guint64       done,
            GError      **error)
{
  EpOptimizerPrivate *priv = ep_optimizer_get_instance_private (self);
  gdouble learning_rate;
  g_autoptr(EpTensor) count = NULL;
  g_autoptr(GPtrArray) traced = NULL;

  if (!learning_rate_at (self, done, &learning_rate, error))
    return FALSE;
  note_learning_rate (self, learning_rate);
  compute_scalars (self, learning_rate, done + 1, priv->scalars);
  if (!ep_recorders_any ())
    return TRUE;

  count = ep_variable_read (priv->iterations);
  traced = ep_host_call (step_scalars_callback, g_object_ref (self), g_object_unref,
                         NULL, NULL, NULL, &count, 1, error);
  if (traced == NULL)
    return FALSE;
  for (guint i = 0; i < traced->len && i < G_N_ELEMENTS (priv->traced); i++)
    priv->traced[i] = g_object_ref (g_ptr_array_index (traced, i));

  return TRUE;
}

/* Counts the step: in place when it can (no allocation), else by an op
 * that a tracer stages. */
static gboolean
count_step (EpOptimizer  *self,
            GError      **error)
{
  EpOptimizerPrivate *priv = ep_optimizer_get_instance_private (self);
  gint64 *count = ep_variable_begin_in_place (priv->iterations);
  g_autoptr(EpTensor) one = NULL;

  if (count != NULL)
    {
      (*count)++;
      ep_variable_end_in_place (priv->iterations);
      return TRUE;
    }
  one = ep_tensor_new_weak_int (1);
  return ep_variable_assign_add (priv->iterations, one, error);
}

/* The scalar @index of the running step, as a factor for @like: a weak
 * literal, or the staged tensor cast to @like's type. */
EpTensor *
ep_optimizer_factor (EpOptimizer  *self,
                     guint         index,
                     EpTensor     *like,
                     GError      **error)
{
  EpOptimizerPrivate *priv = ep_optimizer_get_instance_private (self);

  g_assert (index < G_N_ELEMENTS (priv->scalars));
  if (priv->traced[index] == NULL)
    return ep_tensor_new_weak_scalar (priv->scalars[index], EP_DTYPE_FLOAT64);

  return ep_tensor_astype (priv->traced[index], like->layout.dtype, error);
}

/* `t * scalar[index]` */
EpTensor *
ep_optimizer_scale_by (EpOptimizer  *self,
                       EpTensor     *t,
                       guint         index,
                       GError      **error)
{
  g_autoptr(EpTensor) factor = ep_optimizer_factor (self, index, t, error);

  return factor != NULL ? ep_tensor_mul (t, factor, error) : NULL;
}

/* The scalar @index of the running step, on the host. */
gdouble
ep_optimizer_get_scalar (EpOptimizer *self,
                         guint        index)
{
  EpOptimizerPrivate *priv = ep_optimizer_get_instance_private (self);

  g_assert (index < G_N_ELEMENTS (priv->scalars));
  return priv->scalars[index];
}

/* Every pair is checked before any variable changes, so that a bad call
 * leaves all of them as they were. */
static gboolean
check_pair (EpTensor    *gradient,
            EpVariable  *variable,
            guint        i,
            GError     **error)
{
  const gint64 *shape;
  guint ndim;

  if (!ep_tensor_check_alive (gradient, "apply_gradients", error))
    return FALSE;
  shape = ep_variable_get_shape (variable, &ndim);
  if (ndim != gradient->layout.ndim
      || memcmp (shape, gradient->layout.shape, ndim * sizeof (gint64)) != 0)
    {
      g_autofree char *got = ep_shape_to_string (gradient->layout.shape, gradient->layout.ndim);
      g_autofree char *want = ep_shape_to_string (shape, ndim);

      g_set_error (error, EP_ERROR, EP_ERROR_SHAPE,
                   _("apply_gradients: gradient %u has shape %s but its variable has shape %s"),
                   i, got, want);
      return FALSE;
    }
  if (gradient->layout.dtype != ep_variable_get_dtype (variable))
    {
      g_set_error (error, EP_ERROR, EP_ERROR_DTYPE,
                   _("apply_gradients: gradient %u is %s but its variable is %s"),
                   i, ep_dtype_get_name (gradient->layout.dtype),
                   ep_dtype_get_name (ep_variable_get_dtype (variable)));
      return FALSE;
    }
  if (!ep_dtype_is_floating (gradient->layout.dtype))
    {
      g_set_error (error, EP_ERROR, EP_ERROR_DTYPE,
                   _("apply_gradients: variable %u is %s; optimizers update floating-point variables only"),
                   i, ep_dtype_get_name (gradient->layout.dtype));
      return FALSE;
    }

  return TRUE;
}

/**
 * ep_optimizer_apply_gradients:
 * @self: an optimizer
 * @gradients: (array length=n_gradients): the gradients, one per
 *   variable; an element may be %NULL (a variable without a gradient,
 *   left as it is)
 * @n_gradients: the length of @gradients
 * @variables: (array length=n_variables): the variables to update, each
 *   of the shape and type of its gradient
 * @n_variables: the length of @variables, equal to @n_gradients
 * @error: return location for an error
 *
 * Updates each variable from its gradient, in place, and counts one step
 * ([property@Optimizer:iterations]). Nothing is recorded on gradient
 * tapes. All pairs are checked first: a bad call changes nothing.
 *
 * Returns: %TRUE, or %FALSE with %EP_ERROR_INVALID_ARGUMENT (lengths),
 *   %EP_ERROR_SHAPE or %EP_ERROR_DTYPE set
 */
gboolean
ep_optimizer_apply_gradients (EpOptimizer  *self,
                              EpTensor    **gradients,
                              guint         n_gradients,
                              EpVariable  **variables,
                              guint         n_variables,
                              GError      **error)
{
  EpOptimizerPrivate *priv;
  EpOptimizerClass *klass;

  g_return_val_if_fail (EP_IS_OPTIMIZER (self), FALSE);
  g_return_val_if_fail (n_gradients == 0 || gradients != NULL, FALSE);
  g_return_val_if_fail (n_variables == 0 || variables != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  priv = ep_optimizer_get_instance_private (self);
  klass = EP_OPTIMIZER_GET_CLASS (self);
  if (n_gradients != n_variables)
    {
      g_set_error (error, EP_ERROR, EP_ERROR_INVALID_ARGUMENT,
                   _("apply_gradients: %u gradients for %u variables"),
                   n_gradients, n_variables);
      return FALSE;
    }
  for (guint i = 0; i < n_variables; i++)
    {
      if (!EP_IS_VARIABLE (variables[i]))
        {
          g_set_error (error, EP_ERROR, EP_ERROR_INVALID_ARGUMENT,
                       _("apply_gradients: variable %u is not a variable"), i);
          return FALSE;
        }
      if (gradients[i] != NULL
          && (!EP_IS_TENSOR (gradients[i])
              || !check_pair (gradients[i], variables[i], i, error)))
        {
          if (!EP_IS_TENSOR (gradients[i]))
            g_set_error (error, EP_ERROR, EP_ERROR_INVALID_ARGUMENT,
                         _("apply_gradients: gradient %u is not a tensor"), i);
          return FALSE;
        }
    }

  if (!begin_step (self, ep_optimizer_get_iterations (self), error))
    return FALSE;
  for (guint i = 0; i < n_variables; i++)
    {
      g_autoptr(EpTensor) plain = NULL;

      if (gradients[i] == NULL)
        continue;
      /* A gradient with history (a persistent tape's) must not make the
       * update part of it. */
      plain = ep_tensor_stop_gradient (gradients[i], error);
      if (plain == NULL || !klass->update (self, variables[i], plain, error))
        {
          clear_traced (priv);
          return FALSE;
        }
    }
  clear_traced (priv);
  if (!count_step (self, error))
    return FALSE;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_ITERATIONS]);

  return TRUE;
}

/**
 * ep_optimizer_get_learning_rate:
 * @self: an optimizer
 *
 * Gives the step size.
 *
 * Returns: the learning rate
 */
gdouble
ep_optimizer_get_learning_rate (EpOptimizer *self)
{
  EpOptimizerPrivate *priv;

  g_return_val_if_fail (EP_IS_OPTIMIZER (self), 0.0);

  priv = ep_optimizer_get_instance_private (self);
  return priv->learning_rate;
}

/**
 * ep_optimizer_set_learning_rate:
 * @self: an optimizer
 * @learning_rate: the new step size, not negative
 *
 * Sets the step size of the steps to come.
 */
void
ep_optimizer_set_learning_rate (EpOptimizer *self,
                                gdouble      learning_rate)
{
  EpOptimizerPrivate *priv;

  g_return_if_fail (EP_IS_OPTIMIZER (self));
  g_return_if_fail (learning_rate >= 0.0);

  priv = ep_optimizer_get_instance_private (self);
  if (priv->learning_rate == learning_rate)
    return;
  priv->learning_rate = learning_rate;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_LEARNING_RATE]);
}

/**
 * ep_optimizer_get_iterations:
 * @self: an optimizer
 *
 * Gives the number of steps taken.
 *
 * Returns: the step count
 */
guint64
ep_optimizer_get_iterations (EpOptimizer *self)
{
  EpOptimizerPrivate *priv;
  g_autoptr(EpTensor) value = NULL;

  g_return_val_if_fail (EP_IS_OPTIMIZER (self), 0);

  priv = ep_optimizer_get_instance_private (self);
  value = ep_variable_read_for_update (priv->iterations);
  return (guint64) ep_tensor_item_int64 (value, NULL);
}

/**
 * ep_optimizer_get_iterations_variable:
 * @self: an optimizer
 *
 * Gives the variable that holds the step count: an int64 scalar on the
 * CPU, not trainable, named `iterations`. A staged training step reads
 * and increments it at each replay; [method@Optimizer.list_state] lists
 * it for checkpoints.
 *
 * Returns: (transfer none): the step count's variable
 */
EpVariable *
ep_optimizer_get_iterations_variable (EpOptimizer *self)
{
  EpOptimizerPrivate *priv;

  g_return_val_if_fail (EP_IS_OPTIMIZER (self), NULL);

  priv = ep_optimizer_get_instance_private (self);
  return priv->iterations;
}

/**
 * ep_optimizer_get_learning_rate_schedule:
 * @self: an optimizer
 *
 * Gives the schedule of the learning rate.
 *
 * Returns: (transfer none) (nullable): the schedule, or %NULL if the
 *   learning rate is [property@Optimizer:learning-rate] at every step
 */
EpLearningRateSchedule *
ep_optimizer_get_learning_rate_schedule (EpOptimizer *self)
{
  EpOptimizerPrivate *priv;

  g_return_val_if_fail (EP_IS_OPTIMIZER (self), NULL);

  priv = ep_optimizer_get_instance_private (self);
  return priv->schedule;
}

/**
 * ep_optimizer_set_learning_rate_schedule:
 * @self: an optimizer
 * @schedule: (nullable): the schedule, or %NULL for a constant
 *   [property@Optimizer:learning-rate]
 *
 * Sets the schedule that gives the learning rate of the steps to come,
 * asked at the step count.
 */
void
ep_optimizer_set_learning_rate_schedule (EpOptimizer            *self,
                                         EpLearningRateSchedule *schedule)
{
  EpOptimizerPrivate *priv;

  g_return_if_fail (EP_IS_OPTIMIZER (self));
  g_return_if_fail (schedule == NULL || EP_IS_LEARNING_RATE_SCHEDULE (schedule));

  priv = ep_optimizer_get_instance_private (self);
  if (g_set_object (&priv->schedule, schedule))
    g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_LEARNING_RATE_SCHEDULE]);
}

/**
 * ep_optimizer_get_slot:
 * @self: an optimizer
 * @variable: a variable it has updated
 * @name: the slot's name, a key of the state dict of PyTorch's
 *   optimizer (`"momentum_buffer"` for [class@Sgd], `"exp_avg"` and
 *   `"exp_avg_sq"` for [class@Adam], `"square_avg"`, `"momentum_buffer"`
 *   and `"grad_avg"` for [class@Rmsprop], `"sum"` for [class@Adagrad])
 *
 * Gives the state the optimizer keeps for @variable under @name.
 *
 * Returns: (transfer none) (nullable): the slot variable, or %NULL if
 *   the optimizer has not made it (yet)
 */
EpVariable *
ep_optimizer_get_slot (EpOptimizer *self,
                       EpVariable  *variable,
                       const char  *name)
{
  EpOptimizerPrivate *priv;
  GHashTable *named;

  g_return_val_if_fail (EP_IS_OPTIMIZER (self), NULL);
  g_return_val_if_fail (EP_IS_VARIABLE (variable), NULL);
  g_return_val_if_fail (name != NULL, NULL);

  priv = ep_optimizer_get_instance_private (self);
  named = g_hash_table_lookup (priv->slots, variable);
  return named != NULL ? g_hash_table_lookup (named, name) : NULL;
}

/**
 * ep_optimizer_ensure_slot:
 * @self: an optimizer
 * @variable: the variable the slot belongs to
 * @name: the slot's name
 * @created: (out) (optional): whether the slot was made by this call
 * @error: return location for an error
 *
 * Gives the slot @name of @variable, made full of zeros (of the
 * variable's shape, type and device) if it does not exist yet. For
 * subclasses.
 *
 * Returns: (transfer none) (nullable): the slot variable, or %NULL with
 *   @error set
 */
EpVariable *
ep_optimizer_ensure_slot (EpOptimizer  *self,
                          EpVariable   *variable,
                          const char   *name,
                          gboolean     *created,
                          GError      **error)
{
  g_return_val_if_fail (EP_IS_OPTIMIZER (self), NULL);
  g_return_val_if_fail (EP_IS_VARIABLE (variable), NULL);
  g_return_val_if_fail (name != NULL, NULL);

  return ep_optimizer_ensure_slot_full (self, variable, name, 0.0, created, error);
}

/* ep_optimizer_ensure_slot() with a slot made full of @fill. */
EpVariable *
ep_optimizer_ensure_slot_full (EpOptimizer  *self,
                               EpVariable   *variable,
                               const char   *name,
                               gdouble       fill,
                               gboolean     *created,
                               GError      **error)
{
  EpOptimizerPrivate *priv;
  GHashTable *named;
  EpVariable *slot;
  g_autoptr(EpTensor) current = NULL;
  g_autoptr(EpTensor) initial = NULL;
  g_autofree char *slot_name = NULL;
  EpRecorder *recorders;

  if (created != NULL)
    *created = FALSE;
  slot = ep_optimizer_get_slot (self, variable, name);
  if (slot != NULL)
    return slot;

  /* made, not computed: a tracer must not stage the slot's making (its
   * first value, its first assignment), the replays find it made */
  recorders = ep_recorders_set_aside ();
  current = ep_variable_read_for_update (variable);
  initial = ep_tensor_full_like (current, fill, error);
  if (initial != NULL && ep_variable_get_name (variable) != NULL)
    slot_name = g_strdup_printf ("%s/%s", ep_variable_get_name (variable), name);
  slot = initial != NULL ? ep_variable_new (initial, slot_name != NULL ? slot_name : name) : NULL;
  ep_recorders_put_back (recorders);
  if (slot == NULL)
    return NULL;
  ep_variable_set_trainable (slot, FALSE);

  priv = ep_optimizer_get_instance_private (self);
  named = g_hash_table_lookup (priv->slots, variable);
  if (named == NULL)
    {
      named = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_object_unref);
      g_hash_table_insert (priv->slots, g_object_ref (variable), named);
    }
  g_hash_table_insert (named, g_strdup (name), slot);
  if (created != NULL)
    *created = TRUE;

  return slot;
}

/* PyTorch's lerp, a + w (b - a), computed from the nearer end as its
 * kernels do, so that results agree to the last bit. */
EpTensor *
ep_optimizer_lerp (EpTensor  *a,
                   EpTensor  *b,
                   gdouble    w,
                   GError   **error)
{
  g_autoptr(EpTensor) diff = ep_tensor_sub (b, a, error);
  g_autoptr(EpTensor) scaled = NULL;

  if (diff == NULL)
    return NULL;
  if (w < 0.5)
    {
      scaled = ep_optimizer_scale (diff, w, error);
      return scaled != NULL ? ep_tensor_add (a, scaled, error) : NULL;
    }
  scaled = ep_optimizer_scale (diff, 1.0 - w, error);
  return scaled != NULL ? ep_tensor_sub (b, scaled, error) : NULL;
}

/* Updates @slot to @value (transfer full, may be NULL after an error)
 * and gives the value back. */
EpTensor *
ep_optimizer_store (EpVariable  *slot,
                    EpTensor    *value,
                    GError     **error)
{
  if (value != NULL && !ep_variable_assign (slot, value, error))
    g_clear_object (&value);

  return value;
}

/* Locks the storage of each of @variables for a fused in-place update
 * and gives its elements in @data: all of them, or none (FALSE, nothing
 * locked). A %NULL variable gives %NULL data. */
gboolean
ep_optimizer_begin_in_place (EpVariable **variables,
                             gpointer    *data,
                             guint        n)
{
  for (guint i = 0; i < n; i++)
    {
      if (variables[i] == NULL)
        {
          data[i] = NULL;
          continue;
        }
      data[i] = ep_variable_begin_in_place (variables[i]);
      if (data[i] == NULL)
        {
          ep_optimizer_end_in_place (variables, i);
          return FALSE;
        }
    }

  return TRUE;
}

/* The fused update on the device of @gradient (OpenCL), if it can run
 * there: see ep_opencl_optimizer_update(). */
gboolean
ep_optimizer_update_on_device (const char     *kernel,
                               EpVariable    **state,
                               EpTensor       *gradient,
                               const gdouble  *constants,
                               gint            flags,
                               gboolean       *ran,
                               GError        **error)
{
  *ran = FALSE;
#ifdef EP_HAVE_OPENCL
  if (!ep_recorders_any ())
    return ep_opencl_optimizer_update (kernel, state, gradient, constants, flags, ran, error);
#endif
  return TRUE;
}

/* Unlocks what ep_optimizer_begin_in_place() locked, last first. */
void
ep_optimizer_end_in_place (EpVariable **variables,
                           guint        n)
{
  for (guint i = n; i > 0; i--)
    if (variables[i - 1] != NULL)
      ep_variable_end_in_place (variables[i - 1]);
}

/**
 * ep_optimizer_list_state:
 * @self: an optimizer
 * @prefix: (nullable): the first part of each name, `optimizer` if %NULL
 * @names: (array zero-terminated=1): the names of @variables, distinct
 *   (object-graph paths such as `encoder.layers.0.weight`)
 * @variables: (array length=n_variables): the variables the optimizer
 *   updates, one per name
 * @n_variables: the length of @variables, that of @names
 * @state_names: (out) (array zero-terminated=1) (transfer full): the
 *   names of the state's variables, one per element of the result
 * @error: return location for an error
 *
 * Lists the optimizer's state as named variables, for a checkpoint
 * ([func@checkpoint_save], [func@checkpoint_restore]): the step count,
 * named `PREFIX.iterations`, and the slots of each floating-point
 * variable of @variables, named `PREFIX.NAME.SLOT` with the slot names of
 * PyTorch's state dicts (`optimizer.encoder.layers.0.weight.exp_avg`).
 * Variables of other types have no state and are skipped.
 *
 * Slots that do not exist yet are made, with the values the first step
 * would start from: a fresh optimizer restored from a checkpoint before
 * its first step continues exactly where the saved one stopped.
 *
 * ```python
 * names, variables = model_names, model_variables
 * state, state_names = opt.list_state(None, names, variables)
 * Ep.checkpoint_save(names + state_names, variables + state, file, None)
 * ```
 *
 * Returns: (transfer container) (element-type EpVariable) (nullable):
 *   the state's variables, or %NULL with %EP_ERROR_INVALID_ARGUMENT set
 *   (lengths)
 */
GPtrArray *
ep_optimizer_list_state (EpOptimizer        *self,
                         const char         *prefix,
                         const char *const  *names,
                         EpVariable *const  *variables,
                         guint               n_variables,
                         char             ***state_names,
                         GError            **error)
{
  EpOptimizerPrivate *priv;
  EpOptimizerSlotsFunc slots_func;
  g_autoptr(GPtrArray) state = NULL;
  g_autoptr(GPtrArray) state_names_array = NULL;
  guint n_names;

  g_return_val_if_fail (EP_IS_OPTIMIZER (self), NULL);
  g_return_val_if_fail (names != NULL, NULL);
  g_return_val_if_fail (n_variables == 0 || variables != NULL, NULL);
  g_return_val_if_fail (state_names != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  *state_names = NULL;
  priv = ep_optimizer_get_instance_private (self);
  n_names = g_strv_length ((char **) names);
  if (n_names != n_variables)
    {
      g_set_error (error, EP_ERROR, EP_ERROR_INVALID_ARGUMENT,
                   _("list_state: %u names for %u variables"), n_names, n_variables);
      return NULL;
    }
  for (guint i = 0; i < n_variables; i++)
    if (!EP_IS_VARIABLE (variables[i]))
      {
        g_set_error (error, EP_ERROR, EP_ERROR_INVALID_ARGUMENT,
                     _("list_state: variable %u is not a variable"), i);
        return NULL;
      }
  if (prefix == NULL)
    prefix = "optimizer";

  state = g_ptr_array_new_with_free_func (g_object_unref);
  state_names_array = g_ptr_array_new_with_free_func (g_free);
  g_ptr_array_add (state, g_object_ref (priv->iterations));
  g_ptr_array_add (state_names_array, g_strdup_printf ("%s.iterations", prefix));

  slots_func = class_func (self, slots_quark);
  for (guint i = 0; i < n_variables && slots_func != NULL; i++)
    {
      EpOptimizerSlot slots[EP_OPTIMIZER_MAX_SLOTS];
      guint n_slots;

      if (!ep_dtype_is_floating (ep_variable_get_dtype (variables[i])))
        continue;
      n_slots = slots_func (self, slots);
      for (guint k = 0; k < n_slots; k++)
        {
          EpVariable *slot = ep_optimizer_ensure_slot_full (self, variables[i], slots[k].name,
                                                            slots[k].fill, NULL, error);

          if (slot == NULL)
            return NULL;
          g_ptr_array_add (state, g_object_ref (slot));
          g_ptr_array_add (state_names_array,
                           g_strdup_printf ("%s.%s.%s", prefix, names[i], slots[k].name));
        }
    }

  g_ptr_array_add (state_names_array, NULL);
  *state_names = (char **) g_ptr_array_steal (state_names_array, NULL);
  return g_steal_pointer (&state);
}

/* `t * s` for a float literal s, which keeps t's type (a weak scalar). */
EpTensor *
ep_optimizer_scale (EpTensor  *t,
                    gdouble    s,
                    GError   **error)
{
  g_autoptr(EpTensor) factor = ep_tensor_new_weak_scalar (s, EP_DTYPE_FLOAT64);

  return ep_tensor_mul (t, factor, error);
}

/* `a * s + b * r`, a step of an exponential average. */
EpTensor *
ep_optimizer_blend (EpTensor  *a,
                    gdouble    s,
                    EpTensor  *b,
                    gdouble    r,
                    GError   **error)
{
  g_autoptr(EpTensor) sa = ep_optimizer_scale (a, s, error);
  g_autoptr(EpTensor) rb = sa != NULL ? ep_optimizer_scale (b, r, error) : NULL;

  return rb != NULL ? ep_tensor_add (sa, rb, error) : NULL;
}

gconstpointer
ep_optimizer_host_gradient (EpTensor *gradient)
{
  /* (the fused loops are float32 and float64 ones: float16 and
   * bfloat16 take the ops, which compute in float32) */
  if (gradient->storage == NULL || ep_dtype_is_half (gradient->layout.dtype)
      || gradient->storage->data == NULL
      || gradient->storage->device != ep_device_get_cpu ()
      || !ep_layout_is_contiguous (&gradient->layout))
    return NULL;

  return ep_tensor_host_data (gradient);
}
