/* SPDX-License-Identifier: GPL-3.0-or-later */
#include <string.h>

#include "cli.h"

/* A PyTorch trace or snapshot as usage records: JSON with every
 * allocation's address, lifetime, observed offset, op and stack frames, or
 * MiniMalloc CSV whose offset column is the allocator's own layout (plus
 * the op), or with --by-op the bytes each op allocated and held at the peak. */

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
    text = mp_trace_to_csv (trace, w->graph);
  else
    text = mp_trace_to_json (trace, w->graph, w->lifetimes);
  if (!mp_cli_output (output, text, &error))
    {
      mp_cli_error ("%s", error->message);
      return MP_EXIT_BAD_INPUT;
    }
  return MP_EXIT_OK;
}
