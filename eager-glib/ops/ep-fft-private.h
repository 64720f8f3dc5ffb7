/* ep-fft-private.h: what the transforms' rules and kernels share
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#include "ep-op-private.h"

G_BEGIN_DECLS

/* The longest transform: KISS FFT counts in int */
#define EP_FFT_MAX_LENGTH G_MAXINT32

/* The transform of @op (fft, ifft, rfft, irfft) of rows of @n points
 * along the middle axis of @in, read as (outer, in_len, inner) real or
 * (outer, in_len, inner, 2) complex C-order elements of @dtype, written
 * to @out as (outer, out_len, inner[, 2]): the CPU kernel, and OpenCL's
 * host round trip for lengths clFFT does not take. Each row is cropped
 * or padded with zeros to @n points first (irfft: to n/2 + 1 bins).
 * Fails only for memory (EP_ERROR_OUT_OF_MEMORY). */
gboolean ep_fft_run_host (EpOpId          op,
                          EpDType         dtype,
                          gconstpointer   in,
                          gpointer        out,
                          gint64          outer,
                          gint64          in_len,
                          gint64          inner,
                          gint64          n,
                          EpFftNorm       norm,
                          GError        **error);

/* The factor the result of @op of length @n is scaled by under @norm */
gdouble  ep_fft_scale    (EpOpId          op,
                          gint64          n,
                          EpFftNorm       norm);

/* The (outer, in_len, inner) view of a call's input along attrs.axes[0]
 * (the logical axis: the pair axis is not counted in inner) */
void     ep_fft_geometry (const EpOpCall  *call,
                          gint64          *outer,
                          gint64          *in_len,
                          gint64          *inner);

G_END_DECLS
