/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

/* A graph and its lifetimes, as both executor tests (CPU and CUDA) load them. */

#include "memplan-analysis.h"
#include "test-util.h"

/* The regression: t1 and t2, which nobody reads, written in one
 * parallel group by ops on two streams; two_dead_plan puts both at 0. */
static const char two_dead_json[] =
  "{\"format\": \"memplan.graph/1\", \"name\": \"two-dead\", \"alignment\": 16,"
  " \"tensors\": [{\"name\": \"x\", \"size\": 64, \"kind\": \"input\"},"
  "  {\"name\": \"t1\", \"size\": 256}, {\"name\": \"t2\", \"size\": 256},"
  "  {\"name\": \"y\", \"size\": 64, \"kind\": \"output\"}],"
  " \"ops\": [{\"name\": \"a\", \"stream\": 0, \"inputs\": [\"x\"], \"outputs\": [\"t1\"]},"
  "  {\"name\": \"b\", \"stream\": 1, \"inputs\": [\"x\"], \"outputs\": [\"t2\"]},"
  "  {\"name\": \"c\", \"stream\": 0, \"inputs\": [\"x\"], \"outputs\": [\"y\"]}]}";

static inline MpPlan *
two_dead_plan (const MpGraph *graph, const MpLifetimes *lt)
{
  MpPlan *plan = mp_plan_new ("by-hand", lt);

  /* t1 and t2 at 0, y after them */
  for (guint i = 0; i < plan->n_records; i++)
    plan->offsets[i] = g_str_equal (graph->tensors[plan->records[i].tensor].name, "y") ? 256 : 0;
  mp_plan_finish (plan);
  return plan;
}

typedef struct
{
  MpGraph     *graph;
  MpLifetimes *lt;
} Loaded;

static inline void
loaded_clear (Loaded *l)
{
  g_clear_pointer (&l->lt, mp_lifetimes_free);
  g_clear_pointer (&l->graph, mp_graph_free);
}
G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (Loaded, loaded_clear)

static inline void
loaded_lifetimes (Loaded *l)
{
  GError *error = NULL;

  l->lt = mp_lifetimes_compute (l->graph, NULL, &error);
  g_assert_no_error (error);
}

static inline void
load_json (Loaded *l, const char *json)
{
  GError *error = NULL;

  l->graph = mp_graph_parse_json (json, strlen (json), "test.json", &error);
  g_assert_no_error (error);
  loaded_lifetimes (l);
}

/* A sample graph from data/; FALSE when it is not there. */
static inline gboolean
load_sample (Loaded *l, const char *name)
{
  g_autofree char *path = test_data_path (name);
  GError          *error = NULL;

  if (!g_file_test (path, G_FILE_TEST_EXISTS))
    return FALSE;
  l->graph = test_graph_load (path, &error);
  g_assert_no_error (error);
  loaded_lifetimes (l);
  return TRUE;
}

/* The planner's plan, with a short budget for optimal. */
static inline MpPlan *
plan_with (const Loaded *l, const char *planner)
{
  const MpPlannerInfo *info = mp_planner_lookup (planner);
  MpPlannerOptions     popts = { .time_budget = 0.5 };
  GError              *error = NULL;
  MpPlan              *plan;

  g_assert_nonnull (info);
  plan = mp_planner_run (info, l->graph, l->lt, &popts, NULL, &error);
  g_assert_no_error (error);
  return plan;
}
