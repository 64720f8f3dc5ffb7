/* ep-gtk-image.h: tensors from and to GdkTexture and GdkPixbuf
 *
 * Copyright 2026 The eager-glib authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#if !defined (EP_GTK_INSIDE) && !defined (EP_GTK_COMPILATION)
# error "Only <eager-glib-gtk/eager-glib-gtk.h> can be included directly."
#endif

#include <eager-glib/eager-glib.h>
#include <gdk/gdk.h>
#include <gdk-pixbuf/gdk-pixbuf.h>

G_BEGIN_DECLS

/**
 * EP_GTK_EXPORT:
 *
 * Marks a symbol as part of the public ABI of eager-glib-gtk.
 */
#define EP_GTK_EXPORT __attribute__((visibility("default"))) extern

EP_GTK_EXPORT
EpTensor   *ep_gtk_tensor_new_from_texture (GdkTexture  *texture,
                                            EpDType      dtype,
                                            GError     **error);
EP_GTK_EXPORT
EpTensor   *ep_gtk_tensor_new_from_pixbuf  (GdkPixbuf   *pixbuf,
                                            EpDType      dtype,
                                            GError     **error);
EP_GTK_EXPORT
GdkTexture *ep_gtk_tensor_to_texture       (EpTensor    *tensor,
                                            GError     **error);

G_END_DECLS
