/* ep-tensor-spec.h
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#if !defined(EP_INSIDE) && !defined(EP_COMPILATION)
# error "Only <eager-glib/eager-glib.h> can be included directly."
#endif

#include <glib-object.h>

#include "ep-tensor.h"

G_BEGIN_DECLS

#define EP_TYPE_TENSOR_SPEC (ep_tensor_spec_get_type ())

typedef struct _EpTensorSpec EpTensorSpec;

EP_EXPORT
GType          ep_tensor_spec_get_type   (void) G_GNUC_CONST;
EP_EXPORT
EpTensorSpec  *ep_tensor_spec_new        (const gint64  *shape,
                                          guint          ndim,
                                          EpDType        dtype,
                                          GError       **error);
EP_EXPORT
EpTensorSpec  *ep_tensor_spec_ref        (EpTensorSpec  *self);
EP_EXPORT
void           ep_tensor_spec_unref      (EpTensorSpec  *self);
EP_EXPORT
const gint64  *ep_tensor_spec_get_shape  (EpTensorSpec  *self,
                                          guint         *ndim);
EP_EXPORT
EpDType        ep_tensor_spec_get_dtype  (EpTensorSpec  *self);
EP_EXPORT
gboolean       ep_tensor_spec_matches    (EpTensorSpec  *self,
                                          EpTensor      *tensor);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (EpTensorSpec, ep_tensor_spec_unref)

G_END_DECLS
