/* SPDX-License-Identifier: GPL-3.0-or-later */
#include <string.h>

#include "fuzz-loaders.h"
#include "memplan-analysis.h"

/* What a loaded file goes through next in memplan (lifetimes, a planner, the
 * validator), so a file that loads but breaks a later stage is found too. */
static gboolean
plan_graph (const MpGraph *graph, GError **error)
{
  g_autoptr (MpLifetimes) lt = NULL;
  g_autoptr (MpPlan) plan = NULL;

  if (!(lt = mp_lifetimes_compute (graph, NULL, error)))
    return FALSE;
  if (!(plan = mp_planner_run (mp_planner_lookup ("greedy-by-size"), graph, lt, NULL, NULL, error)))
    return FALSE;
  mp_plan_check (graph, plan);
  if (!plan->valid)
    g_error ("greedy-by-size made an invalid plan: %s", plan->problem);
  return TRUE;
}

static gboolean
feed_graph_json (const char *data, gsize length, const char *path, GError **error)
{
  g_autoptr (MpGraph) graph = mp_graph_parse_json (data, length, path, error);

  return graph != NULL && plan_graph (graph, error);
}

static gboolean
feed_csv (const char *data, gsize length, const char *path, GError **error)
{
  g_autofree guint64 *offsets = NULL;
  g_autoptr (MpGraph) graph = mp_graph_parse_csv (data, length, path, &offsets, error);

  return graph != NULL && plan_graph (graph, error);
}

static gboolean
feed_trace (const char *data, gsize length, const char *path, GError **error)
{
  g_autoptr (MpTrace) trace = mp_trace_parse (data, length, path, NULL, error);
  g_autoptr (MpLifetimes) lt = NULL;
  g_autoptr (MpPlan) observed = NULL;

  if (trace == NULL || !plan_graph (trace->graph, error))
    return FALSE;
  if (!(lt = mp_lifetimes_compute (trace->graph, NULL, error)))
    return FALSE;
  observed = mp_trace_observed_plan (trace, lt);
  mp_plan_check (trace->graph, observed);
  return TRUE;
}

/* An ONNX model with the samples' symbolic dimensions bound, planned, then
 * written as memplan.graph/1, which must load back. */
static gboolean
feed_onnx (const char *data, gsize length, const char *path, GError **error)
{
  static const char *const dims[] = { "batch=2", "seq=3", NULL };
  MpOnnxOptions            options = { dims, FALSE };
  g_autoptr (MpGraph) graph = mp_onnx_parse (data, length, path, &options, error);
  g_autoptr (MpGraph) again = NULL;
  g_autoptr (GError) local = NULL;
  g_autofree char *json = NULL;

  if (graph == NULL || !plan_graph (graph, error))
    return FALSE;
  json = mp_graph_to_json (graph);
  if (!(again = mp_graph_parse_json (json, strlen (json), "written-back", &local)))
    g_error ("an ONNX graph written as JSON does not load: %s", local->message);
  return TRUE;
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
    mp_plan_check (graph, plans->pdata[i]);
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

static const MpFuzzTarget targets[] = {
  { "graph-json", feed_graph_json },
  { "minimalloc-csv", feed_csv },
  { "chrome-trace", feed_trace },
  { "snapshot-pickle", feed_trace },
  { "plan", feed_plan },
  { "report", feed_report },
  { "onnx", feed_onnx },
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
