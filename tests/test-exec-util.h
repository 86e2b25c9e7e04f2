/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

/* A graph and its lifetimes, as both executor tests (CPU and CUDA) load them. */

#include "memplan-analysis.h"
#include "test-util.h"

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
