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
static guint
compress_times (const MpGraph *graph, MpUsage *records, guint n)
{
  g_autofree gint64 *starts = g_new (gint64, MAX (n, 1));
  guint              n_starts = 0;

  for (guint i = 0; i < n; i++)
    starts[i] = graph->tensors[records[i].tensor].first;
  qsort (starts, n, sizeof (gint64), cmp_i64);
  for (guint i = 0; i < n; i++)
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
    }
  return n_starts;
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

  g_return_val_if_fail (graph != NULL, NULL);

  lt->alignment = options && options->alignment ? options->alignment : graph->alignment;
  if (!mp_graph_check_alignment (lt->alignment, graph->path, error))
    return NULL;
  lt->record_of = g_new (gint, MAX (graph->n_tensors, 1));
  memset (lt->record_of, 0xff, sizeof (gint) * graph->n_tensors);

  if (graph->has_ops)
    {
      lt->records = g_atomic_rc_box_alloc (sizeof (MpUsage) * MAX (graph->n_tensors, 1));
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
      lt->records = g_atomic_rc_box_alloc (sizeof (MpUsage) * MAX (graph->n_tensors, 1));
      for (guint i = 0; i < graph->n_tensors; i++)
        {
          const MpTensor *t = &graph->tensors[i];

          if (t->first < 0 || t->view_of >= 0)
            continue;
          lt->record_of[i] = n;
          lt->records[n].tensor = i;
          lt->records[n].size = mp_align_up (t->size, lt->alignment);
          lt->records[n].bytes = t->size;
          n++;
        }
      lt->n_steps = compress_times (graph, lt->records, n);
    }
  lt->n_records = n;
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
