/* ep-pool.h: 2-D pooling and its gradients (ops/pool.c)
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#if !defined(EP_INSIDE) && !defined(EP_COMPILATION)
# error "Only <eager-glib/eager-glib.h> can be included directly."
#endif

#include <glib.h>

#include "ep-tensor.h"
#include "ep-types.h"
#include "ep-version.h"

G_BEGIN_DECLS

EP_EXPORT
EpTensor *ep_tensor_max_pool2d         (EpTensor      *self,
                                        const gint64  *kernel_size,
                                        guint          n_kernel_size,
                                        const gint64  *strides,
                                        guint          n_strides,
                                        const gint64  *padding,
                                        guint          n_padding,
                                        const gint64  *dilation,
                                        guint          n_dilation,
                                        gboolean       ceil_mode,
                                        EpDataFormat   data_format,
                                        GError       **error);
EP_EXPORT
EpTensor *ep_tensor_avg_pool2d         (EpTensor      *self,
                                        const gint64  *kernel_size,
                                        guint          n_kernel_size,
                                        const gint64  *strides,
                                        guint          n_strides,
                                        const gint64  *padding,
                                        guint          n_padding,
                                        gboolean       ceil_mode,
                                        gboolean       count_include_pad,
                                        EpDataFormat   data_format,
                                        GError       **error);
EP_EXPORT
EpTensor *ep_tensor_max_pool2d_grad    (EpTensor      *self,
                                        EpTensor      *grad,
                                        const gint64  *kernel_size,
                                        guint          n_kernel_size,
                                        const gint64  *strides,
                                        guint          n_strides,
                                        const gint64  *padding,
                                        guint          n_padding,
                                        const gint64  *dilation,
                                        guint          n_dilation,
                                        gboolean       ceil_mode,
                                        EpDataFormat   data_format,
                                        GError       **error);
EP_EXPORT
EpTensor *ep_avg_pool2d_grad           (EpTensor      *grad,
                                        const gint64  *input_shape,
                                        guint          n_input_shape,
                                        const gint64  *kernel_size,
                                        guint          n_kernel_size,
                                        const gint64  *strides,
                                        guint          n_strides,
                                        const gint64  *padding,
                                        guint          n_padding,
                                        gboolean       ceil_mode,
                                        gboolean       count_include_pad,
                                        EpDataFormat   data_format,
                                        GError       **error);
EP_EXPORT
EpTensor *ep_tensor_max_pool2d_indices (EpTensor      *self,
                                        const gint64  *kernel_size,
                                        guint          n_kernel_size,
                                        const gint64  *strides,
                                        guint          n_strides,
                                        const gint64  *padding,
                                        guint          n_padding,
                                        const gint64  *dilation,
                                        guint          n_dilation,
                                        gboolean       ceil_mode,
                                        EpDataFormat   data_format,
                                        GError       **error);

G_END_DECLS
