/* test-shape-gradients.c: the gradient rules of the shape, indexing and
 * LAPACK ops against central finite differences in float64
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * A recorder captures the op's call as a tape would see it; the rule is
 * then asked for the vector-Jacobian product with a random cotangent G,
 * and each input element's entry is compared with
 * (L(x + h) - L(x - h)) / 2h where L(x) = sum (f(x) * G).
 */

#include "ep-test-gradient.h"

static EpTensor *
int_tensor (const gdouble *values,
            gsize          n,
            const gint64  *shape,
            guint          ndim)
{
  g_autoptr(GError) error = NULL;
  EpTensor *t = ep_tensor_new_from_doubles (values, n, shape, ndim, EP_DTYPE_INT64, &error);

  g_assert_no_error (error);
  return t;
}

/* Views */

static EpTensor *
f_broadcast_to (EpTensor **in, gconstpointer data, GError **error)
{
  return ep_tensor_broadcast_to (in[0], EP_DIMS (2, 3, 4), 3, error);
}

static void
test_broadcast_to (void)
{
  EpTensor *in[1] = { ep_test_random (EP_DIMS (3, 1), 2, EP_DTYPE_FLOAT64, 1) };

  ep_test_check_gradient_of (&ep_op_broadcast_to, f_broadcast_to, NULL, in, 1, 0);
  g_object_unref (in[0]);
}

static EpTensor *
f_flip (EpTensor **in, gconstpointer data, GError **error)
{
  const gint axes[] = { 0, -1 };

  return ep_tensor_flip (in[0], axes, 2, error);
}

static void
test_flip (void)
{
  EpTensor *in[1] = { ep_test_random (EP_DIMS (2, 3, 4), 3, EP_DTYPE_FLOAT64, 2) };

  ep_test_check_gradient_of (&ep_op_flip, f_flip, NULL, in, 1, 0);
  g_object_unref (in[0]);
}

static EpTensor *
f_slice_steps (EpTensor **in, gconstpointer data, GError **error)
{
  return ep_tensor_slice (in[0], EP_DIMS (1, G_MAXINT64), 2, EP_DIMS (G_MAXINT64, G_MININT64), 2,
                          EP_DIMS (2, -2), 2, error);
}

static EpTensor *
f_slice_ranges (EpTensor **in, gconstpointer data, GError **error)
{
  return ep_tensor_slice (in[0], EP_DIMS (1, -2, 2), 3, EP_DIMS (4, 6, 3), 3, NULL, 0, error);
}

static void
test_slice (void)
{
  EpTensor *in[1] = { ep_test_random (EP_DIMS (5, 6), 2, EP_DTYPE_FLOAT64, 3) };
  EpTensor *in3[1] = { ep_test_random (EP_DIMS (5, 6, 3), 3, EP_DTYPE_FLOAT64, 4) };

  ep_test_check_gradient_of (&ep_op_slice, f_slice_steps, NULL, in, 1, 0);
  ep_test_check_gradient_of (&ep_op_slice, f_slice_ranges, NULL, in3, 1, 0);
  g_object_unref (in[0]);
  g_object_unref (in3[0]);
}

/* Joining */

static EpTensor *
f_concatenate (EpTensor **in, gconstpointer data, GError **error)
{
  return ep_concatenate (in, 3, 1, error);
}

static void
test_concatenate (void)
{
  EpTensor *in[3] = {
    ep_test_random (EP_DIMS (2, 3), 2, EP_DTYPE_FLOAT64, 5),
    ep_test_random (EP_DIMS (2, 1), 2, EP_DTYPE_FLOAT64, 6),
    ep_test_random (EP_DIMS (2, 2), 2, EP_DTYPE_FLOAT64, 7),
  };

  ep_test_check_gradient_of (&ep_op_concatenate, f_concatenate, NULL, in, 3, 0);
  for (guint i = 0; i < 3; i++)
    g_object_unref (in[i]);
}

static EpTensor *
f_tile (EpTensor **in, gconstpointer data, GError **error)
{
  return ep_tensor_tile (in[0], EP_DIMS (2, 1, 3), 3, error);
}

static EpTensor *
f_tile_8d (EpTensor **in, gconstpointer data, GError **error)
{
  /* 8 dimensions: the rule scatters instead of splitting an axis */
  return ep_tensor_tile (in[0], EP_DIMS (1, 2, 1, 1, 1, 1, 2, 3), 8, error);
}

static void
test_tile (void)
{
  EpTensor *in[1] = { ep_test_random (EP_DIMS (2, 3), 2, EP_DTYPE_FLOAT64, 8) };
  EpTensor *in8[1] = { ep_test_random (EP_DIMS (1, 1, 1, 1, 1, 1, 2, 2), 8, EP_DTYPE_FLOAT64, 9) };

  ep_test_check_gradient_of (&ep_op_tile, f_tile, NULL, in, 1, 0);
  ep_test_check_gradient_of (&ep_op_tile, f_tile_8d, NULL, in8, 1, 0);
  g_object_unref (in[0]);
  g_object_unref (in8[0]);
}

static EpTensor *
f_pad (EpTensor **in, gconstpointer data, GError **error)
{
  EpPadMode mode = GPOINTER_TO_INT (data);

  return ep_tensor_pad (in[0], EP_DIMS (4, 5, 2, 1), 4, mode, 0.5, error);
}

static void
test_pad (void)
{
  EpTensor *in[1] = { ep_test_random (EP_DIMS (3, 4), 2, EP_DTYPE_FLOAT64, 10) };

  ep_test_check_gradient_of (&ep_op_pad, f_pad, GINT_TO_POINTER (EP_PAD_CONSTANT), in, 1, 0);
  ep_test_check_gradient_of (&ep_op_pad, f_pad, GINT_TO_POINTER (EP_PAD_REFLECT), in, 1, 0);
  g_object_unref (in[0]);
}

/* Indexing */

static EpTensor *
f_take (EpTensor **in, gconstpointer data, GError **error)
{
  return ep_tensor_take (in[0], in[1], 1, error);
}

static void
test_take (void)
{
  EpTensor *in[2] = {
    ep_test_random (EP_DIMS (3, 4), 2, EP_DTYPE_FLOAT64, 11),
    int_tensor ((const gdouble[]) { 1, -1, 1, 0, 1, 2 }, 6, EP_DIMS (2, 3), 2),
  };

  ep_test_check_gradient_of (&ep_op_take, f_take, NULL, in, 2, 0);
  g_object_unref (in[0]);
  g_object_unref (in[1]);
}

static EpTensor *
f_take_along_axis (EpTensor **in, gconstpointer data, GError **error)
{
  return ep_tensor_take_along_axis (in[0], in[1], 1, error);
}

static void
test_take_along_axis (void)
{
  EpTensor *same[2] = {
    ep_test_random (EP_DIMS (3, 4), 2, EP_DTYPE_FLOAT64, 12),
    int_tensor ((const gdouble[]) { 0, 3, -1, 1, 1, 2 }, 6, EP_DIMS (3, 2), 2),
  };
  EpTensor *broadcast[2] = {
    ep_test_random (EP_DIMS (1, 4), 2, EP_DTYPE_FLOAT64, 13),
    int_tensor ((const gdouble[]) { 0, 3, -1, 1, 1, 1 }, 6, EP_DIMS (3, 2), 2),
  };

  ep_test_check_gradient_of (&ep_op_take_along_axis, f_take_along_axis, NULL, same, 2, 0);
  ep_test_check_gradient_of (&ep_op_take_along_axis, f_take_along_axis, NULL, broadcast, 2, 0);
  for (guint i = 0; i < 2; i++)
    {
      g_object_unref (same[i]);
      g_object_unref (broadcast[i]);
    }
}

static EpTensor *
f_mask (EpTensor **in, gconstpointer data, GError **error)
{
  return ep_tensor_mask (in[0], in[1], error);
}

static void
test_mask (void)
{
  g_autoptr(GError) error = NULL;
  EpTensor *rows[2] = {
    ep_test_random (EP_DIMS (3, 4), 2, EP_DTYPE_FLOAT64, 14),
    ep_tensor_new_from_doubles ((const gdouble[]) { 1, 0, 1 }, 3, EP_DIMS (3), 1, EP_DTYPE_BOOL, &error),
  };
  EpTensor *all[2] = {
    ep_test_random (EP_DIMS (2, 2), 2, EP_DTYPE_FLOAT64, 15),
    ep_tensor_new_from_doubles ((const gdouble[]) { 0, 1, 1, 1 }, 4, EP_DIMS (2, 2), 2, EP_DTYPE_BOOL, &error),
  };

  g_assert_no_error (error);
  ep_test_check_gradient_of (&ep_op_mask, f_mask, NULL, rows, 2, 0);
  ep_test_check_gradient_of (&ep_op_mask, f_mask, NULL, all, 2, 0);
  for (guint i = 0; i < 2; i++)
    {
      g_object_unref (rows[i]);
      g_object_unref (all[i]);
    }
}

static EpTensor *
f_index_update (EpTensor **in, gconstpointer data, GError **error)
{
  return ep_tensor_index_update (in[0], in[1], in[2], 1, error);
}

static EpTensor *
f_scatter_add (EpTensor **in, gconstpointer data, GError **error)
{
  return ep_tensor_scatter_add (in[0], in[1], in[2], 1, error);
}

static void
test_scatters (void)
{
  EpTensor *update[3] = {
    ep_test_random (EP_DIMS (3, 4), 2, EP_DTYPE_FLOAT64, 16),
    int_tensor ((const gdouble[]) { 1, 3, -3 }, 3, EP_DIMS (3), 1),   /* 1 twice */
    ep_test_random (EP_DIMS (3, 3), 2, EP_DTYPE_FLOAT64, 17),
  };
  EpTensor *add[3] = {
    ep_test_random (EP_DIMS (3, 4), 2, EP_DTYPE_FLOAT64, 18),
    int_tensor ((const gdouble[]) { 0, 2, 2, 2 }, 4, EP_DIMS (2, 2), 2),
    ep_test_random (EP_DIMS (1, 2, 2), 3, EP_DTYPE_FLOAT64, 19),      /* broadcast */
  };

  ep_test_check_gradient_of (&ep_op_index_update, f_index_update, NULL, update, 3, 0);
  ep_test_check_gradient_of (&ep_op_scatter_add, f_scatter_add, NULL, add, 3, 0);
  for (guint i = 0; i < 3; i++)
    {
      g_object_unref (update[i]);
      g_object_unref (add[i]);
    }
}

/* Linear algebra */

static EpTensor *
well_conditioned (const gint64 *shape,
                  guint         ndim,
                  guint         seed)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) noise = ep_test_random (shape, ndim, EP_DTYPE_FLOAT64, seed);
  gint64 n = shape[ndim - 1];
  g_autofree gdouble *eye = g_new0 (gdouble, n * n);
  g_autoptr(EpTensor) diagonal = NULL;
  EpTensor *a;

  for (gint64 i = 0; i < n; i++)
    eye[i * n + i] = 5;
  diagonal = ep_tensor_new_from_doubles (eye, n * n, EP_DIMS (n, n), 2, EP_DTYPE_FLOAT64, &error);
  a = ep_tensor_add (noise, diagonal, &error);
  g_assert_no_error (error);
  return a;
}

static EpTensor *
f_inv (EpTensor **in, gconstpointer data, GError **error)
{
  return ep_tensor_inv (in[0], error);
}

static EpTensor *
f_logabsdet (EpTensor **in, gconstpointer data, GError **error)
{
  EpTensor *logabsdet = NULL;

  return ep_tensor_slogdet (in[0], NULL, &logabsdet, error) ? logabsdet : NULL;
}

static EpTensor *
f_solve (EpTensor **in, gconstpointer data, GError **error)
{
  return ep_tensor_solve (in[0], in[1], error);
}

static void
test_lapack (void)
{
  EpTensor *a[1] = { well_conditioned (EP_DIMS (2, 3, 3), 3, 20) };
  EpTensor *negative[1] = { ep_test_random (EP_DIMS (2, 2), 2, EP_DTYPE_FLOAT64, 21) };
  EpTensor *vector[2] = { well_conditioned (EP_DIMS (3, 3), 2, 22),
                         ep_test_random (EP_DIMS (3), 1, EP_DTYPE_FLOAT64, 23) };
  EpTensor *batch[2] = { well_conditioned (EP_DIMS (1, 3, 3), 3, 24),
                        ep_test_random (EP_DIMS (2, 3, 2), 3, EP_DTYPE_FLOAT64, 25) };
  EpTensor *vectors[2] = { well_conditioned (EP_DIMS (2, 3, 3), 3, 26),
                          ep_test_random (EP_DIMS (3), 1, EP_DTYPE_FLOAT64, 27) };

  ep_test_check_gradient_of (&ep_op_inv, f_inv, NULL, a, 1, 0);
  ep_test_check_gradient_of (&ep_op_slogdet, f_logabsdet, NULL, a, 1, 1);
  ep_test_check_gradient_of (&ep_op_slogdet, f_logabsdet, NULL, negative, 1, 1);
  ep_test_check_gradient_of (&ep_op_solve, f_solve, NULL, vector, 2, 0);
  ep_test_check_gradient_of (&ep_op_solve, f_solve, NULL, batch, 2, 0);
  ep_test_check_gradient_of (&ep_op_solve, f_solve, NULL, vectors, 2, 0);

  g_object_unref (a[0]);
  g_object_unref (negative[0]);
  for (guint i = 0; i < 2; i++)
    {
      g_object_unref (vector[i]);
      g_object_unref (batch[i]);
      g_object_unref (vectors[i]);
    }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/gradient/broadcast-to", test_broadcast_to);
  g_test_add_func ("/gradient/flip", test_flip);
  g_test_add_func ("/gradient/slice", test_slice);
  g_test_add_func ("/gradient/concatenate", test_concatenate);
  g_test_add_func ("/gradient/tile", test_tile);
  g_test_add_func ("/gradient/pad", test_pad);
  g_test_add_func ("/gradient/take", test_take);
  g_test_add_func ("/gradient/take-along-axis", test_take_along_axis);
  g_test_add_func ("/gradient/mask", test_mask);
  g_test_add_func ("/gradient/scatters", test_scatters);
  g_test_add_func ("/gradient/lapack", test_lapack);

  return g_test_run ();
}
