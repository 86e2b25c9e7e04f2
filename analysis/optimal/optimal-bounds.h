/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include "mp-internal.h"

#include "optimal-search.h"

G_BEGIN_DECLS

/* Lower bounds of the optimal planner, each a proof that no plan of the
 * buffers has a smaller arena. The planner keeps the strongest and names it;
 * tests check each against a brute-force minimum. */
typedef enum
{
  MP_OPT_BOUND_LIVE,    /* the peak of live bytes */
  MP_OPT_BOUND_PADDING, /* the peak's slots, less the padding of its top buffer */
  MP_OPT_BOUND_WINDOW,  /* an exact search on the buffers live around a peak */
  MP_OPT_BOUND_REFUTED, /* the search proved every smaller capacity infeasible */
  MP_OPT_N_BOUNDS
} MpOptBound;

const char *mp_opt_bound_name   (MpOptBound bound);

/* The window bound: the buffers live in a window of steps around each of
 * the highest peaks, clipped to it, are a smaller instance whose every plan
 * is a restriction of some plan of all of them, so its minimum is a bound.
 * Windows grow around up to n_peaks peaks while they hold at most
 * max_buffers buffers; each minimum is searched for by bisection between
 * floor and ceiling (the arena of a known plan of all the buffers) with
 * node_limit nodes per probe. Returns the largest arena proved (at least
 * floor). */
guint64     mp_opt_window_bound (const MpOptBuffer *buffers,
                                 guint              n,
                                 guint64            alignment,
                                 guint64            floor,
                                 guint64            ceiling,
                                 guint              n_peaks,
                                 guint              max_buffers,
                                 guint64            node_limit,
                                 gint64             deadline_us,
                                 GCancellable      *cancellable);

G_END_DECLS
