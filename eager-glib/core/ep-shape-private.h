/* ep-shape-private.h: helpers shared by the rules and the kernels of the
 * shape and linear algebra ops
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#include "ep-op-private.h"

G_BEGIN_DECLS

gint64    ep_pad_source_index  (gint64          o,
                                gint64          before,
                                gint64          extent,
                                EpPadMode       mode);
gboolean  ep_solve_is_vector   (const EpLayout *a,
                                const EpLayout *b);
/* ops/index.c: for the kernels of take, take_along_axis, scatters */
gboolean  ep_index_error       (const EpOpCall *call,
                                gint64          index,
                                GError        **error);
void      ep_take_strides      (const EpLayout *x,
                                const EpLayout *idx,
                                gint            axis,
                                gint64         *index_strides,
                                gint64         *source_strides);
void      ep_gather_strides    (const EpOpCall *call,
                                gint64         *index_strides,
                                gint64         *source_strides);

G_END_DECLS
