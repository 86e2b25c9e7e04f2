/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include "plan.h"

G_BEGIN_DECLS

/* Checks, in O(n log n), that every record has an offset, that offsets respect
 * the alignment and that no two records overlap in both time and address.
 * The error names the first conflicting pair. */
gboolean mp_validate_records (const MpGraph *graph,
                              const MpUsage *records,
                              guint          n_records,
                              const guint64 *offsets,
                              guint64        alignment,
                              guint64        arena,
                              GError       **error);
gboolean mp_validate_plan    (const MpGraph *graph, const MpPlan *plan, GError **error);

G_END_DECLS
