/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include "mp-internal.h"
#include "time-index.h"

#include <glib.h>

G_BEGIN_DECLS

/* A sparse table of unions over time blocks, for the time index's long
 * queries: with it a query that covers blocks [p, q1) whole reads two
 * window unions, not the O(log blocks) sets of a segment tree. */
typedef struct _MpTimeWindows MpTimeWindows;

/* Merged sets a query reads: two windows. */
#define MP_TIME_WINDOWS_MAX_SETS 2
/* Spans per summary of the widest gap in a window's merged set. */
#define MP_TIME_WINDOWS_CHUNK 16

MpTimeWindows *mp_time_windows_new    (guint n_steps, guint block);
void           mp_time_windows_free   (MpTimeWindows *windows);
void           mp_time_windows_insert (MpTimeWindows *windows,
                                       guint          first,
                                       guint          last,
                                       guint64        start,
                                       guint64        end);
/* For a query over steps [first, last] that covers at least one block
 * whole: sorted, disjoint span sets (up to MP_TIME_WINDOWS_MAX_SETS), and
 * appended to extra, which must be empty or one run sorted by start, more
 * spans (merged with it into one run by start, not joined), whose union is
 * every buffer that meets the query, except the partial buffers of its end
 * blocks, which the caller filters by step. Returns how many sets; with
 * each, the widest gap before a span of each MP_TIME_WINDOWS_CHUNK spans
 * (the first's gap reaches down to 0). */
guint          mp_time_windows_read   (MpTimeWindows *windows,
                                       guint          first,
                                       guint          last,
                                       const MpSpan **spans,
                                       guint         *lens,
                                       const guint64 **widest,
                                       GArray        *extra);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (MpTimeWindows, mp_time_windows_free)

G_END_DECLS
