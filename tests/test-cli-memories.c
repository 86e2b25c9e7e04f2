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

static char *
replace (const char *text, const char *from, const char *to)
{
  g_auto (GStrv) parts = g_strsplit (text, from, -1);

  g_assert_cmpuint (g_strv_length (parts), ==, 2);
  return g_strjoinv (to, parts);
}

/* plan --format json carries each buffer's memory and offset and per
 * memory its arena, capacity, tensors, traffic and spills; validate reads
 * them back as one plan per memory and checks each memory's placement
 * and capacity, naming the buffer. */
static void
test_plan_json (void)
{
  g_autofree char *path = test_data_path ("mcu-cnn.json");
  g_autofree char *dir = g_dir_make_tmp ("memplan-cli-XXXXXX", NULL);
  g_autofree char *plan = g_build_filename (dir, "plan.json", NULL);
  g_autofree char *bad = g_build_filename (dir, "bad.json", NULL);
  g_autofree char *out = NULL, *err = NULL, *text = NULL, *edited = NULL, *want = NULL;

  g_assert_cmpint (test_run_cli (&out, &err, "plan", path, "--planner", "greedy-by-size",
                                 "--format", "json", "-o", plan, NULL), ==, 0);
  g_assert_true (g_file_get_contents (plan, &text, NULL, NULL));
  g_assert_nonnull (strstr (text, "\n      \"spill\": {\n        \"memories\": [\n"
    "          { \"name\": \"sram\", \"capacity\": 262144, \"arena\": 204800, \"tensors\": 12, "
    "\"traffic\": 1203338, \"spilled_bytes\": 0, \"spilled\": [ ] },\n"
    "          { \"name\": \"psram\", \"arena\": 102400, \"tensors\": 1, \"traffic\": 307200, "
    "\"spilled_bytes\": 102400, \"spilled\": [ \"conv1\" ] }\n"
    "        ],\n        \"tensors\": [\n"
    "          { \"name\": \"conv1\", \"memory\": \"psram\", \"offset\": 0 },\n"));
  g_clear_pointer (&out, g_free);
  g_clear_pointer (&err, g_free);
  g_assert_cmpint (test_run_cli (&out, &err, "validate", path, plan, NULL), ==, 0);
  want = g_strdup_printf ("%s: greedy-by-size: valid: 13 tensors, arena 307200 bytes (300 KiB), "
                          "1.0000× the lower bound\n"
                          "%s: greedy-by-size in sram: valid: 12 tensors, arena 204800 bytes "
                          "(200 KiB), 1.0000× the lower bound\n"
                          "%s: greedy-by-size in psram: valid: 1 tensors, arena 102400 bytes "
                          "(100 KiB), 1.0000× the lower bound\n", plan, plan, plan);
  g_assert_cmpstr (out, ==, want);

  /* 150000 B of SRAM: pw1 ends at 204800 */
  edited = replace (text, "\"capacity\": 262144", "\"capacity\": 150000");
  g_assert_true (g_file_set_contents (bad, edited, -1, NULL));
  g_clear_pointer (&out, g_free);
  g_clear_pointer (&err, g_free);
  g_clear_pointer (&want, g_free);
  g_assert_cmpint (test_run_cli (&out, &err, "validate", path, bad, NULL), ==, 1);
  want = g_strdup_printf ("%s: greedy-by-size in sram: INVALID: tensor 'pw1' ends at 200 KiB "
                          "(204800 B), over sram's capacity of 146 KiB (150000 B)\n", bad);
  g_assert_nonnull (strstr (out, want));
  g_clear_pointer (&edited, g_free);

  /* dw1 moved onto pw1 in SRAM */
  edited = replace (text, "{ \"name\": \"dw1\", \"memory\": \"sram\", \"offset\": 0 }",
                    "{ \"name\": \"dw1\", \"memory\": \"sram\", \"offset\": 102400 }");
  g_assert_true (g_file_set_contents (bad, edited, -1, NULL));
  g_clear_pointer (&out, g_free);
  g_clear_pointer (&err, g_free);
  g_assert_cmpint (test_run_cli (&out, &err, "validate", path, bad, NULL), ==, 1);
  g_assert_nonnull (strstr (out, ": greedy-by-size in sram: INVALID: tensors 'dw1' (offset "
                                 "102400, 102400 bytes, steps 1-2) and 'pw1' (offset 102400, "
                                 "102400 bytes, steps 2-3) overlap at step 2 (op 'pw1') in bytes "
                                 "[102400, 204800)\n"));
  g_clear_pointer (&edited, g_free);

  /* a memory the spill does not list */
  edited = replace (text, "\"memory\": \"psram\"", "\"memory\": \"dram\"");
  g_assert_true (g_file_set_contents (bad, edited, -1, NULL));
  g_clear_pointer (&out, g_free);
  g_clear_pointer (&err, g_free);
  g_clear_pointer (&want, g_free);
  g_assert_cmpint (test_run_cli (&out, &err, "validate", path, bad, NULL), ==, 2);
  want = g_strdup_printf ("memplan-cli: %s: plan 'greedy-by-size': \"spill\": tensor 'conv1': "
                          "\"memory\" 'dram' is not among the \"memories\" (sram, psram)\n", bad);
  g_assert_cmpstr (err, ==, want);
  g_remove (plan);
  g_remove (bad);
  g_rmdir (dir);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/cli/memories/plan-graph-memories", test_plan_graph_memories);
  g_test_add_func ("/cli/memories/render-panes", test_render_panes);
  g_test_add_func ("/cli/memories/pinned-missing", test_pinned_missing);
  g_test_add_func ("/cli/memories/plan-json", test_plan_json);
  return g_test_run ();
}
