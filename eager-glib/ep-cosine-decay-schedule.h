/* ep-cosine-decay-schedule.h
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#if !defined(EP_INSIDE) && !defined(EP_COMPILATION)
# error "Only <eager-glib/eager-glib.h> can be included directly."
#endif

#include "ep-learning-rate-schedule.h"

G_BEGIN_DECLS

#define EP_TYPE_COSINE_DECAY_SCHEDULE (ep_cosine_decay_schedule_get_type ())

EP_EXPORT
G_DECLARE_FINAL_TYPE (EpCosineDecaySchedule, ep_cosine_decay_schedule, EP, COSINE_DECAY_SCHEDULE, EpLearningRateSchedule)

EP_EXPORT
EpLearningRateSchedule *ep_cosine_decay_schedule_new (gdouble  initial_value,
                                                      guint64  decay_steps,
                                                      gdouble  minimum_value);

G_END_DECLS
