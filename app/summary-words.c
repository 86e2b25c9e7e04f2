/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "memplan"

#include "summary-words.h"

char *
mp_summary_verdict (const MpPlan *plan)
{
  g_return_val_if_fail (plan != NULL, NULL);

  /* judged under the schedule it was made for (parallel groups for
   * multistream, op order for the others); the other one is information,
   * but a plan made for op order that clashes when the streams run
   * together says so in its cell */
  if (!plan->valid)
    return g_strdup_printf ("INVALID: %s", plan->problem ? plan->problem : "?");
  if (!plan->parallel && plan->concurrent_checked && !plan->concurrent_valid)
    return g_strdup ("NO (concurrent)");
  return g_strdup ("valid");
}

char *
mp_summary_verdict_detail (const MpPlan *plan)
{
  gboolean         in_order = plan->concurrent_checked ? plan->sequential_valid : plan->valid;
  const char      *problem = plan->concurrent_checked ? plan->sequential_problem : plan->problem;
  g_autofree char *order = NULL;

  g_return_val_if_fail (plan != NULL, NULL);

  order = in_order ? g_strdup ("Valid in op order.")
                   : g_strdup_printf ("INVALID in op order: %s", problem ? problem : "?");
  if (!plan->concurrent_checked)
    return g_steal_pointer (&order);
  if (plan->concurrent_valid)
    return g_strdup_printf ("%s\nValid when the streams run concurrently.", order);
  return g_strdup_printf ("%s\nINVALID when the streams run concurrently: %s", order,
                          plan->concurrent_problem ? plan->concurrent_problem : "?");
}

char *
mp_summary_percent (gdouble fraction)
{
  gdouble p = 100.0 * fraction;

  if (p <= 0)
    return g_strdup ("0%");
  if (p < 0.095) /* a hair, but not nothing: two significant digits */
    return g_strdup_printf ("%.2g%%", p);
  return p < 9.95 ? g_strdup_printf ("%.1f%%", p) : g_strdup_printf ("%.0f%%", p);
}

/* Also valid when the streams run together (where that was checked). */
static gboolean
clean (const MpPlan *plan)
{
  return plan->parallel || !plan->concurrent_checked || plan->concurrent_valid;
}

gint
mp_summary_best (MpPlan * const *plans, guint n_plans)
{
  gint best = -1;

  /* the smallest arena; of a tie, one that holds under every schedule */
  for (guint i = 0; i < n_plans; i++)
    if (plans[i]->valid && plans[i]->n_records > 0 &&
        (best < 0 || plans[i]->arena < plans[best]->arena ||
         (plans[i]->arena == plans[best]->arena && clean (plans[i]) && !clean (plans[best]))))
      best = (gint) i;
  return best;
}

char *
mp_summary_margin (MpPlan * const *plans, guint n_plans, guint best)
{
  const MpPlan    *b = plans[best];
  const MpPlan    *next = NULL;
  g_autoptr (GString) ties = g_string_new (NULL);
  g_autofree char *above = NULL;
  g_autofree char *below = NULL;

  g_return_val_if_fail (best < n_plans, NULL);

  for (guint i = 0; i < n_plans; i++)
    {
      const MpPlan *p = plans[i];

      if (i == best || !p->valid || p->n_records == 0)
        continue;
      if (p->arena == b->arena)
        g_string_append_printf (ties, "%s%s", ties->len ? ", " : "", p->planner);
      else if (next == NULL || p->arena < next->arena)
        next = p;
    }
  if (b->arena <= b->lower_bound)
    above = g_strdup ("at the lower bound");
  else
    {
      g_autofree char *pc = mp_summary_percent ((gdouble) (b->arena - b->lower_bound) /
                                                MAX (b->lower_bound, 1));
      above = g_strdup_printf ("%s above the lower bound", pc);
    }
  if (next)
    {
      g_autofree char *pc = mp_summary_percent ((gdouble) (next->arena - b->arena) /
                                                next->arena);
      below = g_strdup_printf ("%s below %s, ", pc, next->planner);
    }
  if (ties->len)
    return g_strdup_printf ("%s (tied with %s): %s%s", b->planner, ties->str,
                            below ? below : "", above);
  return g_strdup_printf ("%s: %s%s", b->planner, below ? below : "", above);
}

char *
mp_summary_bound_note (MpPlan * const *plans, guint n_plans, guint i)
{
  guint64 common = 0;
  gint    votes = 0;

  g_return_val_if_fail (i < n_plans, NULL);

  /* the bound most plans share (Boyer–Moore majority, then any plurality) */
  for (guint k = 0; k < n_plans; k++)
    {
      if (votes == 0)
        common = plans[k]->lower_bound;
      votes += plans[k]->lower_bound == common ? 1 : -1;
    }
  if (plans[i]->lower_bound == common)
    return NULL;
  if (plans[i]->parallel)
    return g_strdup ("its own lower bound: ops of different streams run together in parallel "
                     "groups, so more tensors are live at once");
  if (g_str_equal (plans[i]->planner, "observed"))
    return g_strdup ("its own lower bound: the trace's allocations live as long as the "
                     "allocator kept them");
  return g_strdup ("its own lower bound: its records' lifetimes differ from the others'");
}

char *
mp_summary_proof (const MpPlan *plan)
{
  g_return_val_if_fail (plan != NULL, NULL);

  if (!g_str_equal (plan->planner, "optimal"))
    return NULL;
  if (plan->proved_optimal)
    return g_strdup ("proved optimal");
  return g_strdup_printf ("not proved: %s", plan->note ? plan->note : "the search stopped");
}
