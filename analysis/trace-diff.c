/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "memplan-analysis"

#include <stdlib.h>
#include <string.h>

#include "file-util.h"
#include "json-write.h"
#include "lifetimes.h"
#include "memory-estimate.h"
#include "mp-error.h"
#include "trace-diff.h"

/* Two runs compared. Each side is first reduced to its groups of
 * allocations, (op, stack, size) -> how many and how many live at its peak,
 * so that the files can be read one after the other and only the groups
 * stay. The texts of both sides are interned in one table: a group key
 * compares pointers. */

typedef struct
{
  const char *op;
  const char *stack;
  guint64     size;
  guint       count;
  guint       live;
} Group;

typedef struct
{
  MpTraceDiffSide side;
  GHashTable     *groups; /* Group -> itself, owned */
} Side;

static guint
group_hash (gconstpointer data)
{
  const Group *g = data;

  return g_direct_hash (g->op) ^ (g_direct_hash (g->stack) * 31u) ^ g_int64_hash (&g->size);
}

static gboolean
group_equal (gconstpointer a, gconstpointer b)
{
  const Group *x = a, *y = b;

  return x->op == y->op && x->stack == y->stack && x->size == y->size;
}

static void
side_clear (Side *side)
{
  g_clear_pointer (&side->side.name, g_free);
  g_clear_pointer (&side->groups, g_hash_table_unref);
}

static const char *
intern (GHashTable *strings, const char *text)
{
  char *own;

  if (text == NULL)
    return NULL;
  own = g_hash_table_lookup (strings, text);
  if (own == NULL)
    {
      own = g_strdup (text);
      g_hash_table_add (strings, own);
    }
  return own;
}

/* One allocation of a side, before its peak is known. */
typedef struct
{
  Group *group;
  gint64 first;
  gint64 last;
} Record;

static Group *
group_of (Side *side, GHashTable *strings, const char *op, const char *stack, guint64 size)
{
  Group  key = { intern (strings, op), intern (strings, stack), size, 0, 0 };
  Group *g = g_hash_table_lookup (side->groups, &key);

  if (g == NULL)
    {
      g = g_memdup2 (&key, sizeof key);
      g_hash_table_add (side->groups, g);
    }
  return g;
}

/* The op a trace's allocation is charged to, as mp_trace_by_op does: its
 * innermost op, else (snapshots) its innermost frame. */
static const char *
trace_op (const MpTrace *trace, guint t, GHashTable *strings)
{
  const MpTraceSite *site = &trace->sites[t];
  g_autofree char   *frame = NULL;

  if (trace->origins[t] == MP_TRACE_BLOCK_PRE_EXISTING)
    return intern (strings, "(before the trace)");
  if (site->op)
    return intern (strings, site->op);
  if (site->frames == NULL)
    return intern (strings, "(no op)");
  frame = g_strndup (site->frames, strcspn (site->frames, "\n"));
  return intern (strings, frame);
}

/* The peak of the live bytes over the records, its first step, and the
 * groups' counts live there. */
static void
side_finish (Side *side, Record *records, guint n)
{
  g_autofree gint64 *delta = NULL;
  gint64             live = 0, peak = 0, peak_step = 0, n_steps = 0;

  /* the steps the records span (a trace's graph does not count them) */
  for (guint i = 0; i < n; i++)
    n_steps = MAX (n_steps, records[i].last + 1);
  n_steps = MIN (n_steps, G_MAXUINT);
  delta = g_new0 (gint64, (gsize) n_steps + 2);
  for (guint i = 0; i < n; i++)
    {
      gint64 first = CLAMP (records[i].first, 0, n_steps);
      gint64 last = CLAMP (records[i].last, first, n_steps);

      delta[first] += records[i].group->size;
      delta[last + 1] -= records[i].group->size;
      records[i].group->count++;
      side->side.allocated += records[i].group->size;
    }
  for (guint i = 0; i <= n_steps; i++)
    {
      live += delta[i];
      if (live > peak)
        {
          peak = live;
          peak_step = i;
        }
    }
  for (guint i = 0; i < n; i++)
    if (records[i].first <= peak_step && peak_step <= records[i].last)
      records[i].group->live++;
  side->side.live_peak = peak;
  side->side.peak_step = peak_step;
  side->side.n_steps = (guint) n_steps;
  side->side.n_allocations = n;
}

static gboolean
side_of_trace (Side *side, const MpInput *input, GHashTable *strings)
{
  const MpTrace     *trace = input->trace;
  const MpGraph     *graph = trace->graph;
  g_autofree Record *records = g_new (Record, MAX (trace->n_allocations, 1));

  for (guint t = 0; t < trace->n_allocations; t++)
    {
      const MpTraceSite *site = &trace->sites[t];
      const char        *stack = site->frames ? site->frames : site->ops;
      const char        *op = trace_op (trace, t, strings);

      records[t].group = group_of (side, strings, op, stack, graph->tensors[t].size);
      records[t].first = graph->tensors[t].first;
      records[t].last = graph->tensors[t].last;
    }
  side_finish (side, records, trace->n_allocations);
  side->side.has_reserved = trace->has_arena;
  side->side.reserved = trace->has_arena ? trace->reserved_peak : 0;
  return TRUE;
}

/* A graph: its buffers (views charged to their root) over the op order,
 * each charged to the op that writes it; usage records (no ops) by the
 * tensor's own name, which is what stays the same between two runs. */
static gboolean
side_of_graph (Side *side, const MpInput *input, GHashTable *strings, GError **error)
{
  const MpGraph     *graph = input->graph;
  g_autoptr (GError) local = NULL;
  MpLifetimes       *lt = mp_lifetimes_compute (graph, NULL, &local);
  g_autofree Record *records = NULL;

  if (lt == NULL)
    {
      g_set_error (error, MP_ANALYSIS_ERROR, MP_ANALYSIS_ERROR_INVALID, "%s: cannot compare it: %s",
                   graph->path ? graph->path : graph->name, local->message);
      return FALSE;
    }
  records = g_new (Record, MAX (lt->n_records, 1));
  for (guint i = 0; i < lt->n_records; i++)
    {
      const MpUsage  *r = &lt->records[i];
      const MpTensor *t = &graph->tensors[r->tensor];
      const char     *op;

      if (!graph->has_ops)
        op = t->name;
      else if (t->producer >= 0)
        op = graph->ops[t->producer].name;
      else
        op = t->kind == MP_TENSOR_PARAM ? "(parameter)" : "(graph input)";
      records[i].group = group_of (side, strings, op, NULL, r->bytes);
      records[i].first = r->first;
      records[i].last = r->last;
    }
  side_finish (side, records, lt->n_records);
  if (input->offsets)
    {
      /* a plan: its arena is the second figure */
      guint64 arena = 0;

      for (guint t = 0; t < graph->n_tensors; t++)
        arena = MAX (arena, input->offsets[t] + graph->tensors[t].size);
      side->side.has_reserved = TRUE;
      side->side.reserved = arena;
    }
  mp_lifetimes_free (lt);
  return TRUE;
}

static gboolean
side_init (Side *side, const MpInput *input, GHashTable *strings, GError **error)
{
  memset (side, 0, sizeof *side);
  side->groups = g_hash_table_new_full (group_hash, group_equal, g_free, NULL);
  side->side.format = input->format;
  side->side.name = g_strdup (input->graph->name);
  if (input->trace)
    return side_of_trace (side, input, strings);
  return side_of_graph (side, input, strings, error);
}

/* ---- the two sides together --------------------------------------------- */

typedef struct
{
  const char *op;
  const char *stack;
} Site;

static guint
site_hash (gconstpointer data)
{
  const Site *s = data;

  return g_direct_hash (s->op) ^ (g_direct_hash (s->stack) * 31u);
}

static gboolean
site_equal (gconstpointer a, gconstpointer b)
{
  const Site *x = a, *y = b;

  return x->op == y->op && x->stack == y->stack;
}

/* A row while the texts are still interned. */
typedef struct
{
  MpTraceDiffRow row;
  Site           site;
  gboolean       dead; /* merged into another */
} Pending;

static void
pending_set_delta (Pending *p)
{
  MpTraceDiffRow *r = &p->row;

  r->at_peak_a = r->size_a * r->live_a;
  r->at_peak_b = r->size_b * r->live_b;
  r->delta_at_peak = (gint64) r->at_peak_b - (gint64) r->at_peak_a;
  r->delta = (gint64) (r->size_b * r->count_b) - (gint64) (r->size_a * r->count_a);
  if (r->count_a == 0)
    r->change = MP_TRACE_DIFF_NEW;
  else if (r->count_b == 0)
    r->change = MP_TRACE_DIFF_GONE;
  else if (r->size_a != r->size_b)
    r->change = r->size_b > r->size_a ? MP_TRACE_DIFF_GROWN : MP_TRACE_DIFF_SHRUNK;
  else if (r->count_a == r->count_b)
    r->change = MP_TRACE_DIFF_SAME;
  else
    r->change = r->count_b > r->count_a ? MP_TRACE_DIFF_MORE : MP_TRACE_DIFF_FEWER;
}

/* Groups only in A and groups only in B at the same op and stack, as
 * many of each: the same allocations at other sizes, paired smallest with
 * smallest (a layer whose tensors all grew). */
static gint
compare_sizes (gconstpointer a, gconstpointer b, gpointer data)
{
  const Pending *rows = data;
  const Pending *x = &rows[*(const guint *) a], *y = &rows[*(const guint *) b];
  guint64        sx = x->row.size_a + x->row.size_b, sy = y->row.size_a + y->row.size_b;

  return sx < sy ? -1 : sx > sy;
}

static void
site_rows_free (gpointer data)
{
  GArray **pair = data;

  g_array_unref (pair[0]);
  g_array_unref (pair[1]);
  g_free (pair);
}

static void
merge_resized (GArray *pending)
{
  g_autoptr (GHashTable) sites = g_hash_table_new_full (site_hash, site_equal, NULL,
                                                        site_rows_free);
  Pending       *rows = (Pending *) (gpointer) pending->data;
  GHashTableIter iter;
  gpointer       value;

  /* per site: the rows only in A, the rows only in B */
  for (guint i = 0; i < pending->len; i++)
    {
      GArray **pair;

      if (rows[i].row.count_a != 0 && rows[i].row.count_b != 0)
        continue;
      if (!(pair = g_hash_table_lookup (sites, &rows[i].site)))
        {
          pair = g_new (GArray *, 2);
          pair[0] = g_array_new (FALSE, FALSE, sizeof (guint));
          pair[1] = g_array_new (FALSE, FALSE, sizeof (guint));
          g_hash_table_insert (sites, &rows[i].site, pair);
        }
      g_array_append_val (pair[rows[i].row.count_a == 0], i);
    }
  g_hash_table_iter_init (&iter, sites);
  while (g_hash_table_iter_next (&iter, NULL, &value))
    {
      GArray **pair = value;

      if (pair[0]->len != pair[1]->len)
        continue;
      g_array_sort_with_data (pair[0], compare_sizes, rows);
      g_array_sort_with_data (pair[1], compare_sizes, rows);
      for (guint k = 0; k < pair[0]->len; k++)
        {
          Pending *pa = &rows[g_array_index (pair[0], guint, k)];
          Pending *pb = &rows[g_array_index (pair[1], guint, k)];

          pa->row.size_b = pb->row.size_b;
          pa->row.count_b = pb->row.count_b;
          pa->row.live_b = pb->row.live_b;
          pb->dead = TRUE;
          pending_set_delta (pa);
        }
    }
}

static guint64
abs64 (gint64 v)
{
  return v < 0 ? (guint64) -v : (guint64) v;
}

static gint
compare_pending (gconstpointer a, gconstpointer b)
{
  const Pending *x = a, *y = b;
  guint64        px = abs64 (x->row.delta_at_peak), py = abs64 (y->row.delta_at_peak);
  guint64        dx = abs64 (x->row.delta), dy = abs64 (y->row.delta);
  gint           c;

  if (px != py)
    return px > py ? -1 : 1;
  if (dx != dy)
    return dx > dy ? -1 : 1;
  if (x->row.at_peak_b != y->row.at_peak_b)
    return x->row.at_peak_b > y->row.at_peak_b ? -1 : 1;
  if ((c = strcmp (x->site.op, y->site.op)) != 0)
    return c;
  if (x->site.stack != y->site.stack)
    return x->site.stack == NULL ? -1
           : y->site.stack == NULL ? 1 : strcmp (x->site.stack, y->site.stack);
  return x->row.size_a != y->row.size_a ? (x->row.size_a < y->row.size_a ? -1 : 1)
                                        : (x->row.size_b < y->row.size_b ? -1 : 1);
}

static void
row_clear (gpointer data)
{
  MpTraceDiffRow *row = data;

  g_free (row->op);
  g_free (row->stack);
}

static const char *
format_kind (MpInputFormat format)
{
  switch (format)
    {
    case MP_INPUT_CHROME_TRACE:
    case MP_INPUT_SNAPSHOT:
      return "trace";
    case MP_INPUT_USAGE_CSV:
      return "records";
    case MP_INPUT_GRAPH_JSON:
    case MP_INPUT_ONNX:
    default:
      return "graph";
    }
}

static MpTraceDiff *
diff_sides (Side *a, Side *b, const MpTraceDiffOptions *options)
{
  MpTraceDiff     *diff = g_new0 (MpTraceDiff, 1);
  g_autoptr (GArray) pending = g_array_new (FALSE, TRUE, sizeof (Pending));
  GHashTableIter   iter;
  gpointer         key;
  guint            max_rows = options ? options->max_rows : 0;

  diff->a = a->side;
  diff->b = b->side;
  a->side.name = b->side.name = NULL;
  diff->peak_delta = (gint64) diff->b.live_peak - (gint64) diff->a.live_peak;
  diff->has_reserved = diff->a.has_reserved && diff->b.has_reserved;
  if (diff->has_reserved)
    diff->reserved_delta = (gint64) diff->b.reserved - (gint64) diff->a.reserved;
  diff->notes = g_ptr_array_new_with_free_func (g_free);
  if (strcmp (format_kind (diff->a.format), format_kind (diff->b.format)) != 0)
    g_ptr_array_add (diff->notes,
                     g_strdup_printf ("A is read as %s, B as %s: their steps and ops may not "
                                      "match",
                                      mp_input_format_name (diff->a.format),
                                      mp_input_format_name (diff->b.format)));
  if (diff->a.has_reserved != diff->b.has_reserved)
    g_ptr_array_add (diff->notes, g_strdup_printf ("only %s has a reserved (or planned) figure",
                                                   diff->a.has_reserved ? "A" : "B"));

  g_hash_table_iter_init (&iter, a->groups);
  while (g_hash_table_iter_next (&iter, &key, NULL))
    {
      const Group *ga = key, *gb = g_hash_table_lookup (b->groups, ga);
      Pending      p = { { 0 }, { ga->op, ga->stack }, FALSE };

      p.row.size_a = ga->size;
      p.row.count_a = ga->count;
      p.row.live_a = ga->live;
      if (gb)
        {
          p.row.size_b = gb->size;
          p.row.count_b = gb->count;
          p.row.live_b = gb->live;
        }
      pending_set_delta (&p);
      g_array_append_val (pending, p);
    }
  g_hash_table_iter_init (&iter, b->groups);
  while (g_hash_table_iter_next (&iter, &key, NULL))
    {
      const Group *gb = key;
      Pending      p = { { 0 }, { gb->op, gb->stack }, FALSE };

      if (g_hash_table_contains (a->groups, gb))
        continue;
      p.row.size_b = gb->size;
      p.row.count_b = gb->count;
      p.row.live_b = gb->live;
      pending_set_delta (&p);
      g_array_append_val (pending, p);
    }
  merge_resized (pending);
  g_array_sort (pending, compare_pending);

  diff->rows = g_array_new (FALSE, TRUE, sizeof (MpTraceDiffRow));
  g_array_set_clear_func (diff->rows, row_clear);
  for (guint i = 0; i < pending->len; i++)
    {
      Pending *p = &g_array_index (pending, Pending, i);

      if (p->dead)
        continue;
      diff->n_rows++;
      if (max_rows && diff->rows->len >= max_rows)
        {
          diff->rest_at_peak += p->row.delta_at_peak;
          continue;
        }
      p->row.op = g_strdup (p->site.op);
      p->row.stack = g_strdup (p->site.stack);
      g_array_append_val (diff->rows, p->row);
    }
  return diff;
}

MpTraceDiff *
mp_trace_diff (const MpInput *a, const MpInput *b, const MpTraceDiffOptions *options,
               GError **error)
{
  g_autoptr (GHashTable) strings = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  Side         sa = { { 0 } }, sb = { { 0 } };
  MpTraceDiff *diff = NULL;

  g_return_val_if_fail (a != NULL && b != NULL, NULL);
  if (side_init (&sa, a, strings, error) && side_init (&sb, b, strings, error))
    diff = diff_sides (&sa, &sb, options);
  side_clear (&sa);
  side_clear (&sb);
  return diff;
}

typedef struct
{
  const char           *path;
  const MpInputOptions *options;
  MpInput              *input;
  GError               *error;
} Load;

static gpointer
load_thread (gpointer data)
{
  Load *load = data;

  load->input = mp_input_load (load->path, load->options, &load->error);
  return NULL;
}

MpTraceDiff *
mp_trace_diff_files (const char *path_a, const char *path_b,
                     const MpInputOptions *input_options, const MpTraceDiffOptions *options,
                     GError **error)
{
  g_autoptr (GHashTable) strings = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  Side         sides[2] = { { { 0 } }, { { 0 } } };
  MpInputOptions inputs = { { 0 } };
  Load         loads[2] = { { path_a, &inputs, NULL, NULL }, { path_b, &inputs, NULL, NULL } };
  guint64      estimates[2] = { 0, 0 };
  MpTraceDiff *diff = NULL;
  guint64      limit = options ? options->max_memory : 0;
  gboolean     both = TRUE;
  guint        done = 0;

  if (input_options)
    inputs = *input_options;
  /* the Chrome trace reader checks its costlier fallbacks by it too */
  if (inputs.trace.max_memory == 0)
    inputs.trace.max_memory = limit;
  if (limit != G_MAXUINT64)
    {
      for (guint i = 0; i < 2; i++)
        if (!mp_memory_check_load (loads[i].path, limit, &estimates[i], error))
          return NULL;
      /* both held at once only where both fit: else one at a time */
      both = mp_memory_check ("both", estimates[0] + estimates[1], limit, NULL);
    }
  if (both)
    {
      /* two imports are two independent reads: one a core */
      GThread *thread = g_thread_new ("memplan-diff-load", load_thread, &loads[1]);

      load_thread (&loads[0]);
      g_thread_join (thread);
    }
  for (; done < 2; done++)
    {
      Load *load = &loads[done];

      if (!both)
        load_thread (load);
      if (load->input == NULL)
        {
          g_propagate_error (error, g_steal_pointer (&load->error));
          break;
        }
      if (!side_init (&sides[done], load->input, strings, error))
        break;
      g_clear_pointer (&load->input, mp_input_free);
    }
  for (guint i = 0; i < 2; i++)
    {
      g_clear_pointer (&loads[i].input, mp_input_free);
      g_clear_error (&loads[i].error);
    }
  if (done == 2)
    diff = diff_sides (&sides[0], &sides[1], options);
  side_clear (&sides[0]);
  side_clear (&sides[1]);
  return diff;
}

void
mp_trace_diff_free (MpTraceDiff *diff)
{
  if (diff == NULL)
    return;
  g_free (diff->a.name);
  g_free (diff->b.name);
  g_clear_pointer (&diff->rows, g_array_unref);
  g_clear_pointer (&diff->notes, g_ptr_array_unref);
  g_free (diff);
}

const char *
mp_trace_diff_change_name (MpTraceDiffChange change)
{
  static const char *const names[] = { "same", "more", "fewer", "new", "gone", "grown",
                                       "shrunk" };

  return change < G_N_ELEMENTS (names) ? names[change] : "?";
}

gboolean
mp_trace_diff_exceeds (const MpTraceDiff *diff, gdouble tolerance, gboolean percent)
{
  gdouble allowed = percent ? diff->a.live_peak * tolerance / 100.0 : tolerance;

  return diff->peak_delta > 0 && (gdouble) diff->peak_delta > allowed;
}
