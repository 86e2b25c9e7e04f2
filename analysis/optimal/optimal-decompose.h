/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include "mp-internal.h"

#include "optimal-lns.h"

G_BEGIN_DECLS

/* Search at scale by decomposition, for instances where a few long-lived
 * buffers hold the stack and many short-lived ones come and go (random
 * workloads: at 100,000 buffers, 5,000 live 64 steps or more and hold the
 * top, 1 to 3 short ones live beside them). A move of the
 * large-neighbourhood search on the whole instance meets every short buffer
 * along a long lifetime; on the long ones alone it is cheap. So the long
 * buffers are planned alone (search over first-fit orders, then the
 * large-neighbourhood search), then the short ones go into that fixed
 * layout, largest first, each into the smallest gap free over its lifetime
 * (greedy-by-size's rule): they are small and few at a time, so they mostly
 * fill holes. */

/* Buffers living at least this many steps are long. */
#define MP_OPT_DECOMPOSE_LONG 64

/* The long buffers must make this share of the peak of live bytes: where
 * the short ones make much of it (IOPDDL Y: 4%, SOMAS pangu-2.6B: 5%),
 * placing them last costs more than it saves, and the time is the
 * large-neighbourhood search's. */
#define MP_OPT_DECOMPOSE_HOLD 0.98

/* Whether decomposing n buffers is worth trying: at least three quarters
 * are short, and the long ones hold MP_OPT_DECOMPOSE_HOLD of the peak. */
/* The peak of live bytes of the n buffers: a lower bound of their arena. */
guint64 mp_opt_live_peak (const MpOptBuffer *buffers,
                          guint              n,
                          guint              n_steps);

gboolean mp_opt_decompose_fits (const MpOptBuffer *buffers,
                                guint              n);

/* Replaces offsets (a valid plan of the n buffers) by the decomposition's
 * plan when that has a lower arena, calling improved then. The long
 * buffers start from their offsets in offsets and go through the search
 * over first-fit orders (mp_opt_reorder) until it stalls, deadline_us or
 * max_passes passes (0: no limit; for tests that must not depend on time);
 * offsets stay as they are if the short ones are not all placed by
 * hard_deadline_us (ignored with max_passes). Returns the arena of
 * offsets. */
guint64 mp_opt_decompose (const MpOptBuffer *buffers,
                          guint              n,
                          guint64           *offsets,
                          guint              max_passes,
                          gint64             deadline_us,
                          gint64             hard_deadline_us,
                          GCancellable      *cancellable,
                          MpOptImproved      improved,
                          gpointer           data);

G_END_DECLS
