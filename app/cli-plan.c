/* SPDX-License-Identifier: GPL-3.0-or-later */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

static const char *
verdict (gboolean checked, gboolean valid)
{
  return !checked ? "n/a" : valid ? "yes" : "NO";
}

static void
print_table (GString *out, const MpGraph *graph, const MpLifetimes *lt,
             const MpSchedule *schedule, GPtrArray *plans, GPtrArray *skipped)
{
  g_autofree char *lb = mp_format_bytes (lt->lower_bound);
  g_autofree char *ws = mp_format_bytes (lt->workspace);

  g_string_append_printf (out, "%s: %u tensors planned over %u steps, lower bound %s", graph->name,
                          lt->n_records, lt->n_steps, lb);
  if (lt->workspace)
    g_string_append_printf (out, ", shared workspace %s", ws);
  if (schedule && mp_graph_n_streams (graph) > 1)
    g_string_append_printf (out, "; %u streams, %u parallel groups", mp_graph_n_streams (graph),
                            schedule->n_groups);
  g_string_append (out, "\n\n");
  g_string_append_printf (out, "%-18s %12s %12s %7s %8s %6s %10s  %-10s %s\n", "planner", "arena",
                          "lower bound", "ratio", "frag", "parts", "time", "sequential",
                          "concurrent");
  for (guint i = 0; i < plans->len; i++)
    {
      MpPlan          *p = plans->pdata[i];
      g_autofree char *arena = mp_format_bytes (p->arena);
      g_autofree char *plb = mp_format_bytes (p->lower_bound);
      g_autofree char *t = mp_format_seconds (p->seconds);
      g_autofree char *parts = p->n_partitions ? g_strdup_printf ("%u", p->n_partitions)
                                               : g_strdup ("-");

      g_string_append_printf (out, "%-18s %12s %12s %7.4f %7.2f%% %6s %10s  %-10s %s\n",
                              p->planner, arena, plb, mp_plan_ratio (p),
                              100.0 * mp_plan_fragmentation (p), parts, t,
                              verdict (TRUE, p->sequential_valid),
                              verdict (p->concurrent_checked, p->concurrent_valid));
    }
  for (guint i = 0; i < skipped->len; i++)
    g_string_append_printf (out, "%-18s skipped: %s\n", "", (char *) skipped->pdata[i]);
  for (guint i = 0; i < plans->len; i++)
    {
      MpPlan *p = plans->pdata[i];

      if (p->note)
        g_string_append_printf (out, "%s: %s\n", p->planner, p->note);
      if (!p->sequential_valid)
        g_string_append_printf (out, "%s: INVALID in op order: %s\n", p->planner,
                                p->sequential_problem);
      if (p->concurrent_checked && !p->concurrent_valid)
        g_string_append_printf (out, "%s: INVALID when streams run concurrently: %s\n",
                                p->planner, p->concurrent_problem);
    }
  if (schedule)
    g_string_append (out, "(multistream plans for the concurrent schedule, the others for op "
                          "order; only a plan invalid under its own schedule fails the run)\n");
}

/* The optimal planner's progress, on one rewritten line of a terminal. */
static void
show_progress (const char *line, gpointer data)
{
  fprintf (stderr, "\r%s\033[K", line);
  fflush (stderr);
  *(gboolean *) data = TRUE;
}

int
mp_cli_plan (int argc, char **argv)
{
  g_auto (GStrv) planner_names = NULL;
  g_autofree char *format = NULL;
  g_autofree char *output = NULL;
  g_autofree char *device = NULL;
  g_auto (GStrv) dims = NULL;
  gboolean         views_as_copies = FALSE;
  g_autoptr (MpTrace) trace = NULL;
  gint64           alignment = 0;
  gboolean         plan_inputs = FALSE;
  gint             max_parallel = 0;
  gdouble          budget = 0;
  gint64           capacity = 0;
  g_autoptr (GError) error = NULL;
  g_autoptr (MpGraph) graph = NULL;
  g_autoptr (MpLifetimes) lt = NULL;
  g_autoptr (GPtrArray) infos = NULL;
  g_autoptr (GPtrArray) plans = g_ptr_array_new_with_free_func ((GDestroyNotify) mp_plan_free);
  g_autoptr (GPtrArray) skipped = g_ptr_array_new_with_free_func (g_free);
  g_autoptr (GPtrArray) skipped_names = g_ptr_array_new ();
  g_autoptr (MpSchedule) schedule = NULL;
  g_autoptr (GOptionContext) ctx = NULL;
  g_autofree char *names = mp_planner_names (", ");
  g_autofree char *planner_help = g_strdup_printf ("Planner to run, repeatable or comma-separated: "
                                                   "%s, or all (default)", names);
  g_autofree char *text = NULL;
  MpLifetimeOptions  lopts = { 0 };
  MpPlannerOptions   popts = { 0 };
  gboolean           all_valid = TRUE;
  gboolean           progressed = FALSE;
  GOptionEntry       entries[] = {
    { "planner", 'p', 0, G_OPTION_ARG_STRING_ARRAY, &planner_names, planner_help, "NAME" },
    { "format", 'f', 0, G_OPTION_ARG_STRING, &format, "Output format: table (default), json, csv",
      "FORMAT" },
    { "output", 'o', 0, G_OPTION_ARG_FILENAME, &output, "Write to FILE instead of "
      "standard output (atomically; an existing FILE is replaced, an input never)", "FILE" },
    { "alignment", 'a', 0, G_OPTION_ARG_INT64, &alignment, "Round sizes up to N bytes (a power "
      "of two; default: the graph's, 64 for JSON, 1 for CSV)", "N" },
    { "plan-inputs", 0, 0, G_OPTION_ARG_NONE, &plan_inputs, "Place graph inputs in the arena "
      "too", NULL },
    { "max-parallel-ops", 0, 0, G_OPTION_ARG_INT, &max_parallel, "multistream: at most N ops "
      "per parallel group (default: unlimited)", "N" },
    { "time-budget", 0, 0, G_OPTION_ARG_DOUBLE, &budget, "optimal: give up the proof after S "
      "seconds (default 10)", "S" },
    { "device", 0, 0, G_OPTION_ARG_STRING, &device, "PyTorch trace or snapshot: the device to "
      "import, cuda:N or cpu (default: the first CUDA device)", "DEV" },
    { "time-limit", 0, G_OPTION_FLAG_HIDDEN, G_OPTION_ARG_DOUBLE, &budget, "Same as --time-budget",
      "S" },
    { "capacity", 0, 0, G_OPTION_ARG_INT64, &capacity, "optimal: only ask whether the plan fits "
      "in N bytes (MiniMalloc's question) instead of minimising the arena", "N" },
    { "dim", 0, 0, G_OPTION_ARG_STRING_ARRAY, &dims, "ONNX: bind a symbolic dimension "
      "(repeatable: --dim batch=8 --dim seq=128)", "NAME=VALUE" },
    { "views-as-copies", 0, 0, G_OPTION_ARG_NONE, &views_as_copies, "ONNX: plan Reshape, "
      "Flatten, Squeeze, Unsqueeze and Identity as copies instead of views", NULL },
    { NULL }
  };

  ctx = g_option_context_new ("FILE — plan a graph (JSON) or usage records (CSV)");
  g_option_context_set_summary (ctx, "Runs planners on FILE and reports arena, lower bound, ratio, "
                                     "fragmentation, partitions, planning time and validity per "
                                     "planner: in op order and, for a graph with ops, when its "
                                     "streams run concurrently (ops grouped by dependency level, "
                                     "at most --max-parallel-ops per group). A planner that needs "
                                     "ops is skipped on usage records. Exit status 1 when a plan "
                                     "is invalid under the schedule it was made for (op order; "
                                     "parallel groups for multistream).");
  g_option_context_add_main_entries (ctx, entries, NULL);
  if (!mp_cli_parse (ctx, &argc, &argv, 1, 1))
    return MP_EXIT_BAD_INPUT;

  if (format == NULL)
    format = g_strdup ("table");
  if (!g_str_equal (format, "table") && !g_str_equal (format, "json") &&
      !g_str_equal (format, "csv"))
    {
      mp_cli_error ("unknown format '%s' (known: table, json, csv)", format);
      return MP_EXIT_BAD_INPUT;
    }
  if (!mp_cli_check_alignment (alignment))
    return MP_EXIT_BAD_INPUT;
  if (capacity < 0)
    {
      mp_cli_error ("--capacity must not be negative");
      return MP_EXIT_BAD_INPUT;
    }
  if (max_parallel < 0 || budget < 0)
    {
      mp_cli_error ("--max-parallel-ops and --time-budget must not be negative");
      return MP_EXIT_BAD_INPUT;
    }
  if (!(infos = mp_cli_planners (planner_names, &error)))
    {
      mp_cli_error ("%s", error->message);
      return MP_EXIT_BAD_INPUT;
    }
  if (g_str_equal (format, "csv") && infos->len != 1)
    {
      mp_cli_error ("--format csv writes one plan: choose one planner with --planner");
      return MP_EXIT_BAD_INPUT;
    }

  /* an allocator trace also gives the allocator's own layout: "observed" */
  if (device || mp_trace_sniff_file (argv[1]) != MP_TRACE_FORMAT_NONE)
    {
      if (!(trace = mp_trace_load (argv[1], device, &error)))
        {
          mp_cli_error ("%s", error->message);
          return MP_EXIT_BAD_INPUT;
        }
      graph = g_steal_pointer (&trace->graph);
    }
  else if (!(graph = dims || views_as_copies
                       ? mp_onnx_load (argv[1], &(MpOnnxOptions) { (const char *const *) dims,
                                                                   views_as_copies }, &error)
                       : mp_graph_load (argv[1], &error)))
    {
      mp_cli_error ("%s", error->message);
      return MP_EXIT_BAD_INPUT;
    }
  lopts.alignment = alignment;
  lopts.plan_inputs = plan_inputs;
  if (!(lt = mp_lifetimes_compute (graph, &lopts, &error)))
    {
      mp_cli_error ("%s", error->message);
      return MP_EXIT_BAD_INPUT;
    }

  if (trace)
    {
      MpPlan *observed = mp_trace_observed_plan (trace, lt);

      all_valid &= mp_plan_check (graph, observed);
      g_ptr_array_add (plans, observed);
    }
  popts.max_parallel_ops = max_parallel;
  if (graph->has_ops)
    schedule = mp_schedule_parallel (graph, max_parallel);
  popts.time_budget = budget;
  popts.capacity = capacity;
  if (isatty (STDERR_FILENO))
    {
      popts.progress = show_progress;
      popts.progress_data = &progressed;
    }
  for (guint i = 0; i < infos->len; i++)
    {
      const MpPlannerInfo *info = infos->pdata[i];
      MpPlan              *plan;

      g_clear_error (&error);
      plan = mp_planner_run (info, graph, lt, &popts, NULL, &error);
      if (progressed)
        fputs ("\n", stderr);
      progressed = FALSE;
      if (plan == NULL)
        {
          if (g_error_matches (error, MP_ANALYSIS_ERROR, MP_ANALYSIS_ERROR_UNSUPPORTED))
            {
              g_ptr_array_add (skipped, g_strdup (error->message));
              g_ptr_array_add (skipped_names, (gpointer) info->name);
              continue;
            }
          mp_cli_error ("%s: %s", info->name, error->message);
          return MP_EXIT_FAILED;
        }
      /* a plan fails only under the schedule it was made for */
      all_valid &= mp_plan_check_schedules (graph, plan, schedule);
      g_ptr_array_add (plans, plan);
    }

  if (g_str_equal (format, "table"))
    {
      GString *s = g_string_new (NULL);

      print_table (s, graph, lt, schedule, plans, skipped);
      /* what the user checks first on a model of their own */
      if (mp_onnx_sniff_file (argv[1]))
        {
          guint64          param_bytes;
          guint64          n_params = mp_graph_count_params (graph, &param_bytes);
          g_autofree char *pb = mp_format_bytes (param_bytes);

          g_string_append_printf (s, "%s: %" G_GUINT64_FORMAT " parameters (%s) in the model's "
                                  "initializers, outside the arena\n", graph->name, n_params, pb);
        }
      text = g_string_free (s, FALSE);
    }
  else if (g_str_equal (format, "json"))
    text = mp_plan_to_json_skipping (graph, (MpPlan **) plans->pdata, plans->len,
                                     (const char *const *) skipped_names->pdata,
                                     (const char *const *) skipped->pdata, skipped->len);
  else
    {
      /* the one planner asked for; a trace's "observed" plan is not written */
      const MpPlannerInfo *wanted = infos->pdata[0];
      MpPlan              *chosen = NULL;

      for (guint i = 0; i < plans->len; i++)
        if (g_str_equal (((MpPlan *) plans->pdata[i])->planner, wanted->name))
          chosen = plans->pdata[i];
      if (chosen == NULL)
        {
          mp_cli_error ("%s", skipped->len ? (const char *) skipped->pdata[0]
                                           : "the planner made no plan");
          return MP_EXIT_BAD_INPUT;
        }
      text = mp_plan_to_csv (graph, chosen);
    }

  if (!mp_cli_output (output, text, &error))
    {
      mp_cli_error ("%s", error->message);
      return MP_EXIT_BAD_INPUT;
    }
  if (!all_valid)
    {
      for (guint i = 0; i < plans->len; i++)
        if (!((MpPlan *) plans->pdata[i])->valid)
          mp_cli_error ("%s produced an invalid plan: %s", ((MpPlan *) plans->pdata[i])->planner,
                        ((MpPlan *) plans->pdata[i])->problem);
      return MP_EXIT_FAILED;
    }
  return MP_EXIT_OK;
}
