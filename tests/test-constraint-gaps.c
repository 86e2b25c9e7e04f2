/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Lifetime gaps in graph JSON (issue 28): planned with offsets worked out
 * by hand, kept by the writer, bad gaps refused with the key and the tensor
 * named; and explain's reasons for constrained places. */
#include <string.h>

#include "constraint-explain.h"
#include "graph.h"
#include "planner.h"
#include "test-constraint-data.h"
#include "validate.h"


static const char hole_json[] = GAPPY_JSON ("{\"from\":1,\"to\":3}");
static const char window_json[] = GAPPY_JSON ("{\"from\":1,\"to\":3,\"window\":[0,16]}");

static MpGraph *
parse (const char *text)
{
  g_autoptr (GError) error = NULL;
  MpGraph *graph = mp_graph_parse_json (text, strlen (text), "gappy.json", &error);

  g_assert_no_error (error);
  return graph;
}

static MpPlan *
run (const char *planner, const MpGraph *graph, const MpLifetimes *lt)
{
  g_autoptr (GError) error = NULL;
  MpPlannerOptions   options = { .time_budget = 60 };
  MpPlan            *plan = mp_planner_run (mp_planner_lookup (planner), graph, lt, &options, NULL,
                                            &error);

  g_assert_no_error (error);
  g_assert_nonnull (plan);
  return plan;
}

static guint64
offset_of (const MpGraph *graph, const MpLifetimes *lt, const MpPlan *plan, const char *name)
{
  gint t = mp_graph_find_tensor (graph, name);

  g_assert_cmpint (t, >=, 0);
  return plan->offsets[lt->record_of[t]];
}

/* Worked by hand. With a gone during ops 1-2 the peak is op 3: a + c + y =
 * 112 (without the gap op 2 holds 144). greedy-by-size: a at 0; b fits at 0
 * while a is away; c (ops 2-3) clears b [0, 48) and a [0, 64): 64; y: 96.
 * With the window [0, 16) a keeps its first 16 bytes, so b goes to 16; c
 * and y as before; the bound at op 2 is 16 + 48 + 32 = 96, still 112 in
 * all. Every planner stays valid; optimal reaches the bound. */
static void
test_gaps_planned (void)
{
  static const struct
  {
    const char *json;
    guint64     b, lower;
  } cases[] = { { hole_json, 0, 112 }, { window_json, 16, 112 } };
  static const char *const planners[] = { "naive", "greedy-by-size", "greedy-by-breadth",
                                          "best-fit", "first-fit", "multistream", "optimal" };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr (GError) error = NULL;
      g_autoptr (MpGraph) graph = parse (cases[i].json);
      g_autoptr (MpLifetimes) lt = mp_lifetimes_compute (graph, NULL, &error);

      g_assert_no_error (error);
      g_assert_cmpuint (lt->lower_bound, ==, cases[i].lower);
      for (guint p = 0; p < G_N_ELEMENTS (planners); p++)
        {
          g_autoptr (MpPlan) plan = run (planners[p], graph, lt);

          g_assert_true (mp_validate_records (graph, plan->records, plan->n_records,
                                              plan->offsets, plan->alignment, plan->arena,
                                              &error));
          g_assert_no_error (error);
          if (g_str_equal (planners[p], "greedy-by-size"))
            {
              g_assert_cmpuint (offset_of (graph, lt, plan, "a"), ==, 0);
              g_assert_cmpuint (offset_of (graph, lt, plan, "b"), ==, cases[i].b);
              g_assert_cmpuint (offset_of (graph, lt, plan, "c"), ==, 64);
              g_assert_cmpuint (offset_of (graph, lt, plan, "y"), ==, 96);
              g_assert_cmpuint (plan->arena, ==, 112);
            }
          if (g_str_equal (planners[p], "optimal"))
            g_assert_cmpuint (plan->arena, ==, 112);
        }
    }
}

/* A plan that puts b over a while a keeps its window is INVALID. */
static void
test_gaps_validate (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (MpGraph) graph = parse (window_json);
  g_autoptr (MpLifetimes) lt = mp_lifetimes_compute (graph, NULL, &error);
  g_autoptr (MpPlan) plan = run ("greedy-by-size", graph, lt);

  g_assert_no_error (error);
  plan->offsets[lt->record_of[mp_graph_find_tensor (graph, "b")]] = 8;
  g_assert_false (mp_validate_records (graph, plan->records, plan->n_records, plan->offsets,
                                       plan->alignment, plan->arena, &error));
  g_assert_nonnull (strstr (error->message, "'a'"));
  g_assert_nonnull (strstr (error->message, "'b'"));
}

/* The writer keeps the gaps: written, read back, written again, the same. */
static void
test_gaps_written (void)
{
  g_autoptr (MpGraph) graph = parse (window_json);
  g_autofree char *once = mp_graph_to_json (graph);
  g_autoptr (MpGraph) again = parse (once);
  g_autofree char *twice = mp_graph_to_json (again);
  gint a = mp_graph_find_tensor (again, "a");
  const MpGap *gap;

  g_assert_cmpstr (once, ==, twice);
  g_assert_nonnull (strstr (once, "\"gaps\""));
  g_assert_cmpuint (again->tensors[a].n_gaps, ==, 1);
  gap = &g_array_index (again->gaps, MpGap, again->tensors[a].gap_first);
  g_assert_cmpint (gap->first, ==, 1);
  g_assert_cmpint (gap->last, ==, 2);
  g_assert_true (gap->windowed);
  g_assert_cmpuint (gap->lo, ==, 0);
  g_assert_cmpuint (gap->hi, ==, 16);
}

/* Bad gaps are refused with the key and the tensor named. */
static void
test_gaps_bad (void)
{
  static const struct
  {
    const char *json;
    const char *message;
  } cases[] = {
    { GAPPY_JSON ("{\"from\":1,\"to\":5}"),
      "gappy.json: tensor 'a': \"gaps\"[0] (from 1 to 5) lies outside its lifetime (ops 0 to 3 "
      "inclusive)" },
    { GAPPY_JSON ("{\"from\":1,\"to\":3},{\"from\":2,\"to\":3}"),
      "gappy.json: tensor 'a': \"gaps\"[1] (from 2 to 3) overlaps the gap before it (gaps go in "
      "order, apart)" },
    { GAPPY_JSON ("{\"from\":1,\"to\":2,\"window\":[0,65]}"),
      "gappy.json: tensor 'a': \"gaps\"[0] (from 1 to 2) has a window that is not inside the "
      "tensor (lo <= hi <= size)" },
    { GAPPY_JSON ("{\"from\":2,\"to\":2}"),
      "gappy.json: tensor 'a': \"gaps\"[0] (from 2 to 2) is empty: \"to\" must be past \"from\"" },
    { GAPPY_JSON ("{\"from\":1}"),
      "gappy.json: tensor 'a': \"gaps\"[0] needs both \"from\" and \"to\"" },
    { GAPPY_JSON ("{\"from\":1,\"to\":2,\"at\":3}"),
      "gappy.json: tensor 'a': \"gaps\"[0] unknown key \"at\" (known: from, to, window)" },
    { GAPPY_JSON ("{\"from\":1,\"to\":2,\"window\":[4]}"),
      "gappy.json: tensor 'a': \"gaps\"[0] \"window\" must be a list [lo, hi] of byte offsets" },
    { GAPPY_JSON ("{\"from\":-1,\"to\":2}"),
      "gappy.json: tensor 'a': \"gaps\"[0] \"from\" must be an op index" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr (GError) error = NULL;
      g_autoptr (MpGraph) graph = mp_graph_parse_json (cases[i].json, strlen (cases[i].json),
                                                       "gappy.json", &error);
      g_autoptr (MpLifetimes) lt = NULL;

      if (graph)
        lt = mp_lifetimes_compute (graph, NULL, &error);
      g_assert_null (lt);
      g_assert_cmpstr (error->message, ==, cases[i].message);
    }
}

static const char pin_json[] = PIN_JSON;

static char *
explain (const char *text, gboolean plan_inputs, const char *planner)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (MpGraph) graph = mp_graph_parse_json (text, strlen (text), "e.json", &error);
  MpLifetimeOptions       opts = { .plan_inputs = plan_inputs };
  g_autoptr (MpLifetimes) lt = mp_lifetimes_compute (graph, &opts, &error);
  g_autoptr (MpPlan) plan = NULL;

  g_assert_no_error (error);
  plan = run (planner, graph, lt);
  return mp_constraint_explain (graph, plan);
}

/* The reasons, worked by hand. pin: greedy-by-size puts a above y [0, 8)
 * at step 2, so at 8 rounded up to 32; b at its preferred 96. gappy: b
 * sits in a's space during a's gap (ops 1-2). tests/data/constraints/
 * pinned-gaps.json: t4 prefers 0, where t3 [0, 4 KiB) lives at op 4, so best-fit puts it at
 * 8 KiB. */
static void
test_explain (void)
{
  g_autofree char *pin = explain (pin_json, TRUE, "greedy-by-size");
  g_autofree char *hole = explain (hole_json, FALSE, "greedy-by-size");
  g_autofree char *window = explain (window_json, FALSE, "greedy-by-size");
  g_autofree char *path = g_build_filename (MEMPLAN_TEST_SOURCE_DIR, "tests", "data",
                                            "constraints", "pinned-gaps.json", NULL);
  g_autofree char *data = NULL;
  g_autofree char *pg = NULL;

  g_assert_cmpstr (pin, ==,
                   "x: pinned at 64 (fixed_offset)\n"
                   "a: aligned to 32: offset rounded up from 8\n"
                   "b: at its preferred offset 96\n"
                   "y: pinned at 0 (fixed_offset)\n");
  g_assert_cmpstr (hole, ==, "a: during its gap 1–2 b used its space\n");
  g_assert_cmpstr (window, ==, "a: during its gap 1–2 b used its space outside its window\n");
  g_assert_true (g_file_get_contents (path, &data, NULL, NULL));
  pg = explain (data, TRUE, "best-fit");
  g_assert_cmpstr (pg, ==,
                   "image: pinned at 8192 (fixed_offset)\n"
                   "t4: preferred 0 taken by t3, placed at 8192\n"
                   "out: pinned at 0 (fixed_offset)\n");
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/analysis/constraint-gaps/planned", test_gaps_planned);
  g_test_add_func ("/analysis/constraint-gaps/validate", test_gaps_validate);
  g_test_add_func ("/analysis/constraint-gaps/written", test_gaps_written);
  g_test_add_func ("/analysis/constraint-gaps/bad", test_gaps_bad);
  g_test_add_func ("/analysis/constraint-gaps/explain", test_explain);
  return g_test_run ();
}
