/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "memplan-analysis"

#include <stdlib.h>
#include <string.h>

#include "time-index.h"
#include "time-windows.h"

/* Steps are cut into blocks of `block` steps. A buffer either covers whole
 * blocks (the middle of a long lifetime) or touches a block partly (its
 * ends, or a short lifetime inside one block).
 *
 * - cover[B]: merged addresses of the buffers that cover block B entirely.
 *   Kept materialised because short queries, the vast majority, need
 *   exactly this: a short lifetime sees cover[B] plus the few partial
 *   buffers of its block whose steps really meet its own.
 * - part[B]: the buffers that touch block B partly, with their steps, in
 *   address order.
 * - sub: a segment tree over blocks for long queries: sub[v] is the union of
 *   every buffer that touches a step of v's blocks and is stored at or below
 *   v (at the canonical nodes of its covered blocks, or as a partial end).
 *   A long query takes sub[] of the canonical nodes of the blocks it covers
 *   plus cover[] of its end blocks, which holds whatever covers those blocks
 *   from above. Over wide ranges these unions are nearly solid.
 * - windows: when most lifetimes are long, a sparse table of unions takes
 *   sub's place (time-windows.c): fewer sets for a long query to merge.
 *
 * Every list handed to the merge contains only buffers that overlap the
 * query, so the result is exact. */

/* CHUNK spans of a cover: where the first starts, so a search reads the
 * summaries and one chunk rather than cold spans all the way; the widest
 * gap (gap i lies before span i), so first fit skips chunks too narrow for
 * it; and the octaves of the gaps, so best fit reads only the chunks that
 * can hold the least gap that fits. */
#define CHUNK 16
typedef struct
{
  guint64 start;
  guint64 widest;
  guint64 octaves; /* bit o: a gap of 2^o to 2^(o+1) - 1 bytes */
} Chunk;

/* A merged set, plus spans added since it was last read: most sets take
 * far more adds than reads (a node of the tree over blocks takes every
 * buffer below it; a long query reads it), and a batch merged in one
 * streaming pass costs less than a binary search with cache misses each. */
typedef struct
{
  MpSpan  *spans;
  guint    len;
  guint    cap;
  MpSpan  *pend;
  guint    n_pend;
  guint    cap_pend;
  /* block covers: a summary of each CHUNK spans, chunks below n_valid up
   * to date, written when a short query reads the set */
  Chunk   *chunks;
  guint    n_valid;
  guint    cap_chunks;
} SpanSet;

typedef struct
{
  guint first;
  guint last;
} Steps;

/* Steps and addresses apart: a query's filter reads only the steps, 8 bytes
 * a buffer, and most of its block's partial buffers fail it. */
typedef struct
{
  Steps  *when;
  MpSpan *where;
  guint   len;
  guint   cap;
} PartList;

typedef struct
{
  const MpSpan  *at;
  const MpSpan  *end;
  const MpSpan  *base;   /* the list's first span */
  const guint64 *widest; /* a window's chunk summaries, or NULL */
} Cursor;

/* A buffer whose lifetime lies inside one block, in the list of its first
 * step: a short query reads the few steps that can reach it, not its
 * block's whole partial list. Each step holds its first inline, so the
 * steps a query reads lie side by side (one buffer a step is common). */
typedef struct
{
  guint64 start;
  guint64 end;
  guint   last; /* G_MAXUINT: an empty step */
  guint   next; /* the next of the same first step in inner[], or G_MAXUINT */
} Inner;

struct _MpTimeIndex
{
  guint     n_steps;
  guint     block;
  guint     n_blocks;
  guint     n_leaves; /* power of two >= n_blocks */
  SpanSet  *sub;
  SpanSet  *cover;
  PartList *part;
  Inner    *step;      /* per step: its first inner buffer */
  guint    *inner_len; /* per block: the longest inner lifetime, last - first */
  Inner    *inner;     /* the others */
  guint     n_inner;
  guint     cap_inner;
  GArray   *hits;    /* MpSpan: partial buffers that meet the query */
  GArray   *scratch; /* MpSpan */
  GArray   *cursors; /* Cursor */
  MpSpan   *merged;  /* span_set_flush's output */
  guint     cap_merged;
  MpTimeWindows *windows; /* replaces sub when set */
};

/* Inserts [start, end) into a sorted, disjoint, non-touching set. */
static void
span_set_add (SpanSet *set, guint64 start, guint64 end)
{
  guint lo = 0, hi = set->len, j;

  /* first span whose end >= start: it touches or follows the new one */
  while (lo < hi)
    {
      guint mid = lo + (hi - lo) / 2;
      if (set->spans[mid].end < start)
        lo = mid + 1;
      else
        hi = mid;
    }
  j = lo;
  set->n_valid = MIN (set->n_valid, lo / CHUNK);
  while (j < set->len && set->spans[j].start <= end)
    {
      start = MIN (start, set->spans[j].start);
      end = MAX (end, set->spans[j].end);
      j++;
    }
  if (j == lo)
    {
      if (set->len == set->cap)
        {
          set->cap = set->cap ? 2 * set->cap : 4;
          set->spans = g_renew (MpSpan, set->spans, set->cap);
        }
      memmove (&set->spans[lo + 1], &set->spans[lo], (set->len - lo) * sizeof (MpSpan));
      set->len++;
    }
  else if (j > lo + 1)
    {
      memmove (&set->spans[lo + 1], &set->spans[j], (set->len - j) * sizeof (MpSpan));
      set->len -= j - lo - 1;
    }
  set->spans[lo].start = start;
  set->spans[lo].end = end;
}

static inline void
sort_by_start (MpSpan *a, guint n)
{
  /* a handful at a time in the common case */
  for (guint i = 1; i < n; i++)
    {
      MpSpan x = a[i];
      guint  j = i;

      for (; j > 0 && a[j - 1].start > x.start; j--)
        a[j] = a[j - 1];
      a[j] = x;
    }
}

/* By start, without qsort's call per compare (8 % of the samples at 1M
 * random): runs of 16 by insertion, then merges through tmp. */
static void
sort_spans (MpSpan *a, guint n, GArray *tmp)
{
  MpSpan *src = a, *dst;

  g_array_set_size (tmp, n);
  dst = (MpSpan *) tmp->data;
  for (guint i = 0; i < n; i += 16)
    sort_by_start (a + i, MIN (16, n - i));
  for (guint w = 16; w < n; w *= 2)
    {
      MpSpan *swap;

      for (guint lo = 0; lo < n; lo += 2 * w)
        {
          guint mid = MIN (lo + w, n), hi = MIN (lo + 2 * w, n), i = lo, j = mid, k = lo;

          while (i < mid && j < hi)
            dst[k++] = src[j].start < src[i].start ? src[j++] : src[i++];
          while (i < mid)
            dst[k++] = src[i++];
          while (j < hi)
            dst[k++] = src[j++];
        }
      swap = src;
      src = dst;
      dst = swap;
    }
  if (src != a)
    memcpy (a, src, n * sizeof (MpSpan));
}

/* n spans from src + from; either array may be NULL when n is 0, and
 * memcpy from NULL, or NULL + 0, is undefined in C */
static inline void
copy_spans (MpSpan *dst, const MpSpan *src, guint from, guint n)
{
  if (n > 0)
    memcpy (dst, src + from, n * sizeof (MpSpan));
}

/* Merges the waiting spans into the set: a few one by one, more in one
 * pass over the spans above the lowest of them. */
#define FLUSH_ONE_BY_ONE 2
static void
span_set_flush (MpTimeIndex *index, SpanSet *set)
{
  MpSpan *out, *t, *p = set->pend;
  guint   n, i = 0, nt, np = set->n_pend, lo = 0, hi = set->len;

  if (np == 0)
    return;
  set->n_pend = 0;
  if (np <= FLUSH_ONE_BY_ONE)
    {
      for (guint k = 0; k < np; k++)
        span_set_add (set, p[k].start, p[k].end);
      return;
    }
  sort_spans (p, np, index->scratch);
  /* spans wholly below the lowest waiting one, not touching it, stay put;
   * the rest (t) is merged back with the waiting ones */
  while (lo < hi)
    {
      guint mid = lo + (hi - lo) / 2;
      if (set->spans[mid].end < p[0].start)
        lo = mid + 1;
      else
        hi = mid;
    }
  set->n_valid = MIN (set->n_valid, lo / CHUNK);
  nt = set->len - lo;
  if (index->cap_merged < nt)
    {
      index->cap_merged = MAX (nt, 2 * index->cap_merged);
      index->merged = g_renew (MpSpan, index->merged, index->cap_merged);
    }
  t = index->merged;
  copy_spans (t, set->spans, lo, nt);
  if (set->cap < set->len + np)
    {
      set->cap = MAX (set->len + np, 2 * set->cap);
      set->spans = g_renew (MpSpan, set->spans, set->cap);
    }
  out = set->spans;
  n = lo;
  for (guint j = 0; j < np; j++)
    {
      /* spans of t wholly below this one, not touching it, move as a block */
      lo = i;
      hi = nt;
      while (lo < hi)
        {
          guint mid = lo + (hi - lo) / 2;
          if (t[mid].end < p[j].start)
            lo = mid + 1;
          else
            hi = mid;
        }
      copy_spans (&out[n], t, i, lo - i);
      n += lo - i;
      i = lo;
      /* touching spans join, as span_set_add joins them */
      if (n > 0 && p[j].start <= out[n - 1].end)
        out[n - 1].end = MAX (out[n - 1].end, p[j].end);
      else
        out[n++] = p[j];
      while (i < nt && t[i].start <= out[n - 1].end)
        {
          out[n - 1].start = MIN (out[n - 1].start, t[i].start);
          out[n - 1].end = MAX (out[n - 1].end, t[i].end);
          i++;
        }
    }
  copy_spans (&out[n], t, i, nt - i);
  set->len = n + nt - i;
}

/* A set waits until a query reads it, or until as many spans wait as it
 * holds, which bounds the memory to twice the union's. */
#define PEND_LIMIT(set) MAX (32, (set).len)

/* Adds [start, end) when the set is next read, or once limit spans wait. */
static inline void
span_set_push (MpTimeIndex *index, SpanSet *set, guint64 start, guint64 end, guint limit)
{
  if (set->n_pend == set->cap_pend)
    {
      if (set->n_pend >= limit)
        span_set_flush (index, set);
      else
        {
          set->cap_pend = set->cap_pend ? 2 * set->cap_pend : 8;
          set->pend = g_renew (MpSpan, set->pend, set->cap_pend);
        }
    }
  set->pend[set->n_pend++] = (MpSpan) { start, end };
}

static void
part_add (PartList *list, guint first, guint last, guint64 start, guint64 end)
{
  if (list->len == list->cap)
    {
      list->cap = list->cap ? 2 * list->cap : 8;
      list->when = g_renew (Steps, list->when, list->cap);
      list->where = g_renew (MpSpan, list->where, list->cap);
    }
  /* kept in address order, so a query's hits come out sorted */
  {
    guint lo = 0, hi = list->len;

    while (lo < hi)
      {
        guint mid = lo + (hi - lo) / 2;
        if (list->where[mid].start <= start)
          lo = mid + 1;
        else
          hi = mid;
      }
    memmove (&list->when[lo + 1], &list->when[lo], (list->len - lo) * sizeof (Steps));
    memmove (&list->where[lo + 1], &list->where[lo], (list->len - lo) * sizeof (MpSpan));
    list->when[lo] = (Steps) { first, last };
    list->where[lo] = (MpSpan) { start, end };
    list->len++;
  }
}

static void
inner_add (MpTimeIndex *index, guint b, guint first, guint last, guint64 start, guint64 end)
{
  Inner *head = &index->step[first];

  index->inner_len[b] = MAX (index->inner_len[b], last - first);
  if (head->last == G_MAXUINT)
    {
      *head = (Inner) { start, end, last, G_MAXUINT };
      return;
    }
  if (index->n_inner == index->cap_inner)
    {
      index->cap_inner = index->cap_inner ? 2 * index->cap_inner : 64;
      index->inner = g_renew (Inner, index->inner, index->cap_inner);
    }
  index->inner[index->n_inner] = (Inner) { start, end, last, head->next };
  head->next = index->n_inner++;
}

MpTimeIndex *
mp_time_index_new_full (guint n_steps, guint block, gboolean windows)
{
  MpTimeIndex *index = g_new0 (MpTimeIndex, 1);

  index->n_steps = MAX (n_steps, 1);
  index->block = MAX (block, 1);
  index->n_blocks = (index->n_steps + index->block - 1) / index->block;
  index->n_leaves = 1;
  while (index->n_leaves < index->n_blocks)
    index->n_leaves *= 2;
  index->sub = g_new0 (SpanSet, 2 * (gsize) index->n_leaves);
  index->cover = g_new0 (SpanSet, index->n_blocks);
  index->part = g_new0 (PartList, index->n_blocks);
  index->step = g_new (Inner, index->n_steps);
  for (guint t = 0; t < index->n_steps; t++)
    index->step[t] = (Inner) { 0, 0, G_MAXUINT, G_MAXUINT };
  index->inner_len = g_new0 (guint, index->n_blocks);
  index->hits = g_array_new (FALSE, FALSE, sizeof (MpSpan));
  index->scratch = g_array_new (FALSE, FALSE, sizeof (MpSpan));
  index->cursors = g_array_new (FALSE, FALSE, sizeof (Cursor));
  if (windows)
    index->windows = mp_time_windows_new (index->n_steps, index->block);
  return index;
}

MpTimeIndex *
mp_time_index_new_with_block (guint n_steps, guint block)
{
  return mp_time_index_new_full (n_steps, block, FALSE);
}

#define MAX_WINDOWED_STEPS (1u << 18)

MpTimeIndex *
mp_time_index_new (guint n_steps, gdouble mean_life)
{
  return mp_time_index_new_for_lives (n_steps, mean_life, 0);
}

MpTimeIndex *
mp_time_index_new_for_lives (guint n_steps, gdouble mean_life, gdouble open_share)
{
  guint block = 1;

  /* Each block a buffer covers whole takes it into its cover set, and a
   * short lifetime scans its block's partial buffers: blocks of about
   * sqrt(64 x the mean lifetime) steps balance the two (measured best on
   * the random shape, mean ~1,500 steps: 256; long-lived, mean ~n/3: 512 to
   * 1,024; staircase, mean ~n/2: 1,024), with at least 16 blocks. */
  while (block < 4096 && (gdouble) (2 * block) * (2 * block) <= 64 * mean_life &&
         (guint64) 2 * block * 16 <= n_steps)
    block *= 2;
  /* Long lifetimes (mean over a quarter of the run): most queries are long
   * and merge fewer sets from windows; on the random shape most are short
   * and a window set per level and block would only cost inserts. Up to
   * 2^18 steps: the windows' memory grows faster than the tree's (long
   * 100k: 252 MiB peak against 84; 200k: 395 MiB). Not where most
   * lifetimes run to the first or last step (a staircase): their unions
   * are solid, the tree's merge is cheap, and the windows' inserts are
   * not (100k staircase: 0.38 s with the tree, 1.1 s with windows). */
  return mp_time_index_new_full (n_steps, block,
                                 4 * mean_life >= n_steps && n_steps <= MAX_WINDOWED_STEPS &&
                                   open_share < 0.75);
}

void
mp_time_index_free (MpTimeIndex *index)
{
  if (index == NULL)
    return;
  for (gsize i = 0; i < 2 * (gsize) index->n_leaves; i++)
    {
      g_free (index->sub[i].spans);
      g_free (index->sub[i].pend);
      g_free (index->sub[i].chunks);
    }
  for (guint b = 0; b < index->n_blocks; b++)
    {
      g_free (index->cover[b].spans);
      g_free (index->cover[b].pend);
      g_free (index->cover[b].chunks);
      g_free (index->part[b].when);
      g_free (index->part[b].where);
    }
  g_free (index->sub);
  g_free (index->cover);
  g_free (index->part);
  g_free (index->step);
  g_free (index->inner_len);
  g_free (index->inner);
  g_array_unref (index->hits);
  g_array_unref (index->scratch);
  g_array_unref (index->cursors);
  g_free (index->merged);
  mp_time_windows_free (index->windows);
  g_free (index);
}

static inline guint
block_first (const MpTimeIndex *index, guint b)
{
  return b * index->block;
}

static inline guint
block_last (const MpTimeIndex *index, guint b)
{
  return MIN ((guint64) b * index->block + index->block, index->n_steps) - 1;
}

/* Blocks [*p, *q1) lie wholly inside [first, last]; *bf and *bl are the
 * blocks of the two ends. */
static inline void
block_range (const MpTimeIndex *index, guint first, guint last, guint *bf, guint *bl, guint *p,
             guint *q1)
{
  *bf = first / index->block;
  *bl = last / index->block;
  *p = first == block_first (index, *bf) ? *bf : *bf + 1;
  *q1 = last == block_last (index, *bl) ? *bl + 1 : *bl;
}

void
mp_time_index_insert (MpTimeIndex *index, guint first, guint last, guint64 offset, guint64 size)
{
  guint   bf, bl, p, q1, a, b;
  guint64 end = offset + size;

  g_assert (first <= last && last < index->n_steps);
  block_range (index, first, last, &bf, &bl, &p, &q1);

  if (p < q1)
    {
      guint l, r;

      for (l = p + index->n_leaves, r = q1 + index->n_leaves; !index->windows && l < r;
           l >>= 1, r >>= 1)
        {
          if (l & 1)
            {
              span_set_push (index, &index->sub[l], offset, end, PEND_LIMIT (index->sub[l]));
              l++;
            }
          if (r & 1)
            {
              r--;
              span_set_push (index, &index->sub[r], offset, end, PEND_LIMIT (index->sub[r]));
            }
        }
      for (guint k = p; k < q1; k++)
        span_set_push (index, &index->cover[k], offset, end, PEND_LIMIT (index->cover[k]));
    }
  if (bf == bl && !(p <= bf && bf < q1))
    inner_add (index, bf, first, last, offset, end);
  else
    {
      if (!(p <= bf && bf < q1))
        part_add (&index->part[bf], first, last, offset, end);
      if (bl != bf && !(p <= bl && bl < q1))
        part_add (&index->part[bl], first, last, offset, end);
    }

  if (index->windows)
    {
      mp_time_windows_insert (index->windows, first, last, offset, end);
      return;
    }
  /* Every ancestor of a canonical node, and every node holding a partial
   * end, lies on the path from the leaf of bf or of bl to the root. */
  for (a = bf + index->n_leaves, b = bl + index->n_leaves; a >= 1; a >>= 1, b >>= 1)
    {
      span_set_push (index, &index->sub[a], offset, end, PEND_LIMIT (index->sub[a]));
      if (b != a)
        span_set_push (index, &index->sub[b], offset, end, PEND_LIMIT (index->sub[b]));
    }
}

/* Prefetches for a short query placed a few records later, in two stages
 * (the headers first, then what they point at), so the cold reads of a
 * block in random order overlap the work of the queries before it. */
void
mp_time_index_prefetch (MpTimeIndex *index, guint first, guint last, gboolean headers)
{
  guint          b = first / index->block;
  const SpanSet *cover = &index->cover[b];
  const PartList *part = &index->part[b];

  if (last / index->block != b)
    return;
  if (headers)
    {
      __builtin_prefetch (cover);
      __builtin_prefetch (part);
      __builtin_prefetch (&index->inner_len[b]);
      return;
    }
  for (guint t = MAX (b * index->block, first - MIN (first, index->inner_len[b])); t <= last; t++)
    __builtin_prefetch (&index->step[t]);
  for (guint c = 0; c < cover->n_valid; c += 64 / sizeof (Chunk))
    __builtin_prefetch (&cover->chunks[c]);
  for (guint i = 0; i < cover->len; i += 64 / sizeof (MpSpan))
    __builtin_prefetch (&cover->spans[i]);
  if (cover->len > 0)
    __builtin_prefetch (&cover->spans[cover->len - 1]);
  for (guint i = 0; i < part->len; i += 64 / sizeof (Steps))
    __builtin_prefetch (&part->when[i]);
  for (guint i = 0; i < part->len; i += 64 / sizeof (MpSpan))
    __builtin_prefetch (&part->where[i]);
  for (guint i = 0; i < cover->n_pend; i += 64 / sizeof (MpSpan))
    __builtin_prefetch (&cover->pend[i]);
}

static inline void
add_summarized (GArray *cursors, const MpSpan *spans, guint len, const guint64 *widest)
{
  Cursor c;

  /* an empty set may have no array at all: NULL + 0 is undefined in C */
  if (len == 0)
    return;
  c = (Cursor) { spans, spans + len, spans, widest };
  g_array_append_val (cursors, c);
}

static inline void
add_cursor (GArray *cursors, const MpSpan *spans, guint len)
{
  add_summarized (cursors, spans, len, NULL);
}

static void
add_set (MpTimeIndex *index, SpanSet *set)
{
  span_set_flush (index, set);
  add_cursor (index->cursors, set->spans, set->len);
}

/* Spans [from, mid) and [mid, len) of a, each sorted by start, merged. */
static void
merge_runs (GArray *a, guint from, guint mid, GArray *scratch)
{
  MpSpan *h = (MpSpan *) a->data;
  guint   i = from, j = mid, n = 0;

  if (from == mid || mid == a->len)
    return;
  g_array_set_size (scratch, a->len - from);
  while (i < mid || j < a->len)
    {
      if (j == a->len || (i < mid && h[i].start <= h[j].start))
        g_array_index (scratch, MpSpan, n++) = h[i++];
      else
        g_array_index (scratch, MpSpan, n++) = h[j++];
    }
  memcpy (h + from, scratch->data, n * sizeof (MpSpan));
}

/* The inner buffers of block b (not in its partial list) whose steps meet
 * [first, last], appended to hits in address order: from the lists of the
 * steps that can reach the query. */
static void
collect_inner (MpTimeIndex *index, guint b, guint first, guint last, GArray *hits)
{
  guint n0 = hits->len;
  guint from = MAX (block_first (index, b), first - MIN (first, index->inner_len[b]));
  guint to = MIN (last, block_last (index, b));

  for (guint t = from; t <= to; t++)
    {
      const Inner *x = &index->step[t];

      /* an empty step's last is G_MAXUINT, and its next too */
      for (guint i = x->next;; x = &index->inner[i], i = x->next)
        {
          if (x->last >= first && x->last != G_MAXUINT)
            {
              MpSpan span = { x->start, x->end };

              g_array_append_val (hits, span);
            }
          if (i == G_MAXUINT)
            break;
        }
    }
  /* none found: an array never grown has no data, and NULL + 0 is
   * undefined in C */
  if (hits->len > n0)
    sort_spans ((MpSpan *) hits->data + n0, hits->len - n0, index->scratch);
}

/* Buffers touching block b partly whose steps meet [first, last], appended
 * to hits in address order: the partial list's ends in place, sized for
 * all of them first, then cut to those that meet; then the inner ones. */
static void
collect_hits (MpTimeIndex *index, guint b, guint first, guint last, GArray *hits)
{
  const PartList *list = &index->part[b];
  guint           n0 = hits->len, n = n0, n_ends;
  MpSpan         *out;

  g_array_set_size (hits, n + list->len);
  out = (MpSpan *) hits->data;
  /* branch-free: most fail, unpredictably */
  for (guint i = 0; i < list->len; i++)
    {
      out[n] = list->where[i];
      n += list->when[i].first <= last && first <= list->when[i].last;
    }
  g_array_set_size (hits, n);
  n_ends = n;
  collect_inner (index, b, first, last, hits);
  merge_runs (hits, n0, n_ends, index->scratch);
}

/* collect_hits for a long query read from windows, which hold every buffer
 * that touches the query's whole blocks: only the partial buffers that
 * miss those blocks are left to add (about half of an end block's). A
 * partial buffer of the left end block starts before the whole blocks, so
 * it misses them and meets the query exactly when its last step lies in
 * [lo, hi] = [first, the step before them]; one of the right end block,
 * when its first step lies in [the step after them, last]. */
static void
collect_outer_hits (MpTimeIndex *index, guint b, gboolean left, guint lo, guint hi,
                    guint first, guint last, GArray *hits)
{
  const PartList *list = &index->part[b];
  guint           n0 = hits->len, n = n0, n_ends;
  MpSpan         *out;

  g_array_set_size (hits, n + list->len);
  out = (MpSpan *) hits->data;
  for (guint i = 0; i < list->len; i++)
    {
      guint key = left ? list->when[i].last : list->when[i].first;

      out[n] = list->where[i];
      n += key - lo <= hi - lo; /* unsigned: lo <= key <= hi */
    }
  g_array_set_size (hits, n);
  /* buffers inside block b miss the whole blocks, so none is in a window */
  n_ends = n;
  collect_inner (index, b, first, last, hits);
  merge_runs (hits, n0, n_ends, index->scratch);
}

/* Sorted spans -> their disjoint union, in place. */
static void
normalize (GArray *spans)
{
  MpSpan *s = (MpSpan *) spans->data;
  guint   n = 0;

  for (guint i = 0; i < spans->len; i++)
    {
      if (n > 0 && s[i].start <= s[n - 1].end)
        s[n - 1].end = MAX (s[n - 1].end, s[i].end);
      else
        s[n++] = s[i];
    }
  g_array_set_size (spans, n);
}


/* Yields the union of sorted lists of disjoint spans (so both starts and
 * ends increase along a list), one merged component at a time. A component
 * grows by galloping through every list for the last span that starts
 * inside it: over a long query the union is nearly solid, and whole runs of
 * spans are skipped in logarithmic time instead of merged one by one. */
typedef struct
{
  Cursor  *c;
  guint    k;
  gboolean gallop; /* a long query */
  guint    next;   /* long queries: the cursor with the least start, or G_MAXUINT */
  guint64  join;   /* spans closer than join + 1 to a component join it (0: the union) */
} Merger;

static inline void
merger_init (Merger *m, GArray *cursors, gboolean gallop)
{
  m->c = (Cursor *) cursors->data;
  m->k = cursors->len;
  m->gallop = gallop;
  m->next = G_MAXUINT;
  m->join = 0;
}

/* How far past its end a component reaches, saturated. */
static inline guint64
reach (const Merger *m, guint64 end)
{
  return end + m->join >= end ? end + m->join : G_MAXUINT64;
}

/* Moves c past every span that starts at or before end; returns the
 * largest end among them, or 0 when there is none. */
static inline guint64
gallop (Cursor *c, guint64 end)
{
  gsize n = c->end - c->at, lo, hi, step = 1;

  if (n == 0 || c->at->start > end)
    return 0;
  /* c->at[lo] starts inside; find hi with c->at[hi] starting past end */
  lo = 0;
  while (step < n && c->at[step].start <= end)
    {
      lo = step;
      step *= 2;
    }
  hi = MIN (step, n);
  while (hi - lo > 1)
    {
      gsize mid = lo + (hi - lo) / 2;
      if (c->at[mid].start <= end)
        lo = mid;
      else
        hi = mid;
    }
  c->at += lo + 1;
  return c->at[-1].end;
}

/* c's next span joins a component: it and every span after it in a chunk
 * whose gaps are all narrower than join + 1 join it as well. Moves c past
 * them; returns the largest end among them, or 0 when the chunk of the
 * next span has a wide gap. */
static inline guint64
skip_narrow (Cursor *c, guint64 join)
{
  guint64 e = 0;

  if (c->widest == NULL)
    return 0;
  for (guint k = (c->at - c->base) / MP_TIME_WINDOWS_CHUNK;
       c->at != c->end && c->widest[k] <= join; k++)
    {
      c->at = MIN (c->end, c->base + (gsize) (k + 1) * MP_TIME_WINDOWS_CHUNK);
      e = c->at[-1].end;
    }
  return e;
}

/* A long query's component: galloping round the lists until k in a row
 * add nothing. Those last k looks leave every list past the component, so
 * they also find the least start of the next one (m->next): one round per
 * component where growth stops early, against a round to find the start
 * and two to grow. */
static inline void
merger_grow (Merger *m, MpSpan *out)
{
  Cursor  *c = m->c;
  guint    quiet = 0, least = G_MAXUINT, i = 0;
  gboolean spent = FALSE;

  while (quiet < m->k)
    {
      guint64 e = gallop (&c[i], reach (m, out->end));

      /* the next piece is often in the same list: follow it there rather
       * than after a round of the others (18% fewer gallops on long-lived) */
      while (e > out->end && c[i].at != c[i].end && c[i].at->start <= reach (m, e))
        {
          guint64 f = skip_narrow (&c[i], m->join);

          e = MAX (e, f);
          f = gallop (&c[i], reach (m, e));
          e = MAX (e, f);
        }
      if (e > out->end)
        {
          out->end = e;
          quiet = 0;
          least = G_MAXUINT;
        }
      else
        quiet++;
      if (c[i].at == c[i].end)
        spent = TRUE;
      else if (least == G_MAXUINT || c[i].at->start < c[least].at->start)
        least = i;
      i = i + 1 == m->k ? 0 : i + 1;
    }
  /* a list that ran out moves the others: look again next time */
  m->next = spent ? G_MAXUINT : least;
}

static inline gboolean
merger_next (Merger *m, MpSpan *out)
{
  Cursor *c = m->c;
  guint   best = 0;

  if (m->gallop && m->next != G_MAXUINT)
    {
      *out = *c[m->next].at++;
      merger_grow (m, out);
      return TRUE;
    }

  /* drop spent lists, find the least start */
  for (guint i = 0; i < m->k;)
    {
      if (c[i].at == c[i].end)
        {
          c[i] = c[--m->k];
          continue;
        }
      if (c[i].at->start < c[best].at->start || c[best].at == c[best].end)
        best = i;
      i++;
    }
  if (m->k == 0)
    return FALSE;
  *out = *c[best].at++;
  if (!m->gallop)
    {
      /* a short query's union is fragmented: plain merging is cheaper */
      for (;;)
        {
          guint next = G_MAXUINT;

          for (guint i = 0; i < m->k; i++)
            if (c[i].at != c[i].end && (next == G_MAXUINT || c[i].at->start < c[next].at->start))
              next = i;
          if (next == G_MAXUINT || c[next].at->start > reach (m, out->end))
            return TRUE;
          out->end = MAX (out->end, c[next].at->end);
          c[next].at++;
        }
    }
  merger_grow (m, out);
  return TRUE;
}

/* The hits of one or two blocks, each run already in address order (the
 * part lists are kept so): merge the runs, then join into a disjoint union. */
static void
sort_hits (GArray *hits, guint first_run, GArray *scratch)
{
  merge_runs (hits, 0, first_run, scratch);
  normalize (hits);
}

/* Fills index->cursors with sorted lists of disjoint spans whose union is
 * what is busy at some step of [first, last]; TRUE for a long query. */
static gboolean
gather (MpTimeIndex *index, guint first, guint last)
{
  GArray *cursors = index->cursors;
  GArray *hits = index->hits;
  guint   bf, bl, p, q1, first_run;

  g_assert (first <= last && last < index->n_steps);
  block_range (index, first, last, &bf, &bl, &p, &q1);
  g_array_set_size (cursors, 0);
  g_array_set_size (hits, 0);

  if (p >= q1)
    {
      /* short: buffers covering the end blocks, plus partial ones that meet */
      add_set (index, &index->cover[bf]);
      if (bl != bf)
        add_set (index, &index->cover[bl]);
    }
  else if (index->windows)
    {
      const MpSpan  *spans[MP_TIME_WINDOWS_MAX_SETS];
      const guint64 *widest[MP_TIME_WINDOWS_MAX_SETS];
      guint          lens[MP_TIME_WINDOWS_MAX_SETS];
      guint n = mp_time_windows_read (index->windows, first, last, spans, lens, widest, hits);

      for (guint i = 0; i < n; i++)
        add_summarized (cursors, spans[i], lens[i], widest[i]);
    }
  else
    {
      guint l, r;

      for (l = p + index->n_leaves, r = q1 + index->n_leaves; l < r; l >>= 1, r >>= 1)
        {
          if (l & 1)
            add_set (index, &index->sub[l++]);
          if (r & 1)
            add_set (index, &index->sub[--r]);
        }
      /* The ancestors of those nodes lie on the paths of bf and bl; what
       * they hold covers bf or bl whole, and cover[] has it merged. */
      add_set (index, &index->cover[bf]);
      if (bl != bf)
        add_set (index, &index->cover[bl]);
    }
  if (index->windows && p < q1)
    {
      guint inner_first = block_first (index, p), inner_last = block_last (index, q1 - 1);

      guint n_extra = hits->len; /* the windows' waiting spans and edges */

      if (bf < p)
        collect_outer_hits (index, bf, TRUE, first, inner_first - 1, first, last, hits);
      merge_runs (hits, 0, n_extra, index->scratch);
      first_run = hits->len;
      if (bl >= q1)
        collect_outer_hits (index, bl, FALSE, inner_last + 1, last, first, last, hits);
    }
  else
    {
      if (!(p <= bf && bf < q1))
        collect_hits (index, bf, first, last, hits);
      first_run = hits->len;
      if (bl != bf && !(p <= bl && bl < q1))
        collect_hits (index, bl, first, last, hits);
    }
  sort_hits (hits, first_run, index->scratch);
  add_cursor (cursors, (MpSpan *) hits->data, hits->len);
  return p < q1;
}

void
mp_time_index_busy (MpTimeIndex *index, guint first, guint last, GArray *busy)
{
  Merger m;
  MpSpan s;

  merger_init (&m, index->cursors, gather (index, first, last));
  g_array_set_size (busy, 0);
  while (merger_next (&m, &s))
    g_array_append_val (busy, s);
}

typedef struct
{
  guint64 size;
  guint64 offset;
} Fit;

static inline void
consider (Fit *best, guint64 size, guint64 offset, guint64 need)
{
  if (size >= need && (size < best->size || (size == best->size && offset < best->offset)))
    {
      best->size = size;
      best->offset = offset;
    }
}

static inline guint64
gap_before (const MpSpan *s, guint i)
{
  return s[i].start - (i ? s[i - 1].end : 0);
}

/* The least gap >= need among gaps [from, to) of s, or G_MAXUINT64:
 * branch-free in four independent lanes, which the CPU pipelines (a
 * branchy loop mispredicts). */
static guint64
least_gap (const MpSpan *s, guint from, guint to, guint64 need)
{
  guint64 m[4] = { G_MAXUINT64, G_MAXUINT64, G_MAXUINT64, G_MAXUINT64 };
  guint   i = from;

  if (i == 0 && to > 0)
    {
      m[0] = s[0].start >= need ? s[0].start : G_MAXUINT64;
      i = 1;
    }
  for (; i + 4 <= to; i += 4)
    for (guint lane = 0; lane < 4; lane++)
      {
        guint64 g = s[i + lane].start - s[i + lane - 1].end;

        m[lane] = MIN (m[lane], g >= need ? g : G_MAXUINT64);
      }
  for (; i < to; i++)
    {
      guint64 g = s[i].start - s[i - 1].end;

      m[0] = MIN (m[0], g >= need ? g : G_MAXUINT64);
    }
  return MIN (MIN (m[0], m[1]), MIN (m[2], m[3]));
}

/* Brings a cover's chunk summaries up to date: only the chunks a change
 * reached since the last read. */
static void
span_set_summarize (SpanSet *set)
{
  guint n_chunks = (set->len + CHUNK - 1) / CHUNK;

  if (set->cap_chunks < n_chunks)
    {
      set->cap_chunks = MAX (n_chunks, 2 * set->cap_chunks);
      set->chunks = g_renew (Chunk, set->chunks, set->cap_chunks);
    }
  for (guint c = set->n_valid; c < n_chunks; c++)
    {
      guint   to = MIN (c * CHUNK + CHUNK, set->len);
      guint64 w = 0, octaves = 0;

      for (guint i = c * CHUNK; i < to; i++)
        {
          guint64 gap = gap_before (set->spans, i);

          w = MAX (w, gap);
          octaves |= gap ? (guint64) 1 << (g_bit_storage (gap) - 1) : 0;
        }
      set->chunks[c] = (Chunk) { set->spans[c * CHUNK].start, w, octaves };
    }
  set->n_valid = n_chunks;
}

/* The first span of a summarised set that starts after x, or len. */
static inline guint
first_after (const SpanSet *set, guint64 x)
{
  guint lo = 0, hi = (set->len + CHUNK - 1) / CHUNK, end;

  /* the first chunk starting after x; x's span, if any, is in the one before */
  while (lo < hi)
    {
      guint mid = lo + (hi - lo) / 2;
      if (set->chunks[mid].start <= x)
        lo = mid + 1;
      else
        hi = mid;
    }
  if (lo == 0)
    return 0;
  end = MIN (lo * CHUNK, set->len);
  lo = (lo - 1) * CHUNK;
  while (lo < end && set->spans[lo].start <= x)
    lo++;
  return lo;
}

/* The first gap of a summarised set from gap `from` on that holds need,
 * chunks whose widest gap is narrower skipped; G_MAXUINT if none. */
static guint
first_gap (const SpanSet *set, guint from, guint64 need)
{
  const MpSpan *s = set->spans;

  for (guint a = from, b; a < set->len; a = b)
    {
      b = MIN ((a / CHUNK + 1) * CHUNK, set->len);
      if (set->chunks[a / CHUNK].widest < need)
        continue;
      for (guint i = a; i < b; i++)
        if (gap_before (s, i) >= need)
          return i;
    }
  return G_MAXUINT;
}

/* Offers best the least gap >= need of chunk c, leaving out the touched
 * gaps (sorted). */
static void
best_in_chunk (const SpanSet *set, guint c, const guint *touched, guint n_touched, guint64 need,
               Fit *best)
{
  const MpSpan *s = set->spans;
  guint         a = c * CHUNK, b = MIN (a + CHUNK, set->len), t = 0;

  while (t < n_touched && touched[t] < a)
    t++;
  for (; a < b; t++)
    {
      guint   to = t < n_touched && touched[t] < b ? touched[t] : b;
      guint64 least = least_gap (s, a, to, need);

      if (least != G_MAXUINT64 && least <= best->size)
        {
          guint i = a;

          while (gap_before (s, i) != least)
            i++;
          consider (best, least, i ? s[i - 1].end : 0, need);
        }
      a = to + 1;
    }
}

/* Offers best the least untouched gap >= need: the chunks are read octave
 * by octave from need's up, and once best lies in an octave whose chunks
 * are all read, every other gap is wider or too narrow. */
static void
best_untouched (const SpanSet *set, const guint *touched, guint n_touched, guint64 need, Fit *best)
{
  guint   n_chunks = (set->len + CHUNK - 1) / CHUNK;
  guint64 todo = 0, done = 0;

  for (guint c = 0; c < n_chunks; c++)
    todo |= set->chunks[c].octaves;
  todo &= need > 1 ? G_MAXUINT64 << (g_bit_storage (need) - 1) : G_MAXUINT64;
  while (todo)
    {
      guint   o = __builtin_ctzll (todo);
      guint64 bit = (guint64) 1 << o;

      for (guint c = 0; c < n_chunks; c++)
        if ((set->chunks[c].octaves & bit) && !(set->chunks[c].octaves & done))
          best_in_chunk (set, c, touched, n_touched, need, best);
      done |= bit;
      todo &= ~bit;
      if (best->size != G_MAXUINT64 && g_bit_storage (best->size) - 1 <= o)
        break;
    }
}

/* Best fit over one block's cover plus a few spans (hits: sorted and
 * disjoint), without walking the cover span by span: the gaps no hit falls
 * into are scanned straight from the spans, chunks too narrow skipped; the
 * few gaps hits fall into, and the space above the cover, are worked out
 * exactly from the hits. G_MAXUINT64: the hits fall into too many gaps, the
 * caller takes the general path. */
static guint64
best_fit_cover (const SpanSet *cover, const GArray *hits_array, guint64 need)
{
  const MpSpan *s = cover->spans, *h = (const MpSpan *) hits_array->data;
  guint         n = cover->len, n_hits = hits_array->len;
  guint64       top = n ? s[n - 1].end : 0;
  guint         touched[64], n_touched = 0;
  Fit           best = { G_MAXUINT64, G_MAXUINT64 };

  /* gaps that some hit falls into, in increasing order */
  for (guint k = 0; k < n_hits; k++)
    {
      /* first span starting after the hit starts: its gap is the first
       * one the hit can reach */
      guint lo = first_after (cover, h[k].start);

      for (guint i = lo; i < n && (i ? s[i - 1].end : 0) < h[k].end; i++)
        {
          if (gap_before (s, i) == 0 || (n_touched && touched[n_touched - 1] >= i))
            continue;
          if (n_touched == G_N_ELEMENTS (touched))
            return G_MAXUINT64;
          touched[n_touched++] = i;
        }
    }

  if (need == 0)
    {
      /* as the gap array did: a touched gap (hidden as 0) or an empty first
       * gap is the smallest, at its start */
      if (n > 0 && s[0].start == 0)
        return 0;
      if (n_touched)
        return touched[0] ? s[touched[0] - 1].end : 0;
    }

  /* touched gaps: free pieces between the hits inside each */
  for (guint t = 0, k = 0; t < n_touched; t++)
    {
      guint64 lo = touched[t] ? s[touched[t] - 1].end : 0, hi = s[touched[t]].start;
      guint64 pos = lo;

      while (k < n_hits && h[k].end <= lo)
        k++;
      for (guint q = k; q < n_hits && h[q].start < hi; q++)
        {
          if (h[q].start > pos)
            consider (&best, h[q].start - pos, pos, need);
          pos = MAX (pos, h[q].end);
        }
      if (hi > pos)
        consider (&best, hi - pos, pos, need);
    }
  best_untouched (cover, touched, n_touched, need, &best);

  /* above the cover: hits there leave gaps below the new top */
  for (guint k = 0; k < n_hits; k++)
    {
      if (h[k].end <= top)
        continue;
      if (h[k].start > top)
        consider (&best, h[k].start - top, top, need);
      top = h[k].end;
    }
  return best.size != G_MAXUINT64 ? best.offset : top;
}

/* First fit over one block's cover plus a few spans (hits: sorted and
 * disjoint). Every free piece lies in a gap of the cover or above it, so
 * the cover's gaps that hold need are tried in address order, chunks too
 * narrow skipped, each cut by the hits inside it: the few warm hits are
 * searched, not the cold cover. */
static guint64
first_fit_cover (const SpanSet *cover, const GArray *hits_array, guint64 need)
{
  const MpSpan *s = cover->spans, *h = (const MpSpan *) hits_array->data;
  guint         n = cover->len, n_hits = hits_array->len, k = 0, at = 0;
  guint64       pos;

  while ((at = first_gap (cover, at, need)) != G_MAXUINT)
    {
      guint64 lo = at ? s[at - 1].end : 0, hi = s[at].start;

      pos = lo;
      while (k < n_hits && h[k].end <= lo)
        k++;
      for (guint q = k; q < n_hits && h[q].start < hi; q++)
        {
          if (h[q].start > pos && h[q].start - pos >= need)
            return pos;
          pos = MAX (pos, h[q].end);
        }
      if (hi > pos && hi - pos >= need)
        return pos;
      at++;
    }
  /* above the cover: hits there leave gaps below the new top */
  pos = n ? s[n - 1].end : 0;
  for (; k < n_hits; k++)
    {
      if (h[k].end <= pos)
        continue;
      if (h[k].start > pos && h[k].start - pos >= need)
        return pos;
      pos = h[k].end;
    }
  return pos;
}

/* First fit reads up to this many spans waiting to join a cover as hits:
 * merging them would rewrite the cover above the lowest on nearly every
 * read. Best fit merges them: each hit costs it a search of the cold cover
 * for the gap it falls into (measured slower at 1M random with 8 and 48). */
#define PEND_AS_HITS 48

/* A short query inside block b: the cover, with its waiting spans and the
 * partial buffers that meet [first, last] as hits. */
static guint64
short_fit (MpTimeIndex *index, guint b, guint first, guint last, guint64 size, gboolean first_fit)
{
  SpanSet *cover = &index->cover[b];
  GArray  *hits = index->hits;
  guint    n_part;

  if (cover->n_pend > (first_fit ? PEND_AS_HITS : 0))
    span_set_flush (index, cover);
  g_array_set_size (hits, 0);
  collect_hits (index, b, first, last, hits);
  n_part = hits->len;
  if (cover->n_pend > 0)
    {
      /* sorted in place: later reads find them nearly sorted */
      sort_by_start (cover->pend, cover->n_pend);
      g_array_append_vals (hits, cover->pend, cover->n_pend);
    }
  sort_hits (hits, n_part, index->scratch);
  span_set_summarize (cover);
  return first_fit ? first_fit_cover (cover, hits, size) : best_fit_cover (cover, hits, size);
}

guint64
mp_time_index_best_fit (MpTimeIndex *index, guint first, guint last, guint64 size)
{
  guint64  prev = 0, best = G_MAXUINT64, smallest = G_MAXUINT64;
  guint    bf, bl, p, q1;
  gboolean long_query;
  Merger   m;
  MpSpan   s;

  block_range (index, first, last, &bf, &bl, &p, &q1);
  if (bf == bl && p >= q1)
    {
      /* the common case: a short lifetime inside one block */
      guint64 offset = short_fit (index, bf, first, last, size, FALSE);

      if (offset != G_MAXUINT64)
        return offset;
    }

  long_query = gather (index, first, last);
  merger_init (&m, index->cursors, long_query);
  /* gaps narrower than size cannot take it: joining across them leaves
   * only fitting gaps between components, and far fewer components */
  m.join = size ? size - 1 : 0;
  while (merger_next (&m, &s))
    {
      guint64 gap = s.start - prev;

      if (gap >= size && gap < smallest)
        {
          smallest = gap;
          best = prev;
        }
      prev = s.end;
    }
  return best != G_MAXUINT64 ? best : prev;
}

guint64
mp_time_index_first_fit (MpTimeIndex *index, guint first, guint last, guint64 size)
{
  guint  bf, bl, p, q1;
  Merger m;
  MpSpan s;

  if (size == 0)
    return 0; /* it fits below anything */
  block_range (index, first, last, &bf, &bl, &p, &q1);
  if (bf == bl && p >= q1)
    {
      guint64 offset = short_fit (index, bf, first, last, size, TRUE);

      if (offset != G_MAXUINT64)
        return offset;
    }
  /* Spans less than size apart join one component, so the first
   * component's end is the answer: the space above it up to the next one
   * holds size, or nothing is above it. Gaps too small are skipped by the
   * galloping merge, not walked. */
  merger_init (&m, index->cursors, gather (index, first, last));
  m.join = size - 1;
  if (!merger_next (&m, &s) || s.start >= size)
    return 0;
  return s.end;
}

guint64
mp_spans_first_fit (const GArray *busy, guint64 size)
{
  const MpSpan *s = (const MpSpan *) busy->data;
  guint64       prev = 0;

  for (guint i = 0; i < busy->len; i++)
    {
      if (s[i].start - prev >= size)
        return prev;
      prev = s[i].end;
    }
  return prev;
}

guint64
mp_spans_best_fit (const GArray *busy, guint64 size)
{
  const MpSpan *s = (const MpSpan *) busy->data;
  guint64       prev = 0, best = G_MAXUINT64, smallest = G_MAXUINT64;

  for (guint i = 0; i < busy->len; i++)
    {
      guint64 gap = s[i].start - prev;

      if (gap >= size && gap < smallest)
        {
          smallest = gap;
          best = prev;
        }
      prev = s[i].end;
    }
  return best != G_MAXUINT64 ? best : prev;
}
