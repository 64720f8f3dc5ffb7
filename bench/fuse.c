/* fuse.c: staged workloads with the graph passes off and on
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Each workload runs eagerly, then staged (EpFunction) with
 * EP_GRAPH_PASSES=none and with every pass; each figure is the best of
 * several rounds of the per-call mean, in milliseconds.
 *
 *   _build/bench/ep-bench-fuse [ROUNDS [WORKLOAD [SCALE]]]
 *
 * WORKLOAD (a word of its name, "" for all) runs that one only; SCALE
 * multiplies the sizes (4 for arrays beyond a 32 MiB L3).
 */

#include <eager-glib/eager-glib.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define T(call) do { if ((call) == NULL) return NULL; } while (0)

static GPtrArray *
one (EpTensor *tensor)
{
  GPtrArray *result = g_ptr_array_new_with_free_func (g_object_unref);

  if (tensor != NULL)
    g_ptr_array_add (result, tensor);
  return result;
}

/* x.square ().sum ().sqrt () */
static GPtrArray *
norm (EpTensor **in, guint n, gpointer data, GError **error)
{
  g_autoptr(EpTensor) a = NULL, b = NULL;

  T (a = ep_tensor_square (in[0], error));
  T (b = ep_tensor_sum (a, NULL, 0, FALSE, error));
  return one (ep_tensor_sqrt (b, error));
}

/* ((x * y).exp () - x).square () + 1.5 */
static GPtrArray *
chain (EpTensor **in, guint n, gpointer data, GError **error)
{
  g_autoptr(EpTensor) a = NULL, b = NULL, c = NULL, d = NULL;

  T (a = ep_tensor_mul (in[0], in[1], error));
  T (b = ep_tensor_exp (a, error));
  T (c = ep_tensor_sub (b, in[0], error));
  T (d = ep_tensor_square (c, error));
  return one (ep_tensor_add_scalar (d, 1.5, error));
}

static GPtrArray *
softmax (EpTensor **in, guint n, gpointer data, GError **error)
{
  const gint axis = -1;
  g_autoptr(EpTensor) m = NULL, d = NULL, e = NULL, s = NULL;

  T (m = ep_tensor_max (in[0], &axis, 1, TRUE, error));
  T (d = ep_tensor_sub (in[0], m, error));
  T (e = ep_tensor_exp (d, error));
  T (s = ep_tensor_sum (e, &axis, 1, TRUE, error));
  return one (ep_tensor_div (e, s, error));
}

static GPtrArray *
layer_norm (EpTensor **in, guint n, gpointer data, GError **error)
{
  const gint axis = -1;
  g_autoptr(EpTensor) mu = NULL, d = NULL, sq = NULL, var = NULL, ve = NULL, sd = NULL,
                      z = NULL, zs = NULL;

  T (mu = ep_tensor_mean (in[0], &axis, 1, TRUE, error));
  T (d = ep_tensor_sub (in[0], mu, error));
  T (sq = ep_tensor_mul (d, d, error));
  T (var = ep_tensor_mean (sq, &axis, 1, TRUE, error));
  T (ve = ep_tensor_add_scalar (var, 1e-5, error));
  T (sd = ep_tensor_sqrt (ve, error));
  T (z = ep_tensor_div (d, sd, error));
  T (zs = ep_tensor_mul (z, in[1], error));
  return one (ep_tensor_add (zs, in[2], error));
}

static double
now_ms (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static int rounds = 15;

/* the device the inputs are on: its queue is waited for after each call */
static EpDevice *device;

/* best of @rounds of the mean of @calls calls; @fn NULL: eagerly */
static double
measure (EpFunction *fn, EpTensorsFunc func, EpTensor **in, guint n_in, int calls)
{
  double best = 1e30;

  for (int r = -1; r < rounds; r++)
    {
      double start = now_ms ();

      for (int c = 0; c < calls; c++)
        {
          g_autoptr(GError) error = NULL;
          g_autoptr(GPtrArray) out = fn != NULL ? ep_function_call (fn, in, n_in, &error)
                                                : func (in, n_in, NULL, &error);

          if (out == NULL || !ep_device_synchronize (device, &error))
            {
              fprintf (stderr, "%s\n", error->message);
              exit (1);
            }
        }
      if (r >= 0)
        best = MIN (best, (now_ms () - start) / calls);
    }

  return best;
}

static const char *only;

static void
row (const char *name, EpTensorsFunc func, EpTensor **in, guint n_in, int calls)
{
  double eager;

  if (only != NULL && strstr (name, only) == NULL)
    return;
  eager = measure (NULL, func, in, n_in, calls);
  double staged[2];
  const char *passes[2] = { "none", "all" };

  for (int p = 0; p < 2; p++)
    {
      g_autoptr(EpFunction) fn = NULL;

      g_setenv ("EP_GRAPH_PASSES", passes[p], TRUE);
      fn = ep_function_new (func, NULL, NULL);
      staged[p] = measure (fn, func, in, n_in, calls);
    }
  printf ("%-28s eager %7.3f ms   staged, passes none %7.3f ms   all %7.3f ms   (%.2fx)\n",
          name, eager, staged[0], staged[1], staged[0] / staged[1]);
}

static EpTensor *
random_tensor (const gint64 *shape, guint ndim)
{
  g_autoptr(GError) error = NULL;
  EpTensor *t = ep_normal (shape, ndim, 0, 1, EP_DTYPE_FLOAT32, &error);

  if (t == NULL)
    {
      fprintf (stderr, "%s\n", error->message);
      exit (1);
    }
  return t;
}

int
main (int argc, char **argv)
{
  gint64 scale = argc > 3 ? atoi (argv[3]) : 1;
  const gint64 flat[] = { scale * (4 << 20) }, rows_shape[] = { scale * 4096, 1024 }, cols[] = { 1024 };
  g_autoptr(EpTensor) x = random_tensor (flat, 1);
  g_autoptr(EpTensor) y = random_tensor (flat, 1);
  g_autoptr(EpTensor) m = random_tensor (rows_shape, 2);
  g_autoptr(EpTensor) g = random_tensor (cols, 1);
  g_autoptr(EpTensor) b = random_tensor (cols, 1);

  if (argc > 1)
    rounds = atoi (argv[1]);
  if (argc > 2 && argv[2][0] != '\0')
    only = argv[2];

  device = ep_device_get ("cpu:0", NULL);
  row ("x.square().sum().sqrt() 4M", norm, (EpTensor *[]) { x }, 1, 20);
  row ("((x*y).exp()-x)^2+1.5 4M", chain, (EpTensor *[]) { x, y }, 2, 10);
  row ("softmax of ops 4096x1024", softmax, (EpTensor *[]) { m }, 1, 10);
  row ("layer norm chain 4096x1024", layer_norm, (EpTensor *[]) { m, g, b }, 3, 10);

  /* the same on OpenCL, where there is a device: groups are generated
   * kernels, elementwise only (the sums stay kernels of their own) */
  device = ep_device_get ("opencl:0", NULL);
  if (device != NULL)
    {
      g_autoptr(EpTensor) xd = ep_tensor_to_device (x, device, NULL);
      g_autoptr(EpTensor) yd = ep_tensor_to_device (y, device, NULL);
      g_autoptr(EpTensor) md = ep_tensor_to_device (m, device, NULL);
      g_autoptr(EpTensor) gd = ep_tensor_to_device (g, device, NULL);
      g_autoptr(EpTensor) bd = ep_tensor_to_device (b, device, NULL);

      row ("((x*y).exp()-x)^2+1.5 4M opencl", chain, (EpTensor *[]) { xd, yd }, 2, 10);
      row ("layer norm chain opencl", layer_norm, (EpTensor *[]) { md, gd, bd }, 3, 10);
    }

  return 0;
}
