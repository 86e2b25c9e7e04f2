/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "test-util.h"
#include "order.h"
#include "order-cases.h"

/* The order stage: every method keeps the dependencies and each stream's
 * order, the exact search finds the brute-force minimum over all
 * topological orders, Liu's algorithm is exact on trees, and each heuristic
 * gives the order worked out by hand below. */

#define ORDER_SEED 29

/* ---- random graphs, as JSON text ---- */

typedef struct
{
  guint  n_ops;
  guint  n_tensors;
  guint  n_in[16];     /* per op: inputs */
  guint  in[16][3];    /* tensor indices: op k outputs tensor k */
  guint  producer[16]; /* of tensor k: op k */
} Dag;

/* n ops, op k writes tensor tk (and sometimes a scratch tensor only it
 * touches) and reads one to three earlier tensors, or the input x; some
 * tensors are outputs. Multi-stream when streams > 1. */
static char *
random_dag (GRand *rand, guint n, guint streams, gboolean views, Dag *dag)
{
  GString *s = g_string_new ("{\"format\": \"memplan.graph/1\", \"name\": \"r\", "
                             "\"alignment\": 1, \"tensors\": [{\"name\": \"x\", \"size\": 8, "
                             "\"kind\": \"input\"}");
  GString *ops = g_string_new (NULL);

  dag->n_ops = n;
  for (guint k = 0; k < n; k++)
    {
      guint n_in = k == 0 ? 0 : g_rand_int_range (rand, 1, MIN (k, 3) + 1);
      gboolean out = g_rand_int_range (rand, 0, 6) == 0 || k == n - 1;
      gboolean scratch = g_rand_int_range (rand, 0, 4) == 0;
      gboolean in_place = views && k > 0 && g_rand_int_range (rand, 0, 4) == 0;

      g_string_append_printf (s, ", {\"name\": \"t%u\", \"size\": %u%s}", k,
                              8 * g_rand_int_range (rand, 1, 9),
                              out ? ", \"kind\": \"output\"" : "");
      if (scratch)
        g_string_append_printf (s, ", {\"name\": \"s%u\", \"size\": %u}", k,
                                8 * g_rand_int_range (rand, 1, 5));
      dag->n_in[k] = 0;
      g_string_append_printf (ops, "%s{\"name\": \"op%u\", \"stream\": %u, \"inputs\": [",
                              k ? ", " : "", k, streams > 1 ? g_rand_int_range (rand, 0, streams)
                                                            : 0);
      if (k == 0)
        g_string_append (ops, "\"x\"");
      for (guint i = 0; i < n_in; i++)
        {
          guint    t = g_rand_int_range (rand, 0, k);
          gboolean dup = FALSE;

          for (guint j = 0; j < dag->n_in[k]; j++)
            dup |= dag->in[k][j] == t;
          if (dup)
            continue;
          dag->in[k][dag->n_in[k]++] = t;
          g_string_append_printf (ops, "%s\"t%u\"", dag->n_in[k] > 1 ? ", " : "", t);
        }
      g_string_append_printf (ops, "], \"outputs\": [\"t%u\"", k);
      if (scratch)
        g_string_append_printf (ops, ", \"s%u\"", k);
      if (in_place)
        {
          /* writes into a view of an earlier tensor: every op before that
           * touched it must stay before, every later one after */
          guint t = g_rand_int_range (rand, 0, k);

          g_string_append_printf (s, ", {\"name\": \"v%u\", \"view_of\": \"t%u\", \"offset\": 0, "
                                  "\"size\": 8}", k, t);
          g_string_append_printf (ops, ", \"v%u\"", k);
        }
      g_string_append (ops, "]}");
      dag->producer[k] = k;
    }
  g_string_append_printf (s, "], \"ops\": [%s]}", ops->str);
  g_string_free (ops, TRUE);
  return g_string_free (s, FALSE);
}

static MpGraph *
parse (const char *json)
{
  g_autoptr (GError) error = NULL;
  MpGraph *graph = mp_graph_parse_json (json, strlen (json), "random.json", &error);

  g_assert_no_error (error);
  return graph;
}

/* The peak of an order as the lifetimes measure it: the reordered graph's
 * lower bound. */
static guint64
lifetimes_peak (const MpGraph *graph, const guint *order)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (MpGraph) copy = mp_graph_reorder (graph, order, &error);
  g_autoptr (MpLifetimes) lt = NULL;

  g_assert_no_error (error);
  lt = mp_lifetimes_compute (copy, NULL, &error);
  g_assert_no_error (error);
  return lt->lower_bound;
}

/* ---- brute force: every order in which each op's inputs were made ---- */

typedef struct
{
  const MpGraph *graph;
  const Dag     *dag;
  guint          order[16];
  gboolean       done[16];
  guint64        best;
  guint64        count;
  guint64        limit;
} Brute;

/* Live bytes counted from first principles: a tensor is live from the step
 * of its first op to that of its last (outputs to the end). */
static guint64
brute_peak (const MpGraph *graph, const guint *order)
{
  guint64 peak = 0;
  guint   n = graph->n_ops;
  gint    first[64], last[64];

  g_assert (graph->n_tensors <= 64);
  for (guint t = 0; t < graph->n_tensors; t++)
    first[t] = last[t] = -1;
  for (guint s = 0; s < n; s++)
    {
      const MpOp *op = &graph->ops[order[s]];

      for (guint k = 0; k < op->n_inputs + op->n_outputs; k++)
        {
          guint t = k < op->n_inputs ? op->inputs[k] : op->outputs[k - op->n_inputs];

          if (graph->tensors[t].kind == MP_TENSOR_INPUT)
            continue;
          if (first[t] < 0)
            first[t] = s;
          last[t] = s;
          if (graph->tensors[t].kind == MP_TENSOR_OUTPUT)
            last[t] = n - 1;
        }
    }
  for (guint s = 0; s < n; s++)
    {
      guint64 live = 0;

      for (guint t = 0; t < graph->n_tensors; t++)
        if (first[t] >= 0 && first[t] <= (gint) s && (gint) s <= last[t])
          live += graph->tensors[t].size;
      peak = MAX (peak, live);
    }
  return peak;
}

static void
brute (Brute *b, guint depth)
{
  if (b->count > b->limit)
    return;
  if (depth == b->dag->n_ops)
    {
      b->best = MIN (b->best, brute_peak (b->graph, b->order));
      b->count++;
      return;
    }
  for (guint o = 0; o < b->dag->n_ops; o++)
    {
      gboolean ready = !b->done[o];

      for (guint i = 0; i < b->dag->n_in[o] && ready; i++)
        ready = b->done[b->dag->producer[b->dag->in[o][i]]];
      if (!ready)
        continue;
      b->done[o] = TRUE;
      b->order[depth] = o;
      brute (b, depth + 1);
      b->done[o] = FALSE;
    }
}

static void
test_brute_force (void)
{
  g_autoptr (GRand) rand = g_rand_new_with_seed (ORDER_SEED);
  guint tested = 0, improved = 0;

  for (guint iter = 0; iter < 3000; iter++)
    {
      Dag                  dag;
      guint                n = g_rand_int_range (rand, 1, 13);
      g_autofree char     *json = random_dag (rand, n, 1, FALSE, &dag);
      g_autoptr (MpGraph)  graph = parse (json);
      g_autoptr (GError)   error = NULL;
      g_autoptr (MpOrderResult) best = NULL, opt = NULL;
      Brute                b = { graph, &dag, { 0 }, { 0 }, G_MAXUINT64, 0, 200000 };

      brute (&b, 0);
      if (b.count > b.limit)
        continue; /* too many orders to list in a test */
      tested++;
      best = mp_order_compute (graph, MP_ORDER_BEST, NULL, &error);
      g_assert_no_error (error);
      opt = mp_order_compute (graph, MP_ORDER_OPTIMAL, NULL, &error);
      g_assert_no_error (error);
      g_assert_true (opt->proved);
      g_assert_cmpuint (opt->peak, ==, b.best);
      g_assert_cmpuint (opt->lower_bound, ==, b.best);
      g_assert_cmpuint (brute_peak (graph, opt->order), ==, b.best);
      g_assert_cmpuint (lifetimes_peak (graph, opt->order), ==, b.best);
      g_assert_cmpuint (best->peak, >=, opt->peak);
      improved += opt->peak < best->peak;
      for (guint m = MP_ORDER_GIVEN; m <= MP_ORDER_TREE; m++)
        if (best->peaks[m] != G_MAXUINT64)
          g_assert_cmpuint (best->peak, <=, best->peaks[m]);
    }
  g_test_message ("%u random DAGs against brute force, the search beat best on %u", tested,
                  improved);
  g_assert_cmpuint (tested, >=, 2500);
}

/* Every method on random graphs with views written in place and several
 * streams: a valid order (dependencies, stream order), whose peak the
 * lifetimes agree with. */
static void
test_invariants (void)
{
  g_autoptr (GRand) rand = g_rand_new_with_seed (ORDER_SEED + 1);

  for (guint iter = 0; iter < 1500; iter++)
    {
      Dag                 dag;
      guint               n = g_rand_int_range (rand, 1, 16);
      g_autofree char    *json = random_dag (rand, n, g_rand_int_range (rand, 1, 4), TRUE, &dag);
      g_autoptr (MpGraph) graph = parse (json);

      for (guint m = MP_ORDER_GIVEN; m < MP_ORDER_N; m++)
        {
          g_autoptr (GError) error = NULL;
          g_autoptr (MpOrderResult) r = mp_order_compute (graph, m, NULL, &error);
          g_autoptr (MpGraph) copy = NULL;
          guint last_on_stream[4] = { G_MAXUINT, G_MAXUINT, G_MAXUINT, G_MAXUINT };
          g_autofree guint *pos = g_new (guint, n);

          if (m == MP_ORDER_TREE && r == NULL)
            {
              g_assert_error (error, MP_ANALYSIS_ERROR, MP_ANALYSIS_ERROR_UNSUPPORTED);
              continue;
            }
          g_assert_no_error (error);
          g_assert_true (mp_order_check (graph, r->order, NULL));
          for (guint s = 0; s < n; s++)
            pos[r->order[s]] = s;
          /* each op after the producers of what it reads, each stream in order */
          for (guint s = 0; s < n; s++)
            {
              const MpOp *op = &graph->ops[r->order[s]];

              for (guint i = 0; i < op->n_inputs; i++)
                {
                  gint p = graph->tensors[op->inputs[i]].producer;

                  if (p >= 0)
                    g_assert_cmpuint (pos[p], <, s);
                }
              if (mp_graph_n_streams (graph) > 1)
                {
                  if (last_on_stream[op->stream] != G_MAXUINT)
                    g_assert_cmpuint (last_on_stream[op->stream], <, r->order[s]);
                  last_on_stream[op->stream] = r->order[s];
                }
            }
          /* a view written in place: no op that touched its base before
           * the writer in the given order runs after it, nor the reverse */
          for (guint o = 0; o < n; o++)
            for (guint k = 0; k < graph->ops[o].n_outputs; k++)
              {
                guint root = graph->tensors[graph->ops[o].outputs[k]].root;

                for (guint q = 0; q < n; q++)
                  {
                    gboolean touches = FALSE;

                    for (guint j = 0; j < graph->ops[q].n_inputs + graph->ops[q].n_outputs; j++)
                      {
                        const MpOp *oq = &graph->ops[q];
                        guint id = j < oq->n_inputs ? oq->inputs[j] : oq->outputs[j - oq->n_inputs];

                        touches |= graph->tensors[id].root == (gint) root;
                      }
                    if (touches && q != o)
                      g_assert_true ((q < o) == (pos[q] < pos[o]));
                  }
              }
          copy = mp_graph_reorder (graph, r->order, &error);
          g_assert_no_error (error);
          g_assert_cmpuint (lifetimes_peak (graph, r->order), ==, r->peak);
          for (guint s = 0; s < n; s++)
            pos[s] = s;
          g_assert_cmpuint (r->given_peak, ==, lifetimes_peak (graph, pos));
        }
    }
}

/* Random in-trees (each op feeds at most one op): Liu's order is a
 * minimum over all orders. */
static void
test_tree_exact (void)
{
  g_autoptr (GRand) rand = g_rand_new_with_seed (ORDER_SEED + 2);
  guint tested = 0;

  for (guint iter = 0; iter < 2000; iter++)
    {
      guint               n = g_rand_int_range (rand, 1, 11);
      gint                consumer[16];
      gboolean            scratch[16];
      Dag                 dag = { .n_ops = n };
      GString            *s = g_string_new ("{\"format\": \"memplan.graph/1\", \"alignment\": 1, "
                                            "\"tensors\": [");
      GString            *ops = g_string_new (NULL);
      g_autofree char    *json = NULL;
      g_autoptr (MpGraph) graph = NULL;
      g_autoptr (GError)  error = NULL;
      g_autoptr (MpOrderResult) r = NULL;
      Brute               b = { NULL, &dag, { 0 }, { 0 }, G_MAXUINT64, 0, 200000 };

      /* op k's output goes to a random later op, or is a root's output */
      for (guint k = 0; k < n; k++)
        {
          gboolean fed = k + 1 < n && g_rand_int_range (rand, 0, 5);

          consumer[k] = fed ? g_rand_int_range (rand, k + 1, n) : -1;
          dag.n_in[k] = 0;
          dag.producer[k] = k;
        }
      for (guint k = 0; k < n; k++)
        if (consumer[k] >= 0)
          {
            guint i = dag.n_in[consumer[k]]++;

            dag.in[consumer[k]][MIN (i, 2)] = k;
          }
      for (guint k = 0; k < n; k++)
        {
          g_string_append_printf (s, "%s{\"name\": \"t%u\", \"size\": %u%s}", k ? ", " : "", k,
                                  8 * g_rand_int_range (rand, 1, 9),
                                  consumer[k] < 0 ? ", \"kind\": \"output\"" : "");
          scratch[k] = g_rand_int_range (rand, 0, 3) == 0;
          if (scratch[k])
            g_string_append_printf (s, ", {\"name\": \"s%u\", \"size\": %u}", k,
                                    8 * g_rand_int_range (rand, 1, 9));
        }
      for (guint k = 0; k < n; k++)
        {
          gboolean first = TRUE;

          g_string_append_printf (ops, "%s{\"name\": \"op%u\", \"inputs\": [", k ? ", " : "", k);
          for (guint c = 0; c < k; c++)
            if (consumer[c] == (gint) k)
              {
                g_string_append_printf (ops, "%s\"t%u\"", first ? "" : ", ", c);
                first = FALSE;
              }
          g_string_append_printf (ops, "], \"outputs\": [\"t%u\"", k);
          if (scratch[k])
            g_string_append_printf (ops, ", \"s%u\"", k);
          g_string_append (ops, "]}");
        }
      g_string_append_printf (s, "], \"ops\": [%s]}", ops->str);
      g_string_free (ops, TRUE);
      json = g_string_free (s, FALSE);
      /* brute force needs at most 3 inputs an op */
      {
        gboolean small = TRUE;

        for (guint k = 0; k < n; k++)
          small &= dag.n_in[k] <= 3;
        if (!small)
          continue;
      }
      graph = parse (json);
      b.graph = graph;
      brute (&b, 0);
      if (b.count > b.limit)
        continue;
      r = mp_order_compute (graph, MP_ORDER_TREE, NULL, &error);
      g_assert_no_error (error);
      g_assert_cmpuint (brute_peak (graph, r->order), ==, r->peak);
      g_assert_cmpuint (r->peak, ==, b.best);
      tested++;
    }
  g_assert_cmpuint (tested, >=, 1500);
}


/* ---- worked by hand ---- */

static char *
order_names (const MpGraph *graph, const guint *order)
{
  GString *s = g_string_new (NULL);

  for (guint i = 0; i < graph->n_ops; i++)
    g_string_append_printf (s, "%s%s", i ? " " : "", graph->ops[order[i]].name);
  return g_string_free (s, FALSE);
}

static void
check_method (const MpGraph *graph, MpOrderMethod method, const char *want, guint64 peak)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (MpOrderResult) r = mp_order_compute (graph, method, NULL, &error);
  g_autofree char *names = NULL;

  g_assert_no_error (error);
  names = order_names (graph, r->order);
  g_assert_cmpstr (names, ==, want);
  g_assert_cmpuint (r->peak, ==, peak);
}

/* XLA's own list-scheduler counterexample (hlo_memory_scheduler.cc), with
 * b made 4 bytes and the given order A B D E C F G. Every tensor is the
 * lower-case name of its op; x is a graph input (not planned), g an output:
 *
 *   A: x -> a (1)   B: a -> b (4)   C: b -> c (1)   D: a -> d (1)
 *   E: a -> e (1)   F: d, e -> f (2)                 G: c, f -> g (1)
 *
 * Live bytes per step (a tensor is live from its first op to its last):
 *   given A B D E C F G: 1, a+b 5, a+b+d 6, a+b+d+e 7, b+d+e+c 7, d+e+c+f 5,
 *     c+f+g 4: peak 7.
 *   list: after A, ready B (frees 0, allocates 4: -4), D (-1), E (-1); D
 *     (the earlier of the tie), then E (-1 > -4); a has one use left, so B
 *     becomes 1 - 4 = -3 and F (frees d, e: 2 - 2 = 0) wins; then B, C
 *     (4 - 1 = 3), G: A D E F B C G: 1, 2, 3, a+d+e+f 5, a+f+b 7, f+b+c 7,
 *     4: peak 7.
 *   dfs: extra users (users - 1 plus the inputs'): A 2, B 2, C 2, D 2, E 2,
 *     F 2+2 = 4, G 2+4 = 6, so from G the F side (4) goes before C (2);
 *     D and E tie (2 and 1+1 bytes), D first: A D E F B C G, peak 7.
 *   post-order: from G, inputs in given order: C's chain, then F's:
 *     A B C D E F G: 1, 5, a+b+c 6, a+c+d 3, a+c+d+e 4, c+d+e+f 5, 4: peak 6.
 *   optimal: B needs a+b = 5 live; C then needs b+c and a (D or E still to
 *     come, unless they ran first, which keeps d, e or f live as well):
 *     6 is the minimum, post-order's order.
 *   tree: A feeds three ops, not a tree. */
/* hand_dag: order-cases.h */

/* A tree: two chains joined by J; given order R S P Q J.
 *
 *   R: -> r (1)   S: r -> s (3)   P: -> p (4)   Q: p -> q (1)   J: q, s -> j (1, output)
 *
 *   given R S P Q J: 1, r+s 4, s+p 7, s+p+q 8, q+s+j 5: peak 8.
 *   list: R (-1) before P (-4); S (frees r: 1 - 3 = -2) before P; P; Q
 *     (4 - 1); J: R S P Q J, peak 8.
 *   post-order: from J, inputs in given order (S is before Q): R S P Q J.
 *   dfs: no op has extra users; bytes defined so far: S 1+3 = 4, Q 4+1 = 5,
 *     so Q's chain first: P Q R S J: 4, p+q 5, q+r 2, q+r+s 5, q+s+j 5:
 *     peak 5.
 *   tree (Liu): chain P Q has one hill-valley segment (hill 5, valley 1),
 *     chain R S one (hill 4, valley 3); the larger hill minus valley (4 > 1)
 *     goes first: P Q R S J, peak 5, the minimum (Q alone needs p+q = 5). */
static const char hand_tree[] =
  "{\"format\": \"memplan.graph/1\", \"name\": \"tree\", \"alignment\": 1, \"tensors\": ["
  "{\"name\": \"r\", \"size\": 1}, {\"name\": \"s\", \"size\": 3}, "
  "{\"name\": \"p\", \"size\": 4}, {\"name\": \"q\", \"size\": 1}, "
  "{\"name\": \"j\", \"size\": 1, \"kind\": \"output\"}], "
  "\"ops\": [{\"name\": \"R\", \"outputs\": [\"r\"]}, "
  "{\"name\": \"S\", \"inputs\": [\"r\"], \"outputs\": [\"s\"]}, "
  "{\"name\": \"P\", \"outputs\": [\"p\"]}, "
  "{\"name\": \"Q\", \"inputs\": [\"p\"], \"outputs\": [\"q\"]}, "
  "{\"name\": \"J\", \"inputs\": [\"q\", \"s\"], \"outputs\": [\"j\"]}]}";

static void
test_hand (void)
{
  g_autoptr (MpGraph) dag = parse (hand_dag);
  g_autoptr (MpGraph) tree = parse (hand_tree);
  g_autoptr (GError) error = NULL;
  g_autoptr (MpOrderResult) best = NULL, opt = NULL, none = NULL;
  g_autofree char *text = NULL;

  check_method (dag, MP_ORDER_GIVEN, "A B D E C F G", 7);
  check_method (dag, MP_ORDER_LIST, "A D E F B C G", 7);
  check_method (dag, MP_ORDER_DFS, "A D E F B C G", 7);
  check_method (dag, MP_ORDER_POST_ORDER, "A B C D E F G", 6);
  check_method (dag, MP_ORDER_BEST, "A B C D E F G", 6);
  check_method (dag, MP_ORDER_OPTIMAL, "A B C D E F G", 6);
  none = mp_order_compute (dag, MP_ORDER_TREE, NULL, &error);
  g_assert_null (none);
  g_assert_error (error, MP_ANALYSIS_ERROR, MP_ANALYSIS_ERROR_UNSUPPORTED);
  g_assert_cmpstr (error->message, ==, "random.json: --order tree: not a tree: op 'A' feeds 3 "
                   "ops (Liu's algorithm needs each op to feed at most one)");

  check_method (tree, MP_ORDER_GIVEN, "R S P Q J", 8);
  check_method (tree, MP_ORDER_LIST, "R S P Q J", 8);
  check_method (tree, MP_ORDER_POST_ORDER, "R S P Q J", 8);
  check_method (tree, MP_ORDER_DFS, "P Q R S J", 5);
  check_method (tree, MP_ORDER_TREE, "P Q R S J", 5);
  check_method (tree, MP_ORDER_OPTIMAL, "P Q R S J", 5);

  /* best names the heuristic that won; explain says what moved */
  best = mp_order_compute (dag, MP_ORDER_BEST, NULL, NULL);
  g_assert_cmpint (best->chosen, ==, MP_ORDER_POST_ORDER);
  g_assert_cmpuint (best->given_peak, ==, 7);
  opt = mp_order_compute (dag, MP_ORDER_OPTIMAL, NULL, NULL);
  g_assert_true (opt->proved);
  g_assert_cmpuint (opt->lower_bound, ==, 6);
  text = mp_order_explain (dag, best, FALSE);
  g_assert_nonnull (strstr (text, "Order best (post-order): peak of live bytes 7 B in the given "
                                  "order, 6 B in this one: 1 B (14.3%) saved.\n"));
  g_assert_nonnull (strstr (text, "The given order peaks at step 3, op 'E', with 7 B live; in "
                                  "this order op 'E' runs at step 4 with 4 B live (3 B less).\n"));
  g_assert_nonnull (strstr (text, "1 op moved (the others keep their relative order):\n"
                                  "  op 'C': step 4 -> 2, now after 'B'; live bytes while it "
                                  "runs 7 B -> 6 B\n"));
}

/* What cannot be reordered says so; an order that breaks a dependency or a
 * stream's order is refused with the ops named. */
static void
test_refusals (void)
{
  g_autoptr (MpGraph) dag = parse (hand_dag);
  g_autoptr (GError) error = NULL;
  g_autoptr (MpWorkload) w = NULL;
  g_autoptr (MpGraph) csv = NULL;
  g_autoptr (MpOrderResult) r = NULL;
  const char *two_streams =
    "{\"format\": \"memplan.graph/1\", \"tensors\": [{\"name\": \"a\", \"size\": 1}, "
    "{\"name\": \"b\", \"size\": 1}], \"ops\": [{\"name\": \"P\", \"outputs\": [\"a\"]}, "
    "{\"name\": \"Q\", \"outputs\": [\"b\"], \"stream\": 1}, "
    "{\"name\": \"R\", \"inputs\": [\"a\", \"b\"], \"stream\": 1}]}";
  g_autoptr (MpGraph) streams = parse (two_streams);
  MpWorkloadOptions opts = { .order = MP_ORDER_BEST };

  g_assert_false (mp_order_check (dag, (guint[]) { 0, 4, 1, 2, 3, 5, 6 }, &error));
  g_assert_cmpstr (error->message, ==, "random.json: op 'C' runs before op 'B', which it depends "
                   "on (a tensor one writes and the other reads or writes)");
  g_clear_error (&error);
  g_assert_false (mp_order_check (dag, (guint[]) { 0, 0, 1, 2, 3, 5, 6 }, &error));
  g_assert_cmpstr (error->message, ==, "random.json: the order is not a permutation of the 7 "
                   "ops: step 1 names op 0");
  g_clear_error (&error);
  /* P and Q may swap (two streams); Q, R may not (one stream) */
  g_assert_true (mp_order_check (streams, (guint[]) { 1, 0, 2 }, NULL));
  g_assert_false (mp_order_check (streams, (guint[]) { 0, 2, 1 }, &error));
  g_assert_cmpstr (error->message, ==, "random.json: op 'Q' runs before op 'R', which comes "
                   "before it on stream 1: each stream keeps its order");
  g_clear_error (&error);

  csv = test_graph_from_records ((TestRecord[]) { { 8, 0, 1 }, { 8, 1, 2 } }, 2);
  r = mp_order_compute (csv, MP_ORDER_BEST, NULL, &error);
  g_assert_null (r);
  g_assert_error (error, MP_ANALYSIS_ERROR, MP_ANALYSIS_ERROR_UNSUPPORTED);
  g_clear_error (&error);
  w = mp_workload_new (g_steal_pointer (&csv), &opts, &error);
  g_assert_null (w);
  g_assert_cmpstr (error->message, ==, "test.csv: --order best needs a graph with dependencies "
                   "(graph JSON, ONNX, zoo); this is usage records, whose order is what happened "
                   "(use --order given)");
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/analysis/order/hand", test_hand);
  g_test_add_func ("/analysis/order/refusals", test_refusals);
  g_test_add_func ("/analysis/order/brute-force", test_brute_force);
  g_test_add_func ("/analysis/order/invariants", test_invariants);
  g_test_add_func ("/analysis/order/tree-exact", test_tree_exact);
  return g_test_run ();
}
