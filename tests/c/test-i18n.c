/* test-i18n.c: error messages in German. Run with LANGUAGE=de, a German
 * locale (LOCPATH, LC_ALL) and EP_TEST_LOCALEDIR, the catalogs of the
 * build (see po/meson.build).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include <eager-glib/eager-glib.h>

#include <glib/gi18n-lib.h>
#include <locale.h>

static EpTensor *
zeros (gint64 n)
{
  g_autoptr(GError) error = NULL;
  EpTensor *t = ep_zeros (&n, 1, EP_DTYPE_FLOAT32, &error);

  g_assert_no_error (error);
  return t;
}

static void
test_shape_error_in_german (void)
{
  g_autoptr(EpTensor) a = zeros (3);
  g_autoptr(EpTensor) b = zeros (4);
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) c = ep_tensor_add (a, b, &error);

  g_assert_null (c);
  g_assert_error (error, EP_ERROR, EP_ERROR_SHAPE);
  g_assert_cmpstr (error->message, ==,
                   "add: Die Formen (3,) und (4,) lassen sich nicht gegeneinander aufweiten (Broadcasting)");
}

/* A message with a 64-bit format (<PRId64> in the catalog). */
static void
test_int64_format_in_german (void)
{
  g_autoptr(EpTensor) a = zeros (3);
  g_autoptr(GError) error = NULL;
  const gint axis = 0;
  g_autoptr(EpTensor) c = ep_tensor_squeeze (a, &axis, 1, &error);

  g_assert_null (c);
  g_assert_cmpstr (error->message, ==, "squeeze: Achse 0 hat die Ausdehnung 3, nicht 1");
}

/* Numbers print as NumPy prints them, with a point, in any locale. */
static void
test_printing_ignores_the_locale (void)
{
  const double values[] = { 1.5, -2.25 };
  const gint64 shape[] = { 2 };
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) x = ep_tensor_new_from_doubles (values, 2, shape, 1, EP_DTYPE_FLOAT64, &error);
  g_autofree char *text = ep_tensor_to_string (x, &error);
  g_autofree char *repr = ep_tensor_to_repr (x, &error);
  char decimal[8];

  g_snprintf (decimal, sizeof decimal, "%.1f", 0.5);
  g_assert_cmpstr (decimal, ==, "0,5");   /* the locale is German */
  g_assert_cmpstr (text, ==, "[ 1.5  -2.25]");
  g_assert_cmpstr (repr, ==, "Ep.Tensor([ 1.5 , -2.25], dtype=float64)");
}

/* German has its own plurals: one "Dimension", two "Dimensionen". */
static void
test_plurals_in_german (void)
{
  g_autoptr(EpTensor) a = zeros (3);
  g_autoptr(GError) one = NULL;
  g_autoptr(GError) none = NULL;
  g_autoptr(EpTensor) scalar = NULL;
  const gint axis = 2;

  g_assert_null (ep_tensor_sum (a, &axis, 1, FALSE, &one));
  g_assert_cmpstr (one->message, ==, "sum: Achse 2 liegt außerhalb des Bereichs eines Tensors mit 1 Dimension");

  scalar = ep_tensor_new_scalar (1.0, EP_DTYPE_FLOAT32, &none);
  g_assert_no_error (none);
  g_assert_null (ep_tensor_transpose (scalar, &axis, 1, &none));
  g_assert_cmpstr (none->message, ==, "transpose: Ein Tensor mit 0 Dimensionen nimmt 0 Achsen, 1 angegeben");
}

/* Printing reads numbers in the C locale; its errors stay German. */
static void
test_printing_errors_in_german (void)
{
  g_autoptr(EpTensor) a = zeros (3);
  g_autoptr(GError) error = NULL;
  g_autofree char *text = NULL;

  ep_tensor_release (a);
  text = ep_tensor_to_string (a, &error);
  g_assert_null (text);
  g_assert_cmpstr (error->message, ==, "to_string: Der Tensor wurde freigegeben und hat keine Daten mehr");
}

int
main (int argc, char **argv)
{
  const char *localedir = g_getenv ("EP_TEST_LOCALEDIR");

  if (setlocale (LC_ALL, "") == NULL || localedir == NULL)
    {
      g_printerr ("test-i18n: needs a German locale (LC_ALL, LOCPATH) and EP_TEST_LOCALEDIR\n");
      return 1;
    }
  bindtextdomain (GETTEXT_PACKAGE, localedir);

  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/i18n/shape-error", test_shape_error_in_german);
  g_test_add_func ("/i18n/int64-format", test_int64_format_in_german);
  g_test_add_func ("/i18n/printing-ignores-the-locale", test_printing_ignores_the_locale);
  g_test_add_func ("/i18n/plurals", test_plurals_in_german);
  g_test_add_func ("/i18n/printing-errors", test_printing_errors_in_german);
  return g_test_run ();
}
