/* SPDX-License-Identifier: GPL-3.0-or-later */
#include <string.h>
#include <glib/gstdio.h>

#include "test-util.h"

/* Issue 28, several memories from the command line: data/mcu-cnn.json
 * declares 256 KiB of SRAM and PSRAM, so plan shows the spill without
 * --memory flags (flags override), and render draws one pane per memory
 * with its capacity line and the spilled tensor marked. */

#define SPILL_ROWS                                                                                 \
  "\ngreedy-by-size     sram     arena    200 KiB of 256 KiB      13 tensors, traffic 1.22 MiB\n" \
  "                   psram    arena    100 KiB of unbounded     1 tensors, traffic 300 KiB\n"   \
  "                     spilled to psram: conv1 (100 KiB x 3)\n"

static void
test_plan_graph_memories (void)
{
  g_autofree char *path = test_data_path ("mcu-cnn.json");
  g_autofree char *out = NULL, *err = NULL;

  g_assert_cmpint (test_run_cli (&out, &err, "plan", path, "--plan-inputs", "--planner",
                                 "greedy-by-size", NULL), ==, 0);
  g_assert_nonnull (strstr (out, SPILL_ROWS));
  g_clear_pointer (&out, g_free);
  g_clear_pointer (&err, g_free);
  /* 512 KiB of SRAM: the 300 KiB peak fits, nothing spills */
  g_assert_cmpint (test_run_cli (&out, &err, "plan", path, "--plan-inputs", "--planner",
                                 "greedy-by-size", "--memory", "sram=512K", "--memory", "psram",
                                 NULL), ==, 0);
  g_assert_nonnull (strstr (out, "\ngreedy-by-size     sram     arena    300 KiB of 512 KiB      "
                                 "14 tensors, traffic 1.51 MiB\n"
                                 "                   psram    arena        0 B of unbounded     "
                                 "0 tensors, traffic 0 B\n"));
  g_assert_null (strstr (out, "spilled"));
}

static void
test_render_panes (void)
{
  g_autofree char *path = test_data_path ("mcu-cnn.json");
  g_autofree char *dir = g_dir_make_tmp ("memplan-cli-XXXXXX", NULL);
  g_autofree char *svg = g_build_filename (dir, "memories.svg", NULL);
  g_autofree char *out = NULL, *err = NULL, *text = NULL;

  g_assert_cmpint (test_run_cli (&out, &err, "render", path, "--plan-inputs", "-o", svg, NULL),
                   ==, 0);
  g_assert_true (g_file_get_contents (svg, &text, NULL, NULL));
  g_assert_nonnull (strstr (text, ">mcu-cnn · greedy-by-size · sram 200 KiB of 256 KiB</text>"));
  g_assert_nonnull (strstr (text, ">mcu-cnn · greedy-by-size · psram 100 KiB of unbounded</text>"));
  g_assert_nonnull (strstr (text, ">lower bound 100 KiB · 1 tensors · spilled here: 100 KiB"
                                  "</text>"));
  g_assert_nonnull (strstr (text, ">sram capacity 256 KiB</text>"));
  g_assert_nonnull (strstr (text, ">conv1</text>"));
  g_assert_nonnull (strstr (text, ">spilled</text>"));
  g_remove (svg);
  g_clear_pointer (&out, g_free);
  g_clear_pointer (&err, g_free);
  /* a bad --memory, and --memory with a plan file, are refused */
  g_assert_cmpint (test_run_cli (&out, &err, "render", path, "--memory", "sram=", "-o", svg,
                                 NULL), ==, 2);
  g_assert_cmpstr (err, ==, "memplan-cli: --memory 'sram=': expected NAME or NAME=SIZE with a "
                            "size such as 256K, 8M or 4096\n");
  g_clear_pointer (&out, g_free);
  g_clear_pointer (&err, g_free);
  g_assert_cmpint (test_run_cli (&out, &err, "render", path, "--memory", "sram", "--plan", path,
                                 "-o", svg, NULL), ==, 2);
  g_assert_cmpstr (err, ==, "memplan-cli: --memory plans each memory: it does not go with "
                            "--plan\n");
  g_rmdir (dir);
}

/* A tensor pinned to a memory the flags leave out is refused, named. */
static void
test_pinned_missing (void)
{
  g_autofree char *dir = g_dir_make_tmp ("memplan-cli-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, "g.json", NULL);
  g_autofree char *out = NULL, *err = NULL, *want = NULL;

  g_assert_true (g_file_set_contents (
    path, "{\"format\":\"memplan.graph/1\",\"memories\":[{\"name\":\"sram\",\"capacity\":64},"
          "{\"name\":\"psram\"}],\"tensors\":[{\"name\":\"a\",\"size\":64},{\"name\":\"b\","
          "\"size\":64,\"memory\":\"psram\"}],\"ops\":[{\"name\":\"f\",\"inputs\":[],"
          "\"outputs\":[\"a\"]},{\"name\":\"g\",\"inputs\":[\"a\"],\"outputs\":[\"b\"]}]}",
    -1, NULL));
  g_assert_cmpint (test_run_cli (&out, &err, "plan", path, "--planner", "greedy-by-size",
                                 "--memory", "sram", NULL), ==, 2);
  want = g_strdup_printf ("memplan-cli: %s: tensor 'b' must live in memory 'psram', which the "
                          "memories given do not name\n", path);
  g_assert_cmpstr (err, ==, want);
  g_remove (path);
  g_rmdir (dir);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/cli/memories/plan-graph-memories", test_plan_graph_memories);
  g_test_add_func ("/cli/memories/render-panes", test_render_panes);
  g_test_add_func ("/cli/memories/pinned-missing", test_pinned_missing);
  return g_test_run ();
}
