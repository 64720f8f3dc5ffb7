/* ep-adagrad.h
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#if !defined(EP_INSIDE) && !defined(EP_COMPILATION)
# error "Only <eager-glib/eager-glib.h> can be included directly."
#endif

#include "ep-optimizer.h"

G_BEGIN_DECLS

#define EP_TYPE_ADAGRAD (ep_adagrad_get_type ())

EP_EXPORT
G_DECLARE_FINAL_TYPE (EpAdagrad, ep_adagrad, EP, ADAGRAD, EpOptimizer)

EP_EXPORT
EpOptimizer   *ep_adagrad_new  (gdouble   learning_rate);

G_END_DECLS
