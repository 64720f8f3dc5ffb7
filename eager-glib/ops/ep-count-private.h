/* ep-count-private.h: bincount's counting loop, shared by the CPU kernel
 * and OpenCL's host round trip (ops/index.c has the op)
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#include <string.h>

#include "ep-types.h"

G_BEGIN_DECLS

/* @out (@length elements of @dtype: float32, float64 or int64) gets the
 * sum of @weights (@n of @dtype) at each of the @n indices (int64, each
 * in [0, @length), checked by the rule), in the order of the input, so
 * that float sums are the same on every device. */
static inline void
ep_bincount_fill (const gint64  *indices,
                  gconstpointer  weights,
                  gint64         n,
                  EpDType        dtype,
                  gpointer       out,
                  gint64         length)
{
  memset (out, 0, (gsize) length * ep_dtype_get_itemsize (dtype));
  if (dtype == EP_DTYPE_FLOAT32)
    for (gint64 i = 0; i < n; i++)
      ((gfloat *) out)[indices[i]] += ((const gfloat *) weights)[i];
  else if (dtype == EP_DTYPE_FLOAT64)
    for (gint64 i = 0; i < n; i++)
      ((gdouble *) out)[indices[i]] += ((const gdouble *) weights)[i];
  else
    for (gint64 i = 0; i < n; i++)   /* wrapping, as integer sums do */
      ((gint64 *) out)[indices[i]] = (gint64) ((guint64) ((gint64 *) out)[indices[i]]
                                               + (guint64) ((const gint64 *) weights)[i]);
}

G_END_DECLS
