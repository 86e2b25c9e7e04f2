/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "memplan-analysis"

#include <stdlib.h>

#include "planner-private.h"

/* Pisarchyk & Lee's greedy by size for offset calculation, with AITemplate's
 * exact rules: largest first (a stable sort, so ties keep first-appearance
 * order); among placed buffers whose lifetimes overlap, the smallest gap that
 * fits (the lowest such gap on a tie), else on top of them. AITemplate scans
 * every placed buffer; the time index visits only overlapping ones, and
 * their merged address union has the same gaps. */

typedef struct
{
  guint64 size;
  guint   index;
} SortKey;

static int
cmp_size_desc (const void *pa, const void *pb)
{
  const SortKey *a = pa, *b = pb;

  if (a->size != b->size)
    return a->size < b->size ? 1 : -1;
  return (a->index > b->index) - (a->index < b->index);
}

guint *
mp_order_by_size (const MpUsage *records, guint n)
{
  g_autofree SortKey *keys = g_new (SortKey, MAX (n, 1));
  guint              *order = g_new (guint, MAX (n, 1));

  for (guint i = 0; i < n; i++)
    {
      keys[i].size = records[i].size;
      keys[i].index = i;
    }
  qsort (keys, n, sizeof (SortKey), cmp_size_desc);
  for (guint i = 0; i < n; i++)
    order[i] = keys[i].index;
  return order;
}

guint64
mp_place_greedy_by_size (const MpUsage *records, guint n, guint n_steps, guint64 *offsets)
{
  g_autofree guint *order = mp_order_by_size (records, n);
  guint64           arena = 0;

  mp_place_best_fit (records, n, n_steps, order, offsets, NULL, NULL, NULL);
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

  mp_plan_trace_rules (options->trace, MP_RULE_LARGEST_FIRST, MP_RULE_SMALLEST_GAP);
  if (!mp_place_best_fit (plan->records, plan->n_records, plan->n_steps, order, plan->offsets,
                          options->trace, cancellable, error))
    return NULL;
  return g_steal_pointer (&plan);
}
