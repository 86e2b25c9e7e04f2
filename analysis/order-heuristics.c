/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "memplan-analysis"

#include <string.h>

#include "order-private.h"

/* XLA's three memory schedulers (xla/service/hlo_memory_scheduler.cc:
 * ListScheduler, DFSMemoryScheduler, PostOrderMemoryScheduler), restated
 * for memplan's ops, which may touch several buffers and views. Ties fall
 * to the given order, so every order is deterministic. */

/* ---- list: ready ops by bytes freed minus bytes allocated ---- */

typedef struct
{
  gint64 priority; /* bytes freed - bytes allocated if run now */
  guint  users;    /* XLA's tie-break: ops that depend on it */
  guint  op;
} ListEntry;

/* TRUE when a runs before b: the larger priority, more users, then the
 * earlier op. */
static gboolean
list_before (gconstpointer pa, gconstpointer pb)
{
  const ListEntry *a = pa, *b = pb;

  if (a->priority != b->priority)
    return a->priority > b->priority;
  if (a->users != b->users)
    return a->users > b->users;
  return a->op < b->op;
}

static void
push (GArray *heap, ListEntry e)
{
  mp_order_heap_push (heap, &e, list_before);
}

/* XLA's BytesFreedIfScheduled: the buffers this op is the last to use are
 * freed, the ones it is the first to touch are allocated (a scratch buffer
 * it alone touches is both). */
static gint64
list_priority (const MpOrderProblem *pb, guint o, const guint *left)
{
  gint64 p = 0;

  for (guint j = pb->rec_start[o]; j < pb->rec_start[o + 1]; j++)
    {
      guint r = pb->recs[j];

      if (left[r] == pb->n_touch[r] && !(pb->flags[r] & MP_ORDER_REC_FROM_START))
        p -= (gint64) pb->bytes[r];
      if (left[r] == 1 && !(pb->flags[r] & MP_ORDER_REC_TO_END))
        p += (gint64) pb->bytes[r];
    }
  return p;
}

void
mp_order_list (const MpOrderProblem *pb, guint *order)
{
  g_autofree guint  *left = g_memdup2 (pb->n_touch, sizeof (guint) * MAX (pb->n_recs, 1));
  g_autofree guint  *preds_left = g_new (guint, MAX (pb->n_ops, 1));
  g_autofree gint64 *current = g_new (gint64, MAX (pb->n_ops, 1));
  g_autofree guint8 *state = g_new0 (guint8, MAX (pb->n_ops, 1)); /* 1 ready, 2 done */
  g_autoptr (GArray) heap = g_array_new (FALSE, FALSE, sizeof (ListEntry));
  guint              n = 0;

  for (guint o = 0; o < pb->n_ops; o++)
    {
      preds_left[o] = pb->pred_start[o + 1] - pb->pred_start[o];
      if (preds_left[o] == 0)
        {
          state[o] = 1;
          current[o] = list_priority (pb, o, left);
          push (heap, (ListEntry) { current[o], pb->succ_start[o + 1] - pb->succ_start[o],
                                         o });
        }
    }
  while (heap->len > 0)
    {
      ListEntry e;

      mp_order_heap_pop (heap, &e, list_before);
      guint     o = e.op;

      /* a stale entry: the op's priority has changed since */
      if (state[o] != 1 || e.priority != current[o])
        continue;
      state[o] = 2;
      order[n++] = o;
      for (guint j = pb->rec_start[o]; j < pb->rec_start[o + 1]; j++)
        {
          guint    r = pb->recs[j];
          gboolean first = left[r] == pb->n_touch[r];

          left[r]--;
          /* the other ready ops that touch r may now free or allocate less */
          if (!first && left[r] != 1)
            continue;
          for (guint k = pb->touch_start[r]; k < pb->touch_start[r + 1]; k++)
            {
              guint q = pb->touch[k];
              gint64 p;

              if (state[q] != 1 || (p = list_priority (pb, q, left)) == current[q])
                continue;
              current[q] = p;
              push (heap, (ListEntry) { p, pb->succ_start[q + 1] - pb->succ_start[q], q });
            }
        }
      for (guint j = pb->succ_start[o]; j < pb->succ_start[o + 1]; j++)
        {
          guint s = pb->succs[j];

          if (--preds_left[s] == 0)
            {
              state[s] = 1;
              current[s] = list_priority (pb, s, left);
              push (heap, (ListEntry) { current[s],
                                             pb->succ_start[s + 1] - pb->succ_start[s], s });
            }
        }
    }
  g_assert (n == pb->n_ops);
}

/* ---- DFS and post-order: depth-first post-order over the dependencies ---- */

typedef struct
{
  const guint64 *extra_users; /* NULL: plain post-order, children in given order */
  const guint64 *total_sizes;
} DfsKey;

static gint
dfs_compare (gconstpointer a, gconstpointer b, gpointer data)
{
  const DfsKey *key = data;
  guint         x = *(const guint *) a, y = *(const guint *) b;

  if (key->extra_users[x] != key->extra_users[y])
    return key->extra_users[x] > key->extra_users[y] ? -1 : 1;
  if (key->total_sizes[x] != key->total_sizes[y])
    return key->total_sizes[x] > key->total_sizes[y] ? -1 : 1;
  return (x > y) - (x < y);
}

/* Post-order from the sinks (ops nothing depends on): an op runs once all
 * it depends on has, visited in key order (or given order without one). */
static void
post_order (const MpOrderProblem *pb, const DfsKey *key, guint *order)
{
  g_autofree guint  *kids = g_memdup2 (pb->preds, sizeof (guint) *
                                                    MAX (pb->pred_start[pb->n_ops], 1));
  g_autofree guint  *sinks = g_new (guint, MAX (pb->n_ops, 1));
  g_autofree guint  *stack = g_new (guint, MAX (pb->n_ops, 1));
  g_autofree guint  *next = g_new (guint, MAX (pb->n_ops, 1));
  g_autofree guint8 *seen = g_new0 (guint8, MAX (pb->n_ops, 1));
  guint              n_sinks = 0, n = 0;

  for (guint o = 0; o < pb->n_ops; o++)
    {
      if (pb->succ_start[o + 1] == pb->succ_start[o])
        sinks[n_sinks++] = o;
      if (key)
        g_qsort_with_data (kids + pb->pred_start[o], pb->pred_start[o + 1] - pb->pred_start[o],
                           sizeof (guint), dfs_compare, (gpointer) key);
    }
  if (key)
    g_qsort_with_data (sinks, n_sinks, sizeof (guint), dfs_compare, (gpointer) key);
  for (guint i = 0; i < n_sinks; i++)
    {
      guint depth = 0;

      stack[depth] = sinks[i];
      next[depth++] = pb->pred_start[sinks[i]];
      seen[sinks[i]] = 1;
      while (depth > 0)
        {
          guint o = stack[depth - 1];

          if (next[depth - 1] < pb->pred_start[o + 1])
            {
              guint p = kids[next[depth - 1]++];

              if (!seen[p])
                {
                  seen[p] = 1;
                  stack[depth] = p;
                  next[depth++] = pb->pred_start[p];
                }
              continue;
            }
          order[n++] = o;
          depth--;
        }
    }
  g_assert (n == pb->n_ops);
}

void
mp_order_post_order (const MpOrderProblem *pb, guint *order)
{
  post_order (pb, NULL, order);
}

/* XLA's DFSMemoryScheduler: visit first the inputs that feed the most
 * extra users (users - 1, summed over everything before them), then the
 * ones whose history defined the most bytes; both capped as XLA does,
 * since a DAG counts shared ancestors more than once. */
void
mp_order_dfs (const MpOrderProblem *pb, guint *order)
{
  g_autofree guint64 *extra = g_new0 (guint64, MAX (pb->n_ops, 1));
  g_autofree guint64 *sizes = g_new0 (guint64, MAX (pb->n_ops, 1));
  guint64             cumulative = 0;
  DfsKey              key = { extra, sizes };

  /* the given order is topological: every op's dependencies come first */
  for (guint o = 0; o < pb->n_ops; o++)
    {
      guint   users = pb->succ_start[o + 1] - pb->succ_start[o];
      guint64 defined = 0;

      for (guint j = pb->rec_start[o]; j < pb->rec_start[o + 1]; j++)
        {
          guint r = pb->recs[j];

          if (pb->touch[pb->touch_start[r]] == o && !(pb->flags[r] & MP_ORDER_REC_FROM_START))
            defined += pb->bytes[r];
        }
      cumulative += defined;
      extra[o] = users ? users - 1 : 0;
      sizes[o] = defined;
      for (guint j = pb->pred_start[o]; j < pb->pred_start[o + 1]; j++)
        {
          /* each term is at most 2^62 (the lifetimes' cap on the sum of sizes) */
          extra[o] = MIN (extra[o] + extra[pb->preds[j]], pb->n_ops);
          sizes[o] = MIN (sizes[o] + sizes[pb->preds[j]], cumulative);
        }
    }
  post_order (pb, &key, order);
}
