/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "memplan-analysis"

#include <stdlib.h>

#include "graph-private.h"
#include "validate.h"

/* Overlap is judged on the bytes a tensor really has, not its aligned slot.
 * A sweep over steps. The buffers alive at the current step sit in a tree
 * ordered by offset; as long as they are pairwise disjoint, a new buffer can
 * only collide with its two neighbours in that order. O(n log n). */

typedef struct
{
  const MpUsage *records;
  const guint64 *offsets;
} Ctx;

static const char *
record_name (const MpGraph *graph, const MpUsage *r)
{
  return graph && r->tensor < graph->n_tensors ? graph->tensors[r->tensor].name : "?";
}

static gint
cmp_offset (gconstpointer pa, gconstpointer pb, gpointer data)
{
  const Ctx *ctx = data;
  guint      a = GPOINTER_TO_UINT (pa), b = GPOINTER_TO_UINT (pb);
  guint64    oa = ctx->offsets[a], ob = ctx->offsets[b];

  if (oa != ob)
    return oa < ob ? -1 : 1;
  return (a > b) - (a < b);
}

/* The records come as user data: validation runs in worker threads. */
static gint
cmp_first (gconstpointer pa, gconstpointer pb, gpointer data)
{
  const MpUsage *records = data;
  guint          a = *(const guint *) pa, b = *(const guint *) pb;
  guint          fa = records[a].first, fb = records[b].first;

  return fa != fb ? (fa > fb) - (fa < fb) : (a > b) - (a < b);
}

static gint
cmp_last (gconstpointer pa, gconstpointer pb, gpointer data)
{
  const MpUsage *records = data;
  guint          a = *(const guint *) pa, b = *(const guint *) pb;
  guint          la = records[a].last, lb = records[b].last;

  return la != lb ? (la > lb) - (la < lb) : (a > b) - (a < b);
}

/* Under a parallel schedule, steps are groups of ops that run together. */
static void
group_overlap_error (GError **error, const MpGraph *graph, const MpSchedule *schedule,
                     const MpUsage *records, const guint64 *offsets, guint a, guint b)
{
  const MpUsage   *ra = &records[a], *rb = &records[b];
  guint64          lo = MAX (offsets[a], offsets[b]);
  guint64          hi = MIN (offsets[a] + ra->bytes, offsets[b] + rb->bytes);
  guint            group = MAX (ra->first, rb->first);
  g_autofree char *ops = mp_schedule_describe_group (schedule, graph, group);

  g_set_error (error, MP_ANALYSIS_ERROR, MP_ANALYSIS_ERROR_INVALID,
               "tensors '%s' (offset %" G_GUINT64_FORMAT ", %" G_GUINT64_FORMAT
               " bytes, parallel groups %u-%u) and '%s' (offset %" G_GUINT64_FORMAT ", %"
               G_GUINT64_FORMAT " bytes, parallel groups %u-%u) are live together in parallel "
               "group %u (%s) and overlap in bytes [%" G_GUINT64_FORMAT ", %" G_GUINT64_FORMAT ")",
               record_name (graph, ra), offsets[a], ra->bytes, ra->first, ra->last,
               record_name (graph, rb), offsets[b], rb->bytes, rb->first, rb->last, group, ops,
               lo, hi);
}

static void
overlap_error (GError **error, const MpGraph *graph, const MpUsage *records,
               const guint64 *offsets, guint a, guint b)
{
  const MpUsage   *ra = &records[a], *rb = &records[b];
  guint64          lo = MAX (offsets[a], offsets[b]);
  guint64          hi = MIN (offsets[a] + ra->bytes, offsets[b] + rb->bytes);
  gint64           fa, la, fb, lb;
  guint            step = MAX (ra->first, rb->first);
  g_autofree char *op = NULL;

  mp_usage_times (graph, ra, &fa, &la);
  mp_usage_times (graph, rb, &fb, &lb);
  if (graph && graph->has_ops && step < graph->n_ops)
    op = g_strdup_printf (" (op '%s')", graph->ops[step].name);
  g_set_error (error, MP_ANALYSIS_ERROR, MP_ANALYSIS_ERROR_INVALID,
               "tensors '%s' (offset %" G_GUINT64_FORMAT ", %" G_GUINT64_FORMAT
               " bytes, steps %" G_GINT64_FORMAT "-%" G_GINT64_FORMAT ") and '%s' (offset %"
               G_GUINT64_FORMAT ", %" G_GUINT64_FORMAT " bytes, steps %" G_GINT64_FORMAT
               "-%" G_GINT64_FORMAT ") overlap at step %" G_GINT64_FORMAT "%s in bytes [%"
               G_GUINT64_FORMAT ", %" G_GUINT64_FORMAT ")",
               record_name (graph, ra), offsets[a], ra->bytes, fa, la, record_name (graph, rb),
               offsets[b], rb->bytes, fb, lb, MAX (fa, fb), op ? op : "", lo, hi);
}

static void
report_overlap (GError **error, const MpGraph *graph, const MpSchedule *schedule,
                const MpUsage *records, const guint64 *offsets, guint a, guint b)
{
  if (schedule && schedule->parallel)
    group_overlap_error (error, graph, schedule, records, offsets, a, b);
  else
    overlap_error (error, graph, records, offsets, a, b);
}

static gboolean
has_gaps (const MpUsage *records, guint n)
{
  for (guint i = 0; i < n; i++)
    if (records[i].n_gaps)
      return TRUE;
  return FALSE;
}

/* With gaps a buffer may share space with another during its gap, so the
 * neighbours in offset order say nothing: every pair live together is
 * checked by MiniMalloc's rule (mp_usage_collide). */
static gboolean
check_gapped (const MpGraph *graph, const MpSchedule *schedule, const MpUsage *records, guint n,
              const guint64 *offsets, const guint *by_first, GError **error)
{
  for (guint a = 0; a < n; a++)
    {
      guint i = by_first[a];

      if (offsets[i] > G_MAXINT64 / 4)
        {
          g_set_error (error, MP_ANALYSIS_ERROR, MP_ANALYSIS_ERROR_INVALID,
                       "tensor '%s': offset %" G_GUINT64_FORMAT " is beyond 2^61",
                       record_name (graph, &records[i]), offsets[i]);
          return FALSE;
        }
    }
  for (guint a = 0; a < n; a++)
    {
      guint i = by_first[a];

      for (guint b = a + 1; b < n && records[by_first[b]].first <= records[i].last; b++)
        if (mp_usage_collide (&records[i], offsets[i], &records[by_first[b]],
                              offsets[by_first[b]], FALSE))
          {
            report_overlap (error, graph, schedule, records, offsets, i, by_first[b]);
            return FALSE;
          }
    }
  return TRUE;
}

static gboolean
validate_records (const MpGraph *graph, const MpSchedule *schedule, const MpUsage *records,
                  guint n, const guint64 *offsets, guint64 alignment, guint64 arena,
                  GError **error)
{
  g_autofree guint *by_first = g_new (guint, MAX (n, 1));
  g_autofree guint *by_last = g_new (guint, MAX (n, 1));
  g_autofree GSequenceIter **where = g_new0 (GSequenceIter *, MAX (n, 1));
  g_autoptr (GSequence) live = g_sequence_new (NULL);
  Ctx   ctx = { records, offsets };
  guint j = 0;

  for (guint i = 0; i < n; i++)
    {
      const MpUsage *r = &records[i];
      guint64        end;

      if (offsets[i] == G_MAXUINT64)
        {
          g_set_error (error, MP_ANALYSIS_ERROR, MP_ANALYSIS_ERROR_INVALID,
                       "tensor '%s' has no offset in the plan", record_name (graph, r));
          return FALSE;
        }
      if (offsets[i] % mp_usage_alignment (r, alignment) != 0)
        {
          g_set_error (error, MP_ANALYSIS_ERROR, MP_ANALYSIS_ERROR_INVALID,
                       "tensor '%s': offset %" G_GUINT64_FORMAT
                       " is not a multiple of %s alignment %" G_GUINT64_FORMAT,
                       record_name (graph, r), offsets[i], r->align > alignment ? "its" : "the",
                       mp_usage_alignment (r, alignment));
          return FALSE;
        }
      if ((r->flags & MP_USAGE_FIXED) && offsets[i] != r->fixed)
        {
          g_set_error (error, MP_ANALYSIS_ERROR, MP_ANALYSIS_ERROR_INVALID,
                       "tensor '%s': offset %" G_GUINT64_FORMAT " is not its fixed offset %"
                       G_GUINT64_FORMAT, record_name (graph, r), offsets[i], r->fixed);
          return FALSE;
        }
      if (!g_uint64_checked_add (&end, offsets[i], r->bytes))
        {
          g_set_error (error, MP_ANALYSIS_ERROR, MP_ANALYSIS_ERROR_INVALID,
                       "tensor '%s': offset %" G_GUINT64_FORMAT " plus its %" G_GUINT64_FORMAT
                       " bytes overflows 64 bits",
                       record_name (graph, r), offsets[i], r->bytes);
          return FALSE;
        }
      if (end > arena)
        {
          g_set_error (error, MP_ANALYSIS_ERROR, MP_ANALYSIS_ERROR_INVALID,
                       "tensor '%s' (offset %" G_GUINT64_FORMAT ", %" G_GUINT64_FORMAT
                       " bytes) ends past the arena of %" G_GUINT64_FORMAT " bytes",
                       record_name (graph, r), offsets[i], r->bytes, arena);
          return FALSE;
        }
      by_first[i] = by_last[i] = i;
    }

  g_qsort_with_data (by_first, n, sizeof (guint), cmp_first, (gpointer) records);
  if (has_gaps (records, n))
    return check_gapped (graph, schedule, records, n, offsets, by_first, error);
  g_qsort_with_data (by_last, n, sizeof (guint), cmp_last, (gpointer) records);

  for (guint k = 0; k < n; k++)
    {
      guint          i = by_first[k];
      const MpUsage *r = &records[i];
      GSequenceIter *it, *nb;

      /* buffers that died before this one starts leave the tree */
      while (j < n && records[by_last[j]].last < r->first)
        {
          if (where[by_last[j]])
            g_sequence_remove (where[by_last[j]]);
          where[by_last[j]] = NULL;
          j++;
        }

      it = g_sequence_insert_sorted (live, GUINT_TO_POINTER (i), cmp_offset, &ctx);
      where[i] = it;
      if (!g_sequence_iter_is_begin (it))
        {
          guint p;

          nb = g_sequence_iter_prev (it);
          p = GPOINTER_TO_UINT (g_sequence_get (nb));
          if (offsets[p] + records[p].bytes > offsets[i])
            {
              report_overlap (error, graph, schedule, records, offsets, p, i);
              return FALSE;
            }
        }
      nb = g_sequence_iter_next (it);
      if (!g_sequence_iter_is_end (nb))
        {
          guint q = GPOINTER_TO_UINT (g_sequence_get (nb));

          if (offsets[q] < offsets[i] + r->bytes)
            {
              report_overlap (error, graph, schedule, records, offsets, q, i);
              return FALSE;
            }
        }
    }
  return TRUE;
}

gboolean
mp_validate_records (const MpGraph *graph, const MpUsage *records, guint n,
                     const guint64 *offsets, guint64 alignment, guint64 arena, GError **error)
{
  return validate_records (graph, NULL, records, n, offsets, alignment, arena, error);
}

gboolean
mp_validate_schedule (const MpGraph *graph, const MpPlan *plan, const MpSchedule *schedule,
                      GError **error)
{
  g_autofree MpUsage *records = NULL;

  g_return_val_if_fail (graph != NULL && plan != NULL && schedule != NULL, FALSE);
  g_return_val_if_fail (graph->has_ops && schedule->n_ops == graph->n_ops, FALSE);

  records = mp_schedule_usage (schedule, graph, plan->records, plan->n_records);
  return validate_records (graph, schedule, records, plan->n_records, plan->offsets,
                           plan->alignment, plan->arena, error);
}

