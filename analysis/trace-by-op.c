/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "memplan-analysis"

#include <string.h>

#include "trace.h"

/* Per-op attribution of a trace: which op allocated how much, and which
 * ops hold the bytes live at the peak ("which layer owns the peak"). */

static gint
compare_uses (gconstpointer a, gconstpointer b)
{
  const MpTraceOpUse *x = a, *y = b;

  if (x->at_peak != y->at_peak)
    return x->at_peak > y->at_peak ? -1 : 1;
  if (x->allocated != y->allocated)
    return x->allocated > y->allocated ? -1 : 1;
  return strcmp (x->op, y->op);
}

/* The op an allocation is charged to: its innermost op, else (snapshots)
 * its innermost frame. */
static char *
op_key (const MpTrace *trace, guint t)
{
  const MpTraceSite *site = &trace->sites[t];

  if (trace->origins[t] == MP_TRACE_BLOCK_PRE_EXISTING)
    return g_strdup ("(before the trace)");
  if (site->op)
    return g_strdup (site->op);
  if (site->frames == NULL)
    return g_strdup ("(no op)");
  return g_strndup (site->frames, strcspn (site->frames, "\n"));
}

/* The module an allocation is charged to, where the trace has it. */
static char *
module_key (const MpTrace *trace, guint t)
{
  if (trace->origins[t] == MP_TRACE_BLOCK_PRE_EXISTING)
    return g_strdup ("(before the trace)");
  return g_strdup (trace->sites[t].module ? trace->sites[t].module : "(no module)");
}

static void
use_clear (gpointer data)
{
  g_free (((MpTraceOpUse *) data)->op);
}

static GArray *
by_key (const MpTrace *trace, char *(*key_of) (const MpTrace *trace, guint t))
{
  g_autoptr (GHashTable) index = g_hash_table_new (g_str_hash, g_str_equal);
  GArray                *uses = g_array_new (FALSE, FALSE, sizeof (MpTraceOpUse));
  const MpGraph         *graph = trace->graph;

  g_array_set_clear_func (uses, use_clear);
  g_return_val_if_fail (graph != NULL, uses);
  for (guint t = 0; t < trace->n_allocations; t++)
    {
      g_autofree char *key = key_of (trace, t);
      gpointer         at;
      MpTraceOpUse    *use;

      if (!g_hash_table_lookup_extended (index, key, NULL, &at))
        {
          MpTraceOpUse fresh = { g_steal_pointer (&key), 0, 0, 0 };

          at = GUINT_TO_POINTER (uses->len);
          g_array_append_val (uses, fresh);
          g_hash_table_insert (index, fresh.op, at);
        }
      use = &g_array_index (uses, MpTraceOpUse, GPOINTER_TO_UINT (at));
      use->allocated += graph->tensors[t].size;
      use->n_allocations++;
      if (graph->tensors[t].first <= trace->peak_step && trace->peak_step <= graph->tensors[t].last)
        use->at_peak += graph->tensors[t].size;
    }
  g_array_sort (uses, compare_uses);
  return uses;
}

GArray *
mp_trace_by_op (const MpTrace *trace)
{
  return by_key (trace, op_key);
}

GArray *
mp_trace_by_module (const MpTrace *trace)
{
  return by_key (trace, module_key);
}

gboolean
mp_trace_has_modules (const MpTrace *trace)
{
  for (guint t = 0; t < trace->n_allocations; t++)
    if (trace->sites[t].module)
      return TRUE;
  return FALSE;
}
