/* nn/module.c
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <gio/gio.h>
#include <glib/gi18n-lib.h>
#include <string.h>

#include "ep-autodiff-private.h"
#include "ep-creation.h"
#include "ep-error-private.h"
#include "ep-error.h"
#include "ep-module.h"
#include "ep-module-private.h"
#include "ep-random.h"
#include "ep-tensor-private.h"

/**
 * EpModule:
 *
 * A part of a model: a GObject holding named variables (its parameters
 * and its state) and named child modules, with a call that computes an
 * output from an input. Like PyTorch's `torch.nn.Module` and
 * TensorFlow's `tf.Module`.
 *
 * Variables and children are registered under names
 * ([method@Module.add_variable], [method@Module.create_variable],
 * [method@Module.add_module]) and kept in registration order. A name is
 * not empty, has no dot, and is given once per module (variables and
 * children share the names). Paths join the names with dots:
 * `encoder.layers.0.weight` is the variable `weight` of the child `0`
 * of the child `layers` of the child `encoder`.
 * [method@Module.get_variables] gives every variable of the tree with
 * its path (own variables in order, then each child's, depth first),
 * which is what [func@checkpoint_save] takes;
 * [method@Module.get_trainable_variables] the trainable ones in the same
 * order, which is what an optimizer takes. A variable reached twice (a
 * module shared by two parents, weights tied) is listed once, under its
 * first path.
 *
 * A module may be the child of several modules, but never of itself or
 * of one of its descendants: children hold no reference to their
 * parents, so the tree holds no reference cycle.
 *
 * [property@Module:training] says whether the module is training
 * (dropout drops, batch normalisation uses the batch's statistics) or
 * evaluating; setting it sets it on every descendant, as PyTorch's
 * `train()` and `eval()` do.
 *
 * A subclass implements `call` (`do_call` in Python, `vfunc_call` in
 * gjs, `public override Ep.Tensor call (Ep.Tensor input) throws
 * GLib.Error` in Vala); [method@Module.call] runs it. A module without
 * `call` ([ctor@Module.new]) is a container, and calling it is an error.
 * Inside a staged function ([class@Function]), a module's call is traced
 * like any other code: the variables it reads are captured by
 * reference, so each replay sees their current values.
 *
 * ```python
 * class Net(Ep.Module):
 *     def __init__(self):
 *         super().__init__()
 *         self.hidden = Ep.Linear(64, 32)    # registered as "hidden"
 *         self.out = Ep.Linear(32, 10)
 *
 *     def do_call(self, x):
 *         return self.out(self.hidden(x).relu())
 * ```
 *
 * Modules are not locked: build a module (register its variables and
 * children, set its training flag) on one thread; once built, it can be
 * called from several threads at once if its call can (the layers of
 * this library can: they only read their variables).
 */

typedef struct
{
  GPtrArray  *variables;       /* EpVariable, in registration order */
  GPtrArray  *variable_names;  /* char *, beside them */
  GPtrArray  *children;        /* EpModule, in registration order */
  GPtrArray  *child_names;     /* char * */
  GHashTable *names;           /* every name given → its object */
  gboolean    training;
  GError     *construct_error; /* a layer's properties it could not use */
} EpModulePrivate;

static void ep_module_initable_iface_init (GInitableIface *iface);

G_DEFINE_TYPE_WITH_CODE (EpModule, ep_module, G_TYPE_OBJECT,
                         G_ADD_PRIVATE (EpModule)
                         G_IMPLEMENT_INTERFACE (G_TYPE_INITABLE, ep_module_initable_iface_init))

enum
{
  PROP_0,
  PROP_TRAINING,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

static void
ep_module_dispose (GObject *object)
{
  EpModulePrivate *priv = ep_module_get_instance_private (EP_MODULE (object));

  g_hash_table_remove_all (priv->names);
  g_ptr_array_set_size (priv->children, 0);
  g_ptr_array_set_size (priv->child_names, 0);
  g_ptr_array_set_size (priv->variables, 0);
  g_ptr_array_set_size (priv->variable_names, 0);

  G_OBJECT_CLASS (ep_module_parent_class)->dispose (object);
}

static void
ep_module_finalize (GObject *object)
{
  EpModulePrivate *priv = ep_module_get_instance_private (EP_MODULE (object));

  g_hash_table_unref (priv->names);
  g_ptr_array_unref (priv->children);
  g_ptr_array_unref (priv->child_names);
  g_ptr_array_unref (priv->variables);
  g_ptr_array_unref (priv->variable_names);
  g_clear_error (&priv->construct_error);

  G_OBJECT_CLASS (ep_module_parent_class)->finalize (object);
}

static void
ep_module_get_property (GObject    *object,
                        guint       prop_id,
                        GValue     *value,
                        GParamSpec *pspec)
{
  switch (prop_id)
    {
    case PROP_TRAINING:
      g_value_set_boolean (value, ep_module_get_training (EP_MODULE (object)));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
ep_module_set_property (GObject      *object,
                        guint         prop_id,
                        const GValue *value,
                        GParamSpec   *pspec)
{
  switch (prop_id)
    {
    case PROP_TRAINING:
      ep_module_set_training (EP_MODULE (object), g_value_get_boolean (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
ep_module_class_init (EpModuleClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->dispose = ep_module_dispose;
  object_class->finalize = ep_module_finalize;
  object_class->get_property = ep_module_get_property;
  object_class->set_property = ep_module_set_property;

  /**
   * EpModule:training:
   *
   * Whether the module is training (the default) or evaluating. Setting
   * it sets it on every descendant; a child added later keeps its own.
   */
  properties[PROP_TRAINING] =
    g_param_spec_boolean ("training", NULL, NULL, TRUE,
                          G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);

  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
ep_module_init (EpModule *self)
{
  EpModulePrivate *priv = ep_module_get_instance_private (self);

  priv->variables = g_ptr_array_new_with_free_func (g_object_unref);
  priv->variable_names = g_ptr_array_new_with_free_func (g_free);
  priv->children = g_ptr_array_new_with_free_func (g_object_unref);
  priv->child_names = g_ptr_array_new_with_free_func (g_free);
  priv->names = g_hash_table_new (g_str_hash, g_str_equal);
  priv->training = TRUE;
}

/* A layer made from properties it cannot use (a negative size, a dtype
 * that is not floating-point, no memory for its weights) keeps the error:
 * g_initable_init() gives it, and so does each call. */
static gboolean
ep_module_initable_init (GInitable     *initable,
                         GCancellable  *cancellable,
                         GError       **error)
{
  EpModulePrivate *priv = ep_module_get_instance_private (EP_MODULE (initable));

  if (priv->construct_error == NULL)
    return TRUE;
  g_propagate_error (error, g_error_copy (priv->construct_error));
  return FALSE;
}

static void
ep_module_initable_iface_init (GInitableIface *iface)
{
  iface->init = ep_module_initable_init;
}

void
ep_module_take_construct_error (EpModule *self,
                                GError   *error)
{
  EpModulePrivate *priv = ep_module_get_instance_private (self);

  if (priv->construct_error == NULL)
    priv->construct_error = error;
  else
    g_error_free (error);
}

/* A layer's variable made from @value (which it takes), or %NULL with
 * @error renamed to @layer when @value is %NULL (the op that should have
 * made it failed). */
static EpVariable *
create_from (EpModule    *self,
             const char  *name,
             EpTensor    *value,
             gboolean     trainable,
             const char  *layer,
             GError     **error)
{
  g_autoptr(EpTensor) owned = value;

  if (owned == NULL)
    {
      ep_error_rename_call (error, NULL, layer);
      return NULL;
    }
  return ep_module_create_variable (self, name, owned, trainable, error);
}

EpVariable *
ep_module_create_uniform_variable (EpModule      *self,
                                   const char    *name,
                                   const gint64  *shape,
                                   guint          ndim,
                                   gdouble        bound,
                                   EpDType        dtype,
                                   const char    *layer,
                                   GError       **error)
{
  return create_from (self, name, ep_uniform (shape, ndim, -bound, bound, dtype, error),
                      TRUE, layer, error);
}

EpVariable *
ep_module_create_filled_variable (EpModule      *self,
                                  const char    *name,
                                  const gint64  *shape,
                                  guint          ndim,
                                  gdouble        value,
                                  EpDType        dtype,
                                  gboolean       trainable,
                                  const char    *layer,
                                  GError       **error)
{
  return create_from (self, name, ep_full (shape, ndim, value, dtype, error),
                      trainable, layer, error);
}

EpVariable *
ep_module_create_normal_variable (EpModule      *self,
                                  const char    *name,
                                  const gint64  *shape,
                                  guint          ndim,
                                  EpDType        dtype,
                                  const char    *layer,
                                  GError       **error)
{
  return create_from (self, name, ep_normal (shape, ndim, 0.0, 1.0, dtype, error),
                      TRUE, layer, error);
}

GPtrArray *
ep_module_peek_children (EpModule *self)
{
  EpModulePrivate *priv = ep_module_get_instance_private (self);

  return priv->children;
}

/**
 * ep_module_new:
 *
 * Makes a module without a call: a container of variables and modules.
 * Subclasses make theirs with g_object_new().
 *
 * Returns: (transfer full): the new module
 */
EpModule *
ep_module_new (void)
{
  return g_object_new (EP_TYPE_MODULE, NULL);
}

/**
 * ep_module_call:
 * @self: a module
 * @input: the input
 * @error: return location for an error
 *
 * Computes the module's output for @input with the call of its class
 * (the virtual method `call`).
 *
 * Returns: (transfer full): the output, or %NULL with @error set: the
 *   error of the call, or %EP_ERROR_INVALID_ARGUMENT for a module
 *   without a call, one that could not be made from its properties, or
 *   a call that returned nothing and set no error
 */
EpTensor *
ep_module_call (EpModule  *self,
                EpTensor  *input,
                GError   **error)
{
  EpModulePrivate *priv;
  EpModuleClass *klass;
  GError *local = NULL;
  EpTensor *output;

  g_return_val_if_fail (EP_IS_MODULE (self), NULL);
  g_return_val_if_fail (EP_IS_TENSOR (input), NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  priv = ep_module_get_instance_private (self);
  klass = EP_MODULE_GET_CLASS (self);
  if (priv->construct_error != NULL)
    {
      g_propagate_error (error, g_error_copy (priv->construct_error));
      return NULL;
    }
  if (klass->call == NULL)
    {
      g_set_error (error, EP_ERROR, EP_ERROR_INVALID_ARGUMENT,
                   _("call: a module of type %s has no call (it only holds variables and modules)"),
                   G_OBJECT_TYPE_NAME (self));
      return NULL;
    }

  output = klass->call (self, input, &local);
  if (local != NULL)
    {
      g_clear_object (&output);
      g_propagate_error (error, local);
      return NULL;
    }
  if (output == NULL || !EP_IS_TENSOR (output))
    {
      g_set_error (error, EP_ERROR, EP_ERROR_INVALID_ARGUMENT,
                   _("call: the call of %s returned no tensor and set no error"),
                   G_OBJECT_TYPE_NAME (self));
      return NULL;
    }
  /* no public function hands back the object it was given */
  if (output == input)
    {
      g_object_unref (output);
      output = ep_identity (input, error);
    }

  return output;
}

static gboolean
check_name (EpModule    *self,
            const char  *name,
            const char  *caller,
            GError     **error)
{
  EpModulePrivate *priv = ep_module_get_instance_private (self);

  if (name[0] == '\0')
    {
      g_set_error (error, EP_ERROR, EP_ERROR_INVALID_ARGUMENT,
                   _("%s: a name must not be empty"), caller);
      return FALSE;
    }
  if (strchr (name, '.') != NULL)
    {
      g_set_error (error, EP_ERROR, EP_ERROR_INVALID_ARGUMENT,
                   _("%s: the name “%s” has a dot (dots join the names of a path)"),
                   caller, name);
      return FALSE;
    }
  if (g_hash_table_contains (priv->names, name))
    {
      g_set_error (error, EP_ERROR, EP_ERROR_INVALID_ARGUMENT,
                   _("%s: the module has a variable or module named “%s” already"),
                   caller, name);
      return FALSE;
    }
  return TRUE;
}

/**
 * ep_module_add_variable:
 * @self: a module
 * @name: the variable's name in the module: not empty, without a dot,
 *   not given to another variable or module of @self
 * @variable: the variable; its [property@Variable:trainable] says
 *   whether optimizers train it (a parameter) or not (state, such as a
 *   running mean)
 * @error: return location for an error
 *
 * Registers @variable under @name, after the variables registered
 * before it.
 *
 * Returns: %TRUE, or %FALSE with %EP_ERROR_INVALID_ARGUMENT set for a
 *   bad name
 */
gboolean
ep_module_add_variable (EpModule    *self,
                        const char  *name,
                        EpVariable  *variable,
                        GError     **error)
{
  EpModulePrivate *priv;
  char *own;

  g_return_val_if_fail (EP_IS_MODULE (self), FALSE);
  g_return_val_if_fail (name != NULL, FALSE);
  g_return_val_if_fail (EP_IS_VARIABLE (variable), FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  if (!check_name (self, name, "add_variable", error))
    return FALSE;

  priv = ep_module_get_instance_private (self);
  own = g_strdup (name);
  g_ptr_array_add (priv->variables, g_object_ref (variable));
  g_ptr_array_add (priv->variable_names, own);
  g_hash_table_insert (priv->names, own, variable);
  return TRUE;
}

/**
 * ep_module_create_variable:
 * @self: a module
 * @name: the variable's name in the module (as for
 *   [method@Module.add_variable]), also given to the variable
 * @initial_value: the variable's value
 * @trainable: whether optimizers train it
 * @error: return location for an error
 *
 * Makes a variable of @initial_value named @name and registers it, as
 * layers do with their weights.
 *
 * Returns: (transfer none): the variable, which @self holds, or %NULL
 *   with %EP_ERROR_INVALID_ARGUMENT set for a bad name or a released
 *   @initial_value
 */
EpVariable *
ep_module_create_variable (EpModule    *self,
                           const char  *name,
                           EpTensor    *initial_value,
                           gboolean     trainable,
                           GError     **error)
{
  g_autoptr(EpVariable) variable = NULL;

  g_return_val_if_fail (EP_IS_MODULE (self), NULL);
  g_return_val_if_fail (name != NULL, NULL);
  g_return_val_if_fail (EP_IS_TENSOR (initial_value), NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (!check_name (self, name, "create_variable", error)
      || !ep_tensor_check_alive (initial_value, "create_variable", error))
    return NULL;

  variable = g_object_new (EP_TYPE_VARIABLE,
                           "initial-value", initial_value,
                           "name", name,
                           "trainable", trainable,
                           NULL);
  if (!ep_module_add_variable (self, name, variable, error))
    return NULL;
  return variable;
}

/* Whether @target is @module or one of its descendants. */
static gboolean
contains (EpModule *module,
          EpModule *target)
{
  EpModulePrivate *priv = ep_module_get_instance_private (module);

  if (module == target)
    return TRUE;
  for (guint i = 0; i < priv->children->len; i++)
    if (contains (g_ptr_array_index (priv->children, i), target))
      return TRUE;
  return FALSE;
}

/**
 * ep_module_add_module:
 * @self: a module
 * @name: the child's name: not empty, without a dot, not given to
 *   another variable or module of @self
 * @module: the child; it may be the child of other modules too, but
 *   not @self nor a module that contains @self
 * @error: return location for an error
 *
 * Registers @module as a child of @self under @name, after the
 * children registered before it. The child keeps its own
 * [property@Module:training].
 *
 * Returns: %TRUE, or %FALSE with %EP_ERROR_INVALID_ARGUMENT set for a
 *   bad name or a child that would make a cycle
 */
gboolean
ep_module_add_module (EpModule    *self,
                      const char  *name,
                      EpModule    *module,
                      GError     **error)
{
  EpModulePrivate *priv;
  char *own;

  g_return_val_if_fail (EP_IS_MODULE (self), FALSE);
  g_return_val_if_fail (name != NULL, FALSE);
  g_return_val_if_fail (EP_IS_MODULE (module), FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  if (!check_name (self, name, "add_module", error))
    return FALSE;
  if (contains (module, self))
    {
      g_set_error (error, EP_ERROR, EP_ERROR_INVALID_ARGUMENT,
                   module == self
                   ? _("add_module: “%s” is the module itself: a module cannot contain itself")
                   : _("add_module: “%s” contains the module: a module cannot contain itself"),
                   name);
      return FALSE;
    }

  priv = ep_module_get_instance_private (self);
  own = g_strdup (name);
  g_ptr_array_add (priv->children, g_object_ref (module));
  g_ptr_array_add (priv->child_names, own);
  g_hash_table_insert (priv->names, own, module);
  return TRUE;
}

/* The object at @path (names joined with dots) under @self, or NULL. */
static GObject *
lookup (EpModule   *self,
        const char *path)
{
  EpModulePrivate *priv = ep_module_get_instance_private (self);
  const char *dot = strchr (path, '.');
  g_autofree char *head = NULL;
  GObject *found;

  if (dot == NULL)
    return g_hash_table_lookup (priv->names, path);

  head = g_strndup (path, dot - path);
  found = g_hash_table_lookup (priv->names, head);
  if (found == NULL || !EP_IS_MODULE (found))
    return NULL;
  return lookup (EP_MODULE (found), dot + 1);
}

/**
 * ep_module_get_variable:
 * @self: a module
 * @path: a name of @self's, or a path through its children
 *   (`layers.0.weight`)
 *
 * Finds a variable by its name or path.
 *
 * Returns: (transfer none) (nullable): the variable, or %NULL if there
 *   is none there
 */
EpVariable *
ep_module_get_variable (EpModule   *self,
                        const char *path)
{
  GObject *found;

  g_return_val_if_fail (EP_IS_MODULE (self), NULL);
  g_return_val_if_fail (path != NULL, NULL);

  found = lookup (self, path);
  return found != NULL && EP_IS_VARIABLE (found) ? EP_VARIABLE (found) : NULL;
}

/**
 * ep_module_get_module:
 * @self: a module
 * @path: a child's name, or a path through the children (`layers.0`)
 *
 * Finds a descendant by its name or path.
 *
 * Returns: (transfer none) (nullable): the module, or %NULL if there is
 *   none there
 */
EpModule *
ep_module_get_module (EpModule   *self,
                      const char *path)
{
  GObject *found;

  g_return_val_if_fail (EP_IS_MODULE (self), NULL);
  g_return_val_if_fail (path != NULL, NULL);

  found = lookup (self, path);
  return found != NULL && EP_IS_MODULE (found) ? EP_MODULE (found) : NULL;
}

static GPtrArray *
copy_registered (GPtrArray   *objects,
                 GPtrArray   *names,
                 char      ***names_out)
{
  GPtrArray *result = g_ptr_array_new_full (objects->len, g_object_unref);

  for (guint i = 0; i < objects->len; i++)
    g_ptr_array_add (result, g_object_ref (g_ptr_array_index (objects, i)));
  if (names_out != NULL)
    {
      *names_out = g_new0 (char *, names->len + 1);
      for (guint i = 0; i < names->len; i++)
        (*names_out)[i] = g_strdup (g_ptr_array_index (names, i));
    }
  return result;
}

/**
 * ep_module_get_children:
 * @self: a module
 * @names: (out) (optional) (array zero-terminated=1) (transfer full): the
 *   children's names, in the same order
 *
 * Gives the children of @self (not their descendants), in registration
 * order.
 *
 * Returns: (transfer container) (element-type EpModule): the children
 */
GPtrArray *
ep_module_get_children (EpModule   *self,
                        char     ***names)
{
  EpModulePrivate *priv;

  g_return_val_if_fail (EP_IS_MODULE (self), NULL);

  priv = ep_module_get_instance_private (self);
  return copy_registered (priv->children, priv->child_names, names);
}

/**
 * ep_module_get_own_variables:
 * @self: a module
 * @names: (out) (optional) (array zero-terminated=1) (transfer full): the
 *   variables' names, in the same order
 *
 * Gives the variables registered in @self itself (not its children's),
 * in registration order, trainable or not.
 *
 * Returns: (transfer container) (element-type EpVariable): the variables
 */
GPtrArray *
ep_module_get_own_variables (EpModule   *self,
                             char     ***names)
{
  EpModulePrivate *priv;

  g_return_val_if_fail (EP_IS_MODULE (self), NULL);

  priv = ep_module_get_instance_private (self);
  return copy_registered (priv->variables, priv->variable_names, names);
}

typedef struct
{
  gboolean    trainable_only;
  GHashTable *seen;       /* the variables listed */
  GPtrArray  *variables;
  GPtrArray  *paths;      /* char *, or NULL when not asked */
} Walk;

static void
walk (EpModule   *module,
      const char *prefix,
      Walk       *w)
{
  EpModulePrivate *priv = ep_module_get_instance_private (module);

  for (guint i = 0; i < priv->variables->len; i++)
    {
      EpVariable *variable = g_ptr_array_index (priv->variables, i);

      if ((w->trainable_only && !ep_variable_get_trainable (variable))
          || !g_hash_table_add (w->seen, variable))
        continue;
      g_ptr_array_add (w->variables, g_object_ref (variable));
      if (w->paths != NULL)
        g_ptr_array_add (w->paths, g_strconcat (prefix, g_ptr_array_index (priv->variable_names, i),
                                                NULL));
    }
  for (guint i = 0; i < priv->children->len; i++)
    {
      g_autofree char *child_prefix = g_strconcat (prefix, g_ptr_array_index (priv->child_names, i),
                                                   ".", NULL);

      walk (g_ptr_array_index (priv->children, i), child_prefix, w);
    }
}

static GPtrArray *
collect (EpModule   *self,
         gboolean    trainable_only,
         char     ***paths)
{
  g_autoptr(GHashTable) seen = g_hash_table_new (g_direct_hash, g_direct_equal);
  Walk w = {
    .trainable_only = trainable_only,
    .seen = seen,
    .variables = g_ptr_array_new_with_free_func (g_object_unref),
    .paths = paths != NULL ? g_ptr_array_new () : NULL,
  };

  walk (self, "", &w);
  if (paths != NULL)
    {
      g_ptr_array_add (w.paths, NULL);
      *paths = (char **) g_ptr_array_free (w.paths, FALSE);
    }
  return w.variables;
}

/**
 * ep_module_get_variables:
 * @self: a module
 * @paths: (out) (optional) (array zero-terminated=1) (transfer full):
 *   each variable's path from @self (`encoder.layers.0.weight`), in the
 *   same order
 *
 * Gives every variable of @self and its descendants, trainable or not:
 * its own in registration order, then each child's in turn, depth
 * first. A variable reached twice is listed once, under its first path.
 * The paths and variables are what [func@checkpoint_save] and
 * [func@checkpoint_restore] take.
 *
 * Returns: (transfer container) (element-type EpVariable): the variables
 */
GPtrArray *
ep_module_get_variables (EpModule   *self,
                         char     ***paths)
{
  g_return_val_if_fail (EP_IS_MODULE (self), NULL);

  return collect (self, FALSE, paths);
}

/**
 * ep_module_get_trainable_variables:
 * @self: a module
 * @paths: (out) (optional) (array zero-terminated=1) (transfer full):
 *   each variable's path from @self, in the same order
 *
 * Gives the trainable variables of @self and its descendants, in the
 * order of [method@Module.get_variables]: what a gradient tape
 * differentiates with respect to and an optimizer updates.
 *
 * Returns: (transfer container) (element-type EpVariable): the variables
 */
GPtrArray *
ep_module_get_trainable_variables (EpModule   *self,
                                   char     ***paths)
{
  g_return_val_if_fail (EP_IS_MODULE (self), NULL);

  return collect (self, TRUE, paths);
}

/**
 * ep_module_get_training:
 * @self: a module
 *
 * Says whether the module is training.
 *
 * Returns: the value of [property@Module:training]
 */
gboolean
ep_module_get_training (EpModule *self)
{
  EpModulePrivate *priv;

  g_return_val_if_fail (EP_IS_MODULE (self), FALSE);

  priv = ep_module_get_instance_private (self);
  return priv->training;
}

/**
 * ep_module_set_training:
 * @self: a module
 * @training: %TRUE to train, %FALSE to evaluate
 *
 * Sets [property@Module:training] on @self and every descendant.
 */
void
ep_module_set_training (EpModule *self,
                        gboolean  training)
{
  EpModulePrivate *priv;

  g_return_if_fail (EP_IS_MODULE (self));

  priv = ep_module_get_instance_private (self);
  training = !!training;
  for (guint i = 0; i < priv->children->len; i++)
    ep_module_set_training (g_ptr_array_index (priv->children, i), training);
  if (priv->training == training)
    return;
  priv->training = training;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_TRAINING]);
}

GParamSpec *
ep_module_size_property (const char *name,
                         gint64      default_value)
{
  return g_param_spec_int64 (name, NULL, NULL, G_MININT64, G_MAXINT64, default_value,
                             G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS);
}
