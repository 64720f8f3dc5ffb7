/* nn/avg-pool2d.c
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <gio/gio.h>

#include "ep-enum-types.h"
#include "ep-error-private.h"
#include "ep-avg-pool2d.h"
#include "ep-module-private.h"
#include "ep-pool.h"
#include "ep-pool-layer-private.h"

/**
 * EpAvgPool2d:
 *
 * Average pooling as a layer, PyTorch's `torch.nn.AvgPool2d`:
 * [method@Tensor.avg_pool2d] of images in the layout of
 * [property@AvgPool2d:data-format]. The strides default to the kernel
 * (a stride property of 0). Windows are divided by their size with their
 * padding unless [property@AvgPool2d:count-include-pad] is off. It has no
 * variables.
 *
 * ```c
 * g_autoptr(EpModule) pool = ep_avg_pool2d_layer_new (2, 2, &error);
 * ```
 */

enum
{
  PROP_0,
  PROP_KERNEL_HEIGHT,
  PROP_KERNEL_WIDTH,
  PROP_STRIDE_HEIGHT,
  PROP_STRIDE_WIDTH,
  PROP_PADDING_HEIGHT,
  PROP_PADDING_WIDTH,
  PROP_CEIL_MODE,
  PROP_COUNT_INCLUDE_PAD,
  PROP_DATA_FORMAT,
  N_PROPS
};

struct _EpAvgPool2d
{
  EpModule      parent_instance;

  EpPoolSizes   sizes;
  gboolean      ceil_mode;
  gboolean      count_include_pad;
  EpDataFormat  data_format;
};

G_DEFINE_FINAL_TYPE (EpAvgPool2d, ep_avg_pool2d_layer, EP_TYPE_MODULE)

static GParamSpec *properties[N_PROPS];

/* the field of a size property, in property order */
static gint64 *
size_of (EpAvgPool2d *self,
         guint        prop_id)
{
  gint64 *fields[] = {
    &self->sizes.kernel[0], &self->sizes.kernel[1],
    &self->sizes.strides[0], &self->sizes.strides[1],
    &self->sizes.padding[0], &self->sizes.padding[1],
  };

  return fields[prop_id - PROP_KERNEL_HEIGHT];
}

static void
ep_avg_pool2d_layer_constructed (GObject *object)
{
  EpAvgPool2d *self = EP_AVG_POOL2D (object);
  GError *error = NULL;

  G_OBJECT_CLASS (ep_avg_pool2d_layer_parent_class)->constructed (object);

  if (!ep_pool_sizes_check (&self->sizes, "AvgPool2d", &error))
    ep_module_take_construct_error (EP_MODULE (self), error);
}

static EpTensor *
ep_avg_pool2d_layer_call (EpModule  *module,
                    EpTensor  *input,
                    GError   **error)
{
  EpAvgPool2d *self = EP_AVG_POOL2D (module);
  gint64 strides[2];

  if (!ep_pool_check_input (input, self->data_format, "AvgPool2d", error))
    return NULL;

  ep_pool_sizes_strides (&self->sizes, strides);
  return ep_error_named_result (ep_tensor_avg_pool2d (input, self->sizes.kernel, 2, strides, 2,
                                                      self->sizes.padding, 2, self->ceil_mode,
                                                      self->count_include_pad, self->data_format,
                                                      error),
                                error, "AvgPool2d");
}

static void
ep_avg_pool2d_layer_get_property (GObject    *object,
                            guint       prop_id,
                            GValue     *value,
                            GParamSpec *pspec)
{
  EpAvgPool2d *self = EP_AVG_POOL2D (object);

  switch (prop_id)
    {
    case PROP_KERNEL_HEIGHT ... PROP_PADDING_WIDTH:
      g_value_set_int64 (value, *size_of (self, prop_id));
      break;
    case PROP_CEIL_MODE:
      g_value_set_boolean (value, self->ceil_mode);
      break;
    case PROP_COUNT_INCLUDE_PAD:
      g_value_set_boolean (value, self->count_include_pad);
      break;
    case PROP_DATA_FORMAT:
      g_value_set_enum (value, self->data_format);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
ep_avg_pool2d_layer_set_property (GObject      *object,
                            guint         prop_id,
                            const GValue *value,
                            GParamSpec   *pspec)
{
  EpAvgPool2d *self = EP_AVG_POOL2D (object);

  switch (prop_id)
    {
    case PROP_KERNEL_HEIGHT ... PROP_PADDING_WIDTH:
      *size_of (self, prop_id) = g_value_get_int64 (value);
      break;
    case PROP_CEIL_MODE:
      self->ceil_mode = g_value_get_boolean (value);
      break;
    case PROP_COUNT_INCLUDE_PAD:
      self->count_include_pad = g_value_get_boolean (value);
      break;
    case PROP_DATA_FORMAT:
      self->data_format = g_value_get_enum (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
ep_avg_pool2d_layer_class_init (EpAvgPool2dClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  EpModuleClass *module_class = EP_MODULE_CLASS (klass);

  object_class->constructed = ep_avg_pool2d_layer_constructed;
  object_class->get_property = ep_avg_pool2d_layer_get_property;
  object_class->set_property = ep_avg_pool2d_layer_set_property;
  module_class->call = ep_avg_pool2d_layer_call;

  /* Sizes take any gint64 and are checked in constructed(). */

  /**
   * EpAvgPool2d:kernel-height:
   *
   * The height of the windows, positive.
   */
  properties[PROP_KERNEL_HEIGHT] = ep_module_size_property ("kernel-height", 1);

  /**
   * EpAvgPool2d:kernel-width:
   *
   * The width of the windows, positive.
   */
  properties[PROP_KERNEL_WIDTH] = ep_module_size_property ("kernel-width", 1);

  /**
   * EpAvgPool2d:stride-height:
   *
   * The vertical step between windows; 0 (the default) for the kernel's
   * height.
   */
  properties[PROP_STRIDE_HEIGHT] = ep_module_size_property ("stride-height", 0);

  /**
   * EpAvgPool2d:stride-width:
   *
   * The horizontal step between windows; 0 (the default) for the
   * kernel's width.
   */
  properties[PROP_STRIDE_WIDTH] = ep_module_size_property ("stride-width", 0);

  /**
   * EpAvgPool2d:padding-height:
   *
   * The implicit rows of zeros above and below, at most half the kernel's
   * height.
   */
  properties[PROP_PADDING_HEIGHT] = ep_module_size_property ("padding-height", 0);

  /**
   * EpAvgPool2d:padding-width:
   *
   * The implicit columns of zeros left and right, at most half the
   * kernel's width.
   */
  properties[PROP_PADDING_WIDTH] = ep_module_size_property ("padding-width", 0);

  /**
   * EpAvgPool2d:ceil-mode:
   *
   * Whether the output size is rounded up rather than down.
   */
  properties[PROP_CEIL_MODE] =
    g_param_spec_boolean ("ceil-mode", NULL, NULL, FALSE,
                          G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS);

  /**
   * EpAvgPool2d:count-include-pad:
   *
   * Whether a window's divisor counts its padding (the default) rather
   * than only its elements inside the image.
   */
  properties[PROP_COUNT_INCLUDE_PAD] =
    g_param_spec_boolean ("count-include-pad", NULL, NULL, TRUE,
                          G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS);

  /**
   * EpAvgPool2d:data-format:
   *
   * The layout of the images taken and made.
   */
  properties[PROP_DATA_FORMAT] =
    g_param_spec_enum ("data-format", NULL, NULL, EP_TYPE_DATA_FORMAT, EP_DATA_FORMAT_NCHW,
                       G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS);

  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
ep_avg_pool2d_layer_init (EpAvgPool2d *self)
{
  for (guint i = PROP_KERNEL_HEIGHT; i <= PROP_PADDING_WIDTH; i++)
    *size_of (self, i) = G_PARAM_SPEC_INT64 (properties[i])->default_value;
  /* the pooling checks take a dilation of 1 */
  self->sizes.dilation[0] = self->sizes.dilation[1] = 1;
  self->count_include_pad = TRUE;
  self->data_format = EP_DATA_FORMAT_NCHW;
}

/**
 * ep_avg_pool2d_layer_new:
 * @kernel_height: the height of the windows, positive
 * @kernel_width: the width of the windows, positive
 * @error: return location for an error
 *
 * Makes an average pooling layer whose strides are the kernel, without
 * padding, with count-include-pad, on NCHW images (the rest: the properties with
 * g_initable_new()).
 *
 * Returns: (transfer full): the layer, or %NULL with
 *   %EP_ERROR_INVALID_ARGUMENT set for a size that is not positive
 */
EpModule *
ep_avg_pool2d_layer_new (gint64    kernel_height,
                   gint64    kernel_width,
                   GError  **error)
{
  return g_initable_new (EP_TYPE_AVG_POOL2D, NULL, error,
                         "kernel-height", kernel_height,
                         "kernel-width", kernel_width,
                         NULL);
}
