/* ops/pool.c: max_pool2d, avg_pool2d, their gradients, max_pool2d_indices
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * PyTorch's pooling, exactly (torch.nn.functional.max_pool2d and
 * avg_pool2d): windows of kernel_size taps (dilated for max) every
 * strides elements over the input padded by padding on both sides
 * (-inf for max, zeros counted or not for avg), an output size rounded
 * down, or up with ceil_mode as long as the last window starts inside
 * the input or its left padding. Max propagates NaN; the window's
 * argmax is the first largest element in window order (row by row), or
 * the last NaN, as PyTorch's CPU kernel picks it.
 *
 * Gradients. max_pool2d_grad (x, g) sends each output gradient to its
 * window's argmax, which it recomputes from x rather than keeping the
 * indices of the forward pass: the forward op stays one output (no
 * index tensor twice the size of the result written at every inference
 * call), the backward kernel reads x once more, and staged and eager
 * backward passes need nothing kept besides x. max_pool2d_grad is
 * linear in g; its adjoint gathers at the same argmax, which is
 * take_along_axis with max_pool2d_indices (x) (PyTorch's return_indices).
 * avg_pool2d_grad spreads each output gradient over its window divided
 * by the window's divisor; it is linear and its adjoint is avg_pool2d.
 * So second derivatives work through both.
 */

#include "config.h"

#include <glib/gi18n-lib.h>
#include <inttypes.h>
#include <string.h>

#include "ep-dispatch-private.h"
#include "ep-enum-types.h"
#include "ep-error.h"
#include "ep-grad-private.h"
#include "ep-pool.h"
#include "ep-pool-private.h"

/* The list attributes as (height, width) pairs: one value stands for
 * both, none for @fallback (NULL: the list is required). */
static gboolean
canonical_pair (const EpOpCall *call,
                const char     *name,
                gint64         *values,
                guint          *n_values,
                const gint64   *fallback,
                GError        **error)
{
  if (*n_values == 0 && fallback != NULL)
    memcpy (values, fallback, 2 * sizeof (gint64));
  else if (*n_values == 1)
    values[1] = values[0];
  else if (*n_values != 2)
    {
      g_set_error (error, EP_ERROR, EP_ERROR_INVALID_ARGUMENT,
                   _("%s: %s takes 1 or 2 values (height and width), %u given"),
                   call->op->name, name, *n_values);
      return FALSE;
    }
  *n_values = 2;
  return TRUE;
}

static gboolean
check_at_least (const EpOpCall *call,
                const char     *name,
                const gint64   *values,
                gint64          least,
                GError        **error)
{
  if (values[0] >= least && values[1] >= least)
    return TRUE;
  g_set_error (error, EP_ERROR, EP_ERROR_INVALID_ARGUMENT,
               _("%s: %s must be at least %" PRId64 " (%" PRId64 ", %" PRId64 " given)"),
               call->op->name, name, least, values[0], values[1]);
  return FALSE;
}

/* PyTorch's pooling_output_shape, in checked arithmetic: FALSE when a
 * step overflows (sizes no input can have). */
static gboolean
output_extent (gint64    in,
               gint64    kernel,
               gint64    stride,
               gint64    pad,
               gint64    dilation,
               gboolean  ceil_mode,
               gint64   *out)
{
  gint64 span, padded, reach, num, q;

  /* the window's span, the padded extent, and the last tap of the
   * last window (in + pad + stride) stay in range */
  if (__builtin_mul_overflow (dilation, kernel - 1, &span)
      || __builtin_add_overflow (in, 2 * pad, &padded)
      || __builtin_add_overflow (in + pad, stride, &reach))
    return FALSE;
  num = padded - span - 1;
  if (ceil_mode && __builtin_add_overflow (num, stride - 1, &num))
    return FALSE;

  q = num / stride;
  if (num % stride != 0 && num < 0)
    q--;
  *out = q + 1;
  /* the last window must start inside the input or its left padding */
  if (ceil_mode && (*out - 1) * stride >= in + pad)
    (*out)--;
  return TRUE;
}

/* Extents of a 4-d shape by the data format */
static void
image_extents (const gint64 *shape,
               EpDataFormat  format,
               gint64       *batch,
               gint64       *channels,
               gint64       *height,
               gint64       *width)
{
  *batch = shape[0];
  *channels = format == EP_DATA_FORMAT_NHWC ? shape[3] : shape[1];
  *height = format == EP_DATA_FORMAT_NHWC ? shape[1] : shape[2];
  *width = format == EP_DATA_FORMAT_NHWC ? shape[2] : shape[3];
}

void
ep_pool_geometry (const EpOpCall  *call,
                  const gint64    *input_shape,
                  EpPoolGeometry  *g)
{
  const EpOpAttrs *attrs = &call->attrs;

  g->format = attrs->pool.format;
  image_extents (input_shape, g->format, &g->batch, &g->channels, &g->height, &g->width);
  g->kernel_h = attrs->pool.kernel[0];
  g->kernel_w = attrs->pool.kernel[1];
  g->stride_h = attrs->pool.strides[0];
  g->stride_w = attrs->pool.strides[1];
  g->pad_h = attrs->pool.padding[0];
  g->pad_w = attrs->pool.padding[1];
  g->dilation_h = attrs->pool.dilation[0];
  g->dilation_w = attrs->pool.dilation[1];
  g->count_include_pad = attrs->pool.count_include_pad;
  output_extent (g->height, g->kernel_h, g->stride_h, g->pad_h, g->dilation_h,
                 attrs->pool.ceil_mode, &g->out_height);
  output_extent (g->width, g->kernel_w, g->stride_w, g->pad_w, g->dilation_w,
                 attrs->pool.ceil_mode, &g->out_width);
}

static gboolean
check_floating (const EpOpCall *call,
                EpDType         dtype,
                GError        **error)
{
  return ep_dtype_is_floating (dtype) || ep_op_error_dtype (call, dtype, error);
}

/* Checks a call's attributes against an input of @input_shape (@ndim
 * dimensions), makes them canonical, and gives the output's shape. */
static gboolean
pool_prepare (EpOpCall      *call,
              const gint64  *input_shape,
              guint          ndim,
              gint64        *out_shape,
              GError       **error)
{
  static const gint64 zeros[2] = { 0, 0 }, ones[2] = { 1, 1 };
  EpOpAttrs *attrs = &call->attrs;
  const char *name = call->op->name;
  gint64 batch, channels, height, width, out_h, out_w;
  gboolean max = call->op->id == EP_OP_MAX_POOL2D || call->op->id == EP_OP_MAX_POOL2D_GRAD
                 || call->op->id == EP_OP_MAX_POOL2D_INDICES;

  if (ndim != 4)
    {
      g_set_error (error, EP_ERROR, EP_ERROR_SHAPE,
                   g_dngettext (GETTEXT_PACKAGE,
                                "%s: takes images as a tensor of 4 dimensions, not %u dimension",
                                "%s: takes images as a tensor of 4 dimensions, not %u dimensions",
                                ndim),
                   name, ndim);
      return FALSE;
    }

  if (!max)
    {
      attrs->pool.dilation[0] = attrs->pool.dilation[1] = 1;
      attrs->pool.n_dilation = 2;
    }
  if (!canonical_pair (call, "kernel_size", attrs->pool.kernel, &attrs->pool.n_kernel, NULL, error)
      || !canonical_pair (call, "strides", attrs->pool.strides, &attrs->pool.n_strides,
                          attrs->pool.kernel, error)
      || !canonical_pair (call, "padding", attrs->pool.padding, &attrs->pool.n_padding, zeros, error)
      || !canonical_pair (call, "dilation", attrs->pool.dilation, &attrs->pool.n_dilation, ones, error)
      || !check_at_least (call, "kernel_size", attrs->pool.kernel, 1, error)
      || !check_at_least (call, "strides", attrs->pool.strides, 1, error)
      || !check_at_least (call, "dilation", attrs->pool.dilation, 1, error)
      || !check_at_least (call, "padding", attrs->pool.padding, 0, error))
    return FALSE;

  if (attrs->pool.padding[0] > attrs->pool.kernel[0] / 2
      || attrs->pool.padding[1] > attrs->pool.kernel[1] / 2)
    {
      g_set_error (error, EP_ERROR, EP_ERROR_INVALID_ARGUMENT,
                   _("%s: padding (%" PRId64 ", %" PRId64 ") must be at most half the kernel size (%" PRId64 ", %" PRId64 ")"),
                   name, attrs->pool.padding[0], attrs->pool.padding[1],
                   attrs->pool.kernel[0], attrs->pool.kernel[1]);
      return FALSE;
    }

  image_extents (input_shape, attrs->pool.format, &batch, &channels, &height, &width);
  if (height < 1 || width < 1)
    {
      g_set_error (error, EP_ERROR, EP_ERROR_SHAPE,
                   _("%s: the images are empty (height %" PRId64 ", width %" PRId64 ")"),
                   name, height, width);
      return FALSE;
    }

  if (!output_extent (height, attrs->pool.kernel[0], attrs->pool.strides[0], attrs->pool.padding[0],
                      attrs->pool.dilation[0], attrs->pool.ceil_mode, &out_h)
      || !output_extent (width, attrs->pool.kernel[1], attrs->pool.strides[1], attrs->pool.padding[1],
                         attrs->pool.dilation[1], attrs->pool.ceil_mode, &out_w))
    {
      g_set_error (error, EP_ERROR, EP_ERROR_INVALID_ARGUMENT,
                   _("%s: the window's sizes are too large"), name);
      return FALSE;
    }
  if (out_h < 1 || out_w < 1)
    {
      g_set_error (error, EP_ERROR, EP_ERROR_SHAPE,
                   _("%s: the window does not fit in the padded images of height %" PRId64 " and width %" PRId64 " (output %" PRId64 "×%" PRId64 ")"),
                   name, height, width, out_h, out_w);
      return FALSE;
    }

  out_shape[0] = batch;
  if (attrs->pool.format == EP_DATA_FORMAT_NHWC)
    {
      out_shape[1] = out_h;
      out_shape[2] = out_w;
      out_shape[3] = channels;
    }
  else
    {
      out_shape[1] = channels;
      out_shape[2] = out_h;
      out_shape[3] = out_w;
    }
  return TRUE;
}

/* max_pool2d, avg_pool2d, max_pool2d_indices: self */
static gboolean
pool_infer (EpOpCall  *call,
            GError   **error)
{
  const EpLayout *in = &call->inputs[0]->layout;
  gint64 shape[4];

  if (!check_floating (call, in->dtype, error)
      || !pool_prepare (call, in->shape, in->ndim, shape, error))
    return FALSE;

  call->contiguous_inputs = 1;
  ep_op_set_output (call, call->op->id == EP_OP_MAX_POOL2D_INDICES ? EP_DTYPE_INT64 : in->dtype,
                    shape, 4);
  return TRUE;
}

static gboolean
check_gradient_shape (const EpOpCall *call,
                      const EpLayout *grad,
                      const gint64   *expected,
                      GError        **error)
{
  g_autofree char *given = NULL, *wanted = NULL;

  if (grad->ndim == 4 && memcmp (grad->shape, expected, 4 * sizeof (gint64)) == 0)
    return TRUE;
  given = ep_shape_to_string (grad->shape, grad->ndim);
  wanted = ep_shape_to_string (expected, 4);
  g_set_error (error, EP_ERROR, EP_ERROR_SHAPE,
               _("%s: the gradient has shape %s, the pooling's output %s"),
               call->op->name, given, wanted);
  return FALSE;
}

/* max_pool2d_grad: self (the pooling's input), grad (its output's) */
static gboolean
max_pool2d_grad_infer (EpOpCall  *call,
                       GError   **error)
{
  const EpLayout *in = &call->inputs[0]->layout;
  const EpLayout *grad = &call->inputs[1]->layout;
  EpDType dtype = ep_op_result_dtype (call->inputs, 2);
  gint64 shape[4];

  if (!check_floating (call, in->dtype, error)
      || !check_floating (call, grad->dtype, error)
      || !pool_prepare (call, in->shape, in->ndim, shape, error)
      || !check_gradient_shape (call, grad, shape, error))
    return FALSE;

  ep_op_cast_all_inputs (call, dtype);
  call->contiguous_inputs = 3;
  ep_op_set_output (call, dtype, in->shape, 4);
  return TRUE;
}

/* avg_pool2d_grad: grad, and the input's shape in attrs.shape */
static gboolean
avg_pool2d_grad_infer (EpOpCall  *call,
                       GError   **error)
{
  const EpLayout *grad = &call->inputs[0]->layout;
  EpLayout input;
  gint64 shape[4];

  if (!check_floating (call, grad->dtype, error)
      || !ep_layout_init (&input, grad->dtype, call->attrs.shape, call->attrs.ndim,
                          call->op->name, error)
      || !pool_prepare (call, input.shape, input.ndim, shape, error)
      || !check_gradient_shape (call, grad, shape, error))
    return FALSE;

  call->contiguous_inputs = 1;
  ep_op_set_output (call, grad->dtype, input.shape, 4);
  return TRUE;
}

/* The pooling attributes as one call's, for a call of another pooling op */
static EpTensor *
pool_dispatch (const EpOpDef   *op,
               const EpOpCall  *call,
               EpTensor *const *inputs,
               guint            n_inputs,
               const gint64    *input_shape,
               GError         **error)
{
  EpOpAttrs attrs = call->attrs;

  if (input_shape != NULL)
    ep_op_attrs_set_list (attrs.shape, attrs.ndim, input_shape, 4);
  return ep_dispatch1 (op, inputs, n_inputs, &attrs, error);
}

static gboolean
max_pool2d_gradient (const EpOpCall  *call,
                     EpTensor *const *output_grads,
                     EpTensor       **input_grads,
                     GError         **error)
{
  EpTensor *inputs[2] = { call->inputs[0], output_grads[0] };

  if (!ep_grad_needed (call, 0))
    return TRUE;
  input_grads[0] = pool_dispatch (&ep_op_max_pool2d_grad, call, inputs, 2, NULL, error);
  return input_grads[0] != NULL;
}

static gboolean
avg_pool2d_gradient (const EpOpCall  *call,
                     EpTensor *const *output_grads,
                     EpTensor       **input_grads,
                     GError         **error)
{
  if (!ep_grad_needed (call, 0))
    return TRUE;
  input_grads[0] = pool_dispatch (&ep_op_avg_pool2d_grad, call, output_grads, 1,
                                  call->inputs[0]->layout.shape, error);
  return input_grads[0] != NULL;
}

/* Whether some window has no tap inside the image: possible with a
 * dilation (taps that step over the image), never without */
static gboolean
has_empty_windows (const EpPoolGeometry *g)
{
  gint64 first, end;

  for (gint64 o = 0; o < g->out_height; o++)
    {
      ep_pool_taps (o * g->stride_h - g->pad_h, g->kernel_h, g->dilation_h, g->height, &first, &end);
      if (first >= end)
        return TRUE;
    }
  for (gint64 o = 0; o < g->out_width; o++)
    {
      ep_pool_taps (o * g->stride_w - g->pad_w, g->kernel_w, g->dilation_w, g->width, &first, &end);
      if (first >= end)
        return TRUE;
    }
  return FALSE;
}

/* max_pool2d_grad (x, g) is piecewise constant in x (no gradient) and
 * linear in g: its adjoint reads the incoming gradient at each window's
 * argmax, a take_along_axis over the flattened image with
 * max_pool2d_indices (x). */
static gboolean
max_pool2d_grad_gradient (const EpOpCall  *call,
                          EpTensor *const *output_grads,
                          EpTensor       **input_grads,
                          GError         **error)
{
  EpPoolGeometry g;
  gboolean nhwc = call->attrs.pool.format == EP_DATA_FORMAT_NHWC;
  gint64 image_shape[3], index_shape[3], out_shape[4];
  g_autoptr(EpTensor) indices = NULL;
  g_autoptr(EpTensor) flat_indices = NULL;
  g_autoptr(EpTensor) flat_grad = NULL;
  g_autoptr(EpTensor) gathered = NULL;

  if (!ep_grad_needed (call, 1))
    return TRUE;

  ep_pool_geometry (call, call->inputs[0]->layout.shape, &g);
  memcpy (out_shape, call->inputs[1]->layout.shape, sizeof out_shape);
  image_shape[0] = index_shape[0] = g.batch;
  image_shape[nhwc ? 2 : 1] = index_shape[nhwc ? 2 : 1] = g.channels;
  image_shape[nhwc ? 1 : 2] = g.height * g.width;
  index_shape[nhwc ? 1 : 2] = g.out_height * g.out_width;

  indices = pool_dispatch (&ep_op_max_pool2d_indices, call, call->inputs, 1, NULL, error);
  flat_indices = indices != NULL ? ep_tensor_reshape (indices, index_shape, 3, error) : NULL;
  flat_grad = flat_indices != NULL ? ep_tensor_reshape (output_grads[0], image_shape, 3, error) : NULL;
  gathered = flat_grad != NULL
             ? ep_tensor_take_along_axis (flat_grad, flat_indices, nhwc ? 1 : 2, error) : NULL;
  if (gathered == NULL)
    return FALSE;
  if (has_empty_windows (&g))
    {
      /* such a window's index is -1 and sent nothing: it gets nothing */
      g_autoptr(EpTensor) found = ep_tensor_greater_equal_scalar (flat_indices, 0, error);
      g_autoptr(EpTensor) zeros = found != NULL ? ep_tensor_zeros_like (gathered, error) : NULL;
      EpTensor *kept = zeros != NULL ? ep_tensor_where (found, gathered, zeros, error) : NULL;

      if (kept == NULL)
        return FALSE;
      g_object_unref (gathered);
      gathered = kept;
    }
  input_grads[1] = ep_tensor_reshape (gathered, out_shape, 4, error);
  return input_grads[1] != NULL;
}

static gboolean
avg_pool2d_grad_gradient (const EpOpCall  *call,
                          EpTensor *const *output_grads,
                          EpTensor       **input_grads,
                          GError         **error)
{
  if (!ep_grad_needed (call, 0))
    return TRUE;
  input_grads[0] = pool_dispatch (&ep_op_avg_pool2d, call, output_grads, 1, NULL, error);
  return input_grads[0] != NULL;
}

#define POOL_WINDOW_ATTRS                                                   \
  EP_ATTR ("kernel_size", EP_ATTR_INTS, EP_LIST_FIELD (pool.kernel, pool.n_kernel)), \
  EP_ATTR ("strides", EP_ATTR_INTS, EP_LIST_FIELD (pool.strides, pool.n_strides), \
           .flags = EP_ATTR_NULLABLE),                                      \
  EP_ATTR ("padding", EP_ATTR_INTS, EP_LIST_FIELD (pool.padding, pool.n_padding), \
           .flags = EP_ATTR_NULLABLE)
#define POOL_MAX_ATTRS                                                      \
  POOL_WINDOW_ATTRS,                                                        \
  EP_ATTR ("dilation", EP_ATTR_INTS, EP_LIST_FIELD (pool.dilation, pool.n_dilation), \
           .flags = EP_ATTR_NULLABLE),                                      \
  EP_ATTR ("ceil_mode", EP_ATTR_BOOL, EP_FIELD (pool.ceil_mode), EP_DEFAULT (FALSE)), \
  POOL_FORMAT_ATTR
#define POOL_AVG_ATTRS                                                      \
  POOL_WINDOW_ATTRS,                                                        \
  EP_ATTR ("ceil_mode", EP_ATTR_BOOL, EP_FIELD (pool.ceil_mode), EP_DEFAULT (FALSE)), \
  EP_ATTR ("count_include_pad", EP_ATTR_BOOL, EP_FIELD (pool.count_include_pad), \
           EP_DEFAULT (TRUE)),                                              \
  POOL_FORMAT_ATTR
#define POOL_FORMAT_ATTR                                                    \
  EP_ATTR ("data_format", EP_ATTR_ENUM, EP_FIELD (pool.format),            \
           EP_DEFAULT (EP_DATA_FORMAT_NCHW), .enum_type = ep_data_format_get_type)

const EpOpDef ep_op_max_pool2d = {
  .id = EP_OP_MAX_POOL2D, .name = "max_pool2d",
  EP_INPUTS (EP_INPUT ("self")),
  EP_ATTRS (POOL_MAX_ATTRS),
  .infer = pool_infer,
  .gradient = max_pool2d_gradient,
};

const EpOpDef ep_op_avg_pool2d = {
  .id = EP_OP_AVG_POOL2D, .name = "avg_pool2d",
  EP_INPUTS (EP_INPUT ("self")),
  EP_ATTRS (POOL_AVG_ATTRS),
  .infer = pool_infer,
  .gradient = avg_pool2d_gradient,
};

const EpOpDef ep_op_max_pool2d_grad = {
  .id = EP_OP_MAX_POOL2D_GRAD, .name = "max_pool2d_grad",
  EP_INPUTS (EP_INPUT ("self"), EP_INPUT ("grad")),
  EP_ATTRS (POOL_MAX_ATTRS),
  .infer = max_pool2d_grad_infer,
  .gradient = max_pool2d_grad_gradient,
};

const EpOpDef ep_op_avg_pool2d_grad = {
  .id = EP_OP_AVG_POOL2D_GRAD, .name = "avg_pool2d_grad",
  EP_INPUTS (EP_INPUT ("grad")),
  EP_ATTRS (EP_ATTR ("input_shape", EP_ATTR_SHAPE, EP_LIST_FIELD (shape, ndim)),
            POOL_AVG_ATTRS),
  .infer = avg_pool2d_grad_infer,
  .gradient = avg_pool2d_grad_gradient,
};

const EpOpDef ep_op_max_pool2d_indices = {
  .id = EP_OP_MAX_POOL2D_INDICES, .name = "max_pool2d_indices",
  EP_INPUTS (EP_INPUT ("self")),
  EP_ATTRS (POOL_MAX_ATTRS),
  .infer = pool_infer,
};

/* Public functions */

static void
pool_attrs_init (EpOpAttrs    *attrs,
                 const gint64 *kernel_size,
                 guint         n_kernel_size,
                 const gint64 *strides,
                 guint         n_strides,
                 const gint64 *padding,
                 guint         n_padding,
                 const gint64 *dilation,
                 guint         n_dilation,
                 gboolean      ceil_mode,
                 gboolean      count_include_pad,
                 EpDataFormat  data_format)
{
  ep_op_attrs_init (attrs);
  ep_op_attrs_set_list (attrs->pool.kernel, attrs->pool.n_kernel, kernel_size, n_kernel_size);
  ep_op_attrs_set_list (attrs->pool.strides, attrs->pool.n_strides, strides, n_strides);
  ep_op_attrs_set_list (attrs->pool.padding, attrs->pool.n_padding, padding, n_padding);
  ep_op_attrs_set_list (attrs->pool.dilation, attrs->pool.n_dilation, dilation, n_dilation);
  attrs->pool.ceil_mode = ceil_mode;
  attrs->pool.count_include_pad = count_include_pad;
  attrs->pool.format = data_format;
}

#define POOL_LISTS_OK                                                       \
  (kernel_size != NULL || n_kernel_size == 0)                               \
  && (strides != NULL || n_strides == 0)                                    \
  && (padding != NULL || n_padding == 0)

/**
 * ep_tensor_max_pool2d:
 * @self: images, float32 or float64, in @data_format
 * @kernel_size: (array length=n_kernel_size): the window's height and
 *   width, or one value for both
 * @n_kernel_size: 1 or 2
 * @strides: (array length=n_strides) (nullable): the steps between
 *   windows, or one value for both; %NULL for @kernel_size
 * @n_strides: 0, 1 or 2
 * @padding: (array length=n_padding) (nullable): the implicit -inf
 *   padding on both sides of each image, at most half the kernel; %NULL
 *   for none
 * @n_padding: 0, 1 or 2
 * @dilation: (array length=n_dilation) (nullable): the step between the
 *   taps of a window; %NULL for 1
 * @n_dilation: 0, 1 or 2
 * @ceil_mode: round the output size up, not down (the last window must
 *   still start inside the image or its left padding)
 * @data_format: the order of @self's dimensions, and the output's
 * @error: return location for an error
 *
 * 2-D max pooling, as PyTorch's `torch.nn.functional.max_pool2d`: each
 * output element is the largest element of its window, NaN if the
 * window has one. Its gradient is [method@Tensor.max_pool2d_grad].
 *
 * Returns: (transfer full): the pooled images, of @self's type, or
 *   %NULL with %EP_ERROR_DTYPE set for an integer or boolean tensor,
 *   %EP_ERROR_SHAPE if @self does not have 4 dimensions, its images are
 *   empty or the window does not fit, or %EP_ERROR_INVALID_ARGUMENT for
 *   a list of another length, a kernel size, stride or dilation below 1,
 *   or a negative padding or one above half the kernel
 */
EpTensor *
ep_tensor_max_pool2d (EpTensor      *self,
                      const gint64  *kernel_size,
                      guint          n_kernel_size,
                      const gint64  *strides,
                      guint          n_strides,
                      const gint64  *padding,
                      guint          n_padding,
                      const gint64  *dilation,
                      guint          n_dilation,
                      gboolean       ceil_mode,
                      EpDataFormat   data_format,
                      GError       **error)
{
  EpOpAttrs attrs;

  g_return_val_if_fail (EP_IS_TENSOR (self), NULL);
  g_return_val_if_fail (POOL_LISTS_OK && (dilation != NULL || n_dilation == 0), NULL);

  pool_attrs_init (&attrs, kernel_size, n_kernel_size, strides, n_strides, padding, n_padding,
                   dilation, n_dilation, ceil_mode, TRUE, data_format);
  return ep_dispatch1 (&ep_op_max_pool2d, &self, 1, &attrs, error);
}

/**
 * ep_tensor_avg_pool2d:
 * @self: images, float32 or float64, in @data_format
 * @kernel_size: (array length=n_kernel_size): the window's height and
 *   width, or one value for both
 * @n_kernel_size: 1 or 2
 * @strides: (array length=n_strides) (nullable): the steps between
 *   windows, or one value for both; %NULL for @kernel_size
 * @n_strides: 0, 1 or 2
 * @padding: (array length=n_padding) (nullable): the implicit zero
 *   padding on both sides of each image, at most half the kernel; %NULL
 *   for none
 * @n_padding: 0, 1 or 2
 * @ceil_mode: round the output size up, not down (the last window must
 *   still start inside the image or its left padding)
 * @count_include_pad: divide by the whole window, padding included
 *   (but never the part of a ceil-mode window past the padding), rather
 *   than by the number of its elements inside the image
 * @data_format: the order of @self's dimensions, and the output's
 * @error: return location for an error
 *
 * 2-D average pooling, as PyTorch's `torch.nn.functional.avg_pool2d`:
 * each output element is the sum of its window divided by the window's
 * size. Its gradient is [func@avg_pool2d_grad].
 *
 * Returns: (transfer full): the pooled images, of @self's type, or
 *   %NULL with the errors of [method@Tensor.max_pool2d]
 */
EpTensor *
ep_tensor_avg_pool2d (EpTensor      *self,
                      const gint64  *kernel_size,
                      guint          n_kernel_size,
                      const gint64  *strides,
                      guint          n_strides,
                      const gint64  *padding,
                      guint          n_padding,
                      gboolean       ceil_mode,
                      gboolean       count_include_pad,
                      EpDataFormat   data_format,
                      GError       **error)
{
  EpOpAttrs attrs;

  g_return_val_if_fail (EP_IS_TENSOR (self), NULL);
  g_return_val_if_fail (POOL_LISTS_OK, NULL);

  pool_attrs_init (&attrs, kernel_size, n_kernel_size, strides, n_strides, padding, n_padding,
                   NULL, 0, ceil_mode, count_include_pad, data_format);
  return ep_dispatch1 (&ep_op_avg_pool2d, &self, 1, &attrs, error);
}

/**
 * ep_tensor_max_pool2d_grad:
 * @self: the images that were pooled
 * @grad: the gradient of the pooled images (shaped like
 *   [method@Tensor.max_pool2d]'s result)
 * @kernel_size: (array length=n_kernel_size): as for
 *   [method@Tensor.max_pool2d]
 * @n_kernel_size: 1 or 2
 * @strides: (array length=n_strides) (nullable): as for
 *   [method@Tensor.max_pool2d]
 * @n_strides: 0, 1 or 2
 * @padding: (array length=n_padding) (nullable): as for
 *   [method@Tensor.max_pool2d]
 * @n_padding: 0, 1 or 2
 * @dilation: (array length=n_dilation) (nullable): as for
 *   [method@Tensor.max_pool2d]
 * @n_dilation: 0, 1 or 2
 * @ceil_mode: as for [method@Tensor.max_pool2d]
 * @data_format: the order of the dimensions of @self and @grad
 * @error: return location for an error
 *
 * The gradient of [method@Tensor.max_pool2d] with respect to @self:
 * each element of @grad goes to its window's largest element of @self
 * (the first in window order among equal ones, or the last NaN) and
 * adds up there; the other elements get zero. The argmax is computed
 * again from @self. The result is linear in @grad and has a gradient
 * of its own, so second derivatives work.
 *
 * Returns: (transfer full): the gradient, shaped like @self, or %NULL
 *   with the errors of [method@Tensor.max_pool2d], or %EP_ERROR_SHAPE if
 *   @grad's shape is not the pooling's output shape
 */
EpTensor *
ep_tensor_max_pool2d_grad (EpTensor      *self,
                           EpTensor      *grad,
                           const gint64  *kernel_size,
                           guint          n_kernel_size,
                           const gint64  *strides,
                           guint          n_strides,
                           const gint64  *padding,
                           guint          n_padding,
                           const gint64  *dilation,
                           guint          n_dilation,
                           gboolean       ceil_mode,
                           EpDataFormat   data_format,
                           GError       **error)
{
  EpOpAttrs attrs;
  EpTensor *inputs[2] = { self, grad };

  g_return_val_if_fail (EP_IS_TENSOR (self), NULL);
  g_return_val_if_fail (EP_IS_TENSOR (grad), NULL);
  g_return_val_if_fail (POOL_LISTS_OK && (dilation != NULL || n_dilation == 0), NULL);

  pool_attrs_init (&attrs, kernel_size, n_kernel_size, strides, n_strides, padding, n_padding,
                   dilation, n_dilation, ceil_mode, TRUE, data_format);
  return ep_dispatch1 (&ep_op_max_pool2d_grad, inputs, 2, &attrs, error);
}

/**
 * ep_avg_pool2d_grad:
 * @grad: the gradient of the pooled images (shaped like
 *   [method@Tensor.avg_pool2d]'s result), float32 or float64
 * @input_shape: (array length=n_input_shape): the shape of the images
 *   that were pooled
 * @n_input_shape: 4
 * @kernel_size: (array length=n_kernel_size): as for
 *   [method@Tensor.avg_pool2d]
 * @n_kernel_size: 1 or 2
 * @strides: (array length=n_strides) (nullable): as for
 *   [method@Tensor.avg_pool2d]
 * @n_strides: 0, 1 or 2
 * @padding: (array length=n_padding) (nullable): as for
 *   [method@Tensor.avg_pool2d]
 * @n_padding: 0, 1 or 2
 * @ceil_mode: as for [method@Tensor.avg_pool2d]
 * @count_include_pad: as for [method@Tensor.avg_pool2d]
 * @data_format: the order of the dimensions of @grad and the result
 * @error: return location for an error
 *
 * The gradient of [method@Tensor.avg_pool2d] with respect to its input:
 * each element of @grad, divided by its window's divisor, is added to
 * every element of its window inside the images. Linear in @grad; its
 * own gradient is [method@Tensor.avg_pool2d].
 *
 * Returns: (transfer full): the gradient, of shape @input_shape, or
 *   %NULL with the errors of [method@Tensor.avg_pool2d], or
 *   %EP_ERROR_SHAPE if @grad's shape is not the pooling's output shape
 */
EpTensor *
ep_avg_pool2d_grad (EpTensor      *grad,
                    const gint64  *input_shape,
                    guint          n_input_shape,
                    const gint64  *kernel_size,
                    guint          n_kernel_size,
                    const gint64  *strides,
                    guint          n_strides,
                    const gint64  *padding,
                    guint          n_padding,
                    gboolean       ceil_mode,
                    gboolean       count_include_pad,
                    EpDataFormat   data_format,
                    GError       **error)
{
  EpOpAttrs attrs;

  g_return_val_if_fail (EP_IS_TENSOR (grad), NULL);
  g_return_val_if_fail (input_shape != NULL || n_input_shape == 0, NULL);
  g_return_val_if_fail (POOL_LISTS_OK, NULL);

  pool_attrs_init (&attrs, kernel_size, n_kernel_size, strides, n_strides, padding, n_padding,
                   NULL, 0, ceil_mode, count_include_pad, data_format);
  ep_op_attrs_set_list (attrs.shape, attrs.ndim, input_shape, n_input_shape);
  return ep_dispatch1 (&ep_op_avg_pool2d_grad, &grad, 1, &attrs, error);
}

/**
 * ep_tensor_max_pool2d_indices:
 * @self: images, float32 or float64, in @data_format
 * @kernel_size: (array length=n_kernel_size): as for
 *   [method@Tensor.max_pool2d]
 * @n_kernel_size: 1 or 2
 * @strides: (array length=n_strides) (nullable): as for
 *   [method@Tensor.max_pool2d]
 * @n_strides: 0, 1 or 2
 * @padding: (array length=n_padding) (nullable): as for
 *   [method@Tensor.max_pool2d]
 * @n_padding: 0, 1 or 2
 * @dilation: (array length=n_dilation) (nullable): as for
 *   [method@Tensor.max_pool2d]
 * @n_dilation: 0, 1 or 2
 * @ceil_mode: as for [method@Tensor.max_pool2d]
 * @data_format: the order of @self's dimensions, and the output's
 * @error: return location for an error
 *
 * Where [method@Tensor.max_pool2d] takes each output element from: its
 * window's argmax as a position in the flattened image, `row * width +
 * column`, as PyTorch's `return_indices=True` gives it (for both data
 * formats); -1 for a window with no element inside the image (which a
 * dilation can make; its maximum is -inf). Not differentiable.
 *
 * Returns: (transfer full): the positions, int64, shaped like the
 *   pooled images, or %NULL with the errors of
 *   [method@Tensor.max_pool2d]
 */
EpTensor *
ep_tensor_max_pool2d_indices (EpTensor      *self,
                              const gint64  *kernel_size,
                              guint          n_kernel_size,
                              const gint64  *strides,
                              guint          n_strides,
                              const gint64  *padding,
                              guint          n_padding,
                              const gint64  *dilation,
                              guint          n_dilation,
                              gboolean       ceil_mode,
                              EpDataFormat   data_format,
                              GError       **error)
{
  EpOpAttrs attrs;

  g_return_val_if_fail (EP_IS_TENSOR (self), NULL);
  g_return_val_if_fail (POOL_LISTS_OK && (dilation != NULL || n_dilation == 0), NULL);

  pool_attrs_init (&attrs, kernel_size, n_kernel_size, strides, n_strides, padding, n_padding,
                   dilation, n_dilation, ceil_mode, TRUE, data_format);
  return ep_dispatch1 (&ep_op_max_pool2d_indices, &self, 1, &attrs, error);
}
