/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include "mp-internal.h"

#include "optimal-search.h"

G_BEGIN_DECLS

/* One pass of minimisation over capacity probes, apart from the partition
 * it serves so that a test can drive it with probes of its own. */

typedef struct
{
  /* Does the partition fit in target within node_limit nodes? A probe that
   * finds a plan lowers what arena() returns, a refutation raises what
   * proved() returns. */
  MpOptResult (*probe) (guint64 target, guint64 node_limit, gpointer data);
  guint64     (*proved) (gpointer data); /* no plan is below this */
  guint64     (*arena) (gpointer data);  /* of the best plan found */
  gpointer    data;
} MpOptProbes;

/* After the pass, unless a probe stopped it (returns FALSE then), the
 * capacity just below the arena was asked with every node limit from
 * first_limit, doubling, to node_limit, as a capacity search asks it, and
 * no plan was found: minimising is never above what a capacity search with
 * those limits finds. */
gboolean mp_opt_minimize_pass (const MpOptProbes *probes,
                               guint64            first_limit,
                               guint64            node_limit,
                               guint64            side_limit);

/* The capacity just below the arena, asked as a capacity search asks it
 * (first_limit, doubling) and again below each plan found, until a probe
 * stops it (FALSE) or the arena is proved (TRUE): how a minimiser spends
 * what is left of its budget once a whole pass would not fit in it. */
gboolean mp_opt_minimize_below (const MpOptProbes *probes,
                                guint64            first_limit);

G_END_DECLS
