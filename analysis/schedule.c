/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "memplan-analysis"

#include "schedule.h"

static MpSchedule *
schedule_alloc (guint n_ops, gboolean parallel, guint max_parallel_ops)
{
  MpSchedule *s = g_new0 (MpSchedule, 1);

  s->parallel = parallel;
  s->max_parallel_ops = max_parallel_ops;
  s->n_ops = n_ops;
  s->level = g_new0 (guint, MAX (n_ops, 1));
  s->group = g_new0 (guint, MAX (n_ops, 1));
  s->group_ops = g_new0 (guint, MAX (n_ops, 1));
  return s;
}

MpSchedule *
mp_schedule_sequential (const MpGraph *graph)
{
  MpSchedule *s;

  g_return_val_if_fail (graph != NULL, NULL);

  s = schedule_alloc (graph->n_ops, FALSE, 1);
  s->group_start = g_new (guint, (gsize) graph->n_ops + 1);
  for (guint o = 0; o < graph->n_ops; o++)
    s->level[o] = s->group[o] = s->group_ops[o] = s->group_start[o] = o;
  s->group_start[graph->n_ops] = graph->n_ops;
  s->n_levels = s->n_groups = graph->n_ops;
  return s;
}

/* The op that wrote the storage a read sees: the tensor's producer, else the
 * producer of the tensor it is a view of; -1 for inputs and params. */
static gint
writer_of (const MpGraph *graph, guint tensor)
{
  gint t = tensor;

  while (graph->tensors[t].producer < 0 && graph->tensors[t].view_of >= 0)
    t = graph->tensors[t].view_of;
  return graph->tensors[t].producer;
}

MpSchedule *
mp_schedule_parallel (const MpGraph *graph, guint max_parallel_ops)
{
  g_autofree gint  *last_on_stream = NULL;
  g_autofree guint *level_start = NULL;
  guint             n_streams, n = graph->n_ops;
  MpSchedule       *s;

  g_return_val_if_fail (graph != NULL, NULL);

  s = schedule_alloc (n, TRUE, max_parallel_ops);
  n_streams = mp_graph_n_streams (graph);
  last_on_stream = g_new (gint, n_streams);
  for (guint k = 0; k < n_streams; k++)
    last_on_stream[k] = -1;

  /* ops are in a topological order, so every dependency is already levelled */
  for (guint o = 0; o < n; o++)
    {
      const MpOp *op = &graph->ops[o];
      guint       level = 0;
      gint        prev = last_on_stream[op->stream];

      if (prev >= 0)
        level = s->level[prev] + 1;
      for (guint k = 0; k < op->n_inputs; k++)
        {
          gint w = writer_of (graph, op->inputs[k]);

          if (w >= 0 && (guint) w < o)
            level = MAX (level, s->level[w] + 1);
        }
      s->level[o] = level;
      s->n_levels = MAX (s->n_levels, level + 1);
      last_on_stream[op->stream] = o;
    }

  /* counting sort by level keeps op order inside a level */
  level_start = g_new0 (guint, (gsize) s->n_levels + 1);
  for (guint o = 0; o < n; o++)
    level_start[s->level[o] + 1]++;
  for (guint l = 0; l < s->n_levels; l++)
    level_start[l + 1] += level_start[l];
  {
    g_autofree guint *fill = g_memdup2 (level_start, sizeof (guint) * ((gsize) s->n_levels + 1));

    for (guint o = 0; o < n; o++)
      s->group_ops[fill[s->level[o]]++] = o;
  }

  /* split each level into groups of at most max_parallel_ops */
  s->group_start = g_new (guint, (gsize) n + 1);
  for (guint l = 0; l < s->n_levels; l++)
    for (guint i = level_start[l]; i < level_start[l + 1]; i++)
      {
        if (i == level_start[l] ||
            (max_parallel_ops > 0 && (i - level_start[l]) % max_parallel_ops == 0))
          s->group_start[s->n_groups++] = i;
        s->group[s->group_ops[i]] = s->n_groups - 1;
      }
  s->group_start[s->n_groups] = n;
  return s;
}

void
mp_schedule_free (MpSchedule *schedule)
{
  if (schedule == NULL)
    return;
  g_free (schedule->level);
  g_free (schedule->group);
  g_free (schedule->group_start);
  g_free (schedule->group_ops);
  g_free (schedule);
}

MpUsage *
mp_schedule_usage (const MpSchedule *schedule, const MpGraph *graph, const MpUsage *records,
                   guint n_records)
{
  g_autofree gint *record_of = g_new (gint, MAX (graph->n_tensors, 1));
  MpUsage         *out = g_memdup2 (records, sizeof (MpUsage) * MAX (n_records, 1));
  guint            last_group = schedule->n_groups ? schedule->n_groups - 1 : 0;

  g_return_val_if_fail (schedule->n_ops == graph->n_ops, out);

  for (guint t = 0; t < graph->n_tensors; t++)
    record_of[t] = -1;
  for (guint i = 0; i < n_records; i++)
    {
      record_of[records[i].tensor] = i;
      out[i].first = G_MAXUINT;
      out[i].last = 0;
    }

  for (guint o = 0; o < graph->n_ops; o++)
    {
      const MpOp *op = &graph->ops[o];
      guint       g = schedule->group[o];

      for (guint k = 0; k < op->n_inputs + op->n_outputs; k++)
        {
          guint id = k < op->n_inputs ? op->inputs[k] : op->outputs[k - op->n_inputs];
          guint root = mp_graph_view_root (graph, id, NULL);
          gint  r = record_of[root];

          if (r < 0)
            continue;
          out[r].first = MIN (out[r].first, g);
          out[r].last = MAX (out[r].last, g);
          if (graph->tensors[root].kind == MP_TENSOR_INPUT)
            out[r].first = 0;
          if (graph->tensors[id].kind == MP_TENSOR_OUTPUT ||
              graph->tensors[root].kind == MP_TENSOR_OUTPUT)
            out[r].last = last_group;
        }
    }

  /* a record no op touches keeps the whole run: it cannot be proved dead */
  for (guint i = 0; i < n_records; i++)
    if (out[i].first > out[i].last)
      {
        out[i].first = 0;
        out[i].last = last_group;
      }
  return out;
}

MpLifetimes *
mp_schedule_lifetimes (const MpSchedule *schedule, const MpGraph *graph,
                       const MpLifetimes *lifetimes)
{
  MpLifetimes        *lt = g_new0 (MpLifetimes, 1);
  guint               n = lifetimes->n_records;
  g_autofree MpUsage *records = mp_schedule_usage (schedule, graph, lifetimes->records, n);

  lt->records = g_atomic_rc_box_dup (sizeof (MpUsage) * MAX (n, 1), records);
  lt->n_records = n;
  lt->n_steps = MAX (schedule->n_groups, 1);
  lt->alignment = lifetimes->alignment;
  lt->workspace = lifetimes->workspace;
  lt->record_of = g_memdup2 (lifetimes->record_of, sizeof (gint) * MAX (graph->n_tensors, 1));
  lt->live_bytes = g_new0 (guint64, lt->n_steps);
  lt->lower_bound = mp_usage_lower_bound (lt->records, n, lt->n_steps, lt->live_bytes,
                                          &lt->peak_step);
  return lt;
}

const char *
mp_plan_schedule_name (MpPlanSchedule schedule)
{
  switch (schedule)
    {
    case MP_PLAN_SCHEDULE_CONCURRENT:
      return "concurrent";
    case MP_PLAN_SCHEDULE_SEQUENTIAL:
      return "sequential";
    case MP_PLAN_SCHEDULE_AUTO:
    default:
      return "auto";
    }
}

gboolean
mp_plan_schedule_parse (const char *name, MpPlanSchedule *schedule)
{
  if (g_strcmp0 (name, "concurrent") == 0)
    *schedule = MP_PLAN_SCHEDULE_CONCURRENT;
  else if (g_strcmp0 (name, "sequential") == 0)
    *schedule = MP_PLAN_SCHEDULE_SEQUENTIAL;
  else
    return FALSE;
  return TRUE;
}

char *
mp_schedule_describe_group (const MpSchedule *schedule, const MpGraph *graph, guint group)
{
  GString *s = g_string_new (NULL);
  guint    begin = schedule->group_start[group], end = schedule->group_start[group + 1];
  guint    shown = MIN (end - begin, 4);

  g_string_append (s, end - begin == 1 ? "op " : "ops ");
  for (guint i = 0; i < shown; i++)
    g_string_append_printf (s, "%s'%s'", i == 0 ? "" : i + 1 == end - begin ? " and " : ", ",
                            graph->ops[schedule->group_ops[begin + i]].name);
  if (end - begin > shown)
    g_string_append_printf (s, " and %u more", end - begin - shown);
  return g_string_free (s, FALSE);
}
