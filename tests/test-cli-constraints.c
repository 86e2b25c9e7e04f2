/* SPDX-License-Identifier: GPL-3.0-or-later */
#include <string.h>
#include <glib/gstdio.h>

#include "test-util.h"

/* Issue 28 from the command line: a MiniMalloc CSV with alignment, hint,
 * gaps and fixed offsets planned and written back in its syntax, and
 * plan --memory on the two-memory example. */

/* MiniMalloc's own CLI reads the written plan: its offset column pins
 * every buffer, so it must find that layout feasible within the arena and
 * valid (--validate). Skipped when no minimalloc binary is on PATH (or in
 * MEMPLAN_MINIMALLOC). */
static void
check_with_minimalloc (const char *dir, const char *plan, guint64 arena)
{
  const char      *env = g_getenv ("MEMPLAN_MINIMALLOC");
  g_autofree char *bin = env ? g_strdup (env) : g_find_program_in_path ("minimalloc");
  g_autofree char *output = g_build_filename (dir, "minimalloc.csv", NULL);
  g_autofree char *capacity = g_strdup_printf ("--capacity=%" G_GUINT64_FORMAT, arena);
  g_autofree char *input = g_strdup_printf ("--input=%s", plan);
  g_autofree char *to = g_strdup_printf ("--output=%s", output);
  g_autoptr (GError) error = NULL;
  const char *argv[] = { bin, capacity, input, to, "--validate", NULL };
  gint        status = -1;

  if (bin == NULL)
    {
      g_test_message ("no minimalloc binary: its CLI's reading is not checked");
      return;
    }
  g_assert_true (g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_DEFAULT, NULL, NULL, NULL,
                               NULL, &status, &error));
  g_assert_no_error (error);
  g_assert_true (g_spawn_check_wait_status (status, NULL));
  g_remove (output);
}

static void
test_csv_round_trip (void)
{
  g_autofree char *dir = g_dir_make_tmp ("memplan-cli-XXXXXX", NULL);
  g_autofree char *in = g_build_filename (dir, "in.csv", NULL);
  g_autofree char *out1 = g_build_filename (dir, "out1.csv", NULL);
  g_autofree char *out2 = g_build_filename (dir, "out2.csv", NULL);
  g_autofree char *out = NULL, *err = NULL, *text1 = NULL, *text2 = NULL;

  g_assert_true (g_file_set_contents (in, "id,lower,upper,size,alignment,hint,gaps,fixed_offset\n"
                                          "a,0,10,2,1,-1,0-5@0:1,-1\nb,0,10,2,2,4,5-10@1:2,-1\n"
                                          "c,2,6,4,4,-1,3-4,8\n", -1, NULL));
  for (guint k = 0; k < 2; k++)
    {
      g_clear_pointer (&out, g_free);
      g_clear_pointer (&err, g_free);
      g_assert_cmpint (test_run_cli (&out, &err, "plan", k ? out1 : in, "--planner",
                                     "greedy-by-size", "--format", "csv", "-o", k ? out2 : out1,
                                     NULL), ==, 0);
    }
  g_assert_true (g_file_get_contents (out1, &text1, NULL, NULL));
  g_assert_true (g_file_get_contents (out2, &text2, NULL, NULL));
  g_assert_cmpstr (text1, ==, "id,lower,upper,size,alignment,hint,gaps,fixed_offset,offset\n"
                              "a,0,10,2,1,-1,0-5@0:1,-1,0\nb,0,10,2,2,4,5-10@1:2,-1,4\n"
                              "c,2,6,4,4,-1,3-4,8,8\n");
  g_assert_cmpstr (text2, ==, text1);
  g_clear_pointer (&out, g_free);
  g_clear_pointer (&err, g_free);
  g_assert_cmpint (test_run_cli (&out, &err, "validate", in, out1, NULL), ==, 0);
  check_with_minimalloc (dir, out1, 12);
  g_remove (in);
  g_remove (out1);
  g_remove (out2);
  g_rmdir (dir);
}

static void
test_memory (void)
{
  g_autofree char *path = test_data_path ("mcu-cnn.json");
  g_autofree char *out = NULL, *err = NULL;

  g_assert_cmpint (test_run_cli (&out, &err, "plan", path, "--plan-inputs", "--planner",
                                 "greedy-by-size", "--memory", "sram=256K", "--memory", "psram",
                                 NULL), ==, 0);
  g_assert_nonnull (strstr (out, "\ngreedy-by-size     sram     arena    200 KiB of 256 KiB      "
                                 "13 tensors, traffic 1.22 MiB\n"
                                 "                   psram    arena    100 KiB of unbounded     "
                                 "1 tensors, traffic 300 KiB\n"
                                 "                     spilled to psram: conv1 (100 KiB x 3)\n"));
  g_clear_pointer (&out, g_free);
  g_clear_pointer (&err, g_free);
  g_assert_cmpint (test_run_cli (&out, &err, "plan", path, "--memory", "sram=", NULL), ==, 2);
  g_assert_cmpstr (err, ==, "memplan-cli: --memory 'sram=': expected NAME or NAME=SIZE with a "
                            "size such as 256K, 8M or 4096\n");
  g_clear_pointer (&out, g_free);
  g_clear_pointer (&err, g_free);
  g_assert_cmpint (test_run_cli (&out, &err, "plan", path, "--memory", "sram", "--format", "csv",
                                 "-p", "naive", NULL), ==, 2);
  g_assert_cmpstr (err, ==, "memplan-cli: --memory spreads a plan over several memories: it goes "
                            "with --format table or json\n");
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/cli/constraints/csv-round-trip", test_csv_round_trip);
  g_test_add_func ("/cli/constraints/memory", test_memory);
  return g_test_run ();
}
