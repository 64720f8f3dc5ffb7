/* opencl/collective.c: all_reduce, broadcast, all_gather and
 * reduce_scatter on OpenCL devices, by a host round trip (issue 18)
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * MPI moves host memory (Debian's Open MPI knows no OpenCL buffers), so
 * a collective on a device reads its input to the host in C order, runs
 * the CPU's kernel (cpu/collective.c: the agreement and the MPI call)
 * and writes the result back: two copies across the device's bus on
 * top of the network's time, the input's bytes and the output's. On
 * PoCL (the CPU as a device) they are memory copies. Keep gradients on
 * cpu:0 to skip them, as docs/distributed.md says.
 */

#include "config.h"

#include "ep-opencl-private.h"

void
ep_opencl_register_collective (EpKernelFunc *kernels)
{
  kernels[EP_OP_ALL_REDUCE] = ep_opencl_on_host;
  kernels[EP_OP_BROADCAST] = ep_opencl_on_host;
  kernels[EP_OP_ALL_GATHER] = ep_opencl_on_host;
  kernels[EP_OP_REDUCE_SCATTER] = ep_opencl_on_host;
}
