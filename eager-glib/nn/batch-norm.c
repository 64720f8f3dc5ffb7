/* nn/batch-norm.c
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <gio/gio.h>
#include <glib/gi18n-lib.h>
#include <inttypes.h>
#include <math.h>

#include "ep-batch-norm.h"
#include "ep-creation.h"
#include "ep-enum-types.h"
#include "ep-error.h"
#include "ep-error-private.h"
#include "ep-module-private.h"
#include "ep-tensor-private.h"

/**
 * EpBatchNorm:
 *
 * Batch normalisation as a layer, PyTorch's `torch.nn.BatchNorm1d` (on
 * a batch of vectors (N, C)) and `torch.nn.BatchNorm2d` (on images, (N,
 * C, H, W) or (N, H, W, C) as [property@BatchNorm:data-format] says):
 * each channel is normalised with a mean and a biased variance
 * ([method@Tensor.batch_norm]), then scaled by the variable `weight`
 * (ones at first) and shifted by `bias` (zeros) with
 * [property@BatchNorm:affine].
 *
 * With [property@BatchNorm:track-running-stats] (the default) the layer
 * keeps the variables `running_mean` (zeros at first), `running_var`
 * (ones) and `num_batches_tracked` (an int64 scalar), not trainable. In
 * training ([property@Module:training]) it normalises with the batch's
 * statistics and updates them as PyTorch does:
 * `running = (1 − momentum) running + momentum batch`, with the
 * *unbiased* variance of the batch for `running_var`, and counts the
 * batch; in evaluation it normalises with them. The updates are
 * assignments of the variables, so a staged function replays them, and
 * they are made from the statistics without their history: no gradient
 * tape records them. Without running statistics the layer always uses
 * the batch's. PyTorch's cumulative average (`momentum=None`) is not
 * offered.
 */

struct _EpBatchNorm
{
  EpModule      parent_instance;

  gint64        num_features;
  gdouble       epsilon;
  gdouble       momentum;
  gboolean      affine;
  gboolean      track_running_stats;
  EpDataFormat  data_format;
  EpDType       dtype;
  EpVariable   *weight;                /* held by the module too */
  EpVariable   *bias;
  EpVariable   *running_mean;
  EpVariable   *running_var;
  EpVariable   *num_batches_tracked;
};

G_DEFINE_FINAL_TYPE (EpBatchNorm, ep_batch_norm, EP_TYPE_MODULE)

enum
{
  PROP_0,
  PROP_NUM_FEATURES,
  PROP_EPSILON,
  PROP_MOMENTUM,
  PROP_AFFINE,
  PROP_TRACK_RUNNING_STATS,
  PROP_DATA_FORMAT,
  PROP_DTYPE,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

static gboolean
check_properties (EpBatchNorm  *self,
                  GError      **error)
{
  if (self->num_features <= 0)
    {
      g_set_error (error, EP_ERROR, EP_ERROR_SHAPE,
                   _("BatchNorm: the number of features must be positive, not %" PRId64),
                   self->num_features);
      return FALSE;
    }
  if (!(self->epsilon >= 0.0 && isfinite (self->epsilon)))
    {
      g_set_error (error, EP_ERROR, EP_ERROR_INVALID_ARGUMENT,
                   _("BatchNorm: epsilon must be finite and not negative, not %g"), self->epsilon);
      return FALSE;
    }
  if (!(self->momentum >= 0.0 && self->momentum <= 1.0))
    {
      g_set_error (error, EP_ERROR, EP_ERROR_INVALID_ARGUMENT,
                   _("BatchNorm: the momentum must be in [0, 1], not %g"), self->momentum);
      return FALSE;
    }
  if (!ep_dtype_is_floating (self->dtype))
    {
      g_set_error (error, EP_ERROR, EP_ERROR_DTYPE,
                   _("BatchNorm: the weights are float32 or float64, not %s"),
                   ep_dtype_get_name (self->dtype));
      return FALSE;
    }
  return TRUE;
}

static gboolean
make_variables (EpBatchNorm  *self,
                GError      **error)
{
  EpModule *module = EP_MODULE (self);
  const gint64 *c = &self->num_features;

  if (!check_properties (self, error))
    return FALSE;

  if (self->affine
      && ((self->weight = ep_module_create_filled_variable (module, "weight", c, 1, 1.0, self->dtype,
                                                            TRUE, "BatchNorm", error)) == NULL
          || (self->bias = ep_module_create_filled_variable (module, "bias", c, 1, 0.0, self->dtype,
                                                             TRUE, "BatchNorm", error)) == NULL))
    return FALSE;
  if (!self->track_running_stats)
    return TRUE;

  self->running_mean = ep_module_create_filled_variable (module, "running_mean", c, 1, 0.0,
                                                         self->dtype, FALSE, "BatchNorm", error);
  if (self->running_mean == NULL)
    return FALSE;
  self->running_var = ep_module_create_filled_variable (module, "running_var", c, 1, 1.0,
                                                        self->dtype, FALSE, "BatchNorm", error);
  if (self->running_var == NULL)
    return FALSE;
  /* a scalar (the shape is not read) */
  self->num_batches_tracked = ep_module_create_filled_variable (module, "num_batches_tracked", c, 0,
                                                                0.0, EP_DTYPE_INT64, FALSE,
                                                                "BatchNorm", error);
  return self->num_batches_tracked != NULL;
}

static void
ep_batch_norm_constructed (GObject *object)
{
  EpBatchNorm *self = EP_BATCH_NORM (object);
  GError *error = NULL;

  G_OBJECT_CLASS (ep_batch_norm_parent_class)->constructed (object);

  if (!make_variables (self, &error))
    ep_module_take_construct_error (EP_MODULE (self), error);
}

/* @variable ← (1 − momentum) @variable + @scale @batch, from @batch
 * without its history (no tape records the update) */
static gboolean
update_running (EpVariable  *variable,
                EpTensor    *batch,
                gdouble      momentum,
                gdouble      scale,
                GError     **error)
{
  g_autoptr(EpTensor) running = ep_variable_read (variable);
  g_autoptr(EpTensor) constant = ep_tensor_stop_gradient (batch, error);
  g_autoptr(EpTensor) kept = NULL;
  g_autoptr(EpTensor) added = NULL;
  g_autoptr(EpTensor) sum = NULL;
  g_autoptr(EpTensor) cast = NULL;

  if (constant == NULL
      || (kept = ep_tensor_mul_scalar (running, 1.0 - momentum, error)) == NULL
      || (added = ep_tensor_mul_scalar (constant, scale, error)) == NULL
      || (sum = ep_tensor_add (kept, added, error)) == NULL
      || (cast = ep_tensor_astype (sum, ep_variable_get_dtype (variable), error)) == NULL)
    return FALSE;
  return ep_variable_assign (variable, cast, error);
}

static gboolean
update_statistics (EpBatchNorm  *self,
                   EpTensor     *mean,
                   EpTensor     *var,
                   gint64        m,
                   GError      **error)
{
  g_autoptr(EpTensor) one = ep_tensor_new_scalar (1.0, EP_DTYPE_INT64, error);

  /* the unbiased variance: m elements per channel, m > 1 */
  return one != NULL
    && update_running (self->running_mean, mean, self->momentum, self->momentum, error)
    && update_running (self->running_var, var, self->momentum,
                       self->momentum * (gdouble) m / (gdouble) (m - 1), error)
    && ep_variable_assign_add (self->num_batches_tracked, one, error);
}

static EpTensor *
ep_batch_norm_call (EpModule  *module,
                    EpTensor  *input,
                    GError   **error)
{
  EpBatchNorm *self = EP_BATCH_NORM (module);
  const EpLayout *layout = &input->layout;
  gboolean training = ep_module_get_training (module);
  gboolean batch_statistics = training || !self->track_running_stats;
  guint channel_axis = layout->ndim == 4 && self->data_format == EP_DATA_FORMAT_NHWC ? 3 : 1;
  EpDType dtype = ep_dtype_is_floating (layout->dtype) ? layout->dtype : self->dtype;
  const gint64 *c = &self->num_features;
  gint64 m;
  g_autoptr(EpTensor) weight = NULL;
  g_autoptr(EpTensor) bias = NULL;
  g_autoptr(EpTensor) running_mean = NULL;
  g_autoptr(EpTensor) running_var = NULL;
  g_autoptr(EpTensor) output = NULL;
  g_autoptr(EpTensor) mean = NULL;
  g_autoptr(EpTensor) var = NULL;

  if ((layout->ndim != 2 && layout->ndim != 4) || layout->shape[channel_axis] != self->num_features)
    {
      g_autofree char *shape = ep_shape_to_string (layout->shape, layout->ndim);

      g_set_error (error, EP_ERROR, EP_ERROR_SHAPE,
                   _("BatchNorm: takes inputs of %" PRId64 " channels, (N, C) or images in its data format, not %s"),
                   self->num_features, shape);
      return NULL;
    }
  m = layout->shape[channel_axis] > 0 ? ep_layout_get_size (layout) / layout->shape[channel_axis] : 0;
  if (batch_statistics && m <= 1)
    {
      g_autofree char *shape = ep_shape_to_string (layout->shape, layout->ndim);

      g_set_error (error, EP_ERROR, EP_ERROR_SHAPE,
                   _("BatchNorm: training needs more than one value per channel, not %s"), shape);
      return NULL;
    }

  /* the op takes every parameter (docs/autodiff.md, Normalisation) */
  if (self->affine)
    {
      weight = ep_variable_read (self->weight);
      bias = ep_variable_read (self->bias);
    }
  else if ((weight = ep_ones (c, 1, dtype, error)) == NULL
           || (bias = ep_zeros (c, 1, dtype, error)) == NULL)
    return ep_error_named_result (NULL, error, "BatchNorm");
  if (self->track_running_stats)
    {
      running_mean = ep_variable_read (self->running_mean);
      running_var = ep_variable_read (self->running_var);
    }
  else if ((running_mean = ep_zeros (c, 1, dtype, error)) == NULL
           || (running_var = ep_ones (c, 1, dtype, error)) == NULL)
    return ep_error_named_result (NULL, error, "BatchNorm");

  if (!ep_tensor_batch_norm (input, running_mean, running_var, weight, bias, batch_statistics,
                             self->epsilon, self->data_format, &output, &mean, &var, error)
      || (training && self->track_running_stats
          && !update_statistics (self, mean, var, m, error)))
    return ep_error_named_result (NULL, error, "BatchNorm");

  return g_steal_pointer (&output);
}

static void
ep_batch_norm_get_property (GObject    *object,
                            guint       prop_id,
                            GValue     *value,
                            GParamSpec *pspec)
{
  EpBatchNorm *self = EP_BATCH_NORM (object);

  switch (prop_id)
    {
    case PROP_NUM_FEATURES:
      g_value_set_int64 (value, self->num_features);
      break;
    case PROP_EPSILON:
      g_value_set_double (value, self->epsilon);
      break;
    case PROP_MOMENTUM:
      g_value_set_double (value, self->momentum);
      break;
    case PROP_AFFINE:
      g_value_set_boolean (value, self->affine);
      break;
    case PROP_TRACK_RUNNING_STATS:
      g_value_set_boolean (value, self->track_running_stats);
      break;
    case PROP_DATA_FORMAT:
      g_value_set_enum (value, self->data_format);
      break;
    case PROP_DTYPE:
      g_value_set_enum (value, self->dtype);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
ep_batch_norm_set_property (GObject      *object,
                            guint         prop_id,
                            const GValue *value,
                            GParamSpec   *pspec)
{
  EpBatchNorm *self = EP_BATCH_NORM (object);

  switch (prop_id)
    {
    case PROP_NUM_FEATURES:
      self->num_features = g_value_get_int64 (value);
      break;
    case PROP_EPSILON:
      self->epsilon = g_value_get_double (value);
      break;
    case PROP_MOMENTUM:
      self->momentum = g_value_get_double (value);
      break;
    case PROP_AFFINE:
      self->affine = g_value_get_boolean (value);
      break;
    case PROP_TRACK_RUNNING_STATS:
      self->track_running_stats = g_value_get_boolean (value);
      break;
    case PROP_DATA_FORMAT:
      self->data_format = g_value_get_enum (value);
      break;
    case PROP_DTYPE:
      self->dtype = g_value_get_enum (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
ep_batch_norm_class_init (EpBatchNormClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->constructed = ep_batch_norm_constructed;
  object_class->get_property = ep_batch_norm_get_property;
  object_class->set_property = ep_batch_norm_set_property;
  EP_MODULE_CLASS (klass)->call = ep_batch_norm_call;

  /**
   * EpBatchNorm:num-features:
   *
   * The number of channels C, positive.
   */
  properties[PROP_NUM_FEATURES] =
    ep_module_size_property ("num-features", 1);

  /**
   * EpBatchNorm:epsilon:
   *
   * What is added to the variance under the square root, finite and not
   * negative.
   */
  properties[PROP_EPSILON] =
    g_param_spec_double ("epsilon", NULL, NULL, -INFINITY, INFINITY, 1e-5,
                         G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS);

  /**
   * EpBatchNorm:momentum:
   *
   * The weight of a batch's statistics in the running ones, in [0, 1].
   */
  properties[PROP_MOMENTUM] =
    g_param_spec_double ("momentum", NULL, NULL, -INFINITY, INFINITY, 0.1,
                         G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS);

  /**
   * EpBatchNorm:affine:
   *
   * Whether the layer scales and shifts its output (the variables
   * `weight` and `bias`).
   */
  properties[PROP_AFFINE] =
    g_param_spec_boolean ("affine", NULL, NULL, TRUE,
                          G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS);

  /**
   * EpBatchNorm:track-running-stats:
   *
   * Whether the layer keeps running statistics for evaluation (the
   * variables `running_mean`, `running_var` and `num_batches_tracked`).
   */
  properties[PROP_TRACK_RUNNING_STATS] =
    g_param_spec_boolean ("track-running-stats", NULL, NULL, TRUE,
                          G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS);

  /**
   * EpBatchNorm:data-format:
   *
   * The layout of images (inputs of 4 dimensions).
   */
  properties[PROP_DATA_FORMAT] =
    g_param_spec_enum ("data-format", NULL, NULL, EP_TYPE_DATA_FORMAT, EP_DATA_FORMAT_NCHW,
                       G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS);

  /**
   * EpBatchNorm:dtype:
   *
   * The type of the variables: %EP_DTYPE_FLOAT32 (the default) or
   * %EP_DTYPE_FLOAT64 (`num_batches_tracked` is int64 whatever it is).
   */
  properties[PROP_DTYPE] =
    g_param_spec_enum ("dtype", NULL, NULL, EP_TYPE_DTYPE, EP_DTYPE_FLOAT32,
                       G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS);

  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
ep_batch_norm_init (EpBatchNorm *self)
{
  self->num_features = 1;
  self->epsilon = 1e-5;
  self->momentum = 0.1;
  self->affine = TRUE;
  self->track_running_stats = TRUE;
  self->data_format = EP_DATA_FORMAT_NCHW;
  self->dtype = EP_DTYPE_FLOAT32;
}

/**
 * ep_batch_norm_new:
 * @num_features: the number of channels, positive
 * @error: return location for an error
 *
 * Makes a batch normalisation with PyTorch's defaults: epsilon 1e-5,
 * momentum 0.1, affine, with running statistics, NCHW images, float32
 * (other settings: the properties with g_initable_new()).
 *
 * Returns: (transfer full): the layer, or %NULL with %EP_ERROR_SHAPE set
 *   for a number of features that is not positive
 */
EpModule *
ep_batch_norm_new (gint64    num_features,
                   GError  **error)
{
  return g_initable_new (EP_TYPE_BATCH_NORM, NULL, error, "num-features", num_features, NULL);
}

/**
 * ep_batch_norm_get_weight:
 * @self: a batch normalisation
 *
 * Gives the scale, of shape (C).
 *
 * Returns: (transfer none) (nullable): the weight, or %NULL for a layer
 *   without one
 */
EpVariable *
ep_batch_norm_get_weight (EpBatchNorm *self)
{
  g_return_val_if_fail (EP_IS_BATCH_NORM (self), NULL);

  return self->weight;
}

/**
 * ep_batch_norm_get_bias:
 * @self: a batch normalisation
 *
 * Gives the shift, of shape (C).
 *
 * Returns: (transfer none) (nullable): the bias, or %NULL for a layer
 *   without one
 */
EpVariable *
ep_batch_norm_get_bias (EpBatchNorm *self)
{
  g_return_val_if_fail (EP_IS_BATCH_NORM (self), NULL);

  return self->bias;
}

/**
 * ep_batch_norm_get_running_mean:
 * @self: a batch normalisation
 *
 * Gives the running mean of each channel, of shape (C).
 *
 * Returns: (transfer none) (nullable): the running mean, or %NULL for a
 *   layer without running statistics
 */
EpVariable *
ep_batch_norm_get_running_mean (EpBatchNorm *self)
{
  g_return_val_if_fail (EP_IS_BATCH_NORM (self), NULL);

  return self->running_mean;
}

/**
 * ep_batch_norm_get_running_var:
 * @self: a batch normalisation
 *
 * Gives the running (unbiased) variance of each channel, of shape (C).
 *
 * Returns: (transfer none) (nullable): the running variance, or %NULL for
 *   a layer without running statistics
 */
EpVariable *
ep_batch_norm_get_running_var (EpBatchNorm *self)
{
  g_return_val_if_fail (EP_IS_BATCH_NORM (self), NULL);

  return self->running_var;
}
