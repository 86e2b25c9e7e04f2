/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "memplan-analysis"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <glib/gstdio.h>

#include "file-util.h"
#include "graph-private.h"

gboolean
mp_write_file_atomic (const char *path, const char *contents, gssize length, GError **error)
{
  g_autoptr (GError) local = NULL;

  if (length < 0)
    length = strlen (contents);
  if (!g_file_set_contents_full (path, contents, length, G_FILE_SET_CONTENTS_CONSISTENT, 0644,
                                 &local))
    {
      mp_set_file_error (error, MP_ANALYSIS_ERROR_IO, path, "cannot write the file: %s",
                         local->message);
      return FALSE;
    }
  return TRUE;
}

static gboolean
stream_to (FILE *out, MpFileFill fill, gpointer data)
{
  gboolean ok = fill (out, data);

  return ok && fflush (out) == 0 && !ferror (out);
}

gboolean
mp_write_file_stream (const char *path, MpFileFill fill, gpointer data, GError **error)
{
  g_autofree char *tmp = NULL;
  GStatBuf         st;
  FILE            *out;
  gint             fd, saved;
  gboolean         ok;

  if (path == NULL || g_str_equal (path, "-"))
    {
      if (stream_to (stdout, fill, data))
        return TRUE;
      g_set_error (error, MP_ANALYSIS_ERROR, MP_ANALYSIS_ERROR_IO, MP_STDOUT_WRITE_ERROR ": %s",
                   g_strerror (errno));
      return FALSE;
    }
  if (g_stat (path, &st) == 0 && (S_ISCHR (st.st_mode) || S_ISFIFO (st.st_mode)))
    {
      out = g_fopen (path, "wb");
      ok = out && stream_to (out, fill, data);
      saved = errno;
      if (out && fclose (out) != 0)
        ok = FALSE;
      if (!ok)
        mp_set_file_error (error, MP_ANALYSIS_ERROR_IO, path, "cannot write the file: %s",
                           g_strerror (saved));
      return ok;
    }

  tmp = g_strconcat (path, ".XXXXXX", NULL);
  fd = g_mkstemp_full (tmp, O_WRONLY, 0644);
  out = fd >= 0 ? fdopen (fd, "wb") : NULL;
  ok = out && stream_to (out, fill, data) && fsync (fd) == 0;
  saved = errno;
  if (out ? fclose (out) != 0 : (fd >= 0 && close (fd) != 0))
    ok = FALSE;
  if (ok && g_rename (tmp, path) != 0)
    {
      ok = FALSE;
      saved = errno;
    }
  if (!ok)
    {
      if (fd >= 0)
        g_unlink (tmp);
      mp_set_file_error (error, MP_ANALYSIS_ERROR_IO, path, "cannot write the file: %s",
                         g_strerror (saved));
    }
  return ok;
}

char *
mp_format_bytes (guint64 bytes)
{
  static const char *units[] = { "KiB", "MiB", "GiB", "TiB", "PiB" };
  gdouble            v = bytes;
  guint              u = 0;

  if (bytes < 1024)
    return g_strdup_printf ("%" G_GUINT64_FORMAT " B", bytes);
  v /= 1024.0;
  while (v >= 1024.0 && u + 1 < G_N_ELEMENTS (units))
    {
      v /= 1024.0;
      u++;
    }
  return g_strdup_printf (v >= 100 ? "%.0f %s" : v >= 10 ? "%.1f %s" : "%.2f %s", v, units[u]);
}

char *
mp_format_seconds (gdouble seconds)
{
  if (seconds < 1e-3)
    return g_strdup_printf ("%.0f µs", seconds * 1e6);
  if (seconds < 1.0)
    return g_strdup_printf ("%.1f ms", seconds * 1e3);
  return g_strdup_printf ("%.2f s", seconds);
}
