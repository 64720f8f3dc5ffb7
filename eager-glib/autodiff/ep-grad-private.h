/* ep-grad-private.h: helpers for gradient rules (EpGradFunc)
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * A gradient rule maps the gradients of an op's outputs to the gradients
 * of its inputs with public ops only, so that an outer tape records the
 * backward pass (higher-order derivatives) and a tracer can stage it.
 * These helpers (autodiff/grad.c) are built on public ops too.
 */

#pragma once

#include "ep-context-private.h"
#include "ep-op-private.h"

G_BEGIN_DECLS

/*
 * EpGradContext:
 *
 * Set by the tape around each call of a rule: the inputs whose gradients
 * it will use (a bit per input; inputs from 32 on are always wanted).
 * The innermost one is the thread's (EpContext's `grad`).
 */
struct _EpGradContext
{
  const EpOpCall *call;
  guint32         needed;
};

EpGradContext *ep_grad_context_push (EpGradContext  *context);
void           ep_grad_context_pop  (EpGradContext  *previous);

gboolean   ep_grad_needed          (const EpOpCall  *call,
                                    guint            input);
gboolean   ep_grad_identity        (const EpOpCall   *call,
                                    EpTensor *const  *output_grads,
                                    EpTensor        **input_grads,
                                    GError          **error);
EpTensor  *ep_grad_literal         (gdouble          value);
EpTensor  *ep_grad_broadcast       (EpTensor        *grad,
                                    const EpLayout  *like,
                                    GError         **error);
EpTensor  *ep_grad_sum_to_shape    (EpTensor        *grad,
                                    EpTensor        *like,
                                    GError         **error);
gboolean   ep_grad_set_summed      (const EpOpCall  *call,
                                    guint            i,
                                    EpTensor        *grad,
                                    EpTensor       **input_grads,
                                    GError         **error);
EpTensor  *ep_grad_keep_reduced    (const EpOpCall  *call,
                                    EpTensor        *reduced,
                                    GError         **error);
EpTensor  *ep_grad_mask            (EpTensor        *mask,
                                    EpTensor        *grad,
                                    GError         **error);
EpTensor  *ep_grad_zeros           (EpTensor        *like,
                                    const gint64    *shape,
                                    guint            ndim,
                                    GError         **error);
EpTensor  *ep_grad_int64           (EpTensor        *like,
                                    const gint64    *data,
                                    const gint64    *shape,
                                    guint            ndim,
                                    GError         **error);
EpTensor  *ep_grad_swap_last       (EpTensor        *t,
                                    GError         **error);
/* ops/index.c: the mirror image of take_along_axis: its gradient, and
 * that of the ops that gather without saying so (sort, topk) */
EpTensor  *ep_grad_scatter_along_axis (EpTensor     *grad,
                                       EpTensor     *indices,
                                       gint          axis,
                                       const gint64 *shape,
                                       guint         ndim,
                                       GError      **error);

G_END_DECLS
