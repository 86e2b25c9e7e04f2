/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "memplan-analysis"

#include <stdlib.h>

#include "planner-private.h"
#include "time-index.h"

/* The placement rule every greedy planner shares: in the given order, each
 * buffer takes the lowest of the smallest gaps among the buffers live with it
 * that holds it, else the space above them. Greedy-by-size, greedy-by-breadth
 * and best-fit differ only in the order.
 *
 * XLA's heap simulator, global decreasing-size best fit: buffers by size,
 * largest first (ties: the longer lifetime first, then first appearance);
 * each takes the free interval of the address space, free over its whole
 * lifetime, that wastes least: the smallest gap among the buffers live with
 * it that holds it (the lowest on a tie), else the space above them. The time
 * index answers "what is taken during [first, last]" as a sorted span union,
 * whose gaps are exactly those free intervals. */

gboolean
mp_place_best_fit (const MpUsage *records, guint n, guint n_steps, const guint *order,
                   guint64 *offsets, MpPlanTrace *trace, GCancellable *cancellable,
                   GError **error)
{
  g_autoptr (MpTimeIndex) index = mp_time_index_new (MAX (n_steps, 1));

  for (guint k = 0; k < n; k++)
    {
      const MpUsage *r = &records[order[k]];
      guint64        offset;

      if (k % MP_CANCEL_STRIDE == 0 && g_cancellable_set_error_if_cancelled (cancellable, error))
        return FALSE;

      if (G_UNLIKELY (trace))
        offset = mp_plan_trace_best_fit (trace, index, order[k], r);
      else
        offset = mp_time_index_best_fit (index, r->first, r->last, r->size);
      offsets[order[k]] = offset;
      mp_time_index_insert (index, r->first, r->last, offset, r->size);
    }
  return TRUE;
}

typedef struct
{
  guint64 size;
  guint64 span;
  guint   index;
} SortKey;

static int
cmp_size_span (const void *pa, const void *pb)
{
  const SortKey *a = pa, *b = pb;

  if (a->size != b->size)
    return a->size < b->size ? 1 : -1;
  if (a->span != b->span)
    return a->span < b->span ? 1 : -1;
  return (a->index > b->index) - (a->index < b->index);
}

MpPlan *
mp_planner_best_fit (const MpGraph *graph, const MpLifetimes *lifetimes,
                     const MpPlannerOptions *options, GCancellable *cancellable, GError **error)
{
  g_autoptr (MpPlan)  plan = mp_plan_new ("best-fit", lifetimes);
  guint               n = plan->n_records;
  g_autofree SortKey *keys = g_new (SortKey, MAX (n, 1));
  g_autofree guint   *order = g_new (guint, MAX (n, 1));

  for (guint i = 0; i < n; i++)
    {
      gint64 first, last;

      /* in the user's time units: usage-record steps are ranks of start times */
      mp_usage_times (graph, &plan->records[i], &first, &last);
      keys[i].size = plan->records[i].size;
      keys[i].span = last - first;
      keys[i].index = i;
    }
  qsort (keys, n, sizeof (SortKey), cmp_size_span);
  for (guint i = 0; i < n; i++)
    order[i] = keys[i].index;
  mp_plan_trace_rules (options->trace,
                       "largest first; on a tie the longer lifetime first, then first appearance",
                       "each into the free interval over its lifetime that wastes least (the "
                       "lowest on a tie), else above the tensors live with it");
  if (!mp_place_best_fit (plan->records, n, plan->n_steps, order, plan->offsets, options->trace,
                          cancellable, error))
    return NULL;
  return g_steal_pointer (&plan);
}
