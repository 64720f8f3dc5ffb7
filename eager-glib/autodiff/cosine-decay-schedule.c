/* autodiff/cosine-decay-schedule.c
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <math.h>

#include "ep-cosine-decay-schedule.h"

/**
 * EpCosineDecaySchedule:
 *
 * A learning rate that follows half a cosine from its initial value down
 * to a minimum over a number of steps: PyTorch's `CosineAnnealingLR` (its
 * closed form),
 *
 * ```
 * minimum_value + (initial_value - minimum_value) * (1 + cos (pi * step / decay_steps)) / 2
 * ```
 *
 * After [property@CosineDecaySchedule:decay-steps] it goes up again, as
 * PyTorch's does.
 *
 * ```python
 * opt = Ep.Adam(learning_rate_schedule=Ep.CosineDecaySchedule.new(1e-3, 1000, 1e-5))
 * ```
 */

struct _EpCosineDecaySchedule
{
  EpLearningRateSchedule  parent_instance;

  gdouble      initial_value;
  guint64      decay_steps;
  gdouble      minimum_value;
};

G_DEFINE_FINAL_TYPE (EpCosineDecaySchedule, ep_cosine_decay_schedule, EP_TYPE_LEARNING_RATE_SCHEDULE)

enum
{
  PROP_0,
  PROP_INITIAL_VALUE,
  PROP_DECAY_STEPS,
  PROP_MINIMUM_VALUE,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

static gdouble
ep_cosine_decay_schedule_get_value (EpLearningRateSchedule *schedule,
                                    guint64                 step)
{
  EpCosineDecaySchedule *self = EP_COSINE_DECAY_SCHEDULE (schedule);

  /* PyTorch's closed form */
  return self->minimum_value
         + (self->initial_value - self->minimum_value)
           * (1.0 + cos (G_PI * (gdouble) step / (gdouble) self->decay_steps)) / 2.0;
}

static void
ep_cosine_decay_schedule_get_property (GObject    *object,
                                       guint       prop_id,
                                       GValue     *value,
                                       GParamSpec *pspec)
{
  EpCosineDecaySchedule *self = EP_COSINE_DECAY_SCHEDULE (object);

  switch (prop_id)
    {
    case PROP_INITIAL_VALUE:
      g_value_set_double (value, self->initial_value);
      break;
    case PROP_DECAY_STEPS:
      g_value_set_uint64 (value, self->decay_steps);
      break;
    case PROP_MINIMUM_VALUE:
      g_value_set_double (value, self->minimum_value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
ep_cosine_decay_schedule_set_property (GObject      *object,
                                       guint         prop_id,
                                       const GValue *value,
                                       GParamSpec   *pspec)
{
  EpCosineDecaySchedule *self = EP_COSINE_DECAY_SCHEDULE (object);

  switch (prop_id)
    {
    case PROP_INITIAL_VALUE:
      self->initial_value = g_value_get_double (value);
      break;
    case PROP_DECAY_STEPS:
      self->decay_steps = g_value_get_uint64 (value);
      break;
    case PROP_MINIMUM_VALUE:
      self->minimum_value = g_value_get_double (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
ep_cosine_decay_schedule_class_init (EpCosineDecayScheduleClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  EpLearningRateScheduleClass *schedule_class = EP_LEARNING_RATE_SCHEDULE_CLASS (klass);

  object_class->get_property = ep_cosine_decay_schedule_get_property;
  object_class->set_property = ep_cosine_decay_schedule_set_property;
  schedule_class->get_value = ep_cosine_decay_schedule_get_value;

  /**
   * EpCosineDecaySchedule:initial-value:
   *
   * The learning rate of the first step; 1e-3 by default.
   */
  properties[PROP_INITIAL_VALUE] =
    g_param_spec_double ("initial-value", NULL, NULL, 0.0, G_MAXDOUBLE, 1e-3,
                         G_PARAM_READWRITE | G_PARAM_CONSTRUCT | G_PARAM_STATIC_STRINGS);
  /**
   * EpCosineDecaySchedule:decay-steps:
   *
   * In how many steps the value reaches the minimum (PyTorch's
   * `T_max`); 1 by default.
   */
  properties[PROP_DECAY_STEPS] =
    g_param_spec_uint64 ("decay-steps", NULL, NULL, 1, G_MAXUINT64, 1,
                         G_PARAM_READWRITE | G_PARAM_CONSTRUCT | G_PARAM_STATIC_STRINGS);
  /**
   * EpCosineDecaySchedule:minimum-value:
   *
   * The value at the end of the decay (PyTorch's `eta_min`); 0 by
   * default.
   */
  properties[PROP_MINIMUM_VALUE] =
    g_param_spec_double ("minimum-value", NULL, NULL, 0.0, G_MAXDOUBLE, 0.0,
                         G_PARAM_READWRITE | G_PARAM_CONSTRUCT | G_PARAM_STATIC_STRINGS);

  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
ep_cosine_decay_schedule_init (EpCosineDecaySchedule *self)
{
}

/**
 * ep_cosine_decay_schedule_new:
 * @initial_value: the learning rate of the first step, not negative
 * @decay_steps: in how many steps the value reaches @minimum_value, at
 *   least 1
 * @minimum_value: the value at the end of the decay, not negative
 *
 * Makes a cosine-decay schedule.
 *
 * Returns: (transfer full): the schedule
 */
EpLearningRateSchedule *
ep_cosine_decay_schedule_new (gdouble initial_value,
                            guint64 decay_steps,
                            gdouble minimum_value)
{
  g_return_val_if_fail (initial_value >= 0.0, NULL);
  g_return_val_if_fail (decay_steps >= 1, NULL);
  g_return_val_if_fail (minimum_value >= 0.0, NULL);

  return g_object_new (EP_TYPE_COSINE_DECAY_SCHEDULE,
                       "initial-value", initial_value,
                       "decay-steps", decay_steps,
                       "minimum-value", minimum_value,
                       NULL);
}
