/* test-function-file.c: staged functions saved to graph files and loaded
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Round trips (a function loaded from a file computes what the traced
 * one does, without its code), then a corrupted-file suite: every
 * damage is an EP_ERROR_FORMAT (or EP_ERROR_IO) naming the place, never
 * a crash.
 */

#include "ep-test-util.h"

#include "ep-function-private.h"
#include "ep-graph-file-private.h"

/* The functions staged here count their calls: a loaded function must
 * not call them. */
static guint calls;

typedef struct
{
  char  *dir;
  GFile *file;       /* dir/graph.json */
} Fixture;

static void
fixture_set_up (Fixture       *f,
                gconstpointer  data)
{
  g_autofree char *path = NULL;

  f->dir = ep_test_make_dir ();
  path = g_build_filename (f->dir, "graph.json", NULL);
  f->file = g_file_new_for_path (path);
}

static void
fixture_tear_down (Fixture       *f,
                   gconstpointer  data)
{
  g_object_unref (f->file);
  ep_test_remove_dir (f->dir);
  g_free (f->dir);
}

static GFile *
file_in (Fixture    *f,
         const char *name)
{
  g_autofree char *path = g_build_filename (f->dir, name, NULL);

  return g_file_new_for_path (path);
}

static GPtrArray *
results (EpTensor *first,
         ...)
{
  GPtrArray *array = g_ptr_array_new_with_free_func (g_object_unref);
  va_list args;

  va_start (args, first);
  for (EpTensor *t = first; t != NULL; t = va_arg (args, EpTensor *))
    g_ptr_array_add (array, t);
  va_end (args);

  return array;
}

static EpTensorSpec *
spec (EpDType       dtype,
      const gint64 *shape,
      guint         ndim)
{
  g_autoptr(GError) error = NULL;
  EpTensorSpec *s = ep_tensor_spec_new (shape, ndim, dtype, &error);

  g_assert_no_error (error);
  return s;
}

static GPtrArray *
call (EpFunction *fn,
      EpTensor   *a,
      EpTensor   *b)
{
  g_autoptr(GError) error = NULL;
  EpTensor *inputs[2] = { a, b };
  GPtrArray *out = ep_function_call (fn, inputs, b != NULL ? 2 : 1, &error);

  g_assert_no_error (error);
  g_assert_nonnull (out);
  return out;
}

static EpFunction *
load (GFile *file)
{
  g_autoptr(GError) error = NULL;
  EpFunction *fn = ep_function_load (file, NULL, &error);

  g_assert_no_error (error);
  g_assert_nonnull (fn);
  return fn;
}

static void
save (EpFunction    *fn,
      EpTensorSpec **signature,
      guint          n,
      GFile         *file)
{
  g_autoptr(GError) error = NULL;

  g_assert_true (ep_function_save (fn, signature, n, file, NULL, &error));
  g_assert_no_error (error);
}

/* Same dtype, shape and bytes */
static void
assert_same_tensors (GPtrArray *a,
                     GPtrArray *b)
{
  g_assert_cmpuint (a->len, ==, b->len);
  for (guint i = 0; i < a->len; i++)
    {
      EpTensor *x = g_ptr_array_index (a, i), *y = g_ptr_array_index (b, i);
      g_autoptr(GBytes) bx = ep_tensor_to_bytes (x, NULL);
      g_autoptr(GBytes) by = ep_tensor_to_bytes (y, NULL);

      g_assert_cmpint (ep_tensor_get_dtype (x), ==, ep_tensor_get_dtype (y));
      ep_assert_shape (y, ep_tensor_get_shape (x, NULL), ep_tensor_get_ndim (x));
      g_assert_true (g_bytes_equal (bx, by));
    }
}

/* sqrt (sum (x * x) + y) + 0.5: ops, a constant and two inputs */
static GPtrArray *
norm_plus (EpTensor  **inputs,
           guint       n_inputs,
           gpointer    user_data,
           GError    **error)
{
  g_autoptr(EpTensor) squares = NULL, total = NULL, shifted = NULL, root = NULL;

  calls++;
  if ((squares = ep_tensor_mul (inputs[0], inputs[0], error)) == NULL
      || (total = ep_tensor_sum (squares, NULL, 0, FALSE, error)) == NULL
      || (shifted = ep_tensor_add (total, inputs[1], error)) == NULL
      || (root = ep_tensor_sqrt (shifted, error)) == NULL)
    return NULL;

  return results (ep_tensor_add_scalar (root, 0.5, error), NULL);
}

static void
test_round_trip (Fixture       *f,
                 gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpFunction) fn = ep_function_new (norm_plus, NULL, NULL);
  g_autoptr(EpFunction) loaded = NULL;
  g_autoptr(EpTensor) x = ep_test_new (EP_DTYPE_FLOAT32, EP_SHAPE (3), EP_VALUES (1, 2, 2));
  g_autoptr(EpTensor) y = ep_test_new (EP_DTYPE_FLOAT32, EP_SCALAR, EP_VALUES (7));
  g_autoptr(EpTensor) x2 = ep_test_new (EP_DTYPE_FLOAT32, EP_SHAPE (3), EP_VALUES (3, 0, 4));
  g_autoptr(EpTensorSpec) sx = spec (EP_DTYPE_FLOAT32, EP_SHAPE (3));
  g_autoptr(EpTensorSpec) sy = spec (EP_DTYPE_FLOAT32, EP_SCALAR);
  EpTensorSpec *signature[2] = { sx, sy };
  g_autoptr(GPtrArray) traced = NULL, replayed = NULL, expected = NULL;
  g_autoptr(GFile) tensors = ep_graph_file_get_tensors_file (f->file);
  g_autoptr(GPtrArray) variables = NULL;
  EpTensorSpec **loaded_signature;
  guint n;

  calls = 0;
  traced = call (fn, x, y);
  save (fn, signature, 2, f->file);
  g_assert_true (g_file_query_exists (tensors, NULL));

  loaded = load (f->file);
  replayed = call (loaded, x2, y);
  expected = call (fn, x2, y);
  ep_assert_values (g_ptr_array_index (replayed, 0), EP_DTYPE_FLOAT32, EP_SCALAR, EP_VALUES (sqrtf (32) + 0.5f));
  assert_same_tensors (expected, replayed);
  g_assert_cmpuint (calls, ==, 1);
  g_assert_cmpuint (ep_function_get_trace_count (loaded), ==, 0);

  loaded_signature = ep_function_get_signature (loaded, &n);
  g_assert_cmpuint (n, ==, 2);
  g_assert_true (ep_tensor_spec_matches (loaded_signature[0], x));
  g_assert_false (ep_tensor_spec_matches (loaded_signature[0], y));
  variables = ep_function_get_variables (loaded);
  g_assert_cmpuint (variables->len, ==, 0);
}

static GPtrArray *scaled_step (EpTensor  **inputs,
                              guint       n_inputs,
                              gpointer    user_data,
                              GError    **error);

/* A tape around a loaded function's call differentiates through it:
 * d/dx of sqrt (sum (x²) + y) is x / sqrt (…) */
static void
test_tape_around_call (Fixture       *f,
                       gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpFunction) fn = ep_function_new (norm_plus, NULL, NULL);
  g_autoptr(EpFunction) loaded = NULL;
  g_autoptr(EpTensor) x = ep_test_new (EP_DTYPE_FLOAT64, EP_SHAPE (2), EP_VALUES (3, 4));
  g_autoptr(EpTensor) y = ep_test_new (EP_DTYPE_FLOAT64, EP_SCALAR, EP_VALUES (0));
  g_autoptr(EpTensorSpec) sx = spec (EP_DTYPE_FLOAT64, EP_SHAPE (2));
  g_autoptr(EpTensorSpec) sy = spec (EP_DTYPE_FLOAT64, EP_SCALAR);
  EpTensorSpec *signature[2] = { sx, sy };
  g_autoptr(GPtrArray) traced = call (fn, x, y);
  g_autoptr(EpGradientTape) tape = ep_gradient_tape_new (FALSE);
  g_autoptr(GPtrArray) result = NULL, grads = NULL;
  GObject *sources[1] = { G_OBJECT (x) };

  save (fn, signature, 2, f->file);
  loaded = load (f->file);

  ep_gradient_tape_watch (tape, x);
  g_assert_true (ep_gradient_tape_start (tape, NULL));
  result = call (loaded, x, y);
  g_assert_true (ep_gradient_tape_stop (tape, NULL));
  grads = ep_gradient_tape_gradient (tape, (EpTensor **) result->pdata, 1, sources, 1, NULL, 0, &error);
  g_assert_no_error (error);
  ep_assert_values (g_ptr_array_index (grads, 0), EP_DTYPE_FLOAT64, EP_SHAPE (2), EP_VALUES (0.6, 0.8));
}

/* On an OpenCL device: the graph, its constants and its variables stay
 * there */
static void
test_opencl (Fixture       *f,
             gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  EpDevice *gpu = ep_device_get ("opencl:0", NULL);
  g_autoptr(EpTensor) init = NULL, cpu_x = NULL, x = NULL, result = NULL;
  g_autoptr(EpVariable) w = NULL;
  g_autoptr(EpFunction) fn = NULL, loaded = NULL;
  g_autoptr(EpTensorSpec) s = spec (EP_DTYPE_FLOAT32, EP_SHAPE (3));
  g_autoptr(GPtrArray) traced = NULL, out = NULL, variables = NULL;

  if (gpu == NULL)
    {
      g_test_skip ("no OpenCL device");
      return;
    }

  cpu_x = ep_test_new (EP_DTYPE_FLOAT32, EP_SHAPE (3), EP_VALUES (1, 1, 1));
  init = ep_test_new (EP_DTYPE_FLOAT32, EP_SHAPE (3), EP_VALUES (1, 2, 3));
  x = ep_tensor_to_device (cpu_x, gpu, &error);
  g_assert_no_error (error);
  g_assert_true (ep_device_push (gpu, NULL));
  {
    g_autoptr(EpTensor) on_gpu = ep_tensor_to_device (init, gpu, &error);

    w = ep_variable_new (on_gpu, "w");
    fn = ep_function_new (scaled_step, w, NULL);
    traced = call (fn, x, NULL);
    save (fn, &s, 1, f->file);
  }
  g_assert_true (ep_device_pop (gpu, NULL));

  loaded = load (f->file);
  out = call (loaded, x, NULL);
  /* w was (0, 1, 2) when saved */
  g_assert_true (ep_tensor_get_device (g_ptr_array_index (out, 0)) == gpu);
  ep_assert_values (g_ptr_array_index (out, 0), EP_DTYPE_FLOAT32, EP_SCALAR, EP_VALUES (4.5));
  variables = ep_function_get_variables (loaded);
  g_assert_true (ep_variable_get_device (g_ptr_array_index (variables, 0)) == gpu);
  result = ep_variable_read (g_ptr_array_index (variables, 0));
  ep_assert_values (result, EP_DTYPE_FLOAT32, EP_SHAPE (3), EP_VALUES (-1, 0, 1));

  /* inputs on the CPU are not the saved signature's */
  {
    EpTensor *inputs[1] = { cpu_x };

    g_assert_null (ep_function_call (loaded, inputs, 1, &error));
    ep_assert_error (error, EP_ERROR_INVALID_ARGUMENT, "function", "@opencl:0");
  }
}

/* Saving what was loaded writes the same files */
static void
test_save_loaded (Fixture       *f,
                  gconstpointer  data)
{
  g_autoptr(EpFunction) fn = ep_function_new (norm_plus, NULL, NULL);
  g_autoptr(EpFunction) loaded = NULL;
  g_autoptr(EpTensor) x = ep_test_new (EP_DTYPE_FLOAT64, EP_SHAPE (2, 2), EP_VALUES (1, 2, 2, 1));
  g_autoptr(EpTensor) y = ep_test_new (EP_DTYPE_FLOAT64, EP_SCALAR, EP_VALUES (-1));
  g_autoptr(EpTensorSpec) sx = spec (EP_DTYPE_FLOAT64, EP_SHAPE (2, 2));
  g_autoptr(EpTensorSpec) sy = spec (EP_DTYPE_FLOAT64, EP_SCALAR);
  EpTensorSpec *signature[2] = { sx, sy };
  g_autoptr(GPtrArray) traced = call (fn, x, y);
  g_autoptr(GFile) again = file_in (f, "again.json");
  g_autoptr(GFile) tensors = ep_graph_file_get_tensors_file (f->file);
  g_autoptr(GFile) again_tensors = ep_graph_file_get_tensors_file (again);
  g_autofree char *a = NULL, *b = NULL, *ta = NULL, *tb = NULL;
  gsize la, lb, lta, ltb;

  save (fn, signature, 2, f->file);
  loaded = load (f->file);
  save (loaded, signature, 2, again);

  g_assert_true (g_file_load_contents (f->file, NULL, &a, &la, NULL, NULL));
  g_assert_true (g_file_load_contents (again, NULL, &b, &lb, NULL, NULL));
  g_assert_true (g_file_load_contents (tensors, NULL, &ta, &lta, NULL, NULL));
  g_assert_true (g_file_load_contents (again_tensors, NULL, &tb, &ltb, NULL, NULL));
  g_assert_cmpstr (a, ==, b);
  g_assert_cmpmem (ta, lta, tb, ltb);
}

/* sum ((w - x)²) */
static EpTensor *
squared_distance (EpTensor  **inputs,
                  guint       n_inputs,
                  gpointer    user_data,
                  GError    **error)
{
  g_autoptr(EpTensor) diff = ep_tensor_sub (inputs[0], inputs[1], error);
  g_autoptr(EpTensor) squares = diff != NULL ? ep_tensor_square (diff, error) : NULL;

  return squares != NULL ? ep_tensor_sum (squares, NULL, 0, FALSE, error) : NULL;
}

/* A training step, its gradient staged too: w -= 0.25 d/dw sum ((w -
 * x)²); returns the loss */
static GPtrArray *
step (EpTensor  **inputs,
      guint       n_inputs,
      gpointer    user_data,
      GError    **error)
{
  EpVariable *w = user_data;
  g_autoptr(EpTensor) value = ep_variable_read (w);
  g_autoptr(EpTensor) loss = NULL, scaled = NULL;
  g_autoptr(GPtrArray) grads = NULL;
  EpTensor *args[2] = { value, inputs[0] };
  const gint wrt = 0;

  calls++;
  if (!ep_value_and_grad (squared_distance, NULL, args, 2, &wrt, 1, &loss, &grads, error)
      || (scaled = ep_tensor_mul_scalar (g_ptr_array_index (grads, 0), 0.25, error)) == NULL
      || !ep_variable_assign_sub (w, scaled, error))
    return NULL;

  return results (g_steal_pointer (&loss), NULL);
}

/* A loaded training step owns new variables, with the values saved,
 * and trains them; the original variable is not touched. */
static void
test_variables (Fixture       *f,
                gconstpointer  data)
{
  g_autoptr(EpTensor) init = ep_test_new (EP_DTYPE_FLOAT32, EP_SHAPE (2), EP_VALUES (1, 2));
  g_autoptr(EpTensor) target = ep_test_new (EP_DTYPE_FLOAT32, EP_SHAPE (2), EP_VALUES (5, 6));
  g_autoptr(EpVariable) w = ep_variable_new (init, "w");
  g_autoptr(EpFunction) fn = ep_function_new (step, w, NULL);
  g_autoptr(EpFunction) loaded = NULL;
  g_autoptr(EpTensorSpec) s = spec (EP_DTYPE_FLOAT32, EP_SHAPE (2));
  g_autoptr(GPtrArray) first = NULL, variables = NULL;
  g_autoptr(EpTensor) original = NULL;
  const gdouble losses[] = { 8, 2 };
  const gdouble after[][2] = { { 4, 5 }, { 4.5, 5.5 } };
  EpVariable *loaded_w;

  calls = 0;
  first = call (fn, target, NULL);       /* w: (3, 4) */
  ep_variable_set_trainable (w, FALSE);
  save (fn, &s, 1, f->file);
  loaded = load (f->file);

  variables = ep_function_get_variables (loaded);
  g_assert_cmpuint (variables->len, ==, 1);
  loaded_w = g_ptr_array_index (variables, 0);
  g_assert_true (loaded_w != w);
  g_assert_cmpstr (ep_variable_get_name (loaded_w), ==, "w");
  g_assert_false (ep_variable_get_trainable (loaded_w));

  for (guint k = 0; k < 2; k++)
    {
      g_autoptr(GPtrArray) loss = call (loaded, target, NULL);
      g_autoptr(EpTensor) now = ep_variable_read (loaded_w);

      ep_assert_values (g_ptr_array_index (loss, 0), EP_DTYPE_FLOAT32, EP_SCALAR, &losses[k], 1);
      ep_assert_values (now, EP_DTYPE_FLOAT32, EP_SHAPE (2), after[k], 2);
    }

  original = ep_variable_read (w);
  ep_assert_values (original, EP_DTYPE_FLOAT32, EP_SHAPE (2), EP_VALUES (3, 4));
  g_assert_cmpuint (calls, ==, 1);
}

/* row sums of x (batch, 3), reshaped by -1: the rules run again */
static GPtrArray *
rows (EpTensor  **inputs,
      guint       n_inputs,
      gpointer    user_data,
      GError    **error)
{
  g_autoptr(EpTensor) flat = NULL, sums = NULL;
  const gint axis = 1;

  calls++;
  if ((flat = ep_tensor_reshape (inputs[0], EP_SHAPE (-1, 3), error)) == NULL
      || (sums = ep_tensor_sum (flat, &axis, 1, FALSE, error)) == NULL)
    return NULL;

  return results (ep_tensor_mul_scalar (sums, 2, error), NULL);
}

static void
test_relaxed_signature (Fixture       *f,
                        gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensorSpec) s = spec (EP_DTYPE_FLOAT32, EP_SHAPE (-1, 3));
  g_autoptr(EpTensorSpec) concrete = spec (EP_DTYPE_FLOAT32, EP_SHAPE (2, 3));
  g_autoptr(EpFunction) fn = ep_function_new_with_signature (rows, NULL, NULL, &s, 1);
  g_autoptr(EpFunction) loaded = NULL;
  g_autoptr(EpTensor) two = ep_test_new (EP_DTYPE_FLOAT32, EP_SHAPE (2, 3), EP_VALUES (1, 2, 3, 4, 5, 6));
  g_autoptr(EpTensor) three = ep_test_new (EP_DTYPE_FLOAT32, EP_SHAPE (3, 3), EP_VALUES (1, 1, 1, 0, 0, 0, 2, 2, 2));
  g_autoptr(EpTensor) wrong = ep_test_new (EP_DTYPE_FLOAT32, EP_SHAPE (2, 2), EP_VALUES (1, 2, 3, 4));
  g_autoptr(GPtrArray) a = NULL, b = NULL, c = NULL;
  EpTensor *inputs[1] = { wrong };

  g_autoptr(GPtrArray) d = NULL;

  calls = 0;
  a = call (fn, two, NULL);

  /* one trace only shows that the graph serves its own shape: it saves
   * for that shape, not for the signature */
  g_assert_false (ep_function_save (fn, &s, 1, f->file, NULL, &error));
  ep_assert_error (error, EP_ERROR_INVALID_ARGUMENT, "save", "float32 (-1, 3)");
  g_clear_error (&error);
  save (fn, &concrete, 1, f->file);

  /* a second batch size shows that it serves every batch */
  d = call (fn, three, NULL);
  save (fn, &s, 1, f->file);

  loaded = load (f->file);
  b = call (loaded, three, NULL);
  ep_assert_values (g_ptr_array_index (b, 0), EP_DTYPE_FLOAT32, EP_SHAPE (3), EP_VALUES (6, 0, 12));
  g_assert_cmpuint (calls, ==, 2);

  c = ep_function_call (loaded, inputs, 1, &error);
  g_assert_null (c);
  ep_assert_error (error, EP_ERROR_SHAPE, "function", "does not fit the signature");
}

/* x + uniform noise: the seed is not saved, each call draws anew */
static GPtrArray *
noisy (EpTensor  **inputs,
       guint       n_inputs,
       gpointer    user_data,
       GError    **error)
{
  g_autoptr(EpTensor) noise = ep_uniform (EP_SHAPE (4), 10, 11, EP_DTYPE_FLOAT64, error);

  if (noise == NULL)
    return NULL;
  return results (ep_tensor_add (inputs[0], noise, error), NULL);
}

static void
test_random (Fixture       *f,
             gconstpointer  data)
{
  g_autoptr(EpFunction) fn = ep_function_new (noisy, NULL, NULL);
  g_autoptr(EpFunction) loaded = NULL;
  g_autoptr(EpTensor) x = ep_test_new (EP_DTYPE_FLOAT64, EP_SHAPE (4), EP_VALUES (0, 100, 200, 300));
  g_autoptr(EpTensorSpec) s = spec (EP_DTYPE_FLOAT64, EP_SHAPE (4));
  g_autoptr(GPtrArray) traced = call (fn, x, NULL);
  g_autoptr(GPtrArray) a = NULL, b = NULL;
  g_autofree char *text = NULL;
  g_autofree gdouble *va = NULL, *vb = NULL;
  gsize n;

  save (fn, &s, 1, f->file);
  g_assert_true (g_file_load_contents (f->file, NULL, &text, NULL, NULL, NULL));
  g_assert_null (strstr (text, "seed"));
  g_assert_nonnull (strstr (text, "\"low\":10"));

  loaded = load (f->file);
  a = call (loaded, x, NULL);
  b = call (loaded, x, NULL);
  va = ep_test_get_values (g_ptr_array_index (a, 0), &n);
  vb = ep_test_get_values (g_ptr_array_index (b, 0), &n);
  for (guint i = 0; i < 4; i++)
    {
      g_assert_cmpfloat (va[i], >=, 100 * i + 10);
      g_assert_cmpfloat (va[i], <, 100 * i + 11);
      g_assert_cmpfloat (va[i], !=, vb[i]);
    }
}

/* Attributes of every type of the schema, several outputs, list inputs,
 * a view, NaN and infinities */
static GPtrArray *
zoo (EpTensor  **inputs,
     guint       n_inputs,
     gpointer    user_data,
     GError    **error)
{
  EpTensor *x = inputs[0];
  const gint swap[] = { 1, 0 }, first = 0;
  g_autoptr(EpTensor) t = NULL, flat = NULL, padded = NULL, both = NULL;
  EpTensor *values = NULL, *indices = NULL;
  EpTensor *parts[2];

  calls++;
  if ((t = ep_tensor_transpose (x, swap, 2, error)) == NULL
      || (flat = ep_tensor_reshape (t, EP_SHAPE (-1), error)) == NULL
      || (padded = ep_tensor_pad (flat, EP_DIMS (1, 2), 2, EP_PAD_CONSTANT, NAN, error)) == NULL
      || !ep_tensor_topk (flat, 2, TRUE, &values, &indices, error))
    return NULL;
  parts[0] = flat;
  parts[1] = values;
  if ((both = ep_concatenate (parts, 2, 0, error)) == NULL)
    return NULL;

  return results (ep_tensor_sum (t, &first, 1, TRUE, error),
                  ep_tensor_clip (padded, -INFINITY, 3.5, error),
                  ep_tensor_argmax (x, EP_AXIS_NONE, FALSE, error),
                  ep_tensor_cumsum (x, 1, error),
                  ep_tensor_slice (x, EP_DIMS (0, 1), 2, EP_DIMS (2, 3), 2, EP_DIMS (1, 1), 2, error),
                  ep_tensor_astype (x, EP_DTYPE_INT64, error),
                  ep_full (EP_SHAPE (2), 7, EP_DTYPE_FLOAT64, error),
                  ep_tensor_tile (x, EP_DIMS (2, 1), 2, error),
                  g_steal_pointer (&both), values, indices, NULL);
}

static void
test_attributes (Fixture       *f,
                 gconstpointer  data)
{
  g_autoptr(EpFunction) fn = ep_function_new (zoo, NULL, NULL);
  g_autoptr(EpFunction) loaded = NULL;
  g_autoptr(EpTensor) x = ep_test_new (EP_DTYPE_FLOAT32, EP_SHAPE (2, 3), EP_VALUES (4, -1, 9, 2, 8, 3));
  g_autoptr(EpTensor) x2 = ep_test_new (EP_DTYPE_FLOAT32, EP_SHAPE (2, 3), EP_VALUES (0, 5, 1, 7, -2, 6));
  g_autoptr(EpTensorSpec) s = spec (EP_DTYPE_FLOAT32, EP_SHAPE (2, 3));
  g_autoptr(GPtrArray) traced = NULL, expected = NULL, replayed = NULL;

  calls = 0;
  traced = call (fn, x, NULL);
  g_assert_cmpuint (traced->len, ==, 11);
  save (fn, &s, 1, f->file);
  loaded = load (f->file);

  expected = call (fn, x2, NULL);
  replayed = call (loaded, x2, NULL);
  assert_same_tensors (expected, replayed);
  g_assert_cmpuint (calls, ==, 1);
}

/* Every op's attributes go through the schema to a dictionary and back
 * unchanged: what graph files rely on */
static void
test_attrs_through_schema (void)
{
  for (guint id = 0; id < EP_N_OPS; id++)
    {
      g_autoptr(GError) error = NULL;
      const EpOpDef *op = ep_op_get (id);
      EpOpAttrs attrs, back;
      g_autoptr(GVariant) there = NULL, again = NULL;

      ep_op_attrs_init_defaults (&attrs, op);
      there = g_variant_ref_sink (ep_op_attrs_to_variant (&attrs, op));
      g_assert_true (ep_op_attrs_set_from_variant (&back, op, there, &error));
      g_assert_no_error (error);
      again = g_variant_ref_sink (ep_op_attrs_to_variant (&back, op));
      if (!g_variant_equal (there, again))
        {
          g_autofree char *a = g_variant_print (there, TRUE), *b = g_variant_print (again, TRUE);

          g_error ("%s: %s became %s", op->name, a, b);
        }
    }
}

static void
test_save_errors (Fixture       *f,
                  gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpFunction) bare = g_object_new (EP_TYPE_FUNCTION, NULL);
  g_autoptr(EpFunction) fn = ep_function_new (norm_plus, NULL, NULL);
  g_autoptr(EpTensor) x = ep_test_new (EP_DTYPE_FLOAT32, EP_SHAPE (3), EP_VALUES (1, 2, 2));
  g_autoptr(EpTensor) y = ep_test_new (EP_DTYPE_FLOAT32, EP_SCALAR, EP_VALUES (7));
  g_autoptr(EpTensorSpec) sx = spec (EP_DTYPE_FLOAT32, EP_SHAPE (3));
  g_autoptr(EpTensorSpec) sx4 = spec (EP_DTYPE_FLOAT32, EP_SHAPE (4));
  g_autoptr(EpTensorSpec) relaxed = spec (EP_DTYPE_FLOAT32, EP_SHAPE (-1));
  g_autoptr(EpTensorSpec) sy = spec (EP_DTYPE_FLOAT32, EP_SCALAR);
  g_autoptr(GFile) nowhere = file_in (f, "no/such/folder/graph.json");
  g_autoptr(GPtrArray) traced = NULL;
  g_autoptr(GVariant) nothing = NULL;
  EpTensorSpec *signature[2] = { sx, sy };
  EpTensorSpec *other[2] = { sx4, sy };
  EpTensorSpec *unknown[2] = { relaxed, sy };

  g_assert_false (ep_function_save (bare, signature, 2, f->file, NULL, &error));
  ep_assert_error (error, EP_ERROR_INVALID_ARGUMENT, "save", "call it with such inputs first");
  g_clear_error (&error);
  g_assert_null (ep_function_get_variables (bare)->pdata);

  g_assert_false (ep_function_save (fn, signature, 2, f->file, NULL, &error));
  ep_assert_error (error, EP_ERROR_INVALID_ARGUMENT, "save", "(float32 (3,), float32 ())");
  g_clear_error (&error);

  traced = call (fn, x, y);
  g_assert_false (ep_function_save (fn, other, 2, f->file, NULL, &error));
  ep_assert_error (error, EP_ERROR_INVALID_ARGUMENT, "save", "float32 (4,)");
  g_clear_error (&error);
  g_assert_false (ep_function_save (fn, unknown, 2, f->file, NULL, &error));
  ep_assert_error (error, EP_ERROR_INVALID_ARGUMENT, "save", "float32 (-1,)");
  g_clear_error (&error);
  g_assert_false (ep_function_save (fn, signature, 1, f->file, NULL, &error));
  ep_assert_error (error, EP_ERROR_INVALID_ARGUMENT, "save", NULL);
  g_clear_error (&error);
  g_assert_false (g_file_query_exists (f->file, NULL));

  g_assert_false (ep_function_save (fn, signature, 2, nowhere, NULL, &error));
  ep_assert_error (error, EP_ERROR_IO, "save", "no/such/folder");
}

static EpTensor *
doubled (EpTensor  **inputs,
         guint       n_inputs,
         gpointer    user_data,
         GError    **error)
{
  return ep_tensor_mul_scalar (inputs[0], 2, error);
}

static GPtrArray *
zero_gradient (EpTensor  **inputs,
               guint       n_inputs,
               EpTensor   *result,
               EpTensor   *result_grad,
               gpointer    user_data,
               GError    **error)
{
  return results (ep_tensor_mul_scalar (result_grad, 0, error), NULL);
}

static GPtrArray *
with_custom_gradient (EpTensor  **inputs,
                      guint       n_inputs,
                      gpointer    user_data,
                      GError    **error)
{
  return results (ep_custom_gradient (doubled, NULL, zero_gradient, NULL, NULL, inputs, 1, error), NULL);
}

/* A gradient written in the host language cannot go in a file */
static void
test_custom_gradient (Fixture       *f,
                      gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpFunction) fn = ep_function_new (with_custom_gradient, NULL, NULL);
  g_autoptr(EpTensor) x = ep_test_new (EP_DTYPE_FLOAT32, EP_SHAPE (2), EP_VALUES (1, 2));
  g_autoptr(EpTensorSpec) s = spec (EP_DTYPE_FLOAT32, EP_SHAPE (2));
  g_autoptr(GPtrArray) traced = call (fn, x, NULL);

  g_assert_false (ep_function_save (fn, &s, 1, f->file, NULL, &error));
  ep_assert_error (error, EP_ERROR_INVALID_ARGUMENT, "save", "custom_gradient");
}

/* A loaded function serves its signature on its devices, no other */
static void
test_call_errors (Fixture       *f,
                  gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpFunction) fn = ep_function_new (norm_plus, NULL, NULL);
  g_autoptr(EpFunction) loaded = NULL;
  g_autoptr(EpTensor) x = ep_test_new (EP_DTYPE_FLOAT64, EP_SHAPE (3), EP_VALUES (1, 2, 2));
  g_autoptr(EpTensor) y = ep_test_new (EP_DTYPE_FLOAT64, EP_SCALAR, EP_VALUES (7));
  g_autoptr(EpTensor) weak = ep_tensor_new_weak_scalar (7, EP_DTYPE_FLOAT64);
  g_autoptr(EpTensor) y32 = ep_test_new (EP_DTYPE_FLOAT32, EP_SCALAR, EP_VALUES (7));
  g_autoptr(EpTensorSpec) sx = spec (EP_DTYPE_FLOAT64, EP_SHAPE (3));
  g_autoptr(EpTensorSpec) sy = spec (EP_DTYPE_FLOAT64, EP_SCALAR);
  EpTensorSpec *signature[2] = { sx, sy };
  g_autoptr(GPtrArray) traced = call (fn, x, y);
  EpTensor *with_weak[2] = { x, weak };
  EpTensor *with_float[2] = { x, y32 };

  save (fn, signature, 2, f->file);
  loaded = load (f->file);

  /* a weak literal has a signature of its own, which the file lacks */
  g_assert_null (ep_function_call (loaded, with_weak, 2, &error));
  ep_assert_error (error, EP_ERROR_INVALID_ARGUMENT, "function", "no function to trace");
  g_clear_error (&error);
  g_assert_null (ep_function_call (loaded, with_float, 2, &error));
  ep_assert_error (error, EP_ERROR_SHAPE, "function", "does not fit the signature");
  g_clear_error (&error);
  g_assert_null (ep_function_call (loaded, with_float, 1, &error));
  ep_assert_error (error, EP_ERROR_INVALID_ARGUMENT, "function", "the signature has 2 inputs, 1 given");
}

/* Corrupted files */

typedef struct
{
  char   *text;       /* the document of norm_plus and a variable */
  GBytes *tensors;
} Reference;

/* y = sum (x * w) + 1.5; w -= x, with w a variable */
static GPtrArray *
scaled_step (EpTensor  **inputs,
             guint       n_inputs,
             gpointer    user_data,
             GError    **error)
{
  EpVariable *w = user_data;
  g_autoptr(EpTensor) value = ep_variable_read (w);
  g_autoptr(EpTensor) product = NULL, total = NULL;

  if ((product = ep_tensor_mul (inputs[0], value, error)) == NULL
      || (total = ep_tensor_sum (product, NULL, 0, FALSE, error)) == NULL
      || !ep_variable_assign_sub (w, inputs[0], error))
    return NULL;

  return results (ep_tensor_add_scalar (total, 1.5, error), NULL);
}

static void
reference_init (Reference *r,
                Fixture   *f)
{
  g_autoptr(EpTensor) init = ep_test_new (EP_DTYPE_FLOAT32, EP_SHAPE (3), EP_VALUES (1, 2, 3));
  g_autoptr(EpVariable) w = ep_variable_new (init, "w");
  g_autoptr(EpFunction) fn = ep_function_new (scaled_step, w, NULL);
  g_autoptr(EpTensor) x = ep_test_new (EP_DTYPE_FLOAT32, EP_SHAPE (3), EP_VALUES (1, 1, 1));
  g_autoptr(EpTensorSpec) s = spec (EP_DTYPE_FLOAT32, EP_SHAPE (3));
  g_autoptr(GPtrArray) traced = call (fn, x, NULL);
  g_autoptr(GFile) tensors = ep_graph_file_get_tensors_file (f->file);
  g_autoptr(EpFunction) loaded = NULL;

  save (fn, &s, 1, f->file);
  g_assert_true (g_file_load_contents (f->file, NULL, &r->text, NULL, NULL, NULL));
  r->tensors = g_file_load_bytes (tensors, NULL, NULL, NULL);
  g_assert_nonnull (r->tensors);

  /* it loads as it is */
  loaded = load (f->file);
}

static void
reference_clear (Reference *r)
{
  g_free (r->text);
  g_bytes_unref (r->tensors);
}

/* Writes @text and @tensors as bad.json and bad.safetensors, loads
 * them, and checks the error: an EP_ERROR_FORMAT about one of them */
static void
assert_load_fails (Fixture     *f,
                   const char  *text,
                   gssize       length,
                   GBytes      *tensors,
                   const char  *fragment)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GFile) bad = file_in (f, "bad.json");
  g_autoptr(GFile) bad_tensors = ep_graph_file_get_tensors_file (bad);
  g_autoptr(EpFunction) fn = NULL;
  g_autofree char *stem = g_build_filename (f->dir, "bad.", NULL);

  g_assert_true (g_file_set_contents (g_file_peek_path (bad), text, length, NULL));
  g_assert_true (g_file_set_contents (g_file_peek_path (bad_tensors),
                                      g_bytes_get_data (tensors, NULL),
                                      g_bytes_get_size (tensors), NULL));
  fn = ep_function_load (bad, NULL, &error);
  g_assert_null (fn);
  g_assert_error (error, EP_ERROR, EP_ERROR_FORMAT);
  if (fragment != NULL)
    g_test_message ("%s", error->message);
  /* the file at fault first: bad.json or bad.safetensors */
  g_assert_true (g_str_has_prefix (error->message, stem));
  if (fragment != NULL && strstr (error->message, fragment) == NULL)
    g_error ("“%s” does not contain “%s”", error->message, fragment);
}

typedef struct
{
  const char *find;
  const char *replace;
  const char *fragment;
} Damage;

/* Each replaces the first place @find is in the reference document */
static const Damage damages[] = {
  { "\"version\": 1", "\"version\": 2", "written in version 2 of the graph file format by a newer eager-glib" },
  { "\"version\": 1", "\"version\": \"1\"", "version: expected an integer" },
  { "\"version\": 1", "\"version\": 0", "version: expected an integer" },
  { "\"format\": \"eager-glib-graph\"", "\"format\": \"other\"", "not an eager-glib graph file" },
  { "\"format\":", "\"extra\": 1, \"format\":", "unknown member “extra”" },
  { "\"op\":\"mul\"", "\"op\":\"frobnicate\"", "unknown op “frobnicate”" },
  { "\"op\":\"mul\"", "\"op\":\"custom_gradient\"", "custom_gradient cannot be loaded" },
  { "\"op\":\"mul\"", "\"op\":\"zeros\"", "unknown op “zeros”" },
  { "\"kind\":\"op\"", "\"kind\":\"loop\"", "expected “op”, “read” or “assign”" },
  { "{\"node\":0,\"output\":0}", "{\"node\":5,\"output\":0}", "refers to node 5, which does not come before it" },
  { "{\"node\":0,\"output\":0}", "{\"node\":1,\"output\":0}", "refers to node 1, which does not come before it" },
  { "{\"node\":0,\"output\":0}", "{\"node\":0,\"output\":3}", "refers to output 3 of node 0, which has 1" },
  { "{\"node\":0,\"output\":0}", "{\"node\":0}", "output: expected an integer" },
  { "{\"input\":0}", "{\"input\":7}", "refers to input 7, the graph has 1" },
  { "{\"input\":0}", "{\"input\":-1}", "input: expected an integer in range" },
  { "{\"input\":0}", "{\"input\":0,\"node\":1}", "unknown member “node”" },
  { "{\"input\":0}", "7", "expected a reference" },
  { "{\"constant\":0}", "{\"constant\":9}", "refers to constant 9, the graph has 1" },
  { "\"variable\":0", "\"variable\":4", "refers to variable 4, the graph has 1" },
  { "\"variable\":0", "\"variable\":\"0\"", "variable: expected an integer" },
  { "\"inputs\":[{\"input\":0},{\"node\":0,\"output\":0}]", "\"inputs\":[{\"input\":0}]", "mul takes 2 inputs, 1 given" },
  { "\"attrs\":{},", "", "attrs: expected an object" },
  /* a list input with no tensor (found by fuzz-dispatch: the rule read
   * input 0) */
  { "\"op\":\"mul\",\"device\":\"cpu:0\",\"inputs\":[{\"input\":0},{\"node\":0,\"output\":0}],\"attrs\":{}",
    "\"op\":\"concatenate\",\"device\":\"cpu:0\",\"inputs\":[],\"attrs\":{\"axis\":0}",
    "concatenate: needs at least one tensor" },
  { "\"attrs\":{}", "\"attrs\":{\"bogus\":1}", "mul has no attribute named “bogus”" },
  { "\"keepdims\":false", "\"keepdims\":0", "attrs.keepdims: expected true or false" },
  { "\"keepdims\":false", "\"keepdims\":\"Infinity\"", "attrs.keepdims: expected true or false" },
  { "\"axes\":null", "\"axes\":\"x\"", "attrs.axes: expected a list of integers" },
  { "\"axes\":null", "\"axes\":[1.5]", "attrs.axes: expected a list of integers" },
  { "\"axes\":null", "\"axes\":[5]", "axis 5 is out of range" },
  { "\"attrs\":{},\"outputs\":[{\"dtype\":\"float32\",\"shape\":[3]}]",
    "\"attrs\":{},\"outputs\":[{\"dtype\":\"float32\",\"shape\":[4]}]",
    "outputs[0]: float32 (4,) recorded, the op's rule gives float32 (3,)" },
  { "\"attrs\":{},\"outputs\":[{\"dtype\":\"float32\",\"shape\":[3]}]",
    "\"attrs\":{},\"outputs\":[{\"dtype\":\"float32\",\"shape\":[3]},{\"dtype\":\"float32\",\"shape\":[3]}]",
    "2 outputs listed, the node gives 1" },
  { "\"attrs\":{},\"outputs\":[{\"dtype\":\"float32\",\"shape\":[3]}]",
    "\"attrs\":{},\"outputs\":[{\"dtype\":\"float32\",\"shape\":[3],\"x\":1}]", "unknown member “x”" },
  { "\"trace_shape\":[3]", "\"trace_shape\":[4]", "the traced shape does not fit the shape" },
  { "\"shape\":[3],\"trace_shape\":[3]", "\"shape\":[4],\"trace_shape\":[4]", "cannot be broadcast" },
  { "\"trace_shape\":[3]", "\"trace_shape\":[\"3\"]", "trace_shape: expected a shape" },
  { "\"trace_shape\":[3]", "\"trace_shape\":[3.0]", "trace_shape: expected a shape" },
  { "\"trace_shape\":[3]", "\"trace_shape\":[NaN]", "not valid JSON" },
  { "\"trace_shape\":[3]", "\"trace_shape\":[99999999999999999999]", "trace_shape: expected a shape" },
  { "\"trace_shape\":[3]", "\"trace_shape\":[9007199254740993]", "trace_shape: expected a shape" },
  { "\"trace_shape\":[3]", "\"trace_shape\":[1,1,1,1,1,1,1,1,1]", "trace_shape: expected a shape" },
  { "\"shape\":[3],\"trace_shape\":[3]", "\"shape\":[-1,-1],\"trace_shape\":[1099511627776,1099511627776]",
    "needs more memory than can be addressed" },
  { "\"shape\":[3],\"trace_shape\":[3]", "\"shape\":[-2],\"trace_shape\":[3]", "shape: expected a shape" },
  { "\"dtype\":\"float32\"", "\"dtype\":\"complex64\"", "dtype: expected a dtype" },
  { "\"device\":\"cpu:0\"", "\"device\":\"tpu:0\"", "device: expected a device name" },
  { "\"device\":\"cpu:0\"", "\"device\":\"cpu\"", "device: expected a device name" },
  { "\"device\":\"cpu:0\"", "\"device\":\"cpu:x\"", "device: expected a device name" },
  { "\"tensor\":\"constants/0\"", "\"tensor\":\"constants/9\"", "no tensor named “constants/9”" },
  { "\"tensor\":\"constants/0\"", "\"tensor\":\"variables/0\"",
    "tensor “variables/0” is F32 (3,) in the tensors file, the document says float32 ()" },
  { "\"weak\":false", "\"weak\":\"no\"", "weak: expected true or false" },
  { "\"name\":\"w\"", "\"name\":3", "name: expected a string or null" },
  { "\"trainable\":true", "\"trainable\":1", "trainable: expected true or false" },
  { "{\"kind\":\"read\",\"variable\":0,\"device\":\"cpu:0\",\"outputs\":[{\"dtype\":\"float32\",\"shape\":[3]}]}",
    "{\"kind\":\"read\",\"variable\":0,\"device\":\"cpu:0\",\"outputs\":[{\"dtype\":\"float32\",\"shape\":[2]}]}",
    "float32 (2,) recorded, the variable is float32 (3,)" },
  { "\"kind\":\"assign\",\"variable\":0,\"inputs\":[{\"node\":", "\"kind\":\"assign\",\"variable\":0,\"inputs\":[{\"node\":2,\"output\":0},{\"node\":",
    "assign takes 1 inputs, 2 given" },
  { "\"inputs\": [\n    {\"dtype\":\"float32\",\"shape\":[3],\"trace_shape\":[3],\"device\":\"cpu:0\"}\n  ]",
    "\"inputs\": 3", "inputs: expected a list" },
  { "\"nodes\": [\n", "\"nodes\": [\n    5,\n", "nodes[0]: expected an object" },
};

static void
test_damaged (Fixture       *f,
              gconstpointer  data)
{
  Reference r;

  reference_init (&r, f);
  for (guint i = 0; i < G_N_ELEMENTS (damages); i++)
    {
      g_autoptr(GString) text = g_string_new (r.text);

      g_test_message ("damage %u: %s -> %s", i, damages[i].find, damages[i].replace);
      g_assert_cmpuint (g_string_replace (text, damages[i].find, damages[i].replace, 1), ==, 1);
      assert_load_fails (f, text->str, text->len, r.tensors, damages[i].fragment);
    }
  reference_clear (&r);
}

/* An assignment of a value that does not fit the variable: the sum,
 * node 2, a scalar */
static void
test_bad_assignment (Fixture       *f,
                     gconstpointer  data)
{
  Reference r;
  g_autoptr(GString) text = NULL;
  char *ref;

  reference_init (&r, f);
  text = g_string_new (r.text);
  ref = strstr (strstr (text->str, "\"kind\":\"assign\""), "{\"node\":") + strlen ("{\"node\":");
  while (g_ascii_isdigit (*ref))
    g_string_erase (text, ref - text->str, 1);
  g_string_insert_c (text, ref - text->str, '2');
  assert_load_fails (f, text->str, text->len, r.tensors,
                     "a value of type float32 and shape () cannot go in a variable of type float32 and shape (3,)");
  reference_clear (&r);
}

/* The top level: not an object, no outputs, an output out of range */
static void
test_bad_document (Fixture       *f,
                   gconstpointer  data)
{
  Reference r;
  g_autoptr(GString) text = NULL;
  char *outputs;

  reference_init (&r, f);
  assert_load_fails (f, "[]", -1, r.tensors, "document: expected an object");
  assert_load_fails (f, "", 0, r.tensors, "not valid JSON");
  assert_load_fails (f, "{\"format\": \"eager-glib-graph\", \"version\": 1}", -1, r.tensors, "inputs: expected a list");

  text = g_string_new (r.text);
  outputs = g_strrstr (text->str, "\"outputs\": [");
  g_string_truncate (text, outputs - text->str);
  g_string_append (text, "\"outputs\": []\n}\n");
  assert_load_fails (f, text->str, text->len, r.tensors,
                     "outputs: a function returns at least one tensor");

  g_string_truncate (text, outputs - text->str);
  g_string_append (text, "\"outputs\": [{\"node\":99,\"output\":0}]\n}\n");
  assert_load_fails (f, text->str, text->len, r.tensors,
                     "outputs[0]: refers to node 99, which does not come before it");

  /* deeper than any reader should go */
  g_string_truncate (text, outputs - text->str);
  for (guint i = 0; i < 100000; i++)
    g_string_append_c (text, '[');
  assert_load_fails (f, text->str, text->len, r.tensors, "nested too deeply");
  reference_clear (&r);
}

/* Every prefix of the document, and of the tensors file, is refused */
static void
test_truncated (Fixture       *f,
                gconstpointer  data)
{
  Reference r;
  gsize length, tensors_length = 0;
  const char *tensors;

  reference_init (&r, f);
  length = strlen (r.text);
  for (gsize n = 0; n < length; n += 1 + n / 64)
    assert_load_fails (f, r.text, n, r.tensors, NULL);

  tensors = g_bytes_get_data (r.tensors, &tensors_length);
  for (gsize n = 0; n < tensors_length; n++)
    {
      g_autoptr(GBytes) prefix = g_bytes_new (tensors, n);

      assert_load_fails (f, r.text, -1, prefix, NULL);
    }

  /* a header length beyond the file */
  {
    g_autoptr(GBytes) copy = g_bytes_new (tensors, tensors_length);
    guint8 *bytes = (guint8 *) g_bytes_get_data (copy, NULL);

    bytes[0] = 0xff;
    bytes[1] = 0xff;
    assert_load_fails (f, r.text, -1, copy, "truncated: the header takes");
  }
  reference_clear (&r);
}

static void
test_missing_files (Fixture       *f,
                    gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GFile) missing = file_in (f, "missing.json");
  g_autoptr(GFile) tensors = ep_graph_file_get_tensors_file (f->file);
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();
  Reference r;

  g_assert_null (ep_function_load (missing, NULL, &error));
  ep_assert_error (error, EP_ERROR_IO, "load", "missing.json");
  g_clear_error (&error);

  reference_init (&r, f);
  g_assert_true (g_file_delete (tensors, NULL, NULL));
  g_assert_null (ep_function_load (f->file, NULL, &error));
  ep_assert_error (error, EP_ERROR_IO, "load", "graph.safetensors");
  g_clear_error (&error);

  g_cancellable_cancel (cancellable);
  g_assert_null (ep_function_load (f->file, cancellable, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  reference_clear (&r);
}

/* A device this machine lacks becomes cpu:0 */
static void
test_missing_device (Fixture       *f,
                     gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GFile) moved = file_in (f, "moved.json");
  g_autoptr(GFile) moved_tensors = ep_graph_file_get_tensors_file (moved);
  g_autoptr(GString) text = NULL;
  g_autoptr(EpFunction) loaded = NULL;
  g_autoptr(GPtrArray) out = NULL, variables = NULL;
  g_autoptr(EpTensor) x = ep_test_new (EP_DTYPE_FLOAT32, EP_SHAPE (3), EP_VALUES (1, 0, 2));
  Reference r;

  reference_init (&r, f);
  text = g_string_new (r.text);
  g_assert_cmpuint (g_string_replace (text, "\"cpu:0\"", "\"opencl:9\"", 0), >, 3);
  g_assert_true (g_file_set_contents (g_file_peek_path (moved), text->str, text->len, NULL));
  g_assert_true (g_file_replace_contents (moved_tensors, g_bytes_get_data (r.tensors, NULL),
                                          g_bytes_get_size (r.tensors), NULL, FALSE, 0, NULL,
                                          NULL, NULL));

  loaded = load (moved);
  out = call (loaded, x, NULL);
  /* w was (0, 1, 2) when saved: 0 + 0 + 4 + 1.5 */
  ep_assert_values (g_ptr_array_index (out, 0), EP_DTYPE_FLOAT32, EP_SCALAR, EP_VALUES (5.5));
  g_assert_true (ep_tensor_get_device (g_ptr_array_index (out, 0)) == ep_device_get ("cpu:0", NULL));
  variables = ep_function_get_variables (loaded);
  g_assert_true (ep_variable_get_device (g_ptr_array_index (variables, 0)) == ep_device_get ("cpu:0", NULL));
  reference_clear (&r);
}

/* The graph committed in tests/data (format version 1) keeps loading */
static void
test_committed_file (void)
{
  g_autofree char *path = g_test_build_filename (G_TEST_DIST, "..", "data", "affine.json", NULL);
  g_autoptr(GFile) file = g_file_new_for_path (path);
  g_autoptr(EpFunction) fn = load (file);
  g_autoptr(EpTensor) x = ep_test_new (EP_DTYPE_FLOAT32, EP_SHAPE (2, 3), EP_VALUES (1, 0, 0, 0, 1, 1));
  g_autoptr(GPtrArray) out = call (fn, x, NULL);
  g_autoptr(GPtrArray) variables = ep_function_get_variables (fn);
  g_autoptr(EpTensor) w = NULL;

  /* x @ w + b, w = ((1, 2), (3, 4), (5, 6)), b = (0.5, -0.5) */
  ep_assert_values (g_ptr_array_index (out, 0), EP_DTYPE_FLOAT32, EP_SHAPE (2, 2),
                    EP_VALUES (1.5, 1.5, 8.5, 9.5));
  g_assert_cmpuint (variables->len, ==, 1);
  g_assert_cmpstr (ep_variable_get_name (g_ptr_array_index (variables, 0)), ==, "weights");
  w = ep_variable_read (g_ptr_array_index (variables, 0));
  ep_assert_values (w, EP_DTYPE_FLOAT32, EP_SHAPE (3, 2), EP_VALUES (1, 2, 3, 4, 5, 6));
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

#define ADD(path, func) \
  g_test_add ("/function-file/" path, Fixture, NULL, fixture_set_up, func, fixture_tear_down)

  ADD ("round-trip", test_round_trip);
  ADD ("save-loaded", test_save_loaded);
  ADD ("tape-around-call", test_tape_around_call);
  ADD ("opencl", test_opencl);
  ADD ("variables", test_variables);
  ADD ("relaxed-signature", test_relaxed_signature);
  ADD ("random", test_random);
  ADD ("attributes", test_attributes);
  g_test_add_func ("/function-file/attrs-through-schema", test_attrs_through_schema);
  ADD ("save-errors", test_save_errors);
  ADD ("custom-gradient", test_custom_gradient);
  ADD ("call-errors", test_call_errors);
  ADD ("damaged", test_damaged);
  ADD ("bad-assignment", test_bad_assignment);
  ADD ("bad-document", test_bad_document);
  ADD ("truncated", test_truncated);
  ADD ("missing-files", test_missing_files);
  ADD ("missing-device", test_missing_device);
  g_test_add_func ("/function-file/committed-file", test_committed_file);

#undef ADD

  return g_test_run ();
}
