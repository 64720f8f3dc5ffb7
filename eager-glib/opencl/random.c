/* ep-opencl-generate.c: linspace, eye, onehot_like, uniform and normal
 * on OpenCL (kernels/generate.cl)
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <inttypes.h>
#include <glib/gi18n-lib.h>
#include <math.h>

#include "ep-error.h"
#include "ep-math-private.h"
#include "ep-opencl-private.h"
#include "ep-scalar-private.h"
#include "ep-tensor-private.h"

/* linspace as cpu_linspace() computes it, for devices without float64:
 * the values are made on the host and written. */
static gboolean
linspace_on_host (EpOpCall  *call,
                  GError   **error)
{
  EpTensor *out = call->outputs[0];
  gint64 num = call->attrs.ints[0];
  gsize itemsize = ep_dtype_get_itemsize (out->layout.dtype);
  g_autofree guint8 *data = g_try_malloc (MAX (num * itemsize, 1));

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
  cl_long num = call->attrs.ints[0];
  cl_double start = call->attrs.values[0], stop = call->attrs.values[1];
  cl_int endpoint = call->attrs.ints[1] != 0, integer = ep_dtype_is_integer (dtype);
  char name[24];
  EpCLLaunch launch;
  gsize local;

  if (!ep_opencl_device (call->device)->fp64)
    return linspace_on_host (call, error);

  g_snprintf (name, sizeof name, "linspace_%s", ep_cl_dtype_suffix (dtype));
  if (!ep_cl_launch_init (&launch, call, "random", name, error))
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
  cl_long n = call->attrs.ints[0], m = call->attrs.ints[1], k = call->attrs.ints[2];
  guint8 one[8];
  char name[16];
  EpCLLaunch launch;
  gsize local;

  ep_scalar_store (one, dtype, 1.0);
  g_snprintf (name, sizeof name, "eye_%" G_GSIZE_FORMAT, itemsize);
  if (!ep_cl_launch_init (&launch, call, "random", name, error))
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
  gint32 none = G_MAXINT32, first = G_MAXINT32;
  guint8 value[8];
  char name[24];
  EpCLLaunch launch;
  gsize local;
  cl_mem bad;
  gboolean ok;

  ep_scalar_store (value, dtype, call->attrs.values[0]);

  bad = ep_opencl_create_buffer (call->device, call->op->name, sizeof none, error);
  if (bad == NULL)
    return FALSE;

  g_snprintf (name, sizeof name, "onehot_like_%" G_GSIZE_FORMAT, itemsize);
  ok = ep_opencl_fill_buffer (call->device, call->op->name, bad, &none, sizeof none, 0,
                              sizeof none, error)
       && ep_cl_launch_init (&launch, call, "random", name, error);
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
           && ep_opencl_read_buffer (call->device, call->op->name, bad, 0, &first, sizeof first, error);
    }

  if (ok && first != G_MAXINT32)
    {
      gint64 index = 0;

      ok = ep_opencl_read_buffer (call->device, call->op->name, ep_opencl_mem (indices),
                                  (offset + first * stride) * sizeof (gint64), &index, sizeof index, error);
      if (ok)
        g_set_error (error, EP_ERROR, EP_ERROR_INDEX,
                     _("onehot_like: index %" PRId64 " at position %" PRId64 " is out of range for %" PRId64 " columns"),
                     index, (gint64) first, (gint64) c);
      ok = FALSE;
    }

  clReleaseMemObject (bad);
  return ok;
}

/* uniform, normal: attrs.ints holds the shape, then the seed and the
 * stream (ep-random.c); the recipe is in ep-philox-private.h */
static gboolean
opencl_random (EpOpCall  *call,
               GError   **error)
{
  EpTensor *out = call->outputs[0];
  const EpOpAttrs *attrs = &call->attrs;
  guint ndim = attrs->n_ints - 2;
  cl_ulong seed = (cl_ulong) attrs->ints[ndim], stream = (cl_ulong) attrs->ints[ndim + 1];
  cl_long size = ep_layout_get_size (&out->layout);
  gboolean normal = call->op->id == EP_OP_NORMAL;
  gboolean f32 = out->layout.dtype == EP_DTYPE_FLOAT32;
  gdouble a = attrs->values[0], b = attrs->values[1];
  char name[24];
  EpCLLaunch launch;
  gsize local;
  cl_long items;

  if (!ep_opencl_check_dtype (call->device, call->op->name, out->layout.dtype, error))
    return FALSE;

  g_snprintf (name, sizeof name, "%s_%s", call->op->name, ep_cl_dtype_suffix (out->layout.dtype));
  if (!ep_cl_launch_init (&launch, call, "random", name, error))
    return FALSE;

  ep_cl_launch_tensor (&launch, out);
  ep_cl_launch_arg (&launch, sizeof seed, &seed);
  ep_cl_launch_arg (&launch, sizeof stream, &stream);
  ep_cl_launch_arg (&launch, sizeof size, &size);
  if (f32)
    {
      cl_float fa = (cl_float) a, fb = (cl_float) b, span = fb - fa;

      ep_cl_launch_arg (&launch, sizeof fa, &fa);
      ep_cl_launch_arg (&launch, sizeof fb, &fb);
      if (!normal)
        ep_cl_launch_arg (&launch, sizeof span, &span);
    }
  else
    {
      cl_double span = b - a;

      ep_cl_launch_arg (&launch, sizeof a, &a);
      ep_cl_launch_arg (&launch, sizeof b, &b);
      if (!normal)
        ep_cl_launch_arg (&launch, sizeof span, &span);
    }

  /* one work-item per Philox block */
  items = normal ? (f32 ? (size + 1) / 2 : size) : (f32 ? (size + 3) / 4 : (size + 1) / 2);
  local = ep_cl_launch_local_size (&launch);
  return ep_cl_launch_run (&launch, ep_cl_launch_global_size (&launch, items, local), local, error);
}

void
ep_opencl_register_generate (EpKernelFunc *kernels)
{
  kernels[EP_OP_LINSPACE] = opencl_linspace;
  kernels[EP_OP_EYE] = opencl_eye;
  kernels[EP_OP_ONEHOT_LIKE] = opencl_onehot_like;
  kernels[EP_OP_UNIFORM] = opencl_random;
  kernels[EP_OP_NORMAL] = opencl_random;
}
