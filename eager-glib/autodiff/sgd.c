/* autodiff/sgd.c
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <glib/gi18n-lib.h>

#include "ep-autodiff-private.h"
#include "ep-error.h"
#include "ep-recorder-private.h"
#include "ep-sgd.h"
#include "ep-tensor-private.h"

/**
 * EpSgd:
 *
 * Stochastic gradient descent, optionally with momentum (heavy ball or
 * Nesterov's) and L2 weight decay, with the semantics of PyTorch's
 * `torch.optim.SGD`: for a gradient g of a variable p,
 *
 * ```
 * g = g + weight_decay * p
 * b = g                                    (first step)
 * b = momentum * b + (1 - dampening) * g   (later steps)
 * g = g + momentum * b   (nesterov)   or   g = b
 * p = p - learning_rate * g
 * ```
 *
 * The momentum buffer b is the slot `"momentum_buffer"` (only with a momentum
 * other than 0).
 *
 * ```python
 * opt = Ep.Sgd(learning_rate=0.1, momentum=0.9, nesterov=True)
 * ```
 */

struct _EpSgd
{
  EpOptimizer  parent_instance;

  gdouble      momentum;
  gdouble      dampening;
  gdouble      weight_decay;
  gboolean     nesterov;
};

G_DEFINE_FINAL_TYPE (EpSgd, ep_sgd, EP_TYPE_OPTIMIZER)

enum
{
  PROP_0,
  PROP_MOMENTUM,
  PROP_DAMPENING,
  PROP_WEIGHT_DECAY,
  PROP_NESTEROV,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

static gboolean
check_nesterov (EpSgd   *self,
                GError **error)
{
  if (self->nesterov && (self->momentum <= 0.0 || self->dampening != 0.0))
    {
      g_set_error (error, EP_ERROR, EP_ERROR_INVALID_ARGUMENT,
                   _("apply_gradients: Nesterov momentum needs a momentum above 0 and no dampening"));
      return FALSE;
    }

  return TRUE;
}

/* The scalars of a step: the learning rate, and the share of the
 * gradient the momentum takes (all of it at the first step: from a zero
 * buffer that makes the buffer the gradient, also in a staged step). */
enum { LEARNING_RATE, KEEP, N_SCALARS };

static guint
sgd_scalars (EpOptimizer *optimizer,
             gdouble      lr,
             guint64      step,
             gdouble     *scalars)
{
  EpSgd *self = EP_SGD (optimizer);

  scalars[LEARNING_RATE] = lr;
  scalars[KEEP] = step == 1 ? 1.0 : 1.0 - self->dampening;
  return N_SCALARS;
}

/* The direction of the step: g, or what momentum makes of it. */
static EpTensor *
direction (EpSgd       *self,
           EpVariable  *variable,
           EpTensor    *g,
           GError     **error)
{
  EpVariable *slot;
  gboolean created;
  g_autoptr(EpTensor) buf = NULL;
  g_autoptr(EpTensor) updated = NULL;

  if (self->momentum == 0.0)
    return g_object_ref (g);

  slot = ep_optimizer_ensure_slot (EP_OPTIMIZER (self), variable, "momentum_buffer", &created, error);
  if (slot == NULL)
    return NULL;
  if (created && !ep_recorders_any ())
    /* g * 1, g exactly in a buffer of the slot's own (sharing the
     * gradient's would keep later steps off the fused loops) */
    updated = ep_optimizer_scale (g, 1.0, error);
  else
    {
      /* staged, from a zero buffer made now: `momentum * 0 + g` at the
       * first step is g */
      g_autoptr(EpTensor) kept = ep_optimizer_scale_by (EP_OPTIMIZER (self), g, KEEP, error);
      g_autoptr(EpTensor) decayed = NULL;

      buf = ep_variable_read_for_update (slot);
      decayed = kept != NULL ? ep_optimizer_scale (buf, self->momentum, error) : NULL;
      updated = decayed != NULL ? ep_tensor_add (decayed, kept, error) : NULL;
    }
  if (updated == NULL || !ep_variable_assign (slot, updated, error))
    return NULL;
  if (!self->nesterov)
    return g_steal_pointer (&updated);

  {
    g_autoptr(EpTensor) ahead = ep_optimizer_scale (updated, self->momentum, error);

    return ahead != NULL ? ep_tensor_add (g, ahead, error) : NULL;
  }
}

/* The fused update: one pass over the variable, its momentum and the
 * gradient, written in place, the same arithmetic as the ops below. */
#define DEFINE_SGD_KERNEL(T, name)                                          \
static void                                                                 \
name (EpSgd *self, T *p, T *b, const T *g, gint64 n, gdouble lr,           \
      gdouble keeping)                                                      \
{                                                                           \
  const T wd = (T) self->weight_decay;                                      \
  const T mom = (T) self->momentum;                                         \
  const T keep = (T) keeping;                                               \
  const T rate = (T) lr;                                                    \
                                                                            \
  for (gint64 i = 0; i < n; i++)                                            \
    {                                                                       \
      T gi = g[i];                                                          \
                                                                            \
      if (self->weight_decay != 0.0)                                        \
        gi = gi + p[i] * wd;                                                \
      if (b != NULL)                                                        \
        {                                                                   \
          b[i] = b[i] * mom + gi * keep;                                    \
          gi = self->nesterov ? gi + b[i] * mom : b[i];                     \
        }                                                                   \
      p[i] = p[i] - gi * rate;                                              \
    }                                                                       \
}

DEFINE_SGD_KERNEL (gfloat, sgd_kernel_float32)
DEFINE_SGD_KERNEL (gdouble, sgd_kernel_float64)

static gboolean
sgd_in_place (EpSgd       *self,
              EpVariable  *variable,
              EpTensor    *gradient)
{
  EpOptimizer *optimizer = EP_OPTIMIZER (self);
  gconstpointer g = ep_optimizer_host_gradient (gradient);
  gint64 n = ep_layout_get_size (&gradient->layout);
  EpVariable *slot = NULL;
  gpointer p, b = NULL;

  if (g == NULL)
    return FALSE;
  if (self->momentum != 0.0)
    {
      /* the first step sets the momentum to the gradient: by ops */
      slot = ep_optimizer_get_slot (optimizer, variable, "momentum_buffer");
      if (slot == NULL)
        return FALSE;
    }
  p = ep_variable_begin_in_place (variable);
  if (p == NULL)
    return FALSE;
  if (slot != NULL && (b = ep_variable_begin_in_place (slot)) == NULL)
    {
      ep_variable_end_in_place (variable);
      return FALSE;
    }

  if (gradient->layout.dtype == EP_DTYPE_FLOAT32)
    sgd_kernel_float32 (self, p, b, g, n, ep_optimizer_get_scalar (optimizer, LEARNING_RATE),
                        ep_optimizer_get_scalar (optimizer, KEEP));
  else
    sgd_kernel_float64 (self, p, b, g, n, ep_optimizer_get_scalar (optimizer, LEARNING_RATE),
                        ep_optimizer_get_scalar (optimizer, KEEP));

  if (slot != NULL)
    ep_variable_end_in_place (slot);
  ep_variable_end_in_place (variable);
  return TRUE;
}

static gboolean
ep_sgd_update (EpOptimizer  *optimizer,
               EpVariable   *variable,
               EpTensor     *gradient,
               GError      **error)
{
  EpSgd *self = EP_SGD (optimizer);
  g_autoptr(EpTensor) p = NULL;
  g_autoptr(EpTensor) g = NULL;
  g_autoptr(EpTensor) d = NULL;
  g_autoptr(EpTensor) step = NULL;

  if (!check_nesterov (self, error))
    return FALSE;
  if (sgd_in_place (self, variable, gradient))
    return TRUE;
  if (self->momentum == 0.0 || ep_optimizer_get_slot (optimizer, variable, "momentum_buffer") != NULL)
    {
      EpVariable *state[4] = { variable, ep_optimizer_get_slot (optimizer, variable, "momentum_buffer") };
      gdouble constants[8] = {
        self->weight_decay, self->momentum, ep_optimizer_get_scalar (optimizer, KEEP),
        ep_optimizer_get_scalar (optimizer, LEARNING_RATE),
      };
      gint flags = (self->weight_decay != 0.0 ? EP_OPT_DECAY : 0)
                   | (state[1] != NULL ? EP_OPT_SLOT_A : 0)
                   | (self->nesterov ? EP_OPT_DECOUPLED : 0);
      gboolean ran;

      if (!ep_optimizer_update_on_device ("sgd_update", state, gradient, constants, flags, &ran, error))
        return FALSE;
      if (ran)
        return TRUE;
    }

  p = ep_variable_read_for_update (variable);
  if (self->weight_decay != 0.0)
    {
      g_autoptr(EpTensor) decay = ep_optimizer_scale (p, self->weight_decay, error);

      g = decay != NULL ? ep_tensor_add (gradient, decay, error) : NULL;
    }
  else
    g = g_object_ref (gradient);

  d = g != NULL ? direction (self, variable, g, error) : NULL;
  step = d != NULL ? ep_optimizer_scale_by (optimizer, d, LEARNING_RATE, error) : NULL;

  return step != NULL && ep_variable_assign_sub (variable, step, error);
}

static guint
sgd_slots (EpOptimizer     *optimizer,
           EpOptimizerSlot *slots)
{
  if (EP_SGD (optimizer)->momentum == 0.0)
    return 0;
  slots[0] = (EpOptimizerSlot) { "momentum_buffer", 0.0 };
  return 1;
}

static void
ep_sgd_get_property (GObject    *object,
                     guint       prop_id,
                     GValue     *value,
                     GParamSpec *pspec)
{
  EpSgd *self = EP_SGD (object);

  switch (prop_id)
    {
    case PROP_MOMENTUM:
      g_value_set_double (value, self->momentum);
      break;
    case PROP_DAMPENING:
      g_value_set_double (value, self->dampening);
      break;
    case PROP_WEIGHT_DECAY:
      g_value_set_double (value, self->weight_decay);
      break;
    case PROP_NESTEROV:
      g_value_set_boolean (value, self->nesterov);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
ep_sgd_set_property (GObject      *object,
                     guint         prop_id,
                     const GValue *value,
                     GParamSpec   *pspec)
{
  EpSgd *self = EP_SGD (object);

  switch (prop_id)
    {
    case PROP_MOMENTUM:
      self->momentum = g_value_get_double (value);
      break;
    case PROP_DAMPENING:
      self->dampening = g_value_get_double (value);
      break;
    case PROP_WEIGHT_DECAY:
      self->weight_decay = g_value_get_double (value);
      break;
    case PROP_NESTEROV:
      self->nesterov = g_value_get_boolean (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
ep_sgd_class_init (EpSgdClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  EpOptimizerClass *optimizer_class = EP_OPTIMIZER_CLASS (klass);

  object_class->get_property = ep_sgd_get_property;
  object_class->set_property = ep_sgd_set_property;
  optimizer_class->update = ep_sgd_update;
  ep_optimizer_class_set_scalars_func (optimizer_class, sgd_scalars);
  ep_optimizer_class_set_slots_func (optimizer_class, sgd_slots);

  /**
   * EpSgd:momentum:
   *
   * The momentum factor; 0 (the default) for plain gradient descent.
   */
  properties[PROP_MOMENTUM] =
    g_param_spec_double ("momentum", NULL, NULL, 0.0, G_MAXDOUBLE, 0.0,
                         G_PARAM_READWRITE | G_PARAM_CONSTRUCT | G_PARAM_STATIC_STRINGS);
  /**
   * EpSgd:dampening:
   *
   * How much of the gradient the momentum leaves out after the first
   * step; 0 by default.
   */
  properties[PROP_DAMPENING] =
    g_param_spec_double ("dampening", NULL, NULL, -G_MAXDOUBLE, G_MAXDOUBLE, 0.0,
                         G_PARAM_READWRITE | G_PARAM_CONSTRUCT | G_PARAM_STATIC_STRINGS);
  /**
   * EpSgd:weight-decay:
   *
   * The L2 penalty: `weight_decay * p` is added to each gradient.
   */
  properties[PROP_WEIGHT_DECAY] =
    g_param_spec_double ("weight-decay", NULL, NULL, 0.0, G_MAXDOUBLE, 0.0,
                         G_PARAM_READWRITE | G_PARAM_CONSTRUCT | G_PARAM_STATIC_STRINGS);
  /**
   * EpSgd:nesterov:
   *
   * Whether the momentum is Nesterov's (which needs a momentum above 0
   * and no dampening).
   */
  properties[PROP_NESTEROV] =
    g_param_spec_boolean ("nesterov", NULL, NULL, FALSE,
                          G_PARAM_READWRITE | G_PARAM_CONSTRUCT | G_PARAM_STATIC_STRINGS);

  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
ep_sgd_init (EpSgd *self)
{
}

/**
 * ep_sgd_new:
 * @learning_rate: the step size
 * @momentum: the momentum factor, 0 for none
 *
 * Makes a gradient-descent optimizer; set the other properties
 * ([property@Sgd:nesterov], [property@Sgd:weight-decay],
 * [property@Sgd:dampening]) as needed.
 *
 * Returns: (transfer full): the optimizer
 */
EpOptimizer *
ep_sgd_new (gdouble learning_rate,
            gdouble momentum)
{
  g_return_val_if_fail (learning_rate >= 0.0, NULL);
  g_return_val_if_fail (momentum >= 0.0, NULL);

  return g_object_new (EP_TYPE_SGD,
                       "learning-rate", learning_rate,
                       "momentum", momentum,
                       NULL);
}
