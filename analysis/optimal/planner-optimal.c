/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "memplan-analysis"

#include <stdlib.h>
#include <string.h>

#include "best-of.h"
#include "optimal-bounds.h"
#include "optimal-column.h"
#include "optimal-decompose.h"
#include "optimal-lns.h"
#include "optimal-minimize.h"
#include "optimal-repair.h"
#include "optimal-search.h"
#include "plan-io.h"
#include "planner-constraints.h"
#include "planner-private.h"
#include "validate.h"
#include "verdict.h"

/* The optimal planner: the best heuristic plan is the first incumbent; time
 * is cut where no buffer crosses into independent partitions (the arena is
 * their maximum). Partitions too large for the exact search are improved by
 * a search over first-fit orders and a large-neighbourhood search
 * (optimal-lns.c) for their share of the budget; exact minima of windows
 * around the peaks lift the proved bounds (optimal-bounds.c); then each
 * partition whose arena is above its proved bound is searched exactly
 * (optimal-search.c) at target capacities (see minimize_partition), with
 * node limits that double from pass to pass so that no single hard target
 * eats the budget. */

/* Partitions above these sizes are left to the searches at scale:
 * the exact search needs memory quadratic in the buffers of a partition. */
#define MAX_SEARCH_N       4096
#define MAX_SEARCH_ENTRIES (G_GUINT64_CONSTANT (1) << 23)
/* The window bounds: at most this share of the budget, windows of at most
 * this many buffers around this many peaks, this many nodes per probe. */
#define WINDOW_SHARE     0.1
#define WINDOW_BUFFERS   40
#define WINDOW_PEAKS     6
#define WINDOW_NODES     (1u << 14)
/* The search over first-fit orders gets at most this share of what is left
 * of a large partition's time, the large-neighbourhood search the rest (it
 * improves real graphs, where the order search stalls at once). */
#define REORDER_SHARE    0.5
/* Where most buffers are short-lived, the decomposition
 * (optimal-decompose.c) gets this share of a large partition's time first. */
#define DECOMPOSE_SHARE  0.8
/* and the repair of its top (optimal-repair.c) this share of what is left */
#define REPAIR_SHARE     0.5
/* Minimising, when less than this many times the last pass is left, the
 * rest goes to the capacity question below the incumbent alone (the next
 * pass, twice as long, would not end): at least a third of the time after
 * the heuristics, as passes double. */
#define ENDGAME_PASSES   4

typedef struct
{
  guint       *members; /* record indices */
  guint        n;
  guint64      lower;   /* max live bytes */
  guint64      proved;  /* no plan of this partition is below this */
  guint64      arena;   /* of the best offsets found */
  guint64     *best;    /* n offsets */
  MpOptSearch *search;  /* built on first use */
  gboolean     too_big;
} Partition;

typedef struct
{
  const MpGraph *graph;
  const MpUsage *records;
  guint          n;
  guint64        alignment;
  Partition     *parts;
  guint          n_parts;
  guint64        bound;   /* proved lower bound of the whole plan */
  const char    *bound_name; /* the proof of bound, in words */
  gint64         deadline;
  GCancellable  *cancellable;
  gboolean       stopped;
  gboolean       unsearched; /* some partition was too big to search */
  const MpPlannerOptions *options;
  gint64         start;
  gint64         next_progress;
} Optimal;

static int
cmp_first (const void *pa, const void *pb, void *data)
{
  const MpUsage *r = data;
  guint          a = *(const guint *) pa, b = *(const guint *) pb;

  if (r[a].first != r[b].first)
    return r[a].first < r[b].first ? -1 : 1;
  return (a > b) - (a < b);
}

/* Cuts time where no lifetime crosses. */
static void
split_partitions (Optimal *opt, guint n_steps)
{
  g_autofree guint   *order = g_new (guint, MAX (opt->n, 1));
  g_autofree guint64 *delta = g_new0 (guint64, n_steps + 2);
  g_autofree guint64 *gone = g_new0 (guint64, n_steps + 2);
  GArray             *parts = g_array_new (FALSE, TRUE, sizeof (Partition));
  guint               start = 0, reach = 0;
  guint64             live = 0;

  for (guint i = 0; i < opt->n; i++)
    {
      order[i] = i;
      delta[opt->records[i].first] += opt->records[i].bytes;
      gone[opt->records[i].last + 1] += opt->records[i].bytes;
    }
  g_qsort_with_data (order, opt->n, sizeof (guint), cmp_first, (gpointer) opt->records);

  for (guint i = 0; i < opt->n; i++)
    {
      const MpUsage *r = &opt->records[order[i]];

      if (i > start && r->first > reach)
        {
          Partition p = { 0 };

          p.members = g_memdup2 (order + start, sizeof (guint) * (i - start));
          p.n = i - start;
          g_array_append_val (parts, p);
          start = i;
        }
      reach = i == start ? r->last : MAX (reach, r->last);
    }
  if (opt->n > start)
    {
      Partition p = { 0 };

      p.members = g_memdup2 (order + start, sizeof (guint) * (opt->n - start));
      p.n = opt->n - start;
      g_array_append_val (parts, p);
    }
  opt->n_parts = parts->len;
  opt->parts = (Partition *) g_array_free (parts, FALSE);

  /* each partition's lower bound: its peak of live bytes, which is reached
   * where some buffer starts */
  for (guint t = 0; t <= n_steps; t++)
    {
      live += delta[t] - gone[t];
      delta[t] = live; /* now: the live bytes at step t */
    }
  for (guint k = 0; k < opt->n_parts; k++)
    {
      Partition *p = &opt->parts[k];

      for (guint i = 0; i < p->n; i++)
        p->lower = MAX (p->lower, delta[opt->records[p->members[i]].first]);
      p->proved = p->lower;
    }
}

static void
partition_clear (Partition *p)
{
  g_free (p->members);
  g_free (p->best);
  g_clear_pointer (&p->search, mp_opt_search_free);
}

/* Every proof of a lower bound goes through here, so the strongest one is
 * the one named. */
static void
raise_bound (Optimal *opt, guint64 value, MpOptBound proof)
{
  if (value > opt->bound)
    {
      opt->bound = value;
      opt->bound_name = mp_opt_bound_name (proof);
      if (opt->options->trace)
        mp_decision_trace_search_bound (opt->options->trace, value, opt->bound_name);
    }
}

/* Runs heuristic info; its offsets when it places these very records. */
static MpPlan *
heuristic_plan (const MpPlannerInfo *info, const MpGraph *graph, const MpLifetimes *lt,
                const MpPlannerOptions *quiet)
{
  g_autoptr (MpPlan) plan = info->func (graph, lt, quiet, NULL, NULL);

  if (plan == NULL || plan->n_records != lt->n_records)
    return NULL;
  for (guint i = 0; i < lt->n_records; i++)
    if (plan->records[i].first != lt->records[i].first ||
        plan->records[i].last != lt->records[i].last ||
        plan->records[i].size != lt->records[i].size)
      return NULL;
  mp_plan_finish (plan);
  return g_steal_pointer (&plan);
}

/* The best plan of the other planners (those that place these very records):
 * the first incumbent. First-fit, the best-of portfolio and partition run
 * first (the tightest on most inputs; best-of costs its members' time over
 * the processors); each of the others only when it
 * would end, at the pace of the slowest so far, before half the budget is
 * spent: on shapes where they are slow (100,000 long-lived buffers: 30 s
 * each) the search gets its time, and from names the heuristics left out. */
static guint64 *
best_heuristic (const MpGraph *graph, const MpLifetimes *lt, const MpPlannerOptions *options,
                gint64 cutoff, char **from)
{
  guint                n_info;
  const MpPlannerInfo *infos = mp_planners (&n_info);
  guint64             *best = g_new (guint64, MAX (lt->n_records, 1));
  guint64              best_arena = G_MAXUINT64;
  g_autoptr (GPtrArray) order = g_ptr_array_new ();
  g_autoptr (GString)   skipped = g_string_new (NULL);
  /* the heuristics run untraced: their steps are not optimal's */
  MpPlannerOptions     quiet = *options;
  gint64               longest = 0;

  quiet.trace = NULL;
  quiet.progress = NULL;
  g_ptr_array_add (order, (gpointer) mp_planner_lookup ("first-fit"));
  g_ptr_array_add (order, (gpointer) mp_planner_lookup ("best-of"));
  g_ptr_array_add (order, (gpointer) mp_planner_lookup ("partition"));
  for (guint k = 0; k < n_info; k++)
    if (!(infos[k].traits & (MP_PLANNER_SEARCHES | MP_PLANNER_BASELINE)) &&
        !g_str_equal (infos[k].name, "first-fit") && !g_str_equal (infos[k].name, "best-of") &&
        !g_str_equal (infos[k].name, "partition") && !(infos[k].needs_ops && !graph->has_ops))
      g_ptr_array_add (order, (gpointer) &infos[k]);

  for (guint k = 0; k < order->len; k++)
    {
      const MpPlannerInfo *info = order->pdata[k];
      g_autoptr (MpPlan) plan = NULL;
      gint64               began = g_get_monotonic_time ();
      gboolean             portfolio = g_str_equal (info->name, "best-of");
      gint                 threads = CLAMP (g_get_num_processors (), 1, MP_BEST_OF_MAX_THREADS);
      gint64               expect = portfolio ? longest * MP_BEST_OF_N_MEMBERS / threads : longest;

      /* the next one is likely to take as long as the slowest so far */
      if (k > 0 && began + expect > cutoff)
        {
          g_string_append_printf (skipped, "%s%s", skipped->len ? ", " : "", info->name);
          continue;
        }
      plan = heuristic_plan (info, graph, lt, &quiet);
      longest = MAX (longest, g_get_monotonic_time () - began);
      if (plan == NULL)
        continue;
      if (plan->arena < best_arena &&
          mp_validate_records (graph, lt->records, lt->n_records, plan->offsets, lt->alignment,
                               plan->arena, NULL))
        {
          best_arena = plan->arena;
          memcpy (best, plan->offsets, sizeof (guint64) * lt->n_records);
          g_free (*from);
          /* best-of's note names its winning member */
          *from = portfolio && plan->note ? g_strdup_printf ("%s: %s", info->name, plan->note)
                                          : g_strdup (info->name);
        }
    }
  if (best_arena == G_MAXUINT64)
    {
      /* nothing placed these records as they are: greedy by size does */
      mp_place_greedy_by_size (lt->records, lt->n_records, lt->n_steps, best);
      g_free (*from);
      *from = g_strdup ("greedy-by-size");
    }
  if (skipped->len)
    {
      char *with = g_strdup_printf ("%s; not run, half the budget spent: %s", *from,
                                    skipped->str);

      g_free (*from);
      *from = with;
    }
  return best;
}

static guint64
partition_arena (const Optimal *opt, const Partition *p, const guint64 *offsets)
{
  guint64 arena = 0;

  for (guint i = 0; i < p->n; i++)
    arena = MAX (arena, offsets[i] + opt->records[p->members[i]].bytes);
  return arena;
}

static guint64
plan_arena (const Optimal *opt)
{
  guint64 arena = 0;

  for (guint k = 0; k < opt->n_parts; k++)
    arena = MAX (arena, opt->parts[k].arena);
  return arena;
}

static void
report_progress (Optimal *opt)
{
  gint64           now = g_get_monotonic_time ();
  MpSearchProgress progress = { 0 };

  if (opt->options->progress == NULL || now < opt->next_progress)
    return;
  opt->next_progress = now + G_USEC_PER_SEC / 2;
  progress.elapsed = (now - opt->start) / 1e6;
  progress.arena = plan_arena (opt);
  progress.lower_bound = opt->bound;
  for (guint k = 0; k < opt->n_parts; k++)
    if (opt->parts[k].search)
      progress.nodes += mp_opt_search_nodes (opt->parts[k].search);
  opt->options->progress (&progress, opt->options->progress_data);
}

/* One exact probe: does partition p fit in target? Updates its best plan or
 * its proved bound. */
static guint64
total_nodes (const Optimal *opt)
{
  guint64 nodes = 0;

  for (guint k = 0; k < opt->n_parts; k++)
    if (opt->parts[k].search)
      nodes += mp_opt_search_nodes (opt->parts[k].search);
  return nodes;
}

static MpOptBuffer *
partition_buffers (const Optimal *opt, const Partition *p)
{
  MpOptBuffer *buffers = g_new (MpOptBuffer, MAX (p->n, 1));

  for (guint i = 0; i < p->n; i++)
    {
      const MpUsage *r = &opt->records[p->members[i]];
      gint64         first, last;

      mp_usage_times (opt->graph, r, &first, &last);
      buffers[i].first = r->first;
      buffers[i].last = r->last;
      buffers[i].size = r->size;
      buffers[i].bytes = r->bytes;
      buffers[i].width = last >= first ? (guint64) (last - first) + 1 : 1;
    }
  return buffers;
}

/* Before the search proper: exact minima of small windows around the peaks
 * of every partition that is not settled yet lift its proved bound. */
static void
window_bounds (Optimal *opt, guint64 capacity, gint64 deadline)
{
  for (guint k = 0; k < opt->n_parts && g_get_monotonic_time () < deadline; k++)
    {
      Partition              *p = &opt->parts[k];
      g_autofree MpOptBuffer *buffers = NULL;
      guint64                 ceiling = capacity ? MIN (p->arena, capacity + 1) : p->arena;
      guint64                 proved;

      if (ceiling <= p->proved)
        continue;
      buffers = partition_buffers (opt, p);
      proved = mp_opt_window_bound (buffers, p->n, opt->alignment, p->proved, ceiling,
                                    WINDOW_PEAKS, WINDOW_BUFFERS, WINDOW_NODES, deadline,
                                    opt->cancellable);
      p->proved = MAX (p->proved, proved);
      raise_bound (opt, p->proved, MP_OPT_BOUND_WINDOW);
    }
}

/* Builds p's exact search; FALSE when p is too large for it. */
static gboolean
ensure_search (Optimal *opt, Partition *p)
{
  if (p->search == NULL && !p->too_big)
    {
      g_autofree MpOptBuffer *buffers = partition_buffers (opt, p);

      if (p->n > MAX_SEARCH_N ||
          !(p->search = mp_opt_search_new (buffers, p->n, opt->alignment, MAX_SEARCH_ENTRIES)))
        {
          p->too_big = TRUE;
          opt->unsearched = TRUE;
          return FALSE;
        }
      /* every core: the answers do not depend on it (optimal-search.c) */
      mp_opt_search_set_threads (p->search, CLAMP (g_get_num_processors (), 1, 3));
      p->proved = MAX (p->proved, mp_opt_search_bound (p->search));
      raise_bound (opt, p->proved, MP_OPT_BOUND_PADDING);
    }
  return !p->too_big;
}

typedef struct
{
  Optimal    *opt;
  Partition  *p;
  const char *by; /* the search that found it, for the trace */
} Improving;

/* The searches at scale work on p->best itself, valid at every step: only
 * the arena and the watchers need to hear of it. */
static void
scale_improved (const guint64 *offsets, guint64 arena, gpointer data)
{
  Improving *imp = data;

  imp->p->arena = arena;
  if (imp->opt->options->trace)
    mp_decision_trace_search_incumbent (imp->opt->options->trace,
                                    (g_get_monotonic_time () - imp->opt->start) / 1e6,
                                    total_nodes (imp->opt), plan_arena (imp->opt), imp->by);
  report_progress (imp->opt);
}

/* Partitions too large for the exact search are improved from their
 * heuristic plan by the decomposition where it fits (for at most
 * DECOMPOSE_SHARE of their time), the search over first-fit orders for at
 * most REORDER_SHARE of what is left, then by the large-neighbourhood search,
 * sharing time by their buffers: the budget's share of all the buffers
 * they hold. */
static void
search_at_scale (Optimal *opt, guint64 capacity, gdouble budget)
{
  guint64 big = 0;
  gint64  from = g_get_monotonic_time ();

  for (guint k = 0; k < opt->n_parts; k++)
    if (!ensure_search (opt, &opt->parts[k]))
      big += opt->parts[k].n;
  for (guint k = 0; k < opt->n_parts && big; k++)
    {
      Partition              *p = &opt->parts[k];
      g_autofree MpOptBuffer *buffers = NULL;
      Improving               imp = { opt, p, "first-fit order search" };
      gint64                  until, now;
      /* with a capacity, reaching it is enough */
      guint64                 floor = capacity ? MAX (capacity, p->proved) : p->proved;

      if (!p->too_big)
        continue;
      until = MIN (from + (gint64) (budget * G_USEC_PER_SEC * p->n / opt->n), opt->deadline);
      buffers = partition_buffers (opt, p);
      /* a block of top buffers dropped into a column free but for a few
       * occupants: what takes pangu-2.6B out of best-of's plan */
      imp.by = "column move";
      mp_opt_column (buffers, p->n, p->best, until, opt->cancellable, scale_improved, &imp);
      imp.by = "first-fit order search";
      now = g_get_monotonic_time ();
      if (mp_opt_decompose_fits (buffers, p->n))
        {
          imp.by = "decomposition";
          mp_opt_decompose (buffers, p->n, p->best, 0,
                            now + (gint64) (MAX (until - now, 0) * DECOMPOSE_SHARE), until,
                            opt->cancellable, scale_improved, &imp);
          /* the short buffers that found no gap over the flat top of the
           * long ones, moved under it with a long one out of their way */
          imp.by = "repair";
          now = g_get_monotonic_time ();
          mp_opt_repair (buffers, p->n, p->best, 0,
                         now + (gint64) (MAX (until - now, 0) * REPAIR_SHARE), opt->cancellable,
                         scale_improved, &imp);
          imp.by = "first-fit order search";
          now = g_get_monotonic_time ();
        }
      mp_opt_reorder (buffers, p->n, p->best, floor, 0,
                      now + (gint64) (MAX (until - now, 0) * REORDER_SHARE), opt->cancellable,
                      scale_improved, &imp);
      imp.by = "large-neighbourhood search";
      mp_opt_lns (buffers, p->n, p->best, floor, k + 1, until, opt->cancellable, scale_improved,
                  &imp);
      from = until;
      /* the note tells a search cut short from one that ran out of moves */
      if (g_cancellable_is_cancelled (opt->cancellable) || g_get_monotonic_time () > opt->deadline)
        opt->stopped = TRUE;
    }
}

static MpOptResult
probe (Optimal *opt, Partition *p, guint64 target, guint64 node_limit)
{
  g_autofree guint64 *offsets = NULL;
  MpOptResult         result;

  if (!ensure_search (opt, p))
    return MP_OPT_LIMIT;
  if (target < p->proved)
    return MP_OPT_INFEASIBLE;

  offsets = g_new (guint64, MAX (p->n, 1));
  result = mp_opt_search_fit (p->search, target, node_limit, opt->deadline, opt->cancellable,
                              offsets);
  switch (result)
    {
    case MP_OPT_FOUND:
      {
        guint64 arena = partition_arena (opt, p, offsets);

        g_assert (arena <= target);
        if (arena < p->arena)
          {
            p->arena = arena;
            memcpy (p->best, offsets, sizeof (guint64) * p->n);
            if (opt->options->trace)
              mp_decision_trace_search_incumbent (opt->options->trace,
                                              (g_get_monotonic_time () - opt->start) / 1e6,
                                              total_nodes (opt), plan_arena (opt), "search");
          }
      }
      break;
    case MP_OPT_INFEASIBLE:
      p->proved = MAX (p->proved, target + 1);
      raise_bound (opt, p->proved, MP_OPT_BOUND_REFUTED);
      break;
    case MP_OPT_STOPPED:
      opt->stopped = TRUE;
      break;
    case MP_OPT_LIMIT:
      break;
    }
  report_progress (opt);
  return result;
}

/* Capacity mode: partition p only has to fit in the capacity. */
static void
fit_partition (Optimal *opt, Partition *p, guint64 capacity, guint64 node_limit)
{
  if (p->arena > capacity && p->proved <= capacity)
    probe (opt, p, capacity, node_limit);
}

typedef struct
{
  Optimal   *opt;
  Partition *p;
} Minimizing;

static MpOptResult
minimize_probe (guint64 target, guint64 node_limit, gpointer data)
{
  Minimizing *m = data;

  return probe (m->opt, m->p, target, node_limit);
}

static guint64
minimize_proved (gpointer data)
{
  Minimizing *m = data;

  return MAX (m->opt->bound, m->p->proved);
}

static guint64
minimize_arena (gpointer data)
{
  Minimizing *m = data;

  return m->p->arena;
}

/* One pass of minimisation: the capacity question with the node limits a
 * capacity search climbs (from a foot below its first, up to node_limit:
 * every rung of it, and two more, cheap since the search goes on), an eighth
 * of node_limit per bisection probe (optimal-minimize.c). Every probe starts
 * from what earlier ones proved (p->proved) and found (p->arena). */
static void
minimize_partition (Optimal *opt, Partition *p, guint64 node_limit)
{
  Minimizing  m = { opt, p };
  MpOptProbes probes = { minimize_probe, minimize_proved, minimize_arena, &m };

  mp_opt_minimize_pass (&probes, 2 * MAX (opt->n, 1), node_limit,
                        MAX (node_limit / 8, 2 * (guint64) p->n));
}

/* The endgame of minimising: the largest partitions first, each asked the
 * capacity just below its arena as `--capacity` asks it (from 8 nodes a
 * buffer, doubling: the very probes, node for node), until the deadline. */
static MpOptResult
endgame_probe (guint64 target, guint64 node_limit, gpointer data)
{
  Minimizing *m = data;

  /* the capacity search's threads, all of them: no other crew works ahead */
  if (m->p->search)
    mp_opt_search_keep (m->p->search, target);
  return probe (m->opt, m->p, target, node_limit);
}

static void
minimize_endgame (Optimal *opt, const guint *by_arena)
{
  for (guint k = 0; k < opt->n_parts && !opt->stopped; k++)
    {
      Minimizing  m = { opt, &opt->parts[by_arena[k]] };
      MpOptProbes probes = { endgame_probe, minimize_proved, minimize_arena, &m };

      if (!m.p->too_big)
        mp_opt_minimize_below (&probes, 8 * MAX (opt->n, 1));
    }
}

static int
cmp_arena_desc (const void *pa, const void *pb, void *data)
{
  const Partition *parts = data;
  guint            a = *(const guint *) pa, b = *(const guint *) pb;

  if (parts[a].arena != parts[b].arena)
    return parts[a].arena > parts[b].arena ? -1 : 1;
  return (a > b) - (a < b);
}

static gboolean
all_done (const Optimal *opt, guint64 capacity)
{
  for (guint k = 0; k < opt->n_parts; k++)
    {
      const Partition *p = &opt->parts[k];

      if (capacity ? p->arena > capacity && p->proved <= capacity && !p->too_big
                   : p->arena > opt->bound && !p->too_big)
        return FALSE;
    }
  return TRUE;
}

static gboolean
capacity_refuted (const Optimal *opt, guint64 capacity)
{
  for (guint k = 0; k < opt->n_parts; k++)
    if (opt->parts[k].proved > capacity)
      return TRUE;
  return FALSE;
}

/* The note: the answer to the capacity asked, then the search's status; the
 * verdict (verdict.c) says why a plan does not fit in full. */
static char *
describe (const Optimal *opt, guint64 arena, guint64 capacity, gdouble seconds, guint64 nodes,
          const char *from, gboolean *proved)
{
  g_autofree char *bound = mp_format_bytes (opt->bound);
  g_autofree char *cap = mp_format_capacity (capacity);
  g_autofree char *secs = mp_format_seconds (seconds);
  gdouble          gap = opt->bound ? 100.0 * (arena - opt->bound) / opt->bound : 0.0;
  GString         *s = g_string_new (NULL);

  *proved = arena <= opt->bound;
  if (capacity && arena <= capacity)
    g_string_append_printf (s, "fits in capacity %s; ", cap);
  else if (capacity && capacity_refuted (opt, capacity))
    g_string_append_printf (s, "does not fit in capacity %s (proved infeasible); ", cap);
  else if (capacity)
    g_string_append_printf (s, "does not fit in capacity %s (none found within the budget); ",
                            cap);

  if (*proved)
    g_string_append (s, "proved optimal");
  else if (opt->stopped && g_cancellable_is_cancelled (opt->cancellable))
    g_string_append_printf (s, "cancelled: best found, %.1f%% above the lower bound", gap);
  else if (opt->stopped)
    g_string_append_printf (s, "best found, %.1f%% above the lower bound after %s", gap, secs);
  else
    g_string_append_printf (s, "best found, %.1f%% above the lower bound", gap);
  if (opt->bound > 0 && !*proved && opt->unsearched)
    g_string_append (s, " (partitions too large for the exact search were improved by a "
                        "search over first-fit orders and a large-neighbourhood search)");
  g_string_append_printf (s, " (proved lower bound %s from the %s, first incumbent %s, %"
                          G_GUINT64_FORMAT " nodes)", bound, opt->bound_name, from, nodes);
  return g_string_free (s, FALSE);
}

MpPlan *
mp_planner_optimal (const MpGraph *graph, const MpLifetimes *lifetimes,
                    const MpPlannerOptions *options, GCancellable *cancellable, GError **error)
{
  MpPlan             *plan;
  gdouble             budget = options->time_budget > 0
                                 ? MIN (options->time_budget, MP_OPTIMAL_MAX_BUDGET)
                                 : MP_OPTIMAL_DEFAULT_BUDGET;
  guint64             capacity = options->capacity;
  gint64              start = g_get_monotonic_time ();
  g_autofree guint64 *incumbent = NULL;
  g_autofree char    *from = NULL;
  g_autofree guint   *by_arena = NULL;
  guint64             nodes = 0, limit;
  gint64              pass = 0; /* how long the last pass took */
  Optimal             opt = { 0 };

  if (lifetimes->constrained)
    return mp_optimal_constrained (graph, lifetimes, options, cancellable, error);
  plan = mp_plan_new ("optimal", lifetimes);
  opt.graph = graph;
  opt.records = plan->records;
  opt.n = plan->n_records;
  opt.alignment = plan->alignment;
  opt.cancellable = cancellable;
  opt.options = options;
  opt.start = start;
  opt.next_progress = start + G_USEC_PER_SEC;
  opt.deadline = start + (gint64) (budget * G_USEC_PER_SEC);
  opt.bound_name = mp_opt_bound_name (MP_OPT_BOUND_LIVE);
  if (options->trace)
    mp_decision_trace_search_bound (options->trace, plan->lower_bound, opt.bound_name);
  opt.bound = plan->lower_bound;

  incumbent = best_heuristic (graph, lifetimes, options,
                              start + (gint64) (budget / 2 * G_USEC_PER_SEC), &from);
  split_partitions (&opt, plan->n_steps);
  for (guint k = 0; k < opt.n_parts; k++)
    {
      Partition *p = &opt.parts[k];

      p->best = g_new (guint64, MAX (p->n, 1));
      for (guint i = 0; i < p->n; i++)
        p->best[i] = incumbent[p->members[i]];
      p->arena = partition_arena (&opt, p, p->best);
    }

  if (options->trace)
    mp_decision_trace_search_incumbent (options->trace, (g_get_monotonic_time () - start) / 1e6, 0,
                                    plan_arena (&opt), from);

  search_at_scale (&opt, capacity, budget);
  window_bounds (&opt, capacity, start + (gint64) (WINDOW_SHARE * budget * G_USEC_PER_SEC));

  /* passes with doubling node limits, the largest partitions first; from
   * 8 nodes a buffer (from 2 the passes before the proof cost G-K ten times
   * its nodes, in bisections) */
  by_arena = g_new (guint, MAX (opt.n_parts, 1));
  for (limit = 8 * MAX (opt.n, 1); !opt.stopped && !all_done (&opt, capacity);
       limit = MIN (2 * limit, G_MAXUINT64 / 4))
    {
      gint64 began = g_get_monotonic_time ();

      for (guint k = 0; k < opt.n_parts; k++)
        by_arena[k] = k;
      g_qsort_with_data (by_arena, opt.n_parts, sizeof (guint), cmp_arena_desc, opt.parts);
      if (!capacity && began + ENDGAME_PASSES * pass > opt.deadline)
        {
          minimize_endgame (&opt, by_arena);
          break;
        }
      for (guint k = 0; k < opt.n_parts && !opt.stopped; k++)
        {
          Partition *p = &opt.parts[by_arena[k]];

          if (capacity)
            fit_partition (&opt, p, capacity, limit);
          else
            minimize_partition (&opt, p, limit);
        }
      if (capacity && capacity_refuted (&opt, capacity))
        break;
      pass = g_get_monotonic_time () - began;
    }

  for (guint k = 0; k < opt.n_parts; k++)
    {
      Partition *p = &opt.parts[k];

      for (guint i = 0; i < p->n; i++)
        plan->offsets[p->members[i]] = p->best[i];
      if (p->search)
        nodes += mp_opt_search_nodes (p->search);
    }
  if (options->trace)
    for (guint r = 0; r < MP_OPT_N_PRUNES; r++)
      {
        guint64 count = 0;

        for (guint k = 0; k < opt.n_parts; k++)
          if (opt.parts[k].search)
            count += mp_opt_search_prunes (opt.parts[k].search, r);
        mp_decision_trace_search_prune (options->trace, mp_opt_prune_name (r), count);
      }
  plan->searched = TRUE;
  plan->note = describe (&opt, plan_arena (&opt), capacity,
                         (g_get_monotonic_time () - start) / 1e6, nodes, from,
                         &plan->proved_optimal);
  plan->proved_bound = opt.bound;
  plan->nodes = nodes;
  plan->bound_name = opt.bound_name;
  plan->capacity = capacity;
  plan->fits = capacity && plan_arena (&opt) <= capacity;
  plan->fit_refuted = capacity && capacity_refuted (&opt, capacity);
  if (options->trace)
    {
      options->trace->search.nodes = MAX (options->trace->search.nodes, nodes);
      options->trace->search.proved = plan->proved_optimal;
    }
  for (guint k = 0; k < opt.n_parts; k++)
    partition_clear (&opt.parts[k]);
  g_free (opt.parts);
  return plan;
}
