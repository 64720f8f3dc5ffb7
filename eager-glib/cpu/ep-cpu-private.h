/* ep-cpu-private.h
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#include "ep-device-private.h"
#include "ep-op-private.h"

G_BEGIN_DECLS

#define EP_CPU_MAX_OPERANDS 4

/*
 * EpCpuIter:
 *
 * Walks operands of one common shape in step, NumPy-style: operand 0 is
 * usually the output, the others are inputs seen through broadcast
 * strides (0 along broadcast dimensions). Dimensions of extent 1 are
 * dropped and neighbours that are contiguous for every operand are
 * merged, so the innermost loop is as long as it can be. Strides are in
 * bytes.
 */
typedef struct
{
  guint    n_operands;
  guint    ndim;
  gint64   shape[EP_MAX_DIMS];
  gint64   strides[EP_CPU_MAX_OPERANDS][EP_MAX_DIMS];
  guint8  *base[EP_CPU_MAX_OPERANDS];
} EpCpuIter;

/* Called for each run along the innermost dimension. */
typedef void (*EpCpuLoop) (guint8       **ptrs,
                           const gint64  *strides,
                           gint64         n,
                           gconstpointer  user_data);

void     ep_cpu_iter_init       (EpCpuIter      *iter,
                                 const gint64   *shape,
                                 guint           ndim);
void     ep_cpu_iter_add        (EpCpuIter      *iter,
                                 EpTensor       *tensor);
void     ep_cpu_iter_add_reduced (EpCpuIter     *iter,
                                  EpTensor      *output,
                                  const gint    *axes,
                                  guint          n_axes);
void     ep_cpu_iter_run        (EpCpuIter      *iter,
                                 EpCpuLoop       loop,
                                 gconstpointer   user_data);

/* One iterator over the output and every input of @call, broadcast to
 * the output's shape, run with @loop. */
void     ep_cpu_map             (EpOpCall       *call,
                                 EpCpuLoop       loop,
                                 gconstpointer   user_data);

EpCpuLoop ep_cpu_copy_loop_for_itemsize (gsize itemsize);

void     ep_cpu_register_copy        (EpKernelFunc *kernels);
void     ep_cpu_register_creation    (EpKernelFunc *kernels);
void     ep_cpu_register_elementwise (EpKernelFunc *kernels);
void     ep_cpu_register_reduce      (EpKernelFunc *kernels);
void     ep_cpu_register_linalg      (EpKernelFunc *kernels);
/* shape branch */
void     ep_cpu_register_join        (EpKernelFunc *kernels);
void     ep_cpu_register_index       (EpKernelFunc *kernels);
void     ep_cpu_register_lapack      (EpKernelFunc *kernels);

/* ep-ops-cast.c: the device-neutral copy behind to_device */
gboolean ep_copy_to_device_kernel    (EpOpCall     *call,
                                      GError      **error);

G_END_DECLS
