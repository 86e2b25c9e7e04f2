/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "test-util.h"

#include "best-of.h"

/* best-of: each member's order on a hand-worked case, each member's
 * placement against a brute-force transcription of its rule, and the
 * portfolio keeping the smallest arena (the lowest member on a tie). */

typedef struct
{
  MpGraph     *graph;
  MpLifetimes *lt;
  gint64      *times;
} Case;

static void
case_init (Case *c, const TestRecord *recs, guint n)
{
  c->graph = test_graph_from_records (recs, n);
  c->lt = mp_lifetimes_compute (c->graph, NULL, NULL);
  g_assert_cmpuint (c->lt->n_records, ==, n);
  c->times = g_new (gint64, 2 * MAX (n, 1));
  for (guint i = 0; i < n; i++)
    {
      /* the records keep the file's order */
      g_assert_cmpuint (c->lt->records[i].tensor, ==, i);
      mp_usage_times (c->graph, &c->lt->records[i], &c->times[2 * i], &c->times[2 * i + 1]);
    }
}

static void
case_clear (Case *c)
{
  mp_graph_free (c->graph);
  mp_lifetimes_free (c->lt);
  g_free (c->times);
}

/* (size, first, last). Conflicts: b0 1, b1 4, b2 2, b3 3, b4 2; lifetimes
 * 1, 4, 1, 3, 1; areas 8, 16, 16, 6, 4; conflicts × size 8, 16, 32, 6, 8. */
static const TestRecord order_case[] = { { 8, 0, 0 }, { 4, 0, 3 }, { 16, 2, 2 }, { 2, 1, 3 },
                                         { 4, 3, 3 } };

static void
test_orders (void)
{
  static const guint want[MP_BEST_OF_N_ORDERS][5] = {
    [MP_BEST_OF_SIZE] = { 2, 0, 1, 4, 3 },          /* 16, 8, 4, 4 (file order), 2 */
    [MP_BEST_OF_CONFLICTS] = { 1, 3, 2, 4, 0 },     /* 4, 3, 2 (16 B), 2 (4 B), 1 */
    [MP_BEST_OF_CONFLICT_SIZE] = { 2, 1, 0, 4, 3 }, /* 32, 16, 8 (8 B), 8 (4 B), 6 */
    [MP_BEST_OF_DURATION] = { 1, 3, 0, 2, 4 },      /* 4, 3, then the 1s in file order */
    [MP_BEST_OF_AREA] = { 1, 2, 0, 3, 4 },          /* 16, 16 (file order), 8, 6, 4 */
    [MP_BEST_OF_START] = { 0, 1, 3, 2, 4 },         /* 0 (8 B), 0 (4 B), 1, 2, 3 */
    [MP_BEST_OF_GIVEN] = { 0, 1, 2, 3, 4 },
    [MP_BEST_OF_SIZE_LIFETIME] = { 2, 0, 1, 4, 3 }, /* the 4s: lifetime 4 before 1 */
    [MP_BEST_OF_SIZE_LATEST] = { 2, 0, 4, 1, 3 },   /* the 4s: the later first */
  };
  Case c;

  case_init (&c, order_case, G_N_ELEMENTS (order_case));
  for (guint o = 0; o < MP_BEST_OF_N_ORDERS; o++)
    {
      g_autofree guint *order = mp_best_of_order (c.lt->records, c.lt->n_records, c.times, o);

      g_test_message ("order %s", mp_best_of_order_name (o));
      for (guint k = 0; k < G_N_ELEMENTS (order_case); k++)
        g_assert_cmpuint (order[k], ==, want[o][k]);
    }
  case_clear (&c);
}

static void
test_names (void)
{
  g_autofree char *first = mp_best_of_member_name (0);
  g_autofree char *last = mp_best_of_member_name (MP_BEST_OF_N_MEMBERS - 1);
  g_autofree char *cs = mp_best_of_member_name (2 * MP_BEST_OF_CONFLICT_SIZE);

  g_assert_cmpstr (first, ==, "size + first-fit");
  g_assert_cmpstr (last, ==, "size-latest + best-fit");
  g_assert_cmpstr (cs, ==, "conflict-size + first-fit");
}

/* The first-fit test's case (tests/test-planner-first-fit.c): in size
 * order the last buffer (5 B, step 1) sees gaps of 18 at 12 and of 5 at 40;
 * first fit takes 12, best fit 40. In start order (b1, b4, b2, b3, b5, b0)
 * b2 goes below b4 (0), b3 into [15, 30), b5 finds only 3 bytes at 27 and
 * goes on top (40), b0 above b2 (15). */
static void
test_hand_offsets (void)
{
  static const TestRecord recs[] = { { 45, 2, 2 }, { 30, 0, 0 }, { 15, 1, 2 },
                                     { 12, 1, 1 }, { 10, 0, 1 }, { 5, 1, 1 } };
  static const struct
  {
    guint   member;
    guint64 arena;
    guint64 offsets[6];
  } want[] = {
    { 2 * MP_BEST_OF_SIZE, 60, { 0, 0, 45, 0, 30, 12 } },
    { 2 * MP_BEST_OF_SIZE + 1, 60, { 0, 0, 45, 0, 30, 40 } },
    { 2 * MP_BEST_OF_START, 60, { 15, 0, 0, 15, 30, 40 } },
    { 2 * MP_BEST_OF_START + 1, 60, { 15, 0, 0, 15, 30, 40 } },
  };
  Case c;

  case_init (&c, recs, G_N_ELEMENTS (recs));
  for (guint w = 0; w < G_N_ELEMENTS (want); w++)
    {
      guint64 offsets[6];
      guint64 arena = mp_best_of_place_member (c.lt->records, c.lt->n_records, c.lt->n_steps,
                                               c.times, want[w].member, offsets);

      g_assert_cmpuint (arena, ==, want[w].arena);
      for (guint i = 0; i < G_N_ELEMENTS (recs); i++)
        g_assert_cmpuint (offsets[i], ==, want[w].offsets[i]);
    }
  case_clear (&c);
}

static int
cmp_span (gconstpointer pa, gconstpointer pb)
{
  const MpSpan *a = pa, *b = pb;

  return (a->start > b->start) - (a->start < b->start);
}

/* The rule as written: the placed buffers that share a step, their address
 * union, its lowest (first fit) or smallest (best fit) gap that holds the
 * buffer, else the top. */
static void
brute_place (const MpUsage *records, guint n, const guint *order, gboolean best_fit,
             guint64 *offsets)
{
  g_autofree gboolean *placed = g_new0 (gboolean, MAX (n, 1));
  g_autoptr (GArray)   spans = g_array_new (FALSE, FALSE, sizeof (MpSpan));

  for (guint k = 0; k < n; k++)
    {
      const MpUsage *r = &records[order[k]];
      guint64        cursor = 0, pick = G_MAXUINT64, pick_gap = G_MAXUINT64;

      g_array_set_size (spans, 0);
      for (guint j = 0; j < n; j++)
        if (placed[j] && records[j].first <= r->last && r->first <= records[j].last)
          {
            MpSpan s = { offsets[j], offsets[j] + records[j].size };

            g_array_append_val (spans, s);
          }
      g_array_sort (spans, cmp_span);
      for (guint s = 0; s < spans->len; s++)
        {
          const MpSpan *span = &g_array_index (spans, MpSpan, s);

          if (span->start > cursor && span->start - cursor >= r->size &&
              (best_fit ? span->start - cursor < pick_gap : pick == G_MAXUINT64))
            {
              pick = cursor;
              pick_gap = span->start - cursor;
            }
          cursor = MAX (cursor, span->end);
        }
      offsets[order[k]] = pick != G_MAXUINT64 ? pick : cursor;
      placed[order[k]] = TRUE;
    }
}

static void
test_members_match_rules (void)
{
  g_autoptr (GRand) rand = g_rand_new_with_seed (30);

  for (guint round = 0; round < 20; round++)
    {
      guint               n = g_rand_int_range (rand, 1, 120);
      g_autoptr (MpGraph) graph = test_random_records (rand, n, 30, 6);
      Case                c = { 0 };
      g_autofree guint64 *got = g_new (guint64, n);
      g_autofree guint64 *want = g_new (guint64, n);
      g_autofree guint64 *won = g_new (guint64, n);
      guint64             smallest = G_MAXUINT64, arena;
      guint               first_smallest = 0, member;

      c.graph = g_steal_pointer (&graph);
      c.lt = mp_lifetimes_compute (c.graph, NULL, NULL);
      c.times = g_new (gint64, 2 * n);
      for (guint i = 0; i < n; i++)
        mp_usage_times (c.graph, &c.lt->records[i], &c.times[2 * i], &c.times[2 * i + 1]);
      for (guint m = 0; m < MP_BEST_OF_N_MEMBERS; m++)
        {
          g_autofree guint *order = mp_best_of_order (c.lt->records, n, c.times, m / 2);
          guint64           a = mp_best_of_place_member (c.lt->records, n, c.lt->n_steps,
                                                         c.times, m, got);
          guint64           top = 0;

          brute_place (c.lt->records, n, order, m % 2, want);
          for (guint i = 0; i < n; i++)
            {
              g_assert_cmpuint (got[i], ==, want[i]);
              top = MAX (top, want[i] + c.lt->records[i].size);
            }
          g_assert_cmpuint (a, ==, top);
          g_assert_cmpuint (a, >=, c.lt->lower_bound);
          if (a < smallest)
            {
              smallest = a;
              first_smallest = m;
            }
        }
      g_assert_true (mp_best_of_place (c.lt->records, n, c.lt->n_steps, c.times, won, &arena,
                                       &member, NULL, NULL));
      g_assert_cmpuint (arena, ==, smallest);
      g_assert_cmpuint (member, ==, first_smallest);
      g_assert_true (mp_validate_records (c.graph, c.lt->records, n, won, c.lt->alignment, arena,
                                          NULL));
      case_clear (&c);
    }
}

/* Three members are the single-order planners, offset for offset:
 * greedy-by-size, best-fit (XLA's ties) and first-fit (TFLite Micro's), so
 * best-of is never above any of them. */
static void
test_members_are_planners (void)
{
  static const struct
  {
    const char *planner;
    guint       member;
  } same[] = {
    { "greedy-by-size", 2 * MP_BEST_OF_SIZE + 1 },
    { "best-fit", 2 * MP_BEST_OF_SIZE_LIFETIME + 1 },
    { "first-fit", 2 * MP_BEST_OF_SIZE_LATEST },
  };
  g_autoptr (GRand) rand = g_rand_new_with_seed (31);

  for (guint round = 0; round < 10; round++)
    {
      guint                   n = g_rand_int_range (rand, 1, 300);
      g_autoptr (MpGraph)     graph = test_random_records (rand, n, 40, 3);
      g_autoptr (MpLifetimes) lt = mp_lifetimes_compute (graph, NULL, NULL);
      g_autoptr (MpPlan)      best = test_run_planner ("best-of", graph, lt);
      g_autofree gint64      *times = g_new (gint64, 2 * n);
      g_autofree guint64     *offsets = g_new (guint64, n);

      for (guint i = 0; i < n; i++)
        mp_usage_times (graph, &lt->records[i], &times[2 * i], &times[2 * i + 1]);
      for (guint k = 0; k < G_N_ELEMENTS (same); k++)
        {
          g_autoptr (MpPlan) plan = test_run_planner (same[k].planner, graph, lt);

          mp_best_of_place_member (lt->records, n, lt->n_steps, times, same[k].member, offsets);
          g_assert_cmpmem (offsets, n * sizeof (guint64), plan->offsets, n * sizeof (guint64));
          g_assert_cmpuint (best->arena, <=, plan->arena);
        }
    }
}

/* The planner: its plan is the smallest member's, named in its note, and
 * never above greedy-by-size, best-fit or first-fit where they share an
 * order and a rule (distinct sizes: no tie orders differ). */
static void
test_planner (void)
{
  static const TestRecord recs[] = { { 45, 2, 2 }, { 30, 0, 0 }, { 15, 1, 2 },
                                     { 12, 1, 1 }, { 10, 0, 1 }, { 5, 1, 1 } };
  g_autoptr (MpGraph)     graph = test_graph_from_records (recs, G_N_ELEMENTS (recs));
  g_autoptr (MpLifetimes) lt = mp_lifetimes_compute (graph, NULL, NULL);
  g_autoptr (MpPlan)      best = test_run_planner ("best-of", graph, lt);
  g_autoptr (MpPlan)      gs = test_run_planner ("greedy-by-size", graph, lt);
  g_autoptr (MpPlan)      ff = test_run_planner ("first-fit", graph, lt);

  /* 60 is the lower bound: 45 + 15 live at step 2 */
  g_assert_cmpuint (lt->lower_bound, ==, 60);
  g_assert_cmpuint (best->arena, ==, 60);
  g_assert_cmpuint (best->arena, <=, gs->arena);
  g_assert_cmpuint (best->arena, <=, ff->arena);
  g_assert_cmpstr (best->planner, ==, "best-of");
  /* the first member already reaches it */
  g_assert_cmpstr (best->note, ==, "size + first-fit");
}

/* The real instances (tests/data/real/, from cappadokes/idealloc) load with
 * their buffer counts and lower bounds (the largest sum of sizes live at
 * once, which build-aux/omnimalloc-bench.py computes on its own); on IOPDDL
 * G best-of reaches that bound. */
static void
test_real_instances (void)
{
  static const struct
  {
    const char *file;
    guint       n;
    guint64     lower_bound;
  } real[] = {
    { "F.1048576.csv", 296, G_GUINT64_CONSTANT (1048576) },
    { "G.1048576.csv", 308, G_GUINT64_CONSTANT (1048576) },
    { "H.1048576.csv", 316, G_GUINT64_CONSTANT (1048576) },
    { "I.1048576.csv", 374, G_GUINT64_CONSTANT (1048576) },
    { "J.1048576.csv", 409, G_GUINT64_CONSTANT (989184) },
    { "K.1048576.csv", 454, G_GUINT64_CONSTANT (1048576) },
    { "iopddl-G_1.csv.gz", 816, G_GUINT64_CONSTANT (3030937746) },
    { "iopddl-S_1.csv.gz", 28526, G_GUINT64_CONSTANT (1498635932) },
    { "iopddl-Y_1.csv.gz", 62185, G_GUINT64_CONSTANT (497261190115) },
    { "somas-pangu_2.6B.csv.gz", 18692, G_GUINT64_CONSTANT (5530099775) },
    { "somas-resnet50.csv.gz", 1042, G_GUINT64_CONSTANT (1515472556) },
  };

  for (guint i = 0; i < G_N_ELEMENTS (real); i++)
    {
      g_autofree char        *name = g_build_filename ("real", real[i].file, NULL);
      g_autofree char        *path = test_fixture_path (name);
      g_autoptr (GError)      error = NULL;
      g_autoptr (MpInput)     input = mp_input_load (path, NULL, &error);
      g_autoptr (MpLifetimes) lt = NULL;

      g_assert_no_error (error);
      lt = mp_lifetimes_compute (input->graph, NULL, NULL);
      g_assert_cmpuint (lt->n_records, ==, real[i].n);
      g_assert_cmpuint (lt->lower_bound, ==, real[i].lower_bound);
      if (g_str_equal (real[i].file, "iopddl-G_1.csv.gz"))
        {
          g_autoptr (MpPlan) plan = test_run_planner ("best-of", input->graph, lt);

          g_assert_cmpuint (plan->arena, ==, real[i].lower_bound);
        }
    }
}

/* explain: the trace holds the winner's decisions, one per tensor, under
 * its order's rule, and the same offsets as the untraced plan. */
static void
test_traced (void)
{
  static const TestRecord recs[] = { { 45, 2, 2 }, { 30, 0, 0 }, { 15, 1, 2 },
                                     { 12, 1, 1 }, { 10, 0, 1 }, { 5, 1, 1 } };
  g_autoptr (MpGraph)         graph = test_graph_from_records (recs, G_N_ELEMENTS (recs));
  g_autoptr (MpLifetimes)     lt = mp_lifetimes_compute (graph, NULL, NULL);
  g_autoptr (MpDecisionTrace) trace = mp_decision_trace_new ();
  MpPlannerOptions            opts = { .trace = trace };
  g_autoptr (GError)          error = NULL;
  g_autoptr (MpPlan)          traced = mp_planner_run (mp_planner_lookup ("best-of"), graph, lt,
                                                       &opts, NULL, &error);
  g_autoptr (MpPlan)          plain = test_run_planner ("best-of", graph, lt);

  g_assert_no_error (error);
  g_assert_cmpstr (traced->note, ==, "size + first-fit");
  g_assert_cmpstr (trace->order_rule, ==,
                   "best-of's winner, size order: largest first (ties in first appearance)");
  g_assert_cmpuint (mp_decision_trace_n_steps (trace), ==, G_N_ELEMENTS (recs));
  g_assert_cmpmem (traced->offsets, sizeof (guint64) * G_N_ELEMENTS (recs), plain->offsets,
                   sizeof (guint64) * G_N_ELEMENTS (recs));
}

static void
test_cancelled (void)
{
  g_autoptr (GCancellable) cancellable = g_cancellable_new ();
  g_autoptr (GRand)        rand = g_rand_new_with_seed (7);
  g_autoptr (MpGraph)      graph = test_random_records (rand, 500, 50, 4);
  g_autoptr (MpLifetimes)  lt = mp_lifetimes_compute (graph, NULL, NULL);
  g_autoptr (GError)       error = NULL;
  MpPlan                  *plan;

  g_cancellable_cancel (cancellable);
  plan = mp_planner_run (mp_planner_lookup ("best-of"), graph, lt, NULL, cancellable, &error);
  g_assert_null (plan);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/analysis/planner/best-of/orders", test_orders);
  g_test_add_func ("/analysis/planner/best-of/names", test_names);
  g_test_add_func ("/analysis/planner/best-of/hand-offsets", test_hand_offsets);
  g_test_add_func ("/analysis/planner/best-of/members-match-rules", test_members_match_rules);
  g_test_add_func ("/analysis/planner/best-of/members-are-planners", test_members_are_planners);
  g_test_add_func ("/analysis/planner/best-of/planner", test_planner);
  g_test_add_func ("/analysis/planner/best-of/real-instances", test_real_instances);
  g_test_add_func ("/analysis/planner/best-of/traced", test_traced);
  g_test_add_func ("/analysis/planner/best-of/cancelled", test_cancelled);
  return g_test_run ();
}
