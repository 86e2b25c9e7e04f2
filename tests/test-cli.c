/* SPDX-License-Identifier: GPL-3.0-or-later */
#include <string.h>
#include <glib/gstdio.h>

#include "test-util.h"

/* The built memplan-cli run the way a user or a CI script does: its output
 * and exit status. */

static void
test_plan_table (void)
{
  g_autofree char *path = test_data_path ("teaching.json");
  g_autofree char *out = NULL, *err = NULL;

  g_assert_cmpint (test_run_cli (&out, &err, "plan", path, "--planner", "naive,greedy-by-size", NULL),
                   ==, 0);
  g_assert_true (g_str_has_prefix (out, "teaching: 5 tensors planned over 6 steps, lower bound "
                                        "128 KiB, shared workspace 8.00 KiB\n"));
  g_assert_nonnull (strstr (out, "\ngreedy-by-size          128 KiB      128 KiB  1.0000    0.00%"));
  g_assert_nonnull (strstr (out, "\nnaive                   144 KiB      128 KiB  1.1258"));
  g_assert_cmpstr (err, ==, "");
}

/* The foundation's "done when": JSON plans of MiniMalloc A, then validate. */
static void
test_minimalloc_json_and_validate (void)
{
  g_autofree char *graph = test_data_path ("minimalloc/A.1048576.csv");
  g_autofree char *dir = g_dir_make_tmp ("memplan-cli-XXXXXX", NULL);
  g_autofree char *plan = g_build_filename (dir, "plans.json", NULL);
  g_autofree char *csv = g_build_filename (dir, "greedy.csv", NULL);
  g_autofree char *out = NULL, *err = NULL, *json = NULL;

  g_assert_cmpint (test_run_cli (&out, &err, "plan", graph, "--planner", "naive,greedy-by-size",
                            "--format", "json", "-o", plan, NULL),
                   ==, 0);
  g_assert_cmpstr (out, ==, "");
  g_assert_true (g_file_get_contents (plan, &json, NULL, NULL));
  g_assert_nonnull (strstr (json, "\"format\": \"memplan.plan/1\""));
  g_assert_nonnull (strstr (json, "\"lower_bound\": 1048576"));
  g_assert_nonnull (strstr (json, "\"arena\": 1374208"));
  g_clear_pointer (&out, g_free);
  g_clear_pointer (&err, g_free);

  g_assert_cmpint (test_run_cli (&out, &err, "validate", graph, plan, NULL), ==, 0);
  g_assert_nonnull (strstr (out, ": naive: valid: 154 tensors, arena 15071232 bytes"));
  g_assert_nonnull (strstr (out, ": greedy-by-size: valid: 154 tensors, arena 1374208 bytes"));
  g_clear_pointer (&out, g_free);
  g_clear_pointer (&err, g_free);

  /* a plan CSV in MiniMalloc's form validates too */
  g_assert_cmpint (test_run_cli (&out, &err, "plan", graph, "--planner", "greedy-by-size", "--format",
                            "csv", "-o", csv, NULL),
                   ==, 0);
  g_clear_pointer (&out, g_free);
  g_clear_pointer (&err, g_free);
  g_assert_cmpint (test_run_cli (&out, &err, "validate", graph, csv, NULL), ==, 0);
  g_assert_nonnull (strstr (out, ": plan: valid: 154 tensors, arena 1374208 bytes"));

  g_remove (plan);
  g_remove (csv);
  g_rmdir (dir);
}

static void
test_invalid_plan_exit_1 (void)
{
  g_autofree char *graph = test_data_path ("minimalloc/example.12.csv");
  g_autofree char *dir = g_dir_make_tmp ("memplan-cli-XXXXXX", NULL);
  g_autofree char *plan = g_build_filename (dir, "bad.csv", NULL);
  g_autofree char *out = NULL, *err = NULL;

  /* b1 and b3 share steps 0-2 and both sit at offset 0 */
  g_assert_true (g_file_set_contents (plan, "id,lower,upper,size,offset\nb1,0,3,4,0\nb2,3,9,4,0\n"
                                            "b3,0,9,4,0\nb4,9,21,4,0\nb5,0,21,4,8\n", -1, NULL));
  g_assert_cmpint (test_run_cli (&out, &err, "validate", graph, plan, NULL), ==, 1);
  g_assert_nonnull (strstr (out, "INVALID: tensors 'b1' (offset 0, 4 bytes, steps 0-2) and 'b3' "
                                 "(offset 0, 4 bytes, steps 0-8) overlap at step 0 in bytes [0, 4)"));
  g_remove (plan);
  g_rmdir (dir);
}

static void
test_bad_input_exit_2 (void)
{
  g_autofree char *dir = g_dir_make_tmp ("memplan-cli-XXXXXX", NULL);
  g_autofree char *bad = g_build_filename (dir, "bad.json", NULL);
  g_autofree char *target = g_build_filename (dir, "out.json", NULL);
  g_autofree char *out = NULL, *err = NULL, *expected = NULL;

  g_assert_true (g_file_set_contents (bad, "{\"format\": \"memplan.graph/1\", \"tensors\": "
                                           "[{\"name\": \"a\", \"size\": -1}]}", -1, NULL));
  g_assert_cmpint (test_run_cli (&out, &err, "plan", bad, "--format", "json", "-o", target, NULL), ==, 2);
  expected = g_strdup_printf ("memplan-cli: %s: tensor 'a': \"size\" must be a positive integer "
                              "number of bytes, got -1\n", bad);
  g_assert_cmpstr (err, ==, expected);
  g_assert_cmpstr (out, ==, "");
  /* nothing written */
  g_assert_false (g_file_test (target, G_FILE_TEST_EXISTS));
  g_clear_pointer (&out, g_free);
  g_clear_pointer (&err, g_free);

  g_assert_cmpint (test_run_cli (&out, &err, "plan", "/nonexistent/graph.json", NULL), ==, 2);
  g_assert_cmpstr (err, ==, "memplan-cli: /nonexistent/graph.json: cannot read the file: no such "
                            "file\n");
  g_clear_pointer (&out, g_free);
  g_clear_pointer (&err, g_free);

  g_assert_cmpint (test_run_cli (&out, &err, "plan", bad, "--planner", "bogus", NULL), ==, 2);
  g_assert_true (g_str_has_prefix (err, "memplan-cli: unknown planner 'bogus' (known: naive, "));
  g_remove (bad);
  g_rmdir (dir);
}

/* A trace adds the allocator's "observed" plan; --format csv still writes
 * the one planner asked for. */
static void
test_csv_of_trace (void)
{
  g_autofree char *dir = test_fixture_path ("trace-two-devices.json");
  g_autofree char *out = NULL, *err = NULL;

  g_assert_cmpint (test_run_cli (&out, &err, "plan", dir, "--format", "csv", "-p", "naive", NULL),
                   ==, 0);
  g_assert_true (g_str_has_prefix (out, "id,lower,upper,size,offset\n0x1000@1,1,3,1024,0\n"));
  g_assert_cmpstr (err, ==, "");
}

static void
test_help_everywhere (void)
{
  static const char *commands[] = { "plan", "validate", "bench", "gen", "import",
                                     "suite", "compare", "exec", "render" };

  for (guint i = 0; i < G_N_ELEMENTS (commands); i++)
    {
      g_autofree char *out = NULL, *err = NULL;
      g_autofree char *usage = g_strdup_printf ("Usage:\n  memplan-cli %s [OPTION", commands[i]);

      g_assert_cmpint (test_run_cli (&out, &err, commands[i], "--help", NULL), ==, 0);
      g_assert_true (g_str_has_prefix (out, usage));
    }
}

/* A trace's observed plan is judged like every plan: its row says "yes" in
 * op order and nothing prints "(null)". The optimal planner says whether it
 * proved its arena, in the table and in the JSON. */
static void
test_observed_and_proof (void)
{
  g_autofree char *snapshot = test_fixture_path ("snapshot.pickle");
  g_autofree char *teaching = test_data_path ("teaching.json");
  g_autofree char *out = NULL, *err = NULL, *json = NULL, *err2 = NULL;

  g_assert_cmpint (test_run_cli (&out, &err, "plan", snapshot, "-p", "greedy-by-size", NULL), ==,
                   0);
  /* the observed arena is what the allocator reserved (a 2 MiB segment) */
  g_assert_nonnull (strstr (out, "\nobserved               2.00 MiB     1.75 KiB 1170.2857   99.91%"
                                 "      -      0 µs  yes        n/a\n"));
  g_assert_null (strstr (out, "(null)"));
  g_assert_null (strstr (out, "INVALID"));

  g_assert_cmpint (test_run_cli (&json, &err2, "plan", teaching, "-p", "optimal", "-f", "json",
                                 NULL), ==, 0);
  g_assert_nonnull (strstr (json, "\"proven_optimal\": true"));
  g_assert_nonnull (strstr (json, "\"proof\": \"proved optimal\""));

  /* MiniMalloc's D is not proved in a fraction of a second */
  {
    g_autofree char *d = test_data_path ("minimalloc/D.1048576.csv");
    g_autofree char *out3 = NULL, *err3 = NULL;

    g_assert_cmpint (test_run_cli (&out3, &err3, "plan", d, "-p", "optimal", "--time-budget",
                                   "0.3", "-f", "json", NULL), ==, 0);
    g_assert_nonnull (strstr (out3, "\"proven_optimal\": false"));
    g_assert_nonnull (strstr (out3, "\"proof\": \"not proved: best found, "));
    g_assert_nonnull (strstr (out3, "% above the lower bound after "));
  }
}

/* plan --by-op ends the table with import --by-op's, word for word;
 * --drop-pre-existing leaves out the block from before the snapshot. */
static void
test_by_op_and_drop (void)
{
  g_autofree char *snapshot = g_build_filename (g_getenv ("MEMPLAN_SOURCE_DIR"), "tests", "data",
                                                "snapshot.pickle", NULL);
  g_autofree char *teaching = test_data_path ("teaching.json");
  g_autofree char *out = NULL, *err = NULL, *imported = NULL, *err2 = NULL;
  g_autofree char *dropped = NULL, *err3 = NULL, *bad = NULL, *err4 = NULL;
  static const char table[] =
    "\nsnapshot-cuda:0: 1.75 KiB live at the peak (event 2)\n\n"
    "     at peak    allocated   allocs  op\n"
    "    1.00 KiB     1.75 KiB        2  forward (train.py:10)\n"
    "       512 B        512 B        1  mlp (model.py:7)\n"
    "       256 B        256 B        1  (before the trace)\n";

  g_assert_cmpint (test_run_cli (&out, &err, "plan", snapshot, "-p", "greedy-by-size", "--by-op",
                                 NULL), ==, 0);
  g_assert_true (g_str_has_suffix (out, table));
  g_assert_nonnull (strstr (out, "1 block allocated before the trace began, live from its "
                                 "start; 2 allocations never freed (live to the end); 1 "
                                 "out-of-memory event\n\nsnapshot-cuda:0: "));
  g_assert_cmpstr (err, ==, "");
  g_assert_cmpint (test_run_cli (&imported, &err2, "import", "--by-op", snapshot, NULL), ==, 0);
  g_assert_cmpstr (imported, ==, table + 1);

  g_assert_cmpint (test_run_cli (&dropped, &err3, "plan", snapshot, "-p", "greedy-by-size",
                                 "--drop-pre-existing", NULL), ==, 0);
  g_assert_true (g_str_has_prefix (dropped, "snapshot-cuda:0: 3 tensors planned over 3 steps, "
                                            "lower bound 1.50 KiB\n"));
  g_assert_true (g_str_has_suffix (dropped, "observed: the cuda:0 allocator reserved 2.00 MiB at "
                                            "its peak; its blocks touched 2.00 MiB in 1 address "
                                            "range; 1 free without an allocation skipped; 2 "
                                            "allocations never freed (live to the end); 1 "
                                            "out-of-memory event\n"));

  g_assert_cmpint (test_run_cli (&bad, &err4, "plan", teaching, "--by-op", NULL), ==, 2);
  g_assert_cmpstr (bad, ==, "");
  g_assert_true (g_str_has_prefix (err4, "memplan-cli: "));
  g_assert_true (g_str_has_suffix (err4, "teaching.json: --by-op needs a PyTorch profiler trace "
                                         "or memory snapshot, and this is a memplan graph\n"));
  g_clear_pointer (&err4, g_free);
  g_clear_pointer (&bad, g_free);
  g_assert_cmpint (test_run_cli (&bad, &err4, "plan", snapshot, "--by-op", "-f", "json", NULL),
                   ==, 2);
  g_assert_cmpstr (err4, ==, "memplan-cli: --by-op adds a table: it goes with --format table "
                             "only\n");
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/cli/plan/table", test_plan_table);
  g_test_add_func ("/cli/plan/minimalloc-json-and-validate", test_minimalloc_json_and_validate);
  g_test_add_func ("/cli/validate/invalid-plan", test_invalid_plan_exit_1);
  g_test_add_func ("/cli/plan/bad-input", test_bad_input_exit_2);
  g_test_add_func ("/cli/help", test_help_everywhere);
  g_test_add_func ("/cli/plan/csv-of-trace", test_csv_of_trace);
  g_test_add_func ("/cli/plan/observed-and-proof", test_observed_and_proof);
  g_test_add_func ("/cli/plan/by-op-and-drop", test_by_op_and_drop);
  return g_test_run ();
}
