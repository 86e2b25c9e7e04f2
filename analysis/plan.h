/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include "mp-version.h"

#include "lifetimes.h"
#include "schedule.h"

G_BEGIN_DECLS

/* A plan: an offset for every usage record. records is a g_atomic_rc_box, read
 * only: the lifetimes' own (shared), or the plan's when a planner measures
 * lifetimes differently (multistream). */
typedef struct
{
  char    *planner;
  char    *graph_name;
  MpUsage *records;
  guint    n_records;
  guint    n_steps;
  guint64 *offsets;
  guint64  arena;
  guint64  lower_bound;  /* of these records */
  guint64  workspace;
  guint64  alignment;
  gdouble  seconds;      /* planning time */
  /* planner-specific figures, 0 when not applicable */
  guint    n_partitions;
  gboolean searched;       /* an exact search made it: proved_optimal says whether it finished */
  gboolean proved_optimal;
  guint64  proved_bound;   /* the strongest lower bound the search proved, 0 = none */
  const char *bound_name;  /* the bound that proved it, in words (static), or NULL */
  guint64  nodes;          /* explored by the search */
  /* --capacity: the question "does it fit in capacity bytes?"; a plan above
   * it is no answer, so mp_plan_judge calls it invalid */
  guint64  capacity;       /* 0 = not asked */
  gboolean fits;
  gboolean fit_refuted;    /* proved: no plan fits (else none was found in the budget) */
  char    *note;         /* one line for the user, or NULL */
  gboolean observed;     /* what a traced allocator did, not a planner's plan */
  gboolean no_arena;     /* observed without an allocator arena (malloc): arena is the
                          * blocks' footprint, not an arena */
  /* set by mp_plan_judge (verdict.h) */
  gboolean checked;
  gboolean valid;
  char    *problem;      /* why it is invalid, or NULL */
  gboolean over_capacity; /* invalid only because it does not fit in capacity */
  /* multistream: the lifetimes (and n_steps) are parallel groups, not ops */
  gboolean parallel;
  guint    max_parallel_ops;
  /* the verdict in op order and when the streams run concurrently */
  gboolean sequential_valid;
  char    *sequential_problem;
  gboolean concurrent_checked;
  gboolean concurrent_valid;
  char    *concurrent_problem;
  /* one memory's share of a spill (memories.h), its capacity in capacity;
   * NULL: the one arena */
  char    *memory;
} MpPlan;

MP_AVAILABLE_IN_1_0
MpPlan  *mp_plan_new            (const char *planner, const MpLifetimes *lifetimes);
MP_AVAILABLE_IN_1_0
MpPlan  *mp_plan_new_records    (const char *planner, const MpUsage *records, guint n_records,
                                 guint n_steps, guint64 alignment);
MP_AVAILABLE_IN_1_0
void     mp_plan_free           (MpPlan *plan);
MP_AVAILABLE_IN_1_0
void     mp_plan_finish         (MpPlan *plan); /* arena = max(offset + bytes) */
MP_AVAILABLE_IN_1_0
gdouble  mp_plan_ratio          (const MpPlan *plan);
MP_AVAILABLE_IN_1_0
gdouble  mp_plan_fragmentation  (const MpPlan *plan);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (MpPlan, mp_plan_free)

G_END_DECLS
