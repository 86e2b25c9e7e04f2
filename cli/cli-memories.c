/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "cli.h"

static void
memory_clear (gpointer data)
{
  g_free (((MpMemory *) data)->name);
}

/* The memories to spill by: --memory flags when given (they override the
 * graph's), else the graph's own "memories"; NULL and error set on a bad
 * flag. An empty array: none. */
GArray *
mp_cli_memories (const MpGraph *graph, char **specs, GError **error)
{
  g_autoptr (GArray) memories = g_array_new (FALSE, TRUE, sizeof (MpMemory));

  g_array_set_clear_func (memories, memory_clear);
  for (guint k = 0; specs && specs[k]; k++)
    {
      MpMemory m;

      if (!mp_memory_parse (specs[k], &m, error))
        return NULL;
      g_array_append_val (memories, m);
    }
  for (guint k = 0; !specs && k < graph->n_memories; k++)
    {
      MpMemory m = { g_strdup (graph->memories[k].name), graph->memories[k].capacity };

      g_array_append_val (memories, m);
    }
  return g_steal_pointer (&memories);
}

/* Each plan of run spilled over the memories (flags, else the graph's):
 * spills[i] for run->plans[i], NULL for a baseline or foreign planner. An
 * empty array when there are no memories; NULL and error set on a bad
 * flag or a planner that fails. */
GPtrArray *
mp_cli_spills (const MpWorkload *w, const MpPlanRun *run, const MpCliPlanning *planning,
               char **specs, GError **error)
{
  g_autoptr (GArray) memories = mp_cli_memories (w->graph, specs, error);
  g_autoptr (GPtrArray) spills = g_ptr_array_new_with_free_func ((GDestroyNotify) mp_spill_free);
  MpPlannerOptions options = { 0 };

  if (memories == NULL)
    return NULL;
  options.time_budget = planning->budget;
  options.max_parallel_ops = MAX (planning->max_parallel, 0);
  for (guint p = 0; memories->len && p < run->plans->len; p++)
    {
      const MpPlan        *plan = run->plans->pdata[p];
      const MpPlannerInfo *info = mp_planner_lookup (plan->planner);
      MpSpill             *spill = NULL;

      if (info && !(info->traits & MP_PLANNER_BASELINE) &&
          !(spill = mp_spill_plan (w->graph, w->lifetimes, info, (MpMemory *) memories->data,
                                   memories->len, &options, NULL, error)))
        return NULL;
      g_ptr_array_add (spills, spill);
    }
  return g_steal_pointer (&spills);
}

/* plan --memory (or a graph with "memories"): for each planner, what fits
 * in each memory (fastest first) and what spilled to the next, with its
 * traffic. */
void
mp_cli_spill_table (GString *out, const MpWorkload *w, const MpPlanRun *run, GPtrArray *spills)
{
  if (spills->len == 0)
    return;
  g_string_append_printf (out, "\nmemories, fastest first (spill rule: while a memory's arena is "
                               "over its capacity, its tensor with the most bytes x steps live "
                               "moves to the next; optimal: the fewest bytes out of each memory "
                               "in turn, searched exactly):\n");
  for (guint p = 0; p < run->plans->len; p++)
    {
      const MpPlan  *plan = run->plans->pdata[p];
      const MpSpill *spill = spills->pdata[p];

      for (guint k = 0; spill && k < spill->n_memories; k++)
        {
          g_autofree char *arena = mp_format_bytes (spill->arena[k]);
          g_autofree char *cap = spill->memories[k].capacity
                                   ? mp_format_bytes (spill->memories[k].capacity)
                                   : g_strdup ("unbounded");
          g_autofree char *traffic = mp_format_bytes (spill->traffic[k]);

          g_string_append_printf (out,
                                  "%-18s %-8s arena %10s of %-10s %4u tensors, traffic %s%s%s\n",
                                  k == 0 ? plan->planner : "", spill->memories[k].name, arena, cap,
                                  spill->count[k], traffic,
                                  spill->memories[k].capacity &&
                                      spill->arena[k] > spill->memories[k].capacity
                                    ? " — OVER CAPACITY" : "",
                                  k > 0 || !spill->exact ? ""
                                  : spill->proved ? " (fewest spilled bytes: proved)"
                                                  : " (fewest spilled bytes: not proved)");
          if (spill->spilled_bytes[k] == 0)
            continue;
          g_string_append_printf (out, "%-18s   spilled to %s:", "", spill->memories[k].name);
          for (guint i = 0; i < spill->n_records; i++)
            if (spill->memory_of[i] == k && spill->spilled[i])
              {
                const MpUsage   *r = &w->lifetimes->records[i];
                g_autofree char *b = mp_format_bytes (r->bytes);

                g_string_append_printf (out, " %s (%s x %" G_GUINT64_FORMAT ")",
                                        w->graph->tensors[r->tensor].name, b,
                                        spill->accesses[i]);
              }
          g_string_append_c (out, '\n');
        }
    }
}
