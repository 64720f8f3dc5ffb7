/* ep-learning-rate-schedule.h
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#if !defined(EP_INSIDE) && !defined(EP_COMPILATION)
# error "Only <eager-glib/eager-glib.h> can be included directly."
#endif

#include <glib-object.h>

#include "ep-version.h"

G_BEGIN_DECLS

#define EP_TYPE_LEARNING_RATE_SCHEDULE (ep_learning_rate_schedule_get_type ())

EP_EXPORT
G_DECLARE_DERIVABLE_TYPE (EpLearningRateSchedule, ep_learning_rate_schedule,
                          EP, LEARNING_RATE_SCHEDULE, GObject)

/**
 * EpLearningRateScheduleClass:
 * @get_value: gives the learning rate at a step (0 for the first);
 *   not negative, finite
 *
 * The class of learning-rate schedules: a subclass implements
 * @get_value.
 */
struct _EpLearningRateScheduleClass
{
  GObjectClass parent_class;

  gdouble (*get_value) (EpLearningRateSchedule *self,
                        guint64                 step);

  /*< private >*/
  gpointer padding[8];
};

EP_EXPORT
gdouble   ep_learning_rate_schedule_get_value (EpLearningRateSchedule *self,
                                               guint64                 step);

G_END_DECLS
