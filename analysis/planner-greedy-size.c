/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "memplan-analysis"

#include <stdlib.h>

#include "planner-private.h"
#include "time-index.h"

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
  g_autoptr (MpTimeIndex) index = mp_time_index_new (MAX (n_steps, 1));
  guint64 arena = 0;

  for (guint k = 0; k < n; k++)
    {
      const MpUsage *r = &records[order[k]];
      guint64        offset;

      offset = mp_time_index_best_fit (index, r->first, r->last, r->size);
      offsets[order[k]] = offset;
      mp_time_index_insert (index, r->first, r->last, offset, r->size);
      arena = MAX (arena, offset + r->size);
    }
  return arena;
}

MpPlan *
mp_planner_greedy_by_size (const MpGraph *graph, const MpLifetimes *lifetimes,
                           const MpPlannerOptions *options, GCancellable *cancellable,
                           GError **error)
{
  MpPlan *plan = mp_plan_new ("greedy-by-size", lifetimes);

  if (G_UNLIKELY (options->trace))
    mp_place_greedy_by_size_traced (plan->records, plan->n_records, plan->n_steps, plan->offsets,
                                    options->trace);
  else
    mp_place_greedy_by_size (plan->records, plan->n_records, plan->n_steps, plan->offsets);
  return plan;
}
