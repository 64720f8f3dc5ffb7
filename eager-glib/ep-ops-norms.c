/* ep-ops-norms.c: vector norms over axes
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Composites of public ops, as in EagerPy: gradients come from the ops
 * they are made of.
 */

#include "config.h"

#include <glib/gi18n-lib.h>
#include <math.h>

#include "ep-error.h"
#include "ep-tensor-private.h"

/**
 * ep_tensor_l0:
 * @self: a tensor
 * @axes: (array length=n_axes) (nullable): the axes to reduce; %NULL for
 *   all of them. Negative axes count from the end.
 * @n_axes: the number of axes
 * @keepdims: whether to keep the reduced axes with extent 1
 * @error: return location for an error
 *
 * The number of non-zero elements over @axes (NaN counts). Floating-point
 * tensors give their own type, as in EagerPy; others give int64.
 *
 * Returns: (transfer full): the counts, or %NULL with %EP_ERROR_AXIS set
 */
EpTensor *
ep_tensor_l0 (EpTensor    *self,
              const gint  *axes,
              guint        n_axes,
              gboolean     keepdims,
              GError     **error)
{
  g_autoptr(EpTensor) zero = ep_tensor_new_weak_scalar (0.0, EP_DTYPE_INT64);
  g_autoptr(EpTensor) nonzero = NULL;
  g_autoptr(EpTensor) count = NULL;
  EpDType dtype;

  g_return_val_if_fail (EP_IS_TENSOR (self), NULL);

  dtype = self->layout.dtype;
  if ((nonzero = ep_tensor_not_equal (self, zero, error)) == NULL
      || (count = ep_tensor_sum (nonzero, axes, n_axes, keepdims, error)) == NULL)
    return NULL;

  return ep_tensor_astype (count, ep_dtype_is_floating (dtype) ? dtype : EP_DTYPE_INT64, error);
}

/**
 * ep_tensor_l1:
 * @self: a tensor
 * @axes: (array length=n_axes) (nullable): the axes to reduce; %NULL for
 *   all of them. Negative axes count from the end.
 * @n_axes: the number of axes
 * @keepdims: whether to keep the reduced axes with extent 1
 * @error: return location for an error
 *
 * The sum of absolute values over @axes (integers sum as int64).
 *
 * Returns: (transfer full): the norms, or %NULL with %EP_ERROR_AXIS set
 */
EpTensor *
ep_tensor_l1 (EpTensor    *self,
              const gint  *axes,
              guint        n_axes,
              gboolean     keepdims,
              GError     **error)
{
  g_autoptr(EpTensor) magnitude = NULL;

  g_return_val_if_fail (EP_IS_TENSOR (self), NULL);

  if ((magnitude = ep_tensor_abs (self, error)) == NULL)
    return NULL;

  return ep_tensor_sum (magnitude, axes, n_axes, keepdims, error);
}

/**
 * ep_tensor_l2:
 * @self: a tensor
 * @axes: (array length=n_axes) (nullable): the axes to reduce; %NULL for
 *   all of them. Negative axes count from the end.
 * @n_axes: the number of axes
 * @keepdims: whether to keep the reduced axes with extent 1
 * @error: return location for an error
 *
 * The Euclidean norm `sqrt (sum (self ** 2))` over @axes. Integer
 * tensors give float64.
 *
 * Returns: (transfer full): the norms, or %NULL with %EP_ERROR_AXIS set
 */
EpTensor *
ep_tensor_l2 (EpTensor    *self,
              const gint  *axes,
              guint        n_axes,
              gboolean     keepdims,
              GError     **error)
{
  g_autoptr(EpTensor) squares = NULL;
  g_autoptr(EpTensor) total = NULL;

  g_return_val_if_fail (EP_IS_TENSOR (self), NULL);

  if ((squares = ep_tensor_square (self, error)) == NULL
      || (total = ep_tensor_sum (squares, axes, n_axes, keepdims, error)) == NULL)
    return NULL;

  return ep_tensor_sqrt (total, error);
}

/* Whether reducing @self over @axes (NULL: all) covers no element; axes
 * out of range are left for the reduction to report. */
static gboolean
selects_nothing (EpTensor    *self,
                 const gint  *axes,
                 guint        n_axes)
{
  const EpLayout *layout = &self->layout;
  gint ndim = layout->ndim;

  if (axes == NULL)
    return ep_layout_get_size (layout) == 0;

  for (guint a = 0; a < n_axes; a++)
    {
      gint axis = axes[a] < 0 ? axes[a] + ndim : axes[a];

      if (axis >= 0 && axis < ndim && layout->shape[axis] == 0)
        return TRUE;
    }

  return FALSE;
}

/* max or min of |self|; the norm of nothing is 0 */
static EpTensor *
extreme_magnitude (EpTensor    *self,
                   gboolean     largest,
                   const gint  *axes,
                   guint        n_axes,
                   gboolean     keepdims,
                   GError     **error)
{
  g_autoptr(EpTensor) magnitude = NULL;
  g_autoptr(EpTensor) total = NULL;

  if ((magnitude = ep_tensor_abs (self, error)) == NULL)
    return NULL;

  if (largest && selects_nothing (self, axes, n_axes))
    {
      if ((total = ep_tensor_sum (magnitude, axes, n_axes, keepdims, error)) == NULL)
        return NULL;
      return ep_tensor_astype (total, magnitude->layout.dtype, error);
    }

  return largest ? ep_tensor_max (magnitude, axes, n_axes, keepdims, error)
                 : ep_tensor_min (magnitude, axes, n_axes, keepdims, error);
}

/**
 * ep_tensor_linf:
 * @self: a tensor
 * @axes: (array length=n_axes) (nullable): the axes to reduce; %NULL for
 *   all of them. Negative axes count from the end.
 * @n_axes: the number of axes
 * @keepdims: whether to keep the reduced axes with extent 1
 * @error: return location for an error
 *
 * The largest absolute value over @axes; 0 for an empty selection. Keeps
 * the element type.
 *
 * Returns: (transfer full): the norms, or %NULL with %EP_ERROR_AXIS set
 */
EpTensor *
ep_tensor_linf (EpTensor    *self,
                const gint  *axes,
                guint        n_axes,
                gboolean     keepdims,
                GError     **error)
{
  g_return_val_if_fail (EP_IS_TENSOR (self), NULL);

  return extreme_magnitude (self, TRUE, axes, n_axes, keepdims, error);
}

/**
 * ep_tensor_lp:
 * @self: a tensor
 * @p: the order: any number but NaN
 * @axes: (array length=n_axes) (nullable): the axes to reduce; %NULL for
 *   all of them. Negative axes count from the end.
 * @n_axes: the number of axes
 * @keepdims: whether to keep the reduced axes with extent 1
 * @error: return location for an error
 *
 * The p-norm `sum (|self| ** p) ** (1 / p)` over @axes, as NumPy's
 * `linalg.norm` of a vector: @p of 0, 1, 2 and inf are
 * [method@Tensor.l0], [method@Tensor.l1], [method@Tensor.l2] and
 * [method@Tensor.linf]; -inf gives the smallest absolute value. Other
 * orders compute in floating point (integer tensors as float64).
 *
 * Returns: (transfer full): the norms, or %NULL with
 *   %EP_ERROR_INVALID_ARGUMENT set if @p is NaN, or %EP_ERROR_AXIS
 */
EpTensor *
ep_tensor_lp (EpTensor    *self,
              gdouble      p,
              const gint  *axes,
              guint        n_axes,
              gboolean     keepdims,
              GError     **error)
{
  g_autoptr(EpTensor) magnitude = NULL;
  g_autoptr(EpTensor) floating = NULL;
  g_autoptr(EpTensor) powers = NULL;
  g_autoptr(EpTensor) total = NULL;

  g_return_val_if_fail (EP_IS_TENSOR (self), NULL);

  if (isnan (p))
    {
      g_set_error (error, EP_ERROR, EP_ERROR_INVALID_ARGUMENT,
                   _("lp: the order p must be a number, not NaN"));
      return NULL;
    }
  if (p == 0.0)
    return ep_tensor_l0 (self, axes, n_axes, keepdims, error);
  if (p == 1.0)
    return ep_tensor_l1 (self, axes, n_axes, keepdims, error);
  if (p == 2.0)
    return ep_tensor_l2 (self, axes, n_axes, keepdims, error);
  if (isinf (p))
    return extreme_magnitude (self, p > 0, axes, n_axes, keepdims, error);

  if ((magnitude = ep_tensor_abs (self, error)) == NULL
      || (floating = ep_tensor_astype (magnitude, magnitude->layout.dtype == EP_DTYPE_FLOAT32
                                                  ? EP_DTYPE_FLOAT32 : EP_DTYPE_FLOAT64, error)) == NULL
      || (powers = ep_tensor_pow_scalar (floating, p, error)) == NULL
      || (total = ep_tensor_sum (powers, axes, n_axes, keepdims, error)) == NULL)
    return NULL;

  return ep_tensor_pow_scalar (total, 1.0 / p, error);
}
