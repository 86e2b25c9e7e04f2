/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "memplan"

#include <time.h>

#include "plan-set.h"
#include "memplan-render.h"

/* CPU seconds of the calling thread, for the open's debug figures. */
static gdouble
thread_cpu_seconds (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_THREAD_CPUTIME_ID, &ts);
  return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* The workload, shared by every plan set derived from one load. */
typedef struct
{
  MpWorkload *workload;
  gpointer    observed; /* a PlanBox (atomic rc): what the allocator of a trace did, or NULL */
  /* a trace's figures per op and per module (MpTraceOpUse), made once
   * while loading: on a 2M-action snapshot they take seconds */
  GArray     *by_op;
  GArray     *by_module;
} Loaded;

struct _MpPlanSet
{
  Loaded    *loaded;   /* atomic rc box */
  GPtrArray *plans;    /* atomic rc boxes holding a PlanBox, in table order */
  GStrv      skipped;
  char      *path;
  gdouble    seconds;
  GPtrArray *memory_plans; /* PlanBox per declared memory (the best plan's planner), or NULL */
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
  g_clear_pointer (&loaded->by_op, g_array_unref);
  g_clear_pointer (&loaded->by_module, g_array_unref);
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
  g_clear_pointer (&set->memory_plans, g_ptr_array_unref);
  g_atomic_rc_box_release_full (set->loaded, loaded_clear);
  g_strfreev (set->skipped);
  g_free (set->path);
}

void
mp_plan_set_unref (MpPlanSet *set)
{
  g_atomic_rc_box_release_full (set, plan_set_clear);
}

GArray *
mp_plan_set_get_by_op (MpPlanSet *set, gboolean per_module)
{
  return per_module ? set->loaded->by_module : set->loaded->by_op;
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
  MpWorkload *w = set->loaded->workload;

  /* the step axis is the one the plans were made for */
  return w->concurrent ? w->concurrent : w->lifetimes;
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
  if (set->memory_plans)
    copy->memory_plans = g_ptr_array_ref (set->memory_plans);
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

/* What the engine's run tells, passed on with the plans made so far. */
typedef struct
{
  MpPlanSet        *set;
  MpPlanSet        *base;
  const char * const *planners;
  MpPlanSetProgress report;
  gpointer          report_data;
  GPtrArray        *made;    /* PlanBox *, the new plans so far (references) */
  gint64            start;
  GThread          *first_view; /* a load's observed index and by-op figures, or NULL */
} Building;

/* Waits for the first view's thread: from then on loaded is complete. */
static void
join_first_view (Building *b)
{
  if (b->first_view)
    g_thread_join (g_steal_pointer (&b->first_view));
}

/* The set's plans in table order: the allocator's own layout first, then
 * each planner's, base's where it had one. */
static void
assemble (MpPlanSet *set, MpPlanSet *base, const char * const *planners, GPtrArray *made)
{
  guint                n_infos;
  const MpPlannerInfo *infos = mp_planners (&n_infos);

  g_ptr_array_set_size (set->plans, 0);
  if (set->loaded->observed)
    g_ptr_array_add (set->plans, g_atomic_rc_box_acquire (set->loaded->observed));
  for (guint i = 0; i < n_infos; i++)
    {
      gpointer box = NULL;

      if (!g_strv_contains (planners, infos[i].name))
        continue;
      if (!(box = find_box (base, infos[i].name)))
        for (guint k = 0; k < made->len && box == NULL; k++)
          if (mp_planner_lookup (((PlanBox *) made->pdata[k])->plan->planner) == &infos[i])
            box = made->pdata[k];
      if (box)
        g_ptr_array_add (set->plans, g_atomic_rc_box_acquire (box));
    }
}

static void
building_progress (const MpRunProgress *progress, gpointer data)
{
  Building *b = data;

  if (progress->event == MP_RUN_DONE)
    {
      if (progress->handle)
        g_ptr_array_add (b->made, g_atomic_rc_box_acquire (progress->handle));
      return;
    }
  if (progress->event == MP_RUN_STARTED)
    {
      g_autoptr (MpPlanSet) partial = NULL;

      /* nothing new yet: the first view's thread shows the observed plan */
      if (b->made->len == 0 && b->first_view)
        {
          b->report (progress->planner->name, progress->index, progress->total, NULL, NULL,
                     b->report_data);
          return;
        }
      join_first_view (b);
      assemble (b->set, b->base, b->planners, b->made);
      if (b->set->plans->len)
        partial = snapshot (b->set, b->start);
      b->report (progress->planner->name, progress->index, progress->total, NULL, partial,
                 b->report_data);
      return;
    }
  b->report (progress->planner->name, progress->index, progress->total, progress->search, NULL,
             b->report_data);
}

/* On the planner's thread: the plan's drawing index, built beside it. */
static gpointer
box_plan (MpWorkload *workload, MpPlan *plan, gpointer data)
{
  PlanBox *box = g_atomic_rc_box_new0 (PlanBox);

  box->plan = plan;
  box->index = mp_render_index_new (workload->graph, plan);
  /* the panes of a big plan draw at the cost of their pixels; a new scale
   * is made on a thread, the last one stretched meanwhile */
  mp_render_index_set_summary (box->index, TRUE);
  mp_render_index_set_summary_async (box->index, TRUE);
  return box;
}

/* A graph that declares memories: the best plan's planner spilled over
 * them, one PlanBox per memory (its plan and an index marking capacity and
 * spills), fastest first. */
static gboolean
spill_panes (MpPlanSet *set, GCancellable *cancellable, GError **error)
{
  MpWorkload         *w = set->loaded->workload;
  g_autoptr (GPtrArray) plans = g_ptr_array_new ();
  g_autoptr (MpSpill) spill = NULL;
  MpPlannerOptions    options = { 0 };
  gint                best;

  if (w->graph->n_memories == 0 || set->plans->len == 0)
    return TRUE;
  for (guint i = 0; i < set->plans->len; i++)
    if (mp_planner_lookup (mp_plan_set_get_plan (set, i)->planner))
      g_ptr_array_add (plans, mp_plan_set_get_plan (set, i));
  if ((best = mp_plans_best ((MpPlan * const *) plans->pdata, plans->len)) < 0)
    return TRUE;
  if (!(spill = mp_spill_plan (w->graph, w->lifetimes,
                               mp_planner_lookup (((MpPlan *) plans->pdata[best])->planner),
                               w->graph->memories, w->graph->n_memories, &options, cancellable,
                               error)))
    return FALSE;
  set->memory_plans = g_ptr_array_new_with_free_func (plan_box_release);
  for (guint k = 0; k < spill->n_memories; k++)
    {
      g_autoptr (GArray) moved = g_array_new (FALSE, FALSE, sizeof (guint));
      PlanBox *box = g_atomic_rc_box_new0 (PlanBox);

      box->plan = g_steal_pointer (&spill->plans[k]);
      if (box->plan == NULL)
        box->plan = mp_plan_new_records (((MpPlan *) plans->pdata[best])->planner, NULL, 0,
                                         w->lifetimes->n_steps, w->lifetimes->alignment);
      mp_workload_judge (w, box->plan);
      for (guint i = 0; i < spill->n_records; i++)
        if (spill->memory_of[i] == k && spill->spilled[i])
          g_array_append_val (moved, w->lifetimes->records[i].tensor);
      box->index = mp_render_index_new (w->graph, box->plan);
      mp_render_index_set_memory (box->index, spill->memories[k].name,
                                  spill->memories[k].capacity,
                                  (const guint *) (void *) moved->data, moved->len);
      g_ptr_array_add (set->memory_plans, box);
    }
  return TRUE;
}

guint
mp_plan_set_get_n_memories (MpPlanSet *set)
{
  return set->memory_plans ? set->memory_plans->len : 0;
}

MpPlan *
mp_plan_set_get_memory_plan (MpPlanSet *set, guint memory)
{
  g_return_val_if_fail (memory < mp_plan_set_get_n_memories (set), NULL);
  return ((PlanBox *) set->memory_plans->pdata[memory])->plan;
}

MpRenderIndex *
mp_plan_set_get_memory_index (MpPlanSet *set, guint memory)
{
  g_return_val_if_fail (memory < mp_plan_set_get_n_memories (set), NULL);
  return ((PlanBox *) set->memory_plans->pdata[memory])->index;
}

/* What a user of a snapshot viewer wants first is what happened: the
 * observed plan's drawing index and the by-op figures are made on a
 * thread of their own while the planners run on the other core, and the
 * observed pane is shown (reported) as soon as they are ready. */
typedef struct
{
  Building *building;
  Loaded   *loaded;
  MpPlan   *observed; /* taken from the workload before the planners run */
  char     *path;
} FirstView;

static gpointer
first_view_thread (gpointer data)
{
  FirstView *fv = data;
  Loaded    *loaded = fv->loaded;
  MpWorkload *w = loaded->workload;

  if (fv->observed)
    {
      PlanBox *box = g_atomic_rc_box_new0 (PlanBox);

      box->plan = g_steal_pointer (&fv->observed);
      box->index = mp_render_index_new (w->graph, box->plan);
      mp_render_index_set_summary (box->index, TRUE);
      mp_render_index_set_summary_async (box->index, TRUE);
      mp_render_index_set_segments (box->index, w->trace);
      loaded->observed = box;
    }
  if (w->trace)
    {
      loaded->by_op = mp_trace_by_op (w->trace);
      if (mp_trace_has_modules (w->trace))
        loaded->by_module = mp_trace_by_module (w->trace);
    }
  g_debug ("first view (observed index, by-op) ready %.2f s after the open request, "
           "%.2f s of CPU on its thread",
           (g_get_monotonic_time () - fv->building->start) / 1e6, thread_cpu_seconds ());
  if (fv->building->report && loaded->observed)
    {
      g_autoptr (MpPlanSet) partial = g_atomic_rc_box_new0 (MpPlanSet);

      partial->loaded = g_atomic_rc_box_acquire (loaded);
      partial->plans = g_ptr_array_new_with_free_func (plan_box_release);
      g_ptr_array_add (partial->plans, g_atomic_rc_box_acquire (loaded->observed));
      partial->skipped = g_new0 (char *, 1);
      partial->path = g_strdup (fv->path);
      partial->seconds = (g_get_monotonic_time () - fv->building->start) / 1e6;
      fv->building->report (NULL, 0, 0, NULL, partial, fv->building->report_data);
    }
  g_free (fv->path);
  g_free (fv);
  return NULL;
}

MpPlanSet *
mp_plan_set_build_full (const char *path, MpPlanSet *base, const char * const *planners,
                        const MpPlanSetOptions *options, GCancellable *cancellable,
                        MpPlanSetProgress report, gpointer report_data, GError **error)
{
  g_autoptr (MpPlanSet) set = g_atomic_rc_box_new0 (MpPlanSet);
  g_autoptr (GPtrArray) infos = g_ptr_array_new ();
  g_autoptr (GPtrArray) made = g_ptr_array_new_with_free_func (plan_box_release);
  g_autoptr (MpPlanRun) run = NULL;
  g_autoptr (GError) local = NULL;
  /* lenient: the window keeps its bindings from one file to the next */
  MpWorkloadOptions wopts = { .input.onnx.dims = options ? options->dims : NULL,
                               .input.onnx.lenient_dims = TRUE,
                               .order = options ? options->order : MP_ORDER_GIVEN,
                               .schedule = options ? options->schedule : MP_PLAN_SCHEDULE_AUTO };
  /* the quick planners side by side, one thread per core */
  MpRunOptions     ropts = { .planner.time_budget = options ? options->time_budget : 0,
                             .n_threads = 0,
                             .plan_made = box_plan,
                             .handle_free = plan_box_release };
  Building         building = { set, base, planners, report, report_data, made,
                                g_get_monotonic_time () };
  guint            n_infos;
  const MpPlannerInfo *all = mp_planners (&n_infos);

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
      if (!(loaded->workload = mp_workload_open (path, &wopts, &local)) &&
          wopts.order != MP_ORDER_GIVEN &&
          g_error_matches (local, MP_ANALYSIS_ERROR, MP_ANALYSIS_ERROR_UNSUPPORTED))
        {
          /* a trace or records: no dependencies, the order is what happened */
          g_clear_error (&local);
          wopts.order = MP_ORDER_GIVEN;
          loaded->workload = mp_workload_open (path, &wopts, &local);
        }
      if (loaded->workload == NULL)
        {
          g_propagate_error (error, g_steal_pointer (&local));
          return NULL;
        }
      g_debug ("%s loaded %.2f s after the open request, %.2f s of CPU on the loading thread",
               path, (g_get_monotonic_time () - building.start) / 1e6, thread_cpu_seconds ());
      if (loaded->workload->observed || loaded->workload->trace)
        {
          /* an allocator trace: what the allocator did, next to the planners */
          FirstView *fv = g_new0 (FirstView, 1);

          fv->building = &building;
          fv->loaded = loaded;
          fv->observed = g_steal_pointer (&loaded->workload->observed);
          fv->path = g_strdup (path);
          building.first_view = g_thread_new ("memplan-first-view", first_view_thread, fv);
        }
    }

  /* table order, so panes and rows keep a stable order whatever the toggles */
  for (guint i = 0; i < n_infos; i++)
    if (g_strv_contains (planners, all[i].name) && !find_box (base, all[i].name))
      g_ptr_array_add (infos, (gpointer) &all[i]);
  if (report)
    {
      ropts.progress = building_progress;
      ropts.progress_data = &building;
    }
  run = mp_workload_run (set->loaded->workload, (const MpPlannerInfo * const *) infos->pdata,
                         infos->len, &ropts, cancellable, error);
  join_first_view (&building);
  if (run == NULL)
    return NULL;
  if (!report)
    for (guint i = 0; i < run->handles->len; i++)
      if (run->handles->pdata[i])
        g_ptr_array_add (made, g_atomic_rc_box_acquire (run->handles->pdata[i]));
  assemble (set, base, planners, made);
  if (!spill_panes (set, cancellable, error))
    return NULL;
  set->skipped = g_new0 (char *, run->reasons->len + 1);
  for (guint i = 0; i < run->reasons->len; i++)
    set->skipped[i] = g_strdup (run->reasons->pdata[i]);
  set->seconds = (g_get_monotonic_time () - building.start) / 1e6;
  return g_steal_pointer (&set);
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
  gboolean   searching;
  MpSearchProgress search;
  MpPlanSet *partial;
} Report;

static gboolean
report_dispatch (gpointer data)
{
  Report *r = data;

  r->bd->progress (r->planner, r->index, r->total, r->searching ? &r->search : NULL, r->partial,
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
report_in_thread (const char *planner, guint index, guint total, const MpSearchProgress *search,
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
  r->searching = search != NULL;
  if (search)
    r->search = *search;
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
