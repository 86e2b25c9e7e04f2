/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "memplan-analysis"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <json-c/json.h>

#include "graph-private.h"
#include "json-util.h"
#include "plan-io.h"
#include "report.h"

#define REPORT_FORMAT "memplan.report/1"

static const char *status_names[] = { "valid", "invalid", "failed", "skipped" };

const char *
mp_result_status_to_string (MpResultStatus status)
{
  g_return_val_if_fail (status < G_N_ELEMENTS (status_names), NULL);
  return status_names[status];
}

static void
memory_free (MpReportMemory *m)
{
  g_free (m->name);
  g_free (m);
}

static void
result_free (MpReportResult *result)
{
  g_free (result->planner);
  g_free (result->problem);
  g_clear_pointer (&result->memories, g_ptr_array_unref);
  g_free (result);
}

void
mp_report_result_set_spill (MpReportResult *result, const MpSpill *spill)
{
  g_clear_pointer (&result->memories, g_ptr_array_unref);
  result->memories = g_ptr_array_new_with_free_func ((GDestroyNotify) memory_free);
  for (guint k = 0; k < spill->n_memories; k++)
    {
      MpReportMemory *m = g_new0 (MpReportMemory, 1);

      m->name = g_strdup (spill->memories[k].name);
      m->capacity = spill->memories[k].capacity;
      m->arena = spill->arena[k];
      m->n_tensors = spill->count[k];
      m->spilled_bytes = spill->spilled_bytes[k];
      for (guint i = 0; i < spill->n_records; i++)
        m->n_spilled += spill->memory_of[i] == k && spill->spilled[i];
      g_ptr_array_add (result->memories, m);
    }
}

static void
graph_free (MpReportGraph *graph)
{
  g_free (graph->name);
  g_free (graph->file);
  g_free (graph->plans);
  g_free (graph->sha256);
  g_free (graph->error);
  g_ptr_array_unref (graph->results);
  g_free (graph);
}

MpReport *
mp_report_new (void)
{
  MpReport *report = g_new0 (MpReport, 1);

  report->memplan_version = g_strdup (MEMPLAN_VERSION);
  report->planners = g_new0 (char *, 1);
  report->inputs = g_new0 (char *, 1);
  report->dims = g_new0 (char *, 1);
  report->graphs = g_ptr_array_new_with_free_func ((GDestroyNotify) graph_free);
  report->graph_index = g_hash_table_new (g_str_hash, g_str_equal);
  return report;
}

void
mp_report_free (MpReport *report)
{
  if (report == NULL)
    return;
  g_free (report->path);
  g_free (report->memplan_version);
  g_strfreev (report->planners);
  g_strfreev (report->inputs);
  g_strfreev (report->dims);
  g_free (report->order);
  g_free (report->schedule);
  g_hash_table_unref (report->graph_index);
  g_ptr_array_unref (report->graphs);
  g_clear_pointer (&report->plan_files, g_ptr_array_unref);
  g_free (report);
}

MpReportGraph *
mp_report_find_graph (const MpReport *report, const char *name)
{
  return g_hash_table_lookup (report->graph_index, name);
}

MpReportResult *
mp_report_graph_find (const MpReportGraph *graph, const char *planner)
{
  for (guint i = 0; i < graph->results->len; i++)
    {
      MpReportResult *r = graph->results->pdata[i];

      if (g_str_equal (r->planner, planner))
        return r;
    }
  return NULL;
}

gboolean
mp_report_result_planned (const MpReportResult *result)
{
  return result->status == MP_RESULT_VALID || result->status == MP_RESULT_INVALID;
}

MpReportGraph *
mp_report_add_graph (MpReport *report, const char *name, const char *file)
{
  MpReportGraph   *graph;
  g_autofree char *key = NULL;

  g_return_val_if_fail (name != NULL, NULL);
  graph = g_new0 (MpReportGraph, 1);
  key = g_strdup (name);
  for (guint n = 2; mp_report_find_graph (report, key); n++)
    {
      g_free (key);
      key = g_strdup_printf ("%s #%u", name, n);
    }
  graph->name = g_steal_pointer (&key);
  graph->file = g_strdup (file);
  graph->results = g_ptr_array_new_with_free_func ((GDestroyNotify) result_free);
  g_ptr_array_add (report->graphs, graph);
  g_hash_table_insert (report->graph_index, graph->name, graph);
  return graph;
}

void
mp_report_remove_graph (MpReport *report, MpReportGraph *graph)
{
  g_hash_table_remove (report->graph_index, graph->name);
  g_ptr_array_remove (report->graphs, graph);
}

/* Ratio and fragmentation follow from arena and lower bound; the report
 * stores them for readers, the arena is what counts. */
static void
result_derive (MpReportResult *r)
{
  MpPlan p = { .arena = r->arena, .lower_bound = r->lower_bound };

  r->ratio = mp_plan_ratio (&p);
  r->fragmentation = mp_plan_fragmentation (&p);
}

MpReportResult *
mp_report_graph_add_plan (MpReportGraph *graph, const MpPlan *plan)
{
  MpReportResult *r;

  g_return_val_if_fail (plan->checked, NULL);
  r = g_new0 (MpReportResult, 1);
  r->planner = g_strdup (plan->planner);
  r->status = plan->valid ? MP_RESULT_VALID : MP_RESULT_INVALID;
  r->arena = plan->arena;
  r->lower_bound = plan->lower_bound;
  mp_report_result_set_times (r, &plan->seconds, 1);
  r->n_partitions = plan->n_partitions;
  r->proved_optimal = plan->proved_optimal;
  r->problem = g_strdup (plan->problem);
  result_derive (r);
  g_ptr_array_add (graph->results, r);
  return r;
}

static int
compare_seconds (gconstpointer a, gconstpointer b)
{
  gdouble x = *(const gdouble *) a, y = *(const gdouble *) b;

  return (x > y) - (x < y);
}

void
mp_report_result_set_times (MpReportResult *result, const gdouble *seconds, guint n)
{
  g_autofree gdouble *sorted = g_memdup2 (seconds, n * sizeof (gdouble));

  g_return_if_fail (n > 0);
  qsort (sorted, n, sizeof (gdouble), compare_seconds);
  result->runs = n;
  result->seconds = n % 2 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
  result->seconds_min = sorted[0];
  result->seconds_max = sorted[n - 1];
}

MpReportResult *
mp_report_graph_add_missed (MpReportGraph *graph, const char *planner, MpResultStatus status,
                            const char *why)
{
  MpReportResult *r;

  g_return_val_if_fail (status == MP_RESULT_FAILED || status == MP_RESULT_SKIPPED, NULL);
  r = g_new0 (MpReportResult, 1);
  r->planner = g_strdup (planner);
  r->status = status;
  r->problem = g_strdup (why);
  g_ptr_array_add (graph->results, r);
  return r;
}

/* Writing */

static json_object *
strv_to_json (char **strv)
{
  json_object *list = json_object_new_array ();

  for (guint i = 0; strv && strv[i]; i++)
    json_object_array_add (list, json_object_new_string (strv[i]));
  return list;
}

static json_object *
result_to_json (const MpReportResult *r)
{
  json_object *obj = json_object_new_object ();

  json_object_object_add (obj, "planner", json_object_new_string (r->planner));
  if (r->status == MP_RESULT_FAILED)
    json_object_object_add (obj, "error", json_object_new_string (r->problem));
  else if (r->status == MP_RESULT_SKIPPED)
    json_object_object_add (obj, "skipped", json_object_new_string (r->problem));
  else
    {
      json_object_object_add (obj, "arena", json_object_new_int64 (r->arena));
      json_object_object_add (obj, "lower_bound", json_object_new_int64 (r->lower_bound));
      json_object_object_add (obj, "ratio", mp_json_new_short_double (r->ratio));
      json_object_object_add (obj, "fragmentation", mp_json_new_short_double (r->fragmentation));
      json_object_object_add (obj, "valid", json_object_new_boolean (r->status == MP_RESULT_VALID));
      if (r->problem)
        json_object_object_add (obj, "problem", json_object_new_string (r->problem));
      json_object_object_add (obj, "seconds", mp_json_new_short_double (r->seconds));
      if (r->runs > 1)
        {
          /* suite --repeat: the median above, the spread here */
          json_object_object_add (obj, "runs", json_object_new_int64 (r->runs));
          json_object_object_add (obj, "seconds_min", mp_json_new_short_double (r->seconds_min));
          json_object_object_add (obj, "seconds_max", mp_json_new_short_double (r->seconds_max));
        }
      if (r->n_partitions)
        json_object_object_add (obj, "partitions", json_object_new_int64 (r->n_partitions));
      if (r->proved_optimal)
        json_object_object_add (obj, "proved_optimal", json_object_new_boolean (TRUE));
      if (r->memories)
        {
          json_object *list = json_object_new_array_ext (r->memories->len);

          for (guint k = 0; k < r->memories->len; k++)
            {
              const MpReportMemory *m = r->memories->pdata[k];
              json_object          *mo = json_object_new_object ();

              json_object_object_add (mo, "name", json_object_new_string (m->name));
              if (m->capacity)
                json_object_object_add (mo, "capacity", json_object_new_int64 (m->capacity));
              json_object_object_add (mo, "arena", json_object_new_int64 (m->arena));
              json_object_object_add (mo, "tensors", json_object_new_int64 (m->n_tensors));
              json_object_object_add (mo, "spilled_bytes",
                                      json_object_new_int64 (m->spilled_bytes));
              json_object_object_add (mo, "spilled", json_object_new_int64 (m->n_spilled));
              json_object_array_add (list, mo);
            }
          json_object_object_add (obj, "memories", list);
        }
    }
  return obj;
}

static json_object *
graph_to_json (const MpReportGraph *g)
{
  json_object *obj = json_object_new_object ();
  json_object *results = json_object_new_array ();

  json_object_object_add (obj, "name", json_object_new_string (g->name));
  json_object_object_add (obj, "file", json_object_new_string (g->file));
  if (g->sha256)
    json_object_object_add (obj, "sha256", json_object_new_string (g->sha256));
  if (g->error)
    {
      json_object_object_add (obj, "error", json_object_new_string (g->error));
      json_object_put (results);
      return obj;
    }
  if (g->plans)
    json_object_object_add (obj, "plans", json_object_new_string (g->plans));
  json_object_object_add (obj, "tensors", json_object_new_int64 (g->n_tensors));
  json_object_object_add (obj, "records", json_object_new_int64 (g->n_records));
  json_object_object_add (obj, "steps", json_object_new_int64 (g->n_steps));
  json_object_object_add (obj, "lower_bound", json_object_new_int64 (g->lower_bound));
  json_object_object_add (obj, "workspace", json_object_new_int64 (g->workspace));
  for (guint i = 0; i < g->results->len; i++)
    json_object_array_add (results, result_to_json (g->results->pdata[i]));
  json_object_object_add (obj, "results", results);
  return obj;
}

char *
mp_report_to_json (const MpReport *report)
{
  json_object *root = json_object_new_object ();
  json_object *options = json_object_new_object ();
  json_object *graphs = json_object_new_array ();

  json_object_object_add (root, "format", json_object_new_string (REPORT_FORMAT));
  json_object_object_add (root, "memplan_version",
                          json_object_new_string (report->memplan_version));
  json_object_object_add (options, "planners", strv_to_json (report->planners));
  json_object_object_add (options, "alignment", json_object_new_int64 (report->alignment));
  json_object_object_add (options, "plan_inputs", json_object_new_boolean (report->plan_inputs));
  json_object_object_add (options, "max_parallel_ops",
                          json_object_new_int64 (report->max_parallel_ops));
  json_object_object_add (options, "time_budget", mp_json_new_short_double (report->time_budget));
  json_object_object_add (options, "keep_going", json_object_new_boolean (report->keep_going));
  json_object_object_add (options, "inputs", strv_to_json (report->inputs));
  if (report->dims[0])
    json_object_object_add (options, "dims", strv_to_json (report->dims));
  if (report->order)
    json_object_object_add (options, "order", json_object_new_string (report->order));
  if (report->schedule)
    json_object_object_add (options, "schedule", json_object_new_string (report->schedule));
  json_object_object_add (root, "options", options);
  for (guint i = 0; i < report->graphs->len; i++)
    json_object_array_add (graphs, graph_to_json (report->graphs->pdata[i]));
  json_object_object_add (root, "graphs", graphs);
  return mp_json_to_text_free (root);
}

/* Reading: every error names the file, the graph and the planner at fault. */

typedef struct
{
  const char *path;
  char       *where; /* "graph 'g', planner 'p': " or "" */
} Reader;

static gboolean G_GNUC_PRINTF (3, 4)
fail (Reader *rd, GError **error, const char *format, ...)
{
  va_list          args;
  g_autofree char *msg = NULL;

  va_start (args, format);
  msg = g_strdup_vprintf (format, args);
  va_end (args);
  mp_set_file_error (error, MP_ANALYSIS_ERROR_INVALID, rd->path, "%s%s", rd->where, msg);
  return FALSE;
}

static gboolean
get_string (Reader *rd, json_object *obj, const char *key, gboolean required, char **out,
            GError **error)
{
  json_object *v;

  if (!json_object_object_get_ex (obj, key, &v) || v == NULL)
    {
      if (required)
        return fail (rd, error, "missing \"%s\" (a string)", key);
      return TRUE;
    }
  if (!json_object_is_type (v, json_type_string))
    return fail (rd, error, "\"%s\" must be a string", key);
  *out = g_strdup (json_object_get_string (v));
  return TRUE;
}

static gboolean
get_u64 (Reader *rd, json_object *obj, const char *key, gboolean required, guint64 max,
         guint64 *out, GError **error)
{
  json_object *v;

  if (!json_object_object_get_ex (obj, key, &v))
    {
      if (required)
        return fail (rd, error, "missing \"%s\" (an integer >= 0)", key);
      return TRUE;
    }
  if (!mp_json_get_u64 (v, out) || *out > max)
    return fail (rd, error, "\"%s\" must be an integer from 0 to %" G_GUINT64_FORMAT, key, max);
  return TRUE;
}

static gboolean
get_uint (Reader *rd, json_object *obj, const char *key, gboolean required, guint *out,
          GError **error)
{
  guint64 v = 0;

  if (!get_u64 (rd, obj, key, required, G_MAXUINT, &v, error))
    return FALSE;
  *out = v;
  return TRUE;
}

static gboolean
get_number (Reader *rd, json_object *obj, const char *key, gboolean required, gdouble *out,
            GError **error)
{
  json_object *v;

  if (!json_object_object_get_ex (obj, key, &v))
    {
      if (required)
        return fail (rd, error, "missing \"%s\" (a number >= 0)", key);
      return TRUE;
    }
  if (!json_object_is_type (v, json_type_double) && !json_object_is_type (v, json_type_int))
    return fail (rd, error, "\"%s\" must be a number >= 0", key);
  *out = json_object_get_double (v);
  if (!isfinite (*out) || *out < 0)
    return fail (rd, error, "\"%s\" must be a number >= 0", key);
  return TRUE;
}

static gboolean
get_bool (Reader *rd, json_object *obj, const char *key, gboolean required, gboolean *out,
          GError **error)
{
  json_object *v;

  if (!json_object_object_get_ex (obj, key, &v))
    {
      if (required)
        return fail (rd, error, "missing \"%s\" (true or false)", key);
      return TRUE;
    }
  if (!json_object_is_type (v, json_type_boolean))
    return fail (rd, error, "\"%s\" must be true or false", key);
  *out = json_object_get_boolean (v);
  return TRUE;
}

static gboolean
get_strv (Reader *rd, json_object *obj, const char *key, char ***out, GError **error)
{
  json_object *v;
  GPtrArray   *list;

  if (!json_object_object_get_ex (obj, key, &v))
    return TRUE;
  if (!json_object_is_type (v, json_type_array))
    return fail (rd, error, "\"%s\" must be a list of strings", key);
  list = g_ptr_array_new_with_free_func (g_free); /* a refusal frees what it copied */
  for (gsize i = 0; i < json_object_array_length (v); i++)
    {
      json_object *s = json_object_array_get_idx (v, i);

      if (!json_object_is_type (s, json_type_string))
        {
          g_ptr_array_free (list, TRUE);
          return fail (rd, error, "\"%s\" must be a list of strings", key);
        }
      g_ptr_array_add (list, g_strdup (json_object_get_string (s)));
    }
  g_ptr_array_add (list, NULL);
  g_strfreev (*out);
  *out = (char **) g_ptr_array_free (list, FALSE);
  return TRUE;
}

/* suite --repeat's fields; a report without them ran each planner once. */
static gboolean
read_runs (Reader *rd, json_object *obj, MpReportResult *r, GError **error)
{
  guint64 runs = 1;

  r->seconds_min = r->seconds_max = r->seconds;
  if (!get_u64 (rd, obj, "runs", FALSE, G_MAXUINT, &runs, error) ||
      !get_number (rd, obj, "seconds_min", FALSE, &r->seconds_min, error) ||
      !get_number (rd, obj, "seconds_max", FALSE, &r->seconds_max, error))
    return FALSE;
  if (runs == 0)
    return fail (rd, error, "\"runs\" must be at least 1");
  r->runs = runs;
  if (!(r->seconds_min <= r->seconds && r->seconds <= r->seconds_max))
    return fail (rd, error, "\"seconds\" %g must lie between \"seconds_min\" %g and "
                 "\"seconds_max\" %g", r->seconds, r->seconds_min, r->seconds_max);
  return TRUE;
}

/* "memories": [{"name", "capacity"?, "arena", "tensors", "spilled_bytes",
 * "spilled"}], each memory once, the spill within each arena. */
static gboolean
read_memories (Reader *rd, json_object *obj, MpReportResult *r, GError **error)
{
  json_object *list;

  if (!json_object_object_get_ex (obj, "memories", &list))
    return TRUE;
  if (!json_object_is_type (list, json_type_array) || json_object_array_length (list) == 0)
    return fail (rd, error, "\"memories\" must be a list of memories");
  r->memories = g_ptr_array_new_with_free_func ((GDestroyNotify) memory_free);
  for (gsize k = 0; k < json_object_array_length (list); k++)
    {
      json_object    *mo = json_object_array_get_idx (list, k);
      MpReportMemory *m = g_new0 (MpReportMemory, 1);

      g_ptr_array_add (r->memories, m);
      if (!json_object_is_type (mo, json_type_object))
        return fail (rd, error, "\"memories\" #%" G_GSIZE_FORMAT " must be an object", k + 1);
      if (!get_string (rd, mo, "name", TRUE, &m->name, error) ||
          !get_u64 (rd, mo, "capacity", FALSE, G_MAXINT64, &m->capacity, error) ||
          !get_u64 (rd, mo, "arena", TRUE, G_MAXINT64, &m->arena, error) ||
          !get_uint (rd, mo, "tensors", TRUE, &m->n_tensors, error) ||
          !get_u64 (rd, mo, "spilled_bytes", TRUE, G_MAXINT64, &m->spilled_bytes, error) ||
          !get_uint (rd, mo, "spilled", TRUE, &m->n_spilled, error))
        return FALSE;
      for (guint j = 0; j + 1 < r->memories->len; j++)
        if (g_str_equal (((MpReportMemory *) r->memories->pdata[j])->name, m->name))
          return fail (rd, error, "memory '%s' appears twice in \"memories\"", m->name);
      if (m->n_spilled > m->n_tensors)
        return fail (rd, error, "memory '%s': %u tensors spilled into it, but it holds %u",
                     m->name, m->n_spilled, m->n_tensors);
    }
  return TRUE;
}

static gboolean
read_result (Reader *rd, json_object *obj, gsize index, MpReportGraph *graph, GError **error)
{
  g_autofree char *planner = NULL;
  g_autofree char *why = NULL;
  MpReportResult  *r;
  gboolean         valid = FALSE;

  if (!json_object_is_type (obj, json_type_object))
    return fail (rd, error, "result #%" G_GSIZE_FORMAT " must be an object", index + 1);
  if (!json_object_object_get_ex (obj, "planner", NULL))
    return fail (rd, error, "result #%" G_GSIZE_FORMAT " needs a \"planner\" name", index + 1);
  if (!get_string (rd, obj, "planner", TRUE, &planner, error))
    return FALSE;
  if (mp_report_graph_find (graph, planner))
    return fail (rd, error, "planner '%s' appears twice", planner);

  g_free (rd->where);
  rd->where = g_strdup_printf ("graph '%s', planner '%s': ", graph->name, planner);
  if (json_object_object_get_ex (obj, "error", NULL) ||
      json_object_object_get_ex (obj, "skipped", NULL))
    {
      gboolean skipped = json_object_object_get_ex (obj, "skipped", NULL);

      if (!get_string (rd, obj, skipped ? "skipped" : "error", TRUE, &why, error))
        return FALSE;
      mp_report_graph_add_missed (graph, planner, skipped ? MP_RESULT_SKIPPED : MP_RESULT_FAILED,
                                  why);
      return TRUE;
    }

  r = g_new0 (MpReportResult, 1);
  r->planner = g_steal_pointer (&planner);
  g_ptr_array_add (graph->results, r);
  if (!get_u64 (rd, obj, "arena", TRUE, G_MAXINT64, &r->arena, error) ||
      !get_u64 (rd, obj, "lower_bound", TRUE, G_MAXINT64, &r->lower_bound, error) ||
      !get_bool (rd, obj, "valid", TRUE, &valid, error) ||
      !get_number (rd, obj, "seconds", TRUE, &r->seconds, error) ||
      !get_string (rd, obj, "problem", FALSE, &r->problem, error) ||
      !get_uint (rd, obj, "partitions", FALSE, &r->n_partitions, error) ||
      !get_bool (rd, obj, "proved_optimal", FALSE, &r->proved_optimal, error) ||
      !read_runs (rd, obj, r, error) || !read_memories (rd, obj, r, error))
    return FALSE;
  r->status = valid ? MP_RESULT_VALID : MP_RESULT_INVALID;
  if (!valid && r->problem == NULL)
    return fail (rd, error, "an invalid plan needs a \"problem\" saying why");
  /* figures that contradict each other are no report a gate can trust */
  if (valid && r->arena < r->lower_bound)
    return fail (rd, error, "\"arena\" (%" G_GUINT64_FORMAT ") is below \"lower_bound\" (%"
                 G_GUINT64_FORMAT "): no plan can be", r->arena, r->lower_bound);
  result_derive (r);
  {
    static const char *derived[] = { "ratio", "fragmentation" };
    const gdouble      want[] = { r->ratio, r->fragmentation };

    for (guint k = 0; k < G_N_ELEMENTS (derived); k++)
      {
        json_object *v;
        gdouble      got;

        if (!json_object_object_get_ex (obj, derived[k], &v) ||
            json_object_is_type (v, json_type_null))
          continue;
        got = json_object_get_double (v);
        if (!json_object_is_type (v, json_type_double) && !json_object_is_type (v, json_type_int))
          return fail (rd, error, "\"%s\" must be a number", derived[k]);
        if (fabs (got - want[k]) > 1e-6 * MAX (1.0, fabs (want[k])))
          return fail (rd, error, "\"%s\" is %g, but \"arena\" and \"lower_bound\" make it %g",
                       derived[k], got, want[k]);
      }
  }
  return TRUE;
}

static gboolean
read_graph (Reader *rd, json_object *obj, gsize index, MpReport *report, GError **error)
{
  g_autofree char *name = NULL;
  MpReportGraph   *g;
  json_object     *results;

  g_clear_pointer (&rd->where, g_free);
  rd->where = g_strdup ("");
  if (!json_object_is_type (obj, json_type_object))
    return fail (rd, error, "graph #%" G_GSIZE_FORMAT " must be an object", index + 1);
  if (!json_object_object_get_ex (obj, "name", NULL))
    return fail (rd, error, "graph #%" G_GSIZE_FORMAT " needs a \"name\"", index + 1);
  if (!get_string (rd, obj, "name", TRUE, &name, error))
    return FALSE;
  if (mp_report_find_graph (report, name))
    return fail (rd, error, "graph '%s' appears twice", name);

  g_free (rd->where);
  rd->where = g_strdup_printf ("graph '%s': ", name);
  g = mp_report_add_graph (report, name, NULL);
  if (!get_string (rd, obj, "file", TRUE, &g->file, error) ||
      !get_string (rd, obj, "sha256", FALSE, &g->sha256, error) ||
      !get_string (rd, obj, "error", FALSE, &g->error, error))
    return FALSE;
  if (g->error)
    {
      if (json_object_object_get_ex (obj, "results", NULL))
        return fail (rd, error, "a graph that failed to load has no \"results\"");
      return TRUE;
    }
  if (!get_string (rd, obj, "plans", FALSE, &g->plans, error) ||
      !get_uint (rd, obj, "tensors", TRUE, &g->n_tensors, error) ||
      !get_uint (rd, obj, "records", TRUE, &g->n_records, error) ||
      !get_uint (rd, obj, "steps", TRUE, &g->n_steps, error) ||
      !get_u64 (rd, obj, "lower_bound", TRUE, G_MAXINT64, &g->lower_bound, error) ||
      !get_u64 (rd, obj, "workspace", FALSE, G_MAXINT64, &g->workspace, error))
    return FALSE;
  if (!json_object_object_get_ex (obj, "results", &results) ||
      !json_object_is_type (results, json_type_array))
    return fail (rd, error, "\"results\" must be a list");
  for (gsize i = 0; i < json_object_array_length (results); i++)
    {
      if (!read_result (rd, json_object_array_get_idx (results, i), i, g, error))
        return FALSE;
      g_free (rd->where);
      rd->where = g_strdup_printf ("graph '%s': ", name);
    }
  return TRUE;
}

static gboolean
read_report (Reader *rd, json_object *root, MpReport *report, GError **error)
{
  json_object *v, *options, *graphs;
  guint64      max_parallel = 0;

  if (!json_object_is_type (root, json_type_object) ||
      !json_object_object_get_ex (root, "format", &v) ||
      !json_object_is_type (v, json_type_string))
    {
      mp_set_file_error (error, MP_ANALYSIS_ERROR_FORMAT, rd->path,
                         "not a report: expected \"format\": \"" REPORT_FORMAT "\"");
      return FALSE;
    }
  if (!g_str_equal (json_object_get_string (v), REPORT_FORMAT))
    {
      mp_set_file_error (error, MP_ANALYSIS_ERROR_FORMAT, rd->path,
                         "\"format\" is '%s', expected '" REPORT_FORMAT "'",
                         json_object_get_string (v));
      return FALSE;
    }
  g_clear_pointer (&report->memplan_version, g_free);
  if (!get_string (rd, root, "memplan_version", TRUE, &report->memplan_version, error))
    return FALSE;
  if (json_object_object_get_ex (root, "options", &options))
    {
      if (!json_object_is_type (options, json_type_object))
        return fail (rd, error, "\"options\" must be an object");
      g_free (rd->where);
      rd->where = g_strdup ("options: ");
      if (!get_strv (rd, options, "planners", &report->planners, error) ||
          !get_strv (rd, options, "inputs", &report->inputs, error) ||
          (json_object_object_get_ex (options, "dims", NULL) &&
           !get_strv (rd, options, "dims", &report->dims, error)) ||
          !get_u64 (rd, options, "alignment", FALSE, G_MAXINT64, &report->alignment, error) ||
          !get_bool (rd, options, "plan_inputs", FALSE, &report->plan_inputs, error) ||
          !get_u64 (rd, options, "max_parallel_ops", FALSE, G_MAXUINT, &max_parallel, error) ||
          !get_number (rd, options, "time_budget", FALSE, &report->time_budget, error) ||
          !get_bool (rd, options, "keep_going", FALSE, &report->keep_going, error) ||
          !get_string (rd, options, "order", FALSE, &report->order, error) ||
          !get_string (rd, options, "schedule", FALSE, &report->schedule, error))
        return FALSE;
      if (report->schedule && !g_str_equal (report->schedule, "sequential") &&
          !g_str_equal (report->schedule, "concurrent"))
        return fail (rd, error, "\"schedule\": '%s' is neither concurrent nor sequential",
                     report->schedule);
      if (report->order && !mp_order_method_from_string (report->order, &(MpOrderMethod) { 0 }))
        return fail (rd, error, "\"order\": unknown order '%s'", report->order);
      report->max_parallel_ops = max_parallel;
      g_free (rd->where);
      rd->where = g_strdup ("");
    }
  if (!json_object_object_get_ex (root, "graphs", &graphs) ||
      !json_object_is_type (graphs, json_type_array))
    return fail (rd, error, "\"graphs\" must be a list");
  for (gsize i = 0; i < json_object_array_length (graphs); i++)
    if (!read_graph (rd, json_object_array_get_idx (graphs, i), i, report, error))
      return FALSE;
  return TRUE;
}

MpReport *
mp_report_parse (const char *data, gsize length, const char *path, GError **error)
{
  g_autoptr (MpReport) report = mp_report_new ();
  Reader       rd = { path ? path : "<report>", g_strdup ("") };
  json_object *root;
  gboolean     ok;

  if (!(root = mp_json_parse (data, length, rd.path, error)))
    {
      g_free (rd.where);
      return NULL;
    }
  ok = read_report (&rd, root, report, error);
  json_object_put (root);
  g_free (rd.where);
  if (!ok)
    return NULL;
  report->path = g_strdup (path);
  return g_steal_pointer (&report);
}

MpReport *
mp_report_load (const char *path, GError **error)
{
  g_autofree char *data = NULL;
  gsize            length;

  g_return_val_if_fail (path != NULL, NULL);
  if (!mp_read_file (path, &data, &length, error))
    return NULL;
  return mp_report_parse (data, length, path, error);
}

char *
mp_report_resolve (const MpReport *report, const char *relative)
{
  g_autofree char *dir = NULL;

  g_return_val_if_fail (relative != NULL, NULL);
  if (g_path_is_absolute (relative) || report->path == NULL)
    return g_strdup (relative);
  dir = g_path_get_dirname (report->path);
  return g_build_filename (dir, relative, NULL);
}

GPtrArray *
mp_report_open_plans (const MpReport *report, const MpReportGraph *graph, MpWorkload **workload_out,
                      GError **error)
{
  g_autofree char *graph_path = NULL;
  g_autofree char *plans_path = NULL;
  g_autofree char *data = NULL;
  g_autofree char *sha256 = NULL;
  g_autoptr (MpWorkload) w = NULL;
  MpWorkloadOptions options = { .plan_inputs = report->plan_inputs,
                                .alignment = report->alignment,
                                .max_parallel_ops = report->max_parallel_ops,
                                .schedule = g_strcmp0 (report->schedule, "sequential") == 0
                                              ? MP_PLAN_SCHEDULE_SEQUENTIAL
                                              : MP_PLAN_SCHEDULE_AUTO,
                                .input.onnx.dims = (const char *const *) report->dims };
  GPtrArray        *plans;

  /* the plans were made for the order the suite planned (checked on reading) */
  if (report->order)
    mp_order_method_from_string (report->order, &options.order);
  gsize             length;

  g_return_val_if_fail (graph != NULL && workload_out != NULL, NULL);
  graph_path = mp_report_resolve (report, graph->file);
  if (graph->plans == NULL)
    {
      mp_set_file_error (error, MP_ANALYSIS_ERROR_INVALID, report->path ? report->path : "report",
                         "graph '%s' has no saved plans (make the report with 'suite --plans DIR')",
                         graph->name);
      return NULL;
    }
  if (!mp_read_file (graph_path, &data, &length, error))
    return NULL;
  sha256 = g_compute_checksum_for_data (G_CHECKSUM_SHA256, (const guchar *) data, length);
  if (graph->sha256 && !g_str_equal (sha256, graph->sha256))
    {
      mp_set_file_error (error, MP_ANALYSIS_ERROR_INVALID, graph_path,
                         "the graph changed since the report was made (sha256 differs)");
      return NULL;
    }
  plans_path = mp_report_resolve (report, graph->plans);
  if (!(w = mp_workload_open (graph_path, &options, error)) ||
      !(plans = mp_plan_load (plans_path, w->graph, w->lifetimes, error)))
    return NULL;
  for (guint i = 0; i < plans->len; i++)
    mp_workload_judge (w, plans->pdata[i]);
  *workload_out = g_steal_pointer (&w);
  return plans;
}
