/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "memplan-analysis"

#include <string.h>

#include "plan.h"
#include "validate.h"

MpPlan *
mp_plan_new_records (const char *planner, const MpUsage *records, guint n_records, guint n_steps,
                     guint64 alignment)
{
  MpPlan *plan = g_new0 (MpPlan, 1);

  plan->planner = g_strdup (planner);
  plan->records = mp_usage_box_dup (records, n_records);
  plan->n_records = n_records;
  plan->n_steps = n_steps;
  plan->alignment = alignment;
  plan->offsets = g_new (guint64, MAX (n_records, 1));
  memset (plan->offsets, 0xff, sizeof (guint64) * n_records);
  plan->lower_bound = mp_usage_lower_bound (records, n_records, n_steps, NULL, NULL);
  return plan;
}

MpPlan *
mp_plan_new (const char *planner, const MpLifetimes *lifetimes)
{
  MpPlan *plan = g_new0 (MpPlan, 1);

  plan->planner = g_strdup (planner);
  /* shared, not copied: a million records are 32 MB per plan */
  plan->records = g_atomic_rc_box_acquire (lifetimes->records);
  plan->n_records = lifetimes->n_records;
  plan->n_steps = lifetimes->n_steps;
  plan->alignment = lifetimes->alignment;
  plan->workspace = lifetimes->workspace;
  plan->lower_bound = lifetimes->lower_bound;
  plan->offsets = g_new (guint64, MAX (plan->n_records, 1));
  memset (plan->offsets, 0xff, sizeof (guint64) * plan->n_records);
  return plan;
}

void
mp_plan_free (MpPlan *plan)
{
  if (plan == NULL)
    return;
  g_free (plan->planner);
  g_free (plan->graph_name);
  g_atomic_rc_box_release (plan->records);
  g_free (plan->offsets);
  g_free (plan->note);
  g_free (plan->memory);
  g_free (plan->problem);
  g_free (plan->sequential_problem);
  g_free (plan->concurrent_problem);
  g_free (plan);
}

void
mp_plan_finish (MpPlan *plan)
{
  plan->arena = 0;
  for (guint i = 0; i < plan->n_records; i++)
    {
      guint64 end;

      /* an offset from a file may be anything: saturate, and the validator
       * reports the tensor that ends past any arena */
      if (plan->offsets[i] == G_MAXUINT64)
        continue;
      if (!g_uint64_checked_add (&end, plan->offsets[i], plan->records[i].bytes))
        end = G_MAXUINT64;
      plan->arena = MAX (plan->arena, end);
    }
}

gdouble
mp_plan_ratio (const MpPlan *plan)
{
  if (plan->lower_bound == 0)
    return plan->arena == 0 ? 1.0 : G_MAXDOUBLE;
  return (gdouble) plan->arena / (gdouble) plan->lower_bound;
}

gdouble
mp_plan_fragmentation (const MpPlan *plan)
{
  if (plan->arena == 0)
    return 0.0;
  return 1.0 - (gdouble) plan->lower_bound / (gdouble) plan->arena;
}
