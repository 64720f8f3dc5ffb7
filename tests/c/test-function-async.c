/* test-function-async.c: staged calls replayed on a worker thread
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "ep-test-util.h"

#include "ep-executor-private.h"
#include "ep-function-private.h"

/* The thread each call of the staged functions ran on: tracing must stay
 * on the caller's thread. */
static GThread *traced_on;
static guint calls;

/* A step on two variables: a += x, b = 2b; returns a + b (read before). */
static GPtrArray *
two_updates (EpTensor  **inputs,
             guint       n_inputs,
             gpointer    user_data,
             GError    **error)
{
  EpVariable **vars = user_data;
  g_autoptr(EpTensor) a = ep_variable_read (vars[0]);
  g_autoptr(EpTensor) b = ep_variable_read (vars[1]);
  g_autoptr(EpTensor) b2 = NULL;
  g_autoptr(EpTensor) total = NULL;

  calls++;
  traced_on = g_thread_self ();
  if ((total = ep_tensor_add (a, b, error)) == NULL
      || !ep_variable_assign_add (vars[0], inputs[0], error)
      || (b2 = ep_tensor_mul_scalar (b, 2, error)) == NULL
      || !ep_variable_assign (vars[1], b2, error))
    return NULL;

  return ep_test_one (g_steal_pointer (&total));
}

/* One async call, run to its end on a main context of its own. */
typedef struct
{
  GMainContext *context;
  GAsyncResult *result;
  GThread      *completed_on;
} Waiter;

static void
done (GObject      *source,
      GAsyncResult *result,
      gpointer      user_data)
{
  Waiter *waiter = user_data;

  waiter->result = g_object_ref (result);
  waiter->completed_on = g_thread_self ();
}

static GPtrArray *
call_async (EpFunction    *fn,
            EpTensor      *x,
            GCancellable  *cancellable,
            gboolean       cancel_at_once,
            GError       **error)
{
  Waiter waiter = { g_main_context_new (), NULL, NULL };
  GPtrArray *outputs;

  g_main_context_push_thread_default (waiter.context);
  ep_function_call_async (fn, &x, 1, cancellable, done, &waiter);
  if (cancel_at_once)
    g_cancellable_cancel (cancellable);
  while (waiter.result == NULL)
    g_main_context_iteration (waiter.context, TRUE);
  g_main_context_pop_thread_default (waiter.context);

  g_assert_true (waiter.completed_on == g_thread_self ());
  outputs = ep_function_call_finish (fn, waiter.result, error);
  g_object_unref (waiter.result);
  g_main_context_unref (waiter.context);
  return outputs;
}

static void
assert_variable (EpVariable *variable,
                 gdouble     expected)
{
  g_autoptr(EpTensor) value = ep_variable_read (variable);

  ep_assert_values (value, EP_DTYPE_FLOAT32, EP_SCALAR, &expected, 1);
}

typedef struct
{
  EpVariable *vars[2];
  EpFunction *fn;
  EpTensor   *x;
} Fixture;

static void
fixture_set_up (Fixture       *f,
                gconstpointer  data)
{
  g_autoptr(EpTensor) one = ep_test_new (EP_DTYPE_FLOAT32, EP_SCALAR, EP_VALUES (1));

  f->vars[0] = ep_variable_new (one, "a");
  f->vars[1] = ep_variable_new (one, "b");
  f->fn = ep_function_new (two_updates, f->vars, NULL);
  f->x = ep_test_new (EP_DTYPE_FLOAT32, EP_SCALAR, EP_VALUES (10));
  calls = 0;
}

static void
fixture_tear_down (Fixture       *f,
                   gconstpointer  data)
{
  g_object_unref (f->fn);
  g_object_unref (f->x);
  g_object_unref (f->vars[0]);
  g_object_unref (f->vars[1]);
}

/* The first call traces on the caller's thread; later ones replay on a
 * worker, and every call completes on the caller's main context, with
 * the variables updated as a synchronous call updates them. */
static void
test_async_replays (Fixture       *f,
                    gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  const gdouble totals[] = { 2, 13, 25 };

  for (guint k = 0; k < 3; k++)
    {
      g_autoptr(GPtrArray) result = call_async (f->fn, f->x, NULL, FALSE, &error);

      g_assert_no_error (error);
      ep_assert_values (g_ptr_array_index (result, 0), EP_DTYPE_FLOAT32, EP_SCALAR, &totals[k], 1);
    }
  g_assert_cmpuint (calls, ==, 1);
  g_assert_true (traced_on == g_thread_self ());
  assert_variable (f->vars[0], 31);
  assert_variable (f->vars[1], 8);
}

/* A cancelled call reports G_IO_ERROR_CANCELLED and changes no
 * variable, whether the worker noticed between two ops or had finished. */
static void
test_async_cancelled (Fixture       *f,
                      gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) traced = call_async (f->fn, f->x, NULL, FALSE, &error);

  g_assert_no_error (error);
  for (guint k = 0; k < 20; k++)
    {
      g_autoptr(GCancellable) cancellable = g_cancellable_new ();
      g_autoptr(GPtrArray) result = call_async (f->fn, f->x, cancellable, TRUE, &error);

      g_assert_null (result);
      g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
      g_clear_error (&error);
    }
  assert_variable (f->vars[0], 11);
  assert_variable (f->vars[1], 2);
}

/* The caller may release its input as soon as the call is made: the
 * replay on the worker has objects of its own on the same data. */
static void
test_async_caller_releases_input (Fixture       *f,
                                  gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) traced = call_async (f->fn, f->x, NULL, FALSE, &error);
  g_autoptr(EpTensor) x = ep_test_new (EP_DTYPE_FLOAT32, EP_SCALAR, EP_VALUES (5));
  Waiter waiter = { g_main_context_new (), NULL, NULL };
  g_autoptr(GPtrArray) result = NULL;
  const gdouble total = 13;

  g_assert_no_error (error);
  g_main_context_push_thread_default (waiter.context);
  ep_function_call_async (f->fn, &x, 1, NULL, done, &waiter);
  ep_tensor_release (x);
  while (waiter.result == NULL)
    g_main_context_iteration (waiter.context, TRUE);
  g_main_context_pop_thread_default (waiter.context);

  result = ep_function_call_finish (f->fn, waiter.result, &error);
  g_object_unref (waiter.result);
  g_main_context_unref (waiter.context);
  g_assert_no_error (error);
  ep_assert_values (g_ptr_array_index (result, 0), EP_DTYPE_FLOAT32, EP_SCALAR, &total, 1);
  assert_variable (f->vars[0], 16);
}

/* The executor checks the cancellable before each node. */
static void
test_replay_stops_between_ops (Fixture       *f,
                               gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) traced = call_async (f->fn, f->x, NULL, FALSE, &error);
  g_autoptr(EpGraph) graph = ep_function_lookup_graph (f->fn, &f->x, 1);
  g_autoptr(EpFrame) frame = ep_frame_new (graph);
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();
  EpTensor *outputs[1] = { NULL };

  g_cancellable_cancel (cancellable);
  g_assert_false (ep_graph_replay (graph, frame, &f->x, NULL, outputs, cancellable, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_assert_null (outputs[0]);
  assert_variable (f->vars[0], 11);
}

/* Several calls in flight at once each get their own frame. */
static GPtrArray *
affine (EpTensor  **inputs,
        guint       n_inputs,
        gpointer    user_data,
        GError    **error)
{
  g_autoptr(EpTensor) scaled = ep_tensor_mul_scalar (inputs[0], 3, error);

  return ep_test_one (scaled != NULL ? ep_tensor_add_scalar (scaled, 1, error) : NULL);
}

typedef struct
{
  guint      pending;
  GPtrArray *results;
} Many;

static void
one_done (GObject      *source,
          GAsyncResult *result,
          gpointer      user_data)
{
  Many *many = user_data;
  g_autoptr(GError) error = NULL;
  GPtrArray *outputs = ep_function_call_finish (EP_FUNCTION (source), result, &error);

  g_assert_no_error (error);
  g_ptr_array_add (many->results, outputs);
  many->pending--;
}

static void
test_async_concurrent (void)
{
  g_autoptr(EpFunction) fn = ep_function_new (affine, NULL, NULL);
  g_autoptr(GPtrArray) inputs = g_ptr_array_new_with_free_func (g_object_unref);
  Many many = { 0, g_ptr_array_new_with_free_func ((GDestroyNotify) g_ptr_array_unref) };
  gdouble total = 0;

  for (guint k = 0; k < 16; k++)
    {
      gdouble values[256];

      for (guint i = 0; i < 256; i++)
        values[i] = k;
      g_ptr_array_add (inputs, ep_test_new (EP_DTYPE_FLOAT64, EP_SHAPE (256), values, 256));
      many.pending++;
      ep_function_call_async (fn, (EpTensor **) &inputs->pdata[k], 1, NULL, one_done, &many);
    }
  while (many.pending > 0)
    g_main_context_iteration (NULL, TRUE);

  for (guint k = 0; k < 16; k++)
    {
      g_autoptr(GError) error = NULL;
      GPtrArray *outputs = g_ptr_array_index (many.results, k);
      g_autoptr(EpTensor) sum = ep_tensor_sum (g_ptr_array_index (outputs, 0), NULL, 0, FALSE, &error);

      total += ep_tensor_item_double (sum, &error);
      g_assert_no_error (error);
    }
  /* sum over k of 256 (3k + 1) */
  g_assert_cmpfloat (total, ==, 256.0 * (3 * 120 + 16));
  g_assert_cmpuint (ep_function_get_trace_count (fn), ==, 1);
  g_ptr_array_unref (many.results);
}

/* Errors come through the callback: a function made without one, and a
 * result that is not this function's. */
static void
test_async_errors (Fixture       *f,
                   gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpFunction) bare = g_object_new (EP_TYPE_FUNCTION, NULL);
  g_autoptr(GPtrArray) result = call_async (bare, f->x, NULL, FALSE, &error);
  g_autoptr(GTask) other = g_task_new (f->fn, NULL, NULL, NULL);

  g_assert_null (result);
  ep_assert_error (error, EP_ERROR_INVALID_ARGUMENT, "function", "without a function");
  g_clear_error (&error);

  g_assert_null (ep_function_call_finish (f->fn, G_ASYNC_RESULT (other), &error));
  ep_assert_error (error, EP_ERROR_INVALID_ARGUMENT, "call_finish", "not of a call_async");
  g_task_return_boolean (other, TRUE);
}

/* Under a tape the call runs on this thread so that the tape records it. */
static void
test_async_under_tape (Fixture       *f,
                       gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) traced = call_async (f->fn, f->x, NULL, FALSE, &error);
  g_autoptr(EpGradientTape) tape = ep_gradient_tape_new (FALSE);
  g_autoptr(GPtrArray) result = NULL, grads = NULL;
  GObject *sources[2] = { G_OBJECT (f->vars[0]), G_OBJECT (f->vars[1]) };

  g_assert_true (ep_gradient_tape_start (tape, NULL));
  result = call_async (f->fn, f->x, NULL, FALSE, &error);
  g_assert_true (ep_gradient_tape_stop (tape, NULL));
  g_assert_no_error (error);
  grads = ep_gradient_tape_gradient (tape, (EpTensor **) result->pdata, 1, sources, 2, NULL, 0, &error);
  g_assert_no_error (error);
  ep_assert_values (g_ptr_array_index (grads, 0), EP_DTYPE_FLOAT32, EP_SCALAR, EP_VALUES (1));
  ep_assert_values (g_ptr_array_index (grads, 1), EP_DTYPE_FLOAT32, EP_SCALAR, EP_VALUES (1));
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add ("/function-async/replays", Fixture, NULL, fixture_set_up, test_async_replays, fixture_tear_down);
  g_test_add ("/function-async/cancelled", Fixture, NULL, fixture_set_up, test_async_cancelled, fixture_tear_down);
  g_test_add ("/function-async/stops-between-ops", Fixture, NULL, fixture_set_up,
              test_replay_stops_between_ops, fixture_tear_down);
  g_test_add_func ("/function-async/concurrent", test_async_concurrent);
  g_test_add ("/function-async/caller-releases-input", Fixture, NULL, fixture_set_up,
              test_async_caller_releases_input, fixture_tear_down);
  g_test_add ("/function-async/errors", Fixture, NULL, fixture_set_up, test_async_errors, fixture_tear_down);
  g_test_add ("/function-async/under-tape", Fixture, NULL, fixture_set_up, test_async_under_tape, fixture_tear_down);

  return g_test_run ();
}
