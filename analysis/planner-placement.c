/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "memplan-analysis"

#include <stdlib.h>

#include "planner-constraints.h"
#include "planner-private.h"
#include "time-index.h"

/* What the greedy planners share: the orders they visit the records in, and
 * the placement loop. Greedy-by-size, greedy-by-breadth, best-fit and
 * multistream differ only in the order and first-fit only in the rule; the
 * time index answers each placement from the buffers live with the record. */

static int
cmp_order_key (const void *pa, const void *pb)
{
  const MpOrderKey *a = pa, *b = pb;

  if (a->key != b->key)
    return a->key < b->key ? 1 : -1;
  if (a->key2 != b->key2)
    return a->key2 < b->key2 ? 1 : -1;
  return (a->index > b->index) - (a->index < b->index);
}

void
mp_order_sort (MpOrderKey *keys, guint n)
{
  /* qsort(NULL, 0, …) is undefined behaviour even though nothing is sorted */
  if (n > 1)
    qsort (keys, n, sizeof (MpOrderKey), cmp_order_key);
}

guint *
mp_order_from_keys (MpOrderKey *keys, guint n)
{
  guint *order = g_new (guint, MAX (n, 1));

  mp_order_sort (keys, n);
  for (guint i = 0; i < n; i++)
    order[i] = keys[i].index;
  return order;
}

guint *
mp_order_by_size (const MpUsage *records, guint n)
{
  g_autofree MpOrderKey *keys = g_new (MpOrderKey, MAX (n, 1));

  for (guint i = 0; i < n; i++)
    keys[i] = (MpOrderKey) { records[i].size, 0, i };
  return mp_order_from_keys (keys, n);
}

MpTimeIndex *
mp_time_index_for_usage (const MpUsage *records, guint n, guint n_steps)
{
  gdouble lived = 0;
  guint   open = 0;

  for (guint i = 0; i < n; i++)
    {
      lived += (gdouble) records[i].last - records[i].first + 1;
      open += records[i].first == 0 || records[i].last + 1 >= n_steps;
    }
  return mp_time_index_new_for_lives (MAX (n_steps, 1), n ? lived / n : 1,
                                      n ? (gdouble) open / n : 0);
}

#define PREFETCH_AHEAD 4

gboolean
mp_place_in_order (const MpUsage *records, guint n, guint n_steps, const guint *order,
                   MpPlaceRule rule, guint64 *offsets, MpDecisionTrace *trace,
                   GCancellable *cancellable, GError **error)
{
  g_autoptr (MpTimeIndex) index = NULL;

  /* buffers with constraints of their own: planner-constraints.c */
  if (G_UNLIKELY (mp_usage_constrained (records, n)))
    return mp_place_constrained (NULL, records, n, order, rule, offsets, cancellable, error);
  index = mp_time_index_for_usage (records, n, n_steps);
  for (guint k = 0; k < n; k++)
    {
      const MpUsage *r = &records[order[k]];
      guint64        offset;

      /* records and blocks come in random order: read ahead */
      if (k + 3 * PREFETCH_AHEAD < n)
        __builtin_prefetch (&records[order[k + 3 * PREFETCH_AHEAD]]);
      if (k + 2 * PREFETCH_AHEAD < n)
        {
          const MpUsage *a = &records[order[k + 2 * PREFETCH_AHEAD]];

          mp_time_index_prefetch (index, a->first, a->last, TRUE);
        }
      if (k + PREFETCH_AHEAD < n)
        {
          const MpUsage *a = &records[order[k + PREFETCH_AHEAD]];

          mp_time_index_prefetch (index, a->first, a->last, FALSE);
        }

      if (k % MP_CANCEL_STRIDE == 0 && g_cancellable_set_error_if_cancelled (cancellable, error))
        return FALSE;

      if (G_UNLIKELY (trace))
        offset = rule == MP_PLACE_FIRST_FIT ? mp_decision_trace_first_fit (trace, index, order[k], r)
                                            : mp_decision_trace_best_fit (trace, index, order[k], r);
      else if (rule == MP_PLACE_FIRST_FIT)
        offset = mp_time_index_first_fit (index, r->first, r->last, r->size);
      else
        offset = mp_time_index_best_fit (index, r->first, r->last, r->size);
      offsets[order[k]] = offset;
      mp_time_index_insert (index, r->first, r->last, offset, r->size);
    }
  return TRUE;
}
