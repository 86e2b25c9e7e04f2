/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "cli.h"

/* memplan-cli explain: one planner's decisions in words, one line per
 * tensor in the order it placed them, for a terminal or a handout. */

int
mp_cli_explain (int argc, char **argv)
{
  g_autofree char *planner = NULL;
  g_autofree char *output = NULL;
  gint64           alignment = 0;
  gint             max_parallel = 0;
  g_autoptr (GError) error = NULL;
  g_autoptr (MpGraph) graph = NULL;
  g_autoptr (MpLifetimes) lt = NULL;
  g_autoptr (MpPlan) plan = NULL;
  g_autoptr (MpPlanTrace) trace = mp_plan_trace_new ();
  g_autoptr (GOptionContext) ctx = NULL;
  g_autofree char *names = mp_planner_names (", ");
  g_autofree char *planner_help = g_strdup_printf ("The planner to explain: %s (default "
                                                   "greedy-by-size)", names);
  g_autofree char *text = NULL;
  const MpPlannerInfo *info;
  MpLifetimeOptions    lopts = { 0 };
  MpPlannerOptions     popts = { 0 };
  GOptionEntry         entries[] = {
    { "planner", 'p', 0, G_OPTION_ARG_STRING, &planner, planner_help, "NAME" },
    { "output", 'o', 0, G_OPTION_ARG_FILENAME, &output, "Write to FILE (atomically) instead of "
      "standard output", "FILE" },
    { "alignment", 'a', 0, G_OPTION_ARG_INT64, &alignment, "Round sizes up to N bytes (a power "
      "of two; default: the graph's, 64 for JSON, 1 for CSV)", "N" },
    { "max-parallel-ops", 0, 0, G_OPTION_ARG_INT, &max_parallel, "multistream: at most N ops "
      "per parallel group (default: unlimited)", "N" },
    { NULL }
  };

  ctx = g_option_context_new ("FILE — explain how a planner places each tensor of FILE");
  g_option_context_set_summary (ctx, "Runs one planner on FILE (a graph or usage records) with "
                                     "its decisions recorded, and prints them in words: the order "
                                     "it takes the tensors in, and for each tensor the gaps (or "
                                     "partitions) it could go into, the one chosen and why, and "
                                     "the arena after it.");
  g_option_context_add_main_entries (ctx, entries, NULL);
  if (!mp_cli_parse (ctx, &argc, &argv, 1, 1))
    return MP_EXIT_BAD_INPUT;

  if (!mp_cli_check_alignment (alignment))
    return MP_EXIT_BAD_INPUT;
  if (max_parallel < 0)
    {
      mp_cli_error ("--max-parallel-ops must not be negative");
      return MP_EXIT_BAD_INPUT;
    }
  if (!(info = mp_planner_lookup (planner ? planner : "greedy-by-size")))
    {
      mp_cli_error ("unknown planner '%s' (known: %s)", planner, names);
      return MP_EXIT_BAD_INPUT;
    }
  if (!(graph = mp_graph_load (argv[1], &error)))
    {
      mp_cli_error ("%s", error->message);
      return MP_EXIT_BAD_INPUT;
    }
  lopts.alignment = alignment;
  if (!(lt = mp_lifetimes_compute (graph, &lopts, &error)))
    {
      mp_cli_error ("%s", error->message);
      return MP_EXIT_BAD_INPUT;
    }
  popts.max_parallel_ops = max_parallel;
  popts.trace = trace;
  if (!(plan = mp_planner_run (info, graph, lt, &popts, NULL, &error)))
    {
      mp_cli_error ("%s", error->message);
      return g_error_matches (error, MP_ANALYSIS_ERROR, MP_ANALYSIS_ERROR_UNSUPPORTED)
               ? MP_EXIT_BAD_INPUT : MP_EXIT_FAILED;
    }
  text = mp_plan_trace_explain (trace, graph, plan);
  if (!mp_cli_output (output, text, &error))
    {
      mp_cli_error ("%s", error->message);
      return MP_EXIT_BAD_INPUT;
    }
  return MP_EXIT_OK;
}
