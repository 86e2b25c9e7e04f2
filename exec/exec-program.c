/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "memplan-exec"

#include <string.h>

#include "exec-pattern.h"
#include "exec-private.h"

#define HOST_ALIGNMENT 256

static void
add_region (GArray *regions, const MpGraph *graph, guint tensor, guint buffer, guint64 base,
            gboolean whole_root)
{
  MpExecRegion r = { 0 };
  guint64      voff = 0;
  guint        root = mp_graph_view_root (graph, tensor, &voff);

  r.buffer = buffer;
  r.base = base;
  r.id = root + 1;
  r.tag = mp_pattern_tag (r.id);
  r.tensor = whole_root ? root : tensor;
  r.lo = whole_root ? 0 : voff;
  r.hi = whole_root ? graph->tensors[root].size : voff + graph->tensors[tensor].size;
  g_array_append_val (regions, r);
}

static void
add_workspace (GArray *regions, const MpExecProgram *p, guint op, guint slot)
{
  MpExecRegion r = { 0 };

  r.buffer = MP_EXEC_BUF_WORKSPACE;
  r.base = slot * p->workspace;
  r.id = p->graph->n_tensors + 1 + op;
  r.tag = mp_pattern_tag (r.id);
  r.tensor = G_MAXUINT;
  r.hi = p->graph->ops[op].workspace;
  g_array_append_val (regions, r);
}

/* [lo, hi) of root's bytes as a region of its own pattern. */
static void
add_part (GArray *regions, guint root, guint buffer, guint64 base, guint64 lo, guint64 hi)
{
  MpExecRegion r = { 0 };

  if (lo >= hi)
    return;
  r.buffer = buffer;
  r.base = base;
  r.id = root + 1;
  r.tag = mp_pattern_tag (r.id);
  r.tensor = root;
  r.lo = lo;
  r.hi = hi;
  g_array_append_val (regions, r);
}

/* Where each arena root is held in the executed order, as the validator
 * judges it: from the first step that touches it (which writes all of it)
 * to the end of the group of the last step that touches it (after which all
 * of it is checked). This covers an op's output laid over one of its own
 * inputs, a tensor nobody reads and the bytes of a root that no view reads.
 * With concurrent streams the check waits for every step of the group (a
 * barrier step), since another stream may write over the root until then.
 * Output roots are left to the final check. */
typedef struct
{
  guint    *first;        /* per tensor: step, G_MAXUINT when not an arena root */
  guint    *last;
  gboolean *final;
  guint    *retire_start; /* n_steps + 1 entries into retire: roots checked after step i */
  guint    *retire;
} Spans;

static void
spans_clear (Spans *sp)
{
  g_free (sp->first);
  g_free (sp->last);
  g_free (sp->final);
  g_free (sp->retire_start);
  g_free (sp->retire);
}

static void
spans_init (Spans *sp, const MpExecProgram *p, const guint *buffer, const guint64 *base)
{
  const MpGraph *g = p->graph;
  guint          n = MAX (g->n_tensors, 1);
  g_autofree guint *group_end = g_new (guint, MAX (p->n_steps, 1));
  g_autofree guint *fill = g_new0 (guint, p->n_steps + 1);

  sp->first = g_new (guint, n);
  sp->last = g_new (guint, n);
  sp->final = g_new0 (gboolean, n);
  sp->retire_start = g_new0 (guint, p->n_steps + 1);
  sp->retire = g_new (guint, n);
  memset (sp->first, 0xff, sizeof (guint) * n);
  for (guint t = 0; t < g->n_tensors; t++)
    if (g->tensors[t].kind == MP_TENSOR_OUTPUT)
      sp->final[mp_graph_view_root (g, t, NULL)] = TRUE;
  for (guint i = 0; i < p->n_steps; i++)
    {
      const MpOp *op = &g->ops[p->steps[i].op];

      for (guint k = 0; k < op->n_inputs + op->n_outputs; k++)
        {
          guint root = mp_graph_view_root (g, k < op->n_inputs ? op->inputs[k]
                                                               : op->outputs[k - op->n_inputs],
                                           NULL);

          if (base[root] == G_MAXUINT64 || buffer[root] != MP_EXEC_BUF_ARENA)
            continue;
          if (sp->first[root] == G_MAXUINT)
            sp->first[root] = i;
          sp->last[root] = i;
        }
    }
  /* a root retires after the last step of its last group */
  for (guint i = p->n_steps; i-- > 0;)
    group_end[i] = i + 1 < p->n_steps && p->steps[i + 1].group == p->steps[i].group
                   ? group_end[i + 1] : i;
  for (guint t = 0; t < g->n_tensors; t++)
    if (sp->first[t] != G_MAXUINT && !sp->final[t])
      sp->retire_start[group_end[sp->last[t]] + 1]++;
  for (guint i = 0; i < p->n_steps; i++)
    sp->retire_start[i + 1] += sp->retire_start[i];
  for (guint t = 0; t < g->n_tensors; t++)
    if (sp->first[t] != G_MAXUINT && !sp->final[t])
      {
        guint at = group_end[sp->last[t]];

        sp->retire[sp->retire_start[at] + fill[at]++] = t;
      }
}

/* The bytes [*lo, *hi) of tensor x that are its own during op (MiniMalloc's
 * gaps: none in a gap, the window in a windowed one, else all of them). */
static void
held_during (const MpGraph *graph, const MpTensor *x, gint64 op, guint64 *lo, guint64 *hi)
{
  *lo = 0;
  *hi = x->size;
  for (guint k = 0; k < x->n_gaps; k++)
    {
      const MpGap *g = &g_array_index (graph->gaps, MpGap, x->gap_first + k);

      if (g->first <= op && op <= g->last)
        {
          *lo = g->windowed ? MIN (g->lo, x->size) : 0;
          *hi = g->windowed ? MIN (g->hi, x->size) : 0;
        }
    }
}

/* What a tensor held during op `from` and no longer holds during op `to`
 * (both within its lifetime): [a0, a1) less [b0, b1), as regions. */
static void
add_held_less (GArray *regions, const MpGraph *graph, guint t, gint64 from, gint64 to,
               guint buffer, guint64 base)
{
  guint64 a0, a1, b0, b1;

  held_during (graph, &graph->tensors[t], from, &a0, &a1);
  held_during (graph, &graph->tensors[t], to, &b0, &b1);
  if (b0 >= b1)
    b0 = b1 = a1;
  add_part (regions, t, buffer, base, a0, MIN (a1, b0));
  add_part (regions, t, buffer, base, MAX (a0, b1), a1);
}

/* Lifetime gaps give a root's space, all of it or all but a window, to
 * others for a while. Bytes a tensor gives up before op are checked before
 * op runs (GAP_GIVEN_UP, with the op's inputs); bytes it takes back after op
 * are written again after op's checks (GAP_TAKEN_BACK): so a tensor living
 * there meanwhile is no overlap, and one still there after is. The window
 * keeps its data and is checked with the rest at the tensor's next use. */
typedef enum
{
  GAP_GIVEN_UP,
  GAP_TAKEN_BACK,
} GapPart;

static void
add_gap_parts (GArray *regions, const MpGraph *graph, const GArray *gapped, const Spans *sp,
               guint op, GapPart part, const guint *buffer, const guint64 *base)
{
  for (guint i = 0; i < gapped->len; i++)
    {
      guint           t = g_array_index (gapped, guint, i);
      const MpTensor *x = &graph->tensors[t];
      gboolean        edge = FALSE;

      if (buffer[t] != MP_EXEC_BUF_ARENA || sp->first[t] == G_MAXUINT)
        continue;
      /* both ops of the edge within the lifetime */
      if (part == GAP_GIVEN_UP ? op <= sp->first[t] || op > sp->last[t]
                               : op < sp->first[t] || op >= sp->last[t])
        continue;
      for (guint k = 0; k < x->n_gaps && !edge; k++)
        {
          const MpGap *g = &g_array_index (graph->gaps, MpGap, x->gap_first + k);

          edge = part == GAP_GIVEN_UP ? g->first == (gint64) op || g->last + 1 == (gint64) op
                                      : g->first == (gint64) op + 1 || g->last == (gint64) op;
        }
      if (edge && part == GAP_GIVEN_UP)
        add_held_less (regions, graph, t, (gint64) op - 1, op, buffer[t], base[t]);
      else if (edge)
        add_held_less (regions, graph, t, (gint64) op + 1, op, buffer[t], base[t]);
    }
}

/* Concurrent: a barrier step on stream 0 after each group where roots
 * retire; origin maps every step to the op step it follows (or is). */
static guint *
add_barriers (MpExecProgram *p, const Spans *sp)
{
  guint       n = p->n_steps, m = 0;
  MpExecStep *steps = g_new0 (MpExecStep, 2 * MAX (n, 1));
  guint      *origin = g_new (guint, 2 * MAX (n, 1));

  for (guint i = 0; i < n; i++)
    {
      steps[m] = p->steps[i];
      steps[m].group = 2 * p->steps[i].group;
      origin[m++] = i;
      if (p->concurrent && sp->retire_start[i + 1] > sp->retire_start[i])
        {
          steps[m] = (MpExecStep) { .op = MP_EXEC_BARRIER, .group = 2 * p->steps[i].group + 1 };
          origin[m++] = i;
        }
    }
  g_free (p->steps);
  p->steps = steps;
  p->n_steps = m;
  return origin;
}

static int
cmp_step (const void *a, const void *b)
{
  const MpExecStep *x = a, *y = b;

  if (x->group != y->group)
    return x->group < y->group ? -1 : 1;
  return (x->op > y->op) - (x->op < y->op);
}

MpExecProgram *
mp_exec_program_new (const MpGraph *graph, const MpLifetimes *lt, const MpPlan *plan,
                     const MpExecOptions *options, GError **error)
{
  g_autoptr (GArray) regions = g_array_new (FALSE, FALSE, sizeof (MpExecRegion));
  MpExecProgram     *p;
  g_autofree guint64 *base = g_new (guint64, MAX (graph->n_tensors, 1));
  g_autofree guint   *buffer = g_new0 (guint, MAX (graph->n_tensors, 1));
  g_autofree guint   *dense = g_new0 (guint, MAX (graph->n_ops, 1));
  g_autofree guint   *group = g_new0 (guint, MAX (graph->n_ops, 1));
  g_autofree guint   *counts = NULL;
  g_autofree guint   *origin = NULL;
  g_autofree gboolean *claimed = g_new0 (gboolean, MAX (graph->n_tensors, 1));
  Spans               spans = { 0 };
  g_autoptr (GHashTable) streams = g_hash_table_new (NULL, NULL);
  guint64             arena = 0, host = 0;
  guint               n_parallel;
  gboolean            has_gaps, groups_are_ops = TRUE;
  g_autoptr (GArray)  gapped = g_array_new (FALSE, FALSE, sizeof (guint)); /* tensors with gaps */

  if (!graph->has_ops)
    {
      g_set_error (error, MP_EXEC_ERROR, MP_EXEC_ERROR_INVALID,
                   "%s: usage records have no ops to execute; give a graph (JSON)",
                   graph->path ? graph->path : graph->name);
      return NULL;
    }

  /* where every root lives: its plan offset in the arena, else the host buffer */
  memset (base, 0xff, sizeof (guint64) * graph->n_tensors);
  for (guint i = 0; i < plan->n_records; i++)
    {
      guint t = plan->records[i].tensor;
      guint64 end;

      if (t >= graph->n_tensors || plan->offsets[i] == G_MAXUINT64)
        {
          g_set_error (error, MP_EXEC_ERROR, MP_EXEC_ERROR_INVALID,
                       "plan '%s' does not fit graph '%s': record %u has %s", plan->planner,
                       graph->name, i, t >= graph->n_tensors ? "no such tensor" : "no offset");
          return NULL;
        }
      if (!g_uint64_checked_add (&end, plan->offsets[i], graph->tensors[t].size))
        end = G_MAXUINT64;
      base[t] = plan->offsets[i];
      buffer[t] = MP_EXEC_BUF_ARENA;
      arena = MAX (arena, end);
    }
  for (guint o = 0; o < graph->n_ops; o++)
    {
      const MpOp *op = &graph->ops[o];

      for (guint k = 0; k < op->n_inputs + op->n_outputs; k++)
        {
          guint id = k < op->n_inputs ? op->inputs[k] : op->outputs[k - op->n_inputs];
          guint root = mp_graph_view_root (graph, id, NULL);
          const MpTensor *r = &graph->tensors[root];

          if (base[root] != G_MAXUINT64)
            continue;
          if (lt->record_of[root] >= 0 ||
              (r->kind != MP_TENSOR_INPUT && r->kind != MP_TENSOR_PARAM))
            {
              g_set_error (error, MP_EXEC_ERROR, MP_EXEC_ERROR_INVALID,
                           "plan '%s' has no offset for tensor '%s' (used by op '%s')",
                           plan->planner, r->name, op->name);
              return NULL;
            }
          base[root] = host;
          buffer[root] = MP_EXEC_BUF_HOST;
          host = mp_align_up (host + r->size, HOST_ALIGNMENT);
        }
    }

  p = g_new0 (MpExecProgram, 1);
  p->graph = graph;
  p->n_ids = graph->n_tensors + graph->n_ops;
  /* slots start 256-aligned, so workspace kernels take the vector path */
  p->workspace = mp_align_up (lt->workspace, MP_EXEC_SLOT_ALIGNMENT);
  for (guint o = 0; o < graph->n_ops; o++)
    {
      gpointer v;

      if (!g_hash_table_lookup_extended (streams, GUINT_TO_POINTER (graph->ops[o].stream), NULL,
                                         &v))
        {
          v = GUINT_TO_POINTER (g_hash_table_size (streams));
          g_hash_table_insert (streams, GUINT_TO_POINTER (graph->ops[o].stream), v);
        }
      dense[o] = GPOINTER_TO_UINT (v);
    }
  /* A plan is run in the order it was made for, as mp_plan_judge reads it
   * (plan->parallel): lifetimes in ops (the program order) or in the groups
   * of the parallel schedule (multistream). */
  {
    g_autoptr (MpSchedule) schedule = mp_schedule_parallel (graph, options->max_parallel_ops);

    memcpy (group, schedule->group, sizeof (guint) * graph->n_ops);
    n_parallel = schedule->n_groups;
  }
  if (plan->n_steps != (plan->parallel ? n_parallel : graph->n_ops))
    {
      g_set_error (error, MP_EXEC_ERROR, MP_EXEC_ERROR_INVALID,
                   "plan '%s' measures lifetimes over %u steps, but graph '%s' has %u ops and "
                   "%u parallel groups (give the --max-parallel-ops the plan was made with)",
                   plan->planner, plan->n_steps, graph->name, graph->n_ops, n_parallel);
      mp_exec_program_free (p);
      return NULL;
    }
  p->group_order = plan->parallel;
  p->concurrent = !options->sequential && g_hash_table_size (streams) > 1;
  has_gaps = graph->gaps && graph->gaps->len > 0;
  for (guint t = 0; has_gaps && t < graph->n_tensors; t++)
    if (graph->tensors[t].n_gaps)
      g_array_append_val (gapped, t);
  /* gaps count ops: parallel groups of one op each, in program order, are
   * the same steps */
  for (guint o = 0; has_gaps && p->group_order && o < graph->n_ops; o++)
    if (group[o] != o)
      groups_are_ops = FALSE;
  if (has_gaps && (p->concurrent || !groups_are_ops))
    {
      g_set_error (error, MP_EXEC_ERROR, MP_EXEC_ERROR_INVALID,
                   "graph '%s' has lifetime gaps, which are executed one op at a time in "
                   "program order only (plan '%s' %s)", graph->name, plan->planner,
                   p->group_order ? "is made for parallel groups"
                                  : "would run on concurrent streams: give --schedule "
                                    "sequential");
      mp_exec_program_free (p);
      return NULL;
    }
  p->n_streams = p->concurrent ? g_hash_table_size (streams) : 1;
  p->n_groups = p->concurrent ? n_parallel : 0;
  if (!p->concurrent)
    memset (dense, 0, sizeof (guint) * graph->n_ops);
  if (!p->concurrent && !p->group_order)
    for (guint o = 0; o < graph->n_ops; o++)
      group[o] = o;
  p->n_ws_slots = p->workspace ? p->n_streams : 0;
  p->size[MP_EXEC_BUF_ARENA] = arena;
  p->size[MP_EXEC_BUF_HOST] = host;
  /* the last slot needs no padding after it */
  p->size[MP_EXEC_BUF_WORKSPACE] = p->n_ws_slots ? p->workspace * (p->n_ws_slots - 1) +
                                                     lt->workspace : 0;

  p->n_steps = graph->n_ops;
  p->steps = g_new0 (MpExecStep, MAX (graph->n_ops, 1));
  for (guint o = 0; o < graph->n_ops; o++)
    {
      p->steps[o].op = o;
      p->steps[o].stream = dense[o];
      p->steps[o].group = group[o];
    }
  qsort (p->steps, p->n_steps, sizeof (MpExecStep), cmp_step);

  /* regions of every step, then setup and final */
  p->waits = g_array_new (FALSE, FALSE, sizeof (MpExecWait));
  counts = g_new0 (guint, p->n_streams);
  spans_init (&spans, p, buffer, base);
  origin = add_barriers (p, &spans);
  {
    g_autofree guint *at_group_start = g_new0 (guint, p->n_streams);
    g_autofree guint *waited = g_new0 (guint, (gsize) p->n_streams * p->n_streams);
    guint             cur_group = G_MAXUINT;

    for (guint i = 0; i < p->n_steps; i++)
      {
        MpExecStep *st = &p->steps[i];
        gboolean    barrier = st->op == MP_EXEC_BARRIER;
        const MpOp *op = barrier ? NULL : &graph->ops[st->op];
        guint       n_in = barrier ? 0 : op->n_inputs, n_out = barrier ? 0 : op->n_outputs;
        guint       oi = origin[i];

        if (st->group != cur_group)
          {
            memcpy (at_group_start, counts, sizeof (guint) * p->n_streams);
            cur_group = st->group;
          }
        /* barrier: everything of the earlier groups on the other streams */
        st->first_wait = p->waits->len;
        for (guint s = 0; p->concurrent && s < p->n_streams; s++)
          {
            guint *w = &waited[st->stream * p->n_streams + s];

            if (s == st->stream || at_group_start[s] <= *w)
              continue;
            *w = at_group_start[s];
            g_array_append_val (p->waits, ((MpExecWait) { s, *w }));
          }
        st->n_waits = p->waits->len - st->first_wait;
        st->index_in_stream = counts[st->stream]++;

        st->first_check = regions->len;
        for (guint k = 0; k < n_in; k++)
          {
            guint root = mp_graph_view_root (graph, op->inputs[k], NULL);

            add_region (regions, graph, op->inputs[k], buffer[root], base[root], FALSE);
          }
        /* a view written into a live root: its bytes must still be the root's,
         * or the write would hide an overlap */
        for (guint k = 0; k < n_out; k++)
          {
            guint root = mp_graph_view_root (graph, op->outputs[k], NULL);

            if (spans.first[root] != G_MAXUINT && spans.first[root] != oi)
              add_region (regions, graph, op->outputs[k], buffer[root], base[root], FALSE);
          }
        if (has_gaps && !barrier)
          add_gap_parts (regions, graph, gapped, &spans, st->op, GAP_GIVEN_UP, buffer, base);
        st->n_checks = regions->len - st->first_check;
        st->first_write = regions->len;
        for (guint k = 0; k < n_out; k++)
          {
            guint root = mp_graph_view_root (graph, op->outputs[k], NULL);

            /* the step that first touches a root writes all of it, once */
            if (spans.first[root] == oi && claimed[root])
              continue;
            claimed[root] = spans.first[root] == oi;
            add_region (regions, graph, claimed[root] ? root : op->outputs[k], buffer[root],
                        base[root], claimed[root]);
          }
        if (!barrier && op->workspace)
          add_workspace (regions, p, st->op, p->concurrent ? st->stream : 0);
        st->n_writes = regions->len - st->first_write;
        st->first_post = regions->len;
        if (!barrier && op->workspace)
          add_workspace (regions, p, st->op, p->concurrent ? st->stream : 0);
        for (guint k = spans.retire_start[oi];
             (barrier || !p->concurrent) && k < spans.retire_start[oi + 1]; k++)
          add_region (regions, graph, spans.retire[k], buffer[spans.retire[k]],
                      base[spans.retire[k]], TRUE);
        st->n_post = regions->len - st->first_post;
        st->first_refill = regions->len;
        if (has_gaps && !barrier)
          add_gap_parts (regions, graph, gapped, &spans, st->op, GAP_TAKEN_BACK, buffer, base);
        st->n_refill = regions->len - st->first_refill;
      }
  }

  p->stream_first = g_new0 (guint, p->n_streams + 1);
  p->stream_steps = g_new (guint, MAX (p->n_steps, 1));
  for (guint s = 0; s < p->n_streams; s++)
    p->stream_first[s + 1] = p->stream_first[s] + counts[s];
  memset (counts, 0, sizeof (guint) * p->n_streams);
  for (guint i = 0; i < p->n_steps; i++)
    p->stream_steps[p->stream_first[p->steps[i].stream] + counts[p->steps[i].stream]++] = i;

  /* staggering: a step may also wait for the other steps of its group (at
   * most one per stream, since same-stream ops are on different levels) */
  for (guint a = 0, b; p->concurrent && a < p->n_steps; a = b)
    {
      for (b = a; b < p->n_steps && p->steps[b].group == p->steps[a].group; b++)
        ;
      for (guint i = a; i < b; i++)
        {
          p->steps[i].first_yield = p->waits->len;
          for (guint j = a; j < b; j++)
            if (j != i)
              g_array_append_val (p->waits, ((MpExecWait) { p->steps[j].stream,
                                                            p->steps[j].index_in_stream + 1 }));
          p->steps[i].n_yield = p->waits->len - p->steps[i].first_yield;
        }
    }

  /* inputs and params are the host's to write; so are inputs planned in the arena */
  p->first_setup = regions->len;
  for (guint t = 0; t < graph->n_tensors; t++)
    if (graph->tensors[t].view_of < 0 && base[t] != G_MAXUINT64 &&
        graph->tensors[t].producer < 0 &&
        (graph->tensors[t].kind == MP_TENSOR_INPUT || graph->tensors[t].kind == MP_TENSOR_PARAM))
      add_region (regions, graph, t, buffer[t], base[t], TRUE);
  p->n_setup = regions->len - p->first_setup;
  /* outputs are read after the last op: all of each output's root */
  p->first_final = regions->len;
  for (guint t = 0; t < graph->n_tensors; t++)
    if (spans.final[t] && base[t] != G_MAXUINT64)
      add_region (regions, graph, t, buffer[t], base[t], TRUE);
  p->n_final = regions->len - p->first_final;
  spans_clear (&spans);

  for (guint i = 0; i < regions->len; i++)
    {
      const MpExecRegion *r = &g_array_index (regions, MpExecRegion, i);
      gboolean            once = i >= p->first_setup && i < p->first_setup + p->n_setup &&
                                 r->buffer == MP_EXEC_BUF_HOST;

      *(once ? &p->bytes_host : &p->bytes_per_iteration) += r->hi - r->lo;
    }
  p->regions = g_steal_pointer (&regions);
  return p;
}

void
mp_exec_program_free (MpExecProgram *p)
{
  if (p == NULL)
    return;
  g_free (p->steps);
  g_free (p->stream_steps);
  g_free (p->stream_first);
  g_clear_pointer (&p->regions, g_array_unref);
  g_clear_pointer (&p->waits, g_array_unref);
  g_free (p);
}

char *
mp_exec_id_name (const MpExecProgram *p, guint id)
{
  if (id >= 1 && id <= p->graph->n_tensors)
    return g_strdup_printf ("tensor '%s'", p->graph->tensors[id - 1].name);
  if (id > p->graph->n_tensors && id <= p->n_ids)
    return g_strdup_printf ("the workspace of op '%s'",
                            p->graph->ops[id - p->graph->n_tensors - 1].name);
  return g_strdup ("data of no tensor");
}

guint32
mp_exec_tag (const MpExecProgram *p, const MpExecRegion *r, guint epoch)
{
  /* ids of epoch e are id + e * n_ids, wrapping before 2^32 */
  guint period = G_MAXUINT32 / MAX (p->n_ids, 1);

  if (r->buffer == MP_EXEC_BUF_HOST)
    epoch = 0;
  return mp_pattern_tag (r->id + (epoch % period) * p->n_ids);
}

/* How well region w's pattern in epoch e explains the window around byte
 * at: the bytes that match, counted outward from at, plus 16 when they
 * take in a byte of a tag (a word's high half, the data's identity, where
 * the low half is only an index that many tensors share); 0 when the byte
 * at does not match. */
static guint
match_score (const MpExecProgram *p, const MpExecRegion *w, guint e, guint64 start,
             const guint8 *window, guint64 at)
{
  guint32  tag = mp_exec_tag (p, w, e);
  guint64  lo = MAX (w->base + w->lo, start);
  guint64  hi = MIN (MIN (w->base + w->hi, start + MP_PATTERN_WINDOW), p->size[w->buffer]);
  guint64  b;
  guint    run = 0;
  gboolean tag_byte = FALSE;

  if (at < lo || at >= hi)
    return 0;
  for (b = at; b < hi && window[b - start] == mp_pattern_byte (tag, b - w->base); b++)
    tag_byte |= ((b - w->base) & 7) >= 4;
  run = b - at;
  for (b = at; run && b > lo && window[b - 1 - start] == mp_pattern_byte (tag, b - 1 - w->base);
       b--)
    tag_byte |= ((b - 1 - w->base) & 7) >= 4;
  run += at - b;
  return run ? run + (tag_byte ? 16 : 0) : 0;
}

guint
mp_exec_identify (const MpExecProgram *p, guint index, const MpExecCheck *c, guint epoch,
                  guint *found_epoch)
{
  const MpExecRegion *v = &g_array_index (p->regions, MpExecRegion, index);
  guint64             at = v->base + c->bad, start = mp_pattern_window_start (at);
  guint               best = 0, best_run = 0;

  /* the candidates: every region written into the same buffer */

  *found_epoch = epoch;
  for (guint i = 0; i < p->regions->len; i++)
    {
      const MpExecRegion *w = &g_array_index (p->regions, MpExecRegion, i);

      if (w->buffer != v->buffer)
        continue;
      for (guint back = 0; back < 2 && back <= epoch; back++)
        {
          guint run;

          /* the victim's own data of this epoch is what the check wanted */
          if (w->id == v->id && back == 0)
            continue;
          run = match_score (p, w, epoch - back, start, c->window, at);
          if (run > best_run)
            {
              best_run = run;
              best = w->id;
              *found_epoch = epoch - back;
            }
        }
    }
  return best;
}

void
mp_exec_fill (guint8 *buffer, const MpExecRegion *r)
{
  guint8 *root = buffer + r->base;
  guint64 b = r->lo;

  for (; b < r->hi && (b & 7); b++)
    root[b] = mp_pattern_byte (r->tag, b);
  if (b + 8 <= r->hi)
    {
      /* written so that the compiler vectorises it */
      guint64  first = b >> 3, n = (r->hi >> 3) - first;
      guint8  *p = root + b;

      for (guint64 k = 0; k < n; k++)
        {
          guint64 w = mp_pattern_word (r->tag, first + k);

          memcpy (p + 8 * k, &w, 8);
        }
      b += 8 * n;
    }
  for (; b < r->hi; b++)
    root[b] = mp_pattern_byte (r->tag, b);
}

void
mp_exec_verify (const guint8 *buffer, guint64 size, const MpExecRegion *r, MpExecCheck *check)
{
  const guint8 *root = buffer + r->base;
  guint64       b = r->lo;

  check->bad = G_MAXUINT64;
  for (; b < r->hi && (b & 7) && check->bad == G_MAXUINT64; b++)
    if (root[b] != mp_pattern_byte (r->tag, b))
      check->bad = b;
  /* whole blocks first, branch-free so that it vectorises; the word loop
   * below finds the exact place once a block differs */
  for (; check->bad == G_MAXUINT64 && b + 512 <= r->hi; b += 512)
    {
      guint64 diff = 0;

      for (guint k = 0; k < 64; k++)
        {
          guint64 w;

          memcpy (&w, root + b + 8 * k, 8);
          diff |= w ^ mp_pattern_word (r->tag, (b >> 3) + k);
        }
      if (G_UNLIKELY (diff))
        break;
    }
  for (; check->bad == G_MAXUINT64 && b + 8 <= r->hi; b += 8)
    {
      guint64 w, want = mp_pattern_word (r->tag, b >> 3);

      memcpy (&w, root + b, 8);
      if (G_UNLIKELY (w != want))
        check->bad = b + mp_pattern_first_diff (w, want);
    }
  for (; check->bad == G_MAXUINT64 && b < r->hi; b++)
    if (root[b] != mp_pattern_byte (r->tag, b))
      check->bad = b;
  /* the same bytes the CUDA kernel captures, so both name the same overwriter */
  if (check->bad != G_MAXUINT64)
    mp_pattern_window (buffer, size, r->base + check->bad, check->window);
}

static int
cmp_first (const void *a, const void *b)
{
  const MpUsage *x = a, *y = b;

  if (x->first != y->first)
    return x->first < y->first ? -1 : 1;
  return (x->tensor > y->tensor) - (x->tensor < y->tensor);
}

static int
cmp_last (const void *a, const void *b)
{
  const MpUsage *x = a, *y = b;

  if (x->last != y->last)
    return x->last < y->last ? -1 : 1;
  return (x->tensor > y->tensor) - (x->tensor < y->tensor);
}

MpUsage *
mp_exec_sorted_records (const MpLifetimes *lt, gboolean by_first)
{
  MpUsage *r = g_memdup2 (lt->records, sizeof (MpUsage) * MAX (lt->n_records, 1));

  qsort (r, lt->n_records, sizeof (MpUsage), by_first ? cmp_first : cmp_last);
  return r;
}
