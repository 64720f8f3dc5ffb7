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

#include <math.h>
#include <string.h>

#include <eager-glib/eager-glib.h>

#include "ep-op-private.h"
#include "ep-recorder-private.h"
#include "ep-tensor-private.h"

#define MAX_INPUTS 4

typedef struct
{
  EpRecorder     parent;
  const EpOpDef *op;
  gboolean       captured;
  EpOpAttrs      attrs;
  guint          n_inputs, n_outputs;
  EpTensor      *inputs[MAX_INPUTS];
  EpTensor      *outputs[EP_MAX_OUTPUTS];
} Capture;

static gboolean
capture_record (EpRecorder      *recorder,
                const EpOpCall  *call,
                GError         **error)
{
  Capture *c = (Capture *) recorder;

  if (call->op != c->op || c->captured)
    return TRUE;

  g_assert_cmpuint (call->n_inputs, <=, MAX_INPUTS);
  c->captured = TRUE;
  c->attrs = call->attrs;
  c->n_inputs = call->n_inputs;
  c->n_outputs = call->n_outputs;
  for (guint i = 0; i < call->n_inputs; i++)
    c->inputs[i] = g_object_ref (call->inputs[i]);
  for (guint o = 0; o < call->n_outputs; o++)
    c->outputs[o] = g_object_ref (call->outputs[o]);

  return TRUE;
}

static void
capture_clear (Capture *c)
{
  for (guint i = 0; i < c->n_inputs; i++)
    g_clear_object (&c->inputs[i]);
  for (guint o = 0; o < c->n_outputs; o++)
    g_clear_object (&c->outputs[o]);
}

/* The function under test: the op applied to @inputs, giving the output
 * whose gradient is checked. */
typedef EpTensor *(*Forward) (EpTensor **inputs, gconstpointer data, GError **error);

static EpTensor *
tensor_of (const gint64 *shape,
           guint         ndim,
           EpDType       dtype,
           guint         seed)
{
  g_autoptr(GError) error = NULL;
  EpLayout layout;
  gint64 n;
  g_autofree gdouble *values = NULL;
  GRand *rand = g_rand_new_with_seed (seed);
  EpTensor *t;

  g_assert_true (ep_layout_init (&layout, dtype, shape, ndim, "test", NULL));
  n = ep_layout_get_size (&layout);
  values = g_new (gdouble, MAX (n, 1));
  for (gint64 i = 0; i < n; i++)
    values[i] = g_rand_double_range (rand, -2, 2);
  g_rand_free (rand);

  t = ep_tensor_new_from_doubles (values, n, shape, ndim, dtype, &error);
  g_assert_no_error (error);
  return t;
}

static gdouble *
doubles_of (EpTensor *t,
            gsize    *n)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) d = ep_tensor_astype (t, EP_DTYPE_FLOAT64, &error);
  g_autoptr(GBytes) bytes = ep_tensor_to_bytes (d, &error);
  gsize nbytes;
  gconstpointer data;

  g_assert_no_error (error);
  data = g_bytes_get_data (bytes, &nbytes);
  *n = nbytes / sizeof (gdouble);
  return g_memdup2 (data, MAX (nbytes, 1));
}

static gdouble
objective (Forward        f,
           gconstpointer  data,
           EpTensor     **inputs,
           EpTensor      *cotangent)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) y = f (inputs, data, &error);
  g_autoptr(EpTensor) weighted = NULL;
  g_autoptr(EpTensor) total = NULL;

  g_assert_no_error (error);
  weighted = ep_tensor_mul (y, cotangent, &error);
  total = ep_tensor_sum (weighted, NULL, 0, FALSE, &error);
  g_assert_no_error (error);
  return ep_tensor_item_double (total, NULL);
}

static void
check_gradient (const EpOpDef *op,
                Forward        f,
                gconstpointer  data,
                EpTensor     **inputs,
                guint          n_inputs,
                guint          out_index)
{
  g_autoptr(GError) error = NULL;
  Capture capture = { .parent.record = capture_record, .op = op };
  g_autoptr(EpTensor) y = NULL;
  g_autoptr(EpTensor) cotangent = NULL;
  EpTensor *output_grads[EP_MAX_OUTPUTS] = { NULL };
  EpTensor *input_grads[MAX_INPUTS] = { NULL };
  EpOpCall call;

  ep_recorder_push (&capture.parent);
  y = f (inputs, data, &error);
  ep_recorder_pop (&capture.parent);
  g_assert_no_error (error);
  g_assert_true (capture.captured);
  g_assert_nonnull (op->gradient);

  cotangent = tensor_of (y->layout.shape, y->layout.ndim, EP_DTYPE_FLOAT64, 99);

  memset (&call, 0, sizeof call);
  call.op = op;
  call.inputs = capture.inputs;
  call.n_inputs = capture.n_inputs;
  call.attrs = capture.attrs;
  call.n_outputs = capture.n_outputs;
  call.device = ep_tensor_get_device (y);
  for (guint o = 0; o < capture.n_outputs; o++)
    {
      call.outputs[o] = capture.outputs[o];
      call.output_layouts[o] = capture.outputs[o]->layout;
      output_grads[o] = o == out_index ? g_object_ref (cotangent)
                                       : ep_tensor_zeros_like (capture.outputs[o], &error);
      g_assert_no_error (error);
    }

  g_assert_true (op->gradient (&call, output_grads, input_grads, &error));
  g_assert_no_error (error);

  for (guint i = 0; i < n_inputs; i++)
    {
      g_autofree gdouble *analytic = NULL;
      g_autofree gdouble *x = NULL;
      gsize n, n_analytic;
      EpTensor *original = inputs[i];

      if (!ep_dtype_is_floating (inputs[i]->layout.dtype))
        {
          g_assert_null (input_grads[i]);
          continue;
        }

      g_assert_nonnull (input_grads[i]);
      g_assert_cmpuint (input_grads[i]->layout.ndim, ==, inputs[i]->layout.ndim);
      for (guint d = 0; d < inputs[i]->layout.ndim; d++)
        g_assert_cmpint (input_grads[i]->layout.shape[d], ==, inputs[i]->layout.shape[d]);

      analytic = doubles_of (input_grads[i], &n_analytic);
      x = doubles_of (inputs[i], &n);
      g_assert_cmpuint (n, ==, n_analytic);

      for (gsize j = 0; j < n; j++)
        {
          const gdouble h = 1e-6;
          gdouble saved = x[j], plus, minus, numeric;
          g_autoptr(EpTensor) moved = NULL;

          x[j] = saved + h;
          moved = ep_tensor_new_from_doubles (x, n, original->layout.shape, original->layout.ndim,
                                              EP_DTYPE_FLOAT64, &error);
          inputs[i] = moved;
          plus = objective (f, data, inputs, cotangent);
          g_clear_object (&moved);

          x[j] = saved - h;
          moved = ep_tensor_new_from_doubles (x, n, original->layout.shape, original->layout.ndim,
                                              EP_DTYPE_FLOAT64, &error);
          inputs[i] = moved;
          minus = objective (f, data, inputs, cotangent);
          inputs[i] = original;
          x[j] = saved;

          numeric = (plus - minus) / (2 * h);
          if (fabs (numeric - analytic[j]) > 1e-6 * (1 + fabs (numeric)))
            g_error ("%s: input %u element %" G_GSIZE_FORMAT ": analytic %g, numeric %g",
                     op->name, i, j, analytic[j], numeric);
        }
    }

  for (guint o = 0; o < capture.n_outputs; o++)
    g_clear_object (&output_grads[o]);
  for (guint i = 0; i < n_inputs; i++)
    g_clear_object (&input_grads[i]);
  capture_clear (&capture);
}

#define SHAPE(...) ((const gint64[]) { __VA_ARGS__ })

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
  return ep_tensor_broadcast_to (in[0], SHAPE (2, 3, 4), 3, error);
}

static void
test_broadcast_to (void)
{
  EpTensor *in[1] = { tensor_of (SHAPE (3, 1), 2, EP_DTYPE_FLOAT64, 1) };

  check_gradient (&ep_op_broadcast_to, f_broadcast_to, NULL, in, 1, 0);
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
  EpTensor *in[1] = { tensor_of (SHAPE (2, 3, 4), 3, EP_DTYPE_FLOAT64, 2) };

  check_gradient (&ep_op_flip, f_flip, NULL, in, 1, 0);
  g_object_unref (in[0]);
}

static EpTensor *
f_slice_steps (EpTensor **in, gconstpointer data, GError **error)
{
  return ep_tensor_slice (in[0], SHAPE (1, G_MAXINT64), 2, SHAPE (G_MAXINT64, G_MININT64), 2,
                          SHAPE (2, -2), 2, error);
}

static EpTensor *
f_slice_ranges (EpTensor **in, gconstpointer data, GError **error)
{
  return ep_tensor_slice (in[0], SHAPE (1, -2, 2), 3, SHAPE (4, 6, 3), 3, NULL, 0, error);
}

static void
test_slice (void)
{
  EpTensor *in[1] = { tensor_of (SHAPE (5, 6), 2, EP_DTYPE_FLOAT64, 3) };
  EpTensor *in3[1] = { tensor_of (SHAPE (5, 6, 3), 3, EP_DTYPE_FLOAT64, 4) };

  check_gradient (&ep_op_slice, f_slice_steps, NULL, in, 1, 0);
  check_gradient (&ep_op_slice, f_slice_ranges, NULL, in3, 1, 0);
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
    tensor_of (SHAPE (2, 3), 2, EP_DTYPE_FLOAT64, 5),
    tensor_of (SHAPE (2, 1), 2, EP_DTYPE_FLOAT64, 6),
    tensor_of (SHAPE (2, 2), 2, EP_DTYPE_FLOAT64, 7),
  };

  check_gradient (&ep_op_concatenate, f_concatenate, NULL, in, 3, 0);
  for (guint i = 0; i < 3; i++)
    g_object_unref (in[i]);
}

static EpTensor *
f_tile (EpTensor **in, gconstpointer data, GError **error)
{
  return ep_tensor_tile (in[0], SHAPE (2, 1, 3), 3, error);
}

static EpTensor *
f_tile_8d (EpTensor **in, gconstpointer data, GError **error)
{
  /* 8 dimensions: the rule scatters instead of splitting an axis */
  return ep_tensor_tile (in[0], SHAPE (1, 2, 1, 1, 1, 1, 2, 3), 8, error);
}

static void
test_tile (void)
{
  EpTensor *in[1] = { tensor_of (SHAPE (2, 3), 2, EP_DTYPE_FLOAT64, 8) };
  EpTensor *in8[1] = { tensor_of (SHAPE (1, 1, 1, 1, 1, 1, 2, 2), 8, EP_DTYPE_FLOAT64, 9) };

  check_gradient (&ep_op_tile, f_tile, NULL, in, 1, 0);
  check_gradient (&ep_op_tile, f_tile_8d, NULL, in8, 1, 0);
  g_object_unref (in[0]);
  g_object_unref (in8[0]);
}

static EpTensor *
f_pad (EpTensor **in, gconstpointer data, GError **error)
{
  EpPadMode mode = GPOINTER_TO_INT (data);

  return ep_tensor_pad (in[0], SHAPE (4, 5, 2, 1), 4, mode, 0.5, error);
}

static void
test_pad (void)
{
  EpTensor *in[1] = { tensor_of (SHAPE (3, 4), 2, EP_DTYPE_FLOAT64, 10) };

  check_gradient (&ep_op_pad, f_pad, GINT_TO_POINTER (EP_PAD_CONSTANT), in, 1, 0);
  check_gradient (&ep_op_pad, f_pad, GINT_TO_POINTER (EP_PAD_REFLECT), in, 1, 0);
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
    tensor_of (SHAPE (3, 4), 2, EP_DTYPE_FLOAT64, 11),
    int_tensor ((const gdouble[]) { 1, -1, 1, 0, 1, 2 }, 6, SHAPE (2, 3), 2),
  };

  check_gradient (&ep_op_take, f_take, NULL, in, 2, 0);
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
    tensor_of (SHAPE (3, 4), 2, EP_DTYPE_FLOAT64, 12),
    int_tensor ((const gdouble[]) { 0, 3, -1, 1, 1, 2 }, 6, SHAPE (3, 2), 2),
  };
  EpTensor *broadcast[2] = {
    tensor_of (SHAPE (1, 4), 2, EP_DTYPE_FLOAT64, 13),
    int_tensor ((const gdouble[]) { 0, 3, -1, 1, 1, 1 }, 6, SHAPE (3, 2), 2),
  };

  check_gradient (&ep_op_take_along_axis, f_take_along_axis, NULL, same, 2, 0);
  check_gradient (&ep_op_take_along_axis, f_take_along_axis, NULL, broadcast, 2, 0);
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
    tensor_of (SHAPE (3, 4), 2, EP_DTYPE_FLOAT64, 14),
    ep_tensor_new_from_doubles ((const gdouble[]) { 1, 0, 1 }, 3, SHAPE (3), 1, EP_DTYPE_BOOL, &error),
  };
  EpTensor *all[2] = {
    tensor_of (SHAPE (2, 2), 2, EP_DTYPE_FLOAT64, 15),
    ep_tensor_new_from_doubles ((const gdouble[]) { 0, 1, 1, 1 }, 4, SHAPE (2, 2), 2, EP_DTYPE_BOOL, &error),
  };

  g_assert_no_error (error);
  check_gradient (&ep_op_mask, f_mask, NULL, rows, 2, 0);
  check_gradient (&ep_op_mask, f_mask, NULL, all, 2, 0);
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
    tensor_of (SHAPE (3, 4), 2, EP_DTYPE_FLOAT64, 16),
    int_tensor ((const gdouble[]) { 1, 3, -3 }, 3, SHAPE (3), 1),   /* 1 twice */
    tensor_of (SHAPE (3, 3), 2, EP_DTYPE_FLOAT64, 17),
  };
  EpTensor *add[3] = {
    tensor_of (SHAPE (3, 4), 2, EP_DTYPE_FLOAT64, 18),
    int_tensor ((const gdouble[]) { 0, 2, 2, 2 }, 4, SHAPE (2, 2), 2),
    tensor_of (SHAPE (1, 2, 2), 3, EP_DTYPE_FLOAT64, 19),          /* broadcast */
  };

  check_gradient (&ep_op_index_update, f_index_update, NULL, update, 3, 0);
  check_gradient (&ep_op_scatter_add, f_scatter_add, NULL, add, 3, 0);
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
  g_autoptr(EpTensor) noise = tensor_of (shape, ndim, EP_DTYPE_FLOAT64, seed);
  gint64 n = shape[ndim - 1];
  g_autofree gdouble *eye = g_new0 (gdouble, n * n);
  g_autoptr(EpTensor) diagonal = NULL;
  EpTensor *a;

  for (gint64 i = 0; i < n; i++)
    eye[i * n + i] = 5;
  diagonal = ep_tensor_new_from_doubles (eye, n * n, SHAPE (n, n), 2, EP_DTYPE_FLOAT64, &error);
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
  EpTensor *a[1] = { well_conditioned (SHAPE (2, 3, 3), 3, 20) };
  EpTensor *negative[1] = { tensor_of (SHAPE (2, 2), 2, EP_DTYPE_FLOAT64, 21) };
  EpTensor *vector[2] = { well_conditioned (SHAPE (3, 3), 2, 22), tensor_of (SHAPE (3), 1, EP_DTYPE_FLOAT64, 23) };
  EpTensor *batch[2] = { well_conditioned (SHAPE (1, 3, 3), 3, 24), tensor_of (SHAPE (2, 3, 2), 3, EP_DTYPE_FLOAT64, 25) };
  EpTensor *vectors[2] = { well_conditioned (SHAPE (2, 3, 3), 3, 26), tensor_of (SHAPE (3), 1, EP_DTYPE_FLOAT64, 27) };

  check_gradient (&ep_op_inv, f_inv, NULL, a, 1, 0);
  check_gradient (&ep_op_slogdet, f_logabsdet, NULL, a, 1, 1);
  check_gradient (&ep_op_slogdet, f_logabsdet, NULL, negative, 1, 1);
  check_gradient (&ep_op_solve, f_solve, NULL, vector, 2, 0);
  check_gradient (&ep_op_solve, f_solve, NULL, batch, 2, 0);
  check_gradient (&ep_op_solve, f_solve, NULL, vectors, 2, 0);

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
