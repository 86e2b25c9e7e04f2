/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "cli.h"

/* memplan-cli explain: one planner's decisions in words, one line per
 * tensor in the order it placed them, for a terminal or a handout. */

int
mp_cli_explain (int argc, char **argv)
{
  g_auto (MpCliPlanning) planning = { .default_planners = "greedy-by-size" };
  g_auto (MpCliOutput) out = { NULL };
  g_autoptr (GError) error = NULL;
  g_autoptr (MpWorkload) w = NULL;
  g_autoptr (MpPlan) plan = NULL;
  g_autoptr (MpDecisionTrace) trace = mp_decision_trace_new ();
  g_autoptr (GOptionContext) ctx = NULL;
  g_autofree char *text = NULL;
  MpPlannerOptions popts;

  ctx = g_option_context_new ("FILE — explain how a planner places each tensor of FILE");
  g_option_context_set_summary (ctx, "Runs one planner on FILE (a graph or usage records) with "
                                     "its decisions recorded, and prints them in words: the order "
                                     "it takes the tensors in, and for each tensor the gaps (or "
                                     "partitions) it could go into, the one chosen and why, and "
                                     "the arena after it. With --order, first the order: which "
                                     "ops moved and the bytes that saved at the peak.");
  mp_cli_add_planning (ctx, &planning, MP_CLI_ALL_PLANNING);
  mp_cli_add_output (ctx, &out, NULL);
  if (!mp_cli_parse (ctx, &argc, &argv, 1, 1) || !mp_cli_planning_check (&planning))
    return MP_EXIT_BAD_INPUT;
  if (planning.infos->len != 1)
    {
      mp_cli_error ("explain tells one planner's decisions: choose one with --planner");
      return MP_EXIT_BAD_INPUT;
    }
  if (!(w = mp_cli_open (argv[1], &planning)) || !mp_cli_check_plan_memory (&planning, w))
    return MP_EXIT_BAD_INPUT;
  mp_cli_planner_options (&planning, &popts);
  popts.trace = trace;
  if (!(plan = mp_workload_plan (w, planning.infos->pdata[0], &popts, NULL, &error)))
    {
      mp_cli_error ("%s", error->message);
      return g_error_matches (error, MP_ANALYSIS_ERROR, MP_ANALYSIS_ERROR_UNSUPPORTED)
               ? MP_EXIT_BAD_INPUT : MP_EXIT_FAILED;
    }
  text = mp_decision_trace_explain (trace, w->graph, plan);
  {
    /* buffers whose constraints put them where they are */
    g_autofree char *why = mp_constraint_explain (w->graph, plan);

    if (why)
      {
        char *both = g_strconcat (text, "\nconstraints:\n", why, NULL);

        g_free (text);
        text = both;
      }
  }
  if (w->order)
    {
      /* the order first: it is the stage before the planner */
      g_autofree char *order = mp_order_explain (w->given_graph, w->order, planning.plan_inputs);
      char            *both = g_strconcat (order, "\n", text, NULL);

      g_free (text);
      text = both;
    }
  if (!mp_cli_output_text (out.output, text, &error))
    {
      mp_cli_error ("%s", error->message);
      return MP_EXIT_BAD_INPUT;
    }
  return MP_EXIT_OK;
}
