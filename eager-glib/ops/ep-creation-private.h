/* ep-creation-private.h: creation ops on a named device
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The public creation functions (ep_full, ep_arange) run where the
 * placement rule puts an op without inputs: the innermost device scope,
 * else cpu:0. These make the same ops on @device (attrs.device, which
 * placement honours first) and leave the caller's scope alone: for
 * gradient rules, whose constants belong where their input lives.
 */

#pragma once

#include "ep-scalar-private.h"
#include "ep-tensor.h"

G_BEGIN_DECLS

EpTensor *ep_full_on   (EpDevice      *device,
                        const gint64  *shape,
                        guint          ndim,
                        EpNumber       value,
                        EpDType        dtype,
                        GError       **error);
EpTensor *ep_arange_on (EpDevice      *device,
                        EpNumber       start,
                        EpNumber       stop,
                        EpNumber       step,
                        EpDType        dtype,
                        GError       **error);

G_END_DECLS
