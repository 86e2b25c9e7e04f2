/* SPDX-License-Identifier: GPL-3.0-or-later */
#include <string.h>
#include <glib/gstdio.h>

#include "hand-cases.h"
#include "planner-private.h"

/* Decision traces (decision-trace.h): greedy-by-size's decisions on the
 * foundation's hand-worked cases, step by step; replay reproduces every
 * planner's offsets; explain's exact text. */

typedef struct
{
  guint         record;
  MpDecisionReason reason;
  guint64       offset;
  guint         n_candidates; /* gaps among the overlapping placed tensors */
  guint         n_fitting;
  guint64       gap;          /* the chosen gap's size, 0 on top */
  guint64       top;          /* top of the overlapping tensors */
  guint64       arena;        /* after the step */
} Decision;

#define GAP MP_DECISION_SMALLEST_GAP
#define TOP MP_DECISION_ON_TOP

/* Sizes (first-last): b0 16 (0-1), b1 8 (1-2), b2 64 (2-3), b3 32 (3-4),
 * b4 8 (4-5). Largest first: b2 alone at 0; b3 meets b2, on top at 64; b0
 * meets nothing placed; b1 meets b0 and b2 (busy 0-64), on top; b4 meets
 * only b3 (64-96): the gap 0-64 takes it. */
static const Decision case1_steps[] = {
  { 2, TOP, 0, 0, 0, 0, 0, 64 },  { 3, TOP, 64, 0, 0, 0, 64, 96 },
  { 0, TOP, 0, 0, 0, 0, 0, 96 },  { 1, TOP, 64, 0, 0, 0, 64, 96 },
  { 4, GAP, 0, 1, 1, 64, 96, 96 },
};

/* Every tensor lands on top of the ones it overlaps. */
static const Decision case2_steps[] = {
  { 5, TOP, 0, 0, 0, 0, 0, 64 },   { 0, TOP, 0, 0, 0, 0, 0, 64 },
  { 1, TOP, 32, 0, 0, 0, 32, 64 }, { 3, TOP, 64, 0, 0, 0, 64, 80 },
  { 8, TOP, 0, 0, 0, 0, 0, 80 },   { 2, TOP, 80, 0, 0, 0, 80, 88 },
  { 4, TOP, 88, 0, 0, 0, 88, 96 }, { 6, TOP, 64, 0, 0, 0, 64, 96 },
  { 7, TOP, 72, 0, 0, 0, 72, 96 },
};

/* b1 (28) takes the 32-byte gap between b0 (0-32) and b2 (64-100),
 * wasting 4; b5 (0-64) covers the 4 bytes left under b2, so b3 and b4 find
 * no gap and go on top. */
static const Decision case3_steps[] = {
  { 5, TOP, 0, 0, 0, 0, 0, 64 },      { 7, TOP, 64, 0, 0, 0, 64, 104 },
  { 2, TOP, 64, 0, 0, 0, 64, 104 },   { 0, TOP, 0, 0, 0, 0, 0, 104 },
  { 1, GAP, 32, 1, 1, 32, 100, 104 }, { 3, TOP, 100, 0, 0, 0, 100, 116 },
  { 6, TOP, 104, 0, 0, 0, 104, 116 }, { 4, TOP, 116, 0, 0, 0, 116, 124 },
};

/* b4 (20) fits the 32-byte gap between b0 (64-120) and b1 (152-192). */
static const Decision case4_steps[] = {
  { 3, TOP, 0, 0, 0, 0, 0, 152 },     { 2, TOP, 0, 0, 0, 0, 0, 152 },
  { 0, TOP, 64, 0, 0, 0, 64, 152 },   { 1, TOP, 152, 0, 0, 0, 152, 192 },
  { 4, GAP, 120, 1, 1, 32, 192, 192 },
};

typedef struct
{
  const char       *name;
  const TestRecord *records;
  guint             n;
  const Decision   *steps;
} HandCase;

static const HandCase hand_cases[] = {
  { "case1", case1, G_N_ELEMENTS (case1), case1_steps },
  { "case2", case2, G_N_ELEMENTS (case2), case2_steps },
  { "case3", case3, G_N_ELEMENTS (case3), case3_steps },
  { "case4", case4, G_N_ELEMENTS (case4), case4_steps },
};

static MpPlan *
run_traced (const char *name, const MpGraph *graph, const MpLifetimes *lt, MpDecisionTrace *trace)
{
  MpPlannerOptions opts = { .trace = trace };
  g_autoptr (GError) error = NULL;
  MpPlan *plan = mp_planner_run (mp_planner_lookup (name), graph, lt, &opts, NULL, &error);

  g_assert_no_error (error);
  g_assert_nonnull (plan);
  return plan;
}

static void
test_greedy_hand_case (gconstpointer data)
{
  const HandCase *hc = data;
  g_autoptr (MpGraph) graph = test_graph_from_records (hc->records, hc->n);
  g_autoptr (MpLifetimes) lt = mp_lifetimes_compute (graph, NULL, NULL);
  g_autoptr (MpDecisionTrace) trace = mp_decision_trace_new ();
  g_autoptr (MpPlan) plan = run_traced ("greedy-by-size", graph, lt, trace);

  g_assert_cmpstr (trace->planner, ==, "greedy-by-size");
  g_assert_true (trace->finished);
  g_assert_cmpuint (mp_decision_trace_n_steps (trace), ==, hc->n);
  for (guint k = 0; k < hc->n; k++)
    {
      const MpDecisionStep *s = mp_decision_trace_step (trace, k);
      const Decision    *d = &hc->steps[k];

      g_test_message ("%s step %u: b%u", hc->name, k, d->record);
      g_assert_cmpuint (s->record, ==, d->record);
      g_assert_cmpint (s->reason, ==, d->reason);
      g_assert_cmpuint (s->offset, ==, d->offset);
      g_assert_cmpuint (s->n_candidates, ==, d->n_candidates);
      g_assert_cmpuint (s->n_fitting, ==, d->n_fitting);
      g_assert_cmpuint (s->gap, ==, d->gap);
      g_assert_cmpuint (s->top, ==, d->top);
      g_assert_cmpuint (s->arena, ==, d->arena);
      g_assert_cmpint (s->op, ==, -1);
      g_assert_cmpuint (s->partition, ==, G_MAXUINT);
      /* every gap is stored; the chosen one is marked and fits */
      g_assert_cmpuint (s->n_stored, ==, s->n_candidates);
      if (s->reason == GAP)
        {
          const MpDecisionCandidate *c = mp_decision_trace_candidate (trace, s, s->chosen);

          g_assert_true (c->fits);
          g_assert_cmpuint (c->offset, ==, s->offset);
          g_assert_cmpuint (c->size, ==, s->gap);
        }
      else
        g_assert_cmpint (s->chosen, ==, -1);
      g_assert_cmpuint (plan->offsets[s->record], ==, s->offset);
    }
  g_assert_cmpuint (mp_decision_trace_step (trace, hc->n - 1)->arena, ==, plan->arena);
}

/* Gaps that fit and gaps that do not: b3 (10) takes the 12 bytes between
 * b0 (0-30) and b2 (42-54), wasting 2; b4 (5) sees 0-30 and the 2 bytes
 * 40-42 left above b3, and takes the one that fits. */
static void
test_greedy_candidates (void)
{
  static const TestRecord recs[] = { { 30, 0, 1 }, { 12, 0, 0 }, { 12, 0, 2 }, { 10, 1, 2 },
                                     { 5, 2, 2 } };
  g_autoptr (MpGraph) graph = test_graph_from_records (recs, G_N_ELEMENTS (recs));
  g_autoptr (MpLifetimes) lt = mp_lifetimes_compute (graph, NULL, NULL);
  g_autoptr (MpDecisionTrace) trace = mp_decision_trace_new ();
  g_autoptr (MpPlan) plan = run_traced ("greedy-by-size", graph, lt, trace);
  const MpDecisionStep *s = mp_decision_trace_step (trace, 3);
  const MpDecisionStep *t = mp_decision_trace_step (trace, 4);
  g_autofree char   *line = mp_decision_trace_explain_step (trace, graph, plan, 4);

  g_assert_cmpuint (s->record, ==, 3);
  g_assert_cmpint (s->reason, ==, GAP);
  g_assert_cmpuint (s->n_stored, ==, 1);
  g_assert_cmpuint (mp_decision_trace_candidate (trace, s, 0)->offset, ==, 30);
  g_assert_cmpuint (mp_decision_trace_candidate (trace, s, 0)->size, ==, 12);
  g_assert_cmpint (s->chosen, ==, 0);

  g_assert_cmpuint (t->record, ==, 4);
  g_assert_cmpint (t->reason, ==, GAP);
  g_assert_cmpuint (t->offset, ==, 0);
  g_assert_cmpuint (t->n_candidates, ==, 2);
  g_assert_cmpuint (t->n_fitting, ==, 1);
  g_assert_cmpuint (mp_decision_trace_candidate (trace, t, 0)->offset, ==, 0);
  g_assert_cmpuint (mp_decision_trace_candidate (trace, t, 0)->size, ==, 30);
  g_assert_true (mp_decision_trace_candidate (trace, t, 0)->fits);
  g_assert_cmpuint (mp_decision_trace_candidate (trace, t, 1)->offset, ==, 40);
  g_assert_cmpuint (mp_decision_trace_candidate (trace, t, 1)->size, ==, 2);
  g_assert_false (mp_decision_trace_candidate (trace, t, 1)->fits);
  g_assert_cmpint (t->chosen, ==, 0);
  g_assert_cmpstr (line, ==, "b4 (5 B, step 2): 1 of 2 gaps fits, at 0 B, wasting 25 B");
}

/* Two gaps that fit: b0 (16, steps 2-3) meets b3 (48-80), b2 (80-104) and
 * b5 (128-152); the gaps 0-48 and 104-128 both hold it, the smaller wins. */
static void
test_greedy_smallest_of_two (void)
{
  static const TestRecord recs[] = { { 16, 2, 3 }, { 48, 1, 1 }, { 24, 1, 2 },
                                     { 32, 0, 2 }, { 24, 1, 1 }, { 24, 0, 2 } };
  g_autoptr (MpGraph) graph = test_graph_from_records (recs, G_N_ELEMENTS (recs));
  g_autoptr (MpLifetimes) lt = mp_lifetimes_compute (graph, NULL, NULL);
  g_autoptr (MpDecisionTrace) trace = mp_decision_trace_new ();
  g_autoptr (MpPlan) plan = run_traced ("greedy-by-size", graph, lt, trace);
  const MpDecisionStep *s = mp_decision_trace_step (trace, 5);
  g_autofree char   *line = mp_decision_trace_explain_step (trace, graph, plan, 5);

  g_assert_cmpuint (s->record, ==, 0);
  g_assert_cmpint (s->reason, ==, GAP);
  g_assert_cmpuint (s->n_candidates, ==, 2);
  g_assert_cmpuint (s->n_fitting, ==, 2);
  g_assert_cmpuint (mp_decision_trace_candidate (trace, s, 0)->offset, ==, 0);
  g_assert_cmpuint (mp_decision_trace_candidate (trace, s, 0)->size, ==, 48);
  g_assert_cmpuint (mp_decision_trace_candidate (trace, s, 1)->offset, ==, 104);
  g_assert_cmpuint (mp_decision_trace_candidate (trace, s, 1)->size, ==, 24);
  g_assert_cmpint (s->chosen, ==, 1);
  g_assert_cmpuint (s->offset, ==, 104);
  g_assert_cmpstr (line, ==,
                   "b0 (16 B, step 2, times 2–3 in the file): 2 gaps fit; the smallest, at 104 B, "
                   "wastes 8 B");
}

/* More gaps than a step keeps: the counts stay complete and the chosen gap,
 * the smallest and the last, takes the last place kept. */
static void
test_candidates_capped (void)
{
  g_autoptr (MpTimeIndex) index = mp_time_index_new (1, 1);
  g_autoptr (MpDecisionTrace) trace = mp_decision_trace_new ();
  const MpUsage r = { .tensor = 0, .first = 0, .last = 0, .size = 100, .bytes = 100 };
  guint64       top = 0, last_gap = 0, offset;
  const MpDecisionStep *s;

  for (guint k = 0; k < 100; k++)
    {
      last_gap = top;
      top += 200 - k; /* gap k: 200 - k bytes, then a 10-byte buffer */
      mp_time_index_insert (index, 0, 0, top, 10);
      top += 10;
    }
  offset = mp_decision_trace_best_fit (trace, index, 0, &r);
  s = mp_decision_trace_step (trace, 0);
  g_assert_cmpuint (offset, ==, last_gap);
  g_assert_cmpuint (s->n_candidates, ==, 100);
  g_assert_cmpuint (s->n_fitting, ==, 100);
  g_assert_cmpuint (s->n_stored, ==, MP_DECISION_MAX_CANDIDATES);
  g_assert_cmpint (s->chosen, ==, MP_DECISION_MAX_CANDIDATES - 1);
  g_assert_cmpuint (mp_decision_trace_candidate (trace, s, s->chosen)->offset, ==, last_gap);
  g_assert_cmpuint (mp_decision_trace_candidate (trace, s, s->chosen)->size, ==, 101);
  g_assert_cmpuint (mp_decision_trace_candidate (trace, s, s->chosen - 1)->size, ==, 200 - 62);
  g_assert_cmpuint (s->gap, ==, 101);
}

/* Partition on case1 (by size: b2, b3, b0, b1, b4): b2 opens P0; b3
 * overlaps b2: P1; b0 is disjoint from both, joins the heavier P0; b1
 * overlaps b0 and b2 (P0), joins P1; b4 overlaps b3 (P1), joins P0. P0 is
 * 64 bytes, P1 32 at 64. */
static void
test_partition_decisions (void)
{
  static const struct
  {
    guint         record;
    MpDecisionReason reason;
    guint         partition, n_open, n_free;
    guint64       offset;
  } want[] = {
    { 2, MP_DECISION_NEW_PARTITION, 0, 0, 0, 0 },     { 3, MP_DECISION_NEW_PARTITION, 1, 1, 0, 64 },
    { 0, MP_DECISION_JOINED_PARTITION, 0, 2, 2, 0 },  { 1, MP_DECISION_JOINED_PARTITION, 1, 2, 1, 64 },
    { 4, MP_DECISION_JOINED_PARTITION, 0, 2, 1, 0 },
  };
  g_autoptr (MpGraph) graph = test_graph_from_records (case1, G_N_ELEMENTS (case1));
  g_autoptr (MpLifetimes) lt = mp_lifetimes_compute (graph, NULL, NULL);
  g_autoptr (MpDecisionTrace) trace = mp_decision_trace_new ();
  g_autoptr (MpPlan) plan G_GNUC_UNUSED = run_traced ("partition", graph, lt, trace);

  g_assert_cmpuint (trace->n_partitions, ==, 2);
  g_assert_cmpuint (trace->partition_offsets[1], ==, 64);
  g_assert_cmpuint (trace->partition_sizes[1], ==, 32);
  for (guint k = 0; k < G_N_ELEMENTS (want); k++)
    {
      const MpDecisionStep *s = mp_decision_trace_step (trace, k);

      g_assert_cmpuint (s->record, ==, want[k].record);
      g_assert_cmpint (s->reason, ==, want[k].reason);
      g_assert_cmpuint (s->partition, ==, want[k].partition);
      g_assert_cmpuint (s->n_candidates, ==, want[k].n_open);
      g_assert_cmpuint (s->n_fitting, ==, want[k].n_free);
      g_assert_cmpuint (s->offset, ==, want[k].offset);
      g_assert_cmpuint (s->n_stored, ==, want[k].n_open);
    }
  /* b0's choice: P0 (64 bytes of members) over P1 (32) */
  g_assert_cmpuint (mp_decision_trace_candidate (trace, mp_decision_trace_step (trace, 2), 0)->weight,
                    ==, 64);
  g_assert_cmpuint (mp_decision_trace_candidate (trace, mp_decision_trace_step (trace, 2), 1)->weight,
                    ==, 32);
  g_assert_cmpint (mp_decision_trace_step (trace, 2)->chosen, ==, 0);
  /* the candidate partitions carry their final address ranges */
  g_assert_cmpuint (mp_decision_trace_candidate (trace, mp_decision_trace_step (trace, 2), 1)->offset,
                    ==, 64);
  g_assert_cmpuint (mp_decision_trace_candidate (trace, mp_decision_trace_step (trace, 2), 1)->size,
                    ==, 32);
}

/* Replays a full trace and compares with the untraced plan; a partial
 * replay places exactly the first k records. */
static void
assert_replay (const char *name, const MpGraph *graph, const MpLifetimes *lt)
{
  g_autoptr (MpDecisionTrace) trace = mp_decision_trace_new ();
  g_autoptr (MpPlan) plain = test_run_planner (name, graph, lt);
  g_autoptr (MpPlan) traced = run_traced (name, graph, lt, trace);
  g_autofree guint64 *offsets = g_new (guint64, MAX (plain->n_records, 1));
  g_autoptr (GError) error = NULL;
  guint              half = mp_decision_trace_n_steps (trace) / 2, placed = 0;

  g_assert_cmpuint (mp_decision_trace_n_steps (trace), ==, plain->n_records);
  g_assert_true (mp_decision_trace_replay (trace, traced->records, traced->n_records, G_MAXUINT,
                                       offsets, &error));
  g_assert_no_error (error);
  for (guint i = 0; i < plain->n_records; i++)
    {
      g_assert_cmpuint (traced->offsets[i], ==, plain->offsets[i]);
      g_assert_cmpuint (offsets[i], ==, plain->offsets[i]);
    }
  g_assert_cmpuint (traced->arena, ==, plain->arena);
  if (plain->n_records)
    g_assert_cmpuint (mp_decision_trace_step (trace, plain->n_records - 1)->arena, ==, plain->arena);

  g_assert_true (mp_decision_trace_replay (trace, traced->records, traced->n_records, half, offsets,
                                       &error));
  for (guint i = 0; i < plain->n_records; i++)
    if (offsets[i] != G_MAXUINT64)
      {
        g_assert_cmpuint (offsets[i], ==, plain->offsets[i]);
        placed++;
      }
  g_assert_cmpuint (placed, ==, half);
}

static void
test_replay_random_records (void)
{
  g_autoptr (GRand) rand = g_rand_new_with_seed (20261121);
  guint                n_planners;
  const MpPlannerInfo *planners = mp_planners (&n_planners);

  for (guint iter = 0; iter < 300; iter++)
    {
      g_autoptr (MpGraph) graph = test_random_records (rand, g_rand_int_range (rand, 1, 80),
                                                       g_rand_int_range (rand, 1, 30), 10);
      MpLifetimeOptions opts = { .alignment = 1u << g_rand_int_range (rand, 0, 6) };
      g_autoptr (MpLifetimes) lt = mp_lifetimes_compute (graph, &opts, NULL);

      /* optimal records its search in summary, not step by step */
      for (guint p = 0; p < n_planners; p++)
        if (!planners[p].needs_ops && !g_str_equal (planners[p].name, "optimal"))
          assert_replay (planners[p].name, graph, lt);
    }
}

/* Graphs with ops (and several streams) for the planners that need them. */
static void
test_replay_random_graphs (void)
{
  guint                n_planners;
  const MpPlannerInfo *planners = mp_planners (&n_planners);

  for (guint seed = 1; seed <= 40; seed++)
    {
      MpGenRandomOptions gopts = { .n_tensors = 20 + 7 * seed, .n_streams = 1 + seed % 3,
                                   .seed = seed, .long_share = 0.2 };
      gsize              len;
      g_autofree char   *json = mp_gen_random (&gopts, FALSE, &len);
      g_autoptr (GError) error = NULL;
      g_autoptr (MpGraph) graph = mp_graph_parse_json (json, len, "random.json", &error);
      g_autoptr (MpLifetimes) lt = NULL;

      g_assert_no_error (error);
      lt = mp_lifetimes_compute (graph, NULL, &error);
      g_assert_no_error (error);
      for (guint p = 0; p < n_planners; p++)
        if (!g_str_equal (planners[p].name, "optimal"))
          assert_replay (planners[p].name, graph, lt);
    }
}

/* Breadth names the op whose visit placed each tensor. */
static void
test_breadth_ops (void)
{
  static const char json[] =
    "{\"format\": \"memplan.graph/1\", \"name\": \"b\", \"alignment\": 1, \"tensors\": ["
    "{\"name\": \"x\", \"size\": 10, \"kind\": \"input\"},"
    "{\"name\": \"a\", \"size\": 40}, {\"name\": \"b\", \"size\": 30},"
    "{\"name\": \"c\", \"size\": 20, \"kind\": \"output\"}],"
    "\"ops\": [{\"name\": \"f\", \"inputs\": [\"x\"], \"outputs\": [\"a\"]},"
    "{\"name\": \"g\", \"inputs\": [\"a\"], \"outputs\": [\"b\"]},"
    "{\"name\": \"h\", \"inputs\": [\"b\"], \"outputs\": [\"c\"]}]}";
  g_autoptr (GError) error = NULL;
  g_autoptr (MpGraph) graph = mp_graph_parse_json (json, strlen (json), "b.json", &error);
  g_autoptr (MpLifetimes) lt = mp_lifetimes_compute (graph, NULL, &error);
  g_autoptr (MpDecisionTrace) trace = mp_decision_trace_new ();
  g_autoptr (MpPlan) plan = run_traced ("greedy-by-breadth", graph, lt, trace);

  /* breadths: f 40, g 70, h 50: g places a then b, h places c */
  g_assert_no_error (error);
  g_assert_cmpuint (mp_decision_trace_n_steps (trace), ==, 3);
  g_assert_cmpuint (plan->records[mp_decision_trace_step (trace, 0)->record].tensor, ==, 1);
  g_assert_cmpint (mp_decision_trace_step (trace, 0)->op, ==, 1);
  g_assert_cmpuint (plan->records[mp_decision_trace_step (trace, 1)->record].tensor, ==, 2);
  g_assert_cmpint (mp_decision_trace_step (trace, 1)->op, ==, 1);
  g_assert_cmpuint (plan->records[mp_decision_trace_step (trace, 2)->record].tensor, ==, 3);
  g_assert_cmpint (mp_decision_trace_step (trace, 2)->op, ==, 2);
}

static void
test_replay_errors (void)
{
  g_autoptr (MpGraph) graph = test_graph_from_records (case1, G_N_ELEMENTS (case1));
  g_autoptr (MpLifetimes) lt = mp_lifetimes_compute (graph, NULL, NULL);
  g_autoptr (MpDecisionTrace) trace = mp_decision_trace_new ();
  g_autoptr (MpPlan) plan = run_traced ("greedy-by-size", graph, lt, trace);
  guint64 offsets[G_N_ELEMENTS (case1)];
  g_autoptr (GError) error = NULL;

  g_array_index (trace->steps, MpDecisionStep, 1).record = 2;
  g_assert_false (mp_decision_trace_replay (trace, plan->records, plan->n_records, G_MAXUINT, offsets,
                                        &error));
  g_assert_cmpstr (error->message, ==, "trace step 1 places record 2 a second time");
  g_clear_error (&error);

  g_array_index (trace->steps, MpDecisionStep, 1).record = 7;
  g_assert_false (mp_decision_trace_replay (trace, plan->records, plan->n_records, G_MAXUINT, offsets,
                                        &error));
  g_assert_cmpstr (error->message, ==, "trace step 1 places record 7 of 5");
  g_clear_error (&error);

  g_array_set_size (trace->steps, 4);
  g_array_index (trace->steps, MpDecisionStep, 1).record = 3;
  g_assert_false (mp_decision_trace_replay (trace, plan->records, plan->n_records, G_MAXUINT, offsets,
                                        &error));
  g_assert_cmpstr (error->message, ==, "the trace never places record 4");
}

/* The optimal planner's hook: a summary of its search. */
static void
test_search_summary (void)
{
  g_autoptr (MpGraph) graph = test_graph_from_records (case1, G_N_ELEMENTS (case1));
  g_autoptr (MpLifetimes) lt = mp_lifetimes_compute (graph, NULL, NULL);
  g_autoptr (MpPlan) plan = test_run_planner ("greedy-by-size", graph, lt);
  g_autoptr (MpDecisionTrace) trace = mp_decision_trace_new ();
  g_autofree char *text = NULL;

  g_free (plan->planner);
  plan->planner = g_strdup ("optimal");
  mp_decision_trace_search_incumbent (trace, 0.0005, 0, 96, "greedy-by-size");
  mp_decision_trace_search_prune (trace, "lower bound", 3);
  mp_decision_trace_search_prune (trace, "dominated", 2);
  mp_decision_trace_search_prune (trace, "lower bound", 4);
  mp_decision_trace_search_incumbent (trace, 0.25, 17, 88, "search");
  trace->search.proved = TRUE;
  text = mp_decision_trace_explain (trace, graph, plan);
  g_assert_cmpstr (text, ==,
                   "optimal on test: 5 tensors, lower bound 96 B\n"
                   "search:\n"
                   "  first incumbent 96 B from greedy-by-size after 0 nodes (500 µs)\n"
                   "  better incumbent 88 B from search after 17 nodes (250.0 ms)\n"
                   "  pruned by lower bound: 7\n"
                   "  pruned by dominated: 2\n"
                   "  17 nodes; optimality proved\n"
                   "\n"
                   "arena 96 B, 1.0000 × the lower bound\n");
}

static const char case3_text[] =
  "greedy-by-size on test: 8 tensors, lower bound 124 B\n"
  "order: largest first (ties in first appearance)\n"
  "rule: each into the smallest gap between the placed tensors that overlap it in time (the "
  "lowest on a tie), else on top of them\n"
  "\n"
  "1. b5 (64 B, steps 5–7): nothing placed overlaps it in time: at 0; arena 64 B\n"
  "2. b7 (40 B, step 7, times 7–8 in the file): no gap among the tensors it overlaps; on top "
  "of them, at 64 B; arena 104 B\n"
  "3. b2 (36 B, steps 2–5): no gap among the tensors it overlaps; on top of them, at 64 B; "
  "arena 104 B\n"
  "4. b0 (32 B, steps 0–1): nothing placed overlaps it in time: at 0; arena 104 B\n"
  "5. b1 (28 B, steps 1–4): 1 gap fits, at 32 B, wasting 4 B; arena 104 B\n"
  "6. b3 (16 B, steps 3–5): no gap among the tensors it overlaps; on top of them, at 100 B; "
  "arena 116 B\n"
  "7. b6 (10 B, steps 6–7, times 6–8 in the file): no gap among the tensors it overlaps; on "
  "top of them, at 104 B; arena 116 B\n"
  "8. b4 (8 B, steps 4–5): no gap among the tensors it overlaps; on top of them, at 116 B; "
  "arena 124 B\n"
  "\n"
  "arena 124 B, 1.0000 × the lower bound\n";

static void
test_explain_text (void)
{
  g_autoptr (MpGraph) graph = test_graph_from_records (case3, G_N_ELEMENTS (case3));
  g_autoptr (MpLifetimes) lt = mp_lifetimes_compute (graph, NULL, NULL);
  g_autoptr (MpDecisionTrace) trace = mp_decision_trace_new ();
  g_autoptr (MpPlan) plan = run_traced ("greedy-by-size", graph, lt, trace);
  g_autofree char *text = mp_decision_trace_explain (trace, graph, plan);

  g_assert_cmpstr (text, ==, case3_text);
}

/* The CLI on the same case, and its errors. */
static void
test_explain_cli (void)
{
  g_autoptr (GString) csv = g_string_new ("id,lower,upper,size\n");
  g_autofree char *path = NULL;
  g_autofree char *out = NULL, *err = NULL;
  g_autofree char *out2 = NULL, *err2 = NULL;
  g_autofree char *out3 = NULL, *err3 = NULL;
  g_autofree char *dir = g_dir_make_tmp ("memplan-explain-XXXXXX", NULL);
  g_autofree char *expected = NULL;
  g_autofree char *names = NULL;

  for (guint i = 0; i < G_N_ELEMENTS (case3); i++)
    g_string_append_printf (csv, "b%u,%u,%u,%" G_GUINT64_FORMAT "\n", i, case3[i].first,
                            case3[i].last + 1, case3[i].size);
  path = g_build_filename (dir, "test.csv", NULL);
  g_assert_true (g_file_set_contents (path, csv->str, -1, NULL));

  g_assert_cmpint (test_run_cli (&out, &err, "explain", path, "--planner", "greedy-by-size",
                                 NULL), ==, 0);
  g_assert_cmpstr (out, ==, case3_text);
  g_assert_cmpstr (err, ==, "");

  g_assert_cmpint (test_run_cli (&out2, &err2, "explain", path, "--planner", "nope", NULL), ==, 2);
  g_assert_cmpstr (out2, ==, "");
  names = mp_planner_names (", ");
  expected = g_strdup_printf ("memplan-cli: unknown planner 'nope' (known: %s, all)\n", names);
  g_assert_cmpstr (err2, ==, expected);

  g_assert_cmpint (test_run_cli (&out3, &err3, "explain", path, "--planner", "greedy-by-breadth",
                                 NULL), ==, 2);
  g_assert_cmpstr (err3, ==, "memplan-cli: greedy-by-breadth needs the ops of a graph; 'test' "
                             "has usage records only\n");
  g_unlink (path);

  /* bad input: the loader's message, exit 2, nothing on stdout */
  g_clear_pointer (&out3, g_free);
  g_clear_pointer (&err3, g_free);
  g_assert_true (g_file_set_contents (path, "id,lower,upper,size\nb0,3,1,4\n", -1, NULL));
  g_assert_cmpint (test_run_cli (&out3, &err3, "explain", path, NULL), ==, 2);
  g_assert_cmpstr (out3, ==, "");
  g_free (expected);
  expected = g_strdup_printf ("memplan-cli: %s: line 2 (buffer 'b0'): upper 1 must be greater "
                              "than lower 3\n", path);
  g_assert_cmpstr (err3, ==, expected);
  g_unlink (path);
  g_rmdir (dir);
}

/* data/teaching: the disagreements its README tells, in MiB. */
static void
test_teaching_graphs (void)
{
  static const struct
  {
    const char *file;
    guint64     lower_bound, naive, size, breadth, partition, best_fit; /* 0: skipped */
  } want[] = {
    { "size-beats-partition.csv", 10, 16, 10, 0, 13, 10 },
    { "breadth-beats-size.json", 13, 22, 15, 13, 15, 15 },
    { "only-search.csv", 11, 17, 12, 0, 13, 12 },
  };
  const guint64 M = 1024 * 1024;

  for (guint i = 0; i < G_N_ELEMENTS (want); i++)
    {
      g_autofree char *rel = g_build_filename ("teaching", want[i].file, NULL);
      g_autofree char *path = test_data_path (rel);
      g_autoptr (GError) error = NULL;
      g_autoptr (MpGraph) graph = test_graph_load (path, &error);
      g_autoptr (MpLifetimes) lt = NULL;
      g_autoptr (MpPlan) naive = NULL, size = NULL, partition = NULL, best_fit = NULL;

      g_assert_no_error (error);
      lt = mp_lifetimes_compute (graph, NULL, &error);
      g_assert_no_error (error);
      naive = test_run_planner ("naive", graph, lt);
      size = test_run_planner ("greedy-by-size", graph, lt);
      partition = test_run_planner ("partition", graph, lt);
      best_fit = test_run_planner ("best-fit", graph, lt);
      g_assert_cmpuint (lt->lower_bound, ==, want[i].lower_bound * M);
      g_assert_cmpuint (naive->arena, ==, want[i].naive * M);
      g_assert_cmpuint (size->arena, ==, want[i].size * M);
      g_assert_cmpuint (partition->arena, ==, want[i].partition * M);
      g_assert_cmpuint (best_fit->arena, ==, want[i].best_fit * M);
      if (want[i].breadth)
        {
          g_autoptr (MpPlan) breadth = test_run_planner ("greedy-by-breadth", graph, lt);

          g_assert_cmpuint (breadth->arena, ==, want[i].breadth * M);
        }
      if (g_str_equal (want[i].file, "only-search.csv"))
        {
          /* the optimum: proj under embed; attn, query, bias stacked over proj */
          static const guint64 optimum[] = { 3, 0, 3, 7, 10 }; /* embed proj attn query bias */
          g_autoptr (MpPlan) plan = mp_plan_new ("hand", lt);

          for (guint r = 0; r < plan->n_records; r++)
            plan->offsets[r] = optimum[r] * M;
          mp_plan_finish (plan);
          mp_plan_judge (graph, NULL, plan);
          g_assert_cmpstr (plan->problem, ==, NULL);
          g_assert_cmpuint (plan->arena, ==, 11 * M);
        }
    }
}

/* optimal records its search in summary: the heuristic it starts from (a
 * tie of first-fit and greedy-by-size here), each
 * better incumbent (the last one is the plan), prunes by reason, and the
 * proof; and no steps of the heuristics it ran. */
static void
test_optimal_summary (void)
{
  g_autoptr (MpGraph) graph = test_graph_from_records (search_only, G_N_ELEMENTS (search_only));
  g_autoptr (MpLifetimes) lt = mp_lifetimes_compute (graph, NULL, NULL);
  g_autoptr (MpDecisionTrace) trace = mp_decision_trace_new ();
  g_autoptr (MpPlan) plan = run_traced ("optimal", graph, lt, trace);
  const MpSearchIncumbent *first, *last;

  g_assert_true (trace->has_search);
  g_assert_cmpuint (mp_decision_trace_n_steps (trace), ==, 0);
  g_assert_cmpuint (trace->search.incumbents->len, >=, 2);
  first = &g_array_index (trace->search.incumbents, MpSearchIncumbent, 0);
  last = &g_array_index (trace->search.incumbents, MpSearchIncumbent,
                         trace->search.incumbents->len - 1);
  g_assert_cmpstr (first->source, ==, "first-fit"); /* runs first: it wins the tie */
  g_assert_cmpuint (first->arena, ==, 28 * MIB);
  g_assert_cmpstr (last->source, ==, "search");
  g_assert_cmpuint (last->arena, ==, plan->arena);
  g_assert_cmpuint (plan->arena, ==, 27 * MIB);
  g_assert_cmpuint (trace->search.prunes->len, ==, 4);
  g_assert_cmpuint (trace->search.nodes, >, 0);
  g_assert_true (trace->search.proved);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  for (guint i = 0; i < G_N_ELEMENTS (hand_cases); i++)
    {
      g_autofree char *path = g_strdup_printf ("/analysis/trace/greedy-by-size/%s",
                                               hand_cases[i].name);
      g_test_add_data_func (path, &hand_cases[i], test_greedy_hand_case);
    }
  g_test_add_func ("/analysis/trace/greedy-by-size/candidates", test_greedy_candidates);
  g_test_add_func ("/analysis/trace/greedy-by-size/smallest-of-two", test_greedy_smallest_of_two);
  g_test_add_func ("/analysis/trace/greedy-by-size/candidates-capped", test_candidates_capped);
  g_test_add_func ("/analysis/trace/partition/decisions", test_partition_decisions);
  g_test_add_func ("/analysis/trace/greedy-by-breadth/ops", test_breadth_ops);
  g_test_add_func ("/analysis/trace/replay/random-records", test_replay_random_records);
  g_test_add_func ("/analysis/trace/replay/random-graphs", test_replay_random_graphs);
  g_test_add_func ("/analysis/trace/replay/errors", test_replay_errors);
  g_test_add_func ("/analysis/trace/search-summary", test_search_summary);
  g_test_add_func ("/analysis/trace/explain/text", test_explain_text);
  g_test_add_func ("/analysis/trace/explain/cli", test_explain_cli);
  g_test_add_func ("/analysis/trace/teaching-graphs", test_teaching_graphs);
  g_test_add_func ("/analysis/trace/optimal-summary", test_optimal_summary);
  return g_test_run ();
}
