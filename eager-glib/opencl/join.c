/* join.c: concatenate, tile and pad on OpenCL (kernels/join.cl)
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <string.h>

#include "ep-opencl-private.h"
#include "ep-scalar-private.h"
#include "ep-tensor-private.h"

/* As in kernels/join.cl */
typedef struct
{
  cl_long n;
  cl_long ndim;
  cl_long mode;
  cl_long offset;
  cl_long out_shape[EP_MAX_DIMS];
  cl_long in_shape[EP_MAX_DIMS];
  cl_long in_strides[EP_MAX_DIMS];
  cl_long before[EP_MAX_DIMS];
} EpCLGatherMap;

/* A geometry for a copy between two strided layouts of one shape (the
 * output a block of its storage), without the collapsing that assumes a
 * contiguous output. */
static void
block_map (EpCLMap        *map,
           const EpLayout *block,
           const EpLayout *in)
{
  memset (map, 0, sizeof *map);
  map->n = ep_layout_get_size (block);
  map->ndim = block->ndim;
  for (guint d = 0; d < block->ndim; d++)
    {
      map->shape[d] = block->shape[d];
      map->strides[0][d] = block->strides[d];
      map->strides[1][d] = in->shape[d] == 1 ? 0 : in->strides[d];
    }
  map->offsets[0] = block->offset;
  map->offsets[1] = in->offset;
  map->kinds[0] = EP_CL_STRIDED;
  map->kinds[1] = EP_CL_STRIDED;
}

static gboolean
opencl_concatenate (EpOpCall  *call,
                    GError   **error)
{
  EpTensor *out = call->outputs[0];
  gint axis = call->attrs.axes[0];
  gsize itemsize = ep_dtype_get_itemsize (out->layout.dtype);
  EpLayout block = out->layout;

  for (guint i = 0; i < call->n_inputs; i++)
    {
      EpTensor *input = call->inputs[i];
      EpCLLaunch launch;
      EpCLMap map;

      block.shape[axis] = input->layout.shape[axis];
      if (ep_layout_get_size (&block) > 0)
        {
          block_map (&map, &block, &input->layout);
          if (!ep_cl_launch_init_by_size (&launch, call, "join", "block_copy", itemsize, error))
            return FALSE;
          ep_cl_launch_tensor (&launch, out);
          ep_cl_launch_tensor (&launch, input);
          ep_cl_launch_arg (&launch, sizeof map, &map);
          if (!ep_cl_launch_run_items (&launch, map.n, error))
            return FALSE;
        }
      block.offset += block.shape[axis] * block.strides[axis];
    }

  return TRUE;
}

/* tile (mode 0) and pad (1 constant, 2 reflect): the input aligned on
 * the right of the output, missing leading axes of extent 1 */
static gboolean
gather_map (EpOpCall  *call,
            cl_long    mode,
            GError   **error)
{
  EpTensor *in = call->inputs[0], *out = call->outputs[0];
  gsize itemsize = ep_dtype_get_itemsize (in->layout.dtype);
  guint lead = out->layout.ndim - in->layout.ndim;
  guint8 fill[8] = { 0 };
  EpCLGatherMap g;
  EpCLLaunch launch;

  memset (&g, 0, sizeof g);
  g.n = ep_layout_get_size (&out->layout);
  g.ndim = out->layout.ndim;
  g.mode = mode;
  g.offset = in->layout.offset;
  for (guint d = 0; d < out->layout.ndim; d++)
    {
      g.out_shape[d] = out->layout.shape[d];
      g.in_shape[d] = d < lead ? 1 : in->layout.shape[d - lead];
      g.in_strides[d] = d < lead ? 0 : in->layout.strides[d - lead];
      g.before[d] = mode == 0 ? 0 : call->attrs.pad.paddings[2 * d];
    }
  if (mode != 0)
    ep_scalar_store (fill, out->layout.dtype, call->attrs.pad.value);

  if (!ep_cl_launch_init_by_size (&launch, call, "join", "gather_map", itemsize, error))
    return FALSE;
  ep_cl_launch_tensor (&launch, out);
  ep_cl_launch_tensor (&launch, in);
  ep_cl_launch_arg (&launch, sizeof g, &g);
  ep_cl_launch_arg (&launch, itemsize, fill);
  return ep_cl_launch_run_items (&launch, g.n, error);
}

static gboolean
opencl_tile (EpOpCall  *call,
             GError   **error)
{
  return gather_map (call, 0, error);
}

static gboolean
opencl_pad (EpOpCall  *call,
            GError   **error)
{
  return gather_map (call, call->attrs.pad.mode == EP_PAD_CONSTANT ? 1 : 2, error);
}

void
ep_opencl_register_join (EpKernelFunc *kernels)
{
  kernels[EP_OP_CONCATENATE] = opencl_concatenate;
  kernels[EP_OP_TILE] = opencl_tile;
  kernels[EP_OP_PAD] = opencl_pad;
}
