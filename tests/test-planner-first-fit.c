/* SPDX-License-Identifier: GPL-3.0-or-later */
#include <string.h>

#include "hand-cases.h"

/* first-fit: TensorFlow Lite Micro's GreedyMemoryPlanner. Hand-worked
 * offsets, and a buffer-for-buffer cross-check against a transcription of
 * TFLM's own quadratic loop on random inputs. */

static MpPlan *
plan_records (const char *planner, const TestRecord *recs, guint n, MpLifetimes **lt_out)
{
  g_autoptr (MpGraph) graph = test_graph_from_records (recs, n);
  g_autoptr (MpLifetimes) lt = mp_lifetimes_compute (graph, NULL, NULL);
  MpPlan *plan = test_run_planner (planner, graph, lt);

  if (lt_out)
    *lt_out = g_steal_pointer (&lt);
  return plan;
}

static void
assert_offsets (const MpPlan *plan, const guint64 *want, guint n)
{
  g_assert_cmpuint (plan->n_records, ==, n);
  for (guint i = 0; i < n; i++)
    g_assert_cmpuint (plan->offsets[i], ==, want[i]);
}

/* Equal sizes: TFLM's reversed copy and stable sort put the later-added
 * buffer first; greedy-by-size keeps first appearance. */
static void
test_ties_later_first (void)
{
  static const TestRecord recs[] = { { 16, 0, 0 }, { 16, 0, 0 }, { 16, 0, 0 } };
  static const guint64    first_fit[] = { 32, 16, 0 };
  static const guint64    greedy[] = { 0, 16, 32 };
  g_autoptr (MpPlan) ff = plan_records ("first-fit", recs, 3, NULL);
  g_autoptr (MpPlan) gs = plan_records ("greedy-by-size", recs, 3, NULL);

  assert_offsets (ff, first_fit, 3);
  assert_offsets (gs, greedy, 3);
}

/* The last buffer (5 bytes, step 1) sees the union [0,12) [30,40) [45,60):
 * gaps of 18 at 12 and of 5 at 40. First fit takes the lowest, 12;
 * greedy-by-size the smallest, 40. The others each have one choice:
 * b2 goes above b0 (45), b3 below b2 (0), b4 between b1 and b2 (30). */
static void
test_lowest_not_smallest (void)
{
  static const TestRecord recs[] = { { 45, 2, 2 }, { 30, 0, 0 }, { 15, 1, 2 },
                                     { 12, 1, 1 }, { 10, 0, 1 }, { 5, 1, 1 } };
  static const guint64    first_fit[] = { 0, 0, 45, 0, 30, 12 };
  static const guint64    greedy[] = { 0, 0, 45, 0, 30, 40 };
  g_autoptr (MpPlan) ff = plan_records ("first-fit", recs, 6, NULL);
  g_autoptr (MpPlan) gs = plan_records ("greedy-by-size", recs, 6, NULL);

  assert_offsets (ff, first_fit, 6);
  assert_offsets (gs, greedy, 6);
  g_assert_cmpuint (ff->arena, ==, 60);
}

/* data/teaching/only-search.csv in MiB: embed 6 (0-2), proj 3 (2-3),
 * attn 4 (3-4), query 3 (3), bias 1 (3). Order: embed, attn, then query
 * before proj (equal sizes: the later first), bias. embed 0; attn 0 (not
 * live with embed); query over attn: 4; proj over embed, attn, query
 * ([0,7)): 7; bias over attn, query, proj ([0,10)): 10. Arena 11 MiB, the
 * lower bound; with proj before query it would be 12, like greedy-by-size. */
static void
test_only_search (void)
{
  static const TestRecord recs[] = { { 6 * MIB, 0, 2 }, { 3 * MIB, 2, 3 }, { 4 * MIB, 3, 4 },
                                     { 3 * MIB, 3, 3 }, { 1 * MIB, 3, 3 } };
  static const guint64    want[] = { 0, 7 * MIB, 0, 4 * MIB, 10 * MIB };
  g_autoptr (MpLifetimes) lt = NULL;
  g_autoptr (MpPlan) ff = plan_records ("first-fit", recs, 5, &lt);
  g_autoptr (MpPlan) gs = plan_records ("greedy-by-size", recs, 5, NULL);

  assert_offsets (ff, want, 5);
  g_assert_cmpuint (ff->arena, ==, 11 * MIB);
  g_assert_cmpuint (ff->arena, ==, lt->lower_bound);
  g_assert_cmpuint (gs->arena, ==, 12 * MIB);
}

/* The decision trace names the lowest gap and lists both. */
static void
test_trace (void)
{
  static const TestRecord recs[] = { { 45, 2, 2 }, { 30, 0, 0 }, { 15, 1, 2 },
                                     { 12, 1, 1 }, { 10, 0, 1 }, { 5, 1, 1 } };
  g_autoptr (MpGraph) graph = test_graph_from_records (recs, 6);
  g_autoptr (MpLifetimes) lt = mp_lifetimes_compute (graph, NULL, NULL);
  g_autoptr (MpDecisionTrace) trace = mp_decision_trace_new ();
  MpPlannerOptions opts = { .trace = trace };
  g_autoptr (MpPlan) plan = mp_planner_run (mp_planner_lookup ("first-fit"), graph, lt, &opts,
                                            NULL, NULL);
  const MpDecisionStep *last;
  g_autofree char   *text = NULL;

  g_assert_nonnull (plan);
  g_assert_cmpuint (mp_decision_trace_n_steps (trace), ==, 6);
  last = mp_decision_trace_step (trace, 5);
  g_assert_cmpuint (last->record, ==, 5);
  g_assert_cmpint (last->reason, ==, MP_DECISION_LOWEST_GAP);
  g_assert_cmpuint (last->offset, ==, 12);
  g_assert_cmpuint (last->gap, ==, 18);
  g_assert_cmpuint (last->n_candidates, ==, 2);
  g_assert_cmpuint (last->n_fitting, ==, 2);
  g_assert_cmpint (mp_decision_trace_step (trace, 0)->reason, ==, MP_DECISION_ON_TOP);
  text = mp_decision_trace_explain_step (trace, graph, plan, 5);
  g_assert_cmpstr (text, ==, "b5 (5 B, step 1): 2 gaps fit; the lowest, at 12 B, wastes 13 B");
}

/* TFLM's CalculateOffsetsIfNeeded, transcribed: a reversed copy bubble-
 * sorted by descending size, a list of placed buffers by offset (a new one
 * after those of equal offset), and for each buffer a walk of that list. */
typedef struct
{
  guint64 offset;
  guint   id;
  gint    next;
} Entry;

static void
tflm_reference (const MpUsage *r, guint n, guint64 *offsets)
{
  g_autofree guint64 *sizes = g_new (guint64, MAX (n, 1));
  g_autofree guint   *ids = g_new (guint, MAX (n, 1));
  g_autofree Entry   *list = g_new (Entry, MAX (n, 1));
  gboolean            swapped;
  gint                head = 0;

  if (n == 0)
    return;
  for (guint i = 0; i < n; i++)
    {
      sizes[n - 1 - i] = r[i].size;
      ids[n - 1 - i] = i;
    }
  do
    {
      swapped = FALSE;
      for (guint i = 1; i < n; i++)
        if (sizes[i - 1] < sizes[i])
          {
            guint64 s = sizes[i - 1];
            guint   d = ids[i - 1];

            sizes[i - 1] = sizes[i];
            sizes[i] = s;
            ids[i - 1] = ids[i];
            ids[i] = d;
            swapped = TRUE;
          }
    }
  while (swapped);

  list[0] = (Entry) { 0, ids[0], -1 };
  offsets[ids[0]] = 0;
  for (guint k = 1; k < n; k++)
    {
      const MpUsage *want = &r[ids[k]];
      guint64        candidate = 0;
      gint           prior = -1;

      for (;;)
        {
          gint next = prior < 0 ? head : list[prior].next;

          /* the next placed buffer live with this one, in offset order */
          while (next >= 0 && (r[list[next].id].first > want->last ||
                               want->first > r[list[next].id].last))
            next = list[next].next;
          if (prior >= 0)
            candidate = MAX (candidate, list[prior].offset + r[list[prior].id].size);
          if (next < 0 || (list[next].offset >= candidate &&
                           list[next].offset - candidate >= want->size))
            break;
          prior = next;
        }
      offsets[ids[k]] = candidate;
      list[k] = (Entry) { candidate, ids[k], -1 };
      if (list[head].offset > candidate)
        {
          list[k].next = head;
          head = k;
        }
      else
        {
          gint at = head;

          while (list[at].next >= 0 && list[list[at].next].offset <= candidate)
            at = list[at].next;
          list[k].next = list[at].next;
          list[at].next = k;
        }
    }
}

static void
cross_check (GRand *rand, guint n, guint n_steps, guint size_shift)
{
  g_autoptr (MpGraph) graph = test_random_records (rand, n, n_steps, size_shift);
  MpLifetimeOptions opts = { .alignment = 1u << g_rand_int_range (rand, 0, 4) };
  g_autoptr (MpLifetimes) lt = mp_lifetimes_compute (graph, &opts, NULL);
  g_autoptr (MpPlan) plan = test_run_planner ("first-fit", graph, lt);
  g_autofree guint64 *want = g_new (guint64, MAX (lt->n_records, 1));

  tflm_reference (lt->records, lt->n_records, want);
  for (guint i = 0; i < lt->n_records; i++)
    g_assert_cmpuint (plan->offsets[i], ==, want[i]);
}

/* Small inputs with many equal sizes (size_shift 3), where the tie order
 * shows, and larger ones whose long lifetimes take the index's long path. */
static void
test_matches_tflm (void)
{
  g_autoptr (GRand) rand = g_rand_new_with_seed (20261124);

  for (guint iter = 0; iter < 3000; iter++)
    cross_check (rand, g_rand_int_range (rand, 1, 80), g_rand_int_range (rand, 1, 50),
                 g_rand_boolean (rand) ? 3 : 12);
  for (guint iter = 0; iter < 6; iter++)
    cross_check (rand, 3000, g_rand_int_range (rand, 500, 5000), 12);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/analysis/planner/first-fit/ties-later-first", test_ties_later_first);
  g_test_add_func ("/analysis/planner/first-fit/lowest-not-smallest", test_lowest_not_smallest);
  g_test_add_func ("/analysis/planner/first-fit/only-search", test_only_search);
  g_test_add_func ("/analysis/planner/first-fit/trace", test_trace);
  g_test_add_func ("/analysis/planner/first-fit/matches-tflm", test_matches_tflm);
  return g_test_run ();
}
