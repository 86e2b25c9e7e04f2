/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

/* A line of text drawn, not laid out: a list cell whose text changes
 * without the list being measured again. Its CSS name is "label", so label
 * rules apply to it (colour, the error class). */
#define MP_TYPE_TEXT_CELL (mp_text_cell_get_type ())
G_DECLARE_FINAL_TYPE (MpTextCell, mp_text_cell, MP, TEXT_CELL, GtkWidget)

/* numeric: right-aligned tabular figures; otherwise left-aligned and
 * ellipsized at the end */
GtkWidget  *mp_text_cell_new      (gboolean    numeric);
void        mp_text_cell_set_text (MpTextCell *self,
                                   const char *text);
const char *mp_text_cell_get_text (MpTextCell *self);

G_END_DECLS
