/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "memplan-analysis"

#include <string.h>

#include "time-windows.h"

/* Level l holds a window of 2^l blocks at every start: the union of the
 * buffers that touch some step of its blocks. Union is idempotent, so two
 * windows of the largest level that fits, one flush left and one flush
 * right, give a query's covered blocks exactly, however they overlap (the
 * sparse table of range-minimum queries). On the long-lived shape a long
 * query reads 3.2 sets instead of 7.3, and the merge gallops 2.3-2.8 times
 * less; an insert pushes to about levels x blocks touched windows.
 *
 * What meets a query but touches none of its whole blocks lies in an end
 * block: the partial buffers there (the time index filters them by step),
 * and the buffers that cover the end block whole and stop at its edge,
 * kept here as edge lists. */

/* A merged set plus spans added since it was last merged. A read sorts
 * and joins only the spans pushed since the last read (pend[0, n_sorted)
 * is kept so) and hands them to the caller beside the merged set; they are
 * merged in only once they reach a share of it, or as many as it holds
 * wait: merging on every read copied the set's tail out and back each time
 * (60 % of first fit's time on the long-lived 100k). */
typedef struct
{
  MpSpan *spans;
  guint   len;
  guint   cap;
  MpSpan *pend;
  guint   n_pend;
  guint   cap_pend;
  guint   n_sorted;
  /* the widest gap before a span of each MP_TIME_WINDOWS_CHUNK of spans,
   * for the merge to pass runs of narrow gaps (level windows only) */
  guint64 *widest;
  guint    cap_widest;
  guint    dirty; /* chunks from the one of span dirty on are out of date */
} WinSet;

/* A read merges the waiting spans in once they are more than 1/this of
 * the merged set. */
#define READ_PEND_SHARE 16

struct _MpTimeWindows
{
  guint    n_steps;
  guint    block;
  guint    n_blocks;
  guint    n_levels;
  WinSet **level;      /* level[l][start], start in [0, n_blocks - 2^l] */
  WinSet  *edge_end;   /* cover block b whole and end at its last step */
  WinSet  *edge_start; /* cover block b whole and begin at its first step */
  MpSpan  *out;        /* a flush's copy of the spans it merges again */
  guint    cap_out;
  MpSpan  *tmp;        /* the radix sort's other half */
  guint    cap_tmp;
};

MpTimeWindows *
mp_time_windows_new (guint n_steps, guint block)
{
  MpTimeWindows *windows = g_new0 (MpTimeWindows, 1);

  windows->n_steps = MAX (n_steps, 1);
  windows->block = MAX (block, 1);
  windows->n_blocks = (windows->n_steps + windows->block - 1) / windows->block;
  while (windows->n_levels < 31 && (1u << windows->n_levels) <= windows->n_blocks)
    windows->n_levels++;
  windows->level = g_new0 (WinSet *, windows->n_levels);
  for (guint l = 0; l < windows->n_levels; l++)
    windows->level[l] = g_new0 (WinSet, windows->n_blocks - (1u << l) + 1);
  windows->edge_end = g_new0 (WinSet, windows->n_blocks);
  windows->edge_start = g_new0 (WinSet, windows->n_blocks);
  return windows;
}

static void
win_set_clear (WinSet *set)
{
  g_free (set->spans);
  g_free (set->pend);
  g_free (set->widest);
}

void
mp_time_windows_free (MpTimeWindows *windows)
{
  if (windows == NULL)
    return;
  for (guint l = 0; l < windows->n_levels; l++)
    {
      for (guint s = 0; s + (1u << l) <= windows->n_blocks; s++)
        win_set_clear (&windows->level[l][s]);
      g_free (windows->level[l]);
    }
  for (guint b = 0; b < windows->n_blocks; b++)
    {
      win_set_clear (&windows->edge_end[b]);
      win_set_clear (&windows->edge_start[b]);
    }
  g_free (windows->level);
  g_free (windows->edge_end);
  g_free (windows->edge_start);
  g_free (windows->out);
  g_free (windows->tmp);
  g_free (windows);
}

/* Sorts a by start: by insertion when few, else by bytes of the start,
 * least significant first (no comparison callback; a byte all spans share
 * costs no pass). */
static void
sort_spans (MpTimeWindows *windows, MpSpan *a, guint n)
{
  MpSpan *src = a, *dst;
  guint64 any = 0;

  if (n <= 32)
    {
      for (guint i = 1; i < n; i++)
        {
          MpSpan x = a[i];
          guint  j = i;

          for (; j > 0 && a[j - 1].start > x.start; j--)
            a[j] = a[j - 1];
          a[j] = x;
        }
      return;
    }
  if (windows->cap_tmp < n)
    {
      windows->cap_tmp = MAX (n, 2 * windows->cap_tmp);
      windows->tmp = g_renew (MpSpan, windows->tmp, windows->cap_tmp);
    }
  dst = windows->tmp;
  for (guint i = 0; i < n; i++)
    any |= a[i].start;
  for (guint shift = 0; shift < 64 && (any >> shift) != 0; shift += 8)
    {
      guint   count[257] = { 0 };
      MpSpan *t;

      for (guint i = 0; i < n; i++)
        count[((src[i].start >> shift) & 0xff) + 1]++;
      if (count[((src[0].start >> shift) & 0xff) + 1] == n)
        continue;
      for (guint d = 0; d < 256; d++)
        count[d + 1] += count[d];
      for (guint i = 0; i < n; i++)
        dst[count[(src[i].start >> shift) & 0xff]++] = src[i];
      t = src;
      src = dst;
      dst = t;
    }
  if (src != a)
    memcpy (a, src, n * sizeof (MpSpan));
}

/* First of spans [from, to) of s that ends at or above x: spans before it
 * lie wholly below x and do not touch it. */
static inline guint
first_reaching (const MpSpan *s, guint from, guint to, guint64 x)
{
  while (from < to)
    {
      guint mid = from + (to - from) / 2;

      if (s[mid].end < x)
        from = mid + 1;
      else
        to = mid;
    }
  return from;
}

/* Room for n spans in windows->out. */
static MpSpan *
out_room (MpTimeWindows *windows, guint n)
{
  if (windows->cap_out < n)
    {
      windows->cap_out = MAX (n, 2 * windows->cap_out);
      g_free (windows->out);
      windows->out = g_new (MpSpan, windows->cap_out);
    }
  return windows->out;
}

/* Sorts the spans pushed since the last read and joins them with the
 * sorted, joined ones before them: pend[0, n_pend) sorted and disjoint. */
static void
win_set_sort_pend (MpTimeWindows *windows, WinSet *set)
{
  MpSpan *p = set->pend, *out;
  guint   ns = set->n_sorted, np = set->n_pend, lo, i, j = ns, n = 0;

  if (ns == np)
    return;
  sort_spans (windows, p + ns, np - ns);
  /* the sorted spans wholly below the new ones, not touching them, stay */
  lo = i = first_reaching (p, 0, ns, p[ns].start);
  out = out_room (windows, np - lo);
  while (i < ns || j < np)
    {
      MpSpan x = j == np || (i < ns && p[i].start <= p[j].start) ? p[i++] : p[j++];

      if (n > 0 && x.start <= out[n - 1].end)
        out[n - 1].end = MAX (out[n - 1].end, x.end);
      else
        out[n++] = x;
    }
  memcpy (p + lo, out, n * sizeof (MpSpan));
  set->n_pend = set->n_sorted = lo + n;
}

/* Merges the waiting spans in: the spans below the lowest of them stay
 * put, the rest is copied aside and merged back, runs between two waiting
 * spans copied whole (most waiting spans land in a set far larger). */
static void
win_set_flush (MpTimeWindows *windows, WinSet *set)
{
  MpSpan *p = set->pend, *t, *out;
  guint   np, lo, nt, n, i = 0;

  win_set_sort_pend (windows, set);
  np = set->n_pend;
  if (np == 0)
    return;
  set->n_pend = set->n_sorted = 0;
  lo = first_reaching (set->spans, 0, set->len, p[0].start);
  nt = set->len - lo;
  set->dirty = MIN (set->dirty, lo);
  t = out_room (windows, nt);
  if (nt > 0)
    memcpy (t, set->spans + lo, nt * sizeof (MpSpan));
  if (set->cap < set->len + np)
    {
      set->cap = MAX (set->len + np, 2 * set->cap);
      set->spans = g_renew (MpSpan, set->spans, set->cap);
    }
  out = set->spans;
  n = lo;
  for (guint j = 0; j < np; j++)
    {
      guint below = first_reaching (t, i, nt, p[j].start);

      if (below > i)
        memcpy (&out[n], &t[i], (below - i) * sizeof (MpSpan));
      n += below - i;
      i = below;
      if (n > 0 && p[j].start <= out[n - 1].end)
        out[n - 1].end = MAX (out[n - 1].end, p[j].end);
      else
        out[n++] = p[j];
      for (; i < nt && t[i].start <= out[n - 1].end; i++)
        {
          out[n - 1].start = MIN (out[n - 1].start, t[i].start);
          out[n - 1].end = MAX (out[n - 1].end, t[i].end);
        }
    }
  if (nt > i)
    memcpy (&out[n], &t[i], (nt - i) * sizeof (MpSpan));
  set->len = n + nt - i;
}

static inline void
win_set_push (MpTimeWindows *windows, WinSet *set, guint64 start, guint64 end)
{
  if (set->n_pend == set->cap_pend)
    {
      /* as many waiting as merged: memory stays within twice the union */
      if (set->n_pend >= MAX (32, set->len))
        win_set_flush (windows, set);
      else
        {
          set->cap_pend = set->cap_pend ? 2 * set->cap_pend : 8;
          set->pend = g_renew (MpSpan, set->pend, set->cap_pend);
        }
    }
  set->pend[set->n_pend++] = (MpSpan) { start, end };
}

static inline guint
block_last_step (const MpTimeWindows *windows, guint b)
{
  return MIN ((guint64) b * windows->block + windows->block, windows->n_steps) - 1;
}

void
mp_time_windows_insert (MpTimeWindows *windows, guint first, guint last, guint64 start,
                        guint64 end)
{
  guint bf = first / windows->block, bl = last / windows->block;

  g_assert (first <= last && last < windows->n_steps);
  for (guint l = 0; l < windows->n_levels; l++)
    {
      guint width = 1u << l;
      guint lo = bf + 1 >= width ? bf + 1 - width : 0;
      guint hi = MIN (bl, windows->n_blocks - width);

      for (guint s = lo; s <= hi; s++)
        win_set_push (windows, &windows->level[l][s], start, end);
    }
  if (last == block_last_step (windows, bl) && first <= bl * windows->block)
    win_set_push (windows, &windows->edge_end[bl], start, end);
  if (first == bf * windows->block && last >= block_last_step (windows, bf))
    win_set_push (windows, &windows->edge_start[bf], start, end);
}

/* The widest gaps of the chunks from the one holding span from on. */
static void
win_set_summarize (WinSet *set, guint from)
{
  guint n_chunks = (set->len + MP_TIME_WINDOWS_CHUNK - 1) / MP_TIME_WINDOWS_CHUNK;

  if (set->cap_widest < n_chunks)
    {
      set->cap_widest = MAX (n_chunks, 2 * set->cap_widest);
      set->widest = g_renew (guint64, set->widest, set->cap_widest);
    }
  for (guint c = from / MP_TIME_WINDOWS_CHUNK; c < n_chunks; c++)
    {
      guint   i = c * MP_TIME_WINDOWS_CHUNK, to = MIN (i + MP_TIME_WINDOWS_CHUNK, set->len);
      guint64 w = set->spans[i].start - (i > 0 ? set->spans[i - 1].end : 0);

      for (i++; i < to; i++)
        w = MAX (w, set->spans[i].start - set->spans[i - 1].end);
      set->widest[c] = w;
    }
}

/* Appends run, n spans sorted by start, to extra (one run sorted by
 * start) and merges the two. */
static void
extra_merge (MpTimeWindows *windows, GArray *extra, const MpSpan *run, guint n)
{
  guint   n0 = extra->len, i = 0, j = 0, k = 0;
  MpSpan *e, *out;

  if (n == 0)
    return;
  if (n0 == 0)
    {
      g_array_append_vals (extra, run, n);
      return;
    }
  out = out_room (windows, n0 + n);
  e = (MpSpan *) extra->data;
  while (i < n0 || j < n)
    out[k++] = j == n || (i < n0 && e[i].start <= run[j].start) ? e[i++] : run[j++];
  g_array_set_size (extra, 0);
  g_array_append_vals (extra, out, k);
}

/* A window: its merged set as a list of its own, its waiting spans into
 * extra, merged first when they are many. */
static inline guint
take (MpTimeWindows *windows, WinSet *set, const MpSpan **spans, guint *lens,
      const guint64 **widest, guint n, GArray *extra)
{
  win_set_sort_pend (windows, set);
  if ((guint64) set->n_pend * READ_PEND_SHARE > set->len)
    win_set_flush (windows, set);
  if (set->dirty < set->len)
    {
      win_set_summarize (set, set->dirty);
      set->dirty = set->len;
    }
  extra_merge (windows, extra, set->pend, set->n_pend);
  if (set->len == 0)
    return n;
  spans[n] = set->spans;
  lens[n] = set->len;
  widest[n] = set->widest;
  return n + 1;
}

/* An edge list holds a few spans: all of it into extra. */
static inline void
take_edge (MpTimeWindows *windows, WinSet *set, GArray *extra)
{
  win_set_sort_pend (windows, set);
  extra_merge (windows, extra, set->spans, set->len);
  extra_merge (windows, extra, set->pend, set->n_pend);
}

guint
mp_time_windows_read (MpTimeWindows *windows, guint first, guint last, const MpSpan **spans,
                      guint *lens, const guint64 **widest, GArray *extra)
{
  guint bf = first / windows->block, bl = last / windows->block;
  guint p = first == bf * windows->block ? bf : bf + 1;
  guint q1 = last == block_last_step (windows, bl) ? bl + 1 : bl;
  guint l = 0, n = 0;

  g_assert (first <= last && last < windows->n_steps && p < q1);
  while (l + 1 < windows->n_levels && (2u << l) <= q1 - p)
    l++;
  n = take (windows, &windows->level[l][p], spans, lens, widest, n, extra);
  if (q1 - (1u << l) != p)
    n = take (windows, &windows->level[l][q1 - (1u << l)], spans, lens, widest, n, extra);
  if (bf < p)
    take_edge (windows, &windows->edge_end[bf], extra);
  if (bl >= q1)
    take_edge (windows, &windows->edge_start[bl], extra);
  return n;
}
