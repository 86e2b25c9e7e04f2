/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "memplan-analysis"

#include <math.h>
#include <string.h>
#include <json-c/json.h>

#include "json-util.h"
#include "plan-io.h"
#include "report-compare.h"
#include "text-util.h"

/* Words for people; mp_change_to_string gives the stable names for JSON. */
static const char *change_labels[] = { "unchanged", "within tolerance", "better", "WORSE",
                                       "INVALID", "fixed", "only in BASE", "only in NEW" };
static const char *count_labels[] = { "unchanged", "within tolerance", "better", "worse",
                                      "invalid", "fixed", "only in BASE", "only in NEW" };
/* The order counts are listed in: failures first. */
static const MpChange count_order[] = { MP_CHANGE_WORSE, MP_CHANGE_INVALID, MP_CHANGE_BETTER,
                                        MP_CHANGE_FIXED, MP_CHANGE_WITHIN, MP_CHANGE_UNCHANGED,
                                        MP_CHANGE_ONLY_BASE, MP_CHANGE_ONLY_NEW };

G_STATIC_ASSERT (G_N_ELEMENTS (change_labels) == MP_CHANGE_N);
G_STATIC_ASSERT (G_N_ELEMENTS (count_order) == MP_CHANGE_N);
G_STATIC_ASSERT (G_N_ELEMENTS (count_labels) == MP_CHANGE_N);

static gboolean
row_compared (const MpCompareRow *row)
{
  return row->base && row->new && mp_report_result_planned (row->base) &&
         mp_report_result_planned (row->new);
}

static char *
row_name (const MpCompareRow *row)
{
  g_autofree char *name = row->planner ? g_strdup_printf ("%s/%s", row->graph, row->planner)
                                        : g_strdup (row->graph);

  return mp_escape_name (name);
}

/* Bytes for a human reader, with the sign of a change; JSON keeps the raw
 * count. */
static char *
fmt_signed_bytes (gint64 change)
{
  g_autofree char *bytes = mp_format_bytes (change < 0 ? -(guint64) change : (guint64) change);

  return change == 0 ? g_steal_pointer (&bytes)
                     : g_strdup_printf ("%c%s", change < 0 ? '-' : '+', bytes);
}

static char *
fmt_arena (const MpReportResult *r)
{
  return r && mp_report_result_planned (r) ? mp_format_bytes (r->arena) : g_strdup ("-");
}

static char *
fmt_time (const MpReportResult *r)
{
  return r && mp_report_result_planned (r) ? mp_format_seconds (r->seconds) : g_strdup ("-");
}

static char *
fmt_relative (gdouble rel)
{
  return isnan (rel) ? g_strdup ("-") : g_strdup_printf ("%+.2f%%", 100.0 * rel);
}

static char *
fmt_change (const MpCompareRow *row)
{
  return row_compared (row) ? fmt_signed_bytes (row->arena_change) : g_strdup ("-");
}

static char *
fmt_time_change (const MpCompareRow *row)
{
  if (row->time == MP_TIME_NONE)
    return g_strdup ("-");
  if (row->time == MP_TIME_SAME)
    return g_strdup ("same");
  if (isnan (row->time_relative))
    return g_strdup (row->time == MP_TIME_SLOWER ? "slower" : "faster");
  return g_strdup_printf ("%s %+.0f%%", row->time == MP_TIME_SLOWER ? "slower" : "faster",
                          100.0 * row->time_relative);
}

/* Why a row fails, in a few words. */
static char *
failure_reason (const MpCompareRow *row)
{
  if (row->change == MP_CHANGE_WORSE)
    {
      g_autofree char *change = fmt_signed_bytes (row->arena_change);

      return isnan (row->arena_relative) ? g_strdup_printf ("arena %s", change)
                                         : g_strdup_printf ("arena %+.2f%%", 100.0 * row->arena_relative);
    }
  if (row->change == MP_CHANGE_INVALID)
    return g_strdup (row->planner == NULL             ? "graph failed to load in NEW"
                     : row->new->status == MP_RESULT_INVALID ? "invalid plan in NEW"
                                                             : "planner failed in NEW");
  if (row->change == MP_CHANGE_ONLY_BASE)
    return g_strdup (row->planner == NULL ? "graph missing from NEW" : "missing from NEW");
  return isnan (row->time_relative) ? g_strdup ("slower")
                                    : g_strdup_printf ("time %+.0f%%", 100.0 * row->time_relative);
}

/* Whether either report timed its planners more than once (suite --repeat). */
static gboolean
repeated (const MpComparison *c)
{
  for (guint i = 0; i < c->rows->len; i++)
    {
      const MpCompareRow *row = c->rows->pdata[i];

      if ((row->base && row->base->runs > 1) || (row->new && row->new->runs > 1))
        return TRUE;
    }
  return FALSE;
}

static char *
fmt_options (const MpComparison *c)
{
  g_autofree char *floor = mp_format_seconds (c->options.time_floor);

  return g_strdup_printf ("arena tolerance %.4g%%, time tolerance %.4g%% (changes under %s%s "
                          "ignored)%s",
                          100.0 * c->options.tolerance, 100.0 * c->options.time_tolerance, floor,
                          repeated (c) ? " or within the spread of repeated runs" : "",
                          c->options.fail_on_time ? ", slower fails" : "");
}

static char *
fmt_counts (const MpComparison *c)
{
  GString *s = g_string_new (NULL);

  g_string_append_printf (s, "%u compared:", c->rows->len);
  for (guint i = 0; i < G_N_ELEMENTS (count_order); i++)
    if (c->counts[count_order[i]])
      g_string_append_printf (s, "%s %u %s", s->str[s->len - 1] == ':' ? "" : ",",
                              c->counts[count_order[i]], count_labels[count_order[i]]);
  if (c->rows->len == 0)
    g_string_append (s, " nothing");
  if (c->time_counts[MP_TIME_SLOWER] || c->time_counts[MP_TIME_FASTER])
    g_string_append_printf (s, "; time: %u slower, %u faster", c->time_counts[MP_TIME_SLOWER],
                            c->time_counts[MP_TIME_FASTER]);
  return g_string_free (s, FALSE);
}

static char *
fmt_verdict (const MpComparison *c)
{
  GString *s;

  if (!mp_comparison_failed (c))
    {
      if (mp_comparison_unchanged (c))
        return g_strdup ("PASS: nothing changed");
      if (c->counts[MP_CHANGE_UNCHANGED] == c->rows->len)
        return g_strdup ("PASS: nothing changed (only timings differ: they are reported, not "
                         "judged, without --fail-on-time)");
      return g_strdup ("PASS: no regression beyond tolerance");
    }
  s = g_string_new (NULL);
  g_string_append_printf (s, "FAIL: %u regression%s:", c->n_failures,
                          c->n_failures == 1 ? "" : "s");
  for (guint i = 0, n = 0; i < c->rows->len; i++)
    {
      const MpCompareRow *row = c->rows->pdata[i];
      g_autofree char    *name = NULL;
      g_autofree char    *why = NULL;

      if (!row->failure)
        continue;
      name = row_name (row);
      why = failure_reason (row);
      g_string_append_printf (s, "%s %s (%s)", n++ ? "," : "", name, why);
    }
  return g_string_free (s, FALSE);
}

/* Plain text table */

enum { COL_GRAPH, COL_PLANNER, COL_STATUS, COL_BASE, COL_NEW, COL_CHANGE, COL_REL, COL_BASE_T,
       COL_NEW_T, COL_TIME, N_COLS };

static const char *col_titles[N_COLS] = { "graph", "planner", "status", "base arena", "new arena",
                                          "change", "change %", "base time", "new time", "time" };
static const gboolean col_right[N_COLS] = { FALSE, FALSE, FALSE, TRUE, TRUE, TRUE, TRUE, TRUE,
                                            TRUE, FALSE };

static char **
row_cells (const MpCompareRow *row)
{
  char **cells = g_new0 (char *, N_COLS + 1);

  cells[COL_GRAPH] = mp_escape_name (row->graph);
  cells[COL_PLANNER] = mp_escape_name (row->planner ? row->planner : "-");
  cells[COL_STATUS] = g_strdup (change_labels[row->change]);
  cells[COL_BASE] = fmt_arena (row->base);
  cells[COL_NEW] = fmt_arena (row->new);
  cells[COL_CHANGE] = fmt_change (row);
  cells[COL_REL] = row_compared (row) ? fmt_relative (row->arena_relative) : g_strdup ("-");
  cells[COL_BASE_T] = fmt_time (row->base);
  cells[COL_NEW_T] = fmt_time (row->new);
  cells[COL_TIME] = fmt_time_change (row);
  return cells;
}

static void
append_padded (GString *s, const char *text, guint width, gboolean right)
{
  guint len = g_utf8_strlen (text, -1);

  if (right)
    for (guint i = len; i < width; i++)
      g_string_append_c (s, ' ');
  g_string_append (s, text);
  if (!right)
    for (guint i = len; i < width; i++)
      g_string_append_c (s, ' ');
}

static void
append_table_line (GString *s, const char *const *cells, const guint *widths)
{
  for (guint c = 0; c < N_COLS; c++)
    {
      if (c)
        g_string_append (s, "  ");
      append_padded (s, cells[c], widths[c], col_right[c]);
    }
  while (s->len && s->str[s->len - 1] == ' ')
    g_string_truncate (s, s->len - 1);
  g_string_append_c (s, '\n');
}

static void
append_header (GString *s, const MpComparison *c, const char *base_label, const char *new_label)
{
  g_autofree char *options = fmt_options (c);

  g_string_append_printf (s, "BASE: %s (memplan %s)\nNEW:  %s (memplan %s)\n%s\n", base_label,
                          c->base->memplan_version, new_label, c->new->memplan_version, options);
}

char *
mp_comparison_to_table (const MpComparison *c, const char *base_label, const char *new_label)
{
  GString          *s = g_string_new (NULL);
  g_autoptr (GPtrArray) lines = g_ptr_array_new_with_free_func ((GDestroyNotify) g_strfreev);
  guint             widths[N_COLS];
  g_autofree char  *counts = fmt_counts (c);
  g_autofree char  *verdict = fmt_verdict (c);
  gboolean          any_detail = FALSE;
  g_autofree char  *text = NULL;

  append_header (s, c, base_label, new_label);
  for (guint k = 0; k < N_COLS; k++)
    widths[k] = g_utf8_strlen (col_titles[k], -1);
  for (guint i = 0; i < c->rows->len; i++)
    {
      char **cells = row_cells (c->rows->pdata[i]);

      for (guint k = 0; k < N_COLS; k++)
        widths[k] = MAX (widths[k], g_utf8_strlen (cells[k], -1));
      g_ptr_array_add (lines, cells);
    }
  g_string_append_c (s, '\n');
  append_table_line (s, col_titles, widths);
  for (guint i = 0; i < lines->len; i++)
    append_table_line (s, (const char *const *) lines->pdata[i], widths);

  for (guint i = 0; i < c->rows->len; i++)
    {
      const MpCompareRow *row = c->rows->pdata[i];
      g_autofree char    *name = NULL;

      if (!row->detail)
        continue;
      if (!any_detail)
        g_string_append (s, "\n");
      any_detail = TRUE;
      name = row_name (row);
      g_string_append_printf (s, "%s: %s\n", name, row->detail);
    }
  for (guint i = 0; i < c->notes->len; i++)
    g_string_append_printf (s, "%s%s\n", i == 0 && !any_detail ? "\n" : "",
                            (char *) c->notes->pdata[i]);
  g_string_append_printf (s, "\n%s\n%s\n", counts, verdict);
  text = g_string_free (s, FALSE);
  return mp_escape_text (text);
}

/* Markdown, for a pull request comment */

/* Text that Markdown shows as it is, also inside a table cell. */
static void
append_md_text (GString *s, const char *text)
{
  g_autofree char *escaped = mp_escape_text (text);

  for (const char *p = escaped; *p; p++)
    {
      if (strchr ("|*_`\\<[", *p))
        g_string_append_c (s, '\\');
      g_string_append_c (s, *p == '\n' || *p == '\t' ? ' ' : *p);
    }
}

static void
append_md_cell (GString *s, const char *text, gboolean bold)
{
  g_string_append (s, " ");
  if (bold)
    g_string_append (s, "**");
  append_md_text (s, text);
  if (bold)
    g_string_append (s, "**");
  g_string_append (s, " |");
}

static void
append_md_table (GString *s, const MpComparison *c, gboolean changed_only)
{
  g_string_append (s, "| status | graph | planner | BASE arena | NEW arena | change | change % "
                      "| BASE time | NEW time | time | detail |\n"
                      "| --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | --- "
                      "| --- |\n");
  for (guint i = 0; i < c->rows->len; i++)
    {
      const MpCompareRow *row = c->rows->pdata[i];
      g_auto (GStrv) cells = NULL;

      if (changed_only && row->change == MP_CHANGE_UNCHANGED && !(row->cells & MP_CELL_TIME))
        continue;
      cells = row_cells (row);
      g_string_append (s, "|");
      append_md_cell (s, cells[COL_STATUS], row->failure);
      for (guint k = 0; k < N_COLS; k++)
        if (k != COL_STATUS)
          append_md_cell (s, cells[k], row->failure && k == COL_TIME &&
                                         row->time == MP_TIME_SLOWER);
      append_md_cell (s, row->detail ? row->detail : "", FALSE);
      g_string_append_c (s, '\n');
    }
}

char *
mp_comparison_to_markdown (const MpComparison *c, const char *base_label, const char *new_label)
{
  GString         *s = g_string_new (NULL);
  g_autofree char *options = fmt_options (c);
  g_autofree char *counts = fmt_counts (c);
  g_autofree char *verdict = fmt_verdict (c);
  guint            n_changed = 0;

  if (mp_comparison_failed (c))
    g_string_append_printf (s, "### memplan compare: FAIL, %u regression%s\n\n", c->n_failures,
                            c->n_failures == 1 ? "" : "s");
  else
    g_string_append (s, "### memplan compare: PASS\n\n");
  g_string_append (s, "**");
  append_md_text (s, verdict);
  g_string_append (s, "**\n\nBASE ");
  append_md_text (s, base_label);
  g_string_append_printf (s, " (memplan %s), NEW ", c->base->memplan_version);
  append_md_text (s, new_label);
  g_string_append_printf (s, " (memplan %s); %s.\n\n%s.\n\n", c->new->memplan_version, options,
                          counts);
  for (guint i = 0; i < c->rows->len; i++)
    {
      const MpCompareRow *row = c->rows->pdata[i];

      n_changed += row->change != MP_CHANGE_UNCHANGED || (row->cells & MP_CELL_TIME);
    }
  if (n_changed)
    {
      append_md_table (s, c, TRUE);
      g_string_append (s, "\n");
    }
  else
    g_string_append (s, "Nothing changed.\n\n");
  for (guint i = 0; i < c->notes->len; i++)
    {
      g_string_append (s, "- ");
      append_md_text (s, c->notes->pdata[i]);
      g_string_append (s, i + 1 == c->notes->len ? "\n\n" : "\n");
    }
  g_string_append_printf (s, "<details><summary>All %u results</summary>\n\n", c->rows->len);
  append_md_table (s, c, FALSE);
  g_string_append (s, "\n</details>\n");
  return g_string_free (s, FALSE);
}

/* JSON (memplan.comparison/1) */

static json_object *
side_to_json (const MpReportResult *r)
{
  json_object *obj;

  if (r == NULL)
    return NULL;
  obj = json_object_new_object ();
  json_object_object_add (obj, "status",
                          json_object_new_string (mp_result_status_to_string (r->status)));
  if (mp_report_result_planned (r))
    {
      json_object_object_add (obj, "arena", json_object_new_int64 (r->arena));
      json_object_object_add (obj, "lower_bound", json_object_new_int64 (r->lower_bound));
      json_object_object_add (obj, "ratio", mp_json_new_short_double (r->ratio));
      json_object_object_add (obj, "fragmentation", mp_json_new_short_double (r->fragmentation));
      json_object_object_add (obj, "seconds", mp_json_new_short_double (r->seconds));
    }
  if (r->problem)
    json_object_object_add (obj, "problem", json_object_new_string (r->problem));
  return obj;
}

static json_object *
cells_to_json (MpCells cells)
{
  static const char *names[] = { "arena", "lower_bound", "ratio", "fragmentation", "valid",
                                 "time" };
  json_object       *list = json_object_new_array ();

  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    if (cells & (1u << i))
      json_object_array_add (list, json_object_new_string (names[i]));
  return list;
}

static json_object *
row_to_json (const MpCompareRow *row)
{
  json_object *obj = json_object_new_object ();

  json_object_object_add (obj, "graph", json_object_new_string (row->graph));
  json_object_object_add (obj, "planner",
                          row->planner ? json_object_new_string (row->planner) : NULL);
  json_object_object_add (obj, "change",
                          json_object_new_string (mp_change_to_string (row->change)));
  json_object_object_add (obj, "failure", json_object_new_boolean (row->failure));
  json_object_object_add (obj, "base", side_to_json (row->base));
  json_object_object_add (obj, "new", side_to_json (row->new));
  if (row_compared (row))
    {
      json_object_object_add (obj, "arena_change", json_object_new_int64 (row->arena_change));
      json_object_object_add (obj, "arena_relative",
                              mp_json_new_short_double (row->arena_relative));
    }
  json_object_object_add (obj, "time",
                          json_object_new_string (mp_time_change_to_string (row->time)));
  if (row->time != MP_TIME_NONE)
    {
      json_object_object_add (obj, "time_change", mp_json_new_short_double (row->time_change));
      json_object_object_add (obj, "time_relative", mp_json_new_short_double (row->time_relative));
    }
  json_object_object_add (obj, "changed", cells_to_json (row->cells));
  if (row->detail)
    json_object_object_add (obj, "detail", json_object_new_string (row->detail));
  return obj;
}

static json_object *
report_side (const MpReport *report, const char *label)
{
  json_object *obj = json_object_new_object ();

  json_object_object_add (obj, "file", json_object_new_string (label));
  json_object_object_add (obj, "memplan_version", json_object_new_string (report->memplan_version));
  return obj;
}

char *
mp_comparison_to_json (const MpComparison *c, const char *base_label, const char *new_label)
{
  json_object     *root = json_object_new_object ();
  json_object     *options = json_object_new_object ();
  json_object     *counts = json_object_new_object ();
  json_object     *times = json_object_new_object ();
  json_object     *rows = json_object_new_array ();
  json_object     *notes = json_object_new_array ();
  g_autofree char *verdict = fmt_verdict (c);

  json_object_object_add (root, "format", json_object_new_string ("memplan.comparison/1"));
  json_object_object_add (root, "base", report_side (c->base, base_label));
  json_object_object_add (root, "new", report_side (c->new, new_label));
  json_object_object_add (options, "tolerance", mp_json_new_short_double (c->options.tolerance));
  json_object_object_add (options, "time_tolerance",
                          mp_json_new_short_double (c->options.time_tolerance));
  json_object_object_add (options, "time_floor", mp_json_new_short_double (c->options.time_floor));
  json_object_object_add (options, "fail_on_time",
                          json_object_new_boolean (c->options.fail_on_time));
  json_object_object_add (root, "options", options);
  json_object_object_add (root, "passed", json_object_new_boolean (!mp_comparison_failed (c)));
  json_object_object_add (root, "unchanged", json_object_new_boolean (mp_comparison_unchanged (c)));
  json_object_object_add (root, "failures", json_object_new_int64 (c->n_failures));
  json_object_object_add (root, "verdict", json_object_new_string (verdict));
  for (guint i = 0; i < MP_CHANGE_N; i++)
    json_object_object_add (counts, mp_change_to_string (i), json_object_new_int64 (c->counts[i]));
  json_object_object_add (root, "counts", counts);
  for (guint i = MP_TIME_SAME; i < MP_TIME_N; i++)
    json_object_object_add (times, mp_time_change_to_string (i),
                            json_object_new_int64 (c->time_counts[i]));
  json_object_object_add (root, "time_counts", times);
  for (guint i = 0; i < c->rows->len; i++)
    json_object_array_add (rows, row_to_json (c->rows->pdata[i]));
  json_object_object_add (root, "rows", rows);
  for (guint i = 0; i < c->notes->len; i++)
    json_object_array_add (notes, json_object_new_string (c->notes->pdata[i]));
  json_object_object_add (root, "notes", notes);
  return mp_json_to_text_free (root);
}
