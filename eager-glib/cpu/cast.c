/* cast.c: astype, contiguous and to_device on the CPU
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <string.h>

#include "ep-cpu-private.h"
#include "ep-scalar-private.h"
#include "ep-tensor-private.h"

#define TO_FLOAT(x)   (x)
#define TO_DOUBLE(x)  (x)
#define TO_INT32_FROM_FLOAT(x) ep_double_to_int32 ((gdouble) (x))
#define TO_INT64_FROM_FLOAT(x) ep_double_to_int64 ((gdouble) (x))
#define TO_INT32_FROM_INT(x) ((gint32) (guint32) (x))
#define TO_INT64_FROM_INT(x) ((gint64) (x))
#define TO_UINT8_FROM_FLOAT(x) ep_double_to_uint8 ((gdouble) (x))
#define TO_UINT8_FROM_INT(x) ((guint8) (guint64) (x))
#define TO_INT8_FROM_FLOAT(x) ep_double_to_int8 ((gdouble) (x))
#define TO_INT8_FROM_INT(x) ((gint8) (guint8) (guint64) (x))
#define TO_INT16_FROM_FLOAT(x) ep_double_to_int16 ((gdouble) (x))
#define TO_INT16_FROM_INT(x) ((gint16) (guint16) (guint64) (x))
#define TO_BOOL(x)    ((x) != 0)

#define CAST_LOOP(name, SRC, DST, CONVERT)                                  \
static void                                                                 \
name (guint8 **p, const gint64 *s, gint64 n, gconstpointer u)               \
{                                                                           \
  DST *out = (DST *) p[0];                                                  \
  const guint8 *in = p[1];                                                  \
  if (s[1] == sizeof (SRC))                                                 \
    for (gint64 i = 0; i < n; i++)                                          \
      out[i] = (DST) CONVERT (((const SRC *) in)[i]);                       \
  else                                                                      \
    for (gint64 i = 0; i < n; i++)                                          \
      out[i] = (DST) CONVERT (*(const SRC *) (in + i * s[1]));              \
}

/* @KIND: FLOAT or INT, how the source converts to the integer types */
#define CAST_FROM(SRC, src, KIND)                                           \
  CAST_LOOP (cast_##src##_float32, SRC, gfloat, TO_FLOAT)                   \
  CAST_LOOP (cast_##src##_float64, SRC, gdouble, TO_DOUBLE)                 \
  CAST_LOOP (cast_##src##_int32, SRC, gint32, TO_INT32_FROM_##KIND)         \
  CAST_LOOP (cast_##src##_int64, SRC, gint64, TO_INT64_FROM_##KIND)         \
  CAST_LOOP (cast_##src##_bool, SRC, guint8, TO_BOOL)                       \
  CAST_LOOP (cast_##src##_uint8, SRC, guint8, TO_UINT8_FROM_##KIND)         \
  CAST_LOOP (cast_##src##_int8, SRC, gint8, TO_INT8_FROM_##KIND)            \
  CAST_LOOP (cast_##src##_int16, SRC, gint16, TO_INT16_FROM_##KIND)

CAST_FROM (gfloat, float32, FLOAT)
CAST_FROM (gdouble, float64, FLOAT)
CAST_FROM (gint32, int32, INT)
CAST_FROM (gint64, int64, INT)
CAST_FROM (guint8, bool, INT)
CAST_FROM (guint8, uint8, INT)
CAST_FROM (gint8, int8, INT)
CAST_FROM (gint16, int16, INT)

#define CAST_ROW(src) \
  { cast_##src##_float32, cast_##src##_float64, cast_##src##_int32, cast_##src##_int64, cast_##src##_bool, \
    cast_##src##_uint8, cast_##src##_int8, cast_##src##_int16 }

/* [from][to], in EpDType order */
static const EpCpuLoop cast_loops[EP_CPU_N_DTYPES][EP_CPU_N_DTYPES] = {
  CAST_ROW (float32), CAST_ROW (float64), CAST_ROW (int32), CAST_ROW (int64), CAST_ROW (bool),
  CAST_ROW (uint8), CAST_ROW (int8), CAST_ROW (int16),
};

/* The loop cpu_astype() runs (graph fusion) */
EpCpuLoop
ep_cpu_cast_loop (EpDType from,
                  EpDType to)
{
  return cast_loops[from][to];
}

static gboolean
cpu_astype (EpOpCall  *call,
            GError   **error)
{
  EpDType from = call->inputs[0]->layout.dtype;
  EpDType to = call->outputs[0]->layout.dtype;

  ep_cpu_map (call, cast_loops[from][to], NULL);
  return TRUE;
}

#define COPY_LOOP(name, T)                                                  \
static void                                                                 \
name (guint8 **p, const gint64 *s, gint64 n, gconstpointer u)               \
{                                                                           \
  T *out = (T *) p[0];                                                      \
  const guint8 *in = p[1];                                                  \
  if (s[1] == sizeof (T))                                                   \
    memcpy (out, in, n * sizeof (T));                                       \
  else                                                                      \
    for (gint64 i = 0; i < n; i++)                                          \
      out[i] = *(const T *) (in + i * s[1]);                                \
}

COPY_LOOP (copy_1, guint8)
COPY_LOOP (copy_2, guint16)
COPY_LOOP (copy_4, guint32)
COPY_LOOP (copy_8, guint64)

EpCpuLoop
ep_cpu_copy_loop_for_itemsize (gsize itemsize)
{
  switch (itemsize)
    {
    case 1: return copy_1;
    case 2: return copy_2;
    case 4: return copy_4;
    default: return copy_8;
    }
}

static gboolean
cpu_contiguous (EpOpCall  *call,
                GError   **error)
{
  ep_cpu_map (call, ep_cpu_copy_loop_for_itemsize (ep_dtype_get_itemsize (call->inputs[0]->layout.dtype)), NULL);
  return TRUE;
}

void
ep_cpu_register_cast (EpKernelFunc *kernels)
{
  kernels[EP_OP_ASTYPE] = cpu_astype;
  kernels[EP_OP_CONTIGUOUS] = cpu_contiguous;
  kernels[EP_OP_TO_DEVICE] = ep_copy_to_device_kernel;
}
