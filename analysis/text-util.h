/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include "mp-version.h"

#include <glib.h>

G_BEGIN_DECLS

/* Names come from files, and a name holding ESC ] 0 ; … BEL would set a
 * terminal's title, ESC [ 2 J clear its screen. Text meant for a terminal
 * (tables, messages, Markdown) shows every control character escaped: C0
 * and DEL as \x1b, C1 as \u009b, a byte that is not UTF-8 as \xff. */

/* A name inline: newlines and tabs escaped too. */
MP_AVAILABLE_IN_1_0
char     *mp_escape_name         (const char *name);
/* Lines of text: newlines and tabs kept. */
MP_AVAILABLE_IN_1_0
char     *mp_escape_text         (const char *text);
/* Whether text needs either (so that clean text is not copied). */
MP_AVAILABLE_IN_1_0
gboolean  mp_text_has_control    (const char *text, gboolean keep_lines);

G_END_DECLS
