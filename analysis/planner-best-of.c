/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "memplan-analysis"

#include <stdlib.h>
#include <string.h>

#include "best-of.h"
#include "optimal-private.h"

/* A portfolio of one-pass heuristics, as XLA (ChooseBestHeapAlgorithm over
 * its spatial and temporal orders), ExecuTorch (MemoryPlanningAlgorithmSuite),
 * TVM USMP and MindSpore SOMAS (several sort orders × fit rules) keep the best
 * of several. Orders, each with its source; ties keep the records' order:
 *   size           largest first: Pisarchyk & Lee's greedy by size (TFLite)
 *   conflicts      most lifetime-overlapping buffers first, larger on a tie:
 *                  TVM USMP's greedy_by_conflicts, OmniMalloc's greedy_by_conflict
 *   conflict-size  conflicts × size, larger on a tie: OmniMalloc's
 *                  greedy_by_conflict_size (SOMAS sorts by size and constraints)
 *   duration       longest lifetime first: XLA's temporal order, OmniMalloc's
 *                  greedy_by_duration
 *   area           size × lifetime: OmniMalloc's greedy_by_area
 *   start          earliest start, larger on a tie: a linear-scan allocator's
 *                  order, OmniMalloc's greedy_by_start
 *   given          the records' order: OmniMalloc's plain greedy
 *   size-lifetime  largest first, the longer lifetime on a tie: XLA's
 *                  spatial order (the best-fit planner's)
 *   size-latest    largest first, the last record on a tie: TFLite Micro's
 *                  (the first-fit planner's)
 * crossed with first fit (TFLite Micro's lowest gap) and best fit (XLA's and
 * TFLite's smallest gap), each on the time index (planner-placement.c). */

static const char *const order_names[] = {
  "size", "conflicts", "conflict-size", "duration", "area", "start", "given", "size-lifetime",
  "size-latest",
};

/* for explain: the trace keeps these pointers, so they are static */
static const char *const order_rules[] = {
  "best-of's winner, size order: largest first (ties in first appearance)",
  "best-of's winner, conflict order: most overlapping lifetimes first (ties: larger first)",
  "best-of's winner, conflict-size order: the largest conflicts × size first (ties: larger first)",
  "best-of's winner, duration order: the longest lifetime first (ties in first appearance)",
  "best-of's winner, area order: the largest size × lifetime first (ties in first appearance)",
  "best-of's winner, start order: the earliest start first (ties: larger first)",
  "best-of's winner, the given order",
  "best-of's winner, size order: largest first (ties: the longer lifetime first)",
  "best-of's winner, size order: largest first (ties: the last to appear first)",
};

G_STATIC_ASSERT (G_N_ELEMENTS (order_names) == MP_BEST_OF_N_ORDERS);
G_STATIC_ASSERT (G_N_ELEMENTS (order_rules) == MP_BEST_OF_N_ORDERS);

const char *
mp_best_of_order_name (MpBestOfOrder order)
{
  g_return_val_if_fail (order < MP_BEST_OF_N_ORDERS, NULL);
  return order_names[order];
}

char *
mp_best_of_member_name (guint member)
{
  g_return_val_if_fail (member < MP_BEST_OF_N_MEMBERS, NULL);
  return g_strdup_printf ("%s + %s", order_names[member / 2],
                          member % 2 ? "best-fit" : "first-fit");
}

/* Per record, how many others share a step with it: all but those that end
 * before it starts or start after it ends (two binary searches each). */
static guint *
conflict_counts (const MpUsage *records, guint n)
{
  g_autofree guint *firsts = g_new (guint, MAX (n, 1));
  g_autofree guint *lasts = g_new (guint, MAX (n, 1));
  guint            *count = g_new (guint, MAX (n, 1));

  for (guint i = 0; i < n; i++)
    {
      firsts[i] = records[i].first;
      lasts[i] = records[i].last;
    }
  if (n > 1)
    {
      qsort (firsts, n, sizeof (guint), mp_opt_cmp_u32);
      qsort (lasts, n, sizeof (guint), mp_opt_cmp_u32);
    }
  for (guint i = 0; i < n; i++)
    {
      guint ended = mp_opt_count_below (lasts, n, records[i].first);
      guint later = n - mp_opt_count_below (firsts, n, records[i].last + 1);

      count[i] = n - 1 - ended - later;
    }
  return count;
}

static guint64
saturating_mul (guint64 a, guint64 b)
{
  guint64 product;

  return g_uint64_checked_mul (&product, a, b) ? product : G_MAXUINT64;
}

guint *
mp_best_of_order (const MpUsage *records, guint n, const gint64 *times, MpBestOfOrder order)
{
  g_autofree MpOrderKey *keys = g_new (MpOrderKey, MAX (n, 1));
  g_autofree guint      *conflicts = NULL;

  g_return_val_if_fail (order < MP_BEST_OF_N_ORDERS, NULL);
  if (order == MP_BEST_OF_CONFLICTS || order == MP_BEST_OF_CONFLICT_SIZE)
    conflicts = conflict_counts (records, n);
  for (guint i = 0; i < n; i++)
    {
      const MpUsage *r = &records[i];
      gint64         first = times ? times[2 * i] : r->first;
      gint64         last = times ? times[2 * i + 1] : r->last;
      guint64        life = (guint64) (last - first) + 1;
      MpOrderKey     k = { 0, 0, i };

      switch (order)
        {
        case MP_BEST_OF_SIZE:
          k.key = r->size;
          break;
        case MP_BEST_OF_CONFLICTS:
          k.key = conflicts[i];
          k.key2 = r->size;
          break;
        case MP_BEST_OF_CONFLICT_SIZE:
          k.key = saturating_mul (conflicts[i], r->size);
          k.key2 = r->size;
          break;
        case MP_BEST_OF_DURATION:
          k.key = life;
          break;
        case MP_BEST_OF_AREA:
          k.key = saturating_mul (life, r->size);
          break;
        case MP_BEST_OF_START:
          /* the keys sort descending: the earliest start has the largest */
          k.key = G_MAXUINT64 - ((guint64) first ^ G_GUINT64_CONSTANT (0x8000000000000000));
          k.key2 = r->size;
          break;
        case MP_BEST_OF_SIZE_LIFETIME:
          k.key = r->size;
          k.key2 = life;
          break;
        case MP_BEST_OF_SIZE_LATEST:
          k.key = r->size;
          k.key2 = i;
          break;
        case MP_BEST_OF_GIVEN:
        case MP_BEST_OF_N_ORDERS:
        default:
          break;
        }
      keys[i] = k;
    }
  return mp_order_from_keys (keys, n);
}

static guint64
arena_of (const MpUsage *records, guint n, const guint64 *offsets)
{
  guint64 arena = 0;

  for (guint i = 0; i < n; i++)
    arena = MAX (arena, offsets[i] + records[i].size);
  return arena;
}

static MpPlaceRule
member_rule (guint member)
{
  return member % 2 ? MP_PLACE_BEST_FIT : MP_PLACE_FIRST_FIT;
}

guint64
mp_best_of_place_member (const MpUsage *records, guint n, guint n_steps, const gint64 *times,
                         guint member, guint64 *offsets)
{
  g_autofree guint *order = NULL;

  g_return_val_if_fail (member < MP_BEST_OF_N_MEMBERS, 0);
  order = mp_best_of_order (records, n, times, member / 2);
  mp_place_in_order (records, n, n_steps, order, member_rule (member), offsets, NULL, NULL, NULL);
  return arena_of (records, n, offsets);
}

typedef struct
{
  const MpUsage *records;
  guint          n;
  guint          n_steps;
  const gint64  *times;
  GCancellable  *cancellable;
  GMutex         lock;
  guint64       *best;       /* the winner's offsets so far, or NULL */
  guint64        best_arena;
  guint          best_member;
  GError        *error;      /* the first cancellation */
} Portfolio;

static void
run_member (gpointer data, gpointer user_data)
{
  Portfolio         *p = user_data;
  guint              member = GPOINTER_TO_UINT (data) - 1;
  g_autofree guint64 *offsets = NULL;
  g_autofree guint   *order = NULL;
  GError             *error = NULL;
  guint64             arena;

  if (g_cancellable_is_cancelled (p->cancellable))
    {
      g_mutex_lock (&p->lock);
      if (p->error == NULL)
        g_cancellable_set_error_if_cancelled (p->cancellable, &p->error);
      g_mutex_unlock (&p->lock);
      return;
    }
  offsets = g_new (guint64, MAX (p->n, 1));
  order = mp_best_of_order (p->records, p->n, p->times, member / 2);
  if (!mp_place_in_order (p->records, p->n, p->n_steps, order, member_rule (member), offsets,
                          NULL, p->cancellable, &error))
    {
      g_mutex_lock (&p->lock);
      if (p->error == NULL)
        p->error = g_steal_pointer (&error);
      g_mutex_unlock (&p->lock);
      g_clear_error (&error);
      return;
    }
  arena = arena_of (p->records, p->n, offsets);
  g_mutex_lock (&p->lock);
  /* (arena, member) decides, whichever thread ends first */
  if (p->best == NULL || arena < p->best_arena ||
      (arena == p->best_arena && member < p->best_member))
    {
      guint64 *loser = p->best;

      p->best = g_steal_pointer (&offsets);
      p->best_arena = arena;
      p->best_member = member;
      offsets = loser;
    }
  g_mutex_unlock (&p->lock);
}

gboolean
mp_best_of_place (const MpUsage *records, guint n, guint n_steps, const gint64 *times,
                  guint64 *offsets, guint64 *arena, guint *member, GCancellable *cancellable,
                  GError **error)
{
  Portfolio p = { records, n, n_steps, times, cancellable };
  guint     n_threads = MIN ((guint) g_get_num_processors (), MP_BEST_OF_MAX_THREADS);

  g_mutex_init (&p.lock);
  /* a few thousand records take less than starting threads costs */
  if (n_threads > 1 && n >= 4096)
    {
      GThreadPool *pool = g_thread_pool_new (run_member, &p, n_threads, FALSE, NULL);

      for (guint m = 0; m < MP_BEST_OF_N_MEMBERS; m++)
        g_thread_pool_push (pool, GUINT_TO_POINTER (m + 1), NULL);
      g_thread_pool_free (pool, FALSE, TRUE);
    }
  else
    for (guint m = 0; m < MP_BEST_OF_N_MEMBERS; m++)
      run_member (GUINT_TO_POINTER (m + 1), &p);
  g_mutex_clear (&p.lock);
  if (p.error)
    {
      g_propagate_error (error, p.error);
      g_free (p.best);
      return FALSE;
    }
  memcpy (offsets, p.best, sizeof (guint64) * n);
  g_free (p.best);
  *arena = p.best_arena;
  *member = p.best_member;
  return TRUE;
}

MpPlan *
mp_planner_best_of (const MpGraph *graph, const MpLifetimes *lifetimes,
                    const MpPlannerOptions *options, GCancellable *cancellable, GError **error)
{
  g_autoptr (MpPlan)  plan = mp_plan_new ("best-of", lifetimes);
  guint               n = plan->n_records;
  g_autofree gint64  *times = g_new (gint64, 2 * MAX (n, 1));
  g_autofree char    *name = NULL;
  guint64             arena;
  guint               member;

  for (guint i = 0; i < n; i++)
    mp_usage_times (graph, &plan->records[i], &times[2 * i], &times[2 * i + 1]);
  if (!mp_best_of_place (plan->records, n, plan->n_steps, times, plan->offsets, &arena, &member,
                         cancellable, error))
    return NULL;
  name = mp_best_of_member_name (member);
  if (G_UNLIKELY (options->trace))
    {
      /* the winner again, its decisions recorded */
      g_autofree guint *order = mp_best_of_order (plan->records, n, times, member / 2);

      mp_decision_trace_rules (options->trace, order_rules[member / 2],
                               member % 2 ? MP_RULE_SMALLEST_GAP
                                          : "each into the lowest gap between the placed "
                                            "tensors that overlap it in time that holds it, "
                                            "else on top of them");
      if (!mp_place_in_order (plan->records, n, plan->n_steps, order, member_rule (member),
                              plan->offsets, options->trace, cancellable, error))
        return NULL;
    }
  /* shown as "best-of: conflict-size + first-fit" */
  plan->note = g_steal_pointer (&name);
  return g_steal_pointer (&plan);
}
