/* ep-variable.h
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#if !defined(EP_INSIDE) && !defined(EP_COMPILATION)
# error "Only <eager-glib/eager-glib.h> can be included directly."
#endif

#include <glib-object.h>

#include "ep-tensor.h"

G_BEGIN_DECLS

#define EP_TYPE_VARIABLE (ep_variable_get_type ())

EP_EXPORT
G_DECLARE_FINAL_TYPE (EpVariable, ep_variable, EP, VARIABLE, GObject)

EP_EXPORT
EpVariable    *ep_variable_new            (EpTensor     *initial_value,
                                           const char   *name);

EP_EXPORT
EpTensor      *ep_variable_read           (EpVariable   *self);
EP_EXPORT
gboolean       ep_variable_assign         (EpVariable   *self,
                                           EpTensor     *value,
                                           GError      **error);
EP_EXPORT
gboolean       ep_variable_assign_add     (EpVariable   *self,
                                           EpTensor     *delta,
                                           GError      **error);
EP_EXPORT
gboolean       ep_variable_assign_sub     (EpVariable   *self,
                                           EpTensor     *delta,
                                           GError      **error);

EP_EXPORT
const char    *ep_variable_get_name       (EpVariable   *self);
EP_EXPORT
gboolean       ep_variable_get_trainable  (EpVariable   *self);
EP_EXPORT
void           ep_variable_set_trainable  (EpVariable   *self,
                                           gboolean      trainable);
EP_EXPORT
EpDType        ep_variable_get_dtype      (EpVariable   *self);
EP_EXPORT
const gint64  *ep_variable_get_shape      (EpVariable   *self,
                                           guint        *ndim);
EP_EXPORT
EpDevice      *ep_variable_get_device     (EpVariable   *self);

G_END_DECLS
