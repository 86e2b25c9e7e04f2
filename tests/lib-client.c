/* SPDX-License-Identifier: GPL-3.0-or-later */
/* A client of the installed libmemplan-1: compiled by check-install-lib.sh
 * with `pkg-config --cflags --libs memplan-1` against the installed headers
 * only (nothing of the source tree is on its include path), then run.
 *   lib-client DATADIR OUTDIR */
#include <memplan-render.h>
#include <string.h>

static const char *datadir, *outdir;

static MpPlan *
plan_buffers (const char *planner, MpWorkload **w_out)
{
  /* 10 B over steps 0-1, 20 B over 1-2, 5 B over 2-3 */
  static const guint64 sizes[] = { 10, 20, 5 };
  static const gint64  starts[] = { 0, 1, 2 }, ends[] = { 2, 3, 4 };
  const MpPlannerInfo *info = mp_planner_lookup (planner);
  g_autoptr (GError) error = NULL;
  MpGraph    *graph = mp_graph_new_buffers (NULL, sizes, starts, ends, 3, &error);
  MpWorkload *w;
  MpPlan     *plan;

  g_assert_no_error (error);
  w = mp_workload_new (graph, NULL, &error);
  g_assert_no_error (error);
  plan = mp_workload_plan (w, info, NULL, NULL, &error);
  g_assert_no_error (error);
  *w_out = w;
  return plan;
}

static void
test_buffers (void)
{
  g_autoptr (MpWorkload) w = NULL;
  g_autoptr (MpPlan) plan = plan_buffers ("greedy-by-size", &w);
  g_autofree char *verdict = NULL;

  /* by size: the 20 B buffer at 0, then 10 B and 5 B above it (they never meet) */
  g_assert_cmpuint (plan->offsets[0], ==, 20);
  g_assert_cmpuint (plan->offsets[1], ==, 0);
  g_assert_cmpuint (plan->offsets[2], ==, 20);
  g_assert_cmpuint (plan->arena, ==, 30);
  g_assert_cmpuint (plan->lower_bound, ==, 30);
  g_assert_true (mp_workload_judge (w, plan));
  verdict = mp_plan_verdict (plan);
  g_assert_cmpstr (verdict, ==, "valid");
}

static void
test_buffers_error (void)
{
  static const guint64 sizes[] = { 10, 20 };
  static const gint64  starts[] = { 0, 3 }, ends[] = { 2, 2 };
  g_autoptr (GError) error = NULL;

  g_assert_null (mp_graph_new_buffers (NULL, sizes, starts, ends, 2, &error));
  g_assert_error (error, MP_ANALYSIS_ERROR, MP_ANALYSIS_ERROR_INVALID);
  g_assert_cmpstr (error->message, ==,
                   "buffer 1: end 2 must be greater than start 3 (end is exclusive)");
}

static void
test_open_error (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (MpWorkload) w = mp_workload_open ("/nonexistent/graph.json", NULL, &error);

  g_assert_null (w);
  g_assert_nonnull (error);
  g_assert_nonnull (strstr (error->message, "/nonexistent/graph.json"));
}

/* open → plan → judge → write → render, as memplan-cli plan and render do */
static void
test_workload (void)
{
  g_autofree char *path = g_build_filename (datadir, "default.json", NULL);
  g_autofree char *png = g_build_filename (outdir, "client.png", NULL);
  g_autofree char *json = NULL, *csv = NULL, *bytes = NULL;
  g_autoptr (GError) error = NULL;
  g_autoptr (MpWorkload) w = mp_workload_open (path, NULL, &error);
  g_autoptr (MpPlanRun) run = NULL;
  guint            n;
  const MpPlannerInfo *all = mp_planners (&n);
  g_autoptr (GPtrArray) infos = g_ptr_array_new ();
  MpRenderIndex   *index;
  MpRenderOptions  options = { 0 };
  gsize            len;
  gint             best;

  g_assert_no_error (error);
  for (guint i = 0; i < n; i++)
    if (!(all[i].traits & MP_PLANNER_SEARCHES))
      g_ptr_array_add (infos, (gpointer) &all[i]);
  run = mp_workload_run (w, (const MpPlannerInfo * const *) infos->pdata, infos->len, NULL, NULL,
                         &error);
  g_assert_no_error (error);
  g_assert_true (run->all_valid);
  g_assert_cmpuint (run->plans->len, ==, infos->len);
  best = mp_plans_best ((MpPlan * const *) run->plans->pdata, run->plans->len);
  g_assert_cmpint (best, >=, 0);
  g_assert_cmpuint (((MpPlan *) run->plans->pdata[best])->arena, >=, w->lifetimes->lower_bound);
  json = mp_plan_to_json (w->graph, (MpPlan **) run->plans->pdata, run->plans->len);
  g_assert_nonnull (strstr (json, "\"format\": \"memplan.plan/1\""));
  csv = mp_plan_to_csv (w->graph, run->plans->pdata[best]);
  g_assert_nonnull (csv);
  index = mp_render_index_new (w->graph, run->plans->pdata[best]);
  g_assert_true (mp_render_write_file (png, MP_RENDER_FORMAT_PNG, &index, 1, &options, 800, 500,
                                       &error));
  g_assert_no_error (error);
  mp_render_index_free (index);
  g_assert_true (g_file_get_contents (png, &bytes, &len, NULL));
  g_assert_cmpmem (bytes, 8, "\x89PNG\r\n\x1a\n", 8);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_assert (argc == 3);
  datadir = argv[1];
  outdir = argv[2];
  g_test_add_func ("/lib/buffers/greedy-by-size", test_buffers);
  g_test_add_func ("/lib/buffers/error", test_buffers_error);
  g_test_add_func ("/lib/open/error", test_open_error);
  g_test_add_func ("/lib/workload/plan-judge-write-render", test_workload);
  return g_test_run ();
}
