/* SPDX-License-Identifier: GPL-3.0-or-later */
#include <stdio.h>

#include "cli.h"
#include "report-compare.h"

int
mp_cli_compare (int argc, char **argv)
{
  g_autofree char *tolerance = NULL;
  g_autofree char *time_tolerance = NULL;
  g_auto (MpCliOutput) out = { NULL };
  g_autofree char *text = NULL;
  gboolean         fail_on_time = FALSE, allow_missing = FALSE, allow_options = FALSE;
  g_autoptr (GError) error = NULL;
  g_autoptr (GError) incomparable = NULL;
  g_autoptr (GOptionContext) ctx = NULL;
  g_autoptr (MpReport) base = NULL;
  g_autoptr (MpReport) new_report = NULL;
  g_autoptr (MpComparison) comparison = NULL;
  MpCompareOptions options;
  GOptionEntry     entries[] = {
    { "tolerance", 't', 0, G_OPTION_ARG_STRING, &tolerance, "Arena change still counted as "
      "unchanged, a percentage (default 0.5%)", "P%" },
    { "time-tolerance", 0, 0, G_OPTION_ARG_STRING, &time_tolerance, "Planning time change "
      "still counted as the same, a percentage (default 50%); changes under 1 ms are noise",
      "P%" },
    { "fail-on-time", 0, 0, G_OPTION_ARG_NONE, &fail_on_time, "A planner slower beyond the time "
      "tolerance fails the comparison (timings are only reported otherwise)", NULL },
    { "allow-missing", 0, 0, G_OPTION_ARG_NONE, &allow_missing, "A graph or planner of BASE "
      "missing from NEW does not fail the comparison (by default it does: the gate lost what "
      "it guarded)", NULL },
    { "allow-different-options", 0, 0, G_OPTION_ARG_NONE, &allow_options, "Compare reports made "
      "with different options (a what-if: another alignment, order or budget); the difference "
      "is noted (by default such reports are refused)", NULL },
    { NULL }
  };

  ctx = g_option_context_new ("BASE.json NEW.json — compare two reports of 'memplan-cli "
                              "suite'");
  g_option_context_set_summary (ctx, "Matches graphs and planners by name and lists what got "
                                     "better, worse or stayed the same; graphs and planners "
                                     "in only one report are listed. The arena decides: a "
                                     "larger arena beyond the tolerance is a regression, and so "
                                     "is any invalid plan, failed planner or unloadable graph "
                                     "in NEW, and a graph or planner missing from NEW (unless "
                                     "--allow-missing). Reports made with different options, or "
                                     "whose figures contradict each other, are refused.");
  g_option_context_set_description (ctx, "Exit status: 0 nothing regressed beyond tolerance, "
                                         "1 something did, 2 bad input (a report that cannot be "
                                         "read, bad options).");
  g_option_context_add_main_entries (ctx, entries, NULL);
  mp_cli_add_output (ctx, &out, "table, json, markdown");
  if (!mp_cli_parse (ctx, &argc, &argv, 2, 2) || !mp_cli_output_check (&out))
    return MP_EXIT_BAD_INPUT;

  mp_compare_options_init (&options);
  options.fail_on_time = fail_on_time;
  options.allow_missing = allow_missing;
  if (tolerance && !mp_parse_percentage (tolerance, &options.tolerance))
    {
      mp_cli_error ("--tolerance takes a percentage such as 0.5%%, not '%s'", tolerance);
      return MP_EXIT_BAD_INPUT;
    }
  if (time_tolerance && !mp_parse_percentage (time_tolerance, &options.time_tolerance))
    {
      mp_cli_error ("--time-tolerance takes a percentage such as 50%%, not '%s'", time_tolerance);
      return MP_EXIT_BAD_INPUT;
    }
  if (!(base = mp_report_load (argv[1], &error)) ||
      !(new_report = mp_report_load (argv[2], &error)))
    {
      mp_cli_error ("%s", error->message);
      return MP_EXIT_BAD_INPUT;
    }

  if (!mp_report_comparable (base, new_report, &incomparable) && !allow_options)
    {
      mp_cli_error ("%s and %s: %s (--allow-different-options compares them anyway)", argv[1],
                    argv[2], incomparable->message);
      return MP_EXIT_BAD_INPUT;
    }
  comparison = mp_report_compare (base, new_report, &options);
  /* compared anyway: said where the figures are read */
  if (incomparable)
    g_ptr_array_insert (comparison->notes, 0, g_strdup (incomparable->message));
  if (mp_cli_output_is (&out, "table"))
    text = mp_comparison_to_table (comparison, argv[1], argv[2]);
  else if (mp_cli_output_is (&out, "json"))
    text = mp_comparison_to_json (comparison, argv[1], argv[2]);
  else
    text = mp_comparison_to_markdown (comparison, argv[1], argv[2]);
  if (!(mp_cli_output_is (&out, "json") ? mp_cli_output : mp_cli_output_text) (out.output, text,
                                                                             &error))
    {
      mp_cli_error ("%s", error->message);
      return MP_EXIT_BAD_INPUT;
    }
  return mp_comparison_failed (comparison) ? MP_EXIT_FAILED : MP_EXIT_OK;
}
