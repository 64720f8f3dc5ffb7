/* nn/layer-norm.c
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <gio/gio.h>
#include <glib/gi18n-lib.h>
#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "ep-creation.h"
#include "ep-enum-types.h"
#include "ep-error.h"
#include "ep-error-private.h"
#include "ep-layer-norm.h"
#include "ep-module-private.h"
#include "ep-tensor-private.h"

/**
 * EpLayerNorm:
 *
 * Layer normalisation as a layer, PyTorch's `torch.nn.LayerNorm`: each
 * input is normalised over its trailing axes, those of
 * [property@LayerNorm:normalized-shape], with the biased variance and
 * [property@LayerNorm:epsilon] under the square root
 * ([method@Tensor.layer_norm]), then scaled by the variable `weight`
 * (ones at first) and shifted by `bias` (zeros), both of the normalised
 * shape, with [property@LayerNorm:elementwise-affine] (the default).
 */

struct _EpLayerNorm
{
  EpModule    parent_instance;

  gint64      shape[EP_MAX_DIMS];
  guint       ndim;
  GVariant   *normalized_shape;   /* as given, "ax" */
  gdouble     epsilon;
  gboolean    elementwise_affine;
  EpDType     dtype;
  EpVariable *weight;             /* held by the module too */
  EpVariable *bias;
};

G_DEFINE_FINAL_TYPE (EpLayerNorm, ep_layer_norm, EP_TYPE_MODULE)

enum
{
  PROP_0,
  PROP_NORMALIZED_SHAPE,
  PROP_EPSILON,
  PROP_ELEMENTWISE_AFFINE,
  PROP_DTYPE,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

static gboolean
make_variables (EpLayerNorm  *self,
                GError      **error)
{
  gsize n = 0;
  const gint64 *sizes = self->normalized_shape != NULL
    ? g_variant_get_fixed_array (self->normalized_shape, &n, sizeof (gint64)) : NULL;

  if (n == 0 || n > EP_MAX_DIMS)
    {
      g_set_error (error, EP_ERROR, EP_ERROR_SHAPE,
                   _("LayerNorm: the normalised shape has 1 to %d dimensions, not %" PRIu64),
                   EP_MAX_DIMS, (guint64) n);
      return FALSE;
    }
  for (gsize i = 0; i < n; i++)
    if (sizes[i] <= 0)
      {
        g_set_error (error, EP_ERROR, EP_ERROR_SHAPE,
                     _("LayerNorm: the sizes of the normalised shape must be positive, not %" PRId64),
                     sizes[i]);
        return FALSE;
      }
  memcpy (self->shape, sizes, n * sizeof (gint64));
  self->ndim = n;
  if (!(self->epsilon >= 0.0 && isfinite (self->epsilon)))
    {
      g_set_error (error, EP_ERROR, EP_ERROR_INVALID_ARGUMENT,
                   _("LayerNorm: epsilon must be finite and not negative, not %g"), self->epsilon);
      return FALSE;
    }
  if (!ep_dtype_is_floating (self->dtype))
    {
      g_set_error (error, EP_ERROR, EP_ERROR_DTYPE,
                   _("LayerNorm: the weights are float32 or float64, not %s"),
                   ep_dtype_get_name (self->dtype));
      return FALSE;
    }
  if (!self->elementwise_affine)
    return TRUE;

  self->weight = ep_module_create_filled_variable (EP_MODULE (self), "weight", self->shape, self->ndim,
                                                   1.0, self->dtype, TRUE, "LayerNorm", error);
  if (self->weight == NULL)
    return FALSE;
  self->bias = ep_module_create_filled_variable (EP_MODULE (self), "bias", self->shape, self->ndim,
                                                 0.0, self->dtype, TRUE, "LayerNorm", error);
  return self->bias != NULL;
}

static void
ep_layer_norm_constructed (GObject *object)
{
  EpLayerNorm *self = EP_LAYER_NORM (object);
  GError *error = NULL;

  G_OBJECT_CLASS (ep_layer_norm_parent_class)->constructed (object);

  if (!make_variables (self, &error))
    ep_module_take_construct_error (EP_MODULE (self), error);
}

static EpTensor *
ep_layer_norm_call (EpModule  *module,
                    EpTensor  *input,
                    GError   **error)
{
  EpLayerNorm *self = EP_LAYER_NORM (module);
  const EpLayout *layout = &input->layout;
  g_autoptr(EpTensor) weight = NULL;
  g_autoptr(EpTensor) bias = NULL;
  gboolean fits = layout->ndim >= self->ndim;

  for (guint i = 0; fits && i < self->ndim; i++)
    fits = layout->shape[layout->ndim - self->ndim + i] == self->shape[i];
  if (!fits)
    {
      g_autofree char *expected = ep_shape_to_string (self->shape, self->ndim);
      g_autofree char *shape = ep_shape_to_string (layout->shape, layout->ndim);

      g_set_error (error, EP_ERROR, EP_ERROR_SHAPE,
                   _("LayerNorm: takes inputs whose last dimensions are %s, not %s"),
                   expected, shape);
      return NULL;
    }

  if (self->elementwise_affine)
    {
      weight = ep_variable_read (self->weight);
      bias = ep_variable_read (self->bias);
    }
  else
    {
      /* the op always takes them (docs/autodiff.md, Normalisation) */
      EpDType dtype = ep_dtype_is_floating (layout->dtype) ? layout->dtype : self->dtype;

      weight = ep_ones (self->shape, self->ndim, dtype, error);
      bias = weight != NULL ? ep_zeros (self->shape, self->ndim, dtype, error) : NULL;
      if (bias == NULL)
        return ep_error_named_result (NULL, error, "LayerNorm");
    }
  return ep_error_named_result (ep_tensor_layer_norm (input, weight, bias,
                                                      (gint) (layout->ndim - self->ndim),
                                                      self->epsilon, error),
                                error, "LayerNorm");
}

static void
ep_layer_norm_finalize (GObject *object)
{
  EpLayerNorm *self = EP_LAYER_NORM (object);

  g_clear_pointer (&self->normalized_shape, g_variant_unref);

  G_OBJECT_CLASS (ep_layer_norm_parent_class)->finalize (object);
}

static void
ep_layer_norm_get_property (GObject    *object,
                            guint       prop_id,
                            GValue     *value,
                            GParamSpec *pspec)
{
  EpLayerNorm *self = EP_LAYER_NORM (object);

  switch (prop_id)
    {
    case PROP_NORMALIZED_SHAPE:
      g_value_set_variant (value, self->normalized_shape);
      break;
    case PROP_EPSILON:
      g_value_set_double (value, self->epsilon);
      break;
    case PROP_ELEMENTWISE_AFFINE:
      g_value_set_boolean (value, self->elementwise_affine);
      break;
    case PROP_DTYPE:
      g_value_set_enum (value, self->dtype);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
ep_layer_norm_set_property (GObject      *object,
                            guint         prop_id,
                            const GValue *value,
                            GParamSpec   *pspec)
{
  EpLayerNorm *self = EP_LAYER_NORM (object);

  switch (prop_id)
    {
    case PROP_NORMALIZED_SHAPE:
      g_clear_pointer (&self->normalized_shape, g_variant_unref);
      self->normalized_shape = g_value_dup_variant (value);
      break;
    case PROP_EPSILON:
      self->epsilon = g_value_get_double (value);
      break;
    case PROP_ELEMENTWISE_AFFINE:
      self->elementwise_affine = g_value_get_boolean (value);
      break;
    case PROP_DTYPE:
      self->dtype = g_value_get_enum (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
ep_layer_norm_class_init (EpLayerNormClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->constructed = ep_layer_norm_constructed;
  object_class->finalize = ep_layer_norm_finalize;
  object_class->get_property = ep_layer_norm_get_property;
  object_class->set_property = ep_layer_norm_set_property;
  EP_MODULE_CLASS (klass)->call = ep_layer_norm_call;

  /**
   * EpLayerNorm:normalized-shape:
   *
   * The sizes of the trailing axes normalised over, an array of 64-bit
   * integers (`ax`): 1 to %EP_MAX_DIMS positive sizes.
   */
  properties[PROP_NORMALIZED_SHAPE] =
    g_param_spec_variant ("normalized-shape", NULL, NULL, G_VARIANT_TYPE ("ax"), NULL,
                          G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS);

  /**
   * EpLayerNorm:epsilon:
   *
   * What is added to the variance under the square root, finite and not
   * negative.
   */
  properties[PROP_EPSILON] =
    g_param_spec_double ("epsilon", NULL, NULL, -INFINITY, INFINITY, 1e-5,
                         G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS);

  /**
   * EpLayerNorm:elementwise-affine:
   *
   * Whether the layer scales and shifts its output (the variables
   * `weight` and `bias`).
   */
  properties[PROP_ELEMENTWISE_AFFINE] =
    g_param_spec_boolean ("elementwise-affine", NULL, NULL, TRUE,
                          G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS);

  /**
   * EpLayerNorm:dtype:
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
ep_layer_norm_init (EpLayerNorm *self)
{
  self->epsilon = 1e-5;
  self->elementwise_affine = TRUE;
  self->dtype = EP_DTYPE_FLOAT32;
}

/**
 * ep_layer_norm_new:
 * @normalized_shape: (array length=n_normalized_shape): the sizes of the
 *   trailing axes to normalise over
 * @n_normalized_shape: their number, 1 to %EP_MAX_DIMS
 * @error: return location for an error
 *
 * Makes a layer normalisation with epsilon 1e-5 and float32 weights
 * (other settings: the properties with g_initable_new()).
 *
 * Returns: (transfer full): the layer, or %NULL with %EP_ERROR_SHAPE set
 *   for a shape that is empty or has a size that is not positive, or
 *   %EP_ERROR_OUT_OF_MEMORY
 */
EpModule *
ep_layer_norm_new (const gint64  *normalized_shape,
                   guint          n_normalized_shape,
                   GError       **error)
{
  GVariant *shape;

  g_return_val_if_fail (normalized_shape != NULL || n_normalized_shape == 0, NULL);

  shape = g_variant_new_fixed_array (G_VARIANT_TYPE_INT64, normalized_shape,
                                     n_normalized_shape, sizeof (gint64));
  return g_initable_new (EP_TYPE_LAYER_NORM, NULL, error, "normalized-shape", shape, NULL);
}

/**
 * ep_layer_norm_get_normalized_shape:
 * @self: a layer normalisation
 * @n_normalized_shape: (out): return location for the number of sizes
 *
 * Gives the sizes of the trailing axes normalised over.
 *
 * Returns: (array length=n_normalized_shape) (transfer none): the sizes
 *   (none for a layer that could not be made from its properties)
 */
const gint64 *
ep_layer_norm_get_normalized_shape (EpLayerNorm *self,
                                    guint       *n_normalized_shape)
{
  g_return_val_if_fail (EP_IS_LAYER_NORM (self), NULL);
  g_return_val_if_fail (n_normalized_shape != NULL, NULL);

  *n_normalized_shape = self->ndim;
  return self->shape;
}

/**
 * ep_layer_norm_get_weight:
 * @self: a layer normalisation
 *
 * Gives the scale, of the normalised shape.
 *
 * Returns: (transfer none) (nullable): the weight, or %NULL for a layer
 *   without one
 */
EpVariable *
ep_layer_norm_get_weight (EpLayerNorm *self)
{
  g_return_val_if_fail (EP_IS_LAYER_NORM (self), NULL);

  return self->weight;
}

/**
 * ep_layer_norm_get_bias:
 * @self: a layer normalisation
 *
 * Gives the shift, of the normalised shape.
 *
 * Returns: (transfer none) (nullable): the bias, or %NULL for a layer
 *   without one
 */
EpVariable *
ep_layer_norm_get_bias (EpLayerNorm *self)
{
  g_return_val_if_fail (EP_IS_LAYER_NORM (self), NULL);

  return self->bias;
}
