/* SPDX-License-Identifier: GPL-3.0-or-later */
#include <math.h>
#include <string.h>

#include "test-files.h"
#include "test-util.h"

static MpReport *
load_fixture (const char *name)
{
  g_autofree char *dir = test_source_path ("tests/compare");
  g_autofree char *path = g_build_filename (dir, name, NULL);
  g_autoptr (GError) error = NULL;
  MpReport *report = mp_report_load (path, &error);

  g_assert_no_error (error);
  return report;
}

/* Planning times are the only part of a report that may differ between runs. */
static void
zero_seconds (MpReport *report)
{
  for (guint i = 0; i < report->graphs->len; i++)
    {
      MpReportGraph *g = report->graphs->pdata[i];

      for (guint j = 0; j < g->results->len; j++)
        ((MpReportResult *) g->results->pdata[j])->seconds = 0;
    }
}

static void
test_roundtrip (void)
{
  static const TestRecord recs[] = { { 64, 0, 1 }, { 32, 1, 2 }, { 64, 2, 3 } };
  g_autoptr (MpGraph) graph = test_graph_from_records (recs, G_N_ELEMENTS (recs));
  g_autoptr (MpLifetimes) lt = mp_lifetimes_compute (graph, NULL, NULL);
  g_autoptr (MpPlan) plan = test_run_planner ("greedy-by-size", graph, lt);
  g_autoptr (MpReport) report = mp_report_new ();
  g_autoptr (MpReport) back = NULL;
  g_autoptr (GError) error = NULL;
  g_autofree char *text = NULL;
  g_autofree char *again = NULL;
  MpReportGraph   *g, *bad;
  MpReportResult  *r;

  mp_plan_judge (graph, NULL, plan);
  plan->seconds = 0.5;
  g = mp_report_add_graph (report, "test", "test.csv");
  g->n_tensors = 3;
  g->n_records = 3;
  g->n_steps = 4;
  g->lower_bound = lt->lower_bound;
  mp_report_graph_add_plan (g, plan);
  plan->offsets[1] = 0; /* b1 now overlaps b0 at step 1 */
  mp_plan_finish (plan);
  plan->planner[0] = 'G';
  mp_plan_judge (graph, NULL, plan);
  mp_report_graph_add_plan (g, plan);
  mp_report_graph_add_missed (g, "multistream", MP_RESULT_SKIPPED, "needs ops");
  mp_report_graph_add_missed (g, "optimal", MP_RESULT_FAILED, "out of memory");
  bad = mp_report_add_graph (report, "test", "other/test.json");
  bad->error = g_strdup ("other/test.json: missing \"format\": \"memplan.graph/1\"");
  g_assert_cmpstr (bad->name, ==, "test #2");

  text = mp_report_to_json (report);
  back = mp_report_parse (text, strlen (text), "r.json", &error);
  g_assert_no_error (error);
  again = mp_report_to_json (back);
  g_assert_cmpstr (text, ==, again);

  g_assert_cmpuint (back->graphs->len, ==, 2);
  g = mp_report_find_graph (back, "test");
  g_assert_nonnull (g);
  g_assert_cmpuint (g->results->len, ==, 4);
  r = mp_report_graph_find (g, "greedy-by-size");
  g_assert_cmpint (r->status, ==, MP_RESULT_VALID);
  g_assert_cmpuint (r->arena, ==, 96);
  g_assert_cmpuint (r->lower_bound, ==, 96);
  g_assert_cmpfloat (r->ratio, ==, 1.0);
  g_assert_cmpfloat (r->seconds, ==, 0.5);
  r = mp_report_graph_find (g, "Greedy-by-size");
  g_assert_cmpint (r->status, ==, MP_RESULT_INVALID);
  g_assert_cmpstr (r->problem, ==, "tensors 'b0' (offset 0, 64 bytes, steps 0-1) and 'b1' "
                                   "(offset 0, 32 bytes, steps 1-2) overlap at step 1 in bytes "
                                   "[0, 32)");
  g_assert_cmpint (mp_report_graph_find (g, "multistream")->status, ==, MP_RESULT_SKIPPED);
  g_assert_cmpstr (mp_report_graph_find (g, "optimal")->problem, ==, "out of memory");
  g_assert_cmpstr (mp_report_find_graph (back, "test #2")->error, ==, bad->error);
  g_assert_cmpstr (back->memplan_version, ==, MEMPLAN_VERSION);
}

typedef struct
{
  const char *graph;
  const char *planner;
  MpChange    change;
  gboolean    failure;
  gint64      arena_change;
  MpTimeChange time;
  MpCells     cells;
} ExpectedRow;

static void
check_rows (const MpComparison *c, const ExpectedRow *rows, guint n)
{
  g_assert_cmpuint (c->rows->len, ==, n);
  for (guint i = 0; i < n; i++)
    {
      const MpCompareRow *row = c->rows->pdata[i];

      g_assert_cmpstr (row->graph, ==, rows[i].graph);
      g_assert_cmpstr (row->planner, ==, rows[i].planner);
      g_assert_cmpstr (mp_change_to_string (row->change), ==, mp_change_to_string (rows[i].change));
      g_assert_cmpint (row->failure, ==, rows[i].failure);
      g_assert_cmpint (row->arena_change, ==, rows[i].arena_change);
      g_assert_cmpint (row->time, ==, rows[i].time);
      g_assert_cmpint (row->cells, ==, rows[i].cells);
    }
}

#define AR (MP_CELL_ARENA | MP_CELL_RATIO | MP_CELL_FRAGMENTATION)

/* tests/compare/{base,new}.json differ in every way compare knows about. */
static void
test_compare_fixture (void)
{
  static const ExpectedRow rows[] = {
    { "alpha", "naive", MP_CHANGE_UNCHANGED, FALSE, 0, MP_TIME_SAME, 0 },
    { "alpha", "greedy-by-size", MP_CHANGE_WORSE, TRUE, 256, MP_TIME_SAME, AR },
    { "alpha", "best-fit", MP_CHANGE_BETTER, FALSE, -1024, MP_TIME_SAME, AR },
    { "alpha", "partition", MP_CHANGE_WITHIN, FALSE, 40, MP_TIME_SAME, AR },
    { "alpha", "multistream", MP_CHANGE_FIXED, FALSE, 1024, MP_TIME_SAME, AR | MP_CELL_VALID },
    { "beta", "naive", MP_CHANGE_UNCHANGED, FALSE, 0, MP_TIME_SLOWER, MP_CELL_TIME },
    { "beta", "greedy-by-size", MP_CHANGE_INVALID, TRUE, -40, MP_TIME_SAME, AR | MP_CELL_VALID },
    { "beta", "optimal", MP_CHANGE_ONLY_NEW, FALSE, 0, MP_TIME_NONE, 0 },
    /* a gate that lost a graph fails (issue 33, item 7) */
    { "gamma", NULL, MP_CHANGE_ONLY_BASE, TRUE, 0, MP_TIME_NONE, 0 },
    { "broken", NULL, MP_CHANGE_INVALID, TRUE, 0, MP_TIME_NONE, 0 },
    { "delta", NULL, MP_CHANGE_ONLY_NEW, FALSE, 0, MP_TIME_NONE, 0 },
  };
  g_autoptr (MpReport) base = load_fixture ("base.json");
  g_autoptr (MpReport) new_report = load_fixture ("new.json");
  g_autoptr (MpComparison) c = mp_report_compare (base, new_report, NULL);
  const MpCompareRow *row;

  check_rows (c, rows, G_N_ELEMENTS (rows));
  g_assert_cmpuint (c->n_failures, ==, 4);
  g_assert_true (mp_comparison_failed (c));
  g_assert_false (mp_comparison_unchanged (c));
  g_assert_cmpuint (c->counts[MP_CHANGE_UNCHANGED], ==, 2);
  g_assert_cmpuint (c->counts[MP_CHANGE_INVALID], ==, 2);
  g_assert_cmpuint (c->counts[MP_CHANGE_ONLY_NEW], ==, 2);
  g_assert_cmpuint (c->time_counts[MP_TIME_SLOWER], ==, 1);
  g_assert_cmpuint (c->notes->len, ==, 1);
  g_assert_cmpstr (c->notes->pdata[0], ==,
                   "graph 'alpha': the input file changed (graphs/alpha.json)");

  row = c->rows->pdata[1];
  g_assert_cmpfloat (row->arena_relative, ==, 0.125);
  row = c->rows->pdata[3];
  g_assert_cmpfloat_with_epsilon (row->arena_relative, 0.004, 1e-12);
  row = c->rows->pdata[5];
  g_assert_cmpfloat (row->time_change, ==, 0.75);
  g_assert_cmpfloat (row->time_relative, ==, 3.0);
  row = c->rows->pdata[6];
  g_assert_cmpstr (row->detail, ==, "invalid plan in NEW: tensors 'b3' and 'b7' overlap at step 5 "
                                    "(bytes 128 to 192)");
  row = c->rows->pdata[7];
  g_assert_null (row->base);
  g_assert_true (row->new->proved_optimal);
  g_assert_true (isnan (row->arena_relative));
  row = c->rows->pdata[9];
  g_assert_cmpstr (row->detail, ==, "graph failed to load in NEW: graphs/broken.json: op 'fc2' "
                                    "reads tensor 'h3', which no op produces");
}

static void
test_compare_options (void)
{
  g_autoptr (MpReport) base = load_fixture ("base.json");
  g_autoptr (MpReport) new_report = load_fixture ("new.json");
  MpCompareOptions o;

  mp_compare_options_init (&o);
  g_assert_cmpfloat (o.tolerance, ==, 0.005);
  g_assert_cmpfloat (o.time_tolerance, ==, 0.5);

  /* 10000 -> 10040 is +0.4%: a regression at 0.3% */
  o.tolerance = 0.003;
  {
    g_autoptr (MpComparison) c = mp_report_compare (base, new_report, &o);
    const MpCompareRow *row = c->rows->pdata[3];

    g_assert_cmpint (row->change, ==, MP_CHANGE_WORSE);
    g_assert_cmpuint (c->n_failures, ==, 5);
  }
  /* 2048 -> 2304 is +12.5%: exactly at the tolerance is still within */
  o.tolerance = 0.125;
  {
    g_autoptr (MpComparison) c = mp_report_compare (base, new_report, &o);

    g_assert_cmpint (((MpCompareRow *) c->rows->pdata[1])->change, ==, MP_CHANGE_WITHIN);
    g_assert_cmpint (((MpCompareRow *) c->rows->pdata[2])->change, ==, MP_CHANGE_BETTER);
    g_assert_cmpuint (c->n_failures, ==, 3);
  }
  /* beta/naive went from 0.25 s to 1 s: +300% */
  mp_compare_options_init (&o);
  o.fail_on_time = TRUE;
  {
    g_autoptr (MpComparison) c = mp_report_compare (base, new_report, &o);
    const MpCompareRow *row = c->rows->pdata[5];

    g_assert_true (row->failure);
    g_assert_cmpint (row->change, ==, MP_CHANGE_UNCHANGED);
    g_assert_cmpuint (c->n_failures, ==, 5);
  }
  o.time_tolerance = 3.0;
  {
    g_autoptr (MpComparison) c = mp_report_compare (base, new_report, &o);

    g_assert_cmpint (((MpCompareRow *) c->rows->pdata[5])->time, ==, MP_TIME_SAME);
    g_assert_cmpuint (c->n_failures, ==, 4);
  }
  /* --allow-missing: the lost graph is listed, not failed */
  mp_compare_options_init (&o);
  o.allow_missing = TRUE;
  {
    g_autoptr (MpComparison) c = mp_report_compare (base, new_report, &o);

    g_assert_false (((MpCompareRow *) c->rows->pdata[8])->failure);
    g_assert_cmpuint (c->n_failures, ==, 3);
  }
  /* a change under the noise floor never counts, whatever the ratio */
  o.time_floor = 1.0;
  o.time_tolerance = 0;
  {
    g_autoptr (MpComparison) c = mp_report_compare (base, new_report, &o);

    g_assert_cmpuint (c->time_counts[MP_TIME_SLOWER], ==, 0);
  }
}

/* An invalid plan in NEW fails even when BASE had the very same one. */
static void
test_compare_self (void)
{
  g_autoptr (MpReport) base = load_fixture ("base.json");
  g_autoptr (MpReport) same = load_fixture ("base.json");
  g_autoptr (MpComparison) c = mp_report_compare (base, same, NULL);

  g_assert_cmpuint (c->rows->len, ==, 9);
  g_assert_cmpuint (c->counts[MP_CHANGE_UNCHANGED], ==, 8);
  g_assert_cmpuint (c->counts[MP_CHANGE_INVALID], ==, 1);
  g_assert_cmpuint (c->n_failures, ==, 1);
  g_assert_cmpstr (((MpCompareRow *) c->rows->pdata[4])->planner, ==, "multistream");
  g_assert_true (((MpCompareRow *) c->rows->pdata[4])->failure);
}

/* A planner skipped on one side is as if absent there, and the row says why. */
static void
test_compare_skipped (void)
{
  static const TestRecord recs[] = { { 64, 0, 1 }, { 32, 1, 2 } };
  g_autoptr (MpGraph) graph = test_graph_from_records (recs, G_N_ELEMENTS (recs));
  g_autoptr (MpLifetimes) lt = mp_lifetimes_compute (graph, NULL, NULL);
  g_autoptr (MpPlan) plan = test_run_planner ("greedy-by-size", graph, lt);
  g_autoptr (MpReport) a = mp_report_new ();
  g_autoptr (MpReport) b = mp_report_new ();
  g_autoptr (MpComparison) ab = NULL;
  g_autoptr (MpComparison) ba = NULL;
  MpReportGraph *ga = mp_report_add_graph (a, "g", "g.csv");
  MpReportGraph *gb = mp_report_add_graph (b, "g", "g.csv");
  const MpCompareRow *row;

  mp_plan_judge (graph, NULL, plan);
  mp_report_graph_add_missed (ga, "greedy-by-size", MP_RESULT_SKIPPED, "needs ops");
  mp_report_graph_add_plan (gb, plan);
  mp_report_graph_add_missed (ga, "multistream", MP_RESULT_SKIPPED, "needs ops");
  mp_report_graph_add_missed (gb, "multistream", MP_RESULT_SKIPPED, "needs ops");

  ab = mp_report_compare (a, b, NULL);
  g_assert_cmpuint (ab->rows->len, ==, 1);
  row = ab->rows->pdata[0];
  g_assert_cmpint (row->change, ==, MP_CHANGE_ONLY_NEW);
  g_assert_cmpstr (row->detail, ==, "skipped in BASE: needs ops");
  g_assert_false (mp_comparison_failed (ab));

  ba = mp_report_compare (b, a, NULL);
  row = ba->rows->pdata[0];
  g_assert_cmpint (row->change, ==, MP_CHANGE_ONLY_BASE);
  g_assert_cmpstr (row->detail, ==, "skipped in NEW: needs ops");
}

static MpReport *
run_suite (char **inputs, const char *relative_to)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (GPtrArray) files = mp_suite_collect (inputs, &error);
  g_autoptr (GPtrArray) planners = g_ptr_array_new ();
  MpSuiteOptions options = { .planners = planners, .relative_to = relative_to };
  MpReport      *report;

  g_assert_no_error (error);
  g_ptr_array_add (planners, (gpointer) mp_planner_lookup ("naive"));
  g_ptr_array_add (planners, (gpointer) mp_planner_lookup ("greedy-by-size"));
  report = mp_suite_report_new (&options, inputs);
  for (guint i = 0; i < files->len; i++)
    {
      g_assert_cmpint (mp_suite_plan_file (report, files->pdata[i], &options, NULL, &error), ==,
                       MP_SUITE_PLANNED);
      g_assert_no_error (error);
    }
  return report;
}

/* A graph with memories: each result carries what the planner's spill put
 * in each memory, and reads back the same (data/mcu-cnn.json: greedy-by-size
 * keeps 12 tensors, 200 KiB, in its 256 KiB of SRAM and spills conv1's
 * 100 KiB to PSRAM). */
static void
test_suite_memories (void)
{
  g_autofree char *mcu = test_data_path ("mcu-cnn.json");
  char            *inputs[] = { mcu, NULL };
  g_autoptr (MpReport) report = run_suite (inputs, NULL);
  g_autoptr (MpReport) back = NULL;
  g_autoptr (GError) error = NULL;
  g_autofree char *text = mp_report_to_json (report);
  g_autofree char *again = NULL;
  MpReportResult  *r;
  MpReportMemory  *sram, *psram;

  back = mp_report_parse (text, strlen (text), "r.json", &error);
  g_assert_no_error (error);
  again = mp_report_to_json (back);
  g_assert_cmpstr (text, ==, again);
  r = mp_report_graph_find (mp_report_find_graph (back, "mcu-cnn"), "greedy-by-size");
  g_assert_nonnull (r->memories);
  g_assert_cmpuint (r->memories->len, ==, 2);
  sram = r->memories->pdata[0];
  psram = r->memories->pdata[1];
  g_assert_cmpstr (sram->name, ==, "sram");
  g_assert_cmpuint (sram->capacity, ==, 262144);
  g_assert_cmpuint (sram->arena, ==, 204800);
  g_assert_cmpuint (sram->n_tensors, ==, 12);
  g_assert_cmpuint (sram->n_spilled, ==, 0);
  g_assert_cmpstr (psram->name, ==, "psram");
  g_assert_cmpuint (psram->capacity, ==, 0);
  g_assert_cmpuint (psram->arena, ==, 102400);
  g_assert_cmpuint (psram->spilled_bytes, ==, 102400);
  g_assert_cmpuint (psram->n_spilled, ==, 1);
  g_assert_nonnull (strstr (text, "\"memories\": ["));
}

static void
test_suite_deterministic (void)
{
  g_autofree char *teaching = test_data_path ("teaching.json");
  g_autofree char *minimalloc = test_data_path ("minimalloc");
  char            *inputs[] = { teaching, minimalloc, NULL };
  static const char *names[] = { "teaching", "A.1048576", "B.1048576", "C.1048576", "D.1048576",
                                 "E.1048576", "example.12" };
  g_autoptr (MpReport) a = run_suite (inputs, NULL);
  g_autoptr (MpReport) b = run_suite (inputs, NULL);
  g_autofree char *ta = NULL;
  g_autofree char *tb = NULL;
  g_autoptr (MpComparison) c = mp_report_compare (a, b, NULL);

  g_assert_false (mp_comparison_failed (c));
  g_assert_cmpuint (c->counts[MP_CHANGE_UNCHANGED], ==, 2 * G_N_ELEMENTS (names));
  g_assert_cmpuint (a->graphs->len, ==, G_N_ELEMENTS (names));
  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    {
      MpReportGraph *g = a->graphs->pdata[i];

      g_assert_cmpstr (g->name, ==, names[i]);
      g_assert_cmpuint (g->results->len, ==, 2);
      g_assert_cmpint (((MpReportResult *) g->results->pdata[0])->status, ==, MP_RESULT_VALID);
      g_assert_cmpint (((MpReportResult *) g->results->pdata[1])->status, ==, MP_RESULT_VALID);
      g_assert_cmpuint (strlen (g->sha256), ==, 64);
    }
  /* known figures: MiniMalloc's example and A.1048576 (lower bound 1 MiB) */
  g_assert_cmpuint (mp_report_graph_find (a->graphs->pdata[6], "greedy-by-size")->arena, ==, 12);
  g_assert_cmpuint (((MpReportGraph *) a->graphs->pdata[1])->lower_bound, ==, 1048576);

  zero_seconds (a);
  zero_seconds (b);
  ta = mp_report_to_json (a);
  tb = mp_report_to_json (b);
  g_assert_cmpstr (ta, ==, tb);
}

/* Reports and plans found among the graphs are left out; anything else
 * that does not load is an error naming the file. */
static void
test_suite_scan (void)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *dir = g_dir_make_tmp ("memplan-suite-XXXXXX", &error);
  g_autofree char *expected = NULL;
  g_autofree char *report_text = NULL;
  g_autoptr (GPtrArray) files = NULL;
  g_autoptr (GPtrArray) planners = g_ptr_array_new ();
  g_autoptr (MpReport) report = NULL;
  MpSuiteOptions options = { .planners = planners, .keep_going = TRUE, .relative_to = dir };
  char          *inputs[] = { dir, NULL };
  static const char *order[] = { "a.csv", "b/c.csv", "b/report.json", "bad.json", "d.csv",
                                 "plans.json" };
  static const MpSuiteOutcome outcomes[] = { MP_SUITE_PLANNED, MP_SUITE_PLANNED,
                                             MP_SUITE_NOT_A_GRAPH, MP_SUITE_FAILED,
                                             MP_SUITE_PLANNED, MP_SUITE_NOT_A_GRAPH };

  g_assert_no_error (error);
  g_ptr_array_add (planners, (gpointer) mp_planner_lookup ("greedy-by-size"));
  test_write_file (dir, "d.csv", "id,lower,upper,size\nx,0,2,8\n");
  test_write_file (dir, "a.csv", "id,lower,upper,size\nx,0,2,8\ny,1,3,8\n");
  test_write_file (dir, "b/c.csv", "id,lower,upper,size\nx,0,2,16\n");
  test_write_file (dir, "b/report.json", "{\"format\": \"memplan.report/1\", \"graphs\": []}");
  test_write_file (dir, "bad.json", "{\"name\": \"bad\"}");
  test_write_file (dir, "plans.json", "{\"format\": \"memplan.plan/1\"}");
  test_write_file (dir, "notes.txt", "not a graph");
  test_write_file (dir, ".hidden.csv", "junk");

  files = mp_suite_collect (inputs, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (files->len, ==, G_N_ELEMENTS (order));
  report = mp_suite_report_new (&options, inputs);
  for (guint i = 0; i < files->len; i++)
    {
      MpSuiteFile     *f = files->pdata[i];
      g_autofree char *want = g_build_filename (dir, order[i], NULL);

      g_assert_cmpstr (f->path, ==, want);
      g_assert_true (f->scanned);
      g_clear_error (&error);
      g_assert_cmpint (mp_suite_plan_file (report, f, &options, NULL, &error), ==, outcomes[i]);
      if (outcomes[i] == MP_SUITE_FAILED)
        {
          expected = g_strdup_printf ("%s: missing \"format\": \"memplan.graph/1\"", f->path);
          g_assert_error (error, MP_ANALYSIS_ERROR, MP_ANALYSIS_ERROR_FORMAT);
          g_assert_cmpstr (error->message, ==, expected);
        }
      else
        g_assert_no_error (error);
    }
  /* graph names come from the file names: a.csv and b/c.csv... and d.csv */
  g_assert_cmpuint (report->graphs->len, ==, 4);
  g_assert_cmpstr (((MpReportGraph *) report->graphs->pdata[0])->name, ==, "a");
  g_assert_cmpstr (((MpReportGraph *) report->graphs->pdata[1])->name, ==, "c");
  g_assert_cmpstr (((MpReportGraph *) report->graphs->pdata[1])->file, ==, "b/c.csv");
  g_assert_cmpstr (((MpReportGraph *) report->graphs->pdata[2])->name, ==, "bad.json");
  g_assert_cmpstr (((MpReportGraph *) report->graphs->pdata[2])->error, ==, expected);
  g_assert_cmpuint (mp_report_graph_find (report->graphs->pdata[0], "greedy-by-size")->arena, ==,
                    16);

  /* named on the command line, a report is an error like any other file */
  {
    MpSuiteFile named = { NULL, FALSE };
    g_autofree char *path = g_build_filename (dir, "b", "report.json", NULL);
    g_autofree char *msg = g_strdup_printf ("%s: \"format\" is 'memplan.report/1', expected "
                                            "'memplan.graph/1'", path);

    named.path = path;
    options.keep_going = FALSE;
    g_clear_error (&error);
    g_assert_cmpint (mp_suite_plan_file (report, &named, &options, NULL, &error), ==,
                     MP_SUITE_FAILED);
    g_assert_cmpstr (error->message, ==, msg);
    g_assert_cmpuint (report->graphs->len, ==, 4);
  }

  /* --plans: one memplan.plan/1 per graph, named in the report */
  {
    g_autofree char *plans_dir = g_build_filename (dir, "plans", NULL);
    g_autofree char *plan_path = NULL;
    g_autofree char *expected_no_plans = NULL;
    g_autofree char *expected_changed = NULL;
    MpSuiteFile      f = { NULL, FALSE };
    MpReportGraph   *g;
    g_autoptr (MpWorkload) workload = NULL;
    g_autoptr (GPtrArray) plans = NULL;

    f.path = g_build_filename (dir, "a.csv", NULL);
    options.plans_dir = plans_dir;
    g_clear_error (&error);
    g_assert_cmpint (mp_suite_plan_file (report, &f, &options, NULL, &error), ==,
                     MP_SUITE_PLANNED);
    g = report->graphs->pdata[report->graphs->len - 1];
    g_assert_cmpstr (g->name, ==, "a #2");
    g_assert_cmpstr (g->plans, ==, "plans/a__2.plan.json");
    plan_path = mp_report_resolve (report, g->plans);
    g_assert_cmpstr (plan_path, ==, "plans/a__2.plan.json");
    report->path = g_build_filename (dir, "report.json", NULL);
    plans = mp_report_open_plans (report, g, &workload, &error);
    g_assert_no_error (error);
    g_assert_cmpuint (plans->len, ==, 1);
    g_assert_cmpstr (((MpPlan *) plans->pdata[0])->planner, ==, "greedy-by-size");
    g_assert_cmpuint (((MpPlan *) plans->pdata[0])->arena, ==, 16);
    g_assert_cmpstr (workload->graph->name, ==, "a");
    g_assert_cmpuint (workload->lifetimes->n_records, ==, 2);
    g_assert_true (((MpPlan *) plans->pdata[0])->valid);

    /* a graph without saved plans, and a graph file changed since */
    g_clear_pointer (&plans, g_ptr_array_unref);
    g_clear_pointer (&workload, mp_workload_unref);
    expected_no_plans = g_strdup_printf ("%s: graph 'a' has no saved plans (make the report "
                                         "with 'suite --plans DIR')", report->path);
    g_assert_null (mp_report_open_plans (report, report->graphs->pdata[0], &workload, &error));
    g_assert_cmpstr (error->message, ==, expected_no_plans);
    g_clear_error (&error);
    test_write_file (dir, "a.csv", "id,lower,upper,size\nx,0,2,8\ny,1,3,16\n");
    expected_changed = g_strdup_printf ("%s: the graph changed since the report was made "
                                        "(sha256 differs)", f.path);
    g_assert_null (mp_report_open_plans (report, g, &workload, &error));
    g_assert_cmpstr (error->message, ==, expected_changed);
    g_clear_error (&error);
    g_free (f.path);
  }

  report_text = mp_report_to_json (report);
  g_assert_nonnull (strstr (report_text, "\"file\": \"bad.json\""));
  test_remove_tree (dir);
}

static void
test_default_planners (void)
{
  g_autoptr (GPtrArray) planners = mp_suite_default_planners ();
  guint n;
  const MpPlannerInfo *all = mp_planners (&n);

  g_assert_cmpuint (planners->len, ==, n - (mp_planner_lookup ("optimal") != NULL));
  g_assert_true (planners->pdata[0] == &all[0]);
  for (guint i = 0; i < planners->len; i++)
    g_assert_cmpstr (((const MpPlannerInfo *) planners->pdata[i])->name, !=, "optimal");
}

static void
test_path_relative (void)
{
  static const char *cases[][3] = {
    { "/a/b", "/a/b/c.json", "c.json" },
    { "/a/b", "/a/c/d.json", "../c/d.json" },
    { "/a/b/", "/a/b/x/../y.csv", "y.csv" },
    { "/a", "/b/x.json", "/b/x.json" },
    { "/", "/x.json", "/x.json" },
    { "/a/b", "/a/b", "." },
    { "/a/b/c", "/a/x", "../../x" },
  };
  g_autofree char *cwd = g_get_current_dir ();
  g_autofree char *rel = NULL;

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *got = mp_path_relative (cases[i][0], cases[i][1]);

      g_assert_cmpstr (got, ==, cases[i][2]);
    }
  rel = mp_path_relative (".", "data/x.json");
  if (!g_str_equal (cwd, "/"))
    g_assert_cmpstr (rel, ==, "data/x.json");
}

static void
test_percentage (void)
{
  static const char *bad[] = { "abc", "-1%", "5%x", "%", "", "1e999%", "nan%", " 5%", "5 %" };
  gdouble            v = -1;

  g_assert_true (mp_parse_percentage ("0.5%", &v));
  g_assert_cmpfloat (v, ==, 0.005);
  g_assert_true (mp_parse_percentage ("50%", &v));
  g_assert_cmpfloat (v, ==, 0.5);
  g_assert_true (mp_parse_percentage ("0%", &v));
  g_assert_cmpfloat (v, ==, 0);
  g_assert_true (mp_parse_percentage (".25%", &v));
  g_assert_cmpfloat (v, ==, 0.0025);
  /* a bare number is a percentage too, as people write a tolerance */
  g_assert_true (mp_parse_percentage ("0.5", &v));
  g_assert_cmpfloat (v, ==, 0.005);
  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    g_assert_false (mp_parse_percentage (bad[i], &v));
}

#define HEAD "{\"format\": \"memplan.report/1\", \"memplan_version\": \"0.1.0\", "
#define G1 "{\"name\": \"g\", \"file\": \"g.csv\", \"tensors\": 1, \"records\": 1, \"steps\": 1, " \
           "\"lower_bound\": 8, "
#define OK "{\"planner\": \"naive\", \"arena\": 8, \"lower_bound\": 8, \"valid\": true, " \
           "\"seconds\": 0}"

/* a valid naive result, open for more keys; one memory of it */
#define VALID8 "{\"planner\": \"naive\", \"arena\": 8, \"lower_bound\": 8, \"valid\": true, " \
               "\"seconds\": 0, "
#define SRAM   "{\"name\": \"sram\", \"arena\": 8, \"tensors\": 1, \"spilled_bytes\": 0, " \
               "\"spilled\": 0}"

static void
test_reader_errors (void)
{
  static const char *cases[][2] = {
    { "", "r.json: truncated JSON: the file ends at line 1, column 1 before the document is "
          "complete" },
    { "[]", "r.json: not a report: expected \"format\": \"memplan.report/1\"" },
    { "{\"format\": \"memplan.plan/1\"}",
      "r.json: \"format\" is 'memplan.plan/1', expected 'memplan.report/1'" },
    { "{\"format\": \"memplan.report/1\"}", "r.json: missing \"memplan_version\" (a string)" },
    { HEAD "\"graphs\": {}}", "r.json: \"graphs\" must be a list" },
    { HEAD "\"options\": [], \"graphs\": []}", "r.json: \"options\" must be an object" },
    { HEAD "\"options\": {\"planners\": \"naive\"}, \"graphs\": []}",
      "r.json: options: \"planners\" must be a list of strings" },
    { HEAD "\"options\": {\"time_budget\": -1}, \"graphs\": []}",
      "r.json: options: \"time_budget\" must be a number >= 0" },
    { HEAD "\"graphs\": [1]}", "r.json: graph #1 must be an object" },
    { HEAD "\"graphs\": [{\"file\": \"x\"}]}", "r.json: graph #1 needs a \"name\"" },
    { HEAD "\"graphs\": [{\"name\": 3}]}", "r.json: \"name\" must be a string" },
    { HEAD "\"graphs\": [{\"name\": \"g\"}]}", "r.json: graph 'g': missing \"file\" (a string)" },
    { HEAD "\"graphs\": [" G1 "\"results\": []}, " G1 "\"results\": []}]}",
      "r.json: graph 'g' appears twice" },
    { HEAD "\"graphs\": [{\"name\": \"g\", \"file\": \"g.csv\", \"tensors\": 1}]}",
      "r.json: graph 'g': missing \"records\" (an integer >= 0)" },
    { HEAD "\"graphs\": [" G1 "\"results\": 1}]}",
      "r.json: graph 'g': \"results\" must be a list" },
    { HEAD "\"graphs\": [" G1 "\"tensors\": -1, \"results\": []}]}",
      "r.json: graph 'g': \"tensors\" must be an integer from 0 to 4294967295" },
    { HEAD "\"graphs\": [" G1 "\"results\": [{\"arena\": 8}]}]}",
      "r.json: graph 'g': result #1 needs a \"planner\" name" },
    { HEAD "\"graphs\": [" G1 "\"results\": [" OK ", " OK "]}]}",
      "r.json: graph 'g': planner 'naive' appears twice" },
    { HEAD "\"graphs\": [" G1 "\"results\": [{\"planner\": \"naive\", \"arena\": -8}]}]}",
      "r.json: graph 'g', planner 'naive': \"arena\" must be an integer from 0 to "
      "9223372036854775807" },
    { HEAD "\"graphs\": [" G1 "\"results\": [{\"planner\": \"naive\", \"arena\": 8.5}]}]}",
      "r.json: graph 'g', planner 'naive': \"arena\" must be an integer from 0 to "
      "9223372036854775807" },
    { HEAD "\"graphs\": [" G1 "\"results\": [{\"planner\": \"naive\", \"arena\": 8, "
      "\"lower_bound\": 8, \"valid\": \"yes\"}]}]}",
      "r.json: graph 'g', planner 'naive': \"valid\" must be true or false" },
    { HEAD "\"graphs\": [" G1 "\"results\": [{\"planner\": \"naive\", \"arena\": 8, "
      "\"lower_bound\": 8, \"valid\": true}]}]}",
      "r.json: graph 'g', planner 'naive': missing \"seconds\" (a number >= 0)" },
    { HEAD "\"graphs\": [" G1 "\"results\": [{\"planner\": \"naive\", \"arena\": 8, "
      "\"lower_bound\": 8, \"valid\": false, \"seconds\": 0}]}]}",
      "r.json: graph 'g', planner 'naive': an invalid plan needs a \"problem\" saying why" },
    { HEAD "\"graphs\": [" G1 "\"results\": [{\"planner\": \"naive\", \"skipped\": 1}]}]}",
      "r.json: graph 'g', planner 'naive': \"skipped\" must be a string" },
    { HEAD "\"graphs\": [{\"name\": \"g\", \"file\": \"g\", \"error\": \"x\", \"results\": []}]}",
      "r.json: graph 'g': a graph that failed to load has no \"results\"" },
    { HEAD "\"graphs\": [" G1 "\"results\": [" VALID8 "\"memories\": []}]}]}",
      "r.json: graph 'g', planner 'naive': \"memories\" must be a list of memories" },
    { HEAD "\"graphs\": [" G1 "\"results\": [" VALID8 "\"memories\": [" SRAM ", " SRAM "]}]}]}",
      "r.json: graph 'g', planner 'naive': memory 'sram' appears twice in \"memories\"" },
    { HEAD "\"graphs\": [" G1 "\"results\": [" VALID8 "\"memories\": [{\"name\": \"sram\", "
      "\"arena\": 8, \"tensors\": 1, \"spilled_bytes\": 8, \"spilled\": 2}]}]}]}",
      "r.json: graph 'g', planner 'naive': memory 'sram': 2 tensors spilled into it, but it "
      "holds 1" },
    { HEAD "\"graphs\": [" G1 "\"results\": [" VALID8 "\"memories\": [{\"name\": \"sram\"}]}]}]}",
      "r.json: graph 'g', planner 'naive': missing \"arena\" (an integer >= 0)" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr (GError) error = NULL;
      g_autoptr (MpReport) report = mp_report_parse (cases[i][0], strlen (cases[i][0]), "r.json",
                                                     &error);

      g_assert_null (report);
      g_assert_nonnull (error);
      g_assert_cmpstr (error->message, ==, cases[i][1]);
    }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/analysis/report/roundtrip", test_roundtrip);
  g_test_add_func ("/analysis/report/reader-errors", test_reader_errors);
  g_test_add_func ("/analysis/report/compare/fixture", test_compare_fixture);
  g_test_add_func ("/analysis/report/compare/options", test_compare_options);
  g_test_add_func ("/analysis/report/compare/invalid-always-fails", test_compare_self);
  g_test_add_func ("/analysis/report/compare/skipped", test_compare_skipped);
  g_test_add_func ("/analysis/report/suite/deterministic", test_suite_deterministic);
  g_test_add_func ("/analysis/report/suite/memories", test_suite_memories);
  g_test_add_func ("/analysis/report/suite/scan", test_suite_scan);
  g_test_add_func ("/analysis/report/suite/default-planners", test_default_planners);
  g_test_add_func ("/analysis/report/path-relative", test_path_relative);
  g_test_add_func ("/analysis/report/percentage", test_percentage);
  return g_test_run ();
}
