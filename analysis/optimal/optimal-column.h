/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include "mp-internal.h"

#include "optimal-lns.h"

G_BEGIN_DECLS

/* The column move, for plans at scale (issue 30, SOMAS pangu-2.6B): at the
 * step with the most live bytes, the widest hole in the stack is an address
 * column; the buffers that use it at other steps (the occupants) go to the
 * bottom of the arena, stacked from offset 0, the top slab of the column's
 * width drops into the column as one block, and every other buffer is
 * placed again, largest first, at its old offset where that is free, else
 * in the smallest gap that fits (best fit), with the column kept free. Then,
 * while an address range is free over the whole run, the slab above the
 * arena minus its width drops into it. The LNS misses this: its moves put
 * buffers back first-fit one by one around the top, and the occupants fit
 * nowhere but the column until long-lived buffers far below them climb.
 *
 * Replaces offsets (a valid plan) when the result has a lower arena and
 * calls improved; returns the arena. Quadratic in n: does nothing above
 * MP_OPT_COLUMN_MAX_BUFFERS, and leaves offsets alone once the deadline
 * passes or the cancellable fires. */
#define MP_OPT_COLUMN_MAX_BUFFERS 32768

guint64 mp_opt_column (const MpOptBuffer *buffers,
                       guint              n,
                       guint64           *offsets,
                       gint64             deadline_us,
                       GCancellable      *cancellable,
                       MpOptImproved      improved,
                       gpointer           data);

G_END_DECLS
