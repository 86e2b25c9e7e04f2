/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include "memplan-analysis.h"

G_BEGIN_DECLS

/* Every sentence the Summary says about the plans, in one place: both
 * verdicts in full, the winner's margins (the winner is the engine's,
 * mp_plans_best), a lower bound that differs from the others', and
 * optimal's proof status. */

/* Both verdicts in full (the Validity cell's tooltip). */
char    *mp_summary_verdict_detail (const MpPlan *plan);
/* "best-fit: 1.3% below greedy-by-size, 11% above the lower bound" (with
 * "(tied with …)" after the winner's name where others tie). */
char    *mp_summary_margin         (MpPlan * const *plans, guint n_plans, guint best);
/* The same without the winner's name: "1.3% below greedy-by-size, …". */
char    *mp_summary_margin_detail  (MpPlan * const *plans, guint n_plans, guint best);
/* Why plan i's lower bound differs from the one most plans share, or NULL. */
char    *mp_summary_bound_note     (MpPlan * const *plans, guint n_plans, guint i);
/* optimal: "proved optimal" or "not proved: best found, …"; NULL for the
 * planners that prove nothing. */
char    *mp_summary_proof          (const MpPlan *plan);
/* A share as people write it: one decimal under 10%, none above. */
char    *mp_summary_percent        (gdouble fraction);

G_END_DECLS
