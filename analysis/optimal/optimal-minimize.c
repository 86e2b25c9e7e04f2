/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "memplan-analysis"

#include "optimal-minimize.h"

/* The bisection stops within this share of its range: its last probes,
 * close under the incumbent, rarely found anything and cost half of the
 * work of minimising A-K to their proved minima (the capacity question
 * below the incumbent asks there anyway). */
#define BISECT_PARTS 32

/* The pass: first the lowest target (most real instances reach their lower
 * bound). Then a bisection between what is proved and what was found,
 * side_limit nodes per probe, for the big steps down: a plan found lowers
 * the top; a refutation, or a probe out of nodes, raises the bottom for this
 * pass only (running out of nodes proves nothing; the next pass asks again
 * with twice the nodes). Then the capacity just below the incumbent, with
 * the node limits a capacity search climbs (first_limit, doubling, up to
 * node_limit: a smaller limit moves on to the next preorder sooner, so it
 * can find what a larger one does not; on D, 1,042,431 is found within
 * 18,904 nodes that a single probe of 200,000 misses), while it yields:
 * the very probes a capacity search makes (on D
 * the old grid of eight targets at half the nodes each, asked before it,
 * stopped at 1,025,024 where the capacity search for 1,025,023 found
 * 1,024,000). Feasibility within a node limit is not monotone in the
 * capacity (on D, 1,018,880 is found in 7 s where 1,020,000 is not in 20 s),
 * so a plan the capacity question finds sends the pass back to bisecting
 * below it; the pass ends when that question finds nothing. */
gboolean
mp_opt_minimize_pass (const MpOptProbes *probes, guint64 first_limit, guint64 node_limit,
                      guint64 side_limit)
{
  gpointer data = probes->data;

  if (probes->proved (data) < probes->arena (data) &&
      probes->probe (probes->proved (data), node_limit, data) == MP_OPT_STOPPED)
    return FALSE;
  for (;;)
    {
      guint64 lo = probes->proved (data), hi = probes->arena (data), before, limit;
      guint64 step = MAX ((hi - lo) / BISECT_PARTS, 1);

      for (; lo + step < hi;)
        {
          guint64     mid = lo + (hi - lo) / 2;
          MpOptResult r = probes->probe (mid, side_limit, data);

          if (r == MP_OPT_STOPPED)
            return FALSE;
          hi = MIN (hi, probes->arena (data));
          lo = MAX (r == MP_OPT_FOUND ? lo : mid, probes->proved (data));
        }
      before = probes->arena (data);
      limit = MIN (first_limit, node_limit);
      while (probes->proved (data) < probes->arena (data))
        {
          MpOptResult r = probes->probe (probes->arena (data) - 1, limit, data);

          if (r == MP_OPT_STOPPED)
            return FALSE;
          /* a new target climbs the ladder again from its foot */
          if (r == MP_OPT_FOUND)
            limit = MIN (first_limit, node_limit);
          else if (limit < node_limit)
            limit = MIN (2 * limit, node_limit);
          else
            break;
        }
      if (probes->arena (data) == before)
        return TRUE;
    }
}

/* The endgame: the capacity search itself, below the incumbent, limits from
 * first_limit doubling without end (its searches go on where they paused,
 * so every node given to that question before counts), back to the foot
 * for a new target after each plan found. */
gboolean
mp_opt_minimize_below (const MpOptProbes *probes, guint64 first_limit)
{
  gpointer data = probes->data;
  guint64  limit = first_limit;

  while (probes->proved (data) < probes->arena (data))
    {
      MpOptResult r = probes->probe (probes->arena (data) - 1, limit, data);

      if (r == MP_OPT_STOPPED)
        return FALSE;
      if (r == MP_OPT_FOUND)
        limit = first_limit;
      else if (r == MP_OPT_LIMIT)
        limit = MIN (2 * limit, G_MAXUINT64 / 4);
    }
  return TRUE;
}
