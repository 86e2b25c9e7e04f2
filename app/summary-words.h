/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include "memplan-analysis.h"

G_BEGIN_DECLS

/* The sentences only the Summary says about the plans: both verdicts in
 * full, a lower bound that differs from the others', and optimal's proof
 * status. The winner and its margins are the engine's (verdict.h), as the
 * CLI's table says them. */

/* Both verdicts in full (the Validity cell's tooltip). */
char    *mp_summary_verdict_detail (const MpPlan *plan);
/* Why plan i's lower bound differs from the one most plans share, or NULL. */
char    *mp_summary_bound_note     (MpPlan * const *plans, guint n_plans, guint i);
/* optimal: "proved optimal" or "not proved: best found, …"; NULL for the
 * planners that prove nothing. */
char    *mp_summary_proof          (const MpPlan *plan);

G_END_DECLS
