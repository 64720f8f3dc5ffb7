/* test-memory.c: tidy scopes, keep, dispose, the memory counters and
 * GradientTape.record (core/memory.c)
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "ep-memory-private.h"
#include "ep-test-util.h"

static guint64
cpu_tensors (void)
{
  return ep_device_get_n_tensors (ep_device_get ("cpu:0", NULL));
}

static guint64
cpu_bytes (void)
{
  return ep_device_get_bytes_in_use (ep_device_get ("cpu:0", NULL));
}

static EpTensor *
ones (gint64 n)
{
  return ep_ones (&n, 1, EP_DTYPE_FLOAT32, NULL);
}

/* tidy_begin/end: made inside is released, the result is not */
static void
test_scope_releases (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) outside = ones (4);
  g_autoptr(EpTensor) inside = NULL;
  g_autoptr(EpTensor) result = NULL;
  guint scope = ep_tidy_begin ();

  g_assert_cmpuint (scope, ==, 1);
  g_assert_cmpuint (ep_tidy_get_depth (), ==, 1);
  inside = ep_tensor_add (outside, outside, &error);
  g_assert_no_error (error);
  result = ep_tensor_mul (inside, inside, &error);
  g_assert_no_error (error);
  g_assert_true (ep_tidy_end (scope, &result, 1, &error));
  g_assert_no_error (error);

  g_assert_cmpuint (ep_tidy_get_depth (), ==, 0);
  g_assert_true (ep_tensor_is_released (inside));
  g_assert_false (ep_tensor_is_released (result));
  g_assert_false (ep_tensor_is_released (outside));
  ep_assert_values (result, EP_DTYPE_FLOAT32, EP_SHAPE (4), EP_VALUES (4, 4, 4, 4));
}

/* a released tensor is an error on use, not a crash */
static void
test_released_use_is_error (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) x = ones (2);
  g_autoptr(EpTensor) y = NULL;
  g_autoptr(EpTensor) z = NULL;
  guint scope = ep_tidy_begin ();

  y = ep_tensor_neg (x, NULL);
  g_assert_true (ep_tidy_end (scope, NULL, 0, NULL));
  z = ep_tensor_neg (y, &error);
  g_assert_null (z);
  ep_assert_error (error, EP_ERROR_INVALID_ARGUMENT, "neg", "released");
}

typedef struct
{
  EpTensor *x;
  EpTensor *made;    /* not a reference */
  EpTensor *kept;
  gboolean  fail;
} Body;

static EpTensor *
body (gpointer   user_data,
      GError   **error)
{
  Body *b = user_data;
  g_autoptr(EpTensor) temp = ep_tensor_add (b->x, b->x, error);

  b->made = temp;
  g_object_ref (temp);
  if (b->kept == NULL)
    b->kept = ep_keep (ep_tensor_sub (b->x, b->x, error));
  if (b->fail)
    {
      g_set_error (error, EP_ERROR, EP_ERROR_INVALID_ARGUMENT, "body: failed");
      return NULL;
    }
  return ep_tensor_mul (temp, temp, error);
}

static void
test_tidy_keep (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) x = ones (3);
  Body b = { x, NULL, NULL, FALSE };
  g_autoptr(EpTensor) result = ep_tidy (body, &b, &error);
  g_autoptr(EpTensor) made = b.made;
  g_autoptr(EpTensor) kept = b.kept;

  g_assert_no_error (error);
  ep_assert_values (result, EP_DTYPE_FLOAT32, EP_SHAPE (3), EP_VALUES (4, 4, 4));
  g_assert_true (ep_tensor_is_released (made));
  g_assert_false (ep_tensor_is_released (kept));
  ep_assert_values (kept, EP_DTYPE_FLOAT32, EP_SHAPE (3), EP_VALUES (0, 0, 0));
  g_assert_true (ep_keep (kept) == kept);
}

/* the function's error comes back and the scope still closes */
static void
test_tidy_error (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) x = ones (3);
  g_autoptr(EpTensor) kept = ones (1);
  Body b = { x, NULL, kept, TRUE };
  g_autoptr(EpTensor) result = ep_tidy (body, &b, &error);
  g_autoptr(EpTensor) made = b.made;

  g_assert_null (result);
  ep_assert_error (error, EP_ERROR_INVALID_ARGUMENT, "body", "failed");
  g_assert_true (ep_tensor_is_released (made));
  g_assert_cmpuint (ep_tidy_get_depth (), ==, 0);
}

/* an inner scope's result belongs to the outer one */
static void
test_nesting (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) x = ones (2);
  g_autoptr(EpTensor) inner_temp = NULL;
  g_autoptr(EpTensor) inner_result = NULL;
  g_autoptr(EpTensor) outer_result = NULL;
  guint outer = ep_tidy_begin ();
  guint inner = ep_tidy_begin ();

  g_assert_cmpuint (inner, ==, outer + 1);
  inner_temp = ep_tensor_add (x, x, NULL);
  inner_result = ep_tensor_mul (inner_temp, x, NULL);
  g_assert_true (ep_tidy_end (inner, &inner_result, 1, &error));
  g_assert_true (ep_tensor_is_released (inner_temp));
  g_assert_false (ep_tensor_is_released (inner_result));

  outer_result = ep_tensor_add (inner_result, x, NULL);
  g_assert_true (ep_tidy_end (outer, &outer_result, 1, &error));
  g_assert_no_error (error);
  g_assert_true (ep_tensor_is_released (inner_result));
  ep_assert_values (outer_result, EP_DTYPE_FLOAT32, EP_SHAPE (2), EP_VALUES (3, 3));
}

/* an inner scope returning a tensor of the outer scope does not move it */
static void
test_result_from_outer (void)
{
  g_autoptr(EpTensor) x = ones (2);
  g_autoptr(EpTensor) y = NULL;
  guint outer = ep_tidy_begin ();
  guint inner;

  y = ep_tensor_neg (x, NULL);
  inner = ep_tidy_begin ();
  g_assert_true (ep_tidy_end (inner, &y, 1, NULL));
  g_assert_false (ep_tensor_is_released (y));
  g_assert_true (ep_tidy_end (outer, NULL, 0, NULL));
  g_assert_true (ep_tensor_is_released (y));
}

static void
test_end_errors (void)
{
  g_autoptr(GError) error = NULL;
  guint outer;
  guint inner;

  g_assert_false (ep_tidy_end (1, NULL, 0, &error));
  ep_assert_error (error, EP_ERROR_INVALID_ARGUMENT, "tidy_end", "no tidy scope");
  g_clear_error (&error);

  outer = ep_tidy_begin ();
  inner = ep_tidy_begin ();
  g_assert_false (ep_tidy_end (outer, NULL, 0, &error));
  ep_assert_error (error, EP_ERROR_INVALID_ARGUMENT, "tidy_end", "not the innermost");
  g_assert_cmpuint (ep_tidy_get_depth (), ==, 2);
  g_assert_true (ep_tidy_end (inner, NULL, 0, NULL));
  g_assert_true (ep_tidy_end (outer, NULL, 0, NULL));
}

/* a view released by the scope leaves the data of a kept tensor */
static void
test_views_share_storage (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) base = NULL;
  g_autoptr(EpTensor) view = NULL;
  guint scope = ep_tidy_begin ();

  base = ep_keep (ep_test_new (EP_DTYPE_FLOAT32, EP_SHAPE (2, 2), EP_VALUES (1, 2, 3, 4)));
  view = ep_tensor_transpose (base, NULL, 0, &error);
  g_assert_no_error (error);
  g_assert_true (ep_tensor_shares_storage (base, view));
  g_assert_true (ep_tidy_end (scope, NULL, 0, NULL));

  g_assert_true (ep_tensor_is_released (view));
  ep_assert_values (base, EP_DTYPE_FLOAT32, EP_SHAPE (2, 2), EP_VALUES (1, 2, 3, 4));
}

/* a variable made and assigned in a scope keeps its value */
static void
test_variables_untouched (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpVariable) v = NULL;
  g_autoptr(EpTensor) value = NULL;
  g_autoptr(EpTensor) read = NULL;
  guint scope = ep_tidy_begin ();
  g_autoptr(EpTensor) init = ones (2);
  g_autoptr(EpTensor) delta = ep_tensor_add (init, init, NULL);

  v = ep_variable_new (init, NULL);
  g_assert_true (ep_variable_assign_add (v, delta, &error));
  read = ep_variable_read (v);
  g_assert_true (ep_tidy_end (scope, NULL, 0, NULL));

  g_assert_true (ep_tensor_is_released (read));
  g_assert_true (ep_tensor_is_released (init));
  value = ep_variable_read (v);
  ep_assert_values (value, EP_DTYPE_FLOAT32, EP_SHAPE (2), EP_VALUES (3, 3));
}

static GPtrArray *
double_it (EpTensor **inputs,
           guint      n_inputs,
           gpointer   user_data,
           GError   **error)
{
  g_autoptr(EpTensor) two = ones (1);
  g_autoptr(EpTensor) sum = ep_tensor_add (two, two, error);
  g_autoptr(GPtrArray) out = g_ptr_array_new_with_free_func (g_object_unref);

  g_ptr_array_add (out, ep_tensor_mul (inputs[0], sum, error));
  return g_steal_pointer (&out);
}

/* a staged function traced in a scope replays after it closed: its
 * constants are the graph's; its results in a scope are released */
static void
test_staged_call (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpFunction) f = ep_function_new (double_it, NULL, NULL);
  g_autoptr(EpTensor) x = ones (2);
  g_autoptr(GPtrArray) traced = NULL;
  g_autoptr(GPtrArray) again = NULL;
  guint scope = ep_tidy_begin ();

  traced = ep_function_call (f, &x, 1, &error);
  g_assert_no_error (error);
  g_assert_true (ep_tidy_end (scope, NULL, 0, NULL));
  g_assert_true (ep_tensor_is_released (g_ptr_array_index (traced, 0)));

  again = ep_function_call (f, &x, 1, &error);
  g_assert_no_error (error);
  ep_assert_values (g_ptr_array_index (again, 0), EP_DTYPE_FLOAT32, EP_SHAPE (2), EP_VALUES (2, 2));
}

typedef struct
{
  EpVariable *w;
  EpTensor   *x;
} Model;

static EpTensor *
loss_of (gpointer   user_data,
         GError   **error)
{
  Model *m = user_data;
  g_autoptr(EpTensor) w = ep_variable_read (m->w);
  g_autoptr(EpTensor) y = ep_tensor_mul (w, m->x, error);

  return y != NULL ? ep_tensor_sum (y, NULL, 0, FALSE, error) : NULL;
}

/* sum((w x)²): its gradient reads the intermediate w x */
static EpTensor *
square_loss_of (gpointer   user_data,
                GError   **error)
{
  Model *m = user_data;
  g_autoptr(EpTensor) w = ep_variable_read (m->w);
  g_autoptr(EpTensor) y = ep_tensor_mul (w, m->x, error);
  g_autoptr(EpTensor) y2 = y != NULL ? ep_tensor_square (y, error) : NULL;

  return y2 != NULL ? ep_tensor_sum (y2, NULL, 0, FALSE, error) : NULL;
}

typedef struct
{
  Model           model;
  EpGradientTape *tape;
} Step;

static EpTensor *
gradient_step (gpointer   user_data,
               GError   **error)
{
  Step *s = user_data;
  g_autoptr(EpTensor) loss = ep_gradient_tape_record (s->tape, loss_of, &s->model, error);
  GObject *sources[] = { G_OBJECT (s->model.w) };
  g_autoptr(GPtrArray) grads = NULL;

  if (loss == NULL)
    return NULL;
  grads = ep_gradient_tape_gradient (s->tape, &loss, 1, sources, 1, NULL, 0, error);
  if (grads == NULL)
    return NULL;
  return g_object_ref (g_ptr_array_index (grads, 0));
}

/* a tape inside the scope: the gradient inside works; after the scope
 * closed, the tape's saved tensors are released: a clear error */
static void
test_tape_inside (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) init = ep_test_new (EP_DTYPE_FLOAT32, EP_SHAPE (2), EP_VALUES (1, 2));
  g_autoptr(EpVariable) w = ep_variable_new (init, NULL);
  g_autoptr(EpTensor) x = ep_test_new (EP_DTYPE_FLOAT32, EP_SHAPE (2), EP_VALUES (3, 5));
  g_autoptr(EpGradientTape) tape = ep_gradient_tape_new (TRUE);
  Step s = { { w, x }, tape };
  g_autoptr(EpTensor) grad = ep_tidy (gradient_step, &s, &error);
  g_autoptr(EpTensor) loss = NULL;
  g_autoptr(GPtrArray) late = NULL;
  GObject *sources[] = { G_OBJECT (w) };
  guint scope;

  g_assert_no_error (error);
  ep_assert_values (grad, EP_DTYPE_FLOAT32, EP_SHAPE (2), EP_VALUES (3, 5));
  g_assert_false (ep_gradient_tape_is_active (tape));

  /* record in a scope, differentiate after it closed */
  ep_gradient_tape_reset (tape);
  scope = ep_tidy_begin ();
  loss = ep_gradient_tape_record (tape, square_loss_of, &s.model, &error);
  g_assert_no_error (error);
  ep_keep (loss);
  g_assert_true (ep_tidy_end (scope, NULL, 0, NULL));
  late = ep_gradient_tape_gradient (tape, &loss, 1, sources, 1, NULL, 0, &error);
  g_assert_null (late);
  ep_assert_error (error, EP_ERROR_INVALID_ARGUMENT, "gradient", "tidy scope");
}

static EpTensor *
failing (gpointer   user_data,
         GError   **error)
{
  g_autoptr(EpTensor) x = ones (2);

  g_set_error (error, EP_ERROR, EP_ERROR_SHAPE, "inner: bad shape");
  return NULL;
}

static EpTensor *
stops_itself (gpointer   user_data,
              GError   **error)
{
  ep_gradient_tape_stop (user_data, error);
  return NULL;
}

static void
test_record (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpGradientTape) tape = ep_gradient_tape_new (FALSE);
  g_autoptr(EpTensor) result = ep_gradient_tape_record (tape, failing, NULL, &error);

  g_assert_null (result);
  ep_assert_error (error, EP_ERROR_SHAPE, "inner", "bad shape");
  g_assert_false (ep_gradient_tape_is_active (tape));
  g_clear_error (&error);

  g_assert_true (ep_gradient_tape_start (tape, NULL));
  g_assert_null (ep_gradient_tape_record (tape, failing, NULL, &error));
  ep_assert_error (error, EP_ERROR_GRADIENT, "record", "already active");
  g_assert_true (ep_gradient_tape_stop (tape, NULL));
  g_clear_error (&error);

  g_assert_null (ep_gradient_tape_record (tape, stops_itself, tape, &error));
  ep_assert_error (error, EP_ERROR_GRADIENT, "record", "stopped the tape");
  g_assert_false (ep_gradient_tape_is_active (tape));
}

/* the counters: tensors holding data and bytes alive per device */
static void
test_counters (void)
{
  guint64 tensors = cpu_tensors ();
  guint64 bytes = cpu_bytes ();
  guint64 total_bytes, total_tensors;
  g_autoptr(EpTensor) x = ones (256);
  g_autoptr(EpTensor) view = ep_tensor_reshape (x, (gint64[]) { 16, 16 }, 2, NULL);

  g_assert_cmpuint (cpu_tensors (), ==, tensors + 2);
  g_assert_cmpuint (cpu_bytes (), ==, bytes + 1024);
  ep_memory (&total_bytes, &total_tensors);
  g_assert_cmpuint (total_bytes, >=, bytes + 1024);
  g_assert_cmpuint (total_tensors, >=, tensors + 2);

  ep_dispose (view);
  ep_dispose (view);
  ep_dispose (NULL);
  g_assert_cmpuint (cpu_tensors (), ==, tensors + 1);
  g_assert_cmpuint (cpu_bytes (), ==, bytes + 1024);
  ep_dispose (x);
  g_assert_cmpuint (cpu_tensors (), ==, tensors);
  g_assert_cmpuint (cpu_bytes (), ==, bytes);
}

/* a loop of scopes leaves the counters where they were */
static void
test_counters_flat (void)
{
  g_autoptr(EpTensor) x = ones (64);
  guint64 tensors = cpu_tensors ();
  guint64 bytes = cpu_bytes ();

  for (guint i = 0; i < 100; i++)
    {
      guint scope = ep_tidy_begin ();
      EpTensor *y = ep_tensor_mul (x, x, NULL);
      EpTensor *z = ep_tensor_exp (y, NULL);

      /* the user's references go at any time: weak entries */
      g_object_unref (y);
      g_assert_true (ep_tidy_end (scope, NULL, 0, NULL));
      g_assert_true (ep_tensor_is_released (z));
      g_object_unref (z);
    }
  g_assert_cmpuint (cpu_tensors (), ==, tensors);
  g_assert_cmpuint (cpu_bytes (), ==, bytes);
}

typedef struct
{
  EpTensor *made;
  GMutex    lock;
  GCond     cond;
  gint      stage;
} Handoff;

static gpointer
unref_thread (gpointer data)
{
  g_object_unref (data);
  return NULL;
}

static gpointer
other_thread (gpointer data)
{
  Handoff *h = data;
  g_autoptr(EpTensor) x = ones (2);

  g_mutex_lock (&h->lock);
  h->made = ep_tensor_neg (x, NULL);
  h->stage = 1;
  g_cond_broadcast (&h->cond);
  while (h->stage < 2)
    g_cond_wait (&h->cond, &h->lock);
  g_mutex_unlock (&h->lock);
  return NULL;
}

/* a scope on one thread leaves another thread's tensors alone; a tensor
 * of a scope finalized on another thread leaves the scope sound */
static void
test_threads (void)
{
  Handoff h = { 0 };
  GThread *thread;
  guint scope = ep_tidy_begin ();
  g_autoptr(EpTensor) x = ones (2);
  EpTensor *mine = ep_tensor_neg (x, NULL);
  g_autoptr(EpTensor) theirs = NULL;

  g_mutex_init (&h.lock);
  g_cond_init (&h.cond);
  thread = g_thread_new ("other", other_thread, &h);
  g_mutex_lock (&h.lock);
  while (h.stage < 1)
    g_cond_wait (&h.cond, &h.lock);
  theirs = h.made;
  g_mutex_unlock (&h.lock);

  /* mine goes on the other thread's side, from here: its slot clears */
  g_thread_join (g_thread_new ("unref", unref_thread, mine));

  g_assert_true (ep_tidy_end (scope, NULL, 0, NULL));
  g_assert_false (ep_tensor_is_released (theirs));
  g_assert_true (ep_tensor_is_released (x));

  g_mutex_lock (&h.lock);
  h.stage = 2;
  g_cond_broadcast (&h.cond);
  g_mutex_unlock (&h.lock);
  g_thread_join (thread);
  g_mutex_clear (&h.lock);
  g_cond_clear (&h.cond);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/memory/scope-releases", test_scope_releases);
  g_test_add_func ("/memory/released-use-is-error", test_released_use_is_error);
  g_test_add_func ("/memory/tidy-keep", test_tidy_keep);
  g_test_add_func ("/memory/tidy-error", test_tidy_error);
  g_test_add_func ("/memory/nesting", test_nesting);
  g_test_add_func ("/memory/result-from-outer", test_result_from_outer);
  g_test_add_func ("/memory/end-errors", test_end_errors);
  g_test_add_func ("/memory/views-share-storage", test_views_share_storage);
  g_test_add_func ("/memory/variables-untouched", test_variables_untouched);
  g_test_add_func ("/memory/staged-call", test_staged_call);
  g_test_add_func ("/memory/tape-inside", test_tape_inside);
  g_test_add_func ("/memory/record", test_record);
  g_test_add_func ("/memory/counters", test_counters);
  g_test_add_func ("/memory/counters-flat", test_counters_flat);
  g_test_add_func ("/memory/threads", test_threads);
  return g_test_run ();
}
