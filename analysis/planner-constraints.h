/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include "mp-internal.h"

#include "planner-private.h"

G_BEGIN_DECLS

/* Buffers with constraints of their own (alignment, fixed or preferred
 * offset, lifetime gaps): the placement every planner shares when a record
 * has one, the pairwise rule the validator applies, and the exact search
 * optimal runs on them. */

/* Places records in order under their constraints: the fixed ones first at
 * their offsets, then each at its preferred offset when that is free and
 * aligned, else by rule at an offset aligned to its own alignment.
 * MP_PLACE_ON_TOP stacks each above everything placed (naive). FALSE, and
 * error set, when two fixed buffers collide or cancellable was cancelled. */
gboolean mp_place_constrained    (const MpGraph *graph, const MpUsage *records, guint n,
                                  const guint *order, MpPlaceRule rule, guint64 *offsets,
                                  GCancellable *cancellable, GError **error);
/* optimal on constrained records: a depth-first search over the order in
 * which buffers take their lowest free aligned offset (see the .c file for
 * why that is exact), within the time budget. */
MpPlan  *mp_optimal_constrained  (const MpGraph *graph, const MpLifetimes *lifetimes,
                                  const MpPlannerOptions *options, GCancellable *cancellable,
                                  GError **error);

G_END_DECLS
