/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The validator itself (validate.c): the overlaps it must catch and its exact
 * words. Planners' plans are judged with mp_plan_judge in test-planner.c. */
#include <string.h>

#include "test-util.h"
#include "validate.h"

/* the plans here are made for op order, which is all mp_validate_records
 * knows of */
static gboolean
validate (const MpGraph *graph, const MpPlan *plan, GError **error)
{
  return mp_validate_records (graph, plan->records, plan->n_records, plan->offsets,
                              plan->alignment, plan->arena, error);
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
          g_assert_false (validate (graph, plan, &error));
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
  g_assert_false (validate (graph, plan, &error));
  g_assert_cmpstr (error->message, ==, "tensor 'b1': offset 8 is not a multiple of the alignment 16");
  g_clear_error (&error);

  plan->offsets[1] = 0;
  g_assert_false (validate (graph, plan, &error));
  g_assert_cmpstr (error->message, ==,
                   "tensors 'b0' (offset 0, 16 bytes, steps 0-2) and 'b1' (offset 0, 16 bytes, "
                   "steps 1-3) overlap at step 1 in bytes [0, 16)");
  g_clear_error (&error);

  plan->offsets[1] = 32;
  g_assert_false (validate (graph, plan, &error));
  g_assert_cmpstr (error->message, ==,
                   "tensor 'b1' (offset 32, 16 bytes) ends past the arena of 32 bytes");
  g_clear_error (&error);

  plan->offsets[1] = G_MAXUINT64;
  g_assert_false (validate (graph, plan, &error));
  g_assert_cmpstr (error->message, ==, "tensor 'b1' has no offset in the plan");
  g_clear_error (&error);

  plan->offsets[1] = G_MAXUINT64 - 15;
  mp_plan_finish (plan);
  g_assert_false (validate (graph, plan, &error));
  g_assert_cmpstr (error->message, ==,
                   "tensor 'b1': offset 18446744073709551600 plus its 16 bytes overflows 64 bits");
  g_clear_error (&error);

  plan->offsets[1] = 16;
  mp_plan_finish (plan);
  g_assert_true (validate (graph, plan, &error));
  g_assert_no_error (error);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/analysis/validate/catches-corruption", test_validator_catches_corruption);
  g_test_add_func ("/analysis/validate/messages", test_validator_messages);
  return g_test_run ();
}
