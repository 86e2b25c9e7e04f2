/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* How much of path this process has read so far, 0 to 1, from the offset
 * of a descriptor open on it; -1 when none is open (or not on Linux). */
gdouble mp_load_progress_fraction (const char *path);

G_END_DECLS
