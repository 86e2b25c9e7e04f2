/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "memplan-analysis"

#include "graph-json-gaps.h"
#include "graph-private.h"

/* The window's two numbers; anything else is a problem. */
static gboolean
read_window (MpJsonReader *r, MpGap *gap, char **problem)
{
  guint n = 0;

  if (mp_json_reader_peek (r) != MP_JSON_ARRAY)
    {
      if (!mp_json_reader_skip (r))
        return FALSE;
      *problem = g_strdup ("\"window\" must be a list [lo, hi] of byte offsets");
      return TRUE;
    }
  if (!mp_json_reader_begin_array (r))
    return FALSE;
  while (mp_json_reader_next_element (r))
    {
      guint64  v = 0;
      gboolean ok;

      if (!mp_json_reader_u64 (r, &v, &ok))
        return FALSE;
      if (!ok && !*problem)
        *problem = g_strdup ("\"window\" must be a list [lo, hi] of byte offsets");
      if (n == 0)
        gap->lo = v;
      else
        gap->hi = v;
      n++;
    }
  if (n != 2 && !*problem)
    *problem = g_strdup ("\"window\" must be a list [lo, hi] of byte offsets");
  gap->windowed = TRUE;
  return r->error == NULL;
}

/* One {"from", "to", "window"} object. */
static gboolean
read_gap (MpJsonReader *r, MpGap *gap, char **problem)
{
  gboolean has_from = FALSE, has_to = FALSE;

  *gap = (MpGap) { 0 };
  if (mp_json_reader_peek (r) != MP_JSON_OBJECT)
    {
      if (!mp_json_reader_skip (r))
        return FALSE;
      *problem = g_strdup ("must be an object {\"from\": op, \"to\": op}");
      return TRUE;
    }
  if (!mp_json_reader_begin_object (r))
    return FALSE;
  while (mp_json_reader_next_member (r))
    {
      const char *key = r->text->str;
      gboolean    is_from = g_str_equal (key, "from");

      if (is_from || g_str_equal (key, "to"))
        {
          guint64  v = 0;
          gboolean ok;

          if (!mp_json_reader_u64 (r, &v, &ok))
            return FALSE;
          if (!ok && !*problem)
            *problem = g_strdup_printf ("\"%s\" must be an op index", is_from ? "from" : "to");
          /* op indices stay far below 2^62: the graph's own limit */
          v = MIN (v, (guint64) G_MAXINT);
          if (is_from)
            gap->first = v, has_from = TRUE;
          else
            gap->last = (gint64) v - 1, has_to = TRUE;
        }
      else if (g_str_equal (key, "window"))
        {
          if (!read_window (r, gap, problem))
            return FALSE;
        }
      else
        {
          if (!*problem)
            *problem = g_strdup_printf ("unknown key \"%s\" (known: from, to, window)", key);
          if (!mp_json_reader_skip (r))
            return FALSE;
        }
    }
  if (r->error)
    return FALSE;
  if ((!has_from || !has_to) && !*problem)
    *problem = g_strdup ("needs both \"from\" and \"to\"");
  return TRUE;
}

gboolean
mp_graph_json_read_gaps (MpJsonReader *r, GArray *gaps, char **problem)
{
  guint index = 0;

  g_array_set_size (gaps, 0);
  if (mp_json_reader_peek (r) != MP_JSON_ARRAY)
    {
      if (!mp_json_reader_skip (r))
        return FALSE;
      if (!*problem)
        *problem = g_strdup ("must be a list of {\"from\", \"to\"} objects");
      return TRUE;
    }
  if (!mp_json_reader_begin_array (r))
    return FALSE;
  while (mp_json_reader_next_element (r))
    {
      MpGap            gap;
      g_autofree char *what = NULL;

      if (!read_gap (r, &gap, &what))
        return FALSE;
      if (what && !*problem)
        *problem = g_strdup_printf ("[%u] %s", index, what);
      g_array_append_val (gaps, gap);
      index++;
    }
  return r->error == NULL;
}

gboolean
mp_graph_json_add_gaps (MpGraph *graph, MpTensor *t, const GArray *gaps, const char *problem,
                        GError **error)
{
  if (problem)
    {
      mp_set_file_error (error, MP_ANALYSIS_ERROR_INVALID, graph->path,
                         "tensor '%s': \"gaps\"%s%s", t->name, *problem == '[' ? "" : " ",
                         problem);
      return FALSE;
    }
  if (!graph->gaps)
    graph->gaps = g_array_new (FALSE, FALSE, sizeof (MpGap));
  t->gap_first = graph->gaps->len;
  for (guint k = 0; k < gaps->len; k++)
    {
      const MpGap *g = &g_array_index (gaps, MpGap, k);
      const char  *why = NULL;

      if (g->last < g->first)
        why = "is empty: \"to\" must be past \"from\"";
      else if (k > 0 && g->first <= g_array_index (gaps, MpGap, k - 1).last)
        why = "overlaps the gap before it (gaps go in order, apart)";
      else if (g->windowed && (g->lo > g->hi || g->hi > t->size))
        why = "has a window that is not inside the tensor (lo <= hi <= size)";
      if (why)
        {
          mp_set_file_error (error, MP_ANALYSIS_ERROR_INVALID, graph->path,
                             "tensor '%s': \"gaps\"[%u] (from %" G_GINT64_FORMAT " to %"
                             G_GINT64_FORMAT ") %s", t->name, k, g->first, g->last + 1, why);
          return FALSE;
        }
      g_array_append_val (graph->gaps, *g);
      t->n_gaps++;
    }
  return TRUE;
}
