/* SPDX-License-Identifier: GPL-3.0-or-later */
#include <string.h>

#include "cli.h"

/* A PyTorch trace or snapshot as usage records: JSON with every
 * allocation's address, lifetime, observed offset, op and stack frames, or
 * MiniMalloc CSV whose offset column is the allocator's own layout (plus
 * the op), or with --by-op the bytes each op allocated and held at the peak. */

/* The records go out through a buffer of a few MiB, less for a short text
 * (README, Hardening: the memory estimate). */
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
  g_auto (MpCliPlanning) planning = { NULL };
  g_auto (MpCliOutput) out = { NULL };
  g_autofree char *text = NULL;
  g_autoptr (GError) error = NULL;
  g_autoptr (GOptionContext) ctx = NULL;
  g_autoptr (MpWorkload) w = NULL;
  const MpTrace    *trace;
  gboolean          by_op = FALSE, csv;
  GOptionEntry      entries[] = {
    { "by-op", 0, 0, G_OPTION_ARG_NONE, &by_op, "Write a table of the bytes each op allocated "
      "and held at the peak, heaviest first", NULL },
    { NULL }
  };

  ctx = g_option_context_new ("FILE — read a PyTorch profiler trace (JSON) or memory snapshot "
                              "(pickle), or an ONNX model");
  g_option_context_set_summary (ctx, "Pairs allocations and frees by address in event order "
                                     "and writes the usage records with the allocator's "
                                     "observed layout. Nothing in a pickle is executed. An ONNX "
                                     "model is written as a memplan.graph/1 graph; with --order, "
                                     "an ONNX model or a graph is written with its ops "
                                     "reordered.");
  g_option_context_add_main_entries (ctx, entries, NULL);
  /* json: records, observed offsets, stack frames; csv: MiniMalloc records
   * with the observed offsets */
  mp_cli_add_output (ctx, &out, "json, csv");
  mp_cli_add_planning (ctx, &planning, MP_CLI_DEVICE | MP_CLI_MODEL | MP_CLI_ORDER);
  if (!mp_cli_parse (ctx, &argc, &argv, 1, 1) || !mp_cli_output_check (&out) ||
      !mp_cli_planning_check (&planning))
    return MP_EXIT_BAD_INPUT;
  csv = mp_cli_output_is (&out, "csv");
  if (!(w = mp_cli_open (argv[1], &planning)))
    return MP_EXIT_BAD_INPUT;
  /* an ONNX model becomes a memplan.graph/1 file, to join suites and reports;
   * a reordered graph too, so other tools can use the order */
  if (w->format == MP_INPUT_ONNX || (planning.order && w->format == MP_INPUT_GRAPH_JSON))
    {
      g_autofree char *json = mp_graph_to_json (w->graph);

      if (!mp_cli_output (out.output, json, &error))
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
  if (!by_op && !check_output_memory (argv[1], trace, csv, planning.load_estimate,
                                      planning.max_memory))
    return MP_EXIT_BAD_INPUT;
  if (by_op)
    text = mp_cli_by_op_table (trace);
  /* the records go out as they are written: a 564 MB snapshot's are
   * 906 MB of JSON */
  if (by_op ? !mp_cli_output (out.output, text, &error)
            : !mp_cli_check_output (out.output, &error) ||
                !(csv ? mp_trace_write_csv (out.output, trace, w->graph, &error)
                      : mp_trace_write_json (out.output, trace, w->graph, w->lifetimes, &error)))
    {
      mp_cli_error ("%s", error->message);
      return MP_EXIT_BAD_INPUT;
    }
  return MP_EXIT_OK;
}
