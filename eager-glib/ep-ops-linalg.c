/* ep-ops-linalg.c: matrix products
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <glib/gi18n-lib.h>
#include <inttypes.h>

#include "ep-dispatch-private.h"
#include "ep-error.h"
#include "ep-grad-private.h"
#include "ep-linalg-private.h"

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
  .id = EP_OP_MATMUL, .name = "matmul", .n_inputs = 2,
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
