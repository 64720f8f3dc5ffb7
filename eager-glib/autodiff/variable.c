/* autodiff/variable.c
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <glib/gi18n-lib.h>
#include <string.h>

#include "ep-autodiff-private.h"
#include "ep-device-private.h"
#include "ep-memory-private.h"
#include "ep-storage-private.h"
#include "ep-dispatch-private.h"
#include "ep-error.h"
#include "ep-error-private.h"
#include "ep-recorder-private.h"
#include "ep-tensor-private.h"
#include "ep-variable.h"

/**
 * EpVariable:
 *
 * A named, mutable holder of a tensor: the parameters of a model.
 *
 * Tensors are immutable values; a variable is where a changing value
 * lives. [method@Variable.assign], [method@Variable.assign_add] and
 * [method@Variable.assign_sub] replace its value (with one of the same
 * shape and type); [method@Variable.read] gives the current value.
 *
 * A trainable variable read while a [class@GradientTape] is active is
 * watched by that tape without being asked, and the tape can give the
 * gradient with respect to the variable itself (summed over every read):
 *
 * ```python
 * w = Ep.Variable(np.zeros((64, 10), np.float32), name="w")
 * with Ep.GradientTape() as tape:
 *     loss = (x @ w).square().mean()       # Python operators read w
 * w.assign_sub(tape.gradient(loss, w) * 0.1)
 * ```
 *
 * Assignments are not differentiable: they cut the history of what is
 * assigned.
 *
 * A variable can be read and assigned from several threads at once: each
 * read gives a whole value, the one before or the one after a concurrent
 * assignment, never a mix, and a value read stays as it was. Concurrent
 * assignments happen one after the other, in an order that is not
 * known; an `assign_add` from two threads at once may lose one of the
 * updates (it reads, then assigns), as in TensorFlow without locking.
 */

struct _EpVariable
{
  GObject    parent_instance;

  GMutex     lock;         /* for value: held while it is swapped or aliased */
  EpTensor  *value;        /* without history: no tape knows it; never
                              handed out, so never released but when
                              the initial value was */
  EpDevice  *device;       /* fixed by the initial value */
  gboolean   no_value;     /* the initial value was released */
  char      *name;
  gboolean   trainable;
  EpLayout   layout;       /* dtype and shape, fixed at construction */
};

enum {
  PROP_0,
  PROP_INITIAL_VALUE,
  PROP_NAME,
  PROP_TRAINABLE,
  N_PROPS
};

static GParamSpec *props[N_PROPS];

G_DEFINE_FINAL_TYPE (EpVariable, ep_variable, G_TYPE_OBJECT)

/* Puts an object of the variable's own for @value in place; returns
 * the one it replaces. */
static EpTensor *
exchange_value (EpVariable *self,
                EpTensor   *value)
{
  EpTensor *own = ep_tensor_new_alias (value);
  EpTensor *old;

  /* never released by a tidy scope around the assignment */
  ep_tidy_untrack (own);
  own->weak = FALSE;
  g_mutex_lock (&self->lock);
  old = self->value;
  self->value = own;
  g_mutex_unlock (&self->lock);

  if (ep_recorders_any ())
    ep_recorders_notify_variable (G_OBJECT (self), value, EP_VARIABLE_ASSIGN);
  return old;
}

static void
set_value (EpVariable *self,
           EpTensor   *value)
{
  EpTensor *old = exchange_value (self, value);

  g_clear_object (&old);
}

/* A new tensor object for the current value: it holds the storage, so a
 * later assignment (which may hand the old storage to a replay's arena,
 * graph/executor.c) leaves it as it is. */
static EpTensor *
alias_value (EpVariable *self)
{
  EpTensor *value;

  g_mutex_lock (&self->lock);
  value = ep_tensor_new_alias (self->value);
  g_mutex_unlock (&self->lock);

  return value;
}

/* The current value, to compute an update from: a tracer must see where
 * it came from. */
static EpTensor *
peek (EpVariable *self)
{
  EpTensor *value = alias_value (self);

  if (ep_recorders_any ())
    ep_recorders_notify_variable (G_OBJECT (self), value, EP_VARIABLE_PEEK);
  return value;
}

/* A variable made from a released tensor keeps its dtype and shape and
 * refuses every assignment; its reads are released tensors. */
static gboolean
check_has_value (EpVariable  *self,
                 const char  *name,
                 GError     **error)
{
  if (!self->no_value)
    return TRUE;

  g_set_error (error, EP_ERROR, EP_ERROR_INVALID_ARGUMENT,
               _("%s: the variable has no value: its initial value was released"), name);
  return FALSE;
}

static void
ep_variable_constructed (GObject *object)
{
  EpVariable *self = EP_VARIABLE (object);

  G_OBJECT_CLASS (ep_variable_parent_class)->constructed (object);

  if (self->value == NULL)
    {
      g_autoptr(EpTensor) zero = ep_tensor_new_scalar (0.0, EP_DTYPE_FLOAT32, NULL);

      set_value (self, zero);
    }
  self->layout = self->value->layout;
  ep_layout_set_contiguous (&self->layout);
  self->device = ep_tensor_get_device (self->value);
  self->no_value = self->device == NULL;
  if (self->no_value)
    self->device = ep_device_get_default ();
}

static void
ep_variable_finalize (GObject *object)
{
  EpVariable *self = EP_VARIABLE (object);

  g_clear_object (&self->value);
  g_mutex_clear (&self->lock);
  g_free (self->name);

  G_OBJECT_CLASS (ep_variable_parent_class)->finalize (object);
}

static void
ep_variable_get_property (GObject    *object,
                          guint       prop_id,
                          GValue     *value,
                          GParamSpec *pspec)
{
  EpVariable *self = EP_VARIABLE (object);

  switch (prop_id)
    {
    case PROP_NAME:
      g_value_set_string (value, self->name);
      break;
    case PROP_TRAINABLE:
      g_value_set_boolean (value, self->trainable);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
ep_variable_set_property (GObject      *object,
                          guint         prop_id,
                          const GValue *value,
                          GParamSpec   *pspec)
{
  EpVariable *self = EP_VARIABLE (object);

  switch (prop_id)
    {
    case PROP_INITIAL_VALUE:
      if (g_value_get_object (value) != NULL)
        set_value (self, g_value_get_object (value));
      break;
    case PROP_NAME:
      g_free (self->name);
      self->name = g_value_dup_string (value);
      break;
    case PROP_TRAINABLE:
      ep_variable_set_trainable (self, g_value_get_boolean (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
ep_variable_class_init (EpVariableClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->constructed = ep_variable_constructed;
  object_class->finalize = ep_variable_finalize;
  object_class->get_property = ep_variable_get_property;
  object_class->set_property = ep_variable_set_property;

  /**
   * EpVariable:initial-value:
   *
   * The first value, which fixes the variable's shape, element type and
   * device. Without one, the variable holds a float32 zero.
   */
  props[PROP_INITIAL_VALUE] =
    g_param_spec_object ("initial-value", NULL, NULL, EP_TYPE_TENSOR,
                         G_PARAM_WRITABLE | G_PARAM_CONSTRUCT_ONLY |
                         G_PARAM_STATIC_STRINGS | G_PARAM_EXPLICIT_NOTIFY);

  /**
   * EpVariable:name:
   *
   * A name for people and checkpoints, or %NULL.
   */
  props[PROP_NAME] =
    g_param_spec_string ("name", NULL, NULL, NULL,
                         G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY |
                         G_PARAM_STATIC_STRINGS | G_PARAM_EXPLICIT_NOTIFY);

  /**
   * EpVariable:trainable:
   *
   * Whether gradient tapes watch the variable when it is read.
   */
  props[PROP_TRAINABLE] =
    g_param_spec_boolean ("trainable", NULL, NULL, TRUE,
                          G_PARAM_READWRITE | G_PARAM_CONSTRUCT |
                          G_PARAM_STATIC_STRINGS | G_PARAM_EXPLICIT_NOTIFY);

  g_object_class_install_properties (object_class, N_PROPS, props);
}

static void
ep_variable_init (EpVariable *self)
{
  g_mutex_init (&self->lock);
  self->trainable = TRUE;
}

/**
 * ep_variable_new:
 * @initial_value: the first value: it fixes the shape, element type and
 *   device
 * @name: (nullable): a name, or %NULL
 *
 * Creates a trainable variable holding @initial_value.
 *
 * A released @initial_value ([method@Tensor.release]) gives a variable
 * of its dtype and shape that has no value: its reads are released
 * tensors and assignments fail with %EP_ERROR_INVALID_ARGUMENT. (The
 * Python class `Ep.Variable` raises that error at once.)
 *
 * Returns: (transfer full): the new variable
 */
EpVariable *
ep_variable_new (EpTensor   *initial_value,
                 const char *name)
{
  g_return_val_if_fail (EP_IS_TENSOR (initial_value), NULL);

  return g_object_new (EP_TYPE_VARIABLE,
                       "initial-value", initial_value,
                       "name", name,
                       NULL);
}

/* A value that already fits (a staged assignment, conformed when it was
 * traced), set as it is; gives back the value it replaces (transfer
 * full), whose buffer a replay may take for its next values */
EpTensor *
ep_variable_exchange_value (EpVariable *self,
                            EpTensor   *value)
{
  return exchange_value (self, value);
}

/* The variable's own value object (transfer full), for code that only
 * reads it: a replay's input, a graph file's data */
EpTensor *
ep_variable_peek (EpVariable *self)
{
  EpTensor *value;

  g_mutex_lock (&self->lock);
  value = g_object_ref (self->value);
  g_mutex_unlock (&self->lock);

  return value;
}

/* The value as assign_add reads it to compute an update: recorders hear
 * of a peek, which tapes do not watch (a staged update replayed op by
 * op). */
EpTensor *
ep_variable_read_for_update (EpVariable *self)
{
  return peek (self);
}

/**
 * ep_variable_read:
 * @self: a variable
 *
 * Gives the current value: a tensor object of its own for each read,
 * which a recording gradient tape watches if the variable is trainable
 * (or watched explicitly). Later assignments do not change it, and
 * releasing it ([method@Tensor.release]) leaves the variable as it is.
 *
 * Returns: (transfer full): the value
 */
EpTensor *
ep_variable_read (EpVariable *self)
{
  EpTensor *value;

  g_return_val_if_fail (EP_IS_VARIABLE (self), NULL);

  value = alias_value (self);
  if (ep_recorders_any ())
    ep_recorders_notify_variable (G_OBJECT (self), value, EP_VARIABLE_READ);

  return value;
}

/* NumPy's "same kind" casting: within floats or within integers either
 * way, up from bool, and from integers to floats. */
static gboolean
same_kind (EpDType from,
           EpDType to)
{
  if (from == to || from == EP_DTYPE_BOOL)
    return TRUE;
  if (ep_dtype_is_floating (to))
    return TRUE;

  return ep_dtype_is_integer (from) && ep_dtype_is_integer (to);
}

/* Makes @value fit: same shape, cast within its kind, moved to the
 * variable's device. The result has no history (stop_gradient, an op, so
 * that a tracer follows where the value comes from). */
static EpTensor *
conform (EpVariable  *self,
         EpTensor    *value,
         const char  *name,
         GError     **error)
{
  g_autoptr(EpTensor) plain = NULL;
  g_autoptr(EpTensor) cast = NULL;
  EpTensor *moved;

  if (!check_has_value (self, name, error)
      || !ep_tensor_check_alive (value, name, error))
    return NULL;
  if (!ep_layout_same_shape (&value->layout, &self->layout))
    {
      g_autofree char *got = ep_shape_to_string (value->layout.shape, value->layout.ndim);
      g_autofree char *want = ep_shape_to_string (self->layout.shape, self->layout.ndim);

      g_set_error (error, EP_ERROR, EP_ERROR_SHAPE,
                   _("%s: a value of shape %s cannot go in a variable of shape %s"),
                   name, got, want);
      return NULL;
    }
  if (!value->weak && !same_kind (value->layout.dtype, self->layout.dtype))
    {
      g_set_error (error, EP_ERROR, EP_ERROR_DTYPE,
                   _("%s: a value of type %s cannot go in a variable of type %s; convert it with astype first"),
                   name, ep_dtype_get_name (value->layout.dtype),
                   ep_dtype_get_name (self->layout.dtype));
      return NULL;
    }

  plain = ep_tensor_stop_gradient (value, error);
  cast = plain != NULL ? ep_tensor_astype (plain, self->layout.dtype, error) : NULL;
  moved = cast != NULL ? ep_tensor_to_device (cast, self->device, error) : NULL;
  if (moved == NULL)
    {
      ep_error_rename_call (error, "stop_gradient", name);
      ep_error_rename_call (error, "astype", name);
      ep_error_rename_call (error, "to_device", name);
    }

  return moved;
}

/**
 * ep_variable_assign:
 * @self: a variable
 * @value: the new value, of the variable's shape
 * @error: return location for an error
 *
 * Replaces the value. @value is converted to the variable's element type
 * if that loses no kind of information (float64 into float32 is allowed,
 * float into an integer variable is not) and copied to its device.
 *
 * Returns: %TRUE, or %FALSE with %EP_ERROR_SHAPE or %EP_ERROR_DTYPE set
 */
gboolean
ep_variable_assign (EpVariable  *self,
                    EpTensor    *value,
                    GError     **error)
{
  g_autoptr(EpTensor) conformed = NULL;

  g_return_val_if_fail (EP_IS_VARIABLE (self), FALSE);
  g_return_val_if_fail (EP_IS_TENSOR (value), FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  conformed = conform (self, value, "assign", error);
  if (conformed == NULL)
    return FALSE;

  set_value (self, conformed);
  return TRUE;
}

static gboolean
assign_update (EpVariable  *self,
               EpTensor    *delta,
               gboolean     subtract,
               const char  *name,
               GError     **error)
{
  g_autoptr(EpTensor) current = NULL;
  g_autoptr(EpTensor) plain = NULL;
  g_autoptr(EpTensor) updated = NULL;
  g_autoptr(EpTensor) conformed = NULL;

  if (!check_has_value (self, name, error)
      || !ep_tensor_check_alive (delta, name, error))
    return FALSE;
  current = peek (self);
  plain = ep_tensor_stop_gradient (delta, error);
  if (plain != NULL)
    updated = subtract ? ep_tensor_sub (current, plain, error) : ep_tensor_add (current, plain, error);
  if (updated == NULL)
    {
      ep_error_rename_call (error, "stop_gradient", name);
      ep_error_rename_call (error, subtract ? "sub" : "add", name);
      return FALSE;
    }

  conformed = conform (self, updated, name, error);
  if (conformed == NULL)
    return FALSE;

  set_value (self, conformed);
  return TRUE;
}

/**
 * ep_variable_assign_add:
 * @self: a variable
 * @delta: what to add, broadcastable to the variable's shape
 * @error: return location for an error
 *
 * Adds @delta to the value. Weak scalars
 * ([ctor@Tensor.new_weak_scalar], Python numbers) keep the variable's type.
 *
 * Returns: %TRUE, or %FALSE with %EP_ERROR_SHAPE or %EP_ERROR_DTYPE set
 */
gboolean
ep_variable_assign_add (EpVariable  *self,
                        EpTensor    *delta,
                        GError     **error)
{
  g_return_val_if_fail (EP_IS_VARIABLE (self), FALSE);
  g_return_val_if_fail (EP_IS_TENSOR (delta), FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  return assign_update (self, delta, FALSE, "assign_add", error);
}

/**
 * ep_variable_assign_sub:
 * @self: a variable
 * @delta: what to subtract, broadcastable to the variable's shape
 * @error: return location for an error
 *
 * Subtracts @delta from the value: the step of gradient descent.
 *
 * Returns: %TRUE, or %FALSE with %EP_ERROR_SHAPE or %EP_ERROR_DTYPE set
 */
gboolean
ep_variable_assign_sub (EpVariable  *self,
                        EpTensor    *delta,
                        GError     **error)
{
  g_return_val_if_fail (EP_IS_VARIABLE (self), FALSE);
  g_return_val_if_fail (EP_IS_TENSOR (delta), FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  return assign_update (self, delta, TRUE, "assign_sub", error);
}

/**
 * ep_variable_get_name:
 * @self: a variable
 *
 * Gives the name given at construction ([property@Variable:name]).
 *
 * Returns: (nullable): the name, or %NULL
 */
const char *
ep_variable_get_name (EpVariable *self)
{
  g_return_val_if_fail (EP_IS_VARIABLE (self), NULL);

  return self->name;
}

/**
 * ep_variable_get_trainable:
 * @self: a variable
 *
 * Tells whether @self is trainable ([property@Variable:trainable]).
 *
 * Returns: whether gradient tapes watch @self when it is read
 */
gboolean
ep_variable_get_trainable (EpVariable *self)
{
  g_return_val_if_fail (EP_IS_VARIABLE (self), FALSE);

  return self->trainable;
}

/**
 * ep_variable_set_trainable:
 * @self: a variable
 * @trainable: whether gradient tapes are to watch @self when it is read
 *
 * Makes @self trainable or not. A variable that is not trainable can
 * still be watched with [method@GradientTape.watch_variable].
 */
void
ep_variable_set_trainable (EpVariable *self,
                           gboolean    trainable)
{
  g_return_if_fail (EP_IS_VARIABLE (self));

  trainable = !!trainable;
  if (self->trainable == trainable)
    return;

  self->trainable = trainable;
  g_object_notify_by_pspec (G_OBJECT (self), props[PROP_TRAINABLE]);
}

/**
 * ep_variable_get_dtype:
 * @self: a variable
 *
 * Gives the element type of the value, fixed by the initial value.
 *
 * Returns: the element type, which never changes
 */
EpDType
ep_variable_get_dtype (EpVariable *self)
{
  g_return_val_if_fail (EP_IS_VARIABLE (self), EP_DTYPE_FLOAT32);

  return self->layout.dtype;
}

/**
 * ep_variable_get_shape:
 * @self: a variable
 * @ndim: (out) (optional): return location for the number of dimensions
 *
 * Gives the shape of the value, fixed by the initial value.
 *
 * Returns: (array length=ndim) (transfer none): the shape, which never
 *   changes
 */
const gint64 *
ep_variable_get_shape (EpVariable *self,
                       guint      *ndim)
{
  g_return_val_if_fail (EP_IS_VARIABLE (self), NULL);

  if (ndim != NULL)
    *ndim = self->layout.ndim;
  return self->layout.shape;
}

/**
 * ep_variable_get_device:
 * @self: a variable
 *
 * Gives the device that holds the value, fixed by the initial value.
 *
 * Returns: (transfer none): the device that holds the value
 */
EpDevice *
ep_variable_get_device (EpVariable *self)
{
  g_return_val_if_fail (EP_IS_VARIABLE (self), NULL);

  return self->device;
}

/* For optimizers' fused updates: the value's elements, when they can be
 * written in place: on the CPU, contiguous, held by no other tensor (no
 * read of the value is alive, so none sees the write) and no recorder
 * active (a tracer or tape must see an update as ops). The lock stays
 * held until ep_variable_end_in_place(), so that no read starts in
 * between. NULL, unlocked, otherwise. */
gpointer
ep_variable_begin_in_place (EpVariable *self)
{
  EpTensor *value = ep_variable_begin_in_place_on (self, ep_device_get_cpu ());

  return value != NULL ? ep_tensor_host_data (value) : NULL;
}

/* The same for a value on @device (its buffer written by a kernel
 * there): the value object, not referenced, or NULL, unlocked. */
EpTensor *
ep_variable_begin_in_place_on (EpVariable *self,
                               EpDevice   *device)
{
  EpTensor *value;

  if (self->no_value || ep_recorders_any ())
    return NULL;

  g_mutex_lock (&self->lock);
  value = self->value;
  if (value->storage != NULL
      && (value->storage->data != NULL || device != ep_device_get_cpu ())
      && value->storage->borrowed == NULL
      && value->storage->device == device
      && ep_layout_is_contiguous (&value->layout)
      && g_atomic_ref_count_compare (&value->storage->ref_count, 1)
      && G_OBJECT (value)->ref_count == 1)
    return value;
  g_mutex_unlock (&self->lock);

  return NULL;
}

void
ep_variable_end_in_place (EpVariable *self)
{
  g_mutex_unlock (&self->lock);
}
