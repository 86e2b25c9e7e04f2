/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include "mp-internal.h"

#include <gio/gio.h>

G_BEGIN_DECLS

/* The exact core of the optimal planner: "do these buffers fit in capacity
 * C?", answered by a complete depth-first search over canonical placements
 * (after MiniMalloc, Moffitt, ASPLOS 2023). A placement is an order of
 * buffers: each goes at the lowest offset above the placed buffers whose
 * lifetimes overlap its own, and offsets never decrease along the order. */

typedef struct
{
  guint   first; /* inclusive steps */
  guint   last;
  guint64 size;  /* slot: what the buffer occupies */
  guint64 bytes; /* what must fit under the capacity */
  guint64 width; /* lifetime length in the user's time units (for the preorders) */
} MpOptBuffer;

typedef enum
{
  MP_OPT_FOUND,      /* offsets filled, every offset + bytes <= capacity */
  MP_OPT_INFEASIBLE, /* proved: no placement fits */
  MP_OPT_LIMIT,      /* every preorder ran out of its node limit */
  MP_OPT_STOPPED,    /* deadline passed or cancelled */
} MpOptResult;

/* Why a branch was cut, counted for teaching (memplan-cli explain). */
typedef enum
{
  MP_OPT_PRUNE_ORDER,     /* placements out of canonical order */
  MP_OPT_PRUNE_DOMINANCE, /* a lower gap nothing else can use */
  MP_OPT_PRUNE_CAPACITY,  /* the buffer itself passes the capacity */
  MP_OPT_PRUNE_SECTIONS,  /* some section's unplaced buffers no longer fit */
  MP_OPT_N_PRUNES
} MpOptPrune;

typedef struct _MpOptSearch MpOptSearch;

/* NULL when the search would need more than about max_entries entries of
 * overlap and section lists (it keeps them in memory). */
MpOptSearch *mp_opt_search_new   (const MpOptBuffer *buffers,
                                  guint              n,
                                  guint64            alignment,
                                  guint64            max_entries);
void         mp_opt_search_free  (MpOptSearch *search);
/* threads > 0: the preorders run on up to threads threads at a time, and a
 * capacity asked again goes on where its searches paused; the answer is the
 * same as with 0 (in turn, on the caller's thread). */
void         mp_opt_search_set_threads (MpOptSearch *search,
                                        guint        threads);
/* Drops the paused searches of every capacity but this one: the work ahead
 * on idle threads goes to the capacity asked and the lowest one asked, so
 * a caller that will ask no other capacity gives them all to this one. The
 * answers do not change. */
void         mp_opt_search_keep  (MpOptSearch *search,
                                  guint64      capacity);
/* Tries each static preorder in turn with at most node_limit nodes each. */
MpOptResult  mp_opt_search_fit   (MpOptSearch  *search,
                                  guint64       capacity,
                                  guint64       node_limit,
                                  gint64        deadline_us,
                                  GCancellable *cancellable,
                                  guint64      *offsets);
/* A lower bound on the arena that counts the slots' padding. */
guint64      mp_opt_search_bound (const MpOptSearch *search);
/* Nodes explored by every fit so far. */
guint64      mp_opt_search_nodes (const MpOptSearch *search);
/* Branches cut for a reason, over every fit so far. */
guint64      mp_opt_search_prunes (const MpOptSearch *search, MpOptPrune reason);
const char  *mp_opt_prune_name    (MpOptPrune reason);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (MpOptSearch, mp_opt_search_free)

G_END_DECLS
