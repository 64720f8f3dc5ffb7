/* ep-relu.h
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#if !defined(EP_INSIDE) && !defined(EP_COMPILATION)
# error "Only <eager-glib/eager-glib.h> can be included directly."
#endif

#include "ep-module.h"

G_BEGIN_DECLS

#define EP_TYPE_RELU (ep_relu_get_type ())

EP_EXPORT
G_DECLARE_FINAL_TYPE (EpRelu, ep_relu, EP, RELU, EpModule)

EP_EXPORT
EpModule     *ep_relu_new (void);

G_END_DECLS
