/* ep-module.h
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#if !defined(EP_INSIDE) && !defined(EP_COMPILATION)
# error "Only <eager-glib/eager-glib.h> can be included directly."
#endif

#include <glib-object.h>

#include "ep-tensor.h"
#include "ep-variable.h"

G_BEGIN_DECLS

#define EP_TYPE_MODULE (ep_module_get_type ())

EP_EXPORT
G_DECLARE_DERIVABLE_TYPE (EpModule, ep_module, EP, MODULE, GObject)

/**
 * EpModuleClass:
 * @call: computes the module's output from @input; a subclass that has
 *   an output implements it (a module without it is a container, and
 *   calling it is an error)
 *
 * The class of modules.
 */
struct _EpModuleClass
{
  GObjectClass parent_class;

  EpTensor *(*call) (EpModule  *self,
                     EpTensor  *input,
                     GError   **error);

  /*< private >*/
  gpointer padding[8];
};

EP_EXPORT
EpModule     *ep_module_new                    (void);

EP_EXPORT
EpTensor     *ep_module_call                   (EpModule     *self,
                                                EpTensor     *input,
                                                GError      **error);

EP_EXPORT
gboolean      ep_module_add_variable           (EpModule     *self,
                                                const char   *name,
                                                EpVariable   *variable,
                                                GError      **error);
EP_EXPORT
EpVariable   *ep_module_create_variable        (EpModule     *self,
                                                const char   *name,
                                                EpTensor     *initial_value,
                                                gboolean      trainable,
                                                GError      **error);
EP_EXPORT
gboolean      ep_module_add_module             (EpModule     *self,
                                                const char   *name,
                                                EpModule     *module,
                                                GError      **error);

EP_EXPORT
EpVariable   *ep_module_get_variable           (EpModule     *self,
                                                const char   *path);
EP_EXPORT
EpModule     *ep_module_get_module             (EpModule     *self,
                                                const char   *path);

EP_EXPORT
GPtrArray    *ep_module_get_children           (EpModule     *self,
                                                char       ***names);
EP_EXPORT
GPtrArray    *ep_module_get_own_variables      (EpModule     *self,
                                                char       ***names);
EP_EXPORT
GPtrArray    *ep_module_get_variables          (EpModule     *self,
                                                char       ***paths);
EP_EXPORT
GPtrArray    *ep_module_get_trainable_variables (EpModule    *self,
                                                 char      ***paths);

EP_EXPORT
gboolean      ep_module_get_training           (EpModule     *self);
EP_EXPORT
void          ep_module_set_training           (EpModule     *self,
                                                gboolean      training);

G_END_DECLS
