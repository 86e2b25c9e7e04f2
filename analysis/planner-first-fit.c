/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "memplan-analysis"

#include "planner-private.h"

/* TensorFlow Lite Micro's GreedyMemoryPlanner (tflite-micro,
 * tensorflow/lite/micro/memory_planner/greedy_memory_planner.cc,
 * CalculateOffsetsIfNeeded and ReverseSortInPlace), with its exact order:
 * the buffers are copied into the sort arrays from the tail (buffer 0 last)
 * and bubble-sorted by descending size, swapping only a strictly smaller
 * value, so the sort is stable over that reversed order: largest first, and
 * among equal sizes the later-added buffer first. Each buffer then walks the
 * placed buffers that overlap it in time in address order, keeping the
 * highest end seen, and takes the first position where the gap up to the
 * next one holds it, else the top: the lowest gap of the address union
 * that fits. TFLM walks a linked list of every placed buffer; here the time
 * index yields that union and stops at the first gap that fits. */

MpPlan *
mp_planner_first_fit (const MpGraph *graph, const MpLifetimes *lifetimes,
                      const MpPlannerOptions *options, GCancellable *cancellable, GError **error)
{
  g_autoptr (MpPlan)     plan = mp_plan_new ("first-fit", lifetimes);
  guint                  n = plan->n_records;
  g_autofree MpOrderKey *keys = g_new (MpOrderKey, MAX (n, 1));
  g_autofree guint      *order = NULL;

  /* descending record index as the second key: the later-added first */
  for (guint i = 0; i < n; i++)
    keys[i] = (MpOrderKey) { plan->records[i].size, i, i };
  order = mp_order_from_keys (keys, n);
  mp_decision_trace_rules (options->trace, "largest first (ties: the last to appear first)",
                       "each into the lowest gap between the placed tensors that overlap it in "
                       "time that holds it, else on top of them");
  if (!mp_place_in_order (plan->records, n, plan->n_steps, order, MP_PLACE_FIRST_FIT,
                          plan->offsets, options->trace, cancellable, error))
    return NULL;
  return g_steal_pointer (&plan);
}
