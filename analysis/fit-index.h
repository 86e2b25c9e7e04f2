/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include "mp-internal.h"

#include <glib.h>

G_BEGIN_DECLS

/* Index of placed buffers (rectangles: steps [first, last] x addresses
 * [offset, offset + size)) that answers first fit, the lowest offset where
 * a new rectangle misses every placed one, without walking the union of
 * the placed addresses (see fit-index.c for how). */
typedef struct _MpFitIndex MpFitIndex;

/* mean_life: the mean lifetime in steps of what will be inserted, which
 * sets the block size */
MpFitIndex *mp_fit_index_new            (guint n_steps, gdouble mean_life);
/* block: steps per block; for tests that want to exercise every path */
MpFitIndex *mp_fit_index_new_with_block (guint n_steps, guint block);
void        mp_fit_index_free           (MpFitIndex *index);
void        mp_fit_index_insert         (MpFitIndex *index,
                                         guint       first,
                                         guint       last,
                                         guint64     offset,
                                         guint64     size);
/* The lowest o such that [o, o + size) x [first, last] misses every
 * inserted rectangle: TensorFlow Lite Micro's first fit. */
guint64     mp_fit_index_first_fit      (MpFitIndex *index,
                                         guint       first,
                                         guint       last,
                                         guint64     size);
/* Queries answered and rounds taken (one round: one set asked for its
 * lowest fitting offset), for measurements. */
void        mp_fit_index_stats          (const MpFitIndex *index,
                                         guint64          *queries,
                                         guint64          *rounds);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (MpFitIndex, mp_fit_index_free)

G_END_DECLS
