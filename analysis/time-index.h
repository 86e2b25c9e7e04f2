/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include "mp-internal.h"

#include <glib.h>

G_BEGIN_DECLS

/* A half-open address range [start, end). */
typedef struct
{
  guint64 start;
  guint64 end;
} MpSpan;

/* Index of placed buffers over time: answers "which addresses are taken at
 * some step of [first, last]" as a sorted union of spans, visiting only
 * buffers whose lifetimes overlap the query (see time-index.c for how). */
typedef struct _MpTimeIndex MpTimeIndex;

/* mean_life: the mean lifetime in steps of what will be inserted, which
 * sets the block size */
MpTimeIndex *mp_time_index_new    (guint n_steps, gdouble mean_life);
/* open_share: the share of lifetimes that reach the first or last step */
MpTimeIndex *mp_time_index_new_for_lives (guint   n_steps,
                                          gdouble mean_life,
                                          gdouble open_share);
/* block: steps per block; for tests that want to exercise every path */
MpTimeIndex *mp_time_index_new_with_block (guint n_steps, guint block);
/* windows: long queries read a sparse table of unions (time-windows.c)
 * rather than the segment tree over blocks */
MpTimeIndex *mp_time_index_new_full (guint n_steps, guint block, gboolean windows);
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

/* A hint that [first, last] will be asked soon: headers TRUE some records
 * ahead, FALSE a few records later. Changes nothing. */
void         mp_time_index_prefetch (MpTimeIndex *index,
                                     guint        first,
                                     guint        last,
                                     gboolean     headers);

/* mp_spans_best_fit over what is busy in [first, last], without building
 * the union. */
guint64      mp_time_index_best_fit (MpTimeIndex *index,
                                     guint        first,
                                     guint        last,
                                     guint64      size);

/* mp_spans_first_fit over what is busy in [first, last]: walks the union
 * only up to the first gap that holds size. */
guint64      mp_time_index_first_fit (MpTimeIndex *index,
                                      guint        first,
                                      guint        last,
                                      guint64      size);

/* Start of the lowest gap of busy that holds size, else the top of busy
 * (TensorFlow Lite Micro's rule). */
guint64      mp_spans_first_fit   (const GArray *busy, guint64 size);

/* Lowest offset of the smallest gap of busy that holds size, else the top
 * of busy (greedy-by-size's rule). */
guint64      mp_spans_best_fit    (const GArray *busy, guint64 size);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (MpTimeIndex, mp_time_index_free)

G_END_DECLS
