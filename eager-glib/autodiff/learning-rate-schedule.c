/* autodiff/learning-rate-schedule.c
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <math.h>

#include "ep-learning-rate-schedule.h"

/**
 * EpLearningRateSchedule:
 *
 * The base class of learning-rate schedules: objects that give the
 * learning rate of each step, as TensorFlow's schedules do. Given to an
 * optimizer ([property@Optimizer:learning-rate-schedule]), a schedule is
 * asked for the value at the optimizer's step count (0 for its first
 * step) at each [method@Optimizer.apply_gradients], also when the step
 * is part of a staged function.
 *
 * The built-in schedules ([class@ConstantSchedule],
 * [class@StepDecaySchedule], [class@CosineDecaySchedule],
 * [class@LinearWarmupSchedule]) give the values of PyTorch's
 * `torch.optim.lr_scheduler` for the same settings. A subclass (in C,
 * Python, JavaScript or Vala) implements `get_value`:
 *
 * ```python
 * class Halving(Ep.LearningRateSchedule):
 *     def do_get_value(self, step):
 *         return 0.1 * 0.5 ** (step // 100)
 *
 * opt = Ep.Adam(learning_rate_schedule=Halving())
 * ```
 */

G_DEFINE_ABSTRACT_TYPE (EpLearningRateSchedule, ep_learning_rate_schedule, G_TYPE_OBJECT)

static gdouble
ep_learning_rate_schedule_real_get_value (EpLearningRateSchedule *self,
                                          guint64                 step)
{
  return NAN;
}

static void
ep_learning_rate_schedule_class_init (EpLearningRateScheduleClass *klass)
{
  klass->get_value = ep_learning_rate_schedule_real_get_value;
}

static void
ep_learning_rate_schedule_init (EpLearningRateSchedule *self)
{
}

/**
 * ep_learning_rate_schedule_get_value:
 * @self: a schedule
 * @step: the step, 0 for the first
 *
 * Gives the learning rate of step @step.
 *
 * Returns: the learning rate; NaN from a subclass that does not
 *   implement `get_value` (an optimizer refuses it)
 */
gdouble
ep_learning_rate_schedule_get_value (EpLearningRateSchedule *self,
                                     guint64                 step)
{
  g_return_val_if_fail (EP_IS_LEARNING_RATE_SCHEDULE (self), NAN);

  return EP_LEARNING_RATE_SCHEDULE_GET_CLASS (self)->get_value (self, step);
}
