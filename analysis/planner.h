/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <gio/gio.h>
#include "plan.h"
#include "decision-trace.h"

G_BEGIN_DECLS

/* The exact search's time budget in seconds when none is given, and the
 * most it takes (1e9 s is forever; more would overflow the clock's
 * microseconds). Every front-end's default is this one. */
#define MP_OPTIMAL_DEFAULT_BUDGET 10.0
#define MP_OPTIMAL_MAX_BUDGET     1e9

typedef struct
{
  guint   max_parallel_ops; /* multistream: ops per parallel group, 0 = unlimited */
  gdouble time_budget;      /* optimal: seconds, 0 = MP_OPTIMAL_DEFAULT_BUDGET */
  guint64 capacity;         /* optimal: target capacity, 0 = none */
  /* optimal: called about twice a second during a long search with a one-line
   * summary (time, best arena, gap, nodes); NULL = silent */
  void   (*progress) (const char *line, gpointer data);
  gpointer progress_data;
  MpDecisionTrace *trace;       /* record the decisions (decision-trace.h), or NULL */
} MpPlannerOptions;

typedef MpPlan *(*MpPlannerFunc) (const MpGraph          *graph,
                                  const MpLifetimes      *lifetimes,
                                  const MpPlannerOptions *options,
                                  GCancellable           *cancellable,
                                  GError                **error);

typedef struct
{
  const char   *name;        /* stable: CLI, files, UI */
  const char   *title;
  const char   *description;
  gboolean      needs_ops;
  MpPlannerFunc func;
  gboolean      searches;    /* runs for its time budget, reporting progress (optimal) */
} MpPlannerInfo;

const MpPlannerInfo *mp_planners        (guint *n_planners);
const MpPlannerInfo *mp_planner_lookup  (const char *name);
char                *mp_planner_names   (const char *separator);

/* Runs the planner, times it, fills lower bound and arena. */
MpPlan              *mp_planner_run     (const MpPlannerInfo    *info,
                                         const MpGraph          *graph,
                                         const MpLifetimes      *lifetimes,
                                         const MpPlannerOptions *options,
                                         GCancellable           *cancellable,
                                         GError                **error);

/* Record-level cores, reusable by other planners. Both return the arena. */
guint64 mp_place_naive          (const MpUsage *records, guint n, guint64 *offsets);
guint64 mp_place_greedy_by_size (const MpUsage *records, guint n, guint n_steps, guint64 *offsets);

G_END_DECLS
