/* ep-pool-layer-private.h
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#include "ep-module.h"
#include "ep-types.h"

G_BEGIN_DECLS

/* nn/pool-layer.c: what MaxPool2d and AvgPool2d share. Their sizes are
 * (height, width) pairs; a stride of 0 stands for the kernel's. */

typedef struct
{
  gint64 kernel[2];
  gint64 strides[2];
  gint64 padding[2];
  gint64 dilation[2];
} EpPoolSizes;

/* checks the sizes in constructed(): positive kernel and dilation,
 * strides not negative (0: the kernel's), padding at most half the
 * kernel; errors start with @layer */
gboolean ep_pool_sizes_check     (const EpPoolSizes  *sizes,
                                  const char         *layer,
                                  GError            **error);

/* the strides the op takes: the kernel's where 0 */
void     ep_pool_sizes_strides   (const EpPoolSizes  *sizes,
                                  gint64              strides[2]);

/* checks that @input is a batch of images (4 dimensions) */
gboolean ep_pool_check_input     (EpTensor           *input,
                                  EpDataFormat        data_format,
                                  const char         *layer,
                                  GError            **error);

G_END_DECLS
