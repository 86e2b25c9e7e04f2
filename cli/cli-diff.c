/* SPDX-License-Identifier: GPL-3.0-or-later */
#include <stdlib.h>
#include <string.h>

#include "cli.h"

/* Two runs of the same program: the peak of each, the difference, and the
 * allocations that account for it (analysis/trace-diff.h). */

/* "5%" or "2.5%": a percentage of A's peak; "64M", "1048576": bytes. */
static gboolean
parse_tolerance (const char *text, gdouble *value, gboolean *percent)
{
  guint64 bytes;

  *percent = strchr (text, '%') != NULL;
  if (*percent)
    {
      /* mp_parse_percentage gives a fraction; the engine takes percent */
      if (!mp_parse_percentage (text, value))
        return FALSE;
      *value *= 100.0;
      return TRUE;
    }
  if (!mp_parse_size (text, &bytes))
    return FALSE;
  *value = (gdouble) bytes;
  return TRUE;
}

int
mp_cli_diff (int argc, char **argv)
{
  g_auto (MpCliPlanning) planning = { NULL };
  g_auto (MpCliOutput) out = { NULL };
  g_autofree char *tolerance = NULL;
  g_autofree char *text = NULL;
  g_autoptr (GError) error = NULL;
  g_autoptr (GOptionContext) ctx = NULL;
  g_autoptr (MpTraceDiff) diff = NULL;
  gint              rows = 30;
  gdouble           allowed = 0;
  gboolean          percent = FALSE;
  MpWorkloadOptions options;
  MpTraceDiffOptions diff_options = { 0 };
  GOptionEntry      entries[] = {
    { "tolerance", 't', 0, G_OPTION_ARG_STRING, &tolerance, "Growth of the peak still counted "
      "as unchanged: a percentage of A's peak (5%) or bytes (64M); default 0", "PCT|BYTES" },
    { "rows", 'n', 0, G_OPTION_ARG_INT, &rows, "Rows to list, largest change at the peak "
      "first; 0: all (default 30)", "N" },
    { NULL }
  };

  ctx = g_option_context_new ("A B — compare two runs of the same program: traces, snapshots, "
                              "graphs or plans");
  g_option_context_set_summary (ctx, "Prints each side's peak of live bytes (and the reserved "
                                     "peak of a CUDA snapshot, the arena of a plan), when it is "
                                     "reached, the difference, and the allocations that account "
                                     "for it: grouped by op, stack and size (not by address), "
                                     "with the bytes of each group live at each side's peak. "
                                     "The rows' changes at the peak add up to the difference.");
  g_option_context_set_description (ctx, "Exit status: 0 B's peak is within the tolerance of "
                                         "A's, 1 it exceeds it, 2 bad input (the file is "
                                         "named).");
  g_option_context_add_main_entries (ctx, entries, NULL);
  mp_cli_add_output (ctx, &out, "table, json");
  mp_cli_add_planning (ctx, &planning, MP_CLI_DEVICE);
  if (!mp_cli_parse (ctx, &argc, &argv, 2, 2) || !mp_cli_output_check (&out) ||
      !mp_cli_planning_check (&planning) || !mp_cli_check_int ("--rows", rows, 0, G_MAXINT))
    return MP_EXIT_BAD_INPUT;
  if (tolerance && !parse_tolerance (tolerance, &allowed, &percent))
    {
      mp_cli_error ("--tolerance takes a percentage such as 5%% or a size such as 64M, not '%s'",
                    tolerance);
      return MP_EXIT_BAD_INPUT;
    }
  mp_cli_workload_options (&planning, &options);
  diff_options.max_rows = (guint) rows;
  diff_options.max_memory = options.max_memory;
  if (!(diff = mp_trace_diff_files (argv[1], argv[2], &options.input, &diff_options, &error)))
    {
      mp_cli_error ("%s", error->message);
      return MP_EXIT_BAD_INPUT;
    }
  if (mp_cli_output_is (&out, "json"))
    text = mp_trace_diff_to_json (diff, argv[1], argv[2]);
  else
    text = mp_trace_diff_to_table (diff, argv[1], argv[2]);
  if (!(mp_cli_output_is (&out, "json") ? mp_cli_output : mp_cli_output_text) (out.output, text,
                                                                             &error))
    {
      mp_cli_error ("%s", error->message);
      return MP_EXIT_BAD_INPUT;
    }
  return mp_trace_diff_exceeds (diff, allowed, percent) ? MP_EXIT_FAILED : MP_EXIT_OK;
}
