/* ep-conv-private.h: the geometry of a 2-D convolution, for its kernels
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#include "ep-op-private.h"

G_BEGIN_DECLS

/* One convolution as every kernel of the family sees it: the images
 * (n, c, h, w), the weight (o, c / groups, kh, kw), the output
 * (n, o, oh, ow), whatever the memory order (nhwc: the images and the
 * output are n, h, w, c). Checked by the rule: every size fits, and
 * n * c * h * w, o * c / groups * kh * kw and n * o * oh * ow are the
 * element counts of tensors that exist. */
typedef struct
{
  gint64   n, c, h, w;
  gint64   o, kh, kw;
  gint64   oh, ow;
  gint64   stride_h, stride_w, pad_h, pad_w, dilation_h, dilation_w;
  gint64   groups;
  gboolean nhwc;
} EpConvGeometry;

void ep_conv_geometry_from_call (const EpOpCall *call,
                                 EpConvGeometry *geometry);

G_END_DECLS
