/* ep-adam.h
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#if !defined(EP_INSIDE) && !defined(EP_COMPILATION)
# error "Only <eager-glib/eager-glib.h> can be included directly."
#endif

#include "ep-optimizer.h"

G_BEGIN_DECLS

#define EP_TYPE_ADAM (ep_adam_get_type ())

EP_EXPORT
G_DECLARE_FINAL_TYPE (EpAdam, ep_adam, EP, ADAM, EpOptimizer)

EP_EXPORT
EpOptimizer   *ep_adam_new      (gdouble   learning_rate);
EP_EXPORT
EpOptimizer   *ep_adam_new_adamw (gdouble   learning_rate,
                                  gdouble   weight_decay);

G_END_DECLS
