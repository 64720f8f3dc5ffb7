/* ops/fft.c: discrete Fourier transforms: fft, ifft, rfft, irfft and
 * their 2-D forms (KISS FFT on the CPU, clFFT on OpenCL)
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * eager-glib has no complex dtype: a complex tensor is a real one with a
 * last axis of 2 (real, imaginary), PyTorch's torch.view_as_real layout.
 * Axes and lengths name the logical complex array, without that pair
 * axis. Every transform is linear, so that each rule is another
 * transform of the gradient (the conjugate transpose), as in PyTorch.
 */

#include "config.h"

#include <glib/gi18n-lib.h>
#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "ep-dispatch-private.h"
#include "ep-enum-types.h"
#include "ep-error-private.h"
#include "ep-error.h"
#include "ep-fault-private.h"
#include "ep-fft.h"
#include "ep-fft-private.h"
#include "ep-grad-private.h"
#include "ep-shape-private.h"

typedef enum {
  FFT_C2C,     /* complex in, complex out */
  FFT_R2C,     /* real in, half spectrum out */
  FFT_C2R,     /* half spectrum in, real out */
} FftKind;

static FftKind
fft_kind (const EpOpDef *op)
{
  switch (op->id)
    {
    case EP_OP_RFFT:
      return FFT_R2C;
    case EP_OP_IRFFT:
      return FFT_C2R;
    default:
      return FFT_C2C;
    }
}

/* Whether @layout is a complex tensor: a last axis of 2 after at least
 * one logical axis. */
static gboolean
is_complex_layout (const EpLayout *layout)
{
  return layout->ndim >= 2 && layout->shape[layout->ndim - 1] == 2;
}

static gboolean
check_complex (const char      *name,
               const EpLayout  *layout,
               GError         **error)
{
  g_autofree char *s = NULL;

  if (is_complex_layout (layout))
    return TRUE;

  s = ep_shape_to_string (layout->shape, layout->ndim);
  g_set_error (error, EP_ERROR, EP_ERROR_SHAPE,
               _("%s: needs a complex tensor, one with at least two axes whose last is 2 (real, imaginary), got shape %s"),
               name, s);
  return FALSE;
}

static gboolean
fft_infer (EpOpCall  *call,
           GError   **error)
{
  const EpLayout *in = &call->inputs[0]->layout;
  FftKind kind = fft_kind (call->op);
  const char *name = call->op->name;
  guint logical, out_ndim;
  gint axis;
  gint64 length, n, shape[EP_MAX_DIMS + 1];

  if (kind == FFT_R2C)
    {
      if (in->ndim == 0)
        {
          g_set_error (error, EP_ERROR, EP_ERROR_SHAPE,
                       _("%s: needs a tensor of at least one axis, got a 0-d tensor"), name);
          return FALSE;
        }
      if (in->ndim + 1 > EP_MAX_DIMS)
        {
          g_set_error (error, EP_ERROR, EP_ERROR_SHAPE,
                       _("%s: the result would have %u dimensions, at most %d are supported"),
                       name, in->ndim + 1, EP_MAX_DIMS);
          return FALSE;
        }
      logical = in->ndim;
    }
  else
    {
      if (!check_complex (name, in, error))
        return FALSE;
      logical = in->ndim - 1;
    }
  /* after the shape, as NumPy, which refuses a 0-d array of any type */
  if (in->dtype != EP_DTYPE_FLOAT32 && in->dtype != EP_DTYPE_FLOAT64)
    return ep_op_error_dtype (call, in->dtype, error);

  if (!ep_op_normalize_axis (call, call->attrs.axes[0], logical, &axis, error))
    return FALSE;
  length = in->shape[axis];

  n = call->attrs.fft.n;
  if (n == -1 && kind == FFT_C2R)
    n = length - 1 > EP_FFT_MAX_LENGTH ? G_MAXINT64 : MAX (2 * (length - 1), 0);
  else if (n == -1)
    n = length;
  if (n < 1)
    {
      g_set_error (error, EP_ERROR, EP_ERROR_INVALID_ARGUMENT,
                   _("%s: the transform's length must be positive, got %" PRId64),
                   name, n);
      return FALSE;
    }
  if (n > EP_FFT_MAX_LENGTH)
    {
      g_set_error (error, EP_ERROR, EP_ERROR_INVALID_ARGUMENT,
                   _("%s: a transform of length %" PRId64 " is longer than the longest supported, %d"),
                   name, n, EP_FFT_MAX_LENGTH);
      return FALSE;
    }

  memcpy (shape, in->shape, in->ndim * sizeof (gint64));
  out_ndim = in->ndim;
  switch (kind)
    {
    case FFT_C2C:
      shape[axis] = n;
      break;
    case FFT_R2C:
      shape[axis] = n / 2 + 1;
      shape[out_ndim++] = 2;
      break;
    case FFT_C2R:
      shape[axis] = n;
      out_ndim--;
      break;
    }

  ep_op_attrs_set_axis (&call->attrs, axis);
  call->attrs.fft.n = n;
  call->contiguous_inputs = 1;
  ep_op_set_output (call, in->dtype, shape, out_ndim);
  return TRUE;
}

/* The norm whose scaling is the adjoint's: the conjugate transpose of
 * a transform scaled by s is the opposite transform scaled by s. */
static EpFftNorm
dual_norm (EpFftNorm norm)
{
  switch (norm)
    {
    case EP_FFT_NORM_BACKWARD:
      return EP_FFT_NORM_FORWARD;
    case EP_FFT_NORM_FORWARD:
      return EP_FFT_NORM_BACKWARD;
    default:
      return norm;
    }
}

/* @t cropped or padded with zeros to @length along @axis: the adjoint of
 * the crop or zero-padding that the transforms' n makes. A new
 * reference. */
static EpTensor *
fit_axis (EpTensor  *t,
          gint       axis,
          gint64     length,
          GError   **error)
{
  guint ndim = t->layout.ndim;
  gint64 extent = t->layout.shape[axis];

  if (extent > length)
    {
      gint64 starts[EP_MAX_DIMS] = { 0 }, stops[EP_MAX_DIMS];

      for (guint d = 0; d < ndim; d++)
        stops[d] = G_MAXINT64;
      stops[axis] = length;
      return ep_tensor_slice (t, starts, ndim, stops, ndim, NULL, 0, error);
    }
  if (extent < length)
    {
      gint64 paddings[2 * EP_MAX_DIMS] = { 0 };

      paddings[2 * axis + 1] = length - extent;
      return ep_tensor_pad (t, paddings, 2 * ndim, EP_PAD_CONSTANT, 0.0, error);
    }
  return g_object_ref (t);
}

/* A constant of @values (one per element along @axis) shaped to
 * broadcast along @axis of @like, in its dtype and on its device. */
static EpTensor *
axis_weights (EpTensor       *like,
              gint            axis,
              const gdouble  *values,
              gint64          count,
              GError        **error)
{
  guint ndim = like->layout.ndim;
  gint64 shape[EP_MAX_DIMS];
  EpDType dtype = like->layout.dtype;
  g_autofree gpointer data = NULL;
  EpLayout layout;

  for (gint d = axis; d < (gint) ndim; d++)
    shape[d - axis] = 1;
  shape[0] = count;
  if (!ep_layout_init (&layout, dtype, shape, ndim - axis, "gradient", error))
    return NULL;

  data = ep_try_malloc (MAX (count, 1) * ep_dtype_get_itemsize (dtype));
  if (data == NULL)
    {
      g_set_error (error, EP_ERROR, EP_ERROR_OUT_OF_MEMORY,
                   _("gradient: out of memory"));
      return NULL;
    }
  for (gint64 k = 0; k < count; k++)
    if (dtype == EP_DTYPE_FLOAT32)
      ((gfloat *) data)[k] = (gfloat) values[k];
    else
      ((gdouble *) data)[k] = values[k];

  return ep_tensor_new_from_host (like->storage->device, &layout, data, "gradient", error);
}

/* The weights of the half spectrum's bins in the adjoints of rfft
 * (@half: 1/2) and irfft (2): the bins that stand for two of the full
 * spectrum (all but 0 and, for even n, n/2) count @half, the others 1. */
static EpTensor *
half_spectrum_weights (EpTensor  *like,
                       gint       axis,
                       gint64     n,
                       gdouble    half,
                       GError   **error)
{
  gint64 m = n / 2 + 1;
  g_autofree gdouble *values = ep_try_new (gdouble, m);

  if (values == NULL)
    {
      g_set_error (error, EP_ERROR, EP_ERROR_OUT_OF_MEMORY,
                   _("gradient: out of memory"));
      return NULL;
    }
  for (gint64 k = 0; k < m; k++)
    values[k] = k == 0 || 2 * k == n ? 1.0 : half;

  return axis_weights (like, axis, values, m, error);
}

/* fft and ifft: y = s F x (F the DFT or its conjugate), so the gradient
 * is s Fᴴ g, the opposite transform with the same scaling, cropped or
 * padded back to the input's length. */
static gboolean
c2c_gradient (const EpOpCall  *call,
              EpTensor *const *output_grads,
              EpTensor       **input_grads,
              GError         **error)
{
  gint axis = call->attrs.axes[0];
  EpFftNorm norm = dual_norm (call->attrs.fft.norm);
  g_autoptr(EpTensor) adjoint = NULL;

  adjoint = call->op->id == EP_OP_FFT
            ? ep_tensor_ifft (output_grads[0], -1, axis, norm, error)
            : ep_tensor_fft (output_grads[0], -1, axis, norm, error);
  if (adjoint == NULL)
    return FALSE;

  input_grads[0] = fit_axis (adjoint, axis, call->inputs[0]->layout.shape[axis], error);
  return input_grads[0] != NULL;
}

/* rfft: y = s C x, C the first n/2 + 1 rows of the DFT, so the gradient
 * is Re (s Cᴴ g): irfft's sum over the full spectrum counts each bin
 * that stands for two of it twice, hence the weights 1/2 (as PyTorch). */
static gboolean
rfft_gradient (const EpOpCall  *call,
               EpTensor *const *output_grads,
               EpTensor       **input_grads,
               GError         **error)
{
  gint axis = call->attrs.axes[0];
  gint64 n = call->attrs.fft.n;
  g_autoptr(EpTensor) weights = NULL;
  g_autoptr(EpTensor) weighted = NULL;
  g_autoptr(EpTensor) adjoint = NULL;

  if ((weights = half_spectrum_weights (output_grads[0], axis, n, 0.5, error)) == NULL
      || (weighted = ep_tensor_mul (output_grads[0], weights, error)) == NULL
      || (adjoint = ep_tensor_irfft (weighted, n, axis, dual_norm (call->attrs.fft.norm), error)) == NULL)
    return FALSE;

  input_grads[0] = fit_axis (adjoint, axis, call->inputs[0]->layout.shape[axis], error);
  return input_grads[0] != NULL;
}

/* irfft: y_j = s Σ_k c_k Re (X_k e^{2πi jk/n}) over the half spectrum,
 * c_k = 2 but for bins 0 and n/2: the gradient of X_k is s c_k times
 * the k-th bin of the unscaled rfft of g (real at 0 and n/2, so that
 * their imaginary parts, which irfft ignores, get none). */
static gboolean
irfft_gradient (const EpOpCall  *call,
                EpTensor *const *output_grads,
                EpTensor       **input_grads,
                GError         **error)
{
  gint axis = call->attrs.axes[0];
  gint64 n = call->attrs.fft.n;
  g_autoptr(EpTensor) spectrum = NULL;
  g_autoptr(EpTensor) weights = NULL;
  g_autoptr(EpTensor) weighted = NULL;

  if ((spectrum = ep_tensor_rfft (output_grads[0], -1, axis, dual_norm (call->attrs.fft.norm), error)) == NULL
      || (weights = half_spectrum_weights (spectrum, axis, n, 2.0, error)) == NULL
      || (weighted = ep_tensor_mul (spectrum, weights, error)) == NULL)
    return FALSE;

  input_grads[0] = fit_axis (weighted, axis, call->inputs[0]->layout.shape[axis], error);
  return input_grads[0] != NULL;
}

#define FFT_ATTRS                                                           \
  EP_ATTRS (EP_ATTR ("n", EP_ATTR_INT, EP_FIELD (fft.n), EP_DEFAULT (-1),   \
                     .flags = EP_ATTR_NULLABLE),                            \
            EP_ATTR_AXIS_ARG (EP_DEFAULT (-1)),                             \
            EP_ATTR ("norm", EP_ATTR_ENUM, EP_FIELD (fft.norm),             \
                     EP_DEFAULT (EP_FFT_NORM_BACKWARD),                     \
                     .enum_type = ep_fft_norm_get_type))

const EpOpDef ep_op_fft = {
  .id = EP_OP_FFT, .name = "fft",
  EP_INPUTS (EP_INPUT ("self")),
  FFT_ATTRS,
  .infer = fft_infer,
  .gradient = c2c_gradient,
};

const EpOpDef ep_op_ifft = {
  .id = EP_OP_IFFT, .name = "ifft",
  EP_INPUTS (EP_INPUT ("self")),
  FFT_ATTRS,
  .infer = fft_infer,
  .gradient = c2c_gradient,
};

const EpOpDef ep_op_rfft = {
  .id = EP_OP_RFFT, .name = "rfft",
  EP_INPUTS (EP_INPUT ("self")),
  FFT_ATTRS,
  .infer = fft_infer,
  .gradient = rfft_gradient,
};

const EpOpDef ep_op_irfft = {
  .id = EP_OP_IRFFT, .name = "irfft",
  EP_INPUTS (EP_INPUT ("self")),
  FFT_ATTRS,
  .infer = fft_infer,
  .gradient = irfft_gradient,
};

static EpTensor *
dispatch_fft (const EpOpDef  *op,
              EpTensor       *self,
              gint64          n,
              gint            axis,
              EpFftNorm       norm,
              GError        **error)
{
  EpOpAttrs attrs;

  ep_op_attrs_init (&attrs);
  attrs.fft.n = n;
  ep_op_attrs_set_axis (&attrs, axis);
  attrs.fft.norm = norm;

  return ep_dispatch1 (op, &self, 1, &attrs, error);
}

/**
 * ep_tensor_fft:
 * @self: a complex tensor: a floating-point tensor whose last axis is 2
 *   (real, imaginary)
 * @n: the length of the transform, or -1 for the length of @self along
 *   @axis; @self is cropped or padded with zeros to it
 * @axis: the logical axis to transform (the pair axis does not count:
 *   -1 is the one before it)
 * @norm: how the result is scaled
 * @error: return location for an error
 *
 * The one-dimensional discrete Fourier transform along @axis, as NumPy's
 * `fft.fft`: `y_k = Σ_j x_j e^{-2πi jk/n}` (unscaled with
 * %EP_FFT_NORM_BACKWARD), batched over every other axis. Complex tensors
 * are real tensors with a last axis of 2, the layout of PyTorch's
 * `torch.view_as_real`. float32 gives float32, float64 float64. Runs on
 * KISS FFT on the CPU and clFFT on OpenCL; its gradient is the inverse
 * transform's (the conjugate transpose).
 *
 * Returns: (transfer full): the transform, shaped like @self with @n
 *   along @axis, or %NULL with %EP_ERROR_DTYPE set for a tensor that is
 *   not float32 or float64, %EP_ERROR_SHAPE for one whose last axis is
 *   not 2, %EP_ERROR_AXIS for an axis out of range, or
 *   %EP_ERROR_INVALID_ARGUMENT for a length that is not positive (an
 *   empty axis) or too large
 */
EpTensor *
ep_tensor_fft (EpTensor   *self,
               gint64      n,
               gint        axis,
               EpFftNorm   norm,
               GError    **error)
{
  g_return_val_if_fail (EP_IS_TENSOR (self), NULL);

  return dispatch_fft (&ep_op_fft, self, n, axis, norm, error);
}

/**
 * ep_tensor_ifft:
 * @self: a complex tensor: a floating-point tensor whose last axis is 2
 *   (real, imaginary)
 * @n: the length of the transform, or -1 for the length of @self along
 *   @axis; @self is cropped or padded with zeros to it
 * @axis: the logical axis to transform (the pair axis does not count)
 * @norm: how the result is scaled
 * @error: return location for an error
 *
 * The inverse of [method@Tensor.fft] along @axis, as NumPy's
 * `fft.ifft`: `x_j = 1/n Σ_k y_k e^{2πi jk/n}` with
 * %EP_FFT_NORM_BACKWARD. Complex tensors are real tensors with a last
 * axis of 2.
 *
 * Returns: (transfer full): the transform, shaped like @self with @n
 *   along @axis, or %NULL with an error set as [method@Tensor.fft] does
 */
EpTensor *
ep_tensor_ifft (EpTensor   *self,
                gint64      n,
                gint        axis,
                EpFftNorm   norm,
                GError    **error)
{
  g_return_val_if_fail (EP_IS_TENSOR (self), NULL);

  return dispatch_fft (&ep_op_ifft, self, n, axis, norm, error);
}

/**
 * ep_tensor_rfft:
 * @self: a real float32 or float64 tensor
 * @n: the length of the transform, or -1 for the length of @self along
 *   @axis; @self is cropped or padded with zeros to it
 * @axis: the axis to transform
 * @norm: how the result is scaled
 * @error: return location for an error
 *
 * The discrete Fourier transform of real data along @axis, as NumPy's
 * `fft.rfft`: the first `n/2 + 1` bins of [method@Tensor.fft]'s result
 * (the others are their complex conjugates). The result is complex: a
 * new last axis of 2 (real, imaginary).
 *
 * Returns: (transfer full): the half spectrum, shaped like @self with
 *   `n/2 + 1` along @axis and a last axis of 2, or %NULL with
 *   %EP_ERROR_DTYPE set for a tensor that is not float32 or float64,
 *   %EP_ERROR_SHAPE for a 0-d one, %EP_ERROR_AXIS for an axis out of
 *   range, or %EP_ERROR_INVALID_ARGUMENT for a length that is not
 *   positive (an empty axis) or too large
 */
EpTensor *
ep_tensor_rfft (EpTensor   *self,
                gint64      n,
                gint        axis,
                EpFftNorm   norm,
                GError    **error)
{
  g_return_val_if_fail (EP_IS_TENSOR (self), NULL);

  return dispatch_fft (&ep_op_rfft, self, n, axis, norm, error);
}

/**
 * ep_tensor_irfft:
 * @self: a complex tensor (last axis 2: real, imaginary), the half
 *   spectrum of real data
 * @n: the length of the real result, or -1 for `2 (m - 1)` where m is
 *   the length of @self along @axis (NumPy's default: an even length);
 *   @self is cropped or padded with zeros to `n/2 + 1` bins
 * @axis: the logical axis to transform (the pair axis does not count)
 * @norm: how the result is scaled
 * @error: return location for an error
 *
 * The inverse of [method@Tensor.rfft], as NumPy's `fft.irfft`: the
 * spectrum is taken to be Hermitian, so the imaginary parts of bin 0 and
 * (for an even @n) bin n/2 are ignored. An odd @n needs to be given, as
 * in NumPy.
 *
 * Returns: (transfer full): the real signal, shaped like @self without
 *   its pair axis and with @n along @axis, or %NULL with an error set as
 *   [method@Tensor.fft] does
 */
EpTensor *
ep_tensor_irfft (EpTensor   *self,
                 gint64      n,
                 gint        axis,
                 EpFftNorm   norm,
                 GError    **error)
{
  g_return_val_if_fail (EP_IS_TENSOR (self), NULL);

  return dispatch_fft (&ep_op_irfft, self, n, axis, norm, error);
}

/* The 2-D forms: composites of the 1-D transforms along two axes, as
 * NumPy's fftn does (the last of the two first), whose rules give them
 * both devices and their gradients. */

#define FFT2_ATTRS                                                          \
  EP_ATTRS (EP_ATTR ("s", EP_ATTR_INTS, EP_NO_FIELD,                        \
                     .flags = EP_ATTR_NULLABLE),                            \
            EP_ATTR ("axes", EP_ATTR_INTS, EP_NO_FIELD,                     \
                     .flags = EP_ATTR_NULLABLE),                            \
            EP_ATTR ("norm", EP_ATTR_ENUM, EP_NO_FIELD,                     \
                     EP_DEFAULT (EP_FFT_NORM_BACKWARD),                     \
                     .enum_type = ep_fft_norm_get_type))

const EpOpDef ep_func_fft2 = {
  .id = EP_N_OPS, .name = "fft2",
  EP_INPUTS (EP_INPUT ("self")),
  FFT2_ATTRS,
};

const EpOpDef ep_func_ifft2 = {
  .id = EP_N_OPS, .name = "ifft2",
  EP_INPUTS (EP_INPUT ("self")),
  FFT2_ATTRS,
};

const EpOpDef ep_func_rfft2 = {
  .id = EP_N_OPS, .name = "rfft2",
  EP_INPUTS (EP_INPUT ("self")),
  FFT2_ATTRS,
};

const EpOpDef ep_func_irfft2 = {
  .id = EP_N_OPS, .name = "irfft2",
  EP_INPUTS (EP_INPUT ("self")),
  FFT2_ATTRS,
};

/* Checks the lengths and axes of a 2-D form and gives them with the
 * defaults filled in: the lengths -1 (each 1-D transform's default), the
 * axes (-2, -1). The axes must name two different logical axes. */
static gboolean
fft2_arguments (const EpOpDef  *func,
                EpTensor       *self,
                gboolean        complex_input,
                const gint64   *s,
                guint           n_s,
                const gint64   *axes,
                guint           n_axes,
                gint64          lengths[2],
                gint            canonical[2],
                GError        **error)
{
  const EpLayout *in = &self->layout;
  guint logical;
  gint normalized[2];

  if (axes == NULL)
    n_axes = 0;
  if (s == NULL)
    n_s = 0;
  if (n_axes != 0 && n_axes != 2)
    {
      g_set_error (error, EP_ERROR, EP_ERROR_INVALID_ARGUMENT,
                   _("%s: needs two axes, got %u"), func->name, n_axes);
      return FALSE;
    }
  if (n_s != 0 && n_s != 2)
    {
      g_set_error (error, EP_ERROR, EP_ERROR_INVALID_ARGUMENT,
                   _("%s: needs two lengths, one per axis, got %u"), func->name, n_s);
      return FALSE;
    }

  for (guint i = 0; i < 2; i++)
    {
      gint64 axis = n_axes == 2 ? axes[i] : (gint64) i - 2;

      if (axis < G_MININT || axis > G_MAXINT)
        axis = G_MAXINT;
      canonical[i] = (gint) axis;
      lengths[i] = n_s == 2 ? s[i] : -1;
    }

  /* the 1-D transforms check the rest; two axes that name the same one
   * of a valid tensor are this function's error */
  if (complex_input ? !is_complex_layout (in) : in->ndim == 0)
    return TRUE;
  logical = complex_input ? in->ndim - 1 : in->ndim;
  for (guint i = 0; i < 2; i++)
    if (!ep_func_normalize_axis (func, canonical[i], logical, &normalized[i], error))
      return FALSE;
  if (normalized[0] == normalized[1])
    {
      g_set_error (error, EP_ERROR, EP_ERROR_AXIS,
                   _("%s: the two axes must differ, got axis %d twice"),
                   func->name, normalized[0]);
      return FALSE;
    }
  canonical[0] = normalized[0];
  canonical[1] = normalized[1];
  return TRUE;
}

/* @second along axes[1], then @first along axes[0] */
static EpTensor *
fft2_run (const EpOpDef  *func,
          const EpOpDef  *first,
          const EpOpDef  *second,
          EpTensor       *self,
          const gint64   *s,
          guint           n_s,
          const gint64   *axes,
          guint           n_axes,
          EpFftNorm       norm,
          GError        **error)
{
  gint64 lengths[2];
  gint canonical[2];
  g_autoptr(EpTensor) inner = NULL;
  EpTensor *result;

  if (!fft2_arguments (func, self, func != &ep_func_rfft2, s, n_s, axes, n_axes,
                       lengths, canonical, error))
    return NULL;

  inner = dispatch_fft (second, self, lengths[1], canonical[1], norm, error);
  result = inner != NULL ? dispatch_fft (first, inner, lengths[0], canonical[0], norm, error) : NULL;
  return ep_error_named_result (result, error, func->name);
}

/**
 * ep_tensor_fft2:
 * @self: a complex tensor (last axis 2: real, imaginary)
 * @s: (array length=n_s) (nullable): the lengths of the transform along
 *   the two axes (-1: the input's), or %NULL for the input's
 * @n_s: the number of lengths: 2, or 0
 * @axes: (array length=n_axes) (nullable): the two logical axes to
 *   transform, or %NULL for the last two (-2, -1)
 * @n_axes: the number of axes: 2, or 0
 * @norm: how the result is scaled
 * @error: return location for an error
 *
 * The two-dimensional discrete Fourier transform, as NumPy's `fft.fft2`:
 * [method@Tensor.fft] along the second axis, then along the first.
 *
 * Returns: (transfer full): the transform, or %NULL with an error set as
 *   [method@Tensor.fft] does, %EP_ERROR_INVALID_ARGUMENT if @axes or @s
 *   do not have two elements, or %EP_ERROR_AXIS for two equal axes
 */
EpTensor *
ep_tensor_fft2 (EpTensor      *self,
                const gint64  *s,
                guint          n_s,
                const gint64  *axes,
                guint          n_axes,
                EpFftNorm      norm,
                GError       **error)
{
  g_return_val_if_fail (EP_IS_TENSOR (self), NULL);

  return fft2_run (&ep_func_fft2, &ep_op_fft, &ep_op_fft, self, s, n_s, axes, n_axes, norm, error);
}

/**
 * ep_tensor_ifft2:
 * @self: a complex tensor (last axis 2: real, imaginary)
 * @s: (array length=n_s) (nullable): the lengths of the transform along
 *   the two axes (-1: the input's), or %NULL for the input's
 * @n_s: the number of lengths: 2, or 0
 * @axes: (array length=n_axes) (nullable): the two logical axes to
 *   transform, or %NULL for the last two (-2, -1)
 * @n_axes: the number of axes: 2, or 0
 * @norm: how the result is scaled
 * @error: return location for an error
 *
 * The inverse of [method@Tensor.fft2], as NumPy's `fft.ifft2`.
 *
 * Returns: (transfer full): the transform, or %NULL with an error set as
 *   [method@Tensor.fft2] does
 */
EpTensor *
ep_tensor_ifft2 (EpTensor      *self,
                 const gint64  *s,
                 guint          n_s,
                 const gint64  *axes,
                 guint          n_axes,
                 EpFftNorm      norm,
                 GError       **error)
{
  g_return_val_if_fail (EP_IS_TENSOR (self), NULL);

  return fft2_run (&ep_func_ifft2, &ep_op_ifft, &ep_op_ifft, self, s, n_s, axes, n_axes, norm, error);
}

/**
 * ep_tensor_rfft2:
 * @self: a real float32 or float64 tensor
 * @s: (array length=n_s) (nullable): the lengths of the transform along
 *   the two axes (-1: the input's), or %NULL for the input's
 * @n_s: the number of lengths: 2, or 0
 * @axes: (array length=n_axes) (nullable): the two axes to transform, or
 *   %NULL for the last two (-2, -1)
 * @n_axes: the number of axes: 2, or 0
 * @norm: how the result is scaled
 * @error: return location for an error
 *
 * The two-dimensional transform of real data, as NumPy's `fft.rfft2`:
 * [method@Tensor.rfft] along the second axis (which keeps `n/2 + 1`
 * bins), then [method@Tensor.fft] along the first.
 *
 * Returns: (transfer full): the complex half spectrum (last axis 2), or
 *   %NULL with an error set as [method@Tensor.fft2] does
 */
EpTensor *
ep_tensor_rfft2 (EpTensor      *self,
                 const gint64  *s,
                 guint          n_s,
                 const gint64  *axes,
                 guint          n_axes,
                 EpFftNorm      norm,
                 GError       **error)
{
  g_return_val_if_fail (EP_IS_TENSOR (self), NULL);

  return fft2_run (&ep_func_rfft2, &ep_op_fft, &ep_op_rfft, self, s, n_s, axes, n_axes, norm, error);
}

/**
 * ep_tensor_irfft2:
 * @self: a complex tensor (last axis 2: real, imaginary), the half
 *   spectrum of real data along the second axis
 * @s: (array length=n_s) (nullable): the lengths of the real result along
 *   the two axes (-1: the input's along the first, `2 (m - 1)` along the
 *   second), or %NULL for those
 * @n_s: the number of lengths: 2, or 0
 * @axes: (array length=n_axes) (nullable): the two logical axes to
 *   transform, or %NULL for the last two (-2, -1)
 * @n_axes: the number of axes: 2, or 0
 * @norm: how the result is scaled
 * @error: return location for an error
 *
 * The inverse of [method@Tensor.rfft2], as NumPy's `fft.irfft2`:
 * [method@Tensor.ifft] along the first axis, then [method@Tensor.irfft]
 * along the second.
 *
 * Returns: (transfer full): the real result, or %NULL with an error set
 *   as [method@Tensor.fft2] does
 */
EpTensor *
ep_tensor_irfft2 (EpTensor      *self,
                  const gint64  *s,
                  guint          n_s,
                  const gint64  *axes,
                  guint          n_axes,
                  EpFftNorm      norm,
                  GError       **error)
{
  gint64 lengths[2];
  gint canonical[2];
  g_autoptr(EpTensor) inner = NULL;
  EpTensor *result;

  g_return_val_if_fail (EP_IS_TENSOR (self), NULL);

  if (!fft2_arguments (&ep_func_irfft2, self, TRUE, s, n_s, axes, n_axes,
                       lengths, canonical, error))
    return NULL;

  inner = dispatch_fft (&ep_op_ifft, self, lengths[0], canonical[0], norm, error);
  result = inner != NULL ? dispatch_fft (&ep_op_irfft, inner, lengths[1], canonical[1], norm, error) : NULL;
  return ep_error_named_result (result, error, "irfft2");
}
