/* program.c: built against the installed pkg-config file by
 * build-aux/install-check.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include <eager-glib/eager-glib.h>

int
main (void)
{
  g_autoptr(GError) error = NULL;
  const double values[] = { 1, 2, 3 };
  const gint64 shape[] = { 3 };
  g_autoptr(EpTensor) x = ep_tensor_new_from_doubles (values, 3, shape, 1, EP_DTYPE_FLOAT32, &error);
  g_autoptr(EpTensor) squares = x != NULL ? ep_tensor_square (x, &error) : NULL;
  g_autoptr(EpTensor) total = squares != NULL ? ep_tensor_sum (squares, NULL, 0, FALSE, &error) : NULL;
  g_autoptr(EpTensor) norm = total != NULL ? ep_tensor_sqrt (total, &error) : NULL;
  g_autofree char *text = norm != NULL ? ep_tensor_to_string (norm, &error) : NULL;

  if (error != NULL)
    {
      g_printerr ("program: %s\n", error->message);
      return 1;
    }
  g_print ("C (version %s): %s\n", EP_VERSION_S, text);
  return g_strcmp0 (text, "3.7416575") == 0 ? 0 : 1;
}
