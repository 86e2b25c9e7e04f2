/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include "mp-version.h"

#include <glib.h>

G_BEGIN_DECLS

/* Names come from files, and a name holding ESC ] 0 ; … BEL would set a
 * terminal's title, ESC [ 2 J clear its screen, U+202E reverse the rest of
 * the line. Text meant for a terminal or a label (tables, explain,
 * messages, Markdown, the app's panes) shows every control character
 * escaped: C0 and DEL as \x1b, C1 as \u009b, bidi controls and the Unicode
 * line separators as \u202e, a byte that is not UTF-8 as \xff. The one
 * function for display; files have their own (CSV quoting, XML-valid SVG). */

/* A name inline: newlines and tabs escaped too. */
MP_AVAILABLE_IN_1_0
char     *mp_escape_name         (const char *name);
/* Lines of text: newlines and tabs kept. */
MP_AVAILABLE_IN_1_0
char     *mp_escape_text         (const char *text);
/* Whether text needs either (so that clean text is not copied). */
MP_AVAILABLE_IN_1_0
gboolean  mp_text_has_control    (const char *text, gboolean keep_lines);

/* A CSV field as RFC 4180 writes it: in double quotes, its quotes doubled,
 * when it holds a comma, a quote, CR or LF; as it is otherwise. The usage-
 * record reader takes it back unchanged. */
MP_AVAILABLE_IN_1_0
char     *mp_csv_field           (const char *text);
/* Text for XML 1.0 character data or attributes, still to be markup-
 * escaped: the characters XML 1.0 forbids (C0 controls but tab, LF and CR;
 * U+FFFE, U+FFFF) and bytes that are not UTF-8 replaced by U+FFFD, so any
 * XML parser reads the file. */
MP_AVAILABLE_IN_1_0
char     *mp_xml_valid_text      (const char *text);

G_END_DECLS
