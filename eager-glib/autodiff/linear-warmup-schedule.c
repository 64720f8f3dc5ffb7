/* autodiff/linear-warmup-schedule.c
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <math.h>

#include "ep-linear-warmup-schedule.h"

/**
 * EpLinearWarmupSchedule:
 *
 * A linear warm-up before another schedule: for the first
 * [property@LinearWarmupSchedule:warmup-steps] steps the learning rate
 * grows linearly from `start_factor` times the other schedule's first
 * value to that value, then the other schedule runs from its step 0.
 * With `base` the value of [property@LinearWarmupSchedule:schedule] at
 * step 0 and n the warm-up steps:
 *
 * ```
 * base * (start_factor + (1 - start_factor) * step / n)   (step < n)
 * schedule (step - n)                                      (later)
 * ```
 *
 * That is PyTorch's `LinearLR(start_factor, total_iters=n)` followed by
 * the other scheduler in a `SequentialLR` with the milestone n.
 *
 * ```python
 * cosine = Ep.CosineDecaySchedule.new(1e-3, 1000, 0.0)
 * opt = Ep.Adam(learning_rate_schedule=Ep.LinearWarmupSchedule.new(cosine, 0.01, 100))
 * ```
 */

struct _EpLinearWarmupSchedule
{
  EpLearningRateSchedule   parent_instance;

  EpLearningRateSchedule  *schedule;
  gdouble                  start_factor;
  guint64                  warmup_steps;
};

G_DEFINE_FINAL_TYPE (EpLinearWarmupSchedule, ep_linear_warmup_schedule, EP_TYPE_LEARNING_RATE_SCHEDULE)

enum
{
  PROP_0,
  PROP_SCHEDULE,
  PROP_START_FACTOR,
  PROP_WARMUP_STEPS,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

static gdouble
ep_linear_warmup_schedule_get_value (EpLearningRateSchedule *schedule,
                                     guint64                 step)
{
  EpLinearWarmupSchedule *self = EP_LINEAR_WARMUP_SCHEDULE (schedule);
  gdouble base;

  /* a schedule without a schedule to warm up to has no value */
  if (self->schedule == NULL)
    return NAN;
  if (step >= self->warmup_steps)
    return ep_learning_rate_schedule_get_value (self->schedule, step - self->warmup_steps);

  /* PyTorch's LinearLR, closed form, with an end factor of 1 */
  base = ep_learning_rate_schedule_get_value (self->schedule, 0);
  return base * (self->start_factor
                 + (1.0 - self->start_factor) * (gdouble) step / (gdouble) self->warmup_steps);
}

static void
ep_linear_warmup_schedule_dispose (GObject *object)
{
  EpLinearWarmupSchedule *self = EP_LINEAR_WARMUP_SCHEDULE (object);

  g_clear_object (&self->schedule);

  G_OBJECT_CLASS (ep_linear_warmup_schedule_parent_class)->dispose (object);
}

static void
ep_linear_warmup_schedule_get_property (GObject    *object,
                                        guint       prop_id,
                                        GValue     *value,
                                        GParamSpec *pspec)
{
  EpLinearWarmupSchedule *self = EP_LINEAR_WARMUP_SCHEDULE (object);

  switch (prop_id)
    {
    case PROP_SCHEDULE:
      g_value_set_object (value, self->schedule);
      break;
    case PROP_START_FACTOR:
      g_value_set_double (value, self->start_factor);
      break;
    case PROP_WARMUP_STEPS:
      g_value_set_uint64 (value, self->warmup_steps);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
ep_linear_warmup_schedule_set_property (GObject      *object,
                                        guint         prop_id,
                                        const GValue *value,
                                        GParamSpec   *pspec)
{
  EpLinearWarmupSchedule *self = EP_LINEAR_WARMUP_SCHEDULE (object);

  switch (prop_id)
    {
    case PROP_SCHEDULE:
      g_set_object (&self->schedule, g_value_get_object (value));
      break;
    case PROP_START_FACTOR:
      self->start_factor = g_value_get_double (value);
      break;
    case PROP_WARMUP_STEPS:
      self->warmup_steps = g_value_get_uint64 (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
ep_linear_warmup_schedule_class_init (EpLinearWarmupScheduleClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  EpLearningRateScheduleClass *schedule_class = EP_LEARNING_RATE_SCHEDULE_CLASS (klass);

  object_class->dispose = ep_linear_warmup_schedule_dispose;
  object_class->get_property = ep_linear_warmup_schedule_get_property;
  object_class->set_property = ep_linear_warmup_schedule_set_property;
  schedule_class->get_value = ep_linear_warmup_schedule_get_value;

  /**
   * EpLinearWarmupSchedule:schedule:
   *
   * The schedule that follows the warm-up, and whose first value the
   * warm-up reaches. Without one the schedule has no value (NaN, which
   * optimizers refuse).
   */
  properties[PROP_SCHEDULE] =
    g_param_spec_object ("schedule", NULL, NULL, EP_TYPE_LEARNING_RATE_SCHEDULE,
                         G_PARAM_READWRITE | G_PARAM_CONSTRUCT | G_PARAM_STATIC_STRINGS);
  /**
   * EpLinearWarmupSchedule:start-factor:
   *
   * The fraction of the first value of the schedule the warm-up starts
   * from, in [0, 1] (PyTorch's `start_factor`); 1/3 by default, as
   * PyTorch's.
   */
  properties[PROP_START_FACTOR] =
    g_param_spec_double ("start-factor", NULL, NULL, 0.0, 1.0, 1.0 / 3.0,
                         G_PARAM_READWRITE | G_PARAM_CONSTRUCT | G_PARAM_STATIC_STRINGS);
  /**
   * EpLinearWarmupSchedule:warmup-steps:
   *
   * How many steps the warm-up lasts (PyTorch's `total_iters`); 5 by
   * default, as PyTorch's.
   */
  properties[PROP_WARMUP_STEPS] =
    g_param_spec_uint64 ("warmup-steps", NULL, NULL, 0, G_MAXUINT64, 5,
                         G_PARAM_READWRITE | G_PARAM_CONSTRUCT | G_PARAM_STATIC_STRINGS);

  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
ep_linear_warmup_schedule_init (EpLinearWarmupSchedule *self)
{
}

/**
 * ep_linear_warmup_schedule_new:
 * @schedule: the schedule after the warm-up
 * @start_factor: the fraction of @schedule's first value to start from,
 *   in [0, 1]
 * @warmup_steps: how many steps the warm-up lasts
 *
 * Makes a linear warm-up before @schedule.
 *
 * Returns: (transfer full): the schedule
 */
EpLearningRateSchedule *
ep_linear_warmup_schedule_new (EpLearningRateSchedule *schedule,
                               gdouble                 start_factor,
                               guint64                 warmup_steps)
{
  g_return_val_if_fail (EP_IS_LEARNING_RATE_SCHEDULE (schedule), NULL);
  g_return_val_if_fail (start_factor >= 0.0 && start_factor <= 1.0, NULL);

  return g_object_new (EP_TYPE_LINEAR_WARMUP_SCHEDULE,
                       "schedule", schedule,
                       "start-factor", start_factor,
                       "warmup-steps", warmup_steps,
                       NULL);
}
