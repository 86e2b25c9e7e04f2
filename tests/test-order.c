/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "test-util.h"
#include "order.h"

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
          consumer[k] = k + 1 < n && g_rand_int_range (rand, 0, 5) ? g_rand_int_range (rand, k + 1, n)
                                                                    : -1;
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

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/analysis/order/brute-force", test_brute_force);
  g_test_add_func ("/analysis/order/invariants", test_invariants);
  g_test_add_func ("/analysis/order/tree-exact", test_tree_exact);
  return g_test_run ();
}
