/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "memplan-analysis"

#include <string.h>

#include <json-c/json.h>

#include "json-write.h"
#include "text-util.h"
#include "trace.h"

/* What `import` writes: a trace's allocations as memplan.trace/1 JSON (every
 * allocation's address, lifetime, observed offset, op and stack frames) or as
 * MiniMalloc records whose offset column is the allocator's own layout. */

static json_object *
by_op_to_json (const MpTrace *trace)
{
  g_autoptr (GArray) uses = mp_trace_by_op (trace);
  json_object       *array = json_object_new_array ();

  for (guint i = 0; i < uses->len; i++)
    {
      const MpTraceOpUse *u = &g_array_index (uses, MpTraceOpUse, i);
      json_object        *o = json_object_new_object ();

      json_object_object_add (o, "op", json_object_new_string (u->op));
      json_object_object_add (o, "allocations", json_object_new_int64 (u->n_allocations));
      json_object_object_add (o, "allocated", json_object_new_uint64 (u->allocated));
      json_object_object_add (o, "at_peak", json_object_new_uint64 (u->at_peak));
      json_object_array_add (array, o);
    }
  return array;
}

/* The allocations, written by hand as json-c would (PRETTY | SPACED |
 * NOSLASHESCAPE): a json-c tree of a million-action snapshot's 333,000
 * allocations with their stacks took 4 GiB and most of the import's time. */
static void
append_string (GString *s, const char *text)
{
  static const char hex[] = "0123456789abcdef";

  g_string_append_c (s, '"');
  for (const unsigned char *p = (const unsigned char *) text; *p; p++)
    switch (*p)
      {
      case '\b': g_string_append (s, "\\b"); break;
      case '\n': g_string_append (s, "\\n"); break;
      case '\r': g_string_append (s, "\\r"); break;
      case '\t': g_string_append (s, "\\t"); break;
      case '\f': g_string_append (s, "\\f"); break;
      case '"': g_string_append (s, "\\\""); break;
      case '\\': g_string_append (s, "\\\\"); break;
      default:
        if (*p < ' ')
          {
            g_string_append (s, "\\u00");
            g_string_append_c (s, hex[*p >> 4]);
            g_string_append_c (s, hex[*p & 0xf]);
          }
        else
          g_string_append_c (s, (char) *p);
      }
  g_string_append_c (s, '"');
}

static void
append_member (GString *s, const char *key, const char *text, gboolean last)
{
  g_string_append_printf (s, "      \"%s\": ", key);
  if (text)
    append_string (s, text);
  else
    g_string_append (s, "null");
  g_string_append (s, last ? "\n" : ",\n");
}

static void
append_number (GString *s, const char *key, guint64 value, gboolean negative)
{
  g_string_append_printf (s, "      \"%s\": %s%" G_GUINT64_FORMAT ",\n", key, negative ? "-" : "",
                          value);
}

/* text's lines as an array of strings, as g_strsplit cuts them */
static void
append_lines (GString *s, const char *key, const char *text, gboolean last)
{
  g_string_append_printf (s, "      \"%s\": [", key);
  if (text && *text)
    for (const char *line = text;;)
      {
        const char      *end = strchr (line, '\n');
        g_autofree char *piece = g_strndup (line, end ? (gsize) (end - line) : strlen (line));

        g_string_append (s, line == text ? "\n        " : ",\n        ");
        append_string (s, piece);
        if (!end)
          break;
        line = end + 1;
      }
  g_string_append (s, last ? "\n      ]\n" : "\n      ],\n");
}

static void
append_int (GString *s, const char *key, gint64 value)
{
  append_number (s, key, value < 0 ? -(guint64) value : (guint64) value, value < 0);
}

static char *
append_allocations (char *head, const MpTrace *trace, const MpGraph *graph)
{
  gsize    len = strlen (head);
  GString *s;

  /* the document so far ends with its closing brace: open one more member */
  g_assert (len >= 3 && g_str_has_suffix (head, "\n}\n"));
  s = g_string_sized_new (len + 512 * (gsize) graph->n_tensors);
  g_string_append_len (s, head, len - 3);
  g_free (head);
  g_string_append (s, ",\n  \"allocations\": [");
  for (guint t = 0; t < graph->n_tensors; t++)
    {
      const MpTraceSite *site = &trace->sites[t];

      g_string_append (s, t ? ",\n    {\n" : "\n    {\n");
      append_member (s, "name", graph->tensors[t].name, FALSE);
      append_number (s, "address", trace->addresses[t], FALSE);
      append_number (s, "size", graph->tensors[t].size, FALSE);
      append_int (s, "first", graph->tensors[t].first);
      append_int (s, "last", graph->tensors[t].last);
      append_number (s, "observed_offset", trace->observed[t], FALSE);
      g_string_append_printf (s, "      \"pre_existing\": %s,\n",
                              trace->origins[t] == MP_TRACE_BLOCK_PRE_EXISTING ? "true" : "false");
      append_member (s, "op", site->op, FALSE);
      append_lines (s, "ops", site->ops, FALSE);
      append_member (s, "module", site->module, FALSE);
      append_lines (s, "frames", site->frames, TRUE);
      g_string_append (s, "    }");
    }
  g_string_append (s, "\n  ]\n}\n");
  return g_string_free (s, FALSE);
}

char *
mp_trace_to_json (const MpTrace *trace, const MpGraph *graph, const MpLifetimes *lt)
{
  json_object     *root = json_object_new_object ();
  json_object     *devices = json_object_new_array ();
  json_object     *ranges = json_object_new_array ();

  json_object_object_add (root, "format", json_object_new_string ("memplan.trace/1"));
  json_object_object_add (root, "source", json_object_new_string (graph->path));
  json_object_object_add (root, "source_format",
                          json_object_new_string (trace->format == MP_TRACE_FORMAT_SNAPSHOT
                                                    ? "pytorch-snapshot" : "pytorch-trace"));
  json_object_object_add (root, "device", json_object_new_string (trace->device));
  for (guint i = 0; trace->devices[i]; i++)
    json_object_array_add (devices, json_object_new_string (trace->devices[i]));
  json_object_object_add (root, "devices", devices);
  json_object_object_add (root, "events", json_object_new_int64 (trace->n_events));
  json_object_object_add (root, "has_arena", json_object_new_boolean (trace->has_arena));
  json_object_object_add (root, "reserved_peak", json_object_new_uint64 (trace->reserved_peak));
  json_object_object_add (root, "live_peak", json_object_new_uint64 (trace->live_peak));
  json_object_object_add (root, "peak_event", json_object_new_int64 (trace->peak_step));
  json_object_object_add (root, "pre_existing", json_object_new_int64 (trace->n_pre_existing));
  json_object_object_add (root, "shared_memory_blocks", json_object_new_int64 (trace->n_shared));
  json_object_object_add (root, "observed_span", json_object_new_uint64 (trace->observed_arena));
  json_object_object_add (root, "touched", json_object_new_uint64 (trace->touched));
  json_object_object_add (root, "lower_bound", json_object_new_uint64 (lt->lower_bound));
  json_object_object_add (root, "unmatched_frees",
                          json_object_new_int64 (trace->n_unmatched_frees));
  json_object_object_add (root, "never_freed", json_object_new_int64 (trace->n_never_freed));
  json_object_object_add (root, "out_of_memory", json_object_new_int64 (trace->n_ooms));
  for (guint i = 0; i < trace->n_ranges; i++)
    {
      json_object *r = json_object_new_object ();

      json_object_object_add (r, "address", json_object_new_uint64 (trace->ranges[i].address));
      json_object_object_add (r, "size", json_object_new_uint64 (trace->ranges[i].size));
      json_object_object_add (r, "offset", json_object_new_uint64 (trace->ranges[i].offset));
      json_object_array_add (ranges, r);
    }
  json_object_object_add (root, "ranges", ranges);
  json_object_object_add (root, "by_op", by_op_to_json (trace));
  return append_allocations (mp_json_to_text_free (root), trace, graph);
}

/* half-open [first, last + 1) in event steps, the allocator's offsets */
char *
mp_trace_to_csv (const MpTrace *trace, const MpGraph *graph)
{
  GString *s = g_string_new ("id,lower,upper,size,offset,op\n");

  for (guint t = 0; t < graph->n_tensors; t++)
    {
      g_autofree char *id = mp_csv_field (graph->tensors[t].name);
      g_autofree char *op = mp_csv_field (trace->sites[t].op ? trace->sites[t].op : "");

      g_string_append_printf (s, "%s,%" G_GINT64_FORMAT ",%" G_GINT64_FORMAT ",%" G_GUINT64_FORMAT
                              ",%" G_GUINT64_FORMAT ",%s\n", id, graph->tensors[t].first,
                              graph->tensors[t].last + 1, graph->tensors[t].size,
                              trace->observed[t], op);
    }
  return g_string_free (s, FALSE);
}
