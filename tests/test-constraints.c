/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Per-buffer constraints (issue 28): alignment, fixed and preferred offsets
 * and MiniMalloc's lifetime gaps, planned by every planner with offsets
 * worked out by hand, validated, written back as MiniMalloc CSV, and
 * MiniMalloc's own solver tests with their verdicts. */
#include <string.h>

#include "graph.h"
#include "memories.h"
#include "mp-error.h"
#include "plan-io.h"
#include "planner.h"
#include "validate.h"

/* tensors x (input, pinned at 64), a (32 B, aligned to 32), b (16 B,
 * preferred at 96), y (output, pinned at 0); x at step 0, a 0-2, b 1-2,
 * y 2. */
static const char pin_json[] =
  "{\"format\":\"memplan.graph/1\",\"name\":\"pin\",\"alignment\":1,\"tensors\":["
  "{\"name\":\"x\",\"size\":16,\"kind\":\"input\",\"fixed_offset\":64},"
  "{\"name\":\"a\",\"size\":32,\"alignment\":32},"
  "{\"name\":\"b\",\"size\":16,\"preferred_offset\":96},"
  "{\"name\":\"y\",\"size\":8,\"kind\":\"output\",\"fixed_offset\":0}],\"ops\":["
  "{\"name\":\"f\",\"inputs\":[\"x\"],\"outputs\":[\"a\"]},"
  "{\"name\":\"g\",\"inputs\":[\"a\"],\"outputs\":[\"b\"]},"
  "{\"name\":\"h\",\"inputs\":[\"b\",\"a\"],\"outputs\":[\"y\"]}]}";

static MpPlan *
run (const char *planner, const MpGraph *graph, const MpLifetimes *lt, GError **error)
{
  MpPlannerOptions options = { .time_budget = 60 };

  return mp_planner_run (mp_planner_lookup (planner), graph, lt, &options, NULL, error);
}

static guint64
offset_of (const MpGraph *graph, const MpLifetimes *lt, const MpPlan *plan, const char *name)
{
  gint t = mp_graph_find_tensor (graph, name);

  g_assert_cmpint (t, >=, 0);
  g_assert_cmpint (lt->record_of[t], >=, 0);
  return plan->offsets[lt->record_of[t]];
}

static void
assert_valid (const MpGraph *graph, const MpPlan *plan)
{
  g_autoptr (GError) error = NULL;

  g_assert_true (mp_validate_records (graph, plan->records, plan->n_records, plan->offsets,
                                      plan->alignment, plan->arena, &error));
  g_assert_no_error (error);
}

/* Worked by hand. x and y sit at their fixed offsets. The greedy planners
 * put a (largest) at the lowest multiple of 32 clear of x [64, 80) at step 0
 * and y [0, 8) at step 2: 32. b takes its preferred 96, free of a [32, 64).
 * naive stacks a on the fixed ones at 96 (80 rounded up to 32) and b at 128.
 * optimal ignores the preference: b at 8, the arena 80 (x's end). */
static void
test_pinned_every_planner (void)
{
  static const struct
  {
    const char *planner;
    guint64     x, a, b, y, arena;
  } expect[] = {
    { "naive", 64, 96, 128, 0, 144 },         { "greedy-by-size", 64, 32, 96, 0, 112 },
    { "greedy-by-breadth", 64, 32, 96, 0, 112 }, { "best-fit", 64, 32, 96, 0, 112 },
    { "first-fit", 64, 32, 96, 0, 112 },      { "multistream", 64, 32, 96, 0, 112 },
    { "optimal", 64, 32, 8, 0, 80 },
  };
  g_autoptr (GError) error = NULL;
  g_autoptr (MpGraph) graph = mp_graph_parse_json (pin_json, strlen (pin_json), "pin.json",
                                                   &error);
  MpLifetimeOptions       opts = { .plan_inputs = TRUE };
  g_autoptr (MpLifetimes) lt = NULL;

  g_assert_no_error (error);
  lt = mp_lifetimes_compute (graph, &opts, &error);
  g_assert_no_error (error);
  g_assert_true (lt->constrained);
  for (guint i = 0; i < G_N_ELEMENTS (expect); i++)
    {
      g_autoptr (MpPlan) plan = run (expect[i].planner, graph, lt, &error);

      g_test_message ("%s", expect[i].planner);
      g_assert_no_error (error);
      g_assert_cmpuint (offset_of (graph, lt, plan, "x"), ==, expect[i].x);
      g_assert_cmpuint (offset_of (graph, lt, plan, "a"), ==, expect[i].a);
      g_assert_cmpuint (offset_of (graph, lt, plan, "b"), ==, expect[i].b);
      g_assert_cmpuint (offset_of (graph, lt, plan, "y"), ==, expect[i].y);
      g_assert_cmpuint (plan->arena, ==, expect[i].arena);
      assert_valid (graph, plan);
    }
  {
    g_autoptr (MpPlan) plan = run ("partition", graph, lt, &error);

    g_assert_null (plan);
    g_assert_error (error, MP_ANALYSIS_ERROR, MP_ANALYSIS_ERROR_UNSUPPORTED);
    g_assert_cmpstr (error->message, ==,
                     "partition cannot honour per-buffer alignment, fixed or preferred offsets "
                     "or gaps, which 'pin' has");
  }
}

static MpGraph *
parse_csv (const char *text, const char *path, guint64 **offsets)
{
  g_autoptr (GError) error = NULL;
  MpGraph *graph = mp_graph_parse_csv (text, strlen (text), path, offsets, &error);

  g_assert_no_error (error);
  return graph;
}

/* MiniMalloc's CSV: a and b aligned to 2, b preferred at 6, c (3 B) free;
 * one step. greedy-by-size: c at 0, a at 4 (3 rounded up to 2), b at its
 * hint 6. naive stacks in file order: a 0, b 2 (1 rounded up), c 3.
 * optimal: a 0, c 1, b 4, arena 5 = the bytes. The gap case: a [0, 4) holds nothing in
 * [1, 3), when b [1, 3) takes the same two bytes. Tetris: a holds [0, 1)
 * until 5, b [1, 2) from 5, so b fits at 1 above a; first fit takes b
 * first (on a tie the last to appear) and a lands at 2. */
static void
test_csv_every_planner (void)
{
  static const struct
  {
    const char *csv;
    const char *planner;
    guint64     offsets[3];
    guint64     arena;
  } expect[] = {
    { "id,lower,upper,size,alignment,hint\na,0,2,1,2,-1\nb,0,2,1,2,6\nc,0,2,3,1,-1\n",
      "naive", { 0, 2, 3 }, 6 },
    { "id,lower,upper,size,alignment,hint\na,0,2,1,2,-1\nb,0,2,1,2,6\nc,0,2,3,1,-1\n",
      "greedy-by-size", { 4, 6, 0 }, 7 },
    { "id,lower,upper,size,alignment,hint\na,0,2,1,2,-1\nb,0,2,1,2,6\nc,0,2,3,1,-1\n",
      "best-fit", { 4, 6, 0 }, 7 },
    { "id,lower,upper,size,alignment,hint\na,0,2,1,2,-1\nb,0,2,1,2,6\nc,0,2,3,1,-1\n",
      "first-fit", { 4, 6, 0 }, 7 },
    { "id,lower,upper,size,alignment,hint\na,0,2,1,2,-1\nb,0,2,1,2,6\nc,0,2,3,1,-1\n",
      "optimal", { 0, 4, 1 }, 5 },
    { "id,lower,upper,size,gaps\na,0,4,2,1-3\nb,1,3,2,\n", "naive", { 0, 2 }, 4 },
    { "id,lower,upper,size,gaps\na,0,4,2,1-3\nb,1,3,2,\n", "greedy-by-size", { 0, 0 }, 2 },
    { "id,lower,upper,size,gaps\na,0,4,2,1-3\nb,1,3,2,\n", "best-fit", { 0, 0 }, 2 },
    { "id,lower,upper,size,gaps\na,0,4,2,1-3\nb,1,3,2,\n", "first-fit", { 0, 0 }, 2 },
    { "id,lower,upper,size,gaps\na,0,4,2,1-3\nb,1,3,2,\n", "optimal", { 0, 0 }, 2 },
    { "id,lower,upper,size,gaps\na,0,10,2,0-5@0:1\nb,0,10,2,5-10@1:2\n", "greedy-by-size",
      { 0, 1 }, 3 },
    { "id,lower,upper,size,gaps\na,0,10,2,0-5@0:1\nb,0,10,2,5-10@1:2\n", "first-fit",
      { 2, 0 }, 4 },
    { "id,lower,upper,size,gaps\na,0,10,2,0-5@0:1\nb,0,10,2,5-10@1:2\n", "optimal",
      { 0, 1 }, 3 },
  };

  for (guint i = 0; i < G_N_ELEMENTS (expect); i++)
    {
      g_autoptr (GError) error = NULL;
      g_autoptr (MpGraph) graph = parse_csv (expect[i].csv, "c.csv", NULL);
      g_autoptr (MpLifetimes) lt = mp_lifetimes_compute (graph, NULL, &error);
      g_autoptr (MpPlan) plan = NULL;

      g_test_message ("case %u: %s", i, expect[i].planner);
      g_assert_no_error (error);
      plan = run (expect[i].planner, graph, lt, &error);
      g_assert_no_error (error);
      for (guint r = 0; r < plan->n_records; r++)
        g_assert_cmpuint (plan->offsets[r], ==, expect[i].offsets[r]);
      g_assert_cmpuint (plan->arena, ==, expect[i].arena);
      assert_valid (graph, plan);
    }
}

/* The lower bound counts a gap's window only: tetris holds 1 + 2 bytes at
 * every step; the gap case 2. */
static void
test_lower_bound (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (MpGraph) tetris = parse_csv ("id,lower,upper,size,gaps\na,0,10,2,0-5@0:1\n"
                                          "b,0,10,2,5-10@1:2\n", "t.csv", NULL);
  g_autoptr (MpGraph) gaps = parse_csv ("id,lower,upper,size,gaps\na,0,4,2,1-3\nb,1,3,2,\n",
                                        "g.csv", NULL);
  g_autoptr (MpLifetimes) lt1 = mp_lifetimes_compute (tetris, NULL, &error);
  g_autoptr (MpLifetimes) lt2 = mp_lifetimes_compute (gaps, NULL, &error);

  g_assert_no_error (error);
  g_assert_cmpuint (lt1->lower_bound, ==, 3);
  g_assert_cmpuint (lt2->lower_bound, ==, 2);
}

/* A plan that breaks a constraint is invalid with the buffer named. */
static void
test_validate (void)
{
  static const struct
  {
    const char *csv;
    const char *message;
  } cases[] = {
    { "id,lower,upper,size,alignment,offset\na,0,2,4,4,2\n",
      "tensor 'a': offset 2 is not a multiple of its alignment 4" },
    { "id,lower,upper,size,fixed_offset,offset\na,0,2,4,8,0\n",
      "tensor 'a': offset 0 is not its fixed offset 8" },
    { "id,lower,upper,size,gaps,offset\na,0,4,2,1-2,0\nb,1,3,2,,0\n",
      "tensors 'a' (offset 0, 2 bytes, steps 0-3) and 'b' (offset 0, 2 bytes, steps 1-2) "
      "overlap at step 1 in bytes [0, 2)" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr (GError) error = NULL;
      g_autofree guint64 *offsets = NULL;
      g_autoptr (MpGraph) graph = parse_csv (cases[i].csv, "v.csv", &offsets);
      g_autoptr (MpLifetimes) lt = mp_lifetimes_compute (graph, NULL, &error);
      guint64 arena = 0;

      g_assert_no_error (error);
      for (guint r = 0; r < lt->n_records; r++)
        arena = MAX (arena, offsets[r] + lt->records[r].bytes);
      g_assert_false (mp_validate_records (graph, lt->records, lt->n_records, offsets,
                                           lt->alignment, arena, &error));
      g_assert_cmpstr (error->message, ==, cases[i].message);
    }
  /* during a's gap b may have its bytes */
  {
    g_autoptr (GError) error = NULL;
    g_autofree guint64 *offsets = NULL;
    g_autoptr (MpGraph) graph = parse_csv ("id,lower,upper,size,gaps,offset\na,0,4,2,1-3,0\n"
                                           "b,1,3,2,,0\n", "v.csv", &offsets);
    g_autoptr (MpLifetimes) lt = mp_lifetimes_compute (graph, NULL, &error);

    g_assert_true (mp_validate_records (graph, lt->records, lt->n_records, offsets,
                                        lt->alignment, 2, &error));
  }
}

/* Bad constraints are refused with the key and the tensor named. */
static void
test_bad_input (void)
{
  static const struct
  {
    const char *text;
    gboolean    json;
    const char *message;
  } cases[] = {
    { "{\"format\":\"memplan.graph/1\",\"tensors\":[{\"name\":\"a\",\"size\":4,"
      "\"alignment\":3}],\"ops\":[{\"name\":\"f\",\"inputs\":[],\"outputs\":[\"a\"]}]}",
      TRUE, "b.json: tensor 'a': \"alignment\" must be a power of two from 1 to 2^30, got 3" },
    { "{\"format\":\"memplan.graph/1\",\"tensors\":[{\"name\":\"a\",\"size\":4,"
      "\"fixed_offset\":-4}],\"ops\":[{\"name\":\"f\",\"inputs\":[],\"outputs\":[\"a\"]}]}",
      TRUE, "b.json: tensor 'a': \"fixed_offset\" must be an offset from 0 to 2^48 bytes, got -4" },
    { "{\"format\":\"memplan.graph/1\",\"tensors\":[{\"name\":\"a\",\"size\":4},"
      "{\"name\":\"v\",\"view_of\":\"a\",\"preferred_offset\":0}],"
      "\"ops\":[{\"name\":\"f\",\"inputs\":[],\"outputs\":[\"a\"]}]}",
      TRUE, "b.json: tensor 'v': a view takes its place from its base and cannot have "
            "\"preferred_offset\"" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr (GError) error = NULL;
      g_autoptr (MpGraph) graph = mp_graph_parse_json (cases[i].text, strlen (cases[i].text),
                                                       "b.json", &error);

      g_assert_null (graph);
      g_assert_cmpstr (error->message, ==, cases[i].message);
    }
  {
    g_autoptr (GError) error = NULL;
    g_autoptr (MpGraph) graph = parse_csv ("id,lower,upper,size,fixed_offset,alignment\n"
                                           "a,0,2,4,6,4\n", "f.csv", NULL);
    g_autoptr (MpLifetimes) lt = mp_lifetimes_compute (graph, NULL, &error);

    g_assert_null (lt);
    g_assert_cmpstr (error->message, ==,
                     "f.csv: tensor 'a': fixed offset 6 is not a multiple of its alignment 4");
  }
  {
    g_autoptr (GError) error = NULL;
    g_autoptr (MpGraph) graph = parse_csv ("id,lower,upper,size,fixed_offset\n"
                                           "a,0,2,4,0\nb,1,3,4,2\n", "f.csv", NULL);
    g_autoptr (MpLifetimes) lt = mp_lifetimes_compute (graph, NULL, &error);

    g_assert_null (lt);
    g_assert_cmpstr (error->message, ==,
                     "f.csv: tensors 'a' (fixed offset 0) and 'b' (fixed offset 2) overlap "
                     "while both are live");
  }
}

/* A plan written as CSV carries every column back in MiniMalloc's syntax
 * and reads back to the same text. */
static void
test_csv_round_trip (void)
{
  static const char text[] = "id,lower,upper,size,alignment,hint,gaps,fixed_offset\n"
                             "a,0,10,2,1,-1,0-5@0:1,-1\nb,0,10,2,2,4,5-10@1:2,-1\n"
                             "c,2,6,4,4,-1,3-4,8\n";
  g_autoptr (GError) error = NULL;
  g_autoptr (MpGraph) graph = parse_csv (text, "r.csv", NULL);
  g_autoptr (MpLifetimes) lt = mp_lifetimes_compute (graph, NULL, &error);
  g_autoptr (MpPlan) plan = run ("greedy-by-size", graph, lt, &error);
  g_autofree char *csv = mp_plan_to_csv (graph, plan);
  g_autofree guint64 *offsets = NULL;
  g_autoptr (MpGraph) again = parse_csv (csv, "r.csv", &offsets);
  g_autoptr (MpLifetimes) lt2 = mp_lifetimes_compute (again, NULL, &error);
  g_autoptr (MpPlan) plan2 = mp_plan_new ("file", lt2);
  g_autofree char *csv2 = NULL;

  g_assert_no_error (error);
  g_assert_cmpstr (csv, ==,
                   "id,lower,upper,size,alignment,hint,gaps,fixed_offset,offset\n"
                   "a,0,10,2,1,-1,0-5@0:1,-1,0\nb,0,10,2,2,4,5-10@1:2,-1,4\n"
                   "c,2,6,4,4,-1,3-4,8,8\n");
  memcpy (plan2->offsets, offsets, sizeof (guint64) * plan2->n_records);
  csv2 = mp_plan_to_csv (again, plan2);
  g_assert_cmpstr (csv2, ==, csv);
}

/* MiniMalloc's solver tests (tests/data/minimalloc-tests/cases.txt): the
 * proved minimum fits the capacity exactly when MiniMalloc finds the
 * instance feasible, and the plan is valid. */
static void
test_minimalloc_cases (void)
{
  g_autofree char *dir = g_build_filename (MEMPLAN_TEST_SOURCE_DIR, "tests", "data",
                                           "minimalloc-tests", NULL);
  g_autofree char *list = g_build_filename (dir, "cases.txt", NULL);
  g_autofree char *text = NULL;
  g_auto (GStrv) lines = NULL;
  guint n_cases = 0;

  g_assert_true (g_file_get_contents (list, &text, NULL, NULL));
  lines = g_strsplit (text, "\n", -1);
  for (guint i = 0; lines[i]; i++)
    {
      g_auto (GStrv) word = g_strsplit_set (g_strstrip (lines[i]), " ", -1);
      g_autoptr (GPtrArray) w = g_ptr_array_new ();
      g_autoptr (GError) error = NULL;
      g_autofree char *path = NULL;
      g_autoptr (MpGraph) graph = NULL;
      g_autoptr (MpLifetimes) lt = NULL;
      g_autoptr (MpPlan) plan = NULL;
      guint64 capacity;

      for (guint k = 0; word[k]; k++)
        if (*word[k])
          g_ptr_array_add (w, word[k]);
      if (w->len == 0 || *(char *) w->pdata[0] == '#')
        continue;
      g_assert_cmpuint (w->len, ==, 3);
      g_test_message ("%s", (char *) w->pdata[0]);
      path = g_build_filename (dir, w->pdata[0], NULL);
      capacity = g_ascii_strtoull (w->pdata[1], NULL, 10);
      {
        g_autofree char *data = NULL;
        gsize            len;

        g_assert_true (g_file_get_contents (path, &data, &len, NULL));
        graph = mp_graph_parse_csv (data, len, path, NULL, &error);
      }
      g_assert_no_error (error);
      lt = mp_lifetimes_compute (graph, NULL, &error);
      g_assert_no_error (error);
      plan = run ("optimal", graph, lt, &error);
      g_assert_no_error (error);
      g_assert_true (plan->proved_optimal);
      assert_valid (graph, plan);
      g_assert_cmpint (plan->arena <= capacity, ==, g_str_equal (w->pdata[2], "feasible"));
      n_cases++;
    }
  g_assert_cmpuint (n_cases, ==, 15);
}

/* data/mcu-cnn.json in 256 KiB of SRAM, then PSRAM. At add1 (step 3)
 * conv1, pw1 and res1 are live, 300 KiB: over. conv1 has the most bytes x
 * steps (100 KiB x steps 0-3), so it spills; then at most two 100 KiB
 * tensors are live together and greedy by size needs 200 KiB of SRAM.
 * conv1 is written once and read twice: 300 KiB of PSRAM traffic. */
static void
test_spill (void)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *path = g_build_filename (MEMPLAN_TEST_DATA_DIR, "mcu-cnn.json", NULL);
  g_autoptr (MpGraph) graph = mp_graph_load_json (path, &error);
  MpLifetimeOptions       opts = { .plan_inputs = TRUE };
  g_autoptr (MpLifetimes) lt = NULL;
  MpMemory                memories[2] = { { 0 } };
  MpPlannerOptions        options = { 0 };
  g_autoptr (MpSpill) spill = NULL;
  gint conv1;

  g_assert_no_error (error);
  lt = mp_lifetimes_compute (graph, &opts, &error);
  g_assert_no_error (error);
  g_assert_true (mp_memory_parse ("sram=256K", &memories[0], &error));
  g_assert_true (mp_memory_parse ("psram", &memories[1], &error));
  g_assert_cmpuint (memories[0].capacity, ==, 256 * 1024);
  g_assert_cmpuint (memories[1].capacity, ==, 0);
  spill = mp_spill_plan (graph, lt, mp_planner_lookup ("greedy-by-size"), memories, 2, &options,
                         NULL, &error);
  g_assert_no_error (error);
  conv1 = lt->record_of[mp_graph_find_tensor (graph, "conv1")];
  for (guint i = 0; i < lt->n_records; i++)
    g_assert_cmpuint (spill->memory_of[i], ==, (gint) i == conv1 ? 1 : 0);
  g_assert_cmpuint (spill->arena[0], ==, 200 * 1024);
  g_assert_cmpuint (spill->arena[1], ==, 100 * 1024);
  g_assert_cmpuint (spill->accesses[conv1], ==, 3);
  g_assert_cmpuint (spill->traffic[1], ==, 300 * 1024);
  g_assert_true (spill->fits);
  for (guint k = 0; k < 2; k++)
    g_free (memories[k].name);
  g_assert_false (mp_memory_parse ("sram=lots", &memories[0], &error));
  g_assert_cmpstr (error->message, ==, "--memory 'sram=lots': expected NAME or NAME=SIZE with a "
                                       "size such as 256K, 8M or 4096");
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/analysis/constraints/pinned-every-planner", test_pinned_every_planner);
  g_test_add_func ("/analysis/constraints/csv-every-planner", test_csv_every_planner);
  g_test_add_func ("/analysis/constraints/lower-bound", test_lower_bound);
  g_test_add_func ("/analysis/constraints/validate", test_validate);
  g_test_add_func ("/analysis/constraints/bad-input", test_bad_input);
  g_test_add_func ("/analysis/constraints/csv-round-trip", test_csv_round_trip);
  g_test_add_func ("/analysis/constraints/minimalloc-cases", test_minimalloc_cases);
  g_test_add_func ("/analysis/constraints/spill", test_spill);
  return g_test_run ();
}
