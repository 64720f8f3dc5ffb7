/* ops/lapack.c: inv, slogdet, solve (LAPACK on the CPU, own kernels on OpenCL)
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <glib/gi18n-lib.h>
#include <inttypes.h>
#include <string.h>

#include "ep-dispatch-private.h"
#include "ep-error.h"
#include "ep-grad-private.h"
#include "ep-shape-private.h"

/* LAPACK counts in 32-bit integers */
#define MAX_ORDER G_MAXINT32

/* Integer and bool inputs compute in float64, as NumPy's linalg does. */
static EpDType
lapack_dtype (EpDType dtype)
{
  return ep_dtype_is_floating (dtype) ? dtype : EP_DTYPE_FLOAT64;
}

static gboolean
check_square (const EpOpCall  *call,
              const EpLayout  *a,
              GError         **error)
{
  g_autofree char *s = NULL;

  if (a->ndim >= 2 && a->shape[a->ndim - 1] == a->shape[a->ndim - 2]
      && a->shape[a->ndim - 1] <= MAX_ORDER)
    return TRUE;

  s = ep_shape_to_string (a->shape, a->ndim);
  if (a->ndim < 2)
    g_set_error (error, EP_ERROR, EP_ERROR_SHAPE,
                 _("%s: needs a (batch of) square matrices, got shape %s"),
                 call->op->name, s);
  else if (a->shape[a->ndim - 1] != a->shape[a->ndim - 2])
    g_set_error (error, EP_ERROR, EP_ERROR_SHAPE,
                 _("%s: matrices must be square, got shape %s"),
                 call->op->name, s);
  else
    g_set_error (error, EP_ERROR, EP_ERROR_SHAPE,
                 _("%s: matrices of shape %s are too large for LAPACK"),
                 call->op->name, s);
  return FALSE;
}

/* inv */

static gboolean
inv_infer (EpOpCall  *call,
           GError   **error)
{
  const EpLayout *a = &call->inputs[0]->layout;
  EpDType dtype = lapack_dtype (a->dtype);

  if (!check_square (call, a, error))
    return FALSE;

  call->input_dtypes[0] = dtype;
  ep_op_set_output (call, dtype, a->shape, a->ndim);
  return TRUE;
}

/* d(A⁻¹) = -A⁻¹ dA A⁻¹, so the gradient is -A⁻ᵀ G A⁻ᵀ */
static gboolean
inv_gradient (const EpOpCall  *call,
              EpTensor *const *output_grads,
              EpTensor       **input_grads,
              GError         **error)
{
  g_autoptr(EpTensor) yt = ep_grad_swap_last (call->outputs[0], error);
  g_autoptr(EpTensor) left = yt != NULL ? ep_tensor_matmul (yt, output_grads[0], error) : NULL;
  g_autoptr(EpTensor) both = left != NULL ? ep_tensor_matmul (left, yt, error) : NULL;

  if (both == NULL)
    return FALSE;

  input_grads[0] = ep_tensor_neg (both, error);
  return input_grads[0] != NULL;
}

const EpOpDef ep_op_inv = {
  .id = EP_OP_INV, .name = "inv",
  EP_INPUTS (EP_INPUT ("self")),
  .infer = inv_infer,
  .gradient = inv_gradient,
};

/* slogdet: outputs sign and log|det| */

static gboolean
slogdet_infer (EpOpCall  *call,
               GError   **error)
{
  const EpLayout *a = &call->inputs[0]->layout;
  EpDType dtype = lapack_dtype (a->dtype);

  if (!check_square (call, a, error))
    return FALSE;

  call->input_dtypes[0] = dtype;
  ep_op_set_output (call, dtype, a->shape, a->ndim - 2);
  call->output_layouts[1] = call->output_layouts[0];
  call->n_outputs = 2;
  return TRUE;
}

/* d log|det A| = tr(A⁻¹ dA): the gradient is G A⁻ᵀ; the sign is
 * piecewise constant. */
static gboolean
slogdet_gradient (const EpOpCall  *call,
                  EpTensor *const *output_grads,
                  EpTensor       **input_grads,
                  GError         **error)
{
  g_autoptr(EpTensor) inverse = ep_tensor_inv (call->inputs[0], error);
  g_autoptr(EpTensor) inverse_t = inverse != NULL ? ep_grad_swap_last (inverse, error) : NULL;
  g_autoptr(EpTensor) column = NULL;
  g_autoptr(EpTensor) scale = NULL;

  if (inverse_t == NULL)
    return FALSE;
  column = ep_tensor_expand_dims (output_grads[1], -1, error);
  scale = column != NULL ? ep_tensor_expand_dims (column, -1, error) : NULL;
  if (scale == NULL)
    return FALSE;

  input_grads[0] = ep_tensor_mul (scale, inverse_t, error);
  return input_grads[0] != NULL;
}

const EpOpDef ep_op_slogdet = {
  .id = EP_OP_SLOGDET, .name = "slogdet",
  EP_INPUTS (EP_INPUT ("self")),
  EP_OUTPUTS ("sign", "logabsdet"),
  .infer = slogdet_infer,
  .gradient = slogdet_gradient,
};

/* solve: a (..., n, n); b (..., n) vectors or (..., n, k) matrices */

/* NumPy 2's rule: b is a vector only when it is 1-D; a batch of vectors
 * is a batch of (n, 1) matrices. (NumPy 1 also took b.ndim == a.ndim - 1
 * for a batch of vectors, which made (n, n) @ x = (n, k) ambiguous for
 * batches.) */
gboolean
ep_solve_is_vector (const EpLayout *a,
                    const EpLayout *b)
{
  return b->ndim == 1;
}

static gboolean
solve_infer (EpOpCall  *call,
             GError   **error)
{
  const EpLayout *a = &call->inputs[0]->layout;
  const EpLayout *b = &call->inputs[1]->layout;
  gboolean vector;
  guint a_batch, b_batch, batch, core, ndim = 0;
  gint64 n, shape[EP_MAX_DIMS];
  EpDType dtype;

  if (!check_square (call, a, error))
    return FALSE;
  n = a->shape[a->ndim - 1];

  if (b->ndim == 0)
    {
      g_set_error (error, EP_ERROR, EP_ERROR_SHAPE,
                   _("solve: the right-hand side must be a vector or matrices, not a scalar"));
      return FALSE;
    }

  vector = ep_solve_is_vector (a, b);
  core = vector ? 1 : 2;
  if (b->shape[b->ndim - core] != n)
    {
      g_autofree char *as = ep_shape_to_string (a->shape, a->ndim);
      g_autofree char *bs = ep_shape_to_string (b->shape, b->ndim);

      g_set_error (error, EP_ERROR, EP_ERROR_SHAPE,
                   _("solve: a right-hand side of shape %s does not fit matrices of shape %s"),
                   bs, as);
      return FALSE;
    }

  a_batch = a->ndim - 2;
  b_batch = b->ndim - core;
  batch = MAX (a_batch, b_batch);
  for (guint d = 0; d < batch; d++)
    {
      gint64 ae = d + a_batch >= batch ? a->shape[d + a_batch - batch] : 1;
      gint64 be = d + b_batch >= batch ? b->shape[d + b_batch - batch] : 1;

      if (ae != be && ae != 1 && be != 1)
        {
          g_autofree char *as = ep_shape_to_string (a->shape, a->ndim);
          g_autofree char *bs = ep_shape_to_string (b->shape, b->ndim);

          g_set_error (error, EP_ERROR, EP_ERROR_SHAPE,
                       _("solve: batch dimensions of %s and %s cannot be broadcast together"),
                       as, bs);
          return FALSE;
        }
      shape[ndim++] = ae == 1 ? be : ae;
    }
  if (batch + core > EP_MAX_DIMS)
    {
      g_set_error (error, EP_ERROR, EP_ERROR_SHAPE,
                   _("solve: the result would have %u dimensions, at most %d are supported"),
                   batch + core, EP_MAX_DIMS);
      return FALSE;
    }
  shape[ndim++] = n;
  if (!vector)
    shape[ndim++] = b->shape[b->ndim - 1];

  dtype = lapack_dtype (ep_op_result_dtype (call->inputs, 2));
  ep_op_cast_all_inputs (call, dtype);
  ep_op_set_output (call, dtype, shape, ndim);
  return TRUE;
}

/* x = A⁻¹ b: the gradient of b is A⁻ᵀ G, that of A is -(A⁻ᵀ G) xᵀ,
 * each summed back over the batch dimensions it was broadcast along. */
static gboolean
solve_gradient (const EpOpCall  *call,
                EpTensor *const *output_grads,
                EpTensor       **input_grads,
                GError         **error)
{
  EpTensor *a = call->inputs[0], *b = call->inputs[1], *x = call->outputs[0];
  gboolean vector = ep_solve_is_vector (&a->layout, &b->layout);
  g_autoptr(EpTensor) at = ep_grad_swap_last (a, error);
  g_autoptr(EpTensor) gb = NULL;
  g_autoptr(EpTensor) product = NULL;
  g_autoptr(EpTensor) ga = NULL;

  if (at == NULL)
    return FALSE;
  if (vector)
    {
      /* x has the batch shape: solve it as (..., n, 1) matrices */
      g_autoptr(EpTensor) column = ep_tensor_expand_dims (output_grads[0], -1, error);
      g_autoptr(EpTensor) solved = column != NULL ? ep_tensor_solve (at, column, error) : NULL;
      gint last = -1;

      gb = solved != NULL ? ep_tensor_squeeze (solved, &last, 1, error) : NULL;
    }
  else
    gb = ep_tensor_solve (at, output_grads[0], error);
  if (gb == NULL)
    return FALSE;

  if (vector)
    {
      g_autoptr(EpTensor) column = ep_tensor_expand_dims (gb, -1, error);
      g_autoptr(EpTensor) row = column != NULL ? ep_tensor_expand_dims (x, -2, error) : NULL;

      product = row != NULL ? ep_tensor_mul (column, row, error) : NULL;
    }
  else
    {
      g_autoptr(EpTensor) xt = ep_grad_swap_last (x, error);

      product = xt != NULL ? ep_tensor_matmul (gb, xt, error) : NULL;
    }
  ga = product != NULL ? ep_tensor_neg (product, error) : NULL;
  if (ga == NULL)
    return FALSE;

  return ep_grad_set_summed (call, 0, g_steal_pointer (&ga), input_grads, error)
         && ep_grad_set_summed (call, 1, g_steal_pointer (&gb), input_grads, error);
}

const EpOpDef ep_op_solve = {
  .id = EP_OP_SOLVE, .name = "solve",
  EP_INPUTS (EP_INPUT ("self"), EP_INPUT ("b")),
  .infer = solve_infer,
  .gradient = solve_gradient,
};

/**
 * ep_tensor_inv:
 * @self: a square matrix or a batch of them, shape `(..., n, n)`
 * @error: return location for an error
 *
 * The inverse of each matrix, by LU factorization (LAPACK `getrf` and
 * `getri`). Integer and bool matrices are inverted in float64, as NumPy
 * does.
 *
 * Returns: (transfer full): the inverses, or %NULL with %EP_ERROR_SHAPE
 *   set if the matrices are not square, or %EP_ERROR_INVALID_ARGUMENT if
 *   one is singular
 */
EP_DEFINE_UNARY_METHOD (inv)

/**
 * ep_tensor_slogdet:
 * @self: a square matrix or a batch of them, shape `(..., n, n)`
 * @sign: (out) (transfer full) (optional): return location for the sign
 *   of each determinant: 1, -1, or 0 for a singular matrix
 * @logabsdet: (out) (transfer full) (optional): return location for the
 *   natural logarithm of the absolute value of each determinant, -inf
 *   for a singular matrix
 * @error: return location for an error
 *
 * Sign and logarithm of the determinant, as NumPy's `slogdet`: the
 * determinant is `sign * exp (logabsdet)`, without overflow for large
 * matrices. Both have the batch shape `self.shape[:-2]`. Integer and
 * bool matrices compute in float64. From Python the result is the pair
 * `(sign, logabsdet)`, in NumPy's order.
 *
 * @logabsdet is differentiable; @sign, piecewise constant, is not.
 *
 * Returns: (skip): %TRUE on success; %FALSE with %EP_ERROR_SHAPE set if
 *   the matrices are not square, in which case @sign and @logabsdet are
 *   left untouched
 */
gboolean
ep_tensor_slogdet (EpTensor   *self,
                   EpTensor  **sign,
                   EpTensor  **logabsdet,
                   GError    **error)
{
  EpTensor *outputs[EP_MAX_OUTPUTS] = { NULL };

  g_return_val_if_fail (EP_IS_TENSOR (self), FALSE);

  if (!ep_dispatch (&ep_op_slogdet, &self, 1, NULL, outputs, error))
    return FALSE;

  if (sign != NULL)
    *sign = outputs[0];
  else
    g_object_unref (outputs[0]);
  if (logabsdet != NULL)
    *logabsdet = outputs[1];
  else
    g_object_unref (outputs[1]);

  return TRUE;
}

/**
 * ep_tensor_solve:
 * @self: the coefficients: a square matrix or a batch of them, shape
 *   `(..., n, n)`
 * @b: the right-hand side: a vector `(n,)` or a (batch of) matrices
 *   `(..., n, k)`
 * @error: return location for an error
 *
 * Solves `self @ x = b` for `x` (LAPACK `getrf` and `getrs`), as NumPy's
 * `linalg.solve` (NumPy 2's rule: @b is a vector only when it is 1-D;
 * solve a batch of vectors as `(..., n, 1)` matrices). The batch
 * dimensions broadcast. Integer and bool inputs compute in float64.
 *
 * Returns: (transfer full): `x`, shaped like @b after broadcasting, or
 *   %NULL with %EP_ERROR_SHAPE set if the shapes do not fit, or
 *   %EP_ERROR_INVALID_ARGUMENT if a matrix is singular
 */
EpTensor *
ep_tensor_solve (EpTensor  *self,
                 EpTensor  *b,
                 GError   **error)
{
  g_return_val_if_fail (EP_IS_TENSOR (self), NULL);
  g_return_val_if_fail (EP_IS_TENSOR (b), NULL);

  return ep_dispatch_binary (&ep_op_solve, self, b, error);
}
