/* test-trainer.c: EpTrainer, a training loop on a worker thread
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "ep-test-util.h"

/* Linear regression, y = x·w, trained by a staged SGD step on the mean
 * squared error: w -= lr · 2/B · xᵀ(x·w − y); returns the loss. */
#define N_ROWS 64
#define N_FEATURES 3
#define LEARNING_RATE 0.1

static const gdouble true_w[N_FEATURES] = { 2.0, -3.0, 0.5 };

static GThread *traced_on;
static guint trace_count;

static GPtrArray *
sgd_step (EpTensor  **inputs,
          guint       n_inputs,
          gpointer    user_data,
          GError    **error)
{
  EpVariable *w = user_data;
  EpTensor *x = inputs[0], *y = inputs[1];
  gdouble scale = 2.0 * LEARNING_RATE / ep_tensor_get_shape (x, NULL)[0];
  g_autoptr(EpTensor) value = ep_variable_read (w);
  g_autoptr(EpTensor) pred = NULL;
  g_autoptr(EpTensor) residual = NULL;
  g_autoptr(EpTensor) squared = NULL;
  g_autoptr(EpTensor) loss = NULL;
  g_autoptr(EpTensor) xt = NULL;
  g_autoptr(EpTensor) grad = NULL;
  g_autoptr(EpTensor) delta = NULL;

  trace_count++;
  traced_on = g_thread_self ();
  if ((pred = ep_tensor_matmul (x, value, error)) == NULL
      || (residual = ep_tensor_sub (pred, y, error)) == NULL
      || (squared = ep_tensor_square (residual, error)) == NULL
      || (loss = ep_tensor_mean (squared, NULL, 0, FALSE, error)) == NULL
      || (xt = ep_tensor_transpose (x, NULL, 0, error)) == NULL
      || (grad = ep_tensor_matmul (xt, residual, error)) == NULL
      || (delta = ep_tensor_mul_scalar (grad, scale, error)) == NULL
      || !ep_variable_assign_sub (w, delta, error))
    return NULL;

  return ep_test_one (g_steal_pointer (&loss));
}

typedef struct
{
  EpVariable *w;
  EpFunction *step;
  EpTensor   *x;
  EpTensor   *y;
} Problem;

static void
problem_init (Problem *p)
{
  gdouble xs[N_ROWS * N_FEATURES], ys[N_ROWS], zeros[N_FEATURES] = { 0 };
  g_autoptr(EpTensor) w0 = ep_test_matrix (zeros, N_FEATURES, 1, EP_DTYPE_FLOAT32);
  GRand *rand = g_rand_new_with_seed (7);

  for (guint i = 0; i < N_ROWS; i++)
    {
      ys[i] = 0;
      for (guint j = 0; j < N_FEATURES; j++)
        {
          xs[i * N_FEATURES + j] = g_rand_double_range (rand, -1, 1);
          ys[i] += xs[i * N_FEATURES + j] * true_w[j];
        }
    }
  g_rand_free (rand);
  p->w = ep_variable_new (w0, "w");
  p->step = ep_function_new (sgd_step, g_object_ref (p->w), g_object_unref);
  p->x = ep_test_matrix (xs, N_ROWS, N_FEATURES, EP_DTYPE_FLOAT32);
  p->y = ep_test_matrix (ys, N_ROWS, 1, EP_DTYPE_FLOAT32);
}

static void
problem_clear (Problem *p)
{
  g_clear_object (&p->w);
  g_clear_object (&p->step);
  g_clear_object (&p->x);
  g_clear_object (&p->y);
}

static gdouble *
w_values (EpVariable *w)
{
  g_autoptr(EpTensor) value = ep_variable_read (w);
  gsize n;

  return ep_test_get_values (value, &n);
}

/* A run to its end on a main context of its own, counting progress. */
typedef struct
{
  GMainContext *context;
  GAsyncResult *result;
  guint         n_progress;
  guint64       last_step;
  gdouble       last_loss;
  gdouble       first_loss;
  GThread      *progress_on;
  GCancellable *cancel_at;       /* cancelled at the first progress */
  EpTrainer    *pause_at;        /* paused at the first progress */
  gint64        longest_gap;     /* µs between two iterations */
} Waiter;

static void
on_progress (EpTrainer *trainer,
             guint64    step,
             gdouble    loss,
             gdouble    rate,
             gpointer   user_data)
{
  Waiter *waiter = user_data;

  if (waiter->n_progress == 0)
    waiter->first_loss = loss;
  waiter->n_progress++;
  g_assert_cmpuint (step, >=, waiter->last_step);
  waiter->last_step = step;
  waiter->last_loss = loss;
  waiter->progress_on = g_thread_self ();
  g_assert_cmpfloat (rate, >=, 0);
  if (waiter->cancel_at != NULL)
    g_cancellable_cancel (waiter->cancel_at);
  if (waiter->pause_at != NULL)
    {
      ep_trainer_set_paused (waiter->pause_at, TRUE);
      waiter->pause_at = NULL;
    }
}

static void
done (GObject      *source,
      GAsyncResult *result,
      gpointer      user_data)
{
  Waiter *waiter = user_data;

  waiter->result = g_object_ref (result);
}

static gboolean
run_async (EpTrainer     *trainer,
           guint          n_steps,
           GCancellable  *cancellable,
           Waiter        *waiter,
           GError       **error)
{
  gulong handler;
  gboolean ok;
  gint64 last = g_get_monotonic_time ();

  waiter->context = g_main_context_new ();
  handler = g_signal_connect (trainer, "progress", G_CALLBACK (on_progress), waiter);
  g_main_context_push_thread_default (waiter->context);
  ep_trainer_run_async (trainer, n_steps, cancellable, done, waiter);
  while (waiter->result == NULL)
    {
      gint64 now;

      g_main_context_iteration (waiter->context, TRUE);
      now = g_get_monotonic_time ();
      waiter->longest_gap = MAX (waiter->longest_gap, now - last);
      last = now;
    }
  g_main_context_pop_thread_default (waiter->context);
  g_signal_handler_disconnect (trainer, handler);

  ok = ep_trainer_run_finish (trainer, waiter->result, error);
  g_clear_object (&waiter->result);
  g_main_context_unref (waiter->context);
  return ok;
}

/* It trains: w converges to the true weights, tracing once, on this
 * thread; progress comes here, and once at the end with the last step. */
static void
test_trainer_linear_regression (void)
{
  Problem p;
  g_autoptr(EpTrainer) trainer = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree gdouble *w = NULL;
  Waiter waiter = { 0 };

  problem_init (&p);
  trace_count = 0;
  trainer = ep_trainer_new (p.step, p.x, p.y, 16);
  g_assert_true (run_async (trainer, 400, NULL, &waiter, &error));
  g_assert_no_error (error);

  g_assert_cmpuint (trace_count, ==, 1);
  g_assert_true (traced_on == g_thread_self ());
  g_assert_true (waiter.progress_on == g_thread_self ());
  g_assert_cmpuint (waiter.n_progress, >=, 1);
  g_assert_cmpuint (waiter.last_step, ==, 400);
  g_assert_cmpuint (ep_trainer_get_step (trainer), ==, 400);
  g_assert_cmpfloat (waiter.last_loss, <, 1e-6);
  g_assert_cmpfloat (ep_trainer_get_loss (trainer), ==, waiter.last_loss);
  g_assert_false (ep_trainer_get_running (trainer));

  w = w_values (p.w);
  for (guint j = 0; j < N_FEATURES; j++)
    g_assert_cmpfloat_with_epsilon (w[j], true_w[j], 1e-3);
  problem_clear (&p);
}

/* A run started in a device scope replays in it on the worker: the
 * trace, kept per scope, is found there (it was not: "no function to
 * trace"). */
static void
test_trainer_device_scope (void)
{
  Problem p;
  g_autoptr(EpTrainer) trainer = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree gdouble *w = NULL;
  EpDevice *cpu = ep_device_get_default ();
  Waiter waiter = { 0 };

  problem_init (&p);
  trace_count = 0;
  trainer = ep_trainer_new (p.step, p.x, p.y, 16);
  g_assert_true (ep_device_push (cpu, &error));
  g_assert_true (run_async (trainer, 200, NULL, &waiter, &error));
  g_assert_no_error (error);
  g_assert_true (ep_device_pop (cpu, &error));

  g_assert_cmpuint (trace_count, ==, 1);
  g_assert_cmpuint (ep_trainer_get_step (trainer), ==, 200);
  w = w_values (p.w);
  for (guint j = 0; j < N_FEATURES; j++)
    g_assert_cmpfloat_with_epsilon (w[j], true_w[j], 1e-2);
  problem_clear (&p);
}

/* With an interval of 20 ms: at most one progress per 20 ms, and one
 * at the end. */
static void
test_trainer_progress_rate (void)
{
  Problem p;
  g_autoptr(EpTrainer) trainer = NULL;
  g_autoptr(GError) error = NULL;
  Waiter waiter = { 0 };
  gint64 start, elapsed_ms;
  guint n_steps = 50000;

  problem_init (&p);
  trainer = ep_trainer_new (p.step, p.x, p.y, 8);
  ep_trainer_set_progress_interval (trainer, 20);
  g_assert_cmpuint (ep_trainer_get_progress_interval (trainer), ==, 20);

  start = g_get_monotonic_time ();
  g_assert_true (run_async (trainer, n_steps, NULL, &waiter, &error));
  g_assert_no_error (error);
  elapsed_ms = (g_get_monotonic_time () - start) / 1000;

  g_test_message ("%u steps in %" G_GINT64_FORMAT " ms: %u progress signals, longest main loop gap %"
                  G_GINT64_FORMAT " µs", n_steps, elapsed_ms, waiter.n_progress, waiter.longest_gap);
  /* at most one per interval, plus the last */
  g_assert_cmpuint (waiter.n_progress, <=, elapsed_ms / 20 + 2);
  g_assert_cmpuint (waiter.n_progress, >=, 1);
  g_assert_cmpuint (waiter.last_step, ==, n_steps);
  problem_clear (&p);
}

/* Cancelled at the first progress: the run stops between two steps with
 * G_IO_ERROR_CANCELLED, having done k steps, and w is exactly w after k
 * steps of the same batches done synchronously. */
static void
test_trainer_cancel_consistent (void)
{
  Problem p, q;
  g_autoptr(EpTrainer) trainer = NULL;
  g_autoptr(EpTrainer) again = NULL;
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();
  g_autoptr(GError) error = NULL;
  g_autofree gdouble *w = NULL;
  g_autofree gdouble *w_sync = NULL;
  Waiter waiter = { 0 };
  guint64 k;

  problem_init (&p);
  trainer = g_object_new (EP_TYPE_TRAINER, "step-function", p.step, "x", p.x, "y", p.y,
                          "batch-size", 8, "shuffle", FALSE, "progress-interval", 0, NULL);
  waiter.cancel_at = cancellable;
  g_assert_false (run_async (trainer, 1000000, cancellable, &waiter, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  k = ep_trainer_get_step (trainer);
  g_assert_cmpuint (k, >=, 1);
  g_assert_cmpuint (k, <, 1000000);
  g_assert_cmpuint (waiter.last_step, ==, k);
  w = w_values (p.w);

  /* the same k steps, in order, on this thread */
  problem_init (&q);
  again = g_object_new (EP_TYPE_TRAINER, "step-function", q.step, "x", q.x, "y", q.y,
                        "batch-size", 8, "shuffle", FALSE, NULL);
  g_clear_error (&error);
  g_assert_true (ep_trainer_run (again, (guint) k, NULL, &error));
  g_assert_no_error (error);
  w_sync = w_values (q.w);
  for (guint j = 0; j < N_FEATURES; j++)
    g_assert_cmpfloat (w[j], ==, w_sync[j]);

  problem_clear (&p);
  problem_clear (&q);
}

/* Paused at the first progress, the run waits; a snapshot taken then
 * equals the variables; resumed, it finishes. */
static gboolean
resume_later (gpointer user_data)
{
  EpTrainer *trainer = user_data;
  EpVariable *w = g_object_get_data (G_OBJECT (trainer), "w");
  g_autoptr(GPtrArray) snapshot = ep_trainer_snapshot_variables (trainer, &w, 1);
  g_autoptr(EpTensor) now = NULL;
  guint64 step = ep_trainer_get_step (trainer);

  g_assert_cmpuint (snapshot->len, ==, 1);
  /* paused: no step happens meanwhile, w stays the snapshot's */
  g_usleep (30000);
  g_assert_cmpuint (ep_trainer_get_step (trainer), ==, step);
  now = ep_variable_read (w);
  {
    gsize n;
    g_autofree gdouble *kept = ep_test_get_values (g_ptr_array_index (snapshot, 0), &n);

    ep_test_assert_close (now, kept, n);
  }
  g_assert_cmpuint (step, <, 200001);
  g_object_set_data (G_OBJECT (trainer), "resumed", GINT_TO_POINTER (1));
  ep_trainer_set_paused (trainer, FALSE);
  return G_SOURCE_REMOVE;
}

static void
on_paused (GObject    *object,
           GParamSpec *pspec,
           gpointer    user_data)
{
  if (ep_trainer_get_paused (EP_TRAINER (object)))
    {
      /* on the context the run reports to */
      GSource *source = g_timeout_source_new (20);

      g_source_set_callback (source, resume_later, object, NULL);
      g_source_attach (source, g_main_context_get_thread_default ());
      g_source_unref (source);
    }
}

static void
test_trainer_pause_resume (void)
{
  Problem p;
  g_autoptr(EpTrainer) trainer = NULL;
  g_autoptr(GError) error = NULL;
  Waiter waiter = { 0 };
  problem_init (&p);
  trainer = g_object_new (EP_TYPE_TRAINER, "step-function", p.step, "x", p.x, "y", p.y,
                          "batch-size", 8, "progress-interval", 0, NULL);
  g_assert_true (ep_trainer_run (trainer, 1, NULL, &error));   /* traced */
  g_object_set_data (G_OBJECT (trainer), "w", p.w);
  g_signal_connect (trainer, "notify::paused", G_CALLBACK (on_paused), NULL);
  waiter.pause_at = trainer;
  g_assert_true (run_async (trainer, 200000, NULL, &waiter, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (ep_trainer_get_step (trainer), ==, 200001);
  g_assert_nonnull (g_object_get_data (G_OBJECT (trainer), "resumed"));
  g_assert_false (ep_trainer_get_paused (trainer));
  problem_clear (&p);
}

static GPtrArray *
failing_step (EpTensor  **inputs,
              guint       n_inputs,
              gpointer    user_data,
              GError    **error)
{
  g_set_error (error, EP_ERROR, EP_ERROR_INVALID_ARGUMENT, "step: broken on purpose");
  return NULL;
}

static GPtrArray *
no_outputs_step (EpTensor  **inputs,
                 guint       n_inputs,
                 gpointer    user_data,
                 GError    **error)
{
  return g_ptr_array_new_with_free_func (g_object_unref);
}

/* returns its targets: a loss of one value per row, which has no item */
static GPtrArray *
vector_loss_step (EpTensor  **inputs,
                  guint       n_inputs,
                  gpointer    user_data,
                  GError    **error)
{
  return ep_test_one (ep_tensor_mul_scalar (inputs[1], 1.0, error));
}

static void
second_done (GObject      *source,
             GAsyncResult *result,
             gpointer      user_data)
{
  GError **error = user_data;

  g_assert_false (ep_trainer_run_finish (EP_TRAINER (source), result, error));
}

/* A step's error stops the run with it; bad arguments and a second run
 * at once are errors; a bare trainer errs instead of crashing. */
static void
test_trainer_errors (void)
{
  Problem p;
  g_autoptr(EpTrainer) bare = g_object_new (EP_TYPE_TRAINER, NULL);
  g_autoptr(EpTrainer) broken = NULL;
  g_autoptr(EpTrainer) lossless = NULL;
  g_autoptr(EpTrainer) big = NULL;
  g_autoptr(EpTrainer) busy = NULL;
  g_autoptr(EpFunction) failing = ep_function_new (failing_step, NULL, NULL);
  g_autoptr(EpFunction) empty = ep_function_new (no_outputs_step, NULL, NULL);
  g_autoptr(EpFunction) vector = ep_function_new (vector_loss_step, NULL, NULL);
  g_autoptr(EpTrainer) unscalar = NULL;
  g_autoptr(GPtrArray) snapshot = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GError) second_error = NULL;
  Waiter waiter = { 0 };

  problem_init (&p);

  g_assert_false (ep_trainer_run (bare, 3, NULL, &error));
  ep_assert_error (error, EP_ERROR_INVALID_ARGUMENT, "trainer", "step function");
  g_clear_error (&error);
  g_assert_false (run_async (bare, 3, NULL, &waiter, &error));
  ep_assert_error (error, EP_ERROR_INVALID_ARGUMENT, "trainer", "step function");
  g_clear_error (&error);
  snapshot = ep_trainer_snapshot_variables (bare, NULL, 0);
  g_assert_cmpuint (snapshot->len, ==, 0);
  g_assert_true (isnan (ep_trainer_get_loss (bare)));

  broken = ep_trainer_new (failing, p.x, p.y, 8);
  g_assert_false (run_async (broken, 3, NULL, &waiter, &error));
  ep_assert_error (error, EP_ERROR_INVALID_ARGUMENT, "step", "on purpose");
  g_assert_cmpuint (ep_trainer_get_step (broken), ==, 0);
  g_assert_false (ep_trainer_get_running (broken));
  g_clear_error (&error);

  lossless = ep_trainer_new (empty, p.x, p.y, 8);
  g_assert_false (ep_trainer_run (lossless, 3, NULL, &error));
  ep_assert_error (error, EP_ERROR_INVALID_ARGUMENT, "trainer", "no loss");
  g_clear_error (&error);

  /* a loss of several values fails the run, even for a caller that asks
   * for no error */
  unscalar = ep_trainer_new (vector, p.x, p.y, 8);
  g_assert_false (ep_trainer_run (unscalar, 3, NULL, NULL));
  g_assert_cmpuint (ep_trainer_get_step (unscalar), ==, 0);
  g_assert_false (ep_trainer_run (unscalar, 3, NULL, &error));
  g_assert_error (error, EP_ERROR, EP_ERROR_SHAPE);
  g_clear_error (&error);

  big = ep_trainer_new (p.step, p.x, p.y, N_ROWS + 1);
  g_assert_false (ep_trainer_run (big, 3, NULL, &error));
  ep_assert_error (error, EP_ERROR_INVALID_ARGUMENT, "trainer", "batch size");
  g_clear_error (&error);

  {
    gdouble few[3] = { 1, 2, 3 };
    g_autoptr(EpTensor) short_y = ep_test_vector (few, 3, EP_DTYPE_FLOAT32);
    g_autoptr(EpTrainer) t = ep_trainer_new (p.step, p.x, short_y, 2);

    g_assert_false (ep_trainer_run (t, 1, NULL, &error));
    ep_assert_error (error, EP_ERROR_SHAPE, "trainer", "samples");
    g_clear_error (&error);
  }

  /* a second run while one is under way */
  busy = ep_trainer_new (p.step, p.x, p.y, 8);
  waiter.context = g_main_context_new ();
  g_main_context_push_thread_default (waiter.context);
  ep_trainer_run_async (busy, 50, NULL, done, &waiter);
  ep_trainer_run_async (busy, 50, NULL, second_done, &second_error);
  while (waiter.result == NULL || second_error == NULL)
    g_main_context_iteration (waiter.context, TRUE);
  g_main_context_pop_thread_default (waiter.context);
  ep_assert_error (second_error, EP_ERROR_INVALID_ARGUMENT, "trainer", "already");
  g_assert_true (ep_trainer_run_finish (busy, waiter.result, &error));
  g_assert_no_error (error);
  g_clear_object (&waiter.result);
  g_main_context_unref (waiter.context);

  problem_clear (&p);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/trainer/linear-regression", test_trainer_linear_regression);
  g_test_add_func ("/trainer/device-scope", test_trainer_device_scope);
  g_test_add_func ("/trainer/progress-rate", test_trainer_progress_rate);
  g_test_add_func ("/trainer/cancel-consistent", test_trainer_cancel_consistent);
  g_test_add_func ("/trainer/pause-resume", test_trainer_pause_resume);
  g_test_add_func ("/trainer/errors", test_trainer_errors);

  return g_test_run ();
}
