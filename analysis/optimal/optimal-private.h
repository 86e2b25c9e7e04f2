/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include "mp-internal.h"

#include "optimal-search.h"

G_BEGIN_DECLS

/* Shared by the search and its bounds. */
int   mp_opt_cmp_u32     (const void *a, const void *b);
int   mp_opt_cmp_u64     (const void *a, const void *b);
/* How many of the n sorted values are below t. */
guint mp_opt_count_below (const guint *sorted, guint n, guint t);
/* Buffer indices by first step, then by index (data: the buffers). */
gint    mp_opt_cmp_first (gconstpointer a, gconstpointer b, gpointer data);
/* The arena of a plan of the n buffers: its highest offset + bytes. */
guint64 mp_opt_arena     (const MpOptBuffer *buffers, guint n, const guint64 *offsets);

/* The searches' undo trail and candidate stack, grown on demand. */
typedef struct
{
  guint64 *slot;
  guint64  old;
} MpOptTrailEntry;

static inline void
mp_opt_trail_set (MpOptTrailEntry **trail, gsize *len, gsize *cap, guint64 *slot, guint64 value)
{
  if (G_UNLIKELY (*len == *cap))
    {
      *cap = MAX (1024, 2 * *cap);
      *trail = g_renew (MpOptTrailEntry, *trail, *cap);
    }
  (*trail)[*len].slot = slot;
  (*trail)[(*len)++].old = *slot;
  *slot = value;
}

/* Undoes the entries above mark; returns the new length. */
static inline gsize
mp_opt_trail_undo (const MpOptTrailEntry *trail, gsize len, gsize mark)
{
  while (len > mark)
    {
      len--;
      *trail[len].slot = trail[len].old;
    }
  return len;
}

/* Reserves n entries on the stack; returns where they start (it may move). */
static inline gsize
mp_opt_pool_reserve (guint **pool, gsize *len, gsize *cap, gsize n)
{
  gsize at = *len;

  if (*len + n > *cap)
    {
      *cap = MAX (*len + n, 2 * *cap);
      *pool = g_renew (guint, *pool, *cap);
    }
  *len += n;
  return at;
}

G_END_DECLS
