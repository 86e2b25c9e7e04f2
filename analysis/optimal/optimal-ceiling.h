/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include "mp-internal.h"

#include "optimal-lns.h"

G_BEGIN_DECLS

/* The decomposition under a common ceiling. Its long pass leaves the stack
 * of long buffers flat near its top, so short buffers that meet in time
 * there find no gap and stack above it. Here the long pass is planned
 * against a per-step cap: under a ceiling, the short buffers that found no
 * gap are pinned at the top (hung from the ceiling, each as high as the
 * other pinned ones let it), the long ones are placed again by the search
 * over first-fit orders around them, and the short ones best-fit into what
 * is left; a short buffer still above the ceiling is pinned in turn. Where
 * the long stack cannot dip under the pins the ceiling is missed. Ceilings
 * are bisected between the peak of live bytes and the arena. Replaces
 * offsets (a valid plan) by a plan never worse, calling improved at each
 * lower arena; max_tries caps the ceilings tried (0: until deadline_us; for
 * tests that must not depend on time, which also run the order search
 * without a clock). Returns the arena of offsets. */
guint64 mp_opt_ceiling (const MpOptBuffer *buffers,
                        guint              n,
                        guint64           *offsets,
                        guint              max_tries,
                        gint64             deadline_us,
                        GCancellable      *cancellable,
                        MpOptImproved      improved,
                        gpointer           data);

G_END_DECLS
