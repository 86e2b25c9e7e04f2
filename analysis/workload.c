/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "memplan-analysis"

#include "graph-private.h"
#include "workload.h"

static void
workload_clear (gpointer data)
{
  MpWorkload *w = data;

  g_clear_pointer (&w->observed, mp_plan_free);
  if (w->trace)
    w->graph = NULL; /* the trace's */
  g_clear_pointer (&w->trace, mp_trace_free);
  g_clear_pointer (&w->parallel, mp_schedule_free);
  g_clear_pointer (&w->lifetimes, mp_lifetimes_free);
  g_clear_pointer (&w->graph, mp_graph_free);
  g_clear_pointer (&w->given_graph, mp_graph_free);
  g_clear_pointer (&w->order, mp_order_result_free);
  g_free (w->file_offsets);
  g_free (w->path);
}

MpWorkload *
mp_workload_ref (MpWorkload *workload)
{
  return g_atomic_rc_box_acquire (workload);
}

void
mp_workload_unref (MpWorkload *workload)
{
  g_atomic_rc_box_release_full (workload, workload_clear);
}

/* The order stage: the graph's ops in the order asked for, before any
 * lifetime is measured. A trace's order is what happened: it is refused. */
static gboolean
reorder (MpWorkload *w, const MpWorkloadOptions *options, GError **error)
{
  MpOrderOptions oopts = { .plan_inputs = options->plan_inputs,
                           .time_budget = options->order_budget };
  MpGraph       *reordered;

  if (w->trace || !w->graph->has_ops)
    {
      mp_set_file_error (error, MP_ANALYSIS_ERROR_UNSUPPORTED, w->path,
                         "--order %s needs a graph with dependencies (graph JSON, ONNX, zoo); "
                         "this is %s, whose order is what happened (use --order given)",
                         mp_order_method_name (options->order),
                         w->format == MP_INPUT_USAGE_CSV ? "usage records"
                         : w->format == MP_INPUT_CHROME_TRACE ? "a PyTorch profiler trace"
                         : "a PyTorch memory snapshot");
      return FALSE;
    }
  if (!(w->order = mp_order_compute (w->graph, options->order, &oopts, error)) ||
      !(reordered = mp_graph_reorder (w->graph, w->order->order, error)))
    return FALSE;
  w->given_graph = w->graph;
  w->graph = reordered;
  return TRUE;
}

/* Lifetimes, and the parallel schedule where streams can overlap. */
static gboolean
prepare (MpWorkload *w, const MpWorkloadOptions *options, GError **error)
{
  MpLifetimeOptions lopts = { 0 };

  if (options && options->order != MP_ORDER_GIVEN && !reorder (w, options, error))
    return FALSE;
  if (options)
    {
      lopts.alignment = options->alignment;
      lopts.plan_inputs = options->plan_inputs;
      w->max_parallel_ops = options->max_parallel_ops;
    }
  if (!(w->lifetimes = mp_lifetimes_compute (w->graph, &lopts, error)))
    return FALSE;
  if (w->graph->has_ops && mp_graph_n_streams (w->graph) > 1)
    w->parallel = mp_schedule_parallel (w->graph, w->max_parallel_ops);
  if (w->trace)
    {
      w->observed = mp_trace_observed_plan (w->trace, w->lifetimes);
      mp_plan_judge (w->graph, w->parallel, w->observed);
    }
  return TRUE;
}

MpWorkload *
mp_workload_open (const char *path, const MpWorkloadOptions *options, GError **error)
{
  MpInput *input;

  g_return_val_if_fail (path != NULL, NULL);

  if (!(input = mp_input_load (path, options ? &options->input : NULL, error)))
    return NULL;
  return mp_workload_new_from_input (input, options, error);
}

MpWorkload *
mp_workload_new_from_input (MpInput *taken, const MpWorkloadOptions *options, GError **error)
{
  g_autoptr (MpWorkload) w = g_atomic_rc_box_new0 (MpWorkload);
  g_autoptr (MpInput) input = taken;

  g_return_val_if_fail (input != NULL, NULL);

  if (input->graph->path)
    w->path = g_strdup (input->graph->path);
  w->format = input->format;
  w->graph = g_steal_pointer (&input->graph);
  w->trace = g_steal_pointer (&input->trace);
  w->file_offsets = g_steal_pointer (&input->offsets);
  if (!prepare (w, options, error))
    return NULL;
  return g_steal_pointer (&w);
}

MpWorkload *
mp_workload_new (MpGraph *graph, const MpWorkloadOptions *options, GError **error)
{
  g_autoptr (MpWorkload) w = g_atomic_rc_box_new0 (MpWorkload);

  g_return_val_if_fail (graph != NULL, NULL);

  w->graph = graph;
  w->format = graph->has_ops ? MP_INPUT_GRAPH_JSON : MP_INPUT_USAGE_CSV;
  if (graph->path)
    w->path = g_strdup (graph->path);
  if (!prepare (w, options, error))
    return NULL;
  return g_steal_pointer (&w);
}

gboolean
mp_workload_judge (MpWorkload *workload, MpPlan *plan)
{
  return mp_plan_judge (workload->graph, workload->parallel, plan);
}

MpPlan *
mp_workload_plan (MpWorkload *workload, const MpPlannerInfo *info,
                  const MpPlannerOptions *options, GCancellable *cancellable, GError **error)
{
  MpPlannerOptions opts = { 0 };
  MpPlan          *plan;

  g_return_val_if_fail (workload != NULL && info != NULL, NULL);

  if (options)
    opts = *options;
  /* the groups a multistream plan is made for are the ones it is judged in */
  opts.max_parallel_ops = workload->max_parallel_ops;
  if (g_cancellable_set_error_if_cancelled (cancellable, error))
    return NULL;
  plan = mp_planner_run (info, workload->graph, workload->lifetimes, &opts, cancellable, error);
  if (plan == NULL)
    return NULL;
  mp_workload_judge (workload, plan);
  return plan;
}

void
mp_plan_run_free (MpPlanRun *run)
{
  if (run == NULL)
    return;
  /* the observed plan belongs to the workload */
  for (guint i = 0; i < run->plans->len; i++)
    if (run->plans->pdata[i] != run->workload->observed)
      mp_plan_free (run->plans->pdata[i]);
  g_ptr_array_unref (run->plans);
  g_ptr_array_unref (run->skipped);
  g_ptr_array_unref (run->reasons);
  mp_workload_unref (run->workload);
  g_free (run);
}

MpPlanRun *
mp_workload_run (MpWorkload *workload, const MpPlannerInfo * const *infos, guint n_infos,
                 const MpPlannerOptions *options, GCancellable *cancellable,
                 MpPlanRunProgress progress, gpointer progress_data, GError **error)
{
  g_autoptr (MpPlanRun) run = g_new0 (MpPlanRun, 1);

  run->workload = mp_workload_ref (workload);
  run->plans = g_ptr_array_new ();
  run->skipped = g_ptr_array_new ();
  run->reasons = g_ptr_array_new_with_free_func (g_free);
  run->all_valid = TRUE;
  if (workload->observed)
    {
      g_ptr_array_add (run->plans, workload->observed);
      run->all_valid &= workload->observed->valid;
    }
  for (guint i = 0; i < n_infos; i++)
    {
      g_autoptr (GError) local = NULL;
      MpPlan *plan;

      if (progress)
        progress (infos[i], i, n_infos, progress_data);
      plan = mp_workload_plan (workload, infos[i], options, cancellable, &local);
      if (plan == NULL)
        {
          if (g_error_matches (local, MP_ANALYSIS_ERROR, MP_ANALYSIS_ERROR_UNSUPPORTED))
            {
              g_ptr_array_add (run->skipped, (gpointer) infos[i]);
              g_ptr_array_add (run->reasons, g_strdup (local->message));
              continue;
            }
          if (g_error_matches (local, G_IO_ERROR, G_IO_ERROR_CANCELLED))
            g_propagate_error (error, g_steal_pointer (&local));
          else
            g_propagate_prefixed_error (error, g_steal_pointer (&local), "%s: ", infos[i]->name);
          return NULL;
        }
      run->all_valid &= plan->valid;
      g_ptr_array_add (run->plans, plan);
    }
  return g_steal_pointer (&run);
}

MpPlan *
mp_plan_run_find (const MpPlanRun *run, const char *planner)
{
  for (guint i = 0; i < run->plans->len; i++)
    if (g_str_equal (((MpPlan *) run->plans->pdata[i])->planner, planner))
      return run->plans->pdata[i];
  return NULL;
}
