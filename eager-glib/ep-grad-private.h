/* ep-grad-private.h: helpers for gradient rules (EpGradFunc)
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * A gradient rule maps the gradients of an op's outputs to the gradients
 * of its inputs with public ops only, so that an outer tape records the
 * backward pass (higher-order derivatives) and a tracer can stage it.
 * These helpers are built on public ops too; so are those of
 * ep-math-private.h (ep_grad_sum_to_shape, ep_grad_keep_reduced,
 * ep_grad_mask) and ep-shape-private.h (ep_grad_zeros, ep_grad_int64,
 * ep_grad_swap_last).
 */

#pragma once

#include "ep-op-private.h"

G_BEGIN_DECLS

/*
 * EpGradContext:
 *
 * Set by the tape around each call of a rule: the inputs whose gradients
 * it will use (a bit per input; inputs from 32 on are always wanted).
 */
typedef struct
{
  const EpOpCall *call;
  guint32         needed;
} EpGradContext;

EpGradContext *ep_grad_context_push (EpGradContext  *context);
void           ep_grad_context_pop  (EpGradContext  *previous);

gboolean   ep_grad_needed          (const EpOpCall  *call,
                                    guint            input);
EpTensor  *ep_grad_literal         (gdouble          value);
EpTensor  *ep_grad_gathered        (EpTensor        *x,
                                    EpTensor        *indices,
                                    EpTensor        *values,
                                    gint             axis,
                                    EpTensor        *grad,
                                    GError         **error);
EpTensor  *ep_grad_broadcast       (EpTensor        *grad,
                                    const EpLayout  *like,
                                    GError         **error);

G_END_DECLS
