/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "memplan-analysis"

#include <string.h>

#include "file-util.h"
#include "json-write.h"
#include "text-util.h"
#include "trace-diff.h"

/* What `memplan-cli diff` prints: a table, or memplan.diff/1 JSON (the
 * schema is in the README's diff section). */

static char *
format_signed (gint64 bytes)
{
  g_autofree char *abs = mp_format_bytes (bytes < 0 ? (guint64) -bytes : (guint64) bytes);

  return g_strdup_printf ("%s%s", bytes < 0 ? "-" : bytes > 0 ? "+" : "±", abs);
}

static void
append_side (GString *s, const char *label, const MpTraceDiffSide *side, const char *path)
{
  g_autofree char *peak = mp_format_bytes (side->live_peak);
  g_autofree char *name = mp_escape_name (path);

  g_string_append_printf (s, "%s: %s (%s): %s live at the peak, step %" G_GINT64_FORMAT
                          " of %u", label, name, mp_input_format_name (side->format), peak,
                          side->peak_step, side->n_steps);
  if (side->has_reserved)
    {
      g_autofree char *reserved = mp_format_bytes (side->reserved);

      g_string_append_printf (s, "; %s %s",
                              side->format == MP_INPUT_USAGE_CSV ? "planned" : "reserved",
                              reserved);
    }
  g_string_append_printf (s, "; %u allocations\n", side->n_allocations);
}

static char *
percent_of (gint64 delta, guint64 base)
{
  if (base == 0)
    return g_strdup ("");
  return g_strdup_printf (" (%+.1f%%)", 100.0 * (gdouble) delta / (gdouble) base);
}

static char *
size_text (const MpTraceDiffRow *r)
{
  if (r->size_a && r->size_b && r->size_a != r->size_b)
    {
      g_autofree char *a = mp_format_bytes (r->size_a);
      g_autofree char *b = mp_format_bytes (r->size_b);

      return g_strdup_printf ("%s→%s", a, b);
    }
  return mp_format_bytes (r->size_a ? r->size_a : r->size_b);
}

char *
mp_trace_diff_to_table (const MpTraceDiff *diff, const char *path_a, const char *path_b)
{
  GString         *s = g_string_new (NULL);
  g_autofree char *delta = format_signed (diff->peak_delta);
  g_autofree char *pct = percent_of (diff->peak_delta, diff->a.live_peak);

  append_side (s, "A", &diff->a, path_a);
  append_side (s, "B", &diff->b, path_b);
  g_string_append_printf (s, "peak: %s%s", delta, pct);
  if (diff->has_reserved)
    {
      g_autofree char *r = format_signed (diff->reserved_delta);
      g_autofree char *rp = percent_of (diff->reserved_delta, diff->a.reserved);

      g_string_append_printf (s, "; %s: %s%s",
                              diff->a.format == MP_INPUT_USAGE_CSV ? "planned" : "reserved",
                              r, rp);
    }
  g_string_append_c (s, '\n');
  for (guint i = 0; i < diff->notes->len; i++)
    g_string_append_printf (s, "note: %s\n", (char *) g_ptr_array_index (diff->notes, i));
  g_string_append_printf (s, "\n%13s %11s %11s %15s %17s %-7s %s\n", "Δ at peak", "A at peak",
                          "B at peak", "allocs A→B", "size", "change", "op (innermost frame)");
  for (guint i = 0; i < diff->rows->len; i++)
    {
      const MpTraceDiffRow *r = &g_array_index (diff->rows, MpTraceDiffRow, i);
      g_autofree char      *d = format_signed (r->delta_at_peak);
      g_autofree char      *pa = mp_format_bytes (r->at_peak_a);
      g_autofree char      *pb = mp_format_bytes (r->at_peak_b);
      g_autofree char      *size = size_text (r);
      g_autofree char      *counts = g_strdup_printf ("%u→%u", r->count_a, r->count_b);
      g_autofree char      *op = mp_escape_name (r->op);

      /* "Δ" and "→" are two bytes wide for printf, one column on screen */
      g_string_append_printf (s, "%13s %11s %11s %15s %*s %-7s %s", d, pa, pb, counts,
                              strstr (size, "→") ? 19 : 17, size,
                              mp_trace_diff_change_name (r->change), op);
      if (r->stack)
        {
          /* where it was called from, which tells apart rows of one op: a
           * Python frame, else the op around it */
          gsize            n = strcspn (r->stack, "\n");
          g_autofree char *first = g_strndup (r->stack, n);
          const char      *next = r->stack[n] ? r->stack + n + 1 : NULL;

          if (strcmp (first, r->op) != 0)
            {
              g_autofree char *frame = mp_escape_name (first);

              g_string_append_printf (s, "  at %s", frame);
            }
          else if (next && *next)
            {
              g_autofree char *outer = g_strndup (next, strcspn (next, "\n"));
              g_autofree char *shown = mp_escape_name (outer);

              g_string_append_printf (s, "  in %s", shown);
            }
        }
      g_string_append_c (s, '\n');
    }
  if (diff->n_rows > diff->rows->len)
    {
      g_autofree char *rest = format_signed (diff->rest_at_peak);

      g_string_append_printf (s, "%13s  … %u more rows\n", rest, diff->n_rows - diff->rows->len);
    }
  return g_string_free (s, FALSE);
}

static json_object *
side_json (const MpTraceDiffSide *side, const char *path)
{
  json_object *o = json_object_new_object ();

  json_object_object_add (o, "path", json_object_new_string (path));
  json_object_object_add (o, "format",
                          json_object_new_string (mp_input_format_name (side->format)));
  json_object_object_add (o, "name", json_object_new_string (side->name ? side->name : ""));
  json_object_object_add (o, "live_peak", json_object_new_uint64 (side->live_peak));
  json_object_object_add (o, "peak_step", json_object_new_int64 (side->peak_step));
  json_object_object_add (o, "steps", json_object_new_int64 (side->n_steps));
  json_object_object_add (o, "reserved",
                          side->has_reserved ? json_object_new_uint64 (side->reserved) : NULL);
  json_object_object_add (o, "allocations", json_object_new_int64 (side->n_allocations));
  json_object_object_add (o, "allocated", json_object_new_uint64 (side->allocated));
  return o;
}

char *
mp_trace_diff_to_json (const MpTraceDiff *diff, const char *path_a, const char *path_b)
{
  json_object *root = json_object_new_object ();
  json_object *rows = json_object_new_array ();
  json_object *notes = json_object_new_array ();

  json_object_object_add (root, "format", json_object_new_string ("memplan.diff/1"));
  json_object_object_add (root, "a", side_json (&diff->a, path_a));
  json_object_object_add (root, "b", side_json (&diff->b, path_b));
  json_object_object_add (root, "peak_delta", json_object_new_int64 (diff->peak_delta));
  json_object_object_add (root, "reserved_delta",
                          diff->has_reserved ? json_object_new_int64 (diff->reserved_delta)
                                             : NULL);
  for (guint i = 0; i < diff->rows->len; i++)
    {
      const MpTraceDiffRow *r = &g_array_index (diff->rows, MpTraceDiffRow, i);
      json_object          *o = json_object_new_object ();

      json_object_object_add (o, "op", json_object_new_string (r->op));
      json_object_object_add (o, "stack", r->stack ? json_object_new_string (r->stack) : NULL);
      json_object_object_add (o, "change",
                              json_object_new_string (mp_trace_diff_change_name (r->change)));
      json_object_object_add (o, "size_a", json_object_new_uint64 (r->size_a));
      json_object_object_add (o, "size_b", json_object_new_uint64 (r->size_b));
      json_object_object_add (o, "count_a", json_object_new_int64 (r->count_a));
      json_object_object_add (o, "count_b", json_object_new_int64 (r->count_b));
      json_object_object_add (o, "live_a", json_object_new_int64 (r->live_a));
      json_object_object_add (o, "live_b", json_object_new_int64 (r->live_b));
      json_object_object_add (o, "at_peak_a", json_object_new_uint64 (r->at_peak_a));
      json_object_object_add (o, "at_peak_b", json_object_new_uint64 (r->at_peak_b));
      json_object_object_add (o, "delta_at_peak", json_object_new_int64 (r->delta_at_peak));
      json_object_object_add (o, "delta", json_object_new_int64 (r->delta));
      json_object_array_add (rows, o);
    }
  json_object_object_add (root, "rows", rows);
  json_object_object_add (root, "rows_total", json_object_new_int64 (diff->n_rows));
  json_object_object_add (root, "rest_at_peak", json_object_new_int64 (diff->rest_at_peak));
  for (guint i = 0; i < diff->notes->len; i++)
    json_object_array_add (notes,
                           json_object_new_string (g_ptr_array_index (diff->notes, i)));
  json_object_object_add (root, "notes", notes);
  return mp_json_to_text_free (root);
}
