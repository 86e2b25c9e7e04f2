/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include "mp-internal.h"

#include "optimal-lns.h"

G_BEGIN_DECLS

/* Repair of a plan whose top is made by a few buffers that found no gap
 * (the short buffers of the decomposition over a flat stack of long ones).
 * Under a cap below the arena, each buffer above it goes into a gap under
 * the cap, if need be after one buffer in its way moves to any place free
 * over its own lifetime under the cap. A cap reached is kept and a lower one
 * tried; a cap missed keeps the moves made (all under the arena) and a
 * higher one is tried. Plain scans, in index order: deterministic.
 * Replaces offsets (a valid plan) by a plan never worse, calling improved
 * at each lower arena; max_rounds caps the caps tried (0: until
 * deadline_us). Returns the arena of offsets. */
guint64 mp_opt_repair (const MpOptBuffer *buffers,
                       guint              n,
                       guint64           *offsets,
                       guint              max_rounds,
                       gint64             deadline_us,
                       GCancellable      *cancellable,
                       MpOptImproved      improved,
                       gpointer           data);

G_END_DECLS
