/* core/i18n.c
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <glib/gi18n-lib.h>
#include <string.h>

/* Messages are looked up in the library's own domain, whatever domain
 * the application uses, so the domain is bound once at load time, unless
 * the application bound it first: bindings load the library lazily, at
 * the first call, possibly after the application chose where the
 * library's catalogs are (a relocated install, a test). An unbound domain
 * answers the default folder, as a never-bound probe shows. */
__attribute__((constructor)) static void
ep_i18n_init (void)
{
  const char *current = bindtextdomain (GETTEXT_PACKAGE, NULL);
  const char *unbound = bindtextdomain (GETTEXT_PACKAGE "-unbound-probe", NULL);

  if (current == NULL || unbound == NULL || strcmp (current, unbound) == 0)
    bindtextdomain (GETTEXT_PACKAGE, LOCALEDIR);
  bind_textdomain_codeset (GETTEXT_PACKAGE, "UTF-8");
}
