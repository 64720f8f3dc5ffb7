/* ops/random.c: the random family: uniform and normal, and the Philox
 * generator's known answers under them, dropout, every error path
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "ep-philox-private.h"
#include "ep-test-gradient.h"
#include "ep-test-util.h"

static void
test_philox_known_answers (void)
{
  static const guint32 cases[3][10] = {
    { 0, 0, 0, 0, 0, 0, 0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8 },
    { 0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff,
      0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd },
    { 0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344, 0xa4093822, 0x299f31d0,
      0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1 },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      guint32 out[4];

      ep_philox4x32_10 (cases[i], cases[i] + 4, out);
      for (guint k = 0; k < 4; k++)
        g_assert_cmphex (out[k], ==, cases[i][6 + k]);
    }
}

/* The documented recipe, element by element (ep-philox-private.h). */
static void
test_uniform_recipe (void)
{
  g_autoptr(GError) error = NULL;
  const gint64 shape[1] = { 6 };
  g_autoptr(EpTensor) first = NULL;
  g_autoptr(EpTensor) second = NULL;
  g_autoptr(GBytes) bytes = NULL;
  const gfloat *got;

  ep_set_seed (G_GUINT64_CONSTANT (0x123456789abcdef0));
  first = ep_uniform (shape, 1, -2.0, 3.0, EP_DTYPE_FLOAT32, &error);
  g_assert_no_error (error);
  second = ep_uniform (shape, 1, -2.0, 3.0, EP_DTYPE_FLOAT32, &error);
  g_assert_no_error (error);

  bytes = ep_tensor_to_bytes (second, &error);
  got = g_bytes_get_data (bytes, NULL);
  for (guint64 i = 0; i < 6; i++)
    {
      guint32 x[4];
      gfloat u, value;

      ep_philox_block (G_GUINT64_CONSTANT (0x123456789abcdef0), 1, i / 4, x);
      u = (gfloat) (x[i % 4] >> 8) * (1.0f / 16777216.0f);
      value = -2.0f + 5.0f * u;
      g_assert_cmpfloat (got[i], ==, value);
    }
}

/* Every error path of the random ops, with its code */
static void
test_error_codes (void)
{
  const gint64 shape[] = { 2 };
  const gint64 negative[] = { -1 };
  const gint64 nine_dims[] = { 1, 1, 1, 1, 1, 1, 1, 1, 1 };
  struct { EpTensor *result; gint code; } cases[40];
  guint n = 0;
  GError *errors[40] = { NULL };

#define EXPECT(call, error_code) \
  G_STMT_START { cases[n].code = error_code; cases[n].result = call; n++; } G_STMT_END
#define E (&errors[n])

  EXPECT (ep_uniform (shape, 1, 0, INFINITY, EP_DTYPE_FLOAT32, E), EP_ERROR_INVALID_ARGUMENT);
  EXPECT (ep_uniform (shape, 1, 0, 1, EP_DTYPE_INT64, E), EP_ERROR_DTYPE);
  EXPECT (ep_normal (shape, 1, 0, -1, EP_DTYPE_FLOAT64, E), EP_ERROR_INVALID_ARGUMENT);
  EXPECT (ep_normal (negative, 1, 0, 1, EP_DTYPE_FLOAT64, E), EP_ERROR_SHAPE);
  EXPECT (ep_uniform (nine_dims, 9, 0, 1, EP_DTYPE_FLOAT32, E), EP_ERROR_SHAPE);
  EXPECT (ep_normal (nine_dims, 9, 0, 1, EP_DTYPE_FLOAT64, E), EP_ERROR_SHAPE);

#undef EXPECT
#undef E

  for (guint k = 0; k < n; k++)
    {
      g_assert_null (cases[k].result);
      g_assert_error (errors[k], EP_ERROR, cases[k].code);
      g_test_message ("%s", errors[k]->message);
      g_clear_error (&errors[k]);
    }
}

typedef EpTensor *(*InitFunc) (const gint64 *shape, guint ndim, EpDType dtype, GError **error);

static EpTensor *glorot_uniform (const gint64 *s, guint n, EpDType d, GError **e) { return ep_glorot_uniform (s, n, 1.0, d, e); }
static EpTensor *glorot_normal (const gint64 *s, guint n, EpDType d, GError **e) { return ep_glorot_normal (s, n, 1.0, d, e); }

static const InitFunc init_funcs[] = { glorot_uniform, glorot_normal, ep_he_uniform, ep_he_normal };

/* The same seed gives the same weights on every device, bit for bit in
 * float64 (float32 normal: the device's logf and cosf, to a few ulps) */
static void
test_initializers_same_on_every_device (void)
{
  g_autoptr(GPtrArray) devices = ep_list_devices ();
  const gint64 shape[] = { 8, 4, 3, 3 };
  g_autoptr(GError) error = NULL;

  for (guint f = 0; f < G_N_ELEMENTS (init_funcs); f++)
    {
      g_autoptr(EpTensor) reference = NULL;
      g_autofree gdouble *expected = NULL;
      gsize n;

      ep_set_seed (42);
      reference = init_funcs[f] (shape, 4, EP_DTYPE_FLOAT32, &error);
      g_assert_no_error (error);
      expected = ep_test_read_doubles (reference, &n);
      g_assert_cmpuint (n, ==, 8 * 4 * 9);
      for (guint d = 0; d < devices->len; d++)
        {
          EpDevice *device = g_ptr_array_index (devices, d);
          g_autoptr(EpTensor) w = NULL;
          g_autofree gdouble *got = NULL;

          ep_set_seed (42);
          ep_test_push (device);
          w = init_funcs[f] (shape, 4, EP_DTYPE_FLOAT32, &error);
          ep_test_pop (device);
          g_assert_no_error (error);
          g_assert_true (ep_tensor_get_device (w) == device);
          got = ep_test_read_doubles (w, &n);
          for (gsize i = 0; i < n; i++)
            g_assert_cmpfloat_with_epsilon (got[i], expected[i], 1e-6 * (1 + fabs (expected[i])));
        }
    }
}

/* PyTorch's fans: (8, 4, 3, 3) has fan_in 36 and fan_out 72, so the
 * bounds are √(6 / 108) and √(6 / 36) */
static void
test_initializer_bounds (void)
{
  const gint64 shape[] = { 8, 4, 3, 3 };
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) glorot = NULL, he = NULL, lo = NULL, hi = NULL;
  g_autofree gdouble *g = NULL, *h = NULL, *l = NULL, *u = NULL;
  gsize n;

  ep_set_seed (5);
  glorot = ep_glorot_uniform (shape, 4, 2.0, EP_DTYPE_FLOAT64, &error);
  ep_set_seed (5);
  lo = ep_uniform (shape, 4, -2 * sqrt (6.0 / 108), 2 * sqrt (6.0 / 108), EP_DTYPE_FLOAT64, &error);
  ep_set_seed (5);
  he = ep_he_normal (shape, 4, EP_DTYPE_FLOAT64, &error);
  ep_set_seed (5);
  hi = ep_normal (shape, 4, 0, sqrt (2.0 / 36), EP_DTYPE_FLOAT64, &error);
  g_assert_no_error (error);
  g = ep_test_read_doubles (glorot, &n);
  l = ep_test_read_doubles (lo, &n);
  h = ep_test_read_doubles (he, &n);
  u = ep_test_read_doubles (hi, &n);
  for (gsize i = 0; i < n; i++)
    {
      g_assert_cmpfloat_with_epsilon (g[i], l[i], 1e-14);
      g_assert_cmpfloat_with_epsilon (h[i], u[i], 1e-14);
    }
}

static void
test_initializer_errors (void)
{
  g_autoptr(GError) error = NULL;
  const gint64 row[] = { 5 };
  const gint64 negative[] = { -1, 3 };
  const gint64 pair[] = { 2, 3 };
  EpTensor *w;

  w = ep_glorot_uniform (row, 1, 1.0, EP_DTYPE_FLOAT32, &error);
  ep_test_assert_failed (w, error, EP_ERROR_SHAPE, "glorot_uniform: ");
  g_clear_error (&error);
  w = ep_he_normal (negative, 2, EP_DTYPE_FLOAT32, &error);
  ep_test_assert_failed (w, error, EP_ERROR_SHAPE, "he_normal: ");
  g_clear_error (&error);
  w = ep_glorot_normal (pair, 2, NAN, EP_DTYPE_FLOAT32, &error);
  ep_test_assert_failed (w, error, EP_ERROR_INVALID_ARGUMENT, "glorot_normal: ");
  g_clear_error (&error);
  w = ep_he_uniform (pair, 2, EP_DTYPE_INT64, &error);
  ep_test_assert_failed (w, error, EP_ERROR_DTYPE, "he_uniform: ");
}

/* dropout: the mask is uniform's draw u >= rate, the kept values scaled
 * by 1 / (1 - rate), the same on every device for one seed; its
 * gradient is the same mask, scaled */
static void
test_dropout_same_on_every_device (void)
{
  g_autoptr(GPtrArray) devices = ep_list_devices ();
  const gint64 shape[] = { 37, 11 };
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) x = ep_normal (shape, 2, 0, 1, EP_DTYPE_FLOAT32, &error);
  g_autoptr(EpTensor) u = NULL;
  g_autofree gdouble *xs = NULL, *us = NULL;
  gsize n;

  ep_set_seed (3);
  u = ep_uniform (shape, 2, 0, 1, EP_DTYPE_FLOAT32, &error);
  g_assert_no_error (error);
  xs = ep_test_read_doubles (x, &n);
  us = ep_test_read_doubles (u, &n);
  for (guint d = 0; d < devices->len; d++)
    {
      EpDevice *device = g_ptr_array_index (devices, d);
      g_autoptr(EpTensor) y = NULL;
      g_autoptr(GPtrArray) grads = NULL;
      g_autoptr(EpGradientTape) tape = ep_gradient_tape_new (FALSE);
      g_autofree gdouble *ys = NULL, *gs = NULL;

      ep_set_seed (3);
      ep_test_push (device);
      g_assert_true (ep_gradient_tape_start (tape, &error));
      ep_gradient_tape_watch (tape, x);
      y = ep_tensor_dropout (x, 0.25, &error);
      g_assert_true (ep_gradient_tape_stop (tape, NULL));
      ep_test_pop (device);
      g_assert_no_error (error);
      g_assert_true (ep_tensor_get_device (y) == device);
      grads = ep_gradient_tape_gradient (tape, &y, 1, (GObject **) &x, 1, NULL, 0, &error);
      g_assert_no_error (error);
      ys = ep_test_read_doubles (y, &n);
      gs = ep_test_read_doubles (g_ptr_array_index (grads, 0), &n);
      for (gsize i = 0; i < n; i++)
        {
          gfloat scale = (gfloat) (1 / 0.75);
          gfloat want = (gfloat) us[i] >= 0.25f ? (gfloat) xs[i] * scale : 0.0f;

          g_assert_cmpfloat (ys[i], ==, want);
          g_assert_cmpfloat (gs[i], ==, (gfloat) us[i] >= 0.25f ? scale : 0.0f);
        }
    }
}

static void
test_dropout_errors (void)
{
  g_autoptr(EpTensor) x = ep_test_new (EP_DTYPE_FLOAT32, EP_SHAPE (3), EP_VALUES (1, 2, 3));
  g_autoptr(EpTensor) i = ep_test_new (EP_DTYPE_INT64, EP_SHAPE (3), EP_VALUES (1, 2, 3));
  const gdouble bad[] = { -0.5, 1.0000001, NAN, INFINITY };

  for (guint k = 0; k < G_N_ELEMENTS (bad); k++)
    {
      g_autoptr(GError) error = NULL;
      EpTensor *y = ep_tensor_dropout (x, bad[k], &error);

      ep_test_assert_failed (y, error, EP_ERROR_INVALID_ARGUMENT, "dropout: ");
    }
  {
    g_autoptr(GError) error = NULL;
    EpTensor *y = ep_tensor_dropout (i, 0.5, &error);

    ep_test_assert_failed (y, error, EP_ERROR_DTYPE, "dropout: ");
  }
}

/* rate 0 keeps the values, rate 1 multiplies them by 0 (NaN stays) */
static void
test_dropout_edges (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) x = ep_test_new (EP_DTYPE_FLOAT64, EP_SHAPE (3), EP_VALUES (1.5, NAN, -2));
  g_autoptr(EpTensor) kept = ep_tensor_dropout (x, 0, &error);
  g_autoptr(EpTensor) dropped = ep_tensor_dropout (x, 1, &error);

  g_assert_no_error (error);
  g_assert_true (kept != x);
  ep_assert_values (kept, EP_DTYPE_FLOAT64, EP_SHAPE (3), EP_VALUES (1.5, NAN, -2));
  ep_assert_values (dropped, EP_DTYPE_FLOAT64, EP_SHAPE (3), EP_VALUES (0, NAN, 0));
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/random/philox-known-answers", test_philox_known_answers);
  g_test_add_func ("/random/uniform-recipe", test_uniform_recipe);
  g_test_add_func ("/random/error/codes", test_error_codes);
  g_test_add_func ("/random/initializers/every-device", test_initializers_same_on_every_device);
  g_test_add_func ("/random/initializers/bounds", test_initializer_bounds);
  g_test_add_func ("/random/initializers/errors", test_initializer_errors);
  g_test_add_func ("/random/dropout/every-device", test_dropout_same_on_every_device);
  g_test_add_func ("/random/dropout/errors", test_dropout_errors);
  g_test_add_func ("/random/dropout/edges", test_dropout_edges);

  return g_test_run ();
}
