/* core/json.c: JSON documents the safe way
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * json-glib parses with one level of C recursion per level of nesting
 * (a few thousand '[' overflow the stack) and is lenient where files
 * must not be (comments, single quotes, integers beyond 64 bits wrap
 * around). Files the library reads go through ep_json_parse() first,
 * which refuses what a strict reader would and bounds the nesting, and
 * their integers through ep_json_get_int(), which keeps them within
 * 2^53.
 */

#include "config.h"

#include <glib/gi18n-lib.h>

#include "ep-error.h"
#include "ep-json-private.h"

/* Our documents nest a few levels deep. */
#define MAX_DEPTH 64

/* Walks the text as a JSON reader would see its structure: brackets
 * outside strings. Comments and single-quoted strings, which json-glib
 * takes and JSON has not, are refused, so that this walk and the parser
 * agree on what is inside a string. */
static const char *
check_structure (const char *data,
                 gsize       length)
{
  gboolean in_string = FALSE;
  guint depth = 0;

  for (gsize i = 0; i < length; i++)
    {
      char c = data[i];

      if (in_string)
        {
          if (c == '\\')
            i++;
          else if (c == '"')
            in_string = FALSE;
          continue;
        }

      switch (c)
        {
        case '"':
          in_string = TRUE;
          break;
        case '[':
        case '{':
          if (++depth > MAX_DEPTH)
            return N_("nested too deeply");
          break;
        case ']':
        case '}':
          if (depth > 0)
            depth--;
          break;
        case '\'':
        case '/':
        case '\0':
          return N_("a character outside the JSON syntax");
        default:
          break;
        }
    }

  return NULL;
}

/*
 * ep_json_parse:
 * @name: the document's name, for messages (a file's)
 *
 * The document in @data, or %NULL with %EP_ERROR_FORMAT set.
 */
JsonNode *
ep_json_parse (const char  *data,
               gsize        length,
               const char  *name,
               GError     **error)
{
  g_autoptr(JsonParser) parser = NULL;
  g_autoptr(GError) local_error = NULL;
  const char *problem;

  if (length > G_MAXSSIZE)
    length = G_MAXSSIZE;

  /* an empty file maps to no data at all */
  problem = length == 0 ? N_("the document is empty") : check_structure (data, length);
  if (problem != NULL)
    {
      g_set_error (error, EP_ERROR, EP_ERROR_FORMAT, _("%s: not valid JSON: %s"),
                   name, _(problem));
      return NULL;
    }

  parser = json_parser_new_immutable ();
  if (!json_parser_load_from_data (parser, data, length, &local_error))
    {
      g_set_error (error, EP_ERROR, EP_ERROR_FORMAT, _("%s: not valid JSON: %s"),
                   name, local_error->message);
      return NULL;
    }
  if (json_parser_get_root (parser) == NULL)
    {
      g_set_error (error, EP_ERROR, EP_ERROR_FORMAT, _("%s: not valid JSON: %s"),
                   name, _("the document is empty"));
      return NULL;
    }

  return json_parser_steal_root (parser);
}

/* An integer (not a float, however round) within ±2^53. */
gboolean
ep_json_get_int (JsonNode *node,
                 gint64   *value)
{
  gint64 v;

  if (node == NULL || !JSON_NODE_HOLDS_VALUE (node)
      || json_node_get_value_type (node) != G_TYPE_INT64)
    return FALSE;

  v = json_node_get_int (node);
  if (v < -EP_JSON_MAX_INT || v > EP_JSON_MAX_INT)
    return FALSE;

  *value = v;
  return TRUE;
}

gboolean
ep_json_get_string (JsonNode    *node,
                    const char **value)
{
  if (node == NULL || !JSON_NODE_HOLDS_VALUE (node)
      || json_node_get_value_type (node) != G_TYPE_STRING)
    return FALSE;

  *value = json_node_get_string (node);
  return TRUE;
}

static void
append_compact (GString  *text,
                JsonNode *node)
{
  g_autofree char *compact = json_to_string (node, FALSE);

  g_string_append (text, compact);
}

/* A member's value: compact, but a list of several values one a line */
static void
append_member_value (GString  *text,
                     JsonNode *node)
{
  JsonArray *array;
  guint n;

  if (!JSON_NODE_HOLDS_ARRAY (node) || (n = json_array_get_length (array = json_node_get_array (node))) == 0)
    {
      append_compact (text, node);
      return;
    }

  g_string_append (text, "[\n");
  for (guint i = 0; i < n; i++)
    {
      g_string_append (text, "    ");
      append_compact (text, json_array_get_element (array, i));
      g_string_append (text, i + 1 < n ? ",\n" : "\n");
    }
  g_string_append (text, "  ]");
}

/*
 * ep_json_to_bytes:
 * @root: a document
 * @by_line: for an object: one member a line, and one element a line in
 *   lists, each compact (a graph: one node a line); else all compact
 *
 * The text of @root; by line, ending with a newline.
 */
GBytes *
ep_json_to_bytes (JsonNode *root,
                  gboolean  by_line)
{
  GString *text = g_string_new (NULL);
  g_autoptr(GList) members = NULL;
  JsonObject *object;

  if (!by_line || !JSON_NODE_HOLDS_OBJECT (root))
    {
      append_compact (text, root);
      return g_string_free_to_bytes (text);
    }

  object = json_node_get_object (root);
  members = json_object_get_members (object);
  g_string_append (text, "{\n");
  for (GList *m = members; m != NULL; m = m->next)
    {
      g_autoptr(JsonNode) name = json_node_init_string (json_node_alloc (), m->data);

      g_string_append (text, "  ");
      append_compact (text, name);
      g_string_append (text, ": ");
      append_member_value (text, json_object_get_member (object, m->data));
      g_string_append (text, m->next != NULL ? ",\n" : "\n");
    }
  g_string_append (text, "}\n");

  return g_string_free_to_bytes (text);
}
