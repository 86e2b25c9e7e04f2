/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "memplan"

#include "load-progress.h"

#include <stdio.h>
#include <sys/stat.h>

/* The readers stream their file, so the offset of the descriptor the
 * worker thread holds on it says how far the load is; /proc/self/fdinfo
 * gives it without touching the engine. Elsewhere there is no figure. */
gdouble
mp_load_progress_fraction (const char *path)
{
  g_autoptr (GDir) dir = g_dir_open ("/proc/self/fd", 0, NULL);
  g_autofree char *real = path ? realpath (path, NULL) : NULL;
  struct stat      st;
  const char      *name;

  if (dir == NULL || real == NULL || stat (real, &st) != 0 || st.st_size <= 0)
    return -1;
  while ((name = g_dir_read_name (dir)))
    {
      g_autofree char *link = g_strdup_printf ("/proc/self/fd/%s", name);
      g_autofree char *target = g_file_read_link (link, NULL);
      g_autofree char *info = NULL;
      g_autofree char *contents = NULL;
      guint64          pos;

      if (target == NULL || !g_str_equal (target, real))
        continue;
      info = g_strdup_printf ("/proc/self/fdinfo/%s", name);
      if (!g_file_get_contents (info, &contents, NULL, NULL) ||
          sscanf (contents, "pos: %" G_GUINT64_FORMAT, &pos) != 1)
        continue;
      return CLAMP ((gdouble) pos / st.st_size, 0.0, 1.0);
    }
  return -1;
}
