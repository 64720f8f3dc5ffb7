/* ep-gelu.h
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

#define EP_TYPE_GELU (ep_gelu_get_type ())

EP_EXPORT
G_DECLARE_FINAL_TYPE (EpGelu, ep_gelu, EP, GELU, EpModule)

EP_EXPORT
EpModule     *ep_gelu_new                (EpGeluApproximation  approximate);

G_END_DECLS
