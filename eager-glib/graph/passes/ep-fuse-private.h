/* ep-fuse-private.h: fused elementwise groups (graph/passes/fuse.c makes
 * them, cpu/fused.c runs them)
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#include "ep-cpu-private.h"
#include "ep-graph-private.h"

G_BEGIN_DECLS

/*
 * EpFusedStep:
 *
 * One op of a fused group, as it was traced: its attributes and device
 * (to run it alone when the group cannot run fused), its inputs as
 * registers (the group's external inputs first, then one register per
 * step, its output), the dtype its loop computes in (input 0's) and the
 * dtype of its output, and the CPU kernel's own inner loop for them.
 */
typedef struct
{
  const EpOpDef *op;
  EpOpAttrs      attrs;
  EpDevice      *device;
  guint          n_inputs;
  guint          inputs[2];
  EpDType        in_dtype;
  EpDType        dtype;
  EpCpuLoop      loop;
  gconstpointer  loop_data;
} EpFusedStep;

/*
 * EpFusedProgram:
 *
 * An EP_NODE_FUSED node's group: the dtypes of its external inputs (the
 * node's inputs), and its steps in their traced order; the last step's
 * value is the node's one output. With @reduce, the last step is a sum
 * or a mean (@mean) over every axis, or over the last one only
 * (@last_axis), with @keepdims as its attribute, of the step before,
 * which the fused loop sums as it makes it. With @keep, the summed value
 * is an output too (the node's second): others read it after the sum,
 * as softmax reads exp's values to divide them by their sum. With
 * @epilogue instead, the last step is an arithmetic op of those values
 * and their sum (last axis, keepdims), after the sum: softmax's
 * division, run on each row as soon as its sum is known, while the row
 * is in the cache; the values and the sum are then no outputs. Groups
 * on OpenCL have no sum (yet).
 */
struct _EpFusedProgram
{
  gatomicrefcount  ref_count;
  guint            n_externals;
  EpDType         *external_dtypes;
  guint            n_steps;
  EpFusedStep     *steps;
  gboolean         reduce;
  gboolean         mean;
  gboolean         last_axis;
  gboolean         keepdims;
  gboolean         keep;
  gboolean         epilogue;

  /* the group as a kernel of the device its steps run on, made at its
   * first run (opencl/fused.c) */
  gpointer         device_kernel;
  GDestroyNotify   device_kernel_free;
};

EpFusedProgram *ep_fused_program_new   (guint           n_externals,
                                        guint           n_steps);
EpFusedProgram *ep_fused_program_ref   (EpFusedProgram *self);
void            ep_fused_program_unref (EpFusedProgram *self);
gboolean        ep_fused_step_init     (EpFusedStep    *step,
                                        const EpOpDef  *op,
                                        EpDType         in_dtype,
                                        EpDType         dtype);

/* cpu/fused.c: runs @program on @inputs; @layouts and @storages get the
 * outputs (new; two with @keep), from @alloc. Runs the steps one by
 * one, as the unfused graph would, where the group cannot run fused
 * (layouts, devices). */
gboolean        ep_fused_run           (EpFusedProgram  *program,
                                        EpTensor *const *inputs,
                                        EpFusedAllocFunc alloc,
                                        gpointer         alloc_data,
                                        EpLayout        *layouts,
                                        EpStorage      **storages,
                                        GError         **error);

gboolean        ep_fused_dispatch      (EpFusedProgram  *program,
                                        EpTensor *const *inputs,
                                        EpTensor       **outputs,
                                        GError         **error);

gboolean        ep_fused_program_fits  (EpFusedProgram  *program,
                                        const EpLayout  *layouts);
gboolean        ep_fused_broadcast     (const EpLayout  *a,
                                        const EpLayout  *b,
                                        EpLayout        *out);

/* graph/passes/fuse.c */
EpGraph        *ep_graph_fuse          (EpGraph        *self);

G_END_DECLS
