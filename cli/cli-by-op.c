/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "cli.h"

/* "Which op owns the peak": the table import --by-op and plan --by-op
 * print alike. */

char *
mp_cli_by_op_table (const MpTrace *trace)
{
  g_autoptr (GArray) uses = mp_trace_by_op (trace);
  g_autofree char   *peak = mp_format_bytes (trace->live_peak);
  GString           *s = g_string_new (NULL);

  g_string_append_printf (s, "%s: %s live at the peak (event %" G_GINT64_FORMAT ")\n\n",
                          trace->graph->name, peak, trace->peak_step);
  /* the op last: real names (a Python frame, a module path) are long, and
   * the figures keep their columns whatever their length */
  g_string_append_printf (s, "%12s %12s %8s  %s\n", "at peak", "allocated", "allocs", "op");
  for (guint i = 0; i < uses->len; i++)
    {
      const MpTraceOpUse *u = &g_array_index (uses, MpTraceOpUse, i);
      g_autofree char    *at = mp_format_bytes (u->at_peak);
      g_autofree char    *all = mp_format_bytes (u->allocated);
      /* names from the file reach the terminal: control characters as \xNN */
      g_autofree char    *op = mp_escape_name (u->op);

      g_string_append_printf (s, "%12s %12s %8u  %s\n", at, all, u->n_allocations, op);
    }
  return g_string_free (s, FALSE);
}
