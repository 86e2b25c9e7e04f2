/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <gtk/gtk.h>
#include "plan-set.h"

G_BEGIN_DECLS

/* Per planner: arena, lower bound, ratio, fragmentation, partitions, time,
 * validity and notes, sorted by arena (every column sortable), under a
 * headline that names the winner and its margins; the winner's row stands
 * out. */
#define MP_TYPE_SUMMARY_TABLE (mp_summary_table_get_type ())
G_DECLARE_FINAL_TYPE (MpSummaryTable, mp_summary_table, MP, SUMMARY_TABLE, GtkWidget)

GtkWidget  *mp_summary_table_new          (void);
void        mp_summary_table_set_plan_set (MpSummaryTable *self, MpPlanSet *set);
/* "Smallest arena — best-fit: 1.3% below greedy-by-size, …", or "". */
const char *mp_summary_table_get_headline (MpSummaryTable *self);
/* The planner of the selected row, or NULL. */
const char *mp_summary_table_get_selected (MpSummaryTable *self);
/* Selects a planner's row as a click does (NULL or unknown: none); FALSE
 * when it has no row. */
gboolean    mp_summary_table_select       (MpSummaryTable *self, const char *planner);
/* The rows as shown (sorted): MpSummaryRow items. */
GListModel *mp_summary_table_get_model    (MpSummaryTable *self);
/* Sorts by a column (see mp_summary_row_format) as a click on its header does. */
void        mp_summary_table_sort_by      (MpSummaryTable *self, const char *column,
                                           GtkSortType order);

G_END_DECLS
