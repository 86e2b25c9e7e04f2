/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "memplan-analysis"

#include <string.h>

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
