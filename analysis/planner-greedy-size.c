/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "memplan-analysis"

#include "planner-private.h"

/* Pisarchyk & Lee's greedy by size for offset calculation, with AITemplate's
 * exact rules: largest first (a stable sort, so ties keep first-appearance
 * order); among placed buffers whose lifetimes overlap, the smallest gap that
 * fits (the lowest such gap on a tie), else on top of them. AITemplate scans
 * every placed buffer; the time index visits only overlapping ones, and
 * their merged address union has the same gaps. */

guint64
mp_place_greedy_by_size (const MpUsage *records, guint n, guint n_steps, guint64 *offsets)
{
  g_autofree guint *order = mp_order_by_size (records, n);
  guint64           arena = 0;

  mp_place_in_order (records, n, n_steps, order, MP_PLACE_BEST_FIT, offsets, NULL, NULL, NULL);
  for (guint i = 0; i < n; i++)
    arena = MAX (arena, offsets[i] + records[i].size);
  return arena;
}

MpPlan *
mp_planner_greedy_by_size (const MpGraph *graph, const MpLifetimes *lifetimes,
                           const MpPlannerOptions *options, GCancellable *cancellable,
                           GError **error)
{
  g_autoptr (MpPlan) plan = mp_plan_new ("greedy-by-size", lifetimes);
  g_autofree guint *order = mp_order_by_size (plan->records, plan->n_records);

  mp_decision_trace_rules (options->trace, MP_RULE_LARGEST_FIRST, MP_RULE_SMALLEST_GAP);
  if (!mp_place_in_order (plan->records, plan->n_records, plan->n_steps, order,
                          MP_PLACE_BEST_FIT, plan->offsets, options->trace, cancellable, error))
    return NULL;
  return g_steal_pointer (&plan);
}
