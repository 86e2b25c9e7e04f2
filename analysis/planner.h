/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include "mp-version.h"

#include <gio/gio.h>
#include "plan.h"
#include "decision-trace.h"

G_BEGIN_DECLS

/* The exact search's time budget in seconds when none is given, and the
 * most it takes (1e9 s is forever; more would overflow the clock's
 * microseconds). Every front-end's default is this one. */
#define MP_OPTIMAL_DEFAULT_BUDGET 10.0
#define MP_OPTIMAL_MAX_BUDGET     1e9

/* Where an exact search stands, about twice a second during a long search. */
typedef struct
{
  gdouble elapsed;     /* seconds since it started */
  guint64 arena;       /* its best plan so far */
  guint64 lower_bound;
  guint64 nodes;       /* explored so far */
} MpSearchProgress;

typedef void (*MpSearchProgressFunc) (const MpSearchProgress *progress, gpointer data);

/* "2.0 s, best 1.50 MiB, 4.17% above the lower bound 1.44 MiB, 1234 nodes" */
MP_AVAILABLE_IN_1_0
char *mp_search_progress_format (const MpSearchProgress *progress);

typedef struct
{
  guint   max_parallel_ops; /* multistream: ops per parallel group, 0 = unlimited */
  gdouble time_budget;      /* optimal: seconds, 0 = MP_OPTIMAL_DEFAULT_BUDGET */
  guint64 capacity;         /* optimal: target capacity, 0 = none */
  /* optimal: called about twice a second during a long search; NULL = silent */
  MpSearchProgressFunc progress;
  gpointer             progress_data;
  MpDecisionTrace *trace;       /* record the decisions (decision-trace.h), or NULL */
  /* the lifetimes are the parallel groups' (mp_schedule_lifetimes): the plan
   * is for the concurrent schedule and judged there */
  gboolean concurrent;
} MpPlannerOptions;

typedef MpPlan *(*MpPlannerFunc) (const MpGraph          *graph,
                                  const MpLifetimes      *lifetimes,
                                  const MpPlannerOptions *options,
                                  GCancellable           *cancellable,
                                  GError                **error);

/* What front-ends need to know of a planner, so that none compares names. */
typedef enum
{
  MP_PLANNER_BASELINE = 1 << 0, /* no reuse at all, the reference the others beat (naive) */
  MP_PLANNER_SEARCHES = 1 << 1, /* runs for its time budget, reports progress and proves or
                                 * gives its gap (optimal) */
  MP_PLANNER_PARALLEL = 1 << 2, /* plans for the parallel groups and is judged there
                                 * (multistream) */
  MP_PLANNER_OBSERVED = 1 << 3, /* not a planner: what a traced allocator did ("observed") */
} MpPlannerTraits;

typedef struct
{
  const char     *name;        /* stable: CLI, files, UI */
  const char     *title;
  const char     *description;
  gboolean        needs_ops;
  MpPlannerFunc   func;
  gboolean        searches;    /* traits & MP_PLANNER_SEARCHES */
  MpPlannerTraits traits;
} MpPlannerInfo;

MP_AVAILABLE_IN_1_0
const MpPlannerInfo *mp_planners        (guint *n_planners);
MP_AVAILABLE_IN_1_0
const MpPlannerInfo *mp_planner_lookup  (const char *name);
MP_AVAILABLE_IN_1_0
char                *mp_planner_names   (const char *separator);
/* The traits of the planner that made plan (MP_PLANNER_OBSERVED for a
 * trace's observed plan; 0 for a plan file's unknown planner). */
MP_AVAILABLE_IN_1_0
MpPlannerTraits      mp_plan_traits     (const MpPlan *plan);
/* A heuristic whose decisions can be watched one buffer at a time: neither
 * the baseline, nor a search, nor an allocator's trace. */
MP_AVAILABLE_IN_1_0
gboolean             mp_plan_is_heuristic (const MpPlan *plan);

/* Runs the planner, times it, fills lower bound and arena. */
MP_AVAILABLE_IN_1_0
MpPlan              *mp_planner_run     (const MpPlannerInfo    *info,
                                         const MpGraph          *graph,
                                         const MpLifetimes      *lifetimes,
                                         const MpPlannerOptions *options,
                                         GCancellable           *cancellable,
                                         GError                **error);

/* Record-level cores, reusable by other planners. Both return the arena. */
MP_AVAILABLE_IN_1_0
guint64 mp_place_naive          (const MpUsage *records, guint n, guint64 *offsets);
MP_AVAILABLE_IN_1_0
guint64 mp_place_greedy_by_size (const MpUsage *records, guint n, guint n_steps, guint64 *offsets);

G_END_DECLS
