/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <gio/gio.h>
#include "memplan-analysis.h"
#include "memplan-render.h"

G_BEGIN_DECLS

/* What the window shows: one loaded graph, its lifetimes and the plans of the
 * chosen planners. Immutable once built, shared by reference between the
 * planning thread and the widgets. */
typedef struct _MpPlanSet MpPlanSet;

#define MP_TYPE_PLAN_SET (mp_plan_set_get_type ())

GType              mp_plan_set_get_type     (void) G_GNUC_CONST;
MpPlanSet         *mp_plan_set_ref          (MpPlanSet *set);
void               mp_plan_set_unref        (MpPlanSet *set);

/* How the set is built; NULL takes the defaults. */
typedef struct
{
  gdouble             time_budget; /* optimal: seconds, 0 = the engine's default (as the CLI's) */
  const char * const *dims;        /* ONNX symbolic dimensions, "NAME=VALUE"; NULL: none */
  MpOrderMethod       order;       /* the op order planned; inputs without dependencies keep
                                    * theirs */
  MpPlanSchedule      schedule;    /* what planners plan for where streams run side by side */
} MpPlanSetOptions;

MpWorkload        *mp_plan_set_get_workload  (MpPlanSet *set);
/* A trace's MpTraceOpUse per op (or per module), made while loading; NULL
 * for a graph or records, and per module for a trace without modules. */
GArray            *mp_plan_set_get_by_op     (MpPlanSet *set, gboolean per_module);
const MpGraph     *mp_plan_set_get_graph     (MpPlanSet *set);
/* The lifetimes the plans were made for: in parallel groups where every
 * planner plans for the concurrent schedule (the workload's concurrent). */
const MpLifetimes *mp_plan_set_get_lifetimes (MpPlanSet *set);
const char        *mp_plan_set_get_path      (MpPlanSet *set);
guint              mp_plan_set_get_n_plans   (MpPlanSet *set);
MpPlan            *mp_plan_set_get_plan      (MpPlanSet *set, guint index);
MpPlan            *mp_plan_set_find_plan     (MpPlanSet *set, const char *planner);
/* The same set without one planner's plan (to plan it again). */
MpPlanSet         *mp_plan_set_drop          (MpPlanSet *set, const char *planner);
/* The plan's drawing index, built with the plan in the planning thread. */
MpRenderIndex     *mp_plan_set_get_index     (MpPlanSet *set, guint index);
MpRenderIndex     *mp_plan_set_find_index    (MpPlanSet *set, const MpPlan *plan);
/* A graph that declares "memories": the best plan's planner spilled over
 * them (analysis/memories.h), one plan and drawing index per memory,
 * fastest first, the index marking its capacity and spilled tensors; 0
 * memories otherwise. */
guint              mp_plan_set_get_n_memories   (MpPlanSet *set);
MpPlan            *mp_plan_set_get_memory_plan  (MpPlanSet *set, guint memory);
MpRenderIndex     *mp_plan_set_get_memory_index (MpPlanSet *set, guint memory);
/* One line per planner that could not run on this input ("partition needs …"). */
const char * const *mp_plan_set_get_skipped  (MpPlanSet *set);
gdouble            mp_plan_set_get_seconds   (MpPlanSet *set); /* load + plan */

/* Called on the caller's main context while the file loads (planner NULL)
 * and before each planner runs (index of total), with the plans finished so
 * far (partial, NULL when none), so they can be shown at once; and while the
 * exact search runs, about twice a second, with where it stands (search;
 * NULL otherwise). */
typedef void (*MpPlanSetProgress) (const char *planner, guint index, guint total,
                                   const MpSearchProgress *search, MpPlanSet *partial,
                                   gpointer user_data);

/* Loads path (when base is NULL) or reuses base's graph and the plans it
 * already has, then runs the planners named in planners that are missing.
 * Runs in a worker thread; cancellable stops it between and inside planners. */
void               mp_plan_set_build_async  (const char          *path,
                                             MpPlanSet           *base,
                                             const char * const  *planners,
                                             const MpPlanSetOptions *options,
                                             GCancellable        *cancellable,
                                             MpPlanSetProgress    progress,
                                             gpointer             progress_data,
                                             GDestroyNotify       progress_destroy,
                                             GAsyncReadyCallback  callback,
                                             gpointer             user_data);
MpPlanSet         *mp_plan_set_build_finish (GAsyncResult  *result,
                                             GError       **error);
MpPlanSet         *mp_plan_set_build        (const char          *path,
                                             MpPlanSet           *base,
                                             const char * const  *planners,
                                             const MpPlanSetOptions *options,
                                             GCancellable        *cancellable,
                                             GError             **error);
/* The same, calling report (on this thread) when not NULL. */
MpPlanSet         *mp_plan_set_build_full   (const char          *path,
                                             MpPlanSet           *base,
                                             const char * const  *planners,
                                             const MpPlanSetOptions *options,
                                             GCancellable        *cancellable,
                                             MpPlanSetProgress    report,
                                             gpointer             report_data,
                                             GError             **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (MpPlanSet, mp_plan_set_unref)

G_END_DECLS
