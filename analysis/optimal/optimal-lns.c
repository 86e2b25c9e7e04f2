/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "memplan-analysis"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "optimal-lns.h"
#include "optimal-private.h"
#include "time-index.h"

/* Buffers that overlap a lifetime are found without quadratic lists: the
 * short-lived ones by binary search in the order of first step (none
 * starts more than SHORT_SPAN steps before the lifetime), the long-lived
 * ones, few in real and random workloads, by a scan. */
#define SHORT_SPAN   64
/* Moves lift out this many buffers, twice as many after as many failures
 * in a row, up to the largest: a plateau calls for deeper rearrangements. */
#define MOVE_BUFFERS     48
#define MAX_MOVE_BUFFERS 768

typedef struct
{
  const MpOptBuffer *b;
  guint              n;
  guint64           *off;
  guint             *by_first;  /* short-lived buffers by first step */
  guint             *firsts;    /* their first steps, sorted */
  guint              n_short;
  guint             *longs;     /* long-lived buffers */
  guint              n_long;
  guint8            *out;       /* lifted out by the current move */
  GArray            *near;      /* scratch: overlapping buffer indices */
  GArray            *spans;     /* scratch: busy [start, end) pairs of long-lived */
  GArray            *shorts;    /* scratch: short-lived buffer indices */
  guint64            arena;
  guint              at_top;    /* buffers that end at the arena */
  guint              move_size; /* buffers a move lifts out, at most */
} Lns;

static gboolean
overlaps (const MpOptBuffer *a, const MpOptBuffer *b)
{
  return a->first <= b->last && b->first <= a->last;
}

/* Every other buffer whose lifetime overlaps i's, into lns->near. */
static void
collect_near (Lns *lns, guint i)
{
  const MpOptBuffer *bi = &lns->b[i];
  guint              from = mp_opt_count_below (lns->firsts, lns->n_short,
                                                bi->first > SHORT_SPAN ? bi->first - SHORT_SPAN
                                                                       : 0);

  g_array_set_size (lns->near, 0);
  for (guint k = from; k < lns->n_short && lns->firsts[k] <= bi->last; k++)
    {
      guint j = lns->by_first[k];

      if (j != i && overlaps (bi, &lns->b[j]))
        g_array_append_val (lns->near, j);
    }
  for (guint k = 0; k < lns->n_long; k++)
    {
      guint j = lns->longs[k];

      if (j != i && overlaps (bi, &lns->b[j]))
        g_array_append_val (lns->near, j);
    }
}

static int
cmp_span (const void *pa, const void *pb)
{
  const guint64 *a = pa, *b = pb;

  return (a[0] > b[0]) - (a[0] < b[0]);
}

/* The lowest offset where i's slot is free of the placed buffers that
 * overlap it in time. The long-lived ones are few and decide most of it:
 * their spans are sorted and walked; the short-lived ones, many along a
 * long lifetime, are only checked against the offset found, which rises
 * past any that collides until none does. */
static guint64
first_fit (Lns *lns, guint i)
{
  guint64  size = lns->b[i].size, o = 0;
  gboolean moved = TRUE;

  collect_near (lns, i);
  g_array_set_size (lns->spans, 0);
  g_array_set_size (lns->shorts, 0);
  for (guint k = 0; k < lns->near->len; k++)
    {
      guint   j = g_array_index (lns->near, guint, k);
      guint64 span[2];

      if (lns->out[j])
        continue;
      if (lns->b[j].last - lns->b[j].first < SHORT_SPAN)
        {
          g_array_append_val (lns->shorts, j);
          continue;
        }
      span[0] = lns->off[j];
      span[1] = lns->off[j] + lns->b[j].size;
      g_array_append_vals (lns->spans, span, 2);
    }
  /* qsort must not see the NULL data of an empty array */
  if (lns->spans->len)
    qsort (lns->spans->data, lns->spans->len / 2, 2 * sizeof (guint64), cmp_span);
  while (moved)
    {
      moved = FALSE;
      for (guint k = 0; k < lns->spans->len; k += 2)
        {
          guint64 start = g_array_index (lns->spans, guint64, k);
          guint64 end = g_array_index (lns->spans, guint64, k + 1);

          if (start >= o + size)
            break;
          o = MAX (o, end);
        }
      for (guint k = 0; k < lns->shorts->len; k++)
        {
          guint j = g_array_index (lns->shorts, guint, k);

          if (lns->off[j] < o + size && o < lns->off[j] + lns->b[j].size)
            {
              o = lns->off[j] + lns->b[j].size;
              moved = TRUE;
            }
        }
    }
  return o;
}

static void
measure (Lns *lns)
{
  lns->arena = 0;
  lns->at_top = 0;
  for (guint i = 0; i < lns->n; i++)
    {
      guint64 top = lns->off[i] + lns->b[i].bytes;

      if (top > lns->arena)
        {
          lns->arena = top;
          lns->at_top = 0;
        }
      lns->at_top += top == lns->arena;
    }
}

typedef struct
{
  const MpOptBuffer *b;
  const guint64     *off;
  const guint32     *noise;
} MoveOrder;

static gint
cmp_move (gconstpointer pa, gconstpointer pb, gpointer data)
{
  const MoveOrder *m = data;
  guint            a = *(const guint *) pa, b = *(const guint *) pb;
  guint64          ka = m->b[a].size + (m->b[a].size * m->noise[a] >> 34);
  guint64          kb = m->b[b].size + (m->b[b].size * m->noise[b] >> 34);

  if (ka != kb)
    return ka > kb ? -1 : 1;
  return (a > b) - (a < b);
}

/* One move around buffer v (on top of the arena): lift out the highest
 * buffers that overlap v in time, v among them, and put them back. Kept if
 * it lowers the number of buffers at the arena without passing it. */
static gboolean
move (Lns *lns, guint v, GRand *rand, guint *set, guint *ids, guint64 *saved, guint32 *noise)
{
  guint     m = 0, top_before = 0, top_after = 0;
  gboolean  ok = TRUE;
  MoveOrder order = { lns->b, lns->off, noise };
  gboolean  with_long = g_rand_boolean (rand);

  collect_near (lns, v);
  set[m++] = v;
  /* the near buffers that end highest (kept sorted in set by insertion:
   * the list can be long, the set is short), each with some chance left
   * out so that moves around one buffer differ; every other move leaves
   * the long-lived ones in place, cheaper and enough where the short-lived
   * ones make the arena */
  for (guint k = 0; k < lns->near->len; k++)
    {
      guint   j = g_array_index (lns->near, guint, k);
      guint64 top = lns->off[j] + lns->b[j].size;
      guint   at;

      if (g_rand_int_range (rand, 0, 4) == 0 ||
          (!with_long && lns->b[j].last - lns->b[j].first >= SHORT_SPAN))
        continue;
      if (m == lns->move_size && top <= lns->off[set[m - 1]] + lns->b[set[m - 1]].size)
        continue;
      at = m < lns->move_size ? m++ : m - 1;
      while (at > 1 && lns->off[set[at - 1]] + lns->b[set[at - 1]].size < top)
        {
          set[at] = set[at - 1];
          at--;
        }
      set[at] = j;
    }
  for (guint k = 0; k < m; k++)
    {
      guint j = set[k];

      ids[k] = j;
      saved[k] = lns->off[j];
      lns->out[j] = TRUE;
      top_before += lns->off[j] + lns->b[j].bytes == lns->arena;
      noise[j] = g_rand_int (rand);
    }
  g_qsort_with_data (set, m, sizeof (guint), cmp_move, &order);
  for (guint k = 0; k < m && ok; k++)
    {
      guint j = set[k];

      lns->off[j] = first_fit (lns, j);
      lns->out[j] = FALSE;
      ok = lns->off[j] + lns->b[j].bytes <= lns->arena;
      top_after += lns->off[j] + lns->b[j].bytes == lns->arena;
    }
  ok = ok && top_after < top_before;
  if (!ok)
    {
      for (guint k = 0; k < m; k++)
        {
          lns->off[ids[k]] = saved[k];
          lns->out[ids[k]] = FALSE;
        }
      return FALSE;
    }
  lns->at_top -= top_before - top_after;
  return TRUE;
}

guint64
mp_opt_lns (const MpOptBuffer *buffers, guint n, guint64 *offsets, guint64 floor, guint32 seed,
            gint64 deadline_us, GCancellable *cancellable, MpOptImproved improved,
            gpointer data)
{
  Lns                 lns = { buffers, n, offsets };
  g_autoptr (GRand)   rand = g_rand_new_with_seed (seed);
  g_autofree guint   *set = g_new (guint, MAX_MOVE_BUFFERS);
  g_autofree guint64 *saved = g_new (guint64, MAX_MOVE_BUFFERS);
  g_autofree guint   *saved_ids = g_new (guint, MAX_MOVE_BUFFERS);
  guint               failures = 0;
  g_autofree guint32 *noise = g_new0 (guint32, MAX (n, 1));
  g_autofree guint   *tops = g_new (guint, MAX (n, 1));
  g_autofree guint64 *keys = g_new (guint64, MAX (n, 1));
  guint               n_tops = 0;

  if (n == 0)
    return 0;
  lns.out = g_new0 (guint8, n);
  lns.near = g_array_new (FALSE, FALSE, sizeof (guint));
  lns.spans = g_array_new (FALSE, FALSE, sizeof (guint64));
  lns.move_size = MOVE_BUFFERS;
  lns.shorts = g_array_new (FALSE, FALSE, sizeof (guint));
  lns.by_first = g_new (guint, n);
  lns.firsts = g_new (guint, n);
  lns.longs = g_new (guint, n);
  for (guint i = 0; i < n; i++)
    if (buffers[i].last - buffers[i].first >= SHORT_SPAN)
      lns.longs[lns.n_long++] = i;
    else
      keys[lns.n_short++] = ((guint64) buffers[i].first << 32) | i;
  qsort (keys, lns.n_short, sizeof (guint64), mp_opt_cmp_u64);
  for (guint k = 0; k < lns.n_short; k++)
    {
      lns.by_first[k] = keys[k] & G_MAXUINT32;
      lns.firsts[k] = keys[k] >> 32;
    }
  measure (&lns);

  while (lns.arena > floor)
    {
      guint v;

      /* a move around a long-lived buffer can take milliseconds: look
       * every time */
      if (g_get_monotonic_time () > deadline_us || g_cancellable_is_cancelled (cancellable))
        break;
      if (n_tops == 0)
        for (guint i = 0; i < n; i++)
          if (offsets[i] + buffers[i].bytes == lns.arena)
            tops[n_tops++] = i;
      v = tops[g_rand_int_range (rand, 0, n_tops)];
      if (offsets[v] + buffers[v].bytes != lns.arena)
        {
          n_tops = 0; /* moved down by an earlier move: look again */
          continue;
        }
      if (!move (&lns, v, rand, set, saved_ids, saved, noise))
        {
          if (++failures == lns.move_size && lns.move_size < MAX_MOVE_BUFFERS)
            {
              lns.move_size *= 2;
              failures = 0;
            }
          continue;
        }
      failures = 0;
      lns.move_size = MOVE_BUFFERS;
      n_tops = 0;
      if (lns.at_top == 0)
        {
          measure (&lns);
          if (improved)
            improved (offsets, lns.arena, data);
        }
    }
  g_array_unref (lns.near);
  g_array_unref (lns.spans);
  g_array_unref (lns.shorts);
  g_free (lns.out);
  g_free (lns.by_first);
  g_free (lns.firsts);
  g_free (lns.longs);
  return lns.arena;
}

/* The order search. Keys are size times lifetime to these powers: area
 * first (the best on random workloads), then the square root (the best on
 * long-lived ones), then two more. */
static const gdouble reorder_powers[] = { 1.0, 0.5, 1.5, 0.75 };
/* Squeaky wheel: the buffers that end within this share of a pass's arena
 * have their key raised by this factor for the next pass. Each pass starts
 * from the last one's keys, better or not: going back to the best keys
 * after a worse pass only raises the same buffers again. */
#define SQUEAK_BAND    0.005
#define SQUEAK_RAISE   1.5
/* Passes in a row without a better plan before the search gives up (the
 * large-neighbourhood search gets the rest of the time). */
#define REORDER_STALL  32
/* Placements between looks at the clock: a pass over long lifetimes can
 * take seconds. */
#define REORDER_STRIDE 1024

static gint
cmp_key_desc (gconstpointer pa, gconstpointer pb, gpointer data)
{
  const gdouble *keys = data;
  guint          a = *(const guint *) pa, b = *(const guint *) pb;

  if (keys[a] != keys[b])
    return keys[a] > keys[b] ? -1 : 1;
  return (a > b) - (a < b);
}

/* Every buffer first-fit in order of descending key, into trial. Returns
 * the arena, or G_MAXUINT64 when stopped before the end. */
static guint64
first_fit_pass (const MpOptBuffer *buffers, guint n, guint n_steps, const gdouble *keys,
                guint *order, guint64 *trial, gint64 deadline_us, GCancellable *cancellable)
{
  g_autoptr (MpTimeIndex) index = NULL;
  guint64 arena = 0;
  gdouble lived = 0;

  for (guint i = 0; i < n; i++)
    lived += (gdouble) buffers[i].last - buffers[i].first + 1;
  index = mp_time_index_new (MAX (n_steps, 1), n ? lived / n : 1);

  for (guint i = 0; i < n; i++)
    order[i] = i;
  g_qsort_with_data (order, n, sizeof (guint), cmp_key_desc, (gpointer) keys);
  for (guint k = 0; k < n; k++)
    {
      const MpOptBuffer *b = &buffers[order[k]];
      guint64            offset;

      if (k % REORDER_STRIDE == 0 &&
          (g_get_monotonic_time () > deadline_us || g_cancellable_is_cancelled (cancellable)))
        return G_MAXUINT64;
      offset = mp_time_index_first_fit (index, b->first, b->last, b->size);
      trial[order[k]] = offset;
      mp_time_index_insert (index, b->first, b->last, offset, b->size);
      arena = MAX (arena, offset + b->bytes);
    }
  return arena;
}

static void
power_keys (const MpOptBuffer *buffers, guint n, gdouble power, gdouble *keys)
{
  for (guint i = 0; i < n; i++)
    keys[i] = (gdouble) buffers[i].size * pow (buffers[i].last - buffers[i].first + 1.0, power);
}

/* Raises the keys of the buffers near the top of plan (arena). */
static void
squeak (const MpOptBuffer *buffers, guint n, const guint64 *plan, guint64 arena, gdouble *keys)
{
  guint64 band = arena - (guint64) (arena * SQUEAK_BAND);
  gdouble most = 0;

  for (guint i = 0; i < n; i++)
    {
      if (plan[i] + buffers[i].bytes > band)
        keys[i] *= SQUEAK_RAISE;
      most = MAX (most, keys[i]);
    }
  /* raised thousands of times on small instances: keep them finite */
  if (most > 1e200)
    for (guint i = 0; i < n; i++)
      keys[i] *= 1e-100;
}

guint64
mp_opt_reorder (const MpOptBuffer *buffers, guint n, guint64 *offsets, guint64 floor,
                guint max_passes, gint64 deadline_us, GCancellable *cancellable,
                MpOptImproved improved, gpointer data)
{
  g_autofree gdouble *keys = g_new (gdouble, MAX (n, 1));
  g_autofree guint   *order = g_new (guint, MAX (n, 1));
  g_autofree guint64 *trial = g_new (guint64, MAX (n, 1));
  guint               n_steps = 0, n_powers = G_N_ELEMENTS (reorder_powers), best_power = 0;
  guint               stall = 0;
  guint64             arena = 0;

  for (guint i = 0; i < n; i++)
    {
      n_steps = MAX (n_steps, buffers[i].last + 1);
      arena = MAX (arena, offsets[i] + buffers[i].bytes);
    }
  for (guint p = 0; arena > floor && (max_passes == 0 || p < max_passes) &&
                    stall < REORDER_STALL; p++)
    {
      guint64 got;

      if (p < n_powers)
        power_keys (buffers, n, reorder_powers[p], keys);
      else if (p == n_powers)
        {
          /* the squeaky wheel starts from the best power (area when none
           * beat the incumbent) and the best plan */
          power_keys (buffers, n, reorder_powers[best_power], keys);
          squeak (buffers, n, offsets, arena, keys);
        }
      got = first_fit_pass (buffers, n, n_steps, keys, order, trial, deadline_us, cancellable);
      if (got == G_MAXUINT64)
        break;
      stall++;
      if (got < arena)
        {
          arena = got;
          memcpy (offsets, trial, sizeof (guint64) * n);
          best_power = p < n_powers ? p : best_power;
          stall = 0;
          if (improved)
            improved (offsets, arena, data);
        }
      if (p >= n_powers)
        squeak (buffers, n, trial, got, keys);
    }
  return arena;
}
