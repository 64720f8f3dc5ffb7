/* scan.c: cumsum and cumprod on the CPU
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include "ep-cpu-rows-private.h"
#include "ep-tensor-private.h"

#define SCAN_ROW(name, T, START, PLUS)                                      \
static void                                                                 \
name (guint8 **rows, const gint64 *s, gpointer u)                           \
{                                                                           \
  const gint64 n = *(const gint64 *) u;   /* the row length */              \
  T acc = START;                                                            \
  for (gint64 i = 0; i < n; i++)                                            \
    {                                                                       \
      acc = PLUS (acc, *(const T *) (rows[1] + i * s[1]));                  \
      *(T *) (rows[0] + i * s[0]) = acc;                                    \
    }                                                                       \
}

#define PLUS(a, b) ((a) + (b))
#define WRAPPING_PLUS(a, b) ((gint64) ((guint64) (a) + (guint64) (b)))
#define TIMES(a, b) ((a) * (b))
#define WRAPPING_TIMES(a, b) ((gint64) ((guint64) (a) * (guint64) (b)))

SCAN_ROW (cumsum_f32, gfloat, 0, PLUS)
SCAN_ROW (cumsum_f64, gdouble, 0, PLUS)
SCAN_ROW (cumsum_i64, gint64, 0, WRAPPING_PLUS)
SCAN_ROW (cumprod_f32, gfloat, 1, TIMES)
SCAN_ROW (cumprod_f64, gdouble, 1, TIMES)
SCAN_ROW (cumprod_i64, gint64, 1, WRAPPING_TIMES)

static gboolean
cpu_scan (EpOpCall  *call,
          GError   **error)
{
  gboolean product = call->op->id == EP_OP_CUMPROD;
  EpTensor *out = call->outputs[0];
  guint axis;
  g_autoptr(EpTensor) in = ep_cpu_axis_or_flat (call, &axis);
  EpTensor *tensors[2] = { out, in };
  gint64 n = in->layout.shape[axis];
  EpCpuRowFunc row;

  switch (out->layout.dtype)
    {
    case EP_DTYPE_FLOAT32: row = product ? cumprod_f32 : cumsum_f32; break;
    case EP_DTYPE_FLOAT64: row = product ? cumprod_f64 : cumsum_f64; break;
    case EP_DTYPE_INT64:   row = product ? cumprod_i64 : cumsum_i64; break;
    default: g_assert_not_reached ();
    }

  ep_cpu_for_each_row (tensors, 2, axis, row, &n);
  return TRUE;
}

void
ep_cpu_register_scan (EpKernelFunc *kernels)
{
  kernels[EP_OP_CUMSUM] = cpu_scan;
  kernels[EP_OP_CUMPROD] = cpu_scan;
}
