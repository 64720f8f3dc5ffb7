/* ep-fuzz.h: what the fuzz targets share
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * A target reads its input as a stream of small decisions (an op, a
 * dtype, a shape …) with EpFuzzInput. A stream that runs dry reads
 * zeros, so that every input decodes to something and a short input
 * means a simple case.
 */

#pragma once

#include <math.h>
#include <string.h>

#include <glib.h>

#include "ep-device-private.h"

/* The memory the fuzzers give cpu:0: a valid call may ask for any
 * amount, which is then an EP_ERROR_OUT_OF_MEMORY, not a machine out of
 * memory (nor libFuzzer's RSS limit) */
#define EP_FUZZ_MEMORY_SIZE (G_GUINT64_CONSTANT (8) << 20)

typedef struct
{
  const guint8 *data;
  gsize         size;
  gsize         pos;
} EpFuzzInput;

int LLVMFuzzerTestOneInput (const guint8 *data, size_t size);

static inline void
ep_fuzz_input_init (EpFuzzInput  *in,
                    const guint8 *data,
                    gsize         size)
{
  in->data = data;
  in->size = size;
  in->pos = 0;
}

static inline gsize
ep_fuzz_remaining (const EpFuzzInput *in)
{
  return in->size - in->pos;
}

/* @n bytes into @out, zeros past the end */
static inline void
ep_fuzz_take (EpFuzzInput *in,
              gpointer     out,
              gsize        n)
{
  gsize have = MIN (n, ep_fuzz_remaining (in));

  memcpy (out, in->data + in->pos, have);
  memset ((guint8 *) out + have, 0, n - have);
  in->pos += have;
}

static inline guint8
ep_fuzz_u8 (EpFuzzInput *in)
{
  guint8 value;

  ep_fuzz_take (in, &value, 1);
  return value;
}

/* A number below @n (n > 0) */
static inline guint
ep_fuzz_below (EpFuzzInput *in,
               guint        n)
{
  guint16 value;

  ep_fuzz_take (in, &value, n > 256 ? 2 : 1);
  return (n > 256 ? value : (value & 0xff)) % n;
}

/* One of the element types (EpDType's values have holes) */
static inline EpDType
ep_fuzz_dtype (EpFuzzInput *in)
{
  static const EpDType dtypes[] = {
    EP_DTYPE_FLOAT32, EP_DTYPE_FLOAT64, EP_DTYPE_INT32, EP_DTYPE_INT64,
    EP_DTYPE_BOOL, EP_DTYPE_UINT8, EP_DTYPE_INT8, EP_DTYPE_INT16, EP_DTYPE_FLOAT16,
    EP_DTYPE_BFLOAT16,
  };

  return dtypes[ep_fuzz_below (in, G_N_ELEMENTS (dtypes))];
}

static inline gint64
ep_fuzz_i64 (EpFuzzInput *in)
{
  gint64 value;

  ep_fuzz_take (in, &value, sizeof value);
  return value;
}

static inline gdouble
ep_fuzz_double (EpFuzzInput *in)
{
  gdouble value;

  ep_fuzz_take (in, &value, sizeof value);
  return value;
}

/* Mostly small integers (what shapes, axes and counts usually are),
 * sometimes any 64-bit one: one byte says which. */
static inline gint64
ep_fuzz_int (EpFuzzInput *in)
{
  guint8 kind = ep_fuzz_u8 (in);

  if (kind < 0xf0)
    return (gint64) (kind % 16) - 4;   /* -4 … 11 */
  return ep_fuzz_i64 (in);
}

/* Mostly small values and the special ones, sometimes any double */
static inline gdouble
ep_fuzz_number (EpFuzzInput *in)
{
  static const gdouble special[] = {
    0.0, -0.0, 1.0, -1.0, 0.5, 2.0, 3.0, 1e300, -1e300, 1e-310,
    G_MAXINT64, G_MININT64, 4294967296.0,
  };
  guint8 kind = ep_fuzz_u8 (in);

  if (kind < G_N_ELEMENTS (special))
    return special[kind];
  if (kind < 0xf0)
    return (gdouble) kind / 16.0 - 4.0;
  if (kind == 0xf0)
    return NAN;
  if (kind == 0xf1)
    return INFINITY;
  if (kind == 0xf2)
    return -INFINITY;
  return ep_fuzz_double (in);
}

/* Criticals and warnings abort, so that the fuzzer reports them: none
 * may be reachable from a binding. One thread: a crash's stack is the
 * caller's. */
static inline void
ep_fuzz_init_once (void)
{
  static gsize done = 0;

  if (g_once_init_enter (&done))
    {
      g_log_set_always_fatal (G_LOG_LEVEL_CRITICAL | G_LOG_LEVEL_WARNING);
      g_setenv ("EP_NUM_THREADS", "1", FALSE);
      ep_device_get_cpu ()->memory_size = EP_FUZZ_MEMORY_SIZE;
      g_once_init_leave (&done, 1);
    }
}
