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
  guint64              best = G_MAXUINT64;

  for (guint k = 0; k < n_info; k++)
    {
      g_autoptr (MpPlan) plan = NULL;

      if (g_str_equal (infos[k].name, "optimal") || g_str_equal (infos[k].name, "naive"))
        continue;
      plan = mp_workload_plan (w, &infos[k], NULL, NULL, NULL);
      if (plan && plan->valid && plan->arena < best)
        {
          best = plan->arena;
          *name = infos[k].name;
        }
    }
  return best;
}

int
mp_cli_bench_optimal (int argc, char **argv)
{
  gint64    capacity = 0;
  gdouble   budget = 0;
  g_autoptr (GOptionContext) ctx = NULL;
  int               status = MP_EXIT_OK;
  GOptionEntry      entries[] = {
    { "capacity", 0, 0, G_OPTION_ARG_INT64, &capacity, "Ask whether each input fits in N bytes "
      "(default: minimise the arena)", "N" },
    { "time-budget", 0, 0, G_OPTION_ARG_DOUBLE, &budget, "Seconds per input (default 10)", "S" },
    { NULL }
  };

  ctx = g_option_context_new ("FILE… — time the optimal planner on usage records or graphs");
  g_option_context_set_summary (ctx, "For each FILE prints its buffers, lower bound, best "
                                     "heuristic arena, the optimal planner's arena, whether it "
                                     "is proved, and the wall-clock and CPU time it took.");
  g_option_context_add_main_entries (ctx, entries, NULL);
  if (!mp_cli_parse (ctx, &argc, &argv, 1, -1))
    return MP_EXIT_BAD_INPUT;
  if (!mp_cli_check_int ("--capacity", capacity, 0, G_MAXINT64) ||
      !mp_cli_check_double ("--time-budget", budget, 0, MP_CLI_MAX_BUDGET))
    return MP_EXIT_BAD_INPUT;

  printf ("%-18s %7s %12s %12s %-16s %12s %7s %-9s %9s %9s\n", "instance", "buffers",
          "lower bound", "heuristic", "(best of)", "optimal", "ratio", "result", "time", "cpu");
  for (int i = 1; i < argc; i++)
    {
      g_autoptr (GError) error = NULL;
      g_autoptr (MpWorkload) w = mp_workload_open (argv[i], NULL, &error);
      const MpLifetimes *lt;
      g_autoptr (MpPlan) plan = NULL;
      MpPlannerOptions options = { .time_budget = budget, .capacity = capacity };
      const char      *heuristic = "-";
      guint64          best;
      gdouble          cpu;
      const char      *result;
      g_autofree char *name = NULL;

      if (w == NULL)
        {
          mp_cli_error ("%s", error->message);
          return MP_EXIT_BAD_INPUT;
        }
      lt = w->lifetimes;
      best = best_heuristic (w, &heuristic);
      cpu = cpu_seconds ();
      plan = mp_workload_plan (w, mp_planner_lookup ("optimal"), &options, NULL, &error);
      cpu = cpu_seconds () - cpu;
      if (plan == NULL)
        {
          mp_cli_error ("%s: %s", argv[i], error->message);
          return MP_EXIT_FAILED;
        }
      if (!plan->valid)
        {
          mp_cli_error ("%s: invalid plan: %s", argv[i], plan->problem);
          status = MP_EXIT_FAILED;
        }
      if (plan->proved_optimal)
        result = "proved";
      else if (capacity && plan->arena <= (guint64) capacity)
        result = "fits";
      else if (capacity)
        result = "NO FIT";
      else
        result = "gap";
      if (capacity && plan->arena > (guint64) capacity)
        status = MP_EXIT_FAILED;
      name = mp_escape_name (w->graph->name);
      printf ("%-18s %7u %12" G_GUINT64_FORMAT " %12" G_GUINT64_FORMAT " %-16s %12"
              G_GUINT64_FORMAT " %7.4f %-9s %8.3fs %8.3fs\n",
              name, lt->n_records, lt->lower_bound, best, heuristic, plan->arena,
              mp_plan_ratio (plan), result, plan->seconds, cpu);
      if (!mp_cli_flush_stdout ())
        return MP_EXIT_BAD_INPUT;
    }
  return status;
}
