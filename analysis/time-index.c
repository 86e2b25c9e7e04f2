/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "memplan-analysis"

#include <stdlib.h>
#include <string.h>

#include "time-index.h"

typedef struct
{
  MpSpan *spans;
  guint   len;
  guint   cap;
} SpanSet;

struct _MpTimeIndex
{
  guint    n_leaves; /* power of two >= n_steps */
  SpanSet *own;      /* spans of buffers whose canonical node this is */
  SpanSet *sub;      /* union over the node's subtree, own included */
  GArray  *scratch;
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
          set->cap = set->cap ? 2 * set->cap : 2;
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

MpTimeIndex *
mp_time_index_new (guint n_steps)
{
  MpTimeIndex *index = g_new0 (MpTimeIndex, 1);

  index->n_leaves = 1;
  while (index->n_leaves < n_steps)
    index->n_leaves *= 2;
  index->own = g_new0 (SpanSet, 2 * (gsize) index->n_leaves);
  index->sub = g_new0 (SpanSet, 2 * (gsize) index->n_leaves);
  index->scratch = g_array_new (FALSE, FALSE, sizeof (MpSpan));
  return index;
}

void
mp_time_index_free (MpTimeIndex *index)
{
  if (index == NULL)
    return;
  for (gsize i = 0; i < 2 * (gsize) index->n_leaves; i++)
    {
      g_free (index->own[i].spans);
      g_free (index->sub[i].spans);
    }
  g_free (index->own);
  g_free (index->sub);
  g_array_unref (index->scratch);
  g_free (index);
}

void
mp_time_index_insert (MpTimeIndex *index, guint first, guint last, guint64 offset, guint64 size)
{
  guint l, r, a, b;

  g_assert (first <= last && last < index->n_leaves);

  for (l = first + index->n_leaves, r = last + index->n_leaves + 1; l < r; l >>= 1, r >>= 1)
    {
      if (l & 1)
        {
          span_set_add (&index->own[l], offset, offset + size);
          span_set_add (&index->sub[l], offset, offset + size);
          l++;
        }
      if (r & 1)
        {
          r--;
          span_set_add (&index->own[r], offset, offset + size);
          span_set_add (&index->sub[r], offset, offset + size);
        }
    }
  /* Every ancestor of a canonical node lies on the path of a boundary leaf. */
  for (a = (first + index->n_leaves) >> 1, b = (last + index->n_leaves) >> 1; a >= 1;
       a >>= 1, b >>= 1)
    {
      span_set_add (&index->sub[a], offset, offset + size);
      if (b != a)
        span_set_add (&index->sub[b], offset, offset + size);
    }
}

static int
cmp_span (const void *pa, const void *pb)
{
  const MpSpan *a = pa, *b = pb;

  return (a->start > b->start) - (a->start < b->start);
}

static void
append_set (GArray *out, const SpanSet *set)
{
  if (set->len)
    g_array_append_vals (out, set->spans, set->len);
}

/* Whether node v's leaves all lie in [first, last]. */
static inline gboolean
node_inside (guint n_leaves, guint v, guint first, guint last)
{
  guint depth = 31 - __builtin_clz (v);
  guint width = n_leaves >> depth;
  guint lo = (v - (1u << depth)) * width;

  return lo >= first && lo + width - 1 <= last;
}

void
mp_time_index_busy (MpTimeIndex *index, guint first, guint last, GArray *busy)
{
  GArray *raw = index->scratch;
  guint   n = index->n_leaves;
  guint   l, r, a, b;

  g_assert (first <= last && last < n);
  g_array_set_size (raw, 0);

  /* nodes fully inside [first, last]: their whole subtree overlaps */
  for (l = first + n, r = last + n + 1; l < r; l >>= 1, r >>= 1)
    {
      if (l & 1)
        append_set (raw, &index->sub[l++]);
      if (r & 1)
        append_set (raw, &index->sub[--r]);
    }
  /* nodes that straddle a boundary: only the buffers stored at them, which
   * cover the whole node and so overlap the query */
  for (a = (first + n) >> 1, b = (last + n) >> 1; a >= 1; a >>= 1, b >>= 1)
    {
      if (!node_inside (n, a, first, last))
        append_set (raw, &index->own[a]);
      if (b != a && !node_inside (n, b, first, last))
        append_set (raw, &index->own[b]);
    }

  g_array_set_size (busy, 0);
  if (raw->len == 0)
    return;
  qsort (raw->data, raw->len, sizeof (MpSpan), cmp_span);
  {
    MpSpan *s = (MpSpan *) raw->data;
    MpSpan  cur = s[0];

    for (guint i = 1; i < raw->len; i++)
      {
        if (s[i].start <= cur.end)
          cur.end = MAX (cur.end, s[i].end);
        else
          {
            g_array_append_val (busy, cur);
            cur = s[i];
          }
      }
    g_array_append_val (busy, cur);
  }
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
