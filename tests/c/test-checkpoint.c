/* test-checkpoint.c: variables saved and restored (autodiff/checkpoint.c)
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "ep-test-util.h"

#include <signal.h>
#include <sys/wait.h>

static char *dir;

static GFile *
file_in (const char *name)
{
  g_autofree char *path = g_build_filename (dir, name, NULL);

  return g_file_new_for_path (path);
}

static EpVariable *
new_variable (const gint64 *shape,
              guint         ndim,
              gdouble       value,
              EpDType       dtype)
{
  g_autoptr(EpTensor) t = ep_full (shape, ndim, value, dtype, NULL);

  return ep_variable_new (t, NULL);
}

/* every element of @v equals @value */
static gboolean
all_equal (EpVariable *v,
           gdouble     value)
{
  g_autoptr(EpTensor) t = ep_variable_read (v);
  gsize n;
  g_autofree gdouble *values = ep_test_get_values (t, &n);

  for (gsize i = 0; i < n; i++)
    if (values[i] != value)
      return FALSE;
  return TRUE;
}

static const char *const names[] = { "encoder.layers.0.weight", "encoder.layers.0.bias", "step", NULL };

static void
make_vars (EpVariable *vars[3],
           gdouble     value)
{
  vars[0] = new_variable (EP_SHAPE (4, 3), value, EP_DTYPE_FLOAT32);
  vars[1] = new_variable (EP_SHAPE (3), value, EP_DTYPE_FLOAT64);
  vars[2] = new_variable (EP_SCALAR, value, EP_DTYPE_INT64);
}

static void
free_vars (EpVariable *vars[3])
{
  for (guint i = 0; i < 3; i++)
    g_clear_object (&vars[i]);
}

static void
test_round_trip (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GFile) file = file_in ("rt.safetensors");
  EpVariable *a[3], *b[3];

  make_vars (a, 7);
  make_vars (b, 0);
  g_assert_true (ep_checkpoint_save (names, a, 3, file, NULL, &error));
  g_assert_no_error (error);
  g_assert_true (ep_checkpoint_restore (names, b, 3, file, EP_CHECKPOINT_NONE, NULL, &error));
  g_assert_no_error (error);
  for (guint i = 0; i < 3; i++)
    g_assert_true (all_equal (b[i], 7));
  free_vars (a);
  free_vars (b);
}

/* Saving and restoring a module and its optimizer keeps no reference on
 * their variables: they go with the module */
static void
test_module_keeps_no_reference (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GFile) file = file_in ("module.safetensors");
  g_autoptr(EpOptimizer) adam = ep_adam_new (1e-3);
  EpModule *linear = ep_linear_new (3, 2, TRUE, &error);
  EpVariable *weight;

  g_assert_no_error (error);
  weight = ep_linear_get_weight (EP_LINEAR (linear));
  g_object_add_weak_pointer (G_OBJECT (weight), (gpointer *) &weight);
  g_assert_true (ep_checkpoint_save_module (linear, adam, file, NULL, &error));
  g_assert_no_error (error);
  g_assert_true (ep_checkpoint_restore_module (linear, adam, file, EP_CHECKPOINT_NONE, NULL, &error));
  g_assert_no_error (error);
  g_assert_true (ep_checkpoint_restore_module (linear, NULL, file, EP_CHECKPOINT_PARTIAL, NULL, &error));
  g_assert_no_error (error);

  g_object_unref (linear);
  g_clear_object (&adam);   /* its slots are keyed by the variables */
  g_assert_null (weight);
}

/* Each mismatch is an EP_ERROR_FORMAT naming the entry; nothing changes */
static void
test_mismatches (void)
{
  g_autoptr(GFile) file = file_in ("mm.safetensors");
  EpVariable *a[3];
  g_autoptr(GError) error = NULL;

  make_vars (a, 5);
  g_assert_true (ep_checkpoint_save (names, a, 3, file, NULL, NULL));
  free_vars (a);

  /* missing: a variable the file lacks */
  {
    static const char *const more[] = { "encoder.layers.0.weight", "encoder.layers.0.bias", "step", "extra", NULL };
    EpVariable *v[4];

    make_vars (v, 0);
    v[3] = new_variable (EP_SHAPE (2), 0, EP_DTYPE_FLOAT32);
    g_assert_false (ep_checkpoint_restore (more, v, 4, file, EP_CHECKPOINT_NONE, NULL, &error));
    g_assert_error (error, EP_ERROR, EP_ERROR_FORMAT);
    g_assert_nonnull (strstr (error->message, "“extra”"));
    g_assert_true (all_equal (v[0], 0));
    g_clear_error (&error);
    /* partial: the others are restored, extra is left */
    g_assert_true (ep_checkpoint_restore (more, v, 4, file, EP_CHECKPOINT_PARTIAL, NULL, &error));
    g_assert_no_error (error);
    g_assert_true (all_equal (v[0], 5) && all_equal (v[2], 5) && all_equal (v[3], 0));
    free_vars (v);
    g_object_unref (v[3]);
  }

  /* unexpected: an entry with no variable */
  {
    EpVariable *v[3];

    make_vars (v, 0);
    /* more names than variables */
    g_assert_false (ep_checkpoint_restore (names, v, 2, file, EP_CHECKPOINT_NONE, NULL, &error));
    g_assert_error (error, EP_ERROR, EP_ERROR_INVALID_ARGUMENT);
    g_clear_error (&error);
    {
      static const char *const two[] = { "encoder.layers.0.weight", "encoder.layers.0.bias", NULL };

      g_assert_false (ep_checkpoint_restore (two, v, 2, file, EP_CHECKPOINT_NONE, NULL, &error));
      g_assert_error (error, EP_ERROR, EP_ERROR_FORMAT);
      g_assert_nonnull (strstr (error->message, "“step”"));
      g_clear_error (&error);
      g_assert_true (ep_checkpoint_restore (two, v, 2, file, EP_CHECKPOINT_PARTIAL, NULL, &error));
      g_assert_no_error (error);
      g_assert_true (all_equal (v[1], 5) && all_equal (v[2], 0));
    }
    free_vars (v);
  }

  /* shape and dtype */
  {
    EpVariable *v[3];

    make_vars (v, 0);
    g_object_unref (v[0]);
    v[0] = new_variable (EP_SHAPE (3, 4), 0, EP_DTYPE_FLOAT32);
    g_assert_false (ep_checkpoint_restore (names, v, 3, file, EP_CHECKPOINT_PARTIAL, NULL, &error));
    g_assert_error (error, EP_ERROR, EP_ERROR_FORMAT);
    g_assert_nonnull (strstr (error->message, "“encoder.layers.0.weight”"));
    g_assert_nonnull (strstr (error->message, "shape"));
    g_clear_error (&error);
    g_object_unref (v[1]);
    v[1] = new_variable (EP_SHAPE (3), 0, EP_DTYPE_FLOAT32);
    g_object_unref (v[0]);
    v[0] = new_variable (EP_SHAPE (4, 3), 0, EP_DTYPE_FLOAT32);
    g_assert_false (ep_checkpoint_restore (names, v, 3, file, EP_CHECKPOINT_NONE, NULL, &error));
    g_assert_error (error, EP_ERROR, EP_ERROR_FORMAT);
    g_assert_nonnull (strstr (error->message, "“encoder.layers.0.bias”"));
    g_assert_nonnull (strstr (error->message, "dtype"));
    g_clear_error (&error);
    g_assert_true (all_equal (v[0], 0));
    free_vars (v);
  }

  /* names: repeated, too few */
  {
    static const char *const twice[] = { "a", "a", NULL };
    EpVariable *v[3];

    make_vars (v, 0);
    g_assert_false (ep_checkpoint_save (twice, v, 2, file, NULL, &error));
    g_assert_error (error, EP_ERROR, EP_ERROR_INVALID_ARGUMENT);
    g_clear_error (&error);
    g_assert_false (ep_checkpoint_save (twice, v, 3, file, NULL, &error));
    g_assert_error (error, EP_ERROR, EP_ERROR_INVALID_ARGUMENT);
    g_clear_error (&error);
    free_vars (v);
  }
}

/* Truncated, oversized, overlapping and malformed files are errors */
static void
test_bad_files (void)
{
  g_autoptr(GFile) good = file_in ("good.safetensors");
  g_autoptr(GFile) bad = file_in ("bad.safetensors");
  g_autofree char *contents = NULL;
  gsize length;
  EpVariable *v[3];
  g_autoptr(GError) error = NULL;
  static const char *const headers[] = {
    "{\"step\":{\"dtype\":\"I64\",\"shape\":[],\"data_offsets\":[0,8]},"
    "\"encoder.layers.0.bias\":{\"dtype\":\"F64\",\"shape\":[3],\"data_offsets\":[0,24]}}", /* overlap */
    "{\"step\":{\"dtype\":\"I64\",\"shape\":[],\"data_offsets\":[0,800]}}",   /* past the end */
    "{\"step\":{\"dtype\":\"I64\",\"shape\":[],\"data_offsets\":[0,8]}",       /* malformed */
    "[]",
  };

  make_vars (v, 3);
  g_assert_true (ep_checkpoint_save (names, v, 3, good, NULL, NULL));
  g_assert_true (g_file_load_contents (good, NULL, &contents, &length, NULL, NULL));

  /* every truncation */
  for (gsize cut = 0; cut < length; cut += (cut < 200 ? 1 : 7))
    {
      g_assert_true (g_file_replace_contents (bad, contents, cut, NULL, FALSE, 0, NULL, NULL, NULL));
      g_assert_false (ep_checkpoint_restore (names, v, 3, bad, EP_CHECKPOINT_PARTIAL, NULL, &error));
      g_assert_error (error, EP_ERROR, EP_ERROR_FORMAT);
      g_clear_error (&error);
    }
  /* a huge header length */
  {
    guint8 huge[16] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f, '{', '}' };

    g_assert_true (g_file_replace_contents (bad, (char *) huge, 16, NULL, FALSE, 0, NULL, NULL, NULL));
    g_assert_false (ep_checkpoint_restore (names, v, 3, bad, EP_CHECKPOINT_PARTIAL, NULL, &error));
    g_assert_error (error, EP_ERROR, EP_ERROR_FORMAT);
    g_clear_error (&error);
  }
  /* bytes after the data (oversized) */
  {
    g_autofree char *longer = g_malloc0 (length + 16);

    memcpy (longer, contents, length);
    g_assert_true (g_file_replace_contents (bad, longer, length + 16, NULL, FALSE, 0, NULL, NULL, NULL));
    g_assert_false (ep_checkpoint_restore (names, v, 3, bad, EP_CHECKPOINT_PARTIAL, NULL, &error));
    g_assert_error (error, EP_ERROR, EP_ERROR_FORMAT);
    g_clear_error (&error);
  }
  for (guint i = 0; i < G_N_ELEMENTS (headers); i++)
    {
      g_autoptr(GByteArray) file = g_byte_array_new ();
      guint64 len = GUINT64_TO_LE (strlen (headers[i]));
      guint8 zeros[64] = { 0 };

      g_byte_array_append (file, (guint8 *) &len, 8);
      g_byte_array_append (file, (guint8 *) headers[i], strlen (headers[i]));
      g_byte_array_append (file, zeros, 32);
      g_assert_true (g_file_replace_contents (bad, (char *) file->data, file->len, NULL, FALSE, 0,
                                              NULL, NULL, NULL));
      g_assert_false (ep_checkpoint_restore (names, v, 3, bad, EP_CHECKPOINT_PARTIAL, NULL, &error));
      g_assert_error (error, EP_ERROR, EP_ERROR_FORMAT);
      g_clear_error (&error);
    }
  /* missing file */
  {
    g_autoptr(GFile) none = file_in ("none.safetensors");

    g_assert_false (ep_checkpoint_restore (names, v, 3, none, EP_CHECKPOINT_NONE, NULL, &error));
    g_assert_error (error, EP_ERROR, EP_ERROR_IO);
    g_clear_error (&error);
  }
  for (guint i = 0; i < 3; i++)
    g_assert_true (all_equal (v[i], 3));
  free_vars (v);
}

static void
on_done (GObject      *source,
         GAsyncResult *result,
         gpointer      user_data)
{
  GAsyncResult **out = user_data;

  *out = g_object_ref (result);
}

static void
test_async (void)
{
  g_autoptr(GFile) file = file_in ("async.safetensors");
  GAsyncResult *result = NULL;
  g_autoptr(GError) error = NULL;
  EpVariable *a[3], *b[3];

  make_vars (a, 11);
  make_vars (b, 0);
  ep_checkpoint_save_async (names, a, 3, file, NULL, on_done, &result);
  /* later assignments are not saved */
  {
    g_autoptr(EpTensor) t = ep_full (EP_SHAPE (4, 3), 1, EP_DTYPE_FLOAT32, NULL);

    g_assert_true (ep_variable_assign (a[0], t, NULL));
  }
  while (result == NULL)
    g_main_context_iteration (NULL, TRUE);
  g_assert_true (ep_checkpoint_save_finish (result, &error));
  g_assert_no_error (error);
  g_clear_object (&result);

  ep_checkpoint_restore_async (names, b, 3, file, EP_CHECKPOINT_NONE, NULL, on_done, &result);
  while (result == NULL)
    g_main_context_iteration (NULL, TRUE);
  g_assert_true (all_equal (b[0], 0));
  g_assert_true (ep_checkpoint_restore_finish (result, &error));
  g_assert_no_error (error);
  g_clear_object (&result);
  for (guint i = 0; i < 3; i++)
    g_assert_true (all_equal (b[i], 11));

  /* a cancelled restore changes nothing */
  {
    g_autoptr(GCancellable) cancellable = g_cancellable_new ();
    g_autoptr(EpTensor) t = ep_full (EP_SHAPE (4, 3), 0, EP_DTYPE_FLOAT32, NULL);

    g_assert_true (ep_variable_assign (b[0], t, NULL));
    g_cancellable_cancel (cancellable);
    ep_checkpoint_restore_async (names, b, 3, file, EP_CHECKPOINT_NONE, cancellable, on_done, &result);
    while (result == NULL)
      g_main_context_iteration (NULL, TRUE);
    g_assert_false (ep_checkpoint_restore_finish (result, &error));
    g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
    g_clear_error (&error);
    g_clear_object (&result);
    g_assert_true (all_equal (b[0], 0));
  }

  /* an error comes back through finish */
  {
    g_autoptr(GFile) none = file_in ("none.safetensors");

    ep_checkpoint_restore_async (names, b, 3, none, EP_CHECKPOINT_NONE, NULL, on_done, &result);
    while (result == NULL)
      g_main_context_iteration (NULL, TRUE);
    g_assert_false (ep_checkpoint_restore_finish (result, &error));
    g_assert_error (error, EP_ERROR, EP_ERROR_IO);
    g_clear_error (&error);
    g_clear_object (&result);
  }
  free_vars (a);
  free_vars (b);
}

/* A variable on OpenCL saves from and restores onto its device */
static void
test_opencl (void)
{
  EpDevice *gpu = ep_device_get ("opencl:0", NULL);
  g_autoptr(GFile) file = file_in ("gpu.safetensors");
  g_autoptr(GError) error = NULL;
  static const char *const one[] = { "w", NULL };
  g_autoptr(EpVariable) a = NULL, b = NULL;
  g_autoptr(EpTensor) read = NULL;

  if (gpu == NULL)
    {
      g_test_skip ("no OpenCL device");
      return;
    }
  {
    g_autoptr(EpTensor) host = ep_full (EP_SHAPE (5, 2), 2.5, EP_DTYPE_FLOAT32, NULL);
    g_autoptr(EpTensor) on_gpu = ep_tensor_to_device (host, gpu, NULL);
    g_autoptr(EpTensor) z = ep_full (EP_SHAPE (5, 2), 0, EP_DTYPE_FLOAT32, NULL);
    g_autoptr(EpTensor) z_gpu = ep_tensor_to_device (z, gpu, NULL);

    a = ep_variable_new (on_gpu, NULL);
    b = ep_variable_new (z_gpu, NULL);
  }
  g_assert_true (ep_checkpoint_save (one, &a, 1, file, NULL, &error));
  g_assert_no_error (error);
  g_assert_true (ep_checkpoint_restore (one, &b, 1, file, EP_CHECKPOINT_NONE, NULL, &error));
  g_assert_no_error (error);
  read = ep_variable_read (b);
  g_assert_true (ep_tensor_get_device (read) == gpu);
  g_assert_true (all_equal (b, 2.5));
}

/* The writer: saves generation after generation until killed */
static int
run_writer (const char *path)
{
  g_autoptr(GFile) file = g_file_new_for_path (path);
  EpVariable *v[3];

  for (gdouble generation = 1;; generation++)
    {
      v[0] = new_variable (EP_SHAPE (512, 512), generation, EP_DTYPE_FLOAT32);
      v[1] = new_variable (EP_SHAPE (3), generation, EP_DTYPE_FLOAT64);
      v[2] = new_variable (EP_SCALAR, generation, EP_DTYPE_INT64);
      if (!ep_checkpoint_save (names, v, 3, file, NULL, NULL))
        return 1;
      free_vars (v);
    }
  return 0;
}

/* A writer killed at random moments leaves a complete checkpoint */
static void
test_killed_writer (void)
{
  g_autoptr(GFile) file = file_in ("killed.safetensors");
  g_autofree char *path = g_file_get_path (file);
  g_autofree char *self = g_test_build_filename (G_TEST_BUILT, "test-checkpoint", NULL);
  EpVariable *v[3];

  v[0] = new_variable (EP_SHAPE (512, 512), 0, EP_DTYPE_FLOAT32);
  v[1] = new_variable (EP_SHAPE (3), 0, EP_DTYPE_FLOAT64);
  v[2] = new_variable (EP_SCALAR, 0, EP_DTYPE_INT64);
  g_assert_true (ep_checkpoint_save (names, v, 3, file, NULL, NULL));

  for (guint round = 0; round < 8; round++)
    {
      const char *argv[] = { self, "--writer", path, NULL };
      g_autoptr(GError) error = NULL;
      GPid pid;
      int status;
      gdouble generation;

      g_assert_true (g_spawn_async (NULL, (char **) argv, NULL, G_SPAWN_DO_NOT_REAP_CHILD,
                                    NULL, NULL, &pid, &error));
      g_assert_no_error (error);
      g_usleep (g_random_int_range (20000, 300000));
      kill (pid, SIGKILL);
      g_assert_cmpint (waitpid (pid, &status, 0), ==, pid);
      g_assert_true (WIFSIGNALED (status));

      g_assert_true (ep_checkpoint_restore (names, v, 3, file, EP_CHECKPOINT_NONE, NULL, &error));
      g_assert_no_error (error);
      {
        g_autoptr(EpTensor) step = ep_variable_read (v[2]);

        generation = ep_tensor_item_double (step, NULL);
      }
      g_test_message ("round %u: generation %g", round, generation);
      for (guint i = 0; i < 3; i++)
        g_assert_true (all_equal (v[i], generation));
    }
  free_vars (v);
}

int
main (int   argc,
      char *argv[])
{
  int status;

  if (argc == 3 && g_str_equal (argv[1], "--writer"))
    return run_writer (argv[2]);

  g_test_init (&argc, &argv, NULL);
  dir = ep_test_make_dir ();

  g_test_add_func ("/checkpoint/round-trip", test_round_trip);
  g_test_add_func ("/checkpoint/module-keeps-no-reference", test_module_keeps_no_reference);
  g_test_add_func ("/checkpoint/mismatches", test_mismatches);
  g_test_add_func ("/checkpoint/bad-files", test_bad_files);
  g_test_add_func ("/checkpoint/async", test_async);
  g_test_add_func ("/checkpoint/opencl", test_opencl);
  g_test_add_func ("/checkpoint/killed-writer", test_killed_writer);

  status = g_test_run ();
  ep_test_remove_dir (dir);
  g_free (dir);
  return status;
}
