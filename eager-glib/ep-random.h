/* ep-random.h
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#if !defined(EP_INSIDE) && !defined(EP_COMPILATION)
# error "Only <eager-glib/eager-glib.h> can be included directly."
#endif

#include "ep-tensor.h"

G_BEGIN_DECLS

/* Random numbers: ops/random.c */

EP_EXPORT
void      ep_set_seed (guint64        seed);
EP_EXPORT
EpTensor *ep_uniform  (const gint64  *shape,
                       guint          ndim,
                       gdouble        low,
                       gdouble        high,
                       EpDType        dtype,
                       GError       **error);
EP_EXPORT
EpTensor *ep_normal   (const gint64  *shape,
                       guint          ndim,
                       gdouble        mean,
                       gdouble        stddev,
                       EpDType        dtype,
                       GError       **error);

EP_EXPORT
EpTensor *ep_glorot_uniform (const gint64  *shape,
                             guint          ndim,
                             gdouble        gain,
                             EpDType        dtype,
                             GError       **error);
EP_EXPORT
EpTensor *ep_glorot_normal  (const gint64  *shape,
                             guint          ndim,
                             gdouble        gain,
                             EpDType        dtype,
                             GError       **error);
EP_EXPORT
EpTensor *ep_he_uniform     (const gint64  *shape,
                             guint          ndim,
                             EpDType        dtype,
                             GError       **error);
EP_EXPORT
EpTensor *ep_he_normal      (const gint64  *shape,
                             guint          ndim,
                             EpDType        dtype,
                             GError       **error);
EP_EXPORT
EpTensor *ep_tensor_dropout (EpTensor      *self,
                             gdouble        rate,
                             GError       **error);

G_END_DECLS
