#include <eager-glib/eager-glib.h>

static void
test_norm (void)
{
  g_autoptr(GError) error = NULL;
  const double values[] = { 1, 2, 3 };
  const gint64 shape[] = { 3 };
  g_autoptr(EpTensor) x = ep_tensor_new_from_doubles (values, 3, shape, 1, EP_DTYPE_FLOAT32, &error);
  g_autoptr(EpTensor) s = ep_tensor_square (x, &error);
  g_autoptr(EpTensor) t = ep_tensor_sum (s, NULL, 0, FALSE, &error);
  g_autoptr(EpTensor) n = ep_tensor_sqrt (t, &error);

  g_assert_no_error (error);
  g_assert_cmpfloat_with_epsilon (ep_tensor_item (n, NULL), 3.7416575, 1e-6);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/tensor/norm", test_norm);
  return g_test_run ();
}
