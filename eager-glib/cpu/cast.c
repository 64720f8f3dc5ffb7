/* cast.c: astype, contiguous and to_device on the CPU
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <string.h>

#include "ep-cpu-half-private.h"
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

/* float16 and bfloat16 go through float32 in runs of HALF_RUN: what
 * float32 holds of the other type, by its float32 loop, then rounded
 * once; a half type's elements, widened exactly, then by the float32
 * loop. float64 to float16 is rounded directly (through float32 it could
 * round twice, which NumPy does not); float64 to bfloat16 goes through
 * float32 as in PyTorch. */
#define HALF_RUN 512

typedef struct
{
  EpDType from, to;
} HalfCast;

static void
half_run_to_float (EpDType       dtype,
                   const guint8 *in,
                   gint64        stride,
                   gfloat       *out,
                   gint64        n)
{
  if (stride == 2)
    ep_cpu_half_to_float (dtype, (const guint16 *) in, out, n);
  else
    for (gint64 i = 0; i < n; i++)
      out[i] = (gfloat) ep_scalar_load (in + i * stride, dtype);
}

static void
cast_half_loop (guint8 **p, const gint64 *s, gint64 n, gconstpointer u)
{
  const HalfCast *c = u;
  gsize out_size = ep_dtype_itemsize (c->to);
  gfloat run[HALF_RUN];

  if (c->from == EP_DTYPE_FLOAT64 && c->to == EP_DTYPE_FLOAT16)
    {
      for (gint64 i = 0; i < n; i++)
        ((guint16 *) p[0])[i] = ep_double_to_half (*(const gdouble *) (p[1] + i * s[1]));
      return;
    }

  for (gint64 i = 0; i < n; i += HALF_RUN)
    {
      gint64 m = MIN (HALF_RUN, n - i);
      const guint8 *in = p[1] + i * s[1];
      guint8 *out = p[0] + i * out_size;

      if (ep_dtype_is_half (c->from))
        half_run_to_float (c->from, in, s[1], run, m);
      else
        {
          guint8 *q[2] = { (guint8 *) run, (guint8 *) in };
          gint64 qs[2] = { sizeof (gfloat), s[1] };

          cast_loops[c->from][EP_DTYPE_FLOAT32] (q, qs, m, NULL);
        }

      if (ep_dtype_is_half (c->to))
        ep_cpu_float_to_half (c->to, run, (guint16 *) out, m);
      else
        {
          guint8 *q[2] = { out, (guint8 *) run };
          gint64 qs[2] = { out_size, sizeof (gfloat) };

          cast_loops[EP_DTYPE_FLOAT32][c->to] (q, qs, m, NULL);
        }
    }
}

static gboolean
cpu_astype (EpOpCall  *call,
            GError   **error)
{
  EpDType from = call->inputs[0]->layout.dtype;
  EpDType to = call->outputs[0]->layout.dtype;
  HalfCast half = { from, to };

  if (from == to)
    ep_cpu_map (call, ep_cpu_copy_loop_for_itemsize (ep_dtype_itemsize (from)), NULL);
  else if (ep_dtype_is_half (from) || ep_dtype_is_half (to))
    ep_cpu_map (call, cast_half_loop, &half);
  else
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
