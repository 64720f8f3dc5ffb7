/* ep-shape-private.h: helpers shared by the shape, indexing and linear
 * algebra ops and their gradient rules (ep-grad-shape.c)
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#include "ep-op-private.h"

G_BEGIN_DECLS

EpTensor *ep_grad_zeros        (EpTensor       *like,
                                const gint64   *shape,
                                guint           ndim,
                                GError        **error);
EpTensor *ep_grad_int64        (EpTensor       *like,
                                const gint64   *data,
                                const gint64   *shape,
                                guint           ndim,
                                GError        **error);
EpTensor *ep_grad_swap_last    (EpTensor       *t,
                                GError        **error);
gint64    ep_pad_source_index  (gint64          o,
                                gint64          before,
                                gint64          extent,
                                EpPadMode       mode);
gboolean  ep_solve_is_vector   (const EpLayout *a,
                                const EpLayout *b);
/* ep-ops-index.c: the mirror image of take_along_axis (its gradient, and
 * that of sort and topk) */
EpTensor *ep_grad_scatter_along_axis (EpTensor     *grad,
                                      EpTensor     *indices,
                                      gint          axis,
                                      const gint64 *shape,
                                      guint         ndim,
                                      GError      **error);
gboolean  ep_op_check_indices  (const EpOpCall *call,
                                guint           input,
                                gint64          extent,
                                gint            axis,
                                GError        **error);

G_END_DECLS
