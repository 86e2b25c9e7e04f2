/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "memplan"

#include "summary-words.h"

static void
append_sentence (GString *s, const char *text)
{
  if (text == NULL)
    return;
  if (s->len)
    g_string_append_c (s, '\n');
  g_string_append_c (s, g_ascii_toupper (text[0]));
  g_string_append (s, text + 1);
  g_string_append_c (s, '.');
}

char *
mp_summary_verdict_detail (const MpPlan *plan)
{
  g_autofree char *verdict = NULL;
  g_autofree char *other = NULL;
  GString         *s = g_string_new (NULL);

  g_return_val_if_fail (plan != NULL, NULL);

  verdict = mp_plan_verdict (plan);
  other = mp_plan_verdict_other (plan);
  append_sentence (s, verdict);
  append_sentence (s, other);
  return g_string_free (s, FALSE);
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

/* The planners tied with best, "a, b"; empty for none. */
static GString *
ties (MpPlan * const *plans, guint n_plans, guint best)
{
  GString *s = g_string_new (NULL);

  for (guint i = 0; i < n_plans; i++)
    if (i != best && plans[i]->valid && plans[i]->n_records > 0 &&
        plans[i]->arena == plans[best]->arena)
      g_string_append_printf (s, "%s%s", s->len ? ", " : "", plans[i]->planner);
  return s;
}

char *
mp_summary_margin_detail (MpPlan * const *plans, guint n_plans, guint best)
{
  const MpPlan    *b = plans[best];
  const MpPlan    *next = NULL;
  g_autofree char *above = NULL;
  g_autofree char *below = NULL;

  g_return_val_if_fail (best < n_plans, NULL);

  for (guint i = 0; i < n_plans; i++)
    {
      const MpPlan *p = plans[i];

      if (i != best && p->valid && p->n_records > 0 && p->arena != b->arena &&
          (next == NULL || p->arena < next->arena))
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
  return g_strdup_printf ("%s%s", below ? below : "", above);
}

char *
mp_summary_margin (MpPlan * const *plans, guint n_plans, guint best)
{
  g_autofree char *detail = mp_summary_margin_detail (plans, n_plans, best);
  g_autoptr (GString) tied = ties (plans, n_plans, best);

  if (tied->len)
    return g_strdup_printf ("%s (tied with %s): %s", plans[best]->planner, tied->str, detail);
  return g_strdup_printf ("%s: %s", plans[best]->planner, detail);
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
  if (mp_plan_traits (plans[i]) & MP_PLANNER_OBSERVED)
    return g_strdup ("its own lower bound: the trace's allocations live as long as the "
                     "allocator kept them");
  return g_strdup ("its own lower bound: its records' lifetimes differ from the others'");
}

char *
mp_summary_proof (const MpPlan *plan)
{
  g_return_val_if_fail (plan != NULL, NULL);
  return mp_plan_proof (plan);
}
