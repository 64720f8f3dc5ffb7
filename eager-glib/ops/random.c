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

/* The seed and the next stream number, for one call. */
static void
next_stream (guint64 *seed,
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

/* attrs.ints: the shape, then the seed and the stream; attrs.values:
 * low and high, or mean and standard deviation. */
static gboolean
random_infer (EpOpCall  *call,
              GError   **error)
{
  EpOpAttrs *attrs = &call->attrs;
  const gdouble *v = attrs->values;
  gboolean normal = call->op->id == EP_OP_NORMAL;

  g_return_val_if_fail (attrs->n_ints >= 2, FALSE);

  if (!ep_dtype_is_floating (attrs->dtype))
    {
      g_set_error (error, EP_ERROR, EP_ERROR_DTYPE,
                   _("%s: makes float32 or float64 tensors, not %s"),
                   call->op->name, ep_dtype_get_name (attrs->dtype));
      return FALSE;
    }
  if (!normal && (!isfinite (v[0]) || !isfinite (v[1])))
    {
      g_set_error (error, EP_ERROR, EP_ERROR_INVALID_ARGUMENT,
                   _("uniform: low and high must be finite (got %g and %g)"), v[0], v[1]);
      return FALSE;
    }
  if (normal && (!isfinite (v[0]) || !isfinite (v[1]) || v[1] < 0))
    {
      g_set_error (error, EP_ERROR, EP_ERROR_INVALID_ARGUMENT,
                   _("normal: mean must be finite and stddev finite and not negative (got %g and %g)"),
                   v[0], v[1]);
      return FALSE;
    }

  return ep_layout_init (&call->output_layouts[0], attrs->dtype, attrs->ints,
                         attrs->n_ints - 2, call->op->name, error);
}

const EpOpDef ep_op_uniform = {
  .id = EP_OP_UNIFORM, .name = "uniform", .n_inputs = 0,
  .flags = EP_OP_FLAG_PLACE_BY_ATTR,
  .infer = random_infer,
};

const EpOpDef ep_op_normal = {
  .id = EP_OP_NORMAL, .name = "normal", .n_inputs = 0,
  .flags = EP_OP_FLAG_PLACE_BY_ATTR,
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
  guint64 seed, stream;

  g_return_val_if_fail (shape != NULL || ndim == 0, NULL);

  ep_op_attrs_init (&attrs);
  if (ndim > EP_MAX_DIMS)
    {
      g_set_error (error, EP_ERROR, EP_ERROR_SHAPE,
                   _("%s: %u dimensions requested, at most %d are supported"),
                   op->name, ndim, EP_MAX_DIMS);
      return NULL;
    }

  next_stream (&seed, &stream);
  if (ndim > 0)
    memcpy (attrs.ints, shape, ndim * sizeof (gint64));
  attrs.ints[ndim] = (gint64) seed;
  attrs.ints[ndim + 1] = (gint64) stream;
  attrs.n_ints = ndim + 2;
  attrs.values[0] = a;
  attrs.values[1] = b;
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
