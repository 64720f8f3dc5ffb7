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

#include "ep-half-private.h"
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

/* A float to uint8 as NumPy does on x86-64 (GCC converts to int32 and
 * keeps the low byte): truncated toward zero to int32
 * (ep_double_to_int32()), of which the low 8 bits are kept, so -1.0
 * gives 255, 256.0 gives 0 and 300.7 gives 44; NaN, the infinities and
 * what int32 does not hold give 0. C leaves the out-of-range conversion
 * undefined; this one is not. */
static inline guint8
ep_double_to_uint8 (gdouble x)
{
  return (guint8) (guint32) ep_double_to_int32 (x);
}

/* The same for int8 and int16: the low 8 or 16 bits of the int32, so
 * 200.0 gives -56 as int8 */
static inline gint8
ep_double_to_int8 (gdouble x)
{
  return (gint8) (guint8) (guint32) ep_double_to_int32 (x);
}

static inline gint16
ep_double_to_int16 (gdouble x)
{
  return (gint16) (guint16) (guint32) ep_double_to_int32 (x);
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
    case EP_DTYPE_UINT8:   *(guint8 *) dest = ep_double_to_uint8 (value); break;
    case EP_DTYPE_INT8:    *(gint8 *) dest = ep_double_to_int8 (value); break;
    case EP_DTYPE_INT16:   *(gint16 *) dest = ep_double_to_int16 (value); break;
    case EP_DTYPE_FLOAT16: *(guint16 *) dest = ep_double_to_half (value); break;
    case EP_DTYPE_BFLOAT16: *(guint16 *) dest = ep_float_to_bfloat16 ((gfloat) value); break;
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
    case EP_DTYPE_UINT8:   return *(const guint8 *) src;
    case EP_DTYPE_INT8:    return *(const gint8 *) src;
    case EP_DTYPE_INT16:   return *(const gint16 *) src;
    case EP_DTYPE_FLOAT16: return ep_half_to_float (*(const guint16 *) src);
    case EP_DTYPE_BFLOAT16: return ep_bfloat16_to_float (*(const guint16 *) src);
    }
  return 0.0;
}

/*
 * EpNumber:
 *
 * A number as the caller gave it: an integer stays exact (a gdouble holds
 * integers up to 2^53 only), a float is a float. @f always holds the
 * value as a double, rounded for a large integer.
 */
typedef struct
{
  gboolean integral;
  gint64   i;
  gdouble  f;
} EpNumber;

static inline EpNumber
ep_number_from_double (gdouble value)
{
  return (EpNumber) { .integral = FALSE, .i = 0, .f = value };
}

static inline EpNumber
ep_number_from_int64 (gint64 value)
{
  return (EpNumber) { .integral = TRUE, .i = value, .f = (gdouble) value };
}

/* An integer if @value is one within 2^53 (where doubles hold every
 * integer), else a float: a schema's default, as written in C. */
static inline EpNumber
ep_number_from_literal (gdouble value)
{
  if (value >= -0x1p53 && value <= 0x1p53 && value == (gdouble) (gint64) value)
    return ep_number_from_int64 ((gint64) value);
  return ep_number_from_double (value);
}

/* Whether @number is an integer out of the range of the integer @dtype
 * (a float is converted as ep_scalar_store() does, never refused). */
static inline gboolean
ep_number_overflows (EpNumber number,
                     EpDType  dtype)
{
  return number.integral
         && ((dtype == EP_DTYPE_INT32 && (number.i < G_MININT32 || number.i > G_MAXINT32))
             || (dtype == EP_DTYPE_UINT8 && (number.i < 0 || number.i > G_MAXUINT8))
             || (dtype == EP_DTYPE_INT8 && (number.i < G_MININT8 || number.i > G_MAXINT8))
             || (dtype == EP_DTYPE_INT16 && (number.i < G_MININT16 || number.i > G_MAXINT16)));
}

/* Stores @number as @dtype: integers exactly where the type holds them
 * (int32 keeps the low 32 bits: check ep_number_overflows() first) and
 * rounded once into the float types. */
static inline void
ep_number_store (gpointer dest,
                 EpDType  dtype,
                 EpNumber number)
{
  if (!number.integral)
    {
      ep_scalar_store (dest, dtype, number.f);
      return;
    }

  switch (dtype)
    {
    case EP_DTYPE_FLOAT32: *(gfloat *) dest = (gfloat) number.i; break;
    case EP_DTYPE_FLOAT64: *(gdouble *) dest = (gdouble) number.i; break;
    case EP_DTYPE_INT32:   *(gint32 *) dest = (gint32) (guint32) (guint64) number.i; break;
    case EP_DTYPE_INT64:   *(gint64 *) dest = number.i; break;
    case EP_DTYPE_BOOL:    *(guint8 *) dest = number.i != 0; break;
    case EP_DTYPE_UINT8:   *(guint8 *) dest = (guint8) (guint64) number.i; break;
    case EP_DTYPE_INT8:    *(gint8 *) dest = (gint8) (guint8) (guint64) number.i; break;
    case EP_DTYPE_INT16:   *(gint16 *) dest = (gint16) (guint16) (guint64) number.i; break;
    case EP_DTYPE_FLOAT16:
    case EP_DTYPE_BFLOAT16: ep_scalar_store (dest, dtype, (gdouble) number.i); break;
    }
}

/* An element as a number: integer types exactly. */
static inline EpNumber
ep_number_load (gconstpointer src,
                EpDType       dtype)
{
  switch (dtype)
    {
    case EP_DTYPE_INT32: return ep_number_from_int64 (*(const gint32 *) src);
    case EP_DTYPE_INT64: return ep_number_from_int64 (*(const gint64 *) src);
    case EP_DTYPE_BOOL:  return ep_number_from_int64 (*(const guint8 *) src != 0);
    case EP_DTYPE_UINT8: return ep_number_from_int64 (*(const guint8 *) src);
    case EP_DTYPE_INT8:  return ep_number_from_int64 (*(const gint8 *) src);
    case EP_DTYPE_INT16: return ep_number_from_int64 (*(const gint16 *) src);
    default:             return ep_number_from_double (ep_scalar_load (src, dtype));
    }
}

G_END_DECLS
