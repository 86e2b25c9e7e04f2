/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "memplan-analysis"

#include "planner-private.h"

/* Pisarchyk & Lee's greedy by breadth: an op's breadth is the sum of the
 * sizes of the planned tensors it reads and writes (each counted once). Ops
 * are visited by decreasing breadth (ties in op order); each places its
 * tensors not yet placed, largest first (ties in first appearance), with the
 * best-fit rule of greedy by size. Building the order is linear in the op
 * arguments plus the sorts; the placement is mp_place_in_order's. */

static inline guint
op_arg (const MpOp *op, guint k)
{
  return k < op->n_inputs ? op->inputs[k] : op->outputs[k - op->n_inputs];
}

/* Tracing only: the op whose visit placed each tensor, found by walking the
 * sorted ops again (the trace's steps are in placement order). */
static void
trace_ops (MpDecisionTrace *trace, const MpOrderKey *ops, guint n_ops, const MpGraph *graph,
           const MpLifetimes *lifetimes, guint n)
{
  g_autofree gboolean *queued = g_new0 (gboolean, MAX (n, 1));
  guint                k = 0;

  mp_decision_trace_rules (trace,
                       "ops by decreasing breadth (the bytes they read and write; ties in op "
                       "order), each op's tensors not yet placed largest first",
                       MP_RULE_SMALLEST_GAP);
  for (guint i = 0; i < n_ops; i++)
    {
      const MpOp *op = &graph->ops[ops[i].index];

      for (guint a = 0; a < op->n_inputs + op->n_outputs; a++)
        {
          gint r = lifetimes->record_of[op_arg (op, a)];

          if (r < 0 || queued[r])
            continue;
          queued[r] = TRUE;
          mp_decision_trace_set_op (trace, k++, ops[i].index);
        }
    }
}

MpPlan *
mp_planner_greedy_by_breadth (const MpGraph *graph, const MpLifetimes *lifetimes,
                              const MpPlannerOptions *options, GCancellable *cancellable,
                              GError **error)
{
  g_autoptr (MpPlan)  plan = mp_plan_new ("greedy-by-breadth", lifetimes);
  guint               n = plan->n_records, n_ops = graph->n_ops, n_order = 0;
  g_autofree MpOrderKey *ops = g_new (MpOrderKey, MAX (n_ops, 1));
  g_autofree guint   *seen = g_new (guint, MAX (n, 1)); /* op + 1 that last counted it */
  g_autofree gboolean *queued = g_new0 (gboolean, MAX (n, 1));
  g_autofree guint   *order = g_new (guint, MAX (n, 1));
  g_autoptr (GArray) local = g_array_new (FALSE, FALSE, sizeof (MpOrderKey));

  for (guint i = 0; i < n; i++)
    seen[i] = 0;
  for (guint o = 0; o < n_ops; o++)
    {
      const MpOp *op = &graph->ops[o];

      ops[o] = (MpOrderKey) { 0, 0, o };
      for (guint k = 0; k < op->n_inputs + op->n_outputs; k++)
        {
          gint r = lifetimes->record_of[op_arg (op, k)];

          if (r < 0 || seen[r] == o + 1)
            continue;
          seen[r] = o + 1;
          ops[o].key += plan->records[r].size;
        }
    }
  mp_order_sort (ops, n_ops);

  for (guint i = 0; i < n_ops; i++)
    {
      const MpOp *op = &graph->ops[ops[i].index];

      g_array_set_size (local, 0);
      for (guint k = 0; k < op->n_inputs + op->n_outputs; k++)
        {
          gint    r = lifetimes->record_of[op_arg (op, k)];
          MpOrderKey key;

          if (r < 0 || queued[r])
            continue;
          queued[r] = TRUE;
          key = (MpOrderKey) { plan->records[r].size, 0, r };
          g_array_append_val (local, key);
        }
      mp_order_sort ((MpOrderKey *) local->data, local->len);
      for (guint k = 0; k < local->len; k++)
        order[n_order++] = g_array_index (local, MpOrderKey, k).index;
    }
  /* every record comes from an op; keep any other in record order all the same */
  for (guint r = 0; r < n; r++)
    if (!queued[r])
      order[n_order++] = r;
  g_assert (n_order == n);

  if (!mp_place_in_order (plan->records, n, plan->n_steps, order, MP_PLACE_BEST_FIT,
                          plan->offsets, options->trace, cancellable, error))
    return NULL;
  if (G_UNLIKELY (options->trace))
    trace_ops (options->trace, ops, n_ops, graph, lifetimes, n);
  return g_steal_pointer (&plan);
}
