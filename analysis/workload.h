/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <gio/gio.h>
#include "input.h"
#include "order.h"
#include "planner.h"
#include "verdict.h"

G_BEGIN_DECLS

/* The one path every front-end takes: open any input, run planners on it,
 * judge each plan. The app, the CLI, suites and reports go through here, so
 * they cannot disagree about a file or a plan. */

typedef struct
{
  guint64     alignment;        /* 0: the input's own; else a power of two */
  gboolean    plan_inputs;      /* place graph inputs in the arena too */
  guint       max_parallel_ops; /* parallel groups: ops per group, 0 = unlimited */
  MpInputOptions input;         /* traces' device, ONNX models' dimensions */
  MpOrderMethod  order;         /* the op order planned: MP_ORDER_GIVEN keeps the file's */
  gdouble        order_budget;  /* --order optimal: seconds, 0 = 10 */
} MpWorkloadOptions;

typedef struct
{
  char          *path;        /* NULL for a graph made in memory */
  MpInputFormat  format;
  MpGraph       *graph;
  MpLifetimes   *lifetimes;
  /* when streams may run side by side (a graph with ops on several
   * streams): AITemplate's parallel groups; NULL otherwise */
  MpSchedule    *parallel;
  guint          max_parallel_ops;
  MpTrace       *trace;       /* an allocator trace (owning graph), or NULL */
  MpPlan        *observed;    /* what that allocator did, judged; NULL without a trace */
  guint64       *file_offsets; /* a CSV's offset column, or NULL */
  /* another order than the given one: how it was found, and the graph in
   * the file's order (graph is then the reordered one); NULL otherwise */
  MpOrderResult *order;
  MpGraph       *given_graph;
} MpWorkload;

MpWorkload *mp_workload_open       (const char              *path,
                                    const MpWorkloadOptions *options,
                                    GError                 **error);
/* The same for an input already read (taken over). */
MpWorkload *mp_workload_new_from_input (MpInput                 *input,
                                        const MpWorkloadOptions *options,
                                        GError                 **error);
/* The same for a graph made in memory (taken over). */
MpWorkload *mp_workload_new        (MpGraph                 *graph,
                                    const MpWorkloadOptions *options,
                                    GError                 **error);
MpWorkload *mp_workload_ref        (MpWorkload *workload);
void        mp_workload_unref      (MpWorkload *workload);

/* Runs one planner and judges its plan. A planner that cannot run on this
 * input (one that needs ops, on usage records) fails with
 * MP_ANALYSIS_ERROR_UNSUPPORTED and says why; a cancelled run with
 * G_IO_ERROR_CANCELLED. */
MpPlan     *mp_workload_plan       (MpWorkload             *workload,
                                    const MpPlannerInfo    *info,
                                    const MpPlannerOptions *options,
                                    GCancellable           *cancellable,
                                    GError                **error);
/* Judges a plan made elsewhere (a plan file) by the same rule. */
gboolean    mp_workload_judge      (MpWorkload *workload, MpPlan *plan);

/* Several planners in table order. */
typedef struct
{
  MpWorkload *workload;
  GPtrArray  *plans;     /* the observed plan first (a trace's), then each planner's */
  GPtrArray  *skipped;   /* const MpPlannerInfo *: planners that could not run */
  GPtrArray  *reasons;   /* char *: why, one per skipped planner */
  gboolean    all_valid; /* every plan valid under the schedule it was made for */
} MpPlanRun;

/* Called before each planner runs (index of total). */
typedef void (*MpPlanRunProgress) (const MpPlannerInfo *info, guint index, guint total,
                                   gpointer user_data);

MpPlanRun  *mp_workload_run        (MpWorkload                *workload,
                                    const MpPlannerInfo * const *infos,
                                    guint                      n_infos,
                                    const MpPlannerOptions    *options,
                                    GCancellable              *cancellable,
                                    MpPlanRunProgress          progress,
                                    gpointer                   progress_data,
                                    GError                   **error);
void        mp_plan_run_free       (MpPlanRun *run);
MpPlan     *mp_plan_run_find       (const MpPlanRun *run, const char *planner);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (MpWorkload, mp_workload_unref)
G_DEFINE_AUTOPTR_CLEANUP_FUNC (MpPlanRun, mp_plan_run_free)

G_END_DECLS
