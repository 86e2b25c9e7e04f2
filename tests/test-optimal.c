/* SPDX-License-Identifier: GPL-3.0-or-later */
#include <string.h>
#include <json.h>

#include "optimal-bounds.h"
#include "optimal-lns.h"
#include "optimal-search.h"
#include "gen.h"
#include "hand-cases.h"

static MpPlan *
run_optimal (const MpGraph *graph, const MpLifetimes *lt, gdouble budget, guint64 capacity,
             GCancellable *cancellable)
{
  MpPlannerOptions options = { .time_budget = budget, .capacity = capacity };
  g_autoptr (GError) error = NULL;
  MpPlan *plan = mp_planner_run (mp_planner_lookup ("optimal"), graph, lt, &options, cancellable,
                                 &error);

  g_assert_no_error (error);
  g_assert_nonnull (plan);
  /* a plan above the capacity asked for is no answer: invalid for it */
  g_assert_true (mp_plan_judge (graph, NULL, plan) == (!capacity || plan->arena <= capacity));
  g_assert_true (plan->over_capacity == (capacity && plan->arena > capacity));
  g_assert_true (plan->fits == (capacity && plan->arena <= capacity));
  g_assert_cmpuint (plan->arena, >=, lt->lower_bound);
  g_assert_cmpuint (plan->arena, >=, plan->proved_bound);
  g_assert_nonnull (plan->note);
  return plan;
}

static MpGraph *
load_data (const char *relative, MpLifetimes **lt)
{
  g_autofree char *path = test_data_path (relative);
  g_autoptr (GError) error = NULL;
  MpGraph *graph = test_graph_load (path, &error);

  g_assert_no_error (error);
  *lt = mp_lifetimes_compute (graph, NULL, &error);
  g_assert_no_error (error);
  return graph;
}

/* MiniMalloc's README example: (4,[0,3)) (4,[3,9)) (4,[0,9)) (4,[9,21))
 * (4,[0,21)) fits in 12 and, 12 being the peak of live bytes, not in 11. */
static void
test_example_12 (void)
{
  g_autoptr (MpLifetimes) lt = NULL;
  g_autoptr (MpGraph) graph = load_data ("minimalloc/example.12.csv", &lt);
  g_autoptr (MpPlan) plan = run_optimal (graph, lt, 0, 0, NULL);
  g_autoptr (MpPlan) fits = run_optimal (graph, lt, 0, 12, NULL);
  g_autoptr (MpPlan) too_small = run_optimal (graph, lt, 0, 11, NULL);
  g_autofree char *verdict = NULL;
  g_autofree char *fit = NULL;

  g_assert_cmpuint (lt->n_records, ==, 5);
  g_assert_cmpuint (plan->arena, ==, 12);
  g_assert_true (plan->proved_optimal);
  g_assert_true (g_str_has_prefix (plan->note, "proved optimal"));
  g_assert_cmpuint (fits->arena, <=, 12);
  g_assert_true (g_str_has_prefix (fits->note, "fits in capacity 12 B; proved optimal"));
  g_assert_true (g_str_has_prefix (too_small->note,
                                   "does not fit in capacity 11 B (proved infeasible); "));
  g_assert_false (too_small->valid);
  g_assert_true (too_small->fit_refuted);
  g_assert_cmpstr (too_small->problem, ==, "does not fit in capacity 11 B: proved infeasible "
                                           "(no plan is below 12 B; proof: peak of live bytes)");
  verdict = mp_plan_verdict (too_small);
  g_assert_cmpstr (verdict, ==, too_small->problem);
  fit = mp_plan_fit (fits);
  g_assert_cmpstr (fit, ==, "fits in capacity 12 B");
}

/* Out of budget before anything fits: not valid for the question, and the
 * words say it was not found rather than proved impossible. */
static void
test_not_found (void)
{
  g_autoptr (MpLifetimes) lt = NULL;
  g_autoptr (MpGraph) graph = load_data ("minimalloc/E.1048576.csv", &lt);
  g_autoptr (MpPlan) plan = run_optimal (graph, lt, 1e-5, 1048576, NULL);
  g_autofree char *expected = NULL;
  g_autofree char *secs = NULL;
  g_autofree char *best = NULL;

  g_assert_cmpuint (plan->arena, >, 1048576);
  g_assert_false (plan->valid);
  g_assert_false (plan->fit_refuted);
  best = mp_format_capacity (plan->arena);
  secs = mp_format_seconds (plan->seconds);
  expected = g_strdup_printf ("does not fit in capacity 1048576 B (1.00 MiB): none found within "
                              "the budget (best found %s after %s)", best, secs);
  g_assert_cmpstr (plan->problem, ==, expected);
  g_assert_true (g_str_has_prefix (plan->note, "does not fit in capacity 1048576 B (1.00 MiB) "
                                               "(none found within the budget); "));
}

/* The search core alone, on the same buffers (steps: [0,3) [3,9) [9,21)
 * become 0, 1, 2): a plan at 12, a proof that 11 is impossible. */
static void
test_search_core (void)
{
  static const MpOptBuffer buffers[] = {
    { 0, 0, 4, 4, 3 }, { 1, 1, 4, 4, 6 }, { 0, 1, 4, 4, 9 }, { 2, 2, 4, 4, 12 }, { 0, 2, 4, 4, 21 },
  };
  g_autoptr (MpOptSearch) search = mp_opt_search_new (buffers, 5, 1, 1000);
  guint64 offsets[5];

  g_assert_nonnull (search);
  g_assert_cmpuint (mp_opt_search_bound (search), ==, 12);
  g_assert_cmpint (mp_opt_search_fit (search, 12, 1000, G_MAXINT64, NULL, offsets), ==,
                   MP_OPT_FOUND);
  for (guint i = 0; i < 5; i++)
    {
      g_assert_cmpuint (offsets[i] + buffers[i].bytes, <=, 12);
      for (guint j = 0; j < i; j++)
        if (MAX (buffers[i].first, buffers[j].first) <= MIN (buffers[i].last, buffers[j].last))
          g_assert_true (offsets[i] + 4 <= offsets[j] || offsets[j] + 4 <= offsets[i]);
    }
  g_assert_cmpint (mp_opt_search_fit (search, 11, 1000, G_MAXINT64, NULL, offsets), ==,
                   MP_OPT_INFEASIBLE);
  /* too many overlap entries: the caller keeps its heuristic plan */
  g_assert_null (mp_opt_search_new (buffers, 5, 1, 4));
}

/* The foundation's greedy-by-size cases: optimal reaches the lower bound. */

static void
test_greedy_cases (void)
{
  static const struct
  {
    const TestRecord *records;
    guint             n;
    guint64           lower_bound;
  } cases[] = {
    { case1, G_N_ELEMENTS (case1), 96 },
    { case2, G_N_ELEMENTS (case2), 96 },
    { case3, G_N_ELEMENTS (case3), 124 },
    { case4, G_N_ELEMENTS (case4), 192 },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr (MpGraph) graph = test_graph_from_records (cases[i].records, cases[i].n);
      g_autoptr (MpLifetimes) lt = mp_lifetimes_compute (graph, NULL, NULL);
      g_autoptr (MpPlan) plan = run_optimal (graph, lt, 0, 0, NULL);

      g_assert_cmpuint (lt->lower_bound, ==, cases[i].lower_bound);
      g_assert_cmpuint (plan->arena, ==, cases[i].lower_bound);
      g_assert_true (plan->proved_optimal);
    }
}

/* Two 10-byte buffers alive together, alignment 16: 20 live bytes, but the
 * upper one starts at 16, so 26 is optimal, proved by the padding bound.
 * Give each a 16-byte neighbour at its other end: 26 live bytes, and each
 * 10-byte buffer would have to be on top to end at 26, which they cannot
 * both be: 32, proved by the search. */
static void
test_aligned (void)
{
  static const TestRecord two[] = { { 10, 0, 1 }, { 10, 1, 2 } };
  static const TestRecord four[] = { { 10, 0, 1 }, { 10, 1, 2 }, { 16, 0, 0 }, { 16, 2, 2 } };
  MpLifetimeOptions opts = { .alignment = 16 };
  g_autoptr (MpGraph) g2 = test_graph_from_records (two, 2);
  g_autoptr (MpGraph) g3 = test_graph_from_records (four, 4);
  g_autoptr (MpLifetimes) lt2 = mp_lifetimes_compute (g2, &opts, NULL);
  g_autoptr (MpLifetimes) lt3 = mp_lifetimes_compute (g3, &opts, NULL);
  g_autoptr (MpPlan) p2 = run_optimal (g2, lt2, 0, 0, NULL);
  g_autoptr (MpPlan) p3 = run_optimal (g3, lt3, 0, 0, NULL);

  g_assert_cmpuint (lt2->lower_bound, ==, 20);
  g_assert_cmpuint (p2->arena, ==, 26);
  g_assert_true (p2->proved_optimal);
  g_assert_cmpuint (lt3->lower_bound, ==, 26);
  g_assert_cmpuint (p3->arena, ==, 32);
  g_assert_true (p3->proved_optimal);
}

/* explain names each bound as it rises and the one that is the proof: the
 * four aligned buffers above reach 32 B only by an exact search. */
static void
test_explain_bounds (void)
{
  static const TestRecord four[] = { { 10, 0, 1 }, { 10, 1, 2 }, { 16, 0, 0 }, { 16, 2, 2 } };
  MpLifetimeOptions opts = { .alignment = 16 };
  g_autoptr (MpGraph) graph = test_graph_from_records (four, 4);
  g_autoptr (MpLifetimes) lt = mp_lifetimes_compute (graph, &opts, NULL);
  g_autoptr (MpDecisionTrace) trace = mp_decision_trace_new ();
  MpPlannerOptions options = { .trace = trace };
  g_autoptr (MpPlan) plan = mp_planner_run (mp_planner_lookup ("optimal"), graph, lt, &options,
                                            NULL, NULL);
  g_autofree char *text = mp_decision_trace_explain (trace, graph, plan);

  g_assert_cmpuint (plan->proved_bound, ==, 32);
  g_assert_cmpstr (plan->bound_name, ==, "exact search of the buffers live around a peak");
  g_assert_true (g_str_has_prefix (text, "optimal on test: 4 tensors, lower bound 26 B\n"
                                         "search:\n"
                                         "  lower bound 26 B from the peak of live bytes\n"
                                         "  lower bound 32 B from the exact search of the "
                                         "buffers live around a peak\n"));
  g_assert_nonnull (strstr (text, " nodes; optimality proved; the proof of the lower bound: the "
                                  "exact search of the buffers live around a peak\n"));
}

/* Brute force: every order of the buffers, each placed first-fit at the
 * lowest offset where its slot is free over its lifetime; the arena counts
 * bytes. Placing an optimal plan's buffers in order of offset puts each at
 * or below its place there, so the best order is optimal. Orders share
 * their prefixes' placements. */
static guint64
first_fit (const MpUsage *r, const guint *order, const guint64 *off, guint k)
{
  const MpUsage *a = &r[order[k]];
  guint64        o = 0;
  gboolean       moved = TRUE;

  while (moved)
    {
      moved = FALSE;
      for (guint j = 0; j < k; j++)
        {
          const MpUsage *b = &r[order[j]];

          if (MAX (a->first, b->first) <= MIN (a->last, b->last) && o < off[j] + b->size &&
              off[j] < o + a->size)
            {
              o = off[j] + b->size;
              moved = TRUE;
            }
        }
    }
  return o;
}

static guint64
brute_force (const MpUsage *r, guint *order, guint64 *off, guint k, guint n, guint64 arena)
{
  guint64 best = G_MAXUINT64;

  if (k == n)
    return arena;
  for (guint i = k; i < n; i++)
    {
      guint t = order[k];

      order[k] = order[i];
      order[i] = t;
      off[k] = first_fit (r, order, off, k);
      best = MIN (best, brute_force (r, order, off, k + 1, n,
                                     MAX (arena, off[k] + r[order[k]].bytes)));
      order[i] = order[k];
      order[k] = t;
    }
  return best;
}

static MpGraph *
random_graph (GRand *rand, guint n, guint n_steps, guint max_size)
{
  g_autofree TestRecord *recs = g_new (TestRecord, n);

  for (guint i = 0; i < n; i++)
    {
      guint span = g_rand_int_range (rand, 0, n_steps);

      recs[i].first = g_rand_int_range (rand, 0, n_steps);
      recs[i].last = MIN (recs[i].first + span, n_steps - 1);
      recs[i].size = g_rand_int_range (rand, 1, max_size + 1);
    }
  return test_graph_from_records (recs, n);
}

/* n buffers of up to 4 KiB over up to max_steps steps, aligned to a
 * random power of two below 2^max_shift. */
static MpLifetimes *
random_aligned (GRand *rand, guint n, guint max_steps, guint max_shift, MpGraph **graph)
{
  MpLifetimeOptions opts = { 0 };

  *graph = random_graph (rand, n, g_rand_int_range (rand, 2, max_steps), 4096);
  opts.alignment = 1u << g_rand_int_range (rand, 0, max_shift);
  return mp_lifetimes_compute (*graph, &opts, NULL);
}

static MpOptBuffer *
buffers_of (const MpLifetimes *lt)
{
  MpOptBuffer *b = g_new (MpOptBuffer, MAX (lt->n_records, 1));

  for (guint i = 0; i < lt->n_records; i++)
    {
      b[i].first = lt->records[i].first;
      b[i].last = lt->records[i].last;
      b[i].size = lt->records[i].size;
      b[i].bytes = lt->records[i].bytes;
      b[i].width = b[i].last - b[i].first + 1;
    }
  return b;
}

/* Every plan optimal returns is the brute-force minimum, and every lower
 * bound (each proof on its own, and the one the planner reports) is at most
 * that minimum: a bound above it would be a false proof. */
static void
test_brute_force (void)
{
  g_autoptr (GRand) rand = g_rand_new_with_seed (4);
  guint above_greedy = 0, above_bound = 0, window_lifts = 0, small_window_lifts = 0;

  for (guint iter = 0; iter < 3000; iter++)
    {
      /* 7! orders now and then, 6! or fewer mostly: the brute force is slow */
      guint n = iter % 25 == 0 ? 7 : g_rand_int_range (rand, 1, 7);
      g_autoptr (MpGraph) graph = random_graph (rand, n, g_rand_int_range (rand, 1, 6), 9);
      /* alignment 4 now and then: padding makes the lower bound loose */
      MpLifetimeOptions opts = { .alignment = iter % 3 == 0 ? 4 : 1 };
      g_autoptr (MpLifetimes) lt = mp_lifetimes_compute (graph, &opts, NULL);
      g_autoptr (MpPlan) plan = run_optimal (graph, lt, 0, 0, NULL);
      g_autofree guint64 *greedy = g_new (guint64, n);
      g_autofree MpOptBuffer *buffers = buffers_of (lt);
      g_autoptr (MpOptSearch) search = mp_opt_search_new (buffers, n, lt->alignment, 1000);
      guint order[8];
      guint64 off[8], minimum, naive = 0, whole, small;

      for (guint i = 0; i < n; i++)
        {
          order[i] = i;
          naive += lt->records[i].size;
        }
      minimum = brute_force (lt->records, order, off, 0, n, 0);
      g_assert_cmpuint (plan->arena, ==, minimum);
      g_assert_true (plan->proved_optimal);
      g_assert_cmpuint (plan->proved_bound, ==, minimum);

      g_assert_cmpuint (lt->lower_bound, <=, minimum);
      g_assert_cmpuint (mp_opt_search_bound (search), <=, minimum);
      /* windows of every buffer: the exact minimum; of at most 3: below it */
      whole = mp_opt_window_bound (buffers, n, lt->alignment, lt->lower_bound, naive, 8, 8,
                                   G_MAXUINT64, G_MAXINT64, NULL);
      g_assert_cmpuint (whole, ==, minimum);
      small = mp_opt_window_bound (buffers, n, lt->alignment, lt->lower_bound, naive, 4, 3,
                                   G_MAXUINT64, G_MAXINT64, NULL);
      g_assert_cmpuint (small, <=, minimum);
      window_lifts += whole > lt->lower_bound;
      small_window_lifts += small > lt->lower_bound;

      above_greedy += mp_place_greedy_by_size (lt->records, n, lt->n_steps, greedy) > plan->arena;
      above_bound += plan->arena > lt->lower_bound;
    }
  g_assert_cmpuint (above_bound, >, 100);
  g_assert_cmpuint (window_lifts, ==, above_bound);
  /* a window smaller than the instance still proves more than the peak */
  g_assert_cmpuint (small_window_lifts, >, 10);
  /* the instances are not all trivial for the heuristic */
  g_assert_cmpuint (above_greedy, >, 30);
}

static void
test_not_worse_than_greedy (void)
{
  g_autoptr (GRand) rand = g_rand_new_with_seed (11);

  for (guint iter = 0; iter < 100; iter++)
    {
      guint n = g_rand_int_range (rand, 10, 80);
      g_autoptr (MpGraph) graph = NULL;
      g_autoptr (MpLifetimes) lt = random_aligned (rand, n, 30, 8, &graph);
      g_autoptr (MpPlan) plan = run_optimal (graph, lt, 0.05, 0, NULL);
      g_autoptr (MpPlan) greedy_plan = mp_plan_new ("greedy-by-size", lt);

      mp_place_greedy_by_size (lt->records, n, lt->n_steps, greedy_plan->offsets);
      mp_plan_finish (greedy_plan);
      g_assert_cmpuint (plan->arena, <=, greedy_plan->arena);
      if (plan->arena == lt->lower_bound)
        g_assert_true (plan->proved_optimal);
    }
}

static void
count_improved (const guint64 *offsets, guint64 arena, gpointer data)
{
  GArray *arenas = data;

  g_array_append_val (arenas, arena);
}

/* The large-neighbourhood search by hand: the only buffer on top sits above
 * a free gap, so the first move puts it down, and the arena reaches the
 * peak, where the search stops. */
static void
test_lns_hand (void)
{
  static const MpOptBuffer buffers[] = { { 0, 0, 10, 10, 1 }, { 1, 1, 10, 10, 1 },
                                         { 0, 1, 6, 6, 2 } };
  guint64 offsets[] = { 0, 16, 10 };
  g_autoptr (GArray) arenas = g_array_new (FALSE, FALSE, sizeof (guint64));

  g_assert_cmpuint (mp_opt_lns (buffers, 3, offsets, 16, 1, G_MAXINT64, NULL, count_improved,
                                arenas), ==, 16);
  g_assert_cmpuint (offsets[0], ==, 0);
  g_assert_cmpuint (offsets[1], ==, 0);
  g_assert_cmpuint (offsets[2], ==, 10);
  g_assert_cmpuint (arenas->len, ==, 1);
  g_assert_cmpuint (g_array_index (arenas, guint64, 0), ==, 16);
}

/* A plan of the searches at scale: valid, its top the arena returned, not
 * below the lower bound. */
static void
assert_scale_plan (const MpGraph *graph, const MpLifetimes *lt, const guint64 *offsets,
                   guint64 arena)
{
  guint64 top = 0;

  g_assert_cmpuint (arena, >=, lt->lower_bound);
  for (guint i = 0; i < lt->n_records; i++)
    top = MAX (top, offsets[i] + lt->records[i].bytes);
  g_assert_cmpuint (top, ==, arena);
  g_assert_true (mp_validate_records (graph, lt->records, lt->n_records, offsets, lt->alignment,
                                      arena, NULL));
}

/* Each arena reported (at least one) lower than the last, from start
 * down to the arena returned. */
static void
assert_improving (const GArray *arenas, guint64 start, guint64 arena)
{
  g_assert_cmpuint (arenas->len, >, 0);
  for (guint k = 0; k < arenas->len; k++)
    g_assert_cmpuint (g_array_index (arenas, guint64, k), <,
                      k ? g_array_index (arenas, guint64, k - 1) : start);
  g_assert_cmpuint (g_array_index (arenas, guint64, arenas->len - 1), ==, arena);
}

/* On random buffers from a greedy plan: every move keeps the plan valid,
 * the arena never rises, each reported arena is lower than the last. */
static void
test_lns_random (void)
{
  g_autoptr (GRand) rand = g_rand_new_with_seed (7);

  for (guint iter = 0; iter < 20; iter++)
    {
      guint n = g_rand_int_range (rand, 50, 400);
      g_autoptr (MpGraph) graph = NULL;
      g_autoptr (MpLifetimes) lt = random_aligned (rand, n, 200, 7, &graph);
      g_autofree MpOptBuffer *buffers = buffers_of (lt);
      g_autofree guint64 *offsets = g_new (guint64, n);
      g_autoptr (GArray) arenas = g_array_new (FALSE, FALSE, sizeof (guint64));
      guint64 start = mp_place_greedy_by_size (lt->records, n, lt->n_steps, offsets);
      guint64 arena = mp_opt_lns (buffers, n, offsets, lt->lower_bound, iter,
                                  g_get_monotonic_time () + G_USEC_PER_SEC / 20, NULL,
                                  count_improved, arenas);

      g_assert_cmpuint (arena, <=, start);
      assert_scale_plan (graph, lt, offsets, arena);
      for (guint k = 0; k < arenas->len; k++)
        g_assert_cmpuint (g_array_index (arenas, guint64, k), <,
                          k ? g_array_index (arenas, guint64, k - 1) : start);
    }
}

/* Usage records of `gen random`, with their lifetimes. */
static MpGraph *
gen_random_csv (guint n, guint64 seed, MpLifetimes **lt)
{
  MpGenRandomOptions gen = { .n_tensors = n, .seed = seed };
  gsize              length;
  g_autofree char   *csv = mp_gen_random (&gen, TRUE, &length);
  g_autoptr (GError) error = NULL;
  MpGraph           *graph = mp_graph_parse_csv (csv, length, "random.csv", NULL, &error);

  g_assert_no_error (error);
  *lt = mp_lifetimes_compute (graph, NULL, &error);
  g_assert_no_error (error);
  return graph;
}

/* The plan of the best one-pass heuristic other than optimal, into
 * offsets; returns its arena. */
static guint64
best_one_pass (const MpGraph *graph, const MpLifetimes *lt, guint64 *offsets)
{
  guint                n_info;
  const MpPlannerInfo *infos = mp_planners (&n_info);
  guint64              best = G_MAXUINT64;

  for (guint k = 0; k < n_info; k++)
    {
      g_autoptr (MpPlan) other = NULL;

      if (infos[k].needs_ops || g_str_equal (infos[k].name, "optimal"))
        continue;
      other = mp_planner_run (&infos[k], graph, lt, &(MpPlannerOptions) { 0 }, NULL, NULL);
      if (other->arena < best)
        {
          best = other->arena;
          memcpy (offsets, other->offsets, sizeof (guint64) * lt->n_records);
        }
    }
  return best;
}

/* The search in rounds, for a fixed number of rounds (no clock): the same
 * offsets on one, two and four threads; never worse than the incumbent,
 * valid, each reported arena lower than the last; and on 3,000 random
 * buffers it improves on the best heuristic (the hole move: the buffers
 * above a hole at the peak drop, the ones in its way go elsewhere). */
static void
test_lns_rounds (void)
{
  g_autoptr (MpLifetimes) lt = NULL;
  g_autoptr (MpGraph) graph = gen_random_csv (3000, 5, &lt);
  g_autofree MpOptBuffer *buffers = buffers_of (lt);
  guint                n = lt->n_records;
  g_autofree guint64 *start = g_new (guint64, n);
  g_autofree guint64 *first = NULL;
  guint64              best = best_one_pass (graph, lt, start);

  for (guint threads = 1; threads <= 4; threads *= 2)
    {
      g_autofree guint64 *offsets = g_memdup2 (start, sizeof (guint64) * n);
      g_autoptr (GArray) arenas = g_array_new (FALSE, FALSE, sizeof (guint64));
      guint64 arena = mp_opt_lns_rounds (buffers, n, offsets, lt->lower_bound, 3, 24, threads,
                                         G_MAXINT64, NULL, count_improved, arenas);

      g_assert_cmpuint (arena, <, best);
      assert_scale_plan (graph, lt, offsets, arena);
      assert_improving (arenas, best, arena);
      if (first == NULL)
        first = g_steal_pointer (&offsets);
      else
        g_assert_cmpmem (offsets, n * sizeof (guint64), first, n * sizeof (guint64));
    }
}

/* Every buffer under arena, none overlapping another in time and space. */
static void
assert_packed (const MpOptBuffer *buffers, guint n, const guint64 *offsets, guint64 arena)
{
  for (guint i = 0; i < n; i++)
    {
      g_assert_cmpuint (offsets[i] + buffers[i].size, <=, arena);
      for (guint j = 0; j < i; j++)
        if (buffers[i].first <= buffers[j].last && buffers[j].first <= buffers[i].last)
          g_assert_true (offsets[i] >= offsets[j] + buffers[j].size ||
                         offsets[j] >= offsets[i] + buffers[i].size);
    }
}

/* A move must improve a given incumbent, by hand. Steps 0-2; a (8 bytes,
 * step 0) and b (8, step 2) sit at 0; c (8, steps 0-2) at 8; d (10, step 1)
 * at 16, on top: arena 26, peak 18 (c and d at step 1). The stack at step
 * 1 has the hole [0, 8) under c, taken by a and b at the other steps: only
 * a plan that moves c, d and a or b reaches 18 (c at 0 and d at 8 with a
 * and b above c, or d at 0 and c at 10). */
static void
test_lns_hole (void)
{
  static const MpOptBuffer buffers[] = { { 0, 0, 8, 8, 1 }, { 2, 2, 8, 8, 1 },
                                         { 0, 2, 8, 8, 3 }, { 1, 1, 10, 10, 1 } };
  guint64 offsets[] = { 0, 0, 8, 16 };

  g_assert_cmpuint (mp_opt_lns_rounds (buffers, 4, offsets, 18, 1, 50, 1, G_MAXINT64, NULL,
                                       NULL, NULL), ==, 18);
  assert_packed (buffers, 4, offsets, 18);
}

/* A 1-byte buffer live at every step sets the arena, as on pangu-2.6B.
 * Steps 0-5; a (5 bytes, all steps) at 0; at even steps a 4-byte buffer at
 * 5, at odd ones at 6; v (1 byte, all steps) on top at 10: arena 11, peak
 * 10. No address below 10 is free at every step: v must go down into a
 * column (5 or 9) and the three buffers in it move up or down one byte. */
static void
test_lns_column (void)
{
  static const MpOptBuffer buffers[] = { { 0, 5, 5, 5, 6 }, { 0, 0, 4, 4, 1 }, { 1, 1, 4, 4, 1 },
                                         { 2, 2, 4, 4, 1 }, { 3, 3, 4, 4, 1 }, { 4, 4, 4, 4, 1 },
                                         { 5, 5, 4, 4, 1 }, { 0, 5, 1, 1, 6 } };
  guint64 offsets[] = { 0, 5, 6, 5, 6, 5, 6, 10 };
  g_autoptr (GArray) arenas = g_array_new (FALSE, FALSE, sizeof (guint64));

  g_assert_cmpuint (mp_opt_lns_rounds (buffers, 8, offsets, 10, 1, 50, 1, G_MAXINT64, NULL,
                                       count_improved, arenas), ==, 10);
  assert_improving (arenas, 11, 10);
  g_assert_true (offsets[7] == 5 || offsets[7] == 9);
  assert_packed (buffers, 8, offsets, 10);
}

/* The search over first-fit orders on 10,000 random buffers, above the
 * exact search's size, from the best heuristic plan (first-fit's), for a
 * fixed number of passes (no clock): strictly lower, valid, each reported
 * arena lower than the last. */
static void
test_reorder (void)
{
  g_autoptr (MpLifetimes) lt = NULL;
  g_autoptr (MpGraph) graph = gen_random_csv (10000, 3, &lt);
  g_autofree MpOptBuffer *buffers = buffers_of (lt);
  g_autofree guint64 *offsets = g_new (guint64, lt->n_records);
  g_autoptr (GArray) arenas = g_array_new (FALSE, FALSE, sizeof (guint64));
  guint64              best = best_one_pass (graph, lt, offsets), arena;

  arena = mp_opt_reorder (buffers, lt->n_records, offsets, lt->lower_bound, 40, G_MAXINT64, NULL,
                          count_improved, arenas);
  g_assert_cmpuint (arena, <, best);
  assert_scale_plan (graph, lt, offsets, arena);
  assert_improving (arenas, best, arena);
}

/* A partition above the exact search's size: the searches at scale improve
 * the best heuristic plan and the result stays valid. */
static void
test_at_scale (void)
{
  g_autoptr (MpLifetimes) lt = NULL;
  g_autoptr (MpGraph) graph = gen_random_csv (6000, 3, &lt);
  g_autoptr (MpPlan) plan = NULL;
  g_autoptr (MpPlan) cancelled = NULL;
  g_autoptr (GCancellable) cancellable = g_cancellable_new ();
  guint                n_info;
  const MpPlannerInfo *infos = mp_planners (&n_info);
  const char          *not_run;

  plan = run_optimal (graph, lt, 1.0, 0, NULL);
  /* within the second, the searches either reach the lower bound (a
   * proof) or say what improved the heuristic plan */
  if (plan->arena == lt->lower_bound)
    g_assert_nonnull (strstr (plan->note, "proved optimal"));
  else
    g_assert_nonnull (strstr (plan->note, "improved by a search over first-fit orders and a "
                                          "large-neighbourhood search"));
  /* cancelled at once: the heuristic plan, valid, and said so */
  g_cancellable_cancel (cancellable);
  cancelled = run_optimal (graph, lt, 0, 0, cancellable);
  g_assert_true (g_str_has_prefix (cancelled->note, "cancelled: best found, "));
  g_assert_cmpuint (plan->arena, <=, cancelled->arena);
  /* a heuristic the half budget had no room for (a loaded machine, a
   * sanitizer build) is named in the note and not run: only those that
   * ran bound the result */
  not_run = strstr (plan->note, "not run, half the budget spent: ");
  for (guint k = 0; k < n_info; k++)
    {
      g_autoptr (MpPlan) other = NULL;

      if (infos[k].needs_ops || g_str_equal (infos[k].name, "optimal"))
        continue;
      if (not_run && strstr (not_run, infos[k].name))
        continue;
      other = mp_planner_run (&infos[k], graph, lt, &(MpPlannerOptions) { 0 }, NULL, NULL);
      g_assert_cmpuint (plan->arena, <=, other->arena);
    }
}

/* Out of time or cancelled: the best plan so far, valid, not proved. */
static void
test_stopped (void)
{
  g_autoptr (MpLifetimes) lt = NULL;
  g_autoptr (MpGraph) graph = load_data ("minimalloc/E.1048576.csv", &lt);
  g_autoptr (GCancellable) cancellable = g_cancellable_new ();
  g_autoptr (MpPlan) timed = run_optimal (graph, lt, 1e-4, 0, NULL);
  g_autoptr (MpPlan) cancelled = NULL;

  g_assert_false (timed->proved_optimal);
  g_assert_true (g_str_has_prefix (timed->note, "best found, "));
  g_assert_nonnull (strstr (timed->note, "% above the lower bound after "));
  g_assert_cmpuint (timed->arena, <=, 1513472); /* greedy-by-size */

  g_cancellable_cancel (cancellable);
  cancelled = run_optimal (graph, lt, 0, 1048576, cancellable);
  g_assert_false (cancelled->proved_optimal);
  g_assert_nonnull (strstr (cancelled->note, "cancelled: best found, "));
}

/* The issue's own question from the command line: C fits in 1,048,576. */
static void
test_cli_capacity (void)
{
  g_autofree char *path = test_data_path ("minimalloc/C.1048576.csv");
  const char      *args[] = { "plan", path, "--planner", "optimal", "--capacity", "1048576",
                              "--format", "json", NULL };
  const char      *bad_args[] = { "plan", path, "--planner", "optimal", "--capacity", "-5", NULL };
  g_autofree char *err = NULL;
  g_autofree char *bad_err = NULL;
  g_autofree char *bad_out = NULL;
  g_autofree char *out = NULL;
  json_object     *root, *plans, *plan, *v;

  g_assert_cmpint (test_run_cli_argv (args, &out, &err), ==, 0);
  root = json_tokener_parse (out);
  g_assert_nonnull (root);
  g_assert_true (json_object_object_get_ex (root, "plans", &plans));
  plan = json_object_array_get_idx (plans, 0);
  g_assert_true (json_object_object_get_ex (plan, "arena", &v));
  g_assert_cmpint (json_object_get_int64 (v), <=, 1048576);
  g_assert_true (json_object_object_get_ex (plan, "valid", &v));
  g_assert_true (json_object_get_boolean (v));
  g_assert_true (json_object_object_get_ex (plan, "proven_optimal", &v));
  g_assert_true (json_object_object_get_ex (plan, "note", &v));
  g_assert_true (g_str_has_prefix (json_object_get_string (v),
                                   "fits in capacity 1048576 B (1.00 MiB); "));
  g_assert_true (json_object_object_get_ex (plan, "fits", &v));
  g_assert_true (json_object_get_boolean (v));
  json_object_put (root);

  g_assert_cmpint (test_run_cli_argv (bad_args, &bad_out, &bad_err), ==, 2);
  g_assert_cmpstr (bad_out, ==, "");
  g_assert_cmpstr (bad_err, ==, "memplan-cli: --capacity must be from 0 to 9223372036854775807, not -5\n");
}

/* Nothing within the capacity: exit 1, and the table, the JSON and the
 * error stream say so in the same words. */
static void
test_cli_no_fit (void)
{
  g_autofree char *path = test_data_path ("minimalloc/example.12.csv");
  g_autofree char *err = NULL;
  g_autofree char *json_err = NULL;
  g_autofree char *out = NULL;
  int              status = test_run_cli (&out, &err, "plan", path, "--planner", "optimal",
                                          "--capacity", "11", NULL);
  g_autofree char *json = NULL;
  json_object     *root, *plans, *plan, *v;
  const char      *words = "does not fit in capacity 11 B: proved infeasible (no plan is below "
                           "12 B; proof: peak of live bytes)";
  g_autofree char *line = g_strdup_printf ("optimal: %s\n", words);
  g_autofree char *want_err = NULL;

  g_assert_cmpint (status, ==, 1);
  g_assert_nonnull (strstr (out, line));
  g_assert_nonnull (strstr (out, "optimal: does not fit in capacity 11 B (proved infeasible); "));
  want_err = g_strdup_printf ("memplan-cli: %s", line);
  g_assert_cmpstr (err, ==, want_err);

  status = test_run_cli (&json, &json_err, "plan", path, "--planner", "optimal", "--capacity",
                         "11", "--format", "json", NULL);
  g_assert_cmpint (status, ==, 1);
  root = json_tokener_parse (json);
  g_assert_nonnull (root);
  g_assert_true (json_object_object_get_ex (root, "plans", &plans));
  plan = json_object_array_get_idx (plans, 0);
  g_assert_true (json_object_object_get_ex (plan, "valid", &v));
  g_assert_false (json_object_get_boolean (v));
  g_assert_true (json_object_object_get_ex (plan, "fits", &v));
  g_assert_false (json_object_get_boolean (v));
  g_assert_true (json_object_object_get_ex (plan, "capacity", &v));
  g_assert_cmpint (json_object_get_int64 (v), ==, 11);
  g_assert_true (json_object_object_get_ex (plan, "fit_reason", &v));
  g_assert_cmpstr (json_object_get_string (v), ==, "proved infeasible");
  g_assert_true (json_object_object_get_ex (plan, "problem", &v));
  g_assert_cmpstr (json_object_get_string (v), ==, words);
  json_object_put (root);
}

/* bench-optimal: a row minimising and a row asking per input, with the
 * nodes, the proved bound and the proof; a capacity not reached fails. */
static void
test_cli_bench (void)
{
  g_autofree char *path = test_data_path ("minimalloc/example.12.csv");
  g_autofree char *err = NULL;
  g_autofree char *out = NULL;
  int              status = test_run_cli (&out, &err, "bench-optimal", "--capacity", "11", path,
                                          NULL);
  g_auto (GStrv) lines = g_strsplit (out, "\n", -1);

  g_assert_cmpint (status, ==, 1);
  g_assert_cmpstr (err, ==, "");
  g_assert_cmpuint (g_strv_length (lines), ==, 4);
  g_assert_true (g_str_has_prefix (lines[0], "instance       buffers capacity    live peak"));
  g_assert_nonnull (strstr (lines[0], " proved LB result "));
  g_assert_true (g_str_has_prefix (lines[1], "example.12           5 minimise           12"
                                             "          12 greedy-by-size          12"
                                             "          12 proved                     0 "));
  g_assert_true (g_str_has_suffix (lines[1], "  peak of live bytes"));
  g_assert_true (g_str_has_prefix (lines[2], "example.12           5 11                 12"
                                             "          12 greedy-by-size          12"
                                             "          12 no fit (proved)            0 "));
  g_assert_cmpstr (lines[3], ==, "");
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/analysis/optimal/example-12", test_example_12);
  g_test_add_func ("/analysis/optimal/search-core", test_search_core);
  g_test_add_func ("/analysis/optimal/greedy-cases", test_greedy_cases);
  g_test_add_func ("/analysis/optimal/aligned", test_aligned);
  g_test_add_func ("/analysis/optimal/brute-force", test_brute_force);
  g_test_add_func ("/analysis/optimal/explain-bounds", test_explain_bounds);
  g_test_add_func ("/analysis/optimal/not-worse-than-greedy", test_not_worse_than_greedy);
  g_test_add_func ("/analysis/optimal/stopped", test_stopped);
  g_test_add_func ("/analysis/optimal/lns-hand", test_lns_hand);
  g_test_add_func ("/analysis/optimal/lns-random", test_lns_random);
  g_test_add_func ("/analysis/optimal/lns-rounds", test_lns_rounds);
  g_test_add_func ("/analysis/optimal/lns-hole", test_lns_hole);
  g_test_add_func ("/analysis/optimal/lns-column", test_lns_column);
  g_test_add_func ("/analysis/optimal/reorder", test_reorder);
  g_test_add_func ("/analysis/optimal/at-scale", test_at_scale);
  g_test_add_func ("/analysis/optimal/cli-capacity", test_cli_capacity);
  g_test_add_func ("/analysis/optimal/cli-no-fit", test_cli_no_fit);
  g_test_add_func ("/analysis/optimal/cli-bench", test_cli_bench);
  g_test_add_func ("/analysis/optimal/not-found", test_not_found);
  return g_test_run ();
}
