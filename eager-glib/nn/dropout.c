/* nn/dropout.c
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <gio/gio.h>
#include <glib/gi18n-lib.h>
#include <math.h>

#include "ep-autodiff-private.h"
#include "ep-dropout.h"
#include "ep-error.h"
#include "ep-error-private.h"
#include "ep-module-private.h"
#include "ep-random.h"

/**
 * EpDropout:
 *
 * Dropout as a layer, PyTorch's `torch.nn.Dropout`: in training
 * ([property@Module:training]) each element is zeroed with probability
 * [property@Dropout:rate] and the others scaled by 1 / (1 − rate)
 * ([method@Tensor.dropout], a new mask at each call, reproducible with
 * [func@set_seed]); in evaluation the input passes unchanged. It has no
 * variables.
 */

struct _EpDropout
{
  EpModule parent_instance;

  gdouble  rate;
};

G_DEFINE_FINAL_TYPE (EpDropout, ep_dropout, EP_TYPE_MODULE)

enum
{
  PROP_0,
  PROP_RATE,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

static void
ep_dropout_constructed (GObject *object)
{
  EpDropout *self = EP_DROPOUT (object);

  G_OBJECT_CLASS (ep_dropout_parent_class)->constructed (object);

  if (!(self->rate >= 0.0 && self->rate <= 1.0))
    ep_module_take_construct_error (EP_MODULE (self),
                                    g_error_new (EP_ERROR, EP_ERROR_INVALID_ARGUMENT,
                                                 _("Dropout: the rate must be in [0, 1], not %g"),
                                                 self->rate));
}

static EpTensor *
ep_dropout_call (EpModule  *module,
                 EpTensor  *input,
                 GError   **error)
{
  EpDropout *self = EP_DROPOUT (module);

  if (!ep_module_get_training (module))
    return ep_identity (input, error);
  return ep_error_named_result (ep_tensor_dropout (input, self->rate, error), error, "Dropout");
}

static void
ep_dropout_get_property (GObject    *object,
                         guint       prop_id,
                         GValue     *value,
                         GParamSpec *pspec)
{
  switch (prop_id)
    {
    case PROP_RATE:
      g_value_set_double (value, EP_DROPOUT (object)->rate);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
ep_dropout_set_property (GObject      *object,
                         guint         prop_id,
                         const GValue *value,
                         GParamSpec   *pspec)
{
  switch (prop_id)
    {
    case PROP_RATE:
      EP_DROPOUT (object)->rate = g_value_get_double (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
ep_dropout_class_init (EpDropoutClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->constructed = ep_dropout_constructed;
  object_class->get_property = ep_dropout_get_property;
  object_class->set_property = ep_dropout_set_property;
  EP_MODULE_CLASS (klass)->call = ep_dropout_call;

  /**
   * EpDropout:rate:
   *
   * The probability of zeroing an element, in [0, 1] (checked at
   * construction).
   */
  properties[PROP_RATE] =
    g_param_spec_double ("rate", NULL, NULL, -INFINITY, INFINITY, 0.5,
                         G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS);

  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
ep_dropout_init (EpDropout *self)
{
  self->rate = 0.5;
}

/**
 * ep_dropout_new:
 * @rate: the probability of zeroing an element, in [0, 1]
 * @error: return location for an error
 *
 * Makes the layer.
 *
 * Returns: (transfer full): the layer, or %NULL with
 *   %EP_ERROR_INVALID_ARGUMENT set for a rate outside [0, 1]
 */
EpModule *
ep_dropout_new (gdouble   rate,
                GError  **error)
{
  return g_initable_new (EP_TYPE_DROPOUT, NULL, error, "rate", rate, NULL);
}

/**
 * ep_dropout_get_rate:
 * @self: a dropout layer
 *
 * Gives the probability of zeroing an element.
 *
 * Returns: the rate
 */
gdouble
ep_dropout_get_rate (EpDropout *self)
{
  g_return_val_if_fail (EP_IS_DROPOUT (self), 0.0);

  return self->rate;
}
