/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include "mp-version.h"

#include "report.h"

G_BEGIN_DECLS

/* Plans a set of graph files into a report (memplan-cli suite). */

typedef struct
{
  GPtrArray        *planners;    /* const MpPlannerInfo *, in order */
  MpLifetimeOptions lifetimes;
  MpPlannerOptions  planner;
  gboolean          keep_going;  /* record a graph that fails to load and go on */
  const char       *plans_dir;   /* write each graph's plans there, or NULL */
  const char       *relative_to; /* store paths relative to this directory, or NULL */
  const char *const *dims;       /* ONNX models' dimensions, "NAME=VALUE", or NULL */
  guint64           max_memory;  /* refuse a graph estimated to need more to load; 0: the
                                  * memory available (memory-estimate.h) */
  guint             repeat;      /* runs per planner for its time (median, spread); 0 or 1: one */
  MpOrderMethod     order;       /* the op order to plan (graphs with dependencies; the others
                                  * keep theirs) */
  gdouble           order_budget; /* --order optimal: seconds, 0 = 10 */
  MpPlanSchedule    schedule;    /* what planners plan for where streams run side by side */
} MpSuiteOptions;

typedef enum
{
  MP_SUITE_PLANNED,     /* the graph and its results are in the report */
  MP_SUITE_NOT_A_GRAPH, /* found in a directory, but a memplan plan or report: left out */
  MP_SUITE_FAILED,      /* did not load: error is set; with keep_going the report records it */
  MP_SUITE_ABORTED,     /* cancelled, or the plans could not be written: error is set, stop */
  MP_SUITE_SKIPPED,     /* found in a directory, but not a regular file (a FIFO would block
                         * the read forever): error says what it is, a note, not a failure */
} MpSuiteOutcome;

/* The files to plan, as (path, scanned) pairs: each FILE as given, each DIR
 * searched recursively for *.json, *.csv and *.pickle, sorted by path (byte order) so
 * that reports are deterministic; hidden files and folders are skipped. */
typedef struct
{
  char    *path;
  gboolean scanned; /* found in a directory rather than named */
  char    *not_regular; /* scanned: what it is when not a regular file ("a FIFO"), or NULL */
} MpSuiteFile;

MP_AVAILABLE_IN_1_0
GPtrArray      *mp_suite_collect   (char **inputs, GError **error);

/* Every planner (const MpPlannerInfo *) but those whose result depends on a
 * wall-clock budget (optimal): two runs of those may differ, so a suite
 * runs them only when they are named. */
MP_AVAILABLE_IN_1_0
GPtrArray      *mp_suite_default_planners (void);

/* Starts a report that records the options. */
MP_AVAILABLE_IN_1_0
MpReport       *mp_suite_report_new (const MpSuiteOptions *options, char **inputs);

MP_AVAILABLE_IN_1_0
MpSuiteOutcome  mp_suite_plan_file (MpReport             *report,
                                    const MpSuiteFile    *file,
                                    const MpSuiteOptions *options,
                                    GCancellable         *cancellable,
                                    GError              **error);

/* A suite that writes no report writes no plan files either: removes the
 * --plans files written so far. */
MP_AVAILABLE_IN_1_0
void            mp_suite_discard_plans (MpReport *report);

/* path relative to dir when both lie under one top folder, else absolute. */
MP_AVAILABLE_IN_1_0
char           *mp_path_relative   (const char *dir, const char *path);

G_END_DECLS
