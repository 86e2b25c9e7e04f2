/* SPDX-License-Identifier: GPL-3.0-or-later */
#include <string.h>

#include "test-util.h"

/* SOMAS pangu-2.6B (issue 30): a plan below best-of's arena exists. It was
 * made by build-aux/pangu-column.py (best-of's plan, its one hole at the peak
 * step cleared of the two buffers that use its addresses, the top slab moved
 * into it) and is checked here by the validator every plan goes through. */

#define PANGU_COLUMN_ARENA G_GUINT64_CONSTANT (5536546816)

static guint64
json_arena (const char *json)
{
  const char *at = strstr (json, "\"arena\": ");

  g_assert_nonnull (at);
  return g_ascii_strtoull (at + strlen ("\"arena\": "), NULL, 10);
}

/* memplan-cli validate PLAN against pangu-2.6B says it is valid with this arena. */
static void
assert_valid (const char *plan_file, const char *arena_line)
{
  g_autofree char *graph = test_fixture_path ("real/somas-pangu_2.6B.csv.gz");
  g_autofree char *plan = test_fixture_path (plan_file);
  g_autofree char *out = NULL, *err = NULL;

  g_assert_cmpint (test_run_cli (&out, &err, "validate", graph, plan, NULL), ==, 0);
  g_assert_nonnull (strstr (out, arena_line));
  g_assert_cmpstr (err, ==, "");
}

static void
test_column_plan_valid (void)
{
  assert_valid ("real/somas-pangu_2.6B.column-plan.csv.gz",
                ": plan: valid: 18692 tensors, arena 5536546816 bytes (5.16 GiB), "
                "1.0012× the lower bound\n");
}

/* The optimal planner with the column move before its search at scale
 * (analysis/optimal/optimal-column.c, then the LNS) reached the peak of live
 * bytes, so pangu-2.6B's minimum is its lower bound; this is that plan. */
static void
test_optimal_plan_at_bound (void)
{
  assert_valid ("real/somas-pangu_2.6B.optimal-plan.csv.gz",
                ": plan: valid: 18692 tensors, arena 5530099775 bytes (5.15 GiB), "
                "1.0000× the lower bound\n");
}

/* The point of the plan: best-of (and so optimal's first incumbent) is above it. */
static void
test_column_plan_below_best_of (void)
{
  g_autofree char *graph = test_fixture_path ("real/somas-pangu_2.6B.csv.gz");
  g_autofree char *out = NULL, *err = NULL;

  g_assert_cmpint (test_run_cli (&out, &err, "plan", graph, "--planner", "best-of", "--format",
                                 "json", NULL),
                   ==, 0);
  g_assert_cmpuint (json_arena (out), >, PANGU_COLUMN_ARENA);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/cli/validate/pangu-column-plan", test_column_plan_valid);
  g_test_add_func ("/cli/plan/pangu-column-below-best-of", test_column_plan_below_best_of);
  g_test_add_func ("/cli/validate/pangu-optimal-plan", test_optimal_plan_at_bound);
  return g_test_run ();
}
