/* staged.c: a staged function from C, traced and replayed in C.
 *
 * The norm of each row of x, times a variable: one graph for any number
 * of rows (a relaxed signature: the second number of rows traces again,
 * to check that the function computes the same whatever the rows), reading
 * the variable's current value at every call (captured by reference).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include <eager-glib/eager-glib.h>

static GPtrArray *
scaled_norms (EpTensor  **inputs,
              guint       n_inputs,
              gpointer    user_data,
              GError    **error)
{
  EpVariable *scale = user_data;
  const gint axis = 1;
  g_autoptr(EpTensor) squares = NULL, sums = NULL, norms = NULL, factor = NULL;
  GPtrArray *results;
  EpTensor *scaled;

  if ((squares = ep_tensor_square (inputs[0], error)) == NULL
      || (sums = ep_tensor_sum (squares, &axis, 1, FALSE, error)) == NULL
      || (norms = ep_tensor_sqrt (sums, error)) == NULL)
    return NULL;
  factor = ep_variable_read (scale);
  if ((scaled = ep_tensor_mul (norms, factor, error)) == NULL)
    return NULL;

  results = g_ptr_array_new_with_free_func (g_object_unref);
  g_ptr_array_add (results, scaled);
  return results;
}

static gboolean
print_call (EpFunction     *fn,
            const double   *values,
            gint64          rows,
            GError        **error)
{
  const gint64 shape[] = { rows, 3 };
  g_autoptr(EpTensor) x = ep_tensor_new_from_doubles (values, rows * 3, shape, 2, EP_DTYPE_FLOAT32, error);
  g_autoptr(GPtrArray) results = NULL;
  g_autofree char *text = NULL;

  if (x == NULL || (results = ep_function_call (fn, &x, 1, error)) == NULL
      || (text = ep_tensor_to_string (g_ptr_array_index (results, 0), error)) == NULL)
    return FALSE;
  g_print ("%s\n", text);
  return TRUE;
}

int
main (void)
{
  g_autoptr(GError) error = NULL;
  const gint64 any_rows[] = { -1, 3 };
  const double two_rows[] = { 3, 4, 0, 0, 0, 5 };
  const double three_rows[] = { 1, 2, 2, 2, 3, 6, 0, 0, 0 };
  const double one_row[] = { 0, 3, 4 };
  g_autoptr(EpTensor) one = NULL, two = NULL;
  g_autoptr(EpVariable) scale = NULL;
  g_autoptr(EpTensorSpec) spec = NULL;
  g_autoptr(EpFunction) fn = NULL;

  if ((one = ep_tensor_new_scalar (1, EP_DTYPE_FLOAT32, &error)) == NULL
      || (two = ep_tensor_new_scalar (2, EP_DTYPE_FLOAT32, &error)) == NULL
      || (spec = ep_tensor_spec_new (any_rows, 2, EP_DTYPE_FLOAT32, &error)) == NULL)
    goto failed;
  scale = ep_variable_new (one, "scale");
  fn = ep_function_new_with_signature (scaled_norms, scale, NULL, &spec, 1);

  if (!print_call (fn, two_rows, 2, &error)                 /* traced: [5. 5.] */
      || !print_call (fn, three_rows, 3, &error)            /* traced again: [3. 7. 0.] */
      || !ep_variable_assign (scale, two, &error)
      || !print_call (fn, one_row, 1, &error)               /* replayed: [10.] */
      || !print_call (fn, two_rows, 2, &error))             /* replayed: [10. 10.] */
    goto failed;
  g_print ("traced %u times\n", ep_function_get_trace_count (fn));
  return ep_function_get_trace_count (fn) == 2 ? 0 : 1;

failed:
  g_printerr ("staged: %s\n", error->message);
  return 1;
}
