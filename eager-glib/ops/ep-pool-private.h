/* ep-pool-private.h: the geometry of a 2-D pooling call (ops/pool.c),
 * shared by its rules and the kernels of every device
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#include "ep-op-private.h"

G_BEGIN_DECLS

/*
 * EpPoolGeometry:
 *
 * The extents of a pooling call's input (batch, channels, height,
 * width, whatever the data format) and output, and its window, from the
 * call's canonical attributes (two values per list). Every window tap
 * `(oh * stride - padding + k * dilation)` fits in a gint64: infer
 * checked the sizes.
 */
typedef struct
{
  gint64       batch, channels, height, width;
  gint64       out_height, out_width;
  gint64       kernel_h, kernel_w;
  gint64       stride_h, stride_w;
  gint64       pad_h, pad_w;
  gint64       dilation_h, dilation_w;
  gboolean     count_include_pad;
  EpDataFormat format;
} EpPoolGeometry;

/* The taps k of a window starting at @start (negative in the padding)
 * that land inside [0, @extent): @first up to @end, none when @end <=
 * @first. No overflow: infer bounded start + span. */
static inline void
ep_pool_taps (gint64  start,
              gint64  kernel,
              gint64  dilation,
              gint64  extent,
              gint64 *first,
              gint64 *end)
{
  gint64 lo, hi;

  if (dilation == 1)
    {
      lo = start < 0 ? -start : 0;
      hi = extent - start;
    }
  else
    {
      lo = start < 0 ? (-start - 1) / dilation + 1 : 0;
      hi = start < extent ? (extent - 1 - start) / dilation + 1 : 0;
    }
  *first = lo;
  *end = hi < kernel ? hi : kernel;
}

void ep_pool_geometry (const EpOpCall  *call,
                       const gint64    *input_shape,
                       EpPoolGeometry  *geometry);

G_END_DECLS
