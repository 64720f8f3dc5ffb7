/* Run by build-aux/install-check against the installed eager-glib-gtk
 * (pkg-config eager-glib-gtk-1.0): a gray float tensor to a texture and
 * back as uint8 RGBA. */

#include <eager-glib-gtk/eager-glib-gtk.h>

int
main (void)
{
  const gdouble values[2] = { 0.0, 1.0 };
  const gint64 shape[2] = { 1, 2 };
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) t = ep_tensor_new_from_doubles (values, 2, shape, 2, EP_DTYPE_FLOAT32, &error);
  g_autoptr(GdkTexture) texture = t ? ep_gtk_tensor_to_texture (t, &error) : NULL;
  g_autoptr(EpTensor) back = texture ? ep_gtk_tensor_new_from_texture (texture, EP_DTYPE_UINT8, &error) : NULL;
  g_autoptr(GBytes) bytes = back ? ep_tensor_to_bytes (back, &error) : NULL;
  const guint8 *v;

  if (bytes == NULL)
    {
      g_printerr ("gtk: %s\n", error->message);
      return 1;
    }
  v = g_bytes_get_data (bytes, NULL);
  if (g_bytes_get_size (bytes) != 8 || v[0] != 0 || v[3] != 255 || v[4] != 255 || v[7] != 255)
    {
      g_printerr ("gtk: unexpected pixels\n");
      return 1;
    }
  g_print ("C (eager-glib-gtk): 1x2 gray -> texture -> RGBA %u %u\n", v[0], v[4]);
  return 0;
}
