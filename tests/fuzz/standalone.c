/* standalone.c: runs a fuzz target on files, without libFuzzer
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The normal build links each target with this main, and the tests run
 * it on the target's corpus (tests/fuzz/corpus/<target>/): every
 * reproducer a fuzzer found stays a regression test in every build.
 * Arguments are files or folders (each file in them, in name order).
 */

#include <stdio.h>

#include "ep-fuzz.h"

static gboolean
run_file (const char *path)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *contents = NULL;
  gsize length;

  if (!g_file_get_contents (path, &contents, &length, &error))
    {
      g_printerr ("%s\n", error->message);
      return FALSE;
    }
  printf ("%s\n", path);
  fflush (stdout);
  LLVMFuzzerTestOneInput ((const guint8 *) contents, length);
  return TRUE;
}

static gint
compare_names (gconstpointer a,
               gconstpointer b)
{
  return g_strcmp0 (*(char *const *) a, *(char *const *) b);
}

static gboolean
run_folder (const char *path)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GDir) dir = g_dir_open (path, 0, &error);
  g_autoptr(GPtrArray) files = g_ptr_array_new_with_free_func (g_free);
  const char *name;
  gboolean ok = TRUE;

  if (dir == NULL)
    {
      g_printerr ("%s\n", error->message);
      return FALSE;
    }
  while ((name = g_dir_read_name (dir)) != NULL)
    g_ptr_array_add (files, g_build_filename (path, name, NULL));
  g_ptr_array_sort (files, compare_names);
  for (guint i = 0; i < files->len; i++)
    ok = run_file (files->pdata[i]) && ok;

  return ok;
}

int
main (int    argc,
      char **argv)
{
  gboolean ok = TRUE;

  for (int i = 1; i < argc; i++)
    ok = (g_file_test (argv[i], G_FILE_TEST_IS_DIR) ? run_folder (argv[i]) : run_file (argv[i])) && ok;

  return ok ? 0 : 1;
}
