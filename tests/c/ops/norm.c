/* ops/norm.c: the norm family: layer_norm and batch_norm: values in
 * both modes and both data formats, every error path, the gradient
 * rules
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "ep-test-gradient.h"
#include "ep-test-util.h"

/* (x - mean) / sqrt (var + eps) of 1, 2, 3: var 2/3 */
#define Z(eps) (1.0 / sqrt (2.0 / 3.0 + (eps)))

static void
test_layer_norm_values (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) x = ep_test_new (EP_DTYPE_FLOAT32, EP_SHAPE (2, 3), EP_VALUES (1, 2, 3, 10, 20, 30));
  g_autoptr(EpTensor) w = ep_test_new (EP_DTYPE_FLOAT32, EP_SHAPE (3), EP_VALUES (1, 2, 1));
  g_autoptr(EpTensor) b = ep_test_new (EP_DTYPE_FLOAT32, EP_SHAPE (3), EP_VALUES (0, 0, 5));
  g_autoptr(EpTensor) y = ep_tensor_layer_norm (x, w, b, -1, 0.0, &error);
  gdouble z = Z (0.0);

  g_assert_no_error (error);
  ep_assert_values (y, EP_DTYPE_FLOAT32, EP_SHAPE (2, 3), EP_VALUES (-z, 0, 5 + z, -z, 0, 5 + z));
}

/* axis 0 normalises the whole tensor; epsilon enters under the root */
static void
test_layer_norm_axis (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) x = ep_test_new (EP_DTYPE_FLOAT64, EP_SHAPE (3, 1), EP_VALUES (1, 2, 3));
  g_autoptr(EpTensor) w = ep_test_new (EP_DTYPE_FLOAT64, EP_SHAPE (3, 1), EP_VALUES (1, 1, 1));
  g_autoptr(EpTensor) b = ep_test_new (EP_DTYPE_FLOAT64, EP_SHAPE (3, 1), EP_VALUES (0, 0, 0));
  g_autoptr(EpTensor) y = ep_tensor_layer_norm (x, w, b, 0, 0.5, &error);
  gdouble z = Z (0.5);

  g_assert_no_error (error);
  ep_assert_values (y, EP_DTYPE_FLOAT64, EP_SHAPE (3, 1), EP_VALUES (-z, 0, z));
}

/* Channels of (N, C) = (3, 2): training takes the batch's statistics and
 * returns them; inference the running ones */
static void
test_batch_norm_values (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) x = ep_test_new (EP_DTYPE_FLOAT64, EP_SHAPE (3, 2), EP_VALUES (1, 10, 2, 20, 3, 30));
  g_autoptr(EpTensor) rm = ep_test_new (EP_DTYPE_FLOAT64, EP_SHAPE (2), EP_VALUES (0, 10));
  g_autoptr(EpTensor) rv = ep_test_new (EP_DTYPE_FLOAT64, EP_SHAPE (2), EP_VALUES (4, 100));
  g_autoptr(EpTensor) w = ep_test_new (EP_DTYPE_FLOAT64, EP_SHAPE (2), EP_VALUES (1, 2));
  g_autoptr(EpTensor) b = ep_test_new (EP_DTYPE_FLOAT64, EP_SHAPE (2), EP_VALUES (0, 1));
  g_autoptr(EpTensor) y = NULL, mean = NULL, var = NULL;
  g_autoptr(EpTensor) yi = NULL, mi = NULL, vi = NULL;
  gdouble z = Z (0.0);

  g_assert_true (ep_tensor_batch_norm (x, rm, rv, w, b, TRUE, 0.0, EP_DATA_FORMAT_NCHW,
                                       &y, &mean, &var, &error));
  g_assert_no_error (error);
  ep_assert_values (y, EP_DTYPE_FLOAT64, EP_SHAPE (3, 2), EP_VALUES (-z, 1 - 2 * z, 0, 1, z, 1 + 2 * z));
  ep_assert_values (mean, EP_DTYPE_FLOAT64, EP_SHAPE (2), EP_VALUES (2, 20));
  ep_assert_values (var, EP_DTYPE_FLOAT64, EP_SHAPE (2), EP_VALUES (2.0 / 3, 200.0 / 3));

  g_assert_true (ep_tensor_batch_norm (x, rm, rv, w, b, FALSE, 0.0, EP_DATA_FORMAT_NHWC,
                                       &yi, &mi, &vi, &error));
  g_assert_no_error (error);
  ep_assert_values (yi, EP_DTYPE_FLOAT64, EP_SHAPE (3, 2), EP_VALUES (0.5, 1, 1, 3, 1.5, 5));
  ep_assert_values (mi, EP_DTYPE_FLOAT64, EP_SHAPE (2), EP_VALUES (0, 10));
  ep_assert_values (vi, EP_DTYPE_FLOAT64, EP_SHAPE (2), EP_VALUES (4, 100));
}

/* NHWC gives what NCHW gives on the transposed data */
static void
test_batch_norm_formats (void)
{
  const gint64 shape[] = { 2, 3, 4, 5 };
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) x = ep_test_random (shape, 4, EP_DTYPE_FLOAT64, 7);
  EpTensor *rows[4] = { NULL };
  g_autoptr(EpTensor) nhwc = ep_tensor_transpose (x, (const gint[]) { 0, 2, 3, 1 }, 4, &error);
  g_autoptr(EpTensor) y = NULL, mean = NULL, var = NULL;
  g_autoptr(EpTensor) y2 = NULL, mean2 = NULL, var2 = NULL, back = NULL;
  g_autofree gdouble *want = NULL;
  gsize n;

  for (guint i = 0; i < 4; i++)
    rows[i] = ep_test_random ((const gint64[]) { 3 }, 1, EP_DTYPE_FLOAT64, 8 + i);
  {
    EpTensor *positive = ep_tensor_square (rows[1], &error);

    g_object_unref (rows[1]);
    rows[1] = positive;
  }

  g_assert_true (ep_tensor_batch_norm (x, rows[0], rows[1], rows[2], rows[3], TRUE, 1e-3,
                                       EP_DATA_FORMAT_NCHW, &y, &mean, &var, &error));
  g_assert_true (ep_tensor_batch_norm (nhwc, rows[0], rows[1], rows[2], rows[3], TRUE, 1e-3,
                                       EP_DATA_FORMAT_NHWC, &y2, &mean2, &var2, &error));
  back = ep_tensor_transpose (y2, (const gint[]) { 0, 3, 1, 2 }, 4, &error);
  g_assert_no_error (error);
  want = ep_test_read_doubles (y, &n);
  ep_test_assert_close (back, want, n);
  g_clear_pointer (&want, g_free);
  want = ep_test_read_doubles (mean, &n);
  ep_test_assert_close (mean2, want, n);
  g_clear_pointer (&want, g_free);
  want = ep_test_read_doubles (var, &n);
  ep_test_assert_close (var2, want, n);
  for (guint i = 0; i < 4; i++)
    g_object_unref (rows[i]);
}

static void
test_error_codes (void)
{
  g_autoptr(EpTensor) x = ep_test_new (EP_DTYPE_FLOAT32, EP_SHAPE (2, 3), EP_VALUES (1, 2, 3, 4, 5, 6));
  g_autoptr(EpTensor) c3 = ep_test_new (EP_DTYPE_FLOAT32, EP_SHAPE (3), EP_VALUES (1, 1, 1));
  g_autoptr(EpTensor) c2 = ep_test_new (EP_DTYPE_FLOAT32, EP_SHAPE (2), EP_VALUES (1, 1));
  g_autoptr(EpTensor) i3 = ep_test_new (EP_DTYPE_INT32, EP_SHAPE (3), EP_VALUES (1, 1, 1));
  g_autoptr(EpTensor) s = ep_test_new (EP_DTYPE_FLOAT32, EP_SCALAR, EP_VALUES (1));
  g_autoptr(EpTensor) row = ep_test_new (EP_DTYPE_FLOAT32, EP_SHAPE (3), EP_VALUES (1, 2, 3));
  struct { EpTensor *result; gint code; const char *op; } cases[20];
  guint n = 0;
  GError *errors[20] = { NULL };
  EpTensor *out = NULL;

#define EXPECT(call, error_code, name) \
  G_STMT_START { cases[n].code = error_code; cases[n].op = name; cases[n].result = call; n++; } G_STMT_END
#define E (&errors[n])
#define BN(input, p1, p2, p3, p4, eps) \
  (ep_tensor_batch_norm (input, p1, p2, p3, p4, TRUE, eps, EP_DATA_FORMAT_NCHW, &out, NULL, NULL, E) ? out : NULL)

  EXPECT (ep_tensor_layer_norm (x, c2, c3, -1, 1e-5, E), EP_ERROR_SHAPE, "layer_norm");
  EXPECT (ep_tensor_layer_norm (x, c3, c3, 0, 1e-5, E), EP_ERROR_SHAPE, "layer_norm");
  EXPECT (ep_tensor_layer_norm (x, c3, c3, 2, 1e-5, E), EP_ERROR_AXIS, "layer_norm");
  EXPECT (ep_tensor_layer_norm (s, s, s, -1, 1e-5, E), EP_ERROR_SHAPE, "layer_norm");
  EXPECT (ep_tensor_layer_norm (x, i3, c3, -1, 1e-5, E), EP_ERROR_DTYPE, "layer_norm");
  EXPECT (ep_tensor_layer_norm (x, c3, c3, -1, -1.0, E), EP_ERROR_INVALID_ARGUMENT, "layer_norm");
  EXPECT (ep_tensor_layer_norm (x, c3, c3, -1, NAN, E), EP_ERROR_INVALID_ARGUMENT, "layer_norm");
  EXPECT (BN (x, c2, c2, c2, c2, 1e-5), EP_ERROR_SHAPE, "batch_norm");
  EXPECT (BN (x, c2, c3, c3, c3, 1e-5), EP_ERROR_SHAPE, "batch_norm");
  EXPECT (BN (x, c3, c3, c3, c2, 1e-5), EP_ERROR_SHAPE, "batch_norm");
  EXPECT (BN (row, c3, c3, c3, c3, 1e-5), EP_ERROR_SHAPE, "batch_norm");
  EXPECT (BN (x, c3, i3, c3, c3, 1e-5), EP_ERROR_DTYPE, "batch_norm");
  EXPECT (BN (x, c3, c3, c3, c3, -INFINITY), EP_ERROR_INVALID_ARGUMENT, "batch_norm");
  EXPECT (BN (x, c3, c3, c3, c3, -0.5), EP_ERROR_INVALID_ARGUMENT, "batch_norm");

#undef BN
#undef EXPECT
#undef E

  for (guint k = 0; k < n; k++)
    {
      ep_test_assert_failed (cases[k].result, errors[k], cases[k].code, cases[k].op);
      g_clear_error (&errors[k]);
    }
}

/* (3, 4) in float64 against central differences: every input */

static gint ln_axis;

static EpTensor *
call_layer_norm (EpTensor **x, GError **error)
{
  return ep_tensor_layer_norm (x[0], x[1], x[2], ln_axis, 1e-3, error);
}

static void
test_gradient_layer_norm (void)
{
  for (ln_axis = 0; ln_axis <= 1; ln_axis++)
    {
      const gint64 shape[] = { 3, 4 };
      g_autoptr(EpTensor) x = ep_test_random (shape, 2, EP_DTYPE_FLOAT64, 1);
      g_autoptr(EpTensor) w = ep_test_random (shape + ln_axis, 2 - ln_axis, EP_DTYPE_FLOAT64, 2);
      g_autoptr(EpTensor) b = ep_test_random (shape + ln_axis, 2 - ln_axis, EP_DTYPE_FLOAT64, 3);
      EpTensor *inputs[3] = { x, w, b };

      ep_test_check_gradient (&ep_op_layer_norm, call_layer_norm, inputs, 3);
    }
}

typedef struct { gboolean training; EpDataFormat format; } BatchNormCase;

static EpTensor *
forward_batch_norm (EpTensor **x, gconstpointer data, GError **error)
{
  const BatchNormCase *c = data;
  EpTensor *outputs[3] = { NULL };

  if (!ep_tensor_batch_norm (x[0], x[1], x[2], x[3], x[4], c->training, 1e-3, c->format,
                             &outputs[0], &outputs[1], &outputs[2], error))
    return NULL;
  return outputs[0];
}

static EpTensor *
forward_batch_norm_mean (EpTensor **x, gconstpointer data, GError **error)
{
  const BatchNormCase *c = data;
  EpTensor *mean = NULL;

  if (!ep_tensor_batch_norm (x[0], x[1], x[2], x[3], x[4], c->training, 1e-3, c->format,
                             NULL, &mean, NULL, error))
    return NULL;
  return mean;
}

static EpTensor *
forward_batch_norm_var (EpTensor **x, gconstpointer data, GError **error)
{
  const BatchNormCase *c = data;
  EpTensor *var = NULL;

  if (!ep_tensor_batch_norm (x[0], x[1], x[2], x[3], x[4], c->training, 1e-3, c->format,
                             NULL, NULL, &var, error))
    return NULL;
  return var;
}

/* every output of both modes and formats, on (2, 3, 2, 2) */
static void
test_gradient_batch_norm (void)
{
  const gint64 shape[] = { 2, 3, 2, 2 };
  const BatchNormCase cases[] = {
    { TRUE, EP_DATA_FORMAT_NCHW }, { FALSE, EP_DATA_FORMAT_NCHW },
    { TRUE, EP_DATA_FORMAT_NHWC }, { FALSE, EP_DATA_FORMAT_NHWC },
  };

  for (guint k = 0; k < G_N_ELEMENTS (cases); k++)
    {
      g_autoptr(EpTensor) x = ep_test_random (shape, 4, EP_DTYPE_FLOAT64, 1);
      g_autoptr(EpTensor) rm = ep_test_random ((const gint64[]) { shape[1] }, 1, EP_DTYPE_FLOAT64, 2);
      g_autoptr(EpTensor) rv0 = ep_test_random ((const gint64[]) { shape[1] }, 1, EP_DTYPE_FLOAT64, 3);
      g_autoptr(EpTensor) rv = ep_tensor_add_scalar (rv0, 3.0, NULL);
      g_autoptr(EpTensor) w = ep_test_random ((const gint64[]) { shape[1] }, 1, EP_DTYPE_FLOAT64, 4);
      g_autoptr(EpTensor) b = ep_test_random ((const gint64[]) { shape[1] }, 1, EP_DTYPE_FLOAT64, 5);
      EpTensor *inputs[5] = { x, rm, rv, w, b };

      if (cases[k].format == EP_DATA_FORMAT_NHWC)
        {
          /* channels last: shape (2, 2, 2, 3) */
          g_autoptr(EpTensor) t = ep_test_random ((const gint64[]) { 2, 2, 2, 3 }, 4, EP_DTYPE_FLOAT64, 6);

          g_set_object (&x, t);
          inputs[0] = x;
        }
      ep_test_check_gradient_of (&ep_op_batch_norm, forward_batch_norm, &cases[k], inputs, 5, 0);
      ep_test_check_gradient_of (&ep_op_batch_norm, forward_batch_norm_mean, &cases[k], inputs, 5, 1);
      ep_test_check_gradient_of (&ep_op_batch_norm, forward_batch_norm_var, &cases[k], inputs, 5, 2);
    }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/norm/layer_norm/values", test_layer_norm_values);
  g_test_add_func ("/norm/layer_norm/axis", test_layer_norm_axis);
  g_test_add_func ("/norm/batch_norm/values", test_batch_norm_values);
  g_test_add_func ("/norm/batch_norm/formats", test_batch_norm_formats);
  g_test_add_func ("/norm/error/codes", test_error_codes);
  g_test_add_func ("/norm/gradient/layer_norm", test_gradient_layer_norm);
  g_test_add_func ("/norm/gradient/batch_norm", test_gradient_batch_norm);

  return g_test_run ();
}
