/* opencl/optimizer.c: the fused updates of the optimizers
 * (kernels/optimizer.cl): one launch per variable and step, writing the
 * variable and its slots in place, no allocation
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include "ep-autodiff-private.h"
#include "ep-opencl-private.h"
#include "ep-tensor-private.h"

#define N_STATE 4
#define N_CONSTANTS 8

static void
unlock (EpVariable **state,
        EpTensor   **values)
{
  for (guint i = N_STATE; i > 0; i--)
    if (values[i - 1] != NULL)
      ep_variable_end_in_place (state[i - 1]);
}

gboolean
ep_opencl_optimizer_update (const char     *kernel,
                            EpVariable    **state,
                            EpTensor       *gradient,
                            const gdouble  *constants,
                            gint            flags,
                            gboolean       *ran,
                            GError        **error)
{
  EpDevice *device = gradient->storage->device;
  EpDType dtype = gradient->layout.dtype;
  EpTensor *values[N_STATE] = { NULL, };
  g_autofree char *name = NULL;
  cl_long offset = gradient->layout.offset;
  cl_long n = ep_layout_get_size (&gradient->layout);
  EpCLLaunch launch;
  gsize local;
  gboolean ok;

  *ran = FALSE;
  /* (float16 and bfloat16 have no kernels here: the ops, in float32) */
  if (device == ep_device_get_cpu () || ep_dtype_is_half (dtype)
      || !ep_layout_is_contiguous (&gradient->layout)
      || (dtype == EP_DTYPE_FLOAT64 && !ep_opencl_check_dtype (device, kernel, dtype, NULL)))
    return TRUE;
  for (guint i = 0; i < N_STATE; i++)
    {
      if (state[i] == NULL)
        continue;
      values[i] = ep_variable_begin_in_place_on (state[i], device);
      if (values[i] == NULL || values[i]->layout.offset != 0)
        {
          unlock (state, values);
          return TRUE;
        }
    }

  name = g_strconcat (kernel, "_", ep_cl_dtype_suffix (dtype), NULL);
  ok = ep_cl_launch_init_on (&launch, device, "apply_gradients", "optimizer", name, error);
  if (ok)
    {
      for (guint i = 0; i < N_STATE; i++)
        ep_cl_launch_tensor (&launch, values[i] != NULL ? values[i] : values[0]);
      ep_cl_launch_tensor (&launch, gradient);
      ep_cl_launch_arg (&launch, sizeof offset, &offset);
      ep_cl_launch_arg (&launch, sizeof n, &n);
      for (guint c = 0; c < N_CONSTANTS; c++)
        {
          /* converted as the CPU loops' (T) casts do */
          gfloat f = (gfloat) constants[c];

          if (dtype == EP_DTYPE_FLOAT32)
            ep_cl_launch_arg (&launch, sizeof f, &f);
          else
            ep_cl_launch_arg (&launch, sizeof constants[c], &constants[c]);
        }
      ep_cl_launch_arg (&launch, sizeof flags, &flags);
      local = ep_cl_launch_local_size (&launch);
      ok = ep_cl_launch_run (&launch, ep_cl_launch_global_size (&launch, n, local), local, error);
    }
  unlock (state, values);
  *ran = ok;

  return ok;
}
