/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "memplan-analysis"

#include <stdlib.h>
#include <string.h>

#include "order-private.h"

/* Liu's algorithm for trees (J. W. H. Liu, "An application of generalized
 * tree pebbling to sparse matrix factorization", SIAM J. Algebraic Discrete
 * Methods 8(3), 1987): each subtree's best order is cut into hill-valley
 * segments (the highest peak, the lowest residual after it, the highest
 * peak after that, ...); a node's children are interleaved by taking their
 * segments in decreasing hill minus valley, then the node runs. Exact when
 * every op feeds at most one op: the graph is a forest of in-trees. */

typedef struct
{
  guint64 hill;   /* peak during the segment, above the subtree's start */
  guint64 valley; /* residual at its end */
  guint   first;  /* ops of the segment: seq[first..last) of its subtree */
  guint   last;
  guint   child;  /* merging: which child it belongs to */
} Segment;

typedef struct
{
  guint  *seq;    /* the subtree's order */
  guint   n_seq;
  GArray *segs;   /* Segment */
} Subtree;

static void
subtree_clear (Subtree *t)
{
  g_free (t->seq);
  if (t->segs)
    g_array_unref (t->segs);
}

/* Cuts a profile (peak during, residual after, per step) into hill-valley
 * segments. */
static GArray *
segment (const guint64 *peak, const guint64 *after, guint n)
{
  GArray *segs = g_array_new (FALSE, FALSE, sizeof (Segment));
  guint   start = 0;

  while (start < n)
    {
      guint   h = start, v;
      Segment s;

      for (guint i = start; i < n; i++)
        if (peak[i] >= peak[h])
          h = i;
      v = h;
      for (guint i = h; i < n; i++)
        if (after[i] <= after[v])
          v = i;
      s = (Segment) { peak[h], after[v], start, v + 1, 0 };
      g_array_append_val (segs, s);
      start = v + 1;
    }
  return segs;
}

static gint
cmp_segment (gconstpointer a, gconstpointer b)
{
  const Segment *x = a, *y = b;
  gint64         dx = (gint64) (x->hill - x->valley), dy = (gint64) (y->hill - y->valley);

  if (dx != dy)
    return dx > dy ? -1 : 1;
  if (x->child != y->child)
    return x->child < y->child ? -1 : 1;
  return (x->first > y->first) - (x->first < y->first);
}

/* The merged order of children's subtrees then op (G_MAXUINT: none, the
 * forest's virtual root), with its profile cut into segments. */
static void
combine (const MpOrderProblem *pb, Subtree *kids, guint n_kids, guint op, Subtree *out)
{
  g_autoptr (GArray) all = g_array_new (FALSE, FALSE, sizeof (Segment));
  g_autofree guint64 *held = g_new0 (guint64, MAX (n_kids, 1));
  g_autofree guint64 *peak = NULL, *after = NULL;
  guint64             sum = 0, res = 0;
  guint               n = 0, n_steps = 0;

  for (guint k = 0; k < n_kids; k++)
    {
      for (guint s = 0; s < kids[k].segs->len; s++)
        {
          Segment seg = g_array_index (kids[k].segs, Segment, s);

          seg.child = k;
          g_array_append_val (all, seg);
        }
      n += kids[k].n_seq;
    }
  /* a child's segments are in strictly decreasing hill - valley already,
   * so the sort keeps each child's own order */
  if (all->len > 1)
    qsort (all->data, all->len, sizeof (Segment), cmp_segment);
  n_steps = all->len + (op != G_MAXUINT);
  peak = g_new (guint64, MAX (n_steps, 1));
  after = g_new (guint64, MAX (n_steps, 1));
  out->seq = g_new (guint, n + 1);
  out->n_seq = 0;
  /* coarse profile: one step per segment, then the op */
  for (guint i = 0; i < all->len; i++)
    {
      const Segment *s = &g_array_index (all, Segment, i);
      const Subtree *t = &kids[s->child];

      peak[i] = sum - held[s->child] + s->hill;
      sum = sum - held[s->child] + s->valley;
      held[s->child] = s->valley;
      after[i] = sum;
      memcpy (out->seq + out->n_seq, t->seq + s->first, sizeof (guint) * (s->last - s->first));
      out->n_seq += s->last - s->first;
    }
  if (op != G_MAXUINT)
    {
      guint64 fresh = 0, freed = 0;

      for (guint j = pb->rec_start[op]; j < pb->rec_start[op + 1]; j++)
        {
          guint r = pb->recs[j];

          if (pb->touch[pb->touch_start[r]] == op)
            fresh += pb->bytes[r];
          if (pb->touch[pb->touch_start[r + 1] - 1] == op && !(pb->flags[r] & MP_ORDER_REC_TO_END))
            freed += pb->bytes[r];
        }
      res = sum + fresh - freed;
      peak[all->len] = sum + fresh;
      after[all->len] = res;
      out->seq[out->n_seq++] = op;
    }
  /* the segments index the coarse steps; map them back to ops */
  out->segs = segment (peak, after, n_steps);
  {
    g_autofree guint *op_end = g_new (guint, n_steps + 1);
    guint             pos = 0;

    for (guint i = 0; i < all->len; i++)
      {
        const Segment *s = &g_array_index (all, Segment, i);

        pos += s->last - s->first;
        op_end[i] = pos;
      }
    if (op != G_MAXUINT)
      op_end[all->len] = pos + 1;
    for (guint i = 0; i < out->segs->len; i++)
      {
        Segment *s = &g_array_index (out->segs, Segment, i);

        s->first = s->first ? op_end[s->first - 1] : 0;
        s->last = op_end[s->last - 1];
      }
  }
}

gboolean
mp_order_tree (const MpOrderProblem *pb, guint *order, char **why)
{
  g_autofree Subtree *sub = NULL;
  g_autofree Subtree *tmp = NULL;
  guint               n_roots = 0;
  Subtree             top = { 0 };

  for (guint o = 0; o < pb->n_ops; o++)
    if (pb->succ_start[o + 1] - pb->succ_start[o] > 1)
      {
        *why = g_strdup_printf ("not a tree: op '%s' feeds %u ops (Liu's algorithm needs each "
                                "op to feed at most one)", pb->graph->ops[o].name,
                                pb->succ_start[o + 1] - pb->succ_start[o]);
        return FALSE;
      }
  for (guint r = 0; r < pb->n_recs; r++)
    if (pb->flags[r] & MP_ORDER_REC_FROM_START)
      {
        *why = g_strdup ("not a tree: planned inputs are live before any op runs");
        return FALSE;
      }
  /* children lists: the predecessors; the given order is topological, so
   * every child is done before its parent */
  sub = g_new0 (Subtree, MAX (pb->n_ops, 1));
  tmp = g_new0 (Subtree, MAX (pb->n_ops, 1));
  for (guint o = 0; o < pb->n_ops; o++)
    {
      guint nk = pb->pred_start[o + 1] - pb->pred_start[o];

      for (guint k = 0; k < nk; k++)
        tmp[k] = sub[pb->preds[pb->pred_start[o] + k]];
      combine (pb, tmp, nk, o, &sub[o]);
      for (guint k = 0; k < nk; k++)
        {
          subtree_clear (&tmp[k]);
          memset (&sub[pb->preds[pb->pred_start[o] + k]], 0, sizeof (Subtree));
        }
      if (pb->succ_start[o + 1] == pb->succ_start[o])
        n_roots++;
    }
  /* the roots of the forest, as children of a virtual root */
  n_roots = 0;
  for (guint o = 0; o < pb->n_ops; o++)
    if (pb->succ_start[o + 1] == pb->succ_start[o])
      {
        tmp[n_roots++] = sub[o];
        memset (&sub[o], 0, sizeof (Subtree));
      }
  combine (pb, tmp, n_roots, G_MAXUINT, &top);
  for (guint k = 0; k < n_roots; k++)
    subtree_clear (&tmp[k]);
  g_assert (top.n_seq == pb->n_ops);
  memcpy (order, top.seq, sizeof (guint) * pb->n_ops);
  subtree_clear (&top);
  return TRUE;
}
