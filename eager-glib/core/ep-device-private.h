/* ep-device-private.h
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#include "ep-device.h"
#include "ep-op-private.h"
#include "ep-storage-private.h"

G_BEGIN_DECLS

/*
 * EpDeviceBackend:
 *
 * What a kind of device implements: storage and host transfers, and one
 * kernel per op (indexed by EpOpId; NULL where the op has no kernel on
 * this device). Adding a device means adding a backend; no op changes.
 */
/* A fused elementwise group (graph/passes/ep-fuse-private.h) */
typedef struct _EpFusedProgram EpFusedProgram;

/* Storage for output @o of a fused node, contiguous in @layout, of
 * @nbytes on the node's device (the executor's frame gives a dying
 * input's buffer or its arena's) */
typedef EpStorage *(*EpFusedAllocFunc) (gpointer         data,
                                        guint            o,
                                        const EpLayout  *layout,
                                        gsize            nbytes,
                                        GError         **error);

typedef struct
{
  const char *kind;
  gboolean  (*alloc)     (EpDevice   *device,
                          EpStorage  *storage,
                          GError    **error);
  void      (*release)   (EpDevice   *device,
                          EpStorage  *storage);
  gboolean  (*write)     (EpDevice   *device,
                          EpStorage  *storage,
                          gsize       offset,
                          gconstpointer src,
                          gsize       nbytes,
                          GError    **error);
  gboolean  (*read)      (EpDevice   *device,
                          EpStorage  *storage,
                          gsize       offset,
                          gpointer    dest,
                          gsize       nbytes,
                          GError    **error);
  gboolean  (*synchronize) (EpDevice *device,
                            GError  **error);
  gboolean  (*supports_dtype) (EpDevice *device,
                               EpDType   dtype);
  void      (*finalize)  (EpDevice   *device);

  /* Fused groups as kernels of the device's own, where it makes them
   * (OpenCL); NULL: the CPU's blocked loop (cpu/fused.c). @fused_fits
   * says, at trace time, whether the device can run @program as one
   * kernel; @run_fused runs it, or sets @ran to FALSE where the inputs
   * it meets do not allow it (the steps then run one by one). */
  gboolean  (*fused_fits) (EpDevice         *device,
                           EpFusedProgram   *program);
  gboolean  (*run_fused)  (EpDevice         *device,
                           EpFusedProgram   *program,
                           EpTensor *const  *inputs,
                           EpFusedAllocFunc  alloc,
                           gpointer          alloc_data,
                           EpLayout         *layout,
                           EpStorage       **storage,
                           gboolean         *ran,
                           GError          **error);
  /* float16 and bfloat16 (dispatch/widen.c): runs @call where the device
   * computes it in float32 run by run, without widening whole tensors,
   * or sets @ran to FALSE (then dispatch widens); NULL: never */
  gboolean  (*run_half)   (EpOpCall         *call,
                           gboolean         *ran,
                           GError          **error);
  EpKernelFunc kernels[EP_N_OPS];
} EpDeviceBackend;

struct _EpDevice
{
  GObject                parent_instance;

  const EpDeviceBackend *backend;
  gpointer               backend_data;
  char                  *name;
  char                  *description;
  char                  *vendor;
  guint64                memory_size;
  gboolean               host_visible;

  /* core/memory.c: storage bytes alive here, and tensors holding
   * storage here (atomic) */
  gint64                 bytes_in_use;
  gint64                 n_tensors;
};

EpDevice  *ep_device_new         (const EpDeviceBackend *backend,
                                  const char            *name,
                                  const char            *description,
                                  const char            *vendor,
                                  guint64                memory_size,
                                  gboolean               host_visible,
                                  gpointer               backend_data);
EpStorage *ep_device_alloc       (EpDevice              *self,
                                  gsize                  nbytes,
                                  GError               **error);
gboolean   ep_device_write       (EpDevice              *self,
                                  EpStorage             *storage,
                                  gsize                  offset,
                                  gconstpointer          src,
                                  gsize                  nbytes,
                                  GError               **error);
gboolean   ep_device_read        (EpDevice              *self,
                                  EpStorage             *storage,
                                  gsize                  offset,
                                  gpointer               dest,
                                  gsize                  nbytes,
                                  GError               **error);
EpDevice  *ep_device_get_cpu     (void);
/* core/device-list.c: a device scope opened or closed on this thread */
void       ep_device_list_scope_changed (void);
gsize      ep_device_count_allocations (void);
gboolean   ep_device_check_usable (EpDevice             *self,
                                   const char           *op_name,
                                   GError              **error);

/* opencl/device.c */
void       ep_opencl_discover    (GPtrArray             *devices,
                                  char                 **unavailable_reason);

/* cpu/device.c */
EpDevice  *ep_cpu_device_new     (void);

G_END_DECLS
