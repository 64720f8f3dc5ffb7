/* ep-device.h
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#if !defined(EP_INSIDE) && !defined(EP_COMPILATION)
# error "Only <eager-glib/eager-glib.h> can be included directly."
#endif

#include <glib-object.h>

#include "ep-types.h"

G_BEGIN_DECLS

#define EP_TYPE_DEVICE (ep_device_get_type ())

EP_EXPORT
G_DECLARE_FINAL_TYPE (EpDevice, ep_device, EP, DEVICE, GObject)

EP_EXPORT
GPtrArray   *ep_list_devices             (void);
EP_EXPORT
EpDevice    *ep_device_get               (const char  *name,
                                          GError     **error);
EP_EXPORT
EpDevice    *ep_device_get_default       (void);
EP_EXPORT
EpDevice    *ep_device_get_current       (void);
EP_EXPORT
gboolean     ep_device_push              (EpDevice    *self,
                                          GError     **error);
EP_EXPORT
gboolean     ep_device_pop               (EpDevice    *self,
                                          GError     **error);

EP_EXPORT
const char  *ep_device_get_name          (EpDevice    *self);
EP_EXPORT
const char  *ep_device_get_kind          (EpDevice    *self);
EP_EXPORT
const char  *ep_device_get_description   (EpDevice    *self);
EP_EXPORT
guint64      ep_device_get_memory_size   (EpDevice    *self);
EP_EXPORT
const char  *ep_device_get_vendor        (EpDevice    *self);
EP_EXPORT
gboolean     ep_device_supports_dtype    (EpDevice    *self,
                                          EpDType      dtype);
EP_EXPORT
gboolean     ep_device_synchronize       (EpDevice    *self,
                                          GError     **error);
EP_EXPORT
const char  *ep_device_get_unavailable_reason (const char *kind);

G_END_DECLS
