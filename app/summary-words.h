/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include "memplan-analysis.h"

G_BEGIN_DECLS

/* Every sentence the Summary says about the plans, in one place: the
 * verdict, the winner and its margins, a lower bound that differs from the
 * others', and optimal's proof status. */

/* The verdict under the schedule the plan was made for: "valid" or
 * "INVALID: …"; a plan made for op order that clashes when the streams
 * run together: "NO (concurrent)". The lead's engine verdict replaces this
 * one function. */
char    *mp_summary_verdict        (const MpPlan *plan);
/* Both verdicts in full (the Validity cell's tooltip). */
char    *mp_summary_verdict_detail (const MpPlan *plan);
/* The plan with the smallest arena among the valid ones (of a tie, one
 * that also holds when the streams run together, else the first), or -1
 * when none is valid. */
gint     mp_summary_best           (MpPlan * const *plans, guint n_plans);
/* "best-fit: 1.3% below greedy-by-size, 11% above the lower bound". */
char    *mp_summary_margin         (MpPlan * const *plans, guint n_plans, guint best);
/* Why plan i's lower bound differs from the one most plans share, or NULL. */
char    *mp_summary_bound_note     (MpPlan * const *plans, guint n_plans, guint i);
/* optimal: "proved optimal" or "not proved: best found, …"; NULL for the
 * planners that prove nothing. */
char    *mp_summary_proof          (const MpPlan *plan);
/* A share as people write it: one decimal under 10%, none above. */
char    *mp_summary_percent        (gdouble fraction);

G_END_DECLS
