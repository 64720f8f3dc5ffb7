/* index.c: take, take_along_axis, mask, index_update and scatter_add
 * on OpenCL (kernels/index.cl)
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <glib/gi18n-lib.h>

#include <string.h>

#include "ep-count-private.h"
#include "ep-error.h"
#include "ep-fault-private.h"
#include "ep-opencl-private.h"
#include "ep-shape-private.h"
#include "ep-tensor-private.h"

/* As in kernels/index.cl */
typedef struct
{
  cl_long size;
  cl_long block;
  cl_long offset;
  cl_long mask_ndim;
  cl_long rest_ndim;
  cl_long mask_shape[EP_MAX_DIMS];
  cl_long mask_strides[EP_MAX_DIMS];
  cl_long rest_shape[EP_MAX_DIMS];
  cl_long rest_strides[EP_MAX_DIMS];
} EpCLMaskMap;

typedef struct
{
  cl_long outer;
  cl_long inner;
  cl_long count;
  cl_long extent;
  cl_long dest_offset;
  cl_long dest_axis_stride;
  cl_long idx_offset;
  cl_long val_offset;
  cl_long outer_ndim, idx_ndim, inner_ndim;
  cl_long outer_shape[EP_MAX_DIMS];
  cl_long idx_shape[EP_MAX_DIMS];
  cl_long inner_shape[EP_MAX_DIMS];
  cl_long dest_outer[EP_MAX_DIMS];
  cl_long dest_inner[EP_MAX_DIMS];
  cl_long idx_strides[EP_MAX_DIMS];
  cl_long val_outer[EP_MAX_DIMS];
  cl_long val_idx[EP_MAX_DIMS];
  cl_long val_inner[EP_MAX_DIMS];
} EpCLScatter;

/* The error for the first index out of range, as on the CPU:
 * first_bad_index looks for its position, in the indices' C order. */
static gboolean
find_bad_index (EpOpCall  *call,
                cl_mem     bad,
                GError   **error)
{
  EpTensor *idx = call->inputs[1];
  const EpLayout *il = &idx->layout;
  cl_long extent = call->inputs[0]->layout.shape[call->attrs.axes[0]];
  gint32 none = EP_CL_FLAG_NONE;
  gint64 position = -1, index = 0;
  EpCLLaunch launch;
  EpCLMap map;

  if (ep_layout_get_size (il) == 0)
    return TRUE;

  memset (&map, 0, sizeof map);
  map.n = ep_layout_get_size (il);
  map.ndim = il->ndim;
  for (guint d = 0; d < il->ndim; d++)
    {
      map.shape[d] = il->shape[d];
      map.strides[1][d] = il->strides[d];
    }
  map.offsets[1] = il->offset;
  map.kinds[1] = EP_CL_STRIDED;

  if (!ep_opencl_fill_buffer (call->device, call->op->name, bad, &none, sizeof none, 0,
                              sizeof none, error)
      || !ep_cl_launch_init (&launch, call, "index", "first_bad_index", error))
    return FALSE;
  ep_cl_launch_mem (&launch, bad);
  ep_cl_launch_tensor (&launch, idx);
  ep_cl_launch_arg (&launch, sizeof map, &map);
  ep_cl_launch_arg (&launch, sizeof extent, &extent);
  if (!ep_cl_launch_run_items (&launch, map.n, error)
      || !ep_cl_flag_bad_index (call, bad, idx, -extent, extent, &position, &index, error))
    return FALSE;

  return position < 0 || ep_index_error (call, index, error);
}

/* After a kernel that checked the indices. The kernels only mark the
 * flag (an atomic would slow the gather down); when one did,
 * find_bad_index() looks for it, so this costs nothing more while every
 * index is good. */
static gboolean
check_indices (EpOpCall  *call,
               cl_mem     bad,
               GError   **error)
{
  gint64 marked;

  if (!ep_cl_flag_read (call, bad, &marked, error))
    return FALSE;

  return marked < 0 || find_bad_index (call, bad, error);
}

/* Every index, when a kernel has no element to walk: an empty gather or
 * scatter with a bad index is an error all the same (NumPy's). */
static gboolean
check_every_index (EpOpCall  *call,
                   GError   **error)
{
  cl_mem bad = ep_cl_flag_new (call, error);
  gboolean ok;

  if (bad == NULL)
    return FALSE;
  ok = find_bad_index (call, bad, error);
  clReleaseMemObject (bad);
  return ok;
}

/* take and take_along_axis: the indices and the source seen in the
 * output's shape through ep_gather_strides() */
static gboolean
opencl_take (EpOpCall  *call,
             GError   **error)
{
  EpTensor *x = call->inputs[0], *idx = call->inputs[1], *out = call->outputs[0];
  gsize itemsize = ep_dtype_get_itemsize (x->layout.dtype);
  gint axis = call->attrs.axes[0];
  cl_long axis_stride = x->layout.strides[axis], extent = x->layout.shape[axis];
  gint64 index_strides[EP_MAX_DIMS], source_strides[EP_MAX_DIMS];
  EpCLLaunch launch;
  EpCLMap map;
  cl_mem bad;
  gboolean ok;

  if (ep_layout_get_size (&out->layout) == 0)
    return check_every_index (call, error);

  ep_gather_strides (call, index_strides, source_strides);

  memset (&map, 0, sizeof map);
  map.n = ep_layout_get_size (&out->layout);
  map.ndim = out->layout.ndim;
  for (guint d = 0; d < out->layout.ndim; d++)
    {
      map.shape[d] = out->layout.shape[d];
      map.strides[1][d] = index_strides[d];
      map.strides[2][d] = source_strides[d];
    }
  map.offsets[1] = idx->layout.offset;
  map.offsets[2] = x->layout.offset;
  map.kinds[0] = EP_CL_CONTIGUOUS;
  map.kinds[1] = EP_CL_STRIDED;
  map.kinds[2] = EP_CL_STRIDED;

  bad = ep_cl_flag_new (call, error);
  if (bad == NULL)
    return FALSE;

  ok = ep_cl_launch_init_by_size (&launch, call, "index", "take", itemsize, error);
  if (ok)
    {
      ep_cl_launch_tensor (&launch, out);
      ep_cl_launch_tensor (&launch, idx);
      ep_cl_launch_tensor (&launch, x);
      ep_cl_launch_mem (&launch, bad);
      ep_cl_launch_arg (&launch, sizeof map, &map);
      ep_cl_launch_arg (&launch, sizeof axis_stride, &axis_stride);
      ep_cl_launch_arg (&launch, sizeof extent, &extent);
      ok = ep_cl_launch_run_items (&launch, map.n, error) && check_indices (call, bad, error);
    }

  clReleaseMemObject (bad);
  return ok;
}

/* mask: count each chunk's true flags, scan the counts, copy */
static gboolean
opencl_mask (EpOpCall  *call,
             GError   **error)
{
  EpTensor *x = call->inputs[0], *mask = call->inputs[1], *out = call->outputs[0];
  const EpLayout *xl = &x->layout;
  guint mask_ndim = mask->layout.ndim;
  gsize itemsize = ep_dtype_get_itemsize (xl->dtype);
  cl_long size = ep_layout_get_size (&mask->layout);
  cl_long chunks = (size + 255) / 256;
  EpCLMaskMap g;
  EpCLLaunch launch;
  cl_mem starts;
  gboolean ok;

  memset (&g, 0, sizeof g);
  g.size = size;
  g.block = 1;
  g.offset = xl->offset;
  g.mask_ndim = mask_ndim;
  g.rest_ndim = xl->ndim - mask_ndim;
  for (guint d = 0; d < xl->ndim; d++)
    {
      if (d < mask_ndim)
        {
          g.mask_shape[d] = xl->shape[d];
          g.mask_strides[d] = xl->strides[d];
        }
      else
        {
          g.rest_shape[d - mask_ndim] = xl->shape[d];
          g.rest_strides[d - mask_ndim] = xl->strides[d];
          g.block *= xl->shape[d];
        }
    }

  starts = ep_opencl_create_buffer (call->device, call->op->name, chunks * sizeof (cl_long), error);
  if (starts == NULL)
    return FALSE;

  ok = ep_cl_launch_init (&launch, call, "index", "mask_count", error);
  if (ok)
    {
      /* the mask is contiguous (the rule asked), maybe at an offset */
      cl_long flags_offset = mask->layout.offset;

      ep_cl_launch_mem (&launch, starts);
      ep_cl_launch_tensor (&launch, mask);
      ep_cl_launch_arg (&launch, sizeof flags_offset, &flags_offset);
      ep_cl_launch_arg (&launch, sizeof size, &size);
      ok = ep_cl_launch_run_items (&launch, chunks, error)
           && ep_cl_launch_init (&launch, call, "index", "mask_scan", error);
      if (ok)
        {
          ep_cl_launch_mem (&launch, starts);
          ep_cl_launch_arg (&launch, sizeof chunks, &chunks);
          ok = ep_cl_launch_run (&launch, 1, 1, error);
        }
      if (ok && (ok = ep_cl_launch_init_by_size (&launch, call, "index", "mask_write", itemsize, error)))
        {
          ep_cl_launch_tensor (&launch, out);
          ep_cl_launch_tensor (&launch, x);
          ep_cl_launch_tensor (&launch, mask);
          ep_cl_launch_arg (&launch, sizeof flags_offset, &flags_offset);
          ep_cl_launch_mem (&launch, starts);
          ep_cl_launch_arg (&launch, sizeof g, &g);
          ok = ep_cl_launch_run_items (&launch, chunks, error);
        }
    }

  clReleaseMemObject (starts);
  return ok;
}

/* index_update and scatter_add: a copy of self, then the updates; the
 * output is dropped if an index was out of range */
static gboolean
opencl_scatter (EpOpCall  *call,
                GError   **error)
{
  EpTensor *idx = call->inputs[1], *values = call->inputs[2];
  EpTensor *out = call->outputs[0];
  const EpLayout *ol = &out->layout, *il = &idx->layout, *vl = &values->layout;
  EpDType dtype = ol->dtype;
  gsize itemsize = ep_dtype_get_itemsize (dtype);
  gint axis = call->attrs.axes[0];
  guint walk_ndim = ol->ndim - 1 + il->ndim, lead = walk_ndim - vl->ndim;
  gint64 walk_shape[EP_MAX_DIMS + EP_MAX_DIMS];
  gint64 val_strides[EP_MAX_DIMS + EP_MAX_DIMS];
  EpOpCall copy = *call;
  EpCLScatter g;
  EpCLLaunch launch;
  char name[32];
  cl_mem bad;
  gboolean ok;
  guint w = 0;

  if (call->op->id == EP_OP_SCATTER_ADD
      && !ep_opencl_check_dtype (call->device, call->op->name, dtype, error))
    return FALSE;

  /* start from a copy of self */
  copy.n_inputs = 1;
  g_snprintf (name, sizeof name, "copy_%" G_GSIZE_FORMAT, itemsize);
  if (!ep_cl_map_kernel (&copy, "cast", name, error))
    return FALSE;

  memset (&g, 0, sizeof g);
  for (gint d = 0; d < axis; d++)
    walk_shape[w++] = ol->shape[d];
  for (guint d = 0; d < il->ndim; d++)
    walk_shape[w++] = il->shape[d];
  for (guint d = axis + 1; d < ol->ndim; d++)
    walk_shape[w++] = ol->shape[d];
  for (guint d = 0; d < walk_ndim; d++)
    {
      if (walk_shape[d] == 0)
        return check_every_index (call, error);
      val_strides[d] = d < lead || vl->shape[d - lead] == 1 ? 0 : vl->strides[d - lead];
    }

  g.outer = 1;
  g.inner = 1;
  g.count = 1;
  g.extent = ol->shape[axis];
  g.dest_offset = 0;
  g.dest_axis_stride = ol->strides[axis];
  g.idx_offset = il->offset;
  g.val_offset = vl->offset;
  g.outer_ndim = axis;
  g.idx_ndim = il->ndim;
  g.inner_ndim = ol->ndim - axis - 1;
  for (gint d = 0; d < axis; d++)
    {
      g.outer_shape[d] = ol->shape[d];
      g.dest_outer[d] = ol->strides[d];
      g.val_outer[d] = val_strides[d];
      g.outer *= ol->shape[d];
    }
  for (guint d = 0; d < il->ndim; d++)
    {
      g.idx_shape[d] = il->shape[d];
      g.idx_strides[d] = il->strides[d];
      g.val_idx[d] = val_strides[axis + d];
      g.count *= il->shape[d];
    }
  for (guint d = 0; d < g.inner_ndim; d++)
    {
      g.inner_shape[d] = ol->shape[axis + 1 + d];
      g.dest_inner[d] = ol->strides[axis + 1 + d];
      g.val_inner[d] = val_strides[axis + il->ndim + d];
      g.inner *= ol->shape[axis + 1 + d];
    }

  bad = ep_cl_flag_new (call, error);
  if (bad == NULL)
    return FALSE;

  if (call->op->id == EP_OP_SCATTER_ADD)
    g_snprintf (name, sizeof name, "scatter_add_%s", ep_cl_dtype_suffix (dtype));
  else
    g_snprintf (name, sizeof name, "update_%" G_GSIZE_FORMAT, itemsize);
  ok = ep_cl_launch_init (&launch, call, "index", name, error);
  if (ok)
    {
      ep_cl_launch_tensor (&launch, out);
      ep_cl_launch_tensor (&launch, idx);
      ep_cl_launch_tensor (&launch, values);
      ep_cl_launch_mem (&launch, bad);
      ep_cl_launch_arg (&launch, sizeof g, &g);
      ok = ep_cl_launch_run_items (&launch, g.outer * g.inner, error)
           && check_indices (call, bad, error);
    }

  clReleaseMemObject (bad);
  return ok;
}

/* bincount: a host round trip. The rule has read the indices back to
 * size the output; counting on the host keeps the sums in the CPU's
 * order (atomics on the device would not) and costs one more read of
 * the indices and the weights and one write of the bins. */
static gboolean
opencl_bincount (EpOpCall  *call,
                 GError   **error)
{
  EpTensor *out = call->outputs[0];
  gint64 length = out->layout.shape[0];
  gsize nbytes = (gsize) length * ep_dtype_get_itemsize (out->layout.dtype);
  g_autoptr(GBytes) indices = ep_tensor_to_bytes (call->inputs[0], error);
  g_autoptr(GBytes) weights = indices != NULL ? ep_tensor_to_bytes (call->inputs[1], error) : NULL;
  g_autofree gpointer bins = NULL;

  if (weights == NULL)
    return FALSE;
  if ((bins = ep_try_malloc (nbytes)) == NULL)
    {
      g_set_error (error, EP_ERROR, EP_ERROR_OUT_OF_MEMORY,
                   _("bincount: cannot allocate %zu bytes for the bins"), nbytes);
      return FALSE;
    }
  ep_bincount_fill (g_bytes_get_data (indices, NULL), g_bytes_get_data (weights, NULL),
                    call->inputs[0]->layout.shape[0], out->layout.dtype, bins, length);
  return ep_device_write (call->device, out->storage, 0, bins, nbytes, error);
}

void
ep_opencl_register_index (EpKernelFunc *kernels)
{
  kernels[EP_OP_BINCOUNT] = opencl_bincount;
  kernels[EP_OP_TAKE] = opencl_take;
  kernels[EP_OP_TAKE_ALONG_AXIS] = opencl_take;
  kernels[EP_OP_MASK] = opencl_mask;
  kernels[EP_OP_INDEX_UPDATE] = opencl_scatter;
  kernels[EP_OP_SCATTER_ADD] = opencl_scatter;
}
