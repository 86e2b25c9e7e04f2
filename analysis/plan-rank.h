/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include "plan.h"

G_BEGIN_DECLS

/* The plans in the order a figure that compares them shows them: the
 * winner (mp_plans_best), then the winner among the rest by the same rule,
 * and so on, so a change of that rule moves every front-end; then the plans
 * the rule never picks (invalid, racing where it refuses them, empty),
 * smallest arena first. Ties keep the given order. order receives n_plans
 * indices into plans; returns how many the rule ranked. */
MP_AVAILABLE_IN_1_0
guint mp_plans_rank (MpPlan * const *plans, guint n_plans, guint *order);

G_END_DECLS
