/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "memplan-analysis"

#include <stdlib.h>
#include <string.h>

#include "best-of.h"
#include "optimal-constrained.h"
#include "planner-constraints.h"

/* Placement under per-buffer constraints, MiniMalloc's model: an offset
 * aligned to the buffer's own alignment, fixed offsets kept, a preferred
 * offset taken when free, and gaps during which a buffer holds nothing or
 * only a window of its space. Two buffers are apart when one lies above the
 * other by the effective size, so each placed neighbour in time forbids one
 * interval of offsets; the free intervals between them are the candidates.
 * O(n^2): only constrained inputs come here, the fast path is untouched. */

typedef struct
{
  gint64 lo; /* offsets in [lo, hi) are forbidden */
  gint64 hi;
} Span;

static int
cmp_span (const void *pa, const void *pb)
{
  const Span *a = pa, *b = pb;

  return (a->lo > b->lo) - (a->lo < b->lo);
}

/* The space r holds at step s, [*lo, *hi) above its offset; FALSE when it
 * holds none there (a gap without a window). */
static gboolean
window_at (const MpUsage *r, gint64 s, gboolean slots, gint64 *lo, gint64 *hi)
{
  for (guint k = 0; k < r->n_gaps; k++)
    if (r->gaps[k].first <= s && s <= r->gaps[k].last)
      {
        if (!r->gaps[k].windowed)
          return FALSE;
        *lo = r->gaps[k].lo;
        *hi = r->gaps[k].hi;
        return TRUE;
      }
  *lo = 0;
  *hi = slots ? r->size : r->bytes;
  return TRUE;
}

gboolean
mp_usage_effective_size (const MpUsage *a, const MpUsage *b, gboolean slots, gint64 *size)
{
  gint64   lo = MAX (a->first, b->first), hi = MIN (a->last, b->last);
  guint    n_changes = 2 * (a->n_gaps + b->n_gaps);
  gboolean found = FALSE;
  gint64   best = 0;

  if (lo > hi)
    return FALSE;
  if (n_changes == 0)
    {
      *size = slots ? a->size : a->bytes;
      return TRUE;
    }
  /* the windows change only where a gap starts or ends */
  for (guint c = 0; c <= n_changes; c++)
    {
      gint64 s = lo, alo, ahi, blo, bhi;

      if (c > 0)
        {
          guint        k = (c - 1) / 2;
          const MpGap *g = k < a->n_gaps ? &a->gaps[k] : &b->gaps[k - a->n_gaps];

          s = (c - 1) % 2 == 0 ? g->first : g->last + 1;
        }
      if (s < lo || s > hi || !window_at (a, s, slots, &alo, &ahi) ||
          !window_at (b, s, slots, &blo, &bhi))
        continue;
      if (!found || ahi - blo > best)
        best = ahi - blo;
      found = TRUE;
    }
  if (found)
    *size = best;
  return found;
}

gboolean
mp_usage_collide (const MpUsage *a, guint64 oa, const MpUsage *b, guint64 ob, gboolean slots)
{
  gint64 ab, ba;

  if (!mp_usage_effective_size (a, b, slots, &ab))
    return FALSE;
  mp_usage_effective_size (b, a, slots, &ba);
  return !((gint64) oa + ab <= (gint64) ob || (gint64) ob + ba <= (gint64) oa);
}

/* The offset for record i among the placed ones: its preferred offset when
 * free (unless ignored), else the lowest (first fit) or the tightest (best
 * fit) free interval with an aligned offset, else on top. */
static guint64
choose_offset (const MpUsage *records, guint n, const guint64 *offsets, const gboolean *placed,
               guint i, MpPlaceRule rule, gboolean use_preferred, GArray *spans)
{
  const MpUsage *r = &records[i];
  guint64        align = MAX (r->align, 1);
  gint64         cur = 0, top = 0, best = -1, best_len = G_MAXINT64;
  const Span    *sp;

  g_array_set_size (spans, 0);
  for (guint j = 0; j < n; j++)
    {
      gint64 rj, jr;
      Span   s;

      if (!placed[j] || j == i)
        continue;
      if (rule == MP_PLACE_ON_TOP)
        {
          top = MAX (top, (gint64) (offsets[j] + records[j].size));
          continue;
        }
      if (!mp_usage_effective_size (r, &records[j], TRUE, &rj))
        continue;
      mp_usage_effective_size (&records[j], r, TRUE, &jr);
      /* apart when x + rj <= y or y + jr <= x */
      s = (Span) { (gint64) offsets[j] - rj + 1, (gint64) offsets[j] + jr };
      if (s.lo < s.hi)
        g_array_append_val (spans, s);
    }
  if (rule == MP_PLACE_ON_TOP)
    return mp_align_up (top, align);
  if (spans->len > 1)
    qsort (spans->data, spans->len, sizeof (Span), cmp_span);
  sp = (const Span *) (gconstpointer) spans->data;

  if (use_preferred && (r->flags & MP_USAGE_PREFERRED) && r->preferred % align == 0)
    {
      gint64   x = r->preferred;
      gboolean free = TRUE;

      for (guint k = 0; k < spans->len && free; k++)
        free = !(sp[k].lo <= x && x < sp[k].hi);
      if (free)
        return r->preferred;
    }

  for (guint k = 0; k <= spans->len; k++)
    {
      gint64 end = k < spans->len ? sp[k].lo : G_MAXINT64;
      gint64 x = mp_align_up (cur, align);

      if (x < end && (k == spans->len ? best < 0 : end - cur < best_len))
        {
          best = x;
          best_len = end - cur;
          if (rule == MP_PLACE_FIRST_FIT)
            break;
        }
      if (k < spans->len)
        cur = MAX (cur, sp[k].hi);
    }
  return best;
}

static const char *
record_name (const MpGraph *graph, const MpUsage *r)
{
  return graph && r->tensor < graph->n_tensors ? graph->tensors[r->tensor].name : "?";
}

/* The fixed records at their offsets; FALSE when two of them collide. */
static gboolean
place_fixed (const MpGraph *graph, const MpUsage *records, guint n, guint64 *offsets,
             gboolean *placed, GError **error)
{
  for (guint i = 0; i < n; i++)
    {
      if (!(records[i].flags & MP_USAGE_FIXED))
        continue;
      for (guint j = 0; j < i; j++)
        if (placed[j] && mp_usage_collide (&records[i], records[i].fixed, &records[j],
                                           offsets[j], FALSE))
          {
            g_set_error (error, MP_ANALYSIS_ERROR, MP_ANALYSIS_ERROR_INVALID,
                         "tensors '%s' (fixed offset %" G_GUINT64_FORMAT ") and '%s' (fixed "
                         "offset %" G_GUINT64_FORMAT ") overlap while both are live",
                         record_name (graph, &records[j]), offsets[j],
                         record_name (graph, &records[i]), records[i].fixed);
            return FALSE;
          }
      offsets[i] = records[i].fixed;
      placed[i] = TRUE;
    }
  return TRUE;
}

gboolean
mp_place_constrained (const MpGraph *graph, const MpUsage *records, guint n, const guint *order,
                      MpPlaceRule rule, guint64 *offsets, GCancellable *cancellable,
                      GError **error)
{
  g_autofree gboolean *placed = g_new0 (gboolean, MAX (n, 1));
  g_autoptr (GArray) spans = g_array_new (FALSE, FALSE, sizeof (Span));

  if (!place_fixed (graph, records, n, offsets, placed, error))
    return FALSE;
  for (guint k = 0; k < n; k++)
    {
      guint i = order[k];

      if (placed[i])
        continue;
      if (k % 256 == 0 && g_cancellable_set_error_if_cancelled (cancellable, error))
        return FALSE;
      offsets[i] = choose_offset (records, n, offsets, placed, i, rule, TRUE, spans);
      placed[i] = TRUE;
    }
  return TRUE;
}

/* The exact search. Take any plan and visit its buffers from the lowest
 * offset up, each at its lowest free aligned offset among those visited:
 * every buffer lands at or below where the plan had it (its old offset is
 * still free, as the buffers below it only moved down), so some order of
 * "lowest free offset" placements reaches every minimum. The search tries
 * every order, largest first, and prunes a branch as soon as its height
 * reaches the best found. Fixed buffers stay put; preferred offsets do not
 * bind a minimum. (With windows whose effective size is negative, a buffer
 * may rest above one that starts higher; the argument then needs the plan's
 * order by that relation, which the search also tries.) */
typedef struct
{
  const MpUsage *records;
  guint          n;
  guint64       *offsets;
  gboolean      *placed;
  guint         *order;
  GArray        *spans;
  guint64       *best;
  guint64        best_height;
  guint64        goal;     /* stop at or below: the capacity, else the lower bound */
  guint64        cap;      /* prune above: the capacity (a yes/no question), else none */
  gint64         deadline;
  GCancellable  *cancellable;
  guint64        nodes;
  gboolean       stopped;
} Exact;

static void
exact_search (Exact *e, guint left, guint64 height)
{
  if (e->stopped)
    return;
  if (++e->nodes % 1024 == 0 &&
      (g_get_monotonic_time () > e->deadline || g_cancellable_is_cancelled (e->cancellable)))
    {
      e->stopped = TRUE;
      return;
    }
  if (left == 0)
    {
      if (height < e->best_height)
        {
          e->best_height = height;
          memcpy (e->best, e->offsets, sizeof (guint64) * e->n);
        }
      return;
    }
  for (guint k = 0; k < e->n && !e->stopped && e->best_height > e->goal; k++)
    {
      guint   i = e->order[k];
      guint64 x, h;

      if (e->placed[i])
        continue;
      x = choose_offset (e->records, e->n, e->offsets, e->placed, i, MP_PLACE_FIRST_FIT, FALSE,
                         e->spans);
      h = MAX (height, x + e->records[i].bytes);
      if (h >= e->best_height || h > e->cap)
        continue;
      e->offsets[i] = x;
      e->placed[i] = TRUE;
      exact_search (e, left - 1, h);
      e->placed[i] = FALSE;
    }
}

static guint64
height_of (const MpUsage *records, guint n, const guint64 *offsets)
{
  guint64 h = 0;

  for (guint i = 0; i < n; i++)
    h = MAX (h, offsets[i] + records[i].bytes);
  return h;
}

/* A starting placement (trial, made in order *o) replaces the best so far
 * when it is lower. */
static void
keep_if_lower (MpPlan *plan, const guint64 *trial, guint64 *best, guint **order, guint **o)
{
  guint64 h = height_of (plan->records, plan->n_records, trial);

  if (h < *best)
    {
      *best = h;
      memcpy (plan->offsets, trial, sizeof (guint64) * plan->n_records);
      g_free (*order);
      *order = g_steal_pointer (o);
    }
}

/* MiniMalloc's first descent: again and again, of the unplaced buffers the
 * one whose lowest free aligned offset is lowest (the earlier in order on a
 * tie) takes it. Fills the arena from the bottom, as a skyline does. */
static void
place_lowest_first (const MpUsage *records, guint n, const guint *order, guint64 *offsets,
                    gboolean *placed, GArray *spans)
{
  for (;;)
    {
      gint    pick = -1;
      guint64 low = G_MAXUINT64;

      for (guint k = 0; k < n; k++)
        {
          guint   i = order[k];
          guint64 x;

          if (placed[i])
            continue;
          x = choose_offset (records, n, offsets, placed, i, MP_PLACE_FIRST_FIT, FALSE, spans);
          if (x < low)
            {
              low = x;
              pick = (gint) i;
            }
        }
      if (pick < 0)
        return;
      offsets[pick] = low;
      placed[pick] = TRUE;
    }
}

/* MiniMalloc's search (optimal-constrained.c), before the order search.
 * The lower bound is tried first: a plan there is a minimum and fits any
 * capacity, and it is often easier to find than one with slack (C at 1 MiB:
 * 798 nodes at the bound, 242,764 at the capacity). With a capacity, a few
 * nodes go there, then the rest to the capacity; without, half the time,
 * then bisection up to the incumbent. A plan found replaces plan->offsets.
 * TRUE when its answer is proved: a plan that fits or none, or the minimum. */
static gboolean
minimalloc_search (const MpGraph *graph, MpPlan *plan, guint64 capacity, gint64 deadline,
                   GCancellable *cancellable, guint64 *nodes, gboolean *refuted)
{
  guint                    n = plan->n_records;
  g_autoptr (MpConsSearch) s = mp_cons_search_new (graph, plan->records, n);
  g_autofree guint64      *sol = g_new (guint64, MAX (n, 1));
  guint64                  best = height_of (plan->records, n, plan->offsets);
  guint64                  lo = plan->lower_bound, hi = capacity ? capacity : best - 1;
  gboolean                 exact = mp_cons_search_exact (s), stopped = FALSE, first = TRUE;

  while (lo <= hi && !stopped)
    {
      guint64     mid = first ? lo : capacity ? hi : lo + (hi - lo) / 2;
      gint64      now = g_get_monotonic_time ();
      MpOptResult r;

      r = mp_cons_search_fit (s, mid, first && capacity ? 16 * (guint64) MAX (n, 1) : 0,
                              first && !capacity ? now + (deadline - now) / 2 : deadline,
                              cancellable, sol);
      first = FALSE;
      if (r == MP_OPT_FOUND)
        {
          memcpy (plan->offsets, sol, sizeof (guint64) * n);
          best = height_of (plan->records, n, sol);
          if (capacity || best == 0)
            break;
          hi = best - 1;
        }
      else if (r == MP_OPT_INFEASIBLE)
        {
          *refuted = mid == capacity && exact;
          lo = mid + 1;
        }
      else
        stopped = g_get_monotonic_time () > deadline || g_cancellable_is_cancelled (cancellable);
    }
  *nodes = mp_cons_search_nodes (s);
  if (capacity)
    return best <= capacity || *refuted;
  return !stopped && exact && lo > hi;
}

MpPlan *
mp_optimal_constrained (const MpGraph *graph, const MpLifetimes *lifetimes,
                        const MpPlannerOptions *options, GCancellable *cancellable,
                        GError **error)
{
  g_autoptr (MpPlan) plan = mp_plan_new ("optimal", lifetimes);
  gdouble              budget = options->time_budget > 0
                                  ? MIN (options->time_budget, MP_OPTIMAL_MAX_BUDGET)
                                  : MP_OPTIMAL_DEFAULT_BUDGET;
  guint                n = plan->n_records, left = 0;
  guint64              height = 0;
  g_autofree guint64  *offsets = g_new (guint64, MAX (n, 1));
  g_autofree gboolean *placed = g_new0 (gboolean, MAX (n, 1));
  g_autoptr (GArray)   spans = g_array_new (FALSE, FALSE, sizeof (Span));
  g_autofree guint    *order = NULL;
  g_autofree guint64  *trial = g_new (guint64, MAX (n, 1));
  guint64              best = G_MAXUINT64;
  gint64               start = g_get_monotonic_time ();
  Exact                e = { 0 };
  gboolean             refuted = options->capacity && options->capacity < plan->lower_bound;
  gboolean             ms_proved = FALSE, ms_refuted = FALSE, old_complete = FALSE;
  guint64              ms_nodes = 0;
  const char          *how = refuted ? "under the lower bound" : "every placement order";

  /* the incumbent: the best of best-of's visiting orders, each with both
   * rules; the search then tries the winning order first, as its first
   * descent is that order's first fit */
  for (guint member = 0; member < MP_BEST_OF_N_MEMBERS && best > plan->lower_bound; member++)
    {
      g_autofree guint *o = mp_best_of_order (plan->records, n, NULL, member / 2);

      if (!mp_place_constrained (graph, plan->records, n, o,
                                 member % 2 ? MP_PLACE_BEST_FIT : MP_PLACE_FIRST_FIT, trial,
                                 cancellable, error))
        return NULL;
      keep_if_lower (plan, trial, &best, &order, &o);
    }
  /* and the lowest-first descent, ties broken by each order */
  for (guint k = 0; k < MP_BEST_OF_N_ORDERS && best > plan->lower_bound; k++)
    {
      g_autofree guint *o = mp_best_of_order (plan->records, n, NULL, k);

      if (!place_fixed (graph, plan->records, n, trial, placed, error))
        return NULL;
      place_lowest_first (plan->records, n, o, trial, placed, spans);
      memset (placed, 0, sizeof (gboolean) * n);
      keep_if_lower (plan, trial, &best, &order, &o);
      if (g_cancellable_set_error_if_cancelled (cancellable, error))
        return NULL;
    }
  if (!place_fixed (graph, plan->records, n, offsets, placed, error))
    return NULL;
  for (guint i = 0; i < n; i++)
    left += !placed[i];

  e.records = plan->records;
  e.n = n;
  e.offsets = offsets;
  e.placed = placed;
  e.order = order;
  e.spans = spans;
  e.best = plan->offsets;
  e.best_height = height_of (plan->records, n, plan->offsets);
  e.goal = options->capacity ? options->capacity : plan->lower_bound;
  e.cap = options->capacity ? options->capacity : G_MAXUINT64;
  e.deadline = start + (gint64) (budget * G_USEC_PER_SEC);
  e.cancellable = cancellable;
  for (guint i = 0; i < n; i++)
    height = placed[i] ? MAX (height, offsets[i] + plan->records[i].bytes) : height;
  /* no plan fits below the lower bound: nothing to search for */
  if (!refuted && e.best_height > e.goal)
    {
      ms_proved = minimalloc_search (graph, plan, options->capacity, e.deadline, cancellable,
                                     &ms_nodes, &ms_refuted);
      how = ms_proved ? "MiniMalloc's search" : "MiniMalloc's search, then every placement order";
      e.best_height = height_of (plan->records, n, plan->offsets);
    }
  if (!refuted && !ms_proved)
    {
      exact_search (&e, left, height);
      old_complete = !e.stopped;
    }
  if (g_cancellable_set_error_if_cancelled (cancellable, error))
    return NULL;

  plan->searched = TRUE;
  plan->nodes = e.nodes + ms_nodes;
  /* with a capacity the search pruned above it: a minimum only when none fits */
  plan->proved_optimal = !options->capacity && (old_complete || ms_proved);
  plan->proved_optimal |= e.best_height <= plan->lower_bound;
  plan->proved_bound = plan->proved_optimal ? e.best_height : plan->lower_bound;
  plan->bound_name = ms_proved ? "MiniMalloc's canonical placements under the constraints"
                              : "every order of lowest-offset placements under the constraints";
  plan->capacity = options->capacity;
  plan->fits = options->capacity && e.best_height <= options->capacity;
  plan->fit_refuted = options->capacity && (refuted || ms_refuted ||
                                             (old_complete && e.best_height > options->capacity));
  plan->note = g_strdup_printf ("constrained buffers: %s, %" G_GUINT64_FORMAT " nodes in %.1f s%s",
                                how, plan->nodes, (g_get_monotonic_time () - start) / 1e6,
                                plan->proved_optimal ? ", proved optimal"
                                                     : ", stopped before a proof");
  return g_steal_pointer (&plan);
}
