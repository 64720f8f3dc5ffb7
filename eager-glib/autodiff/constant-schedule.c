/* autodiff/constant-schedule.c
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <math.h>

#include "ep-constant-schedule.h"

/**
 * EpConstantSchedule:
 *
 * A constant learning rate, optionally scaled by a factor for the first
 * steps: PyTorch's `ConstantLR`,
 *
 * ```
 * value * factor   (step < total_steps)
 * value            (later)
 * ```
 *
 * With the defaults (a factor of 1) it is [property@ConstantSchedule:value]
 * at every step.
 *
 * ```python
 * opt = Ep.Sgd(learning_rate_schedule=Ep.ConstantSchedule(value=0.1, factor=0.5, total_steps=4))
 * ```
 */

struct _EpConstantSchedule
{
  EpLearningRateSchedule  parent_instance;

  gdouble      value;
  gdouble      factor;
  guint64      total_steps;
};

G_DEFINE_FINAL_TYPE (EpConstantSchedule, ep_constant_schedule, EP_TYPE_LEARNING_RATE_SCHEDULE)

enum
{
  PROP_0,
  PROP_VALUE,
  PROP_FACTOR,
  PROP_TOTAL_STEPS,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

static gdouble
ep_constant_schedule_get_value (EpLearningRateSchedule *schedule,
                                guint64                 step)
{
  EpConstantSchedule *self = EP_CONSTANT_SCHEDULE (schedule);

  /* PyTorch's closed form */
  return self->value * (self->factor + (step >= self->total_steps ? 1.0 - self->factor : 0.0));
}

static void
ep_constant_schedule_get_property (GObject    *object,
                                   guint       prop_id,
                                   GValue     *value,
                                   GParamSpec *pspec)
{
  EpConstantSchedule *self = EP_CONSTANT_SCHEDULE (object);

  switch (prop_id)
    {
    case PROP_VALUE:
      g_value_set_double (value, self->value);
      break;
    case PROP_FACTOR:
      g_value_set_double (value, self->factor);
      break;
    case PROP_TOTAL_STEPS:
      g_value_set_uint64 (value, self->total_steps);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
ep_constant_schedule_set_property (GObject      *object,
                                   guint         prop_id,
                                   const GValue *value,
                                   GParamSpec   *pspec)
{
  EpConstantSchedule *self = EP_CONSTANT_SCHEDULE (object);

  switch (prop_id)
    {
    case PROP_VALUE:
      self->value = g_value_get_double (value);
      break;
    case PROP_FACTOR:
      self->factor = g_value_get_double (value);
      break;
    case PROP_TOTAL_STEPS:
      self->total_steps = g_value_get_uint64 (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
ep_constant_schedule_class_init (EpConstantScheduleClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  EpLearningRateScheduleClass *schedule_class = EP_LEARNING_RATE_SCHEDULE_CLASS (klass);

  object_class->get_property = ep_constant_schedule_get_property;
  object_class->set_property = ep_constant_schedule_set_property;
  schedule_class->get_value = ep_constant_schedule_get_value;

  /**
   * EpConstantSchedule:value:
   *
   * The learning rate; 1e-3 by default.
   */
  properties[PROP_VALUE] =
    g_param_spec_double ("value", NULL, NULL, 0.0, G_MAXDOUBLE, 1e-3,
                         G_PARAM_READWRITE | G_PARAM_CONSTRUCT | G_PARAM_STATIC_STRINGS);
  /**
   * EpConstantSchedule:factor:
   *
   * What the value is multiplied by for the first
   * [property@ConstantSchedule:total-steps] steps, in [0, 1]
   * (PyTorch's `factor`); 1 by default.
   */
  properties[PROP_FACTOR] =
    g_param_spec_double ("factor", NULL, NULL, 0.0, 1.0, 1.0,
                         G_PARAM_READWRITE | G_PARAM_CONSTRUCT | G_PARAM_STATIC_STRINGS);
  /**
   * EpConstantSchedule:total-steps:
   *
   * For how many steps the factor applies (PyTorch's `total_iters`); 0
   * by default.
   */
  properties[PROP_TOTAL_STEPS] =
    g_param_spec_uint64 ("total-steps", NULL, NULL, 0, G_MAXUINT64, 0,
                         G_PARAM_READWRITE | G_PARAM_CONSTRUCT | G_PARAM_STATIC_STRINGS);

  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
ep_constant_schedule_init (EpConstantSchedule *self)
{
}

/**
 * ep_constant_schedule_new:
 * @value: the learning rate, not negative
 *
 * Makes a schedule that gives @value at every step.
 *
 * Returns: (transfer full): the schedule
 */
EpLearningRateSchedule *
ep_constant_schedule_new (gdouble value)
{
  g_return_val_if_fail (value >= 0.0, NULL);

  return g_object_new (EP_TYPE_CONSTANT_SCHEDULE,
                       "value", value,
                       NULL);
}
