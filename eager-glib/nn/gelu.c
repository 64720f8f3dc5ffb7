/* nn/gelu.c
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include "ep-enum-types.h"
#include "ep-gelu.h"

/**
 * EpGelu:
 *
 * The Gaussian error linear unit as a module, PyTorch's `torch.nn.GELU`:
 * [method@Tensor.gelu] elementwise, exact or with the tanh approximation
 * ([property@Gelu:approximate]). It has no variables.
 */

struct _EpGelu
{
  EpModule             parent_instance;

  EpGeluApproximation  approximate;
};

G_DEFINE_FINAL_TYPE (EpGelu, ep_gelu, EP_TYPE_MODULE)

enum
{
  PROP_0,
  PROP_APPROXIMATE,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

static EpTensor *
ep_gelu_call (EpModule  *module,
              EpTensor  *input,
              GError   **error)
{
  return ep_tensor_gelu (input, EP_GELU (module)->approximate, error);
}

static void
ep_gelu_get_property (GObject    *object,
                      guint       prop_id,
                      GValue     *value,
                      GParamSpec *pspec)
{
  switch (prop_id)
    {
    case PROP_APPROXIMATE:
      g_value_set_enum (value, EP_GELU (object)->approximate);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
ep_gelu_set_property (GObject      *object,
                      guint         prop_id,
                      const GValue *value,
                      GParamSpec   *pspec)
{
  switch (prop_id)
    {
    case PROP_APPROXIMATE:
      EP_GELU (object)->approximate = g_value_get_enum (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
ep_gelu_class_init (EpGeluClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->get_property = ep_gelu_get_property;
  object_class->set_property = ep_gelu_set_property;
  EP_MODULE_CLASS (klass)->call = ep_gelu_call;

  /**
   * EpGelu:approximate:
   *
   * The exact function (the default) or its tanh approximation.
   */
  properties[PROP_APPROXIMATE] =
    g_param_spec_enum ("approximate", NULL, NULL, EP_TYPE_GELU_APPROXIMATION,
                       EP_GELU_APPROXIMATION_NONE,
                       G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS);

  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
ep_gelu_init (EpGelu *self)
{
}

/**
 * ep_gelu_new:
 * @approximate: the exact function or its tanh approximation
 *
 * Makes the module.
 *
 * Returns: (transfer full): the new module
 */
EpModule *
ep_gelu_new (EpGeluApproximation approximate)
{
  return g_object_new (EP_TYPE_GELU, "approximate", approximate, NULL);
}
