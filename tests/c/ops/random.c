/* ops/random.c: the random family: uniform and normal, and the Philox
 * generator's known answers under them, every error path
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "ep-philox-private.h"
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

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/random/philox-known-answers", test_philox_known_answers);
  g_test_add_func ("/random/uniform-recipe", test_uniform_recipe);
  g_test_add_func ("/random/error/codes", test_error_codes);

  return g_test_run ();
}
