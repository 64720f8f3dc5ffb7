/* ep-dlpack.h
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#if !defined(EP_INSIDE) && !defined(EP_COMPILATION)
# error "Only <eager-glib/eager-glib.h> can be included directly."
#endif

#include "ep-tensor.h"

G_BEGIN_DECLS

/* DLPack, zero-copy exchange with other array libraries: core/dlpack.c */

EP_EXPORT
gpointer       ep_tensor_to_dlpack          (EpTensor       *self,
                                             GError        **error);
EP_EXPORT
EpTensor      *ep_tensor_new_from_dlpack    (gpointer        managed_tensor,
                                             GError        **error);

G_END_DECLS
