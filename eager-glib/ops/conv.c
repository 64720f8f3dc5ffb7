/* ops/conv.c: conv2d and its two gradients, conv2d_input_grad and
 * conv2d_weight_grad
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The gradients are ops of their own (TensorFlow's
 * Conv2DBackpropInput/Filter): each is linear in each of its inputs, so
 * the three ops' gradient rules are written with one another, and second
 * derivatives go through the same kernels.
 */

#include "config.h"

#include <glib/gi18n-lib.h>
#include <inttypes.h>
#include <string.h>

#include "ep-conv-private.h"
#include "ep-dispatch-private.h"
#include "ep-enum-types.h"
#include "ep-error.h"
#include "ep-grad-private.h"

/* The role of each input and output: which tensor holds the images, the
 * weight and the convolution's output, for each op of the family */
typedef enum {
  ROLE_IMAGES,
  ROLE_WEIGHT,
  ROLE_OUTPUT,
} Role;

static const Role roles[3][3] = {
  /* inputs 0, 1, output 0 */
  [0] = { ROLE_IMAGES, ROLE_WEIGHT, ROLE_OUTPUT },   /* conv2d */
  [1] = { ROLE_OUTPUT, ROLE_WEIGHT, ROLE_IMAGES },   /* conv2d_input_grad */
  [2] = { ROLE_IMAGES, ROLE_OUTPUT, ROLE_WEIGHT },   /* conv2d_weight_grad */
};

static guint
op_index (const EpOpDef *op)
{
  return op->id == EP_OP_CONV2D ? 0 : op->id == EP_OP_CONV2D_INPUT_GRAD ? 1 : 2;
}

/* The shapes of the three tensors of @call by role, from its inputs and
 * (the given shape of a gradient op) its attributes */
static void
role_shapes (const EpOpCall *call,
             const gint64   *shapes[3])
{
  const Role *r = roles[op_index (call->op)];

  shapes[r[0]] = call->inputs[0]->layout.shape;
  shapes[r[1]] = call->inputs[1]->layout.shape;
  shapes[r[2]] = call->n_outputs > 0 ? call->output_layouts[0].shape : call->attrs.shape;
}

void
ep_conv_geometry_from_call (const EpOpCall *call,
                            EpConvGeometry *g)
{
  const EpOpAttrs *a = &call->attrs;
  const gint64 *shapes[3];
  const gint64 *x, *w, *y;

  memset (g, 0, sizeof *g);   /* the padding too: plan caches key on its bytes */
  role_shapes (call, shapes);
  x = shapes[ROLE_IMAGES];
  w = shapes[ROLE_WEIGHT];
  y = shapes[ROLE_OUTPUT];

  g->nhwc = a->conv.data_format == EP_DATA_FORMAT_NHWC;
  g->n = x[0];
  g->c = g->nhwc ? x[3] : x[1];
  g->h = g->nhwc ? x[1] : x[2];
  g->w = g->nhwc ? x[2] : x[3];
  g->o = w[0];
  g->kh = w[2];
  g->kw = w[3];
  g->oh = g->nhwc ? y[1] : y[2];
  g->ow = g->nhwc ? y[2] : y[3];
  g->stride_h = a->conv.strides[0];
  g->stride_w = a->conv.strides[1];
  g->pad_h = a->conv.padding[0];
  g->pad_w = a->conv.padding[1];
  g->dilation_h = a->conv.dilation[0];
  g->dilation_w = a->conv.dilation[1];
  g->groups = a->conv.groups;
}

/* An empty list is the default, one value stands for both dimensions */
static gboolean
canonical_pair (const EpOpCall *call,
                const char     *what,
                gint64         *pair,
                guint          *n,
                gint64          fallback,
                gint64          minimum,
                GError        **error)
{
  if (*n == 0)
    pair[0] = pair[1] = fallback;
  else if (*n == 1)
    pair[1] = pair[0];
  *n = 2;

  if (pair[0] < minimum || pair[1] < minimum)
    {
      g_set_error (error, EP_ERROR, EP_ERROR_INVALID_ARGUMENT,
                   minimum > 0
                   ? _("%s: %s (%" PRId64 ", %" PRId64 ") must be positive")
                   : _("%s: %s (%" PRId64 ", %" PRId64 ") must not be negative"),
                   call->op->name, what, pair[0], pair[1]);
      return FALSE;
    }

  return TRUE;
}

static gboolean
canonical_attrs (EpOpCall  *call,
                 GError   **error)
{
  EpOpAttrs *a = &call->attrs;

  if (!canonical_pair (call, "strides", a->conv.strides, &a->conv.n_strides, 1, 1, error)
      || !canonical_pair (call, "padding", a->conv.padding, &a->conv.n_padding, 0, 0, error)
      || !canonical_pair (call, "dilation", a->conv.dilation, &a->conv.n_dilation, 1, 1, error))
    return FALSE;

  if (a->conv.groups < 1)
    {
      g_set_error (error, EP_ERROR, EP_ERROR_INVALID_ARGUMENT,
                   _("%s: groups (%" PRId64 ") must be positive"),
                   call->op->name, a->conv.groups);
      return FALSE;
    }

  if (a->conv.data_format != EP_DATA_FORMAT_NCHW && a->conv.data_format != EP_DATA_FORMAT_NHWC)
    {
      g_set_error (error, EP_ERROR, EP_ERROR_INVALID_ARGUMENT,
                   _("%s: unknown data format %d"), call->op->name, (int) a->conv.data_format);
      return FALSE;
    }

  return TRUE;
}

static gboolean
check_rank (const EpOpCall *call,
            const char     *what,
            const gint64   *shape,
            guint           ndim,
            GError        **error)
{
  if (ndim != 4)
    {
      g_autofree char *s = ep_shape_to_string (shape, ndim);

      g_set_error (error, EP_ERROR, EP_ERROR_SHAPE,
                   _("%s: %s: 4 dimensions expected, not shape %s"),
                   call->op->name, what, s);
      return FALSE;
    }

  for (guint d = 0; d < 4; d++)
    if (shape[d] < 0)
      {
        g_autofree char *s = ep_shape_to_string (shape, ndim);

        g_set_error (error, EP_ERROR, EP_ERROR_SHAPE,
                     _("%s: negative dimension %" PRId64 " in shape %s"),
                     call->op->name, shape[d], s);
        return FALSE;
      }

  return TRUE;
}

/* The output's extent along one dimension, or -1 where the dilated
 * kernel is larger than the padded input (or either does not fit in 64
 * bits, which is the same) */
static gint64
output_extent (gint64 in,
               gint64 kernel,
               gint64 stride,
               gint64 pad,
               gint64 dilation)
{
  gint64 padded, span;

  if (kernel == 0
      || __builtin_mul_overflow (pad, 2, &padded)
      || __builtin_add_overflow (padded, in, &padded)
      || __builtin_mul_overflow (kernel - 1, dilation, &span)
      || __builtin_add_overflow (span, 1, &span)
      || span > padded)
    return -1;

  return (padded - span) / stride + 1;
}

/* Checks the images' and the weight's shapes against the attributes and
 * gives the convolution's output shape */
static gboolean
conv_shapes (EpOpCall      *call,
             const gint64  *x,
             const gint64  *w,
             gint64        *y,
             GError       **error)
{
  const EpOpAttrs *a = &call->attrs;
  const char *name = call->op->name;
  gboolean nhwc = a->conv.data_format == EP_DATA_FORMAT_NHWC;
  gint64 c = nhwc ? x[3] : x[1];
  gint64 h = nhwc ? x[1] : x[2];
  gint64 wd = nhwc ? x[2] : x[3];
  gint64 groups = a->conv.groups;
  gint64 oh, ow;

  if (w[0] % groups != 0 || c % groups != 0)
    {
      g_set_error (error, EP_ERROR, EP_ERROR_SHAPE,
                   _("%s: %" PRId64 " input channels and %" PRId64 " output channels do not divide into %" PRId64 " groups"),
                   name, c, w[0], groups);
      return FALSE;
    }

  if (w[1] != c / groups)
    {
      g_set_error (error, EP_ERROR, EP_ERROR_SHAPE,
                   _("%s: the weight takes %" PRId64 " channels per group, the images have %" PRId64 " (%" PRId64 " channels in %" PRId64 " groups)"),
                   name, w[1], c / groups, c, groups);
      return FALSE;
    }

  oh = output_extent (h, w[2], a->conv.strides[0], a->conv.padding[0], a->conv.dilation[0]);
  ow = output_extent (wd, w[3], a->conv.strides[1], a->conv.padding[1], a->conv.dilation[1]);
  if (oh < 0 || ow < 0)
    {
      g_set_error (error, EP_ERROR, EP_ERROR_SHAPE,
                   _("%s: the kernel (%" PRId64 ", %" PRId64 ") with dilation (%" PRId64 ", %" PRId64 ") does not fit in the images (%" PRId64 ", %" PRId64 ") with padding (%" PRId64 ", %" PRId64 ")"),
                   name, w[2], w[3], a->conv.dilation[0], a->conv.dilation[1],
                   h, wd, a->conv.padding[0], a->conv.padding[1]);
      return FALSE;
    }

  y[0] = x[0];
  y[nhwc ? 3 : 1] = w[0];
  y[nhwc ? 1 : 2] = oh;
  y[nhwc ? 2 : 3] = ow;
  return TRUE;
}

/* Both inputs floating point, promoted to one type, contiguous */
static gboolean
float_inputs (EpOpCall  *call,
              EpDType   *dtype,
              GError   **error)
{
  for (guint i = 0; i < 2; i++)
    {
      EpDType t = call->inputs[i]->layout.dtype;

      if (!ep_dtype_is_floating (t))
        return ep_op_error_dtype (call, t, error);
    }

  *dtype = ep_op_result_dtype (call->inputs, 2);
  ep_op_cast_all_inputs (call, *dtype);
  call->contiguous_inputs = 0x3;
  return TRUE;
}

static gboolean
set_output (EpOpCall      *call,
            EpDType        dtype,
            const gint64  *shape,
            GError       **error)
{
  if (!ep_layout_init (&call->output_layouts[0], dtype, shape, 4, call->op->name, error))
    return FALSE;
  call->n_outputs = 1;
  return TRUE;
}

static const char *
describe_role (Role role)
{
  switch (role)
    {
    case ROLE_IMAGES:
      return _("images");
    case ROLE_WEIGHT:
      return _("weight");
    case ROLE_OUTPUT:
      return _("output gradient");
    }
  g_return_val_if_reached (NULL);
}

static gboolean
conv_infer (EpOpCall  *call,
            GError   **error)
{
  const Role *r = roles[op_index (call->op)];
  const gint64 *shapes[3];
  gint64 y[4];
  EpDType dtype = EP_DTYPE_FLOAT32;

  call->n_outputs = 0;
  if (!float_inputs (call, &dtype, error) || !canonical_attrs (call, error))
    return FALSE;

  for (guint i = 0; i < 2; i++)
    if (!check_rank (call, describe_role (r[i]), call->inputs[i]->layout.shape,
                     call->inputs[i]->layout.ndim, error))
      return FALSE;
  if (call->op->id != EP_OP_CONV2D
      && !check_rank (call, r[2] == ROLE_IMAGES ? _("input shape") : _("weight shape"),
                      call->attrs.shape, call->attrs.ndim, error))
    return FALSE;

  role_shapes (call, shapes);
  if (call->op->id == EP_OP_CONV2D)
    return conv_shapes (call, shapes[ROLE_IMAGES], shapes[ROLE_WEIGHT], y, error)
           && set_output (call, dtype, y, error);

  if (!conv_shapes (call, shapes[ROLE_IMAGES], shapes[ROLE_WEIGHT], y, error))
    return FALSE;
  if (memcmp (y, shapes[ROLE_OUTPUT], sizeof y) != 0)
    {
      g_autofree char *expected = ep_shape_to_string (y, 4);
      g_autofree char *given = ep_shape_to_string (shapes[ROLE_OUTPUT], 4);

      g_set_error (error, EP_ERROR, EP_ERROR_SHAPE,
                   _("%s: the output gradient has shape %s, the convolution gives %s"),
                   call->op->name, given, expected);
      return FALSE;
    }

  return set_output (call, dtype, call->attrs.shape, error);
}

/* The op's attributes, for the calls of its gradient rule */
typedef struct
{
  const gint64 *strides, *padding, *dilation;
  gint64        groups;
  EpDataFormat  format;
} ConvArgs;

#define CONV_ARGS(a)                                                        \
  (a).strides, 2, (a).padding, 2, (a).dilation, 2, (a).groups, (a).format

static ConvArgs
conv_args (const EpOpCall *call)
{
  return (ConvArgs) {
    call->attrs.conv.strides, call->attrs.conv.padding, call->attrs.conv.dilation,
    call->attrs.conv.groups, call->attrs.conv.data_format,
  };
}

/* y = conv2d (x, w): dx = input_grad (dy, w), dw = weight_grad (x, dy) */
static gboolean
conv2d_gradient (const EpOpCall   *call,
                 EpTensor *const  *output_grads,
                 EpTensor        **input_grads,
                 GError          **error)
{
  EpTensor *x = call->inputs[0], *w = call->inputs[1], *dy = output_grads[0];
  ConvArgs a = conv_args (call);

  if (ep_grad_needed (call, 0)
      && (input_grads[0] = ep_conv2d_input_grad (dy, w, x->layout.shape, 4, CONV_ARGS (a), error)) == NULL)
    return FALSE;
  if (ep_grad_needed (call, 1)
      && (input_grads[1] = ep_conv2d_weight_grad (x, dy, w->layout.shape, 4, CONV_ARGS (a), error)) == NULL)
    return FALSE;
  return TRUE;
}

/* dx = input_grad (dy, w) is the adjoint of conv2d in x: with g the
 * gradient of dx, d(dy) = conv2d (g, w) and dw = weight_grad (g, dy) */
static gboolean
conv2d_input_grad_gradient (const EpOpCall   *call,
                            EpTensor *const  *output_grads,
                            EpTensor        **input_grads,
                            GError          **error)
{
  EpTensor *dy = call->inputs[0], *w = call->inputs[1], *g = output_grads[0];
  ConvArgs a = conv_args (call);

  if (ep_grad_needed (call, 0)
      && (input_grads[0] = ep_tensor_conv2d (g, w, CONV_ARGS (a), error)) == NULL)
    return FALSE;
  if (ep_grad_needed (call, 1)
      && (input_grads[1] = ep_conv2d_weight_grad (g, dy, w->layout.shape, 4, CONV_ARGS (a), error)) == NULL)
    return FALSE;
  return TRUE;
}

/* dw = weight_grad (x, dy) is the adjoint of conv2d in w: with g the
 * gradient of dw, dx = input_grad (dy, g) and d(dy) = conv2d (x, g) */
static gboolean
conv2d_weight_grad_gradient (const EpOpCall   *call,
                             EpTensor *const  *output_grads,
                             EpTensor        **input_grads,
                             GError          **error)
{
  EpTensor *x = call->inputs[0], *dy = call->inputs[1], *g = output_grads[0];
  ConvArgs a = conv_args (call);

  if (ep_grad_needed (call, 0)
      && (input_grads[0] = ep_conv2d_input_grad (dy, g, x->layout.shape, 4, CONV_ARGS (a), error)) == NULL)
    return FALSE;
  if (ep_grad_needed (call, 1)
      && (input_grads[1] = ep_tensor_conv2d (x, g, CONV_ARGS (a), error)) == NULL)
    return FALSE;
  return TRUE;
}

#define CONV_ATTRS                                                          \
  EP_ATTR ("strides", EP_ATTR_INTS, EP_LIST_FIELD (conv.strides, conv.n_strides), \
           .flags = EP_ATTR_NULLABLE),                                      \
  EP_ATTR ("padding", EP_ATTR_INTS, EP_LIST_FIELD (conv.padding, conv.n_padding), \
           .flags = EP_ATTR_NULLABLE),                                      \
  EP_ATTR ("dilation", EP_ATTR_INTS, EP_LIST_FIELD (conv.dilation, conv.n_dilation), \
           .flags = EP_ATTR_NULLABLE),                                      \
  EP_ATTR ("groups", EP_ATTR_INT, EP_FIELD (conv.groups), EP_DEFAULT (1)),  \
  EP_ATTR ("data_format", EP_ATTR_ENUM, EP_FIELD (conv.data_format),        \
           EP_DEFAULT (EP_DATA_FORMAT_NCHW), .enum_type = ep_data_format_get_type)

const EpOpDef ep_op_conv2d = {
  .id = EP_OP_CONV2D, .name = "conv2d",
  EP_INPUTS (EP_INPUT ("self"), EP_INPUT ("weight")),
  EP_ATTRS (CONV_ATTRS),
  .infer = conv_infer,
  .gradient = conv2d_gradient,
};

const EpOpDef ep_op_conv2d_input_grad = {
  .id = EP_OP_CONV2D_INPUT_GRAD, .name = "conv2d_input_grad",
  EP_INPUTS (EP_INPUT ("output_grad"), EP_INPUT ("weight")),
  EP_ATTRS (EP_ATTR ("input_shape", EP_ATTR_SHAPE, EP_LIST_FIELD (shape, ndim)),
            CONV_ATTRS),
  .infer = conv_infer,
  .gradient = conv2d_input_grad_gradient,
};

const EpOpDef ep_op_conv2d_weight_grad = {
  .id = EP_OP_CONV2D_WEIGHT_GRAD, .name = "conv2d_weight_grad",
  EP_INPUTS (EP_INPUT ("input"), EP_INPUT ("output_grad")),
  EP_ATTRS (EP_ATTR ("weight_shape", EP_ATTR_SHAPE, EP_LIST_FIELD (shape, ndim)),
            CONV_ATTRS),
  .infer = conv_infer,
  .gradient = conv2d_weight_grad_gradient,
};

static void
set_conv_attrs (EpOpAttrs    *attrs,
                const gint64 *strides,
                guint         n_strides,
                const gint64 *padding,
                guint         n_padding,
                const gint64 *dilation,
                guint         n_dilation,
                gint64        groups,
                EpDataFormat  data_format)
{
  ep_op_attrs_set_list (attrs->conv.strides, attrs->conv.n_strides, strides, n_strides);
  ep_op_attrs_set_list (attrs->conv.padding, attrs->conv.n_padding, padding, n_padding);
  ep_op_attrs_set_list (attrs->conv.dilation, attrs->conv.n_dilation, dilation, n_dilation);
  attrs->conv.groups = groups;
  attrs->conv.data_format = data_format;
}

/**
 * ep_tensor_conv2d:
 * @self: the images: (batch, channels, height, width), or (batch,
 *   height, width, channels) for %EP_DATA_FORMAT_NHWC; float32 or float64
 * @weight: the filters: (out channels, channels / @groups, kernel height,
 *   kernel width) whatever @data_format
 * @strides: (array length=n_strides) (nullable): the steps between
 *   outputs, (height, width) or one for both; positive; %NULL for 1
 * @n_strides: the length of @strides: 0, 1 or 2
 * @padding: (array length=n_padding) (nullable): the zeros added on each
 *   side, (height, width) or one for both; %NULL for none
 * @n_padding: the length of @padding: 0, 1 or 2
 * @dilation: (array length=n_dilation) (nullable): the spacing of the
 *   kernel's taps, (height, width) or one for both; positive; %NULL for 1
 * @n_dilation: the length of @dilation: 0, 1 or 2
 * @groups: the number of groups, which divides the input and the output
 *   channels: group g's outputs see only group g's inputs
 * @data_format: the layout of @self and of the result
 * @error: return location for an error
 *
 * The 2-D convolution (cross-correlation, as in deep learning) of a batch
 * of images with a bank of filters, as `torch.nn.functional.conv2d`
 * without its bias (add one by broadcasting). The output has
 * `(h + 2 padding - dilation (k - 1) - 1) / stride + 1` rows and likewise
 * columns, in the layout of @self. A float32 and a float64 operand
 * compute in float64. Its gradients are [func@conv2d_input_grad] and
 * [func@conv2d_weight_grad]. On the CPU, float32 runs on oneDNN.
 *
 * Returns: (transfer full): the convolution, or %NULL with
 *   %EP_ERROR_DTYPE set for integer or bool operands, %EP_ERROR_SHAPE if
 *   an operand is not 4-D, the channels do not match the weight and the
 *   groups, or the kernel is larger than the padded images, or
 *   %EP_ERROR_INVALID_ARGUMENT for strides or dilation below 1, negative
 *   padding or fewer than one group
 */
EpTensor *
ep_tensor_conv2d (EpTensor      *self,
                  EpTensor      *weight,
                  const gint64  *strides,
                  guint          n_strides,
                  const gint64  *padding,
                  guint          n_padding,
                  const gint64  *dilation,
                  guint          n_dilation,
                  gint64         groups,
                  EpDataFormat   data_format,
                  GError       **error)
{
  EpTensor *inputs[2] = { self, weight };
  EpOpAttrs attrs;

  g_return_val_if_fail (EP_IS_TENSOR (self), NULL);
  g_return_val_if_fail (EP_IS_TENSOR (weight), NULL);

  ep_op_attrs_init (&attrs);
  set_conv_attrs (&attrs, strides, n_strides, padding, n_padding, dilation, n_dilation,
                  groups, data_format);
  return ep_dispatch1 (&ep_op_conv2d, inputs, 2, &attrs, error);
}

/**
 * ep_conv2d_input_grad:
 * @output_grad: the gradient of a [method@Tensor.conv2d]'s output
 * @weight: the convolution's weight
 * @input_shape: (array length=n_input_shape): the shape of the
 *   convolution's images
 * @n_input_shape: the length of @input_shape: 4
 * @strides: (array length=n_strides) (nullable): as for [method@Tensor.conv2d]
 * @n_strides: the length of @strides
 * @padding: (array length=n_padding) (nullable): as for [method@Tensor.conv2d]
 * @n_padding: the length of @padding
 * @dilation: (array length=n_dilation) (nullable): as for [method@Tensor.conv2d]
 * @n_dilation: the length of @dilation
 * @groups: as for [method@Tensor.conv2d]
 * @data_format: as for [method@Tensor.conv2d]
 * @error: return location for an error
 *
 * The gradient of a convolution with respect to its images (TensorFlow's
 * `conv2d_backprop_input`, a transposed convolution): the images' shape
 * is needed, as several give the same output shape when a stride is
 * above 1. Linear in each operand; its own gradients are
 * [method@Tensor.conv2d] and [func@conv2d_weight_grad].
 *
 * Returns: (transfer full): the gradient, shaped @input_shape, or %NULL
 *   with an error as [method@Tensor.conv2d]'s, or %EP_ERROR_SHAPE if
 *   @output_grad is not shaped like the convolution's output
 */
EpTensor *
ep_conv2d_input_grad (EpTensor      *output_grad,
                      EpTensor      *weight,
                      const gint64  *input_shape,
                      guint          n_input_shape,
                      const gint64  *strides,
                      guint          n_strides,
                      const gint64  *padding,
                      guint          n_padding,
                      const gint64  *dilation,
                      guint          n_dilation,
                      gint64         groups,
                      EpDataFormat   data_format,
                      GError       **error)
{
  EpTensor *inputs[2] = { output_grad, weight };
  EpOpAttrs attrs;

  g_return_val_if_fail (EP_IS_TENSOR (output_grad), NULL);
  g_return_val_if_fail (EP_IS_TENSOR (weight), NULL);
  g_return_val_if_fail (input_shape != NULL || n_input_shape == 0, NULL);

  ep_op_attrs_init (&attrs);
  ep_op_attrs_set_list (attrs.shape, attrs.ndim, input_shape, n_input_shape);
  set_conv_attrs (&attrs, strides, n_strides, padding, n_padding, dilation, n_dilation,
                  groups, data_format);
  return ep_dispatch1 (&ep_op_conv2d_input_grad, inputs, 2, &attrs, error);
}

/**
 * ep_conv2d_weight_grad:
 * @input: the convolution's images
 * @output_grad: the gradient of a [method@Tensor.conv2d]'s output
 * @weight_shape: (array length=n_weight_shape): the shape of the
 *   convolution's weight
 * @n_weight_shape: the length of @weight_shape: 4
 * @strides: (array length=n_strides) (nullable): as for [method@Tensor.conv2d]
 * @n_strides: the length of @strides
 * @padding: (array length=n_padding) (nullable): as for [method@Tensor.conv2d]
 * @n_padding: the length of @padding
 * @dilation: (array length=n_dilation) (nullable): as for [method@Tensor.conv2d]
 * @n_dilation: the length of @dilation
 * @groups: as for [method@Tensor.conv2d]
 * @data_format: as for [method@Tensor.conv2d]
 * @error: return location for an error
 *
 * The gradient of a convolution with respect to its weight (TensorFlow's
 * `conv2d_backprop_filter`), summed over the batch. Linear in each
 * operand; its own gradients are [func@conv2d_input_grad] and
 * [method@Tensor.conv2d].
 *
 * Returns: (transfer full): the gradient, shaped @weight_shape, or %NULL
 *   with an error as [method@Tensor.conv2d]'s, or %EP_ERROR_SHAPE if
 *   @output_grad is not shaped like the convolution's output
 */
EpTensor *
ep_conv2d_weight_grad (EpTensor      *input,
                       EpTensor      *output_grad,
                       const gint64  *weight_shape,
                       guint          n_weight_shape,
                       const gint64  *strides,
                       guint          n_strides,
                       const gint64  *padding,
                       guint          n_padding,
                       const gint64  *dilation,
                       guint          n_dilation,
                       gint64         groups,
                       EpDataFormat   data_format,
                       GError       **error)
{
  EpTensor *inputs[2] = { input, output_grad };
  EpOpAttrs attrs;

  g_return_val_if_fail (EP_IS_TENSOR (input), NULL);
  g_return_val_if_fail (EP_IS_TENSOR (output_grad), NULL);
  g_return_val_if_fail (weight_shape != NULL || n_weight_shape == 0, NULL);

  ep_op_attrs_init (&attrs);
  ep_op_attrs_set_list (attrs.shape, attrs.ndim, weight_shape, n_weight_shape);
  set_conv_attrs (&attrs, strides, n_strides, padding, n_padding, dilation, n_dilation,
                  groups, data_format);
  return ep_dispatch1 (&ep_op_conv2d_weight_grad, inputs, 2, &attrs, error);
}
