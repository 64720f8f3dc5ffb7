/* test-gtk-image.c: eager-glib-gtk, tensors from and to textures and pixbufs
 *
 * Copyright 2026 The eager-glib authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * No display is needed: GdkMemoryTexture and GdkPixbuf live in memory.
 * Textures are read back independently of the library with
 * gdk_texture_download() (premultiplied native-endian ARGB32 words), whose
 * colours are exact for opaque pixels.
 */

#include <eager-glib-gtk/eager-glib-gtk.h>
#include <math.h>
#include <string.h>

/* The pixel (x, y) of @texture as straight R, G, B, A; opaque pixels only */
static void
texture_pixel (GdkTexture *texture,
               int         x,
               int         y,
               guint8      rgba[4])
{
  int width = gdk_texture_get_width (texture);
  int height = gdk_texture_get_height (texture);
  g_autofree guint32 *words = g_new (guint32, (gsize) width * height);
  guint32 w;

  gdk_texture_download (texture, (guchar *) words, (gsize) width * 4);
  w = words[(gsize) y * width + x];
  rgba[0] = (w >> 16) & 0xff;
  rgba[1] = (w >> 8) & 0xff;
  rgba[2] = w & 0xff;
  rgba[3] = w >> 24;
}

static EpTensor *
tensor_u8 (const guint8 *data, const gint64 *shape, guint ndim)
{
  gsize n = 1;
  for (guint i = 0; i < ndim; i++)
    n *= shape[i];
  g_autoptr(GError) error = NULL;
  EpTensor *t = ep_tensor_new_from_data (data, n, EP_DTYPE_UINT8, shape, ndim, &error);
  g_assert_no_error (error);
  return t;
}

/* uint8 RGB and RGBA: the texture has the tensor's bytes */
static void
test_to_texture_uint8_rgb_rgba (void)
{
  for (int channels = 3; channels <= 4; channels++)
    {
      const gint64 shape[3] = { 2, 3, channels };
      guint8 data[24];
      g_autoptr(GError) error = NULL;

      for (int i = 0; i < 2 * 3 * channels; i++)
        data[i] = (guint8) (i * 37 + 1);
      if (channels == 4)
        for (int p = 0; p < 6; p++)
          data[p * 4 + 3] = 255;   /* opaque: download is exact */

      g_autoptr(EpTensor) t = tensor_u8 (data, shape, 3);
      g_autoptr(GdkTexture) texture = ep_gtk_tensor_to_texture (t, &error);
      g_assert_no_error (error);
      g_assert_true (GDK_IS_MEMORY_TEXTURE (texture));
      g_assert_cmpint (gdk_texture_get_width (texture), ==, 3);
      g_assert_cmpint (gdk_texture_get_height (texture), ==, 2);
      for (int y = 0; y < 2; y++)
        for (int x = 0; x < 3; x++)
          {
            guint8 rgba[4];
            const guint8 *px = data + (y * 3 + x) * channels;
            texture_pixel (texture, x, y, rgba);
            g_assert_cmpuint (rgba[0], ==, px[0]);
            g_assert_cmpuint (rgba[1], ==, px[1]);
            g_assert_cmpuint (rgba[2], ==, px[2]);
            g_assert_cmpuint (rgba[3], ==, 255);
          }
    }
}

/* gray (H×W and H×W×1) becomes R = G = B */
static void
test_to_texture_gray (void)
{
  const guint8 data[4] = { 0, 1, 128, 255 };
  const gint64 shape2[2] = { 2, 2 }, shape3[3] = { 2, 2, 1 };
  const gint64 *shapes[2] = { shape2, shape3 };

  for (guint k = 0; k < 2; k++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(EpTensor) t = tensor_u8 (data, shapes[k], 2 + k);
      g_autoptr(GdkTexture) texture = ep_gtk_tensor_to_texture (t, &error);
      g_assert_no_error (error);
      for (int p = 0; p < 4; p++)
        {
          guint8 rgba[4];
          texture_pixel (texture, p % 2, p / 2, rgba);
          g_assert_cmpuint (rgba[0], ==, data[p]);
          g_assert_cmpuint (rgba[1], ==, data[p]);
          g_assert_cmpuint (rgba[2], ==, data[p]);
          g_assert_cmpuint (rgba[3], ==, 255);
        }
    }
}

/* float32 and float64 in [0, 1]: scaled, rounded, clamped, NaN is 0 */
static void
test_to_texture_float_edges (void)
{
  const gdouble values[8] = { 0.0, 1.0, 0.5, -0.25, 7.0, NAN, INFINITY, 1.0 / 255 };
  const guint8 expected[8] = { 0, 255, 128, 0, 255, 0, 255, 1 };
  const gint64 shape[2] = { 2, 4 };

  for (EpDType dtype = EP_DTYPE_FLOAT32; dtype <= EP_DTYPE_FLOAT64; dtype++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(EpTensor) t = ep_tensor_new_from_doubles (values, 8, shape, 2, dtype, &error);
      g_assert_no_error (error);
      g_autoptr(GdkTexture) texture = ep_gtk_tensor_to_texture (t, &error);
      g_assert_no_error (error);
      for (int p = 0; p < 8; p++)
        {
          guint8 rgba[4];
          texture_pixel (texture, p % 4, p / 4, rgba);
          g_assert_cmpuint (rgba[0], ==, expected[p]);
        }
    }
}

/* a view (transposed: not contiguous) is read in its logical order */
static void
test_to_texture_view (void)
{
  const guint8 data[6] = { 10, 20, 30, 40, 50, 60 };
  const gint64 shape[3] = { 3, 2, 1 };
  const gint axes[3] = { 1, 0, 2 };
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) t = tensor_u8 (data, shape, 3);
  g_autoptr(EpTensor) tt = ep_tensor_transpose (t, axes, 3, &error);
  g_assert_no_error (error);
  g_autoptr(GdkTexture) texture = ep_gtk_tensor_to_texture (tt, &error);
  g_assert_no_error (error);
  g_assert_cmpint (gdk_texture_get_width (texture), ==, 3);
  guint8 rgba[4];
  texture_pixel (texture, 1, 0, rgba);   /* tt[0, 1] = t[1, 0] */
  g_assert_cmpuint (rgba[0], ==, 30);
  texture_pixel (texture, 2, 1, rgba);   /* tt[1, 2] = t[2, 1] */
  g_assert_cmpuint (rgba[0], ==, 60);
}

static void
assert_to_texture_fails (EpTensor *t, gint code)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GdkTexture) texture = ep_gtk_tensor_to_texture (t, &error);
  g_assert_null (texture);
  g_assert_error (error, EP_ERROR, code);
  g_assert_true (g_str_has_prefix (error->message, "to_texture: "));
}

static void
test_to_texture_errors (void)
{
  g_autoptr(GError) error = NULL;
  const gint64 s1[1] = { 4 }, s2c[3] = { 2, 2, 2 }, s5[3] = { 1, 1, 5 }, s4d[4] = { 1, 1, 1, 3 };
  const gint64 empty_h[3] = { 0, 4, 3 }, empty_w[2] = { 4, 0 };
  const gint64 shape[2] = { 2, 2 };
  const gdouble zeros[16] = { 0 };

  /* shapes: rank 1, rank 4, 2 or 5 channels, empty */
  const gint64 *bad_shapes[] = { s1, s4d, s2c, s5, empty_h, empty_w };
  const guint bad_ndims[] = { 1, 4, 3, 3, 3, 2 };
  for (guint k = 0; k < G_N_ELEMENTS (bad_shapes); k++)
    {
      g_autoptr(EpTensor) t = ep_zeros (bad_shapes[k], bad_ndims[k], EP_DTYPE_FLOAT32, &error);
      g_assert_no_error (error);
      assert_to_texture_fails (t, EP_ERROR_SHAPE);
    }

  /* element types: int32, int64, bool */
  const EpDType bad_dtypes[] = { EP_DTYPE_INT32, EP_DTYPE_INT64, EP_DTYPE_BOOL };
  for (guint k = 0; k < G_N_ELEMENTS (bad_dtypes); k++)
    {
      g_autoptr(EpTensor) t = ep_tensor_new_from_doubles (zeros, 4, shape, 2, bad_dtypes[k], &error);
      g_assert_no_error (error);
      assert_to_texture_fails (t, EP_ERROR_DTYPE);
    }

  /* wider than a texture can be: a broadcast view of one element */
  {
    const gint64 one[3] = { 1, 1, 3 }, huge[3] = { 2, (gint64) G_MAXINT + 1, 3 };
    const guint8 zero3[3] = { 0 };
    g_autoptr(EpTensor) t = tensor_u8 (zero3, one, 3);
    g_assert_no_error (error);
    g_autoptr(EpTensor) big = ep_tensor_broadcast_to (t, huge, 3, &error);
    g_assert_no_error (error);
    assert_to_texture_fails (big, EP_ERROR_SHAPE);
  }

  /* H × W × C bytes beyond the address space: 2^31-1 squared × 4 float64 */
  {
    const gint64 one[3] = { 1, 1, 4 }, huge[3] = { G_MAXINT, G_MAXINT, 4 };
    g_autoptr(EpTensor) t = ep_zeros (one, 3, EP_DTYPE_FLOAT64, &error);
    g_assert_no_error (error);
    g_autoptr(EpTensor) big = ep_tensor_broadcast_to (t, huge, 3, &error);
    g_assert_no_error (error);
    assert_to_texture_fails (big, EP_ERROR_OUT_OF_MEMORY);
  }

  /* a released tensor */
  {
    const guint8 zero4[4] = { 0 };
    g_autoptr(EpTensor) t = tensor_u8 (zero4, shape, 2);
    ep_tensor_release (t);
    assert_to_texture_fails (t, EP_ERROR_INVALID_ARGUMENT);
  }
}

/* textures in: RGBA of every dtype, values exact for opaque pixels */
static void
test_from_texture (void)
{
  guint8 data[2 * 3 * 4];
  for (int i = 0; i < 24; i++)
    data[i] = (i % 4 == 3) ? 255 : (guint8) (i * 11);
  data[0] = 0;
  data[1] = 255;
  g_autoptr(GBytes) bytes = g_bytes_new (data, sizeof data);
  g_autoptr(GdkTexture) texture = gdk_memory_texture_new (3, 2, GDK_MEMORY_R8G8B8A8, bytes, 12);
  g_autoptr(GError) error = NULL;

  g_autoptr(EpTensor) u8 = ep_gtk_tensor_new_from_texture (texture, EP_DTYPE_UINT8, &error);
  g_assert_no_error (error);
  guint ndim;
  const gint64 *shape = ep_tensor_get_shape (u8, &ndim);
  g_assert_cmpuint (ndim, ==, 3);
  g_assert_cmpint (shape[0], ==, 2);
  g_assert_cmpint (shape[1], ==, 3);
  g_assert_cmpint (shape[2], ==, 4);
  g_assert_cmpint (ep_tensor_get_dtype (u8), ==, EP_DTYPE_UINT8);
  g_autoptr(GBytes) out = ep_tensor_to_bytes (u8, &error);
  g_assert_no_error (error);
  g_assert_cmpmem (g_bytes_get_data (out, NULL), g_bytes_get_size (out), data, sizeof data);

  for (EpDType dtype = EP_DTYPE_FLOAT32; dtype <= EP_DTYPE_FLOAT64; dtype++)
    {
      g_autoptr(EpTensor) f = ep_gtk_tensor_new_from_texture (texture, dtype, &error);
      g_assert_no_error (error);
      g_assert_cmpint (ep_tensor_get_dtype (f), ==, dtype);
      g_autoptr(EpTensor) f64 = ep_tensor_float64 (f, &error);
      g_assert_no_error (error);
      g_autoptr(GBytes) fb = ep_tensor_to_bytes (f64, &error);
      g_assert_no_error (error);
      const gdouble *v = g_bytes_get_data (fb, NULL);
      for (int i = 0; i < 24; i++)
        g_assert_cmpfloat_with_epsilon (v[i], data[i] / 255.0, 1e-7);
      g_assert_cmpfloat (v[0], ==, 0.0);
      g_assert_cmpfloat (v[1], ==, 1.0);
    }
}

/* translucent pixels: straight alpha back, within premultiplication's
 * precision (exact from GTK 4.10, where no premultiplied copy is made) */
static void
test_from_texture_translucent (void)
{
  const guint8 data[12] = { 200, 100, 50, 128,   10, 20, 30, 0,   255, 255, 255, 255 };
  g_autoptr(GBytes) bytes = g_bytes_new (data, sizeof data);
  g_autoptr(GdkTexture) texture = gdk_memory_texture_new (3, 1, GDK_MEMORY_R8G8B8A8, bytes, 12);
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) t = ep_gtk_tensor_new_from_texture (texture, EP_DTYPE_UINT8, &error);
  g_assert_no_error (error);
  g_autoptr(GBytes) out = ep_tensor_to_bytes (t, &error);
  const guint8 *v = g_bytes_get_data (out, NULL);

  g_assert_cmpuint (v[3], ==, 128);
  for (int c = 0; c < 3; c++)
    g_assert_cmpint (ABS ((int) v[c] - data[c]), <=, 1);
  g_assert_cmpuint (v[7], ==, 0);   /* transparent */
  for (int c = 8; c < 12; c++)
    g_assert_cmpuint (v[c], ==, 255);
}

/* tensor → texture → tensor: each channel count and dtype */
static void
test_round_trip (void)
{
  for (int channels = 1; channels <= 4; channels++)
    {
      if (channels == 2)
        continue;
      for (EpDType dtype = EP_DTYPE_FLOAT32; dtype <= EP_DTYPE_UINT8; dtype++)
        {
          if (dtype == EP_DTYPE_INT32 || dtype == EP_DTYPE_INT64 || dtype == EP_DTYPE_BOOL)
            continue;
          const gint64 shape[3] = { 5, 7, channels };
          gdouble values[5 * 7 * 4];
          for (int i = 0; i < 5 * 7 * channels; i++)
            values[i] = (channels == 4 && i % 4 == 3) ? 255 : (i * 29) % 256;
          if (dtype != EP_DTYPE_UINT8)
            for (int i = 0; i < 5 * 7 * channels; i++)
              values[i] /= 255.0;
          g_autoptr(GError) error = NULL;
          g_autoptr(EpTensor) t = ep_tensor_new_from_doubles (values, 5 * 7 * channels, shape, 3,
                                                              dtype, &error);
          g_assert_no_error (error);
          g_autoptr(GdkTexture) texture = ep_gtk_tensor_to_texture (t, &error);
          g_assert_no_error (error);
          g_autoptr(EpTensor) back = ep_gtk_tensor_new_from_texture (texture, dtype, &error);
          g_assert_no_error (error);
          g_autoptr(EpTensor) back64 = ep_tensor_float64 (back, &error);
          g_assert_no_error (error);
          g_autoptr(GBytes) b = ep_tensor_to_bytes (back64, &error);
          const gdouble *v = g_bytes_get_data (b, NULL);
          for (int p = 0; p < 35; p++)
            for (int c = 0; c < 4; c++)
              {
                gdouble want = c < 3 ? values[p * channels + (channels == 1 ? 0 : c)]
                                     : (channels == 4 ? values[p * 4 + 3]
                                                      : (dtype == EP_DTYPE_UINT8 ? 255 : 1.0));
                g_assert_cmpfloat_with_epsilon (v[p * 4 + c], want, 1e-6);
              }
        }
    }
}

/* pixbufs: RGB and RGBA, rows with padding, a last row without it */
static void
test_from_pixbuf (void)
{
  for (int alpha = 0; alpha <= 1; alpha++)
    {
      int channels = alpha ? 4 : 3;
      g_autoptr(GdkPixbuf) pixbuf = gdk_pixbuf_new (GDK_COLORSPACE_RGB, alpha, 8, 5, 3);
      int rowstride = gdk_pixbuf_get_rowstride (pixbuf);
      guint8 *pixels = gdk_pixbuf_get_pixels (pixbuf);
      g_autoptr(GError) error = NULL;

      if (!alpha)
        g_assert_cmpint (rowstride, >, 5 * 3);   /* 15 bytes, padded to 16 */
      for (int y = 0; y < 3; y++)
        for (int i = 0; i < 5 * channels; i++)
          pixels[y * rowstride + i] = (guint8) (y * 50 + i * 3 + (i == 0 ? 0 : 1));
      pixels[0] = 0;
      pixels[2 * rowstride + 5 * channels - 1] = 255;

      g_autoptr(EpTensor) u8 = ep_gtk_tensor_new_from_pixbuf (pixbuf, EP_DTYPE_UINT8, &error);
      g_assert_no_error (error);
      g_autoptr(EpTensor) f = ep_gtk_tensor_new_from_pixbuf (pixbuf, EP_DTYPE_FLOAT32, &error);
      g_assert_no_error (error);
      guint ndim;
      const gint64 *shape = ep_tensor_get_shape (u8, &ndim);
      g_assert_cmpuint (ndim, ==, 3);
      g_assert_cmpint (shape[0], ==, 3);
      g_assert_cmpint (shape[1], ==, 5);
      g_assert_cmpint (shape[2], ==, channels);
      g_autoptr(GBytes) ub = ep_tensor_to_bytes (u8, &error);
      g_autoptr(GBytes) fb = ep_tensor_to_bytes (f, &error);
      const guint8 *u = g_bytes_get_data (ub, NULL);
      const gfloat *fv = g_bytes_get_data (fb, NULL);
      for (int y = 0; y < 3; y++)
        for (int i = 0; i < 5 * channels; i++)
          {
            guint8 want = pixels[y * rowstride + i];
            g_assert_cmpuint (u[y * 5 * channels + i], ==, want);
            g_assert_cmpfloat (fv[y * 5 * channels + i], ==, want / 255.0f);
          }
    }
}

/* the tensor is a copy: writing the pixbuf afterwards leaves it alone */
static void
test_from_pixbuf_copies (void)
{
  g_autoptr(GdkPixbuf) pixbuf = gdk_pixbuf_new (GDK_COLORSPACE_RGB, TRUE, 8, 2, 2);
  g_autoptr(GError) error = NULL;

  gdk_pixbuf_fill (pixbuf, 0x01020304);
  g_autoptr(EpTensor) t = ep_gtk_tensor_new_from_pixbuf (pixbuf, EP_DTYPE_UINT8, &error);
  g_assert_no_error (error);
  gdk_pixbuf_get_pixels (pixbuf)[0] = 200;
  g_autoptr(GBytes) b = ep_tensor_to_bytes (t, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (((const guint8 *) g_bytes_get_data (b, NULL))[0], ==, 1);
}

static void
test_from_errors (void)
{
  g_autoptr(GdkPixbuf) pixbuf = gdk_pixbuf_new (GDK_COLORSPACE_RGB, FALSE, 8, 2, 2);
  g_autoptr(GBytes) bytes = g_bytes_new_static ("abcdefghijklmnop", 16);
  g_autoptr(GdkTexture) texture = gdk_memory_texture_new (2, 2, GDK_MEMORY_R8G8B8A8, bytes, 8);
  const EpDType bad[] = { EP_DTYPE_INT32, EP_DTYPE_INT64, EP_DTYPE_BOOL };

  for (guint k = 0; k < G_N_ELEMENTS (bad); k++)
    {
      g_autoptr(GError) e1 = NULL, e2 = NULL;
      g_assert_null (ep_gtk_tensor_new_from_pixbuf (pixbuf, bad[k], &e1));
      g_assert_error (e1, EP_ERROR, EP_ERROR_DTYPE);
      g_assert_true (g_str_has_prefix (e1->message, "new_from_pixbuf: "));
      g_assert_null (ep_gtk_tensor_new_from_texture (texture, bad[k], &e2));
      g_assert_error (e2, EP_ERROR, EP_ERROR_DTYPE);
      g_assert_true (g_str_has_prefix (e2->message, "new_from_texture: "));
    }
}

/* a tensor on the OpenCL device is read to the CPU once */
static void
test_to_texture_opencl (void)
{
  EpDevice *device = ep_device_get ("opencl:0", NULL);
  if (device == NULL)
    {
      g_test_skip ("no OpenCL device");
      return;
    }
  const guint8 data[6] = { 1, 2, 3, 250, 251, 252 };
  const gint64 shape[3] = { 1, 2, 3 };
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) t = tensor_u8 (data, shape, 3);
  g_autoptr(EpTensor) on_cl = ep_tensor_to_device (t, device, &error);
  g_assert_no_error (error);
  g_autoptr(GdkTexture) texture = ep_gtk_tensor_to_texture (on_cl, &error);
  g_assert_no_error (error);
  guint8 rgba[4];
  texture_pixel (texture, 1, 0, rgba);
  g_assert_cmpuint (rgba[0], ==, 250);
  g_assert_cmpuint (rgba[2], ==, 252);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/gtk/to-texture/uint8-rgb-rgba", test_to_texture_uint8_rgb_rgba);
  g_test_add_func ("/gtk/to-texture/gray", test_to_texture_gray);
  g_test_add_func ("/gtk/to-texture/float-edges", test_to_texture_float_edges);
  g_test_add_func ("/gtk/to-texture/view", test_to_texture_view);
  g_test_add_func ("/gtk/to-texture/errors", test_to_texture_errors);
  g_test_add_func ("/gtk/to-texture/opencl", test_to_texture_opencl);
  g_test_add_func ("/gtk/from-texture/values", test_from_texture);
  g_test_add_func ("/gtk/from-texture/translucent", test_from_texture_translucent);
  g_test_add_func ("/gtk/from-pixbuf/rowstride", test_from_pixbuf);
  g_test_add_func ("/gtk/from-pixbuf/copies", test_from_pixbuf_copies);
  g_test_add_func ("/gtk/from/errors", test_from_errors);
  g_test_add_func ("/gtk/round-trip", test_round_trip);
  return g_test_run ();
}
