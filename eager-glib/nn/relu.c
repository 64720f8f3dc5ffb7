/* nn/relu.c
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include "ep-relu.h"

/**
 * EpRelu:
 *
 * The rectifier as a module, PyTorch's `torch.nn.ReLU`: `max (x, 0)`
 * elementwise ([method@Tensor.relu]). It has no variables.
 */

struct _EpRelu
{
  EpModule parent_instance;
};

G_DEFINE_FINAL_TYPE (EpRelu, ep_relu, EP_TYPE_MODULE)

static EpTensor *
ep_relu_call (EpModule  *module,
            EpTensor  *input,
            GError   **error)
{
  return ep_tensor_relu (input, error);
}

static void
ep_relu_class_init (EpReluClass *klass)
{
  EP_MODULE_CLASS (klass)->call = ep_relu_call;
}

static void
ep_relu_init (EpRelu *self)
{
}

/**
 * ep_relu_new:
 *
 * Makes the module.
 *
 * Returns: (transfer full): the new module
 */
EpModule *
ep_relu_new (void)
{
  return g_object_new (EP_TYPE_RELU, NULL);
}
