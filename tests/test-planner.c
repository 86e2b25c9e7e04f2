/* SPDX-License-Identifier: GPL-3.0-or-later */
#include <string.h>

#include "hand-cases.h"

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

/* The validator must catch any overlap: move one buffer onto another that
 * shares a step with it. */
static void
test_validator_catches_corruption (void)
{
  g_autoptr (GRand) rand = g_rand_new_with_seed (7);
  guint caught = 0;

  for (guint iter = 0; iter < 1000; iter++)
    {
      g_autoptr (MpGraph) graph = test_random_records (rand, g_rand_int_range (rand, 2, 50), 20, 12);
      g_autoptr (MpLifetimes) lt = mp_lifetimes_compute (graph, NULL, NULL);
      g_autoptr (MpPlan) plan = test_run_planner ("greedy-by-size", graph, lt);
      g_autoptr (GError) error = NULL;
      guint a = g_rand_int_range (rand, 0, plan->n_records);

      for (guint b = 0; b < plan->n_records; b++)
        {
          const MpUsage *ra = &plan->records[a], *rb = &plan->records[b];

          if (b == a || MAX (ra->first, rb->first) > MIN (ra->last, rb->last))
            continue;
          plan->offsets[a] = plan->offsets[b];
          mp_plan_finish (plan);
          g_assert_false (mp_validate_plan (graph, plan, &error));
          g_assert_error (error, MP_ANALYSIS_ERROR, MP_ANALYSIS_ERROR_INVALID);
          g_assert_nonnull (strstr (error->message, "overlap"));
          caught++;
          break;
        }
    }
  g_assert_cmpuint (caught, >, 500);
}

static void
test_validator_messages (void)
{
  static const TestRecord recs[] = { { 16, 0, 2 }, { 16, 1, 3 } };
  g_autoptr (MpGraph) graph = test_graph_from_records (recs, 2);
  MpLifetimeOptions opts = { .alignment = 16 };
  g_autoptr (MpLifetimes) lt = mp_lifetimes_compute (graph, &opts, NULL);
  g_autoptr (MpPlan) plan = mp_plan_new ("hand", lt);
  g_autoptr (GError) error = NULL;

  plan->offsets[0] = 0;
  plan->offsets[1] = 8;
  plan->arena = 32;
  g_assert_false (mp_validate_plan (graph, plan, &error));
  g_assert_cmpstr (error->message, ==, "tensor 'b1': offset 8 is not a multiple of the alignment 16");
  g_clear_error (&error);

  plan->offsets[1] = 0;
  g_assert_false (mp_validate_plan (graph, plan, &error));
  g_assert_cmpstr (error->message, ==,
                   "tensors 'b0' (offset 0, 16 bytes, steps 0-2) and 'b1' (offset 0, 16 bytes, "
                   "steps 1-3) overlap at step 1 in bytes [0, 16)");
  g_clear_error (&error);

  plan->offsets[1] = 32;
  g_assert_false (mp_validate_plan (graph, plan, &error));
  g_assert_cmpstr (error->message, ==,
                   "tensor 'b1' (offset 32, 16 bytes) ends past the arena of 32 bytes");
  g_clear_error (&error);

  plan->offsets[1] = G_MAXUINT64;
  g_assert_false (mp_validate_plan (graph, plan, &error));
  g_assert_cmpstr (error->message, ==, "tensor 'b1' has no offset in the plan");
  g_clear_error (&error);

  plan->offsets[1] = G_MAXUINT64 - 15;
  mp_plan_finish (plan);
  g_assert_false (mp_validate_plan (graph, plan, &error));
  g_assert_cmpstr (error->message, ==,
                   "tensor 'b1': offset 18446744073709551600 plus its 16 bytes overflows 64 bits");
  g_clear_error (&error);

  plan->offsets[1] = 16;
  mp_plan_finish (plan);
  g_assert_true (mp_validate_plan (graph, plan, &error));
  g_assert_no_error (error);
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
  g_test_add_func ("/analysis/validate/catches-corruption", test_validator_catches_corruption);
  g_test_add_func ("/analysis/validate/messages", test_validator_messages);
  return g_test_run ();
}
