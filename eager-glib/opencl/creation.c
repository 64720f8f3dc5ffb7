/* creation.c: full, arange, linspace, eye and onehot_like on OpenCL
 * (kernels/creation.cl)
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <inttypes.h>
#include <glib/gi18n-lib.h>

#include "ep-error.h"
#include "ep-fault-private.h"
#include "ep-math-private.h"
#include "ep-opencl-private.h"
#include "ep-scalar-private.h"
#include "ep-tensor-private.h"

/* A fill needs no kernel: the element, converted as on the CPU, is the
 * pattern. */
static gboolean
opencl_full (EpOpCall  *call,
             GError   **error)
{
  EpTensor *out = call->outputs[0];
  gsize itemsize = ep_dtype_get_itemsize (out->layout.dtype);
  guint8 pattern[8];

  ep_number_store (pattern, out->layout.dtype, call->attrs.full.value);

  return ep_opencl_fill_buffer (call->device, call->op->name, ep_opencl_mem (out), pattern, itemsize,
                                0, ep_layout_get_size (&out->layout) * itemsize, error);
}

static gboolean
opencl_arange (EpOpCall  *call,
               GError   **error)
{
  EpTensor *out = call->outputs[0];
  EpDType dtype = out->layout.dtype;
  gsize itemsize = ep_dtype_get_itemsize (dtype);
  cl_long n = out->layout.shape[0];
  guint8 first[8], second[8], delta[8];
  char name[16];
  EpCLLaunch launch;
  gsize local;

  if (!ep_opencl_check_dtype (call->device, call->op->name, dtype, error))
    return FALSE;

  ep_arange_values (call, first, second, delta);

  g_snprintf (name, sizeof name, "arange_%s", ep_cl_dtype_suffix (dtype));
  if (!ep_cl_launch_init (&launch, call, "creation", name, error))
    return FALSE;

  ep_cl_launch_tensor (&launch, out);
  ep_cl_launch_arg (&launch, sizeof n, &n);
  ep_cl_launch_arg (&launch, itemsize, first);
  ep_cl_launch_arg (&launch, itemsize, second);
  ep_cl_launch_arg (&launch, itemsize, delta);

  local = ep_cl_launch_local_size (&launch);
  return ep_cl_launch_run (&launch, ep_cl_launch_global_size (&launch, n, local), local, error);
}

/* linspace as cpu_linspace() computes it, for devices without float64:
 * the values are made on the host and written. */
static gboolean
linspace_on_host (EpOpCall  *call,
                  GError   **error)
{
  EpTensor *out = call->outputs[0];
  gint64 num = call->attrs.linspace.num;
  gsize itemsize = ep_dtype_get_itemsize (out->layout.dtype);
  g_autofree guint8 *data = ep_try_malloc (MAX (num * itemsize, 1));

  if (data == NULL)
    {
      g_set_error (error, EP_ERROR, EP_ERROR_OUT_OF_MEMORY,
                   _("linspace: cannot allocate %zu bytes"), num * itemsize);
      return FALSE;
    }

  ep_linspace_fill (call, data);
  return ep_device_write (call->device, out->storage, 0, data, num * itemsize, error);
}

static gboolean
opencl_linspace (EpOpCall  *call,
                 GError   **error)
{
  EpTensor *out = call->outputs[0];
  EpDType dtype = out->layout.dtype;
  cl_long num = call->attrs.linspace.num;
  cl_double start = call->attrs.linspace.start, stop = call->attrs.linspace.stop;
  cl_int endpoint = call->attrs.linspace.endpoint, integer = ep_dtype_is_integer (dtype);
  char name[24];
  EpCLLaunch launch;
  gsize local;

  if (!ep_opencl_device (call->device)->fp64)
    return linspace_on_host (call, error);

  g_snprintf (name, sizeof name, "linspace_%s", ep_cl_dtype_suffix (dtype));
  if (!ep_cl_launch_init (&launch, call, "creation", name, error))
    return FALSE;

  ep_cl_launch_tensor (&launch, out);
  ep_cl_launch_arg (&launch, sizeof num, &num);
  ep_cl_launch_arg (&launch, sizeof start, &start);
  ep_cl_launch_arg (&launch, sizeof stop, &stop);
  ep_cl_launch_arg (&launch, sizeof endpoint, &endpoint);
  ep_cl_launch_arg (&launch, sizeof integer, &integer);

  local = ep_cl_launch_local_size (&launch);
  return ep_cl_launch_run (&launch, ep_cl_launch_global_size (&launch, num, local), local, error);
}

static gboolean
opencl_eye (EpOpCall  *call,
            GError   **error)
{
  EpTensor *out = call->outputs[0];
  EpDType dtype = out->layout.dtype;
  gsize itemsize = ep_dtype_get_itemsize (dtype);
  cl_long n = call->attrs.eye.n, m = call->attrs.eye.m, k = call->attrs.eye.k;
  guint8 one[8];
  char name[16];
  EpCLLaunch launch;
  gsize local;

  ep_scalar_store (one, dtype, 1.0);
  g_snprintf (name, sizeof name, "eye_%" G_GSIZE_FORMAT, itemsize);
  if (!ep_cl_launch_init (&launch, call, "creation", name, error))
    return FALSE;

  ep_cl_launch_tensor (&launch, out);
  ep_cl_launch_arg (&launch, sizeof n, &n);
  ep_cl_launch_arg (&launch, sizeof m, &m);
  ep_cl_launch_arg (&launch, sizeof k, &k);
  ep_cl_launch_arg (&launch, itemsize, one);

  local = ep_cl_launch_local_size (&launch);
  return ep_cl_launch_run (&launch, ep_cl_launch_global_size (&launch, n * m, local), local, error);
}

static gboolean
opencl_onehot_like (EpOpCall  *call,
                    GError   **error)
{
  EpTensor *out = call->outputs[0], *indices = call->inputs[1];
  EpDType dtype = out->layout.dtype;
  gsize itemsize = ep_dtype_get_itemsize (dtype);
  cl_long n = out->layout.shape[0], c = out->layout.shape[1];
  cl_long offset = indices->layout.offset, stride = indices->layout.strides[0];
  gint64 first = -1, index = 0;
  guint8 value[8];
  char name[24];
  EpCLLaunch launch;
  gsize local;
  cl_mem bad;
  gboolean ok;

  ep_scalar_store (value, dtype, call->attrs.onehot.value);

  bad = ep_cl_flag_new (call, error);
  if (bad == NULL)
    return FALSE;

  g_snprintf (name, sizeof name, "onehot_like_%" G_GSIZE_FORMAT, itemsize);
  ok = ep_cl_launch_init (&launch, call, "creation", name, error);
  if (ok)
    {
      ep_cl_launch_tensor (&launch, out);
      ep_cl_launch_tensor (&launch, indices);
      ep_cl_launch_mem (&launch, bad);
      ep_cl_launch_arg (&launch, sizeof n, &n);
      ep_cl_launch_arg (&launch, sizeof c, &c);
      ep_cl_launch_arg (&launch, sizeof offset, &offset);
      ep_cl_launch_arg (&launch, sizeof stride, &stride);
      ep_cl_launch_arg (&launch, itemsize, value);
      local = ep_cl_launch_local_size (&launch);
      ok = ep_cl_launch_run (&launch, ep_cl_launch_global_size (&launch, n * c, local), local, error)
           && ep_cl_flag_bad_index (call, bad, indices, 0, c, &first, &index, error);
    }

  if (ok && first >= 0)
    {
      g_set_error (error, EP_ERROR, EP_ERROR_INDEX,
                   g_dngettext (GETTEXT_PACKAGE,
                                "onehot_like: index %" PRId64 " at position %" PRId64 " is out of range for %" PRId64 " column",
                                "onehot_like: index %" PRId64 " at position %" PRId64 " is out of range for %" PRId64 " columns",
                                (gulong) c),
                   index, first, (gint64) c);
      ok = FALSE;
    }

  clReleaseMemObject (bad);
  return ok;
}

void
ep_opencl_register_creation (EpKernelFunc *kernels)
{
  kernels[EP_OP_FULL] = opencl_full;
  kernels[EP_OP_ARANGE] = opencl_arange;
  kernels[EP_OP_LINSPACE] = opencl_linspace;
  kernels[EP_OP_EYE] = opencl_eye;
  kernels[EP_OP_ONEHOT_LIKE] = opencl_onehot_like;
}
