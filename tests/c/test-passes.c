/* test-passes.c: the optimizer's passes (graph/passes/), each on small
 * traced graphs: what it must change, what it must leave alone, and that
 * the graph it makes replays to the same bits as the traced one
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "ep-test-util.h"

#include <math.h>
#include <string.h>

#include "ep-device-private.h"
#include "ep-executor-private.h"
#include "ep-function-private.h"
#include "ep-fuse-private.h"
#include "ep-passes-private.h"

/* The graph @func traced on @inputs */
static EpGraph *
trace (EpTensorsFunc  func,
       gpointer       data,
       EpTensor     **inputs,
       guint          n_inputs)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpFunction) fn = ep_function_new (func, data, NULL);
  g_autoptr(GPtrArray) results = ep_function_call (fn, inputs, n_inputs, &error);
  EpGraph *graph;

  g_assert_no_error (error);
  graph = ep_function_lookup_graph (fn, inputs, n_inputs);
  g_assert_nonnull (graph);
  return graph;
}

/* @pass, then prune (what the pass left dead goes) */
static EpGraph *
run_pass (EpGraphPassFunc  pass,
          EpGraph         *graph)
{
  g_autoptr(EpGraph) passed = pass (graph);

  g_assert_cmpuint (passed->n_inputs, ==, graph->n_inputs);
  g_assert_cmpuint (passed->n_outputs, ==, graph->n_outputs);
  g_assert_cmpuint (passed->variables->len, ==, graph->variables->len);
  for (guint v = 0; v < graph->variables->len; v++)
    g_assert_true (g_ptr_array_index (passed->variables, v) == g_ptr_array_index (graph->variables, v));
  g_assert_cmpint (passed->fixed_shapes, ==, graph->fixed_shapes);
  g_assert_cmpint (passed->has_host_calls, ==, graph->has_host_calls);

  return ep_graph_prune (passed);
}

static guint
count_op (EpGraph    *graph,
          const char *name)
{
  guint n = 0;

  for (guint k = 0; k < ep_graph_get_n_nodes (graph); k++)
    {
      EpGraphNode *node = ep_graph_get_node (graph, k);

      n += node->kind == EP_NODE_OP && strcmp (node->op->name, name) == 0;
      /* and the steps of fused groups (graph/passes/fuse.c) */
      for (guint s = 0; node->kind == EP_NODE_FUSED && s < node->fused->n_steps; s++)
        n += strcmp (node->fused->steps[s].op->name, name) == 0;
    }
  return n;
}

/* Output @o of a replay of @graph on @inputs, as bytes */
static GBytes *
replay_bytes (EpGraph   *graph,
              EpTensor **inputs,
              guint      o)
{
  g_autoptr(GError) error = NULL;
  EpFrame *frame = ep_frame_new (graph);
  g_autofree EpTensor **outputs = g_new0 (EpTensor *, MAX (graph->n_outputs, 1));
  GBytes *bytes;

  g_assert_true (ep_graph_replay (graph, frame, inputs, NULL, outputs, NULL, &error));
  g_assert_no_error (error);
  ep_frame_free (frame);
  bytes = ep_tensor_to_bytes (outputs[o], &error);
  g_assert_no_error (error);
  for (guint k = 0; k < graph->n_outputs; k++)
    g_object_unref (outputs[k]);
  return bytes;
}

/* Every output of the two graphs, bit for bit, on @inputs */
static void
assert_same_bits (EpGraph   *a,
                  EpGraph   *b,
                  EpTensor **inputs)
{
  g_assert_cmpuint (a->n_outputs, ==, b->n_outputs);
  for (guint o = 0; o < a->n_outputs; o++)
    {
      g_autoptr(GBytes) x = replay_bytes (a, inputs, o);
      g_autoptr(GBytes) y = replay_bytes (b, inputs, o);

      g_assert_true (g_bytes_equal (x, y));
    }
}

/* Values where IEEE arithmetic is easy to get wrong */
static EpTensor *
special_values (void)
{
  return ep_test_new (EP_DTYPE_FLOAT32, EP_SHAPE (2, 3),
                      EP_VALUES (-0.0, 0.0, NAN, INFINITY, -INFINITY, 1e-42));
}

/* simplify */

/* transpose (transpose (x)): x; reshape (reshape (x)): one reshape */
static GPtrArray *
view_chains (EpTensor  **inputs,
             guint       n_inputs,
             gpointer    user_data,
             GError    **error)
{
  g_autoptr(EpTensor) t = ep_tensor_transpose (inputs[0], (gint[]) { 1, 0 }, 2, error);
  g_autoptr(EpTensor) tt = ep_tensor_transpose (t, NULL, 0, error);
  g_autoptr(EpTensor) r = ep_tensor_reshape (tt, EP_DIMS (3, 2), 2, error);
  g_autoptr(EpTensor) rr = ep_tensor_reshape (r, EP_DIMS (6), 1, error);

  return ep_test_one (ep_tensor_exp (rr, error));
}

static void
test_simplify_views (void)
{
  g_autoptr(EpTensor) x = special_values ();
  g_autoptr(EpGraph) graph = trace (view_chains, NULL, &x, 1);
  g_autoptr(EpGraph) simple = run_pass (ep_graph_simplify, graph);

  g_assert_cmpuint (ep_graph_get_n_nodes (graph), ==, 5);
  g_assert_cmpuint (count_op (simple, "transpose"), ==, 0);
  g_assert_cmpuint (count_op (simple, "reshape"), ==, 1);
  g_assert_cmpuint (ep_graph_get_n_nodes (simple), ==, 2);
  assert_same_bits (graph, simple, &x);
}

/* Two transposes that do not cancel become one */
static GPtrArray *
transposes_3d (EpTensor  **inputs,
               guint       n_inputs,
               gpointer    user_data,
               GError    **error)
{
  g_autoptr(EpTensor) t = ep_tensor_transpose (inputs[0], (gint[]) { 1, 2, 0 }, 3, error);
  g_autoptr(EpTensor) tt = ep_tensor_transpose (t, (gint[]) { 0, -1, 1 }, 3, error);

  return ep_test_one (ep_tensor_contiguous (tt, error));
}

static void
test_simplify_transpose_compose (void)
{
  g_autoptr(EpTensor) x = ep_test_iota (EP_DIMS (2, 3, 4), 3, EP_DTYPE_FLOAT32);
  g_autoptr(EpGraph) graph = trace (transposes_3d, NULL, &x, 1);
  g_autoptr(EpGraph) simple = run_pass (ep_graph_simplify, graph);

  g_assert_cmpuint (count_op (graph, "transpose"), ==, 2);
  g_assert_cmpuint (count_op (simple, "transpose"), ==, 1);
  assert_same_bits (graph, simple, &x);
}

/* x * 1, 1 * x, x / 1, x - 0, x + (-0), astype to x's dtype,
 * stop_gradient: x. A node output stands for x, so that x is never a
 * weak literal. */
static GPtrArray *
identities (EpTensor  **inputs,
            guint       n_inputs,
            gpointer    user_data,
            GError    **error)
{
  g_autoptr(EpTensor) x = ep_tensor_neg (inputs[0], error);
  g_autoptr(EpTensor) unit = ep_test_new (EP_DTYPE_FLOAT32, EP_SHAPE (1, 1), EP_VALUES (1));
  g_autoptr(EpTensor) minus_zero = ep_test_new (EP_DTYPE_FLOAT32, EP_SCALAR, EP_VALUES (-0.0));
  g_autoptr(EpTensor) a = ep_tensor_mul_scalar (x, 1, error);
  g_autoptr(EpTensor) b = ep_tensor_mul (unit, a, error);
  g_autoptr(EpTensor) c = ep_tensor_div (b, unit, error);
  g_autoptr(EpTensor) d = ep_tensor_sub_scalar (c, 0, error);
  g_autoptr(EpTensor) e = ep_tensor_add (d, minus_zero, error);
  g_autoptr(EpTensor) f = ep_tensor_astype (e, EP_DTYPE_FLOAT32, error);

  return ep_test_one (ep_tensor_stop_gradient (f, error));
}

static void
test_simplify_identities (void)
{
  g_autoptr(EpTensor) x = special_values ();
  g_autoptr(EpGraph) graph = trace (identities, NULL, &x, 1);
  g_autoptr(EpGraph) simple = run_pass (ep_graph_simplify, graph);
  g_autofree char *text = ep_graph_to_string (simple);

  g_assert_cmpuint (ep_graph_get_n_nodes (graph), >=, 7);
  g_assert_cmpuint (count_op (graph, "stop_gradient"), ==, 1);
  g_assert_cmpstr (text, ==, "%0 = neg (in0) on cpu:0\nreturn (%0.0)\n");
  assert_same_bits (graph, simple, &x);
}

/* What is not exact stays: x + 0 on floats (-0 + 0 is +0), x - (-0),
 * ones that broadcast x to another shape or rank, 1.5 */
static GPtrArray *
not_identities (EpTensor  **inputs,
                guint       n_inputs,
                gpointer    user_data,
                GError    **error)
{
  g_autoptr(EpTensor) row = ep_test_new (EP_DTYPE_FLOAT32, EP_SHAPE (3), EP_VALUES (1, 1, 1));
  g_autoptr(EpTensor) deep = ep_test_new (EP_DTYPE_FLOAT32, EP_SHAPE (1, 1, 1), EP_VALUES (1));
  g_autoptr(EpTensor) minus_zero = ep_test_new (EP_DTYPE_FLOAT32, EP_SCALAR, EP_VALUES (-0.0));
  g_autoptr(EpTensor) a = ep_tensor_add_scalar (inputs[0], 0, error);
  g_autoptr(EpTensor) b = ep_tensor_sub (a, minus_zero, error);
  g_autoptr(EpTensor) c = ep_tensor_mul (b, row, error);
  g_autoptr(EpTensor) d = ep_tensor_mul (c, deep, error);

  return ep_test_one (ep_tensor_mul_scalar (d, 1.5, error));
}

static void
test_simplify_leaves_inexact (void)
{
  g_autoptr(EpTensor) x = special_values ();
  g_autoptr(EpGraph) graph = trace (not_identities, NULL, &x, 1);
  g_autoptr(EpGraph) simple = run_pass (ep_graph_simplify, graph);

  g_assert_cmpuint (ep_graph_get_n_nodes (graph), ==, 5);
  g_assert_cmpuint (ep_graph_get_n_nodes (simple), ==, 5);
  assert_same_bits (graph, simple, &x);
}

/* integers: x + 0 is x */
static GPtrArray *
int_plus_zero (EpTensor  **inputs,
               guint       n_inputs,
               gpointer    user_data,
               GError    **error)
{
  g_autoptr(EpTensor) x = ep_tensor_neg (inputs[0], error);
  g_autoptr(EpTensor) a = ep_tensor_add_scalar (x, 0, error);

  return ep_test_one (ep_tensor_sub_scalar (a, 0, error));
}

static void
test_simplify_integers (void)
{
  g_autoptr(EpTensor) x = ep_test_new (EP_DTYPE_INT32, EP_SHAPE (3), EP_VALUES (-4, 0, 7));
  g_autoptr(EpGraph) graph = trace (int_plus_zero, NULL, &x, 1);
  g_autoptr(EpGraph) simple = run_pass (ep_graph_simplify, graph);

  g_assert_cmpuint (ep_graph_get_n_nodes (graph), ==, 3);
  g_assert_cmpuint (ep_graph_get_n_nodes (simple), ==, 1);
  assert_same_bits (graph, simple, &x);
}

/* An input of rank 0 may be a weak literal: x * 1 of it stays a node
 * (the product is not weak); a graph output may become an input. */
static GPtrArray *
scalar_times_one (EpTensor  **inputs,
                  guint       n_inputs,
                  gpointer    user_data,
                  GError    **error)
{
  g_autoptr(EpTensor) t = ep_tensor_transpose (inputs[1], NULL, 0, error);
  g_autoptr(EpTensor) tt = ep_tensor_transpose (t, NULL, 0, error);
  GPtrArray *result = ep_test_one (ep_tensor_mul_scalar (inputs[0], 1, error));

  g_ptr_array_add (result, g_steal_pointer (&tt));
  return result;
}

static void
test_simplify_weak_and_outputs (void)
{
  g_autoptr(EpTensor) s = ep_test_new (EP_DTYPE_FLOAT32, EP_SCALAR, EP_VALUES (2));
  g_autoptr(EpTensor) m = special_values ();
  EpTensor *inputs[2] = { s, m };
  g_autoptr(EpGraph) graph = trace (scalar_times_one, NULL, inputs, 2);
  g_autoptr(EpGraph) simple = run_pass (ep_graph_simplify, graph);
  g_autofree char *text = ep_graph_to_string (simple);

  g_assert_cmpstr (text, ==, "%0 = mul (in0, c0) on cpu:0\nreturn (%0.0, in1)\n");
  assert_same_bits (graph, simple, inputs);
}

/* cse */

/* exp (x) twice, and x * 2 twice with two literals of 2 */
static GPtrArray *
repeated (EpTensor  **inputs,
          guint       n_inputs,
          gpointer    user_data,
          GError    **error)
{
  g_autoptr(EpTensor) a = ep_tensor_exp (inputs[0], error);
  g_autoptr(EpTensor) b = ep_tensor_exp (inputs[0], error);
  g_autoptr(EpTensor) c = ep_tensor_mul_scalar (a, 2, error);
  g_autoptr(EpTensor) d = ep_tensor_mul_scalar (b, 2, error);

  return ep_test_one (ep_tensor_sub (c, d, error));
}

static void
test_cse_merges (void)
{
  g_autoptr(EpTensor) x = special_values ();
  g_autoptr(EpGraph) graph = trace (repeated, NULL, &x, 1);
  g_autoptr(EpGraph) merged = run_pass (ep_graph_cse, graph);
  g_autofree char *text = ep_graph_to_string (merged);

  g_assert_cmpuint (ep_graph_get_n_nodes (graph), ==, 5);
  g_assert_cmpuint (graph->constants->len, ==, 2);
  g_assert_cmpstr (text, ==,
                   "%0 = exp (in0) on cpu:0\n"
                   "%1 = mul (%0.0, c0) on cpu:0\n"
                   "%2 = sub (%1.0, %1.0) on cpu:0\n"
                   "return (%2.0)\n");
  g_assert_cmpuint (merged->constants->len, ==, 1);
  assert_same_bits (graph, merged, &x);
}

/* Two draws with the same arguments are two draws; two reads of a
 * variable with an assignment between read two values. */
static GPtrArray *
draws_and_reads (EpTensor  **inputs,
                 guint       n_inputs,
                 gpointer    user_data,
                 GError    **error)
{
  EpVariable *v = user_data;
  g_autoptr(EpTensor) u1 = ep_uniform (EP_DIMS (2, 3), 2, 0, 1, EP_DTYPE_FLOAT32, error);
  g_autoptr(EpTensor) u2 = ep_uniform (EP_DIMS (2, 3), 2, 0, 1, EP_DTYPE_FLOAT32, error);
  g_autoptr(EpTensor) r1 = ep_variable_read (v);
  g_autoptr(EpTensor) e1 = ep_tensor_exp (r1, error);
  g_autoptr(EpTensor) r2 = NULL;
  g_autoptr(EpTensor) e2 = NULL;
  g_autoptr(EpTensor) sum = NULL;
  g_autoptr(EpTensor) noise = NULL;

  if (!ep_variable_assign (v, e1, error))
    return NULL;
  r2 = ep_variable_read (v);
  e2 = ep_tensor_exp (r2, error);
  sum = ep_tensor_add (e1, e2, error);
  noise = ep_tensor_sub (u1, u2, error);

  return ep_test_one (ep_tensor_add (sum, noise, error));
}

static void
test_cse_leaves_effects (void)
{
  g_autoptr(EpTensor) x = special_values ();
  g_autoptr(EpTensor) zero = ep_test_new (EP_DTYPE_FLOAT32, EP_SHAPE (2, 3), EP_VALUES (0, 0, 0, 0, 0, 0));
  g_autoptr(EpVariable) v = ep_variable_new (zero, "v");
  g_autoptr(EpGraph) graph = trace (draws_and_reads, v, &x, 1);
  g_autoptr(EpGraph) merged = run_pass (ep_graph_cse, graph);
  g_autofree char *before = ep_graph_to_string (graph);
  g_autofree char *after = ep_graph_to_string (merged);

  g_assert_cmpuint (count_op (graph, "uniform"), ==, 2);
  g_assert_cmpstr (after, ==, before);
}

/* fold */

/* x + exp (c) * 2: the exp and the product are constants */
static GPtrArray *
constant_part (EpTensor  **inputs,
               guint       n_inputs,
               gpointer    user_data,
               GError    **error)
{
  g_autoptr(EpTensor) c = ep_test_new (EP_DTYPE_FLOAT32, EP_SHAPE (3), EP_VALUES (0.5, -1, 3));
  g_autoptr(EpTensor) e = ep_tensor_exp (c, error);
  g_autoptr(EpTensor) twice = ep_tensor_mul_scalar (e, 2, error);
  g_autoptr(EpTensor) t = ep_tensor_broadcast_to (twice, EP_DIMS (2, 3), 2, error);

  return ep_test_one (ep_tensor_add (inputs[0], t, error));
}

static void
test_fold_constants (void)
{
  g_autoptr(EpTensor) x = special_values ();
  g_autoptr(EpGraph) graph = trace (constant_part, NULL, &x, 1);
  g_autoptr(EpGraph) folded = run_pass (ep_graph_fold, graph);
  g_autofree char *text = ep_graph_to_string (folded);
  EpTensor *constant;

  g_assert_cmpuint (ep_graph_get_n_nodes (graph), ==, 4);
  g_assert_cmpstr (text, ==, "%0 = add (in0, c0) on cpu:0\nreturn (%0.0)\n");
  constant = g_ptr_array_index (folded->constants, 0);
  g_assert_false (constant->weak);
  ep_assert_shape (constant, EP_DIMS (2, 3), 2);
  assert_same_bits (graph, folded, &x);
}

/* x * broadcast_to (c, x's shape): c is made contiguous when small,
 * kept a view of c when large */
static GPtrArray *
broadcast_constant (EpTensor  **inputs,
                    guint       n_inputs,
                    gpointer    user_data,
                    GError    **error)
{
  g_autoptr(EpTensor) c = ep_test_new (EP_DTYPE_FLOAT32, EP_SHAPE (3), EP_VALUES (0.5, -1, 3));
  g_autoptr(EpTensor) t = ep_tensor_broadcast_to (c, inputs[0]->layout.shape, inputs[0]->layout.ndim, error);

  return ep_test_one (ep_tensor_mul (inputs[0], t, error));
}

/* A small folded view that is not contiguous becomes a contiguous
 * constant (the mul then runs in one loop, and can fuse); a large one
 * stays a view, costing no memory */
static void
test_fold_small_views_contiguous (void)
{
  g_autoptr(EpTensor) small = ep_test_iota (EP_DIMS (200, 3), 2, EP_DTYPE_FLOAT32);
  g_autoptr(EpTensor) large = ep_test_iota (EP_DIMS (10000, 3), 2, EP_DTYPE_FLOAT32);
  g_autoptr(EpGraph) small_graph = trace (broadcast_constant, NULL, &small, 1);
  g_autoptr(EpGraph) large_graph = trace (broadcast_constant, NULL, &large, 1);
  g_autoptr(EpGraph) small_folded = run_pass (ep_graph_fold, small_graph);
  g_autoptr(EpGraph) large_folded = run_pass (ep_graph_fold, large_graph);
  EpTensor *small_constant = g_ptr_array_index (small_folded->constants, small_folded->constants->len - 1);
  EpTensor *large_constant = g_ptr_array_index (large_folded->constants, large_folded->constants->len - 1);

  ep_assert_shape (small_constant, EP_DIMS (200, 3), 2);
  g_assert_true (ep_layout_is_contiguous (&small_constant->layout));
  ep_assert_shape (large_constant, EP_DIMS (10000, 3), 2);
  g_assert_false (ep_layout_is_contiguous (&large_constant->layout));
  g_assert_cmpint (large_constant->layout.strides[0], ==, 0);
  assert_same_bits (small_graph, small_folded, &small);
  assert_same_bits (large_graph, large_folded, &large);
}

/* Random draws, variable reads, host calls and what depends on them
 * stay, constant inputs or not; so does a large fill. */
static GPtrArray *
host_double (EpTensor  **inputs,
             guint       n_inputs,
             gpointer    user_data,
             GError    **error)
{
  return ep_test_one (ep_tensor_mul_scalar (inputs[0], 2, error));
}

static GPtrArray *
effects (EpTensor  **inputs,
         guint       n_inputs,
         gpointer    user_data,
         GError    **error)
{
  EpVariable *v = user_data;
  g_autoptr(EpTensor) c = ep_test_new (EP_DTYPE_FLOAT32, EP_SHAPE (2, 3), EP_VALUES (1, 2, 3, 4, 5, 6));
  g_autoptr(EpTensor) u = ep_uniform (EP_DIMS (2, 3), 2, 0, 1, EP_DTYPE_FLOAT32, error);
  g_autoptr(EpTensor) r = ep_variable_read (v);
  g_autoptr(EpTensor) er = ep_tensor_exp (r, error);
  g_autoptr(EpTensor) eu = ep_tensor_exp (u, error);
  g_autoptr(GPtrArray) host = ep_host_call (host_double, NULL, NULL, NULL, NULL, NULL, &c, 1, error);
  g_autoptr(EpTensor) eh = ep_tensor_exp (g_ptr_array_index (host, 0), error);
  g_autoptr(EpTensor) big = ep_full (EP_DIMS (256, 256), 2, 1, EP_DTYPE_FLOAT32, error);
  g_autoptr(EpTensor) big_sum = ep_tensor_sum (big, NULL, 0, FALSE, error);
  g_autoptr(EpTensor) a = ep_tensor_add (er, eu, error);
  g_autoptr(EpTensor) b = ep_tensor_add (a, eh, error);
  g_autoptr(EpTensor) d = ep_tensor_add (b, big_sum, error);

  return ep_test_one (ep_tensor_add (d, inputs[0], error));
}

static void
test_fold_leaves_effects (void)
{
  g_autoptr(EpTensor) x = special_values ();
  g_autoptr(EpTensor) zero = ep_test_new (EP_DTYPE_FLOAT32, EP_SHAPE (2, 3), EP_VALUES (0, 0, 0, 0, 0, 0));
  g_autoptr(EpVariable) v = ep_variable_new (zero, "v");
  g_autoptr(EpGraph) graph = trace (effects, v, &x, 1);
  g_autoptr(EpGraph) folded = run_pass (ep_graph_fold, graph);
  g_autofree char *before = ep_graph_to_string (graph);
  g_autofree char *after = ep_graph_to_string (folded);

  g_assert_true (graph->has_host_calls);
  g_assert_cmpuint (count_op (graph, "full"), ==, 1);
  g_assert_cmpstr (after, ==, before);
}

/* A node that fails when run stays, so that the replay fails as it
 * would have: a graph (as a file could hold it) that takes index 5 of
 * three elements */
static void
test_fold_leaves_failures (void)
{
  g_autoptr(EpGraph) graph = ep_graph_new ();
  g_autoptr(EpTensor) values = ep_test_new (EP_DTYPE_FLOAT32, EP_SHAPE (3), EP_VALUES (1, 2, 3));
  g_autoptr(EpTensor) index = ep_test_new (EP_DTYPE_INT64, EP_SHAPE (1), EP_VALUES (5));
  g_autoptr(EpTensor) ok_index = ep_test_new (EP_DTYPE_INT64, EP_SHAPE (1), EP_VALUES (2));
  g_autoptr(EpGraph) folded = NULL;
  EpGraphNode *node;

  graph->inputs = g_new (EpLayout, 1);
  graph->input_devices = g_new (EpDevice *, 1);
  ep_graph_add_constant (graph, values);
  ep_graph_add_constant (graph, index);
  ep_graph_add_constant (graph, ok_index);
  for (guint k = 0; k < 2; k++)
    {
      node = ep_graph_add_node (graph, EP_NODE_OP, 2);
      node->op = &ep_op_take;
      ep_op_attrs_init_defaults (&node->attrs, &ep_op_take);
      node->device = ep_device_get_cpu ();
      node->inputs[0] = (EpValueRef) { EP_VALUE_CONSTANT, 0, 0 };
      node->inputs[1] = (EpValueRef) { EP_VALUE_CONSTANT, 1 + k, 0 };
      node->n_outputs = 1;
      node->outputs[0] = index->layout;
      node->outputs[0].dtype = EP_DTYPE_FLOAT32;
    }
  graph->n_outputs = 2;
  graph->outputs = g_new (EpValueRef, 2);
  graph->outputs[0] = (EpValueRef) { EP_VALUE_NODE, 0, 0 };
  graph->outputs[1] = (EpValueRef) { EP_VALUE_NODE, 1, 0 };

  folded = ep_graph_fold (graph);
  g_assert_cmpuint (ep_graph_get_n_nodes (folded), ==, 1);
  g_assert_cmpint (folded->outputs[0].kind, ==, EP_VALUE_NODE);
  g_assert_cmpint (folded->outputs[1].kind, ==, EP_VALUE_CONSTANT);
}

/* the optimizer */

/* Every pass together, on a graph that gives each something to do,
 * gives the bits of no pass; EP_GRAPH_PASSES picks them. */
static GPtrArray *
everything (EpTensor  **inputs,
            guint       n_inputs,
            gpointer    user_data,
            GError    **error)
{
  g_autoptr(GPtrArray) a = view_chains (inputs, n_inputs, NULL, error);
  g_autoptr(GPtrArray) b = repeated (inputs, n_inputs, NULL, error);
  g_autoptr(GPtrArray) c = constant_part (inputs, n_inputs, NULL, error);
  g_autoptr(EpTensor) flat = ep_tensor_reshape (g_ptr_array_index (b, 0), EP_DIMS (6), 1, error);
  g_autoptr(EpTensor) flat2 = ep_tensor_reshape (g_ptr_array_index (c, 0), EP_DIMS (-1), 1, error);
  g_autoptr(EpTensor) sum = ep_tensor_add (g_ptr_array_index (a, 0), flat, error);

  return ep_test_one (ep_tensor_add (sum, flat2, error));
}

static void
test_optimize_all_and_none (void)
{
  g_autoptr(EpTensor) x = special_values ();
  g_autoptr(EpGraph) graph = trace (everything, NULL, &x, 1);
  g_autoptr(EpGraph) all = NULL;
  g_autoptr(EpGraph) none = NULL;
  g_autoptr(EpGraph) only_cse = NULL;
  const char *saved = g_getenv ("EP_GRAPH_PASSES");
  g_autofree char *restore = g_strdup (saved);

  g_setenv ("EP_GRAPH_PASSES", "all", TRUE);
  all = ep_graph_optimize (graph);
  g_setenv ("EP_GRAPH_PASSES", "none", TRUE);
  none = ep_graph_optimize (graph);
  g_setenv ("EP_GRAPH_PASSES", "cse", TRUE);
  only_cse = ep_graph_optimize (graph);
  if (restore != NULL)
    g_setenv ("EP_GRAPH_PASSES", restore, TRUE);
  else
    g_unsetenv ("EP_GRAPH_PASSES");

  g_assert_true (none == graph);
  g_assert_cmpuint (ep_graph_get_n_nodes (all), <, ep_graph_get_n_nodes (only_cse));
  g_assert_cmpuint (ep_graph_get_n_nodes (only_cse), <, ep_graph_get_n_nodes (graph));
  g_assert_cmpuint (count_op (all, "transpose"), ==, 0);
  g_assert_cmpuint (count_op (all, "exp"), ==, 2);
  assert_same_bits (graph, all, &x);
  assert_same_bits (graph, only_cse, &x);
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/passes/simplify/views", test_simplify_views);
  g_test_add_func ("/passes/simplify/transpose-compose", test_simplify_transpose_compose);
  g_test_add_func ("/passes/simplify/identities", test_simplify_identities);
  g_test_add_func ("/passes/simplify/leaves-inexact", test_simplify_leaves_inexact);
  g_test_add_func ("/passes/simplify/integers", test_simplify_integers);
  g_test_add_func ("/passes/simplify/weak-and-outputs", test_simplify_weak_and_outputs);
  g_test_add_func ("/passes/cse/merges", test_cse_merges);
  g_test_add_func ("/passes/cse/leaves-effects", test_cse_leaves_effects);
  g_test_add_func ("/passes/fold/constants", test_fold_constants);
  g_test_add_func ("/passes/fold/small-views-contiguous", test_fold_small_views_contiguous);
  g_test_add_func ("/passes/fold/leaves-effects", test_fold_leaves_effects);
  g_test_add_func ("/passes/fold/leaves-failures", test_fold_leaves_failures);
  g_test_add_func ("/passes/optimize/all-and-none", test_optimize_all_and_none);

  return g_test_run ();
}
