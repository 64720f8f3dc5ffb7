/* ep-fft.h: discrete Fourier transforms (ops/fft.c)
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Complex tensors are real tensors with a last axis of 2 (real,
 * imaginary), PyTorch's torch.view_as_real layout.
 */

#pragma once

#if !defined(EP_INSIDE) && !defined(EP_COMPILATION)
# error "Only <eager-glib/eager-glib.h> can be included directly."
#endif

#include <glib.h>

#include "ep-tensor.h"
#include "ep-types.h"
#include "ep-version.h"

G_BEGIN_DECLS

EP_EXPORT
EpTensor *ep_tensor_fft     (EpTensor      *self,
                             gint64         n,
                             gint           axis,
                             EpFftNorm      norm,
                             GError       **error);
EP_EXPORT
EpTensor *ep_tensor_ifft    (EpTensor      *self,
                             gint64         n,
                             gint           axis,
                             EpFftNorm      norm,
                             GError       **error);
EP_EXPORT
EpTensor *ep_tensor_rfft    (EpTensor      *self,
                             gint64         n,
                             gint           axis,
                             EpFftNorm      norm,
                             GError       **error);
EP_EXPORT
EpTensor *ep_tensor_irfft   (EpTensor      *self,
                             gint64         n,
                             gint           axis,
                             EpFftNorm      norm,
                             GError       **error);
EP_EXPORT
EpTensor *ep_tensor_fft2    (EpTensor      *self,
                             const gint64  *s,
                             guint          n_s,
                             const gint64  *axes,
                             guint          n_axes,
                             EpFftNorm      norm,
                             GError       **error);
EP_EXPORT
EpTensor *ep_tensor_ifft2   (EpTensor      *self,
                             const gint64  *s,
                             guint          n_s,
                             const gint64  *axes,
                             guint          n_axes,
                             EpFftNorm      norm,
                             GError       **error);
EP_EXPORT
EpTensor *ep_tensor_rfft2   (EpTensor      *self,
                             const gint64  *s,
                             guint          n_s,
                             const gint64  *axes,
                             guint          n_axes,
                             EpFftNorm      norm,
                             GError       **error);
EP_EXPORT
EpTensor *ep_tensor_irfft2  (EpTensor      *self,
                             const gint64  *s,
                             guint          n_s,
                             const gint64  *axes,
                             guint          n_axes,
                             EpFftNorm      norm,
                             GError       **error);

G_END_DECLS
