/* nn/linear.c
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <gio/gio.h>
#include <glib/gi18n-lib.h>
#include <inttypes.h>
#include <math.h>

#include "ep-enum-types.h"
#include "ep-error.h"
#include "ep-error-private.h"
#include "ep-linear.h"
#include "ep-module-private.h"
#include "ep-tensor-private.h"

/**
 * EpLinear:
 *
 * A fully connected layer, PyTorch's `torch.nn.Linear`: `y = x Wᵀ + b`
 * for an input of shape (…, in), with the weight `W` of shape (out, in)
 * and the bias `b` of shape (out). Its variables are `weight` and, with
 * [property@Linear:use-bias], `bias`.
 *
 * Both are drawn as PyTorch draws them: uniformly from
 * [−1/√in, 1/√in) (Kaiming-uniform with a = √5 for the weight), through
 * [func@uniform] on the current device, so that [func@set_seed] makes
 * them reproducible. A layer with no input features has zeros.
 *
 * ```c
 * g_autoptr(EpModule) layer = ep_linear_new (784, 128, TRUE, &error);
 * g_autoptr(EpTensor) y = ep_module_call (layer, x, &error);
 * ```
 */

struct _EpLinear
{
  EpModule    parent_instance;

  gint64      in_features;
  gint64      out_features;
  gboolean    use_bias;
  EpDType     dtype;
  EpVariable *weight;      /* held by the module too */
  EpVariable *bias;
};

G_DEFINE_FINAL_TYPE (EpLinear, ep_linear, EP_TYPE_MODULE)

enum
{
  PROP_0,
  PROP_IN_FEATURES,
  PROP_OUT_FEATURES,
  PROP_USE_BIAS,
  PROP_DTYPE,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

static gboolean
make_variables (EpLinear  *self,
                GError   **error)
{
  gint64 weight_shape[2] = { self->out_features, self->in_features };
  gdouble bound = self->in_features > 0 ? 1.0 / sqrt ((gdouble) self->in_features) : 0.0;

  if (self->in_features < 0 || self->out_features < 0)
    {
      g_set_error (error, EP_ERROR, EP_ERROR_SHAPE,
                   _("Linear: the numbers of features must not be negative (in %" PRId64 ", out %" PRId64 ")"),
                   self->in_features, self->out_features);
      return FALSE;
    }
  if (!ep_dtype_is_floating (self->dtype))
    {
      g_set_error (error, EP_ERROR, EP_ERROR_DTYPE,
                   _("Linear: the weights are float32 or float64, not %s"),
                   ep_dtype_get_name (self->dtype));
      return FALSE;
    }

  self->weight = ep_module_create_uniform_variable (EP_MODULE (self), "weight", weight_shape, 2,
                                                    bound, self->dtype, "Linear", error);
  if (self->weight == NULL)
    return FALSE;
  if (self->use_bias)
    {
      self->bias = ep_module_create_uniform_variable (EP_MODULE (self), "bias",
                                                    &self->out_features, 1, bound,
                                                    self->dtype, "Linear", error);
      if (self->bias == NULL)
        return FALSE;
    }
  return TRUE;
}

static void
ep_linear_constructed (GObject *object)
{
  EpLinear *self = EP_LINEAR (object);
  GError *error = NULL;

  G_OBJECT_CLASS (ep_linear_parent_class)->constructed (object);

  if (!make_variables (self, &error))
    ep_module_take_construct_error (EP_MODULE (self), error);
}

static EpTensor *
ep_linear_call (EpModule  *module,
                EpTensor  *input,
                GError   **error)
{
  EpLinear *self = EP_LINEAR (module);
  g_autoptr(EpTensor) weight = NULL;
  g_autoptr(EpTensor) transposed = NULL;
  g_autoptr(EpTensor) product = NULL;
  g_autoptr(EpTensor) bias = NULL;
  const EpLayout *layout = &input->layout;

  if (layout->ndim == 0 || layout->shape[layout->ndim - 1] != self->in_features)
    {
      g_autofree char *shape = ep_shape_to_string (layout->shape, layout->ndim);

      g_set_error (error, EP_ERROR, EP_ERROR_SHAPE,
                   _("Linear: takes inputs of shape (…, %" PRId64 "), not %s"),
                   self->in_features, shape);
      return NULL;
    }

  weight = ep_variable_read (self->weight);
  transposed = ep_tensor_transpose (weight, NULL, 0, error);
  product = transposed != NULL ? ep_tensor_matmul (input, transposed, error) : NULL;
  if (product == NULL || self->bias == NULL)
    return g_steal_pointer (&product);

  bias = ep_variable_read (self->bias);
  return ep_tensor_add (product, bias, error);
}

static void
ep_linear_get_property (GObject    *object,
                        guint       prop_id,
                        GValue     *value,
                        GParamSpec *pspec)
{
  EpLinear *self = EP_LINEAR (object);

  switch (prop_id)
    {
    case PROP_IN_FEATURES:
      g_value_set_int64 (value, self->in_features);
      break;
    case PROP_OUT_FEATURES:
      g_value_set_int64 (value, self->out_features);
      break;
    case PROP_USE_BIAS:
      g_value_set_boolean (value, self->use_bias);
      break;
    case PROP_DTYPE:
      g_value_set_enum (value, self->dtype);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
ep_linear_set_property (GObject      *object,
                        guint         prop_id,
                        const GValue *value,
                        GParamSpec   *pspec)
{
  EpLinear *self = EP_LINEAR (object);

  switch (prop_id)
    {
    case PROP_IN_FEATURES:
      self->in_features = g_value_get_int64 (value);
      break;
    case PROP_OUT_FEATURES:
      self->out_features = g_value_get_int64 (value);
      break;
    case PROP_USE_BIAS:
      self->use_bias = g_value_get_boolean (value);
      break;
    case PROP_DTYPE:
      self->dtype = g_value_get_enum (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
ep_linear_class_init (EpLinearClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  EpModuleClass *module_class = EP_MODULE_CLASS (klass);

  object_class->constructed = ep_linear_constructed;
  object_class->get_property = ep_linear_get_property;
  object_class->set_property = ep_linear_set_property;
  module_class->call = ep_linear_call;

  /* Sizes take any gint64 and are checked in constructed(): a bad one
   * is an error of the construction, not a GLib warning. */

  /**
   * EpLinear:in-features:
   *
   * The size of the last dimension of the input, not negative.
   */
  properties[PROP_IN_FEATURES] =
    ep_module_size_property ("in-features", 0);

  /**
   * EpLinear:out-features:
   *
   * The size of the last dimension of the output, not negative.
   */
  properties[PROP_OUT_FEATURES] =
    ep_module_size_property ("out-features", 0);

  /**
   * EpLinear:use-bias:
   *
   * Whether the layer adds a bias (the variable `bias`).
   */
  properties[PROP_USE_BIAS] =
    g_param_spec_boolean ("use-bias", NULL, NULL, TRUE,
                          G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS);

  /**
   * EpLinear:dtype:
   *
   * The type of the weights: %EP_DTYPE_FLOAT32 (the default) or
   * %EP_DTYPE_FLOAT64.
   */
  properties[PROP_DTYPE] =
    g_param_spec_enum ("dtype", NULL, NULL, EP_TYPE_DTYPE, EP_DTYPE_FLOAT32,
                       G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS);

  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
ep_linear_init (EpLinear *self)
{
  self->use_bias = TRUE;
  self->dtype = EP_DTYPE_FLOAT32;
}

/**
 * ep_linear_new:
 * @in_features: the size of the input's last dimension, not negative
 * @out_features: the size of the output's last dimension, not negative
 * @use_bias: whether to add a bias
 * @error: return location for an error
 *
 * Makes a fully connected layer of float32 weights drawn as PyTorch's
 * `torch.nn.Linear` draws them (other types: the property
 * [property@Linear:dtype] with g_initable_new()).
 *
 * Returns: (transfer full): the layer, or %NULL with
 *   %EP_ERROR_SHAPE set for a negative size, or
 *   %EP_ERROR_OUT_OF_MEMORY
 */
EpModule *
ep_linear_new (gint64    in_features,
               gint64    out_features,
               gboolean  use_bias,
               GError  **error)
{
  return g_initable_new (EP_TYPE_LINEAR, NULL, error,
                         "in-features", in_features,
                         "out-features", out_features,
                         "use-bias", use_bias,
                         NULL);
}

/**
 * ep_linear_get_in_features:
 * @self: a linear layer
 *
 * Gives the size of the input's last dimension.
 *
 * Returns: the number of input features
 */
gint64
ep_linear_get_in_features (EpLinear *self)
{
  g_return_val_if_fail (EP_IS_LINEAR (self), 0);

  return self->in_features;
}

/**
 * ep_linear_get_out_features:
 * @self: a linear layer
 *
 * Gives the size of the output's last dimension.
 *
 * Returns: the number of output features
 */
gint64
ep_linear_get_out_features (EpLinear *self)
{
  g_return_val_if_fail (EP_IS_LINEAR (self), 0);

  return self->out_features;
}

/**
 * ep_linear_get_weight:
 * @self: a linear layer
 *
 * Gives the weight, of shape (out, in).
 *
 * Returns: (transfer none) (nullable): the weight, or %NULL for a layer
 *   that could not be made from its properties
 */
EpVariable *
ep_linear_get_weight (EpLinear *self)
{
  g_return_val_if_fail (EP_IS_LINEAR (self), NULL);

  return self->weight;
}

/**
 * ep_linear_get_bias:
 * @self: a linear layer
 *
 * Gives the bias, of shape (out).
 *
 * Returns: (transfer none) (nullable): the bias, or %NULL for a layer
 *   without one
 */
EpVariable *
ep_linear_get_bias (EpLinear *self)
{
  g_return_val_if_fail (EP_IS_LINEAR (self), NULL);

  return self->bias;
}
