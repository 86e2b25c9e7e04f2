/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include "mp-internal.h"

#include <gio/gio.h>

#include "lifetimes.h"
#include "optimal-search.h"

G_BEGIN_DECLS

/* "Do these constrained buffers fit in capacity C?" answered as MiniMalloc
 * answers it with alignment, fixed offsets and gaps: a depth-first search
 * over canonical placements (offsets never decrease along the order, each
 * buffer at the lowest aligned offset above its placed neighbours by their
 * effective sizes) with section inference over the windows, dominance,
 * hatless pruning and temporal decomposition. */

typedef struct _MpConsSearch MpConsSearch;

MpConsSearch *mp_cons_search_new   (const MpGraph *graph, const MpUsage *records, guint n);
void          mp_cons_search_free  (MpConsSearch *search);
/* TRUE when every pair live together keeps a positive effective size both
 * ways: then a search that runs out of candidates proves that no plan fits
 * (the canonical argument needs it; a window can break it). */
gboolean      mp_cons_search_exact (const MpConsSearch *search);
/* MiniMalloc's round robin over its three preorders with a node limit that
 * doubles, until a plan (offsets filled), a proof of none, the deadline, or
 * (MP_OPT_LIMIT) a round that ends past max_nodes (0: no such limit). */
MpOptResult   mp_cons_search_fit   (MpConsSearch *search, guint64 capacity, guint64 max_nodes,
                                    gint64 deadline_us, GCancellable *cancellable,
                                    guint64 *offsets);
guint64       mp_cons_search_nodes (const MpConsSearch *search);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (MpConsSearch, mp_cons_search_free)

G_END_DECLS
