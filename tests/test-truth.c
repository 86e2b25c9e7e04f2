/* SPDX-License-Identifier: GPL-3.0-or-later */
/* "The answer a user reads is the right one" (issue 33): one test per item
 * fixed, named after the item's number, each failing on the code before
 * its fix. */
#include <string.h>

#include <glib/gstdio.h>
#include <json-c/json.h>

#include "memplan-analysis.h"
#include "report-compare.h"
#include "test-files.h"
#include "test-util.h"


/* 1: on a graph whose streams run concurrently (two-towers), every planner
 * plans for the parallel groups by default, and the winner is chosen among
 * plans valid when the streams do; planned for op order (--schedule
 * sequential), the plans that race say so and cannot win. A graph with one
 * stream is unaffected. */
static void
test_01_winner_concurrent (void)
{
  g_autofree char *towers = test_data_path ("two-towers.json");
  g_autofree char *teaching = test_data_path ("teaching.json");
  g_autofree char *dir = g_dir_make_tmp ("memplan-truth-XXXXXX", NULL);
  g_autofree char *conc = g_build_filename (dir, "concurrent.json", NULL);
  g_autofree char *seq = g_build_filename (dir, "sequential.json", NULL);
  g_autoptr (GError) error = NULL;
  guint            n;
  const MpPlannerInfo *infos = mp_planners (&n);
  g_autoptr (GPtrArray) all = g_ptr_array_new ();

  for (guint i = 0; i < n; i++)
    g_ptr_array_add (all, (gpointer) &infos[i]);
  for (gint sequential = 0; sequential < 2; sequential++)
    {
      MpWorkloadOptions  o = { .schedule = sequential ? MP_PLAN_SCHEDULE_SEQUENTIAL
                                                      : MP_PLAN_SCHEDULE_AUTO };
      MpRunOptions       ropts = { .n_threads = 1, .planner.time_budget = 1 };
      g_autoptr (MpWorkload) w = mp_workload_open (towers, &o, &error);
      g_autoptr (MpPlanRun) run = NULL;
      gint               best;

      g_assert_no_error (error);
      g_assert_true ((w->concurrent != NULL) == !sequential);
      run = mp_workload_run (w, (const MpPlannerInfo * const *) all->pdata, all->len, &ropts,
                             NULL, &error);
      g_assert_no_error (error);
      best = mp_plans_best ((MpPlan * const *) run->plans->pdata, run->plans->len);
      g_assert_cmpint (best, >=, 0);
      for (guint i = 0; i < run->plans->len; i++)
        {
          const MpPlan *p = run->plans->pdata[i];
          gboolean      ops_only = sequential && !g_str_equal (p->planner, "naive") &&
                                   !g_str_equal (p->planner, "multistream");

          g_assert_true (p->valid);
          g_assert_true (p->concurrent_checked);
          /* made for the groups (the lower bound of 10 MiB: both towers' 4 MiB
           * tensors live at once), or for op order and racing there */
          g_assert_true (p->parallel == (!sequential || g_str_equal (p->planner, "multistream")));
          g_assert_true (p->concurrent_valid == !ops_only);
          g_assert_true (mp_plan_races (p) == ops_only);
          if (!sequential)
            g_assert_cmpuint (p->lower_bound, ==, 10 << 20);
        }
      g_assert_true (((MpPlan *) run->plans->pdata[best])->concurrent_valid);
      g_assert_cmpuint (((MpPlan *) run->plans->pdata[best])->arena, ==, 10 << 20);
    }

  /* the CLI table names that winner; the racing plans say it */
  {
    g_autofree char *out = NULL;
    g_autofree char *err = NULL;

    g_assert_cmpint (test_run_cli (&out, NULL, "plan", towers, NULL), ==, 0);
    g_assert_nonnull (strstr (out, "; 2 streams, 5 parallel groups (lower bound 10.0 MiB when "
                                   "they run concurrently)\n"));
    g_assert_nonnull (strstr (out, "\nsmallest arena: first-fit (tied with greedy-by-size, "
                                   "greedy-by-breadth, partition, multistream, best-fit, optimal, best-of): "
                                   "11% below naive, at the lower bound\n"));
    g_assert_null (strstr (out, "races"));
    g_clear_pointer (&out, g_free);
    g_assert_cmpint (test_run_cli (&out, NULL, "plan", towers, "--schedule", "sequential",
                                   NULL), ==, 0);
    g_assert_nonnull (strstr (out, "\nsmallest arena: multistream: 11% below naive, at the "
                                   "lower bound\n"));
    g_assert_nonnull (strstr (out, "\ngreedy-by-size: races when streams run concurrently: "
                                   "tensors 'left.h' (offset 0, 4194304 bytes, parallel groups "
                                   "1-2) and 'right.h' (offset 0, 4194304 bytes, parallel groups "
                                   "1-2) are live together in parallel group 1 (ops 'left.fc1' "
                                   "and 'right.fc1') and overlap in bytes [0, 4194304)\n"));
    g_clear_pointer (&out, g_free);
    /* every plan runs clean on the two concurrent streams */
    g_assert_cmpint (test_run_cli (&out, NULL, "exec", towers, "--backend", "cpu",
                                   "--no-baselines", "-p", "all", NULL),
                     ==, 0);
    g_clear_pointer (&out, g_free);
    g_assert_cmpint (test_run_cli (&out, &err, "plan", towers, "--schedule", "parallel", NULL),
                     ==, 2);
    g_assert_cmpstr (err, ==, "memplan-cli: --schedule takes concurrent or sequential, not "
                              "'parallel'\n");
    g_clear_pointer (&out, g_free);
    g_clear_pointer (&err, g_free);

    /* one stream: --schedule changes nothing */
    {
      g_autofree char *plain = NULL;
      g_autofree char *both = NULL;
      g_autofree char *ops = NULL;

      g_assert_cmpint (test_run_cli (&plain, NULL, "plan", teaching, "-p", "greedy-by-size",
                                     "-f", "csv", NULL), ==, 0);
      g_assert_cmpint (test_run_cli (&both, NULL, "plan", teaching, "-p", "greedy-by-size",
                                     "-f", "csv", "--schedule", "concurrent", NULL), ==, 0);
      g_assert_cmpint (test_run_cli (&ops, NULL, "plan", teaching, "-p", "greedy-by-size",
                                     "-f", "csv", "--schedule", "sequential", NULL), ==, 0);
      g_assert_cmpstr (plain, ==, both);
      g_assert_cmpstr (plain, ==, ops);
    }

    /* a CSV plan has no schedule field, but its lifetimes are the groups':
     * it is judged there, as it was made */
    {
      g_autofree char *csv = g_build_filename (dir, "greedy.csv", NULL);
      g_autofree char *said = NULL;

      g_assert_cmpint (test_run_cli (NULL, NULL, "plan", towers, "-p", "greedy-by-size", "-f",
                                     "csv", "-o", csv, NULL), ==, 0);
      g_assert_cmpint (test_run_cli (&said, NULL, "validate", towers, csv, NULL), ==, 0);
      g_assert_nonnull (strstr (said, ": plan: valid in parallel groups: 6 tensors, arena "
                                      "10485760 bytes"));
      g_unlink (csv);
    }

    /* a report says what it planned for; compare refuses to mix them */
    g_assert_cmpint (test_run_cli (NULL, NULL, "suite", towers, "-o", conc, NULL), ==, 0);
    g_assert_cmpint (test_run_cli (NULL, NULL, "suite", towers, "--schedule", "sequential",
                                   "-o", seq, NULL), ==, 0);
    g_assert_cmpint (test_run_cli (&out, &err, "compare", conc, seq, NULL), ==, 2);
    g_assert_nonnull (strstr (err, "schedule is concurrent in BASE, sequential in NEW"));
  }
  g_unlink (conc);
  g_unlink (seq);
  g_rmdir (dir);
}

/* 2: one step numbering. Usage records count steps as ranks of their
 * start times, as the app's axis, slider and live list do; the text of a
 * decision says those steps, with the file's own times beside them where
 * they differ. The step-through's decision 4 on only-search.csv said
 * "query (3.00 MiB, step 3)" while its band sat at step 2; explain on
 * A.1048576.csv said steps up to 1048575 where the app counts 0-68. */
static void
test_02_one_numbering (void)
{
  g_autofree char *search = test_data_path ("teaching/only-search.csv");
  g_autofree char *a = test_data_path ("minimalloc/A.1048576.csv");
  g_autoptr (GError) error = NULL;
  g_autoptr (MpWorkload) w = mp_workload_open (search, NULL, &error);
  g_autoptr (MpDecisionTrace) trace = mp_decision_trace_new ();
  MpPlannerOptions opts = { .trace = trace };
  g_autoptr (MpPlan) plan = NULL;
  g_autofree char *line = NULL;
  g_autofree char *out = NULL;
  const MpUsage   *query;

  g_assert_no_error (error);
  plan = mp_workload_plan (w, mp_planner_lookup ("greedy-by-size"), &opts, NULL, &error);
  g_assert_no_error (error);
  line = mp_decision_trace_explain_step (trace, w->graph, plan, 3);
  g_assert_cmpstr (line, ==, "query (3.00 MiB, step 2, time 3 in the file): its only gap, "
                             "2.00 MiB, is too small; on top, at 9.00 MiB");
  /* the band the app draws for it: the same step */
  query = &plan->records[mp_decision_trace_step (trace, 3)->record];
  g_assert_cmpstr (w->graph->tensors[query->tensor].name, ==, "query");
  g_assert_cmpuint (query->first, ==, 2);
  g_assert_cmpuint (query->last, ==, 2);

  /* explain counts 69 steps, 0-68, as the app's live list does */
  g_assert_cmpint (test_run_cli (&out, NULL, "explain", a, NULL), ==, 0);
  g_assert_nonnull (strstr (out, "\n  4. 125 (641 KiB, step 68, times 1029120–1048575 in the "
                                 "file): "));
  g_assert_nonnull (strstr (out, "\n120. 98 (14.0 KiB, steps 16–68, times 202752–1048575 in the "
                                 "file): "));
  for (const char *p = out; (p = strstr (p, " (")); p++)
    {
      guint64 first = 0, last = 0;
      char   *end = NULL;

      if (!(p = strstr (p, ", step")))
        break;
      p += strlen (", step");
      p += *p == 's' ? 2 : 1;
      first = g_ascii_strtoull (p, &end, 10);
      last = g_str_has_prefix (end, "–") ? g_ascii_strtoull (end + strlen ("–"), NULL, 10)
                                          : first;
      g_assert_cmpuint (first, <=, last);
      g_assert_cmpuint (last, <=, 68);
    }
}

/* 4: exact ties are said as ties, a difference too small for a share in
 * bytes (the app said "3.3e-06% below"), and the CLI's table names the
 * winner in the app's words. */
static void
test_04_ties_and_winner (void)
{
  MpPlan          *p[] = { test_figures_plan ("greedy-by-size", 1836974080, 1836974080),
                           test_figures_plan ("greedy-by-breadth", 1836974140, 1836974080),
                           test_figures_plan ("best-fit", 1836974080, 1836974080),
                           test_figures_plan ("naive", 7836974080, 1836974080) };
  g_autofree char *margin = NULL;
  g_autofree char *gpt2 = test_data_path ("zoo/gpt2-training.json");
  g_autofree char *out = NULL;

  g_assert_cmpint (mp_plans_best (p, G_N_ELEMENTS (p)), ==, 0);
  margin = mp_plans_margin (p, G_N_ELEMENTS (p), 0);
  g_assert_cmpstr (margin, ==, "greedy-by-size (tied with best-fit): 60 B below "
                               "greedy-by-breadth, at the lower bound");
  for (guint i = 0; i < G_N_ELEMENTS (p); i++)
    g_free (p[i]->planner), g_free (p[i]);

  g_assert_cmpint (test_run_cli (&out, NULL, "plan", gpt2, NULL), ==, 0);
  g_assert_nonnull (strstr (out, "\nsmallest arena: greedy-by-size (tied with multistream, "
                                 "best-fit, first-fit, optimal, best-of): 60 B below "
                                 "greedy-by-breadth, "
                                 "at the lower bound\n"));
}

/* 7: compare refuses what it cannot compare (reports made with different
 * options, figures that contradict each other), exit 2 naming why; a lost
 * planner fails the gate (exit 1) unless --allow-missing. */
static void
test_07_compare_checks (void)
{
  static const char head[] =
    "{\"format\": \"memplan.report/1\", \"memplan_version\": \"0.1.0\", \"graphs\": ["
    "{\"name\": \"g\", \"file\": \"g.csv\", \"tensors\": 2, \"records\": 2, "
    "\"steps\": 2, \"lower_bound\": 131072, \"results\": [";
  g_autofree char *dir = g_dir_make_tmp ("memplan-truth-XXXXXX", NULL);
  g_autofree char *graph = test_data_path ("teaching.json");
  g_autofree char *a64 = g_build_filename (dir, "a64.json", NULL);
  g_autofree char *a4k = g_build_filename (dir, "a4k.json", NULL);
  g_autofree char *good = g_build_filename (dir, "good.json", NULL);
  g_autofree char *below = g_build_filename (dir, "below.json", NULL);
  g_autofree char *ratio = g_build_filename (dir, "ratio.json", NULL);
  g_autofree char *lost = g_build_filename (dir, "lost.json", NULL);
  g_autofree char *err = NULL, *want = NULL, *text = NULL;

  g_assert_cmpint (test_run_cli (NULL, NULL, "suite", graph, "-a", "64", "-p", "naive", "-o", a64,
                                 NULL), ==, 0);
  g_assert_cmpint (test_run_cli (NULL, NULL, "suite", graph, "-a", "4096", "-p", "naive", "-o",
                                 a4k, NULL), ==, 0);
  g_assert_cmpint (test_run_cli (NULL, &err, "compare", a64, a4k, NULL), ==, 2);
  want = g_strdup_printf ("memplan-cli: %s and %s: the reports were made with different options, "
                          "so their figures cannot be compared: alignment is 64 in BASE, 4096 "
                          "in NEW (--allow-different-options compares them anyway)\n", a64, a4k);
  g_assert_cmpstr (err, ==, want);
  g_clear_pointer (&err, g_free);

  text = g_strconcat (head, "{\"planner\": \"naive\", \"arena\": 262144, \"lower_bound\": "
                      "131072, \"valid\": true, \"seconds\": 0.5}, {\"planner\": "
                      "\"first-fit\", \"arena\": 131072, \"lower_bound\": 131072, "
                      "\"valid\": true, \"seconds\": 0.5}]}]}", NULL);
  g_assert_true (g_file_set_contents (good, text, -1, NULL));
  g_free (text);
  text = g_strconcat (head, "{\"planner\": \"naive\", \"arena\": 1, \"lower_bound\": "
                      "131072, \"valid\": true, \"seconds\": 0.5}]}]}", NULL);
  g_assert_true (g_file_set_contents (below, text, -1, NULL));
  g_free (text);
  text = g_strconcat (head, "{\"planner\": \"naive\", \"arena\": 262144, \"lower_bound\": "
                      "131072, \"ratio\": 7.6e-06, \"valid\": true, \"seconds\": 0.5}]}]}",
                      NULL);
  g_assert_true (g_file_set_contents (ratio, text, -1, NULL));
  g_free (text);
  text = g_strconcat (head, "{\"planner\": \"naive\", \"arena\": 262144, \"lower_bound\": "
                      "131072, \"valid\": true, \"seconds\": 0.5}]}]}", NULL);
  g_assert_true (g_file_set_contents (lost, text, -1, NULL));

  g_assert_cmpint (test_run_cli (NULL, &err, "compare", good, below, NULL), ==, 2);
  g_assert_nonnull (strstr (err, "graph 'g', planner 'naive': \"arena\" (1) is below "
                                 "\"lower_bound\" (131072): no plan can be"));
  g_clear_pointer (&err, g_free);
  g_assert_cmpint (test_run_cli (NULL, &err, "compare", good, ratio, NULL), ==, 2);
  g_assert_nonnull (strstr (err, "\"ratio\" is 7.6e-06, but \"arena\" and \"lower_bound\" "
                                 "make it 2"));
  g_assert_cmpint (test_run_cli (NULL, NULL, "compare", good, lost, NULL), ==, 1);
  g_assert_cmpint (test_run_cli (NULL, NULL, "compare", good, lost, "--allow-missing", NULL), ==,
                   0);
  test_remove_tree (dir);
}

/* 8: -o's extension chooses the format; a --format that contradicts it is
 * refused and nothing is written. */
static void
test_08_output_extension (void)
{
  g_autofree char *dir = g_dir_make_tmp ("memplan-truth-XXXXXX", NULL);
  g_autofree char *graph = test_data_path ("teaching.json");
  g_autofree char *json = g_build_filename (dir, "p.json", NULL);
  g_autofree char *csv = g_build_filename (dir, "p.csv", NULL);
  g_autofree char *wrong = g_build_filename (dir, "q.json", NULL);
  g_autofree char *text = NULL;
  g_autofree char *err = NULL;
  g_autofree char *want = NULL;
  json_object     *doc;

  g_assert_cmpint (test_run_cli (NULL, NULL, "plan", graph, "-o", json, NULL), ==, 0);
  g_assert_true (g_file_get_contents (json, &text, NULL, NULL));
  doc = json_tokener_parse (text);
  g_assert_nonnull (doc);
  g_assert_cmpstr (json_object_get_string (json_object_object_get (doc, "format")), ==,
                   "memplan.plan/1");
  json_object_put (doc);
  g_clear_pointer (&text, g_free);

  g_assert_cmpint (test_run_cli (NULL, NULL, "plan", graph, "-p", "naive", "-o", csv, NULL), ==,
                   0);
  g_assert_true (g_file_get_contents (csv, &text, NULL, NULL));
  g_assert_true (g_str_has_prefix (text, "id,lower,upper,size,offset"));

  g_assert_cmpint (test_run_cli (NULL, &err, "plan", graph, "-f", "table", "-o", wrong, NULL),
                   ==, 2);
  want = g_strdup_printf ("memplan-cli: --format table does not match the output file %s, "
                          "whose name says json\n", wrong);
  g_assert_cmpstr (err, ==, want);
  g_assert_false (g_file_test (wrong, G_FILE_TEST_EXISTS));
  g_unlink (json);
  g_unlink (csv);
  g_rmdir (dir);
}

/* 11: without a display the app says what to do instead of GTK's bare
 * "cannot open display". */
static void
test_11_no_display (void)
{
  const char      *gui = g_getenv ("MEMPLAN_GUI");
  g_autofree char *graph = test_data_path ("teaching.json");
  g_autofree char *err = NULL;
  g_auto (GStrv) env = g_get_environ ();
  const char      *argv[] = { gui, graph, NULL };
  gint             status;
  g_autoptr (GError) error = NULL;

  if (gui == NULL)
    {
      g_test_skip ("the app is not built");
      return;
    }
  env = g_environ_setenv (env, "DISPLAY", "", TRUE);
  env = g_environ_setenv (env, "WAYLAND_DISPLAY", "", TRUE);
  g_spawn_sync (NULL, (char **) argv, env, G_SPAWN_STDOUT_TO_DEV_NULL, NULL, NULL, NULL, &err,
                &status, &error);
  g_assert_no_error (error);
  g_assert_true (WIFEXITED (status));
  g_assert_cmpint (WEXITSTATUS (status), ==, 1);
  g_assert_cmpstr (err, ==, "memplan: cannot open the display (DISPLAY=, WAYLAND_DISPLAY=)\n"
                            "memplan is a desktop app. Without a display, memplan-cli does the "
                            "same work (memplan-cli plan FILE, memplan-cli render FILE -o "
                            "plan.png); to run the app on a virtual display: xvfb-run -a "
                            "memplan FILE\n");
}

/* 14: --tolerance 5 is 5%, as people write it. */
static void
test_14_tolerance (void)
{
  g_autofree char *base = test_data_path ("reports/base.json");
  gdouble          v = 0;

  g_assert_true (mp_parse_percentage ("5", &v));
  g_assert_cmpfloat (v, ==, 0.05);
  g_assert_true (mp_parse_percentage ("0.5%", &v));
  g_assert_cmpfloat (v, ==, 0.005);
  g_assert_false (mp_parse_percentage ("5 %", &v));
  g_assert_false (mp_parse_percentage ("-5", &v));
  g_assert_cmpint (test_run_cli (NULL, NULL, "compare", base, base, "--tolerance", "5", NULL), ==,
                   0);
}

/* 14: the help names every input memplan reads, and exec's hint about
 * races between streams comes only where a run was found corrupt. */
static void
test_14_help_and_hints (void)
{
  static const char *commands[] = { "plan", "render" };
  g_autofree char   *towers = test_data_path ("two-towers.json");

  for (guint i = 0; i < G_N_ELEMENTS (commands); i++)
    {
      g_autofree char *out = NULL;

      g_assert_cmpint (test_run_cli (&out, NULL, commands[i], "--help", NULL), ==, 0);
      g_assert_nonnull (strstr (out, "ONNX"));
      g_assert_nonnull (strstr (out, "PyTorch trace or snapshot"));
    }
  {
    g_autofree char *clean = NULL;
    g_autofree char *racy = NULL;

    g_assert_cmpint (test_run_cli (&clean, NULL, "exec", towers, "--backend", "cpu",
                                   "--no-baselines", "-p", "naive,multistream", NULL), ==, 0);
    g_assert_null (strstr (clean, "race between streams"));
    g_assert_cmpint (test_run_cli (&racy, NULL, "exec", towers, "--backend", "cpu",
                                   "--no-baselines", "-p", "greedy-by-size", "--schedule",
                                   "sequential", NULL), ==, 1);
    g_assert_nonnull (strstr (racy, "greedy-by-size was made for op order, but it ran on 2 "
                                    "concurrent streams; a corruption there is a race between "
                                    "streams"));
  }
}

/* 12: the by-op table keeps its figures in their columns whatever an op's
 * name (PyTorch's are long), with the name last. */
static void
test_12_by_op_names (void)
{
  static const char trace[] =
    "{\"traceEvents\": ["
    "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"<built-in method run_backward of "
    "torch._C._EngineBase object at 0x7f3a2c1d9e40>\", \"pid\": 1, \"tid\": 1, \"ts\": 0, "
    "\"dur\": 100, \"args\": {}},"
    "{\"ph\": \"i\", \"s\": \"t\", \"name\": \"[memory]\", \"pid\": 1, \"tid\": 1, "
    "\"ts\": 10, \"args\": {\"Addr\": 4096, \"Bytes\": 1024, \"Total Allocated\": 1024, "
    "\"Total Reserved\": 2097152, \"Device Type\": 1, \"Device Id\": 0}},"
    "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::mm\", \"pid\": 1, "
    "\"tid\": 1, \"ts\": 200, \"dur\": 100, \"args\": {}},"
    "{\"ph\": \"i\", \"s\": \"t\", \"name\": \"[memory]\", \"pid\": 1, \"tid\": 1, "
    "\"ts\": 210, \"args\": {\"Addr\": 8192, \"Bytes\": 512, \"Total Allocated\": 1536, "
    "\"Total Reserved\": 2097152, \"Device Type\": 1, \"Device Id\": 0}}]}";
  g_autofree char *dir = g_dir_make_tmp ("memplan-truth-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, "long-names.json", NULL);
  g_autofree char *out = NULL;

  g_assert_true (g_file_set_contents (path, trace, -1, NULL));
  g_assert_cmpint (test_run_cli (&out, NULL, "import", "--by-op", path, NULL), ==, 0);
  g_assert_nonnull (strstr (out, "\n     at peak    allocated   allocs  op\n"
                                 "    1.00 KiB     1.00 KiB        1  <built-in method "
                                 "run_backward of torch._C._EngineBase object at "
                                 "0x7f3a2c1d9e40>\n"
                                 "       512 B        512 B        1  aten::mm\n"));
  g_unlink (path);
  g_rmdir (dir);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/truth/01-winner-concurrent", test_01_winner_concurrent);
  g_test_add_func ("/truth/02-one-numbering", test_02_one_numbering);
  g_test_add_func ("/truth/04-ties-and-winner", test_04_ties_and_winner);
  g_test_add_func ("/truth/07-compare-checks", test_07_compare_checks);
  g_test_add_func ("/truth/08-output-extension", test_08_output_extension);
  g_test_add_func ("/truth/11-no-display", test_11_no_display);
  g_test_add_func ("/truth/12-by-op-names", test_12_by_op_names);
  g_test_add_func ("/truth/14-tolerance", test_14_tolerance);
  g_test_add_func ("/truth/14-help-and-hints", test_14_help_and_hints);
  return g_test_run ();
}
