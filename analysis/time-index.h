/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* A half-open address range [start, end). */
typedef struct
{
  guint64 start;
  guint64 end;
} MpSpan;

/* Index of placed buffers over time: answers "which addresses are taken at
 * some step of [first, last]" as a sorted union of spans, visiting only the
 * buffers whose lifetimes overlap the query. A segment tree over steps; each
 * node keeps the merged union of the buffers stored at it and of its subtree,
 * so a query merges O(log steps) short lists instead of every live buffer. */
typedef struct _MpTimeIndex MpTimeIndex;

MpTimeIndex *mp_time_index_new    (guint n_steps);
void         mp_time_index_free   (MpTimeIndex *index);
void         mp_time_index_insert (MpTimeIndex *index,
                                   guint        first,
                                   guint        last,
                                   guint64      offset,
                                   guint64      size);
/* Replaces the contents of busy (an array of MpSpan) with the union of the
 * address ranges taken at some step of [first, last], sorted and merged. */
void         mp_time_index_busy   (MpTimeIndex *index,
                                   guint        first,
                                   guint        last,
                                   GArray      *busy);

/* Lowest offset of the smallest gap of busy that holds size, else the top
 * of busy (greedy-by-size's rule). */
guint64      mp_spans_best_fit    (const GArray *busy, guint64 size);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (MpTimeIndex, mp_time_index_free)

G_END_DECLS
