/* ep-error-private.h
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#include <glib.h>

G_BEGIN_DECLS

void ep_error_rename_call (GError     **error,
                           const char  *callee,
                           const char  *caller);

/* @result, a public function's, or %NULL with @error renamed to @caller
 * (from whichever op inside it failed) */
static inline gpointer
ep_error_named_result (gpointer     result,
                       GError     **error,
                       const char  *caller)
{
  if (result == NULL)
    ep_error_rename_call (error, NULL, caller);
  return result;
}

G_END_DECLS
