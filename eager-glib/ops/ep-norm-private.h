/* ep-norm-private.h: what the norm family's kernels share with its rules
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#include "ep-types.h"

G_BEGIN_DECLS

/* The channel axis of batch_norm's input of @ndim dimensions (at least
 * 2): 1 for NCHW, the last for NHWC */
guint ep_norm_channel_axis (EpDataFormat format,
                            guint        ndim);

G_END_DECLS
