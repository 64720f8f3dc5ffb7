/* ep-types.h
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#if !defined(EP_INSIDE) && !defined(EP_COMPILATION)
# error "Only <eager-glib/eager-glib.h> can be included directly."
#endif

#include <glib-object.h>

#include "ep-version.h"

G_BEGIN_DECLS

/**
 * EP_MAX_DIMS:
 *
 * The largest number of dimensions a tensor can have.
 */
#define EP_MAX_DIMS 8

/**
 * EP_AXIS_NONE:
 *
 * Given for an optional axis, asks for none: the op works on the
 * flattened tensor, as NumPy's `axis=None` ([method@Tensor.argmax],
 * [method@Tensor.cumsum], [method@Tensor.sort], [method@Tensor.take],
 * [func@concatenate] …). Bindings map their "none" (Python's `None`) to
 * it.
 */
#define EP_AXIS_NONE (-2147483647 - 1)

/**
 * EP_SLICE_START:
 *
 * A bound of [method@Tensor.slice] at the start of its axis, before the
 * first element: an omitted bound of Python's `x[start:stop:step]`
 * where the step walks towards the start (the start of `x[:3]`, the stop
 * of `x[::-1]`). Bounds clamp to the axis, so any bound further out
 * than the axis's length means the same (%G_MININT64 in C); this one is
 * -(2⁵³ - 1), beyond any axis and exact in a JavaScript number.
 *
 * ```vala
 * var reversed = x.slice ({ Ep.SLICE_END }, { Ep.SLICE_START }, { -1 });   // x[::-1]
 * ```
 */
#define EP_SLICE_START ((gint64) -9007199254740991)

/**
 * EP_SLICE_END:
 *
 * A bound of [method@Tensor.slice] at the end of its axis, past the last
 * element: an omitted bound where the step walks towards the end (the
 * stop of `x[1:]`, the start of `x[::-1]`). 2⁵³ - 1, exact in a JavaScript
 * number (which %G_MAXINT64 is not).
 *
 * ```vala
 * var tail = x.slice ({ 1 }, { Ep.SLICE_END }, null);   // x[1:]
 * ```
 */
#define EP_SLICE_END ((gint64) 9007199254740991)

/**
 * EpDType:
 * @EP_DTYPE_FLOAT32: 32-bit IEEE 754 floating point (the default)
 * @EP_DTYPE_FLOAT64: 64-bit IEEE 754 floating point
 * @EP_DTYPE_INT32: 32-bit signed integer
 * @EP_DTYPE_INT64: 64-bit signed integer
 * @EP_DTYPE_BOOL: boolean, one byte per element (0 or 1)
 * @EP_DTYPE_UINT8: 8-bit unsigned integer (image pixels): it converts
 *   ([method@Tensor.astype]), copies and views; elementwise arithmetic
 *   (wrapping), comparisons, extrema, sums, indexing and sorting take it;
 *   other ops take it after a cast
 * @EP_DTYPE_INT8: 8-bit signed integer; the ops that take uint8 take it,
 *   and negation and abs as well (wrapping, so abs of -128 is -128)
 * @EP_DTYPE_INT16: 16-bit signed integer; the same ops as int8
 * @EP_DTYPE_FLOAT16: 16-bit IEEE 754 half precision (NumPy's float16):
 *   stored in 16 bits, computed in float32 and rounded to nearest even
 * @EP_DTYPE_BFLOAT16: bfloat16, the upper 16 bits of a float32 (PyTorch's
 *   torch.bfloat16): stored in 16 bits, computed in float32 and rounded
 *   to nearest even
 *
 * The element type of a tensor.
 */
typedef enum {
  EP_DTYPE_FLOAT32,
  EP_DTYPE_FLOAT64,
  EP_DTYPE_INT32,
  EP_DTYPE_INT64,
  EP_DTYPE_BOOL,
  EP_DTYPE_UINT8,
  EP_DTYPE_INT8 = 6,
  EP_DTYPE_INT16 = 7,
  EP_DTYPE_FLOAT16 = 8,
  EP_DTYPE_BFLOAT16 = 9,
} EpDType;

EP_EXPORT
const char *ep_dtype_get_name     (EpDType dtype);
EP_EXPORT
gsize       ep_dtype_get_itemsize (EpDType dtype);
EP_EXPORT
gboolean    ep_dtype_is_floating  (EpDType dtype);
EP_EXPORT
gboolean    ep_dtype_is_integer   (EpDType dtype);
EP_EXPORT
EpDType     ep_dtype_promote      (EpDType a,
                                   EpDType b);

/**
 * EpPadMode:
 * @EP_PAD_CONSTANT: the new elements take a constant value
 * @EP_PAD_REFLECT: the new elements mirror the data around the edge
 *   element, which is not repeated (NumPy's `"reflect"`)
 *
 * How [method@Tensor.pad] fills the new elements.
 */
typedef enum {
  EP_PAD_CONSTANT,
  EP_PAD_REFLECT,
} EpPadMode;

/**
 * EpMeshIndexing:
 * @EP_MESH_XY: Cartesian indexing: with inputs of lengths m and n the
 *   outputs have shape (n, m) (NumPy's default)
 * @EP_MESH_IJ: matrix indexing: the outputs have shape (m, n)
 *
 * How [func@meshgrid] orders the dimensions of its outputs.
 */
typedef enum {
  EP_MESH_XY,
  EP_MESH_IJ,
} EpMeshIndexing;

/**
 * EpReduction:
 * @EP_REDUCTION_MEAN: the mean of the per-element losses (a scalar)
 * @EP_REDUCTION_SUM: their sum (a scalar)
 * @EP_REDUCTION_NONE: the per-element losses themselves
 *
 * How a loss ([method@Tensor.mse_loss], [method@Tensor.huber_loss],
 * [method@Tensor.softmax_crossentropy] …) reduces its per-element losses.
 */
typedef enum {
  EP_REDUCTION_MEAN,
  EP_REDUCTION_SUM,
  EP_REDUCTION_NONE,
} EpReduction;

/**
 * EpMatrixNorm:
 * @EP_MATRIX_NORM_FRO: the Frobenius norm, `sqrt (sum (x ** 2))`
 *   (NumPy's `ord="fro"`, its default for matrices)
 * @EP_MATRIX_NORM_NUC: the nuclear norm, the sum of the singular values
 *   (`ord="nuc"`)
 * @EP_MATRIX_NORM_INF: the largest sum of absolute values along a row
 *   (`ord=inf`)
 * @EP_MATRIX_NORM_NEG_INF: the smallest such sum (`ord=-inf`)
 * @EP_MATRIX_NORM_ONE: the largest sum of absolute values along a
 *   column (`ord=1`)
 * @EP_MATRIX_NORM_NEG_ONE: the smallest such sum (`ord=-1`)
 * @EP_MATRIX_NORM_TWO: the spectral norm, the largest singular value
 *   (`ord=2`)
 * @EP_MATRIX_NORM_NEG_TWO: the smallest singular value (`ord=-2`)
 *
 * Which norm [method@Tensor.matrix_norm] computes: the matrix orders of
 * NumPy's `linalg.norm`.
 */
typedef enum {
  EP_MATRIX_NORM_FRO,
  EP_MATRIX_NORM_NUC,
  EP_MATRIX_NORM_INF,
  EP_MATRIX_NORM_NEG_INF,
  EP_MATRIX_NORM_ONE,
  EP_MATRIX_NORM_NEG_ONE,
  EP_MATRIX_NORM_TWO,
  EP_MATRIX_NORM_NEG_TWO,
} EpMatrixNorm;

/**
 * EpSearchSide:
 * @EP_SEARCH_SIDE_LEFT: the first position where the value fits: the
 *   number of elements less than it
 * @EP_SEARCH_SIDE_RIGHT: the last such position: the number of elements
 *   less than or equal to it
 *
 * Which of the places where a value keeps a sorted sequence sorted
 * [method@Tensor.searchsorted] gives (NumPy's `side`).
 */
typedef enum {
  EP_SEARCH_SIDE_LEFT,
  EP_SEARCH_SIDE_RIGHT,
} EpSearchSide;

/**
 * EpGeluApproximation:
 * @EP_GELU_APPROXIMATION_NONE: the exact function `x Φ(x)`, through the
 *   error function
 * @EP_GELU_APPROXIMATION_TANH: the approximation
 *   `x/2 (1 + tanh (√(2/π) (x + 0.044715 x³)))`
 *
 * Which GELU [method@Tensor.gelu] computes: PyTorch's `approximate`
 * argument of `torch.nn.functional.gelu`, `"none"` or `"tanh"`.
 */
typedef enum {
  EP_GELU_APPROXIMATION_NONE,
  EP_GELU_APPROXIMATION_TANH,
} EpGeluApproximation;

/**
 * EpDataFormat:
 * @EP_DATA_FORMAT_NCHW: batch, channels, height, width (PyTorch's default)
 * @EP_DATA_FORMAT_NHWC: batch, height, width, channels (TensorFlow's default,
 *   PyTorch's channels-last)
 *
 * The order of the dimensions of images taken and made by convolutions,
 * pooling and batch normalisation. Weights keep one layout whatever the
 * data's: (out channels, in channels / groups, kernel height, kernel width).
 */
typedef enum {
  EP_DATA_FORMAT_NCHW,
  EP_DATA_FORMAT_NHWC,
} EpDataFormat;

/**
 * EpFftNorm:
 * @EP_FFT_NORM_BACKWARD: the forward transform unscaled, the inverse
 *   scaled by `1/n` (NumPy's default)
 * @EP_FFT_NORM_ORTHO: both scaled by `1/√n`, which makes them unitary
 * @EP_FFT_NORM_FORWARD: the forward transform scaled by `1/n`, the
 *   inverse unscaled
 *
 * How the discrete Fourier transforms ([method@Tensor.fft] and the
 * others of `ep-fft.h`) scale their results: NumPy's and PyTorch's `norm`
 * argument, `"backward"`, `"ortho"` or `"forward"`.
 */
typedef enum {
  EP_FFT_NORM_BACKWARD,
  EP_FFT_NORM_ORTHO,
  EP_FFT_NORM_FORWARD,
} EpFftNorm;

/* issue 18 (mpi) */
/**
 * EpReduceOp:
 * @EP_REDUCE_OP_SUM: the sum of the processes' values
 * @EP_REDUCE_OP_MEAN: their mean: the sum divided by the number of
 *   processes (floating-point tensors only)
 * @EP_REDUCE_OP_MAX: the largest value
 * @EP_REDUCE_OP_MIN: the smallest value
 *
 * How [method@Communicator.all_reduce] and
 * [method@Communicator.reduce_scatter] combine the processes' tensors,
 * element by element: `torch.distributed.ReduceOp`'s `SUM`, `AVG`,
 * `MAX` and `MIN`.
 */
typedef enum {
  EP_REDUCE_OP_SUM,
  EP_REDUCE_OP_MEAN,
  EP_REDUCE_OP_MAX,
  EP_REDUCE_OP_MIN,
} EpReduceOp;

G_END_DECLS
