/* test-replay-memory.c: what a replay allocates, and that reusing
 * buffers never changes a value (graph/arena.c, graph/executor.c)
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include <sys/resource.h>

#include "ep-test-gradient.h"

#include "ep-context-private.h"
#include "ep-executor-private.h"
#include "ep-function-private.h"

static guint64
allocs (void)
{
  return ep_context_get ()->storage_allocs;
}

static glong
minor_faults (void)
{
  struct rusage usage;

  getrusage (RUSAGE_SELF, &usage);
  return usage.ru_minflt;
}

static GPtrArray *
call (EpFunction *fn,
      EpTensor   *x)
{
  g_autoptr(GError) error = NULL;
  GPtrArray *result = ep_function_call (fn, &x, 1, &error);

  g_assert_no_error (error);
  return result;
}

/* The same dtype, shape and bytes */
static void
assert_identical (EpTensor *a,
                  EpTensor *b)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) a_bytes = ep_tensor_to_bytes (a, &error);
  g_autoptr(GBytes) b_bytes = ep_tensor_to_bytes (b, &error);

  g_assert_no_error (error);
  g_assert_cmpint (a->layout.dtype, ==, b->layout.dtype);
  ep_assert_shape (a, b->layout.shape, b->layout.ndim);
  g_assert_true (g_bytes_equal (a_bytes, b_bytes));
}

/* A copy of @t's bytes, to compare with later */
static GBytes *
bytes_of (EpTensor *t)
{
  g_autoptr(GError) error = NULL;
  GBytes *bytes = ep_tensor_to_bytes (t, &error);

  g_assert_no_error (error);
  return bytes;
}

/* sum (exp (x * 2) + 1): each elementwise op's input dies at it */
static GPtrArray *
chain_sum (EpTensor  **inputs,
           guint       n_inputs,
           gpointer    user_data,
           GError    **error)
{
  g_autoptr(EpTensor) a = NULL, b = NULL, c = NULL;

  if ((a = ep_tensor_mul_scalar (inputs[0], 2, error)) == NULL
      || (b = ep_tensor_exp (a, error)) == NULL
      || (c = ep_tensor_add_scalar (b, 1, error)) == NULL)
    return NULL;

  return ep_test_one (ep_tensor_sum (c, NULL, 0, FALSE, error));
}

/* exp (x * 2) + 1, an elementwise result */
static GPtrArray *
chain (EpTensor  **inputs,
       guint       n_inputs,
       gpointer    user_data,
       GError    **error)
{
  g_autoptr(EpTensor) a = NULL, b = NULL;

  if ((a = ep_tensor_mul_scalar (inputs[0], 2, error)) == NULL
      || (b = ep_tensor_exp (a, error)) == NULL)
    return NULL;

  return ep_test_one (ep_tensor_add_scalar (b, 1, error));
}

/* Writing over dying inputs: the exp and the add write over x * 2, so
 * the frame keeps one buffer for the three (it would keep two, a and b
 * being alive together at the exp, without), and a replay allocates its
 * result only. */
static void
test_in_place (void)
{
  g_autoptr(EpFunction) fn = NULL;
  g_autoptr(EpTensor) x = ep_test_random (EP_SHAPE (1000), EP_DTYPE_FLOAT32, 1);
  g_autoptr(EpGraph) plan = NULL;
  g_autoptr(EpFrame) frame = NULL;
  EpTensor *inputs[1] = { x };
  g_autoptr(GPtrArray) eager = chain_sum (inputs, 1, NULL, NULL);

  /* op by op: the fuse pass would make the chain and its sum one node
   * with no intermediate at all (tests/c/test-fuse.c) */
  g_setenv ("EP_GRAPH_PASSES", "-fuse", TRUE);
  fn = ep_function_new (chain_sum, NULL, NULL);
  g_ptr_array_unref (call (fn, x));   /* traces */
  g_ptr_array_unref (call (fn, x));   /* makes the plan */
  plan = ep_function_lookup_plan (fn, inputs, 1);
  g_assert_nonnull (plan);
  frame = ep_frame_new (plan);

  for (guint k = 0; k < 3; k++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(EpTensor) out = NULL;
      guint64 before = allocs ();

      g_assert_true (ep_graph_replay (plan, frame, inputs, NULL, &out, NULL, &error));
      g_assert_no_error (error);
      assert_identical (out, g_ptr_array_index (eager, 0));
      g_assert_cmpuint (ep_frame_get_n_buffers (frame), ==, 1);
      /* the first replay asks the device for x * 2 too */
      g_assert_cmpuint (allocs () - before, ==, k == 0 ? 2 : 1);
    }
  g_unsetenv ("EP_GRAPH_PASSES");
}

/* x @ w, a fused group of it, then @ w again: the group's result can
 * take over the first product's buffer, which dies there */
static GPtrArray *
matmul_group_matmul (EpTensor  **inputs,
                     guint       n_inputs,
                     gpointer    user_data,
                     GError    **error)
{
  g_autoptr(EpTensor) a = NULL, b = NULL, c = NULL;

  if ((a = ep_tensor_matmul (inputs[0], inputs[1], error)) == NULL
      || (b = ep_tensor_tanh (a, error)) == NULL
      || (c = ep_tensor_mul_scalar (b, 0.5, error)) == NULL)
    return NULL;
  return ep_test_one (ep_tensor_matmul (c, inputs[1], error));
}

/* A fused group writes over its dying input: the frame keeps one buffer
 * for the product and the group's result (two without) */
static void
test_fused_in_place (void)
{
  g_autoptr(EpFunction) fn = ep_function_new (matmul_group_matmul, NULL, NULL);
  g_autoptr(EpTensor) x = ep_test_random (EP_SHAPE (64, 32), EP_DTYPE_FLOAT32, 3);
  g_autoptr(EpTensor) w = ep_test_random (EP_SHAPE (32, 32), EP_DTYPE_FLOAT32, 4);
  EpTensor *inputs[2] = { x, w };
  g_autoptr(GPtrArray) eager = matmul_group_matmul (inputs, 2, NULL, NULL);
  g_autoptr(EpGraph) plan = NULL;
  g_autoptr(EpFrame) frame = NULL;
  g_autofree char *text = NULL;

  g_ptr_array_unref (ep_function_call (fn, inputs, 2, NULL));   /* traces */
  g_ptr_array_unref (ep_function_call (fn, inputs, 2, NULL));   /* makes the plan */
  plan = ep_function_lookup_plan (fn, inputs, 2);
  g_assert_nonnull (plan);
  text = ep_graph_to_string (plan);
  g_assert_nonnull (strstr (text, "fused[tanh mul]"));
  frame = ep_frame_new (plan);

  for (guint k = 0; k < 3; k++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(EpTensor) out = NULL;

      g_assert_true (ep_graph_replay (plan, frame, inputs, NULL, &out, NULL, &error));
      g_assert_no_error (error);
      assert_identical (out, g_ptr_array_index (eager, 0));
      g_assert_cmpuint (ep_frame_get_n_buffers (frame), ==, 1);
    }
}

/* a = x * 2; b = exp (a); c = b + a (a still read after the exp);
 * d = -c; e = reshape (d) (a view); f = square (d) (d dies there, but
 * e holds its storage); results:
 * - reshape (f) + e
 * - -x (x is an input: never written)
 * - sum (x * 4, axis 0) + x (the sum dies at the add, smaller than its
 *   result: broadcast)
 * - -transpose (x * 3) (the transposed view dies at the neg: not
 *   contiguous) */
static GPtrArray *
live_values (EpTensor  **inputs,
             guint       n_inputs,
             gpointer    user_data,
             GError    **error)
{
  g_autoptr(EpTensor) a = NULL, b = NULL, c = NULL, d = NULL, e = NULL, f = NULL, g = NULL;
  g_autoptr(EpTensor) x4 = NULL, s = NULL, x3 = NULL, t = NULL;
  g_autoptr(GPtrArray) result = ep_test_one (NULL);
  EpTensor *out;

  if ((a = ep_tensor_mul_scalar (inputs[0], 2, error)) == NULL
      || (b = ep_tensor_exp (a, error)) == NULL
      || (c = ep_tensor_add (b, a, error)) == NULL
      || (d = ep_tensor_neg (c, error)) == NULL
      || (e = ep_tensor_reshape (d, EP_SHAPE (-1), error)) == NULL
      || (f = ep_tensor_square (d, error)) == NULL
      || (g = ep_tensor_reshape (f, EP_SHAPE (-1), error)) == NULL
      || (out = ep_tensor_add (g, e, error)) == NULL)
    return NULL;
  g_ptr_array_add (result, out);
  if ((out = ep_tensor_neg (inputs[0], error)) == NULL)
    return NULL;
  g_ptr_array_add (result, out);
  if ((x4 = ep_tensor_mul_scalar (inputs[0], 4, error)) == NULL
      || (s = ep_tensor_sum (x4, EP_AXES (0), FALSE, error)) == NULL
      || (out = ep_tensor_add (s, inputs[0], error)) == NULL)
    return NULL;
  g_ptr_array_add (result, out);
  if ((x3 = ep_tensor_mul_scalar (inputs[0], 3, error)) == NULL
      || (t = ep_tensor_transpose (x3, NULL, 0, error)) == NULL
      || (out = ep_tensor_neg (t, error)) == NULL)
    return NULL;
  g_ptr_array_add (result, out);

  return g_steal_pointer (&result);
}

/* Nothing written in place is read again: a value used later, a view's
 * base, an input, a broadcast operand, a strided view. */
static void
test_in_place_keeps_live_values (void)
{
  g_autoptr(EpFunction) fn = ep_function_new (live_values, NULL, NULL);
  g_autoptr(EpTensor) x = ep_test_random (EP_SHAPE (3, 5), EP_DTYPE_FLOAT64, 2);
  g_autoptr(GBytes) x_bytes = bytes_of (x);
  EpTensor *inputs[1] = { x };
  g_autoptr(GPtrArray) eager = live_values (inputs, 1, NULL, NULL);

  for (guint k = 0; k < 4; k++)
    {
      g_autoptr(GPtrArray) staged = call (fn, x);
      g_autoptr(GBytes) now = bytes_of (x);

      g_assert_cmpuint (staged->len, ==, eager->len);
      for (guint o = 0; o < staged->len; o++)
        assert_identical (g_ptr_array_index (staged, o), g_ptr_array_index (eager, o));
      g_assert_true (g_bytes_equal (now, x_bytes));
    }
}

/* The results of a replay are the caller's: the next replays do not
 * write over them. */
static void
test_results_not_clobbered (void)
{
  g_autoptr(EpFunction) fn = ep_function_new (chain, NULL, NULL);
  g_autoptr(EpTensor) x1 = ep_test_random (EP_SHAPE (64), EP_DTYPE_FLOAT32, 3);
  g_autoptr(EpTensor) x2 = ep_test_random (EP_SHAPE (64), EP_DTYPE_FLOAT32, 4);
  g_autoptr(GPtrArray) eager1 = chain (&x1, 1, NULL, NULL);
  g_autoptr(GPtrArray) eager2 = chain (&x2, 1, NULL, NULL);
  GPtrArray *results[6];

  for (guint k = 0; k < G_N_ELEMENTS (results); k++)
    results[k] = call (fn, k % 2 ? x2 : x1);
  for (guint k = 0; k < G_N_ELEMENTS (results); k++)
    {
      assert_identical (g_ptr_array_index (results[k], 0),
                        g_ptr_array_index (k % 2 ? eager2 : eager1, 0));
      g_ptr_array_unref (results[k]);
    }
}

/* a = x * 3; b = tanh (a); c = b * a; the sums of c along rows, and of
 * a: the buffers of a and b stay in the frame from a replay to the next,
 * for any batch size */
static GPtrArray *
rows (EpTensor  **inputs,
      guint       n_inputs,
      gpointer    user_data,
      GError    **error)
{
  g_autoptr(EpTensor) a = NULL, b = NULL, c = NULL;
  g_autoptr(GPtrArray) result = ep_test_one (NULL);
  EpTensor *sums, *total;

  if ((a = ep_tensor_mul_scalar (inputs[0], 3, error)) == NULL
      || (b = ep_tensor_tanh (a, error)) == NULL
      || (c = ep_tensor_mul (b, a, error)) == NULL
      || (sums = ep_tensor_sum (c, EP_AXES (1), FALSE, error)) == NULL)
    return NULL;
  g_ptr_array_add (result, sums);
  if ((total = ep_tensor_sum (a, NULL, 0, FALSE, error)) == NULL)
    return NULL;
  g_ptr_array_add (result, total);
  return g_steal_pointer (&result);
}

/* A relaxed graph replays on growing and shrinking batches: buffers are
 * matched by size at each replay, and every result keeps its values. */
static void
test_relaxed_batches (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensorSpec) spec = ep_tensor_spec_new (EP_SHAPE (-1, 4), EP_DTYPE_FLOAT32, &error);
  g_autoptr(EpFunction) fn = ep_function_new_with_signature (rows, NULL, NULL, &spec, 1);
  const gint64 batches[] = { 8, 32, 32, 4, 4, 32, 1, 8, 8, 64, 64, 2, 64 };
  GPtrArray *staged[G_N_ELEMENTS (batches)], *eager[G_N_ELEMENTS (batches)];
  EpTensor *x[G_N_ELEMENTS (batches)];

  g_assert_no_error (error);
  for (guint k = 0; k < G_N_ELEMENTS (batches); k++)
    {
      x[k] = ep_test_random (EP_SHAPE (batches[k], 4), EP_DTYPE_FLOAT32, 10 + k);
      staged[k] = call (fn, x[k]);
      eager[k] = rows (&x[k], 1, NULL, NULL);
    }
  g_assert_cmpuint (ep_function_get_trace_count (fn), ==, 2);

  for (guint k = 0; k < G_N_ELEMENTS (batches); k++)
    {
      assert_identical (g_ptr_array_index (staged[k], 0), g_ptr_array_index (eager[k], 0));
      assert_identical (g_ptr_array_index (staged[k], 1), g_ptr_array_index (eager[k], 1));
      g_ptr_array_unref (staged[k]);
      g_ptr_array_unref (eager[k]);
      g_object_unref (x[k]);
    }
}

/* An MLP's training step: loss = sum ((relu (x w1 + b1) w2 + b2 - t)²),
 * then v -= 0.01 dloss/dv for each of its four variables. */
typedef struct
{
  EpVariable *v[4];   /* w1 b1 w2 b2 */
  EpTensor   *target;
} Mlp;

static void
mlp_init (Mlp   *mlp,
          gint64 n_in,
          gint64 n_hidden,
          gint64 batch)
{
  g_autoptr(EpTensor) w1 = ep_test_random (EP_SHAPE (n_in, n_hidden), EP_DTYPE_FLOAT32, 21);
  g_autoptr(EpTensor) b1 = ep_test_random (EP_SHAPE (n_hidden), EP_DTYPE_FLOAT32, 22);
  g_autoptr(EpTensor) w2 = ep_test_random (EP_SHAPE (n_hidden, 2), EP_DTYPE_FLOAT32, 23);
  g_autoptr(EpTensor) b2 = ep_test_random (EP_SHAPE (2), EP_DTYPE_FLOAT32, 24);

  mlp->v[0] = ep_variable_new (w1, "w1");
  mlp->v[1] = ep_variable_new (b1, "b1");
  mlp->v[2] = ep_variable_new (w2, "w2");
  mlp->v[3] = ep_variable_new (b2, "b2");
  mlp->target = ep_test_random (EP_SHAPE (batch, 2), EP_DTYPE_FLOAT32, 25);
}

static void
mlp_clear (Mlp *mlp)
{
  for (guint i = 0; i < 4; i++)
    g_clear_object (&mlp->v[i]);
  g_clear_object (&mlp->target);
}

static GPtrArray *
mlp_step (EpTensor  **inputs,
          guint       n_inputs,
          gpointer    user_data,
          GError    **error)
{
  Mlp *mlp = user_data;
  g_autoptr(EpGradientTape) tape = ep_gradient_tape_new (FALSE);
  g_autoptr(EpTensor) w1 = NULL, b1 = NULL, w2 = NULL, b2 = NULL;
  g_autoptr(EpTensor) xw = NULL, z = NULL, h = NULL, hw = NULL, y = NULL, diff = NULL, sq = NULL, loss = NULL;
  g_autoptr(GPtrArray) grads = NULL;
  GObject *sources[4];

  for (guint i = 0; i < 4; i++)
    sources[i] = G_OBJECT (mlp->v[i]);
  if (!ep_gradient_tape_start (tape, error))
    return NULL;
  w1 = ep_variable_read (mlp->v[0]);
  b1 = ep_variable_read (mlp->v[1]);
  w2 = ep_variable_read (mlp->v[2]);
  b2 = ep_variable_read (mlp->v[3]);
  if ((xw = ep_tensor_matmul (inputs[0], w1, error)) == NULL
      || (z = ep_tensor_add (xw, b1, error)) == NULL
      || (h = ep_tensor_relu (z, error)) == NULL
      || (hw = ep_tensor_matmul (h, w2, error)) == NULL
      || (y = ep_tensor_add (hw, b2, error)) == NULL
      || (diff = ep_tensor_sub (y, mlp->target, error)) == NULL
      || (sq = ep_tensor_square (diff, error)) == NULL
      || (loss = ep_tensor_sum (sq, NULL, 0, FALSE, error)) == NULL
      || !ep_gradient_tape_stop (tape, error))
    return NULL;

  grads = ep_gradient_tape_gradient (tape, &loss, 1, sources, 4, NULL, 0, error);
  if (grads == NULL)
    return NULL;
  for (guint i = 0; i < 4; i++)
    {
      g_autoptr(EpTensor) scaled = ep_tensor_mul_scalar (g_ptr_array_index (grads, i), 0.01, error);

      if (scaled == NULL || !ep_variable_assign_sub (mlp->v[i], scaled, error))
        return NULL;
    }

  return ep_test_one (g_steal_pointer (&loss));
}

static void
assert_same_variables (Mlp *a,
                       Mlp *b)
{
  for (guint i = 0; i < 4; i++)
    {
      g_autoptr(EpTensor) va = ep_variable_read (a->v[i]);
      g_autoptr(EpTensor) vb = ep_variable_read (b->v[i]);

      assert_identical (va, vb);
    }
}

/* Training steps: the staged one gives the eager one's losses and
 * variables bit for bit, and in steady state allocates its loss only:
 * the variables' new values are written in the frame's buffers, which
 * trade places with their old ones (graph/executor.c,
 * commit_variable()). */
static void
async_done (GObject      *source,
            GAsyncResult *result,
            gpointer      user_data)
{
  *(GAsyncResult **) user_data = g_object_ref (result);
}

/* ep_function_call_async(), run to its end on a main context of its own */
static GPtrArray *
call_async (EpFunction *fn,
            EpTensor   *x)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GMainContext) context = g_main_context_new ();
  g_autoptr(GAsyncResult) result = NULL;
  GPtrArray *outputs;

  g_main_context_push_thread_default (context);
  ep_function_call_async (fn, &x, 1, NULL, async_done, &result);
  while (result == NULL)
    g_main_context_iteration (context, TRUE);
  g_main_context_pop_thread_default (context);

  outputs = ep_function_call_finish (fn, result, &error);
  g_assert_no_error (error);
  return outputs;
}

/* MLP steps give the eager steps' values, and in steady state allocate
 * their loss only; @async: by call_async after two plain calls (the
 * worker writes the new values in its frame's buffers, the caller's
 * thread sets them, and the old buffers go back to the frame). The
 * count is every thread's. */
static void
check_mlp_steps (gboolean async)
{
  Mlp staged = { 0 }, eager = { 0 };
  g_autoptr(EpFunction) fn = NULL;
  g_autoptr(EpTensor) x = ep_test_random (EP_SHAPE (16, 4), EP_DTYPE_FLOAT32, 20);

  mlp_init (&staged, 4, 8, 16);
  mlp_init (&eager, 4, 8, 16);
  fn = ep_function_new (mlp_step, &staged, NULL);

  for (guint k = 0; k < 8; k++)
    {
      g_autoptr(GPtrArray) eager_loss = mlp_step (&x, 1, &eager, NULL);
      gsize before = ep_device_count_allocations ();
      g_autoptr(GPtrArray) staged_loss = async && k >= 2 ? call_async (fn, x) : call (fn, x);
      gsize made = ep_device_count_allocations () - before;

      assert_identical (g_ptr_array_index (staged_loss, 0), g_ptr_array_index (eager_loss, 0));
      assert_same_variables (&staged, &eager);
      if (k >= (async ? 4u : 3u))
        g_assert_cmpuint (made, ==, 1);
    }

  mlp_clear (&staged);
  mlp_clear (&eager);
}

static void
test_mlp_step (void)
{
  check_mlp_steps (FALSE);
}

/* A tensor read from a variable before a step keeps its value: the
 * variable's old storage is held by it, so it is not reused. */
static void
test_variable_read_before_step (void)
{
  Mlp staged = { 0 }, eager = { 0 };
  g_autoptr(EpFunction) fn = NULL;
  g_autoptr(EpTensor) x = ep_test_random (EP_SHAPE (16, 4), EP_DTYPE_FLOAT32, 20);

  mlp_init (&staged, 4, 8, 16);
  mlp_init (&eager, 4, 8, 16);
  fn = ep_function_new (mlp_step, &staged, NULL);

  for (guint k = 0; k < 6; k++)
    {
      EpTensor *held[4];
      GBytes *held_bytes[4];
      g_autoptr(GPtrArray) eager_loss = NULL, staged_loss = NULL;

      for (guint i = 0; i < 4; i++)
        {
          held[i] = ep_variable_read (staged.v[i]);
          held_bytes[i] = bytes_of (held[i]);
        }
      for (guint j = 0; j < 3; j++)
        {
          g_clear_pointer (&eager_loss, g_ptr_array_unref);
          g_clear_pointer (&staged_loss, g_ptr_array_unref);
          eager_loss = mlp_step (&x, 1, &eager, NULL);
          staged_loss = call (fn, x);
        }
      assert_identical (g_ptr_array_index (staged_loss, 0), g_ptr_array_index (eager_loss, 0));
      assert_same_variables (&staged, &eager);
      for (guint i = 0; i < 4; i++)
        {
          g_autoptr(GBytes) now = bytes_of (held[i]);

          g_assert_true (g_bytes_equal (now, held_bytes[i]));
          g_object_unref (held[i]);
          g_bytes_unref (held_bytes[i]);
        }
    }

  mlp_clear (&staged);
  mlp_clear (&eager);
}

/* Async steps (the worker writes the new values in its frame's
 * buffers, the caller's thread sets them) mixed with plain ones give the
 * eager steps' values, and a value read before keeps its own. */
static void
test_mlp_step_async (void)
{
  Mlp staged = { 0 }, eager = { 0 };
  g_autoptr(EpFunction) fn = NULL;
  g_autoptr(EpTensor) x = ep_test_random (EP_SHAPE (16, 4), EP_DTYPE_FLOAT32, 20);

  mlp_init (&staged, 4, 8, 16);
  mlp_init (&eager, 4, 8, 16);
  fn = ep_function_new (mlp_step, &staged, NULL);

  for (guint k = 0; k < 9; k++)
    {
      g_autoptr(GPtrArray) eager_loss = mlp_step (&x, 1, &eager, NULL);
      g_autoptr(EpTensor) held = ep_variable_read (staged.v[0]);
      g_autoptr(GBytes) held_bytes = bytes_of (held);
      g_autoptr(GPtrArray) staged_loss = k % 3 == 2 ? call (fn, x) : call_async (fn, x);
      g_autoptr(GBytes) now = bytes_of (held);

      assert_identical (g_ptr_array_index (staged_loss, 0), g_ptr_array_index (eager_loss, 0));
      assert_same_variables (&staged, &eager);
      g_assert_true (g_bytes_equal (now, held_bytes));
    }

  mlp_clear (&staged);
  mlp_clear (&eager);
}

static void
test_mlp_step_async_allocations (void)
{
  check_mlp_steps (TRUE);
}

/* sqrt (sum (x²)) */
static GPtrArray *
norm (EpTensor  **inputs,
      guint       n_inputs,
      gpointer    user_data,
      GError    **error)
{
  g_autoptr(EpTensor) sq = NULL, total = NULL;

  if ((sq = ep_tensor_square (inputs[0], error)) == NULL
      || (total = ep_tensor_sum (sq, NULL, 0, FALSE, error)) == NULL)
    return NULL;
  return ep_test_one (ep_tensor_sqrt (total, error));
}

/* 240 small ops: what a replay costs per op, beyond the kernels */
static GPtrArray *
small_ops (EpTensor  **inputs,
           guint       n_inputs,
           gpointer    user_data,
           GError    **error)
{
  g_autoptr(EpTensor) x = g_object_ref (inputs[0]);

  for (guint k = 0; k < 60; k++)
    {
      g_autoptr(EpTensor) a = NULL, b = NULL, c = NULL;

      if ((a = ep_tensor_mul_scalar (x, 1.01, error)) == NULL
          || (b = ep_tensor_add (a, x, error)) == NULL
          || (c = ep_tensor_tanh (b, error)) == NULL)
        return NULL;
      g_object_unref (x);
      if ((x = ep_tensor_sub (c, a, error)) == NULL)
        return NULL;
    }

  return ep_test_one (g_steal_pointer (&x));
}

/* Allocations, minor page faults and time per replay in steady state,
 * the best of @n_runs replays: printed, not checked (the machine is
 * shared). */
static void
report (const char *name,
        EpFunction *fn,
        EpTensor   *x,
        guint       n_runs)
{
  guint64 best_allocs = G_MAXUINT64;
  glong best_faults = G_MAXLONG;
  gint64 best_time = G_MAXINT64;

  for (guint k = 0; k < 3; k++)
    g_ptr_array_unref (call (fn, x));
  for (guint k = 0; k < n_runs; k++)
    {
      guint64 a0 = allocs ();
      glong f0 = minor_faults ();
      gint64 t0 = g_get_monotonic_time ();
      GPtrArray *out = call (fn, x);
      gint64 t1 = g_get_monotonic_time ();

      best_faults = MIN (best_faults, minor_faults () - f0);
      best_allocs = MIN (best_allocs, allocs () - a0);
      best_time = MIN (best_time, t1 - t0);
      g_ptr_array_unref (out);
    }
  g_test_message ("%s: %" G_GUINT64_FORMAT " allocations, %ld minor faults, %" G_GINT64_FORMAT " us per replay (best of %u)",
                  name, best_allocs, best_faults, best_time, n_runs);
  if (g_getenv ("EP_REPLAY_REPORT") != NULL)
    g_printerr ("%s: %" G_GUINT64_FORMAT " allocations, %ld minor faults, %" G_GINT64_FORMAT " us per replay (best of %u)\n",
                name, best_allocs, best_faults, best_time, n_runs);
}

static void
test_report (void)
{
  Mlp mlp = { 0 };
  g_autoptr(EpFunction) step = NULL;
  g_autoptr(EpFunction) norm_fn = ep_function_new (norm, NULL, NULL);
  g_autoptr(EpFunction) small = ep_function_new (small_ops, NULL, NULL);
  g_autoptr(EpTensor) chains = ep_test_random (EP_SHAPE (200, 2), EP_DTYPE_FLOAT32, 30);
  g_autoptr(EpTensor) x = ep_test_random (EP_SHAPE (64, 32), EP_DTYPE_FLOAT32, 20);
  g_autoptr(EpTensor) big = NULL;
  g_autoptr(GError) error = NULL;

  mlp_init (&mlp, 32, 64, 64);
  step = ep_function_new (mlp_step, &mlp, NULL);
  report ("mlp step 64x32-64-2", step, x, 50);

  big = ep_full (EP_SHAPE (4 << 20), 0.5, EP_DTYPE_FLOAT32, &error);
  g_assert_no_error (error);
  report ("sqrt (sum (square (x))) 4M floats", norm_fn, big, 30);
  report ("240 small ops on 200x2 floats", small, chains, 200);
  mlp_clear (&mlp);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/replay-memory/in-place", test_in_place);
  g_test_add_func ("/replay-memory/in-place-keeps-live-values", test_in_place_keeps_live_values);
  g_test_add_func ("/replay-memory/fused-in-place", test_fused_in_place);
  g_test_add_func ("/replay-memory/results-not-clobbered", test_results_not_clobbered);
  g_test_add_func ("/replay-memory/relaxed-batches", test_relaxed_batches);
  g_test_add_func ("/replay-memory/mlp-step", test_mlp_step);
  g_test_add_func ("/replay-memory/variable-read-before-step", test_variable_read_before_step);
  g_test_add_func ("/replay-memory/mlp-step-async", test_mlp_step_async);
  g_test_add_func ("/replay-memory/mlp-step-async-allocations", test_mlp_step_async_allocations);
  g_test_add_func ("/replay-memory/report", test_report);

  return g_test_run ();
}
