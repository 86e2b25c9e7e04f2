/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include "mp-version.h"

#include "plan.h"
#include "schedule.h"

G_BEGIN_DECLS

/* The one rule: a plan is judged under the schedule it was made for
 * (parallel groups for a multistream plan, op order for the others); the
 * other schedule's verdict is information. parallel is the graph's parallel
 * schedule, or NULL when its ops cannot run side by side (one stream, or
 * usage records). Fills the plan's verdicts; returns plan->valid. */
MP_AVAILABLE_IN_1_0
gboolean    mp_plan_judge              (const MpGraph    *graph,
                                        const MpSchedule *parallel,
                                        MpPlan           *plan);

/* The verdict as data: under the schedule the plan was made for. */
typedef enum
{
  MP_VERDICT_NOT_CHECKED,
  MP_VERDICT_VALID,
  MP_VERDICT_INVALID,       /* overlaps or breaks a rule under its own schedule */
  MP_VERDICT_OVER_CAPACITY, /* a valid placement above the capacity asked for */
} MpVerdict;

MP_AVAILABLE_IN_1_0
MpVerdict   mp_plan_get_verdict        (const MpPlan *plan);
/* Valid under its own schedule but not under the other one where that was
 * checked (a plan for op order that races when streams run concurrently). */
MP_AVAILABLE_IN_1_0
gboolean    mp_plan_fails_other        (const MpPlan *plan);

/* Valid in op order, but its tensors clash when the graph's streams run
 * concurrently (its real execution): it cannot win. */
MP_AVAILABLE_IN_1_0
gboolean    mp_plan_races              (const MpPlan *plan);

/* The winner: the plan with the smallest arena among the valid ones that
 * are also valid when the streams run concurrently, on a graph whose
 * streams may (of a tie, one that also holds in op order, else the first),
 * or -1 when none is. Every front-end names the same one. */
MP_AVAILABLE_IN_1_0
gint        mp_plans_best              (MpPlan * const *plans, guint n_plans);

/* The winner's margins in words, as the Summary's headline and the CLI's
 * table say them: "best-fit: 1.3% below greedy-by-size, 11% above the lower
 * bound", with "(tied with …)" after the winner where others have its very
 * arena, and a difference too small for a share in bytes ("60 B below"). */
MP_AVAILABLE_IN_1_0
char       *mp_plans_margin            (MpPlan * const *plans, guint n_plans, guint best);
/* The same without the winner's name and ties: "1.3% below greedy-by-size, …". */
MP_AVAILABLE_IN_1_0
char       *mp_plans_margin_detail     (MpPlan * const *plans, guint n_plans, guint best);
/* A share as people write it: one decimal under 10%, none above, two
 * significant digits under 0.1%. */
MP_AVAILABLE_IN_1_0
char       *mp_format_share            (gdouble fraction);

/* The words every front-end shows, so none can disagree. */
/* One line: "valid", "valid in op order" (where streams could also run
 * side by side), "races when streams run concurrently (valid in op
 * order)", "INVALID in op order: tensors …". */
MP_AVAILABLE_IN_1_0
char       *mp_plan_verdict            (const MpPlan *plan);
/* A table cell per schedule: "yes", "NO", or "n/a" when not checked. */
MP_AVAILABLE_IN_1_0
const char *mp_plan_verdict_sequential (const MpPlan *plan);
MP_AVAILABLE_IN_1_0
const char *mp_plan_verdict_concurrent (const MpPlan *plan);
/* The other schedule's failure ("races when streams run concurrently: …",
 * "would be INVALID in op order: …"), or NULL. */
MP_AVAILABLE_IN_1_0
char       *mp_plan_verdict_other      (const MpPlan *plan);
/* An exact search's status: "proved optimal", or "not proved: best found,
 * 4.6% above the lower bound after 2.0 s"; NULL for heuristics. */
MP_AVAILABLE_IN_1_0
char       *mp_plan_proof              (const MpPlan *plan);

/* The answer to --capacity: "fits in capacity 12 B", "does not fit in
 * capacity 11 B: proved infeasible (…)" or "… none found within the budget
 * (…)"; NULL when no capacity was asked. */
MP_AVAILABLE_IN_1_0
char       *mp_plan_fit                (const MpPlan *plan);
/* A capacity in exact bytes, with the human unit where it differs. */
MP_AVAILABLE_IN_1_0
char       *mp_format_capacity         (guint64 capacity);

G_END_DECLS
