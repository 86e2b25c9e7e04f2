/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Atomic write: a temporary file in the same folder, then rename. */
gboolean mp_write_file_atomic (const char *path, const char *contents, gssize length,
                               GError **error);

/* Human units for tables and titles: "1.31 MiB", "250 µs". */
char    *mp_format_bytes      (guint64 bytes);
char    *mp_format_seconds    (gdouble seconds);

G_END_DECLS
