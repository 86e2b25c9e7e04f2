/* SPDX-License-Identifier: GPL-3.0-or-later */
#include <stdio.h>

#include "cli.h"

int
mp_cli_validate (int argc, char **argv)
{
  gint64    alignment = 0;
  gboolean  plan_inputs = FALSE;
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
    { NULL }
  };

  ctx = g_option_context_new ("GRAPH PLAN — check a plan against a graph");
  g_option_context_set_summary (ctx, "PLAN is a memplan.plan/1 JSON file (every plan in it is "
                                     "checked) or a CSV with the header id,lower,upper,size,offset "
                                     "as MiniMalloc writes it. Each planned tensor of GRAPH must "
                                     "have an aligned offset and no two tensors may overlap in "
                                     "both time and address. Exit status: 0 valid, 1 invalid, "
                                     "2 bad input.");
  g_option_context_add_main_entries (ctx, entries, NULL);
  if (!mp_cli_parse (ctx, &argc, &argv, 2, 2))
    return MP_EXIT_BAD_INPUT;
  if (alignment < 0 || (alignment & (alignment - 1)) != 0)
    {
      mp_cli_error ("--alignment must be a power of two");
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
  for (guint i = 0; i < plans->len; i++)
    {
      MpPlan          *plan = plans->pdata[i];
      g_autofree char *arena = NULL;

      if (!mp_validate_plan (graph, plan, &error))
        {
          printf ("%s: %s: INVALID: %s\n", argv[2], plan->planner, error->message);
          g_clear_error (&error);
          status = MP_EXIT_FAILED;
          continue;
        }
      arena = mp_format_bytes (plan->arena);
      printf ("%s: %s: valid: %u tensors, arena %" G_GUINT64_FORMAT " bytes (%s), %.4f× the lower "
              "bound\n",
              argv[2], plan->planner, plan->n_records, plan->arena, arena, mp_plan_ratio (plan));
    }
  return status;
}
