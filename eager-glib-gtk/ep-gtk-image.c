/* ep-gtk-image.c: tensors from and to GdkTexture and GdkPixbuf
 *
 * Copyright 2026 The eager-glib authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Images are height × width × channels (HWC) tensors in C order, the
 * layout of GdkMemoryTexture and GdkPixbuf rows, so that a contiguous
 * uint8 tensor on the CPU becomes a texture without a copy and a pixbuf
 * without row padding becomes a tensor without one. Everything else is
 * one pass over the pixels. No display is needed: nothing here renders.
 */

#include <glib/gi18n-lib.h>
#include <math.h>

#include <gtk/gtk.h>   /* GTK_CHECK_VERSION */

#include "eager-glib-gtk.h"

/* "[2, 3, 5]" */
static char *
shape_to_string (const gint64 *shape,
                 guint         ndim)
{
  GString *s = g_string_new ("[");

  for (guint i = 0; i < ndim; i++)
    g_string_append_printf (s, "%s%" G_GINT64_FORMAT, i ? ", " : "", shape[i]);
  g_string_append_c (s, ']');
  return g_string_free (s, FALSE);
}

/* The element types an image converts to and from */
static gboolean
check_pixel_dtype (EpDType      dtype,
                   const char  *call,
                   GError     **error)
{
  if (dtype == EP_DTYPE_UINT8 || dtype == EP_DTYPE_FLOAT32 || dtype == EP_DTYPE_FLOAT64)
    return TRUE;

  g_set_error (error, EP_ERROR, EP_ERROR_DTYPE,
               _("%s: images are uint8, float32 or float64 tensors, not %s"),
               call, ep_dtype_get_name (dtype));
  return FALSE;
}

/* height × width × channels elements of @itemsize bytes, or an error
 * when that does not fit in memory's addresses */
static gboolean
image_nbytes (gint64       height,
              gint64       width,
              gint64       channels,
              gsize        itemsize,
              gsize       *nbytes,
              const char  *call,
              GError     **error)
{
  gsize n = 1;

  if (!g_size_checked_mul (&n, (gsize) height, (gsize) width)
      || !g_size_checked_mul (&n, n, (gsize) channels)
      || !g_size_checked_mul (&n, n, itemsize)
      || n > G_MAXSSIZE)
    {
      const gint64 shape[3] = { height, width, channels };
      g_autofree char *shape_str = shape_to_string (shape, 3);
      g_set_error (error, EP_ERROR, EP_ERROR_OUT_OF_MEMORY,
                   _("%s: an image of shape %s is too large"), call, shape_str);
      return FALSE;
    }
  *nbytes = n;
  return TRUE;
}

static gpointer
try_alloc_image (gsize        nbytes,
                 const char  *call,
                 GError     **error)
{
  gpointer data = g_try_malloc (MAX (nbytes, 1));

  if (data == NULL)
    g_set_error (error, EP_ERROR, EP_ERROR_OUT_OF_MEMORY,
                 _("%s: cannot allocate %zu bytes"), call, nbytes);
  return data;
}

/* Rows of 8-bit straight-alpha pixels (@channels per pixel, rows
 * @rowstride bytes apart) to a height × width × channels tensor of
 * @dtype: one pass. */
static EpTensor *
tensor_from_rows (const guint8  *pixels,
                  gsize          rowstride,
                  int            width,
                  int            height,
                  int            channels,
                  EpDType        dtype,
                  const char    *call,
                  GError       **error)
{
  const gint64 shape[3] = { height, width, channels };
  gsize itemsize = ep_dtype_get_itemsize (dtype);
  gsize row_len = (gsize) width * channels;
  gsize nbytes;
  gpointer data;

  if (!image_nbytes (height, width, channels, itemsize, &nbytes, call, error))
    return NULL;
  data = try_alloc_image (nbytes, call, error);
  if (data == NULL)
    return NULL;

  for (int y = 0; y < height; y++)
    {
      const guint8 *src = pixels + (gsize) y * rowstride;

      switch (dtype)
        {
        case EP_DTYPE_UINT8:
          memcpy ((guint8 *) data + y * row_len, src, row_len);
          break;
        case EP_DTYPE_FLOAT32:
          {
            gfloat *dst = (gfloat *) data + y * row_len;
            for (gsize i = 0; i < row_len; i++)
              dst[i] = src[i] / 255.0f;
          }
          break;
        case EP_DTYPE_FLOAT64:
          {
            gdouble *dst = (gdouble *) data + y * row_len;
            for (gsize i = 0; i < row_len; i++)
              dst[i] = src[i] / 255.0;
          }
          break;
        default:
          g_assert_not_reached ();
        }
    }

  g_autoptr(GBytes) bytes = g_bytes_new_take (data, nbytes);
  return ep_tensor_new_from_bytes (bytes, dtype, shape, 3, error);
}

/* The straight-alpha RGBA bytes of @texture, rows *@stride apart */
static GBytes *
download_rgba (GdkTexture   *texture,
               gsize        *stride,
               const char   *call,
               GError      **error)
{
  int width = gdk_texture_get_width (texture);
  int height = gdk_texture_get_height (texture);
  gsize nbytes;

  if (!image_nbytes (height, width, 4, 1, &nbytes, call, error))
    return NULL;

#if GTK_CHECK_VERSION (4, 10, 0)
  {
    g_autoptr(GdkTextureDownloader) downloader = gdk_texture_downloader_new (texture);

    gdk_texture_downloader_set_format (downloader, GDK_MEMORY_R8G8B8A8);
    return gdk_texture_downloader_download_bytes (downloader, stride);
  }
#else
  {
    /* GTK 4.8 downloads CAIRO_FORMAT_ARGB32 only: native-endian 32-bit
     * 0xAARRGGBB words, premultiplied by alpha. Undone here, rounding to
     * the nearest; the colour of a fully transparent pixel is lost (0). */
    guint8 *data = try_alloc_image (nbytes, call, error);

    if (data == NULL)
      return NULL;
    gdk_texture_download (texture, data, (gsize) width * 4);
    for (gsize i = 0; i < nbytes; i += 4)
      {
        guint32 word;
        guint a, r, g, b;

        memcpy (&word, data + i, 4);
        a = word >> 24;
        r = (word >> 16) & 0xff;
        g = (word >> 8) & 0xff;
        b = word & 0xff;
        if (a != 0 && a != 255)
          {
            r = MIN (255, (r * 255 + a / 2) / a);
            g = MIN (255, (g * 255 + a / 2) / a);
            b = MIN (255, (b * 255 + a / 2) / a);
          }
        else if (a == 0)
          r = g = b = 0;
        data[i] = r;
        data[i + 1] = g;
        data[i + 2] = b;
        data[i + 3] = a;
      }
    *stride = (gsize) width * 4;
    return g_bytes_new_take (data, nbytes);
  }
#endif
}

/**
 * ep_gtk_tensor_new_from_texture:
 * @texture: a texture
 * @dtype: the element type of the tensor: %EP_DTYPE_UINT8 (the values of
 *   the pixels, 0 to 255), %EP_DTYPE_FLOAT32 or %EP_DTYPE_FLOAT64 (scaled
 *   to [0, 1])
 * @error: return location for an error
 *
 * Creates a height × width × 4 tensor (RGBA, straight alpha: colours not
 * multiplied by alpha) on the CPU from the pixels of @texture.
 *
 * With GTK older than 4.10 a texture is read premultiplied (the only
 * format gdk_texture_download() gives), and the colour of a translucent
 * pixel comes back within the precision of that premultiplication; the
 * colour of a fully transparent pixel is 0.
 *
 * Returns: (transfer full): the new tensor, or %NULL with %EP_ERROR_DTYPE
 *   (another @dtype) or %EP_ERROR_OUT_OF_MEMORY set
 */
EpTensor *
ep_gtk_tensor_new_from_texture (GdkTexture  *texture,
                                EpDType      dtype,
                                GError     **error)
{
  const char *call = "new_from_texture";
  g_autoptr(GBytes) bytes = NULL;
  gsize stride = 0;
  int width, height;

  g_return_val_if_fail (GDK_IS_TEXTURE (texture), NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (!check_pixel_dtype (dtype, call, error))
    return NULL;
  width = gdk_texture_get_width (texture);
  height = gdk_texture_get_height (texture);
  bytes = download_rgba (texture, &stride, call, error);
  if (bytes == NULL)
    return NULL;

  /* the downloaded bytes are the tensor's when they have no padding */
  if (dtype == EP_DTYPE_UINT8 && stride == (gsize) width * 4)
    {
      const gint64 shape[3] = { height, width, 4 };
      return ep_tensor_new_from_bytes (bytes, dtype, shape, 3, error);
    }
  return tensor_from_rows (g_bytes_get_data (bytes, NULL), stride, width, height, 4,
                           dtype, call, error);
}

/**
 * ep_gtk_tensor_new_from_pixbuf:
 * @pixbuf: a pixbuf (RGB or RGBA, 8 bits per sample: all GdkPixbufs are)
 * @dtype: the element type of the tensor: %EP_DTYPE_UINT8 (the values of
 *   the samples, 0 to 255), %EP_DTYPE_FLOAT32 or %EP_DTYPE_FLOAT64 (scaled
 *   to [0, 1])
 * @error: return location for an error
 *
 * Creates a height × width × channels tensor on the CPU from the pixels of
 * the pixbuf, with 3 channels (RGB) or 4 (RGBA, straight alpha) as it
 * has; the padding at the end of its rows is left out. The pixels are
 * copied (the pixbuf's owner may still write them).
 *
 * Returns: (transfer full): the new tensor, or %NULL with %EP_ERROR_DTYPE
 *   (another @dtype, or a pixbuf of other than 8 bits per sample) or
 *   %EP_ERROR_OUT_OF_MEMORY set
 */
EpTensor *
ep_gtk_tensor_new_from_pixbuf (GdkPixbuf  *pixbuf,
                               EpDType     dtype,
                               GError    **error)
{
  const char *call = "new_from_pixbuf";
  int width, height, channels, rowstride;

  g_return_val_if_fail (GDK_IS_PIXBUF (pixbuf), NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (!check_pixel_dtype (dtype, call, error))
    return NULL;
  if (gdk_pixbuf_get_bits_per_sample (pixbuf) != 8
      || gdk_pixbuf_get_colorspace (pixbuf) != GDK_COLORSPACE_RGB)
    {
      g_set_error (error, EP_ERROR, EP_ERROR_DTYPE,
                   _("%s: the pixbuf has %d bits per sample; only 8-bit RGB pixbufs are read"),
                   call, gdk_pixbuf_get_bits_per_sample (pixbuf));
      return NULL;
    }

  width = gdk_pixbuf_get_width (pixbuf);
  height = gdk_pixbuf_get_height (pixbuf);
  channels = gdk_pixbuf_get_n_channels (pixbuf);
  rowstride = gdk_pixbuf_get_rowstride (pixbuf);

  /* always a copy: the pixels of a pixbuf stay writable by its owner
   * (gdk_pixbuf_get_pixels()), and a tensor does not change */
  return tensor_from_rows (gdk_pixbuf_read_pixels (pixbuf), rowstride, width, height,
                           channels, dtype, call, error);
}

/* A float in [0, 1] to 0..255: clamped, NaN to 0, rounded to the nearest */
static inline guint8
unit_to_byte (gdouble v)
{
  if (!(v > 0.0))   /* NaN too */
    return 0;
  if (v >= 1.0)
    return 255;
  return (guint8) (v * 255.0 + 0.5);
}

/**
 * ep_gtk_tensor_to_texture:
 * @tensor: a height × width (gray), height × width × 1 (gray),
 *   height × width × 3 (RGB) or height × width × 4 (RGBA, straight alpha)
 *   tensor of uint8 (0 to 255), float32 or float64 (0 to 1: clamped,
 *   NaN is 0), on any device
 * @error: return location for an error
 *
 * Creates a texture (a #GdkMemoryTexture) with the pixels of @tensor. A
 * contiguous uint8 RGB or RGBA tensor on the CPU is shared, not copied;
 * a tensor on another device is read to the CPU once; gray becomes RGB.
 *
 * Returns: (transfer full): the texture, or %NULL with %EP_ERROR_SHAPE
 *   (another shape, or an empty or too large image), %EP_ERROR_DTYPE,
 *   %EP_ERROR_INVALID_ARGUMENT (a released tensor),
 *   %EP_ERROR_OUT_OF_MEMORY or the device's error set
 */
GdkTexture *
ep_gtk_tensor_to_texture (EpTensor  *tensor,
                          GError   **error)
{
  const char *call = "to_texture";
  g_autoptr(GBytes) bytes = NULL;
  const gint64 *shape;
  guint ndim;
  gint64 height, width, channels;
  EpDType dtype;
  gsize n_pixels, out_channels, nbytes;
  guint8 *out;
  GdkMemoryFormat format;

  g_return_val_if_fail (EP_IS_TENSOR (tensor), NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (ep_tensor_is_released (tensor))
    {
      g_set_error (error, EP_ERROR, EP_ERROR_INVALID_ARGUMENT,
                   _("%s: the tensor was released and has no data"), call);
      return NULL;
    }

  shape = ep_tensor_get_shape (tensor, &ndim);
  channels = ndim == 3 ? shape[2] : 1;
  if ((ndim != 2 && ndim != 3) || (channels != 1 && channels != 3 && channels != 4))
    {
      g_autofree char *shape_str = shape_to_string (shape, ndim);
      g_set_error (error, EP_ERROR, EP_ERROR_SHAPE,
                   _("%s: an image is height × width, or height × width × 1, 3 or 4 "
                     "channels, not %s"),
                   call, shape_str);
      return NULL;
    }
  height = shape[0];
  width = shape[1];
  if (height == 0 || width == 0 || height > G_MAXINT || width > G_MAXINT)
    {
      g_autofree char *shape_str = shape_to_string (shape, ndim);
      g_set_error (error, EP_ERROR, EP_ERROR_SHAPE,
                   _("%s: a texture is 1 to %d pixels high and wide, not %s"),
                   call, G_MAXINT, shape_str);
      return NULL;
    }
  dtype = ep_tensor_get_dtype (tensor);
  if (!check_pixel_dtype (dtype, call, error))
    return NULL;
  out_channels = channels == 1 ? 3 : channels;
  /* the texture's bytes, and the tensor's as float64 */
  if (!image_nbytes (height, width, out_channels, 1, &nbytes, call, error)
      || !image_nbytes (height, width, channels, ep_dtype_get_itemsize (dtype), &n_pixels,
                        call, error))
    return NULL;
  n_pixels = (gsize) height * width;
  format = channels == 4 ? GDK_MEMORY_R8G8B8A8 : GDK_MEMORY_R8G8B8;

  bytes = ep_tensor_to_bytes (tensor, error);
  if (bytes == NULL)
    return NULL;

  /* uint8 RGB or RGBA: the tensor's bytes are the texture's */
  if (dtype == EP_DTYPE_UINT8 && channels != 1)
    return gdk_memory_texture_new (width, height, format, bytes, width * out_channels);

  out = try_alloc_image (nbytes, call, error);
  if (out == NULL)
    return NULL;

  switch (dtype)
    {
    case EP_DTYPE_UINT8:   /* gray */
      {
        const guint8 *src = g_bytes_get_data (bytes, NULL);
        for (gsize p = 0; p < n_pixels; p++)
          out[3 * p] = out[3 * p + 1] = out[3 * p + 2] = src[p];
      }
      break;
    case EP_DTYPE_FLOAT32:
      {
        const gfloat *src = g_bytes_get_data (bytes, NULL);
        if (channels == 1)
          for (gsize p = 0; p < n_pixels; p++)
            out[3 * p] = out[3 * p + 1] = out[3 * p + 2] = unit_to_byte (src[p]);
        else
          for (gsize i = 0; i < nbytes; i++)
            out[i] = unit_to_byte (src[i]);
      }
      break;
    case EP_DTYPE_FLOAT64:
      {
        const gdouble *src = g_bytes_get_data (bytes, NULL);
        if (channels == 1)
          for (gsize p = 0; p < n_pixels; p++)
            out[3 * p] = out[3 * p + 1] = out[3 * p + 2] = unit_to_byte (src[p]);
        else
          for (gsize i = 0; i < nbytes; i++)
            out[i] = unit_to_byte (src[i]);
      }
      break;
    default:
      g_assert_not_reached ();
    }

  g_autoptr(GBytes) out_bytes = g_bytes_new_take (out, nbytes);
  return gdk_memory_texture_new (width, height, format, out_bytes, width * out_channels);
}
