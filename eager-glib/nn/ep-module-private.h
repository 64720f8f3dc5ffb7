/* ep-module-private.h
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#include "ep-module.h"

G_BEGIN_DECLS

/* nn/module.c: a layer's constructed() keeps the error of properties it
 * cannot use; g_initable_init() (the layer's _new function) and every
 * call give it. Takes @error. */
void ep_module_take_construct_error (EpModule *self,
                                     GError   *error);

/* nn/module.c: the children in registration order, held by @self */
GPtrArray *ep_module_peek_children (EpModule *self);

G_END_DECLS
