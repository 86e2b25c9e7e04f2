/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "memplan-analysis"

#include <stdlib.h>
#include <string.h>

#include "graph-private.h"
#include "lifetimes.h"

guint64
mp_usage_lower_bound (const MpUsage *records, guint n_records, guint n_steps, guint64 *live,
                      guint *peak_step)
{
  g_autofree gint64 *delta = g_new0 (gint64, (gsize) n_steps + 1);
  guint64            best = 0, cur = 0;
  guint              best_step = 0;

  for (guint i = 0; i < n_records; i++)
    {
      delta[records[i].first] += records[i].bytes;
      delta[records[i].last + 1] -= records[i].bytes;
      /* a gap holds only its window (MiniMalloc's semantics) */
      for (guint k = 0; k < records[i].n_gaps; k++)
        {
          const MpGap *g = &records[i].gaps[k];
          gint64       freed = records[i].bytes - (g->windowed ? MIN (g->hi, records[i].bytes)
                                                                   - MIN (g->lo, g->hi) : 0);

          delta[g->first] -= freed;
          delta[g->last + 1] += freed;
        }
    }
  for (guint s = 0; s < n_steps; s++)
    {
      cur += delta[s];
      if (live)
        live[s] = cur;
      if (cur > best)
        {
          best = cur;
          best_step = s;
        }
    }
  if (peak_step)
    *peak_step = best_step;
  return best;
}

static int
cmp_i64 (const void *a, const void *b)
{
  gint64 x = *(const gint64 *) a, y = *(const gint64 *) b;

  return (x > y) - (x < y);
}

/* Explicit lifetimes (CSV, traces) use arbitrary time stamps; rank them by
 * the distinct start times so that steps stay dense. Two lifetimes overlap
 * exactly when one starts inside the other, so overlap is preserved. */
/* Starts at or below t (below when strict). */
static guint
count_starts (const gint64 *starts, guint n_starts, gint64 t, gboolean strict)
{
  guint lo = 0, hi = n_starts;

  while (lo < hi)
    {
      guint mid = lo + (hi - lo) / 2;
      if (strict ? starts[mid] < t : starts[mid] <= t)
        lo = mid + 1;
      else
        hi = mid;
    }
  return lo;
}

/* A gap's ends count as starts too (where a buffer frees space and where it
 * takes it again), so that every step sees one state of every gap. */
static guint
compress_times (const MpGraph *graph, MpUsage *records, guint n)
{
  guint              n_gaps = graph->gaps ? graph->gaps->len : 0;
  guint              n_times = n + 2 * n_gaps, n_starts = 0;
  g_autofree gint64 *starts = g_new (gint64, MAX (n_times, 1));

  for (guint i = 0; i < n; i++)
    starts[i] = graph->tensors[records[i].tensor].first;
  for (guint k = 0; k < n_gaps; k++)
    {
      starts[n + 2 * k] = g_array_index (graph->gaps, MpGap, k).first;
      starts[n + 2 * k + 1] = g_array_index (graph->gaps, MpGap, k).last + 1;
    }
  qsort (starts, n_times, sizeof (gint64), cmp_i64);
  for (guint i = 0; i < n_times; i++)
    if (n_starts == 0 || starts[n_starts - 1] != starts[i])
      starts[n_starts++] = starts[i];

  for (guint i = 0; i < n; i++)
    {
      const MpTensor *t = &graph->tensors[records[i].tensor];
      guint           lo = 0, hi = n_starts;

      /* count of starts <= last */
      while (lo < hi)
        {
          guint mid = lo + (hi - lo) / 2;
          if (starts[mid] <= t->last)
            lo = mid + 1;
          else
            hi = mid;
        }
      records[i].last = lo - 1;
      lo = 0, hi = n_starts;
      while (lo < hi)
        {
          guint mid = lo + (hi - lo) / 2;
          if (starts[mid] < t->first)
            lo = mid + 1;
          else
            hi = mid;
        }
      records[i].first = lo;
      for (guint k = 0; k < records[i].n_gaps; k++)
        {
          MpGap *g = (MpGap *) &records[i].gaps[k];

          g->first = count_starts (starts, n_starts, g->first, TRUE);
          g->last = (gint64) count_starts (starts, n_starts, g->last, FALSE) - 1;
        }
    }
  return n_starts;
}

/* Records and their gaps in one rc box, so that a plan's reference keeps
 * both. */
static MpUsage *
records_box_new (guint n, guint n_gaps)
{
  gsize    head = sizeof (MpUsage) * MAX (n, 1);
  MpUsage *records = g_atomic_rc_box_alloc0 (head + sizeof (MpGap) * n_gaps);

  return records;
}

static MpGap *
records_box_gaps (MpUsage *records, guint n)
{
  return (MpGap *) (gpointer) (records + MAX (n, 1));
}

/* Copies tensor t's own constraints into rec; its gaps go to *store. In a
 * graph with ops a gap is in op indices, like rec's lifetime, and must lie
 * inside it. */
static gboolean
attach_constraints (const MpGraph *graph, const MpTensor *t, MpUsage *rec, MpGap **store,
                    GError **error)
{
  rec->align = t->alignment;
  rec->fixed = t->fixed_offset;
  rec->preferred = t->preferred_offset;
  rec->flags = (t->has_fixed ? MP_USAGE_FIXED : 0) | (t->has_preferred ? MP_USAGE_PREFERRED : 0);
  rec->gaps = *store;
  rec->n_gaps = 0;
  for (guint k = 0; k < t->n_gaps; k++)
    {
      MpGap g = g_array_index (graph->gaps, MpGap, t->gap_first + k);

      if (graph->has_ops && (g.first < (gint64) rec->first || g.last > (gint64) rec->last))
        {
          mp_set_file_error (error, MP_ANALYSIS_ERROR_INVALID, graph->path,
                             "tensor '%s': \"gaps\"[%u] (from %" G_GINT64_FORMAT " to %"
                             G_GINT64_FORMAT ") lies outside its lifetime (ops %u to %u inclusive)",
                             t->name, k, g.first, g.last + 1, rec->first, rec->last);
          return FALSE;
        }
      (*store)[rec->n_gaps++] = g;
    }
  *store += rec->n_gaps;
  return TRUE;
}

gboolean
mp_usage_constrained (const MpUsage *records, guint n)
{
  for (guint i = 0; i < n; i++)
    if (records[i].align > 1 || records[i].flags || records[i].n_gaps)
      return TRUE;
  return FALSE;
}

MpUsage *
mp_usage_box_dup (const MpUsage *records, guint n)
{
  guint    n_gaps = 0;
  MpUsage *copy;
  MpGap   *store;

  for (guint i = 0; i < n; i++)
    n_gaps += records[i].n_gaps;
  copy = records_box_new (n, n_gaps);
  memcpy (copy, records, sizeof (MpUsage) * n);
  store = records_box_gaps (copy, n);
  for (guint i = 0; i < n; i++)
    {
      if (records[i].n_gaps)
        memcpy (store, records[i].gaps, sizeof (MpGap) * records[i].n_gaps);
      copy[i].gaps = store;
      store += records[i].n_gaps;
    }
  return copy;
}

static const char *
record_name (const MpGraph *graph, const MpUsage *r)
{
  return graph->tensors[r->tensor].name;
}

/* Constrained records carry their whole offset alignment (the plan's too);
 * fixed offsets must be aligned and must not collide with each other. */
static gboolean
check_constraints (const MpGraph *graph, MpLifetimes *lt, GError **error)
{
  for (guint i = 0; i < lt->n_records; i++)
    {
      MpUsage *r = &lt->records[i];

      r->align = mp_usage_alignment (r, lt->alignment);
      if ((r->flags & MP_USAGE_FIXED) && r->fixed % r->align != 0)
        {
          mp_set_file_error (error, MP_ANALYSIS_ERROR_INVALID, graph->path,
                             "tensor '%s': fixed offset %" G_GUINT64_FORMAT
                             " is not a multiple of its alignment %" G_GUINT64_FORMAT,
                             record_name (graph, r), r->fixed, r->align);
          return FALSE;
        }
      if (!(r->flags & MP_USAGE_FIXED))
        continue;
      for (guint j = 0; j < i; j++)
        if ((lt->records[j].flags & MP_USAGE_FIXED) &&
            mp_usage_collide (r, r->fixed, &lt->records[j], lt->records[j].fixed, FALSE))
          {
            mp_set_file_error (error, MP_ANALYSIS_ERROR_INVALID, graph->path,
                               "tensors '%s' (fixed offset %" G_GUINT64_FORMAT ") and '%s' "
                               "(fixed offset %" G_GUINT64_FORMAT ") overlap while both are live",
                               record_name (graph, &lt->records[j]), lt->records[j].fixed,
                               record_name (graph, r), r->fixed);
            return FALSE;
          }
    }
  return TRUE;
}

static gboolean
planned_kind (const MpTensor *t, const MpLifetimeOptions *options)
{
  if (t->kind == MP_TENSOR_PARAM)
    return FALSE;
  if (t->kind == MP_TENSOR_INPUT)
    return options && options->plan_inputs;
  return TRUE;
}

MpLifetimes *
mp_lifetimes_compute (const MpGraph *graph, const MpLifetimeOptions *options, GError **error)
{
  g_autoptr (MpLifetimes) lt = g_new0 (MpLifetimes, 1);
  guint64 total = 0;
  guint   n = 0;
  guint   n_gaps = graph->gaps ? graph->gaps->len : 0;
  MpGap  *store;

  g_return_val_if_fail (graph != NULL, NULL);

  lt->alignment = options && options->alignment ? options->alignment : graph->alignment;
  if (!mp_graph_check_alignment (lt->alignment, graph->path, error))
    return NULL;
  lt->record_of = g_new (gint, MAX (graph->n_tensors, 1));
  memset (lt->record_of, 0xff, sizeof (gint) * graph->n_tensors);

  if (graph->has_ops)
    {
      lt->records = records_box_new (graph->n_tensors, n_gaps);
      lt->n_steps = graph->n_ops;
      for (guint o = 0; o < graph->n_ops; o++)
        {
          const MpOp *op = &graph->ops[o];

          lt->workspace = MAX (lt->workspace, op->workspace);
          for (guint k = 0; k < op->n_inputs + op->n_outputs; k++)
            {
              guint           id = k < op->n_inputs ? op->inputs[k] : op->outputs[k - op->n_inputs];
              guint           root = mp_graph_view_root (graph, id, NULL);
              const MpTensor *r = &graph->tensors[root];
              MpUsage        *rec;

              if (!planned_kind (r, options))
                continue;
              if (lt->record_of[root] < 0)
                {
                  lt->record_of[root] = n;
                  rec = &lt->records[n++];
                  rec->tensor = root;
                  rec->first = r->kind == MP_TENSOR_INPUT ? 0 : o;
                  rec->last = o;
                  rec->size = mp_align_up (r->size, lt->alignment);
                  rec->bytes = r->size;
                }
              rec = &lt->records[lt->record_of[root]];
              rec->last = MAX (rec->last, o);
              /* outputs (or views marked as outputs) are read after the last step */
              if (graph->tensors[id].kind == MP_TENSOR_OUTPUT || r->kind == MP_TENSOR_OUTPUT)
                rec->last = graph->n_ops - 1;
            }
        }
    }
  else
    {
      lt->records = records_box_new (graph->n_tensors, n_gaps);
      store = records_box_gaps (lt->records, graph->n_tensors);
      for (guint i = 0; i < graph->n_tensors; i++)
        {
          const MpTensor *t = &graph->tensors[i];

          if (t->first < 0 || t->view_of >= 0)
            continue;
          lt->record_of[i] = n;
          lt->records[n].tensor = i;
          lt->records[n].size = mp_align_up (t->size, lt->alignment);
          lt->records[n].bytes = t->size;
          attach_constraints (graph, t, &lt->records[n], &store, NULL);
          n++;
        }
      lt->n_steps = compress_times (graph, lt->records, n);
    }
  if (graph->has_ops)
    {
      store = records_box_gaps (lt->records, graph->n_tensors);
      for (guint i = 0; i < n; i++)
        if (!attach_constraints (graph, &graph->tensors[lt->records[i].tensor], &lt->records[i],
                                 &store, error))
          return NULL;
    }
  lt->n_records = n;
  lt->constrained = mp_usage_constrained (lt->records, n);
  if (lt->constrained && !check_constraints (graph, lt, error))
    return NULL;
  lt->workspace = mp_align_up (lt->workspace, lt->alignment);

  for (guint i = 0; i < n; i++)
    if (!g_uint64_checked_add (&total, total, lt->records[i].size) ||
        total > (G_GUINT64_CONSTANT (1) << 62))
      {
        mp_set_file_error (error, MP_ANALYSIS_ERROR_INVALID, graph->path,
                           "the sizes of the planned tensors add up to more than 2^62 bytes");
        return NULL;
      }

  /* views share their root's record */
  for (guint i = 0; i < graph->n_tensors; i++)
    if (graph->tensors[i].view_of >= 0)
      lt->record_of[i] = lt->record_of[mp_graph_view_root (graph, i, NULL)];

  lt->live_bytes = g_new0 (guint64, MAX (lt->n_steps, 1));
  lt->lower_bound = mp_usage_lower_bound (lt->records, n, lt->n_steps, lt->live_bytes,
                                          &lt->peak_step);
  return g_steal_pointer (&lt);
}

void
mp_usage_times (const MpGraph *graph, const MpUsage *record, gint64 *first, gint64 *last)
{
  const MpTensor *t = graph && record->tensor < graph->n_tensors
                        ? &graph->tensors[record->tensor] : NULL;

  if (t && !graph->has_ops && t->first >= 0)
    {
      *first = t->first;
      *last = t->last;
    }
  else
    {
      *first = record->first;
      *last = record->last;
    }
}

void
mp_lifetimes_free (MpLifetimes *lt)
{
  if (lt == NULL)
    return;
  g_atomic_rc_box_release (lt->records);
  g_free (lt->live_bytes);
  g_free (lt->record_of);
  g_free (lt);
}
