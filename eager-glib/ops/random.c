/* ops/random.c: seeded random tensors
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Counter-based (Philox 4x32-10, see ep-philox-private.h): each call
 * takes the next stream number, and element i of a call depends only on
 * the seed, the stream and i; so the numbers do not depend on how a
 * device splits the work, and every device gives the same ones.
 */

#include "config.h"

#include <glib/gi18n-lib.h>
#include <math.h>
#include <string.h>

#include "ep-dispatch-private.h"
#include "ep-error.h"
#include "ep-random.h"
#include "ep-context-private.h"
#include "ep-error-private.h"
#include "ep-random-private.h"
#include "ep-tensor-private.h"

G_LOCK_DEFINE_STATIC (random_state);
static gboolean random_seeded;
static guint64 random_seed;
static guint64 random_stream;

/**
 * ep_set_seed:
 * @seed: any number
 *
 * Seeds the random functions ([func@uniform], [func@normal]) of every
 * thread and restarts their sequence: after the same seed, the same
 * calls give the same tensors, on every device. Without a seed the
 * sequence starts from an unpredictable one.
 */
void
ep_set_seed (guint64 seed)
{
  G_LOCK (random_state);
  random_seed = seed;
  random_stream = 0;
  random_seeded = TRUE;
  G_UNLOCK (random_state);
}

/* The seed and the next stream number, for one call (a replay of a
 * staged random op draws its own, as the eager call would). */
void
ep_random_next_stream (guint64 *seed,
                       guint64 *stream)
{
  G_LOCK (random_state);
  if (!random_seeded)
    {
      random_seed = ((guint64) g_random_int () << 32) | g_random_int ();
      random_seeded = TRUE;
    }
  *seed = random_seed;
  *stream = random_stream++;
  G_UNLOCK (random_state);
}

static gboolean
random_infer (EpOpCall  *call,
              GError   **error)
{
  EpOpAttrs *attrs = &call->attrs;

  if (!ep_dtype_is_floating (attrs->dtype))
    {
      g_set_error (error, EP_ERROR, EP_ERROR_DTYPE,
                   _("%s: makes float32 or float64 tensors, not %s"),
                   call->op->name, ep_dtype_get_name (attrs->dtype));
      return FALSE;
    }

  return ep_layout_init (&call->output_layouts[0], attrs->dtype, attrs->shape,
                         attrs->ndim, call->op->name, error);
}

/* Set by the library: the seed and the call's stream; the device, as for
 * every creation op */
#define RANDOM_INTERNAL_ATTRS                                               \
  EP_ATTR ("seed", EP_ATTR_SEED, EP_FIELD (random.seed),                    \
           .flags = EP_ATTR_INTERNAL),                                      \
  EP_ATTR ("stream", EP_ATTR_SEED, EP_FIELD (random.stream),                \
           .flags = EP_ATTR_INTERNAL),                                      \
  EP_ATTR_DEVICE_ARG (.flags = EP_ATTR_INTERNAL)

const EpOpDef ep_op_uniform = {
  .id = EP_OP_UNIFORM, .name = "uniform",
  .flags = EP_OP_FLAG_RANDOM,
  EP_ATTRS (EP_ATTR_SHAPE_ARG,
            EP_ATTR ("low", EP_ATTR_FLOAT, EP_FIELD (random.a), EP_DEFAULT (0),
                     .flags = EP_ATTR_FINITE),
            EP_ATTR ("high", EP_ATTR_FLOAT, EP_FIELD (random.b), EP_DEFAULT (1),
                     .flags = EP_ATTR_FINITE),
            EP_ATTR_DTYPE_ARG (EP_DEFAULT (EP_DTYPE_FLOAT32)),
            RANDOM_INTERNAL_ATTRS),
  .infer = random_infer,
};

const EpOpDef ep_op_normal = {
  .id = EP_OP_NORMAL, .name = "normal",
  .flags = EP_OP_FLAG_RANDOM,
  EP_ATTRS (EP_ATTR_SHAPE_ARG,
            EP_ATTR ("mean", EP_ATTR_FLOAT, EP_FIELD (random.a), EP_DEFAULT (0),
                     .flags = EP_ATTR_FINITE),
            EP_ATTR ("stddev", EP_ATTR_FLOAT, EP_FIELD (random.b), EP_DEFAULT (1),
                     .flags = EP_ATTR_FINITE | EP_ATTR_NON_NEGATIVE),
            EP_ATTR_DTYPE_ARG (EP_DEFAULT (EP_DTYPE_FLOAT32)),
            RANDOM_INTERNAL_ATTRS),
  .infer = random_infer,
};

static EpTensor *
random_tensor (const EpOpDef  *op,
               const gint64   *shape,
               guint           ndim,
               gdouble         a,
               gdouble         b,
               EpDType         dtype,
               GError        **error)
{
  EpOpAttrs attrs;

  g_return_val_if_fail (shape != NULL || ndim == 0, NULL);

  ep_op_attrs_init (&attrs);
  ep_op_attrs_set_list (attrs.shape, attrs.ndim, shape, ndim);
  ep_random_next_stream (&attrs.random.seed, &attrs.random.stream);
  attrs.random.a = a;
  attrs.random.b = b;
  attrs.dtype = dtype;

  return ep_dispatch1 (op, NULL, 0, &attrs, error);
}

/**
 * ep_uniform:
 * @shape: (array length=ndim): the shape
 * @ndim: the number of dimensions
 * @low: the smallest value
 * @high: the end of the interval, not included
 * @dtype: %EP_DTYPE_FLOAT32 or %EP_DTYPE_FLOAT64
 * @error: return location for an error
 *
 * Random numbers drawn uniformly from [@low, @high), on the current
 * device. The sequence is set by [func@set_seed] and is the same on every
 * device; each call continues it.
 *
 * Returns: (transfer full): the new tensor, or %NULL with
 *   %EP_ERROR_INVALID_ARGUMENT set if a bound is not finite,
 *   %EP_ERROR_DTYPE for a type that is not floating-point, or
 *   %EP_ERROR_SHAPE for a negative dimension
 */
EpTensor *
ep_uniform (const gint64  *shape,
            guint          ndim,
            gdouble        low,
            gdouble        high,
            EpDType        dtype,
            GError       **error)
{
  return random_tensor (&ep_op_uniform, shape, ndim, low, high, dtype, error);
}

/**
 * ep_normal:
 * @shape: (array length=ndim): the shape
 * @ndim: the number of dimensions
 * @mean: the mean
 * @stddev: the standard deviation, not negative
 * @dtype: %EP_DTYPE_FLOAT32 or %EP_DTYPE_FLOAT64
 * @error: return location for an error
 *
 * Random numbers drawn from the normal distribution, on the current
 * device. The sequence is set by [func@set_seed] and is the same on every
 * device; each call continues it.
 *
 * Returns: (transfer full): the new tensor, or %NULL with
 *   %EP_ERROR_INVALID_ARGUMENT set if @mean is not finite or @stddev is
 *   negative or not finite, %EP_ERROR_DTYPE for a type that is not
 *   floating-point, or %EP_ERROR_SHAPE for a negative dimension
 */
EpTensor *
ep_normal (const gint64  *shape,
           guint          ndim,
           gdouble        mean,
           gdouble        stddev,
           EpDType        dtype,
           GError       **error)
{
  return random_tensor (&ep_op_normal, shape, ndim, mean, stddev, dtype, error);
}

/* Initializers: PyTorch's torch.nn.init, drawn through uniform and normal */

#define GAIN_INIT_FUNC(op_name)                                             \
  const EpOpDef ep_func_##op_name = {                                       \
    .id = EP_N_OPS, .name = #op_name,                                       \
    EP_ATTRS (EP_ATTR_SHAPE_ARG,                                            \
              EP_ATTR ("gain", EP_ATTR_FLOAT, EP_NO_FIELD, EP_DEFAULT (1)), \
              EP_ATTR_DTYPE_ARG (EP_DEFAULT (EP_DTYPE_FLOAT32))),           \
  };
#define HE_INIT_FUNC(op_name)                                               \
  const EpOpDef ep_func_##op_name = {                                       \
    .id = EP_N_OPS, .name = #op_name,                                       \
    EP_ATTRS (EP_ATTR_SHAPE_ARG,                                            \
              EP_ATTR_DTYPE_ARG (EP_DEFAULT (EP_DTYPE_FLOAT32))),           \
  };

GAIN_INIT_FUNC (glorot_uniform)
GAIN_INIT_FUNC (glorot_normal)
HE_INIT_FUNC (he_uniform)
HE_INIT_FUNC (he_normal)

/* PyTorch's _calculate_fan_in_and_fan_out: a weight of shape
 * (out, in, k…) has fan_in = in · Πk and fan_out = out · Πk. */
static gboolean
init_fans (const char    *caller,
           const gint64  *shape,
           guint          ndim,
           gdouble       *fan_in,
           gdouble       *fan_out,
           GError       **error)
{
  gdouble receptive = 1;

  if (ndim < 2)
    {
      g_set_error (error, EP_ERROR, EP_ERROR_SHAPE,
                   _("%s: the shape must have at least 2 dimensions (out, in, …), not %u"),
                   caller, ndim);
      return FALSE;
    }
  for (guint d = 2; d < ndim; d++)
    receptive *= (gdouble) shape[d];

  *fan_in = (gdouble) shape[1] * receptive;
  *fan_out = (gdouble) shape[0] * receptive;
  return TRUE;
}

static EpTensor *
init_draw (const char    *caller,
           gboolean       normal,
           const gint64  *shape,
           guint          ndim,
           gdouble        fan,
           gdouble        scale,
           EpDType        dtype,
           GError       **error)
{
  gdouble spread;

  g_return_val_if_fail (shape != NULL || ndim == 0, NULL);

  if (!isfinite (scale) || scale < 0)
    {
      g_set_error (error, EP_ERROR, EP_ERROR_INVALID_ARGUMENT,
                   _("%s: the gain must be finite and not negative, not %g"), caller, scale);
      return NULL;
    }
  /* a zero fan is an empty tensor (PyTorch leaves it as it is), a
   * negative one a negative dimension, which the draw refuses */
  spread = fan > 0 ? scale / sqrt (fan) : 0;
  if (normal)
    return ep_error_named_result (ep_normal (shape, ndim, 0, spread, dtype, error), error, caller);

  /* a uniform of half-width b has standard deviation b / √3 */
  spread *= sqrt (3.0);
  return ep_error_named_result (ep_uniform (shape, ndim, -spread, spread, dtype, error), error, caller);
}

static EpTensor *
glorot (const char    *caller,
        gboolean       normal,
        const gint64  *shape,
        guint          ndim,
        gdouble        gain,
        EpDType        dtype,
        GError       **error)
{
  gdouble fan_in, fan_out;

  if (!init_fans (caller, shape, ndim, &fan_in, &fan_out, error))
    return NULL;

  /* std = gain · √(2 / (fan_in + fan_out)) */
  return init_draw (caller, normal, shape, ndim, (fan_in + fan_out) / 2, gain, dtype, error);
}

static EpTensor *
he (const char    *caller,
    gboolean       normal,
    const gint64  *shape,
    guint          ndim,
    EpDType        dtype,
    GError       **error)
{
  gdouble fan_in, fan_out;

  if (!init_fans (caller, shape, ndim, &fan_in, &fan_out, error))
    return NULL;

  /* std = √2 / √fan_in, the ReLU's gain over fan_in */
  return init_draw (caller, normal, shape, ndim, fan_in, sqrt (2.0), dtype, error);
}

/**
 * ep_glorot_uniform:
 * @shape: (array length=ndim): the shape, (out, in) or (out, in, k…) for a
 *   convolution's weight
 * @ndim: the number of dimensions, at least 2
 * @gain: the scale, not negative (1 for tanh-free layers, as PyTorch)
 * @dtype: %EP_DTYPE_FLOAT32 or %EP_DTYPE_FLOAT64
 * @error: return location for an error
 *
 * Glorot (Xavier) uniform initial weights, as PyTorch's
 * `torch.nn.init.xavier_uniform_`: drawn from U(-b, b) with
 * `b = gain · √(6 / (fan_in + fan_out))`, where `fan_in = shape[1] · Πk`
 * and `fan_out = shape[0] · Πk` (Πk the product of `shape[2:]`). Drawn
 * through [func@uniform] on the current device: [func@set_seed] gives the
 * same weights on every device.
 *
 * Returns: (transfer full): the weights, or %NULL with %EP_ERROR_SHAPE set
 *   for fewer than 2 dimensions or a negative dimension, %EP_ERROR_INVALID_ARGUMENT
 *   for a bad @gain, or %EP_ERROR_DTYPE for a type that is not
 *   floating-point
 */
EpTensor *
ep_glorot_uniform (const gint64  *shape,
                   guint          ndim,
                   gdouble        gain,
                   EpDType        dtype,
                   GError       **error)
{
  return glorot ("glorot_uniform", FALSE, shape, ndim, gain, dtype, error);
}

/**
 * ep_glorot_normal:
 * @shape: (array length=ndim): the shape, (out, in) or (out, in, k…)
 * @ndim: the number of dimensions, at least 2
 * @gain: the scale, not negative
 * @dtype: %EP_DTYPE_FLOAT32 or %EP_DTYPE_FLOAT64
 * @error: return location for an error
 *
 * Glorot (Xavier) normal initial weights, as PyTorch's
 * `torch.nn.init.xavier_normal_`: drawn from N(0, σ²) with
 * `σ = gain · √(2 / (fan_in + fan_out))`, the fans as in
 * [func@glorot_uniform]. Seeded by [func@set_seed], the same on every
 * device.
 *
 * Returns: (transfer full): the weights, or %NULL with %EP_ERROR_SHAPE set
 *   for fewer than 2 dimensions or a negative dimension, %EP_ERROR_INVALID_ARGUMENT
 *   for a bad @gain, or %EP_ERROR_DTYPE for a type that is not
 *   floating-point
 */
EpTensor *
ep_glorot_normal (const gint64  *shape,
                  guint          ndim,
                  gdouble        gain,
                  EpDType        dtype,
                  GError       **error)
{
  return glorot ("glorot_normal", TRUE, shape, ndim, gain, dtype, error);
}

/**
 * ep_he_uniform:
 * @shape: (array length=ndim): the shape, (out, in) or (out, in, k…)
 * @ndim: the number of dimensions, at least 2
 * @dtype: %EP_DTYPE_FLOAT32 or %EP_DTYPE_FLOAT64
 * @error: return location for an error
 *
 * He (Kaiming) uniform initial weights for ReLU layers, as PyTorch's
 * `torch.nn.init.kaiming_uniform_ (w, nonlinearity="relu")`: drawn from
 * U(-b, b) with `b = √(6 / fan_in)`, the fans as in
 * [func@glorot_uniform]. Seeded by [func@set_seed], the same on every
 * device.
 *
 * Returns: (transfer full): the weights, or %NULL with %EP_ERROR_SHAPE set
 *   for fewer than 2 dimensions or a negative dimension, or %EP_ERROR_DTYPE for a
 *   type that is not floating-point
 */
EpTensor *
ep_he_uniform (const gint64  *shape,
               guint          ndim,
               EpDType        dtype,
               GError       **error)
{
  return he ("he_uniform", FALSE, shape, ndim, dtype, error);
}

/**
 * ep_he_normal:
 * @shape: (array length=ndim): the shape, (out, in) or (out, in, k…)
 * @ndim: the number of dimensions, at least 2
 * @dtype: %EP_DTYPE_FLOAT32 or %EP_DTYPE_FLOAT64
 * @error: return location for an error
 *
 * He (Kaiming) normal initial weights for ReLU layers, as PyTorch's
 * `torch.nn.init.kaiming_normal_ (w, nonlinearity="relu")`: drawn from
 * N(0, σ²) with `σ = √(2 / fan_in)`, the fans as in
 * [func@glorot_uniform]. Seeded by [func@set_seed], the same on every
 * device.
 *
 * Returns: (transfer full): the weights, or %NULL with %EP_ERROR_SHAPE set
 *   for fewer than 2 dimensions or a negative dimension, or %EP_ERROR_DTYPE for a
 *   type that is not floating-point
 */
EpTensor *
ep_he_normal (const gint64  *shape,
              guint          ndim,
              EpDType        dtype,
              GError       **error)
{
  return he ("he_normal", TRUE, shape, ndim, dtype, error);
}

/* Dropout: PyTorch's torch.nn.functional.dropout in training */

const EpOpDef ep_func_dropout = {
  .id = EP_N_OPS, .name = "dropout",
  EP_INPUTS (EP_INPUT ("self")),
  EP_ATTRS (EP_ATTR ("rate", EP_ATTR_FLOAT, EP_NO_FIELD, EP_DEFAULT (0.5))),
};

/* A uniform draw shaped like @self, where an op on @self would run: the
 * innermost device scope, else @self's device. */
static EpTensor *
uniform_like (EpTensor  *self,
              GError   **error)
{
  EpDevice *scoped = ep_context_get_device ();
  EpOpAttrs attrs;

  ep_op_attrs_init (&attrs);
  ep_op_attrs_set_list (attrs.shape, attrs.ndim, self->layout.shape, self->layout.ndim);
  ep_random_next_stream (&attrs.random.seed, &attrs.random.stream);
  attrs.random.a = 0;
  attrs.random.b = 1;
  attrs.dtype = self->layout.dtype;
  attrs.device = scoped != NULL ? scoped : ep_tensor_get_device (self);

  return ep_dispatch1 (&ep_op_uniform, NULL, 0, &attrs, error);
}

/**
 * ep_tensor_dropout:
 * @self: a float32 or float64 tensor
 * @rate: the probability of zeroing each element, in [0, 1]
 * @error: return location for an error
 *
 * Dropout as PyTorch's `torch.nn.functional.dropout` in training: each
 * element is zeroed with probability @rate and the others are scaled by
 * `1 / (1 - rate)`, so that the expected value stays the same. A @rate
 * of 0 gives the values as they are; 1 multiplies them by 0 (NaN stays
 * NaN), as PyTorch does. Every call draws once from the random
 * sequence, whatever the rate.
 *
 * The mask is `u >= rate` for u drawn by [func@uniform] in @self's type
 * on the device that computes: it follows [func@set_seed], and the same
 * seed gives the same mask on every device. The gradient is the same
 * mask, scaled, applied to the output's gradient. Inside a staged
 * function ([class@Function]) each call draws a fresh mask, and the
 * gradient of a staged call uses the mask of its forward pass.
 *
 * Returns: (transfer full): the result, or %NULL with
 *   %EP_ERROR_INVALID_ARGUMENT set if @rate is not in [0, 1], or
 *   %EP_ERROR_DTYPE if @self is not floating-point
 */
EpTensor *
ep_tensor_dropout (EpTensor  *self,
                   gdouble    rate,
                   GError   **error)
{
  g_autoptr(EpTensor) u = NULL;
  g_autoptr(EpTensor) keep = NULL;
  g_autoptr(EpTensor) kept = NULL;

  g_return_val_if_fail (EP_IS_TENSOR (self), NULL);

  if (!(rate >= 0 && rate <= 1))
    {
      g_set_error (error, EP_ERROR, EP_ERROR_INVALID_ARGUMENT,
                   _("dropout: the rate must be in [0, 1], not %g"), rate);
      return NULL;
    }
  if (!ep_dtype_is_floating (self->layout.dtype))
    {
      g_set_error (error, EP_ERROR, EP_ERROR_DTYPE,
                   _("dropout: takes a tensor of type float32 or float64, not %s"),
                   ep_dtype_get_name (self->layout.dtype));
      return NULL;
    }

  /* x · mask / (1 - rate), as PyTorch: x / (1 - rate) where kept, x · 0
   * where dropped. Every rate draws, so that the random sequence (and a
   * staged call's) does not depend on it: 0 keeps everything (x · 1 is
   * x), 1 nothing (u < 1), scaled by 1 then. */
  if ((u = uniform_like (self, error)) == NULL
      || (keep = ep_tensor_greater_equal_scalar (u, rate, error)) == NULL
      || (kept = ep_tensor_mul (self, keep, error)) == NULL)
    return ep_error_named_result (NULL, error, "dropout");

  return ep_error_named_result (ep_tensor_mul_scalar (kept, rate < 1 ? 1.0 / (1.0 - rate) : 1.0, error),
                                error, "dropout");
}
