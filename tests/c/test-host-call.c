/* test-host-call.c: host callbacks, eagerly and in staged functions
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "ep-test-util.h"

#include "ep-autodiff-private.h"
#include "ep-context-private.h"
#include "ep-function-private.h"
#include "ep-recorder-private.h"

/* What the callbacks saw */
typedef struct
{
  guint      calls;
  guint      gradient_calls;
  guint      destroyed;
  GThread   *thread;
  GPtrArray *seen;       /* the arguments each call got, kept */
} Log;

static Log the_log;

static void
log_reset (void)
{
  g_clear_pointer (&the_log.seen, g_ptr_array_unref);
  memset (&the_log, 0, sizeof the_log);
  the_log.seen = g_ptr_array_new_with_free_func (g_object_unref);
}

static void
count_destroyed (gpointer data)
{
  the_log.destroyed++;
}

/* The host side: keeps its argument, returns 3x (what a graph could
 * compute too, so that the tests can compare) */
static GPtrArray *
triple_on_host (EpTensor  **inputs,
                guint       n_inputs,
                gpointer    user_data,
                GError    **error)
{
  the_log.calls++;
  the_log.thread = g_thread_self ();
  g_ptr_array_add (the_log.seen, g_object_ref (inputs[0]));
  return ep_test_one (ep_tensor_mul_scalar (inputs[0], 3, error));
}

/* d(3x) = 3 dy */
static GPtrArray *
triple_gradient (EpTensor  **inputs,
                 guint       n_inputs,
                 EpTensor  **output_gradients,
                 guint       n_outputs,
                 gpointer    user_data,
                 GError    **error)
{
  the_log.gradient_calls++;
  g_assert_cmpuint (n_inputs, ==, 1);
  g_assert_cmpuint (n_outputs, ==, 1);
  return ep_test_one (ep_tensor_mul_scalar (output_gradients[0], 3, error));
}

/* f(x) = host(x + 1) * 2 */
static GPtrArray *
around_host (EpTensor  **inputs,
             guint       n_inputs,
             gpointer    user_data,
             GError    **error)
{
  gboolean with_gradient = GPOINTER_TO_INT (user_data);
  g_autoptr(EpTensor) shifted = ep_tensor_add_scalar (inputs[0], 1, error);
  g_autoptr(GPtrArray) host = NULL;

  if (shifted == NULL
      || (host = ep_host_call (triple_on_host, NULL, count_destroyed,
                               with_gradient ? triple_gradient : NULL, NULL, NULL,
                               &shifted, 1, error)) == NULL)
    return NULL;

  return ep_test_one (ep_tensor_mul_scalar (g_ptr_array_index (host, 0), 2, error));
}

static GPtrArray *
call1 (EpFunction  *fn,
       EpTensor    *x,
       GError     **error)
{
  return ep_function_call (fn, &x, 1, error);
}

/* Eagerly, a host call is a call: its results, the callback's data let
 * go of at once. */
static void
test_eager (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) x = ep_test_new (EP_DTYPE_FLOAT32, EP_SHAPE (2), EP_VALUES (1, 2));
  g_autoptr(GPtrArray) results = NULL;

  log_reset ();
  results = ep_host_call (triple_on_host, NULL, count_destroyed, NULL, NULL, NULL, &x, 1, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (results->len, ==, 1);
  ep_assert_values (g_ptr_array_index (results, 0), EP_DTYPE_FLOAT32, EP_SHAPE (2), EP_VALUES (3, 6));
  g_assert_cmpuint (the_log.calls, ==, 1);
  g_assert_cmpuint (the_log.destroyed, ==, 1);
  /* the callback got an object of its own */
  g_assert_true (g_ptr_array_index (the_log.seen, 0) != x);
}

/* Each replay calls the callback again, on that replay's values, and
 * uses what it returns; the function is not called again. */
static void
test_replays_call_back (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpFunction) fn = ep_function_new (around_host, GINT_TO_POINTER (FALSE), NULL);

  log_reset ();
  for (guint k = 0; k < 3; k++)
    {
      g_autoptr(EpTensor) x = ep_test_new (EP_DTYPE_FLOAT32, EP_SHAPE (2), EP_VALUES (k, 10 * k));
      g_autoptr(GPtrArray) results = call1 (fn, x, &error);
      gdouble want[2] = { (k + 1) * 6.0, (10 * k + 1) * 6.0 };
      gdouble seen[2] = { k + 1.0, 10 * k + 1.0 };

      g_assert_no_error (error);
      ep_assert_values (g_ptr_array_index (results, 0), EP_DTYPE_FLOAT32, EP_SHAPE (2), want, 2);
      /* what the callback kept is still its value after the replay */
      ep_assert_values (g_ptr_array_index (the_log.seen, k), EP_DTYPE_FLOAT32, EP_SHAPE (2), seen, 2);
    }
  g_assert_cmpuint (ep_function_get_trace_count (fn), ==, 1);
  g_assert_cmpuint (the_log.calls, ==, 3);
  /* the graph holds the callback until the function goes */
  g_assert_cmpuint (the_log.destroyed, ==, 0);
  g_clear_object (&fn);
  g_assert_cmpuint (the_log.destroyed, ==, 1);
}

/* A callback that fails on its third call */
static GPtrArray *
fails_third_time (EpTensor  **inputs,
                  guint       n_inputs,
                  gpointer    user_data,
                  GError    **error)
{
  if (++the_log.calls == 3)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_FAILED, "the host gave up");
      return NULL;
    }
  return ep_test_one (g_object_ref (inputs[0]));
}

/* v += host(x) */
static GPtrArray *
accumulate_host (EpTensor  **inputs,
                 guint       n_inputs,
                 gpointer    user_data,
                 GError    **error)
{
  g_autoptr(GPtrArray) host = ep_host_call (fails_third_time, NULL, NULL, NULL, NULL, NULL,
                                            inputs, 1, error);

  if (host == NULL || !ep_variable_assign_add (user_data, g_ptr_array_index (host, 0), error))
    return NULL;
  return NULL;
}

/* The callback's error is the call's, and the replay changes no
 * variable. */
static void
test_callback_error (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) zero = ep_test_new (EP_DTYPE_FLOAT32, EP_SCALAR, EP_VALUES (0));
  g_autoptr(EpVariable) v = ep_variable_new (zero, "v");
  g_autoptr(EpFunction) fn = ep_function_new (accumulate_host, v, NULL);
  g_autoptr(EpTensor) x = ep_test_new (EP_DTYPE_FLOAT32, EP_SCALAR, EP_VALUES (5));
  g_autoptr(GPtrArray) first = NULL, second = NULL, third = NULL;
  g_autoptr(EpTensor) now = NULL;

  log_reset ();
  first = call1 (fn, x, &error);
  second = call1 (fn, x, &error);
  g_assert_no_error (error);
  third = call1 (fn, x, &error);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_FAILED);
  g_assert_null (third);
  now = ep_variable_read (v);
  ep_assert_values (now, EP_DTYPE_FLOAT32, EP_SCALAR, EP_VALUES (10));
}

/* Returns a float32 of the length of its argument the first time, then
 * int32 (or, with user_data, one more element) */
static GPtrArray *
changes_its_mind (EpTensor  **inputs,
                  guint       n_inputs,
                  gpointer    user_data,
                  GError    **error)
{
  gint64 n = ep_tensor_get_shape (inputs[0], NULL)[0];
  gboolean grow = GPOINTER_TO_INT (user_data);
  gint64 shape[1] = { n + (the_log.calls > 0 && grow) };
  EpDType dtype = the_log.calls > 0 && !grow ? EP_DTYPE_INT32 : EP_DTYPE_FLOAT32;

  the_log.calls++;
  return ep_test_one (ep_zeros (shape, 1, dtype, error));
}

static GPtrArray *
sum_of_host (EpTensor  **inputs,
             guint       n_inputs,
             gpointer    user_data,
             GError    **error)
{
  g_autoptr(GPtrArray) host = ep_host_call (changes_its_mind, user_data, NULL, NULL, NULL, NULL,
                                            inputs, 1, error);

  return host != NULL ? ep_test_one (ep_tensor_sum (g_ptr_array_index (host, 0), NULL, 0, FALSE, error)) : NULL;
}

/* Results unlike the trace's (another dtype; another shape on the same
 * inputs) are an error, not a graph run on what it was not traced for. */
static void
test_results_must_match_trace (void)
{
  for (guint grow = 0; grow < 2; grow++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(EpFunction) fn = ep_function_new (sum_of_host, GINT_TO_POINTER (grow), NULL);
      g_autoptr(EpTensor) x = ep_test_new (EP_DTYPE_FLOAT32, EP_SHAPE (3), EP_VALUES (1, 2, 3));
      g_autoptr(GPtrArray) first = NULL, second = NULL;

      log_reset ();
      first = call1 (fn, x, &error);
      g_assert_no_error (error);
      second = call1 (fn, x, &error);
      g_assert_null (second);
      ep_assert_error (error, EP_ERROR_INVALID_ARGUMENT, "host_call",
                       grow ? "float32 (4,), not float32 (3,)" : "int32 (3,), not float32 (3,)");
    }
}

/* One result the first time, none after */
static GPtrArray *
then_nothing (EpTensor  **inputs,
              guint       n_inputs,
              gpointer    user_data,
              GError    **error)
{
  return ep_test_one (the_log.calls++ == 0 ? g_object_ref (inputs[0]) : NULL);
}

static GPtrArray *
pass_through_host (EpTensor  **inputs,
                   guint       n_inputs,
                   gpointer    user_data,
                   GError    **error)
{
  g_autoptr(GPtrArray) host = ep_host_call (then_nothing, NULL, NULL, NULL, NULL, NULL, inputs, 1, error);

  return host != NULL && host->len > 0 ? ep_test_one (ep_tensor_mul_scalar (g_ptr_array_index (host, 0), 2, error)) : NULL;
}

/* Fewer results than traced is an error too. */
static void
test_result_count_must_match_trace (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpFunction) fn = ep_function_new (pass_through_host, NULL, NULL);
  g_autoptr(EpTensor) x = ep_test_new (EP_DTYPE_FLOAT32, EP_SHAPE (2), EP_VALUES (1, 2));
  g_autoptr(GPtrArray) first = NULL, second = NULL;

  log_reset ();
  first = call1 (fn, x, &error);
  g_assert_no_error (error);
  second = call1 (fn, x, &error);
  g_assert_null (second);
  ep_assert_error (error, EP_ERROR_INVALID_ARGUMENT, "host_call", "returned 0 tensors, not 1");
}

/* Gradient callbacks that give too few gradients, or misshapen ones */
static GPtrArray *
too_few_gradients (EpTensor  **inputs,
                   guint       n_inputs,
                   EpTensor  **output_gradients,
                   guint       n_outputs,
                   gpointer    user_data,
                   GError    **error)
{
  return g_ptr_array_new_with_free_func (g_object_unref);
}

static GPtrArray *
misshapen_gradient (EpTensor  **inputs,
                    guint       n_inputs,
                    EpTensor  **output_gradients,
                    guint       n_outputs,
                    gpointer    user_data,
                    GError    **error)
{
  return ep_test_one (ep_test_new (EP_DTYPE_FLOAT32, EP_SHAPE (3), EP_VALUES (1, 2, 3)));
}

static void
test_bad_gradients (void)
{
  EpHostGradientFunc gradients[2] = { too_few_gradients, misshapen_gradient };
  const char *messages[2] = { "returns one gradient per argument (1); it returned 0", "has shape (3,), not the argument's (2,)" };

  for (guint k = 0; k < 2; k++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(EpTensor) x = ep_test_new (EP_DTYPE_FLOAT32, EP_SHAPE (2), EP_VALUES (1, 2));
      g_autoptr(EpGradientTape) tape = ep_gradient_tape_new (FALSE);
      g_autoptr(GPtrArray) results = NULL, grads = NULL;
      g_autoptr(EpTensor) total = NULL;
      GObject *source = G_OBJECT (x);

      ep_gradient_tape_watch (tape, x);
      g_assert_true (ep_gradient_tape_start (tape, NULL));
      results = ep_host_call (triple_on_host, NULL, NULL, gradients[k], NULL, NULL, &x, 1, &error);
      total = ep_tensor_sum (g_ptr_array_index (results, 0), NULL, 0, FALSE, &error);
      g_assert_true (ep_gradient_tape_stop (tape, NULL));
      g_assert_no_error (error);
      grads = ep_gradient_tape_gradient (tape, &total, 1, &source, 1, NULL, 0, &error);
      g_assert_null (grads);
      ep_assert_error (error, EP_ERROR_GRADIENT, "host_call", messages[k]);
    }
}

/* Returns five tensors, or a GObject that is no tensor */
static GPtrArray *
returns_junk (EpTensor  **inputs,
              guint       n_inputs,
              gpointer    user_data,
              GError    **error)
{
  GPtrArray *results = g_ptr_array_new_with_free_func (g_object_unref);

  if (user_data != NULL)
    g_ptr_array_add (results, g_object_new (G_TYPE_OBJECT, NULL));
  else
    for (guint k = 0; k < 5; k++)
      g_ptr_array_add (results, g_object_ref (inputs[0]));
  return results;
}

static void
test_bad_results (void)
{
  g_autoptr(EpTensor) x = ep_test_new (EP_DTYPE_FLOAT32, EP_SCALAR, EP_VALUES (1));
  g_autoptr(EpTensor) gone = ep_test_new (EP_DTYPE_FLOAT32, EP_SCALAR, EP_VALUES (1));
  g_autoptr(GError) error = NULL;
  GPtrArray *results;

  results = ep_host_call (returns_junk, NULL, NULL, NULL, NULL, NULL, &x, 1, &error);
  g_assert_null (results);
  ep_assert_error (error, EP_ERROR_INVALID_ARGUMENT, "host_call", "at most 4");
  g_clear_error (&error);

  results = ep_host_call (returns_junk, GINT_TO_POINTER (1), NULL, NULL, NULL, NULL, &x, 1, &error);
  g_assert_null (results);
  ep_assert_error (error, EP_ERROR_INVALID_ARGUMENT, "host_call", "is not a tensor");
  g_clear_error (&error);

  ep_tensor_release (gone);
  results = ep_host_call (triple_on_host, NULL, NULL, NULL, NULL, NULL, &gone, 1, &error);
  g_assert_null (results);
  ep_assert_error (error, EP_ERROR_INVALID_ARGUMENT, "host_call", "released");
}

/* A tape around the call: without a gradient callback, the results have
 * no history, and the tape does not see the callback's own ops; with
 * one, it gives the gradient. Staged, the same. */
static void
test_gradient (void)
{
  for (guint staged = 0; staged < 2; staged++)
    for (guint with_gradient = 0; with_gradient < 2; with_gradient++)
      {
        g_autoptr(GError) error = NULL;
        g_autoptr(EpFunction) fn = ep_function_new (around_host, GINT_TO_POINTER (with_gradient), NULL);
        g_autoptr(EpTensor) x = ep_test_new (EP_DTYPE_FLOAT32, EP_SHAPE (2), EP_VALUES (1, 2));
        g_autoptr(GPtrArray) warm = staged ? call1 (fn, x, &error) : NULL;

        for (guint k = 0; k < 2; k++)
          {
            g_autoptr(EpGradientTape) tape = ep_gradient_tape_new (FALSE);
            g_autoptr(GPtrArray) results = NULL, grads = NULL;
            g_autoptr(EpTensor) total = NULL;
            GObject *source = G_OBJECT (x);

            log_reset ();
            ep_gradient_tape_watch (tape, x);
            g_assert_true (ep_gradient_tape_start (tape, NULL));
            results = staged ? call1 (fn, x, &error) : around_host (&x, 1, GINT_TO_POINTER (with_gradient), &error);
            total = ep_tensor_sum (g_ptr_array_index (results, 0), NULL, 0, FALSE, &error);
            g_assert_true (ep_gradient_tape_stop (tape, NULL));
            g_assert_no_error (error);
            grads = ep_gradient_tape_gradient (tape, &total, 1, &source, 1, NULL, 0, &error);
            g_assert_no_error (error);

            g_assert_cmpuint (the_log.calls, ==, 1);
            if (with_gradient)
              {
                ep_assert_values (g_ptr_array_index (grads, 0), EP_DTYPE_FLOAT32, EP_SHAPE (2), EP_VALUES (6, 6));
                g_assert_cmpuint (the_log.gradient_calls, ==, 1);
              }
            else
              {
                /* unconnected: zeros, the tape's default */
                ep_assert_values (g_ptr_array_index (grads, 0), EP_DTYPE_FLOAT32, EP_SHAPE (2), EP_VALUES (0, 0));
                g_assert_cmpuint (the_log.gradient_calls, ==, 0);
              }
          }
      }
}

/* A training step with the tape inside: the gradient callback is a host
 * call of the graph too, run at every replay. */
static GPtrArray *
host_step (EpTensor  **inputs,
           guint       n_inputs,
           gpointer    user_data,
           GError    **error)
{
  EpVariable *w = user_data;
  g_autoptr(EpGradientTape) tape = ep_gradient_tape_new (FALSE);
  g_autoptr(EpTensor) read = NULL, loss = NULL, step = NULL;
  g_autoptr(GPtrArray) host = NULL, grads = NULL;
  GObject *source = G_OBJECT (w);

  if (!ep_gradient_tape_start (tape, error))
    return NULL;
  read = ep_variable_read (w);
  host = ep_host_call (triple_on_host, NULL, NULL, triple_gradient, NULL, NULL, &read, 1, error);
  if (host != NULL)
    loss = ep_tensor_sum (g_ptr_array_index (host, 0), NULL, 0, FALSE, error);
  ep_gradient_tape_stop (tape, NULL);
  if (loss == NULL
      || (grads = ep_gradient_tape_gradient (tape, &loss, 1, &source, 1, NULL, 0, error)) == NULL
      || (step = ep_tensor_mul_scalar (g_ptr_array_index (grads, 0), 0.5, error)) == NULL
      || !ep_variable_assign_sub (w, step, error))
    return NULL;

  return ep_test_one (g_steal_pointer (&loss));
}

static void
test_gradient_inside_step (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) init = ep_test_new (EP_DTYPE_FLOAT32, EP_SHAPE (2), EP_VALUES (1, 2));
  g_autoptr(EpVariable) w = ep_variable_new (init, "w");
  g_autoptr(EpFunction) fn = ep_function_new (host_step, w, NULL);
  g_autoptr(EpTensor) now = NULL;

  log_reset ();
  for (guint k = 0; k < 3; k++)
    {
      g_autoptr(GPtrArray) loss = ep_function_call (fn, NULL, 0, &error);

      g_assert_no_error (error);
      g_assert_nonnull (loss);
    }
  /* w -= 0.5 * 3 each step */
  now = ep_variable_read (w);
  ep_assert_values (now, EP_DTYPE_FLOAT32, EP_SHAPE (2), EP_VALUES (-3.5, -2.5));
  g_assert_cmpuint (ep_function_get_trace_count (fn), ==, 1);
  g_assert_cmpuint (the_log.calls, ==, 3);
  g_assert_cmpuint (the_log.gradient_calls, ==, 3);
}

/* Tapes inside the callback: an outer one is paused (it cannot be
 * stopped there), one the callback starts stays active after it. */
static EpGradientTape *outer_tape, *inner_tape;

static GPtrArray *
plays_with_tapes (EpTensor  **inputs,
                  guint       n_inputs,
                  gpointer    user_data,
                  GError    **error)
{
  g_autoptr(GError) stop_error = NULL;

  g_assert_false (ep_gradient_tape_stop (outer_tape, &stop_error));
  ep_assert_error (stop_error, EP_ERROR_GRADIENT, "stop", "paused");
  g_assert_true (ep_gradient_tape_start (inner_tape, NULL));
  return NULL;
}

static void
test_tapes_in_callback (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) x = ep_test_new (EP_DTYPE_FLOAT32, EP_SCALAR, EP_VALUES (2));
  g_autoptr(GPtrArray) results = NULL;
  g_autoptr(EpTensor) square = NULL;

  outer_tape = ep_gradient_tape_new (FALSE);
  inner_tape = ep_gradient_tape_new (FALSE);
  g_assert_true (ep_gradient_tape_start (outer_tape, NULL));
  results = ep_host_call (plays_with_tapes, NULL, NULL, NULL, NULL, NULL, &x, 1, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (results->len, ==, 0);

  /* both record now, and stop in any order */
  ep_gradient_tape_watch (inner_tape, x);
  ep_gradient_tape_watch (outer_tape, x);
  square = ep_tensor_square (x, &error);
  g_assert_cmpuint (ep_gradient_tape_get_n_entries (inner_tape), ==, 1);
  g_assert_cmpuint (ep_gradient_tape_get_n_entries (outer_tape), ==, 1);
  g_assert_true (ep_gradient_tape_stop (outer_tape, NULL));
  g_assert_true (ep_gradient_tape_stop (inner_tape, NULL));
  g_assert_null (ep_recorders_innermost ());
  g_clear_object (&outer_tape);
  g_clear_object (&inner_tape);
}

/* No file holds host code. */
static void
test_cannot_save (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpFunction) fn = ep_function_new (around_host, GINT_TO_POINTER (FALSE), NULL);
  g_autoptr(EpTensor) x = ep_test_new (EP_DTYPE_FLOAT32, EP_SHAPE (2), EP_VALUES (1, 2));
  g_autoptr(GPtrArray) warm = call1 (fn, x, &error);
  g_autoptr(EpTensorSpec) spec = ep_tensor_spec_new (EP_SHAPE (2), EP_DTYPE_FLOAT32, &error);
  g_autofree char *dir = ep_test_make_dir ();
  g_autofree char *path = g_build_filename (dir, "host.json", NULL);
  g_autoptr(GFile) file = g_file_new_for_path (path);

  g_assert_no_error (error);
  g_assert_false (ep_function_save (fn, &spec, 1, file, NULL, &error));
  ep_assert_error (error, EP_ERROR_INVALID_ARGUMENT, "save", "host callback");
  g_assert_false (g_file_query_exists (file, NULL));
  ep_test_remove_dir (dir);
}

static void
done (GObject      *source,
      GAsyncResult *result,
      gpointer      user_data)
{
  *(GAsyncResult **) user_data = g_object_ref (result);
}

/* An async replay runs on a worker, but the callback on the caller's
 * main context. */
static void
test_async_calls_back_on_caller_context (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpFunction) fn = ep_function_new (around_host, GINT_TO_POINTER (FALSE), NULL);
  g_autoptr(EpTensor) x = ep_test_new (EP_DTYPE_FLOAT32, EP_SHAPE (2), EP_VALUES (1, 2));
  g_autoptr(GPtrArray) warm = call1 (fn, x, &error);
  g_autoptr(GPtrArray) results = NULL;
  GMainContext *context = g_main_context_new ();
  GAsyncResult *result = NULL;

  g_assert_no_error (error);
  log_reset ();
  g_main_context_push_thread_default (context);
  ep_function_call_async (fn, &x, 1, NULL, done, &result);
  while (result == NULL)
    g_main_context_iteration (context, TRUE);
  g_main_context_pop_thread_default (context);

  results = ep_function_call_finish (fn, result, &error);
  g_assert_no_error (error);
  ep_assert_values (g_ptr_array_index (results, 0), EP_DTYPE_FLOAT32, EP_SHAPE (2), EP_VALUES (12, 18));
  g_assert_cmpuint (the_log.calls, ==, 1);
  g_assert_true (the_log.thread == g_thread_self ());
  g_object_unref (result);
  g_main_context_unref (context);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/host-call/eager", test_eager);
  g_test_add_func ("/host-call/replays-call-back", test_replays_call_back);
  g_test_add_func ("/host-call/callback-error", test_callback_error);
  g_test_add_func ("/host-call/results-must-match-trace", test_results_must_match_trace);
  g_test_add_func ("/host-call/bad-results", test_bad_results);
  g_test_add_func ("/host-call/result-count-must-match-trace", test_result_count_must_match_trace);
  g_test_add_func ("/host-call/bad-gradients", test_bad_gradients);
  g_test_add_func ("/host-call/gradient", test_gradient);
  g_test_add_func ("/host-call/gradient-inside-step", test_gradient_inside_step);
  g_test_add_func ("/host-call/tapes-in-callback", test_tapes_in_callback);
  g_test_add_func ("/host-call/cannot-save", test_cannot_save);
  g_test_add_func ("/host-call/async-calls-back-on-caller-context", test_async_calls_back_on_caller_context);

  int status = g_test_run ();
  g_clear_pointer (&the_log.seen, g_ptr_array_unref);
  return status;
}
