/* test-autodiff-memory.c: 10 000 training steps keep memory flat
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * A logistic regression trained with a new tape per step, variables and
 * assign_sub. In the sanitizer build LeakSanitizer checks that nothing
 * leaks; in the normal build the resident set size after 1 000 steps and
 * after 10 000 steps must be the same within a small margin.
 */

#include <math.h>
#include <unistd.h>

#include <eager-glib/eager-glib.h>

#if defined(__SANITIZE_ADDRESS__)
# define SANITIZED 1
#elif defined(__has_feature)
# if __has_feature(address_sanitizer)
#  define SANITIZED 1
# endif
#endif

#ifndef N_STEPS
# define N_STEPS 10000
#endif
#define N_EXAMPLES 32
#define N_FEATURES 8

static gint64
resident_bytes (void)
{
  g_autofree char *statm = NULL;
  g_auto(GStrv) fields = NULL;

  if (!g_file_get_contents ("/proc/self/statm", &statm, NULL, NULL))
    return -1;
  fields = g_strsplit (statm, " ", -1);
  return g_ascii_strtoll (fields[1], NULL, 10) * sysconf (_SC_PAGESIZE);
}

/* One step of gradient descent on the mean binary cross-entropy
 * -mean(y log p + (1 - y) log(1 - p)), p = sigmoid(x w + b), plus a small
 * L2 penalty that keeps p away from 0 and 1 in float32. */
static gdouble
train_step (EpVariable  *w,
            EpVariable  *b,
            EpTensor    *x,
            EpTensor    *y,
            GError     **error)
{
  g_autoptr(EpGradientTape) tape = ep_gradient_tape_new (FALSE);
  g_autoptr(EpTensor) wr = NULL, br = NULL, xw = NULL, logits = NULL, p = NULL, logp = NULL;
  g_autoptr(EpTensor) pm1 = NULL, q = NULL, logq = NULL, ym1 = NULL, ny = NULL;
  g_autoptr(EpTensor) a = NULL, c = NULL, terms = NULL, mean = NULL, bce = NULL;
  g_autoptr(EpTensor) w2 = NULL, l2 = NULL, penalty = NULL, loss = NULL;
  g_autoptr(EpTensor) step_w = NULL, step_b = NULL;
  g_autoptr(GPtrArray) grads = NULL;
  GObject *sources[] = { G_OBJECT (w), G_OBJECT (b) };
  gboolean ok;

  if (!ep_gradient_tape_start (tape, error))
    return NAN;
  wr = ep_variable_read (w);
  br = ep_variable_read (b);
  ok = (xw = ep_tensor_matmul (x, wr, error))
       && (logits = ep_tensor_add (xw, br, error))
       && (p = ep_tensor_sigmoid (logits, error))
       && (logp = ep_tensor_log (p, error))
       && (pm1 = ep_tensor_sub_scalar (p, 1.0, error))
       && (q = ep_tensor_neg (pm1, error))
       && (logq = ep_tensor_log (q, error))
       && (ym1 = ep_tensor_sub_scalar (y, 1.0, error))
       && (ny = ep_tensor_neg (ym1, error))
       && (a = ep_tensor_mul (y, logp, error))
       && (c = ep_tensor_mul (ny, logq, error))
       && (terms = ep_tensor_add (a, c, error))
       && (mean = ep_tensor_mean (terms, NULL, 0, FALSE, error))
       && (bce = ep_tensor_neg (mean, error))
       && (w2 = ep_tensor_square (wr, error))
       && (l2 = ep_tensor_sum (w2, NULL, 0, FALSE, error))
       && (penalty = ep_tensor_mul_scalar (l2, 0.01, error))
       && (loss = ep_tensor_add (bce, penalty, error));
  ep_gradient_tape_stop (tape, NULL);
  if (!ok)
    return NAN;

  grads = ep_gradient_tape_gradient (tape, &loss, 1, sources, 2, NULL, 0, error);
  if (grads == NULL)
    return NAN;

  step_w = ep_tensor_mul_scalar (g_ptr_array_index (grads, 0), 0.5, error);
  step_b = ep_tensor_mul_scalar (g_ptr_array_index (grads, 1), 0.5, error);
  if (step_w == NULL || step_b == NULL
      || !ep_variable_assign_sub (w, step_w, error)
      || !ep_variable_assign_sub (b, step_b, error))
    return NAN;

  return ep_tensor_item_double (loss, error);
}

static void
test_training_memory (void)
{
  g_autoptr(GError) error = NULL;
  gdouble xs[N_EXAMPLES * N_FEATURES], ys[N_EXAMPLES * 1];
  const gint64 x_shape[] = { N_EXAMPLES, N_FEATURES }, y_shape[] = { N_EXAMPLES, 1 };
  const gint64 w_shape[] = { N_FEATURES, 1 }, b_shape[] = { 1 };
  g_autoptr(EpTensor) x = NULL, y = NULL, w0 = NULL, b0 = NULL;
  g_autoptr(EpVariable) w = NULL, b = NULL;
  gdouble first = 0, last = 0;
  gint64 rss_early = 0, rss_late;

  for (guint i = 0; i < N_EXAMPLES; i++)
    {
      gdouble s = 0;

      for (guint j = 0; j < N_FEATURES; j++)
        {
          xs[i * N_FEATURES + j] = g_test_rand_double_range (-1, 1);
          s += (j % 2 ? 1 : -1) * xs[i * N_FEATURES + j];
        }
      ys[i] = s + g_test_rand_double_range (-1, 1) > 0 ? 1 : 0;   /* not separable */
    }
  x = ep_tensor_new_from_doubles (xs, G_N_ELEMENTS (xs), x_shape, 2, EP_DTYPE_FLOAT32, &error);
  y = ep_tensor_new_from_doubles (ys, G_N_ELEMENTS (ys), y_shape, 2, EP_DTYPE_FLOAT32, &error);
  w0 = ep_zeros (w_shape, 2, EP_DTYPE_FLOAT32, &error);
  b0 = ep_zeros (b_shape, 1, EP_DTYPE_FLOAT32, &error);
  g_assert_no_error (error);
  w = ep_variable_new (w0, "w");
  b = ep_variable_new (b0, "b");

  for (guint step = 0; step < N_STEPS; step++)
    {
      gdouble loss = train_step (w, b, x, y, &error);

      g_assert_no_error (error);
      if (step == 0)
        first = loss;
      if (step == 999)
        rss_early = resident_bytes ();
      last = loss;
    }
  rss_late = resident_bytes ();

  g_test_message ("loss %.4f -> %.4f; resident set after 1000 steps %.2f MiB, after %d steps %.2f MiB",
                  first, last, rss_early / 1048576.0, N_STEPS, rss_late / 1048576.0);
  g_assert_true (isfinite (last));
  g_assert_cmpfloat (last, <, first - 0.1);

#ifndef SANITIZED
  /* the allocator may round a little; a leak of one tensor a step would
   * be at least 9000 × 64 bytes */
  g_assert_cmpint (rss_late - rss_early, <, 256 * 1024);
#endif
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/autodiff/memory/training", test_training_memory);
  return g_test_run ();
}
