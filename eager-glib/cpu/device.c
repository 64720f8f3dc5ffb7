/* device.c: the CPU device
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <glib/gi18n-lib.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ep-cpu-half-private.h"
#include "ep-cpu-private.h"
#include "ep-error.h"

static gboolean
cpu_alloc (EpDevice   *device,
           EpStorage  *storage,
           GError    **error)
{
  gpointer data = ep_cpu_cache_alloc (storage->nbytes);

  if (data == NULL)
    {
      g_set_error (error, EP_ERROR, EP_ERROR_OUT_OF_MEMORY,
                   _("cannot allocate %zu bytes on %s"),
                   storage->nbytes, device->name);
      return FALSE;
    }

  /* (buffers of 2 MiB and more are marked for huge pages once, when the
   * cache maps them: cache.c) */
  storage->data = data;
  return TRUE;
}

static void
cpu_release (EpDevice  *device,
             EpStorage *storage)
{
  ep_cpu_cache_release (storage->data, storage->nbytes);
}

static gboolean
cpu_write (EpDevice      *device,
           EpStorage     *storage,
           gsize          offset,
           gconstpointer  src,
           gsize          nbytes,
           GError       **error)
{
  if (nbytes > 0)
    memcpy ((guint8 *) storage->data + offset, src, nbytes);
  return TRUE;
}

static gboolean
cpu_read (EpDevice   *device,
          EpStorage  *storage,
          gsize       offset,
          gpointer    dest,
          gsize       nbytes,
          GError    **error)
{
  if (nbytes > 0)
    memcpy (dest, (const guint8 *) storage->data + offset, nbytes);
  return TRUE;
}

static EpDeviceBackend cpu_backend = {
  .kind = "cpu",
  .alloc = cpu_alloc,
  .release = cpu_release,
  .write = cpu_write,
  .read = cpu_read,
  .run_half = ep_cpu_run_half,
};

/* A field of /proc/cpuinfo ("model name", "vendor_id"), or NULL. */
static char *
cpuinfo_field (const char *key)
{
  g_autofree char *cpuinfo = NULL;
  g_auto(GStrv) lines = NULL;

  if (g_file_get_contents ("/proc/cpuinfo", &cpuinfo, NULL, NULL))
    {
      lines = g_strsplit (cpuinfo, "\n", -1);
      for (guint i = 0; lines[i] != NULL; i++)
        if (g_str_has_prefix (lines[i], key))
          {
            const char *colon = strchr (lines[i], ':');

            if (colon != NULL)
              return g_strstrip (g_strdup (colon + 1));
          }
    }

  return NULL;
}

EpDevice *
ep_cpu_device_new (void)
{
  g_autofree char *model = cpuinfo_field ("model name");
  g_autofree char *vendor = cpuinfo_field ("vendor_id");
  g_autofree char *description = g_strdup_printf ("%s (%u threads)",
                                                  model != NULL ? model : _("host processor"),
                                                  g_get_num_processors ());
  long pages = sysconf (_SC_PHYS_PAGES);
  long page_size = sysconf (_SC_PAGE_SIZE);
  guint64 memory = pages > 0 && page_size > 0 ? (guint64) pages * (guint64) page_size : 0;

  ep_cpu_register_creation (cpu_backend.kernels);
  ep_cpu_register_random (cpu_backend.kernels);
  ep_cpu_register_cast (cpu_backend.kernels);
  ep_cpu_register_elementwise (cpu_backend.kernels);
  ep_cpu_register_math (cpu_backend.kernels);
  ep_cpu_register_logical (cpu_backend.kernels);
  ep_cpu_register_reduce (cpu_backend.kernels);
  ep_cpu_register_scan (cpu_backend.kernels);
  ep_cpu_register_sort (cpu_backend.kernels);
  ep_cpu_register_softmax (cpu_backend.kernels);
  ep_cpu_register_norm (cpu_backend.kernels);
  ep_cpu_register_join (cpu_backend.kernels);
  ep_cpu_register_index (cpu_backend.kernels);
  ep_cpu_register_linalg (cpu_backend.kernels);
  ep_cpu_register_lapack (cpu_backend.kernels);
  ep_cpu_register_conv (cpu_backend.kernels);
  ep_cpu_register_pool (cpu_backend.kernels);
  ep_cpu_register_fft (cpu_backend.kernels);
  ep_cpu_register_collective (cpu_backend.kernels);

  return ep_device_new (&cpu_backend, "cpu:0", description,
                        vendor != NULL ? vendor : _("unknown"), memory, TRUE, NULL);
}
