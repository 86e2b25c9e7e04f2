/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "memplan-analysis"

#include <string.h>

#include "plan-rank.h"
#include "verdict.h"

static gint
by_arena (gconstpointer a, gconstpointer b, gpointer user_data)
{
  MpPlan * const *plans = user_data;
  guint64         x = plans[*(const guint *) a]->arena, y = plans[*(const guint *) b]->arena;

  return x < y ? -1 : x > y;
}

guint
mp_plans_rank (MpPlan * const *plans, guint n_plans, guint *order)
{
  g_autofree MpPlan **rest = g_new (MpPlan *, MAX (n_plans, 1));
  g_autofree guint   *where = g_new (guint, MAX (n_plans, 1));
  guint               n_rest = n_plans, n_ranked = 0;
  gint                best;

  g_return_val_if_fail (plans != NULL || n_plans == 0, 0);
  g_return_val_if_fail (order != NULL || n_plans == 0, 0);
  for (guint i = 0; i < n_plans; i++)
    {
      rest[i] = plans[i];
      where[i] = i;
    }
  while (n_rest > 0 && (best = mp_plans_best (rest, n_rest)) >= 0)
    {
      order[n_ranked++] = where[best];
      /* keep the others in their order: the rule breaks ties by it */
      memmove (rest + best, rest + best + 1, (n_rest - best - 1) * sizeof *rest);
      memmove (where + best, where + best + 1, (n_rest - best - 1) * sizeof *where);
      n_rest--;
    }
  memcpy (order + n_ranked, where, n_rest * sizeof *where);
  /* stable (GLib's is a merge sort): equal arenas keep the given order */
  g_qsort_with_data (order + n_ranked, (gint) n_rest, sizeof *order, by_arena, (gpointer) plans);
  return n_ranked;
}
