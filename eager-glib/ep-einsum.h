/* ep-einsum.h
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#if !defined(EP_INSIDE) && !defined(EP_COMPILATION)
# error "Only <eager-glib/eager-glib.h> can be included directly."
#endif

#include "ep-tensor.h"

G_BEGIN_DECLS

/* Einstein summation: ops/einsum.c */

EP_EXPORT
EpTensor  *ep_einsum (EpTensor   **operands,
                      guint        n_operands,
                      const char  *subscripts,
                      GError     **error);

G_END_DECLS
