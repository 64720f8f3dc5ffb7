/* ep-safetensors-private.h: named tensors in a file (core/safetensors.c)
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#include <gio/gio.h>

#include "ep-tensor-private.h"

G_BEGIN_DECLS

/*
 * EpSafetensorsEntry:
 * @name: the tensor's name in the file
 * @dtype_name: its element type as the file names it (`F32`, `BF16` …)
 * @supported: whether @dtype_name is one of eager-glib's dtypes
 * @dtype: that dtype, when @supported
 * @ndim, @shape: its shape
 * @offset, @nbytes: where its data are, from the start of the data
 *
 * One tensor of a file, as its header describes it (validated).
 */
typedef struct
{
  char     *name;
  char     *dtype_name;
  gboolean  supported;
  EpDType   dtype;
  guint     ndim;
  gint64    shape[EP_MAX_DIMS];
  gsize     offset;
  gsize     nbytes;
} EpSafetensorsEntry;

/* A file read and validated: its entries, metadata and data. */
typedef struct _EpSafetensors EpSafetensors;

EpSafetensors *ep_safetensors_new_from_bytes (GBytes          *bytes,
                                              const char      *name,
                                              GError         **error);
EpSafetensors *ep_safetensors_read           (GFile           *file,
                                              const char      *op_name,
                                              GCancellable    *cancellable,
                                              GError         **error);
void           ep_safetensors_free           (EpSafetensors   *self);
guint          ep_safetensors_get_n_entries  (EpSafetensors   *self);
const EpSafetensorsEntry *
               ep_safetensors_get_entry      (EpSafetensors   *self,
                                              guint            index);
const EpSafetensorsEntry *
               ep_safetensors_lookup         (EpSafetensors   *self,
                                              const char      *name);
const char    *ep_safetensors_get_metadata   (EpSafetensors   *self,
                                              const char      *key);
EpTensor      *ep_safetensors_load_tensor    (EpSafetensors   *self,
                                              const char      *name,
                                              EpDevice        *device,
                                              GError         **error);

gboolean       ep_safetensors_write          (GFile           *file,
                                              const char *const *names,
                                              EpTensor *const *tensors,
                                              guint            n_tensors,
                                              const char *const *metadata,
                                              const char      *op_name,
                                              GCancellable    *cancellable,
                                              GError         **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (EpSafetensors, ep_safetensors_free)

G_END_DECLS
