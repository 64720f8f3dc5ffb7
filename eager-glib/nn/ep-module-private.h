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

/* nn/module.c: the variable @name of a layer, trainable, drawn from
 * U(−@bound, @bound) through ep_uniform(); an error of the draw is
 * renamed to @layer ("Conv2d") */
EpVariable *ep_module_create_uniform_variable (EpModule      *self,
                                               const char    *name,
                                               const gint64  *shape,
                                               guint          ndim,
                                               gdouble        bound,
                                               EpDType        dtype,
                                               const char    *layer,
                                               GError       **error);

/* nn/module.c: likewise, filled with @value (ones, zeros) */
EpVariable *ep_module_create_filled_variable  (EpModule      *self,
                                               const char    *name,
                                               const gint64  *shape,
                                               guint          ndim,
                                               gdouble        value,
                                               EpDType        dtype,
                                               gboolean       trainable,
                                               const char    *layer,
                                               GError       **error);

/* nn/module.c: likewise, trainable, drawn from N(0, 1) by ep_normal() */
EpVariable *ep_module_create_normal_variable  (EpModule      *self,
                                               const char    *name,
                                               const gint64  *shape,
                                               guint          ndim,
                                               EpDType        dtype,
                                               const char    *layer,
                                               GError       **error);

/* nn/module.c: a construct-only gint64 property taking any value (a
 * layer's sizes, checked in its constructed(), so that a bad one is an
 * error of the construction rather than a GLib warning) */
GParamSpec *ep_module_size_property (const char *name,
                                     gint64      default_value);

G_END_DECLS
