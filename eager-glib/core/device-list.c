/* device-list.c: the devices as a GListModel
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

/**
 * EpDeviceList:
 *
 * The devices of this machine as a [iface@Gio.ListModel] of
 * [class@Device], in the order of [func@list_devices], for a
 * `Gtk.DropDown` (whose expression can read [property@Device:name] or
 * [property@Device:description]) or any list widget.
 *
 * Devices are found once per process, so the list never changes.
 *
 * [property@DeviceList:current-device] is the device ops run on in
 * code on the list's thread — the thread that made it, the main thread
 * for [func@DeviceList.get_default]: the device of the innermost scope
 * opened there with [method@Device.push], or the default device `cpu:0`
 * outside any scope. It is notified, on that thread, when a push or a
 * pop there changes it; scopes on other threads (a worker's) do not
 * change it. To let a user pick the device, push the device they chose
 * (and pop the one before): the property follows.
 */

#include "config.h"

#include "ep-device-list.h"
#include "ep-device-private.h"

struct _EpDeviceList
{
  GObject    parent_instance;

  GPtrArray *devices;     /* EpDevice */
  GThread   *thread;      /* the one whose scopes it follows */
  EpDevice  *current;     /* guarded by lists_lock; devices live forever */
  GWeakRef  *self_ref;    /* its entry in lists */
};

static void ep_device_list_model_init (GListModelInterface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE (EpDeviceList, ep_device_list, G_TYPE_OBJECT,
                               G_IMPLEMENT_INTERFACE (G_TYPE_LIST_MODEL, ep_device_list_model_init))

enum
{
  PROP_0,
  PROP_ITEM_TYPE,
  PROP_N_ITEMS,
  PROP_CURRENT_DEVICE,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

/* Every list alive, weakly, for the scope changes to reach them. */
G_LOCK_DEFINE_STATIC (lists);
static GPtrArray *lists;   /* GWeakRef* */

static EpDevice *
current_here (void)
{
  EpDevice *device = ep_device_get_current ();

  return device != NULL ? device : ep_device_get_default ();
}

/* A push or a pop on this thread that changed its device: the lists of
 * this thread notify current-device. */
void
ep_device_list_scope_changed (void)
{
  /* the refs are dropped once unlocked: a last one finalizes the list,
   * which takes the lock */
  g_autoptr(GPtrArray) held = g_ptr_array_new_with_free_func (g_object_unref);
  g_autoptr(GPtrArray) changed = g_ptr_array_new ();
  GThread *self_thread = g_thread_self ();
  EpDevice *device = current_here ();

  G_LOCK (lists);
  for (guint i = 0; lists != NULL && i < lists->len; i++)
    {
      EpDeviceList *list = g_weak_ref_get (g_ptr_array_index (lists, i));

      if (list == NULL)
        continue;
      g_ptr_array_add (held, list);
      if (list->thread == self_thread && list->current != device)
        {
          list->current = device;
          g_ptr_array_add (changed, list);
        }
    }
  G_UNLOCK (lists);

  for (guint i = 0; i < changed->len; i++)
    g_object_notify_by_pspec (g_ptr_array_index (changed, i), properties[PROP_CURRENT_DEVICE]);
}

static GType
ep_device_list_get_item_type (GListModel *model)
{
  return EP_TYPE_DEVICE;
}

static guint
ep_device_list_get_n_items (GListModel *model)
{
  return EP_DEVICE_LIST (model)->devices->len;
}

static gpointer
ep_device_list_get_item (GListModel *model,
                         guint       position)
{
  EpDeviceList *self = EP_DEVICE_LIST (model);

  if (position >= self->devices->len)
    return NULL;
  return g_object_ref (g_ptr_array_index (self->devices, position));
}

static void
ep_device_list_model_init (GListModelInterface *iface)
{
  iface->get_item_type = ep_device_list_get_item_type;
  iface->get_n_items = ep_device_list_get_n_items;
  iface->get_item = ep_device_list_get_item;
}

static void
ep_device_list_finalize (GObject *object)
{
  EpDeviceList *self = EP_DEVICE_LIST (object);

  G_LOCK (lists);
  g_ptr_array_remove_fast (lists, self->self_ref);
  G_UNLOCK (lists);
  g_weak_ref_clear (self->self_ref);
  g_free (self->self_ref);
  g_ptr_array_unref (self->devices);

  G_OBJECT_CLASS (ep_device_list_parent_class)->finalize (object);
}

static void
ep_device_list_get_property (GObject    *object,
                             guint       prop_id,
                             GValue     *value,
                             GParamSpec *pspec)
{
  EpDeviceList *self = EP_DEVICE_LIST (object);

  switch (prop_id)
    {
    case PROP_ITEM_TYPE:
      g_value_set_gtype (value, EP_TYPE_DEVICE);
      break;
    case PROP_N_ITEMS:
      g_value_set_uint (value, self->devices->len);
      break;
    case PROP_CURRENT_DEVICE:
      g_value_set_object (value, ep_device_list_get_current_device (self));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
ep_device_list_class_init (EpDeviceListClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = ep_device_list_finalize;
  object_class->get_property = ep_device_list_get_property;

  /**
   * EpDeviceList:item-type:
   *
   * The type of the items: [class@Device].
   */
  properties[PROP_ITEM_TYPE] =
    g_param_spec_gtype ("item-type", NULL, NULL, G_TYPE_OBJECT,
                        G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  /**
   * EpDeviceList:n-items:
   *
   * The number of devices.
   */
  properties[PROP_N_ITEMS] =
    g_param_spec_uint ("n-items", NULL, NULL, 0, G_MAXUINT, 0,
                       G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  /**
   * EpDeviceList:current-device:
   *
   * The device ops run on in code on the list's thread: that of the
   * innermost device scope open there, else the default device. Notified
   * on the list's thread when a push or a pop there changes it.
   */
  properties[PROP_CURRENT_DEVICE] =
    g_param_spec_object ("current-device", NULL, NULL, EP_TYPE_DEVICE,
                         G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);

  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
ep_device_list_init (EpDeviceList *self)
{
  self->devices = ep_list_devices ();
  self->thread = g_thread_self ();
  self->current = current_here ();
  self->self_ref = g_new0 (GWeakRef, 1);
  g_weak_ref_init (self->self_ref, self);

  G_LOCK (lists);
  if (lists == NULL)
    lists = g_ptr_array_new ();
  g_ptr_array_add (lists, self->self_ref);
  G_UNLOCK (lists);
}

/**
 * ep_device_list_get_default:
 *
 * Gives the list of the devices that follows the scopes of the thread
 * that first calls this function: call it first on the main thread.
 * [ctor@GObject.Object.new] makes others, each following the scopes of
 * the thread that makes it.
 *
 * Returns: (transfer none): the list, alive as long as the process
 */
EpDeviceList *
ep_device_list_get_default (void)
{
  static EpDeviceList *list;

  if (g_once_init_enter (&list))
    g_once_init_leave (&list, g_object_new (EP_TYPE_DEVICE_LIST, NULL));

  return list;
}

/**
 * ep_device_list_get_current_device:
 * @self: a device list
 *
 * Gives [property@DeviceList:current-device].
 *
 * Returns: (transfer none): the device ops run on in code on the
 *   list's thread
 */
EpDevice *
ep_device_list_get_current_device (EpDeviceList *self)
{
  EpDevice *device;

  g_return_val_if_fail (EP_IS_DEVICE_LIST (self), NULL);

  G_LOCK (lists);
  device = self->current;
  G_UNLOCK (lists);
  return device;
}

/**
 * ep_device_list_find:
 * @self: a device list
 * @device: a device
 *
 * Tells where @device is in the list: for a `Gtk.DropDown`'s
 * `selected` property.
 *
 * Returns: the position of @device, or `GTK_INVALID_LIST_POSITION`
 *   (%G_MAXUINT) for a device that is not in the list
 */
guint
ep_device_list_find (EpDeviceList *self,
                     EpDevice     *device)
{
  guint position;

  g_return_val_if_fail (EP_IS_DEVICE_LIST (self), G_MAXUINT);
  g_return_val_if_fail (EP_IS_DEVICE (device), G_MAXUINT);

  if (!g_ptr_array_find (self->devices, device, &position))
    return G_MAXUINT;
  return position;
}
