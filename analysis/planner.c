/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "memplan-analysis"

#include "file-util.h"
#include "planner-private.h"

static const MpPlannerInfo planners[] = {
  { "naive", "Naive", "every tensor its own region; arena = sum of sizes", FALSE,
    mp_planner_naive },
  { "greedy-by-size", "Greedy by size",
    "largest first, each into the smallest gap among lifetime-overlapping tensors "
    "(Pisarchyk & Lee; AITemplate, TFLite)",
    FALSE, mp_planner_greedy_by_size },
  { "greedy-by-breadth", "Greedy by breadth",
    "ops by decreasing breadth (bytes they read and write), each placing its tensors largest "
    "first into the smallest fitting gap (Pisarchyk & Lee)",
    TRUE, mp_planner_greedy_by_breadth },
  { "partition", "Partition",
    "largest first into the heaviest partition whose members' lifetimes are all disjoint; "
    "partitions stacked (tract's GPU memory schema)",
    FALSE, mp_planner_partition },
  { "multistream", "Multi-stream",
    "lifetimes in parallel groups of ops that may run together, then greedy by size "
    "(AITemplate's simple multi-stream)",
    TRUE, mp_planner_multistream, FALSE, MP_PLANNER_PARALLEL },
  { "best-fit", "Best fit",
    "largest first (longer lifetime on a tie), each into the lowest-waste free interval over "
    "its lifetime (XLA heap simulator)",
    FALSE, mp_planner_best_fit },
  { "first-fit", "First fit",
    "largest first, each at the lowest offset where it fits among lifetime-overlapping tensors "
    "(TensorFlow Lite Micro's greedy planner)",
    FALSE, mp_planner_first_fit },
  { "optimal", "Optimal (exact search)",
    "branch and bound over canonical placements with a time budget: proves the plan optimal "
    "or reports its gap to the lower bound (after MiniMalloc, Moffitt 2023)",
    FALSE, mp_planner_optimal, TRUE, MP_PLANNER_SEARCHES },
  { "best-of", "Best of (portfolio)",
    "every order (size, conflicts, conflicts × size, duration, area, start, given; size with "
    "best-fit's and first-fit's ties) with first and best fit, the smallest arena kept (XLA, "
    "ExecuTorch, TVM USMP, SOMAS, OmniMalloc)",
    FALSE, mp_planner_best_of },
};

const MpPlannerInfo *
mp_planners (guint *n_planners)
{
  *n_planners = G_N_ELEMENTS (planners);
  return planners;
}

const MpPlannerInfo *
mp_planner_lookup (const char *name)
{
  for (guint i = 0; i < G_N_ELEMENTS (planners); i++)
    if (g_strcmp0 (planners[i].name, name) == 0)
      return &planners[i];
  return NULL;
}

char *
mp_planner_names (const char *separator)
{
  GString *s = g_string_new (NULL);

  for (guint i = 0; i < G_N_ELEMENTS (planners); i++)
    {
      if (i)
        g_string_append (s, separator);
      g_string_append (s, planners[i].name);
    }
  return g_string_free (s, FALSE);
}

MpPlannerTraits
mp_plan_traits (const MpPlan *plan)
{
  const MpPlannerInfo *info;

  g_return_val_if_fail (plan != NULL, 0);
  if (plan->observed)
    return MP_PLANNER_OBSERVED;
  info = mp_planner_lookup (plan->planner);
  return info ? info->traits : 0;
}

gboolean
mp_plan_is_heuristic (const MpPlan *plan)
{
  return mp_planner_lookup (plan->planner) != NULL &&
         !(mp_plan_traits (plan) &
           (MP_PLANNER_BASELINE | MP_PLANNER_SEARCHES | MP_PLANNER_OBSERVED));
}

char *
mp_search_progress_format (const MpSearchProgress *progress)
{
  g_autofree char *best = mp_format_bytes (progress->arena);
  g_autofree char *bound = mp_format_bytes (progress->lower_bound);

  return g_strdup_printf ("%.1f s, best %s, %.2f%% above the lower bound %s, %" G_GUINT64_FORMAT
                          " nodes", progress->elapsed, best,
                          progress->lower_bound ? 100.0 * (progress->arena -
                                                           progress->lower_bound) /
                                                    progress->lower_bound
                                                : 0.0,
                          bound, progress->nodes);
}

MpPlan *
mp_planner_run (const MpPlannerInfo *info, const MpGraph *graph, const MpLifetimes *lifetimes,
                const MpPlannerOptions *options, GCancellable *cancellable, GError **error)
{
  static const MpPlannerOptions defaults = { 0 };
  MpPlan *plan;
  gint64  start;

  g_return_val_if_fail (info != NULL && graph != NULL && lifetimes != NULL, NULL);
  if (options && options->trace)
    mp_decision_trace_reset (options->trace);

  if (info->needs_ops && !graph->has_ops)
    {
      g_set_error (error, MP_ANALYSIS_ERROR, MP_ANALYSIS_ERROR_UNSUPPORTED,
                   "%s needs the ops of a graph; '%s' has usage records only", info->name,
                   graph->name);
      return NULL;
    }
  /* partition gives a whole partition one offset: no room for a buffer's own */
  if (lifetimes->constrained && info->func == mp_planner_partition)
    {
      g_set_error (error, MP_ANALYSIS_ERROR, MP_ANALYSIS_ERROR_UNSUPPORTED,
                   "%s cannot honour per-buffer alignment, fixed or preferred offsets or gaps, "
                   "which '%s' has", info->name, graph->name);
      return NULL;
    }
  start = g_get_monotonic_time ();
  plan = info->func (graph, lifetimes, options ? options : &defaults, cancellable, error);
  if (plan == NULL)
    return NULL;
  plan->seconds = (g_get_monotonic_time () - start) / 1e6;
  if (options && options->concurrent)
    {
      plan->parallel = TRUE;
      plan->max_parallel_ops = options->max_parallel_ops;
    }
  if (options && options->trace)
    mp_decision_trace_finish (options->trace, plan);
  if (plan->graph_name == NULL)
    plan->graph_name = g_strdup (graph->name);
  mp_plan_finish (plan);
  return plan;
}
