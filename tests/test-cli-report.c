/* SPDX-License-Identifier: GPL-3.0-or-later */
/* memplan-cli suite and compare, run as a user runs them: exact standard
 * output, standard error and exit status. */
#include <string.h>

#include "test-files.h"
#include "test-util.h"

typedef struct
{
  int   status;
  char *out;
  char *err;
} Run;

static void
run_clear (Run *r)
{
  g_clear_pointer (&r->out, g_free);
  g_clear_pointer (&r->err, g_free);
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (Run, run_clear)

/* Runs memplan-cli with the arguments (NULL-terminated) in folder cwd. */
static void
cli (Run *r, const char *cwd, ...)
{
  static const char *const env[] = { "LC_ALL=C.UTF-8", NULL };
  const TestCliOptions     options = { .cwd = cwd, .env = env };
  va_list                  args;

  run_clear (r);
  va_start (args, cwd);
  r->status = test_run_cli_va (&options, &r->out, &r->err, args);
  va_end (args);
}

static char *
fixture_dir (void)
{
  return test_source_path ("tests/compare");
}

static const char *
last_line (const char *text)
{
  static char line[1024];
  gsize       n = strlen (text);
  const char *start;

  g_assert_true (n > 0 && text[n - 1] == '\n');
  for (start = text + n - 1; start > text && start[-1] != '\n'; start--)
    ;
  g_strlcpy (line, start, MIN (sizeof line, (gsize) (text + n - start)));
  return line;
}

/* tests/compare/expected.* hold the exact output for base.json vs new.json:
 * a regression, an improvement, a change within tolerance, an invalid plan,
 * a graph that no longer loads, graphs and a planner in only one report. */
static void
test_compare_formats (void)
{
  static const char *formats[][2] = { { "table", "expected.txt" },
                                      { "json", "expected.json" },
                                      { "markdown", "expected.md" } };
  g_autofree char *dir = fixture_dir ();
  g_auto (Run) r = { 0 };

  for (guint i = 0; i < G_N_ELEMENTS (formats); i++)
    {
      g_autofree char *expected = test_read_file (dir, formats[i][1]);

      cli (&r, dir, "compare", "base.json", "new.json", "--format", formats[i][0], NULL);
      g_assert_cmpstr (r.out, ==, expected);
      g_assert_cmpstr (r.err, ==, "");
      g_assert_cmpint (r.status, ==, 1);
    }
  /* the default format is the table */
  {
    g_autofree char *expected = test_read_file (dir, "expected.txt");

    cli (&r, dir, "compare", "base.json", "new.json", NULL);
    g_assert_cmpstr (r.out, ==, expected);
    g_assert_cmpint (r.status, ==, 1);
  }
}

static void
test_compare_options (void)
{
  g_autofree char *dir = fixture_dir ();
  g_auto (Run) r = { 0 };

  cli (&r, dir, "compare", "base.json", "new.json", "--allow-missing", "--fail-on-time", NULL);
  g_assert_cmpint (r.status, ==, 1);
  g_assert_cmpstr (last_line (r.out), ==,
                   "FAIL: 4 regressions: alpha/greedy-by-size (arena +12.50%), beta/naive "
                   "(time +300%), beta/greedy-by-size (invalid plan in NEW), broken (graph failed "
                   "to load in NEW)");
  cli (&r, dir, "compare", "base.json", "new.json", "--allow-missing", "--fail-on-time", "--time-tolerance", "300%",
       "--tolerance", "12.5%", NULL);
  g_assert_cmpint (r.status, ==, 1);
  g_assert_cmpstr (last_line (r.out), ==,
                   "FAIL: 2 regressions: beta/greedy-by-size (invalid plan in NEW), broken (graph "
                   "failed to load in NEW)");
  cli (&r, dir, "compare", "base.json", "new.json", "--allow-missing", "--tolerance", "0.3%", NULL);
  g_assert_cmpint (r.status, ==, 1);
  g_assert_nonnull (strstr (r.out, "alpha/partition (arena +0.40%)"));
}

#define REPORT_HEAD "{\"format\": \"memplan.report/1\", \"memplan_version\": \"0.1.0\", \"graphs\": ["
#define GRAPH(name) "{\"name\": \"" name "\", \"file\": \"" name ".csv\", \"tensors\": 2, " \
                    "\"records\": 2, \"steps\": 2, \"lower_bound\": 100, \"results\": ["
#define RESULT(planner, arena, seconds) "{\"planner\": \"" planner "\", \"arena\": " arena ", " \
                                        "\"lower_bound\": 100, \"valid\": true, \"seconds\": " \
                                        seconds "}"

static const char pass_base[] =
  REPORT_HEAD GRAPH ("g") RESULT ("naive", "200", "0.5") ", " RESULT ("greedy-by-size", "1000", "0.5")
  ", " RESULT ("best-fit", "128", "0.5") "]}, " GRAPH ("h") RESULT ("naive", "200", "0.5") "]}]}";
static const char pass_new[] =
  REPORT_HEAD GRAPH ("g") RESULT ("naive", "100", "0.5") ", " RESULT ("greedy-by-size", "1004", "0.5")
  "]}]}";

static const char pass_table[] =
  "BASE: base.json (memplan 0.1.0)\n"
  "NEW:  new.json (memplan 0.1.0)\n"
  "arena tolerance 0.5%, time tolerance 50% (changes under 1.0 ms ignored)\n"
  "\n"
  "graph  planner         status            base arena  new arena  change  change %  base time  new time  time\n"
  "g      naive           better                 200 B      100 B  -100 B   -50.00%   500.0 ms  500.0 ms  same\n"
  "g      greedy-by-size  within tolerance      1000 B     1004 B    +4 B    +0.40%   500.0 ms  500.0 ms  same\n"
  "g      best-fit        only in BASE           128 B          -       -         -   500.0 ms         -  -\n"
  "h      -               only in BASE               -          -       -         -          -         -  -\n"
  "\n"
  "g/best-fit: planner 'best-fit' is not in NEW\n"
  "h: graph is not in NEW (BASE: h.csv)\n"
  "\n"
  "4 compared: 1 better, 1 within tolerance, 2 only in BASE\n"
  "PASS: no regression beyond tolerance\n";

static const char same_table[] =
  "BASE: base.json (memplan 0.1.0)\n"
  "NEW:  same.json (memplan 0.1.0)\n"
  "arena tolerance 0.5%, time tolerance 50% (changes under 1.0 ms ignored)\n"
  "\n"
  "graph  planner         status     base arena  new arena  change  change %  base time  new time  time\n"
  "g      naive           unchanged       200 B      200 B     0 B    +0.00%   500.0 ms  500.0 ms  same\n"
  "g      greedy-by-size  unchanged      1000 B     1000 B     0 B    +0.00%   500.0 ms  500.0 ms  same\n"
  "g      best-fit        unchanged       128 B      128 B     0 B    +0.00%   500.0 ms  500.0 ms  same\n"
  "h      naive           unchanged       200 B      200 B     0 B    +0.00%   500.0 ms  500.0 ms  same\n"
  "\n"
  "4 compared: 4 unchanged\n"
  "PASS: nothing changed\n";

static const char same_markdown[] =
  "### memplan compare: PASS\n"
  "\n"
  "**PASS: nothing changed**\n"
  "\n"
  "BASE base.json (memplan 0.1.0), NEW same.json (memplan 0.1.0); arena tolerance 0.5%, time "
  "tolerance 50% (changes under 1.0 ms ignored).\n"
  "\n"
  "4 compared: 4 unchanged.\n"
  "\n"
  "Nothing changed.\n"
  "\n"
  "<details><summary>All 4 results</summary>\n"
  "\n"
  "| status | graph | planner | BASE arena | NEW arena | change | change % | BASE time | NEW time | time | detail |\n"
  "| --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | --- | --- |\n"
  "| unchanged | g | naive | 200 B | 200 B | 0 B | +0.00% | 500.0 ms | 500.0 ms | same |  |\n"
  "| unchanged | g | greedy-by-size | 1000 B | 1000 B | 0 B | +0.00% | 500.0 ms | 500.0 ms | same |  |\n"
  "| unchanged | g | best-fit | 128 B | 128 B | 0 B | +0.00% | 500.0 ms | 500.0 ms | same |  |\n"
  "| unchanged | h | naive | 200 B | 200 B | 0 B | +0.00% | 500.0 ms | 500.0 ms | same |  |\n"
  "\n"
  "</details>\n";

/* An improvement, a change within tolerance and missing results pass. */
static void
test_compare_pass (void)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *dir = g_dir_make_tmp ("memplan-cli-XXXXXX", &error);
  g_auto (Run) r = { 0 };

  g_assert_no_error (error);
  test_write_file (dir, "base.json", pass_base);
  test_write_file (dir, "same.json", pass_base);
  test_write_file (dir, "new.json", pass_new);
  /* issue 33, item 7: what BASE had and NEW lost fails the gate unless
   * allowed */
  cli (&r, dir, "compare", "base.json", "new.json", NULL);
  g_assert_cmpint (r.status, ==, 1);
  g_assert_cmpstr (last_line (r.out), ==, "FAIL: 2 regressions: g/best-fit (missing from NEW), "
                                          "h (graph missing from NEW)");
  cli (&r, dir, "compare", "base.json", "new.json", "--allow-missing", NULL);
  g_assert_cmpstr (r.out, ==, pass_table);
  g_assert_cmpstr (r.err, ==, "");
  g_assert_cmpint (r.status, ==, 0);
  cli (&r, dir, "compare", "base.json", "same.json", NULL);
  g_assert_cmpstr (r.out, ==, same_table);
  g_assert_cmpint (r.status, ==, 0);
  cli (&r, dir, "compare", "base.json", "same.json", "-f", "markdown", NULL);
  g_assert_cmpstr (r.out, ==, same_markdown);
  g_assert_cmpint (r.status, ==, 0);
  /* timings alone pass, unless asked */
  {
    g_auto (GStrv) parts = g_strsplit (pass_base, "\"seconds\": 0.5", -1);
    g_autofree char *slow = g_strjoinv ("\"seconds\": 2", parts);

    test_write_file (dir, "slow.json", slow);
  }
  cli (&r, dir, "compare", "base.json", "slow.json", NULL);
  g_assert_cmpstr (last_line (r.out), ==, "PASS: nothing changed (only timings differ: they are "
                                          "reported, not judged, without --fail-on-time)");
  g_assert_nonnull (strstr (r.out, "\n4 compared: 4 unchanged; time: 4 slower, 0 faster\n"));
  g_assert_cmpint (r.status, ==, 0);
  cli (&r, dir, "compare", "base.json", "slow.json", "--fail-on-time", NULL);
  g_assert_cmpstr (last_line (r.out), ==, "FAIL: 4 regressions: g/naive (time +300%), "
                                          "g/greedy-by-size (time +300%), g/best-fit (time "
                                          "+300%), h/naive (time +300%)");
  g_assert_cmpint (r.status, ==, 1);
  /* -o writes the file and nothing on standard output */
  cli (&r, dir, "compare", "base.json", "same.json", "-o", "out.txt", NULL);
  g_assert_cmpstr (r.out, ==, "");
  g_assert_cmpint (r.status, ==, 0);
  {
    g_autofree char *written = test_read_file (dir, "out.txt");

    g_assert_cmpstr (written, ==, same_table);
  }
  test_remove_tree (dir);
}

static void
test_compare_bad_input (void)
{
  static const struct
  {
    const char *file;
    const char *text;
    const char *error;
  } files[] = {
    { "trunc.json", "{", "memplan-cli: trunc.json: truncated JSON: the file ends at line 1, "
                         "column 2 before the document is complete\n" },
    { "plan.json", "{\"format\": \"memplan.plan/1\", \"plans\": []}",
      "memplan-cli: plan.json: \"format\" is 'memplan.plan/1', expected 'memplan.report/1'\n" },
    { "neg.json", REPORT_HEAD GRAPH ("g") RESULT ("naive", "-5", "0") "]}]}",
      "memplan-cli: neg.json: graph 'g', planner 'naive': \"arena\" must be an integer from 0 "
      "to 9223372036854775807\n" },
    { "nover.json", "{\"format\": \"memplan.report/1\", \"graphs\": []}",
      "memplan-cli: nover.json: missing \"memplan_version\" (a string)\n" },
    { "nope.json", NULL, "memplan-cli: nope.json: cannot read the file: no such file\n" },
  };
  g_autoptr (GError) error = NULL;
  g_autofree char *dir = g_dir_make_tmp ("memplan-cli-XXXXXX", &error);
  g_auto (Run) r = { 0 };

  g_assert_no_error (error);
  test_write_file (dir, "good.json", pass_base);
  for (guint i = 0; i < G_N_ELEMENTS (files); i++)
    {
      if (files[i].text)
        test_write_file (dir, files[i].file, files[i].text);
      /* bad as BASE and as NEW */
      cli (&r, dir, "compare", files[i].file, "good.json", NULL);
      g_assert_cmpstr (r.err, ==, files[i].error);
      g_assert_cmpstr (r.out, ==, "");
      g_assert_cmpint (r.status, ==, 2);
      cli (&r, dir, "compare", "good.json", files[i].file, "-f", "markdown", NULL);
      g_assert_cmpstr (r.err, ==, files[i].error);
      g_assert_cmpstr (r.out, ==, "");
      g_assert_cmpint (r.status, ==, 2);
    }

  cli (&r, dir, "compare", "good.json", "good.json", "--tolerance", "abc", NULL);
  g_assert_cmpstr (r.err, ==, "memplan-cli: --tolerance takes a percentage such as 0.5%, not "
                              "'abc'\n");
  g_assert_cmpint (r.status, ==, 2);
  cli (&r, dir, "compare", "good.json", "good.json", "--time-tolerance", "5x", NULL);
  g_assert_cmpstr (r.err, ==, "memplan-cli: --time-tolerance takes a percentage such as 50%, not "
                              "'5x'\n");
  g_assert_cmpint (r.status, ==, 2);
  cli (&r, dir, "compare", "good.json", "good.json", "--format", "html", NULL);
  g_assert_cmpstr (r.err, ==, "memplan-cli: unknown format 'html' (known: table, json, "
                              "markdown)\n");
  g_assert_cmpint (r.status, ==, 2);
  cli (&r, dir, "compare", "good.json", NULL);
  g_assert_true (g_str_has_prefix (r.err, "memplan-cli: wrong number of arguments\n"));
  g_assert_cmpstr (r.out, ==, "");
  g_assert_cmpint (r.status, ==, 2);
  test_remove_tree (dir);
}

/* Blank out the planning times, the one thing allowed to differ. */
static char *
without_seconds (const char *text)
{
  /* suite --repeat's median and spread too */
  g_autoptr (GRegex) re = g_regex_new ("\"seconds(_min|_max)?\": [0-9.e+-]+", 0, 0, NULL);

  return g_regex_replace (re, text, -1, 0, "\"seconds\\1\": T", 0, NULL);
}

/* Issue 9's "done when": two suite runs compare as unchanged; one planner's
 * result made worse in the second report fails and is named. */
static void
test_suite_done_when (void)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *dir = g_dir_make_tmp ("memplan-cli-XXXXXX", &error);
  g_autofree char *teaching = test_data_path ("teaching.json");
  g_autofree char *minimalloc = test_data_path ("minimalloc");
  g_autofree char *a = NULL;
  g_autofree char *b = NULL;
  g_autofree char *a0 = NULL;
  g_autofree char *b0 = NULL;
  g_autofree char *b_path = NULL;
  g_autofree char *edited = NULL;
  g_autoptr (MpReport) report = NULL;
  g_auto (Run) r = { 0 };

  g_assert_no_error (error);
  cli (&r, dir, "suite", teaching, minimalloc, "--planner", "naive,greedy-by-size", "-o", "a.json",
       NULL);
  g_assert_cmpstr (r.out, ==, "");
  g_assert_cmpstr (r.err, ==, "memplan-cli: 7 graphs planned, report written to a.json\n");
  g_assert_cmpint (r.status, ==, 0);
  cli (&r, dir, "suite", teaching, minimalloc, "--planner", "naive,greedy-by-size", "-o", "b.json",
       NULL);
  g_assert_cmpint (r.status, ==, 0);

  a = test_read_file (dir, "a.json");
  b = test_read_file (dir, "b.json");
  a0 = without_seconds (a);
  b0 = without_seconds (b);
  g_assert_cmpstr (a0, ==, b0);
  g_assert_nonnull (strstr (a0, "\"seconds\": T"));

  cli (&r, dir, "compare", "a.json", "b.json", NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_true (g_str_has_prefix (last_line (r.out), "PASS: nothing changed"));
  g_assert_nonnull (strstr (r.out, "\n14 compared: 14 unchanged"));

  b_path = g_build_filename (dir, "b.json", NULL);
  report = mp_report_load (b_path, &error);
  g_assert_no_error (error);
  {
    MpReportResult *res = mp_report_graph_find (mp_report_find_graph (report, "teaching"),
                                                "greedy-by-size");
    MpPlan          p;

    /* a bigger arena, its ratio and fragmentation with it (compare refuses
     * figures that contradict each other) */
    res->arena += 1024;
    p = (MpPlan) { .arena = res->arena, .lower_bound = res->lower_bound };
    res->ratio = mp_plan_ratio (&p);
    res->fragmentation = mp_plan_fragmentation (&p);
  }
  edited = mp_report_to_json (report);
  test_write_file (dir, "b.json", edited);
  cli (&r, dir, "compare", "a.json", "b.json", NULL);
  g_assert_cmpint (r.status, ==, 1);
  g_assert_cmpstr (last_line (r.out), ==,
                   "FAIL: 1 regression: teaching/greedy-by-size (arena +0.78%)");
  g_assert_nonnull (strstr (r.out, "\nteaching    greedy-by-size  WORSE "));
  test_remove_tree (dir);
}

static void
test_suite_bad_graph (void)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *dir = g_dir_make_tmp ("memplan-cli-XXXXXX", &error);
  g_autofree char *out_path = NULL;
  g_autofree char *new_path = NULL;
  g_autoptr (MpReport) report = NULL;
  g_auto (Run) r = { 0 };

  g_assert_no_error (error);
  test_write_file (dir, "graphs/good.csv", "id,lower,upper,size\nx,0,2,8\ny,1,3,8\n");
  test_write_file (dir, "graphs/bad.json", "{\"name\": \"bad\"}");
  test_write_file (dir, "empty/notes.txt", "no graph here");
  out_path = g_build_filename (dir, "r.json", NULL);

  cli (&r, dir, "suite", "graphs", "-o", "r.json", NULL);
  g_assert_cmpstr (r.err, ==, "memplan-cli: graphs/bad.json: missing \"format\": "
                              "\"memplan.graph/1\"\n"
                              "memplan-cli: no report written (--keep-going records the graph "
                              "and goes on)\n");
  g_assert_cmpint (r.status, ==, 2);
  g_assert_false (g_file_test (out_path, G_FILE_TEST_EXISTS));

  cli (&r, dir, "suite", "graphs", "--keep-going", "-o", "r.json", NULL);
  g_assert_cmpstr (r.err, ==, "memplan-cli: graphs/bad.json: missing \"format\": "
                              "\"memplan.graph/1\"\n"
                              "memplan-cli: 1 graph planned, 1 did not load, report written to "
                              "r.json\n");
  g_assert_cmpint (r.status, ==, 1);
  report = mp_report_load (out_path, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (report->graphs->len, ==, 2);
  g_assert_cmpstr (((MpReportGraph *) report->graphs->pdata[0])->error, ==,
                   "graphs/bad.json: missing \"format\": \"memplan.graph/1\"");
  g_assert_cmpstr (((MpReportGraph *) report->graphs->pdata[1])->name, ==, "good");

  /* a graph that no longer loads fails the comparison */
  new_path = g_build_filename (dir, "new.json", NULL);
  g_assert_cmpint (g_rename (out_path, new_path), ==, 0);
  cli (&r, dir, "suite", "graphs/good.csv", "-o", "base.json", NULL);
  g_assert_cmpint (r.status, ==, 0);
  cli (&r, dir, "compare", "base.json", "new.json", NULL);
  g_assert_cmpint (r.status, ==, 1);
  g_assert_cmpstr (last_line (r.out), ==,
                   "FAIL: 1 regression: graphs/bad.json (graph failed to load in NEW)");

  cli (&r, dir, "suite", "nope.csv", "-o", "r.json", NULL);
  g_assert_cmpstr (r.err, ==, "memplan-cli: nope.csv: cannot read the file: no such file\n"
                              "memplan-cli: no report written (--keep-going records the graph "
                              "and goes on)\n");
  g_assert_cmpint (r.status, ==, 2);
  cli (&r, dir, "suite", "empty", "-o", "r.json", NULL);
  g_assert_cmpstr (r.err, ==, "memplan-cli: no graph found (looked for *.json, *.csv, *.onnx "
                              "and *.pickle)\n");
  g_assert_cmpint (r.status, ==, 2);
  cli (&r, dir, "suite", "graphs", "--planner", "nope", NULL);
  g_assert_true (g_str_has_prefix (r.err, "memplan-cli: unknown planner 'nope' (known: "));
  g_assert_cmpint (r.status, ==, 2);
  g_assert_false (g_file_test (out_path, G_FILE_TEST_EXISTS));
  test_remove_tree (dir);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/cli/compare/formats", test_compare_formats);
  g_test_add_func ("/cli/compare/options", test_compare_options);
  g_test_add_func ("/cli/compare/pass", test_compare_pass);
  g_test_add_func ("/cli/compare/bad-input", test_compare_bad_input);
  g_test_add_func ("/cli/suite/done-when", test_suite_done_when);
  g_test_add_func ("/cli/suite/bad-graph", test_suite_bad_graph);
  return g_test_run ();
}
