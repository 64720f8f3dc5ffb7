/* ep-scalar-private.h
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Reading and writing single elements as doubles, with the conversions
 * NumPy does on x86-64: a float that does not fit an integer type (NaN,
 * infinities, out of range) becomes that type's minimum, never undefined
 * behaviour.
 */

#pragma once

#include <glib.h>

#include "ep-types.h"

G_BEGIN_DECLS

static inline gint32
ep_double_to_int32 (gdouble x)
{
  return (x >= -2147483648.0 && x < 2147483648.0) ? (gint32) x : G_MININT32;
}

static inline gint64
ep_double_to_int64 (gdouble x)
{
  return (x >= -9223372036854775808.0 && x < 9223372036854775808.0) ? (gint64) x : G_MININT64;
}

static inline void
ep_scalar_store (gpointer dest,
                 EpDType  dtype,
                 gdouble  value)
{
  switch (dtype)
    {
    case EP_DTYPE_FLOAT32: *(gfloat *) dest = (gfloat) value; break;
    case EP_DTYPE_FLOAT64: *(gdouble *) dest = value; break;
    case EP_DTYPE_INT32:   *(gint32 *) dest = ep_double_to_int32 (value); break;
    case EP_DTYPE_INT64:   *(gint64 *) dest = ep_double_to_int64 (value); break;
    case EP_DTYPE_BOOL:    *(guint8 *) dest = value != 0.0; break;
    }
}

static inline gdouble
ep_scalar_load (gconstpointer src,
                EpDType       dtype)
{
  switch (dtype)
    {
    case EP_DTYPE_FLOAT32: return *(const gfloat *) src;
    case EP_DTYPE_FLOAT64: return *(const gdouble *) src;
    case EP_DTYPE_INT32:   return *(const gint32 *) src;
    case EP_DTYPE_INT64:   return (gdouble) *(const gint64 *) src;
    case EP_DTYPE_BOOL:    return *(const guint8 *) src != 0;
    }
  return 0.0;
}

G_END_DECLS
