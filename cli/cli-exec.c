/* SPDX-License-Identifier: GPL-3.0-or-later */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "memplan-exec.h"

/* Plans made for op order that were found corrupt with concurrent streams:
 * their corruption is a race, not a bad plan for the order it was made for
 * (a clean run needs no such note). */
static void
print_schedule_note (GString *out, GPtrArray *results)
{
  g_autoptr (GString) names = g_string_new (NULL);
  guint               n = 0, streams = 0;

  for (guint i = 0; i < results->len; i++)
    {
      const MpExecResult *r = results->pdata[i];

      if (!r->concurrent || r->group_order || r->n_corrupted == 0)
        continue;
      g_string_append_printf (names, "%s%s", n++ ? ", " : "", r->planner);
      streams = r->n_streams;
    }
  if (n == 0)
    return;
  g_string_append_printf (out, "note: %s %s made for op order, but %s ran on %u concurrent "
                               "streams; a corruption there is a race between streams: run "
                               "with --sequential to check %s in the order %s made for, or "
                               "plan for concurrency with --schedule concurrent\n",
                          names->str, n == 1 ? "was" : "were", n == 1 ? "it" : "they", streams,
                          n == 1 ? "it" : "them", n == 1 ? "it was" : "they were");
}

/* What "planned" and "bandwidth" mean on this run. */
static void
print_figure_notes (GString *out, const MpExecResult *r0)
{
  g_string_append (out, "\nplanned: the plan's arena");
  if (r0->n_ws_slots)
    {
      g_autofree char *slot = mp_format_bytes (r0->workspace);

      g_string_append_printf (out, " + %u workspace slot%s of %s (the largest op workspace, "
                                   "one per stream that runs ops at once)", r0->n_ws_slots,
                              r0->n_ws_slots == 1 ? "" : "s", slot);
    }
  g_string_append (out, "\n");
  if (g_str_equal (r0->backend, "cuda"))
    {
      g_autofree char *peak = mp_format_bytes (r0->peak_bandwidth);

      g_string_append_printf (out, "bandwidth: bytes moved / kernel time (each iteration "
                                   "replayed as one CUDA graph, CUDA events around its launch, "
                                   "after a warm-up) over the %u free-running iteration%s; "
                                   "device peak %s/s; %u kernel launches per iteration\n",
                              r0->timed_iterations, r0->timed_iterations == 1 ? "" : "s", peak,
                              r0->launches);
    }
  else
    g_string_append_printf (out, "bandwidth: bytes moved / wall time of the %u free-running "
                                 "iteration%s\n", r0->timed_iterations,
                            r0->timed_iterations == 1 ? "" : "s");
}

static void
print_table (GString *out, const MpGraph *graph, GPtrArray *results)
{
  const MpExecResult *r0 = results->pdata[0];

  g_string_append_printf (out, "%s: %u ops on %u stream%s; backend %s (%s), ", graph->name,
                          graph->n_ops, r0->n_streams, r0->n_streams == 1 ? "" : "s",
                          r0->backend, r0->device);
  if (r0->concurrent)
    g_string_append_printf (out, "streams concurrent in %u parallel groups", r0->n_groups);
  else
    g_string_append (out, "one op at a time");
  g_string_append_printf (out, ", %u iteration%s\n", r0->iterations,
                          r0->iterations == 1 ? "" : "s");
  if (r0->note)
    g_string_append_printf (out, "note: %s\n", r0->note);
  g_string_append_printf (out, "\n%-18s %-8s %7s %11s %11s %11s %9s %12s\n", "planner", "result",
                          "corrupt", "planned", "measured", "moved", "time", "bandwidth");
  for (guint i = 0; i < results->len; i++)
    {
      const MpExecResult *r = results->pdata[i];
      g_autofree char    *planned = mp_format_bytes (r->planned);
      g_autofree char    *measured = mp_format_bytes (r->measured);
      g_autofree char    *moved = mp_format_bytes (r->bytes_moved);
      g_autofree char    *t = mp_format_seconds (r->seconds);
      g_autofree char    *bw = mp_format_bytes (r->seconds > 0 ? r->bytes_moved / r->seconds : 0);

      g_string_append_printf (out, "%-18s %-8s %7u %11s %11s %11s %9s %10s/s\n", r->planner,
                              r->n_corrupted ? "CORRUPT" : "clean", r->n_corrupted, planned,
                              measured, moved, t, bw);
    }
  print_schedule_note (out, results);
  for (guint i = 0; i < results->len; i++)
    {
      const MpExecResult *r = results->pdata[i];

      if (r->group_order && !r->concurrent)
        g_string_append_printf (out, "%s: planned for the parallel schedule, so its ops ran group "
                                     "by group\n", r->planner);
      if (r->first_corruption)
        g_string_append_printf (out, "%s: first corruption: %s\n", r->planner,
                                r->first_corruption);
    }
  print_figure_notes (out, r0);
  g_string_append_printf (out, "measured: %s\n", g_str_equal (r0->backend, "cuda")
                          ? "device memory the arena's allocation took (cudaMemGetInfo "
                            "before/after)"
                          : "resident pages of the arena and workspace after the run");
  if (r0->process_peak)
    {
      g_autofree char *peak = mp_format_bytes (r0->process_peak);
      g_autofree char *planned = mp_format_bytes (r0->planned);

      if (g_str_equal (r0->backend, "cuda"))
        g_string_append_printf (out, "device memory at peak: %s (cudaMemGetInfo deltas from "
                                     "before the run, sampled after each iteration: buffers, "
                                     "checks, streams, the instantiated graph), planned %s\n",
                                peak, planned);
      else
        g_string_append_printf (out, "process peak resident (VmHWM): %s\n", peak);
    }
  if (r0->baselines->len)
    g_string_append (out, "\ndynamic allocators on the same program "
                          "(allocate at first use, free after last use):\n");
  for (guint i = 0; i < r0->baselines->len; i++)
    {
      const MpExecFigure *f = &g_array_index (r0->baselines, MpExecFigure, i);
      g_autofree char    *b = mp_format_bytes (f->bytes);

      if (f->error)
        g_string_append_printf (out, "  %-44s failed: %s\n", f->label, f->error);
      else
        g_string_append_printf (out, "  %-44s %11s\n", f->label, b);
    }
}

/* --bench: tensors past the cache, so the figure is memory bandwidth. */
static gboolean
exec_bench_scale (MpGraph *graph, MpExecOptions *opts, GError **error)
{
  g_autofree char *cache = NULL;
  guint64          bytes = mp_exec_cache_bytes (opts->backend,
                                                opts->pick_device ? (gint) opts->device : -1,
                                                &cache);
  guint64          factor = mp_exec_bench_scale (graph, 2 * bytes, error);
  g_autofree char *size = mp_format_bytes (bytes);

  if (factor == 0)
    return FALSE;
  fprintf (stderr, "memplan-cli: bench: every arena tensor scaled ×%" G_GUINT64_FORMAT " so "
                   "that the median one is at least twice %s (%s); inputs and params keep their "
                   "size\n", factor, cache, size);
  if (opts->iterations == 0)
    opts->iterations = 5;
  return TRUE;
}

static int
exit_for (const GError *error)
{
  if (g_error_matches (error, MP_EXEC_ERROR, MP_EXEC_ERROR_UNAVAILABLE) ||
      g_error_matches (error, MP_EXEC_ERROR, MP_EXEC_ERROR_FAILED))
    return MP_EXIT_UNAVAILABLE;
  return MP_EXIT_BAD_INPUT;
}

int
mp_cli_exec (int argc, char **argv)
{
  g_auto (MpCliPlanning) planning = { NULL };
  g_auto (MpCliOutput) out = { NULL };
  g_autofree char *plan_file = NULL;
  g_autofree char *backend = NULL;
  g_autofree char *corrupt = NULL;
  g_autofree char *text = NULL;
  guint64          load_estimate;
  gint             iterations = 0, delay_us = 0, device = -1;
  gboolean         sequential = FALSE, no_stagger = FALSE, no_baselines = FALSE, bench = FALSE;
  gboolean         any_corrupt = FALSE;
  g_autoptr (GError) error = NULL;
  g_autoptr (MpInput) input = NULL;
  g_autoptr (MpWorkload) w = NULL;
  const MpGraph   *graph;
  const MpLifetimes *lt;
  g_autoptr (GPtrArray) plans = NULL;
  g_autoptr (MpPlanRun) run = NULL;
  g_autoptr (GPtrArray) results =
    g_ptr_array_new_with_free_func ((GDestroyNotify) mp_exec_result_free);
  g_autoptr (GOptionContext) ctx = NULL;
  MpExecOptions    opts = { 0 };
  GOptionEntry     entries[] = {
    { "plan", 0, 0, G_OPTION_ARG_FILENAME, &plan_file, "Run the plans of PLAN (memplan JSON, or "
      "a CSV with an offset column) instead of planning", "PLAN" },
    { "backend", 'b', 0, G_OPTION_ARG_STRING, &backend, "auto (default: CUDA when a device is "
      "usable, else the CPU), cpu or cuda", "NAME" },
    { "iterations", 'i', 0, G_OPTION_ARG_INT, &iterations, "Run the program N times (default: "
      "once, or with concurrent streams once free-running and once staggered per stream)", "N" },
    { "no-stagger", 0, 0, G_OPTION_ARG_NONE, &no_stagger, "Let every iteration run free; by "
      "default each iteration after the first holds one stream (in turn) until the others have "
      "run each parallel group, which exposes every race between two streams", NULL },
    { "sequential", 0, 0, G_OPTION_ARG_NONE, &sequential, "Run one op at a time, in the order "
      "the plan was made for (program order, or group by group for a plan over the parallel "
      "schedule)", NULL },
    { "delay-us", 0, 0, G_OPTION_ARG_INT, &delay_us, "Also delay the held stream (without "
      "staggering: one stream, in turn) by US microseconds before each op", "US" },
    { "corrupt", 0, 0, G_OPTION_ARG_STRING, &corrupt, "Break each plan on purpose: move TENSOR "
      "(or, with 'auto', the first tensor that can be) onto a live tensor", "TENSOR|auto" },
    { "device", 0, 0, G_OPTION_ARG_INT, &device, "CUDA device to run on (default: the current "
      "device)", "N" },
    { "bench", 0, 0, G_OPTION_ARG_NONE, &bench, "Measure memory bandwidth: scale every tensor "
      "by a power of two until the median one is twice the last-level cache (the GPU's L2, "
      "or the CPU's L3), and run 5 iterations unless --iterations says otherwise", NULL },
    { "no-baselines", 0, 0, G_OPTION_ARG_NONE, &no_baselines, "Skip the dynamic-allocator "
      "replays", NULL },
    { NULL }
  };

  ctx = g_option_context_new ("FILE — execute plans of a graph and check them for corruption");
  g_option_context_set_summary (ctx, "Runs the graph's ops on their streams inside one arena laid "
                                     "out by each plan, checking every input before each op, and "
                                     "reports corruption, traffic, time and memory.\nExit status: "
                                     "0 every run clean, 1 corruption found, 2 bad input or the "
                                     "plan does not fit the memory, 3 the backend is "
                                     "unavailable or failed.");
  g_option_context_add_main_entries (ctx, entries, NULL);
  /* the planners whose plans to run (the planning options are the same
   * as plan's: --order runs the ops in another order, the plans made for it) */
  mp_cli_add_planning (ctx, &planning, MP_CLI_PLANNERS | MP_CLI_SCHEDULE | MP_CLI_ORDER |
                                         MP_CLI_CONCURRENCY);
  mp_cli_add_output (ctx, &out, "table, json");
  if (!mp_cli_parse (ctx, &argc, &argv, 1, 1) || !mp_cli_output_check (&out))
    return MP_EXIT_BAD_INPUT;
  if (plan_file)
    mp_cli_add_input (plan_file);
  if (plan_file && planning.planner_names)
    {
      mp_cli_error ("give either --plan or --planner, not both");
      return MP_EXIT_BAD_INPUT;
    }
  if (!mp_cli_planning_check (&planning))
    return MP_EXIT_BAD_INPUT;
  if (!mp_exec_backend_from_string (backend ? backend : "auto", &opts.backend))
    {
      mp_cli_error ("unknown backend '%s' (known: auto, cpu, cuda)", backend);
      return MP_EXIT_BAD_INPUT;
    }
  if (iterations < 0 || delay_us < 0)
    {
      mp_cli_error ("--iterations and --delay-us must not be negative");
      return MP_EXIT_BAD_INPUT;
    }
  if (device < -1)
    {
      mp_cli_error ("--device must be a device number (0, 1, ...)");
      return MP_EXIT_BAD_INPUT;
    }
  if (device >= 0 && opts.backend == MP_EXEC_BACKEND_CPU)
    {
      mp_cli_error ("--device chooses a CUDA device; it does not go with --backend cpu");
      return MP_EXIT_BAD_INPUT;
    }
  opts.pick_device = device >= 0;
  opts.device = MAX (device, 0);
  opts.iterations = iterations;
  opts.sequential = sequential;
  opts.no_stagger = no_stagger;
  opts.max_parallel_ops = (guint) planning.max_parallel;
  opts.delay_us = delay_us;

  /* the arena is checked by the executor, against the memory available */
  if (!mp_cli_check_load_memory (argv[1], planning.max_memory, &load_estimate))
    return MP_EXIT_BAD_INPUT;
  /* --bench scales the tensors before the lifetimes are measured */
  if (!(input = mp_input_load (argv[1], NULL, &error)) ||
      (bench && !exec_bench_scale (input->graph, &opts, &error)) ||
      !(w = mp_workload_new_from_input (g_steal_pointer (&input),
                                        &(MpWorkloadOptions) {
                                          .max_parallel_ops = (guint) planning.max_parallel,
                                          .schedule = planning.plan_schedule,
                                          .order = planning.order_method,
          .order_budget = planning.order_budget },
                                        &error)))
    {
      mp_cli_error ("%s", error->message);
      return MP_EXIT_BAD_INPUT;
    }
  graph = w->graph;
  lt = w->lifetimes;
  if (!graph->has_ops)
    {
      mp_cli_error ("%s: usage records have no ops to execute; give a graph (JSON)", argv[1]);
      return MP_EXIT_BAD_INPUT;
    }
  if (plan_file)
    {
      if (!(plans = mp_plan_load (plan_file, graph, lt, &error)))
        {
          mp_cli_error ("%s", error->message);
          return MP_EXIT_BAD_INPUT;
        }
    }
  else
    {
      GPtrArray *infos = planning.infos;

      /* the one planner loop, with its memory check */
      w->load_estimate = load_estimate;
      if (planning.max_memory)
        mp_parse_size (planning.max_memory, &w->max_memory);
      if (!(run = mp_workload_run (w, (const MpPlannerInfo * const *) infos->pdata, infos->len,
                                   NULL, NULL, &error)))
        {
          mp_cli_error ("%s", error->message);
          return MP_EXIT_BAD_INPUT;
        }
      plans = g_ptr_array_ref (run->plans);
    }

  for (guint i = 0; i < plans->len; i++)
    {
      MpPlan       *plan = plans->pdata[i];
      MpExecResult *r;

      if (corrupt)
        {
          g_autofree char *moved = NULL;
          g_autofree char *victim = NULL;

          if (!mp_exec_corrupt_plan (graph, plan, g_str_equal (corrupt, "auto") ? NULL : corrupt,
                                     &moved, &victim, &error))
            {
              mp_cli_error ("%s", error->message);
              return MP_EXIT_BAD_INPUT;
            }
          fprintf (stderr, "memplan-cli: %s: moved tensor '%s' onto live tensor '%s' on "
                           "purpose\n", plan->planner, moved, victim);
        }
      opts.baselines = i == 0 && !no_baselines;
      if (!(r = mp_exec_run (graph, lt, plan, &opts, NULL, &error)))
        {
          if (g_error_matches (error, MP_EXEC_ERROR, MP_EXEC_ERROR_UNAVAILABLE))
            mp_cli_error ("the CUDA backend cannot run here: %s", error->message);
          else
            mp_cli_error ("%s: %s", plan->planner, error->message);
          return exit_for (error);
        }
      any_corrupt |= r->n_corrupted > 0;
      g_ptr_array_add (results, r);
    }
  if (results->len == 0)
    {
      mp_cli_error ("%s: no plan to execute", argv[1]);
      return MP_EXIT_BAD_INPUT;
    }

  if (mp_cli_output_is (&out, "json"))
    text = mp_exec_result_to_json (graph, (MpExecResult **) results->pdata, results->len);
  else
    {
      GString         *s = g_string_new (NULL);
      g_autofree char *summary = mp_cli_order_summary (w);

      /* the ops ran in this order: say so first */
      if (summary)
        g_string_append_printf (s, "%s\n\n", summary);
      print_table (s, graph, results);
      text = g_string_free (s, FALSE);
    }
  if (!(mp_cli_output_is (&out, "json") ? mp_cli_output : mp_cli_output_text) (out.output, text,
                                                                             &error))
    {
      mp_cli_error ("%s", error->message);
      return MP_EXIT_BAD_INPUT;
    }
  return any_corrupt ? MP_EXIT_FAILED : MP_EXIT_OK;
}
