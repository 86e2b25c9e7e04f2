/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "memplan-analysis"

#include "planner-private.h"

/* XLA's heap simulator, global decreasing-size best fit: buffers by size,
 * largest first (ties: the longer lifetime first, then first appearance);
 * each takes the free interval of the address space, free over its whole
 * lifetime, that wastes least: the smallest gap among the buffers live with
 * it that holds it (the lowest on a tie), else the space above them. The time
 * index answers "what is taken during [first, last]" as a sorted span union,
 * whose gaps are exactly those free intervals (planner-placement.c). */

MpPlan *
mp_planner_best_fit (const MpGraph *graph, const MpLifetimes *lifetimes,
                     const MpPlannerOptions *options, GCancellable *cancellable, GError **error)
{
  g_autoptr (MpPlan)     plan = mp_plan_new ("best-fit", lifetimes);
  guint                  n = plan->n_records;
  g_autofree MpOrderKey *keys = g_new (MpOrderKey, MAX (n, 1));
  g_autofree guint      *order = NULL;

  for (guint i = 0; i < n; i++)
    {
      gint64 first, last;

      /* in the user's time units: usage-record steps are ranks of start times */
      mp_usage_times (graph, &plan->records[i], &first, &last);
      keys[i] = (MpOrderKey) { plan->records[i].size, last - first, i };
    }
  order = mp_order_from_keys (keys, n);
  mp_decision_trace_rules (options->trace,
                       "largest first; on a tie the longer lifetime first, then first appearance",
                       "each into the free interval over its lifetime that wastes least (the "
                       "lowest on a tie), else above the tensors live with it");
  if (!mp_place_in_order (plan->records, n, plan->n_steps, order, MP_PLACE_BEST_FIT,
                          plan->offsets, options->trace, cancellable, error))
    return NULL;
  return g_steal_pointer (&plan);
}
