/* autodiff/adam.c
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <glib/gi18n-lib.h>
#include <math.h>

#include "ep-adam.h"
#include "ep-autodiff-private.h"
#include "ep-error.h"
#include "ep-tensor-private.h"

/**
 * EpAdam:
 *
 * Adam, and AdamW with [property@Adam:decoupled-weight-decay], with the
 * semantics of PyTorch's `torch.optim.Adam` and `torch.optim.AdamW`
 * (without amsgrad): at step t, for a gradient g of a variable p,
 *
 * ```
 * g = g + weight_decay * p                 (Adam)
 * p = p * (1 - learning_rate * weight_decay)   (AdamW)
 * m = lerp (m, g, 1 - beta1)
 * v = beta2 * v + (1 - beta2) * g * g
 * p = p - (learning_rate / (1 - beta1^t)) * m / (sqrt (v) / sqrt (1 - beta2^t) + epsilon)
 * ```
 *
 * t is the optimizer's [property@Optimizer:iterations]. The moments m
 * and v are the slots `"exp_avg"` and `"exp_avg_sq"` (the keys of
 * PyTorch's state dict).
 *
 * ```python
 * opt = Ep.Adam(learning_rate=1e-3)
 * opt_w = Ep.Adam(learning_rate=1e-3, weight_decay=1e-2, decoupled_weight_decay=True)
 * ```
 */

struct _EpAdam
{
  EpOptimizer  parent_instance;

  gdouble      beta1;
  gdouble      beta2;
  gdouble      epsilon;
  gdouble      weight_decay;
  gboolean     decoupled;
};

G_DEFINE_FINAL_TYPE (EpAdam, ep_adam, EP_TYPE_OPTIMIZER)

enum
{
  PROP_0,
  PROP_BETA1,
  PROP_BETA2,
  PROP_EPSILON,
  PROP_WEIGHT_DECAY,
  PROP_DECOUPLED_WEIGHT_DECAY,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

/* The scalars of step t: what the bias corrections and the decoupled
 * decay make of the learning rate. */
enum { STEP_SIZE, CORRECTION2_SQRT, SHRINK, N_SCALARS };

static guint
adam_scalars (EpOptimizer *optimizer,
              gdouble      lr,
              guint64      step,
              gdouble     *scalars)
{
  EpAdam *self = EP_ADAM (optimizer);
  gdouble t = (gdouble) step;

  scalars[STEP_SIZE] = lr / (1.0 - pow (self->beta1, t));
  scalars[CORRECTION2_SQRT] = sqrt (1.0 - pow (self->beta2, t));
  scalars[SHRINK] = 1.0 - lr * self->weight_decay;
  return N_SCALARS;
}

static EpTensor *
decayed_gradient (EpAdam      *self,
                  EpVariable  *variable,
                  EpTensor    *gradient,
                  GError     **error)
{
  g_autoptr(EpTensor) p = NULL;
  g_autoptr(EpTensor) decay = NULL;

  if (self->weight_decay == 0.0)
    return g_object_ref (gradient);

  p = ep_variable_read_for_update (variable);
  if (self->decoupled)
    {
      g_autoptr(EpTensor) shrunk = ep_optimizer_scale_by (EP_OPTIMIZER (self), p, SHRINK, error);

      if (shrunk == NULL || !ep_variable_assign (variable, shrunk, error))
        return NULL;
      return g_object_ref (gradient);
    }
  decay = ep_optimizer_scale (p, self->weight_decay, error);
  return decay != NULL ? ep_tensor_add (gradient, decay, error) : NULL;
}

/* The fused update: one pass over the variable, its moments and the
 * gradient, written in place, the same arithmetic as the ops below. */
#define DEFINE_ADAM_KERNEL(T, SQRT, name)                                    \
static void                                                                 \
name (EpAdam *self, T *p, T *m, T *v, const T *g, gint64 n,                 \
      gdouble shrinking, gdouble step_size, gdouble correction2_sqrt)       \
{                                                                           \
  const gdouble w = 1.0 - self->beta1;                                      \
  const T wd = (T) self->weight_decay;                                      \
  const T shrink = (T) shrinking;                                           \
  const T near = (T) (w < 0.5 ? w : 1.0 - w);                               \
  const T b2 = (T) self->beta2;                                             \
  const T one_b2 = (T) (1.0 - self->beta2);                                 \
  const T c2 = (T) correction2_sqrt;                                        \
  const T eps = (T) self->epsilon;                                          \
  const T size = (T) step_size;                                             \
  const gboolean decay = self->weight_decay != 0.0;                         \
                                                                            \
  for (gint64 i = 0; i < n; i++)                                            \
    {                                                                       \
      T gi = g[i];                                                          \
                                                                            \
      if (decay && self->decoupled)                                         \
        p[i] = p[i] * shrink;                                               \
      else if (decay)                                                       \
        gi = gi + p[i] * wd;                                                \
      m[i] = w < 0.5 ? m[i] + (gi - m[i]) * near : gi - (gi - m[i]) * near; \
      v[i] = v[i] * b2 + (gi * one_b2) * gi;                                \
      p[i] = p[i] - (m[i] * size) / (SQRT (v[i]) / c2 + eps);               \
    }                                                                       \
}

DEFINE_ADAM_KERNEL (gfloat, sqrtf, adam_kernel_float32)
DEFINE_ADAM_KERNEL (gdouble, sqrt, adam_kernel_float64)

static gboolean
adam_in_place (EpAdam      *self,
               EpVariable  *variable,
               EpTensor    *gradient)
{
  EpOptimizer *optimizer = EP_OPTIMIZER (self);
  gconstpointer g = ep_optimizer_host_gradient (gradient);
  gint64 n = ep_layout_get_size (&gradient->layout);
  EpVariable *m_slot = ep_optimizer_get_slot (optimizer, variable, "exp_avg");
  EpVariable *v_slot = ep_optimizer_get_slot (optimizer, variable, "exp_avg_sq");
  gpointer p, m, v;
  gdouble shrink = ep_optimizer_get_scalar (optimizer, SHRINK);
  gdouble step_size = ep_optimizer_get_scalar (optimizer, STEP_SIZE);
  gdouble correction2_sqrt = ep_optimizer_get_scalar (optimizer, CORRECTION2_SQRT);

  /* the first step makes the slots: by ops */
  if (g == NULL || m_slot == NULL || v_slot == NULL)
    return FALSE;
  p = ep_variable_begin_in_place (variable);
  if (p == NULL)
    return FALSE;
  m = ep_variable_begin_in_place (m_slot);
  v = m != NULL ? ep_variable_begin_in_place (v_slot) : NULL;
  if (v == NULL)
    {
      if (m != NULL)
        ep_variable_end_in_place (m_slot);
      ep_variable_end_in_place (variable);
      return FALSE;
    }

  if (gradient->layout.dtype == EP_DTYPE_FLOAT32)
    adam_kernel_float32 (self, p, m, v, g, n, shrink, step_size, correction2_sqrt);
  else
    adam_kernel_float64 (self, p, m, v, g, n, shrink, step_size, correction2_sqrt);

  ep_variable_end_in_place (v_slot);
  ep_variable_end_in_place (m_slot);
  ep_variable_end_in_place (variable);
  return TRUE;
}

static gboolean
ep_adam_update (EpOptimizer  *optimizer,
                EpVariable   *variable,
                EpTensor     *gradient,
                GError      **error)
{
  EpAdam *self = EP_ADAM (optimizer);
  EpVariable *m_slot, *v_slot;
  g_autoptr(EpTensor) g = NULL;
  g_autoptr(EpTensor) m0 = NULL, v0 = NULL, m = NULL, v = NULL;
  g_autoptr(EpTensor) gg = NULL, v_part = NULL, g_part = NULL;
  g_autoptr(EpTensor) root = NULL, scaled_root = NULL, denom = NULL;
  g_autoptr(EpTensor) eps = NULL, numer = NULL, step = NULL;

  if (adam_in_place (self, variable, gradient))
    return TRUE;
  if (ep_optimizer_get_slot (optimizer, variable, "exp_avg") != NULL
      && ep_optimizer_get_slot (optimizer, variable, "exp_avg_sq") != NULL)
    {
      const gdouble w = 1.0 - self->beta1;
      EpVariable *state[4] = {
        variable,
        ep_optimizer_get_slot (optimizer, variable, "exp_avg"),
        ep_optimizer_get_slot (optimizer, variable, "exp_avg_sq"),
      };
      gdouble constants[8] = {
        self->weight_decay, ep_optimizer_get_scalar (optimizer, SHRINK), w < 0.5 ? w : 1.0 - w,
        self->beta2, 1.0 - self->beta2, ep_optimizer_get_scalar (optimizer, CORRECTION2_SQRT),
        self->epsilon, ep_optimizer_get_scalar (optimizer, STEP_SIZE),
      };
      gint flags = (self->weight_decay != 0.0 ? EP_OPT_DECAY : 0)
                   | (self->decoupled ? EP_OPT_DECOUPLED : 0)
                   | (w < 0.5 ? EP_OPT_NEAR_LOW : 0);
      gboolean ran;

      if (!ep_optimizer_update_on_device ("adam_update", state, gradient, constants, flags, &ran, error))
        return FALSE;
      if (ran)
        return TRUE;
    }

  m_slot = ep_optimizer_ensure_slot (optimizer, variable, "exp_avg", NULL, error);
  v_slot = m_slot != NULL ? ep_optimizer_ensure_slot (optimizer, variable, "exp_avg_sq", NULL, error) : NULL;
  if (v_slot == NULL)
    return FALSE;
  g = decayed_gradient (self, variable, gradient, error);
  if (g == NULL)
    return FALSE;

  m0 = ep_variable_read_for_update (m_slot);
  v0 = ep_variable_read_for_update (v_slot);
  m = ep_optimizer_store (m_slot, ep_optimizer_lerp (m0, g, 1.0 - self->beta1, error), error);
  if (m == NULL)
    return FALSE;
  /* PyTorch's addcmul: v * beta2 + ((1 - beta2) * g) * g */
  v_part = ep_optimizer_scale (v0, self->beta2, error);
  g_part = v_part != NULL ? ep_optimizer_scale (g, 1.0 - self->beta2, error) : NULL;
  gg = g_part != NULL ? ep_tensor_mul (g_part, g, error) : NULL;
  v = gg != NULL ? ep_optimizer_store (v_slot, ep_tensor_add (v_part, gg, error), error) : NULL;
  if (v == NULL)
    return FALSE;

  eps = ep_tensor_new_weak_scalar (self->epsilon, EP_DTYPE_FLOAT64);
  root = ep_tensor_sqrt (v, error);
  if (root != NULL)
    {
      g_autoptr(EpTensor) divisor = ep_optimizer_factor (optimizer, CORRECTION2_SQRT, root, error);

      scaled_root = divisor != NULL ? ep_tensor_div (root, divisor, error) : NULL;
    }
  denom = scaled_root != NULL ? ep_tensor_add (scaled_root, eps, error) : NULL;
  /* PyTorch's addcdiv: p + (-step_size * m) / denom */
  numer = denom != NULL ? ep_optimizer_scale_by (optimizer, m, STEP_SIZE, error) : NULL;
  step = numer != NULL ? ep_tensor_div (numer, denom, error) : NULL;

  return step != NULL && ep_variable_assign_sub (variable, step, error);
}

static guint
adam_slots (EpOptimizer     *optimizer,
            EpOptimizerSlot *slots)
{
  slots[0] = (EpOptimizerSlot) { "exp_avg", 0.0 };
  slots[1] = (EpOptimizerSlot) { "exp_avg_sq", 0.0 };
  return 2;
}

static void
ep_adam_get_property (GObject    *object,
                      guint       prop_id,
                      GValue     *value,
                      GParamSpec *pspec)
{
  EpAdam *self = EP_ADAM (object);

  switch (prop_id)
    {
    case PROP_BETA1:
      g_value_set_double (value, self->beta1);
      break;
    case PROP_BETA2:
      g_value_set_double (value, self->beta2);
      break;
    case PROP_EPSILON:
      g_value_set_double (value, self->epsilon);
      break;
    case PROP_WEIGHT_DECAY:
      g_value_set_double (value, self->weight_decay);
      break;
    case PROP_DECOUPLED_WEIGHT_DECAY:
      g_value_set_boolean (value, self->decoupled);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
ep_adam_set_property (GObject      *object,
                      guint         prop_id,
                      const GValue *value,
                      GParamSpec   *pspec)
{
  EpAdam *self = EP_ADAM (object);

  switch (prop_id)
    {
    case PROP_BETA1:
      self->beta1 = g_value_get_double (value);
      break;
    case PROP_BETA2:
      self->beta2 = g_value_get_double (value);
      break;
    case PROP_EPSILON:
      self->epsilon = g_value_get_double (value);
      break;
    case PROP_WEIGHT_DECAY:
      self->weight_decay = g_value_get_double (value);
      break;
    case PROP_DECOUPLED_WEIGHT_DECAY:
      self->decoupled = g_value_get_boolean (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
ep_adam_class_init (EpAdamClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  EpOptimizerClass *optimizer_class = EP_OPTIMIZER_CLASS (klass);

  object_class->get_property = ep_adam_get_property;
  object_class->set_property = ep_adam_set_property;
  optimizer_class->update = ep_adam_update;
  ep_optimizer_class_set_scalars_func (optimizer_class, adam_scalars);
  ep_optimizer_class_set_slots_func (optimizer_class, adam_slots);

  /**
   * EpAdam:beta1:
   *
   * The decay of the first moment, in [0, 1); 0.9 by default.
   */
  properties[PROP_BETA1] =
    g_param_spec_double ("beta1", NULL, NULL, 0.0, 1.0, 0.9,
                         G_PARAM_READWRITE | G_PARAM_CONSTRUCT | G_PARAM_STATIC_STRINGS);
  /**
   * EpAdam:beta2:
   *
   * The decay of the second moment, in [0, 1); 0.999 by default.
   */
  properties[PROP_BETA2] =
    g_param_spec_double ("beta2", NULL, NULL, 0.0, 1.0, 0.999,
                         G_PARAM_READWRITE | G_PARAM_CONSTRUCT | G_PARAM_STATIC_STRINGS);
  /**
   * EpAdam:epsilon:
   *
   * Added to the denominator; 1e-8 by default.
   */
  properties[PROP_EPSILON] =
    g_param_spec_double ("epsilon", NULL, NULL, 0.0, G_MAXDOUBLE, 1e-8,
                         G_PARAM_READWRITE | G_PARAM_CONSTRUCT | G_PARAM_STATIC_STRINGS);
  /**
   * EpAdam:weight-decay:
   *
   * The weight decay: an L2 penalty added to the gradient, or with
   * [property@Adam:decoupled-weight-decay] a shrinking of the variable
   * by `learning_rate * weight_decay` (AdamW); 0 by default.
   */
  properties[PROP_WEIGHT_DECAY] =
    g_param_spec_double ("weight-decay", NULL, NULL, 0.0, G_MAXDOUBLE, 0.0,
                         G_PARAM_READWRITE | G_PARAM_CONSTRUCT | G_PARAM_STATIC_STRINGS);
  /**
   * EpAdam:decoupled-weight-decay:
   *
   * Whether the weight decay is decoupled from the gradient, as in AdamW
   * (Loshchilov and Hutter); %FALSE by default.
   */
  properties[PROP_DECOUPLED_WEIGHT_DECAY] =
    g_param_spec_boolean ("decoupled-weight-decay", NULL, NULL, FALSE,
                          G_PARAM_READWRITE | G_PARAM_CONSTRUCT | G_PARAM_STATIC_STRINGS);

  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
ep_adam_init (EpAdam *self)
{
}

/**
 * ep_adam_new:
 * @learning_rate: the step size
 *
 * Makes an Adam optimizer with PyTorch's defaults (betas 0.9 and 0.999,
 * epsilon 1e-8, no weight decay).
 *
 * Returns: (transfer full): the optimizer
 */
EpOptimizer *
ep_adam_new (gdouble learning_rate)
{
  g_return_val_if_fail (learning_rate >= 0.0, NULL);

  return g_object_new (EP_TYPE_ADAM, "learning-rate", learning_rate, NULL);
}

/**
 * ep_adam_new_adamw:
 * @learning_rate: the step size
 * @weight_decay: the decoupled weight decay (PyTorch's default is 0.01)
 *
 * Makes an AdamW optimizer: Adam with decoupled weight decay.
 *
 * Returns: (transfer full): the optimizer
 */
EpOptimizer *
ep_adam_new_adamw (gdouble learning_rate,
                   gdouble weight_decay)
{
  g_return_val_if_fail (learning_rate >= 0.0, NULL);
  g_return_val_if_fail (weight_decay >= 0.0, NULL);

  return g_object_new (EP_TYPE_ADAM,
                       "learning-rate", learning_rate,
                       "weight-decay", weight_decay,
                       "decoupled-weight-decay", TRUE,
                       NULL);
}
