/* staged-mlp.c: the MLP epoch of bench/run from C, eager and staged
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Usage: staged-mlp DIR [EPOCHS]. DIR holds what bench/run wrote: the digits
 * (x.f32: 1797 × 64 float32, y.i64: 1797 labels) and the initial weights
 * (w1.f32 64 × 128, b1.f32, w2.f32 128 × 10, b2.f32). The step is
 * bench/run's: 64-128-10, ReLU, mean softmax cross-entropy, gradients by
 * a tape, SGD with learning rate 0.1, batch 32. It runs eagerly, then as
 * an EpFunction with the batch dimension unknown (one graph for the
 * batches of 32 and the last one of 5). Prints one JSON object: each
 * way's best and median seconds per epoch (of EPOCHS, 6 unless given;
 * the first epoch, which traces, not counted: it is "first"), the
 * losses, and the process's peak resident memory (both ways ran in it).
 */

#include <eager-glib/eager-glib.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static guint epochs = 6;

#define N_SAMPLES 1797
#define BATCH 32

static double
now (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void
check (GError *error)
{
  if (error != NULL)
    g_error ("staged-mlp: %s", error->message);
}

static EpTensor *
load (const char    *dir,
      const char    *name,
      EpDType        dtype,
      const gint64  *shape,
      guint          ndim)
{
  g_autofree char *path = g_build_filename (dir, name, NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(GMappedFile) file = g_mapped_file_new (path, FALSE, &error);
  g_autoptr(GBytes) bytes = NULL;
  EpTensor *tensor;

  check (error);
  bytes = g_mapped_file_get_bytes (file);
  tensor = ep_tensor_new_from_bytes (bytes, dtype, shape, ndim, &error);
  check (error);
  return tensor;
}

typedef struct
{
  EpVariable *params[4];
} Mlp;

static GPtrArray *
step (EpTensor  **inputs,
      guint       n_inputs,
      gpointer    user_data,
      GError    **error)
{
  Mlp *mlp = user_data;
  g_autoptr(EpGradientTape) tape = ep_gradient_tape_new (FALSE);
  g_autoptr(EpTensor) w1 = NULL, b1 = NULL, w2 = NULL, b2 = NULL;
  g_autoptr(EpTensor) h = NULL, hb = NULL, a = NULL, z = NULL, zb = NULL, ce = NULL;
  g_autoptr(GPtrArray) grads = NULL;
  g_autoptr(GPtrArray) results = g_ptr_array_new_with_free_func (g_object_unref);
  EpTensor *loss;

  if (!ep_gradient_tape_start (tape, error))
    return NULL;
  w1 = ep_variable_read (mlp->params[0]);
  b1 = ep_variable_read (mlp->params[1]);
  w2 = ep_variable_read (mlp->params[2]);
  b2 = ep_variable_read (mlp->params[3]);
  if ((h = ep_tensor_matmul (inputs[0], w1, error)) == NULL
      || (hb = ep_tensor_add (h, b1, error)) == NULL
      || (a = ep_tensor_relu (hb, error)) == NULL
      || (z = ep_tensor_matmul (a, w2, error)) == NULL
      || (zb = ep_tensor_add (z, b2, error)) == NULL
      || (ce = ep_tensor_crossentropy (zb, inputs[1], error)) == NULL
      || (loss = ep_tensor_mean (ce, NULL, 0, FALSE, error)) == NULL)
    return NULL;
  g_ptr_array_add (results, loss);
  if (!ep_gradient_tape_stop (tape, error))
    return NULL;

  grads = ep_gradient_tape_gradient (tape, &loss, 1, (GObject **) mlp->params, 4, NULL, 0, error);
  if (grads == NULL)
    return NULL;
  for (guint i = 0; i < 4; i++)
    {
      g_autoptr(EpTensor) scaled = ep_tensor_mul_scalar (g_ptr_array_index (grads, i), 0.1, error);

      if (scaled == NULL || !ep_variable_assign_sub (mlp->params[i], scaled, error))
        return NULL;
    }

  return g_steal_pointer (&results);
}

typedef struct
{
  GPtrArray *xs, *ys;      /* the batches */
  EpTensor  *initial[4];
} Data;

static double
epoch (Data       *data,
       Mlp        *mlp,
       EpFunction *staged)
{
  double total = 0;

  for (guint b = 0; b < data->xs->len; b++)
    {
      g_autoptr(GError) error = NULL;
      EpTensor *inputs[2] = { g_ptr_array_index (data->xs, b), g_ptr_array_index (data->ys, b) };
      g_autoptr(GPtrArray) result = staged != NULL ? ep_function_call (staged, inputs, 2, &error)
                                                   : step (inputs, 2, mlp, &error);

      check (error);
      total += ep_tensor_item_double (g_ptr_array_index (result, 0), &error)
               * ep_tensor_get_shape (inputs[0], NULL)[0];
      check (error);
    }

  return total / N_SAMPLES;
}

static int
compare_doubles (const void *a,
                 const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;

  return x < y ? -1 : x > y;
}

static void
run (GString    *json,
     const char *name,
     Data       *data,
     gboolean    staged)
{
  Mlp mlp;
  g_autoptr(EpFunction) fn = NULL;
  g_autofree double *times = g_new (double, epochs);
  g_autofree double *losses = g_new (double, epochs);

  for (guint i = 0; i < 4; i++)
    mlp.params[i] = ep_variable_new (data->initial[i], NULL);
  if (staged)
    {
      g_autoptr(GError) error = NULL;
      const gint64 x_shape[] = { -1, 64 }, y_shape[] = { -1 };
      EpTensorSpec *specs[2] = {
        ep_tensor_spec_new (x_shape, 2, EP_DTYPE_FLOAT32, &error),
        ep_tensor_spec_new (y_shape, 1, EP_DTYPE_INT64, &error),
      };

      check (error);
      fn = ep_function_new_with_signature (step, &mlp, NULL, specs, 2);
      ep_tensor_spec_unref (specs[0]);
      ep_tensor_spec_unref (specs[1]);
    }

  for (guint e = 0; e < epochs; e++)
    {
      double t0 = now ();

      losses[e] = epoch (data, &mlp, fn);
      times[e] = now () - t0;
    }
  g_string_append_printf (json, "%s\"%s\": {\"first\": %.9g, ", json->len > 1 ? ", " : "", name, times[0]);
  qsort (times + 1, epochs - 1, sizeof (double), compare_doubles);
  g_string_append_printf (json, "\"best\": %.9g, \"median\": %.9g, \"losses\": [",
                          times[1], times[1 + (epochs - 1) / 2]);
  for (guint e = 0; e < epochs; e++)
    g_string_append_printf (json, "%s%.9g", e > 0 ? ", " : "", losses[e]);
  g_string_append (json, "]");
  if (staged)
    g_string_append_printf (json, ", \"traces\": %u", ep_function_get_trace_count (fn));
  g_string_append (json, "}");

  for (guint i = 0; i < 4; i++)
    g_object_unref (mlp.params[i]);
}

/* the peak resident set (VmHWM), as bench/run's peak_rss_mib () */
static double
peak_rss_mib (void)
{
  g_autofree char *status = NULL;
  const char *line;

  if (!g_file_get_contents ("/proc/self/status", &status, NULL, NULL)
      || (line = strstr (status, "VmHWM:")) == NULL)
    return 0;
  return g_ascii_strtod (line + strlen ("VmHWM:"), NULL) / 1024;
}

int
main (int    argc,
      char **argv)
{
  const gint64 x_shape[] = { N_SAMPLES, 64 }, y_shape[] = { N_SAMPLES };
  const gint64 w1_shape[] = { 64, 128 }, b1_shape[] = { 128 }, w2_shape[] = { 128, 10 }, b2_shape[] = { 10 };
  g_autoptr(EpTensor) x = NULL, y = NULL;
  g_autoptr(GString) json = g_string_new ("{");
  Data data;

  if (argc < 2 || argc > 3 || (argc == 3 && (epochs = atoi (argv[2])) < 2))
    {
      fprintf (stderr, "usage: %s DIR [EPOCHS (2 or more)]\n", argv[0]);
      return 2;
    }

  x = load (argv[1], "x.f32", EP_DTYPE_FLOAT32, x_shape, 2);
  y = load (argv[1], "y.i64", EP_DTYPE_INT64, y_shape, 1);
  data.initial[0] = load (argv[1], "w1.f32", EP_DTYPE_FLOAT32, w1_shape, 2);
  data.initial[1] = load (argv[1], "b1.f32", EP_DTYPE_FLOAT32, b1_shape, 1);
  data.initial[2] = load (argv[1], "w2.f32", EP_DTYPE_FLOAT32, w2_shape, 2);
  data.initial[3] = load (argv[1], "b2.f32", EP_DTYPE_FLOAT32, b2_shape, 1);

  /* the batches, made once (contiguous copies, as bench/run's) */
  data.xs = g_ptr_array_new_with_free_func (g_object_unref);
  data.ys = g_ptr_array_new_with_free_func (g_object_unref);
  for (gint64 start = 0; start < N_SAMPLES; start += BATCH)
    {
      g_autoptr(GError) error = NULL;
      gint64 stop = MIN (start + BATCH, N_SAMPLES);
      g_autoptr(EpTensor) xv = ep_tensor_slice (x, &start, 1, &stop, 1, NULL, 0, &error);
      g_autoptr(EpTensor) yv = ep_tensor_slice (y, &start, 1, &stop, 1, NULL, 0, &error);

      check (error);
      g_ptr_array_add (data.xs, ep_tensor_contiguous (xv, &error));
      g_ptr_array_add (data.ys, ep_tensor_contiguous (yv, &error));
      check (error);
    }

  run (json, "mlp_c_eager", &data, FALSE);
  run (json, "mlp_c_staged", &data, TRUE);

  g_string_append_printf (json, ", \"peak_rss_mib\": %.1f}\n", peak_rss_mib ());
  fputs (json->str, stdout);

  g_ptr_array_unref (data.xs);
  g_ptr_array_unref (data.ys);
  for (guint i = 0; i < 4; i++)
    g_object_unref (data.initial[i]);
  return 0;
}
