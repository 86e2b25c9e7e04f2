/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include "mp-internal.h"

#include "optimal-search.h"

G_BEGIN_DECLS

/* Search at scale, for instances too large for the exact search: a large
 * neighbourhood search over a valid plan. Each move starts from a buffer on
 * top of the arena, lifts some buffers out and puts them back first-fit
 * (each at the lowest offset where its slot is free over its lifetime):
 * - the highest buffers around it in time, in a shuffled largest-first,
 *   lowest-first or random order;
 * - the hole move: at a step of its lifetime the arena is the live bytes
 *   plus the holes in the stack there; the buffers above a hole drop, lowest
 *   first, once the buffers that take the hole at other steps are lifted,
 *   which go back after them;
 * - the ejection: it goes into a hole of such a stack, and what is in its
 *   way there goes elsewhere.
 * A move is kept when nothing it placed ends above the arena and fewer
 * buffers reach it, or as many and the sum of the lifted buffers' tops is
 * lower (moves on a plateau still pack the stack, and never cycle). The
 * plan stays valid after every move, so the search can stop at any time. */

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

/* The same in rounds of independent moves on n_threads threads (the
 * result does not depend on n_threads); stops after max_rounds rounds (0:
 * no limit; for tests that must not depend on time). */
guint64 mp_opt_lns_rounds (const MpOptBuffer *buffers,
                           guint              n,
                           guint64           *offsets,
                           guint64            floor,
                           guint32            seed,
                           guint              max_rounds,
                           guint              n_threads,
                           gint64             deadline_us,
                           GCancellable      *cancellable,
                           MpOptImproved      improved,
                           gpointer           data);

/* Search over orders, for the same instances: first-fit (TensorFlow Lite
 * Micro's rule, each buffer into the lowest gap free over its lifetime) is a
 * function of the order the buffers are placed in, and the best heuristic's
 * order (largest first) is seldom the best one. Each pass places every
 * buffer first-fit in an order of descending key, from size times lifetime
 * to the power of a few exponents, then "squeaky wheel" passes (Joslin and
 * Clements, 1999): the buffers that ended near the top of the last pass
 * move earlier. A pass that beats offsets replaces them, so the plan is
 * valid and never worse at any time; improved is called after each. Stops
 * at the deadline, the cancellable, floor, or after max_passes passes (0:
 * no limit; for tests that must not depend on time). Returns the arena. */
guint64 mp_opt_reorder (const MpOptBuffer *buffers,
                        guint              n,
                        guint64           *offsets,
                        guint64            floor,
                        guint              max_passes,
                        gint64             deadline_us,
                        GCancellable      *cancellable,
                        MpOptImproved      improved,
                        gpointer           data);

G_END_DECLS
