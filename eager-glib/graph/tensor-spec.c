/* graph/tensor-spec.c: the tensors a staged function accepts
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <glib/gi18n-lib.h>
#include <string.h>

#include "ep-error.h"
#include "ep-tensor-private.h"
#include "ep-tensor-spec.h"

/**
 * EpTensorSpec:
 *
 * What a tensor argument of an [class@Function] may be: its element type
 * and shape, where an extent of -1 is unknown (any extent, as `None` in a
 * TensorFlow `TensorSpec`). A function given specs traces one graph for
 * every tensor that matches them, say every batch size.
 */
struct _EpTensorSpec
{
  gatomicrefcount  ref_count;
  EpDType          dtype;
  guint            ndim;
  gint64           shape[EP_MAX_DIMS];
};

G_DEFINE_BOXED_TYPE (EpTensorSpec, ep_tensor_spec, ep_tensor_spec_ref, ep_tensor_spec_unref)

/**
 * ep_tensor_spec_new:
 * @shape: (array length=ndim) (nullable): the extents; -1 for an unknown one
 * @ndim: the number of dimensions
 * @dtype: the element type
 * @error: return location for an error
 *
 * Creates a spec of tensors of @dtype and @shape.
 *
 * Returns: (transfer full): the spec, or %NULL with %EP_ERROR_SHAPE set
 *   for more than %EP_MAX_DIMS dimensions or an extent below -1, or
 *   %EP_ERROR_DTYPE for a value that is no dtype
 */
EpTensorSpec *
ep_tensor_spec_new (const gint64  *shape,
                    guint          ndim,
                    EpDType        dtype,
                    GError       **error)
{
  EpTensorSpec *self;

  g_return_val_if_fail (shape != NULL || ndim == 0, NULL);

  if (!ep_dtype_is_valid (dtype))
    {
      g_set_error (error, EP_ERROR, EP_ERROR_DTYPE,
                   _("%s: %d is not a dtype"), "TensorSpec", (gint) dtype);
      return NULL;
    }
  if (ndim > EP_MAX_DIMS)
    {
      g_set_error (error, EP_ERROR, EP_ERROR_SHAPE,
                   _("%s: %u dimensions requested, at most %d are supported"),
                   "TensorSpec", ndim, EP_MAX_DIMS);
      return NULL;
    }
  for (guint d = 0; d < ndim; d++)
    if (shape[d] < -1)
      {
        g_autofree char *s = ep_shape_to_string (shape, ndim);

        g_set_error (error, EP_ERROR, EP_ERROR_SHAPE,
                     _("%s: invalid shape %s (an extent is -1, unknown, or not negative)"),
                     "TensorSpec", s);
        return NULL;
      }

  self = g_new0 (EpTensorSpec, 1);
  g_atomic_ref_count_init (&self->ref_count);
  self->dtype = dtype;
  self->ndim = ndim;
  if (ndim > 0)
    memcpy (self->shape, shape, ndim * sizeof (gint64));

  return self;
}

/**
 * ep_tensor_spec_ref:
 * @self: a spec
 *
 * Takes a reference.
 *
 * Returns: (transfer full): @self
 */
EpTensorSpec *
ep_tensor_spec_ref (EpTensorSpec *self)
{
  g_return_val_if_fail (self != NULL, NULL);

  g_atomic_ref_count_inc (&self->ref_count);
  return self;
}

/**
 * ep_tensor_spec_unref:
 * @self: (transfer full): a spec
 *
 * Drops a reference.
 */
void
ep_tensor_spec_unref (EpTensorSpec *self)
{
  g_return_if_fail (self != NULL);

  if (g_atomic_ref_count_dec (&self->ref_count))
    g_free (self);
}

/**
 * ep_tensor_spec_get_shape:
 * @self: a spec
 * @ndim: (out) (optional): return location for the number of dimensions
 *
 * Gives the extents, -1 where unknown.
 *
 * Returns: (array length=ndim) (transfer none): the extents
 */
const gint64 *
ep_tensor_spec_get_shape (EpTensorSpec *self,
                          guint        *ndim)
{
  g_return_val_if_fail (self != NULL, NULL);

  if (ndim != NULL)
    *ndim = self->ndim;
  return self->shape;
}

/**
 * ep_tensor_spec_get_dtype:
 * @self: a spec
 *
 * Gives the element type.
 *
 * Returns: the element type
 */
EpDType
ep_tensor_spec_get_dtype (EpTensorSpec *self)
{
  g_return_val_if_fail (self != NULL, EP_DTYPE_FLOAT32);

  return self->dtype;
}

/**
 * ep_tensor_spec_matches:
 * @self: a spec
 * @tensor: a tensor
 *
 * Whether @tensor has the spec's element type, number of dimensions and
 * every known extent.
 *
 * Returns: %TRUE if @tensor fits
 */
gboolean
ep_tensor_spec_matches (EpTensorSpec *self,
                        EpTensor     *tensor)
{
  g_return_val_if_fail (self != NULL, FALSE);
  g_return_val_if_fail (EP_IS_TENSOR (tensor), FALSE);

  if (tensor->layout.dtype != self->dtype || tensor->layout.ndim != self->ndim)
    return FALSE;
  for (guint d = 0; d < self->ndim; d++)
    if (self->shape[d] >= 0 && self->shape[d] != tensor->layout.shape[d])
      return FALSE;

  return TRUE;
}
