/* staged-gradient.c: gradients through a staged call, against a tape
 * recording the same ops one by one
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * A two-layer tanh network, loss = sum (tanh (tanh (x W1 + b1) W2 + b2)),
 * its parameters variables, x of (N, N) (N = 64, or argv[1]). Each
 * workload computes the loss and its gradients with respect to the four
 * variables:
 *
 *   eager tape      the ops dispatched one by one under a tape
 *   staged call     the loss staged (EpFunction) and called under a tape:
 *                   one step on the tape, a staged backward function
 *   staged step     the tape inside the staged function, which returns
 *                   the loss and the gradients (forward and backward in
 *                   one graph, no tape outside)
 *
 * and, for scale, the forward pass alone, eager and staged. Each figure
 * is the best of several rounds of the per-call mean, in microseconds.
 *
 *   _build/bench/ep-bench-staged-gradient [N [WORKLOAD]]
 *
 * WORKLOAD (a word of its name: eager, call, step...) runs that one
 * only: for callgrind, whose counts do not suffer from a busy machine.
 */

#include <eager-glib/eager-glib.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct
{
  EpVariable *w1, *b1, *w2, *b2;
  EpTensor   *x;
  EpFunction *loss_fn;
  EpFunction *step_fn;
} Net;

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
    g_error ("%s", error->message);
}

static EpTensor *
layer (EpTensor   *input,
       EpVariable *w,
       EpVariable *b,
       GError    **error)
{
  g_autoptr(EpTensor) wv = ep_variable_read (w);
  g_autoptr(EpTensor) bv = ep_variable_read (b);
  g_autoptr(EpTensor) product = ep_tensor_matmul (input, wv, error);
  g_autoptr(EpTensor) shifted = product != NULL ? ep_tensor_add (product, bv, error) : NULL;

  return shifted != NULL ? ep_tensor_tanh (shifted, error) : NULL;
}

static EpTensor *
loss_of (Net       *net,
         EpTensor  *x,
         GError   **error)
{
  g_autoptr(EpTensor) h = layer (x, net->w1, net->b1, error);
  g_autoptr(EpTensor) y = h != NULL ? layer (h, net->w2, net->b2, error) : NULL;

  return y != NULL ? ep_tensor_sum (y, NULL, 0, FALSE, error) : NULL;
}

static GPtrArray *
loss_body (EpTensor **inputs,
           guint      n_inputs,
           gpointer   user_data,
           GError   **error)
{
  GPtrArray *result = g_ptr_array_new_with_free_func (g_object_unref);
  EpTensor *loss = loss_of (user_data, inputs[0], error);

  if (loss != NULL)
    g_ptr_array_add (result, loss);
  return result;
}

static GObject **
sources_of (Net *net)
{
  static GObject *sources[4];

  sources[0] = G_OBJECT (net->w1);
  sources[1] = G_OBJECT (net->b1);
  sources[2] = G_OBJECT (net->w2);
  sources[3] = G_OBJECT (net->b2);
  return sources;
}

/* The loss and its gradients, with the tape inside: staged as a whole */
static GPtrArray *
step_body (EpTensor **inputs,
           guint      n_inputs,
           gpointer   user_data,
           GError   **error)
{
  Net *net = user_data;
  g_autoptr(EpGradientTape) tape = ep_gradient_tape_new (FALSE);
  g_autoptr(EpTensor) loss = NULL;
  GPtrArray *grads;

  ep_gradient_tape_start (tape, NULL);
  loss = loss_of (net, inputs[0], error);
  ep_gradient_tape_stop (tape, NULL);
  if (loss == NULL)
    return NULL;

  grads = ep_gradient_tape_gradient (tape, &loss, 1, sources_of (net), 4, NULL, 0, error);
  if (grads != NULL)
    g_ptr_array_insert (grads, 0, g_steal_pointer (&loss));
  return grads;
}

static void
gradients_under_tape (Net *net, gboolean staged)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpGradientTape) tape = ep_gradient_tape_new (FALSE);
  g_autoptr(GPtrArray) outputs = NULL;
  g_autoptr(GPtrArray) grads = NULL;
  g_autoptr(EpTensor) loss = NULL;

  ep_gradient_tape_start (tape, NULL);
  if (staged)
    outputs = ep_function_call (net->loss_fn, &net->x, 1, &error);
  else
    loss = loss_of (net, net->x, &error);
  ep_gradient_tape_stop (tape, NULL);
  check (error);
  if (staged)
    loss = g_object_ref (g_ptr_array_index (outputs, 0));

  grads = ep_gradient_tape_gradient (tape, &loss, 1, sources_of (net), 4, NULL, 0, &error);
  check (error);
}

static void
eager_tape (Net *net)
{
  gradients_under_tape (net, FALSE);
}

static void
staged_call (Net *net)
{
  gradients_under_tape (net, TRUE);
}

static void
staged_step (Net *net)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) outputs = ep_function_call (net->step_fn, &net->x, 1, &error);

  check (error);
}

static void
eager_forward (Net *net)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) loss = loss_of (net, net->x, &error);

  check (error);
}

static void
staged_forward (Net *net)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) outputs = ep_function_call (net->loss_fn, &net->x, 1, &error);

  check (error);
}

/* The best over @rounds rounds of the mean time of one call, in µs */
static double
best_of (void (*work) (Net *), Net *net, guint rounds, guint calls)
{
  double best = G_MAXDOUBLE;

  work (net);  /* warm-up: traces, caches */
  for (guint r = 0; r < rounds; r++)
    {
      double start = now ();

      for (guint c = 0; c < calls; c++)
        work (net);
      best = MIN (best, (now () - start) / calls);
    }

  return best * 1e6;
}

static EpVariable *
random_variable (const gint64 *shape,
                 guint         ndim,
                 const char   *name)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) value = ep_normal (shape, ndim, 0, 0.1, EP_DTYPE_FLOAT32, &error);

  check (error);
  return ep_variable_new (value, name);
}

int
main (int    argc,
      char **argv)
{
  gint64 n = argc > 1 ? atoi (argv[1]) : 64;
  const char *only = argc > 2 ? argv[2] : NULL;
  gint64 square[2] = { n, n };
  g_autoptr(GError) error = NULL;
  Net net;
  struct { const char *name; void (*work) (Net *); } workloads[] = {
    { "forward, eager", eager_forward },
    { "forward, staged", staged_forward },
    { "gradients, eager tape", eager_tape },
    { "gradients, staged call under a tape", staged_call },
    { "gradients, tape inside a staged step", staged_step },
  };

  ep_set_seed (1);
  net.w1 = random_variable (square, 2, "w1");
  net.b1 = random_variable (square, 1, "b1");
  net.w2 = random_variable (square, 2, "w2");
  net.b2 = random_variable (square, 1, "b2");
  net.x = ep_normal (square, 2, 0, 1, EP_DTYPE_FLOAT32, &error);
  check (error);
  net.loss_fn = ep_function_new (loss_body, &net, NULL);
  net.step_fn = ep_function_new (step_body, &net, NULL);

  printf ("MLP %" G_GINT64_FORMAT "x%" G_GINT64_FORMAT ", two tanh layers, sum; "
          "best of 7 rounds of 200 calls\n", n, n);
  for (guint w = 0; w < G_N_ELEMENTS (workloads); w++)
    if (only == NULL || strstr (workloads[w].name, only) != NULL)
      printf ("  %-40s %9.1f µs\n", workloads[w].name, best_of (workloads[w].work, &net, 7, 200));

  g_object_unref (net.loss_fn);
  g_object_unref (net.step_fn);
  g_object_unref (net.x);
  g_object_unref (net.w1);
  g_object_unref (net.b1);
  g_object_unref (net.w2);
  g_object_unref (net.b2);
  return 0;
}
