/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include "mp-version.h"

#include <gio/gio.h>
#include "graph.h"

G_BEGIN_DECLS

/* The op order as a planning stage: an order that keeps every dependency
 * (and, with several streams, each stream's own order) and lowers the peak
 * of live bytes before any planner places a buffer. */

typedef enum
{
  MP_ORDER_GIVEN,      /* the file's order */
  MP_ORDER_LIST,       /* XLA's list scheduler */
  MP_ORDER_DFS,        /* XLA's DFS scheduler */
  MP_ORDER_POST_ORDER, /* XLA's post-order */
  MP_ORDER_TREE,       /* Liu's algorithm, for a graph that is a forest of in-trees */
  MP_ORDER_BEST,       /* the smallest peak among the above */
  MP_ORDER_OPTIMAL,    /* exact search with a proof, under a time budget */
  MP_ORDER_N
} MpOrderMethod;

MP_AVAILABLE_IN_1_0
const char *mp_order_method_name        (MpOrderMethod method);
MP_AVAILABLE_IN_1_0
gboolean    mp_order_method_from_string (const char *str, MpOrderMethod *method);
/* The names a user may type, joined by sep. */
MP_AVAILABLE_IN_1_0
char       *mp_order_method_names       (const char *sep);

typedef struct
{
  gboolean      plan_inputs; /* inputs count as live bytes (as for the lifetimes) */
  gdouble       time_budget; /* optimal: seconds, 0 = 10 */
  guint64       max_states;  /* optimal: states kept at most, 0 = a default (about 1 GiB) */
  GCancellable *cancellable;
} MpOrderOptions;

typedef struct
{
  MpOrderMethod method;      /* asked for */
  MpOrderMethod chosen;      /* what made the order (best: the winning heuristic) */
  guint         n_ops;
  guint        *order;       /* n_ops: the given index of the op run at each step */
  guint64       given_peak;  /* peak of live bytes in the given order */
  guint64       peak;        /* the same in this order */
  /* optimal: no order has a peak under lower_bound; proved when it is peak */
  guint64       lower_bound;
  gboolean      proved;
  guint64       states;      /* optimal: states the search kept */
  gdouble       seconds;
  /* each heuristic's peak (G_MAXUINT64: did not apply, e.g. tree on a DAG) */
  guint64       peaks[MP_ORDER_N];
  char         *note;        /* why a method did not apply, or why not proved; or NULL */
} MpOrderResult;

/* Fails with MP_ANALYSIS_ERROR_UNSUPPORTED on a graph without ops (usage
 * records, traces: their order is what happened) and on a cancelled search
 * with G_IO_ERROR_CANCELLED. */
MP_AVAILABLE_IN_1_0
MpOrderResult *mp_order_compute      (const MpGraph        *graph,
                                      MpOrderMethod         method,
                                      const MpOrderOptions *options,
                                      GError              **error);
MP_AVAILABLE_IN_1_0
void           mp_order_result_free  (MpOrderResult *result);

/* Peak of live bytes of graph's ops run in order (given indices); live
 * (n_ops entries) gets the live bytes at each step when not NULL. */
MP_AVAILABLE_IN_1_0
guint64        mp_order_peak         (const MpGraph *graph,
                                      const guint   *order,
                                      gboolean       plan_inputs,
                                      guint64       *live);
/* Checks that order is a permutation of the ops that keeps every dependency
 * and, with several streams, each stream's order; the error names the op. */
MP_AVAILABLE_IN_1_0
gboolean       mp_order_check        (const MpGraph *graph,
                                      const guint   *order,
                                      GError       **error);
/* A copy of graph with its ops in order (checked as above). */
MP_AVAILABLE_IN_1_0
MpGraph       *mp_graph_reorder      (const MpGraph *graph,
                                      const guint   *order,
                                      GError       **error);

/* In words: which ops moved and what that saved at the peak (explain). */
MP_AVAILABLE_IN_1_0
char          *mp_order_explain      (const MpGraph       *graph,
                                      const MpOrderResult *result,
                                      gboolean             plan_inputs);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (MpOrderResult, mp_order_result_free)

G_END_DECLS
