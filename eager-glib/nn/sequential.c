/* nn/sequential.c
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include "ep-autodiff-private.h"
#include "ep-error-private.h"
#include "ep-module-private.h"
#include "ep-sequential.h"

/**
 * EpSequential:
 *
 * Modules run one after the other, PyTorch's `torch.nn.Sequential`: the
 * call gives the input to the first child, its output to the second, and
 * so on, and returns the last one's output (with no child, the input).
 *
 * [method@Sequential.append] registers each module under its position,
 * `0`, `1`, …, so that the variables' paths are `0.weight`, `2.bias`, …
 * as in PyTorch. The children are run in registration order, also those
 * registered with [method@Module.add_module].
 *
 * ```c
 * g_autoptr(EpModule) mlp = ep_sequential_new ();
 * ep_sequential_append (EP_SEQUENTIAL (mlp), hidden, &error);
 * ep_sequential_append (EP_SEQUENTIAL (mlp), relu, &error);
 * ```
 */

struct _EpSequential
{
  EpModule parent_instance;
};

G_DEFINE_FINAL_TYPE (EpSequential, ep_sequential, EP_TYPE_MODULE)

static EpTensor *
ep_sequential_call (EpModule  *module,
                    EpTensor  *input,
                    GError   **error)
{
  GPtrArray *children = ep_module_peek_children (module);
  g_autoptr(EpTensor) x = NULL;

  if (children->len == 0)
    return ep_identity (input, error);

  x = g_object_ref (input);
  for (guint i = 0; i < children->len; i++)
    {
      EpTensor *next = ep_module_call (g_ptr_array_index (children, i), x, error);

      if (next == NULL)
        return NULL;
      g_object_unref (x);
      x = next;
    }
  return g_steal_pointer (&x);
}

static void
ep_sequential_class_init (EpSequentialClass *klass)
{
  EP_MODULE_CLASS (klass)->call = ep_sequential_call;
}

static void
ep_sequential_init (EpSequential *self)
{
}

/**
 * ep_sequential_new:
 *
 * Makes an empty sequence of modules.
 *
 * Returns: (transfer full): the new module
 */
EpModule *
ep_sequential_new (void)
{
  return g_object_new (EP_TYPE_SEQUENTIAL, NULL);
}

/**
 * ep_sequential_append:
 * @self: a sequence of modules
 * @module: the module to run after the others
 * @error: return location for an error
 *
 * Adds @module at the end, named by its position (`0` for the first).
 *
 * Returns: %TRUE, or %FALSE with %EP_ERROR_INVALID_ARGUMENT set if
 *   @module contains @self, or if the name is taken (by a child added
 *   with [method@Module.add_module])
 */
gboolean
ep_sequential_append (EpSequential  *self,
                      EpModule      *module,
                      GError       **error)
{
  g_autofree char *name = NULL;

  g_return_val_if_fail (EP_IS_SEQUENTIAL (self), FALSE);
  g_return_val_if_fail (EP_IS_MODULE (module), FALSE);

  name = g_strdup_printf ("%u", ep_sequential_get_length (self));
  if (!ep_module_add_module (EP_MODULE (self), name, module, error))
    {
      ep_error_rename_call (error, "add_module", "append");
      return FALSE;
    }
  return TRUE;
}

/**
 * ep_sequential_get_length:
 * @self: a sequence of modules
 *
 * Gives the number of modules in the sequence.
 *
 * Returns: the number of children
 */
guint
ep_sequential_get_length (EpSequential *self)
{
  g_return_val_if_fail (EP_IS_SEQUENTIAL (self), 0);

  return ep_module_peek_children (EP_MODULE (self))->len;
}

/**
 * ep_sequential_get:
 * @self: a sequence of modules
 * @index: a position
 *
 * Gives the module at @index.
 *
 * Returns: (transfer none) (nullable): the module, or %NULL if @index is
 *   not less than the length
 */
EpModule *
ep_sequential_get (EpSequential *self,
                   guint         index)
{
  GPtrArray *children;

  g_return_val_if_fail (EP_IS_SEQUENTIAL (self), NULL);

  children = ep_module_peek_children (EP_MODULE (self));
  return index < children->len ? g_ptr_array_index (children, index) : NULL;
}
