/* cpu/collective.c: all_reduce, broadcast, all_gather and reduce_scatter
 * on the CPU: the tensors' own buffers go to the world (issue 18)
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include "ep-communicator-private.h"
#include "ep-cpu-private.h"

static EpCollectiveKind
collective_kind (const EpOpDef *op)
{
  switch (op->id)
    {
    case EP_OP_BROADCAST:
      return EP_COLLECTIVE_BROADCAST;
    case EP_OP_ALL_GATHER:
      return EP_COLLECTIVE_ALL_GATHER;
    case EP_OP_REDUCE_SCATTER:
      return EP_COLLECTIVE_REDUCE_SCATTER;
    case EP_OP_ALL_REDUCE:
    default:
      return EP_COLLECTIVE_ALL_REDUCE;
    }
}

/* The rule made the input contiguous; the output is fresh */
static gboolean
cpu_collective (EpOpCall  *call,
                GError   **error)
{
  EpTensor *x = call->inputs[0], *out = call->outputs[0];
  EpCollective c = { 0 };

  c.kind = collective_kind (call->op);
  c.name = call->op->name;
  c.op = call->attrs.collective.op;
  c.root = call->attrs.collective.root;
  c.dtype = x->layout.dtype;
  c.ndim = x->layout.ndim;
  c.shape = x->layout.shape;
  c.send = (const guint8 *) x->storage->data + x->layout.offset * ep_dtype_get_itemsize (c.dtype);
  c.recv = out->storage->data;
  c.count = ep_layout_get_size (&x->layout);
  c.keep[0] = x->storage;
  c.keep[1] = out->storage;
  return ep_world_run (&c, error);
}

void
ep_cpu_register_collective (EpKernelFunc *kernels)
{
  kernels[EP_OP_ALL_REDUCE] = cpu_collective;
  kernels[EP_OP_BROADCAST] = cpu_collective;
  kernels[EP_OP_ALL_GATHER] = cpu_collective;
  kernels[EP_OP_REDUCE_SCATTER] = cpu_collective;
}
