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
#include "ep-random-private.h"

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
