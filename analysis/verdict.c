/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "memplan-analysis"

#include "file-util.h"
#include "memories.h"
#include "validate.h"
#include "verdict.h"

static void
record (gboolean ok, GError *error, gboolean *valid, char **problem)
{
  *valid = ok;
  g_clear_pointer (problem, g_free);
  if (!ok)
    *problem = g_strdup (error->message);
}

gboolean
mp_plan_judge (const MpGraph *graph, const MpSchedule *parallel, MpPlan *plan)
{
  g_autoptr (GError) seq_error = NULL;
  g_autoptr (GError) par_error = NULL;
  g_autoptr (GError) own_error = NULL;
  g_autoptr (MpSchedule) own = NULL;
  gboolean ok;

  g_return_val_if_fail (graph != NULL && plan != NULL, FALSE);

  /* op order: a multistream plan's records are in groups, so its tensors
   * are measured again in ops */
  if (plan->parallel && graph->has_ops)
    {
      g_autoptr (MpSchedule) sequential = mp_schedule_sequential (graph);

      ok = mp_validate_schedule (graph, plan, sequential, &seq_error);
    }
  else
    ok = mp_validate_records (graph, plan->records, plan->n_records, plan->offsets,
                              plan->alignment, plan->arena, &seq_error);
  record (ok, seq_error, &plan->sequential_valid, &plan->sequential_problem);

  plan->concurrent_checked = parallel != NULL && graph->has_ops;
  if (plan->concurrent_checked)
    {
      ok = mp_validate_schedule (graph, plan, parallel, &par_error);
      record (ok, par_error, &plan->concurrent_valid, &plan->concurrent_problem);
    }

  plan->checked = TRUE;
  if (!plan->parallel || !graph->has_ops)
    record (plan->sequential_valid, seq_error, &plan->valid, &plan->problem);
  else if (plan->concurrent_checked && parallel->max_parallel_ops == plan->max_parallel_ops)
    record (plan->concurrent_valid, par_error, &plan->valid, &plan->problem);
  else
    {
      /* made for groups of another size (a plan file), or for one stream */
      own = mp_schedule_parallel (graph, plan->max_parallel_ops);
      ok = mp_validate_schedule (graph, plan, own, &own_error);
      record (ok, own_error, &plan->valid, &plan->problem);
    }

  /* a placement above the capacity asked for answers another question */
  plan->over_capacity = plan->valid && plan->capacity && plan->arena > plan->capacity;
  if (plan->over_capacity)
    {
      plan->valid = plan->sequential_valid = FALSE;
      g_free (plan->problem);
      /* a memory's share is a placement to check, not a search for a fit */
      plan->problem = plan->memory ? mp_spill_capacity_problem (graph, plan) : mp_plan_fit (plan);
      g_free (plan->sequential_problem);
      plan->sequential_problem = g_strdup (plan->problem);
    }
  return plan->valid;
}

/* " in op order" only where another schedule exists to tell it from */
static const char *
own_schedule (const MpPlan *plan)
{
  return plan->parallel ? " in parallel groups" : plan->concurrent_checked ? " in op order" : "";
}

MpVerdict
mp_plan_get_verdict (const MpPlan *plan)
{
  g_return_val_if_fail (plan != NULL, MP_VERDICT_NOT_CHECKED);
  if (!plan->checked)
    return MP_VERDICT_NOT_CHECKED;
  if (plan->valid)
    return MP_VERDICT_VALID;
  return plan->over_capacity ? MP_VERDICT_OVER_CAPACITY : MP_VERDICT_INVALID;
}

gboolean
mp_plan_fails_other (const MpPlan *plan)
{
  g_return_val_if_fail (plan != NULL, FALSE);
  if (!plan->checked)
    return FALSE;
  if (plan->parallel)
    return !plan->sequential_valid;
  return plan->concurrent_checked && !plan->concurrent_valid;
}

gboolean
mp_plan_races (const MpPlan *plan)
{
  g_return_val_if_fail (plan != NULL, FALSE);
  return plan->checked && plan->valid && !plan->parallel && plan->concurrent_checked &&
         !plan->concurrent_valid;
}

/* A plan that may win: valid under its own schedule and, where the streams
 * may run side by side, when they do (the graph's real execution). */
static gboolean
contends (const MpPlan *plan)
{
  return plan->valid && plan->n_records > 0 &&
         (!plan->concurrent_checked || plan->concurrent_valid);
}

gint
mp_plans_best (MpPlan * const *plans, guint n_plans)
{
  gint best = -1;

  for (guint i = 0; i < n_plans; i++)
    {
      const MpPlan *p = plans[i];

      if (!contends (p))
        continue;
      if (best < 0 || p->arena < plans[best]->arena)
        best = (gint) i;
      else if (p->arena == plans[best]->arena)
        {
          gboolean p_fails = mp_plan_fails_other (p);
          gboolean b_fails = mp_plan_fails_other (plans[best]);

          /* a tie goes to the plan that holds in both schedules, then to a
           * planner over what a trace observed */
          if ((!p_fails && b_fails) ||
              (p_fails == b_fails && plans[best]->observed && !p->observed))
            best = (gint) i;
        }
    }
  return best;
}

char *
mp_format_share (gdouble fraction)
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
    if (i != best && contends (plans[i]) && plans[i]->arena == plans[best]->arena)
      g_string_append_printf (s, "%s%s", s->len ? ", " : "", plans[i]->planner);
  return s;
}

char *
mp_plans_margin_detail (MpPlan * const *plans, guint n_plans, guint best)
{
  const MpPlan    *b = plans[best];
  const MpPlan    *next = NULL;
  g_autofree char *above = NULL;
  g_autofree char *below = NULL;

  g_return_val_if_fail (best < n_plans, NULL);

  for (guint i = 0; i < n_plans; i++)
    {
      const MpPlan *p = plans[i];

      if (i != best && contends (p) && p->arena != b->arena &&
          (next == NULL || p->arena < next->arena))
        next = p;
    }
  if (b->arena <= b->lower_bound)
    above = g_strdup ("at the lower bound");
  else
    {
      g_autofree char *pc = mp_format_share ((gdouble) (b->arena - b->lower_bound) /
                                             MAX (b->lower_bound, 1));
      above = g_strdup_printf ("%s above the lower bound", pc);
    }
  if (next)
    {
      guint64          gap = next->arena - b->arena;
      /* a difference a share would round away is said in bytes */
      g_autofree char *pc = gap < next->arena / 10000 ? mp_format_bytes (gap)
                                                      : mp_format_share ((gdouble) gap /
                                                                         next->arena);

      below = g_strdup_printf ("%s below %s, ", pc, next->planner);
    }
  return g_strdup_printf ("%s%s", below ? below : "", above);
}

char *
mp_plans_margin (MpPlan * const *plans, guint n_plans, guint best)
{
  g_autofree char *detail = mp_plans_margin_detail (plans, n_plans, best);
  g_autoptr (GString) tied = ties (plans, n_plans, best);

  if (tied->len)
    return g_strdup_printf ("%s (tied with %s): %s", plans[best]->planner, tied->str, detail);
  return g_strdup_printf ("%s: %s", plans[best]->planner, detail);
}

char *
mp_plan_verdict (const MpPlan *plan)
{
  if (!plan->checked)
    return g_strdup ("not checked");
  if (mp_plan_races (plan))
    return g_strdup ("races when streams run concurrently (valid in op order)");
  if (plan->valid)
    return g_strdup_printf ("valid%s", own_schedule (plan));
  if (plan->over_capacity)
    return plan->memory ? g_strdup_printf ("INVALID: %s", plan->problem) : g_strdup (plan->problem);
  if (plan->parallel)
    return g_strdup_printf ("INVALID when streams run concurrently: %s", plan->problem);
  return g_strdup_printf ("INVALID%s: %s", own_schedule (plan), plan->problem);
}

const char *
mp_plan_verdict_sequential (const MpPlan *plan)
{
  return !plan->checked ? "n/a" : plan->sequential_valid ? "yes" : "NO";
}

const char *
mp_plan_verdict_concurrent (const MpPlan *plan)
{
  return !plan->concurrent_checked ? "n/a" : plan->concurrent_valid ? "yes" : "NO";
}

char *
mp_plan_verdict_other (const MpPlan *plan)
{
  if (!mp_plan_fails_other (plan))
    return NULL;
  if (plan->parallel)
    return g_strdup_printf ("would be INVALID in op order: %s", plan->sequential_problem);
  return g_strdup_printf ("races when streams run concurrently: %s", plan->concurrent_problem);
}

char *
mp_plan_proof (const MpPlan *plan)
{
  g_autofree char *secs = NULL;
  guint64          bound;

  if (!plan->searched)
    return NULL;
  if (plan->proved_optimal)
    return g_strdup ("proved optimal");
  bound = MAX (plan->lower_bound, plan->proved_bound);
  secs = mp_format_seconds (plan->seconds);
  return g_strdup_printf ("not proved: best found, %.1f%% above the lower bound after %s",
                          bound ? 100.0 * ((gdouble) plan->arena / bound - 1.0) : 0.0, secs);
}

char *
mp_format_capacity (guint64 capacity)
{
  g_autofree char *human = mp_format_bytes (capacity);

  if (capacity < 1024)
    return g_steal_pointer (&human);
  return g_strdup_printf ("%" G_GUINT64_FORMAT " B (%s)", capacity, human);
}

char *
mp_plan_fit (const MpPlan *plan)
{
  g_autofree char *cap = NULL;
  g_autofree char *bound = NULL;
  g_autofree char *best = NULL;
  g_autofree char *secs = NULL;

  if (plan->capacity == 0)
    return NULL;
  cap = mp_format_capacity (plan->capacity);
  if (plan->arena <= plan->capacity)
    return g_strdup_printf ("fits in capacity %s", cap);
  if (plan->fit_refuted)
    {
      bound = mp_format_capacity (plan->proved_bound);
      return g_strdup_printf ("does not fit in capacity %s: proved infeasible (no plan is below "
                              "%s; proof: %s)", cap, bound,
                              plan->bound_name ? plan->bound_name : "the search");
    }
  best = mp_format_capacity (plan->arena);
  secs = mp_format_seconds (plan->seconds);
  return g_strdup_printf ("does not fit in capacity %s: none found within the budget (best "
                          "found %s after %s)", cap, best, secs);
}
