/* ep-tensor.h
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#if !defined(EP_INSIDE) && !defined(EP_COMPILATION)
# error "Only <eager-glib/eager-glib.h> can be included directly."
#endif

#include <glib-object.h>

#include "ep-types.h"

G_BEGIN_DECLS

#define EP_TYPE_TENSOR (ep_tensor_get_type ())

EP_EXPORT
G_DECLARE_FINAL_TYPE (EpTensor, ep_tensor, EP, TENSOR, GObject)

#include "ep-device.h"

/* Construction and data: core/tensor.c, core/tensor-format.c */

EP_EXPORT
EpTensor      *ep_tensor_new_from_bytes     (GBytes         *data,
                                             EpDType         dtype,
                                             const gint64   *shape,
                                             guint           ndim,
                                             GError        **error);
EP_EXPORT
EpTensor      *ep_tensor_new_from_data      (gconstpointer   data,
                                             gsize           nbytes,
                                             EpDType         dtype,
                                             const gint64   *shape,
                                             guint           ndim,
                                             GError        **error);
EP_EXPORT
EpTensor      *ep_tensor_new_from_doubles   (const gdouble  *data,
                                             gsize           n_data,
                                             const gint64   *shape,
                                             guint           ndim,
                                             EpDType         dtype,
                                             GError        **error);
EP_EXPORT
EpTensor      *ep_tensor_new_scalar         (gdouble         value,
                                             EpDType         dtype,
                                             GError        **error);
EP_EXPORT
EpTensor      *ep_tensor_new_weak_scalar    (gdouble         value,
                                             EpDType         kind);
EP_EXPORT
EpTensor      *ep_tensor_new_weak_int       (gint64          value);

EP_EXPORT
EpDType        ep_tensor_get_dtype          (EpTensor       *self);
EP_EXPORT
guint          ep_tensor_get_ndim           (EpTensor       *self);
EP_EXPORT
const gint64  *ep_tensor_get_shape          (EpTensor       *self,
                                             guint          *ndim);
EP_EXPORT
const gint64  *ep_tensor_get_strides        (EpTensor       *self,
                                             guint          *ndim);
EP_EXPORT
gint64         ep_tensor_get_size           (EpTensor       *self);
EP_EXPORT
EpDevice      *ep_tensor_get_device         (EpTensor       *self);
EP_EXPORT
gboolean       ep_tensor_is_weak            (EpTensor       *self);
EP_EXPORT
gboolean       ep_tensor_is_contiguous      (EpTensor       *self);
EP_EXPORT
gboolean       ep_tensor_shares_storage     (EpTensor       *self,
                                             EpTensor       *other);

EP_EXPORT
void           ep_tensor_release            (EpTensor       *self);
EP_EXPORT
gboolean       ep_tensor_is_released        (EpTensor       *self);

EP_EXPORT
GBytes        *ep_tensor_to_bytes           (EpTensor       *self,
                                             GError        **error);
EP_EXPORT
gboolean       ep_tensor_read_data          (EpTensor       *self,
                                             gpointer        data,
                                             gsize           nbytes,
                                             GError        **error);
EP_EXPORT
gdouble        ep_tensor_item_double        (EpTensor       *self,
                                             GError        **error);
EP_EXPORT
gint64         ep_tensor_item_int64         (EpTensor       *self,
                                             GError        **error);
EP_EXPORT
gboolean       ep_tensor_item_boolean       (EpTensor       *self,
                                             GError        **error);
EP_EXPORT
char          *ep_tensor_to_string          (EpTensor       *self,
                                             GError        **error);
EP_EXPORT
char          *ep_tensor_to_repr            (EpTensor       *self,
                                             GError        **error);

/* Creation: ops/creation.c */

EP_EXPORT
EpTensor      *ep_tensor_zeros_like         (EpTensor       *self,
                                             GError        **error);
EP_EXPORT
EpTensor      *ep_tensor_ones_like          (EpTensor       *self,
                                             GError        **error);
EP_EXPORT
EpTensor      *ep_tensor_full_like          (EpTensor       *self,
                                             gdouble         value,
                                             GError        **error);
EP_EXPORT
EpTensor      *ep_tensor_full_like_int      (EpTensor       *self,
                                             gint64          value,
                                             GError        **error);
EP_EXPORT
EpTensor      *ep_tensor_onehot_like        (EpTensor       *self,
                                             EpTensor       *indices,
                                             gdouble         value,
                                             GError        **error);

/* Casts and copies: ops/cast.c */

EP_EXPORT
EpTensor      *ep_tensor_astype             (EpTensor       *self,
                                             EpDType         dtype,
                                             GError        **error);
EP_EXPORT
EpTensor      *ep_tensor_contiguous         (EpTensor       *self,
                                             GError        **error);
EP_EXPORT
EpTensor      *ep_tensor_to_device          (EpTensor       *self,
                                             EpDevice       *device,
                                             GError        **error);
EP_EXPORT
EpTensor      *ep_tensor_float32            (EpTensor       *self,
                                             GError        **error);
EP_EXPORT
EpTensor      *ep_tensor_float64            (EpTensor       *self,
                                             GError        **error);
EP_EXPORT
EpTensor      *ep_tensor_bool               (EpTensor       *self,
                                             GError        **error);

/* Elementwise arithmetic: ops/elementwise.c */

EP_EXPORT
EpTensor      *ep_tensor_add                (EpTensor       *self,
                                             EpTensor       *other,
                                             GError        **error);
EP_EXPORT
EpTensor      *ep_tensor_add_scalar         (EpTensor       *self,
                                             gdouble         other,
                                             GError        **error);
EP_EXPORT
EpTensor      *ep_tensor_sub                (EpTensor       *self,
                                             EpTensor       *other,
                                             GError        **error);
EP_EXPORT
EpTensor      *ep_tensor_sub_scalar         (EpTensor       *self,
                                             gdouble         other,
                                             GError        **error);
EP_EXPORT
EpTensor      *ep_tensor_mul                (EpTensor       *self,
                                             EpTensor       *other,
                                             GError        **error);
EP_EXPORT
EpTensor      *ep_tensor_mul_scalar         (EpTensor       *self,
                                             gdouble         other,
                                             GError        **error);
EP_EXPORT
EpTensor      *ep_tensor_div                (EpTensor       *self,
                                             EpTensor       *other,
                                             GError        **error);
EP_EXPORT
EpTensor      *ep_tensor_div_scalar         (EpTensor       *self,
                                             gdouble         other,
                                             GError        **error);
EP_EXPORT
EpTensor      *ep_tensor_pow                (EpTensor       *self,
                                             EpTensor       *other,
                                             GError        **error);
EP_EXPORT
EpTensor      *ep_tensor_pow_scalar         (EpTensor       *self,
                                             gdouble         other,
                                             GError        **error);
EP_EXPORT
EpTensor      *ep_tensor_floordiv           (EpTensor       *self,
                                             EpTensor       *other,
                                             GError        **error);
EP_EXPORT
EpTensor      *ep_tensor_floordiv_scalar    (EpTensor       *self,
                                             gdouble         other,
                                             GError        **error);
EP_EXPORT
EpTensor      *ep_tensor_mod                (EpTensor       *self,
                                             EpTensor       *other,
                                             GError        **error);
EP_EXPORT
EpTensor      *ep_tensor_mod_scalar         (EpTensor       *self,
                                             gdouble         other,
                                             GError        **error);
EP_EXPORT
EpTensor      *ep_tensor_minimum            (EpTensor       *self,
                                             EpTensor       *other,
                                             GError        **error);
EP_EXPORT
EpTensor      *ep_tensor_minimum_scalar     (EpTensor       *self,
                                             gdouble         other,
                                             GError        **error);
EP_EXPORT
EpTensor      *ep_tensor_maximum            (EpTensor       *self,
                                             EpTensor       *other,
                                             GError        **error);
EP_EXPORT
EpTensor      *ep_tensor_maximum_scalar     (EpTensor       *self,
                                             gdouble         other,
                                             GError        **error);
EP_EXPORT
EpTensor      *ep_tensor_where              (EpTensor       *self,
                                             EpTensor       *x,
                                             EpTensor       *y,
                                             GError        **error);
EP_EXPORT
EpTensor      *ep_tensor_clip               (EpTensor       *self,
                                             gdouble         min,
                                             gdouble         max,
                                             GError        **error);

/* Elementwise math: ops/math.c */

EP_EXPORT
EpTensor      *ep_tensor_neg                (EpTensor       *self,
                                             GError        **error);
EP_EXPORT
EpTensor      *ep_tensor_abs                (EpTensor       *self,
                                             GError        **error);
EP_EXPORT
EpTensor      *ep_tensor_sign               (EpTensor       *self,
                                             GError        **error);
EP_EXPORT
EpTensor      *ep_tensor_square             (EpTensor       *self,
                                             GError        **error);
EP_EXPORT
EpTensor      *ep_tensor_sqrt               (EpTensor       *self,
                                             GError        **error);
EP_EXPORT
EpTensor      *ep_tensor_exp                (EpTensor       *self,
                                             GError        **error);
EP_EXPORT
EpTensor      *ep_tensor_expm1              (EpTensor       *self,
                                             GError        **error);
EP_EXPORT
EpTensor      *ep_tensor_log                (EpTensor       *self,
                                             GError        **error);
EP_EXPORT
EpTensor      *ep_tensor_log1p              (EpTensor       *self,
                                             GError        **error);
EP_EXPORT
EpTensor      *ep_tensor_log2               (EpTensor       *self,
                                             GError        **error);
EP_EXPORT
EpTensor      *ep_tensor_log10              (EpTensor       *self,
                                             GError        **error);
EP_EXPORT
EpTensor      *ep_tensor_sin                (EpTensor       *self,
                                             GError        **error);
EP_EXPORT
EpTensor      *ep_tensor_cos                (EpTensor       *self,
                                             GError        **error);
EP_EXPORT
EpTensor      *ep_tensor_tan                (EpTensor       *self,
                                             GError        **error);
EP_EXPORT
EpTensor      *ep_tensor_sinh               (EpTensor       *self,
                                             GError        **error);
EP_EXPORT
EpTensor      *ep_tensor_cosh               (EpTensor       *self,
                                             GError        **error);
EP_EXPORT
EpTensor      *ep_tensor_tanh               (EpTensor       *self,
                                             GError        **error);
EP_EXPORT
EpTensor      *ep_tensor_arcsin             (EpTensor       *self,
                                             GError        **error);
EP_EXPORT
EpTensor      *ep_tensor_arccos             (EpTensor       *self,
                                             GError        **error);
EP_EXPORT
EpTensor      *ep_tensor_arctan             (EpTensor       *self,
                                             GError        **error);
EP_EXPORT
EpTensor      *ep_tensor_arcsinh            (EpTensor       *self,
                                             GError        **error);
EP_EXPORT
EpTensor      *ep_tensor_arccosh            (EpTensor       *self,
                                             GError        **error);
EP_EXPORT
EpTensor      *ep_tensor_arctanh            (EpTensor       *self,
                                             GError        **error);
EP_EXPORT
EpTensor      *ep_tensor_sigmoid            (EpTensor       *self,
                                             GError        **error);
EP_EXPORT
EpTensor      *ep_tensor_relu               (EpTensor       *self,
                                             GError        **error);
EP_EXPORT
EpTensor      *ep_tensor_softplus           (EpTensor       *self,
                                             GError        **error);
EP_EXPORT
EpTensor      *ep_tensor_round              (EpTensor       *self,
                                             GError        **error);
EP_EXPORT
EpTensor      *ep_tensor_ceil               (EpTensor       *self,
                                             GError        **error);
EP_EXPORT
EpTensor      *ep_tensor_floor              (EpTensor       *self,
                                             GError        **error);
EP_EXPORT
EpTensor      *ep_tensor_erf                (EpTensor       *self,
                                             GError        **error);
EP_EXPORT
EpTensor      *ep_tensor_erfc               (EpTensor       *self,
                                             GError        **error);
EP_EXPORT
EpTensor      *ep_tensor_gelu               (EpTensor            *self,
                                             EpGeluApproximation  approximate,
                                             GError             **error);

/* Comparisons and logic: ops/logical.c */

EP_EXPORT
EpTensor      *ep_tensor_less               (EpTensor       *self,
                                             EpTensor       *other,
                                             GError        **error);
EP_EXPORT
EpTensor      *ep_tensor_less_scalar        (EpTensor       *self,
                                             gdouble         other,
                                             GError        **error);
EP_EXPORT
EpTensor      *ep_tensor_less_equal         (EpTensor       *self,
                                             EpTensor       *other,
                                             GError        **error);
EP_EXPORT
EpTensor      *ep_tensor_less_equal_scalar  (EpTensor       *self,
                                             gdouble         other,
                                             GError        **error);
EP_EXPORT
EpTensor      *ep_tensor_equal              (EpTensor       *self,
                                             EpTensor       *other,
                                             GError        **error);
EP_EXPORT
EpTensor      *ep_tensor_equal_scalar       (EpTensor       *self,
                                             gdouble         other,
                                             GError        **error);
EP_EXPORT
EpTensor      *ep_tensor_not_equal          (EpTensor       *self,
                                             EpTensor       *other,
                                             GError        **error);
EP_EXPORT
EpTensor      *ep_tensor_not_equal_scalar   (EpTensor       *self,
                                             gdouble         other,
                                             GError        **error);
EP_EXPORT
EpTensor      *ep_tensor_greater            (EpTensor       *self,
                                             EpTensor       *other,
                                             GError        **error);
EP_EXPORT
EpTensor      *ep_tensor_greater_scalar     (EpTensor       *self,
                                             gdouble         other,
                                             GError        **error);
EP_EXPORT
EpTensor      *ep_tensor_greater_equal      (EpTensor       *self,
                                             EpTensor       *other,
                                             GError        **error);
EP_EXPORT
EpTensor      *ep_tensor_greater_equal_scalar (EpTensor     *self,
                                               gdouble       other,
                                               GError      **error);
EP_EXPORT
EpTensor      *ep_tensor_logical_and        (EpTensor       *self,
                                             EpTensor       *other,
                                             GError        **error);
EP_EXPORT
EpTensor      *ep_tensor_logical_and_scalar (EpTensor       *self,
                                             gdouble         other,
                                             GError        **error);
EP_EXPORT
EpTensor      *ep_tensor_logical_or         (EpTensor       *self,
                                             EpTensor       *other,
                                             GError        **error);
EP_EXPORT
EpTensor      *ep_tensor_logical_or_scalar  (EpTensor       *self,
                                             gdouble         other,
                                             GError        **error);
EP_EXPORT
EpTensor      *ep_tensor_logical_not        (EpTensor       *self,
                                             GError        **error);
EP_EXPORT
EpTensor      *ep_tensor_isnan              (EpTensor       *self,
                                             GError        **error);
EP_EXPORT
EpTensor      *ep_tensor_isinf              (EpTensor       *self,
                                             GError        **error);
EP_EXPORT
EpTensor      *ep_tensor_isfinite           (EpTensor       *self,
                                             GError        **error);
EP_EXPORT
EpTensor      *ep_tensor_isclose            (EpTensor       *self,
                                             EpTensor       *other,
                                             gdouble         rtol,
                                             gdouble         atol,
                                             gboolean        equal_nan,
                                             GError        **error);
EP_EXPORT
EpTensor      *ep_tensor_allclose           (EpTensor       *self,
                                             EpTensor       *other,
                                             gdouble         rtol,
                                             gdouble         atol,
                                             gboolean        equal_nan,
                                             GError        **error);

/* Reductions: ops/reduce.c */

EP_EXPORT
EpTensor      *ep_tensor_sum                (EpTensor       *self,
                                             const gint     *axes,
                                             guint           n_axes,
                                             gboolean        keepdims,
                                             GError        **error);
EP_EXPORT
EpTensor      *ep_tensor_mean               (EpTensor       *self,
                                             const gint     *axes,
                                             guint           n_axes,
                                             gboolean        keepdims,
                                             GError        **error);
EP_EXPORT
EpTensor      *ep_tensor_max                (EpTensor       *self,
                                             const gint     *axes,
                                             guint           n_axes,
                                             gboolean        keepdims,
                                             GError        **error);
EP_EXPORT
EpTensor      *ep_tensor_min                (EpTensor       *self,
                                             const gint     *axes,
                                             guint           n_axes,
                                             gboolean        keepdims,
                                             GError        **error);
EP_EXPORT
EpTensor      *ep_tensor_prod               (EpTensor       *self,
                                             const gint     *axes,
                                             guint           n_axes,
                                             gboolean        keepdims,
                                             GError        **error);
EP_EXPORT
EpTensor      *ep_tensor_all                (EpTensor       *self,
                                             const gint     *axes,
                                             guint           n_axes,
                                             gboolean        keepdims,
                                             GError        **error);
EP_EXPORT
EpTensor      *ep_tensor_any                (EpTensor       *self,
                                             const gint     *axes,
                                             guint           n_axes,
                                             gboolean        keepdims,
                                             GError        **error);
EP_EXPORT
EpTensor      *ep_tensor_argmin             (EpTensor       *self,
                                             gint            axis,
                                             gboolean        keepdims,
                                             GError        **error);
EP_EXPORT
EpTensor      *ep_tensor_argmax             (EpTensor       *self,
                                             gint            axis,
                                             gboolean        keepdims,
                                             GError        **error);
EP_EXPORT
EpTensor      *ep_tensor_l0                 (EpTensor       *self,
                                             const gint     *axes,
                                             guint           n_axes,
                                             gboolean        keepdims,
                                             GError        **error);
EP_EXPORT
EpTensor      *ep_tensor_l1                 (EpTensor       *self,
                                             const gint     *axes,
                                             guint           n_axes,
                                             gboolean        keepdims,
                                             GError        **error);
EP_EXPORT
EpTensor      *ep_tensor_l2                 (EpTensor       *self,
                                             const gint     *axes,
                                             guint           n_axes,
                                             gboolean        keepdims,
                                             GError        **error);
EP_EXPORT
EpTensor      *ep_tensor_linf               (EpTensor       *self,
                                             const gint     *axes,
                                             guint           n_axes,
                                             gboolean        keepdims,
                                             GError        **error);
EP_EXPORT
EpTensor      *ep_tensor_lp                 (EpTensor       *self,
                                             gdouble         p,
                                             const gint     *axes,
                                             guint           n_axes,
                                             gboolean        keepdims,
                                             GError        **error);
EP_EXPORT
EpTensor      *ep_tensor_var                (EpTensor       *self,
                                             const gint     *axes,
                                             guint           n_axes,
                                             gboolean        keepdims,
                                             gdouble         correction,
                                             GError        **error);
EP_EXPORT
EpTensor      *ep_tensor_std                (EpTensor       *self,
                                             const gint     *axes,
                                             guint           n_axes,
                                             gboolean        keepdims,
                                             gdouble         correction,
                                             GError        **error);

/* Scans: ops/scan.c */

EP_EXPORT
EpTensor      *ep_tensor_cumsum             (EpTensor       *self,
                                             gint            axis,
                                             GError        **error);
EP_EXPORT
EpTensor      *ep_tensor_cumprod            (EpTensor       *self,
                                             gint            axis,
                                             GError        **error);
EP_EXPORT
EpTensor      *ep_tensor_diff               (EpTensor       *self,
                                             gint64          n,
                                             gint            axis,
                                             GError        **error);

/* Sorting: ops/sort.c */

EP_EXPORT
EpTensor      *ep_tensor_sort               (EpTensor       *self,
                                             gint            axis,
                                             GError        **error);
EP_EXPORT
EpTensor      *ep_tensor_argsort            (EpTensor       *self,
                                             gint            axis,
                                             GError        **error);
EP_EXPORT
gboolean       ep_tensor_topk               (EpTensor       *self,
                                             gint64          k,
                                             gboolean        sorted,
                                             EpTensor      **values,
                                             EpTensor      **indices,
                                             GError        **error);
EP_EXPORT
EpTensor      *ep_tensor_searchsorted       (EpTensor       *self,
                                             EpTensor       *values,
                                             EpSearchSide    side,
                                             GError        **error);
EP_EXPORT
gboolean       ep_tensor_unique             (EpTensor       *self,
                                             EpTensor      **values,
                                             EpTensor      **inverse,
                                             EpTensor      **counts,
                                             GError        **error);

/* Softmax and cross-entropy: ops/softmax.c */

EP_EXPORT
EpTensor      *ep_tensor_softmax            (EpTensor       *self,
                                             gint            axis,
                                             GError        **error);
EP_EXPORT
EpTensor      *ep_tensor_log_softmax        (EpTensor       *self,
                                             gint            axis,
                                             GError        **error);
EP_EXPORT
EpTensor      *ep_tensor_logsumexp          (EpTensor       *self,
                                             const gint     *axes,
                                             guint           n_axes,
                                             gboolean        keepdims,
                                             GError        **error);
EP_EXPORT
EpTensor      *ep_tensor_crossentropy       (EpTensor       *self,
                                             EpTensor       *labels,
                                             GError        **error);
EP_EXPORT
EpTensor      *ep_tensor_softmax_crossentropy (EpTensor     *self,
                                               EpTensor     *targets,
                                               EpReduction   reduction,
                                               GError      **error);
EP_EXPORT
EpTensor      *ep_tensor_sparse_softmax_crossentropy (EpTensor     *self,
                                                      EpTensor     *labels,
                                                      EpReduction   reduction,
                                                      GError      **error);
EP_EXPORT
EpTensor      *ep_tensor_sigmoid_crossentropy (EpTensor     *self,
                                               EpTensor     *targets,
                                               EpReduction   reduction,
                                               GError      **error);
EP_EXPORT
EpTensor      *ep_tensor_mse_loss           (EpTensor       *self,
                                             EpTensor       *target,
                                             EpReduction     reduction,
                                             GError        **error);
EP_EXPORT
EpTensor      *ep_tensor_huber_loss         (EpTensor       *self,
                                             EpTensor       *target,
                                             gdouble         delta,
                                             EpReduction     reduction,
                                             GError        **error);

/* Normalisation: ops/norm.c */

EP_EXPORT
EpTensor      *ep_tensor_layer_norm         (EpTensor       *self,
                                             EpTensor       *weight,
                                             EpTensor       *bias,
                                             gint            axis,
                                             gdouble         epsilon,
                                             GError        **error);
EP_EXPORT
gboolean       ep_tensor_batch_norm         (EpTensor       *self,
                                             EpTensor       *running_mean,
                                             EpTensor       *running_var,
                                             EpTensor       *weight,
                                             EpTensor       *bias,
                                             gboolean        training,
                                             gdouble         epsilon,
                                             EpDataFormat    data_format,
                                             EpTensor      **out,
                                             EpTensor      **mean,
                                             EpTensor      **var,
                                             GError        **error);

/* Views: ops/views.c */

EP_EXPORT
EpTensor      *ep_tensor_reshape            (EpTensor       *self,
                                             const gint64   *shape,
                                             guint           ndim,
                                             GError        **error);
EP_EXPORT
EpTensor      *ep_tensor_transpose          (EpTensor       *self,
                                             const gint     *axes,
                                             guint           n_axes,
                                             GError        **error);
EP_EXPORT
EpTensor      *ep_tensor_expand_dims        (EpTensor       *self,
                                             gint            axis,
                                             GError        **error);
EP_EXPORT
EpTensor      *ep_tensor_squeeze            (EpTensor       *self,
                                             const gint     *axes,
                                             guint           n_axes,
                                             GError        **error);
EP_EXPORT
EpTensor      *ep_tensor_broadcast_to       (EpTensor       *self,
                                             const gint64   *shape,
                                             guint           ndim,
                                             GError        **error);
EP_EXPORT
EpTensor      *ep_tensor_flip               (EpTensor       *self,
                                             const gint     *axes,
                                             guint           n_axes,
                                             GError        **error);
EP_EXPORT
EpTensor      *ep_tensor_slice              (EpTensor       *self,
                                             const gint64   *starts,
                                             guint           n_starts,
                                             const gint64   *stops,
                                             guint           n_stops,
                                             const gint64   *steps,
                                             guint           n_steps,
                                             GError        **error);
EP_EXPORT
EpTensor      *ep_tensor_flatten            (EpTensor       *self,
                                             gint            start,
                                             gint            end,
                                             GError        **error);

/* Joining, splitting and repeating: ops/join.c */

EP_EXPORT
EpTensor      *ep_tensor_tile               (EpTensor       *self,
                                             const gint64   *reps,
                                             guint           n_reps,
                                             GError        **error);
EP_EXPORT
EpTensor      *ep_tensor_pad                (EpTensor       *self,
                                             const gint64   *paddings,
                                             guint           n_paddings,
                                             EpPadMode       mode,
                                             gdouble         value,
                                             GError        **error);
EP_EXPORT
GPtrArray     *ep_tensor_split              (EpTensor       *self,
                                             gint64          sections,
                                             gint            axis,
                                             GError        **error);
EP_EXPORT
GPtrArray     *ep_tensor_split_at           (EpTensor       *self,
                                             const gint64   *indices,
                                             guint           n_indices,
                                             gint            axis,
                                             GError        **error);
EP_EXPORT
EpTensor      *ep_tensor_roll               (EpTensor       *self,
                                             gint64          shift,
                                             gint            axis,
                                             GError        **error);
EP_EXPORT
EpTensor      *ep_tensor_repeat             (EpTensor       *self,
                                             gint64          repeats,
                                             gint            axis,
                                             GError        **error);
EP_EXPORT
EpTensor      *ep_tensor_roll_axes          (EpTensor       *self,
                                             const gint64   *shifts,
                                             guint           n_shifts,
                                             const gint     *axes,
                                             guint           n_axes,
                                             GError        **error);
EP_EXPORT
EpTensor      *ep_tensor_repeat_counts      (EpTensor       *self,
                                             EpTensor       *repeats,
                                             gint            axis,
                                             GError        **error);

/* Gathering and scattering: ops/index.c */

EP_EXPORT
EpTensor      *ep_tensor_take               (EpTensor       *self,
                                             EpTensor       *indices,
                                             gint            axis,
                                             GError        **error);
EP_EXPORT
EpTensor      *ep_tensor_take_along_axis    (EpTensor       *self,
                                             EpTensor       *indices,
                                             gint            axis,
                                             GError        **error);
EP_EXPORT
EpTensor      *ep_tensor_mask               (EpTensor       *self,
                                             EpTensor       *mask,
                                             GError        **error);
EP_EXPORT
EpTensor      *ep_tensor_bincount           (EpTensor       *self,
                                             EpTensor       *weights,
                                             gint64          minlength,
                                             GError        **error);
EP_EXPORT
gboolean       ep_tensor_histogram          (EpTensor       *self,
                                             gint64          bins,
                                             gdouble         range_min,
                                             gdouble         range_max,
                                             EpTensor      **hist,
                                             EpTensor      **bin_edges,
                                             GError        **error);
EP_EXPORT
EpTensor      *ep_tensor_nonzero            (EpTensor       *self,
                                             GError        **error);
EP_EXPORT
EpTensor      *ep_tensor_index_update       (EpTensor       *self,
                                             EpTensor       *indices,
                                             EpTensor       *values,
                                             gint            axis,
                                             GError        **error);
EP_EXPORT
EpTensor      *ep_tensor_scatter_add        (EpTensor       *self,
                                             EpTensor       *indices,
                                             EpTensor       *values,
                                             gint            axis,
                                             GError        **error);
EP_EXPORT
EpTensor      *ep_embedding                 (EpTensor       *indices,
                                             EpTensor       *weight,
                                             GError        **error);

/* Matrix products: ops/linalg.c */

EP_EXPORT
EpTensor      *ep_tensor_matmul             (EpTensor       *self,
                                             EpTensor       *other,
                                             GError        **error);
EP_EXPORT
EpTensor      *ep_tensor_dot                (EpTensor       *self,
                                             EpTensor       *other,
                                             GError        **error);
EP_EXPORT
EpTensor      *ep_tensor_outer              (EpTensor       *self,
                                             EpTensor       *other,
                                             GError        **error);

/* Linear algebra: ops/lapack.c */

EP_EXPORT
EpTensor      *ep_tensor_inv                (EpTensor       *self,
                                             GError        **error);
EP_EXPORT
gboolean       ep_tensor_slogdet            (EpTensor       *self,
                                             EpTensor      **sign,
                                             EpTensor      **logabsdet,
                                             GError        **error);
EP_EXPORT
EpTensor      *ep_tensor_solve              (EpTensor       *self,
                                             EpTensor       *b,
                                             GError        **error);
EP_EXPORT
EpTensor      *ep_tensor_det                (EpTensor       *self,
                                             GError        **error);
EP_EXPORT
EpTensor      *ep_tensor_cholesky           (EpTensor       *self,
                                             GError        **error);
EP_EXPORT
gboolean       ep_tensor_qr                 (EpTensor       *self,
                                             EpTensor      **q,
                                             EpTensor      **r,
                                             GError        **error);
EP_EXPORT
gboolean       ep_tensor_svd                (EpTensor       *self,
                                             gboolean        full_matrices,
                                             EpTensor      **u,
                                             EpTensor      **s,
                                             EpTensor      **vh,
                                             GError        **error);
EP_EXPORT
gboolean       ep_tensor_eigh               (EpTensor       *self,
                                             gboolean        upper,
                                             EpTensor      **eigenvalues,
                                             EpTensor      **eigenvectors,
                                             GError        **error);
EP_EXPORT
EpTensor      *ep_tensor_lstsq              (EpTensor       *self,
                                             EpTensor       *b,
                                             GError        **error);
EP_EXPORT
EpTensor      *ep_tensor_matrix_power       (EpTensor       *self,
                                             gint64          n,
                                             GError        **error);
EP_EXPORT
EpTensor      *ep_tensor_matrix_norm        (EpTensor       *self,
                                             EpMatrixNorm    ord,
                                             const gint     *axes,
                                             guint           n_axes,
                                             gboolean        keepdims,
                                             GError        **error);

/* Convolution: ops/conv.c */

EP_EXPORT
EpTensor      *ep_tensor_conv2d             (EpTensor       *self,
                                             EpTensor       *weight,
                                             const gint64   *strides,
                                             guint           n_strides,
                                             const gint64   *padding,
                                             guint           n_padding,
                                             const gint64   *dilation,
                                             guint           n_dilation,
                                             gint64          groups,
                                             EpDataFormat    data_format,
                                             GError        **error);
EP_EXPORT
EpTensor      *ep_conv2d_input_grad         (EpTensor       *output_grad,
                                             EpTensor       *weight,
                                             const gint64   *input_shape,
                                             guint           n_input_shape,
                                             const gint64   *strides,
                                             guint           n_strides,
                                             const gint64   *padding,
                                             guint           n_padding,
                                             const gint64   *dilation,
                                             guint           n_dilation,
                                             gint64          groups,
                                             EpDataFormat    data_format,
                                             GError        **error);
EP_EXPORT
EpTensor      *ep_conv2d_weight_grad        (EpTensor       *input,
                                             EpTensor       *output_grad,
                                             const gint64   *weight_shape,
                                             guint           n_weight_shape,
                                             const gint64   *strides,
                                             guint           n_strides,
                                             const gint64   *padding,
                                             guint           n_padding,
                                             const gint64   *dilation,
                                             guint           n_dilation,
                                             gint64          groups,
                                             EpDataFormat    data_format,
                                             GError        **error);

/* Automatic differentiation: ops/autodiff.c */

EP_EXPORT
EpTensor      *ep_tensor_stop_gradient      (EpTensor       *self,
                                             GError        **error);

G_END_DECLS
