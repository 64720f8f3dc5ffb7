/* core/file.c: reading and writing whole files
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * What the library's file formats (graph files, safetensors) share: a
 * file is read at once, mapped where it is local, and written to a
 * temporary file beside it that is synced and renamed over it, so that
 * a crash or a full disk leaves the old file or the new one, never half
 * of one. Errors from GIO and the system become EP_ERROR_IO, naming the
 * call; a cancellation stays G_IO_ERROR_CANCELLED, as GIO callers expect.
 */

#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <glib/gi18n-lib.h>
#include <glib/gstdio.h>
#include <unistd.h>

#include "ep-error.h"
#include "ep-file-private.h"

/* Consumes @src. */
void
ep_file_propagate_error (GError     **dest,
                         GError      *src,
                         const char  *op_name)
{
  if (g_error_matches (src, G_IO_ERROR, G_IO_ERROR_CANCELLED)
      || src->domain == EP_ERROR)
    {
      g_propagate_error (dest, src);
      return;
    }

  g_set_error (dest, EP_ERROR, EP_ERROR_IO, _("%s: %s"), op_name, src->message);
  g_error_free (src);
}

/*
 * ep_file_format_error:
 * @where: the place in the file, for the message
 *
 * Sets an %EP_ERROR_FORMAT error "@where: message". Callers that know
 * the file's name prefix it (g_prefix_error()) where they are called.
 *
 * Returns: %FALSE
 */
gboolean
ep_file_format_error (GError     **error,
                      const char  *where,
                      const char  *format,
                      ...)
{
  g_autofree char *detail = NULL;
  va_list args;

  va_start (args, format);
  detail = g_strdup_vprintf (format, args);
  va_end (args);

  g_set_error (error, EP_ERROR, EP_ERROR_FORMAT, _("%s: %s"), where, detail);
  return FALSE;
}

/* The same with the message of @cause (a rule's, a device's), which it
 * consumes */
gboolean
ep_file_format_error_from (GError     **error,
                           const char  *where,
                           GError      *cause)
{
  ep_file_format_error (error, where, "%s", cause->message);
  g_error_free (cause);
  return FALSE;
}

/*
 * ep_file_map:
 *
 * The contents of @file: mapped (GMappedFile) for a local file, read for
 * any other. The bytes keep the mapping alive.
 */
GBytes *
ep_file_map (GFile         *file,
             const char    *op_name,
             GCancellable  *cancellable,
             GError       **error)
{
  g_autofree char *path = g_file_get_path (file);
  GError *local_error = NULL;
  GMappedFile *mapped;
  GBytes *bytes;

  if (g_cancellable_set_error_if_cancelled (cancellable, error))
    return NULL;

  if (path == NULL)
    {
      bytes = g_file_load_bytes (file, cancellable, NULL, &local_error);
      if (bytes == NULL)
        ep_file_propagate_error (error, local_error, op_name);
      return bytes;
    }

  mapped = g_mapped_file_new (path, FALSE, &local_error);
  if (mapped == NULL)
    {
      ep_file_propagate_error (error, local_error, op_name);
      return NULL;
    }
  bytes = g_mapped_file_get_bytes (mapped);
  g_mapped_file_unref (mapped);

  return bytes;
}

static gboolean
set_errno_error (GError     **error,
                 int          saved_errno,
                 const char  *op_name,
                 const char  *path)
{
  g_set_error (error, EP_ERROR, EP_ERROR_IO, _("%s: cannot write %s: %s"),
               op_name, path, g_strerror (saved_errno));
  return FALSE;
}

static gboolean
write_all (int            fd,
           GBytes        *part,
           const char    *op_name,
           const char    *path,
           GCancellable  *cancellable,
           GError       **error)
{
  gsize length;
  const guint8 *data = g_bytes_get_data (part, &length);

  while (length > 0)
    {
      /* at most 1 GiB at once: some systems refuse larger writes */
      gssize written = write (fd, data, MIN (length, 1u << 30));

      if (written < 0 && errno == EINTR)
        continue;
      if (written < 0)
        return set_errno_error (error, errno, op_name, path);
      if (g_cancellable_set_error_if_cancelled (cancellable, error))
        return FALSE;
      data += written;
      length -= written;
    }

  return TRUE;
}

/* The directory's entry for the rename must reach the disk too; a
 * failure here loses no data that the file itself holds. */
static void
sync_directory (const char *path)
{
  g_autofree char *dir = g_path_get_dirname (path);
  int fd = open (dir, O_RDONLY | O_CLOEXEC);

  if (fd < 0)
    return;
  g_fsync (fd);
  close (fd);
}

static gboolean
replace_local (const char     *path,
               GBytes *const  *parts,
               guint           n_parts,
               const char     *op_name,
               GCancellable   *cancellable,
               GError        **error)
{
  g_autofree char *dir = g_path_get_dirname (path);
  g_autofree char *base = g_path_get_basename (path);
  g_autofree char *temp = g_strdup_printf ("%s/.%s.XXXXXX", dir, base);
  gboolean ok = TRUE;
  int fd;

  fd = g_mkstemp_full (temp, O_WRONLY | O_CLOEXEC, 0666);
  if (fd < 0)
    return set_errno_error (error, errno, op_name, path);

  for (guint p = 0; ok && p < n_parts; p++)
    ok = write_all (fd, parts[p], op_name, path, cancellable, error);
  if (ok && g_fsync (fd) != 0)
    ok = set_errno_error (error, errno, op_name, path);
  if (close (fd) != 0 && ok)
    ok = set_errno_error (error, errno, op_name, path);
  if (ok && g_rename (temp, path) != 0)
    ok = set_errno_error (error, errno, op_name, path);

  if (!ok)
    {
      g_unlink (temp);
      return FALSE;
    }

  sync_directory (path);
  return TRUE;
}

/* Elsewhere than on a local disk, GIO's replace: a temporary file and a
 * rename where the backend can, as atomic as it gets there. */
static gboolean
replace_with_gio (GFile          *file,
                  GBytes *const  *parts,
                  guint           n_parts,
                  GCancellable   *cancellable,
                  GError        **error)
{
  g_autoptr(GFileOutputStream) stream = NULL;

  stream = g_file_replace (file, NULL, FALSE, G_FILE_CREATE_REPLACE_DESTINATION,
                           cancellable, error);
  if (stream == NULL)
    return FALSE;

  for (guint p = 0; p < n_parts; p++)
    {
      gsize length;
      gconstpointer data = g_bytes_get_data (parts[p], &length);

      if (!g_output_stream_write_all (G_OUTPUT_STREAM (stream), data, length, NULL,
                                      cancellable, error))
        {
          /* a replace closed through a cancelled cancellable does not
           * commit: the old file stays */
          g_autoptr(GCancellable) abandon = g_cancellable_new ();

          g_cancellable_cancel (abandon);
          g_output_stream_close (G_OUTPUT_STREAM (stream), abandon, NULL);
          return FALSE;
        }
    }

  return g_output_stream_close (G_OUTPUT_STREAM (stream), cancellable, error);
}

/*
 * ep_file_replace:
 *
 * Writes @parts, one after the other, as the new contents of @file: in
 * a temporary file in the same folder, synced to the disk, then renamed
 * over @file. On failure @file is as it was and the temporary file is
 * gone.
 */
gboolean
ep_file_replace (GFile          *file,
                 GBytes *const  *parts,
                 guint           n_parts,
                 const char     *op_name,
                 GCancellable   *cancellable,
                 GError        **error)
{
  g_autofree char *path = g_file_get_path (file);
  GError *local_error = NULL;

  if (g_cancellable_set_error_if_cancelled (cancellable, error))
    return FALSE;

  if (path != NULL)
    return replace_local (path, parts, n_parts, op_name, cancellable, error);

  if (!replace_with_gio (file, parts, n_parts, cancellable, &local_error))
    {
      ep_file_propagate_error (error, local_error, op_name);
      return FALSE;
    }

  return TRUE;
}
