/* ep-json-private.h: JSON documents the safe way (core/json.c)
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#include <json-glib/json-glib.h>

G_BEGIN_DECLS

/* The largest integer a file may hold: 2^53, the largest every JSON
 * reader (JavaScript's, Python's float) keeps exactly. */
#define EP_JSON_MAX_INT (G_GINT64_CONSTANT (1) << 53)

JsonNode *ep_json_parse        (const char     *data,
                                gsize           length,
                                const char     *name,
                                GError        **error);
gboolean  ep_json_get_int      (JsonNode       *node,
                                gint64         *value);
gboolean  ep_json_get_string   (JsonNode       *node,
                                const char    **value);
GBytes   *ep_json_to_bytes     (JsonNode       *root,
                                gboolean        by_line);

G_END_DECLS
