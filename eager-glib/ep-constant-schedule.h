/* ep-constant-schedule.h
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#if !defined(EP_INSIDE) && !defined(EP_COMPILATION)
# error "Only <eager-glib/eager-glib.h> can be included directly."
#endif

#include "ep-learning-rate-schedule.h"

G_BEGIN_DECLS

#define EP_TYPE_CONSTANT_SCHEDULE (ep_constant_schedule_get_type ())

EP_EXPORT
G_DECLARE_FINAL_TYPE (EpConstantSchedule, ep_constant_schedule, EP, CONSTANT_SCHEDULE, EpLearningRateSchedule)

EP_EXPORT
EpLearningRateSchedule *ep_constant_schedule_new (gdouble value);

G_END_DECLS
