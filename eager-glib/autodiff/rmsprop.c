/* autodiff/rmsprop.c
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <math.h>

#include "ep-autodiff-private.h"
#include "ep-rmsprop.h"
#include "ep-tensor-private.h"

/**
 * EpRmsprop:
 *
 * RMSprop, with the semantics of PyTorch's `torch.optim.RMSprop`: for a
 * gradient g of a variable p,
 *
 * ```
 * g = g + weight_decay * p
 * s = alpha * s + (1 - alpha) * g * g
 * a = lerp (a, g, 1 - alpha)                  (centered)
 * d = sqrt (s - a * a) + epsilon   (centered)   or   d = sqrt (s) + epsilon
 * b = momentum * b + g / d;  p = p - learning_rate * b    (momentum > 0)
 * p = p - learning_rate * g / d                           (otherwise)
 * ```
 *
 * The slots are `"square_avg"` (s), `"momentum_buffer"` (b, with a
 * momentum above 0) and `"grad_avg"` (a, centered only), all starting
 * at zero.
 *
 * ```python
 * opt = Ep.Rmsprop(learning_rate=1e-2, alpha=0.99, momentum=0.9, centered=True)
 * ```
 */

struct _EpRmsprop
{
  EpOptimizer  parent_instance;

  gdouble      alpha;
  gdouble      epsilon;
  gdouble      weight_decay;
  gdouble      momentum;
  gboolean     centered;
};

G_DEFINE_FINAL_TYPE (EpRmsprop, ep_rmsprop, EP_TYPE_OPTIMIZER)

enum
{
  PROP_0,
  PROP_ALPHA,
  PROP_EPSILON,
  PROP_WEIGHT_DECAY,
  PROP_MOMENTUM,
  PROP_CENTERED,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

enum { P, SQUARE_AVG, GRAD_AVG, MOMENTUM_BUFFER, N_STATE };

/* The fused update: one pass over the variable, its slots and the
 * gradient, written in place, the same arithmetic as the ops below. */
#define DEFINE_RMSPROP_KERNEL(T, SQRT, name)                                  \
static void                                                                 \
name (EpRmsprop *self, gpointer *state, const T *g, gint64 n, gdouble lr)   \
{                                                                           \
  T *p = state[P], *s = state[SQUARE_AVG];                                  \
  T *a = state[GRAD_AVG], *b = state[MOMENTUM_BUFFER];                      \
  const gdouble w = 1.0 - self->alpha;                                      \
  const T near = (T) (w < 0.5 ? w : 1.0 - w);                               \
  const T wd = (T) self->weight_decay;                                      \
  const T alpha = (T) self->alpha;                                          \
  const T one_alpha = (T) (1.0 - self->alpha);                              \
  const T eps = (T) self->epsilon;                                          \
  const T mom = (T) self->momentum;                                         \
  const T rate = (T) lr;                                                    \
  const gboolean decay = self->weight_decay != 0.0;                         \
                                                                            \
  for (gint64 i = 0; i < n; i++)                                            \
    {                                                                       \
      T gi = g[i];                                                          \
      T d;                                                                  \
                                                                            \
      if (decay)                                                            \
        gi = gi + p[i] * wd;                                                \
      s[i] = s[i] * alpha + (gi * one_alpha) * gi;                          \
      if (a != NULL)                                                        \
        {                                                                   \
          a[i] = w < 0.5 ? a[i] + (gi - a[i]) * near                        \
                         : gi - (gi - a[i]) * near;                         \
          d = SQRT (s[i] - a[i] * a[i]) + eps;                              \
        }                                                                   \
      else                                                                  \
        d = SQRT (s[i]) + eps;                                              \
      if (b != NULL)                                                        \
        {                                                                   \
          b[i] = b[i] * mom + gi / d;                                       \
          p[i] = p[i] - b[i] * rate;                                        \
        }                                                                   \
      else                                                                  \
        p[i] = p[i] - (gi * rate) / d;                                      \
    }                                                                       \
}

DEFINE_RMSPROP_KERNEL (gfloat, sqrtf, rmsprop_kernel_float32)
DEFINE_RMSPROP_KERNEL (gdouble, sqrt, rmsprop_kernel_float64)

static gboolean
rmsprop_in_place (EpRmsprop    *self,
                  EpVariable  **vars,
                  EpTensor     *gradient)
{
  gconstpointer g = ep_optimizer_host_gradient (gradient);
  gint64 n = ep_layout_get_size (&gradient->layout);
  gdouble lr = ep_optimizer_get_scalar (EP_OPTIMIZER (self), 0);
  gpointer state[N_STATE];

  if (g == NULL || !ep_optimizer_begin_in_place (vars, state, N_STATE))
    return FALSE;
  if (gradient->layout.dtype == EP_DTYPE_FLOAT32)
    rmsprop_kernel_float32 (self, state, g, n, lr);
  else
    rmsprop_kernel_float64 (self, state, g, n, lr);
  ep_optimizer_end_in_place (vars, N_STATE);

  return TRUE;
}

static gboolean
ep_rmsprop_update (EpOptimizer  *optimizer,
                   EpVariable   *variable,
                   EpTensor     *gradient,
                   GError      **error)
{
  EpRmsprop *self = EP_RMSPROP (optimizer);
  EpVariable *vars[N_STATE] = { variable, NULL, NULL, NULL };
  g_autoptr(EpTensor) p = NULL, g = NULL, s0 = NULL, s_part = NULL, g_part = NULL;
  g_autoptr(EpTensor) gg = NULL, s = NULL, centre = NULL, root = NULL;
  g_autoptr(EpTensor) eps = NULL, d = NULL, step = NULL;

  vars[SQUARE_AVG] = ep_optimizer_ensure_slot (optimizer, variable, "square_avg", NULL, error);
  if (vars[SQUARE_AVG] == NULL)
    return FALSE;
  if (self->centered
      && (vars[GRAD_AVG] = ep_optimizer_ensure_slot (optimizer, variable, "grad_avg", NULL, error)) == NULL)
    return FALSE;
  if (self->momentum > 0.0
      && (vars[MOMENTUM_BUFFER] = ep_optimizer_ensure_slot (optimizer, variable, "momentum_buffer",
                                                            NULL, error)) == NULL)
    return FALSE;
  if (rmsprop_in_place (self, vars, gradient))
    return TRUE;
  {
    const gdouble w = 1.0 - self->alpha;
    gdouble constants[8] = {
      self->weight_decay, self->alpha, 1.0 - self->alpha, w < 0.5 ? w : 1.0 - w,
      self->epsilon, self->momentum, ep_optimizer_get_scalar (optimizer, 0),
    };
    gint flags = (self->weight_decay != 0.0 ? EP_OPT_DECAY : 0)
                 | (vars[GRAD_AVG] != NULL ? EP_OPT_SLOT_A : 0)
                 | (vars[MOMENTUM_BUFFER] != NULL ? EP_OPT_SLOT_B : 0)
                 | (w < 0.5 ? EP_OPT_NEAR_LOW : 0);
    gboolean ran;

    if (!ep_optimizer_update_on_device ("rmsprop_update", vars, gradient, constants, flags, &ran, error))
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

  /* PyTorch's addcmul: s * alpha + ((1 - alpha) * g) * g */
  s0 = ep_variable_read_for_update (vars[SQUARE_AVG]);
  s_part = ep_optimizer_scale (s0, self->alpha, error);
  g_part = s_part != NULL ? ep_optimizer_scale (g, 1.0 - self->alpha, error) : NULL;
  gg = g_part != NULL ? ep_tensor_mul (g_part, g, error) : NULL;
  s = gg != NULL ? ep_optimizer_store (vars[SQUARE_AVG], ep_tensor_add (s_part, gg, error), error) : NULL;
  if (s == NULL)
    return FALSE;

  if (vars[GRAD_AVG] != NULL)
    {
      g_autoptr(EpTensor) a0 = ep_variable_read_for_update (vars[GRAD_AVG]);
      g_autoptr(EpTensor) a = ep_optimizer_store (vars[GRAD_AVG],
                                                  ep_optimizer_lerp (a0, g, 1.0 - self->alpha, error),
                                                  error);
      g_autoptr(EpTensor) aa = a != NULL ? ep_tensor_mul (a, a, error) : NULL;

      centre = aa != NULL ? ep_tensor_sub (s, aa, error) : NULL;
    }
  else
    centre = g_object_ref (s);
  root = centre != NULL ? ep_tensor_sqrt (centre, error) : NULL;
  eps = ep_tensor_new_weak_scalar (self->epsilon, EP_DTYPE_FLOAT64);
  d = root != NULL ? ep_tensor_add (root, eps, error) : NULL;
  if (d == NULL)
    return FALSE;

  if (vars[MOMENTUM_BUFFER] != NULL)
    {
      g_autoptr(EpTensor) b0 = ep_variable_read_for_update (vars[MOMENTUM_BUFFER]);
      g_autoptr(EpTensor) b_part = ep_optimizer_scale (b0, self->momentum, error);
      g_autoptr(EpTensor) ratio = b_part != NULL ? ep_tensor_div (g, d, error) : NULL;
      g_autoptr(EpTensor) b = ratio != NULL
        ? ep_optimizer_store (vars[MOMENTUM_BUFFER], ep_tensor_add (b_part, ratio, error), error)
        : NULL;

      step = b != NULL ? ep_optimizer_scale_by (optimizer, b, 0, error) : NULL;
    }
  else
    {
      /* PyTorch's addcdiv: p + (-lr * g) / d */
      g_autoptr(EpTensor) numer = ep_optimizer_scale_by (optimizer, g, 0, error);

      step = numer != NULL ? ep_tensor_div (numer, d, error) : NULL;
    }

  return step != NULL && ep_variable_assign_sub (variable, step, error);
}

static guint
rmsprop_slots (EpOptimizer     *optimizer,
               EpOptimizerSlot *slots)
{
  EpRmsprop *self = EP_RMSPROP (optimizer);
  guint n = 0;

  slots[n++] = (EpOptimizerSlot) { "square_avg", 0.0 };
  if (self->momentum > 0.0)
    slots[n++] = (EpOptimizerSlot) { "momentum_buffer", 0.0 };
  if (self->centered)
    slots[n++] = (EpOptimizerSlot) { "grad_avg", 0.0 };
  return n;
}

static void
ep_rmsprop_get_property (GObject    *object,
                         guint       prop_id,
                         GValue     *value,
                         GParamSpec *pspec)
{
  EpRmsprop *self = EP_RMSPROP (object);

  switch (prop_id)
    {
    case PROP_ALPHA:
      g_value_set_double (value, self->alpha);
      break;
    case PROP_EPSILON:
      g_value_set_double (value, self->epsilon);
      break;
    case PROP_WEIGHT_DECAY:
      g_value_set_double (value, self->weight_decay);
      break;
    case PROP_MOMENTUM:
      g_value_set_double (value, self->momentum);
      break;
    case PROP_CENTERED:
      g_value_set_boolean (value, self->centered);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
ep_rmsprop_set_property (GObject      *object,
                         guint         prop_id,
                         const GValue *value,
                         GParamSpec   *pspec)
{
  EpRmsprop *self = EP_RMSPROP (object);

  switch (prop_id)
    {
    case PROP_ALPHA:
      self->alpha = g_value_get_double (value);
      break;
    case PROP_EPSILON:
      self->epsilon = g_value_get_double (value);
      break;
    case PROP_WEIGHT_DECAY:
      self->weight_decay = g_value_get_double (value);
      break;
    case PROP_MOMENTUM:
      self->momentum = g_value_get_double (value);
      break;
    case PROP_CENTERED:
      self->centered = g_value_get_boolean (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
ep_rmsprop_class_init (EpRmspropClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  EpOptimizerClass *optimizer_class = EP_OPTIMIZER_CLASS (klass);

  object_class->get_property = ep_rmsprop_get_property;
  object_class->set_property = ep_rmsprop_set_property;
  optimizer_class->update = ep_rmsprop_update;
  ep_optimizer_class_set_slots_func (optimizer_class, rmsprop_slots);

  /**
   * EpRmsprop:alpha:
   *
   * The decay of the average of squared gradients, in [0, 1]; 0.99 by
   * default.
   */
  properties[PROP_ALPHA] =
    g_param_spec_double ("alpha", NULL, NULL, 0.0, 1.0, 0.99,
                         G_PARAM_READWRITE | G_PARAM_CONSTRUCT | G_PARAM_STATIC_STRINGS);
  /**
   * EpRmsprop:epsilon:
   *
   * Added to the denominator; 1e-8 by default.
   */
  properties[PROP_EPSILON] =
    g_param_spec_double ("epsilon", NULL, NULL, 0.0, G_MAXDOUBLE, 1e-8,
                         G_PARAM_READWRITE | G_PARAM_CONSTRUCT | G_PARAM_STATIC_STRINGS);
  /**
   * EpRmsprop:weight-decay:
   *
   * The L2 penalty: `weight_decay * p` is added to each gradient; 0 by
   * default.
   */
  properties[PROP_WEIGHT_DECAY] =
    g_param_spec_double ("weight-decay", NULL, NULL, 0.0, G_MAXDOUBLE, 0.0,
                         G_PARAM_READWRITE | G_PARAM_CONSTRUCT | G_PARAM_STATIC_STRINGS);
  /**
   * EpRmsprop:momentum:
   *
   * The momentum factor; 0 (the default) for none.
   */
  properties[PROP_MOMENTUM] =
    g_param_spec_double ("momentum", NULL, NULL, 0.0, G_MAXDOUBLE, 0.0,
                         G_PARAM_READWRITE | G_PARAM_CONSTRUCT | G_PARAM_STATIC_STRINGS);
  /**
   * EpRmsprop:centered:
   *
   * Whether the squared gradients are centred by the square of the
   * average gradient (an estimate of their variance); %FALSE by default.
   */
  properties[PROP_CENTERED] =
    g_param_spec_boolean ("centered", NULL, NULL, FALSE,
                          G_PARAM_READWRITE | G_PARAM_CONSTRUCT | G_PARAM_STATIC_STRINGS);

  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
ep_rmsprop_init (EpRmsprop *self)
{
}

/**
 * ep_rmsprop_new:
 * @learning_rate: the step size (PyTorch's default is 0.01)
 *
 * Makes an RMSprop optimizer with PyTorch's defaults (alpha 0.99,
 * epsilon 1e-8, no weight decay, no momentum, not centred).
 *
 * Returns: (transfer full): the optimizer
 */
EpOptimizer *
ep_rmsprop_new (gdouble learning_rate)
{
  g_return_val_if_fail (learning_rate >= 0.0, NULL);

  return g_object_new (EP_TYPE_RMSPROP, "learning-rate", learning_rate, NULL);
}
