/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include "mp-version.h"
#include "graph.h"
#include "plan.h"

G_BEGIN_DECLS

/* Why record r of plan sits where its constraints put it, in words (issue
 * 28): "pinned at 4096 (fixed_offset)", "at its preferred offset 0",
 * "preferred 0 taken by t3, placed at 8192", "aligned to 256: offset
 * rounded up from 200", "during its gap 3–5 t2 used its space", joined by
 * "; ". NULL when the record has no constraint that shaped its place. */
MP_AVAILABLE_IN_1_0
char *mp_constraint_explain_record (const MpGraph *graph, const MpPlan *plan, guint r);

/* One line "name: why" per such record of plan, in record order; NULL when
 * there is none. */
MP_AVAILABLE_IN_1_0
char *mp_constraint_explain        (const MpGraph *graph, const MpPlan *plan);

G_END_DECLS
