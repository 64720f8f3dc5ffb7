/* ep-linear-warmup-schedule.h
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#if !defined(EP_INSIDE) && !defined(EP_COMPILATION)
# error "Only <eager-glib/eager-glib.h> can be included directly."
#endif

#include "ep-learning-rate-schedule.h"

G_BEGIN_DECLS

#define EP_TYPE_LINEAR_WARMUP_SCHEDULE (ep_linear_warmup_schedule_get_type ())

EP_EXPORT
G_DECLARE_FINAL_TYPE (EpLinearWarmupSchedule, ep_linear_warmup_schedule,
                      EP, LINEAR_WARMUP_SCHEDULE, EpLearningRateSchedule)

EP_EXPORT
EpLearningRateSchedule *ep_linear_warmup_schedule_new (EpLearningRateSchedule *schedule,
                                                       gdouble                 start_factor,
                                                       guint64                 warmup_steps);

G_END_DECLS
