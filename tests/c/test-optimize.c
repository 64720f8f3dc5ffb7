/* test-optimize.c: the pass runner (graph/passes/optimize.c)
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "ep-test-util.h"

#include "ep-function-private.h"
#include "ep-passes-private.h"

static void
set_passes (const char *value)
{
  if (value != NULL)
    g_setenv ("EP_GRAPH_PASSES", value, TRUE);
  else
    g_unsetenv ("EP_GRAPH_PASSES");
}

/* EP_GRAPH_PASSES: unset or "all" runs all, "none" none, a list those,
 * "-name" all but those */
static void
test_selection (void)
{
  set_passes (NULL);
  g_assert_true (ep_graph_pass_is_enabled ("prune"));
  set_passes ("all");
  g_assert_true (ep_graph_pass_is_enabled ("prune"));
  set_passes ("none");
  g_assert_false (ep_graph_pass_is_enabled ("prune"));
  set_passes ("prune");
  g_assert_true (ep_graph_pass_is_enabled ("prune"));
  set_passes ("-prune");
  g_assert_false (ep_graph_pass_is_enabled ("prune"));
  set_passes (" prune , -prune");
  g_assert_false (ep_graph_pass_is_enabled ("prune"));
  set_passes (NULL);
}

/* Every pass of the table has a name and a function, and names are
 * unique. */
static void
test_table (void)
{
  guint n;
  const EpGraphPass *passes = ep_graph_list_passes (&n);

  g_assert_cmpuint (n, >, 0);
  for (guint p = 0; p < n; p++)
    {
      g_assert_nonnull (passes[p].run);
      for (guint q = 0; q < p; q++)
        g_assert_cmpstr (passes[p].name, !=, passes[q].name);
    }
}

/* y = x * 2, and a dead x + 1 that only pruning removes */
static GPtrArray *
with_dead_node (EpTensor  **inputs,
                guint       n_inputs,
                gpointer    user_data,
                GError    **error)
{
  g_autoptr(EpTensor) dead = ep_tensor_add_scalar (inputs[0], 1, error);
  GPtrArray *result = g_ptr_array_new_with_free_func (g_object_unref);

  g_ptr_array_add (result, ep_tensor_mul_scalar (inputs[0], 2, error));
  return result;
}

/* A plain replay runs the plan; the function keeps the traced graph for
 * tapes and files. With "none", the plan is the traced graph. */
static void
test_plain_replays_run_the_plan (void)
{
  const char *settings[] = { NULL, "none" };

  for (guint s = 0; s < G_N_ELEMENTS (settings); s++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(EpFunction) fn = ep_function_new (with_dead_node, NULL, NULL);
      g_autoptr(EpTensor) x = ep_test_new (EP_DTYPE_FLOAT32, EP_SHAPE (2), EP_VALUES (1, 2));
      g_autoptr(GPtrArray) traced = NULL, replayed = NULL;
      g_autoptr(EpGraph) graph = NULL, plan = NULL;

      set_passes (settings[s]);
      traced = ep_function_call (fn, &x, 1, &error);
      g_assert_no_error (error);
      g_assert_null (ep_function_lookup_plan (fn, &x, 1));     /* made on first replay */
      replayed = ep_function_call (fn, &x, 1, &error);
      g_assert_no_error (error);
      ep_assert_values (g_ptr_array_index (replayed, 0), EP_DTYPE_FLOAT32, EP_SHAPE (2), EP_VALUES (2, 4));

      graph = ep_function_lookup_graph (fn, &x, 1);
      plan = ep_function_lookup_plan (fn, &x, 1);
      g_assert_nonnull (plan);
      g_assert_cmpuint (ep_graph_get_n_nodes (graph), ==, 2);
      g_assert_cmpuint (ep_graph_get_n_nodes (plan), ==, settings[s] == NULL ? 1 : 2);
    }
  set_passes (NULL);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/optimize/selection", test_selection);
  g_test_add_func ("/optimize/table", test_table);
  g_test_add_func ("/optimize/plain-replays-run-the-plan", test_plain_replays_run_the_plan);

  return g_test_run ();
}
