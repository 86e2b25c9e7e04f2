/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "memplan-analysis"

#include <stdlib.h>
#include <string.h>

#include "optimal-constrained.h"
#include "optimal-private.h"

/* Time is cut into sections wherever a buffer starts, ends, or enters or
 * leaves a gap; in each section a buffer holds its whole bytes, a window of
 * them, or nothing. Per section the search keeps the top of the placed
 * windows (the floor), the bytes the unplaced windows still need (total)
 * and the lowest offset any unplaced member may take: the unplaced windows
 * stack, disjoint, above the largest of those and of the last placement,
 * and must end under the capacity (MiniMalloc's section inference). Every
 * change is undone from a trail. Slots (size) keep buffers apart, bytes
 * must fit under the capacity, as in the validator's rule. */

#define UNSET       (-1)
#define N_PREORDERS 3

/* MiniMalloc's default preorders: W width, A area, T largest section total. */
static const char *const preorders[N_PREORDERS] = { "WAT", "TAW", "TWA" };

struct _MpConsSearch
{
  guint    n;
  guint    n_sec;
  gint64  *size, *bytes, *align, *fixed; /* fixed: UNSET when free */
  gint64  *width;
  guint   *s0, *s1;                      /* sections from first to last, gaps included */
  guint   *pc_start;                     /* pieces (CSR): sections where it holds a window */
  guint   *pc_s0, *pc_s1;
  gint64  *pc_lo, *pc_hi;
  guint   *ov_start, *ov;                /* live together (CSR), with the effective size */
  gint64  *ov_eff;                       /* the other rests at least this far above */
  guint   *mem_start, *mem;              /* buffers holding space in each section */
  gint64  *init_total;
  guint   *init_cuts;                    /* buffers crossing s | s + 1 */
  gboolean exact;

  /* one fit */
  gint64        cap;
  guint         h;
  gint64       *off, *minoff, *floor, *witness, *n_witnessed, *total, *key, *sol;
  guint        *cuts, *rank, *placed;
  guint         n_placed;
  MpOptTrailEntry *trail;
  gsize         trail_len, trail_cap;
  guint        *pool;
  gsize         pool_len, pool_cap;
  guint64       nodes, limit, all_nodes;
  gint64        deadline;
  GCancellable *cancellable;
  gboolean      stopped;
};

static int
cmp_gap (const void *pa, const void *pb)
{
  const MpGap *a = pa, *b = pb;

  return (a->first > b->first) - (a->first < b->first);
}

/* The pieces of r: [first, last] of its steps with the window it holds. */
static void
pieces_of (const MpUsage *r, GArray *out)
{
  g_autofree MpGap *gaps = g_memdup2 (r->gaps, sizeof (MpGap) * r->n_gaps);
  gint64            t = r->first, bytes = r->bytes;

  g_array_set_size (out, 0);
  if (r->n_gaps > 1)
    qsort (gaps, r->n_gaps, sizeof (MpGap), cmp_gap);
  for (guint k = 0; k <= r->n_gaps; k++)
    {
      gint64 gf = k < r->n_gaps ? MAX (gaps[k].first, (gint64) r->first) : (gint64) r->last + 1;
      gint64 gl = k < r->n_gaps ? MIN (gaps[k].last, (gint64) r->last) : (gint64) r->last;
      gint64 piece[4];

      if (gf > t)
        {
          piece[0] = t, piece[1] = gf - 1, piece[2] = 0, piece[3] = bytes;
          g_array_append_vals (out, piece, 4);
        }
      if (k < r->n_gaps && gaps[k].windowed && gf <= gl)
        {
          piece[0] = gf, piece[1] = gl, piece[2] = MIN ((gint64) gaps[k].lo, bytes);
          piece[3] = MIN ((gint64) gaps[k].hi, bytes);
          if (piece[3] > piece[2])
            g_array_append_vals (out, piece, 4);
        }
      t = MAX (t, gl + 1);
    }
}

static guint
section_of (const guint *bnd, guint nb, gint64 t)
{
  return mp_opt_count_below (bnd, nb, (guint) t);
}

static void
build_overlaps (MpConsSearch *s, const MpUsage *records)
{
  guint               n = s->n;
  g_autofree guint64 *keys = g_new (guint64, MAX (n, 1));
  g_autoptr (GArray)  pairs = g_array_new (FALSE, FALSE, sizeof (guint));
  g_autoptr (GArray)  effs = g_array_new (FALSE, FALSE, sizeof (gint64));
  g_autofree guint   *fill = NULL;

  s->exact = TRUE;
  for (guint i = 0; i < n; i++)
    keys[i] = ((guint64) records[i].first << 32) | i;
  qsort (keys, n, sizeof (guint64), mp_opt_cmp_u64);
  s->ov_start = g_new0 (guint, n + 1);
  for (guint p = 0; p < n; p++)
    {
      guint a = keys[p] & G_MAXUINT32;

      for (guint q = p + 1; q < n && (keys[q] >> 32) <= records[a].last; q++)
        {
          guint  b = keys[q] & G_MAXUINT32, ab[2] = { a, b };
          gint64 e[2];

          if (!mp_usage_effective_size (&records[a], &records[b], TRUE, &e[0]))
            continue;
          mp_usage_effective_size (&records[b], &records[a], TRUE, &e[1]);
          s->exact &= e[0] > 0 && e[1] > 0;
          g_array_append_vals (pairs, ab, 2);
          g_array_append_vals (effs, e, 2);
          s->ov_start[a + 1]++;
          s->ov_start[b + 1]++;
        }
    }
  for (guint i = 0; i < n; i++)
    s->ov_start[i + 1] += s->ov_start[i];
  s->ov = g_new (guint, MAX (s->ov_start[n], 1));
  s->ov_eff = g_new (gint64, MAX (s->ov_start[n], 1));
  fill = g_memdup2 (s->ov_start, sizeof (guint) * (n + 1));
  for (guint k = 0; k < pairs->len; k += 2)
    {
      guint  a = g_array_index (pairs, guint, k), b = g_array_index (pairs, guint, k + 1);
      gint64 ab = g_array_index (effs, gint64, k), ba = g_array_index (effs, gint64, k + 1);

      s->ov[fill[a]] = b;
      s->ov_eff[fill[a]++] = ab;
      s->ov[fill[b]] = a;
      s->ov_eff[fill[b]++] = ba;
    }
}

MpConsSearch *
mp_cons_search_new (const MpGraph *graph, const MpUsage *records, guint n)
{
  MpConsSearch      *s = g_new0 (MpConsSearch, 1);
  g_autoptr (GArray) all = g_array_new (FALSE, FALSE, sizeof (gint64));
  g_autoptr (GArray) one = g_array_new (FALSE, FALSE, sizeof (gint64));
  g_autofree guint  *bnd = NULL;
  g_autofree guint  *fill = NULL;
  guint              nb = 0, n_pc = 0;

  s->n = n;
  s->size = g_new (gint64, MAX (n, 1));
  s->bytes = g_new (gint64, MAX (n, 1));
  s->align = g_new (gint64, MAX (n, 1));
  s->fixed = g_new (gint64, MAX (n, 1));
  s->width = g_new (gint64, MAX (n, 1));
  s->s0 = g_new (guint, MAX (n, 1));
  s->s1 = g_new (guint, MAX (n, 1));
  s->pc_start = g_new0 (guint, n + 1);
  for (guint i = 0; i < n; i++)
    {
      const MpUsage *r = &records[i];
      gint64         first, last;

      s->size[i] = r->size;
      s->bytes[i] = r->bytes;
      s->align[i] = MAX (r->align, 1);
      s->fixed[i] = r->flags & MP_USAGE_FIXED ? (gint64) r->fixed : UNSET;
      /* in the user's time units, as MiniMalloc's preorders see them */
      mp_usage_times (graph, r, &first, &last);
      s->width[i] = last >= first ? last - first + 1 : 1;
      pieces_of (r, one);
      g_array_append_vals (all, one->data, one->len);
      s->pc_start[i + 1] = s->pc_start[i] + one->len / 4;
    }
  n_pc = s->pc_start[n];
  /* sections: between consecutive distinct boundaries */
  bnd = g_new (guint, 2 * n + 2 * n_pc + 1);
  for (guint i = 0; i < n; i++)
    {
      bnd[nb++] = records[i].first;
      bnd[nb++] = records[i].last + 1;
    }
  for (guint p = 0; p < n_pc; p++)
    {
      bnd[nb++] = (guint) g_array_index (all, gint64, 4 * p);
      bnd[nb++] = (guint) g_array_index (all, gint64, 4 * p + 1) + 1;
    }
  qsort (bnd, nb, sizeof (guint), mp_opt_cmp_u32);
  {
    guint u = 0;

    for (guint i = 0; i < nb; i++)
      if (u == 0 || bnd[i] != bnd[u - 1])
        bnd[u++] = bnd[i];
    nb = u;
  }
  s->n_sec = nb > 1 ? nb - 1 : 1;
  s->pc_s0 = g_new (guint, MAX (n_pc, 1));
  s->pc_s1 = g_new (guint, MAX (n_pc, 1));
  s->pc_lo = g_new (gint64, MAX (n_pc, 1));
  s->pc_hi = g_new (gint64, MAX (n_pc, 1));
  s->init_total = g_new0 (gint64, s->n_sec);
  s->init_cuts = g_new0 (guint, s->n_sec);
  s->mem_start = g_new0 (guint, s->n_sec + 1);
  for (guint i = 0; i < n; i++)
    {
      s->s0[i] = section_of (bnd, nb, records[i].first);
      s->s1[i] = section_of (bnd, nb, (gint64) records[i].last + 1) - 1;
      for (guint q = s->s0[i]; q < s->s1[i]; q++)
        s->init_cuts[q]++;
      for (guint p = s->pc_start[i]; p < s->pc_start[i + 1]; p++)
        {
          const gint64 *pc = &g_array_index (all, gint64, 4 * p);

          s->pc_s0[p] = section_of (bnd, nb, pc[0]);
          s->pc_s1[p] = section_of (bnd, nb, pc[1] + 1) - 1;
          s->pc_lo[p] = pc[2];
          s->pc_hi[p] = pc[3];
          for (guint q = s->pc_s0[p]; q <= s->pc_s1[p]; q++)
            {
              s->init_total[q] += pc[3] - pc[2];
              s->mem_start[q + 1]++;
            }
        }
    }
  for (guint q = 0; q < s->n_sec; q++)
    s->mem_start[q + 1] += s->mem_start[q];
  s->mem = g_new (guint, MAX (s->mem_start[s->n_sec], 1));
  fill = g_memdup2 (s->mem_start, sizeof (guint) * (s->n_sec + 1));
  for (guint i = 0; i < n; i++)
    for (guint p = s->pc_start[i]; p < s->pc_start[i + 1]; p++)
      for (guint q = s->pc_s0[p]; q <= s->pc_s1[p]; q++)
        s->mem[fill[q]++] = i;
  build_overlaps (s, records);

  s->off = g_new (gint64, MAX (n, 1));
  s->minoff = g_new (gint64, MAX (n, 1));
  s->key = g_new (gint64, MAX (n, 1));
  s->sol = g_new (gint64, MAX (n, 1));
  s->rank = g_new (guint, MAX (n, 1));
  s->placed = g_new (guint, MAX (n, 1));
  s->floor = g_new (gint64, s->n_sec);
  s->total = g_new (gint64, s->n_sec);
  s->cuts = g_new (guint, s->n_sec);
  s->witness = g_new (gint64, s->n_sec);
  s->n_witnessed = g_new (gint64, MAX (n, 1));
  return s;
}

void
mp_cons_search_free (MpConsSearch *s)
{
  if (s == NULL)
    return;
  g_free (s->size);
  g_free (s->bytes);
  g_free (s->align);
  g_free (s->fixed);
  g_free (s->width);
  g_free (s->s0);
  g_free (s->s1);
  g_free (s->pc_start);
  g_free (s->pc_s0);
  g_free (s->pc_s1);
  g_free (s->pc_lo);
  g_free (s->pc_hi);
  g_free (s->ov_start);
  g_free (s->ov);
  g_free (s->ov_eff);
  g_free (s->mem_start);
  g_free (s->mem);
  g_free (s->init_total);
  g_free (s->init_cuts);
  g_free (s->off);
  g_free (s->minoff);
  g_free (s->floor);
  g_free (s->total);
  g_free (s->key);
  g_free (s->sol);
  g_free (s->cuts);
  g_free (s->rank);
  g_free (s->witness);
  g_free (s->n_witnessed);
  g_free (s->placed);
  g_free (s->trail);
  g_free (s->pool);
  g_free (s);
}

gboolean
mp_cons_search_exact (const MpConsSearch *s)
{
  return s->exact;
}

guint64
mp_cons_search_nodes (const MpConsSearch *s)
{
  return s->all_nodes;
}

static inline void
trail_set (MpConsSearch *s, gint64 *slot, gint64 value)
{
  mp_opt_trail_set (&s->trail, &s->trail_len, &s->trail_cap, (guint64 *) slot, (guint64) value);
}

static inline void
trail_undo (MpConsSearch *s, gsize mark)
{
  s->trail_len = mp_opt_trail_undo (s->trail, s->trail_len, mark);
}

/* Candidate lists live on one stack, addressed by index (it may move). */
static inline gsize
pool_reserve (MpConsSearch *s, gsize n)
{
  return mp_opt_pool_reserve (&s->pool, &s->pool_len, &s->pool_cap, n);
}

static gint
cmp_preorder (gconstpointer pa, gconstpointer pb, gpointer data)
{
  const MpConsSearch *s = data;
  guint               a = *(const guint *) pa, b = *(const guint *) pb;

  for (const char *c = preorders[s->h]; *c; c++)
    {
      gdouble x = 0, y = 0;

      if (*c == 'W')
        x = s->width[a], y = s->width[b];
      else if (*c == 'A')
        x = (gdouble) s->width[a] * s->size[a], y = (gdouble) s->width[b] * s->size[b];
      else
        x = s->key[a], y = s->key[b];
      if (x != y)
        return x > y ? -1 : 1;
    }
  return (a > b) - (a < b);
}

/* Section q can still be stacked when one of its unplaced members could
 * go so low that all of them fit above it under the capacity; its witness
 * is such a member, looked for again only when it stops being one (the
 * totals only fall, the lowest offsets only rise). */
static gboolean
find_witness (MpConsSearch *s, guint q, gboolean trail)
{
  gint64 limit = s->cap - s->total[q];

  if (s->total[q] == 0)
    return TRUE;
  for (guint k = s->mem_start[q]; k < s->mem_start[q + 1]; k++)
    {
      gint64 b = s->mem[k];

      if (s->off[b] != UNSET || s->minoff[b] > limit)
        continue;
      if (b == s->witness[q])
        return TRUE;
      if (!trail)
        {
          s->witness[q] = b;
          s->n_witnessed[b]++;
          return TRUE;
        }
      if (s->witness[q] != UNSET)
        trail_set (s, &s->n_witnessed[s->witness[q]], s->n_witnessed[s->witness[q]] - 1);
      trail_set (s, &s->n_witnessed[b], s->n_witnessed[b] + 1);
      trail_set (s, &s->witness[q], b);
      return TRUE;
    }
  return FALSE;
}

/* b was placed (or raised): the sections it witnesses look again. */
static gboolean
rewitness (MpConsSearch *s, guint b, gboolean placed)
{
  if (s->n_witnessed[b] == 0)
    return TRUE;
  for (guint p = s->pc_start[b]; p < s->pc_start[b + 1]; p++)
    for (guint q = s->pc_s0[p]; q <= s->pc_s1[p]; q++)
      if (s->witness[q] == b && (placed || s->minoff[b] + s->total[q] > s->cap) &&
          !find_witness (s, q, TRUE))
        return FALSE;
  return TRUE;
}

/* Places c at o: its windows raise the floors, its neighbours' lowest
 * offsets rise above it (aligned). FALSE when a fixed neighbour is pushed
 * past its offset or a section of [lo, hi] can no longer be stacked. Sets
 * *hatless when c has no unplaced neighbour. */
static gboolean
place (MpConsSearch *s, guint c, gint64 o, guint lo, guint hi, gint64 max_total,
       gboolean *hatless)
{
  gboolean ok = TRUE;

  s->off[c] = o;
  s->placed[s->n_placed++] = c;
  for (guint p = s->pc_start[c]; p < s->pc_start[c + 1]; p++)
    for (guint q = s->pc_s0[p]; q <= s->pc_s1[p]; q++)
      {
        if (o + s->pc_hi[p] > s->floor[q])
          trail_set (s, &s->floor[q], o + s->pc_hi[p]);
        trail_set (s, &s->total[q], s->total[q] - (s->pc_hi[p] - s->pc_lo[p]));
      }
  ok = rewitness (s, c, TRUE);
  *hatless = TRUE;
  for (guint k = s->ov_start[c]; k < s->ov_start[c + 1]; k++)
    {
      guint  j = s->ov[k];
      gint64 h = o + s->ov_eff[k];

      if (s->off[j] != UNSET)
        continue;
      *hatless = FALSE;
      if (h <= s->minoff[j])
        continue;
      if (!ok)
        break;
      h = mp_align_up (h, s->align[j]);
      trail_set (s, &s->minoff[j], h);
      ok = (s->fixed[j] == UNSET || h <= s->fixed[j]) && rewitness (s, j, FALSE);
    }
  /* the other sections kept floor and total, which passed before: only o
   * rose; max_total, the node's largest total, settles most at once */
  if (ok && o + max_total > s->cap)
    for (guint q = lo; q <= hi && ok; q++)
      if (s->total[q] > 0 && MAX (s->floor[q], o) + s->total[q] > s->cap)
        ok = FALSE;
  for (guint p = s->pc_start[c]; p < s->pc_start[c + 1] && ok; p++)
    for (guint q = MAX (s->pc_s0[p], lo); q <= MIN (s->pc_s1[p], hi) && ok; q++)
      if (s->total[q] > 0 && s->floor[q] + s->total[q] > s->cap)
        ok = FALSE;
  return ok;
}

static gboolean
out_of_nodes (MpConsSearch *s)
{
  if (s->nodes >= s->limit)
    return TRUE;
  if ((s->nodes & 255) == 1 &&
      (g_get_monotonic_time () > s->deadline || g_cancellable_is_cancelled (s->cancellable)))
    s->stopped = TRUE;
  return s->stopped;
}

static MpOptResult solve_range (MpConsSearch *s, guint lo, guint hi, gsize list, guint len);

/* One node over the unplaced buffers of list that live in sections [lo,
 * hi], tried in order of lowest offset then rank; last_off / last_rank:
 * the previous placement (canonical order). */
static MpOptResult
search (MpConsSearch *s, guint lo, guint hi, gsize list, guint len, gint64 last_off,
        guint last_rank)
{
  gsize       mine;
  guint       n = 0;
  gint64      min_height = G_MAXINT64, max_total = 0;
  MpOptResult result = MP_OPT_INFEASIBLE;

  s->nodes++;
  if (out_of_nodes (s))
    return s->stopped ? MP_OPT_STOPPED : MP_OPT_LIMIT;
  mine = pool_reserve (s, len);
  for (guint i = 0; i < len; i++)
    {
      guint b = s->pool[list + i], k = n;

      if (s->off[b] != UNSET || s->s1[b] < lo || s->s0[b] > hi)
        continue;
      while (k > 0)
        {
          guint a = s->pool[mine + k - 1];

          if (s->minoff[a] < s->minoff[b] ||
              (s->minoff[a] == s->minoff[b] && s->rank[a] < s->rank[b]))
            break;
          s->pool[mine + k] = a;
          k--;
        }
      s->pool[mine + k] = b;
      n++;
      min_height = MIN (min_height, s->minoff[b] + s->size[b]);
    }
  s->pool_len = mine + n;
  for (guint q = lo; q <= hi; q++)
    max_total = MAX (max_total, s->total[q]);
  if (n == 0)
    {
      for (guint i = 0; i < s->n_placed; i++)
        s->sol[s->placed[i]] = s->off[s->placed[i]];
      s->pool_len = mine;
      return MP_OPT_FOUND;
    }
  for (guint i = 0; i < n && result == MP_OPT_INFEASIBLE; i++)
    {
      guint    c = s->pool[mine + i];
      gint64   o = s->minoff[c];
      gsize    mark = s->trail_len;
      gboolean hatless = FALSE, split = FALSE;

      if (o < last_off || (o == last_off && s->rank[c] < last_rank))
        continue;
      /* dominance: some buffer fits wholly below o, where nothing else goes */
      if (o >= min_height)
        break;
      if (o + s->bytes[c] > s->cap || (s->fixed[c] != UNSET && o != s->fixed[c]))
        continue;
      if (place (s, c, o, lo, hi, max_total, &hatless))
        {
          for (guint q = s->s0[c]; q < s->s1[c]; q++)
            if (--s->cuts[q] == 0)
              split = TRUE;
          result = split ? solve_range (s, lo, hi, mine, n)
                         : search (s, lo, hi, mine, n, o, s->rank[c]);
          for (guint q = s->s0[c]; q < s->s1[c]; q++)
            s->cuts[q]++;
        }
      trail_undo (s, mark);
      s->off[c] = UNSET;
      s->n_placed--;
      /* c meets no unplaced buffer: placing it elsewhere changes nothing */
      if (hatless)
        break;
    }
  s->pool_len = mine;
  return result;
}

/* A subproblem ranks its buffers afresh by its preorder with today's
 * section totals (as MiniMalloc does); the old ranks come back after. */
static gsize
rerank (MpConsSearch *s, guint lo, guint hi, gsize list, guint len, guint *n_saved)
{
  gsize at = pool_reserve (s, len);
  guint k = 0;

  for (guint i = 0; i < len; i++)
    {
      guint b = s->pool[list + i];

      if (s->off[b] != UNSET || s->s1[b] < lo || s->s0[b] > hi)
        continue;
      s->key[b] = 0;
      for (guint p = s->pc_start[b]; p < s->pc_start[b + 1]; p++)
        for (guint q = s->pc_s0[p]; q <= s->pc_s1[p]; q++)
          s->key[b] = MAX (s->key[b], s->total[q]);
      s->pool[at + k++] = b;
    }
  g_qsort_with_data (s->pool + at, k, sizeof (guint), cmp_preorder, s);
  pool_reserve (s, k);
  for (guint r = 0; r < k; r++)
    {
      guint b = s->pool[at + r];

      s->pool[at + k + r] = s->rank[b];
      s->rank[b] = r;
    }
  *n_saved = k;
  return at;
}

/* Splits [lo, hi] where no unplaced buffer crosses a section boundary and
 * solves the pieces independently: each must fit. */
static MpOptResult
solve_range (MpConsSearch *s, guint lo, guint hi, gsize list, guint len)
{
  guint start = lo;

  for (guint q = lo; q <= hi; q++)
    if (q == hi || s->cuts[q] == 0)
      {
        guint       k;
        gsize       saved = rerank (s, start, q, list, len, &k);
        MpOptResult r = search (s, start, q, list, len, 0, 0);

        for (guint i = 0; i < k; i++)
          s->rank[s->pool[saved + i]] = s->pool[saved + k + i];
        s->pool_len = saved;
        if (r != MP_OPT_FOUND)
          return r;
        start = q + 1;
      }
  return MP_OPT_FOUND;
}

/* One preorder with a node limit. */
static MpOptResult
fit_once (MpConsSearch *s, guint h, guint64 limit)
{
  gsize root;

  s->h = h;
  s->nodes = 0;
  s->limit = limit;
  for (guint i = 0; i < s->n; i++)
    {
      s->off[i] = UNSET;
      s->minoff[i] = s->fixed[i] != UNSET ? s->fixed[i] : 0;
      s->rank[i] = 0;
      s->n_witnessed[i] = 0;
    }
  memcpy (s->total, s->init_total, sizeof (gint64) * s->n_sec);
  memcpy (s->cuts, s->init_cuts, sizeof (guint) * s->n_sec);
  for (guint q = 0; q < s->n_sec; q++)
    {
      s->floor[q] = 0;
      s->witness[q] = UNSET;
      if (!find_witness (s, q, FALSE))
        return MP_OPT_INFEASIBLE;
    }
  s->trail_len = 0;
  s->n_placed = 0;
  s->pool_len = 0;
  root = pool_reserve (s, s->n);
  for (guint i = 0; i < s->n; i++)
    s->pool[root + i] = i;
  return solve_range (s, 0, s->n_sec - 1, root, s->n);
}

MpOptResult
mp_cons_search_fit (MpConsSearch *s, guint64 capacity, guint64 max_nodes, gint64 deadline_us,
                    GCancellable *cancellable, guint64 *offsets)
{
  MpOptResult result = MP_OPT_LIMIT;
  guint64     limit = MAX (s->n, 1), start = s->all_nodes;

  s->cap = (gint64) MIN (capacity, (guint64) G_MAXINT64 / 4);
  s->deadline = deadline_us;
  s->cancellable = cancellable;
  s->stopped = FALSE;
  for (guint i = 0; i < s->n; i++)
    if (s->bytes[i] > s->cap || (s->fixed[i] != UNSET && s->fixed[i] + s->bytes[i] > s->cap))
      return MP_OPT_INFEASIBLE;
  /* MiniMalloc's round robin: each preorder in turn, twice the nodes each
   * round, so an easy order answers quickly */
  while (result == MP_OPT_LIMIT && (max_nodes == 0 || s->all_nodes - start < max_nodes))
    {
      limit = limit < G_MAXUINT64 / 2 ? 2 * limit : G_MAXUINT64;
      for (guint h = 0; h < N_PREORDERS && result == MP_OPT_LIMIT; h++)
        {
          result = fit_once (s, h, limit);
          s->all_nodes += s->nodes;
        }
    }
  if (result == MP_OPT_FOUND)
    for (guint i = 0; i < s->n; i++)
      offsets[i] = (guint64) s->sol[i];
  return result;
}
