/* norm.c: the L2 norm of [1, 2, 3] by chaining, from C.
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
  g_autoptr(EpTensor) x = NULL;
  g_autoptr(EpTensor) squares = NULL;
  g_autoptr(EpTensor) total = NULL;
  g_autoptr(EpTensor) norm = NULL;
  g_autofree char *text = NULL;

  x = ep_tensor_new_from_doubles (values, 3, shape, 1, EP_DTYPE_FLOAT32, &error);
  if (x != NULL)
    squares = ep_tensor_square (x, &error);
  if (squares != NULL)
    total = ep_tensor_sum (squares, NULL, 0, FALSE, &error);
  if (total != NULL)
    norm = ep_tensor_sqrt (total, &error);
  if (norm != NULL)
    text = ep_tensor_to_string (norm, &error);

  if (error != NULL)
    {
      g_printerr ("norm: %s\n", error->message);
      return 1;
    }

  g_print ("%s\n", text);
  return 0;
}
