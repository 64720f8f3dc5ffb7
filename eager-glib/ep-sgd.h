/* ep-sgd.h
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#if !defined(EP_INSIDE) && !defined(EP_COMPILATION)
# error "Only <eager-glib/eager-glib.h> can be included directly."
#endif

#include "ep-optimizer.h"

G_BEGIN_DECLS

#define EP_TYPE_SGD (ep_sgd_get_type ())

EP_EXPORT
G_DECLARE_FINAL_TYPE (EpSgd, ep_sgd, EP, SGD, EpOptimizer)

EP_EXPORT
EpOptimizer   *ep_sgd_new      (gdouble   learning_rate,
                                gdouble   momentum);

G_END_DECLS
