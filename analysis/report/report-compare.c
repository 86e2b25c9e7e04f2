/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "memplan-analysis"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "mp-error.h"
#include "report-compare.h"

static const char *change_names[] = { "unchanged", "within", "better", "worse", "invalid",
                                      "fixed", "only-base", "only-new" };
static const char *time_names[] = { "none", "same", "faster", "slower" };

G_STATIC_ASSERT (G_N_ELEMENTS (change_names) == MP_CHANGE_N);
G_STATIC_ASSERT (G_N_ELEMENTS (time_names) == MP_TIME_N);

const char *
mp_change_to_string (MpChange change)
{
  g_return_val_if_fail (change < MP_CHANGE_N, NULL);
  return change_names[change];
}

const char *
mp_time_change_to_string (MpTimeChange time)
{
  g_return_val_if_fail (time < MP_TIME_N, NULL);
  return time_names[time];
}

void
mp_compare_options_init (MpCompareOptions *options)
{
  *options = (MpCompareOptions) { .tolerance = 0.005, .time_tolerance = 0.5,
                                  .time_floor = 0.001 };
}

gboolean
mp_parse_percentage (const char *text, gdouble *value)
{
  char   *end = NULL;
  gdouble v;

  if (text == NULL || (!g_ascii_isdigit (*text) && *text != '.'))
    return FALSE;
  v = g_ascii_strtod (text, &end);
  /* "5" is 5%, as people write a tolerance */
  if (end == text || !(*end == '\0' || g_str_equal (end, "%")) || !isfinite (v) || v < 0)
    return FALSE;
  *value = v / 100.0;
  return TRUE;
}

static void
row_free (MpCompareRow *row)
{
  g_free (row->detail);
  g_free (row);
}

void
mp_comparison_free (MpComparison *comparison)
{
  if (comparison == NULL)
    return;
  g_ptr_array_unref (comparison->rows);
  g_ptr_array_unref (comparison->notes);
  g_free (comparison);
}

gboolean
mp_comparison_failed (const MpComparison *comparison)
{
  return comparison->n_failures > 0;
}

gboolean
mp_comparison_unchanged (const MpComparison *comparison)
{
  return comparison->counts[MP_CHANGE_UNCHANGED] == comparison->rows->len &&
         comparison->time_counts[MP_TIME_FASTER] == 0 &&
         comparison->time_counts[MP_TIME_SLOWER] == 0;
}

/* A skipped planner did not apply: for matching it is as if absent. */
static const MpReportResult *
present (const MpReportResult *result)
{
  return result && result->status != MP_RESULT_SKIPPED ? result : NULL;
}

static MpCompareRow *
add_row (MpComparison *c, const MpReportGraph *base_graph, const MpReportGraph *new_graph,
         const char *planner, MpChange change)
{
  MpCompareRow *row = g_new0 (MpCompareRow, 1);

  row->base_graph = base_graph;
  row->new_graph = new_graph;
  row->graph = base_graph ? base_graph->name : new_graph->name;
  row->planner = planner;
  row->change = change;
  row->arena_relative = NAN;
  row->time_relative = NAN;
  g_ptr_array_add (c->rows, row);
  return row;
}

/* Repeated runs (suite --repeat) measured their own noise: times whose
 * ranges overlap have not changed, whatever the medians say. */
static gboolean
within_spread (const MpReportResult *b, const MpReportResult *n)
{
  return (b->runs > 1 || n->runs > 1) && n->seconds_min <= b->seconds_max &&
         b->seconds_min <= n->seconds_max;
}

static void
compare_time (MpCompareRow *row, const MpCompareOptions *o)
{
  gdouble b = row->base->seconds, n = row->new->seconds;

  row->time_change = n - b;
  row->time_relative = b > 0 ? (n - b) / b : NAN;
  if (fabs (n - b) <= o->time_floor || (b > 0 && fabs (row->time_relative) <= o->time_tolerance) ||
      within_spread (row->base, row->new))
    row->time = MP_TIME_SAME;
  else
    {
      row->time = n > b ? MP_TIME_SLOWER : MP_TIME_FASTER;
      row->cells |= MP_CELL_TIME;
    }
}

static void
compare_arena (MpCompareRow *row, const MpCompareOptions *o)
{
  const MpReportResult *b = row->base, *n = row->new;

  row->arena_change = (gint64) n->arena - (gint64) b->arena;
  row->arena_relative = b->arena ? (gdouble) row->arena_change / (gdouble) b->arena : NAN;
  if (b->arena != n->arena)
    row->cells |= MP_CELL_ARENA;
  if (b->lower_bound != n->lower_bound)
    row->cells |= MP_CELL_LOWER_BOUND;
  if (b->ratio != n->ratio)
    row->cells |= MP_CELL_RATIO;
  if (b->fragmentation != n->fragmentation)
    row->cells |= MP_CELL_FRAGMENTATION;
  if (b->status != n->status)
    row->cells |= MP_CELL_VALID;
  compare_time (row, o);
}

/* Either side may be absent or skipped (as if absent, but worth saying). */
static void
compare_results (MpComparison *c, const MpReportGraph *bg, const MpReportGraph *ng,
                 const char *planner, const MpReportResult *b_any, const MpReportResult *n_any)
{
  MpCompareRow         *row = add_row (c, bg, ng, planner, MP_CHANGE_UNCHANGED);
  const MpReportResult *b = present (b_any), *n = present (n_any);

  row->base = b;
  row->new = n;
  if (n && n->status != MP_RESULT_VALID)
    {
      row->change = MP_CHANGE_INVALID;
      row->detail = g_strdup_printf ("%s in NEW: %s",
                                     n->status == MP_RESULT_INVALID ? "invalid plan"
                                                                    : "planner failed",
                                     n->problem);
      if (b && mp_report_result_planned (b))
        compare_arena (row, &c->options);
      row->cells |= MP_CELL_VALID;
      return;
    }
  if (n == NULL)
    {
      row->change = MP_CHANGE_ONLY_BASE;
      row->detail = n_any ? g_strdup_printf ("skipped in NEW: %s", n_any->problem)
                          : g_strdup_printf ("planner '%s' is not in NEW", planner);
      return;
    }
  if (b == NULL)
    {
      row->change = MP_CHANGE_ONLY_NEW;
      row->detail = b_any ? g_strdup_printf ("skipped in BASE: %s", b_any->problem)
                          : g_strdup_printf ("planner '%s' is not in BASE", planner);
      return;
    }
  if (b->status != MP_RESULT_VALID)
    {
      row->change = MP_CHANGE_FIXED;
      row->detail = g_strdup_printf ("%s in BASE: %s",
                                     b->status == MP_RESULT_INVALID ? "invalid plan"
                                                                    : "planner failed",
                                     b->problem);
      if (mp_report_result_planned (b))
        compare_arena (row, &c->options);
      row->cells |= MP_CELL_VALID;
      return;
    }

  compare_arena (row, &c->options);
  if (row->arena_change == 0)
    row->change = MP_CHANGE_UNCHANGED;
  else if (b->arena > 0 && fabs (row->arena_relative) <= c->options.tolerance)
    row->change = MP_CHANGE_WITHIN;
  else
    row->change = row->arena_change > 0 ? MP_CHANGE_WORSE : MP_CHANGE_BETTER;
}

/* Failed and invalid results of a graph that BASE cannot match: each one
 * still fails the comparison. */
static void
new_failures (MpComparison *c, const MpReportGraph *ng)
{
  for (guint i = 0; i < ng->results->len; i++)
    {
      const MpReportResult *n = ng->results->pdata[i];

      if (n->status == MP_RESULT_INVALID || n->status == MP_RESULT_FAILED)
        compare_results (c, NULL, ng, n->planner, NULL, n);
    }
}

static void
compare_graphs (MpComparison *c, const MpReportGraph *bg, const MpReportGraph *ng)
{
  MpCompareRow *row;

  if (ng == NULL)
    {
      row = add_row (c, bg, NULL, NULL, MP_CHANGE_ONLY_BASE);
      row->detail = g_strdup_printf ("graph is not in NEW (BASE: %s)", bg->file);
      return;
    }
  if (ng->error)
    {
      row = add_row (c, bg, ng, NULL, MP_CHANGE_INVALID);
      row->detail = g_strdup_printf ("graph failed to load in NEW: %s", ng->error);
      return;
    }
  if (bg == NULL || bg->error)
    {
      row = add_row (c, bg, ng, NULL, bg ? MP_CHANGE_FIXED : MP_CHANGE_ONLY_NEW);
      row->detail = bg ? g_strdup_printf ("graph loads now (BASE: %s)", bg->error)
                       : g_strdup_printf ("graph is not in BASE (NEW: %s)", ng->file);
      new_failures (c, ng);
      return;
    }

  if (bg->sha256 && ng->sha256 && !g_str_equal (bg->sha256, ng->sha256))
    g_ptr_array_add (c->notes, g_strdup_printf ("graph '%s': the input file changed (%s)",
                                                bg->name, ng->file));
  for (guint i = 0; i < bg->results->len; i++)
    {
      const MpReportResult *b = present (bg->results->pdata[i]);

      if (b)
        compare_results (c, bg, ng, b->planner, b, mp_report_graph_find (ng, b->planner));
    }
  for (guint i = 0; i < ng->results->len; i++)
    {
      const MpReportResult *n = present (ng->results->pdata[i]);

      if (n && !present (mp_report_graph_find (bg, n->planner)))
        compare_results (c, bg, ng, n->planner, mp_report_graph_find (bg, n->planner), n);
    }
}

static char *
strv_text (char **strv)
{
  return strv && strv[0] ? g_strjoinv (",", strv) : g_strdup ("none");
}

gboolean
mp_report_comparable (const MpReport *base, const MpReport *new_report, GError **error)
{
  g_autofree char *bd = strv_text (base->dims);
  g_autofree char *nd = strv_text (new_report->dims);
  g_autofree char *bv = NULL, *nv = NULL;
  const char      *what = NULL;

  if (base->alignment != new_report->alignment)
    {
      what = "alignment";
      bv = g_strdup_printf ("%" G_GUINT64_FORMAT, base->alignment);
      nv = g_strdup_printf ("%" G_GUINT64_FORMAT, new_report->alignment);
    }
  else if (base->plan_inputs != new_report->plan_inputs)
    {
      what = "plan_inputs";
      bv = g_strdup (base->plan_inputs ? "true" : "false");
      nv = g_strdup (new_report->plan_inputs ? "true" : "false");
    }
  else if (base->max_parallel_ops != new_report->max_parallel_ops)
    {
      what = "max_parallel_ops";
      bv = g_strdup_printf ("%u", base->max_parallel_ops);
      nv = g_strdup_printf ("%u", new_report->max_parallel_ops);
    }
  else if (!g_str_equal (bd, nd))
    {
      what = "dims";
      bv = g_strdup (bd);
      nv = g_strdup (nd);
    }
  else if (g_strcmp0 (base->schedule, new_report->schedule) != 0)
    {
      what = "schedule";
      bv = g_strdup (base->schedule ? base->schedule : "concurrent");
      nv = g_strdup (new_report->schedule ? new_report->schedule : "concurrent");
    }
  else if (g_strcmp0 (base->order, new_report->order) != 0)
    {
      what = "order";
      bv = g_strdup (base->order ? base->order : "given");
      nv = g_strdup (new_report->order ? new_report->order : "given");
    }
  else if (base->time_budget != new_report->time_budget)
    {
      what = "time_budget";
      bv = g_strdup_printf ("%g", base->time_budget);
      nv = g_strdup_printf ("%g", new_report->time_budget);
    }
  if (what == NULL)
    return TRUE;
  g_set_error (error, MP_ANALYSIS_ERROR, MP_ANALYSIS_ERROR_INVALID,
               "the reports were made with different options, so their figures cannot be "
               "compared: %s is %s in BASE, %s in NEW", what, bv, nv);
  return FALSE;
}

MpComparison *
mp_report_compare (const MpReport *base, const MpReport *new_report,
                   const MpCompareOptions *options)
{
  MpComparison *c;

  g_return_val_if_fail (base != NULL && new_report != NULL, NULL);
  c = g_new0 (MpComparison, 1);
  c->base = base;
  c->new = new_report;
  if (options)
    c->options = *options;
  else
    mp_compare_options_init (&c->options);
  c->rows = g_ptr_array_new_with_free_func ((GDestroyNotify) row_free);
  c->notes = g_ptr_array_new_with_free_func (g_free);

  for (guint i = 0; i < base->graphs->len; i++)
    {
      const MpReportGraph *bg = base->graphs->pdata[i];

      compare_graphs (c, bg, mp_report_find_graph (new_report, bg->name));
    }
  for (guint i = 0; i < new_report->graphs->len; i++)
    {
      const MpReportGraph *ng = new_report->graphs->pdata[i];

      if (!mp_report_find_graph (base, ng->name))
        compare_graphs (c, NULL, ng);
    }

  for (guint i = 0; i < c->rows->len; i++)
    {
      MpCompareRow *row = c->rows->pdata[i];

      /* a gate that lost a graph or a planner has lost what it guards */
      row->failure = row->change == MP_CHANGE_WORSE || row->change == MP_CHANGE_INVALID ||
                     (row->change == MP_CHANGE_ONLY_BASE && !c->options.allow_missing) ||
                     (c->options.fail_on_time && row->time == MP_TIME_SLOWER);
      c->counts[row->change]++;
      c->time_counts[row->time]++;
      c->n_failures += row->failure;
    }
  return c;
}
