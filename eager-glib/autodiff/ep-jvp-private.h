/* ep-jvp-private.h: forward rules (Jacobian-vector products)
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The forward rule of an op maps tangents of its inputs to tangents of
 * its outputs, with public ops only, so that tapes and outer
 * accumulators differentiate it again (autodiff/jvp-rules.c).
 */

#pragma once

#include "ep-op-private.h"

G_BEGIN_DECLS

/* How an op's forward rule is found, for tests and docs */
typedef enum {
  EP_JVP_NONE,         /* no gradient rule: no tangent flows through */
  EP_JVP_DIRECT,       /* written for the op; takes a batch of tangents */
  EP_JVP_DIAGONAL,     /* elementwise of one input: its reverse rule on the tangent */
  EP_JVP_ELEMENTWISE,  /* elementwise of several: the reverse rule of each input on its
                        * tangent, every operand broadcast to the output */
  EP_JVP_LINEAR,       /* linear in its floating inputs together: the op on the tangents */
  EP_JVP_MULTILINEAR,  /* linear in each floating input: a sum of the op on each tangent */
  EP_JVP_DERIVED,      /* the transpose of its reverse rule (see jvp-rules.c) */
} EpJvpKind;

EpJvpKind  ep_jvp_kind        (const EpOpDef    *op);

/* Sets output_tangents[o] (%NULL: zero) from @tangents (one per input of
 * @call, %NULL for none). With @lead 1 each tangent has a leading batch
 * dimension (k tangents at once; jacobians); an op whose rule cannot
 * take one sets *@batchable to %FALSE and returns %TRUE. */
gboolean   ep_jvp_rule        (const EpOpCall   *call,
                               EpTensor *const  *tangents,
                               guint             lead,
                               EpTensor        **output_tangents,
                               gboolean         *batchable,
                               GError          **error);

G_END_DECLS
