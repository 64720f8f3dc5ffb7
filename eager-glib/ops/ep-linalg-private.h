/* ep-linalg-private.h
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#include "ep-tensor-private.h"

G_BEGIN_DECLS

void     ep_matmul_operand_as_matrix (const EpLayout *in,
                                      gboolean        left,
                                      EpLayout       *matrix);
gboolean ep_blas_layout              (gint64          rows,
                                      gint64          cols,
                                      gint64          row_stride,
                                      gint64          col_stride,
                                      gboolean       *transposed,
                                      gint64         *leading);

G_END_DECLS
