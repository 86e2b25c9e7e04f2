/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "memplan-analysis"

#include <stdlib.h>

#include "optimal-bounds.h"
#include "optimal-private.h"

const char *
mp_opt_bound_name (MpOptBound bound)
{
  static const char *names[MP_OPT_N_BOUNDS] = {
    [MP_OPT_BOUND_LIVE] = "peak of live bytes",
    [MP_OPT_BOUND_PADDING] = "padding at the peak (its top buffer ends with its bytes)",
    [MP_OPT_BOUND_WINDOW] = "exact search of the buffers live around a peak",
    [MP_OPT_BOUND_REFUTED] = "search's refutation of every smaller capacity",
  };

  g_return_val_if_fail (bound < MP_OPT_N_BOUNDS, "?");
  return names[bound];
}

typedef struct
{
  const MpOptBuffer *buffers;
  guint              n;
  guint              t0;       /* first step */
  guint              n_steps;
  guint64           *live;     /* per step, slot bytes */
  guint             *firsts;   /* sorted */
  guint             *lasts;    /* sorted */
} Steps;

/* Buffers alive somewhere in [a, b]: those starting by b, less those ending
 * before a. */
static guint
window_count (const Steps *st, guint a, guint b)
{
  return mp_opt_count_below (st->firsts, st->n, b + 1) -
         mp_opt_count_below (st->lasts, st->n, a);
}

/* The minimum of one window, proved from below by bisection; LIMIT answers
 * leave the upper half unexplored rather than claim anything. */
static guint64
window_minimum (const Steps *st, guint a, guint b, guint64 alignment, guint64 floor,
                guint64 ceiling, guint64 node_limit, gint64 deadline_us,
                GCancellable *cancellable)
{
  g_autofree MpOptBuffer *sub = g_new (MpOptBuffer, MAX (window_count (st, a, b), 1));
  g_autoptr (MpOptSearch) search = NULL;
  g_autofree guint64 *offsets = NULL;
  guint    m = 0;
  guint64  lo = floor, hi = ceiling;

  for (guint i = 0; i < st->n; i++)
    {
      const MpOptBuffer *r = &st->buffers[i];

      if (r->last < a || r->first > b)
        continue;
      sub[m] = *r;
      sub[m].first = MAX (r->first, a) - a;
      sub[m].last = MIN (r->last, b) - a;
      sub[m].width = sub[m].last - sub[m].first + 1;
      m++;
    }
  search = mp_opt_search_new (sub, m, alignment, G_MAXUINT32);
  if (search == NULL)
    return floor;
  lo = MAX (lo, mp_opt_search_bound (search));
  offsets = g_new (guint64, MAX (m, 1));
  while (lo < hi)
    {
      guint64 mid = lo + (hi - lo) / 2;

      switch (mp_opt_search_fit (search, mid, node_limit, deadline_us, cancellable, offsets))
        {
        case MP_OPT_FOUND:
          {
            guint64 arena = 0;

            for (guint i = 0; i < m; i++)
              arena = MAX (arena, offsets[i] + sub[i].bytes);
            hi = arena;
          }
          break;
        case MP_OPT_INFEASIBLE:
          lo = mid + 1;
          break;
        case MP_OPT_LIMIT:
          hi = mid;
          break;
        case MP_OPT_STOPPED:
          return lo;
        }
    }
  return lo;
}

guint64
mp_opt_window_bound (const MpOptBuffer *buffers, guint n, guint64 alignment, guint64 floor,
                     guint64 ceiling, guint n_peaks, guint max_buffers, guint64 node_limit,
                     gint64 deadline_us, GCancellable *cancellable)
{
  Steps               st = { buffers, n, G_MAXUINT, 0, NULL, NULL, NULL };
  g_autofree guint64 *live = NULL;
  g_autofree guint   *firsts = g_new (guint, MAX (n, 1));
  g_autofree guint   *lasts = g_new (guint, MAX (n, 1));
  g_autofree guint8  *used = NULL;
  guint               t1 = 0;
  guint64             best = floor;

  if (n == 0)
    return floor;
  for (guint i = 0; i < n; i++)
    {
      st.t0 = MIN (st.t0, buffers[i].first);
      t1 = MAX (t1, buffers[i].last);
      firsts[i] = buffers[i].first;
      lasts[i] = buffers[i].last;
    }
  qsort (firsts, n, sizeof (guint), mp_opt_cmp_u32);
  qsort (lasts, n, sizeof (guint), mp_opt_cmp_u32);
  st.firsts = firsts;
  st.lasts = lasts;
  st.n_steps = t1 - st.t0 + 1;
  live = g_new0 (guint64, st.n_steps + 1);
  for (guint i = 0; i < n; i++)
    {
      live[buffers[i].first - st.t0] += buffers[i].size;
      live[buffers[i].last + 1 - st.t0] -= buffers[i].size;
    }
  for (guint t = 1; t <= st.n_steps; t++)
    live[t] += live[t - 1];
  st.live = live;
  used = g_new0 (guint8, st.n_steps);

  for (guint k = 0; k < n_peaks && best < ceiling; k++)
    {
      guint peak = G_MAXUINT, a, b;

      /* the highest step no earlier window covered */
      for (guint t = 0; t < st.n_steps; t++)
        if (!used[t] && (peak == G_MAXUINT || live[t] > live[peak]))
          peak = t;
      if (peak == G_MAXUINT)
        break;
      a = b = peak + st.t0;
      /* grow towards the fuller neighbour while the window stays small */
      for (;;)
        {
          gboolean can_left = a > st.t0 && window_count (&st, a - 1, b) <= max_buffers;
          gboolean can_right = b < t1 && window_count (&st, a, b + 1) <= max_buffers;

          if (can_left && (!can_right || live[a - 1 - st.t0] >= live[b + 1 - st.t0]))
            a--;
          else if (can_right)
            b++;
          else
            break;
        }
      for (guint t = a; t <= b; t++)
        used[t - st.t0] = TRUE;
      if (window_count (&st, a, b) > max_buffers)
        continue;
      best = MAX (best, window_minimum (&st, a, b, alignment, best, ceiling, node_limit,
                                        deadline_us, cancellable));
      if (g_get_monotonic_time () > deadline_us)
        break;
    }
  return best;
}
