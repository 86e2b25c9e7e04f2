/* SPDX-License-Identifier: GPL-3.0-or-later */
#include <string.h>
#include <glib/gstdio.h>
#include <json-c/json.h>

#include "hand-cases.h"

/* The planners: hand-worked offsets for each (from the reference semantics:
 * Pisarchyk & Lee, XLA heap simulator, tract's memory schema, AITemplate),
 * invariants on random inputs, the parallel schedule and the verdicts of
 * mp_plan_judge under it, and the CLI paths that run them. The validator's
 * own tests are in test-validate.c, first-fit's in test-planner-first-fit.c. */

#define K 262144 /* f32 [1, 64, 32, 32] */

static MpPlan *
run_planner (const char *name, const MpGraph *graph, const MpLifetimes *lt,
             const MpPlannerOptions *options)
{
  g_autoptr (GError) error = NULL;
  MpPlan *plan = mp_planner_run (mp_planner_lookup (name), graph, lt, options, NULL, &error);

  g_assert_no_error (error);
  g_assert_nonnull (plan);
  return plan;
}

static void
assert_offsets (const MpPlan *plan, const guint64 *offsets, guint n, guint64 arena)
{
  g_assert_cmpuint (plan->n_records, ==, n);
  for (guint i = 0; i < n; i++)
    g_assert_cmpuint (plan->offsets[i], ==, offsets[i]);
  g_assert_cmpuint (plan->arena, ==, arena);
}

/* ---- naive and greedy-by-size: the foundation's hand cases ---- */

typedef struct
{
  const char       *name;
  const TestRecord *records;
  guint             n;
  guint64           alignment;
  const guint64    *offsets; /* greedy-by-size */
  guint64           arena;
  guint64           naive;       /* 0: not checked */
  guint64           lower_bound; /* 0: not checked */
} HandCase;

static const guint64    case1_off[] = { 0, 64, 0, 64, 0 };
static const guint64    case1_off128[] = { 0, 128, 0, 128, 0 };
static const guint64    case2_off[] = { 0, 32, 80, 64, 88, 0, 64, 72, 0 };
static const guint64    case3_off[] = { 0, 32, 64, 100, 116, 0, 104, 64 };
static const guint64    case4_off[] = { 64, 152, 0, 0, 120 };

static const HandCase hand_cases[] = {
  { "case1", case1, G_N_ELEMENTS (case1), 1, case1_off, 96, 128, 0 },
  { "case1-align128", case1, G_N_ELEMENTS (case1), 128, case1_off128, 160, 0, 0 },
  { "case2", case2, G_N_ELEMENTS (case2), 1, case2_off, 96, 0, 0 },
  { "case3", case3, G_N_ELEMENTS (case3), 1, case3_off, 124, 234, 124 },
  { "case4", case4, G_N_ELEMENTS (case4), 1, case4_off, 192, 0, 0 },
};

static void
test_greedy_hand_case (gconstpointer data)
{
  const HandCase *hc = data;
  g_autoptr (MpGraph) graph = test_graph_from_records (hc->records, hc->n);
  MpLifetimeOptions opts = { .alignment = hc->alignment };
  g_autoptr (GError) error = NULL;
  g_autoptr (MpLifetimes) lt = mp_lifetimes_compute (graph, &opts, &error);
  g_autoptr (MpPlan) greedy = NULL;
  g_autoptr (MpPlan) naive = NULL;

  g_assert_no_error (error);
  greedy = test_run_planner ("greedy-by-size", graph, lt);
  g_assert_cmpuint (greedy->n_records, ==, hc->n);
  for (guint i = 0; i < hc->n; i++)
    g_assert_cmpuint (greedy->offsets[i], ==, hc->offsets[i]);
  g_assert_cmpuint (greedy->arena, ==, hc->arena);

  naive = test_run_planner ("naive", graph, lt);
  if (hc->naive)
    g_assert_cmpuint (naive->arena, ==, hc->naive);
  if (hc->lower_bound)
    g_assert_cmpuint (lt->lower_bound, ==, hc->lower_bound);
  g_assert_cmpuint (greedy->arena, >=, lt->lower_bound);
  g_assert_cmpuint (greedy->arena, <=, naive->arena);
}

static void
test_random_invariants (void)
{
  g_autoptr (GRand) rand = g_rand_new_with_seed (20261121);
  guint n_planners;
  const MpPlannerInfo *planners = mp_planners (&n_planners);

  for (guint iter = 0; iter < 2000; iter++)
    {
      guint   n = g_rand_int_range (rand, 1, 60);
      g_autoptr (MpGraph) graph = test_random_records (rand, n, g_rand_int_range (rand, 1, 40), 12);
      MpLifetimeOptions opts = { .alignment = 1u << g_rand_int_range (rand, 0, 8) };
      g_autoptr (MpLifetimes) lt = mp_lifetimes_compute (graph, &opts, NULL);
      guint64 naive_arena = 0, greedy_arena = 0;

      for (guint p = 0; p < n_planners; p++)
        {
          g_autoptr (MpPlan) plan = NULL;

          if (planners[p].needs_ops)
            continue;
          plan = test_run_planner (planners[p].name, graph, lt);
          g_assert_cmpuint (plan->arena, >=, lt->lower_bound);
          if (g_str_equal (planners[p].name, "naive"))
            naive_arena = plan->arena;
          if (g_str_equal (planners[p].name, "greedy-by-size"))
            greedy_arena = plan->arena;
        }
      g_assert_cmpuint (greedy_arena, <=, naive_arena);
    }
}

/* The reference figures of the MiniMalloc challenging set (alignment 1). */
static void
test_minimalloc_reference (void)
{
  static const struct
  {
    const char *file;
    guint       n;
    guint64     lower_bound, greedy, naive;
  } ref[] = {
    { "A.1048576.csv", 154, 1048576, 1374208, 15071232 },
    { "B.1048576.csv", 170, 1048576, 1432576, 17871872 },
    { "C.1048576.csv", 203, 1039360, 1417216, 21476352 },
    { "D.1048576.csv", 213, 986112, 1339392, 7328768 },
    { "E.1048576.csv", 215, 1048576, 1513472, 25556992 },
  };

  for (guint i = 0; i < G_N_ELEMENTS (ref); i++)
    {
      g_autofree char *path = g_build_filename ("minimalloc", ref[i].file, NULL);
      g_autofree char *full = test_data_path (path);
      g_autoptr (GError) error = NULL;
      g_autoptr (MpGraph) graph = test_graph_load (full, &error);
      g_autoptr (MpLifetimes) lt = NULL;
      g_autoptr (MpPlan) greedy = NULL;
      g_autoptr (MpPlan) naive = NULL;

      g_assert_no_error (error);
      lt = mp_lifetimes_compute (graph, NULL, &error);
      g_assert_no_error (error);
      g_assert_cmpuint (lt->n_records, ==, ref[i].n);
      g_assert_cmpuint (lt->lower_bound, ==, ref[i].lower_bound);
      greedy = test_run_planner ("greedy-by-size", graph, lt);
      g_assert_cmpuint (greedy->arena, ==, ref[i].greedy);
      naive = test_run_planner ("naive", graph, lt);
      g_assert_cmpuint (naive->arena, ==, ref[i].naive);
    }
}

/* ---- best-fit: the two reference cases ---- */

typedef struct
{
  const TestRecord *records;
  guint             n;
  const guint64    *offsets;
  guint64           arena;
} RecordCase;

static const TestRecord bf1[] = { { 10, 0, 4 }, { 30, 1, 5 }, { 20, 2, 6 }, { 40, 3, 7 } };
static const guint64    bf1_off[] = { 90, 40, 70, 0 };
/* the smallest gap: b0 fits in [0, 50) and in [90, 120); first fit would take 0 */
static const TestRecord bf2[] = { { 10, 0, 3 }, { 20, 1, 6 }, { 40, 2, 7 }, { 30, 4, 8 }, { 50, 5, 9 } };
static const guint64    bf2_off[] = { 90, 120, 50, 90, 0 };
/* equal sizes: the longer lifetime goes first (greedy-by-size keeps row order) */
static const TestRecord bf3[] = { { 8, 0, 1 }, { 8, 1, 5 }, { 4, 2, 3 } };
static const guint64    bf3_off[] = { 8, 0, 8 };

static const RecordCase best_fit_cases[] = {
  { bf1, G_N_ELEMENTS (bf1), bf1_off, 100 },
  { bf2, G_N_ELEMENTS (bf2), bf2_off, 140 },
  { bf3, G_N_ELEMENTS (bf3), bf3_off, 16 },
};

static void
test_best_fit_hand (void)
{
  for (guint c = 0; c < G_N_ELEMENTS (best_fit_cases); c++)
    {
      const RecordCase *rc = &best_fit_cases[c];
      g_autoptr (MpGraph) graph = test_graph_from_records (rc->records, rc->n);
      g_autoptr (MpLifetimes) lt = mp_lifetimes_compute (graph, NULL, NULL);
      g_autoptr (MpPlan) plan = test_run_planner ("best-fit", graph, lt);

      assert_offsets (plan, rc->offsets, rc->n, rc->arena);
    }
}

/* ---- partition (tract) ---- */

/* Worked by hand: A opens P0, B conflicts with A and opens P1, C (step 1)
 * conflicts with A and joins P1 (weight 170); D (step 2) finds P0 (100) and
 * P1 (170) free and joins the heavier P1, where a first fit would take P0; E
 * conflicts with D and joins P0; F (step 3) conflicts with E and joins P1. */
static const TestRecord part1[] = { { 100, 0, 1 }, { 90, 0, 0 }, { 80, 1, 1 },
                                    { 70, 2, 2 },  { 60, 2, 3 }, { 5, 3, 3 } };
static const guint64    part1_off[] = { 0, 100, 100, 100, 0, 100 };
static const guint64    part1_off64[] = { 0, 128, 128, 128, 0, 128 };

static void
test_partition_hand (void)
{
  g_autoptr (MpGraph) graph = test_graph_from_records (part1, G_N_ELEMENTS (part1));
  g_autoptr (MpLifetimes) lt = mp_lifetimes_compute (graph, NULL, NULL);
  g_autoptr (MpPlan) plan = test_run_planner ("partition", graph, lt);
  MpLifetimeOptions opts = { .alignment = 64 };
  g_autoptr (MpLifetimes) lt64 = mp_lifetimes_compute (graph, &opts, NULL);
  g_autoptr (MpPlan) plan64 = test_run_planner ("partition", graph, lt64);

  assert_offsets (plan, part1_off, G_N_ELEMENTS (part1), 190);
  g_assert_cmpuint (plan->n_partitions, ==, 2);
  g_assert_cmpstr (plan->note, ==, "2 partitions; tract usage 1.0000 (peak 190 B / partitions 190 B)");

  /* a partition is its largest member rounded up: 128 + 128; the top slot's padding is not
   * charged to the arena */
  assert_offsets (plan64, part1_off64, G_N_ELEMENTS (part1), 218);
  g_assert_cmpstr (plan64->note, ==,
                   "2 partitions; tract usage 0.7422 (peak 190 B / partitions 256 B)");
}

/* best-fit's second reference case: r0 finds P0 (50) and P2 (30) free and joins P0 */
static const guint64 part_bf2_off[] = { 0, 120, 50, 90, 0 };

static void
test_partition_stacked (void)
{
  g_autoptr (MpGraph) graph = test_graph_from_records (bf2, G_N_ELEMENTS (bf2));
  g_autoptr (MpLifetimes) lt = mp_lifetimes_compute (graph, NULL, NULL);
  g_autoptr (MpPlan) plan = test_run_planner ("partition", graph, lt);

  assert_offsets (plan, part_bf2_off, G_N_ELEMENTS (bf2), 140);
  g_assert_cmpuint (plan->n_partitions, ==, 4);
}

/* ---- the two-stream sample: breadth, multistream, concurrent validation ---- */

static MpGraph *
load_sample (void)
{
  g_autofree char *path = test_data_path ("multistream.json");
  g_autoptr (GError) error = NULL;
  MpGraph *graph = test_graph_load (path, &error);

  g_assert_no_error (error);
  return graph;
}

/* records in first appearance: stem.a stem.b a.mid b.mid a.out b.out cat logits */
static const guint64 sample_greedy[] = { 2 * K, 4 * K, 0, 2 * K, 4 * K, 5 * K, 0, 2 * K };
/* breadth: concat (4K) first: cat 0, a.out 2K, b.out 3K; then a.conv1: a.mid 0 (the gap under
 * a.out), stem.a 2K; b.conv1: b.mid 4K, stem.b into the gap [3K, 4K); head: logits 2K */
static const guint64 sample_breadth[] = { 2 * K, 3 * K, 0, 4 * K, 2 * K, 3 * K, 0, 2 * K };
/* multistream, groups {stem} {a.conv1 b.conv1} {a.conv2 b.conv2} {concat} {head}: a.mid 0,
 * b.mid 2K, cat 0, stem.a 4K, stem.b 5K, a.out 4K, b.out 5K, logits 2K */
static const guint64 sample_multi[] = { 4 * K, 5 * K, 0, 2 * K, 4 * K, 5 * K, 0, 2 * K };
/* partition: P0 {a.mid cat} P1 {b.mid stem.a logits} P2 {stem.b a.out} P3 {b.out} */
static const guint64 sample_partition[] = { 2 * K, 4 * K, 0, 2 * K, 4 * K, 5 * K, 0, 2 * K };

static void
test_schedule_sample (void)
{
  static const guint levels[] = { 0, 1, 1, 2, 2, 3, 4 };
  g_autoptr (MpGraph) graph = load_sample ();
  g_autoptr (MpSchedule) par = mp_schedule_parallel (graph, 0);
  g_autoptr (MpSchedule) one = mp_schedule_parallel (graph, 1);
  g_autoptr (MpLifetimes) lt = mp_lifetimes_compute (graph, NULL, NULL);
  g_autofree MpUsage *usage = NULL;
  g_autofree char *desc = NULL;

  g_assert_cmpuint (par->n_levels, ==, 5);
  g_assert_cmpuint (par->n_groups, ==, 5);
  for (guint o = 0; o < graph->n_ops; o++)
    {
      g_assert_cmpuint (par->level[o], ==, levels[o]);
      g_assert_cmpuint (par->group[o], ==, levels[o]);
      g_assert_cmpuint (one->group[o], ==, o); /* already in level order */
    }
  g_assert_cmpuint (one->n_groups, ==, 7);
  desc = mp_schedule_describe_group (par, graph, 1);
  g_assert_cmpstr (desc, ==, "ops 'a.conv1' and 'b.conv1'");

  usage = mp_schedule_usage (par, graph, lt->records, lt->n_records);
  /* stem.a: steps 0-1 in op order and groups 0-1; b.mid: steps 2-4, groups 1-2 */
  g_assert_cmpuint (lt->records[0].last, ==, 1);
  g_assert_cmpuint (lt->records[3].first, ==, 2);
  g_assert_cmpuint (usage[0].first, ==, 0);
  g_assert_cmpuint (usage[0].last, ==, 1);
  g_assert_cmpuint (usage[3].first, ==, 1);
  g_assert_cmpuint (usage[3].last, ==, 2);
  g_assert_cmpuint (usage[7].last, ==, 4); /* logits is an output */
}

static void
test_sample_planners (void)
{
  g_autoptr (MpGraph) graph = load_sample ();
  g_autoptr (MpLifetimes) lt = mp_lifetimes_compute (graph, NULL, NULL);
  g_autoptr (MpPlan) greedy = test_run_planner ("greedy-by-size", graph, lt);
  g_autoptr (MpPlan) breadth = test_run_planner ("greedy-by-breadth", graph, lt);
  g_autoptr (MpPlan) multi = test_run_planner ("multistream", graph, lt);
  g_autoptr (MpPlan) part = test_run_planner ("partition", graph, lt);
  g_autoptr (MpPlan) bestfit = test_run_planner ("best-fit", graph, lt);
  MpPlannerOptions one = { .max_parallel_ops = 1 };
  g_autoptr (MpPlan) multi1 = run_planner ("multistream", graph, lt, &one);

  g_assert_cmpuint (lt->lower_bound, ==, 5 * K);
  assert_offsets (greedy, sample_greedy, 8, 6 * K);
  assert_offsets (breadth, sample_breadth, 8, 6 * K);
  assert_offsets (multi, sample_multi, 8, 6 * K);
  assert_offsets (part, sample_partition, 8, 6 * K);
  assert_offsets (bestfit, sample_greedy, 8, 6 * K);
  g_assert_cmpuint (part->n_partitions, ==, 4);

  /* multistream measures lifetimes in groups: its own lower bound is group 1's 6K */
  g_assert_true (multi->parallel);
  g_assert_cmpuint (multi->n_steps, ==, 5);
  g_assert_cmpuint (multi->lower_bound, ==, 6 * K);
  g_assert_cmpstr (multi->note, ==, "7 ops in 5 parallel groups (one per level); steps are groups");

  /* one op per group is op order here: multistream is greedy by size */
  assert_offsets (multi1, sample_greedy, 8, 6 * K);
  g_assert_cmpuint (multi1->n_steps, ==, 7);
  g_assert_cmpstr (multi1->note, ==, "7 ops in 7 parallel groups over 5 levels, at most 1 ops "
                                     "per group; steps are groups");
}

#define SAMPLE_CONFLICT                                                                            \
  "tensors 'stem.a' (offset 524288, 262144 bytes, parallel groups 0-1) and 'b.mid' (offset "       \
  "524288, 524288 bytes, parallel groups 1-2) are live together in parallel group 1 (ops "         \
  "'a.conv1' and 'b.conv1') and overlap in bytes [524288, 786432)"

static void
test_concurrent_validation (void)
{
  g_autoptr (MpGraph) graph = load_sample ();
  g_autoptr (MpLifetimes) lt = mp_lifetimes_compute (graph, NULL, NULL);
  g_autoptr (MpSchedule) par = mp_schedule_parallel (graph, 0);
  g_autoptr (MpSchedule) seq = mp_schedule_sequential (graph);
  g_autoptr (MpPlan) greedy = test_run_planner ("greedy-by-size", graph, lt);
  g_autoptr (MpPlan) multi = test_run_planner ("multistream", graph, lt);
  g_autoptr (GError) error = NULL;

  /* b.conv1 writes b.mid over stem.a while a.conv1, beside it, still reads stem.a */
  g_assert_true (mp_plan_judge (graph, NULL, greedy));
  g_assert_true (mp_validate_schedule (graph, greedy, seq, &error));
  g_assert_no_error (error);
  g_assert_false (mp_validate_schedule (graph, greedy, par, &error));
  g_assert_error (error, MP_ANALYSIS_ERROR, MP_ANALYSIS_ERROR_INVALID);
  g_assert_cmpstr (error->message, ==, SAMPLE_CONFLICT);
  g_clear_error (&error);

  /* the verdicts a report shows: greedy fails only concurrently, which is not its schedule */
  g_assert_true (mp_plan_judge (graph, par, greedy));
  g_assert_true (greedy->sequential_valid);
  g_assert_true (greedy->concurrent_checked);
  g_assert_false (greedy->concurrent_valid);
  g_assert_cmpstr (greedy->concurrent_problem, ==, SAMPLE_CONFLICT);

  g_assert_true (mp_plan_judge (graph, par, multi));
  g_assert_true (multi->sequential_valid);
  g_assert_true (multi->concurrent_valid);
  g_assert_null (multi->concurrent_problem);

  /* a multistream plan broken by hand is named in groups */
  multi->offsets[1] = multi->offsets[0]; /* stem.b onto stem.a, both live in groups 0-1 */
  g_assert_false (mp_plan_judge (graph, par, multi));
  g_assert_cmpstr (multi->problem, ==,
                   "tensors 'stem.a' (offset 1048576, 262144 bytes, parallel groups 0-1) and "
                   "'stem.b' (offset 1048576, 262144 bytes, parallel groups 0-1) are live "
                   "together in parallel group 0 (op 'stem') and overlap in bytes [1048576, "
                   "1310720)");
  g_assert_cmpstr (multi->sequential_problem, ==,
                   "tensors 'stem.a' (offset 1048576, 262144 bytes, steps 0-1) and 'stem.b' "
                   "(offset 1048576, 262144 bytes, steps 0-2) overlap at step 0 (op 'stem') in "
                   "bytes [1048576, 1310720)");
}

/* A level of three ops split by --max-parallel-ops 2, in op order. */
static const char three_branches[] =
  "{\"format\": \"memplan.graph/1\", \"name\": \"three\", \"alignment\": 1,"
  " \"tensors\": [{\"name\": \"in\", \"size\": 8, \"kind\": \"input\"},"
  "  {\"name\": \"x\", \"size\": 10}, {\"name\": \"p\", \"size\": 20},"
  "  {\"name\": \"q\", \"size\": 30}, {\"name\": \"r\", \"size\": 40},"
  "  {\"name\": \"y\", \"size\": 5, \"kind\": \"output\"}],"
  " \"ops\": [{\"name\": \"src\", \"inputs\": [\"in\"], \"outputs\": [\"x\"]},"
  "  {\"name\": \"pa\", \"inputs\": [\"x\"], \"outputs\": [\"p\"]},"
  "  {\"name\": \"pb\", \"inputs\": [\"x\"], \"outputs\": [\"q\"], \"stream\": 1},"
  "  {\"name\": \"pc\", \"inputs\": [\"x\"], \"outputs\": [\"r\"], \"stream\": 2},"
  "  {\"name\": \"join\", \"inputs\": [\"p\", \"q\", \"r\"], \"outputs\": [\"y\"]}]}";

static void
test_max_parallel_ops (void)
{
  static const guint groups2[] = { 0, 1, 1, 2, 3 };
  /* lifetimes in groups of 2: x 0-2, p 1-3, q 1-3, r 2-3, y 3-3; r 0, q 40, p 70, x 90, y 90 */
  static const guint64 offsets[] = { 90, 70, 40, 0, 90 };
  g_autoptr (GError) error = NULL;
  g_autoptr (MpGraph) graph = mp_graph_parse_json (three_branches, strlen (three_branches),
                                                   "three.json", &error);
  g_autoptr (MpLifetimes) lt = mp_lifetimes_compute (graph, NULL, &error);
  g_autoptr (MpSchedule) two = mp_schedule_parallel (graph, 2);
  g_autoptr (MpSchedule) all = mp_schedule_parallel (graph, 0);
  g_autofree char *desc = mp_schedule_describe_group (all, graph, 1);
  g_autofree MpUsage *usage = mp_schedule_usage (two, graph, lt->records, lt->n_records);
  MpPlannerOptions opts = { .max_parallel_ops = 2 };
  g_autoptr (MpPlan) plan = run_planner ("multistream", graph, lt, &opts);

  g_assert_no_error (error);
  g_assert_cmpuint (two->n_levels, ==, 3);
  g_assert_cmpuint (two->n_groups, ==, 4);
  for (guint o = 0; o < 5; o++)
    g_assert_cmpuint (two->group[o], ==, groups2[o]);
  g_assert_cmpuint (all->n_groups, ==, 3);
  g_assert_cmpstr (desc, ==, "ops 'pa', 'pb' and 'pc'");
  g_assert_cmpuint (usage[0].first, ==, 0);
  g_assert_cmpuint (usage[0].last, ==, 2);
  g_assert_cmpuint (usage[3].first, ==, 2);
  assert_offsets (plan, offsets, 5, 100);
  g_assert_cmpuint (plan->lower_bound, ==, 100);
  g_assert_true (mp_plan_judge (graph, two, plan));
  g_assert_true (plan->concurrent_valid);
}

/* ---- random graphs ---- */

/* A random graph with ops on several streams: each op reads up to three
 * earlier tensors and writes one or two, sometimes a view of what it reads. */
static MpGraph *
random_ops_graph (GRand *rand, guint n_ops, guint n_streams)
{
  GString *s = g_string_new ("{\"format\": \"memplan.graph/1\", \"name\": \"random\", "
                             "\"alignment\": 64, \"tensors\": [");
  g_autoptr (GString) ops = g_string_new ("");
  guint n_tensors = 0;
  GError *error = NULL;
  MpGraph *graph;

  g_string_append (s, "{\"name\": \"t0\", \"size\": 100, \"kind\": \"input\"}");
  n_tensors = 1;
  for (guint o = 0; o < n_ops; o++)
    {
      guint n_in = g_rand_int_range (rand, 1, 4), n_out = g_rand_int_range (rand, 1, 3);

      g_string_append_printf (ops, "%s{\"name\": \"op%u\", \"stream\": %u, \"inputs\": [",
                              o ? ", " : "", o, g_rand_int_range (rand, 0, n_streams));
      for (guint k = 0; k < n_in; k++)
        {
          /* mostly recent tensors, sometimes an old one */
          guint lo = g_rand_boolean (rand) && n_tensors > 6 ? n_tensors - 6 : 0;

          g_string_append_printf (ops, "%s\"t%u\"", k ? ", " : "",
                                  g_rand_int_range (rand, lo, n_tensors));
        }
      g_string_append (ops, "], \"outputs\": [");
      for (guint k = 0; k < n_out; k++)
        {
          guint t = n_tensors++;

          if (k == 1 && g_rand_int_range (rand, 0, 4) == 0)
            g_string_append_printf (s, ", {\"name\": \"t%u\", \"view_of\": \"t%u\", \"offset\": 0, "
                                    "\"size\": 1}", t, t - 1);
          else
            {
              /* one draw a statement, in the order GCC evaluated them as
               * arguments: clang's order made other graphs */
              gboolean output = g_rand_int_range (rand, 0, 10) == 0;
              guint    shift = g_rand_int_range (rand, 0, 10);
              guint    size = g_rand_int_range (rand, 1, 5) << shift;

              g_string_append_printf (s, ", {\"name\": \"t%u\", \"size\": %u%s}", t, size,
                                      output ? ", \"kind\": \"output\"" : "");
            }
          g_string_append_printf (ops, "%s\"t%u\"", k ? ", " : "", t);
        }
      g_string_append (ops, "]}");
    }
  g_string_append_printf (s, "], \"ops\": [%s]}", ops->str);
  graph = mp_graph_parse_json (s->str, s->len, "random.json", &error);
  g_assert_no_error (error);
  g_string_free (s, TRUE);
  return graph;
}

/* The top of the highest slot: the arena with every tensor's size rounded up
 * to the alignment, as the planners see them. */
static guint64
slot_top (const MpPlan *plan)
{
  guint64 top = 0;

  for (guint r = 0; r < plan->n_records; r++)
    top = MAX (top, plan->offsets[r] + plan->records[r].size);
  return top;
}

static void
check_invariants (const MpGraph *graph, guint max_parallel)
{
  g_autoptr (MpLifetimes) lt = mp_lifetimes_compute (graph, NULL, NULL);
  g_autoptr (MpSchedule) par = graph->has_ops ? mp_schedule_parallel (graph, max_parallel) : NULL;
  MpPlannerOptions opts = { .max_parallel_ops = max_parallel };
  g_autoptr (MpPlan) naive = run_planner ("naive", graph, lt, &opts);
  g_autoptr (MpPlan) greedy = run_planner ("greedy-by-size", graph, lt, &opts);
  guint n_planners;
  const MpPlannerInfo *infos = mp_planners (&n_planners);
  guint64 slot_sum = 0;

  for (guint r = 0; r < lt->n_records; r++)
    slot_sum += lt->records[r].size;
  for (guint i = 0; i < n_planners; i++)
    {
      g_autoptr (GError) error = NULL;
      g_autoptr (MpPlan) plan = NULL;

      if (g_str_equal (infos[i].name, "optimal"))
        continue; /* exact search: tested on its own */
      plan = mp_planner_run (&infos[i], graph, lt, &opts, NULL, &error);
      if (infos[i].needs_ops && !graph->has_ops)
        {
          g_assert_error (error, MP_ANALYSIS_ERROR, MP_ANALYSIS_ERROR_UNSUPPORTED);
          g_assert_null (plan);
          continue;
        }
      g_assert_no_error (error);
      if (!mp_plan_judge (graph, par, plan))
        g_error ("%s: %s", plan->planner, plan->problem);
      g_assert_cmpuint (plan->arena, >=, plan->lower_bound);
      /* groups reorder ops, so only op-order plans share the lifetimes' bound */
      if (!plan->parallel)
        g_assert_cmpuint (plan->lower_bound, ==, lt->lower_bound);
      /* Compared in slots, no heuristic does worse than naive. The arena
       * ends at the top tensor's own bytes, not its slot, so naive's can be
       * the smaller when its last tensor has more padding than a heuristic's
       * top one (test_padded_top: every heuristic 196 B, naive 193 B). */
      g_assert_cmpuint (slot_top (plan), <=, slot_top (naive));
      g_assert_cmpuint (plan->arena, <=, slot_sum);
      if (plan->alignment <= 1)
        g_assert_cmpuint (plan->arena, <=, naive->arena);
      if (plan->parallel)
        {
          g_assert_true (plan->concurrent_valid);
          /* one stream: the parallel schedule is op order */
          if (mp_graph_n_streams (graph) == 1)
            for (guint r = 0; r < plan->n_records; r++)
              g_assert_cmpuint (plan->offsets[r], ==, greedy->offsets[r]);
        }
      if (g_str_equal (plan->planner, "partition"))
        g_assert_cmpuint (plan->n_partitions, >=, 1);
    }
}

/* Why check_invariants compares slots: a (65 B, a 128 B slot) and b (64 B)
 * live together. Naive stacks them in order and ends 65 B into a's slot;
 * largest-first puts a at 0 and ends with all of b's 64 B on top of it. */
static void
test_padded_top (void)
{
  static const char json[] =
    "{\"format\":\"memplan.graph/1\",\"name\":\"pad\",\"alignment\":64,\"tensors\":["
    "{\"name\":\"x\",\"size\":4,\"kind\":\"input\"},{\"name\":\"b\",\"size\":64},"
    "{\"name\":\"y\",\"size\":4,\"kind\":\"output\"},"
    "{\"name\":\"a\",\"size\":65,\"kind\":\"output\"}],"
    "\"ops\":[{\"name\":\"f\",\"inputs\":[\"x\"],\"outputs\":[\"b\"]},"
    "{\"name\":\"g\",\"inputs\":[\"b\"],\"outputs\":[\"y\",\"a\"]}]}";
  /* naive: b 0, y 64, a 128 + 65; the others: a 0, b 128, y 192 + 4 */
  static const struct
  {
    const char *planner;
    guint64     arena;
  } expect[] = { { "naive", 193 }, { "greedy-by-size", 196 }, { "greedy-by-breadth", 196 } };
  g_autoptr (MpGraph) graph = test_graph_load_string (json, "pad.json");
  g_autoptr (MpLifetimes) lt = mp_lifetimes_compute (graph, NULL, NULL);

  for (guint i = 0; i < G_N_ELEMENTS (expect); i++)
    {
      g_autoptr (MpPlan) plan = run_planner (expect[i].planner, graph, lt, NULL);

      g_assert_cmpuint (plan->arena, ==, expect[i].arena);
      g_assert_cmpuint (slot_top (plan), ==, 256);
    }
}

/* A graph whose one op writes nothing: no records and no breadth to sort.
 * greedy-by-breadth passed qsort a NULL array here, which UBSan reports
 * (build-aux/sanitize.sh runs this test under it). */
static void
test_op_writes_nothing (void)
{
  static const char json[] =
    "{\"format\":\"memplan.graph/1\",\"name\":\"idle\",\"tensors\":"
    "[{\"name\":\"x\",\"size\":4,\"kind\":\"input\"}],"
    "\"ops\":[{\"name\":\"noop\",\"inputs\":[\"x\"],\"outputs\":[]}]}";
  g_autoptr (GError) error = NULL;
  g_autoptr (MpGraph) graph = mp_graph_parse_json (json, strlen (json), "idle.json", &error);
  g_autoptr (MpLifetimes) lt = NULL;
  guint n_planners;
  const MpPlannerInfo *infos = mp_planners (&n_planners);

  g_assert_no_error (error);
  lt = mp_lifetimes_compute (graph, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (lt->n_records, ==, 0);
  for (guint i = 0; i < n_planners; i++)
    {
      g_autoptr (MpPlan) plan = mp_planner_run (&infos[i], graph, lt, NULL, NULL, &error);

      g_assert_no_error (error);
      g_assert_cmpuint (plan->n_records, ==, 0);
      g_assert_cmpuint (plan->arena, ==, 0);
      g_assert_true (mp_plan_judge (graph, NULL, plan));
    }
}

/* The plan file is streamed to disk: the same text as in memory, names
 * escaped, and it loads back to the same offsets. */
static void
test_plan_json_streamed (void)
{
  static const char json[] =
    "{\"format\":\"memplan.graph/1\",\"name\":\"odd \\\"names\\\"\",\"tensors\":["
    "{\"name\":\"x\",\"size\":64,\"kind\":\"input\"},"
    "{\"name\":\"a\\\"b\\\\c\\td/e\",\"size\":100},{\"name\":\"y\",\"size\":64,\"kind\":\"output\"}],"
    "\"ops\":[{\"name\":\"f\",\"inputs\":[\"x\"],\"outputs\":[\"a\\\"b\\\\c\\td/e\"]},"
    "{\"name\":\"g\",\"inputs\":[\"a\\\"b\\\\c\\td/e\"],\"outputs\":[\"y\"]}]}";
  g_autoptr (GError) error = NULL;
  g_autoptr (MpGraph) graph = mp_graph_parse_json (json, strlen (json), "odd.json", &error);
  g_autoptr (MpLifetimes) lt = NULL;
  g_autoptr (MpPlan) a = NULL;
  g_autoptr (MpPlan) b = NULL;
  g_autoptr (GPtrArray) back = NULL;
  g_autofree char *dir = g_dir_make_tmp ("memplan-plan-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, "plan.json", NULL);
  g_autofree char *text = NULL;
  g_autofree char *written = NULL;
  const char *skipped[] = { "multistream" }, *reasons[] = { "a \"reason\"" };
  MpPlan *plans[2];

  g_assert_no_error (error);
  lt = mp_lifetimes_compute (graph, NULL, &error);
  g_assert_no_error (error);
  plans[0] = a = run_planner ("greedy-by-size", graph, lt, NULL);
  plans[1] = b = run_planner ("first-fit", graph, lt, NULL);
  g_assert_true (mp_plan_write_json (path, graph, plans, 2, skipped, reasons, 1, &error));
  g_assert_no_error (error);
  g_assert_true (g_file_get_contents (path, &written, NULL, NULL));
  text = mp_plan_to_json_skipping (graph, plans, 2, skipped, reasons, 1);
  g_assert_cmpstr (written, ==, text);
  g_assert_nonnull (strstr (text, "{ \"name\": \"a\\\"b\\\\c\\td/e\", \"size\": 100, "
                                  "\"first\": 0, \"last\": 1, \"offset\": 0 }"));
  g_assert_nonnull (strstr (text, "{ \"planner\": \"multistream\", \"reason\": \"a \\\"reason\\\"\" }"));

  back = mp_plan_load (path, graph, lt, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (back->len, ==, 2);
  for (guint p = 0; p < 2; p++)
    {
      MpPlan *got = back->pdata[p];

      g_assert_cmpstr (got->planner, ==, plans[p]->planner);
      g_assert_cmpuint (got->n_records, ==, plans[p]->n_records);
      for (guint i = 0; i < got->n_records; i++)
        g_assert_cmpuint (got->offsets[i], ==, plans[p]->offsets[i]);
      g_assert_cmpuint (got->arena, ==, plans[p]->arena);
    }
  g_unlink (path);
  g_rmdir (dir);
}

/* Most live tensors of the run, from the generator's CSV. */
static guint
max_live (const char *csv, gsize length, guint *n_records)
{
  g_autoptr (MpGraph) graph = mp_graph_parse_csv (csv, length, "gen.csv", NULL, NULL);
  g_autoptr (MpLifetimes) lt = mp_lifetimes_compute (graph, NULL, NULL);
  g_autofree gint *delta = g_new0 (gint, lt->n_steps + 1);
  gint             live = 0, most = 0;

  for (guint i = 0; i < lt->n_records; i++)
    {
      delta[lt->records[i].first]++;
      delta[lt->records[i].last + 1]--;
    }
  for (guint t = 0; t < lt->n_steps; t++)
    {
      live += delta[t];
      most = MAX (most, live);
    }
  *n_records = lt->n_records;
  return most;
}

/* gen random's lifetime shapes: the default keeps the live set small,
 * long ends with about half the tensors live, staircase with all of them. */
static void
test_gen_lifetimes (void)
{
  static const struct
  {
    const char *name;
    guint       lo, hi; /* bounds on the most live of 4000 */
  } shapes[] = { { "random", 10, 1200 }, { "long", 1600, 2400 }, { "staircase", 4000, 4000 } };
  g_autofree char *out = NULL, *err = NULL;

  for (guint i = 0; i < G_N_ELEMENTS (shapes); i++)
    {
      MpGenRandomOptions gopts = { .n_tensors = 4000, .seed = 3 };
      g_autofree char   *csv = NULL;
      gsize              length;
      guint              n, most;

      g_assert_true (mp_gen_lifetimes_from_string (shapes[i].name, &gopts.lifetimes));
      csv = mp_gen_random (&gopts, TRUE, &length);
      most = max_live (csv, length, &n);
      g_assert_cmpuint (n, ==, 4000);
      g_assert_cmpuint (most, >=, shapes[i].lo);
      g_assert_cmpuint (most, <=, shapes[i].hi);
    }
  g_assert_cmpint (test_run_cli (&out, &err, "gen", "random", "--lifetimes", "wide", NULL), ==, 2);
  g_assert_cmpstr (err, ==, "memplan-cli: unknown lifetime shape 'wide' (known: random, long, "
                            "staircase)\n");
  g_clear_pointer (&out, g_free);
  g_clear_pointer (&err, g_free);
  g_assert_cmpint (test_run_cli (&out, &err, "gen", "bert-base", "--lifetimes", "long", NULL), ==,
                   2);
  g_assert_cmpstr (err, ==, "memplan-cli: --csv and --lifetimes are for the random model only\n");
}

static void
test_random_ops_graphs (void)
{
  g_autoptr (GRand) rand = g_rand_new_with_seed (20261121);

  for (guint g = 0; g < 2000; g++)
    {
      guint n_streams = g_rand_int_range (rand, 1, 5); /* drawn first, as GCC did */
      guint n_ops = g_rand_int_range (rand, 1, 40);
      g_autoptr (MpGraph) graph = random_ops_graph (rand, n_ops, n_streams);

      check_invariants (graph, g_rand_int_range (rand, 0, 4));
    }
}

static void
test_invariants_random_records (void)
{
  g_autoptr (GRand) rand = g_rand_new_with_seed (7);

  for (guint g = 0; g < 1000; g++)
    {
      guint n = g_rand_int_range (rand, 1, 60), n_steps = g_rand_int_range (rand, 1, 30);
      g_autofree TestRecord *recs = g_new (TestRecord, n);
      g_autoptr (MpGraph) graph = NULL;

      for (guint i = 0; i < n; i++)
        {
          recs[i].first = g_rand_int_range (rand, 0, n_steps);
          recs[i].last = MIN (recs[i].first + g_rand_int_range (rand, 0, 8), n_steps - 1);
          guint shift = g_rand_int_range (rand, 0, 8);

          recs[i].size = g_rand_int_range (rand, 1, 5) << shift;
        }
      graph = test_graph_from_records (recs, n);
      check_invariants (graph, 0);
    }
}

/* The foundation's generator with several streams, at a size where the
 * indexes matter. */
static void
test_generated_streams (void)
{
  for (guint streams = 1; streams <= 4; streams += 3)
    {
      MpGenRandomOptions gopts = { .n_tensors = 4000, .n_streams = streams, .seed = streams };
      gsize length;
      g_autofree char *text = mp_gen_random (&gopts, FALSE, &length);
      g_autoptr (GError) error = NULL;
      g_autoptr (MpGraph) graph = mp_graph_parse_json (text, length, "gen.json", &error);

      g_assert_no_error (error);
      check_invariants (graph, streams == 4 ? 2 : 0);
    }
}

/* Every heuristic planner with a placement loop stops at a cancelled
 * cancellable; optimal returns its incumbent, valid but not proved. */
static void
test_cancelled (void)
{
  g_autoptr (MpGraph) graph = load_sample ();
  g_autoptr (MpLifetimes) lt = mp_lifetimes_compute (graph, NULL, NULL);
  g_autoptr (GCancellable) cancellable = g_cancellable_new ();
  guint n;
  const MpPlannerInfo *planners = mp_planners (&n);

  g_cancellable_cancel (cancellable);
  for (guint i = 0; i < n; i++)
    {
      g_autoptr (GError) error = NULL;
      g_autoptr (MpPlan) plan = NULL;

      if (g_str_equal (planners[i].name, "naive"))
        continue;
      if (g_str_equal (planners[i].name, "optimal"))
        {
          /* records whose best heuristic plan misses the lower bound, so
           * only the search (cancelled here) could prove a plan optimal */
          g_autoptr (MpGraph) hard = test_graph_from_records (search_only,
                                                              G_N_ELEMENTS (search_only));
          g_autoptr (MpLifetimes) hard_lt = mp_lifetimes_compute (hard, NULL, NULL);

          plan = mp_planner_run (&planners[i], hard, hard_lt, NULL, cancellable, &error);
          g_assert_no_error (error);
          g_assert_nonnull (plan);
          g_assert_false (plan->proved_optimal);
          g_assert_cmpuint (plan->arena, ==, 28 * MIB);
          g_assert_true (mp_plan_judge (hard, NULL, plan));
          continue;
        }
      plan = mp_planner_run (&planners[i], graph, lt, NULL, cancellable, &error);
      g_assert_null (plan);
      g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
    }
}

/* ---- the command line ---- */

/* stdout of a run that must succeed quietly */
static char *
run_cli (const char *const *args)
{
  char *out = NULL;
  g_autofree char *err = NULL;

  g_assert_cmpint (test_run_cli_argv (args, &out, &err), ==, 0);
  g_assert_cmpstr (err, ==, "");
  return out;
}

static void
test_cli_csv_skips (void)
{
  g_autofree char *csv = test_data_path ("minimalloc/B.1048576.csv");
  /* every planner but the exact one, whose time budget does not belong in a unit test */
  const char *args[] = { "plan", csv, "--planner",
                         "naive,greedy-by-size,greedy-by-breadth,partition,multistream,best-fit",
                         "--format", "json", NULL };
  static const char *planned[] = { "naive", "greedy-by-size", "partition", "best-fit" };
  g_autofree char *out = run_cli (args);
  json_object *root = json_tokener_parse (out), *plans, *skipped;
  guint n_planned = 0;

  g_assert_nonnull (root);
  plans = json_object_object_get (root, "plans");
  skipped = json_object_object_get (root, "skipped");
  for (gsize i = 0; i < json_object_array_length (plans); i++)
    {
      json_object *p = json_object_array_get_idx (plans, i);
      const char *name = json_object_get_string (json_object_object_get (p, "planner"));

      g_assert_cmpstr (name, ==, planned[n_planned++]);
      g_assert_true (json_object_get_boolean (json_object_object_get (p, "valid")));
      g_assert_true (json_object_get_boolean (json_object_object_get (p, "sequential_valid")));
      g_assert_null (json_object_object_get (p, "concurrent_valid"));
      if (g_str_equal (name, "partition"))
        g_assert_cmpint (json_object_get_int (json_object_object_get (p, "partitions")), ==, 46);
    }
  g_assert_cmpuint (n_planned, ==, 4);
  g_assert_cmpuint (json_object_array_length (skipped), ==, 2);
  g_assert_cmpstr (json_object_get_string (json_object_object_get (
                     json_object_array_get_idx (skipped, 0), "planner")), ==, "greedy-by-breadth");
  g_assert_cmpstr (json_object_get_string (json_object_object_get (
                     json_object_array_get_idx (skipped, 1), "reason")), ==,
                   "multistream needs the ops of a graph; 'B.1048576' has usage records only");
  json_object_put (root);
}

static void
test_cli_sample (void)
{
  g_autofree char *path = test_data_path ("multistream.json");
  /* planned for op order: greedy-by-size races when the streams run concurrently */
  const char *args[] = { "plan", path, "--planner", "greedy-by-size,multistream", "--schedule",
                         "sequential", NULL };
  const char *json_args[] = { "plan", path, "-p", "greedy-by-size,multistream", "-f", "json",
                              "--schedule", "sequential", NULL };
  g_autofree char *out = run_cli (args);
  g_autofree char *json = run_cli (json_args);
  json_object *root = json_tokener_parse (json), *plans;

  /* greedy-by-size is made for op order: a finding, not a failure of the run
   * (run_cli asserts exit 0) */
  g_assert_nonnull (strstr (out, "greedy-by-size: races when streams run concurrently: "
                                 SAMPLE_CONFLICT "\n"));
  g_assert_null (strstr (out, "multistream: INVALID"));

  plans = json_object_object_get (root, "plans");
  {
    json_object *g = json_object_array_get_idx (plans, 0), *m = json_object_array_get_idx (plans, 1);

    g_assert_true (json_object_get_boolean (json_object_object_get (g, "sequential_valid")));
    g_assert_false (json_object_get_boolean (json_object_object_get (g, "concurrent_valid")));
    g_assert_cmpstr (json_object_get_string (json_object_object_get (g, "concurrent_problem")),
                     ==, SAMPLE_CONFLICT);
    g_assert_cmpstr (json_object_get_string (json_object_object_get (m, "schedule")), ==,
                     "parallel");
    g_assert_true (json_object_get_boolean (json_object_object_get (m, "concurrent_valid")));
    g_assert_true (json_object_get_boolean (json_object_object_get (m, "valid")));
  }
  json_object_put (root);
}

/* validate reads the schedule back from the plan file and checks both */
static void
test_cli_validate_sample (void)
{
  g_autofree char *path = test_data_path ("multistream.json");
  g_autofree char *dir = g_dir_make_tmp ("memplan-XXXXXX", NULL);
  g_autofree char *plans = g_build_filename (dir, "plans.json", NULL);
  const char *plan_args[] = { "plan", path, "-p", "greedy-by-size,multistream", "-f", "json",
                              "-o", plans, "--schedule", "sequential", NULL };
  const char *args[] = { "validate", path, plans, NULL };
  g_autofree char *ignored G_GNUC_UNUSED = run_cli (plan_args); /* clang: set but unread */
  g_autofree char *out = run_cli (args);
  g_autofree char *expected = g_strdup_printf (
    "%s: greedy-by-size: races when streams run concurrently: " SAMPLE_CONFLICT "\n"
    "%s: greedy-by-size: races when streams run concurrently (valid in op order): 8 tensors, "
    "arena 1572864 bytes (1.50 MiB), 1.2000× "
    "the lower bound\n"
    "%s: multistream: valid in parallel groups: 8 tensors, arena 1572864 bytes "
    "(1.50 MiB), 1.0000× the lower bound\n",
    plans, plans, plans);

  g_assert_cmpstr (out, ==, expected);
  g_unlink (plans);
  g_rmdir (dir);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);

  for (guint i = 0; i < G_N_ELEMENTS (hand_cases); i++)
    {
      g_autofree char *path = g_strdup_printf ("/analysis/planner/greedy-by-size/%s",
                                               hand_cases[i].name);
      g_test_add_data_func (path, &hand_cases[i], test_greedy_hand_case);
    }
  g_test_add_func ("/analysis/planner/random-invariants", test_random_invariants);
  g_test_add_func ("/analysis/planner/minimalloc-reference", test_minimalloc_reference);
  g_test_add_func ("/analysis/planner/best-fit/reference", test_best_fit_hand);
  g_test_add_func ("/analysis/planner/partition/heaviest", test_partition_hand);
  g_test_add_func ("/analysis/planner/partition/stacked", test_partition_stacked);
  g_test_add_func ("/analysis/schedule/sample", test_schedule_sample);
  g_test_add_func ("/analysis/schedule/max-parallel-ops", test_max_parallel_ops);
  g_test_add_func ("/analysis/planner/sample", test_sample_planners);
  g_test_add_func ("/analysis/planner/padded-top", test_padded_top);
  g_test_add_func ("/analysis/validate/concurrent", test_concurrent_validation);
  g_test_add_func ("/analysis/planner/cancelled", test_cancelled);
  g_test_add_func ("/analysis/planner/random-ops-graphs", test_random_ops_graphs);
  g_test_add_func ("/analysis/planner/op-writes-nothing", test_op_writes_nothing);
  g_test_add_func ("/analysis/plan-io/json-streamed", test_plan_json_streamed);
  g_test_add_func ("/cli/gen/lifetimes", test_gen_lifetimes);
  g_test_add_func ("/analysis/planner/random-records", test_invariants_random_records);
  g_test_add_func ("/analysis/planner/generated-streams", test_generated_streams);
  g_test_add_func ("/cli/plan/csv-skips-ops-planners", test_cli_csv_skips);
  g_test_add_func ("/cli/plan/concurrent-sample", test_cli_sample);
  g_test_add_func ("/cli/validate/concurrent-sample", test_cli_validate_sample);
  return g_test_run ();
}
