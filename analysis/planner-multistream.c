/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "memplan-analysis"

#include "planner-private.h"
#include "schedule.h"

/* AITemplate's simple multi-stream planning: lifetimes are measured in the
 * parallel groups of the schedule (ops of one dependency level run together,
 * at most max_parallel_ops per group), so tensors of ops that may overlap in
 * time never share memory; then greedy by size on those lifetimes. The plan
 * keeps the group lifetimes (plan->parallel); its steps are groups. */

MpPlan *
mp_planner_multistream (const MpGraph *graph, const MpLifetimes *lifetimes,
                        const MpPlannerOptions *options, GCancellable *cancellable,
                        GError **error)
{
  g_autoptr (MpSchedule) schedule = mp_schedule_parallel (graph, options->max_parallel_ops);
  g_autoptr (MpLifetimes) groups = mp_schedule_lifetimes (schedule, graph, lifetimes);
  g_autoptr (MpPlan) plan = mp_plan_new ("multistream", groups);
  g_autofree guint *order = mp_order_by_size (plan->records, plan->n_records);

  plan->parallel = TRUE;
  plan->max_parallel_ops = options->max_parallel_ops;
  mp_decision_trace_rules (options->trace, MP_RULE_LARGEST_FIRST, MP_RULE_SMALLEST_GAP);
  if (!mp_place_in_order (plan->records, plan->n_records, plan->n_steps, order,
                          MP_PLACE_BEST_FIT, plan->offsets, options->trace, cancellable, error))
    return NULL;
  if (options->max_parallel_ops)
    plan->note = g_strdup_printf ("%u ops in %u parallel groups over %u levels, at most %u ops "
                                  "per group; steps are groups",
                                  graph->n_ops, schedule->n_groups, schedule->n_levels,
                                  options->max_parallel_ops);
  else
    plan->note = g_strdup_printf ("%u ops in %u parallel groups (one per level); steps are "
                                  "groups",
                                  graph->n_ops, schedule->n_groups);
  return g_steal_pointer (&plan);
}
