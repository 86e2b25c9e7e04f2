/* SPDX-License-Identifier: GPL-3.0-or-later */
#include <string.h>

#include <json-c/json.h>

#include "json-util.h"
#include "cli.h"

/* A PyTorch trace or snapshot as usage records: JSON with every
 * allocation's address, lifetime, observed offset, op and stack frames, or
 * MiniMalloc CSV whose offset column is the allocator's own layout (plus
 * the op), or with --by-op the bytes each op allocated and held at the peak. */

/* The usage-record CSV has no quoting: a comma or line break in a name
 * would shift the columns. */
static char *
csv_field (const char *text)
{
  return g_strdelimit (g_strdup (text), ",\r\n", ';');
}

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

static char *
trace_to_json (const MpTrace *trace, const MpGraph *graph, const MpLifetimes *lt)
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
static char *
trace_to_csv (const MpTrace *trace, const MpGraph *graph)
{
  GString *s = g_string_new ("id,lower,upper,size,offset,op\n");

  for (guint t = 0; t < graph->n_tensors; t++)
    {
      g_autofree char *id = csv_field (graph->tensors[t].name);
      g_autofree char *op = csv_field (trace->sites[t].op ? trace->sites[t].op : "");

      g_string_append_printf (s, "%s,%" G_GINT64_FORMAT ",%" G_GINT64_FORMAT ",%" G_GUINT64_FORMAT
                              ",%" G_GUINT64_FORMAT ",%s\n", id, graph->tensors[t].first,
                              graph->tensors[t].last + 1, graph->tensors[t].size,
                              trace->observed[t], op);
    }
  return g_string_free (s, FALSE);
}

/* The records written out cost more than the file they came from when a
 * pickle shares them (README, Hardening: the memory estimate). */
static gboolean
check_output_memory (const char *path, const MpTrace *trace, gboolean csv, guint64 load_estimate,
                     const char *max_memory)
{
  guint64          lines = 0, bytes = 0;
  g_autofree char *what = g_strdup_printf ("%s: writing %u records", path,
                                           trace->n_allocations);

  /* CSV names each record's op (a name of at most 256 bytes), JSON all its
   * ops and stack frames too */
  if (csv)
    for (guint t = 0; t < trace->n_allocations; t++)
      bytes += trace->sites[t].op ? strlen (trace->sites[t].op) : 0;
  else
    bytes = mp_trace_site_text (trace, trace->text_limit, &lines);

  return mp_cli_check_more_memory (what, mp_memory_estimate_import (trace->n_allocations, bytes,
                                                                    lines, csv),
                                   load_estimate, max_memory);
}

int
mp_cli_import (int argc, char **argv)
{
  g_autofree char *device = NULL, *format = NULL, *output = NULL, *text = NULL;
  g_autofree char *max_memory = NULL;
  g_auto (GStrv) dims = NULL;
  g_autoptr (GError) error = NULL;
  g_autoptr (GOptionContext) ctx = NULL;
  g_autoptr (MpWorkload) w = NULL;
  const MpTrace    *trace;
  gboolean          by_op = FALSE, drop = FALSE, csv;
  guint64           load_estimate;
  MpWorkloadOptions wopts = { 0 };
  GOptionEntry      entries[] = {
    { "device", 0, 0, G_OPTION_ARG_STRING, &device, "Device to import: cuda:N or cpu (default: "
      "the first CUDA device)", "DEV" },
    { "format", 'f', 0, G_OPTION_ARG_STRING, &format, "json (default: records, observed "
      "offsets, stack frames) or csv (MiniMalloc records with the observed offsets)", "FORMAT" },
    { "by-op", 0, 0, G_OPTION_ARG_NONE, &by_op, "Write a table of the bytes each op allocated "
      "and held at the peak, heaviest first", NULL },
    { "drop-pre-existing", 0, 0, G_OPTION_ARG_NONE, &drop, "Leave out blocks allocated before "
      "the trace began (by default they are live from its start, as in PyTorch's memory "
      "viewer)", NULL },
    { "output", 'o', 0, G_OPTION_ARG_FILENAME, &output, "Write to FILE instead of "
      "standard output (atomically; an existing FILE is replaced, an input never)", "FILE" },
    { "dim", 0, 0, G_OPTION_ARG_STRING_ARRAY, &dims, "ONNX: bind a symbolic dimension "
      "(repeatable: --dim batch=8 --dim seq=128)", "NAME=VALUE" },
    MP_CLI_MAX_MEMORY_ENTRY (&max_memory),
    { NULL }
  };

  ctx = g_option_context_new ("FILE — read a PyTorch profiler trace (JSON) or memory snapshot "
                              "(pickle), or an ONNX model");
  g_option_context_set_summary (ctx, "Pairs allocations and frees by address in event order "
                                     "and writes the usage records with the allocator's "
                                     "observed layout. Nothing in a pickle is executed. An ONNX "
                                     "model is written as a memplan.graph/1 graph.");
  g_option_context_add_main_entries (ctx, entries, NULL);
  if (!mp_cli_parse (ctx, &argc, &argv, 1, 1))
    return MP_EXIT_BAD_INPUT;
  if (format && !g_str_equal (format, "json") && !g_str_equal (format, "csv"))
    {
      mp_cli_error ("unknown format '%s' (known: json, csv)", format);
      return MP_EXIT_BAD_INPUT;
    }
  csv = format && g_str_equal (format, "csv");
  wopts.input.trace.device = device;
  wopts.input.trace.drop_pre_existing = drop;
  wopts.input.onnx.dims = (const char *const *) dims;
  if (max_memory)
    mp_parse_size (max_memory, &wopts.input.onnx.max_memory); /* checked just below */
  if (!mp_cli_check_load_memory (argv[1], max_memory, &load_estimate))
    return MP_EXIT_BAD_INPUT;
  if (!(w = mp_workload_open (argv[1], &wopts, &error)))
    {
      mp_cli_error ("%s", error->message);
      return MP_EXIT_BAD_INPUT;
    }
  /* an ONNX model becomes a memplan.graph/1 file, to join suites and reports */
  if (w->format == MP_INPUT_ONNX)
    {
      g_autofree char *json = mp_graph_to_json (w->graph);

      if (!mp_cli_output (output, json, &error))
        {
          mp_cli_error ("%s", error->message);
          return MP_EXIT_BAD_INPUT;
        }
      return MP_EXIT_OK;
    }
  if (!(trace = w->trace))
    {
      mp_cli_error ("%s: this is a %s, not a PyTorch profiler trace or memory snapshot", argv[1],
                    mp_input_format_name (w->format));
      return MP_EXIT_BAD_INPUT;
    }
  if (!by_op && !mp_trace_check_expansion (trace, &error))
    {
      mp_cli_error ("%s", error->message);
      return MP_EXIT_BAD_INPUT;
    }
  if (!by_op && !check_output_memory (argv[1], trace, csv, load_estimate, max_memory))
    return MP_EXIT_BAD_INPUT;
  if (by_op)
    text = mp_cli_by_op_table (trace);
  else if (csv)
    text = trace_to_csv (trace, w->graph);
  else
    text = trace_to_json (trace, w->graph, w->lifetimes);
  if (!mp_cli_output (output, text, &error))
    {
      mp_cli_error ("%s", error->message);
      return MP_EXIT_BAD_INPUT;
    }
  return MP_EXIT_OK;
}
