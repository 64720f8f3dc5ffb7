/* core/device.c
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <glib/gi18n-lib.h>
#include <inttypes.h>

#include "ep-context-private.h"
#include "ep-device-private.h"
#include "ep-error.h"
#include "ep-memory.h"
#include "ep-memory-private.h"
#include "ep-tensor-private.h"

/**
 * EpDevice:
 *
 * A place where tensors live and ops run: the CPU (`cpu:0`) or an OpenCL
 * device (`opencl:0`, `opencl:1`, …).
 *
 * [func@list_devices] lists what this machine has. An op runs on the
 * device of the innermost device scope of the calling thread
 * ([method@Device.push]), otherwise on the device of its first input that
 * is not a literal number, otherwise on `cpu:0`; inputs that live
 * elsewhere are copied there first. Views follow the scope too (a view
 * of a tensor that lives elsewhere is a view of its copy); outside a
 * scope they stay with their input. [method@Tensor.to_device] copies a
 * tensor where it is told, whatever the scope. [Devices](devices.html)
 * gives the whole rule.
 *
 * Devices are created once, when first listed, and live as long as the
 * process. One made with g_object_new() stands for no hardware: using it
 * is an %EP_ERROR_DEVICE error.
 */

enum {
  PROP_0,
  PROP_NAME,
  PROP_KIND,
  PROP_DESCRIPTION,
  PROP_VENDOR,
  PROP_MEMORY_SIZE,
  PROP_BYTES_IN_USE,
  PROP_N_TENSORS,
  N_PROPS
};

static GParamSpec *props[N_PROPS];

G_DEFINE_FINAL_TYPE (EpDevice, ep_device, G_TYPE_OBJECT)

static void
ep_device_finalize (GObject *object)
{
  EpDevice *self = EP_DEVICE (object);

  if (self->backend != NULL && self->backend->finalize != NULL)
    self->backend->finalize (self);
  g_free (self->name);
  g_free (self->description);
  g_free (self->vendor);

  G_OBJECT_CLASS (ep_device_parent_class)->finalize (object);
}

static void
ep_device_get_property (GObject    *object,
                        guint       prop_id,
                        GValue     *value,
                        GParamSpec *pspec)
{
  EpDevice *self = EP_DEVICE (object);

  switch (prop_id)
    {
    case PROP_NAME:
      g_value_set_string (value, self->name);
      break;
    case PROP_KIND:
      g_value_set_string (value, ep_device_get_kind (self));
      break;
    case PROP_DESCRIPTION:
      g_value_set_string (value, self->description);
      break;
    case PROP_VENDOR:
      g_value_set_string (value, self->vendor);
      break;
    case PROP_MEMORY_SIZE:
      g_value_set_uint64 (value, self->memory_size);
      break;
    case PROP_BYTES_IN_USE:
      g_value_set_uint64 (value, ep_device_get_bytes_in_use (self));
      break;
    case PROP_N_TENSORS:
      g_value_set_uint64 (value, ep_device_get_n_tensors (self));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
ep_device_class_init (EpDeviceClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = ep_device_finalize;
  object_class->get_property = ep_device_get_property;

  /**
   * EpDevice:name:
   *
   * The device's name, such as `cpu:0` or `opencl:0`.
   */
  props[PROP_NAME] =
    g_param_spec_string ("name", NULL, NULL, NULL,
                         G_PARAM_READABLE | G_PARAM_STATIC_STRINGS | G_PARAM_EXPLICIT_NOTIFY);

  /**
   * EpDevice:kind:
   *
   * The kind of device: `cpu` or `opencl`.
   */
  props[PROP_KIND] =
    g_param_spec_string ("kind", NULL, NULL, NULL,
                         G_PARAM_READABLE | G_PARAM_STATIC_STRINGS | G_PARAM_EXPLICIT_NOTIFY);

  /**
   * EpDevice:description:
   *
   * A human-readable description: the processor or the OpenCL device name
   * and vendor.
   */
  props[PROP_DESCRIPTION] =
    g_param_spec_string ("description", NULL, NULL, NULL,
                         G_PARAM_READABLE | G_PARAM_STATIC_STRINGS | G_PARAM_EXPLICIT_NOTIFY);

  /**
   * EpDevice:vendor:
   *
   * Who made the device, as the device reports it: the processor's
   * vendor (`GenuineIntel`, `AuthenticAMD`, …) or the OpenCL device
   * vendor.
   */
  props[PROP_VENDOR] =
    g_param_spec_string ("vendor", NULL, NULL, NULL,
                         G_PARAM_READABLE | G_PARAM_STATIC_STRINGS | G_PARAM_EXPLICIT_NOTIFY);

  /**
   * EpDevice:memory-size:
   *
   * The memory the device has, in bytes.
   */
  props[PROP_MEMORY_SIZE] =
    g_param_spec_uint64 ("memory-size", NULL, NULL, 0, G_MAXUINT64, 0,
                         G_PARAM_READABLE | G_PARAM_STATIC_STRINGS | G_PARAM_EXPLICIT_NOTIFY);

  /**
   * EpDevice:bytes-in-use:
   *
   * The bytes of storage alive on the device, as
   * [method@Device.get_bytes_in_use] tells. Never notified: it changes
   * with every tensor made or freed, on any thread; a user interface
   * polls it (a timeout of a second or so), or reads it with
   * [signal@Trainer::progress].
   */
  props[PROP_BYTES_IN_USE] =
    g_param_spec_uint64 ("bytes-in-use", NULL, NULL, 0, G_MAXUINT64, 0,
                         G_PARAM_READABLE | G_PARAM_STATIC_STRINGS | G_PARAM_EXPLICIT_NOTIFY);

  /**
   * EpDevice:n-tensors:
   *
   * The tensors holding data on the device, as
   * [method@Device.get_n_tensors] tells. Never notified, as
   * [property@Device:bytes-in-use].
   */
  props[PROP_N_TENSORS] =
    g_param_spec_uint64 ("n-tensors", NULL, NULL, 0, G_MAXUINT64, 0,
                         G_PARAM_READABLE | G_PARAM_STATIC_STRINGS | G_PARAM_EXPLICIT_NOTIFY);

  g_object_class_install_properties (object_class, N_PROPS, props);
}

static void
ep_device_init (EpDevice *self)
{
}

EpDevice *
ep_device_new (const EpDeviceBackend *backend,
               const char            *name,
               const char            *description,
               const char            *vendor,
               guint64                memory_size,
               gboolean               host_visible,
               gpointer               backend_data)
{
  EpDevice *self = g_object_new (EP_TYPE_DEVICE, NULL);

  self->backend = backend;
  self->backend_data = backend_data;
  self->name = g_strdup (name);
  self->description = g_strdup (description);
  self->vendor = g_strdup (vendor);
  self->memory_size = memory_size;
  self->host_visible = host_visible;

  return self;
}

/* opencl: why there is no OpenCL device, or NULL */
static char *opencl_unavailable_reason;

static GPtrArray *
device_registry (void)
{
  static GPtrArray *devices;

  if (g_once_init_enter (&devices))
    {
      GPtrArray *found = g_ptr_array_new_with_free_func (g_object_unref);

      g_ptr_array_add (found, ep_cpu_device_new ());

      /* opencl */
#ifdef EP_HAVE_OPENCL
      ep_opencl_discover (found, &opencl_unavailable_reason);
#else
      opencl_unavailable_reason = g_strdup (_("eager-glib was built without OpenCL support (-Dopencl=disabled)"));
#endif
      if (opencl_unavailable_reason != NULL)
        g_debug ("OpenCL is not available: %s", opencl_unavailable_reason);

      g_once_init_leave (&devices, found);
    }

  return devices;
}

/**
 * ep_list_devices:
 *
 * Lists the devices of this machine: `cpu:0` first, then one `opencl:N`
 * for each OpenCL device found.
 *
 * Returns: (transfer container) (element-type EpDevice): the devices
 */
GPtrArray *
ep_list_devices (void)
{
  GPtrArray *devices = device_registry ();
  GPtrArray *copy = g_ptr_array_new_full (devices->len, g_object_unref);

  for (guint i = 0; i < devices->len; i++)
    g_ptr_array_add (copy, g_object_ref (g_ptr_array_index (devices, i)));

  return copy;
}

/**
 * ep_device_get:
 * @name: a device name such as `cpu:0` or `opencl:0`
 * @error: return location for an error
 *
 * Finds a device by name. `cpu` and `opencl` alone name the first device
 * of that kind.
 *
 * Returns: (transfer none): the device, or %NULL with %EP_ERROR_DEVICE
 *   set if there is none of that name
 */
EpDevice *
ep_device_get (const char  *name,
               GError     **error)
{
  GPtrArray *devices;
  g_autofree char *first = NULL;

  g_return_val_if_fail (name != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  devices = device_registry ();
  if (strchr (name, ':') == NULL)
    first = g_strconcat (name, ":0", NULL);

  for (guint i = 0; i < devices->len; i++)
    {
      EpDevice *device = g_ptr_array_index (devices, i);

      if (g_strcmp0 (device->name, first != NULL ? first : name) == 0)
        return device;
    }

  g_set_error (error, EP_ERROR, EP_ERROR_DEVICE,
               _("device: no device named “%s” on this machine"), name);
  return NULL;
}

/**
 * ep_device_get_unavailable_reason:
 * @kind: a kind of device: `cpu` or `opencl`
 *
 * Says why this machine has no device of @kind: eager-glib was built
 * without it, no OpenCL driver (ICD) is installed, or the devices found
 * cannot be used. The same text goes to the debug log (`G_MESSAGES_DEBUG=Ep`).
 *
 * Returns: (transfer none) (nullable): the reason, or %NULL when
 *   [func@list_devices] has at least one device of @kind
 */
const char *
ep_device_get_unavailable_reason (const char *kind)
{
  g_return_val_if_fail (kind != NULL, NULL);

  device_registry ();

  if (g_str_equal (kind, "cpu"))
    return NULL;
  if (g_str_equal (kind, "opencl"))
    return opencl_unavailable_reason;

  return _("no such kind of device; the kinds are “cpu” and “opencl”");
}

EpDevice *
ep_device_get_cpu (void)
{
  return g_ptr_array_index (device_registry (), 0);
}

/**
 * ep_device_get_default:
 *
 * Returns the device ops run on when no scope is active and no input
 * says otherwise: `cpu:0`.
 *
 * Returns: (transfer none): the default device
 */
EpDevice *
ep_device_get_default (void)
{
  return ep_device_get_cpu ();
}

/* A device made with g_object_new() from a binding has no backend and
 * stands for nothing: every use of it is an error, never a crash. */
gboolean
ep_device_check_usable (EpDevice    *self,
                        const char  *op_name,
                        GError     **error)
{
  if (G_LIKELY (self->backend != NULL))
    return TRUE;

  g_set_error (error, EP_ERROR, EP_ERROR_DEVICE,
               _("%s: not a device of this machine (devices come from list_devices and Device.get)"),
               op_name);
  return FALSE;
}

/**
 * ep_device_push:
 * @self: the device ops should run on
 * @error: return location for an error
 *
 * Opens a device scope on the calling thread; [method@Device.pop] with
 * the same device closes it. Inside, ops run on @self and their inputs
 * are copied there when they live elsewhere, and tensors made from
 * nothing ([func@zeros], [func@arange], [ctor@Tensor.new_from_doubles],
 * …) are made there. Views ([method@Tensor.reshape],
 * [method@Tensor.transpose], slices, …) follow the scope too, as in
 * TensorFlow: a view of a tensor that lives elsewhere is a view of its
 * copy on @self; [method@Tensor.contiguous] and [method@Tensor.astype] to
 * the same type likewise give a tensor on @self. Only
 * [method@Tensor.to_device] goes where it is told.
 *
 * Scopes nest, and each thread has its own. [Devices](devices.html)
 * gives the whole placement rule.
 *
 * Returns: %TRUE if the scope is open; %FALSE with %EP_ERROR_DEVICE set
 *   if @self is not a device of this machine (one made with
 *   g_object_new() instead of found with [func@Device.get])
 */
gboolean
ep_device_push (EpDevice  *self,
                GError   **error)
{
  EpDevice *previous;

  g_return_val_if_fail (EP_IS_DEVICE (self), FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  if (!ep_device_check_usable (self, "device", error))
    return FALSE;

  previous = ep_device_get_current ();
  ep_context_push_device (ep_context_get (), self);
  if (previous != self)
    ep_device_list_scope_changed ();
  return TRUE;
}

/**
 * ep_device_pop:
 * @self: the device of the scope to close
 * @error: return location for an error
 *
 * Closes the innermost device scope of the calling thread, which
 * [method@Device.push] opened for @self. Pushes and pops pair up as
 * with g_main_context_push_thread_default(): popping another device
 * than the innermost scope's, or popping on a thread with no scope
 * open, is an error and closes nothing.
 *
 * Returns: %TRUE if the scope is closed; %FALSE with
 *   %EP_ERROR_INVALID_ARGUMENT set if no scope is open on this thread
 *   or the innermost one is another device's
 */
gboolean
ep_device_pop (EpDevice  *self,
               GError   **error)
{
  EpContext *context = ep_context_peek ();

  g_return_val_if_fail (EP_IS_DEVICE (self), FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  if (!ep_device_check_usable (self, "device", error))
    return FALSE;

  if (context == NULL || context->device == NULL)
    {
      g_set_error (error, EP_ERROR, EP_ERROR_INVALID_ARGUMENT,
                   _("device: cannot pop %s: no device scope is open on this thread"),
                   self->name);
      return FALSE;
    }
  if (context->device != self)
    {
      g_set_error (error, EP_ERROR, EP_ERROR_INVALID_ARGUMENT,
                   _("device: cannot pop %s: the innermost device scope on this thread is %s"),
                   self->name, context->device->name);
      return FALSE;
    }

  ep_context_pop_device (context);
  if (ep_device_get_current () != self)
    ep_device_list_scope_changed ();
  return TRUE;
}

/**
 * ep_device_get_current:
 *
 * Returns the device of the innermost scope on the calling thread: where
 * ops that name no device of their own run now, and
 * where tensors made from nothing are made. Scopes are per thread; the
 * library itself never opens one.
 *
 * Returns: (transfer none) (nullable): the device, or %NULL outside any
 *   scope
 */
EpDevice *
ep_device_get_current (void)
{
  return ep_context_get_device ();
}

/**
 * ep_device_get_name:
 * @self: a device
 *
 * Returns the name that [func@Device.get] finds the device by.
 *
 * Returns: (transfer none) (nullable): the name, such as `cpu:0`; %NULL
 *   for a device made with g_object_new(), which stands for none
 */
const char *
ep_device_get_name (EpDevice *self)
{
  g_return_val_if_fail (EP_IS_DEVICE (self), NULL);

  return self->name;
}

/**
 * ep_device_get_kind:
 * @self: a device
 *
 * Tells which backend drives the device.
 *
 * Returns: (transfer none) (nullable): the kind of device, `cpu` or
 *   `opencl`; %NULL for a device made with g_object_new()
 */
const char *
ep_device_get_kind (EpDevice *self)
{
  g_return_val_if_fail (EP_IS_DEVICE (self), NULL);

  return self->backend != NULL ? self->backend->kind : NULL;
}

/**
 * ep_device_get_description:
 * @self: a device
 *
 * Describes the device for people: its vendor and model.
 *
 * Returns: (transfer none) (nullable): a human-readable description;
 *   %NULL for a device made with g_object_new()
 */
const char *
ep_device_get_description (EpDevice *self)
{
  g_return_val_if_fail (EP_IS_DEVICE (self), NULL);

  return self->description;
}

/**
 * ep_device_get_vendor:
 * @self: a device
 *
 * Gets the [property@Device:vendor] of the device: the processor's
 * vendor for `cpu:0`, the OpenCL device's for `opencl:N`.
 *
 * Returns: (transfer none) (nullable): who made the device, as it
 *   reports it; %NULL for a device made with g_object_new()
 */
const char *
ep_device_get_vendor (EpDevice *self)
{
  g_return_val_if_fail (EP_IS_DEVICE (self), NULL);

  return self->vendor;
}

/**
 * ep_device_supports_dtype:
 * @self: a device
 * @dtype: an element type
 *
 * Whether ops can compute in @dtype on this device. Every device stores
 * and copies every type, but an OpenCL device without `cl_khr_fp64`
 * cannot compute in float64: ops there fail with %EP_ERROR_DEVICE.
 *
 * Returns: %TRUE if ops compute in @dtype on @self
 */
gboolean
ep_device_supports_dtype (EpDevice *self,
                          EpDType   dtype)
{
  g_return_val_if_fail (EP_IS_DEVICE (self), FALSE);

  if (self->backend == NULL)
    return FALSE;
  if (self->backend->supports_dtype == NULL)
    return TRUE;

  return self->backend->supports_dtype (self, dtype);
}

/**
 * ep_device_synchronize:
 * @self: a device
 * @error: return location for an error
 *
 * Waits until every op queued on @self has finished. Ops on an OpenCL
 * device run asynchronously: a call returns once the work is queued, and
 * reading a result ([method@Tensor.to_bytes], [method@Tensor.item_double])
 * waits for it. Use this to time ops, or to learn early of a failure of
 * the device.
 *
 * Returns: %TRUE on success; %FALSE with %EP_ERROR_DEVICE set if the
 *   device failed
 */
gboolean
ep_device_synchronize (EpDevice  *self,
                       GError   **error)
{
  g_return_val_if_fail (EP_IS_DEVICE (self), FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  if (!ep_device_check_usable (self, "synchronize", error))
    return FALSE;
  if (self->backend->synchronize == NULL)
    return TRUE;

  return self->backend->synchronize (self, error);
}

/* Storage allocations on every thread, once a test asked for them: an
 * atomic add shared by every thread stays off the allocation path until
 * then */
static gint counting;
static gsize allocations;

/* The storage allocations of every thread since the first call (a
 * test's count, where replays run on worker threads; a thread's own is
 * in its context) */
gsize
ep_device_count_allocations (void)
{
  g_atomic_int_set (&counting, TRUE);
  return (gsize) g_atomic_pointer_get (&allocations);
}

/**
 * ep_device_get_memory_size:
 * @self: a device
 *
 * Tells how much memory the device has; allocations larger than this
 * fail with %EP_ERROR_OUT_OF_MEMORY.
 *
 * Returns: the memory of the device in bytes
 */
guint64
ep_device_get_memory_size (EpDevice *self)
{
  g_return_val_if_fail (EP_IS_DEVICE (self), 0);

  return self->memory_size;
}

EpStorage *
ep_device_alloc (EpDevice  *self,
                 gsize      nbytes,
                 GError   **error)
{
  EpStorage *storage;

  /* Larger than the device: fail before asking the allocator, which may
   * overcommit now and kill the process later. */
  if (self->memory_size > 0 && nbytes > self->memory_size)
    {
      g_set_error (error, EP_ERROR, EP_ERROR_OUT_OF_MEMORY,
                   _("cannot allocate %zu bytes on %s, which has %" PRIu64),
                   nbytes, self->name, self->memory_size);
      return NULL;
    }

  ep_context_get ()->storage_allocs++;
  if (G_UNLIKELY (g_atomic_int_get (&counting)))
    g_atomic_pointer_add (&allocations, 1);
  storage = ep_storage_alloc ();
  g_atomic_ref_count_init (&storage->ref_count);
  storage->nbytes = nbytes;
  if (!self->backend->alloc (self, storage, error))
    {
      g_free (storage);
      return NULL;
    }
  storage->device = g_object_ref (self);
  ep_memory_count_bytes (self, (gint64) nbytes);

  return storage;
}

gboolean
ep_device_write (EpDevice      *self,
                 EpStorage     *storage,
                 gsize          offset,
                 gconstpointer  src,
                 gsize          nbytes,
                 GError       **error)
{
  return self->backend->write (self, storage, offset, src, nbytes, error);
}

gboolean
ep_device_read (EpDevice   *self,
                EpStorage  *storage,
                gsize       offset,
                gpointer    dest,
                gsize       nbytes,
                GError    **error)
{
  return self->backend->read (self, storage, offset, dest, nbytes, error);
}
