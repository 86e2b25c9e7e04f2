/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include "memplan-analysis.h"

G_BEGIN_DECLS

/* Pango markup describing a tensor in a plan: name, kind, dtype, shape,
 * size, lifetime, offset, producing op and consumers. plan may be NULL. */
char *mp_tensor_describe (const MpGraph *graph, const MpLifetimes *lifetimes,
                          const MpPlan *plan, guint tensor);
/* The plan's record of a root tensor; hint is its index in the lifetimes. */
gint  mp_plan_find_record (const MpPlan *plan, guint hint, guint tensor);
/* "8×128×512", or "—" for a tensor given in bytes. */
char *mp_tensor_shape_string (const MpTensor *tensor);

G_END_DECLS
