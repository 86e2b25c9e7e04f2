/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "memplan-analysis"

#include "planner-constraints.h"
#include "planner-private.h"

/* Every buffer its own region, in order of first appearance. */
guint64
mp_place_naive (const MpUsage *records, guint n, guint64 *offsets)
{
  guint64 top = 0;

  for (guint i = 0; i < n; i++)
    {
      offsets[i] = top;
      top += records[i].size;
    }
  return top;
}

MpPlan *
mp_planner_naive (const MpGraph *graph, const MpLifetimes *lifetimes,
                  const MpPlannerOptions *options, GCancellable *cancellable, GError **error)
{
  MpPlan *plan = mp_plan_new ("naive", lifetimes);

  if (G_UNLIKELY (lifetimes->constrained))
    {
      g_autofree guint *order = g_new (guint, MAX (plan->n_records, 1));

      /* fixed buffers where they must be, the others stacked above them */
      for (guint i = 0; i < plan->n_records; i++)
        order[i] = i;
      if (!mp_place_constrained (graph, plan->records, plan->n_records, order, MP_PLACE_ON_TOP,
                                 plan->offsets, cancellable, error))
        {
          mp_plan_free (plan);
          return NULL;
        }
      return plan;
    }
  mp_place_naive (plan->records, plan->n_records, plan->offsets);
  if (G_UNLIKELY (options->trace))
    {
      mp_decision_trace_rules (options->trace, "first appearance",
                           "each on top of all the tensors before it; nothing is shared");
      for (guint i = 0; i < plan->n_records; i++)
        mp_decision_trace_own_region (options->trace, i, plan->offsets[i]);
    }
  return plan;
}
