/* geometry.c: shapes and strides for kernels, and the launches that
 * kernels share: elementwise (ep_cl_map_kernel, and the groups of ops
 * with one kernel per type), rows (ep_cl_rows_kernel)
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <string.h>

#include "ep-opencl-private.h"
#include "ep-tensor-private.h"

const char *
ep_cl_dtype_suffix (EpDType dtype)
{
  static const char *const suffixes[] = {
    [EP_DTYPE_FLOAT32] = "f32", [EP_DTYPE_FLOAT64] = "f64", [EP_DTYPE_INT32] = "i32",
    [EP_DTYPE_INT64] = "i64", [EP_DTYPE_BOOL] = "b", [EP_DTYPE_UINT8] = "u8",
    [EP_DTYPE_INT8] = "i8", [EP_DTYPE_INT16] = "i16",
    [EP_DTYPE_FLOAT16] = "f16", [EP_DTYPE_BFLOAT16] = "bf16",
  };

  return suffixes[dtype];
}

/* Drops extent-1 dimensions and merges neighbours that every operand
 * walks contiguously, as the CPU iterator does: the fewer dimensions,
 * the less index arithmetic per element. */
static guint
collapse (gint64    *shape,
          gint64   (*strides)[EP_MAX_DIMS],
          guint      n_operands,
          guint      ndim)
{
  guint n = 0;

  for (guint d = 0; d < ndim; d++)
    {
      if (shape[d] == 1)
        continue;
      shape[n] = shape[d];
      for (guint k = 0; k < n_operands; k++)
        strides[k][n] = strides[k][d];
      n++;
    }
  ndim = n;
  if (ndim == 0)
    return 0;

  n = 0;
  for (guint d = 1; d < ndim; d++)
    {
      gboolean mergeable = TRUE;

      for (guint k = 0; k < n_operands; k++)
        mergeable &= strides[k][n] == strides[k][d] * shape[d];

      if (mergeable)
        {
          shape[n] *= shape[d];
          for (guint k = 0; k < n_operands; k++)
            strides[k][n] = strides[k][d];
        }
      else
        {
          n++;
          shape[n] = shape[d];
          for (guint k = 0; k < n_operands; k++)
            strides[k][n] = strides[k][d];
        }
    }

  return n + 1;
}

/* The map of @n_inputs inputs broadcast to @out, as the words of an
 * EpMap of EP_MAP_OPERANDS = @n_slots (kernels/common.cl): n, ndim,
 * shape, then per operand its offset, its kind and its strides. @words
 * has EP_CL_MAP_WORDS (@n_slots - 1) of them. */
void
ep_cl_map_fill (cl_long               *words,
                guint                  n_slots,
                const EpLayout        *out,
                const EpLayout *const *inputs,
                guint                  n_inputs)
{
  guint n_operands = 1 + n_inputs;
  g_autofree gint64 (*strides)[EP_MAX_DIMS] = g_malloc (n_operands * sizeof *strides);
  cl_long *offsets = words + 2 + EP_MAX_DIMS;
  cl_long *kinds = offsets + n_slots;
  cl_long (*map_strides)[EP_MAX_DIMS] = (cl_long (*)[EP_MAX_DIMS]) (kinds + n_slots);

  g_assert (n_operands <= n_slots);
  gint64 shape[EP_MAX_DIMS];
  gint64 stride = 1;
  guint ndim;

  memset (words, 0, EP_CL_MAP_WORDS (n_slots - 1) * sizeof (cl_long));
  memcpy (shape, out->shape, out->ndim * sizeof (gint64));

  for (guint d = out->ndim; d-- > 0;)
    {
      strides[0][d] = stride;
      stride *= out->shape[d];
    }
  for (guint i = 0; i < n_inputs; i++)
    {
      const EpLayout *in = inputs[i];
      guint lead = out->ndim - in->ndim;

      for (guint d = 0; d < out->ndim; d++)
        strides[i + 1][d] = (d < lead || in->shape[d - lead] == 1) ? 0 : in->strides[d - lead];
      offsets[i + 1] = in->offset;
    }

  ndim = collapse (shape, strides, n_operands, out->ndim);

  words[0] = ep_layout_get_size (out);
  words[1] = ndim;
  for (guint d = 0; d < ndim; d++)
    words[2 + d] = shape[d];
  for (guint k = 0; k < n_operands; k++)
    {
      gboolean contiguous = TRUE, scalar = TRUE;

      for (guint d = 0; d < ndim; d++)
        {
          map_strides[k][d] = strides[k][d];
          contiguous &= strides[k][d] == strides[0][d];
          scalar &= strides[k][d] == 0;
        }
      kinds[k] = contiguous ? EP_CL_CONTIGUOUS : scalar ? EP_CL_SCALAR : EP_CL_STRIDED;
    }
}

void
ep_cl_map_init (EpCLMap  *map,
                EpOpCall *call)
{
  const EpLayout *inputs[EP_CL_MAX_OPERANDS - 1];

  G_STATIC_ASSERT (sizeof (EpCLMap) == EP_CL_MAP_WORDS (EP_CL_MAX_OPERANDS - 1) * sizeof (cl_long));
  g_assert (call->n_inputs < EP_CL_MAX_OPERANDS);

  for (guint i = 0; i < call->n_inputs; i++)
    inputs[i] = &call->inputs[i]->layout;
  ep_cl_map_fill ((cl_long *) map, EP_CL_MAX_OPERANDS, &call->outputs[0]->layout, inputs, call->n_inputs);
}

/* One group of dimensions of a reduction: the kept ones or the reduced
 * ones, collapsed. Returns the number of elements. */
static gint64
reduce_group (const EpLayout *input,
              const gboolean *reduced,
              gboolean        want_reduced,
              cl_long        *shape_out,
              cl_long        *strides_out,
              cl_long        *ndim_out)
{
  gint64 shape[EP_MAX_DIMS];
  gint64 strides[1][EP_MAX_DIMS];
  guint n = 0;
  gint64 size = 1;

  for (guint d = 0; d < input->ndim; d++)
    if (reduced[d] == want_reduced)
      {
        shape[n] = input->shape[d];
        strides[0][n] = input->strides[d];
        size *= input->shape[d];
        n++;
      }

  n = collapse (shape, strides, 1, n);
  for (guint d = 0; d < n; d++)
    {
      shape_out[d] = shape[d];
      strides_out[d] = strides[0][d];
    }
  *ndim_out = n;

  return size;
}

void
ep_cl_reduce_init (EpCLReduce     *reduce,
                   const EpLayout *input,
                   const gint     *axes,
                   guint           n_axes)
{
  gboolean reduced[EP_MAX_DIMS] = { FALSE };

  memset (reduce, 0, sizeof *reduce);
  for (guint a = 0; a < n_axes; a++)
    reduced[axes[a]] = TRUE;

  reduce->offset = input->offset;
  reduce->m = reduce_group (input, reduced, FALSE, reduce->out_shape, reduce->out_strides,
                            &reduce->out_ndim);
  reduce->k = reduce_group (input, reduced, TRUE, reduce->red_shape, reduce->red_strides,
                            &reduce->red_ndim);
}

void
ep_cl_rows_init (EpCLRows              *rows,
                 const EpLayout *const *layouts,
                 guint                  n_layouts,
                 guint                  axis,
                 gint64                 length)
{
  const EpLayout *first = layouts[0];
  guint n = 0;

  g_assert (n_layouts <= 3);

  memset (rows, 0, sizeof *rows);
  rows->rows = 1;
  rows->length = length;
  for (guint d = 0; d < first->ndim; d++)
    {
      if (d == axis)
        continue;
      rows->outer_shape[n] = first->shape[d];
      rows->rows *= first->shape[d];
      for (guint k = 0; k < n_layouts; k++)
        rows->outer_strides[k][n] = layouts[k]->strides[d];
      n++;
    }
  rows->outer_ndim = n;
  for (guint k = 0; k < n_layouts; k++)
    {
      rows->offsets[k] = layouts[k]->offset;
      rows->axis_strides[k] = axis < layouts[k]->ndim ? layouts[k]->strides[axis] : 0;
    }
}

/* A contiguous layout seen as one dimension. */
void
ep_cl_flat_layout (const EpLayout *layout,
                   EpLayout       *flat)
{
  *flat = *layout;
  flat->ndim = 1;
  flat->shape[0] = ep_layout_get_size (layout);
  flat->strides[0] = 1;
}

/* The launch of every elementwise kernel: (output, inputs…, geometry),
 * one work-item per element at most. Callers whose kernel computes in
 * float64 check first that the device has it (ep_opencl_check_dtype);
 * kernels that only move bytes work everywhere. */
gboolean
ep_cl_map_kernel (EpOpCall    *call,
                  const char  *program,
                  const char  *kernel_name,
                  GError     **error)
{
  return ep_cl_map_kernel_with (call, program, kernel_name, -1, error);
}

/* The same with one more argument, @selector (an op or a dtype), for
 * kernels that serve several (none when negative). */
gboolean
ep_cl_map_kernel_with (EpOpCall    *call,
                       const char  *program,
                       const char  *kernel_name,
                       cl_int       selector,
                       GError     **error)
{
  EpCLLaunch launch;
  EpCLMap map;
  gsize local;

  ep_cl_map_init (&map, call);

  if (!ep_cl_launch_init (&launch, call, program, kernel_name, error))
    return FALSE;

  ep_cl_launch_tensor (&launch, call->outputs[0]);
  for (guint i = 0; i < call->n_inputs; i++)
    ep_cl_launch_tensor (&launch, call->inputs[i]);
  ep_cl_launch_arg (&launch, sizeof map, &map);
  if (selector >= 0)
    ep_cl_launch_arg (&launch, sizeof selector, &selector);

  local = ep_cl_launch_local_size (&launch);
  return ep_cl_launch_run (&launch, ep_cl_launch_global_size (&launch, map.n, local), local, error);
}

/* The program and the group of each op registered by
 * ep_cl_register_groups(). */
static const char *group_programs[EP_N_OPS];
static const char *group_names[EP_N_OPS];

/* Kernels are named after the group and the type they compute in
 * (arith_f32, compare_i64, unary_f64) and take the op. The op's rule only
 * lets through types that have a case. */
static gboolean
opencl_group (EpOpCall  *call,
              GError   **error)
{
  EpDType dtype = call->inputs[0]->layout.dtype;
  char name[64];

  if (!ep_opencl_check_dtype (call->device, call->op->name, dtype, error)
      || !ep_opencl_check_dtype (call->device, call->op->name, call->outputs[0]->layout.dtype, error))
    return FALSE;

  g_snprintf (name, sizeof name, "%s_%s", group_names[call->op->id], ep_cl_dtype_suffix (dtype));

  return ep_cl_map_kernel_with (call, group_programs[call->op->id], name, call->op->id, error);
}

/* Elementwise ops that share one kernel per group and type: each op of
 * @groups runs <group>_<type> of @program with the op as its selector. */
void
ep_cl_register_groups (EpKernelFunc    *kernels,
                       const char      *program,
                       const EpCLGroup *groups,
                       guint            n_groups)
{
  for (guint f = 0; f < n_groups; f++)
    for (guint i = 0; i < G_N_ELEMENTS (groups[f].ops); i++)
      {
        EpOpId op = groups[f].ops[i];

        /* the list ends at the first 0, which is no elementwise op */
        if (op == 0)
          break;
        kernels[op] = opencl_group;
        group_programs[op] = program;
        group_names[op] = groups[f].group;
      }
}

/* The program whose elementwise family defines @op as a case of its
 * group kernels (ep_cl_register_groups()), or NULL: the ops a fused
 * group can call (opencl/fused.c) */
const char *
ep_cl_group_program (EpOpId op)
{
  return op < EP_N_OPS ? group_programs[op] : NULL;
}

/* The input's layout for an op along one axis or over the flattened
 * tensor (cumsum, argmin, argmax): 1-D when flat. Returns the axis. */
guint
ep_cl_axis_or_flat (const EpOpCall *call,
                    EpLayout       *in_layout)
{
  if (call->attrs.all_axes)
    {
      ep_cl_flat_layout (&call->inputs[0]->layout, in_layout);
      return 0;
    }

  *in_layout = call->inputs[0]->layout;
  return call->attrs.axes[0];
}

/* One work-item per row: (output, input, rows). */
gboolean
ep_cl_rows_kernel (EpOpCall        *call,
                   const char      *program,
                   const char      *kernel_name,
                   EpTensor        *out,
                   EpTensor        *in,
                   const EpCLRows  *rows,
                   GError         **error)
{
  EpCLLaunch launch;
  gsize local;

  if (!ep_cl_launch_init (&launch, call, program, kernel_name, error))
    return FALSE;

  ep_cl_launch_tensor (&launch, out);
  ep_cl_launch_tensor (&launch, in);
  ep_cl_launch_arg (&launch, sizeof *rows, rows);

  local = ep_cl_launch_local_size (&launch);
  return ep_cl_launch_run (&launch, ep_cl_launch_global_size (&launch, rows->rows, local), local, error);
}
