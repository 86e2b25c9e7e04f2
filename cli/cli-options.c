/* SPDX-License-Identifier: GPL-3.0-or-later */
#include <math.h>
#include <stdio.h>
#include <unistd.h>

#include "cli.h"

/* The planning and output options, defined once for every subcommand that
 * takes them and checked once. They are main entries, not a GOptionGroup of
 * their own: a group's options would only show under --help-all. */

static void
add_entry (GArray *entries, GOptionEntry entry)
{
  g_array_append_val (entries, entry);
}

void
mp_cli_add_planning (GOptionContext *context, MpCliPlanning *p, MpCliPlanningFlags flags)
{
  g_autofree char *names = mp_planner_names (", ");
  GArray          *e = g_array_new (TRUE, TRUE, sizeof (GOptionEntry));

  p->flags = flags;
  if (flags & MP_CLI_PLANNERS)
    {
      p->planner_help = g_strdup_printf ("Planner to run, repeatable or comma-separated: %s, or "
                                         "all (default: %s)", names,
                                         p->default_planners ? p->default_planners : "all");
      add_entry (e, (GOptionEntry) { "planner", 'p', 0, G_OPTION_ARG_STRING_ARRAY,
                                     &p->planner_names, p->planner_help, "NAME" });
    }
  if (flags & MP_CLI_LIFETIMES)
    {
      add_entry (e, (GOptionEntry) { "alignment", 'a', 0, G_OPTION_ARG_INT64, &p->alignment,
                                     "Round sizes up to N bytes (a power of two from 1 to 2^30; "
                                     "default: the input's, 64 for a graph, 1 for records)",
                                     "N" });
      add_entry (e, (GOptionEntry) { "plan-inputs", 0, 0, G_OPTION_ARG_NONE, &p->plan_inputs,
                                     "Place graph inputs in the arena too", NULL });
    }
  if (flags & MP_CLI_SCHEDULE)
    add_entry (e, (GOptionEntry) { "max-parallel-ops", 0, 0, G_OPTION_ARG_INT, &p->max_parallel,
                                   "Parallel groups (multistream, and the concurrent check): at "
                                   "most N ops per group (default: unlimited)", "N" });
  if (flags & MP_CLI_CONCURRENCY)
    add_entry (e, (GOptionEntry) { "schedule", 0, 0, G_OPTION_ARG_STRING, &p->schedule,
                                   "What every planner plans for on a graph with several "
                                   "streams: concurrent (the parallel groups they run in; the "
                                   "default) or sequential (op order, multistream alone for "
                                   "the groups)", "SCHEDULE" });
  if (flags & MP_CLI_SEARCH)
    {
      p->budget_help = g_strdup_printf ("optimal: give up the proof after S seconds "
                                        "(default %g)", MP_OPTIMAL_DEFAULT_BUDGET);
      add_entry (e, (GOptionEntry) { "time-budget", 0, 0, G_OPTION_ARG_DOUBLE, &p->budget,
                                     p->budget_help, "S" });
      add_entry (e, (GOptionEntry) { "time-limit", 0, G_OPTION_FLAG_HIDDEN, G_OPTION_ARG_DOUBLE,
                                     &p->budget, "Same as --time-budget", "S" });
      add_entry (e, (GOptionEntry) { "capacity", 0, 0, G_OPTION_ARG_INT64, &p->capacity,
                                     "optimal: only ask whether the plan fits in N bytes "
                                     "(MiniMalloc's question) instead of minimising the arena",
                                     "N" });
    }
  if (flags & MP_CLI_ORDER)
    {
      add_entry (e, (GOptionEntry) { "order", 0, 0, G_OPTION_ARG_STRING, &p->order,
                                     "Op order to plan, keeping every dependency and each "
                                     "stream's order (XLA's list, DFS and post-order "
                                     "schedulers, Liu's tree order, the best of those, an exact "
                                     "search; default: given): given, list, dfs, post-order, "
                                     "tree, best or optimal", "ORDER" });
      add_entry (e, (GOptionEntry) { "order-budget", 0, 0, G_OPTION_ARG_DOUBLE,
                                     &p->order_budget, "--order optimal: give up the proof "
                                     "after S seconds and keep the best order found "
                                     "(default 10)", "S" });
    }
  add_entry (e, (GOptionEntry) MP_CLI_MAX_MEMORY_ENTRY (&p->max_memory));
  if (flags & MP_CLI_DEVICE)
    {
      add_entry (e, (GOptionEntry) { "device", 0, 0, G_OPTION_ARG_STRING, &p->device,
                                     "PyTorch trace or snapshot: the device to import, cuda:N "
                                     "or cpu (default: the first CUDA device)", "DEV" });
      add_entry (e, (GOptionEntry) { "drop-pre-existing", 0, 0, G_OPTION_ARG_NONE,
                                     &p->drop_pre_existing, "PyTorch trace or snapshot: leave "
                                     "out blocks allocated before the trace began (by default "
                                     "they are live from its start, as in PyTorch's memory "
                                     "viewer)", NULL });
    }
  if (flags & MP_CLI_MODEL)
    {
      add_entry (e, (GOptionEntry) { "dim", 0, 0, G_OPTION_ARG_STRING_ARRAY, &p->dims,
                                     "ONNX: bind a symbolic dimension (repeatable: --dim "
                                     "batch=8 --dim seq=128)", "NAME=VALUE" });
      add_entry (e, (GOptionEntry) { "views-as-copies", 0, 0, G_OPTION_ARG_NONE,
                                     &p->views_as_copies, "ONNX: plan Reshape, Flatten, Squeeze, "
                                     "Unsqueeze and Identity as copies instead of views", NULL });
    }
  g_option_context_add_main_entries (context, (GOptionEntry *) (void *) e->data, NULL);
  p->entries = e;
}

gboolean
mp_cli_check_int (const char *option, gint64 value, gint64 min, gint64 max)
{
  if (value >= min && value <= max)
    return TRUE;
  mp_cli_error ("%s must be from %" G_GINT64_FORMAT " to %" G_GINT64_FORMAT ", not %"
                G_GINT64_FORMAT, option, min, max, value);
  return FALSE;
}

gboolean
mp_cli_check_double (const char *option, gdouble value, gdouble min, gdouble max)
{
  /* NaN fails both comparisons; an infinity fails one */
  if (value >= min && value <= max)
    return TRUE;
  mp_cli_error ("%s must be a number from %g to %g, not %g", option, min, max, value);
  return FALSE;
}

gboolean
mp_cli_planning_check (MpCliPlanning *p)
{
  g_autoptr (GError) error = NULL;

  if (!mp_cli_check_alignment (p->alignment) ||
      !mp_cli_check_int ("--max-parallel-ops", p->max_parallel, 0, G_MAXINT) ||
      !mp_cli_check_double ("--time-budget", p->budget, 0, MP_OPTIMAL_MAX_BUDGET) ||
      !mp_cli_check_int ("--capacity", p->capacity, 0, G_MAXINT64) ||
      !mp_cli_check_double ("--order-budget", p->order_budget, 0, MP_OPTIMAL_MAX_BUDGET) ||
      !mp_cli_check_memory (NULL, 0, p->max_memory))
    return FALSE;
  if (!mp_cli_parse_order (p->order, &p->order_method))
    return FALSE;
  p->plan_schedule = MP_PLAN_SCHEDULE_AUTO;
  if (p->schedule && !mp_plan_schedule_parse (p->schedule, &p->plan_schedule))
    {
      mp_cli_error ("--schedule takes concurrent or sequential, not '%s'", p->schedule);
      return FALSE;
    }
  if ((p->flags & MP_CLI_PLANNERS) && p->infos == NULL)
    {
      if (p->planner_names == NULL && p->default_planners)
        p->planner_names = g_strsplit (p->default_planners, ",", -1);
      if (!(p->infos = mp_cli_planners (p->planner_names, &error)))
        {
          mp_cli_error ("%s", error->message);
          return FALSE;
        }
    }
  return TRUE;
}

void
mp_cli_workload_options (const MpCliPlanning *p, MpWorkloadOptions *options)
{
  guint64 limit = 0;

  /* checked already by mp_cli_planning_check */
  if (p->max_memory)
    mp_parse_size (p->max_memory, &limit);
  *options = (MpWorkloadOptions) { .max_memory = limit,
                                   .alignment = (guint64) p->alignment,
                                   .plan_inputs = p->plan_inputs,
                                   .max_parallel_ops = (guint) p->max_parallel,
                                   .schedule = p->plan_schedule,
                                   .input.trace.device = p->device,
                                   .input.trace.drop_pre_existing = p->drop_pre_existing,
                                   .input.onnx.dims = (const char *const *) p->dims,
                                   .input.onnx.views_as_copies = p->views_as_copies,
                                   .order = p->order_method,
                                   .order_budget = p->order_budget };
}

void
mp_cli_planner_options (MpCliPlanning *p, MpPlannerOptions *options)
{
  *options = (MpPlannerOptions) { .max_parallel_ops = (guint) p->max_parallel,
                                  .time_budget = p->budget,
                                  .capacity = (guint64) p->capacity };
}

/* --max-memory as bytes (0: not given, the memory available); FALSE, said,
 * for what is not a size. */
static gboolean
max_memory_limit (const char *max_memory, guint64 *limit)
{
  *limit = 0;
  if (max_memory && (!mp_parse_size (max_memory, limit) || *limit == 0))
    {
      mp_cli_error ("--max-memory takes a size such as 512M or 8G, not '%s'", max_memory);
      return FALSE;
    }
  return TRUE;
}

gboolean
mp_cli_check_memory (const char *what, guint64 estimate, const char *max_memory)
{
  g_autoptr (GError) error = NULL;
  guint64            limit;

  if (!max_memory_limit (max_memory, &limit))
    return FALSE;
  if (what && !mp_memory_check (what, estimate, limit, &error))
    {
      mp_cli_error ("%s", error->message);
      return FALSE;
    }
  return TRUE;
}

gboolean
mp_cli_check_load_memory (const char *path, const char *max_memory, guint64 *load_estimate)
{
  g_autoptr (GError) error = NULL;
  guint64            limit;

  *load_estimate = 0;
  if (!max_memory_limit (max_memory, &limit))
    return FALSE;
  if (!mp_memory_check_load (path, limit, load_estimate, &error))
    {
      mp_cli_error ("%s", error->message);
      return FALSE;
    }
  return TRUE;
}

gboolean
mp_cli_check_more_memory (const char *what, guint64 estimate, guint64 load_estimate,
                          const char *max_memory)
{
  /* under a limit, what loading took counts too; the memory available has
   * already lost it */
  return mp_cli_check_memory (what, estimate + (max_memory ? load_estimate : 0), max_memory);
}

gboolean
mp_cli_check_planners_memory (GPtrArray *infos, MpWorkload *workload)
{
  g_autoptr (GError) error = NULL;

  if (mp_workload_check_memory (workload, (const MpPlannerInfo * const *) infos->pdata,
                                infos->len, &error))
    return TRUE;
  mp_cli_error ("%s", error->message);
  return FALSE;
}

gboolean
mp_cli_check_plan_memory (MpCliPlanning *p, MpWorkload *workload)
{
  return mp_cli_check_planners_memory (p->infos, workload);
}

MpWorkload *
mp_cli_open (const char *path, MpCliPlanning *p)
{
  g_autoptr (GError) error = NULL;
  MpWorkloadOptions  options;
  MpWorkload        *workload;

  mp_cli_workload_options (p, &options);
  if (!(workload = mp_workload_open (path, &options, &error)))
    mp_cli_error ("%s", error->message);
  else
    p->load_estimate = workload->load_estimate;
  return workload;
}

/* The exact search's progress on one rewritten line of a terminal, ended
 * when its planner is done. */
static void
run_progress (const MpRunProgress *progress, gpointer data)
{
  MpCliPlanning *p = data;

  if (progress->event == MP_RUN_SEARCHING)
    {
      g_autofree char *line = mp_search_progress_format (progress->search);

      fprintf (stderr, "\r%s: %s\033[K", progress->planner->name, line);
      fflush (stderr);
      p->progressed = TRUE;
    }
  else if (progress->event == MP_RUN_DONE && p->progressed)
    {
      fputs ("\n", stderr);
      p->progressed = FALSE;
    }
}

MpPlanRun *
mp_cli_run (MpWorkload *workload, MpCliPlanning *p)
{
  g_autoptr (GError) error = NULL;
  MpRunOptions       options = { .n_threads = 1 };
  MpPlanRun         *run;

  mp_cli_planner_options (p, &options.planner);
  if (isatty (STDERR_FILENO))
    {
      options.progress = run_progress;
      options.progress_data = p;
    }
  run = mp_workload_run (workload, (const MpPlannerInfo * const *) p->infos->pdata,
                         p->infos->len, &options, NULL, &error);
  if (p->progressed)
    fputs ("\n", stderr);
  p->progressed = FALSE;
  if (run == NULL)
    mp_cli_error ("%s", error->message);
  return run;
}

void
mp_cli_planning_clear (MpCliPlanning *p)
{
  g_clear_pointer (&p->planner_names, g_strfreev);
  g_clear_pointer (&p->device, g_free);
  g_clear_pointer (&p->dims, g_strfreev);
  g_clear_pointer (&p->max_memory, g_free);
  g_clear_pointer (&p->order, g_free);
  g_clear_pointer (&p->schedule, g_free);
  g_clear_pointer (&p->planner_help, g_free);
  g_clear_pointer (&p->budget_help, g_free);
  g_clear_pointer (&p->infos, g_ptr_array_unref);
  g_clear_pointer (&p->entries, g_array_unref);
}

void
mp_cli_add_output (GOptionContext *context, MpCliOutput *o, const char *formats)
{
  GArray *e = g_array_new (TRUE, TRUE, sizeof (GOptionEntry));

  o->formats = formats;
  add_entry (e, (GOptionEntry) { "output", 'o', 0, G_OPTION_ARG_FILENAME, &o->output,
                                 "Write to FILE instead of standard output (atomically; an "
                                 "existing FILE is replaced, an input never); its extension "
                                 "(.json, .csv, .md, .txt) chooses the format", "FILE" });
  if (formats)
    {
      o->format_help = g_strdup_printf ("Output format: %s (the first is the default)", formats);
      add_entry (e, (GOptionEntry) { "format", 'f', 0, G_OPTION_ARG_STRING, &o->format,
                                     o->format_help, "FORMAT" });
    }
  g_option_context_add_main_entries (context, (GOptionEntry *) (void *) e->data, NULL);
  o->entries = e;
}

/* The format an -o file's extension names, when it is one of known. */
static const char *
format_of_extension (const char *path, const char * const *known)
{
  static const struct
  {
    const char *suffix;
    const char *format;
  } extensions[] = {
    { ".json", "json" }, { ".csv", "csv" }, { ".md", "markdown" }, { ".txt", "table" },
  };

  for (guint i = 0; path && i < G_N_ELEMENTS (extensions); i++)
    if (mp_file_has_suffix (path, extensions[i].suffix) &&
        g_strv_contains (known, extensions[i].format))
      return extensions[i].format;
  return NULL;
}

gboolean
mp_cli_output_check (MpCliOutput *o)
{
  g_auto (GStrv) known = NULL;
  const char    *implied;

  if (o->formats == NULL)
    return TRUE;
  known = g_strsplit (o->formats, ", ", -1);
  /* -o p.json writes JSON, not the table under a .json name */
  implied = format_of_extension (o->output, (const char * const *) known);
  if (o->format == NULL)
    o->format = g_strdup (implied ? implied : known[0]);
  if (!g_strv_contains ((const char * const *) known, o->format))
    {
      mp_cli_error ("unknown format '%s' (known: %s)", o->format, o->formats);
      return FALSE;
    }
  if (implied && !g_str_equal (implied, o->format))
    {
      mp_cli_error ("--format %s does not match the output file %s, whose name says %s", o->format,
                    o->output, implied);
      return FALSE;
    }
  return TRUE;
}

gboolean
mp_cli_output_is (const MpCliOutput *o, const char *format)
{
  return o->format && g_str_equal (o->format, format);
}

void
mp_cli_output_clear (MpCliOutput *o)
{
  g_clear_pointer (&o->output, g_free);
  g_clear_pointer (&o->format, g_free);
  g_clear_pointer (&o->format_help, g_free);
  g_clear_pointer (&o->entries, g_array_unref);
}
