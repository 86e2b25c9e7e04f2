/* SPDX-License-Identifier: GPL-3.0-or-later */
#include <stdio.h>
#include <time.h>

#include "cli.h"

static gdouble
cpu_seconds (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_PROCESS_CPUTIME_ID, &ts);
  return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* The best arena of the heuristic planners (everything but optimal and
 * naive) on this input. */
static guint64
best_heuristic (MpWorkload *w, const char **name)
{
  guint                n_info;
  const MpPlannerInfo *infos = mp_planners (&n_info);
  g_autoptr (GPtrArray) heuristics = g_ptr_array_new ();
  g_autoptr (MpPlanRun) run = NULL;
  MpRunOptions         options = { .n_threads = 1, .keep_going = TRUE };
  guint64              best = G_MAXUINT64;

  for (guint k = 0; k < n_info; k++)
    if (!(infos[k].traits & (MP_PLANNER_SEARCHES | MP_PLANNER_BASELINE)))
      g_ptr_array_add (heuristics, (gpointer) &infos[k]);
  run = mp_workload_run (w, (const MpPlannerInfo * const *) heuristics->pdata, heuristics->len,
                         &options, NULL, NULL);
  for (guint i = 0; run && i < run->plans->len; i++)
    {
      const MpPlan *plan = run->plans->pdata[i];

      if (plan->valid && plan->arena < best)
        {
          best = plan->arena;
          *name = mp_planner_lookup (plan->planner)->name;
        }
    }
  return best;
}

/* "proved", "gap 3.90%", "fits", "no fit (proved)", "no fit (budget)" */
static char *
result_words (const MpPlan *plan)
{
  guint64 bound = MAX (plan->proved_bound, plan->lower_bound);

  if (plan->capacity && plan->arena <= plan->capacity)
    return g_strdup (plan->proved_optimal ? "fits, proved" : "fits");
  if (plan->capacity)
    return g_strdup (plan->fit_refuted ? "no fit (proved)" : "no fit (budget)");
  if (plan->proved_optimal)
    return g_strdup ("proved");
  return g_strdup_printf ("gap %.2f%%", bound ? 100.0 * ((gdouble) plan->arena / bound - 1) : 0);
}

/* One row: the optimal planner on w, minimising (capacity 0) or asking. */
static gboolean
bench_row (MpWorkload *w, guint64 capacity, gdouble budget, guint64 best, const char *heuristic,
           int *status, GError **error)
{
  MpPlannerOptions options = { .time_budget = budget, .capacity = capacity };
  g_autoptr (MpPlan) plan = NULL;
  g_autofree char *mode = capacity ? g_strdup_printf ("%" G_GUINT64_FORMAT, capacity)
                                   : g_strdup ("minimise");
  g_autofree char *result = NULL;
  g_autofree char *name = mp_escape_name (w->graph->name);
  gdouble          cpu = cpu_seconds ();

  plan = mp_workload_plan (w, mp_planner_lookup ("optimal"), &options, NULL, error);
  cpu = cpu_seconds () - cpu;
  if (plan == NULL)
    return FALSE;
  result = result_words (plan);
  printf ("%-14s %7u %-9s %11" G_GUINT64_FORMAT " %11" G_GUINT64_FORMAT " %-14s %11"
          G_GUINT64_FORMAT " %11" G_GUINT64_FORMAT " %-16s %11" G_GUINT64_FORMAT " %8.3fs %8.3fs"
          "  %s\n",
          name, w->lifetimes->n_records, mode, w->lifetimes->lower_bound, best,
          heuristic, plan->arena, MAX (plan->proved_bound, plan->lower_bound), result,
          plan->nodes, plan->seconds, cpu, plan->bound_name ? plan->bound_name : "-");
  /* a plan above the capacity is judged invalid for it: not a failure of
   * the bench, which reports it as "no fit"; any other problem is */
  if (!plan->valid && !plan->over_capacity)
    {
      g_set_error (error, MP_ANALYSIS_ERROR, MP_ANALYSIS_ERROR_INVALID, "invalid plan: %s",
                   plan->problem);
      return FALSE;
    }
  if (plan->over_capacity)
    *status = MP_EXIT_FAILED;
  return TRUE;
}

int
mp_cli_bench_optimal (int argc, char **argv)
{
  gint64    capacity = 0;
  gdouble   budget = 0;
  g_autofree char *budget_help = g_strdup_printf ("Seconds per run (default %g)",
                                                  MP_OPTIMAL_DEFAULT_BUDGET);
  g_autoptr (GOptionContext) ctx = NULL;
  int               status = MP_EXIT_OK;
  GOptionEntry      entries[] = {
    { "capacity", 0, 0, G_OPTION_ARG_INT64, &capacity, "Also ask whether each input fits in N "
      "bytes (MiniMalloc's question), after minimising", "N" },
    { "time-budget", 0, 0, G_OPTION_ARG_DOUBLE, &budget, budget_help, "S" },
    { NULL }
  };

  ctx = g_option_context_new ("FILE… — time the optimal planner on usage records or graphs");
  g_option_context_set_summary (ctx, "For each FILE minimises the arena with the optimal planner "
                                     "and, with --capacity, asks whether it fits in N bytes; "
                                     "prints per run the buffers, the peak of live bytes, the "
                                     "best heuristic arena, the optimal arena, the proved lower "
                                     "bound, the result (proved, gap, fits, no fit), the nodes "
                                     "explored, the wall-clock and CPU time, and the bound that "
                                     "is the proof. Exit status 1 when a plan is invalid or a "
                                     "capacity is not reached.");
  g_option_context_add_main_entries (ctx, entries, NULL);
  if (!mp_cli_parse (ctx, &argc, &argv, 1, -1))
    return MP_EXIT_BAD_INPUT;
  if (!mp_cli_check_int ("--capacity", capacity, 0, G_MAXINT64) ||
      !mp_cli_check_double ("--time-budget", budget, 0, MP_OPTIMAL_MAX_BUDGET))
    return MP_EXIT_BAD_INPUT;

  printf ("%-14s %7s %-9s %11s %11s %-14s %11s %11s %-16s %11s %9s %9s  %s\n", "instance",
          "buffers", "capacity", "live peak", "heuristic", "(best of)", "optimal", "proved LB",
          "result", "nodes", "time", "cpu", "bound that is the proof");
  for (int i = 1; i < argc; i++)
    {
      g_autoptr (GError) error = NULL;
      g_autoptr (MpWorkload) w = mp_workload_open (argv[i], NULL, &error);
      const char      *heuristic = "-";
      guint64          best;

      if (w == NULL)
        {
          mp_cli_error ("%s", error->message);
          return MP_EXIT_BAD_INPUT;
        }
      best = best_heuristic (w, &heuristic);
      if (!bench_row (w, 0, budget, best, heuristic, &status, &error) ||
          (capacity &&
           !bench_row (w, (guint64) capacity, budget, best, heuristic, &status, &error)))
        {
          mp_cli_error ("%s: %s", argv[i], error->message);
          return MP_EXIT_FAILED;
        }
      /* a full disk or a closed pipe stops the bench at once */
      if (!mp_cli_flush_stdout ())
        return MP_EXIT_BAD_INPUT;
    }
  return status;
}
