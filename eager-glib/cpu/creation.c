/* creation.c: full, arange, linspace, eye and onehot_like on the CPU
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <glib/gi18n-lib.h>
#include <inttypes.h>
#include <string.h>

#include "ep-cpu-private.h"
#include "ep-error.h"
#include "ep-math-private.h"
#include "ep-scalar-private.h"
#include "ep-tensor-private.h"

#define FILL(T, data, n, value)                 \
  G_STMT_START {                                \
    T *dst = (T *) (data);                      \
    T v = (value);                              \
    for (gint64 i = 0; i < (n); i++)            \
      dst[i] = v;                               \
  } G_STMT_END

static gboolean
cpu_full (EpOpCall  *call,
          GError   **error)
{
  EpTensor *out = call->outputs[0];
  gint64 n = ep_layout_get_size (&out->layout);
  gpointer data = out->storage->data;
  guint8 element[8];

  ep_number_store (element, out->layout.dtype, call->attrs.full.value);

  switch (out->layout.dtype)
    {
    case EP_DTYPE_FLOAT32: FILL (gfloat, data, n, *(gfloat *) element); break;
    case EP_DTYPE_FLOAT64: FILL (gdouble, data, n, *(gdouble *) element); break;
    case EP_DTYPE_INT32:   FILL (gint32, data, n, *(gint32 *) element); break;
    case EP_DTYPE_INT64:   FILL (gint64, data, n, *(gint64 *) element); break;
    case EP_DTYPE_BOOL:
    case EP_DTYPE_UINT8:
    case EP_DTYPE_INT8:    FILL (guint8, data, n, *element); break;
    case EP_DTYPE_INT16:   FILL (gint16, data, n, *(gint16 *) element); break;
    case EP_DTYPE_FLOAT16:  /* computed in float32 (dispatch/widen.c) */
    case EP_DTYPE_BFLOAT16:
      g_assert_not_reached ();
    }

  return TRUE;
}

/* NumPy's fill: first + i * delta in the element type, from the values
 * ep_arange_values() gives; integers in their unsigned type (@U), so
 * that a range across 2^31 wraps around as NumPy's does, with no signed
 * overflow. Matches np.arange bit for bit. */
#define ARANGE(T, U, data, n, first, second, delta)               \
  G_STMT_START {                                                  \
    T *dst = (T *) (data);                                        \
    T f = *(const T *) (first), d = *(const T *) (delta);         \
    if ((n) > 0)                                                  \
      dst[0] = f;                                                 \
    if ((n) > 1)                                                  \
      dst[1] = *(const T *) (second);                             \
    for (gint64 i = 2; i < (n); i++)                              \
      dst[i] = (T) ((U) f + (U) i * (U) d);                       \
  } G_STMT_END

static gboolean
cpu_arange (EpOpCall  *call,
            GError   **error)
{
  EpTensor *out = call->outputs[0];
  gint64 n = out->layout.shape[0];
  gpointer data = out->storage->data;
  guint8 first[8], second[8], delta[8];

  ep_arange_values (call, first, second, delta);

  switch (out->layout.dtype)
    {
    case EP_DTYPE_FLOAT32: ARANGE (gfloat, gfloat, data, n, first, second, delta); break;
    case EP_DTYPE_FLOAT64: ARANGE (gdouble, gdouble, data, n, first, second, delta); break;
    case EP_DTYPE_INT32:   ARANGE (gint32, guint32, data, n, first, second, delta); break;
    case EP_DTYPE_INT64:   ARANGE (gint64, guint64, data, n, first, second, delta); break;
    case EP_DTYPE_UINT8:   ARANGE (guint8, guint, data, n, first, second, delta); break;
    case EP_DTYPE_INT8:    ARANGE (gint8, guint, data, n, first, second, delta); break;
    case EP_DTYPE_INT16:   ARANGE (gint16, guint, data, n, first, second, delta); break;
    case EP_DTYPE_BOOL:
    case EP_DTYPE_FLOAT16:  /* computed in float32 (dispatch/widen.c) */
    case EP_DTYPE_BFLOAT16:
      g_assert_not_reached ();
    }

  return TRUE;
}

static gboolean
cpu_linspace (EpOpCall  *call,
              GError   **error)
{
  ep_linspace_fill (call, ep_tensor_host_data (call->outputs[0]));
  return TRUE;
}

static gboolean
cpu_eye (EpOpCall  *call,
         GError   **error)
{
  EpTensor *out = call->outputs[0];
  gint64 n = call->attrs.eye.n, m = call->attrs.eye.m, k = call->attrs.eye.k;
  EpDType dtype = out->layout.dtype;
  gsize itemsize = ep_dtype_get_itemsize (dtype);
  guint8 *data = ep_tensor_host_data (out);
  guint8 one[8];

  memset (data, 0, out->storage->nbytes);
  if (k >= m || k <= -n)
    return TRUE;

  ep_scalar_store (one, dtype, 1.0);
  for (gint64 i = MAX (0, -k); i < n && i + k < m; i++)
    memcpy (data + (i * m + i + k) * itemsize, one, itemsize);

  return TRUE;
}

static gboolean
cpu_onehot_like (EpOpCall  *call,
                 GError   **error)
{
  EpTensor *out = call->outputs[0];
  EpTensor *indices = call->inputs[1];
  gint64 n = out->layout.shape[0], c = out->layout.shape[1];
  EpDType dtype = out->layout.dtype;
  gsize itemsize = ep_dtype_get_itemsize (dtype);
  const guint8 *idx = ep_tensor_host_data (indices);
  gint64 stride = indices->layout.strides[0] * (gint64) sizeof (gint64);
  guint8 *data = ep_tensor_host_data (out);
  guint8 value[8];

  ep_scalar_store (value, dtype, call->attrs.onehot.value);
  memset (data, 0, out->storage->nbytes);
  for (gint64 i = 0; i < n; i++)
    {
      gint64 j = *(const gint64 *) (idx + i * stride);

      if (j < 0 || j >= c)
        {
          g_set_error (error, EP_ERROR, EP_ERROR_INDEX,
                       g_dngettext (GETTEXT_PACKAGE,
                                    "onehot_like: index %" PRId64 " at position %" PRId64 " is out of range for %" PRId64 " column",
                                    "onehot_like: index %" PRId64 " at position %" PRId64 " is out of range for %" PRId64 " columns",
                                    (gulong) c),
                       j, i, c);
          return FALSE;
        }
      memcpy (data + (i * c + j) * itemsize, value, itemsize);
    }

  return TRUE;
}

void
ep_cpu_register_creation (EpKernelFunc *kernels)
{
  kernels[EP_OP_FULL] = cpu_full;
  kernels[EP_OP_ARANGE] = cpu_arange;
  kernels[EP_OP_LINSPACE] = cpu_linspace;
  kernels[EP_OP_EYE] = cpu_eye;
  kernels[EP_OP_ONEHOT_LIKE] = cpu_onehot_like;
}
