/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "memplan-analysis"

#include <stdlib.h>
#include <string.h>

#include "graph-private.h"
#include "order-private.h"
#include "text-util.h"

static const char *method_names[MP_ORDER_N] = {
  "given", "list", "dfs", "post-order", "tree", "best", "optimal",
};

const char *
mp_order_method_name (MpOrderMethod method)
{
  g_return_val_if_fail (method < MP_ORDER_N, "given");
  return method_names[method];
}

gboolean
mp_order_method_from_string (const char *str, MpOrderMethod *method)
{
  for (guint i = 0; i < MP_ORDER_N; i++)
    if (g_strcmp0 (str, method_names[i]) == 0)
      {
        *method = i;
        return TRUE;
      }
  return FALSE;
}

char *
mp_order_method_names (const char *sep)
{
  return g_strjoinv (sep, (char **) method_names);
}

static void
array_unref0 (gpointer array)
{
  if (array)
    g_array_unref (array);
}

static int
cmp_edge (const void *a, const void *b)
{
  const guint *x = a, *y = b;

  if (x[0] != y[0])
    return x[0] < y[0] ? -1 : 1;
  return (x[1] > y[1]) - (x[1] < y[1]);
}

/* CSR of edges[2k] -> edges[2k+1] keyed by the element at index key. */
static void
build_csr (const guint *edges, guint n_edges, guint n, guint key, guint **start_out,
           guint **list_out)
{
  guint *start = g_new0 (guint, n + 1);
  guint *list = g_new (guint, MAX (n_edges, 1));
  guint *fill;

  for (guint e = 0; e < n_edges; e++)
    start[edges[2 * e + key] + 1]++;
  for (guint i = 0; i < n; i++)
    start[i + 1] += start[i];
  fill = g_memdup2 (start, sizeof (guint) * (n + 1));
  for (guint e = 0; e < n_edges; e++)
    list[fill[edges[2 * e + key]]++] = edges[2 * e + 1 - key];
  g_free (fill);
  *start_out = start;
  *list_out = list;
}

/* The dependencies of the given order that any order must keep: for each
 * storage (a tensor and its views), a writer stays after every earlier op
 * that touched it and before every later one, readers between two writers
 * may swap; with several streams, each stream keeps its order. */
static void
build_dependencies (MpOrderProblem *pb)
{
  const MpGraph      *graph = pb->graph;
  g_autoptr (GArray)  edges = g_array_new (FALSE, FALSE, sizeof (guint));
  g_autofree gint    *last_writer = g_new (gint, MAX (graph->n_tensors, 1));
  g_autofree gint    *stamp = g_new (gint, MAX (graph->n_tensors, 1));
  g_autofree guint8  *writes = g_new0 (guint8, MAX (graph->n_tensors, 1));
  g_autoptr (GPtrArray) readers = g_ptr_array_new_full (graph->n_tensors,
                                                        array_unref0);
  g_autofree gint    *last_on_stream = NULL;
  guint               n_streams = mp_graph_n_streams (graph);
  guint              *e;
  guint               n_edges, k;

  for (guint t = 0; t < graph->n_tensors; t++)
    {
      last_writer[t] = -1;
      stamp[t] = -1;
      g_ptr_array_add (readers, NULL);
    }
  if (n_streams > 1)
    {
      last_on_stream = g_new (gint, n_streams);
      memset (last_on_stream, 0xff, sizeof (gint) * n_streams);
    }
#define ADD_EDGE(from, to)                   \
  G_STMT_START                               \
  {                                          \
    guint pair_[2] = { (from), (to) };       \
    g_array_append_vals (edges, pair_, 2);   \
  }                                          \
  G_STMT_END
  for (guint o = 0; o < graph->n_ops; o++)
    {
      const MpOp *op = &graph->ops[o];
      guint       n_ids = op->n_inputs + op->n_outputs;

      for (guint i = 0; i < op->n_outputs; i++)
        writes[graph->tensors[op->outputs[i]].root] = 1;
      for (guint i = 0; i < n_ids; i++)
        {
          guint   id = i < op->n_inputs ? op->inputs[i] : op->outputs[i - op->n_inputs];
          guint   root = graph->tensors[id].root;
          GArray *rd;

          if (stamp[root] == (gint) o)
            continue;
          stamp[root] = o;
          if (last_writer[root] >= 0)
            ADD_EDGE (last_writer[root], o);
          if (!writes[root])
            {
              if (!(rd = readers->pdata[root]))
                rd = readers->pdata[root] = g_array_new (FALSE, FALSE, sizeof (guint));
              g_array_append_val (rd, o);
              continue;
            }
          if ((rd = readers->pdata[root]))
            {
              for (guint r = 0; r < rd->len; r++)
                ADD_EDGE (g_array_index (rd, guint, r), o);
              g_array_set_size (rd, 0);
            }
          last_writer[root] = o;
        }
      for (guint i = 0; i < op->n_outputs; i++)
        writes[graph->tensors[op->outputs[i]].root] = 0;
      if (last_on_stream)
        {
          if (last_on_stream[op->stream] >= 0)
            ADD_EDGE (last_on_stream[op->stream], o);
          last_on_stream[op->stream] = o;
        }
    }
#undef ADD_EDGE

  /* each edge once, sorted by (from, to) */
  e = (guint *) (void *) edges->data;
  n_edges = edges->len / 2;
  if (n_edges)
    qsort (e, n_edges, 2 * sizeof (guint), cmp_edge);
  k = 0;
  for (guint i = 0; i < n_edges; i++)
    if (k == 0 || e[2 * i] != e[2 * (k - 1)] || e[2 * i + 1] != e[2 * (k - 1) + 1])
      {
        e[2 * k] = e[2 * i];
        e[2 * k + 1] = e[2 * i + 1];
        k++;
      }
  build_csr (e, k, pb->n_ops, 0, &pb->succ_start, &pb->succs);
  build_csr (e, k, pb->n_ops, 1, &pb->pred_start, &pb->preds);
}

MpOrderProblem *
mp_order_problem_new (const MpGraph *graph, gboolean plan_inputs)
{
  MpOrderProblem     *pb = g_new0 (MpOrderProblem, 1);
  g_autofree gint    *rec_of = g_new (gint, MAX (graph->n_tensors, 1));
  g_autoptr (GArray)  op_recs = g_array_new (FALSE, FALSE, sizeof (guint));
  g_autoptr (GArray)  bytes = g_array_new (FALSE, FALSE, sizeof (guint64));
  g_autoptr (GArray)  flags = g_array_new (FALSE, FALSE, sizeof (guint8));
  guint              *fill;

  pb->graph = graph;
  pb->n_ops = graph->n_ops;
  pb->rec_start = g_new (guint, graph->n_ops + 1);
  memset (rec_of, 0xff, sizeof (gint) * graph->n_tensors);
  for (guint o = 0; o < graph->n_ops; o++)
    {
      const MpOp *op = &graph->ops[o];

      pb->rec_start[o] = op_recs->len;
      for (guint k = 0; k < op->n_inputs + op->n_outputs; k++)
        {
          guint           id = k < op->n_inputs ? op->inputs[k] : op->outputs[k - op->n_inputs];
          guint           root = graph->tensors[id].root;
          const MpTensor *r = &graph->tensors[root];
          guint8          f;
          gboolean        seen = FALSE;

          /* the lifetimes' rule: params never, inputs on request */
          if (r->kind == MP_TENSOR_PARAM || (r->kind == MP_TENSOR_INPUT && !plan_inputs))
            continue;
          if (rec_of[root] < 0)
            {
              guint64 b = r->size;

              f = r->kind == MP_TENSOR_INPUT ? MP_ORDER_REC_FROM_START : 0;
              rec_of[root] = bytes->len;
              g_array_append_val (bytes, b);
              g_array_append_val (flags, f);
            }
          if (graph->tensors[id].kind == MP_TENSOR_OUTPUT || r->kind == MP_TENSOR_OUTPUT)
            g_array_index (flags, guint8, rec_of[root]) |= MP_ORDER_REC_TO_END;
          for (guint j = pb->rec_start[o]; j < op_recs->len && !seen; j++)
            seen = g_array_index (op_recs, guint, j) == (guint) rec_of[root];
          if (!seen)
            g_array_append_val (op_recs, rec_of[root]);
        }
    }
  pb->rec_start[graph->n_ops] = op_recs->len;
  pb->n_recs = bytes->len;
  pb->recs = g_memdup2 (op_recs->data, sizeof (guint) * MAX (op_recs->len, 1));
  pb->bytes = g_memdup2 (bytes->data, sizeof (guint64) * MAX (bytes->len, 1));
  pb->flags = g_memdup2 (flags->data, MAX (flags->len, 1));
  pb->n_touch = g_new0 (guint, MAX (pb->n_recs, 1));
  for (guint j = 0; j < op_recs->len; j++)
    pb->n_touch[pb->recs[j]]++;
  pb->touch_start = g_new0 (guint, pb->n_recs + 1);
  for (guint r = 0; r < pb->n_recs; r++)
    pb->touch_start[r + 1] = pb->touch_start[r] + pb->n_touch[r];
  pb->touch = g_new (guint, MAX (op_recs->len, 1));
  fill = g_memdup2 (pb->touch_start, sizeof (guint) * (pb->n_recs + 1));
  for (guint o = 0; o < pb->n_ops; o++)
    for (guint j = pb->rec_start[o]; j < pb->rec_start[o + 1]; j++)
      pb->touch[fill[pb->recs[j]]++] = o;
  g_free (fill);
  for (guint r = 0; r < pb->n_recs; r++)
    if (pb->flags[r] & MP_ORDER_REC_FROM_START)
      pb->from_start_bytes += pb->bytes[r];
  build_dependencies (pb);
  return pb;
}

void
mp_order_problem_free (MpOrderProblem *pb)
{
  if (pb == NULL)
    return;
  g_free (pb->bytes);
  g_free (pb->flags);
  g_free (pb->n_touch);
  g_free (pb->rec_start);
  g_free (pb->recs);
  g_free (pb->touch_start);
  g_free (pb->touch);
  g_free (pb->pred_start);
  g_free (pb->preds);
  g_free (pb->succ_start);
  g_free (pb->succs);
  g_free (pb);
}

/* Live bytes at a step: every record touched at or before it (or an input)
 * and at or after it (or an output), as the lifetimes count them. */
guint64
mp_order_problem_peak (const MpOrderProblem *pb, const guint *order, guint64 *live)
{
  g_autofree guint *left = g_memdup2 (pb->n_touch, sizeof (guint) * MAX (pb->n_recs, 1));
  guint64           cur = pb->from_start_bytes, peak = 0;

  for (guint s = 0; s < pb->n_ops; s++)
    {
      guint o = order[s];

      for (guint j = pb->rec_start[o]; j < pb->rec_start[o + 1]; j++)
        {
          guint r = pb->recs[j];

          if (left[r] == pb->n_touch[r] && !(pb->flags[r] & MP_ORDER_REC_FROM_START))
            cur += pb->bytes[r];
        }
      peak = MAX (peak, cur);
      if (live)
        live[s] = cur;
      for (guint j = pb->rec_start[o]; j < pb->rec_start[o + 1]; j++)
        {
          guint r = pb->recs[j];

          if (--left[r] == 0 && !(pb->flags[r] & MP_ORDER_REC_TO_END))
            cur -= pb->bytes[r];
        }
    }
  return peak;
}

guint64
mp_order_peak (const MpGraph *graph, const guint *order, gboolean plan_inputs, guint64 *live)
{
  g_autoptr (MpOrderProblem) pb = NULL;

  g_return_val_if_fail (graph != NULL && order != NULL, 0);
  pb = mp_order_problem_new (graph, plan_inputs);
  return mp_order_problem_peak (pb, order, live);
}

static gboolean
check_order (const MpOrderProblem *pb, const guint *order, GError **error)
{
  const MpGraph     *graph = pb->graph;
  g_autofree guint  *pos = g_new (guint, MAX (pb->n_ops, 1));
  g_autofree gint   *last_on_stream = NULL;
  guint              n_streams = mp_graph_n_streams (graph);

  memset (pos, 0xff, sizeof (guint) * pb->n_ops);
  for (guint s = 0; s < pb->n_ops; s++)
    {
      if (order[s] >= pb->n_ops || pos[order[s]] != G_MAXUINT)
        {
          mp_set_file_error (error, MP_ANALYSIS_ERROR_INVALID, graph->path,
                             "the order is not a permutation of the %u ops: step %u names op "
                             "%u", pb->n_ops, s, order[s]);
          return FALSE;
        }
      pos[order[s]] = s;
    }
  if (n_streams > 1)
    {
      last_on_stream = g_new (gint, n_streams);
      memset (last_on_stream, 0xff, sizeof (gint) * n_streams);
      for (guint s = 0; s < pb->n_ops; s++)
        {
          const MpOp *op = &graph->ops[order[s]];
          gint        prev = last_on_stream[op->stream];

          if (prev >= 0 && (guint) prev > order[s])
            {
              mp_set_file_error (error, MP_ANALYSIS_ERROR_INVALID, graph->path,
                                 "op '%s' runs before op '%s', which comes before it on stream "
                                 "%u: each stream keeps its order", op->name,
                                 graph->ops[prev].name, op->stream);
              return FALSE;
            }
          last_on_stream[op->stream] = order[s];
        }
    }
  for (guint o = 0; o < pb->n_ops; o++)
    for (guint j = pb->pred_start[o]; j < pb->pred_start[o + 1]; j++)
      if (pos[pb->preds[j]] > pos[o])
        {
          mp_set_file_error (error, MP_ANALYSIS_ERROR_INVALID, graph->path,
                             "op '%s' runs before op '%s', which it depends on (a tensor one "
                             "writes and the other reads or writes)", graph->ops[o].name,
                             graph->ops[pb->preds[j]].name);
          return FALSE;
        }
  return TRUE;
}

gboolean
mp_order_check (const MpGraph *graph, const guint *order, GError **error)
{
  g_autoptr (MpOrderProblem) pb = NULL;

  g_return_val_if_fail (graph != NULL && order != NULL, FALSE);
  pb = mp_order_problem_new (graph, FALSE);
  return check_order (pb, order, error);
}

MpGraph *
mp_graph_reorder (const MpGraph *graph, const guint *order, GError **error)
{
  g_autoptr (MpGraph) copy = NULL;

  g_return_val_if_fail (graph != NULL && graph->has_ops, NULL);
  if (!mp_order_check (graph, order, error))
    return NULL;
  copy = mp_graph_new (graph->name);
  copy->path = g_strdup (graph->path);
  copy->note = g_strdup (graph->note);
  copy->alignment = graph->alignment;
  for (guint i = 0; i < graph->n_tensors; i++)
    {
      const MpTensor *t = &graph->tensors[i];
      MpTensor       *c;

      if (mp_graph_add_tensor (copy, t->name, error) < 0)
        return NULL;
      c = &copy->tensors[i];
      c->size = t->size;
      c->kind = t->kind;
      c->dtype = t->dtype;
      c->n_dims = t->n_dims;
      c->shape = t->n_dims ? g_memdup2 (t->shape, sizeof (gint64) * t->n_dims) : NULL;
      c->view_of = t->view_of;
      c->view_offset = t->view_offset;
      c->first = t->first;
      c->last = t->last;
    }
  for (guint s = 0; s < graph->n_ops; s++)
    {
      const MpOp *op = &graph->ops[order[s]];
      MpOp       *c;

      if (mp_graph_add_op (copy, op->name, error) < 0)
        return NULL;
      c = &copy->ops[s];
      c->n_inputs = op->n_inputs;
      c->n_outputs = op->n_outputs;
      c->inputs = mp_graph_alloc_ids (copy, op->n_inputs);
      c->outputs = mp_graph_alloc_ids (copy, op->n_outputs);
      if (op->n_inputs)
        memcpy (c->inputs, op->inputs, sizeof (guint) * op->n_inputs);
      if (op->n_outputs)
        memcpy (c->outputs, op->outputs, sizeof (guint) * op->n_outputs);
      c->stream = op->stream;
      c->workspace = op->workspace;
    }
  if (!mp_graph_check (copy, error))
    return NULL;
  return g_steal_pointer (&copy);
}

void
mp_order_result_free (MpOrderResult *result)
{
  if (result == NULL)
    return;
  g_free (result->order);
  g_free (result->note);
  g_free (result);
}

static void
add_note (MpOrderResult *result, const char *note)
{
  char *old = result->note;

  result->note = old ? g_strconcat (old, "; ", note, NULL) : g_strdup (note);
  g_free (old);
}

/* Runs one heuristic into order; FALSE when it does not apply. */
static gboolean
run_heuristic (const MpOrderProblem *pb, MpOrderMethod method, guint *order, MpOrderResult *r)
{
  g_autofree char *why = NULL;

  switch (method)
    {
    case MP_ORDER_GIVEN:
      for (guint i = 0; i < pb->n_ops; i++)
        order[i] = i;
      return TRUE;
    case MP_ORDER_LIST:
      mp_order_list (pb, order);
      return TRUE;
    case MP_ORDER_DFS:
      mp_order_dfs (pb, order);
      return TRUE;
    case MP_ORDER_POST_ORDER:
      mp_order_post_order (pb, order);
      return TRUE;
    case MP_ORDER_TREE:
      if (mp_order_tree (pb, order, &why))
        return TRUE;
      /* among the others (best, optimal) a method that does not apply is no news */
      if (r->method == MP_ORDER_TREE)
        add_note (r, why);
      return FALSE;
    case MP_ORDER_BEST:
    case MP_ORDER_OPTIMAL:
    case MP_ORDER_N:
    default:
      g_assert_not_reached ();
    }
}

MpOrderResult *
mp_order_compute (const MpGraph *graph, MpOrderMethod method, const MpOrderOptions *options,
                  GError **error)
{
  g_autoptr (MpOrderResult)  r = g_new0 (MpOrderResult, 1);
  g_autoptr (MpOrderProblem) pb = NULL;
  g_autofree guint          *work = NULL;
  MpOrderOptions             opts = { 0 };
  gint64                     start = g_get_monotonic_time ();

  g_return_val_if_fail (graph != NULL && method < MP_ORDER_N, NULL);

  if (options)
    opts = *options;
  if (!graph->has_ops)
    {
      mp_set_file_error (error, MP_ANALYSIS_ERROR_UNSUPPORTED, graph->path,
                         "--order %s needs a graph with dependencies (graph JSON, ONNX, zoo); "
                         "this input's order is what happened, it has no dependencies to "
                         "reorder by", mp_order_method_name (method));
      return NULL;
    }
  pb = mp_order_problem_new (graph, opts.plan_inputs);
  for (guint64 i = 0, total = 0; i < pb->n_recs; i++)
    if (!g_uint64_checked_add (&total, total, pb->bytes[i]) ||
        total > (G_GUINT64_CONSTANT (1) << 62))
      {
        /* the lifetimes' cap: sums of live bytes never overflow */
        mp_set_file_error (error, MP_ANALYSIS_ERROR_INVALID, graph->path,
                           "the sizes of the planned tensors add up to more than 2^62 bytes");
        return NULL;
      }
  r->method = method;
  r->chosen = MP_ORDER_GIVEN;
  r->n_ops = graph->n_ops;
  r->order = g_new (guint, MAX (graph->n_ops, 1));
  work = g_new (guint, MAX (graph->n_ops, 1));
  for (guint m = 0; m < MP_ORDER_N; m++)
    r->peaks[m] = G_MAXUINT64;
  run_heuristic (pb, MP_ORDER_GIVEN, r->order, r);
  r->given_peak = r->peak = r->peaks[MP_ORDER_GIVEN] = mp_order_problem_peak (pb, r->order, NULL);
  for (guint m = MP_ORDER_LIST; m <= MP_ORDER_TREE; m++)
    {
      /* a single heuristic when one is asked for; all of them for best and optimal */
      if (method != m && method < MP_ORDER_BEST)
        continue;
      if (!run_heuristic (pb, m, work, r))
        continue;
      g_assert (check_order (pb, work, NULL));
      r->peaks[m] = mp_order_problem_peak (pb, work, NULL);
      /* the one asked for, or a strictly smaller peak (ties keep the earlier) */
      if (method == m || r->peaks[m] < r->peak)
        {
          memcpy (r->order, work, sizeof (guint) * graph->n_ops);
          r->peak = r->peaks[m];
          r->chosen = m;
        }
    }
  if (method == MP_ORDER_TREE && r->chosen != MP_ORDER_TREE)
    {
      mp_set_file_error (error, MP_ANALYSIS_ERROR_UNSUPPORTED, graph->path, "--order tree: %s",
                         r->note);
      return NULL;
    }
  if (method >= MP_ORDER_BEST)
    r->peaks[MP_ORDER_BEST] = r->peak;
  r->lower_bound = 0;
  if (method == MP_ORDER_OPTIMAL)
    {
      if (!mp_order_search (pb, &opts, r->order, r->peak, r, error))
        return NULL;
      r->peak = mp_order_problem_peak (pb, r->order, NULL);
      r->peaks[MP_ORDER_OPTIMAL] = r->peak;
      if (r->peak < r->peaks[MP_ORDER_BEST])
        r->chosen = MP_ORDER_OPTIMAL;
    }
  g_assert (check_order (pb, r->order, NULL));
  r->seconds = (g_get_monotonic_time () - start) / 1e6;
  return g_steal_pointer (&r);
}
