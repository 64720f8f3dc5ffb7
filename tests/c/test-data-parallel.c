/* test-data-parallel.c: EpDataParallel in one process, a world of one
 * rank (distributed/data-parallel.c): the buckets give back each gradient
 * as it was, NULL gives zeros, the checkpoint is written, every error.
 * Several ranks: tests/python/test_ddp_mpi.py under mpirun.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "ep-test-util.h"

static EpCommunicator *
world (void)
{
  g_autoptr(GError) error = NULL;
  EpCommunicator *comm = ep_communicator_get_world (&error);

  g_assert_no_error (error);
  g_assert_cmpint (ep_communicator_get_size (comm), ==, 1);
  return comm;
}

/* float32 (2, 3), float32 (3), float64 (4), float32 (0), float32 () */
static void
make_variables (EpVariable *vars[5])
{
  static const gint64 shapes[5][2] = { { 2, 3 }, { 3 }, { 4 }, { 0 }, { 0 } };
  static const guint ndims[5] = { 2, 1, 1, 1, 0 };
  static const EpDType dtypes[5] = { EP_DTYPE_FLOAT32, EP_DTYPE_FLOAT32, EP_DTYPE_FLOAT64,
                                     EP_DTYPE_FLOAT32, EP_DTYPE_FLOAT32 };

  for (guint i = 0; i < 5; i++)
    {
      g_autoptr(EpTensor) t = ep_test_iota (shapes[i], ndims[i], dtypes[i]);

      vars[i] = ep_variable_new (t, NULL);
    }
}

static void
free_variables (EpVariable *vars[5])
{
  for (guint i = 0; i < 5; i++)
    g_object_unref (vars[i]);
}

/* gradient i: the variable's value + i + 0.5 */
static EpTensor *
gradient_for (EpVariable *var,
              guint       i)
{
  g_autoptr(EpTensor) value = ep_variable_read (var);
  g_autoptr(GError) error = NULL;
  EpTensor *g = ep_tensor_add_scalar (value, i + 0.5, &error);

  g_assert_no_error (error);
  return g;
}

static void
assert_same_values (EpTensor *a,
                    EpTensor *b)
{
  gsize na, nb;
  guint ndim_a, ndim_b;
  const gint64 *shape_a = ep_tensor_get_shape (a, &ndim_a);
  const gint64 *shape_b = ep_tensor_get_shape (b, &ndim_b);
  g_autofree gdouble *va = ep_test_get_values (a, &na);
  g_autofree gdouble *vb = ep_test_get_values (b, &nb);

  g_assert_cmpint (ep_tensor_get_dtype (a), ==, ep_tensor_get_dtype (b));
  g_assert_cmpuint (ndim_a, ==, ndim_b);
  g_assert_cmpmem (shape_a, ndim_a * sizeof (gint64), shape_b, ndim_b * sizeof (gint64));
  g_assert_cmpmem (va, na * sizeof (gdouble), vb, nb * sizeof (gdouble));
}

/* Whatever the bucket size (one bucket per gradient, several of a few,
 * one of all, split by dtype), one rank's average is its gradient, in a
 * new tensor */
static void
test_buckets (void)
{
  static const guint64 sizes[] = { 0, 1, 16, 40, EP_DATA_PARALLEL_DEFAULT_BUCKET_SIZE, G_MAXUINT64 };
  g_autoptr(EpCommunicator) comm = world ();
  g_autoptr(GError) error = NULL;
  EpVariable *vars[5];
  EpTensor *grads[5];
  g_autoptr(EpDataParallel) ddp = NULL;

  make_variables (vars);
  for (guint i = 0; i < 5; i++)
    grads[i] = gradient_for (vars[i], i);
  ddp = ep_data_parallel_new (comm, vars, 5, &error);
  g_assert_no_error (error);
  g_assert_true (ep_data_parallel_get_communicator (ddp) == comm);

  for (guint s = 0; s < G_N_ELEMENTS (sizes); s++)
    {
      g_autoptr(GPtrArray) averaged = NULL;

      ep_data_parallel_set_bucket_size (ddp, sizes[s]);
      g_assert_cmpuint (ep_data_parallel_get_bucket_size (ddp), ==, sizes[s]);
      averaged = ep_data_parallel_average_gradients (ddp, grads, 5, &error);
      g_assert_no_error (error);
      g_assert_cmpuint (averaged->len, ==, 5);
      for (guint i = 0; i < 5; i++)
        {
          g_assert_true (g_ptr_array_index (averaged, i) != grads[i]);
          assert_same_values (g_ptr_array_index (averaged, i), grads[i]);
        }
    }

  for (guint i = 0; i < 5; i++)
    g_object_unref (grads[i]);
  free_variables (vars);
}

static void
test_null_is_zeros (void)
{
  g_autoptr(EpCommunicator) comm = world ();
  g_autoptr(GError) error = NULL;
  EpVariable *vars[5];
  EpTensor *grads[5] = { NULL };
  g_autoptr(EpDataParallel) ddp = NULL;
  g_autoptr(GPtrArray) averaged = NULL;
  g_autoptr(GPtrArray) all_null = NULL;

  make_variables (vars);
  grads[1] = gradient_for (vars[1], 1);
  ddp = ep_data_parallel_new (comm, vars, 5, &error);
  g_assert_no_error (error);
  averaged = ep_data_parallel_average_gradients (ddp, grads, 5, &error);
  g_assert_no_error (error);
  ep_test_assert_tensor (g_ptr_array_index (averaged, 0), EP_DIMS (2, 3), 2, EP_DOUBLES (0, 0, 0, 0, 0, 0));
  assert_same_values (g_ptr_array_index (averaged, 1), grads[1]);
  ep_test_assert_tensor (g_ptr_array_index (averaged, 2), EP_DIMS (4), 1, EP_DOUBLES (0, 0, 0, 0));
  g_assert_cmpint (ep_tensor_get_dtype (g_ptr_array_index (averaged, 2)), ==, EP_DTYPE_FLOAT64);

  /* the whole array NULL */
  all_null = ep_data_parallel_average_gradients (ddp, NULL, 5, &error);
  g_assert_no_error (error);
  ep_test_assert_tensor (g_ptr_array_index (all_null, 1), EP_DIMS (3), 1, EP_DOUBLES (0, 0, 0));

  g_object_unref (grads[1]);
  free_variables (vars);
}

static EpModule *
make_model (void)
{
  g_autoptr(GError) error = NULL;
  EpModule *model = ep_sequential_new ();
  g_autoptr(EpModule) hidden = ep_linear_new (3, 4, TRUE, &error);
  g_autoptr(EpModule) out = ep_linear_new (4, 2, TRUE, &error);

  g_assert_no_error (error);
  ep_sequential_append (EP_SEQUENTIAL (model), hidden, &error);
  ep_sequential_append (EP_SEQUENTIAL (model), out, &error);
  g_assert_no_error (error);
  return model;
}

/* new_for_module: the gradients of the trainable variables only */
static void
test_module (void)
{
  g_autoptr(EpCommunicator) comm = world ();
  g_autoptr(GError) error = NULL;
  g_autoptr(EpModule) model = make_model ();
  g_autoptr(EpDataParallel) ddp = NULL;
  g_autoptr(GPtrArray) trainable = NULL;
  g_autoptr(GPtrArray) variables = NULL;
  g_autoptr(GPtrArray) averaged = NULL;
  EpVariable *frozen = ep_module_get_variable (ep_module_get_module (model, "0"), "bias");

  ep_variable_set_trainable (frozen, FALSE);
  ddp = ep_data_parallel_new_for_module (comm, model, &error);
  g_assert_no_error (error);
  trainable = ep_module_get_trainable_variables (model, NULL);
  variables = ep_data_parallel_get_variables (ddp);
  g_assert_cmpuint (variables->len, ==, 3);
  for (guint i = 0; i < 3; i++)
    g_assert_true (g_ptr_array_index (variables, i) == g_ptr_array_index (trainable, i));
  averaged = ep_data_parallel_average_gradients (ddp, NULL, 3, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (averaged->len, ==, 3);
}

static void
test_checkpoint (void)
{
  g_autoptr(EpCommunicator) comm = world ();
  g_autoptr(GError) error = NULL;
  g_autoptr(EpModule) model = make_model ();
  g_autoptr(EpModule) restored = make_model ();
  g_autoptr(EpDataParallel) ddp = ep_data_parallel_new_for_module (comm, model, &error);
  g_autofree char *dir = ep_test_make_dir ();
  g_autofree char *path = g_build_filename (dir, "model.safetensors", NULL);
  g_autofree char *missing = g_build_filename (dir, "missing", "model.safetensors", NULL);
  g_autoptr(GFile) file = g_file_new_for_path (path);
  g_autoptr(GFile) missing_file = g_file_new_for_path (missing);
  g_autoptr(GPtrArray) a = NULL;
  g_autoptr(GPtrArray) b = NULL;

  g_assert_no_error (error);
  g_assert_true (ep_data_parallel_save_checkpoint (ddp, model, NULL, file, NULL, &error));
  g_assert_no_error (error);
  g_assert_true (ep_checkpoint_restore_module (restored, NULL, file, EP_CHECKPOINT_NONE, NULL, &error));
  g_assert_no_error (error);
  a = ep_module_get_variables (model, NULL);
  b = ep_module_get_variables (restored, NULL);
  for (guint i = 0; i < a->len; i++)
    {
      g_autoptr(EpTensor) va = ep_variable_read (g_ptr_array_index (a, i));
      g_autoptr(EpTensor) vb = ep_variable_read (g_ptr_array_index (b, i));

      assert_same_values (va, vb);
    }

  /* rank 0's error is the call's */
  g_assert_false (ep_data_parallel_save_checkpoint (ddp, model, NULL, missing_file, NULL, &error));
  g_assert_nonnull (error);
  g_clear_error (&error);

  ep_test_remove_dir (dir);
}

static void
test_errors (void)
{
  g_autoptr(EpCommunicator) comm = world ();
  g_autoptr(GError) error = NULL;
  EpVariable *vars[5];
  EpTensor *grads[5];
  g_autoptr(EpDataParallel) ddp = NULL;
  g_autoptr(EpTensor) wrong_shape = ep_zeros (EP_SHAPE (3, 2), EP_DTYPE_FLOAT32, NULL);
  g_autoptr(EpTensor) wrong_dtype = ep_zeros (EP_SHAPE (3), EP_DTYPE_FLOAT64, NULL);
  g_autoptr(EpTensor) released = ep_zeros (EP_SHAPE (3), EP_DTYPE_FLOAT32, NULL);
  g_autoptr(EpTensor) counter_value = ep_zeros (EP_SHAPE (2), EP_DTYPE_INT64, NULL);
  g_autoptr(EpVariable) counter = ep_variable_new (counter_value, NULL);
  g_autoptr(EpDataParallel) counting = NULL;
  g_autoptr(EpModule) model = make_model ();
  GPtrArray *result;

  make_variables (vars);
  for (guint i = 0; i < 5; i++)
    grads[i] = gradient_for (vars[i], i);

  /* making it */
  g_assert_null (ep_data_parallel_new (NULL, vars, 5, &error));
  ep_assert_error (error, EP_ERROR_INVALID_ARGUMENT, "data_parallel_new", "communicator");
  g_clear_error (&error);
  g_assert_null (ep_data_parallel_new (comm, NULL, 2, &error));
  ep_assert_error (error, EP_ERROR_INVALID_ARGUMENT, "data_parallel_new", "NULL");
  g_clear_error (&error);
  g_assert_null (ep_data_parallel_new_for_module (comm, NULL, &error));
  ep_assert_error (error, EP_ERROR_INVALID_ARGUMENT, "data_parallel_new_for_module", "module");
  g_clear_error (&error);
  g_assert_null (ep_data_parallel_new_for_module (NULL, model, &error));
  ep_assert_error (error, EP_ERROR_INVALID_ARGUMENT, "data_parallel_new_for_module", "communicator");
  g_clear_error (&error);

  ddp = ep_data_parallel_new (comm, vars, 5, &error);
  g_assert_no_error (error);

  /* count */
  g_assert_null (ep_data_parallel_average_gradients (ddp, grads, 4, &error));
  ep_assert_error (error, EP_ERROR_INVALID_ARGUMENT, "average_gradients", "(5)");
  g_clear_error (&error);

  /* shape, dtype, released */
  {
    EpTensor *bad[5] = { grads[0], wrong_shape, grads[2], grads[3], grads[4] };

    g_assert_null (ep_data_parallel_average_gradients (ddp, bad, 5, &error));
    ep_assert_error (error, EP_ERROR_SHAPE, "average_gradients", "gradient 1 has shape (3, 2)");
    g_clear_error (&error);
    bad[1] = wrong_dtype;
    g_assert_null (ep_data_parallel_average_gradients (ddp, bad, 5, &error));
    ep_assert_error (error, EP_ERROR_DTYPE, "average_gradients", "float64");
    g_clear_error (&error);
    ep_tensor_release (released);
    bad[1] = released;
    result = ep_data_parallel_average_gradients (ddp, bad, 5, &error);
    g_assert_null (result);
    g_assert_error (error, EP_ERROR, EP_ERROR_INVALID_ARGUMENT);
    g_assert_true (g_str_has_prefix (error->message, "average_gradients: "));
    g_clear_error (&error);
  }

  /* an integer variable has no gradient to average */
  counting = ep_data_parallel_new (comm, &counter, 1, &error);
  g_assert_no_error (error);
  g_assert_null (ep_data_parallel_average_gradients (counting, NULL, 1, &error));
  ep_assert_error (error, EP_ERROR_DTYPE, "average_gradients", "int64");
  g_clear_error (&error);

  for (guint i = 0; i < 5; i++)
    g_object_unref (grads[i]);
  free_variables (vars);
}

/* g_object_new() from a binding: every call is an error */
static void
test_bare_object (void)
{
  g_autoptr(EpDataParallel) bare = g_object_new (EP_TYPE_DATA_PARALLEL, NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(EpModule) model = make_model ();
  g_autoptr(GFile) file = g_file_new_for_path ("never-written.safetensors");
  g_autoptr(GPtrArray) variables = ep_data_parallel_get_variables (bare);

  g_assert_null (ep_data_parallel_get_communicator (bare));
  g_assert_cmpuint (variables->len, ==, 0);
  g_assert_null (ep_data_parallel_average_gradients (bare, NULL, 0, &error));
  ep_assert_error (error, EP_ERROR_INVALID_ARGUMENT, "average_gradients", "no communicator");
  g_clear_error (&error);
  g_assert_false (ep_data_parallel_broadcast_variables (bare, &error));
  ep_assert_error (error, EP_ERROR_INVALID_ARGUMENT, "broadcast_variables", "no communicator");
  g_clear_error (&error);
  g_assert_false (ep_data_parallel_save_checkpoint (bare, model, NULL, file, NULL, &error));
  ep_assert_error (error, EP_ERROR_INVALID_ARGUMENT, "save_checkpoint", "no communicator");
  g_assert_false (g_file_query_exists (file, NULL));
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/data-parallel/buckets", test_buckets);
  g_test_add_func ("/data-parallel/null-is-zeros", test_null_is_zeros);
  g_test_add_func ("/data-parallel/module", test_module);
  g_test_add_func ("/data-parallel/checkpoint", test_checkpoint);
  g_test_add_func ("/data-parallel/errors", test_errors);
  g_test_add_func ("/data-parallel/bare-object", test_bare_object);

  return g_test_run ();
}
