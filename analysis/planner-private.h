/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include "mp-internal.h"

#include "planner.h"
#include "mp-error.h"
#include "time-index.h"

G_BEGIN_DECLS

/* Orders (planner-placement.c). A sort key: descending key, then
 * descending key2, then ascending index (first appearance). */
typedef struct
{
  guint64 key;
  guint64 key2;
  guint   index;
} MpOrderKey;

void   mp_order_sort      (MpOrderKey *keys, guint n);
/* Sorts keys and returns their indices in that order. */
guint *mp_order_from_keys (MpOrderKey *keys, guint n);
/* Record indices sorted by size, largest first, ties in record order. */
guint *mp_order_by_size   (const MpUsage *records, guint n);

/* The time index for placing these records (its blocks fit their mean
 * lifetime). */
MpTimeIndex *mp_time_index_for_usage (const MpUsage *records, guint n, guint n_steps);

typedef enum
{
  /* the smallest gap among the placed records whose lifetimes overlap it
   * that holds it (the lowest on a tie), else on top of them */
  MP_PLACE_BEST_FIT,
  /* the lowest such gap that holds it, else on top of them */
  MP_PLACE_FIRST_FIT,
  /* on top of every record placed before it (naive; constrained records only) */
  MP_PLACE_ON_TOP,
} MpPlaceRule;

/* Places records in the given order by the rule. FALSE, and error set,
 * when cancellable was cancelled. */
gboolean mp_place_in_order (const MpUsage *records, guint n, guint n_steps, const guint *order,
                            MpPlaceRule rule, guint64 *offsets, MpDecisionTrace *trace,
                            GCancellable *cancellable, GError **error);

/* Decision recording (decision-trace.c), called only when a trace is asked
 * for. busy: the sorted span union over the record's lifetime. */
void mp_decision_trace_own_region (MpDecisionTrace *trace, guint record, guint64 offset);
void mp_decision_trace_partition  (MpDecisionTrace *trace, guint record, const GArray *busy,
                               guint n_parts, const guint64 *weights, guint chosen,
                               gboolean opened);
void mp_decision_trace_set_op     (MpDecisionTrace *trace, guint k, gint op);
/* mp_time_index_best_fit's answer found from mp_time_index_busy's union,
 * whose gaps it records (tests/test-trace-planner.c checks the offsets). */
guint64 mp_decision_trace_best_fit (MpDecisionTrace *trace, MpTimeIndex *index, guint record,
                                const MpUsage *r);
/* The same for mp_time_index_first_fit. */
guint64 mp_decision_trace_first_fit (MpDecisionTrace *trace, MpTimeIndex *index, guint record,
                                 const MpUsage *r);
/* Names the planner's order and placement rule; nothing when trace is NULL. */
void mp_decision_trace_rules      (MpDecisionTrace *trace, const char *order, const char *place);

#define MP_RULE_LARGEST_FIRST "largest first (ties in first appearance)"
#define MP_RULE_SMALLEST_GAP                                                                     \
  "each into the smallest gap between the placed tensors that overlap it in time (the lowest "  \
  "on a tie), else on top of them"

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
MpPlan *mp_planner_first_fit      (const MpGraph *, const MpLifetimes *, const MpPlannerOptions *,
                                   GCancellable *, GError **);
MpPlan *mp_planner_best_of       (const MpGraph *, const MpLifetimes *, const MpPlannerOptions *,
                                   GCancellable *, GError **);
MpPlan *mp_planner_optimal        (const MpGraph *, const MpLifetimes *, const MpPlannerOptions *,
                                   GCancellable *, GError **);

G_END_DECLS
