/* ep-i18n.c
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <glib/gi18n-lib.h>

/* Messages are looked up in the library's own domain, whatever domain
 * the application uses, so the domain is bound once at load time. */
__attribute__((constructor)) static void
ep_i18n_init (void)
{
  bindtextdomain (GETTEXT_PACKAGE, LOCALEDIR);
  bind_textdomain_codeset (GETTEXT_PACKAGE, "UTF-8");
}
