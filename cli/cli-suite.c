/* SPDX-License-Identifier: GPL-3.0-or-later */
#include <stdio.h>

#include "cli.h"
#include "report-suite.h"

int
mp_cli_suite (int argc, char **argv)
{
  g_auto (MpCliPlanning) planning = { NULL };
  g_auto (MpCliOutput) out = { NULL };
  g_autofree char *plans_dir = NULL;
  g_autofree char *relative_to = NULL;
  g_autofree char *text = NULL;
  gboolean         keep_going = FALSE;
  gint             repeat = 3;
  const char      *output;
  guint            n_planned = 0, n_failed = 0, n_invalid = 0;
  g_autoptr (GError) error = NULL;
  GPtrArray       *infos;
  g_autoptr (GPtrArray) files = NULL;
  g_autoptr (MpReport) report = NULL;
  g_autoptr (GOptionContext) ctx = NULL;
  MpSuiteOptions   options = { 0 };
  GOptionEntry     entries[] = {
    { "plans", 0, 0, G_OPTION_ARG_FILENAME, &plans_dir, "Also write every graph's plans "
      "(memplan.plan/1) into folder DIR, named in the report", "DIR" },
    { "keep-going", 'k', 0, G_OPTION_ARG_NONE, &keep_going, "Record a graph that fails to load "
      "in the report and go on (exit 1) instead of stopping (exit 2)", NULL },
    { "repeat", 'r', 0, G_OPTION_ARG_INT, &repeat, "Run each planner N times and record the "
      "median time and the spread, so compare can tell a change from noise (default 3)", "N" },
    { NULL }
  };

  ctx = g_option_context_new ("DIR|FILE… — plan every graph and write a memplan.report/1");
  g_option_context_set_summary (ctx, "Plans each FILE, and every graph (*.json, *.csv, *.onnx, "
                                     "*.pickle) found in each DIR and its subfolders (in path "
                                     "order), with each planner, and writes one report for "
                                     "'memplan-cli compare'.\n"
                                     "Plans and reports found among the graphs are left out.");
  g_option_context_set_description (ctx, "Exit status: 0 every graph planned and every plan "
                                         "valid; 1 the report is written but holds an invalid "
                                         "plan, a failed planner or (with --keep-going) a graph "
                                         "that did not load; 2 bad usage or a graph that did not "
                                         "load (no report is written).");
  planning.default_planners = "all but optimal, whose result depends on its time budget";
  mp_cli_add_planning (ctx, &planning, MP_CLI_PLANNERS | MP_CLI_LIFETIMES | MP_CLI_SCHEDULE |
                                         MP_CLI_SEARCH | MP_CLI_MODEL | MP_CLI_ORDER |
                                         MP_CLI_CONCURRENCY);
  mp_cli_add_output (ctx, &out, NULL);
  g_option_context_add_main_entries (ctx, entries, NULL);
  if (!mp_cli_parse (ctx, &argc, &argv, 1, -1))
    return MP_EXIT_BAD_INPUT;
  if (planning.planner_names == NULL)
    planning.infos = mp_suite_default_planners ();
  if (!mp_cli_planning_check (&planning))
    return MP_EXIT_BAD_INPUT;
  infos = planning.infos;
  output = out.output;
  if (!(files = mp_suite_collect (argv + 1, &error)))
    {
      mp_cli_error ("%s", error->message);
      return MP_EXIT_BAD_INPUT;
    }

  /* paths in the report are relative to the report, so it can move with the graphs */
  if (output && !g_str_equal (output, "-"))
    relative_to = g_path_get_dirname (output);
  options.planners = infos;
  options.lifetimes.alignment = planning.alignment;
  options.lifetimes.plan_inputs = planning.plan_inputs;
  options.planner.max_parallel_ops = planning.max_parallel;
  options.planner.time_budget = planning.budget;
  options.planner.capacity = (guint64) planning.capacity;
  options.dims = (const char *const *) planning.dims;
  options.keep_going = keep_going;
  options.order = planning.order_method;
  options.order_budget = planning.order_budget;
  options.schedule = planning.plan_schedule;
  options.plans_dir = plans_dir;
  if (repeat < 1 || repeat > 1000)
    {
      mp_cli_error ("--repeat must be from 1 to 1000");
      return MP_EXIT_BAD_INPUT;
    }
  options.repeat = repeat;
  options.relative_to = relative_to;
  if (planning.max_memory)
    mp_parse_size (planning.max_memory, &options.max_memory); /* checked with the options */
  report = mp_suite_report_new (&options, argv + 1);

  for (guint i = 0; i < files->len; i++)
    {
      MpSuiteOutcome outcome;

      g_clear_error (&error);
      outcome = mp_suite_plan_file (report, files->pdata[i], &options, NULL, &error);
      if (outcome == MP_SUITE_NOT_A_GRAPH)
        continue;
      if (outcome == MP_SUITE_SKIPPED)
        {
          mp_cli_error ("note: %s", error->message);
          continue;
        }
      if (outcome == MP_SUITE_ABORTED || (outcome == MP_SUITE_FAILED && !keep_going))
        {
          mp_cli_error ("%s", error->message);
          if (outcome == MP_SUITE_FAILED)
            mp_cli_error ("no report written (--keep-going records the graph and goes on)");
          mp_suite_discard_plans (report);
          return MP_EXIT_BAD_INPUT;
        }
      if (outcome == MP_SUITE_FAILED)
        {
          mp_cli_error ("%s", error->message);
          n_failed++;
          continue;
        }
      n_planned++;
    }
  if (report->graphs->len == 0)
    {
      mp_cli_error ("no graph found (looked for *.json, *.csv, *.onnx and *.pickle)");
      return MP_EXIT_BAD_INPUT;
    }

  text = mp_report_to_json (report);
  if (!mp_cli_output (output, text, &error))
    {
      mp_cli_error ("%s", error->message);
      mp_suite_discard_plans (report);
      return MP_EXIT_BAD_INPUT;
    }
  for (guint i = 0; i < report->graphs->len; i++)
    {
      const MpReportGraph *g = report->graphs->pdata[i];

      for (guint j = 0; j < g->results->len; j++)
        {
          const MpReportResult *r = g->results->pdata[j];

          if (r->status == MP_RESULT_INVALID || r->status == MP_RESULT_FAILED)
            {
              mp_cli_error ("%s: %s %s: %s", g->name, r->planner,
                            r->status == MP_RESULT_INVALID ? "produced an invalid plan" : "failed",
                            r->problem);
              n_invalid++;
            }
        }
    }
  if (output && !g_str_equal (output, "-"))
    {
      g_autofree char *failed = n_failed ? g_strdup_printf (", %u did not load", n_failed)
                                         : g_strdup ("");

      fprintf (stderr, "memplan-cli: %u graph%s planned%s, report written to %s\n", n_planned,
               n_planned == 1 ? "" : "s", failed, output);
    }
  return n_failed || n_invalid ? MP_EXIT_FAILED : MP_EXIT_OK;
}
