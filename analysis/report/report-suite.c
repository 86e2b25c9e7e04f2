/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "memplan-analysis"

#include <errno.h>
#include <string.h>
#include <sys/stat.h>
#include <glib/gstdio.h>
#include <json-c/json.h>

#include "graph-private.h"
#include "json-util.h"
#include "memory-estimate.h"
#include "plan-io.h"
#include "report-suite.h"

static void
suite_file_free (MpSuiteFile *file)
{
  g_free (file->path);
  g_free (file->not_regular);
  g_free (file);
}

/* What a found path is when it is not a regular file (through links), or
 * NULL: a FIFO would block the read forever, a device could be endless. */
static char *
suite_file_kind (const char *path)
{
  GStatBuf st;

  if (g_stat (path, &st) != 0 || S_ISREG (st.st_mode))
    return NULL;
  if (S_ISFIFO (st.st_mode))
    return g_strdup ("a FIFO");
  if (S_ISSOCK (st.st_mode))
    return g_strdup ("a socket");
  if (S_ISCHR (st.st_mode) || S_ISBLK (st.st_mode))
    return g_strdup ("a device");
  return g_strdup ("not a regular file");
}

static void
add_file (GPtrArray *files, const char *path, gboolean scanned)
{
  MpSuiteFile *file = g_new0 (MpSuiteFile, 1);

  file->path = g_strdup (path);
  file->scanned = scanned;
  file->not_regular = scanned ? suite_file_kind (path) : NULL;
  g_ptr_array_add (files, file);
}

static gint
compare_strings (gconstpointer a, gconstpointer b)
{
  return strcmp (*(char *const *) a, *(char *const *) b);
}

/* What mp_input_load reads: graphs and traces (JSON), usage records (CSV),
 * ONNX models, PyTorch memory snapshots (pickles), each also gzip-compressed
 * (".json.gz"). */
static gboolean
is_graph_file (const char *name)
{
  static const char *suffixes[] = { ".json", ".csv", ".pickle", ".onnx" };

  for (guint i = 0; i < G_N_ELEMENTS (suffixes); i++)
    if (mp_file_has_suffix (name, suffixes[i]))
      return TRUE;
  return FALSE;
}

/* Every graph file below dir; symbolic links to folders are not
 * followed, so a loop of links cannot trap the scan. */
static gboolean
scan_dir (const char *dir, GPtrArray *found, GError **error)
{
  g_autoptr (GError) local = NULL;
  g_autoptr (GDir) d = g_dir_open (dir, 0, &local);
  const char *name;

  if (d == NULL)
    {
      mp_set_file_error (error, MP_ANALYSIS_ERROR_IO, dir, "cannot read the folder: %s",
                         local->message);
      return FALSE;
    }
  while ((name = g_dir_read_name (d)))
    {
      g_autofree char *path = NULL;

      if (name[0] == '.')
        continue;
      path = g_build_filename (dir, name, NULL);
      if (g_file_test (path, G_FILE_TEST_IS_DIR))
        {
          if (!g_file_test (path, G_FILE_TEST_IS_SYMLINK) && !scan_dir (path, found, error))
            return FALSE;
        }
      else if (is_graph_file (name))
        g_ptr_array_add (found, g_steal_pointer (&path));
    }
  return TRUE;
}

GPtrArray *
mp_suite_collect (char **inputs, GError **error)
{
  g_autoptr (GPtrArray) files = g_ptr_array_new_with_free_func ((GDestroyNotify) suite_file_free);

  for (guint i = 0; inputs && inputs[i]; i++)
    {
      g_autoptr (GPtrArray) found = NULL;

      if (!g_file_test (inputs[i], G_FILE_TEST_IS_DIR))
        {
          add_file (files, inputs[i], FALSE);
          continue;
        }
      found = g_ptr_array_new_with_free_func (g_free);
      if (!scan_dir (inputs[i], found, error))
        return NULL;
      g_ptr_array_sort (found, compare_strings);
      for (guint j = 0; j < found->len; j++)
        add_file (files, found->pdata[j], TRUE);
    }
  return g_steal_pointer (&files);
}

GPtrArray *
mp_suite_default_planners (void)
{
  /* a search cut off by a time budget returns whatever it reached in time */
  static const char *const time_bound[] = { "optimal", NULL };
  GPtrArray         *out = g_ptr_array_new ();
  guint              n;
  const MpPlannerInfo *all = mp_planners (&n);

  for (guint i = 0; i < n; i++)
    if (!g_strv_contains (time_bound, all[i].name))
      g_ptr_array_add (out, (gpointer) &all[i]);
  return out;
}

MpReport *
mp_suite_report_new (const MpSuiteOptions *options, char **inputs)
{
  MpReport *report = mp_report_new ();

  g_strfreev (report->planners);
  report->planners = g_new0 (char *, options->planners->len + 1);
  for (guint i = 0; i < options->planners->len; i++)
    report->planners[i] = g_strdup (((const MpPlannerInfo *) options->planners->pdata[i])->name);
  g_strfreev (report->inputs);
  report->inputs = g_strdupv (inputs);
  report->alignment = options->lifetimes.alignment;
  report->plan_inputs = options->lifetimes.plan_inputs;
  report->max_parallel_ops = options->planner.max_parallel_ops;
  report->time_budget = options->planner.time_budget;
  report->keep_going = options->keep_going;
  if (options->schedule == MP_PLAN_SCHEDULE_SEQUENTIAL)
    report->schedule = g_strdup ("sequential");
  if (options->order != MP_ORDER_GIVEN)
    report->order = g_strdup (mp_order_method_name (options->order));
  if (options->dims)
    {
      g_strfreev (report->dims);
      report->dims = g_strdupv ((char **) options->dims);
    }
  return report;
}

char *
mp_path_relative (const char *dir, const char *path)
{
  g_autofree char *d = g_canonicalize_filename (dir, NULL);
  g_autofree char *p = g_canonicalize_filename (path, NULL);
  g_auto (GStrv) dc = g_strsplit (d, G_DIR_SEPARATOR_S, -1);
  g_auto (GStrv) pc = g_strsplit (p, G_DIR_SEPARATOR_S, -1);
  GString *out = g_string_new (NULL);
  guint    common = 0;

  /* components start with "" for the root; "/" itself splits into two */
  while (dc[common] && pc[common] && *dc[common] == *pc[common] &&
         g_str_equal (dc[common], pc[common]))
    common++;
  if (common <= 1 || (common == 2 && *dc[1] == '\0'))
    {
      g_string_free (out, TRUE);
      return g_steal_pointer (&p);
    }
  for (guint i = common; dc[i]; i++)
    if (*dc[i])
      g_string_append (out, ".." G_DIR_SEPARATOR_S);
  for (guint i = common; pc[i]; i++)
    {
      g_string_append (out, pc[i]);
      if (pc[i + 1])
        g_string_append_c (out, G_DIR_SEPARATOR);
    }
  if (out->len == 0)
    g_string_append_c (out, '.');
  else if (out->str[out->len - 1] == G_DIR_SEPARATOR)
    g_string_truncate (out, out->len - 1);
  return g_string_free (out, FALSE);
}

/* A plan or report sitting among the graphs (our own output, often) is
 * not a graph to plan; a file with another or no format still is an error. */
static gboolean
is_other_memplan_document (const char *path)
{
  g_autofree char *data = NULL;
  gsize            length;
  json_object     *root, *v;
  gboolean         other = FALSE;

  if (!mp_file_has_suffix (path, ".json") || !mp_read_file (path, &data, &length, NULL))
    return FALSE;
  if (!(root = mp_json_parse (data, length, path, NULL)))
    return FALSE;
  if (json_object_is_type (root, json_type_object) &&
      json_object_object_get_ex (root, "format", &v) && json_object_is_type (v, json_type_string))
    {
      const char *format = json_object_get_string (v);

      other = g_str_has_prefix (format, "memplan.") && !g_str_has_prefix (format, "memplan.graph/");
    }
  json_object_put (root);
  return other;
}

static char *
file_sha256 (const char *path)
{
  g_autoptr (GChecksum) sum = g_checksum_new (G_CHECKSUM_SHA256);
  guchar buffer[64 * 1024];
  FILE  *f = mp_file_open_input (path, NULL);
  gsize  n;

  if (f == NULL)
    return NULL;
  while ((n = fread (buffer, 1, sizeof buffer, f)) > 0)
    g_checksum_update (sum, buffer, n);
  if (ferror (f))
    {
      fclose (f);
      return NULL;
    }
  fclose (f);
  return g_strdup (g_checksum_get_string (sum));
}

/* plans_dir/NAME.plan.json, NAME made safe for a file name and unique. */
static char *
plans_file_name (const MpReport *report, const char *plans_dir, const char *graph_name)
{
  g_autofree char *safe = g_strdup (graph_name);
  char            *path = NULL;

  g_strcanon (safe, G_CSET_A_2_Z G_CSET_a_2_z G_CSET_DIGITS "._-", '_');
  for (guint n = 1; path == NULL; n++)
    {
      g_autofree char *base = n == 1 ? g_strdup_printf ("%s.plan.json", safe)
                                     : g_strdup_printf ("%s-%u.plan.json", safe, n);
      gboolean         taken = FALSE;

      path = g_build_filename (plans_dir, base, NULL);
      for (guint i = 0; i < report->graphs->len && !taken; i++)
        {
          const MpReportGraph *g = report->graphs->pdata[i];

          taken = g->plans && g_str_has_suffix (g->plans, base) &&
                  (strlen (g->plans) == strlen (base) ||
                   g->plans[strlen (g->plans) - strlen (base) - 1] == G_DIR_SEPARATOR);
        }
      if (taken)
        g_clear_pointer (&path, g_free);
    }
  return path;
}

static char *
stored_path (const MpSuiteOptions *options, const char *path)
{
  return options->relative_to ? mp_path_relative (options->relative_to, path) : g_strdup (path);
}

static gboolean
write_plans (MpReport *report, MpReportGraph *entry, const MpGraph *graph, GPtrArray *plans,
             const MpSuiteOptions *options, GError **error)
{
  g_autofree char *path = NULL;
  g_autofree char *text = NULL;

  if (g_mkdir_with_parents (options->plans_dir, 0755) != 0)
    {
      mp_set_file_error (error, MP_ANALYSIS_ERROR_IO, options->plans_dir,
                         "cannot create the folder: %s", g_strerror (errno));
      return FALSE;
    }
  path = plans_file_name (report, options->plans_dir, entry->name);
  text = mp_plan_to_json (graph, (MpPlan **) plans->pdata, plans->len);
  if (!mp_write_file_atomic (path, text, -1, error))
    return FALSE;
  entry->plans = stored_path (options, path);
  if (report->plan_files == NULL)
    report->plan_files = g_ptr_array_new_with_free_func (g_free);
  g_ptr_array_add (report->plan_files, g_steal_pointer (&path));
  return TRUE;
}

void
mp_suite_discard_plans (MpReport *report)
{
  for (guint i = 0; report->plan_files && i < report->plan_files->len; i++)
    g_unlink (report->plan_files->pdata[i]);
  g_clear_pointer (&report->plan_files, g_ptr_array_unref);
}

/* --repeat: the planner runs again for its time only, so that a compare can
 * tell a real change from the noise of one run. */
static gboolean
time_repeats (MpReportResult       *result,
              MpWorkload           *workload,
              const MpPlannerInfo  *info,
              const MpPlan         *first,
              const MpSuiteOptions *options,
              GCancellable         *cancellable,
              GError              **error)
{
  g_autofree gdouble *seconds = NULL;

  if (options->repeat < 2)
    return TRUE;
  seconds = g_new (gdouble, options->repeat);
  seconds[0] = first->seconds;
  for (guint i = 1; i < options->repeat; i++)
    {
      g_autoptr (GError) local = NULL;
      MpPlan *again = mp_workload_plan (workload, info, &options->planner, cancellable, &local);

      if (again == NULL)
        {
          /* it planned once; failing now is a cancel (or a budget's whim) */
          if (g_cancellable_is_cancelled (cancellable))
            {
              g_propagate_error (error, g_steal_pointer (&local));
              return FALSE;
            }
          mp_report_result_set_times (result, seconds, i);
          return TRUE;
        }
      seconds[i] = again->seconds;
      mp_plan_free (again);
    }
  mp_report_result_set_times (result, seconds, options->repeat);
  return TRUE;
}

/* Each planner's result in the report as it comes, its repeats timed at
 * once (the next planner would disturb them otherwise). */
typedef struct
{
  MpReportGraph        *entry;
  const MpSuiteOptions *options;
  GCancellable         *cancellable;
  GError               *error;   /* a repeat cancelled: the run stops there */
} Recording;

/* A graph that declares memories: the planner's spill into them, as plan
 * --memory reports it. A spill that fails leaves the result without. */
static void
record_spill (MpReportResult *result, const MpRunProgress *progress, Recording *r)
{
  const MpWorkload *w = progress->workload;
  g_autoptr (MpSpill) spill = NULL;

  spill = mp_spill_plan (w->graph, w->lifetimes, progress->planner, w->graph->memories,
                         w->graph->n_memories, &r->options->planner, r->cancellable, NULL);
  if (spill)
    mp_report_result_set_spill (result, spill);
}

static void
record_result (const MpRunProgress *progress, gpointer data)
{
  Recording *r = data;

  if (progress->event != MP_RUN_DONE || r->error)
    return;
  if (progress->plan == NULL)
    mp_report_graph_add_missed (r->entry, progress->planner->name,
                                g_error_matches (progress->error, MP_ANALYSIS_ERROR,
                                                 MP_ANALYSIS_ERROR_UNSUPPORTED)
                                  ? MP_RESULT_SKIPPED : MP_RESULT_FAILED,
                                progress->error->message);
  else
    {
      MpReportResult *result = mp_report_graph_add_plan (r->entry, progress->plan);

      time_repeats (result, progress->workload, progress->planner, progress->plan, r->options,
                    r->cancellable, &r->error);
      if (!r->error && progress->workload->graph->n_memories)
        record_spill (result, progress, r);
    }
}

MpSuiteOutcome
mp_suite_plan_file (MpReport *report, const MpSuiteFile *file, const MpSuiteOptions *options,
                    GCancellable *cancellable, GError **error)
{
  g_autoptr (GError) local = NULL;
  g_autoptr (MpWorkload) workload = NULL;
  MpWorkloadOptions wopts = { .alignment = options->lifetimes.alignment,
                              .plan_inputs = options->lifetimes.plan_inputs,
                              .max_parallel_ops = options->planner.max_parallel_ops,
                              /* one --dim for every file: each takes its own names */
                              .input.onnx.dims = options->dims,
                              .input.onnx.lenient_dims = TRUE,
                              .max_memory = options->max_memory,
                              .order = options->order,
                              .order_budget = options->order_budget,
                              .schedule = options->schedule };
  const MpGraph    *graph;
  const MpLifetimes *lt;
  g_autoptr (MpPlanRun) run = NULL;
  g_autoptr (GPtrArray) plans = g_ptr_array_new ();
  Recording         recording = { NULL, options, cancellable, NULL };
  MpRunOptions      ropts = { .planner = options->planner, .n_threads = 1, .keep_going = TRUE,
                              .progress = record_result, .progress_data = &recording };
  g_autofree char *stored = stored_path (options, file->path);
  MpReportGraph   *entry;

  if (file->not_regular)
    {
      g_set_error (error, MP_ANALYSIS_ERROR, MP_ANALYSIS_ERROR_IO,
                   "%s: skipped: %s, not a regular file", file->path, file->not_regular);
      return MP_SUITE_SKIPPED;
    }
  /* a graph too big for the memory is a graph that did not load */
  if (!(workload = mp_workload_open (file->path, &wopts, &local)) &&
      wopts.order != MP_ORDER_GIVEN &&
      g_error_matches (local, MP_ANALYSIS_ERROR, MP_ANALYSIS_ERROR_UNSUPPORTED))
    {
      /* records and traces have no dependencies: they keep their order */
      g_clear_error (&local);
      wopts.order = MP_ORDER_GIVEN;
      workload = mp_workload_open (file->path, &wopts, &local);
    }
  if (workload == NULL)
    {
      if (file->scanned &&
          g_error_matches (local, MP_ANALYSIS_ERROR, MP_ANALYSIS_ERROR_FORMAT) &&
          is_other_memplan_document (file->path))
        return MP_SUITE_NOT_A_GRAPH;
      if (options->keep_going)
        {
          entry = mp_report_add_graph (report, stored, stored);
          entry->error = g_strdup (local->message);
          entry->sha256 = file_sha256 (file->path);
        }
      g_propagate_error (error, g_steal_pointer (&local));
      return MP_SUITE_FAILED;
    }

  graph = workload->graph;
  lt = workload->lifetimes;
  entry = mp_report_add_graph (report, graph->name, stored);
  entry->sha256 = file_sha256 (file->path);
  entry->n_tensors = graph->n_tensors;
  entry->n_records = lt->n_records;
  entry->n_steps = lt->n_steps;
  entry->lower_bound = lt->lower_bound;
  entry->workspace = lt->workspace;
  recording.entry = entry;
  run = mp_workload_run (workload, (const MpPlannerInfo * const *) options->planners->pdata,
                         options->planners->len, &ropts, cancellable, &local);
  if (recording.error || g_cancellable_is_cancelled (cancellable))
    {
      mp_report_remove_graph (report, entry);
      if (recording.error)
        g_propagate_error (error, g_steal_pointer (&recording.error));
      else if (!g_cancellable_set_error_if_cancelled (cancellable, error))
        g_propagate_error (error, g_steal_pointer (&local));
      return MP_SUITE_ABORTED;
    }
  if (run == NULL)
    {
      /* refused before any planner ran (the memory check): each is missed */
      for (guint i = 0; i < options->planners->len; i++)
        mp_report_graph_add_missed (entry,
                                    ((const MpPlannerInfo *) options->planners->pdata[i])->name,
                                    MP_RESULT_FAILED, local->message);
      return MP_SUITE_PLANNED;
    }
  /* the planners' plans; a trace's observed layout is not one */
  for (guint i = 0; i < run->plans->len; i++)
    if (run->plans->pdata[i] != workload->observed)
      g_ptr_array_add (plans, run->plans->pdata[i]);
  if (options->plans_dir && !write_plans (report, entry, graph, plans, options, error))
    {
      mp_report_remove_graph (report, entry);
      return MP_SUITE_ABORTED;
    }
  return MP_SUITE_PLANNED;
}
