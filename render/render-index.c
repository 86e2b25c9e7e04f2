/* SPDX-License-Identifier: GPL-3.0-or-later */
#define _GNU_SOURCE /* qsort_r */
#define G_LOG_DOMAIN "memplan-render"

#include <stdlib.h>

#include "render-private.h"

guint
mp_size_class (guint64 bytes)
{
  guint c = 0;

  for (guint64 limit = 4096; c < 5 && bytes >= limit; limit *= 16)
    c++;
  return c;
}

const char *
mp_size_class_label (guint size_class)
{
  static const char *labels[] = { "< 4 KiB", "< 64 KiB", "< 1 MiB", "< 16 MiB", "< 256 MiB",
                                  "≥ 256 MiB" };

  g_return_val_if_fail (size_class < G_N_ELEMENTS (labels), "");
  return labels[size_class];
}

static int
cmp_by_first (const void *a, const void *b, void *data)
{
  const MpUsage *recs = data;
  const MpUsage *x = &recs[*(const guint *) a], *y = &recs[*(const guint *) b];

  if (x->first != y->first)
    return x->first < y->first ? -1 : 1;
  return *(const guint *) a < *(const guint *) b ? -1 : *(const guint *) a > *(const guint *) b;
}

static int
cmp_by_offset (const void *a, const void *b, void *data)
{
  const guint64 *offsets = data;
  guint64        x = offsets[*(const guint *) a], y = offsets[*(const guint *) b];

  if (x != y)
    return x < y ? -1 : 1;
  return *(const guint *) a < *(const guint *) b ? -1 : *(const guint *) a > *(const guint *) b;
}

/* Calls add (node) for the canonical cover of steps [first, last]. */
#define FOR_EACH_COVER_NODE(index, rec, node, body)                                   \
  G_STMT_START                                                                        \
  {                                                                                   \
    guint l_ = (rec)->first + (index)->n_leaves, r_ = (rec)->last + 1 + (index)->n_leaves; \
    for (; l_ < r_; l_ >>= 1, r_ >>= 1)                                               \
      {                                                                               \
        if (l_ & 1)                                                                   \
          {                                                                           \
            guint node = l_++;                                                        \
            body;                                                                     \
          }                                                                           \
        if (r_ & 1)                                                                   \
          {                                                                           \
            guint node = --r_;                                                        \
            body;                                                                     \
          }                                                                           \
      }                                                                               \
  }                                                                                   \
  G_STMT_END

static void
build_step_tree (MpRenderIndex *index)
{
  const MpPlan      *plan = index->plan;
  g_autofree guint  *order = g_new (guint, MAX (index->n, 1));
  g_autofree guint  *fill = NULL;
  guint              n_nodes;

  index->n_leaves = 1;
  while (index->n_leaves < MAX (index->n_steps, 1))
    index->n_leaves <<= 1;
  n_nodes = 2 * index->n_leaves;
  index->node_start = g_new0 (guint, n_nodes + 1);

  for (guint r = 0; r < index->n; r++)
    {
      const MpUsage *rec = &plan->records[r];

      FOR_EACH_COVER_NODE (index, rec, node, index->node_start[node + 1]++);
    }
  for (guint k = 0; k < n_nodes; k++)
    index->node_start[k + 1] += index->node_start[k];
  index->node_items = g_new (guint, MAX (index->node_start[n_nodes], 1));
  fill = g_memdup2 (index->node_start, sizeof (guint) * n_nodes);

  /* Filling in offset order leaves every node's list sorted by offset. */
  for (guint r = 0; r < index->n; r++)
    order[r] = r;
  qsort_r (order, index->n, sizeof (guint), cmp_by_offset, plan->offsets);
  for (guint i = 0; i < index->n; i++)
    {
      guint          r = order[i];
      const MpUsage *rec = &plan->records[r];

      FOR_EACH_COVER_NODE (index, rec, node, index->node_items[fill[node]++] = r);
    }
}

static int
cmp_by_top (const void *a, const void *b, void *data)
{
  const MpPlan *plan = data;
  guint         x = *(const guint *) a, y = *(const guint *) b;
  guint64       tx = plan->offsets[x] + plan->records[x].bytes;
  guint64       ty = plan->offsets[y] + plan->records[y].bytes;

  if (tx != ty)
    return tx > ty ? -1 : 1;
  return x < y ? -1 : x > y;
}

/* Next step at or after s whose footprint is not set yet (path halving). */
static guint
next_open (guint *next, guint s)
{
  while (next[s] != s)
    {
      next[s] = next[next[s]];
      s = next[s];
    }
  return s;
}

/* The footprint: per step, the top of the highest live buffer. Buffers
 * from the highest top down each set the steps of their lifetime not set
 * yet, skipping set runs in near-constant time: O(n log n + steps). */
static void
compute_top (MpRenderIndex *index)
{
  const MpPlan     *plan = index->plan;
  g_autofree guint *order = g_new (guint, MAX (index->n, 1));
  g_autofree guint *next = g_new (guint, index->n_steps + 1);

  index->top = g_new0 (guint64, MAX (index->n_steps, 1));
  for (guint s = 0; s <= index->n_steps; s++)
    next[s] = s;
  for (guint r = 0; r < index->n; r++)
    order[r] = r;
  qsort_r (order, index->n, sizeof (guint), cmp_by_top, (gpointer) plan);
  for (guint i = 0; i < index->n; i++)
    {
      const MpUsage *u = &plan->records[order[i]];
      guint64        top = plan->offsets[order[i]] + u->bytes;

      if (u->bytes == 0)
        continue;
      for (guint s = next_open (next, u->first); s <= u->last && s < index->n_steps;
           s = next_open (next, s))
        {
          index->top[s] = top;
          next[s] = s + 1;
        }
    }
}

static void
compute_colors (MpRenderIndex *index)
{
  const MpGraph *graph = index->graph;
  const MpPlan  *plan = index->plan;
  guint          n = index->n;

  index->color = g_new (guint8, (gsize) MP_COLOR_BY_N * MAX (n, 1));
  for (guint r = 0; r < n; r++)
    {
      const MpUsage  *rec = &plan->records[r];
      const MpTensor *t = &graph->tensors[rec->tensor];
      guint           stream = 0, size_class = mp_size_class (rec->bytes);
      guint           op_key;

      if (t->producer >= 0)
        {
          stream = graph->ops[t->producer].stream;
          op_key = (guint) t->producer % MP_PALETTE_N_KEYS;
        }
      else /* usage records have no ops: each record is its own op at its first step */
        op_key = rec->first % MP_PALETTE_N_KEYS;
      index->color[MP_COLOR_BY_KIND * n + r] = mp_kind_color (t->kind);
      index->color[MP_COLOR_BY_OP * n + r] = op_key;
      index->color[MP_COLOR_BY_STREAM * n + r] = stream % MP_PALETTE_N_KEYS;
      index->color[MP_COLOR_BY_SIZE * n + r] = MP_PALETTE_N_KEYS + size_class;
      index->kinds_seen |= 1u << t->kind;
      index->sizes_seen |= 1u << size_class;
      index->n_streams = MAX (index->n_streams, stream + 1);
    }
}

MpRenderIndex *
mp_render_index_new (const MpGraph *graph, const MpPlan *plan)
{
  MpRenderIndex *index;

  g_return_val_if_fail (graph != NULL, NULL);
  g_return_val_if_fail (plan != NULL, NULL);

  index = g_new0 (MpRenderIndex, 1);
  g_mutex_init (&index->lod_lock);
  /* fewer buffers in sight are drawn exactly: that is cheap already */
  index->lod_min_records = 20000;
  index->graph = graph;
  index->plan = plan;
  index->n = plan->n_records;
  index->n_steps = plan->n_steps;
  for (guint r = 0; r < index->n; r++)
    index->n_steps = MAX (index->n_steps, plan->records[r].last + 1);

  index->by_first = g_new (guint, MAX (index->n, 1));
  index->firsts = g_new (guint, MAX (index->n, 1));
  for (guint r = 0; r < index->n; r++)
    index->by_first[r] = r;
  qsort_r (index->by_first, index->n, sizeof (guint), cmp_by_first, plan->records);
  for (guint i = 0; i < index->n; i++)
    index->firsts[i] = plan->records[index->by_first[i]].first;

  build_step_tree (index);

  if (!graph->has_ops && !plan->parallel)
    {
      index->step_time = g_new0 (gint64, MAX (index->n_steps, 1));
      for (guint i = 0; i < index->n; i++)
        {
          const MpUsage *r = &plan->records[index->by_first[i]];
          gint64         first, last;

          mp_usage_times (graph, r, &first, &last);
          index->step_time[r->first] = first;
        }
    }

  compute_top (index);
  index->live = g_new0 (guint64, MAX (index->n_steps, 1));
  index->live_max = mp_usage_lower_bound (plan->records, index->n, index->n_steps, index->live,
                                          &index->peak_step);
  compute_colors (index);
  return index;
}

void
mp_render_index_free (MpRenderIndex *index)
{
  if (index == NULL)
    return;
  /* first: the summary's thread reads the arrays below */
  mp_render_lod_stop (index);
  g_free (index->by_first);
  g_free (index->firsts);
  g_free (index->node_start);
  g_free (index->node_items);
  g_free (index->live);
  g_free (index->top);
  g_free (index->color);
  g_free (index->step_time);
  g_free (index->segments);
  g_free (index->memory_name);
  g_free (index->spilled);
  g_clear_pointer (&index->lod, mp_render_lod_free);
  g_mutex_clear (&index->lod_lock);
  g_free (index);
}

char *
mp_render_step_label (const MpRenderIndex *index, guint step)
{
  return g_strdup_printf ("%u", step);
}

char *
mp_render_step_words (const MpRenderIndex *index, guint step)
{
  const MpGraph *graph = index->graph;

  if (index->plan->parallel)
    return g_strdup_printf ("parallel group %u", step);
  if (graph->has_ops && step < graph->n_ops)
    {
      /* the op's name from the file, shown not obeyed (labels, status) */
      g_autofree char *op = mp_escape_name (graph->ops[step].name);

      return g_strdup_printf ("step %u (op %s)", step, op);
    }
  if (index->step_time && step < index->n_steps)
    return g_strdup_printf ("step %u (time %" G_GINT64_FORMAT " in the file)", step,
                            index->step_time[step]);
  return g_strdup_printf ("step %u", step);
}

guint
mp_render_index_peak_step (const MpRenderIndex *index)
{
  return index->peak_step;
}

const MpPlan *
mp_render_index_plan (const MpRenderIndex *index)
{
  return index->plan;
}

const MpGraph *
mp_render_index_graph (const MpRenderIndex *index)
{
  return index->graph;
}

void
mp_render_index_foreach_at (const MpRenderIndex *index, guint step, MpRecordFunc func,
                            gpointer user_data)
{
  if (step >= index->n_leaves)
    return;
  for (guint node = step + index->n_leaves; node >= 1; node >>= 1)
    for (guint i = index->node_start[node]; i < index->node_start[node + 1]; i++)
      func (index->node_items[i], user_data);
}

void
mp_render_index_first_range (const MpRenderIndex *index, guint lo, guint hi, guint *begin,
                             guint *end)
{
  guint a = 0, b = index->n;

  /* lower_bound (lo) */
  while (a < b)
    {
      guint mid = a + (b - a) / 2;

      if (index->firsts[mid] < lo)
        a = mid + 1;
      else
        b = mid;
    }
  *begin = a;
  b = index->n;
  while (a < b)
    {
      guint mid = a + (b - a) / 2;

      if (index->firsts[mid] < hi)
        a = mid + 1;
      else
        b = mid;
    }
  *end = a;
}

gint
mp_render_index_lookup (const MpRenderIndex *index, guint step, guint64 address)
{
  const MpPlan *plan;

  g_return_val_if_fail (index != NULL, -1);
  plan = index->plan;
  if (step >= index->n_steps)
    return -1;
  /* On the path from the leaf to the root every node's records are live at
   * once, so (in a valid plan) disjoint: binary search by offset. */
  for (guint node = step + index->n_leaves; node >= 1; node >>= 1)
    {
      guint a = index->node_start[node], b = index->node_start[node + 1];

      while (a < b)
        {
          guint mid = a + (b - a) / 2;

          if (plan->offsets[index->node_items[mid]] <= address)
            a = mid + 1;
          else
            b = mid;
        }
      if (a > index->node_start[node])
        {
          guint r = index->node_items[a - 1];

          if (address < plan->offsets[r] + plan->records[r].bytes)
            return (gint) r;
        }
    }
  return -1;
}

void
mp_render_full_viewport (const MpRenderIndex *index, MpViewport *viewport)
{
  guint64 top = MAX (MAX (index->plan->arena, index->live_max), index->capacity);

  viewport->step_min = 0;
  viewport->step_max = MAX (index->n_steps, 1);
  viewport->addr_min = 0;
  /* headroom above the arena line for its label */
  viewport->addr_max = top > 0 ? top * 1.08 : 1024;
}

void
mp_render_index_set_summary (MpRenderIndex *index, gboolean summary)
{
  g_return_if_fail (index != NULL);
  g_mutex_lock (&index->lod_lock);
  index->summary = summary;
  if (!summary)
    {
      g_clear_pointer (&index->lod, mp_render_lod_free);
      g_clear_pointer (&index->lod_want, g_free);
    }
  g_mutex_unlock (&index->lod_lock);
}

void
mp_render_index_set_summary_async (MpRenderIndex *index, gboolean async)
{
  g_return_if_fail (index != NULL);
  g_mutex_lock (&index->lod_lock);
  index->lod_async = async;
  g_mutex_unlock (&index->lod_lock);
}

gboolean
mp_render_index_summary_pending (MpRenderIndex *index)
{
  gboolean busy;

  g_return_val_if_fail (index != NULL, FALSE);
  g_mutex_lock (&index->lod_lock);
  busy = index->lod_busy;
  g_mutex_unlock (&index->lod_lock);
  return busy;
}

void
mp_render_index_set_rank (MpRenderIndex *index, guint rank)
{
  g_return_if_fail (index != NULL);
  index->rank = rank;
}
