/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Atomic write: a temporary file memplan-NAME.XXXXXX.tmp in the target's
 * folder, then rename. A symbolic link is written through (its final target
 * is replaced, the link stays); a replaced file keeps its permissions, a new
 * one gets 0666 less the umask. */
gboolean mp_write_file_atomic (const char *path, const char *contents, gssize length,
                               GError **error);
/* Installs handlers for SIGINT, SIGTERM, SIGHUP and SIGQUIT that remove the
 * temporary files of writes in progress, then die of the signal (programs
 * call it once; a signal ignored by the parent stays ignored). SIGKILL
 * cannot be caught: its leftover is named memplan-*.tmp. */
void     mp_remove_temp_files_on_signal (void);

/* Human units for tables and titles: "1.31 MiB", "250 µs". */
char    *mp_format_bytes      (guint64 bytes);
char    *mp_format_seconds    (gdouble seconds);

G_END_DECLS
