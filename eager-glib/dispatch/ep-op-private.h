/* ep-op-private.h
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#include "ep-tensor-private.h"

G_BEGIN_DECLS

#define EP_MAX_OUTPUTS 4

typedef enum {
#define EP_OP(ID, name) EP_OP_##ID,
#include "ep-op-list-private.h"
#undef EP_OP
  EP_N_OPS
} EpOpId;

typedef struct _EpOpDef EpOpDef;
typedef struct _EpOpCall EpOpCall;

/*
 * EpOpAttrs:
 *
 * The non-tensor arguments of an op, as plain values so that tapes and
 * traced graphs can copy them and a graph file can store them. The op's
 * rule reads and canonicalizes the fields it uses (negative axes made
 * positive, -1 in a shape resolved); kernels see canonical values.
 */
typedef struct
{
  gint      axes[EP_MAX_DIMS];
  guint     n_axes;
  gboolean  all_axes;
  gboolean  keepdims;
  gint64    ints[3 * EP_MAX_DIMS];
  guint     n_ints;
  gdouble   values[4];
  EpDType   dtype;
  EpDevice *device;
} EpOpAttrs;

/*
 * EpOpCall:
 *
 * One call of an op on its way through ep_dispatch(). The rule fills the
 * output layouts and may ask for inputs to be cast (@input_dtypes) or
 * made contiguous (@contiguous_inputs, a bit per input). Kernels and
 * recorders see the inputs after those conversions.
 */
struct _EpOpCall
{
  const EpOpDef  *op;
  EpTensor      **inputs;
  guint           n_inputs;
  EpOpAttrs       attrs;
  EpDType        *input_dtypes;
  guint32         contiguous_inputs;
  EpLayout        output_layouts[EP_MAX_OUTPUTS];
  guint           n_outputs;
  EpDevice       *device;
  EpTensor       *outputs[EP_MAX_OUTPUTS];
};

typedef gboolean (*EpInferFunc)    (EpOpCall        *call,
                                    GError         **error);
typedef gboolean (*EpKernelFunc)   (EpOpCall        *call,
                                    GError         **error);
/*
 * EpGradFunc:
 * @call: the recorded call: its inputs, attributes and outputs
 * @output_grads: one gradient per output, never %NULL
 * @input_grads: (out): one gradient per input, shaped like the input,
 *   or %NULL where the input gets no gradient
 *
 * Written with public ops only, so that the backward pass is dispatched
 * like any other code and outer tapes and tracers record it.
 */
typedef gboolean (*EpGradFunc)     (const EpOpCall  *call,
                                    EpTensor *const *output_grads,
                                    EpTensor       **input_grads,
                                    GError         **error);

typedef enum {
  EP_OP_FLAG_NONE = 0,
  /* The output is a view of input 0: no kernel runs, no device moves. */
  EP_OP_FLAG_VIEW = 1 << 0,
  /* The op places its output on attrs.device, when set, rather than by
   * scope and inputs; its inputs are not moved. */
  EP_OP_FLAG_PLACE_BY_ATTR = 1 << 1,
  /* The rule reads the data of some inputs (ep_op_read_input()), not only
   * their layouts: the output's shape (mask) or the validity of the call
   * (indices in range for take) depends on values. A tracer cannot
   * assume such an op keeps its output shape for other input values. */
  EP_OP_FLAG_READS_DATA = 1 << 2,
  /* The op runs where input 0 lives, whatever the scope: layout
   * conversions that dispatch and to_bytes make on the way to another
   * device (copying there first would need them again). */
  EP_OP_FLAG_PLACE_WITH_INPUT = 1 << 3,
} EpOpFlags;

struct _EpOpDef
{
  EpOpId       id;
  const char  *name;
  gint         n_inputs;   /* -1: one or more */
  EpOpFlags    flags;
  EpInferFunc  infer;
  EpGradFunc   gradient;   /* NULL: no input gets a gradient */
};

#define EP_OP(ID, name) extern const EpOpDef ep_op_##name;
#include "ep-op-list-private.h"
#undef EP_OP

const EpOpDef *ep_op_get           (EpOpId       id);
const EpOpDef *ep_op_lookup        (const char  *name);
void           ep_op_attrs_init    (EpOpAttrs   *attrs);
gboolean       ep_op_attrs_set_axes (EpOpAttrs  *attrs,
                                     const gint *axes,
                                     guint       n_axes,
                                     const char *op_name,
                                     GError    **error);
void           ep_op_attrs_set_axis (EpOpAttrs  *attrs,
                                     gint        axis);
void           ep_op_attrs_set_ints (EpOpAttrs    *attrs,
                                     const gint64 *ints,
                                     guint         n_ints);

G_END_DECLS

/* Helpers for op rules: ep-op.c */

G_BEGIN_DECLS

gboolean  ep_op_normalize_axes   (EpOpCall        *call,
                                  guint            ndim,
                                  GError         **error);
gboolean  ep_op_normalize_reduction_axes (EpOpCall *call,
                                          GError  **error);
gboolean  ep_op_normalize_axis   (const EpOpCall  *call,
                                  gint             axis,
                                  guint            ndim,
                                  gint            *normalized,
                                  GError         **error);
gboolean  ep_op_broadcast        (EpOpCall        *call,
                                  EpLayout        *out,
                                  GError         **error);
EpDType   ep_op_result_dtype     (EpTensor *const *inputs,
                                  guint            n_inputs);
void      ep_op_cast_all_inputs  (EpOpCall        *call,
                                  EpDType          dtype);
gboolean  ep_op_error_dtype      (const EpOpCall  *call,
                                  EpDType          dtype,
                                  GError         **error);
void      ep_op_set_output       (EpOpCall        *call,
                                  EpDType          dtype,
                                  const gint64    *shape,
                                  guint            ndim);

/* For rules of EP_OP_FLAG_READS_DATA ops: ep-op.c */
GBytes   *ep_op_read_input       (const EpOpCall  *call,
                                  guint            i,
                                  GError         **error);
gboolean  ep_op_check_indices    (const EpOpCall  *call,
                                  guint            input,
                                  gint64           extent,
                                  gint             axis,
                                  GError         **error);

G_END_DECLS
