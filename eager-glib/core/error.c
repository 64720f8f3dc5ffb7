/* core/error.c
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <string.h>

#include "ep-error.h"
#include "ep-error-private.h"
#include "ep-quark-private.h"

/**
 * ep_error_quark:
 *
 * Returns the quark of the %EP_ERROR domain.
 *
 * Returns: the error quark
 */
EP_DEFINE_QUARK (ep-error, ep_error)

/* The length of the name that starts @message ("full" in "full: …"),
 * or 0: a name is lowercase letters, digits and underscores, as ops and
 * functions are named. */
static gsize
leading_name_length (const char *message)
{
  gsize n = 0;

  while (g_ascii_islower (message[n]) || g_ascii_isdigit (message[n]) || message[n] == '_')
    n++;

  return n > 0 && message[n] == ':' && message[n + 1] == ' ' ? n : 0;
}

/* Messages name their op first ("full: negative dimension …"). A public
 * function built on others reports what went wrong in the call the user
 * made: zeros() gives "zeros: negative dimension …", not "full: …". A
 * message of @callee (the name before ": ", the same in every language;
 * %NULL: any op's) gets @caller's name instead; others are left as they
 * are. */
void
ep_error_rename_call (GError     **error,
                      const char  *callee,
                      const char  *caller)
{
  GError *e;
  gsize length;
  char *renamed;

  if (error == NULL || *error == NULL)
    return;

  e = *error;
  length = leading_name_length (e->message);
  if (length == 0 || (callee != NULL && (strlen (callee) != length
                                         || strncmp (e->message, callee, length) != 0)))
    return;

  renamed = g_strconcat (caller, e->message + length, NULL);
  g_free (e->message);
  e->message = renamed;
}
