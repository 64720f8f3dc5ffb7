/* ep-cpu-rows-private.h: the helpers of rows.c, shared by the CPU
 * kernels of several families (reduce, scan, sort, softmax)
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#include "ep-cpu-private.h"

G_BEGIN_DECLS

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

/* The input of @call along attrs.axes[0], or over the flattened tensor
 * (a 1-D view) with attrs.all_axes; sets @axis. A new reference. */
EpTensor *ep_cpu_axis_or_flat (const EpOpCall  *call,
                               guint           *axis);

/* Runs @loop over @input with @output standing still along @axes (as in
 * reduce.c): p[0] is the output, p[1] the input, p[2] @extra (a
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
