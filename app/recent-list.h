/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* The "recent-files" setting (org.memplan.Memplan): URIs, newest first, no
 * duplicates, at most MP_RECENT_MAX. GLib only, so it is tested headless. */

#define MP_RECENT_MAX 10

/* A new list with uri in front: moved there when it was already listed, the
 * oldest entries dropped beyond max. */
char **mp_recent_list_push   (const char *const *list, const char *uri, guint max);
/* A new list without uri (a file that no longer opens). */
char **mp_recent_list_remove (const char *const *list, const char *uri);

G_END_DECLS
