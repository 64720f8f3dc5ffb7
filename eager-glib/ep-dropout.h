/* ep-dropout.h
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#if !defined(EP_INSIDE) && !defined(EP_COMPILATION)
# error "Only <eager-glib/eager-glib.h> can be included directly."
#endif

#include "ep-module.h"
#include "ep-types.h"

G_BEGIN_DECLS

#define EP_TYPE_DROPOUT (ep_dropout_get_type ())

EP_EXPORT
G_DECLARE_FINAL_TYPE (EpDropout, ep_dropout, EP, DROPOUT, EpModule)

EP_EXPORT
EpModule     *ep_dropout_new             (gdouble     rate,
                                          GError    **error);
EP_EXPORT
gdouble       ep_dropout_get_rate        (EpDropout  *self);

G_END_DECLS
