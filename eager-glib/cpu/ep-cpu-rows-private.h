/* ep-cpu-math-private.h: CPU helpers of the math families (issue 3)
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#include "ep-cpu-private.h"

G_BEGIN_DECLS

void ep_cpu_register_math       (EpKernelFunc *kernels);
void ep_cpu_register_accumulate (EpKernelFunc *kernels);
void ep_cpu_register_sort       (EpKernelFunc *kernels);
void ep_cpu_register_softmax    (EpKernelFunc *kernels);
void ep_cpu_register_generate   (EpKernelFunc *kernels);

/* Called once per row: rows[k] points at the first element of operand
 * k's row, row_strides[k] is its byte stride along the axis. */
typedef void (*EpCpuRowFunc) (guint8       **rows,
                              const gint64  *row_strides,
                              gpointer       user_data);

/* Walks the rows along @axis of @n_tensors tensors (at most
 * EP_CPU_MAX_OPERANDS) of the same rank whose shapes agree except along
 * @axis. The row lengths are the caller's business. */
void      ep_cpu_for_each_row (EpTensor *const *tensors,
                               guint            n_tensors,
                               guint            axis,
                               EpCpuRowFunc     func,
                               gpointer         user_data);

/* The same on several threads for large tensors (tensors[0] is the one
 * written): @func must only read @user_data. */
void      ep_cpu_for_each_row_parallel (EpTensor *const *tensors,
                                        guint            n_tensors,
                                        guint            axis,
                                        EpCpuRowFunc     func,
                                        gpointer         user_data);

/* A view of @tensor with @shape (contiguous strides, same offset);
 * @tensor must be contiguous with as many elements. */
EpTensor *ep_cpu_view_as      (EpTensor        *tensor,
                               const gint64    *shape,
                               guint            ndim);

/* Runs @loop over @input with @output standing still along @axes (as in
 * ep-cpu-reduce.c): p[0] is the output, p[1] the input, p[2] @extra (a
 * tensor shaped like @output, or NULL). */
void      ep_cpu_reduce_run   (EpTensor        *input,
                               EpTensor        *output,
                               EpTensor        *extra,
                               const gint      *axes,
                               guint            n_axes,
                               EpCpuLoop        loop,
                               gconstpointer    user_data);

/* Scratch memory for a kernel, or an EP_ERROR_OUT_OF_MEMORY error. */
gpointer  ep_cpu_scratch      (const char      *op_name,
                               gsize            n,
                               gsize            size,
                               GError         **error);

G_END_DECLS
