/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include "planner.h"
#include "mp-error.h"

G_BEGIN_DECLS

/* Record indices sorted by size, largest first, ties in record order. */
guint  *mp_order_by_size (const MpUsage *records, guint n);

/* Places records in the given order, each into the smallest gap among the
 * placed records whose lifetimes overlap it (the lowest on a tie), else on
 * top of them. FALSE, and error set, when cancellable was cancelled. */
gboolean mp_place_best_fit (const MpUsage *records, guint n, guint n_steps, const guint *order,
                            guint64 *offsets, MpPlanTrace *trace, GCancellable *cancellable,
                            GError **error);

/* Decision recording (planner-trace.c), called only when a trace is asked
 * for. busy: the sorted span union over the record's lifetime. */
void mp_plan_trace_own_region (MpPlanTrace *trace, guint record, guint64 offset);
void mp_plan_trace_gaps       (MpPlanTrace *trace, guint record, const GArray *busy,
                               guint64 size, guint64 offset);
void mp_plan_trace_partition  (MpPlanTrace *trace, guint record, const GArray *busy,
                               guint n_parts, const guint64 *weights, guint chosen,
                               gboolean opened);
void mp_plan_trace_set_op     (MpPlanTrace *trace, guint k, gint op);
/* mp_place_greedy_by_size's placement through mp_place_best_fit, recording
 * each decision: the same offsets (tests/test-trace-planner.c checks it). */
void mp_place_greedy_by_size_traced (const MpUsage *records, guint n, guint n_steps,
                                     guint64 *offsets, MpPlanTrace *trace);

/* How many placements run between two looks at the cancellable. */
#define MP_CANCEL_STRIDE 4096

/* One entry point per planner, listed in planner.c's table. */
MpPlan *mp_planner_naive          (const MpGraph *, const MpLifetimes *, const MpPlannerOptions *,
                                   GCancellable *, GError **);
MpPlan *mp_planner_greedy_by_size (const MpGraph *, const MpLifetimes *, const MpPlannerOptions *,
                                   GCancellable *, GError **);
MpPlan *mp_planner_greedy_by_breadth (const MpGraph *, const MpLifetimes *,
                                      const MpPlannerOptions *, GCancellable *, GError **);
MpPlan *mp_planner_partition      (const MpGraph *, const MpLifetimes *, const MpPlannerOptions *,
                                   GCancellable *, GError **);
MpPlan *mp_planner_multistream    (const MpGraph *, const MpLifetimes *, const MpPlannerOptions *,
                                   GCancellable *, GError **);
MpPlan *mp_planner_best_fit       (const MpGraph *, const MpLifetimes *, const MpPlannerOptions *,
                                   GCancellable *, GError **);

G_END_DECLS
