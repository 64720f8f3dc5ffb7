/* ep-creation.h
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#if !defined(EP_INSIDE) && !defined(EP_COMPILATION)
# error "Only <eager-glib/eager-glib.h> can be included directly."
#endif

#include "ep-tensor.h"

G_BEGIN_DECLS

/* Creation: ops/creation.c */

EP_EXPORT
EpTensor *ep_zeros    (const gint64  *shape,
                       guint          ndim,
                       EpDType        dtype,
                       GError       **error);
EP_EXPORT
EpTensor *ep_ones     (const gint64  *shape,
                       guint          ndim,
                       EpDType        dtype,
                       GError       **error);
EP_EXPORT
EpTensor *ep_full     (const gint64  *shape,
                       guint          ndim,
                       gdouble        value,
                       EpDType        dtype,
                       GError       **error);
EP_EXPORT
EpTensor *ep_full_int (const gint64  *shape,
                       guint          ndim,
                       gint64         value,
                       EpDType        dtype,
                       GError       **error);
EP_EXPORT
EpTensor *ep_arange   (gdouble        start,
                       gdouble        stop,
                       gdouble        step,
                       EpDType        dtype,
                       GError       **error);
EP_EXPORT
EpTensor *ep_arange_int (gint64       start,
                         gint64       stop,
                         gint64       step,
                         EpDType      dtype,
                         GError     **error);
EP_EXPORT
EpTensor *ep_linspace (gdouble        start,
                       gdouble        stop,
                       gint64         num,
                       gboolean       endpoint,
                       EpDType        dtype,
                       GError       **error);
EP_EXPORT
EpTensor *ep_eye      (gint64         n,
                       gint64         m,
                       gint64         k,
                       EpDType        dtype,
                       GError       **error);

G_END_DECLS
