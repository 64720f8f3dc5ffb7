/* autodiff/adagrad.c
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <math.h>

#include "ep-adagrad.h"
#include "ep-autodiff-private.h"
#include "ep-tensor-private.h"

/**
 * EpAdagrad:
 *
 * Adagrad, with the semantics of PyTorch's `torch.optim.Adagrad`: at
 * step t, for a gradient g of a variable p,
 *
 * ```
 * g = g + weight_decay * p
 * s = s + g * g
 * p = p - (learning_rate / (1 + (t - 1) * learning_rate_decay)) * g / (sqrt (s) + epsilon)
 * ```
 *
 * t is the optimizer's [property@Optimizer:iterations]. The sum s is the
 * slot `"sum"`, which starts at
 * [property@Adagrad:initial-accumulator-value].
 *
 * ```python
 * opt = Ep.Adagrad(learning_rate=1e-2, learning_rate_decay=1e-3)
 * ```
 */

struct _EpAdagrad
{
  EpOptimizer  parent_instance;

  gdouble      lr_decay;
  gdouble      weight_decay;
  gdouble      initial;
  gdouble      epsilon;
};

G_DEFINE_FINAL_TYPE (EpAdagrad, ep_adagrad, EP_TYPE_OPTIMIZER)

enum
{
  PROP_0,
  PROP_LEARNING_RATE_DECAY,
  PROP_WEIGHT_DECAY,
  PROP_INITIAL_ACCUMULATOR_VALUE,
  PROP_EPSILON,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

enum { P, SUM, N_STATE };

/* The fused update: one pass over the variable, its sum and the
 * gradient, written in place, the same arithmetic as the ops below. */
#define DEFINE_ADAGRAD_KERNEL(T, SQRT, name)                                  \
static void                                                                 \
name (EpAdagrad *self, gpointer *state, const T *g, gint64 n, gdouble clr)  \
{                                                                           \
  T *p = state[P], *s = state[SUM];                                         \
  const T wd = (T) self->weight_decay;                                      \
  const T eps = (T) self->epsilon;                                          \
  const T rate = (T) clr;                                                   \
  const gboolean decay = self->weight_decay != 0.0;                         \
                                                                            \
  for (gint64 i = 0; i < n; i++)                                            \
    {                                                                       \
      T gi = g[i];                                                          \
                                                                            \
      if (decay)                                                            \
        gi = gi + p[i] * wd;                                                \
      s[i] = s[i] + gi * gi;                                                \
      p[i] = p[i] - (gi * rate) / (SQRT (s[i]) + eps);                      \
    }                                                                       \
}

DEFINE_ADAGRAD_KERNEL (gfloat, sqrtf, adagrad_kernel_float32)
DEFINE_ADAGRAD_KERNEL (gdouble, sqrt, adagrad_kernel_float64)

/* The one scalar of step t: the decayed learning rate. */
static guint
adagrad_scalars (EpOptimizer *optimizer,
                 gdouble      lr,
                 guint64      step,
                 gdouble     *scalars)
{
  EpAdagrad *self = EP_ADAGRAD (optimizer);

  scalars[0] = lr / (1.0 + ((gdouble) step - 1.0) * self->lr_decay);
  return 1;
}

static gboolean
ep_adagrad_update (EpOptimizer  *optimizer,
                   EpVariable   *variable,
                   EpTensor     *gradient,
                   GError      **error)
{
  EpAdagrad *self = EP_ADAGRAD (optimizer);
  gdouble clr = ep_optimizer_get_scalar (optimizer, 0);
  EpVariable *vars[N_STATE] = { variable, NULL };
  gconstpointer host = ep_optimizer_host_gradient (gradient);
  gpointer state[N_STATE];
  g_autoptr(EpTensor) p = NULL, g = NULL, s0 = NULL, gg = NULL, s = NULL;
  g_autoptr(EpTensor) root = NULL, eps = NULL, d = NULL, numer = NULL, step = NULL;

  vars[SUM] = ep_optimizer_ensure_slot_full (optimizer, variable, "sum", self->initial, NULL, error);
  if (vars[SUM] == NULL)
    return FALSE;
  if (host != NULL && ep_optimizer_begin_in_place (vars, state, N_STATE))
    {
      if (gradient->layout.dtype == EP_DTYPE_FLOAT32)
        adagrad_kernel_float32 (self, state, host, ep_layout_get_size (&gradient->layout), clr);
      else
        adagrad_kernel_float64 (self, state, host, ep_layout_get_size (&gradient->layout), clr);
      ep_optimizer_end_in_place (vars, N_STATE);
      return TRUE;
    }
  {
    EpVariable *device_state[4] = { variable, vars[SUM] };
    gdouble constants[8] = { self->weight_decay, self->epsilon, clr };
    gboolean ran;

    if (!ep_optimizer_update_on_device ("adagrad_update", device_state, gradient, constants,
                                        self->weight_decay != 0.0 ? EP_OPT_DECAY : 0, &ran, error))
      return FALSE;
    if (ran)
      return TRUE;
  }

  p = ep_variable_read_for_update (variable);
  if (self->weight_decay != 0.0)
    {
      g_autoptr(EpTensor) decay = ep_optimizer_scale (p, self->weight_decay, error);

      g = decay != NULL ? ep_tensor_add (gradient, decay, error) : NULL;
      if (g == NULL)
        return FALSE;
    }
  else
    g = g_object_ref (gradient);

  s0 = ep_variable_read_for_update (vars[SUM]);
  gg = ep_tensor_mul (g, g, error);
  s = gg != NULL ? ep_optimizer_store (vars[SUM], ep_tensor_add (s0, gg, error), error) : NULL;
  root = s != NULL ? ep_tensor_sqrt (s, error) : NULL;
  eps = ep_tensor_new_weak_scalar (self->epsilon, EP_DTYPE_FLOAT64);
  d = root != NULL ? ep_tensor_add (root, eps, error) : NULL;
  /* PyTorch's addcdiv: p + (-clr * g) / d */
  numer = d != NULL ? ep_optimizer_scale_by (optimizer, g, 0, error) : NULL;
  step = numer != NULL ? ep_tensor_div (numer, d, error) : NULL;

  return step != NULL && ep_variable_assign_sub (variable, step, error);
}

static guint
adagrad_slots (EpOptimizer     *optimizer,
               EpOptimizerSlot *slots)
{
  slots[0] = (EpOptimizerSlot) { "sum", EP_ADAGRAD (optimizer)->initial };
  return 1;
}

static void
ep_adagrad_get_property (GObject    *object,
                         guint       prop_id,
                         GValue     *value,
                         GParamSpec *pspec)
{
  EpAdagrad *self = EP_ADAGRAD (object);

  switch (prop_id)
    {
    case PROP_LEARNING_RATE_DECAY:
      g_value_set_double (value, self->lr_decay);
      break;
    case PROP_WEIGHT_DECAY:
      g_value_set_double (value, self->weight_decay);
      break;
    case PROP_INITIAL_ACCUMULATOR_VALUE:
      g_value_set_double (value, self->initial);
      break;
    case PROP_EPSILON:
      g_value_set_double (value, self->epsilon);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
ep_adagrad_set_property (GObject      *object,
                         guint         prop_id,
                         const GValue *value,
                         GParamSpec   *pspec)
{
  EpAdagrad *self = EP_ADAGRAD (object);

  switch (prop_id)
    {
    case PROP_LEARNING_RATE_DECAY:
      self->lr_decay = g_value_get_double (value);
      break;
    case PROP_WEIGHT_DECAY:
      self->weight_decay = g_value_get_double (value);
      break;
    case PROP_INITIAL_ACCUMULATOR_VALUE:
      self->initial = g_value_get_double (value);
      break;
    case PROP_EPSILON:
      self->epsilon = g_value_get_double (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
ep_adagrad_class_init (EpAdagradClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  EpOptimizerClass *optimizer_class = EP_OPTIMIZER_CLASS (klass);

  object_class->get_property = ep_adagrad_get_property;
  object_class->set_property = ep_adagrad_set_property;
  optimizer_class->update = ep_adagrad_update;
  ep_optimizer_class_set_scalars_func (optimizer_class, adagrad_scalars);
  ep_optimizer_class_set_slots_func (optimizer_class, adagrad_slots);

  /**
   * EpAdagrad:learning-rate-decay:
   *
   * How fast the step size shrinks with the step count t: the step is
   * `learning_rate / (1 + (t - 1) * learning_rate_decay)`; 0 by default.
   */
  properties[PROP_LEARNING_RATE_DECAY] =
    g_param_spec_double ("learning-rate-decay", NULL, NULL, 0.0, G_MAXDOUBLE, 0.0,
                         G_PARAM_READWRITE | G_PARAM_CONSTRUCT | G_PARAM_STATIC_STRINGS);
  /**
   * EpAdagrad:weight-decay:
   *
   * The L2 penalty: `weight_decay * p` is added to each gradient; 0 by
   * default.
   */
  properties[PROP_WEIGHT_DECAY] =
    g_param_spec_double ("weight-decay", NULL, NULL, 0.0, G_MAXDOUBLE, 0.0,
                         G_PARAM_READWRITE | G_PARAM_CONSTRUCT | G_PARAM_STATIC_STRINGS);
  /**
   * EpAdagrad:initial-accumulator-value:
   *
   * Where the sum of squared gradients starts; 0 by default.
   */
  properties[PROP_INITIAL_ACCUMULATOR_VALUE] =
    g_param_spec_double ("initial-accumulator-value", NULL, NULL, 0.0, G_MAXDOUBLE, 0.0,
                         G_PARAM_READWRITE | G_PARAM_CONSTRUCT | G_PARAM_STATIC_STRINGS);
  /**
   * EpAdagrad:epsilon:
   *
   * Added to the denominator; 1e-10 by default.
   */
  properties[PROP_EPSILON] =
    g_param_spec_double ("epsilon", NULL, NULL, 0.0, G_MAXDOUBLE, 1e-10,
                         G_PARAM_READWRITE | G_PARAM_CONSTRUCT | G_PARAM_STATIC_STRINGS);

  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
ep_adagrad_init (EpAdagrad *self)
{
}

/**
 * ep_adagrad_new:
 * @learning_rate: the step size (PyTorch's default is 0.01)
 *
 * Makes an Adagrad optimizer with PyTorch's defaults (no learning-rate
 * decay, no weight decay, sums starting at 0, epsilon 1e-10).
 *
 * Returns: (transfer full): the optimizer
 */
EpOptimizer *
ep_adagrad_new (gdouble learning_rate)
{
  g_return_val_if_fail (learning_rate >= 0.0, NULL);

  return g_object_new (EP_TYPE_ADAGRAD, "learning-rate", learning_rate, NULL);
}
