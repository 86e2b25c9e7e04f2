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
  g_clear_pointer (&w->concurrent, mp_lifetimes_free);
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
      w->max_memory = options->max_memory;
    }
  if (!(w->lifetimes = mp_lifetimes_compute (w->graph, &lopts, error)))
    return FALSE;
  if (w->graph->has_ops && mp_graph_n_streams (w->graph) > 1)
    {
      w->parallel = mp_schedule_parallel (w->graph, w->max_parallel_ops);
      /* the streams run side by side: plan for that, unless told otherwise */
      if (!options || options->schedule != MP_PLAN_SCHEDULE_SEQUENTIAL)
        w->concurrent = mp_schedule_lifetimes (w->parallel, w->graph, w->lifetimes);
    }
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
  MpInput    *input;
  MpWorkload *w;
  guint64     limit = options ? options->max_memory : 0;
  guint64     estimate = 0;
  MpInputOptions input_options;

  g_return_val_if_fail (path != NULL, NULL);

  /* a file too big for the memory is refused before it is read */
  if (limit != G_MAXUINT64 && !mp_memory_check_load (path, limit, &estimate, error))
    return NULL;
  /* the ONNX reader bounds its unpacking by the same limit */
  if (options)
    {
      input_options = options->input;
      if (input_options.onnx.max_memory == 0 && limit != G_MAXUINT64)
        input_options.onnx.max_memory = limit;
      /* and the Chrome trace reader its fallbacks, which cost more */
      if (input_options.trace.max_memory == 0)
        input_options.trace.max_memory = limit;
    }
  if (!(input = mp_input_load (path, options ? &input_options : NULL, error)))
    return NULL;
  if ((w = mp_workload_new_from_input (input, options, error)))
    w->load_estimate = estimate;
  return w;
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
  /* multistream measures its groups itself; the others plan on them here */
  opts.concurrent = workload->concurrent && !(info->traits & MP_PLANNER_PARALLEL);
  if (g_cancellable_set_error_if_cancelled (cancellable, error))
    return NULL;
  plan = mp_planner_run (info, workload->graph,
                         opts.concurrent ? workload->concurrent : workload->lifetimes, &opts,
                         cancellable, error);
  if (plan == NULL)
    return NULL;
  mp_workload_judge (workload, plan);
  return plan;
}

gboolean
mp_workload_check_memory (MpWorkload *workload, const MpPlannerInfo * const *infos,
                          guint n_infos, GError **error)
{
  guint64          records = workload->lifetimes->n_records, estimate = 0;
  const MpGraph   *graph = workload->graph;
  g_autofree char *what = NULL;

  if (workload->max_memory == G_MAXUINT64)
    return TRUE;
  for (guint i = 0; i < n_infos; i++)
    estimate = MAX (estimate, mp_memory_estimate_plan (infos[i]->name, records));
  /* the plans are kept: an offset and a lifetime per record each */
  estimate += 24 * records * n_infos;
  /* under a limit, what loading took counts too; the memory available has
   * already lost it */
  if (workload->max_memory)
    estimate += workload->load_estimate;
  what = g_strdup_printf ("%s: planning %" G_GUINT64_FORMAT " records",
                          graph->path ? graph->path : graph->name, records);
  return mp_memory_check (what, estimate, workload->max_memory, error);
}

void
mp_plan_run_free (MpPlanRun *run)
{
  if (run == NULL)
    return;
  /* the observed plan belongs to the workload; a handle owns its plan */
  for (guint i = 0; i < run->plans->len; i++)
    if (run->handles && run->handles->pdata[i])
      run->handle_free (run->handles->pdata[i]);
    else if (run->plans->pdata[i] != run->workload->observed)
      mp_plan_free (run->plans->pdata[i]);
  g_ptr_array_unref (run->plans);
  g_clear_pointer (&run->handles, g_ptr_array_unref);
  g_ptr_array_unref (run->skipped);
  g_ptr_array_unref (run->reasons);
  g_ptr_array_unref (run->failed);
  g_ptr_array_unref (run->failures);
  mp_workload_unref (run->workload);
  g_free (run);
}

/* One planner's run, on a pool thread or the calling one. */
typedef struct
{
  const MpPlannerInfo *info;
  MpPlan              *plan;    /* the result, or NULL with error set */
  gpointer             handle;
  GError              *error;
  gboolean             queued;
  gboolean             done;
} Job;

typedef struct
{
  MpWorkload         *workload;
  const MpRunOptions *options;
  GCancellable       *cancellable; /* the pool's: cancelled on any failure too */
  GMutex              lock;
  GCond               cond;
} Pool;

static void
plan_job (MpWorkload *workload, const MpRunOptions *options, const MpPlannerOptions *popts,
          GCancellable *cancellable, Job *job)
{
  job->plan = mp_workload_plan (workload, job->info, popts, cancellable, &job->error);
  if (job->plan && options->plan_made)
    job->handle = options->plan_made (workload, job->plan, options->plan_made_data);
}

static void
pool_job (gpointer data, gpointer pool_data)
{
  Job              *job = data;
  Pool             *pool = pool_data;
  MpPlannerOptions  popts = pool->options->planner;

  popts.progress = NULL;
  plan_job (pool->workload, pool->options, &popts, pool->cancellable, job);
  g_mutex_lock (&pool->lock);
  job->done = TRUE;
  g_cond_broadcast (&pool->cond);
  g_mutex_unlock (&pool->lock);
}

static void
pool_wait (Pool *pool, Job *job)
{
  g_mutex_lock (&pool->lock);
  while (!job->done)
    g_cond_wait (&pool->cond, &pool->lock);
  g_mutex_unlock (&pool->lock);
}

static void
cancel_pool (GCancellable *cancellable, gpointer data)
{
  g_cancellable_cancel (data);
}

typedef struct
{
  const MpRunOptions *options;
  MpRunProgress       progress;
} SearchReport;

static void
report_search (const MpSearchProgress *search, gpointer data)
{
  SearchReport *r = data;

  r->progress.search = search;
  r->options->progress (&r->progress, r->options->progress_data);
  r->progress.search = NULL;
}

static void
tell (const MpRunOptions *options, MpRunEvent event, MpWorkload *workload, const Job *job,
      guint index, guint total)
{
  MpRunProgress p = { event, workload, job->info, index, total, job->plan, job->handle,
                      job->error, NULL };

  if (options->progress)
    options->progress (&p, options->progress_data);
}

/* Fills run in the order asked; FALSE with error on a failure that ends
 * it (what was made so far stays in run). */
static gboolean
run_planners (MpPlanRun *run, const MpPlannerInfo * const *infos, guint n_infos,
              const MpRunOptions *options, GCancellable *cancellable, GError **error)
{
  MpWorkload        *workload = run->workload;
  g_autofree Job    *jobs = g_new0 (Job, n_infos);
  g_autoptr (GCancellable) pool_cancellable = NULL;
  Pool               pool = { workload, options, NULL };
  GThreadPool       *threads = NULL;
  guint              n_threads = options->n_threads ? options->n_threads
                                                    : MAX (g_get_num_processors (), 1);
  guint              n_heuristics = 0;
  gulong             cancel_id = 0;
  gboolean           ok = TRUE;

  /* a lone heuristic runs here: a thread and a cancellable (GIO's types
   * registered) cost a small plan process more than its planning (issue 30) */
  for (guint i = 0; i < n_infos; i++)
    n_heuristics += !(infos[i]->traits & MP_PLANNER_SEARCHES);
  if (n_heuristics < 2)
    n_threads = 1;
  g_mutex_init (&pool.lock);
  g_cond_init (&pool.cond);
  if (n_threads > 1)
    {
      pool.cancellable = pool_cancellable = g_cancellable_new ();
      if (cancellable)
        cancel_id = g_cancellable_connect (cancellable, G_CALLBACK (cancel_pool),
                                           g_object_ref (pool_cancellable), g_object_unref);
    }
  for (guint i = 0; i < n_infos; i++)
    {
      jobs[i].info = infos[i];
      /* the heuristics side by side; a search stays here, where it reports */
      if (n_threads > 1 && !(infos[i]->traits & MP_PLANNER_SEARCHES))
        {
          if (threads == NULL)
            threads = g_thread_pool_new (pool_job, &pool, n_threads, FALSE, NULL);
          jobs[i].queued = TRUE;
          g_thread_pool_push (threads, &jobs[i], NULL);
        }
    }

  for (guint i = 0; i < n_infos && ok; i++)
    {
      Job *job = &jobs[i];

      if (g_cancellable_set_error_if_cancelled (cancellable, error))
        {
          ok = FALSE;
          break;
        }
      tell (options, MP_RUN_STARTED, workload, job, i, n_infos);
      if (job->queued)
        pool_wait (&pool, job);
      else
        {
          SearchReport     report = { options,
                                      { MP_RUN_SEARCHING, workload, infos[i], i, n_infos } };
          MpPlannerOptions popts = options->planner;

          popts.progress = options->progress ? report_search : NULL;
          popts.progress_data = &report;
          plan_job (workload, options, &popts, cancellable, job);
        }
      if (job->plan)
        {
          run->all_valid &= job->plan->valid;
          g_ptr_array_add (run->plans, job->plan);
          if (run->handles)
            g_ptr_array_add (run->handles, job->handle);
          tell (options, MP_RUN_DONE, workload, job, i, n_infos);
          /* the run's now */
          job->plan = NULL;
          job->handle = NULL;
        }
      else if (g_error_matches (job->error, MP_ANALYSIS_ERROR, MP_ANALYSIS_ERROR_UNSUPPORTED))
        {
          g_ptr_array_add (run->skipped, (gpointer) infos[i]);
          g_ptr_array_add (run->reasons, g_strdup (job->error->message));
          tell (options, MP_RUN_DONE, workload, job, i, n_infos);
        }
      else if (g_error_matches (job->error, G_IO_ERROR, G_IO_ERROR_CANCELLED) ||
               g_cancellable_is_cancelled (cancellable))
        {
          if (!g_cancellable_set_error_if_cancelled (cancellable, error))
            g_propagate_error (error, g_steal_pointer (&job->error));
          ok = FALSE;
        }
      else if (options->keep_going)
        {
          g_ptr_array_add (run->failed, (gpointer) infos[i]);
          g_ptr_array_add (run->failures, g_strdup (job->error->message));
          tell (options, MP_RUN_DONE, workload, job, i, n_infos);
        }
      else
        {
          g_propagate_prefixed_error (error, g_steal_pointer (&job->error), "%s: ",
                                      infos[i]->name);
          ok = FALSE;
        }
    }

  /* on a failure the planners still running stop; what they made goes */
  if (pool_cancellable)
    g_cancellable_cancel (pool_cancellable);
  if (threads)
    g_thread_pool_free (threads, FALSE, TRUE);
  g_cancellable_disconnect (cancellable, cancel_id);
  for (guint i = 0; i < n_infos; i++)
    {
      if (jobs[i].handle)
        options->handle_free (jobs[i].handle);
      else
        g_clear_pointer (&jobs[i].plan, mp_plan_free);
      g_clear_error (&jobs[i].error);
    }
  g_cond_clear (&pool.cond);
  g_mutex_clear (&pool.lock);
  return ok;
}

static MpPlanRun *
plan_run_new (MpWorkload *workload, const MpRunOptions *options)
{
  MpPlanRun *run = g_new0 (MpPlanRun, 1);

  run->workload = mp_workload_ref (workload);
  run->plans = g_ptr_array_new ();
  if (options->plan_made)
    {
      run->handles = g_ptr_array_new ();
      run->handle_free = options->handle_free;
    }
  run->skipped = g_ptr_array_new ();
  run->reasons = g_ptr_array_new_with_free_func (g_free);
  run->failed = g_ptr_array_new ();
  run->failures = g_ptr_array_new_with_free_func (g_free);
  run->all_valid = TRUE;
  if (workload->observed)
    {
      g_ptr_array_add (run->plans, workload->observed);
      if (run->handles)
        g_ptr_array_add (run->handles, NULL);
      run->all_valid &= workload->observed->valid;
    }
  return run;
}

MpPlanRun *
mp_workload_run (MpWorkload *workload, const MpPlannerInfo * const *infos, guint n_infos,
                 const MpRunOptions *options, GCancellable *cancellable, GError **error)
{
  static const MpRunOptions defaults = { .n_threads = 1 };
  g_autoptr (MpPlanRun) run = NULL;

  g_return_val_if_fail (workload != NULL && (infos != NULL || n_infos == 0), NULL);
  g_return_val_if_fail (options == NULL || options->plan_made == NULL ||
                        options->handle_free != NULL, NULL);

  if (options == NULL)
    options = &defaults;
  if (!mp_workload_check_memory (workload, infos, n_infos, error))
    return NULL;
  run = plan_run_new (workload, options);
  if (!run_planners (run, infos, n_infos, options, cancellable, error))
    return NULL;
  return g_steal_pointer (&run);
}

/* The asynchronous run: the progress goes to the caller's context; the
 * task keeps the run (even a failed one) alive until every report queued
 * there, which may point into it, has been dispatched. */
typedef struct
{
  MpWorkload           *workload;
  const MpPlannerInfo **infos;
  guint                 n_infos;
  MpRunOptions          options;   /* progress: the thread's trampoline */
  MpRunProgressFunc     progress;  /* the caller's */
  gpointer              progress_data;
  GMainContext         *context;
  MpPlanRun            *run;
} AsyncRun;

typedef struct
{
  GTask           *task;
  MpRunProgress    progress;
  MpSearchProgress search;
  GError          *error;
} AsyncReport;

static void
async_run_free (gpointer data)
{
  AsyncRun *a = data;

  g_clear_pointer (&a->run, mp_plan_run_free);
  mp_workload_unref (a->workload);
  g_free (a->infos);
  g_main_context_unref (a->context);
  g_free (a);
}

static gboolean
async_report_dispatch (gpointer data)
{
  AsyncReport *r = data;
  AsyncRun    *a = g_task_get_task_data (r->task);

  a->progress (&r->progress, a->progress_data);
  return G_SOURCE_REMOVE;
}

static void
async_report_free (gpointer data)
{
  AsyncReport *r = data;

  g_object_unref (r->task);
  g_clear_error (&r->error);
  g_free (r);
}

static void
async_report (const MpRunProgress *progress, gpointer data)
{
  GTask       *task = data;
  AsyncRun    *a = g_task_get_task_data (task);
  AsyncReport *r = g_new0 (AsyncReport, 1);
  GSource     *source;

  r->task = g_object_ref (task);
  r->progress = *progress;
  /* copies of what lives only during the call */
  if (progress->search)
    {
      r->search = *progress->search;
      r->progress.search = &r->search;
    }
  if (progress->error)
    r->progress.error = r->error = g_error_copy (progress->error);
  /* an idle on the caller's context, after which the task's result comes */
  source = g_idle_source_new ();
  g_source_set_priority (source, G_PRIORITY_DEFAULT);
  g_source_set_callback (source, async_report_dispatch, r, async_report_free);
  g_source_attach (source, a->context);
  g_source_unref (source);
}

static void
async_run_thread (GTask *task, gpointer source, gpointer task_data, GCancellable *cancellable)
{
  AsyncRun *a = task_data;
  GError   *error = NULL;

  if (!mp_workload_check_memory (a->workload, a->infos, a->n_infos, &error))
    {
      g_task_return_error (task, error);
      return;
    }
  a->run = plan_run_new (a->workload, &a->options);
  if (!run_planners (a->run, a->infos, a->n_infos, &a->options, cancellable, &error))
    g_task_return_error (task, error);
  else
    g_task_return_boolean (task, TRUE);
}

void
mp_workload_run_async (MpWorkload *workload, const MpPlannerInfo * const *infos, guint n_infos,
                       const MpRunOptions *options, GCancellable *cancellable,
                       GAsyncReadyCallback callback, gpointer user_data)
{
  g_autoptr (GTask) task = NULL;
  AsyncRun *a;

  g_return_if_fail (workload != NULL && (infos != NULL || n_infos == 0));

  task = g_task_new (NULL, cancellable, callback, user_data);
  a = g_new0 (AsyncRun, 1);
  a->workload = mp_workload_ref (workload);
  a->infos = g_memdup2 (infos, sizeof (infos[0]) * MAX (n_infos, 1));
  a->n_infos = n_infos;
  a->options = options ? *options : (MpRunOptions) { .n_threads = 1 };
  a->progress = a->options.progress;
  a->progress_data = a->options.progress_data;
  if (a->progress)
    {
      a->options.progress = async_report;
      a->options.progress_data = task;
    }
  a->context = g_main_context_ref_thread_default ();
  g_task_set_source_tag (task, mp_workload_run_async);
  g_task_set_task_data (task, a, async_run_free);
  /* a result that arrives after cancel must not replace newer work */
  g_task_set_return_on_cancel (task, FALSE);
  g_task_run_in_thread (task, async_run_thread);
}

MpPlanRun *
mp_workload_run_finish (GAsyncResult *result, GError **error)
{
  AsyncRun *a;

  g_return_val_if_fail (g_task_is_valid (result, NULL), NULL);
  if (!g_task_propagate_boolean (G_TASK (result), error))
    return NULL;
  a = g_task_get_task_data (G_TASK (result));
  return g_steal_pointer (&a->run);
}

MpPlan *
mp_plan_run_find (const MpPlanRun *run, const char *planner)
{
  for (guint i = 0; i < run->plans->len; i++)
    if (g_str_equal (((MpPlan *) run->plans->pdata[i])->planner, planner))
      return run->plans->pdata[i];
  return NULL;
}
