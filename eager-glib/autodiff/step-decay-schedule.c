/* autodiff/step-decay-schedule.c
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <math.h>

#include "ep-step-decay-schedule.h"

/**
 * EpStepDecaySchedule:
 *
 * A learning rate multiplied by a factor every so many steps: PyTorch's
 * `StepLR`,
 *
 * ```
 * initial_value * gamma ^ floor (step / step_size)
 * ```
 *
 * ```python
 * opt = Ep.Sgd(learning_rate_schedule=Ep.StepDecaySchedule.new(0.1, 30, 0.1))
 * ```
 */

struct _EpStepDecaySchedule
{
  EpLearningRateSchedule  parent_instance;

  gdouble      initial_value;
  guint64      step_size;
  gdouble      gamma;
};

G_DEFINE_FINAL_TYPE (EpStepDecaySchedule, ep_step_decay_schedule, EP_TYPE_LEARNING_RATE_SCHEDULE)

enum
{
  PROP_0,
  PROP_INITIAL_VALUE,
  PROP_STEP_SIZE,
  PROP_GAMMA,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

static gdouble
ep_step_decay_schedule_get_value (EpLearningRateSchedule *schedule,
                                  guint64                 step)
{
  EpStepDecaySchedule *self = EP_STEP_DECAY_SCHEDULE (schedule);

  /* PyTorch's closed form */
  return self->initial_value * pow (self->gamma, (gdouble) (step / self->step_size));
}

static void
ep_step_decay_schedule_get_property (GObject    *object,
                                     guint       prop_id,
                                     GValue     *value,
                                     GParamSpec *pspec)
{
  EpStepDecaySchedule *self = EP_STEP_DECAY_SCHEDULE (object);

  switch (prop_id)
    {
    case PROP_INITIAL_VALUE:
      g_value_set_double (value, self->initial_value);
      break;
    case PROP_STEP_SIZE:
      g_value_set_uint64 (value, self->step_size);
      break;
    case PROP_GAMMA:
      g_value_set_double (value, self->gamma);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
ep_step_decay_schedule_set_property (GObject      *object,
                                     guint         prop_id,
                                     const GValue *value,
                                     GParamSpec   *pspec)
{
  EpStepDecaySchedule *self = EP_STEP_DECAY_SCHEDULE (object);

  switch (prop_id)
    {
    case PROP_INITIAL_VALUE:
      self->initial_value = g_value_get_double (value);
      break;
    case PROP_STEP_SIZE:
      self->step_size = g_value_get_uint64 (value);
      break;
    case PROP_GAMMA:
      self->gamma = g_value_get_double (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
ep_step_decay_schedule_class_init (EpStepDecayScheduleClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  EpLearningRateScheduleClass *schedule_class = EP_LEARNING_RATE_SCHEDULE_CLASS (klass);

  object_class->get_property = ep_step_decay_schedule_get_property;
  object_class->set_property = ep_step_decay_schedule_set_property;
  schedule_class->get_value = ep_step_decay_schedule_get_value;

  /**
   * EpStepDecaySchedule:initial-value:
   *
   * The learning rate of the first steps; 1e-3 by default.
   */
  properties[PROP_INITIAL_VALUE] =
    g_param_spec_double ("initial-value", NULL, NULL, 0.0, G_MAXDOUBLE, 1e-3,
                         G_PARAM_READWRITE | G_PARAM_CONSTRUCT | G_PARAM_STATIC_STRINGS);
  /**
   * EpStepDecaySchedule:step-size:
   *
   * How many steps each value lasts (PyTorch's `step_size`); 1 by
   * default.
   */
  properties[PROP_STEP_SIZE] =
    g_param_spec_uint64 ("step-size", NULL, NULL, 1, G_MAXUINT64, 1,
                         G_PARAM_READWRITE | G_PARAM_CONSTRUCT | G_PARAM_STATIC_STRINGS);
  /**
   * EpStepDecaySchedule:gamma:
   *
   * The factor of each decay; 0.1 by default.
   */
  properties[PROP_GAMMA] =
    g_param_spec_double ("gamma", NULL, NULL, 0.0, G_MAXDOUBLE, 0.1,
                         G_PARAM_READWRITE | G_PARAM_CONSTRUCT | G_PARAM_STATIC_STRINGS);

  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
ep_step_decay_schedule_init (EpStepDecaySchedule *self)
{
}

/**
 * ep_step_decay_schedule_new:
 * @initial_value: the learning rate of the first steps, not negative
 * @step_size: how many steps each value lasts, at least 1
 * @gamma: the factor of each decay, not negative
 *
 * Makes a step-decay schedule.
 *
 * Returns: (transfer full): the schedule
 */
EpLearningRateSchedule *
ep_step_decay_schedule_new (gdouble initial_value,
                          guint64 step_size,
                          gdouble gamma)
{
  g_return_val_if_fail (initial_value >= 0.0, NULL);
  g_return_val_if_fail (step_size >= 1, NULL);
  g_return_val_if_fail (gamma >= 0.0, NULL);

  return g_object_new (EP_TYPE_STEP_DECAY_SCHEDULE,
                       "initial-value", initial_value,
                       "step-size", step_size,
                       "gamma", gamma,
                       NULL);
}
