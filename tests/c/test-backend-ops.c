/* test-backend-ops.c: every op on every device against the CPU
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * In the manner of ggml's test-backend-ops: each case (an op, input
 * shapes, attributes) runs for every element type on the CPU and on each
 * other device, from the same data, and the results must agree: exactly
 * for exact ops, within a few units in the last place for transcendental
 * functions, within a summation tolerance for sums and products. Inputs
 * include broadcasting, 0-d and empty tensors, and non-contiguous views
 * (transposed, strided with an offset, broadcast with stride 0) built on
 * each device. When the CPU refuses a case (a dtype error), the device
 * must refuse it with the same error code.
 *
 * Shape specs: "3x4" is contiguous, "" is 0-d; a suffix makes a view of
 * that shape: t (transposed storage), s (every other element of a wider
 * tensor, at an offset), b (the first dimension broadcast, stride 0).
 */

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <eager-glib/eager-glib.h>

#include "ep-device-private.h"
#include "ep-dispatch-private.h"
#include "ep-scalar-private.h"
#include "ep-tensor-private.h"

typedef enum {
  DATA_RANDOM,
  DATA_SPECIAL,
  DATA_LABELS,      /* input `indexed`: int64 labels in [0, classes) */
  DATA_BAD_LABELS,  /* the same with two out of range */
  DATA_MASK,        /* input `indexed`: bool */
  DATA_DIAGONAL,    /* input 0: square matrices, a strong diagonal */
  DATA_ONES,        /* input 0: ones (singular matrices) */
} DataKind;

typedef struct
{
  const char *op;
  const char *inputs[5];
  const char *attrs;      /* by name, in GVariant text; NULL: the defaults */
  DataKind    data;
  gint64      classes;    /* with DATA_LABELS */
  guint       indexed;    /* with DATA_LABELS, DATA_MASK: which input (1-based) */
  guint       dtypes;     /* the dtypes to run, a bit for each; 0: all */
} Case;

#define ALL_DTYPES (EP_DTYPE_INT16 + 1)

/* Attributes, in GVariant text: "{" AXIS (1) ", " KEEPDIMS "}" */
#define AXIS(n) "'axis': <" #n ">"
#define AXES(...) "'axes': <[" #__VA_ARGS__ "]>"
#define KEEPDIMS "'keepdims': <true>"

/* The cases of every op whose schema is one or two tensors of any type
 * and no attribute (elementwise ops): made for each such op that has no
 * cases of its own below (all_cases ()). */
static const Case binary_cases[] = {
  { NULL, { "3x4", "3x4" } },
  { NULL, { "3x4", "4" } },
  { NULL, { "3x1", "1x4" } },
  { NULL, { "", "5" } },
  { NULL, { "7x5t", "7x5s" } },
  { NULL, { "4x3b", "4x3t" } },
  { NULL, { "2x1x3x1x2", "4x1x2" } },
  { NULL, { "33x65", "65" } },
  { NULL, { "0x3", "3" } },
  { NULL, { "6", "6" }, .data = DATA_SPECIAL },
};

static const Case unary_cases[] = {
  { NULL, { "3x4" } },
  { NULL, { "5x6t" } },
  { NULL, { "4x3s" } },
  { NULL, { "4x3b" } },
  { NULL, { "" } },
  { NULL, { "0" } },
  { NULL, { "1000" } },
  { NULL, { "14" }, .data = DATA_SPECIAL },
};

#define EXTREMUM_CASES(op)                                                  \
  { op, { "3x4x5" }, "{" AXIS (1) "}" },                                    \
  { op, { "3x4x5" }, "{" AXIS (0) ", " KEEPDIMS "}" },                      \
  { op, { "6x7t" }, "{" AXIS (1) "}" },                                     \
  { op, { "4x5s" } },                                                       \
  { op, { "4x5s" }, "{" KEEPDIMS "}" },                                     \
  { op, { "" }, "{" AXIS (0) "}" },                                         \
  { op, { "" }, "{" AXIS (-1) ", " KEEPDIMS "}" },                          \
  { op, { "3000" } },                                                       \
  { op, { "2x7" }, "{" AXIS (1) "}", .data = DATA_SPECIAL }

#define ROW_CASES(op)                                                       \
  { op, { "3x4x5" }, "{" AXIS (2) "}" },                                    \
  { op, { "3x4x5" }, "{" AXIS (0) "}" },                                    \
  { op, { "6x7t" }, "{" AXIS (1) "}" },                                     \
  { op, { "4x5s" }, "{" AXIS (0) "}" },                                     \
  { op, { "5" }, "{" AXIS (0) "}" },                                        \
  { op, { "0x3" }, "{" AXIS (1) "}" },                                      \
  { op, { "2x3000" }, "{" AXIS (1) "}" },                                   \
  { op, { "2x7" }, "{" AXIS (1) "}", .data = DATA_SPECIAL }

#define REDUCE_CASES(op)                                                    \
  { op, { "3x4x5" } },                                                      \
  { op, { "3x4x5" }, "{" AXES (0) "}" },                                    \
  { op, { "3x4x5" }, "{" AXES (1) ", " KEEPDIMS "}" },                      \
  { op, { "3x4x5" }, "{" AXES (2) "}" },                                    \
  { op, { "3x4x5" }, "{" AXES (0, 2) ", " KEEPDIMS "}" },                   \
  { op, { "6x7t" }, "{" AXES (1) "}" },                                     \
  { op, { "4x5s" }, "{" AXES (0) "}" },                                     \
  { op, { "4x5b" }, "{" AXES (0) "}" },                                     \
  { op, { "" } },                                                           \
  { op, { "" }, "{" AXES (0) "}" },                                         \
  { op, { "" }, "{" AXES (-1) ", " KEEPDIMS "}" },                          \
  { op, { "0x3" }, "{" AXES (0) "}" },                                      \
  { op, { "70000" } },                                                      \
  { op, { "5000x7" }, "{" AXES (1) "}" },                                   \
  { op, { "200x2000" }, "{" AXES (1) "}" },                                 \
  { op, { "2000x200" }, "{" AXES (0) "}" },                                 \
  { op, { "3x300t" }, "{" AXES (1) "}" },                                   \
  { op, { "2x14" }, "{" AXES (1) "}", .data = DATA_SPECIAL }

static const Case listed_cases[] = {
  /* creation */
  { "full", { NULL }, "{'shape': <[3, 4]>, 'value': <2.5>}" },
  { "full", { NULL }, "{'shape': <[7]>, 'value': <-1.7>}" },
  { "full", { NULL }, "{'shape': <@ax []>, 'value': <nan>}" },
  { "full", { NULL }, "{'shape': <[0, 5]>, 'value': <1.0>}" },
  { "arange", { NULL }, "{'start': <0.0>, 'stop': <10.0>, 'step': <1.0>}" },
  { "arange", { NULL }, "{'start': <1.5>, 'stop': <-2.0>, 'step': <-0.5>}" },
  { "arange", { NULL }, "{'start': <-3.0>, 'stop': <3.0>, 'step': <0.7>}" },
  { "arange", { NULL }, "{'start': <0.0>, 'stop': <3000.0>, 'step': <3.0>}" },
  { "arange", { NULL }, "{'start': <5.0>, 'stop': <5.0>, 'step': <1.0>}" },

  /* copies and layout */
  { "astype", { "3x4" } },
  { "astype", { "4x5t" } },
  { "astype", { "3x4s" } },
  { "astype", { "14" }, .data = DATA_SPECIAL },
  { "contiguous", { "5x6t" } },
  { "contiguous", { "4x3s" } },
  { "contiguous", { "4x3b" } },
  { "contiguous", { "2x3x4t" } },
  { "to_device", { "3x4" } },
  { "to_device", { "5x6t" } },
  { "to_device", { "" } },
  { "to_device", { "0x2" } },

  { "where", { "3x1", "4", "3x4" } },
  { "where", { "5x4t", "4", "" } },
  { "where", { "2x3s", "2x3b", "2x3" } },
  { "where", { "0x3", "3", "3" } },

  REDUCE_CASES ("sum"),
  REDUCE_CASES ("mean"),
  REDUCE_CASES ("max"),
  REDUCE_CASES ("min"),

  /* views: no kernels, but they must agree too */
  { "reshape", { "3x4t" }, "{'shape': <[2, 6]>}" },
  { "reshape", { "3x4" }, "{'shape': <[4, 3]>}" },
  { "transpose", { "2x3x4" }, "{'axes': <[2, 0, 1]>}" },
  { "expand_dims", { "3x4s" }, "{'axis': <1>}" },
  { "squeeze", { "1x3x1" } },

  /* functions and reductions */
  { "gelu", { "3x4" }, "{'approximate': <'none'>}" },
  { "gelu", { "5x6t" }, "{'approximate': <'tanh'>}" },
  { "gelu", { "4x3s" }, "{'approximate': <'none'>}" },
  { "gelu", { "14" }, "{'approximate': <'tanh'>}", .data = DATA_SPECIAL },
  { "gelu", { "14" }, "{'approximate': <'none'>}", .data = DATA_SPECIAL },
  { "clip", { "3x4" }, "{'min': <-1.0>, 'max': <1.5>}" },
  { "isclose", { "3x4", "3x4" }, "{'rtol': <1e-05>, 'atol': <1e-08>, 'equal_nan': <false>}" },
  { "isclose", { "3x1", "1x4" }, "{'rtol': <0.5>, 'atol': <0.25>, 'equal_nan': <false>}" },
  { "isclose", { "7x5t", "7x5s" }, "{'rtol': <2.0>, 'atol': <0.0>, 'equal_nan': <true>}" },
  { "isclose", { "0x3", "3" }, "{'rtol': <1e-05>, 'atol': <1e-08>, 'equal_nan': <false>}" },
  { "isclose", { "6", "6" }, "{'rtol': <1e-05>, 'atol': <1.0>, 'equal_nan': <false>}", .data = DATA_SPECIAL },
  { "isclose", { "6", "6" }, "{'rtol': <1e-05>, 'atol': <1.0>, 'equal_nan': <true>}", .data = DATA_SPECIAL },
  { "clip", { "5x6t" }, "{'min': <-inf>, 'max': <0.0>}" },
  { "clip", { "4x3s" }, "{'min': <nan>, 'max': <2.0>}" },
  { "clip", { "4x3b" }, "{'min': <-2.0>, 'max': <inf>}" },
  { "clip", { "14" }, "{'min': <-3000000000.0>, 'max': <5000000000.0>}", .data = DATA_SPECIAL },
  { "clip", { "14" }, "{'min': <2.0>, 'max': <-2.0>}", .data = DATA_SPECIAL },

  { "prod", { "3x4x5" } },
  { "prod", { "3x4x5" }, "{'axes': <[1]>, 'keepdims': <true>}" },
  { "prod", { "6x7t" }, "{'axes': <[0]>}" },
  { "prod", { "4x5s" }, "{'axes': <[1]>}" },
  { "prod", { "0x3" }, "{'axes': <[0]>}" },
  { "prod", { "" }, "{'axes': <[-1]>, 'keepdims': <true>}" },
  { "prod", { "300x40" }, "{'axes': <[1]>}" },
  { "prod", { "2x14" }, "{'axes': <[1]>}", .data = DATA_SPECIAL },
  REDUCE_CASES ("all"),
  REDUCE_CASES ("any"),
  REDUCE_CASES ("logsumexp"),
  ROW_CASES ("cumsum"),
  { "cumsum", { "4x5t" } },
  { "cumsum", { "" } },
  { "cumsum", { "" }, "{'axis': <0>}" },
  ROW_CASES ("cumprod"),
  { "cumprod", { "4x5t" } },
  { "cumprod", { "" } },
  EXTREMUM_CASES ("argmin"),
  EXTREMUM_CASES ("argmax"),
  ROW_CASES ("sort"),
  ROW_CASES ("argsort"),
  { "topk", { "3x9" }, "{'k': <3>, 'sorted': <true>}" },
  { "topk", { "3x9" }, "{'k': <4>, 'sorted': <false>}" },
  { "topk", { "5x6t" }, "{'k': <5>, 'sorted': <true>}" },
  { "topk", { "2x3000" }, "{'k': <10>, 'sorted': <true>}" },
  { "topk", { "2x3000" }, "{'k': <7>, 'sorted': <false>}" },
  { "topk", { "4x3s" }, "{'k': <0>, 'sorted': <true>}" },
  { "topk", { "2x7" }, "{'k': <7>, 'sorted': <true>}", .data = DATA_SPECIAL },
  /* issue 17 (ops): unsorted random rows give the positions a binary
   * search finds, the same on every device */
  { "searchsorted", { "9", "3x4" } },
  { "searchsorted", { "9", "4x3t" }, "{'side': <'right'>}" },
  { "searchsorted", { "3x7", "3x5" }, "{'side': <'right'>}" },
  { "searchsorted", { "5x6t", "5x2" } },
  { "searchsorted", { "7", "" }, NULL, .data = DATA_SPECIAL },
  { "searchsorted", { "0", "3" } },
  { "topk", { "" }, "{'k': <1>, 'sorted': <true>}" },
  /* norm */
  { "layer_norm", { "3x4x5", "5", "5" } },
  { "layer_norm", { "3x4x5", "4x5", "4x5" }, "{" AXIS (1) ", 'epsilon': <0.5>}" },
  { "layer_norm", { "6x7t", "7", "7s" } },
  { "layer_norm", { "4x5s", "4x5", "4x5" }, "{" AXIS (0) "}" },
  { "layer_norm", { "2x3000", "3000", "3000" } },
  { "layer_norm", { "0x3", "3", "3" } },
  { "batch_norm", { "4x3", "3", "3", "3", "3" }, "{'training': <true>}" },
  { "batch_norm", { "2x3x4x5", "3", "3", "3", "3" }, "{'training': <true>}" },
  { "batch_norm", { "2x3x4x5", "5", "5", "5", "5" }, "{'training': <true>, 'data_format': <'nhwc'>}" },
  { "batch_norm", { "6x7t", "7", "7", "7", "7" }, "{'training': <true>}" },
  { "batch_norm", { "5x300x3s", "300", "300", "300", "300" }, "{'training': <true>}" },
  { "batch_norm", { "0x3", "3", "3", "3", "3" }, "{'training': <true>}" },
  { "batch_norm", { "2x3x0", "3", "3", "3", "3" }, "{'training': <true>}" },
  { "batch_norm", { "2x3x4x5", "3", "3", "3", "3" } },
  { "batch_norm", { "2x3x4x5", "5", "5s", "5", "5" }, "{'data_format': <'nhwc'>}" },
  ROW_CASES ("softmax"),
  ROW_CASES ("log_softmax"),
#define LABELS(n) .data = DATA_LABELS, .classes = (n), .indexed = 2
#define BAD_LABELS(n) .data = DATA_BAD_LABELS, .classes = (n), .indexed = 2
  { "crossentropy", { "6x5", "6" }, LABELS (5) },
  { "crossentropy", { "5x6t", "6" }, LABELS (5) },
  { "crossentropy", { "300x10s", "300" }, LABELS (10) },
  { "crossentropy", { "6x5", "6" }, BAD_LABELS (5) },
  { "crossentropy", { "6x5", "6x2" }, LABELS (5) },
  { "onehot_like", { "6x5", "6" }, "{'value': <2.5>}", LABELS (5) },
  { "onehot_like", { "4x3t", "4" }, "{'value': <-1.0>}", LABELS (3) },
  { "onehot_like", { "6x5", "6" }, "{'value': <1.0>}", BAD_LABELS (5) },

  /* shapes and indexing */
  { "broadcast_to", { "3x1" }, "{'shape': <[2, 3, 4]>}" },
  { "flip", { "3x4x5" }, "{'axes': <[0, 2]>}" },
  { "slice", { "5x6" }, "{'starts': <[1, 0]>, 'stops': <[5, 6]>, 'steps': <[2, 3]>}" },
  { "concatenate", { "2x3", "4x3t", "1x3s" }, "{'axis': <0>}" },
  { "concatenate", { "3x2", "3x0", "3x4b" }, "{'axis': <1>}" },
  { "concatenate", { "", "" } },
  { "tile", { "2x3" }, "{'reps': <[2, 1, 3]>}" },
  { "tile", { "3x2t" }, "{'reps': <[2]>}" },
  { "tile", { "" }, "{'reps': <[4]>}" },
  { "pad", { "3x4" }, "{'paddings': <[1, 2, 0, 3]>, 'value': <7.5>, 'mode': <'constant'>}" },
  { "pad", { "4x3t" }, "{'paddings': <[2, 3, 1, 1]>, 'value': <0.0>, 'mode': <'reflect'>}" },
  { "pad", { "1x5s" }, "{'paddings': <[2, 2, 5, 0]>, 'value': <0.0>, 'mode': <'reflect'>}" },
  { "take", { "4x5", "7" }, "{'axis': <0>}", LABELS (4) },
  { "take", { "4x5t", "2x3" }, "{'axis': <1>}", LABELS (5) },
  { "take", { "6", "" }, "{'axis': <0>}", LABELS (6) },
  { "take_along_axis", { "4x5", "4x3" }, "{'axis': <1>}", LABELS (5) },
  { "take_along_axis", { "4x5s", "2x5" }, "{'axis': <0>}", LABELS (4) },
  { "mask", { "4x5", "4x5" }, .data = DATA_MASK, .indexed = 2 },
  { "mask", { "4x5t", "4" }, .data = DATA_MASK, .indexed = 2 },
  { "mask", { "700x3s", "700" }, .data = DATA_MASK, .indexed = 2 },
  /* issue 17 (ops): bincount's weights of each dtype (a host round
   * trip on OpenCL) */
  { "bincount", { "9", "9" }, .data = DATA_LABELS, .classes = 5, .indexed = 1 },
  { "bincount", { "300s", "300s" }, "{'minlength': <40>}", .data = DATA_LABELS, .classes = 20, .indexed = 1 },
  { "bincount", { "0", "0" }, "{'minlength': <3>}", .data = DATA_LABELS, .classes = 2, .indexed = 1 },
  { "index_update", { "5x4", "3", "3x4" }, "{'axis': <0>}", LABELS (5) },
  { "index_update", { "4x5t", "2x3", "4x2x3" }, "{'axis': <1>}", LABELS (5) },
  { "index_update", { "6", "9", "" }, "{'axis': <0>}", LABELS (6) },
  { "scatter_add", { "5x4", "7", "7x4" }, "{'axis': <0>}", LABELS (5) },
  { "scatter_add", { "4x5t", "2x3", "4x2x3" }, "{'axis': <1>}", LABELS (5) },
  { "scatter_add", { "6", "40", "40" }, "{'axis': <0>}", LABELS (6) },
  /* an index out of range: the kernels refuse it as the CPU does */
  { "take", { "4x5", "7" }, "{'axis': <0>}", BAD_LABELS (4) },
  { "take", { "4x5t", "2x3" }, "{'axis': <1>}", BAD_LABELS (5) },
  { "take_along_axis", { "4x5", "4x3" }, "{'axis': <1>}", BAD_LABELS (5) },
  { "take_along_axis", { "4x5s", "2x5" }, "{'axis': <0>}", BAD_LABELS (4) },
  { "index_update", { "5x4", "7", "7x4" }, "{'axis': <0>}", BAD_LABELS (5) },
  { "index_update", { "4x5t", "2x3", "4x2x3" }, "{'axis': <1>}", BAD_LABELS (5) },
  { "scatter_add", { "5x4", "7", "7x4" }, "{'axis': <0>}", BAD_LABELS (5) },
  { "scatter_add", { "6", "40", "40" }, "{'axis': <0>}", BAD_LABELS (6) },

  /* FFT (ops/fft.c): complex tensors end in an axis of 2; clFFT's
   * lengths (factors 2 to 13) and others (17, 19: a host round trip) */
#define FFT_FLOATS .dtypes = 1 << EP_DTYPE_FLOAT32 | 1 << EP_DTYPE_FLOAT64
  { "fft", { "3x8x2" }, "{'n': <-1>, 'axis': <-1>, 'norm': <'backward'>}", FFT_FLOATS },
  { "fft", { "5x3x2" }, "{'n': <7>, 'axis': <0>, 'norm': <'ortho'>}", FFT_FLOATS },
  { "fft", { "2x17x3x2" }, "{'n': <-1>, 'axis': <1>, 'norm': <'forward'>}", FFT_FLOATS },
  { "fft", { "0x4x2" }, "{'n': <-1>, 'axis': <-1>, 'norm': <'backward'>}", FFT_FLOATS },
  { "ifft", { "4x12x2" }, "{'n': <10>, 'axis': <1>, 'norm': <'backward'>}", FFT_FLOATS },
  { "ifft", { "19x2" }, "{'n': <-1>, 'axis': <0>, 'norm': <'ortho'>}", FFT_FLOATS },
  { "rfft", { "3x10" }, "{'n': <-1>, 'axis': <-1>, 'norm': <'backward'>}", FFT_FLOATS },
  { "rfft", { "5x4t" }, "{'n': <9>, 'axis': <0>, 'norm': <'forward'>}", FFT_FLOATS },
  { "rfft", { "2x17" }, "{'n': <-1>, 'axis': <1>, 'norm': <'ortho'>}", FFT_FLOATS },
  { "irfft", { "3x6x2" }, "{'n': <-1>, 'axis': <1>, 'norm': <'backward'>}", FFT_FLOATS },
  { "irfft", { "4x3x2" }, "{'n': <9>, 'axis': <0>, 'norm': <'ortho'>}", FFT_FLOATS },
  { "irfft", { "2x10x2" }, "{'n': <17>, 'axis': <1>, 'norm': <'forward'>}", FFT_FLOATS },

  /* collectives (ops/collective.c; issue 18): in one process, copies
   * through the host round trip; max and min take every dtype */
  { "all_reduce", { "3x4t" }, "{'op': <'max'>}" },
  { "all_reduce", { "0x3" }, "{'op': <'sum'>}", FFT_FLOATS },
  { "all_reduce", { "7" }, "{'op': <'mean'>}", FFT_FLOATS },
  { "broadcast", { "5s" }, "{'root': <0>}" },
  { "all_gather", { "2x3b" } },
  { "reduce_scatter", { "4x2" }, "{'op': <'min'>}" },

  /* LAPACK */
  { "inv", { "4x4" }, .data = DATA_DIAGONAL },
  { "inv", { "2x3x3t" }, .data = DATA_DIAGONAL },
  { "inv", { "1x1" }, .data = DATA_DIAGONAL },
  { "inv", { "40x40" }, .data = DATA_DIAGONAL },
  { "inv", { "2x3x3" }, .data = DATA_ONES },
  { "slogdet", { "4x4" }, .data = DATA_DIAGONAL },
  { "slogdet", { "2x5x5t" }, .data = DATA_DIAGONAL },
  { "slogdet", { "3x3" }, .data = DATA_ONES },
  { "slogdet", { "4x0x0" }, .data = DATA_DIAGONAL },
  { "solve", { "4x4", "4" }, .data = DATA_DIAGONAL },
  { "solve", { "2x3x3", "3x2" }, .data = DATA_DIAGONAL },
  { "solve", { "3x3t", "2x3x4" }, .data = DATA_DIAGONAL },
  { "solve", { "3x3", "3" }, .data = DATA_ONES },
  /* det … lstsq: a host round trip through the CPU's kernels */
  { "det", { "4x4" }, .data = DATA_DIAGONAL },
  { "det", { "2x3x3t" } },
  { "det", { "3x3" }, .data = DATA_ONES },
  { "det", { "4x0x0" } },
  { "cholesky", { "4x4" }, .data = DATA_DIAGONAL },
  { "cholesky", { "2x3x3t" }, .data = DATA_DIAGONAL },
  { "cholesky", { "3x3" }, .data = DATA_ONES },
  { "qr", { "5x3" } },
  { "qr", { "2x3x5t" } },
  { "svd", { "5x3" } },
  { "svd", { "2x3x4t" }, "{'full_matrices': <true>}" },
  { "eigh", { "4x4" }, .data = DATA_DIAGONAL },
  { "eigh", { "2x3x3t" }, "{'upper': <true>}", .data = DATA_DIAGONAL },
  { "lstsq", { "5x3", "5x2" } },
  { "lstsq", { "2x3x5t", "3" } },
  { "linspace", { NULL }, "{'start': <0.0>, 'stop': <1.0>, 'num': <5>, 'endpoint': <true>}" },
  { "linspace", { NULL }, "{'start': <-2.5>, 'stop': <10.0>, 'num': <7>, 'endpoint': <false>}" },
  { "linspace", { NULL }, "{'start': <3.0>, 'stop': <4.0>, 'num': <1>, 'endpoint': <true>}" },
  { "linspace", { NULL }, "{'start': <0.0>, 'stop': <1.0>, 'num': <0>, 'endpoint': <true>}" },
  { "linspace", { NULL }, "{'start': <0.001>, 'stop': <7.0>, 'num': <1000>, 'endpoint': <true>}" },
  { "eye", { NULL }, "{'n': <3>, 'm': <4>, 'k': <0>}" },
  { "eye", { NULL }, "{'n': <5>, 'm': <3>, 'k': <-1>}" },
  { "eye", { NULL }, "{'n': <4>, 'm': <4>, 'k': <2>}" },
  { "eye", { NULL }, "{'n': <3>, 'm': <3>, 'k': <7>}" },
  { "uniform", { NULL }, "{'shape': <[3, 5]>, 'seed': <42>, 'stream': <0>, 'low': <-1.0>, 'high': <2.0>}" },
  { "uniform", { NULL }, "{'shape': <[1001]>, 'seed': <7>, 'stream': <3>, 'low': <0.0>, 'high': <1.0>}" },
  { "uniform", { NULL }, "{'shape': <[2, 5]>, 'seed': <1>, 'stream': <1>, 'low': <5.0>, 'high': <5.0>}" },
  { "normal", { NULL }, "{'shape': <[3, 5]>, 'seed': <42>, 'stream': <0>, 'mean': <0.0>, 'stddev': <1.0>}" },
  { "normal", { NULL }, "{'shape': <[1001]>, 'seed': <9>, 'stream': <2>, 'mean': <0.5>, 'stddev': <2.0>}" },

  { "matmul", { "3x4", "4x5" } },
  { "matmul", { "4", "4x5" } },
  { "matmul", { "3x4", "4" } },
  { "matmul", { "4", "4" } },
  { "matmul", { "2x3x4", "4x5" } },
  { "matmul", { "2x1x3x4", "5x4x2" } },
  { "matmul", { "4x6t", "6x5t" } },
  { "matmul", { "3x4s", "4x5" } },
  { "matmul", { "2x3x4b", "4x2" } },
  { "matmul", { "0x4", "4x3" } },
  { "matmul", { "3x0", "0x2" } },
  { "matmul", { "37x64", "64x33" } },
  /* large enough for CLBlast (float32 only: each of its routines costs
   * seconds to compile on a cold cache) */
#define CONV_FLOATS .dtypes = 1 << EP_DTYPE_FLOAT32 | 1 << EP_DTYPE_FLOAT64
  { "conv2d", { "2x3x7x6", "4x3x3x2" }, NULL, CONV_FLOATS },
  { "conv2d", { "2x4x7x6t", "6x2x3x3" },
    "{'strides': <[2, 1]>, 'padding': <[1, 2]>, 'dilation': <[1, 2]>, 'groups': <int64 2>}", CONV_FLOATS },
  { "conv2d", { "1x6x7x4s", "4x2x2x3" },
    "{'strides': <[1, 2]>, 'padding': <[1]>, 'groups': <int64 2>, 'data_format': <'nhwc'>}", CONV_FLOATS },
  /* large enough for CLBlast's convgemm */
  { "conv2d", { "2x16x24x24", "32x16x3x3" }, "{'padding': <[1]>, 'strides': <[1]>}", CONV_FLOATS },
  { "conv2d_input_grad", { "2x6x4x6", "6x2x3x3" },
    "{'input_shape': <[2, 4, 7, 6]>, 'strides': <[2, 1]>, 'padding': <[1, 2]>, 'dilation': <[1, 2]>, "
    "'groups': <int64 2>}", CONV_FLOATS },
  { "conv2d_input_grad", { "1x4x3x4t", "4x6x2x2" },
    "{'input_shape': <[1, 6, 5, 6]>, 'strides': <[2]>, 'data_format': <'nhwc'>}", CONV_FLOATS },
  { "conv2d_weight_grad", { "2x4x7x6", "2x6x4x6" },
    "{'weight_shape': <[6, 2, 3, 3]>, 'strides': <[2, 1]>, 'padding': <[1, 2]>, 'dilation': <[1, 2]>, "
    "'groups': <int64 2>}", CONV_FLOATS },
  { "conv2d_weight_grad", { "1x6x5x6s", "1x3x4x4" },
    "{'weight_shape': <[4, 6, 2, 2]>, 'strides': <[2]>, 'data_format': <'nhwc'>}", CONV_FLOATS },
  { "matmul", { "70x80", "80x90" }, .dtypes = 1 << EP_DTYPE_FLOAT32 },
  { "matmul", { "3x1x70x80t", "2x80x90" }, .dtypes = 1 << EP_DTYPE_FLOAT32 },

#define POOL_FLOATS .dtypes = 1 << EP_DTYPE_FLOAT32 | 1 << EP_DTYPE_FLOAT64
#define POOL_3S2P1 "'kernel_size': <[3]>, 'strides': <[2]>, 'padding': <[1]>"
  { "max_pool2d", { "2x3x8x9" }, "{" POOL_3S2P1 "}", POOL_FLOATS },
  { "max_pool2d", { "2x3x8x9t" }, "{'kernel_size': <[2, 3]>, 'dilation': <[2, 1]>, 'ceil_mode': <true>}", POOL_FLOATS },
  { "max_pool2d", { "2x8x9x3s" }, "{" POOL_3S2P1 ", 'ceil_mode': <true>, 'data_format': <'nhwc'>}", POOL_FLOATS },
  { "max_pool2d", { "1x2x3x7" }, "{'kernel_size': <[2]>}", .data = DATA_SPECIAL, POOL_FLOATS },
  { "max_pool2d_indices", { "2x3x8x9" }, "{" POOL_3S2P1 ", 'ceil_mode': <true>}", POOL_FLOATS },
  { "max_pool2d_indices", { "2x8x9x3" }, "{'kernel_size': <[2]>, 'data_format': <'nhwc'>}", POOL_FLOATS },
  { "max_pool2d_grad", { "2x3x8x9", "2x3x4x5" }, "{" POOL_3S2P1 "}", POOL_FLOATS },
  { "max_pool2d_grad", { "2x8x9x3t", "2x4x5x3" }, "{" POOL_3S2P1 ", 'data_format': <'nhwc'>}", POOL_FLOATS },
  { "avg_pool2d", { "2x3x8x9" }, "{" POOL_3S2P1 "}", POOL_FLOATS },
  { "avg_pool2d", { "2x3x8x9s" }, "{" POOL_3S2P1 ", 'ceil_mode': <true>, 'count_include_pad': <false>}", POOL_FLOATS },
  { "avg_pool2d", { "2x8x9x3" }, "{'kernel_size': <[2, 3]>, 'padding': <[1]>, 'data_format': <'nhwc'>}", POOL_FLOATS },
  { "avg_pool2d_grad", { "2x3x4x5" }, "{'input_shape': <[2, 3, 8, 9]>, " POOL_3S2P1 ", 'count_include_pad': <false>}", POOL_FLOATS },
  { "avg_pool2d_grad", { "2x4x5x3t" }, "{'input_shape': <[2, 8, 9, 3]>, " POOL_3S2P1 ", 'data_format': <'nhwc'>}", POOL_FLOATS },
};

typedef struct
{
  EpDevice   *device;
  const Case *c;
  EpDType     dtype;
} Test;

static const char *const dtype_names[] = { "float32", "float64", "int32", "int64", "bool", "uint8", "int8", "int16" };

/* Shapes and views */

typedef struct
{
  gint64 shape[EP_MAX_DIMS];
  guint  ndim;
  char   view;   /* 0, 't', 's' or 'b' */
} Spec;

static void
parse_dims (const char *text,
            gint64     *shape,
            guint      *ndim)
{
  *ndim = 0;
  while (*text != '\0' && (g_ascii_isdigit (*text) || *text == '-'))
    {
      char *end;

      shape[(*ndim)++] = g_ascii_strtoll (text, &end, 10);
      text = *end == 'x' ? end + 1 : end;
    }
}

static void
parse_spec (const char *text,
            Spec       *spec)
{
  gsize len = strlen (text);

  memset (spec, 0, sizeof *spec);
  parse_dims (text, spec->shape, &spec->ndim);
  if (len > 0 && g_ascii_isalpha (text[len - 1]))
    spec->view = text[len - 1];
}

/* The contiguous tensor a view is cut from. */
static void
base_shape (const Spec *spec,
            gint64     *shape)
{
  memcpy (shape, spec->shape, spec->ndim * sizeof (gint64));
  switch (spec->view)
    {
    case 't':
      for (guint d = 0; d < spec->ndim; d++)
        shape[d] = spec->shape[spec->ndim - 1 - d];
      break;
    case 's':
      shape[spec->ndim - 1] = 2 * spec->shape[spec->ndim - 1] + 1;
      break;
    case 'b':
      shape[0] = 1;
      break;
    default:
      break;
    }
}

static EpTensor *
make_view (EpTensor   *base,
           const Spec *spec)
{
  EpLayout layout = base->layout;

  layout.ndim = spec->ndim;
  memcpy (layout.shape, spec->shape, spec->ndim * sizeof (gint64));
  switch (spec->view)
    {
    case 't':
      for (guint d = 0; d < spec->ndim; d++)
        layout.strides[d] = base->layout.strides[spec->ndim - 1 - d];
      break;
    case 's':
      layout.strides[spec->ndim - 1] *= 2;
      layout.offset += 1;
      break;
    case 'b':
      layout.strides[0] = 0;
      break;
    default:
      return g_object_ref (base);
    }

  return ep_tensor_new_with_storage (&layout, base->storage);
}

/* Data */

static gdouble
special_value (EpDType dtype,
               guint   i)
{
  static const gdouble floats[] = {
    NAN, INFINITY, -INFINITY, 0.0, -0.0, 1e-40, 3e9, -3e9, 2.5, -2.5, 0.5, 100, -100, 1e30,
  };
  static const gdouble ints[] = {
    -2147483648.0, 2147483647.0, -1, 0, 1, 4611686018427387904.0, -4611686018427387904.0,
    65536, -65536, 46341, 3, -7, 31, 63,
  };

  if (ep_dtype_is_floating (dtype))
    return floats[i % G_N_ELEMENTS (floats)];
  if (ep_dtype_is_integer (dtype))
    return ints[i % G_N_ELEMENTS (ints)];
  return i % 2;
}

static EpTensor *
make_labels (GRand      *rand,
             const Spec *spec,
             const Case *c)
{
  gint64 n = 1;
  g_autofree gdouble *values = NULL;
  g_autoptr(GError) error = NULL;
  EpTensor *tensor;

  for (guint d = 0; d < spec->ndim; d++)
    n *= spec->shape[d];
  values = g_new (gdouble, MAX (n, 1));
  for (gint64 i = 0; i < n; i++)
    values[i] = g_rand_int_range (rand, 0, c->classes);
  if (c->data == DATA_BAD_LABELS && n > 3)
    {
      values[2] = c->classes;
      values[3] = -1 - c->classes;
    }

  tensor = ep_tensor_new_from_doubles (values, n, spec->shape, spec->ndim, EP_DTYPE_INT64, &error);
  g_assert_no_error (error);
  return tensor;
}

static EpTensor *
make_input (GRand      *rand,
            const Spec *spec,
            EpDType     dtype,
            DataKind    data)
{
  gint64 shape[EP_MAX_DIMS];
  gint64 n = 1;
  g_autofree gdouble *values = NULL;
  g_autoptr(GError) error = NULL;
  EpTensor *tensor;

  base_shape (spec, shape);
  for (guint d = 0; d < spec->ndim; d++)
    n *= shape[d];

  values = g_new (gdouble, MAX (n, 1));
  for (gint64 i = 0; i < n; i++)
    {
      gint64 order = spec->ndim >= 2 ? shape[spec->ndim - 1] : 1;

      if (data == DATA_ONES)
        values[i] = 1;
      else if (data == DATA_DIAGONAL && dtype == EP_DTYPE_BOOL)
        values[i] = (i % (order * order)) / order == i % order;
      else if (data == DATA_DIAGONAL && (i % (order * order)) / order == i % order)
        values[i] = 4 * order + 10 + g_rand_int_range (rand, 0, 3);
      else if (data == DATA_SPECIAL)
        values[i] = special_value (dtype, i);
      else if (dtype == EP_DTYPE_BOOL)
        values[i] = g_rand_boolean (rand);
      else if (ep_dtype_is_integer (dtype))
        values[i] = g_rand_int_range (rand, -9, 10);
      else
        values[i] = g_rand_double_range (rand, -3.0, 3.0);
    }

  tensor = ep_tensor_new_from_doubles (values, n, shape, spec->ndim, dtype, &error);
  g_assert_no_error (error);
  return tensor;
}

/* Attributes */

static gboolean
has_attr_of_type (const EpOpDef *op,
                  EpAttrType     type)
{
  for (guint a = 0; a < op->n_attrs; a++)
    if (op->attrs[a].type == type)
      return TRUE;

  return FALSE;
}

/* The case's attributes by name, then the dtype and device of the run
 * for the ops that take them */
static void
case_attrs (const Case    *c,
            const EpOpDef *op,
            EpDType        dtype,
            EpDevice      *device,
            EpOpAttrs     *attrs)
{
  g_autoptr(GVariant) values = NULL;
  g_autoptr(GError) error = NULL;

  values = g_variant_parse (G_VARIANT_TYPE_VARDICT, c->attrs != NULL ? c->attrs : "@a{sv} {}",
                            NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_true (ep_op_attrs_set_from_variant (attrs, op, values, &error));
  g_assert_no_error (error);

  if (has_attr_of_type (op, EP_ATTR_DTYPE))
    attrs->dtype = dtype;
  if (has_attr_of_type (op, EP_ATTR_DEVICE))
    attrs->device = device;
}

/* The listed cases, then those of every elementwise op without cases
 * of its own, from its schema: one or two inputs of any type, no
 * attribute. */
static GArray *
all_cases (void)
{
  GArray *cases = g_array_new (FALSE, FALSE, sizeof (Case));

  g_array_append_vals (cases, listed_cases, G_N_ELEMENTS (listed_cases));
  for (EpOpId id = 0; id < EP_N_OPS; id++)
    {
      const EpOpDef *op = ep_op_get (id);
      const Case *templates = op->n_inputs == 1 ? unary_cases : binary_cases;
      guint n_templates = op->n_inputs == 1 ? G_N_ELEMENTS (unary_cases) : G_N_ELEMENTS (binary_cases);
      gboolean listed = FALSE, elementwise = op->n_attrs == 0 && !(op->flags & EP_OP_FLAG_VIEW)
                                             && (op->n_inputs == 1 || op->n_inputs == 2);

      for (guint i = 0; i < op->n_inputs; i++)
        elementwise &= !op->inputs[i].list && op->inputs[i].kind != EP_INPUT_INTEGER;
      for (guint i = 0; i < G_N_ELEMENTS (listed_cases); i++)
        listed |= g_str_equal (listed_cases[i].op, op->name);
      if (!elementwise || listed)
        continue;

      for (guint t = 0; t < n_templates; t++)
        {
          Case c = templates[t];

          c.op = op->name;
          g_array_append_val (cases, c);
        }
    }

  return cases;
}

/* Comparison */

typedef enum {
  EXACT,
  ULP,
  SUMMED,
  SOLVED,
} Tolerance;

static Tolerance
tolerance_of (const char *op,
              EpDType     dtype)
{
  static const char *const ulp_ops[] = {
    "exp", "log", "tanh", "sigmoid", "pow", "expm1", "log1p", "log2", "log10", "sin", "cos",
    "tan", "sinh", "cosh", "arcsin", "arccos", "arctan", "arcsinh", "arccosh", "arctanh",
    "softplus", "softmax", "log_softmax", "erf", "erfc", "gelu", NULL
  };
  static const char *const summed_ops[] = {
    "sum", "mean", "matmul", "prod", "logsumexp", "crossentropy", "normal", "cumsum", "cumprod",
    "conv2d", "conv2d_input_grad", "conv2d_weight_grad",
    "layer_norm", "batch_norm", "fft", "ifft", "rfft", "irfft", NULL
  };
  static const char *const solved_ops[] = { "inv", "slogdet", "solve", "det", "cholesky", "qr", "svd", "eigh",
                                            "lstsq", NULL };

  if (!ep_dtype_is_floating (dtype))
    return EXACT;
  if (g_strv_contains (ulp_ops, op))
    return ULP;
  if (g_strv_contains (summed_ops, op))
    return SUMMED;
  if (g_strv_contains (solved_ops, op))
    return SOLVED;
  return EXACT;
}

static gdouble
element (GBytes  *bytes,
         EpDType  dtype,
         gsize    i)
{
  const guint8 *data = g_bytes_get_data (bytes, NULL);

  return ep_scalar_load (data + i * ep_dtype_get_itemsize (dtype), dtype);
}

static void
assert_agree (EpTensor   *expected,
              EpTensor   *got,
              const char *op)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) want = NULL;
  g_autoptr(GBytes) have = NULL;
  EpDType dtype = expected->layout.dtype;
  gint64 n = ep_layout_get_size (&expected->layout);
  Tolerance tolerance = tolerance_of (op, dtype);
  gdouble eps = dtype == EP_DTYPE_FLOAT32 ? FLT_EPSILON : DBL_EPSILON;
  gdouble tiny = dtype == EP_DTYPE_FLOAT32 ? FLT_MIN : DBL_MIN;
  gdouble scale = 1.0;

  g_assert_cmpint (got->layout.dtype, ==, dtype);
  g_assert_cmpuint (got->layout.ndim, ==, expected->layout.ndim);
  for (guint d = 0; d < expected->layout.ndim; d++)
    g_assert_cmpint (got->layout.shape[d], ==, expected->layout.shape[d]);

  want = ep_tensor_to_bytes (expected, &error);
  g_assert_no_error (error);
  have = ep_tensor_to_bytes (got, &error);
  g_assert_no_error (error);

  if (!ep_dtype_is_floating (dtype))
    {
      gsize itemsize = ep_dtype_get_itemsize (dtype);

      for (gint64 i = 0; i < n; i++)
        if (memcmp ((const guint8 *) g_bytes_get_data (have, NULL) + i * itemsize,
                    (const guint8 *) g_bytes_get_data (want, NULL) + i * itemsize, itemsize) != 0)
          {
            g_test_fail_printf ("%s: element %" G_GINT64_FORMAT " is %.17g on the device, %.17g on the CPU",
                                op, i, element (have, dtype, i), element (want, dtype, i));
            return;
          }
      return;
    }

  for (gint64 i = 0; i < n; i++)
    if (isfinite (element (want, dtype, i)))
      scale = MAX (scale, fabs (element (want, dtype, i)));

  for (gint64 i = 0; i < n; i++)
    {
      gdouble w = element (want, dtype, i), h = element (have, dtype, i);
      gdouble allowed;

      if (isnan (w) || isnan (h) || isinf (w) || isinf (h) || tolerance == EXACT)
        {
          if (!(w == h || (isnan (w) && isnan (h))))
            {
              g_test_fail_printf ("%s: element %" G_GINT64_FORMAT " is %.17g on the device, %.17g on the CPU",
                                  op, i, h, w);
              return;
            }
          continue;
        }

      /* a few units in the last place, subnormal ones included */
      allowed = tolerance == ULP ? 4 * eps * MAX (MAX (fabs (w), fabs (h)), tiny)
                : tolerance == SUMMED ? 64 * eps * scale
                : 1024 * eps * scale;
      if (fabs (w - h) > allowed)
        {
          g_test_fail_printf ("%s: element %" G_GINT64_FORMAT " is %.17g on the device, %.17g on the CPU (allowed difference %g)",
                              op, i, h, w, allowed);
          return;
        }
    }
}

/* Running a case */

/* Every output of a call: topk's indices and slogdet's logabsdet are
 * compared as its first output is. */
typedef struct
{
  EpTensor *outputs[EP_MAX_OUTPUTS];
} Outputs;

static void
outputs_clear (Outputs *outputs)
{
  for (guint o = 0; o < EP_MAX_OUTPUTS; o++)
    g_clear_object (&outputs->outputs[o]);
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (Outputs, outputs_clear)

static gboolean
run_op (const EpOpDef  *op,
        EpTensor      **inputs,
        guint           n_inputs,
        const EpOpAttrs *attrs,
        Outputs        *outputs,
        GError        **error)
{
  outputs_clear (outputs);
  return ep_dispatch (op, inputs, n_inputs, attrs, outputs->outputs, error);
}

static void
assert_outputs_agree (const Outputs *expected,
                      const Outputs *got,
                      const char    *op)
{
  guint n = 0;

  for (guint o = 0; o < EP_MAX_OUTPUTS; o++)
    {
      g_assert_true ((expected->outputs[o] == NULL) == (got->outputs[o] == NULL));
      if (expected->outputs[o] == NULL)
        continue;
      assert_agree (expected->outputs[o], got->outputs[o], op);
      n++;
    }
  g_assert_cmpuint (n, >, 0);
}

static void
test_case (gconstpointer data)
{
  const Test *test = data;
  const Case *c = test->c;
  const EpOpDef *op = ep_op_lookup (c->op);
  EpDevice *cpu = ep_device_get_cpu ();
  g_autoptr(GRand) rand = g_rand_new_with_seed (20261122);
  EpTensor *cpu_inputs[5] = { NULL }, *device_inputs[5] = { NULL };
  g_auto(Outputs) expected = { { NULL } };
  g_auto(Outputs) got = { { NULL } };
  g_autoptr(GError) cpu_error = NULL;
  g_autoptr(GError) device_error = NULL;
  EpOpAttrs cpu_attrs, device_attrs;
  guint n_inputs = 0;
  EpDType target;

  g_assert_nonnull (op);

  if (!ep_device_supports_dtype (test->device, test->dtype))
    {
      g_test_skip ("the device does not compute in this type");
      return;
    }

  for (guint i = 0; i < G_N_ELEMENTS (c->inputs) && c->inputs[i] != NULL; i++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(EpTensor) cpu_base = NULL;
      g_autoptr(EpTensor) device_base = NULL;
      Spec spec;

      parse_spec (c->inputs[i], &spec);
      if ((c->data == DATA_LABELS || c->data == DATA_BAD_LABELS) && c->indexed == i + 1)
        cpu_base = make_labels (rand, &spec, c);
      else if (c->data == DATA_MASK && c->indexed == i + 1)
        cpu_base = make_input (rand, &spec, EP_DTYPE_BOOL, DATA_RANDOM);
      else
        cpu_base = make_input (rand, &spec, test->dtype, i == 0 ? c->data : DATA_RANDOM);
      device_base = ep_tensor_to_device (cpu_base, test->device, &error);
      g_assert_no_error (error);
      cpu_inputs[i] = make_view (cpu_base, &spec);
      device_inputs[i] = make_view (device_base, &spec);
      n_inputs++;
    }

  /* astype goes to every type; the others keep the case's type */
  for (target = 0; target < ALL_DTYPES; target++)
    {
      EpDType dtype = g_str_equal (c->op, "astype") ? target : test->dtype;

      case_attrs (c, op, dtype, g_str_equal (c->op, "to_device") ? test->device : cpu, &cpu_attrs);
      case_attrs (c, op, dtype, test->device, &device_attrs);

      if (g_str_equal (c->op, "to_device"))
        {
          /* there and back again: the same bytes */
          g_auto(Outputs) there = { { NULL } };
          g_autoptr(EpTensor) back = NULL;

          g_assert_true (run_op (op, cpu_inputs, 1, &cpu_attrs, &there, &cpu_error));
          g_assert_no_error (cpu_error);
          g_assert_true (there.outputs[0]->storage->device == test->device);
          back = ep_tensor_to_device (there.outputs[0], cpu, &device_error);
          g_assert_no_error (device_error);
          assert_agree (cpu_inputs[0], back, c->op);
          break;
        }

      g_clear_error (&cpu_error);
      g_clear_error (&device_error);
      run_op (op, cpu_inputs, n_inputs, &cpu_attrs, &expected, &cpu_error);
      run_op (op, device_inputs, n_inputs, &device_attrs, &got, &device_error);
      if (c->data == DATA_BAD_LABELS)
        g_assert_nonnull (cpu_error);

      if (cpu_error != NULL)
        {
          g_assert_nonnull (device_error);
          g_assert_cmpint (device_error->domain, ==, cpu_error->domain);
          g_assert_cmpint (device_error->code, ==, cpu_error->code);
          /* data the device refuses (indices, labels out of range) it
           * names as the CPU does */
          if (c->data == DATA_BAD_LABELS)
            g_assert_cmpstr (device_error->message, ==, cpu_error->message);
        }
      else
        {
          g_assert_no_error (device_error);
          g_assert_true (got.outputs[0]->storage->device == test->device);
          assert_outputs_agree (&expected, &got, c->op);
        }

      if (!g_str_equal (c->op, "astype"))
        break;
    }

  /* The same op on CPU inputs inside a device scope: inputs are copied
   * to the device transparently. */
  if (cpu_error == NULL && n_inputs > 0 && !g_str_equal (c->op, "to_device")
      && !g_str_equal (c->op, "astype")
      && !(op->flags & EP_OP_FLAG_VIEW) && !has_attr_of_type (op, EP_ATTR_DEVICE))
    {
      g_auto(Outputs) scoped = { { NULL } };

      g_assert_true (ep_device_push (test->device, NULL));
      run_op (op, cpu_inputs, n_inputs, &device_attrs, &scoped, &device_error);
      g_assert_true (ep_device_pop (test->device, NULL));
      g_assert_no_error (device_error);
      g_assert_true (scoped.outputs[0]->storage->device == test->device);
      assert_outputs_agree (&expected, &scoped, c->op);
    }

  for (guint i = 0; i < n_inputs; i++)
    {
      g_object_unref (cpu_inputs[i]);
      g_object_unref (device_inputs[i]);
    }
}

/* argsort of a 0-d tensor sorts its flattened (1,) view, as NumPy: not
 * an op of its own, so not a case of the table */
static void
test_argsort_0d (gconstpointer data)
{
  EpDevice *device = (EpDevice *) data;
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) cpu_scalar = ep_tensor_new_scalar (2.5, EP_DTYPE_FLOAT32, &error);
  g_autoptr(EpTensor) scalar = NULL;
  g_autoptr(EpTensor) expected = NULL;
  g_autoptr(EpTensor) got = NULL;

  g_assert_no_error (error);
  scalar = ep_tensor_to_device (cpu_scalar, device, &error);
  g_assert_no_error (error);
  expected = ep_tensor_argsort (cpu_scalar, 0, &error);
  g_assert_no_error (error);
  got = ep_tensor_argsort (scalar, -1, &error);
  g_assert_no_error (error);
  g_assert_true (got->storage->device == device);
  g_assert_cmpuint (expected->layout.ndim, ==, 1);
  assert_agree (expected, got, "argsort");
}

/* Every op with a kernel on a device has cases here; ops a device has
 * no kernel for are listed. */
static GArray *cases;

static void
test_coverage (gconstpointer data)
{
  EpDevice *device = (EpDevice *) data;
  g_autoptr(GString) missing = g_string_new (NULL);

  for (guint id = 0; id < EP_N_OPS; id++)
    {
      const EpOpDef *op = ep_op_get (id);
      gboolean has_case = FALSE;

      for (guint i = 0; i < cases->len; i++)
        has_case |= g_str_equal (g_array_index (cases, Case, i).op, op->name);

      if (op->flags & EP_OP_FLAG_VIEW)
        continue;
      if (device->backend->kernels[id] == NULL)
        g_string_append_printf (missing, " %s", op->name);
      else if (!has_case)
        g_error ("%s has a kernel on %s but no case in test-backend-ops", op->name, device->name);
    }

  if (missing->len > 0)
    g_test_message ("ops without a kernel on %s:%s", device->name, missing->str);
  g_test_message ("%s: every op with a kernel checked against cpu:0", device->name);
}

int
main (int argc, char **argv)
{
  g_autoptr(GPtrArray) devices = NULL;
  guint n_devices = 0;

  g_test_init (&argc, &argv, NULL);

  cases = all_cases ();
  devices = ep_list_devices ();
  for (guint d = 0; d < devices->len; d++)
    {
      EpDevice *device = g_ptr_array_index (devices, d);
      g_autofree char *coverage = NULL;
      g_autofree char *argsort_0d = NULL;

      if (device == ep_device_get_cpu ())
        continue;
      n_devices++;

      coverage = g_strdup_printf ("/backend-ops/%s/coverage", device->name);
      g_test_add_data_func (coverage, device, test_coverage);
      argsort_0d = g_strdup_printf ("/backend-ops/%s/argsort/0-d", device->name);
      g_test_add_data_func (argsort_0d, device, test_argsort_0d);

      for (guint i = 0; i < cases->len; i++)
        for (EpDType dtype = 0; dtype < ALL_DTYPES; dtype++)
          {
            const Case *c = &g_array_index (cases, Case, i);
            Test *test;
            GString *path;

            if (c->dtypes != 0 && !(c->dtypes & (1u << dtype)))
              continue;

            test = g_new0 (Test, 1);
            path = g_string_new (NULL);

            test->device = device;
            test->c = c;
            test->dtype = dtype;

            g_string_append_printf (path, "/backend-ops/%s/%s/%s/%u:", device->name,
                                    c->op, dtype_names[dtype], i);
            for (guint k = 0; k < G_N_ELEMENTS (c->inputs) && c->inputs[k] != NULL; k++)
              g_string_append_printf (path, "%s(%s)", k > 0 ? "," : "", c->inputs[k]);
            if (c->data == DATA_SPECIAL)
              g_string_append (path, "special");

            g_test_add_data_func_full (path->str, test, test_case, g_free);
            g_string_free (path, TRUE);
          }
    }

  if (n_devices == 0)
    {
      g_autofree char *why = g_strdup_printf ("no device besides cpu:0: %s",
                                              ep_device_get_unavailable_reason ("opencl"));

      g_test_add_data_func ("/backend-ops/no-device", why, (GTestDataFunc) g_test_skip);
      return g_test_run ();
    }

  return g_test_run ();
}
