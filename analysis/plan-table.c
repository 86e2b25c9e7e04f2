/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "memplan-analysis"

#include "file-util.h"
#include "plan-table.h"
#include "text-util.h"
#include "verdict.h"

static const MpPlanColumnInfo columns[MP_PLAN_N_COLUMNS] = {
  { MP_PLAN_COLUMN_PLANNER, "planner", "Planner", "planner", FALSE },
  { MP_PLAN_COLUMN_ARENA, "arena", "Arena", "arena", TRUE },
  { MP_PLAN_COLUMN_LOWER_BOUND, "lower-bound", "Lower bound", "lower bound", TRUE },
  { MP_PLAN_COLUMN_RATIO, "ratio", "Ratio", "ratio", TRUE },
  { MP_PLAN_COLUMN_FRAGMENTATION, "fragmentation", "Fragmentation", "frag", TRUE },
  { MP_PLAN_COLUMN_PARTITIONS, "partitions", "Partitions", "parts", TRUE },
  { MP_PLAN_COLUMN_SECONDS, "seconds", "Time", "time", TRUE },
  { MP_PLAN_COLUMN_SEQUENTIAL, "sequential", "In op order", "sequential", FALSE },
  { MP_PLAN_COLUMN_CONCURRENT, "concurrent", "Concurrent", "concurrent", FALSE },
  { MP_PLAN_COLUMN_VERDICT, "valid", "Validity", "verdict", FALSE },
};

const MpPlanColumnInfo *
mp_plan_column_info (MpPlanColumn column)
{
  g_return_val_if_fail (column < MP_PLAN_N_COLUMNS, NULL);
  return &columns[column];
}

const MpPlanColumnInfo *
mp_plan_column_lookup (const char *id)
{
  for (guint i = 0; i < MP_PLAN_N_COLUMNS; i++)
    if (g_strcmp0 (columns[i].id, id) == 0)
      return &columns[i];
  return NULL;
}

char *
mp_plan_cell (const MpPlan *plan, MpPlanColumn column)
{
  g_return_val_if_fail (plan != NULL, NULL);

  switch (column)
    {
    case MP_PLAN_COLUMN_PLANNER:
      /* a plan file's planner is a name from a file: shown, not obeyed;
       * malloc's blocks (a CPU trace) make a footprint, not an arena */
      if (plan->observed && plan->no_arena)
        return g_strdup ("observed (no arena)");
      return mp_escape_name (plan->planner);
    case MP_PLAN_COLUMN_ARENA:
      return mp_format_bytes (plan->arena);
    case MP_PLAN_COLUMN_LOWER_BOUND:
      return mp_format_bytes (plan->lower_bound);
    case MP_PLAN_COLUMN_RATIO:
      return g_strdup_printf ("%.4f", mp_plan_ratio (plan));
    case MP_PLAN_COLUMN_FRAGMENTATION:
      return g_strdup_printf ("%.2f%%", 100.0 * mp_plan_fragmentation (plan));
    case MP_PLAN_COLUMN_PARTITIONS:
      return plan->n_partitions ? g_strdup_printf ("%u", plan->n_partitions) : g_strdup ("-");
    case MP_PLAN_COLUMN_SECONDS:
      return mp_format_seconds (plan->seconds);
    case MP_PLAN_COLUMN_SEQUENTIAL:
      return g_strdup (mp_plan_verdict_sequential (plan));
    case MP_PLAN_COLUMN_CONCURRENT:
      return g_strdup (mp_plan_verdict_concurrent (plan));
    case MP_PLAN_COLUMN_VERDICT:
      return mp_plan_verdict (plan);
    case MP_PLAN_N_COLUMNS:
    default:
      g_return_val_if_reached (NULL);
    }
}

gboolean
mp_plan_cell_fails (const MpPlan *plan, MpPlanColumn column)
{
  g_return_val_if_fail (plan != NULL, FALSE);

  switch (column)
    {
    case MP_PLAN_COLUMN_SEQUENTIAL:
      return plan->checked && !plan->sequential_valid;
    case MP_PLAN_COLUMN_CONCURRENT:
      return plan->concurrent_checked && !plan->concurrent_valid;
    case MP_PLAN_COLUMN_VERDICT:
      return mp_plan_get_verdict (plan) == MP_VERDICT_INVALID ||
             mp_plan_get_verdict (plan) == MP_VERDICT_OVER_CAPACITY;
    default:
      return FALSE;
    }
}
