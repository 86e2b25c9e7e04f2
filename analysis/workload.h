/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include "mp-version.h"

#include <gio/gio.h>
#include "input.h"
#include "memory-estimate.h"
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
  /* what the planners plan for where streams may run side by side: AUTO
   * (the zero) is the concurrent schedule, SEQUENTIAL op order */
  MpPlanSchedule schedule;
  MpInputOptions input;         /* traces' device, ONNX models' dimensions */
  /* refuse an input or planners estimated to need more memory than this
   * (MP_ANALYSIS_ERROR_MEMORY, before the work): 0, the memory available;
   * G_MAXUINT64, no check */
  guint64     max_memory;
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
  /* the lifetimes in those groups when every planner plans for them (a
   * parallel schedule, not --schedule sequential); NULL: planners plan for
   * op order, multistream alone for the groups */
  MpLifetimes   *concurrent;
  MpTrace       *trace;       /* an allocator trace (owning graph), or NULL */
  MpPlan        *observed;    /* what that allocator did, judged; NULL without a trace */
  guint64       *file_offsets; /* a CSV's offset column, or NULL */
  guint64        max_memory;   /* as in the options */
  guint64        load_estimate; /* what loading the input was estimated to take */
  /* another order than the given one: how it was found, and the graph in
   * the file's order (graph is then the reordered one); NULL otherwise */
  MpOrderResult *order;
  MpGraph       *given_graph;
} MpWorkload;

MP_AVAILABLE_IN_1_0
MpWorkload *mp_workload_open       (const char              *path,
                                    const MpWorkloadOptions *options,
                                    GError                 **error);
/* The same for an input already read (taken over). */
MP_AVAILABLE_IN_1_0
MpWorkload *mp_workload_new_from_input (MpInput                 *input,
                                        const MpWorkloadOptions *options,
                                        GError                 **error);
/* The same for a graph made in memory (taken over). */
MP_AVAILABLE_IN_1_0
MpWorkload *mp_workload_new        (MpGraph                 *graph,
                                    const MpWorkloadOptions *options,
                                    GError                 **error);
MP_AVAILABLE_IN_1_0
MpWorkload *mp_workload_ref        (MpWorkload *workload);
MP_AVAILABLE_IN_1_0
void        mp_workload_unref      (MpWorkload *workload);

/* Runs one planner and judges its plan (no memory check: mp_workload_run
 * makes it). A planner that cannot run on this input (one that needs ops, on
 * usage records) fails with MP_ANALYSIS_ERROR_UNSUPPORTED and says why; a
 * cancelled run with G_IO_ERROR_CANCELLED. */
MP_AVAILABLE_IN_1_0
MpPlan     *mp_workload_plan       (MpWorkload             *workload,
                                    const MpPlannerInfo    *info,
                                    const MpPlannerOptions *options,
                                    GCancellable           *cancellable,
                                    GError                **error);
/* Judges a plan made elsewhere (a plan file) by the same rule. */
MP_AVAILABLE_IN_1_0
gboolean    mp_workload_judge      (MpWorkload *workload, MpPlan *plan);

/* Several planners: the one planner loop of every front-end. */

/* What the run tells as it goes, on the thread that called mp_workload_run
 * (the app's worker thread; its main loop for mp_workload_run_async). */
typedef enum
{
  MP_RUN_STARTED,   /* planner index of total starts (every one before it is done) */
  MP_RUN_SEARCHING, /* the exact search's incumbent improved: search */
  MP_RUN_DONE,      /* planner index made plan, judged; or was skipped (plan NULL) */
} MpRunEvent;

typedef struct
{
  MpRunEvent              event;
  MpWorkload             *workload;
  const MpPlannerInfo    *planner;
  guint                   index;   /* of total, in the order asked */
  guint                   total;
  MpPlan                 *plan;    /* MP_RUN_DONE: the plan, or NULL when skipped */
  gpointer                handle;  /* MP_RUN_DONE: what plan_made returned for it */
  /* MP_RUN_DONE without a plan: why (MP_ANALYSIS_ERROR_UNSUPPORTED: skipped;
   * anything else: failed, with keep_going) */
  const GError           *error;
  const MpSearchProgress *search;  /* MP_RUN_SEARCHING */
} MpRunProgress;

typedef void     (*MpRunProgressFunc) (const MpRunProgress *progress, gpointer data);
/* Called on the thread that made plan, right after it was judged: the app
 * builds its drawing there, in parallel. Returns the caller's handle for
 * the plan, which then owns it (it frees plan when the handle goes). */
typedef gpointer (*MpRunPlanMadeFunc) (MpWorkload *workload, MpPlan *plan, gpointer data);

typedef struct
{
  MpPlannerOptions  planner;       /* its progress is the run's own */
  /* heuristics side by side on this many threads (0: one per core; 1: in
   * turn, for timing and the least memory); a search runs on the calling
   * thread, after them */
  guint             n_threads;
  /* a planner that fails is recorded in failed/failures and the run goes
   * on; otherwise the run fails with its error */
  gboolean          keep_going;
  MpRunProgressFunc progress;
  gpointer          progress_data;
  MpRunPlanMadeFunc plan_made;
  GDestroyNotify    handle_free;   /* releases a plan_made handle */
  gpointer          plan_made_data;
} MpRunOptions;

typedef struct
{
  MpWorkload *workload;
  GPtrArray  *plans;     /* the observed plan first (a trace's), then each planner's */
  GPtrArray  *handles;   /* plan_made's handle per plan (NULL for the observed), or NULL */
  GPtrArray  *skipped;   /* const MpPlannerInfo *: planners that could not run */
  GPtrArray  *reasons;   /* char *: why, one per skipped planner */
  GPtrArray  *failed;    /* const MpPlannerInfo *: keep_going, planners that failed */
  GPtrArray  *failures;  /* char *: their errors */
  gboolean    all_valid; /* every plan valid under the schedule it was made for */
  /* private */
  GDestroyNotify handle_free;
} MpPlanRun;

/* Runs infos on workload (n_infos of them, in that order) after checking
 * that they fit in the memory limit (MP_ANALYSIS_ERROR_MEMORY); a planner
 * that cannot run on this input is skipped with its reason; a cancelled run
 * fails with G_IO_ERROR_CANCELLED. options NULL: one thread, no progress. */
MP_AVAILABLE_IN_1_0
MpPlanRun  *mp_workload_run        (MpWorkload                *workload,
                                    const MpPlannerInfo * const *infos,
                                    guint                      n_infos,
                                    const MpRunOptions        *options,
                                    GCancellable              *cancellable,
                                    GError                   **error);
/* The same on a worker thread; progress is called on the caller's thread
 * default main context. */
MP_AVAILABLE_IN_1_0
void        mp_workload_run_async  (MpWorkload                *workload,
                                    const MpPlannerInfo * const *infos,
                                    guint                      n_infos,
                                    const MpRunOptions        *options,
                                    GCancellable              *cancellable,
                                    GAsyncReadyCallback        callback,
                                    gpointer                   user_data);
MP_AVAILABLE_IN_1_0
MpPlanRun  *mp_workload_run_finish (GAsyncResult              *result,
                                    GError                   **error);
MP_AVAILABLE_IN_1_0
void        mp_plan_run_free       (MpPlanRun *run);
MP_AVAILABLE_IN_1_0
MpPlan     *mp_plan_run_find       (const MpPlanRun *run, const char *planner);

/* The memory planning infos would need on workload, above what loading it
 * took: refused past the workload's limit with MP_ANALYSIS_ERROR_MEMORY. */
MP_AVAILABLE_IN_1_0
gboolean    mp_workload_check_memory (MpWorkload                *workload,
                                      const MpPlannerInfo * const *infos,
                                      guint                      n_infos,
                                      GError                   **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (MpWorkload, mp_workload_unref)
G_DEFINE_AUTOPTR_CLEANUP_FUNC (MpPlanRun, mp_plan_run_free)

G_END_DECLS
