/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "memplan-analysis"

#include <string.h>
#include <json-c/json.h>

#include "graph-private.h"
#include "json-util.h"
#include "plan-io.h"
#include "plan-io-memories.h"
#include "text-util.h"
#include "verdict.h"

#define PLAN_FORMAT "memplan.plan/1"

/* Everything of a plan but its tensors: small, built with json-c so that
 * numbers and strings read exactly as elsewhere. */
static json_object *
plan_header_json (const MpPlan *plan)
{
  json_object *obj = json_object_new_object ();

  json_object_object_add (obj, "planner", json_object_new_string (plan->planner));
  json_object_object_add (obj, "arena", json_object_new_int64 (plan->arena));
  json_object_object_add (obj, "lower_bound", json_object_new_int64 (plan->lower_bound));
  json_object_object_add (obj, "workspace", json_object_new_int64 (plan->workspace));
  json_object_object_add (obj, "ratio", json_object_new_double (mp_plan_ratio (plan)));
  json_object_object_add (obj, "fragmentation",
                          json_object_new_double (mp_plan_fragmentation (plan)));
  json_object_object_add (obj, "seconds", json_object_new_double (plan->seconds));
  if (plan->checked)
    {
      json_object_object_add (obj, "valid", json_object_new_boolean (plan->valid));
      if (plan->problem)
        json_object_object_add (obj, "problem", json_object_new_string (plan->problem));
    }
  json_object_object_add (obj, "schedule",
                          json_object_new_string (plan->parallel ? "parallel" : "sequential"));
  if (plan->parallel)
    json_object_object_add (obj, "max_parallel_ops",
                            json_object_new_int64 (plan->max_parallel_ops));
  if (plan->checked)
    {
      json_object_object_add (obj, "sequential_valid",
                              json_object_new_boolean (plan->sequential_valid));
      if (plan->sequential_problem)
        json_object_object_add (obj, "sequential_problem",
                                json_object_new_string (plan->sequential_problem));
    }
  if (plan->concurrent_checked)
    {
      json_object_object_add (obj, "concurrent_valid",
                              json_object_new_boolean (plan->concurrent_valid));
      if (plan->concurrent_problem)
        json_object_object_add (obj, "concurrent_problem",
                                json_object_new_string (plan->concurrent_problem));
    }
  if (plan->n_partitions)
    json_object_object_add (obj, "partitions", json_object_new_int (plan->n_partitions));
  if (plan->note)
    json_object_object_add (obj, "note", json_object_new_string (plan->note));
  if (plan->searched)
    {
      g_autofree char *proof = mp_plan_proof (plan);

      json_object_object_add (obj, "proven_optimal",
                              json_object_new_boolean (plan->proved_optimal));
      json_object_object_add (obj, "proof", json_object_new_string (proof));
      if (plan->proved_bound)
        json_object_object_add (obj, "proved_lower_bound",
                                json_object_new_int64 (plan->proved_bound));
      if (plan->bound_name)
        json_object_object_add (obj, "bound", json_object_new_string (plan->bound_name));
      json_object_object_add (obj, "nodes", json_object_new_int64 (plan->nodes));
    }
  if (plan->capacity)
    {
      g_autofree char *fit = mp_plan_fit (plan);
      gboolean         fits = plan->arena <= plan->capacity;

      json_object_object_add (obj, "capacity", json_object_new_int64 (plan->capacity));
      json_object_object_add (obj, "fits", json_object_new_boolean (fits));
      if (!fits)
        json_object_object_add (obj, "fit_reason",
                                json_object_new_string (plan->fit_refuted
                                                        ? "proved infeasible"
                                                        : "not found within the budget"));
      json_object_object_add (obj, "fit", json_object_new_string (fit));
    }
  return obj;
}

/* The plan file is written as it is produced, never held as one tree: a
 * million tensors per plan would take hundreds of bytes each in json-c
 * objects. Tensors take one line each. out NULL: everything stays in buf. */
typedef struct
{
  GString *buf;
  FILE    *out;
  gboolean failed;
} JsonOut;

#define JSON_FLUSH_AT (1 << 20)
#define JSON_FLAGS (JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED | JSON_C_TO_STRING_NOSLASHESCAPE)

static void
json_flush (JsonOut *o, gboolean all)
{
  if (o->out == NULL || (!all && o->buf->len < JSON_FLUSH_AT))
    return;
  if (fwrite (o->buf->str, 1, o->buf->len, o->out) != o->buf->len)
    o->failed = TRUE;
  g_string_truncate (o->buf, 0);
}

static void
json_string (GString *s, const char *text)
{
  g_string_append_c (s, '"');
  for (const char *p = text; *p; p++)
    {
      guchar c = *p;

      if (c == '"' || c == '\\')
        {
          g_string_append_c (s, '\\');
          g_string_append_c (s, c);
        }
      else if (c < 0x20)
        {
          const char *named = strchr ("\bb\ff\nn\rr\tt", c); /* as json-c writes them */

          if (named)
            {
              g_string_append_c (s, '\\');
              g_string_append_c (s, named[1]);
            }
          else
            g_string_append_printf (s, "\\u%04x", c);
        }
      else
        g_string_append_c (s, c);
    }
  g_string_append_c (s, '"');
}

static void
json_u64 (GString *s, guint64 v)
{
  char  digits[24];
  guint n = 0;

  do
    digits[n++] = '0' + v % 10;
  while ((v /= 10) > 0);
  while (n > 0)
    g_string_append_c (s, digits[--n]);
}

static void
json_i64 (GString *s, gint64 v)
{
  if (v < 0)
    {
      g_string_append_c (s, '-');
      json_u64 (s, -(guint64) v);
    }
  else
    json_u64 (s, v);
}

/* The members of a flat object at the given indent, each followed by ",". */
static void
json_members (JsonOut *o, const char *indent, json_object *obj)
{
  json_object_object_foreach (obj, key, value)
    {
      g_string_append (o->buf, indent);
      json_string (o->buf, key);
      g_string_append (o->buf, ": ");
      g_string_append (o->buf, json_object_to_json_string_ext (value, JSON_FLAGS));
      g_string_append (o->buf, ",\n");
    }
}

/* spill: the plan spread over several memories, or NULL */
static void
write_plan (JsonOut *o, const MpGraph *graph, const MpPlan *plan, const MpLifetimes *lt,
            const MpSpill *spill)
{
  json_object *header = plan_header_json (plan);

  g_string_append (o->buf, "    {\n");
  json_members (o, "      ", header);
  json_object_put (header);
  g_string_append (o->buf, "      \"tensors\": [");
  for (guint i = 0; i < plan->n_records; i++)
    {
      gint64 first, last;

      mp_usage_times (graph, &plan->records[i], &first, &last);
      g_string_append (o->buf, i ? ",\n        { \"name\": " : "\n        { \"name\": ");
      json_string (o->buf, graph->tensors[plan->records[i].tensor].name);
      g_string_append (o->buf, ", \"size\": ");
      json_u64 (o->buf, plan->records[i].bytes);
      g_string_append (o->buf, ", \"first\": ");
      json_i64 (o->buf, first);
      g_string_append (o->buf, ", \"last\": ");
      json_i64 (o->buf, last);
      g_string_append (o->buf, ", \"offset\": ");
      json_u64 (o->buf, plan->offsets[i]);
      g_string_append (o->buf, " }");
      json_flush (o, FALSE);
    }
  g_string_append (o->buf, plan->n_records ? "\n      ]" : " ]");
  if (spill)
    mp_spill_append_json (o->buf, graph, lt, spill);
  g_string_append (o->buf, "\n    }");
}

static void
write_plans (JsonOut *o, const MpGraph *graph, MpPlan **plans, guint n_plans,
             const char *const *skipped, const char *const *reasons, guint n_skipped,
             const MpLifetimes *lt, MpSpill *const *spills)
{
  json_object *root = json_object_new_object ();

  json_object_object_add (root, "format", json_object_new_string (PLAN_FORMAT));
  json_object_object_add (root, "graph", json_object_new_string (graph->name));
  json_object_object_add (root, "memplan_version", json_object_new_string (MEMPLAN_VERSION));
  if (n_plans > 0)
    json_object_object_add (root, "alignment", json_object_new_int64 (plans[0]->alignment));
  g_string_append (o->buf, "{\n");
  json_members (o, "  ", root);
  json_object_put (root);
  g_string_append (o->buf, "  \"plans\": [");
  for (guint i = 0; i < n_plans; i++)
    {
      g_string_append (o->buf, i ? ",\n" : "\n");
      write_plan (o, graph, plans[i], lt, spills ? spills[i] : NULL);
    }
  g_string_append (o->buf, n_plans ? "\n  ]" : " ]");
  if (n_skipped)
    {
      g_string_append (o->buf, ",\n  \"skipped\": [");
      for (guint i = 0; i < n_skipped; i++)
        {
          g_string_append (o->buf, i ? ",\n    { \"planner\": " : "\n    { \"planner\": ");
          json_string (o->buf, skipped[i]);
          g_string_append (o->buf, ", \"reason\": ");
          json_string (o->buf, reasons[i]);
          g_string_append (o->buf, " }");
        }
      g_string_append (o->buf, "\n  ]");
    }
  g_string_append (o->buf, "\n}\n");
  json_flush (o, TRUE);
}

char *
mp_plan_to_json (const MpGraph *graph, MpPlan **plans, guint n_plans)
{
  return mp_plan_to_json_skipping (graph, plans, n_plans, NULL, NULL, 0);
}

char *
mp_plan_to_json_skipping (const MpGraph *graph, MpPlan **plans, guint n_plans,
                          const char *const *skipped, const char *const *reasons, guint n_skipped)
{
  JsonOut o = { g_string_new (NULL), NULL, FALSE };

  write_plans (&o, graph, plans, n_plans, skipped, reasons, n_skipped, NULL, NULL);
  return g_string_free (o.buf, FALSE);
}

typedef struct
{
  const MpGraph     *graph;
  MpPlan           **plans;
  guint              n_plans;
  const char *const *skipped;
  const char *const *reasons;
  guint              n_skipped;
  const MpLifetimes *lifetimes;
  MpSpill *const    *spills;
} PlanFile;

static gboolean
fill_plan_file (FILE *out, gpointer data)
{
  const PlanFile *f = data;
  JsonOut         o = { g_string_sized_new (JSON_FLUSH_AT + 4096), out, FALSE };

  write_plans (&o, f->graph, f->plans, f->n_plans, f->skipped, f->reasons, f->n_skipped,
               f->lifetimes, f->spills);
  g_string_free (o.buf, TRUE);
  return !o.failed;
}

gboolean
mp_plan_write_json (const char *path, const MpGraph *graph, MpPlan **plans, guint n_plans,
                    const char *const *skipped, const char *const *reasons, guint n_skipped,
                    GError **error)
{
  PlanFile f = { graph, plans, n_plans, skipped, reasons, n_skipped, NULL, NULL };

  return mp_write_file_stream (path, fill_plan_file, &f, error);
}

gboolean
mp_plan_write_json_spills (const char *path, const MpGraph *graph, const MpLifetimes *lifetimes,
                           MpPlan **plans, MpSpill *const *spills, guint n_plans,
                           const char *const *skipped, const char *const *reasons,
                           guint n_skipped, GError **error)
{
  PlanFile f = { graph, plans, n_plans, skipped, reasons, n_skipped, lifetimes, spills };

  return mp_write_file_stream (path, fill_plan_file, &f, error);
}

/* Which of MiniMalloc's optional columns the records need: alignment when
 * one is not 1, hint when one is given, gaps when one has any (as its
 * ToCsv decides), and memplan's fixed_offset. */
typedef struct
{
  gboolean alignment, hint, gaps, fixed;
} CsvColumns;

static CsvColumns
csv_columns (const MpGraph *graph, const MpPlan *plan)
{
  CsvColumns c = { FALSE, FALSE, FALSE, FALSE };

  for (guint i = 0; i < plan->n_records; i++)
    {
      const MpTensor *t = &graph->tensors[plan->records[i].tensor];

      c.alignment |= t->alignment > 1;
      c.hint |= t->has_preferred;
      c.gaps |= t->n_gaps > 0;
      c.fixed |= t->has_fixed;
    }
  return c;
}

static void
append_optional (GString *s, gboolean has, guint64 value)
{
  if (has)
    g_string_append_printf (s, ",%" G_GUINT64_FORMAT, value);
  else
    g_string_append (s, ",-1");
}

/* v in decimal; offsets and sizes stay below 2^60 (MAX_OFFSET) */
static void
append_int (GString *s, gint64 v)
{
  char    digits[24];
  guint   n = 0;
  guint64 u = v < 0 ? -(guint64) v : (guint64) v;

  if (v < 0)
    g_string_append_c (s, '-');
  do
    digits[n++] = (char) ('0' + u % 10);
  while ((u /= 10) != 0);
  while (n)
    g_string_append_c (s, digits[--n]);
}

char *
mp_plan_to_csv (const MpGraph *graph, const MpPlan *plan)
{
  GString   *s = g_string_sized_new (32 * (gsize) plan->n_records + 32);
  CsvColumns c = csv_columns (graph, plan);

  g_string_append_printf (s, "id,lower,upper,size%s%s%s%s,offset\n",
                          c.alignment ? ",alignment" : "", c.hint ? ",hint" : "",
                          c.gaps ? ",gaps" : "", c.fixed ? ",fixed_offset" : "");
  for (guint i = 0; i < plan->n_records; i++)
    {
      const MpTensor *t = &graph->tensors[plan->records[i].tensor];
      gint64          first, last;

      /* quoted where it must be: a name is one field of one record */
      if (t->name[strcspn (t->name, ",\"\r\n")] == '\0')
        g_string_append (s, t->name);
      else
        {
          g_autofree char *id = mp_csv_field (t->name);

          g_string_append (s, id);
        }
      mp_usage_times (graph, &plan->records[i], &first, &last);
      /* digits by hand: printf was a fifth of a small plan process */
      g_string_append_c (s, ',');
      append_int (s, first);
      g_string_append_c (s, ',');
      append_int (s, last + 1);
      g_string_append_c (s, ',');
      append_int (s, (gint64) plan->records[i].bytes);
      if (c.alignment)
        g_string_append_printf (s, ",%" G_GUINT64_FORMAT, MAX (t->alignment, 1));
      if (c.hint)
        append_optional (s, t->has_preferred, t->preferred_offset);
      if (c.gaps)
        {
          g_string_append_c (s, ',');
          for (guint k = 0; k < t->n_gaps; k++)
            {
              const MpGap *g = &g_array_index (graph->gaps, MpGap, t->gap_first + k);

              g_string_append_printf (s, "%s%" G_GINT64_FORMAT "-%" G_GINT64_FORMAT, k ? " " : "",
                                      g->first, g->last + 1);
              if (g->windowed)
                g_string_append_printf (s, "@%" G_GUINT64_FORMAT ":%" G_GUINT64_FORMAT, g->lo,
                                        g->hi);
            }
        }
      if (c.fixed)
        append_optional (s, t->has_fixed, t->fixed_offset);
      g_string_append_c (s, ',');
      append_int (s, (gint64) plan->offsets[i]);
      g_string_append_c (s, '\n');
    }
  return g_string_free (s, FALSE);
}

/* Fills plan->offsets from name -> offset pairs; names the graph does not
 * plan are an error, missing ones are left for the validator to report. */
#define MAX_OFFSET (G_GUINT64_CONSTANT (1) << 60)

static gboolean
assign_offset (const char *path, const MpGraph *graph, const MpLifetimes *lt, MpPlan *plan,
               const char *name, guint64 offset, GError **error)
{
  gint t = mp_graph_find_tensor (graph, name);
  gint r = t >= 0 ? lt->record_of[t] : -1;

  if (r < 0 || lt->records[r].tensor != (guint) t)
    {
      mp_set_file_error (error, MP_ANALYSIS_ERROR_INVALID, path,
                         "the plan places tensor '%s', which the graph does not plan", name);
      return FALSE;
    }
  /* far beyond any device, and offset + size cannot wrap around */
  if (offset > MAX_OFFSET)
    {
      mp_set_file_error (error, MP_ANALYSIS_ERROR_INVALID, path,
                         "plan '%s': tensor '%s': offset %" G_GUINT64_FORMAT
                         " is over the limit of 2^60 bytes",
                         plan->planner, name, offset);
      return FALSE;
    }
  plan->offsets[r] = offset;
  return TRUE;
}

/* A plan for the parallel groups (multistream's, or any planner's for a
 * graph whose streams run concurrently) is checked under them. */
static void
make_parallel (const MpGraph *graph, MpPlan *plan, guint max_parallel_ops)
{
  g_autoptr (MpSchedule) schedule = NULL;

  plan->parallel = TRUE;
  plan->max_parallel_ops = max_parallel_ops;
  schedule = mp_schedule_parallel (graph, plan->max_parallel_ops);
  {
    MpUsage *records = mp_schedule_usage (schedule, graph, plan->records, plan->n_records);
    MpUsage *old = plan->records;

    /* the copy's gaps still point into the old box */
    plan->records = mp_usage_box_dup (records, plan->n_records);
    g_atomic_rc_box_release (old);
    g_free (records);
  }
  plan->n_steps = MAX (schedule->n_groups, 1);
  plan->lower_bound = mp_usage_lower_bound (plan->records, plan->n_records, plan->n_steps, NULL,
                                            NULL);
}

static void
load_parallel (json_object *item, const MpGraph *graph, MpPlan *plan)
{
  guint64 max_parallel = 0;

  mp_json_get_u64 (json_object_object_get (item, "max_parallel_ops"), &max_parallel);
  make_parallel (graph, plan, (guint) MIN (max_parallel, G_MAXUINT));
}

/* A CSV plan says no schedule, but its lifetimes do: those of the parallel
 * groups (plan -f csv of a graph whose streams run concurrently, the
 * default) rather than of op order. */
static gboolean
csv_in_groups (const MpGraph *graph, const MpGraph *csv, const MpLifetimes *lt)
{
  g_autoptr (MpSchedule) schedule = NULL;
  g_autofree MpUsage *groups = NULL;
  gboolean            ops = TRUE, grouped = TRUE;

  if (!graph->has_ops || mp_graph_n_streams (graph) < 2)
    return FALSE;
  schedule = mp_schedule_parallel (graph, 0);
  groups = mp_schedule_usage (schedule, graph, lt->records, lt->n_records);
  for (guint i = 0; i < csv->n_tensors && (ops || grouped); i++)
    {
      const MpTensor *t = &csv->tensors[i];
      gint            k = mp_graph_find_tensor (graph, t->name);
      gint            r = k >= 0 ? lt->record_of[k] : -1;

      if (r < 0)
        return FALSE;
      ops = ops && t->first == lt->records[r].first && t->last == lt->records[r].last;
      grouped = grouped && t->first == groups[r].first && t->last == groups[r].last;
    }
  return grouped && !ops;
}

static GPtrArray *
load_csv_plan (const char *path, const char *data, gsize length, const MpGraph *graph,
               const MpLifetimes *lt, GError **error)
{
  g_autoptr (MpGraph) records = NULL;
  g_autofree guint64 *offsets = NULL;
  g_autoptr (GPtrArray) plans = g_ptr_array_new_with_free_func ((GDestroyNotify) mp_plan_free);
  MpPlan *plan;

  if (!(records = mp_graph_parse_csv (data, length, path, &offsets, error)))
    return NULL;
  if (offsets == NULL)
    {
      mp_set_file_error (error, MP_ANALYSIS_ERROR_FORMAT, path,
                         "no offset column: a plan CSV has the header 'id,lower,upper,size,offset'");
      return NULL;
    }
  plan = mp_plan_new ("plan", lt);
  g_ptr_array_add (plans, plan);
  for (guint i = 0; i < records->n_tensors; i++)
    if (!assign_offset (path, graph, lt, plan, records->tensors[i].name, offsets[i], error))
      return NULL;
  if (csv_in_groups (graph, records, lt))
    make_parallel (graph, plan, 0);
  mp_plan_finish (plan);
  return g_steal_pointer (&plans);
}

static GPtrArray *
load_json_plan (const char *path, const char *data, gsize length, const MpGraph *graph,
                const MpLifetimes *lt, GError **error)
{
  g_autoptr (GPtrArray) plans = g_ptr_array_new_with_free_func ((GDestroyNotify) mp_plan_free);
  json_object *root, *v, *list;
  gboolean     ok = TRUE;

  if (!(root = mp_json_parse (data, length, path, error)))
    return NULL;
  if (!json_object_is_type (root, json_type_object) ||
      !json_object_object_get_ex (root, "format", &v) ||
      g_strcmp0 (json_object_get_string (v), PLAN_FORMAT) != 0)
    {
      mp_set_file_error (error, MP_ANALYSIS_ERROR_FORMAT, path,
                         "not a plan: expected \"format\": \"" PLAN_FORMAT "\"");
      json_object_put (root);
      return NULL;
    }
  list = json_object_object_get (root, "plans");
  if (!list || !json_object_is_type (list, json_type_array))
    {
      mp_set_file_error (error, MP_ANALYSIS_ERROR_INVALID, path, "\"plans\" must be a list");
      json_object_put (root);
      return NULL;
    }
  for (gsize p = 0; ok && p < json_object_array_length (list); p++)
    {
      json_object *item = json_object_array_get_idx (list, p), *tensors, *name;
      MpPlan      *plan;
      guint64      arena = 0;

      name = json_object_object_get (item, "planner");
      tensors = json_object_object_get (item, "tensors");
      if (!tensors || !json_object_is_type (tensors, json_type_array))
        {
          mp_set_file_error (error, MP_ANALYSIS_ERROR_INVALID, path,
                             "plan #%" G_GSIZE_FORMAT " has no \"tensors\" list", p);
          ok = FALSE;
          break;
        }
      plan = mp_plan_new (name && json_object_is_type (name, json_type_string)
                            ? json_object_get_string (name) : "plan", lt);
      g_ptr_array_add (plans, plan);
      if (graph->has_ops &&
          g_strcmp0 (json_object_get_string (json_object_object_get (item, "schedule")),
                     "parallel") == 0)
        load_parallel (item, graph, plan);
      for (gsize i = 0; ok && i < json_object_array_length (tensors); i++)
        {
          json_object *t = json_object_array_get_idx (tensors, i);
          json_object *tn = json_object_object_get (t, "name");
          guint64      offset;

          if (!tn || !json_object_is_type (tn, json_type_string) ||
              !mp_json_get_u64 (json_object_object_get (t, "offset"), &offset))
            {
              mp_set_file_error (error, MP_ANALYSIS_ERROR_INVALID, path,
                                 "plan '%s': tensor #%" G_GSIZE_FORMAT
                                 " needs a \"name\" and an integer \"offset\"",
                                 plan->planner, i);
              ok = FALSE;
              break;
            }
          ok = assign_offset (path, graph, lt, plan, json_object_get_string (tn), offset, error);
        }
      mp_plan_finish (plan);
      /* the file's arena is the claim to check, when it gives one */
      if (mp_json_get_u64 (json_object_object_get (item, "arena"), &arena))
        plan->arena = arena;
      /* spread over several memories: one more plan per memory */
      if (ok && json_object_object_get (item, "spill"))
        ok = mp_spill_load_json (path, graph, lt, plan->planner,
                                 json_object_object_get (item, "spill"), plans, error);
    }
  json_object_put (root);
  if (!ok)
    return NULL;
  return g_steal_pointer (&plans);
}

GPtrArray *
mp_plan_parse (const char *data, gsize length, const char *path, const MpGraph *graph,
               const MpLifetimes *lifetimes, GError **error)
{
  const char *p;

  for (p = data; p < data + length && g_ascii_isspace (*p); p++)
    ;
  if (p < data + length && *p == '{')
    return load_json_plan (path, data, length, graph, lifetimes, error);
  return load_csv_plan (path, data, length, graph, lifetimes, error);
}

GPtrArray *
mp_plan_load (const char *path, const MpGraph *graph, const MpLifetimes *lifetimes, GError **error)
{
  g_autofree char *data = NULL;
  gsize            length;

  if (!mp_read_file (path, &data, &length, error))
    return NULL;
  return mp_plan_parse (data, length, path, graph, lifetimes, error);
}
