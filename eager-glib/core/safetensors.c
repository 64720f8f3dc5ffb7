/* core/safetensors.c: named tensors in a file
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The safetensors format (Hugging Face's; what PyTorch, JAX and
 * TensorFlow users exchange weights in): an unsigned 64-bit
 * little-endian length N, N bytes of a JSON object, then the data. The
 * object maps each tensor's name to its `dtype` (`F32`, `I64`, `BOOL`
 * …), `shape` and `data_offsets` [begin, end) into the data, in C order
 * and little-endian; the key `__metadata__` may hold an object of
 * strings. Graph files keep their constants and variables in one, and
 * checkpoints (autodiff/checkpoint.c) are one.
 *
 * A file is read at once (mapped) and its whole header validated before
 * anything is made from it: the header's length within the file and
 * within bounds, valid JSON, known dtypes, shapes of non-negative
 * integers, each tensor's size matching its shape, and the tensors
 * covering the data exactly, without overlaps or gaps, as the
 * reference implementation requires. A file is written to a temporary
 * file beside it, synced and renamed (ep_file_replace()), with the
 * header padded to 8 bytes and the tensors ordered by decreasing
 * element size, so that every tensor is aligned in a mapped file.
 */

#include "config.h"

#include <glib/gi18n-lib.h>
#include <inttypes.h>
#include <string.h>

#include "ep-error.h"
#include "ep-file-private.h"
#include "ep-json-private.h"
#include "ep-safetensors-private.h"

/* The reference implementation's bound on the header */
#define MAX_HEADER_SIZE (100u << 20)

#define METADATA_KEY "__metadata__"

typedef struct
{
  const char *name;
  guint8      itemsize;
  gint8       dtype;     /* EpDType, or -1: none of ours */
} DTypeName;

/* The safetensors dtypes (the ones of whole bytes), ours first */
static const DTypeName dtype_names[] = {
  { "F32", 4, EP_DTYPE_FLOAT32 },
  { "F64", 8, EP_DTYPE_FLOAT64 },
  { "I32", 4, EP_DTYPE_INT32 },
  { "I64", 8, EP_DTYPE_INT64 },
  { "BOOL", 1, EP_DTYPE_BOOL },
  { "U8", 1, EP_DTYPE_UINT8 },
  { "I8", 1, EP_DTYPE_INT8 },
  { "F8_E5M2", 1, -1 },
  { "F8_E4M3", 1, -1 },
  { "I16", 2, EP_DTYPE_INT16 },
  { "U16", 2, -1 },
  { "F16", 2, EP_DTYPE_FLOAT16 },
  { "BF16", 2, EP_DTYPE_BFLOAT16 },
  { "U32", 4, -1 },
  { "U64", 8, -1 },
};

struct _EpSafetensors
{
  char         *name;
  GBytes       *bytes;
  const guint8 *data;
  gsize         data_size;
  GArray       *entries;     /* EpSafetensorsEntry, by offset */
  GHashTable   *by_name;     /* name -> EpSafetensorsEntry */
  GHashTable   *metadata;    /* char * -> char * */
};

static const DTypeName *
find_dtype_name (const char *name)
{
  for (guint i = 0; i < G_N_ELEMENTS (dtype_names); i++)
    if (g_str_equal (dtype_names[i].name, name))
      return &dtype_names[i];

  return NULL;
}

static const char *
dtype_name_of (EpDType dtype)
{
  for (guint i = 0; i < G_N_ELEMENTS (dtype_names); i++)
    if (dtype_names[i].dtype == (gint) dtype)
      return dtype_names[i].name;

  g_return_val_if_reached (NULL);
}

static void
entry_clear (gpointer data)
{
  EpSafetensorsEntry *entry = data;

  g_free (entry->name);
  g_free (entry->dtype_name);
}

void
ep_safetensors_free (EpSafetensors *self)
{
  g_free (self->name);
  g_bytes_unref (self->bytes);
  g_clear_pointer (&self->by_name, g_hash_table_unref);
  g_array_unref (self->entries);
  g_hash_table_unref (self->metadata);
  g_free (self);
}

/* Reading */

static gboolean
entry_error (EpSafetensors  *self,
             const char     *name,
             GError        **error,
             const char     *format,
             ...) G_GNUC_PRINTF (4, 5);

static gboolean
entry_error (EpSafetensors  *self,
             const char     *name,
             GError        **error,
             const char     *format,
             ...)
{
  g_autofree char *detail = NULL;
  va_list args;

  va_start (args, format);
  detail = g_strdup_vprintf (format, args);
  va_end (args);

  g_set_error (error, EP_ERROR, EP_ERROR_FORMAT, _("%s: tensor “%s”: %s"),
               self->name, name, detail);
  return FALSE;
}

static gboolean
has_only_members (JsonObject         *object,
                  const char *const  *names)
{
  g_autoptr(GList) members = json_object_get_members (object);

  for (GList *m = members; m != NULL; m = m->next)
    if (!g_strv_contains (names, m->data))
      return FALSE;
  for (guint i = 0; names[i] != NULL; i++)
    if (!json_object_has_member (object, names[i]))
      return FALSE;

  return TRUE;
}

static gboolean
parse_shape (EpSafetensors       *self,
             EpSafetensorsEntry  *entry,
             JsonNode            *node,
             GError             **error)
{
  JsonArray *array;
  guint ndim;

  if (!JSON_NODE_HOLDS_ARRAY (node))
    return entry_error (self, entry->name, error, _("the shape is not a list of integers"));

  array = json_node_get_array (node);
  ndim = json_array_get_length (array);
  if (ndim > EP_MAX_DIMS)
    return entry_error (self, entry->name, error, _("%u dimensions, at most %d are supported"),
                        ndim, EP_MAX_DIMS);

  entry->ndim = ndim;
  for (guint d = 0; d < ndim; d++)
    if (!ep_json_get_int (json_array_get_element (array, d), &entry->shape[d])
        || entry->shape[d] < 0)
      return entry_error (self, entry->name, error,
                          _("the shape is not a list of integers from 0 to 2^53"));

  return TRUE;
}

static gboolean
parse_offsets (EpSafetensors       *self,
               EpSafetensorsEntry  *entry,
               JsonNode            *node,
               GError             **error)
{
  JsonArray *array = JSON_NODE_HOLDS_ARRAY (node) ? json_node_get_array (node) : NULL;
  gint64 begin, end;

  if (array == NULL || json_array_get_length (array) != 2
      || !ep_json_get_int (json_array_get_element (array, 0), &begin)
      || !ep_json_get_int (json_array_get_element (array, 1), &end)
      || begin < 0 || end < begin)
    return entry_error (self, entry->name, error,
                        _("data_offsets is not a pair of integers begin ≤ end from 0 to 2^53"));

  if ((guint64) end > self->data_size)
    return entry_error (self, entry->name, error,
                        _("its data (bytes %" PRId64 " to %" PRId64 ") lie beyond the %zu bytes of data in the file"),
                        begin, end, self->data_size);

  entry->offset = begin;
  entry->nbytes = end - begin;
  return TRUE;
}

/* What the shape and dtype take must be what the offsets give. */
static gboolean
check_size (EpSafetensors       *self,
            EpSafetensorsEntry  *entry,
            guint                itemsize,
            GError             **error)
{
  guint64 nbytes = itemsize;
  gboolean overflow = FALSE;

  for (guint d = 0; d < entry->ndim; d++)
    overflow |= !g_uint64_checked_mul (&nbytes, nbytes, entry->shape[d]);

  if (!overflow && nbytes == entry->nbytes)
    return TRUE;

  {
    g_autofree char *shape = ep_shape_to_string (entry->shape, entry->ndim);

    if (overflow)
      return entry_error (self, entry->name, error,
                          _("a tensor of type %s and shape %s is larger than any file"),
                          entry->dtype_name, shape);
    return entry_error (self, entry->name, error,
                        _("a tensor of type %s and shape %s takes %" PRIu64 " bytes, its data_offsets give %zu"),
                        entry->dtype_name, shape, nbytes, entry->nbytes);
  }
}

static gboolean
parse_entry (EpSafetensors       *self,
             EpSafetensorsEntry  *entry,
             JsonNode            *node,
             GError             **error)
{
  static const char *const members[] = { "dtype", "shape", "data_offsets", NULL };
  const DTypeName *dtype = NULL;
  JsonObject *object;
  const char *dtype_name;

  if (!JSON_NODE_HOLDS_OBJECT (node)
      || !has_only_members (object = json_node_get_object (node), members))
    return entry_error (self, entry->name, error,
                        _("not an object of dtype, shape and data_offsets"));

  if (!ep_json_get_string (json_object_get_member (object, "dtype"), &dtype_name)
      || (dtype = find_dtype_name (dtype_name)) == NULL)
    return entry_error (self, entry->name, error, _("unknown dtype"));
  entry->dtype_name = g_strdup (dtype_name);
  entry->supported = dtype->dtype >= 0;
  entry->dtype = entry->supported ? (EpDType) dtype->dtype : EP_DTYPE_FLOAT32;

  return parse_shape (self, entry, json_object_get_member (object, "shape"), error)
         && parse_offsets (self, entry, json_object_get_member (object, "data_offsets"), error)
         && check_size (self, entry, dtype->itemsize, error);
}

static gboolean
parse_metadata (EpSafetensors  *self,
                JsonNode       *node,
                GError        **error)
{
  g_autoptr(GList) members = NULL;
  JsonObject *object;

  if (!JSON_NODE_HOLDS_OBJECT (node))
    goto bad;

  object = json_node_get_object (node);
  members = json_object_get_members (object);
  for (GList *m = members; m != NULL; m = m->next)
    {
      const char *value;

      if (!ep_json_get_string (json_object_get_member (object, m->data), &value))
        goto bad;
      g_hash_table_insert (self->metadata, g_strdup (m->data), g_strdup (value));
    }

  return TRUE;

bad:
  g_set_error (error, EP_ERROR, EP_ERROR_FORMAT, _("%s: %s is not an object of strings"),
               self->name, METADATA_KEY);
  return FALSE;
}

static gint
compare_entries (gconstpointer a,
                 gconstpointer b)
{
  const EpSafetensorsEntry *x = a, *y = b;

  if (x->offset != y->offset)
    return x->offset < y->offset ? -1 : 1;
  if (x->nbytes != y->nbytes)
    return x->nbytes < y->nbytes ? -1 : 1;
  return 0;
}

/* The tensors, by offset, cover the data: no overlap, no gap. */
static gboolean
check_coverage (EpSafetensors  *self,
                GError        **error)
{
  gsize covered = 0, next;
  const char *previous = NULL;
  guint i;

  g_array_sort (self->entries, compare_entries);
  for (i = 0; i < self->entries->len; i++)
    {
      EpSafetensorsEntry *entry = &g_array_index (self->entries, EpSafetensorsEntry, i);

      if (entry->offset < covered)
        {
          g_set_error (error, EP_ERROR, EP_ERROR_FORMAT, _("%s: the data of tensors “%s” and “%s” overlap"),
                       self->name, previous, entry->name);
          return FALSE;
        }
      if (entry->offset > covered)
        break;
      covered = entry->offset + entry->nbytes;
      previous = entry->name;
    }

  next = i < self->entries->len ? g_array_index (self->entries, EpSafetensorsEntry, i).offset
                                : self->data_size;
  if (covered != next)
    {
      g_set_error (error, EP_ERROR, EP_ERROR_FORMAT,
                   _("%s: %zu bytes of data from byte %zu belong to no tensor"),
                   self->name, next - covered, covered);
      return FALSE;
    }

  return TRUE;
}

static gboolean
parse_header (EpSafetensors  *self,
              const char     *header,
              gsize           length,
              GError        **error)
{
  g_autoptr(JsonNode) root = ep_json_parse (header, length, self->name, error);
  g_autoptr(GList) members = NULL;
  JsonObject *object;

  if (root == NULL)
    return FALSE;
  if (!JSON_NODE_HOLDS_OBJECT (root))
    {
      g_set_error (error, EP_ERROR, EP_ERROR_FORMAT, _("%s: the header is not a JSON object"),
                   self->name);
      return FALSE;
    }

  object = json_node_get_object (root);
  members = json_object_get_members (object);
  for (GList *m = members; m != NULL; m = m->next)
    {
      JsonNode *node = json_object_get_member (object, m->data);
      EpSafetensorsEntry entry = { .name = g_strdup (m->data) };

      if (g_str_equal (m->data, METADATA_KEY))
        {
          g_free (entry.name);
          if (!parse_metadata (self, node, error))
            return FALSE;
          continue;
        }

      g_array_append_val (self->entries, entry);
      if (!parse_entry (self, &g_array_index (self->entries, EpSafetensorsEntry,
                                              self->entries->len - 1),
                        node, error))
        return FALSE;
    }

  return check_coverage (self, error);
}

/* The length of the header, within the file and the bound. */
static gboolean
check_lengths (EpSafetensors  *self,
               const guint8   *bytes,
               gsize           size,
               guint64        *header_size,
               GError        **error)
{
  guint64 n;

  if (size < sizeof n)
    {
      g_set_error (error, EP_ERROR, EP_ERROR_FORMAT,
                   _("%s: truncated: %zu bytes, fewer than the 8 of the header's length"),
                   self->name, size);
      return FALSE;
    }

  memcpy (&n, bytes, sizeof n);
  n = GUINT64_FROM_LE (n);
  if (n > size - sizeof n)
    {
      g_set_error (error, EP_ERROR, EP_ERROR_FORMAT,
                   _("%s: truncated: the header takes %" PRIu64 " bytes, the file has %zu after its length"),
                   self->name, n, size - sizeof n);
      return FALSE;
    }
  if (n > MAX_HEADER_SIZE)
    {
      g_set_error (error, EP_ERROR, EP_ERROR_FORMAT,
                   _("%s: the header takes %" PRIu64 " bytes, at most %u are allowed"),
                   self->name, n, MAX_HEADER_SIZE);
      return FALSE;
    }

  *header_size = n;
  return TRUE;
}

/*
 * ep_safetensors_new_from_bytes:
 * @bytes: the whole file
 * @name: the file's name, for messages
 *
 * Validates the file in @bytes and keeps them.
 *
 * Returns: the file, or %NULL with %EP_ERROR_FORMAT set
 */
EpSafetensors *
ep_safetensors_new_from_bytes (GBytes      *bytes,
                               const char  *name,
                               GError     **error)
{
  g_autoptr(EpSafetensors) self = g_new0 (EpSafetensors, 1);
  gsize size;
  const guint8 *data = g_bytes_get_data (bytes, &size);
  guint64 header_size;

  self->name = g_strdup (name);
  self->bytes = g_bytes_ref (bytes);
  self->entries = g_array_new (FALSE, TRUE, sizeof (EpSafetensorsEntry));
  g_array_set_clear_func (self->entries, entry_clear);
  self->metadata = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);

  if (!check_lengths (self, data, size, &header_size, error))
    return NULL;

  self->data = data + 8 + header_size;
  self->data_size = size - 8 - header_size;
  if (!parse_header (self, (const char *) data + 8, header_size, error))
    return NULL;

  self->by_name = g_hash_table_new (g_str_hash, g_str_equal);
  for (guint i = 0; i < self->entries->len; i++)
    {
      EpSafetensorsEntry *entry = &g_array_index (self->entries, EpSafetensorsEntry, i);

      g_hash_table_insert (self->by_name, entry->name, entry);
    }

  return g_steal_pointer (&self);
}

/*
 * ep_safetensors_read:
 * @op_name: the call that reads, for messages
 *
 * Reads @file (mapped, when it is local) and validates it.
 *
 * Returns: the file, or %NULL with %EP_ERROR_IO or %EP_ERROR_FORMAT set
 */
EpSafetensors *
ep_safetensors_read (GFile         *file,
                     const char    *op_name,
                     GCancellable  *cancellable,
                     GError       **error)
{
  g_autoptr(GBytes) bytes = ep_file_map (file, op_name, cancellable, error);
  g_autofree char *name = NULL;

  if (bytes == NULL)
    return NULL;

  name = g_file_get_parse_name (file);
  return ep_safetensors_new_from_bytes (bytes, name, error);
}

guint
ep_safetensors_get_n_entries (EpSafetensors *self)
{
  return self->entries->len;
}

/* The entries by their data's offset */
const EpSafetensorsEntry *
ep_safetensors_get_entry (EpSafetensors *self,
                          guint          index)
{
  g_return_val_if_fail (index < self->entries->len, NULL);

  return &g_array_index (self->entries, EpSafetensorsEntry, index);
}

const EpSafetensorsEntry *
ep_safetensors_lookup (EpSafetensors *self,
                       const char    *name)
{
  return g_hash_table_lookup (self->by_name, name);
}

const char *
ep_safetensors_get_metadata (EpSafetensors *self,
                             const char    *key)
{
  return g_hash_table_lookup (self->metadata, key);
}

/*
 * ep_safetensors_load_tensor:
 *
 * A new tensor on @device with a copy of the data of tensor @name.
 *
 * Returns: the tensor, or %NULL with %EP_ERROR_FORMAT set when the file
 *   has no such tensor or it has a dtype eager-glib lacks, or an error
 *   of @device
 */
EpTensor *
ep_safetensors_load_tensor (EpSafetensors  *self,
                            const char     *name,
                            EpDevice       *device,
                            GError        **error)
{
  const EpSafetensorsEntry *entry = ep_safetensors_lookup (self, name);
  EpLayout layout;

  if (entry == NULL)
    {
      g_set_error (error, EP_ERROR, EP_ERROR_FORMAT, _("%s: no tensor named “%s”"),
                   self->name, name);
      return NULL;
    }
  if (!entry->supported)
    {
      entry_error (self, name, error, _("eager-glib has no dtype %s"), entry->dtype_name);
      return NULL;
    }

  if (!ep_layout_init (&layout, entry->dtype, entry->shape, entry->ndim, self->name, error))
    return NULL;

  return ep_tensor_new_from_host (device, &layout, self->data + entry->offset, self->name, error);
}

/* Writing */

typedef struct
{
  const char *name;
  EpTensor   *tensor;
  GBytes     *data;
} Item;

static gint
by_decreasing_itemsize (gconstpointer a,
                        gconstpointer b)
{
  const Item *x = a, *y = b;
  gsize size_x = ep_dtype_itemsize (x->tensor->layout.dtype);
  gsize size_y = ep_dtype_itemsize (y->tensor->layout.dtype);

  return size_x == size_y ? 0 : size_x > size_y ? -1 : 1;
}

static void
add_metadata (JsonBuilder        *builder,
              const char *const  *metadata)
{
  if (metadata == NULL || metadata[0] == NULL)
    return;

  json_builder_set_member_name (builder, METADATA_KEY);
  json_builder_begin_object (builder);
  for (guint i = 0; metadata[i] != NULL && metadata[i + 1] != NULL; i += 2)
    {
      json_builder_set_member_name (builder, metadata[i]);
      json_builder_add_string_value (builder, metadata[i + 1]);
    }
  json_builder_end_object (builder);
}

static void
add_entry (JsonBuilder *builder,
           const Item  *item,
           gsize        offset)
{
  const EpLayout *layout = &item->tensor->layout;

  json_builder_set_member_name (builder, item->name);
  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "dtype");
  json_builder_add_string_value (builder, dtype_name_of (layout->dtype));
  json_builder_set_member_name (builder, "shape");
  json_builder_begin_array (builder);
  for (guint d = 0; d < layout->ndim; d++)
    json_builder_add_int_value (builder, layout->shape[d]);
  json_builder_end_array (builder);
  json_builder_set_member_name (builder, "data_offsets");
  json_builder_begin_array (builder);
  json_builder_add_int_value (builder, offset);
  json_builder_add_int_value (builder, offset + g_bytes_get_size (item->data));
  json_builder_end_array (builder);
  json_builder_end_object (builder);
}

/* The length, the header and its padding to 8 bytes, in one piece */
static GBytes *
make_header (GArray             *items,
             const char *const  *metadata)
{
  g_autoptr(JsonBuilder) builder = json_builder_new ();
  g_autoptr(JsonNode) root = NULL;
  g_autoptr(GBytes) json = NULL;
  gsize offset = 0, length, padded;
  guint64 length_le;
  guint8 *header;

  json_builder_begin_object (builder);
  add_metadata (builder, metadata);
  for (guint i = 0; i < items->len; i++)
    {
      const Item *item = &g_array_index (items, Item, i);

      add_entry (builder, item, offset);
      offset += g_bytes_get_size (item->data);
    }
  json_builder_end_object (builder);

  root = json_builder_get_root (builder);
  json = ep_json_to_bytes (root, FALSE);
  length = g_bytes_get_size (json);
  padded = (length + 7) / 8 * 8;

  header = g_malloc (8 + padded);
  length_le = GUINT64_TO_LE ((guint64) padded);
  memcpy (header, &length_le, 8);
  memcpy (header + 8, g_bytes_get_data (json, NULL), length);
  memset (header + 8 + length, ' ', padded - length);

  return g_bytes_new_take (header, 8 + padded);
}

static void
item_clear (gpointer data)
{
  Item *item = data;

  g_clear_pointer (&item->data, g_bytes_unref);
}

/*
 * ep_safetensors_write:
 * @names: (array length=n_tensors): distinct names, none `__metadata__`
 * @tensors: (array length=n_tensors): the tensors, on any device
 * @metadata: (nullable) (array zero-terminated=1): keys and values, one
 *   after the other
 * @op_name: the call that writes, for messages
 *
 * Writes @tensors to @file, atomically (ep_file_replace()).
 *
 * Returns: %TRUE, or %FALSE with %EP_ERROR_IO (or the error reading a
 *   tensor from its device) set
 */
gboolean
ep_safetensors_write (GFile              *file,
                      const char *const  *names,
                      EpTensor *const    *tensors,
                      guint               n_tensors,
                      const char *const  *metadata,
                      const char         *op_name,
                      GCancellable       *cancellable,
                      GError            **error)
{
  g_autoptr(GArray) items = g_array_sized_new (FALSE, TRUE, sizeof (Item), n_tensors);
  g_autoptr(GPtrArray) parts = g_ptr_array_new_with_free_func ((GDestroyNotify) g_bytes_unref);

  g_array_set_clear_func (items, item_clear);
  for (guint i = 0; i < n_tensors; i++)
    {
      Item item = { names[i], tensors[i], NULL };

      g_return_val_if_fail (!g_str_equal (names[i], METADATA_KEY), FALSE);
      if (!ep_tensor_check_alive (tensors[i], op_name, error)
          || (item.data = ep_tensor_to_bytes (tensors[i], error)) == NULL)
        return FALSE;
      g_array_append_val (items, item);
    }

  /* g_array_sort() is stable: the order given, within each size */
  g_array_sort (items, by_decreasing_itemsize);

  g_ptr_array_add (parts, make_header (items, metadata));
  for (guint i = 0; i < items->len; i++)
    g_ptr_array_add (parts, g_bytes_ref (g_array_index (items, Item, i).data));

  return ep_file_replace (file, (GBytes *const *) parts->pdata, parts->len, op_name,
                          cancellable, error);
}
