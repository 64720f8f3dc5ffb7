/* ops/linalg.c: matmul, dot, outer
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <glib/gi18n-lib.h>
#include <inttypes.h>
#include <string.h>

#include "ep-dispatch-private.h"
#include "ep-error.h"
#include "ep-error-private.h"
#include "ep-grad-private.h"
#include "ep-linalg-private.h"
#include "ep-shape-private.h"

/* A 1-D operand is a row (left) or a column (right) vector, as in NumPy;
 * the matching dimension is dropped from the result. */
void
ep_matmul_operand_as_matrix (const EpLayout *in,
                             gboolean        left,
                             EpLayout       *matrix)
{
  *matrix = *in;
  if (in->ndim != 1)
    return;

  matrix->ndim = 2;
  if (left)
    {
      matrix->shape[0] = 1;
      matrix->strides[0] = 0;
      matrix->shape[1] = in->shape[0];
      matrix->strides[1] = in->strides[0];
    }
  else
    {
      matrix->shape[1] = 1;
      matrix->strides[1] = 0;
    }
}

gboolean
ep_blas_layout (gint64    rows,
                gint64    cols,
                gint64    row_stride,
                gint64    col_stride,
                gboolean *transposed,
                gint64   *leading)
{
  if (col_stride == 1 || cols == 1)
    {
      gint64 ld = rows == 1 ? MAX (cols, 1) : row_stride;

      if (ld >= MAX (cols, 1))
        {
          *transposed = FALSE;
          *leading = ld;
          return TRUE;
        }
    }

  if (row_stride == 1 || rows == 1)
    {
      gint64 ld = cols == 1 ? MAX (rows, 1) : col_stride;

      if (ld >= MAX (rows, 1))
        {
          *transposed = TRUE;
          *leading = ld;
          return TRUE;
        }
    }

  return FALSE;
}

static gboolean
blas_ready (const EpLayout *matrix)
{
  guint r = matrix->ndim - 2, c = matrix->ndim - 1;
  gboolean transposed;
  gint64 leading;

  return ep_blas_layout (matrix->shape[r], matrix->shape[c],
                         matrix->strides[r], matrix->strides[c],
                         &transposed, &leading);
}

static gboolean
matmul_infer (EpOpCall  *call,
              GError   **error)
{
  const EpLayout *a = &call->inputs[0]->layout;
  const EpLayout *b = &call->inputs[1]->layout;
  EpLayout am, bm;
  gint64 shape[EP_MAX_DIMS + 2];
  guint batch_ndim, ndim = 0;
  EpDType dtype;

  if (a->ndim == 0 || b->ndim == 0)
    {
      g_set_error (error, EP_ERROR, EP_ERROR_SHAPE,
                   _("matmul: operands must have at least one dimension (use mul for scalars)"));
      return FALSE;
    }

  ep_matmul_operand_as_matrix (a, TRUE, &am);
  ep_matmul_operand_as_matrix (b, FALSE, &bm);

  if (am.shape[am.ndim - 1] != bm.shape[bm.ndim - 2])
    {
      g_set_error (error, EP_ERROR, EP_ERROR_SHAPE,
                   _("matmul: inner dimensions differ (%" PRId64 " vs %" PRId64 ")"),
                   am.shape[am.ndim - 1], bm.shape[bm.ndim - 2]);
      return FALSE;
    }

  /* broadcast the batch dimensions */
  batch_ndim = MAX (am.ndim, bm.ndim) - 2;
  for (guint d = 0; d < batch_ndim; d++)
    {
      gint ad = (gint) d - (gint) (batch_ndim - (am.ndim - 2));
      gint bd = (gint) d - (gint) (batch_ndim - (bm.ndim - 2));
      gint64 ae = ad >= 0 ? am.shape[ad] : 1;
      gint64 be = bd >= 0 ? bm.shape[bd] : 1;

      if (ae != be && ae != 1 && be != 1)
        {
          g_autofree char *as = ep_shape_to_string (a->shape, a->ndim);
          g_autofree char *bs = ep_shape_to_string (b->shape, b->ndim);

          g_set_error (error, EP_ERROR, EP_ERROR_SHAPE,
                       _("matmul: batch dimensions of %s and %s cannot be broadcast together"),
                       as, bs);
          return FALSE;
        }
      shape[ndim++] = ae == 1 ? be : ae;
    }
  if (a->ndim > 1)
    shape[ndim++] = am.shape[am.ndim - 2];
  if (b->ndim > 1)
    shape[ndim++] = bm.shape[bm.ndim - 1];

  dtype = ep_op_result_dtype (call->inputs, 2);
  ep_op_cast_all_inputs (call, dtype);
  ep_op_set_output (call, dtype, shape, ndim);

  if (ep_dtype_is_floating (dtype))
    {
      if (!blas_ready (&am))
        call->contiguous_inputs |= 1;
      if (!blas_ready (&bm))
        call->contiguous_inputs |= 2;
    }

  return TRUE;
}

/* The gradient of one operand: with every operand as a (batch of)
 * matrices, dA = G Bᵀ and dB = Aᵀ G, summed over the batch dimensions the
 * operand was broadcast along. A vector operand was a row (left) or a
 * column (right) whose dimension the output dropped: it comes back. */
static EpTensor *
expand_if (EpTensor  *t,
           gboolean   expand,
           gint       axis,
           GError   **error)
{
  if (t == NULL)
    return NULL;
  if (!expand)
    return g_object_ref (t);

  return ep_tensor_expand_dims (t, axis, error);
}

static EpTensor *
matmul_operand_grad (const EpOpCall  *call,
                     EpTensor        *g,
                     guint            i,
                     GError         **error)
{
  EpTensor *a = call->inputs[0], *b = call->inputs[1];
  gboolean a_vector = a->layout.ndim == 1, b_vector = b->layout.ndim == 1;
  g_autoptr(EpTensor) a2 = NULL, b2 = NULL, g_row = NULL, g2 = NULL, t = NULL;
  g_autoptr(EpTensor) product = NULL, summed = NULL;

  /* the output lost the row dimension of a vector a (axis -2, or 0 when
   * the output is a scalar) and the column dimension of a vector b */
  g_row = expand_if (g, a_vector, b_vector ? 0 : -2, error);
  g2 = expand_if (g_row, b_vector, -1, error);
  if (g2 == NULL)
    return NULL;

  /* the operands as (batches of) matrices */
  a2 = expand_if (a, a_vector, 0, error);
  b2 = expand_if (b, b_vector, -1, error);
  if (a2 == NULL || b2 == NULL)
    return NULL;

  t = ep_grad_swap_last (i == 0 ? b2 : a2, error);
  if (t != NULL)
    product = i == 0 ? ep_tensor_matmul (g2, t, error) : ep_tensor_matmul (t, g2, error);

  summed = product ? ep_grad_sum_to_shape (product, i == 0 ? a2 : b2, error) : NULL;
  if (summed == NULL || call->inputs[i]->layout.ndim != 1)
    return g_steal_pointer (&summed);

  return ep_tensor_reshape (summed, call->inputs[i]->layout.shape, 1, error);
}

static gboolean
matmul_gradient (const EpOpCall   *call,
                 EpTensor *const  *output_grads,
                 EpTensor        **input_grads,
                 GError          **error)
{
  for (guint i = 0; i < 2; i++)
    if (ep_grad_needed (call, i))
      {
        input_grads[i] = matmul_operand_grad (call, output_grads[0], i, error);
        if (input_grads[i] == NULL)
          return FALSE;
      }

  return TRUE;
}

const EpOpDef ep_op_matmul = {
  .id = EP_OP_MATMUL, .name = "matmul",
  EP_INPUTS (EP_INPUT ("self"), EP_INPUT ("other")),
  .infer = matmul_infer,
  .gradient = matmul_gradient,
};

/**
 * ep_tensor_matmul:
 * @self: the left operand, at least 1-D
 * @other: the right operand, at least 1-D
 * @error: return location for an error
 *
 * Matrix product with NumPy's `matmul` semantics: the last two dimensions
 * are matrices, leading dimensions broadcast as a batch, and a 1-D operand
 * is a vector whose dimension is dropped from the result. Floating-point
 * products run on OpenBLAS on the CPU.
 *
 * Returns: (transfer full): `self @ other`, or %NULL with %EP_ERROR_SHAPE
 *   set if the inner dimensions differ or the batches do not broadcast
 */
EP_DEFINE_BINARY_METHOD (matmul)


static gint64
product (const gint64 *shape,
         guint         n)
{
  gint64 p = 1;

  for (guint d = 0; d < n; d++)
    p = shape[d] != 0 && p > G_MAXINT64 / shape[d] ? G_MAXINT64 : p * shape[d];

  return p;
}

const EpOpDef ep_func_dot = {
  .id = EP_N_OPS, .name = "dot",
  EP_INPUTS (EP_INPUT ("self"), EP_INPUT ("other")),
};

const EpOpDef ep_func_outer = {
  .id = EP_N_OPS, .name = "outer",
  EP_INPUTS (EP_INPUT ("self"), EP_INPUT ("other")),
};

/**
 * ep_tensor_dot:
 * @self: a tensor
 * @other: a tensor
 * @error: return location for an error
 *
 * NumPy's `dot`: a product of scalars, the inner product of vectors, the
 * matrix product of matrices, and in general a sum over the last axis of
 * @self and the second-to-last axis of @other (the only one if @other is
 * 1-D). The result has shape `self.shape[:-1] + other.shape[:-2] +
 * other.shape[-1:]`. Built on [method@Tensor.matmul].
 *
 * Returns: (transfer full): the product, or %NULL with %EP_ERROR_SHAPE
 *   set if the summed axes differ in length or the result would have too
 *   many dimensions
 */
EpTensor *
ep_tensor_dot (EpTensor  *self,
               EpTensor  *other,
               GError   **error)
{
  const EpLayout *a, *b;
  gint64 inner_a, inner_b, shape[2 * EP_MAX_DIMS];
  gint axes[EP_MAX_DIMS];
  guint ndim = 0;

  g_return_val_if_fail (EP_IS_TENSOR (self), NULL);
  g_return_val_if_fail (EP_IS_TENSOR (other), NULL);

  a = &self->layout;
  b = &other->layout;
  if (a->ndim == 0 || b->ndim == 0)
    return ep_error_named_result (ep_tensor_mul (self, other, error), error, "dot");

  inner_a = a->shape[a->ndim - 1];
  inner_b = b->shape[b->ndim == 1 ? 0 : b->ndim - 2];
  if (inner_a != inner_b)
    {
      g_autofree char *as = ep_shape_to_string (a->shape, a->ndim);
      g_autofree char *bs = ep_shape_to_string (b->shape, b->ndim);

      g_set_error (error, EP_ERROR, EP_ERROR_SHAPE,
                   _("dot: shapes %s and %s are not aligned (%" PRId64 " vs %" PRId64 ")"),
                   as, bs, inner_a, inner_b);
      return NULL;
    }

  if (a->ndim == 1 || b->ndim <= 2)
    return ep_error_named_result (ep_tensor_matmul (self, other, error), error, "dot");

  /* (P, n) @ (n, Q), with Q the other's batch and last axes */
  for (guint d = 0; d + 1 < a->ndim; d++)
    shape[ndim++] = a->shape[d];
  for (guint d = 0; d + 2 < b->ndim; d++)
    shape[ndim++] = b->shape[d];
  shape[ndim++] = b->shape[b->ndim - 1];
  if (ndim > EP_MAX_DIMS)
    {
      g_set_error (error, EP_ERROR, EP_ERROR_SHAPE,
                   _("dot: the result would have %u dimensions, at most %d are supported"),
                   ndim, EP_MAX_DIMS);
      return NULL;
    }

  {
    gint64 left_shape[2] = { product (a->shape, a->ndim - 1), inner_a };
    gint64 others[EP_MAX_DIMS];
    gint64 right_shape[2];
    g_autoptr(EpTensor) left = NULL;
    g_autoptr(EpTensor) moved = NULL;
    g_autoptr(EpTensor) right = NULL;
    g_autoptr(EpTensor) result = NULL;

    for (guint d = 0; d + 2 < b->ndim; d++)
      others[d] = b->shape[d];
    others[b->ndim - 2] = b->shape[b->ndim - 1];
    right_shape[0] = inner_a;
    right_shape[1] = product (others, b->ndim - 1);

    axes[0] = b->ndim - 2;
    for (guint d = 0; d + 2 < b->ndim; d++)
      axes[d + 1] = d;
    axes[b->ndim - 1] = b->ndim - 1;

    left = ep_tensor_reshape (self, left_shape, 2, error);
    moved = left != NULL ? ep_tensor_transpose (other, axes, b->ndim, error) : NULL;
    right = moved != NULL ? ep_tensor_reshape (moved, right_shape, 2, error) : NULL;
    result = right != NULL ? ep_tensor_matmul (left, right, error) : NULL;
    if (result == NULL)
      return ep_error_named_result (NULL, error, "dot");

    return ep_error_named_result (ep_tensor_reshape (result, shape, ndim, error), error, "dot");
  }
}

/**
 * ep_tensor_outer:
 * @self: a tensor, flattened
 * @other: a tensor, flattened
 * @error: return location for an error
 *
 * The outer product of two vectors, as NumPy's `outer`: `out[i, j] =
 * self[i] * other[j]` over the flattened inputs. Built on
 * [method@Tensor.mul].
 *
 * Returns: (transfer full): the product, of shape `(self.size,
 *   other.size)`
 */
EpTensor *
ep_tensor_outer (EpTensor  *self,
                 EpTensor  *other,
                 GError   **error)
{
  gint64 column_shape[2], row_shape[2];
  g_autoptr(EpTensor) column = NULL;
  g_autoptr(EpTensor) row = NULL;

  g_return_val_if_fail (EP_IS_TENSOR (self), NULL);
  g_return_val_if_fail (EP_IS_TENSOR (other), NULL);

  column_shape[0] = ep_layout_get_size (&self->layout);
  column_shape[1] = 1;
  row_shape[0] = 1;
  row_shape[1] = ep_layout_get_size (&other->layout);

  column = ep_tensor_reshape (self, column_shape, 2, error);
  row = column != NULL ? ep_tensor_reshape (other, row_shape, 2, error) : NULL;
  if (row == NULL)
    return ep_error_named_result (NULL, error, "outer");

  return ep_error_named_result (ep_tensor_mul (column, row, error), error, "outer");
}
