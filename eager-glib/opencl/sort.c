/* sort.c: sort, argsort and topk on OpenCL (kernels/sort.cl)
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include "ep-opencl-private.h"
#include "ep-tensor-private.h"

typedef struct
{
  EpOpCall *call;
  EpDType   dtype;
  cl_mem    keys;
  cl_mem    idx;
  cl_long   rows;
  cl_long   P;
} Scratch;

static gboolean
launch_step (Scratch    *s,
             cl_long     k,
             cl_long     j,
             cl_int      descending,
             GError    **error)
{
  char name[24];
  EpCLLaunch launch;
  gsize local;

  g_snprintf (name, sizeof name, "sort_step_%s", ep_cl_dtype_suffix (s->dtype));
  if (!ep_cl_launch_init (&launch, s->call, "sort", name, error))
    return FALSE;

  ep_cl_launch_mem (&launch, s->keys);
  ep_cl_launch_mem (&launch, s->idx);
  ep_cl_launch_arg (&launch, sizeof s->rows, &s->rows);
  ep_cl_launch_arg (&launch, sizeof s->P, &s->P);
  ep_cl_launch_arg (&launch, sizeof k, &k);
  ep_cl_launch_arg (&launch, sizeof j, &j);
  ep_cl_launch_arg (&launch, sizeof descending, &descending);

  local = ep_cl_launch_local_size (&launch);
  return ep_cl_launch_run (&launch, ep_cl_launch_global_size (&launch, s->rows * s->P / 2, local),
                           local, error);
}

/* Loads every row of the input (operand 2 of @rows) into the scratch
 * rows and sorts them. */
static gboolean
sort_scratch (Scratch         *s,
              EpTensor        *in,
              const EpCLRows  *rows,
              gboolean         descending,
              GError         **error)
{
  char name[24];
  EpCLLaunch launch;
  gsize local;

  g_snprintf (name, sizeof name, "sort_load_%s", ep_cl_dtype_suffix (s->dtype));
  if (!ep_cl_launch_init (&launch, s->call, "sort", name, error))
    return FALSE;

  ep_cl_launch_mem (&launch, s->keys);
  ep_cl_launch_mem (&launch, s->idx);
  ep_cl_launch_tensor (&launch, in);
  ep_cl_launch_arg (&launch, sizeof *rows, rows);
  ep_cl_launch_arg (&launch, sizeof s->P, &s->P);
  local = ep_cl_launch_local_size (&launch);
  if (!ep_cl_launch_run (&launch, ep_cl_launch_global_size (&launch, s->rows * s->P, local),
                         local, error))
    return FALSE;

  for (cl_long k = 2; k <= s->P; k *= 2)
    for (cl_long j = k / 2; j > 0; j /= 2)
      if (!launch_step (s, k, j, descending, error))
        return FALSE;

  return TRUE;
}

static gboolean
store (Scratch         *s,
       EpTensor        *values,
       EpTensor        *indices,
       const EpCLRows  *rows,
       cl_long          count,
       GError         **error)
{
  cl_int want_values = values != NULL, want_indices = indices != NULL;
  char name[24];
  EpCLLaunch launch;
  gsize local;

  g_snprintf (name, sizeof name, "sort_store_%s", ep_cl_dtype_suffix (s->dtype));
  if (!ep_cl_launch_init (&launch, s->call, "sort", name, error))
    return FALSE;

  ep_cl_launch_tensor (&launch, values != NULL ? values : indices);
  ep_cl_launch_tensor (&launch, indices != NULL ? indices : values);
  ep_cl_launch_mem (&launch, s->keys);
  ep_cl_launch_mem (&launch, s->idx);
  ep_cl_launch_arg (&launch, sizeof *rows, rows);
  ep_cl_launch_arg (&launch, sizeof s->P, &s->P);
  ep_cl_launch_arg (&launch, sizeof count, &count);
  ep_cl_launch_arg (&launch, sizeof want_values, &want_values);
  ep_cl_launch_arg (&launch, sizeof want_indices, &want_indices);

  local = ep_cl_launch_local_size (&launch);
  return ep_cl_launch_run (&launch, ep_cl_launch_global_size (&launch, s->rows * count, local),
                           local, error);
}

/* topk with sorted = FALSE: the chosen ones in their order along the row */
static gboolean
gather_unsorted (Scratch         *s,
                 EpTensor        *values,
                 EpTensor        *indices,
                 EpTensor        *in,
                 const EpCLRows  *rows,
                 cl_long          k,
                 GError         **error)
{
  cl_long length = rows->length;
  guint8 zero = 0;
  char name[24];
  EpCLLaunch launch;
  gsize local;
  cl_mem chosen;
  gboolean ok;

  chosen = ep_opencl_create_buffer (s->call->device, s->call->op->name, s->rows * length, error);
  if (chosen == NULL)
    return FALSE;

  ok = ep_opencl_fill_buffer (s->call->device, s->call->op->name, chosen, &zero, 1, 0,
                              s->rows * length, error)
       && ep_cl_launch_init (&launch, s->call, "sort", "topk_mark", error);
  if (ok)
    {
      ep_cl_launch_mem (&launch, chosen);
      ep_cl_launch_mem (&launch, s->idx);
      ep_cl_launch_arg (&launch, sizeof s->rows, &s->rows);
      ep_cl_launch_arg (&launch, sizeof length, &length);
      ep_cl_launch_arg (&launch, sizeof s->P, &s->P);
      ep_cl_launch_arg (&launch, sizeof k, &k);
      local = ep_cl_launch_local_size (&launch);
      ok = ep_cl_launch_run (&launch, ep_cl_launch_global_size (&launch, s->rows * k, local),
                             local, error);
    }

  g_snprintf (name, sizeof name, "topk_gather_%s", ep_cl_dtype_suffix (s->dtype));
  if (ok && (ok = ep_cl_launch_init (&launch, s->call, "sort", name, error)))
    {
      ep_cl_launch_tensor (&launch, values);
      ep_cl_launch_tensor (&launch, indices);
      ep_cl_launch_tensor (&launch, in);
      ep_cl_launch_mem (&launch, chosen);
      ep_cl_launch_arg (&launch, sizeof *rows, rows);
      local = ep_cl_launch_local_size (&launch);
      ok = ep_cl_launch_run (&launch, ep_cl_launch_global_size (&launch, s->rows, local),
                             local, error);
    }

  clReleaseMemObject (chosen);
  return ok;
}

static gboolean
sort_rows (EpOpCall  *call,
           guint      axis,
           gboolean   descending,
           EpTensor  *values,
           EpTensor  *indices,
           cl_long    k,
           gboolean   sorted,
           GError   **error)
{
  EpTensor *in = call->inputs[0];
  const EpLayout *layouts[3] = {
    values != NULL ? &values->layout : &indices->layout,
    indices != NULL ? &indices->layout : &values->layout,
    &in->layout,
  };
  Scratch s = { .call = call, .dtype = in->layout.dtype };
  gint64 n = in->layout.shape[axis];
  EpCLRows rows;
  gboolean ok;

  if (!ep_opencl_check_dtype (call->device, call->op->name, s.dtype, error))
    return FALSE;

  ep_cl_rows_init (&rows, layouts, 3, axis, n);
  s.rows = rows.rows;
  s.P = 1;
  while (s.P < n)
    s.P *= 2;

  s.keys = ep_opencl_create_buffer (call->device, call->op->name,
                                    s.rows * s.P * ep_dtype_get_itemsize (s.dtype), error);
  if (s.keys == NULL)
    return FALSE;
  s.idx = ep_opencl_create_buffer (call->device, call->op->name, s.rows * s.P * sizeof (cl_long), error);
  if (s.idx == NULL)
    {
      clReleaseMemObject (s.keys);
      return FALSE;
    }

  ok = sort_scratch (&s, in, &rows, descending, error)
       && (sorted ? store (&s, values, indices, &rows, k, error)
                  : gather_unsorted (&s, values, indices, in, &rows, k, error));

  clReleaseMemObject (s.keys);
  clReleaseMemObject (s.idx);
  return ok;
}

static gboolean
opencl_sort (EpOpCall  *call,
             GError   **error)
{
  guint axis = call->attrs.axes[0];
  gboolean values = call->op->id == EP_OP_SORT;

  return sort_rows (call, axis, FALSE,
                    values ? call->outputs[0] : NULL, values ? NULL : call->outputs[0],
                    call->inputs[0]->layout.shape[axis], TRUE, error);
}

static gboolean
opencl_topk (EpOpCall  *call,
             GError   **error)
{
  return sort_rows (call, call->inputs[0]->layout.ndim - 1, TRUE,
                    call->outputs[0], call->outputs[1],
                    call->attrs.topk.k, call->attrs.topk.sorted, error);
}

/* searchsorted: one work-item per value (contiguous inputs of one type) */
static gboolean
opencl_searchsorted (EpOpCall  *call,
                     GError   **error)
{
  const EpLayout *seq = &call->inputs[0]->layout, *values = &call->inputs[1]->layout;
  cl_long n = seq->shape[seq->ndim - 1];
  cl_long total = ep_layout_get_size (values);
  cl_long m = seq->ndim > 1 ? values->shape[values->ndim - 1] : total;
  cl_long seq_batch = seq->ndim > 1 ? n : 0;
  cl_long seq_offset = seq->offset, values_offset = values->offset;
  cl_int right = call->attrs.searchsorted.side == EP_SEARCH_SIDE_RIGHT;
  char name[32];
  EpCLLaunch launch;
  gsize local;

  if (!ep_opencl_check_dtype (call->device, call->op->name, seq->dtype, error))
    return FALSE;

  g_snprintf (name, sizeof name, "searchsorted_%s", ep_cl_dtype_suffix (seq->dtype));
  if (!ep_cl_launch_init (&launch, call, "sort", name, error))
    return FALSE;
  ep_cl_launch_tensor (&launch, call->outputs[0]);
  ep_cl_launch_tensor (&launch, call->inputs[0]);
  ep_cl_launch_tensor (&launch, call->inputs[1]);
  ep_cl_launch_arg (&launch, sizeof seq_offset, &seq_offset);
  ep_cl_launch_arg (&launch, sizeof values_offset, &values_offset);
  ep_cl_launch_arg (&launch, sizeof n, &n);
  ep_cl_launch_arg (&launch, sizeof m, &m);
  ep_cl_launch_arg (&launch, sizeof total, &total);
  ep_cl_launch_arg (&launch, sizeof seq_batch, &seq_batch);
  ep_cl_launch_arg (&launch, sizeof right, &right);
  local = ep_cl_launch_local_size (&launch);
  return ep_cl_launch_run (&launch, ep_cl_launch_global_size (&launch, total, local), local, error);
}

void
ep_opencl_register_sort (EpKernelFunc *kernels)
{
  kernels[EP_OP_SEARCHSORTED] = opencl_searchsorted;
  kernels[EP_OP_SORT] = opencl_sort;
  kernels[EP_OP_ARGSORT] = opencl_sort;
  kernels[EP_OP_TOPK] = opencl_topk;
}
