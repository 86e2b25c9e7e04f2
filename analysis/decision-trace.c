/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "memplan-analysis"

#include "decision-trace.h"
#include "planner-private.h"
#include "plan-io.h"
#include "text-util.h"
#include "time-index.h"
#include "verdict.h"

/* Recording runs only on the tracing path: the planners call these helpers
 * behind a NULL check, with the sorted span union they already have (or,
 * for greedy-by-size, one built by mp_time_index_busy for the purpose). */

static void
search_clear (MpSearchSummary *s)
{
  for (guint i = 0; s->incumbents && i < s->incumbents->len; i++)
    g_free (g_array_index (s->incumbents, MpSearchIncumbent, i).source);
  for (guint i = 0; s->prunes && i < s->prunes->len; i++)
    g_free (g_array_index (s->prunes, MpSearchPrunes, i).reason);
  for (guint i = 0; s->bounds && i < s->bounds->len; i++)
    g_free (g_array_index (s->bounds, MpSearchBound, i).proof);
  g_clear_pointer (&s->bounds, g_array_unref);
  g_clear_pointer (&s->incumbents, g_array_unref);
  g_clear_pointer (&s->prunes, g_array_unref);
  s->nodes = 0;
  s->proved = FALSE;
}

MpDecisionTrace *
mp_decision_trace_new (void)
{
  MpDecisionTrace *trace = g_new0 (MpDecisionTrace, 1);

  trace->steps = g_array_new (FALSE, FALSE, sizeof (MpDecisionStep));
  trace->candidates = g_array_new (FALSE, FALSE, sizeof (MpDecisionCandidate));
  return trace;
}

void
mp_decision_trace_reset (MpDecisionTrace *trace)
{
  g_return_if_fail (trace != NULL);

  g_clear_pointer (&trace->planner, g_free);
  trace->order_rule = trace->place_rule = NULL;
  g_array_set_size (trace->steps, 0);
  g_array_set_size (trace->candidates, 0);
  trace->n_partitions = 0;
  g_clear_pointer (&trace->partition_offsets, g_free);
  g_clear_pointer (&trace->partition_sizes, g_free);
  search_clear (&trace->search);
  trace->has_search = FALSE;
  trace->finished = FALSE;
}

void
mp_decision_trace_free (MpDecisionTrace *trace)
{
  if (trace == NULL)
    return;
  mp_decision_trace_reset (trace);
  g_array_unref (trace->steps);
  g_array_unref (trace->candidates);
  g_clear_pointer (&trace->busy, g_array_unref);
  g_free (trace);
}

static MpDecisionStep *
push_step (MpDecisionTrace *trace, guint record, MpDecisionReason reason, guint64 offset)
{
  MpDecisionStep step = { 0 };

  step.record = record;
  step.op = -1;
  step.reason = reason;
  step.offset = offset;
  step.partition = G_MAXUINT;
  step.first_candidate = trace->candidates->len;
  step.chosen = -1;
  g_array_append_val (trace->steps, step);
  return &g_array_index (trace->steps, MpDecisionStep, trace->steps->len - 1);
}

static void
push_candidate (MpDecisionTrace *trace, MpDecisionStep *step, guint64 offset, guint64 size,
                guint partition, guint64 weight, gboolean fits, gboolean chosen)
{
  MpDecisionCandidate c = { offset, size, partition, weight, fits };

  if (step->n_stored == MP_DECISION_MAX_CANDIDATES)
    {
      /* full: the chosen one still gets the last place */
      if (!chosen)
        return;
      g_array_set_size (trace->candidates, trace->candidates->len - 1);
      step->n_stored--;
    }
  if (chosen)
    step->chosen = step->n_stored;
  g_array_append_val (trace->candidates, c);
  step->n_stored++;
}

void
mp_decision_trace_own_region (MpDecisionTrace *trace, guint record, guint64 offset)
{
  MpDecisionStep *step = push_step (trace, record, MP_DECISION_OWN_REGION, offset);

  step->top = offset;
}

static void
trace_gaps (MpDecisionTrace *trace, guint record, const GArray *busy, guint64 size, guint64 offset,
            MpDecisionReason in_gap)
{
  const MpSpan *s = (const MpSpan *) busy->data;
  guint64       prev = 0;
  MpDecisionStep  *step;

  for (guint i = 0; i < busy->len; i++)
    prev = s[i].end;
  step = push_step (trace, record, offset == prev ? MP_DECISION_ON_TOP : in_gap, offset);
  step->top = prev;
  prev = 0;
  for (guint i = 0; i < busy->len; i++)
    {
      guint64  gap = s[i].start - prev;
      gboolean fits = gap >= size;

      if (gap > 0)
        {
          step->n_candidates++;
          step->n_fitting += fits;
          if (fits && prev == offset)
            step->gap = gap;
          push_candidate (trace, step, prev, gap, G_MAXUINT, 0, fits, fits && prev == offset);
        }
      prev = s[i].end;
    }
}

void
mp_decision_trace_partition (MpDecisionTrace *trace, guint record, const GArray *busy, guint n_parts,
                         const guint64 *weights, guint chosen, gboolean opened)
{
  const MpSpan *s = (const MpSpan *) busy->data;
  MpDecisionStep  *step = push_step (trace, record,
                                  opened ? MP_DECISION_NEW_PARTITION : MP_DECISION_JOINED_PARTITION, 0);
  guint         j = 0;

  step->partition = chosen;
  step->n_candidates = n_parts;
  /* the free partitions are the gaps of the busy union below n_parts */
  for (guint i = 0; i <= busy->len; i++)
    {
      guint lo = i ? (guint) s[i - 1].end : 0;
      guint hi = i < busy->len ? MIN ((guint) s[i].start, n_parts) : n_parts;

      if (lo < hi)
        step->n_fitting += hi - lo;
    }
  for (guint p = 0; p < n_parts; p++)
    {
      gboolean fits;

      /* full: only the chosen one is still to be kept */
      if (step->n_stored >= MP_DECISION_MAX_CANDIDATES)
        {
          if (opened || p > chosen)
            break;
          p = chosen;
        }
      while (j < busy->len && s[j].end <= p)
        j++;
      fits = !(j < busy->len && s[j].start <= p);
      push_candidate (trace, step, 0, 0, p, weights[p], fits, !opened && p == chosen);
    }
}

void
mp_decision_trace_set_op (MpDecisionTrace *trace, guint k, gint op)
{
  g_array_index (trace->steps, MpDecisionStep, k).op = op;
}

void
mp_decision_trace_search_incumbent (MpDecisionTrace *trace, gdouble seconds, guint64 nodes,
                                guint64 arena, const char *source)
{
  MpSearchIncumbent inc = { seconds, nodes, arena, g_strdup (source) };

  g_return_if_fail (trace != NULL);
  if (trace->search.incumbents == NULL)
    trace->search.incumbents = g_array_new (FALSE, FALSE, sizeof (MpSearchIncumbent));
  g_array_append_val (trace->search.incumbents, inc);
  trace->search.nodes = MAX (trace->search.nodes, nodes);
  trace->has_search = TRUE;
}

void
mp_decision_trace_search_bound (MpDecisionTrace *trace, guint64 value, const char *proof)
{
  MpSearchBound b = { value, g_strdup (proof) };

  g_return_if_fail (trace != NULL && proof != NULL);
  if (trace->search.bounds == NULL)
    trace->search.bounds = g_array_new (FALSE, FALSE, sizeof (MpSearchBound));
  g_array_append_val (trace->search.bounds, b);
  trace->has_search = TRUE;
}

void
mp_decision_trace_search_prune (MpDecisionTrace *trace, const char *reason, guint64 count)
{
  MpSearchPrunes p;

  g_return_if_fail (trace != NULL && reason != NULL);
  if (trace->search.prunes == NULL)
    trace->search.prunes = g_array_new (FALSE, FALSE, sizeof (MpSearchPrunes));
  trace->has_search = TRUE;
  for (guint i = 0; i < trace->search.prunes->len; i++)
    if (g_str_equal (g_array_index (trace->search.prunes, MpSearchPrunes, i).reason, reason))
      {
        g_array_index (trace->search.prunes, MpSearchPrunes, i).count += count;
        return;
      }
  p.reason = g_strdup (reason);
  p.count = count;
  g_array_append_val (trace->search.prunes, p);
}

/* Partition sizes and offsets from the steps that opened them. */
static gboolean
stack_partitions (const MpDecisionTrace *trace, const MpUsage *records, guint n_records,
                  guint n_steps, GArray *sizes, GError **error)
{
  for (guint k = 0; k < n_steps; k++)
    {
      const MpDecisionStep *step = mp_decision_trace_step (trace, k);

      if (step->reason == MP_DECISION_NEW_PARTITION)
        {
          guint64 size = records[step->record].size;

          if (step->partition != sizes->len)
            {
              g_set_error (error, MP_ANALYSIS_ERROR, MP_ANALYSIS_ERROR_INVALID,
                           "trace step %u opens partition %u, expected %u", k, step->partition,
                           sizes->len);
              return FALSE;
            }
          g_array_append_val (sizes, size);
        }
      else if (step->reason == MP_DECISION_JOINED_PARTITION && step->partition >= sizes->len)
        {
          g_set_error (error, MP_ANALYSIS_ERROR, MP_ANALYSIS_ERROR_INVALID,
                       "trace step %u joins partition %u, which is not open", k, step->partition);
          return FALSE;
        }
    }
  return TRUE;
}

gboolean
mp_decision_trace_replay (const MpDecisionTrace *trace, const MpUsage *records, guint n_records,
                      guint n_steps, guint64 *offsets, GError **error)
{
  g_autoptr (GArray) sizes = g_array_new (FALSE, FALSE, sizeof (guint64));
  gboolean full = n_steps >= trace->steps->len;
  guint64  top = 0;

  g_return_val_if_fail (trace != NULL && offsets != NULL, FALSE);

  n_steps = MIN (n_steps, trace->steps->len);
  for (guint i = 0; i < n_records; i++)
    offsets[i] = G_MAXUINT64;
  /* every step's record is in range before the partitions read their sizes */
  for (guint k = 0; k < n_steps; k++)
    if (mp_decision_trace_step (trace, k)->record >= n_records)
      {
        g_set_error (error, MP_ANALYSIS_ERROR, MP_ANALYSIS_ERROR_INVALID,
                     "trace step %u places record %u of %u", k,
                     mp_decision_trace_step (trace, k)->record, n_records);
        return FALSE;
      }
  if (!stack_partitions (trace, records, n_records, n_steps, sizes, error))
    return FALSE;
  /* prefix sums: partitions stacked in the order they were opened */
  for (guint p = 0; p < sizes->len; p++)
    {
      guint64 size = g_array_index (sizes, guint64, p);

      g_array_index (sizes, guint64, p) = top;
      top += size;
    }
  for (guint k = 0; k < n_steps; k++)
    {
      const MpDecisionStep *step = mp_decision_trace_step (trace, k);

      if (offsets[step->record] != G_MAXUINT64)
        {
          g_set_error (error, MP_ANALYSIS_ERROR, MP_ANALYSIS_ERROR_INVALID,
                       "trace step %u places record %u a second time", k, step->record);
          return FALSE;
        }
      if (step->partition != G_MAXUINT)
        offsets[step->record] = g_array_index (sizes, guint64, step->partition);
      else
        offsets[step->record] = step->offset;
    }
  if (full)
    for (guint i = 0; i < n_records; i++)
      if (offsets[i] == G_MAXUINT64)
        {
          g_set_error (error, MP_ANALYSIS_ERROR, MP_ANALYSIS_ERROR_INVALID,
                       "the trace never places record %u", i);
          return FALSE;
        }
  return TRUE;
}

void
mp_decision_trace_finish (MpDecisionTrace *trace, const MpPlan *plan)
{
  g_autoptr (GArray) sizes = g_array_new (FALSE, FALSE, sizeof (guint64));
  guint64 arena = 0;

  g_return_if_fail (trace != NULL && plan != NULL);

  g_free (trace->planner);
  trace->planner = g_strdup (plan->planner);
  if (stack_partitions (trace, plan->records, plan->n_records, trace->steps->len, sizes, NULL) &&
      sizes->len)
    {
      trace->n_partitions = sizes->len;
      trace->partition_sizes = g_memdup2 (sizes->data, sizes->len * sizeof (guint64));
      trace->partition_offsets = g_new (guint64, sizes->len);
      guint64 top = 0;

      for (guint p = 0; p < sizes->len; p++)
        {
          trace->partition_offsets[p] = top;
          top += trace->partition_sizes[p];
        }
    }
  for (guint k = 0; k < trace->steps->len; k++)
    {
      MpDecisionStep   *step = &g_array_index (trace->steps, MpDecisionStep, k);
      const MpUsage *r = &plan->records[step->record];

      if (step->partition != G_MAXUINT && step->partition < trace->n_partitions)
        {
          step->offset = trace->partition_offsets[step->partition];
          for (guint i = 0; i < step->n_stored; i++)
            {
              MpDecisionCandidate *c = &g_array_index (trace->candidates, MpDecisionCandidate,
                                                    step->first_candidate + i);

              c->offset = trace->partition_offsets[c->partition];
              c->size = trace->partition_sizes[c->partition];
            }
        }
      arena = MAX (arena, step->offset + r->bytes);
      step->arena = arena;
    }
  trace->finished = TRUE;
}

/* Text ------------------------------------------------------------------ */

/* A record's steps as every view counts them (ranks for usage records,
 * groups for a plan over the parallel schedule), with a file's own times
 * beside them where they differ, as the app's axis says them. */
static void
append_steps (GString *s, const MpGraph *graph, const MpPlan *plan, const MpUsage *r)
{
  const char *unit = plan->parallel ? "group" : "step";
  gint64      first, last;

  if (r->first == r->last)
    g_string_append_printf (s, "%s %u", unit, r->first);
  else
    g_string_append_printf (s, "%ss %u–%u", unit, r->first, r->last);
  if (plan->parallel || graph->has_ops)
    return;
  mp_usage_times (graph, r, &first, &last);
  if (first == r->first && last == r->last)
    return; /* the file counts as the ranks do */
  if (first == last)
    g_string_append_printf (s, ", time %" G_GINT64_FORMAT " in the file", first);
  else
    g_string_append_printf (s, ", times %" G_GINT64_FORMAT "–%" G_GINT64_FORMAT " in the file",
                            first, last);
}

static void
append_tensor (GString *s, const MpDecisionTrace *trace, const MpGraph *graph, const MpPlan *plan,
               const MpDecisionStep *step)
{
  const MpUsage   *r = &plan->records[step->record];
  g_autofree char *size = mp_format_bytes (r->size);
  /* one line per tensor whatever its name holds */
  g_autofree char *name = mp_escape_name (graph->tensors[r->tensor].name);

  g_string_append_printf (s, "%s (%s, ", name, size);
  append_steps (s, graph, plan, r);
  if (step->op >= 0 && (guint) step->op < graph->n_ops)
    {
      g_autofree char *op = mp_escape_name (graph->ops[step->op].name);

      g_string_append_printf (s, "; op %s", op);
    }
  g_string_append (s, "): ");
}

static void
explain_gap (GString *s, const MpPlan *plan, const MpDecisionStep *step)
{
  g_autofree char *at = mp_format_bytes (step->offset);
  g_autofree char *waste = mp_format_bytes (step->gap - plan->records[step->record].size);
  g_autofree char *of = step->n_fitting < step->n_candidates
                          ? g_strdup_printf (" of %u", step->n_candidates) : g_strdup ("");

  if (step->n_fitting == 1)
    g_string_append_printf (s, "1%s gap%s fits, at %s", of, *of ? "s" : "", at);
  else
    g_string_append_printf (s, "%u%s gaps fit; the %s, at %s,", step->n_fitting, of,
                            step->reason == MP_DECISION_LOWEST_GAP ? "lowest" : "smallest", at);
  if (step->gap == plan->records[step->record].size)
    g_string_append (s, step->n_fitting == 1 ? ", exactly" : " fits exactly");
  else
    g_string_append_printf (s, step->n_fitting == 1 ? ", wasting %s" : " wastes %s", waste);
}

static void
explain_on_top (GString *s, const MpDecisionTrace *trace, const MpDecisionStep *step)
{
  g_autofree char *at = mp_format_bytes (step->offset);
  guint64          largest = 0;

  if (step->top == 0)
    {
      g_string_append (s, "nothing placed overlaps it in time: at 0");
      return;
    }
  for (guint i = 0; i < step->n_stored; i++)
    largest = MAX (largest, mp_decision_trace_candidate (trace, step, i)->size);
  if (step->n_candidates == 0)
    g_string_append_printf (s, "no gap among the tensors it overlaps; on top of them, at %s", at);
  else
    {
      g_autofree char *big = mp_format_bytes (largest);

      if (step->n_candidates == 1)
        g_string_append_printf (s, "its only gap, %s, is too small; on top, at %s", big, at);
      else
        g_string_append_printf (s, "none of %u gaps fits (the largest is %s); on top, at %s",
                                step->n_candidates, big, at);
    }
}

static void
explain_partition (GString *s, const MpDecisionTrace *trace, const MpDecisionStep *step)
{
  g_autofree char *at = mp_format_bytes (step->offset);

  if (step->reason == MP_DECISION_NEW_PARTITION)
    {
      if (step->n_candidates == 0)
        g_string_append_printf (s, "the first; opens partition P%u, at %s", step->partition, at);
      else
        g_string_append_printf (s, "%s live with it; opens partition P%u, at %s",
                                step->n_candidates == 1 ? "the only partition has a member"
                                                        : "every partition has a member",
                                step->partition, at);
      return;
    }
  for (guint i = 0; i < step->n_stored; i++)
    {
      const MpDecisionCandidate *c = mp_decision_trace_candidate (trace, step, i);

      if (c->partition == step->partition)
        {
          g_autofree char *w = mp_format_bytes (c->weight);

          if (step->n_candidates == 1)
            g_string_append_printf (s, "the only partition is free over its lifetime: joins P%u "
                                       "(%s of members), at %s",
                                    step->partition, w, at);
          else if (step->n_fitting == 1)
            g_string_append_printf (s, "1 of %u partitions is free over its lifetime: joins P%u "
                                       "(%s of members), at %s",
                                    step->n_candidates, step->partition, w, at);
          else if (step->n_fitting == step->n_candidates)
            g_string_append_printf (s, "all %u partitions are free over its lifetime; joins the "
                                       "heaviest, P%u (%s of members), at %s",
                                    step->n_candidates, step->partition, w, at);
          else
            g_string_append_printf (s, "%u of %u partitions are free over its lifetime; joins "
                                       "the heaviest, P%u (%s of members), at %s",
                                    step->n_fitting, step->n_candidates, step->partition, w, at);
          return;
        }
    }
  g_assert_not_reached ();
}

char *
mp_decision_trace_explain_step (const MpDecisionTrace *trace, const MpGraph *graph, const MpPlan *plan,
                            guint k)
{
  const MpDecisionStep *step;
  GString           *s = g_string_new (NULL);

  g_return_val_if_fail (trace != NULL && k < trace->steps->len, NULL);

  step = mp_decision_trace_step (trace, k);
  append_tensor (s, trace, graph, plan, step);
  switch (step->reason)
    {
    case MP_DECISION_OWN_REGION:
      {
        g_autofree char *at = mp_format_bytes (step->offset);
        g_string_append_printf (s, "its own region, on top of everything, at %s", at);
      }
      break;
    case MP_DECISION_SMALLEST_GAP:
    case MP_DECISION_LOWEST_GAP:
      explain_gap (s, plan, step);
      break;
    case MP_DECISION_ON_TOP:
      explain_on_top (s, trace, step);
      break;
    case MP_DECISION_NEW_PARTITION:
    case MP_DECISION_JOINED_PARTITION:
      explain_partition (s, trace, step);
      break;
    }
  return g_string_free (s, FALSE);
}

static void
explain_search (GString *s, const MpSearchSummary *search)
{
  g_string_append (s, "search:\n");
  for (guint i = 0; search->bounds && i < search->bounds->len; i++)
    {
      const MpSearchBound *b = &g_array_index (search->bounds, MpSearchBound, i);
      g_autofree char     *value = mp_format_capacity (b->value);

      g_string_append_printf (s, "  lower bound %s from the %s\n", value, b->proof);
    }
  for (guint i = 0; search->incumbents && i < search->incumbents->len; i++)
    {
      const MpSearchIncumbent *inc = &g_array_index (search->incumbents, MpSearchIncumbent, i);
      g_autofree char         *arena = mp_format_bytes (inc->arena);
      g_autofree char         *t = mp_format_seconds (inc->seconds);

      g_string_append_printf (s, "  %s incumbent %s from %s after %" G_GUINT64_FORMAT
                                 " nodes (%s)\n",
                              i ? "better" : "first", arena, inc->source, inc->nodes, t);
    }
  for (guint i = 0; search->prunes && i < search->prunes->len; i++)
    {
      const MpSearchPrunes *p = &g_array_index (search->prunes, MpSearchPrunes, i);

      g_string_append_printf (s, "  pruned by %s: %" G_GUINT64_FORMAT "\n", p->reason, p->count);
    }
  g_string_append_printf (s, "  %" G_GUINT64_FORMAT " nodes; %s", search->nodes,
                          search->proved ? "optimality proved" : "optimality not proved");
  if (search->bounds && search->bounds->len)
    g_string_append_printf (s, "; the proof of the lower bound: the %s",
                            g_array_index (search->bounds, MpSearchBound,
                                           search->bounds->len - 1).proof);
  g_string_append_c (s, '\n');
}

char *
mp_decision_trace_explain (const MpDecisionTrace *trace, const MpGraph *graph, const MpPlan *plan)
{
  GString         *s = g_string_new (NULL);
  g_autofree char *lb = mp_format_bytes (plan->lower_bound);
  g_autofree char *arena = mp_format_bytes (plan->arena);
  g_autofree char *graph_name = NULL;
  guint            width = 1;

  g_return_val_if_fail (trace != NULL && graph != NULL && plan != NULL, NULL);

  graph_name = mp_escape_name (graph->name);
  for (guint n = trace->steps->len; n >= 10; n /= 10)
    width++;
  g_string_append_printf (s, "%s on %s: %u tensors, lower bound %s\n", plan->planner,
                          graph_name, plan->n_records, lb);
  if (trace->order_rule)
    g_string_append_printf (s, "order: %s\n", trace->order_rule);
  if (trace->place_rule)
    g_string_append_printf (s, "rule: %s\n", trace->place_rule);
  if (trace->steps->len)
    g_string_append_c (s, '\n');
  else if (!trace->has_search)
    g_string_append (s, "(this planner records no decisions)\n");
  for (guint k = 0; k < trace->steps->len; k++)
    {
      g_autofree char *line = mp_decision_trace_explain_step (trace, graph, plan, k);
      g_autofree char *after = mp_format_bytes (mp_decision_trace_step (trace, k)->arena);

      g_string_append_printf (s, "%*u. %s; arena %s\n", width, k + 1, line, after);
    }
  if (trace->has_search)
    explain_search (s, &trace->search);
  g_string_append_printf (s, "\narena %s, %.4f × the lower bound", arena, mp_plan_ratio (plan));
  if (plan->n_partitions)
    g_string_append_printf (s, ", %u partitions", plan->n_partitions);
  g_string_append_c (s, '\n');
  return g_string_free (s, FALSE);
}

/* Placement --------------------------------------------------------------- */

void
mp_decision_trace_rules (MpDecisionTrace *trace, const char *order, const char *place)
{
  if (trace == NULL)
    return;
  trace->order_rule = order;
  trace->place_rule = place;
}

static guint64
trace_fit (MpDecisionTrace *trace, MpTimeIndex *index, guint record, const MpUsage *r,
           gboolean first_fit)
{
  guint64 offset;

  if (trace->busy == NULL)
    trace->busy = g_array_new (FALSE, FALSE, sizeof (MpSpan));
  mp_time_index_busy (index, r->first, r->last, trace->busy);
  offset = first_fit ? mp_spans_first_fit (trace->busy, r->size)
                     : mp_spans_best_fit (trace->busy, r->size);
  trace_gaps (trace, record, trace->busy, r->size, offset,
              first_fit ? MP_DECISION_LOWEST_GAP : MP_DECISION_SMALLEST_GAP);
  return offset;
}

guint64
mp_decision_trace_best_fit (MpDecisionTrace *trace, MpTimeIndex *index, guint record, const MpUsage *r)
{
  return trace_fit (trace, index, record, r, FALSE);
}

guint64
mp_decision_trace_first_fit (MpDecisionTrace *trace, MpTimeIndex *index, guint record, const MpUsage *r)
{
  return trace_fit (trace, index, record, r, TRUE);
}
