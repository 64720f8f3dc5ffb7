/* ep-dispatch-private.h
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#include "ep-op-private.h"

G_BEGIN_DECLS

gboolean  ep_dispatch   (const EpOpDef    *op,
                         EpTensor *const  *inputs,
                         guint             n_inputs,
                         const EpOpAttrs  *attrs,
                         EpTensor        **outputs,
                         GError          **error);
EpTensor *ep_dispatch1  (const EpOpDef    *op,
                         EpTensor *const  *inputs,
                         guint             n_inputs,
                         const EpOpAttrs  *attrs,
                         GError          **error);
EpTensor *ep_dispatch_unary  (const EpOpDef *op,
                              EpTensor      *input,
                              GError       **error);
EpTensor *ep_dispatch_binary (const EpOpDef *op,
                              EpTensor      *a,
                              EpTensor      *b,
                              GError       **error);
EpTensor *ep_dispatch_axes   (const EpOpDef *op,
                              EpTensor      *self,
                              const gint    *axes,
                              guint          n_axes,
                              gboolean       keepdims,
                              GError       **error);
EpTensor *ep_dispatch_axis   (const EpOpDef    *op,
                              EpTensor *const  *inputs,
                              guint             n_inputs,
                              gint              axis,
                              GError          **error);
/* ep-ops-binary.c: @op of @self and @value as a weak literal (integral
 * values are integer literals), behind the `_scalar` methods */
EpTensor *ep_dispatch_binary_scalar (const EpOpDef *op,
                                     EpTensor      *self,
                                     gdouble        value,
                                     GError       **error);

G_END_DECLS
