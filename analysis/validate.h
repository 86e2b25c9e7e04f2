/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include "mp-internal.h"

#include "plan.h"
#include "schedule.h"

G_BEGIN_DECLS

/* Checks, in O(n log n), that every record has an offset, that offsets respect
 * the alignment and that no two records overlap in both time and address.
 * The error names the first conflicting pair. */
gboolean mp_validate_records (const MpGraph *graph,
                              const MpUsage *records,
                              guint          n_records,
                              const guint64 *offsets,
                              guint64        alignment,
                              guint64        arena,
                              GError       **error);
/* Checks the plan's offsets against its tensors' lifetimes in schedule's
 * groups: under a parallel schedule, two tensors live in one group conflict
 * even when they are disjoint in op order. Needs a graph with ops. */
gboolean mp_validate_schedule (const MpGraph    *graph,
                               const MpPlan     *plan,
                               const MpSchedule *schedule,
                               GError          **error);

G_END_DECLS
