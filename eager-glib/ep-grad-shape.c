/* ep-grad-shape.c: helpers for the gradient rules of the shape, indexing
 * and linear algebra ops, and for rules that read indices
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <glib/gi18n-lib.h>
#include <inttypes.h>
#include <string.h>

#include "ep-creation.h"
#include "ep-dispatch-private.h"
#include "ep-error.h"
#include "ep-shape-private.h"

/* Zeros of @like's dtype on @like's device. */
EpTensor *
ep_grad_zeros (EpTensor      *like,
               const gint64  *shape,
               guint          ndim,
               GError       **error)
{
  EpTensor *zeros;

  ep_device_push (like->storage->device);
  zeros = ep_zeros (shape, ndim, like->layout.dtype, error);
  ep_device_pop ();

  return zeros;
}

/* A constant int64 tensor (indices) on @like's device. */
EpTensor *
ep_grad_int64 (EpTensor      *like,
               const gint64  *data,
               const gint64  *shape,
               guint          ndim,
               GError       **error)
{
  EpLayout layout;
  gsize nbytes = 0;
  g_autoptr(GBytes) bytes = NULL;
  EpTensor *tensor;

  if (!ep_layout_init (&layout, EP_DTYPE_INT64, shape, ndim, "gradient", error))
    return NULL;
  ep_layout_compute_nbytes (&layout, &nbytes);
  bytes = g_bytes_new (data, nbytes);

  ep_device_push (like->storage->device);
  tensor = ep_tensor_new_from_bytes (bytes, EP_DTYPE_INT64, shape, ndim, error);
  ep_device_pop ();

  return tensor;
}

/* Swaps the last two axes (a batch of matrices transposed). */
EpTensor *
ep_grad_swap_last (EpTensor  *t,
                   GError   **error)
{
  guint ndim = t->layout.ndim;
  gint axes[EP_MAX_DIMS];

  g_return_val_if_fail (ndim >= 2, NULL);

  for (guint d = 0; d < ndim; d++)
    axes[d] = d;
  axes[ndim - 2] = ndim - 1;
  axes[ndim - 1] = ndim - 2;

  return ep_tensor_transpose (t, axes, ndim, error);
}

/* Checks that every integer of input @input lies in [-extent, extent):
 * for rules of ops that gather or scatter along @axis. */
gboolean
ep_op_check_indices (const EpOpCall  *call,
                     guint            input,
                     gint64           extent,
                     gint             axis,
                     GError         **error)
{
  EpDType dtype = call->inputs[input]->layout.dtype;
  g_autoptr(GBytes) bytes = NULL;
  gconstpointer data;
  gsize nbytes, n;

  if (ep_layout_get_size (&call->inputs[input]->layout) == 0)
    return TRUE;

  bytes = ep_op_read_input (call, input, error);
  if (bytes == NULL)
    return FALSE;

  data = g_bytes_get_data (bytes, &nbytes);
  n = nbytes / ep_dtype_get_itemsize (dtype);
  for (gsize i = 0; i < n; i++)
    {
      gint64 index = dtype == EP_DTYPE_INT32 ? ((const gint32 *) data)[i] : ((const gint64 *) data)[i];

      if (index < -extent || index >= extent)
        {
          g_set_error (error, EP_ERROR, EP_ERROR_INDEX,
                       _("%s: index %" PRId64 " is out of range for axis %d of extent %" PRId64),
                       call->op->name, index, axis, extent);
          return FALSE;
        }
    }

  return TRUE;
}
