/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include "mp-version.h"

#include <gio/gio.h>
#include "memories.h"
#include "plan.h"
#include "planner.h"
#include "workload.h"

G_BEGIN_DECLS

/* A regression report (memplan.report/1): per graph and planner the figures a
 * CI run compares. No dates, hosts, absolute paths or planner notes (they
 * quote times), so two runs on the same inputs give the same file apart
 * from the planning times. */

typedef enum
{
  MP_RESULT_VALID,   /* planned, validator agrees */
  MP_RESULT_INVALID, /* planned, validator found a problem */
  MP_RESULT_FAILED,  /* the planner returned an error */
  MP_RESULT_SKIPPED, /* the planner does not apply (e.g. needs ops, graph is CSV) */
} MpResultStatus;

/* A graph with memories (graph JSON "memories"): what the planner's spill
 * put in each, fastest first (memories.h). */
typedef struct
{
  char    *name;
  guint64  capacity;      /* 0: unbounded */
  guint64  arena;
  guint    n_tensors;
  guint64  spilled_bytes; /* of the tensors the spill rule moved into it */
  guint    n_spilled;
} MpReportMemory;

typedef struct
{
  char          *planner;
  MpResultStatus status;
  /* figures, for VALID and INVALID only */
  guint64        arena;
  guint64        lower_bound;
  gdouble        ratio;         /* derived from arena / lower_bound when read */
  gdouble        fragmentation; /* derived likewise */
  gdouble        seconds;       /* planning time; the median when the planner ran more than once */
  guint          runs;          /* suite --repeat: how many times it ran (1 at least) */
  gdouble        seconds_min;   /* the spread of those runs (seconds itself for one run) */
  gdouble        seconds_max;
  guint          n_partitions;
  gboolean       proved_optimal;
  char          *problem;       /* INVALID: the validator's message; FAILED, SKIPPED: why */
  GPtrArray     *memories;      /* MpReportMemory: the spill on a graph with memories, or NULL */
} MpReportResult;

typedef struct
{
  char      *name;        /* key for matching; unique within a report */
  char      *file;        /* where the graph came from, as the suite opened it */
  char      *plans;       /* memplan.plan/1 file with every plan, or NULL */
  char      *sha256;      /* of the graph file, or NULL */
  char      *error;       /* the graph failed to load: why; then results is empty */
  guint      n_tensors;
  guint      n_records;
  guint      n_steps;
  guint64    lower_bound;
  guint64    workspace;
  GPtrArray *results;     /* MpReportResult, in planner order */
} MpReportGraph;

typedef struct
{
  char      *path;            /* file it was read from, or NULL */
  char      *memplan_version;
  /* options the suite ran with, so that the report can be reproduced */
  char     **planners;
  guint64    alignment;       /* 0: each graph's own */
  gboolean   plan_inputs;
  guint      max_parallel_ops;
  gdouble    time_budget;
  gboolean   keep_going;
  char     **inputs;          /* the DIR/FILE arguments */
  char     **dims;            /* ONNX models' dimensions, "NAME=VALUE" (never NULL) */
  char      *order;           /* the op order planned (--order), or NULL: the given one */
  /* what the planners planned for on graphs with several streams
   * (--schedule): "sequential", or NULL: the concurrent schedule */
  char      *schedule;
  GPtrArray *graphs;          /* MpReportGraph, in suite order */
  GHashTable *graph_index;    /* name -> MpReportGraph, for matching */
  GPtrArray  *plan_files;     /* suite --plans: the files written so far, or NULL */
} MpReport;

MP_AVAILABLE_IN_1_0
MpReport       *mp_report_new              (void);
MP_AVAILABLE_IN_1_0
void            mp_report_free             (MpReport *report);

/* Appends a graph; a name already taken gets " #2", " #3"… appended so that
 * keys stay unique and stable for the same inputs. */
MP_AVAILABLE_IN_1_0
MpReportGraph  *mp_report_add_graph        (MpReport *report, const char *name, const char *file);
MP_AVAILABLE_IN_1_0
void            mp_report_remove_graph     (MpReport *report, MpReportGraph *graph);
/* Records a planned (and checked) plan, or a planner that did not run. */
MP_AVAILABLE_IN_1_0
MpReportResult *mp_report_graph_add_plan   (MpReportGraph *graph, const MpPlan *plan);
/* Sets a result's time from n runs: the median and the spread. */
MP_AVAILABLE_IN_1_0
void            mp_report_result_set_times (MpReportResult *result,
                                            const gdouble  *seconds,
                                            guint           n);
/* Records what a spill put in each memory (after mp_report_graph_add_plan). */
MP_AVAILABLE_IN_1_0
void            mp_report_result_set_spill (MpReportResult *result, const MpSpill *spill);
MP_AVAILABLE_IN_1_0
MpReportResult *mp_report_graph_add_missed (MpReportGraph *graph, const char *planner,
                                            MpResultStatus status, const char *why);

MP_AVAILABLE_IN_1_0
MpReportGraph  *mp_report_find_graph       (const MpReport *report, const char *name);
MP_AVAILABLE_IN_1_0
MpReportResult *mp_report_graph_find       (const MpReportGraph *graph, const char *planner);
/* Result has figures (VALID or INVALID). */
MP_AVAILABLE_IN_1_0
gboolean        mp_report_result_planned   (const MpReportResult *result);
MP_AVAILABLE_IN_1_0
const char     *mp_result_status_to_string (MpResultStatus status);

MP_AVAILABLE_IN_1_0
char           *mp_report_to_json          (const MpReport *report);
MP_AVAILABLE_IN_1_0
MpReport       *mp_report_parse            (const char *data, gsize length, const char *path,
                                            GError **error);
MP_AVAILABLE_IN_1_0
MpReport       *mp_report_load             (const char *path, GError **error);
/* A graph's file or plans as a path to open: the suite stores them relative
 * to the report's directory (to the current one when it wrote to stdout). */
MP_AVAILABLE_IN_1_0
char           *mp_report_resolve          (const MpReport *report, const char *relative);

/* Opens what a row of the report was made from: the workload (with the
 * report's options) and the plans the suite saved (--plans), one MpPlan per
 * planner, judged. Fails, naming the file, when the report has no plans, or
 * when the graph file is no longer the one the report was made from. */
MP_AVAILABLE_IN_1_0
GPtrArray      *mp_report_open_plans       (const MpReport       *report,
                                            const MpReportGraph  *graph,
                                            MpWorkload          **workload_out,
                                            GError              **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (MpReport, mp_report_free)

G_END_DECLS
