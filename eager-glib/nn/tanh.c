/* nn/tanh.c
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include "ep-tanh.h"

/**
 * EpTanh:
 *
 * The hyperbolic tangent as a module, PyTorch's `torch.nn.Tanh`,
 * elementwise ([method@Tensor.tanh]). It has no variables.
 */

struct _EpTanh
{
  EpModule parent_instance;
};

G_DEFINE_FINAL_TYPE (EpTanh, ep_tanh, EP_TYPE_MODULE)

static EpTensor *
ep_tanh_call (EpModule  *module,
            EpTensor  *input,
            GError   **error)
{
  return ep_tensor_tanh (input, error);
}

static void
ep_tanh_class_init (EpTanhClass *klass)
{
  EP_MODULE_CLASS (klass)->call = ep_tanh_call;
}

static void
ep_tanh_init (EpTanh *self)
{
}

/**
 * ep_tanh_new:
 *
 * Makes the module.
 *
 * Returns: (transfer full): the new module
 */
EpModule *
ep_tanh_new (void)
{
  return g_object_new (EP_TYPE_TANH, NULL);
}
