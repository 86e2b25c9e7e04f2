/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include "mp-version.h"

/* Decision traces: what a planner did for each tensor, in the order it
 * placed them, for teaching (memplan-cli explain, the app's step-through).
 *
 * Usage: set MpPlannerOptions.trace to an MpDecisionTrace from
 * mp_decision_trace_new and run the planner with mp_planner_run; the trace is
 * reset, filled and finished against the plan. With no trace a planner
 * takes its normal path: no allocation, at most a NULL check per tensor.
 *
 * Heuristic planners record one MpDecisionStep per tensor. The exact search
 * (the optimal planner) records a summary instead (MpSearchSummary):
 * incumbent improvements and prunes by reason. */

#include "plan.h"

G_BEGIN_DECLS

typedef struct _MpDecisionTrace MpDecisionTrace;

typedef enum
{
  MP_DECISION_OWN_REGION,       /* naive: its own region on top of everything */
  MP_DECISION_SMALLEST_GAP,     /* the smallest gap that fits (the lowest on a tie) */
  MP_DECISION_ON_TOP,           /* no gap fits: on top of the tensors that overlap it */
  MP_DECISION_NEW_PARTITION,    /* every open partition has an overlapping member */
  MP_DECISION_JOINED_PARTITION, /* the heaviest partition free over its lifetime */
  MP_DECISION_LOWEST_GAP,       /* first fit: the lowest gap that fits */
} MpDecisionReason;

/* Gaps: the free address ranges between the placed tensors whose lifetimes
 * overlap the one being placed. Partitions: the partitions open so far
 * whose members are all disjoint in time from it; offset and size are the
 * partition's address range in the final plan. */
typedef struct
{
  guint64  offset;
  guint64  size;
  guint    partition; /* partition planners, else G_MAXUINT */
  guint64  weight;    /* partition: bytes of its members so far */
  gboolean fits;
} MpDecisionCandidate;

/* Candidates kept per step; the counts are always complete. */
#define MP_DECISION_MAX_CANDIDATES 64

typedef struct
{
  guint         record;          /* into plan->records */
  gint          op;              /* greedy-by-breadth: the op being visited, else -1 */
  MpDecisionReason reason;
  guint64       offset;          /* where it went */
  guint64       gap;             /* size of the chosen gap (SMALLEST_GAP), else 0 */
  guint64       top;             /* top of the tensors overlapping it */
  guint         partition;       /* partition planners, else G_MAXUINT */
  guint         n_candidates;    /* gaps, or partitions open */
  guint         n_fitting;       /* of them, those that could take it */
  guint         first_candidate; /* into trace->candidates */
  guint         n_stored;        /* at most MP_DECISION_MAX_CANDIDATES */
  gint          chosen;          /* among the stored candidates, or -1 */
  guint64       arena;           /* max(offset + bytes) of the tensors placed so far */
} MpDecisionStep;

typedef struct
{
  gdouble seconds;
  guint64 nodes;
  guint64 arena;
  char   *source; /* "greedy-by-size", "search", … */
} MpSearchIncumbent;

typedef struct
{
  char   *reason; /* "lower bound", "dominated", "symmetry", … */
  guint64 count;
} MpSearchPrunes;

/* A lower bound proved, and its proof in words. */
typedef struct
{
  guint64 value;
  char   *proof; /* "peak of live bytes", … */
} MpSearchBound;

/* The optimal planner's summary: each lower bound raised, each incumbent
 * improvement and the prunes by reason (filled with
 * mp_decision_trace_search_bound / _incumbent / _prune); the last bound is the
 * proof. */
typedef struct
{
  GArray  *bounds;     /* MpSearchBound, rising */
  GArray  *incumbents; /* MpSearchIncumbent */
  GArray  *prunes;     /* MpSearchPrunes, one per reason */
  guint64  nodes;
  gboolean proved;
} MpSearchSummary;

struct _MpDecisionTrace
{
  char           *planner;
  const char     *order_rule;        /* how the planner orders the tensors, in words */
  const char     *place_rule;        /* where each goes, in words */
  GArray         *steps;             /* MpDecisionStep, in placement order */
  GArray         *candidates;        /* MpDecisionCandidate */
  guint           n_partitions;
  guint64        *partition_offsets; /* partition planners: stacked offsets */
  guint64        *partition_sizes;
  MpSearchSummary search;
  gboolean        has_search;
  gboolean        finished;
  GArray         *busy;              /* scratch span union of the tracing path */
};

MP_AVAILABLE_IN_1_0
MpDecisionTrace *mp_decision_trace_new    (void);
MP_AVAILABLE_IN_1_0
void         mp_decision_trace_free   (MpDecisionTrace *trace);
MP_AVAILABLE_IN_1_0
void         mp_decision_trace_reset  (MpDecisionTrace *trace);
/* Fills what is known only at the end (partition offsets, the arena after
 * each step); mp_planner_run calls it. */
MP_AVAILABLE_IN_1_0
void         mp_decision_trace_finish (MpDecisionTrace *trace, const MpPlan *plan);

static inline const MpDecisionStep *
mp_decision_trace_step (const MpDecisionTrace *trace, guint k)
{
  return &g_array_index (trace->steps, MpDecisionStep, k);
}

static inline guint
mp_decision_trace_n_steps (const MpDecisionTrace *trace)
{
  return trace->steps->len;
}

static inline const MpDecisionCandidate *
mp_decision_trace_candidate (const MpDecisionTrace *trace, const MpDecisionStep *step, guint i)
{
  return &g_array_index (trace->candidates, MpDecisionCandidate, step->first_candidate + i);
}

/* Replays the first n_steps decisions (G_MAXUINT: all) into offsets
 * (n_records entries; records not yet placed get G_MAXUINT64), from the
 * decisions alone: gap planners' chosen offsets, partitions stacked in the
 * order they were opened, each as large as the member that opened it.
 * FALSE when the trace is inconsistent (a record twice or out of range, an
 * unknown partition, a full replay that leaves a record out). */
MP_AVAILABLE_IN_1_0
gboolean     mp_decision_trace_replay (const MpDecisionTrace *trace,
                                   const MpUsage     *records,
                                   guint              n_records,
                                   guint              n_steps,
                                   guint64           *offsets,
                                   GError           **error);

/* One step in words: "conv3_out (3.1 MiB, steps 12–19): 2 gaps fit; the
 * smallest, at 6.0 MiB, wastes 0.4 MiB". */
MP_AVAILABLE_IN_1_0
char        *mp_decision_trace_explain_step (const MpDecisionTrace *trace,
                                         const MpGraph     *graph,
                                         const MpPlan      *plan,
                                         guint              k);
/* The whole trace: a header (planner, order rule), one numbered line per
 * step with the arena after it, the search summary, the result. */
MP_AVAILABLE_IN_1_0
char        *mp_decision_trace_explain      (const MpDecisionTrace *trace,
                                         const MpGraph     *graph,
                                         const MpPlan      *plan);

/* For the optimal planner's search (branch optimal): call these behind a
 * NULL check on options->trace, one incumbent per improvement (the first
 * from the best heuristic), prunes counted per reason; set search.nodes
 * and search.proved at the end. It must run the heuristics that give its
 * first incumbent with a copy of the options whose trace is NULL, or their
 * steps land in its trace. */
MP_AVAILABLE_IN_1_0
void         mp_decision_trace_search_incumbent (MpDecisionTrace *trace,
                                             gdouble      seconds,
                                             guint64      nodes,
                                             guint64      arena,
                                             const char  *source);
MP_AVAILABLE_IN_1_0
void         mp_decision_trace_search_prune     (MpDecisionTrace *trace,
                                             const char  *reason,
                                             guint64      count);
MP_AVAILABLE_IN_1_0
void         mp_decision_trace_search_bound     (MpDecisionTrace *trace,
                                             guint64      value,
                                             const char  *proof);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (MpDecisionTrace, mp_decision_trace_free)

G_END_DECLS
