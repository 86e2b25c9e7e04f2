/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include "mp-version.h"

#include "graph.h"

G_BEGIN_DECLS

/* One planned buffer: a tensor (the root of its views) with its inclusive
 * lifetime in steps. Planners place slots of size bytes (the tensor's bytes
 * rounded up to the alignment); the arena, the lower bound and the validator
 * count the bytes the tensor really has, so the top buffer's padding is not
 * charged to a plan. */
typedef struct
{
  guint   tensor;
  guint   first;
  guint   last;
  guint64 size;  /* slot: bytes rounded up to the alignment */
  guint64 bytes; /* the tensor's own size */
  /* Constraints (all zero: none). align: the offset's own alignment on top
   * of the plan's; fixed and preferred count with their flag. gaps (in
   * steps, inside [first, last]) live in the same rc box as the records. */
  guint64      align;
  guint64      fixed;
  guint64      preferred;
  guint        flags;
  guint        n_gaps;
  const MpGap *gaps;
} MpUsage;

#define MP_USAGE_FIXED     (1u << 0)
#define MP_USAGE_PREFERRED (1u << 1)

typedef struct
{
  gboolean plan_inputs; /* place inputs in the arena too */
  guint64  alignment;   /* 0: the graph's own */
} MpLifetimeOptions;

typedef struct
{
  MpUsage *records;     /* in order of first appearance in the op sequence; a g_atomic_rc_box
                         * that plans share (mp_plan_new takes a reference) */
  guint    n_records;
  guint    n_steps;
  guint64  alignment;
  guint64  lower_bound; /* max over steps of the live bytes */
  guint    peak_step;
  guint64  workspace;   /* shared scratch: the largest op workspace, aligned */
  guint64 *live_bytes;  /* n_steps entries */
  gint    *record_of;   /* per graph tensor: its record (a view: its root's), or -1 */
  gboolean constrained; /* some record has an alignment, offset or gaps of its own */
} MpLifetimes;

MP_AVAILABLE_IN_1_0
MpLifetimes *mp_lifetimes_compute     (const MpGraph           *graph,
                                       const MpLifetimeOptions *options,
                                       GError                 **error);
MP_AVAILABLE_IN_1_0
void         mp_lifetimes_free        (MpLifetimes *lifetimes);

/* Max over steps of the sum of live bytes; fills live (n_steps) when given. */
MP_AVAILABLE_IN_1_0
guint64      mp_usage_lower_bound     (const MpUsage *records,
                                       guint          n_records,
                                       guint          n_steps,
                                       guint64       *live,
                                       guint         *peak_step);

/* A record's lifetime in the user's own units: op indices for a graph, the
 * file's time stamps for usage records (whose steps are ranks). */
MP_AVAILABLE_IN_1_0
void         mp_usage_times           (const MpGraph *graph,
                                       const MpUsage *record,
                                       gint64        *first,
                                       gint64        *last);

/* TRUE when some record carries a constraint of its own. */
MP_AVAILABLE_IN_1_0
gboolean     mp_usage_constrained     (const MpUsage *records, guint n);
/* MiniMalloc's effective size (src/minimalloc.cc): the least distance from
 * a's offset up to b's with b above a, over the steps both hold space (a
 * gap holds only its window), in slot (or byte) sizes. FALSE when they
 * never hold space at the same step. May be negative with windows. */
MP_AVAILABLE_IN_1_0
gboolean     mp_usage_effective_size  (const MpUsage *a, const MpUsage *b, gboolean slots,
                                       gint64 *size);
/* Whether a at offset oa and b at ob share a byte while both hold space:
 * neither lies wholly above the other by the effective sizes. */
MP_AVAILABLE_IN_1_0
gboolean     mp_usage_collide         (const MpUsage *a, guint64 oa, const MpUsage *b, guint64 ob,
                                       gboolean slots);
/* A g_atomic_rc_box copy of n records with their gaps, which it rebases. */
MP_AVAILABLE_IN_1_0
MpUsage     *mp_usage_box_dup         (const MpUsage *records, guint n);
/* The offset alignment of a record in a plan aligned to alignment. */
static inline guint64
mp_usage_alignment (const MpUsage *r, guint64 alignment)
{
  return MAX (MAX (r->align, alignment), 1);
}

static inline guint64
mp_align_up (guint64 size, guint64 alignment)
{
  if (alignment <= 1)
    return size;
  return (size + alignment - 1) / alignment * alignment;
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (MpLifetimes, mp_lifetimes_free)

G_END_DECLS
