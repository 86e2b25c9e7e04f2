/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "memplan-analysis"

#include <json-c/json.h>

#include "json-write.h"
#include "text-util.h"
#include "trace.h"

/* What `import` writes: a trace's allocations as memplan.trace/1 JSON (every
 * allocation's address, lifetime, observed offset, op and stack frames) or as
 * MiniMalloc records whose offset column is the allocator's own layout. */

static json_object *
lines_array (const char *text)
{
  json_object   *array = json_object_new_array ();
  g_auto (GStrv) lines = text ? g_strsplit (text, "\n", -1) : NULL;

  for (guint k = 0; lines && lines[k]; k++)
    json_object_array_add (array, json_object_new_string (lines[k]));
  return array;
}

static json_object *
string_or_null (const char *text)
{
  return text ? json_object_new_string (text) : NULL;
}

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

char *
mp_trace_to_json (const MpTrace *trace, const MpGraph *graph, const MpLifetimes *lt)
{
  json_object     *root = json_object_new_object ();
  json_object     *devices = json_object_new_array ();
  json_object     *ranges = json_object_new_array ();
  json_object     *allocs = json_object_new_array ();

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
  for (guint t = 0; t < graph->n_tensors; t++)
    {
      json_object *a = json_object_new_object ();
      const MpTraceSite *site = &trace->sites[t];

      json_object_object_add (a, "name", json_object_new_string (graph->tensors[t].name));
      json_object_object_add (a, "address", json_object_new_uint64 (trace->addresses[t]));
      json_object_object_add (a, "size", json_object_new_uint64 (graph->tensors[t].size));
      json_object_object_add (a, "first", json_object_new_int64 (graph->tensors[t].first));
      json_object_object_add (a, "last", json_object_new_int64 (graph->tensors[t].last));
      json_object_object_add (a, "observed_offset", json_object_new_uint64 (trace->observed[t]));
      json_object_object_add (a, "pre_existing",
                              json_object_new_boolean (trace->origins[t] ==
                                                       MP_TRACE_BLOCK_PRE_EXISTING));
      json_object_object_add (a, "op", string_or_null (site->op));
      json_object_object_add (a, "ops", lines_array (site->ops));
      json_object_object_add (a, "module", string_or_null (site->module));
      json_object_object_add (a, "frames", lines_array (site->frames));
      json_object_array_add (allocs, a);
    }
  json_object_object_add (root, "allocations", allocs);
  return mp_json_to_text_free (root);
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
