/* SPDX-License-Identifier: GPL-3.0-or-later */
#include <stdio.h>

#include "cli.h"

int
mp_cli_validate (int argc, char **argv)
{
  gint64    alignment = 0;
  gboolean  plan_inputs = FALSE;
  gint      max_parallel = 0;
  g_autoptr (MpSchedule) schedule = NULL;
  g_autoptr (GError) error = NULL;
  g_autoptr (MpGraph) graph = NULL;
  g_autoptr (MpLifetimes) lt = NULL;
  g_autoptr (GPtrArray) plans = NULL;
  g_autoptr (GOptionContext) ctx = NULL;
  MpLifetimeOptions lopts = { 0 };
  int               status = MP_EXIT_OK;
  GOptionEntry      entries[] = {
    { "alignment", 'a', 0, G_OPTION_ARG_INT64, &alignment, "Alignment the plan must respect "
      "(default: the graph's)", "N" },
    { "plan-inputs", 0, 0, G_OPTION_ARG_NONE, &plan_inputs, "The plan places graph inputs too",
      NULL },
    { "max-parallel-ops", 0, 0, G_OPTION_ARG_INT, &max_parallel, "Concurrent schedule: at most N "
      "ops per parallel group (default: unlimited)", "N" },
    { NULL }
  };

  ctx = g_option_context_new ("GRAPH PLAN — check a plan against a graph");
  g_option_context_set_summary (ctx, "PLAN is a memplan.plan/1 JSON file (every plan in it is "
                                     "checked) or a CSV with the header id,lower,upper,size,offset "
                                     "as MiniMalloc writes it. Each planned tensor of GRAPH must "
                                     "have an aligned offset and no two tensors may overlap in "
                                     "both time and address. On a graph with several streams "
                                     "each plan is also checked with the streams running "
                                     "concurrently (ops grouped by dependency level); a "
                                     "multistream plan is judged under that schedule, the others "
                                     "in op order. Exit status: 0 valid, 1 invalid, 2 bad input.");
  g_option_context_add_main_entries (ctx, entries, NULL);
  if (!mp_cli_parse (ctx, &argc, &argv, 2, 2))
    return MP_EXIT_BAD_INPUT;
  if (!mp_cli_check_alignment (alignment))
    return MP_EXIT_BAD_INPUT;
  if (max_parallel < 0)
    {
      mp_cli_error ("--max-parallel-ops must not be negative");
      return MP_EXIT_BAD_INPUT;
    }

  if (!(graph = mp_graph_load (argv[1], &error)))
    {
      mp_cli_error ("%s", error->message);
      return MP_EXIT_BAD_INPUT;
    }
  lopts.alignment = alignment;
  lopts.plan_inputs = plan_inputs;
  if (!(lt = mp_lifetimes_compute (graph, &lopts, &error)) ||
      !(plans = mp_plan_load (argv[2], graph, lt, &error)))
    {
      mp_cli_error ("%s", error->message);
      return MP_EXIT_BAD_INPUT;
    }
  if (graph->has_ops && mp_graph_n_streams (graph) > 1)
    schedule = mp_schedule_parallel (graph, max_parallel);
  for (guint i = 0; i < plans->len; i++)
    {
      MpPlan          *plan = plans->pdata[i];
      g_autofree char *arena = NULL;

      if (!mp_plan_check_schedules (graph, plan, schedule))
        status = MP_EXIT_FAILED;
      if (!plan->sequential_valid)
        printf ("%s: %s: INVALID%s: %s\n", argv[2], plan->planner,
                schedule ? " in op order" : "", plan->sequential_problem);
      if (plan->concurrent_checked && !plan->concurrent_valid)
        printf ("%s: %s: INVALID when streams run concurrently: %s\n", argv[2], plan->planner,
                plan->concurrent_problem);
      if (!plan->valid)
        continue;
      arena = mp_format_bytes (plan->arena);
      printf ("%s: %s: valid%s: %u tensors, arena %" G_GUINT64_FORMAT " bytes (%s), %.4f× the "
              "lower bound\n",
              argv[2], plan->planner,
              plan->parallel ? " under its parallel schedule" : schedule ? " in op order" : "",
              plan->n_records, plan->arena, arena, mp_plan_ratio (plan));
    }
  return status;
}
