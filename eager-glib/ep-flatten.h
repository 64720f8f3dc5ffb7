/* ep-flatten.h
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

#define EP_TYPE_FLATTEN (ep_flatten_get_type ())

EP_EXPORT
G_DECLARE_FINAL_TYPE (EpFlatten, ep_flatten, EP, FLATTEN, EpModule)

EP_EXPORT
EpModule     *ep_flatten_new             (void);

G_END_DECLS
