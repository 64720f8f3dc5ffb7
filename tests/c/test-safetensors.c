/* test-safetensors.c: named tensors in files, and the checks of a read
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "ep-test-util.h"

#include "ep-safetensors-private.h"

/* A folder of its own for each test, removed with what is in it */
typedef struct
{
  char *dir;
} Fixture;

static void
fixture_set_up (Fixture       *f,
                gconstpointer  data)
{
  f->dir = ep_test_make_dir ();
}

static void
fixture_tear_down (Fixture       *f,
                   gconstpointer  data)
{
  ep_test_remove_dir (f->dir);
  g_free (f->dir);
}

static GFile *
file_in (Fixture    *f,
         const char *name)
{
  g_autofree char *path = g_build_filename (f->dir, name, NULL);

  return g_file_new_for_path (path);
}

/* Every dtype, a scalar and an empty tensor come back as they went, with
 * the metadata; the data are aligned to their element size. */
static void
test_round_trip (Fixture       *f,
                 gconstpointer  data)
{
  static const char *const names[] = { "a/bool", "b/f64", "c/i32", "d/scalar", "e/empty", "f/i64",
                                       "g/i8", "h/i16" };
  static const char *const metadata[] = { "format", "test", "what", "round trip", NULL };
  g_autoptr(GError) error = NULL;
  g_autoptr(GFile) file = file_in (f, "t.safetensors");
  g_autoptr(EpSafetensors) read = NULL;
  EpTensor *tensors[8] = {
    ep_test_new (EP_DTYPE_BOOL, EP_SHAPE (3), EP_VALUES (1, 0, 1)),
    ep_test_new (EP_DTYPE_FLOAT64, EP_SHAPE (2, 2), EP_VALUES (0.1, -2, 1e300, NAN)),
    ep_test_new (EP_DTYPE_INT32, EP_SHAPE (2), EP_VALUES (-7, 2147483647)),
    ep_test_new (EP_DTYPE_FLOAT32, EP_SCALAR, EP_VALUES (2.5)),
    ep_test_new (EP_DTYPE_FLOAT32, EP_SHAPE (0, 3), NULL, 0),
    ep_test_new (EP_DTYPE_INT64, EP_SHAPE (1), EP_VALUES (-9007199254740992.0)),
    ep_test_new (EP_DTYPE_INT8, EP_SHAPE (3), EP_VALUES (-128, 0, 127)),
    ep_test_new (EP_DTYPE_INT16, EP_SHAPE (1, 3), EP_VALUES (-32768, 1, 32767)),
  };
  gsize header = 0;

  g_assert_true (ep_safetensors_write (file, names, tensors, 8, metadata, "save", NULL, &error));
  g_assert_no_error (error);

  read = ep_safetensors_read (file, "load", NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (ep_safetensors_get_n_entries (read), ==, 8);
  g_assert_cmpstr (ep_safetensors_get_metadata (read, "what"), ==, "round trip");
  for (guint i = 0; i < 8; i++)
    {
      g_autoptr(EpTensor) back = ep_safetensors_load_tensor (read, names[i], ep_device_get_default (), &error);
      g_autoptr(EpTensor) equal = NULL;
      g_autoptr(GBytes) a = ep_tensor_to_bytes (tensors[i], NULL);
      g_autoptr(GBytes) b = NULL;
      const EpSafetensorsEntry *entry = ep_safetensors_lookup (read, names[i]);

      g_assert_no_error (error);
      b = ep_tensor_to_bytes (back, NULL);
      g_assert_true (g_bytes_equal (a, b));
      ep_assert_shape (back, ep_tensor_get_shape (tensors[i], NULL), ep_tensor_get_ndim (tensors[i]));
      g_assert_cmpint (ep_tensor_get_dtype (back), ==, ep_tensor_get_dtype (tensors[i]));
      g_assert_cmpuint (entry->offset % ep_dtype_get_itemsize (entry->dtype), ==, 0);
    }

  /* the data start at a multiple of 8 */
  {
    g_autofree char *contents = NULL;
    gsize length;

    g_file_get_contents (g_file_peek_path (file), &contents, &length, NULL);
    memcpy (&header, contents, 8);
    g_assert_cmpuint (GUINT64_FROM_LE (header) % 8, ==, 0);
    g_assert_true (g_str_has_prefix (contents + 8, "{\"__metadata__\":{\"format\":\"test\""));
  }

  for (guint i = 0; i < 8; i++)
    g_object_unref (tensors[i]);
}

/* Writing replaces the file whole and leaves nothing beside it */
static void
test_replace (Fixture       *f,
              gconstpointer  data)
{
  static const char *const names[] = { "x" };
  g_autoptr(GError) error = NULL;
  g_autoptr(GFile) file = file_in (f, "t.safetensors");
  g_autoptr(EpTensor) one = ep_test_iota (EP_SHAPE (1000), EP_DTYPE_FLOAT32);
  g_autoptr(EpTensor) two = ep_test_new (EP_DTYPE_INT64, EP_SHAPE (2), EP_VALUES (1, 2));
  g_autoptr(EpSafetensors) read = NULL;
  g_autoptr(GDir) dir = NULL;
  guint count = 0;

  g_assert_true (ep_safetensors_write (file, names, &one, 1, NULL, "save", NULL, &error));
  g_assert_true (ep_safetensors_write (file, names, &two, 1, NULL, "save", NULL, &error));
  g_assert_no_error (error);

  read = ep_safetensors_read (file, "load", NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (ep_safetensors_lookup (read, "x")->dtype_name, ==, "I64");

  dir = g_dir_open (f->dir, 0, NULL);
  while (g_dir_read_name (dir) != NULL)
    count++;
  g_assert_cmpuint (count, ==, 1);
}

static void
test_io_errors (Fixture       *f,
                gconstpointer  data)
{
  static const char *const names[] = { "x" };
  g_autoptr(GError) error = NULL;
  g_autoptr(GFile) missing = file_in (f, "missing.safetensors");
  g_autoptr(GFile) nowhere = file_in (f, "no/such/folder/t.safetensors");
  g_autoptr(GFile) folder = g_file_new_for_path (f->dir);
  g_autoptr(EpTensor) x = ep_test_new (EP_DTYPE_FLOAT32, EP_SHAPE (1), EP_VALUES (1));
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();

  g_assert_null (ep_safetensors_read (missing, "load", NULL, &error));
  ep_assert_error (error, EP_ERROR_IO, "load", "missing.safetensors");
  g_clear_error (&error);

  g_assert_null (ep_safetensors_read (folder, "load", NULL, &error));
  ep_assert_error (error, EP_ERROR_IO, "load", NULL);
  g_clear_error (&error);

  g_assert_false (ep_safetensors_write (nowhere, names, &x, 1, NULL, "save", NULL, &error));
  ep_assert_error (error, EP_ERROR_IO, "save", "t.safetensors");
  g_clear_error (&error);

  g_cancellable_cancel (cancellable);
  g_assert_false (ep_safetensors_write (missing, names, &x, 1, NULL, "save", cancellable, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_assert_false (g_file_query_exists (missing, NULL));
}

/* A file: the header's length, the header, @data_size bytes of data */
static GBytes *
make_file (const char *header,
           gsize       data_size)
{
  gsize length = strlen (header);
  guint64 length_le = GUINT64_TO_LE ((guint64) length);
  guint8 *bytes = g_malloc0 (8 + length + data_size);

  memcpy (bytes, &length_le, 8);
  memcpy (bytes + 8, header, length);
  return g_bytes_new_take (bytes, 8 + length + data_size);
}

typedef struct
{
  const char *header;
  gsize       data_size;
  const char *fragment;
} BadHeader;

static const BadHeader bad_headers[] = {
  { "{", 0, "not valid JSON" },
  { "", 0, "not valid JSON" },
  { "[]", 0, "not a JSON object" },
  { "{\"a\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4]} /* c */}", 4, "not valid JSON" },
  { "{'a':{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4]}}", 4, "not valid JSON" },
  { "{\"a\":{\"dtype\":\"F32\",\"shape\":[NaN],\"data_offsets\":[0,4]}}", 4, "not valid JSON" },
  { "{\"a\":{\"dtype\":\"X9\",\"shape\":[1],\"data_offsets\":[0,4]}}", 4, "unknown dtype" },
  { "{\"a\":{\"dtype\":4,\"shape\":[1],\"data_offsets\":[0,4]}}", 4, "unknown dtype" },
  { "{\"a\":{\"dtype\":\"F32\",\"shape\":[-1],\"data_offsets\":[0,4]}}", 4, "the shape" },
  { "{\"a\":{\"dtype\":\"F32\",\"shape\":[1.0],\"data_offsets\":[0,4]}}", 4, "the shape" },
  { "{\"a\":{\"dtype\":\"F32\",\"shape\":[\"1\"],\"data_offsets\":[0,4]}}", 4, "the shape" },
  { "{\"a\":{\"dtype\":\"F32\",\"shape\":1,\"data_offsets\":[0,4]}}", 4, "the shape" },
  { "{\"a\":{\"dtype\":\"F32\",\"shape\":[9007199254740993],\"data_offsets\":[0,4]}}", 4, "the shape" },
  /* json-glib reads integers beyond 64 bits as -1 */
  { "{\"a\":{\"dtype\":\"F32\",\"shape\":[99999999999999999999],\"data_offsets\":[0,4]}}", 4, "the shape" },
  { "{\"a\":{\"dtype\":\"F32\",\"shape\":[1,1,1,1,1,1,1,1,1],\"data_offsets\":[0,4]}}", 4, "9 dimensions" },
  { "{\"a\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[4,0]}}", 4, "data_offsets" },
  { "{\"a\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0]}}", 4, "data_offsets" },
  { "{\"a\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[-4,0]}}", 4, "data_offsets" },
  { "{\"a\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,9007199254740996]}}", 4, "data_offsets" },
  { "{\"a\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,8]}}", 4, "beyond the 4 bytes" },
  { "{\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,4]}}", 4, "takes 8 bytes" },
  { "{\"a\":{\"dtype\":\"F32\",\"shape\":[1099511627776,1099511627776],\"data_offsets\":[0,4]}}", 4,
    "larger than any file" },
  { "{\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]},"
    "\"b\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[4,12]}}", 12, "overlap" },
  { "{\"a\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4]},"
    "\"b\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[8,12]}}", 12, "4 bytes of data from byte 4" },
  { "{\"a\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4]}}", 9, "5 bytes of data from byte 4" },
  /* the same name twice: the first is lost, its data belong to no one */
  { "{\"a\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4]},"
    "\"a\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[4,8]}}", 8, "belong to no tensor" },
  { "{\"a\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4],\"extra\":1}}", 4, "not an object of" },
  { "{\"a\":[1]}", 4, "not an object of" },
  { "{\"__metadata__\":{\"a\":1}}", 0, "not an object of strings" },
  { "{\"__metadata__\":[]}", 0, "not an object of strings" },
};

static void
test_bad_headers (void)
{
  for (guint i = 0; i < G_N_ELEMENTS (bad_headers); i++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(GBytes) bytes = make_file (bad_headers[i].header, bad_headers[i].data_size);
      g_autoptr(EpSafetensors) file = ep_safetensors_new_from_bytes (bytes, "t", &error);

      g_test_message ("header %u: %s", i, bad_headers[i].header);
      g_assert_null (file);
      ep_assert_error (error, EP_ERROR_FORMAT, "t", bad_headers[i].fragment);
    }
}

/* A header nested a million deep would overflow json-glib's stack */
static void
test_deep_nesting (void)
{
  g_autoptr(GError) error = NULL;
  GString *header = g_string_new ("{\"a\":");
  g_autoptr(GBytes) bytes = NULL;
  g_autoptr(EpSafetensors) file = NULL;

  for (guint i = 0; i < 1000000; i++)
    g_string_append_c (header, '[');
  bytes = make_file (header->str, 0);
  g_string_free (header, TRUE);

  file = ep_safetensors_new_from_bytes (bytes, "t", &error);
  g_assert_null (file);
  ep_assert_error (error, EP_ERROR_FORMAT, "t", "nested too deeply");
}

static void
test_lengths (void)
{
  const guint8 short_file[] = { 8, 0, 0 };
  guint8 beyond[16] = { 200, 0, 0, 0, 0, 0, 0, 0, '{', '}' };
  guint8 huge[16] = { 0, 0, 0, 0, 0, 0, 0, 0x80, '{', '}' };
  struct { gconstpointer data; gsize size; const char *fragment; } cases[] = {
    { "", 0, "truncated: 0 bytes" },
    { short_file, sizeof short_file, "truncated: 3 bytes" },
    { beyond, sizeof beyond, "the header takes 200 bytes, the file has 8" },
    { huge, sizeof huge, "the header takes 9223372036854775808 bytes" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(GBytes) bytes = g_bytes_new_static (cases[i].data, cases[i].size);

      g_assert_null (ep_safetensors_new_from_bytes (bytes, "t", &error));
      ep_assert_error (error, EP_ERROR_FORMAT, "t", cases[i].fragment);
    }
}

/* A header longer than 100 MiB, even within the file, is refused unread */
static void
test_header_bound (void)
{
  g_autoptr(GError) error = NULL;
  gsize size = 8 + (101u << 20);
  guint8 *data = g_malloc0 (size);
  guint64 length = GUINT64_TO_LE ((guint64) (101u << 20));
  g_autoptr(GBytes) bytes = NULL;

  memcpy (data, &length, 8);
  bytes = g_bytes_new_take (data, size);
  g_assert_null (ep_safetensors_new_from_bytes (bytes, "t", &error));
  ep_assert_error (error, EP_ERROR_FORMAT, "t", "at most 104857600 are allowed");
}

/* Dtypes of the format that eager-glib lacks are validated, and refused
 * when loaded; names that are not there too. */
static void
test_foreign_dtype (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) bytes = make_file ("{\"h\":{\"dtype\":\"U16\",\"shape\":[3],\"data_offsets\":[0,6]}}", 6);
  g_autoptr(EpSafetensors) file = ep_safetensors_new_from_bytes (bytes, "t", &error);
  g_autoptr(EpTensor) tensor = NULL;

  g_assert_no_error (error);
  g_assert_false (ep_safetensors_lookup (file, "h")->supported);

  tensor = ep_safetensors_load_tensor (file, "h", ep_device_get_default (), &error);
  g_assert_null (tensor);
  ep_assert_error (error, EP_ERROR_FORMAT, "t", "no dtype U16");
  g_clear_error (&error);

  tensor = ep_safetensors_load_tensor (file, "nope", ep_device_get_default (), &error);
  g_assert_null (tensor);
  ep_assert_error (error, EP_ERROR_FORMAT, "t", "no tensor named “nope”");
}

/* Every prefix of a valid file is refused, none crashes */
static void
test_truncated (Fixture       *f,
                gconstpointer  data)
{
  static const char *const names[] = { "x", "y" };
  g_autoptr(GError) error = NULL;
  g_autoptr(GFile) file = file_in (f, "t.safetensors");
  g_autoptr(EpTensor) x = ep_test_new (EP_DTYPE_FLOAT32, EP_SHAPE (2), EP_VALUES (1, 2));
  g_autoptr(EpTensor) y = ep_test_new (EP_DTYPE_INT64, EP_SCALAR, EP_VALUES (3));
  EpTensor *tensors[] = { x, y };
  g_autofree char *contents = NULL;
  gsize length;

  g_assert_true (ep_safetensors_write (file, names, tensors, 2, NULL, "save", NULL, &error));
  g_assert_true (g_file_get_contents (g_file_peek_path (file), &contents, &length, NULL));
  for (gsize n = 0; n < length; n++)
    {
      g_autoptr(GBytes) prefix = g_bytes_new_static (contents, n);
      g_autoptr(EpSafetensors) read = ep_safetensors_new_from_bytes (prefix, "t", &error);

      g_assert_null (read);
      g_assert_error (error, EP_ERROR, EP_ERROR_FORMAT);
      g_clear_error (&error);
    }
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add ("/safetensors/round-trip", Fixture, NULL, fixture_set_up, test_round_trip, fixture_tear_down);
  g_test_add ("/safetensors/replace", Fixture, NULL, fixture_set_up, test_replace, fixture_tear_down);
  g_test_add ("/safetensors/io-errors", Fixture, NULL, fixture_set_up, test_io_errors, fixture_tear_down);
  g_test_add ("/safetensors/truncated", Fixture, NULL, fixture_set_up, test_truncated, fixture_tear_down);
  g_test_add_func ("/safetensors/bad-headers", test_bad_headers);
  g_test_add_func ("/safetensors/deep-nesting", test_deep_nesting);
  g_test_add_func ("/safetensors/lengths", test_lengths);
  g_test_add_func ("/safetensors/header-bound", test_header_bound);
  g_test_add_func ("/safetensors/foreign-dtype", test_foreign_dtype);

  return g_test_run ();
}
