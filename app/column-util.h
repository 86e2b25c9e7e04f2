/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

/* Returns the cell text of item for a column id (newly allocated). */
typedef char    *(*MpCellFormatFunc) (gpointer item, const char *column);
/* Whether the cell tells a failure, which shows as an error. */
typedef gboolean (*MpCellFailsFunc)  (gpointer item, const char *column);

/* Appends a column of labels: right-aligned tabular figures when numeric,
 * sorted by sorter (taken) when not NULL. */
GtkColumnViewColumn *mp_column_view_add_text (GtkColumnView    *view,
                                              const char       *id,
                                              const char       *title,
                                              gboolean          numeric,
                                              MpCellFormatFunc  format,
                                              GtkSorter        *sorter);
/* The same with cells that are drawn, not laid out (text-cell.h): for a
 * list whose rows change wholesale, with fixed column widths. */
GtkColumnViewColumn *mp_column_view_add_drawn_text (GtkColumnView    *view,
                                                    const char       *id,
                                                    const char       *title,
                                                    gboolean          numeric,
                                                    MpCellFormatFunc  format);
/* Cells of column that tell a failure show as errors. */
void                 mp_column_view_set_fails (GtkColumnViewColumn *column,
                                               MpCellFailsFunc      fails);
/* The column whose id is id, or NULL. */
GtkColumnViewColumn *mp_column_view_find     (GtkColumnView    *view,
                                              const char       *id);

G_END_DECLS
