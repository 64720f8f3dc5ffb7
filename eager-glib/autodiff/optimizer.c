/* autodiff/optimizer.c
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <glib/gi18n-lib.h>
#include <string.h>

#include "ep-autodiff-private.h"
#include "ep-error.h"
#include "ep-device-private.h"
#include "ep-optimizer.h"
#include "ep-storage-private.h"
#include "ep-tensor-private.h"

/**
 * EpOptimizer:
 *
 * The base class of optimizers: objects that turn gradients into updates
 * of variables ([class@Sgd], [class@Adam]).
 *
 * [method@Optimizer.apply_gradients] takes the gradients and the
 * variables they belong to, in the same order, and updates each variable.
 * The state an optimizer keeps for a variable (momentum, moments) lives in
 * slot variables, made the first time the variable is updated and found
 * with [method@Optimizer.get_slot]. Updates are not differentiable and
 * no gradient tape records them.
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
  gdouble      learning_rate;
  guint64      iterations;
  GHashTable  *slots;        /* EpVariable → (name → EpVariable) */
} EpOptimizerPrivate;

G_DEFINE_ABSTRACT_TYPE_WITH_PRIVATE (EpOptimizer, ep_optimizer, G_TYPE_OBJECT)

enum
{
  PROP_0,
  PROP_LEARNING_RATE,
  PROP_ITERATIONS,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

static void
ep_optimizer_finalize (GObject *object)
{
  EpOptimizerPrivate *priv = ep_optimizer_get_instance_private (EP_OPTIMIZER (object));

  g_hash_table_unref (priv->slots);

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
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
ep_optimizer_class_init (EpOptimizerClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = ep_optimizer_finalize;
  object_class->get_property = ep_optimizer_get_property;
  object_class->set_property = ep_optimizer_set_property;

  /**
   * EpOptimizer:learning-rate:
   *
   * The step size. It can change between steps (a schedule).
   */
  properties[PROP_LEARNING_RATE] =
    g_param_spec_double ("learning-rate", NULL, NULL,
                         0.0, G_MAXDOUBLE, 1e-3,
                         G_PARAM_READWRITE | G_PARAM_CONSTRUCT | G_PARAM_EXPLICIT_NOTIFY
                         | G_PARAM_STATIC_STRINGS);

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
}

static void
ep_optimizer_init (EpOptimizer *self)
{
  EpOptimizerPrivate *priv = ep_optimizer_get_instance_private (self);

  priv->slots = g_hash_table_new_full (g_direct_hash, g_direct_equal,
                                       g_object_unref,
                                       (GDestroyNotify) g_hash_table_unref);
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

  priv->iterations++;
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
          priv->iterations--;
          return FALSE;
        }
    }
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

  g_return_val_if_fail (EP_IS_OPTIMIZER (self), 0);

  priv = ep_optimizer_get_instance_private (self);
  return priv->iterations;
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

  if (created != NULL)
    *created = FALSE;
  slot = ep_optimizer_get_slot (self, variable, name);
  if (slot != NULL)
    return slot;

  current = ep_variable_read_for_update (variable);
  initial = ep_tensor_full_like (current, fill, error);
  if (initial == NULL)
    return NULL;
  if (ep_variable_get_name (variable) != NULL)
    slot_name = g_strdup_printf ("%s/%s", ep_variable_get_name (variable), name);
  slot = ep_variable_new (initial, slot_name != NULL ? slot_name : name);
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

/* Unlocks what ep_optimizer_begin_in_place() locked, last first. */
void
ep_optimizer_end_in_place (EpVariable **variables,
                           guint        n)
{
  for (guint i = n; i > 0; i--)
    if (variables[i - 1] != NULL)
      ep_variable_end_in_place (variables[i - 1]);
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
  if (gradient->storage == NULL
      || gradient->storage->data == NULL
      || gradient->storage->device != ep_device_get_cpu ()
      || !ep_layout_is_contiguous (&gradient->layout))
    return NULL;

  return ep_tensor_host_data (gradient);
}
