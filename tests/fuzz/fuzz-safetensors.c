/* fuzz-safetensors.c: safetensors files (core/safetensors.c)
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The input is a whole file: the reader validates its header, then
 * every tensor it describes is loaded, as graph files load theirs.
 */

#include <eager-glib/eager-glib.h>

#include "ep-fuzz.h"
#include "ep-safetensors-private.h"

static void
load_entries (EpSafetensors *file)
{
  for (guint i = 0; i < ep_safetensors_get_n_entries (file); i++)
    {
      const EpSafetensorsEntry *entry = ep_safetensors_get_entry (file, i);
      g_autoptr(GError) error = NULL;
      g_autoptr(EpTensor) tensor = NULL;

      g_assert (ep_safetensors_lookup (file, entry->name) != NULL);
      tensor = ep_safetensors_load_tensor (file, entry->name, ep_device_get_default (), &error);
      g_assert (tensor != NULL || (error != NULL && error->domain == EP_ERROR));
      if (tensor != NULL)
        g_assert_cmpint (ep_tensor_get_ndim (tensor), ==, entry->ndim);
    }
}

int
LLVMFuzzerTestOneInput (const guint8 *data,
                        size_t        size)
{
  g_autoptr(GBytes) bytes = g_bytes_new (data, size);
  g_autoptr(GError) error = NULL;
  g_autoptr(EpSafetensors) file = NULL;

  ep_fuzz_init_once ();
  file = ep_safetensors_new_from_bytes (bytes, "fuzz.safetensors", &error);
  if (file == NULL)
    {
      g_assert (error != NULL && error->domain == EP_ERROR);
      return 0;
    }
  g_assert_no_error (error);

  load_entries (file);
  ep_safetensors_get_metadata (file, "format");
  return 0;
}
