/* ops/lapack.c: inv, slogdet, solve (LAPACK on the CPU, own kernels on
 * OpenCL); det, cholesky, qr, svd, eigh, lstsq (LAPACK on the CPU, a host
 * round trip on OpenCL); matrix_power and matrix_norm (composites)
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <glib/gi18n-lib.h>
#include <inttypes.h>
#include <string.h>

#include "ep-autodiff-private.h"
#include "ep-creation-private.h"
#include "ep-dispatch-private.h"
#include "ep-enum-types.h"
#include "ep-error.h"
#include "ep-error-private.h"
#include "ep-grad-private.h"
#include "ep-join.h"
#include "ep-scalar-private.h"
#include "ep-shape-private.h"
#include "ep-tensor-private.h"

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

/* The batch shape of @a's matrices and @b's last @core axes broadcast
 * together, into @shape (@ndim: its length), with room for the @core
 * axes of the result. */
static gboolean
broadcast_batches (const EpOpCall  *call,
                   const EpLayout  *a,
                   const EpLayout  *b,
                   guint            core,
                   gint64          *shape,
                   guint           *ndim,
                   GError         **error)
{
  guint a_batch = a->ndim - 2, b_batch = b->ndim - core;
  guint batch = MAX (a_batch, b_batch);

  *ndim = 0;
  for (guint d = 0; d < batch; d++)
    {
      gint64 ae = d + a_batch >= batch ? a->shape[d + a_batch - batch] : 1;
      gint64 be = d + b_batch >= batch ? b->shape[d + b_batch - batch] : 1;

      if (ae != be && ae != 1 && be != 1)
        {
          g_autofree char *as = ep_shape_to_string (a->shape, a->ndim);
          g_autofree char *bs = ep_shape_to_string (b->shape, b->ndim);

          g_set_error (error, EP_ERROR, EP_ERROR_SHAPE,
                       _("%s: batch dimensions of %s and %s cannot be broadcast together"),
                       call->op->name, as, bs);
          return FALSE;
        }
      shape[(*ndim)++] = ae == 1 ? be : ae;
    }
  if (batch + core > EP_MAX_DIMS)
    {
      g_set_error (error, EP_ERROR, EP_ERROR_SHAPE,
                   _("%s: the result would have %u dimensions, at most %d are supported"),
                   call->op->name, batch + core, EP_MAX_DIMS);
      return FALSE;
    }

  return TRUE;
}

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
  guint core, ndim = 0;
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

  if (!broadcast_batches (call, a, b, core, shape, &ndim, error))
    return FALSE;
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
  EpTensor **locations[] = { sign, logabsdet };

  g_return_val_if_fail (EP_IS_TENSOR (self), FALSE);

  if (!ep_dispatch (&ep_op_slogdet, &self, 1, NULL, outputs, error))
    return FALSE;
  ep_op_give_outputs (outputs, 2, locations);
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


/* det, cholesky, qr, svd, eigh, lstsq (LAPACKE on the CPU, a host round
 * trip on OpenCL), matrix_power and matrix_norm (composites) */

/* A (batch of) matrices of any shape: rank 2 or more, each side within
 * LAPACK's 32-bit counts. */
static gboolean
check_matrix (const EpOpCall  *call,
              const EpLayout  *a,
              GError         **error)
{
  g_autofree char *s = NULL;

  if (a->ndim >= 2 && a->shape[a->ndim - 1] <= MAX_ORDER && a->shape[a->ndim - 2] <= MAX_ORDER)
    return TRUE;

  s = ep_shape_to_string (a->shape, a->ndim);
  if (a->ndim < 2)
    g_set_error (error, EP_ERROR, EP_ERROR_SHAPE,
                 _("%s: needs a (batch of) matrices, got shape %s"),
                 call->op->name, s);
  else
    g_set_error (error, EP_ERROR, EP_ERROR_SHAPE,
                 _("%s: matrices of shape %s are too large for LAPACK"),
                 call->op->name, s);
  return FALSE;
}

/* An output of @a's batch shape followed by @core (≤ 2) sizes. */
static void
set_batch_output (EpOpCall       *call,
                  guint           o,
                  const EpLayout *a,
                  EpDType         dtype,
                  const gint64   *core,
                  guint           n_core)
{
  gint64 shape[EP_MAX_DIMS];
  guint ndim = a->ndim - 2;

  memcpy (shape, a->shape, ndim * sizeof (gint64));
  for (guint c = 0; c < n_core; c++)
    shape[ndim + c] = core[c];
  ep_layout_init (&call->output_layouts[o], dtype, shape, ndim + n_core, NULL, NULL);
  call->n_outputs = MAX (call->n_outputs, o + 1);
}

/* det */

static gboolean
det_infer (EpOpCall  *call,
           GError   **error)
{
  const EpLayout *a = &call->inputs[0]->layout;
  EpDType dtype = lapack_dtype (a->dtype);

  if (!check_square (call, a, error))
    return FALSE;

  call->input_dtypes[0] = dtype;
  ep_op_set_output (call, dtype, a->shape, a->ndim - 2);
  return TRUE;
}

/* d det A = det A tr(A⁻¹ dA): the gradient is G det(A) A⁻ᵀ. It goes
 * through inv, so at a singular matrix (where the true gradient, the
 * adjugate's transpose, exists) it is inv's error. */
static gboolean
det_gradient (const EpOpCall  *call,
              EpTensor *const *output_grads,
              EpTensor       **input_grads,
              GError         **error)
{
  g_autoptr(EpTensor) inverse = ep_tensor_inv (call->inputs[0], error);
  g_autoptr(EpTensor) inverse_t = inverse != NULL ? ep_grad_swap_last (inverse, error) : NULL;
  g_autoptr(EpTensor) scaled = NULL;
  g_autoptr(EpTensor) column = NULL;
  g_autoptr(EpTensor) scale = NULL;

  if (inverse_t == NULL
      || (scaled = ep_tensor_mul (output_grads[0], call->outputs[0], error)) == NULL
      || (column = ep_tensor_expand_dims (scaled, -1, error)) == NULL
      || (scale = ep_tensor_expand_dims (column, -1, error)) == NULL)
    return FALSE;

  input_grads[0] = ep_tensor_mul (scale, inverse_t, error);
  return input_grads[0] != NULL;
}

const EpOpDef ep_op_det = {
  .id = EP_OP_DET, .name = "det",
  EP_INPUTS (EP_INPUT ("self")),
  .infer = det_infer,
  .gradient = det_gradient,
};

/* Helpers of the rules below: masks and diagonals as constants of the
 * matrix size (they depend on shapes only), on @like's device. */

/* start, start + 1, … stop - 1 as int64 on @like's device */
static EpTensor *
arange_like (EpTensor  *like,
             gint64     start,
             gint64     stop,
             GError   **error)
{
  return ep_arange_on (like->storage->device, ep_number_from_int64 (start), ep_number_from_int64 (stop),
                       ep_number_from_int64 (1), EP_DTYPE_INT64, error);
}

/* The (n, m) mask of the lower triangle (j <= i + k), bool */
static EpTensor *
triangle_mask (EpTensor  *like,
               gint64     n,
               gint64     m,
               gint64     k,
               GError   **error)
{
  g_autoptr(EpTensor) rows = arange_like (like, 0, n, error);
  g_autoptr(EpTensor) cols = rows != NULL ? arange_like (like, -k, m - k, error)
                                          : NULL;
  g_autoptr(EpTensor) column = cols != NULL ? ep_tensor_expand_dims (rows, -1, error) : NULL;

  return column != NULL ? ep_tensor_greater_equal (column, cols, error) : NULL;
}

/* where (mask, x, 0) */
static EpTensor *
masked (EpTensor  *x,
        EpTensor  *mask,
        GError   **error)
{
  g_autoptr(EpTensor) zero = ep_tensor_new_weak_int (0);

  return ep_tensor_where (mask, x, zero, error);
}

/* the lower triangle of the last two axes from diagonal @k (NumPy's tril) */
static EpTensor *
lower (EpTensor  *x,
       gint64     k,
       GError   **error)
{
  const EpLayout *l = &x->layout;
  g_autoptr(EpTensor) mask = triangle_mask (x, l->shape[l->ndim - 2], l->shape[l->ndim - 1], k, error);

  return mask != NULL ? masked (x, mask, error) : NULL;
}

/* (n, n) bool identity */
static EpTensor *
eye_mask (EpTensor  *like,
          gint64     n,
          GError   **error)
{
  g_autoptr(EpTensor) rows = arange_like (like, 0, n, error);
  g_autoptr(EpTensor) column = rows != NULL ? ep_tensor_expand_dims (rows, -1, error) : NULL;

  return column != NULL ? ep_tensor_equal (column, rows, error) : NULL;
}

/* a (..., n) batch of vectors as diagonal matrices (..., n, n) */
static EpTensor *
diag_embed (EpTensor  *v,
            GError   **error)
{
  g_autoptr(EpTensor) eye = eye_mask (v, v->layout.shape[v->layout.ndim - 1], error);
  g_autoptr(EpTensor) row = eye != NULL ? ep_tensor_expand_dims (v, -2, error) : NULL;

  return row != NULL ? masked (row, eye, error) : NULL;
}

/* x @ yᵀ over the last two axes */
static EpTensor *
matmul_t (EpTensor  *x,
          EpTensor  *y,
          GError   **error)
{
  g_autoptr(EpTensor) yt = ep_grad_swap_last (y, error);

  return yt != NULL ? ep_tensor_matmul (x, yt, error) : NULL;
}

/* xᵀ @ y over the last two axes */
static EpTensor *
t_matmul (EpTensor  *x,
          EpTensor  *y,
          GError   **error)
{
  g_autoptr(EpTensor) xt = ep_grad_swap_last (x, error);

  return xt != NULL ? ep_tensor_matmul (xt, y, error) : NULL;
}

/* x - xᵀ */
static EpTensor *
skew (EpTensor  *x,
      GError   **error)
{
  g_autoptr(EpTensor) xt = ep_grad_swap_last (x, error);

  return xt != NULL ? ep_tensor_sub (x, xt, error) : NULL;
}

/* x @ r⁻ᵀ for an invertible square r: (r⁻¹ xᵀ)ᵀ */
static EpTensor *
right_solve_t (EpTensor  *x,
               EpTensor  *r,
               GError   **error)
{
  g_autoptr(EpTensor) xt = ep_grad_swap_last (x, error);
  g_autoptr(EpTensor) solved = xt != NULL ? ep_tensor_solve (r, xt, error) : NULL;

  return solved != NULL ? ep_grad_swap_last (solved, error) : NULL;
}

/* @x's last axis cut at @at into @first and @second */
static gboolean
split_last (EpTensor  *x,
            gint64     at,
            EpTensor **first,
            EpTensor **second,
            GError   **error)
{
  g_autoptr(GPtrArray) parts = ep_tensor_split_at (x, &at, 1, -1, error);

  if (parts == NULL)
    return FALSE;
  *first = g_object_ref (g_ptr_array_index (parts, 0));
  *second = g_object_ref (g_ptr_array_index (parts, 1));
  return TRUE;
}

/* cholesky: the lower factor L of A = L Lᵀ; LAPACK reads A's lower
 * triangle only */

static gboolean
cholesky_infer (EpOpCall  *call,
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

/* PyTorch's rule (Murray, "Differentiation of the Cholesky decomposition",
 * 2016): with P = tril (Lᵀ G), Φ = (P + tril (P, -1)ᵀ) / 2 (symmetric,
 * its diagonal halved) and A̅ = L⁻ᵀ Φ L⁻¹, symmetric as the
 * perturbations of A that keep it symmetric. */
static gboolean
cholesky_gradient (const EpOpCall  *call,
                   EpTensor *const *output_grads,
                   EpTensor       **input_grads,
                   GError         **error)
{
  EpTensor *l = call->outputs[0];
  g_autoptr(EpTensor) product = t_matmul (l, output_grads[0], error);
  g_autoptr(EpTensor) phi = product != NULL ? lower (product, 0, error) : NULL;
  g_autoptr(EpTensor) strict = phi != NULL ? lower (product, -1, error) : NULL;
  g_autoptr(EpTensor) strict_t = strict != NULL ? ep_grad_swap_last (strict, error) : NULL;
  g_autoptr(EpTensor) both = strict_t != NULL ? ep_tensor_add (phi, strict_t, error) : NULL;
  g_autoptr(EpTensor) half = both != NULL ? ep_tensor_mul_scalar (both, 0.5, error) : NULL;
  g_autoptr(EpTensor) inverse = half != NULL ? ep_tensor_inv (l, error) : NULL;
  g_autoptr(EpTensor) left = inverse != NULL ? t_matmul (inverse, half, error) : NULL;

  if (left == NULL)
    return FALSE;

  input_grads[0] = ep_tensor_matmul (left, inverse, error);
  return input_grads[0] != NULL;
}

const EpOpDef ep_op_cholesky = {
  .id = EP_OP_CHOLESKY, .name = "cholesky",
  EP_INPUTS (EP_INPUT ("self")),
  .infer = cholesky_infer,
  .gradient = cholesky_gradient,
};

/* qr: reduced, Q (..., m, k) and R (..., k, n), k = min (m, n) */

static gboolean
qr_infer (EpOpCall  *call,
          GError   **error)
{
  const EpLayout *a = &call->inputs[0]->layout;
  EpDType dtype = lapack_dtype (a->dtype);
  gint64 m, n, k;

  if (!check_matrix (call, a, error))
    return FALSE;
  m = a->shape[a->ndim - 2];
  n = a->shape[a->ndim - 1];
  k = MIN (m, n);

  call->input_dtypes[0] = dtype;
  set_batch_output (call, 0, a, dtype, (const gint64[]) { m, k }, 2);
  set_batch_output (call, 1, a, dtype, (const gint64[]) { k, n }, 2);
  return TRUE;
}

/* TensorFlow's rule for m >= n (R square and invertible):
 * A̅ = Q (R̅ + tril (QᵀQ̅ - Q̅ᵀQ + R R̅ᵀ - R̅ Rᵀ) R⁻ᵀ) + (Q̅ - Q QᵀQ̅) R⁻ᵀ */
static EpTensor *
qr_deep_gradient (EpTensor  *q,
                  EpTensor  *r,
                  EpTensor  *gq,
                  EpTensor  *gr,
                  GError   **error)
{
  g_autoptr(EpTensor) qgq = t_matmul (q, gq, error);
  g_autoptr(EpTensor) qgq_skew = qgq != NULL ? skew (qgq, error) : NULL;
  g_autoptr(EpTensor) rgr = qgq_skew != NULL ? matmul_t (r, gr, error) : NULL;
  g_autoptr(EpTensor) rgr_skew = rgr != NULL ? skew (rgr, error) : NULL;
  g_autoptr(EpTensor) sum = rgr_skew != NULL ? ep_tensor_add (qgq_skew, rgr_skew, error) : NULL;
  g_autoptr(EpTensor) tril = sum != NULL ? lower (sum, 0, error) : NULL;
  g_autoptr(EpTensor) solved = tril != NULL ? right_solve_t (tril, r, error) : NULL;
  g_autoptr(EpTensor) inner = solved != NULL ? ep_tensor_add (gr, solved, error) : NULL;
  g_autoptr(EpTensor) grad_a = inner != NULL ? ep_tensor_matmul (q, inner, error) : NULL;
  g_autoptr(EpTensor) projected = grad_a != NULL ? ep_tensor_matmul (q, qgq, error) : NULL;
  g_autoptr(EpTensor) rest = projected != NULL ? ep_tensor_sub (gq, projected, error) : NULL;
  g_autoptr(EpTensor) grad_b = rest != NULL ? right_solve_t (rest, r, error) : NULL;

  return grad_b != NULL ? ep_tensor_add (grad_a, grad_b, error) : NULL;
}

/* For m < n (TensorFlow's rule): A = [X | Y] with X square, Q R = [Q U | Q V];
 * X̅ is the deep rule for (Q, U) with Q̅ + Y V̅ᵀ, and Y̅ = Q V̅. */
static gboolean
qr_gradient (const EpOpCall  *call,
             EpTensor *const *output_grads,
             EpTensor       **input_grads,
             GError         **error)
{
  EpTensor *a = call->inputs[0], *q = call->outputs[0], *r = call->outputs[1];
  const EpLayout *al = &a->layout;
  gint64 m = al->shape[al->ndim - 2], n = al->shape[al->ndim - 1];
  g_autoptr(EpTensor) u = NULL, v = NULL, gu = NULL, gv = NULL, x = NULL, y = NULL;
  g_autoptr(EpTensor) yv = NULL, gq = NULL, dx = NULL, dy = NULL;
  EpTensor *parts[2];

  if (m >= n)
    {
      input_grads[0] = qr_deep_gradient (q, r, output_grads[0], output_grads[1], error);
      return input_grads[0] != NULL;
    }

  if (!split_last (r, m, &u, &v, error)
      || !split_last (output_grads[1], m, &gu, &gv, error)
      || !split_last (a, m, &x, &y, error)
      || (yv = matmul_t (y, gv, error)) == NULL
      || (gq = ep_tensor_add (output_grads[0], yv, error)) == NULL
      || (dx = qr_deep_gradient (q, u, gq, gu, error)) == NULL
      || (dy = ep_tensor_matmul (q, gv, error)) == NULL)
    return FALSE;

  parts[0] = dx;
  parts[1] = dy;
  input_grads[0] = ep_concatenate (parts, 2, -1, error);
  return input_grads[0] != NULL;
}

const EpOpDef ep_op_qr = {
  .id = EP_OP_QR, .name = "qr",
  EP_INPUTS (EP_INPUT ("self")),
  EP_OUTPUTS ("q", "r"),
  .infer = qr_infer,
  .gradient = qr_gradient,
};

/* svd: U (..., m, k), S (..., k), Vh (..., k, n), k = min (m, n); with
 * full_matrices U is (..., m, m) and Vh (..., n, n) */

static gboolean
svd_infer (EpOpCall  *call,
           GError   **error)
{
  const EpLayout *a = &call->inputs[0]->layout;
  EpDType dtype = lapack_dtype (a->dtype);
  gboolean full = call->attrs.lapack.full_matrices;
  gint64 m, n, k;

  if (!check_matrix (call, a, error))
    return FALSE;
  m = a->shape[a->ndim - 2];
  n = a->shape[a->ndim - 1];
  k = MIN (m, n);

  call->input_dtypes[0] = dtype;
  set_batch_output (call, 0, a, dtype, (const gint64[]) { m, full ? m : k }, 2);
  set_batch_output (call, 1, a, dtype, (const gint64[]) { k }, 1);
  set_batch_output (call, 2, a, dtype, (const gint64[]) { full ? n : k, n }, 2);
  return TRUE;
}

/* F with F_ij = 1 / (s_j - s_i) off the diagonal and 0 on it, for a
 * (..., k) batch @s: infinite where two values are equal */
static EpTensor *
inverse_gaps (EpTensor  *s,
              GError   **error)
{
  g_autoptr(EpTensor) row = ep_tensor_expand_dims (s, -2, error);
  g_autoptr(EpTensor) column = row != NULL ? ep_tensor_expand_dims (s, -1, error) : NULL;
  g_autoptr(EpTensor) gaps = column != NULL ? ep_tensor_sub (row, column, error) : NULL;
  g_autoptr(EpTensor) eye = gaps != NULL ? eye_mask (s, s->layout.shape[s->layout.ndim - 1], error) : NULL;
  g_autoptr(EpTensor) one = ep_tensor_new_weak_int (1);
  g_autoptr(EpTensor) zero = ep_tensor_new_weak_int (0);
  g_autoptr(EpTensor) safe = eye != NULL ? ep_tensor_where (eye, one, gaps, error) : NULL;
  g_autoptr(EpTensor) inverse = safe != NULL ? ep_tensor_div (one, safe, error) : NULL;

  return inverse != NULL ? ep_tensor_where (eye, zero, inverse, error) : NULL;
}

/* F ∘ @k, 0 where @k is: the eigenvalues' (singular values') own
 * gradient stays finite at equal values when nothing asks for the
 * vectors' (PyTorch leaves that part out then) */
static EpTensor *
gap_product (EpTensor  *f,
             EpTensor  *k,
             GError   **error)
{
  g_autoptr(EpTensor) zero = ep_tensor_new_weak_int (0);
  g_autoptr(EpTensor) is_zero = ep_tensor_equal (k, zero, error);
  g_autoptr(EpTensor) product = is_zero != NULL ? ep_tensor_mul (f, k, error) : NULL;

  return product != NULL ? ep_tensor_where (is_zero, zero, product, error) : NULL;
}

/* Townsend, "Differentiating the singular value decomposition" (2016),
 * for distinct non-zero singular values; with F from the squares of S:
 * A̅ = U [(F ∘ skew (UᵀU̅)) S + diag (S̅) + S (F ∘ skew (VᵀV̅))] Vᵀ
 *     + (I - U Uᵀ) U̅ S⁻¹ Vᵀ + U S⁻¹ V̅ᵀ (I - V Vᵀ),
 * the last two terms only where U (V) has fewer columns than rows. */
static gboolean
svd_gradient (const EpOpCall  *call,
              EpTensor *const *output_grads,
              EpTensor       **input_grads,
              GError         **error)
{
  const EpLayout *al = &call->inputs[0]->layout;
  gint64 m = al->shape[al->ndim - 2], n = al->shape[al->ndim - 1];
  EpTensor *u = call->outputs[0], *s = call->outputs[1], *vh = call->outputs[2];
  EpTensor *gu = output_grads[0], *gs = output_grads[1], *gvh = output_grads[2];
  g_autoptr(EpTensor) s2 = NULL, f = NULL, ugu = NULL, k = NULL, fk = NULL;
  g_autoptr(EpTensor) vgv = NULL, j = NULL, fj = NULL, s_row = NULL, s_column = NULL;
  g_autoptr(EpTensor) left = NULL, right = NULL, diagonal = NULL, inner = NULL;
  g_autoptr(EpTensor) partial = NULL, inner_vh = NULL, grad = NULL;

  if (call->attrs.lapack.full_matrices && m != n)
    {
      g_set_error (error, EP_ERROR, EP_ERROR_GRADIENT,
                   _("svd: the gradient of full_matrices=True needs square matrices; use full_matrices=False"));
      return FALSE;
    }

  if ((s2 = ep_tensor_square (s, error)) == NULL
      || (f = inverse_gaps (s2, error)) == NULL
      || (ugu = t_matmul (u, gu, error)) == NULL
      || (k = skew (ugu, error)) == NULL
      || (fk = gap_product (f, k, error)) == NULL
      || (vgv = matmul_t (vh, gvh, error)) == NULL
      || (j = skew (vgv, error)) == NULL
      || (fj = gap_product (f, j, error)) == NULL
      || (s_row = ep_tensor_expand_dims (s, -2, error)) == NULL
      || (s_column = ep_tensor_expand_dims (s, -1, error)) == NULL
      || (left = ep_tensor_mul (fk, s_row, error)) == NULL
      || (right = ep_tensor_mul (s_column, fj, error)) == NULL
      || (diagonal = diag_embed (gs, error)) == NULL
      || (partial = ep_tensor_add (left, right, error)) == NULL
      || (inner = ep_tensor_add (partial, diagonal, error)) == NULL
      || (inner_vh = ep_tensor_matmul (inner, vh, error)) == NULL
      || (grad = ep_tensor_matmul (u, inner_vh, error)) == NULL)
    return FALSE;

  if (m > MIN (m, n))
    {
      /* (U̅ - U UᵀU̅) S⁻¹ Vᵀ */
      g_autoptr(EpTensor) projected = ep_tensor_matmul (u, ugu, error);
      g_autoptr(EpTensor) rest = projected != NULL ? ep_tensor_sub (gu, projected, error) : NULL;
      g_autoptr(EpTensor) scaled = rest != NULL ? ep_tensor_div (rest, s_row, error) : NULL;
      g_autoptr(EpTensor) term = scaled != NULL ? ep_tensor_matmul (scaled, vh, error) : NULL;
      g_autoptr(EpTensor) sum = term != NULL ? ep_tensor_add (grad, term, error) : NULL;

      if (sum == NULL)
        return FALSE;
      g_set_object (&grad, sum);
    }
  if (n > MIN (m, n))
    {
      /* U S⁻¹ (V̅ᵀ - V̅ᵀ V Vᵀ) */
      g_autoptr(EpTensor) vgv_t = ep_grad_swap_last (vgv, error);
      g_autoptr(EpTensor) back = vgv_t != NULL ? ep_tensor_matmul (vgv_t, vh, error) : NULL;
      g_autoptr(EpTensor) rest = back != NULL ? ep_tensor_sub (gvh, back, error) : NULL;
      g_autoptr(EpTensor) scaled = rest != NULL ? ep_tensor_div (rest, s_column, error) : NULL;
      g_autoptr(EpTensor) term = scaled != NULL ? ep_tensor_matmul (u, scaled, error) : NULL;
      g_autoptr(EpTensor) sum = term != NULL ? ep_tensor_add (grad, term, error) : NULL;

      if (sum == NULL)
        return FALSE;
      g_set_object (&grad, sum);
    }

  input_grads[0] = g_steal_pointer (&grad);
  return TRUE;
}

const EpOpDef ep_op_svd = {
  .id = EP_OP_SVD, .name = "svd",
  EP_INPUTS (EP_INPUT ("self")),
  EP_ATTRS (EP_ATTR ("full_matrices", EP_ATTR_BOOL, EP_FIELD (lapack.full_matrices), EP_DEFAULT (FALSE))),
  EP_OUTPUTS ("u", "s", "vh"),
  .infer = svd_infer,
  .gradient = svd_gradient,
};

/* eigh: eigenvalues (..., n) ascending, eigenvectors (..., n, n) as
 * columns, from the lower (or upper) triangle */

static gboolean
eigh_infer (EpOpCall  *call,
            GError   **error)
{
  const EpLayout *a = &call->inputs[0]->layout;
  EpDType dtype = lapack_dtype (a->dtype);
  gint64 n;

  if (!check_square (call, a, error))
    return FALSE;
  n = a->shape[a->ndim - 1];

  call->input_dtypes[0] = dtype;
  set_batch_output (call, 0, a, dtype, (const gint64[]) { n }, 1);
  set_batch_output (call, 1, a, dtype, (const gint64[]) { n, n }, 2);
  return TRUE;
}

/* PyTorch's rule, for distinct eigenvalues: with F_ij = 1 / (λ_j - λ_i),
 * A̅ = V (diag (Λ̅) + F ∘ skew (VᵀV̅) / 2) Vᵀ, symmetric. */
static gboolean
eigh_gradient (const EpOpCall  *call,
               EpTensor *const *output_grads,
               EpTensor       **input_grads,
               GError         **error)
{
  EpTensor *w = call->outputs[0], *v = call->outputs[1];
  g_autoptr(EpTensor) f = inverse_gaps (w, error);
  g_autoptr(EpTensor) vgv = f != NULL ? t_matmul (v, output_grads[1], error) : NULL;
  g_autoptr(EpTensor) k = vgv != NULL ? skew (vgv, error) : NULL;
  g_autoptr(EpTensor) half = k != NULL ? ep_tensor_mul_scalar (k, 0.5, error) : NULL;
  g_autoptr(EpTensor) fk = half != NULL ? gap_product (f, half, error) : NULL;
  g_autoptr(EpTensor) diagonal = fk != NULL ? diag_embed (output_grads[0], error) : NULL;
  g_autoptr(EpTensor) inner = diagonal != NULL ? ep_tensor_add (fk, diagonal, error) : NULL;
  g_autoptr(EpTensor) inner_vt = inner != NULL ? matmul_t (inner, v, error) : NULL;

  if (inner_vt == NULL)
    return FALSE;

  input_grads[0] = ep_tensor_matmul (v, inner_vt, error);
  return input_grads[0] != NULL;
}

const EpOpDef ep_op_eigh = {
  .id = EP_OP_EIGH, .name = "eigh",
  EP_INPUTS (EP_INPUT ("self")),
  EP_ATTRS (EP_ATTR ("upper", EP_ATTR_BOOL, EP_FIELD (lapack.upper), EP_DEFAULT (FALSE))),
  EP_OUTPUTS ("eigenvalues", "eigenvectors"),
  .infer = eigh_infer,
  .gradient = eigh_gradient,
};

/* lstsq: a (..., m, n); b (m,) a vector or (..., m, k) matrices, as
 * solve; x (..., n) or (..., n, k) */

static gboolean
lstsq_infer (EpOpCall  *call,
             GError   **error)
{
  const EpLayout *a = &call->inputs[0]->layout;
  const EpLayout *b = &call->inputs[1]->layout;
  gboolean vector;
  guint core, ndim = 0;
  gint64 m, shape[EP_MAX_DIMS];
  EpDType dtype;

  if (!check_matrix (call, a, error))
    return FALSE;
  m = a->shape[a->ndim - 2];

  if (b->ndim == 0)
    {
      g_set_error (error, EP_ERROR, EP_ERROR_SHAPE,
                   _("lstsq: the right-hand side must be a vector or matrices, not a scalar"));
      return FALSE;
    }

  vector = ep_solve_is_vector (a, b);
  core = vector ? 1 : 2;
  if (b->shape[b->ndim - core] != m || (!vector && b->shape[b->ndim - 1] > MAX_ORDER))
    {
      g_autofree char *as = ep_shape_to_string (a->shape, a->ndim);
      g_autofree char *bs = ep_shape_to_string (b->shape, b->ndim);

      g_set_error (error, EP_ERROR, EP_ERROR_SHAPE,
                   _("lstsq: a right-hand side of shape %s does not fit matrices of shape %s"),
                   bs, as);
      return FALSE;
    }

  if (!broadcast_batches (call, a, b, core, shape, &ndim, error))
    return FALSE;
  shape[ndim++] = a->shape[a->ndim - 1];
  if (!vector)
    shape[ndim++] = b->shape[b->ndim - 1];

  dtype = lapack_dtype (ep_op_result_dtype (call->inputs, 2));
  ep_op_cast_all_inputs (call, dtype);
  ep_op_set_output (call, dtype, shape, ndim);
  return TRUE;
}

/* For full-rank A. Tall (m >= n): x solves Aᵀ A x = Aᵀ b; with
 * z = (AᵀA)⁻¹ G and r = b - A x, A̅ = r zᵀ - A z xᵀ and b̅ = A z. Wide
 * (m < n): x = Aᵀ y with A Aᵀ y = b; with w = (AAᵀ)⁻¹ A G,
 * A̅ = y Gᵀ - w xᵀ - y wᵀ A and b̅ = w. Vectors are (n, 1) columns. */
static gboolean
lstsq_gradient (const EpOpCall  *call,
                EpTensor *const *output_grads,
                EpTensor       **input_grads,
                GError         **error)
{
  EpTensor *a = call->inputs[0];
  const EpLayout *al = &a->layout;
  gboolean vector = ep_solve_is_vector (al, &call->inputs[1]->layout);
  gint64 m = al->shape[al->ndim - 2], n = al->shape[al->ndim - 1];
  g_autoptr(EpTensor) b = NULL, x = NULL, g = NULL, ga = NULL, gb = NULL;

  if (vector)
    {
      if ((b = ep_tensor_expand_dims (call->inputs[1], -1, error)) == NULL
          || (x = ep_tensor_expand_dims (call->outputs[0], -1, error)) == NULL
          || (g = ep_tensor_expand_dims (output_grads[0], -1, error)) == NULL)
        return FALSE;
    }
  else
    {
      b = g_object_ref (call->inputs[1]);
      x = g_object_ref (call->outputs[0]);
      g = g_object_ref (output_grads[0]);
    }

  if (m >= n)
    {
      g_autoptr(EpTensor) gram = t_matmul (a, a, error);
      g_autoptr(EpTensor) z = gram != NULL ? ep_tensor_solve (gram, g, error) : NULL;
      g_autoptr(EpTensor) az = z != NULL ? ep_tensor_matmul (a, z, error) : NULL;
      g_autoptr(EpTensor) ax = az != NULL ? ep_tensor_matmul (a, x, error) : NULL;
      g_autoptr(EpTensor) r = ax != NULL ? ep_tensor_sub (b, ax, error) : NULL;
      g_autoptr(EpTensor) first = r != NULL ? matmul_t (r, z, error) : NULL;
      g_autoptr(EpTensor) second = first != NULL ? matmul_t (az, x, error) : NULL;

      if (second == NULL || (ga = ep_tensor_sub (first, second, error)) == NULL)
        return FALSE;
      gb = g_steal_pointer (&az);
    }
  else
    {
      g_autoptr(EpTensor) gram = matmul_t (a, a, error);
      g_autoptr(EpTensor) y = gram != NULL ? ep_tensor_solve (gram, b, error) : NULL;
      g_autoptr(EpTensor) ag = y != NULL ? ep_tensor_matmul (a, g, error) : NULL;
      g_autoptr(EpTensor) w = ag != NULL ? ep_tensor_solve (gram, ag, error) : NULL;
      g_autoptr(EpTensor) first = w != NULL ? matmul_t (y, g, error) : NULL;
      g_autoptr(EpTensor) second = first != NULL ? matmul_t (w, x, error) : NULL;
      g_autoptr(EpTensor) ywt = second != NULL ? matmul_t (y, w, error) : NULL;
      g_autoptr(EpTensor) third = ywt != NULL ? ep_tensor_matmul (ywt, a, error) : NULL;
      g_autoptr(EpTensor) diff = third != NULL ? ep_tensor_sub (first, second, error) : NULL;

      if (diff == NULL || (ga = ep_tensor_sub (diff, third, error)) == NULL)
        return FALSE;
      gb = g_steal_pointer (&w);
    }

  if (vector)
    {
      gint last = -1;
      EpTensor *column = gb;

      gb = ep_tensor_squeeze (column, &last, 1, error);
      g_object_unref (column);
      if (gb == NULL)
        return FALSE;
    }

  return ep_grad_set_summed (call, 0, g_steal_pointer (&ga), input_grads, error)
         && ep_grad_set_summed (call, 1, g_steal_pointer (&gb), input_grads, error);
}

const EpOpDef ep_op_lstsq = {
  .id = EP_OP_LSTSQ, .name = "lstsq",
  EP_INPUTS (EP_INPUT ("self"), EP_INPUT ("b")),
  .infer = lstsq_infer,
  .gradient = lstsq_gradient,
};

/* matrix_power: by repeated squaring through matmul; a negative power
 * is a power of the inverse */

const EpOpDef ep_func_matrix_power = {
  .id = EP_N_OPS, .name = "matrix_power",
  EP_INPUTS (EP_INPUT ("self")),
  EP_ATTRS (EP_ATTR ("n", EP_ATTR_INT, EP_NO_FIELD)),
};

static gboolean
check_square_func (const EpOpDef   *func,
                   EpTensor        *self,
                   GError         **error)
{
  EpOpCall call = { .op = func };

  return check_square (&call, &self->layout, error);
}

/* the identity shaped and typed like @self */
static EpTensor *
identity_like (EpTensor  *self,
               GError   **error)
{
  const EpLayout *l = &self->layout;
  g_autoptr(EpTensor) eye = eye_mask (self, l->shape[l->ndim - 1], error);
  g_autoptr(EpTensor) typed = eye != NULL ? ep_tensor_astype (eye, l->dtype, error) : NULL;

  return typed != NULL ? ep_tensor_broadcast_to (typed, l->shape, l->ndim, error) : NULL;
}

static EpTensor *
matrix_power (EpTensor  *self,
              gint64     n,
              GError   **error)
{
  g_autoptr(EpTensor) base = NULL;
  g_autoptr(EpTensor) result = NULL;
  guint64 k = n < 0 ? -(guint64) n : (guint64) n;

  if (!check_square_func (&ep_func_matrix_power, self, error))
    return NULL;
  if (n == 0)
    return identity_like (self, error);

  base = n < 0 ? ep_tensor_inv (self, error) : g_object_ref (self);
  if (base == NULL)
    return NULL;
  if (k == 1)
    return n < 0 ? g_steal_pointer (&base) : ep_identity (self, error);

  for (;;)
    {
      if (k & 1)
        {
          EpTensor *product = result != NULL ? ep_tensor_matmul (result, base, error) : g_object_ref (base);

          if (product == NULL)
            return NULL;
          g_clear_object (&result);
          result = product;
        }
      k >>= 1;
      if (k == 0)
        break;

      {
        EpTensor *squared = ep_tensor_matmul (base, base, error);

        if (squared == NULL)
          return NULL;
        g_object_unref (base);
        base = squared;
      }
    }

  return g_steal_pointer (&result);
}

/**
 * ep_tensor_matrix_power:
 * @self: a square matrix or a batch of them, shape `(..., n, n)`
 * @n: the power: any integer
 * @error: return location for an error
 *
 * @self raised to the integer power @n by repeated squaring (about
 * 2 log₂|n| matrix products), as NumPy's `linalg.matrix_power`: @n = 0
 * gives the identity (in @self's type), a negative @n the power of the
 * inverse (integers then compute in float64). Integer matrices keep
 * their type for @n ≥ 0. Differentiable through the products (and
 * [method@Tensor.inv]).
 *
 * Returns: (transfer full): the powers, or %NULL with %EP_ERROR_SHAPE
 *   set if the matrices are not square, or %EP_ERROR_INVALID_ARGUMENT
 *   for a negative @n and a singular matrix
 */
EpTensor *
ep_tensor_matrix_power (EpTensor  *self,
                        gint64     n,
                        GError   **error)
{
  g_return_val_if_fail (EP_IS_TENSOR (self), NULL);

  return ep_error_named_result (matrix_power (self, n, error), error, "matrix_power");
}

/* matrix_norm: NumPy's matrix norms as composites */

const EpOpDef ep_func_matrix_norm = {
  .id = EP_N_OPS, .name = "matrix_norm",
  EP_INPUTS (EP_INPUT ("self")),
  EP_ATTRS (EP_ATTR ("ord", EP_ATTR_ENUM, EP_NO_FIELD, EP_DEFAULT (EP_MATRIX_NORM_FRO),
                     .enum_type = ep_matrix_norm_get_type),
            EP_ATTR_AXES_ARG, EP_ATTR_KEEPDIMS_ARG),
};

/* the extreme of the sums of |x| along @sum_axis, over @other */
static EpTensor *
extreme_sum (EpTensor  *x,
             gint       sum_axis,
             gint       other,
             gboolean   largest,
             GError   **error)
{
  g_autoptr(EpTensor) magnitude = ep_tensor_abs (x, error);
  g_autoptr(EpTensor) sums = magnitude != NULL ? ep_tensor_sum (magnitude, &sum_axis, 1, TRUE, error) : NULL;

  if (sums == NULL)
    return NULL;
  return largest ? ep_tensor_max (sums, &other, 1, TRUE, error) : ep_tensor_min (sums, &other, 1, TRUE, error);
}

/* the sum, largest or smallest singular value of the matrices along
 * @row and @col, reduced along both with extent 1 */
static EpTensor *
singular_value_norm (EpTensor      *x,
                     gint           row,
                     gint           col,
                     EpMatrixNorm   ord,
                     GError       **error)
{
  guint ndim = x->layout.ndim, k = 0;
  gint perm[EP_MAX_DIMS], last = -1, axes[2] = { MIN (row, col), MAX (row, col) };
  g_autoptr(EpTensor) moved = NULL;
  g_autoptr(EpTensor) s = NULL;
  g_autoptr(EpTensor) reduced = NULL;
  g_autoptr(EpTensor) first = NULL;

  for (guint d = 0; d < ndim; d++)
    if ((gint) d != row && (gint) d != col)
      perm[k++] = d;
  perm[k++] = row;
  perm[k++] = col;

  if ((moved = ep_tensor_transpose (x, perm, ndim, error)) == NULL
      || !ep_tensor_svd (moved, FALSE, NULL, &s, NULL, error))
    return NULL;
  if (ord == EP_MATRIX_NORM_NUC)
    reduced = ep_tensor_sum (s, &last, 1, FALSE, error);
  else if (ord == EP_MATRIX_NORM_TWO)
    reduced = ep_tensor_max (s, &last, 1, FALSE, error);
  else
    reduced = ep_tensor_min (s, &last, 1, FALSE, error);
  if (reduced == NULL || (first = ep_tensor_expand_dims (reduced, axes[0], error)) == NULL)
    return NULL;

  return ep_tensor_expand_dims (first, axes[1], error);
}

static EpTensor *
matrix_norm (EpTensor     *self,
             EpMatrixNorm  ord,
             const gint   *axes,
             guint         n_axes,
             gboolean      keepdims,
             GError      **error)
{
  const EpOpDef *func = &ep_func_matrix_norm;
  guint ndim = self->layout.ndim;
  gint row, col, both[2];
  g_autoptr(EpTensor) x = NULL;
  g_autoptr(EpTensor) kept = NULL;

  if (axes != NULL && n_axes != 0 && n_axes != 2)
    {
      g_set_error (error, EP_ERROR, EP_ERROR_AXIS,
                   _("matrix_norm: needs two axes (the rows and the columns), got %u"), n_axes);
      return NULL;
    }
  if (ndim < 2)
    {
      g_autofree char *s = ep_shape_to_string (self->layout.shape, ndim);

      g_set_error (error, EP_ERROR, EP_ERROR_SHAPE,
                   _("%s: needs a (batch of) matrices, got shape %s"), func->name, s);
      return NULL;
    }
  if (!ep_func_normalize_axis (func, axes != NULL && n_axes == 2 ? axes[0] : -2, ndim, &row, error)
      || !ep_func_normalize_axis (func, axes != NULL && n_axes == 2 ? axes[1] : -1, ndim, &col, error))
    return NULL;
  if (row == col)
    {
      g_set_error (error, EP_ERROR, EP_ERROR_AXIS,
                   _("matrix_norm: the two axes must differ, got %d twice"), row);
      return NULL;
    }
  both[0] = MIN (row, col);
  both[1] = MAX (row, col);

  if ((x = ep_tensor_astype (self, lapack_dtype (self->layout.dtype), error)) == NULL)
    return NULL;

  switch (ord)
    {
    case EP_MATRIX_NORM_FRO:
      kept = ep_tensor_l2 (x, both, 2, TRUE, error);
      break;
    case EP_MATRIX_NORM_ONE:
    case EP_MATRIX_NORM_NEG_ONE:
      kept = extreme_sum (x, row, col, ord == EP_MATRIX_NORM_ONE, error);
      break;
    case EP_MATRIX_NORM_INF:
    case EP_MATRIX_NORM_NEG_INF:
      kept = extreme_sum (x, col, row, ord == EP_MATRIX_NORM_INF, error);
      break;
    case EP_MATRIX_NORM_NUC:
    case EP_MATRIX_NORM_TWO:
    case EP_MATRIX_NORM_NEG_TWO:
      kept = singular_value_norm (x, row, col, ord, error);
      break;
    default:
      g_set_error (error, EP_ERROR, EP_ERROR_INVALID_ARGUMENT,
                   _("matrix_norm: unknown order %d"), (int) ord);
      return NULL;
    }
  if (kept == NULL || keepdims)
    return g_steal_pointer (&kept);

  return ep_tensor_squeeze (kept, both, 2, error);
}

/**
 * ep_tensor_matrix_norm:
 * @self: a matrix or a batch of them
 * @ord: which norm
 * @axes: (array length=n_axes) (nullable): the two axes of the matrices
 *   (rows, columns); %NULL or empty for the last two
 * @n_axes: the number of axes: 0 or 2
 * @keepdims: whether to keep the two axes with extent 1
 * @error: return location for an error
 *
 * A matrix norm of each matrix, as NumPy's `linalg.norm` with a 2-tuple
 * `axis` (see [enum@MatrixNorm]; the vector norms are
 * [method@Tensor.lp] and its kin). The spectral and nuclear norms come
 * from [method@Tensor.svd]. Integer matrices compute in float64.
 * Differentiable through the ops it is made of: the nuclear and
 * spectral norms as [method@Tensor.svd] is (distinct singular values),
 * the others as the sums and maxima are.
 *
 * Returns: (transfer full): the norms, or %NULL with %EP_ERROR_SHAPE
 *   set for fewer than 2 dimensions, or %EP_ERROR_AXIS for axes out of
 *   range, equal, or not two
 */
EpTensor *
ep_tensor_matrix_norm (EpTensor     *self,
                       EpMatrixNorm  ord,
                       const gint   *axes,
                       guint         n_axes,
                       gboolean      keepdims,
                       GError      **error)
{
  g_return_val_if_fail (EP_IS_TENSOR (self), NULL);

  return ep_error_named_result (matrix_norm (self, ord, axes, n_axes, keepdims, error), error, "matrix_norm");
}

/**
 * ep_tensor_det:
 * @self: a square matrix or a batch of them, shape `(..., n, n)`
 * @error: return location for an error
 *
 * The determinant of each matrix, by LU factorization (LAPACK `getrf`),
 * as NumPy's `linalg.det`: 0 for a singular matrix, 1 for a 0×0 one.
 * A NaN or infinite element is an error (NumPy gives NaN).
 * For large matrices, where it overflows, see [method@Tensor.slogdet].
 * Integer and bool matrices compute in float64.
 *
 * The gradient, `det (A) A⁻ᵀ`, goes through [method@Tensor.inv]: at a
 * singular matrix it is inv's error (PyTorch computes the adjugate
 * there through an SVD).
 *
 * Returns: (transfer full): the determinants, shape `self.shape[:-2]`,
 *   or %NULL with %EP_ERROR_SHAPE set if the matrices are not square, or
 *   %EP_ERROR_INVALID_ARGUMENT for a NaN or infinite element
 */
EP_DEFINE_UNARY_METHOD (det)

/**
 * ep_tensor_cholesky:
 * @self: a symmetric positive-definite matrix or a batch of them, shape
 *   `(..., n, n)`; only the lower triangle is read
 * @error: return location for an error
 *
 * The lower Cholesky factor `L` of each matrix, `self = L @ L.T`
 * (LAPACK `potrf`), zero above the diagonal, as NumPy's
 * `linalg.cholesky`. Integer and bool matrices compute in float64.
 *
 * The gradient (PyTorch's) is symmetric: that of a function of the
 * symmetric matrix, whose two triangles move together.
 *
 * Returns: (transfer full): the factors, or %NULL with %EP_ERROR_SHAPE
 *   set if the matrices are not square, or %EP_ERROR_INVALID_ARGUMENT if
 *   one is not positive definite or has a NaN or infinite element in its
 *   lower triangle
 */
EP_DEFINE_UNARY_METHOD (cholesky)

/**
 * ep_tensor_qr:
 * @self: a matrix or a batch of them, shape `(..., m, n)`
 * @q: (out) (transfer full) (optional): return location for Q, shape
 *   `(..., m, k)` with `k = min (m, n)`, orthonormal columns
 * @r: (out) (transfer full) (optional): return location for R, shape
 *   `(..., k, n)`, upper triangular
 * @error: return location for an error
 *
 * The reduced QR decomposition `self = Q @ R` (LAPACK `geqrf` and
 * `orgqr`), as NumPy's `linalg.qr` in its default mode `"reduced"`.
 * The signs are LAPACK's (R's diagonal may be negative), as NumPy's and
 * PyTorch's. Integer and bool matrices compute in float64. From Python
 * the result is the pair `(Q, R)`.
 *
 * Gradients (TensorFlow's and PyTorch's rule) need R's leading square
 * block to be invertible (full rank).
 *
 * Returns: (skip): %TRUE on success; %FALSE with %EP_ERROR_SHAPE set for
 *   fewer than 2 dimensions, or %EP_ERROR_INVALID_ARGUMENT for a NaN or
 *   infinite element, in which case @q and @r are left untouched
 */
gboolean
ep_tensor_qr (EpTensor   *self,
              EpTensor  **q,
              EpTensor  **r,
              GError    **error)
{
  EpTensor *outputs[EP_MAX_OUTPUTS] = { NULL };
  EpTensor **locations[] = { q, r };

  g_return_val_if_fail (EP_IS_TENSOR (self), FALSE);

  if (!ep_dispatch (&ep_op_qr, &self, 1, NULL, outputs, error))
    return FALSE;
  ep_op_give_outputs (outputs, 2, locations);
  return TRUE;
}

/**
 * ep_tensor_svd:
 * @self: a matrix or a batch of them, shape `(..., m, n)`
 * @full_matrices: whether U and Vh are square (`(m, m)` and `(n, n)`)
 *   rather than reduced (`(m, k)` and `(k, n)`, `k = min (m, n)`)
 * @u: (out) (transfer full) (optional): return location for U, the left
 *   singular vectors as columns
 * @s: (out) (transfer full) (optional): return location for the
 *   singular values, shape `(..., k)`, descending
 * @vh: (out) (transfer full) (optional): return location for Vh, the
 *   right singular vectors as rows
 * @error: return location for an error
 *
 * The singular value decomposition `self = U @ diag (S) @ Vh` (LAPACK
 * `gesdd`), as NumPy's `linalg.svd` (whose @full_matrices is true by
 * default; here, as in PyTorch's `linalg.svd`, false). The signs of the
 * singular vectors are LAPACK's. Integer and bool matrices compute in
 * float64. From Python the result is `(U, S, Vh)`.
 *
 * Gradients (Townsend's formula, as PyTorch's) are defined for distinct
 * non-zero singular values; where two are equal (or one is 0 and U or
 * Vh is not square) they are infinite or NaN, as in PyTorch, unless the
 * function of U and Vh does not depend on the choice of singular
 * vectors. Of @full_matrices, only square matrices have a gradient.
 *
 * Returns: (skip): %TRUE on success; %FALSE with %EP_ERROR_SHAPE set for
 *   fewer than 2 dimensions, or %EP_ERROR_INVALID_ARGUMENT for a matrix
 *   with a NaN or infinite element or where LAPACK does not converge; the
 *   return locations are then left untouched
 */
gboolean
ep_tensor_svd (EpTensor   *self,
               gboolean    full_matrices,
               EpTensor  **u,
               EpTensor  **s,
               EpTensor  **vh,
               GError    **error)
{
  EpTensor *outputs[EP_MAX_OUTPUTS] = { NULL };
  EpTensor **locations[] = { u, s, vh };
  EpOpAttrs attrs;

  g_return_val_if_fail (EP_IS_TENSOR (self), FALSE);

  ep_op_attrs_init (&attrs);
  attrs.lapack.full_matrices = full_matrices != FALSE;
  if (!ep_dispatch (&ep_op_svd, &self, 1, &attrs, outputs, error))
    return FALSE;
  ep_op_give_outputs (outputs, 3, locations);
  return TRUE;
}

/**
 * ep_tensor_eigh:
 * @self: a symmetric matrix or a batch of them, shape `(..., n, n)`
 * @upper: whether to read the upper triangle (NumPy's `UPLO="U"`)
 *   rather than the lower one (`UPLO="L"`, the default)
 * @eigenvalues: (out) (transfer full) (optional): return location for
 *   the eigenvalues, shape `(..., n)`, ascending
 * @eigenvectors: (out) (transfer full) (optional): return location for
 *   the eigenvectors as columns, shape `(..., n, n)`
 * @error: return location for an error
 *
 * Eigenvalues and eigenvectors of symmetric matrices (LAPACK `syevd`),
 * as NumPy's `linalg.eigh`; only one triangle is read. The signs of the
 * eigenvectors are LAPACK's. Integer and bool matrices compute in
 * float64. From Python the result is `(eigenvalues, eigenvectors)`.
 *
 * Gradients (PyTorch's rule, symmetric) are defined for distinct
 * eigenvalues; where two are equal the eigenvectors' part is infinite or
 * NaN, as in PyTorch, unless the function does not depend on the choice
 * of eigenvectors.
 *
 * Returns: (skip): %TRUE on success; %FALSE with %EP_ERROR_SHAPE set if
 *   the matrices are not square, or %EP_ERROR_INVALID_ARGUMENT for a NaN
 *   or infinite element or where LAPACK does not converge; the return
 *   locations are then left untouched
 */
gboolean
ep_tensor_eigh (EpTensor   *self,
                gboolean    upper,
                EpTensor  **eigenvalues,
                EpTensor  **eigenvectors,
                GError    **error)
{
  EpTensor *outputs[EP_MAX_OUTPUTS] = { NULL };
  EpTensor **locations[] = { eigenvalues, eigenvectors };
  EpOpAttrs attrs;

  g_return_val_if_fail (EP_IS_TENSOR (self), FALSE);

  ep_op_attrs_init (&attrs);
  attrs.lapack.upper = upper != FALSE;
  if (!ep_dispatch (&ep_op_eigh, &self, 1, &attrs, outputs, error))
    return FALSE;
  ep_op_give_outputs (outputs, 2, locations);
  return TRUE;
}

/**
 * ep_tensor_lstsq:
 * @self: the coefficients: a matrix or a batch of them, shape
 *   `(..., m, n)`
 * @b: the right-hand side: a vector `(m,)` or a (batch of) matrices
 *   `(..., m, k)`
 * @error: return location for an error
 *
 * The least-squares solution `x` minimizing `‖self @ x - b‖`, of least
 * norm where several do (LAPACK `gelsd`, an SVD, with NumPy's cut-off:
 * singular values below `eps · max (m, n)` times the largest count as
 * 0). This is the first result of NumPy's `linalg.lstsq`; its others
 * are computed from it where needed (the residuals as
 * `((self @ x - b) ** 2).sum (-2)`, the rank and singular values by
 * [method@Tensor.svd]). The batch dimensions broadcast, and @b is a
 * vector only when it is 1-D, as in [method@Tensor.solve]. Integer and
 * bool inputs compute in float64.
 *
 * Gradients hold for full-rank matrices (the normal equations, through
 * [method@Tensor.solve]); rank-deficient ones are an error there.
 *
 * Returns: (transfer full): `x`, shape `(..., n)` or `(..., n, k)`, or
 *   %NULL with %EP_ERROR_SHAPE set if the shapes do not fit, or
 *   %EP_ERROR_INVALID_ARGUMENT for a NaN or infinite element or where
 *   LAPACK does not converge
 */
EpTensor *
ep_tensor_lstsq (EpTensor  *self,
                 EpTensor  *b,
                 GError   **error)
{
  g_return_val_if_fail (EP_IS_TENSOR (self), NULL);
  g_return_val_if_fail (EP_IS_TENSOR (b), NULL);

  return ep_dispatch_binary (&ep_op_lstsq, self, b, error);
}
