/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include "mp-internal.h"

#include "planner-private.h"

G_BEGIN_DECLS

/* The best-of portfolio (planner-best-of.c): every visiting order crossed
 * with both placement rules, the smallest arena kept. */
typedef enum
{
  MP_BEST_OF_SIZE,          /* largest first */
  MP_BEST_OF_CONFLICTS,     /* most lifetime-overlapping buffers first */
  MP_BEST_OF_CONFLICT_SIZE, /* conflicts × size, largest first */
  MP_BEST_OF_DURATION,      /* longest lifetime first */
  MP_BEST_OF_AREA,          /* size × lifetime, largest first */
  MP_BEST_OF_START,         /* earliest start first, larger first on a tie */
  MP_BEST_OF_GIVEN,         /* the records' own order */
  MP_BEST_OF_SIZE_LIFETIME, /* largest first, the longer lifetime on a tie (best-fit's) */
  MP_BEST_OF_SIZE_LATEST,   /* largest first, the last record on a tie (first-fit's) */
  MP_BEST_OF_N_ORDERS
} MpBestOfOrder;

#define MP_BEST_OF_N_MEMBERS (MP_BEST_OF_N_ORDERS * 2)
/* Members run at most this many at a time: each holds its own offsets and
 * time index (memory-estimate.c counts four). */
#define MP_BEST_OF_MAX_THREADS 4

/* A member: order member / 2 with first fit (even) or best fit (odd). */
const char *mp_best_of_order_name (MpBestOfOrder order);
char       *mp_best_of_member_name (guint member);

/* The visiting order of a member's sort: record indices. times: each
 * record's lifetime in the user's units (mp_usage_times), or NULL for its
 * steps. */
guint *mp_best_of_order (const MpUsage *records, guint n, const gint64 *times,
                         MpBestOfOrder order);

/* Places records as one member does; returns its arena. */
guint64 mp_best_of_place_member (const MpUsage *records, guint n, guint n_steps,
                                 const gint64 *times, guint member, guint64 *offsets);

/* Runs every member (on GLib's thread pool, up to four at a time) and
 * keeps the smallest arena, the lowest member on a tie, so the result does
 * not depend on the number of threads. Returns the winner's arena and
 * member; FALSE with error set when cancelled. */
gboolean mp_best_of_place (const MpUsage *records, guint n, guint n_steps, const gint64 *times,
                           guint64 *offsets, guint64 *arena, guint *member,
                           GCancellable *cancellable, GError **error);

G_END_DECLS
