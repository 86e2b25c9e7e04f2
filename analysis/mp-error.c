/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "mp-error.h"

G_DEFINE_QUARK (mp-analysis-error-quark, mp_analysis_error)

void
mp_set_file_error (GError **error, gint code, const char *path, const char *format, ...)
{
  va_list           args;
  g_autofree char  *msg = NULL;

  va_start (args, format);
  msg = g_strdup_vprintf (format, args);
  va_end (args);
  g_set_error (error, MP_ANALYSIS_ERROR, code, "%s: %s", path ? path : "<input>", msg);
}
