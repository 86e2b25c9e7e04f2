/* SPDX-License-Identifier: GPL-3.0-or-later */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include <glib/gstdio.h>

#include "file-util.h"
#include "fuzz-loaders.h"
#include "memplan-analysis.h"
#include "lifetimes.h"
#include "memplan-render.h"

/* What a loaded file goes through next in memplan (lifetimes, a planner, the
 * validator), so a file that loads but breaks a later stage is found too. */
static gboolean
plan_workload (MpWorkload *w, GError **error)
{
  g_autoptr (MpPlan) plan = NULL;

  if (!(plan = mp_workload_plan (w, mp_planner_lookup ("greedy-by-size"), NULL, NULL, error)))
    return FALSE;
  if (!plan->valid)
    g_error ("greedy-by-size made an invalid plan: %s", plan->problem);
  return TRUE;
}

/* Every input goes in by content, as the front-ends open it. */
static gboolean
feed_input (const char *data, gsize length, const char *path, GError **error)
{
  g_autoptr (MpInput) input = mp_input_parse (data, length, path, NULL, error);
  g_autoptr (MpWorkload) w = NULL;

  if (input == NULL || !(w = mp_workload_new_from_input (g_steal_pointer (&input), NULL, error)))
    return FALSE;
  return plan_workload (w, error);
}

/* An ONNX model with the samples' symbolic dimensions bound, planned, then
 * written as memplan.graph/1, which must load back. */
static gboolean
feed_onnx (const char *data, gsize length, const char *path, GError **error)
{
  static const char *const dims[] = { "batch=2", "seq=3", NULL };
  MpOnnxOptions            options = { dims, FALSE, 0, TRUE };
  g_autoptr (MpGraph) graph = mp_onnx_parse (data, length, path, &options, error);
  g_autoptr (MpGraph) again = NULL;
  g_autoptr (GError) local = NULL;
  g_autofree char *json = NULL;

  g_autoptr (MpWorkload) w = NULL;

  if (graph == NULL)
    return FALSE;
  json = mp_graph_to_json (graph);
  if (!(again = mp_graph_parse_json (json, strlen (json), "written-back", &local)))
    g_error ("an ONNX graph written as JSON does not load: %s", local->message);
  if (!(w = mp_workload_new (g_steal_pointer (&graph), NULL, error)))
    return FALSE;
  return plan_workload (w, error);
}

/* The graph that plan inputs are read against: small, with a view, a
 * parameter and a workspace, like the seeds in tests/fuzz-seeds/plan-json. */
static const char plan_graph_json[] =
  "{\"format\": \"memplan.graph/1\", \"name\": \"fuzz\", \"alignment\": 64,"
  " \"tensors\": ["
  "  {\"name\": \"x\", \"size\": 4096, \"kind\": \"input\"},"
  "  {\"name\": \"w\", \"size\": 1024, \"kind\": \"param\"},"
  "  {\"name\": \"a\", \"size\": 8192},"
  "  {\"name\": \"b\", \"size\": 8192},"
  "  {\"name\": \"v\", \"view_of\": \"b\", \"offset\": 0, \"size\": 4096},"
  "  {\"name\": \"c\", \"size\": 2048},"
  "  {\"name\": \"y\", \"size\": 64, \"kind\": \"output\"}],"
  " \"ops\": ["
  "  {\"name\": \"op1\", \"inputs\": [\"x\", \"w\"], \"outputs\": [\"a\"], \"workspace\": 512},"
  "  {\"name\": \"op2\", \"inputs\": [\"a\"], \"outputs\": [\"b\"]},"
  "  {\"name\": \"op3\", \"inputs\": [\"b\"], \"outputs\": [\"v\"]},"
  "  {\"name\": \"op4\", \"inputs\": [\"v\", \"a\"], \"outputs\": [\"c\"]},"
  "  {\"name\": \"op5\", \"inputs\": [\"c\"], \"outputs\": [\"y\"]}]}";

static gboolean
feed_plan (const char *data, gsize length, const char *path, GError **error)
{
  g_autoptr (MpGraph) graph = NULL;
  g_autoptr (MpLifetimes) lt = NULL;
  g_autoptr (GPtrArray) plans = NULL;

  graph = mp_graph_parse_json (plan_graph_json, strlen (plan_graph_json), "fuzz-graph", NULL);
  lt = mp_lifetimes_compute (graph, NULL, NULL);
  g_assert (graph != NULL && lt != NULL);
  if (!(plans = mp_plan_parse (data, length, path, graph, lt, error)))
    return FALSE;
  for (guint i = 0; i < plans->len; i++)
    mp_plan_judge (graph, NULL, plans->pdata[i]);
  return TRUE;
}

/* A report is read, written back and read again (the writer's output must
 * load), then compared with itself through every output format. */
static gboolean
feed_report (const char *data, gsize length, const char *path, GError **error)
{
  g_autoptr (MpReport) report = mp_report_parse (data, length, path, error);
  g_autoptr (MpReport) again = NULL;
  g_autoptr (MpComparison) comparison = NULL;
  g_autoptr (GError) local = NULL;
  g_autofree char *text = NULL, *table = NULL, *json = NULL, *markdown = NULL;
  MpCompareOptions options;

  if (report == NULL)
    return FALSE;
  text = mp_report_to_json (report);
  if (!(again = mp_report_parse (text, strlen (text), "written-back", &local)))
    g_error ("a report written back does not load: %s", local->message);
  mp_compare_options_init (&options);
  comparison = mp_report_compare (report, again, &options);
  table = mp_comparison_to_table (comparison, "base", "new");
  json = mp_comparison_to_json (comparison, "base", "new");
  markdown = mp_comparison_to_markdown (comparison, "base", "new");
  return TRUE;
}

/* compare on two reports from one input, BASE FF NEW [FF OPTIONS] (a form
 * feed cannot occur in JSON outside a string, where it is invalid too);
 * without a form feed the input is compared with itself. OPTIONS is up to
 * three words: the tolerance, the time tolerance ("0.5%", as on the command
 * line) and "fail-on-time". The comparison is checked against its own counts
 * and written in every format. */
static gboolean
feed_compare (const char *data, gsize length, const char *path, GError **error)
{
  const char *ff = memchr (data, '\f', length);
  gsize       base_length = ff ? (gsize) (ff - data) : length;
  const char *new_data = ff ? ff + 1 : data;
  gsize       new_length = ff ? length - base_length - 1 : length;
  const char *ff2 = ff ? memchr (new_data, '\f', new_length) : NULL;
  g_autoptr (MpReport) base = NULL;
  g_autoptr (MpReport) new_report = NULL;
  g_autoptr (MpComparison) comparison = NULL;
  g_autofree char *table = NULL, *json = NULL, *markdown = NULL;
  MpCompareOptions options;
  guint            counted = 0, failures = 0;

  mp_compare_options_init (&options);
  if (ff2)
    {
      g_autofree char *words = g_strndup (ff2 + 1, new_length - (gsize) (ff2 + 1 - new_data));
      g_auto (GStrv) argv = g_strsplit (words, " ", 3);

      new_length = (gsize) (ff2 - new_data);
      if (argv[0] && !mp_parse_percentage (argv[0], &options.tolerance))
        mp_compare_options_init (&options);
      if (argv[0] && argv[1] && !mp_parse_percentage (argv[1], &options.time_tolerance))
        options.time_tolerance = 0.5;
      options.fail_on_time = argv[0] && argv[1] && argv[2] && g_str_equal (argv[2], "fail-on-time");
    }
  if (!(base = mp_report_parse (data, base_length, path, error)) ||
      !(new_report = mp_report_parse (new_data, new_length, path, error)))
    return FALSE;
  comparison = mp_report_compare (base, new_report, &options);
  for (guint i = 0; i < MP_CHANGE_N; i++)
    counted += comparison->counts[i];
  for (guint i = 0; i < comparison->rows->len; i++)
    failures += ((MpCompareRow *) comparison->rows->pdata[i])->failure;
  if (failures != comparison->n_failures)
    g_error ("compare counted %u failures, its rows hold %u", comparison->n_failures, failures);
  if (counted != comparison->rows->len)
    g_error ("compare counted %u changes over %u rows", counted, comparison->rows->len);
  /* a report against itself: nothing better, worse, faster or slower */
  if (ff == NULL &&
      (comparison->counts[MP_CHANGE_BETTER] || comparison->counts[MP_CHANGE_WORSE] ||
       comparison->counts[MP_CHANGE_WITHIN] || comparison->counts[MP_CHANGE_ONLY_BASE] ||
       comparison->counts[MP_CHANGE_ONLY_NEW] || comparison->time_counts[MP_TIME_FASTER] ||
       comparison->time_counts[MP_TIME_SLOWER]))
    g_error ("a report compared with itself changed");
  table = mp_comparison_to_table (comparison, "base", "new");
  json = mp_comparison_to_json (comparison, "base", "new");
  markdown = mp_comparison_to_markdown (comparison, "base", "new");
  return TRUE;
}

static void
ignore_note (const char *path, const char *text)
{
}

/* The file readers (gzip or not) on a file of these bytes: whole, as every
 * loader reads it, and the head, as the format sniff reads it; when the
 * whole reads, the head is its first bytes. Files are what they read, so
 * the bytes go to a scratch file first: one per process, since the reader
 * remembers each path it has noted. */
static gboolean
feed_gzip (const char *data, gsize length, const char *path, GError **error)
{
  static char     *file;
  g_autofree char *contents = NULL, *head = NULL;
  g_autoptr (GError) local = NULL;
  gsize            n, head_n;
  gboolean         ok, head_ok;
  int              fd;

  if (file == NULL)
    {
      fd = g_file_open_tmp ("memplan-fuzz-XXXXXX.gz", &file, NULL);

      g_assert (fd >= 0);
      close (fd);
      mp_file_set_note_func (ignore_note);
    }
  /* not g_file_set_contents: its fsync would make this target crawl */
  if ((fd = g_open (file, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600)) < 0 ||
      write (fd, data, length) != (gssize) length || close (fd) != 0)
    g_error ("%s: %s", file, g_strerror (errno));
  ok = mp_read_file (file, &contents, &n, &local);
  head_ok = mp_read_file_head (file, 4096, &head, &head_n);
  g_unlink (file);
  if (ok && (!head_ok || head_n != MIN (n, 4096) || memcmp (head, contents, head_n) != 0))
    g_error ("the sniff's head (%" G_GSIZE_FORMAT " bytes) is not the start of the file's "
             "%" G_GSIZE_FORMAT, head_n, n);
  if (ok)
    return TRUE;
  /* named after the input, as the loaders' errors are */
  g_assert (g_str_has_prefix (local->message, file));
  g_set_error (error, local->domain, local->code, "%s%s", path, local->message + strlen (file));
  return FALSE;
}

/* An input as the front-ends open it, into a workload; NULL with error set. */
static MpWorkload *
open_input (const char *data, gsize length, const char *path, GError **error)
{
  g_autoptr (MpInput) input = mp_input_parse (data, length, path, NULL, error);

  return input ? mp_workload_new_from_input (g_steal_pointer (&input), NULL, error) : NULL;
}

/* The search's budget: long enough to run, short enough for a fuzzer. */
static const MpPlannerOptions quick = { .time_budget = 0.01 };

/* Every planner on every input that loads: a planner may decline (a CSV
 * for one that needs ops) with a reason, but a plan it makes is valid. */
static gboolean
feed_all_planners (const char *data, gsize length, const char *path, GError **error)
{
  g_autoptr (MpWorkload) w = open_input (data, length, path, error);
  guint                  n;
  const MpPlannerInfo   *infos = mp_planners (&n);

  if (w == NULL)
    return FALSE;
  for (guint i = 0; i < n; i++)
    {
      g_autoptr (GError) local = NULL;
      g_autoptr (MpPlan) plan = mp_workload_plan (w, &infos[i], &quick, NULL, &local);

      if (plan == NULL && local == NULL)
        g_error ("%s declined without a reason", infos[i].name);
      if (plan && !plan->valid)
        g_error ("%s made an invalid plan: %s", infos[i].name, plan->problem);
    }
  return TRUE;
}

/* explain: each planner's decisions recorded and told in words. */
static gboolean
feed_explain (const char *data, gsize length, const char *path, GError **error)
{
  g_autoptr (MpWorkload) w = open_input (data, length, path, error);
  guint                  n;
  const MpPlannerInfo   *infos = mp_planners (&n);

  if (w == NULL)
    return FALSE;
  for (guint i = 0; i < n; i++)
    {
      g_autoptr (MpDecisionTrace) trace = mp_decision_trace_new ();
      g_autoptr (MpPlan) plan = NULL;
      g_autofree char *text = NULL;
      MpPlannerOptions options = quick;

      options.trace = trace;
      if ((plan = mp_workload_plan (w, &infos[i], &options, NULL, NULL)))
        text = mp_decision_trace_explain (trace, w->graph, plan);
    }
  return TRUE;
}

/* The renderer on odd plans (any plan file against the fuzz graph, drawn
 * whole, zoomed into a few steps, in each colour key) on an offscreen
 * surface, and hit tests across it. */
static gboolean
feed_render (const char *data, gsize length, const char *path, GError **error)
{
  g_autoptr (MpGraph) graph = mp_graph_parse_json (plan_graph_json, strlen (plan_graph_json),
                                                   "fuzz-graph", NULL);
  g_autoptr (MpLifetimes) lt = mp_lifetimes_compute (graph, NULL, NULL);
  g_autoptr (GPtrArray) plans = mp_plan_parse (data, length, path, graph, lt, error);
  cairo_surface_t       *surface;
  cairo_t               *cr;

  if (plans == NULL)
    return FALSE;
  surface = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, 160, 90);
  cr = cairo_create (surface);
  for (guint i = 0; i < plans->len; i++)
    {
      MpRenderIndex  *index;
      MpRenderOptions options = { 0 };

      mp_plan_judge (graph, NULL, plans->pdata[i]);
      index = mp_render_index_new (graph, plans->pdata[i]);
      for (guint k = 0; k < 4; k++)
        {
          options.color_by = k;
          options.theme = k % 2 ? MP_THEME_DARK : MP_THEME_LIGHT;
          options.viewport = (MpViewport) { 0 };
          if (k == 3)
            {
              options.viewport.step_min = 1;
              options.viewport.step_max = 2.5;
            }
          mp_render_plan (cr, index, &options, 160, 90);
          for (guint x = 0; x < 160; x += 16)
            mp_render_hit_test (index, &options, 160, 90, x, 45);
        }
      mp_render_index_free (index);
    }
  cairo_destroy (cr);
  cairo_surface_destroy (surface);
  return TRUE;
}

static const MpFuzzTarget targets[] = {
  { "graph-json", feed_input },
  { "minimalloc-csv", feed_input },
  { "chrome-trace", feed_input },
  { "snapshot-pickle", feed_input },
  { "plan", feed_plan },
  { "report", feed_report },
  { "all-planners", feed_all_planners },
  { "explain", feed_explain },
  { "render", feed_render },
  { "onnx", feed_onnx },
  { "compare", feed_compare },
  { "gzip", feed_gzip },
};

const MpFuzzTarget *
mp_fuzz_targets (guint *n_targets)
{
  *n_targets = G_N_ELEMENTS (targets);
  return targets;
}

const MpFuzzTarget *
mp_fuzz_target_lookup (const char *name)
{
  for (guint i = 0; i < G_N_ELEMENTS (targets); i++)
    if (g_str_equal (targets[i].name, name))
      return &targets[i];
  return NULL;
}
