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

  /* a race says itself in full in the other verdict */
  verdict = mp_plan_races (plan) ? NULL : mp_plan_verdict (plan);
  other = mp_plan_verdict_other (plan);
  append_sentence (s, verdict);
  append_sentence (s, other);
  return g_string_free (s, FALSE);
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
