/* ep-half-private.h: float16 and bfloat16 elements, one at a time
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Conversions by bits, rounding to nearest even as IEEE 754, NumPy and
 * PyTorch do: float16 keeps subnormals, overflows to infinity past
 * 65504 (from 65520 up), keeps -0 and NaN (quiet); bfloat16 is the upper
 * half of a float32, rounded, with NaN kept quiet. cpu/half.c converts
 * whole runs (with F16C where the processor has it).
 */

#pragma once

#include <glib.h>
#include <math.h>
#include <string.h>

G_BEGIN_DECLS

static inline guint32
ep_float_bits (gfloat x)
{
  guint32 u;

  memcpy (&u, &x, sizeof u);
  return u;
}

static inline gfloat
ep_float_from_bits (guint32 u)
{
  gfloat x;

  memcpy (&x, &u, sizeof x);
  return x;
}

static inline gfloat
ep_half_to_float (guint16 h)
{
  guint32 sign = (guint32) (h & 0x8000) << 16;
  guint32 exponent = (h >> 10) & 0x1f;
  guint32 mantissa = h & 0x3ff;

  if (exponent == 0x1f)             /* infinities, and NaN made quiet (as F16C) */
    return ep_float_from_bits (sign | 0x7f800000 | (mantissa != 0 ? 0x400000 : 0) | (mantissa << 13));
  if (exponent == 0)
    {
      /* zero or subnormal: mantissa * 2^-24, exact in float32 */
      gfloat magnitude = (gfloat) mantissa * 0x1p-24f;

      return sign != 0 ? -magnitude : magnitude;
    }
  return ep_float_from_bits (sign | ((exponent + 112) << 23) | (mantissa << 13));
}

/* Rounds @x to float16, to nearest even */
static inline guint16
ep_float_to_half (gfloat x)
{
  guint32 u = ep_float_bits (x);
  guint16 sign = (guint16) ((u >> 16) & 0x8000);
  guint32 a = u & 0x7fffffff;

  if (a > 0x7f800000)               /* NaN: quiet, the payload's top bits */
    return sign | 0x7e00 | (guint16) ((a >> 13) & 0x3ff);
  if (a >= 0x477ff000)              /* 65520 and up round to infinity */
    return sign | 0x7c00;
  if (a < 0x38800000)               /* below 2^-14: subnormal or zero */
    {
      /* adding 0.5 makes the float32 unit the float16 subnormal unit
       * (2^-24), so the hardware's rounding to nearest even does it */
      gfloat y = ep_float_from_bits (a) + 0.5f;

      return sign | (guint16) (ep_float_bits (y) - 0x3f000000);
    }
  /* rebias the exponent and round off 13 bits, ties to even */
  a += ((guint32) (15 - 127) << 23) + 0xfff + ((a >> 13) & 1);
  return sign | (guint16) (a >> 13);
}

/* Rounds @x to float16 directly (not through float32, which could round
 * twice), as NumPy does */
static inline guint16
ep_double_to_half (gdouble x)
{
  gfloat f = (gfloat) x;
  guint32 u;

  if (isnan (x) || (gdouble) f == x)
    return ep_float_to_half (f);
  /* f is within one float32 unit of x: make its lowest bit sticky (round
   * to odd), which keeps the float16 rounding right, since float16 has
   * 13 fewer bits */
  u = ep_float_bits (f);
  if (fabs ((gdouble) f) > fabs (x))
    u -= 1;
  u |= 1;
  return ep_float_to_half (ep_float_from_bits (u));
}

static inline gfloat
ep_bfloat16_to_float (guint16 b)
{
  return ep_float_from_bits ((guint32) b << 16);
}

/* Rounds @x to bfloat16, to nearest even; NaN stays NaN, made quiet */
static inline guint16
ep_float_to_bfloat16 (gfloat x)
{
  guint32 u = ep_float_bits (x);

  if ((u & 0x7fffffff) > 0x7f800000)
    return (guint16) ((u >> 16) | 0x40);
  u += 0x7fff + ((u >> 16) & 1);
  return (guint16) (u >> 16);
}

G_END_DECLS
