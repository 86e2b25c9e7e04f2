/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "memplan-analysis"

#include "plan-io.h"
#include "planner-private.h"
#include "time-index.h"

/* tract's GPU memory schema: tensors by size, largest first (a stable sort,
 * so ties keep first appearance); each joins, among the partitions none of
 * whose members' lifetimes overlap its own, the one with the largest total
 * of member sizes (the oldest on a tie), else opens a new partition. A
 * partition is as large as its largest member, rounded to the alignment; the
 * partitions are stacked in the order they were opened and every member
 * takes its partition's offset.
 *
 * tract scans every partition for every tensor. Here partition p is the unit
 * address [p, p + 1) of a time index, so the partitions busy during a
 * lifetime come back as a sorted span union whose gaps are the free ones,
 * and a max tree over partition weights picks the heaviest of each gap. */

/* Leaves hold partition indices; a node holds its subtree's heaviest
 * partition, the lowest index among equals. */
typedef struct
{
  guint    n_leaves;
  guint   *best;   /* 2 * n_leaves nodes, G_MAXUINT: none */
  guint64 *weight; /* per partition */
} MaxTree;

static inline guint
heavier (const MaxTree *t, guint a, guint b)
{
  if (a == G_MAXUINT)
    return b;
  if (b == G_MAXUINT)
    return a;
  if (t->weight[a] != t->weight[b])
    return t->weight[a] > t->weight[b] ? a : b;
  return MIN (a, b);
}

static void
max_tree_set (MaxTree *t, guint p, guint64 weight)
{
  guint v = p + t->n_leaves;

  t->weight[p] = weight;
  t->best[v] = p;
  for (v >>= 1; v >= 1; v >>= 1)
    t->best[v] = heavier (t, t->best[2 * v], t->best[2 * v + 1]);
}

/* Heaviest partition in [lo, hi), or G_MAXUINT. */
static guint
max_tree_query (const MaxTree *t, guint lo, guint hi)
{
  guint best = G_MAXUINT;

  for (lo += t->n_leaves, hi += t->n_leaves; lo < hi; lo >>= 1, hi >>= 1)
    {
      if (lo & 1)
        best = heavier (t, best, t->best[lo++]);
      if (hi & 1)
        best = heavier (t, best, t->best[--hi]);
    }
  return best;
}

MpPlan *
mp_planner_partition (const MpGraph *graph, const MpLifetimes *lifetimes,
                      const MpPlannerOptions *options, GCancellable *cancellable, GError **error)
{
  g_autoptr (MpPlan)  plan = mp_plan_new ("partition", lifetimes);
  guint               n = plan->n_records, n_parts = 0;
  g_autofree MpOrderKey *keys = g_new (MpOrderKey, MAX (n, 1));
  g_autofree guint   *part_of = g_new (guint, MAX (n, 1));
  g_autofree guint64 *part_size = g_new0 (guint64, MAX (n, 1));
  g_autoptr (MpTimeIndex) index = mp_time_index_for_usage (plan->records, n, plan->n_steps);
  g_autoptr (GArray) busy = g_array_new (FALSE, FALSE, sizeof (MpSpan));
  MaxTree          tree = { 1 };
  g_autofree guint   *tree_best = NULL;
  g_autofree guint64 *tree_weight = NULL;
  g_autofree char *peak = NULL, *total = NULL;
  guint64          memory = 0;

  while (tree.n_leaves < n)
    tree.n_leaves *= 2;
  tree.best = tree_best = g_new (guint, 2 * (gsize) tree.n_leaves);
  tree.weight = tree_weight = g_new0 (guint64, tree.n_leaves);
  for (gsize v = 0; v < 2 * (gsize) tree.n_leaves; v++)
    tree.best[v] = G_MAXUINT;

  for (guint i = 0; i < n; i++)
    keys[i] = (MpOrderKey) { plan->records[i].bytes, 0, i };
  mp_order_sort (keys, n);
  mp_decision_trace_rules (options->trace, MP_RULE_LARGEST_FIRST,
                       "each joins the heaviest partition none of whose members is live with it "
                       "(the oldest on a tie), else opens a new one; partitions are stacked in "
                       "the order they were opened, each as large as its first (largest) member");

  for (guint k = 0; k < n; k++)
    {
      const MpUsage *r = &plan->records[keys[k].index];
      const MpSpan  *s;
      guint          best = G_MAXUINT, prev = 0;

      if (k % MP_CANCEL_STRIDE == 0 && g_cancellable_set_error_if_cancelled (cancellable, error))
        {
          return NULL;
        }
      mp_time_index_busy (index, r->first, r->last, busy);
      s = (const MpSpan *) busy->data;
      for (guint j = 0; j <= busy->len; j++)
        {
          guint end = j < busy->len ? (guint) s[j].start : n_parts;

          if (prev < end)
            best = heavier (&tree, best, max_tree_query (&tree, prev, end));
          if (j < busy->len)
            prev = (guint) s[j].end;
        }
      if (G_UNLIKELY (options->trace))
        mp_decision_trace_partition (options->trace, keys[k].index, busy, n_parts, tree.weight,
                                 best == G_MAXUINT ? n_parts : best, best == G_MAXUINT);
      if (best == G_MAXUINT)
        {
          best = n_parts++;
          part_size[best] = r->size; /* the largest member comes first */
        }
      part_of[keys[k].index] = best;
      max_tree_set (&tree, best, tree.weight[best] + r->bytes);
      mp_time_index_insert (index, r->first, r->last, best, 1);
    }

  /* stacked in the order they were opened: prefix sums */
  for (guint p = 0; p < n_parts; p++)
    {
      guint64 size = part_size[p];

      part_size[p] = memory;
      memory += size;
    }
  for (guint i = 0; i < n; i++)
    plan->offsets[i] = part_size[part_of[i]];

  /* tract's usage: the peak of live bytes over the memory of the schema */
  plan->n_partitions = n_parts;
  peak = mp_format_bytes (plan->lower_bound);
  total = mp_format_bytes (memory);
  plan->note = g_strdup_printf ("%u partitions; tract usage %.4f (peak %s / partitions %s)",
                                n_parts, memory ? (gdouble) plan->lower_bound / memory : 1.0,
                                peak, total);
  return g_steal_pointer (&plan);
}
