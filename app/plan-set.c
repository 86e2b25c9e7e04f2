/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "memplan"

#include "plan-set.h"
#include "plan-render.h"

/* The workload, shared by every plan set derived from one load. */
typedef struct
{
  MpWorkload *workload;
  gpointer    observed; /* a PlanBox (atomic rc): what the allocator of a trace did, or NULL */
} Loaded;

struct _MpPlanSet
{
  Loaded    *loaded;   /* atomic rc box */
  GPtrArray *plans;    /* atomic rc boxes holding a PlanBox, in table order */
  GStrv      skipped;
  char      *path;
  gdouble    seconds;
};

G_DEFINE_BOXED_TYPE (MpPlanSet, mp_plan_set, mp_plan_set_ref, mp_plan_set_unref)

/* A plan and its drawing index, both built in the planning thread so the
 * UI thread only shows them. */
typedef struct
{
  MpPlan        *plan;
  MpRenderIndex *index;
} PlanBox;

static void plan_box_release (gpointer data);

static void
loaded_clear (gpointer data)
{
  Loaded *loaded = data;

  /* the observed plan's index points into the graph: it goes first */
  g_clear_pointer (&loaded->observed, plan_box_release);
  g_clear_pointer (&loaded->workload, mp_workload_unref);
}

static void
plan_box_clear (gpointer data)
{
  PlanBox *box = data;

  g_clear_pointer (&box->index, mp_render_index_free);
  g_clear_pointer (&box->plan, mp_plan_free);
}

static void
plan_box_release (gpointer data)
{
  g_atomic_rc_box_release_full (data, plan_box_clear);
}

MpPlanSet *
mp_plan_set_ref (MpPlanSet *set)
{
  return g_atomic_rc_box_acquire (set);
}

static void
plan_set_clear (gpointer data)
{
  MpPlanSet *set = data;

  /* the plans' indices point into the graph: they go first */
  g_ptr_array_unref (set->plans);
  g_atomic_rc_box_release_full (set->loaded, loaded_clear);
  g_strfreev (set->skipped);
  g_free (set->path);
}

void
mp_plan_set_unref (MpPlanSet *set)
{
  g_atomic_rc_box_release_full (set, plan_set_clear);
}

MpWorkload *
mp_plan_set_get_workload (MpPlanSet *set)
{
  return set->loaded->workload;
}

const MpGraph *
mp_plan_set_get_graph (MpPlanSet *set)
{
  return set->loaded->workload->graph;
}

const MpLifetimes *
mp_plan_set_get_lifetimes (MpPlanSet *set)
{
  return set->loaded->workload->lifetimes;
}

const char *
mp_plan_set_get_path (MpPlanSet *set)
{
  return set->path;
}

guint
mp_plan_set_get_n_plans (MpPlanSet *set)
{
  return set->plans->len;
}

MpPlan *
mp_plan_set_get_plan (MpPlanSet *set, guint index)
{
  g_return_val_if_fail (index < set->plans->len, NULL);
  return ((PlanBox *) set->plans->pdata[index])->plan;
}

MpRenderIndex *
mp_plan_set_get_index (MpPlanSet *set, guint index)
{
  g_return_val_if_fail (index < set->plans->len, NULL);
  return ((PlanBox *) set->plans->pdata[index])->index;
}

MpRenderIndex *
mp_plan_set_find_index (MpPlanSet *set, const MpPlan *plan)
{
  for (guint i = 0; i < set->plans->len; i++)
    if (mp_plan_set_get_plan (set, i) == plan)
      return mp_plan_set_get_index (set, i);
  return NULL;
}

MpPlan *
mp_plan_set_find_plan (MpPlanSet *set, const char *planner)
{
  for (guint i = 0; i < set->plans->len; i++)
    if (g_str_equal (mp_plan_set_get_plan (set, i)->planner, planner))
      return mp_plan_set_get_plan (set, i);
  return NULL;
}

const char * const *
mp_plan_set_get_skipped (MpPlanSet *set)
{
  return (const char * const *) set->skipped;
}

gdouble
mp_plan_set_get_seconds (MpPlanSet *set)
{
  return set->seconds;
}

static gpointer
find_box (MpPlanSet *base, const char *planner)
{
  if (base == NULL)
    return NULL;
  for (guint i = 0; i < base->plans->len; i++)
    if (g_str_equal (mp_plan_set_get_plan (base, i)->planner, planner))
      return base->plans->pdata[i];
  return NULL;
}

/* The plans so far, sharing the graph and the plans themselves. */
static MpPlanSet *
snapshot (MpPlanSet *set, gint64 start)
{
  MpPlanSet *copy = g_atomic_rc_box_new0 (MpPlanSet);

  copy->loaded = g_atomic_rc_box_acquire (set->loaded);
  copy->plans = g_ptr_array_new_with_free_func (plan_box_release);
  for (guint i = 0; i < set->plans->len; i++)
    g_ptr_array_add (copy->plans, g_atomic_rc_box_acquire (set->plans->pdata[i]));
  copy->skipped = g_new0 (char *, 1);
  copy->path = g_strdup (set->path);
  copy->seconds = (g_get_monotonic_time () - start) / 1e6;
  return copy;
}

MpPlanSet *
mp_plan_set_drop (MpPlanSet *set, const char *planner)
{
  MpPlanSet *copy = snapshot (set, g_get_monotonic_time ());

  for (guint i = 0; i < copy->plans->len; i++)
    if (g_str_equal (mp_plan_set_get_plan (copy, i)->planner, planner))
      g_ptr_array_remove_index (copy->plans, i--);
  copy->seconds = set->seconds;
  return copy;
}

MpPlanSet *
mp_plan_set_build (const char *path, MpPlanSet *base, const char * const *planners,
                   const MpPlanSetOptions *options, GCancellable *cancellable, GError **error)
{
  return mp_plan_set_build_full (path, base, planners, options, cancellable, NULL, NULL, error);
}

/* The exact search's progress line, passed on as the running planner's
 * detail so the window can show its incumbent improving. */
typedef struct
{
  MpPlanSetProgress report;
  gpointer          report_data;
  const char       *planner;
  guint             index;
  guint             total;
} SearchProgress;

static void
search_progress (const char *line, gpointer data)
{
  SearchProgress *sp = data;

  sp->report (sp->planner, sp->index, sp->total, line, NULL, sp->report_data);
}

/* One planner's run in the pool: the heuristics run side by side, one per
 * core, while the build thread shows their plans in table order. */
typedef struct
{
  const MpPlannerInfo *info;
  MpWorkload          *workload;
  GCancellable        *cancellable;
  PlanBox             *box;   /* the result, or NULL with error set */
  GError              *error;
  gboolean             done;
} Job;

typedef struct
{
  GMutex lock;
  GCond  cond;
} Jobs;

static PlanBox *
plan_in_box (MpWorkload *workload, const MpPlannerInfo *info, const MpPlannerOptions *options,
             GCancellable *cancellable, GError **error)
{
  MpPlan  *plan = mp_workload_plan (workload, info, options, cancellable, error);
  PlanBox *box;

  if (plan == NULL)
    return NULL;
  box = g_atomic_rc_box_new0 (PlanBox);
  box->plan = plan;
  box->index = mp_render_index_new (workload->graph, plan);
  return box;
}

static void
run_job (gpointer data, gpointer pool_data)
{
  Job  *job = data;
  Jobs *jobs = pool_data;

  job->box = plan_in_box (job->workload, job->info, NULL, job->cancellable, &job->error);
  g_mutex_lock (&jobs->lock);
  job->done = TRUE;
  g_cond_broadcast (&jobs->cond);
  g_mutex_unlock (&jobs->lock);
}

static void
wait_job (Jobs *jobs, Job *job)
{
  g_mutex_lock (&jobs->lock);
  while (!job->done)
    g_cond_wait (&jobs->cond, &jobs->lock);
  g_mutex_unlock (&jobs->lock);
}

static void
cancel_jobs (GCancellable *cancellable, gpointer data)
{
  g_cancellable_cancel (data);
}

MpPlanSet *
mp_plan_set_build_full (const char *path, MpPlanSet *base, const char * const *planners,
                        const MpPlanSetOptions *options, GCancellable *cancellable,
                        MpPlanSetProgress report, gpointer report_data, GError **error)
{
  g_autoptr (MpPlanSet) set = g_atomic_rc_box_new0 (MpPlanSet);
  g_autoptr (GStrvBuilder) skipped = g_strv_builder_new ();
  guint            total = 0, index = 0;
  MpPlannerOptions popts = { .time_budget = options ? options->time_budget : 0 };
  SearchProgress   sp = { report, report_data };
  /* lenient: the window keeps its bindings from one file to the next */
  MpWorkloadOptions wopts = { .input.onnx.dims = options ? options->dims : NULL,
                              .input.onnx.lenient_dims = TRUE };
  gint64           start = g_get_monotonic_time ();
  guint            n_infos;
  const MpPlannerInfo *infos = mp_planners (&n_infos);
  g_autofree Job  *job = g_new0 (Job, n_infos);
  g_autoptr (GCancellable) jobs_cancellable = g_cancellable_new ();
  Jobs             jobs;
  GThreadPool     *pool = NULL;
  gulong           cancel_id = 0;
  MpWorkload      *workload;
  gboolean         ok = FALSE;

  g_return_val_if_fail ((path == NULL) != (base == NULL), NULL);

  set->plans = g_ptr_array_new_with_free_func (plan_box_release);
  if (base != NULL)
    {
      set->loaded = g_atomic_rc_box_acquire (base->loaded);
      set->path = g_strdup (base->path);
    }
  else
    {
      Loaded *loaded = g_atomic_rc_box_new0 (Loaded);

      set->loaded = loaded;
      set->path = g_strdup (path);
      if (report)
        report (NULL, 0, 0, NULL, NULL, report_data);
      if (!(loaded->workload = mp_workload_open (path, &wopts, error)))
        return NULL;
      if (loaded->workload->observed)
        {
          /* an allocator trace: what the allocator did, next to the planners */
          PlanBox *box = g_atomic_rc_box_new0 (PlanBox);

          box->plan = g_steal_pointer (&loaded->workload->observed);
          box->index = mp_render_index_new (loaded->workload->graph, box->plan);
          mp_render_index_set_segments (box->index, loaded->workload->trace);
          loaded->observed = box;
        }
    }
  workload = set->loaded->workload;
  /* the allocator's own layout comes first, next to the planners */
  if (set->loaded->observed)
    g_ptr_array_add (set->plans, g_atomic_rc_box_acquire (set->loaded->observed));

  /* The planners that are quick go to a pool, one thread per core; a search
   * that runs for its budget stays on this thread, where it reports. */
  g_mutex_init (&jobs.lock);
  g_cond_init (&jobs.cond);
  if (cancellable)
    cancel_id = g_cancellable_connect (cancellable, G_CALLBACK (cancel_jobs),
                                       g_object_ref (jobs_cancellable), g_object_unref);
  for (guint i = 0; i < n_infos; i++)
    {
      if (!g_strv_contains (planners, infos[i].name) || find_box (base, infos[i].name))
        continue;
      total++;
      if (infos[i].searches)
        continue;
      job[i] = (Job) { &infos[i], workload, jobs_cancellable };
      if (pool == NULL)
        pool = g_thread_pool_new (run_job, &jobs, MAX (g_get_num_processors (), 1), FALSE, NULL);
      g_thread_pool_push (pool, &job[i], NULL);
    }

  /* Table order, so panes and rows keep a stable order whatever the toggles. */
  for (guint i = 0; i < n_infos; i++)
    {
      g_autoptr (GError) local_error = NULL;
      gpointer           box;
      PlanBox           *plan_box;

      if (!g_strv_contains (planners, infos[i].name))
        continue;
      if ((box = find_box (base, infos[i].name)))
        {
          g_ptr_array_add (set->plans, g_atomic_rc_box_acquire (box));
          continue;
        }
      if (g_cancellable_set_error_if_cancelled (cancellable, error))
        goto out;
      if (report)
        {
          g_autoptr (MpPlanSet) partial = set->plans->len ? snapshot (set, start) : NULL;

          sp.planner = infos[i].name;
          sp.index = index;
          sp.total = total;
          popts.progress = search_progress;
          popts.progress_data = &sp;
          report (infos[i].name, index++, total, NULL, partial, report_data);
        }
      if (job[i].info)
        {
          wait_job (&jobs, &job[i]);
          plan_box = g_steal_pointer (&job[i].box);
          local_error = g_steal_pointer (&job[i].error);
        }
      else
        plan_box = plan_in_box (workload, &infos[i], &popts, cancellable, &local_error);
      if (plan_box == NULL)
        {
          if (g_error_matches (local_error, MP_ANALYSIS_ERROR, MP_ANALYSIS_ERROR_UNSUPPORTED))
            {
              g_strv_builder_add (skipped, local_error->message);
              continue;
            }
          if (!g_cancellable_set_error_if_cancelled (cancellable, error))
            g_propagate_prefixed_error (error, g_steal_pointer (&local_error), "%s: ",
                                        infos[i].name);
          goto out;
        }
      g_ptr_array_add (set->plans, plan_box);
    }
  set->skipped = g_strv_builder_end (skipped);
  set->seconds = (g_get_monotonic_time () - start) / 1e6;
  ok = TRUE;

out:
  /* on a failure the planners still running stop; what they made goes */
  g_cancellable_cancel (jobs_cancellable);
  if (pool)
    g_thread_pool_free (pool, FALSE, TRUE);
  g_cancellable_disconnect (cancellable, cancel_id);
  for (guint i = 0; i < n_infos; i++)
    {
      g_clear_pointer (&job[i].box, plan_box_release);
      g_clear_error (&job[i].error);
    }
  g_cond_clear (&jobs.cond);
  g_mutex_clear (&jobs.lock);
  return ok ? g_steal_pointer (&set) : NULL;
}

typedef struct
{
  char              *path;
  MpPlanSet         *base;
  GStrv              planners;
  MpPlanSetOptions   options;
  GStrv              dims;       /* options.dims, owned */
  GMainContext      *context;
  MpPlanSetProgress  progress;
  gpointer           progress_data;
  GDestroyNotify     progress_destroy;
} BuildData;

typedef struct
{
  BuildData *bd;   /* kept alive by the task, which outlives its queued reports */
  GTask     *task;
  char      *planner;
  guint      index;
  guint      total;
  char      *detail;
  MpPlanSet *partial;
} Report;

static gboolean
report_dispatch (gpointer data)
{
  Report *r = data;

  r->bd->progress (r->planner, r->index, r->total, r->detail, r->partial,
                   r->bd->progress_data);
  return G_SOURCE_REMOVE;
}

static void
report_free (gpointer data)
{
  Report *r = data;

  g_object_unref (r->task);
  g_clear_pointer (&r->partial, mp_plan_set_unref);
  g_free (r->planner);
  g_free (r->detail);
  g_free (r);
}

static gboolean
destroy_dispatch (gpointer data)
{
  return G_SOURCE_REMOVE;
}

static void
build_data_free (gpointer data)
{
  BuildData *bd = data;

  g_free (bd->path);
  g_clear_pointer (&bd->base, mp_plan_set_unref);
  g_strfreev (bd->planners);
  g_strfreev (bd->dims);
  /* The worker may drop the task's last reference, so this can run on its
   * thread: the progress data (a window, say) is released on the caller's
   * context, after any report still queued there. */
  if (bd->progress_destroy)
    {
      GSource *source = g_idle_source_new ();

      g_source_set_priority (source, G_PRIORITY_DEFAULT);
      g_source_set_callback (source, destroy_dispatch, bd->progress_data, bd->progress_destroy);
      g_source_attach (source, bd->context);
      g_source_unref (source);
    }
  g_main_context_unref (bd->context);
  g_free (bd);
}

static void
report_in_thread (const char *planner, guint index, guint total, const char *detail,
                  MpPlanSet *partial, gpointer data)
{
  GTask   *task = data;
  Report  *r = g_new0 (Report, 1);
  GSource *source;

  r->bd = g_task_get_task_data (task);
  r->task = g_object_ref (task);
  r->planner = g_strdup (planner);
  r->index = index;
  r->total = total;
  r->detail = g_strdup (detail);
  r->partial = partial ? mp_plan_set_ref (partial) : NULL;
  /* always an idle on the caller's context: g_main_context_invoke could run
   * it right here, in the worker thread, when the context is free */
  source = g_idle_source_new ();
  g_source_set_priority (source, G_PRIORITY_DEFAULT);
  g_source_set_callback (source, report_dispatch, r, report_free);
  g_source_attach (source, r->bd->context);
  g_source_unref (source);
}

static void
build_thread (GTask *task, gpointer source, gpointer task_data, GCancellable *cancellable)
{
  BuildData *bd = task_data;
  GError    *error = NULL;
  MpPlanSet *set;

  set = mp_plan_set_build_full (bd->path, bd->base, (const char * const *) bd->planners,
                                &bd->options, cancellable,
                                bd->progress ? report_in_thread : NULL, task, &error);
  if (set == NULL)
    g_task_return_error (task, error);
  else
    g_task_return_pointer (task, set, (GDestroyNotify) mp_plan_set_unref);
}

void
mp_plan_set_build_async (const char *path, MpPlanSet *base, const char * const *planners,
                         const MpPlanSetOptions *options, GCancellable *cancellable,
                         MpPlanSetProgress progress, gpointer progress_data, GDestroyNotify progress_destroy,
                         GAsyncReadyCallback callback, gpointer user_data)
{
  g_autoptr (GTask) task = g_task_new (NULL, cancellable, callback, user_data);
  BuildData *bd = g_new0 (BuildData, 1);

  bd->path = g_strdup (path);
  bd->base = base ? mp_plan_set_ref (base) : NULL;
  bd->planners = g_strdupv ((char **) planners);
  if (options)
    bd->options = *options;
  bd->dims = g_strdupv ((char **) bd->options.dims);
  bd->options.dims = (const char * const *) bd->dims;
  bd->context = g_main_context_ref_thread_default ();
  bd->progress = progress;
  bd->progress_data = progress_data;
  bd->progress_destroy = progress_destroy;
  g_task_set_source_tag (task, mp_plan_set_build_async);
  g_task_set_task_data (task, bd, build_data_free);
  /* A result that arrives after cancel must not replace newer work. */
  g_task_set_return_on_cancel (task, FALSE);
  g_task_run_in_thread (task, build_thread);
}

MpPlanSet *
mp_plan_set_build_finish (GAsyncResult *result, GError **error)
{
  g_return_val_if_fail (g_task_is_valid (result, NULL), NULL);
  return g_task_propagate_pointer (G_TASK (result), error);
}
