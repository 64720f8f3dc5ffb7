/* fused.c: fused elementwise groups on the CPU (EP_NODE_FUSED)
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * A group made by graph/passes/fuse.c runs as one blocked loop, in the
 * manner of numexpr's virtual machine: the output is cut into tiles of
 * TILE elements, and each tile runs every step through the inner loop
 * the op's own kernel runs (the same loops, SLEEF's included, with the
 * same dtypes), each step's value in a buffer of one tile that stays in
 * the cache. The elements are computed as the unfused kernels compute
 * them, so the results are the same bit for bit. Threads split the
 * tiles.
 *
 * Each value of the group, inputs and steps, is seen from the output's
 * shape as one of four kinds: FULL (the output's shape), SCALAR (one
 * element), ROW (constant along the last axis: a keepdims reduction
 * over it, as in softmax) or COL (varies along the last axis only: a
 * bias). With a ROW or COL value, tiles stay within a row of the last
 * axis. Anything else (other broadcasts, inputs that are not contiguous
 * or not on the CPU) runs the steps one by one as the unfused graph
 * would (run_steps()).
 */

#include "config.h"

#include <glib/gi18n-lib.h>
#include <string.h>

#include "ep-dispatch-private.h"
#include "ep-error.h"
#include "ep-fault-private.h"
#include "ep-fuse-private.h"
#include "ep-tensor-private.h"

/* Elements per tile: a few steps' buffers of 16 or 32 KiB stay in L2 */
#define TILE 4096

typedef enum {
  FAMILY_OTHER,
  FAMILY_CAST,
  FAMILY_ELEMENTWISE,
  FAMILY_MATH,
  FAMILY_LOGICAL,
} Family;

#define FAMILY_cast FAMILY_CAST
#define FAMILY_elementwise FAMILY_ELEMENTWISE
#define FAMILY_math FAMILY_MATH
#define FAMILY_logical FAMILY_LOGICAL
#define FAMILY_creation FAMILY_OTHER
#define FAMILY_random FAMILY_OTHER
#define FAMILY_reduce FAMILY_OTHER
#define FAMILY_scan FAMILY_OTHER
#define FAMILY_sort FAMILY_OTHER
#define FAMILY_softmax FAMILY_OTHER
#define FAMILY_norm FAMILY_OTHER
#define FAMILY_views FAMILY_OTHER
#define FAMILY_join FAMILY_OTHER
#define FAMILY_index FAMILY_OTHER
#define FAMILY_linalg FAMILY_OTHER
#define FAMILY_lapack FAMILY_OTHER
#define FAMILY_conv FAMILY_OTHER
#define FAMILY_pool FAMILY_OTHER
#define FAMILY_fft FAMILY_OTHER
#define FAMILY_autodiff FAMILY_OTHER
#define FAMILY_collective FAMILY_OTHER

static const Family families[EP_N_OPS] = {
#define EP_OP(family, ID, name) [EP_OP_##ID] = FAMILY_##family,
#define EP_FUNC(family, name)
#include "ep-op-list-private.h"
#undef EP_OP
#undef EP_FUNC
};

EpFusedProgram *
ep_fused_program_new (guint n_externals,
                      guint n_steps)
{
  EpFusedProgram *self = g_new0 (EpFusedProgram, 1);

  g_atomic_ref_count_init (&self->ref_count);
  self->n_externals = n_externals;
  self->external_dtypes = g_new0 (EpDType, MAX (n_externals, 1));
  self->n_steps = n_steps;
  self->steps = g_new0 (EpFusedStep, MAX (n_steps, 1));
  return self;
}

EpFusedProgram *
ep_fused_program_ref (EpFusedProgram *self)
{
  g_atomic_ref_count_inc (&self->ref_count);
  return self;
}

void
ep_fused_program_unref (EpFusedProgram *self)
{
  if (!g_atomic_ref_count_dec (&self->ref_count))
    return;

  if (self->device_kernel_free != NULL)
    self->device_kernel_free (self->device_kernel);
  g_free (self->external_dtypes);
  g_free (self->steps);
  g_free (self);
}

/* Finds the loop the CPU kernel of @op runs on inputs of @in_dtype giving
 * @dtype: FALSE for an op that has none (or is no plain elementwise op
 * of one or two inputs), which then stays out of fused groups. */
gboolean
ep_fused_step_init (EpFusedStep   *step,
                    const EpOpDef *op,
                    EpDType        in_dtype,
                    EpDType        dtype)
{
  EpCpuLoop loop = NULL;
  gconstpointer data = NULL;

  /* (uint8 stays out of fused groups, as the OpenCL fused programs leave
   * out its element functions: common.cl's U8) */
  if (op->id >= EP_N_OPS || in_dtype > EP_DTYPE_BOOL || dtype > EP_DTYPE_BOOL)
    return FALSE;

  switch (families[op->id])
    {
    case FAMILY_MATH:
      if (op->n_inputs == 1 && dtype == in_dtype)
        loop = ep_cpu_math_loop (op->id, in_dtype, &data);
      break;
    case FAMILY_ELEMENTWISE:
      if (op->n_inputs == 2 && op->n_attrs == 0 && dtype == in_dtype)
        loop = ep_cpu_binary_loop (op->id, in_dtype);
      break;
    case FAMILY_LOGICAL:
      if (op->n_inputs <= 2 && op->n_attrs == 0 && dtype == EP_DTYPE_BOOL)
        loop = ep_cpu_logical_loop (op->id, in_dtype);
      break;
    case FAMILY_CAST:
      if (op->id == EP_OP_ASTYPE)
        loop = ep_cpu_cast_loop (in_dtype, dtype);
      break;
    case FAMILY_OTHER:
      break;
    }

  if (loop == NULL)
    return FALSE;

  step->op = op;
  step->n_inputs = op->n_inputs;
  step->in_dtype = in_dtype;
  step->dtype = dtype;
  step->loop = loop;
  step->loop_data = data;
  return TRUE;
}

/* The fallback: each step as the executor runs an op node (its rule,
 * the conversions it asks for, its kernel on the traced device). */
static gboolean
run_step (const EpFusedStep  *step,
          EpTensor          **inputs,
          EpTensor          **output,
          GError            **error)
{
  EpDType dtypes[2];
  g_autoptr(GPtrArray) temporaries = g_ptr_array_new_with_free_func (g_object_unref);
  EpOpCall call = { 0 };
  g_autoptr(EpStorage) storage = NULL;
  EpKernelFunc kernel;

  call.op = step->op;
  call.n_inputs = step->n_inputs;
  call.inputs = inputs;
  call.input_dtypes = dtypes;
  call.attrs = step->attrs;
  call.given_attrs = &step->attrs;
  call.n_outputs = 1;
  for (guint i = 0; i < step->n_inputs; i++)
    dtypes[i] = inputs[i]->layout.dtype;

  if (!ep_op_check_call (step->op, inputs, step->n_inputs, &call.attrs, error)
      || !step->op->infer (&call, error))
    return FALSE;

  for (guint i = 0; i < call.n_inputs; i++)
    {
      gboolean wants_contiguous = (call.contiguous_inputs & (1u << i)) != 0;
      EpTensor *converted;

      if (inputs[i]->layout.dtype == dtypes[i]
          && (!wants_contiguous || ep_layout_is_contiguous (&inputs[i]->layout)))
        continue;
      converted = ep_tensor_astype (inputs[i], dtypes[i], error);
      if (converted == NULL)
        return FALSE;
      g_ptr_array_add (temporaries, converted);
      if (wants_contiguous)
        {
          converted = ep_tensor_compact (converted, error);
          if (converted == NULL)
            return FALSE;
          g_ptr_array_add (temporaries, converted);
        }
      inputs[i] = converted;
    }

  call.device = step->device;
  storage = ep_layout_alloc (&call.output_layouts[0], call.device, error);
  if (storage == NULL)
    {
      g_prefix_error (error, "%s: ", step->op->name);
      return FALSE;
    }
  *output = ep_tensor_new_with_storage (&call.output_layouts[0], storage);
  call.outputs[0] = *output;
  if (ep_layout_get_size (&call.output_layouts[0]) == 0)
    return TRUE;

  kernel = call.device->backend->kernels[step->op->id];
  if (kernel == NULL)
    {
      g_set_error (error, EP_ERROR, EP_ERROR_DEVICE, _("%s: not implemented on device %s"),
                   step->op->name, call.device->name);
      return FALSE;
    }
  return ep_kernel_run (&call, kernel, error);
}

typedef gboolean (*StepFunc) (const EpFusedStep  *step,
                              EpTensor          **inputs,
                              EpTensor          **output,
                              GError            **error);

/* @program's steps one at a time through @run_one; @outputs get its
 * result (and, with @keep, the summed values) */
static gboolean
step_by_step (EpFusedProgram   *program,
              EpTensor *const  *externals,
              StepFunc          run_one,
              EpTensor        **outputs,
              GError          **error)
{
  guint n_registers = program->n_externals + program->n_steps;
  g_autofree EpTensor **registers = g_new0 (EpTensor *, n_registers);
  gboolean ok = TRUE;

  memcpy (registers, externals, program->n_externals * sizeof (EpTensor *));
  for (guint k = 0; ok && k < program->n_steps; k++)
    {
      const EpFusedStep *step = &program->steps[k];
      EpTensor *inputs[2] = { NULL, NULL };

      for (guint i = 0; i < step->n_inputs; i++)
        inputs[i] = registers[step->inputs[i]];
      ok = run_one (step, inputs, &registers[program->n_externals + k], error);
    }

  if (ok)
    {
      outputs[0] = g_object_ref (registers[n_registers - 1]);
      if (program->keep)
        outputs[1] = g_object_ref (registers[n_registers - 2]);
    }
  for (guint k = 0; k < program->n_steps; k++)
    g_clear_object (&registers[program->n_externals + k]);

  return ok;
}

static gboolean
run_steps (EpFusedProgram   *program,
           EpTensor *const  *externals,
           EpLayout         *layouts,
           EpStorage       **storages,
           GError          **error)
{
  EpTensor *outputs[2] = { NULL, NULL };

  if (!step_by_step (program, externals, run_step, outputs, error))
    return FALSE;

  for (guint o = 0; o < 2 && outputs[o] != NULL; o++)
    {
      layouts[o] = outputs[o]->layout;
      storages[o] = ep_storage_ref (outputs[o]->storage);
      g_object_unref (outputs[o]);
    }
  return TRUE;
}

typedef enum {
  KIND_FULL,
  KIND_SCALAR,
  KIND_ROW,
  KIND_COL,
} Kind;

#define KIND_IS_LONG(kind) ((kind) == KIND_FULL || (kind) == KIND_COL)

/* What @shape (of @ndim axes) is, seen from @out's shape; FALSE when it
 * is none of the four kinds */
static gboolean
classify (const gint64 *shape,
          guint         ndim,
          const EpLayout *out,
          Kind         *kind)
{
  guint lead = out->ndim - ndim;
  gboolean full = TRUE, row = out->ndim > 0, col = out->ndim > 0;
  gint64 size = 1;

  if (ndim > out->ndim)
    return FALSE;
  for (guint d = 0; d < out->ndim; d++)
    {
      gint64 extent = d < lead ? 1 : shape[d - lead];
      gboolean last = d + 1 == out->ndim;

      size *= extent;
      full &= extent == out->shape[d];
      if (last)
        {
          row &= extent == 1;
          col &= extent == out->shape[d];
        }
      else
        {
          row &= extent == out->shape[d];
          col &= extent == 1;
        }
    }

  if (full)
    *kind = KIND_FULL;
  else if (size == 1)
    *kind = KIND_SCALAR;
  else if (row)
    *kind = KIND_ROW;
  else if (col)
    *kind = KIND_COL;
  else
    return FALSE;

  return TRUE;
}

/* NumPy broadcasting of two shapes into @out's; FALSE where they do
 * not broadcast */
gboolean
ep_fused_broadcast (const EpLayout *a,
                    const EpLayout *b,
                    EpLayout       *out)
{
  guint ndim = MAX (a->ndim, b->ndim);

  out->ndim = ndim;
  for (guint d = 0; d < ndim; d++)
    {
      gint64 x = d + a->ndim >= ndim ? a->shape[d + a->ndim - ndim] : 1;
      gint64 y = d + b->ndim >= ndim ? b->shape[d + b->ndim - ndim] : 1;

      if (x != y && x != 1 && y != 1)
        return FALSE;
      out->shape[d] = x == 1 ? y : x;
    }

  return TRUE;
}

/* A group ready to run fused */
typedef struct
{
  EpFusedProgram *program;
  guint           n_registers;
  guint           n_loops;       /* the steps run by their loops (not
                                  * a trailing sum) */
  Kind           *kinds;         /* per register */
  guint8        **bases;         /* per external: its first element */
  gsize          *itemsizes;     /* per register */
  guint8         *out;
  gint64          size;          /* of the elementwise result */
  gint64          row_length;    /* tiles stay within rows of this length;
                                  * the whole size for flat tiles */
  gint64          per_task;      /* elements per task */
  gint64          row_length_reduced; /* elements per output of a reduction */
  guint8         *final;         /* the epilogue's output */
  gint           *out_of_memory; /* set when a part found no scratch: the
                                  * tasks have no error of their own */
} Plan;

/* The steps run by their loops (not a trailing sum, nor its epilogue) */
static guint
n_loops_of (EpFusedProgram *program)
{
  return program->n_steps - (program->reduce ? 1 : 0) - (program->epilogue ? 1 : 0);
}

/* Elements @start to @start + @length (within one row where rows
 * matter), the last loop's value written at @out */
static void
run_tile (const Plan *plan,
          guint8     *scratch,
          gint64      start,
          gint64      length,
          guint8     *out)
{
  EpFusedProgram *program = plan->program;
  guint n_ext = program->n_externals;
  gint64 row = start / plan->row_length, col = start % plan->row_length;

  for (guint k = 0; k < plan->n_loops; k++)
    {
      const EpFusedStep *step = &program->steps[k];
      guint reg = n_ext + k;
      gboolean last = k + 1 == plan->n_loops;
      guint8 *ptrs[3];
      gint64 strides[3];
      gint64 n = KIND_IS_LONG (plan->kinds[reg]) ? length : 1;

      ptrs[0] = last ? out : scratch + (gsize) k * TILE * 8;
      strides[0] = plan->itemsizes[reg];
      for (guint i = 0; i < step->n_inputs; i++)
        {
          guint in = step->inputs[i];
          gsize itemsize = plan->itemsizes[in];
          Kind kind = plan->kinds[in];

          if (in >= n_ext)
            {
              ptrs[1 + i] = scratch + (gsize) (in - n_ext) * TILE * 8;
              strides[1 + i] = KIND_IS_LONG (kind) ? (gint64) itemsize : 0;
              continue;
            }
          switch (kind)
            {
            case KIND_FULL:
              ptrs[1 + i] = plan->bases[in] + start * itemsize;
              strides[1 + i] = itemsize;
              break;
            case KIND_SCALAR:
              ptrs[1 + i] = plan->bases[in];
              strides[1 + i] = 0;
              break;
            case KIND_ROW:
              ptrs[1 + i] = plan->bases[in] + row * itemsize;
              strides[1 + i] = 0;
              break;
            case KIND_COL:
              ptrs[1 + i] = plan->bases[in] + col * itemsize;
              strides[1 + i] = itemsize;
              break;
            }
        }
      step->loop (ptrs, strides, n, step->loop_data);
    }
}

/* Elements @offset to @offset + @n into @out, tile by tile */
static void
run_range (const Plan *plan,
           gint64      offset,
           gint64      n,
           guint8     *out)
{
  gsize nbytes = (gsize) MAX (plan->n_loops, 1) * TILE * 8;
  guint8 *scratch = ep_cpu_cache_alloc (nbytes);
  gsize itemsize = plan->itemsizes[plan->program->n_externals + plan->n_loops - 1];
  gint64 end = offset + n;

  if (scratch == NULL)
    {
      g_atomic_int_set (plan->out_of_memory, TRUE);
      return;
    }
  for (gint64 start = offset; start < end;)
    {
      gint64 length = MIN (MIN (TILE, end - start), plan->row_length - start % plan->row_length);

      run_tile (plan, scratch, start, length, out + (start - offset) * itemsize);
      start += length;
    }
  ep_cpu_cache_release (scratch, nbytes);
}

static void
run_task (gpointer data,
          guint    index)
{
  const Plan *plan = data;
  gsize itemsize = plan->itemsizes[plan->program->n_externals + plan->n_loops - 1];
  gint64 offset = (gint64) index * plan->per_task;

  run_range (plan, offset, MIN (plan->per_task, plan->size - offset), plan->out + offset * itemsize);
}

/* for ep_cpu_sum_produced(): into the summed value's own output when
 * it has one (@keep), else the buffer */
static const guint8 *
produce (gpointer  data,
         gint64    offset,
         gint64    n,
         guint8   *buffer)
{
  const Plan *plan = data;
  guint8 *out = buffer;

  if (plan->out != NULL)
    out = plan->out + offset * plan->itemsizes[plan->program->n_externals + plan->n_loops - 1];
  run_range (plan, offset, n, out);
  return out;
}

/* Shapes and kinds for @inputs: FALSE when the group cannot run fused */
static gboolean
plan_layouts (Plan             *plan,
              EpTensor *const  *inputs,
              const EpLayout   *traced,
              EpLayout         *out,
              EpLayout         *made)
{
  EpFusedProgram *program = plan->program;
  guint n_ext = program->n_externals;
  guint n_values = n_ext + plan->n_loops;
  g_autofree EpLayout *shapes = g_new (EpLayout, plan->n_registers);
  EpDevice *cpu = ep_device_get_cpu ();
  gboolean rows = FALSE;

  for (guint e = 0; e < n_ext && inputs == NULL; e++)
    {
      if (traced[e].dtype != program->external_dtypes[e]
          || (!ep_layout_is_contiguous (&traced[e]) && ep_layout_get_size (&traced[e]) > 0))
        return FALSE;
      shapes[e] = traced[e];
    }
  for (guint e = 0; e < n_ext && inputs != NULL; e++)
    {
      EpTensor *input = inputs[e];

      if (input->storage == NULL || input->storage->device != cpu
          || input->layout.dtype != program->external_dtypes[e]
          || (!ep_layout_is_contiguous (&input->layout) && ep_layout_get_size (&input->layout) > 0))
        return FALSE;
      shapes[e] = input->layout;
      plan->bases[e] = (guint8 *) input->storage->data
                       + input->layout.offset * ep_dtype_get_itemsize (input->layout.dtype);
      plan->itemsizes[e] = ep_dtype_get_itemsize (input->layout.dtype);
    }

  for (guint k = 0; k < program->n_steps; k++)
    {
      const EpFusedStep *step = &program->steps[k];
      EpLayout *shape = &shapes[n_ext + k];

      if (step->device != cpu)
        return FALSE;
      *shape = shapes[step->inputs[0]];
      if (step->n_inputs == 2 && !ep_fused_broadcast (&shapes[step->inputs[0]], &shapes[step->inputs[1]], shape))
        return FALSE;
      shape->dtype = step->dtype;
      plan->itemsizes[n_ext + k] = ep_dtype_get_itemsize (step->dtype);
    }

  /* the elementwise result's shape */
  if (!ep_layout_init (out, shapes[n_values - 1].dtype, shapes[n_values - 1].shape,
                       shapes[n_values - 1].ndim, "fused", NULL))
    return FALSE;
  for (guint r = 0; r < n_values; r++)
    {
      if (!classify (shapes[r].shape, shapes[r].ndim, out, &plan->kinds[r]))
        return FALSE;
      rows |= plan->kinds[r] == KIND_ROW || plan->kinds[r] == KIND_COL;
    }

  plan->size = ep_layout_get_size (out);
  plan->row_length = rows ? out->shape[out->ndim - 1] : MAX (plan->size, 1);
  if (plan->row_length == 0)
    plan->row_length = 1;

  *made = *out;
  if (program->reduce)
    {
      gint64 shape[EP_MAX_DIMS];
      guint ndim = out->ndim;

      if (ndim == 0 && program->last_axis)
        return FALSE;
      for (guint d = 0; d < ndim; d++)
        shape[d] = program->last_axis && d + 1 < ndim ? out->shape[d] : 1;
      if (!program->keepdims)
        ndim = program->last_axis ? ndim - 1 : 0;
      plan->row_length_reduced = program->last_axis ? out->shape[out->ndim - 1] : plan->size;
      ep_layout_init (out, program->steps[program->n_steps - 1].dtype, shape, ndim, "fused", NULL);
    }

  return TRUE;
}

/* mean: cpu_mean()'s division of each sum by the count */
static void
divide (const EpLayout *out,
        gpointer        data,
        gint64          n_summed)
{
  gint64 n = ep_layout_get_size (out);
  gdouble count = (gdouble) n_summed;

  if (out->dtype == EP_DTYPE_FLOAT32)
    for (gint64 i = 0; i < n; i++)
      ((gfloat *) data)[i] = (gfloat) (((gfloat *) data)[i] / count);
  else
    for (gint64 i = 0; i < n; i++)
      ((gdouble *) data)[i] /= count;
}

/* Whether the blocked loop takes @program on inputs of @layouts */
static gboolean
fits_on_cpu (EpFusedProgram *program,
             const EpLayout *layouts)
{
  guint n_registers = program->n_externals + program->n_steps;
  g_autofree Kind *kinds = g_new (Kind, n_registers);
  g_autofree guint8 **bases = g_new0 (guint8 *, MAX (program->n_externals, 1));
  g_autofree gsize *itemsizes = g_new (gsize, n_registers);
  Plan plan = { program, n_registers, n_loops_of (program), kinds, bases, itemsizes };
  EpLayout out, made;

  return plan_layouts (&plan, NULL, layouts, &out, &made);
}

/* Whether @program runs fused on inputs of @layouts (the traced ones:
 * the pass makes no group that would run its steps one by one), here or
 * on the device its steps run on */
gboolean
ep_fused_program_fits (EpFusedProgram *program,
                       const EpLayout *layouts)
{
  EpDevice *device = program->steps[0].device;

  if (device->backend->fused_fits != NULL)
    return device->backend->fused_fits (device, program);
  return fits_on_cpu (program, layouts);
}

static EpStorage *
alloc_output (EpFusedAllocFunc   alloc,
              gpointer           alloc_data,
              guint              o,
              EpLayout          *layout,
              GError           **error)
{
  gsize nbytes;

  if (!ep_layout_compute_nbytes (layout, &nbytes))
    return ep_layout_alloc (layout, ep_device_get_cpu (), error);
  return alloc (alloc_data, o, layout, nbytes, error);
}

/* After a run: when a part found no scratch memory, the outputs are
 * incomplete; they are dropped and the run fails. */
static gboolean
check_scratch (const Plan  *plan,
               EpStorage  **storages,
               GError     **error)
{
  const EpFusedStep *last = &plan->program->steps[plan->program->n_steps - 1];

  if (!g_atomic_int_get (plan->out_of_memory))
    return TRUE;

  g_clear_pointer (&storages[0], ep_storage_unref);
  if (plan->program->keep)
    g_clear_pointer (&storages[1], ep_storage_unref);
  g_set_error (error, EP_ERROR, EP_ERROR_OUT_OF_MEMORY,
               _("%s: cannot allocate %zu scratch elements of %zu bytes"),
               last->op->name, (gsize) MAX (plan->n_loops, 1) * TILE, (gsize) 8);
  return FALSE;
}

/* EpCpuRowDoneFunc: the epilogue on row @row, its values @made still in
 * the cache */
static void
finish_row (gpointer      data,
            gint64        row,
            const guint8 *made,
            const guint8 *sum)
{
  const Plan *plan = data;
  EpFusedProgram *program = plan->program;
  const EpFusedStep *step = &program->steps[program->n_steps - 1];
  guint summed = program->n_externals + program->n_steps - 2;
  gint64 n = plan->row_length_reduced;
  gsize itemsize = ep_dtype_get_itemsize (step->dtype);
  guint8 *ptrs[3] = { plan->final + row * n * itemsize };
  gint64 strides[3] = { (gint64) itemsize };

  for (guint i = 0; i < step->n_inputs; i++)
    {
      gboolean is_sum = step->inputs[i] == summed;

      ptrs[1 + i] = (guint8 *) (is_sum ? sum : made);
      strides[1 + i] = is_sum ? 0 : (gint64) ep_dtype_get_itemsize (step->in_dtype);
    }
  step->loop (ptrs, strides, n, step->loop_data);
}

/* A group with an epilogue: each row made, summed and finished in turn */
static gboolean
run_rows_with_epilogue (Plan              *plan,
                        const EpLayout    *made,
                        EpFusedAllocFunc   alloc,
                        gpointer           alloc_data,
                        EpLayout          *layouts,
                        EpStorage        **storages,
                        GError           **error)
{
  EpFusedProgram *program = plan->program;
  EpDType sum_dtype = program->steps[program->n_steps - 2].dtype;
  gint64 n_rows = plan->row_length_reduced > 0 ? plan->size / plan->row_length_reduced : 0;
  g_autofree guint8 *sums = NULL;
  EpLayout out;

  ep_layout_init (&out, program->steps[program->n_steps - 1].dtype, made->shape, made->ndim, "fused", NULL);
  storages[0] = alloc_output (alloc, alloc_data, 0, &out, error);
  if (storages[0] == NULL)
    return FALSE;
  layouts[0] = out;
  if (plan->size == 0)
    return TRUE;

  sums = ep_try_new (guint8, n_rows * ep_dtype_get_itemsize (sum_dtype));
  plan->out = NULL;
  plan->final = storages[0]->data;
  if (sums == NULL
      || !ep_cpu_sum_rows_produced (sum_dtype, n_rows, plan->row_length_reduced, produce, finish_row,
                                    plan, sums))
    g_atomic_int_set (plan->out_of_memory, TRUE);
  return check_scratch (plan, storages, error);
}

gboolean
ep_fused_run (EpFusedProgram   *program,
              EpTensor *const  *inputs,
              EpFusedAllocFunc  alloc,
              gpointer          alloc_data,
              EpLayout         *layouts,
              EpStorage       **storages,
              GError          **error)
{
  guint n_registers = program->n_externals + program->n_steps;
  g_autofree Kind *kinds = g_new (Kind, n_registers);
  g_autofree guint8 **bases = g_new0 (guint8 *, MAX (program->n_externals, 1));
  g_autofree gsize *itemsizes = g_new (gsize, n_registers);
  Plan plan = { program, n_registers, n_loops_of (program), kinds, bases, itemsizes };
  EpLayout out, made;
  EpStorage **storage = &storages[0];
  EpDevice *device = program->steps[0].device;
  gint out_of_memory = FALSE;

  plan.out_of_memory = &out_of_memory;
  if (device->backend->run_fused != NULL)
    {
      gboolean ran = TRUE;

      if (!device->backend->run_fused (device, program, inputs, alloc, alloc_data,
                                       &layouts[0], storage, &ran, error))
        return FALSE;
      if (ran)
        return TRUE;
      return run_steps (program, inputs, layouts, storages, error);
    }
  if (!plan_layouts (&plan, inputs, NULL, &out, &made))
    return run_steps (program, inputs, layouts, storages, error);
  if (program->epilogue)
    {
      /* one row (or none) takes the whole sum's path, which finishes
       * no rows */
      if (plan.row_length_reduced == 0 || plan.size / plan.row_length_reduced < 2)
        return run_steps (program, inputs, layouts, storages, error);
      return run_rows_with_epilogue (&plan, &made, alloc, alloc_data, layouts, storages, error);
    }

  *storage = alloc_output (alloc, alloc_data, 0, &out, error);
  if (*storage == NULL)
    return FALSE;
  layouts[0] = out;

  if (program->reduce)
    {
      gint64 n_out = ep_layout_get_size (&out);

      if (program->keep)
        {
          storages[1] = alloc_output (alloc, alloc_data, 1, &made, error);
          if (storages[1] == NULL)
            {
              g_clear_pointer (&storages[0], ep_storage_unref);
              return FALSE;
            }
          layouts[1] = made;
          plan.out = (guint8 *) storages[1]->data;
        }
      if (n_out == 0)
        return TRUE;
      if (program->last_axis
          ? !ep_cpu_sum_rows_produced (out.dtype, n_out, plan.row_length_reduced, produce, NULL, &plan,
                                       (*storage)->data)
          : !ep_cpu_sum_produced (out.dtype, plan.size, produce, &plan, (*storage)->data))
        out_of_memory = TRUE;
      if (program->mean)
        divide (&out, (*storage)->data, plan.row_length_reduced);
      return check_scratch (&plan, storages, error);
    }
  if (plan.size == 0)
    return TRUE;

  plan.out = (guint8 *) (*storage)->data;
  /* parts of a few EP_CPU_GRAIN elements, as the kernels split theirs */
  plan.per_task = plan.size < EP_CPU_PARALLEL_MIN ? plan.size : 2 * EP_CPU_GRAIN;
  ep_cpu_parallel_for ((guint) ((plan.size + plan.per_task - 1) / plan.per_task), run_task, &plan);

  return check_scratch (&plan, storages, error);
}

/* StepFunc: a step as an eager op */
static gboolean
dispatch_step (const EpFusedStep  *step,
               EpTensor          **inputs,
               EpTensor          **output,
               GError            **error)
{
  EpTensor *made[EP_MAX_OUTPUTS] = { NULL };
  EpOpAttrs attrs = step->attrs;

  if (!ep_dispatch (step->op, inputs, step->n_inputs, &attrs, made, error))
    return FALSE;
  *output = made[0];
  return TRUE;
}

/* The steps through ep_dispatch(), for a replay under recorders (which
 * plans do not meet: they replay the traced graph) */
gboolean
ep_fused_dispatch (EpFusedProgram   *program,
                   EpTensor *const  *externals,
                   EpTensor        **outputs,
                   GError          **error)
{
  return step_by_step (program, externals, dispatch_step, outputs, error);
}
