/* test-gradcheck.c: every gradient rule against central differences
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Each case runs an op on random float64 inputs, takes the gradient of
 * sum(w * op(inputs)) for a random weight w with a tape, and compares it
 * with central finite differences of the same sum. A coverage test fails
 * when an op with a gradient rule has no case here. Second derivatives of
 * the elementwise ops go through nested tapes and are compared with
 * central differences of the first derivative.
 *
 * The staged pass (/gradcheck/staged/...) runs every case again through
 * an EpFunction of its op, traced on other inputs first: the tape
 * around the calls records the replayed graph, and the finite
 * differences replay it too.
 */

#include <math.h>
#include <string.h>

#include <eager-glib/eager-glib.h>

#include "ep-autodiff-private.h"
#include "ep-dispatch-private.h"
#include "ep-jvp-private.h"
#include "ep-op-private.h"

typedef EpTensor *(*OpFunc) (EpTensor **in, GError **error);

typedef enum {
  ANY,        /* [-2, 2] */
  POSITIVE,   /* [0.5, 2] */
  NONZERO,    /* [-2, -0.2] ∪ [0.2, 2]: away from kinks and poles */
  UNIT,       /* [-0.9, 0.9]: arcsin, arccos, arctanh, tan */
  ABOVE_ONE,  /* [1.2, 3]: arccosh */
} Domain;

typedef struct
{
  guint   ndim;
  gint64  dims[4];
} Shape;

typedef struct
{
  const char *name;
  const char *op;            /* the op whose rule this covers */
  guint       n_inputs;
  Shape       shapes[3];
  Domain      domains[3];
  OpFunc      func;
  gdouble     h;             /* 0: 1e-6 */
  gdouble     tolerance;     /* 0: 1e-6 */
} Case;

#define S0 { 0, { 0 } }
#define S1(a) { 1, { a } }
#define S2(a, b) { 2, { a, b } }
#define S3(a, b, c) { 3, { a, b, c } }
#define S4(a, b, c, d) { 4, { a, b, c, d } }

/* The ops, as functions of an array of inputs */

#define BINARY(fn) \
  static EpTensor *op_##fn (EpTensor **in, GError **e) { return ep_tensor_##fn (in[0], in[1], e); }
#define UNARY(fn) \
  static EpTensor *op_##fn (EpTensor **in, GError **e) { return ep_tensor_##fn (in[0], e); }

BINARY (add)
BINARY (sub)
BINARY (mul)
BINARY (div)
BINARY (pow)
BINARY (matmul)
UNARY (neg)
UNARY (abs)
UNARY (square)
UNARY (sqrt)
UNARY (exp)
UNARY (log)
UNARY (tanh)
UNARY (sigmoid)
UNARY (relu)

/* the math family (issue 3) */
BINARY (floordiv)
BINARY (mod)
BINARY (minimum)
BINARY (maximum)
UNARY (expm1)
UNARY (log1p)
UNARY (log2)
UNARY (log10)
UNARY (sin)
UNARY (cos)
UNARY (tan)
UNARY (sinh)
UNARY (cosh)
UNARY (arcsin)
UNARY (arccos)
UNARY (arctan)
UNARY (arcsinh)
UNARY (arccosh)
UNARY (arctanh)
UNARY (softplus)
UNARY (sign)
UNARY (round)
UNARY (ceil)
UNARY (floor)
UNARY (erf)
UNARY (erfc)
static EpTensor *op_gelu (EpTensor **in, GError **e) { return ep_tensor_gelu (in[0], EP_GELU_APPROXIMATION_NONE, e); }
static EpTensor *op_gelu_tanh (EpTensor **in, GError **e) { return ep_tensor_gelu (in[0], EP_GELU_APPROXIMATION_TANH, e); }

static EpTensor *op_clip (EpTensor **in, GError **e) { return ep_tensor_clip (in[0], -1.0, 1.0, e); }
static EpTensor *op_prod_axis (EpTensor **in, GError **e)
{
  const gint axes[] = { 1 };

  return ep_tensor_prod (in[0], axes, 1, FALSE, e);
}
static EpTensor *op_prod_all (EpTensor **in, GError **e) { return ep_tensor_prod (in[0], NULL, 0, TRUE, e); }
static EpTensor *op_cumsum_axis (EpTensor **in, GError **e) { return ep_tensor_cumsum (in[0], -1, e); }
static EpTensor *op_cumsum_flat (EpTensor **in, GError **e) { return ep_tensor_cumsum (in[0], EP_AXIS_NONE, e); }
static EpTensor *op_cumprod_axis (EpTensor **in, GError **e) { return ep_tensor_cumprod (in[0], -1, e); }
static EpTensor *op_cumprod_flat (EpTensor **in, GError **e) { return ep_tensor_cumprod (in[0], EP_AXIS_NONE, e); }
static EpTensor *op_softmax (EpTensor **in, GError **e) { return ep_tensor_softmax (in[0], 0, e); }
static EpTensor *op_log_softmax (EpTensor **in, GError **e) { return ep_tensor_log_softmax (in[0], -1, e); }
static EpTensor *op_logsumexp (EpTensor **in, GError **e)
{
  const gint axes[] = { 0, 2 };

  return ep_tensor_logsumexp (in[0], axes, 2, TRUE, e);
}
static EpTensor *op_logsumexp_all (EpTensor **in, GError **e) { return ep_tensor_logsumexp (in[0], NULL, 0, FALSE, e); }
static EpTensor *op_crossentropy (EpTensor **in, GError **e)
{
  const gdouble classes[] = { 2, 0, 1, 2 };
  const gint64 n = 4;
  g_autoptr(EpTensor) labels = ep_tensor_new_from_doubles (classes, 4, &n, 1, EP_DTYPE_INT64, e);

  return labels ? ep_tensor_crossentropy (in[0], labels, e) : NULL;
}

static EpTensor *op_softmax_crossentropy (EpTensor **in, GError **e)
{
  return ep_tensor_softmax_crossentropy (in[0], in[1], EP_REDUCTION_MEAN, e);
}
static EpTensor *op_sparse_softmax_crossentropy (EpTensor **in, GError **e)
{
  const gdouble classes[] = { 2, 0, 1, 2 };
  const gint64 n = 4;
  g_autoptr(EpTensor) labels = ep_tensor_new_from_doubles (classes, 4, &n, 1, EP_DTYPE_INT64, e);

  return labels ? ep_tensor_sparse_softmax_crossentropy (in[0], labels, EP_REDUCTION_SUM, e) : NULL;
}
static EpTensor *op_sigmoid_crossentropy (EpTensor **in, GError **e)
{
  return ep_tensor_sigmoid_crossentropy (in[0], in[1], EP_REDUCTION_NONE, e);
}
static EpTensor *op_mse_loss (EpTensor **in, GError **e) { return ep_tensor_mse_loss (in[0], in[1], EP_REDUCTION_MEAN, e); }
static EpTensor *op_huber_loss (EpTensor **in, GError **e)
{
  return ep_tensor_huber_loss (in[0], in[1], 0.5, EP_REDUCTION_NONE, e);
}

static EpTensor *op_sort (EpTensor **in, GError **e) { return ep_tensor_sort (in[0], 0, e); }
static EpTensor *op_sort_last (EpTensor **in, GError **e) { return ep_tensor_sort (in[0], -1, e); }
/* var and std: composites of mean, sub, square, sum */
static EpTensor *op_var (EpTensor **in, GError **e)
{
  return ep_tensor_var (in[0], (const gint[]) { 0, 2 }, 2, FALSE, 1.0, e);
}
static EpTensor *op_std (EpTensor **in, GError **e) { return ep_tensor_std (in[0], NULL, 0, TRUE, 0.0, e); }

/* norm: every output of batch_norm enters the objective (out + mean +
 * var, the channels last); parameters that are not inputs are constants */
static EpTensor *op_layer_norm (EpTensor **in, GError **e)
{
  return ep_tensor_layer_norm (in[0], in[1], in[2], 1, 1e-3, e);
}
static EpTensor *
batch_norm_sum (EpTensor *x, EpTensor *rm, EpTensor *rv, EpTensor *w, EpTensor *b,
                gboolean training, EpDataFormat format, GError **e)
{
  g_autoptr(EpTensor) out = NULL, mean = NULL, var = NULL, partial = NULL;

  if (!ep_tensor_batch_norm (x, rm, rv, w, b, training, 1e-3, format, &out, &mean, &var, e)
      || (partial = ep_tensor_add (out, mean, e)) == NULL)
    return NULL;
  return ep_tensor_add (partial, var, e);
}
static EpTensor *
channel_constant (gdouble first, GError **e)
{
  const gint64 shape[] = { 3 };

  return ep_tensor_new_from_doubles ((const gdouble[]) { first, first + 0.5, first + 1 }, 3,
                                     shape, 1, EP_DTYPE_FLOAT64, e);
}
static EpTensor *op_batch_norm_train (EpTensor **in, GError **e)
{
  g_autoptr(EpTensor) rm = channel_constant (0.0, e), rv = channel_constant (1.0, e);

  return batch_norm_sum (in[0], rm, rv, in[1], in[2], TRUE, EP_DATA_FORMAT_NCHW, e);
}
static EpTensor *op_batch_norm_train_nhwc (EpTensor **in, GError **e)
{
  g_autoptr(EpTensor) rm = channel_constant (0.0, e), rv = channel_constant (1.0, e);

  return batch_norm_sum (in[0], rm, rv, in[1], in[2], TRUE, EP_DATA_FORMAT_NHWC, e);
}
static EpTensor *op_batch_norm_eval (EpTensor **in, GError **e)
{
  g_autoptr(EpTensor) w = channel_constant (0.5, e), b = channel_constant (-1.0, e);

  return batch_norm_sum (in[0], in[1], in[2], w, b, FALSE, EP_DATA_FORMAT_NHWC, e);
}
static EpTensor *op_topk (EpTensor **in, GError **e)
{
  EpTensor *values = NULL;
  g_autoptr(EpTensor) indices = NULL;

  if (!ep_tensor_topk (in[0], 2, TRUE, &values, &indices, e))
    return NULL;
  return values;
}

/* the shape family */
static EpTensor *
int_tensor (const gdouble *values, gint64 n, GError **e)
{
  return ep_tensor_new_from_doubles (values, n, &n, 1, EP_DTYPE_INT64, e);
}

static EpTensor *op_broadcast_to (EpTensor **in, GError **e)
{
  const gint64 shape[] = { 2, 3, 4 };

  return ep_tensor_broadcast_to (in[0], shape, 3, e);
}
static EpTensor *op_flip (EpTensor **in, GError **e)
{
  const gint axes[] = { 0, 2 };

  return ep_tensor_flip (in[0], axes, 2, e);
}
static EpTensor *op_slice (EpTensor **in, GError **e)
{
  const gint64 starts[] = { 1, 4 }, stops[] = { 4, -6 }, steps[] = { 2, -2 };

  return ep_tensor_slice (in[0], starts, 2, stops, 2, steps, 2, e);
}
/* forward mode (issue 17): a slice to the start with a negative step
 * (canonical stop -1, which means the end when read anew) */
static EpTensor *op_slice_reversed (EpTensor **in, GError **e)
{
  const gint64 starts[] = { -1, 3 }, stops[] = { -100, -100 }, steps[] = { -1, -2 };

  return ep_tensor_slice (in[0], starts, 2, stops, 2, steps, 2, e);
}
static EpTensor *op_concatenate (EpTensor **in, GError **e) { return ep_concatenate (in, 3, 1, e); }
static EpTensor *op_stack (EpTensor **in, GError **e) { return ep_stack (in, 2, -1, e); }
static EpTensor *op_roll (EpTensor **in, GError **e) { return ep_tensor_roll (in[0], -4, 1, e); }
static EpTensor *op_roll_flat (EpTensor **in, GError **e) { return ep_tensor_roll (in[0], 7, EP_AXIS_NONE, e); }
static EpTensor *op_repeat (EpTensor **in, GError **e) { return ep_tensor_repeat (in[0], 3, 0, e); }
static EpTensor *op_repeat_flat (EpTensor **in, GError **e) { return ep_tensor_repeat (in[0], 2, EP_AXIS_NONE, e); }
static EpTensor *op_einsum_bilinear (EpTensor **in, GError **e) { return ep_einsum (in, 3, "bi,bij,bj->b", e); }
static EpTensor *op_einsum_diagonal (EpTensor **in, GError **e) { return ep_einsum (in, 1, "iij->ji", e); }
static EpTensor *op_roll_axes (EpTensor **in, GError **e)
{
  static const gint64 shifts[] = { 1, -4 };
  static const gint axes[] = { 0, 1 };

  return ep_tensor_roll_axes (in[0], shifts, 2, axes, 2, e);
}
static EpTensor *op_repeat_counts (EpTensor **in, GError **e)
{
  g_autoptr(EpTensor) counts = ep_arange_int (0, 3, 1, EP_DTYPE_INT64, e);

  return counts != NULL ? ep_tensor_repeat_counts (in[0], counts, 1, e) : NULL;
}
static EpTensor *op_diff (EpTensor **in, GError **e) { return ep_tensor_diff (in[0], 2, 0, e); }
static EpTensor *op_diff_last (EpTensor **in, GError **e) { return ep_tensor_diff (in[0], 1, -1, e); }
static EpTensor *op_tile (EpTensor **in, GError **e)
{
  const gint64 reps[] = { 2, 1, 3 };

  return ep_tensor_tile (in[0], reps, 3, e);
}
static EpTensor *op_max_pool2d (EpTensor **in, GError **e)
{
  const gint64 k[] = { 3 }, s[] = { 2 }, p[] = { 1 };

  return ep_tensor_max_pool2d (in[0], k, 1, s, 1, p, 1, NULL, 0, TRUE, EP_DATA_FORMAT_NCHW, e);
}
static EpTensor *op_max_pool2d_nhwc (EpTensor **in, GError **e)
{
  const gint64 k[] = { 2, 3 }, s[] = { 1 }, d[] = { 2, 1 };

  return ep_tensor_max_pool2d (in[0], k, 2, s, 1, NULL, 0, d, 2, FALSE, EP_DATA_FORMAT_NHWC, e);
}
static EpTensor *op_avg_pool2d (EpTensor **in, GError **e)
{
  const gint64 k[] = { 3 }, s[] = { 2 }, p[] = { 1 };

  return ep_tensor_avg_pool2d (in[0], k, 1, s, 1, p, 1, TRUE, FALSE, EP_DATA_FORMAT_NCHW, e);
}
static EpTensor *op_avg_pool2d_nhwc (EpTensor **in, GError **e)
{
  const gint64 k[] = { 2, 3 }, p[] = { 1 };

  return ep_tensor_avg_pool2d (in[0], k, 2, NULL, 0, p, 1, FALSE, TRUE, EP_DATA_FORMAT_NHWC, e);
}
/* the gradients as functions of the incoming gradient, at fixed images */
static EpTensor *op_max_pool2d_grad (EpTensor **in, GError **e)
{
  const gint64 k[] = { 3 }, s[] = { 2 }, p[] = { 1 }, shape[] = { 2, 3, 5, 6 };
  gdouble images[2 * 3 * 5 * 6];
  g_autoptr(EpTensor) x = NULL;

  for (guint i = 0; i < G_N_ELEMENTS (images); i++)
    images[i] = sin (1.7 * i);
  x = ep_tensor_new_from_doubles (images, G_N_ELEMENTS (images), shape, 4, EP_DTYPE_FLOAT64, e);
  return x != NULL ? ep_tensor_max_pool2d_grad (x, in[0], k, 1, s, 1, p, 1, NULL, 0, FALSE,
                                                EP_DATA_FORMAT_NCHW, e) : NULL;
}
static EpTensor *op_avg_pool2d_grad (EpTensor **in, GError **e)
{
  const gint64 k[] = { 3 }, s[] = { 2 }, p[] = { 1 }, shape[] = { 2, 3, 5, 6 };

  return ep_avg_pool2d_grad (in[0], shape, 4, k, 1, s, 1, p, 1, FALSE, FALSE, EP_DATA_FORMAT_NCHW, e);
}
static EpTensor *op_pad_constant (EpTensor **in, GError **e)
{
  const gint64 pads[] = { 1, 2, 0, 1 };

  return ep_tensor_pad (in[0], pads, 4, EP_PAD_CONSTANT, 7.0, e);
}
static EpTensor *op_pad_reflect (EpTensor **in, GError **e)
{
  const gint64 pads[] = { 2, 3 };

  return ep_tensor_pad (in[0], pads, 2, EP_PAD_REFLECT, 0.0, e);
}
static EpTensor *op_take (EpTensor **in, GError **e)
{
  const gdouble idx[] = { 2, 0, 2, -1 };
  g_autoptr(EpTensor) indices = int_tensor (idx, 4, e);

  return indices ? ep_tensor_take (in[0], indices, 1, e) : NULL;
}
static EpTensor *op_embedding (EpTensor **in, GError **e)
{
  const gdouble idx[] = { 2, 0, 2, 1, 2, 0 };
  g_autoptr(EpTensor) indices = int_tensor (idx, 6, e);
  g_autoptr(EpTensor) rows = indices ? ep_tensor_reshape (indices, (const gint64[]) { 2, 3 }, 2, e) : NULL;

  return rows ? ep_embedding (rows, in[0], e) : NULL;
}
static EpTensor *op_take_along_axis (EpTensor **in, GError **e)
{
  const gdouble idx[] = { 2, 0, 1, 1, 0, 0 };
  const gint64 shape[] = { 2, 3 };
  g_autoptr(EpTensor) indices = ep_tensor_new_from_doubles (idx, 6, shape, 2, EP_DTYPE_INT64, e);

  return indices ? ep_tensor_take_along_axis (in[0], indices, 1, e) : NULL;
}
static EpTensor *op_mask (EpTensor **in, GError **e)
{
  const gdouble keep[] = { 1, 0, 1, 1, 0, 0 };
  const gint64 shape[] = { 2, 3 };
  g_autoptr(EpTensor) mask = ep_tensor_new_from_doubles (keep, 6, shape, 2, EP_DTYPE_BOOL, e);

  return mask ? ep_tensor_mask (in[0], mask, e) : NULL;
}
static EpTensor *op_index_update (EpTensor **in, GError **e)
{
  const gdouble idx[] = { 0, 2 };
  g_autoptr(EpTensor) indices = int_tensor (idx, 2, e);

  return indices ? ep_tensor_index_update (in[0], indices, in[1], 0, e) : NULL;
}
static EpTensor *op_scatter_add (EpTensor **in, GError **e)
{
  const gdouble idx[] = { 1, 1, 0 };
  g_autoptr(EpTensor) indices = int_tensor (idx, 3, e);

  return indices ? ep_tensor_scatter_add (in[0], indices, in[1], -1, e) : NULL;
}

/* x + 6 I: well conditioned for any x in [-2, 2]^(3×3) */
static EpTensor *
conditioned (EpTensor *x, GError **e)
{
  g_autoptr(EpTensor) eye = ep_eye (3, 3, 0, EP_DTYPE_FLOAT64, e);
  g_autoptr(EpTensor) scaled = eye ? ep_tensor_mul_scalar (eye, 6.0, e) : NULL;

  return scaled ? ep_tensor_add (x, scaled, e) : NULL;
}
static EpTensor *op_inv (EpTensor **in, GError **e)
{
  g_autoptr(EpTensor) a = conditioned (in[0], e);

  return a ? ep_tensor_inv (a, e) : NULL;
}
static EpTensor *op_slogdet (EpTensor **in, GError **e)
{
  g_autoptr(EpTensor) a = conditioned (in[0], e);
  EpTensor *logabsdet = NULL;

  if (a == NULL || !ep_tensor_slogdet (a, NULL, &logabsdet, e))
    return NULL;
  return logabsdet;
}
static EpTensor *op_solve (EpTensor **in, GError **e)
{
  g_autoptr(EpTensor) a = conditioned (in[0], e);

  return a ? ep_tensor_solve (a, in[1], e) : NULL;
}

/* det, cholesky, qr, svd, eigh, lstsq: functions of the factors that
 * do not depend on LAPACK's choice of signs where there is one (U Vᵀ,
 * |U|, |V|), as PyTorch's checks do */
static EpTensor *op_det (EpTensor **in, GError **e)
{
  g_autoptr(EpTensor) a = conditioned (in[0], e);

  return a ? ep_tensor_det (a, e) : NULL;
}
static EpTensor *op_cholesky (EpTensor **in, GError **e)
{
  g_autoptr(EpTensor) xt = ep_tensor_transpose (in[0], NULL, 0, e);
  g_autoptr(EpTensor) gram = xt ? ep_tensor_matmul (in[0], xt, e) : NULL;
  g_autoptr(EpTensor) a = gram ? conditioned (gram, e) : NULL;

  return a ? ep_tensor_cholesky (a, e) : NULL;
}
static EpTensor *op_qr (EpTensor **in, GError **e)
{
  g_autoptr(EpTensor) q = NULL;
  g_autoptr(EpTensor) r = NULL;
  g_autoptr(EpTensor) flat_q = NULL;
  g_autoptr(EpTensor) flat_r = NULL;
  EpTensor *parts[2];

  if (!ep_tensor_qr (in[0], &q, &r, e)
      || (flat_q = ep_tensor_flatten (q, 0, -1, e)) == NULL
      || (flat_r = ep_tensor_flatten (r, 0, -1, e)) == NULL)
    return NULL;
  parts[0] = flat_q;
  parts[1] = flat_r;
  return ep_concatenate (parts, 2, 0, e);
}
static EpTensor *op_svd (EpTensor **in, GError **e)
{
  g_autoptr(EpTensor) u = NULL;
  g_autoptr(EpTensor) s = NULL;
  g_autoptr(EpTensor) vh = NULL;
  g_autoptr(EpTensor) polar = NULL;
  g_autoptr(EpTensor) magnitude = NULL;
  g_autoptr(EpTensor) scaled = NULL;
  g_autoptr(EpTensor) rows = NULL;
  EpTensor *parts[3];

  if (!ep_tensor_svd (in[0], FALSE, &u, &s, &vh, e)
      || (polar = ep_tensor_matmul (u, vh, e)) == NULL
      || (magnitude = ep_tensor_abs (u, e)) == NULL
      || (scaled = ep_tensor_mul (magnitude, s, e)) == NULL
      || (rows = ep_tensor_abs (vh, e)) == NULL)
    return NULL;
  parts[0] = ep_tensor_flatten (polar, 0, -1, e);
  parts[1] = ep_tensor_flatten (scaled, 0, -1, e);
  parts[2] = ep_tensor_flatten (rows, 0, -1, e);
  {
    EpTensor *joined = parts[0] && parts[1] && parts[2] ? ep_concatenate (parts, 3, 0, e) : NULL;

    for (guint i = 0; i < 3; i++)
      g_clear_object (&parts[i]);
    return joined;
  }
}
static EpTensor *op_eigh (EpTensor **in, GError **e)
{
  g_autoptr(EpTensor) xt = ep_tensor_transpose (in[0], NULL, 0, e);
  g_autoptr(EpTensor) a = xt ? ep_tensor_add (in[0], xt, e) : NULL;
  g_autoptr(EpTensor) w = NULL;
  g_autoptr(EpTensor) v = NULL;
  g_autoptr(EpTensor) magnitude = NULL;

  if (a == NULL || !ep_tensor_eigh (a, FALSE, &w, &v, e) || (magnitude = ep_tensor_abs (v, e)) == NULL)
    return NULL;
  return ep_tensor_mul (magnitude, w, e);
}
static EpTensor *op_lstsq (EpTensor **in, GError **e)
{
  return ep_tensor_lstsq (in[0], in[1], e);
}
/* FFT (ops/fft.c): complex tensors end in an axis of 2; lengths that
 * crop and pad, each norm, odd and even irfft lengths, the 2-D forms */
static EpTensor *op_fft (EpTensor **in, GError **e) { return ep_tensor_fft (in[0], -1, -1, EP_FFT_NORM_BACKWARD, e); }
static EpTensor *op_fft_pad (EpTensor **in, GError **e) { return ep_tensor_fft (in[0], 7, 0, EP_FFT_NORM_ORTHO, e); }
static EpTensor *op_fft_crop (EpTensor **in, GError **e) { return ep_tensor_fft (in[0], 3, -1, EP_FFT_NORM_FORWARD, e); }
static EpTensor *op_ifft (EpTensor **in, GError **e) { return ep_tensor_ifft (in[0], 6, -1, EP_FFT_NORM_BACKWARD, e); }
static EpTensor *op_rfft (EpTensor **in, GError **e) { return ep_tensor_rfft (in[0], -1, -1, EP_FFT_NORM_BACKWARD, e); }
static EpTensor *op_rfft_odd (EpTensor **in, GError **e) { return ep_tensor_rfft (in[0], 7, 0, EP_FFT_NORM_ORTHO, e); }
static EpTensor *op_irfft (EpTensor **in, GError **e) { return ep_tensor_irfft (in[0], -1, -1, EP_FFT_NORM_BACKWARD, e); }
static EpTensor *op_irfft_odd (EpTensor **in, GError **e) { return ep_tensor_irfft (in[0], 5, 0, EP_FFT_NORM_FORWARD, e); }
static EpTensor *op_fft2 (EpTensor **in, GError **e) { return ep_tensor_fft2 (in[0], NULL, 0, NULL, 0, EP_FFT_NORM_BACKWARD, e); }
static EpTensor *op_irfft2 (EpTensor **in, GError **e) { return ep_tensor_irfft2 (in[0], NULL, 0, NULL, 0, EP_FFT_NORM_ORTHO, e); }

/* collectives (ops/collective.c, issue 18): in one process, where each
 * is a copy (tests/c/test-communicator.c checks the rules under mpirun) */
#define COLLECTIVE(name, call)                                              \
static EpTensor *name (EpTensor **in, GError **e)                           \
{                                                                           \
  g_autoptr(EpCommunicator) world = ep_communicator_get_world (e);          \
  return world != NULL ? call : NULL;                                       \
}
COLLECTIVE (op_all_reduce_sum, ep_communicator_all_reduce (world, in[0], EP_REDUCE_OP_SUM, e))
COLLECTIVE (op_all_reduce_mean, ep_communicator_all_reduce (world, in[0], EP_REDUCE_OP_MEAN, e))
COLLECTIVE (op_all_reduce_max, ep_communicator_all_reduce (world, in[0], EP_REDUCE_OP_MAX, e))
COLLECTIVE (op_broadcast, ep_communicator_broadcast (world, in[0], 0, e))
COLLECTIVE (op_all_gather, ep_communicator_all_gather (world, in[0], e))
COLLECTIVE (op_reduce_scatter, ep_communicator_reduce_scatter (world, in[0], EP_REDUCE_OP_SUM, e))
COLLECTIVE (op_reduce_scatter_min, ep_communicator_reduce_scatter (world, in[0], EP_REDUCE_OP_MIN, e))

/* conv2d: stride 2, padding 1, two groups (NCHW); stride 1, dilation 2
 * (NHWC); the gradient ops of the first */
static const gint64 conv_strides[] = { 2, 1 }, conv_padding[] = { 1, 1 }, conv_dilation[] = { 1, 2 };
#define CONV_ATTRS_NCHW conv_strides, 2, conv_padding, 2, NULL, 0, 2, EP_DATA_FORMAT_NCHW
static EpTensor *op_conv2d (EpTensor **in, GError **e)
{
  return ep_tensor_conv2d (in[0], in[1], CONV_ATTRS_NCHW, e);
}
static EpTensor *op_conv2d_nhwc (EpTensor **in, GError **e)
{
  return ep_tensor_conv2d (in[0], in[1], NULL, 0, conv_padding, 1, conv_dilation, 2, 1,
                           EP_DATA_FORMAT_NHWC, e);
}
static EpTensor *op_conv2d_input_grad (EpTensor **in, GError **e)
{
  const gint64 input_shape[] = { 2, 4, 6, 5 };

  return ep_conv2d_input_grad (in[0], in[1], input_shape, 4, CONV_ATTRS_NCHW, e);
}
static EpTensor *op_conv2d_weight_grad (EpTensor **in, GError **e)
{
  const gint64 weight_shape[] = { 6, 2, 3, 2 };

  return ep_conv2d_weight_grad (in[0], in[1], weight_shape, 4, CONV_ATTRS_NCHW, e);
}

static EpTensor *op_add_scalar (EpTensor **in, GError **e) { return ep_tensor_add_scalar (in[0], 1.5, e); }
static EpTensor *op_rsub_scalar (EpTensor **in, GError **e)
{
  g_autoptr(EpTensor) two = ep_tensor_new_weak_scalar (2.0, EP_DTYPE_FLOAT64);

  return ep_tensor_sub (two, in[0], e);
}
static EpTensor *op_pow_scalar (EpTensor **in, GError **e) { return ep_tensor_pow_scalar (in[0], 3.0, e); }
static EpTensor *op_rdiv_scalar (EpTensor **in, GError **e)
{
  g_autoptr(EpTensor) one = ep_tensor_new_weak_scalar (1.0, EP_DTYPE_FLOAT64);

  return ep_tensor_div (one, in[0], e);
}

static EpTensor *
op_where (EpTensor **in, GError **e)
{
  g_autoptr(EpTensor) zero = ep_tensor_new_weak_scalar (0.0, EP_DTYPE_FLOAT64);
  g_autoptr(EpTensor) cond = ep_tensor_greater (in[0], zero, e);

  return cond ? ep_tensor_where (cond, in[1], in[2], e) : NULL;
}

static EpTensor *
op_where_scalar (EpTensor **in, GError **e)
{
  g_autoptr(EpTensor) zero = ep_tensor_new_weak_scalar (0.0, EP_DTYPE_FLOAT64);
  g_autoptr(EpTensor) cond = ep_tensor_less (in[0], zero, e);

  return cond ? ep_tensor_where (cond, in[0], zero, e) : NULL;
}

static EpTensor *op_sum_all (EpTensor **in, GError **e) { return ep_tensor_sum (in[0], NULL, 0, FALSE, e); }
static EpTensor *op_sum_axes (EpTensor **in, GError **e)
{
  const gint axes[] = { 0, -1 };

  return ep_tensor_sum (in[0], axes, 2, FALSE, e);
}
static EpTensor *op_sum_keepdims (EpTensor **in, GError **e)
{
  const gint axes[] = { 1 };

  return ep_tensor_sum (in[0], axes, 1, TRUE, e);
}
static EpTensor *op_mean_all (EpTensor **in, GError **e) { return ep_tensor_mean (in[0], NULL, 0, FALSE, e); }
static EpTensor *op_mean_axis (EpTensor **in, GError **e)
{
  const gint axes[] = { -2 };

  return ep_tensor_mean (in[0], axes, 1, FALSE, e);
}
static EpTensor *op_mean_keepdims (EpTensor **in, GError **e)
{
  const gint axes[] = { 0, 2 };

  return ep_tensor_mean (in[0], axes, 2, TRUE, e);
}
static EpTensor *op_max_all (EpTensor **in, GError **e) { return ep_tensor_max (in[0], NULL, 0, FALSE, e); }
static EpTensor *op_max_axis (EpTensor **in, GError **e)
{
  const gint axes[] = { 1 };

  return ep_tensor_max (in[0], axes, 1, FALSE, e);
}
static EpTensor *op_min_keepdims (EpTensor **in, GError **e)
{
  const gint axes[] = { 0 };

  return ep_tensor_min (in[0], axes, 1, TRUE, e);
}
static EpTensor *op_min_all (EpTensor **in, GError **e) { return ep_tensor_min (in[0], NULL, 0, FALSE, e); }

static EpTensor *op_reshape (EpTensor **in, GError **e)
{
  const gint64 shape[] = { 4, -1 };

  return ep_tensor_reshape (in[0], shape, 2, e);
}
static EpTensor *op_reshape_copy (EpTensor **in, GError **e)
{
  const gint64 shape[] = { 12 };
  g_autoptr(EpTensor) t = ep_tensor_transpose (in[0], NULL, 0, e);

  return t ? ep_tensor_reshape (t, shape, 1, e) : NULL;
}
static EpTensor *op_transpose (EpTensor **in, GError **e)
{
  const gint axes[] = { 2, 0, 1 };

  return ep_tensor_transpose (in[0], axes, 3, e);
}
static EpTensor *op_expand_dims (EpTensor **in, GError **e) { return ep_tensor_expand_dims (in[0], 1, e); }
static EpTensor *op_squeeze (EpTensor **in, GError **e) { return ep_tensor_squeeze (in[0], NULL, 0, e); }
static EpTensor *op_contiguous (EpTensor **in, GError **e)
{
  g_autoptr(EpTensor) t = ep_tensor_transpose (in[0], NULL, 0, e);

  return t ? ep_tensor_contiguous (t, e) : NULL;
}
static EpTensor *op_astype (EpTensor **in, GError **e)
{
  g_autoptr(EpTensor) narrow = ep_tensor_astype (in[0], EP_DTYPE_FLOAT32, e);
  g_autoptr(EpTensor) cube = narrow ? ep_tensor_pow_scalar (narrow, 3.0, e) : NULL;

  return cube ? ep_tensor_astype (cube, EP_DTYPE_FLOAT64, e) : NULL;
}
static EpTensor *op_mixed_types (EpTensor **in, GError **e)
{
  g_autoptr(EpTensor) narrow = ep_tensor_astype (in[0], EP_DTYPE_FLOAT32, e);

  return narrow ? ep_tensor_mul (narrow, in[1], e) : NULL;   /* promotes back to float64 */
}
static EpTensor *op_to_device (EpTensor **in, GError **e)
{
  EpOpAttrs attrs;

  /* the same device: the copy still runs, so the rule does too */
  ep_op_attrs_init (&attrs);
  attrs.device = ep_device_get_default ();
  return ep_dispatch1 (&ep_op_to_device, in, 1, &attrs, e);
}
static EpTensor *op_identity (EpTensor **in, GError **e)
{
  g_autoptr(EpTensor) y = ep_identity (in[0], e);

  return y ? ep_tensor_mul (y, in[0], e) : NULL;
}

/* custom_gradient: x³ with a hand-written backward 3x²g */
static EpTensor *
cube_forward (EpTensor **in, guint n, gpointer data, GError **e)
{
  return ep_tensor_pow_scalar (in[0], 3.0, e);
}

static GPtrArray *
cube_backward (EpTensor **in, guint n, EpTensor *y, EpTensor *g, gpointer data, GError **e)
{
  g_autoptr(EpTensor) sq = ep_tensor_square (in[0], e);
  g_autoptr(EpTensor) slope = sq ? ep_tensor_mul_scalar (sq, 3.0, e) : NULL;
  g_autoptr(GPtrArray) grads = g_ptr_array_new_with_free_func (g_object_unref);
  EpTensor *grad = slope ? ep_tensor_mul (g, slope, e) : NULL;

  if (grad == NULL)
    return NULL;
  g_ptr_array_add (grads, grad);
  return g_steal_pointer (&grads);
}

static EpTensor *
op_custom (EpTensor **in, GError **e)
{
  return ep_custom_gradient (cube_forward, NULL, cube_backward, NULL, NULL, in, 1, e);
}

static const Case cases[] = {
  { "add", "add", 2, { S2 (3, 4), S2 (3, 4) }, { ANY, ANY }, op_add },
  { "add-broadcast", "add", 2, { S2 (3, 1), S2 (1, 4) }, { ANY, ANY }, op_add },
  { "add-rank", "add", 2, { S3 (2, 3, 4), S1 (4) }, { ANY, ANY }, op_add },
  { "add-scalar", "add", 1, { S2 (2, 3) }, { ANY }, op_add_scalar },
  { "sub", "sub", 2, { S3 (2, 1, 4), S2 (3, 1) }, { ANY, ANY }, op_sub },
  { "sub-scalar-left", "sub", 1, { S1 (5) }, { ANY }, op_rsub_scalar },
  { "mul", "mul", 2, { S2 (3, 4), S2 (3, 4) }, { ANY, ANY }, op_mul },
  { "mul-broadcast", "mul", 2, { S0, S2 (2, 3) }, { ANY, ANY }, op_mul },
  { "div", "div", 2, { S2 (3, 4), S1 (4) }, { ANY, NONZERO }, op_div },
  { "div-scalar-left", "div", 1, { S1 (4) }, { NONZERO }, op_rdiv_scalar },
  { "pow", "pow", 2, { S2 (3, 4), S2 (3, 4) }, { POSITIVE, ANY }, op_pow },
  { "pow-broadcast", "pow", 2, { S2 (2, 3), S0 }, { POSITIVE, ANY }, op_pow },
  { "pow-scalar", "pow", 1, { S1 (5) }, { ANY }, op_pow_scalar },
  { "where", "where", 3, { S2 (3, 4), S2 (3, 4), S1 (4) }, { NONZERO, ANY, ANY }, op_where },
  { "where-scalar", "where", 1, { S1 (6) }, { NONZERO }, op_where_scalar },
  { "neg", "neg", 1, { S2 (2, 3) }, { ANY }, op_neg },
  { "abs", "abs", 1, { S2 (2, 3) }, { NONZERO }, op_abs },
  { "square", "square", 1, { S2 (2, 3) }, { ANY }, op_square },
  { "sqrt", "sqrt", 1, { S2 (2, 3) }, { POSITIVE }, op_sqrt },
  { "exp", "exp", 1, { S2 (2, 3) }, { ANY }, op_exp },
  { "log", "log", 1, { S2 (2, 3) }, { POSITIVE }, op_log },
  { "tanh", "tanh", 1, { S2 (2, 3) }, { ANY }, op_tanh },
  { "sigmoid", "sigmoid", 1, { S2 (2, 3) }, { ANY }, op_sigmoid },
  { "relu", "relu", 1, { S2 (2, 3) }, { NONZERO }, op_relu },
  { "sum-all", "sum", 1, { S2 (3, 4) }, { ANY }, op_sum_all },
  { "sum-axes", "sum", 1, { S3 (2, 3, 4) }, { ANY }, op_sum_axes },
  { "sum-keepdims", "sum", 1, { S3 (2, 3, 4) }, { ANY }, op_sum_keepdims },
  { "mean-all", "mean", 1, { S2 (3, 4) }, { ANY }, op_mean_all },
  { "mean-axis", "mean", 1, { S3 (2, 3, 4) }, { ANY }, op_mean_axis },
  { "mean-keepdims", "mean", 1, { S3 (2, 3, 4) }, { ANY }, op_mean_keepdims },
  { "max-all", "max", 1, { S2 (3, 4) }, { ANY }, op_max_all },
  { "max-axis", "max", 1, { S3 (2, 3, 4) }, { ANY }, op_max_axis },
  { "min-all", "min", 1, { S1 (7) }, { ANY }, op_min_all },
  { "min-keepdims", "min", 1, { S2 (3, 4) }, { ANY }, op_min_keepdims },
  { "reshape", "reshape", 1, { S3 (2, 3, 4) }, { ANY }, op_reshape },
  { "reshape-copy", "reshape", 1, { S2 (3, 4) }, { ANY }, op_reshape_copy },
  { "transpose", "transpose", 1, { S3 (2, 3, 4) }, { ANY }, op_transpose },
  { "expand-dims", "expand_dims", 1, { S2 (2, 3) }, { ANY }, op_expand_dims },
  { "squeeze", "squeeze", 1, { S4 (2, 1, 3, 1) }, { ANY }, op_squeeze },
  { "matmul", "matmul", 2, { S2 (3, 4), S2 (4, 5) }, { ANY, ANY }, op_matmul },
  { "matmul-vector-left", "matmul", 2, { S1 (4), S2 (4, 3) }, { ANY, ANY }, op_matmul },
  { "matmul-vector-right", "matmul", 2, { S2 (3, 4), S1 (4) }, { ANY, ANY }, op_matmul },
  { "matmul-vectors", "matmul", 2, { S1 (4), S1 (4) }, { ANY, ANY }, op_matmul },
  { "matmul-batched", "matmul", 2, { S3 (2, 3, 4), S3 (2, 4, 5) }, { ANY, ANY }, op_matmul },
  { "matmul-broadcast", "matmul", 2, { S4 (2, 1, 3, 4), S3 (3, 4, 2) }, { ANY, ANY }, op_matmul },
  { "matmul-batch-vector", "matmul", 2, { S3 (2, 3, 4), S1 (4) }, { ANY, ANY }, op_matmul },
  { "floordiv", "floordiv", 2, { S2 (3, 4), S1 (4) }, { ANY, NONZERO }, op_floordiv },
  { "mod", "mod", 2, { S2 (3, 4), S1 (4) }, { ANY, NONZERO }, op_mod },
  { "minimum", "minimum", 2, { S2 (3, 4), S2 (3, 1) }, { ANY, ANY }, op_minimum },
  { "maximum", "maximum", 2, { S2 (3, 4), S0 }, { ANY, ANY }, op_maximum },
  { "clip", "clip", 1, { S2 (3, 4) }, { ANY }, op_clip },
  { "expm1", "expm1", 1, { S2 (2, 3) }, { ANY }, op_expm1 },
  { "log1p", "log1p", 1, { S2 (2, 3) }, { POSITIVE }, op_log1p },
  { "log2", "log2", 1, { S2 (2, 3) }, { POSITIVE }, op_log2 },
  { "log10", "log10", 1, { S2 (2, 3) }, { POSITIVE }, op_log10 },
  { "sin", "sin", 1, { S2 (2, 3) }, { ANY }, op_sin },
  { "cos", "cos", 1, { S2 (2, 3) }, { ANY }, op_cos },
  { "tan", "tan", 1, { S2 (2, 3) }, { UNIT }, op_tan },
  { "sinh", "sinh", 1, { S2 (2, 3) }, { ANY }, op_sinh },
  { "cosh", "cosh", 1, { S2 (2, 3) }, { ANY }, op_cosh },
  { "arcsin", "arcsin", 1, { S2 (2, 3) }, { UNIT }, op_arcsin },
  { "arccos", "arccos", 1, { S2 (2, 3) }, { UNIT }, op_arccos },
  { "arctan", "arctan", 1, { S2 (2, 3) }, { ANY }, op_arctan },
  { "arcsinh", "arcsinh", 1, { S2 (2, 3) }, { ANY }, op_arcsinh },
  { "arccosh", "arccosh", 1, { S2 (2, 3) }, { ABOVE_ONE }, op_arccosh },
  { "arctanh", "arctanh", 1, { S2 (2, 3) }, { UNIT }, op_arctanh },
  { "softplus", "softplus", 1, { S2 (2, 3) }, { ANY }, op_softplus },
  { "sign", "sign", 1, { S2 (2, 3) }, { NONZERO }, op_sign },
  { "round", "round", 1, { S2 (2, 3) }, { ANY }, op_round },
  { "ceil", "ceil", 1, { S2 (2, 3) }, { ANY }, op_ceil },
  { "floor", "floor", 1, { S2 (2, 3) }, { ANY }, op_floor },
  { "erf", "erf", 1, { S2 (2, 3) }, { ANY }, op_erf },
  { "erfc", "erfc", 1, { S2 (2, 3) }, { ANY }, op_erfc },
  { "gelu", "gelu", 1, { S2 (2, 3) }, { ANY }, op_gelu },
  { "gelu-tanh", "gelu", 1, { S2 (2, 3) }, { ANY }, op_gelu_tanh },
  { "prod-axis", "prod", 1, { S3 (2, 3, 4) }, { ANY }, op_prod_axis },
  { "prod-all", "prod", 1, { S2 (2, 3) }, { NONZERO }, op_prod_all },
  { "cumsum-axis", "cumsum", 1, { S2 (3, 4) }, { ANY }, op_cumsum_axis },
  { "cumsum-flat", "cumsum", 1, { S2 (2, 3) }, { ANY }, op_cumsum_flat },
  { "cumprod-axis", "cumprod", 1, { S2 (3, 4) }, { ANY }, op_cumprod_axis },
  { "cumprod-flat", "cumprod", 1, { S2 (2, 3) }, { ANY }, op_cumprod_flat },
  { "softmax", "softmax", 1, { S2 (3, 4) }, { ANY }, op_softmax },
  { "log-softmax", "log_softmax", 1, { S2 (3, 4) }, { ANY }, op_log_softmax },
  { "logsumexp", "logsumexp", 1, { S3 (2, 3, 4) }, { ANY }, op_logsumexp },
  { "logsumexp-all", "logsumexp", 1, { S2 (3, 4) }, { ANY }, op_logsumexp_all },
  { "crossentropy", "crossentropy", 1, { S2 (4, 3) }, { ANY }, op_crossentropy },
  { "softmax-crossentropy", "softmax_crossentropy", 2, { S2 (4, 3), S2 (4, 3) }, { ANY, POSITIVE },
    op_softmax_crossentropy },
  { "sparse-softmax-crossentropy", "sparse_softmax_crossentropy", 1, { S2 (4, 3) }, { ANY },
    op_sparse_softmax_crossentropy },
  { "sigmoid-crossentropy", "sigmoid_crossentropy", 2, { S2 (3, 4), S2 (3, 4) }, { ANY, POSITIVE },
    op_sigmoid_crossentropy },
  { "mse-loss", "mse_loss", 2, { S2 (3, 4), S2 (3, 4) }, { ANY, ANY }, op_mse_loss },
  { "huber-loss", "huber_loss", 2, { S2 (3, 4), S2 (3, 4) }, { ANY, ANY }, op_huber_loss },
  { "sort", "sort", 1, { S3 (4, 2, 3) }, { ANY }, op_sort },
  { "sort-last", "sort", 1, { S1 (6) }, { ANY }, op_sort_last },
  { "topk", "topk", 1, { S2 (3, 5) }, { ANY }, op_topk },
  { "var", "mean", 1, { S3 (2, 3, 4) }, { ANY }, op_var },
  { "std", "mean", 1, { S2 (3, 4) }, { ANY }, op_std },
  { "layer-norm", "layer_norm", 3, { S3 (2, 3, 4), S2 (3, 4), S2 (3, 4) }, { ANY, ANY, ANY }, op_layer_norm },
  { "batch-norm-train", "batch_norm", 3, { S2 (4, 3), S1 (3), S1 (3) }, { ANY, ANY, ANY }, op_batch_norm_train },
  { "batch-norm-train-nhwc", "batch_norm", 3, { S4 (2, 2, 2, 3), S1 (3), S1 (3) }, { ANY, ANY, ANY },
    op_batch_norm_train_nhwc },
  { "batch-norm-eval", "batch_norm", 3, { S3 (2, 2, 3), S1 (3), S1 (3) }, { ANY, ANY, POSITIVE },
    op_batch_norm_eval },
  { "broadcast-to", "broadcast_to", 1, { S2 (3, 1) }, { ANY }, op_broadcast_to },
  { "flip", "flip", 1, { S3 (2, 3, 4) }, { ANY }, op_flip },
  { "slice", "slice", 1, { S3 (5, 9, 2) }, { ANY }, op_slice },
  { "concatenate", "concatenate", 3, { S2 (2, 3), S2 (2, 1), S2 (2, 2) }, { ANY, ANY, ANY }, op_concatenate },
  { "stack", "concatenate", 2, { S2 (2, 3), S2 (2, 3) }, { ANY, ANY }, op_stack },
  { "tile", "tile", 1, { S2 (2, 3) }, { ANY }, op_tile },
  { "roll", "concatenate", 1, { S2 (2, 3) }, { ANY }, op_roll },
  { "roll-flat", "concatenate", 1, { S2 (2, 3) }, { ANY }, op_roll_flat },
  { "repeat", "broadcast_to", 1, { S2 (2, 3) }, { ANY }, op_repeat },
  { "repeat-flat", "broadcast_to", 1, { S2 (2, 3) }, { ANY }, op_repeat_flat },
  { "diff", "sub", 1, { S2 (4, 3) }, { ANY }, op_diff },
  { "diff-last", "sub", 1, { S3 (2, 3, 4) }, { ANY }, op_diff_last },
  { "pad-constant", "pad", 1, { S2 (2, 3) }, { ANY }, op_pad_constant },
  { "pad-reflect", "pad", 1, { S1 (4) }, { ANY }, op_pad_reflect },
  { "max-pool2d", "max_pool2d", 1, { S4 (2, 3, 5, 6) }, { ANY }, op_max_pool2d },
  { "max-pool2d-nhwc", "max_pool2d", 1, { S4 (2, 6, 5, 3) }, { ANY }, op_max_pool2d_nhwc },
  { "avg-pool2d", "avg_pool2d", 1, { S4 (2, 3, 5, 6) }, { ANY }, op_avg_pool2d },
  { "avg-pool2d-nhwc", "avg_pool2d", 1, { S4 (2, 4, 6, 3) }, { ANY }, op_avg_pool2d_nhwc },
  { "max-pool2d-grad", "max_pool2d_grad", 1, { S4 (2, 3, 3, 3) }, { ANY }, op_max_pool2d_grad },
  { "avg-pool2d-grad", "avg_pool2d_grad", 1, { S4 (2, 3, 3, 3) }, { ANY }, op_avg_pool2d_grad },
  { "take", "take", 1, { S2 (2, 3) }, { ANY }, op_take },
  { "embedding", "take", 1, { S2 (4, 3) }, { ANY }, op_embedding },
  { "take-along-axis", "take_along_axis", 1, { S2 (2, 4) }, { ANY }, op_take_along_axis },
  { "mask", "mask", 1, { S2 (2, 3) }, { ANY }, op_mask },
  { "index-update", "index_update", 2, { S2 (4, 3), S2 (2, 3) }, { ANY, ANY }, op_index_update },
  { "scatter-add", "scatter_add", 2, { S2 (2, 3), S2 (2, 3) }, { ANY, ANY }, op_scatter_add },
  { "inv", "inv", 1, { S2 (3, 3) }, { ANY }, op_inv },
  { "slogdet", "slogdet", 1, { S2 (3, 3) }, { ANY }, op_slogdet },
  { "solve", "solve", 2, { S2 (3, 3), S2 (3, 2) }, { ANY, ANY }, op_solve },
  /* linear algebra of issue 17 */
  { "det", "det", 1, { S2 (3, 3) }, { ANY }, op_det },
  { "cholesky", "cholesky", 1, { S2 (3, 3) }, { ANY }, op_cholesky },
  { "qr", "qr", 1, { S2 (4, 3) }, { ANY }, op_qr },
  { "qr-wide", "qr", 1, { S2 (3, 4) }, { ANY }, op_qr },
  { "svd", "svd", 1, { S2 (4, 3) }, { ANY }, op_svd },
  { "svd-wide", "svd", 1, { S2 (3, 4) }, { ANY }, op_svd },
  { "eigh", "eigh", 1, { S2 (3, 3) }, { ANY }, op_eigh },
  { "lstsq", "lstsq", 2, { S2 (4, 3), S2 (4, 2) }, { ANY, ANY }, op_lstsq },
  { "lstsq-wide", "lstsq", 2, { S2 (3, 4), S1 (3) }, { ANY, ANY }, op_lstsq },
  { "conv2d", "conv2d", 2, { S4 (2, 4, 6, 5), S4 (6, 2, 3, 2) }, { ANY, ANY }, op_conv2d },
  { "conv2d-nhwc", "conv2d", 2, { S4 (1, 6, 5, 3), S4 (2, 3, 2, 2) }, { ANY, ANY }, op_conv2d_nhwc },
  { "conv2d-input-grad", "conv2d_input_grad", 2, { S4 (2, 6, 3, 6), S4 (6, 2, 3, 2) }, { ANY, ANY },
    op_conv2d_input_grad },
  { "conv2d-weight-grad", "conv2d_weight_grad", 2, { S4 (2, 4, 6, 5), S4 (2, 6, 3, 6) }, { ANY, ANY },
    op_conv2d_weight_grad },
  { "contiguous", "contiguous", 1, { S2 (3, 4) }, { ANY }, op_contiguous },
  { "astype", "astype", 1, { S2 (2, 3) }, { POSITIVE }, op_astype, 1e-3, 1e-3 },
  { "astype-promotion", "astype", 2, { S1 (4), S1 (4) }, { ANY, ANY }, op_mixed_types, 1e-3, 1e-3 },
  { "to-device", "to_device", 1, { S2 (2, 3) }, { ANY }, op_to_device },
  { "identity", "identity", 1, { S2 (2, 3) }, { ANY }, op_identity },
  { "custom-gradient", "custom_gradient", 1, { S2 (2, 3) }, { ANY }, op_custom },
  /* FFT */
  { "fft", "fft", 1, { S3 (2, 5, 2) }, { ANY }, op_fft },
  { "fft-pad", "fft", 1, { S3 (4, 3, 2) }, { ANY }, op_fft_pad },
  { "fft-crop", "fft", 1, { S3 (2, 5, 2) }, { ANY }, op_fft_crop },
  { "ifft", "ifft", 1, { S3 (2, 4, 2) }, { ANY }, op_ifft },
  { "rfft", "rfft", 1, { S2 (2, 6) }, { ANY }, op_rfft },
  { "rfft-odd", "rfft", 1, { S2 (5, 2) }, { ANY }, op_rfft_odd },
  { "irfft", "irfft", 1, { S3 (2, 4, 2) }, { ANY }, op_irfft },
  { "irfft-odd", "irfft", 1, { S3 (4, 2, 2) }, { ANY }, op_irfft_odd },
  { "fft2", "fft", 1, { S3 (3, 4, 2) }, { ANY }, op_fft2 },
  { "irfft2", "irfft", 1, { S4 (2, 3, 3, 2) }, { ANY }, op_irfft2 },
  /* collectives (issue 18) */
  { "all-reduce", "all_reduce", 1, { S2 (2, 3) }, { ANY }, op_all_reduce_sum },
  { "all-reduce-mean", "all_reduce", 1, { S1 (4) }, { ANY }, op_all_reduce_mean },
  { "all-reduce-max", "all_reduce", 1, { S1 (4) }, { ANY }, op_all_reduce_max },
  { "broadcast", "broadcast", 1, { S2 (3, 2) }, { ANY }, op_broadcast },
  { "all-gather", "all_gather", 1, { S2 (2, 3) }, { ANY }, op_all_gather },
  { "reduce-scatter", "reduce_scatter", 1, { S2 (4, 2) }, { ANY }, op_reduce_scatter },
  { "reduce-scatter-min", "reduce_scatter", 1, { S1 (3) }, { ANY }, op_reduce_scatter_min },
  /* forward mode (issue 17) */
  { "slice-reversed", "slice", 1, { S2 (4, 5) }, { ANY }, op_slice_reversed },
  /* issue 17 (ops): einsum, a composite */
  { "einsum-bilinear", "matmul", 3, { S2 (2, 3), S3 (2, 3, 4), S2 (2, 4) }, { ANY, ANY, ANY }, op_einsum_bilinear },
  { "einsum-diagonal", "slice", 1, { S3 (3, 3, 2) }, { ANY }, op_einsum_diagonal },
  { "roll-axes", "concatenate", 1, { S2 (2, 3) }, { ANY }, op_roll_axes },
  { "repeat-counts", "mask", 1, { S2 (2, 3) }, { ANY }, op_repeat_counts },
};

/* Helpers */

static gdouble
random_value (Domain domain)
{
  gdouble u = g_test_rand_double_range (0.0, 1.0);

  switch (domain)
    {
    case POSITIVE:
      return 0.5 + 1.5 * u;
    case NONZERO:
      return (u < 0.5 ? -1.0 : 1.0) * (0.2 + 1.8 * g_test_rand_double_range (0.0, 1.0));
    case UNIT:
      return -0.9 + 1.8 * u;
    case ABOVE_ONE:
      return 1.2 + 1.8 * u;
    case ANY:
    default:
      return -2.0 + 4.0 * u;
    }
}

static gint64
shape_size (const Shape *shape)
{
  gint64 size = 1;

  for (guint d = 0; d < shape->ndim; d++)
    size *= shape->dims[d];
  return size;
}

static EpTensor *
tensor_from (const gdouble *data,
             const Shape   *shape)
{
  g_autoptr(GError) error = NULL;
  EpTensor *t = ep_tensor_new_from_doubles (data, shape_size (shape), shape->dims, shape->ndim,
                                            EP_DTYPE_FLOAT64, &error);

  g_assert_no_error (error);
  return t;
}

/* The elements of a tensor as float64 on the host. */
static gdouble *
host_values (EpTensor *t,
             gsize    *n)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpTensor) wide = ep_tensor_astype (t, EP_DTYPE_FLOAT64, &error);
  g_autoptr(GBytes) bytes = NULL;
  gsize size;
  gconstpointer data;

  g_assert_no_error (error);
  bytes = ep_tensor_to_bytes (wide, &error);
  g_assert_no_error (error);
  data = g_bytes_get_data (bytes, &size);
  *n = size / sizeof (gdouble);
  return g_memdup2 (data, MAX (size, 1));
}

/* The staged pass: the function of a case as the body of an EpFunction
 * (@user_data points to the case's func) */
static GPtrArray *
staged_body (EpTensor  **inputs,
             guint       n_inputs,
             gpointer    user_data,
             GError    **error)
{
  const OpFunc *func = user_data;
  EpTensor *out = (*func) (inputs, error);
  GPtrArray *result;

  if (out == NULL)
    return NULL;
  result = g_ptr_array_new_with_free_func (g_object_unref);
  g_ptr_array_add (result, out);
  return result;
}

/* func (in), or its staged function's replay when @fn is given */
static EpTensor *
apply (OpFunc       func,
       EpFunction  *fn,
       EpTensor   **in,
       guint        n_inputs,
       GError     **error)
{
  g_autoptr(GPtrArray) results = NULL;

  if (fn == NULL)
    return func (in, error);
  results = ep_function_call (fn, in, n_inputs, error);
  return results != NULL ? g_object_ref (g_ptr_array_index (results, 0)) : NULL;
}

/* A staged function of *@func, traced now on random inputs of @shapes,
 * so that the calls of the test replay it. */
static EpFunction *
staged_function (const OpFunc  *func,
                 guint          n_inputs,
                 const Shape   *shapes,
                 const Domain  *domains)
{
  g_autoptr(GError) error = NULL;
  EpFunction *fn = ep_function_new (staged_body, (gpointer) func, NULL);
  EpTensor *in[3] = { NULL };
  g_autoptr(EpTensor) out = NULL;

  for (guint i = 0; i < n_inputs; i++)
    {
      gint64 size = shape_size (&shapes[i]);
      g_autofree gdouble *values = g_new (gdouble, MAX (size, 1));

      for (gint64 k = 0; k < size; k++)
        values[k] = random_value (domains[i]);
      in[i] = tensor_from (values, &shapes[i]);
    }
  out = apply (*func, fn, in, n_inputs, &error);
  g_assert_no_error (error);
  for (guint i = 0; i < n_inputs; i++)
    g_object_unref (in[i]);
  g_assert_cmpuint (ep_function_get_trace_count (fn), ==, 1);

  return fn;
}

/* sum(w * f(inputs)), all on the host but f */
static gdouble
weighted_sum (const Case      *c,
              EpFunction      *fn,
              gdouble *const  *values,
              const gdouble   *weight)
{
  g_autoptr(GError) error = NULL;
  EpTensor *in[3] = { NULL };
  g_autoptr(EpTensor) out = NULL;
  g_autofree gdouble *y = NULL;
  gdouble total = 0.0;
  gsize n;

  for (guint i = 0; i < c->n_inputs; i++)
    in[i] = tensor_from (values[i], &c->shapes[i]);
  out = apply (c->func, fn, in, c->n_inputs, &error);
  g_assert_no_error (error);
  y = host_values (out, &n);
  for (gsize k = 0; k < n; k++)
    total += weight[k] * y[k];
  for (guint i = 0; i < c->n_inputs; i++)
    g_object_unref (in[i]);

  return total;
}

static void
check_close (const char *what,
             gdouble     analytic,
             gdouble     numeric,
             gdouble     tolerance)
{
  if (fabs (analytic - numeric) > tolerance * (1.0 + fabs (numeric)))
    g_error ("%s: analytic %.10g, numeric %.10g", what, analytic, numeric);
}

static void
check_case (const Case *c,
            gboolean    staged)
{
  g_autoptr(EpFunction) fn = staged ? staged_function (&c->func, c->n_inputs, c->shapes, c->domains)
                                    : NULL;
  g_autoptr(GError) error = NULL;
  gdouble *values[3] = { NULL };
  EpTensor *in[3] = { NULL };
  GObject *sources[3];
  g_autoptr(EpGradientTape) tape = ep_gradient_tape_new (FALSE);
  g_autoptr(EpTensor) out = NULL, w = NULL;
  g_autoptr(GPtrArray) grads = NULL;
  g_autofree gdouble *weight = NULL;
  gdouble h = c->h > 0 ? c->h : 1e-6;
  gdouble tolerance = c->tolerance > 0 ? c->tolerance : 1e-6;
  gsize n_out;

  for (guint i = 0; i < c->n_inputs; i++)
    {
      gint64 size = shape_size (&c->shapes[i]);

      values[i] = g_new (gdouble, MAX (size, 1));
      for (gint64 k = 0; k < size; k++)
        values[i][k] = random_value (c->domains[i]);
      in[i] = tensor_from (values[i], &c->shapes[i]);
      sources[i] = G_OBJECT (in[i]);
    }

  g_assert_true (ep_gradient_tape_start (tape, &error));
  for (guint i = 0; i < c->n_inputs; i++)
    ep_gradient_tape_watch (tape, in[i]);
  out = apply (c->func, fn, in, c->n_inputs, &error);
  g_assert_no_error (error);
  g_assert_true (ep_gradient_tape_stop (tape, &error));

  {
    g_autofree gdouble *ignored = host_values (out, &n_out);
  }
  weight = g_new (gdouble, MAX (n_out, 1));
  for (gsize k = 0; k < n_out; k++)
    weight[k] = random_value (ANY);
  {
    guint ndim;
    const gint64 *shape = ep_tensor_get_shape (out, &ndim);

    w = ep_tensor_new_from_doubles (weight, n_out, shape, ndim, ep_tensor_get_dtype (out), &error);
    g_assert_no_error (error);
  }

  grads = ep_gradient_tape_gradient (tape, &out, 1, sources, c->n_inputs, &w, 1, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (grads->len, ==, c->n_inputs);

  for (guint i = 0; i < c->n_inputs; i++)
    {
      EpTensor *grad = g_ptr_array_index (grads, i);
      gint64 size = shape_size (&c->shapes[i]);
      g_autofree gdouble *analytic = NULL;
      guint ndim;
      const gint64 *shape;
      gsize n;

      g_assert_nonnull (grad);
      shape = ep_tensor_get_shape (grad, &ndim);
      g_assert_cmpuint (ndim, ==, c->shapes[i].ndim);
      g_assert_cmpmem (shape, ndim * sizeof (gint64), c->shapes[i].dims, ndim * sizeof (gint64));
      g_assert_cmpint (ep_tensor_get_dtype (grad), ==, EP_DTYPE_FLOAT64);
      analytic = host_values (grad, &n);
      g_assert_cmpint ((gint64) n, ==, size);

      for (gint64 k = 0; k < size; k++)
        {
          gdouble saved = values[i][k], plus, minus;
          g_autofree char *what = g_strdup_printf ("%s: input %u element %" G_GINT64_FORMAT, c->name, i, k);

          values[i][k] = saved + h;
          plus = weighted_sum (c, fn, values, weight);
          values[i][k] = saved - h;
          minus = weighted_sum (c, fn, values, weight);
          values[i][k] = saved;
          check_close (what, analytic[k], (plus - minus) / (2 * h), tolerance);
        }
    }

  for (guint i = 0; i < c->n_inputs; i++)
    {
      g_free (values[i]);
      g_object_unref (in[i]);
    }
  if (fn != NULL)
    g_assert_cmpuint (ep_function_get_trace_count (fn), ==, 1);
}

static void
test_case (gconstpointer data)
{
  check_case (data, FALSE);
}

static void
test_case_staged (gconstpointer data)
{
  check_case (data, TRUE);
}

/* Every op that has a gradient rule has a case above. */
static void
test_coverage (void)
{
  for (guint id = 0; id < EP_N_OPS; id++)
    {
      const EpOpDef *op = ep_op_get (id);
      gboolean covered = FALSE;

      if (op->gradient == NULL)
        continue;
      for (guint c = 0; c < G_N_ELEMENTS (cases) && !covered; c++)
        covered = g_str_equal (cases[c].op, op->name);
      if (!covered)
        g_error ("op %s has a gradient rule but no finite-difference case", op->name);
    }
}

/* Second derivatives of the elementwise ops: an outer tape records the
 * inner tape's gradient; the outer gradient of sum(w * f'(x)) is
 * compared with central differences of the inner gradient. */

typedef struct
{
  const char *name;
  guint       n_inputs;
  Domain      domains[2];
  OpFunc      func;
} Elementwise;

static const Elementwise elementwise[] = {
  { "add", 2, { ANY, ANY }, op_add },
  { "sub", 2, { ANY, ANY }, op_sub },
  { "mul", 2, { ANY, ANY }, op_mul },
  { "div", 2, { ANY, NONZERO }, op_div },
  { "pow", 2, { POSITIVE, ANY }, op_pow },
  { "neg", 1, { ANY }, op_neg },
  { "abs", 1, { NONZERO }, op_abs },
  { "square", 1, { ANY }, op_square },
  { "sqrt", 1, { POSITIVE }, op_sqrt },
  { "exp", 1, { ANY }, op_exp },
  { "log", 1, { POSITIVE }, op_log },
  { "tanh", 1, { ANY }, op_tanh },
  { "sigmoid", 1, { ANY }, op_sigmoid },
  { "relu", 1, { NONZERO }, op_relu },
  { "minimum", 2, { ANY, ANY }, op_minimum },
  { "maximum", 2, { ANY, ANY }, op_maximum },
  { "clip", 1, { ANY }, op_clip },
  { "expm1", 1, { ANY }, op_expm1 },
  { "log1p", 1, { POSITIVE }, op_log1p },
  { "log2", 1, { POSITIVE }, op_log2 },
  { "log10", 1, { POSITIVE }, op_log10 },
  { "sin", 1, { ANY }, op_sin },
  { "cos", 1, { ANY }, op_cos },
  { "tan", 1, { UNIT }, op_tan },
  { "sinh", 1, { ANY }, op_sinh },
  { "cosh", 1, { ANY }, op_cosh },
  { "arcsin", 1, { UNIT }, op_arcsin },
  { "arccos", 1, { UNIT }, op_arccos },
  { "arctan", 1, { ANY }, op_arctan },
  { "arcsinh", 1, { ANY }, op_arcsinh },
  { "arccosh", 1, { ABOVE_ONE }, op_arccosh },
  { "arctanh", 1, { UNIT }, op_arctanh },
  { "softplus", 1, { ANY }, op_softplus },
  { "floordiv", 2, { ANY, NONZERO }, op_floordiv },
  { "mod", 2, { ANY, NONZERO }, op_mod },
  { "sign", 1, { NONZERO }, op_sign },
  { "round", 1, { ANY }, op_round },
  { "ceil", 1, { ANY }, op_ceil },
  { "floor", 1, { ANY }, op_floor },
  { "erf", 1, { ANY }, op_erf },
  { "erfc", 1, { ANY }, op_erfc },
  { "gelu", 1, { ANY }, op_gelu },
  { "gelu-tanh", 1, { ANY }, op_gelu_tanh },
};

#define N_ELEMENTS 5

/* The gradients of sum(f(inputs)) with respect to every input, computed
 * under @outer (when given) so that it records the computation. */
static GPtrArray *
first_derivatives (const Elementwise  *c,
                   EpFunction         *fn,
                   EpTensor          **in,
                   GError            **error)
{
  g_autoptr(EpGradientTape) tape = ep_gradient_tape_new (FALSE);
  g_autoptr(EpTensor) out = NULL;
  GObject *sources[2] = { G_OBJECT (in[0]), c->n_inputs > 1 ? G_OBJECT (in[1]) : NULL };

  ep_gradient_tape_start (tape, NULL);
  for (guint i = 0; i < c->n_inputs; i++)
    ep_gradient_tape_watch (tape, in[i]);
  out = apply (c->func, fn, in, c->n_inputs, error);
  ep_gradient_tape_stop (tape, NULL);
  if (out == NULL)
    return NULL;

  return ep_gradient_tape_gradient (tape, &out, 1, sources, c->n_inputs, NULL, 0, error);
}

static void
check_second_derivative (const Elementwise *c,
                         gboolean           staged)
{
  const Shape shape = S1 (N_ELEMENTS);
  const Shape shapes[2] = { S1 (N_ELEMENTS), S1 (N_ELEMENTS) };
  g_autoptr(EpFunction) fn = staged ? staged_function (&c->func, c->n_inputs, shapes, c->domains)
                                    : NULL;
  g_autoptr(GError) error = NULL;
  gdouble values[2][N_ELEMENTS], weights[2][N_ELEMENTS];
  EpTensor *in[2] = { NULL }, *w[2] = { NULL };
  GObject *sources[2];
  g_autoptr(EpGradientTape) outer = ep_gradient_tape_new (FALSE);
  g_autoptr(GPtrArray) first = NULL, second = NULL;
  const gdouble h = 1e-5;

  for (guint i = 0; i < c->n_inputs; i++)
    {
      for (guint k = 0; k < N_ELEMENTS; k++)
        {
          values[i][k] = random_value (c->domains[i]);
          weights[i][k] = random_value (ANY);
        }
      in[i] = tensor_from (values[i], &shape);
      w[i] = tensor_from (weights[i], &shape);
      sources[i] = G_OBJECT (in[i]);
    }

  /* outer gradient of sum_i sum(w_i * d f / d x_i) */
  ep_gradient_tape_start (outer, NULL);
  for (guint i = 0; i < c->n_inputs; i++)
    ep_gradient_tape_watch (outer, in[i]);
  first = first_derivatives (c, fn, in, &error);
  g_assert_no_error (error);
  ep_gradient_tape_stop (outer, NULL);
  second = ep_gradient_tape_gradient (outer, (EpTensor **) first->pdata, c->n_inputs,
                                      sources, c->n_inputs, w, c->n_inputs, &error);
  g_assert_no_error (error);

  for (guint j = 0; j < c->n_inputs; j++)
    {
      gsize n;
      g_autofree gdouble *analytic = host_values (g_ptr_array_index (second, j), &n);

      for (guint k = 0; k < N_ELEMENTS; k++)
        {
          gdouble saved = values[j][k], total[2];
          g_autofree char *what = g_strdup_printf ("d2 %s: input %u element %u", c->name, j, k);

          for (guint side = 0; side < 2; side++)
            {
              EpTensor *moved[2];
              g_autoptr(GPtrArray) grads = NULL;

              values[j][k] = saved + (side == 0 ? h : -h);
              for (guint i = 0; i < c->n_inputs; i++)
                moved[i] = tensor_from (values[i], &shape);
              grads = first_derivatives (c, fn, moved, &error);
              g_assert_no_error (error);
              total[side] = 0.0;
              for (guint i = 0; i < c->n_inputs; i++)
                {
                  gsize m;
                  g_autofree gdouble *g = host_values (g_ptr_array_index (grads, i), &m);

                  for (guint q = 0; q < N_ELEMENTS; q++)
                    total[side] += weights[i][q] * g[q];
                  g_object_unref (moved[i]);
                }
            }
          values[j][k] = saved;
          check_close (what, analytic[k], (total[0] - total[1]) / (2 * h), 1e-5);
        }
    }

  for (guint i = 0; i < c->n_inputs; i++)
    {
      g_object_unref (in[i]);
      g_object_unref (w[i]);
    }
  if (fn != NULL)
    g_assert_cmpuint (ep_function_get_trace_count (fn), ==, 1);
}

static void
test_second_derivative (gconstpointer data)
{
  check_second_derivative (data, FALSE);
}

static void
test_second_derivative_staged (gconstpointer data)
{
  check_second_derivative (data, TRUE);
}

/* Forward mode (issue 17): every case again under an EpForwardAccumulator
 * with random tangents t: the tangent of the output, weighted by w, is
 * compared with central differences along t, and with the reverse
 * gradient (<w, J t> = <Jᵀ w, t>). Every op with a gradient rule has a
 * case above, so every forward rule is checked. The jacobian pass
 * compares the vectorised jacobian of each case's first input with the
 * per-row one (EP_JACOBIAN=forward against =rows). */

static gdouble
weighted_sum_along (const Case      *c,
                    EpFunction      *fn,
                    gdouble *const  *values,
                    gdouble *const  *tangents,
                    gdouble          step,
                    const gdouble   *weight)
{
  gdouble *moved[3] = { NULL };
  gdouble total;

  for (guint i = 0; i < c->n_inputs; i++)
    {
      gint64 size = shape_size (&c->shapes[i]);

      moved[i] = g_new (gdouble, MAX (size, 1));
      for (gint64 k = 0; k < size; k++)
        moved[i][k] = values[i][k] + step * tangents[i][k];
    }
  total = weighted_sum (c, fn, moved, weight);
  for (guint i = 0; i < c->n_inputs; i++)
    g_free (moved[i]);

  return total;
}

static void
check_forward (const Case *c,
               gboolean    staged)
{
  g_autoptr(EpFunction) fn = staged ? staged_function (&c->func, c->n_inputs, c->shapes, c->domains)
                                    : NULL;
  g_autoptr(GError) error = NULL;
  gdouble *values[3] = { NULL }, *tangents[3] = { NULL };
  EpTensor *in[3] = { NULL }, *t[3] = { NULL };
  GObject *sources[3];
  g_autoptr(EpForwardAccumulator) acc = ep_forward_accumulator_new ();
  g_autoptr(EpGradientTape) tape = ep_gradient_tape_new (FALSE);
  g_autoptr(EpTensor) out = NULL, w = NULL, jvp = NULL;
  g_autoptr(GPtrArray) grads = NULL;
  g_autofree gdouble *weight = NULL, *dy = NULL;
  gdouble h = c->h > 0 ? c->h : 1e-6;
  gdouble tolerance = c->tolerance > 0 ? c->tolerance : 1e-6;
  gdouble forward = 0.0, reverse = 0.0;
  guint ndim;
  const gint64 *shape;
  gsize n_out;

  for (guint i = 0; i < c->n_inputs; i++)
    {
      gint64 size = shape_size (&c->shapes[i]);

      values[i] = g_new (gdouble, MAX (size, 1));
      tangents[i] = g_new (gdouble, MAX (size, 1));
      for (gint64 k = 0; k < size; k++)
        {
          values[i][k] = random_value (c->domains[i]);
          tangents[i][k] = random_value (ANY);
        }
      in[i] = tensor_from (values[i], &c->shapes[i]);
      t[i] = tensor_from (tangents[i], &c->shapes[i]);
      sources[i] = G_OBJECT (in[i]);
      g_assert_true (ep_forward_accumulator_watch (acc, in[i], t[i], &error));
    }

  g_assert_true (ep_forward_accumulator_start (acc, &error));
  g_assert_true (ep_gradient_tape_start (tape, &error));
  for (guint i = 0; i < c->n_inputs; i++)
    ep_gradient_tape_watch (tape, in[i]);
  out = apply (c->func, fn, in, c->n_inputs, &error);
  g_assert_no_error (error);
  g_assert_true (ep_gradient_tape_stop (tape, &error));
  g_assert_true (ep_forward_accumulator_stop (acc, &error));

  jvp = ep_forward_accumulator_jvp (acc, out, &error);
  g_assert_no_error (error);
  shape = ep_tensor_get_shape (jvp, &ndim);
  g_assert_cmpuint (ndim, ==, ep_tensor_get_ndim (out));
  g_assert_cmpmem (shape, ndim * sizeof (gint64), ep_tensor_get_shape (out, NULL), ndim * sizeof (gint64));
  g_assert_cmpint (ep_tensor_get_dtype (jvp), ==, ep_tensor_get_dtype (out));
  dy = host_values (jvp, &n_out);

  weight = g_new (gdouble, MAX (n_out, 1));
  for (gsize k = 0; k < n_out; k++)
    {
      weight[k] = random_value (ANY);
      forward += weight[k] * dy[k];
    }
  w = ep_tensor_new_from_doubles (weight, n_out, shape, ndim, ep_tensor_get_dtype (out), &error);
  g_assert_no_error (error);
  grads = ep_gradient_tape_gradient (tape, &out, 1, sources, c->n_inputs, &w, 1, &error);
  g_assert_no_error (error);
  for (guint i = 0; i < c->n_inputs; i++)
    {
      gsize n;
      g_autofree gdouble *g = host_values (g_ptr_array_index (grads, i), &n);

      for (gsize k = 0; k < n; k++)
        reverse += g[k] * tangents[i][k];
    }

  {
    g_autofree char *what = g_strdup_printf ("forward %s: against differences", c->name);
    g_autofree char *against = g_strdup_printf ("forward %s: against the gradient", c->name);
    gdouble plus = weighted_sum_along (c, fn, values, tangents, h, weight);
    gdouble minus = weighted_sum_along (c, fn, values, tangents, -h, weight);

    check_close (what, forward, (plus - minus) / (2 * h), tolerance * 10);
    check_close (against, forward, reverse, tolerance);
  }

  for (guint i = 0; i < c->n_inputs; i++)
    {
      g_free (values[i]);
      g_free (tangents[i]);
      g_object_unref (in[i]);
      g_object_unref (t[i]);
    }
}

static void
test_forward (gconstpointer data)
{
  check_forward (data, FALSE);
}

static void
test_forward_staged (gconstpointer data)
{
  check_forward (data, TRUE);
}

static EpTensor *
jacobian_of (const Case  *c,
             EpTensor   **in,
             const char  *mode)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(EpGradientTape) tape = ep_gradient_tape_new (FALSE);
  g_autoptr(EpTensor) out = NULL;
  EpTensor *jacobian;

  ep_gradient_tape_start (tape, NULL);
  for (guint i = 0; i < c->n_inputs; i++)
    ep_gradient_tape_watch (tape, in[i]);
  out = c->func (in, &error);
  g_assert_no_error (error);
  ep_gradient_tape_stop (tape, NULL);

  g_setenv ("EP_JACOBIAN", mode, TRUE);
  jacobian = ep_gradient_tape_jacobian (tape, out, G_OBJECT (in[0]), &error);
  g_unsetenv ("EP_JACOBIAN");
  g_assert_no_error (error);
  return jacobian;
}

static void
test_jacobian (gconstpointer data)
{
  const Case *c = data;
  EpTensor *in[3] = { NULL };
  g_autoptr(EpTensor) rows = NULL, vectorised = NULL;
  g_autofree gdouble *a = NULL, *b = NULL;
  gsize n_a, n_b;

  for (guint i = 0; i < c->n_inputs; i++)
    {
      gint64 size = shape_size (&c->shapes[i]);
      g_autofree gdouble *values = g_new (gdouble, MAX (size, 1));

      for (gint64 k = 0; k < size; k++)
        values[k] = random_value (c->domains[i]);
      in[i] = tensor_from (values, &c->shapes[i]);
    }

  rows = jacobian_of (c, in, "rows");
  vectorised = jacobian_of (c, in, "forward");
  a = host_values (rows, &n_a);
  b = host_values (vectorised, &n_b);
  g_assert_cmpuint (n_a, ==, n_b);
  for (gsize k = 0; k < n_a; k++)
    {
      g_autofree char *what = g_strdup_printf ("jacobian %s: element %zu", c->name, k);

      check_close (what, b[k], a[k], 1e-6);
    }

  for (guint i = 0; i < c->n_inputs; i++)
    g_object_unref (in[i]);
}

/* Every op with a gradient rule has a forward rule */
static void
test_forward_coverage (void)
{
  for (guint id = 0; id < EP_N_OPS; id++)
    {
      const EpOpDef *op = ep_op_get (id);

      if (op->gradient != NULL && ep_jvp_kind (op) == EP_JVP_NONE)
        g_error ("%s has a gradient rule and no forward rule", op->name);
    }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/gradcheck/coverage", test_coverage);
  for (guint c = 0; c < G_N_ELEMENTS (cases); c++)
    {
      g_autofree char *path = g_strdup_printf ("/gradcheck/first/%s", cases[c].name);

      g_test_add_data_func (path, &cases[c], test_case);
    }
  for (guint c = 0; c < G_N_ELEMENTS (elementwise); c++)
    {
      g_autofree char *path = g_strdup_printf ("/gradcheck/second/%s", elementwise[c].name);

      g_test_add_data_func (path, &elementwise[c], test_second_derivative);
    }
  for (guint c = 0; c < G_N_ELEMENTS (cases); c++)
    {
      g_autofree char *path = g_strdup_printf ("/gradcheck/staged/first/%s", cases[c].name);

      g_test_add_data_func (path, &cases[c], test_case_staged);
    }
  for (guint c = 0; c < G_N_ELEMENTS (elementwise); c++)
    {
      g_autofree char *path = g_strdup_printf ("/gradcheck/staged/second/%s", elementwise[c].name);

      g_test_add_data_func (path, &elementwise[c], test_second_derivative_staged);
    }

  g_test_add_func ("/gradcheck/forward/coverage", test_forward_coverage);
  for (guint c = 0; c < G_N_ELEMENTS (cases); c++)
    {
      g_autofree char *path = g_strdup_printf ("/gradcheck/forward/%s", cases[c].name);
      g_autofree char *staged = g_strdup_printf ("/gradcheck/staged/forward/%s", cases[c].name);
      g_autofree char *jacobian = g_strdup_printf ("/gradcheck/jacobian/%s", cases[c].name);

      g_test_add_data_func (path, &cases[c], test_forward);
      g_test_add_data_func (staged, &cases[c], test_forward_staged);
      g_test_add_data_func (jacobian, &cases[c], test_jacobian);
    }

  return g_test_run ();
}
