/* SPDX-License-Identifier: GPL-3.0-or-later */
#include <stdio.h>

#include "cli.h"

int
mp_cli_validate (int argc, char **argv)
{
  g_auto (MpCliPlanning) planning = { NULL };
  g_autoptr (GError) error = NULL;
  g_autoptr (MpWorkload) w = NULL;
  g_autoptr (GPtrArray) plans = NULL;
  g_autoptr (GOptionContext) ctx = NULL;
  int               status = MP_EXIT_OK;
  g_autoptr (GString) out = g_string_new (NULL);

  ctx = g_option_context_new ("GRAPH PLAN — check a plan against a graph");
  g_option_context_set_summary (ctx, "PLAN is a memplan.plan/1 JSON file (every plan in it is "
                                     "checked) or a CSV with the header id,lower,upper,size,offset "
                                     "as MiniMalloc writes it. Each planned tensor of GRAPH must "
                                     "have an aligned offset and no two tensors may overlap in "
                                     "both time and address. On a graph with several streams "
                                     "each plan is also checked with the streams running "
                                     "concurrently (ops grouped by dependency level); a "
                                     "multistream plan is judged under that schedule, the others "
                                     "in op order. A plan made with --order is checked in that "
                                     "order (give the same --order). Exit status: 0 valid, 1 "
                                     "invalid, 2 bad input.");
  mp_cli_add_planning (ctx, &planning, MP_CLI_LIFETIMES | MP_CLI_SCHEDULE | MP_CLI_DEVICE |
                                         MP_CLI_ORDER);
  if (!mp_cli_parse (ctx, &argc, &argv, 2, 2) || !mp_cli_planning_check (&planning))
    return MP_EXIT_BAD_INPUT;

  if (!(w = mp_cli_open (argv[1], &planning)))
    return MP_EXIT_BAD_INPUT;
  if (!(plans = mp_plan_load (argv[2], w->graph, w->lifetimes, &error)))
    {
      mp_cli_error ("%s", error->message);
      return MP_EXIT_BAD_INPUT;
    }
  for (guint i = 0; i < plans->len; i++)
    {
      MpPlan          *plan = plans->pdata[i];
      g_autofree char *arena = NULL;
      g_autofree char *verdict = NULL;
      g_autofree char *other = NULL;

      if (!mp_workload_judge (w, plan))
        status = MP_EXIT_FAILED;
      verdict = mp_plan_verdict (plan);
      other = mp_plan_verdict_other (plan);
      if (!plan->valid)
        g_string_append_printf (out, "%s: %s: %s\n", argv[2], plan->planner, verdict);
      if (other)
        g_string_append_printf (out, "%s: %s: %s\n", argv[2], plan->planner, other);
      if (!plan->valid)
        continue;
      arena = mp_format_bytes (plan->arena);
      g_string_append_printf (out, "%s: %s: %s: %u tensors, arena %" G_GUINT64_FORMAT " bytes (%s), "
                              "%.4f× the lower bound\n",
                              argv[2], plan->planner, verdict, plan->n_records, plan->arena, arena,
                              mp_plan_ratio (plan));
    }
  if (!mp_cli_output_text (NULL, out->str, &error))
    {
      mp_cli_error ("%s", error->message);
      return MP_EXIT_BAD_INPUT;
    }
  return status;
}
