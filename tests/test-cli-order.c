/* SPDX-License-Identifier: GPL-3.0-or-later */
#include <glib/gstdio.h>

#include "test-util.h"
#include "order-cases.h"

/* --order on the command line: the saving and the arenas before and after,
 * the explanation, the reordered graph, both curves drawn, and the
 * refusals. The graph is test-order.c's hand-worked one. */


static char *
write_hand (const char *dir)
{
  char *path = g_build_filename (dir, "hand.json", NULL);

  g_assert_true (g_file_set_contents (path, hand_dag, -1, NULL));
  return path;
}

static void
test_plan_explain_import (void)
{
  g_autofree char *dir = g_dir_make_tmp ("memplan-order-XXXXXX", NULL);
  g_autofree char *path = write_hand (dir);
  g_autofree char *png = g_build_filename (dir, "curves.png", NULL);
  g_autofree char *out = NULL, *err = NULL, *data = NULL;
  g_autoptr (MpGraph) graph = NULL;
  g_autoptr (GError) error = NULL;
  gsize length;

  g_assert_cmpint (test_run_cli (&out, &err, "plan", path, "--order", "best", "-p",
                                 "first-fit,optimal", NULL), ==, 0);
  g_assert_nonnull (strstr (out, "order best (post-order): peak of live bytes 7 B in the given "
                                 "order, 6 B in this one ("));
  g_assert_nonnull (strstr (out, "1 B (14.3%) saved\n"));
  g_assert_nonnull (strstr (out, "planner             arena (given)  arena (order)          "
                                 "saved    share\n"));
  g_assert_nonnull (strstr (out, "optimal                       7 B            6 B            "
                                 "1 B    14.3%\n"));
  g_clear_pointer (&out, g_free);
  g_clear_pointer (&err, g_free);

  g_assert_cmpint (test_run_cli (&out, &err, "explain", path, "--order", "optimal", NULL), ==, 0);
  g_assert_nonnull (strstr (out, "The search proved this peak the minimum over every order"));
  g_assert_nonnull (strstr (out, "  op 'C': step 4 -> 2, now after 'B'"));
  g_clear_pointer (&out, g_free);
  g_clear_pointer (&err, g_free);

  g_assert_cmpint (test_run_cli (&out, &err, "import", path, "--order", "best", NULL), ==, 0);
  graph = mp_graph_parse_json (out, strlen (out), "import", &error);
  g_assert_no_error (error);
  g_assert_cmpstr (graph->ops[2].name, ==, "C");
  g_assert_cmpstr (graph->ops[3].name, ==, "D");
  g_clear_pointer (&out, g_free);
  g_clear_pointer (&err, g_free);

  g_assert_cmpint (test_run_cli (&out, &err, "render", path, "--order", "best", "--curves", "-o",
                                 png, NULL), ==, 0);
  g_assert_true (g_file_get_contents (png, &data, &length, NULL));
  g_assert_cmpuint (length, >, 8);
  g_assert_cmpint (memcmp (data, "\x89PNG", 4), ==, 0);
  g_unlink (png);
  g_unlink (path);
  g_rmdir (dir);
}

static void
test_refusals (void)
{
  g_autofree char *dir = g_dir_make_tmp ("memplan-order-XXXXXX", NULL);
  g_autofree char *path = write_hand (dir);
  g_autofree char *trace = test_data_path ("torch/small-cnn-trace.json.gz");
  g_autofree char *out = NULL, *err = NULL;

  g_assert_cmpint (test_run_cli (&out, &err, "plan", path, "--order", "nope", NULL), ==, 2);
  g_assert_nonnull (strstr (err, "memplan-cli: unknown order 'nope' (known: given, list, dfs, "
                                 "post-order, tree, best, optimal)\n"));
  g_clear_pointer (&out, g_free);
  g_clear_pointer (&err, g_free);
  g_assert_cmpint (test_run_cli (&out, &err, "plan", trace, "--order", "best", NULL), ==, 2);
  g_assert_nonnull (strstr (err, "small-cnn-trace.json.gz: --order best needs a graph with "
                                 "dependencies (graph JSON, ONNX, zoo); this is a PyTorch "
                                 "profiler trace, whose order is what happened (use --order "
                                 "given)\n"));
  g_clear_pointer (&out, g_free);
  g_clear_pointer (&err, g_free);
  g_assert_cmpint (test_run_cli (&out, &err, "render", path, "--curves", "-o", "x.png", NULL),
                   ==, 2);
  g_assert_nonnull (strstr (err, "--curves compares the given order with another: choose it "
                                 "with --order (and no --plan)\n"));
  g_clear_pointer (&out, g_free);
  g_clear_pointer (&err, g_free);
  g_assert_cmpint (test_run_cli (&out, &err, "plan", path, "--order", "tree", NULL), ==, 2);
  g_assert_nonnull (strstr (err, "hand.json: --order tree: not a tree: op 'A' feeds 3 ops"));
  g_unlink (path);
  g_rmdir (dir);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/cli/order/plan-explain-import", test_plan_explain_import);
  g_test_add_func ("/cli/order/refusals", test_refusals);
  return g_test_run ();
}
