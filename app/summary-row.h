/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <glib-object.h>
#include "memplan-analysis.h"

G_BEGIN_DECLS

/* One planner's figures, as properties so the summary table can sort on them. */
#define MP_TYPE_SUMMARY_ROW (mp_summary_row_get_type ())
G_DECLARE_FINAL_TYPE (MpSummaryRow, mp_summary_row, MP, SUMMARY_ROW, GObject)

/* best: the plan the Summary marks as the winner; notes: its Notes cell. */
MpSummaryRow *mp_summary_row_new         (const MpPlan *plan, gboolean best, const char *notes);
const char   *mp_summary_row_get_planner (MpSummaryRow *self);
gboolean      mp_summary_row_get_best    (MpSummaryRow *self);
/* The cell text of a column: planner, arena, lower-bound, ratio, fragmentation,
 * partitions, time, valid, notes. */
char         *mp_summary_row_format      (MpSummaryRow *self, const char *column);
/* Whether the cell tells a failure (an invalid plan's verdict). */
gboolean      mp_summary_row_fails       (MpSummaryRow *self, const char *column);
/* The verdicts in full, for the Validity cell's tooltip: in op order and,
 * on a graph with several streams, when they run concurrently. */
char         *mp_summary_row_describe_validity (MpSummaryRow *self);

G_END_DECLS
