/* nn/flatten.c
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include "ep-error-private.h"
#include "ep-flatten.h"

/**
 * EpFlatten:
 *
 * Flattening as a layer, PyTorch's `torch.nn.Flatten`: every axis from
 * the second to the last merged into one ([method@Tensor.flatten] from
 * axis 1), so a batch of images (N, C, H, W) becomes (N, C×H×W), what a
 * [class@Linear] after a convolution takes. It has no variables.
 */

struct _EpFlatten
{
  EpModule parent_instance;
};

G_DEFINE_FINAL_TYPE (EpFlatten, ep_flatten, EP_TYPE_MODULE)

static EpTensor *
ep_flatten_call (EpModule  *module,
                 EpTensor  *input,
                 GError   **error)
{
  return ep_error_named_result (ep_tensor_flatten (input, 1, -1, error), error, "Flatten");
}

static void
ep_flatten_class_init (EpFlattenClass *klass)
{
  EP_MODULE_CLASS (klass)->call = ep_flatten_call;
}

static void
ep_flatten_init (EpFlatten *self)
{
}

/**
 * ep_flatten_new:
 *
 * Makes the module.
 *
 * Returns: (transfer full): the new module
 */
EpModule *
ep_flatten_new (void)
{
  return g_object_new (EP_TYPE_FLATTEN, NULL);
}
