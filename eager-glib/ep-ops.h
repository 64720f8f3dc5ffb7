/* ep-ops.h: the op catalogue
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#if !defined(EP_INSIDE) && !defined(EP_COMPILATION)
# error "Only <eager-glib/eager-glib.h> can be included directly."
#endif

#include <glib.h>

#include "ep-version.h"

G_BEGIN_DECLS

EP_EXPORT
GVariant *ep_list_ops (void);

G_END_DECLS
