/* ep-dispatch-private.h
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#include "ep-op-private.h"

G_BEGIN_DECLS

/* widen.c: a kernel run, float16 and bfloat16 computed in float32 */
gboolean  ep_kernel_run (EpOpCall         *call,
                         EpKernelFunc      kernel,
                         GError          **error);

gboolean  ep_dispatch   (const EpOpDef    *op,
                         EpTensor *const  *inputs,
                         guint             n_inputs,
                         const EpOpAttrs  *attrs,
                         EpTensor        **outputs,
                         GError          **error);
EpTensor *ep_tensor_compact (EpTensor  *self,
                             GError   **error);

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
EpTensor *ep_dispatch_optional_axis (const EpOpDef *op,
                                     EpTensor      *self,
                                     gint           axis,
                                     gboolean       keepdims,
                                     GError       **error);
EpTensor *ep_dispatch_axis_or_flat (const EpOpDef    *op,
                                    EpTensor *const  *inputs,
                                    guint             n_inputs,
                                    guint             n_flattened,
                                    gint              axis,
                                    GError          **error);
/* ops/elementwise.c: @op of @self and @value as a weak literal (integral
 * values are integer literals), behind the `_scalar` methods */
EpTensor *ep_dispatch_binary_scalar (const EpOpDef *op,
                                     EpTensor      *self,
                                     gdouble        value,
                                     GError       **error);

/* The bodies of the public methods of unary ops (ep_tensor_<op>) and of
 * binary ops (ep_tensor_<op> and ep_tensor_<op>_scalar) */
#define EP_DEFINE_UNARY_METHOD(op_name)                                     \
EpTensor *                                                                  \
ep_tensor_##op_name (EpTensor  *self,                                       \
                     GError   **error)                                      \
{                                                                           \
  g_return_val_if_fail (EP_IS_TENSOR (self), NULL);                         \
  return ep_dispatch_unary (&ep_op_##op_name, self, error);                 \
}

#define EP_DEFINE_BINARY_METHOD(op_name)                                    \
EpTensor *                                                                  \
ep_tensor_##op_name (EpTensor  *self,                                       \
                     EpTensor  *other,                                      \
                     GError   **error)                                      \
{                                                                           \
  g_return_val_if_fail (EP_IS_TENSOR (self), NULL);                         \
  g_return_val_if_fail (EP_IS_TENSOR (other), NULL);                        \
  return ep_dispatch_binary (&ep_op_##op_name, self, other, error);         \
}

#define EP_DEFINE_SCALAR_METHOD(op_name)                                    \
EpTensor *                                                                  \
ep_tensor_##op_name##_scalar (EpTensor  *self,                              \
                              gdouble    other,                             \
                              GError   **error)                             \
{                                                                           \
  g_return_val_if_fail (EP_IS_TENSOR (self), NULL);                         \
  return ep_dispatch_binary_scalar (&ep_op_##op_name, self, other, error);  \
}

G_END_DECLS
