/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "memplan-analysis"

#include <string.h>

#include "file-util.h"
#include "memories.h"
#include "memory-estimate.h"
#include "mp-internal.h"
#include "mp-error.h"

gboolean
mp_memory_parse (const char *spec, MpMemory *memory, GError **error)
{
  const char *eq = strchr (spec, '=');
  guint64     capacity = 0;

  if (eq == spec || *spec == '\0' || (eq && !mp_parse_size (eq + 1, &capacity)) ||
      (eq && capacity == 0))
    {
      g_set_error (error, MP_ANALYSIS_ERROR, MP_ANALYSIS_ERROR_INVALID,
                   "--memory '%s': expected NAME or NAME=SIZE with a size such as 256K, 8M or "
                   "4096", spec);
      return FALSE;
    }
  memory->name = eq ? g_strndup (spec, eq - spec) : g_strdup (spec);
  memory->capacity = capacity;
  return TRUE;
}

void
mp_spill_free (MpSpill *spill)
{
  if (spill == NULL)
    return;
  for (guint k = 0; k < spill->n_memories; k++)
    g_free (spill->memories[k].name);
  g_free (spill->memories);
  g_free (spill->memory_of);
  g_free (spill->offsets);
  g_free (spill->arena);
  g_free (spill->count);
  g_free (spill->traffic);
  g_free (spill->accesses);
  g_free (spill->spilled);
  g_free (spill->spilled_bytes);
  for (guint k = 0; spill->plans && k < spill->n_memories; k++)
    mp_plan_free (spill->plans[k]);
  g_free (spill->plans);
  g_free (spill);
}

/* The records of memory k as lifetimes of their own. */
static MpLifetimes *
memory_lifetimes (const MpGraph *graph, const MpLifetimes *lt, const guint *memory_of, guint k,
                  guint *index)
{
  MpLifetimes       *sub = g_new0 (MpLifetimes, 1);
  g_autofree MpUsage *picked = g_new (MpUsage, MAX (lt->n_records, 1));
  guint              n = 0;

  sub->record_of = g_new (gint, MAX (graph->n_tensors, 1));
  for (guint t = 0; t < graph->n_tensors; t++)
    sub->record_of[t] = -1;
  for (guint i = 0; i < lt->n_records; i++)
    if (memory_of[i] == k)
      {
        index[n] = i;
        sub->record_of[lt->records[i].tensor] = n;
        picked[n++] = lt->records[i];
      }
  for (guint t = 0; t < graph->n_tensors; t++)
    if (lt->record_of[t] >= 0 && memory_of[lt->record_of[t]] == k)
      sub->record_of[t] = sub->record_of[lt->records[lt->record_of[t]].tensor];
  sub->records = mp_usage_box_dup (picked, n);
  sub->n_records = n;
  sub->n_steps = lt->n_steps;
  sub->alignment = lt->alignment;
  sub->constrained = mp_usage_constrained (sub->records, n);
  sub->live_bytes = g_new0 (guint64, MAX (lt->n_steps, 1));
  sub->lower_bound = mp_usage_lower_bound (sub->records, n, sub->n_steps, sub->live_bytes,
                                           &sub->peak_step);
  return sub;
}

/* Plans memory k; FALSE and error set when the planner fails. */
static gboolean
plan_memory (const MpGraph *graph, const MpLifetimes *lt, const MpPlannerInfo *info,
             const MpPlannerOptions *options, MpSpill *spill, guint k, GCancellable *cancellable,
             GError **error)
{
  g_autofree guint *index = g_new (guint, MAX (lt->n_records, 1));
  g_autoptr (MpLifetimes) sub = memory_lifetimes (graph, lt, spill->memory_of, k, index);
  MpPlan *plan;

  spill->arena[k] = 0;
  spill->count[k] = sub->n_records;
  g_clear_pointer (&spill->plans[k], mp_plan_free);
  if (sub->n_records == 0)
    return TRUE;
  if (!(plan = mp_planner_run (info, graph, sub, options, cancellable, error)))
    return FALSE;
  spill->arena[k] = plan->arena;
  for (guint i = 0; i < sub->n_records; i++)
    spill->offsets[index[i]] = plan->offsets[i];
  plan->capacity = spill->memories[k].capacity;
  plan->memory = g_strdup (spill->memories[k].name);
  plan->fits = !plan->capacity || plan->arena <= plan->capacity;
  spill->plans[k] = plan;
  return TRUE;
}

/* The record of memory k with the most bytes × steps that may move. */
static gint
pick_spill (const MpLifetimes *lt, const MpSpill *spill, const gboolean *pinned, guint k)
{
  gint    best = -1;
  guint64 best_weight = 0;

  for (guint i = 0; i < lt->n_records; i++)
    {
      const MpUsage *r = &lt->records[i];
      guint64        weight = r->bytes * (guint64) (r->last - r->first + 1);

      if (spill->memory_of[i] != k || (r->flags & MP_USAGE_FIXED) || pinned[i])
        continue;
      if (best < 0 || weight > best_weight)
        {
          best = i;
          best_weight = weight;
        }
    }
  return best;
}

/* The records whose tensor names a "memory" start there, matched by name
 * (the command line may list the memories in another order). */
static gboolean
pin_memories (const MpGraph *graph, const MpLifetimes *lt, MpSpill *spill, gboolean *pinned,
              GError **error)
{
  for (guint i = 0; i < lt->n_records; i++)
    {
      const MpTensor *t = &graph->tensors[lt->records[i].tensor];
      const char     *want;
      guint           k;

      if (t->memory == 0)
        continue;
      want = graph->memories[t->memory - 1].name;
      for (k = 0; k < spill->n_memories && !g_str_equal (spill->memories[k].name, want); k++)
        ;
      if (k == spill->n_memories)
        {
          mp_set_file_error (error, MP_ANALYSIS_ERROR_INVALID, graph->path,
                             "tensor '%s' must live in memory '%s', which the memories given "
                             "do not name", t->name, want);
          return FALSE;
        }
      spill->memory_of[i] = k;
      pinned[i] = TRUE;
    }
  return TRUE;
}

gint
mp_spill_memory_of_tensor (const MpSpill *spill, const MpGraph *graph,
                                    const MpLifetimes *lifetimes, guint t)
{
  gint r = t < graph->n_tensors ? lifetimes->record_of[t] : -1;

  return r >= 0 && (guint) r < spill->n_records ? (gint) spill->memory_of[r] : -1;
}

/* Each op input or output is one access; usage records have no ops, so
 * one write and one read each. */
static void
count_accesses (const MpGraph *graph, const MpLifetimes *lt, MpSpill *spill)
{
  for (guint i = 0; i < lt->n_records; i++)
    spill->accesses[i] = graph->has_ops ? 0 : 2;
  for (guint o = 0; graph->has_ops && o < graph->n_ops; o++)
    {
      const MpOp *op = &graph->ops[o];

      for (guint a = 0; a < op->n_inputs + op->n_outputs; a++)
        {
          guint id = a < op->n_inputs ? op->inputs[a] : op->outputs[a - op->n_inputs];
          gint  r = lt->record_of[id];

          if (r >= 0)
            spill->accesses[r]++;
        }
    }
}

/* The exact spill (optimal): which movable records leave memory k for the
 * next so that the fewest bytes leave (ties: the least traffic) and the
 * rest fits its capacity; memory by memory, fastest first, so each spill is
 * the least given the faster ones'. A depth-first search over keep/spill,
 * biggest first, pruned by the bytes already spilled and by the kept
 * records' lower bound; each complete choice is checked by the optimal
 * planner with the capacity (fits, or proved not to). "proved" unless a
 * check ran out of budget or the search out of nodes. */
typedef struct
{
  const MpGraph          *graph;
  const MpLifetimes      *lt;
  const MpPlannerInfo    *info;
  MpPlannerOptions        options;
  GCancellable           *cancellable;
  MpSpill                *spill;
  guint                  *order;   /* the movable records, biggest first */
  guint                   n;
  guint                   k;       /* the memory they may leave */
  guint64                 spilled, traffic;  /* of the current choice */
  guint64                 best_spilled, best_traffic;
  guint                  *best;    /* memory_of of the best choice, or NULL */
  guint64                 nodes;
  gboolean                proved;
  GError                 *error;
} Exact;

#define EXACT_MAX_MOVABLE 24
#define EXACT_MAX_NODES   200000

/* 1: memory k's records fit its capacity; 0: they cannot; -1: unknown
 * (the check ran out of budget) or error set. */
static gint
memory_fits (Exact *e, gboolean complete)
{
  g_autofree guint *index = g_new (guint, MAX (e->lt->n_records, 1));
  g_autoptr (MpLifetimes) sub = memory_lifetimes (e->graph, e->lt, e->spill->memory_of, e->k,
                                                  index);
  g_autoptr (MpPlan) plan = NULL;
  guint64 capacity = e->spill->memories[e->k].capacity;

  if (sub->lower_bound > capacity)
    return 0;
  if (!complete || sub->n_records == 0)
    return 1;
  if (!(plan = mp_planner_run (e->info, e->graph, sub, &e->options, e->cancellable, &e->error)))
    return -1;
  if (plan->arena <= capacity)
    return 1;
  return plan->fit_refuted || plan->proved_optimal ? 0 : -1;
}

static void
exact_search (Exact *e, guint depth)
{
  guint r;
  gint  fit;

  if (e->error || ++e->nodes > EXACT_MAX_NODES)
    {
      e->proved = FALSE;
      return;
    }
  if (e->best && (e->spilled > e->best_spilled ||
                  (e->spilled == e->best_spilled && e->traffic >= e->best_traffic)))
    return;
  /* the kept records alone are already over the capacity: spill more */
  fit = memory_fits (e, depth == e->n);
  if (fit < 0)
    e->proved = FALSE;
  if (fit <= 0)
    return;
  if (depth == e->n)
    {
      e->best_spilled = e->spilled;
      e->best_traffic = e->traffic;
      if (!e->best)
        e->best = g_new (guint, MAX (e->lt->n_records, 1));
      memcpy (e->best, e->spill->memory_of, e->lt->n_records * sizeof (guint));
      return;
    }
  /* undecided records wait outside memory k */
  r = e->order[depth];
  e->spill->memory_of[r] = e->k;
  exact_search (e, depth + 1); /* kept */
  e->spill->memory_of[r] = e->k + 1;
  e->spilled += e->lt->records[r].bytes;
  e->traffic += e->lt->records[r].bytes * e->spill->accesses[r];
  exact_search (e, depth + 1);
  e->spilled -= e->lt->records[r].bytes;
  e->traffic -= e->lt->records[r].bytes * e->spill->accesses[r];
}

static gint
by_bytes_desc (gconstpointer a, gconstpointer b, gpointer data)
{
  const MpUsage *records = data;
  guint64        x = records[*(const guint *) a].bytes, y = records[*(const guint *) b].bytes;

  return x < y ? 1 : x > y ? -1 : 0;
}

static gboolean
spill_exact (const MpGraph *graph, const MpLifetimes *lt, const MpPlannerInfo *info,
             const MpPlannerOptions *options, MpSpill *spill, const gboolean *pinned, guint k,
             GCancellable *cancellable, GError **error)
{
  g_autofree guint *order = g_new (guint, MAX (lt->n_records, 1));
  Exact             e = { graph, lt, info, *options, cancellable, spill, order, 0, k };

  e.options.capacity = spill->memories[k].capacity;
  e.proved = TRUE;
  for (guint i = 0; i < lt->n_records; i++)
    if (spill->memory_of[i] == k && !pinned[i] && !(lt->records[i].flags & MP_USAGE_FIXED))
      order[e.n++] = i;
  spill->exact = TRUE;
  if (e.n > EXACT_MAX_MOVABLE)
    {
      spill->proved = FALSE;
      return TRUE; /* the greedy rule, not proved */
    }
  g_qsort_with_data (order, e.n, sizeof (guint), by_bytes_desc, lt->records);
  for (guint i = 0; i < e.n; i++)
    spill->memory_of[order[i]] = k + 1;
  exact_search (&e, 0);
  if (e.error)
    {
      g_propagate_error (error, e.error);
      g_free (e.best);
      return FALSE;
    }
  for (guint i = 0; i < e.n; i++)
    spill->memory_of[order[i]] = e.best ? e.best[order[i]] : k;
  for (guint i = 0; i < e.n; i++)
    spill->spilled[order[i]] |= spill->memory_of[order[i]] == k + 1;
  spill->proved &= e.best && e.proved;
  g_free (e.best);
  return TRUE;
}

MpSpill *
mp_spill_plan (const MpGraph *graph, const MpLifetimes *lt, const MpPlannerInfo *info,
               const MpMemory *memories, guint n_memories, const MpPlannerOptions *options,
               GCancellable *cancellable, GError **error)
{
  g_autoptr (MpSpill) spill = g_new0 (MpSpill, 1);
  guint n = lt->n_records;
  g_autofree gboolean *pinned = g_new0 (gboolean, MAX (n, 1));

  g_return_val_if_fail (n_memories > 0, NULL);
  spill->n_memories = n_memories;
  spill->memories = g_new (MpMemory, n_memories);
  for (guint k = 0; k < n_memories; k++)
    spill->memories[k] = (MpMemory) { g_strdup (memories[k].name), memories[k].capacity };
  spill->n_records = n;
  spill->memory_of = g_new0 (guint, MAX (n, 1));
  spill->offsets = g_new0 (guint64, MAX (n, 1));
  spill->arena = g_new0 (guint64, n_memories);
  spill->count = g_new0 (guint, n_memories);
  spill->traffic = g_new0 (guint64, n_memories);
  spill->accesses = g_new0 (guint64, MAX (n, 1));
  spill->spilled = g_new0 (gboolean, MAX (n, 1));
  spill->spilled_bytes = g_new0 (guint64, n_memories);
  spill->plans = g_new0 (MpPlan *, n_memories);
  if (!pin_memories (graph, lt, spill, pinned, error))
    return NULL;
  count_accesses (graph, lt, spill);
  /* optimal: the fewest spilled bytes out of each memory but the last,
   * exactly, fastest first */
  spill->proved = g_str_equal (info->name, "optimal");
  for (guint k = 0; g_str_equal (info->name, "optimal") && k + 1 < n_memories; k++)
    if (memories[k].capacity &&
        !spill_exact (graph, lt, info, options, spill, pinned, k, cancellable, error))
      return NULL;

  for (guint k = 0; k < n_memories; k++)
    {
      guint64 capacity = memories[k].capacity;

      if (!plan_memory (graph, lt, info, options, spill, k, cancellable, error))
        return NULL;
      /* the last memory takes what is left, fitting or not */
      while (capacity && spill->arena[k] > capacity && k + 1 < n_memories)
        {
          gint victim = pick_spill (lt, spill, pinned, k);

          if (victim < 0)
            break;
          spill->memory_of[victim] = k + 1;
          spill->spilled[victim] = TRUE;
          if (!plan_memory (graph, lt, info, options, spill, k, cancellable, error))
            return NULL;
        }
    }

  spill->fits = TRUE;
  for (guint i = 0; i < n; i++)
    {
      spill->traffic[spill->memory_of[i]] += lt->records[i].bytes * spill->accesses[i];
      if (spill->spilled[i])
        spill->spilled_bytes[spill->memory_of[i]] += lt->records[i].bytes;
    }
  for (guint k = 0; k < n_memories; k++)
    spill->fits &= !memories[k].capacity || spill->arena[k] <= memories[k].capacity;
  return g_steal_pointer (&spill);
}

char *
mp_spill_capacity_problem (const MpGraph *graph, const MpPlan *plan)
{
  g_autofree char *cap = mp_format_bytes (plan->capacity);
  g_autofree char *end = NULL;
  guint            top = 0;

  g_return_val_if_fail (plan->n_records > 0, NULL);
  for (guint i = 1; i < plan->n_records; i++)
    if (plan->offsets[i] + plan->records[i].bytes >
        plan->offsets[top] + plan->records[top].bytes)
      top = i;
  end = mp_format_bytes (plan->offsets[top] + plan->records[top].bytes);
  return g_strdup_printf ("tensor '%s' ends at %s (%" G_GUINT64_FORMAT " B), over %s's capacity "
                          "of %s (%" G_GUINT64_FORMAT " B)",
                          graph->tensors[plan->records[top].tensor].name, end,
                          plan->offsets[top] + plan->records[top].bytes,
                          plan->memory ? plan->memory : "the memory", cap, plan->capacity);
}
