/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include "optimal-search.h"

G_BEGIN_DECLS

/* Search at scale, for instances too large for the exact search: a large
 * neighbourhood search over a valid plan. Each move takes a buffer on top of
 * the arena, lifts out the buffers highest around it in time and puts them
 * back first-fit (each at the lowest offset where its slot is free over its
 * lifetime) in a shuffled largest-first order; a move is kept when nothing
 * it placed ends above the arena and fewer buffers reach it. The plan stays
 * valid after every move, so the search can stop at any time. */

typedef void (*MpOptImproved) (const guint64 *offsets, guint64 arena, gpointer data);

/* Improves offsets (a valid plan of the n buffers) in place until the
 * deadline, the cancellable or floor (a proved lower bound) is reached;
 * improved is called after each lower arena. Returns the arena. */
guint64 mp_opt_lns (const MpOptBuffer *buffers,
                    guint              n,
                    guint64           *offsets,
                    guint64            floor,
                    guint32            seed,
                    gint64             deadline_us,
                    GCancellable      *cancellable,
                    MpOptImproved      improved,
                    gpointer           data);

G_END_DECLS
