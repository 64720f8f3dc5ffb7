/* nn/max-pool2d.c
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <gio/gio.h>

#include "ep-enum-types.h"
#include "ep-error-private.h"
#include "ep-max-pool2d.h"
#include "ep-module-private.h"
#include "ep-pool.h"
#include "ep-pool-layer-private.h"

/**
 * EpMaxPool2d:
 *
 * Max pooling as a layer, PyTorch's `torch.nn.MaxPool2d`:
 * [method@Tensor.max_pool2d] of images in the layout of
 * [property@MaxPool2d:data-format]. The strides default to the kernel
 * (a stride property of 0). It has no variables.
 *
 * ```c
 * g_autoptr(EpModule) pool = ep_max_pool2d_layer_new (2, 2, &error);
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
  PROP_DILATION_HEIGHT,
  PROP_DILATION_WIDTH,
  PROP_CEIL_MODE,
  PROP_DATA_FORMAT,
  N_PROPS
};

struct _EpMaxPool2d
{
  EpModule      parent_instance;

  EpPoolSizes   sizes;
  gboolean      ceil_mode;
  EpDataFormat  data_format;
};

G_DEFINE_FINAL_TYPE (EpMaxPool2d, ep_max_pool2d_layer, EP_TYPE_MODULE)

static GParamSpec *properties[N_PROPS];

/* the field of a size property, in property order */
static gint64 *
size_of (EpMaxPool2d *self,
         guint        prop_id)
{
  gint64 *fields[] = {
    &self->sizes.kernel[0], &self->sizes.kernel[1],
    &self->sizes.strides[0], &self->sizes.strides[1],
    &self->sizes.padding[0], &self->sizes.padding[1],
    &self->sizes.dilation[0], &self->sizes.dilation[1],
  };

  return fields[prop_id - PROP_KERNEL_HEIGHT];
}

static void
ep_max_pool2d_layer_constructed (GObject *object)
{
  EpMaxPool2d *self = EP_MAX_POOL2D (object);
  GError *error = NULL;

  G_OBJECT_CLASS (ep_max_pool2d_layer_parent_class)->constructed (object);

  if (!ep_pool_sizes_check (&self->sizes, "MaxPool2d", &error))
    ep_module_take_construct_error (EP_MODULE (self), error);
}

static EpTensor *
ep_max_pool2d_layer_call (EpModule  *module,
                    EpTensor  *input,
                    GError   **error)
{
  EpMaxPool2d *self = EP_MAX_POOL2D (module);
  gint64 strides[2];

  if (!ep_pool_check_input (input, self->data_format, "MaxPool2d", error))
    return NULL;

  ep_pool_sizes_strides (&self->sizes, strides);
  return ep_error_named_result (ep_tensor_max_pool2d (input, self->sizes.kernel, 2, strides, 2,
                                                      self->sizes.padding, 2,
                                                      self->sizes.dilation, 2,
                                                      self->ceil_mode, self->data_format, error),
                                error, "MaxPool2d");
}

static void
ep_max_pool2d_layer_get_property (GObject    *object,
                            guint       prop_id,
                            GValue     *value,
                            GParamSpec *pspec)
{
  EpMaxPool2d *self = EP_MAX_POOL2D (object);

  switch (prop_id)
    {
    case PROP_KERNEL_HEIGHT ... PROP_DILATION_WIDTH:
      g_value_set_int64 (value, *size_of (self, prop_id));
      break;
    case PROP_CEIL_MODE:
      g_value_set_boolean (value, self->ceil_mode);
      break;
    case PROP_DATA_FORMAT:
      g_value_set_enum (value, self->data_format);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
ep_max_pool2d_layer_set_property (GObject      *object,
                            guint         prop_id,
                            const GValue *value,
                            GParamSpec   *pspec)
{
  EpMaxPool2d *self = EP_MAX_POOL2D (object);

  switch (prop_id)
    {
    case PROP_KERNEL_HEIGHT ... PROP_DILATION_WIDTH:
      *size_of (self, prop_id) = g_value_get_int64 (value);
      break;
    case PROP_CEIL_MODE:
      self->ceil_mode = g_value_get_boolean (value);
      break;
    case PROP_DATA_FORMAT:
      self->data_format = g_value_get_enum (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
ep_max_pool2d_layer_class_init (EpMaxPool2dClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  EpModuleClass *module_class = EP_MODULE_CLASS (klass);

  object_class->constructed = ep_max_pool2d_layer_constructed;
  object_class->get_property = ep_max_pool2d_layer_get_property;
  object_class->set_property = ep_max_pool2d_layer_set_property;
  module_class->call = ep_max_pool2d_layer_call;

  /* Sizes take any gint64 and are checked in constructed(). */

  /**
   * EpMaxPool2d:kernel-height:
   *
   * The height of the windows, positive.
   */
  properties[PROP_KERNEL_HEIGHT] = ep_module_size_property ("kernel-height", 1);

  /**
   * EpMaxPool2d:kernel-width:
   *
   * The width of the windows, positive.
   */
  properties[PROP_KERNEL_WIDTH] = ep_module_size_property ("kernel-width", 1);

  /**
   * EpMaxPool2d:stride-height:
   *
   * The vertical step between windows; 0 (the default) for the kernel's
   * height.
   */
  properties[PROP_STRIDE_HEIGHT] = ep_module_size_property ("stride-height", 0);

  /**
   * EpMaxPool2d:stride-width:
   *
   * The horizontal step between windows; 0 (the default) for the
   * kernel's width.
   */
  properties[PROP_STRIDE_WIDTH] = ep_module_size_property ("stride-width", 0);

  /**
   * EpMaxPool2d:padding-height:
   *
   * The implicit rows of −∞ above and below, at most half the kernel's
   * height.
   */
  properties[PROP_PADDING_HEIGHT] = ep_module_size_property ("padding-height", 0);

  /**
   * EpMaxPool2d:padding-width:
   *
   * The implicit columns of −∞ left and right, at most half the
   * kernel's width.
   */
  properties[PROP_PADDING_WIDTH] = ep_module_size_property ("padding-width", 0);

  /**
   * EpMaxPool2d:dilation-height:
   *
   * The vertical spacing of a window's elements, positive.
   */
  properties[PROP_DILATION_HEIGHT] = ep_module_size_property ("dilation-height", 1);

  /**
   * EpMaxPool2d:dilation-width:
   *
   * The horizontal spacing of a window's elements, positive.
   */
  properties[PROP_DILATION_WIDTH] = ep_module_size_property ("dilation-width", 1);

  /**
   * EpMaxPool2d:ceil-mode:
   *
   * Whether the output size is rounded up rather than down.
   */
  properties[PROP_CEIL_MODE] =
    g_param_spec_boolean ("ceil-mode", NULL, NULL, FALSE,
                          G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS);

  /**
   * EpMaxPool2d:data-format:
   *
   * The layout of the images taken and made.
   */
  properties[PROP_DATA_FORMAT] =
    g_param_spec_enum ("data-format", NULL, NULL, EP_TYPE_DATA_FORMAT, EP_DATA_FORMAT_NCHW,
                       G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS);

  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
ep_max_pool2d_layer_init (EpMaxPool2d *self)
{
  for (guint i = PROP_KERNEL_HEIGHT; i <= PROP_DILATION_WIDTH; i++)
    *size_of (self, i) = G_PARAM_SPEC_INT64 (properties[i])->default_value;
  self->data_format = EP_DATA_FORMAT_NCHW;
}

/**
 * ep_max_pool2d_layer_new:
 * @kernel_height: the height of the windows, positive
 * @kernel_width: the width of the windows, positive
 * @error: return location for an error
 *
 * Makes a max pooling layer whose strides are the kernel, without
 * padding or dilation, on NCHW images (the rest: the properties with
 * g_initable_new()).
 *
 * Returns: (transfer full): the layer, or %NULL with
 *   %EP_ERROR_INVALID_ARGUMENT set for a size that is not positive
 */
EpModule *
ep_max_pool2d_layer_new (gint64    kernel_height,
                   gint64    kernel_width,
                   GError  **error)
{
  return g_initable_new (EP_TYPE_MAX_POOL2D, NULL, error,
                         "kernel-height", kernel_height,
                         "kernel-width", kernel_width,
                         NULL);
}
