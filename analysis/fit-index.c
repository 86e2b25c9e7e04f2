/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "memplan-analysis"

#include <string.h>

#include "fit-index.h"

/* Steps are cut into blocks, and a segment tree stands over the blocks.
 * A buffer covers some blocks whole and may touch one or two end blocks
 * partly:
 *
 * - here[v]: the buffers whose covered blocks decompose into v (the
 *   canonical nodes of the covered range);
 * - below[v]: every buffer stored at v or under it, whole or as a partial
 *   end: all that meets v's blocks from v down;
 * - part[B]: the buffers that touch block B partly, with their steps.
 *
 * What a query [first, last] meets is the union of below[] of the
 * canonical nodes of the blocks it covers, here[] of every node on the
 * paths from its two end blocks to the root (the ancestors of those
 * canonical nodes lie there, and whatever sits on the paths covers an end
 * block, which the query meets), and the partial buffers of its end blocks
 * whose steps meet it. Each set holds only buffers that meet the query.
 *
 * The lowest o where [o, o + w) is free in that union is the lowest o that
 * is free in every set. Each set is a treap of merged address spans whose
 * nodes also keep their subtree's widest inner gap, so a set answers "the
 * lowest o' >= o free for w in me" in O(log) without walking its narrow
 * gaps; the query asks the sets in turn, o taking each answer, until every
 * set agrees (a leapfrog join). Nodes live in one pool, linked by index. */

#define NIL       0u
#define NOT_FOUND G_MAXUINT64

typedef struct
{
  guint64 start; /* the span [start, end) */
  guint64 end;
  guint64 lo;    /* the subtree's first start and last end */
  guint64 hi;
  guint64 gap;   /* widest gap between neighbours inside the subtree, 0 if none */
  guint32 left;
  guint32 right;
  guint32 prio;
} Node;

/* A partial buffer: its steps and addresses. */
typedef struct
{
  guint   first;
  guint   last;
  guint64 start;
  guint64 end;
} Part;

typedef struct
{
  Part *items; /* in order of start */
  guint len;
  guint cap;
} PartList;

struct _MpFitIndex
{
  guint     n_steps;
  guint     block;
  guint     n_blocks;
  guint     n_leaves; /* power of two >= n_blocks */
  guint32  *here;     /* treap roots, 2 * n_leaves */
  guint32  *below;
  PartList *part;
  Node     *pool;     /* pool[0] is the nil node */
  guint32   pool_len;
  guint32   pool_cap;
  guint32   free_list; /* linked through left */
  guint32   seed;
  guint32  *sets;      /* a query's treaps */
  guint64   queries;
  guint64   set_changes;
  guint64   part_changes;
  guint64   rounds;
};

static inline void
pull (Node *p, guint32 t)
{
  Node   *n = &p[t];
  guint64 lo = n->start, hi = n->end, gap = 0;

  if (n->left != NIL)
    {
      const Node *l = &p[n->left];

      lo = l->lo;
      gap = MAX (l->gap, n->start - l->hi);
    }
  if (n->right != NIL)
    {
      const Node *r = &p[n->right];

      hi = r->hi;
      gap = MAX (gap, MAX (r->gap, r->lo - n->end));
    }
  n->lo = lo;
  n->hi = hi;
  n->gap = gap;
}

/* l: the spans that end before a; r: the rest. */
static void
split_end (Node *p, guint32 t, guint64 a, guint32 *l, guint32 *r)
{
  if (t == NIL)
    {
      *l = *r = NIL;
      return;
    }
  if (p[t].end < a)
    {
      split_end (p, p[t].right, a, &p[t].right, r);
      *l = t;
    }
  else
    {
      split_end (p, p[t].left, a, l, &p[t].left);
      *r = t;
    }
  pull (p, t);
}

/* l: the spans that start at or before b; r: the rest. */
static void
split_start (Node *p, guint32 t, guint64 b, guint32 *l, guint32 *r)
{
  if (t == NIL)
    {
      *l = *r = NIL;
      return;
    }
  if (p[t].start <= b)
    {
      split_start (p, p[t].right, b, &p[t].right, r);
      *l = t;
    }
  else
    {
      split_start (p, p[t].left, b, l, &p[t].left);
      *r = t;
    }
  pull (p, t);
}

/* Every span of a lies below every span of b. */
static guint32
merge (Node *p, guint32 a, guint32 b)
{
  if (a == NIL)
    return b;
  if (b == NIL)
    return a;
  if (p[a].prio > p[b].prio)
    {
      p[a].right = merge (p, p[a].right, b);
      pull (p, a);
      return a;
    }
  p[b].left = merge (p, a, p[b].left);
  pull (p, b);
  return b;
}

static void
release (MpFitIndex *index, guint32 t)
{
  Node *p = index->pool;

  if (t == NIL)
    return;
  release (index, p[t].right);
  release (index, p[t].left);
  p[t].left = index->free_list;
  index->free_list = t;
}

static guint32
node_new (MpFitIndex *index)
{
  guint32 t;

  if (index->free_list != NIL)
    {
      t = index->free_list;
      index->free_list = index->pool[t].left;
    }
  else
    {
      if (index->pool_len == index->pool_cap)
        {
          g_assert (index->pool_cap < G_MAXUINT32 / 2);
          index->pool_cap *= 2;
          index->pool = g_renew (Node, index->pool, index->pool_cap);
        }
      t = index->pool_len++;
    }
  /* xorshift: priorities need only be independent of the keys */
  index->seed ^= index->seed << 13;
  index->seed ^= index->seed >> 17;
  index->seed ^= index->seed << 5;
  index->pool[t].prio = index->seed;
  index->pool[t].left = index->pool[t].right = NIL;
  return t;
}

/* Adds [a, b) to the set at *root, merged with every span it touches. */
static void
set_add (MpFitIndex *index, guint32 *root, guint64 a, guint64 b)
{
  guint32 x = node_new (index), l, mid, m, r;
  Node   *p = index->pool; /* after node_new: the pool may have moved */

  split_end (p, *root, a, &l, &mid);
  split_start (p, mid, b, &m, &r);
  if (m != NIL)
    {
      a = MIN (a, p[m].lo);
      b = MAX (b, p[m].hi);
      release (index, m);
    }
  p[x].start = a;
  p[x].end = b;
  pull (p, x);
  *root = merge (p, merge (p, l, x), r);
}

/* Spans of t in order, those that start after key only: the first whose
 * distance from the span before it is at least w gives that span's end.
 * *prev holds the end of the span before the first one looked at. */
static guint64
find_full (const Node *p, guint32 t, guint64 w, guint64 *prev)
{
  while (t != NIL)
    {
      const Node *n = &p[t];

      if (n->lo - *prev < w && n->gap < w)
        {
          *prev = n->hi;
          return NOT_FOUND;
        }
      if (n->left != NIL)
        {
          const Node *l = &p[n->left];

          if (l->lo - *prev >= w || l->gap >= w)
            {
              t = n->left;
              continue;
            }
          *prev = l->hi;
        }
      if (n->start - *prev >= w)
        return *prev;
      *prev = n->end;
      t = n->right;
    }
  return NOT_FOUND;
}

static guint64
find_after (const Node *p, guint32 t, guint64 key, guint64 w, guint64 *prev)
{
  while (t != NIL && p[t].start <= key)
    t = p[t].right;
  if (t == NIL)
    return NOT_FOUND;
  {
    const Node *n = &p[t];
    guint64     got = find_after (p, n->left, key, w, prev);

    if (got != NOT_FOUND)
      return got;
    if (n->start - *prev >= w)
      return *prev;
    *prev = n->end;
    return find_full (p, n->right, w, prev);
  }
}

/* The lowest x >= o with [x, x + w) free in the set root (w > 0). */
static guint64
set_next_fit (const Node *p, guint32 root, guint64 o, guint64 w)
{
  guint32 pred = NIL, succ = NIL, t = root;
  guint64 x = o, prev, got;

  while (t != NIL)
    {
      if (p[t].start <= o)
        {
          pred = t;
          t = p[t].right;
        }
      else
        {
          succ = t;
          t = p[t].left;
        }
    }
  if (pred != NIL && p[pred].end > o)
    x = p[pred].end;
  if (succ == NIL || p[succ].start - x >= w)
    return x;
  /* the gap below succ is too small: the first wide enough above it */
  prev = p[succ].end;
  got = find_after (p, root, p[succ].start, w, &prev);
  return got != NOT_FOUND ? got : prev;
}

static void
part_add (PartList *list, guint first, guint last, guint64 start, guint64 end)
{
  guint lo = 0, hi = list->len;

  if (list->len == list->cap)
    {
      list->cap = list->cap ? 2 * list->cap : 8;
      list->items = g_renew (Part, list->items, list->cap);
    }
  /* kept in order of start, so a query walks it once upwards */
  while (lo < hi)
    {
      guint mid = lo + (hi - lo) / 2;
      if (list->items[mid].start <= start)
        lo = mid + 1;
      else
        hi = mid;
    }
  memmove (&list->items[lo + 1], &list->items[lo], (list->len - lo) * sizeof (Part));
  list->items[lo] = (Part) { first, last, start, end };
  list->len++;
}

/* A query's view of one block's partial buffers: a cursor that only moves
 * up, as the query's offset does. */
typedef struct
{
  const Part *at;
  const Part *end;
} PartCursor;

/* The lowest x >= o with [x, x + w) free of the cursor's buffers that meet
 * steps [first, last]. A buffer passed over ends at or below x, so no
 * later x can meet it. */
static guint64
part_next_fit (PartCursor *c, guint first, guint last, guint64 x, guint64 w)
{
  for (; c->at != c->end; c->at++)
    {
      const Part *b = c->at;

      if (b->end <= x || b->last < first || last < b->first)
        continue;
      if (b->start > x && b->start - x >= w)
        return x; /* every later buffer starts even higher */
      x = b->end;
    }
  return x;
}

MpFitIndex *
mp_fit_index_new_with_block (guint n_steps, guint block)
{
  MpFitIndex *index = g_new0 (MpFitIndex, 1);
  guint       levels = 1;

  index->n_steps = MAX (n_steps, 1);
  index->block = MAX (block, 1);
  index->n_blocks = (index->n_steps + index->block - 1) / index->block;
  index->n_leaves = 1;
  while (index->n_leaves < index->n_blocks)
    {
      index->n_leaves *= 2;
      levels++;
    }
  index->here = g_new0 (guint32, 2 * (gsize) index->n_leaves);
  index->below = g_new0 (guint32, 2 * (gsize) index->n_leaves);
  index->part = g_new0 (PartList, index->n_blocks);
  index->pool_cap = 1024;
  index->pool_len = 1; /* nil */
  index->pool = g_new0 (Node, index->pool_cap);
  index->seed = 2463534242u;
  /* two canonical nodes and two path nodes a level at most */
  index->sets = g_new (guint32, 4 * (gsize) levels);
  return index;
}

MpFitIndex *
mp_fit_index_new (guint n_steps, gdouble mean_life)
{
  guint block = 1;

  /* A query scans its end blocks' partial buffers, about 2 x block x
   * (buffers per step) of them, and asks about 4 sets a tree level:
   * blocks near the square root of the mean lifetime balance the two, with
   * at least 16 blocks. */
  while (block < 4096 && (gdouble) (2 * block) * (2 * block) <= mean_life &&
         (guint64) 2 * block * 16 <= n_steps)
    block *= 2;
  return mp_fit_index_new_with_block (n_steps, block);
}

void
mp_fit_index_free (MpFitIndex *index)
{
  if (index == NULL)
    return;
  for (guint b = 0; b < index->n_blocks; b++)
    g_free (index->part[b].items);
  g_free (index->part);
  g_free (index->here);
  g_free (index->below);
  g_free (index->pool);
  g_free (index->sets);
  g_free (index);
}

/* Blocks [*p, *q1) lie wholly inside [first, last]; *bf and *bl are the
 * blocks of the two ends. */
static inline void
block_range (const MpFitIndex *index, guint first, guint last, guint *bf, guint *bl, guint *p,
             guint *q1)
{
  guint end_of_bl;

  *bf = first / index->block;
  *bl = last / index->block;
  end_of_bl = (guint) MIN ((guint64) *bl * index->block + index->block, index->n_steps) - 1;
  *p = first == *bf * index->block ? *bf : *bf + 1;
  *q1 = last == end_of_bl ? *bl + 1 : *bl;
}

void
mp_fit_index_insert (MpFitIndex *index, guint first, guint last, guint64 offset, guint64 size)
{
  guint   bf, bl, p, q1, a, b;
  guint64 end = offset + size;

  g_assert (first <= last && last < index->n_steps);
  /* an empty buffer still splits a gap for TFLM, as the empty span
   * [offset, offset) does here */
  block_range (index, first, last, &bf, &bl, &p, &q1);
  if (p < q1)
    {
      guint l, r;

      for (l = p + index->n_leaves, r = q1 + index->n_leaves; l < r; l >>= 1, r >>= 1)
        {
          if (l & 1)
            {
              set_add (index, &index->here[l], offset, end);
              set_add (index, &index->below[l], offset, end);
              l++;
            }
          if (r & 1)
            {
              r--;
              set_add (index, &index->here[r], offset, end);
              set_add (index, &index->below[r], offset, end);
            }
        }
    }
  if (!(p <= bf && bf < q1))
    part_add (&index->part[bf], first, last, offset, end);
  if (bl != bf && !(p <= bl && bl < q1))
    part_add (&index->part[bl], first, last, offset, end);
  /* every ancestor of a canonical node, and every node holding a partial
   * end, lies on the path from the leaf of bf or of bl to the root; the
   * canonical nodes themselves are done above */
  for (a = (bf + index->n_leaves) >> 1, b = (bl + index->n_leaves) >> 1; a >= 1;
       a >>= 1, b >>= 1)
    {
      set_add (index, &index->below[a], offset, end);
      if (b != a)
        set_add (index, &index->below[b], offset, end);
    }
  /* the leaves of the end blocks, when the buffer touches them partly */
  if (!(p <= bf && bf < q1))
    set_add (index, &index->below[bf + index->n_leaves], offset, end);
  if (bl != bf && !(p <= bl && bl < q1))
    set_add (index, &index->below[bl + index->n_leaves], offset, end);
}

guint64
mp_fit_index_first_fit (MpFitIndex *index, guint first, guint last, guint64 size)
{
  const Node *pool = index->pool;
  guint32    *sets = index->sets;
  guint       bf, bl, p, q1, k = 0, n_cursors = 0, agree = 0, i = 0, total;
  PartCursor  cursors[2];
  guint64     o = 0;

  g_assert (first <= last && last < index->n_steps);
  index->queries++;
  if (size == 0)
    return 0; /* it fits below anything */
  block_range (index, first, last, &bf, &bl, &p, &q1);
  if (p < q1)
    {
      guint l, r;

      for (l = p + index->n_leaves, r = q1 + index->n_leaves; l < r; l >>= 1, r >>= 1)
        {
          if ((l & 1) && index->below[l] != NIL)
            sets[k++] = index->below[l];
          l += l & 1;
          if ((r & 1) && index->below[r - 1] != NIL)
            sets[k++] = index->below[r - 1];
          r -= r & 1;
        }
    }
  for (guint a = bf + index->n_leaves, b = bl + index->n_leaves; a >= 1; a >>= 1, b >>= 1)
    {
      if (index->here[a] != NIL)
        sets[k++] = index->here[a];
      if (b != a && index->here[b] != NIL)
        sets[k++] = index->here[b];
    }
  if (!(p <= bf && bf < q1) && index->part[bf].len)
    cursors[n_cursors++] = (PartCursor) { index->part[bf].items,
                                          index->part[bf].items + index->part[bf].len };
  if (bl != bf && !(p <= bl && bl < q1) && index->part[bl].len)
    cursors[n_cursors++] = (PartCursor) { index->part[bl].items,
                                          index->part[bl].items + index->part[bl].len };

  /* leapfrog: o only rises, to an offset some set finds free; done when
   * every set in a row finds o itself free */
  total = k + n_cursors;
  while (agree < total)
    {
      guint64 x;

      x = i < k ? set_next_fit (pool, sets[i], o, size)
                : part_next_fit (&cursors[i - k], first, last, o, size);

      index->rounds++;
      if (x != o)
        {
          guint kept = 0;

          if (i < k)
            index->set_changes++;
          else
            index->part_changes++;
          o = x;
          /* a set whose top is at or below o is free at every later o */
          for (guint j = 0; j < k; j++)
            if (pool[sets[j]].hi > o)
              sets[kept++] = sets[j];
          k = kept;
          total = k + n_cursors;
          agree = 0;
          i = 0;
          continue;
        }
      else
        agree++;
      i = i + 1 == total ? 0 : i + 1;
    }
  return o;
}

void
mp_fit_index_stats (const MpFitIndex *index, guint64 *queries, guint64 *rounds)
{
  *queries = index->queries;
  *rounds = index->rounds;
  if (g_getenv ("MP_FIT_STATS"))
    g_message ("changes by sets %.1f, by partial buffers %.1f a query",
               (double) index->set_changes / MAX (index->queries, 1),
               (double) index->part_changes / MAX (index->queries, 1));
}
