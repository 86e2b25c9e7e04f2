/* SPDX-License-Identifier: GPL-3.0-or-later */
#include <stdio.h>
#include <string.h>

#include "cli.h"

/* The engine's columns (plan-table.h), as the Summary shows them, in
 * widths for a terminal; plan NULL: the headings. */
static void
append_row (GString *out, const MpPlan *plan)
{
  static const struct
  {
    MpPlanColumn column;
    gint         width;  /* negative: left-aligned */
  } table[] = {
    { MP_PLAN_COLUMN_PLANNER, -18 },    { MP_PLAN_COLUMN_ARENA, 12 },
    { MP_PLAN_COLUMN_LOWER_BOUND, 12 }, { MP_PLAN_COLUMN_RATIO, 7 },
    { MP_PLAN_COLUMN_FRAGMENTATION, 8 }, { MP_PLAN_COLUMN_PARTITIONS, 6 },
    { MP_PLAN_COLUMN_SECONDS, 10 },     { MP_PLAN_COLUMN_SEQUENTIAL, -10 },
    { MP_PLAN_COLUMN_CONCURRENT, 0 },
  };

  for (guint k = 0; k < G_N_ELEMENTS (table); k++)
    {
      g_autofree char *cell = plan ? mp_plan_cell (plan, table[k].column)
                                   : g_strdup (mp_plan_column_info (table[k].column)->heading);

      /* the verdicts stand apart from the figures */
      g_string_append (out, k == 0 ? "" : table[k].column == MP_PLAN_COLUMN_SEQUENTIAL ? "  "
                                                                                     : " ");
      if (table[k].width)
        g_string_append_printf (out, "%*s", table[k].width, cell);
      else
        g_string_append (out, cell);
    }
  g_string_append_c (out, '\n');
}

static void
print_table (GString *out, const MpWorkload *w, const MpPlanRun *run)
{
  const MpGraph     *graph = w->graph;
  const MpLifetimes *lt = w->lifetimes;
  g_autofree char   *lb = mp_format_bytes (lt->lower_bound);
  g_autofree char   *ws = mp_format_bytes (lt->workspace);
  g_autofree char   *name = mp_escape_name (graph->name);

  g_string_append_printf (out, "%s: %u %s planned over %u %s, lower bound %s", name,
                          lt->n_records, lt->n_records == 1 ? "tensor" : "tensors", lt->n_steps,
                          lt->n_steps == 1 ? "step" : "steps", lb);
  if (lt->workspace)
    g_string_append_printf (out, ", shared workspace %s", ws);
  if (w->parallel)
    g_string_append_printf (out, "; %u streams, %u parallel groups", mp_graph_n_streams (graph),
                            w->parallel->n_groups);
  if (w->concurrent)
    {
      g_autofree char *clb = mp_format_bytes (w->concurrent->lower_bound);

      g_string_append_printf (out, " (lower bound %s when they run concurrently)", clb);
    }
  g_string_append (out, "\n");
  if (graph->note)
    g_string_append_printf (out, "note: %s\n", graph->note);
  g_string_append (out, "\n");
  append_row (out, NULL);
  for (guint i = 0; i < run->plans->len; i++)
    append_row (out, run->plans->pdata[i]);
  for (guint i = 0; i < run->reasons->len; i++)
    g_string_append_printf (out, "%-18s skipped: %s\n", "", (char *) run->reasons->pdata[i]);
  /* the winner, by the rule and in the words of the app's headline */
  {
    gint             best = mp_plans_best ((MpPlan * const *) run->plans->pdata, run->plans->len);
    g_autofree char *margin = best >= 0 ? mp_plans_margin ((MpPlan * const *) run->plans->pdata,
                                                           run->plans->len, best)
                                        : NULL;

    g_string_append_printf (out, "smallest arena: %s\n", margin ? margin : "no plan is valid");
  }
  for (guint i = 0; i < run->plans->len; i++)
    {
      MpPlan          *p = run->plans->pdata[i];
      g_autofree char *verdict = mp_plan_verdict (p);
      g_autofree char *other = mp_plan_verdict_other (p);

      if (p->note)
        g_string_append_printf (out, "%s: %s\n", p->planner, p->note);
      if (!p->valid)
        g_string_append_printf (out, "%s: %s\n", p->planner, verdict);
      if (other)
        g_string_append_printf (out, "%s: %s\n", p->planner, other);
    }
  if (w->concurrent)
    g_string_append (out, "(every plan is for the concurrent schedule, in parallel groups; "
                          "--schedule sequential plans for op order)\n");
  else if (w->parallel)
    g_string_append (out, "(multistream plans for the concurrent schedule, the others for op "
                          "order; the winner is the smallest arena among plans valid when "
                          "streams run concurrently; only a plan invalid under its own "
                          "schedule fails the run)\n");
}

int
mp_cli_plan (int argc, char **argv)
{
  g_auto (MpCliPlanning) planning = { NULL };
  g_auto (MpCliOutput) out = { NULL };
  g_autoptr (GError) error = NULL;
  g_autoptr (MpWorkload) w = NULL;
  g_autoptr (MpPlanRun) run = NULL;
  g_autoptr (GOptionContext) ctx = NULL;
  g_autofree char *text = NULL;
  gboolean         by_op = FALSE;
  g_auto (GStrv)   memories = NULL;
  g_autoptr (GPtrArray) spills = NULL;
  GOptionEntry     entries[] = {
    { "memory", 0, 0, G_OPTION_ARG_STRING_ARRAY, &memories, "A memory, fastest first, repeated: "
      "after the table, each planner fills the first and spills to the next (NAME or "
      "NAME=SIZE, e.g. --memory sram=256K --memory psram)", "NAME[=SIZE]" },
    { "by-op", 0, 0, G_OPTION_ARG_NONE, &by_op, "PyTorch trace or snapshot: after the table, "
      "the bytes each op allocated and held at the peak, heaviest first", NULL },
    { NULL }
  };

  ctx = g_option_context_new ("FILE — plan a graph (JSON, ONNX), usage records (CSV), or a PyTorch "
                              "trace or snapshot (each also gzipped)");
  g_option_context_set_summary (ctx, "Runs planners on FILE and reports arena, lower bound, ratio, "
                                     "fragmentation, partitions, planning time and validity per "
                                     "planner: in op order and, for a graph with ops, when its "
                                     "streams run concurrently (ops grouped by dependency level, "
                                     "at most --max-parallel-ops per group). A planner that needs "
                                     "ops is skipped on usage records. Exit status 1 when a plan "
                                     "is invalid under the schedule it was made for (op order; "
                                     "parallel groups for multistream).");
  mp_cli_add_planning (ctx, &planning, MP_CLI_ALL_PLANNING);
  mp_cli_add_output (ctx, &out, "table, json, csv");
  g_option_context_add_main_entries (ctx, entries, NULL);
  if (!mp_cli_parse (ctx, &argc, &argv, 1, 1) || !mp_cli_output_check (&out) ||
      !mp_cli_planning_check (&planning))
    return MP_EXIT_BAD_INPUT;
  if (mp_cli_output_is (&out, "csv") && planning.infos->len != 1)
    {
      mp_cli_error ("--format csv writes one plan: choose one planner with --planner");
      return MP_EXIT_BAD_INPUT;
    }
  if (memories && mp_cli_output_is (&out, "csv"))
    {
      mp_cli_error ("--memory spreads a plan over several memories: it goes with --format table "
                    "or json");
      return MP_EXIT_BAD_INPUT;
    }
  if (by_op && !mp_cli_output_is (&out, "table"))
    {
      mp_cli_error ("--by-op adds a table: it goes with --format table only");
      return MP_EXIT_BAD_INPUT;
    }

  if (!(w = mp_cli_open (argv[1], &planning)) || !mp_cli_check_plan_memory (&planning, w))
    return MP_EXIT_BAD_INPUT;
  if (by_op && w->trace == NULL)
    {
      mp_cli_error ("%s: --by-op needs a PyTorch profiler trace or memory snapshot, and this is "
                    "a %s", argv[1], mp_input_format_name (w->format));
      return MP_EXIT_BAD_INPUT;
    }
  if (!(run = mp_cli_run (w, &planning)))
    return MP_EXIT_FAILED;
  if (!mp_cli_output_is (&out, "csv") &&
      !(spills = mp_cli_spills (w, run, &planning, memories, &error)))
    {
      mp_cli_error ("%s", error->message);
      return MP_EXIT_BAD_INPUT;
    }

  if (mp_cli_output_is (&out, "table"))
    {
      GString *s = g_string_new (NULL);

      print_table (s, w, run);
      if (w->order)
        {
          g_string_append (s, "\n");
          if (!mp_cli_order_compare (s, w, run, &planning))
            {
              g_string_free (s, TRUE);
              return MP_EXIT_FAILED;
            }
        }
      /* what the user checks first on a model of their own */
      if (w->format == MP_INPUT_ONNX)
        {
          guint64          param_bytes;
          guint64          n_params = mp_graph_count_params (w->graph, &param_bytes);
          g_autofree char *pb = mp_format_bytes (param_bytes);

          g_string_append_printf (s, "%s: %" G_GUINT64_FORMAT " parameters (%s) in the model's "
                                  "initializers, outside the arena\n", w->graph->name, n_params,
                                  pb);
        }
      mp_cli_spill_table (s, w, run, spills);
      if (by_op)
        {
          g_autofree char *table = mp_cli_by_op_table (w->trace);

          g_string_append_printf (s, "\n%s", table);
        }
      text = g_string_free (s, FALSE);
    }
  else if (mp_cli_output_is (&out, "json"))
    {
      g_autoptr (GPtrArray) names = g_ptr_array_new ();

      for (guint i = 0; i < run->skipped->len; i++)
        g_ptr_array_add (names, (gpointer) ((const MpPlannerInfo *) run->skipped->pdata[i])->name);
      /* streamed: a million tensors per plan are never held as text */
      if ((out.output && !mp_cli_check_output (out.output, &error)) ||
          !mp_plan_write_json_spills (out.output, w->graph, w->lifetimes,
                                      (MpPlan **) run->plans->pdata,
                                      spills->len ? (MpSpill **) spills->pdata : NULL,
                                      run->plans->len, (const char *const *) names->pdata,
                                      (const char *const *) run->reasons->pdata,
                                      run->reasons->len, &error))
        {
          mp_cli_error ("%s", error->message);
          return MP_EXIT_BAD_INPUT;
        }
    }
  else
    {
      /* the one planner asked for; a trace's "observed" plan is not written */
      const MpPlannerInfo *wanted = planning.infos->pdata[0];
      MpPlan              *chosen = mp_plan_run_find (run, wanted->name);

      if (chosen == NULL)
        {
          mp_cli_error ("%s", run->reasons->len ? (const char *) run->reasons->pdata[0]
                                                : "the planner made no plan");
          return MP_EXIT_BAD_INPUT;
        }
      text = mp_plan_to_csv (w->graph, chosen);
    }

  if (text && !(mp_cli_output_is (&out, "table") ? mp_cli_output_text : mp_cli_output) (
                 out.output, text, &error))
    {
      mp_cli_error ("%s", error->message);
      return MP_EXIT_BAD_INPUT;
    }
  if (!run->all_valid)
    {
      for (guint i = 0; i < run->plans->len; i++)
        {
          MpPlan          *p = run->plans->pdata[i];
          g_autofree char *verdict = mp_plan_verdict (p);

          if (p->over_capacity)
            mp_cli_error ("%s: %s", p->planner, verdict);
          else if (!p->valid)
            mp_cli_error ("%s produced an invalid plan: %s", p->planner, verdict);
        }
      return MP_EXIT_FAILED;
    }
  return MP_EXIT_OK;
}
