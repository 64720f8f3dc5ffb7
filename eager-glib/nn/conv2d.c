/* nn/conv2d.c
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <gio/gio.h>
#include <glib/gi18n-lib.h>
#include <inttypes.h>
#include <math.h>

#include "ep-conv2d.h"
#include "ep-enum-types.h"
#include "ep-error.h"
#include "ep-error-private.h"
#include "ep-module-private.h"
#include "ep-tensor-private.h"

/**
 * EpConv2d:
 *
 * A 2-D convolution layer, PyTorch's `torch.nn.Conv2d`: [method@Tensor.conv2d]
 * of the images with the weight of shape (out, in / groups, kernel height,
 * kernel width), plus a bias of shape (out) added along the channel axis
 * of [property@Conv2d:data-format]. Its variables are `weight` and, with
 * [property@Conv2d:use-bias], `bias`.
 *
 * Both are drawn as PyTorch draws them: uniformly from [−1/√k, 1/√k) with
 * k = in / groups × kernel height × kernel width (Kaiming-uniform with
 * a = √5 for the weight), through [func@uniform] on the current device,
 * so that [func@set_seed] makes them reproducible.
 *
 * ```c
 * g_autoptr(EpModule) conv = g_initable_new (EP_TYPE_CONV2D, NULL, &error,
 *                                            "in-channels", (gint64) 3,
 *                                            "out-channels", (gint64) 16,
 *                                            "kernel-height", (gint64) 3,
 *                                            "kernel-width", (gint64) 3,
 *                                            "padding-height", (gint64) 1,
 *                                            "padding-width", (gint64) 1,
 *                                            NULL);
 * ```
 */

enum
{
  PROP_0,
  PROP_IN_CHANNELS,
  PROP_OUT_CHANNELS,
  PROP_KERNEL_HEIGHT,
  PROP_KERNEL_WIDTH,
  PROP_STRIDE_HEIGHT,
  PROP_STRIDE_WIDTH,
  PROP_PADDING_HEIGHT,
  PROP_PADDING_WIDTH,
  PROP_DILATION_HEIGHT,
  PROP_DILATION_WIDTH,
  PROP_GROUPS,
  PROP_USE_BIAS,
  PROP_DATA_FORMAT,
  PROP_DTYPE,
  N_PROPS
};

#define N_SIZES (PROP_GROUPS - PROP_IN_CHANNELS + 1)
#define SIZE(self, prop) ((self)->sizes[(prop) - PROP_IN_CHANNELS])

struct _EpConv2d
{
  EpModule      parent_instance;

  gint64        sizes[N_SIZES];   /* by property, PROP_IN_CHANNELS first */
  gboolean      use_bias;
  EpDataFormat  data_format;
  EpDType       dtype;
  EpVariable   *weight;           /* held by the module too */
  EpVariable   *bias;
};

G_DEFINE_FINAL_TYPE (EpConv2d, ep_conv2d_layer, EP_TYPE_MODULE)

static GParamSpec *properties[N_PROPS];

static gboolean
check_sizes (EpConv2d  *self,
             GError   **error)
{
  gint64 in = SIZE (self, PROP_IN_CHANNELS), out = SIZE (self, PROP_OUT_CHANNELS);
  gint64 groups = SIZE (self, PROP_GROUPS);

  if (in <= 0 || out <= 0 || SIZE (self, PROP_KERNEL_HEIGHT) <= 0 || SIZE (self, PROP_KERNEL_WIDTH) <= 0)
    {
      g_set_error (error, EP_ERROR, EP_ERROR_SHAPE,
                   _("Conv2d: the channels and the kernel size must be positive (in %" PRId64 ", out %" PRId64 ", kernel %" PRId64 "×%" PRId64 ")"),
                   in, out, SIZE (self, PROP_KERNEL_HEIGHT), SIZE (self, PROP_KERNEL_WIDTH));
      return FALSE;
    }
  if (SIZE (self, PROP_STRIDE_HEIGHT) <= 0 || SIZE (self, PROP_STRIDE_WIDTH) <= 0
      || SIZE (self, PROP_DILATION_HEIGHT) <= 0 || SIZE (self, PROP_DILATION_WIDTH) <= 0
      || SIZE (self, PROP_PADDING_HEIGHT) < 0 || SIZE (self, PROP_PADDING_WIDTH) < 0)
    {
      g_set_error (error, EP_ERROR, EP_ERROR_INVALID_ARGUMENT,
                   _("Conv2d: strides and dilation must be positive and padding not negative (strides %" PRId64 "×%" PRId64 ", padding %" PRId64 "×%" PRId64 ", dilation %" PRId64 "×%" PRId64 ")"),
                   SIZE (self, PROP_STRIDE_HEIGHT), SIZE (self, PROP_STRIDE_WIDTH),
                   SIZE (self, PROP_PADDING_HEIGHT), SIZE (self, PROP_PADDING_WIDTH),
                   SIZE (self, PROP_DILATION_HEIGHT), SIZE (self, PROP_DILATION_WIDTH));
      return FALSE;
    }
  if (groups <= 0 || in % groups != 0 || out % groups != 0)
    {
      g_set_error (error, EP_ERROR, EP_ERROR_INVALID_ARGUMENT,
                   _("Conv2d: groups (%" PRId64 ") must be positive and divide the input (%" PRId64 ") and output (%" PRId64 ") channels"),
                   groups, in, out);
      return FALSE;
    }
  if (!ep_dtype_is_floating (self->dtype))
    {
      g_set_error (error, EP_ERROR, EP_ERROR_DTYPE,
                   _("Conv2d: the weights are float32 or float64, not %s"),
                   ep_dtype_get_name (self->dtype));
      return FALSE;
    }
  return TRUE;
}

static gboolean
make_variables (EpConv2d  *self,
                GError   **error)
{
  gint64 out = SIZE (self, PROP_OUT_CHANNELS);
  gint64 weight_shape[4];
  gdouble bound;

  if (!check_sizes (self, error))
    return FALSE;

  weight_shape[0] = out;
  weight_shape[1] = SIZE (self, PROP_IN_CHANNELS) / SIZE (self, PROP_GROUPS);
  weight_shape[2] = SIZE (self, PROP_KERNEL_HEIGHT);
  weight_shape[3] = SIZE (self, PROP_KERNEL_WIDTH);
  /* in doubles: the product of huge sizes does not overflow */
  bound = 1.0 / sqrt ((gdouble) weight_shape[1] * (gdouble) weight_shape[2] * (gdouble) weight_shape[3]);

  self->weight = ep_module_create_uniform_variable (EP_MODULE (self), "weight", weight_shape, 4,
                                                    bound, self->dtype, "Conv2d", error);
  if (self->weight == NULL)
    return FALSE;
  if (self->use_bias)
    {
      self->bias = ep_module_create_uniform_variable (EP_MODULE (self), "bias", &out, 1,
                                                      bound, self->dtype, "Conv2d", error);
      if (self->bias == NULL)
        return FALSE;
    }
  return TRUE;
}

static void
ep_conv2d_layer_constructed (GObject *object)
{
  EpConv2d *self = EP_CONV2D (object);
  GError *error = NULL;

  G_OBJECT_CLASS (ep_conv2d_layer_parent_class)->constructed (object);

  if (!make_variables (self, &error))
    ep_module_take_construct_error (EP_MODULE (self), error);
}

static EpTensor *
ep_conv2d_layer_call (EpModule  *module,
                EpTensor  *input,
                GError   **error)
{
  EpConv2d *self = EP_CONV2D (module);
  const EpLayout *layout = &input->layout;
  guint channel_axis = self->data_format == EP_DATA_FORMAT_NHWC ? 3 : 1;
  gint64 in = SIZE (self, PROP_IN_CHANNELS);
  gint64 strides[2] = { SIZE (self, PROP_STRIDE_HEIGHT), SIZE (self, PROP_STRIDE_WIDTH) };
  gint64 padding[2] = { SIZE (self, PROP_PADDING_HEIGHT), SIZE (self, PROP_PADDING_WIDTH) };
  gint64 dilation[2] = { SIZE (self, PROP_DILATION_HEIGHT), SIZE (self, PROP_DILATION_WIDTH) };
  gint64 bias_shape[3] = { SIZE (self, PROP_OUT_CHANNELS), 1, 1 };
  g_autoptr(EpTensor) weight = NULL;
  g_autoptr(EpTensor) output = NULL;
  g_autoptr(EpTensor) bias = NULL;
  g_autoptr(EpTensor) shaped = NULL;

  if (layout->ndim != 4 || layout->shape[channel_axis] != in)
    {
      g_autofree char *shape = ep_shape_to_string (layout->shape, layout->ndim);

      if (self->data_format == EP_DATA_FORMAT_NHWC)
        g_set_error (error, EP_ERROR, EP_ERROR_SHAPE,
                     _("Conv2d: takes images of shape (N, H, W, %" PRId64 "), not %s"), in, shape);
      else
        g_set_error (error, EP_ERROR, EP_ERROR_SHAPE,
                     _("Conv2d: takes images of shape (N, %" PRId64 ", H, W), not %s"), in, shape);
      return NULL;
    }

  weight = ep_variable_read (self->weight);
  output = ep_tensor_conv2d (input, weight, strides, 2, padding, 2, dilation, 2,
                             SIZE (self, PROP_GROUPS), self->data_format, error);
  if (output == NULL)
    {
      ep_error_rename_call (error, NULL, "Conv2d");
      return NULL;
    }
  if (self->bias == NULL)
    return g_steal_pointer (&output);

  /* (out) broadcasts along NHWC's last axis; NCHW's takes (out, 1, 1) */
  bias = ep_variable_read (self->bias);
  if (self->data_format == EP_DATA_FORMAT_NCHW)
    {
      shaped = ep_tensor_reshape (bias, bias_shape, 3, error);
      if (shaped == NULL)
        return NULL;
      g_set_object (&bias, shaped);
    }
  return ep_error_named_result (ep_tensor_add (output, bias, error), error, "Conv2d");
}

static void
ep_conv2d_layer_get_property (GObject    *object,
                        guint       prop_id,
                        GValue     *value,
                        GParamSpec *pspec)
{
  EpConv2d *self = EP_CONV2D (object);

  switch (prop_id)
    {
    case PROP_IN_CHANNELS ... PROP_GROUPS:
      g_value_set_int64 (value, SIZE (self, prop_id));
      break;
    case PROP_USE_BIAS:
      g_value_set_boolean (value, self->use_bias);
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
ep_conv2d_layer_set_property (GObject      *object,
                        guint         prop_id,
                        const GValue *value,
                        GParamSpec   *pspec)
{
  EpConv2d *self = EP_CONV2D (object);

  switch (prop_id)
    {
    case PROP_IN_CHANNELS ... PROP_GROUPS:
      SIZE (self, prop_id) = g_value_get_int64 (value);
      break;
    case PROP_USE_BIAS:
      self->use_bias = g_value_get_boolean (value);
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
ep_conv2d_layer_class_init (EpConv2dClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  EpModuleClass *module_class = EP_MODULE_CLASS (klass);

  object_class->constructed = ep_conv2d_layer_constructed;
  object_class->get_property = ep_conv2d_layer_get_property;
  object_class->set_property = ep_conv2d_layer_set_property;
  module_class->call = ep_conv2d_layer_call;

  /* Sizes take any gint64 and are checked in constructed(): a bad one
   * is an error of the construction, not a GLib warning. */

  /**
   * EpConv2d:in-channels:
   *
   * The number of channels of the images, positive, a multiple of
   * [property@Conv2d:groups].
   */
  properties[PROP_IN_CHANNELS] = ep_module_size_property ("in-channels", 1);

  /**
   * EpConv2d:out-channels:
   *
   * The number of channels of the output, positive, a multiple of
   * [property@Conv2d:groups].
   */
  properties[PROP_OUT_CHANNELS] = ep_module_size_property ("out-channels", 1);

  /**
   * EpConv2d:kernel-height:
   *
   * The height of the kernel, positive.
   */
  properties[PROP_KERNEL_HEIGHT] = ep_module_size_property ("kernel-height", 1);

  /**
   * EpConv2d:kernel-width:
   *
   * The width of the kernel, positive.
   */
  properties[PROP_KERNEL_WIDTH] = ep_module_size_property ("kernel-width", 1);

  /**
   * EpConv2d:stride-height:
   *
   * The vertical step between windows, positive.
   */
  properties[PROP_STRIDE_HEIGHT] = ep_module_size_property ("stride-height", 1);

  /**
   * EpConv2d:stride-width:
   *
   * The horizontal step between windows, positive.
   */
  properties[PROP_STRIDE_WIDTH] = ep_module_size_property ("stride-width", 1);

  /**
   * EpConv2d:padding-height:
   *
   * The rows of zeros above and below the images, not negative.
   */
  properties[PROP_PADDING_HEIGHT] = ep_module_size_property ("padding-height", 0);

  /**
   * EpConv2d:padding-width:
   *
   * The columns of zeros left and right of the images, not negative.
   */
  properties[PROP_PADDING_WIDTH] = ep_module_size_property ("padding-width", 0);

  /**
   * EpConv2d:dilation-height:
   *
   * The vertical spacing of the kernel's elements, positive.
   */
  properties[PROP_DILATION_HEIGHT] = ep_module_size_property ("dilation-height", 1);

  /**
   * EpConv2d:dilation-width:
   *
   * The horizontal spacing of the kernel's elements, positive.
   */
  properties[PROP_DILATION_WIDTH] = ep_module_size_property ("dilation-width", 1);

  /**
   * EpConv2d:groups:
   *
   * The number of groups the channels are split into, positive.
   */
  properties[PROP_GROUPS] = ep_module_size_property ("groups", 1);

  /**
   * EpConv2d:use-bias:
   *
   * Whether the layer adds a bias (the variable `bias`).
   */
  properties[PROP_USE_BIAS] =
    g_param_spec_boolean ("use-bias", NULL, NULL, TRUE,
                          G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS);

  /**
   * EpConv2d:data-format:
   *
   * The layout of the images taken and made.
   */
  properties[PROP_DATA_FORMAT] =
    g_param_spec_enum ("data-format", NULL, NULL, EP_TYPE_DATA_FORMAT, EP_DATA_FORMAT_NCHW,
                       G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS);

  /**
   * EpConv2d:dtype:
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
ep_conv2d_layer_init (EpConv2d *self)
{
  for (guint i = PROP_IN_CHANNELS; i <= PROP_GROUPS; i++)
    SIZE (self, i) = G_PARAM_SPEC_INT64 (properties[i])->default_value;
  self->use_bias = TRUE;
  self->data_format = EP_DATA_FORMAT_NCHW;
  self->dtype = EP_DTYPE_FLOAT32;
}

/**
 * ep_conv2d_layer_new:
 * @in_channels: the channels of the images, positive
 * @out_channels: the channels of the output, positive
 * @kernel_height: the height of the kernel, positive
 * @kernel_width: the width of the kernel, positive
 * @error: return location for an error
 *
 * Makes a convolution layer with strides of 1, no padding, no dilation, a
 * single group, a bias, NCHW images and float32 weights drawn as
 * PyTorch's `torch.nn.Conv2d` draws them (the rest: the properties with
 * g_initable_new()).
 *
 * Returns: (transfer full): the layer, or %NULL with
 *   %EP_ERROR_SHAPE set for a size that is not positive, or
 *   %EP_ERROR_OUT_OF_MEMORY
 */
EpModule *
ep_conv2d_layer_new (gint64    in_channels,
               gint64    out_channels,
               gint64    kernel_height,
               gint64    kernel_width,
               GError  **error)
{
  return g_initable_new (EP_TYPE_CONV2D, NULL, error,
                         "in-channels", in_channels,
                         "out-channels", out_channels,
                         "kernel-height", kernel_height,
                         "kernel-width", kernel_width,
                         NULL);
}

/**
 * ep_conv2d_layer_get_weight:
 * @self: a convolution layer
 *
 * Gives the weight, of shape (out, in / groups, kernel height, kernel width).
 *
 * Returns: (transfer none) (nullable): the weight, or %NULL for a layer
 *   that could not be made from its properties
 */
EpVariable *
ep_conv2d_layer_get_weight (EpConv2d *self)
{
  g_return_val_if_fail (EP_IS_CONV2D (self), NULL);

  return self->weight;
}

/**
 * ep_conv2d_layer_get_bias:
 * @self: a convolution layer
 *
 * Gives the bias, of shape (out).
 *
 * Returns: (transfer none) (nullable): the bias, or %NULL for a layer
 *   without one
 */
EpVariable *
ep_conv2d_layer_get_bias (EpConv2d *self)
{
  g_return_val_if_fail (EP_IS_CONV2D (self), NULL);

  return self->bias;
}
