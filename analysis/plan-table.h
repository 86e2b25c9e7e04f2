/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include "mp-version.h"

#include "plan.h"

G_BEGIN_DECLS

/* The columns every front-end shows for a plan (the CLI's table, the app's
 * Summary, reports' tables), with the words of each cell, so none can format
 * a figure or a verdict its own way. */
typedef enum
{
  MP_PLAN_COLUMN_PLANNER,
  MP_PLAN_COLUMN_ARENA,
  MP_PLAN_COLUMN_LOWER_BOUND,
  MP_PLAN_COLUMN_RATIO,
  MP_PLAN_COLUMN_FRAGMENTATION,
  MP_PLAN_COLUMN_PARTITIONS,
  MP_PLAN_COLUMN_SECONDS,
  MP_PLAN_COLUMN_SEQUENTIAL, /* "yes", "NO", "n/a": valid in op order */
  MP_PLAN_COLUMN_CONCURRENT, /* the same when streams run concurrently */
  MP_PLAN_COLUMN_VERDICT,    /* the one verdict, in a line (mp_plan_verdict) */
  MP_PLAN_N_COLUMNS
} MpPlanColumn;

typedef struct
{
  MpPlanColumn column;
  const char  *id;       /* stable: "lower-bound" */
  const char  *title;    /* "Lower bound" */
  const char  *heading;  /* the CLI table's: "lower bound" */
  gboolean     numeric;  /* right-aligned figures */
} MpPlanColumnInfo;

MP_AVAILABLE_IN_1_0
const MpPlanColumnInfo *mp_plan_column_info   (MpPlanColumn column);
/* The column whose id is id, or NULL. */
MP_AVAILABLE_IN_1_0
const MpPlanColumnInfo *mp_plan_column_lookup (const char *id);
/* The cell's words (newly allocated). */
MP_AVAILABLE_IN_1_0
char                   *mp_plan_cell          (const MpPlan *plan, MpPlanColumn column);
/* Whether the cell tells a failure, for the front-ends that mark it. */
MP_AVAILABLE_IN_1_0
gboolean                mp_plan_cell_fails    (const MpPlan *plan, MpPlanColumn column);

G_END_DECLS
