/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "memplan-analysis"

#include <string.h>

#include "optimal-ceiling.h"
#include "optimal-decompose.h"
#include "time-index.h"

/* Rounds of pinning under one ceiling before it counts as missed. */
#define CEILING_ROUNDS 12
/* Passes of the order search per round, when no clock is used. */
#define CEILING_PASSES 64

typedef struct
{
  const MpOptBuffer *buffers;
  guint              n_steps;
  gdouble            mean_life;
  guint             *longs;
  guint              n_long;
  guint             *shorts; /* largest first */
  guint              n_short;
  MpOptBuffer       *sub;    /* the long buffers */
  guint64           *sub_off; /* their offsets in the plan */
  guint              max_passes;
  gint64             deadline_us;
  GCancellable      *cancellable;
  guint64            join_above;
} Ceiling;

/* Largest first, then by index. */
static gint
cmp_size_desc (gconstpointer pa, gconstpointer pb, gpointer data)
{
  const MpOptBuffer *b = data;
  guint              x = *(const guint *) pa, y = *(const guint *) pb;

  if (b[x].size != b[y].size)
    return b[x].size > b[y].size ? -1 : 1;
  return (x > y) - (x < y);
}

static gboolean
stopped (const Ceiling *c)
{
  return c->max_passes == 0 && (g_get_monotonic_time () > c->deadline_us ||
                                g_cancellable_is_cancelled (c->cancellable));
}

/* Plans every buffer under cap into trial; FALSE when missed. */
static gboolean
attempt (Ceiling *c, guint64 cap, guint64 *trial)
{
  const MpOptBuffer      *buffers = c->buffers;
  g_autofree guint64     *long_off = g_memdup2 (c->sub_off, sizeof (guint64) * c->n_long);
  g_autofree gint64      *pin_of = g_new (gint64, c->n_short); /* pin index, or -1 */
  g_autoptr (GArray)      pins = g_array_new (FALSE, FALSE, sizeof (MpOptBuffer));
  g_autoptr (GArray)      pin_off = g_array_new (FALSE, FALSE, sizeof (guint64));
  g_autoptr (MpTimeIndex) hung = mp_time_index_new (c->n_steps, c->mean_life);

  for (guint k = 0; k < c->n_short; k++)
    pin_of[k] = -1;
  for (guint round = 0; round < CEILING_ROUNDS && !stopped (c); round++)
    {
      MpOptFixed              fixed = { (const MpOptBuffer *) pins->data,
                                        (const guint64 *) pin_off->data, pins->len };
      g_autoptr (MpTimeIndex) index = NULL;
      guint                   above = 0;

      guint64 longs_top;

      longs_top = mp_opt_reorder_fixed (c->sub, c->n_long, long_off, &fixed, cap, c->max_passes,
                                        c->max_passes ? G_MAXINT64 : c->deadline_us,
                                        c->cancellable, NULL, NULL);
      if (longs_top > cap)
        {
          g_debug ("ceiling %" G_GUINT64_FORMAT ": round %u, long buffers reach %" G_GUINT64_FORMAT,
                   cap, round, longs_top);
          return FALSE;
        }
      index = mp_time_index_new (c->n_steps, c->mean_life);
      for (guint k = 0; k < c->n_long; k++)
        {
          trial[c->longs[k]] = long_off[k];
          mp_time_index_insert (index, c->sub[k].first, c->sub[k].last, long_off[k],
                                c->sub[k].size);
        }
      for (guint k = 0; k < pins->len; k++)
        {
          const MpOptBuffer *b = &g_array_index (pins, MpOptBuffer, k);

          mp_time_index_insert (index, b->first, b->last, g_array_index (pin_off, guint64, k),
                                b->size);
        }
      for (guint k = 0; k < c->n_short; k++)
        {
          const MpOptBuffer *b = &buffers[c->shorts[k]];
          guint64            o, m;

          if (pin_of[k] >= 0)
            {
              trial[c->shorts[k]] = g_array_index (pin_off, guint64, pin_of[k]);
              continue;
            }
          o = mp_time_index_best_fit (index, b->first, b->last, b->size);
          mp_time_index_insert (index, b->first, b->last, o, b->size);
          trial[c->shorts[k]] = o;
          if (o + b->bytes <= cap)
            continue;
          /* hung as high under the ceiling as the other pins let it */
          m = mp_time_index_first_fit (hung, b->first, b->last, b->size);
          if (m + b->size > cap)
            return FALSE;
          mp_time_index_insert (hung, b->first, b->last, m, b->size);
          pin_of[k] = pins->len;
          g_array_append_val (pins, *b);
          o = cap - m - b->size;
          g_array_append_val (pin_off, o);
          above++;
        }
      g_debug ("ceiling %" G_GUINT64_FORMAT ": round %u, %u short buffers pinned, %u more",
               cap, round, pins->len - above, above);
      if (above == 0)
        return TRUE;
    }
  return FALSE;
}

/* The short buffers that ended above the long ones join them in the order
 * search, which then leaves room for them where they meet in time: its
 * objective is the top of the long ones plus theirs at each step. The rest
 * go best-fit around them; those above in turn join. Returns the lowest
 * arena reached, its plan in best. */
static guint64
join (Ceiling *c, const guint64 *offsets, guint64 arena, guint64 *best)
{
  const MpOptBuffer  *buffers = c->buffers;
  g_autofree guint64 *plan = g_memdup2 (offsets, sizeof (guint64) * (c->n_long + c->n_short));
  g_autofree gboolean *joined = g_new0 (gboolean, c->n_short);
  g_autoptr (GArray)  members = g_array_new (FALSE, FALSE, sizeof (guint));
  g_autoptr (GArray)  sub = g_array_new (FALSE, FALSE, sizeof (MpOptBuffer));
  g_autoptr (GArray)  sub_off = g_array_new (FALSE, FALSE, sizeof (guint64));
  guint               n = c->n_long + c->n_short;
  MpOptFixed          none = { NULL, NULL, 0 };

  g_array_append_vals (members, c->longs, c->n_long);
  for (guint round = 0; round < CEILING_ROUNDS && !stopped (c); round++)
    {
      g_autoptr (MpTimeIndex) index = mp_time_index_new (c->n_steps, c->mean_life);
      guint64                 top = 0, got = 0;
      guint                   above = 0;
      gint64                  now = g_get_monotonic_time ();

      g_array_set_size (sub, members->len);
      g_array_set_size (sub_off, members->len);
      for (guint k = 0; k < members->len; k++)
        {
          guint i = g_array_index (members, guint, k);

          g_array_index (sub, MpOptBuffer, k) = buffers[i];
          g_array_index (sub_off, guint64, k) = plan[i];
        }
      /* from the plan's order, so the squeaky wheel starts from it */
      top = mp_opt_reorder_fixed ((MpOptBuffer *) sub->data, sub->len, (guint64 *) sub_off->data,
                                  &none, mp_opt_live_peak ((MpOptBuffer *) sub->data, sub->len,
                                                           c->n_steps),
                                  c->max_passes, c->max_passes ? G_MAXINT64 : c->deadline_us,
                                  c->cancellable, NULL, NULL);
      if (top == G_MAXUINT64)
        break;
      if (round > 0)
        top = c->max_passes
                ? mp_opt_lns_rounds ((MpOptBuffer *) sub->data, sub->len,
                                     (guint64 *) sub_off->data, 0, round, c->max_passes, 1,
                                     G_MAXINT64, c->cancellable, NULL, NULL)
                : mp_opt_lns ((MpOptBuffer *) sub->data, sub->len, (guint64 *) sub_off->data, 0,
                              round, now + (c->deadline_us - now) / 4, c->cancellable, NULL,
                              NULL);
      for (guint k = 0; k < members->len; k++)
        {
          const MpOptBuffer *b = &g_array_index (sub, MpOptBuffer, k);
          guint64            o = g_array_index (sub_off, guint64, k);

          plan[g_array_index (members, guint, k)] = o;
          mp_time_index_insert (index, b->first, b->last, o, b->size);
        }
      got = top;
      for (guint k = 0; k < c->n_short; k++)
        {
          const MpOptBuffer *b = &buffers[c->shorts[k]];
          guint64            o;

          if (joined[k])
            continue;
          o = mp_time_index_best_fit (index, b->first, b->last, b->size);
          mp_time_index_insert (index, b->first, b->last, o, b->size);
          plan[c->shorts[k]] = o;
          got = MAX (got, o + b->bytes);
          if (o + b->bytes > MAX (top, c->join_above))
            {
              joined[k] = TRUE;
              g_array_append_val (members, c->shorts[k]);
              above++;
            }
        }
      g_debug ("joined: peak of live bytes %" G_GUINT64_FORMAT,
               mp_opt_live_peak ((MpOptBuffer *) sub->data, sub->len, c->n_steps));
      g_debug ("joined: round %u, %u buffers in the order search reach %" G_GUINT64_FORMAT
               ", all %" G_GUINT64_FORMAT ", %u more join", round, sub->len, top, got, above);
      if (got < arena)
        {
          arena = got;
          memcpy (best, plan, sizeof (guint64) * n);
        }
      if (above == 0)
        break;
    }
  return arena;
}

/* The largest power of two (up to 2^20) that divides every size: ceilings
 * that are multiples of it hang the pins at aligned offsets. */
static guint64
size_grain (const MpOptBuffer *buffers, guint n)
{
  guint64 grain = 1 << 20;

  for (guint i = 0; i < n; i++)
    while (buffers[i].size % grain)
      grain >>= 1;
  return MAX (grain, 1);
}

guint64
mp_opt_ceiling (const MpOptBuffer *buffers, guint n, guint64 *offsets, guint max_tries,
                gint64 deadline_us, GCancellable *cancellable, MpOptImproved improved,
                gpointer data)
{
  g_autofree guint       *longs = g_new (guint, MAX (n, 1));
  g_autofree guint       *shorts = g_new (guint, MAX (n, 1));
  g_autofree MpOptBuffer *sub = NULL;
  g_autofree guint64     *sub_off = NULL;
  g_autofree guint64     *trial = g_new (guint64, MAX (n, 1));
  Ceiling                 c = { buffers };
  guint64                 arena = 0, lo, hi, grain = size_grain (buffers, n);
  gdouble                 lived = 0;

  for (guint i = 0; i < n; i++)
    {
      arena = MAX (arena, offsets[i] + buffers[i].bytes);
      c.n_steps = MAX (c.n_steps, buffers[i].last + 1);
      lived += (gdouble) buffers[i].last - buffers[i].first + 1;
      if (buffers[i].last - buffers[i].first + 1 >= MP_OPT_DECOMPOSE_LONG)
        longs[c.n_long++] = i;
      else
        shorts[c.n_short++] = i;
    }
  if (c.n_long == 0 || c.n_short == 0)
    return arena;
  sub = g_new (MpOptBuffer, c.n_long);
  sub_off = g_new (guint64, c.n_long);
  for (guint k = 0; k < c.n_long; k++)
    {
      sub[k] = buffers[longs[k]];
      sub_off[k] = offsets[longs[k]];
    }
  g_qsort_with_data (shorts, c.n_short, sizeof (guint), cmp_size_desc, (gpointer) buffers);
  c.mean_life = lived / n;
  c.longs = longs;
  c.shorts = shorts;
  c.sub = sub;
  c.sub_off = sub_off;
  c.max_passes = max_tries ? CEILING_PASSES : 0;
  c.cancellable = cancellable;

  c.deadline_us = deadline_us;
  {
    guint64 lb = mp_opt_live_peak (buffers, n, c.n_steps);

    c.join_above = lb + (arena - lb) * (g_getenv ("MP_JOIN") ? g_ascii_strtod (g_getenv ("MP_JOIN"), NULL) : 0.75);
  }
  {
    guint64 got = join (&c, offsets, arena, trial);

    if (got < arena)
      {
        arena = got;
        memcpy (offsets, trial, sizeof (guint64) * n);
        if (improved)
          improved (offsets, arena, data);
      }
  }
  if (g_getenv ("MP_NO_PIN"))
    return arena;
  /* ceilings are multiples of grain in [lo, hi] */
  lo = (mp_opt_live_peak (buffers, n, c.n_steps) + grain - 1) / grain;
  hi = arena / grain - (arena % grain == 0);
  for (guint tries = 0; lo <= hi && (max_tries == 0 || tries < max_tries); tries++)
    {
      guint64 mid = lo + (hi - lo) / 2, got = 0;
      gint64  now = g_get_monotonic_time ();

      if (max_tries == 0 && (now > deadline_us || g_cancellable_is_cancelled (cancellable)))
        break;
      /* a third of what is left, so a miss leaves time for higher ceilings */
      c.deadline_us = now + (deadline_us - now) / 3;
      if (!attempt (&c, mid * grain, trial))
        {
          lo = mid + 1;
          continue;
        }
      for (guint i = 0; i < n; i++)
        got = MAX (got, trial[i] + buffers[i].bytes);
      g_debug ("ceiling %" G_GUINT64_FORMAT " reached: arena %" G_GUINT64_FORMAT " (was %"
               G_GUINT64_FORMAT ")", mid * grain, got, arena);
      if (mid == 0)
        break;
      hi = mid - 1;
      if (got < arena)
        {
          arena = got;
          memcpy (offsets, trial, sizeof (guint64) * n);
          if (improved)
            improved (offsets, arena, data);
        }
    }
  return arena;
}
