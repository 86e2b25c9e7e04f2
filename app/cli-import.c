/* SPDX-License-Identifier: GPL-3.0-or-later */
#include <json-c/json.h>

#include "json-util.h"
#include "cli.h"

/* A PyTorch trace or snapshot as usage records: JSON with every
 * allocation's address, lifetime, observed offset and stack frames, or
 * MiniMalloc CSV whose offset column is the allocator's own layout. */

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
  json_object_object_add (root, "reserved_peak", json_object_new_uint64 (trace->reserved_peak));
  json_object_object_add (root, "observed_span", json_object_new_uint64 (trace->observed_arena));
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
  for (guint t = 0; t < graph->n_tensors; t++)
    {
      json_object *a = json_object_new_object ();
      json_object *frames = json_object_new_array ();
      g_auto (GStrv) lines = trace->frames[t] ? g_strsplit (trace->frames[t], "\n", -1) : NULL;

      json_object_object_add (a, "name", json_object_new_string (graph->tensors[t].name));
      json_object_object_add (a, "address", json_object_new_uint64 (trace->addresses[t]));
      json_object_object_add (a, "size", json_object_new_uint64 (graph->tensors[t].size));
      json_object_object_add (a, "first", json_object_new_int64 (graph->tensors[t].first));
      json_object_object_add (a, "last", json_object_new_int64 (graph->tensors[t].last));
      json_object_object_add (a, "observed_offset", json_object_new_uint64 (trace->observed[t]));
      for (guint k = 0; lines && lines[k]; k++)
        json_object_array_add (frames, json_object_new_string (lines[k]));
      json_object_object_add (a, "frames", frames);
      json_object_array_add (allocs, a);
    }
  json_object_object_add (root, "allocations", allocs);
  return mp_json_to_text_free (root);
}

/* half-open [first, last + 1) in event steps, the allocator's offsets */
static char *
trace_to_csv (const MpTrace *trace, const MpGraph *graph)
{
  GString *s = g_string_new ("id,lower,upper,size,offset\n");

  for (guint t = 0; t < graph->n_tensors; t++)
    g_string_append_printf (s, "%s,%" G_GINT64_FORMAT ",%" G_GINT64_FORMAT ",%" G_GUINT64_FORMAT
                            ",%" G_GUINT64_FORMAT "\n", graph->tensors[t].name,
                            graph->tensors[t].first, graph->tensors[t].last + 1,
                            graph->tensors[t].size, trace->observed[t]);
  return g_string_free (s, FALSE);
}

/* An ONNX model becomes a memplan.graph/1 file, to join suites and reports. */
static char *
onnx_to_json (const char *path, char **dims, GError **error)
{
  MpOnnxOptions options = { (const char *const *) dims, FALSE };
  g_autoptr (MpGraph) graph = mp_onnx_load (path, &options, error);

  return graph ? mp_graph_to_json (graph) : NULL;
}

int
mp_cli_import (int argc, char **argv)
{
  g_autofree char *device = NULL, *format = NULL, *output = NULL, *text = NULL;
  g_auto (GStrv) dims = NULL;
  g_autoptr (GError) error = NULL;
  g_autoptr (GOptionContext) ctx = NULL;
  g_autoptr (MpTrace) trace = NULL;
  g_autoptr (MpLifetimes) lt = NULL;
  MpLifetimeOptions lopts = { 0 };
  GOptionEntry      entries[] = {
    { "device", 0, 0, G_OPTION_ARG_STRING, &device, "Device to import: cuda:N or cpu (default: "
      "the first CUDA device)", "DEV" },
    { "format", 'f', 0, G_OPTION_ARG_STRING, &format, "json (default: records, observed "
      "offsets, stack frames) or csv (MiniMalloc records with the observed offsets)", "FORMAT" },
    { "output", 'o', 0, G_OPTION_ARG_FILENAME, &output, "Write to FILE instead of "
      "standard output (atomically; an existing FILE is replaced, an input never)", "FILE" },
    { "dim", 0, 0, G_OPTION_ARG_STRING_ARRAY, &dims, "ONNX: bind a symbolic dimension "
      "(repeatable: --dim batch=8 --dim seq=128)", "NAME=VALUE" },
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
  if (mp_onnx_sniff_file (argv[1]) || g_str_has_suffix (argv[1], ".onnx"))
    {
      if (!(text = onnx_to_json (argv[1], dims, &error)) ||
          !mp_cli_output (output, text, &error))
        {
          mp_cli_error ("%s", error->message);
          return MP_EXIT_BAD_INPUT;
        }
      return MP_EXIT_OK;
    }
  if (!(trace = mp_trace_load (argv[1], device, &error)) ||
      !(lt = mp_lifetimes_compute (trace->graph, &lopts, &error)))
    {
      mp_cli_error ("%s", error->message);
      return MP_EXIT_BAD_INPUT;
    }
  if (format && g_str_equal (format, "csv"))
    text = trace_to_csv (trace, trace->graph);
  else
    text = trace_to_json (trace, trace->graph, lt);
  if (!mp_cli_output (output, text, &error))
    {
      mp_cli_error ("%s", error->message);
      return MP_EXIT_BAD_INPUT;
    }
  return MP_EXIT_OK;
}
