/* ops/conv.c: the conv family: conv2d and its two gradient ops on small
 * hand-checked cases in both float types, both data formats, strided
 * inputs, empty operands, every error path, and their gradients (the
 * gradient ops' own too) against central differences
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "ep-fault-private.h"
#include "ep-test-gradient.h"

static const EpDType float_types[] = { EP_DTYPE_FLOAT32, EP_DTYPE_FLOAT64 };

/* 1 … 9 in a (1, 1, 3, 3) image */
static EpTensor *
image_3x3 (EpDType dtype)
{
  return ep_test_new (dtype, EP_SHAPE (1, 1, 3, 3), EP_VALUES (1, 2, 3, 4, 5, 6, 7, 8, 9));
}

static EpTensor *
ones_2x2 (EpDType dtype)
{
  return ep_test_new (dtype, EP_SHAPE (1, 1, 2, 2), EP_VALUES (1, 1, 1, 1));
}

static void
test_window_sums (void)
{
  for (guint t = 0; t < G_N_ELEMENTS (float_types); t++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(EpTensor) x = image_3x3 (float_types[t]);
      g_autoptr(EpTensor) w = ones_2x2 (float_types[t]);
      g_autoptr(EpTensor) y = ep_tensor_conv2d (x, w, NULL, 0, NULL, 0, NULL, 0, 1,
                                                EP_DATA_FORMAT_NCHW, &error);

      g_assert_no_error (error);
      ep_assert_values (y, float_types[t], EP_SHAPE (1, 1, 2, 2), EP_VALUES (12, 16, 24, 28));
    }
}

/* padding 1, stride 2: the corners of the padded image */
static void
test_padding_and_strides (void)
{
  for (guint t = 0; t < G_N_ELEMENTS (float_types); t++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(EpTensor) x = image_3x3 (float_types[t]);
      g_autoptr(EpTensor) w = ones_2x2 (float_types[t]);
      g_autoptr(EpTensor) y = ep_tensor_conv2d (x, w, EP_DIMS (2), 1, EP_DIMS (1), 1, NULL, 0, 1,
                                                EP_DATA_FORMAT_NCHW, &error);

      g_assert_no_error (error);
      ep_assert_values (y, float_types[t], EP_SHAPE (1, 1, 2, 2), EP_VALUES (1, 5, 11, 28));
    }
}

/* dilation 2: the four corners */
static void
test_dilation (void)
{
  for (guint t = 0; t < G_N_ELEMENTS (float_types); t++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(EpTensor) x = image_3x3 (float_types[t]);
      g_autoptr(EpTensor) w = ones_2x2 (float_types[t]);
      g_autoptr(EpTensor) y = ep_tensor_conv2d (x, w, NULL, 0, NULL, 0, EP_DIMS (2, 2), 2, 1,
                                                EP_DATA_FORMAT_NCHW, &error);

      g_assert_no_error (error);
      ep_assert_values (y, float_types[t], EP_SHAPE (1, 1, 1, 1), EP_VALUES (20));
    }
}

/* height and width apart: stride (1, 2), padding (0, 1), dilation (2, 1) */
static void
test_pairs (void)
{
  for (guint t = 0; t < G_N_ELEMENTS (float_types); t++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(EpTensor) x = image_3x3 (float_types[t]);
      g_autoptr(EpTensor) w = ones_2x2 (float_types[t]);
      g_autoptr(EpTensor) y = ep_tensor_conv2d (x, w, EP_DIMS (1, 2), 2, EP_DIMS (0, 1), 2,
                                                EP_DIMS (2, 1), 2, 1, EP_DATA_FORMAT_NCHW, &error);

      /* rows 0 and 2; columns (-1, 0) and (1, 2) */
      g_assert_no_error (error);
      ep_assert_values (y, float_types[t], EP_SHAPE (1, 1, 1, 2), EP_VALUES (1 + 7, 2 + 3 + 8 + 9));
    }
}

/* two groups: each output channel sees its own input channel */
static void
test_groups (void)
{
  for (guint t = 0; t < G_N_ELEMENTS (float_types); t++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(EpTensor) x = ep_test_new (float_types[t], EP_SHAPE (1, 2, 1, 2), EP_VALUES (2, 3, 5, 7));
      g_autoptr(EpTensor) w = ep_test_new (float_types[t], EP_SHAPE (4, 1, 1, 1), EP_VALUES (1, 10, 100, 1000));
      g_autoptr(EpTensor) y = ep_tensor_conv2d (x, w, NULL, 0, NULL, 0, NULL, 0, 2,
                                                EP_DATA_FORMAT_NCHW, &error);

      g_assert_no_error (error);
      ep_assert_values (y, float_types[t], EP_SHAPE (1, 4, 1, 2),
                        EP_VALUES (2, 3, 20, 30, 500, 700, 5000, 7000));
    }
}

/* NHWC: channels last in the images and the output, not in the weight */
static void
test_nhwc (void)
{
  for (guint t = 0; t < G_N_ELEMENTS (float_types); t++)
    {
      g_autoptr(GError) error = NULL;
      /* 2x2 pixels of (c0, c1) */
      g_autoptr(EpTensor) x = ep_test_new (float_types[t], EP_SHAPE (1, 2, 2, 2),
                                           EP_VALUES (1, 2, 3, 4, 5, 6, 7, 8));
      /* out 0: c0 + 10 c1; out 1: c1 */
      g_autoptr(EpTensor) w = ep_test_new (float_types[t], EP_SHAPE (2, 2, 1, 1), EP_VALUES (1, 10, 0, 1));
      g_autoptr(EpTensor) y = ep_tensor_conv2d (x, w, NULL, 0, NULL, 0, NULL, 0, 1,
                                                EP_DATA_FORMAT_NHWC, &error);

      g_assert_no_error (error);
      ep_assert_values (y, float_types[t], EP_SHAPE (1, 2, 2, 2),
                        EP_VALUES (21, 2, 43, 4, 65, 6, 87, 8));
    }
}

/* a strided view gives what its contiguous copy gives */
static void
test_strided_input (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) x = ep_test_new_strided (EP_DTYPE_FLOAT32, EP_DIMS (1, 1, 3, 3), 4,
                                               EP_VALUES (1, 2, 3, 4, 5, 6, 7, 8, 9));
  g_autoptr(EpTensor) w = ones_2x2 (EP_DTYPE_FLOAT32);
  g_autoptr(EpTensor) y = ep_tensor_conv2d (x, w, NULL, 0, NULL, 0, NULL, 0, 1,
                                            EP_DATA_FORMAT_NCHW, &error);

  g_assert_no_error (error);
  ep_assert_values (y, EP_DTYPE_FLOAT32, EP_SHAPE (1, 1, 2, 2), EP_VALUES (12, 16, 24, 28));
}

static void
test_mixed_types_promote (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) x = image_3x3 (EP_DTYPE_FLOAT32);
  g_autoptr(EpTensor) w = ones_2x2 (EP_DTYPE_FLOAT64);
  g_autoptr(EpTensor) y = ep_tensor_conv2d (x, w, NULL, 0, NULL, 0, NULL, 0, 1,
                                            EP_DATA_FORMAT_NCHW, &error);

  g_assert_no_error (error);
  ep_assert_values (y, EP_DTYPE_FLOAT64, EP_SHAPE (1, 1, 2, 2), EP_VALUES (12, 16, 24, 28));
}

/* the input gradient of all-ones counts the windows over each pixel */
static void
test_input_grad (void)
{
  for (guint t = 0; t < G_N_ELEMENTS (float_types); t++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(EpTensor) dy = ones_2x2 (float_types[t]);
      g_autoptr(EpTensor) w = ones_2x2 (float_types[t]);
      g_autoptr(EpTensor) dx = ep_conv2d_input_grad (dy, w, EP_DIMS (1, 1, 3, 3), 4, NULL, 0, NULL, 0,
                                                     NULL, 0, 1, EP_DATA_FORMAT_NCHW, &error);

      g_assert_no_error (error);
      ep_assert_values (dx, float_types[t], EP_SHAPE (1, 1, 3, 3), EP_VALUES (1, 2, 1, 2, 4, 2, 1, 2, 1));
    }
}

/* a stride of 2 leaves the last row and column of a 4x4 image out */
static void
test_input_grad_stride_leaves_out (void)
{
  for (guint t = 0; t < G_N_ELEMENTS (float_types); t++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(EpTensor) dy = ep_test_new (float_types[t], EP_SHAPE (1, 1, 1, 1), EP_VALUES (3));
      g_autoptr(EpTensor) w = ep_test_new (float_types[t], EP_SHAPE (1, 1, 3, 3),
                                           EP_VALUES (1, 2, 3, 4, 5, 6, 7, 8, 9));
      g_autoptr(EpTensor) dx = ep_conv2d_input_grad (dy, w, EP_DIMS (1, 1, 4, 4), 4, EP_DIMS (2), 1,
                                                     NULL, 0, NULL, 0, 1, EP_DATA_FORMAT_NCHW, &error);

      g_assert_no_error (error);
      ep_assert_values (dx, float_types[t], EP_SHAPE (1, 1, 4, 4),
                        EP_VALUES (3, 6, 9, 0, 12, 15, 18, 0, 21, 24, 27, 0, 0, 0, 0, 0));
    }
}

/* the weight gradient of all-ones sums each tap's window */
static void
test_weight_grad (void)
{
  for (guint t = 0; t < G_N_ELEMENTS (float_types); t++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(EpTensor) x = image_3x3 (float_types[t]);
      g_autoptr(EpTensor) dy = ones_2x2 (float_types[t]);
      g_autoptr(EpTensor) dw = ep_conv2d_weight_grad (x, dy, EP_DIMS (1, 1, 2, 2), 4, NULL, 0, NULL, 0,
                                                      NULL, 0, 1, EP_DATA_FORMAT_NCHW, &error);

      g_assert_no_error (error);
      ep_assert_values (dw, float_types[t], EP_SHAPE (1, 1, 2, 2), EP_VALUES (12, 16, 24, 28));
    }
}

/* no images: an empty output, and a weight gradient of zeros */
static void
test_empty_batch (void)
{
  for (guint t = 0; t < G_N_ELEMENTS (float_types); t++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(EpTensor) x = ep_zeros (EP_DIMS (0, 2, 3, 3), 4, float_types[t], &error);
      g_autoptr(EpTensor) w = ep_test_new (float_types[t], EP_SHAPE (1, 2, 1, 1), EP_VALUES (1, 1));
      g_autoptr(EpTensor) y = ep_tensor_conv2d (x, w, NULL, 0, NULL, 0, NULL, 0, 1,
                                                EP_DATA_FORMAT_NCHW, &error);
      g_autoptr(EpTensor) dw = NULL;

      g_assert_no_error (error);
      ep_assert_shape (y, EP_SHAPE (0, 1, 3, 3));
      dw = ep_conv2d_weight_grad (x, y, EP_DIMS (1, 2, 1, 1), 4, NULL, 0, NULL, 0, NULL, 0, 1,
                                  EP_DATA_FORMAT_NCHW, &error);
      g_assert_no_error (error);
      ep_assert_values (dw, float_types[t], EP_SHAPE (1, 2, 1, 1), EP_VALUES (0, 0));
    }
}

/* no input channels: every output is an empty sum */
static void
test_no_channels_gives_zeros (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) x = ep_zeros (EP_DIMS (1, 0, 2, 2), 4, EP_DTYPE_FLOAT32, &error);
  g_autoptr(EpTensor) w = ep_zeros (EP_DIMS (2, 0, 1, 1), 4, EP_DTYPE_FLOAT32, &error);
  g_autoptr(EpTensor) y = ep_tensor_conv2d (x, w, NULL, 0, NULL, 0, NULL, 0, 1,
                                            EP_DATA_FORMAT_NCHW, &error);

  g_assert_no_error (error);
  ep_assert_values (y, EP_DTYPE_FLOAT32, EP_SHAPE (1, 2, 2, 2), EP_VALUES (0, 0, 0, 0, 0, 0, 0, 0));
}

/* strides, padding and dilation past oneDNN's 32 bits (im2col runs
 * them): one tap of the kernel lands on the one pixel */
static void
test_huge_attributes (void)
{
  for (guint t = 0; t < G_N_ELEMENTS (float_types); t++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(EpTensor) x = ep_test_new (float_types[t], EP_SHAPE (1, 1, 1, 1), EP_VALUES (3));
      g_autoptr(EpTensor) w = ep_test_new (float_types[t], EP_SHAPE (1, 1, 2, 1), EP_VALUES (5, 7));
      const gint64 strides[] = { G_GINT64_CONSTANT (1) << 50, 1 };
      const gint64 padding[] = { G_GINT64_CONSTANT (1) << 40, 0 };
      const gint64 dilation[] = { G_GINT64_CONSTANT (1) << 40, 1 };
      g_autoptr(EpTensor) y = ep_tensor_conv2d (x, w, strides, 2, padding, 2, dilation, 2, 1,
                                                EP_DATA_FORMAT_NCHW, &error);
      g_autoptr(EpTensor) dx = NULL, dw = NULL;

      g_assert_no_error (error);
      ep_assert_values (y, float_types[t], EP_SHAPE (1, 1, 1, 1), EP_VALUES (21));
      dx = ep_conv2d_input_grad (y, w, EP_DIMS (1, 1, 1, 1), 4, strides, 2, padding, 2, dilation, 2, 1,
                                 EP_DATA_FORMAT_NCHW, &error);
      g_assert_no_error (error);
      ep_assert_values (dx, float_types[t], EP_SHAPE (1, 1, 1, 1), EP_VALUES (147));
      dw = ep_conv2d_weight_grad (x, y, EP_DIMS (1, 1, 2, 1), 4, strides, 2, padding, 2, dilation, 2, 1,
                                  EP_DATA_FORMAT_NCHW, &error);
      g_assert_no_error (error);
      ep_assert_values (dw, float_types[t], EP_SHAPE (1, 1, 2, 1), EP_VALUES (0, 63));
    }
}

/* Errors */

static EpTensor *
conv_nchw (EpTensor      *x,
           EpTensor      *w,
           const gint64  *strides,
           const gint64  *padding,
           const gint64  *dilation,
           gint64         groups,
           GError       **error)
{
  return ep_tensor_conv2d (x, w, strides, strides ? 2 : 0, padding, padding ? 2 : 0,
                           dilation, dilation ? 2 : 0, groups, EP_DATA_FORMAT_NCHW, error);
}

static void
test_error_dtypes (void)
{
  const EpDType bad[] = { EP_DTYPE_INT32, EP_DTYPE_INT64, EP_DTYPE_BOOL };

  for (guint t = 0; t < G_N_ELEMENTS (bad); t++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(EpTensor) x = image_3x3 (bad[t]);
      g_autoptr(EpTensor) w = ones_2x2 (EP_DTYPE_FLOAT32);
      g_autoptr(EpTensor) y = conv_nchw (x, w, NULL, NULL, NULL, 1, &error);

      g_assert_null (y);
      ep_assert_error (error, EP_ERROR_DTYPE, "conv2d", ep_dtype_get_name (bad[t]));
    }
}

static void
test_error_ranks (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) x3 = ep_zeros (EP_DIMS (1, 3, 3), 3, EP_DTYPE_FLOAT32, NULL);
  g_autoptr(EpTensor) x = image_3x3 (EP_DTYPE_FLOAT32);
  g_autoptr(EpTensor) w3 = ep_zeros (EP_DIMS (1, 2, 2), 3, EP_DTYPE_FLOAT32, NULL);
  g_autoptr(EpTensor) w = ones_2x2 (EP_DTYPE_FLOAT32);
  EpTensor *y;

  y = conv_nchw (x3, w, NULL, NULL, NULL, 1, &error);
  g_assert_null (y);
  ep_assert_error (error, EP_ERROR_SHAPE, "conv2d", "(1, 3, 3)");
  g_clear_error (&error);

  y = conv_nchw (x, w3, NULL, NULL, NULL, 1, &error);
  g_assert_null (y);
  ep_assert_error (error, EP_ERROR_SHAPE, "conv2d", "(1, 2, 2)");
}

static void
test_error_channels (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) x = ep_zeros (EP_DIMS (1, 4, 3, 3), 4, EP_DTYPE_FLOAT32, NULL);
  g_autoptr(EpTensor) w3 = ep_zeros (EP_DIMS (2, 3, 1, 1), 4, EP_DTYPE_FLOAT32, NULL);
  g_autoptr(EpTensor) w2 = ep_zeros (EP_DIMS (3, 2, 1, 1), 4, EP_DTYPE_FLOAT32, NULL);
  EpTensor *y;

  /* 3 channels taken, 4 given */
  y = conv_nchw (x, w3, NULL, NULL, NULL, 1, &error);
  g_assert_null (y);
  ep_assert_error (error, EP_ERROR_SHAPE, "conv2d", "3 channels per group");
  g_clear_error (&error);

  /* 3 output channels in 2 groups */
  y = conv_nchw (x, w2, NULL, NULL, NULL, 2, &error);
  g_assert_null (y);
  ep_assert_error (error, EP_ERROR_SHAPE, "conv2d", "2 groups");
  g_clear_error (&error);

  /* 4 input channels in 3 groups */
  y = conv_nchw (x, w3, NULL, NULL, NULL, 3, &error);
  g_assert_null (y);
  ep_assert_error (error, EP_ERROR_SHAPE, "conv2d", "3 groups");
}

static void
test_error_attributes (void)
{
  g_autoptr(EpTensor) x = image_3x3 (EP_DTYPE_FLOAT32);
  g_autoptr(EpTensor) w = ones_2x2 (EP_DTYPE_FLOAT32);
  struct
  {
    const gint64 *strides, *padding, *dilation;
    gint64 groups;
    const char *fragment;
  } cases[] = {
    { EP_DIMS (0, 1), NULL, NULL, 1, "strides (0, 1)" },
    { EP_DIMS (1, -2), NULL, NULL, 1, "strides (1, -2)" },
    { NULL, EP_DIMS (-1, 0), NULL, 1, "padding (-1, 0)" },
    { NULL, NULL, EP_DIMS (0, 0), 1, "dilation (0, 0)" },
    { NULL, NULL, NULL, 0, "groups (0)" },
    { NULL, NULL, NULL, -3, "groups (-3)" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(EpTensor) y = conv_nchw (x, w, cases[i].strides, cases[i].padding, cases[i].dilation,
                                         cases[i].groups, &error);

      g_assert_null (y);
      ep_assert_error (error, EP_ERROR_INVALID_ARGUMENT, "conv2d", cases[i].fragment);
    }
}

static void
test_error_too_many_values (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) x = image_3x3 (EP_DTYPE_FLOAT32);
  g_autoptr(EpTensor) w = ones_2x2 (EP_DTYPE_FLOAT32);
  g_autoptr(EpTensor) y = ep_tensor_conv2d (x, w, EP_DIMS (1, 1, 1), 3, NULL, 0, NULL, 0, 1,
                                            EP_DATA_FORMAT_NCHW, &error);

  g_assert_null (y);
  ep_assert_error (error, EP_ERROR_INVALID_ARGUMENT, "conv2d", "3 values given for strides, at most 2 fit");
}

static void
test_error_bad_format (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) x = image_3x3 (EP_DTYPE_FLOAT32);
  g_autoptr(EpTensor) w = ones_2x2 (EP_DTYPE_FLOAT32);
  g_autoptr(EpTensor) y = ep_tensor_conv2d (x, w, NULL, 0, NULL, 0, NULL, 0, 1, (EpDataFormat) 7, &error);

  g_assert_null (y);
  g_assert_error (error, EP_ERROR, EP_ERROR_INVALID_ARGUMENT);
  g_assert_true (g_str_has_prefix (error->message, "conv2d"));
}

/* kernels larger than the padded images, and sizes past 64 bits */
static void
test_error_kernel_too_large (void)
{
  g_autoptr(EpTensor) x = image_3x3 (EP_DTYPE_FLOAT32);
  g_autoptr(EpTensor) w = ep_zeros (EP_DIMS (1, 1, 4, 2), 4, EP_DTYPE_FLOAT32, NULL);
  g_autoptr(EpTensor) w2 = ones_2x2 (EP_DTYPE_FLOAT32);
  struct
  {
    EpTensor *w;
    const gint64 *padding, *dilation;
  } cases[] = {
    { w, NULL, NULL },                                    /* 4 rows in 3 */
    { w2, NULL, EP_DIMS (3, 1) },                         /* 4 rows dilated in 3 */
    { w2, NULL, EP_DIMS (G_MAXINT64, 1) },                /* past 64 bits */
    { w, EP_DIMS (G_MAXINT64 / 2 + 1, 0), NULL },         /* the padded size past 64 bits */
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(EpTensor) y = conv_nchw (x, cases[i].w, NULL, cases[i].padding, cases[i].dilation, 1,
                                         &error);

      g_assert_null (y);
      ep_assert_error (error, EP_ERROR_SHAPE, "conv2d", "does not fit");
    }
}

/* a padding that fits in 64 bits but makes an output past memory */
static void
test_error_huge_output (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) x = image_3x3 (EP_DTYPE_FLOAT32);
  g_autoptr(EpTensor) w = ones_2x2 (EP_DTYPE_FLOAT32);
  g_autoptr(EpTensor) y = conv_nchw (x, w, NULL, EP_DIMS (G_MAXINT64 / 8, G_MAXINT64 / 8), NULL, 1, &error);

  g_assert_null (y);
  ep_assert_error (error, EP_ERROR_OUT_OF_MEMORY, "conv2d", NULL);
}

static void
test_error_gradient_shapes (void)
{
  g_autoptr(EpTensor) dy = ones_2x2 (EP_DTYPE_FLOAT32);
  g_autoptr(EpTensor) w = ones_2x2 (EP_DTYPE_FLOAT32);
  g_autoptr(EpTensor) x = image_3x3 (EP_DTYPE_FLOAT32);
  EpTensor *r;
  GError *error = NULL;

  /* a 4x4 image gives a 3x3 output, not 2x2 */
  r = ep_conv2d_input_grad (dy, w, EP_DIMS (1, 1, 4, 4), 4, NULL, 0, NULL, 0, NULL, 0, 1,
                            EP_DATA_FORMAT_NCHW, &error);
  g_assert_null (r);
  ep_assert_error (error, EP_ERROR_SHAPE, "conv2d_input_grad", "(1, 1, 3, 3)");
  g_clear_error (&error);

  r = ep_conv2d_input_grad (dy, w, EP_DIMS (1, 3, 3), 3, NULL, 0, NULL, 0, NULL, 0, 1,
                            EP_DATA_FORMAT_NCHW, &error);
  g_assert_null (r);
  ep_assert_error (error, EP_ERROR_SHAPE, "conv2d_input_grad", "(1, 3, 3)");
  g_clear_error (&error);

  r = ep_conv2d_input_grad (dy, w, EP_DIMS (1, 1, -3, 3), 4, NULL, 0, NULL, 0, NULL, 0, 1,
                            EP_DATA_FORMAT_NCHW, &error);
  g_assert_null (r);
  g_assert_error (error, EP_ERROR, EP_ERROR_SHAPE);
  g_clear_error (&error);

  /* a 3x3 weight gives a 1x1 output */
  r = ep_conv2d_weight_grad (x, dy, EP_DIMS (1, 1, 3, 3), 4, NULL, 0, NULL, 0, NULL, 0, 1,
                             EP_DATA_FORMAT_NCHW, &error);
  g_assert_null (r);
  ep_assert_error (error, EP_ERROR_SHAPE, "conv2d_weight_grad", "(1, 1, 1, 1)");
  g_clear_error (&error);

  /* the weight's channels against the images' */
  r = ep_conv2d_weight_grad (x, dy, EP_DIMS (1, 2, 2, 2), 4, NULL, 0, NULL, 0, NULL, 0, 1,
                             EP_DATA_FORMAT_NCHW, &error);
  g_assert_null (r);
  ep_assert_error (error, EP_ERROR_SHAPE, "conv2d_weight_grad", "channels");
  g_clear_error (&error);
}

/* every allocation of each pass (the output, oneDNN's reordered
 * operands and scratchpad, the columns of im2col) failing in turn: an
 * out-of-memory error, then the same call succeeds */
static void
test_allocation_failures (void)
{
  for (guint t = 0; t < G_N_ELEMENTS (float_types); t++)
    for (guint op = 0; op < 3; op++)
      {
        g_autoptr(EpTensor) x = ep_test_random (EP_DIMS (2, 4, 6, 5), 4, float_types[t], 1);
        g_autoptr(EpTensor) w = ep_test_random (EP_DIMS (8, 4, 3, 3), 4, float_types[t], 2);
        g_autoptr(EpTensor) dy = ep_test_random (EP_DIMS (2, 8, 6, 5), 4, float_types[t], 3);
        gboolean fired = TRUE;

        for (guint n = 1; fired; n++)
          {
            g_autoptr(GError) error = NULL;
            g_autoptr(EpTensor) r = NULL;

            ep_fault_fail_allocation (n);
            r = op == 0 ? ep_tensor_conv2d (x, w, NULL, 0, EP_DIMS (1), 1, NULL, 0, 1, EP_DATA_FORMAT_NCHW, &error)
                : op == 1 ? ep_conv2d_input_grad (dy, w, EP_DIMS (2, 4, 6, 5), 4, NULL, 0, EP_DIMS (1), 1,
                                                  NULL, 0, 1, EP_DATA_FORMAT_NCHW, &error)
                : ep_conv2d_weight_grad (x, dy, EP_DIMS (8, 4, 3, 3), 4, NULL, 0, EP_DIMS (1), 1,
                                         NULL, 0, 1, EP_DATA_FORMAT_NCHW, &error);
            fired = ep_fault_fired ();
            ep_fault_fail_allocation (0);
            if (fired)
              {
                g_assert_null (r);
                g_assert_error (error, EP_ERROR, EP_ERROR_OUT_OF_MEMORY);
              }
            else
              {
                g_assert_no_error (error);
                g_assert_nonnull (r);
              }
          }
      }
}

/* Several threads at once on shapes that have no plan yet (plans made
 * concurrently), then on the same ones (one kept primitive run by
 * several threads, each with its own scratchpad): the bits of a serial
 * run, in both data formats */
#define N_THREADS 4
#define N_SHAPES 3

typedef struct
{
  EpTensor *x[N_SHAPES], *w;
  EpDataFormat format;
  GBytes *got[N_THREADS][N_SHAPES];
  guint next;
} Shared;

static GBytes *
conv_bytes (EpTensor     *x,
            EpTensor     *w,
            EpDataFormat  format)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) y = ep_tensor_conv2d (x, w, NULL, 0, EP_DIMS (1), 1, NULL, 0, 1, format, &error);
  GBytes *bytes;

  g_assert_no_error (error);
  bytes = ep_tensor_to_bytes (y, &error);
  g_assert_no_error (error);
  return bytes;
}

static gpointer
convolve_in_thread (gpointer data)
{
  Shared *shared = data;
  guint me = g_atomic_int_add (&shared->next, 1);

  for (guint round = 0; round < 10; round++)
    for (guint i = 0; i < N_SHAPES; i++)
      {
        GBytes *bytes = conv_bytes (shared->x[i], shared->w, shared->format);

        if (round == 0)
          shared->got[me][i] = bytes;
        else
          {
            g_assert_true (g_bytes_equal (bytes, shared->got[me][i]));
            g_bytes_unref (bytes);
          }
      }
  return NULL;
}

static void
test_threads (void)
{
  for (EpDataFormat format = EP_DATA_FORMAT_NCHW; format <= EP_DATA_FORMAT_NHWC; format++)
    {
      Shared shared = { .format = format };
      GThread *threads[N_THREADS];

      shared.w = ep_test_random (EP_DIMS (5, 3, 3, 3), 4, EP_DTYPE_FLOAT32, 1);
      for (guint i = 0; i < N_SHAPES; i++)
        shared.x[i] = format == EP_DATA_FORMAT_NHWC
                      ? ep_test_random (EP_DIMS (2, 9 + i, 11, 3), 4, EP_DTYPE_FLOAT32, 2 + i)
                      : ep_test_random (EP_DIMS (2, 3, 9 + i, 11), 4, EP_DTYPE_FLOAT32, 2 + i);
      for (guint t = 0; t < N_THREADS; t++)
        threads[t] = g_thread_new ("conv", convolve_in_thread, &shared);
      for (guint t = 0; t < N_THREADS; t++)
        g_thread_join (threads[t]);

      for (guint i = 0; i < N_SHAPES; i++)
        {
          g_autoptr(GBytes) serial = conv_bytes (shared.x[i], shared.w, format);

          for (guint t = 0; t < N_THREADS; t++)
            {
              g_assert_true (g_bytes_equal (shared.got[t][i], serial));
              g_bytes_unref (shared.got[t][i]);
            }
          g_object_unref (shared.x[i]);
        }
      g_object_unref (shared.w);
    }
}

/* Gradients */

typedef struct
{
  const gint64 *strides, *padding, *dilation;
  gint64 groups;
  EpDataFormat format;
} Attrs;

static const Attrs grad_attrs[] = {
  { EP_DIMS (2, 1), EP_DIMS (1, 0), EP_DIMS (1, 2), 2, EP_DATA_FORMAT_NCHW },
  { EP_DIMS (1, 2), EP_DIMS (0, 1), EP_DIMS (2, 1), 1, EP_DATA_FORMAT_NHWC },
};

#define ATTRS(a) (a)->strides, 2, (a)->padding, 2, (a)->dilation, 2, (a)->groups, (a)->format

static EpTensor *
f_conv2d (EpTensor **in, gconstpointer data, GError **error)
{
  return ep_tensor_conv2d (in[0], in[1], ATTRS ((const Attrs *) data), error);
}

static EpTensor *
f_input_grad (EpTensor **in, gconstpointer data, GError **error)
{
  const Attrs *a = data;
  const gint64 nchw[] = { 2, 4, 5, 6 }, nhwc[] = { 2, 5, 6, 4 };

  return ep_conv2d_input_grad (in[0], in[1], a->format == EP_DATA_FORMAT_NHWC ? nhwc : nchw, 4,
                               ATTRS (a), error);
}

static EpTensor *
f_weight_grad (EpTensor **in, gconstpointer data, GError **error)
{
  const Attrs *a = data;
  const gint64 shape[] = { 6, 4 / a->groups, 3, 2 };

  return ep_conv2d_weight_grad (in[0], in[1], shape, 4, ATTRS (a), error);
}

/* images (2, 4, 5, 6), weight (6, 4 / groups, 3, 2) */
static void
test_gradients (void)
{
  for (guint i = 0; i < G_N_ELEMENTS (grad_attrs); i++)
    {
      const Attrs *a = &grad_attrs[i];
      gboolean nhwc = a->format == EP_DATA_FORMAT_NHWC;
      g_autoptr(GError) error = NULL;
      EpTensor *x = ep_test_random (nhwc ? EP_DIMS (2, 5, 6, 4) : EP_DIMS (2, 4, 5, 6), 4,
                                    EP_DTYPE_FLOAT64, 1);
      EpTensor *w = ep_test_random (EP_DIMS (6, 4 / a->groups, 3, 2), 4, EP_DTYPE_FLOAT64, 2);
      g_autoptr(EpTensor) y = ep_tensor_conv2d (x, w, ATTRS (a), &error);
      EpTensor *dy;

      g_assert_no_error (error);
      dy = ep_test_random (y->layout.shape, 4, EP_DTYPE_FLOAT64, 3);

      ep_test_check_gradient_of (&ep_op_conv2d, f_conv2d, a, (EpTensor *[]) { x, w }, 2, 0);
      ep_test_check_gradient_of (&ep_op_conv2d_input_grad, f_input_grad, a,
                                 (EpTensor *[]) { dy, w }, 2, 0);
      ep_test_check_gradient_of (&ep_op_conv2d_weight_grad, f_weight_grad, a,
                                 (EpTensor *[]) { x, dy }, 2, 0);
      g_object_unref (x);
      g_object_unref (w);
      g_object_unref (dy);
    }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/conv/conv2d/window-sums", test_window_sums);
  g_test_add_func ("/conv/conv2d/padding-and-strides", test_padding_and_strides);
  g_test_add_func ("/conv/conv2d/dilation", test_dilation);
  g_test_add_func ("/conv/conv2d/pairs", test_pairs);
  g_test_add_func ("/conv/conv2d/groups", test_groups);
  g_test_add_func ("/conv/conv2d/nhwc", test_nhwc);
  g_test_add_func ("/conv/conv2d/strided-input", test_strided_input);
  g_test_add_func ("/conv/conv2d/mixed-types-promote", test_mixed_types_promote);
  g_test_add_func ("/conv/conv2d/empty-batch", test_empty_batch);
  g_test_add_func ("/conv/conv2d/no-channels-gives-zeros", test_no_channels_gives_zeros);
  g_test_add_func ("/conv/conv2d/huge-attributes", test_huge_attributes);
  g_test_add_func ("/conv/input-grad/window-counts", test_input_grad);
  g_test_add_func ("/conv/input-grad/stride-leaves-out", test_input_grad_stride_leaves_out);
  g_test_add_func ("/conv/weight-grad/window-sums", test_weight_grad);
  g_test_add_func ("/conv/error/dtypes", test_error_dtypes);
  g_test_add_func ("/conv/error/ranks", test_error_ranks);
  g_test_add_func ("/conv/error/channels", test_error_channels);
  g_test_add_func ("/conv/error/attributes", test_error_attributes);
  g_test_add_func ("/conv/error/too-many-values", test_error_too_many_values);
  g_test_add_func ("/conv/error/bad-format", test_error_bad_format);
  g_test_add_func ("/conv/error/kernel-too-large", test_error_kernel_too_large);
  g_test_add_func ("/conv/error/huge-output", test_error_huge_output);
  g_test_add_func ("/conv/error/gradient-shapes", test_error_gradient_shapes);
  g_test_add_func ("/conv/allocation-failures", test_allocation_failures);
  g_test_add_func ("/conv/threads", test_threads);
  g_test_add_func ("/conv/gradient/all", test_gradients);

  return g_test_run ();
}
