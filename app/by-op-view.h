/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <gtk/gtk.h>
#include "plan-set.h"

G_BEGIN_DECLS

/* Where the memory went, per op: the bytes each op allocated and the bytes
 * it held at the peak, heaviest at the peak first, sortable by any column,
 * the op holding the peak named above. A PyTorch trace or snapshot gives
 * the allocator's ops (mp_trace_by_op) or modules; a graph with ops gives the tensors
 * each op produces, at the lifetimes' peak step. */
#define MP_TYPE_BY_OP_VIEW (mp_by_op_view_get_type ())
G_DECLARE_FINAL_TYPE (MpByOpView, mp_by_op_view, MP, BY_OP_VIEW, GtkWidget)

GtkWidget  *mp_by_op_view_new          (void);
/* Shows set's input; FALSE when it has nothing to attribute (usage records
 * without ops or a trace): the window hides the tab then. */
gboolean    mp_by_op_view_set_plan_set (MpByOpView *self, MpPlanSet *set);
/* Comparing A with B (NULL: no more; borrowed, the window holds it):
 * columns of B's bytes at its peak per op and B − A, mp_trace_diff's rows
 * summed per op. */
void        mp_by_op_view_set_compare  (MpByOpView *self, MpTraceDiff *diff);
/* The rows in the order shown. */
GListModel *mp_by_op_view_get_model    (MpByOpView *self);
/* A cell's text: column "op", "at_peak", "share", "allocated",
 * "allocations", "b_at_peak" or "delta". */
char       *mp_by_op_view_get_cell     (MpByOpView *self, guint position, const char *column);
/* Sorts by a column, as a click on its header does. */
void        mp_by_op_view_sort         (MpByOpView *self, const char *column, GtkSortType order);
/* A trace recorded with_modules: rows per module path instead of per op
 * (the "Per module" choice above the rows). */
void        mp_by_op_view_set_per_module (MpByOpView *self, gboolean per_module);
/* The line above the rows: the peak and the op holding most of it. */
const char *mp_by_op_view_get_heading  (MpByOpView *self);

G_END_DECLS
