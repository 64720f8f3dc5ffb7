/* softmax.c: softmax, log_softmax, logsumexp and crossentropy on
 * OpenCL (kernels/softmax.cl)
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <inttypes.h>
#include <glib/gi18n-lib.h>

#include "ep-error.h"
#include "ep-opencl-private.h"
#include "ep-tensor-private.h"

/* softmax and log_softmax: one work-item per row */
static gboolean
opencl_softmax (EpOpCall  *call,
                GError   **error)
{
  EpTensor *in = call->inputs[0], *out = call->outputs[0];
  EpDType dtype = in->layout.dtype;
  guint axis = call->attrs.axes[0];
  const EpLayout *layouts[2] = { &out->layout, &in->layout };
  char name[32];
  EpCLRows rows;

  if (!ep_opencl_check_dtype (call->device, call->op->name, dtype, error))
    return FALSE;

  ep_cl_rows_init (&rows, layouts, 2, axis, in->layout.shape[axis]);
  g_snprintf (name, sizeof name, "%s_%s", call->op->name, ep_cl_dtype_suffix (dtype));
  return ep_cl_rows_kernel (call, "softmax", name, out, in, &rows, error);
}

static gboolean
opencl_crossentropy (EpOpCall  *call,
                     GError   **error)
{
  EpTensor *logits = call->inputs[0], *labels = call->inputs[1], *loss = call->outputs[0];
  EpDType dtype = logits->layout.dtype;
  cl_long n = logits->layout.shape[0], c = logits->layout.shape[1];
  cl_long x_offset = logits->layout.offset;
  cl_long x_row = logits->layout.strides[0], x_col = logits->layout.strides[1];
  cl_long y_offset = labels->layout.offset, y_stride = labels->layout.strides[0];
  char name[24];
  EpCLLaunch launch;
  gsize local;
  gint64 sample = -1, label = 0;
  cl_mem bad;
  gboolean ok;

  if (!ep_opencl_check_dtype (call->device, call->op->name, dtype, error))
    return FALSE;

  bad = ep_cl_flag_new (call, error);
  if (bad == NULL)
    return FALSE;

  g_snprintf (name, sizeof name, "crossentropy_%s", ep_cl_dtype_suffix (dtype));
  ok = ep_cl_launch_init (&launch, call, "softmax", name, error);
  if (ok)
    {
      ep_cl_launch_tensor (&launch, loss);
      ep_cl_launch_tensor (&launch, logits);
      ep_cl_launch_tensor (&launch, labels);
      ep_cl_launch_mem (&launch, bad);
      ep_cl_launch_arg (&launch, sizeof n, &n);
      ep_cl_launch_arg (&launch, sizeof c, &c);
      ep_cl_launch_arg (&launch, sizeof x_offset, &x_offset);
      ep_cl_launch_arg (&launch, sizeof x_row, &x_row);
      ep_cl_launch_arg (&launch, sizeof x_col, &x_col);
      ep_cl_launch_arg (&launch, sizeof y_offset, &y_offset);
      ep_cl_launch_arg (&launch, sizeof y_stride, &y_stride);
      local = ep_cl_launch_local_size (&launch);
      ok = ep_cl_launch_run (&launch, ep_cl_launch_global_size (&launch, n, local), local, error)
           && ep_cl_flag_bad_index (call, bad, labels, 0, c, &sample, &label, error);
    }

  /* the first sample whose label was out of range, as the CPU says */
  if (ok && sample >= 0)
    {
      g_set_error (error, EP_ERROR, EP_ERROR_INDEX,
                   g_dngettext (GETTEXT_PACKAGE,
                                "crossentropy: label %" PRId64 " of sample %" PRId64 " is out of range for %" PRId64 " class",
                                "crossentropy: label %" PRId64 " of sample %" PRId64 " is out of range for %" PRId64 " classes",
                                (gulong) c),
                   label, sample, (gint64) c);
      ok = FALSE;
    }

  clReleaseMemObject (bad);
  return ok;
}

/* logsumexp: a work-item per output for short reductions, else a
 * work-group */
static gboolean
opencl_logsumexp (EpOpCall  *call,
                  GError   **error)
{
  EpTensor *in = call->inputs[0];
  EpDType dtype = in->layout.dtype;
  gboolean groups;
  EpCLReduce g;
  char name[32];
  EpCLLaunch launch;
  gsize local;

  if (!ep_opencl_check_dtype (call->device, call->op->name, dtype, error))
    return FALSE;

  ep_cl_reduce_init (&g, &in->layout, call->attrs.axes, call->attrs.n_axes);
  groups = !(g.k <= 64 || (g.m >= 4096 && g.k <= 1024));

  g_snprintf (name, sizeof name, "logsumexp_%s_%s", groups ? "wg" : "wi", ep_cl_dtype_suffix (dtype));
  if (!ep_cl_launch_init (&launch, call, "softmax", name, error))
    return FALSE;

  ep_cl_launch_tensor (&launch, call->outputs[0]);
  ep_cl_launch_tensor (&launch, in);
  ep_cl_launch_arg (&launch, sizeof g, &g);
  local = ep_cl_launch_local_size (&launch);
  if (!groups)
    return ep_cl_launch_run (&launch, ep_cl_launch_global_size (&launch, g.m, local), local, error);

  ep_cl_launch_arg (&launch, local * ep_opencl_device (call->device)->acc_size, NULL);
  return ep_cl_launch_run (&launch, (gsize) g.m * local, local, error);
}

void
ep_opencl_register_softmax (EpKernelFunc *kernels)
{
  kernels[EP_OP_SOFTMAX] = opencl_softmax;
  kernels[EP_OP_LOG_SOFTMAX] = opencl_softmax;
  kernels[EP_OP_CROSSENTROPY] = opencl_crossentropy;
  kernels[EP_OP_LOGSUMEXP] = opencl_logsumexp;
}
