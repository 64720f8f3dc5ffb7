/* ep-device-list.h: the devices as a GListModel
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#if !defined(EP_INSIDE) && !defined(EP_COMPILATION)
# error "Only <eager-glib/eager-glib.h> can be included directly."
#endif

#include <gio/gio.h>

#include "ep-device.h"

G_BEGIN_DECLS

#define EP_TYPE_DEVICE_LIST (ep_device_list_get_type ())

EP_EXPORT
G_DECLARE_FINAL_TYPE (EpDeviceList, ep_device_list, EP, DEVICE_LIST, GObject)

EP_EXPORT
EpDeviceList *ep_device_list_get_default        (void);
EP_EXPORT
EpDevice     *ep_device_list_get_current_device (EpDeviceList *self);
EP_EXPORT
guint         ep_device_list_find               (EpDeviceList *self,
                                                 EpDevice     *device);

G_END_DECLS
