/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "memplan-analysis"

#include <stdio.h>
#include <string.h>

#include <json-c/json.h>

#include "file-util.h"
#include "json-util.h"
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
 * allocations with their stacks took 4 GiB and most of the import's time.
 * They are formatted into a buffer that goes to out each time it passes
 * FLUSH_AT, so the 906 MB text of a 564 MB snapshot is never held whole;
 * out NULL: the buffer is the whole text. */
typedef struct
{
  GString    *s;
  FILE       *out;
  gboolean    failed;
  GHashTable *blocks; /* a text of ops or frames: its array, as a GString */
  gsize       held;   /* bytes in blocks */
} Sink;

#define FLUSH_AT (4 << 20)

static void
sink_flush (Sink *k, gsize at)
{
  if (k->out == NULL || k->s->len < at)
    return;
  if (!k->failed && fwrite (k->s->str, 1, k->s->len, k->out) != k->s->len)
    k->failed = TRUE;
  g_string_truncate (k->s, 0);
}

static inline void
append_text (GString *s, const char *text)
{
  mp_string_append_run (s, text, strlen (text));
}

/* text[0..n) as a JSON string; runs of plain bytes are copied at once */
static void
append_string (GString *s, const char *text, gsize n)
{
  static const char hex[] = "0123456789abcdef";
  const guchar     *p = (const guchar *) text, *end = p + n;

  g_string_append_c (s, '"');
  while (p < end)
    {
      const guchar *run = p;

      while (p < end && *p >= ' ' && *p != '"' && *p != '\\')
        p++;
      mp_string_append_run (s, (const char *) run, p - run);
      if (p == end)
        break;
      switch (*p)
        {
        case '\b': append_text (s, "\\b"); break;
        case '\n': append_text (s, "\\n"); break;
        case '\r': append_text (s, "\\r"); break;
        case '\t': append_text (s, "\\t"); break;
        case '\f': append_text (s, "\\f"); break;
        case '"': append_text (s, "\\\""); break;
        case '\\': append_text (s, "\\\\"); break;
        default:
          append_text (s, "\\u00");
          g_string_append_c (s, hex[*p >> 4]);
          g_string_append_c (s, hex[*p & 0xf]);
        }
      p++;
    }
  g_string_append_c (s, '"');
}

static void
append_key (GString *s, const char *key)
{
  append_text (s, "      \"");
  append_text (s, key);
  append_text (s, "\": ");
}

static void
append_member (GString *s, const char *key, const char *text, gboolean last)
{
  append_key (s, key);
  if (text)
    append_string (s, text, strlen (text));
  else
    append_text (s, "null");
  append_text (s, last ? "\n" : ",\n");
}

/* without printf: a third of the records' time went to parsing formats */
static void
append_number (GString *s, const char *key, guint64 value, gboolean negative)
{
  char  digits[24];
  guint n = 0;

  append_key (s, key);
  if (negative)
    g_string_append_c (s, '-');
  do
    digits[n++] = '0' + value % 10;
  while ((value /= 10) > 0);
  while (n > 0)
    g_string_append_c (s, digits[--n]);
  append_text (s, ",\n");
}

/* text's lines as an array of strings, as g_strsplit cuts them */
static void
append_array (GString *s, const char *text)
{
  g_string_append_c (s, '[');
  if (text && *text)
    for (const char *line = text;;)
      {
        const char *end = strchr (line, '\n');

        append_text (s, line == text ? "\n        " : ",\n        ");
        append_string (s, line, end ? (gsize) (end - line) : strlen (line));
        if (!end)
          break;
        line = end + 1;
      }
  append_text (s, "\n      ]");
}

/* The reader stores a stack seen twice once, and thousands of allocations
 * share it: its array is escaped once and copied after that (400 stacks
 * for 17,000 allocations in a generated snapshot), up to BLOCKS_HELD bytes
 * of arrays. */
#define BLOCKS_HELD (32 << 20)

static void
append_lines (Sink *k, const char *key, const char *text, gboolean last)
{
  GString *s = k->s;
  GString *block = text ? g_hash_table_lookup (k->blocks, text) : NULL;
  gsize    start;

  append_key (s, key);
  start = s->len;
  if (block)
    mp_string_append_run (s, block->str, block->len);
  else
    {
      append_array (s, text);
      if (text && k->held + (s->len - start) <= BLOCKS_HELD)
        {
          g_hash_table_insert (k->blocks, (gpointer) text,
                               g_string_new_len (s->str + start, s->len - start));
          k->held += s->len - start;
        }
    }
  append_text (s, last ? "\n" : ",\n");
}

static void
append_int (GString *s, const char *key, gint64 value)
{
  append_number (s, key, value < 0 ? -(guint64) value : (guint64) value, value < 0);
}

/* head: the document without its allocations, as json-c writes it */
static void
write_allocations (Sink *k, char *head, const MpTrace *trace, const MpGraph *graph)
{
  gsize    len = strlen (head);
  GString *s = k->s;

  /* the document so far ends with its closing brace: open one more member */
  g_assert (len >= 3 && g_str_has_suffix (head, "\n}\n"));
  g_string_append_len (s, head, len - 3);
  g_free (head);
  append_text (s, ",\n  \"allocations\": [");
  for (guint t = 0; t < graph->n_tensors; t++)
    {
      const MpTraceSite *site = &trace->sites[t];

      append_text (s, t ? ",\n    {\n" : "\n    {\n");
      append_member (s, "name", graph->tensors[t].name, FALSE);
      append_number (s, "address", trace->addresses[t], FALSE);
      append_number (s, "size", graph->tensors[t].size, FALSE);
      append_int (s, "first", graph->tensors[t].first);
      append_int (s, "last", graph->tensors[t].last);
      append_number (s, "observed_offset", trace->observed[t], FALSE);
      append_text (s, trace->origins[t] == MP_TRACE_BLOCK_PRE_EXISTING
                            ? "      \"pre_existing\": true,\n"
                            : "      \"pre_existing\": false,\n");
      append_member (s, "op", site->op, FALSE);
      append_lines (k, "ops", site->ops, FALSE);
      append_member (s, "module", site->module, FALSE);
      append_lines (k, "frames", site->frames, TRUE);
      append_text (s, "    }");
      sink_flush (k, FLUSH_AT);
    }
  append_text (s, "\n  ]\n}\n");
  sink_flush (k, 0);
}

/* The document without its allocations: small, as json-c writes it. */
static char *
head_json (const MpTrace *trace, const MpGraph *graph, const MpLifetimes *lt)
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
  return mp_json_to_text_free (root);
}

/* half-open [first, last + 1) in event steps, the allocator's offsets */
static void
write_csv (Sink *k, const MpTrace *trace, const MpGraph *graph)
{
  g_string_append (k->s, "id,lower,upper,size,offset,op\n");
  for (guint t = 0; t < graph->n_tensors; t++)
    {
      g_autofree char *id = mp_csv_field (graph->tensors[t].name);
      g_autofree char *op = mp_csv_field (trace->sites[t].op ? trace->sites[t].op : "");

      g_string_append_printf (k->s, "%s,%" G_GINT64_FORMAT ",%" G_GINT64_FORMAT ",%"
                              G_GUINT64_FORMAT ",%" G_GUINT64_FORMAT ",%s\n", id,
                              graph->tensors[t].first, graph->tensors[t].last + 1,
                              graph->tensors[t].size, trace->observed[t], op);
      sink_flush (k, FLUSH_AT);
    }
  sink_flush (k, 0);
}

typedef struct
{
  const MpTrace     *trace;
  const MpGraph     *graph;
  const MpLifetimes *lt; /* NULL: CSV */
} Records;

static void
write_records (Sink *k, const Records *r)
{
  if (r->lt)
    write_allocations (k, head_json (r->trace, r->graph, r->lt), r->trace, r->graph);
  else
    write_csv (k, r->trace, r->graph);
}

static void
free_block (gpointer block)
{
  g_string_free (block, TRUE);
}

/* out NULL: the text is returned */
static char *
records_write (const Records *r, FILE *out, gboolean *failed)
{
  Sink k = { out ? g_string_sized_new (FLUSH_AT + 65536) : g_string_new (NULL), out, FALSE,
             g_hash_table_new_full (NULL, NULL, NULL, free_block), 0 };

  write_records (&k, r);
  g_hash_table_unref (k.blocks);
  if (failed)
    *failed = k.failed;
  return g_string_free (k.s, out != NULL);
}

static gboolean
fill_records (FILE *out, gpointer data)
{
  gboolean failed;

  records_write (data, out, &failed);
  return !failed;
}

char *
mp_trace_to_json (const MpTrace *trace, const MpGraph *graph, const MpLifetimes *lt)
{
  Records r = { trace, graph, lt };

  g_return_val_if_fail (lt != NULL, NULL);
  return records_write (&r, NULL, NULL);
}

char *
mp_trace_to_csv (const MpTrace *trace, const MpGraph *graph)
{
  Records r = { trace, graph, NULL };

  return records_write (&r, NULL, NULL);
}

gboolean
mp_trace_write_json (const char *path, const MpTrace *trace, const MpGraph *graph,
                     const MpLifetimes *lt, GError **error)
{
  Records r = { trace, graph, lt };

  g_return_val_if_fail (lt != NULL, FALSE);
  return mp_write_file_stream (path, fill_records, &r, error);
}

gboolean
mp_trace_write_csv (const char *path, const MpTrace *trace, const MpGraph *graph,
                    GError **error)
{
  Records r = { trace, graph, NULL };

  return mp_write_file_stream (path, fill_records, &r, error);
}
