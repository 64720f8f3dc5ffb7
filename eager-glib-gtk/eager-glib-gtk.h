/* eager-glib-gtk.h: images in and out of eager-glib (GdkTexture, GdkPixbuf)
 *
 * Copyright 2026 The eager-glib authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#define EP_GTK_INSIDE
#include "ep-gtk-image.h"
#undef EP_GTK_INSIDE
