/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include "planner.h"
#include "mp-error.h"

G_BEGIN_DECLS

/* Record indices sorted by size, largest first, ties in record order. */
guint  *mp_order_by_size (const MpUsage *records, guint n);

/* One entry point per planner, listed in planner.c's table. */
MpPlan *mp_planner_naive          (const MpGraph *, const MpLifetimes *, const MpPlannerOptions *,
                                   GCancellable *, GError **);
MpPlan *mp_planner_greedy_by_size (const MpGraph *, const MpLifetimes *, const MpPlannerOptions *,
                                   GCancellable *, GError **);
MpPlan *mp_planner_optimal        (const MpGraph *, const MpLifetimes *, const MpPlannerOptions *,
                                   GCancellable *, GError **);

G_END_DECLS
